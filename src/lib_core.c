/*
 * lib_core.c: run-time builtins of the optional library, regular expressions (matches, find,
 * findAll) and Kubernetes' Quantity and Semver libraries.
 *
 * Semantics: cel-go's optional library; Go regexp through RE2 (src/regex.h); Kubernetes'
 * apiserver pkg/cel/library quantity.go and semverlib.go (vm/quantity.h, vm/semver.h hold the
 * exact value semantics). Error texts keep the wording users meet in Kubernetes.
 */
#include <math.h>
#include <string.h>

#include "lib.h"
#include "registry.h"
#include "regex.h"
#include "vm.h"

/* ---- Optionals. */

static dc_val opt_of(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    return dc_optional(c, a[0]);
}

static bool is_zero(dc_val v)
{
    switch (v.k) {
    case DC_K_NULL: return true;
    case DC_K_BOOL: return !v.u.b;
    case DC_K_INT: return v.u.i == 0;
    case DC_K_UINT: return v.u.u == 0;
    case DC_K_DOUBLE: return v.u.d == 0;
    case DC_K_STRING:
    case DC_K_BYTES: return v.u.s->len == 0;
    case DC_K_LIST: return v.u.l->n == 0;
    case DC_K_MAP: return v.u.m->n == 0;
    default: return false;
    }
}

static dc_val opt_of_non_zero(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    return is_zero(a[0]) ? dc_optional_none() : dc_optional(c, a[0]);
}

static dc_val opt_none(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)c;
    (void)a;
    (void)n;
    return dc_optional_none();
}

static dc_val opt_has_value(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_OPTIONAL)
        return dc_err_no_overload(c);
    return dc_bool(a[0].u.opt != NULL);
}

static dc_val opt_value(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_OPTIONAL)
        return dc_err_no_overload(c);
    return a[0].u.opt ? *a[0].u.opt : dc_error(c, "optional.none() dereference");
}

static dc_val opt_or_value(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_OPTIONAL)
        return dc_err_no_overload(c);
    return a[0].u.opt ? *a[0].u.opt : a[1];
}

static dc_val opt_or(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_OPTIONAL || a[1].k != DC_K_OPTIONAL)
        return dc_err_no_overload(c);
    return a[0].u.opt ? a[0] : a[1];
}

/* ---- Regular expressions (RE2 syntax, linear time). */

/* Compiled patterns are cached per evaluation context (so per thread), keyed by the pattern's
 * text: constant patterns are compiled once for all the evaluations a context runs, and a
 * pattern read from data is compiled once per distinct text. The cache is small and replaced
 * round-robin; dc_ectx_free releases it. */
#define RE_CACHE 16

#define MEMO_MAX 64  /* subjects up to this long are memoized (attribute values are <= 64) */

typedef struct re_entry {
    char *pat;       /* a copy of the pattern text (the key) */
    size_t len;
    dc_re *re;
    uint64_t prog; /* its program size (dc_re_program_size) */
    /* The last subject matched and its answer, compared by content (subject strings may live
     * in the evaluation arena, whose addresses are reused). */
    char memo[MEMO_MAX];
    uint8_t memo_len;
    int8_t memo_result; /* -1: empty */
} re_entry;

typedef struct re_cache {
    re_entry e[RE_CACHE];
    uint32_t next;
} re_cache;

static void re_cache_free(void *state, const dracel_alloc *a)
{
    re_cache *rc = state;
    for (int i = 0; i < RE_CACHE; i++) {
        dc_re_free(rc->e[i].re);
        dc_free(a, rc->e[i].pat, rc->e[i].len + 1);
    }
    dc_free(a, rc, sizeof *rc);
}

/*
 * What a regular expression call costs on top of the call itself. First, before any work, what
 * cel-go charges for matches (and Kubernetes for find and findAll): the subject's traversal
 * ceil((1 + code points) * 0.1) times the pattern's ceil(code points * 0.25). That guess (4
 * characters a regex step) fails for counted repetitions: `a{1000}` is 7 characters and 1,004
 * RE2 instructions, and matching takes time proportional to subject length times program size.
 * So, once the pattern is compiled, a program larger than twice the pattern plus 16 instructions
 * is charged by its size instead (the difference, docs/language.md): the budget then bounds a
 * match's time. Ordinary patterns (RE2's program is about as long as the pattern) cost exactly
 * what they cost in Kubernetes.
 */
