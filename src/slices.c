/*
 * slices.c: the ResourceSlice loader (see slices.h), and the object loader of src/objects.c.
 *
 * Both formats are parsed into one small tree of our own (dc_tnode, in ldint.h), which a single
 * decoder turns into dc_slice_in records while applying Kubernetes' API validation:
 * The text (src/load/files.c: buffers, files, directories) is parsed in src/load/json.c and
 * src/load/yaml.c; this file holds the decoders, their messages and helpers, and the dispatch
 * of each document's objects (dc_ld_dispatch):
 *   - JSON: a pre-scan of our own checks the whole JSON grammar (strict numbers, no "\u0000", no
 *     lone surrogates, no control characters; precise messages with lines), bounds the nesting
 *     depth and the number of values, and records for every value and every key, in document
 *     order, its line and (for values) its raw token. Only then does cJSON build the structure
 *     (cJSON_ParseWithLengthOpts on the NUL-terminated text, length + 1, NUL required). cJSON
 *     keeps document order, so the k-th value of a pre-order walk of its tree is the k-th value
 *     token of the scan: that gives exact int64 numbers and a line for every node and key.
 *   - YAML: libyaml's event API (one document at a time), plain scalars resolved as
 *     sigs.k8s.io/yaml (goyaml.v2, YAML 1.1) does: yes/no/on/off/y/n/true/false are booleans,
 *     ~/null/empty are null, 0x/0o/0b/leading-0 integers, '_' separators, YAML-style floats.
 *     Aliases are rejected (no expansion, hence no billion laughs).
 * src/json_val.c reads one device (`eval --device`, dc_ld_device_alone) and typed JSON values
 * (`--bind`) with the same scan, tree and rules, through ldint.h (json_only, bare messages).
 * src/objects.c (claims.h) shares the tree, the loader state and the helpers through ldint.h:
 * when dc_objects_load asked for them, objects of the other kinds (DeviceClass, ResourceClaim,
 * ResourceClaimTemplate, Node) go to its dc_ld_object, and a scenario replaces the dispatch by
 * kind (dc_ld.per_doc).
 *
 * Decisions:
 *   - Duplicate keys in a map the loader reads (object fields, attributes, capacities, counters)
 *     are an error in both formats ("duplicate key"), where Go would silently keep the last.
 *     Duplicates among fields the loader ignores are not looked at.
 *   - null is "unset" everywhere (as Go's decoder treats it for pointers, slices and maps).
 *   - A number with a fraction or an exponent is never an integer (1e3, 2.5, 1.0 are rejected
 *     for int fields, in YAML too, where Kubernetes would accept 1e3 and 1.0 through float64).
 *   - Version attributes are kept as text; their semver syntax is not checked here.
 *   - The first error found stops the load; nothing of the failed call stays in the set.
 *   - Short strings stored in the set are interned per load call (device and attribute names
 *     repeat across thousands of devices): equal strings may share one copy.
 */
#define _POSIX_C_SOURCE 200809L

#include "ldint.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quantity.h"

#define MAX_DEVICES 128u                /* ResourceSliceMaxDevices */
#define MAX_DEVICES_ADV 64u             /* ResourceSliceMaxDevicesWithAdvancedFeatures */
#define MAX_ATTRS_CAPS 32u              /* ResourceSliceMaxAttributesAndCapacitiesPerDevice */
#define MAX_TAINTS 16u                  /* DeviceTaintsMaxLength */
#define MAX_CONSUMES 2u                 /* ResourceSliceMaxDeviceCounterConsumptionsPerDevice */
#define MAX_COUNTER_SETS 8u             /* ResourceSliceMaxCounterSets */
#define MAX_COUNTERS 32u                /* ...PerCounterSet, ...PerDeviceCounterConsumption */
#define MAX_VALUE_LEN 64u               /* DeviceAttributeMaxValueLength */
#define MAX_ID_LEN 32u                  /* DeviceMaxIDLength */
#define MAX_DOMAIN_LEN 63u              /* DeviceMaxDomainLength, DriverNameMaxLength */
#define MAX_LIST_NEST 4u                /* a List inside a List inside ... */

/* ---------------------------------------------------------------------------------------------
 * Loader state (the tree and struct dc_ld are in ldint.h)
 */

#define INTERN_MAX 64 /* longer strings are copied, not interned */

/* ---------------------------------------------------------------------------------------------
 * Messages
 */

static void put(dc_ld *c, size_t *pos, const char *fmt, ...) DC_PRINTF(3, 4);

static void vput(dc_ld *c, size_t *pos, const char *fmt, va_list ap)
{
    if (*pos + 1 >= c->errcap)
        return;
    int k = vsnprintf(c->err + *pos, c->errcap - *pos, fmt, ap);
    if (k < 0)
        return;
    *pos += (size_t)k;
    if (*pos >= c->errcap)
        *pos = c->errcap - 1;
}

static void put(dc_ld *c, size_t *pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(c, pos, fmt, ap);
    va_end(ap);
}

/* s[0..n) for a message: quoted (or not), control bytes escaped, cut after ~80 bytes. */
static const char *qs(dc_ld *c, int slot, const char *s, size_t n, bool quote)
{
    char *o = c->q[slot];
    size_t k = 0;
    if (quote)
        o[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (k >= DC_LD_QBUF - 12) {
            while (i > 0 && (ch & 0xC0) == 0x80 && k > 1) { /* do not cut a UTF-8 sequence */
                k--;
                ch = (unsigned char)s[--i];
            }
            memcpy(o + k, "...", 3);
            k += 3;
            break;
        }
        uint32_t cp;
        int len = ch >= 0x80 ? dc_utf8_decode((const unsigned char *)s + i, n - i, &cp) : 1;
        if (ch == '"' || ch == '\\') {
            o[k++] = '\\';
            o[k++] = (char)ch;
        } else if (ch < 0x20 || ch == 0x7f || len <= 0) {
            /* control characters and bytes that are not UTF-8: messages stay valid text */
            k += (size_t)snprintf(o + k, DC_LD_QBUF - k, "\\x%02x", ch);
        } else {
            memcpy(o + k, s + i, (size_t)len);
            k += (size_t)len;
            i += (size_t)len - 1;
        }
    }
    if (quote)
        o[k++] = '"';
    o[k] = '\0';
    return o;
}

static dracel_status fail(dc_ld *c, uint32_t line, const char *fmt, ...) DC_PRINTF(3, 4);

static dracel_status vfail(dc_ld *c, uint32_t line, const char *fmt, va_list ap)
{
    if (!c->err || c->errcap == 0)
        return DRACEL_EINPUT;
    size_t pos = 0;
    if (!c->bare) {
        put(c, &pos, "%s", c->file ? c->file : "<input>");
        if (line)
            put(c, &pos, ":%u", (unsigned)line);
        put(c, &pos, ": ");
    }
    if (c->oname)
        put(c, &pos, "%s %s: ", c->okind, c->oname);
    if (c->np) {
        unsigned np = c->np < DC_LD_PATH_SEGS ? c->np : DC_LD_PATH_SEGS;
        for (unsigned i = 0; i < np; i++) {
            const dc_pseg *p = &c->path[i];
            if (p->kind == DC_PSEG_FIELD)
                put(c, &pos, "%s%s", i ? "." : "", p->s);
            else if (p->kind == DC_PSEG_INDEX)
                put(c, &pos, "[%u]", (unsigned)p->idx);
            else
                put(c, &pos, "[%s]", qs(c, 3, p->s, p->n, true));
        }
        put(c, &pos, ": ");
    }
    vput(c, &pos, fmt, ap);
    return DRACEL_EINPUT;
}

static dracel_status fail(dc_ld *c, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dracel_status st = vfail(c, line, fmt, ap);
    va_end(ap);
    return st;
}

static dracel_status oom(dc_ld *c)
{
    if (c->err && c->errcap)
        snprintf(c->err, c->errcap, "out of memory");
    return DRACEL_ENOMEM;
}

dracel_status dc_ld_io_fail(dc_ld *c, const char *path, const char *what, int e)
{
    if (e == ENOMEM)
        return oom(c); /* the system's memory (opendir's buffer, say): not the input's fault */
    if (c->err && c->errcap)
        snprintf(c->err, c->errcap, "%s: %s: %s", path, what, strerror(e));
    return DRACEL_EINVAL;
}

uint32_t dc_ld_line_at(const char *buf, size_t len, size_t off)
{
    uint32_t line = 1;
    if (off > len)
        off = len;
    const char *p = buf, *end = buf + off;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        line++;
        p++;
    }
    return line;
}

/* The column (1-based, in code points) of byte off of buf, for ld.fail_col. */
uint32_t dc_ld_col_at(const char *buf, size_t len, size_t off)
{
    if (off > len)
        off = len;
    size_t start = off;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    uint32_t col = 1;
    for (size_t i = start; i < off; i++)
        col += ((unsigned char)buf[i] & 0xC0) != 0x80;
    return col;
}

static const char *tname(const dc_tnode *v)
{
    switch (v->t) {
    case DC_TN_NULL: return "null";
    case DC_TN_BOOL: return "a boolean";
    case DC_TN_INT: return "an integer";
    case DC_TN_FLOAT: return "a number";
    case DC_TN_STR: return "a string";
    case DC_TN_MAP: return "an object";
    case DC_TN_RAW: return "a JSON value nested past the limit";
    default: return "a list";
    }
}

static dracel_status type_err(dc_ld *c, const dc_tnode *v, const char *want)
{
    if (v->plain && v->t != DC_TN_STR && strcmp(want, "a string") == 0)
        return fail(c, v->line,
                    "must be a string, not %s (YAML 1.1 reads the plain scalar %s as %s; quote it)",
                    tname(v), qs(c, 0, v->s, v->n, false), tname(v));
    return fail(c, v->line, "must be %s, not %s", want, tname(v));
}

static dracel_status bad_value(dc_ld *c, const dc_tnode *v, const char *why)
{
    if (v->t == DC_TN_MAP || v->t == DC_TN_SEQ || !v->s) /* no text: n counts its children */
        return fail(c, v->line, "invalid value (%s): %s", tname(v), why);
    return fail(c, v->line, "invalid value %s: %s", qs(c, 0, v->s, v->n, true), why);
}

/* ---------------------------------------------------------------------------------------------
 * Name checks (k8s.io/apimachinery pkg/util/validation and the resource validation). Each
 * returns NULL when valid, else the reason.
 */

static bool lc_alnum(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

static bool any_alnum(unsigned char ch)
{
    return lc_alnum(ch) || (ch >= 'A' && ch <= 'Z');
}

static unsigned char fold(unsigned char ch, bool lower)
{
    return lower && ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch + 32) : ch;
}

static const char WHY_LABEL[] =
    "must be a lowercase RFC 1123 label (at most 63 characters: 'a'-'z', '0'-'9' and '-', "
    "starting and ending with a letter or digit)";
static const char WHY_SUBDOMAIN[] =
    "must be a lowercase RFC 1123 subdomain (at most 253 characters: 'a'-'z', '0'-'9', '-' and "
    "'.', each dot-separated part starting and ending with a letter or digit)";
static const char WHY_QUALIFIED[] =
    "must be a qualified name (an optional DNS subdomain prefix and '/', then at most 63 "
    "characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit)";
static const char WHY_LABEL_VALUE[] =
    "must be at most 63 characters: letters, digits, '-', '_' and '.', starting and ending with "
    "a letter or digit";

static bool is_label(const char *s, size_t n)
{
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!lc_alnum(ch) && !(ch == '-' && i > 0 && i + 1 < n))
            return false;
    }
    return true;
}

/* IsDNS1123Subdomain (of the lowercased text when lower): length <= 253, dot-separated parts of
 * [a-z0-9] and '-', each starting and ending with [a-z0-9]. No per-part length limit. */
