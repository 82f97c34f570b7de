/*
 * fair.h: tier policies in dra-extender (src/extender/fair.c; docs/fairness.md, "The
 * extender"): the versions of the policy file (loaded at start, reloaded on SIGHUP and when the
 * file changes, the last N kept, rollback to the previous one), the usage of each tenant and
 * tier (allocated claims plus the extender's own recent decisions not yet seen as allocations),
 * the reconciliation of those decisions with the allocations that appear, and the decision log.
 *
 * Which tier a node would give and whether the caps allow it is decided in decide.c, under the
 * lock fair_lock takes: the usage it reads and the decision it records are one step, so that
 * two pods racing for the last device of a tier are decided one after the other.
 */
#ifndef EXT_FAIR_H
#define EXT_FAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dracel.h"
#include "json.h"

typedef struct fair_config {
    const char *path;            /* the TierPolicy file */
    const dracel_config *cfg;
    unsigned history;            /* versions kept, the current one included (0: 5) */
    unsigned poll_ms;            /* how often the file is checked for a change (0: never) */
    double pending_ttl;          /* seconds a decision counts until its allocation is seen */
    size_t max_pending;          /* pods whose decisions count at most (oldest dropped) */
    size_t max_predicted;        /* nodes per pod kept for reconciliation (best scores first) */
    const char *log_path;        /* the decision log, or NULL */
    size_t log_nodes;            /* node names sampled per tier and per cause in a record */
    const char *model_attribute; /* the devices' attribute an allocation record names, or NULL */
} fair_config;

/* A loaded version: shared, referenced by the requests using it. */
typedef struct fair_policy {
    dracel_tierpolicy *p;
    const char *label;           /* "VERSION (h:HASH)" */
    uint64_t seq;                /* 1, 2, ... in load order */
    unsigned refs;               /* under the fair's lock */
} fair_policy;

typedef struct fair fair;

/** Load the policy file (a rejected file: NULL, "FILE:LINE:COL: ..." in err) and open the
 *  decision log. */
fair *fair_new(const fair_config *c, char *err, size_t errcap);
void fair_free(fair *f);
/** Read the file again (@p trigger: "SIGHUP", "file change"). 0: a new version is current;
 *  1: the file decides as the current version does (nothing changes); -1: rejected or
 *  unreadable, the running version stays (logged and counted). */
int fair_reload(fair *f, const char *trigger);
/** Switch to the previous version at once (the current one is dropped). 0, or -1 when there is
 *  none (msg says so); msg receives what happened. */
int fair_rollback(fair *f, const char *trigger, char *msg, size_t cap);
/** The versions kept, newest first, as JSON (GET /policy). */
void fair_versions_json(fair *f, jbuf *out);
/** Reopen the decision log (rotation). */
void fair_reopen_log(fair *f);
bool fair_logging(const fair *f);
/** Append one record (a line ending in '\n') to the decision log. */
void fair_log(fair *f, const char *line, size_t len);
size_t fair_log_nodes(const fair *f);

/** The current version, referenced (NULL only when fair is NULL). */
fair_policy *fair_acquire(fair *f);
void fair_release(fair *f, fair_policy *p);

/** Bring the usage up to date with @p snap (allocations seen, decisions reconciled, expired
 *  ones dropped) and render the usage and cap gauges (GET /metrics). */
void fair_sync(fair *f, const dracel_snapshot *snap);

/* ---- A decision, under the lock. */

typedef struct fair_take {
    size_t key;                  /* of the policy of fair_lock */
    uint32_t n;
} fair_take;

typedef struct fair_predicted {
    const char *node;            /* copied */
    const char *devices;         /* the predicted devices (decide.c's form), copied */
} fair_predicted;

/** Lock, bring the usage up to date with @p snap for version @p pv, and take pod ns/name's own
 *  recent decision out of it (a pod counts once). */
void fair_lock(fair *f, fair_policy *pv, const dracel_snapshot *snap, const char *ns,
               const char *name);
/** The usage (allocated + recent decisions of other pods) of the locked version. */
const dracel_tierusage *fair_usage(fair *f);
/** Devices of key in recent decisions of other pods (not yet allocated). */
uint64_t fair_in_flight(fair *f, size_t key);
/** The size of key (for the cap gauges of shares). */
void fair_note_size(fair *f, size_t key, uint64_t size);
/** Record the pod's decision (takes of the node it will most likely get; claims as ns/name in
 *  the policy's order; predicted devices per node) and unlock. With @p record false, the pod's
 *  previous decision is put back (prioritize); with ntakes 0 and record true, it is dropped. */
void fair_unlock(fair *f, bool record, size_t tenant, const fair_take *takes, size_t ntakes,
                 const char *const *claims, size_t nclaims, const fair_predicted *pred,
                 size_t npred);

/** Sorted results of claim i of snap in decide.c's form ("req=driver/pool/device,...").
 *  malloc'd; NULL when memory runs out. */
char *fair_claim_devices(const dracel_snapshot *snap, size_t claim);

#endif