static uint64_t re_units(uint64_t n)
{
    return (uint64_t)ceil((double)n * 0.25);
}

static uint64_t re_product(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t re_subject_units(const dc_str *subj)
{
    return dc_lib_scan_cost(dc_utf8_count(subj->data, subj->len) + 1);
}

static bool re_charge(dc_ectx *c, const dc_str *subj, const dc_str *pat)
{
    return dc_cost(c, re_product(re_subject_units(subj), re_units(dc_utf8_count(pat->data, pat->len))));
}

/* The pattern factor: cel-go's, or the program's when it is more than twice the pattern plus 16
 * instructions. */
static uint64_t re_pattern_units(uint64_t len, uint64_t prog)
{
    return re_units(prog > 2 * len + 16 ? prog : len);
}

static bool re_charge_program(dc_ectx *c, const dc_str *subj, const re_entry *e)
{
    uint64_t len = dc_utf8_count(e->pat, e->len);
    uint64_t extra = re_pattern_units(len, e->prog) - re_units(len);
    return !extra || dc_cost(c, re_product(re_subject_units(subj), extra));
}

uint64_t dc_regex_units(const dc_str *pattern)
{
    uint64_t len = dc_utf8_count(pattern->data, pattern->len);
    dc_re *re = dc_re_compile(pattern->data, pattern->len, NULL, 0);
    uint64_t prog = dc_re_program_size(re); /* 0 for an invalid pattern: the call fails */
    dc_re_free(re);
    return re_pattern_units(len, prog);
}

static dc_val compile_re_entry(dc_ectx *c, dc_val pat, re_entry **out)
{
    const dracel_alloc *a = c->arena.alloc;
    re_cache *rc = c->lib_state;
    if (!rc && !c->lib_state_free) {
        rc = dc_malloc(a, sizeof *rc);
        if (!rc)
            return dc_oom(c);
        memset(rc, 0, sizeof *rc);
        c->lib_state = rc;
        c->lib_state_free = re_cache_free;
    }
    const char *p = pat.u.s->data;
    size_t n = pat.u.s->len;
    for (int i = 0; rc && i < RE_CACHE; i++)
        if (rc->e[i].re && rc->e[i].len == n && memcmp(rc->e[i].pat, p, n) == 0) {
            *out = &rc->e[i];
            return dc_null();
        }
    char err[256];
    dc_re *re = dc_re_compile(p, n, err, sizeof err);
    if (!re)
        return dc_error(c, "%s", err);
    re_entry *slot = &rc->e[rc->next];
    char *copy = dc_malloc(a, n + 1);
    if (!copy) {
        dc_re_free(re);
        return dc_oom(c);
    }
    memcpy(copy, p, n);
    copy[n] = '\0';
    dc_re_free(slot->re);
    dc_free(a, slot->pat, slot->len + 1);
    slot->re = re;
    slot->pat = copy;
    slot->len = n;
    slot->prog = dc_re_program_size(re);
    slot->memo_result = -1;
    rc->next = (rc->next + 1) % RE_CACHE;
    *out = slot;
    return dc_null();
}

/* Charge for matching a[1] against the subject a[0] and compile it: what every regex call does
 * first. An error value (cost, pattern, memory) or null with *out set. */
static dc_val re_prepare(dc_ectx *c, const dc_val *a, re_entry **out)
{
    if (!re_charge(c, a[0].u.s, a[1].u.s))
        return dc_lib_cost_error(c);
    dc_val e = compile_re_entry(c, a[1], out);
    if (e.k == DC_K_ERROR)
        return e;
    if (!re_charge_program(c, a[0].u.s, *out))
        return dc_lib_cost_error(c);
    return e;
}

static dc_val re_matches(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_STRING || a[1].k != DC_K_STRING)
        return dc_err_no_overload(c);
    const dc_str *subj = a[0].u.s;
    re_entry *ent;
    dc_val e = re_prepare(c, a, &ent);
    if (e.k == DC_K_ERROR)
        return e;
    if (ent->memo_result >= 0 && ent->memo_len == subj->len &&
        memcmp(ent->memo, subj->data, subj->len) == 0)
        return dc_bool(ent->memo_result == 1);
    int r = dc_re_match(ent->re, subj->data, subj->len);
    if (r >= 0 && subj->len <= MEMO_MAX) {
        memcpy(ent->memo, subj->data, subj->len);
        ent->memo_len = (uint8_t)subj->len;
        ent->memo_result = (int8_t)r;
    }
    return r < 0 ? dc_error(c, "regular expression match failed") : dc_bool(r == 1);
}

