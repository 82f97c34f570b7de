/*
 * fuzz_cluster: libFuzzer harness for the cluster state (dracel_cluster_*, dracel_snapshot_*),
 * through the public API. The input is a script of steps separated by a line "%%": a step's
 * first byte is its operation (a: apply, s: set_source, d: delete, n: snapshot), its second the
 * source (one of four) or, for d, the kind; the rest is the buffer (or "NAMESPACE/NAME" to
 * delete). Every step is followed by a snapshot. Built with --enable-fuzzing.
 *
 * Besides crashes and sanitizer reports, it traps on a broken contract:
 * - a status other than OK, EINPUT, ENOMEM; a rejection without a message; a rejected step
 *   that changed the counts (all or nothing);
 * - a snapshot whose counts are not the cluster's, whose claims or nodes are not found at their
 *   own index by name, or whose names repeat;
 * - an earlier snapshot (up to four are kept) that changed: its claims and nodes, names and
 *   versions, are compared with what they were when it was taken.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dracel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define ALL (DRACEL_OBJ_SLICE | DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM | DRACEL_OBJ_NODE)
#define KEEP 4

/* What a snapshot showed when it was taken: a hash over its claims and nodes. */
static uint64_t fingerprint(const dracel_snapshot *s)
{
    uint64_t h = 1469598103934665603ULL;
    size_t nc = dracel_snapshot_claims(s), nn = dracel_snapshot_nodes(s);
    for (size_t i = 0; i < nc; i++) {
        dracel_claim_status cs;
        CHECK(dracel_snapshot_claim(s, i, &cs) == DRACEL_OK);
        for (const char *p = cs.name; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        h = (h ^ cs.version) * 1099511628211ULL;
        h = (h ^ cs.nresults) * 1099511628211ULL;
    }
    for (size_t i = 0; i < nn; i++) {
        dracel_node n;
        CHECK(dracel_snapshot_node(s, i, &n) == DRACEL_OK);
        for (const char *p = n.name; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        h = (h ^ n.nlabels) * 1099511628211ULL;
    }
    return h ^ nc ^ (nn << 32);
}

static void check_snapshot(const dracel_cluster *c, const dracel_snapshot *s)
{
    size_t nc = dracel_snapshot_claims(s), nn = dracel_snapshot_nodes(s);
    CHECK(nc == dracel_cluster_count(c, DRACEL_OBJ_CLAIM));
    CHECK(nn == dracel_cluster_count(c, DRACEL_OBJ_NODE));
    CHECK(dracel_objects_count(dracel_snapshot_classes(s), DRACEL_OBJ_CLASS) ==
          dracel_cluster_count(c, DRACEL_OBJ_CLASS));
    CHECK(dracel_usage_devices(dracel_snapshot_usage(s)) <=
          dracel_table_rows(dracel_snapshot_table(s)));
    for (size_t i = 0; i < nc; i++) {
        dracel_claim_status cs;
        size_t at;
        CHECK(dracel_snapshot_claim(s, i, &cs) == DRACEL_OK);
        CHECK(dracel_snapshot_claim_find(s, cs.ns, cs.name, &at) == DRACEL_OK && at == i);
        for (size_t k = 0; k < cs.nresults; k++) {
            dracel_device_result r;
            CHECK(dracel_snapshot_claim_result(s, i, k, &r) == DRACEL_OK && r.device[0]);
        }
    }
    for (size_t i = 0; i < nn; i++) {
        dracel_node n;
        size_t at;
        CHECK(dracel_snapshot_node(s, i, &n) == DRACEL_OK);
        CHECK(dracel_snapshot_node_find(s, n.name, &at) == DRACEL_OK && at == i);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const SOURCES[] = {"a.yaml", "b.yaml", "api/resourceclaims", "c.json"};
    static const unsigned KINDS[] = {DRACEL_OBJ_SLICE, DRACEL_OBJ_CLASS, DRACEL_OBJ_CLAIM,
                                     DRACEL_OBJ_NODE};
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    dracel_cluster *c;
    if (dracel_cluster_new(NULL, &c) != DRACEL_OK) {
        free(text);
        return 0;
    }
    dracel_snapshot *kept[KEEP] = {NULL};
    uint64_t prints[KEEP] = {0};
    int nkept = 0;
    char err[1024];
    const char *p = text, *end = text + size;
    for (int steps = 0; p < end && steps < 64; steps++) {
        const char *next = strstr(p, "\n%%\n");
        const char *stop = next ? next : end;
        size_t len = (size_t)(stop - p);
        if (len >= 2) {
            char op = p[0];
            unsigned which = (unsigned char)p[1] % 4;
            const char *buf = p + 2;
            size_t blen = len - 2;
            size_t before[4];
            for (int k = 0; k < 4; k++)
                before[k] = dracel_cluster_count(c, KINDS[k]);
            dracel_status st = DRACEL_OK;
            err[0] = '\0';
            if (op == 'a' || op == 's') {
                st = op == 'a' ? dracel_cluster_apply(c, SOURCES[which], buf, blen, ALL, err,
                                                      sizeof err)
                               : dracel_cluster_set_source(c, SOURCES[which], buf, blen, ALL,
                                                           err, sizeof err);
                CHECK(st == DRACEL_OK || st == DRACEL_EINPUT || st == DRACEL_ENOMEM);
                CHECK(st == DRACEL_OK || err[0]);
            } else if (op == 'd') {
                char name[256];
                size_t n = blen < sizeof name - 1 ? blen : sizeof name - 1;
                memcpy(name, buf, n);
                name[n] = '\0';
                char *slash = strchr(name, '/');
                const char *ns = NULL, *nm = name;
                if (slash) {
                    *slash = '\0';
                    ns = name;
                    nm = slash + 1;
                }
                st = dracel_cluster_delete(c, KINDS[which], ns, nm);
                CHECK(st == DRACEL_OK || st == DRACEL_EINPUT);
            }
            if (st != DRACEL_OK)
                for (int k = 0; k < 4; k++)
                    CHECK(dracel_cluster_count(c, KINDS[k]) == before[k]);
            dracel_snapshot *s;
            CHECK(dracel_cluster_snapshot(c, &s, err, sizeof err) == DRACEL_OK);
            check_snapshot(c, s);
            if (op == 'n' || nkept < KEEP) { /* keep it, the oldest going */
                int slot = nkept < KEEP ? nkept++ : (int)(which % KEEP);
                dracel_snapshot_unref(kept[slot]);
                kept[slot] = s;
                prints[slot] = fingerprint(s);
            } else {
                dracel_snapshot_unref(s);
            }
            for (int k = 0; k < nkept; k++)
                CHECK(fingerprint(kept[k]) == prints[k]);
        }
        p = next ? next + 4 : end;
    }
    dracel_cluster_free(c);
    for (int k = 0; k < nkept; k++) {
        CHECK(fingerprint(kept[k]) == prints[k]); /* they outlive the cluster */
        dracel_snapshot_unref(kept[k]);
    }
    free(text);
    return 0;
}
