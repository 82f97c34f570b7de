/*
 * test_lint.c: the lint's positions inside the CEL text of a YAML or JSON file, for every
 * scalar style (plain on one line and folded over several, single-quoted with '' and folding,
 * double-quoted with escapes and an escaped line break, literal and folded block scalars with
 * indentation indicators, chomping, more-indented and empty lines, JSON strings with escapes
 * and a surrogate pair, a BOM, CRLF line ends, non-ASCII text before the value, a tag and an
 * anchor), through the public API (dracel_lint_*); the set algebra of the facts
 * (src/lint_expr.c); the growable structs; and an allocation-failure sweep over a whole lint.
 *
 * Each case's selector reads device.attributes["d.example.com"].zz without a guard: the
 * unguarded-access finding must be where the text "device" is in the file (the test finds it
 * there itself, counting columns in code points). The rules themselves are pinned by the
 * corpus of tests/lint/ (tests/lint.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dracel.h"
#include "lint.h"
#include "testutil.h"

#define HEAD "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\n" \
             "spec:\n  selectors:\n  - cel:\n"

typedef struct pcase {
    const char *name;
    const char *text;
    const char *marker;     /* where the finding must be: this text's first occurrence after
                               "expression" (default "device") */
} pcase;

static const pcase CASES[] = {
    {"plain", HEAD "      expression: true && device.attributes[\"d.example.com\"].zz == 1\n",
     NULL},
    {"plain folded",
     HEAD "      expression: true &&\n        true &&\n\n        device.attributes[\"d.example.com\"].zz == 1\n",
     NULL},
    {"single-quoted",
     HEAD "      expression: '\"it''s\" != \"x\" &&\n        device.attributes[\"d.example.com\"].zz == 1'\n",
     NULL},
    {"double-quoted",
     HEAD "      expression: \"\\\"\\u00e9\\\" != \\\"x\\\" && \\\n        device.attributes[\\\"d.example.com\\\"].zz == 1\"\n",
     NULL},
    {"double-quoted, escape at the value",
     HEAD "      expression: \"true && \\x64evice.attributes['d.example.com'].zz == 1\"\n",
     "\\x64"},
    {"literal",
     HEAD "      expression: |\n        true &&\n          true &&\n        device.attributes[\"d.example.com\"].zz == 1\n",
     NULL},
    {"literal, strip, indicator",
     HEAD "      expression: |-2\n          true &&\n        device.attributes[\"d.example.com\"].zz == 1\n\n",
     NULL},
    {"literal keep",
     HEAD "      expression: |+\n        true &&\n\n        device.attributes[\"d.example.com\"].zz == 1\n\n",
     NULL},
    {"folded",
     HEAD "      expression: >\n        true &&\n          true &&\n\n        \"é\" != \"x\" &&\n        device.attributes[\"d.example.com\"].zz == 1\n",
     NULL},
    {"folded strip, comment",
     HEAD "      expression: >- # the selector\n        true && \"é\" != \"x\" &&\n        device.attributes[\"d.example.com\"].zz == 1\n",
     NULL},
    {"tag and anchor",
     HEAD "      expression: &x !!str true && device.attributes[\"d.example.com\"].zz == 1\n",
     NULL},
    {"BOM and non-ASCII",
     "\xEF\xBB\xBF# é ü\n" HEAD "      expression: true && \"é\" != \"ü\" && device.attributes[\"d.example.com\"].zz == 1\n",
     NULL},
    {"CRLF",
     "apiVersion: resource.k8s.io/v1\r\nkind: DeviceClass\r\nmetadata: {name: c}\r\nspec:\r\n"
     "  selectors:\r\n  - cel:\r\n      expression: >-\r\n        true &&\r\n        "
     "device.attributes[\"d.example.com\"].zz == 1\r\n",
     NULL},
    {"sequence of blocks",
     "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec:\n  selectors:\n"
     "  - {cel: {expression: \"true && device.attributes['d.example.com'].zz == 1\"}}\n",
     NULL},
    {"JSON",
     "{\"apiVersion\": \"resource.k8s.io/v1\", \"kind\": \"DeviceClass\", \"metadata\": {\"name\": \"c\"},\n"
     " \"spec\": {\"selectors\": [{\"cel\": {\"expression\":\n"
     "   \"\\\"\\ud83d\\ude00\\/\\\" != \\\"\\u00e9\\\" && device.attributes[\\\"d.example.com\\\"].zz == 1\"}}]}}\n",
     NULL},
    {"JSON with a BOM, escape at the value",
     "\xEF\xBB\xBF{\"apiVersion\": \"resource.k8s.io/v1\", \"kind\": \"DeviceClass\", \"metadata\": {\"name\": \"c\"},\n"
     " \"spec\": {\"selectors\": [{\"cel\": {\"expression\": \"true && \\u0064evice.attributes['d.example.com'].zz == 1\"}}]}}\n",
     "\\u0064"},
};

