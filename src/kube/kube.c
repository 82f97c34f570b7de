/*
 * kube.c: the Kubernetes API client of dra-extender (kube.h): per resource, one thread running
 * client-go's reflector loop (LIST in pages, then WATCH from the list's resourceVersion,
 * resuming from the last resourceVersion seen) with libcurl.
 *
 * Each thread drives its own easy handle through its own multi handle, so that kube_stop can
 * wake a thread blocked on a silent stream at once (curl_multi_wakeup) instead of waiting for
 * a progress callback, and so that the idle timeout is measured exactly (the time since the
 * last byte) rather than through CURLOPT_LOW_SPEED_*, whose speed is averaged over a window of
 * about five seconds. Backoff sleeps wait on a condition variable that kube_stop signals.
 *
 * Invariants: the sink gets a resource's list only whole (every page read, parsed and within
 * max_list_bytes); objects are the server's bytes (pages and event lines are kept until the sink
 * returns); the resourceVersion a watch resumes from is that of the last event or bookmark
 * delivered, or of the list.
 *
 * Changes with: kube.h, watch.c (formats), kubeconfig.c (connection settings),
 * tests/extender/ (fakeapi.c serves what this reads; watch.sh pins the behaviour),
 * docs/extender-watch.md (the numbers below).
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "kube.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "dracel.h"
#include "kubeconfig.h"
#include "watch.h"

enum {
    ERR_BODY_MAX = 64 << 10, /* bytes of an error response kept for its message */
    SHORT_WATCH_MS = 1000,   /* a watch that ends sooner, without an event, failed */
    FIRST_PAGE_CAP = 64 << 10,
};

static const struct {
    const char *name, *path;
} resources[KUBE__N] = {
    [KUBE_SLICES] = {"resourceslices", "/apis/resource.k8s.io/v1/resourceslices"},
    [KUBE_CLASSES] = {"deviceclasses", "/apis/resource.k8s.io/v1/deviceclasses"},
    [KUBE_CLAIMS] = {"resourceclaims", "/apis/resource.k8s.io/v1/resourceclaims"},
    [KUBE_NODES] = {"nodes", "/api/v1/nodes"},
    [KUBE_RULES] = {"devicetaintrules", NULL}, /* the version is configured */
};

/* Why a transfer was cut short by the client. */
typedef enum abort_why {
    AB_NONE,
    AB_STOP,      /* kube_stop */
    AB_IDLE,      /* nothing received for idle_timeout_s */
    AB_TOO_BIG,   /* a list passed max_list_bytes */
    AB_LONG_LINE, /* a watch event passed max_object_bytes */
    AB_BAD_EVENT, /* a watch line that is not a valid event */
    AB_GONE,      /* an ERROR event with code 410 */
    AB_ERR_EVENT, /* another ERROR event */
    AB_SINK,      /* the sink refused an event */
    AB_NOMEM,
} abort_why;

/* What ended a watch, and what the loop does next. */
typedef enum wres {
    W_END,    /* ended cleanly: watch again at once */
    W_ERROR,  /* back off, then watch again from the last resourceVersion */
    W_GONE,   /* 410: list again (at once the first time) */
    W_RELIST, /* back off, then list again */
    W_STOP,
} wres;

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

typedef struct res_state {
    kube *k;
    kube_res r;
    bool on;             /* read (an optional resource may not be) */
    char path[96];       /* its API path */
    pthread_t thread;
    bool thread_started;
    CURL *easy;
    CURLM *multi;
    atomic_bool synced;
    buf rv;              /* the last resourceVersion seen (NUL-terminated), empty before a list */
    unsigned failures;   /* failed attempts since the last progress */
    uint64_t rng;        /* xorshift64 state, for jitter */
    uint64_t retry_after_ms; /* the last response's Retry-After */
    char *token;         /* the last token read from the token file */
    char reason[448];    /* why the next list happens (KUBE_NOTE_RELIST) */
    /* the transfer in progress */
    bool watching;       /* a WATCH (lines), or a LIST (a page in body) */
    long http;           /* the response status, 0 until the headers came */
    abort_why abort;
    char why[400];       /* the detail of abort */
    buf body;            /* a LIST page, or the start of an error response */
    size_t body_cap;     /* the most a LIST page may take */
    kw_lines lines;
    buf meta;            /* an event's metadata strings */
    bool progress;       /* a watch line was read */
    bool writer;         /* a kube_writer's state: no resource, no notes, 2xx bodies dropped
                            (unless keep) */
    bool keep;           /* kube_read: the 2xx body is kept, at most body_cap bytes */
    atomic_bool halt;    /* kube_writer_halt: the request in progress ends now */
    uint64_t deadline;   /* monotonic ms a writer's request must end by (0: none) */
    uint64_t last_rx;    /* monotonic ms of the last byte received */
    char errbuf[CURL_ERROR_SIZE];
} res_state;

struct kube {
    kube_config cfg; /* defaults applied; the file names are not kept */
    kube_sink sink;
    kc_conf conn;
    char *ua;
    atomic_bool stop;
    bool started, stopped;
    pthread_mutex_t mu; /* with cv: backoff sleeps, woken by kube_stop */
    pthread_cond_t cv;
    res_state res[KUBE__N];
};

