/* kubesrc.c: the Kubernetes API source of dra-extender (src/extender/kubesrc.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "json.h"
#include "kubesrc.h"
#include "log.h"
#include "metrics.h"

static const metric_family m_events = {
    "dra_extender_watch_events_total",
    "Watch events received, by resource and type (added, modified, deleted, bookmark).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_lists = {
    "dra_extender_watch_lists_total",
    "Complete lists received (the first list and every relist), by resource.", METRIC_COUNTER,
    NULL, 0};
static const metric_family m_relists = {
    "dra_extender_watch_relists_total",
    "Relists started, by resource (410 Gone, a rejected object, a broken stream).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_errors = {
    "dra_extender_watch_errors_total",
    "Failed API requests and objects the cluster state rejected, by resource.",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_disconnects = {
    "dra_extender_watch_disconnects_total", "Watch streams that ended or broke, by resource.",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_synced = {
    "dra_extender_watch_synced",
    "1 once the resource has been listed completely, by resource.", METRIC_GAUGE, NULL, 0};

static const metric_family m_age = {
    "dra_extender_watch_last_event_age_seconds",
    "Seconds since the resource's newest watch event, bookmark or complete list arrived (since "
    "the start before the first). The API server sends a bookmark about once a minute on a "
    "healthy watch: a value of several minutes means the cache is going stale.",
    METRIC_GAUGE, NULL, 0};

static const unsigned kinds[KUBE__N] = {DRACEL_OBJ_SLICE, DRACEL_OBJ_CLASS, DRACEL_OBJ_CLAIM,
                                        DRACEL_OBJ_NODE, DRACEL_OBJ_TAINT_RULE};

struct kubesrc {
    store *st;
    kube *k;
    bool on[KUBE__N];            /* the resources read */
    bool synced[KUBE__N];
    double last[KUBE__N];        /* when the resource's newest event, bookmark or list came */
    pthread_mutex_t lock;        /* synced, last */
};

static void source_name(char *out, size_t cap, kube_res r)
{
    snprintf(out, cap, "api/%s", kube_res_name(r));
}

static void res_label(char *out, size_t cap, kube_res r, const char *extra)
{
    snprintf(out, cap, "resource=\"%s\"%s%s", kube_res_name(r), extra ? "," : "",
             extra ? extra : "");
}

static void touch(kubesrc *k, kube_res r)
{
    double now = ext_now();
    pthread_mutex_lock(&k->lock);
    k->last[r] = now;
    pthread_mutex_unlock(&k->lock);
}

void kubesrc_metrics(kubesrc *k)
{
    if (!k)
        return;
    double now = ext_now(), last[KUBE__N];
    pthread_mutex_lock(&k->lock);
    memcpy(last, k->last, sizeof last);
    pthread_mutex_unlock(&k->lock);
    for (int r = 0; r < KUBE__N; r++) {
        char labels[96];
        res_label(labels, sizeof labels, (kube_res)r, NULL);
        if (k->on[r])
            metrics_set(&m_age, labels, now - last[r]);
    }
}

/* One List of the objects' exact texts (those with keep[i], or all when keep is NULL): the
 * items of a list carry no kind, which the store takes from the resource. */
static char *list_of(const kube_obj *objs, size_t n, const bool *keep, size_t *len)
{
    jbuf b;
    jb_init(&b);
    jb_puts(&b, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (keep && !keep[i])
            continue;
        if (!first)
            jb_putc(&b, ',');
        first = false;
        jb_put(&b, objs[i].json, objs[i].len);
    }
    jb_puts(&b, "]}");
    return jb_take(&b, len);
}

/* An object the store cannot take: left out alone, named in the log and remembered with its
 * reason (one tenant's claim once froze every claim: the whole list was refused). */
static void refuse(kubesrc *k, kube_res r, const kube_obj *obj, const char *why)
{
    log_line(LOG_ERROR, "an object was refused and is left out", "resource", kube_res_name(r),
             "namespace", obj->ns ? obj->ns : "", "name", obj->name ? obj->name : "",
             "resourceVersion", obj->rv ? obj->rv : "", "error", why, NULL);
    store_refuse(k->st, kinds[r], obj->ns, obj->name ? obj->name : "", obj->rv, why);
}

