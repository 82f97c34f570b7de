/*
 * kubecmd.h: dra-celc against a live cluster (src/celc/kubecmd.c): `explain --kubeconfig PATH
 * --pod NS/NAME` (or --in-cluster) reads the cluster through the Kubernetes API with the client
 * dra-extender watches it with (src/kube), and writes what `explain` reads from files into a
 * private temporary directory, so that the explanation is the one the same objects in files
 * get: the ResourceSlices, DeviceClasses and Nodes as listed; the pod; its claims in the order
 * of spec.resourceClaims (a claim by name, a template's claim by the name in
 * status.resourceClaimStatuses, else the template itself); the devices of every other claim
 * allocated, one ID a line.
 */
#ifndef CELC_KUBECMD_H
#define CELC_KUBECMD_H

#include <stdbool.h>
#include <stdint.h>

typedef struct celc_kube {
    const char *kubeconfig;      /* NULL: in cluster */
    const char *context;
    uint32_t timeout_ms;         /* reading the cluster at most */
} celc_kube;

typedef struct celc_kube_files {
    char dir[256];               /* the temporary directory ("" when none) */
    char slices[300], classes[300], nodes[300], claims[300], pod[300], allocated[300];
    bool any_claim;              /* claims holds one at least */
    bool any_allocated;
} celc_kube_files;

/** Read the cluster and pod @p pod ("NS/NAME"); write the files. Returns -1 when done, else the
 *  exit status (2: the cluster cannot be read, or the pod is not there; a message on stderr, or
 *  a JSON error with @p json). celc_kube_remove must follow either way. */
int celc_kube_fetch(const celc_kube *k, const char *pod, bool json, celc_kube_files *out);
/** Read the cluster's ResourceSlices and DeviceClasses into slices and classes (lint
 *  --kubeconfig). Returns as celc_kube_fetch. */
int celc_kube_fleet(const celc_kube *k, celc_kube_files *out);
/** Remove the files and the directory. */
void celc_kube_remove(celc_kube_files *f);

#endif
