/*
 * api_activation.c: activations (include/dracel.h, "Activations"): the values of one
 * evaluation, set by name against an environment's declarations and read by programs through
 * the same slots the environment's own bindings use.
 *
 * Invariants: vals[] is contiguous by slot (the VMs read it as the activation); a slot's value
 * lives in one of its two arenas, and a new value is built in the other, which becomes current
 * only when the value is complete, so a failed set leaves the old value, and setting a variable
 * again and again reuses the same memory. Values are always the activation's own (copied in):
 * nothing a caller passes needs to outlive the call. JSON and table rows are read in a scratch
 * context first, then copied.
 *
 * Change with: include/dracel.h, src/api_eval.c (dc_api_run, dc_api_check_vars),
 * src/json_val.c (typed JSON, devices), vm/table.c (dc_table_device).
 */
#include <stdio.h>
#include <string.h>

#include "apiint.h"
#include "jsonval.h"

typedef struct aslot {
    dc_arena mem[2];
    uint8_t cur;
} aslot;

struct dracel_activation {
    dracel_alloc alloc;        /* a copy of the environment's */
    const dracel_env *env;
    dc_val *vals;              /* by slot; unset slots hold the unbound error */
    aslot *slots;
    uint32_t n;                /* slots in use (the environment's variables when last seen) */
    uint32_t capvals, capslots;
    dc_ectx scratch;           /* where JSON and table rows are read before they are copied */
};

/* Room for every variable the environment declares now (it may have declared more since). */
static bool grow(dracel_activation *act)
{
    uint32_t n = act->env->env->nvars;
    if (n <= act->n)
        return true;
    if (act->capvals < n) {
        dc_val *v = dc_realloc(&act->alloc, act->vals, act->capvals * sizeof *v, n * sizeof *v);
        if (!v)
            return false;
        act->vals = v;
        act->capvals = n;
    }
    if (act->capslots < n) {
        aslot *s = dc_realloc(&act->alloc, act->slots, act->capslots * sizeof *s, n * sizeof *s);
        if (!s)
            return false;
        act->slots = s;
        act->capslots = n;
    }
    aslot *s = act->slots;
    for (uint32_t i = act->n; i < n; i++) {
        act->vals[i] = dc_errval(&dc_api_err_unbound);
        dc_arena_init(&s[i].mem[0], &act->alloc);
        dc_arena_init(&s[i].mem[1], &act->alloc);
        s[i].cur = 0;
    }
    act->n = n;
    return true;
}

