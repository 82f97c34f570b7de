/*
 * lib_lists.c: the list functions Kubernetes enables: cel-go's ext.Lists (slice, flatten,
 * distinct, lists.range, reverse, sort, and @sortByAssociatedKeys, the call the sortBy macro
 * expands to), ext.Sets (sets.contains, sets.equivalent, sets.intersects), and Kubernetes' own
 * lists library (isSorted, sum, min, max, indexOf, lastIndexOf, includes), with cel-go's
 * results and error texts (google/cel-go ext/lists.go, ext/sets.go; kubernetes/apiserver
 * pkg/cel/library/lists.go).
 *
 * Equality is CEL's == (dc_val_eq); an equality that errors (a Semver against another kind)
 * counts as "not equal", as cel-go's `Equal(...) == types.True` tests do. Ordering is CEL's <
 * (dc_val_cmp): a comparison that errors (NaN, mixed kinds) decides nothing. sort() is stable
 * (cel-go's sort.Slice is stable for up to 12 elements; beyond that only elements that compare
 * equal but differ, such as 0.0 and -0.0, could be ordered differently).
 *
 * sum() takes its zero from the first element's kind; an empty list sums to int 0 (cel-go picks
 * the zero from the checked overload: an empty list(double) gives 0.0 there).
 */
#include "lib.h"

#include <math.h>
#include <string.h>

static bool is_list(dc_val v)
{
    return v.k == DC_K_LIST;
}

/* A new list of n (uninitialised) elements; NULL when out of memory. */
static dc_list *new_list(dc_ectx *c, uint64_t n)
{
    return n > UINT32_MAX ? NULL : dc_list_new(c, (uint32_t)n);
}

/* Equality that treats an error as "not equal". */
static bool equal(dc_ectx *c, dc_val a, dc_val b)
{
    dc_val r = dc_val_eq(c, a, b);
    return r.k == DC_K_BOOL && r.u.b;
}

/* a.Compare(b): -1, 0, 1, or 2 when the comparison errors. */
static int compare(dc_ectx *c, dc_val a, dc_val b)
{
    int r;
    dc_val err;
    if (!dc_val_cmp(c, a, b, &r, &err))
        return 2;
    return r;
}

/* The kinds that implement cel-go's traits.Comparer (timestamps and durations do not exist
 * here). */
static bool comparable(dc_val v)
{
    switch (v.k) {
    case DC_K_INT: case DC_K_UINT: case DC_K_DOUBLE: case DC_K_BOOL: case DC_K_STRING:
    case DC_K_BYTES:
        return true;
    default:
        return false;
    }
}

/* ---- Costs. */

uint64_t dc_lib_traversal_cost(dc_val v)
{
    switch (v.k) {
    case DC_K_STRING:
    case DC_K_BYTES:
        return (uint64_t)((double)v.u.s->len * 0.1);
    case DC_K_LIST: {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < v.u.l->n; i++)
            sum += dc_lib_traversal_cost(v.u.l->v[i]);
        return sum;
    }
    case DC_K_MAP: {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < v.u.m->n; i++)
            sum += dc_lib_traversal_cost(v.u.m->keys[i]) + dc_lib_traversal_cost(v.u.m->vals[i]);
        return sum;
    }
    default:
        return 1;
    }
}

#define CHARGE(c, units)                      \
    do {                                      \
        if (!dc_cost((c), (units)))           \
            return dc_lib_cost_error(c);      \
    } while (0)

/* ---- Kubernetes: indexOf, lastIndexOf, includes, isSorted, sum, min, max. */

dc_val dc_lib_list_index_of(dc_ectx *c, dc_val list, dc_val item, bool last)
{
    if (!is_list(list))
        return dc_err_no_overload(c);
    CHARGE(c, dc_lib_traversal_cost(list));
    const dc_list *l = list.u.l;
    if (last) {
        for (uint32_t i = l->n; i-- > 0;)
            if (equal(c, l->v[i], item))
                return dc_int(i);
    } else {
        for (uint32_t i = 0; i < l->n; i++)
            if (equal(c, l->v[i], item))
                return dc_int(i);
    }
    return dc_int(-1);
}

/* The DRA compiler's includes (kubernetes/dynamic-resource-allocation cel/compile.go
 * includesFunc): a list includes a value equal to the argument, a scalar is equal to it. It
 * reads at most ResourceSliceMaxAttributeValuesPerDevice elements: a list whose first 48 do not
 * match and that has more is an error (a match among the first 48 is true however long the
 * list). Its run-time cost is the lists library's for includes (Kubernetes 1.37's
 * CostEstimator.CallCost: one traversal of the receiver). */
