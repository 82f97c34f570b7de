/*
 * dra-extender: the kube-scheduler extender of dracel (docs/extender.md). kube-scheduler calls
 * it over HTTP for each pod, after its own filters and before it picks a node; it answers, from
 * a live cache of the cluster's DRA objects, which nodes Kubernetes' allocator would place the
 * pod's claims on (filter) and how good each is (prioritize), and explains why (explain).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dracel.h"
#include "args.h"
#include "clock.h"
#include "decide.h"
#include "dirsrc.h"
#include "fair.h"
#include "http.h"
#include "json.h"
#include "jsonspan.h"
#include "admit.h"
#include "kube.h"
#include "kubesrc.h"
#include "events.h"
#include "log.h"
#include "metrics.h"
#include "store.h"

static const char usage_text[] =
    "usage: dra-extender [options]\n"
    "\n"
    "Sources (one at least):\n"
    "  --objects PATH          a file or directory of ResourceSlices, DeviceClasses,\n"
    "                          ResourceClaims and Nodes (JSON/YAML), watched; repeatable\n"
    "  --kubeconfig FILE       read the cluster through the Kubernetes API (list and watch)\n"
    "  --in-cluster            the same with the pod's service account\n"
    "  --context NAME          a context of the kubeconfig (default: its current-context)\n"
    "  --list-page-size N      objects per LIST page (default 500)\n"
    "  --watch-idle-timeout DURATION  a watch that sends nothing for this long is dead\n"
    "                          (default 120s; the API server sends a bookmark a minute)\n"
    "  --watch-backoff-min DURATION, --watch-backoff-max DURATION\n"
    "                          retries after errors (default 250ms doubling up to 30s)\n"
    "  --max-object-size SIZE  one object of a list or a watch event at most (16MiB;\n"
    "                          at least 8MiB)\n"
    "  --max-list-size SIZE    one complete list at most (1GiB)\n"
    "Serving:\n"
    "  --listen ADDR:PORT      address and port to listen on (default 127.0.0.1:8888;\n"
    "                          an IPv6 address in brackets: [::1]:8888; port 0: any free\n"
    "                          port, see --port-file)\n"
    "  --address ADDR, --port N   the two halves of --listen apart\n"
    "  --port-file FILE        write the port there once listening\n"
    "  --probe-listen ADDR:PORT   a second port for /healthz, /readyz and /metrics only,\n"
    "                          answered while the main port's connections are all taken\n"
    "  --probe-max-connections N  its connections at most (default 16)\n"
    "  --webhook-listen ADDR:PORT  a port for the admission webhook alone (/validate,\n"
    "                          /healthz, /readyz), HTTPS with its own certificate and no\n"
    "                          client certificate asked\n"
    "  --webhook-tls-cert FILE, --webhook-tls-key FILE   its PEM certificate and key\n"
    "  --webhook-max-connections N  its connections at most (default 64)\n"
    "  --url-prefix PATH       path before the verbs, as in the scheduler's urlPrefix\n"
    "                          (default \"\": POST /filter, /prioritize)\n"
    "  --filter-verb NAME      (default filter)\n"
    "  --prioritize-verb NAME  (default prioritize)\n"
    "  --tls-cert FILE, --tls-key FILE   serve HTTPS with this PEM certificate and key\n"
    "  --tls-client-ca FILE    every request but /healthz and /readyz needs a client\n"
    "                          certificate signed by this PEM CA (401 without, 403 for a\n"
    "                          name not allowed)\n"
    "  --tls-client-name NAME  a common name allowed (repeatable; default: any the CA\n"
    "                          signed)\n"
    "Limits:\n"
    "  --threads N             HTTP threads (default 2)\n"
    "  --workers N             compute workers (default: the number of CPUs)\n"
    "  --search-threads N      threads one request's search of many nodes uses at most\n"
    "                          (default: the number of CPUs, at most 8; 1: the worker's own)\n"
    "  --queue N               requests waiting for a worker at most (default 4 x workers)\n"
    "  --queue-wait DURATION   a request waiting longer is answered 503 (default 1s)\n"
    "  --max-connections N     (default 512)\n"
    "  --max-connections-per-address N   from one peer address at most (default 64)\n"
    "  --idle-timeout DURATION a connection without a request line this long after it opened\n"
    "                          or its last answer is closed (default 60s)\n"
    "  --header-timeout DURATION   receiving a request's headers at most (default 10s)\n"
    "  --request-timeout DURATION  receiving a request body at most (default 10s)\n"
    "  --max-body SIZE         request body at most (default 64MiB)\n"
    "  --max-json-depth N      JSON nesting at most (default 64)\n"
    "  --max-nodes N           nodes in one request at most (default 100000)\n"
    "  --max-request-memory SIZE\n"
    "                          memory to read one request at most (default 256MiB)\n"
    "  --budget DURATION       reading and computing one request at most (default 4s;\n"
    "                          the scheduler waits 5s by default)\n"
    "  --node-timeout DURATION the search on one node at most, as the scheduler's\n"
    "                          filterTimeout (default 10s; 0: none)\n"
    "  --cache-entries N       node answers kept (default 262144)\n"
    "  --max-reason SIZE       a failed node's reason at most (default 256)\n"
    "  --recent-pods N         pods remembered for GET /explain?pod= (default 1024)\n"
    "  --recent-bytes SIZE     and the bytes they hold at most (default 16MiB)\n"
    "  --snapshot-delay DURATION   coalesce changes before a snapshot (default 0)\n"
    "  --cost-limit N          run-time cost of a selector on a device (default 1000000)\n"
    "Allocation:\n"
    "  --kubernetes-version V  the release reproduced: 1.34, 1.35, 1.36 or 1.37 (default)\n"
    "  --features LIST         the DRA gates on (comma-separated, e.g. AdminAccess,\n"
    "                          PrioritizedList; none: none; default: the release's)\n"
    "  --feature-gates GATES   kube-scheduler's --feature-gates on top\n"
    "                          (DRAConsumableCapacity=false,...)\n"
    "Lint at admission (POST /validate, a validating admission webhook):\n"
    "  --admission-mode MODE   deny (default): a lint error denies the object; warn: only\n"
    "                          warnings (a dry run)\n"
    "  --admission-disable RULES   lint rules off at admission (comma-separated ids)\n"
    "Tier policies (docs/fairness.md):\n"
    "  --policy FILE           a TierPolicy: caps per tenant and tier, checked in filter\n"
    "                          (SIGHUP or a change of the file reloads it)\n"
    "  --policy-history N      versions kept for rollback (default 5)\n"
    "  --policy-poll DURATION  how often the file is checked for a change (default 1s;\n"
    "                          0: only SIGHUP)\n"
    "  --pending-ttl DURATION  a decision counts toward usage until its allocation is\n"
    "                          seen, at most this long (default 60s)\n"
    "  --max-pending N         pods whose decisions count at most (default 1024)\n"
    "  --max-predicted N       nodes per pod kept for reconciliation (default 256)\n"
    "  --decision-log FILE     one JSON line per filter and prioritize call (SIGUSR1\n"
    "                          reopens it)\n"
    "  --decision-log-nodes N  node names sampled per tier and cause (default 5)\n"
    "Events (with an API source; docs/extender.md, \"Events\"):\n"
    "  --events on|off         post the outcome of each filter as an Event regarding the\n"
    "                          pod (default on)\n"
    "  --event-instance NAME   reportingInstance (default $POD_NAME, else the host name)\n"
    "  --event-queue N         events waiting to be written at most (default 1000)\n"
    "  --event-qps N           writes a second at most, all events (default 5)\n"
    "  --event-burst N         writes at once (default 25)\n"
    "  --event-pod-burst N     new Events per pod at once (default 10)\n"
    "  --event-pod-refill DURATION  one more per pod per this (default 1m)\n"
    "  --event-series-window DURATION  a repeat within this counts into the Event's\n"
    "                          series (default 6m)\n"
    "  --event-flush DURATION  series counts written this often (default 30s)\n"
    "  --event-drain DURATION  writing what waits at shutdown at most (default 2s)\n"
    "  --event-await DURATION  a pod that passed is followed until its claims are\n"
    "                          allocated and reserved for it, for the Event of the final\n"
    "                          choice, at most this long (default 10m)\n"
    "  --model-attribute NAME  the device attribute (domain/name) that Event names\n"
    "  --pod-conditions on|off set the pod condition dracel.dev/DeviceTier: the tier it\n"
    "                          got, or Unschedulable (default off; RBAC: patch pods/status)\n"
    "Operation:\n"
    "  --log-level LEVEL       debug, info, warn or error (default info)\n"
    "  --shutdown-grace DURATION   finish in-flight requests on SIGTERM (default 10s)\n"
    "  --version, --help\n"
    "\n"
    "Endpoints: POST PREFIX/filter, POST PREFIX/prioritize (kube-scheduler's extender\n"
    "protocol), GET /explain?pod=NS/NAME[&node=N][&format=text], POST /explain (a pod, or\n"
    "ExtenderArgs), GET /healthz, /readyz, /metrics; from loopback only: GET /policy,\n"
    "POST /policy/rollback. Signals: SIGHUP reloads the policy, SIGUSR2 rolls it back,\n"
    "SIGUSR1 reopens the decision log. docs/extender.md.\n";

typedef struct options {
    const char **objects;
    size_t nobjects;
    const char **client_names;   /* --tls-client-name, in http.client_names */
    const char *kubeconfig, *context;
    bool in_cluster;
    kube_config kube;            /* the API client's limits (the rest is set in main) */
    http_config http;
    const char *port_file;
    char listen_addr[64];        /* --listen's address, without brackets */
    char probe_addr[64];         /* --probe-listen's */
    char webhook_addr[64];       /* --webhook-listen's */
    const char *prefix, *filter_verb, *prioritize_verb;
    ext_limits limits;
    decide_config decide;
    unsigned snapshot_delay_ms;
    uint64_t cost_limit;
    unsigned shutdown_grace_ms;
    int log_level;
    fair_config fair;
    admit_config admit;          /* POST /validate */
    bool events_off;             /* --events off */
    bool pod_conditions;         /* --pod-conditions on */
    events_config events;
    unsigned event_drain_ms;
} options;