static dc_val re_find(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_STRING || a[1].k != DC_K_STRING)
        return dc_err_no_overload(c);
    re_entry *ent;
    dc_val e = re_prepare(c, a, &ent);
    if (e.k == DC_K_ERROR)
        return e;
    const dc_re *re = ent->re;
    size_t s, t;
    int r = dc_re_find(re, a[0].u.s->data, a[0].u.s->len, &s, &t);
    if (r < 0)
        return dc_error(c, "regular expression match failed");
    dc_str *out = r ? dc_str_new(c, a[0].u.s->data + s, t - s) : dc_str_new(c, "", 0);
    return out ? dc_strval(out) : dc_oom(c);
}

static dc_val re_find_all(dc_ectx *c, const dc_val *a, uint32_t n)
{
    if (a[0].k != DC_K_STRING || a[1].k != DC_K_STRING || (n == 3 && a[2].k != DC_K_INT))
        return dc_err_no_overload(c);
    int64_t limit = n == 3 ? a[2].u.i : -1;
    re_entry *ent;
    dc_val e = re_prepare(c, a, &ent);
    if (e.k == DC_K_ERROR)
        return e;
    const dc_re *re = ent->re;
    const dc_str *s = a[0].u.s;
    /* Count, then fill. */
    uint32_t count = 0;
    dc_re_iter it;
    size_t ms, me;
    int r;
    dc_re_iter_init(&it);
    while ((limit < 0 || count < limit) && (r = dc_re_find_next(re, s->data, s->len, &it, &ms, &me)) == 1)
        count++;
    dc_list *l = dc_list_new(c, count);
    if (!l)
        return dc_oom(c);
    dc_re_iter_init(&it);
    for (uint32_t i = 0; i < count; i++) {
        dc_re_find_next(re, s->data, s->len, &it, &ms, &me);
        dc_str *m = dc_str_new(c, s->data + ms, me - ms);
        if (!m)
            return dc_oom(c);
        l->v[i] = dc_strval(m);
    }
    return dc_listval(l);
}

/* ---- Quantity. */

static dc_val qty_val(dc_ectx *c, const dc_qty *q, const char *text, size_t len)
{
    dc_qtyobj *o = dc_ealloc(c, sizeof *o);
    dc_str *t = o ? dc_str_new(c, text, len) : NULL;
    if (!t)
        return dc_oom(c);
    o->q = *q;
    o->text = t;
    dc_val v;
    v.k = DC_K_QUANTITY;
    v.u.q = o;
    return v;
}

static dc_val qty_canonical(dc_ectx *c, const dc_qty *q)
{
    char buf[DC_QTY_FMT_MAX];
    size_t n = dc_qty_format(q, buf, sizeof buf);
    return qty_val(c, q, buf, n < sizeof buf ? n : sizeof buf - 1);
}

static dc_val qty_parse(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_STRING)
        return dc_err_no_overload(c);
    dc_qty q;
    const char *err = dc_qty_parse(a[0].u.s->data, a[0].u.s->len, &q);
    if (err)
        return dc_error(c, "%s", err);
    return qty_val(c, &q, a[0].u.s->data, a[0].u.s->len);
}

static dc_val qty_is(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_STRING)
        return dc_err_no_overload(c);
    return dc_bool(dc_qty_is_valid(a[0].u.s->data, a[0].u.s->len));
}

static bool both_qty(const dc_val *a)
{
    return a[0].k == DC_K_QUANTITY && a[1].k == DC_K_QUANTITY;
}

static dc_val qty_compare(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!both_qty(a))
        return dc_err_no_overload(c);
    /* Kubernetes may promote the receiver in place; the promotion changes no later result
     * dracel can observe except asInteger on the same receiver value (docs/language.md). */
    dc_qty recv = a[0].u.q->q;
    return dc_int(dc_qty_compare_to(&recv, &a[1].u.q->q));
}

