/*
 * json_val.c: values from JSON: typed JSON (`--bind NAME={"int":"4"}`, DESIGN.md) and a DRA
 * device (`--device FILE`: one entry of a ResourceSlice's spec.devices plus "driver").
 *
 * cJSON's pitfalls are handled here (reference/ecosystem.md section 6): object keys are looked
 * up case-sensitively; duplicate keys are rejected; integers must be exact (a JSON number is
 * accepted only when it is integral and within 2^53, a string holds any int64/uint64 exactly);
 * strings with U+0000 cannot be told from truncated ones and are rejected; nesting is bounded.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonval.h"
#include "registry.h"

#define MAX_DEPTH 64

/* A strict JSON syntax check (RFC 8259), used only after cJSON failed: cJSON returns NULL both
 * for bad syntax and when it runs out of memory, and only this tells the two apart. Depth is
 * bounded by the caller's pre-scan. */
typedef struct jv {
    const char *p, *end;
} jv;

static void jv_ws(jv *v)
{
    while (v->p < v->end && (*v->p == ' ' || *v->p == '\t' || *v->p == '\n' || *v->p == '\r'))
        v->p++;
}

static bool jv_lit(jv *v, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(v->end - v->p) < n || memcmp(v->p, w, n) != 0)
        return false;
    v->p += n;
    return true;
}

static bool jv_digits(jv *v)
{
    const char *s = v->p;
    while (v->p < v->end && *v->p >= '0' && *v->p <= '9')
        v->p++;
    return v->p > s;
}

static bool jv_value(jv *v);

static bool jv_string(jv *v)
{
    if (v->p >= v->end || *v->p != '"')
        return false;
    for (v->p++; v->p < v->end; v->p++) {
        unsigned char ch = (unsigned char)*v->p;
        if (ch == '"') {
            v->p++;
            return true;
        }
        if (ch < 0x20)
            return false;
        if (ch == '\\') {
            if (++v->p >= v->end)
                return false;
            if (*v->p == 'u') {
                /* as cJSON: a surrogate must be a high one followed by an escaped low one */
                unsigned cp = 0;
                for (int k = 0; k < 4; k++) {
                    if (++v->p >= v->end || !strchr("0123456789abcdefABCDEF", *v->p))
                        return false;
                    cp = cp * 16 + (unsigned)(*v->p <= '9' ? *v->p - '0' : (*v->p | 0x20) - 'a' + 10);
                }
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    return false;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo = 0;
                    if (v->end - v->p < 7 || v->p[1] != '\\' || v->p[2] != 'u')
                        return false;
                    v->p += 2;
                    for (int k = 0; k < 4; k++) {
                        if (!strchr("0123456789abcdefABCDEF", *++v->p))
                            return false;
                        lo = lo * 16 + (unsigned)(*v->p <= '9' ? *v->p - '0' : (*v->p | 0x20) - 'a' + 10);
                    }
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return false;
                }
            } else if (!strchr("\"\\/bfnrt", *v->p)) {
                return false;
            }
        }
    }
    return false;
}

static bool jv_value(jv *v)
{
    jv_ws(v);
    if (v->p >= v->end)
        return false;
    switch (*v->p) {
    case '{':
    case '[': {
        char close = *v->p == '{' ? '}' : ']';
        bool obj = close == '}';
        v->p++;
        jv_ws(v);
        if (v->p < v->end && *v->p == close) {
            v->p++;
            return true;
        }
        for (;;) {
            if (obj) {
                jv_ws(v);
                if (!jv_string(v))
                    return false;
                jv_ws(v);
                if (v->p >= v->end || *v->p++ != ':')
                    return false;
            }
            if (!jv_value(v))
                return false;
            jv_ws(v);
            if (v->p >= v->end)
                return false;
            if (*v->p == close) {
                v->p++;
                return true;
            }
            if (*v->p++ != ',')
                return false;
        }
    }
    case '"': return jv_string(v);
    case 't': return jv_lit(v, "true");
    case 'f': return jv_lit(v, "false");
    case 'n': return jv_lit(v, "null");
    default:
        if (*v->p == '-')
            v->p++;
        if (v->p < v->end && *v->p == '0')
            v->p++;
        else if (!jv_digits(v))
            return false;
        if (v->p < v->end && *v->p == '.') {
            v->p++;
            if (!jv_digits(v))
                return false;
        }
        if (v->p < v->end && (*v->p == 'e' || *v->p == 'E')) {
            v->p++;
            if (v->p < v->end && (*v->p == '+' || *v->p == '-'))
                v->p++;
            if (!jv_digits(v))
                return false;
        }
        return true;
    }
}

