/*
 * fakeapi: a fake Kubernetes API server for the tests of dra-extender's API client
 * (tests/extender/watch.sh), on libmicrohttpd. Not installed.
 *
 *   fakeapi [--tls-cert PEM --tls-key PEM] [--token T] [--bookmark-ms N]
 *
 * Listens on 127.0.0.1, port chosen by the system, and prints the port on a line of standard
 * output when ready; runs until SIGTERM or SIGINT.
 *
 * Serves LIST (limit/continue pages of a consistent snapshot, resourceVersion in the list's
 * metadata) and WATCH (chunked streams of event lines from a resourceVersion, BOOKMARK events
 * every --bookmark-ms when allowWatchBookmarks is set, ended after timeoutSeconds) of
 * resourceslices, deviceclasses, resourceclaims (resource.k8s.io/v1) and nodes (v1), from an
 * in-memory store: every object version is kept with the resourceVersions at which it was
 * created and replaced, and every event, so that a snapshot or a history can be served until
 * it is compacted. One resourceVersion counter for all resources, as etcd's revision.
 *
 * Control interface (for the tests; never authenticated):
 *   POST   /_control/objects/RES            a compact JSON object, or an array of them: each is
 *                                           added or replaced (its metadata.resourceVersion set)
 *   POST   /_control/load                   objects of any of the four kinds, as a file holds
 *                                           them: JSON or YAML (one object, a List, a YAML
 *                                           stream), each added or replaced under its kind's
 *                                           resource (see load() below)
 *   DELETE /_control/objects/RES/NS/NAME    (RES/NAME for cluster-scoped resources)
 *   POST   /_control/fault                  a JSON object of faults, see fault() below
 *   GET    /_control/state                  counters, then the objects, one per line:
 *                                           ["RES","NS","NAME",OBJECT], sorted (RES in the
 *                                           order above, then NS, then NAME)
 *   GET    /_control/writes                 every write received (Events: POST and PATCH under
 *                                           /apis/events.k8s.io/v1/namespaces/NS/events), in
 *                                           order: [{"method","path","contentType","atMs","body"}]
 *   GET    /_control/events                 the Events stored, as a JSON array
 *   POST   /_control/serve                  {"path": P, "object": O}: GET P answers O (a pod, a
 *                                           ResourceClaimTemplate: what dra-celc --kubeconfig
 *                                           reads one by one)
 *   GET    /_control/pods                   the pod statuses patched (PATCH
 *                                           /api/v1/namespaces/NS/pods/NAME/status, conditions
 *                                           merged by type): [{"namespace","name","status"}]
 *
 * Objects keep their exact text (only metadata is re-encoded to set the resourceVersion), so
 * that an int64 beyond 2^53 reaches the client as written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>
#include <microhttpd.h>
#include <yaml.h>

#include "jsonspan.h"

enum { NRES = 4, MAX_BODY = 256 << 20 };

static const struct {
    const char *name, *path, *kind, *api;
    bool namespaced;
} RES[NRES] = {
    {"resourceslices", "/apis/resource.k8s.io/v1/resourceslices", "ResourceSlice", "resource.k8s.io/v1", false},
    {"deviceclasses", "/apis/resource.k8s.io/v1/deviceclasses", "DeviceClass", "resource.k8s.io/v1", false},
    {"resourceclaims", "/apis/resource.k8s.io/v1/resourceclaims", "ResourceClaim", "resource.k8s.io/v1", true},
    {"nodes", "/api/v1/nodes", "Node", "v1", false},
};

typedef struct version {
    char *ns, *name; /* ns "" when cluster-scoped */
    char *text;      /* the object, metadata.resourceVersion = rv */
    size_t len;
    uint64_t rv, drv; /* created at rv; replaced or deleted at drv (0: live) */
} version;

typedef struct event {
    uint64_t rv;
    char *line; /* {"type":...,"object":...}\n */
    size_t len;
} event;

typedef struct res_store {
    version *v;
    size_t nv, capv;
    event *ev;
    size_t nev, capev;
    /* faults */
    int cut;          /* cut the next N events written, after half of their bytes */
    int gone_http;    /* answer the next N watches with HTTP 410 */
    int gone_event;   /* ... with 200 and an ERROR event with code 410 */
    unsigned close_gen;  /* bumped: open streams end (as after timeoutSeconds) */
    unsigned silent_gen; /* bumped: open streams send nothing for silent_ms, then break */
    unsigned silent_ms;
    int garbage;      /* the next N events written have bytes in their middle that are not JSON */
    int rv_back;      /* ... carry metadata.resourceVersion "1", before every earlier one (in
                         streams opened after the fault only: a dead stream of a client gone
                         must not take it) */
    unsigned long rv_back_after; /* S.watches when the fault was set */
    unsigned stall_ms; /* the next event written stops after half its bytes; then nothing for
                          stall_ms, then the stream breaks */
} res_store;

static struct store {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* store changes, faults, shutdown */
    uint64_t rv;        /* the last resourceVersion given */
    uint64_t compacted; /* snapshots and histories before it are gone */
    res_store res[NRES];
    char **tokens;      /* accepted bearer tokens (none: no authentication) */
    size_t ntokens;
    int errors;         /* answer the next N API requests with error_status */
    int error_status;
    int retry_after;
    int errors_res;     /* ... of this resource only (-1: of any) */
    int delays;         /* delay the next N API requests by delay_ms */
    unsigned delay_ms;
    int delays_res;     /* ... of this resource only (-1: of any) */
    bool compact_after_page; /* compact after the next page that has a continue token */
    size_t chunk;       /* stream writes cycle through 1..chunk bytes (0: as much as fits) */
    size_t chunk_n;
    unsigned bookmark_ms;
    bool shutdown;
    /* counters */
    unsigned long lists, watches, unauthorized, failed, bookmarks, open_watches, cuts;
    unsigned long garbled, rv_backs, stalls;
    /* writes: events.k8s.io/v1 Events (POST, PATCH), as a real server keeps them */
    cJSON *events;      /* an array of the Events stored */
    cJSON *writes;      /* every write received: {"method","path","contentType","body"} */
    cJSON *pods;        /* pods whose status was patched: {"namespace","name","status"} */
    cJSON *served;      /* objects served by path (GET): {"path","object"} */
    int write_errors;   /* answer the next N writes with write_status */
    int write_status;
    int write_retry_after;
    unsigned long event_uid;
} S;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fakeapi: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die("out of memory");
    return q;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        die("out of memory");
    return p;
}

/* A growable string. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->cap - b->len <= n) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap - b->len <= n)
            cap *= 2;
        b->p = xrealloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static void sb_fmt(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_fmt(sbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        die("sb_fmt: too long");
    sb_add(b, tmp, (size_t)n);
}

/* A JSON string literal. */
static void sb_json(sbuf *b, const char *s)
{
    sb_str(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            sb_add(b, e, 2);
        } else if (c < 0x20) {
            sb_fmt(b, "\\u%04x", c);
        } else {
            sb_add(b, (const char *)&c, 1);
        }
    }
    sb_str(b, "\"");
}

/* ---- The store (S.mu held). */

/* The object text with metadata.resourceVersion set to rv: metadata alone is re-encoded. NULL
 * (with *why) when the text is not an object with metadata.name. */
