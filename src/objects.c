/*
 * objects.c: DeviceClasses, ResourceClaims, ResourceClaimTemplates, Nodes and the scenario of
 * `dra-celc allocate` (see claims.h), decoded from the tree of src/slices.c's loader (ldint.h):
 * slices.c parses the files and dispatches each object by kind; the decoders here apply
 * Kubernetes' API validation of the fields dracel reads (resource.k8s.io/v1 after defaulting)
 * and report the first problem as the slice loader does ("FILE:LINE: KIND NAME: FIELD.PATH:
 * what is wrong").
 *
 * Decisions:
 *   - What only the allocator decides is kept as written: a class that does not exist, a request
 *     without deviceClassName, an allocationMode other than ExactCount and All (the API would
 *     reject it; the allocator reports "unsupported count mode"), a selector without `cel`
 *     (expr NULL: the allocator's "CEL expression empty").
 *   - `count`: v1 defaulting makes an ExactCount count of 0 (or none) 1, so only a negative count
 *     is rejected; with All a count other than 0 is rejected; with an unknown mode it is kept.
 *   - Empty strings are unset (NULL), as Go's zero values are: allocationMode "", operator ""
 *     (Equal), a toleration's key, value and effect "".
 *   - Config entries without `opaque` are dropped (after their `requests` are checked).
 *     `parameters` may be any value (null: absent); it is re-encoded as compact JSON (keys in
 *     document order; JSON numbers as written; YAML integers in decimal, YAML floats as written
 *     when that is JSON, else shortest round-trip text) and that text may be at most 10 KiB.
 *     From JSON, parameters nested past the loader's depth limit come as their text
 *     (DC_TN_RAW), kept without its blanks (strings as written, escapes and all).
 *   - Node labels are sorted by key; a key given twice is an error.
 *   - In a scenario, objects are checked against the kind of their list when they have one, and
 *     their apiVersion when they have one.
 */
#include "ldint.h"
#include "k8s.h"
#include "quantity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REQUESTS 32u     /* DeviceRequestsMaxSize */
#define MAX_SUBREQUESTS 8u   /* FirstAvailableDeviceRequestMaxSize */
#define MAX_SELECTORS 32u    /* DeviceSelectorsMaxSize */
#define MAX_TOLERATIONS 16u  /* DeviceTolerationsMaxLength */
#define MAX_CONSTRAINTS 32u  /* DeviceConstraintsMaxSize */
#define MAX_CONFIG 32u       /* DeviceConfigMaxSize */
#define MAX_EXPR_LEN 10240u  /* CELSelectorExpressionMaxLength */
#define MAX_PARAMS_LEN 10240u /* OpaqueParametersMaxLength */
#define MAX_RESULTS 32u      /* AllocationResultsMaxSize */
#define MAX_RESERVED 256u    /* ResourceClaimReservedForMaxSize */

static const char WHY_REF[] =
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'";

/* ---------------------------------------------------------------------------------------------
 * Small helpers
 */

/* Append x to an arena-backed array of the set (grown by doubling, old copies left in the arena
 * as the slice loader does). */
static dracel_status push(dc_ld *c, void **arr, uint32_t *n, uint32_t *cap, size_t elem,
                          const void *x)
{
    if (*n == *cap) {
        if (*cap > UINT32_MAX / 2)
            return dc_ld_oom(c);
        uint32_t nc = *cap ? *cap * 2 : 16;
        void *p = dc_arena_alloc(&c->s->arena, (size_t)nc * elem);
        if (!p)
            return dc_ld_oom(c);
        if (*n)
            memcpy(p, *arr, (size_t)*n * elem);
        *arr = p;
        *cap = nc;
    }
    memcpy((char *)*arr + (size_t)*n * elem, x, elem);
    (*n)++;
    return DRACEL_OK;
}

/* A list field (path already pushed) of at most max entries. */
static dracel_status list(dc_ld *c, const dc_tent *e, const char *what, uint32_t max)
{
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_SEQ));
    if (e->v.n > max)
        return dc_ld_fail(c, e->kline, "%u %s, more than %u", (unsigned)e->v.n, what,
                          (unsigned)max);
    return DRACEL_OK;
}

/* An optional string field: NULL when absent or empty. */
static dracel_status opt_str(dc_ld *c, const dc_tent *e, const char **out)
{
    *out = NULL;
    if (!e)
        return DRACEL_OK;
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_STR));
    if (e->v.n == 0)
        return DRACEL_OK;
    return dc_ld_sdup(c, e->v.s, e->v.n, out);
}

static dracel_status dup_value(dc_ld *c, const dc_tnode *v)
{
    return dc_ld_fail(c, v->line, "duplicate value %s", dc_ld_qs(c, 0, v->s, v->n, true));
}

/* ---------------------------------------------------------------------------------------------
 * Metadata and labels
 */

typedef struct klabel {
    const dc_tent *e;
    uint32_t i;
} klabel;

static int cmp_klabel(const void *a, const void *b)
{
    const klabel *x = a, *y = b;
    int r = strcmp(x->e->k, y->e->k);
    return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* A labels map (path pushed): keys are label keys, values label values; sorted by key. */
static dracel_status labels(dc_ld *c, const dc_tent *e, dc_label_in **out, uint32_t *nout)
{
    const dc_tnode *m = &e->v;
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    if (m->n == 0)
        return DRACEL_OK;
    dc_label_in *lab = dc_ld_szalloc(c, m->n, sizeof *lab);
    klabel *ord = dc_arena_alloc(&c->doc, (size_t)m->n * sizeof *ord);
    if (!lab || !ord)
        return dc_ld_oom(c);
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_tent *x = &m->kids[i];
        dc_path_key(c, x->k, x->klen);
        const char *why = dc_ld_label_key_err(x->k, x->klen);
        if (why)
            return dc_ld_fail(c, x->kline, "invalid label key: %s", why);
        if (x->v.t != DC_TN_NULL) {
            DC_TRY(dc_ld_want(c, &x->v, DC_TN_STR));
            if ((why = dc_ld_label_value_err(x->v.s, x->v.n)) != NULL)
                return dc_ld_bad_value(c, &x->v, why);
        }
        dc_path_pop(c);
        ord[i] = (klabel){x, i};
    }
    dc_sort(ord, m->n, sizeof *ord, cmp_klabel);
    /* The duplicate reported is the second occurrence that comes first in the document. */
    uint32_t dup = UINT32_MAX;
    for (uint32_t i = 1; i < m->n; i++)
        if (strcmp(ord[i - 1].e->k, ord[i].e->k) == 0 && ord[i].i < dup)
            dup = ord[i].i;
    if (dup != UINT32_MAX) {
        const dc_tent *x = &m->kids[dup];
        return dc_ld_fail(c, x->kline, "duplicate key %s", dc_ld_qs(c, 0, x->k, x->klen, true));
    }
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_tent *x = ord[i].e;
        DC_TRY(dc_ld_sdup(c, x->k, x->klen, &lab[i].key));
        if (x->v.t == DC_TN_NULL)
            lab[i].value = "";
        else
            DC_TRY(dc_ld_sdup(c, x->v.s, x->v.n, &lab[i].value));
    }
    *out = lab;
    *nout = m->n;
    return DRACEL_OK;
}

/* An allocatable map (path pushed): {RESOURCE: QUANTITY}, sorted by name (dc_node_in.alloc);
 * a name given twice is an error. */
static dracel_status allocatable(dc_ld *c, const dc_tent *e, dc_label_in **out, uint32_t *nout)
{
    const dc_tnode *m = &e->v;
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    if (m->n == 0)
        return DRACEL_OK;
    dc_label_in *al = dc_ld_szalloc(c, m->n, sizeof *al);
    klabel *ord = dc_arena_alloc(&c->doc, (size_t)m->n * sizeof *ord);
    if (!al || !ord)
        return dc_ld_oom(c);
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_tent *x = &m->kids[i];
        dc_path_key(c, x->k, x->klen);
        if ((x->v.t != DC_TN_STR && x->v.t != DC_TN_INT) || !dc_qty_is_valid(x->v.s, x->v.n))
            return dc_ld_bad_value(c, &x->v, "must be a quantity");
        dc_path_pop(c);
        ord[i] = (klabel){x, i};
    }
    dc_sort(ord, m->n, sizeof *ord, cmp_klabel);
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_tent *x = ord[i].e;
        if (i && strcmp(ord[i - 1].e->k, x->k) == 0)
            return dc_ld_fail(c, x->kline, "duplicate key %s",
                              dc_ld_qs(c, 0, x->k, x->klen, true));
        DC_TRY(dc_ld_sdup(c, x->k, x->klen, &al[i].key));
        DC_TRY(dc_ld_sdup(c, x->v.s, x->v.n, &al[i].value));
    }
    *out = al;
    *nout = m->n;
    return DRACEL_OK;
}

/* The metadata of an object of kind `kind` (entry e, NULL when absent): starts the object's
 * messages (kind and name). name: "" when absent unless required; ns and lab may be NULL when
 * not wanted. */
static dracel_status metadata(dc_ld *c, const dc_tnode *obj, const dc_tent *e, const char *kind,
                              bool required, const char **name, const char **ns,
                              const dc_tent **lab)
{
    static const char *const MF[] = {"name", "namespace", "labels"};
    const dc_tent *f[3] = {NULL, NULL, NULL};
    c->okind = kind;
    c->oname = DC_LD_UNNAMED;
    c->np = 0;
    *name = "";
    dc_path_field(c, "metadata");
    if (e) {
        DC_TRY(dc_ld_want(c, &e->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &e->v, MF, 3, f));
    }
    dc_path_field(c, "name");
    if (f[0])
        DC_TRY(dc_ld_want(c, &f[0]->v, DC_TN_STR));
    if (f[0] && f[0]->v.n) {
        const dc_tnode *v = &f[0]->v;
        const char *why = dc_ld_subdomain_err(v->s, v->n);
        if (why) {
            c->oname = dc_ld_qs(c, 3, v->s, v->n, true); /* say which object, as given */
            return dc_ld_bad_value(c, v, why);
        }
        DC_TRY(dc_ld_sdup(c, v->s, v->n, name));
        c->oname = *name;
    } else if (required) {
        return dc_ld_fail(c, f[0] ? f[0]->v.line : e ? e->v.line : obj->line, "required value");
    }
    dc_path_pop(c);
    if (ns && f[1]) {
        const dc_tnode *v = &f[1]->v;
        dc_path_field(c, "namespace");
        DC_TRY(opt_str(c, f[1], ns));
        const char *why = v->n ? dc_ld_label_err(v->s, v->n) : NULL;
        if (why)
            return dc_ld_bad_value(c, v, why);
        dc_path_pop(c);
    }
    if (lab)
        *lab = f[2];
    dc_path_pop(c);
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Selectors, tolerations, config
 */

static dracel_status selectors(dc_ld *c, const dc_tent *e, dc_sel_in **out, uint32_t *nout)
{
    static const char *const SF[] = {"cel"};
    static const char *const CF[] = {"expression"};
    dc_path_field(c, "selectors");
    DC_TRY(list(c, e, "selectors", MAX_SELECTORS));
    const dc_tnode *l = &e->v;
    dc_sel_in *sels = dc_ld_szalloc(c, l->n, sizeof *sels);
    if (l->n && !sels)
        return dc_ld_oom(c);
    for (uint32_t i = 0; i < l->n; i++) {
        const dc_tnode *m = &l->kids[i].v;
        const dc_tent *f[1], *g[1] = {NULL};
        dc_path_index(c, i);
        DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, m, SF, 1, f));
        if (f[0]) {
            dc_path_field(c, "cel");
            DC_TRY(dc_ld_want(c, &f[0]->v, DC_TN_MAP));
            DC_TRY(dc_ld_fields(c, &f[0]->v, CF, 1, g));
            sels[i].expr = "";
            sels[i].line = f[0]->v.line;
            if (g[0]) {
                const dc_tnode *x = &g[0]->v;
                dc_path_field(c, "expression");
                DC_TRY(dc_ld_want(c, x, DC_TN_STR));
                if (x->n > MAX_EXPR_LEN)
                    return dc_ld_fail(c, x->line, "%u bytes, more than %u", (unsigned)x->n,
                                      MAX_EXPR_LEN);
                DC_TRY(dc_ld_sdup(c, x->s, x->n, &sels[i].expr));
                sels[i].len = x->n;
                sels[i].line = x->line;
                dc_path_pop(c);
            }
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    dc_path_pop(c);
    *out = sels;
    *nout = l->n;
    return DRACEL_OK;
}

static const char *const EFFECTS[] = {"None", "NoSchedule", "NoExecute", NULL};

static bool one_of(const dc_tnode *v, const char *const *list)
{
    for (; *list; list++)
        if (dc_ld_str_is(v, *list))
            return true;
    return false;
}

static dracel_status toleration(dc_ld *c, const dc_tnode *m, dc_toleration_in *t)
{
    static const char *const TF[] = {"key", "operator", "value", "effect", "tolerationSeconds"};
    static const char *const OPS[] = {"Equal", "Exists", NULL};
    const dc_tent *f[5];
    const char *why;
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, m, TF, 5, f));
    if (f[0]) {
        dc_path_field(c, "key");
        DC_TRY(opt_str(c, f[0], &t->key));
        if (t->key && (why = dc_ld_label_key_err(f[0]->v.s, f[0]->v.n)) != NULL)
            return dc_ld_bad_value(c, &f[0]->v, why);
        dc_path_pop(c);
    }
    if (f[1]) {
        dc_path_field(c, "operator");
        DC_TRY(opt_str(c, f[1], &t->op));
        if (t->op && !one_of(&f[1]->v, OPS))
            return dc_ld_fail(c, f[1]->v.line,
                              "unsupported value %s: supported values: \"Equal\", \"Exists\"",
                              dc_ld_qs(c, 0, f[1]->v.s, f[1]->v.n, true));
        dc_path_pop(c);
    }
    if (f[2]) {
        const dc_tnode *v = &f[2]->v;
        dc_path_field(c, "value");
        DC_TRY(dc_ld_want(c, v, DC_TN_STR));
        if (t->op && strcmp(t->op, "Exists") == 0) {
            if (v->n)
                return dc_ld_bad_value(c, v, "must be empty for operator `Exists`");
        } else if ((why = dc_ld_label_value_err(v->s, v->n)) != NULL) {
            return dc_ld_bad_value(c, v, why);
        }
        DC_TRY(opt_str(c, f[2], &t->value));
        dc_path_pop(c);
    }
    if (f[3]) {
        dc_path_field(c, "effect");
        DC_TRY(opt_str(c, f[3], &t->effect));
        if (t->effect && !one_of(&f[3]->v, EFFECTS))
            return dc_ld_fail(c, f[3]->v.line,
                              "unsupported value %s: supported values: \"NoExecute\", "
                              "\"NoSchedule\", \"None\"",
                              dc_ld_qs(c, 0, f[3]->v.s, f[3]->v.n, true));
        dc_path_pop(c);
    }
    if (f[4]) {
        dc_path_field(c, "tolerationSeconds");
        DC_TRY(dc_ld_want_int(c, &f[4]->v, &t->seconds));
        t->has_seconds = true;
        dc_path_pop(c);
    }
    return DRACEL_OK;
}

