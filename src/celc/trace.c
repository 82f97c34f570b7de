/*
 * trace.c: the reader of replay traces (trace.h): one JSON object a line, parsed with cJSON,
 * checked field by field. Every string it keeps is its own copy (malloc); claims are
 * deduplicated by path and by inline text through a hash table.
 */
#define _POSIX_C_SOURCE 200809L

#include "trace.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd {
    const char *name, *dir;
    trace *t;
    size_t cap_pods, cap_claims;
    size_t max_pods, max_claims;
    size_t *slots;          /* claim hash table: index + 1, 0 empty */
    size_t nslots;
    char *err;
    size_t errcap;
    bool oom;
} rd;

static int fail(rd *r, uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(rd *r, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (!r->err || !r->errcap)
        return 1;
    int n = col ? snprintf(r->err, r->errcap, "%s:%u:%u: ", r->name, (unsigned)line,
                           (unsigned)col)
                : snprintf(r->err, r->errcap, "%s:%u: ", r->name, (unsigned)line);
    if (n > 0 && (size_t)n < r->errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->errcap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return 1;
}

static char *dup_n(rd *r, const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) {
        r->oom = true;
        return NULL;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* A namespace: a DNS label. */
static bool ns_ok(const char *s, size_t n)
{
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !(c == '-' && i > 0 && i + 1 < n))
            return false;
    }
    return true;
}

/* A pod's name: a DNS subdomain. */
static bool name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        bool edge = i == 0 || i + 1 == n || s[i - 1] == '.' || s[i + 1] == '.';
        if (!alnum && !((c == '-' || c == '.') && !edge))
            return false;
    }
    return true;
}

/* The index of the claim source (path or inline text), added when new; SIZE_MAX on failure. */
static size_t claim_index(rd *r, uint32_t line, char *path, char *text)
{
    const char *key = path ? path : text;
    uint64_t h = hash_str(key) * 2 + (path != NULL);
    trace *t = r->t;
    if (t->nclaims * 2 >= r->nslots) {
        size_t ns = r->nslots ? r->nslots * 2 : 64;
        size_t *s = calloc(ns, sizeof *s);
        if (!s) {
            r->oom = true;
            goto out;
        }
        for (size_t i = 0; i < t->nclaims; i++) {
            const trace_claim *c = &t->claims[i];
            uint64_t ch = hash_str(c->path ? c->path : c->text) * 2 + (c->path != NULL);
            size_t k = (size_t)(ch % ns);
            while (s[k])
                k = (k + 1) % ns;
            s[k] = i + 1;
        }
        free(r->slots);
        r->slots = s;
        r->nslots = ns;
    }
    size_t k = (size_t)(h % r->nslots);
    for (; r->slots[k]; k = (k + 1) % r->nslots) {
        const trace_claim *c = &t->claims[r->slots[k] - 1];
        if ((path && c->path && strcmp(c->path, path) == 0) ||
            (!path && c->text && strcmp(c->text, text) == 0)) {
            free(path);
            free(text);
            return r->slots[k] - 1;
        }
    }
    if (t->nclaims >= r->max_claims) {
        fail(r, line, 0, "claim: more than %zu distinct claims (--max-claims)", r->max_claims);
        goto out;
    }
    if (t->nclaims == r->cap_claims) {
        size_t nc = r->cap_claims ? r->cap_claims * 2 : 16;
        trace_claim *c = realloc(t->claims, nc * sizeof *c);
        if (!c) {
            r->oom = true;
            goto out;
        }
        t->claims = c;
        r->cap_claims = nc;
    }
    char nm[64];
    snprintf(nm, sizeof nm, ":%u", (unsigned)line);
    char *name = path ? dup_n(r, path, strlen(path)) : malloc(strlen(r->name) + strlen(nm) + 1);
    if (!name) {
        r->oom = true;
        goto out;
    }
    if (!path)
        sprintf(name, "%s%s", r->name, nm);
    t->claims[t->nclaims] = (trace_claim){path, text, name, line};
    r->slots[k] = t->nclaims + 1;
    return t->nclaims++;
out:
    free(path);
    free(text);
    return SIZE_MAX;
}

/* cJSON reports a failed allocation as a syntax error: its allocations go through this while
 * a line is parsed, so that the two can be told apart. */
static bool parse_oom;

static void *watch_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        parse_oom = true;
    return p;
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp(((const trace_label *)a)->key, ((const trace_label *)b)->key);
}

/* A number as the trace most likely wrote it: the shortest text of 15 to 17 digits that reads
 * back as the same double (1000000000001, not 1e+12; 0.1, not 0.10000000000000001). */
static void number_text(char *v, size_t cap, double d)
{
    for (int prec = 15; prec <= 17; prec++)
        if (snprintf(v, cap, "%.*g", prec, d) > 0 && strtod(v, NULL) == d)
            return;
}

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsBool(v))
        return "a bool";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsArray(v))
        return "a list";
    return "an object";
}

