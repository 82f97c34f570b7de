/*
 * json_val.c: values from JSON: typed JSON (`--bind NAME={"int":"4"}`, docs/dra-celc.md) and a DRA
 * device (`--device FILE`: one entry of a ResourceSlice's spec.devices plus "driver").
 *
 * Both are read by the ResourceSlice loader (src/slices.c, through ldint.h), so one parser and
 * one set of rules serve `--device`, `--bind` and `--slices`: the loader's strict JSON scan and
 * its tree (exact int64 numbers beyond 2^53; a number with a fraction or an exponent is never an
 * integer; "\u0000", invalid UTF-8, lone surrogates and duplicate keys rejected; nesting
 * bounded), its validation of a device field by field (names, lengths, counts, quantities,
 * taints, counters, node selection) and its messages, which name the field path. The value
 * `device` reads is built from the loader's record as src/table_build.c builds a table row: a
 * bare attribute name hidden by the same name qualified with the driver's domain
 * (dc_device_attr_hidden), and a version attribute that is not semver faulting the device.
 *
 * Values live in the evaluation context's arena; the loader's own memory goes with the call.
 * Change with: src/slices.c (the device, the tree), src/table_build.c (a device as a row).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonval.h"
#include "ldint.h"
#include "registry.h"

#define MAX_DEPTH 64 /* typed values inside typed values */

/* ---- Numbers: exact, from the JSON token or a string of decimal digits */

/* s[0..n) is [-]digits (else false): the sign in *neg, the magnitude in *u, *ovf when it
 * does not fit in 64 bits. */
static bool decimal(const char *s, size_t n, bool *neg, uint64_t *u, bool *ovf)
{
    *neg = n > 0 && s[0] == '-';
    *ovf = false;
    size_t i = *neg;
    if (i >= n)
        return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            *ovf = true;
        else
            v = v * 10 + d;
    }
    *u = v;
    return true;
}

/* {"int": N} or {"uint": N}: N a JSON integer or a string of decimal digits, exact (the JSON
 * token itself is read, never a double). */
static dracel_status integer(dc_ld *c, const dc_tnode *x, bool is_unsigned, dc_val *out)
{
    if (x->t == DC_TN_FLOAT)
        return dc_ld_fail(c, x->line, "%s is not an integer", dc_ld_qs(c, 0, x->s, x->n, false));
    if (x->t != DC_TN_INT && x->t != DC_TN_STR)
        return dc_ld_fail(c, x->line, "must be an integer or a string of decimal digits, not %s",
                          dc_ld_tname(x));
    bool neg, ovf;
    uint64_t u = 0;
    if (!decimal(x->s, x->n, &neg, &u, &ovf))
        return dc_ld_bad_value(c, x, "not a decimal integer");
    if (is_unsigned && neg && (u || ovf))
        return dc_ld_fail(c, x->line, "%s is negative", dc_ld_qs(c, 0, x->s, x->n, false));
    if (ovf || (!is_unsigned && u > (uint64_t)INT64_MAX + !!neg))
        return dc_ld_fail(c, x->line, "%s does not fit in %s", dc_ld_qs(c, 0, x->s, x->n, false),
                          is_unsigned ? "an unsigned 64-bit integer" : "a 64-bit integer");
    if (is_unsigned)
        *out = dc_uint(u);
    else
        *out = dc_int(neg ? (int64_t)(0 - u) : (int64_t)u);
    return DRACEL_OK;
}

