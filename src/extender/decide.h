/*
 * decide.h: the answers of dra-extender (src/extender/decide.c): filter, prioritize and
 * explain for a pod on nodes, from the current snapshot of the store.
 *
 * A pod's claims are resolved as Kubernetes resolves them (spec.resourceClaims: a claim's name,
 * or for a template the name in status.resourceClaimStatuses). Claims already allocated pin
 * their devices: a node passes them when their allocation's node selector admits it. The others
 * are allocated on each node as Kubernetes' allocator would (a policy of those claims, compiled
 * once per snapshot), with every allocated claim's devices in use.
 *
 * Each node's answer is cached under a key of everything that decides it: the policy's version
 * (its claims and classes), the features, the node (name and labels), and for each pool the node
 * sees, the pool's version and the hash of its devices in use. Never the pod's name: pods with
 * the same claims share answers, a slice update changes the keys of the nodes that see its pool
 * only, and an allocation those of the nodes that see the devices it took.
 */
#ifndef EXT_DECIDE_H
#define EXT_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "json.h"
#include "store.h"

typedef struct decide_config {
    const dracel_config *cfg;    /* the library's limits (cost, memory per selector) */
    unsigned features;           /* DRACEL_FEATURE_*: the cluster's gates */
    unsigned kubernetes;         /* the release reproduced, its minor version (0: newest) */
    uint64_t node_timeout_ms;    /* the search on one node at most (the scheduler's
                                    filterTimeout; 0: none) */
    uint64_t budget_ms;          /* one request's computation at most: nodes left when it runs
                                    out are failed with that reason (0: none) */
    unsigned search_threads;     /* a request's search of many nodes in parts, on this many
                                    threads at most (0, 1: on the request's thread alone) */
    size_t cache_entries;        /* node answers kept (0: 262144) */
    size_t max_reason;           /* bytes of a failed node's reason (0: 256) */
    size_t recent_pods;          /* pods remembered for GET /explain?pod= (0: 1024) */
    size_t recent_bytes;         /* and the bytes they hold at most (0: 16 MiB) */
    struct fair *fair;           /* tier policies (fair.h), or NULL */
    /* Where the outcome of a filter goes, as an Event regarding the pod (events.h), or NULL;
     * called on the request's thread, it must not block. */
    void (*event)(void *ctx, const ext_pod *pod, bool warning, const char *action,
                  const char *reason, const char *note);
    /* Where the pod condition of the tier goes (events_condition), or NULL: same context. */
    void (*condition)(void *ctx, const ext_pod *pod, bool status, const char *reason,
                      const char *message);
    void *event_ctx;
    uint64_t await_ttl_ms;       /* a pod that passed is followed until its claims are
                                    allocated and reserved for it, at most this long (0: 10m),
                                    for the Event of the final choice */
    const char *model_attribute; /* the devices' attribute the final choice names ("domain/
                                    name"), or NULL */
} decide_config;

typedef struct decider decider;

decider *decider_new(const decide_config *cfg, store *st, char *err, size_t errcap);
void decider_free(decider *d);
/** End every computation at its next check (the allocator's interrupt): their requests are
 *  answered 503 "shutting down". For SIGTERM; there is no way back. Any thread. */
void decider_cancel(decider *d);

/* Each writes its answer (JSON; explain text when asked) into out and returns the HTTP status:
 * 200, or 503 before the first snapshot (out then holds {"error":...}). */
int decide_filter(decider *d, const ext_args *a, jbuf *out);
int decide_prioritize(decider *d, const ext_args *a, jbuf *out);
/** Explain the pod on the nodes of a (all nodes of the snapshot when a has none; only @p node
 *  when not NULL). */
int decide_explain(decider *d, const ext_args *a, const char *node, bool text, jbuf *out);
/** Explain a pod seen in a recent request, by namespace/name: 404 when it was not seen. */
int decide_explain_recent(decider *d, const char *ns, const char *name, const char *node,
                          bool text, jbuf *out);

#endif
