/*
 * api_eval.c: the public API of environments, programs and evaluation (include/dracel.h).
 * A dracel_env owns a dc_env (declarations) and the values bound to its variables; a
 * dracel_program owns a dc_program and the checked result type; a dracel_result owns the
 * evaluation context its value lives in. Each keeps its own copy of the allocator, so that a
 * program or a result may outlive what it was made from.
 *
 * Evaluating with another environment's values (or an activation's) is allowed when it declares
 * every variable the program reads in the same slot with the same name and type (dc_varref):
 * the program's code reads slots, so anything else would read the wrong variable.
 */
#include <stdio.h>
#include <string.h>

#include "apiint.h"
#include "check.h"
#include "compile.h"
#include "cost.h"
#include "jsonval.h"
#include "parse.h"

const dc_err dc_api_err_unbound = {"no such attribute(s): variable not bound", 0};

dracel_status dracel_env_new(const dracel_config *cfg, dracel_env_kind kind, dracel_env **out)
{
    if (!out || (kind != DRACEL_ENV_PLAIN && kind != DRACEL_ENV_DRA))
        return DRACEL_EINVAL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *a = dc_alloc_of(&c);
    dracel_env *e = dc_malloc(a, sizeof *e);
    if (!e)
        return DRACEL_ENOMEM;
    memset(e, 0, sizeof *e);
    e->cfg = c;
    e->alloc = *a;
    e->cfg.alloc = &e->alloc;
    e->env = dc_env_new(&e->alloc, kind == DRACEL_ENV_DRA ? DC_ENV_DRA : DC_ENV_PLAIN);
    if (!e->env) {
        dc_free(a, e, sizeof *e);
        return DRACEL_ENOMEM;
    }
    dc_ectx_init(&e->vals, &e->alloc);
    *out = e;
    return DRACEL_OK;
}

void dracel_env_free(dracel_env *e)
{
    if (!e)
        return;
    dracel_alloc a = e->alloc;
    dc_env_free(e->env);
    dc_free(&a, e->binds, e->nbinds * sizeof *e->binds);
    dc_ectx_free(&e->vals);
    dc_free(&a, e, sizeof *e);
}

/* Make room for the binding of every declared slot. */
static bool grow_binds(dracel_env *e)
{
    uint32_t n = e->env->nvars;
    if (n <= e->nbinds)
        return true;
    dc_val *b = dc_realloc(&e->alloc, e->binds, e->nbinds * sizeof *b, n * sizeof *b);
    if (!b)
        return false;
    for (uint32_t i = e->nbinds; i < n; i++)
        b[i] = dc_errval(&dc_api_err_unbound);
    e->binds = b;
    e->nbinds = n;
    return true;
}

static void set_err(char *err, size_t cap, const char *msg)
{
    if (err && cap) {
        strncpy(err, msg, cap - 1);
        err[cap - 1] = '\0';
    }
}

dracel_status dracel_env_bind_json(dracel_env *e, const char *name, const char *json, size_t len,
                                   char *err, size_t errcap)
{
    if (!e || !name || !json)
        return DRACEL_EINVAL;
    char buf[512];
    dc_val v;
    dracel_status st = dc_json_typed(&e->vals, json, len, &v, buf, sizeof buf);
    if (st != DRACEL_OK) {
        set_err(err, errcap, buf);
        return st;
    }
    bool valid = (name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z') ||
                  (name[0] >= 'A' && name[0] <= 'Z'));
    for (const char *c = name; *c && valid; c++)
        valid = *c == '_' || *c == '.' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                (*c >= '0' && *c <= '9');
    if (!valid) {
        set_err(err, errcap, "a variable name is an identifier, or identifiers joined by '.'");
        return DRACEL_EINPUT;
    }
    const dc_vardecl *old = dc_env_var(e->env, name);
    uint32_t slot = old ? old->slot : DC_ENV_NOSLOT;
    if (old && !dc_val_has_type(v, old->type)) {
        /* Programs compiled since the declaration were checked against its type. */
        char msg[256];
        snprintf(msg, sizeof msg, "variable %s is declared with type %s: the value has another type",
                 name, old->type_text);
        set_err(err, errcap, msg);
        return DRACEL_EINPUT;
    }
    if (!old) {
        const dc_type *t = dc_val_static_type(&e->vals.arena, v);
        if (!t || (slot = dc_env_add_var(e->env, name, t)) == DC_ENV_NOSLOT)
            return DRACEL_ENOMEM; /* the name is valid and new: only memory can fail */
    }
    if (!grow_binds(e))
        return DRACEL_ENOMEM;
    e->binds[slot] = v;
    return DRACEL_OK;
}

