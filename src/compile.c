/*
 * compile.c: AST -> bytecode. One pass over the (bounded-height) tree; jumps are emitted with a
 * placeholder and patched. Everything the program keeps lives in its own arena.
 *
 * Shapes of the generated code (docs/bytecode.md):
 *   a && b        a ANDJ L b AND L:           a || b   a ORJ L b OR L:
 *   c ? x : y     c TESTCOND E JFALSE F x JMP E F: y E:
 *   r.all(x, p)   r ITERINIT it,E  CONST true STORELOCAL acc
 *                 L: ITERNEXT it,D STORELOCAL x LOADLOCAL acc p AND STORELOCAL acc
 *                    LOADLOCAL acc JFALSE D JMP L   D: LOADLOCAL acc   E:
 *   device.attributes["d"].id and device.attributes["d"]["id"]  ->  LOADATTR col
 *   device.capacity["d"].id                                      ->  LOADCAP col
 *   has(device.attributes["d"].id), "id" in device.attributes["d"] ->  HASCOL col
 *   device.driver, device.allowMultipleAllocations               ->  LOADDEV field
 * A column load is only emitted when `device` is the environment's variable (not a
 * comprehension variable of the same name).
 */
#include "compile.h"

#include "check.h"
#include "host.h"
#include "registry.h"

#include <string.h>

typedef struct scope_entry {
    const char *name;
    uint32_t slot;
} scope_entry;

typedef struct cg {
    const dc_env *env;
    dc_diags *d;
    dc_program *p;
    dc_arena *a;        /* the program's arena */
    uint32_t *code;
    uint32_t ncode, capcode;
    dc_val *consts;
    uint32_t nconsts, capconsts;
    const dc_builtin **fns;
    uint32_t nfns, capfns;
    dc_column *cols;
    uint32_t ncols, capcols;
    scope_entry *scope;
    uint32_t nscope, capscope;
    uint32_t nlocals, niters;
    bool oom;
    bool no_fold;
    size_t folded_bytes;        /* the constants folding has made, in all */
    dc_arena scratch;           /* a folded segment's program while it runs (reset each time) */
} cg;

/* Grow an arena array by doubling (the old copy stays in the arena: programs are small). */
static bool grow(cg *g, void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap)
        return true;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *na = dc_arena_alloc(g->a, (size_t)nc * elem);
    if (!na) {
        g->oom = true;
        return false;
    }
    if (*cap)
        memcpy(na, *arr, (size_t)*cap * elem);
    *arr = na;
    *cap = nc;
    return true;
}

static uint32_t emit(cg *g, dc_op op, uint32_t a)
{
    if (!grow(g, (void **)&g->code, &g->capcode, g->ncode + 1, sizeof *g->code))
        return 0;
    g->code[g->ncode] = DC_INSN(op, a & 0xFFFFFFu);
    return g->ncode++;
}

static uint32_t emit2(cg *g, dc_op op, uint32_t a, uint32_t b)
{
    uint32_t at = emit(g, op, a);
    if (!grow(g, (void **)&g->code, &g->capcode, g->ncode + 1, sizeof *g->code))
        return at;
    g->code[g->ncode++] = b;
    return at;
}

/* Point the jump at `at` to the current end of code. */
static void patch(cg *g, uint32_t at)
{
    if (g->oom)
        return;
    dc_op op = DC_INSN_OP(g->code[at]);
    unsigned words = dc_fmt_words(dc_op_info[op].fmt);
    int32_t off = (int32_t)g->ncode - (int32_t)(at + words);
    if (dc_op_info[op].fmt == DC_FMT_IJ)
        g->code[at + 1] = (uint32_t)off;
    else
        g->code[at] = DC_INSN(op, (uint32_t)off & 0xFFFFFFu);
}

/* A backward jump to `target`. */
static void emit_jump_to(cg *g, dc_op op, uint32_t target)
{
    int32_t off = (int32_t)target - (int32_t)(g->ncode + 1);
    emit(g, op, (uint32_t)off & 0xFFFFFFu);
}

static uint32_t add_const(cg *g, dc_val v)
{
    if (!grow(g, (void **)&g->consts, &g->capconsts, g->nconsts + 1, sizeof *g->consts))
        return 0;
    g->consts[g->nconsts] = v;
    return g->nconsts++;
}

static dc_str *pstr(cg *g, const char *s, size_t n)
{
    dc_str *x = dc_arena_alloc(g->a, sizeof *x + n + 1);
    if (!x) {
        g->oom = true;
        return NULL;
    }
    x->len = (uint32_t)n;
    if (n)
        memcpy(x->data, s, n);
    x->data[n] = '\0';
    return x;
}

static uint32_t str_const(cg *g, const char *s)
{
    dc_str *x = pstr(g, s, strlen(s));
    return x ? add_const(g, dc_strval(x)) : 0;
}

/* A constant error value (for what an unchecked program reports when it runs). */
static uint32_t error_const(cg *g, const char *prefix, const char *arg)
{
    dc_err *e = dc_arena_alloc(g->a, sizeof *e);
    char *msg = dc_arena_printf(g->a, "%s%s", prefix, arg);
    if (!e || !msg) {
        g->oom = true;
        return 0;
    }
    e->msg = msg;
    return add_const(g, dc_errval(e));
}

static uint32_t add_fn(cg *g, const dc_builtin *b)
{
    for (uint32_t i = 0; i < g->nfns; i++)
        if (g->fns[i] == b)
            return i;
    if (!grow(g, (void **)&g->fns, &g->capfns, g->nfns + 1, sizeof *g->fns))
        return 0;
    g->fns[g->nfns] = b;
    return g->nfns++;
}

static uint32_t add_col(cg *g, const char *domain, size_t dn, const char *id, size_t in,
                        bool capacity)
{
    for (uint32_t i = 0; i < g->ncols; i++) {
        const dc_column *c = &g->cols[i];
        if (c->capacity == capacity && c->domain->len == dn && c->id->len == in &&
            !memcmp(c->domain->data, domain, dn) && !memcmp(c->id->data, id, in))
            return i;
    }
    if (!grow(g, (void **)&g->cols, &g->capcols, g->ncols + 1, sizeof *g->cols))
        return 0;
    dc_column *c = &g->cols[g->ncols];
    c->domain = pstr(g, domain, dn);
    c->id = pstr(g, id, in);
    c->capacity = capacity;
    return g->ncols++;
}