/* Line and column (code points) of the first `marker` after "expression" in text. */
static void expect_at(const char *text, const char *marker, uint32_t *line, uint32_t *col)
{
    const char *e = strstr(text, "expression");
    assert_non_null(e);
    const char *m = strstr(e, marker);
    assert_non_null(m);
    *line = 1;
    const char *ls = text;
    for (const char *p = text; p < m; p++)
        if (*p == '\n') {
            (*line)++;
            ls = p + 1;
        }
    if (ls == text && (unsigned char)ls[0] == 0xEF)
        ls += 3; /* a BOM is not a column */
    *col = 1;
    for (const char *p = ls; p < m; p++)
        if (((unsigned char)*p & 0xC0) != 0x80)
            (*col)++;
}

static dracel_lint *lint_text(const dracel_config *cfg, const char *name, const char *text,
                              dracel_status *st)
{
    dracel_lint *l = NULL;
    *st = dracel_lint_new(cfg, NULL, &l, NULL, 0);
    if (*st != DRACEL_OK)
        return NULL;
    *st = dracel_lint_add(l, name, text, strlen(text));
    if (*st == DRACEL_OK)
        *st = dracel_lint_run(l);
    if (*st != DRACEL_OK) {
        dracel_lint_free(l);
        return NULL;
    }
    return l;
}

static void test_positions(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const pcase *c = &CASES[i];
        dracel_status st;
        dracel_lint *l = lint_text(NULL, c->name, c->text, &st);
        assert_int_equal(st, DRACEL_OK);
        uint32_t line, col;
        expect_at(c->text, c->marker ? c->marker : "device", &line, &col);
        bool found = false;
        for (size_t k = 0; k < dracel_lint_count(l); k++) {
            dracel_finding f;
            assert_int_equal(dracel_lint_finding(l, k, &f), DRACEL_OK);
            if (strcmp(f.rule, "unguarded-access") != 0)
                continue;
            found = true;
            if (f.line != line || f.column != col)
                fail_msg("%s: found at %u:%u, expected %u:%u (%s)", c->name, f.line, f.column,
                         line, col, f.message);
        }
        if (!found) {
            for (size_t k = 0; k < dracel_lint_count(l); k++) {
                dracel_finding f;
                if (dracel_lint_finding(l, k, &f) == DRACEL_OK)
                    print_message("# %s: %u:%u %s %s\n", c->name, f.line, f.column, f.rule,
                                  f.message);
            }
            fail_msg("%s: no unguarded-access finding", c->name);
        }
        dracel_lint_free(l);
    }
}

