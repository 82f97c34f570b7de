/*
 * api_host.c: the public API of host functions (include/dracel.h, "Host functions"): a
 * dracel_function read into a host record (vm/host.h), declared in the environment under
 * cel-go's overload rules (src/env.c). The calls themselves are vm/host.c's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apiint.h"
#include "host.h"

void dracel_function_init_size(dracel_function *f, size_t size)
{
    if (!f || size < DC_FUNCTION_SIZE_V1)
        return;
    dracel_function d;
    memset(&d, 0, sizeof d);
    d.cost = 1;
    d.max_result_bytes = DRACEL_DEFAULT_MAX_RESULT;
    memset(f, 0, size);
    memcpy(f, &d, size < sizeof d ? size : sizeof d);
    f->size = size;
}

/* The value kind of a public type (0: none). */
static uint8_t kind_of(dracel_type t)
{
    switch (t) {
    case DRACEL_TYPE_BOOL: return DC_K_BOOL;
    case DRACEL_TYPE_INT: return DC_K_INT;
    case DRACEL_TYPE_UINT: return DC_K_UINT;
    case DRACEL_TYPE_DOUBLE: return DC_K_DOUBLE;
    case DRACEL_TYPE_STRING: return DC_K_STRING;
    case DRACEL_TYPE_BYTES: return DC_K_BYTES;
    }
    return 0;
}

static dracel_status bad(char *err, size_t cap, const char *msg)
{
    if (err && cap)
        snprintf(err, cap, "%s", msg);
    return DRACEL_EINVAL;
}

dracel_status dracel_env_add_function(dracel_env *env, const dracel_function *f, char *err,
                                      size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!env || !f)
        return bad(err, errcap, "no environment or no function");
    dracel_function fc;
    dracel_function_init(&fc);
    if (dc_struct_read(&fc, sizeof fc, f, f->size, DC_FUNCTION_SIZE_V1) != DRACEL_OK)
        return bad(err, errcap, "dracel_function: fill it with dracel_function_init first "
                                "(a size this library does not know)");
    if (!fc.name || !fc.overload_id || !*fc.overload_id)
        return bad(err, errcap, "a host function needs a name and an overload id");
    if (!fc.fn)
        return bad(err, errcap, "a host function needs its C function (fn)");
    if (fc.nparams > DRACEL_FUNCTION_MAX_PARAMS || (fc.member && fc.nparams == 0))
        return bad(err, errcap, fc.member ? "a member overload takes 1 to 8 parameters (the receiver first)"
                                          : "a host function takes at most 8 parameters");
    if (fc.flags & ~(unsigned)DRACEL_FUNCTION_PURE)
        return bad(err, errcap, "unknown flags");
    if (!isfinite(fc.size_cost_factor) || fc.size_cost_factor < 0)
        return bad(err, errcap, "size_cost_factor must be finite and not negative");
    if (fc.max_result_bytes > UINT32_MAX - 1)
        return bad(err, errcap, "max_result_bytes is above UINT32_MAX - 1");
    dc_hostsig sig;
    memset(&sig, 0, sizeof sig);
    sig.name = fc.name;
    sig.id = fc.overload_id;
    sig.member = fc.member;
    sig.pure = (fc.flags & DRACEL_FUNCTION_PURE) != 0;
    sig.nparams = (uint8_t)fc.nparams;
    for (uint32_t i = 0; i < fc.nparams; i++)
        if (!(sig.params[i] = kind_of(fc.params[i])))
            return bad(err, errcap, "a parameter has no DRACEL_TYPE_* type");
    if (!(sig.result = kind_of(fc.result)))
        return bad(err, errcap, "the result has no DRACEL_TYPE_* type");
    sig.cost = fc.cost ? fc.cost : 1;
    sig.size_factor = fc.size_cost_factor;
    sig.max_result = (uint32_t)(fc.max_result_bytes ? fc.max_result_bytes : DRACEL_DEFAULT_MAX_RESULT);
    const char *why;
    dc_host *h = dc_host_new(&env->alloc, &sig, fc.fn, fc.data, &why);
    if (!h) {
        if (strcmp(why, "out of memory") == 0)
            return DRACEL_ENOMEM;
        return bad(err, errcap, why);
    }
    dracel_status st = dc_env_add_host(env->env, h, err, errcap);
    dc_host_unref(h); /* the environment holds its own reference */
    return st;
}