static bool is_subdomain(const char *s, size_t n, bool lower)
{
    if (n == 0 || n > 253)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (i == start || !lc_alnum(fold((unsigned char)s[start], lower)) ||
                !lc_alnum(fold((unsigned char)s[i - 1], lower)))
                return false;
            start = i + 1;
            continue;
        }
        unsigned char ch = fold((unsigned char)s[i], lower);
        if (!lc_alnum(ch) && ch != '-')
            return false;
    }
    return true;
}

static const char *label_err(const char *s, size_t n)
{
    return is_label(s, n) ? NULL : WHY_LABEL;
}

static const char *subdomain_err(const char *s, size_t n)
{
    return is_subdomain(s, n, false) ? NULL : WHY_SUBDOMAIN;
}

/* ValidateCSIDriverName: at most 63, a DNS subdomain once lowercased. */
static const char *driver_err(const char *s, size_t n)
{
    if (n > MAX_DOMAIN_LEN)
        return "longer than 63 characters";
    return is_subdomain(s, n, true)
               ? NULL
               : "must be an RFC 1123 subdomain (letters, digits, '-' and '.', each "
                 "dot-separated part starting and ending with a letter or digit)";
}

/* Pool names: at most 253, slash-separated DNS subdomains. */
static const char *pool_err(const char *s, size_t n)
{
    if (n > 253)
        return "longer than 253 characters";
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '/') {
            if (!is_subdomain(s + start, i - start, false))
                return "must be one or more lowercase RFC 1123 subdomains separated by '/'";
            start = i + 1;
        }
    }
    return NULL;
}

static bool is_cident(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!any_alnum((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

/* validateQualifiedName: "id" or "domain/id" (attribute and capacity names). */
static const char *qualified_err(const char *s, size_t n)
{
    const char *slash = memchr(s, '/', n);
    const char *id = s;
    size_t idn = n;
    if (slash) {
        size_t dn = (size_t)(slash - s);
        if (memchr(slash + 1, '/', n - dn - 1))
            return "must not contain more than one slash";
        if (dn == 0)
            return "the domain must not be empty";
        if (dn > MAX_DOMAIN_LEN)
            return "the domain is longer than 63 characters";
        if (!is_subdomain(s, dn, true))
            return "the domain must be an RFC 1123 subdomain (letters, digits, '-' and '.', each "
                   "dot-separated part starting and ending with a letter or digit)";
        id = slash + 1;
        idn = n - dn - 1;
    }
    if (idn == 0)
        return "the name must not be empty";
    if (idn > MAX_ID_LEN)
        return "the name is longer than 32 characters";
    if (!is_cident(id, idn))
        return "the name must be a C identifier (letters, digits and '_', not starting with a "
               "digit)";
    return NULL;
}

/* The name part of a label key, and label values: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]. */
static bool is_label_name_part(const char *s, size_t n)
{
    if (n == 0 || n > 63 || !any_alnum((unsigned char)s[0]) ||
        !any_alnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!any_alnum(ch) && ch != '-' && ch != '_' && ch != '.')
            return false;
    }
    return true;
}

/* IsQualifiedName (label keys, taint keys, node selector keys). */
static const char *label_key_err(const char *s, size_t n)
{
    const char *slash = memchr(s, '/', n);
    if (!slash)
        return is_label_name_part(s, n) ? NULL : WHY_QUALIFIED;
    size_t pn = (size_t)(slash - s);
    if (memchr(slash + 1, '/', n - pn - 1) || !is_subdomain(s, pn, false) ||
        !is_label_name_part(slash + 1, n - pn - 1))
        return WHY_QUALIFIED;
    return NULL;
}

static const char *label_value_err(const char *s, size_t n)
{
    return n == 0 || is_label_name_part(s, n) ? NULL : WHY_LABEL_VALUE;
}

/* ---------------------------------------------------------------------------------------------
 * Numbers
 */

/* Exact int64 from a decimal token [-]digits (JSON grammar already checked). false: overflow. */
bool dc_ld_dec_i64(const char *s, size_t n, int64_t *out)
{
    bool neg = n && s[0] == '-';
    uint64_t v = 0;
    bool ovf = false;
    for (size_t i = neg; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            ovf = true;
        else
            v = v * 10 + d;
    }
    if (ovf)
        return false;
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return false;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
        return true;
    }
    if (v > (uint64_t)INT64_MAX)
        return false;
    *out = (int64_t)v;
    return true;
}

/* Go strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64) on s (underscores removed).
 * 0: not an integer for either; 1: fits int64 (*out); 2: ParseUint only (*u). */
static int go_int(const char *s, size_t n, int64_t *out, uint64_t *u)
{
    size_t i = 0;
    bool neg = false, sign = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        sign = true;
        i++;
    }
    if (i >= n)
        return 0;
    unsigned base = 10;
    if (s[i] == '0' && i + 1 < n) {
        char p = (char)(s[i + 1] | 0x20);
        if (p == 'x')
            base = 16, i += 2;
        else if (p == 'o')
            base = 8, i += 2;
        else if (p == 'b')
            base = 2, i += 2;
        else
            base = 8, i += 1;
        if (i >= n)
            return 0;
    }
    uint64_t v = 0;
    bool ovf = false;
    for (; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        unsigned d;
        if (ch >= '0' && ch <= '9')
            d = ch - '0';
        else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
            d = (unsigned)((ch | 0x20) - 'a' + 10);
        else
            return 0;
        if (d >= base)
            return 0;
        if (v > (UINT64_MAX - d) / base)
            ovf = true;
        else
            v = v * base + d;
    }
    if (ovf)
        return 0; /* neither ParseInt nor ParseUint: may still be a float */
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return 0;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
        return 1;
    }
    if (v <= (uint64_t)INT64_MAX) {
        *out = (int64_t)v;
        return 1;
    }
    if (sign)
        return 0; /* ParseUint takes no sign */
    *u = v;
    return 2;
}

/* goyaml.v2's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_float_syntax(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    size_t d0 = i;
    if (i < n && s[i] == '.') {
        i++;
        d0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d0)
            return false;
    } else {
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d0)
            return false;
        if (i < n && s[i] == '.') {
            i++;
            while (i < n && s[i] >= '0' && s[i] <= '9')
                i++;
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == e0)
            return false;
    }
    return i == n;
}

/* strconv.ParseFloat succeeds (no overflow to infinity) on a yaml_float_syntax text. */
static bool float_finite(const char *s)
{
    errno = 0;
    double d = strtod(s, NULL);
    return !(errno == ERANGE && isinf(d));
}

bool dc_ld_eq_any(const char *s, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strncmp(*list, s, n) == 0 && (*list)[n] == '\0')
            return true;
    return false;
}

static const char *const Y_TRUE[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
                                     "on", "On", "ON", NULL};
static const char *const Y_FALSE[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE",
                                      "off", "Off", "OFF", NULL};
static const char *const Y_NULL[] = {"~", "null", "Null", "NULL", NULL};
static const char *const Y_SPECIAL_FLOAT[] = {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF",
                                              "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
                                              "-.INF", NULL};

/* Resolve a YAML plain scalar (text already in v->s, v->n) as goyaml.v2 does. */
dracel_status dc_ld_resolve_plain(dc_ld *c, dc_tnode *v)
{
    const char *s = v->s;
    size_t n = v->n;
    v->plain = 1;
    v->t = DC_TN_STR;
    if (n == 0) {
        v->t = DC_TN_NULL;
        return DRACEL_OK;
    }
    char h = s[0];
    if (n <= 5 && strchr("yYnNtTfFoO~", h)) { /* goyaml.v2's resolve table hint 'M' */
        if (dc_ld_eq_any(s, n, Y_NULL)) {
            v->t = DC_TN_NULL;
        } else if (dc_ld_eq_any(s, n, Y_TRUE)) {
            v->t = DC_TN_BOOL;
            v->b = 1;
        } else if (dc_ld_eq_any(s, n, Y_FALSE)) {
            v->t = DC_TN_BOOL;
        }
        return DRACEL_OK;
    }
    if (n <= 5 && (h == '.' || h == '+' || h == '-') && dc_ld_eq_any(s, n, Y_SPECIAL_FLOAT)) {
        v->t = DC_TN_FLOAT;
        return DRACEL_OK;
    }
    if (h == '.') {
        if (yaml_float_syntax(s, n) && float_finite(s))
            v->t = DC_TN_FLOAT;
        return DRACEL_OK;
    }
    if (!(h == '+' || h == '-' || (h >= '0' && h <= '9')))
        return DRACEL_OK;
    const char *plain = s;
    size_t pn = n;
    if (memchr(s, '_', n)) {
        char *p = dc_arena_alloc(&c->doc, n + 1);
        if (!p)
            return oom(c);
        pn = 0;
        for (size_t i = 0; i < n; i++)
            if (s[i] != '_')
                p[pn++] = s[i];
        p[pn] = '\0';
        plain = p;
    }
    int64_t iv = 0;
    uint64_t uv = 0;
    int r = go_int(plain, pn, &iv, &uv);
    if (r == 1) {
        v->t = DC_TN_INT;
        v->iok = 1;
        v->i = iv;
    } else if (r == 2) {
        v->t = DC_TN_INT;
        v->iok = 0;
        v->i = (int64_t)uv;
    } else if (yaml_float_syntax(plain, pn) && float_finite(plain)) {
        v->t = DC_TN_FLOAT;
    }
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Growable temporaries (through the set's allocator)
 */

bool dc_ld_grow(const dracel_alloc *a, void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem)
            return false;
        nc *= 2;
    }
    void *q = dc_realloc(a, *p, *cap * elem, nc * elem);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Decoding helpers
 */

#define MAXF 16

/* Look up the fields of an object-like map in one pass. out[i] is the entry for names[i], or NULL
 * when absent or null. A key given twice is an error. */
static dracel_status fields(dc_ld *c, const dc_tnode *m, const char *const *names, unsigned nn,
                            const dc_tent **out)
{
    bool seen[MAXF] = {false};
    size_t lens[MAXF];
    for (unsigned j = 0; j < nn; j++) {
        out[j] = NULL;
        lens[j] = strlen(names[j]);
    }
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_tent *e = &m->kids[i];
        for (unsigned j = 0; j < nn; j++) {
            if (e->klen == lens[j] && memcmp(e->k, names[j], lens[j]) == 0) {
                if (seen[j])
                    return fail(c, e->kline, "duplicate key %s", qs(c, 0, e->k, e->klen, true));
                seen[j] = true;
                if (e->v.t != DC_TN_NULL)
                    out[j] = e;
                break;
            }
        }
    }
    return DRACEL_OK;
}

/* Keys of a map with user-chosen keys (small: the caller checked its size). */
static dracel_status map_dups(dc_ld *c, const dc_tnode *m)
{
    for (uint32_t i = 1; i < m->n; i++)
        for (uint32_t j = 0; j < i; j++)
            if (m->kids[i].klen == m->kids[j].klen &&
                memcmp(m->kids[i].k, m->kids[j].k, m->kids[i].klen) == 0)
                return fail(c, m->kids[i].kline, "duplicate key %s",
                            qs(c, 0, m->kids[i].k, m->kids[i].klen, true));
    return DRACEL_OK;
}

static dracel_status want(dc_ld *c, const dc_tnode *v, int t)
{
    if (v->t == t)
        return DRACEL_OK;
    switch (t) {
    case DC_TN_STR: return type_err(c, v, "a string");
    case DC_TN_BOOL: return type_err(c, v, "a boolean");
    case DC_TN_MAP: return type_err(c, v, "an object");
    case DC_TN_SEQ: return type_err(c, v, "a list");
    default: return type_err(c, v, "an integer");
    }
}

static dracel_status want_int(dc_ld *c, const dc_tnode *v, int64_t *out)
{
    if (v->t == DC_TN_INT) {
        if (!v->iok)
            return fail(c, v->line, "%s does not fit in a 64-bit integer",
                        qs(c, 0, v->s, v->n, false));
        *out = v->i;
        return DRACEL_OK;
    }
    if (v->t == DC_TN_FLOAT)
        return fail(c, v->line, "%s is not an integer", qs(c, 0, v->s, v->n, false));
    return type_err(c, v, "an integer");
}

