/*
 * test_objects.c: unit tests for src/objects.c, the decoder of DeviceClasses, ResourceClaims,
 * ResourceClaimTemplates, Nodes and `dra-celc allocate` scenarios. Data files live in
 * tests/data/objects/ (the tests run from the top of the source tree):
 *   objects.yaml   every kind (and a ResourceSlice, a Pod) as a YAML stream
 *   objects.json   the same as a JSON `kind: List`
 *   scenario.yaml  a scenario; scenario.json the same in JSON
 *   dir/           a.yaml (DeviceClass), b.json (Node), c.yml (a claim, an object without kind,
 *                  a ResourceSlice without kind); notes.txt is not read
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "claims.h"
#include "arena.h"
#include "common.h"
#include "testutil.h"

#define DATA "tests/data/objects/"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 */

static char err[1024];
static char tmpdir[] = "/tmp/dracel-objects-XXXXXX"; /* made by main() */

/* dc_objects_load reads files: text is written to TMPDIR/name, loaded (every kind) and removed;
 * "TMPDIR/" is taken out of the message. */
static dracel_status load_text(dc_objects *o, const char *name, const char *text)
{
    char path[sizeof tmpdir + 64];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t n = strlen(text);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
    dracel_status st = dc_objects_load(o, path, ~0u, NULL, err, sizeof err);
    unlink(path);
    size_t dl = strlen(tmpdir);
    if (strncmp(err, tmpdir, dl) == 0 && err[dl] == '/')
        memmove(err, err + dl + 1, strlen(err + dl + 1) + 1);
    return st;
}

/* Load text alone (as a file of every kind) and expect it to be rejected with exactly msg. */
static void check_err(const char *name, const char *text, const char *msg, int line)
{
    dc_objects o;
    dc_objects_init(&o, NULL);
    dracel_status st = load_text(&o, name, text);
    if (st != DRACEL_EINPUT || strcmp(err, msg) != 0)
        fail_msg("case at test line %d: status %d\n got: %s\nwant: %s", line, st, err, msg);
    assert_int_equal(o.nclasses + o.nclaims + o.nnodes + o.slices.n + o.slices.nnotes, 0);
    dc_objects_free(&o);
}
#define CHECK_ERR(text, msg) check_err("c.yaml", text, msg, __LINE__)

/* A scenario from text, expected to be rejected with exactly msg. */
static void check_scn_err(const char *text, const char *msg, int line)
{
    dc_objects o;
    dc_scenario sc;
    memset(&sc, 0, sizeof sc);
    dc_objects_init(&o, NULL);
    dracel_status st =
        dc_scenario_load_buffer(&o, &sc, "s.yaml", text, strlen(text), NULL, err, sizeof err);
    if (st != DRACEL_EINPUT || strcmp(err, msg) != 0)
        fail_msg("case at test line %d: status %d\n got: %s\nwant: %s", line, st, err, msg);
    assert_int_equal(o.nclasses + o.nclaims + o.nnodes + o.slices.n + o.slices.nnotes, 0);
    assert_null(sc.node.name);
    dc_objects_free(&o);
}
#define CHECK_SCN_ERR(text, msg) check_scn_err(text, msg, __LINE__)

static void same_sels(const dc_sel_in *a, const dc_sel_in *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        same_str(a[i].expr, b[i].expr);
        assert_int_equal(a[i].len, b[i].len);
    }
}

static void same_opaque(const dc_opaque_in *a, const dc_opaque_in *b)
{
    same_str(a->driver, b->driver);
    same_str(a->parameters, b->parameters);
}

static void same_refs(const char **a, uint32_t na, const char **b, uint32_t nb)
{
    assert_int_equal(na, nb);
    for (uint32_t i = 0; i < na; i++)
        same_str(a[i], b[i]);
}

static void same_subreq(const dc_subreq_in *a, const dc_subreq_in *b)
{
    same_str(a->name, b->name);
    same_str(a->class_name, b->class_name);
    assert_int_equal(a->nsels, b->nsels);
    same_sels(a->sels, b->sels, a->nsels);
    same_str(a->mode, b->mode);
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->admin_access, b->admin_access);
    assert_int_equal(a->capacity_requests, b->capacity_requests);
    assert_int_equal(a->ntols, b->ntols);
    for (uint32_t i = 0; i < a->ntols; i++) {
        same_str(a->tols[i].key, b->tols[i].key);
        same_str(a->tols[i].op, b->tols[i].op);
        same_str(a->tols[i].value, b->tols[i].value);
        same_str(a->tols[i].effect, b->tols[i].effect);
        assert_int_equal(a->tols[i].has_seconds, b->tols[i].has_seconds);
        assert_int_equal(a->tols[i].seconds, b->tols[i].seconds);
    }
}

static void same_claim(const dc_claim_in *a, const dc_claim_in *b)
{
    same_str(a->name, b->name);
    same_str(a->namespace, b->namespace);
    same_str(a->kind, b->kind);
    assert_int_equal(a->nreqs, b->nreqs);
    for (uint32_t i = 0; i < a->nreqs; i++) {
        same_str(a->reqs[i].name, b->reqs[i].name);
        assert_int_equal(a->reqs[i].first_available, b->reqs[i].first_available);
        assert_int_equal(a->reqs[i].nsubs, b->reqs[i].nsubs);
        for (uint32_t j = 0; j < a->reqs[i].nsubs; j++)
            same_subreq(&a->reqs[i].subs[j], &b->reqs[i].subs[j]);
    }
    assert_int_equal(a->ncons, b->ncons);
    for (uint32_t i = 0; i < a->ncons; i++) {
        same_refs(a->cons[i].requests, a->cons[i].nrequests, b->cons[i].requests,
                  b->cons[i].nrequests);
        same_str(a->cons[i].match_attribute, b->cons[i].match_attribute);
        same_str(a->cons[i].distinct_attribute, b->cons[i].distinct_attribute);
    }
    assert_int_equal(a->nconfig, b->nconfig);
    for (uint32_t i = 0; i < a->nconfig; i++) {
        same_refs(a->config[i].requests, a->config[i].nrequests, b->config[i].requests,
                  b->config[i].nrequests);
        same_opaque(&a->config[i].opaque, &b->config[i].opaque);
    }
}

static void same_node(const dc_node_in *a, const dc_node_in *b)
{
    same_str(a->name, b->name);
    assert_int_equal(a->nlabels, b->nlabels);
    for (uint32_t i = 0; i < a->nlabels; i++) {
        same_str(a->labels[i].key, b->labels[i].key);
        same_str(a->labels[i].value, b->labels[i].value);
    }
}

/* Everything but files and lines. */
static void same_objects(const dc_objects *a, const dc_objects *b)
{
    assert_int_equal(a->nclasses, b->nclasses);
    for (uint32_t i = 0; i < a->nclasses; i++) {
        const dc_class_in *x = &a->classes[i], *y = &b->classes[i];
        same_str(x->name, y->name);
        assert_int_equal(x->nsels, y->nsels);
        same_sels(x->sels, y->sels, x->nsels);
        assert_int_equal(x->nconfig, y->nconfig);
        for (uint32_t j = 0; j < x->nconfig; j++)
            same_opaque(&x->config[j], &y->config[j]);
    }
    assert_int_equal(a->nclaims, b->nclaims);
    for (uint32_t i = 0; i < a->nclaims; i++)
        same_claim(&a->claims[i], &b->claims[i]);
    assert_int_equal(a->nnodes, b->nnodes);
    for (uint32_t i = 0; i < a->nnodes; i++)
        same_node(&a->nodes[i], &b->nodes[i]);
    assert_int_equal(a->slices.n, b->slices.n);
    for (uint32_t i = 0; i < a->slices.n; i++) {
        same_str(a->slices.slices[i].name, b->slices.slices[i].name);
        same_str(a->slices.slices[i].pool, b->slices.slices[i].pool);
        assert_int_equal(a->slices.slices[i].ndevices, b->slices.slices[i].ndevices);
    }
    assert_int_equal(a->slices.nnotes, b->slices.nnotes);
}

static const char PARAMS[] =
    "{\"mode\":\"shared\",\"replicas\":16,\"ratio\":1000.5,\"big\":18446744073709551615,"
    "\"flags\":[true,false,null,\"yes\"],\"nested\":{\"a\":{\"b\":[]},"
    "\"q\\\"uote\":\"tab\\tand\\\\slash\"}}";

/* ---------------------------------------------------------------------------------------------
 * Content
 */

static void check_content(const dc_objects *o)
{
    /* DeviceClass */
    assert_int_equal(o->nclasses, 1);
    const dc_class_in *cl = &o->classes[0];
    assert_string_equal(cl->name, "gpu.example.com");
    assert_int_equal(cl->nsels, 3);
    assert_string_equal(cl->sels[0].expr, "device.driver == \"gpu.example.com\"");
    assert_int_equal(cl->sels[0].len, strlen(cl->sels[0].expr));
    assert_string_equal(cl->sels[1].expr,
                        "device.attributes[\"gpu.example.com\"].model == \"H100\"");
    assert_null(cl->sels[2].expr); /* {}: no cel */
    assert_int_equal(cl->nconfig, 1); /* the entry without opaque is dropped */
    assert_string_equal(cl->config[0].driver, "gpu.example.com");
    assert_string_equal(cl->config[0].parameters, PARAMS);

    assert_int_equal(o->nclaims, 3);
    /* ResourceClaim train */
    const dc_claim_in *c = &o->claims[0];
    assert_string_equal(c->name, "train");
    assert_string_equal(c->namespace, "ml");
    assert_string_equal(c->kind, "ResourceClaim");
    assert_int_equal(c->nreqs, 3);
    const dc_request_in *q = &c->reqs[0];
    assert_string_equal(q->name, "gpu");
    assert_false(q->first_available);
    assert_int_equal(q->nsubs, 1);
    const dc_subreq_in *r = &q->subs[0];
    assert_null(r->name);
    assert_string_equal(r->class_name, "gpu.example.com");
    assert_int_equal(r->nsels, 1);
    assert_string_equal(r->sels[0].expr,
                        "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) "
                        ">= 0");
    assert_string_equal(r->mode, "ExactCount");
    assert_int_equal(r->count, 2);
    assert_true(r->admin_access);
    assert_false(r->capacity_requests);
    assert_int_equal(r->ntols, 3);
    assert_string_equal(r->tols[0].key, "example.com/unhealthy");
    assert_string_equal(r->tols[0].op, "Exists");
    assert_null(r->tols[0].value);
    assert_string_equal(r->tols[0].effect, "NoSchedule");
    assert_false(r->tols[0].has_seconds);
    assert_string_equal(r->tols[1].key, "maintenance");
    assert_null(r->tols[1].op); /* Equal */
    assert_string_equal(r->tols[1].value, "yes");
    assert_null(r->tols[1].effect);
    assert_true(r->tols[1].has_seconds);
    assert_int_equal(r->tols[1].seconds, 300);
    assert_null(r->tols[2].key);
    assert_string_equal(r->tols[2].op, "Exists");

    q = &c->reqs[1];
    assert_string_equal(q->name, "nic");
    assert_true(q->first_available);
    assert_int_equal(q->nsubs, 2);
    assert_string_equal(q->subs[0].name, "fast");
    assert_string_equal(q->subs[0].class_name, "nic.example.com");
    assert_string_equal(q->subs[0].mode, "All");
    assert_int_equal(q->subs[0].count, 1);
    assert_true(q->subs[0].capacity_requests);
    assert_false(q->subs[0].admin_access);
    assert_string_equal(q->subs[1].name, "slow");
    assert_null(q->subs[1].mode);
    assert_int_equal(q->subs[1].count, 1); /* count 0 is the default (1), as in v1 */
    assert_int_equal(q->subs[1].nsels, 0);

    q = &c->reqs[2]; /* kept for the allocator: no class, an unknown mode, its count */
    assert_string_equal(q->name, "any");
    assert_null(q->subs[0].class_name);
    assert_string_equal(q->subs[0].mode, "Some");
    assert_int_equal(q->subs[0].count, -3);

    assert_int_equal(c->ncons, 2);
    assert_int_equal(c->cons[0].nrequests, 2);
    assert_string_equal(c->cons[0].requests[0], "gpu");
    assert_string_equal(c->cons[0].requests[1], "nic/fast");
    assert_string_equal(c->cons[0].match_attribute, "gpu.example.com/numa");
    assert_null(c->cons[0].distinct_attribute);
    assert_int_equal(c->cons[1].nrequests, 0);
    assert_null(c->cons[1].match_attribute);
    assert_string_equal(c->cons[1].distinct_attribute, "gpu.example.com/uuid");

    assert_int_equal(c->nconfig, 2); /* the entry without opaque is dropped */
    assert_int_equal(c->config[0].nrequests, 1);
    assert_string_equal(c->config[0].requests[0], "gpu");
    assert_string_equal(c->config[0].opaque.driver, "gpu.example.com");
    assert_string_equal(c->config[0].opaque.parameters, "{\"a\":1}");
    assert_int_equal(c->config[1].nrequests, 0);
    assert_string_equal(c->config[1].opaque.driver, "nic.example.com");
    assert_null(c->config[1].opaque.parameters);

    /* ResourceClaimTemplate: the claim is spec.spec */
    c = &o->claims[1];
    assert_string_equal(c->name, "gpu-tiered");
    assert_string_equal(c->namespace, "default");
    assert_string_equal(c->kind, "ResourceClaimTemplate");
    assert_int_equal(c->nreqs, 1);
    assert_true(c->reqs[0].first_available);
    assert_int_equal(c->reqs[0].nsubs, 2);
    assert_string_equal(c->reqs[0].subs[0].name, "h100");
    assert_string_equal(c->reqs[0].subs[0].sels[0].expr,
                        "device.attributes[\"gpu.example.com\"].?model.orValue(\"\") == \"H100\"");
    assert_string_equal(c->reqs[0].subs[1].name, "any");

    /* A claim without apiVersion or spec */
    c = &o->claims[2];
    assert_string_equal(c->name, "empty");
    assert_null(c->namespace);
    assert_int_equal(c->nreqs + c->ncons + c->nconfig, 0);

    /* Node: labels sorted by key */
    assert_int_equal(o->nnodes, 1);
    const dc_node_in *n = &o->nodes[0];
    assert_string_equal(n->name, "node-a");
    assert_int_equal(n->nlabels, 4);
    static const char *const keys[] = {"empty", "example.com/gpu", "kubernetes.io/hostname",
                                       "topology.kubernetes.io/zone"};
    static const char *const values[] = {"", "true", "node-a", "zone-1"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(n->labels[i].key, keys[i]);
        assert_string_equal(n->labels[i].value, values[i]);
    }

    /* and the ResourceSlice; the Pod is a note */
    assert_int_equal(o->slices.n, 1);
    assert_string_equal(o->slices.slices[0].name, "node-a-gpu");
    assert_int_equal(o->slices.nnotes, 1);
}

