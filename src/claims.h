/*
 * claims.h: the other objects of a DRA placement, as read from files (src/objects.c), beside
 * the ResourceSlices of src/slices.h: DeviceClasses, ResourceClaims (and the claim inside a
 * ResourceClaimTemplate), Nodes, and the scenario of `dra-celc allocate` that holds them all.
 *
 * The loader is src/slices.c's (one tree for JSON and YAML, lines for every value, Kubernetes'
 * API validation with "FILE:LINE: KIND NAME: FIELD.PATH: what is wrong" messages). What the API
 * server would reject is rejected here (DRACEL_EINPUT); what only the allocator checks (a class
 * that does not exist, an allocation mode it does not know, a feature that is off) is kept as
 * written and left to the allocator (src/alloc/), which reports it as Kubernetes does.
 *
 * Everything lives in the set's arena (dc_objects.slices.arena); strings are NUL-terminated.
 * Change with: src/objects.c, src/alloc/, src/cluster.c (which copies and hashes these),
 * tests/unit/test_objects.c, docs/allocation.md.
 */
#ifndef DC_CLAIMS_H
#define DC_CLAIMS_H

#include "quantity.h"
#include "slices.h"

/* A CEL selector ({cel: {expression}}). expr is NULL when the selector has no `cel` (an unknown
 * selector kind: the allocator's "CEL expression empty (unsupported selector type?)"). */
typedef struct dc_sel_in {
    const char *expr;
    uint32_t len;           /* bytes of expr */
    uint32_t line;          /* line of the expression's value in its file (0: unknown) */
} dc_sel_in;

/* An opaque config entry ({opaque: {driver, parameters}}). parameters is the value re-encoded
 * as compact JSON text (keys in document order; numbers as written), NULL when absent. */
typedef struct dc_opaque_in {
    const char *driver;
    const char *parameters;
} dc_opaque_in;

typedef struct dc_class_in {
    const char *name;       /* metadata.name */
    const char *file;
    uint32_t line;
    dc_sel_in *sels;
    uint32_t nsels;
    dc_opaque_in *config;   /* spec.config[].opaque; entries without opaque are dropped */
    uint32_t nconfig;
    const char *extended_resource_name; /* spec.extendedResourceName, or NULL */
    int64_t created;        /* metadata.creationTimestamp in Unix seconds (0 when absent) */
} dc_class_in;

/* A DeviceToleration. Strings are NULL when absent. */
typedef struct dc_toleration_in {
    const char *key;
    const char *op;         /* "Exists" or "Equal" (NULL means Equal) */
    const char *value;
    const char *effect;     /* NULL or "": all effects */
    int64_t seconds;        /* tolerationSeconds, when has_seconds */
    bool has_seconds;
} dc_toleration_in;

/* An ExactDeviceRequest (`exactly`) or a DeviceSubRequest (an entry of `firstAvailable`). */
typedef struct dc_subreq_in {
    const char *name;       /* the subrequest's name; NULL for `exactly` */
    const char *class_name; /* deviceClassName; NULL when absent */
    dc_sel_in *sels;
    uint32_t nsels;
    const char *mode;       /* allocationMode as written; NULL when absent (ExactCount) */
    int64_t count;          /* 1 when absent */
    bool admin_access;      /* adminAccess: true (only `exactly` has it) */
    dc_toleration_in *tols;
    uint32_t ntols;
    bool capacity_requests; /* `capacity` given (Kubernetes checks Capacity != nil) */
    dc_capacity_in *capreqs; /* capacity.requests: names as written, quantity texts */
    uint32_t ncapreqs;
    uint32_t line;
} dc_subreq_in;

typedef struct dc_request_in {
    const char *name;
    bool first_available;   /* subs are firstAvailable[]; else subs[0] is `exactly` */
    dc_subreq_in *subs;
    uint32_t nsubs;         /* 1 for exactly; 1..8 for firstAvailable */
    uint32_t line;
} dc_request_in;

