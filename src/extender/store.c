/* store.c: dra-extender's view of the cluster (src/extender/store.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "log.h"
#include "metrics.h"
#include "store.h"

static const double build_buckets[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                       0.01,   0.025,   0.05,   0.1,   0.25,   1};
static const metric_family m_build = {
    "dra_extender_snapshot_build_seconds",
    "Time to build a snapshot of the cluster after a burst of changes.", METRIC_HISTOGRAM,
    build_buckets, sizeof build_buckets / sizeof *build_buckets};
static const metric_family m_snapshots = {
    "dra_extender_snapshots_total", "Snapshots published.", METRIC_COUNTER, NULL, 0};
static const metric_family m_objects = {
    "dra_extender_cache_objects",
    "Objects held, by resource (resourceslices, deviceclasses, resourceclaims, nodes, "
    "devicetaintrules), and the "
    "devices of the current snapshot (resource=\"devices\").",
    METRIC_GAUGE, NULL, 0};
static const metric_family m_changes = {
    "dra_extender_store_changes_total",
    "Changes applied to the cluster state, by operation (set_source, apply, delete) and result "
    "(ok, rejected, absent, error).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_lag = {
    "dra_extender_snapshot_lag_seconds",
    "Time from the first change of a burst to the snapshot that includes it.", METRIC_HISTOGRAM,
    build_buckets, sizeof build_buckets / sizeof *build_buckets};

static const metric_family m_refused = {
    "dra_extender_objects_refused",
    "Objects of the cluster the extender cannot take, by resource: each is left out alone "
    "(named in the log), the rest of its resource is current; pods that use a refused claim "
    "fail with its reason.",
    METRIC_GAUGE, NULL, 0};

/* An object left out: its key, resourceVersion and why. */
typedef struct refused {
    unsigned kind;
    char *ns, *name, *rv, *why;
} refused;

/* At most this many are remembered with their reasons (more are only counted). */
#define MAX_REFUSED 4096

struct store {
    store_config cfg;
    dracel_config lib;
    dracel_cluster *c;
    dracel_cluster *scratch;      /* store_check's, under wlock */
    pthread_mutex_t xlock;        /* the refused objects */
    refused *refused;
    size_t nrefused, caprefused;
    pthread_mutex_t wlock;        /* the cluster: one writer at a time */
    pthread_mutex_t plock;        /* the published snapshot and the flags below */
    pthread_cond_t cond, done;
    dracel_snapshot *cur;
    double published, build_s;
    double dirty_since;           /* 0: clean */
    uint64_t changes, built;      /* change counter; the counter value the last snapshot saw */
    unsigned synced;
    uint64_t synced_at;           /* the change counter when the last source synced: ready once
                                     a snapshot holds that much */
    bool stop;
    pthread_t publisher;
    pthread_mutex_t hlock;        /* the hook, held while it runs */
    void (*hook)(void *ctx, dracel_snapshot *snap);
    void *hook_ctx;
};

static const struct {
    unsigned kind;
    const char *label;
} kind_labels[] = {
    {DRACEL_OBJ_SLICE, "resource=\"resourceslices\""},
    {DRACEL_OBJ_CLASS, "resource=\"deviceclasses\""},
    {DRACEL_OBJ_CLAIM, "resource=\"resourceclaims\""},
    {DRACEL_OBJ_NODE, "resource=\"nodes\""},
    {DRACEL_OBJ_TAINT_RULE, "resource=\"devicetaintrules\""},
};

static void count(const char *op, dracel_status st)
{
    const char *res = st == DRACEL_OK ? "ok" : st == DRACEL_EINPUT ? "rejected" : "error";
    char labels[96];
    snprintf(labels, sizeof labels, "op=\"%s\",result=\"%s\"", op, res);
    metrics_add(&m_changes, labels, 1);
}

static void mark_dirty(store *s)
{
    pthread_mutex_lock(&s->plock);
    if (!s->dirty_since)
        s->dirty_since = ext_now();
    s->changes++;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->plock);
}

dracel_status store_set_source(store *s, const char *source, const char *buf, size_t len,
                               unsigned kinds, char *err, size_t errcap)
{
    pthread_mutex_lock(&s->wlock);
    dracel_status st = dracel_cluster_set_source(s->c, source, buf, len, kinds, err, errcap);
    pthread_mutex_unlock(&s->wlock);
    count("set_source", st);
    if (st == DRACEL_OK)
        mark_dirty(s);
    return st;
}