/* ---- Option values. */

static bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s[0] || s[0] == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

/* --listen ADDR:PORT: the port after the last colon; an IPv6 address is written in brackets
 * ([::1]:8888), as in a URL, since its own colons would make the split ambiguous. */
static bool parse_listen(const char *s, char *abuf, size_t acap, const char **addr,
                         unsigned *out_port)
{
    const char *colon = strrchr(s, ':');
    if (!colon)
        return false;
    const char *a = s;
    size_t alen = (size_t)(colon - s);
    if (s[0] == '[') {
        if (alen < 2 || s[alen - 1] != ']')
            return false;
        a = s + 1;
        alen -= 2;
    } else if (memchr(s, ':', alen)) {
        return false;            /* an IPv6 address without brackets */
    }
    uint64_t port;
    if (alen == 0 || alen >= acap || !parse_uint(colon + 1, 65535, &port))
        return false;
    memcpy(abuf, a, alen);
    abuf[alen] = '\0';
    *addr = abuf;
    *out_port = (unsigned)port;
    return true;
}

/* "250ms", "10s", "2m", "1h": milliseconds. */
static bool parse_duration(const char *s, uint64_t *ms)
{
    char *end;
    errno = 0;
    if (!s[0] || s[0] == '-')
        return false;
    double v = strtod(s, &end);
    if (errno || end == s)
        return false;
    double scale;
    if (strcmp(end, "ms") == 0)
        scale = 1;
    else if (strcmp(end, "s") == 0)
        scale = 1e3;
    else if (strcmp(end, "m") == 0)
        scale = 60e3;
    else if (strcmp(end, "h") == 0)
        scale = 3600e3;
    else if (strcmp(end, "") == 0 && v == 0)
        scale = 1;
    else
        return false;
    double r = v * scale;
    if (r > 86400e3 * 365)
        return false;
    *ms = (uint64_t)(r + 0.5);
    return true;
}

/* "4096", "64KiB", "8MiB", "1GiB" (and kB, MB, GB: powers of 1000). */
static bool parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s[0] || s[0] == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return false;
    static const struct {
        const char *suffix;
        uint64_t mul;
    } units[] = {{"", 1},           {"B", 1},           {"KiB", 1024},        {"MiB", 1 << 20},
                 {"GiB", 1 << 30},  {"kB", 1000},       {"KB", 1000},         {"MB", 1000000},
                 {"GB", 1000000000}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].suffix) == 0) {
            if (v > UINT64_MAX / units[i].mul)
                return false;
            *out = v * units[i].mul;
            return true;
        }
    return false;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dra-extender: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'dra-extender --help'.\n");
    return 2;
}