static char *with_rv(const char *text, size_t len, uint64_t rv, size_t *outlen, char **ns,
                     char **name, const char **why)
{
    static const char *const keys[] = {"metadata"};
    js_span md;
    if (js_members(text, (js_span){0, len}, keys, 1, &md) != 0) {
        *why = "not a JSON object";
        return NULL;
    }
    if (!js_is_object(text, md)) {
        *why = "no metadata";
        return NULL;
    }
    const char *end;
    cJSON *m = cJSON_ParseWithLengthOpts(text + md.off, md.len, &end, 0);
    if (!m) {
        *why = "metadata cannot be parsed";
        return NULL;
    }
    const cJSON *jn = cJSON_GetObjectItemCaseSensitive(m, "name");
    const cJSON *jns = cJSON_GetObjectItemCaseSensitive(m, "namespace");
    if (!cJSON_IsString(jn) || !jn->valuestring[0]) {
        cJSON_Delete(m);
        *why = "no metadata.name";
        return NULL;
    }
    if (ns) {
        *ns = xstrdup(cJSON_IsString(jns) ? jns->valuestring : "");
        *name = xstrdup(jn->valuestring);
    }
    char rvs[32];
    snprintf(rvs, sizeof rvs, "%" PRIu64, rv);
    cJSON *s = cJSON_CreateString(rvs);
    if (!s)
        die("out of memory");
    if (cJSON_GetObjectItemCaseSensitive(m, "resourceVersion"))
        cJSON_ReplaceItemInObjectCaseSensitive(m, "resourceVersion", s);
    else
        cJSON_AddItemToObject(m, "resourceVersion", s);
    char *mtext = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    if (!mtext)
        die("out of memory");
    size_t ml = strlen(mtext);
    *outlen = md.off + ml + (len - md.off - md.len);
    char *out = xrealloc(NULL, *outlen + 1);
    memcpy(out, text, md.off);
    memcpy(out + md.off, mtext, ml);
    memcpy(out + md.off + ml, text + md.off + md.len, len - md.off - md.len);
    out[*outlen] = '\0';
    free(mtext);
    return out;
}

static void add_event(int r, const char *type, uint64_t rv, const char *text, size_t len)
{
    res_store *rs = &S.res[r];
    if (rs->nev == rs->capev) {
        rs->capev = rs->capev ? rs->capev * 2 : 64;
        rs->ev = xrealloc(rs->ev, rs->capev * sizeof *rs->ev);
    }
    sbuf b = {0};
    sb_fmt(&b, "{\"type\":\"%s\",\"object\":", type);
    sb_add(&b, text, len);
    sb_str(&b, "}\n");
    rs->ev[rs->nev++] = (event){rv, b.p, b.len};
}

static version *live(int r, const char *ns, const char *name)
{
    res_store *rs = &S.res[r];
    for (size_t i = 0; i < rs->nv; i++) {
        version *v = &rs->v[i];
        if (!v->drv && strcmp(v->ns, ns) == 0 && strcmp(v->name, name) == 0)
            return v;
    }
    return NULL;
}

/* Add or replace one object. 0, or -1 with *why. */
static int put_object(int r, const char *text, size_t len, const char **why)
{
    if (memchr(text, '\n', len) || memchr(text, '\r', len)) {
        *why = "the object must be compact JSON (one line)";
        return -1;
    }
    char *ns, *name;
    size_t outlen;
    uint64_t rv = S.rv + 1;
    char *out = with_rv(text, len, rv, &outlen, &ns, &name, why);
    if (!out)
        return -1;
    if (RES[r].namespaced != (ns[0] != '\0')) {
        free(out);
        free(ns);
        free(name);
        *why = RES[r].namespaced ? "a namespaced resource: metadata.namespace is needed"
                                 : "a cluster-scoped resource: no metadata.namespace";
        return -1;
    }
    S.rv = rv;
    res_store *rs = &S.res[r];
    version *old = live(r, ns, name);
    if (old)
        old->drv = rv;
    if (rs->nv == rs->capv) {
        rs->capv = rs->capv ? rs->capv * 2 : 64;
        rs->v = xrealloc(rs->v, rs->capv * sizeof *rs->v);
    }
    rs->v[rs->nv++] = (version){ns, name, out, outlen, rv, 0};
    add_event(r, old ? "MODIFIED" : "ADDED", rv, out, outlen);
    return 0;
}

static int delete_object(int r, const char *ns, const char *name)
{
    version *v = live(r, ns, name);
    if (!v)
        return -1;
    uint64_t rv = ++S.rv;
    v->drv = rv;
    size_t len;
    const char *why;
    char *text = with_rv(v->text, v->len, rv, &len, NULL, NULL, &why);
    if (!text)
        die("delete: %s", why);
    add_event(r, "DELETED", rv, text, len);
    free(text);
    return 0;
}

/* Drop the history before the current resourceVersion: old snapshots and watch positions are
 * gone (etcd compaction). The counter moves on first, as other writes would move it. */
static void compact(void)
{
    S.compacted = ++S.rv;
    for (int r = 0; r < NRES; r++) {
        res_store *rs = &S.res[r];
        size_t k = 0;
        for (size_t i = 0; i < rs->nv; i++) {
            if (rs->v[i].drv && rs->v[i].drv <= S.compacted) {
                free(rs->v[i].ns);
                free(rs->v[i].name);
                free(rs->v[i].text);
            } else {
                rs->v[k++] = rs->v[i];
            }
        }
        rs->nv = k;
        k = 0;
        for (size_t i = 0; i < rs->nev; i++) {
            if (rs->ev[i].rv <= S.compacted)
                free(rs->ev[i].line);
            else
                rs->ev[k++] = rs->ev[i];
        }
        rs->nev = k;
    }
}

static int cmp_version(const void *a, const void *b)
{
    const version *x = *(const version *const *)a, *y = *(const version *const *)b;
    int c = strcmp(x->ns, y->ns);
    return c ? c : strcmp(x->name, y->name);
}

/* The objects of r live at snapshot rv, sorted by namespace and name (malloc'd array). */
static version **snapshot(int r, uint64_t rv, size_t *n)
{
    res_store *rs = &S.res[r];
    version **out = xrealloc(NULL, (rs->nv + 1) * sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < rs->nv; i++) {
        version *v = &rs->v[i];
        if (v->rv <= rv && (!v->drv || v->drv > rv))
            out[k++] = v;
    }
    qsort(out, k, sizeof *out, cmp_version);
    *n = k;
    return out;
}

/* ---- HTTP. */

typedef struct request {
    sbuf body;
    bool too_big;
} request;

static enum MHD_Result send_buf(struct MHD_Connection *c, unsigned status, sbuf *b, int retry_after)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(b->len, b->p ? b->p : (char *)"",
                                                                b->p ? MHD_RESPMEM_MUST_FREE
                                                                     : MHD_RESPMEM_PERSISTENT);
    if (!resp)
        die("out of memory");
    if (MHD_add_response_header(resp, "Content-Type", "application/json") != MHD_YES)
        die("cannot add a header");
    if (retry_after > 0) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", retry_after);
        if (MHD_add_response_header(resp, "Retry-After", ra) != MHD_YES)
            die("cannot add a header");
    }
    enum MHD_Result r = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    b->p = NULL;
    return r;
}

static enum MHD_Result send_status(struct MHD_Connection *c, unsigned code, const char *reason,
                                   const char *msg, int retry_after)
{
    sbuf b = {0};
    sb_str(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":");
    sb_json(&b, msg);
    sb_str(&b, ",\"reason\":");
    sb_json(&b, reason);
    sb_fmt(&b, ",\"code\":%u}", code);
    return send_buf(c, code, &b, retry_after);
}