static uint32_t new_local(cg *g)
{
    return g->nlocals++;
}

static void scope_push(cg *g, const char *name, uint32_t slot)
{
    if (!grow(g, (void **)&g->scope, &g->capscope, g->nscope + 1, sizeof *g->scope))
        return;
    g->scope[g->nscope].name = name;
    g->scope[g->nscope].slot = slot;
    g->nscope++;
}

static const scope_entry *scope_find(const cg *g, const char *name)
{
    for (uint32_t i = g->nscope; i-- > 0;)
        if (strcmp(g->scope[i].name, name) == 0)
            return &g->scope[i];
    return NULL;
}

static void compile(cg *g, const dc_ast *e);

/* ---- Names. */

/* Whether the IDENT/SELECT chain @p e spells the dotted name @p s (a leading dot of its root
 * not counted), compared from the name's end: it costs the name's length, never the chain's,
 * so that a chain as deep as the depth limit allows (10,000 selections) compiles in linear
 * time and memory (building "a.a.a..." at every level was cubic). */
static bool chain_is(const dc_ast *e, const char *s)
{
    size_t n = strlen(s);
    for (; e->kind == DC_AST_SELECT && !(e->flags & DC_ASTF_TEST_ONLY); e = e->u.sel.operand) {
        size_t fl = strlen(e->u.sel.field);
        if (fl + 1 > n || s[n - fl - 1] != '.' || memcmp(s + n - fl, e->u.sel.field, fl) != 0)
            return false;
        n -= fl + 1;
    }
    if (e->kind != DC_AST_IDENT)
        return false;
    const char *id = e->u.ident.name[0] == '.' ? e->u.ident.name + 1 : e->u.ident.name;
    return strlen(id) == n && memcmp(id, s, n) == 0;
}

/* The leftmost identifier of a chain. */
static const dc_ast *chain_root(const dc_ast *e)
{
    while (e->kind == DC_AST_SELECT)
        e = e->u.sel.operand;
    return e->kind == DC_AST_IDENT ? e : NULL;
}

/* An environment variable named by e (a qualified name not hidden by a local), or NULL. */
static const dc_vardecl *env_var_of(cg *g, const dc_ast *e)
{
    const dc_ast *root = chain_root(e);
    if (!root)
        return NULL;
    const char *rn = root->u.ident.name;
    bool dot = rn[0] == '.';
    if (!dot && scope_find(g, rn))
        return NULL;
    for (uint32_t i = 0; i < g->env->nvars; i++)
        if (chain_is(e, g->env->vars[i].name))
            return &g->env->vars[i];
    return NULL;
}

static bool is_device(cg *g, const dc_ast *e)
{
    const dc_vardecl *v = env_var_of(g, e);
    return v && v->type && v->type->kind == DC_TY_DEVICE;
}

static const dc_const *string_const(const dc_ast *e)
{
    return e->kind == DC_AST_CONST && e->u.c.kind == DC_CONST_STRING ? &e->u.c : NULL;
}

/* device.attributes["d"] / device.capacity["d"] with a constant domain: its parts. */
static bool domain_access(cg *g, const dc_ast *e, const dc_const **domain, bool *capacity)
{
    if (e->kind != DC_AST_CALL || strcmp(e->u.call.fn, "_[_]") != 0 || e->u.call.nargs != 2)
        return false;
    const dc_ast *m = e->u.call.args[0];
    const dc_const *dk = string_const(e->u.call.args[1]);
    if (!dk || m->kind != DC_AST_SELECT || (m->flags & DC_ASTF_TEST_ONLY))
        return false;
    bool attr = strcmp(m->u.sel.field, "attributes") == 0;
    bool cap = strcmp(m->u.sel.field, "capacity") == 0;
    if (!(attr || cap) || !is_device(g, m->u.sel.operand))
        return false;
    *domain = dk;
    *capacity = cap;
    return true;
}

/* A column load: device.attributes["d"].id or device.attributes["d"]["id"]. */
static bool try_column(cg *g, const dc_ast *e)
{
    const dc_ast *inner;
    const char *id;
    size_t idlen;
    if (e->kind == DC_AST_SELECT && !(e->flags & DC_ASTF_TEST_ONLY)) {
        inner = e->u.sel.operand;
        id = e->u.sel.field;
        idlen = strlen(id);
    } else if (e->kind == DC_AST_CALL && strcmp(e->u.call.fn, "_[_]") == 0 &&
               e->u.call.nargs == 2 && string_const(e->u.call.args[1])) {
        inner = e->u.call.args[0];
        id = e->u.call.args[1]->u.c.v.s.ptr;
        idlen = e->u.call.args[1]->u.c.v.s.len;
    } else {
        return false;
    }
    const dc_const *dk;
    bool capacity;
    if (!domain_access(g, inner, &dk, &capacity))
        return false;
    uint32_t col = add_col(g, dk->v.s.ptr, dk->v.s.len, id, idlen, capacity);
    emit(g, capacity ? DC_OP_LOADCAP : DC_OP_LOADATTR, col);
    return true;
}

/* ---- Expressions. */

static void compile_const(cg *g, const dc_ast *e)
{
    const dc_const *k = &e->u.c;
    dc_val v;
    switch (k->kind) {
    case DC_CONST_NULL: v = dc_null(); break;
    case DC_CONST_BOOL: v = dc_bool(k->v.b); break;
    case DC_CONST_INT: v = dc_int(k->v.i); break;
    case DC_CONST_UINT: v = dc_uint(k->v.u); break;
    case DC_CONST_DOUBLE: v = dc_double(k->v.d); break;
    case DC_CONST_STRING:
    case DC_CONST_BYTES: {
        dc_str *s = pstr(g, k->v.s.ptr, k->v.s.len);
        if (!s)
            return;
        v = k->kind == DC_CONST_STRING ? dc_strval(s) : dc_bytesval(s);
        break;
    }
    default: v = dc_null(); break;
    }
    emit(g, DC_OP_CONST, add_const(g, v));
}