static void test_yaml(void **state)
{
    (void)state;
    dc_objects o;
    dc_objects_init(&o, NULL);
    if (dc_objects_load(&o, DATA "objects.yaml", ~0u, NULL, err, sizeof err) != DRACEL_OK)
        fail_msg("%s", err);
    check_content(&o);
    assert_string_equal(o.slices.notes[0],
                        DATA "objects.yaml:116: skipped object of kind Pod (trainer)");
    /* Lines: of the object, of each request and subrequest, of expressions and constraints */
    assert_string_equal(o.classes[0].file, DATA "objects.yaml");
    assert_int_equal(o.classes[0].line, 2);
    assert_int_equal(o.classes[0].sels[0].line, 9);
    assert_int_equal(o.classes[0].sels[1].line, 11);
    assert_int_equal(o.classes[0].sels[2].line, 0);
    const dc_claim_in *c = &o.claims[0];
    assert_int_equal(c->line, 26);
    assert_int_equal(c->reqs[0].line, 34);
    assert_int_equal(c->reqs[0].subs[0].line, 36);
    assert_int_equal(c->reqs[0].subs[0].sels[0].line, 38);
    assert_int_equal(c->reqs[1].line, 46);
    assert_int_equal(c->reqs[1].subs[1].line, 52);
    assert_int_equal(c->cons[1].line, 62);
    assert_int_equal(o.claims[1].line, 72);
    assert_int_equal(o.nodes[0].line, 93);
    dc_objects_free(&o);
}

static void test_json(void **state)
{
    (void)state;
    dc_objects y, j;
    dc_objects_init(&y, NULL);
    dc_objects_init(&j, NULL);
    assert_int_equal(dc_objects_load(&y, DATA "objects.yaml", ~0u, NULL, err, sizeof err),
                     DRACEL_OK);
    if (dc_objects_load(&j, DATA "objects.json", ~0u, NULL, err, sizeof err) != DRACEL_OK)
        fail_msg("%s", err);
    check_content(&j);
    same_objects(&y, &j);
    assert_int_equal(j.classes[0].line, 5);
    assert_int_equal(j.classes[0].sels[0].line, 15);
    assert_int_equal(j.claims[0].line, 53);
    assert_int_equal(j.nodes[0].line, 201);
    dc_objects_free(&y);
    dc_objects_free(&j);
}

