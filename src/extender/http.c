/* http.c: the HTTP server of dra-extender (src/extender/http.h), on libmicrohttpd. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

#include "clock.h"
#include "http.h"
#include "json.h"
#include "log.h"
#include "metrics.h"

static const double latency_buckets[] = {0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05,
                                         0.1,    0.25,  0.5,   1,     2.5,  5,     10};
static const metric_family m_requests = {
    "dra_extender_http_requests_total",
    "HTTP requests answered, by route (verb) and status code (\"closed\": the connection was "
    "closed without an answer).",
    METRIC_COUNTER, NULL, 0};
static const metric_family m_duration = {
    "dra_extender_http_request_duration_seconds",
    "Time from a request's headers to its answer, by route (verb) and status code.",
    METRIC_HISTOGRAM, latency_buckets, sizeof latency_buckets / sizeof *latency_buckets};
static const metric_family m_connections = {
    "dra_extender_http_connections",
    "Client connections open (at most --max-connections; more are closed as they come).",
    METRIC_GAUGE, NULL, 0};
static const metric_family m_inflight = {
    "dra_extender_http_requests_in_flight",
    "Requests received and not yet answered (queued or computing).", METRIC_GAUGE, NULL, 0};
static const metric_family m_queue_wait = {
    "dra_extender_http_queue_wait_seconds",
    "Time a compute request waited for a worker.", METRIC_HISTOGRAM, latency_buckets,
    sizeof latency_buckets / sizeof *latency_buckets};
static const metric_family m_rejected = {
    "dra_extender_http_rejected_total",
    "Requests refused before their handler: overloaded (queue full or waited too long), "
    "body_too_large, too_slow (headers or body not received in time), shutting_down, "
    "bad_framing (two Content-Length headers), unauthenticated (no valid client certificate, "
    "with --tls-client-ca), forbidden (a client name not among --tls-client-name); and connections closed at once because "
    "--max-connections were open (connections), or --max-connections-per-address from its "
    "address (address).",
    METRIC_COUNTER, NULL, 0};

typedef enum { J_HEADERS, J_QUEUED, J_DONE } job_state;

/* A listening socket: the main one, or the probes' (--probe-listen), each with its own
 * libmicrohttpd daemon and connection limit. */
typedef struct listener {
    struct http_server *s;
    struct MHD_Daemon *d;
    bool probe;                  /* health and metrics only */
    bool webhook;                /* the admission webhook's (--webhook-listen): /validate and
                                    the health checks only, its own certificate, no client
                                    certificate asked, no per-address limit */
    const char *cert, *key, *trust; /* its TLS (PEM text), or NULL: plain HTTP; trust: the CA
                                    that client certificates are asked for */
    unsigned max_connections;
    unsigned conns, reserved;    /* under s->clock: open, and admitted but not started */
} listener;

/* Where a connection is, for its deadlines (the guard thread): waiting for a request line
 * (since it opened or its last answer: --idle-timeout), reading headers (since the request
 * line: --header-timeout), reading a body (since the headers: --request-timeout), or with its
 * handler or a worker (no deadline here: --budget and --queue-wait bound it). */
typedef enum { C_IDLE, C_HEAD, C_BODY, C_BUSY } conn_phase;

typedef struct conn_rec {
    struct conn_rec *prev, *next;
    listener *l;
    int fd;
    conn_phase phase;
    double since;
    bool cut;                    /* shut down by the guard, libmicrohttpd closing it */
    uint8_t alen;                /* the peer's address (4 or 16 bytes; 0: unknown) */
    unsigned char addr[16];
} conn_rec;

/* The open connections of one peer address (a small table scanned in full: at most
 * max_connections entries hold a count). */
typedef struct addr_count {
    uint8_t alen;
    unsigned char addr[16];
    unsigned n;
} addr_count;

typedef struct job {
    struct http_server *s;
    struct MHD_Connection *conn;
    job_state state;
    const char *route;
    bool worker, too_big, counted;
    bool loopback;               /* the peer's address is a loopback address */
    char *method, *path, *content_type;
    char *body;
    size_t len, cap;
    char **args;                 /* key, value pairs */
    size_t nargs, cap_args;
    double start, queued_at;
    int reject;                  /* a status to answer without the handler */
    const char *reject_msg;
    char auth_msg[256];          /* why the client certificate was refused */
    bool close;                  /* answer with Connection: close (a request not to trust) */
    http_resp resp;
    int sent;                    /* the status sent, 0: none */
} job;

struct http_server {
    http_config cfg;
    http_handlers h;
    char *cert, *key, *ca;
    pthread_t *workers;
    unsigned nworkers;
    pthread_mutex_t lock;
    pthread_cond_t cond, idle;
    pthread_cond_t rcond;        /* the reaper's (CLOCK_MONOTONIC): a job queued, or stop */
    pthread_t reaper;            /* answers 503 to a job the moment it has waited too long */
    bool have_reaper, stop_reaper;
    job **ring;                  /* admitted jobs not yet taken by a worker */
    unsigned cap, head, count;   /* cap: workers + queue */
    unsigned busy;               /* jobs a worker has taken and not finished */
    bool stop_workers, closing;
    unsigned inflight;           /* jobs between their headers and their completion */
    /* Connections, counted here and not by libmicrohttpd, which divides its limit among its
     * threads (with 2 threads and a limit of 2, each took one, and a third connection waited
     * in the listen queue, to be served later). */
    pthread_mutex_t clock;
    listener main, probe;        /* probe.d NULL: no probe port */
    listener hook;               /* the webhook port (hook.d NULL: none) */
    char *hook_cert, *hook_key;
    conn_rec *recs;              /* every connection started, under clock */
    addr_count *addrs;           /* per peer address, under clock */
    size_t naddrs;
    pthread_cond_t gcond;        /* the guard's (CLOCK_MONOTONIC): stop */
    pthread_t guard;             /* closes connections past their deadlines */
    bool have_guard, stop_guard;
};