static const char *arg(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

/* A non-negative decimal, or -1. */
static long long num(const char *s)
{
    if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
        return -1;
    return strtoll(s, NULL, 10);
}

static enum MHD_Result do_list(struct MHD_Connection *c, int r)
{
    long long limit = num(arg(c, "limit"));
    const char *cont = arg(c, "continue");
    uint64_t snap;
    char after_ns[256] = "", after_name[256] = "";
    bool after = false;
    pthread_mutex_lock(&S.mu);
    S.lists++;
    if (cont && *cont) {
        /* continue token: SNAPSHOT-RV/NAMESPACE/NAME */
        char *end;
        snap = strtoull(cont, &end, 10);
        const char *slash = *end == '/' ? strchr(end + 1, '/') : NULL;
        if (!slash || (size_t)(slash - end - 1) >= sizeof after_ns || strlen(slash + 1) >= sizeof after_name) {
            pthread_mutex_unlock(&S.mu);
            return send_status(c, 400, "BadRequest", "invalid continue token", 0);
        }
        memcpy(after_ns, end + 1, (size_t)(slash - end - 1));
        after_ns[slash - end - 1] = '\0';
        strcpy(after_name, slash + 1);
        after = true;
        if (snap < S.compacted) {
            pthread_mutex_unlock(&S.mu);
            return send_status(c, 410, "Expired",
                               "The provided continue parameter is too old to display a consistent "
                               "list result. You can start a new list without the continue parameter.",
                               0);
        }
    } else {
        snap = S.rv;
    }
    size_t n, i = 0;
    version **vs = snapshot(r, snap, &n);
    if (after)
        while (i < n) {
            int d = strcmp(vs[i]->ns, after_ns);
            if (d > 0 || (d == 0 && strcmp(vs[i]->name, after_name) > 0))
                break;
            i++;
        }
    size_t last = limit > 0 && (size_t)limit < n - i ? i + (size_t)limit : n;
    sbuf b = {0};
    sb_fmt(&b, "{\"kind\":\"%sList\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":\"%" PRIu64 "\"",
           RES[r].kind, RES[r].api, snap);
    if (last < n) {
        sb_str(&b, ",\"continue\":");
        char tok[600];
        snprintf(tok, sizeof tok, "%" PRIu64 "/%s/%s", snap, vs[last - 1]->ns, vs[last - 1]->name);
        sb_json(&b, tok);
        if (S.compact_after_page) {
            S.compact_after_page = false;
            compact();
        }
    }
    sb_str(&b, "},\"items\":[");
    for (size_t k = i; k < last; k++) {
        if (k > i)
            sb_str(&b, ",");
        sb_add(&b, vs[k]->text, vs[k]->len);
    }
    sb_str(&b, "]}");
    free(vs);
    pthread_mutex_unlock(&S.mu);
    return send_buf(c, 200, &b, 0);
}

/* A watch stream. */
typedef struct stream {
    int r;
    uint64_t pos;            /* the resourceVersion of the last event sent */
    bool bookmarks;
    uint64_t deadline;       /* monotonic ms: timeoutSeconds */
    uint64_t next_bookmark;
    unsigned close_gen, silent_gen;
    bool silent;
    uint64_t silent_until;
    sbuf out;                /* bytes to send */
    size_t off;
    bool cut, end;           /* after out: break the connection, or end the stream */
    unsigned long id;        /* S.watches when it opened */
} stream;

static void stream_free(void *cls)
{
    stream *s = cls;
    pthread_mutex_lock(&S.mu);
    S.open_watches--;
    pthread_mutex_unlock(&S.mu);
    free(s->out.p);
    free(s);
}

static void wait_until(uint64_t t)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = now_ms();
    uint64_t ms = t > now ? t - now : 0;
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&S.cv, &S.mu, &ts);
}

static void set_out(stream *s, const char *p, size_t n)
{
    s->out.len = 0;
    s->off = 0;
    sb_add(&s->out, p, n);
}

static void gone_line(sbuf *b, uint64_t rv)
{
    sb_fmt(b, "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
              "\"status\":\"Failure\",\"message\":\"too old resource version: %" PRIu64 " (%" PRIu64 ")\","
              "\"reason\":\"Expired\",\"code\":410}}\n", rv, S.compacted);
}

/* The event in s->out with its object's "resourceVersion":"RV" written "1". */
static void rv_to_one(stream *s, uint64_t rv)
{
    char key[48];
    int kn = snprintf(key, sizeof key, "\"resourceVersion\":\"%" PRIu64 "\"", rv);
    for (size_t i = 0; i + (size_t)kn <= s->out.len; i++)
        if (memcmp(s->out.p + i, key, (size_t)kn) == 0) {
            size_t digits = (size_t)kn - 20; /* "resourceVersion":" is 19, the quote after 1 */
            char *at = s->out.p + i + 19;
            at[0] = '1';
            memmove(at + 1, at + digits, s->out.len - (i + 19 + digits));
            s->out.len -= digits - 1;
            return;
        }
}

/* In thread-per-connection mode this may block: it waits for events under S.cv. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    stream *s = cls;
    res_store *rs = &S.res[s->r];
    (void)pos;
    pthread_mutex_lock(&S.mu);
    for (;;) {
        if (S.shutdown) {
            pthread_mutex_unlock(&S.mu);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        if (s->off < s->out.len) {
            size_t n = s->out.len - s->off;
            if (S.chunk) {
                size_t want = 1 + (S.chunk_n++ * 7) % S.chunk;
                if (n > want)
                    n = want;
            }
            if (n > max)
                n = max;
            memcpy(buf, s->out.p + s->off, n);
            s->off += n;
            pthread_mutex_unlock(&S.mu);
            return (ssize_t)n;
        }
        if (s->cut) {
            pthread_mutex_unlock(&S.mu);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        if (s->end) {
            pthread_mutex_unlock(&S.mu);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        uint64_t now = now_ms();
        if (rs->silent_gen != s->silent_gen) {
            s->silent_gen = rs->silent_gen;
            s->silent = true;
            s->silent_until = now + rs->silent_ms;
        }
        if (s->silent) {
            if (now >= s->silent_until) {
                pthread_mutex_unlock(&S.mu);
                return MHD_CONTENT_READER_END_WITH_ERROR;
            }
            wait_until(s->silent_until);
            continue;
        }
        if (rs->close_gen != s->close_gen || now >= s->deadline) {
            s->end = true;
            continue;
        }
        /* the first event after pos */
        size_t lo = 0, hi = rs->nev;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (rs->ev[mid].rv <= s->pos)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < rs->nev) {
            event *e = &rs->ev[lo];
            set_out(s, e->line, e->len);
            s->pos = e->rv;
            if (rs->cut > 0) {
                rs->cut--;
                S.cuts++;
                s->out.len = e->len / 2;
                s->cut = true;
            } else if (rs->stall_ms > 0) {
                S.stalls++;
                s->out.len = e->len / 2;
                s->silent = true;
                s->silent_until = now + rs->stall_ms;
                rs->stall_ms = 0;
            } else if (rs->garbage > 0 && e->len > 16) {
                rs->garbage--;
                S.garbled++;
                memcpy(s->out.p + e->len / 2, "\x01\xff}{\"x", 6);
            } else if (rs->rv_back > 0 && s->id > rs->rv_back_after) {
                rs->rv_back--;
                S.rv_backs++;
                rv_to_one(s, e->rv);
            }
            continue;
        }
        if (s->bookmarks && now >= s->next_bookmark) {
            /* no event of this resource up to S.rv: the client may resume from there */
            sbuf b = {0};
            sb_fmt(&b, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"%s\","
                       "\"metadata\":{\"resourceVersion\":\"%" PRIu64 "\"}}}\n",
                   RES[s->r].kind, RES[s->r].api, S.rv);
            set_out(s, b.p, b.len);
            free(b.p);
            s->pos = S.rv;
            s->next_bookmark = now + S.bookmark_ms;
            S.bookmarks++;
            continue;
        }
        uint64_t t = s->deadline;
        if (s->bookmarks && s->next_bookmark < t)
            t = s->next_bookmark;
        wait_until(t);
    }
}

