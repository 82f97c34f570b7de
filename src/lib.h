/*
 * lib.h: the run-time function libraries: the standard CEL functions that are not operators
 * (size, contains, startsWith, endsWith, the type conversions int/uint/double/string/bool/bytes/
 * dyn/type) and the extension libraries Kubernetes enables (cel-go ext.Strings v2, ext.Lists,
 * ext.Sets, and Kubernetes' own lists library: isSorted, sum, min, max, indexOf, lastIndexOf,
 * includes).
 *
 * Each library is an array of dc_builtin (vm/vm.h). There is one entry per (name, receiver
 * style, arity); the implementation dispatches on the kinds of its arguments and returns
 * dc_err_no_overload() for kinds it does not handle (reachable through dyn values). Errors use
 * cel-go's wording (google/cel-go common/types, ext/strings.go, ext/formatting.go,
 * ext/lists.go, ext/sets.go; kubernetes/apiserver pkg/cel/library/lists.go).
 *
 * Cost: a builtin charges, with dc_cost(), the size-dependent part of the run-time cost that
 * cel-go (with Kubernetes' library.CostEstimator) computes for the call:
 *   - startsWith/endsWith, string(bytes), bytes(string), lowerAscii, upperAscii, substring,
 *     trim, format, strings.quote: ceil(size * 0.1), size of the receiver/argument (strings
 *     are sized in code points, as cel-go's Size(); bytes in bytes);
 *   - contains: ceil(size(s) * 0.1) * ceil(size(sub) * 0.1);
 *   - replace, split: ceil(size * 2 * 0.1); join: ceil(size(result) * 2 * 0.1);
 *   - indexOf, lastIndexOf (strings and lists), isSorted, sum, min, max: Kubernetes'
 *     traversalCost (strings: trunc(bytes * 0.1); scalars 1; lists and maps: the sum over
 *     their elements/entries);
 *   - sets.contains/intersects: trunc(m * n), sets.equivalent: trunc(2 * m * n);
 *   - the list extensions (slice, flatten, distinct, reverse, sort, lists.range, includes,
 *     @sortByAssociatedKeys): 1 per element visited or produced, plus 1 per comparison for
 *     distinct and sort.
 * The constant 1 that cel-go charges for every other call is the VM's to charge. (cel-go
 * charges the size-dependent formulas *instead of* that 1, not in addition to it.)
 * When dc_cost() refuses, the builtin returns an error value at once.
 *
 * Change with: src/decls.c (the declarations the checker sees), src/compile.c (which binds
 * calls to these tables), tests/unit/test_lib.c.
 */
#ifndef DC_LIB_H
#define DC_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "vm.h"

extern const dc_builtin dc_lib_strings[];
extern const uint32_t dc_lib_strings_count;
extern const dc_builtin dc_lib_lists[];
extern const uint32_t dc_lib_lists_count;
extern const dc_builtin dc_lib_conv[];
extern const uint32_t dc_lib_conv_count;

/* ---- Helpers shared by the library files (not for other modules). */

/* ceil(n * 0.1), computed in double as cel-go computes it. */
uint64_t dc_lib_scan_cost(uint64_t n);
/* The error value a builtin returns when dc_cost() refused. */
dc_val dc_lib_cost_error(dc_ectx *c);
/* Copy a heap buffer into a string value in the arena and free the buffer (OOM: dc_oom). */
dc_val dc_lib_buf_string(dc_ectx *c, dc_buf *b);

/* Go's strconv.ParseFloat(s, 64) with cel-go's acceptance rule: false on a syntax error or on
 * overflow (a finite literal out of range); "inf", "infinity", "nan" in any case are
 * accepted. A text of 128 bytes or more is copied into c's arena (c may be NULL for shorter
 * ones); false with c->oom set when that fails. */
bool dc_lib_parse_double(dc_ectx *c, const char *s, size_t n, double *out);
/* Go's fmt %g of a float64 (strconv 'g', shortest): "1e-07", "1e+20", "+Inf", "-0", "NaN".
 * out needs 32 bytes; returns the length. */
size_t dc_lib_format_double(double d, char out[32]);

/* Kubernetes' indexOf/lastIndexOf on a list (equality as ==, errors counting as unequal). */
dc_val dc_lib_list_index_of(dc_ectx *c, dc_val list, dc_val item, bool last);
/* Kubernetes' traversalCost of a value. */
uint64_t dc_lib_traversal_cost(dc_val v);

#endif