dracel_status dracel_activation_new(const dracel_env *env, dracel_activation **out)
{
    if (!env || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_activation *act = dc_malloc(&env->alloc, sizeof *act);
    if (!act)
        return DRACEL_ENOMEM;
    memset(act, 0, sizeof *act);
    act->alloc = env->alloc;
    act->env = env;
    dc_ectx_init(&act->scratch, &act->alloc);
    if (!grow(act)) {
        dracel_activation_free(act);
        return DRACEL_ENOMEM;
    }
    *out = act;
    return DRACEL_OK;
}

void dracel_activation_free(dracel_activation *act)
{
    if (!act)
        return;
    dracel_alloc a = act->alloc;
    for (uint32_t i = 0; i < act->n; i++) {
        dc_arena_free(&act->slots[i].mem[0]);
        dc_arena_free(&act->slots[i].mem[1]);
    }
    dc_free(&a, act->vals, act->capvals * sizeof *act->vals);
    dc_free(&a, act->slots, act->capslots * sizeof *act->slots);
    dc_ectx_free(&act->scratch);
    dc_free(&a, act, sizeof *act);
}

/* The slot of a declared variable, or NULL (not declared, or no memory for it). */
static const dc_vardecl *lookup(dracel_activation *act, const char *name, dracel_status *st)
{
    *st = DRACEL_EINVAL;
    const dc_vardecl *v = act && name ? dc_env_var(act->env->env, name) : NULL;
    if (v && !grow(act)) {
        *st = DRACEL_ENOMEM;
        return NULL;
    }
    return v;
}

/* The arena a new value of @p slot is built in (emptied). */
static dc_arena *spare(dracel_activation *act, uint32_t slot)
{
    aslot *s = &act->slots[slot];
    dc_arena *a = &s->mem[s->cur ^ 1];
    dc_arena_reset(a);
    return a;
}

/* Make the value built in the spare arena current. */
static void commit(dracel_activation *act, uint32_t slot, dc_val v)
{
    act->slots[slot].cur ^= 1;
    act->vals[slot] = v;
}

/* Copy @p v (in scratch or the caller's memory) into the slot. */
static dracel_status put_copy(dracel_activation *act, uint32_t slot, dc_val v)
{
    dc_val out;
    if (!dc_val_copy(spare(act, slot), v, &out, 0))
        return DRACEL_ENOMEM;
    commit(act, slot, out);
    return DRACEL_OK;
}

/* A scalar (no memory): checked against the declaration. */
static dracel_status put_scalar(dracel_activation *act, const char *name, dc_val v)
{
    dracel_status st;
    const dc_vardecl *d = lookup(act, name, &st);
    if (!d)
        return st;
    if (!dc_val_has_type(v, d->type))
        return DRACEL_EINVAL;
    act->vals[d->slot] = v;
    return DRACEL_OK;
}

dracel_status dracel_activation_set_int(dracel_activation *act, const char *name, int64_t v)
{
    return put_scalar(act, name, dc_int(v));
}

dracel_status dracel_activation_set_uint(dracel_activation *act, const char *name, uint64_t v)
{
    return put_scalar(act, name, dc_uint(v));
}

dracel_status dracel_activation_set_double(dracel_activation *act, const char *name, double v)
{
    return put_scalar(act, name, dc_double(v));
}

dracel_status dracel_activation_set_bool(dracel_activation *act, const char *name, bool v)
{
    return put_scalar(act, name, dc_bool(v));
}

static dracel_status put_str(dracel_activation *act, const char *name, dc_kind k, const void *p,
                             size_t len)
{
    dracel_status st;
    const dc_vardecl *d = lookup(act, name, &st);
    if (!d)
        return st;
    if ((!p && len) || len > UINT32_MAX - 1)
        return DRACEL_EINVAL;
    dc_val probe = k == DC_K_STRING ? dc_strval(NULL) : dc_bytesval(NULL);
    if (!dc_val_has_type(probe, d->type))
        return DRACEL_EINVAL;
    if (k == DC_K_STRING) {
        /* CEL strings are UTF-8; U+0000 is allowed. */
        const unsigned char *u = p;
        for (size_t i = dc_utf8_check(u, len); i < len; i += dc_utf8_check(u + i, len - i))
            if (u[i++] != 0)
                return DRACEL_EINVAL;
    }
    dc_str *s = dc_arena_alloc(spare(act, d->slot), sizeof *s + len + 1);
    if (!s)
        return DRACEL_ENOMEM;
    s->len = (uint32_t)len;
    if (len)
        memcpy(s->data, p, len);
    s->data[len] = '\0';
    commit(act, d->slot, k == DC_K_STRING ? dc_strval(s) : dc_bytesval(s));
    return DRACEL_OK;
}

dracel_status dracel_activation_set_string(dracel_activation *act, const char *name,
                                           const char *s, size_t len)
{
    return put_str(act, name, DC_K_STRING, s, len);
}

dracel_status dracel_activation_set_bytes(dracel_activation *act, const char *name,
                                          const void *b, size_t len)
{
    return put_str(act, name, DC_K_BYTES, b, len);
}

static void set_err(char *err, size_t cap, const char *msg)
{
    if (err && cap)
        snprintf(err, cap, "%s", msg);
}

/* The scratch context, emptied for one read. */
static dc_ectx *scratch(dracel_activation *act)
{
    dc_ectx *c = &act->scratch;
    dc_arena_reset(&c->arena);
    c->mem_base = c->arena.served;
    c->oom = c->limit_hit = c->alloc_failed = false;
    return c;
}

dracel_status dracel_activation_bind_json(dracel_activation *act, const char *name,
                                          const char *json, size_t len, char *err, size_t errcap)
{
    dracel_status st;
    const dc_vardecl *d = json ? lookup(act, name, &st) : NULL;
    if (!d) {
        set_err(err, errcap, json && st == DRACEL_EINVAL ? "no such variable" : "bad argument");
        return json ? st : DRACEL_EINVAL;
    }
    char buf[512];
    dc_val v;
    dc_ectx *c = scratch(act);
    dracel_status jst = dc_json_typed(c, json, len, &v, buf, sizeof buf);
    if (jst != DRACEL_OK) {
        set_err(err, errcap, buf);
        return jst;
    }
    if (!dc_val_has_type(v, d->type)) {
        char msg[256];
        snprintf(msg, sizeof msg, "variable %s is declared with type %s: the value has another type",
                 d->name, d->type_text);
        set_err(err, errcap, msg);
        return DRACEL_EINPUT;
    }
    return put_copy(act, d->slot, v);
}

/* The `device` variable of a DRA environment, or NULL. */
static const dc_vardecl *device_var(dracel_activation *act, dracel_status *st)
{
    const dc_vardecl *d = lookup(act, "device", st);
    if (d && d->type->kind != DC_TY_DEVICE) {
        *st = DRACEL_EINVAL;
        return NULL;
    }
    return d;
}

dracel_status dracel_activation_device_json(dracel_activation *act, const char *json, size_t len,
                                            char *err, size_t errcap)
{
    dracel_status st;
    const dc_vardecl *d = json ? device_var(act, &st) : NULL;
    if (!d) {
        set_err(err, errcap, "this environment has no device variable (not DRA)");
        return json ? st : DRACEL_EINVAL;
    }
    char buf[512];
    dc_val v;
    dc_ectx *c = scratch(act);
    dracel_status jst = dc_json_device(c, json, len, &v, buf, sizeof buf);
    if (jst != DRACEL_OK) {
        set_err(err, errcap, buf);
        return jst;
    }
    return put_copy(act, d->slot, v);
}

dracel_status dracel_activation_set_device_row(dracel_activation *act, const dracel_table *t,
                                               uint32_t row)
{
    dracel_status st;
    const dc_vardecl *d = device_var(act, &st);
    if (!d)
        return st;
    const dc_table *tab = dc_api_table(t);
    if (!tab || row >= tab->live_rows)
        return DRACEL_EINVAL;
    dc_ectx *c = scratch(act);
    dc_val v = dc_table_device(tab, row, c);
    if (c->oom)
        return DRACEL_ENOMEM;
    return put_copy(act, d->slot, v);
}

dracel_status dracel_eval_activation(const dracel_program *p, const dracel_activation *act,
                                     dracel_result *r)
{
    if (!p || !act || !r)
        return DRACEL_EINVAL;
    DC_TRY(dc_api_check_vars(p->prog, act->env->env));
    return dc_api_run(p, act->vals, act->n, r);
}