/* {"double": X}: a JSON number (correctly rounded), or "NaN", "Infinity", "-Infinity". */
static dracel_status dbl(dc_ld *c, const dc_tnode *x, dc_val *out)
{
    if (x->t == DC_TN_STR) {
        if (dc_ld_str_is(x, "NaN"))
            *out = dc_double(NAN);
        else if (dc_ld_str_is(x, "Infinity"))
            *out = dc_double(INFINITY);
        else if (dc_ld_str_is(x, "-Infinity"))
            *out = dc_double(-INFINITY);
        else
            return dc_ld_bad_value(c, x, "a double is a number, \"NaN\", \"Infinity\" or "
                                         "\"-Infinity\"");
        return DRACEL_OK;
    }
    if (x->t != DC_TN_INT && x->t != DC_TN_FLOAT)
        return dc_ld_fail(c, x->line, "must be a number, \"NaN\", \"Infinity\" or \"-Infinity\", "
                          "not %s", dc_ld_tname(x));
    char buf[72]; /* the scan caps JSON numbers at 63 characters */
    size_t n = x->n < sizeof buf - 1 ? x->n : sizeof buf - 1;
    memcpy(buf, x->s, n);
    buf[n] = '\0';
    double d = strtod(buf, NULL);
    if (isinf(d))
        return dc_ld_fail(c, x->line, "%s is out of the range of a double (\"Infinity\" is one)",
                          dc_ld_qs(c, 0, x->s, x->n, false));
    *out = dc_double(d);
    return DRACEL_OK;
}

/* ---- Typed JSON */

static int b64val(int ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

static dracel_status bytes(dc_ld *c, dc_ectx *e, const dc_tnode *x, dc_val *out)
{
    dc_str *b = dc_str_alloc(e, x->n / 4 * 3 + 3);
    if (!b)
        return dc_ld_oom(c);
    uint32_t acc = 0;
    int bits = 0;
    size_t k = 0;
    for (size_t i = 0; i < x->n && x->s[i] != '='; i++) {
        int v = b64val((unsigned char)x->s[i]);
        if (v < 0)
            return dc_ld_bad_value(c, x, "not base64");
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            b->data[k++] = (char)(acc >> bits);
        }
    }
    b->len = (uint32_t)k;
    b->data[k] = '\0';
    *out = dc_bytesval(b);
    return DRACEL_OK;
}

static dracel_status text_value(dc_ld *c, dc_ectx *e, const char *k, const dc_tnode *x, dc_val *out)
{
    if (k[0] == 's' && k[1] == 't') { /* string */
        dc_str *s = dc_str_new(e, x->s, x->n);
        if (!s)
            return dc_ld_oom(c);
        *out = dc_strval(s);
        return DRACEL_OK;
    }
    if (k[0] == 'b')
        return bytes(c, e, x, out);
    if (k[0] == 'q') {
        dc_qty q;
        const char *why = dc_qty_parse(x->s, x->n, &q);
        if (why)
            return dc_ld_bad_value(c, x, why);
        dc_qtyobj *o = dc_ealloc(e, sizeof *o);
        if (!o || !(o->text = dc_str_new(e, x->s, x->n)))
            return dc_ld_oom(c);
        o->q = q;
        out->k = DC_K_QUANTITY;
        out->u.q = o;
        return DRACEL_OK;
    }
    dc_val v = dc_semver_value(e, x->s, x->n, false);
    if (v.k == DC_K_ERROR)
        return e->oom ? dc_ld_oom(c) : dc_ld_bad_value(c, x, v.u.e->msg);
    *out = v;
    return DRACEL_OK;
}

static dracel_status typed(dc_ld *c, dc_ectx *e, const dc_tnode *j, dc_val *out, int depth);

static dracel_status list(dc_ld *c, dc_ectx *e, const dc_tnode *x, dc_val *out, int depth)
{
    dc_list *l = dc_list_new(e, x->n);
    if (!l)
        return dc_ld_oom(c);
    for (uint32_t i = 0; i < x->n; i++) {
        dc_path_index(c, i);
        DC_TRY(typed(c, e, &x->kids[i].v, &l->v[i], depth + 1));
        dc_path_pop(c);
    }
    *out = dc_listval(l);
    return DRACEL_OK;
}

