/* metrics.c: Prometheus metrics of dra-extender (src/extender/metrics.h). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

typedef struct series {
    const metric_family *f;
    char *labels;
    double value;        /* counter, gauge; histogram: the sum */
    double count;        /* histogram */
    double *bucket;      /* histogram: per bound, cumulative at render */
    struct series *next; /* hash chain */
} series;

#define NBUCKETS 1024u

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static series *table[NBUCKETS];
static const metric_family **families;
static size_t nfamilies, cap_families;

static unsigned hash(const metric_family *f, const char *labels)
{
    unsigned h = 2166136261u ^ (unsigned)((uintptr_t)f >> 4);
    for (const char *p = labels; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % NBUCKETS;
}

static void note_family(const metric_family *f)
{
    for (size_t i = 0; i < nfamilies; i++)
        if (families[i] == f)
            return;
    if (nfamilies == cap_families) {
        size_t cap = cap_families ? cap_families * 2 : 32;
        const metric_family **n = realloc(families, cap * sizeof *n);
        if (!n)
            return;
        families = n;
        cap_families = cap;
    }
    families[nfamilies++] = f;
}

/* The series (created when absent), with the lock held; NULL when memory runs out. */
static series *get(const metric_family *f, const char *labels)
{
    if (!labels)
        labels = "";
    unsigned h = hash(f, labels);
    for (series *s = table[h]; s; s = s->next)
        if (s->f == f && strcmp(s->labels, labels) == 0)
            return s;
    series *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->f = f;
    s->labels = strdup(labels);
    if (f->type == METRIC_HISTOGRAM)
        s->bucket = calloc(f->nbuckets ? f->nbuckets : 1, sizeof *s->bucket);
    if (!s->labels || (f->type == METRIC_HISTOGRAM && !s->bucket)) {
        free(s->labels);
        free(s->bucket);
        free(s);
        return NULL;
    }
    note_family(f);
    s->next = table[h];
    table[h] = s;
    return s;
}

void metrics_declare(const metric_family *f)
{
    pthread_mutex_lock(&lock);
    note_family(f);
    pthread_mutex_unlock(&lock);
}

void metrics_add(const metric_family *f, const char *labels, double v)
{
    pthread_mutex_lock(&lock);
    series *s = get(f, labels);
    if (s)
        s->value += v;
    pthread_mutex_unlock(&lock);
}

void metrics_set(const metric_family *f, const char *labels, double v)
{
    pthread_mutex_lock(&lock);
    series *s = get(f, labels);
    if (s)
        s->value = v;
    pthread_mutex_unlock(&lock);
}

void metrics_observe(const metric_family *f, const char *labels, double v)
{
    pthread_mutex_lock(&lock);
    series *s = get(f, labels);
    if (s) {
        s->value += v;
        s->count += 1;
        for (size_t i = 0; i < f->nbuckets; i++)
            if (v <= f->buckets[i]) {
                s->bucket[i] += 1;
                break;
            }
    }
    pthread_mutex_unlock(&lock);
}

void metrics_label(jbuf *b, const char *value)
{
    for (const char *p = value; *p; p++) {
        if (*p == '\\')
            jb_puts(b, "\\\\");
        else if (*p == '"')
            jb_puts(b, "\\\"");
        else if (*p == '\n')
            jb_puts(b, "\\n");
        else
            jb_putc(b, *p);
    }
}

static void number(jbuf *b, double v)
{
    if (isnan(v))
        jb_puts(b, "NaN");
    else if (isinf(v))
        jb_puts(b, v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 1e15)
        jb_printf(b, "%.0f", v);
    else
        jb_printf(b, "%.9g", v);
}

static int cmp_series(const void *a, const void *b)
{
    const series *x = *(series *const *)a, *y = *(series *const *)b;
    return strcmp(x->labels, y->labels);
}

/* name{labels[,extra]} */
static void head(jbuf *b, const char *name, const char *suffix, const char *labels,
                 const char *extra)
{
    jb_puts(b, name);
    jb_puts(b, suffix);
    bool any = labels[0] || extra;
    if (any)
        jb_putc(b, '{');
    jb_puts(b, labels);
    if (extra) {
        if (labels[0])
            jb_putc(b, ',');
        jb_puts(b, extra);
    }
    if (any)
        jb_putc(b, '}');
    jb_putc(b, ' ');
}

void metrics_render(jbuf *b)
{
    static const char *const type_names[] = {"counter", "gauge", "histogram"};
    pthread_mutex_lock(&lock);
    size_t total = 0;
    for (unsigned h = 0; h < NBUCKETS; h++)
        for (series *s = table[h]; s; s = s->next)
            total++;
    series **all = malloc((total ? total : 1) * sizeof *all);
    if (!all) {
        b->oom = true;
        pthread_mutex_unlock(&lock);
        return;
    }
    for (size_t fi = 0; fi < nfamilies; fi++) {
        const metric_family *f = families[fi];
        size_t n = 0;
        for (unsigned h = 0; h < NBUCKETS; h++)
            for (series *s = table[h]; s; s = s->next)
                if (s->f == f)
                    all[n++] = s;
        qsort(all, n, sizeof *all, cmp_series);
        jb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name,
                  type_names[f->type]);
        for (size_t i = 0; i < n; i++) {
            series *s = all[i];
            if (f->type != METRIC_HISTOGRAM) {
                head(b, f->name, "", s->labels, NULL);
                number(b, s->value);
                jb_putc(b, '\n');
                continue;
            }
            double cum = 0;
            char le[64];
            for (size_t k = 0; k < f->nbuckets; k++) {
                cum += s->bucket[k];
                snprintf(le, sizeof le, "le=\"%.9g\"", f->buckets[k]);
                head(b, f->name, "_bucket", s->labels, le);
                number(b, cum);
                jb_putc(b, '\n');
            }
            head(b, f->name, "_bucket", s->labels, "le=\"+Inf\"");
            number(b, s->count);
            jb_putc(b, '\n');
            head(b, f->name, "_sum", s->labels, NULL);
            number(b, s->value);
            jb_putc(b, '\n');
            head(b, f->name, "_count", s->labels, NULL);
            number(b, s->count);
            jb_putc(b, '\n');
        }
    }
    free(all);
    pthread_mutex_unlock(&lock);
}

void metrics_clear(const metric_family *f)
{
    pthread_mutex_lock(&lock);
    for (unsigned h = 0; h < NBUCKETS; h++)
        for (series **pp = &table[h]; *pp;) {
            series *s = *pp;
            if (s->f != f) {
                pp = &s->next;
                continue;
            }
            *pp = s->next;
            free(s->labels);
            free(s->bucket);
            free(s);
        }
    pthread_mutex_unlock(&lock);
}

void metrics_reset(void)
{
    pthread_mutex_lock(&lock);
    for (unsigned h = 0; h < NBUCKETS; h++) {
        for (series *s = table[h], *n; s; s = n) {
            n = s->next;
            free(s->labels);
            free(s->bucket);
            free(s);
        }
        table[h] = NULL;
    }
    free(families);
    families = NULL;
    nfamilies = cap_families = 0;
    pthread_mutex_unlock(&lock);
}
