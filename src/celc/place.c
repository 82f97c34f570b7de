/*
 * place.c: `dra-celc allocate` and `dra-celc explain` (docs/dra-celc.md, docs/allocation.md).
 *
 * Unlike the rest of dra-celc, these use the library's internal allocator interface
 * (src/alloc.h, src/claims.h): the public C API has no placement functions yet. dra-celc links
 * the library statically for that reason.
 *
 * Output is built in memory and written at once: nothing half-written reaches stdout when
 * memory runs out (exit 2).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "apiint.h"
#include "claims.h"
#include "place.h"
#include "vm.h"

enum { EXIT_OK = 0, EXIT_REJECTED = 1, EXIT_USAGE = 2 };

static const char *prog = "dra-celc";

static void usage_allocate(FILE *f)
{
    fprintf(f,
            "usage: %s allocate SCENARIO [--explain] [--format text|json] [--timeout DURATION]\n"
            "\n"
            "Allocates the claims of one pod on one node as Kubernetes' allocator would. SCENARIO\n"
            "is a JSON or YAML object: {features, node, classes, slices, allocatedDevices, claims}\n"
            "(docs/allocation.md). Exit status: 0 allocated or unschedulable, 1 an allocation error\n"
            "or a rejected scenario, 2 usage or I/O error.\n"
            "\n"
            "  --explain          also explain every tier (counts, examples, exclusions)\n"
            "  --format FMT       text (default) or json\n"
            "  --timeout DURATION the search's time limit: 10s (default), 500ms, 0 (none)\n",
            prog);
}

static void usage_explain(FILE *f)
{
    fprintf(f,
            "usage: %s explain --claim PATH --classes PATH --slices PATH [--nodes PATH]\n"
            "                [--allocated FILE] [--node NAME] [--features LIST] [--verbose]\n"
            "                [--format text|json] [--timeout DURATION] [--stats] [--no-explain]\n"
            "\n"
            "For every node (or one), the tier the claims would get there and why.\n"
            "\n"
            "  --claim PATH       ResourceClaims or ResourceClaimTemplates (one pod's, in order)\n"
            "  --classes PATH     DeviceClasses (file or directory)\n"
            "  --slices PATH      ResourceSlices (file or directory)\n"
            "  --nodes PATH       Node objects (names and labels); default: the nodes the slices\n"
            "                     name\n"
            "  --allocated FILE   device IDs already allocated, driver/pool/device, one a line\n"
            "  --node NAME        only this node (its full explanation)\n"
            "  --features LIST    comma-separated allocator features (default: a current\n"
            "                     Kubernetes release's: AdminAccess,PrioritizedList,DeviceTaints,\n"
            "                     PartitionableDevices); 'none' for none\n"
            "  --verbose          the full explanation of every node (text)\n"
            "  --format FMT       text (default) or json\n"
            "  --timeout DURATION the search's time limit per node (default 10s)\n"
            "  --stats            print timings as one JSON line on stderr\n"
            "  --no-explain       only the outcome of each node (no counts, no reasons)\n",
            prog);
}

/* A duration as Go's time.ParseDuration reads it, without a sign: "10s", "500ms", "1m30s",
 * "1.5s", "0" -> milliseconds; -1 when malformed or over a day. */
static long long parse_duration(const char *s)
{
    static const struct {
        const char *unit;
        double ms;
    } units[] = {{"ns", 1e-6}, {"us", 1e-3}, {"\xc2\xb5s", 1e-3}, {"\xce\xbcs", 1e-3}, {"ms", 1}, {"s", 1e3},
                 {"m", 60e3}, {"h", 3600e3}};
    if (!s || !*s)
        return -1;
    if (strcmp(s, "0") == 0)
        return 0;
    double total = 0;
    while (*s) {
        if (!(*s >= '0' && *s <= '9') && *s != '.')
            return -1;
        double v = 0, scale = 1;
        bool digits = false, frac = false;
        for (; (*s >= '0' && *s <= '9') || (*s == '.' && !frac); s++) {
            if (*s == '.') {
                frac = true;
                continue;
            }
            digits = true;
            if (frac)
                v += (*s - '0') * (scale /= 10);
            else
                v = v * 10 + (*s - '0');
            if (v > 1e18)
                return -1;
        }
        if (!digits)
            return -1;
        size_t best = 0, bi = 0;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
            size_t n = strlen(units[i].unit);
            if (strncmp(s, units[i].unit, n) == 0 && n > best) {
                best = n;
                bi = i;
            }
        }
        if (!best)
            return -1;
        total += v * units[bi].ms;
        s += best;
    }
    if (total > 86400e3)
        return -1;
    if (total > 0 && total < 1)
        total = 1;
    return (long long)total;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void json_str(dc_buf *b, const char *s)
{
    dc_json_quote(b, s, strlen(s));
}