static int parse_features(const char *list, unsigned *out)
{
    unsigned f = 0;
    if (strcmp(list, "none") == 0)
        list = "";
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        unsigned bit = dracel_feature_parse(p, n);
        if (!bit)
            return -1;
        f |= bit;
        p += n + (comma ? 1 : 0);
    }
    *out = f;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->http.address = "127.0.0.1";
    o->http.port = 8888;
    o->prefix = "";
    o->filter_verb = "filter";
    o->prioritize_verb = "prioritize";
    o->decide.budget_ms = 4000;
    o->decide.node_timeout_ms = 10000;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->decide.search_threads = cpus < 1 ? 1 : cpus > 8 ? 8 : (unsigned)cpus;
    o->cost_limit = 1000000;
    o->shutdown_grace_ms = 10000;
    o->event_drain_ms = 2000;
    o->log_level = LOG_INFO;
    o->fair.poll_ms = 1000;
    o->fair.log_nodes = 5;
    o->objects = calloc((size_t)argc, sizeof *o->objects);
    o->client_names = calloc((size_t)argc, sizeof *o->client_names);
    o->http.client_names = o->client_names;
    if (!o->objects || !o->client_names) {
        fprintf(stderr, "dra-extender: out of memory\n");
        return 2;
    }
    const char *features = NULL, *gates = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
        }
        if (strcmp(a, "--version") == 0) {
            printf("dra-extender %s\n", dracel_version());
            return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
        }
        if (strcmp(a, "--in-cluster") == 0) {
            o->in_cluster = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return usage_error("unexpected argument '%s'", a);
        /* --name VALUE or --name=VALUE (the form of Kubernetes manifests' args). */
        char name[40];
        const char *v, *eq = strchr(a, '=');
        if (eq) {
            if ((size_t)(eq - a) >= sizeof name)
                return usage_error("unknown option '%s'", a);
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            a = name;
            v = eq + 1;
        } else {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", a);
            v = argv[++i];
        }
        uint64_t n;
        unsigned n32;
        bool ok = true;
        if (strcmp(a, "--objects") == 0)
            o->objects[o->nobjects++] = v;
        else if (strcmp(a, "--kubeconfig") == 0)
            o->kubeconfig = v;
        else if (strcmp(a, "--context") == 0)
            o->context = v;
        else if (strcmp(a, "--list-page-size") == 0)
            ok = parse_uint(v, 100000, &n) && n > 0 && ((o->kube.list_limit = (uint32_t)n), true);
        else if (strcmp(a, "--watch-idle-timeout") == 0)
            ok = parse_duration(v, &n) && n >= 1000 && n / 1000 <= 86400 &&
                 ((o->kube.idle_timeout_s = (uint32_t)(n / 1000)), true);
        else if (strcmp(a, "--watch-backoff-min") == 0)
            ok = parse_duration(v, &n) && n > 0 && n <= 3600000 &&
                 ((o->kube.backoff_min_ms = (uint32_t)n), true);
        else if (strcmp(a, "--watch-backoff-max") == 0)
            ok = parse_duration(v, &n) && n > 0 && n <= 3600000 &&
                 ((o->kube.backoff_max_ms = (uint32_t)n), true);
        else if (strcmp(a, "--max-object-size") == 0) /* above what an API server can store */
            ok = parse_size(v, &n) && n >= ((uint64_t)8 << 20) && n <= SIZE_MAX / 4 &&
                 ((o->kube.max_object_bytes = (size_t)n), true);
        else if (strcmp(a, "--max-list-size") == 0)
            ok = parse_size(v, &n) && n >= 1024 && n <= SIZE_MAX / 4 &&
                 ((o->kube.max_list_bytes = (size_t)n), true);
        else if (strcmp(a, "--listen") == 0)
            ok = parse_listen(v, o->listen_addr, sizeof o->listen_addr, &o->http.address,
                              &o->http.port);
        else if (strcmp(a, "--probe-listen") == 0)
            ok = parse_listen(v, o->probe_addr, sizeof o->probe_addr, &o->http.probe_address,
                              &o->http.probe_port);
        else if (strcmp(a, "--webhook-listen") == 0)
            ok = parse_listen(v, o->webhook_addr, sizeof o->webhook_addr,
                              &o->http.webhook_address, &o->http.webhook_port);
        else if (strcmp(a, "--webhook-tls-cert") == 0)
            o->http.webhook_cert = v;
        else if (strcmp(a, "--webhook-tls-key") == 0)
            o->http.webhook_key = v;
        else if (strcmp(a, "--webhook-max-connections") == 0)
            ok = parse_uint(v, 100000, &n) && n > 0 &&
                 ((o->http.webhook_max_connections = (unsigned)n), true);
        else if (strcmp(a, "--probe-max-connections") == 0)
            ok = parse_uint(v, 10000, &n) && n > 0 &&
                 ((o->http.probe_max_connections = (unsigned)n), true);
        else if (strcmp(a, "--max-connections-per-address") == 0)
            ok = parse_uint(v, 100000, &n) && n > 0 &&
                 ((o->http.max_per_address = (unsigned)n), true);
        else if (strcmp(a, "--header-timeout") == 0)
            ok = parse_duration(v, &n) && n > 0 && n <= UINT_MAX &&
                 ((o->http.header_timeout_ms = (unsigned)n), true);
        else if (strcmp(a, "--address") == 0)
            o->http.address = v;
        else if (strcmp(a, "--port") == 0)
            ok = parse_uint(v, 65535, &n) && ((o->http.port = (unsigned)n), true);
        else if (strcmp(a, "--port-file") == 0)
            o->port_file = v;
        else if (strcmp(a, "--url-prefix") == 0)
            o->prefix = v;
        else if (strcmp(a, "--filter-verb") == 0)
            o->filter_verb = v;
        else if (strcmp(a, "--prioritize-verb") == 0)
            o->prioritize_verb = v;
        else if (strcmp(a, "--tls-cert") == 0)
            o->http.tls_cert = v;
        else if (strcmp(a, "--tls-key") == 0)
            o->http.tls_key = v;
        else if (strcmp(a, "--tls-client-ca") == 0)
            o->http.tls_client_ca = v;
        else if (strcmp(a, "--tls-client-name") == 0)
            ok = *v && ((o->client_names[o->http.nclient_names++] = v), true);
        else if (strcmp(a, "--threads") == 0)
            ok = parse_uint(v, 256, &n) && n > 0 && ((o->http.threads = (unsigned)n), true);
        else if (strcmp(a, "--workers") == 0)
            ok = parse_uint(v, 256, &n) && n > 0 && ((o->http.workers = (unsigned)n), true);
        else if (strcmp(a, "--search-threads") == 0)
            ok = parse_uint(v, 64, &n) && n > 0 && ((o->decide.search_threads = (unsigned)n), true);
        else if (strcmp(a, "--queue") == 0)
            ok = parse_uint(v, 100000, &n) && n > 0 && ((o->http.queue = (unsigned)n), true);
        else if (strcmp(a, "--queue-wait") == 0)
            ok = parse_duration(v, &n) && n > 0 && n <= UINT_MAX &&
                 ((o->http.queue_wait_ms = (unsigned)n), true);
        else if (strcmp(a, "--max-connections") == 0)
            ok = parse_uint(v, 100000, &n) && n > 0 &&
                 ((o->http.max_connections = (unsigned)n), true);
        else if (strcmp(a, "--idle-timeout") == 0)
            ok = parse_duration(v, &n) && n >= 1000 && n / 1000 <= UINT_MAX &&
                 ((o->http.idle_timeout_s = (unsigned)(n / 1000)), true);
        else if (strcmp(a, "--request-timeout") == 0)
            ok = parse_duration(v, &n) && n > 0 && n <= UINT_MAX &&
                 ((o->http.request_timeout_ms = (unsigned)n), true);
        else if (strcmp(a, "--max-body") == 0)
            ok = parse_size(v, &n) && n > 0 && n <= SIZE_MAX / 2 &&
                 ((o->http.max_body = (size_t)n), true);
        else if (strcmp(a, "--max-json-depth") == 0)
            ok = parse_uint(v, 1000, &n) && n > 0 && ((o->limits.max_depth = (unsigned)n), true);
        else if (strcmp(a, "--max-request-memory") == 0)
            ok = parse_size(v, &n) && n >= 65536 && n <= SIZE_MAX / 4 &&
                 ((o->limits.max_memory = (size_t)n), true);
        else if (strcmp(a, "--max-nodes") == 0)
            ok = parse_uint(v, 10000000, &n) && n > 0 && ((o->limits.max_nodes = (size_t)n), true);
        else if (strcmp(a, "--budget") == 0)
            ok = parse_duration(v, &n) && ((o->decide.budget_ms = n), true);
        else if (strcmp(a, "--node-timeout") == 0)
            ok = parse_duration(v, &n) && ((o->decide.node_timeout_ms = n), true);
        else if (strcmp(a, "--cache-entries") == 0)
            ok = parse_uint(v, (uint64_t)1 << 32, &n) && n > 0 &&
                 ((o->decide.cache_entries = (size_t)n), true);
        else if (strcmp(a, "--recent-pods") == 0)
            ok = parse_uint(v, 1000000, &n) && n > 0 && ((o->decide.recent_pods = (size_t)n), true);
        else if (strcmp(a, "--recent-bytes") == 0)
            ok = parse_size(v, &n) && n >= 4096 && n <= SIZE_MAX / 4 &&
                 ((o->decide.recent_bytes = (size_t)n), true);
        else if (strcmp(a, "--max-reason") == 0)
            ok = parse_size(v, &n) && n >= 16 && n <= 65536 &&
                 ((o->decide.max_reason = (size_t)n), true);
        else if (strcmp(a, "--snapshot-delay") == 0)
            ok = parse_duration(v, &n) && n <= 60000 &&
                 ((o->snapshot_delay_ms = (unsigned)n), true);
        else if (strcmp(a, "--cost-limit") == 0)
            ok = parse_uint(v, UINT64_MAX, &n) && n > 0 && ((o->cost_limit = n), true);
        else if (strcmp(a, "--features") == 0)
            ok = (features = v, parse_features(v, &n32) == 0);
        else if (strcmp(a, "--feature-gates") == 0)
            gates = v;
        else if (strcmp(a, "--kubernetes-version") == 0)
            ok = (o->decide.kubernetes = dracel_kubernetes_parse(v, strlen(v))) != 0;
        else if (strcmp(a, "--log-level") == 0)
            ok = (o->log_level = log_level_parse(v)) >= 0;
        else if (strcmp(a, "--policy") == 0)
            o->fair.path = v;
        else if (strcmp(a, "--policy-history") == 0)
            ok = parse_uint(v, 1000, &n) && n > 0 && ((o->fair.history = (unsigned)n), true);
        else if (strcmp(a, "--admission-mode") == 0)
            ok = (strcmp(v, "deny") == 0 || strcmp(v, "warn") == 0) &&
                 ((o->admit.warn_only = strcmp(v, "warn") == 0), true);
        else if (strcmp(a, "--admission-disable") == 0)
            o->admit.disable = v;
        else if (strcmp(a, "--policy-poll") == 0)
            ok = parse_duration(v, &n) && n <= 3600000 && ((o->fair.poll_ms = (unsigned)n), true);
        else if (strcmp(a, "--pending-ttl") == 0)
            ok = parse_duration(v, &n) && n >= 1000 && n <= 86400000 &&
                 ((o->fair.pending_ttl = (double)n / 1e3), true);
        else if (strcmp(a, "--max-pending") == 0)
            ok = parse_uint(v, 1000000, &n) && n > 0 && ((o->fair.max_pending = (size_t)n), true);
        else if (strcmp(a, "--max-predicted") == 0)
            ok = parse_uint(v, 100000, &n) && n > 0 &&
                 ((o->fair.max_predicted = (size_t)n), true);
        else if (strcmp(a, "--decision-log") == 0)
            o->fair.log_path = v;
        else if (strcmp(a, "--decision-log-nodes") == 0)
            ok = parse_uint(v, 10000, &n) && ((o->fair.log_nodes = (size_t)n), true);
        else if (strcmp(a, "--events") == 0)
            ok = (strcmp(v, "on") == 0 || strcmp(v, "off") == 0) &&
                 ((o->events_off = strcmp(v, "off") == 0), true);
        else if (strcmp(a, "--event-instance") == 0)
            ok = v[0] && strlen(v) <= 128 && ((o->events.instance = v), true);
        else if (strcmp(a, "--event-queue") == 0)
            ok = parse_uint(v, 1000000, &n) && n > 0 && ((o->events.queue = (uint32_t)n), true);
        else if (strcmp(a, "--event-qps") == 0)
            ok = parse_uint(v, 10000, &n) && n > 0 && ((o->events.qps = (double)n), true);
        else if (strcmp(a, "--event-burst") == 0)
            ok = parse_uint(v, 100000, &n) && n > 0 && ((o->events.burst = (uint32_t)n), true);
        else if (strcmp(a, "--event-pod-burst") == 0)
            ok = parse_uint(v, 100000, &n) && n > 0 &&
                 ((o->events.pod_burst = (uint32_t)n), true);
        else if (strcmp(a, "--event-pod-refill") == 0)
            ok = parse_duration(v, &n) && n > 0 && n <= 86400000 &&
                 ((o->events.pod_refill_ms = (uint32_t)n), true);
        else if (strcmp(a, "--event-series-window") == 0)
            ok = parse_duration(v, &n) && n > 0 && n <= 86400000 &&
                 ((o->events.window_ms = (uint32_t)n), true);
        else if (strcmp(a, "--event-flush") == 0)
            ok = parse_duration(v, &n) && n > 0 && n <= 86400000 &&
                 ((o->events.flush_ms = (uint32_t)n), true);
        else if (strcmp(a, "--pod-conditions") == 0)
            ok = (strcmp(v, "on") == 0 || strcmp(v, "off") == 0) &&
                 ((o->pod_conditions = strcmp(v, "on") == 0), true);
        else if (strcmp(a, "--event-await") == 0)
            ok = parse_duration(v, &n) && n >= 1000 && n <= 86400000 &&
                 ((o->decide.await_ttl_ms = n), true);
        else if (strcmp(a, "--model-attribute") == 0)
            ok = strchr(v, '/') && v[0] != '/' && v[strlen(v) - 1] != '/' &&
                 ((o->decide.model_attribute = o->fair.model_attribute = v), true);
        else if (strcmp(a, "--event-drain") == 0)
            ok = parse_duration(v, &n) && n <= 600000 && ((o->event_drain_ms = (unsigned)n), true);
        else if (strcmp(a, "--shutdown-grace") == 0)
            ok = parse_duration(v, &n) && n <= 3600000 &&
                 ((o->shutdown_grace_ms = (unsigned)n), true);
        else
            return usage_error("unknown option '%s'", a);
        if (!ok)
            return usage_error("%s: invalid value '%s'", a, v);
    }
    /* The release's default gates, or --features instead; --feature-gates on top, with
     * kube-scheduler's checks for that release (as dra-celc allocate and explain). */
    if (!o->decide.kubernetes)
        o->decide.kubernetes = DRACEL_KUBERNETES_NEWEST;
    if (features)
        (void)parse_features(features, &o->decide.features);
    else
        o->decide.features = dracel_kubernetes_defaults(o->decide.kubernetes);
    if (gates) {
        char err[512];
        if (dracel_feature_gates(o->decide.kubernetes, gates, strlen(gates), &o->decide.features,
                                 err, sizeof err) != DRACEL_OK)
            return usage_error("--feature-gates: %s", err);
    }
    /* DeviceTaintRules are read from the API only with their gate on, from the version that
     * release serves them in (GA v1 in 1.37, beta v1beta2 in 1.36, alpha v1alpha3 before);
     * a server that does not serve them has none (kube.h). */
    if (o->decide.features & DRACEL_FEATURE_DEVICE_TAINT_RULES)
        o->kube.rules_version = o->decide.kubernetes >= 37   ? "v1"
                                : o->decide.kubernetes == 36 ? "v1beta2"
                                                             : "v1alpha3";
    if (!o->nobjects && !o->kubeconfig && !o->in_cluster)
        return usage_error("no source: give --objects, --kubeconfig or --in-cluster");
    if (o->fair.log_path && !o->fair.path)
        return usage_error("--decision-log needs --policy (the records are a policy's decisions)");
    if (o->kubeconfig && o->in_cluster)
        return usage_error("--kubeconfig and --in-cluster exclude each other");
    if (o->pod_conditions && (o->events_off || (!o->kubeconfig && !o->in_cluster)))
        return usage_error("--pod-conditions needs an API source and --events on");
    if (o->admit.disable) {
        dracel_lint_opts lo;
        dracel_lint_opts_init(&lo);
        lo.disable = o->admit.disable;
        dracel_lint *l = NULL;
        char err[256];
        dracel_status st = dracel_lint_new(NULL, &lo, &l, err, sizeof err);
        dracel_lint_free(l);
        if (st == DRACEL_EINVAL)
            return usage_error("--admission-disable: %s", err);
    }
    if ((o->http.webhook_cert || o->http.webhook_key) &&
        (!o->http.webhook_address || !o->http.webhook_cert || !o->http.webhook_key))
        return usage_error("--webhook-tls-cert and --webhook-tls-key go together, with --webhook-listen");
    if (o->http.webhook_address && !o->http.webhook_cert)
        return usage_error("--webhook-listen needs --webhook-tls-cert and --webhook-tls-key "
                           "(the API server calls webhooks over HTTPS only)");
    if (o->http.nclient_names && !o->http.tls_client_ca)
        return usage_error("--tls-client-name needs --tls-client-ca");
    if (o->kube.backoff_min_ms && o->kube.backoff_max_ms &&
        o->kube.backoff_min_ms > o->kube.backoff_max_ms)
        return usage_error("--watch-backoff-min is above --watch-backoff-max");
    if (o->prefix[0] && (o->prefix[0] != '/' || o->prefix[strlen(o->prefix) - 1] == '/'))
        return usage_error("--url-prefix: '%s' must start with '/' and not end with one",
                           o->prefix);
    return -1;
}