/* Identifiers that denote type values (`int`, `list`, `optional_type`...), as in cel-go. */
static const struct {
    const char *name;
    dc_typename t;
} type_names[] = {
    {"bool", DC_T_BOOL},     {"bytes", DC_T_BYTES},         {"double", DC_T_DOUBLE},
    {"int", DC_T_INT},       {"uint", DC_T_UINT},           {"string", DC_T_STRING},
    {"null_type", DC_T_NULL}, {"type", DC_T_TYPE},          {"list", DC_T_LIST},
    {"map", DC_T_MAP},       {"optional_type", DC_T_OPTIONAL},
};

static void compile_ident(cg *g, const dc_ast *e)
{
    const char *name = e->u.ident.name;
    const scope_entry *s = name[0] != '.' ? scope_find(g, name) : NULL;
    if (s) {
        emit(g, DC_OP_LOADLOCAL, s->slot);
        return;
    }
    const dc_vardecl *v = dc_env_var(g->env, name[0] == '.' ? name + 1 : name);
    if (v) {
        emit(g, DC_OP_LOADVAR, v->slot);
        return;
    }
    for (size_t i = 0; i < DC_COUNTOF(type_names); i++)
        if (strcmp(type_names[i].name, name[0] == '.' ? name + 1 : name) == 0) {
            emit(g, DC_OP_CONST, add_const(g, dc_typeval(type_names[i].t)));
            return;
        }
    /* Unchecked programs: cel-go reports an unbound name when it is evaluated. */
    emit(g, DC_OP_CONST, error_const(g, "no such attribute(s): ", name));
}

/* has(device.attributes["d"].id): the presence of a column. */
static bool try_has_column(cg *g, const dc_ast *e)
{
    const dc_const *dk;
    bool capacity;
    if (!domain_access(g, e->u.sel.operand, &dk, &capacity))
        return false;
    const char *id = e->u.sel.field;
    emit(g, DC_OP_HASCOL, add_col(g, dk->v.s.ptr, dk->v.s.len, id, strlen(id), capacity));
    return true;
}

/* "id" in device.attributes["d"] (Kubernetes' examples test capacities this way): the presence
 * of a column, as has() gives it. The run-time cost stays what the long form charges (the
 * device, the selection, the index, `in`: 4), so both count alike against the limit. */
static bool try_in_column(cg *g, const dc_ast *e)
{
    const dc_const *key = string_const(e->u.call.args[0]);
    const dc_const *dk;
    bool capacity;
    if (!key || !domain_access(g, e->u.call.args[1], &dk, &capacity))
        return false;
    emit(g, DC_OP_HASCOL, add_col(g, dk->v.s.ptr, dk->v.s.len, key->v.s.ptr, key->v.s.len, capacity));
    emit(g, DC_OP_CHARGE, 3);
    return true;
}

/* device.attributes["d"].?id.orValue(c) with a constant c: the column's value or c, one
 * instruction (the idiom Kubernetes recommends for attributes some devices lack). */
static bool try_column_default(cg *g, const dc_ast *e)
{
    if (!(e->flags & DC_ASTF_MEMBER) || e->u.call.nargs != 2 ||
        strcmp(e->u.call.fn, "orValue") != 0 || e->u.call.args[1]->kind != DC_AST_CONST)
        return false;
    const dc_ast *opt = e->u.call.args[0];
    if (opt->kind != DC_AST_CALL || (opt->flags & DC_ASTF_MEMBER) ||
        strcmp(opt->u.call.fn, "_?._") != 0 || opt->u.call.nargs != 2 ||
        !string_const(opt->u.call.args[1]))
        return false;
    const dc_const *dk;
    bool capacity;
    if (!domain_access(g, opt->u.call.args[0], &dk, &capacity))
        return false;
    const dc_const *id = &opt->u.call.args[1]->u.c;
    uint32_t col = add_col(g, dk->v.s.ptr, dk->v.s.len, id->v.s.ptr, id->v.s.len, capacity);
    /* The default as a constant: compile it and take its index back. */
    uint32_t at = g->ncode;
    compile_const(g, e->u.call.args[1]);
    if (g->oom)
        return true;
    uint32_t k = DC_INSN_A(g->code[at]);
    g->ncode = at;
    emit2(g, DC_OP_LOADCOLDEF, col, k);
    return true;
}

/* device.driver, device.allowMultipleAllocations: one field of the device (a table row's pool
 * driver or its bitmap), not the whole device map. */
static bool try_device_field(cg *g, const dc_ast *e)
{
    const char *f = e->u.sel.field;
    if ((e->flags & DC_ASTF_TEST_ONLY) || !is_device(g, e->u.sel.operand) ||
        (strcmp(f, "driver") != 0 && strcmp(f, "allowMultipleAllocations") != 0))
        return false;
    emit(g, DC_OP_LOADDEV, f[0] == 'd' ? DC_DEVF_DRIVER : DC_DEVF_MULTI);
    return true;
}

static void compile_select(cg *g, const dc_ast *e)
{
    if ((e->flags & DC_ASTF_TEST_ONLY) && try_has_column(g, e))
        return;
    if (e->flags & DC_ASTF_TEST_ONLY) {
        compile(g, e->u.sel.operand);
        emit(g, DC_OP_HAS, str_const(g, e->u.sel.field));
        return;
    }
    const dc_vardecl *v = env_var_of(g, e);
    if (v) {
        emit(g, DC_OP_LOADVAR, v->slot);
        return;
    }
    if (try_column(g, e) || try_device_field(g, e))
        return;
    compile(g, e->u.sel.operand);
    emit(g, DC_OP_SELECT, str_const(g, e->u.sel.field));
}