/* On libmicrohttpd's threads, which accept and then start each connection in one call: the
 * listener whose on_accept admitted a connection that this thread has not started yet, and
 * its peer's address. A connection that libmicrohttpd drops in between (out of memory) is
 * found by the thread's next on_accept, so that its reservation does not leak. */
static _Thread_local struct {
    listener *l;
    uint8_t alen;
    unsigned char addr[16];
} admitting;

/* The bytes of a peer's address (an IPv4 address mapped into IPv6 as IPv4); 0 if unknown. */
static uint8_t addr_bytes(const struct sockaddr *sa, unsigned char out[16])
{
    if (sa && sa->sa_family == AF_INET) {
        memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return 4;
    }
    if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a)) {
            memcpy(out, a->s6_addr + 12, 4);
            return 4;
        }
        memcpy(out, a->s6_addr, 16);
        return 16;
    }
    return 0;
}

/* Under clock: the count of an address, created at 0 (NULL: no room, or no address). */
static addr_count *addr_find(http_server *s, uint8_t alen, const unsigned char *addr,
                             bool create)
{
    if (!alen)
        return NULL;
    addr_count *free_slot = NULL;
    for (size_t i = 0; i < s->naddrs; i++) {
        addr_count *c = &s->addrs[i];
        if (c->n && c->alen == alen && memcmp(c->addr, addr, alen) == 0)
            return c;
        if (!c->n && !free_slot)
            free_slot = c;
    }
    if (!create || !free_slot)
        return NULL;
    free_slot->alen = alen;
    memcpy(free_slot->addr, addr, alen);
    return free_slot;
}

static void addr_release(http_server *s, uint8_t alen, const unsigned char *addr)
{
    addr_count *c = addr_find(s, alen, addr, false);
    if (c)
        c->n--;
}


const char *http_arg(const http_req *r, const char *key)
{
    for (size_t i = 0; i < r->nargs; i++)
        if (strcmp(r->args[2 * i], key) == 0)
            return r->args[2 * i + 1];
    return NULL;
}

void http_error(http_resp *resp, int status, const char *message)
{
    jbuf b;
    jb_init(&b);
    jb_puts(&b, "{\"error\":");
    jb_cstr(&b, message);
    jb_puts(&b, "}\n");
    free(resp->body);
    resp->status = status;
    resp->content_type = "application/json";
    resp->body = jb_take(&b, &resp->len);
}

static void label_of(char *out, size_t cap, const char *verb, const char *code)
{
    jbuf b;
    jb_init(&b);
    jb_puts(&b, "verb=\"");
    metrics_label(&b, verb);
    jb_putc(&b, '"');
    if (code) {
        jb_puts(&b, ",code=\"");
        metrics_label(&b, code);
        jb_putc(&b, '"');
    }
    char *t = jb_take(&b, NULL);
    snprintf(out, cap, "%s", t ? t : "");
    free(t);
}

/* A new connection: admitted while fewer than the listener's max_connections are open (or
 * admitted) and, on the main port, fewer than max_per_address from its peer's address; else
 * closed at once, before anything is read. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)addrlen;
    listener *l = cls;
    http_server *s = l->s;
    unsigned char ab[16];
    uint8_t alen = addr_bytes(addr, ab);
    pthread_mutex_lock(&s->clock);
    if (admitting.l) {
        admitting.l->reserved--;
        if (!admitting.l->probe && !admitting.l->webhook)
            addr_release(s, admitting.alen, admitting.addr);
        admitting.l = NULL;
    }
    const char *why = NULL;
    addr_count *c = NULL;
    if (l->conns + l->reserved >= l->max_connections)
        why = "reason=\"connections\"";
    else if (!l->probe && !l->webhook && alen) {
        c = addr_find(s, alen, ab, true);
        if (c && c->n >= s->cfg.max_per_address)
            why = "reason=\"address\"";
    }
    if (!why) {
        l->reserved++;
        if (c)
            c->n++;
        admitting.l = l;
        admitting.alen = c ? alen : 0;
        memcpy(admitting.addr, ab, sizeof ab);
    }
    pthread_mutex_unlock(&s->clock);
    if (why)
        metrics_add(&m_rejected, why, 1);
    return why ? MHD_NO : MHD_YES;
}

/* A connection that could not be given a record (out of memory): counted, no deadlines. */
static conn_rec untracked;

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    listener *l = cls;
    http_server *s = l->s;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        conn_rec *r = calloc(1, sizeof *r);
        pthread_mutex_lock(&s->clock);
        uint8_t alen = 0;
        unsigned char ab[16];
        if (admitting.l == l) {
            l->reserved--;
            alen = admitting.alen;
            memcpy(ab, admitting.addr, sizeof ab);
            admitting.l = NULL;
        }
        l->conns++;
        if (r) {
            r->l = l;
            r->fd = ci ? (int)ci->connect_fd : -1;
            r->phase = C_IDLE;
            r->since = ext_now();
            r->alen = alen;
            memcpy(r->addr, ab, sizeof ab);
            r->next = s->recs;
            if (s->recs)
                s->recs->prev = r;
            s->recs = r;
            *socket_context = r;
        } else {
            if (!l->probe && !l->webhook)
                addr_release(s, alen, ab);
            *socket_context = &untracked;
        }
    } else if (*socket_context) {
        conn_rec *r = *socket_context;
        pthread_mutex_lock(&s->clock);
        l->conns--;
        if (r != &untracked) {
            if (!l->probe && !l->webhook)
                addr_release(s, r->alen, r->addr);
            if (r->prev)
                r->prev->next = r->next;
            else
                s->recs = r->next;
            if (r->next)
                r->next->prev = r->prev;
            free(r);
        }
        *socket_context = NULL;
    } else {
        return;
    }
    metrics_set(&m_connections, NULL, s->main.conns + s->probe.conns + s->hook.conns);
    pthread_mutex_unlock(&s->clock);
}