typedef struct dc_constraint_in {
    const char **requests;  /* empty: every request */
    uint32_t nrequests;
    const char *match_attribute;     /* fully qualified, or NULL */
    const char *distinct_attribute;  /* fully qualified, or NULL */
    uint32_t line;
} dc_constraint_in;

typedef struct dc_claim_config_in {
    const char **requests;  /* empty: every request */
    uint32_t nrequests;
    dc_opaque_in opaque;
} dc_claim_config_in;

/* One device of status.allocation.devices.results (DeviceRequestAllocationResult). What the
 * allocator does not read (tolerations, binding conditions, consumed capacity) is validated
 * where the API server validates it and dropped. */
typedef struct dc_result_in {
    const char *request;    /* "req" or "req/sub", a request of the claim */
    const char *driver, *pool, *device;
    bool admin_access;      /* adminAccess: true */
    const char *share_id;   /* shareID (DRAConsumableCapacity), or NULL */
    dc_capacity_in *consumed; /* consumedCapacity: names as written, quantity texts */
    uint32_t nconsumed;
    uint32_t line;
} dc_result_in;

/* An entry of status.reservedFor (ResourceClaimConsumerReference). */
typedef struct dc_consumer_in {
    const char *api_group;  /* NULL: the core API group */
    const char *resource, *name, *uid;
} dc_consumer_in;

typedef struct dc_claim_in {
    const char *name;       /* metadata.name ("" when absent) */
    const char *namespace;  /* metadata.namespace, or NULL */
    const char *kind;       /* "ResourceClaim" or "ResourceClaimTemplate" (the claim is its
                             * spec.spec) */
    const char *file;
    uint32_t line;
    dc_request_in *reqs;
    uint32_t nreqs;
    dc_constraint_in *cons;
    uint32_t ncons;
    dc_claim_config_in *config;
    uint32_t nconfig;
    /* status (a ResourceClaim's; a template has none): allocated when status.allocation is
     * present; node_selector NULL when the allocation has none (usable on every node). */
    bool allocated;
    dc_result_in *results;
    uint32_t nresults;
    const dc_node_selector_in *node_selector;
    dc_consumer_in *reserved;
    uint32_t nreserved;
} dc_claim_in;

typedef struct dc_label_in {
    const char *key, *value;
} dc_label_in;

/* A Node: its name and labels (sorted by key), and what status.allocatable (a scenario's
 * node.allocatable) has more than 0 of: the resources device plugins provide, names sorted,
 * values the quantities as written. */
typedef struct dc_node_in {
    const char *name;
    dc_label_in *labels;
    uint32_t nlabels;
    dc_label_in *alloc;
    uint32_t nalloc;
    const char *file;
    uint32_t line;
} dc_node_in;

/* A name index: open addressing over the objects of one kind, slot = index + 1 (0: empty). Its
 * memory comes from the set's allocator (not the arena: it is rebuilt as it grows). */
typedef struct dc_name_index {
    uint32_t *slots;
    uint32_t cap;           /* a power of two, or 0 */
    uint32_t n;             /* objects indexed */
} dc_name_index;

/* Everything loaded. The slices and the notes about skipped objects are in `slices`; the rest
 * is in slices.arena too. Each array keeps the order of the input (files sorted by name, then
 * document order). Objects never move once loaded: a grown array leaves its old copy in the
 * arena, so pointers to loaded objects stay valid until dc_objects_free. */
typedef struct dc_objects {
    dc_slice_set slices;
    dc_class_in *classes;
    uint32_t nclasses, capclasses;
    dc_claim_in *claims;
    uint32_t nclaims, capclaims;
    dc_node_in *nodes;
    uint32_t nnodes, capnodes;
    /* By name: classes and nodes (a name given twice is rejected input: Kubernetes cannot
     * hold two), claims by namespace and name (the first of a name is found). */
    dc_name_index by_class, by_claim, by_node;
} dc_objects;