static const struct {
    const char *name;
    dc_op op;
    uint8_t argc;
} operators[] = {
    {"_==_", DC_OP_EQ, 2}, {"_!=_", DC_OP_NE, 2}, {"_<_", DC_OP_LT, 2},
    {"_<=_", DC_OP_LE, 2}, {"_>_", DC_OP_GT, 2},  {"_>=_", DC_OP_GE, 2},
    {"@in", DC_OP_IN, 2},  {"_+_", DC_OP_ADD, 2}, {"_-_", DC_OP_SUB, 2},
    {"_*_", DC_OP_MUL, 2}, {"_/_", DC_OP_DIV, 2}, {"_%_", DC_OP_MOD, 2},
    {"-_", DC_OP_NEG, 1},  {"!_", DC_OP_NOT, 1},  {"_[_]", DC_OP_INDEX, 2},
    {"_[?_]", DC_OP_OPTINDEX, 2},
};

static void compile_logic(cg *g, const dc_ast *e, bool is_and)
{
    compile(g, e->u.call.args[0]);
    uint32_t j = emit(g, is_and ? DC_OP_ANDJ : DC_OP_ORJ, 0);
    compile(g, e->u.call.args[1]);
    emit(g, is_and ? DC_OP_AND : DC_OP_OR, 0);
    patch(g, j);
}

static void compile_cond(cg *g, const dc_ast *e)
{
    compile(g, e->u.call.args[0]);
    uint32_t jend1 = emit(g, DC_OP_TESTCOND, 0);
    uint32_t jelse = emit(g, DC_OP_JFALSE, 0);
    compile(g, e->u.call.args[1]);
    uint32_t jend2 = emit(g, DC_OP_JMP, 0);
    patch(g, jelse);
    compile(g, e->u.call.args[2]);
    patch(g, jend1);
    patch(g, jend2);
}

/* The implementation a call of (name, style, argc) runs: the library's builtin, or when the
 * environment declares host overloads of that triple, a dc_hostcall of them (one per triple in
 * a program, made in its arena) with the builtin as its fallback. NULL when neither exists. */
static const dc_builtin *find_fn(cg *g, const char *name, bool member, uint32_t argc)
{
    const dc_builtin *lib = dc_builtin_find(name, member, argc);
    const dc_fundecl *f = dc_env_fun(g->env, name);
    uint32_t nhost = 0;
    bool impure = false;
    for (uint32_t i = 0; f && i < f->n; i++) {
        const dc_overload *o = &f->overloads[i];
        if (o->host && o->member == member && o->nparams == argc) {
            nhost++;
            impure |= !dc_host_sig(o->host)->pure;
        }
    }
    if (nhost == 0 || argc > DC_HOST_MAX_PARAMS)
        return lib;
    for (uint32_t i = 0; i < g->nfns; i++) {
        const dc_builtin *b = g->fns[i];
        if ((b->flags & DC_BF_HOST) && b->member == member && b->argc == argc &&
            strcmp(b->name, f->name) == 0)
            return b;
    }
    dc_hostcall *hc = dc_arena_zalloc(g->a, sizeof *hc);
    const dc_host **ovs = dc_arena_alloc(g->a, nhost * sizeof *ovs);
    char *nm = dc_arena_strndup(g->a, f->name, strlen(f->name));
    if (!hc || !ovs || !nm) {
        g->oom = true;
        return NULL;
    }
    hc->n = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        const dc_overload *o = &f->overloads[i];
        if (o->host && o->member == member && o->nparams == argc)
            ovs[hc->n++] = o->host;
    }
    hc->ovs = ovs;
    hc->fallback = lib;
    hc->b.name = nm;
    hc->b.member = member;
    hc->b.argc = (uint8_t)argc;
    hc->b.flags = (uint8_t)(DC_BF_HOST | (impure ? DC_BF_IMPURE : 0) |
                            (lib ? lib->flags & DC_BF_NONSTRICT : 0));
    hc->b.fn = lib ? lib->fn : NULL; /* never called: dc_builtin_call takes DC_BF_HOST */
    return &hc->b;
}

/* A receiver call whose target names a namespace (optional.of, sets.contains, strings.quote,
 * cel.bind is a macro) rather than a value: the global function "target.fn". */
static __attribute__((noinline)) const dc_builtin *namespaced(cg *g, const dc_ast *e)
{
    if (!(e->flags & DC_ASTF_MEMBER))
        return NULL;
    /* The checker's rule, so that both passes resolve the same names. */
    const char *name = dc_check_qualified_fn(g->env, e);
    if (!name) {
        /* Unchecked programs: a namespace that names a builtin but no declared function. */
        const dc_ast *t = e->u.call.args[0];
        if (env_var_of(g, t) || (t->kind == DC_AST_IDENT && scope_find(g, t->u.ident.name)))
            return NULL;
        char q[512]; /* longer than any function's name: no function */
        size_t ql;
        const dc_ast *root;
        if (!dc_check_qualified_name(t, q, sizeof q, &ql, &root))
            return NULL;
        name = dc_arena_printf(g->a, "%s.%s", q[0] == '.' ? q + 1 : q, e->u.call.fn);
    }
    return name ? find_fn(g, name, false, e->u.call.nargs - 1) : NULL;
}

static void emit_call(cg *g, const char *name, bool member, uint32_t argc)
{
    const dc_builtin *b = dc_builtin_find(name, member, argc);
    if (!b) {
        g->oom = true; /* a missing core builtin is a build defect; fail loudly */
        return;
    }
    emit2(g, DC_OP_CALL, add_fn(g, b), argc);
}

/* x.optMap(v, e)     = x.hasValue() ? optional.of(cel.bind(v, x.value(), e)) : optional.none()
 * x.optFlatMap(v, e) = x.hasValue() ? cel.bind(v, x.value(), e) : optional.none()
 * (cel-go's optional macros; the checker types them). */