dracel_status dracel_env_device_json(dracel_env *e, const char *json, size_t len, char *err,
                                     size_t errcap)
{
    if (!e || !json)
        return DRACEL_EINVAL;
    const dc_vardecl *dev = dc_env_var(e->env, "device");
    if (!dev) {
        set_err(err, errcap, "this environment has no device variable (not DRA)");
        return DRACEL_EINVAL;
    }
    char buf[512];
    dc_val v;
    dracel_status st = dc_json_device(&e->vals, json, len, &v, buf, sizeof buf);
    if (st != DRACEL_OK) {
        set_err(err, errcap, buf);
        return st;
    }
    if (!grow_binds(e))
        return DRACEL_ENOMEM;
    e->binds[dev->slot] = v;
    return DRACEL_OK;
}

dracel_status dracel_compile(const dracel_env *e, const char *src, size_t len, unsigned flags,
                             dracel_program **out, dracel_diags **out_diags)
{
    if (!e || !out || !out_diags || (!src && len))
        return DRACEL_EINVAL;
    *out = NULL;
    *out_diags = NULL;
    const dracel_alloc *a = &e->alloc;
    dc_diags *d = dc_diags_new(a, e->cfg.max_errors);
    if (!d)
        return DRACEL_ENOMEM;
    d->max_bytes = e->cfg.max_diag_bytes;
    dc_arena arena;
    dc_arena_init(&arena, a);
    dc_ast *ast = NULL;
    dracel_program *p = NULL;
    const char *type = "dyn";
    dc_cost_est est = {0, 0};
    dracel_status st = dc_parse(&e->cfg, &arena, d, src ? src : "", len, &ast);
    if (st == DRACEL_OK && !(flags & DRACEL_COMPILE_NO_CHECK)) {
        dc_checked info = {.any_result = (flags & DRACEL_COMPILE_ANY_RESULT) != 0};
        const dc_type *t = dc_check_ex(e->env, &arena, d, ast, &info);
        if (!t || d->errors)
            st = d->oom ? DRACEL_ENOMEM : dc_diags_status(d);
        else if (!(type = dc_type_str(&arena, t)))
            st = DRACEL_ENOMEM; /* never "dyn" for want of memory */
        if (st == DRACEL_OK && (flags & DRACEL_COMPILE_ESTIMATE_COST))
            st = dc_cost_estimate_ex(e->env, ast, &info, NULL, &est); /* never "unbounded" */
        if (st == DRACEL_OK && (flags & DRACEL_COMPILE_ESTIMATE_COST)) {
            uint64_t limit = e->cfg.cost_limit;
            if (e->env->kind == DC_ENV_DRA && limit && est.max > limit) {
                if (est.max == UINT64_MAX)
                    dc_limit_error(d, dc_span(0, 0), "estimated cost exceeds the limit of %llu: the "
                             "cost is unbounded (too complex, as Kubernetes' API validation rejects it)",
                             (unsigned long long)limit);
                else
                    dc_limit_error(d, dc_span(0, 0), "estimated cost %llu exceeds the limit of %llu "
                             "(too complex, as Kubernetes' API validation rejects it)",
                             (unsigned long long)est.max, (unsigned long long)limit);
                st = DRACEL_ELIMIT;
            }
        }
    }
    if (st == DRACEL_OK) {
        /* The program's allocator is its own copy (it may outlive the environment). */
        p = dc_malloc(a, sizeof *p);
        if (!p)
            st = DRACEL_ENOMEM;
    }
    if (st == DRACEL_OK) {
        memset(p, 0, sizeof *p);
        p->cfg = e->cfg;
        p->alloc = e->alloc;
        p->cfg.alloc = &p->alloc;
        st = dc_compile(e->env, &p->alloc, d, ast, &p->prog);
        if (st != DRACEL_OK) {
            dc_free(a, p, sizeof *p);
            p = NULL;
        }
    }
    if (st == DRACEL_OK) {
        dc_program *prog = p->prog;
        if (flags & DRACEL_COMPILE_ANY_RESULT)
            prog->result_must_be_bool = false;
        if (flags & DRACEL_COMPILE_NO_CHECK)
            for (uint32_t i = 0; i < prog->nvarrefs; i++)
                prog->varrefs[i].type = NULL; /* nothing assumed a type */
        strncpy(p->type, type ? type : "dyn", sizeof p->type - 1);
        p->cost_min = est.min;
        p->cost_max = est.max;
    }
    dc_arena_free(&arena);
    if (d->oom && st != DRACEL_ENOMEM) {
        /* a diagnostic was lost: the answer would be incomplete */
        if (p)
            dracel_program_free(p);
        p = NULL;
        st = DRACEL_ENOMEM;
    }
    if (st == DRACEL_ENOMEM) {
        dracel_diags_free(d);
        return st;
    }
    dc_diags_sort(d);
    *out_diags = d;
    *out = p;
    return st;
}

