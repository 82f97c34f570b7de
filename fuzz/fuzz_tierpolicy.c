/*
 * fuzz_tierpolicy: libFuzzer harness for the reader of TierPolicy files (src/tierpolicy.c)
 * through dracel.h: the input is one file, YAML or JSON. Built with --enable-fuzzing.
 *
 * Besides crashes and sanitizer reports, it traps on a broken contract:
 * - a status other than OK, EINPUT, ENOMEM; a rejection without a message, or one that does
 *   not start with the file's name;
 * - a policy read twice from the same bytes with another hash, or a label that is not
 *   "VERSION (h:HASH)";
 * - keys not sorted and distinct, a key its index cannot find, a tenant whose namespaces do not
 *   lead back to it (or to a tenant by label before it);
 * - the cap check disagreeing with its rule (used + n <= cap, or free - n >= the reserve), a
 *   reason that does not name the tenant and the key, a ledger that does not give back what
 *   was added.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dracel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void check_policy(const dracel_tierpolicy *p)
{
    char label[256];
    snprintf(label, sizeof label, "%s (h:%016" PRIx64 ")", dracel_tierpolicy_version(p),
             dracel_tierpolicy_hash(p));
    CHECK(strcmp(label, dracel_tierpolicy_label(p)) == 0);
    CHECK(dracel_tier_mode_name(dracel_tierpolicy_mode(p)) != NULL);
    size_t nk = dracel_tierpolicy_keys(p), nt = dracel_tierpolicy_tenants(p);
    for (size_t k = 0; k < nk; k++) {
        size_t idx = SIZE_MAX;
        CHECK(dracel_tierpolicy_key_find(p, dracel_tierpolicy_key(p, k), &idx) == DRACEL_OK);
        CHECK(idx == k);
        if (k)
            CHECK(strcmp(dracel_tierpolicy_key(p, k - 1), dracel_tierpolicy_key(p, k)) < 0);
    }
    dracel_tierusage *u = NULL;
    dracel_status st = dracel_tierusage_new(p, &u);
    CHECK(st == DRACEL_OK || st == DRACEL_ENOMEM);
    for (size_t t = 0; t <= nt; t++) {
        dracel_tenant_info ti;
        CHECK(dracel_tierpolicy_tenant(p, t, &ti) == DRACEL_OK);
        CHECK(ti.name && ti.weight >= 1 && ti.is_default == (t == nt));
        CHECK(dracel_tier_mode_name(ti.mode) != NULL);
        size_t back = SIZE_MAX;
        CHECK(dracel_tierpolicy_tenant_find(p, ti.name, &back) == DRACEL_OK && back == t);
        for (size_t i = 0; i < ti.nnamespaces; i++) {
            size_t who = dracel_tierpolicy_tenant_of(p, ti.namespaces[i], NULL, 0);
            CHECK(who == t);
        }
        if (ti.label_key) {
            dracel_label l = {ti.label_key, ti.label_value};
            CHECK(dracel_tierpolicy_tenant_of(p, NULL, &l, 1) <= t);
        }
        for (size_t k = 0; u && k < nk; k++) {
            const char *kn = dracel_tierpolicy_key(p, k);
            for (uint64_t size = 0; size < 40; size += 13) {
                uint64_t cap = dracel_tierpolicy_cap(p, t, k, size);
                uint64_t res = dracel_tierpolicy_reserve(p, k, size);
                CHECK((cap == DRACEL_TIER_NO_CAP) == (dracel_tierpolicy_cap_text(p, t, k) == NULL));
                for (uint64_t used = 0; used < 4; used++) {
                    dracel_tierusage_clear(u);
                    CHECK(dracel_tierusage_add(u, t, k, (int64_t)used) == DRACEL_OK);
                    CHECK(dracel_tierusage_used(u, t, k) == used);
                    CHECK(dracel_tierusage_total(u, k) == used);
                    for (uint64_t n = 1; n < 3; n++) {
                        uint64_t fr = size / 2;
                        dracel_tier_check c;
                        CHECK(dracel_tierpolicy_check(p, u, t, k, n, size, fr, &c) == DRACEL_OK);
                        bool within = cap == DRACEL_TIER_NO_CAP || used + n <= cap;
                        bool borrow = !within && fr >= n && fr - n >= res;
                        CHECK(c.allowed == (within || borrow) && c.borrowing == borrow);
                        CHECK(c.reject == (!c.allowed && ti.mode == DRACEL_TIER_ENFORCE));
                        char want[400];
                        snprintf(want, sizeof want, "tenant %s ", ti.name);
                        CHECK(strncmp(c.reason, want, strlen(want)) == 0);
                        CHECK(strstr(c.reason, kn) != NULL);
                    }
                }
            }
        }
    }
    dracel_tierusage_free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    dracel_tierpolicy *p = NULL;
    dracel_status st = dracel_tierpolicy_load_buffer(NULL, "fuzz.yaml", (const char *)data, size,
                                                     &p, err, sizeof err);
    CHECK(st == DRACEL_OK || st == DRACEL_EINPUT || st == DRACEL_ENOMEM);
    if (st != DRACEL_OK) {
        CHECK(p == NULL);
        CHECK(strncmp(err, "fuzz.yaml", 9) == 0);
        return 0;
    }
    dracel_tierpolicy *q = NULL;
    CHECK(dracel_tierpolicy_load_buffer(NULL, "other", (const char *)data, size, &q, err,
                                        sizeof err) == DRACEL_OK);
    CHECK(dracel_tierpolicy_hash(p) == dracel_tierpolicy_hash(q));
    dracel_tierpolicy_free(q);
    check_policy(p);
    dracel_tierpolicy_free(p);
    return 0;
}
