/*
 * place.c: `dra-celc allocate` and `dra-celc explain` (docs/dra-celc.md, docs/allocation.md),
 * built on the public placement API of dracel.h alone: scenarios, object sets, tables, devices
 * in use, policies and runs.
 *
 * Output is built in memory (open_memstream) and written at once: nothing half-written reaches
 * stdout when memory runs out (exit 2).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dracel.h"
#include "files.h"
#include "gates.h"
#include "ids.h"
#include "out.h"
#include "place.h"
#ifdef DRACEL_CELC_KUBE
#include "kubecmd.h"
#endif

#define DEFAULT_TIMEOUT_MS 10000 /* the scheduler's DynamicResourcesArgs.filterTimeout */
#define DEFAULT_BUDGET_MS 60000  /* explain: all nodes together */

static const char *const prog = celc_prog;

static void usage_allocate(FILE *f)
{
    fprintf(f,
            "usage: %s allocate SCENARIO [--explain] [--format text|json] [--timeout DURATION]\n"
            "                [--kubernetes-version 1.34|1.35|1.36|1.37] [--features LIST]\n"
            "                [--feature-gates NAME=BOOL,...]\n"
            "\n"
            "Allocates the claims of one pod on one node as Kubernetes' allocator would. SCENARIO\n"
            "is a JSON or YAML object: {kubernetesVersion, features, featureGates, node, classes,\n"
            "slices, allocatedDevices, claims} (docs/allocation.md). Exit status: 0 allocated or\n"
            "unschedulable, 1 an allocation error or a rejected scenario, 2 usage or I/O error.\n"
            "\n"
            "  --explain          also explain every tier (counts, examples, exclusions)\n"
            "  --format FMT       text (default) or json\n"
            "  --timeout DURATION the time limit of the allocation, selectors included: 10s\n"
            "                     (default), 500ms, 0 (none)\n"
            "  --kubernetes-version V  the release reproduced (default: the scenario's, else 1.37)\n"
            "  --features LIST    the gates that are on (comma-separated; 'none'), instead of the\n"
            "                     scenario's\n"
            "  --feature-gates G  kube-scheduler's --feature-gates on top (DRAX=true,DRAY=false)\n",
            prog);
}

