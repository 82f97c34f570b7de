/*
 * cost.h: the static (worst-case) cost estimate of a checked expression, as Kubernetes' API
 * validation computes it with cel-go's estimator before it accepts a device selector.
 *
 * The model is cel-go's checker/cost.go: every node has a cost range {min, max}; identifiers
 * and field selections on maps/objects cost 1, literals 0, list/map/message creation 10/30/40
 * plus their elements, calls 1 plus their arguments unless a size-dependent formula applies
 * (string functions scale with the string size times 0.1, matches() with the string size times
 * the regex size times 0.25, `in` on a list with the list size, ...), `&&`/`||` cost
 * {min of the left side, sum of both}, `?:` the condition plus the union of the branches, and a
 * comprehension its range, accumulator initializer and result plus (range size) x (loop
 * condition + loop step) of cel-go's macro expansion. Size estimates flow as in cel-go: exact
 * for literals, derived for concatenations, conditionals, index operations and comprehension
 * results, and otherwise asked of a size estimator by the node's field path ("device",
 * "attributes", "@values", ...).
 *
 * On top of that, what Kubernetes configures (kubernetes/apiserver pkg/cel/library/cost.go,
 * dynamic-resource-allocation cel/compile.go): the library functions' call estimates (quantity,
 * semver, lists, regex find, ext strings; in both environments, which declare the same
 * libraries), cel-go's ext lists/sets estimators, `has()` costing 0 in the DRA environment
 * (PresenceTestHasCost(false)), `includes` costing up to 48, and the sizes of everything
 * reachable from `device`: 32 entries per attribute/capacity map, domains 63 characters, ids 32,
 * the driver 63, attribute values 64 (characters or list elements).
 *
 * Determinism and bounds: one walk over the tree (whose height the parser bounds), no hashing;
 * arithmetic saturates at UINT64_MAX exactly as cel-go's does.
 *
 * Change with: src/cost.c, tests/unit/test_cost.c; src/decls.c (overload ids the formulas key
 * on), src/check.h (the node types it reads).
 */
#ifndef DC_COST_H
#define DC_COST_H

#include "check.h"

/** Kubernetes' CELSelectorExpressionMaxCost: `dra-celc check` rejects a larger estimate. */
#define DC_COST_LIMIT_DRA UINT64_C(1000000)

/** A cost range in cel-go's cost units. */
typedef struct dc_cost_est {
    uint64_t min, max;
} dc_cost_est;

/** A size range: characters of a string, bytes, list elements or map entries. */
typedef struct dc_cost_size {
    uint64_t min, max;
} dc_cost_size;

/**
 * A size estimator (cel-go's CostEstimator.EstimateSize): the size range of a value reached by
 * @p path (the root variable, then field names and "@items", "@values", "@keys", "@indices"),
 * of type @p type (may be NULL). @p npath is 0 for values without a path. Return false when
 * unknown. In the DRA environment the built-in `device` estimator is asked after this one.
 */
typedef bool (*dc_cost_size_fn)(void *ctx, const char *const *path, uint32_t npath,
                                const dc_type *type, dc_cost_size *out);

typedef enum dc_cost_presence {
    DC_COST_PRESENCE_DEFAULT = 0, /* the environment's: 0 in DRA (Kubernetes), 1 in plain CEL */
    DC_COST_PRESENCE_ZERO,        /* PresenceTestHasCost(false) */
    DC_COST_PRESENCE_ONE          /* PresenceTestHasCost(true), cel-go's default */
} dc_cost_presence;

typedef struct dc_cost_opts {
    dc_cost_size_fn size; /* NULL: none */
    void *size_ctx;
    dc_cost_presence presence;
} dc_cost_opts;

/**
 * Estimate the cost of @p e, checked in @p env (@p types from dc_check_ex; NULL types are
 * treated as dyn). Saturates at UINT64_MAX; on ENOMEM the result is {UINT64_MAX, UINT64_MAX}
 * (too expensive: a caller that enforces a limit rejects).
 */
dc_cost_est dc_cost_estimate(const dc_env *env, const dc_ast *e, const dc_checked *types);

/** dc_cost_estimate with options (@p opts may be NULL).
 *  @return DRACEL_OK, DRACEL_ENOMEM, DRACEL_EINVAL (NULL env, e or out). */
dracel_status dc_cost_estimate_ex(const dc_env *env, const dc_ast *e, const dc_checked *types,
                                  const dc_cost_opts *opts, dc_cost_est *out) DC_WUR;

#endif
