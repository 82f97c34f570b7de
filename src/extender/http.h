/*
 * http.h: the HTTP server of dra-extender (src/extender/http.c), on libmicrohttpd.
 *
 * libmicrohttpd's threads (a pool of them, epoll) read requests and never compute: a route
 * marked `worker` (filter, prioritize, explain) is handed to a bounded queue of compute workers
 * while its connection is suspended, and answered when a worker is done. So a request always
 * gets its answer fast: when the queue is full, or a request waited in it longer than allowed,
 * it is answered 503 with a JSON reason at once instead of waiting past the scheduler's
 * timeout. Cheap routes (health, metrics) run inline.
 *
 * Bad requests never reach a handler: a body over the cap is refused with 413 as soon as
 * Content-Length says so (before reading it; as soon as the cap is passed without one); a client
 * that takes longer than the request timeout to send its body is disconnected; idle connections
 * are closed; connections are capped. Every answer, handled or not, is counted in the metrics
 * dra_extender_http_requests_total{verb,code} and _duration_seconds{verb}.
 */
#ifndef EXT_HTTP_H
#define EXT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct http_config {
    const char *address;         /* IPv4 or IPv6 address to listen on (NULL: 0.0.0.0) */
    unsigned port;               /* 0: any free port (see http_port) */
    unsigned threads;            /* libmicrohttpd threads (0: 2) */
    unsigned workers;            /* compute workers (0: the number of CPUs) */
    unsigned queue;              /* compute requests waiting at most (0: 4 x workers) */
    unsigned queue_wait_ms;      /* a request that waited longer is answered 503 (0: 1000) */
    unsigned max_connections;    /* open connections at most (0: 512) */
    unsigned idle_timeout_s;     /* an idle connection is closed after (0: 60) */
    unsigned request_timeout_ms; /* receiving one request's body at most (0: 10000) */
    unsigned header_timeout_ms;  /* receiving its headers, from its request line (0: 10000) */
    unsigned max_per_address;    /* open connections from one peer address (0: 64) */
    const char *probe_address;   /* a second port for /healthz, /readyz, /metrics (NULL: none) */
    unsigned probe_port;
    unsigned probe_max_connections; /* its own connection limit (0: 16) */
    const char *webhook_address; /* a port for the admission webhook alone: /validate, /healthz,
                                    /readyz, over HTTPS with its own certificate, no client
                                    certificate asked (NULL: none) */
    unsigned webhook_port;
    const char *webhook_cert, *webhook_key; /* PEM files, both needed */
    unsigned webhook_max_connections; /* its connection limit (0: 64) */
    size_t max_body;             /* request body bytes at most (0: 64 MiB) */
    const char *tls_cert;        /* PEM files: both, or neither (plain HTTP) */
    const char *tls_key;
    const char *tls_client_ca;   /* PEM CA file: every request but /healthz and /readyz needs a
                                    client certificate it signed (NULL: none asked) */
    const char *const *client_names; /* and one of these common names (none: any) */
    size_t nclient_names;
} http_config;

/* A request, as a handler sees it. Strings live until the handler returns. */
typedef struct http_req {
    const char *method;
    const char *path;            /* without the query */
    const char *body;            /* NUL-terminated (not counted in len) */
    size_t len;
    const char *content_type;    /* or NULL */
    double start;                /* when its headers arrived (ext_now's clock) */
    const char *const *args;     /* query arguments: key, value, key, value, ... (decoded) */
    size_t nargs;                /* pairs */
    bool loopback;               /* the peer is on a loopback address (local-only routes) */
} http_req;

/* The answer a handler fills. body is malloc'd and taken over (may be NULL for none). */
typedef struct http_resp {
    int status;
    const char *content_type;    /* a static string */
    char *body;
    size_t len;
} http_resp;

typedef struct http_handlers {
    void *ctx;
    /* The route of (method, path): its metrics label ("filter", ...) and whether it runs on a
     * compute worker. NULL: no such route (404). */
    const char *(*route)(void *ctx, const char *method, const char *path, bool *worker);
    /* Answer a request of that route (called on a worker or inline). */
    void (*handle)(void *ctx, const char *route, const http_req *req, http_resp *resp);
    /* At shutdown, when the grace nears its end with computations still running: make them
     * end at once (they answer "shutting down"). NULL: they run on until the grace ends. */
    void (*cancel)(void *ctx);
} http_handlers;

typedef struct http_server http_server;

/** Start serving. On error returns NULL with a message in err. */
http_server *http_start(const http_config *cfg, const http_handlers *h, char *err, size_t errcap);
/** The port it listens on. */
unsigned http_port(const http_server *s);
/** The webhook port, or 0 when there is none. */
unsigned http_webhook_port(const http_server *s);
/** The probe port, or 0 when there is none. */
unsigned http_probe_port(const http_server *s);
/** Stop accepting connections (SIGTERM), finish what is in flight, and stop, all within
 *  @p wait_ms: requests still waiting for a worker when the grace nears its end are answered
 *  503 "shutting down", and the handlers' cancel is called. Returns how many requests were
 *  still running then (0: all finished). When a computation is still running at the end, nothing is stopped or
 *  freed and *abandoned is set: the caller must end the process at once (_exit). */
unsigned http_shutdown(http_server *s, unsigned wait_ms, bool *abandoned);

/** The value of query argument @p key, or NULL. */
const char *http_arg(const http_req *r, const char *key);
/** Fill @p resp with a JSON error {"error":MESSAGE} and a status. */
void http_error(http_resp *resp, int status, const char *message);

#endif
