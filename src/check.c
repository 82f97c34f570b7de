/*
 * check.c: the type checker (see check.h for the contract).
 *
 * Structure, after cel-go's checker/checker.go and checker/types.go:
 *   - one recursive walk over the AST (its height is bounded by the parser) computing a type per
 *     node, with a stack of local variables (comprehension variables, cel.bind) that shadow the
 *     environment's;
 *   - unification with type parameters: each overload's parameters (A, B, K, V, T) are
 *     instantiated with fresh variables "_varN"; the substitution is an array indexed by N,
 *     changed only through a trail so that a failed assignability test is undone in O(changes)
 *     (cel-go copies its map on every test instead; same results);
 *   - then, in the DRA environment and only when checking found no error (cel-go runs AST
 *     validators only on a clean check, Kubernetes tests the result type only after both): the
 *     homogeneous aggregate literal validator, the regex literal validator of matches(), the
 *     result-type rule of Kubernetes' cel/compile.go, and the compile-time regex compilation of
 *     find()/findAll() constants that Kubernetes' regex library performs when it builds the
 *     program.
 *
 * The macros cel-go expands in its parser but our parser keeps as calls are checked here with
 * the types their expansions would get: sortBy (ext lists), optMap and optFlatMap (optionals).
 *
 * Deviations from cel-go, all deliberate: a comprehension variable or cel.bind name hides every
 * qualified variable name that starts with it (cel-go would still resolve `x.y` to a global
 * `x.y`); type mismatch messages never show internal type variables (they print as dyn).
 *
 * Change with: src/check.h, src/decls.c, src/env.c, src/compile.c.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"

typedef struct local {
    const char *name;
    const dc_type *type;
} local;

typedef struct trail_ent {
    uint32_t var;
    const dc_type *old;
} trail_ent;

typedef struct ck {
    const dc_env *env;
    dc_arena *a;
    dc_diags *d;
    bool dra;
    bool dotted_vars; /* some declared variable has a qualified name */
    bool oom;
    /* Substitution of the type variables _var0.._var(nvars-1), and the undo trail. */
    const dc_type **sub;
    uint32_t nvars, capsub;
    trail_ent *trail;
    uint32_t ntrail, captrail;
    /* Local variables, innermost last. */
    local *locals;
    uint32_t nlocals, caplocals;
    /* The type of each node, by id. */
    const dc_type **types;
    uint32_t ntypes;
} ck;

/* ---- Small helpers. */

static bool grow(ck *c, void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > UINT32_MAX / 2) {
            c->oom = true;
            return false;
        }
        nc *= 2;
    }
    void *na = dc_arena_alloc(c->a, (size_t)nc * elem);
    if (!na) {
        c->oom = true;
        return false;
    }
    if (*cap)
        memcpy(na, *arr, (size_t)*cap * elem);
    *arr = na;
    *cap = nc;
    return true;
}

static void err_at(ck *c, uint32_t pos, const char *fmt, ...) DC_PRINTF(3, 4);
static void err_at(ck *c, uint32_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dc_diag_vadd(c->d, DRACEL_SEV_ERROR, dc_span(pos, pos), fmt, ap);
    va_end(ap);
}

