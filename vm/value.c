/*
 * value.c: the semantics of CEL values shared by both VMs: equality, ordering, map lookup, and
 * the constructors that allocate in the evaluation arena.
 *
 * Numeric comparison across int, uint and double follows cel-go: int and uint compare exactly;
 * a double compares against an int or uint by value (a NaN is unequal to everything and cannot
 * be ordered). Map keys unify numerically (1, 1u and 1.0 address the same entry).
 */
#include "vm.h"
#include "arena.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


const char *const dc_typename_str[DC_T__COUNT] = {
    "null_type", "bool", "int", "uint", "double", "string", "bytes", "list", "map",
    "type",      "optional_type", "kubernetes.Quantity", "kubernetes.Semver",
};

size_t dc_utf8_count(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += ((unsigned char)s[i] & 0xC0) != 0x80;
    return count;
}

/* ---- Numeric comparison. Each returns -1, 0, 1, or 2 for "unordered" (NaN). */

static int cmp_i_u(int64_t a, uint64_t b)
{
    if (a < 0)
        return -1;
    return (uint64_t)a < b ? -1 : (uint64_t)a > b;
}

static int cmp_d_d(double a, double b)
{
    if (isnan(a) || isnan(b))
        return 2;
    return a < b ? -1 : a > b;
}

/* double vs int64 / uint64: cel-go converts the integer to a double and compares doubles, so
 * `9223372036854775807 == 9223372036854775807.0` is true and `dyn(9223372036854775807) <
 * 9223372036854775808.0` is false (reference/cel-edges.md). */
static int cmp_d_i(double a, int64_t b)
{
    return cmp_d_d(a, (double)b);
}

static int cmp_d_u(double a, uint64_t b)
{
    return cmp_d_d(a, (double)b);
}

static bool is_num(dc_kind k)
{
    return k == DC_K_INT || k == DC_K_UINT || k == DC_K_DOUBLE;
}

/* Compare two numeric values. */
static int num_cmp(dc_val a, dc_val b)
{
    switch (a.k * 16 + b.k) {
    case DC_K_INT * 16 + DC_K_INT: return a.u.i < b.u.i ? -1 : a.u.i > b.u.i;
    case DC_K_UINT * 16 + DC_K_UINT: return a.u.u < b.u.u ? -1 : a.u.u > b.u.u;
    case DC_K_DOUBLE * 16 + DC_K_DOUBLE: return cmp_d_d(a.u.d, b.u.d);
    case DC_K_INT * 16 + DC_K_UINT: return cmp_i_u(a.u.i, b.u.u);
    case DC_K_UINT * 16 + DC_K_INT: return -cmp_i_u(b.u.i, a.u.u);
    case DC_K_DOUBLE * 16 + DC_K_INT: return cmp_d_i(a.u.d, b.u.i);
    case DC_K_INT * 16 + DC_K_DOUBLE: { int r = cmp_d_i(b.u.d, a.u.i); return r == 2 ? 2 : -r; }
    case DC_K_DOUBLE * 16 + DC_K_UINT: return cmp_d_u(a.u.d, b.u.u);
    case DC_K_UINT * 16 + DC_K_DOUBLE: { int r = cmp_d_u(b.u.d, a.u.u); return r == 2 ? 2 : -r; }
    default: return 2;
    }
}

