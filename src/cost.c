/*
 * cost.c: the static cost estimator (see cost.h for the model).
 *
 * Structure:
 *   1. translation of the checked AST into cel-go's shape (`xn` nodes): comprehension macros
 *      become comprehensions with cel-go's accumulator initializer, loop condition, loop step
 *      and result (parser/macro.go, ext/comprehensions.go, ext/bindings.go), and the macros the
 *      checker keeps as calls (sortBy, optMap, optFlatMap) become their cel-go expansions;
 *      qualified variable names become identifiers and namespaced calls global calls. Synthetic
 *      nodes get ids after the AST's; subtrees are shared, never copied (optMap's target, which
 *      cel-go copies, is costed once and its cost reused);
 *   2. one walk over that tree computing cost ranges, with per-node state indexed by id: the
 *      derived size, the entry sizes of containers and the field path (cel-go's computedSizes,
 *      computedEntrySizes and exprPaths), and a stack of local variables (comprehension
 *      variables, accumulators, cel.bind names). The translated tree is up to five times as
 *      deep as the AST, so this walk keeps its own stack instead of recursing ("The walk");
 *      the translation recurses only as deep as the AST, which the parser bounds;
 *   3. call estimates in cel-go's order: the per-overload estimators of the extension libraries
 *      (ext lists, ext sets), then the host estimator (Kubernetes: DRA's `includes`, then the
 *      library CostEstimator keyed by function name), then cel-go's built-in formulas keyed by
 *      overload id, then 1 plus the arguments. The overloads of a call are the declared ones
 *      whose parameters accept the checked argument types (dyn accepts all), as cel-go's checker
 *      records them; the call's cost is the union over them.
 *
 * Deliberate differences from cel-go, all on paths selectors cannot reach: no timestamp,
 * duration, URL, IP/CIDR or authorizer functions (not declared here); type parameters of an
 * overload are not unified across parameters when picking overloads (the expression already
 * checked); Go's aliasing of appended path slices is not reproduced.
 *
 * Change with: src/cost.h, tests/unit/test_cost.c, src/decls.c (overload ids).
 */
#include "cost.h"

#include <math.h>
#include <string.h>

#include "host.h"

typedef dc_cost_est est;
typedef dc_cost_size size;

/* ---------------------------------------------------------------------------------------------
 * Saturating arithmetic, as cel-go's addUint64NoOverflow, multiplyUint64NoOverflow and
 * multiplyByCostFactor (ceil of the float product, saturating at 2^64).
 */

static const double two64 = 18446744073709551616.0;

static uint64_t sat_add(uint64_t x, uint64_t y)
{
    return (y > 0 && x > UINT64_MAX - y) ? UINT64_MAX : x + y;
}

static uint64_t sat_mul(uint64_t x, uint64_t y)
{
    return (y != 0 && x > UINT64_MAX / y) ? UINT64_MAX : x * y;
}

static uint64_t mul_factor(uint64_t x, double f)
{
    double xf = (double)x;
    if (xf > 0 && f > 0 && xf > two64 / f)
        return UINT64_MAX;
    double c = ceil(xf * f);
    if (c >= two64)
        return UINT64_MAX;
    if (!(c > 0))
        return 0;
    return (uint64_t)c;
}

static est E(uint64_t min, uint64_t max)
{
    est r = {min, max};
    return r;
}

static size S(uint64_t min, uint64_t max)
{
    size r = {min, max};
    return r;
}

static const size unknown_size = {0, UINT64_MAX};

static est est_add(est a, est b)
{
    return E(sat_add(a.min, b.min), sat_add(a.max, b.max));
}

static est est_union(est a, est b)
{
    return E(b.min < a.min ? b.min : a.min, b.max > a.max ? b.max : a.max);
}

static size size_add(size a, size b)
{
    return S(sat_add(a.min, b.min), sat_add(a.max, b.max));
}

static size size_mul(size a, size b)
{
    return S(sat_mul(a.min, b.min), sat_mul(a.max, b.max));
}

static size size_union(size a, size b)
{
    return S(b.min < a.min ? b.min : a.min, b.max > a.max ? b.max : a.max);
}

static est size_factor(size a, double f)
{
    return E(mul_factor(a.min, f), mul_factor(a.max, f));
}

static est size_mul_cost(size a, est c)
{
    return E(sat_mul(a.min, c.min), sat_mul(a.max, c.max));
}

static est est_mul(est a, est b)
{
    return E(sat_mul(a.min, b.min), sat_mul(a.max, b.max));
}

static est est_factor(est a, double f)
{
    return E(mul_factor(a.min, f), mul_factor(a.max, f));
}

/* cel-go common/cost.go constants. */
#define COST_SELECT_IDENT 1
#define COST_CONST 0
#define COST_LIST_CREATE 10
#define COST_MAP_CREATE 30
#define COST_STRUCT_CREATE 40
#define STRING_TRAVERSAL 0.1
#define REGEX_LENGTH 0.25

/* Kubernetes' resource.k8s.io/v1 limits used by the DRA size estimator. */
#define DRA_MAX_ATTRS 32          /* ResourceSliceMaxAttributesAndCapacitiesPerDevice */
#define DRA_MAX_DOMAIN 63         /* DeviceMaxDomainLength */
#define DRA_MAX_ID 32             /* DeviceMaxIDLength */
#define DRA_MAX_DRIVER 63         /* DriverNameMaxLength */
#define DRA_MAX_VALUE 64          /* max(DeviceAttributeMaxValueLength, 48 list values) */
#define DRA_MAX_LIST_VALUES 48    /* ResourceSliceMaxAttributeValuesPerDevice (includes) */

static bool streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* ---------------------------------------------------------------------------------------------
 * The translated tree.
 */

enum { X_CONST, X_IDENT, X_SELECT, X_CALL, X_LIST, X_MAP, X_STRUCT, X_COMP };

typedef struct xn xn;
struct xn {
    uint8_t kind;
    bool test_only; /* SELECT: has() */
    bool member;    /* CALL: args[0] is the target */
    bool bind;      /* COMP: cel.bind's shape (costBind) */
    bool done;      /* cost computed (a shared subtree is costed once) */
    uint32_t id;
    const dc_type *type; /* NULL: unknown (dyn) */
    const char *name;    /* IDENT name, SELECT field, CALL function */
    const dc_const *lit; /* CONST */
    xn **args; /* CALL (target first), LIST elements, MAP key/value pairs, STRUCT values */
    uint32_t n;
    xn *range, *init, *cond, *step, *result; /* COMP */
    const char *v1, *v2, *accu;
    est memo;
};

/* A field path, shared by prefix: the root variable first. */
typedef struct cpath {
    const struct cpath *up;
    const char *seg;
    uint32_t n;
} cpath;

/* cel-go's entrySizeEstimate: the key (or index) and value sizes of a container. */
typedef struct entry {
    bool ok;
    bool list; /* else map */
    size key, val;
} entry;

typedef struct ninfo {
    bool has_size;
    size sz;
    entry ent;
    const cpath *path;
} ninfo;

typedef struct lvar {
    const char *name;
    const cpath *path;
    bool has_size;
    size sz;
    entry ent;
} lvar;

typedef struct cc {
    const dc_env *env;
    const dc_checked *ck;
    const dc_cost_opts *opts;
    dc_arena a;
    bool dra;
    bool oom;
    est presence;
    uint32_t next_id;
    ninfo *info;
    uint32_t ninfo;
    ninfo spare;
    lvar *locals;
    uint32_t nlocals, caplocals;
} cc;

static void *alloc(cc *c, size_t n)
{
    void *p = dc_arena_zalloc(&c->a, n ? n : 1);
    if (!p)
        c->oom = true;
    return p;
}

static const dc_type *ty(const cc *c, const dc_ast *e)
{
    if (!c->ck || !c->ck->types || !e || e->id >= c->ck->ntypes)
        return NULL;
    return c->ck->types[e->id];
}

/* ---- Node constructors (synthetic nodes get fresh ids). */