/* Which kinds a load accepts; objects of the other kinds are skipped with a note. */
enum {
    DC_OBJ_SLICE = 1u << 0,
    DC_OBJ_CLASS = 1u << 1,
    DC_OBJ_CLAIM = 1u << 2,  /* ResourceClaim and ResourceClaimTemplate */
    DC_OBJ_NODE = 1u << 3,
    DC_OBJ_RULE = 1u << 4    /* DeviceTaintRule (kept in the slice set's rules) */
};

void dc_objects_init(dc_objects *o, const dracel_alloc *a);
void dc_objects_free(dc_objects *o);

/**
 * Load a file or a directory (as dc_slices_load) keeping the objects of the kinds in @p kinds.
 * An object without `kind` is taken as the only kind in @p kinds when exactly one is given
 * (a ResourceSlice-shaped spec is always a ResourceSlice). All-or-nothing like the slice
 * loader: on error nothing of the call stays in @p o.
 */
dracel_status dc_objects_load(dc_objects *o, const char *path, unsigned kinds,
                              const dc_slices_limits *lim, char *err, size_t errcap) DC_WUR;
/** The same from a buffer (@p name in messages; JSON or YAML as dc_slices_load_buffer guesses). */
dracel_status dc_objects_load_buffer(dc_objects *o, const char *name, const char *buf, size_t len,
                                     unsigned kinds, const dc_slices_limits *lim, char *err,
                                     size_t errcap) DC_WUR;
/** The index of the object of kind @p kind (one DC_OBJ_* bit but DC_OBJ_SLICE) named @p name (in
 *  namespace @p ns for claims; NULL or "" is none), or UINT32_MAX. Constant time. */
uint32_t dc_objects_find(const dc_objects *o, unsigned kind, const char *ns, const char *name);

/** Index every object of @p o (after its arrays were filled by hand, as a cluster snapshot's
 *  set of classes is): DRACEL_EINPUT when a class or node name is there twice. */
dracel_status dc_objects_index(dc_objects *o, char *err, size_t errcap) DC_WUR;

/** Deep copies into @p a (policies keep what they use, so that the sets can change or go; a
 *  cluster keeps each object in a block of its own). Everything is copied, status included. */
dracel_status dc_class_copy(dc_arena *a, const dc_class_in *src, dc_class_in *dst) DC_WUR;
dracel_status dc_claim_copy(dc_arena *a, const dc_claim_in *src, dc_claim_in *dst) DC_WUR;
dracel_status dc_node_copy(dc_arena *a, const dc_node_in *src, dc_node_in *dst) DC_WUR;

/* FNV-1a, 64 bits, over the decoded fields of objects (not their text: the same object written
 * another way hashes the same). Strings hash with their NUL; NULL differs from "". */
typedef struct dc_hash {
    uint64_t h;
} dc_hash;
#define DC_HASH_INIT {0xcbf29ce484222325ull}
void dc_hash_bytes(dc_hash *h, const void *p, size_t n);
void dc_hash_str(dc_hash *h, const char *s);
void dc_hash_int(dc_hash *h, int64_t v);
/** What decides an allocation in a claim's spec (the part of a policy's version that a claim
 *  gives: requests, subrequests, selectors, tolerations, constraints, config). */
void dc_hash_claim_spec(dc_hash *h, const dc_claim_in *c);
/** What decides in a class (selectors, config). */
void dc_hash_class_spec(dc_hash *h, const dc_class_in *c);
/** Every decoded field of the claim's spec and status (not its name, file or line): equal
 *  exactly when the claim is unchanged, as far as a 64-bit hash can tell. */
uint64_t dc_claim_version(const dc_claim_in *c);
uint64_t dc_class_version(const dc_class_in *c);
/** Labels (the name is the node's key). */
uint64_t dc_node_version(const dc_node_in *n);