/* The connection's record moves to a phase (its deadline counted from now). */
static void conn_phase_set(http_server *s, struct MHD_Connection *conn, conn_phase ph)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    conn_rec *r = ci ? ci->socket_context : NULL;
    if (!r || r == &untracked)
        return;
    pthread_mutex_lock(&s->clock);
    if (r->phase != ph) {
        r->phase = ph;
        r->since = ext_now();
    }
    pthread_mutex_unlock(&s->clock);
}

/* libmicrohttpd has read a request line: the headers' deadline starts. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)uri;
    listener *l = cls;
    conn_phase_set(l->s, conn, C_HEAD);
    return NULL;
}

/* The guard: a connection past its phase's deadline is shut down (shutdown(2), not close:
 * libmicrohttpd owns the descriptor, sees the end and closes the connection itself). Checked
 * every 100 ms. Slow headers once held every connection, probes included: libmicrohttpd's
 * own timeout counts from the last byte, so a byte a second kept a connection forever. */
static void *guard_main(void *arg)
{
    http_server *s = arg;
    pthread_mutex_lock(&s->clock);
    while (!s->stop_guard) {
        double now = ext_now();
        for (conn_rec *r = s->recs; r; r = r->next) {
            double limit;
            const char *what;
            switch (r->phase) {
            case C_IDLE:
                limit = s->cfg.idle_timeout_s;
                what = NULL;
                break;
            case C_HEAD:
                limit = s->cfg.header_timeout_ms / 1e3;
                what = "request headers not received in time: connection closed";
                break;
            case C_BODY:
                limit = s->cfg.request_timeout_ms / 1e3;
                what = "request body not received in time: connection closed";
                break;
            default:
                continue;
            }
            if (r->cut || r->fd < 0 || now - r->since < limit)
                continue;
            r->cut = true;
            shutdown(r->fd, SHUT_RDWR);
            if (what) {
                metrics_add(&m_rejected, "reason=\"too_slow\"", 1);
                log_line(LOG_WARN, what, "#seconds", (int64_t)(now - r->since), NULL);
            }
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += 100000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->gcond, &s->clock, &ts);
    }
    pthread_mutex_unlock(&s->clock);
    return NULL;
}

/* Queue resp (taking its body) on the connection. */
static enum MHD_Result send_resp(job *j, http_resp *resp)
{
    if (!resp->body && resp->len == 0)
        resp->body = NULL;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(resp->len, resp->body ? resp->body : (void *)"",
                                        resp->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(resp->body);
        resp->body = NULL;
        return MHD_NO;
    }
    resp->body = NULL;
    if (resp->content_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
    if (j->close)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ok = MHD_queue_response(j->conn, (unsigned)resp->status, r);
    MHD_destroy_response(r);
    if (ok == MHD_YES)
        j->sent = resp->status;
    return ok;
}

static enum MHD_Result send_error(job *j, int status, const char *msg, const char *why)
{
    if (why) {
        char labels[128];
        snprintf(labels, sizeof labels, "reason=\"%s\"", why);
        metrics_add(&m_rejected, labels, 1);
    }
    http_resp resp = {0, NULL, NULL, 0};
    http_error(&resp, status, msg);
    return send_resp(j, &resp);
}

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                               size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    job *j = cls;
    /* "%00" decodes to a NUL: the argument would be read cut short ("trainer-0%00x" as
     * "trainer-0"), so the request is refused instead. */
    if (strlen(key) != key_size || (value && strlen(value) != value_size)) {
        j->reject = 400;
        j->reject_msg = "a query argument contains a NUL byte (%00)";
        return MHD_NO;
    }
    if (j->nargs == j->cap_args) {
        size_t cap = j->cap_args ? j->cap_args * 2 : 4;
        if (cap > 256)
            return MHD_NO; /* more arguments are ignored */
        char **a = realloc(j->args, 2 * cap * sizeof *a);
        if (!a)
            return MHD_NO;
        j->args = a;
        j->cap_args = cap;
    }
    char *k = strdup(key), *v = strdup(value ? value : "");
    if (!k || !v) {
        free(k);
        free(v);
        return MHD_NO;
    }
    j->args[2 * j->nargs] = k;
    j->args[2 * j->nargs + 1] = v;
    j->nargs++;
    return MHD_YES;
}

static void fill_req(const job *j, http_req *r)
{
    r->method = j->method;
    r->path = j->path;
    r->body = j->body ? j->body : "";
    r->len = j->len;
    r->content_type = j->content_type;
    r->start = j->start;
    r->args = (const char *const *)j->args;
    r->nargs = j->nargs;
    r->loopback = j->loopback;
}

/* 127.0.0.0/8, ::1, and 127.0.0.0/8 mapped into IPv6. */
static bool is_loopback(const struct sockaddr *sa)
{
    if (!sa)
        return false;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(a))
            return true;
        return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
    }
    return false;
}