static bool streq(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

/* Failure-tolerant constructors: on ENOMEM they record it and yield the error type. */
static const dc_type *chk(ck *c, const dc_type *t)
{
    if (!t) {
        c->oom = true;
        return &dc_ty_error;
    }
    return t;
}

static const dc_type *t_list(ck *c, const dc_type *e)
{
    return chk(c, dc_ty_list(c->a, e));
}

static const dc_type *t_map(ck *c, const dc_type *k, const dc_type *v)
{
    return chk(c, dc_ty_map(c->a, k, v));
}

static const dc_type *t_opt(ck *c, const dc_type *e)
{
    return chk(c, dc_ty_optional(c->a, e));
}

/* ---- Type variables and the substitution. */

static const dc_type *fresh(ck *c)
{
    if (!grow(c, (void **)&c->sub, &c->capsub, c->nvars + 1, sizeof *c->sub))
        return &dc_ty_dyn;
    char name[24];
    snprintf(name, sizeof name, "_var%u", (unsigned)c->nvars);
    const dc_type *t = dc_ty_param(c->a, name);
    if (!t) {
        c->oom = true;
        return &dc_ty_dyn;
    }
    c->sub[c->nvars++] = NULL;
    return t;
}

/* The index of a type variable, or UINT32_MAX for any other type parameter. */
static uint32_t var_index(const ck *c, const dc_type *t)
{
    if (t->kind != DC_TY_PARAM || strncmp(t->name, "_var", 4) != 0)
        return UINT32_MAX;
    char *end;
    unsigned long n = strtoul(t->name + 4, &end, 10);
    return *end == '\0' && n < c->nvars ? (uint32_t)n : UINT32_MAX;
}

static const dc_type *find_sub(const ck *c, const dc_type *t)
{
    uint32_t i = var_index(c, t);
    return i == UINT32_MAX ? NULL : c->sub[i];
}

static bool add_sub(ck *c, const dc_type *param, const dc_type *t)
{
    uint32_t i = var_index(c, param);
    if (i == UINT32_MAX)
        return false;
    if (!grow(c, (void **)&c->trail, &c->captrail, c->ntrail + 1, sizeof *c->trail))
        return false;
    c->trail[c->ntrail].var = i;
    c->trail[c->ntrail].old = c->sub[i];
    c->ntrail++;
    c->sub[i] = t;
    return true;
}

static void rollback(ck *c, uint32_t mark)
{
    while (c->ntrail > mark) {
        c->ntrail--;
        c->sub[c->trail[c->ntrail].var] = c->trail[c->ntrail].old;
    }
}

static bool is_dyn(const dc_type *t)
{
    return t->kind == DC_TY_DYN;
}

static bool is_dyn_or_error(const dc_type *t)
{
    return t->kind == DC_TY_DYN || t->kind == DC_TY_ERROR;
}

/* cel-go's "opaque" types (named, with type parameters). */
static bool is_opaque(const dc_type *t)
{
    return t->kind == DC_TY_OPTIONAL || t->kind == DC_TY_QUANTITY || t->kind == DC_TY_SEMVER;
}

/* Types that null can be assigned to (cel-go's legacy nullability). */
static bool is_nullable(const dc_type *t)
{
    return is_opaque(t) || t->kind == DC_TY_DEVICE || t->kind == DC_TY_NULL;
}

/* isEqualOrLessSpecific: t1 is equal to t2 or matches it through dyn or a type parameter. */
static bool less_specific(const dc_type *t1, const dc_type *t2)
{
    if (is_dyn(t1) || t1->kind == DC_TY_PARAM)
        return true;
    if (is_dyn(t2) || t2->kind == DC_TY_PARAM)
        return false;
    if (t1->kind != t2->kind)
        return false;
    switch (t1->kind) {
    case DC_TY_OPTIONAL:
    case DC_TY_LIST:
        return less_specific(t1->a, t2->a);
    case DC_TY_MAP:
        return less_specific(t1->a, t2->a) && less_specific(t1->b, t2->b);
    case DC_TY_TYPE:
        return true;
    default:
        return dc_type_equal(t1, t2);
    }
}

static const dc_type *most_general(const dc_type *t1, const dc_type *t2)
{
    return less_specific(t1, t2) ? t1 : t2;
}

/* The occurs check: t does not appear in `within` (through the substitution). */
static bool not_referenced_in(ck *c, const dc_type *t, const dc_type *within)
{
    if (dc_type_equal(t, within))
        return false;
    switch (within->kind) {
    case DC_TY_PARAM: {
        const dc_type *s = find_sub(c, within);
        return s ? not_referenced_in(c, t, s) : true;
    }
    case DC_TY_LIST:
    case DC_TY_OPTIONAL:
        return not_referenced_in(c, t, within->a);
    case DC_TY_TYPE:
        return within->a ? not_referenced_in(c, t, within->a) : true;
    case DC_TY_MAP:
        return not_referenced_in(c, t, within->a) && not_referenced_in(c, t, within->b);
    default:
        return true;
    }
}

static bool assignable_i(ck *c, const dc_type *t1, const dc_type *t2);

/* Whether t2 (a type parameter) or its substitution can stand for t1; binds it if free. */
static bool valid_sub(ck *c, const dc_type *t1, const dc_type *t2, bool *has_sub)
{
    *has_sub = false;
    if (t1->kind == t2->kind && dc_type_equal(t1, t2)) {
        *has_sub = true;
        return true;
    }
    const dc_type *s = find_sub(c, t2);
    if (s) {
        *has_sub = true;
        if (t1->kind == s->kind && dc_type_equal(t1, s))
            return true;
        if (assignable_i(c, t1, s)) {
            const dc_type *g = most_general(t1, s);
            if (not_referenced_in(c, t2, g))
                add_sub(c, t2, g);
            return true;
        }
        return false;
    }
    if (not_referenced_in(c, t2, t1))
        return add_sub(c, t2, t1);
    return false;
}

/* internalIsAssignable: a value of type t1 can be used where t2 is expected (symmetric in
 * practice, as in cel-go). */
static bool assignable_i(ck *c, const dc_type *t1, const dc_type *t2)
{
    if (t2->kind == DC_TY_PARAM) {
        bool has;
        if (valid_sub(c, t1, t2, &has))
            return true;
        if (has)
            return false;
    }
    if (t1->kind == DC_TY_PARAM) {
        bool has;
        return valid_sub(c, t2, t1, &has);
    }
    if (is_dyn_or_error(t1) || is_dyn_or_error(t2))
        return true;
    if (t1->kind == DC_TY_NULL)
        return is_nullable(t2);
    if (t2->kind == DC_TY_NULL)
        return is_nullable(t1);
    switch (t1->kind) {
    case DC_TY_BOOL:
    case DC_TY_INT:
    case DC_TY_UINT:
    case DC_TY_DOUBLE:
    case DC_TY_STRING:
    case DC_TY_BYTES:
    case DC_TY_DEVICE:
    case DC_TY_QUANTITY:
    case DC_TY_SEMVER:
        return t1->kind == t2->kind;
    case DC_TY_TYPE:
        return t2->kind == DC_TY_TYPE;
    case DC_TY_LIST:
    case DC_TY_OPTIONAL:
        return t1->kind == t2->kind && assignable_i(c, t1->a, t2->a);
    case DC_TY_MAP:
        return t1->kind == t2->kind && assignable_i(c, t1->a, t2->a) &&
               assignable_i(c, t1->b, t2->b);
    default:
        return false;
    }
}

static bool assignable(ck *c, const dc_type *t1, const dc_type *t2)
{
    uint32_t mark = c->ntrail;
    bool ok = assignable_i(c, t1, t2);
    if (!ok)
        rollback(c, mark);
    if (mark == 0)
        c->ntrail = 0; /* committed: nothing to undo any more */
    return ok;
}

static bool assignable_list(ck *c, const dc_type *const *l1, const dc_type *const *l2,
                            uint32_t n)
{
    uint32_t mark = c->ntrail;
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++)
        ok = assignable_i(c, l1[i], l2[i]);
    if (!ok)
        rollback(c, mark);
    if (mark == 0)
        c->ntrail = 0;
    return ok;
}

/* The type t with each type parameter replaced by fn(c, param, ctx): the one walk that the
 * substitution and instantiation share. Parts without parameters are kept as they are. */
typedef const dc_type *(*param_fn)(ck *c, const dc_type *param, void *ctx);

static const dc_type *map_params(ck *c, const dc_type *t, param_fn fn, void *ctx)
{
    switch (t->kind) {
    case DC_TY_PARAM: return fn(c, t, ctx);
    case DC_TY_LIST:
    case DC_TY_OPTIONAL: {
        const dc_type *e = map_params(c, t->a, fn, ctx);
        if (e == t->a)
            return t;
        return t->kind == DC_TY_LIST ? t_list(c, e) : t_opt(c, e);
    }
    case DC_TY_TYPE: {
        if (!t->a)
            return t;
        const dc_type *e = map_params(c, t->a, fn, ctx);
        return e == t->a ? t : chk(c, dc_ty_type(c->a, e));
    }
    case DC_TY_MAP: {
        const dc_type *k = map_params(c, t->a, fn, ctx);
        const dc_type *v = map_params(c, t->b, fn, ctx);
        return k == t->a && v == t->b ? t : t_map(c, k, v);
    }
    default:
        return t;
    }
}

/* A bound type variable: its value, substituted in turn; an unbound one: dyn if *to_dyn. */
static const dc_type *subst_param(ck *c, const dc_type *t, void *to_dyn)
{
    const dc_type *s = find_sub(c, t);
    if (s)
        return map_params(c, s, subst_param, to_dyn);
    return *(bool *)to_dyn ? &dc_ty_dyn : t;
}

/* Replace bound type variables by their values; unbound ones by dyn if to_dyn. */
static const dc_type *subst(ck *c, const dc_type *t, bool to_dyn)
{
    return map_params(c, t, subst_param, &to_dyn);
}

/* Instantiate the type parameters of a signature type with fresh variables; names[i] is bound
 * to vars[i] (at most 4 distinct parameters per overload). */
typedef struct inst_map {
    const char *names[4];
    const dc_type *vars[4];
    unsigned n;
} inst_map;

static const dc_type *inst_param(ck *c, const dc_type *t, void *ctx)
{
    inst_map *m = ctx;
    for (unsigned i = 0; i < m->n; i++)
        if (streq(m->names[i], t->name))
            return m->vars[i];
    if (m->n == 4)
        return &dc_ty_dyn;
    m->names[m->n] = t->name;
    m->vars[m->n] = fresh(c);
    return m->vars[m->n++];
}