/* The map itself on a scalar the loader reads another way gives no map, not a wrong one. */
static void test_srcmap_mismatch(void **state)
{
    (void)state;
    dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &(fail_alloc){0, 0, 0, 0}};
    dc_arena ar;
    dc_arena_init(&ar, &a);
    const char *t = "x: 'abc'\n";
    assert_non_null(dc_srcmap(&ar, t, strlen(t), 3, false, "abc", 3));
    assert_null(dc_srcmap(&ar, t, strlen(t), 3, false, "abd", 3));
    uint32_t *m = dc_srcmap(&ar, t, strlen(t), 3, false, "abc", 3);
    assert_int_equal(m[0], 4);
    assert_int_equal(m[2], 6);
    assert_int_equal(m[3], 7);
    dc_arena_free(&ar);
}

/* Sets: meets, emptiness and inclusion of the value sets the facts are made of. */
static void test_sets(void **state)
{
    (void)state;
    dc_arena ar;
    dc_arena_init(&ar, NULL);
    dc_lvset all, a, b, m;
    dc_lvset_all(&all);
    assert_false(dc_lvset_empty(&all));
    /* ints [8, max] and [min, 3] */
    a = all;
    a.absent = false;
    a.kinds = LK_INT;
    a.ilo = 8;
    b = a;
    b.ilo = INT64_MIN;
    b.ihi = 3;
    assert_true(dc_lvset_meet(&ar, &a, &b, &m));
    assert_true(dc_lvset_empty(&m));
    b.ihi = 8;
    assert_true(dc_lvset_meet(&ar, &a, &b, &m));
    assert_false(dc_lvset_empty(&m));
    assert_true(dc_lvset_subset(&m, &a));
    assert_false(dc_lvset_subset(&a, &m));
    /* strings with prefixes "H1" and "A1" never meet; "H1" and "H100" do */
    a = all;
    a.absent = false;
    a.kinds = LK_STR;
    a.pre = "H1";
    b = a;
    b.pre = "A1";
    assert_true(dc_lvset_meet(&ar, &a, &b, &m));
    assert_true(dc_lvset_empty(&m));
    b.pre = "H100";
    assert_true(dc_lvset_meet(&ar, &a, &b, &m));
    assert_false(dc_lvset_empty(&m));
    assert_true(dc_lvset_subset(&b, &a));
    assert_false(dc_lvset_subset(&a, &b));
    /* absence: a set that holds it is not inside one that does not */
    assert_false(dc_lvset_subset(&all, &a));
    assert_true(dc_lvset_subset(&a, &all));
    dc_arena_free(&ar);
}

/* Unknown rule ids are refused; rules have ids, severities and texts. */
static void test_api(void **state)
{
    (void)state;
    dracel_lint *l = NULL;
    dracel_lint_opts o;
    dracel_lint_opts_init(&o);
    o.disable = "contradiction,no-such-rule";
    char err[200];
    assert_int_equal(dracel_lint_new(NULL, &o, &l, err, sizeof err), DRACEL_EINVAL);
    assert_non_null(strstr(err, "no-such-rule"));
    assert_null(l);
    o.disable = "unguarded-access";
    assert_int_equal(dracel_lint_new(NULL, &o, &l, err, sizeof err), DRACEL_OK);
    const char *text = CASES[0].text;
    assert_int_equal(dracel_lint_add(l, "x.yaml", text, strlen(text)), DRACEL_OK);
    assert_int_equal(dracel_lint_run(l), DRACEL_OK);
    assert_int_equal(dracel_lint_run(l), DRACEL_EINVAL);
    assert_int_equal(dracel_lint_add(l, "y.yaml", text, strlen(text)), DRACEL_EINVAL);
    assert_int_equal(dracel_lint_count(l), 0);
    assert_int_equal(dracel_lint_files(l), 1);
    assert_int_equal(dracel_lint_objects(l), 1);
    dracel_finding f;
    assert_int_equal(dracel_lint_finding(l, 0, &f), DRACEL_EINVAL);
    dracel_lint_free(l);
    assert_true(dracel_lint_rules() >= 20);
    for (size_t i = 0; i < dracel_lint_rules(); i++) {
        dracel_lint_rule r;
        assert_int_equal(dracel_lint_rule_get(i, &r), DRACEL_OK);
        assert_non_null(r.id);
        assert_non_null(r.summary);
        assert_non_null(r.help);
        assert_int_equal(dc_lint_rule_find(r.id, strlen(r.id)), (int)i);
    }
    dracel_lint_rule r;
    assert_int_equal(dracel_lint_rule_get(dracel_lint_rules(), &r), DRACEL_EINVAL);
}