/* The kinds mask, objects without kind, directories, appending. */
static void test_kinds(void **state)
{
    (void)state;
    dc_objects o;
    dc_objects_init(&o, NULL);
    unsigned all = DC_OBJ_SLICE | DC_OBJ_CLASS | DC_OBJ_CLAIM | DC_OBJ_NODE;
    assert_int_equal(dc_objects_load(&o, DATA "dir", all, NULL, err, sizeof err), DRACEL_OK);
    assert_int_equal(o.nclasses, 1);
    assert_string_equal(o.classes[0].name, "a");
    assert_string_equal(o.classes[0].file, DATA "dir/a.yaml");
    assert_int_equal(o.nnodes, 1);
    assert_string_equal(o.nodes[0].labels[0].key, "a");
    assert_string_equal(o.nodes[0].labels[1].value, "2");
    assert_int_equal(o.nclaims, 1);
    assert_string_equal(o.claims[0].name, "c");
    assert_int_equal(o.slices.n, 1); /* shaped like a ResourceSlice: one */
    assert_int_equal(o.slices.nnotes, 1);
    assert_string_equal(o.slices.notes[0],
                        DATA "dir/c.yml:4: skipped object without kind (unknown)");
    /* appending: a class whose name the set has is rejected (Kubernetes holds one of a
     * name), and nothing of the load stays */
    assert_int_equal(dc_objects_load(&o, DATA "dir/a.yaml", all, NULL, err, sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, DATA "dir/a.yaml:1: DeviceClass a: defined twice (also " DATA
                             "dir/a.yaml:1)");
    assert_int_equal(o.nclasses, 1);
    assert_int_equal(o.slices.n, 1);
    assert_int_equal(dc_objects_find(&o, DC_OBJ_CLASS, NULL, "a"), 0);
    assert_int_equal(dc_objects_find(&o, DC_OBJ_CLAIM, NULL, "c"), 0);
    dc_objects_free(&o);

    /* One kind: objects without kind are of that kind, unless shaped like a ResourceSlice */
    dc_objects_init(&o, NULL);
    assert_int_equal(dc_objects_load(&o, DATA "dir", DC_OBJ_CLAIM, NULL, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(o.nclaims, 2);
    assert_string_equal(o.claims[1].name, "unknown");
    assert_string_equal(o.claims[1].kind, "ResourceClaim");
    assert_int_equal(o.nclasses + o.nnodes + o.slices.n, 0);
    assert_int_equal(o.slices.nnotes, 3);
    assert_string_equal(o.slices.notes[0],
                        DATA "dir/a.yaml:1: skipped object of kind DeviceClass (a)");
    assert_string_equal(o.slices.notes[1], DATA "dir/b.json:1: skipped object of kind Node (n1)");
    assert_string_equal(o.slices.notes[2], DATA "dir/c.yml:7: skipped object without kind (s)");
    dc_objects_free(&o);

    dc_objects_init(&o, NULL);
    assert_int_equal(dc_objects_load(&o, DATA "dir", DC_OBJ_SLICE, NULL, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(o.slices.n, 1);
    assert_int_equal(o.slices.nnotes, 4);
    assert_int_equal(o.nclasses + o.nnodes + o.nclaims, 0);
    dc_objects_free(&o);

    dc_objects_init(&o, NULL);
    assert_int_equal(dc_objects_load(&o, DATA "objects.yaml", DC_OBJ_CLASS | DC_OBJ_NODE, NULL,
                                     err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(o.nclasses, 1);
    assert_int_equal(o.nnodes, 1);
    assert_int_equal(o.nclaims + o.slices.n, 0);
    assert_int_equal(o.slices.nnotes, 5);
    assert_string_equal(o.slices.notes[4],
                        DATA "objects.yaml:121: skipped object of kind ResourceClaim (empty)");
    dc_objects_free(&o);

    /* I/O errors and bad arguments */
    dc_objects_init(&o, NULL);
    assert_int_equal(dc_objects_load(&o, DATA "missing.yaml", all, NULL, err, sizeof err),
                     DRACEL_EINVAL);
    assert_string_equal(err, DATA "missing.yaml: cannot open: No such file or directory");
    assert_int_equal(dc_objects_load(NULL, DATA "dir", all, NULL, err, sizeof err),
                     DRACEL_EINVAL);
    assert_int_equal(dc_objects_load(&o, NULL, all, NULL, err, sizeof err), DRACEL_EINVAL);
    dc_objects_free(&o);
}

/* ---------------------------------------------------------------------------------------------
 * Validation
 */

#define WHY_LABEL                                                                                \
    "must be a lowercase RFC 1123 label (at most 63 characters: 'a'-'z', '0'-'9' and '-', "      \
    "starting and ending with a letter or digit)"
#define WHY_SUBDOMAIN                                                                            \
    "must be a lowercase RFC 1123 subdomain (at most 253 characters: 'a'-'z', '0'-'9', '-' and " \
    "'.', each dot-separated part starting and ending with a letter or digit)"
#define WHY_QUALIFIED                                                                            \
    "must be a qualified name (an optional DNS subdomain prefix and '/', then at most 63 "       \
    "characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit)"
#define WHY_LABEL_VALUE                                                                          \
    "must be at most 63 characters: letters, digits, '-', '_' and '.', starting and ending with " \
    "a letter or digit"
#define WHY_REF                                                                                  \
    "must be the name of a request in the claim or the name of a request and a subrequest "      \
    "separated by '/'"

/* A claim: its requests start at line 8 ("    - name: ..."). */
#define CLAIM "kind: ResourceClaim\nmetadata:\n  name: c\nspec:\n  devices:\n"
#define REQS CLAIM "    requests:\n"
#define GPU "    - name: gpu\n      exactly: {deviceClassName: g}\n"
#define C ": ResourceClaim c: spec.devices."
#define CLASS "kind: DeviceClass\nmetadata: {name: k}\nspec:\n"
#define K ": DeviceClass k: spec."

/* head, then item n times with its "%d" (if any) replaced by 0, 1, ... */
static char *repeat(const char *head, const char *item, int n)
{
    size_t cap = strlen(head) + (size_t)n * (strlen(item) + 16) + 1;
    char *p = malloc(cap);
    assert_non_null(p);
    const char *mark = strstr(item, "%d");
    size_t pos = (size_t)snprintf(p, cap, "%s", head);
    for (int i = 0; i < n; i++) {
        if (mark)
            pos += (size_t)snprintf(p + pos, cap - pos, "%.*s%d%s", (int)(mark - item), item, i,
                                    mark + 2);
        else
            pos += (size_t)snprintf(p + pos, cap - pos, "%s", item);
    }
    return p;
}

static void test_errors_requests(void **state)
{
    (void)state;
    CHECK_ERR(REQS "    - name: GPU\n      exactly: {}\n",
              "c.yaml:7" C "requests[0].name: invalid value \"GPU\": " WHY_LABEL);
    CHECK_ERR(REQS "    - exactly: {}\n", "c.yaml:7" C "requests[0].name: required value");
    CHECK_ERR(REQS "    - name: \"\"\n      exactly: {}\n",
              "c.yaml:7" C "requests[0].name: required value");
    CHECK_ERR(REQS GPU GPU, "c.yaml:9" C "requests[1].name: duplicate value \"gpu\"");
    CHECK_ERR(REQS "    - name: a\n",
              "c.yaml:7" C "requests[0]: exactly one of `exactly` or `firstAvailable` is required");
    CHECK_ERR(REQS "    - name: a\n      firstAvailable: []\n",
              "c.yaml:7" C "requests[0]: exactly one of `exactly` or `firstAvailable` is required");
    CHECK_ERR(REQS "    - name: a\n      exactly: {}\n      firstAvailable: [{name: b}]\n",
              "c.yaml:7" C "requests[0]: exactly one of `exactly` or `firstAvailable` is "
              "required, but both are set");
    CHECK_ERR(REQS "    - name: a\n      deviceClassName: g\n",
              "c.yaml:8" C "requests[0].deviceClassName: a request's own deviceClassName is the "
              "resource.k8s.io/v1beta1 shape, and this object is not v1beta1: in "
              "resource.k8s.io/v1 and v1beta2 the request's fields go under `exactly`");
    CHECK_ERR(REQS "    - name: a\n      exactly: [x]\n",
              "c.yaml:8" C "requests[0].exactly: must be an object, not a list");
    CHECK_ERR(CLAIM "    requests: {a: 1}\n",
              "c.yaml:6" C "requests: must be a list, not an object");

    char *t = repeat(REQS, "    - {name: r%d, exactly: {}}\n", 33);
    CHECK_ERR(t, "c.yaml:6" C "requests: 33 requests, more than 32");
    free(t);
    t = repeat(REQS, "    - {name: r%d, exactly: {}}\n", 32);
    dc_objects o;
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "c.yaml", t), DRACEL_OK);
    assert_int_equal(o.claims[0].nreqs, 32);
    dc_objects_free(&o);
    free(t);

    /* firstAvailable */
    t = repeat(REQS "    - name: a\n      firstAvailable:\n", "      - {name: s%d}\n", 9);
    CHECK_ERR(t, "c.yaml:8" C "requests[0].firstAvailable: 9 subrequests, more than 8");
    free(t);
    CHECK_ERR(REQS "    - name: a\n      firstAvailable:\n      - {deviceClassName: g}\n",
              "c.yaml:9" C "requests[0].firstAvailable[0].name: required value");
    CHECK_ERR(REQS "    - name: a\n      firstAvailable:\n      - {name: b_c}\n",
              "c.yaml:9" C "requests[0].firstAvailable[0].name: invalid value \"b_c\": " WHY_LABEL);
    CHECK_ERR(REQS "    - name: a\n      firstAvailable:\n      - {name: b}\n      - {name: c}\n"
                   "      - name: b\n",
              "c.yaml:11" C "requests[0].firstAvailable[2].name: duplicate value \"b\"");

    /* the fields of a request */
    CHECK_ERR(REQS "    - name: a\n      exactly: {deviceClassName: 5}\n",
              "c.yaml:8" C "requests[0].exactly.deviceClassName: must be a string, not an integer "
              "(YAML 1.1 reads the plain scalar 5 as an integer; quote it)");
    CHECK_ERR(REQS "    - name: a\n      exactly: {deviceClassName: Bad_Class}\n",
              "c.yaml:8" C "requests[0].exactly.deviceClassName: invalid value \"Bad_Class\": "
              WHY_SUBDOMAIN);
    CHECK_ERR(REQS "    - name: a\n      exactly: {count: -1}\n",
              "c.yaml:8" C "requests[0].exactly.count: invalid value -1: must be greater than "
              "zero");
    CHECK_ERR(REQS "    - name: a\n      exactly: {allocationMode: ExactCount, count: -2}\n",
              "c.yaml:8" C "requests[0].exactly.count: invalid value -2: must be greater than "
              "zero");
    CHECK_ERR(REQS "    - name: a\n      exactly: {allocationMode: All, count: 2}\n",
              "c.yaml:8" C "requests[0].exactly.count: invalid value 2: must not be specified "
              "when allocationMode is 'All'");
    CHECK_ERR(REQS "    - name: a\n      firstAvailable:\n      - {name: b, allocationMode: All, "
                   "count: 1}\n",
              "c.yaml:9" C "requests[0].firstAvailable[0].count: invalid value 1: must not be "
              "specified when allocationMode is 'All'");
    CHECK_ERR(REQS "    - name: a\n      exactly: {count: \"2\"}\n",
              "c.yaml:8" C "requests[0].exactly.count: must be an integer, not a string");
    CHECK_ERR(REQS "    - name: a\n      exactly: {count: 1.5}\n",
              "c.yaml:8" C "requests[0].exactly.count: 1.5 is not an integer");
    CHECK_ERR(REQS "    - name: a\n      exactly: {allocationMode: 1}\n",
              "c.yaml:8" C "requests[0].exactly.allocationMode: must be a string, not an integer "
              "(YAML 1.1 reads the plain scalar 1 as an integer; quote it)");
    CHECK_ERR(REQS "    - name: a\n      exactly: {adminAccess: \"yes\"}\n",
              "c.yaml:8" C "requests[0].exactly.adminAccess: must be a boolean, not a string");
    CHECK_ERR(REQS "    - name: a\n      exactly: {capacity: {requests: [1]}}\n",
              "c.yaml:8" C "requests[0].exactly.capacity.requests: must be an object, not a list");
    CHECK_ERR(REQS "    - name: a\n      exactly: {count: 1, count: 2}\n",
              "c.yaml:8" C "requests[0].exactly: duplicate key \"count\"");
}

static void test_errors_selectors(void **state)
{
    (void)state;
    char *t = repeat(REQS "    - name: a\n      exactly:\n        selectors:\n",
                     "        - cel: {expression: 'true'}\n", 33);
    CHECK_ERR(t, "c.yaml:9" C "requests[0].exactly.selectors: 33 selectors, more than 32");
    free(t);
    t = repeat(CLASS "  selectors:\n", "  - cel: {expression: 'true'}\n", 33);
    CHECK_ERR(t, "c.yaml:4" K "selectors: 33 selectors, more than 32");
    free(t);
    CHECK_ERR(CLASS "  selectors: [x]\n",
              "c.yaml:4" K "selectors[0]: must be an object, not a string");
    CHECK_ERR(CLASS "  selectors:\n  - cel: 'true'\n",
              "c.yaml:5" K "selectors[0].cel: must be an object, not a string");
    CHECK_ERR(CLASS "  selectors:\n  - cel:\n      expression: true\n",
              "c.yaml:6" K "selectors[0].cel.expression: must be a string, not a boolean (YAML "
              "1.1 reads the plain scalar true as a boolean; quote it)");
    /* 10 KiB of expression is fine, one byte more is not */
    size_t n = 10240;
    char *big = malloc(n + 200);
    assert_non_null(big);
    int h = snprintf(big, 200, CLASS "  selectors:\n  - cel:\n      expression: \"");
    memset(big + h, 'x', n - 2);
    memcpy(big + h + n - 2, "+1\"\n", 5);
    dc_objects o;
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "c.yaml", big), DRACEL_OK);
    assert_int_equal(o.classes[0].sels[0].len, 10240);
    dc_objects_free(&o);
    memcpy(big + h + n - 2, "+12\"\n", 6);
    CHECK_ERR(big, "c.yaml:6" K "selectors[0].cel.expression: 10241 bytes, more than 10240");
    free(big);
    /* cel without expression: an empty expression (the compiler reports it) */
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "c.yaml", CLASS "  selectors:\n  - cel: {}\n"), DRACEL_OK);
    assert_string_equal(o.classes[0].sels[0].expr, "");
    assert_int_equal(o.classes[0].sels[0].line, 5);
    dc_objects_free(&o);
}

static void test_errors_tolerations(void **state)
{
    (void)state;
#define TOL REQS "    - name: a\n      exactly:\n        tolerations:\n"
#define T0 "c.yaml:10" C "requests[0].exactly.tolerations[0]."
    char *t = repeat(TOL, "        - {key: k%d, operator: Exists}\n", 17);
    CHECK_ERR(t, "c.yaml:9" C "requests[0].exactly.tolerations: 17 tolerations, more than 16");
    free(t);
    CHECK_ERR(TOL "        - {operator: Foo}\n",
              T0 "operator: unsupported value \"Foo\": supported values: \"Equal\", \"Exists\"");
    CHECK_ERR(TOL "        - {key: k, operator: Exists, value: v}\n",
              T0 "value: invalid value \"v\": must be empty for operator `Exists`");
    CHECK_ERR(TOL "        - {key: k, value: \"a b\"}\n",
              T0 "value: invalid value \"a b\": " WHY_LABEL_VALUE);
    CHECK_ERR(TOL "        - {key: k, operator: Equal, value: -a}\n",
              T0 "value: invalid value \"-a\": " WHY_LABEL_VALUE);
    CHECK_ERR(TOL "        - {key: \"a/b/c\"}\n",
              T0 "key: invalid value \"a/b/c\": " WHY_QUALIFIED);
    CHECK_ERR(TOL "        - {key: k, effect: NoRun}\n",
              T0 "effect: unsupported value \"NoRun\": supported values: \"NoExecute\", "
                 "\"NoSchedule\", \"None\"");
    CHECK_ERR(TOL "        - {key: k, tolerationSeconds: soon}\n",
              T0 "tolerationSeconds: must be an integer, not a string");
    CHECK_ERR(TOL "        - k\n",
              "c.yaml:10" C "requests[0].exactly.tolerations[0]: must be an object, not a string");
#undef TOL
#undef T0
}

static void test_errors_constraints(void **state)
{
    (void)state;
#define CONS REQS GPU "    - name: nic\n      firstAvailable: [{name: a}, {name: b}]\n" \
                 "    constraints:\n"
#define K0 "c.yaml:12" C "constraints[0]"
    char *t = repeat(CONS, "    - {matchAttribute: d.example.com/a%d}\n", 33);
    CHECK_ERR(t, "c.yaml:11" C "constraints: 33 constraints, more than 32");
    free(t);
    CHECK_ERR(CONS "    - requests: [gpu]\n",
              K0 ": exactly one of `matchAttribute` or `distinctAttribute` is required");
    CHECK_ERR(CONS "    - {matchAttribute: d.example.com/a, distinctAttribute: d.example.com/b}\n",
              K0 ": exactly one of `matchAttribute` or `distinctAttribute` is required, but both "
                 "are set");
    CHECK_ERR(CONS "    - {matchAttribute: numa}\n",
              K0 ".matchAttribute: invalid value \"numa\": must include a domain");
    CHECK_ERR(CONS "    - {distinctAttribute: a/b/c}\n",
              K0 ".distinctAttribute: invalid value \"a/b/c\": must not contain more than one "
                 "slash");
    CHECK_ERR(CONS "    - {matchAttribute: d.example.com/1x}\n",
              K0 ".matchAttribute: invalid value \"d.example.com/1x\": the name must be a C "
                 "identifier (letters, digits and '_', not starting with a digit)");
    /* requests: names of requests or request/subrequest */
    CHECK_ERR(CONS "    - {requests: [x], matchAttribute: d.example.com/a}\n",
              K0 ".requests[0]: invalid value \"x\": " WHY_REF);
    CHECK_ERR(CONS "    - {requests: [gpu/a], matchAttribute: d.example.com/a}\n",
              K0 ".requests[0]: invalid value \"gpu/a\": " WHY_REF);
    CHECK_ERR(CONS "    - {requests: [nic/c], matchAttribute: d.example.com/a}\n",
              K0 ".requests[0]: invalid value \"nic/c\": " WHY_REF);
    CHECK_ERR(CONS "    - {requests: [nic/a/b], matchAttribute: d.example.com/a}\n",
              K0 ".requests[0]: invalid value \"nic/a/b\": " WHY_REF);
    CHECK_ERR(CONS "    - {requests: [nic/B], matchAttribute: d.example.com/a}\n",
              K0 ".requests[0]: invalid value \"B\": " WHY_LABEL);
    CHECK_ERR(CONS "    - {requests: [nic, gpu, nic], matchAttribute: d.example.com/a}\n",
              K0 ".requests[2]: duplicate value \"nic\"");
    CHECK_ERR(CONS "    - {requests: [1], matchAttribute: d.example.com/a}\n",
              K0 ".requests[0]: must be a string, not an integer (YAML 1.1 reads the plain scalar "
                 "1 as an integer; quote it)");
    t = repeat(CONS "    - matchAttribute: d.example.com/a\n      requests:\n", "      - gpu\n",
               33);
    CHECK_ERR(t, "c.yaml:13" C "constraints[0].requests: 33 requests, more than 32");
    free(t);
    /* both kinds of reference are fine */
    dc_objects o;
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "c.yaml",
                               CONS "    - {requests: [nic/b, gpu, nic], distinctAttribute: "
                                    "d.example.com/a}\n"),
                     DRACEL_OK);
    assert_int_equal(o.claims[0].cons[0].nrequests, 3);
    assert_string_equal(o.claims[0].cons[0].requests[0], "nic/b");
    dc_objects_free(&o);