static void job_free(job *j)
{
    free(j->method);
    free(j->path);
    free(j->content_type);
    free(j->body);
    for (size_t i = 0; i < 2 * j->nargs; i++)
        free(j->args[i]);
    free(j->args);
    free(j->resp.body);
    free(j);
}

static enum MHD_Result count_length(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    (void)kind;
    (void)value;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
        ++*(unsigned *)cls;
    return MHD_YES;
}

/* The first call for a request: its headers. */
/* With --tls-client-ca: 0 when the peer sent a certificate that the CA signed, valid now and
 * for client authentication (its extended key usage, when it has one) and, with
 * --tls-client-name, with one of those common names; else 401 (no valid certificate) or 403
 * (a name not allowed) with the reason in msg. */
static int client_check(const http_server *s, struct MHD_Connection *conn, char *msg,
                        size_t cap)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    gnutls_session_t ts = ci ? (gnutls_session_t)ci->tls_session : NULL;
    unsigned ncerts = 0;
    const gnutls_datum_t *certs = ts ? gnutls_certificate_get_peers(ts, &ncerts) : NULL;
    if (!certs || !ncerts) {
        snprintf(msg, cap, "unauthorized: a client certificate is required");
        return 401;
    }
    gnutls_typed_vdata_st purpose = {GNUTLS_DT_KEY_PURPOSE_OID,
                                     (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT, 0};
    unsigned status = 0;
    int rc = gnutls_certificate_verify_peers(ts, &purpose, 1, &status);
    if (rc < 0 || status) {
        gnutls_datum_t out = {NULL, 0};
        if (rc >= 0 && gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509,
                                                                    &out, 0) < 0)
            out.data = NULL;
        snprintf(msg, cap, "unauthorized: the client certificate is not accepted: %s",
                 rc < 0 ? gnutls_strerror(rc) : out.data ? (const char *)out.data : "invalid");
        gnutls_free(out.data);
        size_t n = strlen(msg); /* gnutls ends its sentences with a space */
        while (n && msg[n - 1] == ' ')
            msg[--n] = '\0';
        return 401;
    }
    if (!s->cfg.nclient_names)
        return 0;
    char cn[128] = "";
    size_t len = sizeof cn;
    gnutls_x509_crt_t crt;
    if (gnutls_x509_crt_init(&crt) < 0)
        return snprintf(msg, cap, "out of memory"), 503;
    if (gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER) < 0 ||
        gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &len) < 0)
        cn[0] = '\0';
    gnutls_x509_crt_deinit(crt);
    for (size_t i = 0; i < s->cfg.nclient_names; i++)
        if (cn[0] && strcmp(cn, s->cfg.client_names[i]) == 0)
            return 0;
    snprintf(msg, cap, "forbidden: the client certificate's common name '%s' is not among "
             "--tls-client-name", cn);
    return 403;
}