static enum MHD_Result do_watch(struct MHD_Connection *c, int r)
{
    const char *rvs = arg(c, "resourceVersion");
    const char *bm = arg(c, "allowWatchBookmarks");
    long long timeout = num(arg(c, "timeoutSeconds"));
    long long rv = rvs && *rvs ? num(rvs) : -2;
    if (rv == -1)
        return send_status(c, 400, "BadRequest", "invalid resourceVersion", 0);
    pthread_mutex_lock(&S.mu);
    S.watches++;
    res_store *rs = &S.res[r];
    if (rs->gone_http > 0) {
        rs->gone_http--;
        pthread_mutex_unlock(&S.mu);
        return send_status(c, 410, "Expired", "too old resource version", 0);
    }
    stream *s = calloc(1, sizeof *s);
    if (!s)
        die("out of memory");
    s->r = r;
    s->id = S.watches;
    s->pos = rv >= 0 ? (uint64_t)rv : S.rv;
    s->bookmarks = bm && (strcmp(bm, "true") == 0 || strcmp(bm, "1") == 0);
    uint64_t now = now_ms();
    s->deadline = now + (timeout > 0 ? (uint64_t)timeout * 1000u : 1800000u);
    s->next_bookmark = now + S.bookmark_ms;
    s->close_gen = rs->close_gen;
    s->silent_gen = rs->silent_gen;
    /* a start before the compacted history: 200, then an ERROR event, as the API server's
     * watch cache answers (open streams are not affected: compact when they are caught up) */
    bool too_old = rv >= 0 && (uint64_t)rv < S.compacted;
    if (rs->gone_event > 0 || too_old) {
        if (!too_old)
            rs->gone_event--;
        sbuf b = {0};
        gone_line(&b, s->pos);
        set_out(s, b.p, b.len);
        free(b.p);
        s->end = true;
    }
    S.open_watches++;
    pthread_mutex_unlock(&S.mu);
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384,
                                                                  stream_read, s, stream_free);
    if (!resp)
        die("out of memory");
    if (MHD_add_response_header(resp, "Content-Type", "application/json") != MHD_YES)
        die("cannot add a header");
    enum MHD_Result ret = MHD_queue_response(c, 200, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* ---- Control. */

static int res_index(const char *name, size_t n)
{
    for (int r = 0; r < NRES; r++)
        if (strlen(RES[r].name) == n && memcmp(RES[r].name, name, n) == 0)
            return r;
    return -1;
}

static enum MHD_Result control_objects(struct MHD_Connection *c, const char *method, const char *rest,
                                       sbuf *body)
{
    const char *slash = strchr(rest, '/');
    int r = res_index(rest, slash ? (size_t)(slash - rest) : strlen(rest));
    if (r < 0)
        return send_status(c, 404, "NotFound", "no such resource", 0);
    if (strcmp(method, "DELETE") == 0 && slash) {
        char ns[256] = "", name[256];
        const char *a = slash + 1, *sep = strchr(a, '/');
        if (sep) {
            if ((size_t)(sep - a) >= sizeof ns || strlen(sep + 1) >= sizeof name)
                return send_status(c, 400, "BadRequest", "name too long", 0);
            memcpy(ns, a, (size_t)(sep - a));
            ns[sep - a] = '\0';
            strcpy(name, sep + 1);
        } else {
            if (strlen(a) >= sizeof name)
                return send_status(c, 400, "BadRequest", "name too long", 0);
            strcpy(name, a);
        }
        pthread_mutex_lock(&S.mu);
        int rc = delete_object(r, ns, name);
        pthread_cond_broadcast(&S.cv);
        pthread_mutex_unlock(&S.mu);
        if (rc != 0)
            return send_status(c, 404, "NotFound", "no such object", 0);
        sbuf b = {0};
        sb_str(&b, "{}");
        return send_buf(c, 200, &b, 0);
    }
    if (strcmp(method, "POST") != 0 || slash)
        return send_status(c, 405, "MethodNotAllowed", "POST /_control/objects/RES", 0);
    const char *s = body->p ? body->p : "";
    size_t n = body->len, p = 0;
    js_span v;
    if (js_value(s, n, &p, &v) != 0)
        return send_status(c, 400, "BadRequest", "the body is not JSON", 0);
    const char *why = NULL;
    int rc = 0;
    pthread_mutex_lock(&S.mu);
    if (js_is_array(s, v)) {
        js_iter it;
        js_span e;
        js_array_begin(s, v, &it);
        while (rc == 0 && js_array_next(s, &it, &e) == 1)
            rc = put_object(r, s + e.off, e.len, &why);
    } else {
        rc = put_object(r, s + v.off, v.len, &why);
    }
    pthread_cond_broadcast(&S.cv);
    uint64_t rv = S.rv;
    pthread_mutex_unlock(&S.mu);
    if (rc != 0)
        return send_status(c, 400, "BadRequest", why, 0);
    sbuf b = {0};
    sb_fmt(&b, "{\"resourceVersion\":\"%" PRIu64 "\"}", rv);
    return send_buf(c, 200, &b, 0);
}

/* ---- POST /_control/load: files of objects, as the tests keep them (examples/). */

/* Is s[0..n) one JSON number (RFC 8259)? */
static bool json_number(const char *s, size_t n)
{
    size_t p = 0;
    if (p < n && s[p] == '-')
        p++;
    if (p >= n)
        return false;
    if (s[p] == '0')
        p++;
    else if (s[p] >= '1' && s[p] <= '9')
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    else
        return false;
    if (p < n && s[p] == '.') {
        if (++p >= n || s[p] < '0' || s[p] > '9')
            return false;
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    }
    if (p < n && (s[p] == 'e' || s[p] == 'E')) {
        p++;
        if (p < n && (s[p] == '+' || s[p] == '-'))
            p++;
        if (p >= n || s[p] < '0' || s[p] > '9')
            return false;
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    }
    return p == n;
}

/* A JSON string literal of s[0..n) (bytes as they are but '"', '\\' and controls). */
static void sb_jsonn(sbuf *b, const char *s, size_t n)
{
    sb_str(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            sb_add(b, e, 2);
        } else if (c < 0x20) {
            sb_fmt(b, "\\u%04x", c);
        } else {
            sb_add(b, (const char *)&c, 1);
        }
    }
    sb_str(b, "\"");
}

/* A YAML stream as compact JSON documents, one per line. Plain scalars become null (empty,
 * ~, null), true, false, or a number when they are a JSON number, else strings; quoted ones
 * strings; keys strings. Aliases are refused. NULL with *why on error. */
typedef struct ycoll {
    bool map;                    /* a mapping (else a sequence) */
    bool want_key;               /* a mapping: the next node is a key */
    size_t items;                /* elements, or keys, written */
} ycoll;

/* Before a node inside c: the comma, and whether the node is a mapping's key. */
static bool y_node(sbuf *b, ycoll *c)
{
    if (!c)
        return false;
    bool is_key = c->map && c->want_key;
    if (!c->map || is_key) {
        if (c->items++)
            sb_str(b, ",");
    }
    if (c->map)
        c->want_key = !c->want_key;
    return is_key;
}