static uint32_t hash_str(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static bool intern_grow(dc_ld *c)
{
    size_t nc = c->capit ? c->capit * 2 : 1024;
    if (nc > SIZE_MAX / sizeof(dc_istr))
        return false;
    dc_istr *t = dc_malloc(c->a, nc * sizeof *t);
    if (!t)
        return false;
    memset(t, 0, nc * sizeof *t);
    for (size_t i = 0; i < c->capit; i++) {
        if (!c->it[i].s)
            continue;
        size_t j = c->it[i].h & (nc - 1);
        while (t[j].s)
            j = (j + 1) & (nc - 1);
        t[j] = c->it[i];
    }
    dc_free(c->a, c->it, c->capit * sizeof *c->it);
    c->it = t;
    c->capit = nc;
    return true;
}

/* A NUL-terminated copy of s[0..n) in the set's arena; equal short strings share one copy. */
static dracel_status sdup(dc_ld *c, const char *s, size_t n, const char **out)
{
    if (n > INTERN_MAX) {
        char *p = dc_arena_strndup(&c->s->arena, s, n);
        if (!p)
            return oom(c);
        *out = p;
        return DRACEL_OK;
    }
    if ((c->nit + 1) * 2 > c->capit && !intern_grow(c))
        return oom(c);
    uint32_t h = hash_str(s, n);
    size_t j = h & (c->capit - 1);
    for (; c->it[j].s; j = (j + 1) & (c->capit - 1)) {
        if (c->it[j].h == h && c->it[j].n == n && memcmp(c->it[j].s, s, n) == 0) {
            *out = c->it[j].s;
            return DRACEL_OK;
        }
    }
    char *p = dc_arena_strndup(&c->s->arena, s, n);
    if (!p)
        return oom(c);
    c->it[j] = (dc_istr){p, (uint32_t)n, h};
    c->nit++;
    *out = p;
    return DRACEL_OK;
}

static void *szalloc(dc_ld *c, size_t n, size_t elem)
{
    if (n == 0)
        return NULL;
    return dc_arena_zalloc(&c->s->arena, n * elem);
}

/* A required, non-empty string field; on success *v is its node. */
static dracel_status req_str(dc_ld *c, const dc_tent *e, uint32_t mline, const dc_tnode **v)
{
    if (!e)
        return fail(c, mline, "required value");
    DC_TRY(want(c, &e->v, DC_TN_STR));
    if (e->v.n == 0)
        return fail(c, e->v.line, "required value");
    *v = &e->v;
    return DRACEL_OK;
}

/* A Quantity: a string, or a number (Quantity's UnmarshalJSON takes both). */
static dracel_status quantity(dc_ld *c, const dc_tnode *v, const char **out)
{
    const char *txt = v->s;
    size_t n = v->n;
    char buf[32];
    if (v->t == DC_TN_STR) {
        while (n && (*txt == ' ' || *txt == '\t' || *txt == '\n' || *txt == '\r')) /* TrimSpace */
            txt++, n--;
        while (n && (txt[n - 1] == ' ' || txt[n - 1] == '\t' || txt[n - 1] == '\n' ||
                     txt[n - 1] == '\r'))
            n--;
    } else if (v->t == DC_TN_INT && v->plain) {
        /* YAML: the integer's value as Go would print it into JSON (0x10 -> 16, 1_000 -> 1000) */
        int k = v->iok ? snprintf(buf, sizeof buf, "%lld", (long long)v->i)
                       : snprintf(buf, sizeof buf, "%llu", (unsigned long long)(uint64_t)v->i);
        txt = buf;
        n = (size_t)k;
    } else if (v->t == DC_TN_FLOAT && v->plain && memchr(v->s, '_', v->n)) {
        char *p = dc_arena_alloc(&c->doc, v->n + 1);
        if (!p)
            return oom(c);
        n = 0;
        for (size_t i = 0; i < v->n; i++)
            if (v->s[i] != '_')
                p[n++] = v->s[i];
        txt = p;
    } else if (v->t != DC_TN_INT && v->t != DC_TN_FLOAT) {
        return type_err(c, v, "a quantity (a string or a number)");
    }
    dc_qty q;
    const char *why = dc_qty_parse(txt, n, &q);
    if (why)
        return fail(c, v->line, "invalid quantity %s: %s", qs(c, 0, txt, n, true), why);
    return sdup(c, txt, n, out);
}

/* ---------------------------------------------------------------------------------------------
 * Node selectors (core/v1 NodeSelector)
 */

static const char *const OPS[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", NULL};

static dracel_status node_req(dc_ld *c, const dc_tnode *m, bool field, dc_node_req_in *r)
{
    static const char *const RF[] = {"key", "operator", "values"};
    const dc_tent *f[3];
    DC_TRY(want(c, m, DC_TN_MAP));
    DC_TRY(fields(c, m, RF, 3, f));
    r->field = field;
    const dc_tnode *v;
    /* values */
    uint32_t nv = 0;
    if (f[2]) {
        dc_path_field(c, "values");
        DC_TRY(want(c, &f[2]->v, DC_TN_SEQ));
        nv = f[2]->v.n;
        r->values = szalloc(c, nv, sizeof *r->values);
        if (nv && !r->values)
            return oom(c);
        for (uint32_t i = 0; i < nv; i++) {
            dc_path_index(c, i);
            const dc_tnode *x = &f[2]->v.kids[i].v;
            DC_TRY(want(c, x, DC_TN_STR));
            DC_TRY(sdup(c, x->s, x->n, &r->values[i]));
            dc_path_pop(c);
        }
        r->nvalues = nv;
        dc_path_pop(c);
    }
    /* operator */
    dc_path_field(c, "operator");
    DC_TRY(req_str(c, f[1], m->line, &v));
    if (!dc_ld_eq_any(v->s, v->n, OPS) ||
        (field && !(strcmp(v->s, "In") == 0 || strcmp(v->s, "NotIn") == 0)))
        return bad_value(c, v, field ? "not a valid field selector operator (In or NotIn)"
                                     : "not a valid selector operator (In, NotIn, Exists, "
                                       "DoesNotExist, Gt or Lt)");
    DC_TRY(sdup(c, v->s, v->n, &r->op));
    dc_path_pop(c);
    bool in = strcmp(r->op, "In") == 0 || strcmp(r->op, "NotIn") == 0;
    bool ex = strcmp(r->op, "Exists") == 0 || strcmp(r->op, "DoesNotExist") == 0;
    uint32_t vline = f[2] ? f[2]->kline : m->line;
    dc_path_field(c, "values");
    if (field && nv != 1)
        return fail(c, vline,
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field "
                    "selector");
    if (in && nv == 0)
        return fail(c, vline, "must be specified when `operator` is 'In' or 'NotIn'");
    if (ex && nv > 0)
        return fail(c, vline, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    if (!in && !ex && nv != 1)
        return fail(c, vline, "must be specified single value when `operator` is 'Lt' or 'Gt'");
    if (in) {
        for (uint32_t i = 0; i < nv; i++) {
            const dc_tnode *x = &f[2]->v.kids[i].v;
            const char *why = field ? subdomain_err(x->s, x->n) : label_value_err(x->s, x->n);
            if (why) {
                dc_path_index(c, i);
                return bad_value(c, x, why);
            }
        }
    }
    dc_path_pop(c);
    /* key */
    dc_path_field(c, "key");
    DC_TRY(req_str(c, f[0], m->line, &v));
    if (field && strcmp(v->s, "metadata.name") != 0)
        return bad_value(c, v, "not a valid field selector key (only metadata.name is supported)");
    if (!field) {
        const char *why = label_key_err(v->s, v->n);
        if (why)
            return bad_value(c, v, why);
    }
    DC_TRY(sdup(c, v->s, v->n, &r->key));
    dc_path_pop(c);
    return DRACEL_OK;
}

static dracel_status node_selector(dc_ld *c, const dc_tnode *m, bool slice,
                                   const dc_node_selector_in **out)
{
    static const char *const NF[] = {"nodeSelectorTerms"};
    static const char *const TF[] = {"matchExpressions", "matchFields"};
    const dc_tent *f[1];
    DC_TRY(want(c, m, DC_TN_MAP));
    DC_TRY(fields(c, m, NF, 1, f));
    dc_path_field(c, "nodeSelectorTerms");
    if (f[0])
        DC_TRY(want(c, &f[0]->v, DC_TN_SEQ));
    if (!f[0] || f[0]->v.n == 0)
        return fail(c, f[0] ? f[0]->kline : m->line, "must have at least one node selector term");
    const dc_tnode *terms = &f[0]->v;
    if (slice && terms->n != 1)
        return fail(c, f[0]->kline, "must have exactly one node selector term");
    dc_node_selector_in *sel = szalloc(c, 1, sizeof *sel);
    if (!sel)
        return oom(c);
    sel->terms = szalloc(c, terms->n, sizeof *sel->terms);
    if (!sel->terms)
        return oom(c);
    sel->n = terms->n;
    for (uint32_t i = 0; i < terms->n; i++) {
        dc_path_index(c, i);
        const dc_tnode *t = &terms->kids[i].v;
        const dc_tent *tf[2];
        DC_TRY(want(c, t, DC_TN_MAP));
        DC_TRY(fields(c, t, TF, 2, tf));
        uint32_t total = 0;
        for (int k = 0; k < 2; k++) {
            if (tf[k]) {
                dc_path_field(c, TF[k]);
                DC_TRY(want(c, &tf[k]->v, DC_TN_SEQ));
                dc_path_pop(c);
                total += tf[k]->v.n;
            }
        }
        dc_node_term_in *term = &sel->terms[i];
        term->reqs = szalloc(c, total, sizeof *term->reqs);
        if (total && !term->reqs)
            return oom(c);
        for (int k = 0; k < 2; k++) {
            if (!tf[k])
                continue;
            dc_path_field(c, TF[k]);
            for (uint32_t j = 0; j < tf[k]->v.n; j++) {
                dc_path_index(c, j);
                DC_TRY(node_req(c, &tf[k]->v.kids[j].v, k == 1, &term->reqs[term->n]));
                term->n++;
                dc_path_pop(c);
            }
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    dc_path_pop(c);
    *out = sel;
    return DRACEL_OK;
}

/* "`a`", "`a` and `b`", "`a`, `b` and `c`" */
static void join_names(char *buf, size_t cap, const char *const *v, unsigned n)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < n && pos < cap; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " and " : ", ";
        int k = snprintf(buf + pos, cap - pos, "%s`%s`", sep, v[i]);
        if (k < 0)
            break;
        pos += (size_t)k;
    }
}

/* nodeName / nodeSelector / allNodes / perDeviceNodeSelection of a slice (pd != NULL allowed) or
 * of a device (slice == false). */
static dracel_status node_scope(dc_ld *c, const dc_tnode *m, const dc_tent *nn, const dc_tent *ns,
                                const dc_tent *an, const dc_tent *pd, bool slice,
                                dc_node_scope_in *out)
{
    const char *set[4];
    unsigned k = 0;
    if (nn) {
        dc_path_field(c, "nodeName");
        DC_TRY(want(c, &nn->v, DC_TN_STR));
        if (nn->v.n == 0)
            return fail(c, nn->v.line,
                        slice ? "must be either unset or set to a non-empty string"
                              : "must not be empty");
        const char *why = subdomain_err(nn->v.s, nn->v.n);
        if (why)
            return bad_value(c, &nn->v, why);
        DC_TRY(sdup(c, nn->v.s, nn->v.n, &out->node_name));
        set[k++] = "nodeName";
        dc_path_pop(c);
    }
    if (ns) {
        dc_path_field(c, "nodeSelector");
        DC_TRY(node_selector(c, &ns->v, slice, &out->selector));
        set[k++] = "nodeSelector";
        dc_path_pop(c);
    }
    if (an) {
        dc_path_field(c, "allNodes");
        DC_TRY(want(c, &an->v, DC_TN_BOOL));
        if (!an->v.b)
            return fail(c, an->v.line, "must be either unset or set to true");
        out->all_nodes = true;
        set[k++] = "allNodes";
        dc_path_pop(c);
    }
    if (pd) {
        dc_path_field(c, "perDeviceNodeSelection");
        DC_TRY(want(c, &pd->v, DC_TN_BOOL));
        if (!pd->v.b)
            return fail(c, pd->v.line, "must be either unset or set to true");
        out->per_device = true;
        set[k++] = "perDeviceNodeSelection";
        dc_path_pop(c);
    }
    char names[128];
    join_names(names, sizeof names, set, k);
    if (slice) {
        if (k == 0)
            return fail(c, m->line,
                        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                        "`perDeviceNodeSelection` is required");
        if (k > 1)
            return fail(c, m->line,
                        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                        "`perDeviceNodeSelection` is required, but %s are set",
                        names);
    } else {
        if (k == 0)
            return fail(c, m->line,
                        "exactly one of `nodeName`, `nodeSelector` or `allNodes` is required "
                        "when `perDeviceNodeSelection` is set to true in the ResourceSlice spec");
        if (k > 1)
            return fail(c, m->line,
                        "exactly one of `nodeName`, `nodeSelector` or `allNodes` is required "
                        "when `perDeviceNodeSelection` is set to true in the ResourceSlice "
                        "spec, but %s are set",
                        names);
    }
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Devices
 */

/* One value of a list attribute (kind: its element kind), at index i of the list a. */
static dracel_status list_value(dc_ld *c, const dc_tnode *x, dc_attr_kind kind, dc_attr_in *a,
                                uint32_t i)
{
    dc_path_index(c, i);
    switch (kind) {
    case DC_ATTR_INT:
        DC_TRY(want_int(c, x, (int64_t *)&a->is[i]));
        break;
    case DC_ATTR_BOOL:
        DC_TRY(want(c, x, DC_TN_BOOL));
        ((bool *)a->bs)[i] = x->b;
        break;
    default:
        DC_TRY(want(c, x, DC_TN_STR));
        if (x->n > MAX_VALUE_LEN)
            return fail(c, x->line, "%u bytes, more than %u", (unsigned)x->n, MAX_VALUE_LEN);
        DC_TRY(sdup(c, x->s, x->n, (const char **)&a->ss[i]));
        ((uint32_t *)a->slens)[i] = x->n;
        break;
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

/* A list attribute (`ints`, `bools`, `strings`, `versions`): a non-empty list of values of
 * one kind (kubernetes/api resource/v1 DeviceAttribute). */
static dracel_status list_attribute(dc_ld *c, const dc_tent *f, dc_attr_kind kind, dc_attr_in *a)
{
    const dc_tnode *v = &f->v;
    DC_TRY(want(c, v, DC_TN_SEQ));
    if (v->n == 0)
        return fail(c, v->line, "must not be empty");
    if (v->n > DC_ATTR_MAX_VALUES)
        return fail(c, v->line, "%u values, more than %u (the values of one device)",
                    (unsigned)v->n, DC_ATTR_MAX_VALUES);
    a->kind = (dc_attr_kind)(kind + DC_ATTR_INTS);
    a->n = v->n;
    switch (kind) {
    case DC_ATTR_INT: a->is = szalloc(c, v->n, sizeof *a->is); break;
    case DC_ATTR_BOOL: a->bs = szalloc(c, v->n, sizeof *a->bs); break;
    default:
        a->ss = szalloc(c, v->n, sizeof *a->ss);
        a->slens = szalloc(c, v->n, sizeof *a->slens);
        if (!a->slens)
            return oom(c);
        break;
    }
    if (!a->is && !a->bs && !a->ss)
        return oom(c);
    for (uint32_t i = 0; i < v->n; i++)
        DC_TRY(list_value(c, &v->kids[i].v, kind, a, i));
    return DRACEL_OK;
}

static dracel_status attribute(dc_ld *c, const dc_tent *e, dc_attr_in *a)
{
    static const char *const AF[] = {"int", "bool", "string", "version",
                                     "ints", "bools", "strings", "versions"};
    const dc_tent *f[8];
    dc_path_key(c, e->k, e->klen);
    const char *why = qualified_err(e->k, e->klen);
    if (why)
        return fail(c, e->kline, "%s", why);
    DC_TRY(sdup(c, e->k, e->klen, &a->name));
    const dc_tnode *v = &e->v;
    if (v->t == DC_TN_NULL) {
        for (int j = 0; j < 8; j++)
            f[j] = NULL;
    } else {
        DC_TRY(want(c, v, DC_TN_MAP));
        DC_TRY(fields(c, v, AF, 8, f));
    }
    const char *set[8];
    unsigned k = 0;
    int which = -1;
    for (int j = 0; j < 8; j++)
        if (f[j]) {
            set[k++] = AF[j];
            which = j;
        }
    if (k != 1) {
        char names[160];
        join_names(names, sizeof names, set, k);
        if (k == 0)
            return fail(c, v->line,
                        "exactly one of `int`, `bool`, `string`, `version`, `ints`, `bools`, "
                        "`strings` or `versions` is required");
        return fail(c, v->line,
                    "exactly one of `int`, `bool`, `string`, `version`, `ints`, `bools`, "
                    "`strings` or `versions` is required, but %s are set",
                    names);
    }
    dc_path_field(c, AF[which]);
    if (which >= 4) {
        DC_TRY(list_attribute(c, f[which], (dc_attr_kind)(which - 4), a));
    } else if (which == 0) {
        a->kind = DC_ATTR_INT;
        DC_TRY(want_int(c, &f[0]->v, &a->i));
    } else if (which == 1) {
        a->kind = DC_ATTR_BOOL;
        DC_TRY(want(c, &f[1]->v, DC_TN_BOOL));
        a->b = f[1]->v.b;
    } else {
        const dc_tnode *x = &f[which]->v;
        a->kind = which == 2 ? DC_ATTR_STRING : DC_ATTR_VERSION;
        DC_TRY(want(c, x, DC_TN_STR));
        if (x->n > MAX_VALUE_LEN)
            return fail(c, x->line, "%u bytes, more than %u", (unsigned)x->n, MAX_VALUE_LEN);
        DC_TRY(sdup(c, x->s, x->n, &a->s));
        a->slen = x->n;
    }
    dc_path_pop(c);
    dc_path_pop(c);
    return DRACEL_OK;
}

#define MAX_VALID_VALUES 10u /* CapacityRequestPolicyDiscreteMaxOptions */

/* Compare two validated quantity texts. */
static int qcmp(const char *a, const char *b)
{
    dc_qty x, y;
    dc_qty_parse(a, strlen(a), &x);
    dc_qty_parse(b, strlen(b), &y);
    return dc_qty_cmp(&x, &y);
}

/* Quantity.Value() of a validated text (rounded up, as Go's Value()). */
static int64_t qvalue(const char *a)
{
    dc_qty x;
    dc_qty_parse(a, strlen(a), &x);
    dc_qty_i128 m = x.m;
    for (int32_t e = x.e; e > 0 && m < ((dc_qty_i128)1 << 100); e--)
        m *= 10;
    for (int32_t e = x.e; e < 0; e++)
        m = m / 10 + (m % 10 > 0) - (m % 10 < 0);
    return m > INT64_MAX ? INT64_MAX : m < INT64_MIN ? INT64_MIN : (int64_t)m;
}

/* A capacity's requestPolicy: {default, validValues | validRange {min, max, step}}, with the
 * API server's checks (validation.go's validateRequestPolicy; the first failing one is
 * reported): not both of validValues and validRange; with either, a default; valid values at
 * most 10, ascending, without two of one value, none above the capacity's value, the default
 * among them; a range's min (required) and max at most the capacity, min <= max, the default
 * within them, min + step at most the capacity, the default and max on a step from min. That
 * the device allows multiple allocations is checked by the caller. */
static dracel_status request_policy(dc_ld *c, const dc_tent *e, const char *value,
                                    const dc_cap_policy_in **out)
{
    static const char *const PF[] = {"default", "validValues", "validRange"};
    static const char *const RF[] = {"min", "max", "step"};
    const dc_tent *f[3];
    dc_path_field(c, "requestPolicy");
    if (e->v.t == DC_TN_NULL) {
        dc_path_pop(c);
        return DRACEL_OK;
    }
    DC_TRY(want(c, &e->v, DC_TN_MAP));
    DC_TRY(fields(c, &e->v, PF, 3, f));
    dc_cap_policy_in *p = szalloc(c, 1, sizeof *p);
    if (!p)
        return oom(c);
    if (f[1] && f[1]->v.t == DC_TN_SEQ && f[1]->v.n && f[2] && f[2]->v.t != DC_TN_NULL)
        return fail(c, e->kline, "exactly one policy can be specified, cannot specify "
                    "\"validValues\" and \"validRange\" at the same time");
    if (f[0]) {
        dc_path_field(c, "default");
        DC_TRY(quantity(c, &f[0]->v, &p->def));
        dc_path_pop(c);
    }
    if (f[1] && f[1]->v.t != DC_TN_NULL) {
        dc_path_field(c, "validValues");
        const dc_tnode *l = &f[1]->v;
        DC_TRY(want(c, l, DC_TN_SEQ));
        if (l->n > MAX_VALID_VALUES)
            return fail(c, f[1]->kline, "must have at most %u items", MAX_VALID_VALUES);
        p->valid = szalloc(c, l->n, sizeof *p->valid);
        if (l->n && !p->valid)
            return oom(c);
        for (uint32_t i = 0; i < l->n; i++) {
            dc_path_index(c, i);
            DC_TRY(quantity(c, &l->kids[i].v, &p->valid[i]));
            dc_path_pop(c);
        }
        p->nvalid = l->n;
        if (p->nvalid && !p->def) {
            dc_path_pop(c);
            dc_path_field(c, "default");
            return fail(c, e->kline, "required when validValues is defined");
        }
        for (uint32_t i = 0; i + 1 < p->nvalid; i++)
            if (qcmp(p->valid[i], p->valid[i + 1]) > 0) {
                dc_path_index(c, i + 1);
                return fail(c, l->kids[i + 1].v.line, "invalid value %s: values must be sorted "
                            "in ascending order", p->valid[i + 1]);
            }
        bool found = false;
        for (uint32_t i = 0; i < p->nvalid; i++) {
            if (qcmp(p->valid[i], value) > 0) {
                dc_path_index(c, i);
                return fail(c, l->kids[i].v.line, "invalid value %s: option is larger than "
                            "capacity value: %s", p->valid[i], value);
            }
            for (uint32_t k = 0; k < i; k++)
                if (qvalue(p->valid[k]) == qvalue(p->valid[i])) {
                    dc_path_index(c, i);
                    return fail(c, l->kids[i].v.line, "duplicate value %s", p->valid[i]);
                }
            found |= qcmp(p->valid[i], p->def) == 0;
        }
        if (p->nvalid && !found)
            return fail(c, f[1]->kline, "invalid value %s: default value is not valid according "
                        "to the requestPolicy", p->def);
        dc_path_pop(c);
    }
    if (f[2] && f[2]->v.t != DC_TN_NULL) {
        const dc_tent *r[3];
        dc_path_field(c, "validRange");
        DC_TRY(want(c, &f[2]->v, DC_TN_MAP));
        DC_TRY(fields(c, &f[2]->v, RF, 3, r));
        const char **slot[3] = {&p->min, &p->max, &p->step};
        for (int k = 0; k < 3; k++) {
            if (!r[k])
                continue;
            dc_path_field(c, RF[k]);
            DC_TRY(quantity(c, &r[k]->v, slot[k]));
            dc_path_pop(c);
        }
        uint32_t line = f[2]->v.line;
        if (!p->def) {
            dc_path_pop(c);
            dc_path_field(c, "default");
            return fail(c, e->kline, "required when validRange is defined");
        }
        dc_path_field(c, "min");
        if (!p->min)
            return fail(c, line, "required when validRange is defined");
        if (qcmp(p->min, value) > 0)
            return fail(c, line, "invalid value %s: min is larger than capacity value: %s",
                        p->min, value);
        if (qcmp(p->def, p->min) < 0)
            return fail(c, line, "invalid value %s: default is less than min: %s", p->def,
                        p->min);
        dc_path_pop(c);
        if (p->max) {
            dc_path_field(c, "max");
            if (qcmp(p->min, p->max) > 0)
                return fail(c, line, "invalid value %s: min is larger than max: %s", p->min,
                            p->max);
            if (qcmp(p->max, value) > 0)
                return fail(c, line, "invalid value %s: max is larger than capacity value: %s",
                            p->max, value);
            if (qcmp(p->def, p->max) > 0)
                return fail(c, line, "invalid value %s: default is more than max: %s", p->def,
                            p->max);
            dc_path_pop(c);
        }
        if (p->step) {
            dc_path_field(c, "step");
            dc_qty mn, st, sum, cap;
            dc_qty_parse(p->min, strlen(p->min), &mn);
            dc_qty_parse(p->step, strlen(p->step), &st);
            dc_qty_parse(value, strlen(value), &cap);
            if (!dc_qty_add(&mn, &st, &sum) && dc_qty_cmp(&sum, &cap) > 0) {
                char t[DC_QTY_FMT_MAX];
                dc_qty_format(&sum, t, sizeof t);
                return fail(c, line, "invalid value %s: one step %s is larger than capacity "
                            "value: %s", p->step, t, value);
            }
            int64_t sv = qvalue(p->step), mv = qvalue(p->min);
            const char *on[2] = {p->def, p->max};
            for (int k = 0; k < 2; k++)
                if (on[k] && sv != 0 && (qvalue(on[k]) - mv) % sv != 0)
                    return fail(c, line, "invalid value %s: value is not a multiple of a given "
                                "step (%s) from (%s)", on[k], p->step, p->min);
            if (sv <= 0)
                return fail(c, line, "invalid value %s: must be greater than zero", p->step);
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    *out = p;
    dc_path_pop(c);
    return DRACEL_OK;
}

static dracel_status capacity(dc_ld *c, const dc_tent *e, dc_capacity_in *cap)
{
    static const char *const CF[] = {"value", "requestPolicy"};
    const dc_tent *f[2] = {NULL, NULL};
    dc_path_key(c, e->k, e->klen);
    const char *why = qualified_err(e->k, e->klen);
    if (why)
        return fail(c, e->kline, "%s", why);
    DC_TRY(sdup(c, e->k, e->klen, &cap->name));
    if (e->v.t != DC_TN_NULL) {
        DC_TRY(want(c, &e->v, DC_TN_MAP));
        DC_TRY(fields(c, &e->v, CF, 2, f));
    }
    dc_path_field(c, "value");
    if (!f[0])
        return fail(c, e->v.line, "required value");
    DC_TRY(quantity(c, &f[0]->v, &cap->value));
    dc_path_pop(c);
    if (f[1])
        DC_TRY(request_policy(c, f[1], cap->value, &cap->policy));
    dc_path_pop(c);
    return DRACEL_OK;
}

/* The `counters` map of a counter set or of a device's consumption. */
static dracel_status counters(dc_ld *c, const dc_tent *e, uint32_t mline, dc_counter_set_in *cs)
{
    static const char *const VF[] = {"value"};
    dc_path_field(c, "counters");
    if (!e)
        return fail(c, mline, "required value");
    const dc_tnode *m = &e->v;
    DC_TRY(want(c, m, DC_TN_MAP));
    if (m->n == 0)
        return fail(c, e->kline, "required value");
    if (m->n > MAX_COUNTERS)
        return fail(c, e->kline, "%u counters, more than %u", (unsigned)m->n, MAX_COUNTERS);
    DC_TRY(map_dups(c, m));
    cs->counters = szalloc(c, m->n, sizeof *cs->counters);
    if (!cs->counters)
        return oom(c);
    cs->n = m->n;
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_tent *x = &m->kids[i];
        const dc_tent *f[1] = {NULL};
        dc_path_key(c, x->k, x->klen);
        const char *why = label_err(x->k, x->klen);
        if (why)
            return fail(c, x->kline, "invalid counter name: %s", why);
        DC_TRY(sdup(c, x->k, x->klen, &cs->counters[i].name));
        if (x->v.t != DC_TN_NULL) {
            DC_TRY(want(c, &x->v, DC_TN_MAP));
            DC_TRY(fields(c, &x->v, VF, 1, f));
        }
        dc_path_field(c, "value");
        if (!f[0])
            return fail(c, x->v.line, "required value");
        DC_TRY(quantity(c, &f[0]->v, &cs->counters[i].value));
        dc_path_pop(c);
        dc_path_pop(c);
    }
    dc_path_pop(c);
    return DRACEL_OK;
}

/* A named counter set: sharedCounters[i] {name, counters} or consumesCounters[i]
 * {counterSet, counters}. */
static dracel_status counter_set(dc_ld *c, const dc_tnode *m, const char *namefield,
                                 dc_counter_set_in *cs)
{
    const char *const F[] = {namefield, "counters"};
    const dc_tent *f[2];
    DC_TRY(want(c, m, DC_TN_MAP));
    DC_TRY(fields(c, m, F, 2, f));
    const dc_tnode *v;
    dc_path_field(c, namefield);
    DC_TRY(req_str(c, f[0], m->line, &v));
    const char *why = label_err(v->s, v->n);
    if (why)
        return bad_value(c, v, why);
    DC_TRY(sdup(c, v->s, v->n, &cs->name));
    dc_path_pop(c);
    return counters(c, f[1], m->line, cs);
}

static dracel_status counter_sets(dc_ld *c, const dc_tent *e, const char *namefield, uint32_t max,
                                  dc_counter_set_in **out, uint32_t *nout)
{
    const dc_tnode *v = &e->v;
    DC_TRY(want(c, v, DC_TN_SEQ));
    if (v->n > max)
        return fail(c, e->kline, "%u counter sets, more than %u", (unsigned)v->n, (unsigned)max);
    dc_counter_set_in *cs = szalloc(c, v->n, sizeof *cs);
    if (v->n && !cs)
        return oom(c);
    for (uint32_t i = 0; i < v->n; i++) {
        dc_path_index(c, i);
        DC_TRY(counter_set(c, &v->kids[i].v, namefield, &cs[i]));
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(cs[j].name, cs[i].name) == 0) {
                dc_path_field(c, namefield);
                return fail(c, v->kids[i].v.line, "duplicate value %s",
                            qs(c, 0, cs[i].name, strlen(cs[i].name), true));
            }
        }
        dc_path_pop(c);
    }
    *out = cs;
    *nout = v->n;
    return DRACEL_OK;
}

/* One DeviceTaint {key, value, effect} (timeAdded is ignored). */
static dracel_status taint(dc_ld *c, const dc_tnode *m, dc_taint_in *t)
{
    static const char *const TF[] = {"key", "value", "effect"};
    static const char *const EFFECTS[] = {"None", "NoSchedule", "NoExecute", NULL};
    const dc_tent *f[3];
    const dc_tnode *x;
    const char *why;
    DC_TRY(want(c, m, DC_TN_MAP));
    DC_TRY(fields(c, m, TF, 3, f));
    dc_path_field(c, "key");
    DC_TRY(req_str(c, f[0], m->line, &x));
    if ((why = label_key_err(x->s, x->n)) != NULL)
        return bad_value(c, x, why);
    DC_TRY(sdup(c, x->s, x->n, &t->key));
    dc_path_pop(c);
    if (f[1]) {
        dc_path_field(c, "value");
        x = &f[1]->v;
        DC_TRY(want(c, x, DC_TN_STR));
        if ((why = label_value_err(x->s, x->n)) != NULL)
            return bad_value(c, x, why);
        if (x->n)
            DC_TRY(sdup(c, x->s, x->n, &t->value));
        dc_path_pop(c);
    }
    dc_path_field(c, "effect");
    DC_TRY(req_str(c, f[2], m->line, &x));
    if (!dc_ld_eq_any(x->s, x->n, EFFECTS))
        return fail(c, x->line,
                    "unsupported value %s: supported values: \"NoExecute\", \"NoSchedule\", "
                    "\"None\"",
                    qs(c, 0, x->s, x->n, true));
    DC_TRY(sdup(c, x->s, x->n, &t->effect));
    dc_path_pop(c);
    return DRACEL_OK;
}

static dracel_status taints(dc_ld *c, const dc_tent *e, dc_device_in *d)
{
    const dc_tnode *v = &e->v;
    DC_TRY(want(c, v, DC_TN_SEQ));
    if (v->n > MAX_TAINTS)
        return fail(c, e->kline, "%u taints, more than %u", (unsigned)v->n, MAX_TAINTS);
    d->taints = szalloc(c, v->n, sizeof *d->taints);
    if (v->n && !d->taints)
        return oom(c);
    d->ntaints = v->n;
    for (uint32_t i = 0; i < v->n; i++) {
        dc_path_index(c, i);
        DC_TRY(taint(c, &v->kids[i].v, &d->taints[i]));
        dc_path_pop(c);
    }
    return DRACEL_OK;
}

enum { D_NAME, D_ATTRS, D_CAPS, D_CONSUMES, D_NODENAME, D_NODESEL, D_ALLNODES, D_TAINTS,
       D_MULTI, D_BASIC, D_BINDC, D_BINDF, D_BINDS, D_N };
_Static_assert(D_N <= MAXF, "fields() takes at most MAXF names");

/* How a device is read: an entry of a slice (with or without per-device node selection), or
 * one device on its own (dc_ld_device_alone). */
enum { DEV_SLICE, DEV_SLICE_PER_DEVICE, DEV_ALONE };

static dracel_status device(dc_ld *c, const dc_tnode *m, int mode, dc_device_in *d)
{
    static const char *const DF[D_N] = {"name",     "attributes",   "capacity",
                                        "consumesCounters", "nodeName", "nodeSelector",
                                        "allNodes", "taints",       "allowMultipleAllocations",
                                        "basic", "bindingConditions", "bindingFailureConditions",
                                        "bindsToNode"};
    const dc_tent *f[D_N];
    DC_TRY(want(c, m, DC_TN_MAP));
    DC_TRY(fields(c, m, DF, D_N, f));
    d->line = m->line;
    const dc_tnode *v;
    const char *why;
    if (f[D_NAME] || mode != DEV_ALONE) {
        dc_path_field(c, "name");
        DC_TRY(req_str(c, f[D_NAME], m->line, &v));
        if ((why = label_err(v->s, v->n)) != NULL)
            return bad_value(c, v, why);
        DC_TRY(sdup(c, v->s, v->n, &d->name));
        dc_path_pop(c);
    }
    /* resource.k8s.io/v1beta1: a name and `basic`, whose fields are v1's device fields */
    bool basic = false;
    if (c->v1beta1) {
        for (unsigned i = 0; i < D_N; i++)
            if (i != D_NAME && i != D_BASIC && f[i]) {
                dc_path_field(c, DF[i]);
                return fail(c, f[i]->kline,
                            "not a field of a resource.k8s.io/v1beta1 device: it goes under "
                            "`basic` (or write the object as resource.k8s.io/v1, without "
                            "`basic`)");
            }
        if (f[D_BASIC]) {
            const dc_tnode *b = &f[D_BASIC]->v;
            dc_path_field(c, "basic");
            DC_TRY(want(c, b, DC_TN_MAP));
            DC_TRY(fields(c, b, DF, D_N, f));
            const dc_tent *in = f[D_NAME] ? f[D_NAME] : f[D_BASIC];
            if (in) {
                dc_path_field(c, in == f[D_NAME] ? "name" : "basic");
                return fail(c, in->kline, "not a field of a resource.k8s.io/v1beta1 BasicDevice");
            }
            basic = true; /* the path keeps "basic" to the end */
        }
    } else if (f[D_BASIC]) {
        dc_path_field(c, "basic");
        return fail(c, f[D_BASIC]->kline,
                    "`basic` is the resource.k8s.io/v1beta1 device shape, and this object is "
                    "not v1beta1: in resource.k8s.io/v1 and v1beta2 attributes and capacity "
                    "are directly in the device");
    }
    uint32_t na = 0, nc = 0;
    if (f[D_ATTRS]) {
        dc_path_field(c, "attributes");
        DC_TRY(want(c, &f[D_ATTRS]->v, DC_TN_MAP));
        na = f[D_ATTRS]->v.n;
        dc_path_pop(c);
    }
    if (f[D_CAPS]) {
        dc_path_field(c, "capacity");
        DC_TRY(want(c, &f[D_CAPS]->v, DC_TN_MAP));
        nc = f[D_CAPS]->v.n;
        dc_path_pop(c);
    }
    if ((uint64_t)na + nc > MAX_ATTRS_CAPS) {
        const dc_tent *at = f[D_ATTRS] ? f[D_ATTRS] : f[D_CAPS];
        dc_path_field(c, f[D_ATTRS] ? "attributes" : "capacity");
        return fail(c, at->kline, "%llu attributes and capacities, more than %u",
                    (unsigned long long)na + nc, MAX_ATTRS_CAPS);
    }
    if (na) {
        const dc_tnode *am = &f[D_ATTRS]->v;
        dc_path_field(c, "attributes");
        DC_TRY(map_dups(c, am));
        d->attrs = szalloc(c, na, sizeof *d->attrs);
        if (!d->attrs)
            return oom(c);
        d->nattrs = na;
        uint64_t values = 0;
        for (uint32_t i = 0; i < na; i++) {
            DC_TRY(attribute(c, &am->kids[i], &d->attrs[i]));
            values += DC_ATTR_IS_LIST(d->attrs[i].kind) ? d->attrs[i].n : 1;
        }
        if (values > DC_ATTR_MAX_VALUES)
            return fail(c, f[D_ATTRS]->kline, "%llu attribute values, more than %u",
                        (unsigned long long)values, DC_ATTR_MAX_VALUES);
        dc_path_pop(c);
    }
    if (nc) {
        const dc_tnode *cm = &f[D_CAPS]->v;
        dc_path_field(c, "capacity");
        DC_TRY(map_dups(c, cm));
        d->caps = szalloc(c, nc, sizeof *d->caps);
        if (!d->caps)
            return oom(c);
        d->ncaps = nc;
        for (uint32_t i = 0; i < nc; i++)
            DC_TRY(capacity(c, &cm->kids[i], &d->caps[i]));
        dc_path_pop(c);
    }
    if (f[D_TAINTS]) {
        dc_path_field(c, "taints");
        DC_TRY(taints(c, f[D_TAINTS], d));
        dc_path_pop(c);
    }
    if (f[D_CONSUMES]) {
        dc_path_field(c, "consumesCounters");
        DC_TRY(counter_sets(c, f[D_CONSUMES], "counterSet", MAX_CONSUMES, &d->consumes,
                            &d->nconsumes));
        dc_path_pop(c);
    }
    bool node_fields = f[D_NODENAME] || f[D_NODESEL] || f[D_ALLNODES];
    if (mode == DEV_SLICE && node_fields) {
        const dc_tent *x = f[D_NODENAME]  ? f[D_NODENAME]
                           : f[D_NODESEL] ? f[D_NODESEL]
                                          : f[D_ALLNODES];
        return fail(c, x->kline,
                    "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    }
    if (mode == DEV_SLICE_PER_DEVICE || (mode == DEV_ALONE && node_fields))
        DC_TRY(node_scope(c, m, f[D_NODENAME], f[D_NODESEL], f[D_ALLNODES], NULL, false,
                          &d->node));
    if (f[D_MULTI]) {
        dc_path_field(c, "allowMultipleAllocations");
        DC_TRY(want(c, &f[D_MULTI]->v, DC_TN_BOOL));
        d->allow_multiple = f[D_MULTI]->v.b;
        dc_path_pop(c);
    }
    /* bindingConditions, bindingFailureConditions (validateDeviceBindingParameters: at most 4
     * label names each, no repeats, none in both) and bindsToNode */
    const dc_tent *bl[2] = {f[D_BINDC], f[D_BINDF]};
    const char **bv[2] = {NULL, NULL};
    uint32_t bn[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        if (!bl[k] || bl[k]->v.t == DC_TN_NULL)
            continue;
        const dc_tnode *l = &bl[k]->v;
        dc_path_field(c, DF[D_BINDC + k]);
        DC_TRY(want(c, l, DC_TN_SEQ));
        if (l->n > 4)
            return fail(c, bl[k]->kline, "must have at most 4 items");
        bv[k] = szalloc(c, l->n, sizeof *bv[k]);
        if (l->n && !bv[k])
            return oom(c);
        for (uint32_t i = 0; i < l->n; i++) {
            const dc_tnode *x = &l->kids[i].v;
            dc_path_index(c, i);
            DC_TRY(want(c, x, DC_TN_STR));
            const char *bad = label_key_err(x->s, x->n);
            if (bad)
                return bad_value(c, x, bad);
            for (int o = 0; o <= k; o++)
                for (uint32_t j = 0; j < (o == k ? i : bn[o]); j++)
                    if (strlen(bv[o][j]) == x->n && memcmp(bv[o][j], x->s, x->n) == 0)
                        return o == k ? fail(c, x->line, "duplicate value %s",
                                             qs(c, 0, x->s, x->n, true))
                                      : bad_value(c, x, "bindingFailureConditions must not "
                                                        "overlap with bindingConditions");
            DC_TRY(sdup(c, x->s, x->n, &bv[k][i]));
            dc_path_pop(c);
        }
        bn[k] = l->n;
        dc_path_pop(c);
    }
    if ((bn[0] == 0) != (bn[1] == 0)) {
        int k = bn[0] ? 1 : 0; /* the one missing */
        dc_path_field(c, DF[D_BINDC + k]);
        return fail(c, bl[1 - k]->kline, "%s are required to use %s", DF[D_BINDC + k],
                    DF[D_BINDC + 1 - k]);
    }
    d->binding = bv[0];
    d->nbinding = bn[0];
    d->binding_failure = bv[1];
    d->nbinding_failure = bn[1];
    if (f[D_BINDS]) {
        dc_path_field(c, "bindsToNode");
        DC_TRY(want(c, &f[D_BINDS]->v, DC_TN_BOOL));
        d->binds_to_node = f[D_BINDS]->v.b;
        dc_path_pop(c);
    }
    for (uint32_t i = 0; i < d->ncaps; i++)
        if (d->caps[i].policy && !d->allow_multiple) {
            dc_path_field(c, "capacity");
            dc_path_key(c, d->caps[i].name, (uint32_t)strlen(d->caps[i].name));
            dc_path_field(c, "requestPolicy");
            return fail(c, f[D_CAPS]->kline, "forbidden: allowMultipleAllocations must be true");
        }
    if (basic)
        dc_path_pop(c);
    return DRACEL_OK;
}

/* name is "DRIVER/bare" */
static bool qualifies(const char *name, const char *driver, const char *bare)
{
    size_t dn = strlen(driver);
    return strncmp(name, driver, dn) == 0 && name[dn] == '/' && strcmp(name + dn + 1, bare) == 0;
}

bool dc_device_attr_hidden(const dc_device_in *d, uint32_t k, const char *driver)
{
    const char *name = d->attrs[k].name;
    if (strchr(name, '/'))
        return false;
    for (uint32_t j = 0; j < d->nattrs; j++)
        if (qualifies(d->attrs[j].name, driver, name))
            return true;
    return false;
}

bool dc_device_cap_hidden(const dc_device_in *d, uint32_t k, const char *driver)
{
    const char *name = d->caps[k].name;
    if (strchr(name, '/'))
        return false;
    for (uint32_t j = 0; j < d->ncaps; j++)
        if (qualifies(d->caps[j].name, driver, name))
            return true;
    return false;
}

static bool nonempty_seq_field(const dc_tnode *m, const char *name)
{
    size_t n = strlen(name);
    if (m->t != DC_TN_MAP)
        return false;
    for (uint32_t i = 0; i < m->n; i++)
        if (m->kids[i].klen == n && memcmp(m->kids[i].k, name, n) == 0 &&
            m->kids[i].v.t == DC_TN_SEQ && m->kids[i].v.n > 0)
            return true;
    return false;
}

/* Whether a device (a tree node) has a list-typed attribute. */
static bool has_list_attribute(const dc_tnode *m)
{
    static const char *const LF[] = {"ints", "bools", "strings", "versions"};
    if (m->t != DC_TN_MAP)
        return false;
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_tnode *am = &m->kids[i].v;
        if (m->kids[i].klen != 10 || memcmp(m->kids[i].k, "attributes", 10) || am->t != DC_TN_MAP)
            continue;
        for (uint32_t k = 0; k < am->n; k++)
            for (int j = 0; j < 4; j++)
                if (nonempty_seq_field(&am->kids[k].v, LF[j]))
                    return true;
    }
    return false;
}

static dracel_status devices(dc_ld *c, const dc_tent *e, dc_slice_in *sl)
{
    const dc_tnode *v = &e->v;
    DC_TRY(want(c, v, DC_TN_SEQ));
    if (v->n > MAX_DEVICES)
        return fail(c, e->kline, "%u devices, more than %u", (unsigned)v->n, MAX_DEVICES);
    if (v->n > MAX_DEVICES_ADV) {
        for (uint32_t i = 0; i < v->n; i++)
            if (nonempty_seq_field(&v->kids[i].v, "taints") ||
                nonempty_seq_field(&v->kids[i].v, "consumesCounters") ||
                has_list_attribute(&v->kids[i].v))
                return fail(c, e->kline,
                            "%u devices, more than %u (the limit when a device has taints, "
                            "consumesCounters or list-typed attributes)",
                            (unsigned)v->n, MAX_DEVICES_ADV);
    }
    sl->devices = szalloc(c, v->n, sizeof *sl->devices);
    if (v->n && !sl->devices)
        return oom(c);
    sl->ndevices = v->n;
    for (uint32_t i = 0; i < v->n; i++) {
        dc_path_index(c, i);
        DC_TRY(device(c, &v->kids[i].v, sl->node.per_device ? DEV_SLICE_PER_DEVICE : DEV_SLICE,
                      &sl->devices[i]));
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(sl->devices[j].name, sl->devices[i].name) == 0) {
                dc_path_field(c, "name");
                return fail(c, sl->devices[i].line,
                            "duplicate device name %s (also spec.devices[%u])",
                            qs(c, 0, sl->devices[i].name, strlen(sl->devices[i].name), true),
                            (unsigned)j);
            }
        }
        dc_path_pop(c);
    }
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * ResourceSlice
 */

enum { S_DRIVER, S_POOL, S_NODENAME, S_NODESEL, S_ALLNODES, S_PERDEV, S_DEVICES, S_SHARED, S_N };

static dracel_status push_slice(dc_ld *c, const dc_slice_in *sl)
{
    dc_slice_set *s = c->s;
    if (s->n == s->cap) {
        if (s->cap > UINT32_MAX / 2)
            return oom(c);
        uint32_t nc = s->cap ? s->cap * 2 : 16;
        dc_slice_in *p = dc_arena_alloc(&s->arena, (size_t)nc * sizeof *p);
        if (!p)
            return oom(c);
        if (s->n)
            memcpy(p, s->slices, (size_t)s->n * sizeof *p);
        s->slices = p;
        s->cap = nc;
    }
    s->slices[s->n++] = *sl;
    return DRACEL_OK;
}
/* The start of a cluster-scoped object of `kind` (a ResourceSlice, a DeviceTaintRule): its
 * metadata: {name}, a DNS subdomain when given (else *name is left as it is), which names the
 * object in later messages (c->oname; the text as given when it is invalid); then its spec,
 * required, entered in the path. */
static dracel_status object_start(dc_ld *c, const char *kind, const dc_tnode *obj,
                                  const dc_tent *meta, const dc_tent *spec, const char **name)
{
    static const char *const MF[] = {"name"};
    c->okind = kind;
    c->oname = DC_LD_UNNAMED;
    c->np = 0;
    if (meta) {
        const dc_tent *f[1];
        dc_path_field(c, "metadata");
        DC_TRY(want(c, &meta->v, DC_TN_MAP));
        DC_TRY(fields(c, &meta->v, MF, 1, f));
        if (f[0]) {
            dc_path_field(c, "name");
            const dc_tnode *v = &f[0]->v;
            DC_TRY(want(c, v, DC_TN_STR));
            if (v->n) {
                const char *why = subdomain_err(v->s, v->n);
                if (why) {
                    c->oname = qs(c, 3, v->s, v->n, true); /* say which object, as given */
                    return bad_value(c, v, why);
                }
                DC_TRY(sdup(c, v->s, v->n, name));
                c->oname = *name;
            }
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    dc_path_field(c, "spec");
    if (!spec)
        return fail(c, obj->line, "required value");
    return DRACEL_OK;
}

static dracel_status slice(dc_ld *c, const dc_tnode *obj, const dc_tent *meta, const dc_tent *spec)
{
    static const char *const SF[S_N] = {"driver",   "pool",  "nodeName",
                                        "nodeSelector", "allNodes", "perDeviceNodeSelection",
                                        "devices",  "sharedCounters"};
    static const char *const PF[] = {"name", "generation", "resourceSliceCount"};
    dc_slice_in sl;
    memset(&sl, 0, sizeof sl);
    sl.file = c->file;
    sl.line = obj->line;
    sl.name = "";
    const dc_tnode *v;
    const char *why;
    DC_TRY(object_start(c, "ResourceSlice", obj, meta, spec, &sl.name));
    const dc_tnode *sp = &spec->v;
    const dc_tent *f[S_N];
    DC_TRY(want(c, sp, DC_TN_MAP));
    DC_TRY(fields(c, sp, SF, S_N, f));

    dc_path_field(c, "driver");
    DC_TRY(req_str(c, f[S_DRIVER], sp->line, &v));
    if ((why = driver_err(v->s, v->n)) != NULL)
        return bad_value(c, v, why);
    DC_TRY(sdup(c, v->s, v->n, &sl.driver));
    dc_path_pop(c);

    dc_path_field(c, "pool");
    if (!f[S_POOL])
        return fail(c, sp->line, "required value");
    const dc_tnode *pm = &f[S_POOL]->v;
    const dc_tent *pfl[3];
    DC_TRY(want(c, pm, DC_TN_MAP));
    DC_TRY(fields(c, pm, PF, 3, pfl));
    dc_path_field(c, "name");
    DC_TRY(req_str(c, pfl[0], pm->line, &v));
    if ((why = pool_err(v->s, v->n)) != NULL)
        return bad_value(c, v, why);
    DC_TRY(sdup(c, v->s, v->n, &sl.pool));
    dc_path_pop(c);
    if (pfl[1]) {
        dc_path_field(c, "generation");
        DC_TRY(want_int(c, &pfl[1]->v, &sl.generation));
        if (sl.generation < 0)
            return fail(c, pfl[1]->v.line, "invalid value %lld: must be greater than or equal to zero",
                        (long long)sl.generation);
        dc_path_pop(c);
    }
    dc_path_field(c, "resourceSliceCount");
    if (!pfl[2])
        return fail(c, pm->line, "required value");
    DC_TRY(want_int(c, &pfl[2]->v, &sl.slice_count));
    if (sl.slice_count <= 0)
        return fail(c, pfl[2]->v.line, "invalid value %lld: must be greater than zero",
                    (long long)sl.slice_count);
    dc_path_pop(c);
    dc_path_pop(c); /* pool */

    DC_TRY(node_scope(c, sp, f[S_NODENAME], f[S_NODESEL], f[S_ALLNODES], f[S_PERDEV], true,
                      &sl.node));
    /* devices and sharedCounters in one slice: 1.34's alpha shape, which the API server
     * refuses from 1.35 on; kept, and judged by the release an allocation reproduces (its
     * pool is invalid from 1.35) */
    if (f[S_DEVICES]) {
        dc_path_field(c, "devices");
        DC_TRY(devices(c, f[S_DEVICES], &sl));
        dc_path_pop(c);
    }
    if (f[S_SHARED]) {
        dc_path_field(c, "sharedCounters");
        DC_TRY(counter_sets(c, f[S_SHARED], "name", MAX_COUNTER_SETS, &sl.shared_counters,
                            &sl.nshared));
        dc_path_pop(c);
    }
    dc_path_pop(c); /* spec */
    c->oname = NULL;
    return push_slice(c, &sl);
}

/* A DeviceTaintRule: {metadata: {name}, spec: {deviceSelector: {driver, pool, device}, taint}}.
 * Since 1.35 a rule selects by driver, pool and device only; the CEL selectors and the class of
 * earlier alpha versions are refused rather than ignored (they would select other devices). */
dracel_status dc_ld_taint_rule(dc_ld *c, const dc_tnode *obj, const dc_tent *meta,
                               const dc_tent *spec)
{
    static const char *const SF[] = {"deviceSelector", "taint"};
    static const char *const DF[] = {"driver", "pool", "device", "deviceClassName", "selectors"};
    dc_taint_rule_in r;
    memset(&r, 0, sizeof r);
    r.file = c->file;
    r.line = obj->line;
    r.name = "";
    const dc_tnode *v;
    const char *why;
    DC_TRY(object_start(c, "DeviceTaintRule", obj, meta, spec, &r.name));
    const dc_tent *f[2];
    DC_TRY(want(c, &spec->v, DC_TN_MAP));
    DC_TRY(fields(c, &spec->v, SF, 2, f));
    if (f[0] && f[0]->v.t != DC_TN_NULL) {
        const dc_tent *d[5];
        dc_path_field(c, "deviceSelector");
        DC_TRY(want(c, &f[0]->v, DC_TN_MAP));
        DC_TRY(fields(c, &f[0]->v, DF, 5, d));
        for (int k = 3; k < 5; k++)
            if (d[k])
                return fail(c, d[k]->kline, "%s: not supported: since Kubernetes 1.35 a rule "
                            "selects devices by driver, pool and device only", DF[k]);
        const char **out[3] = {&r.driver, &r.pool, &r.device};
        for (int k = 0; k < 3; k++) {
            if (!d[k] || d[k]->v.t == DC_TN_NULL)
                continue;
            dc_path_field(c, DF[k]);
            v = &d[k]->v;
            DC_TRY(want(c, v, DC_TN_STR));
            why = k == 0 ? driver_err(v->s, v->n) : k == 1 ? pool_err(v->s, v->n)
                                                          : label_err(v->s, v->n);
            if (why)
                return bad_value(c, v, why);
            DC_TRY(sdup(c, v->s, v->n, out[k]));
            dc_path_pop(c);
        }
        dc_path_pop(c);
    }
    dc_path_field(c, "taint");
    if (!f[1])
        return fail(c, spec->v.line, "required value");
    DC_TRY(taint(c, &f[1]->v, &r.taint));
    dc_path_pop(c);
    dc_path_pop(c);
    c->oname = NULL;
    dc_slice_set *s = c->s;
    if (s->nrules == s->caprules) {
        uint32_t nc = s->caprules ? s->caprules * 2 : 8;
        dc_taint_rule_in *p = dc_arena_alloc(&s->arena, (size_t)nc * sizeof *p);
        if (!p)
            return oom(c);
        if (s->nrules)
            memcpy(p, s->rules, (size_t)s->nrules * sizeof *p);
        s->rules = p;
        s->caprules = nc;
    }
    s->rules[s->nrules++] = r;
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Objects: ResourceSlice, List, other kinds
 */

static bool str_is(const dc_tnode *v, const char *s)
{
    size_t n = strlen(s);
    return v->t == DC_TN_STR && v->n == n && memcmp(v->s, s, n) == 0;
}

static dracel_status add_note(dc_ld *c, uint32_t line, const char *what, const dc_tnode *kind,
                              const dc_tnode *name)
{
    dc_slice_set *s = c->s;
    if (s->nnotes == s->capnotes) {
        if (s->capnotes > UINT32_MAX / 2)
            return oom(c);
        uint32_t nc = s->capnotes ? s->capnotes * 2 : 16;
        const char **p = dc_arena_alloc(&s->arena, (size_t)nc * sizeof *p);
        if (!p)
            return oom(c);
        if (s->nnotes)
            memcpy(p, s->notes, (size_t)s->nnotes * sizeof *p);
        s->notes = p;
        s->capnotes = nc;
    }
    const char *k = kind ? qs(c, 0, kind->s, kind->n, false) : "";
    const char *nm = name ? qs(c, 1, name->s, name->n, false) : "";
    char *t = dc_arena_printf(&s->arena, "%s:%u: %s%s%s%s%s", c->file, (unsigned)line, what, k,
                              name ? " (" : "", nm, name ? ")" : "");
    if (!t)
        return oom(c);
    s->notes[s->nnotes++] = t;
    return DRACEL_OK;
}

static bool slice_shaped(const dc_tent *spec)
{
    if (!spec || spec->v.t != DC_TN_MAP)
        return false;
    bool drv = false, pool = false;
    for (uint32_t i = 0; i < spec->v.n; i++) {
        const dc_tent *e = &spec->v.kids[i];
        if (e->v.t == DC_TN_NULL)
            continue;
        if (e->klen == 6 && memcmp(e->k, "driver", 6) == 0)
            drv = true;
        else if (e->klen == 4 && memcmp(e->k, "pool", 4) == 0)
            pool = true;
    }
    return drv && pool;
}

/* resource.k8s.io's versions: v1 (Kubernetes 1.34 on), v1beta2 (1.33 on; the same shape),
 * v1beta1 (1.32 on; deprecated from 1.35 and served to 1.37 by its lifecycle: a request's
 * `exactly` fields on the request itself, a device's fields under `basic`). The beta versions
 * are served where the API server enables them (--runtime-config), and converted to v1. */
static dracel_status api_version(dc_ld *c, const dc_tnode *av)
{
    dc_path_field(c, "apiVersion");
    DC_TRY(want(c, av, DC_TN_STR));
    c->v1beta1 = str_is(av, "resource.k8s.io/v1beta1");
    if (str_is(av, "resource.k8s.io/v1alpha3"))
        return fail(c, av->line,
                    "%s is not served for this kind since Kubernetes 1.33 (1.31 and 1.32 served "
                    "it; only DeviceTaintRule stayed there): use resource.k8s.io/v1",
                    qs(c, 0, av->s, av->n, true));
    if (str_is(av, "resource.k8s.io/v1alpha2"))
        return fail(c, av->line,
                    "%s is the classic DRA API, not served since Kubernetes 1.31: use "
                    "resource.k8s.io/v1",
                    qs(c, 0, av->s, av->n, true));
    if (!str_is(av, "resource.k8s.io/v1") && !str_is(av, "resource.k8s.io/v1beta2") &&
        !c->v1beta1)
        return fail(c, av->line,
                    "%s is not supported (resource.k8s.io/v1, or v1beta2 and v1beta1, which the "
                    "API server converts to it)",
                    qs(c, 0, av->s, av->n, true));
    dc_path_pop(c);
    return DRACEL_OK;
}

void dc_ld_api_reset(dc_ld *c)
{
    c->v1beta1 = false;
}

static dracel_status rule_api_version(dc_ld *c, const dc_tnode *av)
{
    dc_path_field(c, "apiVersion");
    DC_TRY(want(c, av, DC_TN_STR));
    if (!str_is(av, "resource.k8s.io/v1") && !str_is(av, "resource.k8s.io/v1beta2") &&
        !str_is(av, "resource.k8s.io/v1alpha3"))
        return fail(c, av->line,
                    "%s is not supported for a DeviceTaintRule (resource.k8s.io/v1, v1beta2 or "
                    "v1alpha3)",
                    qs(c, 0, av->s, av->n, true));
    dc_path_pop(c);
    return DRACEL_OK;
}

static uint64_t count(const dc_ld *c)
{
    uint64_t n = (uint64_t)c->s->n + c->s->nnotes + c->s->nrules;
    if (c->o)
        n += (uint64_t)c->o->nclasses + c->o->nclaims + c->o->nnodes;
    return n;
}

static dracel_status room(dc_ld *c, uint32_t line)
{
    if (count(c) >= c->max_objects)
        return fail(c, line, "more than %u objects (the configured limit)", c->max_objects);
    return DRACEL_OK;
}

static unsigned kind_bit(const dc_tnode *kind)
{
    if (str_is(kind, "ResourceSlice"))
        return DC_OBJ_SLICE;
    if (str_is(kind, "DeviceClass"))
        return DC_OBJ_CLASS;
    if (str_is(kind, "ResourceClaim") || str_is(kind, "ResourceClaimTemplate"))
        return DC_OBJ_CLAIM;
    if (str_is(kind, "Node"))
        return DC_OBJ_NODE;
    if (str_is(kind, "DeviceTaintRule"))
        return DC_OBJ_RULE;
    return 0;
}

dracel_status dc_ld_dispatch(dc_ld *c, const dc_tnode *v, unsigned nest)
{
    static const char *const OF[] = {"apiVersion", "kind", "metadata", "spec", "items"};
    const dc_tent *f[5];
    c->oname = NULL;
    c->np = 0;
    if (v->t == DC_TN_NULL)
        return DRACEL_OK;
    if (v->t == DC_TN_SEQ) {
        if (nest >= MAX_LIST_NEST)
            return fail(c, v->line, "lists nested more than %u deep", MAX_LIST_NEST);
        for (uint32_t i = 0; i < v->n; i++)
            DC_TRY(dc_ld_dispatch(c, &v->kids[i].v, nest + 1));
        return DRACEL_OK;
    }
    if (v->t != DC_TN_MAP)
        return fail(c, v->line, "expected an object, found %s", tname(v));
    DC_TRY(fields(c, v, OF, 5, f));
    const dc_tnode *kind = NULL, *name = NULL;
    if (f[1]) {
        dc_path_field(c, "kind");
        DC_TRY(want(c, &f[1]->v, DC_TN_STR));
        dc_path_pop(c);
        kind = &f[1]->v;
    }
    if (f[2] && f[2]->v.t == DC_TN_MAP) {
        for (uint32_t i = 0; i < f[2]->v.n; i++) {
            const dc_tent *e = &f[2]->v.kids[i];
            if (e->klen == 4 && memcmp(e->k, "name", 4) == 0 && e->v.t == DC_TN_STR && e->v.n)
                name = &e->v;
        }
    }
    bool is_list = kind ? (kind->n >= 4 && memcmp(kind->s + kind->n - 4, "List", 4) == 0)
                        : f[4] != NULL;
    if (is_list) {
        if (!f[4])
            return DRACEL_OK;
        dc_path_field(c, "items");
        DC_TRY(want(c, &f[4]->v, DC_TN_SEQ));
        dc_path_pop(c);
        if (nest >= MAX_LIST_NEST)
            return fail(c, v->line, "lists nested more than %u deep", MAX_LIST_NEST);
        const dc_tnode *items = &f[4]->v;
        for (uint32_t i = 0; i < items->n; i++)
            DC_TRY(dc_ld_dispatch(c, &items->kids[i].v, nest + 1));
        return DRACEL_OK;
    }
    DC_TRY(room(c, v->line));
    /* The slice loader keeps ResourceSlices (and DeviceTaintRules, which go with the slices
     * they taint, when asked to); the objects loader the kinds it was asked for. An object
     * without kind is a ResourceSlice when its spec has the shape of one, else the kind asked
     * for when only one (but ResourceSlice) was. */
    unsigned wanted = c->o ? c->kinds
                           : (c->s->skip_slices ? 0 : DC_OBJ_SLICE) |
                                 (c->s->keep_rules ? DC_OBJ_RULE : 0),
             k;
    if (kind)
        k = kind_bit(kind);
    else if (slice_shaped(f[3]))
        k = DC_OBJ_SLICE;
    else
        k = wanted != DC_OBJ_SLICE && (wanted & (wanted - 1)) == 0 ? wanted : 0;
    if (k == DC_OBJ_RULE && (wanted & DC_OBJ_RULE)) {
        if (kind && f[0])
            DC_TRY(rule_api_version(c, &f[0]->v));
        return dc_ld_taint_rule(c, v, f[2], f[3]);
    }
    if (!(k & wanted)) {
        if (kind)
            return add_note(c, v->line, "skipped object of kind ", kind, name);
        return add_note(c, v->line, "skipped object without kind", NULL, name);
    }
    if (k != DC_OBJ_SLICE)
        return dc_ld_object(c, v, k, kind, f);
    c->v1beta1 = false;
    if (kind && f[0])
        DC_TRY(api_version(c, &f[0]->v));
    return slice(c, v, f[2], f[3]);
}

/* ---------------------------------------------------------------------------------------------
 * The objects of a text as they name themselves (dc_objects_keys): the walk of dc_ld_dispatch,
 * through Lists and sequences, without decoding an object. A value that is not an object names
 * nothing; a key given twice is taken at its last.
 */

typedef struct keys_walk {
    dc_object_key_fn fn;
    void *ctx;
    bool stopped;
} keys_walk;

static const dc_tnode *member(const dc_tnode *m, const char *key)
{
    const dc_tnode *v = NULL;
    size_t n = strlen(key);
    for (uint32_t i = 0; m && m->t == DC_TN_MAP && i < m->n; i++)
        if (m->kids[i].klen == n && memcmp(m->kids[i].k, key, n) == 0)
            v = &m->kids[i].v;
    return v;
}

static const char *member_str(const dc_tnode *m, const char *key)
{
    const dc_tnode *v = member(m, key);
    return v && v->t == DC_TN_STR && !memchr(v->s, '\0', v->n) ? v->s : NULL;
}

static dracel_status keys_of(dc_ld *c, const dc_tnode *v, unsigned nest)
{
    keys_walk *w = c->doc_ctx;
    if (w->stopped || nest > MAX_LIST_NEST)
        return DRACEL_OK;
    if (v->t == DC_TN_SEQ) {
        for (uint32_t i = 0; i < v->n && !w->stopped; i++)
            DC_TRY(keys_of(c, &v->kids[i].v, nest + 1));
        return DRACEL_OK;
    }
    if (v->t != DC_TN_MAP)
        return DRACEL_OK;
    const dc_tnode *kv = member(v, "kind");
    const char *kind = member_str(v, "kind");
    const dc_tnode *items = member(v, "items");
    size_t kn = kind ? strlen(kind) : 0;
    if (kind ? kn >= 4 && memcmp(kind + kn - 4, "List", 4) == 0 : items != NULL) {
        if (items && items->t == DC_TN_SEQ)
            DC_TRY(keys_of(c, items, nest + 1));
        return DRACEL_OK;
    }
    const dc_tnode *meta = member(v, "metadata");
    dracel_object_info k = {kind ? kind : "", member_str(meta, "name"),
                            member_str(meta, "namespace"), c->file, v->line,
                            kind ? kind_bit(kv) : 0};
    if (w->fn(w->ctx, &k) != 0)
        w->stopped = true;
    return DRACEL_OK;
}

static dracel_status keys_doc(dc_ld *c, const dc_tnode *root)
{
    return keys_of(c, root, 0);
}

dracel_status dc_objects_keys(const dracel_alloc *a, const char *name, const char *buf,
                              size_t len, dc_object_key_fn fn, void *ctx, char *err,
                              size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!fn || (!buf && len))
        return DRACEL_EINVAL;
    dc_slice_set set;
    dc_slice_set_init(&set, a);
    dc_ld c;
    dc_ld_init(&c, &set, NULL, err, errcap);
    keys_walk w = {fn, ctx, false};
    c.per_doc = keys_doc;
    c.doc_ctx = &w;
    dracel_status st = dc_ld_load_buffer(&c, name, buf ? buf : "", len);
    dc_ld_free(&c);
    dc_slice_set_free(&set);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * For src/objects.c (ldint.h)
 */

dracel_status dc_ld_room(dc_ld *c, uint32_t line)
{
    return room(c, line);
}

dracel_status dc_ld_fail(dc_ld *c, uint32_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dracel_status st = vfail(c, line, fmt, ap);
    va_end(ap);
    return st;
}

dracel_status dc_ld_oom(dc_ld *c)
{
    return oom(c);
}

const char *dc_ld_qs(dc_ld *c, int slot, const char *s, size_t n, bool quote)
{
    return qs(c, slot, s, n, quote);
}

const char *dc_ld_tname(const dc_tnode *v)
{
    return tname(v);
}

dracel_status dc_ld_bad_value(dc_ld *c, const dc_tnode *v, const char *why)
{
    return bad_value(c, v, why);
}

dracel_status dc_ld_want(dc_ld *c, const dc_tnode *v, int t)
{
    return want(c, v, t);
}

dracel_status dc_ld_want_int(dc_ld *c, const dc_tnode *v, int64_t *out)
{
    return want_int(c, v, out);
}

dracel_status dc_ld_fields(dc_ld *c, const dc_tnode *m, const char *const *names, unsigned nn,
                           const dc_tent **out)
{
    return fields(c, m, names, nn, out);
}

dracel_status dc_ld_req_str(dc_ld *c, const dc_tent *e, uint32_t mline, const dc_tnode **v)
{
    return req_str(c, e, mline, v);
}

dracel_status dc_ld_sdup(dc_ld *c, const char *s, size_t n, const char **out)
{
    return sdup(c, s, n, out);
}

void *dc_ld_szalloc(dc_ld *c, size_t n, size_t elem)
{
    return szalloc(c, n, elem);
}

bool dc_ld_str_is(const dc_tnode *v, const char *s)
{
    return str_is(v, s);
}

const char *dc_ld_label_err(const char *s, size_t n)
{
    return label_err(s, n);
}

const char *dc_ld_subdomain_err(const char *s, size_t n)
{
    return subdomain_err(s, n);
}

const char *dc_ld_driver_err(const char *s, size_t n)
{
    return driver_err(s, n);
}

const char *dc_ld_qualified_err(const char *s, size_t n)
{
    return qualified_err(s, n);
}

const char *dc_ld_label_key_err(const char *s, size_t n)
{
    return label_key_err(s, n);
}

const char *dc_ld_label_value_err(const char *s, size_t n)
{
    return label_value_err(s, n);
}

const char *dc_ld_pool_err(const char *s, size_t n)
{
    return pool_err(s, n);
}

dracel_status dc_ld_quantity(dc_ld *c, const dc_tnode *v, const char **out)
{
    return quantity(c, v, out);
}

dracel_status dc_ld_node_selector(dc_ld *c, const dc_tnode *m, bool one_term,
                                  const dc_node_selector_in **out)
{
    return node_selector(c, m, one_term, out);
}

dracel_status dc_ld_api_version(dc_ld *c, const dc_tnode *av)
{
    return api_version(c, av);
}

dracel_status dc_ld_slice(dc_ld *c, const dc_tnode *obj, const dc_tent *meta, const dc_tent *spec)
{
    return slice(c, obj, meta, spec);
}

dracel_status dc_ld_device_alone(dc_ld *c, const dc_tnode *m, dc_device_in *d)
{
    return device(c, m, DEV_ALONE, d);
}