static job *job_new(listener *l, struct MHD_Connection *conn, const char *url,
                    const char *method)
{
    http_server *s = l->s;
    conn_phase_set(s, conn, C_BODY);
    job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->s = s;
    j->conn = conn;
    j->start = ext_now();
    j->method = strdup(method);
    j->path = strdup(url);
    const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_TYPE);
    j->content_type = ct ? strdup(ct) : NULL;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    j->loopback = ci && is_loopback(ci->client_addr);
    if (!j->method || !j->path || (ct && !j->content_type)) {
        job_free(j);
        return NULL;
    }
    MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, add_arg, j);
    j->route = s->h.route(s->h.ctx, method, url, &j->worker);
    if (!j->route) {
        j->route = "other";
        j->reject = 404;
        j->reject_msg = "no such endpoint";
    } else if (l->probe && strcmp(j->route, "healthz") != 0 && strcmp(j->route, "readyz") != 0 &&
               strcmp(j->route, "metrics") != 0) {
        j->reject = 404;
        j->reject_msg = "the probe port answers /healthz, /readyz and /metrics only";
    } else if (l->webhook && strcmp(j->route, "validate") != 0 &&
               strcmp(j->route, "healthz") != 0 && strcmp(j->route, "readyz") != 0) {
        j->reject = 404;
        j->reject_msg = "the webhook port answers /validate, /healthz and /readyz only";
    }
    /* Only the probes go without a client certificate, when one is asked: a request refused
     * here is answered at once, before its body, and its connection closed. */
    if (l->trust && strcmp(j->route, "healthz") != 0 && strcmp(j->route, "readyz") != 0) {
        int st = client_check(s, conn, j->auth_msg, sizeof j->auth_msg);
        if (st) {
            j->reject = st;
            j->reject_msg = j->auth_msg;
            j->close = true;
        }
    }
    /* Two Content-Length headers (even equal ones: RFC 9112 lets a server refuse them) are how
     * a request is smuggled past a proxy that reads the other one: refused, and the
     * connection closed, since where this request's body ends is not known. */
    unsigned ncl = 0;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_length, &ncl);
    if (ncl > 1) {
        j->reject = 400;
        j->reject_msg = "more than one Content-Length header";
        j->close = true;
    }
    pthread_mutex_lock(&s->lock);
    s->inflight++;
    j->counted = true;
    metrics_set(&m_inflight, NULL, s->inflight);
    pthread_mutex_unlock(&s->lock);
    return j;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *conn, const char *url,
                                 const char *method, const char *version,
                                 const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    listener *l = cls;
    http_server *s = l->s;
    job *j = *con_cls;
    if (!j) {
        j = job_new(l, conn, url, method);
        if (!j)
            return MHD_NO;
        *con_cls = j;
        if (j->close)
            return send_error(j, j->reject, j->reject_msg,
                              j->reject == 401   ? "unauthenticated"
                              : j->reject == 403 ? "forbidden"
                                                 : "bad_framing");
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (errno || *end || n > s->cfg.max_body) {
                char msg[160];
                snprintf(msg, sizeof msg, "request body too large: at most %zu bytes",
                         s->cfg.max_body);
                return send_error(j, 413, msg, "body_too_large");
            }
        }
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (ext_now() - j->start > s->cfg.request_timeout_ms / 1e3) {
            metrics_add(&m_rejected, "reason=\"too_slow\"", 1);
            log_line(LOG_WARN, "request body not received in time: connection closed", "route",
                     j->route, NULL);
            return MHD_NO;
        }
        if (j->too_big)
            return MHD_YES;
        if (j->len + n > s->cfg.max_body) {
            j->too_big = true;
            free(j->body);
            j->body = NULL;
            j->len = j->cap = 0;
            return MHD_YES;
        }
        if (j->len + n + 1 > j->cap) {
            size_t cap = j->cap ? j->cap : 4096;
            while (cap < j->len + n + 1)
                cap *= 2;
            char *b = realloc(j->body, cap);
            if (!b)
                return MHD_NO;
            j->body = b;
            j->cap = cap;
        }
        memcpy(j->body + j->len, upload, n);
        j->len += n;
        j->body[j->len] = '\0';
        return MHD_YES;
    }
    /* The whole request is in, or a worker is done with it. */
    conn_phase_set(s, conn, C_BUSY);
    if (j->state == J_DONE)
        return send_resp(j, &j->resp);
    if (j->state == J_QUEUED)
        return MHD_YES;
    if (j->too_big) {
        char msg[160];
        snprintf(msg, sizeof msg, "request body too large: at most %zu bytes", s->cfg.max_body);
        return send_error(j, 413, msg, "body_too_large");
    }
    if (j->reject)
        return send_error(j, j->reject, j->reject_msg, NULL);
    if (!j->worker) {
        http_req r;
        fill_req(j, &r);
        s->h.handle(s->h.ctx, j->route, &r, &j->resp);
        return send_resp(j, &j->resp);
    }
    /* Admitted: at most workers + queue requests between here and their answer. A job in
     * the ring that no worker has taken yet counts as computing while a worker is free, so
     * that the answer does not depend on how soon a worker thread wakes up. */
    pthread_mutex_lock(&s->lock);
    if (s->closing || s->count + s->busy == s->cap) {
        bool closing = s->closing;
        unsigned free_workers = s->busy < s->cfg.workers ? s->cfg.workers - s->busy : 0;
        unsigned queued = s->count > free_workers ? s->count - free_workers : 0;
        pthread_mutex_unlock(&s->lock);
        char msg[160];
        if (closing)
            snprintf(msg, sizeof msg, "shutting down");
        else
            snprintf(msg, sizeof msg, "overloaded: %u requests already wait for a worker",
                     queued);
        return send_error(j, 503, msg, closing ? "shutting_down" : "overloaded");
    }
    j->state = J_QUEUED;
    j->queued_at = ext_now();
    MHD_suspend_connection(conn);
    s->ring[(s->head + s->count) % s->cap] = j;
    s->count++;
    pthread_cond_signal(&s->cond);
    pthread_cond_signal(&s->rcond);
    pthread_mutex_unlock(&s->lock);
    return MHD_YES;
}

/* Under s->lock: take the job at the head of the ring and answer it status msg without the
 * handler (its connection resumed to send it). */
static void answer_head(http_server *s, int status, const char *msg, const char *why)
{
    job *j = s->ring[s->head];
    s->head = (s->head + 1) % s->cap;
    s->count--;
    char labels[96];
    label_of(labels, sizeof labels, j->route, NULL);
    metrics_observe(&m_queue_wait, labels, ext_now() - j->queued_at);
    char reason[64];
    snprintf(reason, sizeof reason, "reason=\"%s\"", why);
    metrics_add(&m_rejected, reason, 1);
    http_error(&j->resp, status, msg);
    j->state = J_DONE;
    MHD_resume_connection(j->conn);
}

/* The reaper: a job that has waited --queue-wait for a worker is answered 503 at that moment,
 * not when a worker frees up to find it late (a request behind two slow ones got its 503
 * after 9.8 s). The ring is in arrival order, so the head waited longest. A job counts as
 * waiting only while every worker is busy: with one free, a worker takes it now. */