/* ---- The scenario of `dra-celc allocate` (docs/dra-celc.md):
 * {"kubernetesVersion": "1.36", "features": [...], "featureGates": {"DRAX": bool},
 *  "node": {"name": ..., "labels": {...}}, "classes": [DeviceClass],
 *  "slices": [ResourceSlice], "allocatedDevices": ["driver/pool/device", ...],
 *  "claims": [ResourceClaim]}
 * Objects inside need no apiVersion/kind (their place says what they are); a claim may also be
 * a ResourceClaimTemplate (kind given). Unknown top-level fields are an error. */

typedef enum dc_feature {
    DC_FEAT_ADMIN_ACCESS = 1u << 0,          /* AdminAccess, DRAAdminAccess */
    DC_FEAT_PRIORITIZED_LIST = 1u << 1,      /* PrioritizedList, DRAPrioritizedList */
    DC_FEAT_DEVICE_TAINTS = 1u << 2,         /* DeviceTaints, DRADeviceTaints */
    DC_FEAT_PARTITIONABLE = 1u << 3,         /* PartitionableDevices, DRAPartitionableDevices */
    DC_FEAT_CONSUMABLE_CAPACITY = 1u << 4,   /* ConsumableCapacity, DRAConsumableCapacity */
    DC_FEAT_BINDING_CONDITIONS = 1u << 5,    /* DeviceBindingConditions, DRADeviceBindingConditions */
    DC_FEAT_LIST_TYPE_ATTRIBUTES = 1u << 6,  /* ListTypeAttributes, DRAListTypeAttributes */
    DC_FEAT_EXTENDED_RESOURCE = 1u << 7,     /* ExtendedResource, DRAExtendedResource */
    DC_FEAT_DEVICE_STATUS = 1u << 8,         /* DeviceStatus, DRAResourceClaimDeviceStatus */
    DC_FEAT_DEVICE_TAINT_RULES = 1u << 9     /* DeviceTaintRules, DRADeviceTaintRules */
} dc_feature;

/* The gates on by default in the newest release dracel reproduces, 1.37 (src/k8s.c has every
 * release's; tests/unit/test_k8s.c checks they agree). */
#define DC_FEAT_DEFAULTS                                                                  \
    (DC_FEAT_ADMIN_ACCESS | DC_FEAT_PRIORITIZED_LIST | DC_FEAT_DEVICE_TAINTS |             \
     DC_FEAT_PARTITIONABLE | DC_FEAT_CONSUMABLE_CAPACITY | DC_FEAT_BINDING_CONDITIONS |    \
     DC_FEAT_EXTENDED_RESOURCE | DC_FEAT_DEVICE_STATUS | DC_FEAT_DEVICE_TAINT_RULES)

/** The feature named @p s (n bytes; with or without the "DRA" prefix, or its gate name), or 0
 *  if unknown (src/k8s.c). */
unsigned dc_feature_parse(const char *s, size_t n);
/** The allocator's name of one feature bit ("AdminAccess"), or NULL. */
const char *dc_feature_name(unsigned bit);

/* A device ID "driver/pool/device", split at its first and last '/'. */
typedef struct dc_device_id {
    const char *driver, *pool, *device;
} dc_device_id;

/* An allocated device with a shareID (consumable capacity): the device stays usable by
 * other claims, its counters are consumed once, and what it consumes of each capacity adds
 * up with its other shares (the scheduler's AllocatedSharedDeviceIDs and AggregatedCapacity). */
typedef struct dc_share_in {
    dc_device_id id;
    dc_capacity_in *caps;   /* consumedCapacity: names as written, quantity texts */
    uint32_t ncaps;
} dc_share_in;

/* A container's use of a request of the special claim (v1.ContainerExtendedResourceRequest). */
typedef struct dc_req_mapping {
    const char *container, *resource, *request;
} dc_req_mapping;

