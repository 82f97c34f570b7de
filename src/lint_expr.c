/*
 * lint_expr.c: one CEL device selector on its own, for `dra-celc lint` (lint.h): what
 * Kubernetes' API validation reports (parse and type errors, features selectors cannot use, a
 * result that is not a bool, an estimated cost over the limit), the rules read from the syntax
 * tree, and the selector as facts for the rules over selector lists (src/lint.c).
 *
 * Facts are sets of device values, one per condition of the selector's top-level `&&`: which
 * values (and absence) the condition can be true on. They are built only from forms whose
 * truth is known exactly from the value (comparisons with constants, `in` a list of constants,
 * prefixes and suffixes, presence tests, quantity and semver comparisons, `.?x.orValue(c)`);
 * anything else is an opaque condition. A device whose attribute is missing makes a direct read
 * an error, which is never true: such a condition's set excludes absence.
 *
 * Guards: a read of `device.attributes[d].id` or `device.capacity[d].id` is an error on a
 * device without it, and an error anywhere aborts the pod's allocation. It is guarded when the
 * expression cannot reach it on such a device, or reaches it in a place where CEL's
 * commutative `&&` / `||` absorb the error: beside a condition that is false without the value
 * under `&&` (has(), `in`, hasValue(), an orValue() condition false for its default), true
 * without it under `||`, or in the branch of a `?:` that its condition excludes.
 *
 * Change with: lint.h, src/lint.c, src/check.c (the diagnostics it classifies by their wording:
 * "not supported in device selectors", "must evaluate to bool", "invalid matches argument").
 */
#include "lint.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "cost.h"
#include "parse.h"
#include "regex.h"

static bool streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* ---------------------------------------------------------------------------------------------
 * Paths and constants
 */

bool dc_lpath_eq(const dc_lpath *a, const dc_lpath *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == LP_DRIVER || a->kind == LP_MULTI)
        return true;
    return strcmp(a->dom, b->dom) == 0 && strcmp(a->id, b->id) == 0;
}

const char *dc_lpath_str(dc_arena *ar, const dc_lpath *p)
{
    switch (p->kind) {
    case LP_DRIVER: return "device.driver";
    case LP_MULTI: return "device.allowMultipleAllocations";
    case LP_ATTR: return dc_arena_printf(ar, "device.attributes[\"%s\"].%s", p->dom, p->id);
    default: return dc_arena_printf(ar, "device.capacity[\"%s\"].%s", p->dom, p->id);
    }
}

static bool is_call(const dc_ast *e, const char *fn, uint32_t nargs)
{
    return e && e->kind == DC_AST_CALL && streq(e->u.call.fn, fn) && e->u.call.nargs == nargs;
}

static bool is_member(const dc_ast *e, const char *fn, uint32_t nargs)
{
    return is_call(e, fn, nargs) && (e->flags & DC_ASTF_MEMBER);
}

static bool is_global(const dc_ast *e, const char *fn, uint32_t nargs)
{
    return is_call(e, fn, nargs) && !(e->flags & DC_ASTF_MEMBER);
}

static const char *const_str(const dc_ast *e, uint32_t *len)
{
    if (!e || e->kind != DC_AST_CONST || e->u.c.kind != DC_CONST_STRING)
        return NULL;
    if (len)
        *len = (uint32_t)e->u.c.v.s.len;
    return e->u.c.v.s.ptr;
}

/* device.attributes[dom] or device.capacity[dom]: kind LP_ATTR or LP_CAP. */
static bool dom_map(const dc_ast *e, dc_lpath_kind *kind, const char **dom)
{
    if (!is_call(e, "_[_]", 2))
        return false;
    const dc_ast *m = e->u.call.args[0];
    if (m->kind != DC_AST_SELECT || (m->flags & DC_ASTF_TEST_ONLY))
        return false;
    const dc_ast *d = m->u.sel.operand;
    if (d->kind != DC_AST_IDENT || !streq(d->u.ident.name, "device"))
        return false;
    if (streq(m->u.sel.field, "attributes"))
        *kind = LP_ATTR;
    else if (streq(m->u.sel.field, "capacity"))
        *kind = LP_CAP;
    else
        return false;
    *dom = const_str(e->u.call.args[1], NULL);
    return *dom != NULL;
}

/* A direct read of a device value (an error when it is missing). */
static bool direct(const dc_ast *e, dc_lpath *p)
{
    if (e->kind == DC_AST_SELECT && !(e->flags & DC_ASTF_TEST_ONLY)) {
        const dc_ast *o = e->u.sel.operand;
        if (o->kind == DC_AST_IDENT && streq(o->u.ident.name, "device")) {
            if (streq(e->u.sel.field, "driver"))
                return *p = (dc_lpath){LP_DRIVER, NULL, NULL}, true;
            if (streq(e->u.sel.field, "allowMultipleAllocations"))
                return *p = (dc_lpath){LP_MULTI, NULL, NULL}, true;
            return false;
        }
        if (dom_map(o, &p->kind, &p->dom)) {
            p->id = e->u.sel.field;
            return true;
        }
        return false;
    }
    if (is_call(e, "_[_]", 2) && dom_map(e->u.call.args[0], &p->kind, &p->dom)) {
        p->id = const_str(e->u.call.args[1], NULL);
        return p->id != NULL;
    }
    return false;
}

/* An optional read: device.attributes[dom].?id or device.attributes[dom][?"id"]. */
static bool optional_read(const dc_ast *e, dc_lpath *p)
{
    if ((is_call(e, "_?._", 2) || is_call(e, "_[?_]", 2)) &&
        dom_map(e->u.call.args[0], &p->kind, &p->dom)) {
        p->id = const_str(e->u.call.args[1], NULL);
        return p->id != NULL;
    }
    return false;
}

/* A presence test of a device value: has(x), "id" in device.attributes[dom], x.?id.hasValue(). */
static bool presence(const dc_ast *e, dc_lpath *p)
{
    if (e->kind == DC_AST_SELECT && (e->flags & DC_ASTF_TEST_ONLY) &&
        dom_map(e->u.sel.operand, &p->kind, &p->dom)) {
        p->id = e->u.sel.field;
        return true;
    }
    if (is_call(e, "@in", 2) && dom_map(e->u.call.args[1], &p->kind, &p->dom)) {
        p->id = const_str(e->u.call.args[0], NULL);
        return p->id != NULL;
    }
    if (is_member(e, "hasValue", 1))
        return optional_read(e->u.call.args[0], p);
    return false;
}

/* A value read, directly or with a default: x, x.?id.orValue(DEFAULT). */
typedef struct vterm {
    dc_lpath path;
    const dc_ast *def;      /* the default, or NULL */
} vterm;

static bool value_term(const dc_ast *e, vterm *t)
{
    t->def = NULL;
    if (direct(e, &t->path))
        return true;
    if (is_member(e, "orValue", 2) && optional_read(e->u.call.args[0], &t->path)) {
        t->def = e->u.call.args[1];
        return true;
    }
    return false;
}

/* A constant of a kind a device value can have. */
typedef struct kconst {
    uint8_t kind;           /* LK_* */
    const char *s;
    uint32_t len;
    int64_t i;
    bool b;
    dc_semver v;
    dc_qty q;
} kconst;