static dracel_status map(dc_ld *c, dc_ectx *e, const dc_tnode *x, dc_val *out, int depth)
{
    uint32_t n = x->n;
    dc_val *keys = dc_ealloc(e, (n ? n : 1) * sizeof *keys);
    dc_val *vals = dc_ealloc(e, (n ? n : 1) * sizeof *vals);
    if (!keys || !vals)
        return dc_ld_oom(c);
    for (uint32_t i = 0; i < n; i++) {
        const dc_tnode *pair = &x->kids[i].v;
        dc_path_index(c, i);
        if (pair->t != DC_TN_SEQ || pair->n != 2)
            return dc_ld_fail(c, pair->line, "a map entry is a pair [KEY, VALUE]");
        dc_path_index(c, 0);
        DC_TRY(typed(c, e, &pair->kids[0].v, &keys[i], depth + 1));
        dc_path_pop(c);
        dc_path_index(c, 1);
        DC_TRY(typed(c, e, &pair->kids[1].v, &vals[i], depth + 1));
        dc_path_pop(c);
        dc_path_pop(c);
    }
    dc_val mv = dc_map_build(e, keys, vals, n);
    if (mv.k == DC_K_ERROR)
        return e->oom ? dc_ld_oom(c) : dc_ld_fail(c, x->line, "%s", mv.u.e->msg);
    *out = mv;
    return DRACEL_OK;
}

/* One typed value: an object with one key naming the type, e.g. {"int":"4"}. */
static dracel_status typed(dc_ld *c, dc_ectx *e, const dc_tnode *j, dc_val *out, int depth)
{
    if (depth > MAX_DEPTH)
        return dc_ld_fail(c, j->line, "typed values nested deeper than %d", MAX_DEPTH);
    if (j->t != DC_TN_MAP || j->n != 1)
        return dc_ld_fail(c, j->line, "a typed value is an object with one key, like "
                                      "{\"int\":\"4\"}, not %s",
                          j->t == DC_TN_MAP ? j->n ? "an object with several keys" : "{}"
                                        : dc_ld_tname(j));
    const char *k = j->kids[0].k;
    const dc_tnode *x = &j->kids[0].v;
    dracel_status st;
    dc_path_field(c, k);
    if (strcmp(k, "int") == 0 || strcmp(k, "uint") == 0) {
        st = integer(c, x, k[0] == 'u', out);
    } else if (strcmp(k, "double") == 0) {
        st = dbl(c, x, out);
    } else if (strcmp(k, "bool") == 0) {
        st = dc_ld_want(c, x, DC_TN_BOOL);
        *out = dc_bool(x->b);
    } else if (strcmp(k, "null") == 0) {
        st = x->t == DC_TN_NULL ? DRACEL_OK
                            : dc_ld_fail(c, x->line, "must be null, not %s", dc_ld_tname(x));
        *out = dc_null();
    } else if (strcmp(k, "list") == 0) {
        st = dc_ld_want(c, x, DC_TN_SEQ);
        if (st == DRACEL_OK)
            st = list(c, e, x, out, depth);
    } else if (strcmp(k, "map") == 0) {
        st = dc_ld_want(c, x, DC_TN_SEQ);
        if (st == DRACEL_OK)
            st = map(c, e, x, out, depth);
    } else if (strcmp(k, "optional") == 0) {
        if (x->t == DC_TN_NULL) {
            *out = dc_optional_none();
            st = DRACEL_OK;
        } else {
            dc_val inner;
            st = typed(c, e, x, &inner, depth + 1);
            if (st == DRACEL_OK) {
                *out = dc_optional(e, inner);
                if (out->k == DC_K_ERROR)
                    st = dc_ld_oom(c);
            }
        }
    } else if (strcmp(k, "string") == 0 || strcmp(k, "bytes") == 0 ||
               strcmp(k, "quantity") == 0 || strcmp(k, "semver") == 0) {
        st = dc_ld_want(c, x, DC_TN_STR);
        if (st == DRACEL_OK)
            st = text_value(c, e, k, x, out);
    } else {
        dc_path_pop(c);
        return dc_ld_fail(c, j->kids[0].kline, "unknown type %s (int, uint, double, string, bytes, "
                          "bool, null, list, map, quantity, semver or optional)",
                          dc_ld_qs(c, 0, k, j->kids[0].klen, true));
    }
    if (st == DRACEL_OK)
        dc_path_pop(c);
    return st;
}