typedef struct dc_scenario {
    unsigned release;       /* kubernetesVersion's minor version (default the newest, 37) */
    unsigned features;      /* dc_feature bits: the gates that are on (`features`, else the
                               release's defaults; then `featureGates`) */
    bool listed;            /* `features` was given */
    unsigned gates_on, gates_off; /* what `featureGates` sets and clears */
    dc_node_in node;
    dc_device_id *allocated;
    uint32_t nallocated;
    dc_share_in *shares;    /* allocatedDevices entries with a shareID */
    uint32_t nshares;
    const char *file;
    bool extended_claim;    /* the last claim is the special claim of the pod's extended
                               resources (DRAExtendedResource) */
    dc_req_mapping *mappings; /* its request mappings, as the scheduler orders them */
    uint32_t nmappings;
} dc_scenario;

/**
 * Load a scenario file (JSON or YAML, one object) into @p o (classes, slices, claims, in input
 * order) and @p sc (which points into o's arena). An unknown feature name, a device ID without
 * two '/', a missing node name are rejected input (DRACEL_EINPUT, with file and line).
 */
dracel_status dc_scenario_load(dc_objects *o, dc_scenario *sc, const char *path,
                               const dc_slices_limits *lim, char *err, size_t errcap) DC_WUR;
/** The same from a buffer (@p name in messages). */
dracel_status dc_scenario_load_buffer(dc_objects *o, dc_scenario *sc, const char *name,
                                      const char *buf, size_t len, const dc_slices_limits *lim,
                                      char *err, size_t errcap) DC_WUR;

/* ---- Extended resources backed by DRA (DRAExtendedResource): the pod's containers as the
 * scheduler's DynamicResources plugin reads them (src/objects.c builds the special claim). */

/* A container's request of one resource (requests, defaulted from limits). */
typedef struct dc_creq_in {
    const char *name;
    dc_qty q;
} dc_creq_in;

typedef struct dc_ctr_in {
    const char *name;
    bool short_lived;       /* an init container that is not a sidecar (restartPolicy Always) */
    dc_creq_in *reqs;       /* sorted by name, as the scheduler sorts them for request indices */
    uint32_t nreqs;
} dc_ctr_in;

/* The class the scheduler maps resource res to (its ExtendedResourceCache): for the implicit
 * name deviceclass.resource.kubernetes.io/CLASS the class CLASS; else the newest class naming
 * it as extendedResourceName, the lower name on a tie; NULL when none. */
const dc_class_in *dc_ext_class(const dc_objects *classes, const char *res);
/* Does a node's allocatable (sorted by name, as dc_node_in.alloc) have more than 0 of res? */
bool dc_ext_allocatable(const dc_label_in *alloc, uint32_t nalloc, const char *res);
/* The distinct resources of ctr[0..nc) that need DRA: an extended name (or an implicit one)
 * some container asks for more than 0 of, that a class of classes backs, and (alloc not NULL)
 * that the node's allocatable has none of; sorted by name into out (room for the sum of the
 * containers' nreqs). Returns how many. */
uint32_t dc_ext_resources(const dc_objects *classes, const dc_ctr_in *ctr, uint32_t nc,
                          const dc_label_in *alloc, uint32_t nalloc, const char **out);

/* A Pod object read for its extended resources: metadata.namespace (NULL when none) and its
 * containers (init containers first). */
typedef struct dc_pod_in {
    const char *ns;
    dc_ctr_in *ctr;
    uint32_t nc;
} dc_pod_in;
/* Read one Pod (JSON or YAML: kind Pod and apiVersion v1 when given) from path, else from
 * buf (name in messages) into o's arena. DRACEL_EINPUT with "FILE:LINE: ..." in err. */
dracel_status dc_pod_load(dc_objects *o, const char *path, const char *name, const char *buf,
                          size_t len, dc_pod_in *out, char *err, size_t errcap) DC_WUR;

#endif
