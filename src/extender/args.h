/*
 * args.h: what kube-scheduler sends an extender, read (src/extender/args.c), and what it reads
 * back, written. The types are k8s.io/kube-scheduler/extender/v1's, which have no json tags: the
 * keys are Go field names ("Pod", "Nodes", "NodeNames", "FailedNodes", ...), matched
 * case-insensitively as Go's encoding/json matches them, the last of duplicate keys winning; the
 * Pod and Node objects inside are ordinary Kubernetes JSON.
 *
 * ExtenderArgs: {"Pod": v1.Pod, "Nodes": v1.NodeList | null, "NodeNames": [string] | null}.
 * Nodes is set when the scheduler's extender entry has nodeCacheCapable: false (then the answer
 * must carry the Node objects that pass, in "Nodes"), NodeNames when it is true.
 */
#ifndef EXT_ARGS_H
#define EXT_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "dracel.h"
#include "json.h"

/* A pod's claim reference (spec.resourceClaims[]), resolved as Kubernetes resolves it. */
typedef struct pod_claim {
    const char *entry;           /* its name in the pod */
    const char *claim;           /* the ResourceClaim's name; NULL when none is known */
    bool from_template;          /* resourceClaimTemplateName was given */
    bool not_needed;             /* a template entry whose status says no claim is needed */
} pod_claim;

typedef struct ext_pod {
    const char *ns, *name, *uid;
    dracel_label *labels;        /* metadata.labels (tier policies find tenants by them) */
    size_t nlabels;
    pod_claim *claims;
    size_t nclaims;
    dracel_container *containers; /* spec.initContainers, then spec.containers (extended
                                     resources backed by DRA read their resources) */
    size_t ncontainers;
    dracel_pod *xres;            /* those containers, when a resource of theirs has a domain
                                    (an extended resource may be among them), else NULL; owned
                                    by the args */
} ext_pod;

typedef struct ext_node {
    const char *name;
    dracel_label *labels;        /* Nodes form: its labels; NodeNames form: none (NULL) */
    size_t nlabels;
    dracel_resource *alloc;      /* Nodes form: status.allocatable; NodeNames form: none */
    size_t nalloc;
    size_t start, end;           /* Nodes form: the item's exact text in the body */
} ext_node;

typedef struct ext_args {
    ext_pod pod;
    bool nodes_form;             /* the nodes came as "Nodes" (full objects) */
    ext_node *nodes;
    size_t nnodes;
    const char *body;            /* the request body the spans point into */
    void *mem;                   /* everything above (arena) */
    size_t mem_used;             /* its bytes */
    double deadline;             /* the request's end of budget (ext_now's clock; 0: none),
                                    copied from the limits: decide computes until then */
} ext_args;

typedef struct ext_limits {
    unsigned max_depth;          /* JSON nesting (0: 64) */
    size_t max_nodes;            /* nodes in one request (0: 100000) */
    size_t max_memory;           /* bytes the args may take (0: EXT_MAX_MEMORY) */
    double deadline;             /* reading ends by then (ext_now's clock; 0: no limit) */
} ext_limits;

#define EXT_MAX_MEMORY ((size_t)256 << 20)

/* What ext_args_parse and ext_pod_parse return besides 0. */
enum {
    EXT_EBAD = -1,               /* not an ExtenderArgs (or a Pod): 400 */
    EXT_ENOMEM = -2,             /* malloc failed: 500 */
    EXT_ETOOBIG = -3,            /* the args would take more than max_memory: 413 */
    EXT_ELATE = -4               /* the deadline passed while reading: 503 */
};

/**
 * Read an ExtenderArgs body. Returns 0, or EXT_EBAD for a body that is not one (message in err:
 * "NodeNames[3]: expected a string"), EXT_ENOMEM when memory runs out, EXT_ETOOBIG past
 * lim->max_memory, EXT_ELATE past lim->deadline (each with its message in err). Every byte
 * the args hold is in one arena, freed by ext_args_free; reading is linear in the body. The
 * body must stay alive as long as the args (spans point into it).
 */
int ext_args_parse(const char *body, size_t len, const ext_limits *lim, ext_args *out,
                   char *err, size_t errcap);
void ext_args_free(ext_args *a);

/** Read just a Pod object (the body of POST /explain may be a Pod). Same contract. */
int ext_pod_parse(const char *body, size_t len, const ext_limits *lim, ext_args *out, char *err,
                  size_t errcap);

#endif