/* A rejected input: the message on stderr; with json, {"error":...,"diagnostics":[...]} on
 * stdout (the line parsed back from "FILE:LINE: ..."). */
static int rejected(bool json, const char *file, const char *msg)
{
    fprintf(stderr, "%s: %s\n", prog, msg);
    if (!json)
        return EXIT_REJECTED;
    unsigned long line = 0;
    size_t fl = file ? strlen(file) : 0;
    if (fl && strncmp(msg, file, fl) == 0 && msg[fl] == ':') {
        char *end;
        line = strtoul(msg + fl + 1, &end, 10);
        if (*end != ':')
            line = 0;
    }
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    dc_buf_puts(&b, "{\"error\":");
    json_str(&b, msg);
    dc_buf_puts(&b, ",\"diagnostics\":[{\"severity\":\"error\",\"message\":");
    json_str(&b, msg);
    dc_buf_puts(&b, ",\"source\":");
    json_str(&b, file ? file : "");
    dc_buf_printf(&b, ",\"line\":%lu,\"column\":0}]}\n", line);
    int rc = EXIT_REJECTED;
    if (b.oom || fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0)
        rc = EXIT_USAGE;
    dc_buf_free(&b);
    return rc;
}

/* Write a finished buffer; exit 2 when it could not be built or written. */
static int emit(dc_buf *b, int rc)
{
    if (b->oom) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_USAGE;
    }
    if ((b->len && fwrite(b->data, 1, b->len, stdout) != b->len) || fflush(stdout) != 0) {
        fprintf(stderr, "%s: cannot write the output: %s\n", prog, strerror(errno));
        return EXIT_USAGE;
    }
    return rc;
}

static int load_status(dracel_status st, bool json, const char *file, const char *err)
{
    if (st == DRACEL_ENOMEM) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_USAGE;
    }
    if (st == DRACEL_EINPUT)
        return rejected(json, file, err);
    fprintf(stderr, "%s: %s\n", prog, err[0] ? err : "cannot read the input");
    return EXIT_USAGE;
}

/* Kubernetes cannot hold two DeviceClasses (or Nodes) of one name: such input is rejected,
 * rather than letting the order of the files decide. */
static int check_unique(const dc_objects *o, bool json)
{
    for (uint32_t i = 0; i < o->nclasses; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(o->classes[i].name, o->classes[j].name) == 0) {
                char msg[1024];
                snprintf(msg, sizeof msg, "%s:%u: DeviceClass %s: defined twice (also %s:%u)",
                         o->classes[i].file, o->classes[i].line, o->classes[i].name,
                         o->classes[j].file, o->classes[j].line);
                return rejected(json, o->classes[i].file, msg);
            }
    for (uint32_t i = 0; i < o->nnodes; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(o->nodes[i].name, o->nodes[j].name) == 0) {
                char msg[1024];
                snprintf(msg, sizeof msg, "%s:%u: Node %s: defined twice (also %s:%u)",
                         o->nodes[i].file, o->nodes[i].line, o->nodes[i].name, o->nodes[j].file,
                         o->nodes[j].line);
                return rejected(json, o->nodes[i].file, msg);
            }
    return -1;
}

static int cmp_node(const void *a, const void *b)
{
    return strcmp(((const dc_node_in *)a)->name, ((const dc_node_in *)b)->name);
}

static void print_notes(const dc_objects *o)
{
    for (uint32_t i = 0; i < o->slices.nnotes; i++)
        fprintf(stderr, "%s: note: %s\n", prog, o->slices.notes[i]);
}