static void compile_opt_map(cg *g, const dc_ast *e, bool flat)
{
    const dc_ast *const *a = (const dc_ast *const *)e->u.call.args;
    uint32_t t = new_local(g), v = new_local(g);
    compile(g, a[0]);
    emit(g, DC_OP_STORELOCAL, t);
    emit(g, DC_OP_LOADLOCAL, t);
    emit_call(g, "hasValue", true, 1);
    uint32_t jend1 = emit(g, DC_OP_TESTCOND, 0);
    uint32_t jnone = emit(g, DC_OP_JFALSE, 0);
    emit(g, DC_OP_LOADLOCAL, t);
    emit_call(g, "value", true, 1);
    emit(g, DC_OP_STORELOCAL, v);
    uint32_t nscope = g->nscope;
    scope_push(g, a[1]->u.ident.name, v);
    compile(g, a[2]);
    g->nscope = nscope;
    if (!flat)
        emit_call(g, "optional.of", false, 1);
    uint32_t jend2 = emit(g, DC_OP_JMP, 0);
    patch(g, jnone);
    emit_call(g, "optional.none", false, 0);
    patch(g, jend1);
    patch(g, jend2);
}

/* x.orValue(y) and x.or(y) evaluate y only when x is none, as cel-go's optional library does:
 *   x STORELOCAL t  LOADLOCAL t  CALL hasValue  TESTCOND E  JFALSE F
 *   LOADLOCAL t [CALL value]  JMP E   F: y   E: */
static void compile_opt_or(cg *g, const dc_ast *e, bool or_value)
{
    uint32_t t = new_local(g);
    compile(g, e->u.call.args[0]);
    emit(g, DC_OP_STORELOCAL, t);
    emit(g, DC_OP_LOADLOCAL, t);
    emit_call(g, "hasValue", true, 1);
    uint32_t jend1 = emit(g, DC_OP_TESTCOND, 0);
    uint32_t jelse = emit(g, DC_OP_JFALSE, 0);
    emit(g, DC_OP_LOADLOCAL, t);
    if (or_value)
        emit_call(g, "value", true, 1);
    uint32_t jend2 = emit(g, DC_OP_JMP, 0);
    patch(g, jelse);
    compile(g, e->u.call.args[1]);
    patch(g, jend1);
    patch(g, jend2);
}

/* l.sortBy(v, key) = @sortByAssociatedKeys(l, l.map(v, key)) (cel-go's ext.Lists macro). */
static void compile_sort_by(cg *g, const dc_ast *e)
{
    const dc_ast *const *a = (const dc_ast *const *)e->u.call.args;
    uint32_t t = new_local(g);
    compile(g, a[0]);
    emit(g, DC_OP_STORELOCAL, t);
    emit(g, DC_OP_LOADLOCAL, t);
    /* The keys: a map comprehension over the same list. */
    uint32_t it = g->niters++;
    emit(g, DC_OP_LOADLOCAL, t);
    uint32_t jinit = emit2(g, DC_OP_ITERINIT, it, 0);
    uint32_t acc = new_local(g), var = new_local(g);
    emit(g, DC_OP_ACCINIT, acc);
    uint32_t loop = g->ncode;
    uint32_t jnext = emit2(g, DC_OP_ITERNEXT, it, 0);
    emit(g, DC_OP_STORELOCAL, var);
    uint32_t nscope = g->nscope;
    scope_push(g, a[1]->u.ident.name, var);
    compile(g, a[2]);
    g->nscope = nscope;
    emit(g, DC_OP_ACCPUSH, acc);
    emit_jump_to(g, DC_OP_JMP, loop);
    patch(g, jnext);
    emit(g, DC_OP_ACCDONE, acc);
    patch(g, jinit);
    emit_call(g, "@sortByAssociatedKeys", true, 2);
}

static void compile_call(cg *g, const dc_ast *e)
{
    const char *fn = e->u.call.fn;
    uint32_t n = e->u.call.nargs;
    bool member = e->flags & DC_ASTF_MEMBER;
    if (try_column_default(g, e))
        return;
    if (member && n == 2 && (strcmp(fn, "orValue") == 0 || strcmp(fn, "or") == 0))
        return compile_opt_or(g, e, fn[2] == 'V');
    if (member && n == 3 && e->u.call.args[1]->kind == DC_AST_IDENT) {
        if (strcmp(fn, "optMap") == 0)
            return compile_opt_map(g, e, false);
        if (strcmp(fn, "optFlatMap") == 0)
            return compile_opt_map(g, e, true);
        if (strcmp(fn, "sortBy") == 0)
            return compile_sort_by(g, e);
    }
    if (!member) {
        if (strcmp(fn, "_&&_") == 0 && n == 2)
            return compile_logic(g, e, true);
        if (strcmp(fn, "_||_") == 0 && n == 2)
            return compile_logic(g, e, false);
        if (strcmp(fn, "_?_:_") == 0 && n == 3)
            return compile_cond(g, e);
        if (strcmp(fn, "_?._") == 0 && n == 2 && string_const(e->u.call.args[1])) {
            compile(g, e->u.call.args[0]);
            emit(g, DC_OP_OPTSELECT, str_const(g, e->u.call.args[1]->u.c.v.s.ptr));
            return;
        }
        if (strcmp(fn, "@in") == 0 && n == 2 && try_in_column(g, e))
            return;
        for (size_t i = 0; i < DC_COUNTOF(operators); i++)
            if (operators[i].argc == n && strcmp(operators[i].name, fn) == 0) {
                for (uint32_t k = 0; k < n; k++)
                    compile(g, e->u.call.args[k]);
                emit(g, operators[i].op, 0);
                return;
            }
    }
    uint32_t first = 0;
    const dc_builtin *b = namespaced(g, e);
    if (b) {
        first = 1; /* the namespace is not an argument */
    } else {
        const char *name = fn[0] == '.' ? fn + 1 : fn;
        b = find_fn(g, name, member, n);
    }
    if (g->oom)
        return;
    if (!b) {
        /* Only an unchecked program gets here (the checker reports unknown functions): as in
         * cel-go, the call is an error when it is evaluated, after its arguments (an error
         * argument wins), and `||`/`&&` can still absorb it. */
        for (uint32_t k = first; k < n; k++)
            compile(g, e->u.call.args[k]);
        emit2(g, DC_OP_CALL, add_fn(g, &dc_builtin_no_overload), n - first);
        return;
    }
    for (uint32_t k = first; k < n; k++)
        compile(g, e->u.call.args[k]);
    emit2(g, DC_OP_CALL, add_fn(g, b), n - first);
}