static int bytes_cmp(const dc_str *a, const dc_str *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int r = memcmp(a->data, b->data, n);
    if (r)
        return r < 0 ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* Equality without errors: true, false. Used by equality, `in` and map keys. Errors are
 * handled by the caller (dc_val_eq). */
static bool val_equal(dc_ectx *c, dc_val a, dc_val b, bool *err, dc_val *errval);

static bool list_equal(dc_ectx *c, const dc_list *a, const dc_list *b, bool *err, dc_val *ev)
{
    if (a->n != b->n)
        return false;
    /* cel-go: lists of equal size compare element by element; a false element decides even
     * if another element errors. */
    bool any_err = false;
    for (uint32_t i = 0; i < a->n; i++) {
        bool e = false;
        if (!val_equal(c, a->v[i], b->v[i], &e, ev)) {
            if (!e)
                return false;
            any_err = true;
        }
    }
    if (any_err)
        *err = true;
    return !any_err;
}

static bool map_equal(dc_ectx *c, const dc_map *a, const dc_map *b, bool *err, dc_val *ev)
{
    if (a->n != b->n)
        return false;
    bool any_err = false;
    for (uint32_t i = 0; i < a->n; i++) {
        const dc_val *bv = dc_map_get(b, a->keys[i]);
        if (!bv)
            return false;
        bool e = false;
        if (!val_equal(c, a->vals[i], *bv, &e, ev)) {
            if (!e)
                return false;
            any_err = true;
        }
    }
    if (any_err)
        *err = true;
    return !any_err;
}

static bool val_equal(dc_ectx *c, dc_val a, dc_val b, bool *err, dc_val *ev)
{
    if (a.k == DC_K_ERROR || b.k == DC_K_ERROR) {
        *err = true;
        *ev = a.k == DC_K_ERROR ? a : b;
        return false;
    }
    if (is_num(a.k) && is_num(b.k))
        return num_cmp(a, b) == 0;
    if (a.k != b.k) {
        /* cel-go: a Semver compared with anything else is "no such overload" (Semver.Equal
         * rejects other types), while other mismatched kinds are simply unequal. */
        if (a.k == DC_K_SEMVER) {
            *err = true;
            *ev = dc_err_no_overload(c);
        }
        return false;
    }
    switch (a.k) {
    case DC_K_NULL: return true;
    case DC_K_BOOL: return a.u.b == b.u.b;
    case DC_K_STRING:
    case DC_K_BYTES: return a.u.s->len == b.u.s->len && !memcmp(a.u.s->data, b.u.s->data, a.u.s->len);
    case DC_K_TYPE: return a.u.t == b.u.t;
    case DC_K_LIST: return list_equal(c, a.u.l, b.u.l, err, ev);
    case DC_K_MAP: return map_equal(c, a.u.m, b.u.m, err, ev);
    case DC_K_OPTIONAL:
        if (!a.u.opt || !b.u.opt)
            return !a.u.opt && !b.u.opt;
        return val_equal(c, *a.u.opt, *b.u.opt, err, ev);
    case DC_K_QUANTITY: return dc_qty_cel_eq(&a.u.q->q, &b.u.q->q);
    case DC_K_SEMVER: return dc_semver_eq(&a.u.sv->v, &b.u.sv->v);
    default: return false;
    }
}

dc_val dc_val_eq(dc_ectx *c, dc_val a, dc_val b)
{
    bool err = false;
    dc_val ev;
    bool r = val_equal(c, a, b, &err, &ev);
    return err ? ev : dc_bool(r);
}

bool dc_val_cmp(dc_ectx *c, dc_val a, dc_val b, int *out, dc_val *err)
{
    if (a.k == DC_K_ERROR || b.k == DC_K_ERROR) {
        *err = a.k == DC_K_ERROR ? a : b;
        return false;
    }
    if (is_num(a.k) && is_num(b.k)) {
        int r = num_cmp(a, b);
        if (r == 2) {
            *err = dc_error(c, "NaN values cannot be ordered");
            return false;
        }
        *out = r;
        return true;
    }
    if (a.k == b.k) {
        switch (a.k) {
        case DC_K_BOOL: *out = (int)a.u.b - (int)b.u.b; return true;
        /* UTF-8 byte order is code point order, as cel-go compares strings. */
        case DC_K_STRING:
        case DC_K_BYTES: *out = bytes_cmp(a.u.s, b.u.s); return true;
        default: break;
        }
    }
    *err = dc_err_no_overload(c);
    return false;
}

/* ---- Maps. */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* A hash consistent with key equality: numbers hash by value when they are integral. */
static uint64_t key_hash(dc_val k)
{
    switch (k.k) {
    case DC_K_INT: return mix((uint64_t)k.u.i);
    case DC_K_UINT: return k.u.u <= INT64_MAX ? mix(k.u.u) : mix(k.u.u) ^ 0x5555;
    case DC_K_DOUBLE:
        if (k.u.d >= -9223372036854775808.0 && k.u.d < 9223372036854775808.0 &&
            k.u.d == trunc(k.u.d))
            return mix((uint64_t)(int64_t)k.u.d);
        if (k.u.d >= 0 && k.u.d < 18446744073709551616.0 && k.u.d == trunc(k.u.d))
            return mix((uint64_t)k.u.d) ^ 0x5555;
        return 0x1234;
    case DC_K_BOOL: return k.u.b ? 0x77 : 0x78;
    case DC_K_STRING: {
        uint64_t h = 1469598103934665603ULL;
        for (uint32_t i = 0; i < k.u.s->len; i++)
            h = (h ^ (unsigned char)k.u.s->data[i]) * 1099511628211ULL;
        return mix(h);
    }
    default: return 0x99;
    }
}

static bool key_eq(dc_val a, dc_val b)
{
    if (is_num(a.k) && is_num(b.k))
        return num_cmp(a, b) == 0;
    if (a.k != b.k)
        return false;
    switch (a.k) {
    case DC_K_BOOL: return a.u.b == b.u.b;
    case DC_K_STRING: return a.u.s->len == b.u.s->len && !memcmp(a.u.s->data, b.u.s->data, a.u.s->len);
    default: return false;
    }
}

const dc_val *dc_map_get(const dc_map *m, dc_val key)
{
    if (m->index_cap) {
        uint32_t mask = m->index_cap - 1;
        for (uint32_t i = (uint32_t)key_hash(key) & mask;; i = (i + 1) & mask) {
            uint32_t slot = m->index[i];
            if (!slot)
                return NULL;
            if (key_eq(m->keys[slot - 1], key))
                return &m->vals[slot - 1];
        }
    }
    for (uint32_t i = 0; i < m->n; i++)
        if (key_eq(m->keys[i], key))
            return &m->vals[i];
    return NULL;
}

static bool valid_key(dc_val k)
{
    return k.k == DC_K_INT || k.k == DC_K_UINT || k.k == DC_K_BOOL || k.k == DC_K_STRING;
}

dc_val dc_map_build(dc_ectx *c, const dc_val *keys, const dc_val *vals, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (keys[i].k == DC_K_ERROR)
            return keys[i];
        if (vals[i].k == DC_K_ERROR)
            return vals[i];
        if (!valid_key(keys[i]))
            return dc_error(c, "unsupported key type");
    }
    dc_map *m = dc_ealloc(c, sizeof *m);
    dc_val *k = dc_ealloc(c, (n ? n : 1) * sizeof *k);
    dc_val *v = dc_ealloc(c, (n ? n : 1) * sizeof *v);
    if (!m || !k || !v)
        return dc_oom(c);
    uint32_t cnt = 0;
    uint32_t cap = 0;
    uint32_t *index = NULL;
    if (n >= DC_MAP_HASH_MIN) {
        cap = 16;
        while (cap < n * 2)
            cap *= 2;
        index = dc_ealloc(c, cap * sizeof *index);
        if (!index)
            return dc_oom(c);
        memset(index, 0, cap * sizeof *index);
    }
    for (uint32_t i = 0; i < n; i++) {
        /* A repeated key is an error: the conformance suite decides this one against cel-go,
         * which keeps the last value (reference/cel-edges.md; docs/language.md). */
        uint32_t found = UINT32_MAX;
        if (index) {
            uint32_t mask = cap - 1;
            uint32_t j = (uint32_t)key_hash(keys[i]) & mask;
            for (; index[j]; j = (j + 1) & mask)
                if (key_eq(k[index[j] - 1], keys[i])) {
                    found = index[j] - 1;
                    break;
                }
            if (found == UINT32_MAX)
                index[j] = cnt + 1;
        } else {
            for (uint32_t j = 0; j < cnt; j++)
                if (key_eq(k[j], keys[i])) {
                    found = j;
                    break;
                }
        }
        if (found != UINT32_MAX)
            return dc_error(c, "Failed with repeated key");
        k[cnt] = keys[i];
        v[cnt] = vals[i];
        cnt++;
    }
    m->n = cnt;
    m->flags = 0;
    m->keys = k;
    m->vals = v;
    m->index_cap = cap;
    m->index = index;
    return dc_mapval(m);
}

