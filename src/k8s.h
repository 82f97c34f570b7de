/*
 * k8s.h: the Kubernetes releases dracel reproduces (1.34 to 1.37): each release's DRA feature
 * gates (defaults, locks), what its scheduler passes its allocator (the structured allocator's
 * Features), which of the allocator's three copies (stable, incubating, experimental) it then
 * runs, and how that copy of that release searches (docs/allocation.md, "Releases").
 *
 * The facts come from Kubernetes' sources, pinned in docs/allocation.md: the versioned feature
 * gate specs (pkg/features/kube_features.go; kube-scheduler's on 1.37), the scheduler's mapping
 * of gates to allocator features (dynamicresources.go), and the copies of
 * k8s.io/dynamic-resource-allocation/structured/internal at kubernetes-1.34.9, 1.35.6, 1.36.2
 * and master after 1.37.0-alpha.2.
 *
 * Feature bits are src/claims.h's DC_FEAT_* (one bit per gate); their names ("AdminAccess", or
 * the gate "DRAAdminAccess") are parsed here too.
 *
 * Change with: src/k8s.c, src/alloc/ (which reads the profile), include/dracel.h (the
 * DRACEL_FEATURE_* bits and DRACEL_KUBERNETES_*), tests/unit/test_k8s.c, docs/allocation.md.
 */
#ifndef DC_K8S_H
#define DC_K8S_H

#include <stdbool.h>
#include <stddef.h>

#define DC_K8S_OLDEST 34u   /* minor versions: Kubernetes 1.34 ... */
#define DC_K8S_NEWEST 37u   /* ... 1.37, the default */

typedef enum dc_copy {
    DC_COPY_STABLE,
    DC_COPY_INCUBATING,
    DC_COPY_EXPERIMENTAL
} dc_copy;

/* A release with its gates, as its scheduler runs the allocator. */
typedef struct dc_k8s {
    unsigned release;       /* minor version, DC_K8S_OLDEST..DC_K8S_NEWEST */
    unsigned gates;         /* DC_FEAT_* bits: the gates that are on */
    unsigned features;      /* the allocator's Features the scheduler passes (DC_FEAT_* bits:
                               AdminAccess, PrioritizedList, PartitionableDevices, DeviceTaints,
                               ConsumableCapacity, DeviceBindingConditions standing for
                               DeviceBinding (1.34) or DeviceBindingAndStatus (1.35 on),
                               DeviceStatus (1.34 only), ListTypeAttributes (1.37 on)) */
    dc_copy copy;           /* the first copy whose supported features cover `features` */
    /* How that copy searches. */
    bool sorted;            /* pools by driver and name, slices by name; else Go map order
                               (pools) and the informer's order (slices): not deterministic */
    bool combinations;      /* within a request only combinations; else permutations */
    bool maxsize_cut;       /* a branch over 32 results is cut at once (else just fails) */
    bool fleet_complete;    /* a pool the node sees only part of is judged by all its slices
                               (checkSlicesInPool); 1.34 judges by the node's slices alone */
    bool beta_code;         /* the copy has distinctAttribute, consumable capacity and binding
                               conditions (pools with them tried last) */
    bool none_blocks;       /* every taint must be tolerated, whatever its effect (1.34; the
                               stable copy of 1.35); else only NoSchedule and NoExecute block */
    bool device_in_msg;     /* CEL runtime errors name the device and hint at .?/has() (1.37) */
    bool list_attrs;        /* list-type attributes in constraints (experimental, ListType) */
    bool config_once;       /* a claim's config entry is copied once, and an entry naming every
                               request names none (1.37); before, once per request it names */
} dc_k8s;

/** The gates a release turns on by default (DC_FEAT_* bits). 0 for an unknown release. */
unsigned dc_k8s_defaults(unsigned release);
/** Whether a release has the gate @p bit at all (DRADeviceTaintRules came in 1.35,
 *  DRAListTypeAttributes in 1.36). */
bool dc_k8s_has_gate(unsigned release, unsigned bit);
/** The release's profile with the gates @p gates on. */
void dc_k8s_resolve(unsigned release, unsigned gates, dc_k8s *out);
/** "stable", "incubating", "experimental". */
const char *dc_copy_name(dc_copy c);

/**
 * Read a release "1.36" (or "v1.36", "1.36.2": the patch is accepted and not used) into its
 * minor version. 0 when malformed or not a release dracel reproduces.
 */
unsigned dc_k8s_parse_release(const char *s, size_t n);

/**
 * Apply a --feature-gates value in Kubernetes' syntax ("DRAConsumableCapacity=true,
 * DRADeviceTaints=false": comma-separated, spaces around names and values trimmed, values as
 * Go's strconv.ParseBool reads them) to @p gates, as component-base's feature gate does for
 * release @p release: an unknown gate ("unrecognized feature gate: X"), a gate locked to its
 * default set otherwise ("cannot set feature gate X to false, feature is locked to true") or a
 * bad value is an error (message in @p err), and @p gates is left unchanged.
 * Names: Kubernetes' gate names (DRAAdminAccess, DRAResourceClaimDeviceStatus...); dracel's
 * short names (AdminAccess, DeviceStatus) are accepted too.
 * @return 0, or -1 with the message.
 */
int dc_k8s_gates(unsigned release, const char *spec, size_t n, unsigned *gates, char *err,
                 size_t errcap);

/** Set one gate (by Kubernetes' name or dracel's) as --feature-gates does: same errors.
 *  @return 0, or -1 with the message in @p err. */
int dc_k8s_gate_set(unsigned release, const char *name, size_t n, bool on, unsigned *gates,
                    char *err, size_t errcap);

/** The Kubernetes gate name of one bit ("DRAAdminAccess"), or NULL. */
const char *dc_feature_gate_name(unsigned bit);
/** The names of every feature, ", "-separated, into @p buf (for messages). */
void dc_feature_known(char *buf, size_t cap);

#endif