int celc_allocate(int argc, char **argv)
{
    const char *scenario = NULL;
    bool explain = false, json = false;
    long long timeout = DC_ALLOC_DEFAULT_TIMEOUT_MS;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage_allocate(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--explain") == 0) {
            explain = true;
        } else if (strcmp(a, "--format") == 0 || strcmp(a, "--timeout") == 0) {
            if (i + 1 >= argc)
                return usage_error(usage_allocate, "%s needs a value", a);
            const char *v = argv[++i];
            if (a[2] == 'f') {
                if (strcmp(v, "json") == 0)
                    json = true;
                else if (strcmp(v, "text") == 0)
                    json = false;
                else
                    return usage_error(usage_allocate, "unknown format '%s'", v);
            } else if ((timeout = parse_duration(v)) < 0) {
                return usage_error(usage_allocate, "bad duration '%s'", v);
            }
        } else if (a[0] == '-' && a[1]) {
            return usage_error(usage_allocate, "unknown option '%s'", a);
        } else if (scenario) {
            return usage_error(usage_allocate, "%s", "give one SCENARIO");
        } else {
            scenario = a;
        }
    }
    if (!scenario)
        return usage_error(usage_allocate, "%s", "allocate needs a SCENARIO file");

    dracel_config cfg;
    dracel_config_init(&cfg);
    dc_objects o;
    dc_objects_init(&o, NULL);
    dc_scenario sc;
    char err[2048];
    dracel_status st = dc_scenario_load(&o, &sc, scenario, NULL, err, sizeof err);
    if (st != DRACEL_OK) {
        dc_objects_free(&o);
        return load_status(st, json, scenario, err);
    }
    print_notes(&o);
    int urc = check_unique(&o, json);
    if (urc >= 0) {
        dc_objects_free(&o);
        return urc;
    }
    dracel_table *t = NULL;
    dc_policy *p = NULL;
    dc_alloc_run *r = NULL;
    int rc = EXIT_USAGE;
    st = dc_api_table_build(&cfg, &o.slices, &t, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_policy_new(&cfg, t, &o, sc.allocated, sc.nallocated, &p, err, sizeof err);
    if (st == DRACEL_OK)
        st = dc_alloc_run_new(p, &r);
    dc_alloc_opts ao = {sc.features, (uint64_t)timeout, explain, 1};
    if (st == DRACEL_OK)
        st = dc_alloc_node(r, &sc.node, &ao);
    if (st != DRACEL_OK) {
        fprintf(stderr, "%s: %s\n", prog, st == DRACEL_ENOMEM ? "out of memory" : err);
    } else {
        dc_buf b;
        dc_buf_init(&b, &dc_default_alloc);
        if (json) {
            dc_alloc_json(r, &b);
            dc_buf_putc(&b, '\n');
        } else {
            dc_alloc_text(r, &b);
        }
        if (dc_alloc_outcome_of(r) == DC_ALLOC_ERROR)
            fprintf(stderr, "%s: %s\n", prog, dc_alloc_message(r));
        rc = emit(&b, dc_alloc_outcome_of(r) == DC_ALLOC_ERROR ? EXIT_REJECTED : EXIT_OK);
        dc_buf_free(&b);
    }
    dc_alloc_run_free(r);
    dc_policy_free(p);
    dracel_table_free(t);
    dc_objects_free(&o);
    return rc;
}