/* ---- Deep copy into an arena (for constants the compiler folds). */

static dc_str *copy_str(dc_arena *a, const dc_str *s)
{
    dc_str *d = dc_arena_alloc(a, sizeof *d + s->len + 1);
    if (!d)
        return NULL;
    d->len = s->len;
    memcpy(d->data, s->data, s->len + 1);
    return d;
}

bool dc_val_copy(dc_arena *a, dc_val v, dc_val *out, int depth)
{
    if (depth > DC_VALUE_MAX_DEPTH)
        return false;
    *out = v;
    switch (v.k) {
    case DC_K_STRING:
    case DC_K_BYTES:
        return (out->u.s = copy_str(a, v.u.s)) != NULL;
    case DC_K_LIST: {
        dc_list *l = dc_arena_alloc(a, sizeof *l + v.u.l->n * sizeof(dc_val));
        if (!l)
            return false;
        l->n = v.u.l->n;
        for (uint32_t i = 0; i < l->n; i++)
            if (!dc_val_copy(a, v.u.l->v[i], &l->v[i], depth + 1))
                return false;
        out->u.l = l;
        return true;
    }
    case DC_K_MAP: {
        const dc_map *m = v.u.m;
        dc_map *d = dc_arena_alloc(a, sizeof *d);
        dc_val *k = dc_arena_alloc(a, (m->n ? m->n : 1) * sizeof *k);
        dc_val *vv = dc_arena_alloc(a, (m->n ? m->n : 1) * sizeof *vv);
        uint32_t *idx = m->index_cap ? dc_arena_alloc(a, m->index_cap * sizeof *idx) : NULL;
        if (!d || !k || !vv || (m->index_cap && !idx))
            return false;
        *d = *m;
        for (uint32_t i = 0; i < m->n; i++)
            if (!dc_val_copy(a, m->keys[i], &k[i], depth + 1) ||
                !dc_val_copy(a, m->vals[i], &vv[i], depth + 1))
                return false;
        if (idx)
            memcpy(idx, m->index, m->index_cap * sizeof *idx);
        d->keys = k;
        d->vals = vv;
        d->index = idx;
        out->u.m = d;
        return true;
    }
    case DC_K_OPTIONAL: {
        if (!v.u.opt)
            return true;
        dc_val *p = dc_arena_alloc(a, sizeof *p);
        if (!p || !dc_val_copy(a, *v.u.opt, p, depth + 1))
            return false;
        out->u.opt = p;
        return true;
    }
    case DC_K_QUANTITY: {
        dc_qtyobj *o = dc_arena_alloc(a, sizeof *o);
        if (!o || !(o->text = copy_str(a, v.u.q->text)))
            return false;
        o->q = v.u.q->q;
        out->u.q = o;
        return true;
    }
    case DC_K_SEMVER: {
        dc_semverobj *o = dc_arena_alloc(a, sizeof *o);
        if (!o || !(o->text = copy_str(a, v.u.sv->text)))
            return false;
        o->v = v.u.sv->v;
        /* pre and build point into the text: rebase them onto the copy. */
        const char *old = v.u.sv->text->data;
        if (o->v.pre)
            o->v.pre = o->text->data + (o->v.pre - old);
        if (o->v.build)
            o->v.build = o->text->data + (o->v.build - old);
        out->u.sv = o;
        return true;
    }
    case DC_K_ERROR: {
        dc_err *e = dc_arena_alloc(a, sizeof *e);
        char *msg = e ? dc_arena_strndup(a, v.u.e->msg, strlen(v.u.e->msg)) : NULL;
        if (!msg)
            return false;
        e->msg = msg;
        e->flags = v.u.e->flags;
        out->u.e = e;
        return true;
    }
    default:
        return true;
    }
}
