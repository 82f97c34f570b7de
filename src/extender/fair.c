/* fair.c: tier policies in dra-extender (src/extender/fair.h). */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fair.h"
#include "hash.h"
#include "clock.h"
#include "log.h"
#include "metrics.h"

static const metric_family m_info = {
    "dra_extender_policy_info",
    "The tier policy versions kept: 1 for the current one, 0 for the others (labels: version, "
    "hash, mode, seq).",
    METRIC_GAUGE, NULL, 0};
static const metric_family m_reloads = {
    "dra_extender_policy_reloads_total",
    "Reloads of the tier policy by trigger (start, SIGHUP, file_change) and result (loaded, "
    "unchanged, failed: the running version stays).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_rollbacks = {
    "dra_extender_policy_rollbacks_total",
    "Rollbacks to the previous tier policy version by trigger (SIGUSR2, endpoint) and result "
    "(done, none: no previous version).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_usage = {
    "dra_extender_tier_usage_devices",
    "Devices of a tier a tenant has in use: allocated claims plus the extender's recent "
    "decisions not yet seen as allocations.",
    METRIC_GAUGE, NULL, 0};
static const metric_family m_cap = {
    "dra_extender_tier_cap_devices",
    "A tenant's cap on a tier in devices (shares and fair caps of the tier's last known size).",
    METRIC_GAUGE, NULL, 0};
static const metric_family m_size = {
    "dra_extender_tier_size_devices", "The devices of a tier, as last computed for a decision.",
    METRIC_GAUGE, NULL, 0};
static const metric_family m_flight = {
    "dra_extender_tier_in_flight_devices",
    "Devices of a tier in the extender's recent decisions not yet seen as allocations.",
    METRIC_GAUGE, NULL, 0};
static const metric_family m_pending = {
    "dra_extender_pending_decisions",
    "Pods whose recent decision counts toward usage until its allocation is seen.", METRIC_GAUGE,
    NULL, 0};
static const metric_family m_expired = {
    "dra_extender_pending_expired_total",
    "Recent decisions dropped without an allocation seen (expired, or over --max-pending).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_pred = {
    "dra_extender_predictions_total",
    "Allocations compared with the extender's prediction for the node Kubernetes chose: match, "
    "mismatch (logged), unknown (the node was not among the nodes kept).",
    METRIC_COUNTER, NULL, 0};
static const double wait_buckets[] = {0.1, 0.5, 1, 5, 10, 30, 60, 300, 600, 1800, 3600};
static const metric_family m_wait = {
    "dra_extender_placement_wait_seconds",
    "From a pod's first filter decision to its claims' allocation seen, by policy version and "
    "tenant.",
    METRIC_HISTOGRAM, wait_buckets, sizeof wait_buckets / sizeof *wait_buckets};
static const metric_family m_alloc = {
    "dra_extender_allocations_total",
    "Requests of decided pods seen allocated, by policy version, tenant and tier (as the "
    "allocation names it: REQUEST or REQUEST/SUBREQUEST).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_tpend = {
    "dra_extender_tenant_pending_pods",
    "Pods decided but whose allocation is not seen yet, by tenant.", METRIC_GAUGE, NULL, 0};
static const metric_family m_log = {
    "dra_extender_decision_log_records_total",
    "Records written to the decision log (result: written, failed).", METRIC_COUNTER, NULL, 0};

/* ---- Claims' tenants: a claim's tenant is its pod's (a pod label may decide it); the claims
 * of pods the extender decided for are remembered, the others go by namespace. */

enum { CT_SLOTS = 1 << 17, CT_MAX = 1 << 16 };

typedef struct ct_slot {
    char *claim;                 /* "ns/name" */
    char *tenant;
} ct_slot;

typedef struct pend {
    char *pod;                   /* "ns/name" */
    char *tenant;
    double expires;
    char **claims;               /* "ns/name", in the policy's order */
    size_t nclaims;
    char **keys;                 /* the takes, by key name (versions differ in indexes) */
    uint32_t *n;
    size_t ntakes;
    char **nodes, **devs;        /* predicted */
    size_t npred;
    char *policy;                /* the label of the version that decided */
    double since;                /* when the pod was first decided (the wait to placement) */
} pend;

struct fair {
    fair_config c;
    pthread_mutex_t vlock;       /* versions */
    fair_policy **hist;          /* [0] the current one, then older ones */
    size_t nhist;
    uint64_t seq;
    struct stat seen;            /* the file as last read */
    bool seen_ok;
    pthread_t poller;
    bool polling, stop;
    pthread_mutex_t plock;
    pthread_cond_t pcond;

    pthread_mutex_t dlock;       /* decisions: everything below */
    fair_policy *dpol;           /* the version base and work are of (referenced) */
    uint64_t dsnap;              /* the snapshot id base is of */
    dracel_tierusage *base;      /* allocated claims */
    dracel_tierusage *work;      /* base + pending */
    uint64_t *sizes;             /* per key, last known size (0: unknown) */
    pend *pend;
    size_t npend;
    pend own;                    /* the locked pod's entry, taken out */
    bool has_own;
    char *pod_pending;           /* the locked pod's "ns/name" */
    ct_slot *ct;
    size_t nct;

    pthread_mutex_t llock;       /* the log */
    int logfd;
};