/* --allocated FILE: device IDs, one a line; blank lines and '#' comments skipped. */
static int read_allocated(const char *path, bool json, dc_device_id **out, uint32_t *n, char **keep)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        return EXIT_USAGE;
    }
    size_t cap = 0, len = 0;
    char *buf = NULL;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            size_t nc = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                fprintf(stderr, "%s: out of memory\n", prog);
                return EXIT_USAGE;
            }
            buf = nb;
            cap = nc;
        }
        size_t k = fread(buf + len, 1, 4096, f);
        len += k;
        if (k == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        fprintf(stderr, "%s: cannot read %s\n", prog, path);
        return EXIT_USAGE;
    }
    buf[len] = '\0';
    uint32_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    dc_device_id *ids = calloc(lines, sizeof *ids);
    if (!ids) {
        free(buf);
        fprintf(stderr, "%s: out of memory\n", prog);
        return EXIT_USAGE;
    }
    uint32_t k = 0, lineno = 0;
    for (char *line = buf; line; ) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        char *e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            *--e = '\0';
        if (*s && *s != '#') {
            char *first = strchr(s, '/'), *last = strrchr(s, '/');
            if (!first || first == last || first == s || last == first + 1 || !last[1]) {
                char msg[1024];
                snprintf(msg, sizeof msg, "%s:%u: not a device ID (driver/pool/device): %.600s",
                         path, lineno, s);
                free(ids);
                free(buf);
                return rejected(json, path, msg);
            }
            *first = '\0';
            *last = '\0';
            ids[k].driver = s;
            ids[k].pool = first + 1;
            ids[k].device = last + 1;
            k++;
        }
        line = nl ? nl + 1 : NULL;
    }
    *out = ids;
    *n = k;
    *keep = buf;
    return -1;
}

static int parse_features(const char *list, unsigned *out)
{
    *out = 0;
    if (strcmp(list, "none") == 0 || !*list)
        return 0;
    const char *s = list;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        unsigned bit = dc_feature_parse(s, n);
        if (!bit) {
            fprintf(stderr, "%s: unknown feature '%.*s'\n", prog, (int)n, s);
            return -1;
        }
        *out |= bit;
        s += n;
        if (*s == ',')
            s++;
    }
    return 0;
}

typedef struct explain_opts {
    const char *claim, *classes, *slices, *nodes, *allocated, *node, *features;
    bool verbose, json, stats, fast;
    long long timeout;
} explain_opts;

static void summary_line(dc_buf *b, const dc_alloc_run *r, const char *node)
{
    switch (dc_alloc_outcome_of(r)) {
    case DC_ALLOC_ALLOCATED:
        dc_buf_printf(b, "%s: allocated %s (score %d): ", node, dc_alloc_tiers(r),
                      dc_alloc_score(r));
        dc_alloc_summary(r, b);
        dc_buf_putc(b, '\n');
        break;
    case DC_ALLOC_UNSCHEDULABLE:
        dc_buf_printf(b, "%s: unschedulable", node);
        if (dc_alloc_message(r)) {
            dc_buf_printf(b, ": %s", dc_alloc_message(r));
        } else {
            size_t at = b->len;
            dc_buf_puts(b, ": ");
            size_t mark = b->len;
            dc_alloc_summary(r, b);
            if (b->len == mark)
                b->len = at; /* no explanation: nothing to add */
        }
        dc_buf_putc(b, '\n');
        break;
    case DC_ALLOC_ERROR:
        dc_buf_printf(b, "%s: error%s: %s\n", node, dc_alloc_node_local(r) ? " (node-local)" : "",
                      dc_alloc_message(r));
        break;
    }
}

