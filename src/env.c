/*
 * env.c: compilation environments: creation (standard and extension libraries, and for the DRA
 * kind the `device` variable), variable and overload declarations, lookups.
 *
 * Invariants: everything an environment points to (names, types, overload arrays) lives in its
 * own arena, except the two growable arrays `vars` and `funs`, which are reallocated with the
 * environment's allocator and released by dc_env_free. Variable slots are dense and given in
 * declaration order; the DRA kind declares `device` first, so it is slot 0. An environment is
 * not modified once compilations use it (it may then be shared between threads). Host
 * overloads are counted records (vm/host.h): the environment holds one reference to each it
 * declares, released by dc_env_free or when an overload is declared again.
 *
 * Change with: src/env.h, src/decls.c (the library table), src/check.c, src/compile.c,
 * vm/host.h.
 */
#include "env.h"

#include <stdio.h>
#include <string.h>

#include "host.h"

const dc_vardecl *dc_env_var(const dc_env *env, const char *name)
{
    if (!env || !name)
        return NULL;
    for (uint32_t i = 0; i < env->nvars; i++)
        if (strcmp(env->vars[i].name, name) == 0)
            return &env->vars[i];
    return NULL;
}

const dc_fundecl *dc_env_fun(const dc_env *env, const char *name)
{
    if (!env || !name)
        return NULL;
    for (uint32_t i = 0; i < env->nfuns; i++)
        if (strcmp(env->funs[i].name, name) == 0)
            return &env->funs[i];
    return NULL;
}

dc_env *dc_env_new(const dracel_alloc *a, dc_env_kind kind)
{
    if (!a)
        a = &dc_default_alloc;
    dc_env *env = dc_malloc(a, sizeof *env);
    if (!env)
        return NULL;
    memset(env, 0, sizeof *env);
    dc_arena_init(&env->arena, a);
    env->kind = kind;
    if (kind == DC_ENV_DRA && dc_env_add_var(env, "device", &dc_ty_device) != 0) {
        dc_env_free(env);
        return NULL;
    }
    if (dc_decls_install(env) != DRACEL_OK) {
        dc_env_free(env);
        return NULL;
    }
    return env;
}

void dc_env_free(dc_env *env)
{
    if (!env)
        return;
    const dracel_alloc *a = env->arena.alloc;
    for (uint32_t f = 0; f < env->nfuns; f++)
        for (uint32_t i = 0; i < env->funs[f].n; i++)
            dc_host_unref(env->funs[f].overloads[i].host);
    dc_free(a, env->vars, env->capvars * sizeof *env->vars);
    dc_free(a, env->funs, env->capfuns * sizeof *env->funs);
    dc_arena_free(&env->arena);
    dc_free(a, env, sizeof *env);
}

/* A declared name: identifier segments separated by single dots. */
static bool valid_name(const char *s)
{
    bool seg_start = true;
    if (!*s)
        return false;
    for (; *s; s++) {
        char c = *s;
        if (c == '.') {
            if (seg_start)
                return false;
            seg_start = true;
            continue;
        }
        bool alpha = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool digit = c >= '0' && c <= '9';
        if (!alpha && !(digit && !seg_start))
            return false;
        seg_start = false;
    }
    return !seg_start;
}

/* A variable's type is concrete: no type parameter, no error type. */
static bool concrete(const dc_type *t)
{
    if (!t)
        return true;
    if (t->kind == DC_TY_PARAM || t->kind == DC_TY_ERROR)
        return false;
    return concrete(t->a) && concrete(t->b);
}

uint32_t dc_env_add_var(dc_env *env, const char *name, const dc_type *type)
{
    if (!env || !name || !type || !valid_name(name) || !concrete(type) || dc_env_var(env, name) ||
        env->nvars == DC_ENV_NOSLOT - 1)
        return DC_ENV_NOSLOT;
    if (env->nvars == env->capvars) {
        uint32_t cap = env->capvars ? env->capvars * 2 : 8;
        dc_vardecl *v = dc_realloc(env->arena.alloc, env->vars, env->capvars * sizeof *v,
                                   cap * sizeof *v);
        if (!v)
            return DC_ENV_NOSLOT;
        env->vars = v;
        env->capvars = cap;
    }
    const char *n = dc_arena_strndup(&env->arena, name, strlen(name));
    const dc_type *t = dc_type_clone(&env->arena, type);
    const char *tt = t ? dc_type_str(&env->arena, t) : NULL;
    if (!n || !t || !tt)
        return DC_ENV_NOSLOT;
    dc_vardecl *v = &env->vars[env->nvars];
    v->name = n;
    v->type = t;
    v->type_text = tt;
    v->slot = env->nvars++;
    return v->slot;
}