dracel_status store_apply(store *s, const char *source, const char *buf, size_t len,
                          unsigned kinds, char *err, size_t errcap)
{
    pthread_mutex_lock(&s->wlock);
    dracel_status st = dracel_cluster_apply(s->c, source, buf, len, kinds, err, errcap);
    pthread_mutex_unlock(&s->wlock);
    count("apply", st);
    if (st == DRACEL_OK)
        mark_dirty(s);
    return st;
}

dracel_status store_delete(store *s, unsigned kind, const char *ns, const char *name)
{
    pthread_mutex_lock(&s->wlock);
    dracel_status st = dracel_cluster_delete(s->c, kind, ns, name);
    pthread_mutex_unlock(&s->wlock);
    if (st == DRACEL_EINPUT) {
        metrics_add(&m_changes, "op=\"delete\",result=\"absent\"", 1);
        return DRACEL_OK;
    }
    count("delete", st);
    if (st == DRACEL_OK)
        mark_dirty(s);
    return st;
}

dracel_status store_check(store *s, const char *buf, size_t len, unsigned kinds, char *err,
                          size_t errcap)
{
    pthread_mutex_lock(&s->wlock);
    if (!s->scratch) { /* could not be made again (out of memory): nothing is refused */
        pthread_mutex_unlock(&s->wlock);
        return DRACEL_OK;
    }
    dracel_status st = dracel_cluster_set_source(s->scratch, "check", buf, len, kinds, err,
                                                 errcap);
    /* the scratch state keeps nothing between checks */
    char e2[64];
    if (dracel_cluster_set_source(s->scratch, "check", "", 0, kinds, e2, sizeof e2) !=
        DRACEL_OK) {
        dracel_cluster_free(s->scratch);
        s->scratch = NULL;
        if (dracel_cluster_new(&s->lib, &s->scratch) != DRACEL_OK)
            s->scratch = NULL;
    }
    pthread_mutex_unlock(&s->wlock);
    return st;
}

static bool key_eq(const refused *r, unsigned kind, const char *ns, const char *name)
{
    return r->kind == kind && strcmp(r->name, name) == 0 &&
           strcmp(r->ns ? r->ns : "", ns ? ns : "") == 0;
}

static void refused_drop(store *s, size_t i)
{
    refused *r = &s->refused[i];
    free(r->ns);
    free(r->name);
    free(r->rv);
    free(r->why);
    s->refused[i] = s->refused[--s->nrefused];
}

/* Under xlock: the gauge of one kind. */
static void refused_gauge(store *s, unsigned kind)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nrefused; i++)
        n += s->refused[i].kind == kind;
    for (size_t i = 0; i < sizeof kind_labels / sizeof *kind_labels; i++)
        if (kind_labels[i].kind == kind)
            metrics_set(&m_refused, kind_labels[i].label, (double)n);
}

void store_refuse(store *s, unsigned kind, const char *ns, const char *name, const char *rv,
                  const char *why)
{
    pthread_mutex_lock(&s->xlock);
    for (size_t i = 0; i < s->nrefused; i++)
        if (key_eq(&s->refused[i], kind, ns, name)) {
            refused_drop(s, i);
            break;
        }
    if (s->nrefused == s->caprefused && s->caprefused < MAX_REFUSED) {
        size_t cap = s->caprefused ? 2 * s->caprefused : 16;
        refused *r = realloc(s->refused, cap * sizeof *r);
        if (r) {
            s->refused = r;
            s->caprefused = cap;
        }
    }
    if (s->nrefused < s->caprefused) {
        refused *r = &s->refused[s->nrefused];
        r->kind = kind;
        r->ns = ns ? strdup(ns) : NULL;
        r->name = strdup(name ? name : "");
        r->rv = rv ? strdup(rv) : NULL;
        r->why = strdup(why ? why : "");
        if (r->name && r->why && (!ns || r->ns) && (!rv || r->rv)) {
            s->nrefused++;
        } else {
            free(r->ns);
            free(r->name);
            free(r->rv);
            free(r->why);
        }
    }
    refused_gauge(s, kind);
    pthread_mutex_unlock(&s->xlock);
}