static xn *mk(cc *c, int kind, const dc_type *t, uint32_t id)
{
    xn *x = alloc(c, sizeof *x);
    if (!x)
        return NULL;
    x->kind = (uint8_t)kind;
    x->type = t;
    x->id = id ? id : c->next_id++;
    return x;
}

static xn *mk_lit(cc *c, dc_const_kind k, bool b, int64_t i)
{
    dc_const *lit = alloc(c, sizeof *lit);
    xn *x = mk(c, X_CONST, k == DC_CONST_BOOL ? &dc_ty_bool : &dc_ty_int, 0);
    if (!lit || !x)
        return NULL;
    lit->kind = k;
    if (k == DC_CONST_BOOL)
        lit->v.b = b;
    else
        lit->v.i = i;
    x->lit = lit;
    return x;
}

static xn *mk_ident(cc *c, const char *name, const dc_type *t)
{
    xn *x = mk(c, X_IDENT, t, 0);
    if (x)
        x->name = name;
    return x;
}

static xn *mk_call(cc *c, const char *fn, bool member, const dc_type *t, uint32_t n, xn *a0,
                   xn *a1, xn *a2)
{
    xn *x = mk(c, X_CALL, t, 0);
    xn **args = alloc(c, 3 * sizeof *args);
    if (!x || !args || !a0 || (n > 1 && !a1) || (n > 2 && !a2))
        return NULL;
    args[0] = a0;
    args[1] = a1;
    args[2] = a2;
    x->name = fn;
    x->member = member;
    x->args = args;
    x->n = n;
    return x;
}

/* [] or [elem]. */
static xn *mk_list(cc *c, const dc_type *t, xn *elem)
{
    xn *x = mk(c, X_LIST, t, 0);
    if (!x)
        return NULL;
    if (elem) {
        x->args = alloc(c, sizeof *x->args);
        if (!x->args)
            return NULL;
        x->args[0] = elem;
        x->n = 1;
    }
    return x;
}

static xn *mk_comp(cc *c, const dc_type *t, uint32_t id, xn *range, const char *v1,
                   const char *v2, const char *accu, xn *init, xn *cond, xn *step, xn *result)
{
    if (!range || !init || !cond || !step || !result)
        return NULL;
    xn *x = mk(c, X_COMP, t, id);
    if (!x)
        return NULL;
    x->range = range;
    x->v1 = v1;
    x->v2 = v2;
    x->accu = accu;
    x->init = init;
    x->cond = cond;
    x->step = step;
    x->result = result;
    return x;
}

/* cel.bind(name, init, body): cel-go's comprehension over [] with the bound name as
 * accumulator, loop condition false, the name as step. */
static xn *mk_bind(cc *c, const dc_type *t, uint32_t id, const char *name, xn *init, xn *body)
{
    if (!init)
        return NULL;
    xn *x = mk_comp(c, t, id, mk_list(c, NULL, NULL), "#unused", NULL, name,
                    init, mk_lit(c, DC_CONST_BOOL, false, 0), mk_ident(c, name, init->type),
                    body);
    if (x)
        x->bind = true;
    return x;
}

static const char *const ACCU = "@result";

static const dc_type *t_elem(const dc_type *t)
{
    return t && (t->kind == DC_TY_LIST || t->kind == DC_TY_MAP) ? t->a : NULL;
}

/* ---- Translation. */

static xn *tr(cc *c, const dc_ast *e);

/* "a.b.c" of an IDENT/SELECT chain (a leading dot dropped). */
static const char *dotted(cc *c, const dc_ast *e)
{
    size_t len = 0;
    for (const dc_ast *p = e;; p = p->u.sel.operand) {
        if (p->kind == DC_AST_IDENT) {
            len += strlen(p->u.ident.name);
            break;
        }
        if (p->kind != DC_AST_SELECT || (p->flags & DC_ASTF_TEST_ONLY))
            return NULL;
        len += strlen(p->u.sel.field) + 1;
    }
    char *buf = alloc(c, len + 1);
    if (!buf)
        return NULL;
    size_t end = len;
    for (const dc_ast *p = e;; p = p->u.sel.operand) {
        const char *s = p->kind == DC_AST_IDENT ? p->u.ident.name : p->u.sel.field;
        size_t n = strlen(s);
        end -= n;
        memcpy(buf + end, s, n);
        if (p->kind == DC_AST_IDENT)
            break;
        buf[--end] = '.';
    }
    buf[len] = '\0';
    return buf[0] == '.' ? buf + 1 : buf;
}

static xn *tr_comprehension(cc *c, const dc_ast *e)
{
    const dc_type *ct = ty(c, e);
    dc_macro m = e->u.comp.macro;
    xn *range = tr(c, e->u.comp.range);
    xn *p = e->u.comp.arg1 ? tr(c, e->u.comp.arg1) : NULL;
    xn *t = e->u.comp.arg2 ? tr(c, e->u.comp.arg2) : NULL;
    if (!range || !p || (e->u.comp.arg2 && !t))
        return NULL;
    if (m == DC_MACRO_BIND)
        return mk_bind(c, ct, e->id, e->u.comp.var1, range, p);
    const char *v1 = e->u.comp.var1;
    const char *v2 = dc_macro_nvars[m] == 2 ? e->u.comp.var2 : NULL;
    const dc_type *b = &dc_ty_bool, *i = &dc_ty_int;
    xn *init = NULL, *cond = NULL, *step = NULL, *result = NULL;
    switch (m) {
    case DC_MACRO_ALL:
    case DC_MACRO_ALL2:
        init = mk_lit(c, DC_CONST_BOOL, true, 0);
        cond = mk_call(c, "@not_strictly_false", false, b, 1, mk_ident(c, ACCU, b), NULL, NULL);
        step = mk_call(c, "_&&_", false, b, 2, mk_ident(c, ACCU, b), p, NULL);
        result = mk_ident(c, ACCU, b);
        break;
    case DC_MACRO_EXISTS:
    case DC_MACRO_EXISTS2:
        init = mk_lit(c, DC_CONST_BOOL, false, 0);
        cond = mk_call(c, "@not_strictly_false", false, b, 1,
                       mk_call(c, "!_", false, b, 1, mk_ident(c, ACCU, b), NULL, NULL), NULL,
                       NULL);
        step = mk_call(c, "_||_", false, b, 2, mk_ident(c, ACCU, b), p, NULL);
        result = mk_ident(c, ACCU, b);
        break;
    case DC_MACRO_EXISTS_ONE:
    case DC_MACRO_EXISTS_ONE2:
        init = mk_lit(c, DC_CONST_INT, false, 0);
        cond = mk_lit(c, DC_CONST_BOOL, true, 0);
        step = mk_call(c, "_?_:_", false, i, 3, p,
                       mk_call(c, "_+_", false, i, 2, mk_ident(c, ACCU, i),
                               mk_lit(c, DC_CONST_INT, false, 1), NULL),
                       mk_ident(c, ACCU, i));
        result = mk_call(c, "_==_", false, b, 2, mk_ident(c, ACCU, i),
                         mk_lit(c, DC_CONST_INT, false, 1), NULL);
        break;
    case DC_MACRO_MAP:
    case DC_MACRO_MAP_FILTER:
    case DC_MACRO_FILTER:
    case DC_MACRO_TRANSFORM_LIST:
    case DC_MACRO_TRANSFORM_LIST_FILTER: {
        /* @result + [transform], under `filter ? ... : @result` when filtered. */
        bool filtered = m != DC_MACRO_MAP && m != DC_MACRO_TRANSFORM_LIST;
        xn *elem = m == DC_MACRO_FILTER ? mk_ident(c, v1, t_elem(ct)) : filtered ? t : p;
        init = mk_list(c, ct, NULL);
        cond = mk_lit(c, DC_CONST_BOOL, true, 0);
        step = mk_call(c, "_+_", false, ct, 2, mk_ident(c, ACCU, ct), mk_list(c, ct, elem),
                       NULL);
        if (filtered)
            step = mk_call(c, "_?_:_", false, ct, 3, p, step, mk_ident(c, ACCU, ct));
        result = mk_ident(c, ACCU, ct);
        break;
    }
    case DC_MACRO_TRANSFORM_MAP:
    case DC_MACRO_TRANSFORM_MAP_FILTER:
    case DC_MACRO_TRANSFORM_MAP_ENTRY:
    case DC_MACRO_TRANSFORM_MAP_ENTRY_FILTER: {
        /* cel.@mapInsert(@result, [k,] transform), under the filter when there is one. */
        bool filtered =
            m == DC_MACRO_TRANSFORM_MAP_FILTER || m == DC_MACRO_TRANSFORM_MAP_ENTRY_FILTER;
        bool whole = m == DC_MACRO_TRANSFORM_MAP_ENTRY || m == DC_MACRO_TRANSFORM_MAP_ENTRY_FILTER;
        xn *tf = filtered ? t : p;
        xn *accu = mk_ident(c, ACCU, ct);
        init = mk(c, X_MAP, ct, 0);
        cond = mk_lit(c, DC_CONST_BOOL, true, 0);
        step = whole ? mk_call(c, "cel.@mapInsert", false, ct, 2, accu, tf, NULL)
                     : mk_call(c, "cel.@mapInsert", false, ct, 3, accu,
                               mk_ident(c, v1, ct && ct->kind == DC_TY_MAP ? ct->a : NULL), tf);
        if (filtered)
            step = mk_call(c, "_?_:_", false, ct, 3, p, step, mk_ident(c, ACCU, ct));
        result = mk_ident(c, ACCU, ct);
        break;
    }
    case DC_MACRO_BIND:
    case DC_MACRO__COUNT:
        return NULL;
    }
    return mk_comp(c, ct, e->id, range, v1, v2, ACCU, init, cond, step, result);
}