static bool get_const(const dc_ast *e, kconst *k)
{
    memset(k, 0, sizeof *k);
    if (e->kind == DC_AST_CONST) {
        switch (e->u.c.kind) {
        case DC_CONST_STRING:
            k->kind = LK_STR;
            k->s = e->u.c.v.s.ptr;
            k->len = (uint32_t)e->u.c.v.s.len;
            return memchr(k->s, '\0', k->len) == NULL;
        case DC_CONST_INT:
            k->kind = LK_INT;
            k->i = e->u.c.v.i;
            return true;
        case DC_CONST_BOOL:
            k->kind = LK_BOOL;
            k->b = e->u.c.v.b;
            return true;
        default:
            return false;
        }
    }
    uint32_t n;
    const char *s;
    if ((is_global(e, "semver", 1) || is_global(e, "semver", 2)) &&
        (s = const_str(e->u.call.args[0], &n)) != NULL) {
        bool norm = false;
        if (e->u.call.nargs == 2) {
            const dc_ast *b = e->u.call.args[1];
            if (b->kind != DC_AST_CONST || b->u.c.kind != DC_CONST_BOOL)
                return false;
            norm = b->u.c.v.b;
        }
        k->kind = LK_VER;
        return dc_semver_parse(s, n, norm, &k->v) == NULL;
    }
    if (is_global(e, "quantity", 1) && (s = const_str(e->u.call.args[0], &n)) != NULL) {
        k->kind = LK_QTY;
        return dc_qty_parse(s, n, &k->q) == NULL;
    }
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * Sets
 */

static void strs_norm(dc_lstrs *l);

void dc_lvset_all(dc_lvset *s)
{
    memset(s, 0, sizeof *s);
    s->absent = true;
    s->kinds = LK_ALL;
    s->ilo = INT64_MIN;
    s->ihi = INT64_MAX;
    s->bools = 3;
}

static void set_none(dc_lvset *s)
{
    dc_lvset_all(s);
    s->absent = false;
    s->kinds = 0;
}

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a, b);
}

static bool has_str(const dc_lstrs *l, const char *s)
{
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        int c = cmp_str(l->v[mid], s);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static bool has_int(const dc_lints *l, int64_t x)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i] == x)
            return true;
    return false;
}

static bool starts(const char *s, const char *p)
{
    return !p || strncmp(s, p, strlen(p)) == 0;
}

static bool ends(const char *s, const char *p)
{
    if (!p)
        return true;
    size_t n = strlen(s), m = strlen(p);
    return m <= n && memcmp(s + n - m, p, m) == 0;
}

static bool pred_ok(const dc_lpred *p, const char *s)
{
    for (; p; p = p->next) {
        if (p->op == 1) {
            if (!strstr(s, p->arg))
                return false;
        } else {
            dc_re *re = dc_re_compile(p->arg, p->len, NULL, 0);
            int m = re ? dc_re_match(re, s, strlen(s)) : -1;
            dc_re_free(re);
            if (m != 1)
                return false;
        }
    }
    return true;
}

/* Is the string s in the set's string component (the kind being present)? */
static bool str_member(const dc_lvset *a, const char *s)
{
    if (!(a->kinds & LK_STR))
        return false;
    if (a->sfin)
        return has_str(&a->sv, s);
    return starts(s, a->pre) && ends(s, a->suf) && !has_str(&a->sx, s) && pred_ok(a->preds, s);
}

static bool int_member(const dc_lvset *a, int64_t x)
{
    if (!(a->kinds & LK_INT))
        return false;
    if (a->ifin)
        return has_int(&a->iv, x);
    return x >= a->ilo && x <= a->ihi && !has_int(&a->ix, x);
}

static bool push_str(dc_arena *ar, dc_lstrs *l, uint32_t *cap, const char *s)
{
    if (l->n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        const char **v = dc_arena_alloc(ar, nc * sizeof *v);
        if (!v)
            return false;
        if (l->n)
            memcpy(v, l->v, l->n * sizeof *v);
        l->v = v;
        *cap = nc;
    }
    l->v[l->n++] = s;
    return true;
}

static bool push_int(dc_arena *ar, dc_lints *l, uint32_t *cap, int64_t x)
{
    if (l->n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        int64_t *v = dc_arena_alloc(ar, nc * sizeof *v);
        if (!v)
            return false;
        if (l->n)
            memcpy(v, l->v, l->n * sizeof *v);
        l->v = v;
        *cap = nc;
    }
    l->v[l->n++] = x;
    return true;
}

/* Ordered-range comparisons of versions or quantities. */
static int rcmp(bool ver, const dc_lrange *a, bool alo, const dc_lrange *b, bool blo)
{
    if (ver)
        return dc_semver_cmp(alo ? &a->vlo : &a->vhi, blo ? &b->vlo : &b->vhi);
    return dc_qty_cmp(alo ? &a->qlo : &a->qhi, blo ? &b->qlo : &b->qhi);
}

static void rcopy(bool ver, dc_lrange *d, bool dlo, const dc_lrange *s, bool slo)
{
    if (ver) {
        if (dlo)
            d->vlo = slo ? s->vlo : s->vhi;
        else
            d->vhi = slo ? s->vlo : s->vhi;
    } else {
        if (dlo)
            d->qlo = slo ? s->qlo : s->qhi;
        else
            d->qhi = slo ? s->qlo : s->qhi;
    }
}

/* a ∩ b of ranges; false when empty. */
static bool range_meet(bool ver, const dc_lrange *a, const dc_lrange *b, dc_lrange *o)
{
    *o = *a;
    if (b->has_lo) {
        int c = a->has_lo ? rcmp(ver, b, true, a, true) : 1;
        if (c > 0 || (c == 0 && b->lo_open)) {
            rcopy(ver, o, true, b, true);
            o->has_lo = true;
            o->lo_open = b->lo_open;
        }
    }
    if (b->has_hi) {
        int c = a->has_hi ? rcmp(ver, b, false, a, false) : -1;
        if (c < 0 || (c == 0 && b->hi_open)) {
            rcopy(ver, o, false, b, false);
            o->has_hi = true;
            o->hi_open = b->hi_open;
        }
    }
    if (o->has_lo && o->has_hi) {
        int c = rcmp(ver, o, true, o, false);
        if (c > 0 || (c == 0 && (o->lo_open || o->hi_open)))
            return false;
    }
    return true;
}

/* a ⊆ b for ranges */
static bool range_sub(bool ver, const dc_lrange *a, const dc_lrange *b)
{
    if (b->has_lo) {
        if (!a->has_lo)
            return false;
        int c = rcmp(ver, a, true, b, true);
        if (c < 0 || (c == 0 && b->lo_open && !a->lo_open))
            return false;
    }
    if (b->has_hi) {
        if (!a->has_hi)
            return false;
        int c = rcmp(ver, a, false, b, false);
        if (c > 0 || (c == 0 && b->hi_open && !a->hi_open))
            return false;
    }
    return true;
}

static bool range_has(bool ver, const dc_lrange *r, const kconst *k)
{
    dc_lrange p;
    memset(&p, 0, sizeof p);
    p.has_lo = p.has_hi = true;
    p.vlo = p.vhi = k->v;
    p.qlo = p.qhi = k->q;
    return range_sub(ver, &p, r);
}