static char *yaml_to_json(const char *text, size_t len, const char **why)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        die("out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    sbuf b = {0};
    ycoll stack[64];
    int depth = 0;
    bool done = false, ok = true;
    while (!done && ok) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            *why = p.problem ? p.problem : "YAML cannot be parsed";
            ok = false;
            break;
        }
        ycoll *top = depth ? &stack[depth - 1] : NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_END_EVENT:
            sb_str(&b, "\n");
            break;
        case YAML_ALIAS_EVENT:
            *why = "YAML aliases are not supported";
            ok = false;
            break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (y_node(&b, top)) {
                *why = "a mapping key that is not a scalar";
                ok = false;
            } else if (depth == 64) {
                *why = "nesting too deep";
                ok = false;
            } else {
                bool map = ev.type == YAML_MAPPING_START_EVENT;
                stack[depth++] = (ycoll){map, true, 0};
                sb_str(&b, map ? "{" : "[");
            }
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            sb_str(&b, ev.type == YAML_MAPPING_END_EVENT ? "}" : "]");
            break;
        case YAML_SCALAR_EVENT: {
            const char *v = (const char *)ev.data.scalar.value;
            size_t n = ev.data.scalar.length;
            bool plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            if (y_node(&b, top)) {
                sb_jsonn(&b, v, n);
                sb_str(&b, ":");
            } else if (plain && (n == 0 || (n == 1 && v[0] == '~') ||
                                 (n == 4 && memcmp(v, "null", 4) == 0))) {
                sb_str(&b, "null");
            } else if (plain && ((n == 4 && memcmp(v, "true", 4) == 0) ||
                                 (n == 5 && memcmp(v, "false", 5) == 0) ||
                                 json_number(v, n))) {
                sb_add(&b, v, n);
            } else {
                sb_jsonn(&b, v, n);
            }
            break;
        }
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (!ok) {
        free(b.p);
        return NULL;
    }
    if (!b.p)
        sb_str(&b, "");
    return b.p;
}

/* JSON without the whitespace outside strings (put_object takes one line). */
static void compact_json(sbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c != '"') {
            sb_add(b, &c, 1);
            continue;
        }
        size_t j = i + 1;
        while (j < n && s[j] != '"')
            j += s[j] == '\\' ? 2 : 1;
        if (j >= n)
            j = n - 1;
        sb_add(b, s + i, j - i + 1);
        i = j;
    }
}

/* One JSON value of a file: an object of one of the four kinds (by its "kind"), or a List of
 * them. 0, or -1 with *why (S.mu held). */
static int load_value(const char *s, js_span v, const char **why)
{
    static const char *const keys[] = {"kind", "items"};
    js_span kv[2];
    if (!js_is_object(s, v) || js_members(s, v, keys, 2, kv) != 0 || !js_is_string(s, kv[0])) {
        *why = "an object with a kind is expected";
        return -1;
    }
    char kind[64];
    size_t kn;
    if (kv[0].len >= sizeof kind || js_string(s, kv[0], kind, &kn) != 0) {
        *why = "an unknown kind";
        return -1;
    }
    if (strcmp(kind, "List") == 0) {
        js_iter it;
        js_span e;
        if (!js_is_array(s, kv[1]) || js_array_begin(s, kv[1], &it) != 0) {
            *why = "a List without items";
            return -1;
        }
        while (js_array_next(s, &it, &e) == 1)
            if (load_value(s, e, why) != 0)
                return -1;
        return 0;
    }
    for (int r = 0; r < NRES; r++)
        if (strcmp(kind, RES[r].kind) == 0) {
            sbuf c = {0};
            compact_json(&c, s + v.off, v.len);
            int rc = put_object(r, c.p, c.len, why);
            free(c.p);
            return rc;
        }
    *why = "a kind other than ResourceSlice, DeviceClass, ResourceClaim or Node";
    return -1;
}

/* POST /_control/load: JSON (the body starts with '{' or '['), else a YAML stream. All or
 * nothing is not promised: objects before a bad one stay. */
static enum MHD_Result control_load(struct MHD_Connection *c, sbuf *body)
{
    const char *s = body->p ? body->p : "";
    size_t n = body->len, i = 0;
    while (i < n && strchr(" \t\r\n", s[i]))
        i++;
    const char *why = NULL;
    char *conv = NULL;
    if (i == n || (s[i] != '{' && s[i] != '[')) {
        if (!(conv = yaml_to_json(s, n, &why)))
            return send_status(c, 400, "BadRequest", why, 0);
        s = conv;
        n = strlen(conv);
    }
    int rc = 0;
    size_t p = 0, count = 0;
    pthread_mutex_lock(&S.mu);
    for (;;) {
        while (p < n && strchr(" \t\r\n", s[p]))
            p++;
        if (p >= n)
            break;
        js_span v;
        if (js_value(s, n, &p, &v) != 0) {
            why = "the body is not JSON";
            rc = -1;
            break;
        }
        if (v.len == 4 && memcmp(s + v.off, "null", 4) == 0)
            continue; /* an empty YAML document */
        if (js_is_array(s, v)) {
            js_iter it;
            js_span e;
            js_array_begin(s, v, &it);
            while (rc == 0 && js_array_next(s, &it, &e) == 1)
                rc = load_value(s, e, &why);
        } else {
            rc = load_value(s, v, &why);
        }
        if (rc != 0)
            break;
        count++;
    }
    pthread_cond_broadcast(&S.cv);
    uint64_t rv = S.rv;
    pthread_mutex_unlock(&S.mu);
    free(conv);
    if (rc != 0)
        return send_status(c, 400, "BadRequest", why, 0);
    sbuf b = {0};
    sb_fmt(&b, "{\"resourceVersion\":\"%" PRIu64 "\",\"documents\":%zu}", rv, count);
    return send_buf(c, 200, &b, 0);
}

static int jint(const cJSON *j, const char *name, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : cJSON_IsTrue(v) ? 1 : dflt;
}

/* POST /_control/fault: a JSON object of
 *   "res": "resourceslices"  the resource the stream faults apply to (default: every one)
 *   "cut": N                 the next N events written are cut after half their bytes, and the
 *                            connection broken
 *   "gone": "http"|"event"   the next watch is answered with HTTP 410, or with 200 and an ERROR
 *                            event with code 410 ("count": N for more than one)
 *   "close": true            open streams end, as after timeoutSeconds
 *   "silent_ms": N           open streams send nothing for N ms (no bookmarks), then break
 *   "garbage": N             the next N events written have 6 bytes in their middle that are
 *                            not JSON (the stream goes on)
 *   "rv_back": N             the next N events written say "resourceVersion":"1", before
 *                            every earlier one (the stream goes on from the real one), in
 *                            streams opened after this fault (with "close": the clients' next)
 *   "stall_ms": N            the next event written stops after half its bytes; the stream
 *                            then sends nothing for N ms, then breaks
 *   "compact": true          the history is compacted now
 *   "compact_after_page": true  ... after the next list page that has a continue token
 *   "errors": N, "status": S, "retry_after": SEC  the next N API requests get HTTP S (500);
 *                            0 ends the errors left
 *   "delays": N, "delay_ms": MS  the next N API requests wait MS first
 *                            (errors and delays: of "res" only when it is given, so that a
 *                            test knows which resource meets them)
 *   "tokens": ["T", ...]     the bearer tokens accepted from now on ([] or null: any request)
 *   "chunk": N               stream writes of 1 to N bytes (0: whole)
 *   "bookmark_ms": N         the interval of BOOKMARK events
 *   "write_errors": N, "write_status": S, "write_retry_after": SEC  the next N writes (of
 *                            Events) get HTTP S (500) */