/* ---- A DRA device */

/* Domain maps (domain -> id -> value) of a device's attributes or capacities, domains in order
 * of first appearance, hidden bare names left out. At most 32 entries (the loader's limit). */
typedef struct grouping {
    dc_val dkeys[32];
    uint32_t ndom, n;
    uint32_t dom[32];
    dc_val ids[32], vals[32];
} grouping;

static bool group_put(dc_ectx *e, grouping *g, const char *name, const char *driver, dc_val v)
{
    const char *slash = strchr(name, '/');
    const char *dom = slash ? name : driver, *id = slash ? slash + 1 : name;
    size_t dn = slash ? (size_t)(slash - name) : strlen(driver);
    uint32_t d = 0;
    while (d < g->ndom &&
           !(g->dkeys[d].u.s->len == dn && memcmp(g->dkeys[d].u.s->data, dom, dn) == 0))
        d++;
    if (d == g->ndom) {
        dc_str *ds = dc_str_new(e, dom, dn);
        if (!ds)
            return false;
        g->dkeys[g->ndom++] = dc_strval(ds);
    }
    dc_str *is = dc_str_new(e, id, strlen(id));
    if (!is)
        return false;
    g->dom[g->n] = d;
    g->ids[g->n] = dc_strval(is);
    g->vals[g->n++] = v;
    return true;
}

/* The outer map (domains that are missing read as empty maps). The inner maps are built by hand
 * so that an error value (a bad version) stays inside as the value of its id. */
static bool group_map(dc_ectx *e, const grouping *g, dc_val *out)
{
    dc_val inner[32];
    for (uint32_t d = 0; d < g->ndom; d++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < g->n; i++)
            n += g->dom[i] == d;
        dc_map *m = dc_ealloc(e, sizeof *m);
        dc_val *mk = dc_ealloc(e, n * sizeof *mk), *mv = dc_ealloc(e, n * sizeof *mv);
        if (!m || !mk || !mv)
            return false;
        for (uint32_t i = 0, k = 0; i < g->n; i++)
            if (g->dom[i] == d) {
                mk[k] = g->ids[i];
                mv[k++] = g->vals[i];
            }
        memset(m, 0, sizeof *m);
        m->n = n;
        m->keys = mk;
        m->vals = mv;
        inner[d] = dc_mapval(m);
    }
    dc_val v = dc_map_build(e, g->dkeys, inner, g->ndom);
    if (v.k == DC_K_ERROR)
        return false;
    ((dc_map *)v.u.m)->flags |= DC_MAPF_MISSING_EMPTY;
    *out = v;
    return true;
}

/* What `device` reads: {driver, attributes, capacity, allowMultipleAllocations}, or the error
 * of a device Kubernetes cannot present to CEL (a version attribute that is not semver: every
 * attribute is converted before a selector runs, hidden ones too). false on ENOMEM. */
/* One version as the CEL layer converts it; a bad one sets *bad (the device's fault, the first
 * one only) and gives its error. false on ENOMEM. */
static bool version_value(dc_ectx *e, const dc_attr_in *a, const char *s, uint32_t n, dc_val *bad,
                          dc_val *out)
{
    dc_val v = dc_semver_value(e, s, n, false);
    if (v.k == DC_K_ERROR) {
        if (e->oom)
            return false;
        v = dc_error(e, "parse semantic version: %s", v.u.e->msg);
        if (v.k == DC_K_ERROR && bad->k != DC_K_ERROR)
            *bad = dc_error(e, "attribute %s: %s", a->name, v.u.e->msg);
        if (e->oom)
            return false;
    }
    *out = v;
    return true;
}

