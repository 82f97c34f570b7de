/*
 * test_tierpolicy.c: tier policies (include/dracel.h, "Tier policies"; docs/fairness.md) through
 * dracel.h alone: every field of the file read (tests/data/tierpolicy/), the content hash equal
 * across key order, formats and defaults and different for a different decision, every
 * validation message with its line and column, the fixed limits, tenants by namespace and by
 * label (the first of the file wins), the ledger, the cap check's arithmetic (caps as counts,
 * shares and fair shares; borrowing down to the idle reserve; borrowers refused first; the
 * one-line reasons), what allocations count toward (a placement run on the sample, and a
 * snapshot's allocated claim), the size of a key over the fleet, and an allocation-failure sweep.
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

#include "dracel.h"
#include "testutil.h"

#define DATA "tests/data/tierpolicy/"

static char err[2048];

static dracel_tierpolicy *load_text(const char *text)
{
    dracel_tierpolicy *p = NULL;
    dracel_status st = dracel_tierpolicy_load_buffer(NULL, "p.yaml", text, strlen(text), &p, err,
                                                     sizeof err);
    if (st != DRACEL_OK)
        fail_msg("rejected: %s", err);
    return p;
}

static size_t key(const dracel_tierpolicy *p, const char *name)
{
    size_t k = 99;
    assert_int_equal(dracel_tierpolicy_key_find(p, name, &k), DRACEL_OK);
    return k;
}

static size_t tenant(const dracel_tierpolicy *p, const char *name)
{
    size_t t = 99;
    assert_int_equal(dracel_tierpolicy_tenant_find(p, name, &t), DRACEL_OK);
    return t;
}

static void test_full(void **state)
{
    (void)state;
    dracel_tierpolicy *p = NULL;
    assert_int_equal(dracel_tierpolicy_load(NULL, DATA "full.yaml", &p, err, sizeof err),
                     DRACEL_OK);
    assert_string_equal(dracel_tierpolicy_version(p), "2026-12-01.1");
    assert_string_equal(dracel_tierpolicy_name(p), "gpu-fair-use");
    assert_string_equal(dracel_tierpolicy_file(p), DATA "full.yaml");
    assert_int_equal(dracel_tierpolicy_mode(p), DRACEL_TIER_SHADOW);
    char label[64];
    snprintf(label, sizeof label, "2026-12-01.1 (h:%016llx)",
             (unsigned long long)dracel_tierpolicy_hash(p));
    assert_string_equal(dracel_tierpolicy_label(p), label);
    /* keys, sorted */
    assert_int_equal(dracel_tierpolicy_keys(p), 3);
    assert_string_equal(dracel_tierpolicy_key(p, 0), "gpu.example.com");
    assert_string_equal(dracel_tierpolicy_key(p, 1), "gpu/a100");
    assert_string_equal(dracel_tierpolicy_key(p, 2), "gpu/h100");
    assert_null(dracel_tierpolicy_key(p, 3));
    size_t k;
    assert_int_equal(dracel_tierpolicy_key_find(p, "gpu/l4", &k), DRACEL_EINPUT);
    /* tenants in file order, the default last */
    assert_int_equal(dracel_tierpolicy_tenants(p), 3);
    dracel_tenant_info ti;
    assert_int_equal(dracel_tierpolicy_tenant(p, 0, &ti), DRACEL_OK);
    assert_string_equal(ti.name, "team-a");
    assert_int_equal(ti.weight, 2);
    assert_false(ti.is_default);
    assert_int_equal(ti.nnamespaces, 2);
    assert_string_equal(ti.namespaces[0], "team-a");
    assert_string_equal(ti.namespaces[1], "team-a-batch");
    assert_null(ti.label_key);
    assert_int_equal(ti.ncaps, 2);
    assert_int_equal(dracel_tierpolicy_tenant(p, 1, &ti), DRACEL_OK);
    assert_string_equal(ti.name, "research");
    assert_string_equal(ti.label_key, "dracel.dev/tenant");
    assert_string_equal(ti.label_value, "research");
    assert_int_equal(ti.nnamespaces, 0);
    assert_int_equal(dracel_tierpolicy_tenant(p, 3, &ti), DRACEL_OK);
    assert_string_equal(ti.name, "others");
    assert_true(ti.is_default);
    assert_int_equal(ti.weight, 1);
    assert_int_equal(dracel_tierpolicy_tenant(p, 4, &ti), DRACEL_EINVAL);
    assert_int_equal(tenant(p, "others"), 3);
    size_t t;
    assert_int_equal(dracel_tierpolicy_tenant_find(p, "nobody", &t), DRACEL_EINPUT);
    /* caps: counts as written, shares rounded down, fair by weight among the capped */
    size_t h100 = key(p, "gpu/h100"), a100 = key(p, "gpu/a100"), cls = key(p, "gpu.example.com");
    assert_int_equal(dracel_tierpolicy_cap(p, 0, h100, 16), 8);
    assert_int_equal(dracel_tierpolicy_cap(p, 0, cls, 33), 16);
    assert_int_equal(dracel_tierpolicy_cap(p, 0, a100, 33), DRACEL_TIER_NO_CAP);
    /* gpu/h100 is capped for team-a (2), research (1), team-b (1), others (1): fair = w / 5 */
    assert_int_equal(dracel_tierpolicy_cap(p, 1, h100, 16), 3);
    assert_int_equal(dracel_tierpolicy_cap(p, 2, h100, 16), 3);
    assert_int_equal(dracel_tierpolicy_cap(p, 1, h100, 100), 20);
    assert_int_equal(dracel_tierpolicy_cap(p, 1, a100, 100), 0);
    assert_int_equal(dracel_tierpolicy_cap(p, 3, h100, 100), 2);
    assert_string_equal(dracel_tierpolicy_cap_text(p, 0, cls), "50%");
    assert_string_equal(dracel_tierpolicy_cap_text(p, 1, h100), "fair");
    assert_string_equal(dracel_tierpolicy_cap_text(p, 0, h100), "8");
    assert_null(dracel_tierpolicy_cap_text(p, 0, a100));
    /* reserves: a tier's own, else the policy's; shares rounded up */
    assert_int_equal(dracel_tierpolicy_reserve(p, h100, 100), 2);
    assert_int_equal(dracel_tierpolicy_reserve(p, a100, 16), 2);
    assert_int_equal(dracel_tierpolicy_reserve(p, a100, 8), 1);
    assert_int_equal(dracel_tierpolicy_reserve(p, cls, 41), 5);
    assert_int_equal(dracel_tierpolicy_reserve(p, cls, 40), 4);
    assert_int_equal(dracel_tierpolicy_reserve(p, cls, 0), 0);
    assert_string_equal(dracel_tier_mode_name(DRACEL_TIER_OFF), "off");
    assert_null(dracel_tier_mode_name((dracel_tier_mode)7));
    dracel_tierpolicy_free(p);
}

