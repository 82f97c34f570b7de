/*
 * store.h: dra-extender's view of the cluster (src/extender/store.c): a dracel_cluster fed by
 * the sources (a watched directory, the Kubernetes API), and the snapshots requests read.
 *
 * Sources change the cluster under the store's lock (one writer at a time, as the library
 * requires) and mark it dirty; a publisher thread takes a snapshot of each burst of changes (it
 * waits `delay_ms` after the first change of a burst so that a relist or a directory rewrite
 * becomes one snapshot, not thousands) and publishes it, once every source has reported its
 * first complete state (before, there is no snapshot: requests are answered 503). Requests
 * take the current snapshot with a reference (one short lock) and never wait for the writer.
 */
#ifndef EXT_STORE_H
#define EXT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dracel.h"

typedef struct store store;

typedef struct store_config {
    const dracel_config *cfg;    /* the library's limits for loading and evaluation */
    unsigned delay_ms;           /* coalescing window of a burst of changes (0: none) */
    unsigned sources;            /* how many sources must report synced before ready */
} store_config;

store *store_new(const store_config *cfg, char *err, size_t errcap);
/** Stop the publisher; snapshots handed out stay valid until unreferenced. */
void store_free(store *s);

/* ---- Writers (sources). Each returns a dracel_status; err receives the library's message. */

/** Replace everything @p source holds with the objects of buf (a file's new content; a relist). */
dracel_status store_set_source(store *s, const char *source, const char *buf, size_t len,
                               unsigned kinds, char *err, size_t errcap);
/** Add or replace objects (a watch ADDED or MODIFIED event). */
dracel_status store_apply(store *s, const char *source, const char *buf, size_t len,
                          unsigned kinds, char *err, size_t errcap);
/** Delete one object (a watch DELETED event); absent is not an error. */
dracel_status store_delete(store *s, unsigned kind, const char *ns, const char *name);
/** Would the objects of buf be taken (read and validated as store_apply reads them, in a
 *  scratch state of their own: nothing of the store changes)? err receives why not. */
dracel_status store_check(store *s, const char *buf, size_t len, unsigned kinds, char *err,
                          size_t errcap);

/* ---- Objects refused: an object the extender cannot take is left out alone, its key and
 * reason kept here (at most 4096, the rest only counted in the log), counted in the gauge
 * dra_extender_objects_refused{resource}. Pods that use a refused claim fail with its reason. */

/** Remember (kind, ns, name) as refused, replacing an earlier entry of the key. */
void store_refuse(store *s, unsigned kind, const char *ns, const char *name, const char *rv,
                  const char *why);
/** Forget one (taken after all, or deleted). */
void store_unrefuse(store *s, unsigned kind, const char *ns, const char *name);
/** Forget every one of a kind (a new list of the resource decides again). */
void store_unrefuse_kind(store *s, unsigned kind);
/** Is (kind, ns, name) refused? Its reason into why. */
bool store_refused(store *s, unsigned kind, const char *ns, const char *name, char *why,
                   size_t cap);
/** How many objects are refused. */
size_t store_refused_count(store *s);

/** A source has delivered its first complete state. */
void store_source_synced(store *s);
/** Publish a snapshot now if anything changed and every source is synced (startup); waits for
 *  it. */
dracel_status store_flush(store *s, char *err, size_t errcap);

/** Call @p fn on the publisher thread with each snapshot once it is published (NULL: none).
 *  Setting waits for a call in progress, so that after store_set_hook(s, NULL, NULL) ctx is
 *  no longer used. */
void store_set_hook(store *s, void (*fn)(void *ctx, dracel_snapshot *snap), void *ctx);

/* ---- Readers. */

/** The current snapshot, referenced (release with dracel_snapshot_unref), or NULL before the
 *  first one. */
dracel_snapshot *store_current(store *s);
/** Every source synced and a snapshot published. */
bool store_ready(store *s);
/** When the current snapshot was published (ext_now's clock), and how long it took to build. */
void store_times(store *s, double *published, double *build_s);

#endif