static const dc_type *instantiate(ck *c, const dc_type *t, inst_map *m)
{
    return map_params(c, t, inst_param, m);
}

/* How a type is shown in a diagnostic: bound variables replaced, free ones as dyn. */
static const char *fmt_type(ck *c, const dc_type *t)
{
    const char *s = dc_type_str_checker(c->a, subst(c, t, true));
    if (!s) {
        c->oom = true;
        return "?";
    }
    return s;
}

/* ---- Static types of the environment's fixed shapes. */

static const dc_type ty_attr_inner = {DC_TY_MAP, &dc_ty_string, &dc_ty_dyn, NULL};
static const dc_type ty_attributes = {DC_TY_MAP, &dc_ty_string, &ty_attr_inner, NULL};
static const dc_type ty_cap_inner = {DC_TY_MAP, &dc_ty_string, &dc_ty_quantity, NULL};
static const dc_type ty_capacity = {DC_TY_MAP, &dc_ty_string, &ty_cap_inner, NULL};

/* The fields of kubernetes.DRADevice (Kubernetes' newest declaration of the type). */
static const dc_type *device_field(const char *f)
{
    if (streq(f, "driver"))
        return &dc_ty_string;
    if (streq(f, "attributes"))
        return &ty_attributes;
    if (streq(f, "capacity"))
        return &ty_capacity;
    if (streq(f, "allowMultipleAllocations"))
        return &dc_ty_bool;
    return NULL;
}

/* Identifiers that denote types (cel-go's standard type declarations and optional_type). */
static const dc_type ty_list_dyn = {DC_TY_LIST, &dc_ty_dyn, NULL, NULL};
static const dc_type ty_map_dyn = {DC_TY_MAP, &dc_ty_dyn, &dc_ty_dyn, NULL};
static const dc_type ty_opt_dyn = {DC_TY_OPTIONAL, &dc_ty_dyn, NULL, NULL};
static const dc_type ty_type_plain = {DC_TY_TYPE, NULL, NULL, NULL};
static const struct {
    const char *name;
    dc_type type;
} type_idents[] = {
    {"bool", {DC_TY_TYPE, &dc_ty_bool, NULL, NULL}},
    {"bytes", {DC_TY_TYPE, &dc_ty_bytes, NULL, NULL}},
    {"double", {DC_TY_TYPE, &dc_ty_double, NULL, NULL}},
    {"int", {DC_TY_TYPE, &dc_ty_int, NULL, NULL}},
    {"uint", {DC_TY_TYPE, &dc_ty_uint, NULL, NULL}},
    {"string", {DC_TY_TYPE, &dc_ty_string, NULL, NULL}},
    {"null_type", {DC_TY_TYPE, &dc_ty_null, NULL, NULL}},
    {"type", {DC_TY_TYPE, &ty_type_plain, NULL, NULL}},
    {"list", {DC_TY_TYPE, &ty_list_dyn, NULL, NULL}},
    {"map", {DC_TY_TYPE, &ty_map_dyn, NULL, NULL}},
    {"optional_type", {DC_TY_TYPE, &ty_opt_dyn, NULL, NULL}},
};

static const dc_type *type_ident(const char *name)
{
    for (size_t i = 0; i < DC_COUNTOF(type_idents); i++)
        if (streq(type_idents[i].name, name))
            return &type_idents[i].type;
    return NULL;
}

/* Names of CEL and Kubernetes features that are not available (not declared): they get a
 * diagnostic naming the feature instead of "undeclared reference". `ident` marks names that
 * are also reported when used as a plain identifier (cel-go declares them as type names). */
static const struct {
    const char *name;
    const char *what;
    bool ident;
} unsupported[] = {
    {"timestamp", "timestamp values are", true},
    {"duration", "duration values are", true},
    {"getFullYear", "timestamp values are", false},
    {"getMonth", "timestamp values are", false},
    {"getDate", "timestamp values are", false},
    {"getDayOfMonth", "timestamp values are", false},
    {"getDayOfWeek", "timestamp values are", false},
    {"getDayOfYear", "timestamp values are", false},
    {"getHours", "timestamp values are", false},
    {"getMinutes", "timestamp values are", false},
    {"getSeconds", "timestamp values are", false},
    {"getMilliseconds", "timestamp values are", false},
    {"url", "URL values are", false},
    {"isURL", "URL values are", false},
    {"getScheme", "URL values are", false},
    {"getHost", "URL values are", false},
    {"getHostname", "URL values are", false},
    {"getPort", "URL values are", false},
    {"getEscapedPath", "URL values are", false},
    {"getQuery", "URL values are", false},
    {"ip", "IP address values are", false},
    {"isIP", "IP address values are", false},
    {"ip.isCanonical", "IP address values are", false},
    {"family", "IP address values are", false},
    {"isUnspecified", "IP address values are", false},
    {"isLoopback", "IP address values are", false},
    {"isLinkLocalMulticast", "IP address values are", false},
    {"isLinkLocalUnicast", "IP address values are", false},
    {"isGlobalUnicast", "IP address values are", false},
    {"cidr", "CIDR values are", false},
    {"isCIDR", "CIDR values are", false},
    {"containsIP", "CIDR values are", false},
    {"containsCIDR", "CIDR values are", false},
    {"masked", "CIDR values are", false},
    {"prefixLength", "CIDR values are", false},
    {"format.named", "format.named() is", false},
    {"validate", "format.named() is", false},
    {"includes", "includes() is", false},
    {"fieldSelector", "field and label selectors are", false},
    {"labelSelector", "field and label selectors are", false},
    {"jsonpatch.escapeKey", "JSON patch functions are", false},
    {"path", "authorizer checks are", false},
    {"group", "authorizer checks are", false},
    {"serviceAccount", "authorizer checks are", false},
    {"resource", "authorizer checks are", false},
    {"subresource", "authorizer checks are", false},
    {"namespace", "authorizer checks are", false},
    {"name", "authorizer checks are", false},
    {"check", "authorizer checks are", false},
    {"allowed", "authorizer checks are", false},
    {"reason", "authorizer checks are", false},
    {"errored", "authorizer checks are", false},
    {"error", "authorizer checks are", false},
};

/* Report @p name if it is a known unsupported feature; @return whether it was reported. */
static bool report_unsupported(ck *c, uint32_t pos, const char *name, bool as_ident)
{
    for (size_t i = 0; i < DC_COUNTOF(unsupported); i++)
        if (streq(unsupported[i].name, name) && (!as_ident || unsupported[i].ident)) {
            err_at(c, pos, "%s not supported%s", unsupported[i].what,
                   c->dra ? " in device selectors" : "");
            return true;
        }
    return false;
}

