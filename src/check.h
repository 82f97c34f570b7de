/*
 * check.h: the type checker. It follows cel-go's checker (checker/checker.go): identifier and
 * qualified-name resolution, overload resolution with type parameters and dyn, literal typing,
 * field selection, comprehension scoping; and, for the DRA environment, what Kubernetes adds on
 * top: the homogeneous-literal and regex validators, the bool-or-dyn result rule, and clear
 * diagnostics for CEL features that device selectors cannot use.
 *
 * Invariants: checking never modifies the AST or the environment; every type it returns lives in
 * the caller's arena (or is a static singleton). Diagnostics point where cel-go points (a node's
 * `pos`). Type parameters never escape: returned types have unbound parameters replaced by dyn.
 *
 * Change with: src/check.c, src/env.h and src/decls.c (what is declared), src/types.h,
 * src/compile.c (which must resolve names, qualified functions and the checker-handled macros
 * sortBy, optMap and optFlatMap the same way).
 */
#ifndef DC_CHECK_H
#define DC_CHECK_H

#include "ast.h"
#include "env.h"

/** What a check leaves behind for later passes (the compiler, the cost estimator). */
typedef struct dc_checked {
    /** Input: in the DRA environment, accept a result of any type (`eval --value`, disasm). */
    bool any_result;
    /** Final type of every node, indexed by node id (1..ntypes-1); NULL for nodes the checker
     *  did not type (the receiver of a qualified function name, the operand of a selection that
     *  named a qualified variable, and map entries). In the arena given to dc_check_ex. */
    const dc_type **types;
    uint32_t ntypes;
} dc_checked;

/**
 * Type-check @p e in @p env. Every problem is reported to @p d (all of them, in cel-go's
 * wording); a subtree whose type is already an error does not cause follow-on errors.
 * @return the type of the expression (unbound type parameters as dyn), or NULL if errors were
 *         reported. On ENOMEM, NULL with d->oom set.
 */
const dc_type *dc_check(const dc_env *env, dc_arena *a, dc_diags *d, const dc_ast *e);

/** dc_check, also filling @p out (may be NULL) with the type of every node. */
const dc_type *dc_check_ex(const dc_env *env, dc_arena *a, dc_diags *d, const dc_ast *e,
                           dc_checked *out);

/**
 * The global function that a receiver-style call names through its receiver, as cel-go resolves
 * it: for `optional.of(x)` (a member CALL whose target is the qualified name `optional`),
 * "optional.of" if @p env declares it. This is tried before the receiver is treated as a value,
 * whatever the scope holds (cel-go does the same). A leading dot on the receiver is ignored.
 * @return the declared name (owned by @p env), or NULL when @p call is not such a call.
 */
const char *dc_check_qualified_fn(const dc_env *env, const dc_ast *call);

/** The dotted name of an IDENT/SELECT chain ("a.b.c", or ".a.b") in @p buf (at most @p cap
 *  bytes with its NUL), its root identifier in *root; false when @p e is not such a chain or
 *  the name does not fit. */
bool dc_check_qualified_name(const dc_ast *e, char *buf, size_t cap, size_t *len,
                             const dc_ast **root);

#endif