/* opt.optMap(v, expr) / opt.optFlatMap(v, expr), as cel-go expands them:
 *   opt.hasValue() ? optional.of(cel.bind(v, opt.value(), expr)) : optional.none()
 * (no optional.of for optFlatMap). The target node is shared by both uses. */
static xn *tr_opt_map(cc *c, const dc_ast *e, bool flat)
{
    const dc_type *ct = ty(c, e);
    const dc_type *tt = ty(c, e->u.call.args[0]);
    const dc_type *vt = tt && tt->kind == DC_TY_OPTIONAL ? tt->a : NULL;
    xn *target = tr(c, e->u.call.args[0]);
    xn *body = tr(c, e->u.call.args[2]);
    if (!target || !body)
        return NULL;
    xn *bind = mk_bind(c, body->type, 0, e->u.call.args[1]->u.ident.name,
                       mk_call(c, "value", true, vt, 1, target, NULL, NULL), body);
    xn *then = flat ? bind : mk_call(c, "optional.of", false, ct, 1, bind, NULL, NULL);
    xn *none = mk(c, X_CALL, ct, 0);
    if (!none)
        return NULL;
    none->name = "optional.none";
    xn *x = mk_call(c, "_?_:_", false, ct, 3,
                    mk_call(c, "hasValue", true, &dc_ty_bool, 1, target, NULL, NULL), then, none);
    if (x)
        x->id = e->id;
    return x;
}

/* list.sortBy(v, key), as cel-go's ext lists expand it:
 *   cel.bind(@__sortBy_input__, list,
 *            @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(v, key))) */
static xn *tr_sort_by(cc *c, const dc_ast *e)
{
    static const char *const in = "@__sortBy_input__";
    const dc_type *ct = ty(c, e);
    const dc_type *tt = ty(c, e->u.call.args[0]);
    xn *target = tr(c, e->u.call.args[0]);
    xn *key = tr(c, e->u.call.args[2]);
    if (!target || !key)
        return NULL;
    const dc_type *lt = key->type ? dc_ty_list(&c->a, key->type) : NULL;
    xn *map = mk_comp(
        c, lt, 0, mk_ident(c, in, tt), e->u.call.args[1]->u.ident.name, NULL, ACCU,
        mk_list(c, lt, NULL), mk_lit(c, DC_CONST_BOOL, true, 0),
        mk_call(c, "_+_", false, lt, 2, mk_ident(c, ACCU, lt), mk_list(c, lt, key), NULL),
        mk_ident(c, ACCU, lt));
    xn *call = mk_call(c, "@sortByAssociatedKeys", true, ct, 2, mk_ident(c, in, tt), map, NULL);
    return mk_bind(c, ct, e->id, in, target, call);
}

static bool is_macro_var(const dc_ast *e)
{
    return e && e->kind == DC_AST_IDENT && e->u.ident.name[0] != '.';
}

static xn *tr_call(cc *c, const dc_ast *e)
{
    const char *fn = e->u.call.fn;
    uint32_t n = e->u.call.nargs;
    bool member = e->flags & DC_ASTF_MEMBER;
    if (member && n == 3 && is_macro_var(e->u.call.args[1])) {
        if (streq(fn, "sortBy"))
            return tr_sort_by(c, e);
        if (streq(fn, "optMap"))
            return tr_opt_map(c, e, false);
        if (streq(fn, "optFlatMap"))
            return tr_opt_map(c, e, true);
    }
    uint32_t skip = 0;
    if (member) {
        const char *q = dc_check_qualified_fn(c->env, e);
        if (q) {
            fn = q;
            member = false;
            skip = 1;
        }
    }
    if (fn[0] == '.')
        fn++;
    xn *x = mk(c, X_CALL, ty(c, e), e->id);
    if (!x)
        return NULL;
    x->name = fn;
    x->member = member;
    x->n = n - skip;
    x->args = alloc(c, (x->n ? x->n : 1) * sizeof *x->args);
    if (!x->args)
        return NULL;
    for (uint32_t i = 0; i < x->n; i++)
        if (!(x->args[i] = tr(c, e->u.call.args[i + skip])))
            return NULL;
    return x;
}