/* ---- Names. */

static const local *find_local(const ck *c, const char *name)
{
    for (uint32_t i = c->nlocals; i-- > 0;)
        if (streq(c->locals[i].name, name))
            return &c->locals[i];
    return NULL;
}

static void push_local(ck *c, const char *name, const dc_type *t)
{
    if (!grow(c, (void **)&c->locals, &c->caplocals, c->nlocals + 1, sizeof *c->locals))
        return;
    c->locals[c->nlocals].name = name;
    c->locals[c->nlocals].type = t;
    c->nlocals++;
}

/* The dotted name of an IDENT/SELECT chain ("a.b.c", or ".a.b" with a leading dot) written
 * into buf; the root identifier in *root. @return false if @p e is not such a chain or the
 * name does not fit. Iterative, and it stops at the first part past @p cap: a chain as long as
 * the depth limit allows costs what fits, not its length squared. */
bool dc_check_qualified_name(const dc_ast *e, char *buf, size_t cap, size_t *len,
                             const dc_ast **root)
{
    size_t total = 0;
    const dc_ast *x = e;
    for (; x && x->kind == DC_AST_SELECT && !(x->flags & DC_ASTF_TEST_ONLY); x = x->u.sel.operand) {
        total += strlen(x->u.sel.field) + 1;
        if (total >= cap)
            return false;
    }
    if (!x || x->kind != DC_AST_IDENT)
        return false;
    total += strlen(x->u.ident.name);
    if (total >= cap)
        return false;
    *root = x;
    *len = total;
    buf[total] = '\0';
    size_t at = total;
    for (x = e; x->kind == DC_AST_SELECT; x = x->u.sel.operand) {
        size_t n = strlen(x->u.sel.field);
        at -= n;
        memcpy(buf + at, x->u.sel.field, n);
        buf[--at] = '.';
    }
    memcpy(buf, x->u.ident.name, at);
    return true;
}

static bool qualified_name(const dc_ast *e, char *buf, size_t cap, size_t *len,
                           const dc_ast **root)
{
    return dc_check_qualified_name(e, buf, cap, len, root);
}

#define QNAME_MAX 512

__attribute__((noinline)) const char *dc_check_qualified_fn(const dc_env *env, const dc_ast *call)
{
    if (!env || !call || call->kind != DC_AST_CALL || !(call->flags & DC_ASTF_MEMBER) ||
        call->u.call.nargs == 0)
        return NULL;
    char buf[QNAME_MAX];
    size_t len;
    const dc_ast *root;
    if (!qualified_name(call->u.call.args[0], buf, sizeof buf, &len, &root))
        return NULL;
    size_t fl = strlen(call->u.call.fn);
    if (len + 1 + fl >= sizeof buf)
        return NULL;
    buf[len] = '.';
    memcpy(buf + len + 1, call->u.call.fn, fl + 1);
    const dc_fundecl *f = dc_env_fun(env, buf[0] == '.' ? buf + 1 : buf);
    return f ? f->name : NULL;
}

/* ---- The walk. */

static const dc_type *check(ck *c, const dc_ast *e);

static const dc_type *check_const(const dc_ast *e)
{
    switch (e->u.c.kind) {
    case DC_CONST_NULL: return &dc_ty_null;
    case DC_CONST_BOOL: return &dc_ty_bool;
    case DC_CONST_INT: return &dc_ty_int;
    case DC_CONST_UINT: return &dc_ty_uint;
    case DC_CONST_DOUBLE: return &dc_ty_double;
    case DC_CONST_STRING: return &dc_ty_string;
    case DC_CONST_BYTES: return &dc_ty_bytes;
    }
    return &dc_ty_error;
}

static const dc_type *undeclared(ck *c, uint32_t pos, const char *name)
{
    err_at(c, pos, "undeclared reference to '%s' (in container '')", name);
    return &dc_ty_error;
}

static const dc_type *check_ident(ck *c, const dc_ast *e)
{
    const char *name = e->u.ident.name;
    bool dot = name[0] == '.';
    if (!dot) {
        const local *l = find_local(c, name);
        if (l)
            return l->type;
    }
    const char *g = dot ? name + 1 : name;
    const dc_vardecl *v = dc_env_var(c->env, g);
    if (v)
        return v->type;
    const dc_type *t = type_ident(g);
    if (t)
        return t;
    if (report_unsupported(c, e->pos, g, true))
        return &dc_ty_error;
    return undeclared(c, e->pos, name);
}

/* A select chain that names a declared (qualified) variable, unless its root is a local. */
static const dc_vardecl *qualified_var(ck *c, const dc_ast *e)
{
    char buf[QNAME_MAX];
    size_t len;
    const dc_ast *root;
    if (!qualified_name(e, buf, sizeof buf, &len, &root))
        return NULL;
    const char *rn = root->u.ident.name;
    if (rn[0] != '.' && find_local(c, rn))
        return NULL;
    return dc_env_var(c->env, buf[0] == '.' ? buf + 1 : buf);
}

/* checkSelectField: the type of operand.field (optional: operand.?field). */
static const dc_type *select_field(ck *c, uint32_t pos, const dc_type *ot, const char *field,
                                   bool optional)
{
    const dc_type *t = subst(c, ot, false);
    bool is_opt = false;
    if (t->kind == DC_TY_OPTIONAL) {
        t = subst(c, t->a, false);
        is_opt = true;
    }
    const dc_type *r;
    switch (t->kind) {
    case DC_TY_MAP:
        r = t->b;
        break;
    case DC_TY_DEVICE:
        r = device_field(field);
        if (!r) {
            err_at(c, pos, "undefined field '%s'", field);
            r = &dc_ty_error;
        }
        break;
    case DC_TY_PARAM:
        assignable(c, &dc_ty_dyn, t);
        r = &dc_ty_dyn;
        break;
    case DC_TY_DYN:
    case DC_TY_ERROR:
        r = &dc_ty_dyn;
        break;
    default:
        err_at(c, pos, "type '%s' does not support field selection", fmt_type(c, t));
        r = &dc_ty_dyn;
        break;
    }
    return is_opt || optional ? t_opt(c, r) : r;
}

static const dc_type *check_select(ck *c, const dc_ast *e)
{
    bool test = e->flags & DC_ASTF_TEST_ONLY;
    if (!test && c->dotted_vars) {
        const dc_vardecl *v = qualified_var(c, e);
        if (v)
            return v->type;
    }
    uint32_t pos = e->pos;
    const dc_type *ot = check(c, e->u.sel.operand);
    const dc_type *r = select_field(c, pos, ot, e->u.sel.field, false);
    return test ? &dc_ty_bool : r;
}