static char *dupstr(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* ---- Versions. */

static void pol_unref(fair *f, fair_policy *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&f->vlock);
    bool last = --p->refs == 0;
    pthread_mutex_unlock(&f->vlock);
    if (last) {
        dracel_tierpolicy_free(p->p);
        free(p);
    }
}

fair_policy *fair_acquire(fair *f)
{
    if (!f)
        return NULL;
    pthread_mutex_lock(&f->vlock);
    fair_policy *p = f->hist[0];
    p->refs++;
    pthread_mutex_unlock(&f->vlock);
    return p;
}

void fair_release(fair *f, fair_policy *p)
{
    if (f)
        pol_unref(f, p);
}

static void hash_text(const dracel_tierpolicy *p, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)dracel_tierpolicy_hash(p));
}

/* The policy_info gauges, from the versions kept (vlock held). */
static void info_metrics(fair *f)
{
    metrics_clear(&m_info);
    for (size_t i = 0; i < f->nhist; i++) {
        const fair_policy *v = f->hist[i];
        jbuf b;
        jb_init(&b);
        char h[17];
        hash_text(v->p, h);
        jb_puts(&b, "version=\"");
        metrics_label(&b, dracel_tierpolicy_version(v->p));
        jb_printf(&b, "\",hash=\"%s\",mode=\"%s\",seq=\"%llu\"", h,
                  dracel_tier_mode_name(dracel_tierpolicy_mode(v->p)),
                  (unsigned long long)v->seq);
        char *l = jb_take(&b, NULL);
        if (l)
            metrics_set(&m_info, l, i == 0 ? 1 : 0);
        free(l);
    }
}

static void count_reload(const char *trigger, const char *result)
{
    char l[96];
    snprintf(l, sizeof l, "trigger=\"%s\",result=\"%s\"", trigger, result);
    metrics_add(&m_reloads, l, 1);
}

/* Install p as the current version (vlock held). */
static void push(fair *f, dracel_tierpolicy *p)
{
    fair_policy *v = calloc(1, sizeof *v);
    if (!v) {
        dracel_tierpolicy_free(p);
        return;
    }
    v->p = p;
    v->label = dracel_tierpolicy_label(p);
    v->seq = ++f->seq;
    v->refs = 1;
    fair_policy *drop = NULL;
    if (f->nhist == f->c.history)
        drop = f->hist[--f->nhist];
    memmove(f->hist + 1, f->hist, f->nhist * sizeof *f->hist);
    f->hist[0] = v;
    f->nhist++;
    info_metrics(f);
    if (drop && --drop->refs == 0) {
        dracel_tierpolicy_free(drop->p);
        free(drop);
    }
}

int fair_reload(fair *f, const char *trigger)
{
    char err[2048];
    struct stat st;
    bool stat_ok = stat(f->c.path, &st) == 0;
    dracel_tierpolicy *p = NULL;
    dracel_status s = dracel_tierpolicy_load(f->c.cfg, f->c.path, &p, err, sizeof err);
    pthread_mutex_lock(&f->vlock);
    f->seen = st;
    f->seen_ok = stat_ok;
    if (s != DRACEL_OK) {
        char running[300];
        snprintf(running, sizeof running, "%s", f->hist[0]->label);
        pthread_mutex_unlock(&f->vlock);
        if (s == DRACEL_ENOMEM)
            snprintf(err, sizeof err, "%s: out of memory", f->c.path);
        count_reload(trigger, "failed");
        log_line(LOG_ERROR, "tier policy rejected: the running version stays", "trigger",
                 trigger, "error", err, "running", running, NULL);
        return -1;
    }
    const fair_policy *cur = f->hist[0];
    if (dracel_tierpolicy_hash(cur->p) == dracel_tierpolicy_hash(p) &&
        strcmp(dracel_tierpolicy_version(cur->p), dracel_tierpolicy_version(p)) == 0) {
        pthread_mutex_unlock(&f->vlock);
        dracel_tierpolicy_free(p);
        count_reload(trigger, "unchanged");
        log_line(LOG_INFO, "tier policy unchanged", "trigger", trigger, "policy", cur->label,
                 NULL);
        return 1;
    }
    char from[300];
    snprintf(from, sizeof from, "%s", cur->label);
    push(f, p);
    char to[300];
    snprintf(to, sizeof to, "%s", f->hist[0]->label);
    pthread_mutex_unlock(&f->vlock);
    count_reload(trigger, "loaded");
    log_line(LOG_INFO, "tier policy loaded", "trigger", trigger, "policy", to, "previous", from,
             NULL);
    return 0;
}

int fair_rollback(fair *f, const char *trigger, char *msg, size_t cap)
{
    char l[96];
    pthread_mutex_lock(&f->vlock);
    if (f->nhist < 2) {
        snprintf(msg, cap, "no previous tier policy version to roll back to (current: %s)",
                 f->hist[0]->label);
        pthread_mutex_unlock(&f->vlock);
        snprintf(l, sizeof l, "trigger=\"%s\",result=\"none\"", trigger);
        metrics_add(&m_rollbacks, l, 1);
        log_line(LOG_WARN, "rollback refused", "trigger", trigger, "reason", msg, NULL);
        return -1;
    }
    fair_policy *old = f->hist[0];
    memmove(f->hist, f->hist + 1, (f->nhist - 1) * sizeof *f->hist);
    f->nhist--;
    snprintf(msg, cap, "rolled back from %s to %s", old->label, f->hist[0]->label);
    info_metrics(f);
    pthread_mutex_unlock(&f->vlock);
    snprintf(l, sizeof l, "trigger=\"%s\",result=\"done\"", trigger);
    metrics_add(&m_rollbacks, l, 1);
    log_line(LOG_WARN, "tier policy rolled back", "trigger", trigger, "detail", msg, NULL);
    pol_unref(f, old);
    return 0;
}

