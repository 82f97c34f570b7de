/*
 * ldint.h: the insides of the object loader of src/slices.c, shared with src/objects.c (which
 * decodes the kinds other than ResourceSlice and the scenario of `dra-celc allocate`) and
 * src/json_val.c (one device and typed JSON values, read with the same parser and rules), and
 * the readers of src/lint.c and src/tierpolicy.c (TierPolicy files). Not
 * for any other file: the public interfaces are slices.h, claims.h and jsonval.h.
 *
 * One tree (dc_tnode/dc_tent) holds a parsed document of either format, with a line for every
 * value and key. Decoders walk it, keep the field path of what they look at in dc_ld.path
 * (dc_path_field/index/key/pop), and report the first problem with dc_ld_fail:
 * "FILE:LINE: KIND NAME: FIELD.PATH: message"
 * (KIND NAME while dc_ld.oname is set, the path while it is not empty). Everything a decoder keeps
 * is copied into the set's arena (dc_ld_sdup, dc_ld_szalloc); the tree goes with the document.
 *
 * Change with: src/slices.c, src/load/json.c, src/load/yaml.c, src/load/files.c, src/objects.c,
 * src/json_val.c.
 */
#ifndef DC_LDINT_H
#define DC_LDINT_H

#include "claims.h"

#define DC_LD_PATH_SEGS 24
#define DC_LD_QBUF 112
#define DC_LD_UNNAMED "(unnamed)"

/* ---- The tree */

/* DC_TN_RAW: a JSON object or array kept as its text (s, n), not built into a tree: the value
 * of an `opaque` entry's `parameters` nested deeper than the loader's limit (load/json.c). */
enum { DC_TN_NULL, DC_TN_BOOL, DC_TN_INT, DC_TN_FLOAT, DC_TN_STR, DC_TN_MAP, DC_TN_SEQ,
       DC_TN_RAW };

typedef struct dc_tent dc_tent;

typedef struct dc_tnode {
    uint8_t t;
    uint8_t b;      /* BOOL */
    uint8_t iok;    /* INT: i is the exact value; else a positive value above INT64_MAX */
    uint8_t plain;  /* a YAML plain scalar (its type came from YAML 1.1 resolution) */
    uint32_t line;  /* 1-based */
    uint32_t n;     /* scalars: length of s; MAP/SEQ: entries */
    uint32_t off;   /* where the value starts in its text (src/lint.c maps positions with it):
                       YAML, libyaml's mark (characters from the start, a BOM not counted;
                       the first character of the node: a quote, a block indicator, a tag or an
                       anchor); JSON, bytes from the start of the text after a BOM */
    int64_t i;      /* INT (when !iok and from YAML: the uint64 bits, if it fit) */
    const char *s;  /* scalar text as written; NUL-terminated except JSON numbers */
    dc_tent *kids;     /* MAP/SEQ */
} dc_tnode;

struct dc_tent {
    const char *k;  /* MAP: the key (NUL-terminated); SEQ: NULL */
    uint32_t klen, kline;
    dc_tnode v;
};

/* ---- Loader state */

enum { DC_PSEG_FIELD, DC_PSEG_INDEX, DC_PSEG_KEY };

typedef struct dc_pseg {
    const char *s;
    uint32_t n, idx;
    uint8_t kind;
} dc_pseg;

typedef struct dc_yframe {
    size_t self;    /* index in scr of the entry holding this container; SIZE_MAX: the root */
    size_t first;   /* index in scr of its first child */
    bool map, want_key;
} dc_yframe;

typedef struct dc_jtok {
    uint32_t off, len, line;
    bool raw;       /* a DC_TN_RAW value: cJSON sees "" in its place */
} dc_jtok;

/* An interned string of a load (names and values repeat across devices and files). */
typedef struct dc_istr {
    const char *s;
    uint32_t n, h;
} dc_istr;

typedef struct dc_ld dc_ld;

/* What to do with each document of a file (the root of a JSON file, each YAML document). */
typedef dracel_status (*dc_ld_doc_fn)(dc_ld *c, const dc_tnode *root);