#undef CONS
#undef K0
}

static void test_errors_config(void **state)
{
    (void)state;
#define CONF REQS GPU "    config:\n"
    char *t = repeat(CONF, "    - {opaque: {driver: d%d.example.com}}\n", 33);
    CHECK_ERR(t, "c.yaml:9" C "config: 33 config entries, more than 32");
    free(t);
    t = repeat(CLASS "  config:\n", "  - {opaque: {driver: d%d.example.com}}\n", 33);
    CHECK_ERR(t, "c.yaml:4" K "config: 33 config entries, more than 32");
    free(t);
    CHECK_ERR(CONF "    - opaque: {parameters: {}}\n",
              "c.yaml:10" C "config[0].opaque.driver: required value");
    CHECK_ERR(CONF "    - opaque: {driver: \"-bad\"}\n",
              "c.yaml:10" C "config[0].opaque.driver: invalid value \"-bad\": must be an RFC 1123 "
              "subdomain (letters, digits, '-' and '.', each dot-separated part starting and "
              "ending with a letter or digit)");
    CHECK_ERR(CONF "    - {requests: [cpu], opaque: {driver: d.example.com}}\n",
              "c.yaml:10" C "config[0].requests[0]: invalid value \"cpu\": " WHY_REF);
    /* an entry without opaque is checked, then dropped */
    CHECK_ERR(CONF "    - {requests: [cpu]}\n",
              "c.yaml:10" C "config[0].requests[0]: invalid value \"cpu\": " WHY_REF);
    CHECK_ERR(CLASS "  config:\n  - opaque: {driver: d.example.com, parameters: {a: .inf}}\n",
              "c.yaml:5" K "config[0].opaque.parameters: invalid value .inf: no JSON number has "
              "this value");
    CHECK_ERR(CLASS "  config:\n  - opaque: []\n", "c.yaml:5" K "config[0].opaque: must be an "
                                                   "object, not a list");
    /* parameters: at most 10 KiB as compact JSON */
    char *big = malloc(10600);
    assert_non_null(big);
    int h = snprintf(big, 200, CLASS "  config:\n  - opaque:\n      driver: d.example.com\n"
                                     "      parameters: {\"k\": \"");
    memset(big + h, 'v', 10232);
    memcpy(big + h + 10232, "\"}\n", 4); /* {"k":"...."} is 10240 bytes */
    dc_objects o;
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "c.yaml", big), DRACEL_OK);
    assert_int_equal(strlen(o.classes[0].config[0].parameters), 10240);
    dc_objects_free(&o);
    memcpy(big + h + 10232, "w\"}\n", 5);
    CHECK_ERR(big,
              "c.yaml:7" K "config[0].opaque.parameters: 10241 bytes as JSON, more than 10240");
    free(big);
#undef CONF
}

static void test_errors_objects(void **state)
{
    (void)state;
    /* metadata */
    CHECK_ERR("kind: DeviceClass\nmetadata:\n  name: Bad_Name\n",
              "c.yaml:3: DeviceClass \"Bad_Name\": metadata.name: invalid value \"Bad_Name\": "
              WHY_SUBDOMAIN);
    /* an invalid name names the object as written: UTF-8 whole, control bytes escaped */
    CHECK_ERR("kind: Node\napiVersion: v1\nmetadata: {name: \"n\\u00e9\\u0001\"}\n",
              "c.yaml:3: Node \"n\xc3\xa9\\x01\": metadata.name: invalid value \"n\xc3\xa9\\x01\": "
              WHY_SUBDOMAIN);
    CHECK_ERR("kind: ResourceClaim\nmetadata:\n  name: c\n  namespace: a.b\n",
              "c.yaml:4: ResourceClaim c: metadata.namespace: invalid value \"a.b\": " WHY_LABEL);
    CHECK_ERR("kind: ResourceClaim\nmetadata: [c]\n",
              "c.yaml:2: ResourceClaim (unnamed): metadata: must be an object, not a list");
    CHECK_ERR("kind: DeviceClass\nmetadata: {name: k}\nspec: [1]\n",
              "c.yaml:3: DeviceClass k: spec: must be an object, not a list");
    CHECK_ERR("kind: ResourceClaim\nmetadata: {name: c}\nspec: {devices: 1}\n",
              "c.yaml:3: ResourceClaim c: spec.devices: must be an object, not an integer");
    /* extendedResourceName (an extended resource name) and creationTimestamp (RFC 3339) */
    CHECK_ERR("kind: DeviceClass\nmetadata: {name: k}\nspec: {extendedResourceName: gpu}\n",
              "c.yaml:3: DeviceClass k: spec.extendedResourceName: invalid value \"gpu\": must be "
              "a resource name with a domain prefix (an extended resource name)");
    CHECK_ERR("kind: DeviceClass\nmetadata: {name: k}\n"
              "spec: {extendedResourceName: deviceclass.resource.kubernetes.io/k}\n",
              "c.yaml:3: DeviceClass k: spec.extendedResourceName: invalid value "
              "\"deviceclass.resource.kubernetes.io/k\": must not be in the kubernetes.io domain "
              "(an extended resource name)");
    CHECK_ERR("kind: DeviceClass\nmetadata: {name: k}\n"
              "spec: {extendedResourceName: requests.example.com/gpu}\n",
              "c.yaml:3: DeviceClass k: spec.extendedResourceName: invalid value "
              "\"requests.example.com/gpu\": must not start with \"requests.\"");
    CHECK_ERR("kind: DeviceClass\nmetadata: {name: k, creationTimestamp: \"2026-02-01 00:00\"}\n",
              "c.yaml:2: DeviceClass k: metadata.creationTimestamp: invalid value "
              "\"2026-02-01 00:00\": must be an RFC 3339 time (2026-01-02T03:04:05Z)");
    /* apiVersion */
    CHECK_ERR("apiVersion: resource.k8s.io/v1beta3\nkind: ResourceClaim\n",
              "c.yaml:1: apiVersion: \"resource.k8s.io/v1beta3\" is not supported "
              "(resource.k8s.io/v1, or v1beta2 and v1beta1, which the API server converts to it)");
    CHECK_ERR("apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\n",
              "c.yaml:1: apiVersion: \"resource.k8s.io/v1alpha3\" is not served for this kind "
              "since Kubernetes 1.33 (1.31 and 1.32 served it; only DeviceTaintRule stayed "
              "there): use resource.k8s.io/v1");
    CHECK_ERR("apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\n",
              "c.yaml:1: apiVersion: \"resource.k8s.io/v1alpha2\" is the classic DRA API, not "
              "served since Kubernetes 1.31: use resource.k8s.io/v1");
    CHECK_ERR("apiVersion: v2\nkind: Node\nmetadata: {name: n1}\n",
              "c.yaml:1: apiVersion: \"v2\" is not supported (v1)");
    /* templates: the claim is at spec.spec */
    CHECK_ERR("kind: ResourceClaimTemplate\nmetadata: {name: t}\nspec:\n  spec:\n    devices:\n"
              "      requests:\n      - name: a\n",
              "c.yaml:7: ResourceClaimTemplate t: spec.spec.devices.requests[0]: exactly one of "
              "`exactly` or `firstAvailable` is required");
    CHECK_ERR("kind: ResourceClaimTemplate\nmetadata: {name: t}\nspec:\n  spec: 1\n",
              "c.yaml:4: ResourceClaimTemplate t: spec.spec: must be an object, not an integer");
    /* Nodes */
    CHECK_ERR("kind: Node\nmetadata:\n  labels: {a: b}\n",
              "c.yaml:3: Node (unnamed): metadata.name: required value");
    CHECK_ERR("kind: Node\n", "c.yaml:1: Node (unnamed): metadata.name: required value");
    CHECK_ERR("kind: Node\nmetadata:\n  name: n1\n  labels:\n    \"a b\": c\n",
              "c.yaml:5: Node n1: metadata.labels[\"a b\"]: invalid label key: " WHY_QUALIFIED);
    CHECK_ERR("kind: Node\nmetadata:\n  name: n1\n  labels:\n    a: -c\n",
              "c.yaml:5: Node n1: metadata.labels[\"a\"]: invalid value \"-c\": " WHY_LABEL_VALUE);
    CHECK_ERR("kind: Node\nmetadata:\n  name: n1\n  labels:\n    a: 1\n",
              "c.yaml:5: Node n1: metadata.labels[\"a\"]: must be a string, not an integer (YAML "
              "1.1 reads the plain scalar 1 as an integer; quote it)");
    CHECK_ERR("kind: Node\nmetadata:\n  name: n1\n  labels:\n    b: x\n    a: x\n    c: x\n"
              "    c: z\n    a: z\n",
              "c.yaml:8: Node n1: metadata.labels: duplicate key \"c\"");
    CHECK_ERR("kind: Node\nmetadata:\n  name: n1\n  labels: [a]\n",
              "c.yaml:4: Node n1: metadata.labels: must be an object, not a list");
    /* JSON lines */
    check_err("c.json",
              "{\"kind\": \"ResourceClaim\", \"metadata\": {\"name\": \"c\"},\n"
              " \"spec\": {\"devices\": {\"requests\": [\n  {\"name\": \"a\",\n"
              "   \"exactly\": {\"count\": 0.5}}]}}}\n",
              "c.json:4: ResourceClaim c: spec.devices.requests[0].exactly.count: 0.5 is not an "
              "integer",
              __LINE__);
    /* an error in a later object of the file */
    CHECK_ERR("kind: DeviceClass\nmetadata: {name: a}\n---\nkind: Node\n",
              "c.yaml:4: Node (unnamed): metadata.name: required value");
}

/* ---------------------------------------------------------------------------------------------
 * Config parameters as JSON
 */

static void check_params(const char *name, const char *value, const char *want, int line)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"kind\": \"DeviceClass\", \"metadata\": {\"name\": \"k\"}, \"spec\": {\"config\": "
             "[{\"opaque\": {\"driver\": \"d.example.com\", \"parameters\": %s}}]}}",
             value);
    if (strstr(name, ".yaml"))
        snprintf(text, sizeof text,
                 "kind: DeviceClass\nmetadata: {name: k}\nspec:\n  config:\n  - opaque:\n"
                 "      driver: d.example.com\n      parameters: %s\n",
                 value);
    dc_objects o;
    dc_objects_init(&o, NULL);
    dracel_status st = load_text(&o, name, text);
    if (st != DRACEL_OK)
        fail_msg("case at test line %d: %s", line, err);
    const char *got = o.classes[0].config[0].parameters;
    if (!got != !want || (got && strcmp(got, want) != 0))
        fail_msg("case at test line %d:\n got: %s\nwant: %s", line, got ? got : "(null)",
                 want ? want : "(null)");
    dc_objects_free(&o);
}
#define PARAMS_YAML(v, w) check_params("p.yaml", v, w, __LINE__)
#define PARAMS_JSON(v, w) check_params("p.json", v, w, __LINE__)

/* status: a claim (requests at line 7) whose status starts at line 9. */
#define ST REQS GPU "    - name: nic\n      firstAvailable: [{name: a}, {name: b}]\nstatus:\n"
#define S ": ResourceClaim c: status."
#define RES ST "  allocation:\n    devices:\n      results:\n"
#define R0 "c.yaml:15" S "allocation.devices.results[0]."
#define UID1 "6f1c0000-0000-4000-8000-000000000001"

/* resource.k8s.io/v1beta1, read as the API server converts it to v1: a request's `exactly`
 * fields on the request itself, firstAvailable as in v1, and v1beta1's own mistakes. */