static dc_val qty_greater(dc_ectx *c, const dc_val *a, uint32_t n)
{
    dc_val r = qty_compare(c, a, n);
    return r.k == DC_K_INT ? dc_bool(r.u.i > 0) : r;
}

static dc_val qty_less(dc_ectx *c, const dc_val *a, uint32_t n)
{
    dc_val r = qty_compare(c, a, n);
    return r.k == DC_K_INT ? dc_bool(r.u.i < 0) : r;
}

static dc_val qty_addsub(dc_ectx *c, const dc_val *a, bool add)
{
    if (a[0].k != DC_K_QUANTITY || (a[1].k != DC_K_QUANTITY && a[1].k != DC_K_INT))
        return dc_err_no_overload(c);
    dc_qty rhs = a[1].k == DC_K_INT ? dc_qty_from_int(a[1].u.i) : a[1].u.q->q;
    dc_qty out;
    const char *err = add ? dc_qty_add(&a[0].u.q->q, &rhs, &out) : dc_qty_sub(&a[0].u.q->q, &rhs, &out);
    if (err)
        return dc_error(c, "%s", err);
    return qty_canonical(c, &out);
}

static dc_val qty_add(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    return qty_addsub(c, a, true);
}

static dc_val qty_sub(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    return qty_addsub(c, a, false);
}

static dc_val qty_as_integer(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_QUANTITY)
        return dc_err_no_overload(c);
    int64_t v;
    const char *err = dc_qty_as_int64(&a[0].u.q->q, &v);
    return err ? dc_error(c, "%s", err) : dc_int(v);
}

static dc_val qty_is_integer(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_QUANTITY)
        return dc_err_no_overload(c);
    return dc_bool(dc_qty_is_integer(&a[0].u.q->q));
}

static dc_val qty_approx(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_QUANTITY)
        return dc_err_no_overload(c);
    return dc_double(dc_qty_approx_float(&a[0].u.q->q));
}

static dc_val qty_sign(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_QUANTITY)
        return dc_err_no_overload(c);
    return dc_int(dc_qty_sign(&a[0].u.q->q));
}

/* ---- Semver. */



dc_val dc_semver_value(dc_ectx *c, const char *s, size_t n, bool normalize)
{
    dc_semverobj *o = dc_ealloc(c, sizeof *o);
    dc_str *t = o ? dc_str_new(c, s, n) : NULL;
    if (!t)
        return dc_oom(c);
    dc_semver_error se;
    if (dc_semver_parse_ex(t->data, t->len, normalize, &o->v, &se)) {
        char msg[256];
        dc_semver_error_format(&se, msg, sizeof msg);
        return dc_error(c, "%s", msg);
    }
    if (normalize) {
        /* Print the normalised version, as Kubernetes' value does. */
        char buf[128];
        size_t k = dc_semver_format(&o->v, buf, sizeof buf);
        if (k < sizeof buf) {
            dc_str *nt = dc_str_new(c, buf, k);
            if (!nt || dc_semver_parse(nt->data, nt->len, false, &o->v))
                return dc_oom(c);
            t = nt;
        }
    }
    o->text = t;
    dc_val v;
    v.k = DC_K_SEMVER;
    v.u.sv = o;
    return v;
}

static dc_val sv_parse(dc_ectx *c, const dc_val *a, uint32_t n)
{
    if (a[0].k != DC_K_STRING || (n == 2 && a[1].k != DC_K_BOOL))
        return dc_err_no_overload(c);
    return dc_semver_value(c, a[0].u.s->data, a[0].u.s->len, n == 2 && a[1].u.b);
}

static dc_val sv_is(dc_ectx *c, const dc_val *a, uint32_t n)
{
    if (a[0].k != DC_K_STRING || (n == 2 && a[1].k != DC_K_BOOL))
        return dc_err_no_overload(c);
    return dc_bool(dc_semver_is_valid(a[0].u.s->data, a[0].u.s->len, n == 2 && a[1].u.b));
}

static dc_val sv_part(dc_ectx *c, const dc_val *a, int which)
{
    if (a[0].k != DC_K_SEMVER)
        return dc_err_no_overload(c);
    const dc_semver *v = &a[0].u.sv->v;
    uint64_t u = which == 0 ? v->major : which == 1 ? v->minor : v->patch;
    return dc_int(dc_semver_cel_int(u));
}

