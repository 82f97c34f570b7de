/*
 * host.h: host functions, the C functions an embedding program declares
 * (dracel_env_add_function) and both VMs call through libffi's ffi_call. Never libffi closures:
 * they need memory that is writable and executable at once (reference/ecosystem.md section 7).
 *
 * A dc_host is one overload: its signature in CEL kinds, its cost, whether it is pure, the C
 * function and the ffi_cif prepared once, when it is declared. It is immutable and counted: the
 * environment that declared it holds a reference, and so does every program whose code calls
 * it, so that a program may outlive its environment. The count is atomic (programs are freed
 * from any thread); the last reference frees the record with the allocator it copied.
 *
 * A program's CALL of a host function names a dc_hostcall in the program's arena: the host
 * overloads of one (name, receiver style, arity), chosen at run time by the exact kinds of the
 * arguments (CEL has no implicit conversions), and the library builtin of the same triple, called
 * when no host overload takes the arguments. A host overload may add to a library function but
 * never replace or overlap one (src/env.c refuses overlapping signatures, as cel-go does), so the
 * order of that search changes no answer.
 *
 * Change with: vm/host.c, vm/vm.h (DC_BF_HOST, dc_builtin_call), src/env.c (declaration rules),
 * src/compile.c (dc_hostcall), src/cost.c (static estimates), vm/vvm.c (cost bound, memos),
 * src/api_host.c and include/dracel.h (the public API).
 */
#ifndef DC_HOST_H
#define DC_HOST_H

#include "vm.h"

/* CEL parameters of one overload, the receiver included. */
#define DC_HOST_MAX_PARAMS ((unsigned)DRACEL_FUNCTION_MAX_PARAMS)

/* What the checker, the compiler and the cost estimators know of a host overload. */
typedef struct dc_hostsig {
    const char *name;          /* "score", "acme.score" */
    const char *id;            /* the overload id, unique within the function */
    bool member;               /* receiver style: params[0] is the receiver */
    bool pure;                 /* equal arguments give equal results, and calls can be skipped */
    uint8_t nparams;
    uint8_t params[DC_HOST_MAX_PARAMS]; /* dc_kind: BOOL INT UINT DOUBLE STRING BYTES */
    uint8_t result;            /* dc_kind, as params */
    uint64_t cost;             /* cel-go units per call, at least 1 */
    double size_factor;        /* plus this times the summed sizes of the string (code points)
                                  and bytes (bytes) arguments, rounded up; finite, >= 0 */
    uint32_t max_result;       /* a string or bytes result longer than this (bytes) is an error */
} dc_hostsig;

typedef struct dc_host dc_host;

/**
 * A new host overload with one reference (the caller's). @p sig's strings are copied. The
 * record keeps a copy of @p a and frees itself with it.
 * @return NULL on ENOMEM or when libffi cannot prepare the call (*why says which).
 */
dc_host *dc_host_new(const dracel_alloc *a, const dc_hostsig *sig, void (*fn)(void), void *data,
                     const char **why);
/** Its signature (lives as long as the record). */
const dc_hostsig *dc_host_sig(const dc_host *h);
/** Take and release a reference (thread-safe). Releasing the last one frees the record. NULL is
 *  fine. */
void dc_host_ref(const dc_host *h);
void dc_host_unref(const dc_host *h);

/** The run-time cost of one call whose string and bytes arguments sum to @p size (code points
 *  of strings, bytes of bytes): cost + ceil(size x size_factor), saturating at UINT64_MAX. The
 *  VMs and the static estimator (src/cost.c) use this one formula. */
uint64_t dc_host_call_cost(const dc_hostsig *s, uint64_t size);

/** The builtin a program's CALL names for host functions (DC_BF_HOST in b.flags). */
typedef struct dc_hostcall {
    dc_builtin b;              /* first: a dc_builtin pointer to it is a dc_hostcall pointer */
    const dc_host *const *ovs; /* the host overloads of (b.name, b.member, b.argc) */
    uint32_t n;
    const dc_builtin *fallback; /* the library's builtin of the same triple, or NULL */
} dc_hostcall;

/** Each host overload of every dc_hostcall in @p p's function table: take (@p take) or release
 *  the program's references (dc_compile and dc_program_free). */
void dc_host_program_refs(const dc_program *p, bool take);

/**
 * The most one call of @p b (a dc_hostcall) can cost at run time when no string argument is
 * longer than *longest bytes, beyond the CALL's own unit; its library fallback counted as the
 * vector VM counts library calls (@p lib_call). When a host overload returns a string or bytes,
 * *longest grows to its max_result.
 */
uint64_t dc_host_cost_bound(const dc_builtin *b, uint64_t *longest, uint64_t lib_call);

#endif
