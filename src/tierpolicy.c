/*
 * tierpolicy.c: tier policies, the fair use of premium tiers (docs/fairness.md): the reader of
 * TierPolicy files, tenants, caps, idle reserves, the usage ledger and the cap check
 * (dracel_tierpolicy_*, dracel_tierusage_* of dracel.h).
 *
 * The file is read with the object loader of src/slices.c (ldint.h): its tree has a line and a
 * start offset (dc_tnode.off) for every value, from which each message takes its column:
 * "FILE:LINE:COL: field.path: what is wrong". Everything the policy keeps is copied into its
 * arena; the policy is immutable once loaded and any number of threads read it. A ledger
 * belongs to its caller (one writer).
 *
 * Invariants: keys are sorted by name (byte order) and distinct; tenants keep their file order
 * (the first tenant that matches a pod is its tenant) and the default tenant comes after them;
 * each tenant's caps are sorted by key. The content hash is FNV-1a 64 over a canonical text of
 * the decoded values (never the text as written), so that key order, quoting, whitespace and
 * defaults written out or left out do not change it.
 *
 * Change with: include/dracel.h (the API), docs/fairness.md (the format and the rules),
 * docs/api.md, man/dracel.3, tests/unit/test_tierpolicy.c, fuzz/fuzz_tierpolicy.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "apiint.h"
#include "ldint.h"

#define API_VERSION "dracel.dev/v1alpha1"
#define KIND "TierPolicy"
#define DEFAULT_TENANT_NAME "default"
#define MAX_VERSION_BYTES 128u
#define PCT_ONE 100000u /* 100% in thousandths of a percent */

enum { Q_NONE = 0, Q_COUNT = 1, Q_PERCENT = 2, Q_FAIR = 3 };

/* A count or a share, as a cap or a reserve is written. */
typedef struct qty {
    uint8_t kind;           /* Q_* */
    uint64_t v;             /* COUNT: devices; PERCENT: thousandths of a percent */
    const char *text;       /* as written ("8", "12.5%", "fair"), in the arena */
} qty;

typedef struct tcap {
    uint32_t key;
    qty q;
} tcap;

typedef struct tnt {
    const char *name;
    uint32_t weight;
    const char **ns;        /* sorted */
    uint32_t nns;
    const char *lkey, *lval;
    tcap *caps;             /* sorted by key */
    uint32_t ncaps;
    bool is_default;
    int mode;               /* dracel_tier_mode: its own, else (once built) the policy's */
} tnt;

typedef struct nsent {
    const char *ns;
    uint32_t tenant;
} nsent;

struct dracel_tierpolicy {
    dracel_alloc alloc;
    dc_arena arena;
    const char *file, *name, *version;
    char label[MAX_VERSION_BYTES + 24];
    char hash_hex[17];
    uint64_t hash;
    dracel_tier_mode mode;
    qty reserve;            /* the default idle reserve */
    const char **keys;      /* sorted, distinct */
    qty *key_reserve;       /* per key: its own (kind Q_NONE: the default) */
    uint64_t *fair_weights; /* per key: the weights of the tenants capped on it, summed */
    uint32_t nkeys;
    tnt *tenants;           /* ntenants + 1: the default tenant last */
    uint32_t ntenants;
    nsent *ns;              /* sorted by namespace */
    uint32_t nns;
    uint32_t *by_label;     /* the tenants that match by a pod label, in file order */
    uint32_t nby_label;
};

/* ---------------------------------------------------------------------------------------------
 * The reader
 */

/* A cap or reserve before the keys are numbered. */
typedef struct rcap {
    const char *key;
    qty q;
} rcap;

typedef struct rtenant {
    tnt t;
    rcap *caps;
    uint32_t ncaps;
} rtenant;

typedef struct rd {
    dracel_tierpolicy *p;
    const char *name;       /* the file's name */
    const char *text;       /* the file, for columns */
    size_t len;
    bool json;
    char *err;
    size_t errcap;
    char path[384];
    size_t plen;
    bool have_doc;
    rtenant *tenants;       /* in the policy's arena */
    uint32_t ntenants;
    rtenant dflt;
    bool have_dflt;
    rcap *tiers;            /* tiers.KEY.idleReserve */
    uint32_t ntiers;
} rd;

