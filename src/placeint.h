/*
 * placeint.h: the insides of the public placement handles (dracel_objects, dracel_usage,
 * dracel_policy), shared by src/api_place.c, which implements them, src/cluster.c, whose
 * snapshots hold a set of classes, a usage and make policies, and src/api_pod.c (a pod's special
 * claim).
 *
 * Change with: src/api_place.c, src/cluster.c, src/api_pod.c.
 */
#ifndef DC_PLACEINT_H
#define DC_PLACEINT_H

#include "alloc.h"
#include "claims.h"

struct dracel_objects {
    dracel_config cfg;          /* cfg.alloc is &alloc */
    dracel_alloc alloc;
    dc_objects o;
};

struct dracel_usage {
    dracel_alloc alloc;
    dc_usage *u;
};

struct dracel_policy {
    dracel_config cfg;
    dracel_alloc alloc;
    dc_policy *p;
    dracel_snapshot *snap;      /* the snapshot whose table it uses (a reference), or NULL */
};

/** An empty set with @p c's allocator (copied). */
void dc_api_objects_init(dracel_objects *s, const dracel_config *c);
/** A policy of @p n claims (in the pod's order) against @p t and @p classes (NULL: none), as
 *  dracel_policy_new makes it; snap is NULL. */
dracel_status dc_api_policy_make(const dracel_config *cfg, const dracel_table *t,
                                 const dc_objects *classes, const dc_claim_in *const *claims,
                                 size_t n, dracel_policy **out, char *err, size_t errcap) DC_WUR;
/** dc_usage_derive behind a public handle: @p prev's table, its allocator. */
dracel_status dc_api_usage_derive(const dracel_usage *prev, const dracel_device_id *set,
                                  size_t nset, const dracel_device_id *clear, size_t nclear,
                                  dracel_usage **out) DC_WUR;

/** dracel_policy_new with, when @p extra is not NULL, that claim after the others. */
dracel_status dc_api_policy_with(const dracel_config *cfg, const dracel_table *t,
                                 const dracel_objects *classes, const dracel_objects *claims,
                                 const size_t *claim_index, size_t nclaims,
                                 const dc_claim_in *extra, dracel_policy **out, char *err,
                                 size_t errcap) DC_WUR;
/** The special claim of @p p for the resources @p res[0..nres) (dracel_pod_extended), built in
 *  @p tmp's arena (an empty set the caller frees after the policy is made, src/api_pod.c).
 *  DRACEL_EINVAL when a resource has no class in @p classes. */
dracel_status dc_api_pod_claim(const dracel_pod *p, const dc_objects *classes,
                               const char *const *res, size_t nres, dc_objects *tmp,
                               dc_claim_in *out, char *err, size_t errcap) DC_WUR;

#endif