static dc_fundecl *fun_get(dc_env *env, const char *name)
{
    for (uint32_t i = 0; i < env->nfuns; i++)
        if (strcmp(env->funs[i].name, name) == 0)
            return &env->funs[i];
    if (env->nfuns == env->capfuns) {
        uint32_t cap = env->capfuns ? env->capfuns * 2 : 64;
        dc_fundecl *f = dc_realloc(env->arena.alloc, env->funs, env->capfuns * sizeof *f,
                                   cap * sizeof *f);
        if (!f)
            return NULL;
        env->funs = f;
        env->capfuns = cap;
    }
    const char *n = dc_arena_strndup(&env->arena, name, strlen(name));
    if (!n)
        return NULL;
    dc_fundecl *f = &env->funs[env->nfuns++];
    f->name = n;
    f->overloads = NULL;
    f->n = 0;
    return f;
}

/* Split the comma-separated type texts of @p text at top-level commas and parse each. */
static int parse_param_list(dc_arena *a, const char *text, const dc_type **out, int max)
{
    int n = 0;
    const char *p = text;
    while (*p == ' ')
        p++;
    if (!*p)
        return 0;
    for (;;) {
        const char *start = p;
        int depth = 0;
        while (*p && !(*p == ',' && depth == 0)) {
            if (*p == '(')
                depth++;
            else if (*p == ')')
                depth--;
            p++;
        }
        if (n == max)
            return -1;
        char *one = dc_arena_strndup(a, start, (size_t)(p - start));
        if (!one)
            return -2;
        out[n] = dc_type_parse(a, one);
        if (!out[n])
            return -1;
        n++;
        if (!*p)
            return n;
        p++;
    }
}

#define MAX_PARAMS 8

static dracel_status add_overload(dc_env *env, dc_fundecl *f, const char *id, bool member,
                                  const dc_type *const *pt, uint32_t np, const dc_type *rt,
                                  const dc_host *host);

dracel_status dc_env_add_overload(dc_env *env, const char *fn, const char *id, bool member,
                                  const char *params, const char *result)
{
    if (!env || !fn || !*fn || !id || !params || !result)
        return DRACEL_EINVAL;
    const dc_type *pt[MAX_PARAMS];
    int np = parse_param_list(&env->arena, params, pt, MAX_PARAMS);
    if (np == -2)
        return DRACEL_ENOMEM;
    if (np < 0 || (member && np == 0))
        return DRACEL_EINVAL;
    const dc_type *rt = dc_type_parse(&env->arena, result);
    if (!rt)
        return DRACEL_EINVAL;
    dc_fundecl *f = fun_get(env, fn);
    if (!f)
        return DRACEL_ENOMEM;
    for (uint32_t i = 0; i < f->n; i++)
        if (strcmp(f->overloads[i].id, id) == 0)
            return DRACEL_EINVAL;
    return add_overload(env, f, id, member, pt, (uint32_t)np, rt, NULL);
}

/* Append an overload to f; its types already live in the environment's arena. */
static dracel_status add_overload(dc_env *env, dc_fundecl *f, const char *id, bool member,
                                  const dc_type *const *pt, uint32_t np, const dc_type *rt,
                                  const dc_host *host)
{
    /* The array's capacity is implied: 4, then the next power of two. */
    if (f->n == 0 || (f->n >= 4 && (f->n & (f->n - 1)) == 0)) {
        uint32_t cap = f->n ? f->n * 2 : 4;
        dc_overload *o = dc_arena_alloc(&env->arena, cap * sizeof *o);
        if (!o)
            return DRACEL_ENOMEM;
        if (f->n)
            memcpy(o, f->overloads, f->n * sizeof *o);
        f->overloads = o;
    }
    const dc_type **pv = NULL;
    if (np) {
        pv = dc_arena_alloc(&env->arena, (size_t)np * sizeof *pv);
        if (!pv)
            return DRACEL_ENOMEM;
        memcpy(pv, pt, (size_t)np * sizeof *pv);
    }
    const char *idc = dc_arena_strndup(&env->arena, id, strlen(id));
    if (!idc)
        return DRACEL_ENOMEM;
    dc_overload *o = &f->overloads[f->n++];
    o->id = idc;
    o->result = rt;
    o->params = pv;
    o->nparams = np;
    o->member = member;
    o->host = host;
    dc_host_ref(host);
    return DRACEL_OK;
}