#define INCLUDES_MAX 48u

static dc_val fn_includes(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    CHARGE(c, dc_lib_traversal_cost(a[0]));
    if (is_list(a[0])) {
        const dc_list *l = a[0].u.l;
        for (uint32_t i = 0; i < l->n; i++) {
            if (i >= INCLUDES_MAX)
                return dc_error(c, "'includes' function cannot be applied to lists longer than "
                                   "%u values", INCLUDES_MAX);
            if (equal(c, l->v[i], a[1]))
                return dc_bool(true);
        }
        return dc_bool(false);
    }
    return dc_bool(equal(c, a[0], a[1]));
}

static dc_val fn_is_sorted(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]))
        return dc_err_no_overload(c);
    CHARGE(c, dc_lib_traversal_cost(a[0]));
    const dc_list *l = a[0].u.l;
    for (uint32_t i = 0; i < l->n; i++) {
        if (!comparable(l->v[i]))
            return dc_err_no_overload(c);
        if (i > 0 && compare(c, l->v[i - 1], l->v[i]) == 1)
            return dc_bool(false);
    }
    return dc_bool(true);
}

static dc_val err_uint_overflow(dc_ectx *c)
{
    static const dc_err e = {"unsigned integer overflow", 0};
    return dc_error_static(c, &e);
}

static dc_val fn_sum(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]))
        return dc_err_no_overload(c);
    CHARGE(c, dc_lib_traversal_cost(a[0]));
    const dc_list *l = a[0].u.l;
    if (l->n == 0)
        return dc_int(0);
    dc_val acc;
    switch (l->v[0].k) {
    case DC_K_INT: acc = dc_int(0); break;
    case DC_K_UINT: acc = dc_uint(0); break;
    case DC_K_DOUBLE: acc = dc_double(0.0); break;
    default: return dc_err_no_overload(c);
    }
    for (uint32_t i = 0; i < l->n; i++) {
        dc_val x = l->v[i];
        if (x.k != acc.k)
            return dc_err_no_overload(c);
        switch (acc.k) {
        case DC_K_INT:
            if ((x.u.i > 0 && acc.u.i > INT64_MAX - x.u.i) ||
                (x.u.i < 0 && acc.u.i < INT64_MIN - x.u.i))
                return dc_err_overflow(c);
            acc.u.i += x.u.i;
            break;
        case DC_K_UINT:
            if (acc.u.u > UINT64_MAX - x.u.u)
                return err_uint_overflow(c);
            acc.u.u += x.u.u;
            break;
        default:
            acc.u.d += x.u.d;
            break;
        }
    }
    return acc;
}

/* min (prefer = 1: take next when current > next) and max (prefer = -1). */
static dc_val min_max(dc_ectx *c, dc_val list, int prefer, const char *name)
{
    if (!is_list(list))
        return dc_err_no_overload(c);
    CHARGE(c, dc_lib_traversal_cost(list));
    const dc_list *l = list.u.l;
    if (l->n == 0)
        return dc_error(c, "%s called on empty list", name);
    dc_val best = l->v[0];
    for (uint32_t i = 0; i < l->n; i++) {
        if (!comparable(l->v[i]))
            return dc_err_no_overload(c);
        if (i > 0 && compare(c, best, l->v[i]) == prefer)
            best = l->v[i];
    }
    return best;
}

static dc_val fn_min(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    return min_max(c, a[0], 1, "min");
}

static dc_val fn_max(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    return min_max(c, a[0], -1, "max");
}

/* ---- ext.Lists: slice, flatten, distinct, range, reverse, sort. */

static dc_val fn_slice(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]) || a[1].k != DC_K_INT || a[2].k != DC_K_INT)
        return dc_err_no_overload(c);
    const dc_list *l = a[0].u.l;
    int64_t start = a[1].u.i, end = a[2].u.i;
    if (start < 0 || end < 0)
        return dc_error(c, "cannot slice(%lld, %lld), negative indexes not supported",
                        (long long)start, (long long)end);
    if (start > end)
        return dc_error(c,
                        "cannot slice(%lld, %lld), start index must be less than or equal to end "
                        "index",
                        (long long)start, (long long)end);
    if ((int64_t)l->n < end)
        return dc_error(c, "cannot slice(%lld, %lld), list is length %u", (long long)start,
                        (long long)end, (unsigned)l->n);
    CHARGE(c, (uint64_t)(end - start));
    dc_list *r = new_list(c, (uint64_t)(end - start));
    if (!r)
        return dc_oom(c);
    if (end > start)
        memcpy(r->v, l->v + start, (size_t)(end - start) * sizeof(dc_val));
    return dc_listval(r);
}

