/*
 * events.c: Kubernetes Events of dra-extender (events.h).
 *
 * One lock guards everything. The memory of events is a fixed array of entries (cache): each
 * is one Event, created or to be created, with its occurrences counted. The queue is a ring of
 * entry numbers waiting for a write, each entry in it at most once ("queued"); a write brings
 * the server up to date with the entry: a POST when the Event does not exist yet, else a PATCH
 * of its series when the count changed. The writing thread takes the lock only to pick a job
 * and to record its answer, never across a request.
 *
 * Changes with: events.h, main.c (flags), decide.c (what is posted), docs/extender.md
 * ("Events"), tests/extender/events.sh and fakeapi.c (the server's side).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "events.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "metrics.h"

enum {
    NOTE_MAX = 1024,      /* Kubernetes' limit of an Event's note, in bytes */
    WORD_MAX = 128,       /* of reason, action and reportingInstance */
    POD_SLOTS = 4096,     /* pods whose rate is remembered */
    POD_PROBE = 8,
};

static const metric_family m_written = {
    "dra_extender_events_written_total",
    "Events written to the API server, by verb (create, patch: a series' count).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_dropped = {
    "dra_extender_events_dropped_total",
    "Events not written, by reason (queue_full, cache_full, pod_rate, invalid: not a pod's "
    "names, rejected: a 4xx, retries: tries used up, shutdown).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_series = {
    "dra_extender_events_series_total",
    "Occurrences counted into the series of an Event posted before.", METRIC_COUNTER, NULL, 0};
static const metric_family m_failures = {
    "dra_extender_events_failures_total",
    "Writes of Events that failed and are retried, by cause (429, 5xx, no_answer).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_queued = {
    "dra_extender_events_queued", "Events waiting to be written.", METRIC_GAUGE, NULL, 0};

typedef struct entry {
    bool used;
    bool queued;         /* in the ring */
    bool busy;           /* being written */
    bool created;        /* the server has it */
    bool warning;
    bool cond;           /* not an Event: the pod's condition dracel.dev/DeviceTier (status:
                            !warning, reason, message: note), by a PATCH of pods/status */
    uint64_t key;        /* hash of type, action, reason, pod, note */
    char ns[64], pod[254], uid[64];
    char action[WORD_MAX + 1], reason[WORD_MAX + 1];
    char note[NOTE_MAX + 1];
    char name[254];      /* metadata.name: POD.HEX(UnixNano) */
    int64_t first_us;    /* eventTime, realtime microseconds */
    int64_t last_us;     /* lastObservedTime */
    uint64_t last_ms;    /* monotonic ms of the last occurrence */
    uint32_t count;      /* occurrences */
    uint32_t written;    /* the count the server has (0: none) */
    uint32_t tries;      /* failed writes in a row */
} entry;

typedef struct pod_slot {
    uint64_t h;          /* 0: free */
    double tokens;
    uint64_t at_ms;
} pod_slot;