static void usage_explain(FILE *f)
{
    fprintf(f,
            "usage: %s explain --claim PATH|--pod PATH --classes PATH --slices PATH [--nodes PATH]\n"
            "                [--allocated FILE] [--node NAME] [--pod PATH] [--kubernetes-version V]\n"
            "                [--features LIST] [--feature-gates NAME=BOOL,...] [--verbose]\n"
            "                [--format text|json] [--timeout DURATION] [--budget DURATION]\n"
            "                [--stats] [--no-explain]\n"
            "       %s explain --kubeconfig FILE|--in-cluster --pod NS/NAME [--context NAME]\n"
            "                [--kube-timeout DURATION] [the options above but the files]\n"
            "\n"
            "For every node (or one), the tier the claims would get there and why.\n"
            "\n"
            "  --claim PATH       ResourceClaims or ResourceClaimTemplates (one pod's, in order)\n"
            "                     (optional with --pod)\n"
            "  --classes PATH     DeviceClasses (file or directory)\n"
            "  --slices PATH      ResourceSlices (file or directory)\n"
            "  --nodes PATH       Node objects (names, labels, allocatable); default: the nodes the\n"
            "                     slices name\n"
            "  --allocated FILE   device IDs already allocated, driver/pool/device, one a line\n"
            "  --node NAME        only this node (its full explanation)\n"
            "  --pod PATH         a Pod: its extended resources backed by DRA get the claim the\n"
            "                     scheduler builds, on nodes whose allocatable has none of them\n"
            "  --kubernetes-version V  the release reproduced: 1.34, 1.35, 1.36 or 1.37 (default)\n"
            "  --features LIST    the gates that are on, comma-separated (AdminAccess or\n"
            "                     DRAAdminAccess...; 'none'); default: the release's defaults\n"
            "  --feature-gates G  kube-scheduler's --feature-gates on top (DRAX=true,DRAY=false)\n"
            "  --verbose          the full explanation of every node (text)\n"
            "  --format FMT       text (default) or json\n"
            "  --timeout DURATION the search's time limit per node (default 10s)\n"
            "  --budget DURATION  the time limit of the whole command's searches (default 60s):\n"
            "                     the nodes left when it is spent are reported not tried\n"
            "  --stats            print timings as one JSON line on stderr\n"
            "  --no-explain       only the outcome of each node (no counts, no reasons)\n"
            "  --kubeconfig FILE  read the objects from the cluster instead (a pod's claims, the\n"
            "                     classes, slices and nodes, the devices other claims hold)\n"
            "  --in-cluster       the same with the pod's service account\n"
            "  --context NAME     a context of the kubeconfig (default: its current-context)\n"
            "  --kube-timeout DURATION  reading the cluster at most (default 30s)\n",
            prog, prog);
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

static void print_notes(const dracel_objects *o, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        fprintf(stderr, "%s: note: %s\n", prog, dracel_objects_note(o, i));
}


/* {"requestMappings":[{"containerName","resourceName","requestName"}...]}, the pod status
 * field the scheduler writes for the special claim (NULL when memory runs out; cJSON_free). */
static char *mapping_json(const dracel_scenario *sc, size_t n)
{
    cJSON *st = cJSON_CreateObject(), *arr = cJSON_CreateArray();
    bool ok = st && arr && cJSON_AddItemToObject(st, "requestMappings", arr);
    if (!ok)
        cJSON_Delete(arr);
    for (size_t i = 0; ok && i < n; i++) {
        const char *c, *r, *q;
        cJSON *m = cJSON_CreateObject();
        ok = m && cJSON_AddItemToArray(arr, m) &&
             dracel_scenario_request_mapping(sc, i, &c, &r, &q) == DRACEL_OK &&
             celc_json_str(m, "containerName", c) && celc_json_str(m, "resourceName", r) &&
             celc_json_str(m, "requestName", q);
    }
    char *text = ok ? cJSON_PrintUnformatted(st) : NULL;
    cJSON_Delete(st);
    return text;
}

int celc_allocate(int argc, char **argv)
{
    const char *path = NULL, *version = NULL, *features = NULL, *gates = NULL;
    bool explain = false, json = false;
    long long timeout = DEFAULT_TIMEOUT_MS;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage_allocate(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--explain") == 0) {
            explain = true;
        } else if (strcmp(a, "--kubernetes-version") == 0 || strcmp(a, "--features") == 0 ||
                   strcmp(a, "--feature-gates") == 0) {
            if (i + 1 >= argc)
                return usage_error(usage_allocate, "%s needs a value", a);
            const char **slot = a[2] == 'k' ? &version : strcmp(a, "--features") == 0 ? &features
                                                                                     : &gates;
            *slot = argv[++i];
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
        } else if (path) {
            return usage_error(usage_allocate, "%s", "give one SCENARIO");
        } else {
            path = a;
        }
    }
    if (!path)
        return usage_error(usage_allocate, "%s", "allocate needs a SCENARIO file");
    if (version && !dracel_kubernetes_parse(version, strlen(version)))
        return usage_error(usage_allocate, "unknown Kubernetes release '%s' (known: 1.34, 1.35, "
                           "1.36, 1.37)", version);

    char err[2048];
    dracel_scenario *sc = NULL;
    int rc = celc_load_status(dracel_scenario_load(NULL, path, &sc, err, sizeof err), json, path, err);
    if (rc >= 0)
        return rc;
    const dracel_objects *objs = dracel_scenario_objects(sc);
    print_notes(objs, 0, dracel_objects_notes(objs));
    dracel_policy *p = NULL;
    dracel_run *r = NULL;
    bool bad_gates = false;
    dracel_allocate_opts ao;
    dracel_allocate_opts_init(&ao);
    unsigned release = version ? dracel_kubernetes_parse(version, strlen(version))
                               : dracel_scenario_kubernetes(sc);
    ao.kubernetes = release;
    ao.features = dracel_scenario_gates(sc, release);
    dracel_status gst = DRACEL_OK;
    if (celc_release_and_gates(NULL, features, gates, &release, &ao.features) < 0)
        gst = DRACEL_EINVAL;
    /* The pod's special claim exists only with DRAExtendedResource on: else every claim but
     * that last one. */
    size_t nall = dracel_objects_count(objs, DRACEL_OBJ_CLAIM), *idx = NULL;
    bool drop = dracel_scenario_extended_claim(sc) &&
                !(ao.features & DRACEL_FEATURE_EXTENDED_RESOURCE);
    if (drop && !(idx = malloc((nall ? nall : 1) * sizeof *idx)))
        return celc_oom();
    for (size_t i = 0; drop && i + 1 < nall; i++)
        idx[i] = i;
    dracel_status st = dracel_policy_new(NULL, dracel_scenario_table(sc), objs, objs,
                                         drop ? idx : NULL, drop ? nall - 1 : 0, &p, err,
                                         sizeof err);
    free(idx);
    if (st == DRACEL_OK)
        st = dracel_run_new(p, &r);
    if (st == DRACEL_OK) {
        st = gst;
        ao.timeout_ms = (uint64_t)timeout;
        ao.explain = explain;
        ao.in_use = dracel_scenario_usage(sc);
        dracel_node node;
        dracel_scenario_node(sc, &node);
        if (st == DRACEL_OK)
            st = dracel_allocate(r, &node, &ao);
        else
            bad_gates = true;
    }
    if (st != DRACEL_OK) {
        rc = st == DRACEL_ENOMEM ? celc_oom() : EXIT_USAGE;
        if (st != DRACEL_ENOMEM && !bad_gates)
            fprintf(stderr, "%s: %s\n", prog, dracel_status_string(st));
    } else {
        dracel_run_info info;
        dracel_run_get(r, &info);
        char *out = json ? dracel_run_json(r) : dracel_run_text(r);
        bool error = info.outcome == DRACEL_ALLOCATION_ERROR;
        if (out && error)
            fprintf(stderr, "%s: %s\n", prog, info.message);
        celc_out o;
        celc_out_open(&o);
        /* allocated with the pod's special claim: the request mappings the scheduler writes
         * into the pod's status, after the run's own fields */
        size_t nmap = 0;
        const char *mc, *mr, *mq;
        while (!drop && info.outcome == DRACEL_ALLOCATED &&
               dracel_scenario_request_mapping(sc, nmap, &mc, &mr, &mq) == DRACEL_OK)
            nmap++;
        size_t len = out ? strlen(out) : 0;
        char *status = out && nmap && json ? mapping_json(sc, nmap) : NULL;
        bool made = out && (!nmap || !json || (status && len && out[len - 1] == '}'));
        if (made && o.f && status) {
            fprintf(o.f, "%.*s,\"extendedResourceClaimStatus\":%s}\n", (int)(len - 1), out,
                    status);
        } else if (made && o.f) {
            fprintf(o.f, json ? "%s\n" : "%s", out);
            if (nmap && !json)
                fputs("pod status: extendedResourceClaimStatus.requestMappings\n", o.f);
            for (size_t i = 0; i < nmap && !json; i++) {
                dracel_scenario_request_mapping(sc, i, &mc, &mr, &mq);
                fprintf(o.f, "  container %s: %s -> request %s\n", mc, mr, mq);
            }
        } else {
            celc_out_discard(&o);
        }
        cJSON_free(status);
        rc = celc_out_close(&o, error ? EXIT_REJECTED : EXIT_OK);
        dracel_free_string(NULL, out);
    }
    dracel_run_free(r);
    dracel_policy_free(p);
    dracel_scenario_free(sc);
    return rc;
}