void store_unrefuse(store *s, unsigned kind, const char *ns, const char *name)
{
    pthread_mutex_lock(&s->xlock);
    for (size_t i = 0; i < s->nrefused; i++)
        if (key_eq(&s->refused[i], kind, ns, name)) {
            refused_drop(s, i);
            refused_gauge(s, kind);
            break;
        }
    pthread_mutex_unlock(&s->xlock);
}

void store_unrefuse_kind(store *s, unsigned kind)
{
    pthread_mutex_lock(&s->xlock);
    for (size_t i = s->nrefused; i-- > 0;)
        if (s->refused[i].kind == kind)
            refused_drop(s, i);
    refused_gauge(s, kind);
    pthread_mutex_unlock(&s->xlock);
}

bool store_refused(store *s, unsigned kind, const char *ns, const char *name, char *why,
                   size_t cap)
{
    bool found = false;
    pthread_mutex_lock(&s->xlock);
    for (size_t i = 0; i < s->nrefused && !found; i++)
        if (key_eq(&s->refused[i], kind, ns, name)) {
            found = true;
            if (why && cap)
                snprintf(why, cap, "%s", s->refused[i].why);
        }
    pthread_mutex_unlock(&s->xlock);
    return found;
}

size_t store_refused_count(store *s)
{
    pthread_mutex_lock(&s->xlock);
    size_t n = s->nrefused;
    pthread_mutex_unlock(&s->xlock);
    return n;
}

void store_source_synced(store *s)
{
    pthread_mutex_lock(&s->plock);
    s->synced++;
    s->synced_at = s->changes;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->plock);
}

static void set_counts(store *s, const dracel_snapshot *snap)
{
    for (size_t i = 0; i < sizeof kind_labels / sizeof *kind_labels; i++)
        metrics_set(&m_objects, kind_labels[i].label,
                    (double)dracel_cluster_count(s->c, kind_labels[i].kind));
    metrics_set(&m_objects, "resource=\"devices\"",
                (double)dracel_table_rows(dracel_snapshot_table(snap)));
}

/* Build and publish a snapshot of what changed (the writer lock taken here). */
static dracel_status publish(store *s, char *err, size_t errcap)
{
    pthread_mutex_lock(&s->plock);
    uint64_t upto = s->changes;
    double since = s->dirty_since;
    s->dirty_since = 0;
    pthread_mutex_unlock(&s->plock);
    double t0 = ext_now();
    dracel_snapshot *snap = NULL;
    pthread_mutex_lock(&s->wlock);
    dracel_status st = dracel_cluster_snapshot(s->c, &snap, err, errcap);
    if (st == DRACEL_OK)
        set_counts(s, snap);
    pthread_mutex_unlock(&s->wlock);
    double t1 = ext_now();
    if (st != DRACEL_OK) {
        log_line(LOG_ERROR, "cannot build a snapshot", "error", err, NULL);
        pthread_mutex_lock(&s->plock);
        if (!s->dirty_since)
            s->dirty_since = since ? since : t1; /* try again later */
        pthread_mutex_unlock(&s->plock);
        return st;
    }
    metrics_observe(&m_build, NULL, t1 - t0);
    if (since)
        metrics_observe(&m_lag, NULL, t1 - since);
    metrics_add(&m_snapshots, NULL, 1);
    pthread_mutex_lock(&s->plock);
    dracel_snapshot *old = s->cur;
    s->cur = snap;
    s->published = t1;
    s->build_s = t1 - t0;
    if (upto > s->built)
        s->built = upto;
    pthread_cond_broadcast(&s->done);
    pthread_mutex_unlock(&s->plock);
    dracel_snapshot_unref(old);
    log_line(LOG_DEBUG, "snapshot published", "#id", (int64_t)dracel_snapshot_id(snap),
             "%build_ms", (t1 - t0) * 1e3, NULL);
    /* What readers of this snapshot will need, made now rather than by the first request. The
     * reference keeps snap alive though a newer one may replace it meanwhile. */
    pthread_mutex_lock(&s->hlock);
    if (s->hook) {
        dracel_snapshot *ref = dracel_snapshot_ref(snap);
        s->hook(s->hook_ctx, ref);
        dracel_snapshot_unref(ref);
    }
    pthread_mutex_unlock(&s->hlock);
    return DRACEL_OK;
}

void store_set_hook(store *s, void (*fn)(void *ctx, dracel_snapshot *snap), void *ctx)
{
    pthread_mutex_lock(&s->hlock);
    s->hook = fn;
    s->hook_ctx = ctx;
    pthread_mutex_unlock(&s->hlock);
}