static enum MHD_Result control_fault(struct MHD_Connection *c, sbuf *body)
{
    const char *end;
    /* cJSON's parser writes a process-wide error position: parse under the store's lock */
    pthread_mutex_lock(&S.mu);
    cJSON *j = cJSON_ParseWithLengthOpts(body->p ? body->p : "", body->len, &end, 0);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "res");
    int only = -1;
    if (!cJSON_IsObject(j) ||
        (cJSON_IsString(res) && (only = res_index(res->valuestring, strlen(res->valuestring))) < 0)) {
        pthread_mutex_unlock(&S.mu);
        cJSON_Delete(j);
        return send_status(c, 400, "BadRequest", "a JSON object with a known res is expected", 0);
    }
    const cJSON *gone = cJSON_GetObjectItemCaseSensitive(j, "gone");
    for (int r = 0; r < NRES; r++) {
        if (only >= 0 && r != only)
            continue;
        res_store *rs = &S.res[r];
        rs->cut += jint(j, "cut", 0);
        if (cJSON_IsString(gone)) {
            int count = jint(j, "count", 1);
            if (strcmp(gone->valuestring, "http") == 0)
                rs->gone_http += count;
            else
                rs->gone_event += count;
        }
        if (jint(j, "close", 0))
            rs->close_gen++;
        rs->garbage += jint(j, "garbage", 0);
        if (jint(j, "rv_back", 0) > 0) {
            rs->rv_back += jint(j, "rv_back", 0);
            rs->rv_back_after = S.watches;
        }
        int stall = jint(j, "stall_ms", 0);
        if (stall > 0)
            rs->stall_ms = (unsigned)stall;
        int silent = jint(j, "silent_ms", 0);
        if (silent > 0) {
            rs->silent_ms = (unsigned)silent;
            rs->silent_gen++;
        }
    }
    if (jint(j, "compact", 0))
        compact();
    if (jint(j, "compact_after_page", 0))
        S.compact_after_page = true;
    int errors = jint(j, "errors", -1);
    if (errors >= 0) { /* 0: none more */
        S.errors = errors;
        S.error_status = jint(j, "status", 500);
        S.retry_after = jint(j, "retry_after", 0);
        S.errors_res = only;
    }
    int delays = jint(j, "delays", 0);
    if (delays > 0) {
        S.delays = delays;
        S.delay_ms = (unsigned)jint(j, "delay_ms", 1000);
        S.delays_res = only;
    }
    const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(j, "tokens");
    if (tokens) {
        for (size_t i = 0; i < S.ntokens; i++)
            free(S.tokens[i]);
        S.ntokens = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, tokens) {
            if (cJSON_IsString(t)) {
                S.tokens = xrealloc(S.tokens, (S.ntokens + 1) * sizeof *S.tokens);
                S.tokens[S.ntokens++] = xstrdup(t->valuestring);
            }
        }
    }
    if (cJSON_GetObjectItemCaseSensitive(j, "chunk")) {
        S.chunk = (size_t)jint(j, "chunk", 0);
        S.chunk_n = 0;
    }
    int we = jint(j, "write_errors", -1);
    if (we >= 0) {
        S.write_errors = we;
        S.write_status = jint(j, "write_status", 500);
        S.write_retry_after = jint(j, "write_retry_after", 0);
    }
    int bm = jint(j, "bookmark_ms", 0);
    if (bm > 0)
        S.bookmark_ms = (unsigned)bm;
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
    cJSON_Delete(j);
    sbuf b = {0};
    sb_str(&b, "{}");
    return send_buf(c, 200, &b, 0);
}

static int cmp_state(const void *a, const void *b)
{
    const version *x = *(const version *const *)a, *y = *(const version *const *)b;
    return cmp_version(&x, &y);
}

static enum MHD_Result control_state(struct MHD_Connection *c)
{
    sbuf b = {0};
    pthread_mutex_lock(&S.mu);
    sb_fmt(&b, "{\"rv\":\"%" PRIu64 "\",\"compacted\":\"%" PRIu64 "\",\"lists\":%lu,\"watches\":%lu,"
               "\"open_watches\":%lu,\"unauthorized\":%lu,\"failed\":%lu,\"bookmarks\":%lu,\"cuts\":%lu,"
               "\"garbled\":%lu,\"rv_backs\":%lu,\"stalls\":%lu,\n"
               "\"objects\":[\n",
           S.rv, S.compacted, S.lists, S.watches, S.open_watches, S.unauthorized, S.failed,
           S.bookmarks, S.cuts, S.garbled, S.rv_backs, S.stalls);
    bool first = true;
    for (int r = 0; r < NRES; r++) {
        size_t n;
        version **vs = snapshot(r, S.rv, &n);
        qsort(vs, n, sizeof *vs, cmp_state);
        for (size_t i = 0; i < n; i++) {
            sb_str(&b, first ? "[" : ",[");
            first = false;
            sb_json(&b, RES[r].name);
            sb_str(&b, ",");
            sb_json(&b, vs[i]->ns);
            sb_str(&b, ",");
            sb_json(&b, vs[i]->name);
            sb_str(&b, ",");
            sb_add(&b, vs[i]->text, vs[i]->len);
            sb_str(&b, "]\n");
        }
        free(vs);
    }
    pthread_mutex_unlock(&S.mu);
    sb_str(&b, "]}\n");
    return send_buf(c, 200, &b, 0);
}

static bool authorized(struct MHD_Connection *c);

/* ---- Writes: events.k8s.io/v1 Events in a namespace.
 *   POST  /apis/events.k8s.io/v1/namespaces/NS/events       create (409 when the name exists)
 *   PATCH /apis/events.k8s.io/v1/namespaces/NS/events/NAME  a strategic merge patch (objects
 *                                                           merged, other values replaced)
 * Both are recorded, in order, for GET /_control/writes; GET /_control/events lists the Events
 * stored. A write's body must be a JSON object of at most MAX_BODY bytes. */

static void merge(cJSON *dst, const cJSON *patch)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, patch) {
        cJSON *d = cJSON_GetObjectItemCaseSensitive(dst, p->string);
        if (cJSON_IsNull(p)) {
            cJSON_DeleteItemFromObjectCaseSensitive(dst, p->string);
        } else if (cJSON_IsObject(p) && cJSON_IsObject(d)) {
            merge(d, p);
        } else {
            cJSON *copy = cJSON_Duplicate(p, 1);
            if (d)
                cJSON_ReplaceItemInObjectCaseSensitive(dst, p->string, copy);
            else
                cJSON_AddItemToObject(dst, p->string, copy);
        }
    }
}

/* Record a write for GET /_control/writes (S.mu held); its body parsed (NULL: not JSON). */
static cJSON *record_write(const char *method, const char *url, const char *ct, const sbuf *body)
{
    cJSON *j = cJSON_ParseWithLength(body->p ? body->p : "", body->len);
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddStringToObject(rec, "method", method);
    cJSON_AddStringToObject(rec, "path", url);
    cJSON_AddStringToObject(rec, "contentType", ct ? ct : "");
    cJSON_AddNumberToObject(rec, "atMs", (double)now_ms());
    cJSON_AddItemToObject(rec, "body", j ? cJSON_Duplicate(j, 1) : cJSON_CreateNull());
    cJSON_AddItemToArray(S.writes, rec);
    return j;
}

static cJSON *find_event(const char *ns, const char *name)
{
    cJSON *e;
    cJSON_ArrayForEach(e, S.events) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "metadata");
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "name");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(m, "namespace");
        if (cJSON_IsString(n) && cJSON_IsString(s) && strcmp(n->valuestring, name) == 0 &&
            strcmp(s->valuestring, ns) == 0)
            return e;
    }
    return NULL;
}

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned status, const cJSON *j)
{
    char *t = cJSON_PrintUnformatted(j);
    sbuf b = {0};
    sb_str(&b, t ? t : "{}");
    free(t);
    return send_buf(c, status, &b, 0);
}

