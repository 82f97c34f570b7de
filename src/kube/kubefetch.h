/*
 * kubefetch.h: one read of the cluster (src/kube/kubefetch.c), for the commands that explain or
 * lint against a live cluster (dra-celc explain --kubeconfig): the complete list of each
 * resource the client reads (kube.h: paged LISTs, each resource as one whole list, never a
 * partial one), then single objects by path (GET), through the same client, credentials and
 * limits as dra-extender's watch.
 */
#ifndef KUBE_FETCH_H
#define KUBE_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "kube.h"

/* One object of a list: its identity and its exact text in the list's buffer. */
typedef struct kf_obj {
    char *ns, *name;             /* ns NULL: cluster-scoped */
    size_t off, len;             /* in the list's json */
} kf_obj;

typedef struct kube_fetch {
    kube *k;
    kube_writer *w;
    /* per resource: {"apiVersion":"v1","kind":"List","items":[...]} with the objects' exact
     * text, and where each object is in it */
    char *json[KUBE__N];
    size_t len[KUBE__N];
    kf_obj *objs[KUBE__N];
    size_t nobjs[KUBE__N];
} kube_fetch;

/** List every resource @p cfg reads (cfg->rules_version: DeviceTaintRules too), within
 *  @p timeout_ms. On error returns -1 with a message in err: the resources not listed, with the
 *  last error of each (an HTTP status and the server's message, a refused connection). */
int kube_fetch_lists(const kube_config *cfg, uint32_t timeout_ms, kube_fetch *f, char *err,
                     size_t errcap);
/** GET an object by its API path: 0 with its text in *json (to free); 1 when the server answers
 *  404; -1 on another error (message in err). */
int kube_fetch_get(kube_fetch *f, const char *path, uint32_t timeout_ms, char **json,
                   size_t *len, char *err, size_t errcap);
/** The object ns/name of resource r, or NULL. */
const kf_obj *kube_fetch_find(const kube_fetch *f, kube_res r, const char *ns, const char *name);
void kube_fetch_free(kube_fetch *f);

#endif