void fair_versions_json(fair *f, jbuf *out)
{
    pthread_mutex_lock(&f->vlock);
    jb_puts(out, "{\"file\":");
    jb_cstr(out, f->c.path);
    jb_printf(out, ",\"history\":%u,\"versions\":[", f->c.history);
    for (size_t i = 0; i < f->nhist; i++) {
        const fair_policy *v = f->hist[i];
        char h[17];
        hash_text(v->p, h);
        jb_puts(out, i ? ",{\"version\":" : "{\"version\":");
        jb_cstr(out, dracel_tierpolicy_version(v->p));
        jb_printf(out, ",\"hash\":\"%s\",\"label\":", h);
        jb_cstr(out, v->label);
        jb_printf(out, ",\"mode\":\"%s\",\"seq\":%llu,\"current\":%s}",
                  dracel_tier_mode_name(dracel_tierpolicy_mode(v->p)),
                  (unsigned long long)v->seq, i == 0 ? "true" : "false");
    }
    jb_puts(out, "]}\n");
    pthread_mutex_unlock(&f->vlock);
}

/* ---- The file watch: a change of the file's identity, size or time reloads it. */

static bool changed(const struct stat *a, const struct stat *b)
{
    return a->st_ino != b->st_ino || a->st_dev != b->st_dev || a->st_size != b->st_size ||
           a->st_mtim.tv_sec != b->st_mtim.tv_sec || a->st_mtim.tv_nsec != b->st_mtim.tv_nsec;
}

static void *poll_main(void *arg)
{
    fair *f = arg;
    pthread_mutex_lock(&f->plock);
    while (!f->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += f->c.poll_ms / 1000;
        ts.tv_nsec += (long)(f->c.poll_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&f->pcond, &f->plock, &ts);
        if (f->stop)
            break;
        pthread_mutex_unlock(&f->plock);
        struct stat st;
        bool ok = stat(f->c.path, &st) == 0;
        pthread_mutex_lock(&f->vlock);
        bool diff = ok && (!f->seen_ok || changed(&st, &f->seen));
        pthread_mutex_unlock(&f->vlock);
        if (diff)
            fair_reload(f, "file_change");
        pthread_mutex_lock(&f->plock);
    }
    pthread_mutex_unlock(&f->plock);
    return NULL;
}

/* ---- The log. */

