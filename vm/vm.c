/*
 * vm.c: the scalar VM, the reference evaluator: one activation, one value stack.
 *
 * Invariants: the verifier has checked operand ranges, jump targets and stack depth, so the
 * loop does no bounds checks; every value an instruction produces is a CEL value or an error
 * value (errors never abort the loop, except out-of-memory and the cost limit, which end the
 * evaluation with that error). Operator semantics follow cel-go (docs/language.md): int64 and
 * uint64 arithmetic report overflow, && and || absorb errors when the other side decides.
 */
#include "vm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *kind_name(dc_val v)
{
    switch (v.k) {
    case DC_K_NULL: return "null_type";
    case DC_K_BOOL: return "bool";
    case DC_K_INT: return "int";
    case DC_K_UINT: return "uint";
    case DC_K_DOUBLE: return "double";
    case DC_K_STRING: return "string";
    case DC_K_BYTES: return "bytes";
    case DC_K_LIST: return "list";
    case DC_K_MAP: return "map";
    case DC_K_TYPE: return "type";
    case DC_K_OPTIONAL: return "optional_type";
    case DC_K_QUANTITY: return "kubernetes.Quantity";
    case DC_K_SEMVER: return "kubernetes.Semver";
    default: return "error";
    }
}

/* ---- Arithmetic. */

static dc_val concat(dc_ectx *c, dc_val a, dc_val b)
{
    size_t n = (size_t)a.u.s->len + b.u.s->len;
    if (!dc_cost(c, (n + 9) / 10))
        return dc_err_overflow(c);
    dc_str *s = dc_str_alloc(c, n);
    if (!s)
        return dc_oom(c);
    memcpy(s->data, a.u.s->data, a.u.s->len);
    memcpy(s->data + a.u.s->len, b.u.s->data, b.u.s->len);
    dc_val v = a;
    v.u.s = s;
    return v;
}

static dc_val list_concat(dc_ectx *c, const dc_list *a, const dc_list *b)
{
    if ((uint64_t)a->n + b->n > UINT32_MAX / 2)
        return dc_oom(c);
    dc_list *l = dc_list_new(c, a->n + b->n);
    if (!l)
        return dc_oom(c);
    memcpy(l->v, a->v, a->n * sizeof(dc_val));
    memcpy(l->v + a->n, b->v, b->n * sizeof(dc_val));
    return dc_listval(l);
}

/* cel-go's errUintOverflow. */
static const dc_err err_uint_overflow = {"unsigned integer overflow", 0};

static dc_val arith(dc_ectx *c, dc_op op, dc_val a, dc_val b)
{
    if (a.k == DC_K_ERROR)
        return a;
    if (b.k == DC_K_ERROR)
        return b;
    if (a.k != b.k)
        return dc_err_no_overload(c);
    switch (a.k) {
    case DC_K_INT: {
        int64_t r;
        switch (op) {
        case DC_OP_ADD: if (__builtin_add_overflow(a.u.i, b.u.i, &r)) return dc_err_overflow(c); return dc_int(r);
        case DC_OP_SUB: if (__builtin_sub_overflow(a.u.i, b.u.i, &r)) return dc_err_overflow(c); return dc_int(r);
        case DC_OP_MUL: if (__builtin_mul_overflow(a.u.i, b.u.i, &r)) return dc_err_overflow(c); return dc_int(r);
        case DC_OP_DIV:
            if (b.u.i == 0) return dc_err_div_zero(c);
            if (a.u.i == INT64_MIN && b.u.i == -1) return dc_err_overflow(c);
            return dc_int(a.u.i / b.u.i);
        case DC_OP_MOD:
            if (b.u.i == 0) return dc_err_mod_zero(c);
            if (a.u.i == INT64_MIN && b.u.i == -1) return dc_err_overflow(c);
            return dc_int(a.u.i % b.u.i);
        default: break;
        }
        break;
    }
    case DC_K_UINT: {
        uint64_t r;
        switch (op) {
        case DC_OP_ADD: if (__builtin_add_overflow(a.u.u, b.u.u, &r)) return dc_errval(&err_uint_overflow); return dc_uint(r);
        case DC_OP_SUB: if (__builtin_sub_overflow(a.u.u, b.u.u, &r)) return dc_errval(&err_uint_overflow); return dc_uint(r);
        case DC_OP_MUL: if (__builtin_mul_overflow(a.u.u, b.u.u, &r)) return dc_errval(&err_uint_overflow); return dc_uint(r);
        case DC_OP_DIV: if (b.u.u == 0) return dc_err_div_zero(c); return dc_uint(a.u.u / b.u.u);
        case DC_OP_MOD: if (b.u.u == 0) return dc_err_mod_zero(c); return dc_uint(a.u.u % b.u.u);
        default: break;
        }
        break;
    }
    case DC_K_DOUBLE:
        switch (op) {
        case DC_OP_ADD: return dc_double(a.u.d + b.u.d);
        case DC_OP_SUB: return dc_double(a.u.d - b.u.d);
        case DC_OP_MUL: return dc_double(a.u.d * b.u.d);
        case DC_OP_DIV: return dc_double(a.u.d / b.u.d);
        default: break;
        }
        break;
    case DC_K_STRING:
    case DC_K_BYTES:
        if (op == DC_OP_ADD)
            return concat(c, a, b);
        break;
    case DC_K_LIST:
        if (op == DC_OP_ADD)
            return list_concat(c, a.u.l, b.u.l);
        break;
    default:
        break;
    }
    return dc_err_no_overload(c);
}