/* --allocated FILE: device IDs, one a line; blank lines and '#' comments skipped. The IDs point
 * into *keep. */
static int read_allocated(const char *path, bool json, dracel_device_id **out, size_t *n,
                          char **keep)
{
    size_t len;
    int oom;
    char *buf = celc_read_file(path, CELC_MAX_FILE_BYTES, &len, &oom);
    if (!buf)
        return EXIT_USAGE; /* said why */
    char msg[1024];
    int r = celc_parse_ids(path, buf, len, out, n, msg, sizeof msg);
    if (r != 0) {
        free(buf);
        return r < 0 ? celc_oom() : celc_rejected(json, path, msg);
    }
    *keep = buf;
    return -1;
}

typedef struct explain_opts {
    const char *claim, *classes, *slices, *nodes, *allocated, *node, *features, *version, *gates;
    const char *pod;
    const char *kubeconfig, *context;
    bool in_cluster;
    bool verbose, json, stats, fast;
    long long timeout, budget, kube_timeout;
} explain_opts;

/* What explain prints of each node, gathered in one memory stream. */
typedef struct explain_out {
    const explain_opts *eo;
    FILE *f;
    bool single, full, failed;
    unsigned allocated, errors, skipped;
    size_t printed;              /* nodes printed (JSON: the commas between them) */
} explain_out;

