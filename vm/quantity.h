/*
 * quantity.h: the value type and operations behind the Kubernetes CEL library
 * "kubernetes.Quantity" (quantity(), isQuantity(), compareTo/isGreaterThan/isLessThan, add/sub
 * with a Quantity or an int, asInteger/isInteger, asApproximateFloat, sign, ==) and behind device
 * capacities of resource.k8s.io, which Kubernetes parses with the same resource.ParseQuantity.
 * Self-contained: standard headers only, no allocation, no global state, no floating point except
 * in dc_qty_approx_float.
 *
 * Reference behaviour (kubernetes/apimachinery pkg/api/resource quantity.go, amount.go, math.go,
 * suffix.go; kubernetes/apiserver pkg/cel/library/quantity.go and pkg/cel/quantity.go):
 *   - the scanner parseQuantityString and ParseQuantity, with their three error texts, the
 *     int64 fast path / inf.Dec slow path split, rounding of anything finer than 1n away from
 *     zero, the silent cap of BinarySI values at 2^63-1, and BinarySI in (0,1) becoming DecimalSI;
 *   - Cmp/Equal (numeric), Add/Sub (exact; never an error in Kubernetes), Sign, AsInt64,
 *     AsApproximateFloat64 and String (CanonicalizeBytes).
 *
 * REPRESENTATION. A value is V = m * 10^e with a signed 128-bit significand m and
 *   e  = the smallest integer >= -9 such that V / 10^e is an integer of magnitude < 10^38.
 * It exists for every V that is a multiple of 10^-9 (1n) with at most 38 significant digits and
 * is unique, so (m, e) is canonical. Every value Kubernetes produces is a multiple of 1n: parsing
 * rounds finer values up to 1n (inf.Round(…, 9, RoundUp)), int64 amounts have scale >= -9, and
 * sums and differences of multiples of 1n are multiples of 1n. Hence the representation is exact
 * for every such value with <= 38 significant digits and a canonical exponent <= 2^30.
 * ORDER PROOF. If e = -9 then |V| < 10^29. If e > -9 then 10^37 <= |m| < 10^38 (otherwise
 * m*10 would still be < 10^38 at exponent e-1, contradicting minimality), so
 * |V| is in [10^(37+e), 10^(38+e)). These magnitude ranges are disjoint and increase with e, so
 * for two non-zero values of the same sign a larger e means a larger magnitude. Comparison is
 * therefore: same e -> compare m; else by sign; else by e (times the sign). Equality is (m, e)
 * equality. No alignment, no division, no allocation.
 *
 * KUBERNETES STATE. Some results depend on how Kubernetes stores the value, not on the value:
 *   - dec:    Kubernetes holds an inf.Dec (slow parse path, Add/Sub overflow of int64, or a
 *             Cmp against an inf.Dec). AsInt64 then always fails, so asInteger()/isInteger()
 *             fail even for "1Pi", "0.5Gi" or "12345678901234567890".
 *   - kscale: Kubernetes' base-10 scale (int64Amount.scale, or -inf.Dec.Scale()). AsInt64 fails
 *             for a negative scale ("1.000", "1000m"), and AsApproximateFloat64 computes
 *             float64(unscaled) * math.Pow10(scale), so quantity("0.3") gives
 *             0.30000000000000004 and quantity("0e400") gives NaN.
 *   - fmt:    Format (the suffix family), which String() uses.
 *   - boxed:  the CEL value is a *apiservercel.Quantity (results of add/sub). Kubernetes'
 *             Quantity.Equal type-asserts the right operand to the non-pointer type, so `x == y`
 *             is false whenever y is such a result (see dc_qty_cel_eq).
 * These are tracked exactly through parse, add and sub.
 *
 * LIMITS (where dracel returns dc_qty_err_range and Kubernetes would go on with big numbers):
 * more than 38 significant digits after rounding to 1n, a canonical exponent above 2^30, a
 * Kubernetes scale outside +-2^30, an exponent whose scale arithmetic overflows Kubernetes'
 * int32 (there Kubernetes computes garbage or hangs), or an input longer than 2^30 bytes.
 */
#ifndef DC_QUANTITY_H
#define DC_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

__extension__ typedef __int128 dc_qty_i128;

