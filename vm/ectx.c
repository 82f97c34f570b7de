/*
 * ectx.c: the evaluation context: the per-evaluation arena with its memory limit, error values
 * and cost accounting. Shared by every builtin and both VMs.
 */
#include "vm.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dc_ectx_init(dc_ectx *c, const dracel_alloc *a)
{
    memset(c, 0, sizeof *c);
    dc_arena_init(&c->arena, a ? a : &dc_default_alloc);
}

void dc_ectx_reset(dc_ectx *c, uint64_t cost_limit, size_t mem_limit)
{
    dc_arena_reset(&c->arena);
    c->mem_base = c->arena.served;
    c->cost = 0;
    c->cost_limit = cost_limit;
    c->mem_limit = mem_limit;
    c->cost_exceeded = c->oom = c->limit_hit = c->alloc_failed = false;
    c->rowsrc = NULL;
}

void dc_ectx_free(dc_ectx *c)
{
    const dracel_alloc *a = c->arena.alloc;
    if (c->lib_state_free)
        c->lib_state_free(c->lib_state, a);
    dc_free(a, c->stack, c->stack_cap * sizeof *c->stack);
    dc_free(a, c->locals, c->locals_cap * sizeof *c->locals);
    dc_free(a, c->accums, c->accums_cap * sizeof *c->accums);
    dc_free(a, c->iters, c->iters_cap * sizeof *c->iters);
    dc_arena_free(&c->arena);
    memset(c, 0, sizeof *c);
}

void *dc_ealloc(dc_ectx *c, size_t n)
{
    /* Bytes this evaluation asked for, whatever the arena kept from earlier ones: the same
     * program on the same value hits the limit at the same point every time. */
    if (c->mem_limit && c->arena.served - c->mem_base + n > c->mem_limit) {
        c->oom = c->limit_hit = true;
        return NULL;
    }
    void *p = dc_arena_alloc(&c->arena, n);
    if (!p)
        c->oom = c->alloc_failed = true;
    return p;
}

static const dc_err err_oom = {"out of memory", 0};
static const dc_err err_no_overload = {"no such overload", 0};
static const dc_err err_overflow = {"integer overflow", 0};
static const dc_err err_div_zero = {"division by zero", 0};
static const dc_err err_mod_zero = {"modulus by zero", 0};

dc_val dc_error_static(dc_ectx *c, const dc_err *e)
{
    (void)c;
    return dc_errval(e);
}

dc_val dc_oom(dc_ectx *c)
{
    c->oom = true;
    if (!c->limit_hit)
        c->alloc_failed = true;
    return dc_errval(&err_oom);
}

dc_val dc_err_no_overload(dc_ectx *c) { return dc_error_static(c, &err_no_overload); }
dc_val dc_err_overflow(dc_ectx *c) { return dc_error_static(c, &err_overflow); }
dc_val dc_err_div_zero(dc_ectx *c) { return dc_error_static(c, &err_div_zero); }
dc_val dc_err_mod_zero(dc_ectx *c) { return dc_error_static(c, &err_mod_zero); }

dc_val(dc_error)(dc_ectx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    dc_err *e = dc_ealloc(c, sizeof *e);
    if (e) {
        va_list ap2;
        va_copy(ap2, ap);
        int n = vsnprintf(NULL, 0, fmt, ap2);
        va_end(ap2);
        if (n >= 0 && (msg = dc_ealloc(c, (size_t)n + 1)) != NULL)
            vsnprintf(msg, (size_t)n + 1, fmt, ap);
    }
    va_end(ap);
    if (!e || !msg)
        return dc_oom(c);
    e->msg = msg;
    return dc_errval(e);
}

dc_str *dc_str_alloc(dc_ectx *c, size_t n)
{
    if (n > UINT32_MAX - 1) {
        c->oom = c->limit_hit = true;
        return NULL;
    }
    dc_str *s = dc_ealloc(c, sizeof *s + n + 1);
    if (!s)
        return NULL;
    s->len = (uint32_t)n;
    s->data[n] = '\0';
    return s;
}

dc_str *dc_str_new(dc_ectx *c, const char *p, size_t n)
{
    dc_str *s = dc_str_alloc(c, n);
    if (s && n)
        memcpy(s->data, p, n);
    return s;
}

dc_list *dc_list_new(dc_ectx *c, uint32_t n)
{
    dc_list *l = dc_ealloc(c, sizeof *l + (size_t)n * sizeof(dc_val));
    if (l)
        l->n = n;
    return l;
}

dc_val dc_optional(dc_ectx *c, dc_val inner)
{
    dc_val *p = dc_ealloc(c, sizeof *p);
    if (!p)
        return dc_oom(c);
    *p = inner;
    dc_val v;
    v.k = DC_K_OPTIONAL;
    v.u.opt = p;
    return v;
}