static void summary_line(explain_out *x, const dracel_run *r)
{
    char *line = dracel_run_line(r);
    if (!line) {
        x->failed = true;
        return;
    }
    fprintf(x->f, "%s\n", line);
    dracel_free_string(NULL, line);
}

static int each_node(void *ctx, size_t i, const dracel_run *r)
{
    explain_out *x = ctx;
    (void)i;
    dracel_run_info info;
    dracel_run_get(r, &info);
    x->allocated += info.outcome == DRACEL_ALLOCATED;
    x->errors += info.outcome == DRACEL_ALLOCATION_ERROR;
    x->skipped += info.outcome == DRACEL_SKIPPED;
    if (x->eo->json) {
        char *s = dracel_run_node_json(r);
        if (!s) {
            x->failed = true;
            return 1;
        }
        fprintf(x->f, "%s%s", x->printed ? "," : "", s);
        dracel_free_string(NULL, s);
    } else {
        summary_line(x, r);
        if (x->full && !x->eo->fast) {
            char *s = dracel_run_explain_text(r);
            if (s)
                fputs(s, x->f);
            else if (info.explained)
                x->failed = true;
            dracel_free_string(NULL, s);
        }
    }
    x->printed++;
    return x->failed;
}

static int cmp_node(const void *a, const void *b)
{
    return strcmp(((const dracel_node *)a)->name, ((const dracel_node *)b)->name);
}

/* A node and the extended resources of --pod it needs DRA for (a mask of the pod's). */
typedef struct xnode {
    dracel_node n;
    uint64_t mask;
} xnode;

static int cmp_xnode(const void *a, const void *b)
{
    return cmp_node(&((const xnode *)a)->n, &((const xnode *)b)->n);
}

/* The policies of explain: one for each set of extended resources the nodes need DRA for
 * (one in all without --pod), made as they are first needed. */
enum { XPOLICIES = 64 };
typedef struct xpolicies {
    const dracel_objects *objs;
    const dracel_table *t;
    const dracel_pod *pod;
    const char *res[64];         /* the pod's resources that need DRA on some node */
    size_t nres;
    uint64_t mask[XPOLICIES];
    dracel_policy *p[XPOLICIES];
    dracel_run *r[XPOLICIES];
    size_t n;
} xpolicies;

static dracel_status xpolicy(xpolicies *x, uint64_t mask, size_t *out, char *err, size_t errcap)
{
    for (size_t k = 0; k < x->n; k++)
        if (x->mask[k] == mask) {
            *out = k;
            return DRACEL_OK;
        }
    if (x->n == XPOLICIES) {
        snprintf(err, errcap, "the nodes need DRA for more than %d sets of --pod's extended "
                 "resources", XPOLICIES);
        return DRACEL_EINPUT;
    }
    const char *res[64];
    size_t nres = 0;
    for (size_t j = 0; j < x->nres; j++)
        if (mask >> j & 1)
            res[nres++] = x->res[j];
    size_t k = x->n;
    dracel_status st = dracel_policy_new_pod(NULL, x->t, x->objs, x->objs, NULL, 0, x->pod, res,
                                             nres, &x->p[k], err, errcap);
    if (st == DRACEL_OK && (st = dracel_run_new(x->p[k], &x->r[k])) != DRACEL_OK)
        dracel_policy_free(x->p[k]);
    if (st != DRACEL_OK)
        return st;
    x->mask[k] = mask;
    x->n++;
    *out = k;
    return DRACEL_OK;
}

/* The resources of x->res a node with allocatable al needs DRA for (those it has none of), as
 * a mask. */
static uint64_t xmask(const xpolicies *x, const dracel_resource *al, size_t nal)
{
    uint64_t m = 0;
    for (size_t j = 0; j < x->nres && j < 64; j++)
        if (!dracel_allocatable_has(al, nal, x->res[j]))
            m |= 1ull << j;
    return m;
}