/* One line's object into pod p. */
static int pod(rd *r, uint32_t line, const cJSON *o, trace_pod *p)
{
    static const char *const F[] = {"time", "pod", "labels", "claim", "runSeconds"};
    const cJSON *f[5] = {NULL};
    memset(p, 0, sizeof *p);
    p->line = line;
    p->run = -1;
    if (!cJSON_IsObject(o))
        return fail(r, line, 0, "a trace line is a JSON object, not %s", type_name(o));
    for (const cJSON *k = o->child; k; k = k->next) {
        size_t i = 0;
        while (i < 5 && strcmp(F[i], k->string) != 0)
            i++;
        if (i == 5)
            return fail(r, line, 0, "unknown field \"%.60s\"", k->string);
        if (f[i])
            return fail(r, line, 0, "field \"%s\" given twice", F[i]);
        f[i] = k;
    }
    if (!f[0])
        return fail(r, line, 0, "time: required value (seconds from the start)");
    if (!cJSON_IsNumber(f[0]) || !isfinite(f[0]->valuedouble) || f[0]->valuedouble < 0 ||
        f[0]->valuedouble > TRACE_MAX_SECONDS) {
        char v[40];
        if (cJSON_IsNumber(f[0]))
            number_text(v, sizeof v, f[0]->valuedouble);
        return fail(r, line, 0, "time: must be a number of seconds from 0 to 1e12, not %s",
                    cJSON_IsNumber(f[0]) ? v : type_name(f[0]));
    }
    p->time = f[0]->valuedouble;
    if (!f[1])
        return fail(r, line, 0, "pod: required value (\"NAMESPACE/NAME\")");
    if (!cJSON_IsString(f[1]))
        return fail(r, line, 0, "pod: must be a string \"NAMESPACE/NAME\", not %s",
                    type_name(f[1]));
    const char *s = f[1]->valuestring, *slash = strchr(s, '/');
    if (!slash || !ns_ok(s, (size_t)(slash - s)) || !name_ok(slash + 1, strlen(slash + 1)))
        return fail(r, line, 0, "pod: \"%.80s\" is not NAMESPACE/NAME (a DNS label, '/', a DNS "
                                "subdomain)", s);
    if (!(p->ns = dup_n(r, s, (size_t)(slash - s))) ||
        !(p->name = dup_n(r, slash + 1, strlen(slash + 1))))
        return -1;
    if (f[2] && !cJSON_IsNull(f[2])) {
        if (!cJSON_IsObject(f[2]))
            return fail(r, line, 0, "labels: must be an object of strings, not %s",
                        type_name(f[2]));
        size_t n = 0;
        for (const cJSON *k = f[2]->child; k; k = k->next)
            n++;
        if (n > TRACE_MAX_LABELS)
            return fail(r, line, 0, "labels: more than %u", TRACE_MAX_LABELS);
        p->labels = calloc(n ? n : 1, sizeof *p->labels);
        if (!p->labels)
            return -1;
        for (const cJSON *k = f[2]->child; k; k = k->next) {
            if (!cJSON_IsString(k))
                return fail(r, line, 0, "labels[\"%.60s\"]: must be a string, not %s",
                            k->string, type_name(k));
            if (!k->string[0] || strlen(k->string) > 317 || strlen(k->valuestring) > 63)
                return fail(r, line, 0, "labels[\"%.60s\"]: a label key is 1 to 317 "
                                        "characters, a value at most 63", k->string);
            for (size_t j = 0; j < p->nlabels; j++)
                if (strcmp(p->labels[j].key, k->string) == 0)
                    return fail(r, line, 0, "labels: \"%.60s\" given twice", k->string);
            trace_label *l = &p->labels[p->nlabels];
            if (!(l->key = dup_n(r, k->string, strlen(k->string))) ||
                !(l->value = dup_n(r, k->valuestring, strlen(k->valuestring))))
                return -1;
            p->nlabels++;
        }
        qsort(p->labels, p->nlabels, sizeof *p->labels, cmp_label);
    }
    if (!f[3])
        return fail(r, line, 0, "claim: required value (a ResourceClaimTemplate or "
                                "ResourceClaim file, or the object)");
    char *path = NULL, *text = NULL;
    if (cJSON_IsString(f[3])) {
        const char *c = f[3]->valuestring;
        if (!c[0])
            return fail(r, line, 0, "claim: an empty path");
        bool rel = c[0] != '/' && r->dir && r->dir[0];
        path = malloc(strlen(c) + (rel ? strlen(r->dir) + 2 : 1));
        if (!path)
            return -1;
        if (rel)
            sprintf(path, "%s/%s", r->dir, c);
        else
            strcpy(path, c);
    } else if (cJSON_IsObject(f[3])) {
        char *j = cJSON_PrintUnformatted(f[3]);
        if (!j)
            return -1;
        text = dup_n(r, j, strlen(j));
        cJSON_free(j);
        if (!text)
            return -1;
    } else {
        return fail(r, line, 0, "claim: must be a path or an object, not %s", type_name(f[3]));
    }
    p->claim = claim_index(r, line, path, text);
    if (p->claim == SIZE_MAX)
        return r->oom ? -1 : 1;
    if (f[4] && !cJSON_IsNull(f[4])) {
        if (!cJSON_IsNumber(f[4]) || !isfinite(f[4]->valuedouble) || f[4]->valuedouble <= 0 ||
            f[4]->valuedouble > TRACE_MAX_SECONDS) {
            char v[40];
            if (cJSON_IsNumber(f[4]))
                number_text(v, sizeof v, f[4]->valuedouble);
            return fail(r, line, 0, "runSeconds: must be a number of seconds above 0 and at most "
                                    "1e12, not %s", cJSON_IsNumber(f[4]) ? v : type_name(f[4]));
        }
        p->run = f[4]->valuedouble;
    }
    return 0;
}

