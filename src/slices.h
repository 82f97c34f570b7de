/*
 * slices.h: ResourceSlice objects (resource.k8s.io/v1) as read from files, before they become a
 * device table. The loader (src/slices.c, src/load/) reads JSON (cJSON, with exact int64
 * numbers) and YAML (libyaml, with line numbers): one object, a `List` (`items`), a YAML
 * stream of documents, or a directory of such files (files sorted by name; objects of other
 * kinds skipped with a note; objects without apiVersion/kind but with a ResourceSlice-shaped
 * `spec` accepted). It validates
 * what Kubernetes' API validation would reject for the fields dracel uses, with a message
 * naming the file, the line (YAML and JSON), the object and the field.
 *
 * Everything lives in the set's arena; strings are NUL-terminated copies.
 * Change with: src/slices.c, src/table_build.c (which reads these), tests/unit/test_slices.c.
 */
#ifndef DC_SLICES_H
#define DC_SLICES_H

#include "arena.h"

typedef enum dc_attr_kind {
    DC_ATTR_INT,
    DC_ATTR_BOOL,
    DC_ATTR_STRING,
    DC_ATTR_VERSION,
    /* List-typed attributes (DRAListTypeAttributes, KEP-5491): `ints`, `bools`, `strings`,
     * `versions`, each a non-empty list. */
    DC_ATTR_INTS,
    DC_ATTR_BOOLS,
    DC_ATTR_STRINGS,
    DC_ATTR_VERSIONS
} dc_attr_kind;

#define DC_ATTR_IS_LIST(k) ((k) >= DC_ATTR_INTS)
/* The element kind of a list kind (DC_ATTR_INTS -> DC_ATTR_INT, ...). */
#define DC_ATTR_ELEM(k) ((dc_attr_kind)((k) - DC_ATTR_INTS))

typedef struct dc_attr_in {
    const char *name;       /* the QualifiedName as written: "model" or "dom.example.com/id" */
    dc_attr_kind kind;
    int64_t i;              /* INT: exact, even beyond 2^53 */
    bool b;                 /* BOOL */
    const char *s;          /* STRING, VERSION: the text */
    uint32_t slen;
    /* The lists (n values, at least 1): INTS in is, BOOLS in bs, STRINGS and VERSIONS in ss
     * with their lengths in slens. */
    uint32_t n;
    const int64_t *is;
    const bool *bs;
    const char *const *ss;
    const uint32_t *slens;
} dc_attr_in;

/* The values of one device's attributes, scalar ones counting one each
 * (ResourceSliceMaxAttributeValuesPerDevice). */
#define DC_ATTR_MAX_VALUES 48u

/* A capacity's requestPolicy (DRAConsumableCapacity): how a request for it is rounded and
 * checked. Quantity texts, validated; NULL when absent. */
typedef struct dc_cap_policy_in {
    const char *def;        /* default: what a request without this capacity consumes */
    const char **valid;     /* validValues, ascending; nvalid 0 when absent */
    uint32_t nvalid;
    const char *min, *max, *step; /* validRange (min given when the range is) */
} dc_cap_policy_in;

typedef struct dc_capacity_in {
    const char *name;       /* QualifiedName as written */
    const char *value;      /* the Quantity text (validated with dc_qty_parse) */
    const dc_cap_policy_in *policy; /* requestPolicy, or NULL */
} dc_capacity_in;

typedef struct dc_taint_in {
    const char *key;
    const char *value;      /* may be NULL */
    const char *effect;     /* "None", "NoSchedule", "NoExecute" */
} dc_taint_in;

typedef struct dc_counter_in {
    const char *name;
    const char *value;      /* Quantity text */
} dc_counter_in;

/* A counter set: sharedCounters[] of a slice, or consumesCounters[] of a device. */
typedef struct dc_counter_set_in {
    const char *name;       /* counterSet */
    dc_counter_in *counters;
    uint32_t n;
} dc_counter_set_in;