struct events {
    events_config c;
    char instance[WORD_MAX + 1];
    kube_writer *w;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;           /* events_stop: drain, then end */
    uint64_t drain_until; /* monotonic ms the drain ends by */
    entry *ents;
    uint32_t *ring;
    size_t head, len;
    double tokens;       /* writes allowed now */
    uint64_t tokens_ms;
    uint64_t resume_ms;  /* no write before (backoff) */
    uint32_t failures;   /* in a row, for the backoff */
    uint64_t next_flush;
    uint64_t rng;
    pod_slot pods[POD_SLOTS];
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Copy at most max bytes of s, cut at a UTF-8 character boundary. */
static void copy_cut(char *dst, const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    if (n)
        memcpy(dst, s, n);
    dst[n] = '\0';
}

static uint64_t mix(uint64_t h, const char *s)
{
    h = (h ^ 0xff) * 1099511628211ULL;
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* A DNS subdomain (RFC 1123, lower case) of at most max bytes: what Kubernetes allows as a
 * namespace (a label) and a pod's name. */
static bool valid_name(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (!n || n > max || s[0] == '-' || s[0] == '.' || s[n - 1] == '-' || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
              s[i] == '.'))
            return false;
    return true;
}

static bool same(const entry *x, bool warning, const char *action, const char *reason,
                 const char *ns, const char *pod, const char *uid, const char *note)
{
    return x->warning == warning && strcmp(x->action, action) == 0 &&
           strcmp(x->reason, reason) == 0 && strcmp(x->ns, ns) == 0 &&
           strcmp(x->pod, pod) == 0 && strcmp(x->uid, uid) == 0 && strcmp(x->note, note) == 0;
}

/* Take a write's token; false when none is left (the bucket refills at qps). */
static bool take_token(events *e, uint64_t now)
{
    e->tokens += (double)(now - e->tokens_ms) * e->c.qps / 1000.0;
    e->tokens_ms = now;
    if (e->tokens > e->c.burst)
        e->tokens = e->c.burst;
    if (e->tokens < 1.0)
        return false;
    e->tokens -= 1.0;
    return true;
}

/* The pod's bucket allows one more Event? */
static bool pod_allows(events *e, const char *ns, const char *name, uint64_t now)
{
    uint64_t h = mix(mix(14695981039346656037ULL, ns), name) | 1;
    double per_ms = 1.0 / e->c.pod_refill_ms, full = e->c.pod_burst;
    pod_slot *pick = NULL;
    double most = -1;
    for (unsigned i = 0; i < POD_PROBE; i++) {
        pod_slot *s = &e->pods[(h + i) % POD_SLOTS];
        if (s->h == h) {
            pick = s;
            break;
        }
        double t = s->h ? s->tokens + (double)(now - s->at_ms) * per_ms : full;
        if (t > most) {
            most = t;
            pick = s;
        }
    }
    if (pick->h != h) {
        /* a free slot, or the one nearest full: that pod starts anew */
        pick->h = h;
        pick->tokens = full;
        pick->at_ms = now;
    }
    pick->tokens += (double)(now - pick->at_ms) * per_ms;
    pick->at_ms = now;
    if (pick->tokens > full)
        pick->tokens = full;
    if (pick->tokens < 1.0)
        return false;
    pick->tokens -= 1.0;
    return true;
}

static bool push(events *e, uint32_t i, bool front)
{
    entry *x = &e->ents[i];
    if (x->queued || x->busy)
        return true; /* its write will carry the newest count */
    if (e->len == e->c.queue)
        return false;
    size_t at = front ? (e->head + e->c.queue - 1) % e->c.queue : (e->head + e->len) % e->c.queue;
    if (front)
        e->head = at;
    e->ring[at] = i;
    e->len++;
    x->queued = true;
    return true;
}

static bool pending(const entry *x)
{
    return !x->created || x->count != x->written;
}

/* An entry for a new Event: a free one, else one whose series ended, else the oldest that has
 * nothing to write. -1 when none. */
static long grab(events *e, uint64_t now)
{
    long best = -1;
    uint64_t oldest = UINT64_MAX;
    for (uint32_t i = 0; i < e->c.cache; i++) {
        entry *x = &e->ents[i];
        if (!x->used)
            return i;
        if (x->queued || x->busy || pending(x))
            continue;
        if (now - x->last_ms >= e->c.window_ms)
            return i;
        if (x->last_ms < oldest) {
            oldest = x->last_ms;
            best = i;
        }
    }
    return best;
}

static bool record(events *e, const events_pod *pod, bool warning, bool cond,
                   const char *action, const char *reason, const char *note)
{
    if (!e || !pod || !pod->ns || !pod->name || !*pod->ns || !*pod->name)
        return false;
    char act[WORD_MAX + 1], rsn[WORD_MAX + 1], nt[NOTE_MAX + 1], uid[64];
    copy_cut(act, action, WORD_MAX);
    copy_cut(rsn, reason, WORD_MAX);
    copy_cut(nt, note, NOTE_MAX);
    copy_cut(uid, pod->uid, sizeof uid - 1);
    if (!valid_name(pod->ns, 63) || !valid_name(pod->name, 253)) {
        /* no such pod: its names go into the request's path */
        metrics_add(&m_dropped, "reason=\"invalid\"", 1);
        return false;
    }
    uint64_t key = mix(mix(mix(mix(mix(mix((warning ? 2 : 1) + (cond ? 4 : 0), act), rsn),
                                       pod->ns), pod->name), uid), nt);
    uint64_t now = now_ms();
    int64_t wall = wall_us();
    const char *drop = NULL;
    pthread_mutex_lock(&e->mu);
    if (e->stop) {
        drop = "shutdown";
        goto out;
    }
    for (uint32_t i = 0; i < e->c.cache; i++) {
        entry *x = &e->ents[i];
        if (x->used && x->key == key && now - x->last_ms < e->c.window_ms && x->cond == cond &&
            same(x, warning, act, rsn, pod->ns, pod->name, uid, nt)) {
            if (cond)
                goto out; /* set already */
            x->count++;
            x->last_ms = now;
            x->last_us = wall;
            metrics_add(&m_series, NULL, 1);
            /* the first repeat is written at once (client-go); later ones at the flush */
            if (x->count == 2 && x->created) {
                if (push(e, i, false))
                    pthread_cond_signal(&e->cv);
                else
                    drop = "queue_full";
            }
            goto out;
        }
    }
    if (e->len == e->c.queue) {
        drop = "queue_full";
        goto out;
    }
    if (!cond && !pod_allows(e, pod->ns, pod->name, now)) {
        drop = "pod_rate";
        goto out;
    }
    long i = grab(e, now);
    if (i < 0) {
        drop = "cache_full";
        goto out;
    }
    entry *x = &e->ents[i];
    memset(x, 0, sizeof *x);
    x->used = true;
    x->warning = warning;
    x->cond = cond;
    x->key = key;
    snprintf(x->ns, sizeof x->ns, "%s", pod->ns);
    snprintf(x->pod, sizeof x->pod, "%s", pod->name);
    memcpy(x->uid, uid, sizeof uid);
    memcpy(x->action, act, sizeof act);
    memcpy(x->reason, rsn, sizeof rsn);
    memcpy(x->note, nt, sizeof nt);
    /* client-go's name: the object's name, a dot, the time in nanoseconds in hex; the name cut
     * so that the whole is a valid name (253 bytes) */
    char hex[24];
    int hn = snprintf(hex, sizeof hex, ".%llx", (unsigned long long)wall * 1000ull + (i % 1000));
    snprintf(x->name, sizeof x->name, "%.*s%s", 253 - hn, pod->name, hex);
    x->first_us = x->last_us = wall;
    x->last_ms = now;
    x->count = 1;
    (void)push(e, (uint32_t)i, false);
    pthread_cond_signal(&e->cv);
out:
    pthread_mutex_unlock(&e->mu);
    if (drop) {
        char lb[48];
        snprintf(lb, sizeof lb, "reason=\"%s\"", drop);
        metrics_add(&m_dropped, lb, 1);
        return false;
    }
    return true;
}

bool events_post(events *e, const events_pod *pod, bool warning, const char *action,
                 const char *reason, const char *note)
{
    return record(e, pod, warning, false, action, reason, note);
}

bool events_condition(events *e, const events_pod *pod, bool status, const char *reason,
                      const char *message)
{
    return record(e, pod, !status, true, "", reason, message);
}

/* ---- Writing. */

/* A time as Kubernetes writes it: a MicroTime ("...05.123456Z"), or with micro false a Time
 * (whole seconds, "...05Z"). */
static void put_time_as(jbuf *b, int64_t us, bool micro)
{
    time_t s = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    jb_printf(b, "\"%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
              tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (micro)
        jb_printf(b, ".%06d", (int)(us % 1000000));
    jb_puts(b, "Z\"");
}

static void put_time(jbuf *b, int64_t us)
{
    put_time_as(b, us, true);
}

static void put_series(jbuf *b, const entry *x)
{
    jb_printf(b, "\"series\":{\"count\":%u,\"lastObservedTime\":", (unsigned)x->count);
    put_time(b, x->last_us);
    jb_putc(b, '}');
}

/* The Event, as client-go's recorder makes it. */
static void event_json(const events *e, const entry *x, jbuf *b)
{
    jb_puts(b, "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"metadata\":{\"name\":");
    jb_cstr(b, x->name);
    jb_puts(b, ",\"namespace\":");
    jb_cstr(b, x->ns);
    jb_puts(b, "},\"eventTime\":");
    put_time(b, x->first_us);
    if (x->count > 1) {
        jb_putc(b, ',');
        put_series(b, x);
    }
    jb_puts(b, ",\"reportingController\":");
    jb_cstr(b, e->c.controller);
    jb_puts(b, ",\"reportingInstance\":");
    jb_cstr(b, e->instance);
    jb_puts(b, ",\"action\":");
    jb_cstr(b, x->action);
    jb_puts(b, ",\"reason\":");
    jb_cstr(b, x->reason);
    jb_puts(b, ",\"regarding\":{\"kind\":\"Pod\",\"namespace\":");
    jb_cstr(b, x->ns);
    jb_puts(b, ",\"name\":");
    jb_cstr(b, x->pod);
    if (x->uid[0]) {
        jb_puts(b, ",\"uid\":");
        jb_cstr(b, x->uid);
    }
    jb_puts(b, ",\"apiVersion\":\"v1\"},\"note\":");
    jb_cstr(b, x->note);
    jb_printf(b, ",\"type\":\"%s\"}", x->warning ? "Warning" : "Normal");
}

/* The pod's condition, as a strategic merge patch of its status (conditions merge by type). */
static void condition_json(const entry *x, jbuf *b)
{
    jb_printf(b, "{\"status\":{\"conditions\":[{\"type\":\"%s\",\"status\":\"%s\",\"reason\":",
              EVENTS_CONDITION, x->warning ? "False" : "True");
    jb_cstr(b, x->reason);
    jb_puts(b, ",\"message\":");
    jb_cstr(b, x->note);
    jb_puts(b, ",\"lastTransitionTime\":");
    put_time_as(b, x->first_us, false);
    jb_puts(b, "}]}}");
}

static uint64_t backoff_ms(events *e)
{
    uint64_t d = e->c.backoff_min_ms, max = e->c.backoff_max_ms;
    for (uint32_t i = 1; i < e->failures && d < max; i++)
        d *= 2;
    if (d > max)
        d = max;
    e->rng ^= e->rng << 13;
    e->rng ^= e->rng >> 7;
    e->rng ^= e->rng << 17;
    return d / 2 + e->rng % (d / 2 + 1);
}

static void dropped(const entry *x, const char *why, const char *detail)
{
    char lb[48];
    snprintf(lb, sizeof lb, "reason=\"%s\"", why);
    metrics_add(&m_dropped, lb, 1);
    log_line(LOG_WARN, "event not written", "pod", x->pod, "namespace", x->ns, "reason",
             x->reason, "why", why, "detail", detail, NULL);
}

/* Record the answer to a write of entry i (locked). */
static void answered(events *e, uint32_t i, bool patch, uint32_t count, int rc,
                     const kube_reply *rep, uint64_t now)
{
    entry *x = &e->ents[i];
    x->busy = false;
    long h = rc == 0 ? rep->http : 0;
    if (h >= 200 && h < 300) {
        metrics_add(&m_written,
                    x->cond ? "verb=\"condition\"" : patch ? "verb=\"patch\"" : "verb=\"create\"", 1);
        x->created = true;
        x->written = count;
        x->tries = 0;
        e->failures = 0;
        if (x->written <= 1 && x->count > x->written)
            (void)push(e, i, false); /* a first repeat came during the create */
        return;
    }
    if (!patch && h == 409) {
        /* it exists: an earlier create went through unanswered */
        x->created = true;
        x->written = count;
        if (x->count != count)
            (void)push(e, i, false);
        return;
    }
    if (patch && h == 404 && !x->cond) {
        /* the Event expired (its TTL): create it anew, with its series */
        x->created = false;
        x->written = 0;
        (void)push(e, i, true);
        return;
    }
    bool retry = h == 0 || h == 429 || h >= 500;
    if (!retry) {
        char d[400];
        snprintf(d, sizeof d, "HTTP %ld %s: %s", h, rep->reason, rep->message);
        dropped(x, "rejected", d);
        x->created = true; /* nothing more is tried for it */
        x->written = x->count;
        return;
    }
    metrics_add(&m_failures,
                h == 429 ? "cause=\"429\"" : h ? "cause=\"5xx\"" : "cause=\"no_answer\"", 1);
    e->failures++;
    uint64_t wait = backoff_ms(e);
    if (rep->retry_after_ms > wait)
        wait = rep->retry_after_ms < e->c.backoff_max_ms ? rep->retry_after_ms
                                                          : e->c.backoff_max_ms;
    e->resume_ms = now + wait;
    if (++x->tries >= e->c.tries) {
        dropped(x, "retries", rep->message);
        x->tries = 0;
        x->created = true;
        x->written = x->count;
        return;
    }
    (void)push(e, i, true);
}

/* Queue every entry with a count to write; forget entries whose series ended. */
static void flush(events *e, uint64_t now)
{
    for (uint32_t i = 0; i < e->c.cache; i++) {
        entry *x = &e->ents[i];
        if (!x->used || x->queued || x->busy)
            continue;
        if (pending(x))
            (void)push(e, i, false); /* a count to write, or a write the full queue refused */
        else if (now - x->last_ms >= e->c.window_ms)
            x->used = false;
    }
}

static bool any_pending(const events *e)
{
    for (uint32_t i = 0; i < e->c.cache; i++)
        if (e->ents[i].used && pending(&e->ents[i]))
            return true;
    return false;
}

static void wait_until(events *e, uint64_t t)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = now_ms(), ms = t > now ? t - now : 0;
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    (void)pthread_cond_timedwait(&e->cv, &e->mu, &ts);
}

static void *writer_main(void *arg)
{
    events *e = arg;
    jbuf b;
    jb_init(&b);
    pthread_mutex_lock(&e->mu);
    e->next_flush = now_ms() + e->c.flush_ms;
    for (;;) {
        uint64_t now = now_ms();
        if (e->stop) {
            if (now >= e->drain_until)
                break;
            flush(e, now);
            if (e->len == 0 && !any_pending(e))
                break;
        }
        if (now >= e->next_flush) {
            flush(e, now);
            e->next_flush = now + e->c.flush_ms;
        }
        uint64_t until = e->next_flush;
        if (e->stop && e->drain_until < until)
            until = e->drain_until;
        if (e->len == 0 || now < e->resume_ms) {
            if (e->len && e->resume_ms < until)
                until = e->resume_ms;
            wait_until(e, until);
            continue;
        }
        if (!take_token(e, now)) {
            uint64_t t = now + (uint64_t)(1000.0 / e->c.qps) + 1;
            wait_until(e, t < until ? t : until);
            continue;
        }
        uint32_t i = e->ring[e->head];
        e->head = (e->head + 1) % e->c.queue;
        e->len--;
        entry *x = &e->ents[i];
        x->queued = false;
        if (!pending(x))
            continue;
        x->busy = true;
        bool patch = x->created;
        uint32_t count = x->count;
        char path[512];
        b.len = 0;
        b.oom = false;
        if (x->cond) {
            snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s/status", x->ns, x->pod);
            condition_json(x, &b);
            patch = true;
        } else if (patch) {
            snprintf(path, sizeof path, "/apis/events.k8s.io/v1/namespaces/%s/events/%s", x->ns,
                     x->name);
            jb_putc(&b, '{');
            put_series(&b, x);
            jb_putc(&b, '}');
        } else {
            snprintf(path, sizeof path, "/apis/events.k8s.io/v1/namespaces/%s/events", x->ns);
            event_json(e, x, &b);
        }
        uint32_t timeout = e->c.timeout_ms;
        if (e->stop && e->drain_until - now < timeout)
            timeout = (uint32_t)(e->drain_until - now) + 1;
        pthread_mutex_unlock(&e->mu);
        kube_reply rep;
        int rc = b.oom ? -1 : 0;
        if (rc == 0)
            rc = kube_write(e->w, patch ? "PATCH" : "POST", path,
                            patch ? "application/strategic-merge-patch+json" : "application/json",
                            b.data, b.len, timeout, &rep);
        else
            snprintf(rep.message, sizeof rep.message, "out of memory");
        pthread_mutex_lock(&e->mu);
        answered(e, i, patch, count, rc, &rep, now_ms());
    }
    /* what is left is dropped */
    size_t left = e->len;
    for (uint32_t i = 0; i < e->c.cache; i++)
        if (e->ents[i].used && pending(&e->ents[i]) && !e->ents[i].queued)
            left++;
    pthread_mutex_unlock(&e->mu);
    if (left) {
        metrics_add(&m_dropped, "reason=\"shutdown\"", (double)left);
        log_line(LOG_WARN, "events not written at shutdown", "#events", (int64_t)left, NULL);
    }
    jb_free(&b);
    return NULL;
}

events *events_start(kube *k, const events_config *cfg, char *err, size_t errcap)
{
    events *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    e->c = *cfg;
    events_config *c = &e->c;
    if (!c->controller)
        c->controller = "dracel.dev/dra-extender";
    if (!c->queue)
        c->queue = 1000;
    if (!c->cache)
        c->cache = 4096;
    if (c->queue > c->cache)
        c->queue = c->cache;
    if (!(c->qps > 0))
        c->qps = 5;
    if (!c->burst)
        c->burst = 25;
    if (!c->pod_burst)
        c->pod_burst = 10;
    if (!c->pod_refill_ms)
        c->pod_refill_ms = 60000;
    if (!c->window_ms)
        c->window_ms = 360000;
    if (!c->flush_ms)
        c->flush_ms = 30000;
    if (!c->timeout_ms)
        c->timeout_ms = 10000;
    if (!c->tries)
        c->tries = 12;
    if (!c->backoff_min_ms)
        c->backoff_min_ms = 1000;
    if (!c->backoff_max_ms)
        c->backoff_max_ms = 30000;
    if (c->backoff_max_ms < c->backoff_min_ms)
        c->backoff_max_ms = c->backoff_min_ms;
    const char *inst = c->instance ? c->instance : getenv("POD_NAME");
    char host[256] = "";
    if (!inst || !*inst) {
        if (gethostname(host, sizeof host - 1) != 0 || !host[0])
            snprintf(host, sizeof host, "dra-extender");
        inst = host;
    }
    copy_cut(e->instance, inst, WORD_MAX);
    c->instance = e->instance;
    e->tokens = c->burst;
    e->tokens_ms = now_ms();
    e->rng = (uint64_t)wall_us() | 1;
    e->ents = calloc(c->cache, sizeof *e->ents);
    e->ring = calloc(c->queue, sizeof *e->ring);
    if (!e->ents || !e->ring || kube_writer_new(k, &e->w, err, errcap) != 0) {
        if (!e->w)
            snprintf(err, errcap, "out of memory");
        goto fail;
    }
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        goto nomem;
    int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(&e->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0)
        goto nomem;
    if (pthread_mutex_init(&e->mu, NULL) != 0) {
        pthread_cond_destroy(&e->cv);
        goto nomem;
    }
    if ((rc = pthread_create(&e->thread, NULL, writer_main, e)) != 0) {
        snprintf(err, errcap, "cannot start a thread: %s", strerror(rc));
        pthread_cond_destroy(&e->cv);
        pthread_mutex_destroy(&e->mu);
        goto fail;
    }
    metrics_declare(&m_written);
    metrics_declare(&m_dropped);
    metrics_declare(&m_series);
    metrics_declare(&m_failures);
    metrics_set(&m_queued, NULL, 0);
    return e;
nomem:
    snprintf(err, errcap, "out of memory");
fail:
    kube_writer_free(e->w);
    free(e->ents);
    free(e->ring);
    free(e);
    return NULL;
}

void events_metrics(events *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    size_t n = e->len;
    pthread_mutex_unlock(&e->mu);
    metrics_set(&m_queued, NULL, (double)n);
}

void events_stop(events *e, unsigned grace_ms)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    e->stop = true;
    e->drain_until = now_ms() + grace_ms;
    e->resume_ms = 0; /* no backoff now: the grace is the bound */
    pthread_cond_signal(&e->cv);
    pthread_mutex_unlock(&e->mu);
    (void)pthread_join(e->thread, NULL);
    kube_writer_free(e->w);
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->mu);
    free(e->ents);
    free(e->ring);
    free(e);
}