static void pod_free(trace_pod *p)
{
    free(p->ns);
    free(p->name);
    for (size_t i = 0; i < p->nlabels; i++) {
        free(p->labels[i].key);
        free(p->labels[i].value);
    }
    free(p->labels);
}

void trace_free(trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->npods; i++)
        pod_free(&t->pods[i]);
    free(t->pods);
    for (size_t i = 0; i < t->nclaims; i++) {
        free(t->claims[i].path);
        free(t->claims[i].text);
        free(t->claims[i].name);
    }
    free(t->claims);
    memset(t, 0, sizeof *t);
}

/* Code points of s[0..n) plus one: the column after them. */
static uint32_t column(const char *s, size_t n)
{
    uint32_t col = 1;
    for (size_t i = 0; i < n; i++)
        col += ((unsigned char)s[i] & 0xC0) != 0x80;
    return col;
}

int trace_parse(const char *name, const char *dir, const char *buf, size_t len,
                const trace_limits *lim, trace *out, char *err, size_t errcap)
{
    memset(out, 0, sizeof *out);
    rd r;
    memset(&r, 0, sizeof r);
    r.name = name;
    r.dir = dir;
    r.t = out;
    r.err = err;
    r.errcap = err ? errcap : 0;
    r.max_pods = lim && lim->max_pods ? lim->max_pods : TRACE_DEFAULT_MAX_PODS;
    r.max_claims = lim && lim->max_claims ? lim->max_claims : TRACE_DEFAULT_MAX_CLAIMS;
    if (err && errcap)
        err[0] = '\0';
    int rc = 0;
    uint32_t line = 0;
    for (size_t at = 0; at < len && rc == 0;) {
        line++;
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - buf) : len, n = end - at;
        const char *s = buf + at;
        at = end + 1;
        if (n && s[n - 1] == '\r')
            n--;
        size_t b = 0;
        while (b < n && (s[b] == ' ' || s[b] == '\t'))
            b++;
        if (b == n || s[b] == '#')
            continue;
        if (n > TRACE_MAX_LINE_BYTES) {
            rc = fail(&r, line, 0, "a line longer than %u bytes", TRACE_MAX_LINE_BYTES);
            break;
        }
        const char *nul = memchr(s, '\0', n);
        if (nul) {
            rc = fail(&r, line, column(s, (size_t)(nul - s)), "a NUL byte");
            break;
        }
        if (out->npods >= r.max_pods) {
            rc = fail(&r, line, 0, "more than %zu pods (--max-pods)", r.max_pods);
            break;
        }
        const char *stop = NULL;
        cJSON_Hooks hooks = {watch_malloc, free};
        cJSON_InitHooks(&hooks);
        parse_oom = false;
        cJSON *o = cJSON_ParseWithLengthOpts(s, n, &stop, 0);
        cJSON_InitHooks(NULL);
        if (!o) {
            if (parse_oom) {
                rc = -1;
                break;
            }
            size_t pos = stop && stop >= s && stop <= s + n ? (size_t)(stop - s) : 0;
            rc = fail(&r, line, column(s, pos), "JSON syntax error");
            break;
        }
        /* whatever follows the object on the line must be blanks */
        size_t used = stop ? (size_t)(stop - s) : n;
        while (used < n && (s[used] == ' ' || s[used] == '\t'))
            used++;
        if (used < n) {
            cJSON_Delete(o);
            rc = fail(&r, line, column(s, used), "more than one JSON value on the line");
            break;
        }
        if (out->npods == r.cap_pods) {
            size_t nc = r.cap_pods ? r.cap_pods * 2 : 256;
            trace_pod *p = realloc(out->pods, nc * sizeof *p);
            if (!p) {
                cJSON_Delete(o);
                rc = -1;
                break;
            }
            out->pods = p;
            r.cap_pods = nc;
        }
        trace_pod *p = &out->pods[out->npods];
        rc = pod(&r, line, o, p);
        cJSON_Delete(o);
        if (rc != 0) {
            pod_free(p);
            if (r.oom)
                rc = -1;
            break;
        }
        out->npods++;
    }
    free(r.slots);
    if (rc != 0)
        trace_free(out);
    return rc;
}