/* "(int, string)" or, for a receiver call, "int.(string)". */
static const char *fmt_args(ck *c, const dc_type *const *argt, uint32_t n, bool member)
{
    dc_buf b;
    dc_buf_init(&b, c->a->alloc);
    uint32_t i = 0;
    if (member && n > 0) {
        dc_buf_puts(&b, fmt_type(c, argt[0]));
        dc_buf_putc(&b, '.');
        i = 1;
    }
    dc_buf_putc(&b, '(');
    for (uint32_t k = i; k < n; k++) {
        if (k > i)
            dc_buf_puts(&b, ", ");
        dc_buf_puts(&b, fmt_type(c, argt[k]));
    }
    dc_buf_putc(&b, ')');
    const char *s = b.oom ? NULL : dc_arena_strndup(c->a, b.data, b.len);
    dc_buf_free(&b);
    if (!s) {
        c->oom = true;
        return "?";
    }
    return s;
}

/* resolveOverload: the result type of calling @p fn with @p argt (receiver first when
 * @p member), or the error type after "found no matching overload". */
static const dc_type *resolve(ck *c, uint32_t pos, const dc_fundecl *fn, bool member,
                              const dc_type *const *argt, uint32_t n)
{
    const dc_type *result = NULL;
    for (uint32_t i = 0; i < fn->n; i++) {
        const dc_overload *o = &fn->overloads[i];
        if (o->member != member || o->nparams != n)
            continue;
        inst_map m = {{NULL}, {NULL}, 0};
        const dc_type *params[8];
        if (n > DC_COUNTOF(params))
            continue;
        for (uint32_t k = 0; k < n; k++)
            params[k] = instantiate(c, o->params[k], &m);
        const dc_type *rt = instantiate(c, o->result, &m);
        if (!assignable_list(c, argt, params, n))
            continue;
        rt = subst(c, rt, false);
        if (!result)
            result = rt;
        else if (!is_dyn(result) && !dc_type_equal(rt, result))
            result = &dc_ty_dyn;
    }
    if (result)
        return result;
    /* An operand that already failed to check has been reported: no follow-on error. */
    for (uint32_t k = 0; k < n; k++)
        if (subst(c, argt[k], false)->kind == DC_TY_ERROR)
            return &dc_ty_error;
    err_at(c, pos, "found no matching overload for '%s' applied to '%s'", fn->name,
           fmt_args(c, argt, n, member));
    return &dc_ty_error;
}

static const dc_type *resolve_named(ck *c, uint32_t pos, const char *name, bool member,
                                    const dc_type *const *argt, uint32_t n)
{
    const dc_fundecl *fn = dc_env_fun(c->env, name);
    if (!fn)
        return undeclared(c, pos, name);
    return resolve(c, pos, fn, member, argt, n);
}

/* _&&_ and _||_: every operand must be assignable to bool (cel-go's special case). */
static const dc_type *check_logic(ck *c, const dc_ast *e)
{
    bool bad = false;
    for (uint32_t i = 0; i < e->u.call.nargs; i++) {
        const dc_ast *arg = e->u.call.args[i];
        const dc_type *t = check(c, arg);
        if (!assignable(c, t, &dc_ty_bool)) {
            err_at(c, arg->pos, "expected type 'bool' but found '%s'", fmt_type(c, t));
            bad = true;
        }
    }
    return bad ? &dc_ty_error : &dc_ty_bool;
}

/* A simple variable name of a checker-handled macro (an identifier without a leading dot). */
static const char *macro_var(const dc_ast *e)
{
    if (e && e->kind == DC_AST_IDENT && !(e->flags & DC_ASTF_LEADING_DOT) &&
        e->u.ident.name[0] != '.')
        return e->u.ident.name;
    return NULL;
}

/* The element type a comprehension over @p rt binds to its (first) variable, or NULL after
 * reporting that @p rt cannot be iterated. */
static const dc_type *range_elem(ck *c, uint32_t pos, const dc_type *rt)
{
    rt = subst(c, rt, false);
    switch (rt->kind) {
    case DC_TY_LIST:
    case DC_TY_MAP:
        return rt->a;
    case DC_TY_DYN:
    case DC_TY_ERROR:
    case DC_TY_PARAM:
        assignable(c, &dc_ty_dyn, rt);
        return &dc_ty_dyn;
    default:
        err_at(c, pos,
               "expression of type '%s' cannot be range of a comprehension (must be list, "
               "map, or dynamic)",
               fmt_type(c, rt));
        return NULL;
    }
}

/* list.sortBy(v, key) (ext lists macro): as cel-go's expansion
 * cel.bind(@in, list, @in.@sortByAssociatedKeys(@in.map(v, key))). */
static const dc_type *check_sort_by(ck *c, const dc_ast *e)
{
    const dc_ast *target = e->u.call.args[0];
    const dc_ast *var = e->u.call.args[1];
    switch (target->kind) {
    case DC_AST_LIST:
    case DC_AST_SELECT:
    case DC_AST_IDENT:
    case DC_AST_COMPREHENSION:
    case DC_AST_CALL:
        break;
    default:
        err_at(c, target->pos,
               "sortBy can only be applied to a list, identifier, comprehension, call or "
               "select expression");
        return &dc_ty_error;
    }
    const char *v = macro_var(var);
    if (!v) {
        err_at(c, var->pos, "argument is not an identifier");
        return &dc_ty_error;
    }
    const dc_type *tt = check(c, target);
    const dc_type *elem = range_elem(c, e->pos, tt);
    uint32_t mark = c->nlocals;
    push_local(c, v, elem ? elem : &dc_ty_error);
    const dc_type *kt = check(c, e->u.call.args[2]);
    c->nlocals = mark;
    if (!elem)
        return &dc_ty_error;
    const dc_type *argt[2] = {tt, t_list(c, kt)};
    return resolve_named(c, e->pos, "@sortByAssociatedKeys", true, argt, 2);
}

/* opt.optMap(v, expr) and opt.optFlatMap(v, expr) (optional library macros), typed as their
 * expansion: opt.hasValue() ? [optional.of](cel.bind(v, opt.value(), expr)) : optional.none() */
static const dc_type *check_opt_map(ck *c, const dc_ast *e, bool flat)
{
    const dc_ast *var = e->u.call.args[1];
    const char *v = macro_var(var);
    if (!v) {
        err_at(c, var->pos, "%s() variable name must be a simple identifier",
               flat ? "optFlatMap" : "optMap");
        return &dc_ty_error;
    }
    const dc_type *tt = check(c, e->u.call.args[0]);
    const dc_type *has = resolve_named(c, e->pos, "hasValue", true, &tt, 1);
    const dc_type *val = resolve_named(c, e->pos, "value", true, &tt, 1);
    uint32_t mark = c->nlocals;
    push_local(c, v, val);
    const dc_type *bt = check(c, e->u.call.args[2]);
    c->nlocals = mark;
    const dc_type *argt[3] = {has, flat ? bt : t_opt(c, bt), t_opt(c, fresh(c))};
    return resolve_named(c, e->pos, "_?_:_", false, argt, 3);
}