/* MKLIST/MKMAP operand: a constant list [count, optional flags...]. */
static uint32_t shape_const(cg *g, uint32_t n, const bool *opt)
{
    bool any = false;
    for (uint32_t i = 0; opt && i < n; i++)
        any |= opt[i];
    uint32_t len = any ? n + 1 : 1;
    dc_list *l = dc_arena_alloc(g->a, sizeof *l + len * sizeof(dc_val));
    if (!l) {
        g->oom = true;
        return 0;
    }
    l->n = len;
    l->v[0] = dc_int(n);
    for (uint32_t i = 0; any && i < n; i++)
        l->v[i + 1] = dc_bool(opt[i]);
    return add_const(g, dc_listval(l));
}

static void compile_list(cg *g, const dc_ast *e)
{
    for (uint32_t i = 0; i < e->u.list.n; i++)
        compile(g, e->u.list.elems[i]);
    emit(g, DC_OP_MKLIST, shape_const(g, e->u.list.n, e->u.list.optional));
}

static void compile_map(cg *g, const dc_ast *e)
{
    uint32_t n = e->u.map.n;
    bool *opt = dc_arena_alloc(g->a, (n ? n : 1) * sizeof *opt);
    if (!opt) {
        g->oom = true;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        compile(g, e->u.map.entries[i].key);
        compile(g, e->u.map.entries[i].value);
        opt[i] = e->u.map.entries[i].optional;
    }
    emit(g, DC_OP_MKMAP, shape_const(g, n, opt));
}

/* p; if p is true: body; false: skip; error or non-bool: poison the builder. */
static void guarded(cg *g, const dc_ast *pred, const dc_ast *body, uint32_t acc, dc_op put,
                    uint32_t key_slot, bool push_key, uint32_t loop)
{
    compile(g, pred);
    uint32_t jpoison = emit(g, DC_OP_TESTCOND, 0);
    uint32_t jskip = emit(g, DC_OP_JFALSE, 0);
    if (push_key)
        emit(g, DC_OP_LOADLOCAL, key_slot);
    if (body)
        compile(g, body);
    else
        emit(g, DC_OP_LOADLOCAL, key_slot);
    emit(g, put, acc);
    emit_jump_to(g, DC_OP_JMP, loop);
    patch(g, jpoison);
    emit(g, DC_OP_ACCPOISON, acc);
    patch(g, jskip);
}

static void compile_comprehension(cg *g, const dc_ast *e)
{
    dc_macro m = e->u.comp.macro;
    if (m == DC_MACRO_BIND) {
        compile(g, e->u.comp.range);
        uint32_t slot = new_local(g);
        emit(g, DC_OP_STORELOCAL, slot);
        scope_push(g, e->u.comp.var1, slot);
        compile(g, e->u.comp.arg1);
        g->nscope--;
        return;
    }
    bool two = e->u.comp.var2 != NULL;
    compile(g, e->u.comp.range);
    uint32_t it = g->niters++;
    uint32_t jinit = emit2(g, two ? DC_OP_ITERINIT2 : DC_OP_ITERINIT, it, 0);
    uint32_t acc = new_local(g);
    uint32_t v1 = new_local(g), v2 = two ? new_local(g) : 0;
    switch (m) {
    case DC_MACRO_ALL:
    case DC_MACRO_ALL2: emit(g, DC_OP_CONST, add_const(g, dc_bool(true))); emit(g, DC_OP_STORELOCAL, acc); break;
    case DC_MACRO_EXISTS:
    case DC_MACRO_EXISTS2: emit(g, DC_OP_CONST, add_const(g, dc_bool(false))); emit(g, DC_OP_STORELOCAL, acc); break;
    case DC_MACRO_EXISTS_ONE:
    case DC_MACRO_EXISTS_ONE2: emit(g, DC_OP_CONST, add_const(g, dc_int(0))); emit(g, DC_OP_STORELOCAL, acc); break;
    case DC_MACRO_TRANSFORM_MAP:
    case DC_MACRO_TRANSFORM_MAP_FILTER:
    case DC_MACRO_TRANSFORM_MAP_ENTRY:
    case DC_MACRO_TRANSFORM_MAP_ENTRY_FILTER: emit(g, DC_OP_ACCINITMAP, acc); break;
    default: emit(g, DC_OP_ACCINIT, acc); break;
    }
    uint32_t loop = g->ncode;
    uint32_t jnext = emit2(g, two ? DC_OP_ITERNEXT2 : DC_OP_ITERNEXT, it, 0);
    if (two) {
        emit(g, DC_OP_STORELOCAL, v2);
        emit(g, DC_OP_STORELOCAL, v1);
    } else {
        emit(g, DC_OP_STORELOCAL, v1);
    }
    uint32_t nscope = g->nscope;
    scope_push(g, e->u.comp.var1, v1);
    if (two)
        scope_push(g, e->u.comp.var2, v2);
    const dc_ast *a1 = e->u.comp.arg1, *a2 = e->u.comp.arg2;
    uint32_t jdone = UINT32_MAX;
    switch (m) {
    case DC_MACRO_ALL:
    case DC_MACRO_ALL2:
    case DC_MACRO_EXISTS:
    case DC_MACRO_EXISTS2: {
        bool all = m == DC_MACRO_ALL || m == DC_MACRO_ALL2;
        emit(g, DC_OP_LOADLOCAL, acc);
        compile(g, a1);
        emit(g, all ? DC_OP_AND : DC_OP_OR, 0);
        emit(g, DC_OP_STORELOCAL, acc);
        emit(g, DC_OP_LOADLOCAL, acc);
        jdone = emit(g, all ? DC_OP_JFALSE : DC_OP_JTRUE, 0);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    }
    case DC_MACRO_EXISTS_ONE:
    case DC_MACRO_EXISTS_ONE2:
        emit(g, DC_OP_LOADLOCAL, acc);
        compile(g, a1);
        emit(g, DC_OP_COUNTIF, 0);
        emit(g, DC_OP_STORELOCAL, acc);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    case DC_MACRO_MAP:
    case DC_MACRO_TRANSFORM_LIST:
        compile(g, a1);
        emit(g, DC_OP_ACCPUSH, acc);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    case DC_MACRO_MAP_FILTER:
    case DC_MACRO_TRANSFORM_LIST_FILTER:
        guarded(g, a1, a2, acc, DC_OP_ACCPUSH, 0, false, loop);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    case DC_MACRO_FILTER:
        guarded(g, a1, NULL, acc, DC_OP_ACCPUSH, v1, false, loop);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    case DC_MACRO_TRANSFORM_MAP:
        emit(g, DC_OP_LOADLOCAL, v1);
        compile(g, a1);
        emit(g, DC_OP_ACCPUT, acc);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    case DC_MACRO_TRANSFORM_MAP_FILTER:
        guarded(g, a1, a2, acc, DC_OP_ACCPUT, v1, true, loop);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    case DC_MACRO_TRANSFORM_MAP_ENTRY:
        compile(g, a1);
        emit(g, DC_OP_ACCMERGE, acc);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    case DC_MACRO_TRANSFORM_MAP_ENTRY_FILTER:
        guarded(g, a1, a2, acc, DC_OP_ACCMERGE, 0, false, loop);
        emit_jump_to(g, DC_OP_JMP, loop);
        break;
    default:
        break;
    }
    g->nscope = nscope;
    patch(g, jnext);
    if (jdone != UINT32_MAX)
        patch(g, jdone);
    switch (m) {
    case DC_MACRO_ALL:
    case DC_MACRO_ALL2:
    case DC_MACRO_EXISTS:
    case DC_MACRO_EXISTS2:
        emit(g, DC_OP_LOADLOCAL, acc);
        break;
    case DC_MACRO_EXISTS_ONE:
    case DC_MACRO_EXISTS_ONE2:
        emit(g, DC_OP_LOADLOCAL, acc);
        emit(g, DC_OP_CONST, add_const(g, dc_int(1)));
        emit(g, DC_OP_EQ, 0);
        break;
    default:
        emit(g, DC_OP_ACCDONE, acc);
        break;
    }
    patch(g, jinit);
}