bool dc_lvset_meet(dc_arena *ar, const dc_lvset *a, const dc_lvset *b, dc_lvset *o)
{
    dc_lvset r;
    dc_lvset_all(&r);
    r.absent = a->absent && b->absent;
    r.kinds = a->kinds & b->kinds;
    if (r.kinds & LK_STR) {
        uint32_t cap = 0;
        if (a->sfin || b->sfin) {
            const dc_lvset *f = a->sfin ? a : b, *g = a->sfin ? b : a;
            r.sfin = true;
            for (uint32_t i = 0; i < f->sv.n; i++)
                if (str_member(g, f->sv.v[i]) && !push_str(ar, &r.sv, &cap, f->sv.v[i]))
                    return false;
            if (r.sv.n == 0)
                r.kinds &= ~LK_STR;
        } else {
            const char *pa = a->pre ? a->pre : "", *pb = b->pre ? b->pre : "";
            const char *sa = a->suf ? a->suf : "", *sb = b->suf ? b->suf : "";
            if (!starts(pa, pb) && !starts(pb, pa)) {
                r.kinds &= ~LK_STR;
            } else if (!ends(sa, sb) && !ends(sb, sa)) {
                r.kinds &= ~LK_STR;
            } else {
                r.pre = strlen(pa) >= strlen(pb) ? a->pre : b->pre;
                r.suf = strlen(sa) >= strlen(sb) ? a->suf : b->suf;
                for (int side = 0; side < 2; side++) {
                    const dc_lstrs *x = side ? &b->sx : &a->sx;
                    for (uint32_t i = 0; i < x->n; i++)
                        if (!has_str(&r.sx, x->v[i]) && !push_str(ar, &r.sx, &cap, x->v[i]))
                            return false;
                }
                strs_norm(&r.sx);
                /* preds: both lists */
                dc_lpred **tail = &r.preds;
                for (int side = 0; side < 2; side++)
                    for (const dc_lpred *p = side ? b->preds : a->preds; p; p = p->next) {
                        dc_lpred *q = dc_arena_alloc(ar, sizeof *q);
                        if (!q)
                            return false;
                        *q = *p;
                        q->next = NULL;
                        *tail = q;
                        tail = &q->next;
                    }
            }
        }
    }
    if (r.kinds & LK_INT) {
        uint32_t cap = 0;
        if (a->ifin || b->ifin) {
            const dc_lvset *f = a->ifin ? a : b, *g = a->ifin ? b : a;
            r.ifin = true;
            for (uint32_t i = 0; i < f->iv.n; i++)
                if (int_member(g, f->iv.v[i]) && !push_int(ar, &r.iv, &cap, f->iv.v[i]))
                    return false;
            if (r.iv.n == 0)
                r.kinds &= ~LK_INT;
        } else {
            r.ilo = a->ilo > b->ilo ? a->ilo : b->ilo;
            r.ihi = a->ihi < b->ihi ? a->ihi : b->ihi;
            for (int side = 0; side < 2; side++) {
                const dc_lints *x = side ? &b->ix : &a->ix;
                for (uint32_t i = 0; i < x->n; i++)
                    if (!has_int(&r.ix, x->v[i]) && !push_int(ar, &r.ix, &cap, x->v[i]))
                        return false;
            }
            bool empty = r.ilo > r.ihi;
            if (!empty && (uint64_t)r.ihi - (uint64_t)r.ilo < 64) {
                empty = true;
                for (int64_t x = r.ilo;; x++) {
                    if (!has_int(&r.ix, x)) {
                        empty = false;
                        break;
                    }
                    if (x == r.ihi)
                        break;
                }
            }
            if (empty)
                r.kinds &= ~LK_INT;
        }
    }
    r.bools = a->bools & b->bools;
    if (!r.bools)
        r.kinds &= ~LK_BOOL;
    if ((r.kinds & LK_VER) && !range_meet(true, &a->ver, &b->ver, &r.ver))
        r.kinds &= ~LK_VER;
    if ((r.kinds & LK_QTY) && !range_meet(false, &a->qty, &b->qty, &r.qty))
        r.kinds &= ~LK_QTY;
    *o = r;
    return true;
}

bool dc_lvset_empty(const dc_lvset *s)
{
    return !s->absent && s->kinds == 0;
}

bool dc_lvset_subset(const dc_lvset *a, const dc_lvset *b)
{
    if (a->absent && !b->absent)
        return false;
    if (a->kinds & ~b->kinds)
        return false;
    if (a->kinds & LK_STR) {
        if (a->sfin) {
            for (uint32_t i = 0; i < a->sv.n; i++)
                if (!str_member(b, a->sv.v[i]))
                    return false;
        } else {
            if (b->sfin || b->preds)
                return false;
            if (!starts(a->pre ? a->pre : "", b->pre) || !ends(a->suf ? a->suf : "", b->suf))
                return false;
            for (uint32_t i = 0; i < b->sx.n; i++)
                if (str_member(a, b->sx.v[i]))
                    return false;
        }
    }
    if (a->kinds & LK_INT) {
        if (a->ifin) {
            for (uint32_t i = 0; i < a->iv.n; i++)
                if (!int_member(b, a->iv.v[i]))
                    return false;
        } else {
            if (b->ifin || a->ilo < b->ilo || a->ihi > b->ihi)
                return false;
            for (uint32_t i = 0; i < b->ix.n; i++)
                if (int_member(a, b->ix.v[i]))
                    return false;
        }
    }
    if ((a->kinds & LK_BOOL) && (a->bools & ~b->bools))
        return false;
    if ((a->kinds & LK_VER) && !range_sub(true, &a->ver, &b->ver))
        return false;
    if ((a->kinds & LK_QTY) && !range_sub(false, &a->qty, &b->qty))
        return false;
    return true;
}

/* Is the constant k in s (present values only)? */
static bool const_in(const dc_lvset *s, const kconst *k)
{
    if (!(s->kinds & k->kind))
        return false;
    switch (k->kind) {
    case LK_STR: return str_member(s, k->s);
    case LK_INT: return int_member(s, k->i);
    case LK_BOOL: return (s->bools >> (k->b ? 1 : 0)) & 1;
    case LK_VER: return range_has(true, &s->ver, k);
    case LK_QTY: return range_has(false, &s->qty, k);
    default: return false;
    }
}