/* The hash reads what decides, not how it is written. */
static void test_hash(void **state)
{
    (void)state;
    dracel_tierpolicy *a = NULL, *b = NULL;
    assert_int_equal(dracel_tierpolicy_load(NULL, DATA "full.yaml", &a, err, sizeof err),
                     DRACEL_OK);
    assert_int_equal(dracel_tierpolicy_load(NULL, DATA "full.json", &b, err, sizeof err),
                     DRACEL_OK);
    assert_true(dracel_tierpolicy_hash(a) == dracel_tierpolicy_hash(b));
    assert_string_not_equal(dracel_tierpolicy_version(a), dracel_tierpolicy_version(b));
    dracel_tierpolicy_free(b);
    /* a different decision: another hash */
    static const char *const other[] = {
        "mode: enforce", "idleReserve: 11%", "gpu/h100: {idleReserve: 3}",
        "  weight: 3", "    gpu/h100: 9", "  namespaces: [team-a]",
        "value: research2", "caps: {gpu/h100: 3}"};
    static const char *const from[] = {
        "mode: shadow", "idleReserve: 10%", "gpu/h100: {idleReserve: 2}",
        "  weight: 2", "    gpu/h100: 8", "  namespaces: [team-a, team-a-batch]",
        "value: research", "caps: {gpu/h100: 2}"};
    size_t len;
    char *text = slurp(DATA "full.yaml", &len);
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        char *at = strstr(text, from[i]);
        assert_non_null(at);
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - text), text, other[i],
                 at + strlen(from[i]));
        dracel_tierpolicy *c = load_text(buf);
        if (dracel_tierpolicy_hash(c) == dracel_tierpolicy_hash(a))
            fail_msg("the same hash with %s", other[i]);
        dracel_tierpolicy_free(c);
    }
    free(text);
    /* defaults spelt out, quoting and flow style: the same hash */
    dracel_tierpolicy *d1 = load_text("apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\n"
                                      "version: v1\ntenants:\n- name: a\n  namespaces: [a]\n"
                                      "  caps: {gpu: 1}\n");
    dracel_tierpolicy *d2 = load_text("{\"apiVersion\": \"dracel.dev/v1alpha1\", \"kind\": "
                                      "\"TierPolicy\", \"version\": \"v2\", \"mode\": \"enforce\","
                                      " \"idleReserve\": 0, \"tenants\": [{\"name\": \"a\", "
                                      "\"weight\": 1, \"namespaces\": [\"a\"], \"caps\": "
                                      "{\"gpu\": 1}}], \"defaultTenant\": {\"weight\": 1}}");
    assert_true(dracel_tierpolicy_hash(d1) == dracel_tierpolicy_hash(d2));
    assert_int_equal(dracel_tierpolicy_mode(d1), DRACEL_TIER_ENFORCE);
    dracel_tierpolicy_free(d1);
    dracel_tierpolicy_free(d2);
    dracel_tierpolicy_free(a);
}

#define HEAD "apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nversion: v1\n"