/* A member call whose receiver is a qualified name of a function Kubernetes does not support
 * ("ext.fn(x)"): reported, returns true. Its name buffer lives in a frame of its own, not in
 * check_call's, which stays on the stack while the receiver is checked (chains of calls are as
 * deep as the depth limit allows). */
static __attribute__((noinline)) bool unsupported_namespace(ck *c, const dc_ast *e)
{
    const char *fn = e->u.call.fn;
    char buf[QNAME_MAX];
    size_t len;
    const dc_ast *root;
    size_t fl = strlen(fn);
    if (!qualified_name(e->u.call.args[0], buf, sizeof buf, &len, &root) || len + 1 + fl >= sizeof buf)
        return false;
    buf[len] = '.';
    memcpy(buf + len + 1, fn, fl + 1);
    const char *qn = buf[0] == '.' ? buf + 1 : buf;
    /* Only when the receiver is not a value the expression can use. */
    const char *rn = root->u.ident.name;
    bool value = (rn[0] != '.' && find_local(c, rn)) || dc_env_var(c->env, rn[0] == '.' ? rn + 1 : rn);
    return !value && report_unsupported(c, e->pos, qn, false);
}

static const dc_type *check_call(ck *c, const dc_ast *e)
{
    const char *fn = e->u.call.fn;
    uint32_t n = e->u.call.nargs;
    bool member = e->flags & DC_ASTF_MEMBER;
    dc_ast *const *args = e->u.call.args;

    if (!member) {
        if (streq(fn, "_?._") && n == 2 && args[1] && args[1]->kind == DC_AST_CONST &&
            args[1]->u.c.kind == DC_CONST_STRING) {
            const dc_type *ot = check(c, args[0]);
            return select_field(c, e->pos, ot, args[1]->u.c.v.s.ptr, true);
        }
        if ((streq(fn, "_&&_") || streq(fn, "_||_")) && n == 2)
            return check_logic(c, e);
    } else if (n == 3) {
        if (streq(fn, "sortBy"))
            return check_sort_by(c, e);
        if (streq(fn, "optMap"))
            return check_opt_map(c, e, false);
        if (streq(fn, "optFlatMap"))
            return check_opt_map(c, e, true);
    }

    const dc_type *stack_args[8];
    const dc_type **argt = stack_args;
    if (n > DC_COUNTOF(stack_args)) {
        argt = dc_arena_alloc(c->a, n * sizeof *argt);
        if (!argt) {
            c->oom = true;
            return &dc_ty_error;
        }
    }
    /* Arguments first (the receiver is checked later, unless it names a namespace). */
    for (uint32_t i = member ? 1 : 0; i < n; i++)
        argt[i] = check(c, args[i]);

    if (!member) {
        const char *name = fn[0] == '.' ? fn + 1 : fn;
        const dc_fundecl *f = dc_env_fun(c->env, name);
        if (!f) {
            if (report_unsupported(c, e->pos, name, false))
                return &dc_ty_error;
            return undeclared(c, e->pos, fn);
        }
        return resolve(c, e->pos, f, false, argt, n);
    }

    /* A receiver that is a qualified name may name a namespaced global function. */
    const char *qfn = dc_check_qualified_fn(c->env, e);
    if (qfn)
        return resolve(c, e->pos, dc_env_fun(c->env, qfn), false, argt + 1, n - 1);
    if (unsupported_namespace(c, e))
        return &dc_ty_error;
    argt[0] = check(c, args[0]);
    const dc_fundecl *f = dc_env_fun(c->env, fn);
    if (!f) {
        if (report_unsupported(c, e->pos, fn, false))
            return &dc_ty_error;
        return undeclared(c, e->pos, fn);
    }
    return resolve(c, e->pos, f, true, argt, n);
}

/* joinTypes with dyn aggregate literals: mixed element types widen to dyn (the DRA environment
 * rejects them afterwards, in the homogeneous literal validator, as cel-go does). */
static const dc_type *join(ck *c, const dc_type *prev, const dc_type *cur)
{
    if (!prev)
        return cur;
    if (assignable(c, prev, cur))
        return most_general(prev, cur);
    return &dc_ty_dyn;
}

/* The value type of an optional element or entry (`?x`), which must be optional or dyn. */
static const dc_type *unwrap_optional_elem(ck *c, const dc_ast *e, const dc_type *t)
{
    const dc_type *s = subst(c, t, false);
    if (s->kind == DC_TY_OPTIONAL)
        return s->a;
    if (!is_dyn(s) && s->kind != DC_TY_ERROR) {
        const dc_type *want = t_opt(c, s);
        err_at(c, e->pos, "expected type '%s' but found '%s'", fmt_type(c, want),
               fmt_type(c, s));
    }
    return s;
}

static const dc_type *check_list(ck *c, const dc_ast *e)
{
    const dc_type *elem = NULL;
    for (uint32_t i = 0; i < e->u.list.n; i++) {
        const dc_ast *x = e->u.list.elems[i];
        const dc_type *t = check(c, x);
        if (e->u.list.optional && e->u.list.optional[i])
            t = unwrap_optional_elem(c, x, t);
        elem = join(c, elem, t);
    }
    return t_list(c, elem ? elem : fresh(c));
}

static const dc_type *check_map(ck *c, const dc_ast *e)
{
    const dc_type *kt = NULL, *vt = NULL;
    for (uint32_t i = 0; i < e->u.map.n; i++) {
        const dc_entry *en = &e->u.map.entries[i];
        kt = join(c, kt, check(c, en->key));
        const dc_type *t = check(c, en->value);
        if (en->optional)
            t = unwrap_optional_elem(c, en->value, t);
        vt = join(c, vt, t);
    }
    if (!kt)
        return t_map(c, fresh(c), fresh(c));
    return t_map(c, kt, vt);
}

static const dc_type *check_struct(ck *c, const dc_ast *e)
{
    for (uint32_t i = 0; i < e->u.map.n; i++)
        check(c, e->u.map.entries[i].value);
    err_at(c, e->pos, "message construction is not supported%s",
           c->dra ? " in device selectors" : "");
    return &dc_ty_error;
}

/* The predicate of all/exists is the operand of a generated && or ||. */
static void require_bool_operand(ck *c, const dc_ast *p, const dc_type *t)
{
    if (!assignable(c, t, &dc_ty_bool))
        err_at(c, p->pos, "expected type 'bool' but found '%s'", fmt_type(c, t));
}

/* A filter is the condition of a generated `f ? step : @result`. */
static void require_bool_condition(ck *c, uint32_t pos, const dc_type *ft, const dc_type *acc)
{
    if (assignable(c, ft, &dc_ty_bool))
        return;
    const dc_type *argt[3] = {ft, acc, acc};
    err_at(c, pos, "found no matching overload for '_?_:_' applied to '%s'",
           fmt_args(c, argt, 3, false));
}

