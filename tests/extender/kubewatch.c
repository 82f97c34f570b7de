/*
 * kubewatch: runs dra-extender's API client (src/kube/kube.c) alone, for
 * tests/extender/watch.sh. Not installed.
 *
 *   kubewatch (--kubeconfig FILE [--context NAME] | --in-cluster [--token-file F] [--ca-file F])
 *             [--list-limit N] [--watch-timeout S] [--idle-timeout S] [--connect-timeout MS]
 *             [--backoff-min MS] [--backoff-max MS] [--max-object-bytes N] [--max-list-bytes N]
 *             [--refuse-event N] [--refuse-replace N]
 *             [--describe | --until-synced | --for SECONDS] [--dump FILE]
 *
 * Its sink keeps a map (resource, namespace, name) -> the object's exact text, and counts the
 * client's notes and what would be a client bug: a list with one object twice, an ADDED event
 * for an object held, a MODIFIED or DELETED one for an object not held. Each note is logged on
 * standard error with the milliseconds since the start.
 *
 * It writes its state (see dump()) on SIGUSR1 (to --dump FILE, replaced atomically, or standard
 * output), and at the end: after --until-synced, after --for SECONDS, or on SIGTERM/SIGINT,
 * when it also measures how long kube_stop took ("stop_ms"). The objects are written as
 * fakeapi's /_control/state writes them, one per line, so that the two can be compared with
 * cmp. --describe prints kube_describe() and exits (exit 1 with kube_new's message on error).
 * --refuse-event N and --refuse-replace N make the sink refuse its Nth event or list once.
 *
 *   kubewatch --ctl METHOD URL [BODY | @FILE]
 *
 * sends one request (fakeapi's control interface, so that the tests need no curl command) and
 * writes the response's body; exit 0 on a 2xx status, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "kube.h"

static const char *const note_names[KUBE_NOTE__N] = {
    [KUBE_NOTE_LISTED] = "listed", [KUBE_NOTE_SYNCED] = "synced", [KUBE_NOTE_RELIST] = "relist",
    [KUBE_NOTE_WATCH] = "watch", [KUBE_NOTE_BOOKMARK] = "bookmark",
    [KUBE_NOTE_DISCONNECT] = "disconnect", [KUBE_NOTE_ERROR] = "error",
    [KUBE_NOTE_BACKOFF] = "backoff", [KUBE_NOTE_UNSERVED] = "unserved",
};

typedef struct entry {
    struct entry *next;
    char *ns, *name; /* ns "" when cluster-scoped */
    char *text;
    size_t len;
} entry;

enum { NBUCKETS = 1 << 16 };

typedef struct res_map {
    entry **buckets;
    size_t n;
    unsigned long notes[KUBE_NOTE__N];
    unsigned long added, modified, deleted;
    unsigned long dups, added_held, changed_missing;
    char last_rv[64], last_bookmark[64], last_watch[64];
    char last_relist[256], last_error[256], last_disconnect[256];
    uint64_t relist_start, list_ms, first_event, last_event; /* ms since the start */
} res_map;