void dracel_program_cost(const dracel_program *p, uint64_t *min, uint64_t *max)
{
    if (min)
        *min = p ? p->cost_min : 0;
    if (max)
        *max = p ? p->cost_max : 0;
}

const char *dracel_program_type(const dracel_program *p)
{
    return p ? p->type : NULL;
}

char *dracel_program_disasm(const dracel_program *p)
{
    if (!p)
        return NULL;
    dc_buf b;
    dc_buf_init(&b, dc_alloc_of(&p->cfg));
    dc_program_disasm(p->prog, &b);
    dc_buf_puts(&b, "");
    return dc_buf_take(&b);
}

void dracel_program_free(dracel_program *p)
{
    if (!p)
        return;
    dracel_alloc a = p->alloc;
    dc_program_free(p->prog);
    dc_free(&a, p, sizeof *p);
}

dracel_status dracel_result_new(const dracel_config *cfg, dracel_result **out)
{
    if (!out)
        return DRACEL_EINVAL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *a = dc_alloc_of(&c);
    dracel_result *r = dc_malloc(a, sizeof *r);
    if (!r)
        return DRACEL_ENOMEM;
    memset(r, 0, sizeof *r);
    r->cfg = c;
    r->alloc = *a;
    r->cfg.alloc = &r->alloc;
    dc_ectx_init(&r->ectx, &r->alloc);
    r->value = dc_null();
    *out = r;
    return DRACEL_OK;
}

dracel_status dc_api_check_vars(const dc_program *p, const dc_env *env)
{
    /* Slots the program does not read may be anything (dc_api_run pads missing ones). */
    for (uint32_t i = 0; i < p->nvarrefs; i++) {
        const dc_varref *r = &p->varrefs[i];
        if (r->slot >= env->nvars)
            return DRACEL_EINVAL;
        const dc_vardecl *v = &env->vars[r->slot];
        if (strcmp(v->name, r->name) != 0 || (r->type && strcmp(v->type_text, r->type) != 0))
            return DRACEL_EINVAL;
    }
    return DRACEL_OK;
}

dracel_status dc_api_run(const dracel_program *p, const dc_val *vals, uint32_t nvals,
                         dracel_result *r)
{
    r->ectx.cost_limit = p->cfg.cost_limit;
    r->ectx.mem_limit = p->cfg.eval_memory_limit;
    uint32_t n = p->prog->nvars;
    if (nvals >= n) {
        r->value = dc_vm_exec(p->prog, &r->ectx, vals);
    } else {
        /* Some declared variables were never bound: they read as errors. */
        dc_val *v = dc_malloc(&r->alloc, n * sizeof *v);
        if (!v)
            return DRACEL_ENOMEM;
        for (uint32_t i = 0; i < n; i++)
            v[i] = i < nvals ? vals[i] : dc_errval(&dc_api_err_unbound);
        r->value = dc_vm_exec(p->prog, &r->ectx, v);
        dc_free(&r->alloc, v, n * sizeof *v);
    }
    /* The allocator failing is the caller's ENOMEM, never a CEL "out of memory" value (which
     * only the configured eval_memory_limit gives: an evaluation error, as configured). */
    if (r->ectx.alloc_failed) {
        r->value = dc_null();
        return DRACEL_ENOMEM;
    }
    return DRACEL_OK;
}