/* ---- parameters as compact JSON */

static void json_string(dc_buf *b, const char *s, size_t n)
{
    static const char HEX[] = "0123456789abcdef";
    size_t run = 0;
    dc_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\')
            continue;
        dc_buf_append(b, s + run, i - run);
        run = i + 1;
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t k = 2;
        switch (ch) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = HEX[ch >> 4];
            esc[5] = HEX[ch & 15];
            k = 6;
        }
        dc_buf_append(b, esc, k);
    }
    dc_buf_append(b, s + run, n - run);
    dc_buf_putc(b, '"');
}

/* The JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? */
static bool json_number(const char *s, size_t n)
{
    size_t i = 0, d;
    if (i < n && s[i] == '-')
        i++;
    if (i < n && s[i] == '0') {
        i++;
    } else {
        for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        if (i == d)
            return false;
    }
    if (i < n && s[i] == '.') {
        for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        if (i == d)
            return false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        if (i == d)
            return false;
    }
    return i == n;
}

/* A YAML float (plain scalar, YAML 1.1 syntax) as JSON. */
static dracel_status yaml_float(dc_ld *c, dc_buf *b, const dc_tnode *v)
{
    char *t = dc_arena_alloc(&c->doc, (size_t)v->n + 1);
    if (!t)
        return dc_ld_oom(c);
    size_t n = 0;
    for (uint32_t i = 0; i < v->n; i++)
        if (v->s[i] != '_')
            t[n++] = v->s[i];
    t[n] = '\0';
    if (json_number(t, n)) {
        dc_buf_append(b, t, n);
        return DRACEL_OK;
    }
    char *end;
    double d = strtod(t, &end);
    if (end != t + n || !isfinite(d)) /* .inf, .nan and their spellings */
        return dc_ld_fail(c, v->line, "invalid value %s: no JSON number has this value",
                          dc_ld_qs(c, 0, v->s, v->n, false));
    char out[40];
    for (int prec = 15; prec <= 17; prec++) { /* the shortest text that reads back the same */
        snprintf(out, sizeof out, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            break;
    }
    dc_buf_puts(b, out);
    return DRACEL_OK;
}

/* A raw JSON value (DC_TN_RAW: valid JSON, checked by the loader's scan) without the blanks
 * between its tokens; its strings and numbers as written. Linear, without recursion. */
static void json_compact(dc_buf *b, const char *s, size_t n)
{
    size_t run = 0;
    bool str = false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                str = false;
        } else if (ch == '"') {
            str = true;
        } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
            dc_buf_append(b, s + run, i - run);
            run = i + 1;
        }
    }
    dc_buf_append(b, s + run, n - run);
}

static dracel_status json_value(dc_ld *c, dc_buf *b, const dc_tnode *v)
{
    switch (v->t) {
    case DC_TN_RAW:
        json_compact(b, v->s, v->n);
        return DRACEL_OK;
    case DC_TN_NULL:
        dc_buf_puts(b, "null");
        return DRACEL_OK;
    case DC_TN_BOOL:
        dc_buf_puts(b, v->b ? "true" : "false");
        return DRACEL_OK;
    case DC_TN_INT:
        if (!v->plain)
            dc_buf_append(b, v->s, v->n); /* JSON: the token as written, exact at any size */
        else if (v->iok)
            dc_buf_printf(b, "%lld", (long long)v->i);
        else
            dc_buf_printf(b, "%llu", (unsigned long long)(uint64_t)v->i);
        return DRACEL_OK;
    case DC_TN_FLOAT:
        if (v->plain)
            return yaml_float(c, b, v);
        dc_buf_append(b, v->s, v->n);
        return DRACEL_OK;
    case DC_TN_STR:
        json_string(b, v->s, v->n);
        return DRACEL_OK;
    default: {
        bool map = v->t == DC_TN_MAP;
        dc_buf_putc(b, map ? '{' : '[');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                dc_buf_putc(b, ',');
            if (map) {
                json_string(b, v->kids[i].k, v->kids[i].klen);
                dc_buf_putc(b, ':');
            }
            DC_TRY(json_value(c, b, &v->kids[i].v));
        }
        dc_buf_putc(b, map ? '}' : ']');
        return DRACEL_OK;
    }
    }
}

static dracel_status parameters(dc_ld *c, const dc_tnode *v, const char **out)
{
    dc_buf b;
    dc_buf_init(&b, c->a);
    dracel_status st = json_value(c, &b, v);
    if (st == DRACEL_OK && b.oom)
        st = dc_ld_oom(c);
    if (st == DRACEL_OK && b.len > MAX_PARAMS_LEN)
        st = dc_ld_fail(c, v->line, "%zu bytes as JSON, more than %u", b.len, MAX_PARAMS_LEN);
    if (st == DRACEL_OK && !(*out = dc_arena_strndup(&c->s->arena, b.data, b.len)))
        st = dc_ld_oom(c);
    dc_buf_free(&b);
    return st;
}

/* The `opaque` entry e of a config entry (whose path is pushed): {driver, parameters}. */
static dracel_status opaque(dc_ld *c, const dc_tent *e, dc_opaque_in *op)
{
    static const char *const OF[] = {"driver", "parameters"};
    const dc_tent *f[2];
    const dc_tnode *v;
    dc_path_field(c, "opaque");
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, &e->v, OF, 2, f));
    dc_path_field(c, "driver");
    DC_TRY(dc_ld_req_str(c, f[0], e->v.line, &v));
    const char *why = dc_ld_driver_err(v->s, v->n);
    if (why)
        return dc_ld_bad_value(c, v, why);
    DC_TRY(dc_ld_sdup(c, v->s, v->n, &op->driver));
    dc_path_pop(c);
    if (f[1]) {
        dc_path_field(c, "parameters");
        DC_TRY(parameters(c, &f[1]->v, &op->parameters));
        dc_path_pop(c);
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * DeviceClass
 */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* An RFC 3339 time as metav1.Time reads it ("2026-01-02T03:04:05Z", a fraction and an offset
 * allowed): Unix seconds in *out. false when it is not one. */
static bool rfc3339(const char *s, size_t n, int64_t *out)
{
    unsigned v[6];
    static const char sep[] = "--T::";
    static const unsigned width[] = {4, 2, 2, 2, 2, 2};
    size_t i = 0;
    for (int k = 0; k < 6; k++) {
        v[k] = 0;
        for (unsigned w = 0; w < width[k]; w++, i++) {
            if (i >= n || s[i] < '0' || s[i] > '9')
                return false;
            v[k] = v[k] * 10 + (unsigned)(s[i] - '0');
        }
        if (k < 5) {
            if (i >= n || (s[i] != sep[k] && !(k == 2 && s[i] == 't')))
                return false;
            i++;
        }
    }
    if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60)
        return false;
    if (i < n && s[i] == '.') {
        size_t j = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == j)
            return false;
    }
    int64_t off = 0;
    if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i + 6 == n && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
        unsigned hh = 0, mm = 0;
        for (size_t k = 1; k < 6; k++) {
            if (k == 3)
                continue;
            if (s[i + k] < '0' || s[i + k] > '9')
                return false;
            if (k < 3)
                hh = hh * 10 + (unsigned)(s[i + k] - '0');
            else
                mm = mm * 10 + (unsigned)(s[i + k] - '0');
        }
        if (hh > 23 || mm > 59)
            return false;
        off = (s[i] == '-' ? -1 : 1) * (int64_t)(hh * 3600 + mm * 60);
        i += 6;
    } else {
        return false;
    }
    if (i != n)
        return false;
    *out = days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5] - off;
    return true;
}

/* An extended resource name as Kubernetes validates a DeviceClass's extendedResourceName
 * (validateExtendedResourceName): a qualified name with a domain, not in the kubernetes.io
 * domains, not starting with "requests.". NULL when valid. */
static const char *extended_name_err(const char *s, size_t n)
{
    const char *why = dc_ld_label_key_err(s, n);
    if (why)
        return why;
    if (!memchr(s, '/', n))
        return "must be a resource name with a domain prefix (an extended resource name)";
    static const char req[] = "requests.";
    if (n >= sizeof req - 1 && memcmp(s, req, sizeof req - 1) == 0)
        return "must not start with \"requests.\"";
    /* the domain is kubernetes.io or ends with .kubernetes.io */
    size_t dl = (size_t)((const char *)memchr(s, '/', n) - s), kl = strlen("kubernetes.io");
    if (dl >= kl && memcmp(s + dl - kl, "kubernetes.io", kl) == 0 &&
        (dl == kl || s[dl - kl - 1] == '.'))
        return "must not be in the kubernetes.io domain (an extended resource name)";
    return NULL;
}

