/*
 * kubefetch.c: one read of the cluster (kubefetch.h), on the reflector of kube.c: its threads
 * list every resource (paged), the sink keeps each resource's newest complete list, and once
 * every resource has been listed the client is stopped before it watches for long.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "kubefetch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct fetch_sink {
    kube_fetch *f;
    pthread_mutex_t mu;
    char last_error[KUBE__N][320]; /* the last error of each resource, for the message */
    int oom;
} fetch_sink;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void drop_list(kube_fetch *f, kube_res r)
{
    for (size_t i = 0; i < f->nobjs[r]; i++) {
        free(f->objs[r][i].ns);
        free(f->objs[r][i].name);
    }
    free(f->objs[r]);
    free(f->json[r]);
    f->objs[r] = NULL;
    f->json[r] = NULL;
    f->nobjs[r] = f->len[r] = 0;
}

static int on_replace(void *ctx, kube_res r, const kube_obj *objs, size_t n)
{
    fetch_sink *s = ctx;
    static const char head[] = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
    size_t total = sizeof head + 3;
    for (size_t i = 0; i < n; i++)
        total += objs[i].len + 2;
    char *j = malloc(total);
    kf_obj *o = calloc(n ? n : 1, sizeof *o);
    if (!j || !o) {
        free(j);
        free(o);
        s->oom = 1;
        return 0;
    }
    size_t at = sizeof head - 1;
    memcpy(j, head, at);
    for (size_t i = 0; i < n; i++) {
        if (i)
            j[at++] = ',';
        o[i].off = at;
        o[i].len = objs[i].len;
        memcpy(j + at, objs[i].json, objs[i].len);
        at += objs[i].len;
        o[i].ns = dup_or_null(objs[i].ns);
        o[i].name = dup_or_null(objs[i].name);
        if ((objs[i].ns && !o[i].ns) || (objs[i].name && !o[i].name))
            s->oom = 1;
    }
    memcpy(j + at, "]}", 3);
    at += 2;
    pthread_mutex_lock(&s->mu);
    drop_list(s->f, r);
    s->f->json[r] = j;
    s->f->len[r] = at;
    s->f->objs[r] = o;
    s->f->nobjs[r] = n;
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static int on_event(void *ctx, kube_res r, char type, const kube_obj *obj)
{
    (void)ctx, (void)r, (void)type, (void)obj;
    return 0; /* the lists are the read; what changes after them is not */
}

static void on_note(void *ctx, kube_res r, kube_note what, const char *detail)
{
    fetch_sink *s = ctx;
    if (what != KUBE_NOTE_ERROR || (unsigned)r >= KUBE__N || !detail)
        return;
    pthread_mutex_lock(&s->mu);
    snprintf(s->last_error[r], sizeof s->last_error[r], "%s", detail);
    pthread_mutex_unlock(&s->mu);
}

int kube_fetch_lists(const kube_config *cfg, uint32_t timeout_ms, kube_fetch *f, char *err,
                     size_t errcap)
{
    memset(f, 0, sizeof *f);
    fetch_sink s;
    memset(&s, 0, sizeof s);
    s.f = f;
    pthread_mutex_init(&s.mu, NULL);
    kube_sink sink = {&s, on_replace, on_event, on_note};
    int rc = -1;
    if (kube_new(cfg, &sink, &f->k, err, errcap) != 0 || kube_start(f->k, err, errcap) != 0)
        goto out;
    uint64_t until = now_ms() + timeout_ms;
    while (!kube_synced(f->k) && now_ms() < until && !s.oom) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    kube_stop(f->k);
    if (s.oom) {
        snprintf(err, errcap, "out of memory");
        goto out;
    }
    if (!kube_synced(f->k)) {
        size_t at = (size_t)snprintf(err, errcap, "%s: not listed within %.3gs:",
                                     kube_server(f->k), timeout_ms / 1e3);
        for (int r = 0; r < KUBE__N && at < errcap; r++)
            if (kube_reads(f->k, (kube_res)r) && !f->json[r])
                at += (size_t)snprintf(err + at, errcap - at, " %s (%s)", kube_res_name((kube_res)r),
                                       s.last_error[r][0] ? s.last_error[r] : "no answer yet");
        goto out;
    }
    if (kube_writer_new(f->k, &f->w, err, errcap) != 0)
        goto out;
    rc = 0;
out:
    pthread_mutex_destroy(&s.mu);
    if (rc != 0)
        kube_fetch_free(f);
    return rc;
}

int kube_fetch_get(kube_fetch *f, const char *path, uint32_t timeout_ms, char **json,
                   size_t *len, char *err, size_t errcap)
{
    kube_reply rep;
    /* an object is at most what one list item may be */
    int rc = kube_read(f->w, path, (size_t)16 << 20, timeout_ms, &rep, json, len);
    if (rc != 0) {
        snprintf(err, errcap, "GET %s: %s", path, rep.message);
        return -1;
    }
    if (rep.http == 404)
        return 1;
    if (rep.http < 200 || rep.http >= 300) {
        snprintf(err, errcap, "GET %s: HTTP %ld%s%s: %s", path, rep.http, rep.reason[0] ? " " : "",
                 rep.reason, rep.message);
        return -1;
    }
    return 0;
}

const kf_obj *kube_fetch_find(const kube_fetch *f, kube_res r, const char *ns, const char *name)
{
    for (size_t i = 0; i < f->nobjs[r]; i++) {
        const kf_obj *o = &f->objs[r][i];
        if (o->name && strcmp(o->name, name) == 0 &&
            (ns ? o->ns && strcmp(o->ns, ns) == 0 : !o->ns))
            return o;
    }
    return NULL;
}

void kube_fetch_free(kube_fetch *f)
{
    if (!f)
        return;
    kube_writer_free(f->w);
    kube_free(f->k);
    for (int r = 0; r < KUBE__N; r++)
        drop_list(f, (kube_res)r);
    memset(f, 0, sizeof *f);
}