static dc_val negate(dc_ectx *c, dc_val a)
{
    switch (a.k) {
    case DC_K_ERROR: return a;
    case DC_K_INT: return a.u.i == INT64_MIN ? dc_err_overflow(c) : dc_int(-a.u.i);
    case DC_K_DOUBLE: return dc_double(-a.u.d);
    default: return dc_err_no_overload(c);
    }
}

static dc_val compare(dc_ectx *c, dc_op op, dc_val a, dc_val b)
{
    if (op == DC_OP_EQ || op == DC_OP_NE) {
        dc_val r = dc_val_eq(c, a, b);
        if (r.k == DC_K_BOOL && op == DC_OP_NE)
            r.u.b = !r.u.b;
        return r;
    }
    int cmp;
    dc_val err;
    if (!dc_val_cmp(c, a, b, &cmp, &err))
        return err;
    switch (op) {
    case DC_OP_LT: return dc_bool(cmp < 0);
    case DC_OP_LE: return dc_bool(cmp <= 0);
    case DC_OP_GT: return dc_bool(cmp > 0);
    default: return dc_bool(cmp >= 0);
    }
}

/* ---- Logic: cel-go's commutative && and ||. */

static dc_val logic(dc_ectx *c, bool is_and, dc_val a, dc_val b)
{
    bool decide = !is_and; /* the value that decides: false for &&, true for || */
    if ((a.k == DC_K_BOOL && a.u.b == decide) || (b.k == DC_K_BOOL && b.u.b == decide))
        return dc_bool(decide);
    if (a.k == DC_K_BOOL && b.k == DC_K_BOOL)
        return dc_bool(!decide);
    if (a.k == DC_K_ERROR)
        return a;
    if (b.k == DC_K_ERROR)
        return b;
    return dc_err_no_overload(c);
}

/* ---- Access. */

static void key_text(char *buf, size_t cap, dc_val k)
{
    switch (k.k) {
    case DC_K_STRING: snprintf(buf, cap, "%s", k.u.s->data); break;
    case DC_K_INT: snprintf(buf, cap, "%lld", (long long)k.u.i); break;
    case DC_K_UINT: snprintf(buf, cap, "%llu", (unsigned long long)k.u.u); break;
    case DC_K_BOOL: snprintf(buf, cap, "%s", k.u.b ? "true" : "false"); break;
    case DC_K_DOUBLE: snprintf(buf, cap, "%g", k.u.d); break;
    default: snprintf(buf, cap, "%s", kind_name(k)); break;
    }
}

static dc_val opt_select(dc_ectx *c, dc_val x, const dc_str *f);
static dc_val opt_index(dc_ectx *c, dc_val x, dc_val k);

static dc_val no_such_key(dc_ectx *c, dc_val k)
{
    char buf[96];
    key_text(buf, sizeof buf, k);
    return dc_error(c, "no such key: %s", buf);
}

static const dc_map empty_map = {0, 0, 0, NULL, NULL, NULL};

static dc_val map_lookup(dc_ectx *c, const dc_map *m, dc_val key, bool *found)
{
    const dc_val *v = dc_map_get(m, key);
    if (v) {
        *found = true;
        return *v;
    }
    *found = false;
    if (m->flags & DC_MAPF_MISSING_EMPTY)
        return dc_mapval(&empty_map);
    return no_such_key(c, key);
}

/* The integer position a list index denotes, or an error. */
static bool list_pos(dc_ectx *c, const dc_list *l, dc_val k, uint32_t *pos, dc_val *err,
                     bool quiet)
{
    int64_t i;
    switch (k.k) {
    case DC_K_INT: i = k.u.i; break;
    case DC_K_UINT: i = k.u.u > INT64_MAX ? -1 : (int64_t)k.u.u; break;
    case DC_K_DOUBLE:
        if (k.u.d != trunc(k.u.d) || !(k.u.d >= -9.2e18 && k.u.d <= 9.2e18)) {
            if (!quiet)
                *err = dc_error(c, "unsupported index value %g in list", k.u.d);
            return false;
        }
        i = (int64_t)k.u.d;
        break;
    default:
        if (!quiet)
            *err = dc_error(c, "unsupported index type '%s' in list", kind_name(k));
        return false;
    }
    if (i < 0 || i >= (int64_t)l->n) {
        if (!quiet)
            *err = dc_error(c, "index out of bounds: %lld", (long long)i); /* cel-go's wording */
        return false;
    }
    *pos = (uint32_t)i;
    return true;
}