/* A list attribute (DRAListTypeAttributes) as a CEL list. false on ENOMEM. */
static bool list_value(dc_ectx *e, const dc_attr_in *a, dc_val *bad, dc_val *out)
{
    dc_list *l = dc_list_new(e, a->n);
    if (!l)
        return false;
    for (uint32_t i = 0; i < a->n; i++) {
        switch (a->kind) {
        case DC_ATTR_INTS: l->v[i] = dc_int(a->is[i]); break;
        case DC_ATTR_BOOLS: l->v[i] = dc_bool(a->bs[i]); break;
        case DC_ATTR_STRINGS: {
            dc_str *s = dc_str_new(e, a->ss[i], a->slens[i]);
            if (!s)
                return false;
            l->v[i] = dc_strval(s);
            break;
        }
        default:
            if (!version_value(e, a, a->ss[i], a->slens[i], bad, &l->v[i]))
                return false;
            break;
        }
    }
    out->k = DC_K_LIST;
    out->u.l = l;
    return true;
}

static bool device_value(dc_ectx *e, const dc_device_in *d, const char *driver, dc_val *out)
{
    grouping gr, *g = &gr;
    g->ndom = g->n = 0;
    dc_val attrs, caps, bad = dc_null();
    for (uint32_t k = 0; k < d->nattrs; k++) {
        const dc_attr_in *a = &d->attrs[k];
        dc_val v;
        switch (a->kind) {
        case DC_ATTR_INT: v = dc_int(a->i); break;
        case DC_ATTR_BOOL: v = dc_bool(a->b); break;
        case DC_ATTR_STRING: {
            dc_str *s = dc_str_new(e, a->s, a->slen);
            if (!s)
                return false;
            v = dc_strval(s);
            break;
        }
        case DC_ATTR_VERSION:
            if (!version_value(e, a, a->s, a->slen, &bad, &v))
                return false;
            break;
        default:
            if (!list_value(e, a, &bad, &v))
                return false;
            break;
        }
        if (!dc_device_attr_hidden(d, k, driver) && !group_put(e, g, a->name, driver, v))
            return false;
    }
    if (!group_map(e, g, &attrs))
        return false;
    g->ndom = g->n = 0;
    for (uint32_t k = 0; k < d->ncaps; k++) {
        if (dc_device_cap_hidden(d, k, driver))
            continue;
        const char *q = d->caps[k].value;
        dc_qtyobj *o = dc_ealloc(e, sizeof *o);
        if (!o || !(o->text = dc_str_new(e, q, strlen(q))))
            return false;
        if (dc_qty_parse(q, strlen(q), &o->q))
            return false; /* the loader validated it */
        dc_val v;
        v.k = DC_K_QUANTITY;
        v.u.q = o;
        if (!group_put(e, g, d->caps[k].name, driver, v))
            return false;
    }
    if (!group_map(e, g, &caps))
        return false;
    if (bad.k == DC_K_ERROR) {
        ((dc_err *)bad.u.e)->flags |= DC_ERRF_DEVICE;
        *out = bad;
        return true;
    }
    static const char *const K[4] = {"driver", "attributes", "capacity",
                                      "allowMultipleAllocations"};
    dc_val keys[4], vals[4];
    for (int i = 0; i < 4; i++) {
        dc_str *s = dc_str_new(e, K[i], strlen(K[i]));
        if (!s)
            return false;
        keys[i] = dc_strval(s);
    }
    dc_str *dv = dc_str_new(e, driver, strlen(driver));
    if (!dv)
        return false;
    vals[0] = dc_strval(dv);
    vals[1] = attrs;
    vals[2] = caps;
    vals[3] = dc_bool(d->allow_multiple);
    *out = dc_map_build(e, keys, vals, 4);
    return out->k != DC_K_ERROR;
}