static void *reaper_main(void *arg)
{
    http_server *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->stop_reaper) {
        double limit = s->cfg.queue_wait_ms / 1e3, next = 0;
        while (s->count && s->busy >= s->cfg.workers) {
            job *j = s->ring[s->head];
            double now = ext_now();
            if (now - j->queued_at < limit) {
                next = j->queued_at + limit;
                break;
            }
            char msg[160];
            snprintf(msg, sizeof msg, "overloaded: waited %.0f ms for a worker (limit %u ms)",
                     (now - j->queued_at) * 1e3, s->cfg.queue_wait_ms);
            answer_head(s, 503, msg, "overloaded");
        }
        if (next > 0) {
            struct timespec ts;
            ts.tv_sec = (time_t)next;
            ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
            if (ts.tv_nsec >= 1000000000L)
                ts.tv_nsec = 999999999L;
            pthread_cond_timedwait(&s->rcond, &s->lock, &ts);
        } else if (s->count) {
            /* A free worker will take it; look again soon in case they all stay busy. */
            struct timespec ts;
            double at = ext_now() + limit / 4 + 0.001;
            ts.tv_sec = (time_t)at;
            ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
            pthread_cond_timedwait(&s->rcond, &s->lock, &ts);
        } else {
            pthread_cond_wait(&s->rcond, &s->lock);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void *worker_main(void *arg)
{
    http_server *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        while (!s->count && !s->stop_workers)
            pthread_cond_wait(&s->cond, &s->lock);
        if (!s->count) {
            pthread_mutex_unlock(&s->lock);
            return NULL;
        }
        job *j = s->ring[s->head];
        s->head = (s->head + 1) % s->cap;
        s->count--;
        s->busy++;
        bool stopping = s->stop_workers;
        pthread_mutex_unlock(&s->lock);
        double waited = ext_now() - j->queued_at;
        char labels[96];
        label_of(labels, sizeof labels, j->route, NULL);
        metrics_observe(&m_queue_wait, labels, waited);
        if (stopping) {
            metrics_add(&m_rejected, "reason=\"shutting_down\"", 1);
            http_error(&j->resp, 503, "shutting down");
        } else if (waited * 1e3 > s->cfg.queue_wait_ms) {
            char msg[160];
            snprintf(msg, sizeof msg, "overloaded: waited %.0f ms for a worker (limit %u ms)",
                     waited * 1e3, s->cfg.queue_wait_ms);
            metrics_add(&m_rejected, "reason=\"overloaded\"", 1);
            http_error(&j->resp, 503, msg);
        } else {
            http_req r;
            fill_req(j, &r);
            s->h.handle(s->h.ctx, j->route, &r, &j->resp);
            if (!j->resp.status)
                http_error(&j->resp, 500, "internal error: no answer");
        }
        pthread_mutex_lock(&s->lock);
        j->state = J_DONE;
        s->busy--;
        pthread_mutex_unlock(&s->lock);
        MHD_resume_connection(j->conn);
    }
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    listener *l = cls;
    http_server *s = l->s;
    conn_phase_set(s, conn, C_IDLE);
    job *j = *con_cls;
    if (!j)
        return;
    *con_cls = NULL;
    char code[16], labels[128];
    if (j->sent)
        snprintf(code, sizeof code, "%d", j->sent);
    else
        snprintf(code, sizeof code, "closed");
    label_of(labels, sizeof labels, j->route, code);
    metrics_add(&m_requests, labels, 1);
    metrics_observe(&m_duration, labels, ext_now() - j->start);
    if (j->counted) {
        pthread_mutex_lock(&s->lock);
        s->inflight--;
        metrics_set(&m_inflight, NULL, s->inflight);
        if (!s->inflight)
            pthread_cond_broadcast(&s->idle);
        pthread_mutex_unlock(&s->lock);
    }
    job_free(j);
}

static char *read_file(const char *path, char *err, size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return NULL;
    }
    jbuf b;
    jb_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < ((size_t)1 << 20))
        jb_put(&b, chunk, n);
    bool bad = ferror(f);
    fclose(f);
    char *t = jb_take(&b, NULL);
    if (bad || !t) {
        snprintf(err, errcap, "%s: cannot read", path);
        free(t);
        return NULL;
    }
    return t;
}

static void server_free(http_server *s)
{
    free(s->cert);
    free(s->key);
    free(s->ca);
    free(s->hook_cert);
    free(s->hook_key);
    free(s->ring);
    free(s->workers);
    free(s->addrs);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->clock);
    pthread_cond_destroy(&s->cond);
    pthread_cond_destroy(&s->idle);
    pthread_cond_destroy(&s->rcond);
    pthread_cond_destroy(&s->gcond);
    free(s);
}

static void stop_guard(http_server *s)
{
    if (!s->have_guard)
        return;
    pthread_mutex_lock(&s->clock);
    s->stop_guard = true;
    pthread_cond_signal(&s->gcond);
    pthread_mutex_unlock(&s->clock);
    pthread_join(s->guard, NULL);
    s->have_guard = false;
}

static void stop_reaper(http_server *s)
{
    if (!s->have_reaper)
        return;
    pthread_mutex_lock(&s->lock);
    s->stop_reaper = true;
    pthread_cond_signal(&s->rcond);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->reaper, NULL);
    s->have_reaper = false;
}

static void stop_workers(http_server *s)
{
    pthread_mutex_lock(&s->lock);
    s->stop_workers = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    for (unsigned i = 0; i < s->nworkers; i++)
        pthread_join(s->workers[i], NULL);
    s->nworkers = 0;
}

/* libmicrohttpd's own messages (a connection closed while reading, a malformed request) as
 * debug lines of the JSON log, not raw text on stderr among them. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        msg[--n] = '\0';
    log_line(LOG_DEBUG, "libmicrohttpd", "message", msg, NULL);
}

/* Start listener l's daemon on address:port with its threads; false with a message. */
static bool listen_on(listener *l, const char *address, unsigned port, unsigned threads,
                      char *err, size_t errcap)
{
    http_server *s = l->s;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    const char *addr = address ? address : "0.0.0.0";
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
    } else if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, errcap, "the listen address '%s' is not an IPv4 or IPv6 address", addr);
        return false;
    }
    if (l->cert)
        flags |= MHD_USE_TLS;
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)l->cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)l->key},
        {l->trust ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, (void *)l->trust}, /* asks for one */
        {MHD_OPTION_END, 0, NULL},
    };
    /* libmicrohttpd's own limit is divided among its threads: give each room for all, so
     * that on_accept's count is the one that binds. */
    l->d = MHD_start_daemon(
        flags, (uint16_t)port, on_accept, l, on_access, l, MHD_OPTION_EXTERNAL_LOGGER,
        on_mhd_log, NULL, MHD_OPTION_SOCK_ADDR, &ss, MHD_OPTION_THREAD_POOL_SIZE,
        threads > 1 ? threads : 0, MHD_OPTION_CONNECTION_LIMIT,
        l->max_connections * threads, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)s->cfg.idle_timeout_s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, l,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, l, MHD_OPTION_URI_LOG_CALLBACK, on_uri, l,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)128, MHD_OPTION_ARRAY,
        l->cert ? tls : tls + 3, MHD_OPTION_END);
    if (!l->d)
        snprintf(err, errcap, "cannot listen on %s port %u (in use, or not permitted)", addr,
                 port);
    return l->d != NULL;
}