const char *kube_res_name(kube_res r)
{
    return (unsigned)r < KUBE__N ? resources[r].name : "?";
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t rnd(res_state *rs)
{
    uint64_t x = rs->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rs->rng = x;
}

/* Room for n more bytes and a NUL after them. */
static int buf_reserve(buf *b, size_t n)
{
    if (!b->p || n >= b->cap - b->len) {
        if (n >= (size_t)-1 - b->len)
            return -1;
        size_t want = b->len + n + 1, cap = b->cap ? b->cap : 256;
        while (cap < want)
            cap = cap > (size_t)-1 / 2 ? want : cap * 2;
        char *np = realloc(b->p, cap);
        if (!np)
            return -1;
        b->p = np;
        b->cap = cap;
    }
    return 0;
}

static int buf_add(buf *b, const char *p, size_t n)
{
    if (buf_reserve(b, n) != 0)
        return -1;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

static int buf_set(buf *b, const char *s)
{
    b->len = 0;
    return buf_add(b, s, strlen(s));
}

static void note(res_state *rs, kube_note what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note(res_state *rs, kube_note what, const char *fmt, ...)
{
    const kube_sink *s = &rs->k->sink;
    if (!s->note || rs->writer)
        return;
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    s->note(s->ctx, rs->r, what, detail);
}

static bool stopping(kube *k)
{
    return atomic_load(&k->stop);
}

/* Sleep ms unless kube_stop comes first: false when it did. */
static bool sleep_ms(kube *k, uint64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&k->mu);
    while (!stopping(k))
        if (pthread_cond_timedwait(&k->cv, &k->mu, &ts) == ETIMEDOUT)
            break;
    pthread_mutex_unlock(&k->mu);
    return !stopping(k);
}

/* Back off before the next attempt: backoff_min_ms doubled per failure since the last
 * progress, at most backoff_max_ms, of which a random half ("equal jitter"); a Retry-After
 * from the server is honoured up to backoff_max_ms. False when kube_stop came. */
static bool backoff(res_state *rs)
{
    kube *k = rs->k;
    uint64_t d = k->cfg.backoff_min_ms, max = k->cfg.backoff_max_ms;
    for (unsigned i = 1; i < rs->failures && d < max; i++)
        d *= 2;
    if (d > max)
        d = max;
    uint64_t ms = d / 2 + rnd(rs) % (d / 2 + 1);
    if (rs->retry_after_ms > ms)
        ms = rs->retry_after_ms < max ? rs->retry_after_ms : max;
    rs->retry_after_ms = 0;
    note(rs, KUBE_NOTE_BACKOFF, "%llu", (unsigned long long)ms);
    return sleep_ms(k, ms);
}

/* ---- Transfers. */

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    res_state *rs = ud;
    (void)p;
    rs->last_rx = now_ms();
    return size * nmemb;
}

static int on_line(void *ctx, const char *line, size_t len)
{
    res_state *rs = ctx;
    kube *k = rs->k;
    kw_event ev;
    const char *why = NULL;
    if (kw_parse_event(line, len, &ev, &why) != 0)
        goto bad;
    rs->progress = true;
    if (ev.type == 'E') {
        kw_status st;
        kw_parse_status(line + ev.object.off, ev.object.len, &st);
        rs->abort = st.code == 410 ? AB_GONE : AB_ERR_EVENT;
        snprintf(rs->why, sizeof rs->why, "ERROR event: %d%s%s: %s", st.code,
                 st.reason[0] ? " " : "", st.reason, st.message[0] ? st.message : "(no message)");
        return 1;
    }
    rs->meta.len = 0;
    if (buf_reserve(&rs->meta, ev.meta.name.len + ev.meta.ns.len + ev.meta.rv.len) != 0)
        goto nomem;
    if (ev.type == 'B') {
        size_t n;
        if (js_string(line, ev.meta.rv, rs->meta.p, &n) != 0) {
            why = "a BOOKMARK's resourceVersion holds \\u0000";
            goto bad;
        }
        if (buf_set(&rs->rv, rs->meta.p) != 0)
            goto nomem;
        note(rs, KUBE_NOTE_BOOKMARK, "%s", rs->rv.p);
        return 0;
    }
    kube_obj o;
    if (kw_meta_strings(line, &ev.meta, rs->meta.p, &o.name, &o.ns, &o.rv, &why) != 0)
        goto bad;
    o.json = line + ev.object.off;
    o.len = ev.object.len;
    if (k->sink.event(k->sink.ctx, rs->r, ev.type, &o) != 0) {
        rs->abort = AB_SINK;
        return 1;
    }
    if (o.rv && buf_set(&rs->rv, o.rv) != 0)
        goto nomem;
    return 0;
bad:
    rs->abort = AB_BAD_EVENT;
    snprintf(rs->why, sizeof rs->why, "%s", why);
    return 1;
nomem:
    rs->abort = AB_NOMEM;
    return 1;
}

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
    res_state *rs = ud;
    size_t n = size * nmemb;
    rs->last_rx = now_ms();
    if (rs->http == 0) {
        long code = 0;
        if (curl_easy_getinfo(rs->easy, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK)
            rs->http = code;
    }
    if (rs->writer && rs->http >= 200 && rs->http < 300) {
        if (!rs->keep)
            return n; /* a write's answer: its status says all that is needed */
        if (n > rs->body_cap - rs->body.len) {
            rs->abort = AB_TOO_BIG;
            return 0;
        }
        if (buf_add(&rs->body, p, n) != 0) {
            rs->abort = AB_NOMEM;
            return 0;
        }
        return n;
    }
    if (rs->http != 200) {
        /* an error response: keep its start for the message */
        size_t room = ERR_BODY_MAX - rs->body.len;
        if (buf_add(&rs->body, p, n < room ? n : room) != 0) {
            rs->abort = AB_NOMEM;
            return 0;
        }
        return n;
    }
    if (!rs->watching) {
        if (n > rs->body_cap - rs->body.len) {
            rs->abort = AB_TOO_BIG;
            return 0;
        }
        if (buf_add(&rs->body, p, n) != 0) {
            rs->abort = AB_NOMEM;
            return 0;
        }
        return n;
    }
    int r = kw_lines_feed(&rs->lines, p, n, on_line, rs);
    if (r == 0)
        return n;
    if (r == KW_LINE_TOO_LONG)
        rs->abort = AB_LONG_LINE;
    else if (r == -1)
        rs->abort = AB_NOMEM;
    return 0;
}

/* Run the transfer set up on rs->easy until it ends, kube_stop comes, or nothing arrives for
 * idle_timeout_s. */
static CURLcode run(res_state *rs)
{
    kube *k = rs->k;
    CURLMcode mc = curl_multi_add_handle(rs->multi, rs->easy);
    if (mc != CURLM_OK) {
        snprintf(rs->errbuf, sizeof rs->errbuf, "%s", curl_multi_strerror(mc));
        return CURLE_FAILED_INIT;
    }
    uint64_t idle = (uint64_t)k->cfg.idle_timeout_s * 1000u;
    CURLcode res = CURLE_OK;
    rs->last_rx = now_ms();
    for (;;) {
        int running = 0, queued;
        mc = curl_multi_perform(rs->multi, &running);
        if (mc != CURLM_OK)
            break;
        CURLMsg *m;
        bool done = false;
        while ((m = curl_multi_info_read(rs->multi, &queued)))
            if (m->msg == CURLMSG_DONE && m->easy_handle == rs->easy) {
                res = m->data.result;
                done = true;
            }
        if (done || !running)
            break;
        /* a writer is ended by kube_writer_halt alone: it may read after the watches stop */
        if (rs->writer ? atomic_load(&rs->halt) : stopping(k)) {
            rs->abort = AB_STOP;
            res = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        if (rs->deadline && now_ms() >= rs->deadline) {
            rs->abort = AB_IDLE;
            res = CURLE_OPERATION_TIMEDOUT;
            break;
        }
        uint64_t quiet = now_ms() - rs->last_rx;
        if (quiet >= idle) {
            rs->abort = AB_IDLE;
            res = CURLE_OPERATION_TIMEDOUT;
            break;
        }
        uint64_t wait = idle - quiet < 1000 ? idle - quiet : 1000;
        mc = curl_multi_poll(rs->multi, NULL, 0, (int)wait, NULL);
        if (mc != CURLM_OK)
            break;
    }
    if (mc != CURLM_OK) {
        snprintf(rs->errbuf, sizeof rs->errbuf, "%s", curl_multi_strerror(mc));
        res = CURLE_FAILED_INIT;
    }
    (void)curl_multi_remove_handle(rs->multi, rs->easy);
    return res;
}

/* A request's method and body: GET when method is NULL. */
typedef struct req_body {
    const char *method, *ctype, *data;
    size_t len;
} req_body;

/* One request: GET url (or what rb says) with the current credentials. */
static CURLcode request_with(res_state *rs, const char *url, bool watching, const req_body *rb)
{
    kube *k = rs->k;
    struct curl_slist *h = NULL, *t;
    CURLcode res = CURLE_OUT_OF_MEMORY;
    const char *token = k->conn.token;
    if (k->conn.token_file) {
        /* read before every request (a few a minute): a rotated token is used at once */
        char *tok, err[256];
        if (kc_read_token(k->conn.token_file, &tok, err, sizeof err) == 0) {
            free(rs->token);
            rs->token = tok;
        } else {
            note(rs, KUBE_NOTE_ERROR, "%s%s", err, rs->token ? " (the last token read is used)" : "");
        }
        token = rs->token;
    }
    rs->watching = watching;
    rs->http = 0;
    rs->abort = AB_NONE;
    rs->why[0] = rs->errbuf[0] = '\0';
    rs->body.len = 0;
    rs->retry_after_ms = 0;
    if (!(h = curl_slist_append(NULL, "Accept: application/json")))
        goto out;
    if (rb) {
        char ct[128];
        snprintf(ct, sizeof ct, "Content-Type: %s", rb->ctype);
        if (!(t = curl_slist_append(h, ct)))
            goto out;
        h = t;
    }
    if (token) {
        size_t n = strlen(token) + 32;
        char *auth = malloc(n);
        if (!auth)
            goto out;
        snprintf(auth, n, "Authorization: Bearer %s", token);
        t = curl_slist_append(h, auth);
        free(auth);
        if (!t)
            goto out;
        h = t;
    }
    if ((res = curl_easy_setopt(rs->easy, CURLOPT_URL, url)) != CURLE_OK ||
        (res = curl_easy_setopt(rs->easy, CURLOPT_HTTPHEADER, h)) != CURLE_OK)
        goto out;
    if (rb && ((res = curl_easy_setopt(rs->easy, CURLOPT_CUSTOMREQUEST, rb->method)) != CURLE_OK ||
               (res = curl_easy_setopt(rs->easy, CURLOPT_POSTFIELDSIZE_LARGE,
                                       (curl_off_t)rb->len)) != CURLE_OK ||
               (res = curl_easy_setopt(rs->easy, CURLOPT_POSTFIELDS, rb->data)) != CURLE_OK))
        goto out;
    res = run(rs);
    curl_off_t ra = 0;
    if (curl_easy_getinfo(rs->easy, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
        rs->retry_after_ms = ra < 86400 ? (uint64_t)ra * 1000u : 86400000u;
    if (rs->http == 0) {
        long code = 0;
        if (curl_easy_getinfo(rs->easy, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK)
            rs->http = code;
    }
out:
    (void)curl_easy_setopt(rs->easy, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(h);
    return res;
}

static CURLcode request(res_state *rs, const char *url, bool watching)
{
    return request_with(rs, url, watching, NULL);
}

static void curl_failed(res_state *rs, kube_note what, const char *op, CURLcode res)
{
    note(rs, what, "%s: %s", op, rs->errbuf[0] ? rs->errbuf : curl_easy_strerror(res));
}

/* Note an HTTP error response: its status and the Status object's reason and message, or the
 * start of the body. */
static void http_failed(res_state *rs, const char *op)
{
    kw_status st;
    if (rs->body.len > 0 && kw_parse_status(rs->body.p, rs->body.len, &st) == 0) {
        note(rs, KUBE_NOTE_ERROR, "%s: HTTP %ld%s%s: %s", op, rs->http, st.reason[0] ? " " : "",
             st.reason, st.message);
        return;
    }
    char text[160];
    size_t n = rs->body.len < sizeof text - 1 ? rs->body.len : sizeof text - 1;
    for (size_t i = 0; i < n; i++)
        text[i] = (unsigned char)rs->body.p[i] < 0x20 ? ' ' : rs->body.p[i];
    text[n] = '\0';
    note(rs, KUBE_NOTE_ERROR, "%s: HTTP %ld%s%s", op, rs->http, n ? ": " : "", text);
}

/* ---- LIST. */

/* Stable storage for the strings of a list's objects. */
typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk;

typedef struct list_acc {
    char **pages; /* the pages' bytes, which objs point into */
    size_t npages, cap_pages;
    kube_obj *objs;
    size_t nobjs, cap_objs;
    chunk *strings;
    size_t bytes; /* of all pages */
} list_acc;

static char *acc_alloc(list_acc *a, size_t n)
{
    chunk *c = a->strings;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 60000 ? n : 60000;
        if (!(c = malloc(sizeof *c + cap)))
            return NULL;
        c->next = a->strings;
        c->used = 0;
        c->cap = cap;
        a->strings = c;
    }
    char *p = c->data + c->used;
    c->used += n;
    return p;
}

static void acc_free(list_acc *a)
{
    for (size_t i = 0; i < a->npages; i++)
        free(a->pages[i]);
    free(a->pages);
    free(a->objs);
    while (a->strings) {
        chunk *next = a->strings->next;
        free(a->strings);
        a->strings = next;
    }
    memset(a, 0, sizeof *a);
}

/* Keep the page just read (rs->body) in a, and add its items. 0, -1 invalid (why), -2 out of
 * memory. On success *pg holds the page's metadata. */
static int acc_page(res_state *rs, list_acc *a, kw_page *pg, const char **why)
{
    memset(pg, 0, sizeof *pg);
    if (a->npages == a->cap_pages) {
        size_t cap = a->cap_pages ? a->cap_pages * 2 : 8;
        char **np = realloc(a->pages, cap * sizeof *np);
        if (!np)
            return -2;
        a->pages = np;
        a->cap_pages = cap;
    }
    const char *s = rs->body.p ? rs->body.p : "";
    size_t n = rs->body.len;
    a->pages[a->npages++] = rs->body.p;
    a->bytes += n;
    rs->body = (buf){0};
    int rc = kw_parse_page(s, n, pg, why);
    if (rc != 0 || pg->items.len == 0)
        return rc;
    js_iter it;
    js_span e, md;
    /* kw_parse_page validated the whole page: the items are walked once more, with the fast
     * path, finding each one's metadata on the way */
    js_array_begin_valid(s, pg->items, &it);
    while ((rc = js_array_next_object(s, &it, kw_object_keys, 1, &md, &e)) == 1) {
        kw_meta m;
        if (e.len > rs->k->cfg.max_object_bytes) {
            *why = "an item passed max_object_bytes";
            return -1;
        }
        if (kw_metadata(s, md, &m, why) != 0)
            return -1;
        char *strs = acc_alloc(a, m.name.len + m.ns.len + m.rv.len + 1);
        if (!strs)
            return -2;
        if (a->nobjs == a->cap_objs) {
            size_t cap = a->cap_objs ? a->cap_objs * 2 : 64;
            kube_obj *no = realloc(a->objs, cap * sizeof *no);
            if (!no)
                return -2;
            a->objs = no;
            a->cap_objs = cap;
        }
        kube_obj *o = &a->objs[a->nobjs];
        if (kw_meta_strings(s, &m, strs, &o->name, &o->ns, &o->rv, why) != 0)
            return -1;
        o->json = s + e.off;
        o->len = e.len;
        a->nobjs++;
    }
    if (rc != 0) {
        *why = "the list's items are not all objects";
        return -1;
    }
    return 0;
}

/* LIST the resource, page by page, and hand the whole list to the sink. 0 done, 1 stopped,
 * -1 failed (noted). */
static int do_list(res_state *rs)
{
    kube *k = rs->k;
    list_acc a = {0};
    char *cont = NULL, *listrv = NULL, *url = NULL;
    int restarts = 0, rc = -1;
    bool paged = true;
    for (;;) {
        char *esc = NULL;
        if (cont && !(esc = curl_easy_escape(rs->easy, cont, 0))) {
            note(rs, KUBE_NOTE_ERROR, "LIST: out of memory");
            goto out;
        }
        size_t n = strlen(k->conn.server) + strlen(rs->path) + (esc ? strlen(esc) : 0) + 64;
        free(url);
        if (!(url = malloc(n))) {
            curl_free(esc);
            note(rs, KUBE_NOTE_ERROR, "LIST: out of memory");
            goto out;
        }
        if (!paged)
            snprintf(url, n, "%s%s", k->conn.server, rs->path);
        else
            snprintf(url, n, "%s%s?limit=%u%s%s", k->conn.server, rs->path,
                     k->cfg.list_limit, esc ? "&continue=" : "", esc ? esc : "");
        curl_free(esc);
        rs->body_cap = k->cfg.max_list_bytes - a.bytes;
        CURLcode res = request(rs, url, false);
        switch (rs->abort) {
        case AB_STOP:
            rc = 1;
            goto out;
        case AB_TOO_BIG:
            note(rs, KUBE_NOTE_ERROR, "LIST: the list passed max_list_bytes (%zu bytes)",
                 k->cfg.max_list_bytes);
            goto out;
        case AB_NOMEM:
            note(rs, KUBE_NOTE_ERROR, "LIST: out of memory");
            goto out;
        case AB_IDLE:
            note(rs, KUBE_NOTE_ERROR, "LIST: nothing received for %u s", k->cfg.idle_timeout_s);
            goto out;
        default:
            break;
        }
        if (rs->http == 410 && cont) {
            /* the continue token expired (its snapshot was compacted): start again, then
             * without paging, as client-go's pager does */
            restarts++;
            paged = restarts < 2;
            note(rs, KUBE_NOTE_RELIST, "the continue token expired (410): the list starts again%s",
                 paged ? "" : " without paging");
            acc_free(&a);
            free(cont);
            cont = NULL;
            continue;
        }
        if (res != CURLE_OK && rs->http == 200) {
            curl_failed(rs, KUBE_NOTE_ERROR, "LIST", res);
            goto out;
        }
        if (rs->http == 404 && rs->r == KUBE_RULES && !cont) {
            /* not served (the API version or the feature is off): none, asked again later */
            if (k->sink.replace(k->sink.ctx, rs->r, NULL, 0) != 0) {
                note(rs, KUBE_NOTE_ERROR, "the sink refused an empty list");
                goto out;
            }
            note(rs, KUBE_NOTE_UNSERVED, "LIST: HTTP 404: %s is not served: no DeviceTaintRules "
                 "apply; asked again in %u ms", rs->path, k->cfg.backoff_max_ms);
            note(rs, KUBE_NOTE_LISTED, "0");
            if (!atomic_load(&rs->synced)) {
                atomic_store(&rs->synced, true);
                note(rs, KUBE_NOTE_SYNCED, "0");
            }
            rc = 2;
            goto out;
        }
        if (rs->http != 200) {
            if (rs->http == 0)
                curl_failed(rs, KUBE_NOTE_ERROR, "LIST", res);
            else
                http_failed(rs, "LIST");
            goto out;
        }
        kw_page pg;
        const char *why = NULL;
        int r = acc_page(rs, &a, &pg, &why);
        if (r != 0) {
            note(rs, KUBE_NOTE_ERROR, "LIST: %s", r == -2 ? "out of memory" : why);
            kw_page_free(&pg);
            goto out;
        }
        free(cont);
        free(listrv);
        cont = pg.cont;
        listrv = pg.rv;
        if (!cont || !paged)
            break;
        if (stopping(k)) {
            rc = 1;
            goto out;
        }
    }
    if (!listrv) {
        note(rs, KUBE_NOTE_ERROR, "LIST: the list has no metadata.resourceVersion");
        goto out;
    }
    if (k->sink.replace(k->sink.ctx, rs->r, a.objs, a.nobjs) != 0) {
        note(rs, KUBE_NOTE_ERROR, "the sink refused the list of %zu objects", a.nobjs);
        goto out;
    }
    if (buf_set(&rs->rv, listrv) != 0) {
        note(rs, KUBE_NOTE_ERROR, "LIST: out of memory");
        goto out;
    }
    note(rs, KUBE_NOTE_LISTED, "%zu", a.nobjs);
    if (!atomic_load(&rs->synced)) {
        atomic_store(&rs->synced, true);
        note(rs, KUBE_NOTE_SYNCED, "%zu", a.nobjs);
    }
    rc = 0;
out:
    acc_free(&a);
    free(cont);
    free(listrv);
    free(url);
    return rc;
}

/* ---- WATCH. */

static wres do_watch(res_state *rs)
{
    kube *k = rs->k;
    unsigned timeout = k->cfg.watch_timeout_s ? k->cfg.watch_timeout_s : 300 + (unsigned)(rnd(rs) % 301);
    char *esc = curl_easy_escape(rs->easy, rs->rv.p, 0);
    size_t n = strlen(k->conn.server) + strlen(rs->path) + (esc ? strlen(esc) : 0) + 96;
    char *url = esc ? malloc(n) : NULL;
    if (!url) {
        curl_free(esc);
        note(rs, KUBE_NOTE_ERROR, "WATCH: out of memory");
        return W_ERROR;
    }
    snprintf(url, n, "%s%s?watch=1&resourceVersion=%s&allowWatchBookmarks=true&timeoutSeconds=%u",
             k->conn.server, rs->path, esc, timeout);
    curl_free(esc);
    note(rs, KUBE_NOTE_WATCH, "%s", rs->rv.p);
    kw_lines_reset(&rs->lines);
    rs->progress = false;
    uint64_t start = now_ms();
    CURLcode res = request(rs, url, true);
    free(url);
    switch (rs->abort) {
    case AB_STOP:
        return W_STOP;
    case AB_GONE:
        snprintf(rs->reason, sizeof rs->reason, "%s", rs->why);
        return W_GONE;
    case AB_ERR_EVENT:
        note(rs, KUBE_NOTE_ERROR, "WATCH: %s", rs->why);
        return W_ERROR;
    case AB_IDLE:
        note(rs, KUBE_NOTE_DISCONNECT, "nothing received for %u s", k->cfg.idle_timeout_s);
        return W_ERROR;
    case AB_SINK:
        note(rs, KUBE_NOTE_ERROR, "the sink refused an event");
        snprintf(rs->reason, sizeof rs->reason, "the sink refused an event");
        return W_RELIST;
    case AB_BAD_EVENT:
        note(rs, KUBE_NOTE_ERROR, "WATCH: a bad event: %s", rs->why);
        snprintf(rs->reason, sizeof rs->reason, "a bad watch event: %s", rs->why);
        return W_RELIST;
    case AB_LONG_LINE:
        note(rs, KUBE_NOTE_ERROR, "WATCH: an event passed max_object_bytes (%zu bytes)",
             k->cfg.max_object_bytes);
        snprintf(rs->reason, sizeof rs->reason, "a watch event over max_object_bytes");
        return W_RELIST;
    case AB_NOMEM:
        note(rs, KUBE_NOTE_ERROR, "WATCH: out of memory");
        snprintf(rs->reason, sizeof rs->reason, "out of memory");
        return W_RELIST;
    default:
        break;
    }
    if (rs->http == 410) {
        snprintf(rs->reason, sizeof rs->reason, "WATCH: HTTP 410 Gone");
        return W_GONE;
    }
    if (rs->http != 200) {
        if (rs->http == 0)
            curl_failed(rs, KUBE_NOTE_ERROR, "WATCH", res);
        else
            http_failed(rs, "WATCH");
        return W_ERROR;
    }
    if (res != CURLE_OK) {
        curl_failed(rs, KUBE_NOTE_DISCONNECT, "WATCH", res);
        return W_ERROR;
    }
    if (kw_lines_pending(&rs->lines) > 0) {
        note(rs, KUBE_NOTE_DISCONNECT, "the stream ended inside an event");
        return W_ERROR;
    }
    uint64_t took = now_ms() - start;
    if (!rs->progress && took < SHORT_WATCH_MS) {
        note(rs, KUBE_NOTE_DISCONNECT, "the watch ended after %llu ms without an event",
             (unsigned long long)took);
        return W_ERROR;
    }
    note(rs, KUBE_NOTE_DISCONNECT, "the stream ended");
    return W_END;
}

static void *res_main(void *arg)
{
    res_state *rs = arg;
    kube *k = rs->k;
    bool need_list = true;
    rs->reason[0] = '\0';
    while (!stopping(k)) {
        if (need_list) {
            if (rs->reason[0])
                note(rs, KUBE_NOTE_RELIST, "%s", rs->reason);
            rs->reason[0] = '\0';
            int rc = do_list(rs);
            if (rc == 1)
                break;
            if (rc == 2) { /* not served: list again later */
                rs->failures = 0;
                if (!sleep_ms(k, k->cfg.backoff_max_ms))
                    break;
                continue;
            }
            if (rc < 0) {
                rs->failures++;
                if (!backoff(rs))
                    break;
                continue;
            }
            need_list = false;
        }
        wres w = do_watch(rs);
        if (rs->progress)
            rs->failures = 0;
        switch (w) {
        case W_STOP:
            return NULL;
        case W_END:
            rs->failures = 0;
            continue;
        case W_GONE:
            /* at once, unless nothing came since the last failure */
            need_list = true;
            if (++rs->failures > 1 && !backoff(rs))
                return NULL;
            continue;
        case W_RELIST:
            need_list = true;
            /* fall through */
        case W_ERROR:
            rs->failures++;
            if (!backoff(rs))
                return NULL;
            continue;
        }
    }
    return NULL;
}

/* ---- Set-up. */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_result = CURLE_FAILED_INIT;

static void init_curl(void)
{
    curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static CURLcode set_blob(CURL *e, CURLoption opt, const kc_blob *b)
{
    struct curl_blob blob = {b->data, b->len, CURL_BLOB_COPY};
    return curl_easy_setopt(e, opt, &blob);
}

static int setup_easy(kube *k, res_state *rs, char *err, size_t errcap)
{
    CURL *e = rs->easy;
    const kc_conf *c = &k->conn;
    CURLcode r = CURLE_OK;
#define SET(opt, val) do { if (r == CURLE_OK) r = curl_easy_setopt(e, opt, val); } while (0)
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_ERRORBUFFER, rs->errbuf);
    SET(CURLOPT_WRITEFUNCTION, on_data);
    SET(CURLOPT_WRITEDATA, rs);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, rs);
    SET(CURLOPT_USERAGENT, k->ua);
    SET(CURLOPT_CONNECTTIMEOUT_MS, (long)k->cfg.connect_timeout_ms);
    SET(CURLOPT_TCP_KEEPALIVE, 1L);
    SET(CURLOPT_TCP_KEEPIDLE, 30L);
    SET(CURLOPT_TCP_KEEPINTVL, 15L);
    /* one connection per thread: HTTP/2 would multiplex nothing */
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    SET(CURLOPT_ACCEPT_ENCODING, "gzip");
#if LIBCURL_VERSION_NUM >= 0x075500
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
#else
    SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    if (c->insecure) {
        SET(CURLOPT_SSL_VERIFYPEER, 0L);
        SET(CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (c->ca_file)
        SET(CURLOPT_CAINFO, c->ca_file);
    if (c->cert_file) {
        SET(CURLOPT_SSLCERT, c->cert_file);
        SET(CURLOPT_SSLKEY, c->key_file);
    }
    if (c->proxy)
        SET(CURLOPT_PROXY, c->proxy);
#undef SET
    if (r == CURLE_OK && c->ca_data.data) {
#if LIBCURL_VERSION_NUM >= 0x074d00
        r = set_blob(e, CURLOPT_CAINFO_BLOB, &c->ca_data);
#else
        r = CURLE_NOT_BUILT_IN;
#endif
    }
    if (r == CURLE_OK && c->cert_data.data) {
        r = set_blob(e, CURLOPT_SSLCERT_BLOB, &c->cert_data);
        if (r == CURLE_OK)
            r = set_blob(e, CURLOPT_SSLKEY_BLOB, &c->key_data);
    }
    if (r == CURLE_OK && c->cert_file && c->key_data.data)
        r = set_blob(e, CURLOPT_SSLKEY_BLOB, &c->key_data);
    if (r == CURLE_OK && c->cert_data.data && c->key_file)
        r = curl_easy_setopt(e, CURLOPT_SSLKEY, c->key_file);
    if (r != CURLE_OK) {
        snprintf(err, errcap, "libcurl refused a setting: %s%s", curl_easy_strerror(r),
                 r == CURLE_NOT_BUILT_IN ? " (certificate-authority-data needs libcurl 7.77)" : "");
        return -1;
    }
    return 0;
}

int kube_new(const kube_config *cfg, const kube_sink *sink, kube **out, char *err, size_t errcap)
{
    *out = NULL;
    if (!cfg || !sink || !sink->replace || !sink->event) {
        snprintf(err, errcap, "kube_new: a configuration and a sink with replace and event are needed");
        return -1;
    }
    pthread_once(&curl_once, init_curl);
    if (curl_init_result != CURLE_OK) {
        snprintf(err, errcap, "libcurl: %s", curl_easy_strerror(curl_init_result));
        return -1;
    }
    kube *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    k->cfg = *cfg;
    k->sink = *sink;
    atomic_init(&k->stop, false);
    kube_config *c = &k->cfg;
    if (!c->list_limit)
        c->list_limit = 500;
    if (!c->connect_timeout_ms)
        c->connect_timeout_ms = 10000;
    if (!c->idle_timeout_s)
        c->idle_timeout_s = 120;
    if (!c->backoff_min_ms)
        c->backoff_min_ms = 250;
    if (!c->backoff_max_ms)
        c->backoff_max_ms = 30000;
    if (c->backoff_max_ms < c->backoff_min_ms)
        c->backoff_max_ms = c->backoff_min_ms;
    if (!c->max_object_bytes)
        c->max_object_bytes = (size_t)16 << 20;
    if (!c->max_list_bytes)
        c->max_list_bytes = (size_t)1 << 30;
    char ua[128];
    snprintf(ua, sizeof ua, "dra-extender/%s", dracel_version());
    k->ua = strdup(c->user_agent ? c->user_agent : ua);
    c->user_agent = k->ua;
    /* the kubeconfig's and in-cluster files are read now, and not kept */
    pthread_condattr_t ca;
    bool sync_ok = false;
    if (pthread_condattr_init(&ca) == 0) {
        sync_ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
                  pthread_cond_init(&k->cv, &ca) == 0;
        pthread_condattr_destroy(&ca);
    }
    if (sync_ok && pthread_mutex_init(&k->mu, NULL) != 0) {
        pthread_cond_destroy(&k->cv);
        sync_ok = false;
    }
    if (!sync_ok || !k->ua) {
        snprintf(err, errcap, "out of memory");
        if (sync_ok) {
            pthread_cond_destroy(&k->cv);
            pthread_mutex_destroy(&k->mu);
        }
        free(k->ua);
        free(k);
        return -1;
    }
    int rc = kc_load(cfg, &k->conn, err, errcap);
    c->kubeconfig = c->context = c->token_file = c->ca_file = NULL;
    uint64_t seed = now_ms() ^ (uint64_t)(uintptr_t)k;
    for (int r = 0; r < KUBE__N; r++) {
        res_state *rs = &k->res[r];
        rs->k = k;
        rs->r = (kube_res)r;
        rs->on = (r != KUBE_RULES || c->rules_version) && !(c->skip & (1u << r));
        if (r == KUBE_RULES)
            snprintf(rs->path, sizeof rs->path, "/apis/resource.k8s.io/%.16s/devicetaintrules",
                     c->rules_version ? c->rules_version : "v1");
        else
            snprintf(rs->path, sizeof rs->path, "%s", resources[r].path);
        atomic_init(&rs->synced, false);
        rs->rng = (seed + (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ull) | 1;
        kw_lines_init(&rs->lines, c->max_object_bytes);
        if (rc != 0)
            continue;
        rs->easy = curl_easy_init();
        rs->multi = curl_multi_init();
        if (!rs->easy || !rs->multi || buf_set(&rs->rv, "") != 0) {
            snprintf(err, errcap, "out of memory");
            rc = -1;
        } else {
            rc = setup_easy(k, rs, err, errcap);
        }
    }
    if (rc != 0) {
        kube_free(k);
        return -1;
    }
    *out = k;
    return 0;
}

int kube_start(kube *k, char *err, size_t errcap)
{
    if (k->started) {
        snprintf(err, errcap, "kube_start: already started");
        return -1;
    }
    k->started = true;
    for (int r = 0; r < KUBE__N; r++) {
        if (!k->res[r].on)
            continue;
        int e = pthread_create(&k->res[r].thread, NULL, res_main, &k->res[r]);
        if (e != 0) {
            snprintf(err, errcap, "cannot start a thread: %s", strerror(e));
            kube_stop(k);
            return -1;
        }
        k->res[r].thread_started = true;
    }
    return 0;
}

bool kube_synced(const kube *k)
{
    for (int r = 0; r < KUBE__N; r++)
        if (k->res[r].on && !atomic_load(&k->res[r].synced))
            return false;
    return true;
}

bool kube_reads(const kube *k, kube_res r)
{
    return (unsigned)r < KUBE__N && k->res[r].on;
}

const char *kube_server(const kube *k)
{
    return k->conn.server;
}

const char *kube_describe(const kube *k)
{
    return k->conn.describe;
}

void kube_stop(kube *k)
{
    if (!k || k->stopped)
        return;
    k->stopped = true;
    pthread_mutex_lock(&k->mu);
    atomic_store(&k->stop, true);
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
    for (int r = 0; r < KUBE__N; r++)
        if (k->res[r].multi)
            (void)curl_multi_wakeup(k->res[r].multi);
    for (int r = 0; r < KUBE__N; r++)
        if (k->res[r].thread_started) {
            (void)pthread_join(k->res[r].thread, NULL);
            k->res[r].thread_started = false;
        }
}

void kube_free(kube *k)
{
    if (!k)
        return;
    kube_stop(k);
    for (int r = 0; r < KUBE__N; r++) {
        res_state *rs = &k->res[r];
        if (rs->multi)
            curl_multi_cleanup(rs->multi);
        if (rs->easy)
            curl_easy_cleanup(rs->easy);
        free(rs->rv.p);
        free(rs->token);
        free(rs->body.p);
        free(rs->meta.p);
        kw_lines_free(&rs->lines);
    }
    kc_free(&k->conn);
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
    free(k->ua);
    free(k);
}

/* ---- Writes (kube.h: kube_writer). */

struct kube_writer {
    res_state rs;
};

int kube_writer_new(kube *k, kube_writer **out, char *err, size_t errcap)
{
    *out = NULL;
    kube_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    res_state *rs = &w->rs;
    rs->k = k;
    rs->r = KUBE__N;
    rs->writer = true;
    atomic_init(&rs->synced, false);
    atomic_init(&rs->halt, false);
    kw_lines_init(&rs->lines, 1);
    rs->easy = curl_easy_init();
    rs->multi = curl_multi_init();
    if (!rs->easy || !rs->multi) {
        snprintf(err, errcap, "out of memory");
        kube_writer_free(w);
        return -1;
    }
    if (setup_easy(k, rs, err, errcap) != 0) {
        kube_writer_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int kube_write(kube_writer *w, const char *method, const char *path, const char *ctype,
               const char *body, size_t len, uint32_t timeout_ms, kube_reply *rep)
{
    res_state *rs = &w->rs;
    kube *k = rs->k;
    memset(rep, 0, sizeof *rep);
    size_t n = strlen(k->conn.server) + strlen(path) + 1;
    char *url = malloc(n);
    if (!url) {
        snprintf(rep->message, sizeof rep->message, "out of memory");
        return -1;
    }
    snprintf(url, n, "%s%s", k->conn.server, path);
    req_body rb = {method, ctype, body, len};
    rs->deadline = timeout_ms ? now_ms() + timeout_ms : 0;
    CURLcode res;
    if (method) {
        res = request_with(rs, url, false, &rb);
    } else {
        /* a GET (kube_read): no body, the method of an earlier write reset */
        (void)curl_easy_setopt(rs->easy, CURLOPT_CUSTOMREQUEST, NULL);
        (void)curl_easy_setopt(rs->easy, CURLOPT_HTTPGET, 1L);
        res = request_with(rs, url, false, NULL);
    }
    free(url);
    rs->deadline = 0;
    rep->retry_after_ms = rs->retry_after_ms;
    if (res != CURLE_OK || rs->abort != AB_NONE) {
        const char *why = rs->abort == AB_STOP      ? "stopped"
                          : rs->abort == AB_IDLE    ? "timed out"
                          : rs->abort == AB_TOO_BIG ? "the answer is too large"
                          : rs->abort == AB_NOMEM ? "out of memory"
                          : rs->errbuf[0]         ? rs->errbuf
                                                  : curl_easy_strerror(res);
        snprintf(rep->message, sizeof rep->message, "%s", why);
        return -1;
    }
    rep->http = rs->http;
    if (rs->http < 200 || rs->http >= 300) {
        kw_status st;
        if (rs->body.len > 0 && kw_parse_status(rs->body.p, rs->body.len, &st) == 0) {
            snprintf(rep->reason, sizeof rep->reason, "%s", st.reason);
            snprintf(rep->message, sizeof rep->message, "%s", st.message);
        } else {
            size_t m = rs->body.len < sizeof rep->message - 1 ? rs->body.len
                                                               : sizeof rep->message - 1;
            for (size_t i = 0; i < m; i++)
                rep->message[i] = (unsigned char)rs->body.p[i] < 0x20 ? ' ' : rs->body.p[i];
            rep->message[m] = '\0';
        }
    }
    return 0;
}

void kube_writer_halt(kube_writer *w)
{
    if (!w)
        return;
    atomic_store(&w->rs.halt, true);
    if (w->rs.multi)
        (void)curl_multi_wakeup(w->rs.multi);
}

void kube_writer_free(kube_writer *w)
{
    if (!w)
        return;
    res_state *rs = &w->rs;
    if (rs->multi)
        curl_multi_cleanup(rs->multi);
    if (rs->easy)
        curl_easy_cleanup(rs->easy);
    free(rs->token);
    free(rs->body.p);
    kw_lines_free(&rs->lines);
    free(w);
}

int kube_read(kube_writer *w, const char *path, size_t max, uint32_t timeout_ms, kube_reply *rep,
              char **body, size_t *len)
{
    res_state *rs = &w->rs;
    *body = NULL;
    *len = 0;
    rs->keep = true;
    rs->body_cap = max;
    int rc = kube_write(w, NULL, path, NULL, NULL, 0, timeout_ms, rep);
    rs->keep = false;
    if (rc == 0 && rep->http >= 200 && rep->http < 300) {
        if (!(*body = malloc(rs->body.len + 1))) {
            snprintf(rep->message, sizeof rep->message, "out of memory");
            return -1;
        }
        memcpy(*body, rs->body.p ? rs->body.p : "", rs->body.len);
        (*body)[rs->body.len] = '\0';
        *len = rs->body.len;
    }
    rs->body.len = 0;
    return rc;
}
