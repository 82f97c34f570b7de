/*
 * host.c: host functions (see host.h): the records, their reference counts, the call through
 * libffi, and the dracel_host_* functions a host function uses during its call.
 *
 * A call: the overload is chosen by the kinds of the arguments; its declared cost is charged
 * before the C function runs (a call the budget cannot pay is not made); the arguments are
 * passed by value (numbers) or as const pointers into the VM's own immutable strings, valid
 * for the call only; a string or bytes result is copied into the evaluation's arena by
 * dracel_host_return_*, which checks its kind, size and UTF-8 there, so that nothing the
 * function leaves behind (a stack buffer, freed memory) is read after it returns. An error set
 * with dracel_host_error becomes the call's value, a CEL error with that message.
 *
 * Invariant: libffi is used through ffi_prep_cif (once per overload, at declaration) and
 * ffi_call only; no closure, no trampoline, no executable memory.
 */
#include "host.h"

#include <ffi.h>
#include <math.h>
#include <string.h>

struct dc_host {
    dc_hostsig sig;            /* name and id point into strings[] */
    dracel_alloc alloc;        /* a copy: the record may outlive the environment */
    size_t size;               /* bytes of this block */
    uint32_t refs;             /* atomic */
    void (*fn)(void);
    void *data;
    ffi_cif cif;
    ffi_type *atypes[1 + 2 * DC_HOST_MAX_PARAMS]; /* the context, then one or two per parameter */
    char strings[];
};

/* What a host function's dracel_host_ctx * points to: on the caller's stack, valid during the
 * call only. */
struct dracel_host_ctx {
    dc_ectx *c;
    const dc_host *h;
    dc_val result;             /* a string or bytes result, or the error that ends the call */
    bool has_result;
    bool failed;
};

static ffi_type *size_type(void)
{
    return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32;
}

/* The C type of a CEL kind as a parameter (NULL: not a host type). STRING and BYTES take a
 * second parameter, the length. */
static ffi_type *param_type(uint8_t k)
{
    switch (k) {
    case DC_K_BOOL: return &ffi_type_uint8; /* C bool: one byte, 0 or 1 */
    case DC_K_INT: return &ffi_type_sint64;
    case DC_K_UINT: return &ffi_type_uint64;
    case DC_K_DOUBLE: return &ffi_type_double;
    case DC_K_STRING:
    case DC_K_BYTES: return &ffi_type_pointer;
    default: return NULL;
    }
}

dc_host *dc_host_new(const dracel_alloc *a, const dc_hostsig *sig, void (*fn)(void), void *data,
                     const char **why)
{
    *why = "out of memory";
    if (!a)
        a = &dc_default_alloc;
    size_t nl = strlen(sig->name), il = strlen(sig->id);
    size_t size = sizeof(dc_host) + nl + il + 2;
    dc_host *h = dc_malloc(a, size);
    if (!h)
        return NULL;
    memset(h, 0, sizeof *h);
    h->sig = *sig;
    memcpy(h->strings, sig->name, nl + 1);
    memcpy(h->strings + nl + 1, sig->id, il + 1);
    h->sig.name = h->strings;
    h->sig.id = h->strings + nl + 1;
    h->alloc = *a;
    h->size = size;
    h->refs = 1;
    h->fn = fn;
    h->data = data;
    unsigned n = 0;
    h->atypes[n++] = &ffi_type_pointer;
    bool ok = sig->nparams <= DC_HOST_MAX_PARAMS;
    for (unsigned i = 0; ok && i < sig->nparams; i++) {
        ffi_type *t = param_type(sig->params[i]);
        ok = t != NULL;
        h->atypes[n++] = t;
        if (sig->params[i] == DC_K_STRING || sig->params[i] == DC_K_BYTES)
            h->atypes[n++] = size_type();
    }
    ffi_type *rt = sig->result == DC_K_STRING || sig->result == DC_K_BYTES ? &ffi_type_void
                                                                           : param_type(sig->result);
    if (!ok || !rt) {
        *why = "a parameter or the result has a type host functions cannot take";
        dc_free(a, h, size);
        return NULL;
    }
    if (ffi_prep_cif(&h->cif, FFI_DEFAULT_ABI, n, rt, h->atypes) != FFI_OK) {
        *why = "libffi cannot prepare a call of this signature";
        dc_free(a, h, size);
        return NULL;
    }
    *why = NULL;
    return h;
}

const dc_hostsig *dc_host_sig(const dc_host *h)
{
    return &h->sig;
}

