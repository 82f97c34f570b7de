/*
 * env.h: a compilation environment: the declared variables and functions, and the options that
 * distinguish plain CEL from Kubernetes' DRA selector environment. An environment is data: the
 * host can declare its own variables and its functions (called through libffi: vm/host.c).
 *
 * Functions: every overload is declared with a signature (src/decls.c) for the checker; at run
 * time one builtin implementation serves every overload of a (name, receiver style, arity)
 * triple and dispatches on the kinds of its arguments (src/lib_*.c), so the compiler needs no
 * overload ids and the VMs agree by construction. Host functions (vm/host.h) are overloads with
 * a record: the compiler calls them through a dc_hostcall, which dispatches the same way. They
 * follow cel-go's rules for adding overloads to a function (FunctionDecl.AddOverload): a new id
 * whose signature overlaps a declared overload is refused, an existing id may be declared again
 * only with the same signature (it replaces the record); and, unlike cel-go, a library overload
 * is never replaced.
 *
 * Change with: src/env.c, src/decls.c, src/check.c, src/compile.c, vm/host.h.
 */
#ifndef DC_ENV_H
#define DC_ENV_H

#include "types.h"

typedef struct dc_overload {
    const char *id;            /* cel-go's overload id where it has one, e.g. "size_string" */
    const dc_type *result;
    const dc_type **params;    /* for member overloads params[0] is the receiver */
    uint32_t nparams;
    bool member;
    const struct dc_host *host; /* a host function (the environment holds a reference), or NULL */
} dc_overload;

typedef struct dc_fundecl {
    const char *name;          /* "size", "_+_", "matches", "optional.of", "sets.contains" */
    dc_overload *overloads;
    uint32_t n;
} dc_fundecl;

typedef struct dc_vardecl {
    const char *name;          /* may be qualified ("a.b") */
    const dc_type *type;
    const char *type_text;     /* the type as cel-go prints it (programs record it: dc_varref) */
    uint32_t slot;             /* index into the activation */
} dc_vardecl;

typedef enum dc_env_kind {
    DC_ENV_PLAIN,              /* plain CEL: heterogeneous literals allowed, any result type */
    DC_ENV_DRA                 /* Kubernetes' stored-expressions DRA selector environment */
} dc_env_kind;

typedef struct dc_env {
    dc_arena arena;
    dc_env_kind kind;
    dc_vardecl *vars;
    uint32_t nvars, capvars;
    dc_fundecl *funs;
    uint32_t nfuns, capfuns;
} dc_env;

/* Lookups (linear: environments are small). NULL when absent. */
const dc_vardecl *dc_env_var(const dc_env *env, const char *name);
const dc_fundecl *dc_env_fun(const dc_env *env, const char *name);

/* Added with the checker (src/env.c, src/decls.c): */

/** No slot: dc_env_add_var failed (ENOMEM, a bad name, or the name is already declared). */
#define DC_ENV_NOSLOT UINT32_MAX

/**
 * A new environment with the standard library and the extension libraries declared (src/decls.c);
 * for DC_ENV_DRA also the variable `device` (slot 0, kubernetes.DRADevice).
 * @param a the allocator (NULL: the C library's). @return NULL on ENOMEM.
 */
dc_env *dc_env_new(const dracel_alloc *a, dc_env_kind kind);
/** Release an environment (NULL is fine). */
void dc_env_free(dc_env *env);
/**
 * Declare variable @p name (may be qualified, "a.b"; a leading '.' is not allowed) of type
 * @p type (copied into the environment; no type parameters). Slots are given in declaration
 * order from 0.
 * @return the slot, or DC_ENV_NOSLOT.
 */
uint32_t dc_env_add_var(dc_env *env, const char *name, const dc_type *type);
/**
 * Add an overload to function @p fn (created if new). @p params is a comma-separated list of
 * signature type texts (dc_type_parse), the receiver first for a member overload ("" for none);
 * @p result one type text. Upper-case names (A, B, K, V, T) are type parameters.
 * @return DRACEL_OK, DRACEL_EINVAL (malformed text, duplicate overload id), DRACEL_ENOMEM.
 */
dracel_status dc_env_add_overload(dc_env *env, const char *fn, const char *id, bool member,
                                  const char *params, const char *result) DC_WUR;
/**
 * Declare host overload @p h (vm/host.h) of the function its signature names, under cel-go's
 * rules above. The environment takes its own reference; the caller keeps its.
 * @return DRACEL_OK; DRACEL_EINVAL with a message in @p err (cel-go's wording) when the overload
 *         collides with a declared one; DRACEL_ENOMEM.
 */
dracel_status dc_env_add_host(dc_env *env, const struct dc_host *h, char *err, size_t errcap) DC_WUR;
/** Declare every library function (src/decls.c); dc_env_new calls it. */
dracel_status dc_decls_install(dc_env *env) DC_WUR;

#endif