static bool json_valid(const char *text, size_t len)
{
    jv v = {text, text + len};
    if (!jv_value(&v))
        return false;
    jv_ws(&v);
    return v.p == v.end;
}

/* Parse JSON text of length len, rejecting trailing garbage. cJSON's "require NUL-terminated"
 * check reads the byte after the value within the given length, so the length passed must
 * include a NUL: the text is copied with one (the input need not be NUL-terminated). Nesting is
 * bounded before parsing. */
static cJSON *parse_json(dc_ectx *c, const char *text, size_t len, char *err, size_t cap)
{
    int depth = 0, max = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > max)
                max = depth;
        } else if (ch == ']' || ch == '}') {
            depth--;
        }
    }
    if (max > 2 * MAX_DEPTH) {
        snprintf(err, cap, "JSON nested deeper than %d", 2 * MAX_DEPTH);
        return NULL;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        c->oom = true;
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 1);
    if (!j && memchr(text, '\0', len) == NULL && json_valid(text, len)) {
        c->oom = true; /* valid JSON that cJSON could not build */
        snprintf(err, cap, "out of memory");
    } else if (!j) {
        snprintf(err, cap, "invalid JSON near byte %zu", end ? (size_t)(end - copy) : (size_t)0);
    }
    free(copy);
    return j;
}