#define B1 "apiVersion: resource.k8s.io/v1beta1\n"
static void test_v1beta1(void **state)
{
    (void)state;
    dc_objects o;
    dc_objects_init(&o, NULL);
    static const char text[] =
        B1 "kind: ResourceClaim\nmetadata: {name: c}\nspec:\n  devices:\n    requests:\n"
           "    - name: pair\n      deviceClassName: gpu.example.com\n      count: 2\n"
           "      adminAccess: false\n"
           "      selectors:\n      - cel: {expression: 'device.driver == \"x\"'}\n"
           "      tolerations:\n      - {key: k, operator: Exists}\n"
           "    - name: any\n      firstAvailable:\n"
           "      - {name: a, deviceClassName: g, allocationMode: All}\n"
           "      - {name: b, deviceClassName: h}\n"
           "---\n" B1 "kind: DeviceClass\nmetadata: {name: g}\nspec:\n  selectors:\n"
           "  - cel: {expression: 'true'}\n"
           "---\nkind: ResourceClaim\nmetadata: {name: d}\nspec:\n  devices:\n    requests:\n"
           "    - {name: v1, exactly: {deviceClassName: g}}\n";
    if (load_text(&o, "c.yaml", text) != DRACEL_OK)
        fail_msg("%s", err);
    assert_int_equal(o.nclaims, 2);
    assert_int_equal(o.nclasses, 1);
    const dc_request_in *q = &o.claims[0].reqs[0];
    assert_false(q->first_available);
    assert_int_equal(q->nsubs, 1);
    assert_string_equal(q->subs[0].class_name, "gpu.example.com");
    assert_int_equal(q->subs[0].count, 2);
    assert_int_equal(q->subs[0].nsels, 1);
    assert_int_equal(q->subs[0].ntols, 1);
    assert_int_equal(q->subs[0].line, 7);
    q = &o.claims[0].reqs[1];
    assert_true(q->first_available);
    assert_int_equal(q->nsubs, 2);
    assert_string_equal(q->subs[0].mode, "All");
    assert_string_equal(q->subs[1].class_name, "h");
    /* the next object, without apiVersion, is v1 again */
    assert_string_equal(o.claims[1].reqs[0].subs[0].class_name, "g");
    dc_objects_free(&o);
#define B1REQ B1 REQS
    CHECK_ERR(B1REQ "    - name: a\n      exactly: {deviceClassName: g}\n",
              "c.yaml:9" C "requests[0].exactly: not a field of a resource.k8s.io/v1beta1 "
              "request: its fields (deviceClassName, selectors...) are on the request itself");
    CHECK_ERR(B1REQ "    - name: a\n      count: 1\n",
              "c.yaml:8" C "requests[0]: exactly one of `deviceClassName` or `firstAvailable` is "
              "required");
    CHECK_ERR(B1REQ "    - name: a\n      firstAvailable: [{name: b, deviceClassName: g}]\n"
              "      selectors: []\n",
              "c.yaml:10" C "requests[0].selectors: must not be set together with "
              "`firstAvailable`");
    CHECK_ERR(B1REQ "    - name: a\n      deviceClassName: g\n      count: -1\n",
              "c.yaml:10" C "requests[0].count: invalid value -1: must be greater than zero");
}

static void test_claim_status(void **state)
{
    (void)state;
    static const char GOOD[] =
        RES "      - {request: gpu, driver: gpu.example.com, pool: rack-1/node-a, device: gpu-0}\n"
            "      - request: nic/b\n"
            "        driver: nic.example.com\n"
            "        pool: p\n"
            "        device: nic-1\n"
            "        adminAccess: true\n"
            "        shareID: " UID1 "\n"
            "        tolerations: [{key: k, operator: Exists}]\n"
            "        bindingConditions: [ready]\n"
            "      config: [{source: FromClaim, opaque: {driver: x.example.com, parameters: {}}}]\n"
            "    nodeSelector:\n"
            "      nodeSelectorTerms:\n"
            "      - matchFields: [{key: metadata.name, operator: In, values: [node-a]}]\n"
            "      - matchExpressions: [{key: zone, operator: In, values: [a, b]}]\n"
            "    allocationTimestamp: \"2025-01-01T00:00:00Z\"\n"
            "  reservedFor:\n"
            "  - {resource: pods, name: p1, uid: " UID1 "}\n"
            "  - {apiGroup: example.com, resource: jobs, name: j, uid: u2}\n"
            "  devices: [{driver: gpu.example.com, pool: rack-1/node-a, device: gpu-0}]\n";
    dc_objects o;
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "c.yaml", GOOD), DRACEL_OK);
    assert_int_equal(o.nclaims, 1);
    const dc_claim_in *cl = &o.claims[0];
    assert_true(cl->allocated);
    assert_int_equal(cl->nresults, 2);
    assert_string_equal(cl->results[0].request, "gpu");
    assert_string_equal(cl->results[0].pool, "rack-1/node-a");
    assert_false(cl->results[0].admin_access);
    assert_null(cl->results[0].share_id);
    assert_int_equal(cl->results[0].line, 15);
    assert_string_equal(cl->results[1].request, "nic/b");
    assert_string_equal(cl->results[1].driver, "nic.example.com");
    assert_string_equal(cl->results[1].device, "nic-1");
    assert_true(cl->results[1].admin_access);
    assert_string_equal(cl->results[1].share_id, UID1);
    assert_non_null(cl->node_selector);
    assert_int_equal(cl->node_selector->n, 2);
    assert_true(cl->node_selector->terms[0].reqs[0].field);
    assert_string_equal(cl->node_selector->terms[1].reqs[0].key, "zone");
    assert_int_equal(cl->node_selector->terms[1].reqs[0].nvalues, 2);
    assert_int_equal(cl->nreserved, 2);
    assert_null(cl->reserved[0].api_group);
    assert_string_equal(cl->reserved[0].resource, "pods");
    assert_string_equal(cl->reserved[1].api_group, "example.com");
    assert_string_equal(cl->reserved[1].uid, "u2");

    /* a deep copy has everything, and the same version */
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    dc_claim_in cp;
    assert_int_equal(dc_claim_copy(&a, cl, &cp), DRACEL_OK);
    assert_int_equal(dc_claim_version(&cp), dc_claim_version(cl));
    assert_ptr_not_equal(cp.results, cl->results);
    assert_string_equal(cp.results[1].share_id, UID1);
    assert_ptr_not_equal(cp.node_selector, cl->node_selector);
    assert_string_equal(cp.node_selector->terms[0].reqs[0].values[0], "node-a");
    assert_string_equal(cp.reserved[1].name, "j");
    cp.results[0].admin_access = true;
    assert_int_not_equal(dc_claim_version(&cp), dc_claim_version(cl));
    dc_arena_free(&a);

    /* without a status, and with an empty allocation */
    dc_objects_free(&o);
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "c.yaml", ST), DRACEL_OK); /* status: null */
    uint64_t none = dc_claim_version(&o.claims[0]);
    assert_false(o.claims[0].allocated);
    assert_int_equal(load_text(&o, "c.yaml", ST "  allocation: {}\n"), DRACEL_OK);
    assert_true(o.claims[1].allocated);
    assert_int_equal(o.claims[1].nresults, 0);
    assert_null(o.claims[1].node_selector);
    assert_int_not_equal(dc_claim_version(&o.claims[1]), none);
    assert_int_equal(load_text(&o, "c.yaml", ST "  allocation: null\n  reservedFor: []\n"),
                     DRACEL_OK);
    assert_false(o.claims[2].allocated);
    assert_int_equal(dc_claim_version(&o.claims[2]), none);
    /* a template has no status: a field of that name is not read */
    assert_int_equal(load_text(&o, "c.yaml",
                               "kind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {}\n"
                               "status: {allocation: 5}\n"),
                     DRACEL_OK);
    assert_false(o.claims[3].allocated);
    dc_objects_free(&o);
}

static void test_claim_status_errors(void **state)
{
    (void)state;
    CHECK_ERR(ST "  - 1\n", "c.yaml:12: ResourceClaim c: status: must be an object, not a list");
    CHECK_ERR(RES "      - {request: gpu, pool: p, device: d}\n", R0 "driver: required value");
    CHECK_ERR(RES "      - {driver: gpu.example.com, pool: p, device: d}\n",
              R0 "request: required value");
    CHECK_ERR(RES "      - {request: tpu, driver: gpu.example.com, pool: p, device: d}\n",
              R0 "request: invalid value \"tpu\": " WHY_REF);
    CHECK_ERR(RES "      - {request: nic, driver: gpu.example.com, pool: p, device: d}\n"
                  "      - {request: nic/c, driver: gpu.example.com, pool: p, device: d}\n",
              "c.yaml:16" S "allocation.devices.results[1].request: invalid value \"nic/c\": "
              WHY_REF);
    CHECK_ERR(RES "      - {request: gpu/a, driver: gpu.example.com, pool: p, device: d}\n",
              R0 "request: invalid value \"gpu/a\": " WHY_REF);
    CHECK_ERR(RES "      - {request: gpu, driver: gpu.example.com, pool: P_Q, device: d}\n",
              R0 "pool: invalid value \"P_Q\": must be one or more lowercase RFC 1123 subdomains "
                 "separated by '/'");
    CHECK_ERR(RES "      - {request: gpu, driver: gpu.example.com, pool: p, device: Gpu0}\n",
              R0 "device: invalid value \"Gpu0\": " WHY_LABEL);
    CHECK_ERR(RES "      - {request: gpu, driver: gpu.example.com, pool: p, device: d, "
                  "adminAccess: \"yes\"}\n",
              R0 "adminAccess: must be a boolean, not a string");
    CHECK_ERR(RES "      - {request: gpu, driver: gpu.example.com, pool: p, device: d, "
                  "shareID: 6F1C0000-0000-4000-8000-000000000001}\n",
              R0 "shareID: invalid value \"6F1C0000-0000-4000-8000-000000000001\": uid must be "
                 "in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with "
                 "lowercase hexadecimal characters");
    CHECK_ERR(RES "      - {request: gpu, driver: gpu.example.com, pool: p, device: d, "
                  "tolerations: [{effect: Sometimes}]}\n",
              R0 "tolerations[0].effect: unsupported value \"Sometimes\": supported values: "
                 "\"NoExecute\", \"NoSchedule\", \"None\"");
    char *t = repeat(RES, "      - {request: gpu, driver: gpu.example.com, pool: p, device: "
                          "d%d}\n", 33);
    CHECK_ERR(t, "c.yaml:14" S "allocation.devices.results: 33 results, more than 32");
    free(t);
    CHECK_ERR(ST "  allocation: {nodeSelector: {nodeSelectorTerms: []}}\n",
              "c.yaml:12" S "allocation.nodeSelector.nodeSelectorTerms: must have at least one "
              "node selector term");
    CHECK_ERR(ST "  allocation:\n    nodeSelector:\n      nodeSelectorTerms:\n"
                 "      - matchFields: [{key: metadata.uid, operator: In, values: [x]}]\n",
              "c.yaml:15" S "allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].key: "
              "invalid value \"metadata.uid\": not a valid field selector key (only "
              "metadata.name is supported)");
    CHECK_ERR(ST "  allocation:\n    nodeSelector:\n      nodeSelectorTerms:\n"
                 "      - matchExpressions: [{key: zone, operator: Near, values: [a]}]\n",
              "c.yaml:15" S "allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0]."
              "operator: invalid value \"Near\": not a valid selector operator (In, NotIn, "
              "Exists, DoesNotExist, Gt or Lt)");
    CHECK_ERR(ST "  reservedFor:\n  - {resource: pods, name: p, uid: u1}\n",
              "c.yaml:12" S "reservedFor: may not be specified when `allocated` is not set");
    CHECK_ERR(ST "  allocation: {}\n  reservedFor:\n  - {resource: pods, name: p}\n",
              "c.yaml:14" S "reservedFor[0].uid: required value");
    CHECK_ERR(ST "  allocation: {}\n  reservedFor:\n  - {resource: \"\", name: p, uid: u}\n",
              "c.yaml:14" S "reservedFor[0].resource: required value");
    CHECK_ERR(ST "  allocation: {}\n  reservedFor:\n  - {resource: pods, name: p, uid: u1}\n"
                 "  - {resource: pods, name: q, uid: u1}\n",
              "c.yaml:15" S "reservedFor[1].uid: duplicate value \"u1\"");
    t = repeat(ST "  allocation: {}\n  reservedFor:\n", "  - {resource: pods, name: p, uid: u%d}\n",
               257);
    CHECK_ERR(t, "c.yaml:13" S "reservedFor: 257 entries, more than 256");
    free(t);
}