/* A node selector requirement (NodeSelectorRequirement): matchExpressions or matchFields. */
typedef struct dc_node_req_in {
    const char *key;
    const char *op;         /* In, NotIn, Exists, DoesNotExist, Gt, Lt */
    const char **values;
    uint32_t nvalues;
    bool field;             /* from matchFields (only metadata.name is meaningful) */
} dc_node_req_in;

/* One NodeSelectorTerm: all requirements ANDed. A node selector is terms ORed. */
typedef struct dc_node_term_in {
    dc_node_req_in *reqs;
    uint32_t n;
} dc_node_term_in;

typedef struct dc_node_selector_in {
    dc_node_term_in *terms;
    uint32_t n;
} dc_node_selector_in;

/* Where a device (or a whole slice) is available: exactly one of these is set. */
typedef struct dc_node_scope_in {
    const char *node_name;                 /* nodeName */
    bool all_nodes;                        /* allNodes: true */
    const dc_node_selector_in *selector;   /* nodeSelector */
    bool per_device;                       /* slice only: perDeviceNodeSelection: true */
} dc_node_scope_in;

typedef struct dc_device_in {
    const char *name;
    dc_attr_in *attrs;
    uint32_t nattrs;
    dc_capacity_in *caps;
    uint32_t ncaps;
    dc_taint_in *taints;
    uint32_t ntaints;
    dc_counter_set_in *consumes;           /* consumesCounters[] */
    uint32_t nconsumes;
    dc_node_scope_in node;                 /* per-device node selection (all unset otherwise) */
    bool allow_multiple;                   /* allowMultipleAllocations (false when unset) */
    const char **binding;                  /* bindingConditions (condition types) */
    uint32_t nbinding;
    const char **binding_failure;          /* bindingFailureConditions */
    uint32_t nbinding_failure;
    bool binds_to_node;                    /* bindsToNode */
    uint32_t line;                         /* where the device starts in its file (0: unknown) */
} dc_device_in;

typedef struct dc_slice_in {
    const char *file;       /* the file it came from */
    uint32_t line;          /* the line of the object in the file (0: unknown) */
    const char *name;       /* metadata.name ("" when absent) */
    const char *driver;
    const char *pool;
    int64_t generation;
    int64_t slice_count;    /* pool.resourceSliceCount */
    dc_node_scope_in node;
    dc_device_in *devices;
    uint32_t ndevices;
    dc_counter_set_in *shared_counters;    /* sharedCounters[] */
    uint32_t nshared;
} dc_slice_in;

/* A DeviceTaintRule (resource.k8s.io v1alpha3 to v1): its taint is added to every device its
 * selector picks, as the scheduler's slice tracker does (when DRADeviceTaintRules is on). */
typedef struct dc_taint_rule_in {
    const char *file;
    uint32_t line;
    const char *name;       /* metadata.name ("" when absent) */
    const char *driver, *pool, *device; /* spec.deviceSelector; NULL: any */
    dc_taint_in taint;      /* spec.taint */
} dc_taint_rule_in;

typedef struct dc_slice_set {
    dc_arena arena;
    dc_slice_in *slices;
    uint32_t n, cap;
    dc_taint_rule_in *rules; /* DeviceTaintRules, in input order (when keep_rules) */
    uint32_t nrules, caprules;
    bool keep_rules;         /* set by the caller: read DeviceTaintRules (a table's load);
                                else they are skipped with a note, as other kinds are */
    bool skip_slices;        /* set by the caller: skip ResourceSlices with a note (a cluster
                                asked for DeviceTaintRules alone) */
    /* Notes for stderr ("FILE: skipped object of kind Pod"), in the arena. */
    const char **notes;
    uint32_t nnotes, capnotes;
} dc_slice_set;

typedef struct dc_slices_limits {
    size_t max_file_bytes;       /* default 64 MiB per file */
    uint32_t max_objects;        /* default 1,000,000 */
    uint32_t max_depth;          /* JSON/YAML nesting; default 64 */
} dc_slices_limits;