/* Elements produced by flattening l to the given depth; *visited counts every element seen.
 * Recursion follows the nesting of the data, and stops at depth 0. */
static uint64_t flat_count(const dc_list *l, int64_t depth, uint64_t *visited)
{
    uint64_t k = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        (*visited)++;
        if (l->v[i].k == DC_K_LIST && depth > 0)
            k += flat_count(l->v[i].u.l, depth - 1, visited);
        else
            k++;
    }
    return k;
}

static void flat_fill(const dc_list *l, int64_t depth, dc_val *out, uint64_t *k)
{
    for (uint32_t i = 0; i < l->n; i++) {
        if (l->v[i].k == DC_K_LIST && depth > 0)
            flat_fill(l->v[i].u.l, depth - 1, out, k);
        else
            out[(*k)++] = l->v[i];
    }
}

static dc_val do_flatten(dc_ectx *c, dc_val list, int64_t depth)
{
    if (depth < 0)
        return dc_error(c, "level must be non-negative");
    uint64_t visited = 0;
    uint64_t total = flat_count(list.u.l, depth, &visited);
    CHARGE(c, visited);
    dc_list *r = new_list(c, total);
    if (!r)
        return dc_oom(c);
    uint64_t k = 0;
    flat_fill(list.u.l, depth, r->v, &k);
    return dc_listval(r);
}

static dc_val fn_flatten1(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]))
        return dc_err_no_overload(c);
    return do_flatten(c, a[0], 1);
}

static dc_val fn_flatten2(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]) || a[1].k != DC_K_INT)
        return dc_err_no_overload(c);
    return do_flatten(c, a[0], a[1].u.i);
}

static dc_val fn_distinct(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]))
        return dc_err_no_overload(c);
    const dc_list *l = a[0].u.l;
    CHARGE(c, l->n);
    if (l->n == 0)
        return a[0];
    dc_list *r = new_list(c, l->n);
    if (!r)
        return dc_oom(c);
    uint32_t k = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        bool seen = false;
        uint32_t j = 0;
        for (; j < k && !seen; j++)
            seen = equal(c, l->v[i], r->v[j]);
        CHARGE(c, j);
        if (!seen)
            r->v[k++] = l->v[i];
    }
    r->n = k;
    return dc_listval(r);
}

static dc_val fn_range(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (a[0].k != DC_K_INT)
        return dc_err_no_overload(c);
    int64_t cnt = a[0].u.i > 0 ? a[0].u.i : 0;
    CHARGE(c, (uint64_t)cnt);
    dc_list *r = new_list(c, (uint64_t)cnt);
    if (!r)
        return dc_oom(c);
    for (int64_t i = 0; i < cnt; i++)
        r->v[i] = dc_int(i);
    return dc_listval(r);
}

static dc_val fn_reverse(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]))
        return dc_err_no_overload(c);
    const dc_list *l = a[0].u.l;
    CHARGE(c, l->n);
    dc_list *r = new_list(c, l->n);
    if (!r)
        return dc_oom(c);
    for (uint32_t i = 0; i < l->n; i++)
        r->v[i] = l->v[l->n - 1 - i];
    return dc_listval(r);
}

/* Stable merge sort of the indices idx[0..n) by keys (less: Compare == -1). Returns the number
 * of comparisons made. */
static uint64_t sort_indices(dc_ectx *c, const dc_val *keys, uint32_t *idx, uint32_t *tmp,
                             uint32_t n)
{
    uint64_t cmps = 0;
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                cmps++;
                /* Take from the right only when it is strictly less: stability. */
                if (compare(c, keys[idx[j]], keys[idx[i]]) == -1)
                    tmp[k++] = idx[j++];
                else
                    tmp[k++] = idx[i++];
            }
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
        if (width > UINT32_MAX / 2)
            break;
    }
    return cmps;
}