static xn *tr(cc *c, const dc_ast *e)
{
    if (!e || c->oom)
        return NULL;
    xn *x;
    switch (e->kind) {
    case DC_AST_CONST:
        if (!(x = mk(c, X_CONST, ty(c, e), e->id)))
            return NULL;
        x->lit = &e->u.c;
        return x;
    case DC_AST_IDENT:
        if (!(x = mk(c, X_IDENT, ty(c, e), e->id)))
            return NULL;
        x->name = e->u.ident.name[0] == '.' ? e->u.ident.name + 1 : e->u.ident.name;
        return x;
    case DC_AST_SELECT:
        if (!(e->flags & DC_ASTF_TEST_ONLY) && ty(c, e) && !ty(c, e->u.sel.operand)) {
            /* A qualified variable name: cel-go's checker turns it into an identifier. */
            const char *name = dotted(c, e);
            if (name) {
                if (!(x = mk(c, X_IDENT, ty(c, e), e->id)))
                    return NULL;
                x->name = name;
                return x;
            }
        }
        if (!(x = mk(c, X_SELECT, ty(c, e), e->id)))
            return NULL;
        x->test_only = e->flags & DC_ASTF_TEST_ONLY;
        x->name = e->u.sel.field;
        x->args = alloc(c, sizeof *x->args);
        if (!x->args || !(x->args[0] = tr(c, e->u.sel.operand)))
            return NULL;
        x->n = 1;
        return x;
    case DC_AST_CALL:
        return tr_call(c, e);
    case DC_AST_LIST:
        if (!(x = mk(c, X_LIST, ty(c, e), e->id)))
            return NULL;
        x->n = e->u.list.n;
        x->args = alloc(c, (x->n ? x->n : 1) * sizeof *x->args);
        if (!x->args)
            return NULL;
        for (uint32_t i = 0; i < x->n; i++)
            if (!(x->args[i] = tr(c, e->u.list.elems[i])))
                return NULL;
        return x;
    case DC_AST_MAP:
    case DC_AST_STRUCT: {
        bool map = e->kind == DC_AST_MAP;
        if (!(x = mk(c, map ? X_MAP : X_STRUCT, ty(c, e), e->id)))
            return NULL;
        x->n = map ? 2 * e->u.map.n : e->u.map.n;
        x->args = alloc(c, (x->n ? x->n : 1) * sizeof *x->args);
        if (!x->args)
            return NULL;
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            const dc_entry *en = &e->u.map.entries[i];
            if (map) {
                if (!(x->args[2 * i] = tr(c, en->key)) ||
                    !(x->args[2 * i + 1] = tr(c, en->value)))
                    return NULL;
            } else if (!(x->args[i] = tr(c, en->value))) {
                return NULL;
            }
        }
        return x;
    }
    case DC_AST_COMPREHENSION:
        return tr_comprehension(c, e);
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Paths, locals, sizes.
 */

static const cpath *path_push(cc *c, const cpath *up, const char *seg)
{
    cpath *p = alloc(c, sizeof *p);
    if (!p)
        return NULL;
    p->up = up;
    p->seg = seg;
    p->n = up ? up->n + 1 : 1;
    return p;
}

static const lvar *find_local(const cc *c, const char *name)
{
    for (uint32_t i = c->nlocals; i-- > 0;)
        if (streq(c->locals[i].name, name))
            return &c->locals[i];
    return NULL;
}

static void push_local(cc *c, const char *name, const cpath *path, const size *sz,
                       const entry *ent)
{
    if (c->nlocals == c->caplocals) {
        uint32_t cap = c->caplocals ? 2 * c->caplocals : 16;
        lvar *nl = alloc(c, cap * sizeof *nl);
        if (!nl)
            return;
        if (c->nlocals)
            memcpy(nl, c->locals, c->nlocals * sizeof *nl);
        c->locals = nl;
        c->caplocals = cap;
    }
    lvar *l = &c->locals[c->nlocals++];
    memset(l, 0, sizeof *l);
    l->name = name;
    l->path = path;
    if (sz) {
        l->has_size = true;
        l->sz = *sz;
    }
    if (ent)
        l->ent = *ent;
}

static void pop_locals(cc *c, uint32_t mark)
{
    if (c->nlocals > mark)
        c->nlocals = mark;
}

/* Every node gets its id before the table is allocated; the spare slot is never reached. */
static ninfo *info(cc *c, const xn *e)
{
    if (e->id < c->ninfo)
        return &c->info[e->id];
    memset(&c->spare, 0, sizeof c->spare);
    return &c->spare;
}

/* cel-go's getPath: an identifier's local variable path, else the node's own. */
static const cpath *get_path(cc *c, xn *e)
{
    if (e->kind == X_IDENT) {
        const lvar *l = find_local(c, e->name);
        if (l)
            return l->path;
    }
    return info(c, e)->path;
}

static bool is_scalar(const dc_type *t)
{
    if (!t)
        return false;
    switch (t->kind) {
    case DC_TY_BOOL:
    case DC_TY_INT:
    case DC_TY_UINT:
    case DC_TY_DOUBLE:
        return true;
    case DC_TY_OPTIONAL:
        return is_scalar(t->a);
    default:
        return false;
    }
}

/* Kubernetes' DRA sizeEstimator over the declared `device` type (the newest declaration). */
enum { D_NONE, D_DEVICE, D_DRIVER, D_MULTI, D_ATTRS, D_ATTRS_IN, D_ATTR_VAL, D_CAPS, D_CAPS_IN,
       D_QTY, D_DOMAIN, D_ID };

static bool dra_size(const char *const *seg, uint32_t n, size *out)
{
    static const uint64_t max_elems[] = {0, 0, DRA_MAX_DRIVER, 1, DRA_MAX_ATTRS, DRA_MAX_ATTRS,
                                         DRA_MAX_VALUE, DRA_MAX_ATTRS, DRA_MAX_ATTRS, 0,
                                         DRA_MAX_DOMAIN, DRA_MAX_ID};
    if (n == 0 || !streq(seg[0], "device"))
        return false;
    int st = D_DEVICE;
    for (uint32_t i = 1; i < n && st != D_NONE; i++) {
        const char *s = seg[i];
        bool items = streq(s, "@items") || streq(s, "@values");
        bool keys = streq(s, "@keys");
        switch (st) {
        case D_DEVICE:
            st = streq(s, "driver")                     ? D_DRIVER
                 : streq(s, "allowMultipleAllocations") ? D_MULTI
                 : streq(s, "attributes")               ? D_ATTRS
                 : streq(s, "capacity")                 ? D_CAPS
                                                        : D_NONE;
            break;
        case D_ATTRS:
            st = items ? D_ATTRS_IN : keys ? D_DOMAIN : D_NONE;
            break;
        case D_ATTRS_IN:
            /* Any other name selects an attribute: all have the attribute value type. */
            st = keys ? D_ID : D_ATTR_VAL;
            break;
        case D_CAPS:
            st = items ? D_CAPS_IN : keys ? D_DOMAIN : D_NONE;
            break;
        case D_CAPS_IN:
            st = items ? D_QTY : keys ? D_ID : D_NONE;
            break;
        default:
            st = D_NONE;
            break;
        }
    }
    if (st == D_NONE)
        return false;
    *out = S(0, max_elems[st]);
    return true;
}

/* The size estimator: the host's, then (DRA) the device's. */
static bool estimate(cc *c, const cpath *p, const char *extra, const dc_type *t, size *out)
{
    uint32_t n = (p ? p->n : 0) + (extra ? 1 : 0);
    const char *stackbuf[64];
    const char **seg = stackbuf;
    if (n > DC_COUNTOF(stackbuf)) {
        seg = alloc(c, n * sizeof *seg);
        if (!seg)
            return false;
    }
    uint32_t i = n;
    if (extra)
        seg[--i] = extra;
    for (const cpath *q = p; q; q = q->up)
        seg[--i] = q->seg;
    if (c->opts && c->opts->size && c->opts->size(c->opts->size_ctx, seg, n, t, out))
        return true;
    return c->dra && dra_size(seg, n, out);
}

static uint64_t utf8_len(const char *s, size_t n)
{
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            k++;
    return k;
}

/* cel-go's computeExprSize: literals and inline lists/maps. */
static bool expr_size(const xn *e, size *out)
{
    uint64_t v;
    switch (e->kind) {
    case X_CONST:
        switch (e->lit->kind) {
        case DC_CONST_STRING:
            v = utf8_len(e->lit->v.s.ptr, e->lit->v.s.len);
            break;
        case DC_CONST_BYTES:
            v = e->lit->v.s.len;
            break;
        default:
            v = 1;
            break;
        }
        break;
    case X_LIST:
        v = e->n;
        break;
    case X_MAP:
        v = e->n / 2;
        break;
    default:
        return false;
    }
    *out = S(v, v);
    return true;
}

/* cel-go's computeSize. */
static bool comp_size(cc *c, xn *e, size *out)
{
    ninfo *in = info(c, e);
    if (in->has_size) {
        *out = in->sz;
        return true;
    }
    if (expr_size(e, out))
        return true;
    if (estimate(c, get_path(c, e), NULL, e->type, out)) {
        in->has_size = true;
        in->sz = *out;
        return true;
    }
    if (is_scalar(e->type)) {
        *out = S(1, 1);
        return true;
    }
    if (e->kind == X_IDENT) {
        const lvar *l = find_local(c, e->name);
        if (l && l->has_size) {
            *out = l->sz;
            return true;
        }
    }
    return false;
}

static size size_or_unknown(cc *c, xn *e)
{
    size s;
    return comp_size(c, e, &s) ? s : unknown_size;
}

static void set_size(cc *c, xn *e, const size *s)
{
    if (s) {
        ninfo *in = info(c, e);
        in->has_size = true;
        in->sz = *s;
    }
}

/* cel-go's computeEntrySize. */
static entry comp_entry(cc *c, xn *e)
{
    ninfo *in = info(c, e);
    if (in->ent.ok)
        return in->ent;
    if (e->kind == X_IDENT) {
        const lvar *l = find_local(c, e->name);
        if (l && l->ent.ok)
            return l->ent;
    }
    entry none = {0};
    return none;
}

static void set_entry(cc *c, xn *e, entry en)
{
    if (en.ok)
        info(c, e)->ent = en;
}

static entry entry_union(entry a, entry b)
{
    entry r = {0};
    if (!a.ok || !b.ok)
        return r;
    r.ok = true;
    r.list = a.list;
    r.key = size_union(a.key, b.key);
    r.val = size_union(a.val, b.val);
    return r;
}

/* The container kind of a range: its entry's, else its type's. */
static bool range_is_list(const xn *range, const entry *en)
{
    if (en->ok)
        return en->list;
    return range->type && range->type->kind == DC_TY_LIST;
}

/* ---------------------------------------------------------------------------------------------
 * Costs.
 */

/* cel-go's AstNode as the call estimators see it. */
typedef struct anode {
    xn *e;
    const cpath *path;
    bool has_size;
    size sz; /* ComputedSize */
} anode;

static anode mk_anode(cc *c, xn *e)
{
    anode a;
    a.e = e;
    a.path = get_path(c, e);
    a.has_size = comp_size(c, e, &a.sz);
    return a;
}

static size anode_size(const anode *a)
{
    return a->has_size ? a->sz : unknown_size;
}

typedef struct callest {
    est cost;
    bool has_size;
    size sz;
} callest;

/* The size of a list's elements (Kubernetes' listElementNode): NULL type when the target type
 * has no parameter. */
static const dc_type *elem_type(const dc_type *t)
{
    if (!t)
        return NULL;
    switch (t->kind) {
    case DC_TY_LIST:
    case DC_TY_MAP:
    case DC_TY_OPTIONAL:
    case DC_TY_TYPE:
        return t->a;
    default:
        return NULL;
    }
}

static size items_size(cc *c, const anode *t, const dc_type *et)
{
    size s;
    const cpath *p = t->path && t->path->n ? t->path : NULL;
    if (estimate(c, p, p ? "@items" : NULL, et, &s))
        return s;
    return unknown_size;
}

/* Literal int argument (ast.LiteralKind with an int value). */
static bool lit_int(const anode *a, int64_t *v)
{
    if (a->e->kind == X_CONST && a->e->lit->kind == DC_CONST_INT) {
        *v = a->e->lit->v.i;
        return true;
    }
    return false;
}

static callest ce(est cost, const size *sz)
{
    callest r;
    r.cost = cost;
    r.has_size = sz != NULL;
    r.sz = sz ? *sz : unknown_size;
    return r;
}

/* Per-overload estimators of cel-go's ext sets and ext lists. */
static bool ext_estimate(cc *c, const char *fn, const anode *t, const anode *args, uint32_t n,
                         callest *out)
{
    (void)c;
    static const est call1 = {1, 1};
    static const est listcreate = {COST_LIST_CREATE, COST_LIST_CREATE};
    double f = 0;
    if (streq(fn, "sets.contains") || streq(fn, "sets.intersects"))
        f = 1;
    else if (streq(fn, "sets.equivalent"))
        f = 2;
    if (f > 0) {
        if (n != 2)
            return false;
        size p = size_mul(anode_size(&args[0]), anode_size(&args[1]));
        *out = ce(est_add(size_factor(p, f), call1), NULL);
        return true;
    }
    if (!t) {
        if (streq(fn, "lists.range") && n == 1) {
            int64_t v;
            if (args[0].e->kind != X_CONST) {
                *out = ce(E(0, UINT64_MAX), NULL);
                return true;
            }
            size s = lit_int(&args[0], &v) ? S((uint64_t)v, (uint64_t)v) : unknown_size;
            *out = ce(est_add(est_add(size_factor(s, 1), listcreate), call1), &s);
            return true;
        }
        return false;
    }
    size ts = anode_size(t);
    if (streq(fn, "distinct")) {
        size s = size_mul(ts, ts);
        *out = ce(est_add(est_add(size_factor(s, 1), listcreate), call1), &ts);
        return true;
    }
    if (streq(fn, "reverse") || streq(fn, "flatten")) {
        double depth = 1;
        if (streq(fn, "flatten") && n > 0) {
            int64_t v;
            if (args[0].e->kind != X_CONST)
                depth = 256;
            else if (lit_int(&args[0], &v))
                depth = (double)v;
            else
                return false;
        }
        if (depth > 1) {
            if (streq(fn, "flatten"))
                ts = size_mul(ts, items_size(c, t, elem_type(t->e->type)));
            uint64_t d = (uint64_t)ceil(depth);
            ts = size_mul(ts, S(d, d));
        }
        *out = ce(est_add(est_add(size_factor(ts, 1), listcreate), call1), &ts);
        return true;
    }
    if (streq(fn, "slice") && n == 2) {
        int64_t v;
        uint64_t start = lit_int(&args[0], &v) ? (uint64_t)v : 0;
        uint64_t end = lit_int(&args[1], &v) ? (uint64_t)v : ts.max;
        if (end >= start)
            ts = S(end - start, end - start);
        *out = ce(est_add(est_add(size_factor(ts, 1), listcreate), call1), &ts);
        return true;
    }
    if (streq(fn, "sort") || streq(fn, "@sortByAssociatedKeys")) {
        double cmp = streq(fn, "sort") ? 0.1 : 0.2;
        double lo = ts.min ? ceil(log2((double)ts.min)) : 0;
        double hi = ts.max ? ceil(log2((double)ts.max)) : 0;
        est scale = E((uint64_t)lo, hi >= two64 ? UINT64_MAX : (uint64_t)hi);
        est cost = est_factor(size_mul_cost(ts, scale), cmp);
        *out = ce(est_add(est_add(cost, listcreate), call1), &ts);
        return true;
    }
    return false;
}

/* Kubernetes' estimators: DRA's includes, then the library CostEstimator (by function). */
static bool k8s_estimate(cc *c, const char *fn, const char *oid, const anode *t,
                         const anode *args, uint32_t n, callest *out)
{
    if (c->dra && streq(fn, "includes") && t && (!oid || streq(oid, "dra_includes_dyn_dyn"))) {
        *out = ce(size_mul_cost(S(0, DRA_MAX_LIST_VALUES), E(1, 1)), NULL);
        return true;
    }
    static const char *const list_fns[] = {"isSorted", "sum", "max", "min", "indexOf",
                                           "lastIndexOf"};
    for (size_t i = 0; i < DC_COUNTOF(list_fns); i++) {
        if (!streq(fn, list_fns[i]))
            continue;
        if (!t)
            return false;
        const dc_type *et = elem_type(t->e->type);
        if (et) {
            est el = E(1, 1);
            if (et->kind == DC_TY_STRING || et->kind == DC_TY_BYTES)
                el = est_add(el, size_factor(items_size(c, t, et), STRING_TRAVERSAL));
            *out = ce(size_mul_cost(anode_size(t), el), NULL);
        } else {
            *out = ce(size_factor(anode_size(t), STRING_TRAVERSAL), NULL);
        }
        return true;
    }
    if (streq(fn, "lowerAscii") || streq(fn, "upperAscii") || streq(fn, "substring") ||
        streq(fn, "trim")) {
        if (!t)
            return false;
        size sz = anode_size(t);
        *out = ce(size_factor(sz, STRING_TRAVERSAL), &sz);
        return true;
    }
    if (streq(fn, "replace")) {
        if (!t || n < 2)
            return false;
        size sz = anode_size(t), from = anode_size(&args[0]), with = anode_size(&args[1]);
        size count = {0, 0}, kept = {0, 0};
        if (from.min == 0) {
            count.max = sz.max < UINT64_MAX ? sz.max + 1 : sz.max;
            kept.max = sz.max;
        } else if (with.max <= from.min) {
            count.max = 0;
            kept.max = sz.max;
        } else {
            double q = ceil((double)sz.max / (double)from.min);
            count.max = q >= two64 ? UINT64_MAX : (uint64_t)q;
        }
        if (from.max == 0) {
            count.min = sz.min < UINT64_MAX ? sz.min + 1 : sz.min;
            kept.min = sz.min;
        } else if (from.max <= with.min) {
            count.min = 0;
            kept.min = sz.min;
        } else {
            double q = ceil((double)sz.min / (double)from.max);
            count.min = q >= two64 ? UINT64_MAX : (uint64_t)q;
        }
        size res = size_add(size_mul(count, with), kept);
        *out = ce(size_factor(sz, 2 * STRING_TRAVERSAL), &res);
        return true;
    }
    if (streq(fn, "split")) {
        if (!t)
            return false;
        size sz = anode_size(t);
        uint64_t max = sz.max;
        int64_t v;
        if (n > 1 && lit_int(&args[1], &v))
            max = (uint64_t)v;
        size res = S(0, max);
        *out = ce(size_factor(sz, 2 * STRING_TRAVERSAL), &res);
        return true;
    }
    if (streq(fn, "join")) {
        if (!t)
            return false;
        size sz = {0, 0};
        size ls = anode_size(t);
        const dc_type *et = elem_type(t->e->type);
        if (et)
            sz = size_mul(ls, items_size(c, t, et));
        if (n > 0) {
            size sep = anode_size(&args[0]);
            size nsep = S(ls.min > 0 ? ls.min - 1 : 0, ls.max > 0 ? ls.max - 1 : 0);
            sz = size_add(sz, size_mul(sep, nsep));
        }
        *out = ce(size_factor(sz, STRING_TRAVERSAL), &sz);
        return true;
    }
    if (streq(fn, "find") || streq(fn, "findAll")) {
        if (!t || n < 1)
            return false;
        size sz = anode_size(t);
        est str = size_factor(size_add(sz, S(1, 1)), STRING_TRAVERSAL);
        est re = size_factor(anode_size(&args[0]), REGEX_LENGTH);
        size res = S(0, sz.max);
        *out = ce(est_mul(str, re), &res);
        return true;
    }
    if (streq(fn, "quantity") || streq(fn, "isQuantity") || streq(fn, "semver") ||
        streq(fn, "isSemver")) {
        /* Kubernetes charges the parse only for a receiver-style call, which these never are:
         * the global forms cost 1 as plain calls. */
        if (!t || n < 1)
            return false;
        *out = ce(size_factor(anode_size(&args[0]), STRING_TRAVERSAL), NULL);
        return true;
    }
    static const char *const unit_fns[] = {"sign",      "asInteger", "isInteger",
                                           "asApproximateFloat", "isGreaterThan", "isLessThan",
                                           "compareTo", "add",       "sub",
                                           "major",     "minor",     "patch"};
    for (size_t i = 0; i < DC_COUNTOF(unit_fns); i++)
        if (streq(fn, unit_fns[i])) {
            *out = ce(E(1, 1), NULL);
            return true;
        }
    if (streq(fn, "_==_") && n == 2) {
        const dc_type *l = args[0].e->type, *r = args[1].e->type;
        if (l && r && dc_type_equal(l, r) &&
            (l->kind == DC_TY_QUANTITY || l->kind == DC_TY_SEMVER)) {
            *out = ce(E(1, 1), NULL);
            return true;
        }
    }
    return false;
}

/* cel-go's functionCost for one overload. */
static callest function_cost(cc *c, xn *e, const char *fn, const char *oid, const anode *t,
                             const anode *args, uint32_t n, const est *argc)
{
    est sum = {0, 0};
    for (uint32_t i = 0; i < n; i++)
        sum = est_add(sum, argc[i]);
    callest r;
    if (ext_estimate(c, fn, t, args, n, &r) || k8s_estimate(c, fn, oid, t, args, n, &r)) {
        r.cost = est_add(r.cost, sum);
        return r;
    }
    if (oid) {
        if (streq(oid, "string_format") && t && n >= 1) {
            size ts = anode_size(t);
            size res = size_add(ts, anode_size(&args[0]));
            return ce(est_add(size_factor(ts, STRING_TRAVERSAL), sum), &res);
        }
        if ((streq(oid, "string_to_bytes") || streq(oid, "bytes_to_string") ||
             streq(oid, "strings_quote")) &&
            n == 1) {
            size sz = anode_size(&args[0]);
            size res = streq(oid, "string_to_bytes")   ? S(sz.min, sat_mul(sz.max, 4))
                       : streq(oid, "bytes_to_string") ? S(sz.min / 4, sz.max)
                                                       : S(sat_add(sz.min, 2),
                                                           sat_add(sat_mul(sz.max, 2), 2));
            return ce(est_add(size_factor(sz, STRING_TRAVERSAL), sum), &res);
        }
        if ((streq(oid, "starts_with_string") || streq(oid, "ends_with_string")) && n == 1)
            return ce(est_add(size_factor(anode_size(&args[0]), STRING_TRAVERSAL), sum), NULL);
        if (streq(oid, "in_list") && n == 2)
            return ce(est_add(size_factor(anode_size(&args[1]), 1), sum), NULL);
        if (streq(oid, "matches_string") && t && n == 1) {
            est str = size_factor(size_add(anode_size(t), S(1, 1)), STRING_TRAVERSAL);
            est re = size_factor(anode_size(&args[0]), REGEX_LENGTH);
            return ce(est_add(est_mul(str, re), sum), NULL);
        }
        if (streq(oid, "contains_string") && t && n == 1) {
            est str = size_factor(anode_size(t), STRING_TRAVERSAL);
            est sub = size_factor(anode_size(&args[0]), STRING_TRAVERSAL);
            return ce(est_add(est_mul(str, sub), sum), NULL);
        }
        if ((streq(oid, "logical_or") || streq(oid, "logical_and")) && n == 2)
            return ce(E(argc[0].min, sat_add(argc[0].max, argc[1].max)), NULL);
        if (streq(oid, "conditional") && n == 3) {
            size sz = size_union(anode_size(&args[1]), anode_size(&args[2]));
            set_entry(c, e, entry_union(comp_entry(c, args[1].e), comp_entry(c, args[2].e)));
            return ce(est_add(argc[0], est_union(argc[1], argc[2])), &sz);
        }
        if ((streq(oid, "add_string") || streq(oid, "add_bytes") || streq(oid, "add_list")) &&
            n == 2) {
            size res = size_add(anode_size(&args[0]), anode_size(&args[1]));
            set_entry(c, e, entry_union(comp_entry(c, args[0].e), comp_entry(c, args[1].e)));
            if (streq(oid, "add_list"))
                return ce(est_add(E(1, 1), sum), &res);
            return ce(est_add(size_factor(res, STRING_TRAVERSAL), sum), &res);
        }
        static const char *const cmp[] = {
            "less_string",           "greater_string", "less_equals_string",
            "greater_equals_string", "less_bytes",     "greater_bytes",
            "less_equals_bytes",     "greater_equals_bytes", "equals",
            "not_equals"};
        for (size_t i = 0; i < DC_COUNTOF(cmp); i++)
            if (streq(oid, cmp[i]) && n == 2) {
                size l = anode_size(&args[0]), rr = anode_size(&args[1]);
                uint64_t smallest = rr.max < l.max ? rr.max : l.max;
                est x = size_factor(S(smallest > 0 ? 1 : 0, smallest), STRING_TRAVERSAL);
                return ce(est_add(x, sum), NULL);
            }
    }
    return ce(est_add(E(1, 1), sum), NULL);
}

/* A host function (vm/host.h): its declared cost over the size range of its string and bytes
 * arguments (the formula the VMs charge), plus the arguments' costs; a string or bytes result
 * is at most its declared limit. */
static callest host_cost(const dc_hostsig *s, const anode *t, const anode *args, uint32_t n,
                         const est *argc)
{
    est sum = {0, 0};
    for (uint32_t i = 0; i < n; i++)
        sum = est_add(sum, argc[i]);
    size total = {0, 0};
    for (uint32_t k = 0; k < s->nparams; k++) {
        if (s->params[k] != DC_K_STRING && s->params[k] != DC_K_BYTES)
            continue;
        const anode *a = !s->member ? (k < n ? &args[k] : NULL) : k == 0 ? t : (k - 1 < n ? &args[k - 1] : NULL);
        total = size_add(total, a ? anode_size(a) : unknown_size);
    }
    est call = E(dc_host_call_cost(s, total.min), dc_host_call_cost(s, total.max));
    if (s->result == DC_K_STRING || s->result == DC_K_BYTES) {
        size r = S(0, s->max_result);
        return ce(est_add(call, sum), &r);
    }
    return ce(est_add(call, sum), NULL);
}

/* Whether an argument of type @p a may be passed for parameter @p p (dyn and type parameters
 * accept anything; NULL is unknown). */
static bool may_assign(const dc_type *p, const dc_type *a)
{
    if (!p || !a)
        return true;
    if (a->kind == DC_TY_DYN || a->kind == DC_TY_ERROR || a->kind == DC_TY_PARAM)
        return true;
    if (p->kind == DC_TY_DYN || p->kind == DC_TY_PARAM)
        return true;
    if (p->kind != a->kind)
        return false;
    switch (p->kind) {
    case DC_TY_LIST:
    case DC_TY_OPTIONAL:
        return may_assign(p->a, a->a);
    case DC_TY_MAP:
        return may_assign(p->a, a->a) && may_assign(p->b, a->b);
    default:
        return true;
    }
}

/* The overloads the checker would record for a call (NULL id: none declared or none found:
 * estimated as a plain call of that function), and their host records (NULL: the library's). */
static uint32_t overloads(cc *c, const xn *e, const char **ids, const dc_host **hosts,
                          uint32_t cap)
{
    const dc_fundecl *f = dc_env_fun(c->env, e->name);
    uint32_t k = 0;
    for (uint32_t i = 0; f && i < f->n && k < cap; i++) {
        const dc_overload *o = &f->overloads[i];
        if (o->member != e->member || o->nparams != e->n)
            continue;
        bool ok = true;
        for (uint32_t j = 0; j < e->n && ok; j++)
            ok = may_assign(o->params[j], e->args[j]->type);
        if (ok) {
            hosts[k] = o->host;
            ids[k++] = o->id;
        }
    }
    if (k == 0) {
        hosts[k] = NULL;
        ids[k++] = NULL;
    }
    return k;
}

/* The estimate of a call whose arguments are costed (@p argc, @p nodes). */
static est call_estimate(cc *c, xn *e, uint32_t first, uint32_t n, xn **argv,
                         const anode *nodes, const est *argc, est sum, const anode *tnode)
{
    const char *ids[64];
    const dc_host *hosts[64];
    uint32_t nids = overloads(c, e, ids, hosts, DC_COUNTOF(ids));
    est fn = {UINT64_MAX, 0};
    bool has_res = false;
    size res = {0, 0};
    for (uint32_t k = 0; k < nids; k++) {
        callest oc = hosts[k] ? host_cost(dc_host_sig(hosts[k]), first ? tnode : NULL, nodes, n, argc)
                              : function_cost(c, e, e->name, ids[k], first ? tnode : NULL, nodes, n, argc);
        fn = est_union(fn, oc.cost);
        if (oc.has_size) {
            res = has_res ? size_union(res, oc.sz) : oc.sz;
            has_res = true;
        }
        bool il = streq(ids[k], "index_list"), im = streq(ids[k], "index_map");
        if ((il || im) && n > 0) {
            entry en = comp_entry(c, argv[0]);
            has_res = en.ok;
            res = en.val;
            info(c, e)->path = path_push(c, get_path(c, argv[0]), il ? "@items" : "@values");
        }
        if (!has_res)
            has_res = comp_size(c, e, &res);
    }
    if (has_res)
        set_size(c, e, &res);
    return est_add(sum, fn);
}

/* ---------------------------------------------------------------------------------------------
 * The walk. The translated tree is deeper than the AST it comes from: a map's transform sits
 * three nodes below its comprehension (loop step `_+_`, then the list `[t]`), a filtered map's
 * four, a sortBy key five, so that an expression at the parser's depth limit (10,000) gives a
 * tree of up to 50,000 levels. The walk therefore keeps its pending nodes on a stack of its
 * own, in the arena, and its C stack use does not grow with the depth of the tree. Each pending
 * node has a frame; resume() is called when the node is entered (next == 0) and after each of
 * its children, and says which child comes next or, when there is none, the node's cost.
 */

typedef struct cframe {
    xn *e;
    uint32_t next;            /* children visited so far */
    uint32_t mark, mark_iter; /* COMP: the locals to pop after the step and after the result */
    est sum;                  /* the children's costs so far */
    union {
        struct {
            size a, b;        /* LIST: item size (a); MAP: key (a) and value (b) sizes */
        } sz;
        struct {
            est loop, step;   /* COMP: loop condition and loop step */
        } comp;
        struct {
            anode *nodes;     /* CALL: the arguments after the target, then the target */
            est *argc;
            anode *tnode;
        } call;
    } u;
} cframe;

/* A call: the arguments after the target in order, then the target (cel-go's order), then the
 * estimate. Dyn only disables type checking: 1 plus its argument, sizes passed through. */
static xn *resume_call(cc *c, cframe *f, est got, est *done)
{
    xn *e = f->e;
    uint32_t k = f->next;
    if (streq(e->name, "dyn") && !e->member && e->n == 1) {
        if (k == 0)
            return e->args[0];
        size s;
        if (comp_size(c, e->args[0], &s))
            set_size(c, e, &s);
        set_entry(c, e, comp_entry(c, e->args[0]));
        *done = est_add(E(1, 1), got);
        return NULL;
    }
    uint32_t first = e->member && e->n > 0 ? 1 : 0;
    uint32_t n = e->n - first;
    xn **argv = e->args ? e->args + first : NULL; /* optMap's optional.none() has none */
    if (k == 0) {
        f->u.call.nodes = alloc(c, n * sizeof *f->u.call.nodes);
        f->u.call.argc = alloc(c, n * sizeof *f->u.call.argc);
        f->u.call.tnode = alloc(c, sizeof *f->u.call.tnode);
        if (c->oom) {
            *done = E(0, UINT64_MAX);
            return NULL;
        }
    } else if (k <= n) {
        f->u.call.argc[k - 1] = got;
        f->u.call.nodes[k - 1] = mk_anode(c, argv[k - 1]);
    } else {
        f->sum = got;
        *f->u.call.tnode = mk_anode(c, e->args[0]);
    }
    if (k < n)
        return argv[k];
    if (k == n && first)
        return e->args[0];
    *done = call_estimate(c, e, first, n, argv, f->u.call.nodes, f->u.call.argc, f->sum,
                          f->u.call.tnode);
    return NULL;
}

static xn *resume_select(cc *c, cframe *f, est got, est *done)
{
    xn *e = f->e, *op = e->args[0];
    if (f->next == 0)
        return op;
    if (e->test_only) {
        *done = est_add(c->presence, got);
        return NULL;
    }
    const dc_type *t = op->type;
    if (t && (t->kind == DC_TY_MAP || t->kind == DC_TY_DEVICE || t->kind == DC_TY_QUANTITY ||
              t->kind == DC_TY_SEMVER || t->kind == DC_TY_PARAM))
        got = est_add(got, E(COST_SELECT_IDENT, COST_SELECT_IDENT));
    info(c, e)->path = path_push(c, get_path(c, op), e->name);
    *done = got;
    return NULL;
}

static xn *resume_list(cc *c, cframe *f, est got, est *done)
{
    xn *e = f->e;
    uint32_t k = f->next;
    if (k == 0) {
        f->u.sz.a = S(e->n == 0 ? 0 : UINT64_MAX, 0);
    } else {
        f->sum = est_add(f->sum, got);
        f->u.sz.a = size_union(f->u.sz.a, size_or_unknown(c, e->args[k - 1]));
    }
    if (k < e->n)
        return e->args[k];
    entry en = {true, true, {1, 1}, f->u.sz.a};
    set_entry(c, e, en);
    *done = est_add(f->sum, E(COST_LIST_CREATE, COST_LIST_CREATE));
    return NULL;
}

/* A map literal: key and value of each entry, then both sizes. */
static xn *resume_map(cc *c, cframe *f, est got, est *done)
{
    xn *e = f->e;
    uint32_t k = f->next, pairs = e->n / 2;
    if (k == 0) {
        f->u.sz.a = f->u.sz.b = S(e->n == 0 ? 0 : UINT64_MAX, 0);
    } else {
        f->sum = est_add(f->sum, got);
        if (k % 2 == 0) {
            f->u.sz.a = size_union(f->u.sz.a, size_or_unknown(c, e->args[k - 2]));
            f->u.sz.b = size_union(f->u.sz.b, size_or_unknown(c, e->args[k - 1]));
        }
    }
    if (k < 2 * pairs)
        return e->args[k];
    entry en = {true, false, f->u.sz.a, f->u.sz.b};
    set_entry(c, e, en);
    *done = est_add(f->sum, E(COST_MAP_CREATE, COST_MAP_CREATE));
    return NULL;
}

/* cel-go's pushLocalVar: a name bound to an expression's path, size and entry sizes. */
static void push_expr_local(cc *c, const char *name, xn *init)
{
    size s;
    bool has = comp_size(c, init, &s);
    entry en = comp_entry(c, init);
    push_local(c, name, get_path(c, init), has ? &s : NULL, &en);
}

/* cel.bind's shape (costBind): range, initializer, then the result with the name bound. */
static xn *resume_bind(cc *c, cframe *f, est got, est *done)
{
    xn *e = f->e;
    switch (f->next) {
    case 0:
        return e->range;
    case 1:
        f->sum = got;
        return e->init;
    case 2:
        f->sum = est_add(f->sum, got);
        f->mark = c->nlocals;
        push_expr_local(c, e->accu, e->init);
        return e->result;
    default:
        break;
    }
    f->sum = est_add(f->sum, got);
    pop_locals(c, f->mark);
    size s;
    if (comp_size(c, e->result, &s))
        set_size(c, e, &s);
    set_entry(c, e, comp_entry(c, e->result));
    *done = f->sum;
    return NULL;
}

/* A comprehension: range and accumulator initializer; then, with the accumulator and the
 * iteration variables bound, loop condition and step; then the result with the accumulator
 * alone; the loop's cost is the range's size times (condition + step). */
static xn *resume_comprehension(cc *c, cframe *f, est got, est *done)
{
    xn *e = f->e;
    if (e->bind)
        return resume_bind(c, f, got, done);
    switch (f->next) {
    case 0:
        return e->range;
    case 1:
        f->sum = got;
        return e->init;
    case 2: {
        f->sum = est_add(f->sum, got);
        f->mark = c->nlocals;
        push_expr_local(c, e->accu, e->init);
        f->mark_iter = c->nlocals;
        entry en = comp_entry(c, e->range);
        const cpath *rp = get_path(c, e->range);
        bool list = range_is_list(e->range, &en);
        if (e->v2) {
            push_local(c, e->v1, path_push(c, rp, list ? "@indices" : "@keys"),
                       en.ok ? &en.key : NULL, NULL);
            push_local(c, e->v2, path_push(c, rp, list ? "@items" : "@values"),
                       en.ok ? &en.val : NULL, NULL);
        } else {
            push_local(c, e->v1, path_push(c, rp, list ? "@items" : "@keys"),
                       en.ok ? (list ? &en.val : &en.key) : NULL, NULL);
        }
        return e->cond;
    }
    case 3:
        f->u.comp.loop = got;
        return e->step;
    case 4:
        f->u.comp.step = got;
        pop_locals(c, f->mark_iter);
        return e->result;
    default:
        break;
    }
    f->sum = est_add(f->sum, got);
    pop_locals(c, f->mark);
    size range = size_or_unknown(c, e->range);
    f->sum = est_add(f->sum, size_mul_cost(range, est_add(f->u.comp.step, f->u.comp.loop)));
    if (e->init->kind == X_CONST) {
        size s;
        if (comp_size(c, e->init, &s))
            set_size(c, e, &s);
    } else if (e->init->kind == X_LIST || e->init->kind == X_MAP) {
        set_size(c, e, &range);
        set_entry(c, e, comp_entry(c, e->step));
    }
    *done = f->sum;
    return NULL;
}

/* Enter or resume the node of frame @p f (@p got: the cost of the child just finished). */
static xn *resume(cc *c, cframe *f, est got, est *done)
{
    xn *e = f->e;
    switch (e->kind) {
    case X_CONST:
        *done = E(COST_CONST, COST_CONST);
        return NULL;
    case X_IDENT: {
        const lvar *l = find_local(c, e->name);
        info(c, e)->path = l ? l->path : path_push(c, NULL, e->name);
        *done = E(COST_SELECT_IDENT, COST_SELECT_IDENT);
        return NULL;
    }
    case X_SELECT:
        return resume_select(c, f, got, done);
    case X_CALL:
        return resume_call(c, f, got, done);
    case X_LIST:
        return resume_list(c, f, got, done);
    case X_MAP:
        return resume_map(c, f, got, done);
    case X_STRUCT:
        if (f->next > 0)
            f->sum = est_add(f->sum, got);
        if (f->next < e->n)
            return e->args[f->next];
        *done = est_add(f->sum, E(COST_STRUCT_CREATE, COST_STRUCT_CREATE));
        return NULL;
    case X_COMP:
        return resume_comprehension(c, f, got, done);
    }
    *done = E(0, 0);
    return NULL;
}

/* The cost of the tree at @p root; a node shared by two parents (optMap's target) is costed
 * once, its memo reused. Children are never NULL (the translation fails instead). */
static est cost(cc *c, xn *root)
{
    cframe *st = NULL;
    uint32_t n = 0, cap = 0;
    est got = {0, 0}; /* the cost of the node that ended last */
    xn *next = root;  /* the node to enter */
    for (;;) {
        if (next && next->done) {
            got = next->memo;
        } else if (next) {
            if (n == cap) {
                uint32_t ncap = cap ? 2 * cap : 64;
                cframe *ns = alloc(c, (size_t)ncap * sizeof *ns);
                if (!ns)
                    return E(0, UINT64_MAX);
                if (n)
                    memcpy(ns, st, (size_t)n * sizeof *ns);
                st = ns;
                cap = ncap;
            }
            memset(&st[n], 0, sizeof st[n]);
            st[n++].e = next;
        }
        if (n == 0)
            return got;
        cframe *f = &st[n - 1];
        est done = {0, 0};
        next = resume(c, f, got, &done);
        if (c->oom)
            return E(0, UINT64_MAX);
        if (next) {
            f->next++;
            continue;
        }
        f->e->done = true;
        f->e->memo = done;
        got = done;
        n--;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Entry points.
 */

dracel_status dc_cost_estimate_ex(const dc_env *env, const dc_ast *e, const dc_checked *types,
                                  const dc_cost_opts *opts, dc_cost_est *out)
{
    if (!env || !e || !out)
        return DRACEL_EINVAL;
    cc c;
    memset(&c, 0, sizeof c);
    c.env = env;
    c.ck = types;
    c.opts = opts;
    c.dra = env->kind == DC_ENV_DRA;
    dc_cost_presence pr = opts ? opts->presence : DC_COST_PRESENCE_DEFAULT;
    bool one = pr == DC_COST_PRESENCE_ONE || (pr == DC_COST_PRESENCE_DEFAULT && !c.dra);
    c.presence = one ? E(1, 1) : E(0, 0);
    dc_arena_init(&c.a, env->arena.alloc);
    uint32_t maxid = dc_ast_max_id(e);
    if (maxid == UINT32_MAX) {
        dc_arena_free(&c.a);
        return DRACEL_EINVAL;
    }
    c.next_id = maxid + 1;
    xn *root = tr(&c, e);
    if (root && !c.oom) {
        c.ninfo = c.next_id;
        c.info = alloc(&c, (size_t)c.ninfo * sizeof *c.info);
    }
    dracel_status st = DRACEL_ENOMEM;
    if (root && c.info && !c.oom) {
        est r = cost(&c, root);
        if (!c.oom) {
            *out = r;
            st = DRACEL_OK;
        }
    }
    if (st != DRACEL_OK)
        out->min = out->max = UINT64_MAX;
    dc_arena_free(&c.a);
    return st;
}

dc_cost_est dc_cost_estimate(const dc_env *env, const dc_ast *e, const dc_checked *types)
{
    dc_cost_est r = {UINT64_MAX, UINT64_MAX};
    if (dc_cost_estimate_ex(env, e, types, NULL, &r) != DRACEL_OK)
        r.min = r.max = UINT64_MAX;
    return r;
}