/* Rejected files: the message, with FILE:LINE:COL. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", "p.yaml: no TierPolicy object (the file is empty)"},
        {"kind: TierPolicy\nversion: v1\n",
         "p.yaml:1:1: apiVersion: required value (dracel.dev/v1alpha1)"},
        {"apiVersion: v1\nkind: TierPolicy\n",
         "p.yaml:1:13: apiVersion: must be dracel.dev/v1alpha1, not \"v1\""},
        {"apiVersion: dracel.dev/v1alpha1\nkind: Pod\n",
         "p.yaml:2:7: kind: must be TierPolicy, not \"Pod\""},
        {"apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\n",
         "p.yaml:1:1: version: required value (what operators call this policy, e.g. "
         "\"2026-12-01.1\")"},
        {HEAD "mode: strict\n", "p.yaml:4:7: mode: must be enforce, shadow or off, not \"strict\""},
        {HEAD "mode: on\n", "p.yaml:4:7: mode: must be enforce, shadow or off, not \"on\""},
        {HEAD "versoin: v2\n", "p.yaml:4:1: unknown field \"versoin\""},
        {HEAD "version: v2\n", "p.yaml:4:1: field \"version\" given twice (first at line 3)"},
        {HEAD "version2: x\n", "p.yaml:4:1: unknown field \"version2\""},
        {"apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nversion: \"\"\n",
         "p.yaml:3:10: version: must not be empty"},
        {"apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nversion: [1]\n",
         "p.yaml:3:10: version: must be a string, not a list"},
        {"apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nversion: \"a\\\"b\"\n",
         "p.yaml:3:10: version: must be printable ASCII without quotes or backslashes"},
        {HEAD "idleReserve: fair\n",
         "p.yaml:4:14: idleReserve: must be a count of devices or a percent of the tier's "
         "devices (\"10%\"), not \"fair\""},
        {HEAD "idleReserve: 101%\n", "p.yaml:4:14: idleReserve: \"101%\" is more than 100%"},
        {HEAD "idleReserve: 1.2345%\n",
         "p.yaml:4:14: idleReserve: must be a count of devices or a percent of the tier's "
         "devices (\"10%\"), not \"1.2345%\""},
        {HEAD "idleReserve: -1\n",
         "p.yaml:4:14: idleReserve: a count of devices must be from 0 to 1000000000"},
        {HEAD "tiers:\n  gpu/h100: {idleReserve: 2, size: 3}\n",
         "p.yaml:5:30: tiers[\"gpu/h100\"]: unknown field \"size\""},
        {HEAD "tiers:\n  Gpu/h100: {idleReserve: 2}\n",
         "p.yaml:5:3: tiers: \"Gpu/h100\" must be REQUEST/SUBREQUEST (two DNS labels), a request "
         "name or a DeviceClass name"},
        {HEAD "tiers:\n  a/b/c: {}\n",
         "p.yaml:5:3: tiers: \"a/b/c\" must be REQUEST/SUBREQUEST (two DNS labels), a request "
         "name or a DeviceClass name"},
        {HEAD "tiers:\n  gpu: 3\n", "p.yaml:5:8: tiers[\"gpu\"]: must be an object, not an integer"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n  caps: {gpu/h100: -1}\n",
         "p.yaml:7:20: tenants[0].caps[\"gpu/h100\"]: a count of devices must be from 0 to "
         "1000000000"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n  caps: {gpu/h100: lots}\n",
         "p.yaml:7:20: tenants[0].caps[\"gpu/h100\"]: must be a count of devices, a percent of "
         "the tier's devices (\"50%\") or fair, not \"lots\""},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n  caps: {gpu/h100: 1.5}\n",
         "p.yaml:7:20: tenants[0].caps[\"gpu/h100\"]: must be a count of devices, a percent of "
         "the tier's devices (\"50%\") or fair, not a number"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n  caps: {gpu/h100: 1, gpu/h100: 2}\n",
         "p.yaml:7:23: tenants[0].caps: cap \"gpu/h100\" given twice (first at line 7)"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n  caps: {gpu/h100: }\n",
         "p.yaml:7:20: tenants[0].caps[\"gpu/h100\"]: must be a count of devices, a percent of "
         "the tier's devices (\"50%\") or fair"},
        {HEAD "tenants:\n- namespaces: [a]\n", "p.yaml:5:3: tenants[0]: name: required value"},
        {HEAD "tenants:\n- name: A\n  namespaces: [a]\n",
         "p.yaml:5:9: tenants[0].name: \"A\" must be a lowercase RFC 1123 label (at most 63 "
         "characters: 'a'-'z', '0'-'9' and '-', starting and ending with a letter or digit)"},
        {HEAD "tenants:\n- name: a\n", "p.yaml:5:3: tenants[0]: a tenant needs namespaces or "
                                       "podLabel"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n  podLabel: {key: k, value: v}\n",
         "p.yaml:7:3: tenants[0]: namespaces and podLabel: give one, not both"},
        {HEAD "tenants:\n- name: a\n  namespaces: []\n",
         "p.yaml:6:15: tenants[0].namespaces: must name at least one namespace"},
        {HEAD "tenants:\n- name: a\n  namespaces: a\n",
         "p.yaml:6:15: tenants[0].namespaces: must be a list of namespaces, not a string"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a, b, a]\n",
         "p.yaml:6:22: tenants[0].namespaces[2]: namespace a given twice"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n- name: b\n  namespaces: [b, a]\n",
         "p.yaml:8:19: tenants[1].namespaces[1]: namespace a is tenant a's already"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n- name: a\n  namespaces: [b]\n",
         "p.yaml:7:3: tenants[1]: tenant a given twice (tenants[0])"},
        {HEAD "tenants:\n- name: a\n  podLabel: {key: k}\n",
         "p.yaml:6:13: tenants[0].podLabel: value: required value"},
        {HEAD "tenants:\n- name: a\n  podLabel: {key: -k, value: v}\n",
         "p.yaml:6:19: tenants[0].podLabel.key: \"-k\" must be a qualified name (an optional "
         "DNS subdomain prefix and '/', then at most 63 characters: letters, digits, '-', '_' "
         "and '.', starting and ending with a letter or digit)"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n  weight: 0\n",
         "p.yaml:7:11: tenants[0].weight: must be an integer from 1 to 1000000"},
        {HEAD "tenants:\n- name: a\n  namespaces: [a]\n  weight: 1000001\n",
         "p.yaml:7:11: tenants[0].weight: must be an integer from 1 to 1000000"},
        {HEAD "tenants: {a: 1}\n", "p.yaml:4:10: tenants: must be a list of tenants, not an "
                                   "object"},
        {HEAD "defaultTenant:\n  namespaces: [x]\n",
         "p.yaml:5:3: defaultTenant: the default tenant is every pod no tenant matches: no "
         "namespaces"},
        {HEAD "tenants:\n- name: default\n  namespaces: [a]\n",
         "p.yaml: tenants[0] is named default, the default tenant's name: name the default "
         "tenant otherwise (defaultTenant: {name: ...})"},
        {HEAD "tenants:\n- name: x\n  namespaces: [a]\ndefaultTenant: {name: x}\n",
         "p.yaml:7:16: defaultTenant: the default tenant's name x is tenants[0]'s: give it "
         "another (defaultTenant.name)"},
        {HEAD "metadata: {name: Bad_Name}\n",
         "p.yaml:4:18: metadata.name: \"Bad_Name\" must be a lowercase RFC 1123 subdomain "
         "(at most 253 characters: 'a'-'z', '0'-'9', '-' and '.', each dot-separated part "
         "starting and ending with a letter or digit)"},
        {HEAD "metadata: {labels: {a: 1}}\n",
         "p.yaml:4:24: metadata.labels[\"a\"]: must be a string, not an integer"},
        {HEAD "---\n" HEAD,
         "p.yaml:5:1: one TierPolicy object a file (a second document starts here)"},
        {"- 1\n", "p.yaml:1:1: a TierPolicy is an object, not a list"},
        /* the loader's syntax errors, at their column */
        {HEAD "tenants: [\n", "p.yaml:5:1: YAML syntax error: did not find expected node "
                              "content (while parsing a flow node at line 5)"},
        {HEAD "mode: a: b\n", "p.yaml:4:8: YAML syntax error: mapping values are not allowed "
                              "in this context"},
        {"{\"apiVersion\": \"dracel.dev/v1alpha1\",\n \"kind\" \"TierPolicy\"}",
         "p.yaml:2:9: JSON syntax error: expected ':' after an object key"},
        {"{\"apiVersion\": \"dracel.dev/v1alpha1\", \"kind\": \"TierPolicy\", \"version\": "
         "\"v\",\n \"mode\": \"x\"}",
         "p.yaml:2:10: mode: must be enforce, shadow or off, not \"x\""},
        {"{\"apiVersion\": \"dracel.dev/v1alpha1\", \"kind\": \"TierPolicy\", \"version\": "
         "\"v\",\n \"tenants\": [{\"name\": \"a\", \"namespaces\": [\"a\"], \"capz\": {}}]}",
         "p.yaml:2:50: tenants[0]: unknown field \"capz\""},
        /* columns count code points */
        {"# \xc3\xa9\xc3\xa9\n" HEAD "mode: \xc3\xa9t\xc3\xa9\n",
         "p.yaml:5:7: mode: must be enforce, shadow or off, not \"\xc3\xa9t\xc3\xa9\""},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dracel_tierpolicy *p = NULL;
        err[0] = '\0';
        dracel_status st = dracel_tierpolicy_load_buffer(NULL, "p.yaml", cases[i].text,
                                                         strlen(cases[i].text), &p, err,
                                                         sizeof err);
        if (st != DRACEL_EINPUT || strcmp(err, cases[i].want) != 0) {
            print_error("case %zu: status %d\n  got:  %s\n  want: %s\n", i, st, err,
                        cases[i].want);
            bad++;
        }
        assert_null(p);
    }
    assert_int_equal(bad, 0);
    /* an unreadable path; a directory */
    dracel_tierpolicy *p = NULL;
    assert_int_equal(dracel_tierpolicy_load(NULL, DATA "missing.yaml", &p, err, sizeof err),
                     DRACEL_EINVAL);
    assert_string_equal(err, DATA "missing.yaml: No such file or directory");
    assert_int_equal(dracel_tierpolicy_load(NULL, DATA, &p, err, sizeof err), DRACEL_EINVAL);
    assert_string_equal(err, DATA ": Is a directory");
    assert_int_equal(dracel_tierpolicy_load(NULL, NULL, &p, err, sizeof err), DRACEL_EINVAL);
    assert_int_equal(dracel_tierpolicy_load_buffer(NULL, "x", NULL, 3, &p, err, sizeof err),
                     DRACEL_EINVAL);
    /* `mode: off` is YAML 1.1's false: read as the mode off */
    p = load_text(HEAD "mode: off\n");
    assert_int_equal(dracel_tierpolicy_mode(p), DRACEL_TIER_OFF);
    dracel_tierpolicy_free(p);
    p = load_text(HEAD "mode: \"off\"\n");
    assert_int_equal(dracel_tierpolicy_mode(p), DRACEL_TIER_OFF);
    dracel_tierpolicy_free(p);
    /* an unquoted number is a version too, as written */
    p = load_text("apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nversion: 2026.10\n");
    assert_string_equal(dracel_tierpolicy_version(p), "2026.10");
    dracel_tierpolicy_free(p);
}