static dc_val index_val(dc_ectx *c, dc_val x, dc_val k)
{
    if (x.k == DC_K_ERROR)
        return x;
    if (k.k == DC_K_ERROR)
        return k;
    if (x.k == DC_K_OPTIONAL)
        return opt_index(c, x, k);
    if (x.k == DC_K_LIST) {
        uint32_t pos;
        dc_val err;
        if (!list_pos(c, x.u.l, k, &pos, &err, false))
            return err;
        return x.u.l->v[pos];
    }
    if (x.k == DC_K_MAP) {
        bool found;
        return map_lookup(c, x.u.m, k, &found);
    }
    return dc_err_no_overload(c);
}

static dc_val select_val(dc_ectx *c, dc_val x, const dc_str *f)
{
    if (x.k == DC_K_ERROR)
        return x;
    /* Selection on an optional value keeps the optional (cel-go): none stays none, a missing
     * field gives none. */
    if (x.k == DC_K_OPTIONAL)
        return opt_select(c, x, f);
    if (x.k == DC_K_MAP) {
        bool found;
        return map_lookup(c, x.u.m, dc_strval(f), &found);
    }
    /* cel-go qualifies other values with the field as a key: "no such key: f". */
    return dc_error(c, "no such key: %s", f->data);
}

static dc_val has_val(dc_ectx *c, dc_val x, const dc_str *f)
{
    if (x.k == DC_K_ERROR)
        return x;
    if (x.k == DC_K_OPTIONAL) {
        if (!x.u.opt)
            return dc_bool(false);
        x = *x.u.opt;
    }
    /* Kubernetes' device.attributes and device.capacity report every domain as present (their
     * lookups answer an empty map for a missing one): has() is true there. */
    if (x.k == DC_K_MAP)
        return dc_bool((x.u.m->flags & DC_MAPF_MISSING_EMPTY) ||
                       dc_map_get(x.u.m, dc_strval(f)) != NULL);
    if (x.k == DC_K_LIST) /* cel-go indexes a list with the field name: an error */
        return dc_error(c, "type '%s' does not support field selection", kind_name(x));
    /* Any other value (int, string, null, a type, a quantity, ...): cel-go's presence test of a
     * value that is neither map, list nor message is false (refQualify), where selecting the
     * field would be "no such key". Only reached unchecked or through dyn. */
    return dc_bool(false);
}

static dc_val opt_select(dc_ectx *c, dc_val x, const dc_str *f)
{
    if (x.k == DC_K_ERROR)
        return x;
    if (x.k == DC_K_OPTIONAL) {
        if (!x.u.opt)
            return x;
        x = *x.u.opt;
    }
    if (x.k == DC_K_MAP) {
        const dc_val *v = dc_map_get(x.u.m, dc_strval(f));
        if (!v && (x.u.m->flags & DC_MAPF_MISSING_EMPTY))
            return dc_optional(c, dc_mapval(&empty_map));
        return v ? dc_optional(c, *v) : dc_optional_none();
    }
    return dc_error(c, "type '%s' does not support field selection", kind_name(x));
}

static dc_val opt_index(dc_ectx *c, dc_val x, dc_val k)
{
    if (x.k == DC_K_ERROR)
        return x;
    if (k.k == DC_K_ERROR)
        return k;
    if (x.k == DC_K_OPTIONAL) {
        if (!x.u.opt)
            return x;
        x = *x.u.opt;
    }
    if (x.k == DC_K_LIST) {
        uint32_t pos;
        dc_val err;
        if (k.k != DC_K_INT && k.k != DC_K_UINT && k.k != DC_K_DOUBLE)
            return dc_error(c, "unsupported index type '%s' in list", kind_name(k));
        return list_pos(c, x.u.l, k, &pos, &err, true) ? dc_optional(c, x.u.l->v[pos])
                                                       : dc_optional_none();
    }
    if (x.k == DC_K_MAP) {
        const dc_val *v = dc_map_get(x.u.m, k);
        if (!v && (x.u.m->flags & DC_MAPF_MISSING_EMPTY))
            return dc_optional(c, dc_mapval(&empty_map));
        return v ? dc_optional(c, *v) : dc_optional_none();
    }
    return dc_err_no_overload(c);
}

