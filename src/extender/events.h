/*
 * events.h: Kubernetes Events of dra-extender (src/extender/events.c), events.k8s.io/v1 Events
 * regarding a pod, posted as client-go's event broadcaster (k8s.io/client-go/tools/events)
 * posts them, on a thread of their own, so that posting never blocks an answer.
 *
 * - An event identical to one posted less than window_ms ago (same type, action, reason, pod
 *   and note) is one more occurrence of it: the first repeat PATCHes the Event's series
 *   (count 2, lastObservedTime) at once, later ones raise the count in memory, written every
 *   flush_ms and when the series ends (window_ms without a repeat). client-go leaves the note
 *   out of that comparison; dracel keeps it in, so that a changed reason is never hidden in a
 *   count.
 * - Bounds: at most queue events wait to be written (more are dropped and counted); at most
 *   cache events are remembered for their series; a pod gets pod_burst new Events at once, one
 *   more every pod_refill_ms; all writes together at most qps a second (burst at once).
 * - The API server's refusals: 429 (its Retry-After honoured) and 5xx and no answer back off
 *   (backoff_min_ms doubled per failure, at most backoff_max_ms, jittered) and retry, an event
 *   at most tries times; another 4xx drops the event. A PATCH answered 404 (the Event expired)
 *   creates it anew; a create answered 409 means it exists.
 * - The note is cut to Kubernetes' 1024 bytes (at a character boundary), reason and action to
 *   128.
 *
 * The text of an event is the caller's: it names only the pod's own tenant and numbers.
 */
#ifndef EXT_EVENTS_H
#define EXT_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "kube.h"

typedef struct events_config {
    const char *controller;   /* reportingController (NULL: "dracel.dev/dra-extender") */
    const char *instance;     /* reportingInstance: the replica's pod name (NULL: $POD_NAME,
                                 else the host name) */
    uint32_t queue;           /* events waiting at most (0: 1000) */
    uint32_t cache;           /* events remembered for series at most (0: 4096) */
    double qps;               /* writes a second, all events (0: 5) */
    uint32_t burst;           /* writes at once (0: 25) */
    uint32_t pod_burst;       /* new Events per pod at once (0: 10) */
    uint32_t pod_refill_ms;   /* one more per pod per this (0: 60000) */
    uint32_t window_ms;       /* a repeat within this is a series (0: 360000, client-go's) */
    uint32_t flush_ms;        /* series counts written this often (0: 30000) */
    uint32_t timeout_ms;      /* one write at most (0: 10000) */
    uint32_t tries;           /* writes of one event at most (0: 12, client-go's) */
    uint32_t backoff_min_ms;  /* 0: 1000 */
    uint32_t backoff_max_ms;  /* 0: 30000 */
} events_config;

/* The pod an event is about. */
typedef struct events_pod {
    const char *ns, *name, *uid; /* uid may be NULL or "" */
} events_pod;

typedef struct events events;

/** Start the thread that writes through @p k (which must outlive events_stop). */
events *events_start(kube *k, const events_config *cfg, char *err, size_t errcap);
/** Record an event: never blocks on the API server. False when it was dropped (the queue or the
 *  memory of series full, the pod over its rate), which is counted. Any thread. */
bool events_post(events *e, const events_pod *pod, bool warning, const char *action,
                 const char *reason, const char *note);
/* The pod condition events_condition sets. */
#define EVENTS_CONDITION "dracel.dev/DeviceTier"

/** Set the pod's condition EVENTS_CONDITION (status True or False, reason, message cut to 1024
 *  bytes) with a strategic merge patch of pods/status, through the same queue, global rate and
 *  back-off as Events (not the per-pod rate); the same condition again within window_ms is not
 *  written again. False when dropped. Any thread. */
bool events_condition(events *e, const events_pod *pod, bool status, const char *reason,
                      const char *message);
/** Refresh the gauges of /metrics (events waiting). */
void events_metrics(events *e);
/** Write what waits (events, series counts) for at most @p grace_ms, then stop and free. NULL
 *  is a no-op. */
void events_stop(events *e, unsigned grace_ms);

#endif