/* The fixed limits: one past each is rejected, each one at the limit is read. */
static void test_limits(void **state)
{
    (void)state;
    size_t cap = 4u << 20;
    char *buf = malloc(cap);
    assert_non_null(buf);
    /* tenants */
    for (int over = 0; over < 2; over++) {
        size_t n = (size_t)snprintf(buf, cap, HEAD "tenants:\n");
        for (unsigned i = 0; i < DRACEL_TIERPOLICY_MAX_TENANTS + (unsigned)over; i++)
            n += (size_t)snprintf(buf + n, cap - n, "- {name: t%u, namespaces: [n%u]}\n", i, i);
        dracel_tierpolicy *p = NULL;
        dracel_status st = dracel_tierpolicy_load_buffer(NULL, "p.yaml", buf, n, &p, err,
                                                         sizeof err);
        if (over) {
            assert_int_equal(st, DRACEL_EINPUT);
            assert_string_equal(err, "p.yaml:5:1: tenants: more than 1000 tenants");
        } else {
            assert_int_equal(st, DRACEL_OK);
            size_t ns[1] = {0};
            (void)ns;
            assert_int_equal(dracel_tierpolicy_tenants(p), 1000);
            assert_int_equal(dracel_tierpolicy_tenant_of(p, "n999", NULL, 0), 999);
            assert_int_equal(dracel_tierpolicy_tenant_of(p, "n1000", NULL, 0), 1000);
            dracel_tierpolicy_free(p);
        }
    }
    /* keys: per map, and distinct over the file */
    for (int over = 0; over < 2; over++) {
        size_t n = (size_t)snprintf(buf, cap, HEAD "tenants:\n- name: a\n  namespaces: [a]\n"
                                              "  caps:\n");
        for (unsigned i = 0; i < DRACEL_TIERPOLICY_MAX_KEYS + (unsigned)over; i++)
            n += (size_t)snprintf(buf + n, cap - n, "    k%u: 1\n", i);
        dracel_tierpolicy *p = NULL;
        dracel_status st = dracel_tierpolicy_load_buffer(NULL, "p.yaml", buf, n, &p, err,
                                                         sizeof err);
        assert_int_equal(st, over ? DRACEL_EINPUT : DRACEL_OK);
        if (over)
            assert_string_equal(err, "p.yaml:8:5: tenants[0].caps: more than 256 caps");
        else
            assert_int_equal(dracel_tierpolicy_keys(p), 256);
        dracel_tierpolicy_free(p);
    }
    {
        size_t n = (size_t)snprintf(buf, cap, HEAD "tiers:\n");
        for (unsigned i = 0; i < 200; i++)
            n += (size_t)snprintf(buf + n, cap - n, "  t%u: {idleReserve: 1}\n", i);
        n += (size_t)snprintf(buf + n, cap - n, "tenants:\n- name: a\n  namespaces: [a]\n"
                                                "  caps:\n");
        for (unsigned i = 0; i < 100; i++)
            n += (size_t)snprintf(buf + n, cap - n, "    c%u: 1\n", i);
        dracel_tierpolicy *p = NULL;
        assert_int_equal(dracel_tierpolicy_load_buffer(NULL, "p.yaml", buf, n, &p, err,
                                                       sizeof err), DRACEL_EINPUT);
        assert_string_equal(err, "p.yaml: 300 tiers named, more than 256");
    }
    /* namespaces of one tenant */
    for (int over = 0; over < 2; over++) {
        size_t n = (size_t)snprintf(buf, cap, HEAD "tenants:\n- name: a\n  namespaces:\n");
        for (unsigned i = 0; i < DRACEL_TIERPOLICY_MAX_NAMESPACES + (unsigned)over; i++)
            n += (size_t)snprintf(buf + n, cap - n, "  - n%u\n", i);
        dracel_tierpolicy *p = NULL;
        dracel_status st = dracel_tierpolicy_load_buffer(NULL, "p.yaml", buf, n, &p, err,
                                                         sizeof err);
        assert_int_equal(st, over ? DRACEL_EINPUT : DRACEL_OK);
        if (over)
            assert_string_equal(err, "p.yaml:7:3: tenants[0].namespaces: more than 10000 "
                                     "namespaces");
        else
            assert_int_equal(dracel_tierpolicy_tenant_of(p, "n9999", NULL, 0), 0);
        dracel_tierpolicy_free(p);
    }
    /* the file's size: a comment makes it one byte too long */
    {
        size_t n = (size_t)snprintf(buf, cap, HEAD "#");
        memset(buf + n, 'x', DRACEL_TIERPOLICY_MAX_BYTES - n);
        n = DRACEL_TIERPOLICY_MAX_BYTES;
        buf[n - 1] = '\n'; /* a policy ends with a line break (a file cut short does not) */
        dracel_tierpolicy *p = NULL;
        assert_int_equal(dracel_tierpolicy_load_buffer(NULL, "p.yaml", buf, n, &p, err,
                                                       sizeof err), DRACEL_OK);
        dracel_tierpolicy_free(p);
        buf[n - 1] = 'x';
        buf[n++] = '\n';
        assert_int_equal(dracel_tierpolicy_load_buffer(NULL, "p.yaml", buf, n, &p, err,
                                                       sizeof err), DRACEL_EINPUT);
        assert_string_equal(err, "p.yaml: 1048577 bytes, more than the 1048576 a policy may "
                                 "have");
        FILE *f = fopen("/tmp/dracel-tierpolicy-big.yaml", "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(buf, 1, n, f), n);
        fclose(f);
        assert_int_equal(dracel_tierpolicy_load(NULL, "/tmp/dracel-tierpolicy-big.yaml", &p,
                                                err, sizeof err), DRACEL_EINPUT);
        assert_string_equal(err, "/tmp/dracel-tierpolicy-big.yaml: 1048577 bytes, more than "
                                 "the 1048576 a policy may have");
        remove("/tmp/dracel-tierpolicy-big.yaml");
    }
    free(buf);
}

static void test_tenant_of(void **state)
{
    (void)state;
    dracel_tierpolicy *p = load_text(HEAD "tenants:\n"
                                          "- {name: gold, podLabel: {key: tier, value: gold}}\n"
                                          "- {name: a, namespaces: [ns-a, shared]}\n"
                                          "- {name: lab, podLabel: {key: team, value: lab}}\n"
                                          "- {name: b, namespaces: [ns-b]}\n");
    dracel_label gold = {"tier", "gold"}, lab[] = {{"x", "y"}, {"team", "lab"}};
    dracel_label wrong[] = {{"tier", "silver"}, {"team", "lab2"}};
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "ns-a", NULL, 0), 1);
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "shared", NULL, 0), 1);
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "ns-b", NULL, 0), 3);
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "other", NULL, 0), 4);
    assert_int_equal(dracel_tierpolicy_tenant_of(p, NULL, NULL, 0), 4);
    /* the first tenant of the file wins: gold (a label) before a; a before lab */
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "ns-a", &gold, 1), 0);
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "ns-a", lab, 2), 1);
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "ns-b", lab, 2), 2);
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "other", lab, 2), 2);
    assert_int_equal(dracel_tierpolicy_tenant_of(p, "other", wrong, 2), 4);
    assert_int_equal(dracel_tierpolicy_tenant_of(NULL, "ns-a", NULL, 0), 0);
    /* why the default tenant: a namespace no tenant names, or a tenant label's key with a value
     * no tenant has (the first such label: wrong[0], tier=silver) */
    size_t at = 99;
    assert_int_equal(dracel_tierpolicy_default_why(p, "ns-a", NULL, 0, &at), DRACEL_TIER_DEFAULT_NOT);
    assert_int_equal(dracel_tierpolicy_default_why(p, "other", lab, 2, &at), DRACEL_TIER_DEFAULT_NOT);
    assert_int_equal(dracel_tierpolicy_default_why(p, "other", NULL, 0, &at),
                     DRACEL_TIER_DEFAULT_NAMESPACE);
    assert_int_equal(dracel_tierpolicy_default_why(p, "other", lab, 1, &at),
                     DRACEL_TIER_DEFAULT_NAMESPACE); /* x=y: no tenant's key */
    assert_int_equal(at, 99);
    assert_int_equal(dracel_tierpolicy_default_why(p, "other", wrong, 2, &at),
                     DRACEL_TIER_DEFAULT_LABEL);
    assert_int_equal(at, 0);
    assert_int_equal(dracel_tierpolicy_default_why(p, "other", wrong + 1, 1, NULL),
                     DRACEL_TIER_DEFAULT_LABEL);
    assert_int_equal(dracel_tierpolicy_default_why(p, "ns-b", wrong, 2, &at), DRACEL_TIER_DEFAULT_NOT);
    assert_int_equal(dracel_tierpolicy_default_why(NULL, "ns-a", NULL, 0, &at), DRACEL_TIER_DEFAULT_NOT);
    dracel_tierpolicy_free(p);
}