static int run_explain(const explain_opts *eo, const dracel_objects *objs, const dracel_table *t,
                       const dracel_usage *used, unsigned release, unsigned features,
                       const dracel_pod *pod)
{
    char err[2048];
    xpolicies xp;
    memset(&xp, 0, sizeof xp);
    xp.objs = objs;
    xp.t = t;
    xp.pod = pod;
    if (pod && (features & DRACEL_FEATURE_EXTENDED_RESOURCE))
        xp.nres = dracel_pod_extended(pod, objs, NULL, 0, xp.res, 64);
    xnode *nodes = NULL;
    size_t nnodes = 0;
    dracel_status st = DRACEL_OK;
    if (xp.nres > 64) {
        snprintf(err, sizeof err, "--pod asks for more than 64 extended resources");
        st = DRACEL_EINPUT;
    }
    /* The nodes: Node objects by name (whatever the order of the files), else the node names of
     * the slices. */
    size_t nobj = dracel_objects_count(objs, DRACEL_OBJ_NODE);
    nnodes = nobj ? nobj : dracel_table_nodes(t);
    if (st == DRACEL_OK && nnodes && !(nodes = calloc(nnodes, sizeof *nodes)))
        st = DRACEL_ENOMEM;
    for (size_t i = 0; st == DRACEL_OK && i < nnodes; i++) {
        const dracel_resource *al = NULL;
        size_t nal = 0;
        if (nobj) {
            st = dracel_objects_node(objs, i, &nodes[i].n);
            nal = dracel_objects_node_allocatable(objs, i, &al);
        } else {
            nodes[i].n.name = dracel_table_node(t, i);
        }
        nodes[i].mask = xp.nres ? xmask(&xp, al, nal) : 0;
    }
    if (st == DRACEL_OK && nobj > 1)
        qsort(nodes, nnodes, sizeof *nodes, cmp_xnode);
    /* a node found nowhere: a node without labels, or allocatable */
    xnode one = {{eo->node, NULL, 0}, xp.nres ? xmask(&xp, NULL, 0) : 0};
    if (st == DRACEL_OK && eo->node)
        for (size_t i = 0; i < nnodes; i++)
            if (strcmp(nodes[i].n.name, eo->node) == 0) {
                one = nodes[i];
                break;
            }
    size_t count = eo->node ? 1 : nnodes;
    const xnode *list = eo->node ? &one : nodes;
    double t0 = celc_now_ms();
    size_t k0 = 0;
    if (st == DRACEL_OK)
        st = xpolicy(&xp, count ? list[0].mask : (xp.nres ? xmask(&xp, NULL, 0) : 0), &k0, err,
                     sizeof err);
    double t1 = celc_now_ms();
    dracel_policy *p = st == DRACEL_OK ? xp.p[k0] : NULL;
    dracel_node *batch = st == DRACEL_OK && count ? calloc(count, sizeof *batch) : NULL;
    if (st == DRACEL_OK && count && !batch)
        st = DRACEL_ENOMEM;
    celc_out out = {NULL, NULL, 0};
    if (st == DRACEL_OK)
        celc_out_open(&out);
    FILE *mem = out.f;
    if (st == DRACEL_OK && !mem)
        st = DRACEL_ENOMEM;
    int rc = EXIT_USAGE;
    if (st == DRACEL_OK) {
        explain_out x = {eo, mem, eo->node != NULL, false, false, 0, 0, 0, 0};
        x.full = eo->json || x.single || eo->verbose;
        dracel_allocate_opts ao;
        dracel_allocate_opts_init(&ao);
        ao.features = features;
        ao.kubernetes = release;
        ao.timeout_ms = (uint64_t)eo->timeout;
        ao.budget_ms = (uint64_t)eo->budget;
        ao.explain = !eo->fast;
        ao.in_use = used;
        if (eo->json)
            fprintf(mem, "{\"policyVersion\":\"%s\",\"nodes\":[", dracel_policy_version(p));
        double t2 = celc_now_ms();
        /* runs of nodes (in name order) that need DRA for the same extended resources, each
         * with its policy, the budget what the runs before left */
        for (size_t at = 0; st == DRACEL_OK && at < count;) {
            size_t end = at + 1, k = 0;
            while (end < count && list[end].mask == list[at].mask)
                end++;
            st = xpolicy(&xp, list[at].mask, &k, err, sizeof err);
            for (size_t i = at; st == DRACEL_OK && i < end; i++)
                batch[i - at] = list[i].n;
            if (st == DRACEL_OK && eo->budget && at) { /* a later run: what is left */
                double left = (double)eo->budget - (celc_now_ms() - t2);
                ao.budget_ms = left > 1 ? (uint64_t)left : 1;
            }
            if (st == DRACEL_OK)
                st = dracel_allocate_nodes(xp.r[k], batch, end - at, &ao, each_node, &x);
            at = end;
        }
        double t3 = celc_now_ms();
        if (x.failed)
            st = DRACEL_ENOMEM;
        if (eo->json)
            fputs("]}\n", mem);
        else if (!x.single && !x.skipped)
            fprintf(mem, "%zu nodes: %u allocated, %zu unschedulable, %u errors (policy %s)\n",
                    count, x.allocated, count - x.allocated - x.errors, x.errors,
                    dracel_policy_version(p));
        else if (!x.single)
            fprintf(mem, "%zu nodes: %u allocated, %zu unschedulable, %u errors, %u not tried "
                    "(the --budget of %lldms ran out) (policy %s)\n", count, x.allocated,
                    count - x.allocated - x.errors - x.skipped, x.errors, x.skipped, eo->budget,
                    dracel_policy_version(p));
        if (eo->stats && st == DRACEL_OK)
            fprintf(stderr, "{\"nodes\":%zu,\"devices\":%u,\"policy_ms\":%.3f,\"allocate_ms\":%.3f,"
                    "\"us_per_node\":%.3f}\n", count, dracel_table_rows(t), t1 - t0, t3 - t2,
                    count ? (t3 - t2) * 1e3 / (double)count : 0.0);
        rc = x.single && x.errors ? EXIT_REJECTED : EXIT_OK;
    }
    if (st != DRACEL_OK) {
        celc_out_discard(&out);
        if (st == DRACEL_ENOMEM)
            rc = celc_oom();
        else
            fprintf(stderr, "%s: %s\n", prog, err[0] ? err : dracel_status_string(st));
        rc = EXIT_USAGE;
    } else {
        rc = celc_out_close(&out, rc);
    }
    free(nodes);
    free(batch);
    for (size_t k = 0; k < xp.n; k++) {
        dracel_run_free(xp.r[k]);
        dracel_policy_free(xp.p[k]);
    }
    return rc;
}

