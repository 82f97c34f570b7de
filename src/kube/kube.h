/*
 * kube.h: the Kubernetes API client of dra-extender (src/kube/kube.c): list then watch of
 * the resources the extender reads, with libcurl, as client-go's reflector does.
 *
 * One thread per resource: LIST (paged with limit/continue), then WATCH from the list's
 * resourceVersion with allowWatchBookmarks, resuming from the last resourceVersion seen (events
 * and bookmarks) after a disconnect or a stream that ends; a 410 Gone (as the HTTP status, or an
 * ERROR event whose Status has code 410) means relist. Errors, disconnects and streams that go
 * silent back off with jitter. An optional resource (DeviceTaintRules) that the server does not
 * serve (404 to its LIST) counts as an empty list, asked again every backoff_max_ms. The sink sees each resource's objects as one complete list first
 * (and after every relist), then events; it is never given a partial list, so a relist never
 * loses or duplicates an object.
 *
 * Objects are handed over as their exact text (the bytes the server sent: an item of a list
 * page, the "object" member of a watch event), never re-encoded: cJSON would round int64
 * attribute values through a double.
 *
 * Configuration: a kubeconfig file (current-context's cluster server, certificate-authority or
 * -data, insecure-skip-tls-verify, user token / tokenFile / client-certificate(-data) and
 * client-key(-data)), or in cluster (KUBERNETES_SERVICE_HOST and _PORT, the service account's
 * token file, read again before every request so that a rotated token is used at once, and its
 * CA file). exec and auth-provider plugins, basic authentication, impersonation and
 * tls-server-name are refused by kube_new with a message (docs/extender-watch.md).
 *
 * The process must ignore SIGPIPE (libcurl runs with CURLOPT_NOSIGNAL, as threads require).
 * The client calls curl_global_init once (pthread_once) and keeps no other global state; it
 * does not use cJSON, whose parser writes a process-wide error position on every call.
 */
#ifndef EXT_KUBE_H
#define EXT_KUBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The resources read, and their API paths (resource.k8s.io/v1, Kubernetes 1.34 and later). */
typedef enum kube_res {
    KUBE_SLICES,   /* /apis/resource.k8s.io/v1/resourceslices */
    KUBE_CLASSES,  /* /apis/resource.k8s.io/v1/deviceclasses */
    KUBE_CLAIMS,   /* /apis/resource.k8s.io/v1/resourceclaims (all namespaces) */
    KUBE_NODES,    /* /api/v1/nodes */
    KUBE_RULES,    /* /apis/resource.k8s.io/VERSION/devicetaintrules, when rules_version is set:
                      optional, a server that does not serve it (HTTP 404) has none */
    KUBE__N
} kube_res;

/** "resourceslices", ... (the plural, as in the path and in metrics labels). */
const char *kube_res_name(kube_res r);

/* One object: its identity and its exact text. Valid during the sink call only. */
typedef struct kube_obj {
    const char *ns;        /* metadata.namespace, or NULL (cluster-scoped) */
    const char *name;      /* metadata.name */
    const char *rv;        /* metadata.resourceVersion, or NULL */
    const char *json;      /* the object, exactly as sent (not NUL-terminated) */
    size_t len;
} kube_obj;

/* What happened, for logs and metrics (the sink's note callback). Details are one line of
 * text, never a secret. */
typedef enum kube_note {
    KUBE_NOTE_LISTED,      /* a complete list was delivered (detail: the object count) */
    KUBE_NOTE_SYNCED,      /* the first complete list of this resource: it is synced (detail:
                              the object count); follows its LISTED */
    KUBE_NOTE_RELIST,      /* a relist starts (detail: why, e.g. "WATCH: HTTP 410 Gone"); not
                              for the first list, nor for each retry of a failed list */
    KUBE_NOTE_WATCH,       /* a watch starts (detail: the resourceVersion) */
    KUBE_NOTE_BOOKMARK,    /* a BOOKMARK event (detail: its resourceVersion) */
    KUBE_NOTE_DISCONNECT,  /* a watch stream ended or broke (detail: why; "the stream ended"
                              after timeoutSeconds) */
    KUBE_NOTE_ERROR,       /* a request or an event failed (detail: the HTTP status with the
                              Status's reason and message, curl's message, or what was wrong) */
    KUBE_NOTE_BACKOFF,     /* waiting before the next try (detail: milliseconds) */
    KUBE_NOTE_UNSERVED,    /* an optional resource is not served (its LIST answered 404): it
                              counts as listed and empty (detail: why) */
    KUBE_NOTE__N
} kube_note;

/* Where the client delivers. Calls for one resource come from that resource's thread, in
 * order; calls for different resources may run at the same time. A callback returning nonzero
 * makes the client relist that resource (after a backoff). */