static void test_ledger(void **state)
{
    (void)state;
    dracel_tierpolicy *p = load_text(HEAD "tenants:\n- {name: a, namespaces: [a], caps: {x: 1, "
                                          "z: 2}}\n- {name: b, namespaces: [b]}\n");
    dracel_tierusage *u = NULL;
    assert_int_equal(dracel_tierusage_new(p, &u), DRACEL_OK);
    assert_ptr_equal(dracel_tierusage_policy(u), p);
    size_t x = key(p, "x"), y = key(p, "z");
    assert_int_equal(dracel_tierusage_add(u, 0, x, 3), DRACEL_OK);
    assert_int_equal(dracel_tierusage_add(u, 1, x, 2), DRACEL_OK);
    assert_int_equal(dracel_tierusage_add(u, 2, y, 5), DRACEL_OK); /* the default tenant */
    assert_int_equal(dracel_tierusage_used(u, 0, x), 3);
    assert_int_equal(dracel_tierusage_used(u, 1, x), 2);
    assert_int_equal(dracel_tierusage_used(u, 2, y), 5);
    assert_int_equal(dracel_tierusage_total(u, x), 5);
    assert_int_equal(dracel_tierusage_total(u, y), 5);
    assert_int_equal(dracel_tierusage_add(u, 0, x, -3), DRACEL_OK);
    assert_int_equal(dracel_tierusage_used(u, 0, x), 0);
    assert_int_equal(dracel_tierusage_total(u, x), 2);
    /* below zero, out of range, overflow: refused, the ledger unchanged */
    assert_int_equal(dracel_tierusage_add(u, 1, x, -3), DRACEL_EINVAL);
    assert_int_equal(dracel_tierusage_add(u, 1, x, INT64_MIN), DRACEL_EINVAL);
    assert_int_equal(dracel_tierusage_add(u, 3, x, 1), DRACEL_EINVAL);
    assert_int_equal(dracel_tierusage_add(u, 0, 2, 1), DRACEL_EINVAL);
    assert_int_equal(dracel_tierusage_add(u, 0, x, INT64_MAX), DRACEL_OK);
    assert_int_equal(dracel_tierusage_add(u, 0, x, INT64_MAX), DRACEL_EINVAL);
    assert_int_equal(dracel_tierusage_add(u, 0, x, INT64_MAX - 1), DRACEL_OK);
    assert_true(dracel_tierusage_total(u, x) == UINT64_MAX);
    assert_int_equal(dracel_tierusage_add(u, 1, x, 1), DRACEL_EINVAL);
    assert_int_equal(dracel_tierusage_used(u, 1, x), 2);
    assert_int_equal(dracel_tierusage_used(u, 9, x), 0);
    dracel_tierusage_clear(u);
    assert_int_equal(dracel_tierusage_used(u, 0, x), 0);
    assert_int_equal(dracel_tierusage_total(u, x), 0);
    assert_int_equal(dracel_tierusage_used(u, 2, y), 0);
    dracel_tierusage_free(u);
    dracel_tierusage_free(NULL);
    dracel_tierpolicy_free(p);
}

static dracel_tier_check check(const dracel_tierpolicy *p, const dracel_tierusage *u, size_t t,
                               size_t k, uint64_t n, uint64_t size, uint64_t free_devices)
{
    dracel_tier_check c;
    assert_int_equal(dracel_tierpolicy_check(p, u, t, k, n, size, free_devices, &c), DRACEL_OK);
    return c;
}