dracel_status dracel_eval_into(const dracel_program *p, const dracel_env *e, dracel_result *r)
{
    if (!p || !e || !r)
        return DRACEL_EINVAL;
    DC_TRY(dc_api_check_vars(p->prog, e->env));
    return dc_api_run(p, e->binds, e->nbinds, r);
}

dracel_status dracel_eval(const dracel_program *p, const dracel_env *e, dracel_result **out)
{
    if (!p || !e || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_result *r;
    DC_TRY(dracel_result_new(&p->cfg, &r));
    dracel_status st = dracel_eval_into(p, e, r);
    if (st != DRACEL_OK) {
        dracel_result_free(r);
        return st;
    }
    *out = r;
    return DRACEL_OK;
}

const char *dracel_result_error(const dracel_result *r)
{
    return r && r->value.k == DC_K_ERROR ? r->value.u.e->msg : NULL;
}

int dracel_result_bool(const dracel_result *r)
{
    return r && r->value.k == DC_K_BOOL ? r->value.u.b : -1;
}

dracel_status dracel_result_int(const dracel_result *r, int64_t *out)
{
    if (!r || !out || r->value.k != DC_K_INT)
        return DRACEL_EINVAL;
    *out = r->value.u.i;
    return DRACEL_OK;
}

dracel_status dracel_result_uint(const dracel_result *r, uint64_t *out)
{
    if (!r || !out || r->value.k != DC_K_UINT)
        return DRACEL_EINVAL;
    *out = r->value.u.u;
    return DRACEL_OK;
}

dracel_status dracel_result_double(const dracel_result *r, double *out)
{
    if (!r || !out || r->value.k != DC_K_DOUBLE)
        return DRACEL_EINVAL;
    *out = r->value.u.d;
    return DRACEL_OK;
}

dracel_status dracel_result_string(const dracel_result *r, const char **data, size_t *len)
{
    if (!r || !data || !len || r->value.k != DC_K_STRING)
        return DRACEL_EINVAL;
    *data = r->value.u.s->data;
    *len = r->value.u.s->len;
    return DRACEL_OK;
}

dracel_status dracel_result_bytes(const dracel_result *r, const void **data, size_t *len)
{
    if (!r || !data || !len || r->value.k != DC_K_BYTES)
        return DRACEL_EINVAL;
    *data = r->value.u.s->data;
    *len = r->value.u.s->len;
    return DRACEL_OK;
}

static char *render(const dracel_result *r, void (*fn)(dc_buf *, dc_val))
{
    if (!r)
        return NULL;
    dc_buf b;
    dc_buf_init(&b, dc_alloc_of(&r->cfg));
    fn(&b, r->value);
    dc_buf_puts(&b, "");
    return dc_buf_take(&b);
}

char *dracel_result_json(const dracel_result *r)
{
    return render(r, dc_val_json);
}

char *dracel_result_text(const dracel_result *r)
{
    return render(r, dc_val_text);
}

uint64_t dracel_result_cost(const dracel_result *r)
{
    return r ? r->ectx.cost : 0;
}

void dracel_result_free(dracel_result *r)
{
    if (!r)
        return;
    dracel_alloc a = r->alloc;
    dc_ectx_free(&r->ectx);
    dc_free(&a, r, sizeof *r);
}

const dc_program *dc_api_program(const dracel_program *p)
{
    return p ? p->prog : NULL;
}

const dracel_config *dc_api_program_cfg(const dracel_program *p)
{
    return &p->cfg;
}

dracel_status dc_api_env_vars(const dracel_env *e, const dc_program *p, const dc_val **vars,
                              dc_val **tmp)
{
    *tmp = NULL;
    DC_TRY(dc_api_check_vars(p, e->env));
    uint32_t n = p->nvars;
    static const dc_val none[1] = {{DC_K_NULL, {0}}};
    if (e->nbinds >= n) {
        *vars = e->nbinds ? e->binds : none;
        return DRACEL_OK;
    }
    dc_val *v = dc_malloc(&e->alloc, n * sizeof *v);
    if (!v)
        return DRACEL_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        v[i] = i < e->nbinds ? e->binds[i] : dc_errval(&dc_api_err_unbound);
    *vars = v;
    *tmp = v;
    return DRACEL_OK;
}

void dc_api_env_vars_done(const dracel_env *e, uint32_t n, dc_val *tmp)
{
    dc_free(&e->alloc, tmp, n * sizeof *tmp);
}