static void test_params(void **state)
{
    (void)state;
    /* JSON: keys in document order, numbers as written, strings re-escaped */
    PARAMS_JSON("{\"z\": 1, \"a\": [1.50, -0, 1E+3, 123456789012345678901234567890]}",
                "{\"z\":1,\"a\":[1.50,-0,1E+3,123456789012345678901234567890]}");
    PARAMS_JSON("{\"s\": \"\\u00e9\\n\\u0001\\/\\\"\"}", "{\"s\":\"\xc3\xa9\\n\\u0001/\\\"\"}");
    PARAMS_JSON("[true, false, null, {}]", "[true,false,null,{}]");
    PARAMS_JSON("\"text\"", "\"text\"");
    PARAMS_JSON("7", "7");
    PARAMS_JSON("null", NULL);
    PARAMS_JSON("{\"a\": 1, \"a\": 2}", "{\"a\":1,\"a\":2}");
    /* YAML: 1.1 scalars as sigs.k8s.io/yaml turns them into JSON */
    PARAMS_YAML("{a: yes, b: Off, c: ~, d: null, e: \"on\", f: 'x\"y'}",
                "{\"a\":true,\"b\":false,\"c\":null,\"d\":null,\"e\":\"on\",\"f\":\"x\\\"y\"}");
    PARAMS_YAML("[0x1F, 0o17, 017, 0b101, 1_000, -42, +7, 9223372036854775808]",
                "[31,15,15,5,1000,-42,7,9223372036854775808]");
    PARAMS_YAML("[1.5, .5, -.5e1, 1., +2.5, 1_0.2_5, 3e2, 1.0]",
                "[1.5,0.5,-5,1,2.5,10.25,3e2,1.0]");
    PARAMS_YAML("[0.1, 1e400x, 12e-7, 1_2e-7, 2.e1]", "[0.1,\"1e400x\",12e-7,12e-7,20]");
    PARAMS_YAML("{1: a, true: b, null: c}", "{\"1\":\"a\",\"true\":\"b\",\"null\":\"c\"}");
    PARAMS_YAML("\"multi\\tline\\u0007\"", "\"multi\\tline\\u0007\"");
    PARAMS_YAML("~", NULL);
    PARAMS_YAML("{}", "{}");
}

/* JSON parameters nested past the loader's depth limit (64) and cJSON's (1000), as Kubernetes
 * accepts within its 10 KiB: kept as their text without blanks (strings as written), never
 * built into a tree; nesting as deep anywhere else is still an error. */
static char *nest(const char *open, const char *mid, const char *close, unsigned n)
{
    size_t lo = strlen(open), lm = strlen(mid), lc = strlen(close);
    char *t = malloc(n * (lo + lc) + lm + 1), *q = t;
    assert_non_null(t);
    for (unsigned i = 0; i < n; i++, q += lo)
        memcpy(q, open, lo);
    memcpy(q, mid, lm);
    q += lm;
    for (unsigned i = 0; i < n; i++, q += lc)
        memcpy(q, close, lc);
    *q = '\0';
    return t;
}

static void load_class_json(const char *params, dracel_status want, const char *want_params,
                            const char *want_err, int line)
{
    size_t n = strlen(params) + 256;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n,
             "{\"kind\": \"DeviceClass\", \"metadata\": {\"name\": \"k\"}, \"spec\": {\"config\": "
             "[{\"opaque\": {\"driver\": \"d.example.com\", \"parameters\": %s}}]}}",
             params);
    dc_objects o;
    dc_objects_init(&o, NULL);
    dracel_status st = load_text(&o, "deep.json", text);
    if (st != want)
        fail_msg("case at test line %d: status %d: %s", line, st, err);
    if (want == DRACEL_OK && strcmp(o.classes[0].config[0].parameters, want_params) != 0)
        fail_msg("case at test line %d: parameters %.80s...", line,
                 o.classes[0].config[0].parameters);
    if (want != DRACEL_OK && !strstr(err, want_err))
        fail_msg("case at test line %d: %s", line, err);
    dc_objects_free(&o);
    free(text);
}

static void test_params_deep(void **state)
{
    (void)state;
    char *a = nest("[ ", "1", " ]", 200), *want = nest("[", "1", "]", 200);
    load_class_json(a, DRACEL_OK, want, NULL, __LINE__);
    free(a), free(want);
    /* past cJSON's 1000, objects and strings with blanks and escapes inside */
    a = nest("[\n ", "{\"k \\\" ]\" : \"a\\u0020b\"}", " ]", 1100);
    want = nest("[", "{\"k \\\" ]\":\"a\\u0020b\"}", "]", 1100);
    load_class_json(a, DRACEL_OK, want, NULL, __LINE__);
    free(a), free(want);
    /* still JSON: a bracket that does not match is a syntax error */
    a = nest("[", "1", "]", 200);
    a[strlen(a) - 1] = '}';
    load_class_json(a, DRACEL_EINPUT, NULL, "JSON syntax error: unexpected '}'", __LINE__);
    free(a);
    /* still at most 10 KiB */
    a = nest("[", "1", "]", 5200);
    load_class_json(a, DRACEL_EINPUT, NULL, "10401 bytes as JSON, more than 10240", __LINE__);
    free(a);
    /* deep elsewhere: an error, as before */
    a = nest("[", "1", "]", 200);
    char *t = malloc(strlen(a) + 128);
    assert_non_null(t);
    sprintf(t, "{\"kind\": \"DeviceClass\", \"metadata\": {\"name\": \"k\", \"x\": %s}}", a);
    dc_objects o;
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "deep.json", t), DRACEL_EINPUT);
    assert_non_null(strstr(err, "nesting deeper than 64"));
    dc_objects_free(&o);
    /* parameters not under opaque: an error too */
    sprintf(t, "{\"kind\": \"DeviceClass\", \"metadata\": {\"name\": \"k\"}, "
               "\"parameters\": %s}", a);
    dc_objects_init(&o, NULL);
    assert_int_equal(load_text(&o, "deep.json", t), DRACEL_EINPUT);
    assert_non_null(strstr(err, "nesting deeper than 64"));
    dc_objects_free(&o);
    free(t), free(a);
}

/* ---------------------------------------------------------------------------------------------
 * Features and scenarios
 */

static void test_features(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        unsigned bit;
    } cases[] = {
        {"AdminAccess", DC_FEAT_ADMIN_ACCESS},
        {"DRAAdminAccess", DC_FEAT_ADMIN_ACCESS},
        {"PrioritizedList", DC_FEAT_PRIORITIZED_LIST},
        {"DRAPrioritizedList", DC_FEAT_PRIORITIZED_LIST},
        {"DeviceTaints", DC_FEAT_DEVICE_TAINTS},
        {"DRADeviceTaints", DC_FEAT_DEVICE_TAINTS},
        {"PartitionableDevices", DC_FEAT_PARTITIONABLE},
        {"DRAPartitionableDevices", DC_FEAT_PARTITIONABLE},
        {"ConsumableCapacity", DC_FEAT_CONSUMABLE_CAPACITY},
        {"DRAConsumableCapacity", DC_FEAT_CONSUMABLE_CAPACITY},
        {"DeviceBindingConditions", DC_FEAT_BINDING_CONDITIONS},
        {"DRADeviceBindingConditions", DC_FEAT_BINDING_CONDITIONS},
        {"ListTypeAttributes", DC_FEAT_LIST_TYPE_ATTRIBUTES},
        {"DRAListTypeAttributes", DC_FEAT_LIST_TYPE_ATTRIBUTES},
        {"ExtendedResource", DC_FEAT_EXTENDED_RESOURCE},
        {"DRAExtendedResource", DC_FEAT_EXTENDED_RESOURCE},
        {"DeviceStatus", DC_FEAT_DEVICE_STATUS},
        {"DRADeviceStatus", DC_FEAT_DEVICE_STATUS},
        {"DRAResourceClaimDeviceStatus", DC_FEAT_DEVICE_STATUS},
        {"DeviceTaintRules", DC_FEAT_DEVICE_TAINT_RULES},
        {"DRADeviceTaintRules", DC_FEAT_DEVICE_TAINT_RULES},
        {"adminAccess", 0},
        {"DRA", 0},
        {"", 0},
        {"DRADRAAdminAccess", 0},
        {"AdminAccessX", 0},
        {"ResourceClaimDeviceStatus", 0},
    };
    for (size_t i = 0; i < DC_COUNTOF(cases); i++) {
        if (dc_feature_parse(cases[i].name, strlen(cases[i].name)) != cases[i].bit)
            fail_msg("feature %s", cases[i].name);
        if (cases[i].bit)
            assert_int_equal(dc_feature_parse(cases[i].name, strlen(cases[i].name) - 1), 0);
    }
    assert_int_equal(dc_feature_parse(NULL, 0), 0);
    for (unsigned bit = 1; bit <= DC_FEAT_DEVICE_TAINT_RULES; bit <<= 1) {
        const char *n = dc_feature_name(bit);
        assert_non_null(n);
        assert_int_equal(dc_feature_parse(n, strlen(n)), bit);
    }
    assert_string_equal(dc_feature_name(DC_FEAT_DEVICE_STATUS), "DeviceStatus");
    assert_null(dc_feature_name(0));
    assert_null(dc_feature_name(DC_FEAT_ADMIN_ACCESS | DC_FEAT_DEVICE_TAINTS));
    assert_null(dc_feature_name(DC_FEAT_DEVICE_TAINT_RULES << 1));
}

static void check_scenario(const dc_objects *o, const dc_scenario *sc)
{
    assert_int_equal(sc->features,
                     DC_FEAT_ADMIN_ACCESS | DC_FEAT_PRIORITIZED_LIST | DC_FEAT_DEVICE_STATUS);
    assert_string_equal(sc->node.name, "node-a");
    assert_int_equal(sc->node.nlabels, 2);
    assert_string_equal(sc->node.labels[0].key, "arch");
    assert_string_equal(sc->node.labels[0].value, "arm64");
    assert_string_equal(sc->node.labels[1].key, "zone");
    assert_int_equal(o->nclasses, 1);
    assert_string_equal(o->classes[0].name, "gpu.example.com");
    assert_int_equal(o->classes[0].nsels, 1);
    assert_int_equal(o->slices.n, 1);
    assert_string_equal(o->slices.slices[0].pool, "node-a/partitions");
    assert_int_equal(o->slices.slices[0].ndevices, 2);
    /* split at the first and the last '/': the pool keeps its own */
    assert_int_equal(sc->nallocated, 2);
    assert_string_equal(sc->allocated[0].driver, "gpu.example.com");
    assert_string_equal(sc->allocated[0].pool, "node-a/partitions");
    assert_string_equal(sc->allocated[0].device, "gpu-1");
    assert_string_equal(sc->allocated[1].pool, "node-a");
    assert_string_equal(sc->allocated[1].device, "gpu-0");
    assert_int_equal(o->nclaims, 2);
    assert_string_equal(o->claims[0].name, "one");
    assert_string_equal(o->claims[0].kind, "ResourceClaim");
    assert_string_equal(o->claims[0].reqs[0].subs[0].class_name, "gpu.example.com");
    assert_string_equal(o->claims[1].name, "tmpl");
    assert_string_equal(o->claims[1].kind, "ResourceClaimTemplate");
    assert_int_equal(o->claims[1].reqs[0].subs[0].count, 2);
    assert_int_equal(o->nnodes, 0);
    assert_int_equal(o->slices.nnotes, 0);
}