int celc_explain(int argc, char **argv)
{
    explain_opts eo;
    memset(&eo, 0, sizeof eo);
    eo.timeout = DEFAULT_TIMEOUT_MS;
    eo.budget = DEFAULT_BUDGET_MS;
    eo.kube_timeout = 30000;
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
        } else if (strcmp(a, "--in-cluster") == 0) {
            eo.in_cluster = true;
            continue;
        } else if (strcmp(a, "--kubeconfig") == 0) {
            slot = &eo.kubeconfig;
        } else if (strcmp(a, "--context") == 0) {
            slot = &eo.context;
        } else if (strcmp(a, "--kube-timeout") == 0) {
            if (i + 1 >= argc)
                return usage_error(usage_explain, "%s needs a value", a);
            if ((eo.kube_timeout = parse_duration(argv[++i])) <= 0)
                return usage_error(usage_explain, "bad duration '%s'", argv[i]);
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
        } else if (strcmp(a, "--pod") == 0) {
            slot = &eo.pod;
        } else if (strcmp(a, "--features") == 0) {
            slot = &eo.features;
        } else if (strcmp(a, "--feature-gates") == 0) {
            slot = &eo.gates;
        } else if (strcmp(a, "--kubernetes-version") == 0) {
            slot = &eo.version;
        } else if (strcmp(a, "--format") == 0 || strcmp(a, "--timeout") == 0 ||
                   strcmp(a, "--budget") == 0) {
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
            } else if ((*(a[2] == 't' ? &eo.timeout : &eo.budget) = parse_duration(v)) < 0) {
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
    bool kube = eo.kubeconfig || eo.in_cluster;
    if (kube && (eo.claim || eo.classes || eo.slices || eo.nodes || eo.allocated))
        return usage_error(usage_explain, "%s", "--kubeconfig and --in-cluster read the objects "
                           "from the cluster: no --claim, --classes, --slices, --nodes or --allocated");
    if (eo.kubeconfig && eo.in_cluster)
        return usage_error(usage_explain, "%s", "--kubeconfig and --in-cluster exclude each other");
    if (kube && !eo.pod)
        return usage_error(usage_explain, "%s", "--kubeconfig and --in-cluster need --pod NS/NAME");
    if (eo.context && !eo.kubeconfig)
        return usage_error(usage_explain, "%s", "--context needs --kubeconfig");
    if (!kube && ((!eo.claim && !eo.pod) || !eo.classes || !eo.slices))
        return usage_error(usage_explain, "%s",
                           "explain needs --claim (or --pod), --classes and --slices");
    unsigned release = DRACEL_KUBERNETES_NEWEST;
    if (eo.version && !(release = dracel_kubernetes_parse(eo.version, strlen(eo.version))))
        return usage_error(usage_explain, "unknown Kubernetes release '%s' (known: 1.34, 1.35, "
                           "1.36, 1.37)", eo.version);
    unsigned features = dracel_kubernetes_defaults(release);
    if (celc_release_and_gates(NULL, eo.features, eo.gates, &release, &features) < 0)
        return usage_error(usage_explain, "%s", eo.features && !eo.gates ? "bad --features"
                                                                          : "bad feature gates");

#ifdef DRACEL_CELC_KUBE
    celc_kube_files kf;
    memset(&kf, 0, sizeof kf);
    if (kube) {
        celc_kube ck = {eo.kubeconfig, eo.context, (uint32_t)eo.kube_timeout};
        int krc = celc_kube_fetch(&ck, eo.pod, eo.json, &kf);
        if (krc >= 0) {
            celc_kube_remove(&kf);
            return krc;
        }
        eo.pod = kf.pod;
        eo.claim = kf.any_claim ? kf.claims : NULL;
        eo.classes = kf.classes;
        eo.slices = kf.slices;
        eo.nodes = kf.nodes;
        eo.allocated = kf.any_allocated ? kf.allocated : NULL;
    }
#else
    if (kube)
        return usage_error(usage_explain, "%s", "this dra-celc was built without the Kubernetes "
                           "client (configure found no libcurl)");
#endif
    char err[2048];
    dracel_objects *objs = NULL;
    dracel_table *t = NULL;
    dracel_usage *used = NULL;
    dracel_device_id *ids = NULL;
    size_t nids = 0, notes_before_nodes = 0;
    char *idbuf = NULL;
    int rc = dracel_objects_new(NULL, &objs) == DRACEL_OK ? -1 : celc_oom();
    /* In the order of the options' roles: claims, classes, slices, nodes. */
    if (rc < 0 && eo.claim)
        rc = celc_load_status(dracel_objects_load(objs, eo.claim, DRACEL_OBJ_CLAIM, err, sizeof err),
                         eo.json, eo.claim, err);
    if (rc < 0)
        rc = celc_load_status(dracel_objects_load(objs, eo.classes, DRACEL_OBJ_CLASS, err, sizeof err),
                         eo.json, eo.classes, err);
    if (rc < 0)
        rc = celc_load_status(dracel_table_load(NULL, eo.slices, &t, err, sizeof err), eo.json,
                         eo.slices, err);
    notes_before_nodes = dracel_objects_notes(objs);
    if (rc < 0 && eo.nodes)
        rc = celc_load_status(dracel_objects_load(objs, eo.nodes, DRACEL_OBJ_NODE, err, sizeof err),
                         eo.json, eo.nodes, err);
    if (rc < 0 && eo.claim && dracel_objects_count(objs, DRACEL_OBJ_CLAIM) == 0)
        rc = celc_rejected(eo.json, eo.claim, "no ResourceClaim or ResourceClaimTemplate in --claim");
    dracel_pod *pod = NULL;
    if (rc < 0 && eo.pod)
        rc = celc_load_status(dracel_pod_load(NULL, eo.pod, &pod, err, sizeof err), eo.json,
                              eo.pod, err);
    if (rc < 0 && eo.allocated)
        rc = read_allocated(eo.allocated, eo.json, &ids, &nids, &idbuf);
    if (rc < 0 && nids && dracel_usage_new(t, ids, nids, &used) != DRACEL_OK)
        rc = celc_oom();
    if (rc < 0) {
        print_notes(objs, 0, notes_before_nodes);
        for (size_t i = 0; i < dracel_table_notes(t); i++)
            fprintf(stderr, "%s: note: %s\n", prog, dracel_table_note(t, i));
        print_notes(objs, notes_before_nodes, dracel_objects_notes(objs));
        rc = run_explain(&eo, objs, t, used, release, features, pod);
    }
    dracel_pod_free(pod);
    dracel_usage_free(used);
    dracel_table_free(t);
    dracel_objects_free(objs);
    free(ids);
    free(idbuf);
#ifdef DRACEL_CELC_KUBE
    celc_kube_remove(&kf);
#endif
    return rc;
}