/* ---- The server's routes and handlers. */

typedef struct server {
    options *o;
    store *st;
    decider *d;
    kubesrc *ks;                 /* the API source, or NULL */
    fair *fair;                  /* tier policies, or NULL */
    events *ev;                  /* Events, or NULL */
    char filter_path[512], prioritize_path[512];
    double started;
} server;

static const metric_family m_build_info = {
    "dra_extender_build_info", "Always 1: the version of dra-extender and of libdracel.",
    METRIC_GAUGE, NULL, 0};
static const metric_family m_snapshot_age = {
    "dra_extender_snapshot_age_seconds",
    "Time since the current snapshot of the cluster was published.", METRIC_GAUGE, NULL, 0};
static const metric_family m_ready = {
    "dra_extender_ready", "1 when every source is synced and a snapshot exists.", METRIC_GAUGE,
    NULL, 0};
static const metric_family m_rss = {
    "process_resident_memory_bytes", "Resident memory size in bytes.", METRIC_GAUGE, NULL, 0};
static const metric_family m_cpu = {
    "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_start = {
    "process_start_time_seconds", "Start time of the process since the Unix epoch in seconds.",
    METRIC_GAUGE, NULL, 0};

static const char *route(void *ctx, const char *method, const char *path, bool *worker)
{
    server *s = ctx;
    *worker = false;
    (void)method;
    if (strcmp(path, s->filter_path) == 0) {
        *worker = true;
        return "filter";
    }
    if (strcmp(path, s->prioritize_path) == 0) {
        *worker = true;
        return "prioritize";
    }
    if (strcmp(path, "/explain") == 0) {
        *worker = true;
        return "explain";
    }
    if (strcmp(path, "/validate") == 0) {
        *worker = true;
        return "validate";
    }
    if (strcmp(path, "/healthz") == 0)
        return "healthz";
    if (strcmp(path, "/readyz") == 0)
        return "readyz";
    if (strcmp(path, "/metrics") == 0)
        return "metrics";
    if (strcmp(path, "/policy") == 0)
        return "policy";
    if (strcmp(path, "/policy/rollback") == 0)
        return "rollback";
    return NULL;
}

