/*
 * kubesrc.h: the Kubernetes API source of dra-extender (src/extender/kubesrc.c): the client of
 * kube.h feeding the store. Each resource is one source of the store ("api/resourceslices",
 * ...): a complete list replaces it (a relist never loses or duplicates an object), watch events
 * add, replace or delete single objects. Logs and metrics for everything the client notes.
 */
#ifndef EXT_KUBESRC_H
#define EXT_KUBESRC_H

#include <stddef.h>

#include "kube.h"
#include "store.h"

typedef struct kubesrc kubesrc;

kubesrc *kubesrc_start(store *st, const kube_config *cfg, char *err, size_t errcap);
void kubesrc_stop(kubesrc *k);
/** Its API client (to write with: events.h). */
kube *kubesrc_kube(kubesrc *k);
/** Update the gauges read at scrape time (dra_extender_watch_last_event_age_seconds). NULL is
 *  a no-op. */
void kubesrc_metrics(kubesrc *k);

#endif