/* The set {k} (present). */
static bool set_point(dc_arena *ar, dc_lvset *s, const kconst *k)
{
    set_none(s);
    s->kinds = k->kind;
    uint32_t cap = 0;
    switch (k->kind) {
    case LK_STR: {
        s->sfin = true;
        char *c = dc_arena_strndup(ar, k->s, k->len);
        return c && push_str(ar, &s->sv, &cap, c);
    }
    case LK_INT:
        s->ifin = true;
        return push_int(ar, &s->iv, &cap, k->i);
    case LK_BOOL:
        s->bools = k->b ? 2 : 1;
        return true;
    case LK_VER:
        s->ver.has_lo = s->ver.has_hi = true;
        s->ver.vlo = s->ver.vhi = k->v;
        return true;
    case LK_QTY:
        s->qty.has_lo = s->qty.has_hi = true;
        s->qty.qlo = s->qty.qhi = k->q;
        return true;
    default:
        return false;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Conditions as facts
 */

typedef struct lx {
    const dc_lint_env *le;
    dc_lexpr *x;
    const char *src;
    dc_arena *ar;           /* results */
    bool oom;
    uint32_t *suppress;     /* positions whose checker diagnostic a rule replaces */
    uint32_t nsup, capsup;
    uint32_t capfinds, capacc, capvcmp;
} lx;

static int sort_strs(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void strs_norm(dc_lstrs *l)
{
    if (l->n < 2)
        return;
    dc_sort(l->v, l->n, sizeof *l->v, sort_strs);
    uint32_t k = 1;
    for (uint32_t i = 1; i < l->n; i++)
        if (strcmp(l->v[i], l->v[k - 1]) != 0)
            l->v[k++] = l->v[i];
    l->n = k;
}

/* A comparison of a value with a constant: which values satisfy `value OP k`. op: 0 ==, 1 <,
 * 2 <=, 3 >, 4 >= ; exact tells whether the set is exactly that. */
static bool cmp_set(lx *c, int op, const kconst *k, dc_lvset *s, bool *exact)
{
    *exact = true;
    if (op == 0)
        return set_point(c->ar, s, k) || (c->oom = true, false);
    set_none(s);
    s->kinds = k->kind;
    switch (k->kind) {
    case LK_INT:
        switch (op) {
        case 1: if (k->i == INT64_MIN) { s->kinds = 0; return true; } s->ihi = k->i - 1; break;
        case 2: s->ihi = k->i; break;
        case 3: if (k->i == INT64_MAX) { s->kinds = 0; return true; } s->ilo = k->i + 1; break;
        default: s->ilo = k->i; break;
        }
        return true;
    case LK_VER:
    case LK_QTY: {
        dc_lrange *r = k->kind == LK_VER ? &s->ver : &s->qty;
        memset(r, 0, sizeof *r);
        if (op == 1 || op == 2) {
            r->has_hi = true;
            r->hi_open = op == 1;
            r->vhi = k->v;
            r->qhi = k->q;
        } else {
            r->has_lo = true;
            r->lo_open = op == 3;
            r->vlo = k->v;
            r->qlo = k->q;
        }
        return true;
    }
    default:
        return false; /* string ordering and the like: not a fact */
    }
}

static int op_of(const char *fn)
{
    static const char *const ops[] = {"_==_", "_<_", "_<=_", "_>_", "_>=_"};
    for (int i = 0; i < 5; i++)
        if (streq(fn, ops[i]))
            return i;
    return -1;
}

static int flip(int op)
{
    static const int f[] = {0, 3, 4, 1, 2};
    return f[op];
}

/* Finish a value condition: a direct read is never true without the value; a read with a
 * default is true without it when the default satisfies the condition. */
static bool value_fact(lx *c, const vterm *t, dc_lvset *s, bool exact, dc_lfact *f)
{
    f->analyzed = true;
    f->exact = exact;
    f->path = t->path;
    f->set = *s;
    f->set.absent = false;
    if (t->def) {
        kconst d;
        if (!get_const(t->def, &d))
            return false; /* a default we cannot evaluate */
        f->set.absent = const_in(s, &d);
    }
    (void)c;
    return true;
}

/* `x.compareTo(K) OP N` (or N OP ...): the relation of x to K. */
static bool compare_to(lx *c, const dc_ast *call, int op, const dc_ast *num, bool num_left,
                       dc_lfact *f)
{
    if (!is_member(call, "compareTo", 2) || num->kind != DC_AST_CONST ||
        num->u.c.kind != DC_CONST_INT)
        return false;
    vterm t;
    kconst k;
    if (!value_term(call->u.call.args[0], &t) || !get_const(call->u.call.args[1], &k) ||
        (k.kind != LK_VER && k.kind != LK_QTY))
        return false;
    int64_t n = num->u.c.v.i;
    if (num_left)
        op = flip(op);
    /* compareTo(...) OP n, with compareTo in {-1, 0, 1} */
    bool can[3];
    for (int v = -1; v <= 1; v++) {
        switch (op) {
        case 0: can[v + 1] = v == n; break;
        case 1: can[v + 1] = v < n; break;
        case 2: can[v + 1] = v <= n; break;
        case 3: can[v + 1] = v > n; break;
        default: can[v + 1] = v >= n; break;
        }
    }
    int rel; /* 0 ==, 1 <, 2 <=, 3 >, 4 >= ; -1 none */
    if (can[0] && can[1] && can[2])
        return false;
    if (!can[0] && !can[1] && !can[2])
        rel = -2;
    else if (can[0] && can[1])
        rel = 2;
    else if (can[1] && can[2])
        rel = 4;
    else if (can[0] && !can[2])
        rel = 1;
    else if (can[2] && !can[0])
        rel = 3;
    else if (can[1])
        rel = 0;
    else
        return false; /* -1 or 1: x != K */
    dc_lvset s;
    bool exact;
    if (rel == -2) {
        set_none(&s);
        exact = true;
    } else if (!cmp_set(c, rel, &k, &s, &exact)) {
        return false;
    }
    return value_fact(c, &t, &s, exact, f);
}

static bool fact_of(lx *c, const dc_ast *e, dc_lfact *f);

static bool list_in(lx *c, const dc_ast *e, dc_lfact *f)
{
    vterm t;
    const dc_ast *l = e->u.call.args[1];
    if (!value_term(e->u.call.args[0], &t) || l->kind != DC_AST_LIST || l->u.list.optional)
        return false;
    dc_lvset s;
    set_none(&s);
    uint32_t scap = 0, icap = 0;
    for (uint32_t i = 0; i < l->u.list.n; i++) {
        kconst k;
        if (!get_const(l->u.list.elems[i], &k) || (k.kind != LK_STR && k.kind != LK_INT))
            return false;
        if (k.kind == LK_STR) {
            char *str = dc_arena_strndup(c->ar, k.s, k.len);
            if (!str || !push_str(c->ar, &s.sv, &scap, str))
                return c->oom = true, false;
            s.sfin = true;
            s.kinds |= LK_STR;
        } else {
            if (!push_int(c->ar, &s.iv, &icap, k.i))
                return c->oom = true, false;
            s.ifin = true;
            s.kinds |= LK_INT;
        }
    }
    strs_norm(&s.sv);
    if (!(s.kinds & LK_STR))
        s.sfin = false;
    if (!(s.kinds & LK_INT))
        s.ifin = false;
    return value_fact(c, &t, &s, true, f);
}

/* a ∪ b, same path: exact for finite strings and ints, else the kinds' whole components. */
static bool join(lx *c, const dc_lfact *a, const dc_lfact *b, dc_lfact *o)
{
    if (!dc_lpath_eq(&a->path, &b->path))
        return false;
    *o = *a;
    dc_lvset *r = &o->set;
    const dc_lvset *x = &a->set, *y = &b->set;
    r->absent = x->absent || y->absent;
    r->kinds = x->kinds | y->kinds;
    o->exact = a->exact && b->exact;
    if ((x->kinds & LK_STR) && (y->kinds & LK_STR)) {
        if (x->sfin && y->sfin) {
            uint32_t cap = 0;
            dc_lstrs u = {NULL, 0};
            for (int side = 0; side < 2; side++) {
                const dc_lstrs *l = side ? &y->sv : &x->sv;
                for (uint32_t i = 0; i < l->n; i++)
                    if (!push_str(c->ar, &u, &cap, l->v[i]))
                        return c->oom = true, false;
            }
            strs_norm(&u);
            r->sv = u;
            r->sfin = true;
        } else {
            r->sfin = false;
            r->pre = r->suf = NULL;
            r->sx.n = 0;
            r->preds = NULL;
            o->exact = false;
        }
    } else if (y->kinds & LK_STR) {
        r->sfin = y->sfin;
        r->sv = y->sv;
        r->sx = y->sx;
        r->pre = y->pre;
        r->suf = y->suf;
        r->preds = y->preds;
    }
    if ((x->kinds & LK_INT) && (y->kinds & LK_INT)) {
        if (x->ifin && y->ifin) {
            uint32_t cap = 0;
            dc_lints u = {NULL, 0};
            for (int side = 0; side < 2; side++) {
                const dc_lints *l = side ? &y->iv : &x->iv;
                for (uint32_t i = 0; i < l->n; i++)
                    if (!has_int(&u, l->v[i]) && !push_int(c->ar, &u, &cap, l->v[i]))
                        return c->oom = true, false;
            }
            r->iv = u;
        } else {
            r->ifin = false;
            r->ilo = INT64_MIN;
            r->ihi = INT64_MAX;
            r->ix.n = 0;
            o->exact = false;
        }
    } else if (y->kinds & LK_INT) {
        r->ifin = y->ifin;
        r->iv = y->iv;
        r->ix = y->ix;
        r->ilo = y->ilo;
        r->ihi = y->ihi;
    }
    r->bools = (uint8_t)(((x->kinds & LK_BOOL) ? x->bools : 0) |
                         ((y->kinds & LK_BOOL) ? y->bools : 0));
    if (!r->bools)
        r->bools = 3;
    for (int q = 0; q < 2; q++) {
        uint8_t kb = q ? LK_QTY : LK_VER;
        dc_lrange *rr = q ? &r->qty : &r->ver;
        const dc_lrange *xr = q ? &x->qty : &x->ver, *yr = q ? &y->qty : &y->ver;
        if ((x->kinds & kb) && (y->kinds & kb)) {
            memset(rr, 0, sizeof *rr); /* the hull would do; the whole kind is simpler */
            o->exact = false;
        } else if (y->kinds & kb) {
            *rr = *yr;
        } else {
            *rr = *xr;
        }
    }
    return true;
}

/* The fact of one condition; false when it is not one we can read. */
static bool fact_of(lx *c, const dc_ast *e, dc_lfact *f)
{
    memset(f, 0, sizeof *f);
    dc_lvset_all(&f->set);
    f->span = e->span;
    dc_lpath p;
    if (presence(e, &p)) {
        f->analyzed = f->exact = true;
        f->path = p;
        f->set.absent = false;
        return true;
    }
    vterm t;
    if (value_term(e, &t)) {
        /* a bool value on its own */
        dc_lvset s;
        kconst k = {.kind = LK_BOOL, .b = true};
        return set_point(c->ar, &s, &k) && value_fact(c, &t, &s, true, f);
    }
    if (e->kind != DC_AST_CALL)
        return false;
    const char *fn = e->u.call.fn;
    uint32_t n = e->u.call.nargs;
    const dc_ast *const *a = (const dc_ast *const *)e->u.call.args;
    if (streq(fn, "!_") && n == 1) {
        if (presence(a[0], &p)) {
            f->analyzed = f->exact = true;
            f->path = p;
            set_none(&f->set);
            f->set.absent = true;
            return true;
        }
        if (value_term(a[0], &t)) {
            dc_lvset s;
            kconst k = {.kind = LK_BOOL, .b = false};
            return set_point(c->ar, &s, &k) && value_fact(c, &t, &s, true, f);
        }
        return false;
    }
    if (streq(fn, "_||_") && n == 2) {
        dc_lfact x, y;
        if (!fact_of(c, a[0], &x) || !fact_of(c, a[1], &y) || x.is_false || y.is_false)
            return false;
        if (!join(c, &x, &y, f))
            return false;
        f->span = e->span;
        return true;
    }
    if (streq(fn, "@in") && n == 2)
        return list_in(c, e, f);
    if ((e->flags & DC_ASTF_MEMBER) && n == 2) {
        uint32_t len = 0;
        const char *arg = const_str(a[1], &len);
        if (!value_term(a[0], &t))
            return false;
        dc_lvset s;
        set_none(&s);
        if ((streq(fn, "startsWith") || streq(fn, "endsWith") || streq(fn, "contains") ||
             streq(fn, "matches")) && arg && !memchr(arg, '\0', len)) {
            s.kinds = LK_STR;
            char *cp = dc_arena_strndup(c->ar, arg, len);
            if (!cp)
                return c->oom = true, false;
            if (streq(fn, "startsWith"))
                s.pre = cp;
            else if (streq(fn, "endsWith"))
                s.suf = cp;
            else {
                dc_lpred *pr = dc_arena_alloc(c->ar, sizeof *pr);
                if (!pr)
                    return c->oom = true, false;
                *pr = (dc_lpred){streq(fn, "contains") ? 1 : 2, cp, len, NULL};
                if (pr->op == 2) {
                    dc_re *re = dc_re_compile(cp, len, NULL, 0);
                    if (!re)
                        return false;
                    dc_re_free(re);
                }
                s.preds = pr;
            }
            return value_fact(c, &t, &s, true, f);
        }
        kconst k;
        if ((streq(fn, "isGreaterThan") || streq(fn, "isLessThan")) && get_const(a[1], &k) &&
            (k.kind == LK_VER || k.kind == LK_QTY)) {
            bool exact;
            return cmp_set(c, streq(fn, "isLessThan") ? 1 : 3, &k, &s, &exact) &&
                   value_fact(c, &t, &s, exact, f);
        }
        return false;
    }
    int op = op_of(fn);
    bool ne = streq(fn, "_!=_");
    if ((op >= 0 || ne) && n == 2) {
        for (int side = 0; side < 2; side++) {
            const dc_ast *v = a[side], *o = a[1 - side];
            if (op >= 0 && compare_to(c, v, op, o, side == 1, f))
                return true;
            kconst k;
            if (!value_term(v, &t) || !get_const(o, &k))
                continue;
            dc_lvset s;
            if (ne) {
                /* every value but k: other kinds too (heterogeneous !=); not exact, since a
                 * version is an error here rather than true */
                dc_lvset_all(&s);
                s.absent = false;
                uint32_t cap = 0;
                if (k.kind == LK_STR) {
                    char *cp = dc_arena_strndup(c->ar, k.s, k.len);
                    if (!cp || !push_str(c->ar, &s.sx, &cap, cp))
                        return c->oom = true, false;
                } else if (k.kind == LK_INT) {
                    if (!push_int(c->ar, &s.ix, &cap, k.i))
                        return c->oom = true, false;
                } else if (k.kind == LK_BOOL) {
                    s.bools = k.b ? 1 : 2;
                }
                return value_fact(c, &t, &s, false, f);
            }
            bool exact;
            if (!cmp_set(c, side ? flip(op) : op, &k, &s, &exact))
                return false;
            return value_fact(c, &t, &s, exact, f);
        }
    }
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * Guards
 */

typedef struct pset {
    dc_lpath *v;
    uint32_t n, cap;
} pset;

static bool pset_has(const pset *s, const dc_lpath *p)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (dc_lpath_eq(&s->v[i], p))
            return true;
    return false;
}

static void pset_add(lx *c, pset *s, const dc_lpath *p)
{
    if (pset_has(s, p))
        return;
    if (s->n == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 4;
        dc_lpath *v = dc_arena_alloc(c->ar, nc * sizeof *v);
        if (!v) {
            c->oom = true;
            return;
        }
        if (s->n)
            memcpy(v, s->v, s->n * sizeof *v);
        s->v = v;
        s->cap = nc;
    }
    s->v[s->n++] = *p;
}

/* Whether e reads path p through .?id.orValue(...). */
static bool uses_default(const dc_ast *e, const dc_lpath *p)
{
    if (!e)
        return false;
    vterm t;
    if (value_term(e, &t))
        return t.def && dc_lpath_eq(&t.path, p);
    if (e->kind == DC_AST_CALL)
        for (uint32_t i = 0; i < e->u.call.nargs; i++)
            if (uses_default(e->u.call.args[i], p))
                return true;
    return false;
}

/* out = the paths without which e is false (want_false) or true. */
static void collect(lx *c, const dc_ast *e, bool want_false, pset *out)
{
    dc_lpath p;
    if (presence(e, &p)) {
        if (want_false)
            pset_add(c, out, &p);
        return;
    }
    if (is_call(e, "!_", 1)) {
        collect(c, e->u.call.args[0], !want_false, out);
        return;
    }
    bool conj = is_call(e, "_&&_", 2), disj = is_call(e, "_||_", 2);
    if (conj || disj) {
        /* false: either side of &&, both sides of || ; true: both of &&, either of || */
        bool either = conj == want_false;
        pset a = {0}, b = {0};
        collect(c, e->u.call.args[0], want_false, &a);
        collect(c, e->u.call.args[1], want_false, &b);
        for (uint32_t i = 0; i < a.n; i++)
            if (either || pset_has(&b, &a.v[i]))
                pset_add(c, out, &a.v[i]);
        if (either)
            for (uint32_t i = 0; i < b.n; i++)
                pset_add(c, out, &b.v[i]);
        return;
    }
    /* a condition on a value read with a default: known without the value */
    dc_lfact f;
    if (fact_of(c, e, &f) && f.analyzed && !f.is_false && uses_default(e, &f.path) &&
        (want_false ? !f.set.absent : f.set.absent && f.exact))
        pset_add(c, out, &f.path);
}

/* Conditions known true where a read is reached: the operands of enclosing `&&`s and the
 * conditions of enclosing `?:`s (a chain on the stack; NULL e at the top). */
typedef struct cset {
    const dc_ast *e;
    const struct cset *up;
} cset;

static void split(lx *c, const dc_ast *e, const dc_ast ***v, uint32_t *n, uint32_t *cap);

static void add_acc(lx *c, const dc_lpath *p, const dc_ast *e, const cset *ctx)
{
    dc_lexpr *x = c->x;
    for (uint32_t i = 0; i < x->nacc; i++)
        if (dc_lpath_eq(&x->acc[i].path, p))
            return; /* the first read of each value */
    if (x->nacc == c->capacc) {
        uint32_t nc = c->capacc ? c->capacc * 2 : 4;
        dc_lacc *v = dc_arena_alloc(c->ar, nc * sizeof *v);
        if (!v) {
            c->oom = true;
            return;
        }
        if (x->nacc)
            memcpy(v, x->acc, x->nacc * sizeof *v);
        x->acc = v;
        c->capacc = nc;
    }
    const char *text = dc_arena_strndup(c->ar, c->src + e->span.start, e->span.end - e->span.start);
    const dc_ast **parts = NULL;
    uint32_t np = 0, capp = 0;
    for (const cset *k = ctx; k && k->e; k = k->up)
        split(c, k->e, &parts, &np, &capp);
    dc_lfact *fs = np ? dc_arena_alloc(c->ar, np * sizeof *fs) : NULL;
    if (!text || c->oom || (np && !fs)) {
        c->oom = true;
        return;
    }
    uint32_t nf = 0;
    for (uint32_t i = 0; i < np; i++) {
        dc_lfact *f = &fs[nf];
        if (fact_of(c, parts[i], f) && f->analyzed && !f->is_false &&
            (f->path.kind == LP_DRIVER || f->path.kind == LP_ATTR))
            nf++;
    }
    x->acc[x->nacc++] = (dc_lacc){*p, e->span, text, fs, nf};
}

static void guard_walk(lx *c, const dc_ast *e, const pset *g, const cset *k)
{
    if (!e || c->oom)
        return;
    dc_lpath p;
    if (direct(e, &p)) {
        if ((p.kind == LP_ATTR || p.kind == LP_CAP) && !pset_has(g, &p))
            add_acc(c, &p, e, k);
        return;
    }
    if (presence(e, &p) || optional_read(e, &p))
        return;
    bool conj = is_call(e, "_&&_", 2), disj = is_call(e, "_||_", 2);
    if (conj || disj) {
        for (int side = 0; side < 2; side++) {
            pset h = {0};
            for (uint32_t i = 0; i < g->n; i++)
                pset_add(c, &h, &g->v[i]);
            collect(c, e->u.call.args[1 - side], conj, &h);
            cset hk = {e->u.call.args[1 - side], k};
            guard_walk(c, e->u.call.args[side], &h, conj ? &hk : k);
        }
        return;
    }
    if (is_call(e, "_?_:_", 3)) {
        guard_walk(c, e->u.call.args[0], g, k);
        for (int side = 0; side < 2; side++) {
            pset h = {0};
            for (uint32_t i = 0; i < g->n; i++)
                pset_add(c, &h, &g->v[i]);
            collect(c, e->u.call.args[0], side == 0, &h);
            cset hk = {e->u.call.args[0], k};
            guard_walk(c, e->u.call.args[1 + side], &h, side == 0 ? &hk : k);
        }
        return;
    }
    switch (e->kind) {
    case DC_AST_SELECT:
        guard_walk(c, e->u.sel.operand, g, k);
        break;
    case DC_AST_CALL:
        for (uint32_t i = 0; i < e->u.call.nargs; i++)
            guard_walk(c, e->u.call.args[i], g, k);
        break;
    case DC_AST_LIST:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            guard_walk(c, e->u.list.elems[i], g, k);
        break;
    case DC_AST_MAP:
    case DC_AST_STRUCT:
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            guard_walk(c, e->u.map.entries[i].key, g, k);
            guard_walk(c, e->u.map.entries[i].value, g, k);
        }
        break;
    case DC_AST_COMPREHENSION:
        guard_walk(c, e->u.comp.range, g, k);
        guard_walk(c, e->u.comp.arg1, g, k);
        guard_walk(c, e->u.comp.arg2, g, k);
        break;
    default:
        break;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Findings read from the tree (before checking: some replace the checker's diagnostic)
 */

static void find(lx *c, dc_lint_rule rule, dracel_severity sev, dracel_span sp, const char *hint,
                 const char *fmt, ...) DC_PRINTF(6, 7);

static void find(lx *c, dc_lint_rule rule, dracel_severity sev, dracel_span sp, const char *hint,
                 const char *fmt, ...)
{
    dc_lexpr *x = c->x;
    if (c->oom)
        return;
    if (x->nfinds == c->capfinds) {
        uint32_t nc = c->capfinds ? c->capfinds * 2 : 4;
        dc_lxfind *v = dc_arena_alloc(c->ar, nc * sizeof *v);
        if (!v) {
            c->oom = true;
            return;
        }
        if (x->nfinds)
            memcpy(v, x->finds, x->nfinds * sizeof *v);
        x->finds = v;
        c->capfinds = nc;
    }
    va_list ap;
    va_start(ap, fmt);
    const char *msg = dc_arena_vprintf(c->ar, fmt, ap);
    va_end(ap);
    const char *h = hint ? dc_arena_strndup(c->ar, hint, strlen(hint)) : NULL;
    if (!msg || (hint && !h)) {
        c->oom = true;
        return;
    }
    x->finds[x->nfinds++] = (dc_lxfind){rule, sev, sp, msg, h};
}

static void suppress(lx *c, uint32_t pos)
{
    if (c->nsup == c->capsup) {
        uint32_t nc = c->capsup ? c->capsup * 2 : 8;
        uint32_t *v = dc_arena_alloc(c->ar, nc * sizeof *v);
        if (!v) {
            c->oom = true;
            return;
        }
        if (c->nsup)
            memcpy(v, c->suppress, c->nsup * sizeof *v);
        c->suppress = v;
        c->capsup = nc;
    }
    c->suppress[c->nsup++] = pos;
}

static const char *text_of(lx *c, const dc_ast *e)
{
    const char *t = dc_arena_strndup(c->ar, c->src + e->span.start, e->span.end - e->span.start);
    if (!t)
        c->oom = true;
    return t ? t : "";
}

/* A pattern folded from string literals joined with `+`, into b; false if it is not one. */
static bool fold_pattern(const dc_ast *e, dc_buf *b)
{
    uint32_t n;
    const char *s = const_str(e, &n);
    if (s) {
        dc_buf_append(b, s, n);
        return true;
    }
    return is_call(e, "_+_", 2) && fold_pattern(e->u.call.args[0], b) &&
           fold_pattern(e->u.call.args[1], b);
}

static bool is_meta(char ch)
{
    return strchr("\\.^$|?*+()[]{}", ch) != NULL;
}

/* The anchoring of a constant pattern (Go's syntax). */
static void check_anchors(lx *c, const dc_ast *at, const char *p, size_t n)
{
    bool meta = false;
    for (size_t i = 0; i < n; i++)
        meta = meta || is_meta(p[i]);
    if (!meta && n > 0) {
        char hint[200];
        snprintf(hint, sizeof hint,
                 "matches() is true when the pattern occurs anywhere in the string: use "
                 "== \"%.*s\" for the exact value, contains(\"%.*s\") for a substring, or anchor "
                 "it (^%.*s$)",
                 (int)(n > 40 ? 40 : n), p, (int)(n > 40 ? 40 : n), p, (int)(n > 40 ? 40 : n), p);
        find(c, DC_LR_REGEX_ANCHOR, DRACEL_SEV_NOTE, at->span, hint,
             "the pattern \"%.*s\" has no anchors or metacharacters: it also matches any string "
             "that contains it", (int)(n > 60 ? 60 : n), p);
        return;
    }
    /* top-level alternatives */
    int depth = 0;
    bool cls = false, alt = false;
    size_t starts_[64], nalt = 0;
    starts_[nalt++] = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if (ch == '\\') {
            i++;
            continue;
        }
        if (cls) {
            if (ch == ']')
                cls = false;
            continue;
        }
        if (ch == '[')
            cls = true;
        else if (ch == '(')
            depth++;
        else if (ch == ')')
            depth--;
        else if (ch == '|' && depth == 0) {
            alt = true;
            if (nalt < 64)
                starts_[nalt++] = i + 1;
        }
    }
    if (!alt || nalt >= 64)
        return;
    bool lead = p[0] == '^', trail = n > 0 && p[n - 1] == '$' && (n < 2 || p[n - 2] != '\\');
    if (!lead && !trail)
        return;
    bool all_lead = true, all_trail = true;
    for (size_t k = 0; k < nalt; k++) {
        size_t s = starts_[k], e = k + 1 < nalt ? starts_[k + 1] - 1 : n;
        if (s >= e || p[s] != '^')
            all_lead = false;
        if (e == s || p[e - 1] != '$')
            all_trail = false;
    }
    if ((lead && !all_lead) || (trail && !all_trail)) {
        char hint[160];
        size_t a = lead ? 1 : 0, z = trail ? n - 1 : n;
        snprintf(hint, sizeof hint, "group the alternatives: \"%s(%.*s)%s\"", lead ? "^" : "",
                 (int)(z - a > 80 ? 80 : z - a), p + a, trail ? "$" : "");
        find(c, DC_LR_REGEX_ANCHOR, DRACEL_SEV_WARNING, at->span, hint,
             "in \"%.*s\", %s binds to the %s alternative only, not to all of them",
             (int)(n > 60 ? 60 : n), p, lead && !all_lead ? "^" : "$",
             lead && !all_lead ? "first" : "last");
    }
}

/* matches(), find(), findAll(): the pattern argument. */
static void regex_rules(lx *c, const dc_ast *e)
{
    const dc_ast *pat = e->u.call.args[1];
    const char *fn = e->u.call.fn;
    uint32_t n;
    const char *s = const_str(pat, &n);
    char err[256];
    if (s) {
        dc_re *re = dc_re_compile(s, n, err, sizeof err);
        if (!re) {
            if (strcmp(err, "out of memory") == 0) {
                c->oom = true;
                return;
            }
            find(c, DC_LR_REGEX_INVALID, DRACEL_SEV_ERROR, pat->span, NULL,
                 "invalid regular expression in %s(): %s (Kubernetes rejects the selector)", fn,
                 err);
            suppress(c, pat->pos);
            return;
        }
        dc_re_free(re);
        if (streq(fn, "matches"))
            check_anchors(c, pat, s, n);
        return;
    }
    dc_buf b;
    dc_buf_init(&b, c->ar->alloc);
    if (fold_pattern(pat, &b) && !b.oom) {
        dc_buf_putc(&b, '\0');
        const char *folded = b.data ? b.data : "";
        size_t len = b.len ? b.len - 1 : 0;
        dc_re *re = dc_re_compile(folded, len, err, sizeof err);
        if (!re) {
            find(c, DC_LR_REGEX_INVALID, DRACEL_SEV_ERROR, pat->span, NULL,
                 "the pattern built here is an invalid regular expression: %s (an error on every "
                 "device, which aborts the allocation)", err);
        } else {
            dc_re_free(re);
            char hint[200];
            snprintf(hint, sizeof hint, "write it as one string literal: \"%.*s\"",
                     (int)(len > 120 ? 120 : len), folded);
            find(c, DC_LR_REGEX_CONST, DRACEL_SEV_WARNING, pat->span, hint,
                 "the pattern of %s() is built when the selector runs, on every device, and is "
                 "not validated when the selector is created", fn);
        }
    } else if (b.oom) {
        c->oom = true;
    }
    dc_buf_free(&b);
}

/* A quantity: a capacity read (with or without a default) or quantity(...). */
static bool qty_term(const dc_ast *e)
{
    vterm t;
    if (value_term(e, &t))
        return t.path.kind == LP_CAP;
    return is_global(e, "quantity", 1);
}

static bool number_or_string(const dc_ast *e)
{
    if (e->kind != DC_AST_CONST)
        return false;
    dc_const_kind k = e->u.c.kind;
    return k == DC_CONST_INT || k == DC_CONST_UINT || k == DC_CONST_DOUBLE ||
           k == DC_CONST_STRING;
}

static bool version_name(const char *id)
{
    for (const char *p = id; *p; p++)
        if (strncasecmp(p, "version", 7) == 0)
            return true;
    return false;
}

static bool looks_version(const char *s, uint32_t n)
{
    if (dc_semver_is_valid(s, n, true))
        return true;
    bool digit = false;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9')
            digit = true;
        else if (s[i] != '.' && !(i == 0 && (s[i] == 'v' || s[i] == 'V')))
            return false;
    }
    return digit;
}

static void tree_rules(lx *c, const dc_ast *e)
{
    if (!e || c->oom)
        return;
    switch (e->kind) {
    case DC_AST_SELECT:
        tree_rules(c, e->u.sel.operand);
        return;
    case DC_AST_LIST:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            tree_rules(c, e->u.list.elems[i]);
        return;
    case DC_AST_MAP:
    case DC_AST_STRUCT:
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            tree_rules(c, e->u.map.entries[i].key);
            tree_rules(c, e->u.map.entries[i].value);
        }
        return;
    case DC_AST_COMPREHENSION:
        tree_rules(c, e->u.comp.range);
        tree_rules(c, e->u.comp.arg1);
        tree_rules(c, e->u.comp.arg2);
        return;
    case DC_AST_CALL:
        break;
    default:
        return;
    }
    const char *fn = e->u.call.fn;
    uint32_t n = e->u.call.nargs;
    const dc_ast *const *a = (const dc_ast *const *)e->u.call.args;
    for (uint32_t i = 0; i < n; i++)
        tree_rules(c, a[i]);
    if (n == 2 && (streq(fn, "matches") || ((e->flags & DC_ASTF_MEMBER) &&
                                           (streq(fn, "find") || streq(fn, "findAll")))))
        regex_rules(c, e);
    if (n == 3 && (e->flags & DC_ASTF_MEMBER) && streq(fn, "findAll"))
        regex_rules(c, e);
    if (n == 2 && (e->flags & DC_ASTF_MEMBER) && streq(fn, "includes"))
        find(c, DC_LR_GATED, DRACEL_SEV_WARNING, e->span,
             "enable DRAListTypeAttributes on the API server, or write `x in list` for a list "
             "and `x == value` for a scalar",
             "includes() exists for new or changed selectors only where the API server has the "
             "alpha gate DRAListTypeAttributes on (Kubernetes 1.36 and 1.37: its new-expressions "
             "environment); the scheduler evaluates it whatever the gate");
    bool cmp = op_of(fn) >= 0 || streq(fn, "_!=_");
    if (cmp && n == 2) {
        for (int side = 0; side < 2; side++) {
            if (qty_term(a[side]) && number_or_string(a[1 - side])) {
                bool str = a[1 - side]->u.c.kind == DC_CONST_STRING;
                find(c, DC_LR_QTY_COMPARE, DRACEL_SEV_ERROR, dc_span(e->pos, e->pos + 1),
                     "compare quantities with compareTo: X.compareTo(quantity(\"40Gi\")) >= 0",
                     "%s is a quantity: comparing it with %s %s is a type error (Quantity has no "
                     "%s operator)", text_of(c, a[side]), str ? "the string" : "the number",
                     text_of(c, a[1 - side]), str ? "such" : "numeric");
                suppress(c, e->pos);
                break;
            }
            vterm t;
            uint32_t len;
            const char *lit = const_str(a[1 - side], &len);
            if (lit && value_term(a[side], &t) && t.path.kind == LP_ATTR) {
                dc_lexpr *x = c->x;
                if (x->nvcmp == c->capvcmp) {
                    uint32_t nc = c->capvcmp ? c->capvcmp * 2 : 4;
                    dc_lvcmp *v = dc_arena_alloc(c->ar, nc * sizeof *v);
                    if (!v) {
                        c->oom = true;
                        return;
                    }
                    if (x->nvcmp)
                        memcpy(v, x->vcmp, x->nvcmp * sizeof *v);
                    x->vcmp = v;
                    c->capvcmp = nc;
                }
                const char *l = dc_arena_strndup(c->ar, lit, len);
                if (!l) {
                    c->oom = true;
                    return;
                }
                x->vcmp[x->nvcmp++] = (dc_lvcmp){
                    t.path, e->span, version_name(t.path.id) && looks_version(lit, len),
                    side == 0, streq(fn, "_==_") || streq(fn, "_!=_"), text_of(c, a[side]), l};
            }
        }
    }
    if ((e->flags & DC_ASTF_MEMBER) && n == 2 &&
        (streq(fn, "compareTo") || streq(fn, "isGreaterThan") || streq(fn, "isLessThan")) &&
        qty_term(a[0]) && number_or_string(a[1])) {
        bool str = a[1]->u.c.kind == DC_CONST_STRING;
        find(c, DC_LR_QTY_COMPARE, DRACEL_SEV_ERROR, a[1]->span,
             str ? "make it a quantity: quantity(\"...\")"
                 : "give a quantity with its unit: quantity(\"40Gi\")",
             "%s() of a quantity takes a quantity, not %s %s (a type error)", fn,
             str ? "the string" : "the number", text_of(c, a[1]));
        suppress(c, e->pos);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The expression
 */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static const char *canon(lx *c, const dc_ast *e)
{
    dc_buf b;
    dc_buf_init(&b, c->ar->alloc);
    dc_ast_print(&b, e);
    const char *s = b.oom ? NULL : dc_arena_strndup(c->ar, b.data ? b.data : "", b.len);
    dc_buf_free(&b);
    if (!s)
        c->oom = true;
    return s ? s : "";
}

static void split(lx *c, const dc_ast *e, const dc_ast ***v, uint32_t *n, uint32_t *cap)
{
    if (is_call(e, "_&&_", 2)) {
        split(c, e->u.call.args[0], v, n, cap);
        split(c, e->u.call.args[1], v, n, cap);
        return;
    }
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        const dc_ast **w = dc_arena_alloc(c->ar, nc * sizeof *w);
        if (!w) {
            c->oom = true;
            return;
        }
        if (*n)
            memcpy(w, *v, *n * sizeof *w);
        *v = w;
        *cap = nc;
    }
    (*v)[(*n)++] = e;
}

static bool suppressed(const lx *c, uint32_t pos)
{
    for (uint32_t i = 0; i < c->nsup; i++)
        if (c->suppress[i] == pos)
            return true;
    return false;
}

static bool ends_with(const char *s, const char *t)
{
    size_t n = strlen(s), m = strlen(t);
    return n >= m && strcmp(s + n - m, t) == 0;
}

static void own_path(lx *c, dc_lpath *p)
{
    if (p->dom && !(p->dom = dc_arena_strndup(c->ar, p->dom, strlen(p->dom))))
        c->oom = true;
    if (p->id && !(p->id = dc_arena_strndup(c->ar, p->id, strlen(p->id))))
        c->oom = true;
}

dracel_status dc_lint_expr(const dc_lint_env *le, dc_lexpr *x)
{
    const dracel_alloc *alloc = dc_alloc_of(le->cfg);
    x->hash = hash_bytes(x->src, x->len);
    dc_diags *d = dc_diags_new(alloc, le->cfg->max_errors);
    if (!d)
        return DRACEL_ENOMEM;
    d->max_bytes = 0;
    dc_arena tmp;
    dc_arena_init(&tmp, alloc);
    lx c;
    memset(&c, 0, sizeof c);
    c.le = le;
    c.x = x;
    c.src = x->src;
    c.ar = le->arena;
    dc_ast *ast = NULL;
    dracel_status st = dc_parse(le->cfg, &tmp, d, x->src, x->len, &ast);
    if (st == DRACEL_ENOMEM || d->oom) {
        st = DRACEL_ENOMEM;
        goto out;
    }
    if (st != DRACEL_OK || d->errors) {
        for (size_t i = 0; i < d->count; i++)
            if (d->items[i].sev == DRACEL_SEV_ERROR)
                find(&c, DC_LR_SYNTAX, DRACEL_SEV_ERROR, d->items[i].span, NULL, "%s",
                     d->items[i].msg);
        st = DRACEL_OK;
        goto out;
    }
    tree_rules(&c, ast);
    size_t before = d->count;
    dc_checked info = {0};
    const dc_type *t = dc_check_ex(le->env, &tmp, d, ast, &info);
    if (d->oom) {
        st = DRACEL_ENOMEM;
        goto out;
    }
    for (size_t i = before; i < d->count; i++) {
        const dc_diag *g = &d->items[i];
        if (g->sev != DRACEL_SEV_ERROR || suppressed(&c, g->span.start))
            continue;
        dc_lint_rule r = DC_LR_TYPE;
        const char *hint = NULL;
        if (ends_with(g->msg, "not supported in device selectors"))
            r = DC_LR_UNSUPPORTED;
        else if (strncmp(g->msg, "must evaluate to bool", 21) == 0) {
            r = DC_LR_NONBOOL;
            hint = "a selector must be a condition: compare the value, e.g. == true";
        } else if (strstr(g->msg, "map(string, dyn)") ||
                   strstr(g->msg, "map(string, kubernetes.Quantity)")) {
            /* device.attributes['model']: a domain's map, not the attribute */
            hint = strstr(g->msg, "Quantity")
                       ? "device.capacity is keyed by the driver's domain first, then the "
                         "capacity: for example device.capacity[\"gpu.example.com\"].memory, "
                         "not device.capacity[\"memory\"]"
                       : "device.attributes is keyed by the driver's domain first, then the "
                         "attribute: for example device.attributes[\"gpu.example.com\"].model, "
                         "not device.attributes[\"model\"]";
        }
        find(&c, r, DRACEL_SEV_ERROR, g->span, hint, "%s", g->msg);
    }
    if (!t || d->errors) {
        st = DRACEL_OK;
        goto out;
    }
    x->ok = true;
    if (t->kind == DC_TY_DYN)
        find(&c, DC_LR_NONBOOL, DRACEL_SEV_WARNING, ast->span, "compare it: ... == true",
             "the result's type is dyn: on a device where it is not a bool the selector is an "
             "error, which aborts the allocation");
    dc_cost_est est;
    st = dc_cost_estimate_ex(le->env, ast, &info, NULL, &est);
    if (st != DRACEL_OK)
        goto out;
    uint64_t limit = le->cfg->cost_limit;
    if (limit && est.max > limit) {
        if (est.max == UINT64_MAX)
            find(&c, DC_LR_COST, DRACEL_SEV_ERROR, dc_span(0, 0),
                 "bound what it iterates over, or split it into several selectors",
                 "the estimated cost is unbounded, over Kubernetes' limit of %llu (the API server "
                 "rejects it: too complex, exceeds cost limit)", (unsigned long long)limit);
        else
            find(&c, DC_LR_COST, DRACEL_SEV_ERROR, dc_span(0, 0),
                 "iterate over less, or split it into several selectors",
                 "the estimated cost is %llu, over Kubernetes' limit of %llu (the API server "
                 "rejects it: too complex, exceeds cost limit)", (unsigned long long)est.max,
                 (unsigned long long)limit);
    }
    /* facts */
    const dc_ast **parts = NULL;
    uint32_t np = 0, capp = 0;
    split(&c, ast, &parts, &np, &capp);
    x->canon = canon(&c, ast);
    if (np && !c.oom) {
        x->facts = dc_arena_zalloc(c.ar, np * sizeof *x->facts);
        if (!x->facts)
            c.oom = true;
    }
    for (uint32_t i = 0; i < np && !c.oom; i++) {
        dc_lfact *f = &x->facts[x->nfacts++];
        const dc_ast *p = parts[i];
        if (p->kind == DC_AST_CONST && p->u.c.kind == DC_CONST_BOOL && !p->u.c.v.b) {
            memset(f, 0, sizeof *f);
            f->is_false = f->analyzed = f->exact = true;
            f->span = p->span;
        } else if (!fact_of(&c, p, f)) {
            memset(f, 0, sizeof *f);
            dc_lvset_all(&f->set);
            f->span = p->span;
        }
        f->canon = canon(&c, p);
    }
    /* what the selector needs present, and the reads without a guard */
    pset pres = {0};
    collect(&c, ast, true, &pres);
    for (uint32_t i = 0; i < x->nfacts; i++)
        if (x->facts[i].analyzed && !x->facts[i].is_false && !x->facts[i].set.absent &&
            x->facts[i].path.kind != LP_DRIVER && x->facts[i].path.kind != LP_MULTI)
            pset_add(&c, &pres, &x->facts[i].path);
    x->present = pres.v;
    x->npresent = pres.n;
    pset none = {0};
    guard_walk(&c, ast, &none, NULL);
    /* the paths point into the syntax tree, which goes with `tmp` */
    for (uint32_t i = 0; i < x->nfacts; i++)
        own_path(&c, &x->facts[i].path);
    for (uint32_t i = 0; i < x->npresent; i++)
        own_path(&c, &x->present[i]);
    for (uint32_t i = 0; i < x->nacc; i++) {
        own_path(&c, &x->acc[i].path);
        for (uint32_t j = 0; j < x->acc[i].nctx; j++)
            own_path(&c, &x->acc[i].ctx[j].path);
    }
    for (uint32_t i = 0; i < x->nvcmp; i++)
        own_path(&c, &x->vcmp[i].path);
out:
    if (c.oom)
        st = DRACEL_ENOMEM;
    dc_arena_free(&tmp);
    dracel_diags_free(d);
    return st;
}