static void method_not_allowed(http_resp *resp, const char *allowed)
{
    char msg[96];
    snprintf(msg, sizeof msg, "method not allowed: use %s", allowed);
    http_error(resp, 405, msg);
}

/* Is the body of POST /explain a Pod rather than ExtenderArgs? An object with a metadata
 * member or "kind": "Pod", and none of ExtenderArgs' members (matched as kube-scheduler's Go
 * decoder matches them, case-insensitively). Anything else is read as ExtenderArgs, so that a
 * body that is neither gets ExtenderArgs' error, as filter gives it (it once went on as a Pod
 * with no name, and every node allocated). */
static bool bare_pod(const char *body, size_t len)
{
    size_t pos = 0;
    js_span root;
    if (js_value(body, len, &pos, &root) != 0 || body[root.off] != '{')
        return false;
    static const char *const ea[] = {"Pod", "Nodes", "NodeNames"};
    static const char *const pk[] = {"kind", "metadata"};
    js_span e[3], k[2];
    if (js_members_fold(body, root, ea, 3, e) != 0 || js_members(body, root, pk, 2, k) != 0)
        return false;
    if (e[0].len || e[1].len || e[2].len)
        return false;
    return k[1].len || (k[0].len == 5 && memcmp(body + k[0].off, "\"Pod\"", 5) == 0);
}