/* ---- Constant folding. A subtree whose code reads nothing from outside (no variable, no
 * device column, no local of an enclosing comprehension) is evaluated once, here, and replaced
 * by one CONST of its value (an error value too: evaluation is deterministic). Folding is
 * bounded: segments up to FOLD_MAX_CODE words, FOLD_MAX_COST units and FOLD_MAX_MEM bytes;
 * anything larger stays code and is evaluated (and costed) at run time. */
#define FOLD_MAX_CODE 4096u
#define FOLD_MAX_COST 100000u
#define FOLD_MAX_MEM (16u << 20)
/* All folds of one compilation together: a value folded at every level of a nest (a map in a
 * map, 10,000 deep) is copied whole at each, quadratic in the nesting; past this, the rest stays
 * code. */
#define FOLD_MAX_TOTAL (64u << 20)

static bool segment_pure(const cg *g, uint32_t start, uint32_t locals0, uint32_t iters0)
{
    for (uint32_t pc = start; pc < g->ncode;) {
        uint32_t w = g->code[pc];
        dc_op op = DC_INSN_OP(w);
        const dc_opinfo *in = &dc_op_info[op];
        uint32_t a = DC_INSN_A(w);
        if (op == DC_OP_LOADVAR || dc_op_reads_device(op))
            return false;
        if (in->fmt == DC_FMT_S && a < locals0)
            return false;
        /* Host functions run when the program does, never while it is compiled. */
        if (op == DC_OP_CALL && (g->fns[a]->flags & DC_BF_HOST))
            return false;
        if (in->fmt == DC_FMT_IJ && a < iters0)
            return false;
        pc += dc_fmt_words(in->fmt);
    }
    return true;
}

static void maybe_fold(cg *g, uint32_t start, uint32_t locals0, uint32_t iters0)
{
    uint32_t n = g->ncode - start;
    if (g->oom || n == 0 || n > FOLD_MAX_CODE || g->folded_bytes > FOLD_MAX_TOTAL)
        return;
    if (n == 1 && DC_INSN_OP(g->code[start]) == DC_OP_CONST)
        return;
    if (n == 2 && DC_INSN_OP(g->code[start]) == DC_OP_CHARGE &&
        DC_INSN_OP(g->code[start + 1]) == DC_OP_CONST)
        return; /* already folded */
    if (!segment_pure(g, start, locals0, iters0))
        return;
    dc_program tmp;
    memset(&tmp, 0, sizeof tmp);
    dc_arena_reset(&g->scratch);
    uint32_t *code = dc_arena_alloc(&g->scratch, (n + 1) * sizeof *code);
    if (!code) {
        g->oom = true;
        return;
    }
    memcpy(code, g->code + start, n * sizeof *code);
    code[n] = DC_INSN(DC_OP_RETURN, 0);
    /* A pure segment uses only the locals and iterators it creates: numbered from 0 in the
     * copy, so that the VM state of the fold is as large as the segment needs, not as the
     * program so far (the range [1] of each of 10,000 nested maps is folded: sized by the
     * program, that was 10,000 allocations of up to a megabyte). */
    for (uint32_t pc = 0; pc < n; pc += dc_fmt_words(dc_op_info[DC_INSN_OP(code[pc])].fmt)) {
        dc_op op = DC_INSN_OP(code[pc]);
        uint32_t a = DC_INSN_A(code[pc]);
        if (dc_op_info[op].fmt == DC_FMT_S)
            code[pc] = DC_INSN(op, a - locals0);
        else if (dc_op_info[op].fmt == DC_FMT_IJ)
            code[pc] = DC_INSN(op, a - iters0);
    }
    tmp.code = code;
    tmp.ncode = n + 1;
    tmp.consts = g->consts;
    tmp.nconsts = g->nconsts;
    tmp.fns = g->fns;
    tmp.nfns = g->nfns;
    tmp.cols = g->cols;
    tmp.ncols = g->ncols;
    tmp.nlocals = g->nlocals - locals0;
    tmp.niters = g->niters - iters0;
    tmp.device_slot = UINT32_MAX;
    const char *why;
    dracel_status vst = dc_program_verify(&tmp, &g->scratch, &why);
    if (vst == DRACEL_ENOMEM)
        g->oom = true;
    if (vst != DRACEL_OK)
        return;
    dc_ectx c;
    dc_ectx_init(&c, g->a->alloc);
    c.cost_limit = FOLD_MAX_COST;
    c.mem_limit = FOLD_MAX_MEM;
    dc_val v = dc_vm_exec(&tmp, &c, NULL);
    dc_val copy;
    bool ok = !c.cost_exceeded && !c.oom;
    if (c.alloc_failed)
        g->oom = true; /* the allocator failed (not the fold's limits): ENOMEM, not unfolded code */
    size_t before = g->a->served;
    if (ok && !dc_val_copy(g->a, v, &copy, 0)) {
        ok = false;
        g->oom = true;
    }
    g->folded_bytes += g->a->served - before;
    uint64_t cost = c.cost;
    dc_ectx_free(&c);
    if (!ok)
        return;
    g->ncode = start;
    /* Charge at run time what the folded code would have cost, so that the run-time cost (and
     * the cost limit) is the same with and without folding. */
    if (cost)
        emit(g, DC_OP_CHARGE, (uint32_t)cost);
    emit(g, DC_OP_CONST, add_const(g, copy));
}