/* ---- Reading through the loader */

typedef struct doc_ctx {
    dc_ectx *e;
    dc_val *out;
    dc_device_in dev;
    const char *driver;
} doc_ctx;

static dracel_status typed_doc(dc_ld *c, const dc_tnode *root)
{
    doc_ctx *x = c->doc_ctx;
    return typed(c, x->e, root, x->out, 0);
}

static dracel_status device_doc(dc_ld *c, const dc_tnode *root)
{
    static const char *const F[] = {"driver"};
    doc_ctx *x = c->doc_ctx;
    const dc_tent *f[1];
    const dc_tnode *v;
    if (root->t != DC_TN_MAP)
        return dc_ld_fail(c, root->line, "a device is a JSON object, not %s", dc_ld_tname(root));
    /* Messages name the device when its name is valid. */
    for (uint32_t i = 0; i < root->n; i++) {
        const dc_tent *k = &root->kids[i];
        if (k->klen == 4 && memcmp(k->k, "name", 4) == 0 && k->v.t == DC_TN_STR &&
            !dc_ld_label_err(k->v.s, k->v.n)) {
            c->okind = "device";
            c->oname = k->v.s;
        }
    }
    DC_TRY(dc_ld_fields(c, root, F, 1, f));
    dc_path_field(c, "driver");
    /* Kubernetes' CEL layer takes any driver, "" included (cel.Device{Driver: ""} is one of its
     * test cases): an empty or absent driver is "", whose domain unqualified attributes join;
     * a non-empty one must be a driver name, as in a ResourceSlice. */
    if (f[0]) {
        DC_TRY(dc_ld_want(c, &f[0]->v, DC_TN_STR));
        v = &f[0]->v;
        const char *why = v->n ? dc_ld_driver_err(v->s, v->n) : NULL;
        if (why)
            return dc_ld_bad_value(c, v, why);
        DC_TRY(dc_ld_sdup(c, v->s, v->n, &x->driver));
    } else {
        DC_TRY(dc_ld_sdup(c, "", 0, &x->driver));
    }
    dc_path_pop(c);
    DC_TRY(dc_ld_device_alone(c, root, &x->dev));
    c->oname = NULL;
    return DRACEL_OK;
}

/* Load text as one JSON document through fn. */
static dracel_status load(dc_ectx *e, const char *text, size_t len, dc_ld_doc_fn fn, bool bare,
                          doc_ctx *x, char *err, size_t cap)
{
    dc_slice_set set;
    dc_slice_set_init(&set, e->arena.alloc);
    dc_slices_limits lim;
    dc_slices_limits_default(&lim);
    lim.max_depth = 2 * MAX_DEPTH + 2; /* {"list":[...]} is two levels a typed level */
    dc_ld c;
    dc_ld_init(&c, &set, &lim, err, cap);
    c.json_only = true;
    c.bare = bare;
    c.per_doc = fn;
    c.doc_ctx = x;
    dracel_status st = dc_ld_load_buffer(&c, NULL, text, len);
    if (st == DRACEL_OK && fn == device_doc && !device_value(e, &x->dev, x->driver, x->out))
        st = dc_ld_oom(&c);
    dc_ld_free(&c);
    dc_slice_set_free(&set);
    if (st == DRACEL_ENOMEM)
        e->oom = true;
    return st;
}

dracel_status dc_json_typed(dc_ectx *e, const char *text, size_t len, dc_val *out, char *err,
                            size_t cap)
{
    doc_ctx x;
    memset(&x, 0, sizeof x);
    x.e = e;
    x.out = out;
    return load(e, text, len, typed_doc, true, &x, err, cap);
}

dracel_status dc_json_device(dc_ectx *e, const char *text, size_t len, dc_val *out, char *err,
                             size_t cap)
{
    doc_ctx x;
    memset(&x, 0, sizeof x);
    x.e = e;
    x.out = out;
    return load(e, text, len, device_doc, false, &x, err, cap);
}