/* SIGTERM's grace nears its end: the computations still running end now. */
static void cancel(void *ctx)
{
    decider_cancel(((server *)ctx)->d);
}

static bool json_content(const http_req *r)
{
    if (!r->content_type)
        return true;
    size_t n = strcspn(r->content_type, "; ");
    return (n == 16 && strncasecmp(r->content_type, "application/json", 16) == 0) ||
           (n == 3 && strncmp(r->content_type, "*/*", 3) == 0);
}

static void finish(http_resp *resp, int status, jbuf *b, const char *ctype)
{
    size_t len;
    char *body = jb_take(b, &len);
    if (!body) {
        http_error(resp, 500, "out of memory");
        return;
    }
    resp->status = status;
    resp->content_type = status == 200 ? ctype : "application/json";
    resp->body = body;
    resp->len = len;
}

static void process_metrics(server *s)
{
    long page = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size, resident;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &resident) == 2)
            metrics_set(&m_rss, NULL, (double)resident * (double)page);
        fclose(f);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        metrics_set(&m_cpu, NULL,
                    (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                        (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    double published, build;
    store_times(s->st, &published, &build);
    if (published > 0)
        metrics_set(&m_snapshot_age, NULL, ext_now() - published);
    metrics_set(&m_ready, NULL, store_ready(s->st) ? 1 : 0);
    kubesrc_metrics(s->ks);
    events_metrics(s->ev);
    if (s->fair) {
        dracel_snapshot *snap = store_current(s->st);
        fair_sync(s->fair, snap);
        dracel_snapshot_unref(snap);
    }
}

/* The decider's events (decide.h) to events.h. */
static void post_event(void *ctx, const ext_pod *pod, bool warning, const char *action,
                       const char *reason, const char *note)
{
    events_pod p = {pod->ns, pod->name, pod->uid};
    (void)events_post(ctx, &p, warning, action, reason, note);
}

static void set_condition(void *ctx, const ext_pod *pod, bool status, const char *reason,
                          const char *message)
{
    events_pod p = {pod->ns, pod->name, pod->uid};
    (void)events_condition(ctx, &p, status, reason, message);
}

static void handle(void *ctx, const char *name, const http_req *req, http_resp *resp)
{
    server *s = ctx;
    jbuf b;
    jb_init(&b);
    bool get = strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0;
    bool post = strcmp(req->method, "POST") == 0;
    if (strcmp(name, "healthz") == 0) {
        if (!get)
            return method_not_allowed(resp, "GET");
        jb_puts(&b, "ok\n");
        size_t refused = store_refused_count(s->st);
        if (refused) /* ready: the rest is current; these are left out (docs/extender.md) */
            jb_printf(&b, "%zu objects refused (dra_extender_objects_refused)\n", refused);
        return finish(resp, 200, &b, "text/plain; charset=utf-8");
    }
    if (strcmp(name, "readyz") == 0) {
        if (!get)
            return method_not_allowed(resp, "GET");
        if (!store_ready(s->st))
            return http_error(resp, 503, "not ready: the sources have not all synced yet");
        jb_puts(&b, "ok\n");
        size_t refused = store_refused_count(s->st);
        if (refused) /* ready: the rest is current; these are left out (docs/extender.md) */
            jb_printf(&b, "%zu objects refused (dra_extender_objects_refused)\n", refused);
        return finish(resp, 200, &b, "text/plain; charset=utf-8");
    }
    if (strcmp(name, "metrics") == 0) {
        if (!get)
            return method_not_allowed(resp, "GET");
        process_metrics(s);
        metrics_render(&b);
        return finish(resp, 200, &b, "text/plain; version=0.0.4; charset=utf-8");
    }
    if (strcmp(name, "policy") == 0 || strcmp(name, "rollback") == 0) {
        /* Local-only: a rollback changes every decision at once. */
        if (!req->loopback)
            return http_error(resp, 403, "forbidden: this endpoint answers loopback peers only");
        if (!s->fair)
            return http_error(resp, 404, "no tier policy: dra-extender runs without --policy");
        if (strcmp(name, "policy") == 0) {
            if (!get)
                return method_not_allowed(resp, "GET");
            fair_versions_json(s->fair, &b);
            return finish(resp, 200, &b, "application/json");
        }
        if (!post)
            return method_not_allowed(resp, "POST");
        char msg[700];
        int rc = fair_rollback(s->fair, "endpoint", msg, sizeof msg);
        jb_puts(&b, "{\"result\":");
        jb_cstr(&b, rc == 0 ? "done" : "none");
        jb_puts(&b, ",\"message\":");
        jb_cstr(&b, msg);
        jb_puts(&b, "}\n");
        return finish(resp, rc == 0 ? 200 : 409, &b, "application/json");
    }
    if (strcmp(name, "explain") == 0 && get) {
        const char *pod = http_arg(req, "pod"), *format = http_arg(req, "format");
        if (!pod || !strchr(pod, '/'))
            return http_error(resp, 400, "explain needs ?pod=NAMESPACE/NAME");
        if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
            return http_error(resp, 400, "format: json or text");
        bool text = format && strcmp(format, "text") == 0;
        /* Kubernetes' own bounds: a namespace is a DNS label, a pod's name a DNS subdomain. */
        char ns[64], msg[160];
        size_t nl = (size_t)(strchr(pod, '/') - pod), pl = strlen(pod + nl + 1);
        if (nl == 0 || pl == 0)
            return http_error(resp, 400, nl ? "explain needs ?pod=NAMESPACE/NAME: the name is empty"
                                            : "explain needs ?pod=NAMESPACE/NAME: the namespace is "
                                              "empty");
        if (nl >= sizeof ns || pl > 253) {
            snprintf(msg, sizeof msg, "pod=: the %s has %zu bytes, more than %s allows (%u)",
                     nl >= sizeof ns ? "namespace" : "name", nl >= sizeof ns ? nl : pl,
                     nl >= sizeof ns ? "a namespace (a DNS label)" : "a pod's name",
                     nl >= sizeof ns ? 63u : 253u);
            return http_error(resp, 400, msg);
        }
        memcpy(ns, pod, nl);
        ns[nl] = '\0';
        int status = decide_explain_recent(s->d, ns, pod + nl + 1, http_arg(req, "node"), text,
                                           &b);
        return finish(resp, status, &b, text ? "text/plain; charset=utf-8" : "application/json");
    }
    if (!post)
        return method_not_allowed(resp, strcmp(name, "explain") == 0 ? "GET or POST" : "POST");
    if (!json_content(req))
        return http_error(resp, 415, "the body must be application/json");
    if (strcmp(name, "validate") == 0) {
        /* lint at admission, against the classes of the current snapshot */
        char err[512];
        dracel_snapshot *snap = store_current(s->st);
        int status = admit_review(&s->o->admit, snap ? dracel_snapshot_classes(snap) : NULL,
                                  req->body, req->len, &b, err, sizeof err);
        dracel_snapshot_unref(snap);
        if (status != 200) {
            jb_free(&b);
            return http_error(resp, status, err);
        }
        return finish(resp, 200, &b, "application/json");
    }
    ext_args a;
    char err[512];
    int rc;
    const char *format = http_arg(req, "format");
    bool text = format && strcmp(format, "text") == 0;
    /* --budget counts from here: reading the body is part of computing the answer. */
    ext_limits lim = s->o->limits;
    lim.deadline = s->o->decide.budget_ms ? ext_now() + s->o->decide.budget_ms / 1e3 : 0;
    if (strcmp(name, "explain") == 0 && bare_pod(req->body, req->len)) /* a Pod alone */
        rc = ext_pod_parse(req->body, req->len, &lim, &a, err, sizeof err);
    else
        rc = ext_args_parse(req->body, req->len, &lim, &a, err, sizeof err);
    if (rc != 0)
        return http_error(resp,
                          rc == EXT_ETOOBIG ? 413 : rc == EXT_ELATE ? 503
                                                    : rc == EXT_ENOMEM ? 500 : 400,
                          err);
    if (strcmp(name, "explain") == 0 && (!a.pod.name || !a.pod.name[0])) {
        ext_args_free(&a);
        return http_error(resp, 400, "Pod: metadata.name: required value");
    }
    int status;
    if (strcmp(name, "filter") == 0)
        status = decide_filter(s->d, &a, &b);
    else if (strcmp(name, "prioritize") == 0)
        status = decide_prioritize(s->d, &a, &b);
    else
        status = decide_explain(s->d, &a, http_arg(req, "node"), text, &b);
    if (log_enabled(LOG_DEBUG))
        log_line(LOG_DEBUG, "request", "verb", name, "pod", a.pod.name, "namespace", a.pod.ns,
                 "#nodes", (int64_t)a.nnodes, "#status", (int64_t)status, "%ms",
                 (ext_now() - req->start) * 1e3, NULL);
    ext_args_free(&a);
    finish(resp, status, &b, text ? "text/plain; charset=utf-8" : "application/json");
}

static void write_port_file(const char *path, unsigned port)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        log_line(LOG_ERROR, "cannot write the port file", "file", path, "error",
                 strerror(errno), NULL);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) {
        free(o.objects);
        free(o.client_names);
        return rc;
    }
    log_set_level((log_level)o.log_level);
    signal(SIGPIPE, SIG_IGN);
    /* Every thread started from here on blocks the stop signals: main waits for them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGHUP);
    sigaddset(&stop, SIGUSR1);
    sigaddset(&stop, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    dracel_config cfg;
    dracel_config_init(&cfg);
    cfg.cost_limit = o.cost_limit;
    o.decide.cfg = &cfg;
    char err[2048];
    unsigned sources = (o.nobjects ? 1u : 0u) + (o.kubeconfig || o.in_cluster ? 1u : 0u);
    store_config sc = {&cfg, o.snapshot_delay_ms, sources};
    server srv;
    memset(&srv, 0, sizeof srv);
    srv.o = &o;
    srv.started = ext_now();
    snprintf(srv.filter_path, sizeof srv.filter_path, "%s/%s", o.prefix, o.filter_verb);
    snprintf(srv.prioritize_path, sizeof srv.prioritize_path, "%s/%s", o.prefix,
             o.prioritize_verb);
    char labels[256];
    snprintf(labels, sizeof labels, "version=\"%s\"", dracel_version());
    metrics_set(&m_build_info, labels, 1);
    metrics_set(&m_start, NULL, (double)time(NULL) - (ext_now() - srv.started));

    srv.st = store_new(&sc, err, sizeof err);
    if (!srv.st) {
        fprintf(stderr, "dra-extender: %s\n", err);
        free(o.objects);
        free(o.client_names);
        return 1;
    }
    dirsrc *ds = NULL;
    kubesrc *ks = NULL;
    if (o.nobjects && !(ds = dirsrc_start(srv.st, o.objects, o.nobjects, err, sizeof err))) {
        fprintf(stderr, "dra-extender: %s\n", err);
        store_free(srv.st);
        free(o.objects);
        free(o.client_names);
        return 1;
    }
    if (ds && store_flush(srv.st, err, sizeof err) != DRACEL_OK)
        log_line(LOG_ERROR, "first snapshot failed", "error", err, NULL);
    if (o.kubeconfig || o.in_cluster) {
        kube_config kc = o.kube;
        kc.kubeconfig = o.kubeconfig;
        kc.context = o.context;
        if (!(ks = kubesrc_start(srv.st, &kc, err, sizeof err))) {
            fprintf(stderr, "dra-extender: %s\n", err);
            dirsrc_stop(ds);
            store_free(srv.st);
            free(o.objects);
            free(o.client_names);
            return 1;
        }
    }
    srv.ks = ks;
    if (ks && !o.events_off) {
        if (!(srv.ev = events_start(kubesrc_kube(ks), &o.events, err, sizeof err))) {
            fprintf(stderr, "dra-extender: %s\n", err);
            kubesrc_stop(ks);
            dirsrc_stop(ds);
            store_free(srv.st);
            free(o.objects);
            free(o.client_names);
            return 1;
        }
        o.decide.event = post_event;
        if (o.pod_conditions)
            o.decide.condition = set_condition;
        o.decide.event_ctx = srv.ev;
    }
    if (o.fair.path) {
        o.fair.cfg = &cfg;
        if (!(srv.fair = fair_new(&o.fair, err, sizeof err))) {
            fprintf(stderr, "dra-extender: %s\n", err);
            events_stop(srv.ev, 0);
            kubesrc_stop(ks);
            dirsrc_stop(ds);
            store_free(srv.st);
            free(o.objects);
            free(o.client_names);
            return 1;
        }
        o.decide.fair = srv.fair;
    }
    srv.d = decider_new(&o.decide, srv.st, err, sizeof err);
    http_handlers h = {&srv, route, handle, cancel};
    http_server *hs = srv.d ? http_start(&o.http, &h, err, sizeof err) : NULL;
    if (!hs) {
        fprintf(stderr, "dra-extender: %s\n", err);
        events_stop(srv.ev, 0);
        kubesrc_stop(ks);
        dirsrc_stop(ds);
        decider_free(srv.d);
        fair_free(srv.fair);
        store_free(srv.st);
        free(o.objects);
        free(o.client_names);
        return 1;
    }
    unsigned port = http_port(hs);
    if (o.port_file)
        write_port_file(o.port_file, port);
    log_line(LOG_INFO, "serving", "address", o.http.address,
             "#port", (int64_t)port, "filter", srv.filter_path, "prioritize",
             srv.prioritize_path, "tls",
             !o.http.tls_cert ? "off" : o.http.tls_client_ca ? "mutual" : "on", "version",
             dracel_version(), NULL);
    if (o.http.webhook_address)
        log_line(LOG_INFO, "serving the webhook", "address", o.http.webhook_address, "#port",
                 (int64_t)http_webhook_port(hs), "paths", "/validate /healthz /readyz", NULL);
    if (o.http.probe_address)
        log_line(LOG_INFO, "serving probes", "address", o.http.probe_address, "#port",
                 (int64_t)http_probe_port(hs), "paths", "/healthz /readyz /metrics", NULL);

    int sig = 0;
    for (;;) {
        if (sigwait(&stop, &sig) != 0)
            continue;
        if (sig == SIGTERM || sig == SIGINT)
            break;
        if (!srv.fair) {
            log_line(LOG_WARN, "signal ignored: no --policy", "signal",
                     sig == SIGHUP ? "SIGHUP" : sig == SIGUSR1 ? "SIGUSR1" : "SIGUSR2", NULL);
            continue;
        }
        if (sig == SIGHUP) {
            fair_reload(srv.fair, "SIGHUP");
        } else if (sig == SIGUSR1) {
            fair_reopen_log(srv.fair);
        } else {
            char msg[700];
            fair_rollback(srv.fair, "SIGUSR2", msg, sizeof msg);
        }
    }
    log_line(LOG_INFO, "stopping: finishing the requests in flight", "signal",
             sig == SIGTERM ? "SIGTERM" : "SIGINT", "#grace_ms", (int64_t)o.shutdown_grace_ms,
             NULL);
    bool abandoned = false;
    unsigned left = http_shutdown(hs, o.shutdown_grace_ms, &abandoned);
    if (left)
        log_line(LOG_WARN, "requests still running when the grace period ended",
                 "#requests", (int64_t)left, NULL);
    if (abandoned) {
        /* A worker still computes: the grace is a bound, so the process ends here, its
         * threads with it (nothing freed under them). */
        log_line(LOG_INFO, "stopped", "abandoned", "a computation outlived the grace", NULL);
        _exit(0);
    }
    /* no request runs now: nothing posts an event any more */
    events_stop(srv.ev, o.event_drain_ms);
    kubesrc_stop(ks);
    dirsrc_stop(ds);
    decider_free(srv.d);
    fair_free(srv.fair);
    store_free(srv.st);
    free(o.objects);
    free(o.client_names);
    log_line(LOG_INFO, "stopped", NULL);
    return 0;
}