static const dc_type *check_comprehension(ck *c, const dc_ast *e)
{
    const dc_macro m = e->u.comp.macro;
    const dc_ast *range = e->u.comp.range;
    uint32_t mark = c->nlocals;
    if (m == DC_MACRO_BIND) {
        const dc_type *it = check(c, range);
        push_local(c, e->u.comp.var1, it);
        const dc_type *bt = check(c, e->u.comp.arg1);
        c->nlocals = mark;
        return bt;
    }
    const dc_type *rt = subst(c, check(c, range), false);
    const dc_type *v1, *v2 = NULL;
    bool two = dc_macro_nvars[m] == 2;
    switch (rt->kind) {
    case DC_TY_LIST:
        v1 = two ? &dc_ty_int : rt->a;
        v2 = rt->a;
        break;
    case DC_TY_MAP:
        v1 = rt->a;
        v2 = rt->b;
        break;
    case DC_TY_DYN:
    case DC_TY_ERROR:
    case DC_TY_PARAM:
        assignable(c, &dc_ty_dyn, rt);
        v1 = v2 = &dc_ty_dyn;
        break;
    default:
        err_at(c, range->pos,
               "expression of type '%s' cannot be range of a comprehension (must be list, "
               "map, or dynamic)",
               fmt_type(c, rt));
        v1 = v2 = &dc_ty_error;
        break;
    }
    push_local(c, e->u.comp.var1, v1);
    if (two)
        push_local(c, e->u.comp.var2, v2);
    uint32_t mpos = e->pos;
    const dc_type *r = &dc_ty_error;
    const dc_type *t, *ft;
    switch (m) {
    case DC_MACRO_ALL:
    case DC_MACRO_EXISTS:
    case DC_MACRO_ALL2:
    case DC_MACRO_EXISTS2:
        require_bool_operand(c, e->u.comp.arg1, check(c, e->u.comp.arg1));
        r = &dc_ty_bool;
        break;
    case DC_MACRO_EXISTS_ONE:
    case DC_MACRO_EXISTS_ONE2:
        require_bool_condition(c, mpos, check(c, e->u.comp.arg1), &dc_ty_int);
        r = &dc_ty_bool;
        break;
    case DC_MACRO_MAP:
    case DC_MACRO_TRANSFORM_LIST:
        r = t_list(c, check(c, e->u.comp.arg1));
        break;
    case DC_MACRO_MAP_FILTER:
    case DC_MACRO_TRANSFORM_LIST_FILTER:
        ft = check(c, e->u.comp.arg1);
        r = t_list(c, check(c, e->u.comp.arg2));
        require_bool_condition(c, mpos, ft, r);
        break;
    case DC_MACRO_FILTER:
        ft = check(c, e->u.comp.arg1);
        r = t_list(c, v1);
        require_bool_condition(c, mpos, ft, r);
        break;
    case DC_MACRO_TRANSFORM_MAP:
        r = t_map(c, v1, check(c, e->u.comp.arg1));
        break;
    case DC_MACRO_TRANSFORM_MAP_FILTER:
        ft = check(c, e->u.comp.arg1);
        r = t_map(c, v1, check(c, e->u.comp.arg2));
        require_bool_condition(c, mpos, ft, r);
        break;
    case DC_MACRO_TRANSFORM_MAP_ENTRY:
    case DC_MACRO_TRANSFORM_MAP_ENTRY_FILTER: {
        bool filter = m == DC_MACRO_TRANSFORM_MAP_ENTRY_FILTER;
        ft = filter ? check(c, e->u.comp.arg1) : NULL;
        t = check(c, filter ? e->u.comp.arg2 : e->u.comp.arg1);
        /* step: cel.@mapInsert(@result, t), @result a map of fresh key and value types. */
        const dc_type *acc = t_map(c, fresh(c), fresh(c));
        const dc_type *s = subst(c, t, false);
        if (assignable(c, acc, s)) {
            r = subst(c, acc, false);
        } else {
            const dc_type *argt[2] = {acc, t};
            err_at(c, mpos, "found no matching overload for 'cel.@mapInsert' applied to '%s'",
                   fmt_args(c, argt, 2, false));
            r = acc;
        }
        if (filter)
            require_bool_condition(c, mpos, ft, r);
        break;
    }
    case DC_MACRO_BIND:
    case DC_MACRO__COUNT:
        break;
    }
    c->nlocals = mark;
    return r;
}

static const dc_type *check(ck *c, const dc_ast *e)
{
    if (!e)
        return &dc_ty_error;
    const dc_type *t = &dc_ty_error;
    switch (e->kind) {
    case DC_AST_CONST:
        t = check_const(e);
        break;
    case DC_AST_IDENT:
        t = check_ident(c, e);
        break;
    case DC_AST_SELECT:
        t = check_select(c, e);
        break;
    case DC_AST_CALL:
        t = check_call(c, e);
        break;
    case DC_AST_LIST:
        t = check_list(c, e);
        break;
    case DC_AST_MAP:
        t = check_map(c, e);
        break;
    case DC_AST_STRUCT:
        t = check_struct(c, e);
        break;
    case DC_AST_COMPREHENSION:
        t = check_comprehension(c, e);
        break;
    }
    if (!t) {
        c->oom = true;
        t = &dc_ty_error;
    }
    if (e->id < c->ntypes)
        c->types[e->id] = t;
    return t;
}

/* ---- Passes over the checked tree. */

static const dc_type *type_of(const ck *c, const dc_ast *e)
{
    return e && e->id < c->ntypes ? c->types[e->id] : NULL;
}

static bool is_string_const(const dc_ast *e)
{
    return e && e->kind == DC_AST_CONST && e->u.c.kind == DC_CONST_STRING;
}

/* Go's regexp.Compile on a constant pattern; reports @p msg (or Go's error when NULL). */
static void validate_regex(ck *c, const dc_ast *lit, const char *msg)
{
    char err[256] = "";
    dc_re *re = dc_re_compile(lit->u.c.v.s.ptr, lit->u.c.v.s.len, err, sizeof err);
    if (re) {
        dc_re_free(re);
        return;
    }
    if (strcmp(err, "out of memory") == 0) {
        c->oom = true;
        return;
    }
    err_at(c, lit->pos, "%s", msg ? msg : err);
}

static void homogeneous(ck *c, const dc_type *first, const dc_ast *x, const dc_type *t,
                        bool *reported)
{
    if (*reported || !first || !t || dc_type_equal(first, t))
        return;
    err_at(c, x->pos, "expected type '%s' but found '%s'", fmt_type(c, first), fmt_type(c, t));
    *reported = true;
}