static dc_val sv_major(dc_ectx *c, const dc_val *a, uint32_t n) { (void)n; return sv_part(c, a, 0); }
static dc_val sv_minor(dc_ectx *c, const dc_val *a, uint32_t n) { (void)n; return sv_part(c, a, 1); }
static dc_val sv_patch(dc_ectx *c, const dc_val *a, uint32_t n) { (void)n; return sv_part(c, a, 2); }

static dc_val sv_compare(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_SEMVER || a[1].k != DC_K_SEMVER)
        return dc_err_no_overload(c);
    return dc_int(dc_semver_cmp(&a[0].u.sv->v, &a[1].u.sv->v));
}

static dc_val sv_greater(dc_ectx *c, const dc_val *a, uint32_t n)
{
    dc_val r = sv_compare(c, a, n);
    return r.k == DC_K_INT ? dc_bool(r.u.i > 0) : r;
}

static dc_val sv_less(dc_ectx *c, const dc_val *a, uint32_t n)
{
    dc_val r = sv_compare(c, a, n);
    return r.k == DC_K_INT ? dc_bool(r.u.i < 0) : r;
}

/* compareTo, isGreaterThan and isLessThan serve both Quantity and Semver receivers. */
static dc_val any_compare(dc_ectx *c, const dc_val *a, uint32_t n)
{
    return a[0].k == DC_K_SEMVER ? sv_compare(c, a, n) : qty_compare(c, a, n);
}

static dc_val any_greater(dc_ectx *c, const dc_val *a, uint32_t n)
{
    return a[0].k == DC_K_SEMVER ? sv_greater(c, a, n) : qty_greater(c, a, n);
}

static dc_val any_less(dc_ectx *c, const dc_val *a, uint32_t n)
{
    return a[0].k == DC_K_SEMVER ? sv_less(c, a, n) : qty_less(c, a, n);
}

static dc_val no_overload(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)a;
    (void)n;
    return dc_err_no_overload(c);
}

const dc_builtin dc_builtin_no_overload = {"@no_such_overload", false, DC_ARGC_ANY, 0, no_overload};

const dc_builtin dc_lib_core[] = {
    {"optional.of", false, 1, 0, opt_of},
    {"optional.ofNonZeroValue", false, 1, 0, opt_of_non_zero},
    {"optional.none", false, 0, 0, opt_none},
    {"hasValue", true, 1, 0, opt_has_value},
    {"value", true, 1, 0, opt_value},
    {"orValue", true, 2, 0, opt_or_value},
    {"or", true, 2, 0, opt_or},
    {"matches", true, 2, DC_BF_REGEX, re_matches},
    {"matches", false, 2, DC_BF_REGEX, re_matches},
    {"find", true, 2, DC_BF_REGEX, re_find},
    {"findAll", true, 2, DC_BF_REGEX, re_find_all},
    {"findAll", true, 3, DC_BF_REGEX, re_find_all},
    {"quantity", false, 1, 0, qty_parse},
    {"isQuantity", false, 1, 0, qty_is},
    {"compareTo", true, 2, 0, any_compare},
    {"isGreaterThan", true, 2, 0, any_greater},
    {"isLessThan", true, 2, 0, any_less},
    {"add", true, 2, 0, qty_add},
    {"sub", true, 2, 0, qty_sub},
    {"asInteger", true, 1, 0, qty_as_integer},
    {"isInteger", true, 1, 0, qty_is_integer},
    {"asApproximateFloat", true, 1, 0, qty_approx},
    {"sign", false, 1, 0, qty_sign}, /* Kubernetes declares sign(q) global (cel.Overload) */
    {"semver", false, 1, 0, sv_parse},
    {"semver", false, 2, 0, sv_parse},
    {"isSemver", false, 1, 0, sv_is},
    {"isSemver", false, 2, 0, sv_is},
    {"major", true, 1, 0, sv_major},
    {"minor", true, 1, 0, sv_minor},
    {"patch", true, 1, 0, sv_patch},
};
const uint32_t dc_lib_core_count = DC_COUNTOF(dc_lib_core);