/* The byte offset in the text of a node's start (YAML: libyaml counts characters). */
static size_t node_byte(const rd *x, uint32_t off)
{
    size_t bom = x->len >= 3 && memcmp(x->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    if (x->json)
        return bom + off < x->len ? bom + off : x->len;
    size_t p = bom;
    for (uint32_t i = 0; i < off && p < x->len; i++) {
        p++;
        while (p < x->len && ((unsigned char)x->text[p] & 0xC0) == 0x80)
            p++;
    }
    return p;
}

static size_t line_start(const rd *x, uint32_t line)
{
    size_t p = 0;
    for (uint32_t l = 1; l < line && p < x->len; p++)
        if (x->text[p] == '\n')
            l++;
    return p;
}

/* The column (code points, from 1) of byte b of its line. */
static uint32_t col_of(const rd *x, size_t b)
{
    size_t s = b;
    while (s > 0 && x->text[s - 1] != '\n')
        s--;
    uint32_t col = 1;
    for (size_t i = s; i < b && i < x->len; i++)
        col += ((unsigned char)x->text[i] & 0xC0) != 0x80;
    return col;
}

static void vput(rd *x, size_t *pos, const char *fmt, va_list ap)
{
    if (*pos >= x->errcap)
        return;
    int n = vsnprintf(x->err + *pos, x->errcap - *pos, fmt, ap);
    if (n > 0)
        *pos = *pos + (size_t)n < x->errcap ? *pos + (size_t)n : x->errcap - 1;
}

static void put(rd *x, size_t *pos, const char *fmt, ...) DC_PRINTF(3, 4);
static void put(rd *x, size_t *pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(x, pos, fmt, ap);
    va_end(ap);
}

static dracel_status vfail(rd *x, uint32_t line, uint32_t col, const char *fmt, va_list ap)
{
    if (!x->err || !x->errcap)
        return DRACEL_EINPUT;
    size_t pos = 0;
    put(x, &pos, "%s", x->name);
    if (line)
        put(x, &pos, ":%u", (unsigned)line);
    if (line && col)
        put(x, &pos, ":%u", (unsigned)col);
    put(x, &pos, ": ");
    if (x->plen)
        put(x, &pos, "%.*s: ", (int)x->plen, x->path);
    vput(x, &pos, fmt, ap);
    return DRACEL_EINPUT;
}

/* A problem with value v (at its line and column). */
static dracel_status fail(rd *x, const dc_tnode *v, const char *fmt, ...) DC_PRINTF(3, 4);
static dracel_status fail(rd *x, const dc_tnode *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    uint32_t col = v ? col_of(x, node_byte(x, v->off)) : 0;
    dracel_status st = vfail(x, v ? v->line : 0, col, fmt, ap);
    va_end(ap);
    return st;
}

/* A problem at a line and column of the file. */
static dracel_status fail_at(rd *x, uint32_t line, uint32_t col, const char *fmt, ...)
    DC_PRINTF(4, 5);
static dracel_status fail_at(rd *x, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dracel_status st = vfail(x, line, col, fmt, ap);
    va_end(ap);
    return st;
}

/* A policy that ends inside a line: at its last line, past its last character. */
static dracel_status fail_end(rd *x, const char *buf, size_t len)
{
    uint32_t line = 1, col = 1;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    return fail_at(x, line, col, "the file does not end with a line break: written in part? "
                                 "(replace a policy with a rename, as a ConfigMap volume does)");
}

/* Where key e of a map is written: on its line, the first place the key's text stands as a
 * token (before the value when the value is on the same line); else the line's first
 * non-blank character. The loader keeps the key's line, not its column. */
static uint32_t key_col(const rd *x, const dc_tnode *m, const dc_tent *e)
{
    /* keys given twice on one line: the how-manieth this one is */
    uint32_t skip = 0;
    for (uint32_t j = 0; m && j < m->n && &m->kids[j] != e; j++)
        skip += m->kids[j].kline == e->kline && m->kids[j].klen == e->klen &&
                memcmp(m->kids[j].k, e->k, e->klen) == 0;
    size_t s = line_start(x, e->kline), end = s;
    while (end < x->len && x->text[end] != '\n')
        end++;
    if (e->v.line == e->kline) {
        size_t vb = node_byte(x, e->v.off);
        if (vb >= s && vb < end)
            end = vb;
    }
    for (size_t i = s; e->klen && i + e->klen <= end; i++) {
        if (memcmp(x->text + i, e->k, e->klen) != 0)
            continue;
        char before = i > s ? x->text[i - 1] : ' ';
        char after = i + e->klen < x->len ? x->text[i + e->klen] : ':';
        if (strchr(" \t{,\"'-", before) && strchr(":\"' \t", after) && skip-- == 0)
            return col_of(x, i);
    }
    size_t i = s;
    while (i < end && (x->text[i] == ' ' || x->text[i] == '\t' || x->text[i] == '-'))
        i++;
    return col_of(x, i);
}

/* A problem with the key of entry e of map m (an unknown field, a key given twice). */
static dracel_status fail_key(rd *x, const dc_tnode *m, const dc_tent *e, const char *fmt, ...)
    DC_PRINTF(4, 5);
static dracel_status fail_key(rd *x, const dc_tnode *m, const dc_tent *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dracel_status st = vfail(x, e->kline, key_col(x, m, e), fmt, ap);
    va_end(ap);
    return st;
}

static dracel_status oom(rd *x)
{
    if (x->err && x->errcap)
        snprintf(x->err, x->errcap, "%s: out of memory", x->name);
    return DRACEL_ENOMEM;
}

/* The field path of messages: push returns the length to pop back to. */
static size_t push(rd *x, const char *fmt, ...) DC_PRINTF(2, 3);
static size_t push(rd *x, const char *fmt, ...)
{
    size_t old = x->plen;
    va_list ap;
    va_start(ap, fmt);
    if (x->plen < sizeof x->path) {
        int n = vsnprintf(x->path + x->plen, sizeof x->path - x->plen, fmt, ap);
        if (n > 0)
            x->plen = x->plen + (size_t)n < sizeof x->path ? x->plen + (size_t)n
                                                           : sizeof x->path - 1;
    }
    va_end(ap);
    return old;
}

static void pop(rd *x, size_t old)
{
    x->plen = old;
}

/* Push a map key as a path segment: name for a plain field, [ "key" ] for a map's key. */
static size_t push_key(rd *x, const dc_tent *e)
{
    char q[96];
    size_t n = 0;
    for (uint32_t i = 0; i < e->klen && n + 6 < sizeof q; i++) {
        unsigned char ch = (unsigned char)e->k[i];
        if (ch == '"' || ch == '\\')
            q[n++] = '\\', q[n++] = (char)ch;
        else if (ch < 0x20 || ch == 0x7f)
            n += (size_t)snprintf(q + n, sizeof q - n, "\\x%02x", ch);
        else
            q[n++] = (char)ch;
    }
    q[n] = '\0';
    return push(x, "[\"%s\"%s]", q, n + 6 >= sizeof q ? "..." : "");
}

static const char *tname(const dc_tnode *v)
{
    return dc_ld_tname(v);
}

/* s[0..n) quoted for a message (escaped, cut after 60 bytes). */
static const char *quoted(char *buf, size_t cap, const char *s, size_t n)
{
    size_t k = 0;
    buf[k++] = '"';
    for (size_t i = 0; i < n && k + 8 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (i == 60) {
            k += (size_t)snprintf(buf + k, cap - k, "...");
            break;
        }
        if (ch == '"' || ch == '\\')
            buf[k++] = '\\', buf[k++] = (char)ch;
        else if (ch < 0x20 || ch == 0x7f)
            k += (size_t)snprintf(buf + k, cap - k, "\\x%02x", ch);
        else
            buf[k++] = (char)ch;
    }
    if (k + 2 > cap)
        k = cap - 2;
    buf[k++] = '"';
    buf[k] = '\0';
    return buf;
}

/* The fields of map m: out[i] is the entry of names[i] (NULL when absent or null). Unknown
 * fields and fields given twice are errors, at the key. */
static dracel_status fields(rd *x, const dc_tnode *m, const char *const *names, unsigned nn,
                            const dc_tent **out)
{
    for (unsigned i = 0; i < nn; i++)
        out[i] = NULL;
    for (uint32_t k = 0; k < m->n; k++) {
        const dc_tent *e = &m->kids[k];
        char q[96];
        unsigned i = 0;
        while (i < nn && !(strlen(names[i]) == e->klen && memcmp(names[i], e->k, e->klen) == 0))
            i++;
        if (i == nn)
            return fail_key(x, m, e, "unknown field %s", quoted(q, sizeof q, e->k, e->klen));
        for (uint32_t j = 0; j < k; j++)
            if (m->kids[j].klen == e->klen && memcmp(m->kids[j].k, e->k, e->klen) == 0)
                return fail_key(x, m, e, "field %s given twice (first at line %u)",
                                quoted(q, sizeof q, e->k, e->klen), (unsigned)m->kids[j].kline);
        if (e->v.t != DC_TN_NULL)
            out[i] = e;
    }
    return DRACEL_OK;
}

/* The value of field name of map m (which has it). */
static const dc_tnode *field_value(const dc_tnode *m, const char *name)
{
    for (uint32_t e = 0; e < m->n; e++)
        if (m->kids[e].klen == strlen(name) && memcmp(m->kids[e].k, name, m->kids[e].klen) == 0)
            return &m->kids[e].v;
    return NULL;
}

static dracel_status want_map(rd *x, const dc_tnode *v)
{
    return v->t == DC_TN_MAP ? DRACEL_OK : fail(x, v, "must be an object, not %s", tname(v));
}

static dracel_status sdup(rd *x, const char *s, size_t n, const char **out)
{
    char *c = dc_arena_strndup(&x->p->arena, s, n);
    if (!c)
        return oom(x);
    *out = c;
    return DRACEL_OK;
}

/* A name checked by one of the loader's rules. */
static dracel_status name_value(rd *x, const dc_tnode *v, const char *(*rule)(const char *, size_t),
                                const char **out)
{
    if (v->t != DC_TN_STR)
        return fail(x, v, "must be a string, not %s", tname(v));
    const char *why = rule(v->s, v->n);
    if (why) {
        char q[96];
        return fail(x, v, "%s %s", quoted(q, sizeof q, v->s, v->n), why);
    }
    return sdup(x, v->s, v->n, out);
}

/* A tier key: "req", "req/sub" (DNS labels) or a DeviceClass name (a DNS subdomain). */
static const char *key_err(const char *s, size_t n)
{
    const char *slash = memchr(s, '/', n);
    if (!slash)
        return dc_ld_subdomain_err(s, n)
                   ? "must be a request name, REQUEST/SUBREQUEST or a DeviceClass name"
                   : NULL;
    size_t a = (size_t)(slash - s);
    if (memchr(slash + 1, '/', n - a - 1) || dc_ld_label_err(s, a) ||
        dc_ld_label_err(slash + 1, n - a - 1))
        return "must be REQUEST/SUBREQUEST (two DNS labels), a request name or a DeviceClass "
               "name";
    return NULL;
}

/* "12.5%": thousandths of a percent, or -1. */
static int64_t parse_percent(const char *s, size_t n)
{
    if (n < 2 || s[n - 1] != '%')
        return -1;
    n--;
    uint64_t v = 0;
    size_t i = 0, digits = 0, frac = 0;
    bool dot = false;
    for (; i < n; i++) {
        if (s[i] == '.' && !dot && digits) {
            dot = true;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (dot && ++frac > 3)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (++digits > 9)
            return -1;
    }
    if (!digits || (dot && !frac))
        return -1;
    for (; frac < 3; frac++)
        v *= 10;
    return (int64_t)v;
}

/* A count (an integer) or a percent ("12.5%"); `fair` too when fair_ok. */
static dracel_status qty_value(rd *x, const dc_tnode *v, bool fair_ok, qty *out)
{
    memset(out, 0, sizeof *out);
    if (v->t == DC_TN_INT) {
        if (!v->iok || v->i < 0 || v->i > (int64_t)DRACEL_TIERPOLICY_MAX_COUNT)
            return fail(x, v, "a count of devices must be from 0 to %u",
                        (unsigned)DRACEL_TIERPOLICY_MAX_COUNT);
        out->kind = Q_COUNT;
        out->v = (uint64_t)v->i;
        char buf[24];
        snprintf(buf, sizeof buf, "%lld", (long long)v->i);
        return sdup(x, buf, strlen(buf), &out->text);
    }
    const char *what = fair_ok ? "a count of devices, a percent of the tier's devices (\"50%\") "
                                 "or fair"
                               : "a count of devices or a percent of the tier's devices (\"10%\")";
    if (v->t != DC_TN_STR)
        return fail(x, v, "must be %s, not %s", what, tname(v));
    if (fair_ok && v->n == 4 && memcmp(v->s, "fair", 4) == 0) {
        out->kind = Q_FAIR;
        return sdup(x, "fair", 4, &out->text);
    }
    int64_t pct = parse_percent(v->s, v->n);
    char q[96];
    if (pct < 0)
        return fail(x, v, "must be %s, not %s", what, quoted(q, sizeof q, v->s, v->n));
    if (pct > (int64_t)PCT_ONE)
        return fail(x, v, "%s is more than 100%%", quoted(q, sizeof q, v->s, v->n));
    out->kind = Q_PERCENT;
    out->v = (uint64_t)pct;
    return sdup(x, v->s, v->n, &out->text);
}

static dracel_status tier_key(rd *x, const dc_tnode *m, const dc_tent *e, const char **out)
{
    const char *why = key_err(e->k, e->klen);
    if (why) {
        char q[96];
        return fail_key(x, m, e, "%s %s", quoted(q, sizeof q, e->k, e->klen), why);
    }
    return sdup(x, e->k, e->klen, out);
}

/* A map keyed by tiers (caps, tiers): at most DRACEL_TIERPOLICY_MAX_KEYS entries (`what`
 * names them in the message); *out an array of one zeroed element of `size` bytes an entry. */
static dracel_status key_map(rd *x, const dc_tnode *m, const char *what, size_t size, void **out)
{
    DC_TRY(want_map(x, m));
    if (m->n > DRACEL_TIERPOLICY_MAX_KEYS)
        return fail(x, m, "more than %u %s", (unsigned)DRACEL_TIERPOLICY_MAX_KEYS, what);
    if (!(*out = dc_arena_zalloc(&x->p->arena, (m->n ? m->n : 1) * size)))
        return oom(x);
    return DRACEL_OK;
}

/* The key of entry k of such a map (`what`: one entry's name), refused when given before. */
static dracel_status map_key(rd *x, const dc_tnode *m, uint32_t k, const char *what,
                             const char **key)
{
    const dc_tent *e = &m->kids[k];
    char q[96];
    for (uint32_t j = 0; j < k; j++)
        if (m->kids[j].klen == e->klen && memcmp(m->kids[j].k, e->k, e->klen) == 0)
            return fail_key(x, m, e, "%s %s given twice (first at line %u)", what,
                            quoted(q, sizeof q, e->k, e->klen), (unsigned)m->kids[j].kline);
    return tier_key(x, m, e, key);
}

/* caps: {KEY: count | percent | fair} */
static dracel_status caps(rd *x, const dc_tnode *m, rtenant *t)
{
    void *arr;
    DC_TRY(key_map(x, m, "caps", sizeof *t->caps, &arr));
    t->caps = arr;
    for (uint32_t k = 0; k < m->n; k++) {
        const dc_tent *e = &m->kids[k];
        DC_TRY(map_key(x, m, k, "cap", &t->caps[k].key));
        size_t old = push_key(x, e);
        if (e->v.t == DC_TN_NULL)
            return fail(x, &e->v, "must be %s",
                        "a count of devices, a percent of the tier's devices (\"50%\") or fair");
        DC_TRY(qty_value(x, &e->v, true, &t->caps[k].q));
        pop(x, old);
    }
    t->ncaps = m->n;
    return DRACEL_OK;
}

static dracel_status weight(rd *x, const dc_tnode *v, uint32_t *out)
{
    if (v->t != DC_TN_INT || !v->iok || v->i < 1 || v->i > (int64_t)DRACEL_TIERPOLICY_MAX_WEIGHT)
        return fail(x, v, "must be an integer from 1 to %u", (unsigned)DRACEL_TIERPOLICY_MAX_WEIGHT);
    *out = (uint32_t)v->i;
    return DRACEL_OK;
}

static dracel_status mode_value(rd *x, const dc_tnode *v, int *out);

typedef struct nsat {
    const char *ns;
    uint32_t tenant, k;
} nsat;

static int cmp_nsat(const void *a, const void *b)
{
    const nsat *x = a, *y = b;
    int c = strcmp(x->ns, y->ns);
    if (c)
        return c;
    if (x->tenant != y->tenant)
        return x->tenant < y->tenant ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* A namespace belongs to one tenant, once: of all the namespaces of tenants (the list `list`),
 * sorted, the first one of the file that repeats an earlier one is the error. */
static dracel_status ns_unique(rd *x, const dc_tnode *list)
{
    size_t n = 0;
    for (uint32_t i = 0; i < x->ntenants; i++)
        n += x->tenants[i].t.nns;
    if (n < 2)
        return DRACEL_OK;
    nsat *v = dc_malloc(&x->p->alloc, n * sizeof *v);
    if (!v)
        return oom(x);
    size_t k = 0;
    for (uint32_t i = 0; i < x->ntenants; i++)
        for (uint32_t j = 0; j < x->tenants[i].t.nns; j++)
            v[k++] = (nsat){x->tenants[i].t.ns[j], i, j};
    dc_sort(v, n, sizeof *v, cmp_nsat);
    size_t bad = SIZE_MAX, owner = 0, first = 0;
    for (size_t a = 1; a < n; a++) {
        if (strcmp(v[a - 1].ns, v[a].ns) != 0) {
            first = a; /* a group of equal namespaces starts: its first is the earliest */
            continue;
        }
        if (bad == SIZE_MAX || v[a].tenant < v[bad].tenant ||
            (v[a].tenant == v[bad].tenant && v[a].k < v[bad].k)) {
            bad = a;
            owner = first;
        }
    }
    dracel_status st = DRACEL_OK;
    if (bad != SIZE_MAX) {
        const nsat *b = &v[bad], *o = &v[owner];
        push(x, "[%u].namespaces[%u]", (unsigned)b->tenant, (unsigned)b->k);
        const dc_tnode *nv = field_value(&list->kids[b->tenant].v, "namespaces");
        if (o->tenant == b->tenant)
            st = fail(x, &nv->kids[b->k].v, "namespace %s given twice", b->ns);
        else
            st = fail(x, &nv->kids[b->k].v, "namespace %s is tenant %s's already", b->ns,
                      x->tenants[o->tenant].t.name);
    }
    dc_free(&x->p->alloc, v, n * sizeof *v);
    return st;
}

/* One entry of tenants[], or defaultTenant (dflt). */
static dracel_status tenant_of_tree(rd *x, const dc_tnode *m, rtenant *t, bool dflt)
{
    static const char *const F[] = {"name", "namespaces", "podLabel", "weight", "caps", "mode"};
    const dc_tent *f[6];
    DC_TRY(want_map(x, m));
    DC_TRY(fields(x, m, F, 6, f));
    memset(t, 0, sizeof *t);
    t->t.weight = 1;
    t->t.mode = -1;
    t->t.is_default = dflt;
    t->t.name = DEFAULT_TENANT_NAME;
    size_t old;
    if (f[0]) {
        old = push(x, ".name");
        DC_TRY(name_value(x, &f[0]->v, dc_ld_label_err, &t->t.name));
        pop(x, old);
    } else if (!dflt) {
        return fail(x, m, "name: required value");
    }
    if (dflt && (f[1] || f[2]))
        return fail_key(x, m, f[1] ? f[1] : f[2],
                        "the default tenant is every pod no tenant matches: no %s",
                        f[1] ? "namespaces" : "podLabel");
    if (!dflt && !f[1] && !f[2])
        return fail(x, m, "a tenant needs namespaces or podLabel");
    if (f[1] && f[2])
        return fail_key(x, m, f[2], "namespaces and podLabel: give one, not both");
    if (f[1]) {
        const dc_tnode *v = &f[1]->v;
        old = push(x, ".namespaces");
        if (v->t != DC_TN_SEQ)
            return fail(x, v, "must be a list of namespaces, not %s", tname(v));
        if (v->n == 0)
            return fail(x, v, "must name at least one namespace");
        if (v->n > DRACEL_TIERPOLICY_MAX_NAMESPACES)
            return fail(x, v, "more than %u namespaces", (unsigned)DRACEL_TIERPOLICY_MAX_NAMESPACES);
        t->t.ns = dc_arena_zalloc(&x->p->arena, v->n * sizeof *t->t.ns);
        if (!t->t.ns)
            return oom(x);
        for (uint32_t i = 0; i < v->n; i++) {
            size_t o2 = push(x, "[%u]", (unsigned)i);
            DC_TRY(name_value(x, &v->kids[i].v, dc_ld_label_err, &t->t.ns[i]));
            pop(x, o2);
        }
        t->t.nns = v->n;
        pop(x, old);
    }
    if (f[2]) {
        static const char *const L[] = {"key", "value"};
        const dc_tent *l[2];
        const dc_tnode *v = &f[2]->v;
        old = push(x, ".podLabel");
        DC_TRY(want_map(x, v));
        DC_TRY(fields(x, v, L, 2, l));
        if (!l[0])
            return fail(x, v, "key: required value");
        if (!l[1])
            return fail(x, v, "value: required value");
        size_t o2 = push(x, ".key");
        DC_TRY(name_value(x, &l[0]->v, dc_ld_label_key_err, &t->t.lkey));
        pop(x, o2);
        o2 = push(x, ".value");
        DC_TRY(name_value(x, &l[1]->v, dc_ld_label_value_err, &t->t.lval));
        pop(x, o2);
        pop(x, old);
    }
    if (f[3]) {
        old = push(x, ".weight");
        DC_TRY(weight(x, &f[3]->v, &t->t.weight));
        pop(x, old);
    }
    if (f[4]) {
        old = push(x, ".caps");
        DC_TRY(caps(x, &f[4]->v, t));
        pop(x, old);
    }
    if (f[5]) {
        old = push(x, ".mode");
        DC_TRY(mode_value(x, &f[5]->v, &t->t.mode));
        pop(x, old);
    }
    return DRACEL_OK;
}

static dracel_status tiers(rd *x, const dc_tnode *m)
{
    void *arr;
    DC_TRY(key_map(x, m, "tiers", sizeof *x->tiers, &arr));
    x->tiers = arr;
    for (uint32_t k = 0; k < m->n; k++) {
        const dc_tent *e = &m->kids[k];
        DC_TRY(map_key(x, m, k, "tier", &x->tiers[k].key));
        size_t old = push_key(x, e);
        static const char *const F[] = {"idleReserve"};
        const dc_tent *f[1];
        if (e->v.t == DC_TN_NULL)
            return fail(x, &e->v, "must be an object ({idleReserve: ...})");
        DC_TRY(want_map(x, &e->v));
        DC_TRY(fields(x, &e->v, F, 1, f));
        if (f[0]) {
            size_t o2 = push(x, ".idleReserve");
            DC_TRY(qty_value(x, &f[0]->v, false, &x->tiers[k].q));
            pop(x, o2);
        }
        pop(x, old);
    }
    x->ntiers = m->n;
    return DRACEL_OK;
}

static dracel_status metadata(rd *x, const dc_tnode *m)
{
    static const char *const F[] = {"name", "labels", "annotations"};
    const dc_tent *f[3];
    DC_TRY(want_map(x, m));
    DC_TRY(fields(x, m, F, 3, f));
    if (f[0]) {
        size_t old = push(x, ".name");
        DC_TRY(name_value(x, &f[0]->v, dc_ld_subdomain_err, &x->p->name));
        pop(x, old);
    }
    for (int i = 1; i < 3; i++) {
        if (!f[i])
            continue;
        size_t old = push(x, ".%s", F[i]);
        DC_TRY(want_map(x, &f[i]->v));
        for (uint32_t k = 0; k < f[i]->v.n; k++)
            if (f[i]->v.kids[k].v.t != DC_TN_STR) {
                push_key(x, &f[i]->v.kids[k]);
                return fail(x, &f[i]->v.kids[k].v, "must be a string, not %s",
                            tname(&f[i]->v.kids[k].v));
            }
        pop(x, old);
    }
    return DRACEL_OK;
}

static dracel_status version_value(rd *x, const dc_tnode *v)
{
    /* A number written without quotes (version: 3, version: 2026.12) is its text. */
    if (v->t != DC_TN_STR && v->t != DC_TN_INT && v->t != DC_TN_FLOAT)
        return fail(x, v, "must be a string, not %s", tname(v));
    if (v->n == 0)
        return fail(x, v, "must not be empty");
    if (v->n > MAX_VERSION_BYTES)
        return fail(x, v, "longer than %u bytes", (unsigned)MAX_VERSION_BYTES);
    for (uint32_t i = 0; i < v->n; i++) {
        unsigned char ch = (unsigned char)v->s[i];
        if (ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\')
            return fail(x, v, "must be printable ASCII without quotes or backslashes");
    }
    return sdup(x, v->s, v->n, &x->p->version);
}

static dracel_status mode_value(rd *x, const dc_tnode *v, int *out)
{
    /* YAML 1.1 reads a plain `off` as false, as Kubernetes' YAML decoder does: take it back. */
    if (v->t == DC_TN_BOOL && v->plain && !v->b && v->n == 3 &&
        (memcmp(v->s, "off", 3) == 0 || memcmp(v->s, "Off", 3) == 0 ||
         memcmp(v->s, "OFF", 3) == 0)) {
        *out = DRACEL_TIER_OFF;
        return DRACEL_OK;
    }
    if (v->t == DC_TN_STR) {
        static const char *const M[] = {"enforce", "shadow", "off"};
        for (int i = 0; i < 3; i++)
            if (strlen(M[i]) == v->n && memcmp(M[i], v->s, v->n) == 0) {
                *out = i;
                return DRACEL_OK;
            }
    }
    char q[96];
    return fail(x, v, "must be enforce, shadow or off, not %s",
                v->t == DC_TN_STR || v->t == DC_TN_BOOL ? quoted(q, sizeof q, v->s, v->n)
                                                        : tname(v));
}

static dracel_status document(dc_ld *c, const dc_tnode *root)
{
    rd *x = c->doc_ctx;
    if (root->t == DC_TN_NULL && !x->have_doc)
        return DRACEL_OK; /* an empty document (a stream's leading "---") */
    if (x->have_doc)
        return fail(x, root, "one TierPolicy object a file (a second document starts here)");
    x->have_doc = true;
    static const char *const F[] = {"apiVersion", "kind",        "metadata", "version",
                                    "mode",       "idleReserve", "tiers",    "tenants",
                                    "defaultTenant"};
    enum { F_API, F_KIND, F_META, F_VERSION, F_MODE, F_RESERVE, F_TIERS, F_TENANTS, F_DEFAULT };
    const dc_tent *f[9];
    if (root->t != DC_TN_MAP)
        return fail(x, root, "a TierPolicy is an object, not %s", tname(root));
    DC_TRY(fields(x, root, F, 9, f));
    char q[96];
    if (!f[F_API])
        return fail(x, root, "apiVersion: required value (%s)", API_VERSION);
    if (!dc_ld_str_is(&f[F_API]->v, API_VERSION)) {
        const dc_tnode *v = &f[F_API]->v;
        push(x, "apiVersion");
        return fail(x, v, "must be %s, not %s", API_VERSION,
                    v->t == DC_TN_STR ? quoted(q, sizeof q, v->s, v->n) : tname(v));
    }
    if (!f[F_KIND])
        return fail(x, root, "kind: required value (%s)", KIND);
    if (!dc_ld_str_is(&f[F_KIND]->v, KIND)) {
        const dc_tnode *v = &f[F_KIND]->v;
        push(x, "kind");
        return fail(x, v, "must be %s, not %s", KIND,
                    v->t == DC_TN_STR ? quoted(q, sizeof q, v->s, v->n) : tname(v));
    }
    size_t old;
    if (f[F_META]) {
        old = push(x, "metadata");
        DC_TRY(metadata(x, &f[F_META]->v));
        pop(x, old);
    }
    if (!f[F_VERSION])
        return fail(x, root, "version: required value (what operators call this policy, e.g. "
                             "\"2026-12-01.1\")");
    old = push(x, "version");
    DC_TRY(version_value(x, &f[F_VERSION]->v));
    pop(x, old);
    if (f[F_MODE]) {
        int mode = 0;
        old = push(x, "mode");
        DC_TRY(mode_value(x, &f[F_MODE]->v, &mode));
        x->p->mode = (dracel_tier_mode)mode;
        pop(x, old);
    }
    if (f[F_RESERVE]) {
        old = push(x, "idleReserve");
        DC_TRY(qty_value(x, &f[F_RESERVE]->v, false, &x->p->reserve));
        pop(x, old);
    }
    if (f[F_TIERS]) {
        old = push(x, "tiers");
        DC_TRY(tiers(x, &f[F_TIERS]->v));
        pop(x, old);
    }
    if (f[F_TENANTS]) {
        const dc_tnode *v = &f[F_TENANTS]->v;
        old = push(x, "tenants");
        if (v->t != DC_TN_SEQ)
            return fail(x, v, "must be a list of tenants, not %s", tname(v));
        if (v->n > DRACEL_TIERPOLICY_MAX_TENANTS)
            return fail(x, v, "more than %u tenants", (unsigned)DRACEL_TIERPOLICY_MAX_TENANTS);
        x->tenants = dc_arena_zalloc(&x->p->arena, (v->n ? v->n : 1) * sizeof *x->tenants);
        if (!x->tenants)
            return oom(x);
        for (uint32_t i = 0; i < v->n; i++) {
            size_t o2 = push(x, "[%u]", (unsigned)i);
            DC_TRY(tenant_of_tree(x, &v->kids[i].v, &x->tenants[i], false));
            for (uint32_t j = 0; j < i; j++)
                if (strcmp(x->tenants[j].t.name, x->tenants[i].t.name) == 0)
                    return fail(x, &v->kids[i].v, "tenant %s given twice (tenants[%u])",
                                x->tenants[i].t.name, (unsigned)j);
            pop(x, o2);
        }
        x->ntenants = v->n;
        DC_TRY(ns_unique(x, v));
        pop(x, old);
    }
    if (f[F_DEFAULT]) {
        old = push(x, "defaultTenant");
        DC_TRY(tenant_of_tree(x, &f[F_DEFAULT]->v, &x->dflt, true));
        x->have_dflt = true;
        for (uint32_t j = 0; j < x->ntenants; j++)
            if (strcmp(x->tenants[j].t.name, x->dflt.t.name) == 0)
                return fail(x, &f[F_DEFAULT]->v,
                            "the default tenant's name %s is tenants[%u]'s: give it another "
                            "(defaultTenant.name)",
                            x->dflt.t.name, (unsigned)j);
        pop(x, old);
    } else {
        memset(&x->dflt, 0, sizeof x->dflt);
        x->dflt.t.name = DEFAULT_TENANT_NAME;
        x->dflt.t.weight = 1;
        x->dflt.t.is_default = true;
        x->dflt.t.mode = -1;
        for (uint32_t j = 0; j < x->ntenants; j++)
            if (strcmp(x->tenants[j].t.name, DEFAULT_TENANT_NAME) == 0)
                return fail(x, NULL,
                            "tenants[%u] is named %s, the default tenant's name: name the "
                            "default tenant otherwise (defaultTenant: {name: ...})",
                            (unsigned)j, DEFAULT_TENANT_NAME);
    }
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Building the policy from what was read
 */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_ns(const void *a, const void *b)
{
    return strcmp(((const nsent *)a)->ns, ((const nsent *)b)->ns);
}

static int cmp_cap(const void *a, const void *b)
{
    uint32_t x = ((const tcap *)a)->key, y = ((const tcap *)b)->key;
    return x < y ? -1 : x > y;
}

static uint32_t key_index(const dracel_tierpolicy *p, const char *key)
{
    uint32_t lo = 0, hi = p->nkeys;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(p->keys[mid], key);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

/* FNV-1a 64. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *s = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

static void canon_qty(dc_buf *b, const qty *q)
{
    static const char *const K[] = {"none", "count", "percent", "fair"};
    /* 0% is 0 devices; no policy-wide reserve is a reserve of 0 */
    int kind = (q->kind == Q_PERCENT && q->v == 0) || q->kind == Q_NONE ? Q_COUNT : q->kind;
    dc_buf_printf(b, "%s:%llu", K[kind], (unsigned long long)q->v);
}

/* The canonical text of what decides (not the version, the name or the file). */
static void canonical(const dracel_tierpolicy *p, dc_buf *b)
{
    static const char *const M[] = {"enforce", "shadow", "off"};
    /* the policy's mode decides through its tenants' (below) */
    dc_buf_printf(b, "%s\nreserve ", API_VERSION);
    canon_qty(b, &p->reserve);
    dc_buf_putc(b, '\n');
    for (uint32_t k = 0; k < p->nkeys; k++)
        if (p->key_reserve[k].kind != Q_NONE) {
            dc_buf_printf(b, "tier %s reserve ", p->keys[k]);
            canon_qty(b, &p->key_reserve[k]);
            dc_buf_putc(b, '\n');
        }
    for (uint32_t i = 0; i <= p->ntenants; i++) {
        const tnt *t = &p->tenants[i];
        dc_buf_printf(b, "%s %s weight %u mode %s", t->is_default ? "default" : "tenant", t->name,
                      (unsigned)t->weight, M[t->mode]);
        if (t->lkey)
            dc_buf_printf(b, " label %s=%s", t->lkey, t->lval);
        for (uint32_t k = 0; k < t->nns; k++)
            dc_buf_printf(b, " ns %s", t->ns[k]);
        dc_buf_putc(b, '\n');
        for (uint32_t k = 0; k < t->ncaps; k++) {
            dc_buf_printf(b, " cap %s ", p->keys[t->caps[k].key]);
            canon_qty(b, &t->caps[k].q);
            dc_buf_putc(b, '\n');
        }
    }
}

/* The key table, tenants with numbered caps, the namespace index. */
static dracel_status build(rd *x)
{
    dracel_tierpolicy *p = x->p;
    dc_arena *a = &p->arena;
    /* every key named: tiers, then caps */
    size_t nall = x->ntiers + x->dflt.ncaps;
    for (uint32_t i = 0; i < x->ntenants; i++)
        nall += x->tenants[i].ncaps;
    const char **all = dc_arena_alloc(a, (nall ? nall : 1) * sizeof *all);
    if (!all)
        return oom(x);
    size_t n = 0;
    for (uint32_t i = 0; i < x->ntiers; i++)
        all[n++] = x->tiers[i].key;
    for (uint32_t i = 0; i <= x->ntenants; i++) {
        const rtenant *t = i < x->ntenants ? &x->tenants[i] : &x->dflt;
        for (uint32_t k = 0; k < t->ncaps; k++)
            all[n++] = t->caps[k].key;
    }
    dc_sort(all, n, sizeof *all, cmp_str);
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        if (d == 0 || strcmp(all[d - 1], all[i]) != 0)
            all[d++] = all[i];
    if (d > DRACEL_TIERPOLICY_MAX_KEYS)
        return fail(x, NULL, "%zu tiers named, more than %u", d,
                    (unsigned)DRACEL_TIERPOLICY_MAX_KEYS);
    p->keys = all;
    p->nkeys = (uint32_t)d;
    p->key_reserve = dc_arena_zalloc(a, (d ? d : 1) * sizeof *p->key_reserve);
    p->fair_weights = dc_arena_zalloc(a, (d ? d : 1) * sizeof *p->fair_weights);
    p->tenants = dc_arena_zalloc(a, (x->ntenants + 1) * sizeof *p->tenants);
    if (!p->key_reserve || !p->fair_weights || !p->tenants)
        return oom(x);
    for (uint32_t i = 0; i < x->ntiers; i++)
        p->key_reserve[key_index(p, x->tiers[i].key)] = x->tiers[i].q;
    size_t nns = 0;
    for (uint32_t i = 0; i <= x->ntenants; i++) {
        const rtenant *rt = i < x->ntenants ? &x->tenants[i] : &x->dflt;
        tnt *t = &p->tenants[i];
        *t = rt->t;
        if (t->mode < 0)
            t->mode = (int)p->mode;
        t->caps = dc_arena_alloc(a, (rt->ncaps ? rt->ncaps : 1) * sizeof *t->caps);
        if (!t->caps)
            return oom(x);
        for (uint32_t k = 0; k < rt->ncaps; k++) {
            t->caps[k].key = key_index(p, rt->caps[k].key);
            t->caps[k].q = rt->caps[k].q;
            p->fair_weights[t->caps[k].key] += t->weight;
        }
        t->ncaps = rt->ncaps;
        dc_sort(t->caps, t->ncaps, sizeof *t->caps, cmp_cap);
        if (t->nns)
            dc_sort(t->ns, t->nns, sizeof *t->ns, cmp_str);
        nns += t->nns;
    }
    p->ntenants = x->ntenants;
    p->ns = dc_arena_alloc(a, (nns ? nns : 1) * sizeof *p->ns);
    p->by_label = dc_arena_alloc(a, (x->ntenants ? x->ntenants : 1) * sizeof *p->by_label);
    if (!p->ns || !p->by_label)
        return oom(x);
    for (uint32_t i = 0; i < x->ntenants; i++) {
        const tnt *t = &p->tenants[i];
        for (uint32_t k = 0; k < t->nns; k++)
            p->ns[p->nns++] = (nsent){t->ns[k], i};
        if (t->lkey)
            p->by_label[p->nby_label++] = i;
    }
    dc_sort(p->ns, p->nns, sizeof *p->ns, cmp_ns);
    /* the content hash and the label */
    dc_buf b;
    dc_buf_init(&b, &p->alloc);
    canonical(p, &b);
    if (b.oom) {
        dc_buf_free(&b);
        return oom(x);
    }
    p->hash = fnv(0xcbf29ce484222325ull, b.data, b.len);
    dc_buf_free(&b);
    snprintf(p->hash_hex, sizeof p->hash_hex, "%016llx", (unsigned long long)p->hash);
    snprintf(p->label, sizeof p->label, "%s (h:%s)", p->version, p->hash_hex);
    return DRACEL_OK;
}

void dracel_tierpolicy_free(dracel_tierpolicy *p)
{
    if (!p)
        return;
    dracel_alloc a = p->alloc;
    dc_arena_free(&p->arena);
    dc_free(&a, p, sizeof *p);
}

static dracel_status load(const dracel_config *cfg, const char *name, const char *buf,
                          size_t len, dracel_tierpolicy **out, char *err, size_t errcap)
{
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *al = dc_alloc_of(&c);
    dracel_tierpolicy *p = dc_malloc(al, sizeof *p);
    if (!p) {
        if (err && errcap)
            snprintf(err, errcap, "%s: out of memory", name);
        return DRACEL_ENOMEM;
    }
    memset(p, 0, sizeof *p);
    p->alloc = *al;
    dc_arena_init(&p->arena, &p->alloc);
    rd x;
    memset(&x, 0, sizeof x);
    x.p = p;
    x.name = name;
    x.text = buf;
    x.len = len;
    x.err = err;
    x.errcap = err ? errcap : 0;
    if (err && errcap)
        err[0] = '\0';
    dracel_status st = sdup(&x, name, strlen(name), &p->file);
    size_t i = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    x.json = i < len && (buf[i] == '{' || buf[i] == '[');
    /* A YAML policy ends with a line break: a file cut short by a writer that is not atomic
     * (its first 60 bytes loaded once as a valid policy with no tenants) ends inside a line.
     * JSON cannot be cut short and stay valid. */
    if (st == DRACEL_OK && !x.json && i < len && buf[len - 1] != '\n')
        st = fail_end(&x, buf, len);
    if (st == DRACEL_OK && len > DRACEL_TIERPOLICY_MAX_BYTES)
        st = fail(&x, NULL, "%zu bytes, more than the %u a policy may have", len,
                  (unsigned)DRACEL_TIERPOLICY_MAX_BYTES);
    if (st == DRACEL_OK) {
        char lerr[512];
        dc_slice_set set;
        dc_slice_set_init(&set, &p->alloc);
        dc_slices_limits lim;
        dc_slices_limits_default(&lim);
        dc_ld l;
        dc_ld_init(&l, &set, &lim, lerr, sizeof lerr);
        l.per_doc = document;
        l.doc_ctx = &x;
        st = dc_ld_load_buffer(&l, name, buf, len);
        if (st == DRACEL_EINPUT && x.err && x.errcap && !x.err[0]) {
            /* the loader's message (a syntax error): "FILE:LINE: what", given its column */
            size_t fl = strlen(name), d = fl + 1;
            while (lerr[d] >= '0' && lerr[d] <= '9')
                d++;
            if (l.fail_col && strncmp(lerr, name, fl) == 0 && lerr[fl] == ':' && d > fl + 1 &&
                lerr[d] == ':')
                snprintf(x.err, x.errcap, "%.*s:%u%s", (int)d, lerr, (unsigned)l.fail_col,
                         lerr + d);
            else
                snprintf(x.err, x.errcap, "%s", lerr);
        }
        if (st == DRACEL_ENOMEM)
            oom(&x);
        dc_ld_free(&l);
        dc_slice_set_free(&set);
    }
    if (st == DRACEL_OK && !x.have_doc)
        st = fail(&x, NULL, "no TierPolicy object (the file is empty)");
    if (st == DRACEL_OK)
        st = build(&x);
    if (st != DRACEL_OK) {
        dracel_tierpolicy_free(p);
        return st;
    }
    *out = p;
    return DRACEL_OK;
}

dracel_status dracel_tierpolicy_load_buffer(const dracel_config *cfg, const char *name,
                                            const char *buf, size_t len,
                                            dracel_tierpolicy **out, char *err, size_t errcap)
{
    if (!out || (!buf && len))
        return DRACEL_EINVAL;
    *out = NULL;
    return load(cfg, name ? name : "<input>", buf ? buf : "", len, out, err, errcap);
}

dracel_status dracel_tierpolicy_load(const dracel_config *cfg, const char *path,
                                     dracel_tierpolicy **out, char *err, size_t errcap)
{
    if (!out || !path)
        return DRACEL_EINVAL;
    *out = NULL;
    if (err && errcap)
        err[0] = '\0';
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *al = dc_alloc_of(&c);
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f || fstat(fileno(f), &sb) != 0 || S_ISDIR(sb.st_mode)) {
        int e = f ? (S_ISDIR(sb.st_mode) ? EISDIR : errno) : errno;
        if (f)
            fclose(f);
        if (err && errcap)
            snprintf(err, errcap, "%s: %s", path, e == ENOMEM ? "out of memory" : strerror(e));
        return e == ENOMEM ? DRACEL_ENOMEM : DRACEL_EINVAL;
    }
    size_t cap = DRACEL_TIERPOLICY_MAX_BYTES + 2, len = 0;
    char *buf = dc_malloc(al, cap);
    if (!buf) {
        fclose(f);
        if (err && errcap)
            snprintf(err, errcap, "%s: out of memory", path);
        return DRACEL_ENOMEM;
    }
    size_t got;
    while (len < cap - 1 && (got = fread(buf + len, 1, cap - 1 - len, f)) > 0)
        len += got;
    bool bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        dc_free(al, buf, cap);
        if (err && errcap)
            snprintf(err, errcap, "%s: %s", path, e == ENOMEM ? "out of memory" : strerror(e));
        return e == ENOMEM ? DRACEL_ENOMEM : DRACEL_EINVAL;
    }
    buf[len] = '\0';
    dracel_status st = load(&c, path, buf, len, out, err, errcap);
    dc_free(al, buf, cap);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Reading a policy
 */

const char *dracel_tierpolicy_version(const dracel_tierpolicy *p)
{
    return p ? p->version : NULL;
}

uint64_t dracel_tierpolicy_hash(const dracel_tierpolicy *p)
{
    return p ? p->hash : 0;
}

const char *dracel_tierpolicy_label(const dracel_tierpolicy *p)
{
    return p ? p->label : NULL;
}

const char *dracel_tierpolicy_name(const dracel_tierpolicy *p)
{
    return p ? p->name : NULL;
}

const char *dracel_tierpolicy_file(const dracel_tierpolicy *p)
{
    return p ? p->file : NULL;
}

dracel_tier_mode dracel_tierpolicy_mode(const dracel_tierpolicy *p)
{
    return p ? p->mode : DRACEL_TIER_OFF;
}

const char *dracel_tier_mode_name(dracel_tier_mode m)
{
    switch (m) {
    case DRACEL_TIER_ENFORCE: return "enforce";
    case DRACEL_TIER_SHADOW: return "shadow";
    case DRACEL_TIER_OFF: return "off";
    }
    return NULL;
}

size_t dracel_tierpolicy_tenants(const dracel_tierpolicy *p)
{
    return p ? p->ntenants : 0;
}

#define TENANT_INFO_V1 (offsetof(dracel_tenant_info, mode) + sizeof(dracel_tier_mode))

dracel_status dracel_tierpolicy_tenant_size(const dracel_tierpolicy *p, size_t i,
                                            dracel_tenant_info *out, size_t size)
{
    if (!p || !out || i > p->ntenants)
        return DRACEL_EINVAL;
    const tnt *t = &p->tenants[i];
    dracel_tenant_info x;
    memset(&x, 0, sizeof x);
    x.name = t->name;
    x.weight = t->weight;
    x.is_default = t->is_default;
    x.namespaces = t->ns;
    x.nnamespaces = t->nns;
    x.label_key = t->lkey;
    x.label_value = t->lval;
    x.ncaps = t->ncaps;
    x.mode = (dracel_tier_mode)t->mode;
    return dc_struct_write(out, size, &x, sizeof x, TENANT_INFO_V1);
}

dracel_status dracel_tierpolicy_tenant_find(const dracel_tierpolicy *p, const char *name,
                                            size_t *index)
{
    if (!p || !name || !index)
        return DRACEL_EINVAL;
    for (uint32_t i = 0; i <= p->ntenants; i++)
        if (strcmp(p->tenants[i].name, name) == 0) {
            *index = i;
            return DRACEL_OK;
        }
    return DRACEL_EINPUT;
}

size_t dracel_tierpolicy_tenant_of(const dracel_tierpolicy *p, const char *ns,
                                   const dracel_label *labels, size_t nlabels)
{
    if (!p)
        return 0;
    size_t best = p->ntenants;
    if (ns) {
        uint32_t lo = 0, hi = p->nns;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            int c = strcmp(p->ns[mid].ns, ns);
            if (c == 0) {
                best = p->ns[mid].tenant;
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    /* a tenant by label earlier in the file comes first */
    for (uint32_t k = 0; k < p->nby_label && p->by_label[k] < best; k++) {
        const tnt *t = &p->tenants[p->by_label[k]];
        for (size_t i = 0; labels && i < nlabels; i++)
            if (labels[i].key && labels[i].value && strcmp(labels[i].key, t->lkey) == 0 &&
                strcmp(labels[i].value, t->lval) == 0)
                return p->by_label[k];
    }
    return best;
}

dracel_tier_default dracel_tierpolicy_default_why(const dracel_tierpolicy *p, const char *ns,
                                                  const dracel_label *labels, size_t nlabels,
                                                  size_t *label)
{
    if (!p || dracel_tierpolicy_tenant_of(p, ns, labels, nlabels) != p->ntenants)
        return DRACEL_TIER_DEFAULT_NOT;
    for (size_t i = 0; labels && i < nlabels; i++)
        for (uint32_t k = 0; labels[i].key && k < p->nby_label; k++)
            if (strcmp(labels[i].key, p->tenants[p->by_label[k]].lkey) == 0) {
                if (label)
                    *label = i;
                return DRACEL_TIER_DEFAULT_LABEL;
            }
    return DRACEL_TIER_DEFAULT_NAMESPACE;
}

size_t dracel_tierpolicy_keys(const dracel_tierpolicy *p)
{
    return p ? p->nkeys : 0;
}

const char *dracel_tierpolicy_key(const dracel_tierpolicy *p, size_t i)
{
    return p && i < p->nkeys ? p->keys[i] : NULL;
}

dracel_status dracel_tierpolicy_key_find(const dracel_tierpolicy *p, const char *key,
                                         size_t *index)
{
    if (!p || !key || !index)
        return DRACEL_EINVAL;
    uint32_t k = key_index(p, key);
    if (k == UINT32_MAX)
        return DRACEL_EINPUT;
    *index = k;
    return DRACEL_OK;
}

static const tcap *cap_at(const dracel_tierpolicy *p, size_t tenant, size_t key)
{
    const tnt *t = &p->tenants[tenant];
    uint32_t lo = 0, hi = t->ncaps;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->caps[mid].key == key)
            return &t->caps[mid];
        if (t->caps[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* a * b / c rounded down (or up), saturating: c and b are at most about 2^30. */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c, bool up)
{
    if (c == 0)
        return 0;
    uint64_t q = a / c, r = a % c;
    if (b && q > UINT64_MAX / b)
        return UINT64_MAX;
    uint64_t hi = q * b, rb = r * b;
    uint64_t lo = rb / c + (up && rb % c ? 1 : 0);
    return UINT64_MAX - hi < lo ? UINT64_MAX : hi + lo;
}

uint64_t dracel_tierpolicy_cap(const dracel_tierpolicy *p, size_t tenant, size_t key,
                               uint64_t tier_size)
{
    if (!p || tenant > p->ntenants || key >= p->nkeys)
        return DRACEL_TIER_NO_CAP;
    const tcap *c = cap_at(p, tenant, key);
    if (!c)
        return DRACEL_TIER_NO_CAP;
    switch (c->q.kind) {
    case Q_COUNT: return c->q.v;
    case Q_PERCENT: return muldiv(tier_size, c->q.v, PCT_ONE, false);
    case Q_FAIR: return muldiv(tier_size, p->tenants[tenant].weight, p->fair_weights[key], false);
    }
    return DRACEL_TIER_NO_CAP;
}

const char *dracel_tierpolicy_cap_text(const dracel_tierpolicy *p, size_t tenant, size_t key)
{
    if (!p || tenant > p->ntenants || key >= p->nkeys)
        return NULL;
    const tcap *c = cap_at(p, tenant, key);
    return c ? c->q.text : NULL;
}

uint64_t dracel_tierpolicy_reserve(const dracel_tierpolicy *p, size_t key, uint64_t tier_size)
{
    if (!p)
        return 0;
    const qty *q = key < p->nkeys && p->key_reserve[key].kind != Q_NONE ? &p->key_reserve[key]
                                                                        : &p->reserve;
    if (q->kind == Q_COUNT)
        return q->v;
    if (q->kind == Q_PERCENT)
        return muldiv(tier_size, q->v, PCT_ONE, true);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Ledgers
 */

struct dracel_tierusage {
    dracel_alloc alloc;
    const dracel_tierpolicy *p;
    size_t n;                   /* (tenants + 1) * keys */
    uint64_t *used;             /* [tenant * keys + key] */
    uint64_t *total;            /* per key */
};

dracel_status dracel_tierusage_new(const dracel_tierpolicy *p, dracel_tierusage **out)
{
    if (!p || !out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_tierusage *u = dc_malloc(&p->alloc, sizeof *u);
    if (!u)
        return DRACEL_ENOMEM;
    memset(u, 0, sizeof *u);
    u->alloc = p->alloc;
    u->p = p;
    u->n = (size_t)(p->ntenants + 1) * p->nkeys;
    size_t bytes = (u->n + p->nkeys + 1) * sizeof(uint64_t);
    u->used = dc_malloc(&u->alloc, bytes);
    if (!u->used) {
        dc_free(&u->alloc, u, sizeof *u);
        return DRACEL_ENOMEM;
    }
    memset(u->used, 0, bytes);
    u->total = u->used + u->n;
    *out = u;
    return DRACEL_OK;
}

void dracel_tierusage_free(dracel_tierusage *u)
{
    if (!u)
        return;
    dracel_alloc a = u->alloc;
    dc_free(&a, u->used, (u->n + u->p->nkeys + 1) * sizeof(uint64_t));
    dc_free(&a, u, sizeof *u);
}

const dracel_tierpolicy *dracel_tierusage_policy(const dracel_tierusage *u)
{
    return u ? u->p : NULL;
}

dracel_status dracel_tierusage_add(dracel_tierusage *u, size_t tenant, size_t key, int64_t n)
{
    if (!u || tenant > u->p->ntenants || key >= u->p->nkeys)
        return DRACEL_EINVAL;
    uint64_t *c = &u->used[tenant * u->p->nkeys + key];
    if (n < 0 ? *c < (uint64_t)-(n + 1) + 1 : UINT64_MAX - u->total[key] < (uint64_t)n)
        return DRACEL_EINVAL;
    if (n < 0) {
        uint64_t m = (uint64_t)-(n + 1) + 1;
        *c -= m;
        u->total[key] -= m;
    } else {
        *c += (uint64_t)n;
        u->total[key] += (uint64_t)n;
    }
    return DRACEL_OK;
}

uint64_t dracel_tierusage_used(const dracel_tierusage *u, size_t tenant, size_t key)
{
    if (!u || tenant > u->p->ntenants || key >= u->p->nkeys)
        return 0;
    return u->used[tenant * u->p->nkeys + key];
}

uint64_t dracel_tierusage_total(const dracel_tierusage *u, size_t key)
{
    return u && key < u->p->nkeys ? u->total[key] : 0;
}

void dracel_tierusage_clear(dracel_tierusage *u)
{
    if (u)
        memset(u->used, 0, (u->n + u->p->nkeys) * sizeof(uint64_t));
}

/* ---------------------------------------------------------------------------------------------
 * The check
 */

#define CHECK_V1 (offsetof(dracel_tier_check, reason) + sizeof(((dracel_tier_check *)0)->reason))

dracel_status dracel_tierpolicy_check_size(const dracel_tierpolicy *p,
                                           const dracel_tierusage *u, size_t tenant, size_t key,
                                           uint64_t n, uint64_t tier_size, uint64_t tier_free,
                                           dracel_tier_check *out, size_t size)
{
    if (!p || !u || !out || u->p != p || tenant > p->ntenants || key >= p->nkeys)
        return DRACEL_EINVAL;
    dracel_tier_check c;
    memset(&c, 0, sizeof c);
    const char *tn = p->tenants[tenant].name, *kn = p->keys[key];
    c.n = n;
    c.size = tier_size;
    c.free = tier_free;
    c.used = dracel_tierusage_used(u, tenant, key);
    c.cap = dracel_tierpolicy_cap(p, tenant, key, tier_size);
    c.reserve = dracel_tierpolicy_reserve(p, key, tier_size);
    c.capped = c.cap != DRACEL_TIER_NO_CAP;
    char need[32] = "";
    if (n != 1)
        snprintf(need, sizeof need, ", needs %llu", (unsigned long long)n);
    if (!c.capped) {
        c.allowed = true;
        snprintf(c.reason, sizeof c.reason, "tenant %s has no cap on %s", tn, kn);
    } else if (c.used <= c.cap && n <= c.cap - c.used) {
        c.allowed = true;
        snprintf(c.reason, sizeof c.reason, "tenant %s at %llu/%llu %s", tn,
                 (unsigned long long)c.used, (unsigned long long)c.cap, kn);
    } else if (tier_free >= n && tier_free - n >= c.reserve) {
        c.allowed = c.borrowing = true;
        snprintf(c.reason, sizeof c.reason,
                 "tenant %s at %llu/%llu %s borrows%s (%llu free, idle reserve %llu)", tn,
                 (unsigned long long)c.used, (unsigned long long)c.cap, kn, need,
                 (unsigned long long)tier_free, (unsigned long long)c.reserve);
    } else {
        snprintf(c.reason, sizeof c.reason,
                 "tenant %s at %llu/%llu %s%s (%llu free, idle reserve %llu)", tn,
                 (unsigned long long)c.used, (unsigned long long)c.cap, kn, need,
                 (unsigned long long)tier_free, (unsigned long long)c.reserve);
    }
    c.reject = !c.allowed && p->tenants[tenant].mode == DRACEL_TIER_ENFORCE;
    return dc_struct_write(out, size, &c, sizeof c, CHECK_V1);
}

/* ---------------------------------------------------------------------------------------------
 * What allocations count toward
 */

size_t dracel_tierpolicy_keys_of(const dracel_tierpolicy *p, const char *request,
                                 const char *device_class, size_t out[2])
{
    if (!p || !out)
        return 0;
    size_t n = 0;
    uint32_t a = request ? key_index(p, request) : UINT32_MAX;
    uint32_t b = device_class ? key_index(p, device_class) : UINT32_MAX;
    if (a != UINT32_MAX)
        out[n++] = a;
    if (b != UINT32_MAX && b != a)
        out[n++] = b;
    return n;
}

/* Add devices to key in takes (sorted by key), keeping at most cap entries; returns the count
 * of distinct keys. */
static size_t take_add(dracel_tier_take *t, size_t n, size_t cap, size_t key, uint32_t devices)
{
    size_t i = 0;
    while (i < n && i < cap && t[i].key < key)
        i++;
    if (i < n && i < cap && t[i].key == key) {
        t[i].devices += devices;
        return n;
    }
    if (i < cap) {
        size_t end = n < cap ? n : cap - 1;
        memmove(t + i + 1, t + i, (end - i) * sizeof *t);
        t[i].key = key;
        t[i].devices = devices;
    }
    return n + 1;
}

size_t dracel_tierpolicy_run_takes(const dracel_tierpolicy *p, const dracel_policy *pl,
                                   const dracel_run *r, dracel_tier_take *out, size_t cap)
{
    if (!p || !pl || !r || (!out && cap))
        return 0;
    size_t n = 0;
    for (size_t c = 0; c < dracel_policy_claims(pl); c++)
        for (size_t i = 0; i < dracel_run_results(r, c); i++) {
            dracel_device_result res;
            dracel_tier_info ti;
            if (dracel_run_result(r, c, i, &res) != DRACEL_OK || res.admin_access ||
                dracel_policy_tier(pl, res.tier, &ti) != DRACEL_OK)
                continue;
            size_t k[2];
            size_t nk = dracel_tierpolicy_keys_of(p, res.request, ti.device_class, k);
            for (size_t j = 0; j < nk; j++)
                n = take_add(out, n, cap, k[j], 1);
        }
    return n;
}

size_t dracel_tierpolicy_claim_takes(const dracel_tierpolicy *p, const dracel_snapshot *s,
                                     size_t claim, dracel_tier_take *out, size_t cap)
{
    dracel_claim_status cs;
    if (!p || !s || (!out && cap) || dracel_snapshot_claim(s, claim, &cs) != DRACEL_OK ||
        !cs.allocated)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < cs.nresults; i++) {
        dracel_device_result res;
        if (dracel_snapshot_claim_result(s, claim, i, &res) != DRACEL_OK || res.admin_access)
            continue;
        size_t k[2];
        size_t nk = dracel_tierpolicy_keys_of(
            p, res.request, dracel_snapshot_claim_device_class(s, claim, res.request), k);
        for (size_t j = 0; j < nk; j++)
            n = take_add(out, n, cap, k[j], 1);
    }
    return n;
}

/* The tier (or class) of key for pl, its devices (all candidates, or with o those usable under
 * o's release and gates) and those of them not in in_use. */
static dracel_status key_devices(const dracel_tierpolicy *p, const dracel_policy *pl, size_t key,
                                 const dracel_allocate_opts *o, const dracel_usage *in_use,
                                 uint64_t *size, uint64_t *free_devices)
{
    if (!p || !pl || !size || key >= p->nkeys)
        return DRACEL_EINVAL;
    const char *k = p->keys[key];
    size_t tier = SIZE_MAX;
    bool class_only = false;
    for (size_t t = 0; t < dracel_policy_tiers(pl) && tier == SIZE_MAX; t++) {
        dracel_tier_info ti;
        if (dracel_policy_tier(pl, t, &ti) == DRACEL_OK && strcmp(ti.name, k) == 0)
            tier = t;
    }
    for (size_t t = 0; t < dracel_policy_tiers(pl) && tier == SIZE_MAX; t++) {
        dracel_tier_info ti;
        if (dracel_policy_tier(pl, t, &ti) == DRACEL_OK && ti.device_class &&
            strcmp(ti.device_class, k) == 0) {
            tier = t;
            class_only = true;
        }
    }
    *size = 0;
    if (free_devices)
        *free_devices = 0;
    if (tier == SIZE_MAX)
        return DRACEL_EINPUT;
    size_t words = ((size_t)dracel_table_rows(dracel_policy_table(pl)) + 63) / 64;
    uint64_t *bits = in_use ? dc_malloc(&p->alloc, (words ? words : 1) * sizeof *bits) : NULL;
    if (in_use && !bits)
        return DRACEL_ENOMEM;
    uint32_t count = 0;
    dracel_status st =
        o ? dracel_policy_tier_usable(pl, tier, class_only, o, bits, words, &count)
          : dracel_policy_tier_candidates(pl, tier, class_only, bits, words, &count);
    if (st == DRACEL_OK) {
        *size = count;
        if (free_devices)
            *free_devices = count - (in_use ? dracel_usage_count(in_use, bits, words) : 0);
    }
    dc_free(&p->alloc, bits, (words ? words : 1) * sizeof *bits);
    return st;
}

dracel_status dracel_tierpolicy_key_size(const dracel_tierpolicy *p, const dracel_policy *pl,
                                         size_t key, const dracel_usage *in_use,
                                         uint64_t *size, uint64_t *free_devices)
{
    return key_devices(p, pl, key, NULL, in_use, size, free_devices);
}

dracel_status dracel_tierpolicy_key_usable(const dracel_tierpolicy *p, const dracel_policy *pl,
                                           size_t key, const dracel_allocate_opts *o,
                                           uint64_t *size, uint64_t *free_devices)
{
    dracel_allocate_opts d;
    if (!o) {
        dracel_allocate_opts_init(&d);
        o = &d;
    }
    const dracel_usage *in_use = o->size >= offsetof(dracel_allocate_opts, in_use) +
                                                sizeof o->in_use
                                     ? o->in_use
                                     : NULL;
    return key_devices(p, pl, key, o, in_use, size, free_devices);
}