void dc_host_ref(const dc_host *h)
{
    if (h)
        __atomic_add_fetch(&((dc_host *)h)->refs, 1, __ATOMIC_RELAXED);
}

void dc_host_unref(const dc_host *h)
{
    if (!h || __atomic_sub_fetch(&((dc_host *)h)->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    dracel_alloc a = h->alloc;
    dc_free(&a, (void *)h, h->size);
}

void dc_host_program_refs(const dc_program *p, bool take)
{
    for (uint32_t f = 0; f < p->nfns; f++) {
        if (!(p->fns[f]->flags & DC_BF_HOST))
            continue;
        const dc_hostcall *hc = (const dc_hostcall *)p->fns[f];
        for (uint32_t i = 0; i < hc->n; i++) {
            if (take)
                dc_host_ref(hc->ovs[i]);
            else
                dc_host_unref(hc->ovs[i]);
        }
    }
}

uint64_t dc_host_call_cost(const dc_hostsig *s, uint64_t size)
{
    uint64_t cost = s->cost ? s->cost : 1;
    if (!(s->size_factor > 0) || size == 0)
        return cost;
    double f = ceil((double)size * s->size_factor);
    uint64_t extra = f >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)f;
    return extra > UINT64_MAX - cost ? UINT64_MAX : cost + extra;
}

uint64_t dc_host_cost_bound(const dc_builtin *b, uint64_t *longest, uint64_t lib_call)
{
    const dc_hostcall *hc = (const dc_hostcall *)b;
    uint64_t worst = hc->fallback ? lib_call : 0, grown = *longest;
    for (uint32_t i = 0; i < hc->n; i++) {
        const dc_hostsig *s = &hc->ovs[i]->sig;
        uint64_t size = 0;
        for (uint32_t k = 0; k < s->nparams; k++)
            if (s->params[k] == DC_K_STRING || s->params[k] == DC_K_BYTES)
                size = size > UINT64_MAX - *longest ? UINT64_MAX : size + *longest;
        uint64_t c = dc_host_call_cost(s, size) - 1; /* the CALL's own unit is counted apart */
        if (c > worst)
            worst = c;
        if ((s->result == DC_K_STRING || s->result == DC_K_BYTES) && s->max_result > grown)
            grown = s->max_result;
    }
    *longest = grown;
    return worst;
}

/* ---- The call. */

/* Does overload h take these arguments (exact kinds, as cel-go's runtime dispatch)? */
static bool takes(const dc_host *h, const dc_val *args, uint32_t n)
{
    if (h->sig.nparams != n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (args[i].k != h->sig.params[i])
            return false;
    return true;
}

typedef union slot {
    uint8_t b;
    int64_t i;
    uint64_t u;
    double d;
    const void *p;
    size_t z;
} slot;

static dc_val call(dc_ectx *c, const dc_host *h, const dc_val *args)
{
    const dc_hostsig *s = &h->sig;
    uint64_t size = 0;
    if (s->size_factor > 0)
        for (uint32_t i = 0; i < s->nparams; i++) {
            const dc_str *x = args[i].u.s;
            if (s->params[i] == DC_K_STRING)
                size += dc_utf8_count(x->data, x->len);
            else if (s->params[i] == DC_K_BYTES)
                size += x->len;
        }
    /* The CALL instruction adds its own unit. A call the budget cannot pay is not made. */
    uint64_t units = dc_host_call_cost(s, size) - 1;
    if (units && !dc_cost(c, units))
        return dc_errval(&dc_err_cost);

    dracel_host_ctx x = {c, h, dc_null(), false, false};
    dracel_host_ctx *xp = &x;
    slot store[1 + 2 * DC_HOST_MAX_PARAMS];
    void *av[1 + 2 * DC_HOST_MAX_PARAMS];
    unsigned k = 0;
    av[k++] = &xp;
    for (uint32_t i = 0; i < s->nparams; i++, k++) {
        switch (s->params[i]) {
        case DC_K_BOOL: store[k].b = args[i].u.b; break;
        case DC_K_INT: store[k].i = args[i].u.i; break;
        case DC_K_UINT: store[k].u = args[i].u.u; break;
        case DC_K_DOUBLE: store[k].d = args[i].u.d; break;
        default: /* STRING, BYTES: the data (NUL-terminated too), then its length */
            store[k].p = args[i].u.s->data;
            av[k] = &store[k];
            k++;
            store[k].z = args[i].u.s->len;
            break;
        }
        av[k] = &store[k];
    }
    union {
        ffi_arg a;
        int64_t i;
        uint64_t u;
        double d;
    } ret;
    memset(&ret, 0, sizeof ret);
    ffi_call((ffi_cif *)&h->cif, h->fn, &ret, av);

    if (x.failed)
        return x.result;
    switch (s->result) {
    case DC_K_BOOL: return dc_bool((uint8_t)ret.a != 0); /* libffi widens small results */
    case DC_K_INT: return dc_int(ret.i);
    case DC_K_UINT: return dc_uint(ret.u);
    case DC_K_DOUBLE: return dc_double(ret.d);
    default:
        if (!x.has_result)
            return dc_error(c, "host function '%s' returned no value", s->name);
        return x.result;
    }
}

dc_val dc_host_call(dc_ectx *c, const dc_builtin *b, const dc_val *args, uint32_t n)
{
    const dc_hostcall *hc = (const dc_hostcall *)b;
    for (uint32_t i = 0; i < hc->n; i++)
        if (takes(hc->ovs[i], args, n))
            return call(c, hc->ovs[i], args);
    if (hc->fallback)
        return hc->fallback->fn(c, args, n);
    /* Only a dyn argument of another kind (the checker accepted it) or an unchecked program. */
    for (uint32_t i = 0; i < n; i++)
        if (args[i].k == DC_K_ERROR)
            return args[i];
    return dc_err_no_overload(c);
}

/* ---- What a host function calls during its call (dracel.h). */

static const char *kind_word(uint8_t k)
{
    return k == DC_K_STRING ? "a string" : k == DC_K_BYTES ? "bytes" : "a number or bool";
}

static void fail(dracel_host_ctx *x, dc_val e)
{
    if (!x->failed) {
        x->failed = true;
        x->result = e;
    }
}

void *dracel_host_data(const dracel_host_ctx *x)
{
    return x ? x->h->data : NULL;
}

void dracel_host_error(dracel_host_ctx *x, const char *msg)
{
    if (!x || x->failed)
        return;
    if (!msg) {
        fail(x, dc_error(x->c, "host function '%s' failed", x->h->sig.name));
        return;
    }
    /* The message as given, with bytes that are not UTF-8 replaced: messages are printed in
     * JSON and in diagnostics. */
    size_t n = strlen(msg);
    dc_err *e = dc_ealloc(x->c, sizeof *e);
    char *m = e ? dc_ealloc(x->c, n + 1) : NULL;
    if (!m) {
        fail(x, dc_oom(x->c));
        return;
    }
    memcpy(m, msg, n + 1);
    for (size_t i = dc_utf8_check((const unsigned char *)m, n); i < n;
         i += dc_utf8_check((const unsigned char *)m + i, n - i)) {
        m[i++] = '?';
    }
    e->msg = m;
    e->flags = 0;
    fail(x, dc_errval(e));
}

static void put(dracel_host_ctx *x, uint8_t kind, const void *p, size_t n)
{
    if (!x || x->failed)
        return;
    const dc_hostsig *s = &x->h->sig;
    dc_ectx *c = x->c;
    if (s->result != kind) {
        fail(x, dc_error(c, "host function '%s' returned %s, but it is declared to return %s",
                         s->name, kind_word(kind), kind_word(s->result)));
        return;
    }
    if (!p) {
        fail(x, dc_error(c, "host function '%s' returned NULL", s->name));
        return;
    }
    if (n > s->max_result) {
        fail(x, dc_error(c, "host function '%s' returned %zu bytes, more than its limit of %u",
                         s->name, n, (unsigned)s->max_result));
        return;
    }
    if (kind == DC_K_STRING) {
        /* CEL strings are UTF-8 (U+0000 included). */
        const unsigned char *u = p;
        for (size_t i = dc_utf8_check(u, n); i < n; i += dc_utf8_check(u + i, n - i)) {
            if (u[i] != 0) {
                fail(x, dc_error(c, "host function '%s' returned a string that is not valid UTF-8",
                                 s->name));
                return;
            }
            i++;
        }
    }
    dc_str *str = dc_str_new(c, p, n);
    if (!str) {
        fail(x, dc_oom(c));
        return;
    }
    x->result = kind == DC_K_STRING ? dc_strval(str) : dc_bytesval(str);
    x->has_result = true;
}

void dracel_host_return_string(dracel_host_ctx *x, const char *s, size_t len)
{
    put(x, DC_K_STRING, s, len);
}

void dracel_host_return_bytes(dracel_host_ctx *x, const void *b, size_t len)
{
    put(x, DC_K_BYTES, b, len);
}