static dracel_status class_obj(dc_ld *c, const dc_tnode *obj, const dc_tent *meta,
                               const dc_tent *spec)
{
    static const char *const SF[] = {"selectors", "config", "extendedResourceName"};
    static const char *const CF[] = {"opaque"};
    static const char *const TF[] = {"creationTimestamp"};
    dc_class_in cl;
    memset(&cl, 0, sizeof cl);
    cl.file = c->file;
    cl.line = obj->line;
    DC_TRY(metadata(c, obj, meta, "DeviceClass", false, &cl.name, NULL, NULL));
    if (meta && meta->v.t == DC_TN_MAP) {
        const dc_tent *t[1];
        DC_TRY(dc_ld_fields(c, &meta->v, TF, 1, t));
        if (t[0]) {
            dc_path_field(c, "metadata");
            dc_path_field(c, "creationTimestamp");
            DC_TRY(dc_ld_want(c, &t[0]->v, DC_TN_STR));
            if (!rfc3339(t[0]->v.s, t[0]->v.n, &cl.created))
                return dc_ld_bad_value(c, &t[0]->v, "must be an RFC 3339 time "
                                                    "(2026-01-02T03:04:05Z)");
            dc_path_pop(c);
            dc_path_pop(c);
        }
    }
    if (spec) {
        const dc_tent *f[3];
        dc_path_field(c, "spec");
        DC_TRY(dc_ld_want(c, &spec->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &spec->v, SF, 3, f));
        if (f[2]) {
            dc_path_field(c, "extendedResourceName");
            DC_TRY(dc_ld_want(c, &f[2]->v, DC_TN_STR));
            const char *why = extended_name_err(f[2]->v.s, f[2]->v.n);
            if (why)
                return dc_ld_bad_value(c, &f[2]->v, why);
            DC_TRY(dc_ld_sdup(c, f[2]->v.s, f[2]->v.n, &cl.extended_resource_name));
            dc_path_pop(c);
        }
        if (f[0])
            DC_TRY(selectors(c, f[0], &cl.sels, &cl.nsels));
        if (f[1]) {
            const dc_tnode *l = &f[1]->v;
            dc_path_field(c, "config");
            DC_TRY(list(c, f[1], "config entries", MAX_CONFIG));
            cl.config = dc_ld_szalloc(c, l->n, sizeof *cl.config);
            if (l->n && !cl.config)
                return dc_ld_oom(c);
            for (uint32_t i = 0; i < l->n; i++) {
                const dc_tent *g[1];
                dc_path_index(c, i);
                DC_TRY(dc_ld_want(c, &l->kids[i].v, DC_TN_MAP));
                DC_TRY(dc_ld_fields(c, &l->kids[i].v, CF, 1, g));
                if (g[0])
                    DC_TRY(opaque(c, g[0], &cl.config[cl.nconfig++]));
                dc_path_pop(c);
            }
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    c->oname = NULL;
    dc_objects *o = c->o;
    return push(c, (void **)&o->classes, &o->nclasses, &o->capclasses, sizeof cl, &cl);
}

/* ---------------------------------------------------------------------------------------------
 * ResourceClaim, ResourceClaimTemplate
 */

enum { R_NAME, R_CLASS, R_SELS, R_MODE, R_COUNT, R_ADMIN, R_TOLS, R_CAP, R_N };

/* `exactly` (exact) or one entry of `firstAvailable`. */
static dracel_status subrequest(dc_ld *c, const dc_tnode *m, bool exact, dc_subreq_in *r)
{
    static const char *const RF[R_N] = {"name",  "deviceClassName", "selectors",   "allocationMode",
                                        "count", "adminAccess",     "tolerations", "capacity"};
    const dc_tent *f[R_N];
    const char *why;
    const dc_tnode *v;
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, m, RF, R_N, f));
    r->line = m->line;
    r->count = 1;
    if (!exact) {
        dc_path_field(c, "name");
        DC_TRY(dc_ld_req_str(c, f[R_NAME], m->line, &v));
        if ((why = dc_ld_label_err(v->s, v->n)) != NULL)
            return dc_ld_bad_value(c, v, why);
        DC_TRY(dc_ld_sdup(c, v->s, v->n, &r->name));
        dc_path_pop(c);
    }
    if (f[R_CLASS]) {
        dc_path_field(c, "deviceClassName");
        DC_TRY(opt_str(c, f[R_CLASS], &r->class_name));
        v = &f[R_CLASS]->v;
        if (r->class_name && (why = dc_ld_subdomain_err(v->s, v->n)) != NULL)
            return dc_ld_bad_value(c, v, why);
        dc_path_pop(c);
    }
    if (f[R_SELS])
        DC_TRY(selectors(c, f[R_SELS], &r->sels, &r->nsels));
    if (f[R_MODE]) {
        dc_path_field(c, "allocationMode");
        DC_TRY(opt_str(c, f[R_MODE], &r->mode));
        dc_path_pop(c);
    }
    if (f[R_COUNT]) {
        int64_t n;
        bool all = r->mode && strcmp(r->mode, "All") == 0;
        bool exact_count = !r->mode || strcmp(r->mode, "ExactCount") == 0;
        dc_path_field(c, "count");
        DC_TRY(dc_ld_want_int(c, &f[R_COUNT]->v, &n));
        if (all && n != 0)
            return dc_ld_fail(c, f[R_COUNT]->v.line,
                              "invalid value %lld: must not be specified when allocationMode is "
                              "'All'",
                              (long long)n);
        if (exact_count && n < 0)
            return dc_ld_fail(c, f[R_COUNT]->v.line,
                              "invalid value %lld: must be greater than zero", (long long)n);
        if (!all && !(exact_count && n == 0))
            r->count = n;
        dc_path_pop(c);
    }
    if (exact && f[R_ADMIN]) {
        dc_path_field(c, "adminAccess");
        DC_TRY(dc_ld_want(c, &f[R_ADMIN]->v, DC_TN_BOOL));
        r->admin_access = f[R_ADMIN]->v.b;
        dc_path_pop(c);
    }
    if (f[R_TOLS]) {
        const dc_tnode *l = &f[R_TOLS]->v;
        dc_path_field(c, "tolerations");
        DC_TRY(list(c, f[R_TOLS], "tolerations", MAX_TOLERATIONS));
        r->tols = dc_ld_szalloc(c, l->n, sizeof *r->tols);
        if (l->n && !r->tols)
            return dc_ld_oom(c);
        r->ntols = l->n;
        for (uint32_t i = 0; i < l->n; i++) {
            dc_path_index(c, i);
            DC_TRY(toleration(c, &l->kids[i].v, &r->tols[i]));
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    if (f[R_CAP]) {
        static const char *const CF[] = {"requests"};
        const dc_tent *g[1];
        dc_path_field(c, "capacity");
        DC_TRY(dc_ld_want(c, &f[R_CAP]->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &f[R_CAP]->v, CF, 1, g));
        r->capacity_requests = true;
        if (g[0]) {
            const dc_tnode *rm = &g[0]->v;
            dc_path_field(c, "requests");
            DC_TRY(dc_ld_want(c, rm, DC_TN_MAP));
            r->capreqs = dc_ld_szalloc(c, rm->n, sizeof *r->capreqs);
            if (rm->n && !r->capreqs)
                return dc_ld_oom(c);
            for (uint32_t i = 0; i < rm->n; i++) {
                const dc_tent *e = &rm->kids[i];
                dc_path_key(c, e->k, e->klen);
                const char *bad = dc_ld_qualified_err(e->k, e->klen);
                if (bad)
                    return dc_ld_fail(c, e->kline, "%s", bad);
                DC_TRY(dc_ld_sdup(c, e->k, e->klen, &r->capreqs[i].name));
                DC_TRY(dc_ld_quantity(c, &e->v, &r->capreqs[i].value));
                dc_path_pop(c);
            }
            r->ncapreqs = rm->n;
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    return DRACEL_OK;
}

static dracel_status request(dc_ld *c, const dc_tnode *m, dc_request_in *q)
{
    static const char *const QF[] = {"name", "exactly", "firstAvailable", "deviceClassName"};
    const dc_tent *f[4];
    const dc_tnode *v;
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, m, QF, 4, f));
    q->line = m->line;
    dc_path_field(c, "name");
    DC_TRY(dc_ld_req_str(c, f[0], m->line, &v));
    const char *why = dc_ld_label_err(v->s, v->n);
    if (why)
        return dc_ld_bad_value(c, v, why);
    DC_TRY(dc_ld_sdup(c, v->s, v->n, &q->name));
    dc_path_pop(c);
    if (f[2]) {
        dc_path_field(c, "firstAvailable");
        DC_TRY(list(c, f[2], "subrequests", MAX_SUBREQUESTS));
        dc_path_pop(c);
    }
    bool first = f[2] && f[2]->v.n > 0; /* an empty list is no list, as in Kubernetes */
    if (c->v1beta1) {
        /* the `exactly` fields on the request itself, as the API server converts them */
        static const char *const EF[] = {"deviceClassName", "selectors",   "allocationMode",
                                         "count",           "adminAccess", "tolerations",
                                         "capacity"};
        const dc_tent *g[7];
        DC_TRY(dc_ld_fields(c, m, EF, 7, g));
        if (f[1]) {
            dc_path_field(c, "exactly");
            return dc_ld_fail(c, f[1]->kline,
                              "not a field of a resource.k8s.io/v1beta1 request: its fields "
                              "(deviceClassName, selectors...) are on the request itself");
        }
        if (first) {
            for (unsigned i = 0; i < 7; i++)
                if (g[i]) {
                    dc_path_field(c, EF[i]);
                    return dc_ld_fail(c, g[i]->kline,
                                      "must not be set together with `firstAvailable`");
                }
        } else if (!g[0]) {
            return dc_ld_fail(c, m->line,
                              "exactly one of `deviceClassName` or `firstAvailable` is required");
        } else {
            q->subs = dc_ld_szalloc(c, 1, sizeof *q->subs);
            if (!q->subs)
                return dc_ld_oom(c);
            q->nsubs = 1;
            return subrequest(c, m, true, q->subs);
        }
    }
    if (f[1] && first)
        return dc_ld_fail(c, m->line,
                          "exactly one of `exactly` or `firstAvailable` is required, but both are "
                          "set");
    if (!f[1] && !first) {
        if (f[3]) {
            dc_path_field(c, "deviceClassName");
            return dc_ld_fail(c, f[3]->kline,
                              "a request's own deviceClassName is the resource.k8s.io/v1beta1 "
                              "shape, and this object is not v1beta1: in resource.k8s.io/v1 and "
                              "v1beta2 the request's fields go under `exactly`");
        }
        return dc_ld_fail(c, m->line, "exactly one of `exactly` or `firstAvailable` is required");
    }
    if (f[1]) {
        q->subs = dc_ld_szalloc(c, 1, sizeof *q->subs);
        if (!q->subs)
            return dc_ld_oom(c);
        q->nsubs = 1;
        dc_path_field(c, "exactly");
        DC_TRY(subrequest(c, &f[1]->v, true, q->subs));
        dc_path_pop(c);
        return DRACEL_OK;
    }
    const dc_tnode *l = &f[2]->v;
    q->first_available = true;
    q->subs = dc_ld_szalloc(c, l->n, sizeof *q->subs);
    if (!q->subs)
        return dc_ld_oom(c);
    q->nsubs = l->n;
    dc_path_field(c, "firstAvailable");
    for (uint32_t i = 0; i < l->n; i++) {
        dc_path_index(c, i);
        DC_TRY(subrequest(c, &l->kids[i].v, false, &q->subs[i]));
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(q->subs[j].name, q->subs[i].name) == 0) {
                const dc_tnode *x = &l->kids[i].v;
                const dc_tent *g[1];
                static const char *const NF[] = {"name"};
                DC_TRY(dc_ld_fields(c, x, NF, 1, g));
                dc_path_field(c, "name");
                return dup_value(c, &g[0]->v);
            }
        }
        dc_path_pop(c);
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

/* Does ref ("req" or "req/sub", valid labels) name a request of the claim? */
static bool has_request(const dc_claim_in *cl, const char *ref, size_t n)
{
    const char *slash = memchr(ref, '/', n);
    size_t rn = slash ? (size_t)(slash - ref) : n;
    for (uint32_t i = 0; i < cl->nreqs; i++) {
        const dc_request_in *q = &cl->reqs[i];
        if (strlen(q->name) != rn || memcmp(q->name, ref, rn) != 0)
            continue;
        if (!slash)
            return true;
        if (!q->first_available)
            return false;
        for (uint32_t j = 0; j < q->nsubs; j++)
            if (strlen(q->subs[j].name) == n - rn - 1 &&
                memcmp(q->subs[j].name, slash + 1, n - rn - 1) == 0)
                return true;
        return false;
    }
    return false;
}

/* A string x naming a request of the claim ("req" or "req/sub"), as validateRequestNameRef
 * checks it. */
static dracel_status request_ref(dc_ld *c, const dc_tnode *x, const dc_claim_in *cl)
{
    const char *slash = memchr(x->s, '/', x->n);
    if (slash && memchr(slash + 1, '/', x->n - (size_t)(slash - x->s) - 1))
        return dc_ld_bad_value(c, x, WHY_REF);
    size_t start = 0;
    for (size_t k = 0; k <= x->n; k++) {
        if (k < x->n && x->s[k] != '/')
            continue;
        const char *why = dc_ld_label_err(x->s + start, k - start);
        if (why)
            return dc_ld_fail(c, x->line, "invalid value %s: %s",
                              dc_ld_qs(c, 0, x->s + start, k - start, true), why);
        start = k + 1;
    }
    if (!has_request(cl, x->s, x->n))
        return dc_ld_bad_value(c, x, WHY_REF);
    return DRACEL_OK;
}

/* The `requests` of a constraint or a config entry (e not NULL). */
static dracel_status refs(dc_ld *c, const dc_tent *e, const dc_claim_in *cl, const char ***out,
                          uint32_t *nout)
{
    const dc_tnode *l = &e->v;
    dc_path_field(c, "requests");
    DC_TRY(list(c, e, "requests", MAX_REQUESTS));
    const char **names = dc_ld_szalloc(c, l->n, sizeof *names);
    if (l->n && !names)
        return dc_ld_oom(c);
    for (uint32_t i = 0; i < l->n; i++) {
        const dc_tnode *x = &l->kids[i].v;
        dc_path_index(c, i);
        DC_TRY(dc_ld_want(c, x, DC_TN_STR));
        DC_TRY(request_ref(c, x, cl));
        for (uint32_t j = 0; j < i; j++)
            if (strlen(names[j]) == x->n && memcmp(names[j], x->s, x->n) == 0)
                return dup_value(c, x);
        DC_TRY(dc_ld_sdup(c, x->s, x->n, &names[i]));
        dc_path_pop(c);
    }
    dc_path_pop(c);
    *out = names;
    *nout = l->n;
    return DRACEL_OK;
}

/* matchAttribute or distinctAttribute: a fully qualified attribute name. */
static dracel_status attribute_name(dc_ld *c, const dc_tent *e, const char *field, const char **out)
{
    const dc_tnode *v = &e->v;
    dc_path_field(c, field);
    DC_TRY(dc_ld_want(c, v, DC_TN_STR));
    const char *why = dc_ld_qualified_err(v->s, v->n);
    if (!why && !memchr(v->s, '/', v->n))
        why = "must include a domain";
    if (why)
        return dc_ld_bad_value(c, v, why);
    DC_TRY(dc_ld_sdup(c, v->s, v->n, out));
    dc_path_pop(c);
    return DRACEL_OK;
}

static dracel_status constraint(dc_ld *c, const dc_tnode *m, const dc_claim_in *cl,
                                dc_constraint_in *k)
{
    static const char *const KF[] = {"requests", "matchAttribute", "distinctAttribute"};
    const dc_tent *f[3];
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, m, KF, 3, f));
    k->line = m->line;
    if (f[0])
        DC_TRY(refs(c, f[0], cl, &k->requests, &k->nrequests));
    if (f[1] && f[2])
        return dc_ld_fail(c, m->line,
                          "exactly one of `matchAttribute` or `distinctAttribute` is required, but "
                          "both are set");
    if (!f[1] && !f[2])
        return dc_ld_fail(c, m->line,
                          "exactly one of `matchAttribute` or `distinctAttribute` is required");
    if (f[1])
        return attribute_name(c, f[1], "matchAttribute", &k->match_attribute);
    return attribute_name(c, f[2], "distinctAttribute", &k->distinct_attribute);
}