/* Kubernetes' Format: the suffix family a quantity was written with. */
typedef enum dc_qty_fmt {
    DC_QTY_DECIMAL_SI = 0,       /* "", n u m k M G T P E */
    DC_QTY_BINARY_SI = 1,        /* Ki Mi Gi Ti Pi Ei */
    DC_QTY_DECIMAL_EXPONENT = 2  /* e<int> / E<int>; also quantity.add(int) operands */
} dc_qty_fmt;

/* A plain value; copy freely. Fields are read-only for callers except `boxed` (see above). */
typedef struct dc_qty {
    dc_qty_i128 m;   /* V = m * 10^e, canonical (see the header comment) */
    int32_t e;       /* >= -9 */
    int32_t kscale;  /* Kubernetes' scale; V / 10^kscale is Kubernetes' unscaled integer */
    uint8_t fmt;     /* dc_qty_fmt */
    uint8_t dec;     /* 1: Kubernetes holds an inf.Dec; 0: an int64Amount (V/10^kscale fits) */
    uint8_t boxed;   /* 1: CEL *Quantity (add/sub result); 0: quantity() / capacity value */
} dc_qty;

/* Error texts. Parse errors are Kubernetes' ErrFormatWrong, ErrNumeric and ErrSuffix
 * (quantity.go), the integer one is the CEL library's, the range one is dracel's own. */
extern const char dc_qty_err_format[];
extern const char dc_qty_err_numeric[];
extern const char dc_qty_err_suffix[];
extern const char dc_qty_err_integer[];
extern const char dc_qty_err_range[];

/* Largest dc_qty_format result plus its NUL. */
#define DC_QTY_FMT_MAX 64

/* resource.ParseQuantity(s[0..n)). NULL on success, else one of the dc_qty_err_* texts. */
const char *dc_qty_parse(const char *s, size_t n, dc_qty *out);

/* isQuantity(): dc_qty_parse succeeds. */
bool dc_qty_is_valid(const char *s, size_t n);

/* Quantity.Cmp, a pure function: -1, 0 or 1. Exact for all values, branch-light. */
static inline int dc_qty_cmp(const dc_qty *a, const dc_qty *b)
{
    if (a->e == b->e)
        return (a->m > b->m) - (a->m < b->m);
    int sa = (a->m > 0) - (a->m < 0), sb = (b->m > 0) - (b->m < 0);
    if (sa != sb)
        return (sa > sb) - (sa < sb);
    return a->e > b->e ? sa : -sa;
}

/* Numeric equality, Quantity.Equal: 1Gi == 1024Mi, 200M == 0.2G. */
static inline bool dc_qty_eq(const dc_qty *a, const dc_qty *b)
{
    return a->m == b->m && a->e == b->e;
}

/* CEL `lhs == rhs` as Kubernetes evaluates it: numeric, but false when rhs is boxed. */
bool dc_qty_cel_eq(const dc_qty *lhs, const dc_qty *rhs);

/* CEL recv.compareTo(arg) / isLessThan / isGreaterThan: Cmp through a *Quantity, which in
 * Kubernetes promotes the receiver to inf.Dec in place when either side is an inf.Dec. */
int dc_qty_compare_to(dc_qty *recv, const dc_qty *arg);

/* CEL a.add(b) / a.sub(b) (Quantity.Add / Sub on a copy of a): exact. The result format is a's,
 * or b's when a is zero; the result is boxed. Only error: dc_qty_err_range. */
const char *dc_qty_add(const dc_qty *a, const dc_qty *b, dc_qty *out);
const char *dc_qty_sub(const dc_qty *a, const dc_qty *b, dc_qty *out);

/* resource.NewQuantity(v, DecimalExponent): the operand of add(int) / sub(int). */
dc_qty dc_qty_from_int(int64_t v);

/* asInteger(): Quantity.AsInt64, or dc_qty_err_integer when it fails. */
const char *dc_qty_as_int64(const dc_qty *q, int64_t *out);

/* isInteger(): AsInt64 succeeds. */
bool dc_qty_is_integer(const dc_qty *q);

/* asApproximateFloat(): AsApproximateFloat64, bit for bit. */
double dc_qty_approx_float(const dc_qty *q);

/* sign(): -1, 0 or 1. */
static inline int dc_qty_sign(const dc_qty *q)
{
    return (q->m > 0) - (q->m < 0);
}

/* Quantity.String() (CanonicalizeBytes): writes at most cap-1 bytes and a NUL when cap > 0 and
 * returns the full length, like snprintf. Never longer than DC_QTY_FMT_MAX - 1. */
size_t dc_qty_format(const dc_qty *q, char *buf, size_t cap);

#endif