static dc_val sort_by_keys(dc_ectx *c, dc_val list, dc_val keys)
{
    const dc_list *l = list.u.l, *kl = keys.u.l;
    if (l->n != kl->n)
        return dc_error(c,
                        "@sortByAssociatedKeys() expected a list of the same size as the associated "
                        "keys list, but got %u and %u elements respectively",
                        (unsigned)l->n, (unsigned)kl->n);
    if (l->n == 0)
        return list;
    if (!comparable(kl->v[0]))
        return dc_error(c, "list elements must be comparable");
    for (uint32_t i = 0; i < kl->n; i++)
        if (kl->v[i].k != kl->v[0].k)
            return dc_error(c, "list elements must have the same type");
    CHARGE(c, l->n);
    uint32_t *idx = dc_ealloc(c, (size_t)l->n * sizeof *idx);
    uint32_t *tmp = dc_ealloc(c, (size_t)l->n * sizeof *tmp);
    if (!idx || !tmp)
        return dc_oom(c);
    for (uint32_t i = 0; i < l->n; i++)
        idx[i] = i;
    CHARGE(c, sort_indices(c, kl->v, idx, tmp, l->n));
    dc_list *r = new_list(c, l->n);
    if (!r)
        return dc_oom(c);
    for (uint32_t i = 0; i < l->n; i++)
        r->v[i] = l->v[idx[i]];
    return dc_listval(r);
}

static dc_val fn_sort(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]))
        return dc_err_no_overload(c);
    return sort_by_keys(c, a[0], a[0]);
}

static dc_val fn_sort_by_keys(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]) || !is_list(a[1]))
        return dc_err_no_overload(c);
    return sort_by_keys(c, a[0], a[1]);
}

/* ---- ext.Sets. */

/* list.Contains(item) for every item of sub. */
static bool sets_contains(dc_ectx *c, const dc_list *l, const dc_list *sub)
{
    for (uint32_t i = 0; i < sub->n; i++) {
        bool found = false;
        for (uint32_t j = 0; j < l->n && !found; j++)
            found = equal(c, sub->v[i], l->v[j]);
        if (!found)
            return false;
    }
    return true;
}

static uint64_t sets_cost(const dc_list *x, const dc_list *y, double factor)
{
    return (uint64_t)((double)((uint64_t)x->n * (uint64_t)y->n) * factor);
}

static dc_val fn_sets_contains(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]) || !is_list(a[1]))
        return dc_err_no_overload(c);
    CHARGE(c, sets_cost(a[0].u.l, a[1].u.l, 1));
    return dc_bool(sets_contains(c, a[0].u.l, a[1].u.l));
}

static dc_val fn_sets_equivalent(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]) || !is_list(a[1]))
        return dc_err_no_overload(c);
    CHARGE(c, sets_cost(a[0].u.l, a[1].u.l, 2));
    return dc_bool(sets_contains(c, a[0].u.l, a[1].u.l) && sets_contains(c, a[1].u.l, a[0].u.l));
}

static dc_val fn_sets_intersects(dc_ectx *c, const dc_val *a, uint32_t n)
{
    (void)n;
    if (!is_list(a[0]) || !is_list(a[1]))
        return dc_err_no_overload(c);
    CHARGE(c, sets_cost(a[0].u.l, a[1].u.l, 1));
    const dc_list *x = a[0].u.l, *y = a[1].u.l;
    for (uint32_t i = 0; i < x->n; i++)
        for (uint32_t j = 0; j < y->n; j++)
            if (equal(c, x->v[i], y->v[j]))
                return dc_bool(true);
    return dc_bool(false);
}

const dc_builtin dc_lib_lists[] = {
    {"slice", true, 3, 0, fn_slice},
    {"flatten", true, 1, 0, fn_flatten1},
    {"flatten", true, 2, 0, fn_flatten2},
    {"distinct", true, 1, 0, fn_distinct},
    {"lists.range", false, 1, 0, fn_range},
    {"reverse", true, 1, 0, fn_reverse},
    {"sort", true, 1, 0, fn_sort},
    {"@sortByAssociatedKeys", true, 2, 0, fn_sort_by_keys},
    {"isSorted", true, 1, 0, fn_is_sorted},
    {"sum", true, 1, 0, fn_sum},
    {"min", true, 1, 0, fn_min},
    {"max", true, 1, 0, fn_max},
    {"includes", true, 2, 0, fn_includes},
    {"sets.contains", false, 2, 0, fn_sets_contains},
    {"sets.equivalent", false, 2, 0, fn_sets_equivalent},
    {"sets.intersects", false, 2, 0, fn_sets_intersects},
};
const uint32_t dc_lib_lists_count = (uint32_t)DC_COUNTOF(dc_lib_lists);