/* spec.devices of a claim (spec.spec.devices of a template); the path is pushed. */
static dracel_status devices(dc_ld *c, const dc_tnode *m, dc_claim_in *cl)
{
    static const char *const DF[] = {"requests", "constraints", "config"};
    static const char *const GF[] = {"requests", "opaque"};
    const dc_tent *f[3];
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, m, DF, 3, f));
    if (f[0]) {
        const dc_tnode *l = &f[0]->v;
        dc_path_field(c, "requests");
        DC_TRY(list(c, f[0], "requests", MAX_REQUESTS));
        cl->reqs = dc_ld_szalloc(c, l->n, sizeof *cl->reqs);
        if (l->n && !cl->reqs)
            return dc_ld_oom(c);
        for (uint32_t i = 0; i < l->n; i++) {
            dc_path_index(c, i);
            DC_TRY(request(c, &l->kids[i].v, &cl->reqs[i]));
            for (uint32_t j = 0; j < i; j++) {
                if (strcmp(cl->reqs[j].name, cl->reqs[i].name) == 0) {
                    const dc_tent *g[1];
                    static const char *const NF[] = {"name"};
                    DC_TRY(dc_ld_fields(c, &l->kids[i].v, NF, 1, g));
                    dc_path_field(c, "name");
                    return dup_value(c, &g[0]->v);
                }
            }
            cl->nreqs = i + 1;
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    if (f[1]) {
        const dc_tnode *l = &f[1]->v;
        dc_path_field(c, "constraints");
        DC_TRY(list(c, f[1], "constraints", MAX_CONSTRAINTS));
        cl->cons = dc_ld_szalloc(c, l->n, sizeof *cl->cons);
        if (l->n && !cl->cons)
            return dc_ld_oom(c);
        cl->ncons = l->n;
        for (uint32_t i = 0; i < l->n; i++) {
            dc_path_index(c, i);
            DC_TRY(constraint(c, &l->kids[i].v, cl, &cl->cons[i]));
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    if (f[2]) {
        const dc_tnode *l = &f[2]->v;
        dc_path_field(c, "config");
        DC_TRY(list(c, f[2], "config entries", MAX_CONFIG));
        cl->config = dc_ld_szalloc(c, l->n, sizeof *cl->config);
        if (l->n && !cl->config)
            return dc_ld_oom(c);
        for (uint32_t i = 0; i < l->n; i++) {
            const dc_tnode *x = &l->kids[i].v;
            const dc_tent *g[2];
            dc_claim_config_in *cf = &cl->config[cl->nconfig];
            dc_path_index(c, i);
            DC_TRY(dc_ld_want(c, x, DC_TN_MAP));
            DC_TRY(dc_ld_fields(c, x, GF, 2, g));
            if (g[0])
                DC_TRY(refs(c, g[0], cl, &cf->requests, &cf->nrequests));
            if (g[1]) {
                DC_TRY(opaque(c, g[1], &cf->opaque));
                cl->nconfig++;
            } else {
                memset(cf, 0, sizeof *cf);
            }
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    return DRACEL_OK;
}

/* A required string field of a status entry (path of the entry pushed): its copy in *out, after
 * the check why_fn (NULL: none). */
static dracel_status status_str(dc_ld *c, const dc_tent *e, uint32_t mline, const char *field,
                                const char *(*why_fn)(const char *, size_t), const char **out)
{
    const dc_tnode *v;
    dc_path_field(c, field);
    DC_TRY(dc_ld_req_str(c, e, mline, &v));
    const char *why = why_fn ? why_fn(v->s, v->n) : NULL;
    if (why)
        return dc_ld_bad_value(c, v, why);
    DC_TRY(dc_ld_sdup(c, v->s, v->n, out));
    dc_path_pop(c);
    return DRACEL_OK;
}

/* validateUID: the normalized RFC 4122 form, lowercase. */
static bool uuid_ok(const char *s, size_t n)
{
    if (n != 36)
        return false;
    for (size_t i = 0; i < n; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    }
    return true;
}

enum { A_REQUEST, A_DRIVER, A_POOL, A_DEVICE, A_ADMIN, A_TOLS, A_SHARE, A_CONSUMED, A_N };

/* consumedCapacity (path pushed): {QualifiedName: Quantity} into *out, *n. */
static dracel_status consumed_capacity(dc_ld *c, const dc_tnode *m, dc_capacity_in **out,
                                       uint32_t *n)
{
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    *out = dc_ld_szalloc(c, m->n, sizeof **out);
    if (m->n && !*out)
        return dc_ld_oom(c);
    for (uint32_t k = 0; k < m->n; k++) {
        const dc_tent *q = &m->kids[k];
        dc_path_key(c, q->k, q->klen);
        const char *bad = dc_ld_qualified_err(q->k, q->klen);
        if (bad)
            return dc_ld_fail(c, q->kline, "%s", bad);
        DC_TRY(dc_ld_sdup(c, q->k, q->klen, &(*out)[k].name));
        DC_TRY(dc_ld_quantity(c, &q->v, &(*out)[k].value));
        dc_path_pop(c);
    }
    *n = m->n;
    return DRACEL_OK;
}

/* One entry of status.allocation.devices.results (validateDeviceRequestAllocationResult). */
static dracel_status result(dc_ld *c, const dc_tnode *m, const dc_claim_in *cl, dc_result_in *r)
{
    static const char *const RF[A_N] = {"request",     "driver",      "pool",   "device",
                                        "adminAccess", "tolerations", "shareID",
                                        "consumedCapacity"};
    const dc_tent *f[A_N];
    const dc_tnode *v;
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, m, RF, A_N, f));
    r->line = m->line;
    dc_path_field(c, "request");
    DC_TRY(dc_ld_req_str(c, f[A_REQUEST], m->line, &v));
    DC_TRY(request_ref(c, v, cl));
    DC_TRY(dc_ld_sdup(c, v->s, v->n, &r->request));
    dc_path_pop(c);
    DC_TRY(status_str(c, f[A_DRIVER], m->line, "driver", dc_ld_driver_err, &r->driver));
    DC_TRY(status_str(c, f[A_POOL], m->line, "pool", dc_ld_pool_err, &r->pool));
    DC_TRY(status_str(c, f[A_DEVICE], m->line, "device", dc_ld_label_err, &r->device));
    if (f[A_ADMIN]) {
        dc_path_field(c, "adminAccess");
        DC_TRY(dc_ld_want(c, &f[A_ADMIN]->v, DC_TN_BOOL));
        r->admin_access = f[A_ADMIN]->v.b;
        dc_path_pop(c);
    }
    if (f[A_TOLS]) { /* checked, not kept: the allocator does not read them again */
        const dc_tnode *l = &f[A_TOLS]->v;
        dc_path_field(c, "tolerations");
        DC_TRY(list(c, f[A_TOLS], "tolerations", MAX_TOLERATIONS));
        for (uint32_t i = 0; i < l->n; i++) {
            dc_toleration_in t;
            memset(&t, 0, sizeof t);
            dc_path_index(c, i);
            DC_TRY(toleration(c, &l->kids[i].v, &t));
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    if (f[A_SHARE]) {
        v = &f[A_SHARE]->v;
        dc_path_field(c, "shareID");
        DC_TRY(dc_ld_want(c, v, DC_TN_STR));
        if (!uuid_ok(v->s, v->n))
            return dc_ld_bad_value(c, v,
                                   "uid must be in RFC 4122 normalized form, "
                                   "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                                   "hexadecimal characters");
        DC_TRY(dc_ld_sdup(c, v->s, v->n, &r->share_id));
        dc_path_pop(c);
    }
    if (f[A_CONSUMED]) {
        dc_path_field(c, "consumedCapacity");
        DC_TRY(consumed_capacity(c, &f[A_CONSUMED]->v, &r->consumed, &r->nconsumed));
        dc_path_pop(c);
    }
    return DRACEL_OK;
}

/* One entry of status.reservedFor (validateResourceClaimUserReference). */
static dracel_status consumer(dc_ld *c, const dc_tnode *m, dc_consumer_in *u)
{
    static const char *const UF[] = {"apiGroup", "resource", "name", "uid"};
    const dc_tent *f[4];
    DC_TRY(dc_ld_want(c, m, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, m, UF, 4, f));
    if (f[0]) {
        dc_path_field(c, "apiGroup");
        DC_TRY(opt_str(c, f[0], &u->api_group));
        dc_path_pop(c);
    }
    DC_TRY(status_str(c, f[1], m->line, "resource", NULL, &u->resource));
    DC_TRY(status_str(c, f[2], m->line, "name", NULL, &u->name));
    return status_str(c, f[3], m->line, "uid", NULL, &u->uid);
}

/* A ResourceClaim's status (e: the field), as ValidateResourceClaimStatusUpdate validates a new
 * status (kubernetes pkg/apis/resource/validation/validation.go): reservedFor, then
 * allocation.devices.results and allocation.nodeSelector. allocation.devices.config,
 * allocationTimestamp and status.devices are not read. */
static dracel_status claim_status(dc_ld *c, const dc_tent *e, dc_claim_in *cl)
{
    static const char *const SF[] = {"allocation", "reservedFor"};
    static const char *const AF[] = {"devices", "nodeSelector"};
    static const char *const DF[] = {"results"};
    const dc_tent *f[2], *g[2], *h[1];
    dc_path_field(c, "status");
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, &e->v, SF, 2, f));
    if (f[1]) {
        const dc_tnode *l = &f[1]->v;
        dc_path_field(c, "reservedFor");
        DC_TRY(list(c, f[1], "entries", MAX_RESERVED));
        cl->reserved = dc_ld_szalloc(c, l->n, sizeof *cl->reserved);
        if (l->n && !cl->reserved)
            return dc_ld_oom(c);
        for (uint32_t i = 0; i < l->n; i++) {
            dc_path_index(c, i);
            DC_TRY(consumer(c, &l->kids[i].v, &cl->reserved[i]));
            for (uint32_t j = 0; j < i; j++) {
                if (strcmp(cl->reserved[j].uid, cl->reserved[i].uid) == 0) {
                    static const char *const NF[] = {"uid"};
                    const dc_tent *u[1];
                    DC_TRY(dc_ld_fields(c, &l->kids[i].v, NF, 1, u));
                    dc_path_field(c, "uid");
                    return dup_value(c, &u[0]->v);
                }
            }
            dc_path_pop(c);
        }
        cl->nreserved = l->n;
        if (l->n && !f[0])
            return dc_ld_fail(c, f[1]->kline, "may not be specified when `allocated` is not set");
        dc_path_pop(c);
    }
    if (f[0]) {
        dc_path_field(c, "allocation");
        DC_TRY(dc_ld_want(c, &f[0]->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &f[0]->v, AF, 2, g));
        cl->allocated = true;
        if (g[0]) {
            dc_path_field(c, "devices");
            DC_TRY(dc_ld_want(c, &g[0]->v, DC_TN_MAP));
            DC_TRY(dc_ld_fields(c, &g[0]->v, DF, 1, h));
            if (h[0]) {
                const dc_tnode *l = &h[0]->v;
                dc_path_field(c, "results");
                DC_TRY(list(c, h[0], "results", MAX_RESULTS));
                cl->results = dc_ld_szalloc(c, l->n, sizeof *cl->results);
                if (l->n && !cl->results)
                    return dc_ld_oom(c);
                for (uint32_t i = 0; i < l->n; i++) {
                    dc_path_index(c, i);
                    DC_TRY(result(c, &l->kids[i].v, cl, &cl->results[i]));
                    dc_path_pop(c);
                }
                cl->nresults = l->n;
                dc_path_pop(c);
            }
            dc_path_pop(c);
        }
        if (g[1]) {
            dc_path_field(c, "nodeSelector");
            DC_TRY(dc_ld_node_selector(c, &g[1]->v, false, &cl->node_selector));
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

static dracel_status claim_obj(dc_ld *c, const dc_tnode *obj, bool tmpl, const dc_tent *meta,
                               const dc_tent *spec)
{
    static const char *const SF[] = {"spec"};
    static const char *const CF[] = {"devices"};
    dc_claim_in cl;
    memset(&cl, 0, sizeof cl);
    cl.kind = tmpl ? "ResourceClaimTemplate" : "ResourceClaim";
    cl.file = c->file;
    cl.line = obj->line;
    DC_TRY(metadata(c, obj, meta, cl.kind, false, &cl.name, &cl.namespace, NULL));
    dc_path_field(c, "spec");
    if (tmpl && spec) {
        const dc_tent *f[1];
        DC_TRY(dc_ld_want(c, &spec->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &spec->v, SF, 1, f));
        spec = f[0];
        dc_path_field(c, "spec");
    }
    if (spec) {
        const dc_tent *f[1];
        DC_TRY(dc_ld_want(c, &spec->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &spec->v, CF, 1, f));
        if (f[0]) {
            dc_path_field(c, "devices");
            DC_TRY(devices(c, &f[0]->v, &cl));
            dc_path_pop(c);
        }
    }
    c->np = 0;
    if (!tmpl) { /* a template has no status: the field is not its */
        static const char *const OF[] = {"status"};
        const dc_tent *st[1];
        DC_TRY(dc_ld_fields(c, obj, OF, 1, st));
        if (st[0])
            DC_TRY(claim_status(c, st[0], &cl));
    }
    c->oname = NULL;
    dc_objects *o = c->o;
    return push(c, (void **)&o->claims, &o->nclaims, &o->capclaims, sizeof cl, &cl);
}

/* ---------------------------------------------------------------------------------------------
 * Node
 */

static dracel_status node_obj(dc_ld *c, const dc_tnode *obj, const dc_tent *meta)
{
    dc_node_in nd;
    const dc_tent *lab = NULL;
    memset(&nd, 0, sizeof nd);
    nd.file = c->file;
    nd.line = obj->line;
    DC_TRY(metadata(c, obj, meta, "Node", true, &nd.name, NULL, &lab));
    if (lab) {
        dc_path_field(c, "metadata");
        dc_path_field(c, "labels");
        DC_TRY(labels(c, lab, &nd.labels, &nd.nlabels));
        dc_path_pop(c);
        dc_path_pop(c);
    }
    static const char *const OF[] = {"status"}, *const SF[] = {"allocatable"};
    const dc_tent *st[1], *al[1] = {NULL};
    DC_TRY(dc_ld_fields(c, obj, OF, 1, st));
    if (st[0]) {
        dc_path_field(c, "status");
        DC_TRY(dc_ld_want(c, &st[0]->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &st[0]->v, SF, 1, al));
        if (al[0]) {
            dc_path_field(c, "allocatable");
            DC_TRY(allocatable(c, al[0], &nd.alloc, &nd.nalloc));
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    c->oname = NULL;
    dc_objects *o = c->o;
    return push(c, (void **)&o->nodes, &o->nnodes, &o->capnodes, sizeof nd, &nd);
}

dracel_status dc_ld_object(dc_ld *c, const dc_tnode *obj, unsigned kbit, const dc_tnode *kind,
                           const dc_tent *const *f)
{
    dc_ld_api_reset(c);
    if (f[0] && kbit != DC_OBJ_NODE) {
        DC_TRY(dc_ld_api_version(c, &f[0]->v));
    } else if (f[0]) {
        const dc_tnode *av = &f[0]->v;
        dc_path_field(c, "apiVersion");
        DC_TRY(dc_ld_want(c, av, DC_TN_STR));
        if (!dc_ld_str_is(av, "v1"))
            return dc_ld_fail(c, av->line, "%s is not supported (v1)",
                              dc_ld_qs(c, 0, av->s, av->n, true));
        dc_path_pop(c);
    }
    switch (kbit) {
    case DC_OBJ_CLASS:
        return class_obj(c, obj, f[2], f[3]);
    case DC_OBJ_CLAIM:
        return claim_obj(c, obj, kind && dc_ld_str_is(kind, "ResourceClaimTemplate"), f[2], f[3]);
    default:
        return node_obj(c, obj, f[2]);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Scenario
 */

typedef struct scn {
    dc_scenario sc;
    bool seen;
} scn;

/* classes[i], slices[i], claims[i]: an object of kind kbit, with or without kind. */
static dracel_status scn_object(dc_ld *c, const char *listname, uint32_t i, const dc_tnode *v,
                                unsigned kbit)
{
    static const char *const OF[] = {"apiVersion", "kind", "metadata", "spec"};
    const dc_tent *f[4];
    const dc_tnode *kind = NULL;
    c->oname = NULL;
    c->np = 0;
    dc_path_field(c, listname);
    dc_path_index(c, i);
    DC_TRY(dc_ld_want(c, v, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, v, OF, 4, f));
    if (f[1]) {
        kind = &f[1]->v;
        dc_path_field(c, "kind");
        DC_TRY(dc_ld_want(c, kind, DC_TN_STR));
        if (kbit == DC_OBJ_SLICE && !dc_ld_str_is(kind, "ResourceSlice"))
            return dc_ld_bad_value(c, kind, "must be ResourceSlice (or absent)");
        if (kbit == DC_OBJ_CLASS && !dc_ld_str_is(kind, "DeviceClass"))
            return dc_ld_bad_value(c, kind, "must be DeviceClass (or absent)");
        if (kbit == DC_OBJ_CLAIM && !dc_ld_str_is(kind, "ResourceClaim") &&
            !dc_ld_str_is(kind, "ResourceClaimTemplate"))
            return dc_ld_bad_value(c, kind,
                                   "must be ResourceClaim or ResourceClaimTemplate (or absent)");
        dc_path_pop(c);
    }
    DC_TRY(dc_ld_room(c, v->line));
    if (kbit != DC_OBJ_SLICE)
        return dc_ld_object(c, v, kbit, kind, f);
    dc_ld_api_reset(c);
    if (f[0])
        DC_TRY(dc_ld_api_version(c, &f[0]->v));
    return dc_ld_slice(c, v, f[2], f[3]);
}

/* The list e (NULL when absent) of objects of kind kbit. */
static dracel_status scn_list(dc_ld *c, const dc_tent *e, const char *listname, unsigned kbit)
{
    if (!e)
        return DRACEL_OK;
    c->oname = NULL;
    c->np = 0;
    dc_path_field(c, listname);
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_SEQ));
    for (uint32_t i = 0; i < e->v.n; i++)
        DC_TRY(scn_object(c, listname, i, &e->v.kids[i].v, kbit));
    return DRACEL_OK;
}

static dracel_status scn_features(dc_ld *c, const dc_tent *e, unsigned release, unsigned *out)
{
    const dc_tnode *l = &e->v;
    dc_path_field(c, "features");
    DC_TRY(dc_ld_want(c, l, DC_TN_SEQ));
    for (uint32_t i = 0; i < l->n; i++) {
        const dc_tnode *x = &l->kids[i].v;
        dc_path_index(c, i);
        DC_TRY(dc_ld_want(c, x, DC_TN_STR));
        unsigned bit = dc_feature_parse(x->s, x->n);
        if (!bit) {
            char known[320];
            dc_feature_known(known, sizeof known);
            return dc_ld_fail(c, x->line,
                              "unknown feature %s (known: %s; each also with the prefix \"DRA\")",
                              dc_ld_qs(c, 0, x->s, x->n, true), known);
        }
        if (!dc_k8s_has_gate(release, bit))
            return dc_ld_fail(c, x->line, "feature %s: Kubernetes 1.%u has no such gate",
                              dc_ld_qs(c, 0, x->s, x->n, true), release);
        *out |= bit;
        dc_path_pop(c);
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

static dracel_status scn_node(dc_ld *c, const dc_tnode *root, const dc_tent *e, dc_node_in *nd)
{
    static const char *const NF[] = {"name", "labels", "allocatable"};
    const dc_tent *f[3];
    const dc_tnode *v;
    dc_path_field(c, "node");
    if (!e)
        return dc_ld_fail(c, root->line, "required value");
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, &e->v, NF, 3, f));
    nd->file = c->file;
    nd->line = e->v.line;
    dc_path_field(c, "name");
    DC_TRY(dc_ld_req_str(c, f[0], e->v.line, &v));
    const char *why = dc_ld_subdomain_err(v->s, v->n);
    if (why)
        return dc_ld_bad_value(c, v, why);
    DC_TRY(dc_ld_sdup(c, v->s, v->n, &nd->name));
    dc_path_pop(c);
    if (f[1]) {
        dc_path_field(c, "labels");
        DC_TRY(labels(c, f[1], &nd->labels, &nd->nlabels));
        dc_path_pop(c);
    }
    if (f[2]) { /* the node's allocatable: {RESOURCE: QUANTITY} (device plugins' capacity) */
        dc_path_field(c, "allocatable");
        DC_TRY(allocatable(c, f[2], &nd->alloc, &nd->nalloc));
        dc_path_pop(c);
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

/* A device ID "driver/pool/device", split at the first and the last '/'. */
static dracel_status scn_device_id(dc_ld *c, const dc_tnode *x, dc_device_id *id)
{
    DC_TRY(dc_ld_want(c, x, DC_TN_STR));
    const char *first = memchr(x->s, '/', x->n), *last = NULL;
    for (size_t k = x->n; k > 0 && !last; k--)
        if (x->s[k - 1] == '/')
            last = x->s + k - 1;
    if (!first || first == last || first == x->s || last == first + 1 ||
        last == x->s + x->n - 1)
        return dc_ld_bad_value(c, x,
                               "must be a device ID \"driver/pool/device\" (split at the first "
                               "and the last '/')");
    const char *end = x->s + x->n;
    DC_TRY(dc_ld_sdup(c, x->s, (size_t)(first - x->s), &id->driver));
    DC_TRY(dc_ld_sdup(c, first + 1, (size_t)(last - first - 1), &id->pool));
    return dc_ld_sdup(c, last + 1, (size_t)(end - last - 1), &id->device);
}

/* allocatedDevices: device IDs, or {device, shareID, consumedCapacity} as an allocation result
 * holds them: one with a shareID is a shared allocation (consumable capacity), the others
 * make their device in use. */
static dracel_status scn_allocated(dc_ld *c, const dc_tent *e, dc_scenario *sc)
{
    static const char *const AF[] = {"device", "shareID", "consumedCapacity"};
    const dc_tnode *l = &e->v;
    dc_path_field(c, "allocatedDevices");
    DC_TRY(dc_ld_want(c, l, DC_TN_SEQ));
    sc->allocated = dc_ld_szalloc(c, l->n, sizeof *sc->allocated);
    sc->shares = dc_ld_szalloc(c, l->n, sizeof *sc->shares);
    if (l->n && (!sc->allocated || !sc->shares))
        return dc_ld_oom(c);
    for (uint32_t i = 0; i < l->n; i++) {
        const dc_tnode *x = &l->kids[i].v;
        dc_path_index(c, i);
        if (x->t != DC_TN_MAP) {
            DC_TRY(scn_device_id(c, x, &sc->allocated[sc->nallocated++]));
            dc_path_pop(c);
            continue;
        }
        const dc_tent *f[3];
        DC_TRY(dc_ld_fields(c, x, AF, 3, f));
        dc_device_id id;
        dc_path_field(c, "device");
        if (!f[0])
            return dc_ld_fail(c, x->line, "required value");
        DC_TRY(scn_device_id(c, &f[0]->v, &id));
        dc_path_pop(c);
        if (!f[1]) {
            sc->allocated[sc->nallocated++] = id;
            dc_path_pop(c);
            continue;
        }
        dc_path_field(c, "shareID");
        DC_TRY(dc_ld_want(c, &f[1]->v, DC_TN_STR));
        if (!uuid_ok(f[1]->v.s, f[1]->v.n))
            return dc_ld_bad_value(c, &f[1]->v,
                                   "uid must be in RFC 4122 normalized form, "
                                   "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                                   "hexadecimal characters");
        dc_path_pop(c);
        dc_share_in *sh = &sc->shares[sc->nshares++];
        sh->id = id;
        if (f[2]) {
            dc_path_field(c, "consumedCapacity");
            DC_TRY(consumed_capacity(c, &f[2]->v, &sh->caps, &sh->ncaps));
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

/* kubernetesVersion: "1.34" to "1.37" (a patch is accepted). */
static dracel_status scn_release(dc_ld *c, const dc_tent *e, unsigned *out)
{
    dc_path_field(c, "kubernetesVersion");
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_STR));
    *out = dc_k8s_parse_release(e->v.s, e->v.n);
    if (!*out)
        return dc_ld_bad_value(c, &e->v, "must be a Kubernetes release dracel reproduces: 1.34, "
                               "1.35, 1.36 or 1.37");
    dc_path_pop(c);
    return DRACEL_OK;
}

/* featureGates: {GATE: bool}, applied as kube-scheduler's --feature-gates (locks included). */
static dracel_status scn_gates(dc_ld *c, const dc_tent *e, unsigned release, unsigned *gates,
                               unsigned *on, unsigned *off)
{
    dc_path_field(c, "featureGates");
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_MAP));
    for (uint32_t i = 0; i < e->v.n; i++) {
        const dc_tent *g = &e->v.kids[i];
        char msg[256];
        unsigned one = 0;
        if (dc_k8s_gate_set(release, g->k, g->klen, true, &one, msg, sizeof msg) < 0)
            return dc_ld_fail(c, g->kline, "%s", msg);
        dc_path_key(c, g->k, g->klen);
        if (g->v.t != DC_TN_BOOL)
            return dc_ld_bad_value(c, &g->v, "must be true or false");
        dc_path_pop(c);
        if (dc_k8s_gate_set(release, g->k, g->klen, g->v.b != 0, gates, msg, sizeof msg) < 0)
            return dc_ld_fail(c, g->kline, "%s", msg);
        if (g->v.b) {
            *on |= one;
            *off &= ~one;
        } else {
            *off |= one;
            *on &= ~one;
        }
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

/* deviceTaintRules: DeviceTaintRule objects (kind, when given, must say so). */
static dracel_status scn_rules(dc_ld *c, const dc_tent *e)
{
    static const char *const OF[] = {"apiVersion", "kind", "metadata", "spec"};
    c->oname = NULL;
    c->np = 0;
    dc_path_field(c, "deviceTaintRules");
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_SEQ));
    for (uint32_t i = 0; i < e->v.n; i++) {
        const dc_tnode *v = &e->v.kids[i].v;
        const dc_tent *f[4];
        c->oname = NULL;
        c->np = 0;
        dc_path_field(c, "deviceTaintRules");
        dc_path_index(c, i);
        DC_TRY(dc_ld_want(c, v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, v, OF, 4, f));
        if (f[1]) {
            dc_path_field(c, "kind");
            DC_TRY(dc_ld_want(c, &f[1]->v, DC_TN_STR));
            if (!dc_ld_str_is(&f[1]->v, "DeviceTaintRule"))
                return dc_ld_bad_value(c, &f[1]->v, "must be DeviceTaintRule (or absent)");
            dc_path_pop(c);
        }
        DC_TRY(dc_ld_room(c, v->line));
        DC_TRY(dc_ld_taint_rule(c, v, f[2], f[3]));
    }
    return DRACEL_OK;
}

/* ---- The pod of a scenario: extended resources backed by DRA (DRAExtendedResource) */

static int req_cmp(const void *a, const void *b)
{
    return strcmp(((const dc_creq_in *)a)->name, ((const dc_creq_in *)b)->name);
}

/* One resource list (requests or limits) of a container into r[*n] (limits only add names the
 * requests lack: the API server's defaulting). */
static dracel_status scn_rlist(dc_ld *c, const dc_tent *e, dc_creq_in *r, uint32_t *n,
                               bool limits)
{
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_MAP));
    for (uint32_t i = 0; i < e->v.n; i++) {
        const dc_tent *k = &e->v.kids[i];
        dc_path_key(c, k->k, k->klen);
        const char *nm;
        DC_TRY(dc_ld_sdup(c, k->k, k->klen, &nm));
        bool have = false;
        for (uint32_t j = 0; j < *n && !have; j++)
            have = strcmp(r[j].name, nm) == 0;
        if (have && limits) {
            dc_path_pop(c);
            continue;
        }
        if (k->v.t != DC_TN_STR && k->v.t != DC_TN_INT)
            return dc_ld_bad_value(c, &k->v, "must be a quantity");
        dc_qty q;
        if (dc_qty_parse(k->v.s, k->v.n, &q) || dc_qty_sign(&q) < 0)
            return dc_ld_bad_value(c, &k->v, "must be a non-negative quantity");
        r[(*n)++] = (dc_creq_in){nm, q};
        dc_path_pop(c);
    }
    return DRACEL_OK;
}

static dracel_status scn_containers(dc_ld *c, const dc_tent *e, bool init, dc_ctr_in *out,
                                    uint32_t *n)
{
    static const char *const CF[] = {"name", "restartPolicy", "resources"};
    static const char *const RF[] = {"requests", "limits"};
    dc_path_field(c, init ? "initContainers" : "containers");
    DC_TRY(dc_ld_want(c, &e->v, DC_TN_SEQ));
    for (uint32_t i = 0; i < e->v.n; i++) {
        const dc_tnode *v = &e->v.kids[i].v;
        const dc_tent *f[3], *g[2] = {NULL, NULL};
        dc_ctr_in *x = &out[(*n)++];
        dc_path_index(c, i);
        DC_TRY(dc_ld_want(c, v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, v, CF, 3, f));
        dc_path_field(c, "name");
        const dc_tnode *nv;
        DC_TRY(dc_ld_req_str(c, f[0], v->line, &nv));
        DC_TRY(dc_ld_sdup(c, nv->s, nv->n, &x->name));
        dc_path_pop(c);
        if (f[1]) {
            dc_path_field(c, "restartPolicy");
            DC_TRY(dc_ld_want(c, &f[1]->v, DC_TN_STR));
            dc_path_pop(c);
        }
        x->short_lived = init && !(f[1] && dc_ld_str_is(&f[1]->v, "Always"));
        if (f[2]) {
            dc_path_field(c, "resources");
            DC_TRY(dc_ld_want(c, &f[2]->v, DC_TN_MAP));
            DC_TRY(dc_ld_fields(c, &f[2]->v, RF, 2, g));
            uint32_t cap = (g[0] ? g[0]->v.n : 0) + (g[1] ? g[1]->v.n : 0);
            x->reqs = dc_ld_szalloc(c, cap, sizeof *x->reqs);
            if (cap && !x->reqs)
                return dc_ld_oom(c);
            for (int k = 0; k < 2; k++)
                if (g[k]) {
                    dc_path_field(c, RF[k]);
                    DC_TRY(scn_rlist(c, g[k], x->reqs, &x->nreqs, k == 1));
                    dc_path_pop(c);
                }
            if (x->nreqs)
                dc_sort(x->reqs, x->nreqs, sizeof *x->reqs, req_cmp);
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

/* An extended resource name, or an implicit one (schedutil.IsDRAExtendedResourceName): not a
 * native resource (no domain, or a kubernetes.io one), not "requests."; or
 * deviceclass.resource.kubernetes.io/CLASS. */
static const char IMPLICIT[] = "deviceclass.resource.kubernetes.io/";

static bool dra_extended_name(const char *s)
{
    if (strncmp(s, IMPLICIT, sizeof IMPLICIT - 1) == 0)
        return true;
    return extended_name_err(s, strlen(s)) == NULL;
}

const dc_class_in *dc_ext_class(const dc_objects *o, const char *res)
{
    const dc_class_in *best = NULL;
    bool implicit = strncmp(res, IMPLICIT, sizeof IMPLICIT - 1) == 0;
    for (uint32_t i = 0; i < o->nclasses; i++) {
        const dc_class_in *k = &o->classes[i];
        if (implicit) {
            if (strcmp(k->name, res + sizeof IMPLICIT - 1) == 0)
                return k;
            continue;
        }
        if (!k->extended_resource_name || strcmp(k->extended_resource_name, res) != 0)
            continue;
        if (!best || k->created > best->created ||
            (k->created == best->created && strcmp(k->name, best->name) < 0))
            best = k;
    }
    return best;
}

bool dc_ext_allocatable(const dc_label_in *alloc, uint32_t nalloc, const char *res)
{
    for (uint32_t j = 0; j < nalloc; j++) {
        dc_qty q;
        if (strcmp(alloc[j].key, res) == 0)
            return !dc_qty_parse(alloc[j].value, strlen(alloc[j].value), &q) &&
                   dc_qty_sign(&q) != 0;
    }
    return false;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

uint32_t dc_ext_resources(const dc_objects *classes, const dc_ctr_in *ctr, uint32_t nc,
                          const dc_label_in *alloc, uint32_t nalloc, const char **res)
{
    uint32_t nres = 0;
    for (uint32_t i = 0; i < nc; i++)
        for (uint32_t k = 0; k < ctr[i].nreqs; k++) {
            const dc_creq_in *r = &ctr[i].reqs[k];
            /* res holds only names a class serves (few): looked through last */
            if (dc_qty_sign(&r->q) == 0 || !dra_extended_name(r->name) ||
                !dc_ext_class(classes, r->name) || dc_ext_allocatable(alloc, nalloc, r->name))
                continue;
            bool seen = false;
            for (uint32_t j = 0; j < nres && !seen; j++)
                seen = strcmp(res[j], r->name) == 0;
            if (!seen)
                res[nres++] = r->name;
        }
    if (nres)
        dc_sort(res, nres, sizeof *res, str_cmp);
    return nres;
}

/* createResourceRequestAndMappings: container i's request of res, after what the requests in
 * reuse[0..nreuse) (NULL entries skipped) already give it; NULL when it needs none. Its
 * mappings (to each reused request, then to its own) are appended to x->maps. */
static dracel_status ext_request(dc_ld *c, const dc_ctr_in *ctr, uint32_t i, const char *res,
                                 const char *cls, dc_request_in *const *reuse, uint32_t nreuse,
                                 dc_request_in **out, dc_ext_claim_out *x)
{
    *out = NULL;
    uint32_t ridx = 0;
    const dc_creq_in *r = NULL;
    for (uint32_t k = 0; k < ctr->nreqs && !r; k++)
        if (strcmp(ctr->reqs[k].name, res) == 0) {
            r = &ctr->reqs[k];
            ridx = k;
        }
    if (!r || dc_qty_sign(&r->q) <= 0)
        return DRACEL_OK;
    /* The count is the quantity's Value(): a fraction rounds up, and a count past int64 (1Ei
     * fits; 2^64 and 1e999999999 do not) saturates, so that the allocator gives the error it
     * gives for too many devices (it was dropped once, and every node passed). */
    int64_t want;
    if (dc_qty_as_int64(&r->q, &want)) {
        dc_qty max = dc_qty_from_int(INT64_MAX);
        double v = ceil(dc_qty_approx_float(&r->q));
        want = dc_qty_cmp(&r->q, &max) >= 0 || !(v < 9.2e18) ? INT64_MAX : (int64_t)v;
    }
    int64_t sum = 0;
    for (uint32_t k = 0; k < nreuse; k++)
        if (reuse[k]) { /* the container uses that request: mapped to it */
            int64_t n = reuse[k]->subs[0].count;
            sum = sum > INT64_MAX - n ? INT64_MAX : sum + n;
            dc_req_mapping m = {ctr->name, res, reuse[k]->name};
            DC_TRY(push(c, (void **)&x->maps, &x->nmaps, &x->capmaps, sizeof m, &m));
            if (sum >= want)
                return DRACEL_OK;
        }
    dc_request_in *q = dc_ld_szalloc(c, 1, sizeof *q);
    dc_subreq_in *s = dc_ld_szalloc(c, 1, sizeof *s);
    char name[64];
    snprintf(name, sizeof name, "container-%u-request-%u", i, ridx);
    if (!q || !s)
        return dc_ld_oom(c);
    DC_TRY(dc_ld_sdup(c, name, strlen(name), &q->name));
    s->class_name = cls;
    s->count = want - sum;
    q->subs = s;
    q->nsubs = 1;
    dc_req_mapping m = {ctr->name, res, q->name};
    DC_TRY(push(c, (void **)&x->maps, &x->nmaps, &x->capmaps, sizeof m, &m));
    *out = q;
    return DRACEL_OK;
}

static int request_cmp(const void *a, const void *b)
{
    return strcmp(((const dc_request_in *)a)->name, ((const dc_request_in *)b)->name);
}

dracel_status dc_ext_claim(dc_ld *c, const dc_objects *classes, const dc_ctr_in *ctr,
                           uint32_t nc, const char *const *res, uint32_t nres,
                           dc_ext_claim_out *x)
{
    memset(x, 0, sizeof *x);
    if (!nres)
        return DRACEL_OK;
    dc_request_in **lon = dc_ld_szalloc(c, nc, sizeof *lon);
    dc_request_in *all = dc_ld_szalloc(c, (size_t)nc * nres, sizeof *all);
    if (!lon || !all)
        return dc_ld_oom(c);
    /* x->maps: the request mappings the scheduler writes into the pod's status, a container's
     * to each request it uses (its own; for a short-lived one, those it reuses) */
    uint32_t nreq = 0;
    for (uint32_t j = 0; j < nres; j++) {
        const dc_class_in *k = dc_ext_class(classes, res[j]);
        if (!k)
            continue;
        const char *cls = k->name;
        memset(lon, 0, nc * sizeof *lon);
        for (uint32_t i = 0; i < nc; i++)
            if (!ctr[i].short_lived)
                DC_TRY(ext_request(c, &ctr[i], i, res[j], cls, NULL, 0, &lon[i], x));
        /* a short-lived init container first uses what the long-lived ones after it get;
         * the largest of their own requests serves them all, and their mappings to the
         * others' own requests name it instead */
        dc_request_in *max = NULL;
        uint32_t short_first = x->nmaps, nown = 0;
        for (uint32_t i = 0; i < nc; i++) {
            dc_request_in *q;
            if (!ctr[i].short_lived)
                continue;
            DC_TRY(ext_request(c, &ctr[i], i, res[j], cls, lon + i, nc - i, &q, x));
            nown += q != NULL;
            if (q && (!max || max->subs[0].count < q->subs[0].count))
                max = q;
        }
        for (uint32_t m = short_first; max && nown > 1 && m < x->nmaps; m++) {
            bool reused = false; /* a long-lived container's request, else a short-lived one's */
            for (uint32_t i = 0; i < nc && !reused; i++)
                reused = lon[i] && strcmp(lon[i]->name, x->maps[m].request) == 0;
            if (!reused)
                x->maps[m].request = max->name;
        }
        if (max)
            all[nreq++] = *max;
        for (uint32_t i = 0; i < nc; i++)
            if (lon[i])
                all[nreq++] = *lon[i];
    }
    dc_sort(all, nreq, sizeof *all, request_cmp);
    x->reqs = all;
    x->nreqs = nreq;
    return DRACEL_OK;
}

/*
 * pod: {metadata: {name, namespace}, spec: {initContainers, containers}}, on the scenario's
 * node (its allocatable): the special claim the scheduler's DynamicResources plugin builds for
 * the node (filterExtendedResources, createRequestsAndMappings), appended after the scenario's
 * claims (dc_ext_resources says which resources count).
 */
/* A pod's metadata.namespace and containers (v: the pod, its path pushed): *ns (NULL when
 * none), *ctr[0..*nc) in c's set's arena, init containers first. */
static dracel_status pod_spec(dc_ld *c, const dc_tnode *v, const char **ns, dc_ctr_in **ctr,
                              uint32_t *nc)
{
    static const char *const PF[] = {"metadata", "spec"};
    static const char *const MF[] = {"name", "namespace"};
    static const char *const SF[] = {"initContainers", "containers"};
    const dc_tent *f[2], *m[2] = {NULL, NULL}, *s[2] = {NULL, NULL};
    *ns = NULL;
    *ctr = NULL;
    *nc = 0;
    DC_TRY(dc_ld_want(c, v, DC_TN_MAP));
    DC_TRY(dc_ld_fields(c, v, PF, 2, f));
    if (f[0]) {
        dc_path_field(c, "metadata");
        DC_TRY(dc_ld_want(c, &f[0]->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &f[0]->v, MF, 2, m));
        if (m[1]) {
            dc_path_field(c, "namespace");
            DC_TRY(opt_str(c, m[1], ns));
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    uint32_t cap = 0;
    if (f[1]) {
        dc_path_field(c, "spec");
        DC_TRY(dc_ld_want(c, &f[1]->v, DC_TN_MAP));
        DC_TRY(dc_ld_fields(c, &f[1]->v, SF, 2, s));
        for (int k = 0; k < 2; k++)
            cap += s[k] && s[k]->v.t == DC_TN_SEQ ? s[k]->v.n : 0;
    }
    *ctr = dc_ld_szalloc(c, cap, sizeof **ctr);
    if (cap && !*ctr)
        return dc_ld_oom(c);
    for (int k = 0; k < 2; k++)
        if (s[k])
            DC_TRY(scn_containers(c, s[k], k == 0, *ctr, nc));
    if (f[1])
        dc_path_pop(c);
    return DRACEL_OK;
}

static dracel_status scn_pod(dc_ld *c, const dc_tent *e, dc_scenario *sc)
{
    dc_objects *o = c->o;
    c->oname = NULL;
    c->np = 0;
    dc_path_field(c, "pod");
    const char *ns;
    dc_ctr_in *ctr;
    uint32_t nc;
    DC_TRY(pod_spec(c, &e->v, &ns, &ctr, &nc));
    dc_path_pop(c);
    /* the resources that need DRA on this node (whatever the gates: the caller drops the
     * claim when DRAExtendedResource is off) */
    uint32_t nall = 0;
    for (uint32_t i = 0; i < nc; i++)
        nall += ctr[i].nreqs;
    const char **res = dc_ld_szalloc(c, nall, sizeof *res);
    if (nall && !res)
        return dc_ld_oom(c);
    uint32_t nres = dc_ext_resources(o, ctr, nc, sc->node.alloc, sc->node.nalloc, res);
    if (!nres)
        return DRACEL_OK;
    dc_ext_claim_out x;
    DC_TRY(dc_ext_claim(c, o, ctr, nc, res, nres, &x));
    sc->mappings = x.maps;
    sc->nmappings = x.nmaps;
    dc_claim_in cl;
    memset(&cl, 0, sizeof cl);
    cl.name = "<extended-resources>";
    cl.namespace = ns;
    cl.kind = "ResourceClaim";
    cl.file = c->file;
    cl.line = e->v.line;
    cl.reqs = x.reqs;
    cl.nreqs = x.nreqs;
    sc->extended_claim = true;
    return push(c, (void **)&o->claims, &o->nclaims, &o->capclaims, sizeof cl, &cl);
}

enum { SC_FEATURES, SC_NODE, SC_CLASSES, SC_SLICES, SC_ALLOCATED, SC_CLAIMS, SC_RELEASE,
       SC_GATES, SC_RULES, SC_POD, SC_N };

static dracel_status scenario_doc(dc_ld *c, const dc_tnode *root)
{
    static const char *const SF[SC_N] = {"features", "node",   "classes",
                                         "slices",   "allocatedDevices", "claims",
                                         "kubernetesVersion", "featureGates",
                                         "deviceTaintRules", "pod"};
    scn *x = c->doc_ctx;
    const dc_tent *f[SC_N];
    c->oname = NULL;
    c->np = 0;
    if (root->t == DC_TN_NULL) /* an empty YAML document */
        return DRACEL_OK;
    if (x->seen)
        return dc_ld_fail(c, root->line, "a scenario is one object, not a stream of documents");
    x->seen = true;
    if (root->t != DC_TN_MAP)
        return dc_ld_fail(c, root->line, "expected an object, found %s", dc_ld_tname(root));
    DC_TRY(dc_ld_fields(c, root, SF, SC_N, f));
    for (uint32_t i = 0; i < root->n; i++) {
        const dc_tent *e = &root->kids[i];
        bool known = false;
        for (unsigned k = 0; k < SC_N && !known; k++)
            known = strlen(SF[k]) == e->klen && memcmp(SF[k], e->k, e->klen) == 0;
        if (!known)
            return dc_ld_fail(c, e->kline,
                              "unknown field %s (a scenario has kubernetesVersion, features, "
                              "featureGates, node, classes, slices, deviceTaintRules, "
                              "allocatedDevices, claims and pod)",
                              dc_ld_qs(c, 0, e->k, e->klen, true));
    }
    dc_scenario *sc = &x->sc;
    sc->file = c->file;
    sc->release = DC_K8S_NEWEST;
    if (f[SC_RELEASE])
        DC_TRY(scn_release(c, f[SC_RELEASE], &sc->release));
    c->np = 0;
    sc->listed = f[SC_FEATURES] != NULL;
    if (f[SC_FEATURES])
        DC_TRY(scn_features(c, f[SC_FEATURES], sc->release, &sc->features));
    else
        sc->features = dc_k8s_defaults(sc->release);
    c->np = 0;
    if (f[SC_GATES])
        DC_TRY(scn_gates(c, f[SC_GATES], sc->release, &sc->features, &sc->gates_on,
                         &sc->gates_off));
    c->np = 0;
    DC_TRY(scn_node(c, root, f[SC_NODE], &sc->node));
    DC_TRY(scn_list(c, f[SC_CLASSES], SF[SC_CLASSES], DC_OBJ_CLASS));
    DC_TRY(scn_list(c, f[SC_SLICES], SF[SC_SLICES], DC_OBJ_SLICE));
    if (f[SC_RULES])
        DC_TRY(scn_rules(c, f[SC_RULES]));
    if (f[SC_ALLOCATED]) {
        c->np = 0;
        DC_TRY(scn_allocated(c, f[SC_ALLOCATED], sc));
    }
    DC_TRY(scn_list(c, f[SC_CLAIMS], SF[SC_CLAIMS], DC_OBJ_CLAIM));
    if (!f[SC_POD])
        return DRACEL_OK;
    return scn_pod(c, f[SC_POD], sc);
}

/* ---- A Pod object (dracel_pod_load): its namespace and containers, for the special claim
 * of its extended resources. */

typedef struct pod_ctx {
    dc_pod_in *out;
    bool seen;
} pod_ctx;

static dracel_status pod_doc(dc_ld *c, const dc_tnode *root)
{
    static const char *const F[] = {"apiVersion", "kind"};
    pod_ctx *x = c->doc_ctx;
    const dc_tent *f[2];
    c->oname = NULL;
    c->np = 0;
    if (root->t == DC_TN_NULL) /* an empty YAML document */
        return DRACEL_OK;
    if (x->seen)
        return dc_ld_fail(c, root->line, "a pod file is one Pod, not a stream of documents");
    x->seen = true;
    if (root->t != DC_TN_MAP)
        return dc_ld_fail(c, root->line, "expected a Pod object, found %s", dc_ld_tname(root));
    DC_TRY(dc_ld_fields(c, root, F, 2, f));
    if (f[1]) {
        dc_path_field(c, "kind");
        DC_TRY(dc_ld_want(c, &f[1]->v, DC_TN_STR));
        if (!dc_ld_str_is(&f[1]->v, "Pod"))
            return dc_ld_bad_value(c, &f[1]->v, "expected a Pod");
        dc_path_pop(c);
    }
    if (f[0]) {
        dc_path_field(c, "apiVersion");
        DC_TRY(dc_ld_want(c, &f[0]->v, DC_TN_STR));
        if (!dc_ld_str_is(&f[0]->v, "v1"))
            return dc_ld_bad_value(c, &f[0]->v, "is not supported (v1)");
        dc_path_pop(c);
    }
    c->okind = "Pod";
    return pod_spec(c, root, &x->out->ns, &x->out->ctr, &x->out->nc);
}

dracel_status dc_pod_load(dc_objects *o, const char *path, const char *name, const char *buf,
                          size_t len, dc_pod_in *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    if (err && errcap)
        err[0] = '\0';
    dc_ld c;
    pod_ctx x = {out, false};
    dc_ld_init(&c, &o->slices, NULL, err, errcap);
    c.o = o;
    c.per_doc = pod_doc;
    c.doc_ctx = &x;
    dracel_status st = path ? dc_ld_load_path(&c, path, false)
                            : dc_ld_load_buffer(&c, name, buf ? buf : "", len);
    if (st == DRACEL_OK && !x.seen)
        st = dc_ld_fail(&c, 0, "no Pod (expected one object)");
    dc_ld_free(&c);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Public functions
 */

void dc_objects_init(dc_objects *o, const dracel_alloc *a)
{
    memset(o, 0, sizeof *o);
    dc_slice_set_init(&o->slices, a);
}

static void index_free(const dc_objects *o, dc_name_index *x)
{
    dc_free(o->slices.arena.alloc, x->slots, (size_t)x->cap * sizeof *x->slots);
    memset(x, 0, sizeof *x);
}

void dc_objects_free(dc_objects *o)
{
    index_free(o, &o->by_class);
    index_free(o, &o->by_claim);
    index_free(o, &o->by_node);
    dc_slice_set_free(&o->slices);
    dc_slice_set keep = o->slices;
    memset(o, 0, sizeof *o);
    o->slices = keep;
}

/* ---- Name indexes */

static uint32_t name_hash(const char *ns, const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *s = ns ? ns : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    h = (h ^ 0xffu) * 16777619u; /* a byte no name has separates the two */
    for (const char *s = name ? name : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void key_of(const dc_objects *o, unsigned kind, uint32_t i, const char **ns,
                   const char **name)
{
    *ns = NULL;
    if (kind == DC_OBJ_CLASS) {
        *name = o->classes[i].name;
    } else if (kind == DC_OBJ_NODE) {
        *name = o->nodes[i].name;
    } else {
        *ns = o->claims[i].namespace;
        *name = o->claims[i].name;
    }
}

static dc_name_index *index_of(dc_objects *o, unsigned kind)
{
    return kind == DC_OBJ_CLASS ? &o->by_class : kind == DC_OBJ_NODE ? &o->by_node : &o->by_claim;
}

static bool str_same(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The slot of (ns, name): its object's index + 1 when present, else an empty slot's position
 * is left in *at. */
static uint32_t index_probe(const dc_objects *o, const dc_name_index *x, unsigned kind,
                            const char *ns, const char *name, uint32_t *at)
{
    uint32_t mask = x->cap - 1, h = name_hash(ns, name) & mask;
    for (;; h = (h + 1) & mask) {
        uint32_t v = x->slots[h];
        if (!v) {
            *at = h;
            return 0;
        }
        const char *kns, *kname;
        key_of(o, kind, v - 1, &kns, &kname);
        if (str_same(kname, name) && str_same(kns, ns))
            return v;
    }
}

/* A new index of one kind holding the old entries and the objects from @p from to @p to, in
 * *nx. A class or node whose name is taken is rejected (EINPUT, with both places); a claim whose
 * name is taken is kept but not indexed (the first is found). */
static dracel_status index_add(dc_objects *o, unsigned kind, uint32_t from, uint32_t to,
                               dc_name_index *out, char *err, size_t errcap)
{
    dc_name_index *x = index_of(o, kind);
    memset(out, 0, sizeof *out);
    if (from == to)
        return DRACEL_OK;
    uint32_t cap = 16;
    while (cap < to * 2u) {
        if (cap > UINT32_MAX / 4)
            goto nomem;
        cap *= 2;
    }
    dc_name_index nx = {dc_malloc(o->slices.arena.alloc, (size_t)cap * sizeof(uint32_t)), cap, 0};
    if (!nx.slots)
        goto nomem;
    memset(nx.slots, 0, (size_t)cap * sizeof *nx.slots);
    for (uint32_t k = 0; k < x->cap; k++) {
        uint32_t v = x->slots[k], at;
        if (!v)
            continue;
        const char *ns, *name;
        key_of(o, kind, v - 1, &ns, &name);
        (void)index_probe(o, &nx, kind, ns, name, &at);
        nx.slots[at] = v;
        nx.n++;
    }
    for (uint32_t i = from; i < to; i++) {
        const char *ns, *name;
        key_of(o, kind, i, &ns, &name);
        uint32_t at, v = index_probe(o, &nx, kind, ns, name, &at);
        if (!v) {
            nx.slots[at] = i + 1;
            nx.n++;
            continue;
        }
        if (kind == DC_OBJ_CLAIM)
            continue;
        if (err && errcap) {
            bool cls = kind == DC_OBJ_CLASS;
            snprintf(err, errcap, "%s:%u: %s %s: defined twice (also %s:%u)",
                     cls ? o->classes[i].file : o->nodes[i].file,
                     (unsigned)(cls ? o->classes[i].line : o->nodes[i].line),
                     cls ? "DeviceClass" : "Node", name,
                     cls ? o->classes[v - 1].file : o->nodes[v - 1].file,
                     (unsigned)(cls ? o->classes[v - 1].line : o->nodes[v - 1].line));
        }
        index_free(o, &nx);
        return DRACEL_EINPUT;
    }
    *out = nx;
    return DRACEL_OK;
nomem:
    if (err && errcap)
        snprintf(err, errcap, "out of memory");
    return DRACEL_ENOMEM;
}

uint32_t dc_objects_find(const dc_objects *o, unsigned kind, const char *ns, const char *name)
{
    const dc_name_index *x = kind == DC_OBJ_CLASS  ? &o->by_class
                             : kind == DC_OBJ_NODE ? &o->by_node
                             : kind == DC_OBJ_CLAIM ? &o->by_claim
                                                    : NULL;
    if (!x || !x->cap || !name)
        return UINT32_MAX;
    uint32_t at, v = index_probe(o, x, kind, ns && *ns ? ns : NULL, name, &at);
    return v ? v - 1 : UINT32_MAX;
}

typedef struct counts {
    uint32_t slices, notes, classes, claims, nodes, rules;
} counts;

static counts save(const dc_objects *o)
{
    return (counts){o->slices.n, o->slices.nnotes, o->nclasses, o->nclaims, o->nnodes,
                    o->slices.nrules};
}

static void restore(dc_objects *o, const counts *k)
{
    o->slices.n = k->slices;
    o->slices.nnotes = k->notes;
    o->slices.nrules = k->rules;
    o->nclasses = k->classes;
    o->nclaims = k->claims;
    o->nnodes = k->nodes;
}

/* After a load: index what it added (all kinds, or none: a rejected load changes nothing). */
static dracel_status reindex(dc_objects *o, const counts *k, char *err, size_t errcap)
{
    static const unsigned kinds[3] = {DC_OBJ_CLASS, DC_OBJ_CLAIM, DC_OBJ_NODE};
    const uint32_t from[3] = {k->classes, k->claims, k->nodes};
    const uint32_t to[3] = {o->nclasses, o->nclaims, o->nnodes};
    dc_name_index nx[3];
    dracel_status st = DRACEL_OK;
    uint32_t done = 0;
    for (; done < 3 && st == DRACEL_OK; done++)
        st = index_add(o, kinds[done], from[done], to[done], &nx[done], err, errcap);
    for (uint32_t i = 0; i < done; i++) {
        if (st != DRACEL_OK) {
            index_free(o, &nx[i]);
        } else if (nx[i].cap) {
            dc_name_index *x = index_of(o, kinds[i]);
            index_free(o, x);
            *x = nx[i];
        }
    }
    return st;
}

dracel_status dc_objects_index(dc_objects *o, char *err, size_t errcap)
{
    counts k;
    memset(&k, 0, sizeof k);
    return reindex(o, &k, err, errcap);
}

dracel_status dc_objects_load(dc_objects *o, const char *path, unsigned kinds,
                              const dc_slices_limits *lim, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!o || !path)
        return DRACEL_EINVAL;
    dc_ld c;
    dc_ld_init(&c, &o->slices, lim, err, errcap);
    c.o = o;
    c.kinds = kinds;
    counts k = save(o);
    dracel_status st = dc_ld_load_path(&c, path, true);
    dc_ld_free(&c);
    if (st == DRACEL_OK)
        st = reindex(o, &k, err, errcap);
    if (st != DRACEL_OK)
        restore(o, &k);
    return st;
}

dracel_status dc_objects_load_buffer(dc_objects *o, const char *name, const char *buf, size_t len,
                                     unsigned kinds, const dc_slices_limits *lim, char *err,
                                     size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!o || (!buf && len))
        return DRACEL_EINVAL;
    dc_ld c;
    dc_ld_init(&c, &o->slices, lim, err, errcap);
    c.o = o;
    c.kinds = kinds;
    counts k = save(o);
    dracel_status st = dc_ld_load_buffer(&c, name ? name : "<buffer>", buf ? buf : "", len);
    dc_ld_free(&c);
    if (st == DRACEL_OK)
        st = reindex(o, &k, err, errcap);
    if (st != DRACEL_OK)
        restore(o, &k);
    return st;
}

/* One scenario from a file (path) or a buffer (buf, name). */
static dracel_status scenario(dc_objects *o, dc_scenario *sc, const char *path, const char *name,
                              const char *buf, size_t len, const dc_slices_limits *lim,
                              char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!o || !sc)
        return DRACEL_EINVAL;
    dc_ld c;
    scn x;
    memset(&x, 0, sizeof x);
    dc_ld_init(&c, &o->slices, lim, err, errcap);
    c.o = o;
    c.per_doc = scenario_doc;
    c.doc_ctx = &x;
    counts k = save(o);
    dracel_status st = path ? dc_ld_load_path(&c, path, false)
                            : dc_ld_load_buffer(&c, name, buf, len);
    if (st == DRACEL_OK && !x.seen)
        st = dc_ld_fail(&c, 0, "no scenario (expected one object)");
    dc_ld_free(&c);
    if (st == DRACEL_OK)
        st = reindex(o, &k, err, errcap);
    if (st != DRACEL_OK) {
        restore(o, &k);
        return st;
    }
    *sc = x.sc;
    return DRACEL_OK;
}

dracel_status dc_scenario_load(dc_objects *o, dc_scenario *sc, const char *path,
                               const dc_slices_limits *lim, char *err, size_t errcap)
{
    if (!path) {
        if (err && errcap)
            err[0] = '\0';
        return DRACEL_EINVAL;
    }
    return scenario(o, sc, path, NULL, NULL, 0, lim, err, errcap);
}

dracel_status dc_scenario_load_buffer(dc_objects *o, dc_scenario *sc, const char *name,
                                      const char *buf, size_t len, const dc_slices_limits *lim,
                                      char *err, size_t errcap)
{
    if (!buf && len) {
        if (err && errcap)
            err[0] = '\0';
        return DRACEL_EINVAL;
    }
    return scenario(o, sc, NULL, name, buf ? buf : "", len, lim, err, errcap);
}

/* ---------------------------------------------------------------------------------------------
 * Deep copies (a policy keeps the claims and classes it uses)
 */

typedef struct cp {
    dc_arena *a;
    bool oom;
} cp;

static const char *cp_str(cp *c, const char *s)
{
    if (!s)
        return NULL;
    char *d = dc_arena_strndup(c->a, s, strlen(s));
    c->oom |= !d;
    return d;
}

static void *cp_mem(cp *c, const void *src, size_t n)
{
    if (!src || !n)
        return NULL;
    void *d = dc_arena_alloc(c->a, n);
    if (d)
        memcpy(d, src, n);
    c->oom |= !d;
    return d;
}

static const char **cp_strs(cp *c, const char *const *src, uint32_t n)
{
    const char **d = cp_mem(c, src, n * sizeof *d);
    for (uint32_t i = 0; d && i < n; i++)
        d[i] = cp_str(c, src[i]);
    return d;
}

static dc_sel_in *cp_sels(cp *c, const dc_sel_in *src, uint32_t n)
{
    dc_sel_in *d = cp_mem(c, src, n * sizeof *d);
    for (uint32_t i = 0; d && i < n; i++)
        if (src[i].expr) {
            d[i].expr = dc_arena_strndup(c->a, src[i].expr, src[i].len);
            c->oom |= !d[i].expr;
        }
    return d;
}

static void cp_opaque(cp *c, dc_opaque_in *o)
{
    o->driver = cp_str(c, o->driver);
    o->parameters = cp_str(c, o->parameters);
}

dracel_status dc_class_copy(dc_arena *a, const dc_class_in *src, dc_class_in *dst)
{
    cp c = {a, false};
    *dst = *src;
    dst->name = cp_str(&c, src->name);
    dst->file = cp_str(&c, src->file);
    dst->extended_resource_name = cp_str(&c, src->extended_resource_name);
    dst->sels = cp_sels(&c, src->sels, src->nsels);
    dst->config = cp_mem(&c, src->config, src->nconfig * sizeof *src->config);
    for (uint32_t i = 0; dst->config && i < src->nconfig; i++)
        cp_opaque(&c, &dst->config[i]);
    return c.oom ? DRACEL_ENOMEM : DRACEL_OK;
}

dracel_status dc_claim_copy(dc_arena *a, const dc_claim_in *src, dc_claim_in *dst)
{
    cp c = {a, false};
    *dst = *src;
    dst->name = cp_str(&c, src->name);
    dst->namespace = cp_str(&c, src->namespace);
    dst->kind = cp_str(&c, src->kind);
    dst->file = cp_str(&c, src->file);
    dst->reqs = cp_mem(&c, src->reqs, src->nreqs * sizeof *src->reqs);
    for (uint32_t r = 0; dst->reqs && r < src->nreqs; r++) {
        dc_request_in *q = &dst->reqs[r];
        q->name = cp_str(&c, q->name);
        q->subs = cp_mem(&c, q->subs, q->nsubs * sizeof *q->subs);
        for (uint32_t k = 0; q->subs && k < q->nsubs; k++) {
            dc_subreq_in *x = &q->subs[k];
            x->name = cp_str(&c, x->name);
            x->class_name = cp_str(&c, x->class_name);
            x->mode = cp_str(&c, x->mode);
            x->sels = cp_sels(&c, x->sels, x->nsels);
            x->tols = cp_mem(&c, x->tols, x->ntols * sizeof *x->tols);
            for (uint32_t t = 0; x->tols && t < x->ntols; t++) {
                dc_toleration_in *y = &x->tols[t];
                y->key = cp_str(&c, y->key);
                y->op = cp_str(&c, y->op);
                y->value = cp_str(&c, y->value);
                y->effect = cp_str(&c, y->effect);
            }
            x->capreqs = cp_mem(&c, x->capreqs, x->ncapreqs * sizeof *x->capreqs);
            for (uint32_t t = 0; x->capreqs && t < x->ncapreqs; t++) {
                x->capreqs[t].name = cp_str(&c, x->capreqs[t].name);
                x->capreqs[t].value = cp_str(&c, x->capreqs[t].value);
            }
        }
    }
    dst->cons = cp_mem(&c, src->cons, src->ncons * sizeof *src->cons);
    for (uint32_t k = 0; dst->cons && k < src->ncons; k++) {
        dc_constraint_in *x = &dst->cons[k];
        x->requests = cp_strs(&c, x->requests, x->nrequests);
        x->match_attribute = cp_str(&c, x->match_attribute);
        x->distinct_attribute = cp_str(&c, x->distinct_attribute);
    }
    dst->config = cp_mem(&c, src->config, src->nconfig * sizeof *src->config);
    for (uint32_t k = 0; dst->config && k < src->nconfig; k++) {
        dc_claim_config_in *x = &dst->config[k];
        x->requests = cp_strs(&c, x->requests, x->nrequests);
        cp_opaque(&c, &x->opaque);
    }
    dst->results = cp_mem(&c, src->results, src->nresults * sizeof *src->results);
    for (uint32_t k = 0; dst->results && k < src->nresults; k++) {
        dc_result_in *x = &dst->results[k];
        x->request = cp_str(&c, x->request);
        x->driver = cp_str(&c, x->driver);
        x->pool = cp_str(&c, x->pool);
        x->device = cp_str(&c, x->device);
        x->share_id = cp_str(&c, x->share_id);
        x->consumed = cp_mem(&c, x->consumed, x->nconsumed * sizeof *x->consumed);
        for (uint32_t q = 0; x->consumed && q < x->nconsumed; q++) {
            x->consumed[q].name = cp_str(&c, x->consumed[q].name);
            x->consumed[q].value = cp_str(&c, x->consumed[q].value);
        }
    }
    if (src->node_selector) {
        const dc_node_selector_in *ss = src->node_selector;
        dc_node_selector_in *ds = cp_mem(&c, ss, sizeof *ss);
        if (ds) {
            ds->terms = cp_mem(&c, ss->terms, ss->n * sizeof *ss->terms);
            for (uint32_t t = 0; ds->terms && t < ss->n; t++) {
                dc_node_term_in *term = &ds->terms[t];
                term->reqs = cp_mem(&c, term->reqs, term->n * sizeof *term->reqs);
                for (uint32_t k = 0; term->reqs && k < term->n; k++) {
                    dc_node_req_in *rq = &term->reqs[k];
                    rq->key = cp_str(&c, rq->key);
                    rq->op = cp_str(&c, rq->op);
                    rq->values = cp_strs(&c, rq->values, rq->nvalues);
                }
            }
        }
        dst->node_selector = ds;
    }
    dst->reserved = cp_mem(&c, src->reserved, src->nreserved * sizeof *src->reserved);
    for (uint32_t k = 0; dst->reserved && k < src->nreserved; k++) {
        dc_consumer_in *x = &dst->reserved[k];
        x->api_group = cp_str(&c, x->api_group);
        x->resource = cp_str(&c, x->resource);
        x->name = cp_str(&c, x->name);
        x->uid = cp_str(&c, x->uid);
    }
    return c.oom ? DRACEL_ENOMEM : DRACEL_OK;
}

dracel_status dc_node_copy(dc_arena *a, const dc_node_in *src, dc_node_in *dst)
{
    cp c = {a, false};
    *dst = *src;
    dst->name = cp_str(&c, src->name);
    dst->file = cp_str(&c, src->file);
    dst->labels = cp_mem(&c, src->labels, src->nlabels * sizeof *src->labels);
    for (uint32_t i = 0; dst->labels && i < src->nlabels; i++) {
        dst->labels[i].key = cp_str(&c, dst->labels[i].key);
        dst->labels[i].value = cp_str(&c, dst->labels[i].value);
    }
    dst->alloc = cp_mem(&c, src->alloc, src->nalloc * sizeof *src->alloc);
    for (uint32_t i = 0; dst->alloc && i < src->nalloc; i++) {
        dst->alloc[i].key = cp_str(&c, dst->alloc[i].key);
        dst->alloc[i].value = cp_str(&c, dst->alloc[i].value);
    }
    return c.oom ? DRACEL_ENOMEM : DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Hashes of decoded objects
 */

void dc_hash_bytes(dc_hash *h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h->h ^= s[i];
        h->h *= 0x100000001b3ull;
    }
}

void dc_hash_str(dc_hash *h, const char *s)
{
    if (s)
        dc_hash_bytes(h, s, strlen(s) + 1);
    else
        dc_hash_bytes(h, "\xff", 1);
}

void dc_hash_int(dc_hash *h, int64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    dc_hash_bytes(h, buf, (size_t)n + 1);
}

void dc_hash_class_spec(dc_hash *h, const dc_class_in *cl)
{
    for (uint32_t j = 0; j < cl->nsels; j++)
        dc_hash_str(h, cl->sels[j].expr);
    for (uint32_t j = 0; j < cl->nconfig; j++) {
        dc_hash_str(h, cl->config[j].driver);
        dc_hash_str(h, cl->config[j].parameters);
    }
}

void dc_hash_claim_spec(dc_hash *h, const dc_claim_in *ci)
{
    for (uint32_t r = 0; r < ci->nreqs; r++) {
        const dc_request_in *rq = &ci->reqs[r];
        dc_hash_str(h, rq->name);
        dc_hash_int(h, rq->first_available);
        for (uint32_t s = 0; s < rq->nsubs; s++) {
            const dc_subreq_in *sr = &rq->subs[s];
            dc_hash_str(h, sr->name);
            dc_hash_str(h, sr->class_name);
            dc_hash_str(h, sr->mode);
            dc_hash_int(h, sr->count);
            dc_hash_int(h, sr->admin_access);
            for (uint32_t k = 0; k < sr->nsels; k++)
                dc_hash_str(h, sr->sels[k].expr);
            for (uint32_t k = 0; k < sr->ntols; k++) {
                dc_hash_str(h, sr->tols[k].key);
                dc_hash_str(h, sr->tols[k].op);
                dc_hash_str(h, sr->tols[k].value);
                dc_hash_str(h, sr->tols[k].effect);
            }
            for (uint32_t k = 0; k < sr->ncapreqs; k++) { /* (none: the version as before) */
                dc_hash_str(h, sr->capreqs[k].name);
                dc_hash_str(h, sr->capreqs[k].value);
            }
        }
    }
    for (uint32_t k = 0; k < ci->ncons; k++) {
        for (uint32_t j = 0; j < ci->cons[k].nrequests; j++)
            dc_hash_str(h, ci->cons[k].requests[j]);
        dc_hash_str(h, ci->cons[k].match_attribute);
        dc_hash_str(h, ci->cons[k].distinct_attribute);
    }
    for (uint32_t k = 0; k < ci->nconfig; k++) {
        for (uint32_t j = 0; j < ci->config[k].nrequests; j++)
            dc_hash_str(h, ci->config[k].requests[j]);
        dc_hash_str(h, ci->config[k].opaque.driver);
        dc_hash_str(h, ci->config[k].opaque.parameters);
    }
}

uint64_t dc_claim_version(const dc_claim_in *ci)
{
    dc_hash h = DC_HASH_INIT;
    dc_hash_str(&h, ci->kind);
    dc_hash_claim_spec(&h, ci);
    /* what the policy's part leaves out */
    for (uint32_t r = 0; r < ci->nreqs; r++)
        for (uint32_t s = 0; s < ci->reqs[r].nsubs; s++) {
            const dc_subreq_in *sr = &ci->reqs[r].subs[s];
            dc_hash_int(&h, sr->capacity_requests);
            dc_hash_int(&h, sr->nsels);
            dc_hash_int(&h, sr->ntols);
            for (uint32_t k = 0; k < sr->ntols; k++)
                dc_hash_int(&h, sr->tols[k].has_seconds ? sr->tols[k].seconds : INT64_MIN);
        }
    dc_hash_int(&h, ci->nconfig);
    /* status */
    dc_hash_int(&h, ci->allocated);
    dc_hash_int(&h, ci->nresults);
    for (uint32_t k = 0; k < ci->nresults; k++) {
        const dc_result_in *x = &ci->results[k];
        dc_hash_str(&h, x->request);
        dc_hash_str(&h, x->driver);
        dc_hash_str(&h, x->pool);
        dc_hash_str(&h, x->device);
        dc_hash_int(&h, x->admin_access);
        dc_hash_str(&h, x->share_id);
        dc_hash_int(&h, x->nconsumed);
        for (uint32_t q = 0; q < x->nconsumed; q++) {
            dc_hash_str(&h, x->consumed[q].name);
            dc_hash_str(&h, x->consumed[q].value);
        }
    }
    const dc_node_selector_in *ns = ci->node_selector;
    dc_hash_int(&h, ns ? (int64_t)ns->n : -1);
    for (uint32_t t = 0; ns && t < ns->n; t++) {
        dc_hash_int(&h, ns->terms[t].n);
        for (uint32_t k = 0; k < ns->terms[t].n; k++) {
            const dc_node_req_in *rq = &ns->terms[t].reqs[k];
            dc_hash_int(&h, rq->field);
            dc_hash_str(&h, rq->key);
            dc_hash_str(&h, rq->op);
            dc_hash_int(&h, rq->nvalues);
            for (uint32_t v = 0; v < rq->nvalues; v++)
                dc_hash_str(&h, rq->values[v]);
        }
    }
    dc_hash_int(&h, ci->nreserved);
    for (uint32_t k = 0; k < ci->nreserved; k++) {
        dc_hash_str(&h, ci->reserved[k].api_group);
        dc_hash_str(&h, ci->reserved[k].resource);
        dc_hash_str(&h, ci->reserved[k].name);
        dc_hash_str(&h, ci->reserved[k].uid);
    }
    return h.h;
}

uint64_t dc_class_version(const dc_class_in *cl)
{
    dc_hash h = DC_HASH_INIT;
    dc_hash_int(&h, cl->nsels);
    dc_hash_int(&h, cl->nconfig);
    dc_hash_class_spec(&h, cl);
    /* what extended resources read of it */
    dc_hash_str(&h, cl->extended_resource_name);
    dc_hash_int(&h, cl->created);
    return h.h;
}

uint64_t dc_node_version(const dc_node_in *n)
{
    dc_hash h = DC_HASH_INIT;
    dc_hash_int(&h, n->nlabels);
    for (uint32_t i = 0; i < n->nlabels; i++) {
        dc_hash_str(&h, n->labels[i].key);
        dc_hash_str(&h, n->labels[i].value);
    }
    dc_hash_int(&h, n->nalloc);
    for (uint32_t i = 0; i < n->nalloc; i++) {
        dc_hash_str(&h, n->alloc[i].key);
        dc_hash_str(&h, n->alloc[i].value);
    }
    return h.h;
}