static enum MHD_Result do_write(struct MHD_Connection *c, const char *url, const char *method,
                                sbuf *body)
{
    static const char pre[] = "/apis/events.k8s.io/v1/namespaces/";
    char ns[256], name[512] = "";
    const char *p = url + sizeof pre - 1, *sl = strchr(p, '/');
    if (!sl || (size_t)(sl - p) >= sizeof ns || sl == p)
        return send_status(c, 404, "NotFound", "the server could not find the requested resource", 0);
    memcpy(ns, p, (size_t)(sl - p));
    ns[sl - p] = '\0';
    if (strncmp(sl, "/events", 7) != 0 || (sl[7] && sl[7] != '/'))
        return send_status(c, 404, "NotFound", "the server could not find the requested resource", 0);
    if (sl[7] == '/')
        snprintf(name, sizeof name, "%s", sl + 8);
    bool create = !name[0];
    if (create ? strcmp(method, "POST") != 0 : strcmp(method, "PATCH") != 0)
        return send_status(c, 405, "MethodNotAllowed", "POST to events, PATCH to an event", 0);
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    pthread_mutex_lock(&S.mu);
    if (!authorized(c)) {
        S.unauthorized++;
        pthread_mutex_unlock(&S.mu);
        return send_status(c, 401, "Unauthorized", "Unauthorized", 0);
    }
    cJSON *j = record_write(method, url, ct, body);
    enum MHD_Result res;
    if (S.write_errors > 0) {
        S.write_errors--;
        S.failed++;
        unsigned status = (unsigned)S.write_status;
        int ra = S.write_retry_after;
        pthread_mutex_unlock(&S.mu);
        cJSON_Delete(j);
        return send_status(c, status, status == 429 ? "TooManyRequests" : "InternalError",
                           "injected failure", ra);
    }
    if (!cJSON_IsObject(j)) {
        res = send_status(c, 400, "BadRequest", "the body is not a JSON object", 0);
    } else if (create) {
        cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "metadata");
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(m, "name");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(m, "namespace");
        if (!cJSON_IsString(n) || (s && (!cJSON_IsString(s) || strcmp(s->valuestring, ns) != 0))) {
            res = send_status(c, 422, "Invalid", "metadata.name is required; metadata.namespace "
                              "must be the request's", 0);
        } else if (find_event(ns, n->valuestring)) {
            res = send_status(c, 409, "AlreadyExists", "events.events.k8s.io already exists", 0);
        } else {
            char v[32];
            snprintf(v, sizeof v, "%" PRIu64, ++S.rv);
            cJSON_DeleteItemFromObjectCaseSensitive(m, "resourceVersion");
            cJSON_AddStringToObject(m, "resourceVersion", v);
            snprintf(v, sizeof v, "event-uid-%lu", ++S.event_uid);
            cJSON_AddStringToObject(m, "uid", v);
            if (!s)
                cJSON_AddStringToObject(m, "namespace", ns);
            cJSON_AddItemToArray(S.events, cJSON_Duplicate(j, 1));
            res = send_json(c, 201, j);
        }
    } else if (!ct || strcmp(ct, "application/strategic-merge-patch+json") != 0) {
        res = send_status(c, 415, "UnsupportedMediaType",
                          "the patch's content type is not strategic-merge-patch+json", 0);
    } else {
        cJSON *e = find_event(ns, name);
        if (!e) {
            res = send_status(c, 404, "NotFound", "events.events.k8s.io not found", 0);
        } else {
            merge(e, j);
            res = send_json(c, 200, e);
        }
    }
    pthread_mutex_unlock(&S.mu);
    cJSON_Delete(j);
    return res;
}

/* PATCH /api/v1/namespaces/NS/pods/NAME/status: a strategic merge patch of a pod's status, of
 * which conditions merge by type (their patchMergeKey), as the API server merges them. Any pod
 * is taken (the fake keeps no pods): GET /_control/pods lists the statuses patched. */
static void merge_conditions(cJSON *status, const cJSON *patch)
{
    const cJSON *pc = cJSON_GetObjectItemCaseSensitive(patch, "conditions");
    cJSON *have = cJSON_GetObjectItemCaseSensitive(status, "conditions");
    if (!cJSON_IsArray(have)) {
        have = cJSON_CreateArray();
        cJSON_AddItemToObject(status, "conditions", have);
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, pc) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "type");
        cJSON *old = NULL, *h;
        cJSON_ArrayForEach(h, have) {
            const cJSON *ht = cJSON_GetObjectItemCaseSensitive(h, "type");
            if (cJSON_IsString(t) && cJSON_IsString(ht) && strcmp(t->valuestring, ht->valuestring) == 0)
                old = h;
        }
        if (old)
            merge(old, c);
        else
            cJSON_AddItemToArray(have, cJSON_Duplicate(c, 1));
    }
}

static enum MHD_Result do_pod_status(struct MHD_Connection *c, const char *url, const char *method,
                                     sbuf *body)
{
    char ns[256], name[512];
    const char *p = url + 19, *sl = strchr(p, '/');
    if (!sl || sl == p || (size_t)(sl - p) >= sizeof ns || strncmp(sl, "/pods/", 6) != 0)
        return send_status(c, 404, "NotFound", "the server could not find the requested resource", 0);
    memcpy(ns, p, (size_t)(sl - p));
    ns[sl - p] = '\0';
    const char *n = sl + 6, *st = strchr(n, '/');
    if (!st || strcmp(st, "/status") != 0 || st == n || (size_t)(st - n) >= sizeof name)
        return send_status(c, 404, "NotFound", "the server could not find the requested resource", 0);
    memcpy(name, n, (size_t)(st - n));
    name[st - n] = '\0';
    if (strcmp(method, "PATCH") != 0)
        return send_status(c, 405, "MethodNotAllowed", "PATCH only", 0);
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    pthread_mutex_lock(&S.mu);
    if (!authorized(c)) {
        S.unauthorized++;
        pthread_mutex_unlock(&S.mu);
        return send_status(c, 401, "Unauthorized", "Unauthorized", 0);
    }
    cJSON *j = record_write(method, url, ct, body);
    enum MHD_Result res;
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(j, "status");
    if (!cJSON_IsObject(j) || !cJSON_IsObject(ps)) {
        res = send_status(c, 400, "BadRequest", "a JSON object with a status is expected", 0);
    } else if (!ct || strcmp(ct, "application/strategic-merge-patch+json") != 0) {
        res = send_status(c, 415, "UnsupportedMediaType",
                          "the patch's content type is not strategic-merge-patch+json", 0);
    } else {
        cJSON *pod = NULL, *x;
        cJSON_ArrayForEach(x, S.pods) {
            if (strcmp(cJSON_GetObjectItemCaseSensitive(x, "namespace")->valuestring, ns) == 0 &&
                strcmp(cJSON_GetObjectItemCaseSensitive(x, "name")->valuestring, name) == 0)
                pod = x;
        }
        if (!pod) {
            pod = cJSON_CreateObject();
            cJSON_AddStringToObject(pod, "namespace", ns);
            cJSON_AddStringToObject(pod, "name", name);
            cJSON_AddItemToObject(pod, "status", cJSON_CreateObject());
            cJSON_AddItemToArray(S.pods, pod);
        }
        merge_conditions(cJSON_GetObjectItemCaseSensitive(pod, "status"), ps);
        res = send_json(c, 200, pod);
    }
    pthread_mutex_unlock(&S.mu);
    cJSON_Delete(j);
    return res;
}