/* Caps, borrowing and reclaim, with the reasons. */
static void test_check(void **state)
{
    (void)state;
    dracel_tierpolicy *p = load_text(HEAD "idleReserve: 2\n"
                                          "tenants:\n"
                                          "- {name: team-a, namespaces: [a], caps: {gpu/h100: 2}}\n"
                                          "- {name: team-b, namespaces: [b], caps: {gpu/h100: 25%}}\n"
                                          "- {name: free, namespaces: [f]}\n");
    dracel_tierusage *u = NULL;
    assert_int_equal(dracel_tierusage_new(p, &u), DRACEL_OK);
    size_t h = key(p, "gpu/h100");
    /* within the cap, down to zero free */
    dracel_tier_check c = check(p, u, 0, h, 1, 8, 1);
    assert_true(c.allowed && c.capped && !c.borrowing && !c.reject);
    assert_string_equal(c.reason, "tenant team-a at 0/2 gpu/h100");
    assert_int_equal(c.cap, 2);
    assert_int_equal(c.reserve, 2);
    assert_int_equal(c.used, 0);
    assert_int_equal(dracel_tierusage_add(u, 0, h, 2), DRACEL_OK);
    /* at the cap: borrows while the free devices after it keep the reserve */
    c = check(p, u, 0, h, 1, 8, 3);
    assert_true(c.allowed && c.borrowing && !c.reject);
    assert_string_equal(c.reason, "tenant team-a at 2/2 gpu/h100 borrows (3 free, idle reserve 2)");
    c = check(p, u, 0, h, 1, 8, 2);
    assert_true(!c.allowed && !c.borrowing && c.reject);
    assert_string_equal(c.reason, "tenant team-a at 2/2 gpu/h100 (2 free, idle reserve 2)");
    c = check(p, u, 0, h, 2, 8, 4);
    assert_true(c.allowed && c.borrowing);
    c = check(p, u, 0, h, 2, 8, 3);
    assert_false(c.allowed);
    assert_string_equal(c.reason,
                        "tenant team-a at 2/2 gpu/h100, needs 2 (3 free, idle reserve 2)");
    c = check(p, u, 0, h, 5, 8, 1);
    assert_false(c.allowed);
    /* borrowers lose access first: at 2 free, team-b (under its cap of 25% of 8) still gets
     * one, team-a (at its cap) does not */
    c = check(p, u, 1, h, 1, 8, 2);
    assert_true(c.allowed && !c.borrowing);
    assert_int_equal(c.cap, 2);
    assert_string_equal(c.reason, "tenant team-b at 0/2 gpu/h100");
    c = check(p, u, 1, h, 2, 8, 2);
    assert_true(c.allowed && !c.borrowing);
    c = check(p, u, 1, h, 3, 8, 2);
    assert_false(c.allowed);
    /* no cap: always, never borrowing; the default tenant likewise */
    c = check(p, u, 2, h, 100, 8, 0);
    assert_true(c.allowed && !c.capped && !c.borrowing);
    assert_int_equal(c.cap, DRACEL_TIER_NO_CAP);
    assert_string_equal(c.reason, "tenant free has no cap on gpu/h100");
    c = check(p, u, 3, h, 1, 8, 0);
    assert_true(c.allowed && !c.capped);
    assert_string_equal(c.reason, "tenant default has no cap on gpu/h100");
    /* n = 0 always fits */
    c = check(p, u, 0, h, 0, 8, 0);
    assert_true(c.allowed && !c.borrowing);
    /* bad arguments */
    dracel_tierusage *other = NULL;
    dracel_tierpolicy *q = load_text(HEAD);
    assert_int_equal(dracel_tierusage_new(q, &other), DRACEL_OK);
    assert_int_equal(dracel_tierpolicy_check(p, other, 0, h, 1, 8, 8, &c), DRACEL_EINVAL);
    assert_int_equal(dracel_tierpolicy_check(p, u, 4, h, 1, 8, 8, &c), DRACEL_EINVAL);
    assert_int_equal(dracel_tierpolicy_check(p, u, 0, 1, 1, 8, 8, &c), DRACEL_EINVAL);
    assert_int_equal(dracel_tierpolicy_check(p, u, 0, h, 1, 8, 8, (dracel_tier_check *)NULL),
                     DRACEL_EINVAL);
    dracel_tierusage_free(other);
    dracel_tierpolicy_free(q);
    dracel_tierusage_free(u);
    dracel_tierpolicy_free(p);
    /* shadow and off: the same answers, never a rejection */
    static const char *const modes[] = {"shadow", "off"};
    for (int m = 0; m < 2; m++) {
        char text[512];
        snprintf(text, sizeof text, HEAD "mode: %s\ntenants:\n- {name: a, namespaces: [a], "
                 "caps: {g: 0}}\n", modes[m]);
        p = load_text(text);
        assert_int_equal(dracel_tierusage_new(p, &u), DRACEL_OK);
        c = check(p, u, 0, 0, 1, 4, 0);
        assert_true(!c.allowed && !c.reject);
        assert_string_equal(c.reason, "tenant a at 0/0 g (0 free, idle reserve 0)");
        dracel_tierusage_free(u);
        dracel_tierpolicy_free(p);
    }
}

/* A tenant's own mode: its rejections, its info, the hash of what decides. */
static void test_tenant_mode(void **state)
{
    (void)state;
    dracel_tierpolicy *p = load_text(HEAD "mode: shadow\ntenants:\n"
                                          "- {name: a, namespaces: [a], mode: enforce, caps: {g: 0}}\n"
                                          "- {name: b, namespaces: [b], caps: {g: 0}}\n"
                                          "defaultTenant: {mode: off, caps: {g: 0}}\n");
    dracel_tenant_info ti;
    assert_int_equal(dracel_tierpolicy_tenant(p, 0, &ti), DRACEL_OK);
    assert_int_equal(ti.mode, DRACEL_TIER_ENFORCE);
    assert_int_equal(dracel_tierpolicy_tenant(p, 1, &ti), DRACEL_OK);
    assert_int_equal(ti.mode, DRACEL_TIER_SHADOW);
    assert_int_equal(dracel_tierpolicy_tenant(p, 2, &ti), DRACEL_OK);
    assert_int_equal(ti.mode, DRACEL_TIER_OFF);
    assert_int_equal(dracel_tierpolicy_mode(p), DRACEL_TIER_SHADOW);
    dracel_tierusage *u = NULL;
    assert_int_equal(dracel_tierusage_new(p, &u), DRACEL_OK);
    for (size_t t = 0; t < 3; t++) {
        dracel_tier_check c = check(p, u, t, 0, 1, 4, 0);
        assert_false(c.allowed);
        assert_int_equal(c.reject, t == 0);
    }
    dracel_tierusage_free(u);
    dracel_tierpolicy_free(p);
    /* every tenant in enforce mode decides as a policy in enforce mode */
    dracel_tierpolicy *a = load_text(HEAD "mode: enforce\ntenants:\n- {name: a, namespaces: [a]}\n");
    dracel_tierpolicy *b = load_text(HEAD "mode: shadow\ntenants:\n- {name: a, namespaces: [a], "
                                          "mode: enforce}\ndefaultTenant: {mode: enforce}\n");
    dracel_tierpolicy *c = load_text(HEAD "mode: shadow\ntenants:\n- {name: a, namespaces: [a], "
                                          "mode: enforce}\n");
    assert_true(dracel_tierpolicy_hash(a) == dracel_tierpolicy_hash(b));
    assert_true(dracel_tierpolicy_hash(a) != dracel_tierpolicy_hash(c));
    dracel_tierpolicy_free(a);
    dracel_tierpolicy_free(b);
    dracel_tierpolicy_free(c);
    err[0] = '\0';
    assert_int_equal(dracel_tierpolicy_load_buffer(NULL, "p.yaml", HEAD "tenants:\n- {name: a, "
                                                   "namespaces: [a], mode: strict}\n", strlen(HEAD) + 52,
                                                   &a, err, sizeof err), DRACEL_EINPUT);
    assert_string_equal(err, "p.yaml:5:36: tenants[0].mode: must be enforce, shadow or off, not "
                             "\"strict\"");
}

/* Fair shares follow the weights of the tenants capped on the key. */
static void test_fair(void **state)
{
    (void)state;
    dracel_tierpolicy *p = load_text(HEAD "tenants:\n"
                                          "- {name: a, namespaces: [a], weight: 3, caps: {g: fair}}\n"
                                          "- {name: b, namespaces: [b], weight: 1, caps: {g: fair, "
                                          "h: fair}}\n"
                                          "- {name: c, namespaces: [c], weight: 4}\n"
                                          "defaultTenant: {weight: 2, caps: {h: fair}}\n");
    size_t g = key(p, "g"), h = key(p, "h");
    assert_int_equal(dracel_tierpolicy_cap(p, 0, g, 16), 12);
    assert_int_equal(dracel_tierpolicy_cap(p, 1, g, 16), 4);
    assert_int_equal(dracel_tierpolicy_cap(p, 1, g, 3), 0);
    assert_int_equal(dracel_tierpolicy_cap(p, 2, g, 16), DRACEL_TIER_NO_CAP);
    assert_int_equal(dracel_tierpolicy_cap(p, 1, h, 9), 3);
    assert_int_equal(dracel_tierpolicy_cap(p, 3, h, 9), 6);
    assert_int_equal(dracel_tierpolicy_cap(p, 3, h, 10), 6);
    /* no overflow for large sizes */
    assert_int_equal(dracel_tierpolicy_cap(p, 0, g, UINT64_MAX), UINT64_MAX / 4 * 3 + 2);
    dracel_tierpolicy_free(p);
    p = load_text(HEAD "idleReserve: 100%\ntenants:\n- {name: a, namespaces: [a], caps: {g: "
                       "100%}}\n");
    assert_int_equal(dracel_tierpolicy_cap(p, 0, 0, UINT64_MAX), UINT64_MAX);
    assert_int_equal(dracel_tierpolicy_reserve(p, 0, UINT64_MAX), UINT64_MAX);
    assert_int_equal(dracel_tierpolicy_reserve(p, 0, 7), 7);
    dracel_tierpolicy_free(p);
}