/* The checker's type of a host kind. */
static const dc_type *host_type(uint8_t k)
{
    switch (k) {
    case DC_K_BOOL: return &dc_ty_bool;
    case DC_K_INT: return &dc_ty_int;
    case DC_K_UINT: return &dc_ty_uint;
    case DC_K_DOUBLE: return &dc_ty_double;
    case DC_K_STRING: return &dc_ty_string;
    default: return &dc_ty_bytes;
    }
}

/* cel-go's SignatureOverlaps for a declared overload and a host signature: the same style and
 * arity, and each parameter assignable one way or the other (dyn and type parameters take any
 * type; host parameters are primitive). */
static bool overlaps(const dc_overload *o, const dc_hostsig *s)
{
    if (o->member != s->member || o->nparams != s->nparams)
        return false;
    for (uint32_t i = 0; i < s->nparams; i++) {
        dc_tykind k = o->params[i]->kind;
        if (k != DC_TY_DYN && k != DC_TY_PARAM && k != host_type(s->params[i])->kind)
            return false;
    }
    return true;
}

static bool same_signature(const dc_overload *o, const dc_hostsig *s)
{
    if (!o->host)
        return false;
    const dc_hostsig *t = dc_host_sig(o->host);
    return t->member == s->member && t->nparams == s->nparams && t->result == s->result &&
           memcmp(t->params, s->params, s->nparams) == 0;
}

dracel_status dc_env_add_host(dc_env *env, const dc_host *h, char *err, size_t errcap)
{
    const dc_hostsig *s = dc_host_sig(h);
    char scratch[1];
    if (!err || !errcap) {
        err = scratch;
        errcap = sizeof scratch;
    }
    if (!valid_name(s->name) || (s->member && strchr(s->name, '.'))) {
        snprintf(err, errcap, "function name '%s' is not %s", s->name,
                 s->member ? "an identifier (a member function's name has no dots)"
                           : "an identifier or identifiers joined by '.'");
        return DRACEL_EINVAL;
    }
    dc_fundecl *f = NULL;
    for (uint32_t i = 0; i < env->nfuns && !f; i++)
        if (strcmp(env->funs[i].name, s->name) == 0)
            f = &env->funs[i];
    for (uint32_t i = 0; f && i < f->n; i++) {
        dc_overload *o = &f->overloads[i];
        if (strcmp(o->id, s->id) != 0) {
            if (overlaps(o, s)) {
                snprintf(err, errcap, "overload signature collision in function %s: %s collides with %s",
                         f->name, o->id, s->id);
                return DRACEL_EINVAL;
            }
            continue;
        }
        if (!o->host) {
            snprintf(err, errcap, "overload %s of function %s belongs to the library: a host function cannot redefine it",
                     o->id, f->name);
            return DRACEL_EINVAL;
        }
        if (!same_signature(o, s)) {
            snprintf(err, errcap, "overload redefinition in function. %s: %s has multiple definitions",
                     f->name, o->id);
            return DRACEL_EINVAL;
        }
        /* The same signature again: the new record replaces the old (cel-go replaces the
         * binding). Programs compiled before keep theirs. */
        dc_host_ref(h);
        dc_host_unref(o->host);
        o->host = h;
        return DRACEL_OK;
    }
    const dc_type *pt[DC_HOST_MAX_PARAMS];
    for (uint32_t i = 0; i < s->nparams; i++)
        pt[i] = host_type(s->params[i]);
    if (!f && !(f = fun_get(env, s->name))) {
        snprintf(err, errcap, "out of memory");
        return DRACEL_ENOMEM;
    }
    dracel_status st = add_overload(env, f, s->id, s->member, pt, s->nparams, host_type(s->result), h);
    if (st != DRACEL_OK)
        snprintf(err, errcap, "out of memory");
    return st;
}