static int open_log(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

bool fair_logging(const fair *f)
{
    return f && f->c.log_path;
}

size_t fair_log_nodes(const fair *f)
{
    return f->c.log_nodes;
}

void fair_reopen_log(fair *f)
{
    if (!fair_logging(f))
        return;
    int fd = open_log(f->c.log_path);
    if (fd < 0) {
        log_line(LOG_ERROR, "cannot reopen the decision log: writing on to the old file",
                 "file", f->c.log_path, "error", strerror(errno), NULL);
        return;
    }
    pthread_mutex_lock(&f->llock);
    int old = f->logfd;
    f->logfd = fd;
    pthread_mutex_unlock(&f->llock);
    if (old >= 0)
        close(old);
    log_line(LOG_INFO, "decision log reopened", "file", f->c.log_path, NULL);
}

void fair_log(fair *f, const char *line, size_t len)
{
    pthread_mutex_lock(&f->llock);
    bool ok = f->logfd >= 0;
    for (size_t off = 0; ok && off < len;) {
        ssize_t w = write(f->logfd, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            ok = false;
        else
            off += (size_t)w;
    }
    pthread_mutex_unlock(&f->llock);
    metrics_add(&m_log, ok ? "result=\"written\"" : "result=\"failed\"", 1);
}

/* ---- Claims' tenants. */

static void ct_clear(fair *f)
{
    for (size_t i = 0; i < CT_SLOTS; i++) {
        free(f->ct[i].claim);
        free(f->ct[i].tenant);
        f->ct[i] = (ct_slot){NULL, NULL};
    }
    f->nct = 0;
}

static void ct_put(fair *f, const char *claim, const char *tenant)
{
    if (!f->ct)
        return;
    size_t k = ext_hash_str(claim) & (CT_SLOTS - 1);
    while (f->ct[k].claim && strcmp(f->ct[k].claim, claim) != 0)
        k = (k + 1) & (CT_SLOTS - 1);
    if (f->ct[k].claim) {
        if (strcmp(f->ct[k].tenant, tenant) == 0)
            return;
        char *t = strdup(tenant);
        if (t) {
            free(f->ct[k].tenant);
            f->ct[k].tenant = t;
        }
        return;
    }
    if (f->nct >= CT_MAX) {
        ct_clear(f); /* bounded: forgotten at once, then by namespace until seen again */
        k = ext_hash_str(claim) & (CT_SLOTS - 1);
    }
    char *c = strdup(claim), *t = strdup(tenant);
    if (!c || !t) {
        free(c);
        free(t);
        return;
    }
    f->ct[k] = (ct_slot){c, t};
    f->nct++;
}

static const char *ct_get(const fair *f, const char *claim)
{
    if (!f->ct)
        return NULL;
    for (size_t k = ext_hash_str(claim) & (CT_SLOTS - 1); f->ct[k].claim;
         k = (k + 1) & (CT_SLOTS - 1))
        if (strcmp(f->ct[k].claim, claim) == 0)
            return f->ct[k].tenant;
    return NULL;
}

/* ---- Pending decisions. */

static void pend_free(pend *p)
{
    free(p->pod);
    free(p->tenant);
    for (size_t i = 0; i < p->nclaims; i++)
        free(p->claims[i]);
    free(p->claims);
    for (size_t i = 0; i < p->ntakes; i++)
        free(p->keys[i]);
    free(p->keys);
    free(p->n);
    for (size_t i = 0; i < p->npred; i++) {
        free(p->nodes[i]);
        free(p->devs[i]);
    }
    free(p->nodes);
    free(p->devs);
    free(p->policy);
    memset(p, 0, sizeof *p);
}

/* Add (sign 1) or remove (-1) p's takes to the work ledger of version v. */
static void pend_apply(fair *f, const pend *p, int sign)
{
    if (!f->work)
        return;
    const dracel_tierpolicy *tp = f->dpol->p;
    size_t t;
    if (dracel_tierpolicy_tenant_find(tp, p->tenant, &t) != DRACEL_OK)
        t = dracel_tierpolicy_tenants(tp);
    for (size_t i = 0; i < p->ntakes; i++) {
        size_t k;
        if (dracel_tierpolicy_key_find(tp, p->keys[i], &k) == DRACEL_OK)
            (void)dracel_tierusage_add(f->work, t, k, sign * (int64_t)p->n[i]);
    }
}

static void split(const char *s, char *ns, size_t cap, const char **name)
{
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t)(slash - s) : 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(ns, s, n);
    ns[n] = '\0';
    *name = slash ? slash + 1 : s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *fair_claim_devices(const dracel_snapshot *snap, size_t claim)
{
    dracel_claim_status cs;
    if (dracel_snapshot_claim(snap, claim, &cs) != DRACEL_OK)
        return NULL;
    char **v = calloc(cs.nresults ? cs.nresults : 1, sizeof *v);
    if (!v)
        return NULL;
    size_t n = 0;
    for (size_t k = 0; k < cs.nresults; k++) {
        dracel_device_result r;
        if (dracel_snapshot_claim_result(snap, claim, k, &r) != DRACEL_OK)
            continue;
        size_t len = strlen(r.request) + strlen(r.driver) + strlen(r.pool) + strlen(r.device) + 4;
        if (!(v[n] = malloc(len)))
            break;
        snprintf(v[n++], len, "%s=%s/%s/%s", r.request, r.driver, r.pool, r.device);
    }
    qsort(v, n, sizeof *v, cmp_str);
    jbuf b;
    jb_init(&b);
    for (size_t i = 0; i < n; i++) {
        if (i)
            jb_putc(&b, ',');
        jb_puts(&b, v[i]);
        free(v[i]);
    }
    free(v);
    jb_putc(&b, '\0');
    return jb_take(&b, NULL);
}

static void allocated_record(fair *f, const dracel_snapshot *snap, const pend *p,
                             const size_t *idx, const char *prediction, const char *node);

/* p's claims are all allocated in snap: compare with the prediction for the node chosen; count
 * the wait and the tiers, and record the choice. */
static void reconcile(fair *f, const dracel_snapshot *snap, const pend *p, const size_t *idx)
{
    /* The node: the first predicted one every claim's allocation admits. */
    size_t at = SIZE_MAX;
    for (size_t i = 0; i < p->npred && at == SIZE_MAX; i++) {
        size_t ni;
        dracel_node nd = {p->nodes[i], NULL, 0};
        if (dracel_snapshot_node_find(snap, p->nodes[i], &ni) == DRACEL_OK)
            dracel_snapshot_node(snap, ni, &nd);
        bool fits = true;
        for (size_t c = 0; c < p->nclaims && fits; c++)
            fits = dracel_snapshot_claim_fits(snap, idx[c], &nd);
        if (fits)
            at = i;
    }
    jbuf got;
    jb_init(&got);
    for (size_t c = 0; c < p->nclaims; c++) {
        char *d = fair_claim_devices(snap, idx[c]);
        if (c)
            jb_putc(&got, ';');
        jb_puts(&got, d ? d : "?");
        free(d);
    }
    jb_putc(&got, '\0');
    char *g = jb_take(&got, NULL);
    jbuf lb;
    jb_init(&lb);
    jb_puts(&lb, "policy=\"");
    metrics_label(&lb, p->policy);
    if (at == SIZE_MAX) {
        jb_puts(&lb, "\",result=\"unknown\"");
        log_line(LOG_INFO, "allocation on a node the prediction did not keep", "pod", p->pod,
                 "allocated", g, NULL);
    } else if (g && strcmp(g, p->devs[at]) == 0) {
        jb_puts(&lb, "\",result=\"match\"");
    } else {
        jb_puts(&lb, "\",result=\"mismatch\"");
        log_line(LOG_WARN, "prediction mismatch", "pod", p->pod, "node", p->nodes[at],
                 "predicted", p->devs[at], "allocated", g, "policy", p->policy, NULL);
    }
    char *lab = jb_take(&lb, NULL);
    if (lab)
        metrics_add(&m_pred, lab, 1);
    free(lab);
    /* the wait to placement, and each request's tier, by tenant */
    jbuf tl;
    jb_init(&tl);
    jb_puts(&tl, "policy=\"");
    metrics_label(&tl, p->policy);
    jb_puts(&tl, "\",tenant=\"");
    metrics_label(&tl, p->tenant ? p->tenant : "");
    jb_putc(&tl, '"');
    size_t base = tl.len;
    jb_putc(&tl, '\0');
    if (!tl.oom)
        metrics_observe(&m_wait, tl.data, ext_now() - p->since);
    for (size_t c = 0; c < p->nclaims; c++) {
        dracel_claim_status cs;
        if (dracel_snapshot_claim(snap, idx[c], &cs) != DRACEL_OK)
            continue;
        const char *last = NULL;
        for (size_t k = 0; k < cs.nresults; k++) {
            dracel_device_result dr;
            if (dracel_snapshot_claim_result(snap, idx[c], k, &dr) != DRACEL_OK ||
                (last && strcmp(last, dr.request) == 0))
                continue;
            last = dr.request;
            tl.len = base;
            jb_puts(&tl, ",tier=\"");
            metrics_label(&tl, dr.request);
            jb_puts(&tl, "\"");
            jb_putc(&tl, '\0');
            if (!tl.oom)
                metrics_add(&m_alloc, tl.data, 1);
        }
    }
    jb_free(&tl);
    if (fair_logging(f))
        allocated_record(f, snap, p, idx,
                         at == SIZE_MAX ? "unknown" : g && strcmp(g, p->devs[at]) == 0 ? "match"
                                                                                      : "mismatch",
                         at == SIZE_MAX ? NULL : p->nodes[at]);
    free(g);
}

/* The decision log's record of an allocation seen: the devices Kubernetes chose for the pod,
 * their model (--model-attribute), the wait and whether the prediction held. */
static void allocated_record(fair *f, const dracel_snapshot *snap, const pend *p,
                             const size_t *idx, const char *prediction, const char *node)
{
    const dracel_table *t = dracel_snapshot_table(snap);
    jbuf b;
    jb_init(&b);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    jb_printf(&b, "{\"time\":\"%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ\",\"verb\":\"allocated\",\"pod\":",
              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
              ts.tv_nsec / 1000000);
    jb_cstr(&b, p->pod);
    jb_puts(&b, ",\"tenant\":");
    jb_cstr(&b, p->tenant ? p->tenant : "");
    jb_puts(&b, ",\"policy\":");
    jb_cstr(&b, p->policy);
    jb_printf(&b, ",\"waitSeconds\":%.3f,\"devices\":[", ext_now() - p->since);
    bool first = true;
    for (size_t c = 0; c < p->nclaims; c++) {
        dracel_claim_status cs;
        if (dracel_snapshot_claim(snap, idx[c], &cs) != DRACEL_OK)
            continue;
        for (size_t k = 0; k < cs.nresults; k++) {
            dracel_device_result dr;
            if (dracel_snapshot_claim_result(snap, idx[c], k, &dr) != DRACEL_OK)
                continue;
            jb_puts(&b, first ? "{\"claim\":" : ",{\"claim\":");
            first = false;
            jb_cstr(&b, p->claims[c]);
            jb_puts(&b, ",\"request\":");
            jb_cstr(&b, dr.request);
            char dev[768];
            snprintf(dev, sizeof dev, "%s/%s/%s", dr.driver, dr.pool, dr.device);
            jb_puts(&b, ",\"device\":");
            jb_cstr(&b, dev);
            jb_puts(&b, ",\"model\":");
            uint32_t row;
            char *m = f->c.model_attribute &&
                              dracel_table_device_find(t, dr.driver, dr.pool, dr.device, &row) ==
                                  DRACEL_OK
                          ? dracel_table_attribute_text(t, row, f->c.model_attribute)
                          : NULL;
            if (m)
                jb_cstr(&b, m);
            else
                jb_puts(&b, "null");
            dracel_free_string(f->c.cfg, m);
            jb_putc(&b, '}');
        }
    }
    jb_printf(&b, "],\"prediction\":\"%s\",\"node\":", prediction);
    if (node)
        jb_cstr(&b, node);
    else
        jb_puts(&b, "null");
    jb_puts(&b, "}\n");
    if (!b.oom)
        fair_log(f, b.data, b.len);
    jb_free(&b);
}

/* Drop pending entries that are allocated in snap (reconciled), expired, or whose claims are
 * gone (dlock held). */
static void sweep(fair *f, const dracel_snapshot *snap)
{
    double now = ext_now();
    size_t k = 0;
    for (size_t i = 0; i < f->npend; i++) {
        pend *p = &f->pend[i];
        size_t small[8], *idx = p->nclaims <= 8 ? small : malloc(p->nclaims * sizeof *idx);
        bool all = idx != NULL, gone = false;
        for (size_t c = 0; idx && c < p->nclaims; c++) {
            char ns[256];
            const char *name;
            split(p->claims[c], ns, sizeof ns, &name);
            dracel_claim_status cs;
            if (dracel_snapshot_claim_find(snap, ns, name, &idx[c]) != DRACEL_OK) {
                gone = true;
                all = false;
                break;
            }
            if (dracel_snapshot_claim(snap, idx[c], &cs) != DRACEL_OK || !cs.allocated)
                all = false;
        }
        bool drop = false;
        if (all && p->nclaims) {
            reconcile(f, snap, p, idx);
            drop = true;
        } else if (gone || now >= p->expires) {
            metrics_add(&m_expired, NULL, 1);
            drop = true;
        }
        if (idx != small)
            free(idx);
        if (drop) {
            pend_free(p);
            continue;
        }
        f->pend[k++] = *p;
    }
    f->npend = k;
}

/* Rebuild base (the allocated claims of snap) and work (base + pending) for f->dpol. */
static void rebuild(fair *f, const dracel_snapshot *snap)
{
    const dracel_tierpolicy *tp = f->dpol->p;
    if (!f->base && dracel_tierusage_new(tp, &f->base) != DRACEL_OK)
        f->base = NULL;
    if (!f->work && dracel_tierusage_new(tp, &f->work) != DRACEL_OK)
        f->work = NULL;
    if (!f->base || !f->work) {
        log_line(LOG_ERROR, "out of memory for the tier usage: caps are not checked", NULL);
        return;
    }
    dracel_tierusage_clear(f->base);
    dracel_tierusage_clear(f->work);
    size_t nt = dracel_tierpolicy_tenants(tp), nc = dracel_snapshot_claims(snap);
    for (size_t i = 0; i < nc; i++) {
        dracel_claim_status cs;
        if (dracel_snapshot_claim(snap, i, &cs) != DRACEL_OK || !cs.allocated)
            continue;
        dracel_tier_take tk[16];
        size_t n = dracel_tierpolicy_claim_takes(tp, snap, i, tk, 16);
        if (!n)
            continue;
        char full[600];
        snprintf(full, sizeof full, "%s/%s", cs.ns ? cs.ns : "", cs.name);
        const char *tn = ct_get(f, full);
        size_t t = nt;
        if (!tn || dracel_tierpolicy_tenant_find(tp, tn, &t) != DRACEL_OK)
            t = dracel_tierpolicy_tenant_of(tp, cs.ns, NULL, 0);
        for (size_t k = 0; k < n && k < 16; k++) {
            (void)dracel_tierusage_add(f->base, t, tk[k].key, tk[k].devices);
            (void)dracel_tierusage_add(f->work, t, tk[k].key, tk[k].devices);
        }
    }
    for (size_t i = 0; i < f->npend; i++)
        pend_apply(f, &f->pend[i], 1);
}

/* Bring base and work to (pv, snap) (dlock held). */
static void bring(fair *f, fair_policy *pv, const dracel_snapshot *snap)
{
    uint64_t id = dracel_snapshot_id(snap);
    bool newpol = f->dpol != pv;
    if (newpol) {
        dracel_tierusage_free(f->base);
        dracel_tierusage_free(f->work);
        f->base = f->work = NULL;
        free(f->sizes);
        f->sizes = calloc(dracel_tierpolicy_keys(pv->p) + 1, sizeof *f->sizes);
        pthread_mutex_lock(&f->vlock);
        pv->refs++;
        pthread_mutex_unlock(&f->vlock);
        fair_policy *old = f->dpol;
        f->dpol = pv;
        pol_unref(f, old);
    }
    if (newpol || id != f->dsnap) {
        sweep(f, snap);
        f->dsnap = id;
        rebuild(f, snap);
    } else {
        /* expiry without a new snapshot */
        double now = ext_now();
        for (size_t i = 0; i < f->npend; i++)
            if (now >= f->pend[i].expires) {
                sweep(f, snap);
                rebuild(f, snap);
                break;
            }
    }
    metrics_set(&m_pending, NULL, (double)f->npend);
}

void fair_lock(fair *f, fair_policy *pv, const dracel_snapshot *snap, const char *ns,
               const char *name)
{
    pthread_mutex_lock(&f->dlock);
    bring(f, pv, snap);
    f->has_own = false;
    char full[600];
    snprintf(full, sizeof full, "%s/%s", ns, name);
    free(f->pod_pending);
    f->pod_pending = strdup(full);
    for (size_t i = 0; i < f->npend; i++)
        if (strcmp(f->pend[i].pod, full) == 0) {
            f->own = f->pend[i];
            f->pend[i] = f->pend[--f->npend];
            f->has_own = true;
            pend_apply(f, &f->own, -1);
            break;
        }
}

const dracel_tierusage *fair_usage(fair *f)
{
    return f->work;
}

uint64_t fair_in_flight(fair *f, size_t key)
{
    if (!f->work || !f->base)
        return 0;
    uint64_t w = dracel_tierusage_total(f->work, key), b = dracel_tierusage_total(f->base, key);
    return w > b ? w - b : 0;
}

void fair_note_size(fair *f, size_t key, uint64_t size)
{
    if (f->sizes && key < dracel_tierpolicy_keys(f->dpol->p))
        f->sizes[key] = size;
}

static void put_back(fair *f, pend *p)
{
    if (f->npend >= f->c.max_pending) {
        /* the oldest (first) goes */
        pend_apply(f, &f->pend[0], -1);
        pend_free(&f->pend[0]);
        memmove(f->pend, f->pend + 1, (f->npend - 1) * sizeof *f->pend);
        f->npend--;
        metrics_add(&m_expired, NULL, 1);
    }
    f->pend[f->npend++] = *p;
    pend_apply(f, p, 1);
}

void fair_unlock(fair *f, bool record, size_t tenant, const fair_take *takes, size_t ntakes,
                 const char *const *claims, size_t nclaims, const fair_predicted *pred,
                 size_t npred)
{
    if (!record) {
        if (f->has_own)
            put_back(f, &f->own);
        f->has_own = false;
        pthread_mutex_unlock(&f->dlock);
        return;
    }
    double since = f->has_own && f->own.since > 0 ? f->own.since : ext_now();
    if (f->has_own)
        pend_free(&f->own);
    f->has_own = false;
    /* Decisions that take nothing the policy counts are kept too: for reconciliation. */
    if (nclaims && npred) {
        const dracel_tierpolicy *tp = f->dpol->p;
        dracel_tenant_info ti;
        pend p;
        memset(&p, 0, sizeof p);
        bool ok = dracel_tierpolicy_tenant(tp, tenant, &ti) == DRACEL_OK;
        if (npred > f->c.max_predicted)
            npred = f->c.max_predicted;
        p.tenant = ok ? dupstr(ti.name) : NULL;
        p.expires = ext_now() + f->c.pending_ttl;
        p.since = since;
        p.claims = calloc(nclaims, sizeof *p.claims);
        p.keys = calloc(ntakes ? ntakes : 1, sizeof *p.keys);
        p.n = calloc(ntakes ? ntakes : 1, sizeof *p.n);
        p.nodes = calloc(npred ? npred : 1, sizeof *p.nodes);
        p.devs = calloc(npred ? npred : 1, sizeof *p.devs);
        p.policy = dupstr(f->dpol->label);
        ok = ok && p.tenant && p.claims && p.keys && p.n && p.nodes && p.devs && p.policy;
        for (size_t i = 0; ok && i < nclaims; i++, p.nclaims++)
            ok = (p.claims[i] = dupstr(claims[i])) != NULL;
        for (size_t i = 0; ok && i < ntakes; i++, p.ntakes++) {
            ok = (p.keys[i] = dupstr(dracel_tierpolicy_key(tp, takes[i].key))) != NULL;
            p.n[i] = takes[i].n;
        }
        for (size_t i = 0; ok && i < npred; i++, p.npred++)
            ok = (p.nodes[i] = dupstr(pred[i].node)) != NULL &&
                 (p.devs[i] = dupstr(pred[i].devices ? pred[i].devices : "")) != NULL;
        p.pod = f->pod_pending;
        f->pod_pending = NULL;
        ok = ok && p.pod;
        if (ok) {
            for (size_t i = 0; i < nclaims; i++)
                ct_put(f, claims[i], ti.name);
            put_back(f, &p);
        } else {
            pend_free(&p);
            log_line(LOG_ERROR, "out of memory recording a decision", NULL);
        }
    }
    free(f->pod_pending);
    f->pod_pending = NULL;
    metrics_set(&m_pending, NULL, (double)f->npend);
    pthread_mutex_unlock(&f->dlock);
}

/* ---- Metrics of the usage. */

static void usage_metrics(fair *f)
{
    metrics_clear(&m_tpend);
    for (size_t i = 0; i < f->npend; i++) {
        const char *t = f->pend[i].tenant ? f->pend[i].tenant : "";
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(f->pend[j].tenant ? f->pend[j].tenant : "", t) == 0;
        if (seen)
            continue;
        size_t n = 0;
        for (size_t j = i; j < f->npend; j++)
            n += strcmp(f->pend[j].tenant ? f->pend[j].tenant : "", t) == 0;
        jbuf lb;
        jb_init(&lb);
        jb_puts(&lb, "tenant=\"");
        metrics_label(&lb, t);
        jb_puts(&lb, "\"");
        jb_putc(&lb, '\0');
        if (!lb.oom)
            metrics_set(&m_tpend, lb.data, (double)n);
        jb_free(&lb);
    }
    metrics_clear(&m_usage);
    metrics_clear(&m_cap);
    metrics_clear(&m_size);
    metrics_clear(&m_flight);
    if (!f->work)
        return;
    const dracel_tierpolicy *tp = f->dpol->p;
    size_t nt = dracel_tierpolicy_tenants(tp), nk = dracel_tierpolicy_keys(tp);
    for (size_t k = 0; k < nk; k++) {
        const char *kn = dracel_tierpolicy_key(tp, k);
        jbuf b;
        jb_init(&b);
        jb_puts(&b, "policy=\"");
        metrics_label(&b, f->dpol->label);
        jb_puts(&b, "\",tier=\"");
        metrics_label(&b, kn);
        jb_putc(&b, '"');
        size_t base_len = b.len;
        jb_putc(&b, '\0');
        if (!b.oom) {
            if (f->sizes[k])
                metrics_set(&m_size, b.data, (double)f->sizes[k]);
            metrics_set(&m_flight, b.data, (double)fair_in_flight(f, k));
        }
        for (size_t t = 0; t <= nt; t++) {
            uint64_t used = dracel_tierusage_used(f->work, t, k);
            const char *ct = dracel_tierpolicy_cap_text(tp, t, k);
            if (!used && !ct)
                continue;
            dracel_tenant_info ti;
            if (dracel_tierpolicy_tenant(tp, t, &ti) != DRACEL_OK)
                continue;
            b.len = base_len;
            jb_puts(&b, ",tenant=\"");
            metrics_label(&b, ti.name);
            jb_putc(&b, '"');
            jb_putc(&b, '\0');
            if (b.oom)
                break;
            metrics_set(&m_usage, b.data, (double)used);
            bool count = ct && strchr(ct, '%') == NULL && strcmp(ct, "fair") != 0;
            if (ct && (count || f->sizes[k]))
                metrics_set(&m_cap, b.data,
                            (double)dracel_tierpolicy_cap(tp, t, k, f->sizes[k]));
        }
        jb_free(&b);
    }
}

void fair_sync(fair *f, const dracel_snapshot *snap)
{
    if (!f)
        return;
    fair_policy *pv = fair_acquire(f);
    pthread_mutex_lock(&f->dlock);
    if (snap)
        bring(f, pv, snap);
    if (f->dpol)
        usage_metrics(f);
    pthread_mutex_unlock(&f->dlock);
    fair_release(f, pv);
}

/* ---- Life. */

fair *fair_new(const fair_config *c, char *err, size_t errcap)
{
    fair *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    f->c = *c;
    if (!f->c.history)
        f->c.history = 5;
    if (!f->c.max_pending)
        f->c.max_pending = 1024;
    if (!f->c.max_predicted)
        f->c.max_predicted = 256;
    if (f->c.pending_ttl <= 0)
        f->c.pending_ttl = 60;
    f->logfd = -1;
    pthread_mutex_init(&f->vlock, NULL);
    pthread_mutex_init(&f->dlock, NULL);
    pthread_mutex_init(&f->llock, NULL);
    pthread_mutex_init(&f->plock, NULL);
    pthread_cond_init(&f->pcond, NULL);
    f->hist = calloc(f->c.history, sizeof *f->hist);
    f->pend = calloc(f->c.max_pending, sizeof *f->pend);
    f->ct = calloc(CT_SLOTS, sizeof *f->ct);
    if (!f->hist || !f->pend || !f->ct) {
        snprintf(err, errcap, "out of memory");
        fair_free(f);
        return NULL;
    }
    dracel_tierpolicy *p = NULL;
    struct stat st;
    f->seen_ok = stat(c->path, &st) == 0;
    f->seen = st;
    dracel_status s = dracel_tierpolicy_load(c->cfg, c->path, &p, err, errcap);
    if (s != DRACEL_OK) {
        if (s == DRACEL_ENOMEM)
            snprintf(err, errcap, "%s: out of memory", c->path);
        fair_free(f);
        return NULL;
    }
    pthread_mutex_lock(&f->vlock);
    push(f, p);
    pthread_mutex_unlock(&f->vlock);
    if (!f->nhist) {
        snprintf(err, errcap, "out of memory");
        fair_free(f);
        return NULL;
    }
    count_reload("start", "loaded");
    if (c->log_path && (f->logfd = open_log(c->log_path)) < 0) {
        snprintf(err, errcap, "%s: %s", c->log_path, strerror(errno));
        fair_free(f);
        return NULL;
    }
    metrics_declare(&m_rollbacks);
    metrics_declare(&m_pred);
    metrics_declare(&m_wait);
    metrics_declare(&m_alloc);
    metrics_declare(&m_tpend);
    metrics_declare(&m_expired);
    metrics_declare(&m_usage);
    metrics_declare(&m_cap);
    if (f->c.poll_ms) {
        if (pthread_create(&f->poller, NULL, poll_main, f) != 0) {
            snprintf(err, errcap, "cannot start the policy file watch");
            fair_free(f);
            return NULL;
        }
        f->polling = true;
    }
    log_line(LOG_INFO, "tier policy loaded", "trigger", "start", "policy", f->hist[0]->label,
             "file", c->path, "mode",
             dracel_tier_mode_name(dracel_tierpolicy_mode(f->hist[0]->p)), NULL);
    return f;
}

void fair_free(fair *f)
{
    if (!f)
        return;
    if (f->polling) {
        pthread_mutex_lock(&f->plock);
        f->stop = true;
        pthread_cond_signal(&f->pcond);
        pthread_mutex_unlock(&f->plock);
        pthread_join(f->poller, NULL);
    }
    for (size_t i = 0; i < f->npend; i++)
        pend_free(&f->pend[i]);
    free(f->pend);
    dracel_tierusage_free(f->base);
    dracel_tierusage_free(f->work);
    free(f->sizes);
    fair_policy *d = f->dpol;
    f->dpol = NULL;
    if (d)
        pol_unref(f, d);
    for (size_t i = 0; f->hist && i < f->nhist; i++)
        pol_unref(f, f->hist[i]);
    free(f->hist);
    if (f->ct)
        ct_clear(f);
    free(f->ct);
    if (f->logfd >= 0)
        close(f->logfd);
    free(f->pod_pending);
    free(f);
}