/* The sample (examples/): a run's results and a snapshot's claim counted toward the keys, and
 * the size of a key over the fleet. */
static void test_takes(void **state)
{
    (void)state;
    dracel_objects *o = NULL;
    dracel_table *t = NULL;
    dracel_policy *pl = NULL;
    dracel_run *r = NULL;
    assert_int_equal(dracel_objects_new(NULL, &o), DRACEL_OK);
    assert_int_equal(dracel_objects_load(o, "examples/claims/gpu-tiered.yaml", DRACEL_OBJ_CLAIM,
                                         err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_objects_load(o, "examples/classes", DRACEL_OBJ_CLASS, err,
                                         sizeof err), DRACEL_OK);
    assert_int_equal(dracel_table_load(NULL, "examples/fleet", &t, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_policy_new(NULL, t, o, o, NULL, 0, &pl, err, sizeof err), DRACEL_OK);
    assert_int_equal(dracel_run_new(pl, &r), DRACEL_OK);
    dracel_tierpolicy *p = load_text(HEAD "tenants:\n- {name: a, namespaces: [a], caps: "
                                          "{gpu/h100: 1, gpu/a100: 1, gpu.example.com: 2, gpu/l4: "
                                          "1}}\n");
    size_t h = key(p, "gpu/h100"), a = key(p, "gpu/a100"), cls = key(p, "gpu.example.com");
    size_t k[2];
    assert_int_equal(dracel_tierpolicy_keys_of(p, "gpu/h100", "gpu.example.com", k), 2);
    assert_int_equal(k[0], h);
    assert_int_equal(k[1], cls);
    assert_int_equal(dracel_tierpolicy_keys_of(p, "gpu/any", "gpu.example.com", k), 1);
    assert_int_equal(k[0], cls);
    assert_int_equal(dracel_tierpolicy_keys_of(p, "gpu", NULL, k), 0);
    /* node-h100-a: an H100 */
    dracel_node n = {"node-h100-a", NULL, 0};
    assert_int_equal(dracel_allocate(r, &n, NULL), DRACEL_OK);
    dracel_tier_take tk[4];
    assert_int_equal(dracel_tierpolicy_run_takes(p, pl, r, tk, 4), 2);
    assert_int_equal(tk[0].key, cls);
    assert_int_equal(tk[0].devices, 1);
    assert_int_equal(tk[1].key, h);
    assert_int_equal(tk[1].devices, 1);
    assert_int_equal(dracel_tierpolicy_run_takes(p, pl, r, tk, 1), 2);
    assert_int_equal(tk[0].key, cls);
    assert_int_equal(dracel_tierpolicy_run_takes(p, pl, r, NULL, 0), 2);
    /* node-a100-40: an A100 of 40Gi */
    n.name = "node-a100-40";
    assert_int_equal(dracel_allocate(r, &n, NULL), DRACEL_OK);
    assert_int_equal(dracel_tierpolicy_run_takes(p, pl, r, tk, 4), 2);
    assert_int_equal(tk[0].key, cls);
    assert_int_equal(tk[1].key, a);
    /* an unschedulable node counts toward nothing */
    n.name = "node-none";
    assert_int_equal(dracel_allocate(r, &n, NULL), DRACEL_OK);
    assert_int_equal(dracel_tierpolicy_run_takes(p, pl, r, tk, 4), 0);
    /* sizes over the whole fleet: the H100s of complete pools (the tainted one too), every
     * GPU of a complete pool; in use, per the usage */
    uint64_t size, fr;
    assert_int_equal(dracel_tierpolicy_key_size(p, pl, h, NULL, &size, &fr), DRACEL_OK);
    assert_int_equal(size, 5);
    assert_int_equal(fr, 5);
    dracel_device_id used[] = {{"gpu.example.com", "node-h100-a", "gpu-0"},
                               {"gpu.example.com", "node-a100-40", "gpu-1"}};
    dracel_usage *us = NULL;
    assert_int_equal(dracel_usage_new(t, used, 2, &us), DRACEL_OK);
    assert_int_equal(dracel_tierpolicy_key_size(p, pl, h, us, &size, &fr), DRACEL_OK);
    assert_int_equal(size, 5);
    assert_int_equal(fr, 4);
    assert_int_equal(dracel_tierpolicy_key_size(p, pl, cls, us, &size, &fr), DRACEL_OK);
    assert_int_equal(size, 11);
    assert_int_equal(fr, 9);
    assert_int_equal(dracel_tierpolicy_key_size(p, pl, key(p, "gpu/l4"), us, &size, &fr),
                     DRACEL_EINPUT);
    assert_int_equal(size, 0);
    /* the same through the placement API */
    uint32_t count = 0;
    size_t words = (dracel_table_rows(t) + 63) / 64;
    uint64_t bits[4] = {0};
    assert_true(words <= 4);
    assert_int_equal(dracel_policy_tier_candidates(pl, 0, false, bits, words, &count), DRACEL_OK);
    assert_int_equal(count, 5);
    assert_int_equal(dracel_usage_count(us, bits, words), 1);
    assert_int_equal(dracel_usage_count(us, bits, 0), 0);
    assert_int_equal(dracel_policy_tier_candidates(pl, 0, true, NULL, 0, &count), DRACEL_OK);
    assert_int_equal(count, 11);
    assert_int_equal(dracel_policy_tier_candidates(pl, 1, false, NULL, 0, &count), DRACEL_OK);
    assert_int_equal(count, 4); /* the A100s of 40Gi and more in complete pools (one is on
                                   node-tainted, beside its tainted H100) */
    assert_int_equal(dracel_policy_tier_candidates(pl, 9, false, NULL, 0, &count),
                     DRACEL_EINVAL);
    assert_int_equal(dracel_policy_tier_candidates(pl, 0, false, bits, 0, &count),
                     DRACEL_EINVAL);
    /* usable now: node-tainted's H100 (NoSchedule, not tolerated) is in neither the size nor
     * the free devices with DRADeviceTaints on (the defaults); with it off, it counts again */
    assert_int_equal(dracel_policy_tier_usable(pl, 0, false, NULL, bits, words, &count),
                     DRACEL_OK);
    assert_int_equal(count, 4);
    assert_int_equal(dracel_policy_tier_usable(pl, 0, true, NULL, NULL, 0, &count), DRACEL_OK);
    assert_int_equal(count, 10);
    assert_int_equal(dracel_tierpolicy_key_usable(p, pl, h, NULL, &size, &fr), DRACEL_OK);
    assert_int_equal(size, 4);
    assert_int_equal(fr, 4);
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    ao.in_use = us;
    assert_int_equal(dracel_tierpolicy_key_usable(p, pl, h, &ao, &size, &fr), DRACEL_OK);
    assert_int_equal(size, 4);
    assert_int_equal(fr, 3);
    assert_int_equal(dracel_tierpolicy_key_usable(p, pl, cls, &ao, &size, &fr), DRACEL_OK);
    assert_int_equal(size, 10);
    assert_int_equal(fr, 8);
    ao.features &= ~(unsigned)DRACEL_FEATURE_DEVICE_TAINTS;
    assert_int_equal(dracel_tierpolicy_key_usable(p, pl, h, &ao, &size, &fr), DRACEL_OK);
    assert_int_equal(size, 5);
    assert_int_equal(fr, 4);
    assert_int_equal(dracel_policy_tier_usable(pl, 0, false, &ao, NULL, 0, &count), DRACEL_OK);
    assert_int_equal(count, 5);
    ao.kubernetes = 33;
    assert_int_equal(dracel_policy_tier_usable(pl, 0, false, &ao, NULL, 0, &count),
                     DRACEL_EINVAL);
    dracel_usage_free(us);
    dracel_run_free(r);
    dracel_policy_free(pl);
    dracel_table_free(t);
    dracel_objects_free(o);

    /* a snapshot's allocated claim: request gpu/a100, its class from the claim's spec */
    dracel_cluster *c = NULL;
    assert_int_equal(dracel_cluster_new(NULL, &c), DRACEL_OK);
    static const char claim[] =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c1, namespace: "
        "a}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      firstAvailable:\n      - "
        "{name: h100, deviceClassName: gpu.example.com}\n      - {name: a100, deviceClassName: "
        "gpu.example.com}\n    - name: nic\n      exactly: {deviceClassName: nic.example.com}\n"
        "status:\n  allocation:\n    devices:\n      results:\n      - {request: gpu/a100, "
        "driver: gpu.example.com, pool: p, device: d0}\n      - {request: gpu/a100, driver: "
        "gpu.example.com, pool: p, device: d1}\n      - {request: gpu/a100, driver: "
        "gpu.example.com, pool: p, device: d2, adminAccess: true}\n      - {request: nic, "
        "driver: nic.example.com, pool: p, device: n0}\n";
    assert_int_equal(dracel_cluster_apply(c, "t", claim, strlen(claim), DRACEL_OBJ_CLAIM, err,
                                          sizeof err), DRACEL_OK);
    dracel_snapshot *s = NULL;
    assert_int_equal(dracel_cluster_snapshot(c, &s, err, sizeof err), DRACEL_OK);
    size_t ci;
    assert_int_equal(dracel_snapshot_claim_find(s, "a", "c1", &ci), DRACEL_OK);
    assert_string_equal(dracel_snapshot_claim_device_class(s, ci, "gpu/a100"), "gpu.example.com");
    assert_string_equal(dracel_snapshot_claim_device_class(s, ci, "nic"), "nic.example.com");
    assert_null(dracel_snapshot_claim_device_class(s, ci, "gpu"));
    assert_null(dracel_snapshot_claim_device_class(s, ci, "gpu/t4"));
    assert_null(dracel_snapshot_claim_device_class(s, ci, "nic/x"));
    assert_null(dracel_snapshot_claim_device_class(s, ci, "gp"));
    assert_null(dracel_snapshot_claim_device_class(s, ci + 1, "nic"));
    assert_int_equal(dracel_tierpolicy_claim_takes(p, s, ci, tk, 4), 2);
    assert_int_equal(tk[0].key, cls);
    assert_int_equal(tk[0].devices, 2);
    assert_int_equal(tk[1].key, a);
    assert_int_equal(tk[1].devices, 2);
    assert_int_equal(dracel_tierpolicy_claim_takes(p, s, ci + 1, tk, 4), 0);
    dracel_snapshot_unref(s);
    dracel_cluster_free(c);
    dracel_tierpolicy_free(p);
}

/* Every allocation of a load, a ledger and a check fails in turn: ENOMEM, nothing left, and
 * once every allocation succeeds the same policy. */
static void test_alloc_failures(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp(DATA "full.yaml", &len);
    dracel_tierpolicy *ref = NULL;
    assert_int_equal(dracel_tierpolicy_load_buffer(NULL, "full.yaml", text, len, &ref, err,
                                                   sizeof err), DRACEL_OK);
    long failures = 0;
    for (int path = 0; path < 2; path++)
        for (long at = 1;; at++) {
            fail_alloc fa = {0, at, 0, 0};
            dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
            dracel_config cfg;
            dracel_config_init(&cfg);
            cfg.alloc = &a;
            dracel_tierpolicy *p = NULL;
            dracel_tierusage *u = NULL;
            dracel_status st = path ? dracel_tierpolicy_load(&cfg, DATA "full.yaml", &p, err,
                                                             sizeof err)
                                    : dracel_tierpolicy_load_buffer(&cfg, "full.yaml", text, len,
                                                                    &p, err, sizeof err);
            if (st == DRACEL_OK)
                st = dracel_tierusage_new(p, &u);
            if (st == DRACEL_OK) {
                assert_true(dracel_tierpolicy_hash(p) == dracel_tierpolicy_hash(ref));
                assert_int_equal(dracel_tierusage_add(u, 0, 2, 8), DRACEL_OK);
                dracel_tier_check c;
                assert_int_equal(dracel_tierpolicy_check(p, u, 0, 2, 1, 16, 4, &c), DRACEL_OK);
                assert_true(c.allowed && c.borrowing);
            } else {
                if (st != DRACEL_ENOMEM)
                    fail_msg("allocation %ld: status %d: %s", at, st, err);
                if (!p && !strstr(err, "full.yaml: out of memory"))
                    fail_msg("allocation %ld (%s): %s", at, path ? "path" : "buffer", err);
                failures++;
            }
            dracel_tierusage_free(u);
            dracel_tierpolicy_free(p);
            assert_int_equal(fa.live_blocks, 0);
            assert_int_equal(fa.live_bytes, 0);
            if (st == DRACEL_OK && fa.calls < at)
                break;
        }
    assert_true(failures > 10);
    print_message("      %ld allocation failures injected, each ENOMEM without a leak\n", failures);
    dracel_tierpolicy_free(ref);
    free(text);
}

int main(void)
{
    if (to_sources() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),      cmocka_unit_test(test_hash),
        cmocka_unit_test(test_errors),    cmocka_unit_test(test_limits),
        cmocka_unit_test(test_tenant_of), cmocka_unit_test(test_ledger),
        cmocka_unit_test(test_check),     cmocka_unit_test(test_tenant_mode),
        cmocka_unit_test(test_fair),
        cmocka_unit_test(test_takes),     cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