static struct {
    pthread_mutex_t mu;
    res_map res[KUBE__N];
    uint64_t t0;
    long refuse_event, refuse_replace; /* 0: never */
    unsigned long events, replaces;
    long stop_ms;
} W = {.mu = PTHREAD_MUTEX_INITIALIZER, .stop_ms = -1};

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
    fputs("kubewatch: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static char *dupn(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        die("out of memory");
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static uint32_t hash(const char *ns, const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = ns; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    h = (h ^ '/') * 16777619u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h & (NBUCKETS - 1);
}

static entry **find(res_map *m, const char *ns, const char *name)
{
    entry **e = &m->buckets[hash(ns, name)];
    while (*e && (strcmp((*e)->ns, ns) != 0 || strcmp((*e)->name, name) != 0))
        e = &(*e)->next;
    return e;
}

static void entry_free(entry *e)
{
    free(e->ns);
    free(e->name);
    free(e->text);
    free(e);
}

static void clear(res_map *m)
{
    for (size_t b = 0; b < NBUCKETS; b++)
        while (m->buckets[b]) {
            entry *e = m->buckets[b];
            m->buckets[b] = e->next;
            entry_free(e);
        }
    m->n = 0;
}

/* Put obj in m; false when it was held already (replaced). */
static bool put(res_map *m, const kube_obj *o)
{
    const char *ns = o->ns ? o->ns : "";
    entry **slot = find(m, ns, o->name);
    if (*slot) {
        free((*slot)->text);
        (*slot)->text = dupn(o->json, o->len);
        (*slot)->len = o->len;
        return false;
    }
    entry *e = calloc(1, sizeof *e);
    if (!e)
        die("out of memory");
    e->ns = dupn(ns, strlen(ns));
    e->name = dupn(o->name, strlen(o->name));
    e->text = dupn(o->json, o->len);
    e->len = o->len;
    *slot = e;
    m->n++;
    return true;
}

static int on_replace(void *ctx, kube_res r, const kube_obj *objs, size_t n)
{
    (void)ctx;
    pthread_mutex_lock(&W.mu);
    res_map *m = &W.res[r];
    if (++W.replaces == (unsigned long)W.refuse_replace) {
        pthread_mutex_unlock(&W.mu);
        return 1;
    }
    clear(m);
    for (size_t i = 0; i < n; i++)
        if (!put(m, &objs[i]))
            m->dups++;
    pthread_mutex_unlock(&W.mu);
    return 0;
}

static int on_event(void *ctx, kube_res r, char type, const kube_obj *o)
{
    (void)ctx;
    pthread_mutex_lock(&W.mu);
    res_map *m = &W.res[r];
    if (++W.events == (unsigned long)W.refuse_event) {
        pthread_mutex_unlock(&W.mu);
        return 1;
    }
    uint64_t t = now_ms() - W.t0;
    if (!m->first_event)
        m->first_event = t;
    m->last_event = t;
    const char *ns = o->ns ? o->ns : "";
    if (type == 'D') {
        m->deleted++;
        entry **slot = find(m, ns, o->name);
        if (*slot) {
            entry *e = *slot;
            *slot = e->next;
            entry_free(e);
            m->n--;
        } else {
            m->changed_missing++;
        }
    } else {
        bool added = put(m, o);
        if (type == 'A') {
            m->added++;
            if (!added)
                m->added_held++;
        } else {
            m->modified++;
            if (added)
                m->changed_missing++;
        }
    }
    if (o->rv)
        snprintf(m->last_rv, sizeof m->last_rv, "%s", o->rv);
    pthread_mutex_unlock(&W.mu);
    return 0;
}

static void on_note(void *ctx, kube_res r, kube_note what, const char *detail)
{
    (void)ctx;
    pthread_mutex_lock(&W.mu);
    res_map *m = &W.res[r];
    uint64_t t = now_ms() - W.t0;
    m->notes[what]++;
    detail = detail ? detail : "";
    switch (what) {
    case KUBE_NOTE_BOOKMARK:
        snprintf(m->last_bookmark, sizeof m->last_bookmark, "%s", detail);
        snprintf(m->last_rv, sizeof m->last_rv, "%s", detail);
        break;
    case KUBE_NOTE_WATCH:
        snprintf(m->last_watch, sizeof m->last_watch, "%s", detail);
        break;
    case KUBE_NOTE_RELIST:
        snprintf(m->last_relist, sizeof m->last_relist, "%s", detail);
        m->relist_start = t;
        break;
    case KUBE_NOTE_LISTED:
        m->list_ms = t - m->relist_start;
        break;
    case KUBE_NOTE_ERROR:
        snprintf(m->last_error, sizeof m->last_error, "%s", detail);
        break;
    case KUBE_NOTE_DISCONNECT:
        snprintf(m->last_disconnect, sizeof m->last_disconnect, "%s", detail);
        break;
    default:
        break;
    }
    pthread_mutex_unlock(&W.mu);
    /* the bookmarks would drown the log */
    if (what != KUBE_NOTE_BOOKMARK)
        fprintf(stderr, "%8llu %s %s %s\n", (unsigned long long)t, kube_res_name(r), note_names[what], detail);
}

/* A JSON string literal. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = *(const entry *const *)a, *y = *(const entry *const *)b;
    int c = strcmp(x->ns, y->ns);
    return c ? c : strcmp(x->name, y->name);
}

/* The state: one line of global fields, the notes (a line per resource), then the objects. */
static void dump(FILE *f, bool synced)
{
    pthread_mutex_lock(&W.mu);
    fprintf(f, "{\"synced\":%s,\"stop_ms\":%ld,\"events\":%lu,\n\"notes\":{\n", synced ? "true" : "false",
            W.stop_ms, W.events);
    for (int r = 0; r < KUBE__N; r++) {
        res_map *m = &W.res[r];
        fprintf(f, "%s\"%s\":{", r ? "," : "", kube_res_name((kube_res)r));
        for (int i = 0; i < KUBE_NOTE__N; i++)
            fprintf(f, "\"%s\":%lu,", note_names[i], m->notes[i]);
        fprintf(f, "\"objects\":%zu,\"added\":%lu,\"modified\":%lu,\"deleted\":%lu,\"dups\":%lu,"
                   "\"added_held\":%lu,\"changed_missing\":%lu,\"list_ms\":%llu,"
                   "\"first_event_ms\":%llu,\"last_event_ms\":%llu,",
                m->n, m->added, m->modified, m->deleted, m->dups, m->added_held, m->changed_missing,
                (unsigned long long)m->list_ms, (unsigned long long)m->first_event,
                (unsigned long long)m->last_event);
        fputs("\"last_rv\":", f);
        json_str(f, m->last_rv);
        fputs(",\"last_bookmark\":", f);
        json_str(f, m->last_bookmark);
        fputs(",\"last_watch\":", f);
        json_str(f, m->last_watch);
        fputs(",\"last_relist\":", f);
        json_str(f, m->last_relist);
        fputs(",\"last_error\":", f);
        json_str(f, m->last_error);
        fputs(",\"last_disconnect\":", f);
        json_str(f, m->last_disconnect);
        fputs("}\n", f);
    }
    fputs("},\n\"objects\":[\n", f);
    bool first = true;
    for (int r = 0; r < KUBE__N; r++) {
        res_map *m = &W.res[r];
        entry **all = malloc((m->n + 1) * sizeof *all);
        if (!all)
            die("out of memory");
        size_t k = 0;
        for (size_t b = 0; b < NBUCKETS; b++)
            for (entry *e = m->buckets[b]; e; e = e->next)
                all[k++] = e;
        qsort(all, k, sizeof *all, cmp_entry);
        for (size_t i = 0; i < k; i++) {
            fputs(first ? "[" : ",[", f);
            first = false;
            json_str(f, kube_res_name((kube_res)r));
            fputc(',', f);
            json_str(f, all[i]->ns);
            fputc(',', f);
            json_str(f, all[i]->name);
            fputc(',', f);
            fwrite(all[i]->text, 1, all[i]->len, f);
            fputs("]\n", f);
        }
        free(all);
    }
    fputs("]}\n", f);
    pthread_mutex_unlock(&W.mu);
}

static void write_state(const char *path, bool synced)
{
    if (!path) {
        dump(stdout, synced);
        if (fflush(stdout) != 0)
            die("cannot write the state");
        return;
    }
    size_t n = strlen(path) + 8;
    char *tmp = malloc(n);
    if (!tmp)
        die("out of memory");
    snprintf(tmp, n, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        die("%s: %s", tmp, strerror(errno));
    dump(f, synced);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        die("%s: %s", path, strerror(errno));
    free(tmp);
}

static size_t ctl_out(char *p, size_t size, size_t n, void *ud)
{
    (void)ud;
    return fwrite(p, size, n, stdout) * size;
}

static int ctl(int argc, char **argv)
{
    if (argc < 2 || argc > 3)
        die("usage: kubewatch --ctl METHOD URL [BODY | @FILE]");
    char *body = NULL;
    size_t len = 0;
    if (argc == 3 && argv[2][0] == '@') {
        FILE *f = fopen(argv[2] + 1, "rb");
        if (!f)
            die("%s: %s", argv[2] + 1, strerror(errno));
        char tmp[65536];
        size_t n;
        while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
            char *nb = realloc(body, len + n + 1);
            if (!nb)
                die("out of memory");
            body = nb;
            memcpy(body + len, tmp, n);
            len += n;
        }
        if (ferror(f))
            die("%s: read error", argv[2] + 1);
        fclose(f);
    } else if (argc == 3) {
        len = strlen(argv[2]);
        body = dupn(argv[2], len);
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        die("curl_global_init failed");
    CURL *e = curl_easy_init();
    if (!e)
        die("curl_easy_init failed");
    CURLcode r = curl_easy_setopt(e, CURLOPT_URL, argv[1]);
    if (r == CURLE_OK)
        r = curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, argv[0]);
    if (r == CURLE_OK)
        r = curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, ctl_out);
    if (r == CURLE_OK)
        r = curl_easy_setopt(e, CURLOPT_TIMEOUT, 60L);
    if (r == CURLE_OK)
        r = curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
    if (r == CURLE_OK && body) {
        r = curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
        if (r == CURLE_OK)
            r = curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    if (r == CURLE_OK)
        r = curl_easy_perform(e);
    long code = 0;
    if (r == CURLE_OK)
        r = curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(e);
    curl_global_cleanup();
    free(body);
    if (fflush(stdout) != 0)
        die("cannot write the response");
    if (r != CURLE_OK) {
        fprintf(stderr, "kubewatch --ctl: %s\n", curl_easy_strerror(r));
        return 1;
    }
    return code >= 200 && code < 300 ? 0 : 1;
}

static uint32_t number(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || v > UINT32_MAX)
        die("%s: a number is expected: %s", opt, s);
    return (uint32_t)v;
}