/* ---- Types of values (for --bind: the variable gets the type of its value). */

const dc_type *dc_val_static_type(dc_arena *a, dc_val v)
{
    switch (v.k) {
    case DC_K_NULL: return &dc_ty_null;
    case DC_K_BOOL: return &dc_ty_bool;
    case DC_K_INT: return &dc_ty_int;
    case DC_K_UINT: return &dc_ty_uint;
    case DC_K_DOUBLE: return &dc_ty_double;
    case DC_K_STRING: return &dc_ty_string;
    case DC_K_BYTES: return &dc_ty_bytes;
    case DC_K_QUANTITY: return &dc_ty_quantity;
    case DC_K_SEMVER: return &dc_ty_semver;
    case DC_K_LIST: {
        const dc_type *e = NULL;
        for (uint32_t i = 0; i < v.u.l->n; i++) {
            const dc_type *t = dc_val_static_type(a, v.u.l->v[i]);
            if (!e)
                e = t;
            else if (!dc_type_equal(e, t))
                e = &dc_ty_dyn;
        }
        return dc_ty_list(a, e ? e : &dc_ty_dyn);
    }
    case DC_K_MAP: {
        const dc_type *kt = NULL, *vt = NULL;
        for (uint32_t i = 0; i < v.u.m->n; i++) {
            const dc_type *k = dc_val_static_type(a, v.u.m->keys[i]);
            const dc_type *t = dc_val_static_type(a, v.u.m->vals[i]);
            kt = !kt ? k : dc_type_equal(kt, k) ? kt : &dc_ty_dyn;
            vt = !vt ? t : dc_type_equal(vt, t) ? vt : &dc_ty_dyn;
        }
        return dc_ty_map(a, kt ? kt : &dc_ty_dyn, vt ? vt : &dc_ty_dyn);
    }
    case DC_K_OPTIONAL:
        return dc_ty_optional(a, v.u.opt ? dc_val_static_type(a, *v.u.opt) : &dc_ty_dyn);
    case DC_K_TYPE: return dc_ty_type(a, NULL);
    default: return &dc_ty_dyn;
    }
}

bool dc_val_has_type(dc_val v, const dc_type *t)
{
    switch (t->kind) {
    case DC_TY_DYN: return true;
    case DC_TY_NULL: return v.k == DC_K_NULL;
    case DC_TY_BOOL: return v.k == DC_K_BOOL;
    case DC_TY_INT: return v.k == DC_K_INT;
    case DC_TY_UINT: return v.k == DC_K_UINT;
    case DC_TY_DOUBLE: return v.k == DC_K_DOUBLE;
    case DC_TY_STRING: return v.k == DC_K_STRING;
    case DC_TY_BYTES: return v.k == DC_K_BYTES;
    case DC_TY_QUANTITY: return v.k == DC_K_QUANTITY;
    case DC_TY_SEMVER: return v.k == DC_K_SEMVER;
    case DC_TY_TYPE: return v.k == DC_K_TYPE;
    case DC_TY_DEVICE: return v.k == DC_K_MAP || v.k == DC_K_ERROR; /* a device, or its fault */
    case DC_TY_LIST:
        if (v.k != DC_K_LIST)
            return false;
        for (uint32_t i = 0; i < v.u.l->n; i++)
            if (!dc_val_has_type(v.u.l->v[i], t->a))
                return false;
        return true;
    case DC_TY_MAP:
        if (v.k != DC_K_MAP)
            return false;
        for (uint32_t i = 0; i < v.u.m->n; i++)
            if (!dc_val_has_type(v.u.m->keys[i], t->a) || !dc_val_has_type(v.u.m->vals[i], t->b))
                return false;
        return true;
    case DC_TY_OPTIONAL:
        return v.k == DC_K_OPTIONAL && (!v.u.opt || dc_val_has_type(*v.u.opt, t->a));
    default: return false;
    }
}