static dc_val in_val(dc_ectx *c, dc_val a, dc_val b)
{
    if (a.k == DC_K_ERROR)
        return a;
    if (b.k == DC_K_ERROR)
        return b;
    if (b.k == DC_K_LIST) {
        dc_val first_err = dc_null();
        for (uint32_t i = 0; i < b.u.l->n; i++) {
            dc_val r = dc_val_eq(c, a, b.u.l->v[i]);
            if (r.k == DC_K_BOOL && r.u.b)
                return r;
            if (r.k == DC_K_ERROR && first_err.k == DC_K_NULL)
                first_err = r;
        }
        if (!dc_cost(c, b.u.l->n))
            return dc_err_overflow(c);
        return first_err.k == DC_K_ERROR ? first_err : dc_bool(false);
    }
    if (b.k == DC_K_MAP) {
        if (a.k != DC_K_INT && a.k != DC_K_UINT && a.k != DC_K_DOUBLE && a.k != DC_K_BOOL &&
            a.k != DC_K_STRING)
            return dc_bool(false);
        return dc_bool(dc_map_get(b.u.m, a) != NULL);
    }
    return dc_err_no_overload(c);
}

static dc_val build_list(dc_ectx *c, const dc_list *shape, dc_val *args)
{
    uint32_t n = (uint32_t)shape->v[0].u.i;
    bool opt = shape->n > 1;
    for (uint32_t i = 0; i < n; i++)
        if (args[i].k == DC_K_ERROR)
            return args[i];
    dc_list *l = dc_list_new(c, n);
    if (!l)
        return dc_oom(c);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (opt && shape->v[i + 1].u.b) {
            if (args[i].k != DC_K_OPTIONAL)
                return dc_err_no_overload(c);
            if (!args[i].u.opt)
                continue;
            l->v[k++] = *args[i].u.opt;
        } else {
            l->v[k++] = args[i];
        }
    }
    l->n = k;
    return dc_listval(l);
}

static dc_val build_map(dc_ectx *c, const dc_list *shape, dc_val *args)
{
    uint32_t n = (uint32_t)shape->v[0].u.i;
    bool opt = shape->n > 1;
    dc_val *keys = dc_ealloc(c, (n ? n : 1) * sizeof *keys);
    dc_val *vals = dc_ealloc(c, (n ? n : 1) * sizeof *vals);
    if (!keys || !vals)
        return dc_oom(c);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        dc_val key = args[2 * i], val = args[2 * i + 1];
        if (opt && shape->v[i + 1].u.b) {
            if (val.k == DC_K_ERROR)
                return val;
            if (val.k != DC_K_OPTIONAL)
                return dc_err_no_overload(c);
            if (!val.u.opt)
                continue;
            val = *val.u.opt;
        }
        keys[k] = key;
        vals[k] = val;
        k++;
    }
    return dc_map_build(c, keys, vals, k);
}

/* ---- Comprehension builders. */

static dc_accum *accum(dc_ectx *c, uint32_t slot)
{
    return &c->accums[slot];
}

static void acc_poison(dc_accum *a, dc_val v)
{
    if (a->poison.k != DC_K_ERROR)
        a->poison = v;
}

static bool acc_add(dc_ectx *c, dc_accum *a, dc_val k, dc_val v)
{
    if (a->n == a->cap) {
        uint32_t cap = a->cap ? a->cap * 2 : 8;
        dc_val *nk = a->is_map ? dc_ealloc(c, cap * sizeof *nk) : NULL;
        dc_val *nv = dc_ealloc(c, cap * sizeof *nv);
        if (!nv || (a->is_map && !nk))
            return false;
        if (a->n) {
            memcpy(nv, a->vals, a->n * sizeof *nv);
            if (a->is_map)
                memcpy(nk, a->keys, a->n * sizeof *nk);
        }
        a->vals = nv;
        a->keys = nk;
        a->cap = cap;
    }
    if (a->is_map)
        a->keys[a->n] = k;
    a->vals[a->n++] = v;
    return true;
}

static void acc_put(dc_ectx *c, dc_accum *a, dc_val k, dc_val v)
{
    if (a->poison.k == DC_K_ERROR)
        return;
    if (k.k == DC_K_ERROR || v.k == DC_K_ERROR) {
        acc_poison(a, k.k == DC_K_ERROR ? k : v);
        return;
    }
    for (uint32_t i = 0; i < a->n; i++) {
        dc_val eq = dc_val_eq(c, a->keys[i], k);
        if (eq.k == DC_K_BOOL && eq.u.b) {
            char buf[96];
            key_text(buf, sizeof buf, k);
            acc_poison(a, dc_error(c, "insert failed: key %s already exists", buf));
            return;
        }
    }
    if (!acc_add(c, a, k, v))
        acc_poison(a, dc_oom(c));
}