int main(int argc, char **argv)
{
    kube_config cfg;
    memset(&cfg, 0, sizeof cfg);
    bool in_cluster = false, describe = false, until_synced = false;
    long run_for = -1;
    const char *dump_path = NULL;
    if (argc > 1 && strcmp(argv[1], "--ctl") == 0)
        return ctl(argc - 2, argv + 2);
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (strcmp(o, name) == 0 && v && (i++, true))
        if (OPT("--kubeconfig"))
            cfg.kubeconfig = v;
        else if (OPT("--context"))
            cfg.context = v;
        else if (strcmp(o, "--in-cluster") == 0)
            in_cluster = true;
        else if (OPT("--token-file"))
            cfg.token_file = v;
        else if (OPT("--ca-file"))
            cfg.ca_file = v;
        else if (OPT("--list-limit"))
            cfg.list_limit = number(o, v);
        else if (OPT("--watch-timeout"))
            cfg.watch_timeout_s = number(o, v);
        else if (OPT("--idle-timeout"))
            cfg.idle_timeout_s = number(o, v);
        else if (OPT("--connect-timeout"))
            cfg.connect_timeout_ms = number(o, v);
        else if (OPT("--backoff-min"))
            cfg.backoff_min_ms = number(o, v);
        else if (OPT("--backoff-max"))
            cfg.backoff_max_ms = number(o, v);
        else if (OPT("--max-object-bytes"))
            cfg.max_object_bytes = number(o, v);
        else if (OPT("--max-list-bytes"))
            cfg.max_list_bytes = number(o, v);
        else if (OPT("--refuse-event"))
            W.refuse_event = number(o, v);
        else if (OPT("--refuse-replace"))
            W.refuse_replace = number(o, v);
        else if (strcmp(o, "--describe") == 0)
            describe = true;
        else if (strcmp(o, "--until-synced") == 0)
            until_synced = true;
        else if (OPT("--for"))
            run_for = number(o, v);
        else if (OPT("--dump"))
            dump_path = v;
        else
            die("unknown option or missing value: %s (see the comment at the top of kubewatch.c)", o);
#undef OPT
    }
    if (!cfg.kubeconfig && !in_cluster)
        die("--kubeconfig FILE or --in-cluster is needed");
    for (int r = 0; r < KUBE__N; r++)
        if (!(W.res[r].buckets = calloc(NBUCKETS, sizeof *W.res[r].buckets)))
            die("out of memory");

    /* the signals are taken by sigtimedwait below: block them before any thread starts */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGUSR1);
    if (pthread_sigmask(SIG_BLOCK, &sigs, NULL) != 0)
        die("pthread_sigmask failed");
    /* kube.h: the process ignores SIGPIPE */
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
        die("cannot ignore SIGPIPE");

    kube_sink sink = {.ctx = NULL, .replace = on_replace, .event = on_event, .note = on_note};
    kube *k;
    char err[512];
    W.t0 = now_ms();
    if (kube_new(&cfg, &sink, &k, err, sizeof err) != 0) {
        fprintf(stderr, "kubewatch: %s\n", err);
        return 1;
    }
    if (describe) {
        printf("%s\n", kube_describe(k));
        kube_free(k);
        return 0;
    }
    fprintf(stderr, "kubewatch: %s\n", kube_describe(k));
    if (kube_start(k, err, sizeof err) != 0) {
        fprintf(stderr, "kubewatch: %s\n", err);
        kube_free(k);
        return 1;
    }
    uint64_t end = run_for >= 0 ? now_ms() + (uint64_t)run_for * 1000u : UINT64_MAX;
    for (;;) {
        struct timespec ts = {0, 50 * 1000000L};
        int sig = sigtimedwait(&sigs, NULL, &ts);
        if (sig == SIGUSR1) {
            write_state(dump_path, kube_synced(k));
            continue;
        }
        if (sig == SIGTERM || sig == SIGINT)
            break;
        if (sig < 0 && errno != EAGAIN && errno != EINTR)
            die("sigtimedwait: %s", strerror(errno));
        if (until_synced && kube_synced(k))
            break;
        if (now_ms() >= end)
            break;
    }
    bool synced = kube_synced(k);
    uint64_t t = now_ms();
    kube_stop(k);
    W.stop_ms = (long)(now_ms() - t);
    fprintf(stderr, "kubewatch: stopped in %ld ms\n", W.stop_ms);
    write_state(dump_path, synced);
    kube_free(k);
    for (int r = 0; r < KUBE__N; r++) {
        clear(&W.res[r]);
        free(W.res[r].buckets);
    }
    return 0;
}