static int run_explain(const explain_opts *eo, dc_objects *o, const dracel_table *t,
                       dc_device_id *alloc_ids, uint32_t nalloc, unsigned features)
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    char err[2048];
    dc_policy *p = NULL;
    dc_alloc_run *r = NULL;
    const char **names = NULL;
    uint32_t nnames = 0;
    dc_node_in *nodes = NULL;
    uint32_t nnodes = 0;
    int rc = EXIT_USAGE;
    double t0 = now_ms();
    dracel_status st = dc_policy_new(&cfg, t, o, alloc_ids, nalloc, &p, err, sizeof err);
    double t1 = now_ms();
    if (st == DRACEL_OK)
        st = dc_alloc_run_new(p, &r);
    /* The nodes: Node objects, else the node names of the slices. */
    if (st == DRACEL_OK && o->nnodes) {
        /* by name, whatever the order of the files */
        nodes = malloc(o->nnodes * sizeof *nodes);
        if (!nodes) {
            st = DRACEL_ENOMEM;
        } else {
            memcpy(nodes, o->nodes, o->nnodes * sizeof *nodes);
            nnodes = o->nnodes;
            qsort(nodes, nnodes, sizeof *nodes, cmp_node);
        }
    } else if (st == DRACEL_OK) {
        st = dc_table_node_names(t, &dc_default_alloc, &names, &nnames);
        if (st == DRACEL_OK && nnames) {
            nodes = calloc(nnames, sizeof *nodes);
            if (!nodes)
                st = DRACEL_ENOMEM;
            for (uint32_t i = 0; nodes && i < nnames; i++)
                nodes[i].name = names[i];
            nnodes = nnames;
        }
    }
    dc_node_in one;
    if (st == DRACEL_OK && eo->node) {
        const dc_node_in *found = NULL;
        for (uint32_t i = 0; i < nnodes && !found; i++)
            if (strcmp(nodes[i].name, eo->node) == 0)
                found = &nodes[i];
        if (found) {
            one = *found;
        } else {
            memset(&one, 0, sizeof one);
            one.name = eo->node;
        }
    }
    dc_buf b;
    dc_buf_init(&b, &dc_default_alloc);
    if (st == DRACEL_OK) {
        bool single = eo->node != NULL;
        bool full = eo->json || single || eo->verbose;
        dc_alloc_opts ao = {features, (uint64_t)eo->timeout, !eo->fast, 1};
        uint32_t count = single ? 1 : nnodes, nalloc_ok = 0, nerr = 0;
        if (eo->json) {
            dc_buf_puts(&b, "{\"policyVersion\":");
            json_str(&b, dc_policy_version(p));
            dc_buf_puts(&b, ",\"nodes\":[");
        }
        double t2 = now_ms();
        for (uint32_t i = 0; i < count && st == DRACEL_OK && !b.oom; i++) {
            const dc_node_in *n = single ? &one : &nodes[i];
            st = dc_alloc_node(r, n, &ao);
            if (st != DRACEL_OK)
                break;
            dc_alloc_outcome oc = dc_alloc_outcome_of(r);
            nalloc_ok += oc == DC_ALLOC_ALLOCATED;
            nerr += oc == DC_ALLOC_ERROR;
            if (eo->json) {
                if (i)
                    dc_buf_putc(&b, ',');
                dc_buf_puts(&b, "{\"node\":");
                json_str(&b, n->name);
                dc_buf_puts(&b, ",\"tiers\":");
                json_str(&b, dc_alloc_tiers(r));
                dc_buf_putc(&b, ',');
                /* the allocate object's fields, after "node" and "tiers" */
                dc_buf inner;
                dc_buf_init(&inner, &dc_default_alloc);
                dc_alloc_json(r, &inner);
                if (inner.len > 2)
                    dc_buf_append(&b, inner.data + 1, inner.len - 1);
                b.oom |= inner.oom;
                dc_buf_free(&inner);
            } else {
                summary_line(&b, r, n->name);
                if (full && !eo->fast)
                    dc_alloc_explain_text(r, &b);
            }
        }
        double t3 = now_ms();
        if (eo->json)
            dc_buf_puts(&b, "]}\n");
        else if (!single)
            dc_buf_printf(&b, "%u nodes: %u allocated, %u unschedulable, %u errors (policy %s)\n",
                          count, nalloc_ok, count - nalloc_ok - nerr, nerr, dc_policy_version(p));
        if (eo->stats && st == DRACEL_OK)
            fprintf(stderr, "{\"nodes\":%u,\"devices\":%u,\"policy_ms\":%.3f,\"allocate_ms\":%.3f,"
                    "\"us_per_node\":%.3f}\n", count, dracel_table_rows(t), t1 - t0, t3 - t2,
                    count ? (t3 - t2) * 1e3 / count : 0.0);
        if (single && dc_alloc_outcome_of(r) == DC_ALLOC_ERROR)
            rc = EXIT_REJECTED;
        else
            rc = EXIT_OK;
    }
    if (st != DRACEL_OK) {
        fprintf(stderr, "%s: %s\n", prog, st == DRACEL_ENOMEM ? "out of memory" : err);
        rc = EXIT_USAGE;
    } else {
        rc = emit(&b, rc);
    }
    dc_buf_free(&b);
    free(nodes);
    if (names)
        dc_free(&dc_default_alloc, names, nnames * sizeof *names);
    dc_alloc_run_free(r);
    dc_policy_free(p);
    return rc;
}