struct dc_ld {
    dc_slice_set *s;
    const dracel_alloc *a;
    size_t max_bytes;
    uint32_t max_objects, max_depth;
    char *err;
    size_t errcap;
    const char *file;       /* for messages and dc_slice_in.file */
    dc_arena doc;           /* the tree of the current document/file */
    const char *okind;      /* the kind of the object being decoded, for messages */
    const char *oname;      /* inside an object: its name for messages; else NULL */
    dc_pseg path[DC_LD_PATH_SEGS];
    unsigned np;
    char q[4][DC_LD_QBUF];
    /* The objects loader (src/objects.c): o is NULL for dc_slices_load*. kinds: DC_OBJ_* to
     * keep. per_doc, when set, replaces the object dispatch for each document (the scenario),
     * with doc_ctx for its state. */
    dc_objects *o;
    unsigned kinds;
    dc_ld_doc_fn per_doc;
    void *doc_ctx;
    /* The column (1-based, code points) where a JSON or YAML syntax error was found; 0 when
     * the failure was not one (src/tierpolicy.c shows FILE:LINE:COL). */
    uint32_t fail_col;
    /* The object being decoded is resource.k8s.io/v1beta1 (set by api_version, cleared for
     * each object by dc_ld_api_reset): its requests carry the `exactly` fields themselves and
     * its devices wrap theirs in `basic`, which the decoders read as the API server converts
     * them to v1. */
    bool v1beta1;
    /* json_only: the text is JSON whatever it starts with. bare: messages without the
     * "FILE:LINE: " prefix (a value given on a command line). */
    bool json_only, bare;
    /* YAML builder */
    dc_tent *scr;
    size_t nscr, capscr;
    dc_yframe *fr;
    size_t nfr, capfr;
    dc_tnode root;
    /* JSON side tables */
    dc_jtok *jv;
    size_t njv, capjv;
    size_t nraw;                /* of jv, the raw ones */
    uint32_t *jk;
    size_t njk, capjk;
    /* interned strings of this load (names and values repeat across devices and files) */
    dc_istr *it;
    size_t nit, capit;
};

/* ---- The field path of messages */

static inline void dc_path_field(dc_ld *c, const char *name)
{
    if (c->np < DC_LD_PATH_SEGS)
        c->path[c->np] = (dc_pseg){name, 0, 0, DC_PSEG_FIELD};
    c->np++;
}

static inline void dc_path_index(dc_ld *c, uint32_t idx)
{
    if (c->np < DC_LD_PATH_SEGS)
        c->path[c->np] = (dc_pseg){NULL, 0, idx, DC_PSEG_INDEX};
    c->np++;
}

static inline void dc_path_key(dc_ld *c, const char *k, uint32_t n)
{
    if (c->np < DC_LD_PATH_SEGS)
        c->path[c->np] = (dc_pseg){k, n, 0, DC_PSEG_KEY};
    c->np++;
}

static inline void dc_path_pop(dc_ld *c)
{
    c->np--;
}

/* ---- Between the loader's files: src/slices.c (messages, numbers, decoding, the objects),
 * src/load/json.c and src/load/yaml.c (text into the tree), src/load/files.c (buffers, files,
 * directories, set-up). */

#define DC_LD_HARD_DEPTH 1000u /* cJSON's compiled-in nesting limit */

/* The 1-based line and column of byte off of buf. */
uint32_t dc_ld_line_at(const char *buf, size_t len, size_t off);
uint32_t dc_ld_col_at(const char *buf, size_t len, size_t off);
/* A decimal int64 exactly as written (no sign for positive values, no leading zeros). */
bool dc_ld_dec_i64(const char *s, size_t n, int64_t *out);
/* Is s (n bytes) one of the NULL-terminated list? */
bool dc_ld_eq_any(const char *s, size_t n, const char *const *list);
/* A YAML plain scalar typed by YAML 1.1 resolution (null, bool, int, float or string). */
dracel_status dc_ld_resolve_plain(dc_ld *c, dc_tnode *v) DC_WUR;
/* *p grown through a to hold need elements (doubling); false when memory runs out. */
bool dc_ld_grow(const dracel_alloc *a, void **p, size_t *cap, size_t need, size_t elem);
/* A failed read of path: "PATH: WHAT: strerror(e)". */
dracel_status dc_ld_io_fail(dc_ld *c, const char *path, const char *what, int e);
/* One document's root value: an object of a kind to decode, a List of them, or skipped. */
dracel_status dc_ld_dispatch(dc_ld *c, const dc_tnode *v, unsigned nest) DC_WUR;
/* Past DC_SLICES_MAX_VALUES_PER_FILE values in one file. */
dracel_status dc_ld_too_many_values(dc_ld *c, uint32_t line);
/* A whole text in each format, its documents dispatched as they are read. */
dracel_status dc_ld_load_json(dc_ld *c, const char *buf, size_t len) DC_WUR;
dracel_status dc_ld_load_yaml(dc_ld *c, const char *buf, size_t len) DC_WUR;

/* ---- Helpers of src/slices.c (see there) */

/* The set's allocator, limits (NULL: defaults) and message buffer; ld_free releases the
 * temporaries (never the set). */
void dc_ld_init(dc_ld *c, dc_slice_set *s, const dc_slices_limits *lim, char *err, size_t errcap);
void dc_ld_free(dc_ld *c);
/* A file, or a directory's files when dirs (else a directory is an I/O error). */
dracel_status dc_ld_load_path(dc_ld *c, const char *path, bool dirs) DC_WUR;
/* A buffer, name in messages (NULL: "<input>"). */
dracel_status dc_ld_load_buffer(dc_ld *c, const char *name, const char *buf, size_t len) DC_WUR;

/* The max_objects check (loaded objects and notes) before one more object. */
dracel_status dc_ld_room(dc_ld *c, uint32_t line) DC_WUR;