static void compile(cg *g, const dc_ast *e)
{
    if (g->oom || !e)
        return;
    uint32_t start = g->ncode, locals0 = g->nlocals, iters0 = g->niters;
    switch (e->kind) {
    case DC_AST_CONST: compile_const(g, e); break;
    case DC_AST_IDENT: compile_ident(g, e); break;
    case DC_AST_SELECT: compile_select(g, e); break;
    case DC_AST_CALL: compile_call(g, e); break;
    case DC_AST_LIST: compile_list(g, e); break;
    case DC_AST_MAP: compile_map(g, e); break;
    case DC_AST_STRUCT:
        dc_error(g->d, dc_span(e->pos, e->pos),
                 "message construction is not supported in device selectors (%s)", e->u.map.type);
        break;
    case DC_AST_COMPREHENSION: compile_comprehension(g, e); break;
    }
    if (!g->no_fold)
        maybe_fold(g, start, locals0, iters0);
}

/* The variables the code reads, with the names and types the environment declares them with
 * (dc_varref): LOADVAR slots, and `device` when a column or device field stands for it. */
static bool record_vars(cg *g, const dc_env *env)
{
    dc_program *p = g->p;
    bool *reads = dc_arena_zalloc(g->a, (env->nvars ? env->nvars : 1) * sizeof *reads);
    if (!reads)
        return false;
    uint32_t n = 0;
    for (uint32_t pc = 0; pc < p->ncode;) {
        dc_op op = DC_INSN_OP(p->code[pc]);
        uint32_t slot = UINT32_MAX;
        if (op == DC_OP_LOADVAR)
            slot = DC_INSN_A(p->code[pc]);
        else if (dc_op_reads_device(op))
            slot = p->device_slot;
        if (slot < env->nvars && !reads[slot]) {
            reads[slot] = true;
            n++;
        }
        pc += dc_fmt_words(dc_op_info[op].fmt);
    }
    p->varrefs = dc_arena_alloc(g->a, (n ? n : 1) * sizeof *p->varrefs);
    if (!p->varrefs)
        return false;
    p->nvarrefs = 0;
    for (uint32_t i = 0; i < env->nvars; i++) {
        if (!reads[i])
            continue;
        const dc_vardecl *v = &env->vars[i];
        dc_varref *r = &p->varrefs[p->nvarrefs++];
        r->slot = v->slot;
        r->name = dc_arena_strndup(g->a, v->name, strlen(v->name));
        r->type = dc_arena_strndup(g->a, v->type_text, strlen(v->type_text));
        if (!r->name || !r->type)
            return false;
    }
    return true;
}

void dc_program_free(dc_program *p)
{
    if (!p)
        return;
    dc_host_program_refs(p, false);
    dc_arena a = p->arena; /* the program lives in its own arena */
    dc_arena_free(&a);
}

dracel_status dc_compile(const dc_env *env, const dracel_alloc *alloc, dc_diags *d,
                         const dc_ast *e, dc_program **out)
{
    *out = NULL;
    dc_arena arena;
    dc_arena_init(&arena, alloc ? alloc : &dc_default_alloc);
    dc_program *p = dc_arena_zalloc(&arena, sizeof *p);
    if (!p) {
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    cg g;
    memset(&g, 0, sizeof g);
    g.env = env;
    g.d = d;
    g.p = p;
    g.a = &arena;
    dc_arena_init(&g.scratch, arena.alloc);
    size_t errors = d->errors;
    compile(&g, e);
    emit(&g, DC_OP_RETURN, 0);
    dc_arena_free(&g.scratch);
    if (g.oom) {
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    if (d->errors > errors) {
        dc_arena_free(&arena);
        return DRACEL_EINPUT;
    }
    p->code = g.code;
    p->ncode = g.ncode;
    p->consts = g.consts;
    p->nconsts = g.nconsts;
    p->fns = g.fns;
    p->nfns = g.nfns;
    p->cols = g.cols;
    p->ncols = g.ncols;
    p->nlocals = g.nlocals;
    p->niters = g.niters;
    p->nvars = env->nvars;
    p->result_must_be_bool = env->kind == DC_ENV_DRA;
    const dc_vardecl *dev = dc_env_var(env, "device");
    p->device_slot = dev ? dev->slot : UINT32_MAX;
    /* The program's own arena (p->arena is set last: p lives inside it). */
    const char *why;
    dracel_status vst = dc_program_verify(p, &arena, &why);
    if (vst == DRACEL_EINPUT)
        dc_error(d, dc_span(0, 0), "internal error: the compiled program is invalid: %s", why);
    if (vst != DRACEL_OK) {
        dc_arena_free(&arena);
        return vst;
    }
    if (!record_vars(&g, env)) {
        dc_arena_free(&arena);
        return DRACEL_ENOMEM;
    }
    dc_host_program_refs(p, true);
    p->arena = arena; /* p is inside the arena: copy the header last */
    *out = p;
    return DRACEL_OK;
}