static dc_val acc_done(dc_ectx *c, dc_accum *a)
{
    if (a->poison.k == DC_K_ERROR)
        return a->poison;
    if (a->is_map)
        return dc_map_build(c, a->keys, a->vals, a->n);
    dc_list *l = dc_list_new(c, a->n);
    if (!l)
        return dc_oom(c);
    if (a->n)
        memcpy(l->v, a->vals, a->n * sizeof(dc_val));
    return dc_listval(l);
}

/* ---- Device columns. */

/* Entry `name` of a map with string keys, or NULL. */
static const dc_val *map_get_cstr(const dc_map *m, const char *name, size_t n)
{
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_val *k = &m->keys[i];
        if (k->k == DC_K_STRING && k->u.s->len == n && !memcmp(k->u.s->data, name, n))
            return &m->vals[i];
    }
    return NULL;
}

/* The value of column `col` for the current device (a table row, or the activation's device):
 * true and *out, false when the device has no such attribute (the error of a device that is
 * not a map goes to *out with true). */
static bool find_column(dc_ectx *c, const dc_program *p, const dc_val *vars, uint32_t col,
                        dc_val *out)
{
    const dc_column *cl = &p->cols[col];
    if (c->rowsrc) {
        const dc_rowsrc *rs = c->rowsrc;
        const dc_tcol *tc = rs->b->colmap[col];
        return tc && dc_tcol_get(rs->b->t, tc, rs->row, c, out);
    }
    if (p->device_slot == UINT32_MAX) {
        *out = dc_error(c, "no such attribute(s): device");
        return true;
    }
    dc_val dev = vars[p->device_slot];
    if (dev.k != DC_K_MAP) {
        *out = dev.k == DC_K_ERROR ? dev : dc_err_no_overload(c);
        return true;
    }
    const dc_val *group = cl->capacity ? map_get_cstr(dev.u.m, "capacity", 8)
                                       : map_get_cstr(dev.u.m, "attributes", 10);
    if (!group || group->k != DC_K_MAP)
        return false;
    const dc_val *domain = map_get_cstr(group->u.m, cl->domain->data, cl->domain->len);
    const dc_val *v = domain && domain->k == DC_K_MAP
                          ? map_get_cstr(domain->u.m, cl->id->data, cl->id->len)
                          : NULL;
    if (!v)
        return false;
    *out = *v;
    return true;
}

/* device.attributes[domain][id] or device.capacity[domain][id] of the activation's device: an
 * unknown domain is an empty map, an unknown id is "no such key: id". */
static dc_val load_column(dc_ectx *c, const dc_program *p, const dc_val *vars, uint32_t col)
{
    const dc_column *cl = &p->cols[col];
    if (c->rowsrc) {
        /* A table row: read the packed column. */
        const dc_rowsrc *rs = c->rowsrc;
        const dc_tcol *tc = rs->b->colmap[col];
        dc_val v;
        if (tc && dc_tcol_get(rs->b->t, tc, rs->row, c, &v))
            return v;
        return dc_error(c, "no such key: %s", cl->id->data);
    }
    if (p->device_slot == UINT32_MAX)
        return dc_error(c, "no such attribute(s): device");
    dc_val dev = vars[p->device_slot];
    if (dev.k != DC_K_MAP)
        return dev.k == DC_K_ERROR ? dev : dc_err_no_overload(c);
    const dc_val *group = cl->capacity ? map_get_cstr(dev.u.m, "capacity", 8)
                                       : map_get_cstr(dev.u.m, "attributes", 10);
    if (!group || group->k != DC_K_MAP)
        return dc_error(c, "no such key: %s", cl->capacity ? "capacity" : "attributes");
    const dc_val *domain = map_get_cstr(group->u.m, cl->domain->data, cl->domain->len);
    const dc_val *v = domain && domain->k == DC_K_MAP
                          ? map_get_cstr(domain->u.m, cl->id->data, cl->id->len)
                          : NULL;
    if (!v)
        return dc_error(c, "no such key: %s", cl->id->data);
    return *v;
}

/* ---- The value instructions (class VALUE in vm/opcodes.def): one body each, on boxed operands
 * args[0..pops) in stack order, run by the loop below, by dc_vm_apply for the vector VM's lanes
 * that are not vectorized, and for its memos, so that every evaluator agrees by construction.
 * Inlined into the loop with op a constant: the switch folds to the one case. */