int celc_explain(int argc, char **argv)
{
    explain_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.timeout = DC_ALLOC_DEFAULT_TIMEOUT_MS;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage_explain(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--verbose") == 0) {
            eo.verbose = true;
            continue;
        } else if (strcmp(a, "--stats") == 0) {
            eo.stats = true;
            continue;
        } else if (strcmp(a, "--no-explain") == 0) {
            eo.fast = true;
            continue;
        } else if (strcmp(a, "--claim") == 0) {
            slot = &eo.claim;
        } else if (strcmp(a, "--classes") == 0) {
            slot = &eo.classes;
        } else if (strcmp(a, "--slices") == 0) {
            slot = &eo.slices;
        } else if (strcmp(a, "--nodes") == 0) {
            slot = &eo.nodes;
        } else if (strcmp(a, "--allocated") == 0) {
            slot = &eo.allocated;
        } else if (strcmp(a, "--node") == 0) {
            slot = &eo.node;
        } else if (strcmp(a, "--features") == 0) {
            slot = &eo.features;
        } else if (strcmp(a, "--format") == 0 || strcmp(a, "--timeout") == 0) {
            if (i + 1 >= argc)
                return usage_error(usage_explain, "%s needs a value", a);
            const char *v = argv[++i];
            if (a[2] == 'f') {
                if (strcmp(v, "json") == 0)
                    eo.json = true;
                else if (strcmp(v, "text") == 0)
                    eo.json = false;
                else
                    return usage_error(usage_explain, "unknown format '%s'", v);
            } else if ((eo.timeout = parse_duration(v)) < 0) {
                return usage_error(usage_explain, "bad duration '%s'", v);
            }
            continue;
        } else {
            return usage_error(usage_explain, "unknown argument '%s'", a);
        }
        if (i + 1 >= argc)
            return usage_error(usage_explain, "%s needs a value", a);
        *slot = argv[++i];
    }
    if (!eo.claim || !eo.classes || !eo.slices)
        return usage_error(usage_explain, "%s", "explain needs --claim, --classes and --slices");
    unsigned features = DC_FEAT_DEFAULTS;
    if (eo.features && parse_features(eo.features, &features) < 0)
        return usage_error(usage_explain, "%s", "bad --features");

    dracel_config cfg;
    dracel_config_init(&cfg);
    dc_objects o;
    dc_objects_init(&o, NULL);
    char err[2048];
    int rc = -1;
    struct {
        const char *path;
        unsigned kinds;
    } loads[] = {{eo.claim, DC_OBJ_CLAIM},
                 {eo.classes, DC_OBJ_CLASS},
                 {eo.slices, DC_OBJ_SLICE},
                 {eo.nodes, DC_OBJ_NODE}};
    for (size_t i = 0; i < sizeof loads / sizeof loads[0] && rc < 0; i++) {
        if (!loads[i].path)
            continue;
        dracel_status st = dc_objects_load(&o, loads[i].path, loads[i].kinds, NULL, err, sizeof err);
        if (st != DRACEL_OK)
            rc = load_status(st, eo.json, loads[i].path, err);
    }
    if (rc < 0)
        rc = check_unique(&o, eo.json);
    if (rc < 0 && o.nclaims == 0)
        rc = rejected(eo.json, eo.claim, "no ResourceClaim or ResourceClaimTemplate in --claim");
    dc_device_id *ids = NULL;
    uint32_t nids = 0;
    char *idbuf = NULL;
    if (rc < 0 && eo.allocated)
        rc = read_allocated(eo.allocated, eo.json, &ids, &nids, &idbuf);
    dracel_table *t = NULL;
    if (rc < 0) {
        print_notes(&o);
        dracel_status st = dc_api_table_build(&cfg, &o.slices, &t, err, sizeof err);
        if (st != DRACEL_OK)
            rc = load_status(st, eo.json, eo.slices, err);
    }
    if (rc < 0)
        rc = run_explain(&eo, &o, t, ids, nids, features);
    dracel_table_free(t);
    free(ids);
    free(idbuf);
    dc_objects_free(&o);
    return rc;
}