/* A TierPolicy the loader refuses at a column past a CR that ends the file (found by
 * fuzz_lint): the finding's column stays within its line as shown (the CR is not shown). */
static void test_policy_cr(void **state)
{
    (void)state;
    static const char text[] = "apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nversion: \"1\"\n"
                               "tenants:\n- name: a\n  namespaces: [a]\n  caps:\n    gpu/h100: \r";
    dracel_status st;
    dracel_lint *l = lint_text(NULL, "p.yaml", text, &st);
    assert_int_equal(st, DRACEL_OK);
    assert_int_equal(dracel_lint_count(l), 1);
    dracel_finding f;
    assert_int_equal(dracel_lint_finding(l, 0, &f), DRACEL_OK);
    assert_string_equal(f.rule, "invalid-object");
    assert_int_equal(f.line, 8);
    assert_non_null(f.source);
    assert_string_equal(f.source, "    gpu/h100: ");
    assert_int_equal(f.column, 15);
    assert_int_equal(dracel_lint_objects(l), 1);
    dracel_lint_free(l);
}

/* A selector cut short by the file's end, just after a CR inside a block scalar (found by
 * fuzz_lint): every finding's column within the line as shown, the CR not shown. */
static void test_end_cr(void **state)
{
    (void)state;
    static const char text[] =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec:\n"
        "  selectors:\n  - cel:\n      expression: |\n        device.attributes[\"\r";
    dracel_status st;
    dracel_lint *l = lint_text(NULL, "c.yaml", text, &st);
    assert_int_equal(st, DRACEL_OK);
    assert_true(dracel_lint_count(l) >= 1);
    for (size_t i = 0; i < dracel_lint_count(l); i++) {
        dracel_finding f;
        assert_int_equal(dracel_lint_finding(l, i, &f), DRACEL_OK);
        assert_int_equal(f.line, 8);
        assert_non_null(f.source);
        assert_string_equal(f.source, "        device.attributes[\"");
        assert_true(f.column >= 1 && f.column <= strlen(f.source) + 1);
    }
    dracel_lint_free(l);
}

/* Two files linted together with every allocation failing in turn: a clean ENOMEM without a
 * leak, or the findings check() wants. */
static void sweep_two(const char *a, size_t alen, const char *b, size_t blen,
                      void (*check)(const dracel_lint *l))
{
    long n = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc al = {fa_malloc, fa_realloc, fa_free, &fa};
        dracel_config cfg;
        dracel_config_init(&cfg);
        cfg.alloc = &al;
        dracel_lint *l = NULL;
        dracel_status st = dracel_lint_new(&cfg, NULL, &l, NULL, 0);
        if (st == DRACEL_OK)
            st = dracel_lint_add(l, "a.yaml", a, alen);
        if (st == DRACEL_OK)
            st = dracel_lint_add(l, "b.yaml", b, blen);
        if (st == DRACEL_OK)
            st = dracel_lint_run(l);
        if (st == DRACEL_OK)
            check(l);
        else
            assert_int_equal(st, DRACEL_ENOMEM);
        dracel_lint_free(l);
        assert_int_equal(fa.live_blocks, 0);
        if (fa.calls < at)
            break;
        n++;
    }
    assert_true(n > 10);
}