static inline __attribute__((always_inline)) dc_val value_op(dc_ectx *c, const dc_program *p,
                                                             uint32_t pc, dc_op op, dc_val *args)
{
    uint32_t a = DC_INSN_A(p->code[pc]);
    const dc_val *K = p->consts;
    switch (op) {
    case DC_OP_SELECT: dc_cost(c, 1); return select_val(c, args[0], K[a].u.s);
    case DC_OP_HAS: dc_cost(c, 1); return has_val(c, args[0], K[a].u.s);
    case DC_OP_OPTSELECT: dc_cost(c, 1); return opt_select(c, args[0], K[a].u.s);
    case DC_OP_INDEX: dc_cost(c, 1); return index_val(c, args[0], args[1]);
    case DC_OP_OPTINDEX: dc_cost(c, 1); return opt_index(c, args[0], args[1]);
    case DC_OP_EQ: case DC_OP_NE: case DC_OP_LT: case DC_OP_LE: case DC_OP_GT: case DC_OP_GE:
        dc_cost(c, 1);
        return compare(c, op, args[0], args[1]);
    case DC_OP_IN: dc_cost(c, 1); return in_val(c, args[0], args[1]);
    case DC_OP_ADD: case DC_OP_SUB: case DC_OP_MUL: case DC_OP_DIV: case DC_OP_MOD:
        dc_cost(c, 1);
        return arith(c, op, args[0], args[1]);
    case DC_OP_NEG: dc_cost(c, 1); return negate(c, args[0]);
    case DC_OP_NOT:
        dc_cost(c, 1);
        if (args[0].k == DC_K_BOOL)
            return dc_bool(!args[0].u.b);
        return args[0].k == DC_K_ERROR ? args[0] : dc_err_no_overload(c);
    case DC_OP_AND: case DC_OP_OR: return logic(c, op == DC_OP_AND, args[0], args[1]);
    case DC_OP_MKLIST: return build_list(c, K[a].u.l, args);
    case DC_OP_MKMAP: return build_map(c, K[a].u.l, args);
    case DC_OP_CALL: {
        uint32_t n = p->code[pc + 1];
        const dc_builtin *b = p->fns[a];
        dc_cost(c, 1);
        if (!(b->flags & DC_BF_NONSTRICT))
            for (uint32_t i = 0; i < n; i++)
                if (args[i].k == DC_K_ERROR)
                    return args[i];
        return dc_builtin_call(c, b, args, n);
    }
    case DC_OP_COUNTIF:
        if (args[0].k == DC_K_ERROR)
            return args[0];
        if (args[1].k == DC_K_ERROR)
            return args[1];
        if (args[1].k != DC_K_BOOL)
            return dc_err_no_overload(c);
        return args[1].u.b ? dc_int(args[0].u.i + 1) : args[0];
    default:
        return dc_error(c, "internal error: %s is not a value instruction", dc_op_info[op].name);
    }
}

dc_val dc_vm_apply(dc_ectx *c, const dc_program *p, uint32_t pc, dc_val *args)
{
    dc_op op = DC_INSN_OP(p->code[pc]);
    if (dc_op_info[op].cls != DC_CLS_VALUE)
        return dc_error(c, "internal error: %s is not a value instruction", dc_op_info[op].name);
    return value_op(c, p, pc, op, args);
}

/* The error a DRA selector's non-bool result becomes (Kubernetes' DeviceMatches). */
dc_val dc_vm_not_bool(dc_ectx *c, dc_val r)
{
    return dc_error(c, "CEL result of type %s could not be converted to bool", kind_name(r));
}

/* ---- The loop. */

static bool ensure(dc_ectx *c, const dc_program *p)
{
    const dracel_alloc *a = c->arena.alloc;
    uint32_t need = p->max_stack + 1;
    if (c->stack_cap < need) {
        dc_val *s = dc_realloc(a, c->stack, c->stack_cap * sizeof *s, need * sizeof *s);
        if (!s)
            return false;
        c->stack = s;
        c->stack_cap = need;
    }
    if (c->locals_cap < p->nlocals) {
        dc_val *l = dc_realloc(a, c->locals, c->locals_cap * sizeof *l, p->nlocals * sizeof *l);
        if (!l)
            return false;
        c->locals = l;
        c->locals_cap = p->nlocals;
    }
    if (c->accums_cap < p->nlocals) {
        dc_accum *ac = dc_realloc(a, c->accums, c->accums_cap * sizeof *ac, p->nlocals * sizeof *ac);
        if (!ac)
            return false;
        c->accums = ac;
        c->accums_cap = p->nlocals;
    }
    if (c->iters_cap < p->niters) {
        dc_iter *it = dc_realloc(a, c->iters, c->iters_cap * sizeof *it, p->niters * sizeof *it);
        if (!it)
            return false;
        c->iters = it;
        c->iters_cap = p->niters;
    }
    return true;
}

const dc_err dc_err_cost = {"operation cancelled: actual cost limit exceeded", 0};