static int on_replace(void *ctx, kube_res r, const kube_obj *objs, size_t n)
{
    kubesrc *k = ctx;
    size_t len;
    char *text = list_of(objs, n, NULL, &len);
    char src[64], labels[96], err[2048];
    source_name(src, sizeof src, r);
    res_label(labels, sizeof labels, r, NULL);
    if (!text) {
        log_line(LOG_ERROR, "out of memory taking a list", "resource", kube_res_name(r), NULL);
        metrics_add(&m_errors, labels, 1);
        return 1;
    }
    dracel_status st = store_set_source(k->st, src, text, len, kinds[r], err, sizeof err);
    free(text);
    size_t left_out = 0;
    if (st == DRACEL_EINPUT) {
        /* Find the objects at fault, each checked alone, and take the others. */
        bool *keep = malloc((n ? n : 1) * sizeof *keep);
        if (!keep) {
            metrics_add(&m_errors, labels, 1);
            return 1;
        }
        store_unrefuse_kind(k->st, kinds[r]);
        for (size_t i = 0; i < n; i++) {
            char why[2048];
            keep[i] = store_check(k->st, objs[i].json, objs[i].len, kinds[r], why,
                                  sizeof why) != DRACEL_EINPUT;
            if (!keep[i]) {
                refuse(k, r, &objs[i], why);
                left_out++;
            }
        }
        text = list_of(objs, n, keep, &len);
        free(keep);
        st = text ? store_set_source(k->st, src, text, len, kinds[r], err, sizeof err)
                  : DRACEL_ENOMEM;
        free(text);
    } else if (st == DRACEL_OK) {
        store_unrefuse_kind(k->st, kinds[r]);
    }
    if (st != DRACEL_OK) {
        /* Not one object's fault (two objects of one key, memory): the list as a whole. */
        log_line(LOG_ERROR, "a list was rejected: the previous objects are kept", "resource",
                 kube_res_name(r), "error", err, NULL);
        metrics_add(&m_errors, labels, 1);
        return 1;
    }
    metrics_add(&m_lists, labels, 1);
    touch(k, r);
    log_line(LOG_INFO, "list applied", "resource", kube_res_name(r), "#objects",
             (int64_t)(n - left_out), "#refused", (int64_t)left_out, NULL);
    return 0;
}

static int on_event(void *ctx, kube_res r, char type, const kube_obj *obj)
{
    kubesrc *k = ctx;
    char src[64], labels[128], err[2048];
    source_name(src, sizeof src, r);
    const char *tname = type == 'A' ? "added" : type == 'M' ? "modified" : "deleted";
    char extra[48];
    snprintf(extra, sizeof extra, "type=\"%s\"", tname);
    res_label(labels, sizeof labels, r, extra);
    metrics_add(&m_events, labels, 1);
    dracel_status st;
    if (type == 'D') {
        st = store_delete(k->st, kinds[r], obj->ns, obj->name);
        store_unrefuse(k->st, kinds[r], obj->ns, obj->name);
    } else {
        st = store_apply(k->st, src, obj->json, obj->len, kinds[r], err, sizeof err);
        if (st == DRACEL_EINPUT) {
            /* This object alone is refused: its earlier version goes (it no longer is what
             * the server holds), the rest of the resource stays current. */
            refuse(k, r, obj, err);
            st = store_delete(k->st, kinds[r], obj->ns, obj->name);
            if (st == DRACEL_EINPUT)
                st = DRACEL_OK;
            res_label(labels, sizeof labels, r, NULL);
            metrics_add(&m_errors, labels, 1);
            if (st == DRACEL_OK) {
                touch(k, r);
                return 0;
            }
        } else if (st == DRACEL_OK) {
            store_unrefuse(k->st, kinds[r], obj->ns, obj->name);
        }
    }
    if (st != DRACEL_OK) {
        res_label(labels, sizeof labels, r, NULL);
        metrics_add(&m_errors, labels, 1);
        log_line(LOG_ERROR, "an object was rejected", "resource", kube_res_name(r), "name",
                 obj->name, "namespace", obj->ns, "error",
                 type == 'D' ? dracel_status_string(st) : err, NULL);
        /* The object is not in the state as the server has it: relist, which replaces all. */
        return 1;
    }
    touch(k, r);
    log_line(LOG_DEBUG, "watch event", "resource", kube_res_name(r), "type", tname, "name",
             obj->name, "namespace", obj->ns, "resourceVersion", obj->rv, NULL);
    return 0;
}