http_server *http_start(const http_config *cfg, const http_handlers *h, char *err, size_t errcap)
{
    http_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->h = *h;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!s->cfg.threads)
        s->cfg.threads = 2;
    if (!s->cfg.workers)
        s->cfg.workers = cpus > 0 ? (unsigned)cpus : 2;
    if (!s->cfg.queue)
        s->cfg.queue = 4 * s->cfg.workers;
    if (!s->cfg.queue_wait_ms)
        s->cfg.queue_wait_ms = 1000;
    if (!s->cfg.max_connections)
        s->cfg.max_connections = 512;
    if (!s->cfg.idle_timeout_s)
        s->cfg.idle_timeout_s = 60;
    if (!s->cfg.request_timeout_ms)
        s->cfg.request_timeout_ms = 10000;
    if (!s->cfg.header_timeout_ms)
        s->cfg.header_timeout_ms = 10000;
    if (!s->cfg.max_per_address)
        s->cfg.max_per_address = 64;
    if (!s->cfg.probe_max_connections)
        s->cfg.probe_max_connections = 16;
    s->main = (listener){.s = s, .max_connections = s->cfg.max_connections};
    s->probe = (listener){.s = s, .probe = true, .max_connections = s->cfg.probe_max_connections};
    if (!s->cfg.webhook_max_connections)
        s->cfg.webhook_max_connections = 64;
    s->hook = (listener){.s = s, .webhook = true, .max_connections = s->cfg.webhook_max_connections};
    if (!s->cfg.max_body)
        s->cfg.max_body = (size_t)64 << 20;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->clock, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_cond_init(&s->idle, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->rcond, &ca);
    pthread_cond_init(&s->gcond, &ca);
    pthread_condattr_destroy(&ca);
    s->cap = s->cfg.workers + s->cfg.queue;
    s->ring = calloc(s->cap, sizeof *s->ring);
    s->workers = calloc(s->cfg.workers, sizeof *s->workers);
    /* room for every connection's address, and one admitted per thread not started yet */
    s->naddrs = (size_t)s->cfg.max_connections + s->cfg.threads + 1;
    s->addrs = calloc(s->naddrs, sizeof *s->addrs);
    if (!s->ring || !s->workers || !s->addrs) {
        snprintf(err, errcap, "out of memory");
        server_free(s);
        return NULL;
    }

    if ((cfg->tls_cert != NULL) != (cfg->tls_key != NULL)) {
        snprintf(err, errcap, "TLS needs both a certificate and a key file");
        server_free(s);
        return NULL;
    }
    if (cfg->tls_cert) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            snprintf(err, errcap, "this libmicrohttpd was built without TLS");
            server_free(s);
            return NULL;
        }
        s->cert = read_file(cfg->tls_cert, err, errcap);
        s->key = s->cert ? read_file(cfg->tls_key, err, errcap) : NULL;
        if (!s->key) {
            server_free(s);
            return NULL;
        }
    }
    if (cfg->tls_client_ca) {
        if (!cfg->tls_cert) {
            snprintf(err, errcap, "--tls-client-ca needs --tls-cert and --tls-key (HTTPS)");
            server_free(s);
            return NULL;
        }
        s->ca = read_file(cfg->tls_client_ca, err, errcap);
        gnutls_x509_crt_t *list = NULL;
        unsigned n = 0;
        gnutls_datum_t pem = {(unsigned char *)s->ca, s->ca ? (unsigned)strlen(s->ca) : 0};
        if (s->ca && gnutls_x509_crt_list_import2(&list, &n, &pem, GNUTLS_X509_FMT_PEM, 0) < 0)
            n = 0;
        for (unsigned i = 0; i < n; i++)
            gnutls_x509_crt_deinit(list[i]);
        gnutls_free(list);
        if (!n) {
            if (s->ca)
                snprintf(err, errcap, "%s: no PEM certificate in it", cfg->tls_client_ca);
            server_free(s);
            return NULL;
        }
    }
    if (cfg->webhook_address) {
        if (!cfg->webhook_cert || !cfg->webhook_key) {
            snprintf(err, errcap, "the webhook port needs --webhook-tls-cert and --webhook-tls-key "
                                  "(the API server calls webhooks over HTTPS only)");
            server_free(s);
            return NULL;
        }
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            snprintf(err, errcap, "this libmicrohttpd was built without TLS");
            server_free(s);
            return NULL;
        }
        s->hook_cert = read_file(cfg->webhook_cert, err, errcap);
        s->hook_key = s->hook_cert ? read_file(cfg->webhook_key, err, errcap) : NULL;
        if (!s->hook_key) {
            server_free(s);
            return NULL;
        }
        s->hook.cert = s->hook_cert;
        s->hook.key = s->hook_key;
    }
    s->main.cert = s->probe.cert = s->cert;
    s->main.key = s->probe.key = s->key;
    s->main.trust = s->probe.trust = s->ca;
    metrics_declare(&m_requests);
    metrics_declare(&m_duration);
    metrics_declare(&m_rejected);
    metrics_set(&m_inflight, NULL, 0);
    metrics_set(&m_connections, NULL, 0);
    for (unsigned i = 0; i < s->cfg.workers; i++) {
        if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0) {
            snprintf(err, errcap, "cannot start a worker thread");
            stop_workers(s);
            server_free(s);
            return NULL;
        }
        s->nworkers++;
    }
    bool threads = pthread_create(&s->reaper, NULL, reaper_main, s) == 0;
    s->have_reaper = threads;
    threads = threads && pthread_create(&s->guard, NULL, guard_main, s) == 0;
    s->have_guard = threads;
    if (!threads)
        snprintf(err, errcap, "cannot start a thread");
    if (!threads || !listen_on(&s->main, cfg->address, cfg->port, s->cfg.threads, err, errcap) ||
        (cfg->probe_address &&
         !listen_on(&s->probe, cfg->probe_address, cfg->probe_port, 1, err, errcap)) ||
        (cfg->webhook_address &&
         !listen_on(&s->hook, cfg->webhook_address, cfg->webhook_port, 1, err, errcap))) {
        if (s->main.d)
            MHD_stop_daemon(s->main.d);
        if (s->probe.d)
            MHD_stop_daemon(s->probe.d);
        stop_guard(s);
        stop_reaper(s);
        stop_workers(s);
        server_free(s);
        return NULL;
    }
    return s;
}