/* gpu/h200 names nothing; namespace b is no tenant's */
static void policy_found(const dracel_lint *l)
{
    assert_int_equal(dracel_lint_count(l), 2);
    dracel_finding f;
    assert_int_equal(dracel_lint_finding(l, 0, &f), DRACEL_OK);
    assert_string_equal(f.rule, "policy-unknown-key");
    assert_int_equal(f.line, 7);
    assert_int_equal(dracel_lint_finding(l, 1, &f), DRACEL_OK);
    assert_string_equal(f.rule, "policy-default-tenant");
}

/* The same for a TierPolicy checked against a claim in another file (policy-unknown-key,
 * policy-default-tenant): the policy's file loaded whole, its keys resolved. */
static void test_oom_policy(void **state)
{
    (void)state;
    static const char pol[] = "apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nversion: \"1\"\n"
                              "tenants:\n- name: a\n  namespaces: [a]\n"
                              "  caps: {gpu/h100: 1, gpu/h200: 2}\n";
    static const char claim[] =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: b}\n"
        "spec:\n  devices:\n    requests:\n    - name: gpu\n      firstAvailable:\n"
        "      - {name: h100, deviceClassName: gpu.example.com}\n";
    sweep_two(pol, sizeof pol - 1, claim, sizeof claim - 1, policy_found);
}

/* the listed read is no finding, the other a note */
static void published_found(const dracel_lint *l)
{
    assert_int_equal(dracel_lint_count(l), 1);
    dracel_finding f;
    assert_int_equal(dracel_lint_finding(l, 0, &f), DRACEL_OK);
    assert_string_equal(f.rule, "unguarded-access");
    assert_int_equal(f.severity, DRACEL_SEV_NOTE);
    assert_non_null(strstr(f.message, "].index is read"));
}

/* A PublishedAttributes file and reads behind a driver check, with every allocation failing
 * in turn. */
static void test_oom_published(void **state)
{
    (void)state;
    static const char pub[] = "apiVersion: dracel.dev/v1alpha1\nkind: PublishedAttributes\n"
                              "drivers:\n- driver: a.example.com\n  attributes: [model]\n"
                              "- driver: a.example.com\n  when: {attribute: model, in: [x]}\n"
                              "  capacity: [memory]\n";
    static const char objs[] =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n"
        "spec:\n  selectors:\n  - cel: {expression: \"device.driver == 'a.example.com'\"}\n"
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
        "spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n"
        "        deviceClassName: a\n        selectors:\n"
        "        - cel: {expression: \"device.attributes['a.example.com'].model == 'x' && "
        "device.capacity['a.example.com'].memory.isGreaterThan(quantity('1')) && "
        "device.attributes['a.example.com'].index == 0\"}\n";
    sweep_two(pub, sizeof pub - 1, objs, sizeof objs - 1, published_found);
}

/* Every allocation of a lint failing in turn: a clean ENOMEM and nothing left allocated. */
static void test_oom(void **state)
{
    (void)state;
    const char *text = CASES[8].text;
    long n = 0;
    for (long at = 1;; at++) {
        fail_alloc fa = {0, at, 0, 0};
        dracel_alloc a = {fa_malloc, fa_realloc, fa_free, &fa};
        dracel_config cfg;
        dracel_config_init(&cfg);
        cfg.alloc = &a;
        dracel_status st;
        dracel_lint *l = lint_text(&cfg, "oom.yaml", text, &st);
        if (st == DRACEL_OK) {
            assert_true(dracel_lint_count(l) > 0);
            dracel_lint_free(l);
        } else {
            assert_int_equal(st, DRACEL_ENOMEM);
        }
        assert_int_equal(fa.live_blocks, 0);
        if (fa.calls < at)
            break;
        n++;
    }
    assert_true(n > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_srcmap_mismatch),
        cmocka_unit_test(test_sets),
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_policy_cr),
        cmocka_unit_test(test_end_cr),
        cmocka_unit_test(test_oom),
        cmocka_unit_test(test_oom_policy),
        cmocka_unit_test(test_oom_published),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