static void on_note(void *ctx, kube_res r, kube_note what, const char *detail)
{
    kubesrc *k = ctx;
    char labels[96];
    res_label(labels, sizeof labels, r, NULL);
    switch (what) {
    case KUBE_NOTE_SYNCED: {
        pthread_mutex_lock(&k->lock);
        bool first = !k->synced[r];
        k->synced[r] = true;
        bool all = true;
        for (int i = 0; i < KUBE__N; i++)
            all &= k->synced[i] || !k->on[i];
        pthread_mutex_unlock(&k->lock);
        metrics_set(&m_synced, labels, 1);
        log_line(LOG_INFO, "resource synced", "resource", kube_res_name(r), NULL);
        if (first && all)
            store_source_synced(k->st);
        break;
    }
    case KUBE_NOTE_RELIST:
        metrics_add(&m_relists, labels, 1);
        log_line(LOG_WARN, "relisting", "resource", kube_res_name(r), "why", detail, NULL);
        break;
    case KUBE_NOTE_BOOKMARK: {
        touch(k, r);
        char l2[128];
        res_label(l2, sizeof l2, r, "type=\"bookmark\"");
        metrics_add(&m_events, l2, 1);
        break;
    }
    case KUBE_NOTE_DISCONNECT:
        metrics_add(&m_disconnects, labels, 1);
        log_line(LOG_INFO, "watch stream ended", "resource", kube_res_name(r), "why", detail,
                 NULL);
        break;
    case KUBE_NOTE_ERROR:
        metrics_add(&m_errors, labels, 1);
        log_line(LOG_WARN, "API request failed", "resource", kube_res_name(r), "error", detail,
                 NULL);
        break;
    case KUBE_NOTE_UNSERVED:
        log_line(LOG_INFO, "resource not served", "resource", kube_res_name(r), "why", detail,
                 NULL);
        break;
    case KUBE_NOTE_BACKOFF:
        log_line(LOG_DEBUG, "backing off", "resource", kube_res_name(r), "ms", detail, NULL);
        break;
    default:
        log_line(LOG_DEBUG, "watch", "resource", kube_res_name(r), "detail", detail, NULL);
        break;
    }
}

kubesrc *kubesrc_start(store *st, const kube_config *cfg, char *err, size_t errcap)
{
    kubesrc *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    k->st = st;
    pthread_mutex_init(&k->lock, NULL);
    for (int r = 0; r < KUBE__N; r++) {
        k->last[r] = ext_now();
        k->on[r] = r != KUBE_RULES || cfg->rules_version;
    }
    /* Every series of the resources read from the start, at 0, so that rates and alerts see
     * them before the first event of their kind. */
    for (int r = 0; r < KUBE__N; r++) {
        if (!k->on[r])
            continue;
        char labels[96];
        res_label(labels, sizeof labels, (kube_res)r, NULL);
        metrics_set(&m_synced, labels, 0);
        metrics_add(&m_lists, labels, 0);
        metrics_add(&m_relists, labels, 0);
        metrics_add(&m_errors, labels, 0);
        metrics_add(&m_disconnects, labels, 0);
        static const char *const types[] = {"added", "modified", "deleted", "bookmark"};
        for (int t = 0; t < 4; t++) {
            char extra[48];
            snprintf(extra, sizeof extra, "type=\"%s\"", types[t]);
            res_label(labels, sizeof labels, (kube_res)r, extra);
            metrics_add(&m_events, labels, 0);
        }
    }
    kubesrc_metrics(k);
    kube_sink sink = {k, on_replace, on_event, on_note};
    if (kube_new(cfg, &sink, &k->k, err, errcap) != 0 || kube_start(k->k, err, errcap) != 0) {
        kube_free(k->k);
        pthread_mutex_destroy(&k->lock);
        free(k);
        return NULL;
    }
    log_line(LOG_INFO, "watching the Kubernetes API", "server", kube_server(k->k), NULL);
    return k;
}

void kubesrc_stop(kubesrc *k)
{
    if (!k)
        return;
    kube_stop(k->k);
    kube_free(k->k);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

kube *kubesrc_kube(kubesrc *k)
{
    return k ? k->k : NULL;
}