unsigned http_port(const http_server *s)
{
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(s->main.d, MHD_DAEMON_INFO_BIND_PORT);
    return i ? i->port : 0;
}

unsigned http_webhook_port(const http_server *s)
{
    if (!s->hook.d)
        return 0;
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(s->hook.d, MHD_DAEMON_INFO_BIND_PORT);
    return i ? i->port : 0;
}

unsigned http_probe_port(const http_server *s)
{
    if (!s->probe.d)
        return 0;
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(s->probe.d, MHD_DAEMON_INFO_BIND_PORT);
    return i ? i->port : 0;
}

/* An absolute CLOCK_REALTIME time ms from now (for pthread_cond_timedwait on idle). */
static struct timespec after_ms(unsigned ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

unsigned http_shutdown(http_server *s, unsigned wait_ms, bool *abandoned)
{
    /* No new connection from here on: libmicrohttpd stops accepting, and the socket stops
     * listening, so that a client is refused at once rather than left in the listen queue.
     * Not closed before MHD_stop_daemon: its threads may still be taking it out of their
     * epoll sets (libmicrohttpd's rule for quiesce; ThreadSanitizer caught the close). */
    MHD_socket fd = MHD_quiesce_daemon(s->main.d);
    MHD_socket pfd = s->probe.d ? MHD_quiesce_daemon(s->probe.d) : MHD_INVALID_SOCKET;
    MHD_socket hfd = s->hook.d ? MHD_quiesce_daemon(s->hook.d) : MHD_INVALID_SOCKET;
    if (fd != MHD_INVALID_SOCKET)
        shutdown(fd, SHUT_RD);
    if (pfd != MHD_INVALID_SOCKET)
        shutdown(pfd, SHUT_RD);
    if (hfd != MHD_INVALID_SOCKET)
        shutdown(hfd, SHUT_RD);
    /* The grace is the whole bound: the last fifth of it (at most 500 ms) is kept for
     * answering what still waits for a worker and sending those answers. */
    unsigned tail = wait_ms / 5 < 500 ? wait_ms / 5 : 500;
    struct timespec until = after_ms(wait_ms - tail);
    pthread_mutex_lock(&s->lock);
    s->closing = true;
    while (s->inflight && pthread_cond_timedwait(&s->idle, &s->lock, &until) == 0)
        ;
    unsigned left = s->inflight;
    /* Whatever still waits for a worker is answered "shutting down" now, no worker takes
     * another job, and the computations running are cut short. */
    while (s->count)
        answer_head(s, 503, "shutting down", "shutting_down");
    s->stop_workers = true;
    pthread_cond_broadcast(&s->cond);
    if (s->busy && s->h.cancel) {
        pthread_mutex_unlock(&s->lock);
        s->h.cancel(s->h.ctx);
        pthread_mutex_lock(&s->lock);
    }
    until = after_ms(tail);
    while (s->inflight && pthread_cond_timedwait(&s->idle, &s->lock, &until) == 0)
        ;
    bool busy = s->busy > 0;
    pthread_mutex_unlock(&s->lock);
    stop_reaper(s);
    if (busy) {
        /* A computation outlived the grace: its worker cannot be stopped from outside, and
         * libmicrohttpd cannot stop with its connection suspended. The caller ends the
         * process, which ends them both; nothing is freed here. */
        *abandoned = true;
        return left;
    }
    *abandoned = false;
    stop_workers(s);
    MHD_stop_daemon(s->main.d);
    if (s->probe.d)
        MHD_stop_daemon(s->probe.d);
    if (s->hook.d)
        MHD_stop_daemon(s->hook.d);
    stop_guard(s);
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
    if (pfd != MHD_INVALID_SOCKET)
        close(pfd);
    if (hfd != MHD_INVALID_SOCKET)
        close(hfd);
    server_free(s);
    return left;
}