static void test_scenario(void **state)
{
    (void)state;
    dc_objects o;
    dc_scenario sc;
    dc_objects_init(&o, NULL);
    if (dc_scenario_load(&o, &sc, DATA "scenario.yaml", NULL, err, sizeof err) != DRACEL_OK)
        fail_msg("%s", err);
    check_scenario(&o, &sc);
    assert_string_equal(sc.file, DATA "scenario.yaml");
    assert_string_equal(sc.node.file, DATA "scenario.yaml");
    assert_int_equal(sc.node.line, 4);
    assert_int_equal(o.classes[0].line, 7);
    assert_int_equal(o.slices.slices[0].line, 12);
    assert_int_equal(o.claims[1].line, 30);
    dc_objects_free(&o);

    size_t len;
    char *text = slurp(DATA "scenario.json", &len);
    dc_objects_init(&o, NULL);
    memset(&sc, 0, sizeof sc);
    if (dc_scenario_load_buffer(&o, &sc, "scenario.json", text, len, NULL, err, sizeof err) !=
        DRACEL_OK)
        fail_msg("%s", err);
    check_scenario(&o, &sc);
    assert_string_equal(sc.file, "scenario.json");
    dc_objects_free(&o);
    free(text);

    /* the least scenario; a trailing empty YAML document is no second document */
    dc_objects_init(&o, NULL);
    static const char least[] = "node: {name: n1}\n---\n";
    assert_int_equal(dc_scenario_load_buffer(&o, &sc, NULL, least, strlen(least), NULL, err,
                                             sizeof err),
                     DRACEL_OK);
    /* no features: the defaults of the newest release */
    assert_int_equal(sc.features, DC_FEAT_DEFAULTS);
    assert_int_equal(sc.release, 37);
    assert_false(sc.listed);
    assert_string_equal(sc.node.name, "n1");
    assert_int_equal(sc.node.nlabels + sc.nallocated, 0);
    assert_string_equal(sc.file, "<input>");
    dc_objects_free(&o);

    /* a release's defaults, with featureGates on top (either name) */
    dc_objects_init(&o, NULL);
    static const char rel[] = "kubernetesVersion: v1.35.6\n"
                              "featureGates: {DRADeviceTaints: true, PrioritizedList: false}\n"
                              "node: {name: n1}\n";
    if (dc_scenario_load_buffer(&o, &sc, NULL, rel, strlen(rel), NULL, err, sizeof err) !=
        DRACEL_OK)
        fail_msg("%s", err);
    assert_int_equal(sc.release, 35);
    assert_int_equal(sc.features,
                     DC_FEAT_ADMIN_ACCESS | DC_FEAT_DEVICE_TAINTS | DC_FEAT_DEVICE_STATUS);
    assert_int_equal(sc.gates_on, DC_FEAT_DEVICE_TAINTS);
    assert_int_equal(sc.gates_off, DC_FEAT_PRIORITIZED_LIST);
    dc_objects_free(&o);

    /* bad arguments, I/O */
    dc_objects_init(&o, NULL);
    assert_int_equal(dc_scenario_load(&o, &sc, DATA "dir", NULL, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, DATA "dir: not a regular file: Is a directory");
    assert_int_equal(dc_scenario_load(&o, &sc, NULL, NULL, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dc_scenario_load(&o, NULL, DATA "scenario.yaml", NULL, err, sizeof err),
                     DRACEL_EINVAL);
    assert_int_equal(dc_scenario_load_buffer(&o, &sc, "x", NULL, 3, NULL, err, sizeof err),
                     DRACEL_EINVAL);
    dc_objects_free(&o);
}

#define FEATURES_KNOWN                                                                           \
    "(known: AdminAccess, PrioritizedList, DeviceTaints, PartitionableDevices, "                 \
    "ConsumableCapacity, DeviceBindingConditions, ListTypeAttributes, ExtendedResource, "        \
    "DeviceStatus, DeviceTaintRules; each also with the prefix \"DRA\")"

static void test_scenario_errors(void **state)
{
    (void)state;
    CHECK_SCN_ERR("node: {name: n1}\nnodes: []\n",
                  "s.yaml:2: unknown field \"nodes\" (a scenario has kubernetesVersion, features, "
                  "featureGates, node, classes, slices, deviceTaintRules, allocatedDevices, "
                  "claims and pod)");
    /* the pod (extended resources backed by DRA) and the node's allocatable */
    CHECK_SCN_ERR("node: {name: n1}\npod:\n  spec:\n    containers:\n    - name: a\n"
                  "      resources: {requests: {example.com/gpu: \"-1\"}}\n",
                  "s.yaml:6: pod.spec.containers[0].resources.requests[\"example.com/gpu\"]: "
                  "invalid value \"-1\": must be a non-negative quantity");
    CHECK_SCN_ERR("node: {name: n1}\npod:\n  spec:\n    initContainers:\n    - resources: {}\n",
                  "s.yaml:5: pod.spec.initContainers[0].name: required value");
    CHECK_SCN_ERR("node: {name: n1, allocatable: {a.com/b: x}}\npod: {}\n",
                  "s.yaml:1: node.allocatable[\"a.com/b\"]: invalid value \"x\": must be a "
                  "quantity");
    CHECK_SCN_ERR("kubernetesVersion: \"1.33\"\nnode: {name: n1}\n",
                  "s.yaml:1: kubernetesVersion: invalid value \"1.33\": must be a Kubernetes "
                  "release dracel reproduces: 1.34, 1.35, 1.36 or 1.37");
    CHECK_SCN_ERR("kubernetesVersion: 1.36\nnode: {name: n1}\n",
                  "s.yaml:1: kubernetesVersion: must be a string, not a number (YAML 1.1 reads "
                  "the plain scalar 1.36 as a number; quote it)");
    CHECK_SCN_ERR("kubernetesVersion: \"1.34\"\nfeatures: [DeviceTaintRules]\nnode: {name: n1}\n",
                  "s.yaml:2: features[0]: feature \"DeviceTaintRules\": Kubernetes 1.34 has no "
                  "such gate");
    CHECK_SCN_ERR("kubernetesVersion: \"1.36\"\nfeatureGates: {DRAAdminAccess: false}\n"
                  "node: {name: n1}\n",
                  "s.yaml:2: featureGates: cannot set feature gate DRAAdminAccess to false, "
                  "feature is locked to true");
    CHECK_SCN_ERR("featureGates: {DRAFoo: true}\nnode: {name: n1}\n",
                  "s.yaml:1: featureGates: unrecognized feature gate: DRAFoo");
    CHECK_SCN_ERR("featureGates: {DRADeviceTaints: yes please}\nnode: {name: n1}\n",
                  "s.yaml:1: featureGates[\"DRADeviceTaints\"]: invalid value \"yes please\": must "
                  "be true or false");
    CHECK_SCN_ERR("features: [AdminAccess, DRAFoo]\nnode: {name: n1}\n",
                  "s.yaml:1: features[1]: unknown feature \"DRAFoo\" " FEATURES_KNOWN);
    CHECK_SCN_ERR("features: AdminAccess\nnode: {name: n1}\n",
                  "s.yaml:1: features: must be a list, not a string");
    CHECK_SCN_ERR("features: []\n", "s.yaml:1: node: required value");
    CHECK_SCN_ERR("node:\n  labels: {a: b}\n", "s.yaml:2: node.name: required value");
    CHECK_SCN_ERR("node: {name: N_1}\n",
                  "s.yaml:1: node.name: invalid value \"N_1\": " WHY_SUBDOMAIN);
    CHECK_SCN_ERR("node: {name: n1, labels: {a: \"b c\"}}\n",
                  "s.yaml:1: node.labels[\"a\"]: invalid value \"b c\": " WHY_LABEL_VALUE);
    CHECK_SCN_ERR("node: {name: n1}\nallocatedDevices: [d.example.com/dev]\n",
                  "s.yaml:2: allocatedDevices[0]: invalid value \"d.example.com/dev\": must be a "
                  "device ID \"driver/pool/device\" (split at the first and the last '/')");
    CHECK_SCN_ERR("node: {name: n1}\nallocatedDevices:\n- a/p/d\n- a//d\n",
                  "s.yaml:4: allocatedDevices[1]: invalid value \"a//d\": must be a device ID "
                  "\"driver/pool/device\" (split at the first and the last '/')");
    CHECK_SCN_ERR("node: {name: n1}\nallocatedDevices: [/p/d]\n",
                  "s.yaml:2: allocatedDevices[0]: invalid value \"/p/d\": must be a device ID "
                  "\"driver/pool/device\" (split at the first and the last '/')");
    CHECK_SCN_ERR("node: {name: n1}\nallocatedDevices: [a/p/]\n",
                  "s.yaml:2: allocatedDevices[0]: invalid value \"a/p/\": must be a device ID "
                  "\"driver/pool/device\" (split at the first and the last '/')");
    CHECK_SCN_ERR("node: {name: n1}\n---\nnode: {name: m1}\n",
                  "s.yaml:3: a scenario is one object, not a stream of documents");
    CHECK_SCN_ERR("- node: {name: n1}\n", "s.yaml:1: expected an object, found a list");
    CHECK_SCN_ERR("", "s.yaml: no scenario (expected one object)");
    CHECK_SCN_ERR("# nothing\n", "s.yaml: no scenario (expected one object)");
    CHECK_SCN_ERR("node: {name: n1}\nnode: {name: m1}\n", "s.yaml:2: duplicate key \"node\"");
    /* objects: checked against their list's kind */
    CHECK_SCN_ERR("node: {name: n1}\nclasses:\n- kind: Pod\n",
                  "s.yaml:3: classes[0].kind: invalid value \"Pod\": must be DeviceClass (or "
                  "absent)");
    CHECK_SCN_ERR("node: {name: n1}\nslices:\n- kind: DeviceClass\n",
                  "s.yaml:3: slices[0].kind: invalid value \"DeviceClass\": must be ResourceSlice "
                  "(or absent)");
    CHECK_SCN_ERR("node: {name: n1}\nclaims:\n- kind: ResourceClaim\n- kind: DeviceClass\n",
                  "s.yaml:4: claims[1].kind: invalid value \"DeviceClass\": must be ResourceClaim "
                  "or ResourceClaimTemplate (or absent)");
    CHECK_SCN_ERR("node: {name: n1}\nclaims: [x]\n",
                  "s.yaml:2: claims[0]: must be an object, not a string");
    CHECK_SCN_ERR("node: {name: n1}\nclaims: {}\n",
                  "s.yaml:2: claims: must be a list, not an object");
    CHECK_SCN_ERR("node: {name: n1}\nclasses:\n- apiVersion: resource.k8s.io/v1alpha3\n",
                  "s.yaml:3: classes[0].apiVersion: \"resource.k8s.io/v1alpha3\" is not served for "
                  "this kind since Kubernetes 1.33 (1.31 and 1.32 served it; only DeviceTaintRule "
                  "stayed there): use resource.k8s.io/v1");
    /* errors inside objects are the objects' own */
    CHECK_SCN_ERR("node: {name: n1}\nslices:\n- metadata: {name: s}\n  spec: {driver: d}\n",
                  "s.yaml:4: ResourceSlice s: spec.pool: required value");
    CHECK_SCN_ERR("node: {name: n1}\nclaims:\n- metadata: {name: c}\n  spec:\n    devices:\n"
                  "      requests: [{name: a}]\n",
                  "s.yaml:6: ResourceClaim c: spec.devices.requests[0]: exactly one of `exactly` "
                  "or `firstAvailable` is required");
    CHECK_SCN_ERR("node: {name: n1}\nclasses:\n- spec: {selectors: [1]}\n",
                  "s.yaml:3: DeviceClass (unnamed): spec.selectors[0]: must be an object, not an "
                  "integer");
    /* JSON */
    static const char json[] = "{\"node\": {\"name\": \"n\"},\n \"claims\": [\n  {\"kind\": "
                               "\"ResourceClaimTemplate\", \"spec\": {\"spec\": 3}}]}";
    dc_objects o;
    dc_scenario sc;
    dc_objects_init(&o, NULL);
    assert_int_equal(dc_scenario_load_buffer(&o, &sc, "s.json", json, strlen(json), NULL, err,
                                             sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "s.json:3: ResourceClaimTemplate (unnamed): spec.spec: must be an "
                             "object, not an integer");
    dc_objects_free(&o);
}

/* ---------------------------------------------------------------------------------------------
 * All or nothing, limits
 */

static void test_rollback(void **state)
{
    (void)state;
    dc_objects o;
    dc_objects_init(&o, NULL);
    assert_int_equal(dc_objects_load(&o, DATA "objects.yaml", ~0u, NULL, err, sizeof err),
                     DRACEL_OK);
    /* every kind loads before the error in the last object: none of it stays */
    static const char bad[] =
        "kind: DeviceClass\nmetadata: {name: x}\n---\nkind: Node\nmetadata: {name: n2}\n---\n"
        "kind: ResourceClaim\nmetadata: {name: c1}\n---\nkind: Pod\n---\n"
        "metadata: {name: s}\nspec: {driver: d.example.com, pool: {name: p, resourceSliceCount: 1},"
        " allNodes: true}\n---\nkind: ResourceClaim\nmetadata: {name: z}\nspec: {devices: "
        "{requests: [{name: A}]}}\n";
    assert_int_equal(load_text(&o, "bad.yaml", bad), DRACEL_EINPUT);
    assert_string_equal(err, "bad.yaml:17: ResourceClaim z: spec.devices.requests[0].name: invalid "
                             "value \"A\": " WHY_LABEL);
    check_content(&o);
    /* the same for a scenario, which also leaves its dc_scenario alone */
    dc_scenario sc;
    memset(&sc, 0, sizeof sc);
    sc.features = 77;
    static const char bads[] = "node: {name: n1}\nclasses: [{metadata: {name: c}}]\n"
                               "slices: [{spec: {driver: d.example.com, pool: {name: p, "
                               "resourceSliceCount: 1}, allNodes: true}}]\n"
                               "claims: [{metadata: {name: c}}, {kind: Pod}]\n";
    assert_int_equal(dc_scenario_load_buffer(&o, &sc, "s.yaml", bads, strlen(bads), NULL, err,
                                             sizeof err),
                     DRACEL_EINPUT);
    assert_int_equal(sc.features, 77);
    assert_null(sc.node.name);
    check_content(&o);
    /* a scenario whose class the set has already is rejected as a whole */
    assert_int_equal(dc_scenario_load(&o, &sc, DATA "scenario.yaml", NULL, err, sizeof err),
                     DRACEL_EINPUT);
    assert_non_null(strstr(err, "DeviceClass gpu.example.com: defined twice (also " DATA
                                "objects.yaml:"));
    check_content(&o);
    dc_objects_free(&o);
    /* a good one appends */
    dc_objects_init(&o, NULL);
    assert_int_equal(dc_objects_load(&o, DATA "dir", ~0u, NULL, err, sizeof err), DRACEL_OK);
    assert_int_equal(dc_scenario_load(&o, &sc, DATA "scenario.yaml", NULL, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(o.nclasses, 2);
    assert_int_equal(o.nclaims, 3);
    assert_int_equal(o.slices.n, 2);
    dc_objects_free(&o);
}

static void test_limits(void **state)
{
    (void)state;
    dc_objects o;
    dc_objects_init(&o, NULL);
    /* max_objects counts every kind and the notes */
    dc_slices_limits lim = {0, 7, 0};
    assert_int_equal(dc_objects_load(&o, DATA "objects.yaml", ~0u, &lim, err, sizeof err),
                     DRACEL_OK);
    lim.max_objects = 6;
    dc_objects_free(&o);
    assert_int_equal(dc_objects_load(&o, DATA "objects.yaml", ~0u, &lim, err, sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, DATA "objects.yaml:121: more than 6 objects (the configured limit)");
    assert_int_equal(o.nclasses + o.nclaims + o.nnodes + o.slices.n + o.slices.nnotes, 0);
    lim.max_objects = 4;
    dc_scenario sc;
    assert_int_equal(dc_scenario_load(&o, &sc, DATA "scenario.yaml", &lim, err, sizeof err),
                     DRACEL_OK);
    lim.max_objects = 3;
    dc_objects_free(&o);
    assert_int_equal(dc_scenario_load(&o, &sc, DATA "scenario.yaml", &lim, err, sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, DATA "scenario.yaml:30: claims[1]: more than 3 objects (the "
                                  "configured limit)");
    /* depth and size */
    lim = (dc_slices_limits){0, 0, 4};
    static const char deep[] = "node: {name: n1}\nclaims: [{spec: {devices: {requests: []}}}]\n";
    assert_int_equal(dc_scenario_load_buffer(&o, &sc, "d.yaml", deep, strlen(deep), &lim, err,
                                             sizeof err),
                     DRACEL_EINPUT);
    assert_string_equal(err, "d.yaml:2: nesting deeper than 4");
    lim = (dc_slices_limits){100, 0, 0};
    assert_int_equal(dc_scenario_load(&o, &sc, DATA "scenario.yaml", &lim, err, sizeof err),
                     DRACEL_EINPUT);
    assert_true(strstr(err, "bytes, more than the limit of 100") != NULL);
    assert_int_equal(dc_objects_load(&o, DATA "objects.yaml", ~0u, &lim, err, sizeof err),
                     DRACEL_EINPUT);
    assert_true(strstr(err, "bytes, more than the limit of 100") != NULL);
    assert_int_equal(o.nclasses + o.nclaims + o.nnodes + o.slices.n + o.slices.nnotes, 0);
    dc_objects_free(&o);
}

/* Every prefix and random mutations of the data files: any status but a crash, a leak (ASan) or
 * an error without a message. */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;

static unsigned rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state >> 11);
}

/* dracel_objects_keys: every object of a YAML stream, Lists and sequences included, named
 * as written without being decoded (an invalid one too); a stop; not YAML at all. */
typedef struct keys_seen {
    char text[1024];
    int stop_after;
} keys_seen;

static int keys_cb(void *ctx, const dracel_object_info *k)
{
    keys_seen *ks = ctx;
    size_t n = strlen(ks->text);
    snprintf(ks->text + n, sizeof ks->text - n, "%s%s(%u) %s/%s @%u", n ? "; " : "", k->kind,
             k->kind_bit, k->ns ? k->ns : "-", k->name ? k->name : "-", (unsigned)k->line);
    return --ks->stop_after == 0;
}

static void test_keys(void **state)
{
    (void)state;
    const char *yaml = "kind: ResourceClaim\n"
                       "metadata: {name: a, namespace: ns}\n"
                       "spec: {devices: {requests: [{name: g, exactly: {count: -3}}]}}\n"
                       "---\n"
                       "kind: List\n"
                       "items:\n"
                       "- {kind: Node, metadata: {name: n1}}\n"
                       "- {metadata: {name: 7}}\n"
                       "--- 5\n"
                       "---\n"
                       "kind: DeviceClassList\n"
                       "items: [{metadata: {name: c}}]\n";
    keys_seen ks = {"", -1};
    char msg[256];
    assert_int_equal(dracel_objects_keys(NULL, "f.yaml", yaml, strlen(yaml), keys_cb, &ks, msg,
                                         sizeof msg),
                     DRACEL_OK);
    assert_string_equal(ks.text, "ResourceClaim(4) ns/a @1; Node(8) -/n1 @7; (0) -/- @8; (0) -/c @12");
    keys_seen one = {"", 1};
    assert_int_equal(dracel_objects_keys(NULL, "f.yaml", yaml, strlen(yaml), keys_cb, &one, msg,
                                         sizeof msg),
                     DRACEL_OK);
    assert_string_equal(one.text, "ResourceClaim(4) ns/a @1");
    const char *json = "[{\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s\"}},\n"
                       "{\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"x\",\"namespace\":\"y\"}}]";
    keys_seen js = {"", -1};
    assert_int_equal(dracel_objects_keys(NULL, NULL, json, strlen(json), keys_cb, &js, msg,
                                         sizeof msg),
                     DRACEL_OK);
    assert_string_equal(js.text, "ResourceSlice(1) -/s @1; ResourceClaim(4) y/x @2");
    keys_seen bad = {"", -1};
    assert_int_equal(dracel_objects_keys(NULL, "b.yaml", "a: [1\n", 6, keys_cb, &bad, msg,
                                         sizeof msg),
                     DRACEL_EINPUT);
    assert_true(strncmp(msg, "b.yaml:", 7) == 0);
    assert_int_equal(dracel_objects_keys(NULL, NULL, "x", 1, NULL, NULL, msg, sizeof msg),
                     DRACEL_EINVAL);
}

static void test_fuzz(void **state)
{
    (void)state;
    static const char *const files[] = {DATA "objects.yaml", DATA "objects.json",
                                        DATA "scenario.yaml", DATA "scenario.json"};
    dc_objects o;
    dc_objects_init(&o, NULL);
    for (size_t f = 0; f < DC_COUNTOF(files); f++) {
        size_t len;
        char *text = slurp(files[f], &len);
        char *copy = malloc(len + 1);
        assert_non_null(copy);
        for (int it = 0; it < 2500; it++) {
            size_t n = it < 500 ? rng() % (len + 1) : len;
            memcpy(copy, text, len);
            if (it >= 500) {
                int k = 1 + (int)(rng() % 4);
                for (int j = 0; j < k; j++)
                    copy[rng() % len] =
                        j % 2 ? (char)(rng() & 0xff) : " {}[]:,-\"'\n0a&*|/"[rng() % 18];
            }
            dc_scenario sc;
            dracel_status st = dc_scenario_load_buffer(&o, &sc, files[f], copy, n, NULL, err,
                                                       sizeof err);
            assert_true(st == DRACEL_OK || st == DRACEL_EINPUT);
            if (st == DRACEL_EINPUT)
                assert_true(err[0] != '\0');
            if (it % 8 == 0)
                dc_objects_free(&o);
        }
        free(copy);
        free(text);
        dc_objects_free(&o);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Allocation failures (tests/unit/testutil.h: fail the Nth call, count what is live)
 */

/* The data files define the same class and node again: each goes into a set of its own. */
static dracel_status load_all(dc_objects o[4], const char *jtext, size_t jlen)
{
    dc_scenario sc;
    dracel_status st = dc_objects_load(&o[0], DATA "dir", ~0u, NULL, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_objects_load(&o[0], DATA "objects.yaml", ~0u, NULL, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_objects_load(&o[1], DATA "objects.json", ~0u, NULL, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_scenario_load(&o[2], &sc, DATA "scenario.yaml", NULL, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_scenario_load_buffer(&o[3], &sc, "scenario.json", jtext, jlen, NULL, err, sizeof err);
    return st;
}

static void test_alloc_failures(void **state)
{
    (void)state;
    size_t jlen;
    char *jtext = slurp(DATA "scenario.json", &jlen);
    long failures = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        dc_objects o[4];
        for (int k = 0; k < 4; k++)
            dc_objects_init(&o[k], &a);
        dracel_status st = load_all(o, jtext, jlen);
        if (st == DRACEL_OK) {
            assert_true(fa.calls < at);
            assert_int_equal(o[0].nclasses + o[1].nclasses + o[2].nclasses + o[3].nclasses,
                             1 + 1 + 1 + 1 + 1);
            assert_int_equal(o[0].nclaims + o[1].nclaims + o[2].nclaims + o[3].nclaims,
                             1 + 3 + 3 + 2 + 2);
            assert_int_equal(o[0].nnodes + o[1].nnodes, 1 + 1 + 1);
            assert_string_equal(o[0].classes[1].config[0].parameters, PARAMS);
        } else {
            if (st != DRACEL_ENOMEM)
                fail_msg("allocation %ld failed: status %d: %s", at, st, err);
            assert_string_equal(err, "out of memory");
            failures++;
        }
        for (int k = 0; k < 4; k++)
            dc_objects_free(&o[k]);
        assert_int_equal(fa.live_blocks, 0);
        assert_int_equal(fa.live_bytes, 0);
        if (st == DRACEL_OK)
            break;
    }
    assert_true(failures > 10);
    print_message("      %ld allocation failures injected, each ENOMEM without a leak\n", failures);

    /* the arena asks for memory in growing chunks: shifting its fill level before the load
     * moves the failing calls to other sites of the decoders */
    failures = 0;
    for (size_t shift = 0; shift <= 4096 + 512; shift += 40) {
        for (long at = 1;; at++) {
            fail_alloc fa = {0, 0, 0, 0};
            dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
            dc_objects o[4];
            for (int k = 0; k < 4; k++)
                dc_objects_init(&o[k], &a);
            if (shift)
                for (int k = 0; k < 4; k++)
                    assert_non_null(dc_arena_alloc(&o[k].slices.arena, shift));
            fa.fail_at = fa.calls + at;
            dracel_status st = load_all(o, jtext, jlen);
            bool done = fa.calls < fa.fail_at;
            if (st != DRACEL_OK) {
                if (st != DRACEL_ENOMEM)
                    fail_msg("shift %zu, allocation %ld: status %d: %s", shift, at, st, err);
                failures++;
            } else {
                assert_true(done);
                assert_int_equal(o[0].nclaims + o[1].nclaims + o[2].nclaims + o[3].nclaims, 11);
            }
            for (int k = 0; k < 4; k++)
                dc_objects_free(&o[k]);
            assert_int_equal(fa.live_blocks, 0);
            assert_int_equal(fa.live_bytes, 0);
            if (done)
                break;
        }
    }
    print_message("      %ld allocation failures injected (shifted arenas)\n", failures);
    free(jtext);
}

int main(void)
{
    if (to_sources() != 0)
        return 1;
    if (!mkdtemp(tmpdir)) {
        perror(tmpdir);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_errors_requests),
        cmocka_unit_test(test_errors_selectors),
        cmocka_unit_test(test_errors_tolerations),
        cmocka_unit_test(test_errors_constraints),
        cmocka_unit_test(test_errors_config),
        cmocka_unit_test(test_errors_objects),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_params_deep),
        cmocka_unit_test(test_features),
        cmocka_unit_test(test_scenario),
        cmocka_unit_test(test_scenario_errors),
        cmocka_unit_test(test_v1beta1),
        cmocka_unit_test(test_claim_status),
        cmocka_unit_test(test_claim_status_errors),
        cmocka_unit_test(test_rollback),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_fuzz),
        cmocka_unit_test(test_alloc_failures),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(tmpdir);
    return failed;
}