typedef struct kube_sink {
    void *ctx;
    /* The complete current list of resource r: replaces every object of r held before. */
    int (*replace)(void *ctx, kube_res r, const kube_obj *objs, size_t n);
    /* One watch event: type 'A' (ADDED), 'M' (MODIFIED) or 'D' (DELETED). */
    int (*event)(void *ctx, kube_res r, char type, const kube_obj *obj);
    /* Optional: what happened (see kube_note); detail may be NULL. */
    void (*note)(void *ctx, kube_res r, kube_note what, const char *detail);
} kube_sink;

/* Read by kube_new only (user_agent is copied): nothing here needs to outlive that call. */
typedef struct kube_config {
    const char *kubeconfig;      /* a kubeconfig file, or NULL: in cluster */
    const char *context;         /* a context of the kubeconfig, or NULL: current-context */
    /* In cluster, the files read (NULL: the standard paths under
     * /var/run/secrets/kubernetes.io/serviceaccount/). */
    const char *token_file;
    const char *ca_file;
    uint32_t list_limit;         /* items per LIST page (0: 500) */
    uint32_t watch_timeout_s;    /* timeoutSeconds of a WATCH (0: a random 300 to 600) */
    uint32_t connect_timeout_ms; /* 0: 10000 */
    uint32_t idle_timeout_s;     /* a stream sending nothing for this long is dead (0: 120;
                                    bookmarks keep a healthy stream alive) */
    uint32_t backoff_min_ms;     /* 0: 250 */
    uint32_t backoff_max_ms;     /* 0: 30000 */
    size_t max_object_bytes;     /* one event line, or one item of a list, at most (0: 16 MiB);
                                    more is an error, then a relist after a backoff */
    size_t max_list_bytes;       /* one complete list, all pages, at most (0: 1 GiB) */
    const char *user_agent;      /* 0: "dra-extender/VERSION" */
    const char *rules_version;   /* the resource.k8s.io version DeviceTaintRules are read from
                                    ("v1", "v1beta2", "v1alpha3"), or NULL: not read */
    unsigned skip;               /* resources not read: bits 1u << kube_res (0: all of them) */
} kube_config;

typedef struct kube kube;

/** Read the configuration (kubeconfig or in-cluster files) and prepare the client; no request
 *  is sent yet. On error returns -1 with a message in err. */
int kube_new(const kube_config *cfg, const kube_sink *sink, kube **out, char *err, size_t errcap);
/** Start one thread per resource. Once only. */
int kube_start(kube *k, char *err, size_t errcap);
/** Has every resource read been listed completely at least once? */
bool kube_synced(const kube *k);
/** Is resource @p r read (KUBE_RULES only with rules_version)? */
bool kube_reads(const kube *k, kube_res r);
/** The server's URL (for logs). */
const char *kube_server(const kube *k);
/** One line for logs: the server, where the configuration came from (kubeconfig and context,
 *  or in cluster), what is trusted (a CA file or data, the system's CAs, or no verification)
 *  and the credentials used (a token, a token file, a client certificate), never a secret. */
const char *kube_describe(const kube *k);
/** Stop every thread promptly (an open watch or a backoff is interrupted at once; a sink
 *  callback running is waited for) and wait for them. From the thread that owns k; the sink is
 *  not called after it returns. */
void kube_stop(kube *k);
/** kube_stop if needed, then free everything. NULL is a no-op. Free every kube_writer of k
 *  first. */
void kube_free(kube *k);

/* ---- Writes: one request at a time on a writer's own connection, with the client's server,
 * TLS settings and credentials (a token file is read again before every request). A writer
 * belongs to one thread; kube_writer_halt may come from any. Events (events.c) write with it. */

typedef struct kube_writer kube_writer;

/* The answer to a write. */
typedef struct kube_reply {
    long http;                /* the HTTP status, 0 when none came */
    uint64_t retry_after_ms;  /* the response's Retry-After (0: none) */
    char reason[64];          /* an error response's Status reason ("AlreadyExists"), or "" */
    char message[256];        /* its message (or the start of its body), or why no answer came */
} kube_reply;

int kube_writer_new(kube *k, kube_writer **out, char *err, size_t errcap);
/** Send METHOD path (below the server's URL) with a body of content type @p ctype; wait for
 *  the answer at most @p timeout_ms (0: no limit), or until kube_writer_halt (kube_stop does
 *  not end a writer's request: a writer may be used after the watches stopped). Returns
 *  0 when an answer came (rep->http: any status; the body of a 2xx is not kept), -1 when none
 *  did (rep->message says why). */
int kube_write(kube_writer *w, const char *method, const char *path, const char *ctype,
               const char *body, size_t len, uint32_t timeout_ms, kube_reply *rep);
/** GET path; on a 2xx its body (at most @p max bytes, more is an error), NUL-terminated, into
 *  *body (to free). Returns as kube_write (rep->http: any status; *body NULL unless a 2xx). */
int kube_read(kube_writer *w, const char *path, size_t max, uint32_t timeout_ms, kube_reply *rep,
              char **body, size_t *len);
/** End the request in progress, and every later one, at once. Any thread. */
void kube_writer_halt(kube_writer *w);
void kube_writer_free(kube_writer *w);

#endif