dracel_status dc_ld_fail(dc_ld *c, uint32_t line, const char *fmt, ...) DC_PRINTF(3, 4);
dracel_status dc_ld_oom(dc_ld *c);
/* s[0..n) for a message in slot 0..2 of c->q: quoted or not, escaped, cut after ~80 bytes. */
const char *dc_ld_qs(dc_ld *c, int slot, const char *s, size_t n, bool quote);
const char *dc_ld_tname(const dc_tnode *v);
dracel_status dc_ld_bad_value(dc_ld *c, const dc_tnode *v, const char *why);
dracel_status dc_ld_want(dc_ld *c, const dc_tnode *v, int t) DC_WUR;
dracel_status dc_ld_want_int(dc_ld *c, const dc_tnode *v, int64_t *out) DC_WUR;
/* out[i]: the entry of names[i] (at most 16 names), NULL when absent or null; a key given twice
 * is an error. */
dracel_status dc_ld_fields(dc_ld *c, const dc_tnode *m, const char *const *names, unsigned nn,
                           const dc_tent **out) DC_WUR;
/* A required, non-empty string field (e NULL: "required value" at mline). */
dracel_status dc_ld_req_str(dc_ld *c, const dc_tent *e, uint32_t mline, const dc_tnode **v) DC_WUR;
/* A copy in the set's arena (short strings interned). */
dracel_status dc_ld_sdup(dc_ld *c, const char *s, size_t n, const char **out) DC_WUR;
/* n zeroed elements in the set's arena; NULL when n is 0 or on failure. */
void *dc_ld_szalloc(dc_ld *c, size_t n, size_t elem);
bool dc_ld_str_is(const dc_tnode *v, const char *s);

/* Name checks: NULL when valid, else why not. */
const char *dc_ld_label_err(const char *s, size_t n);       /* DNS label */
const char *dc_ld_subdomain_err(const char *s, size_t n);   /* DNS subdomain */
const char *dc_ld_driver_err(const char *s, size_t n);      /* driver name */
const char *dc_ld_qualified_err(const char *s, size_t n);   /* attribute name */
const char *dc_ld_label_key_err(const char *s, size_t n);   /* label key */
const char *dc_ld_label_value_err(const char *s, size_t n); /* label value */
const char *dc_ld_pool_err(const char *s, size_t n);        /* pool name */

/* The apiVersion of a resource.k8s.io object (v1, v1beta2, or v1beta1, which sets c->v1beta1;
 * dc_ld_api_reset clears it for an object without apiVersion). */
dracel_status dc_ld_api_version(dc_ld *c, const dc_tnode *av) DC_WUR;
void dc_ld_api_reset(dc_ld *c);
/* Decode a ResourceSlice (obj: the object; meta, spec: its fields, NULL when absent). */
dracel_status dc_ld_slice(dc_ld *c, const dc_tnode *obj, const dc_tent *meta,
                          const dc_tent *spec) DC_WUR;
/* A Quantity value (a string, or a YAML/JSON number as Kubernetes reads it), validated. */
dracel_status dc_ld_quantity(dc_ld *c, const dc_tnode *v, const char **out) DC_WUR;
/* A DeviceTaintRule into c->s->rules. */
dracel_status dc_ld_taint_rule(dc_ld *c, const dc_tnode *obj, const dc_tent *meta,
                               const dc_tent *spec) DC_WUR;
/* A core/v1 NodeSelector (m: the object; its path pushed), validated as ValidateNodeSelector
 * does; one_term: exactly one term (a ResourceSlice's). */
dracel_status dc_ld_node_selector(dc_ld *c, const dc_tnode *m, bool one_term,
                                  const dc_node_selector_in **out) DC_WUR;
/* Decode one device on its own (`eval --device`): an entry of spec.devices, validated as the
 * slice loader validates one, except that `name` may be absent and the node fields
 * (nodeName, nodeSelector, allNodes: per-device node selection) are checked when present. */
dracel_status dc_ld_device_alone(dc_ld *c, const dc_tnode *m, dc_device_in *d) DC_WUR;

/* ---- Of src/objects.c */

/* An object of kind kbit (one DC_OBJ_* but DC_OBJ_SLICE) for dc_objects_load: f are its
 * apiVersion, kind, metadata, spec (NULL when absent); kind is NULL when it has none. */
dracel_status dc_ld_object(dc_ld *c, const dc_tnode *obj, unsigned kbit, const dc_tnode *kind,
                           const dc_tent *const *f) DC_WUR;

/* ---- The special claim of a pod's extended resources (src/objects.c) */

typedef struct dc_ext_claim_out {
    dc_request_in *reqs;        /* sorted by name */
    uint32_t nreqs;
    dc_req_mapping *maps;       /* as the scheduler orders them */
    uint32_t nmaps, capmaps;
} dc_ext_claim_out;

/* The requests of the special claim for res[0..nres) (dc_ext_resources) that the scheduler's
 * createRequestsAndMappings builds from the containers ctr[0..nc), and their request mappings,
 * in c's set's arena. */
dracel_status dc_ext_claim(dc_ld *c, const dc_objects *classes, const dc_ctr_in *ctr,
                           uint32_t nc, const char *const *res, uint32_t nres,
                           dc_ext_claim_out *out) DC_WUR;

#endif