/* The AST validators Kubernetes installs (cel-go's ValidateHomogeneousAggregateLiterals and
 * ValidateRegexLiterals), run on a cleanly checked tree. @p exempt: @p e is a list or map
 * literal inside a format() call (directly or through other literals). */
static void validate(ck *c, const dc_ast *e, bool exempt)
{
    if (!e)
        return;
    switch (e->kind) {
    case DC_AST_CONST:
    case DC_AST_IDENT:
        return;
    case DC_AST_SELECT:
        validate(c, e->u.sel.operand, false);
        return;
    case DC_AST_CALL: {
        const char *fn = e->u.call.fn;
        bool member = e->flags & DC_ASTF_MEMBER;
        dc_ast *const *args = e->u.call.args;
        /* cel-go validates the first argument after the receiver: the pattern of
         * s.matches(p), but the subject of the global matches(s, p). */
        if (streq(fn, "matches") && e->u.call.nargs == 2) {
            const dc_ast *lit = args[member ? 1 : 0];
            if (is_string_const(lit))
                validate_regex(c, lit, "invalid matches argument");
        }
        bool fmt = streq(fn, "format");
        for (uint32_t i = 0; i < e->u.call.nargs; i++)
            validate(c, args[i], fmt);
        return;
    }
    case DC_AST_LIST: {
        if (!exempt) {
            const dc_type *first = NULL;
            bool reported = false;
            for (uint32_t i = 0; i < e->u.list.n && !reported; i++) {
                const dc_ast *x = e->u.list.elems[i];
                const dc_type *t = type_of(c, x);
                if (t && e->u.list.optional && e->u.list.optional[i] &&
                    t->kind == DC_TY_OPTIONAL)
                    t = t->a;
                if (!first)
                    first = t;
                else
                    homogeneous(c, first, x, t, &reported);
            }
        }
        for (uint32_t i = 0; i < e->u.list.n; i++)
            validate(c, e->u.list.elems[i], exempt);
        return;
    }
    case DC_AST_MAP: {
        if (!exempt) {
            const dc_type *fk = NULL, *fv = NULL;
            for (uint32_t i = 0; i < e->u.map.n; i++) {
                const dc_entry *en = &e->u.map.entries[i];
                const dc_type *kt = type_of(c, en->key), *vt = type_of(c, en->value);
                if (vt && en->optional && vt->kind == DC_TY_OPTIONAL)
                    vt = vt->a;
                if (i == 0) {
                    fk = kt;
                    fv = vt;
                    continue;
                }
                bool r1 = false, r2 = false;
                homogeneous(c, fk, en->key, kt, &r1);
                homogeneous(c, fv, en->value, vt, &r2);
            }
        }
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            validate(c, e->u.map.entries[i].key, exempt);
            validate(c, e->u.map.entries[i].value, exempt);
        }
        return;
    }
    case DC_AST_STRUCT:
        for (uint32_t i = 0; i < e->u.map.n; i++)
            validate(c, e->u.map.entries[i].value, false);
        return;
    case DC_AST_COMPREHENSION:
        validate(c, e->u.comp.range, false);
        validate(c, e->u.comp.arg1, false);
        validate(c, e->u.comp.arg2, false);
        return;
    }
}

/* Kubernetes' regex library compiles constant find()/findAll() patterns when it builds the
 * program, so an invalid one fails the compilation (after checking and the result test). */
static void compile_find_patterns(ck *c, const dc_ast *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case DC_AST_CONST:
    case DC_AST_IDENT:
        return;
    case DC_AST_SELECT:
        compile_find_patterns(c, e->u.sel.operand);
        return;
    case DC_AST_CALL:
        if ((e->flags & DC_ASTF_MEMBER) && e->u.call.nargs >= 2 &&
            (streq(e->u.call.fn, "find") || streq(e->u.call.fn, "findAll")) &&
            is_string_const(e->u.call.args[1]))
            validate_regex(c, e->u.call.args[1], NULL);
        for (uint32_t i = 0; i < e->u.call.nargs; i++)
            compile_find_patterns(c, e->u.call.args[i]);
        return;
    case DC_AST_LIST:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            compile_find_patterns(c, e->u.list.elems[i]);
        return;
    case DC_AST_MAP:
    case DC_AST_STRUCT:
        for (uint32_t i = 0; i < e->u.map.n; i++) {
            compile_find_patterns(c, e->u.map.entries[i].key);
            compile_find_patterns(c, e->u.map.entries[i].value);
        }
        return;
    case DC_AST_COMPREHENSION:
        compile_find_patterns(c, e->u.comp.range);
        compile_find_patterns(c, e->u.comp.arg1);
        compile_find_patterns(c, e->u.comp.arg2);
        return;
    }
}

const dc_type *dc_check_ex(const dc_env *env, dc_arena *a, dc_diags *d, const dc_ast *e,
                           dc_checked *out)
{
    bool any_result = out && out->any_result;
    if (out) {
        out->types = NULL;
        out->ntypes = 0;
    }
    if (!env || !a || !d || !e)
        return NULL;
    ck c;
    memset(&c, 0, sizeof c);
    c.env = env;
    c.a = a;
    c.d = d;
    c.dra = env->kind == DC_ENV_DRA;
    for (uint32_t i = 0; i < env->nvars; i++)
        if (strchr(env->vars[i].name, '.'))
            c.dotted_vars = true;
    uint32_t mid = dc_ast_max_id(e);
    if (mid == UINT32_MAX) {
        d->oom = true;
        return NULL;
    }
    c.ntypes = mid + 1;
    c.types = dc_arena_zalloc(a, (size_t)c.ntypes * sizeof *c.types);
    if (!c.types) {
        d->oom = true;
        return NULL;
    }
    size_t errors = d->errors;

    const dc_type *t = check(&c, e);

    /* Final types: bound variables replaced, free ones as dyn. */
    for (uint32_t i = 0; i < c.ntypes && !c.oom; i++)
        if (c.types[i])
            c.types[i] = subst(&c, c.types[i], true);
    t = subst(&c, t, true);

    if (c.dra && !c.oom && d->errors == errors) {
        validate(&c, e, false);
        if (d->errors == errors && !any_result && t->kind != DC_TY_BOOL && t->kind != DC_TY_DYN) {
            const char *ts = dc_type_str(a, t);
            dc_error(d, dc_span(e->span.start, e->span.end),
                     "must evaluate to bool or the unknown type, not %s", ts ? ts : "?");
        }
        if (d->errors == errors)
            compile_find_patterns(&c, e);
    }
    if (c.oom) {
        d->oom = true;
        return NULL;
    }
    if (out) {
        out->types = c.types;
        out->ntypes = c.ntypes;
    }
    return d->errors == errors ? t : NULL;
}

const dc_type *dc_check(const dc_env *env, dc_arena *a, dc_diags *d, const dc_ast *e)
{
    return dc_check_ex(env, a, d, e, NULL);
}