static bool authorized(struct MHD_Connection *c)
{
    if (S.ntokens == 0)
        return true;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!h || strncmp(h, "Bearer ", 7) != 0)
        return false;
    for (size_t i = 0; i < S.ntokens; i++)
        if (strcmp(h + 7, S.tokens[i]) == 0)
            return true;
    return false;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *http_version, const char *upload,
                              size_t *upload_size, void **req_cls)
{
    (void)cls;
    (void)http_version;
    request *rq = *req_cls;
    if (!rq) {
        if (!(rq = calloc(1, sizeof *rq)))
            die("out of memory");
        *req_cls = rq;
        return MHD_YES;
    }
    if (*upload_size) {
        if (rq->body.len + *upload_size > MAX_BODY)
            rq->too_big = true;
        else
            sb_add(&rq->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (rq->too_big)
        return send_status(c, 413, "RequestEntityTooLarge", "body too large", 0);
    if (strncmp(url, "/_control/", 10) == 0) {
        if (strncmp(url, "/_control/objects/", 18) == 0)
            return control_objects(c, method, url + 18, &rq->body);
        if (strcmp(url, "/_control/fault") == 0 && strcmp(method, "POST") == 0)
            return control_fault(c, &rq->body);
        if (strcmp(url, "/_control/state") == 0)
            return control_state(c);
        if (strcmp(url, "/_control/load") == 0 && strcmp(method, "POST") == 0)
            return control_load(c, &rq->body);
        if (strcmp(url, "/_control/serve") == 0 && strcmp(method, "POST") == 0) {
            pthread_mutex_lock(&S.mu);
            cJSON *j = cJSON_ParseWithLength(rq->body.p ? rq->body.p : "", rq->body.len);
            const char *sp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "path"));
            bool ok = sp && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "object"));
            if (ok)
                cJSON_AddItemToArray(S.served, j);
            else
                cJSON_Delete(j);
            pthread_mutex_unlock(&S.mu);
            return ok ? send_status(c, 200, "OK", "served", 0)
                      : send_status(c, 400, "BadRequest", "{\"path\":...,\"object\":{...}} expected", 0);
        }
        if (strcmp(url, "/_control/writes") == 0 || strcmp(url, "/_control/events") == 0 ||
            strcmp(url, "/_control/pods") == 0) {
            pthread_mutex_lock(&S.mu);
            enum MHD_Result res = send_json(c, 200, url[10] == 'w'   ? S.writes
                                                    : url[10] == 'e' ? S.events
                                                                     : S.pods);
            pthread_mutex_unlock(&S.mu);
            return res;
        }
        return send_status(c, 404, "NotFound", "no such control", 0);
    }
    if (strcmp(method, "GET") == 0) {
        pthread_mutex_lock(&S.mu);
        const cJSON *x, *hit = NULL;
        cJSON_ArrayForEach(x, S.served) {
            if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "path")), url) == 0)
                hit = cJSON_GetObjectItemCaseSensitive(x, "object");
        }
        bool auth = authorized(c);
        enum MHD_Result res = MHD_NO;
        if (hit && auth)
            res = send_json(c, 200, hit);
        else if (hit)
            S.unauthorized++;
        pthread_mutex_unlock(&S.mu);
        if (hit)
            return auth ? res : send_status(c, 401, "Unauthorized", "Unauthorized", 0);
    }
    if (strncmp(url, "/apis/events.k8s.io/v1/namespaces/", 34) == 0)
        return do_write(c, url, method, &rq->body);
    if (strncmp(url, "/api/v1/namespaces/", 19) == 0)
        return do_pod_status(c, url, method, &rq->body);
    int r = -1;
    for (int i = 0; i < NRES; i++)
        if (strcmp(url, RES[i].path) == 0)
            r = i;
    if (r < 0)
        return send_status(c, 404, "NotFound", "the server could not find the requested resource", 0);
    if (strcmp(method, "GET") != 0)
        return send_status(c, 405, "MethodNotAllowed", "GET only", 0);
    pthread_mutex_lock(&S.mu);
    unsigned delay = 0;
    if (S.delays > 0 && (S.delays_res < 0 || S.delays_res == r)) {
        S.delays--;
        delay = S.delay_ms;
    }
    pthread_mutex_unlock(&S.mu);
    if (delay)
        usleep(delay * 1000u);
    pthread_mutex_lock(&S.mu);
    if (!authorized(c)) {
        S.unauthorized++;
        pthread_mutex_unlock(&S.mu);
        return send_status(c, 401, "Unauthorized", "Unauthorized", 0);
    }
    if (S.errors > 0 && (S.errors_res < 0 || S.errors_res == r)) {
        S.errors--;
        S.failed++;
        unsigned status = (unsigned)S.error_status;
        int ra = S.retry_after;
        pthread_mutex_unlock(&S.mu);
        return send_status(c, status, status == 429 ? "TooManyRequests" : "InternalError",
                           "injected failure", ra);
    }
    pthread_mutex_unlock(&S.mu);
    const char *w = arg(c, "watch");
    if (w && (strcmp(w, "1") == 0 || strcmp(w, "true") == 0))
        return do_watch(c, r);
    return do_list(c, r);
}

static void completed(void *cls, struct MHD_Connection *c, void **req_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    request *rq = *req_cls;
    if (rq) {
        free(rq->body.p);
        free(rq);
        *req_cls = NULL;
    }
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    sbuf b = {0};
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        sb_add(&b, tmp, n);
    if (ferror(f))
        die("%s: read error", path);
    fclose(f);
    if (!b.p)
        die("%s: empty", path);
    return b.p;
}

int main(int argc, char **argv)
{
    const char *cert = NULL, *key = NULL;
    S.bookmark_ms = 1000;
    S.events = cJSON_CreateArray();
    S.writes = cJSON_CreateArray();
    S.pods = cJSON_CreateArray();
    S.served = cJSON_CreateArray();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tls-cert") == 0 && i + 1 < argc) {
            cert = argv[++i];
        } else if (strcmp(argv[i], "--tls-key") == 0 && i + 1 < argc) {
            key = argv[++i];
        } else if (strcmp(argv[i], "--token") == 0 && i + 1 < argc) {
            S.tokens = xrealloc(S.tokens, (S.ntokens + 1) * sizeof *S.tokens);
            S.tokens[S.ntokens++] = xstrdup(argv[++i]);
        } else if (strcmp(argv[i], "--bookmark-ms") == 0 && i + 1 < argc) {
            long long v = num(argv[++i]);
            if (v <= 0)
                die("--bookmark-ms: a positive number is expected");
            S.bookmark_ms = (unsigned)v;
        } else {
            fprintf(stderr, "usage: fakeapi [--tls-cert PEM --tls-key PEM] [--token T] [--bookmark-ms N]\n");
            return 2;
        }
    }
    if (!cert != !key)
        die("--tls-cert and --tls-key go together");
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0 || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&S.cv, &ca) != 0 || pthread_mutex_init(&S.mu, NULL) != 0)
        die("cannot initialise the store's lock");
    pthread_condattr_destroy(&ca);

    /* the signals are taken by sigwait below: block them before any thread starts */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    if (pthread_sigmask(SIG_BLOCK, &sigs, NULL) != 0)
        die("pthread_sigmask failed");
    signal(SIGPIPE, SIG_IGN);

    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = 0;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    char *cert_pem = NULL, *key_pem = NULL;
    struct MHD_Daemon *d;
    if (cert) {
        cert_pem = read_file(cert);
        key_pem = read_file(key);
        d = MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handle, NULL,
                             MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                             MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                             MHD_OPTION_HTTPS_MEM_CERT, cert_pem, MHD_OPTION_HTTPS_MEM_KEY, key_pem,
                             MHD_OPTION_END);
    } else {
        d = MHD_start_daemon(flags, 0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR,
                             (struct sockaddr *)&sa, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                             MHD_OPTION_END);
    }
    if (!d)
        die("cannot start the HTTP server");
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    if (!info || !info->port)
        die("cannot read the port");
    printf("%u\n", (unsigned)info->port);
    if (fflush(stdout) != 0)
        die("cannot write the port");

    int sig;
    if (sigwait(&sigs, &sig) != 0)
        die("sigwait failed");
    pthread_mutex_lock(&S.mu);
    S.shutdown = true;
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
    MHD_stop_daemon(d);
    for (int r = 0; r < NRES; r++) {
        res_store *rs = &S.res[r];
        for (size_t i = 0; i < rs->nv; i++) {
            free(rs->v[i].ns);
            free(rs->v[i].name);
            free(rs->v[i].text);
        }
        for (size_t i = 0; i < rs->nev; i++)
            free(rs->ev[i].line);
        free(rs->v);
        free(rs->ev);
    }
    for (size_t i = 0; i < S.ntokens; i++)
        free(S.tokens[i]);
    free(S.tokens);
    free(cert_pem);
    free(key_pem);
    return 0;
}