static const char *dup_keys(const cJSON *obj)
{
    for (const cJSON *a = obj->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (a->string && b->string && strcmp(a->string, b->string) == 0)
                return a->string;
    return NULL;
}

static dc_str *jstr(dc_ectx *c, const char *s)
{
    return dc_str_new(c, s, strlen(s));
}

static const char *parse_int(const cJSON *x, bool is_unsigned, dc_val *out, char *err, size_t cap)
{
    if (cJSON_IsString(x)) {
        const char *s = x->valuestring;
        char *end;
        errno = 0;
        if (!*s || (is_unsigned && *s == '-') || *s == ' ' || *s == '+')
            goto bad;
        if (is_unsigned) {
            unsigned long long v = strtoull(s, &end, 10);
            if (errno || *end)
                goto bad;
            *out = dc_uint(v);
        } else {
            long long v = strtoll(s, &end, 10);
            if (errno || *end)
                goto bad;
            *out = dc_int(v);
        }
        return NULL;
    }
    if (cJSON_IsNumber(x)) {
        double d = x->valuedouble;
        if (d != trunc(d) || fabs(d) > 9007199254740992.0 || (is_unsigned && d < 0))
            goto bad;
        *out = is_unsigned ? dc_uint((uint64_t)d) : dc_int((int64_t)d);
        return NULL;
    }
bad:
    snprintf(err, cap, "%s must be an exact %s (a JSON string of digits for values beyond 2^53)",
             is_unsigned ? "uint" : "int", is_unsigned ? "uint64" : "int64");
    return err;
}

static int b64val(int ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

static const char *parse_bytes(dc_ectx *c, const char *s, dc_val *out, char *err, size_t cap)
{
    size_t n = strlen(s);
    dc_str *b = dc_str_alloc(c, n / 4 * 3 + 3);
    if (!b)
        return "out of memory";
    uint32_t acc = 0;
    int bits = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=')
            break;
        int v = b64val((unsigned char)s[i]);
        if (v < 0) {
            snprintf(err, cap, "bytes must be base64");
            return err;
        }
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
    return NULL;
}

static const char *typed(dc_ectx *c, const cJSON *j, dc_val *out, int depth, char *err, size_t cap)
{
    if (depth > MAX_DEPTH) {
        snprintf(err, cap, "value nested deeper than %d", MAX_DEPTH);
        return err;
    }
    if (!cJSON_IsObject(j) || !j->child || j->child->next) {
        snprintf(err, cap, "a typed value is an object with one key, like {\"int\":\"4\"}");
        return err;
    }
    const cJSON *x = j->child;
    const char *k = x->string;
    if (strcmp(k, "int") == 0 || strcmp(k, "uint") == 0)
        return parse_int(x, k[0] == 'u', out, err, cap);
    if (strcmp(k, "double") == 0) {
        if (cJSON_IsNumber(x)) {
            *out = dc_double(x->valuedouble);
            return NULL;
        }
        if (cJSON_IsString(x)) {
            const char *s = x->valuestring;
            if (strcmp(s, "NaN") == 0) { *out = dc_double(NAN); return NULL; }
            if (strcmp(s, "Infinity") == 0) { *out = dc_double(INFINITY); return NULL; }
            if (strcmp(s, "-Infinity") == 0) { *out = dc_double(-INFINITY); return NULL; }
        }
        snprintf(err, cap, "double must be a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
        return err;
    }
    if (strcmp(k, "string") == 0 && cJSON_IsString(x)) {
        dc_str *s = jstr(c, x->valuestring);
        if (!s)
            return "out of memory";
        *out = dc_strval(s);
        return NULL;
    }
    if (strcmp(k, "bytes") == 0 && cJSON_IsString(x))
        return parse_bytes(c, x->valuestring, out, err, cap);
    if (strcmp(k, "bool") == 0 && cJSON_IsBool(x)) {
        *out = dc_bool(cJSON_IsTrue(x));
        return NULL;
    }
    if (strcmp(k, "null") == 0 && cJSON_IsNull(x)) {
        *out = dc_null();
        return NULL;
    }
    if (strcmp(k, "list") == 0 && cJSON_IsArray(x)) {
        int n = cJSON_GetArraySize(x);
        dc_list *l = dc_list_new(c, (uint32_t)n);
        if (!l)
            return "out of memory";
        int i = 0;
        for (const cJSON *e = x->child; e; e = e->next, i++) {
            const char *m = typed(c, e, &l->v[i], depth + 1, err, cap);
            if (m)
                return m;
        }
        *out = dc_listval(l);
        return NULL;
    }
    if (strcmp(k, "map") == 0 && cJSON_IsArray(x)) {
        int n = cJSON_GetArraySize(x);
        dc_val *keys = dc_ealloc(c, (size_t)(n ? n : 1) * sizeof *keys);
        dc_val *vals = dc_ealloc(c, (size_t)(n ? n : 1) * sizeof *vals);
        if (!keys || !vals)
            return "out of memory";
        int i = 0;
        for (const cJSON *e = x->child; e; e = e->next, i++) {
            if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2) {
                snprintf(err, cap, "a map entry is a pair [KEY, VALUE]");
                return err;
            }
            const char *m = typed(c, e->child, &keys[i], depth + 1, err, cap);
            if (!m)
                m = typed(c, e->child->next, &vals[i], depth + 1, err, cap);
            if (m)
                return m;
        }
        dc_val mv = dc_map_build(c, keys, vals, (uint32_t)n);
        if (mv.k == DC_K_ERROR) {
            snprintf(err, cap, "map: %s", mv.u.e->msg);
            return err;
        }
        *out = mv;
        return NULL;
    }
    if (strcmp(k, "quantity") == 0 && cJSON_IsString(x)) {
        dc_qty q;
        const char *m = dc_qty_parse(x->valuestring, strlen(x->valuestring), &q);
        if (m) {
            snprintf(err, cap, "quantity: %s", m);
            return err;
        }
        dc_qtyobj *o = dc_ealloc(c, sizeof *o);
        if (!o || !(o->text = jstr(c, x->valuestring)))
            return "out of memory";
        o->q = q;
        out->k = DC_K_QUANTITY;
        out->u.q = o;
        return NULL;
    }
    if (strcmp(k, "semver") == 0 && cJSON_IsString(x)) {
        dc_val v = dc_semver_value(c, x->valuestring, strlen(x->valuestring), false);
        if (v.k == DC_K_ERROR) {
            snprintf(err, cap, "semver: %s", v.u.e->msg);
            return err;
        }
        *out = v;
        return NULL;
    }
    if (strcmp(k, "optional") == 0) {
        if (cJSON_IsNull(x)) {
            *out = dc_optional_none();
            return NULL;
        }
        dc_val inner;
        const char *m = typed(c, x, &inner, depth + 1, err, cap);
        if (m)
            return m;
        *out = dc_optional(c, inner);
        return out->k == DC_K_ERROR ? "out of memory" : NULL;
    }
    snprintf(err, cap, "unknown or malformed typed value '%s'", k);
    return err;
}

const char *dc_json_typed(dc_ectx *c, const char *text, size_t len, dc_val *out, char *err,
                          size_t cap)
{
    cJSON *j = parse_json(c, text, len, err, cap);
    if (!j)
        return err;
    const char *m = typed(c, j, out, 0, err, cap);
    cJSON_Delete(j);
    return m;
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

/* ---- A DRA device. */

/* Split a qualified name as Kubernetes does: unqualified names belong to the driver's domain. */
static void split_name(const char *name, const char *driver, const char **dom, size_t *dn,
                       const char **id)
{
    const char *slash = strchr(name, '/');
    if (slash) {
        *dom = name;
        *dn = (size_t)(slash - name);
        *id = slash + 1;
    } else {
        *dom = driver;
        *dn = strlen(driver);
        *id = name;
    }
}

/* Group entries by domain: returns a map domain -> (map id -> value), missing domains empty. */
typedef struct group_builder {
    dc_val *dkeys;     /* domain strings */
    dc_val **ids;      /* per domain: id keys */
    dc_val **vals;
    uint32_t *counts;
    uint32_t ndom, cap;
} group_builder;

static const char *attr_value(dc_ectx *c, const cJSON *x, dc_val *out, char *err, size_t cap,
                              const char *name)
{
    if (!cJSON_IsObject(x) || !x->child || x->child->next) {
        snprintf(err, cap, "attribute %s: want one of {\"int\":..}, {\"bool\":..}, {\"string\":..}, {\"version\":..}", name);
        return err;
    }
    const cJSON *v = x->child;
    if (strcmp(v->string, "int") == 0) {
        if (parse_int(v, false, out, err, cap)) {
            snprintf(err, cap, "attribute %s: int must be an exact int64", name);
            return err;
        }
        return NULL;
    }
    if (strcmp(v->string, "bool") == 0 && cJSON_IsBool(v)) {
        *out = dc_bool(cJSON_IsTrue(v));
        return NULL;
    }
    if (strcmp(v->string, "string") == 0 && cJSON_IsString(v)) {
        dc_str *s = jstr(c, v->valuestring);
        if (!s)
            return "out of memory";
        *out = dc_strval(s);
        return NULL;
    }
    if (strcmp(v->string, "version") == 0 && cJSON_IsString(v)) {
        /* A bad version is an evaluation error when the selector reads it (Kubernetes:
         * "parse semantic version"). */
        dc_val sv = dc_semver_value(c, v->valuestring, strlen(v->valuestring), false);
        if (sv.k == DC_K_ERROR)
            sv = dc_error(c, "parse semantic version: %s", sv.u.e->msg);
        *out = sv;
        return NULL;
    }
    snprintf(err, cap, "attribute %s: unsupported value '%s' (list-type attributes are not supported)",
             name, v->string);
    return err;
}

static const char *capacity_value(dc_ectx *c, const cJSON *x, dc_val *out, char *err, size_t cap,
                                  const char *name)
{
    const cJSON *v = cJSON_IsObject(x) ? cJSON_GetObjectItemCaseSensitive(x, "value") : NULL;
    if (!cJSON_IsString(v)) {
        snprintf(err, cap, "capacity %s: want {\"value\": \"<quantity>\"}", name);
        return err;
    }
    dc_qty q;
    const char *m = dc_qty_parse(v->valuestring, strlen(v->valuestring), &q);
    if (m) {
        snprintf(err, cap, "capacity %s: %s", name, m);
        return err;
    }
    dc_qtyobj *o = dc_ealloc(c, sizeof *o);
    if (!o || !(o->text = jstr(c, v->valuestring)))
        return "out of memory";
    o->q = q;
    out->k = DC_K_QUANTITY;
    out->u.q = o;
    return NULL;
}

/* Build domain -> id -> value from a JSON object of qualified names. */
static const char *grouped(dc_ectx *c, const cJSON *obj, const char *driver, bool capacity,
                           dc_val *out, char *err, size_t cap, dc_val *bad_attr)
{
    uint32_t n = 0;
    if (obj) {
        if (!cJSON_IsObject(obj)) {
            snprintf(err, cap, "%s must be an object", capacity ? "capacity" : "attributes");
            return err;
        }
        const char *d = dup_keys(obj);
        if (d) {
            snprintf(err, cap, "%s: duplicate key %s", capacity ? "capacity" : "attributes", d);
            return err;
        }
        n = (uint32_t)cJSON_GetArraySize(obj);
    }
    if (n > 32) {
        snprintf(err, cap, "%s: %u entries, more than Kubernetes allows (32)",
                 capacity ? "capacity" : "attributes", n);
        return err;
    }
    /* At most n domains; for each, collect its entries (n is small: quadratic is fine). */
    dc_val dk[32], dv[32];
    uint32_t nd = 0;
    const cJSON *items[32];
    uint32_t k = 0;
    for (const cJSON *e = obj ? obj->child : NULL; e; e = e->next)
        items[k++] = e;
    bool used[32] = {false};
    for (uint32_t i = 0; i < n; i++) {
        if (used[i])
            continue;
        const char *dom, *id;
        size_t dn;
        split_name(items[i]->string, driver, &dom, &dn, &id);
        dc_val ik[32], iv[32];
        uint32_t ni = 0;
        for (uint32_t j = i; j < n; j++) {
            const char *dom2, *id2;
            size_t dn2;
            split_name(items[j]->string, driver, &dom2, &dn2, &id2);
            if (used[j] || dn2 != dn || memcmp(dom, dom2, dn) != 0)
                continue;
            used[j] = true;
            dc_str *ids = jstr(c, id2);
            if (!ids)
                return "out of memory";
            ik[ni] = dc_strval(ids);
            const char *m = capacity ? capacity_value(c, items[j], &iv[ni], err, cap, items[j]->string)
                                     : attr_value(c, items[j], &iv[ni], err, cap, items[j]->string);
            if (m)
                return m;
            if (iv[ni].k == DC_K_ERROR && bad_attr->k != DC_K_ERROR)
                *bad_attr = dc_error(c, "attribute %s: %s", items[j]->string, iv[ni].u.e->msg);
            ni++;
        }
        /* Attribute values may be error values (bad versions): build the map by hand so that
         * the error stays inside as the value of that id. */
        dc_map *m = dc_ealloc(c, sizeof *m);
        dc_val *mk = dc_ealloc(c, ni * sizeof *mk), *mv = dc_ealloc(c, ni * sizeof *mv);
        dc_str *ds = dc_str_new(c, dom, dn);
        if (!m || !mk || !mv || !ds)
            return "out of memory";
        memcpy(mk, ik, ni * sizeof *mk);
        memcpy(mv, iv, ni * sizeof *mv);
        memset(m, 0, sizeof *m);
        m->n = ni;
        m->keys = mk;
        m->vals = mv;
        dk[nd] = dc_strval(ds);
        dv[nd] = dc_mapval(m);
        nd++;
    }
    dc_val g = dc_map_build(c, dk, dv, nd);
    if (g.k == DC_K_ERROR)
        return "out of memory";
    ((dc_map *)g.u.m)->flags |= DC_MAPF_MISSING_EMPTY;
    *out = g;
    return NULL;
}

const char *dc_json_device(dc_ectx *c, const char *text, size_t len, dc_val *out, char *err,
                           size_t cap)
{
    cJSON *j = parse_json(c, text, len, err, cap);
    if (!j)
        return err;
    const char *m = NULL;
    const char *d = cJSON_IsObject(j) ? dup_keys(j) : NULL;
    const cJSON *driver = cJSON_GetObjectItemCaseSensitive(j, "driver");
    const cJSON *multi = cJSON_GetObjectItemCaseSensitive(j, "allowMultipleAllocations");
    dc_val keys[4], vals[4];
    if (!cJSON_IsObject(j)) {
        m = "a device is a JSON object";
    } else if (d) {
        snprintf(err, cap, "duplicate key %s", d);
        m = err;
    } else if (!cJSON_IsString(driver) || !*driver->valuestring) {
        m = "a device needs \"driver\": the name of its driver";
    } else if (multi && !cJSON_IsBool(multi)) {
        m = "allowMultipleAllocations must be a bool";
    } else {
        dc_str *k0 = jstr(c, "driver"), *k1 = jstr(c, "attributes"), *k2 = jstr(c, "capacity"),
               *k3 = jstr(c, "allowMultipleAllocations"), *dv = jstr(c, driver->valuestring);
        if (!k0 || !k1 || !k2 || !k3 || !dv) {
            m = "out of memory";
        } else {
            keys[0] = dc_strval(k0);
            vals[0] = dc_strval(dv);
            keys[1] = dc_strval(k1);
            keys[2] = dc_strval(k2);
            keys[3] = dc_strval(k3);
            vals[3] = dc_bool(multi && cJSON_IsTrue(multi));
            dc_val bad = dc_null();
            m = grouped(c, cJSON_GetObjectItemCaseSensitive(j, "attributes"), driver->valuestring,
                        false, &vals[1], err, cap, &bad);
            if (!m)
                m = grouped(c, cJSON_GetObjectItemCaseSensitive(j, "capacity"), driver->valuestring,
                            true, &vals[2], err, cap, &bad);
            if (!m && bad.k == DC_K_ERROR) {
                /* Kubernetes converts every attribute before it evaluates a selector: a bad
                 * version fails the evaluation of any selector on this device. */
                ((dc_err *)bad.u.e)->flags |= DC_ERRF_DEVICE;
                *out = bad;
            } else if (!m) {
                *out = dc_map_build(c, keys, vals, 4);
                if (out->k == DC_K_ERROR)
                    m = "out of memory";
            }
        }
    }
    cJSON_Delete(j);
    return m;
}