void dc_slice_set_init(dc_slice_set *s, const dracel_alloc *a);
void dc_slice_set_free(dc_slice_set *s);

/**
 * Load a file or a directory (its regular files ending in .json, .yaml or .yml, sorted by name;
 * not recursive) into @p s, appending. On a rejected input, returns DRACEL_EINPUT and writes one
 * message to err (e.g. "slices/n1.yaml:12: ResourceSlice n1-gpu: spec.devices[3].attributes:
 * 33 attributes and capacities, more than 32"). DRACEL_ENOMEM on allocation failure; I/O errors
 * (unreadable file) are DRACEL_EINVAL with a message.
 */
dracel_status dc_slices_load(dc_slice_set *s, const char *path, const dc_slices_limits *lim,
                             char *err, size_t errcap) DC_WUR;

/** Load from a buffer (name is used in messages; format guessed: JSON if it starts with '{' or
 *  '[' after whitespace, else YAML). */
dracel_status dc_slices_load_buffer(dc_slice_set *s, const char *name, const char *buf,
                                    size_t len, const dc_slices_limits *lim, char *err,
                                    size_t errcap) DC_WUR;
/* The objects of buf as they name themselves, without decoding them (dracel_objects_keys). */
typedef int (*dc_object_key_fn)(void *ctx, const dracel_object_info *key);
dracel_status dc_objects_keys(const dracel_alloc *a, const char *name, const char *buf,
                              size_t len, dc_object_key_fn fn, void *ctx, char *err,
                              size_t errcap);

/* Added with the loader (src/slices.c). */

#define DC_SLICES_DEFAULT_MAX_FILE_BYTES ((size_t)64 << 20)
#define DC_SLICES_DEFAULT_MAX_OBJECTS 1000000u
#define DC_SLICES_DEFAULT_MAX_DEPTH 64u
/* A fixed cap on the values (scalars, objects, lists; object keys not counted) of one file,
 * checked before anything is built: it bounds the memory of pathological input such as
 * [0,0,0,...] (about 170 bytes per value). Real ResourceSlice files use 20-40 bytes per value. */
#define DC_SLICES_MAX_VALUES_PER_FILE (1u << 22)

/** Whether attribute @p k of @p d (of a device of @p driver) is hidden: a bare name ("model")
 *  when the device also has the same name qualified with its driver's domain
 *  ("gpu.example.com/model"). The qualified one is what CEL and constraints see, as in
 *  Kubernetes' allocator (lookupAttribute looks the full name up first); Kubernetes' CEL code
 *  leaves the choice to Go's map order, which differs from one evaluation to the next. */
bool dc_device_attr_hidden(const dc_device_in *d, uint32_t k, const char *driver);
/** The same for capacity @p k. */
bool dc_device_cap_hidden(const dc_device_in *d, uint32_t k, const char *driver);

/** Fill @p lim with the defaults. In a dc_slices_limits given to the loaders, a zero field also
 *  means its default, and a NULL pointer means all defaults. max_depth above 1000 (cJSON's
 *  compiled-in limit) acts as 1000. max_objects counts the objects of the whole set (loaded
 *  ResourceSlices plus skipped objects, i.e. s->n + s->nnotes). Exceeding a limit is
 *  DRACEL_EINPUT like any other rejected input.
 *
 *  Both loaders are all-or-nothing: on any error, s->n and s->nnotes are restored to their values
 *  before the call (the arena keeps what was allocated until dc_slice_set_free). Messages are
 *  "FILE:LINE: ResourceSlice NAME: FIELD.PATH: what is wrong" ("(unnamed)" when metadata.name is
 *  absent; LINE is 1-based, for JSON too), or "FILE:LINE: what is wrong" outside an object.
 *  Notes are "FILE:LINE: skipped object of kind KIND (NAME)" or
 *  "FILE:LINE: skipped object without kind (NAME)" (" (NAME)" only when there is a name). */
void dc_slices_limits_default(dc_slices_limits *lim);

#endif