static void *publisher_main(void *arg)
{
    store *s = arg;
    pthread_mutex_lock(&s->plock);
    for (;;) {
        /* Nothing is published before every source has its first complete state: a startup
         * that loads 5,000 files, or lists four resources one after the other, makes one
         * snapshot, not one per burst of a partial state no request may read. */
        while (!s->stop && (!s->dirty_since || s->built == s->changes ||
                            s->synced < s->cfg.sources))
            pthread_cond_wait(&s->cond, &s->plock);
        if (s->stop)
            break;
        /* Let the burst finish: wait delay_ms after its first change. */
        double due = s->dirty_since + s->cfg.delay_ms / 1e3;
        double now = ext_now();
        if (now < due) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            double wait = due - now;
            until.tv_sec += (time_t)wait;
            until.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&s->cond, &s->plock, &until);
            if (ext_now() < due && !s->stop)
                continue;
        }
        pthread_mutex_unlock(&s->plock);
        char err[1024];
        publish(s, err, sizeof err);
        pthread_mutex_lock(&s->plock);
    }
    pthread_mutex_unlock(&s->plock);
    return NULL;
}

dracel_status store_flush(store *s, char *err, size_t errcap)
{
    pthread_mutex_lock(&s->plock);
    bool need = (!s->cur || s->built != s->changes) && s->synced >= s->cfg.sources;
    pthread_mutex_unlock(&s->plock);
    return need ? publish(s, err, errcap) : DRACEL_OK;
}

store *store_new(const store_config *cfg, char *err, size_t errcap)
{
    store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    if (cfg->cfg)
        s->lib = *cfg->cfg;
    else
        dracel_config_init(&s->lib);
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->plock, NULL);
    pthread_mutex_init(&s->hlock, NULL);
    pthread_mutex_init(&s->xlock, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_cond_init(&s->done, NULL);
    dracel_status st = dracel_cluster_new(&s->lib, &s->c);
    if (st == DRACEL_OK && (st = dracel_cluster_new(&s->lib, &s->scratch)) != DRACEL_OK)
        dracel_cluster_free(s->c);
    if (st != DRACEL_OK) {
        snprintf(err, errcap, "cannot create the cluster state: %s", dracel_status_string(st));
        free(s);
        return NULL;
    }
    metrics_declare(&m_changes);
    metrics_add(&m_snapshots, NULL, 0);
    for (size_t i = 0; i < sizeof kind_labels / sizeof *kind_labels; i++)
        metrics_set(&m_refused, kind_labels[i].label, 0);
    if (pthread_create(&s->publisher, NULL, publisher_main, s) != 0) {
        snprintf(err, errcap, "cannot start the publisher thread");
        dracel_cluster_free(s->c);
        dracel_cluster_free(s->scratch);
        free(s);
        return NULL;
    }
    return s;
}

void store_free(store *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->plock);
    s->stop = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->plock);
    pthread_join(s->publisher, NULL);
    dracel_snapshot_unref(s->cur);
    dracel_cluster_free(s->c);
    dracel_cluster_free(s->scratch);
    while (s->nrefused)
        refused_drop(s, s->nrefused - 1);
    free(s->refused);
    pthread_mutex_destroy(&s->xlock);
    pthread_mutex_destroy(&s->wlock);
    pthread_mutex_destroy(&s->plock);
    pthread_mutex_destroy(&s->hlock);
    pthread_cond_destroy(&s->cond);
    pthread_cond_destroy(&s->done);
    free(s);
}

dracel_snapshot *store_current(store *s)
{
    pthread_mutex_lock(&s->plock);
    dracel_snapshot *snap = s->cur ? dracel_snapshot_ref(s->cur) : NULL;
    pthread_mutex_unlock(&s->plock);
    return snap;
}

bool store_ready(store *s)
{
    pthread_mutex_lock(&s->plock);
    /* A source's first complete state must be in the snapshot requests read, not only in the
     * cluster state (the publisher may not have run since the last list was applied). */
    bool ready = s->cur && s->synced >= s->cfg.sources && s->built >= s->synced_at;
    pthread_mutex_unlock(&s->plock);
    return ready;
}

void store_times(store *s, double *published, double *build_s)
{
    pthread_mutex_lock(&s->plock);
    *published = s->published;
    *build_s = s->build_s;
    pthread_mutex_unlock(&s->plock);
}