dc_val dc_vm_exec(const dc_program *p, dc_ectx *c, const dc_val *vars)
{
    dc_arena_reset(&c->arena);
    c->mem_base = c->arena.served;
    c->cost = 0;
    c->cost_exceeded = false;
    c->oom = c->limit_hit = c->alloc_failed = false;
    if (!ensure(c, p))
        return dc_oom(c);
    /* A device that cannot be presented to CEL (Kubernetes: an attribute that does not convert)
     * fails every selector evaluated on it, whether or not it reads that attribute. */
    dc_val row_device = dc_null();
    bool have_row_device = false;
    if (c->rowsrc) {
        const dc_val *fault = dc_table_fault(c->rowsrc->b->t, c->rowsrc->row);
        if (fault)
            return *fault;
    } else if (p->device_slot != UINT32_MAX && vars[p->device_slot].k == DC_K_ERROR &&
               (vars[p->device_slot].u.e->flags & DC_ERRF_DEVICE)) {
        return vars[p->device_slot];
    }
    const uint32_t *code = p->code;
    const dc_val *K = p->consts;
    dc_val *sp = c->stack;
    dc_val *L = c->locals;
    uint32_t pc = 0;
    for (;;) {
        uint32_t w = code[pc++];
        uint32_t a = DC_INSN_A(w);
        switch (DC_INSN_OP(w)) {
        case DC_OP_NOP:
            break;
        case DC_OP_CONST:
            *sp++ = K[a];
            break;
        case DC_OP_CHARGE:
            dc_cost(c, a);
            break;
        case DC_OP_LOADVAR:
            if (c->rowsrc && a == p->device_slot) {
                /* The device as a whole, built from the row once per evaluation. */
                if (!have_row_device) {
                    row_device = dc_table_device(c->rowsrc->b->t, c->rowsrc->row, c);
                    have_row_device = true;
                }
                *sp++ = row_device;
            } else {
                *sp++ = vars[a];
            }
            dc_cost(c, 1);
            break;
        case DC_OP_LOADLOCAL:
            *sp++ = L[a];
            break;
        case DC_OP_STORELOCAL:
            L[a] = *--sp;
            break;
        case DC_OP_POP:
            sp--;
            break;
        case DC_OP_LOADATTR:
        case DC_OP_LOADCAP:
            *sp++ = load_column(c, p, vars, a);
            dc_cost(c, 1);
            break;
        case DC_OP_LOADCOLDEF: {
            uint32_t k = code[pc++];
            dc_val v;
            *sp++ = find_column(c, p, vars, a, &v) ? v : K[k];
            dc_cost(c, 3); /* the selection, .? and orValue */
            break;
        }
        case DC_OP_LOADDEV:
            /* A table row's field without building the device map (a fault row never gets
             * here: dc_vm_exec returns its error first). */
            if (c->rowsrc) {
                const dc_table *t = c->rowsrc->b->t;
                uint32_t row = c->rowsrc->row;
                *sp++ = a == DC_DEVF_DRIVER
                            ? dc_strval(dc_dict_str(t->dict, t->pools[t->pool[row]].driver))
                            : dc_bool(dc_bit(t->multi, row));
            } else {
                /* A device given as a value (not a row): select the field from its map. */
                size_t n = strlen(dc_devfield_name[a]);
                dc_str *f = dc_str_alloc(c, n);
                if (f)
                    memcpy(f->data, dc_devfield_name[a], n);
                *sp++ = f ? select_val(c, vars[p->device_slot], f) : dc_oom(c);
            }
            dc_cost(c, 2); /* the device and the selection it stands for */
            break;
        case DC_OP_HASCOL: {
            dc_val v;
            bool found = find_column(c, p, vars, a, &v);
            *sp++ = found && v.k == DC_K_ERROR && !c->rowsrc && v.u.e->flags == 0 &&
                            vars[p->device_slot].k == DC_K_ERROR
                        ? v
                        : dc_bool(found);
            dc_cost(c, 1);
            break;
        }
        /* The value instructions, generated from vm/opcodes.def: pop their operands, push
         * value_op's result. */
#define FMT(f)
#define OP(name, fmt, pop, push, cls, vec, doc) VM_##cls(name, fmt, pop)
#define VM_VALUE(name, fmt, pop)                                                              \
        case DC_OP_##name: {                                                                  \
            uint32_t at = pc - 1;                                                             \
            sp -= (pop) >= 0 ? (uint32_t)(pop) : p->pops[at];                                 \
            *sp = value_op(c, p, at, DC_OP_##name, sp);                                       \
            sp++;                                                                             \
            pc = at + (DC_FMT_##fmt == DC_FMT_FN ? 2u : 1u);                                   \
            break;                                                                            \
        }
#define VM_LOAD(name, fmt, pop)
#define VM_STORE(name, fmt, pop)
#define VM_CONTROL(name, fmt, pop)
#define VM_LOOP(name, fmt, pop)
#include "opcodes.def"
#undef VM_VALUE
#undef VM_LOAD
#undef VM_STORE
#undef VM_CONTROL
#undef VM_LOOP
#undef OP
#undef FMT
        case DC_OP_ANDJ:
            if (sp[-1].k == DC_K_BOOL && !sp[-1].u.b)
                pc += DC_INSN_SA(w);
            break;
        case DC_OP_ORJ:
            if (sp[-1].k == DC_K_BOOL && sp[-1].u.b)
                pc += DC_INSN_SA(w);
            break;
        case DC_OP_TESTCOND:
            if (sp[-1].k != DC_K_BOOL) {
                if (sp[-1].k != DC_K_ERROR)
                    sp[-1] = dc_err_no_overload(c);
                pc += DC_INSN_SA(w);
            }
            break;
        case DC_OP_JFALSE:
            sp--;
            if (sp->k == DC_K_BOOL && !sp->u.b)
                pc += DC_INSN_SA(w);
            break;
        case DC_OP_JTRUE:
            sp--;
            if (sp->k == DC_K_BOOL && sp->u.b)
                pc += DC_INSN_SA(w);
            break;
        case DC_OP_JMP:
            pc += DC_INSN_SA(w);
            break;
        case DC_OP_ITERINIT:
        case DC_OP_ITERINIT2: {
            int32_t off = (int32_t)code[pc++];
            dc_val r = *--sp;
            if (r.k != DC_K_LIST && r.k != DC_K_MAP) {
                *sp++ = r.k == DC_K_ERROR ? r : dc_error(c, "type '%s' cannot be iterated", kind_name(r));
                pc += off;
                break;
            }
            c->iters[a].range = r;
            c->iters[a].next = 0;
            c->iters[a].two = DC_INSN_OP(w) == DC_OP_ITERINIT2;
            break;
        }
        case DC_OP_ITERNEXT:
        case DC_OP_ITERNEXT2: {
            int32_t off = (int32_t)code[pc++];
            dc_iter *it = &c->iters[a];
            uint32_t i = it->next;
            dc_val r = it->range;
            uint32_t n = r.k == DC_K_LIST ? r.u.l->n : r.u.m->n;
            if (i >= n || !dc_cost(c, 1)) {
                pc += off;
                break;
            }
            it->next = i + 1;
            if (DC_INSN_OP(w) == DC_OP_ITERNEXT2) {
                *sp++ = r.k == DC_K_LIST ? dc_int(i) : r.u.m->keys[i];
                *sp++ = r.k == DC_K_LIST ? r.u.l->v[i] : r.u.m->vals[i];
            } else {
                *sp++ = r.k == DC_K_LIST ? r.u.l->v[i] : r.u.m->keys[i];
            }
            break;
        }
        case DC_OP_ACCINIT:
        case DC_OP_ACCINITMAP: {
            dc_accum *ac = accum(c, a);
            memset(ac, 0, sizeof *ac);
            ac->is_map = DC_INSN_OP(w) == DC_OP_ACCINITMAP;
            ac->poison = dc_null();
            break;
        }
        case DC_OP_ACCPUSH: {
            dc_accum *ac = accum(c, a);
            dc_val v = *--sp;
            if (ac->poison.k == DC_K_ERROR)
                break;
            if (v.k == DC_K_ERROR)
                acc_poison(ac, v);
            else if (!acc_add(c, ac, dc_null(), v))
                acc_poison(ac, dc_oom(c));
            break;
        }
        case DC_OP_ACCPUT: {
            sp -= 2;
            acc_put(c, accum(c, a), sp[0], sp[1]);
            break;
        }
        case DC_OP_ACCMERGE: {
            dc_accum *ac = accum(c, a);
            dc_val m = *--sp;
            if (m.k != DC_K_MAP) {
                acc_poison(ac, m.k == DC_K_ERROR ? m : dc_err_no_overload(c));
                break;
            }
            for (uint32_t i = 0; i < m.u.m->n; i++)
                acc_put(c, ac, m.u.m->keys[i], m.u.m->vals[i]);
            break;
        }
        case DC_OP_ACCPOISON: {
            dc_val v = *--sp;
            acc_poison(accum(c, a), v.k == DC_K_ERROR ? v : dc_err_no_overload(c));
            break;
        }
        case DC_OP_ACCDONE:
            *sp++ = acc_done(c, accum(c, a));
            break;
        case DC_OP_RETURN: {
            dc_val r = sp[-1];
            if (c->oom)
                return dc_oom(c);
            if (c->cost_exceeded)
                return dc_errval(&dc_err_cost);
            if (p->result_must_be_bool && r.k != DC_K_BOOL && r.k != DC_K_ERROR)
                return dc_vm_not_bool(c, r);
            return r;
        }
        default:
            return dc_error(c, "invalid opcode %u", (unsigned)DC_INSN_OP(w));
        }
        if (DC_UNLIKELY(c->cost_exceeded || c->oom)) {
            if (c->oom)
                return dc_oom(c);
            return dc_errval(&dc_err_cost);
        }
    }
}
