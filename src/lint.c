/*
 * lint.c: `dra-celc lint` as a library (dracel_lint_* in dracel.h; the rules: docs/lint.md).
 *
 * dracel_lint_add reads one file with src/slices.c's loader, document by document (per_doc):
 * each DeviceClass, ResourceClaim and ResourceClaimTemplate is decoded by src/objects.c as the
 * API server validates it (an object it rejects becomes an invalid-object finding), and the
 * tree of the document gives where each selector, class name and count is in the file
 * (dc_tnode.off). dracel_lint_run then applies the rules: each selector on its own
 * (src/lint_expr.c, once per distinct text), each selector list (a class's; a tier's, after its
 * class's: selectors are ANDed and evaluated in that order), the tiers of a firstAvailable
 * request against each other, and with --slices the fleet: a selector list over every device
 * (the vector VM, as `eval --slices` does).
 *
 * Positions: a finding inside a selector is a byte offset into the expression, mapped back to
 * the file by src/srcmap.c; a finding about an object points at the value it is about.
 *
 * Change with: lint.h, src/lint_expr.c, src/srcmap.c, include/dracel.h, docs/lint.md,
 * tests/lint/.
 */
#include "lint.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "apiint.h"
#include "ldint.h"
#include "placeint.h"
#include "table.h"

#define LINT_ANNOTATION "dracel.dev/lint-disable"
#define MAX_SELECTORS 32u    /* DeviceSelectorsMaxSize */
#define MAX_REQUESTS 32u     /* DeviceRequestsMaxSize */
#define MAX_SUBREQUESTS 8u   /* FirstAvailableDeviceRequestMaxSize */
#define MAX_EXPR_LEN 10240u  /* CELSelectorExpressionMaxLength */
#define MAX_RESULTS 32u      /* AllocationResultsMaxSize: the devices of one claim */
#define NONE UINT32_MAX

/* ---------------------------------------------------------------------------------------------
 * Rules
 */

static const struct {
    const char *id;
    dracel_severity sev;    /* the usual one: some findings of a rule have another */
} RULES[DC_LR__COUNT] = {
#define DC_LR_ROW(id, name, sev) [DC_LR_##id] = {name, DRACEL_SEV_##sev},
    DC_LINT_RULES(DC_LR_ROW)
#undef DC_LR_ROW
};

/* Each rule's summary and help (docs/lint.md has the examples). */
static const char *const SUMMARY[DC_LR__COUNT][2] = {
    [DC_LR_SYNTAX] = {"The selector does not parse.",
                      "Kubernetes' API validation rejects a selector that is not valid CEL; the "
                      "message and position are cel-go's."},
    [DC_LR_TYPE] = {"The selector does not type-check.",
                    "Kubernetes' API validation rejects a selector with a type error (an "
                    "undeclared name, no matching overload)."},
    [DC_LR_UNSUPPORTED] = {"The selector uses a CEL feature device selectors cannot use.",
                           "Timestamps, durations, URLs, IP addresses and the other libraries of "
                           "other Kubernetes CEL environments are not declared for selectors."},
    [DC_LR_NONBOOL] = {"The selector's result is not a bool.",
                       "A selector must evaluate to bool: another type is rejected, and a dyn "
                       "result that is not a bool on a device is an error at scheduling time."},
    [DC_LR_COST] = {"The estimated cost is over Kubernetes' limit.",
                    "The API server estimates the worst-case cost of a selector with the maximum "
                    "sizes of a device's attributes and rejects one above 1,000,000."},
    [DC_LR_API_LIMIT] = {"More requests, subrequests or selectors than Kubernetes accepts.",
                         "resource.k8s.io/v1 accepts at most 32 requests, 8 firstAvailable "
                         "subrequests, 32 selectors per list and 10 KiB per expression."},
    [DC_LR_INVALID] = {"The object or the file is rejected as Kubernetes' API server would.",
                       "The YAML or JSON does not parse, or a field is missing or invalid."},
    [DC_LR_CONTRADICTION] = {"Selectors of one list can never all hold.",
                             "Selectors (and a class's selectors) are ANDed: two conditions on "
                             "one value that no value meets make the request unsatisfiable. For "
                             "alternatives use || in one selector, or firstAvailable."},
    [DC_LR_UNGUARDED] = {"An attribute or capacity is read without has() or optional syntax; "
                         "a note behind a driver check.",
                         "On a device without it the read is an error, and Kubernetes then fails "
                         "the whole pod's allocation, not just that device. Guard it with has(), "
                         "`in`, or .?name.orValue(default). Behind a check of device.driver it is "
                         "a note, and no finding when the driver publishes it on every device."},
    [DC_LR_RUNTIME] = {"The selector is an error on devices of the fleet (--slices).",
                       "Evaluated over the fleet, the selector gives an error on devices that "
                       "reach it: on such a device Kubernetes aborts the pod's allocation."},
    [DC_LR_TIER_DUP] = {"Two firstAvailable subrequests are the same.",
                        "A later subrequest identical to an earlier one is never chosen."},
    [DC_LR_TIER_SUB] = {"A firstAvailable subrequest can never be chosen.",
                        "An earlier subrequest accepts every device the later one accepts (and "
                        "needs no more of them), so the later one is tried only when it must "
                        "fail too."},
    [DC_LR_NO_MATCH] = {"A request or subrequest matches no device of the fleet (--slices); an "
                        "error for an `exactly` request.",
                        "No device of --slices passes its class's selectors and its own."},
    [DC_LR_COUNT] = {"A count above what any node has (--slices); an error for an `exactly` "
                     "request.",
                     "No node of --slices has that many devices that the selectors accept."},
    [DC_LR_CLAIM_LIMIT] = {"A claim asks for more than 32 devices.",
                           "Kubernetes' allocator gives one claim at most 32 devices "
                           "(AllocationResultsMaxSize)."},
    [DC_LR_VERSION_STRING] = {"A version attribute is compared with a string.",
                              "Version attributes are semver values: attr == \"1.2.3\" is an "
                              "error and \"1.2.3\" == attr is false. Compare with semver()."},
    [DC_LR_QTY_COMPARE] = {"A quantity is compared with a number or a string.",
                           "Capacities are Quantity values: compare them with compareTo(), "
                           "isGreaterThan() or isLessThan() and quantity(\"40Gi\")."},
    [DC_LR_REGEX_INVALID] = {"A regular expression does not compile.",
                             "Kubernetes validates constant patterns of matches() (Go's RE2 "
                             "syntax); a pattern built at run time fails on every device."},
    [DC_LR_REGEX_ANCHOR] = {"A pattern is unanchored by mistake.",
                            "^ and $ bind to the first and last alternatives only; a pattern "
                            "without metacharacters matches any string containing it."},
    [DC_LR_REGEX_CONST] = {"A pattern is built on every device where a constant would do.",
                           "A pattern assembled from constants is compiled at run time and not "
                           "validated when the selector is created: write one literal."},
    [DC_LR_CLASS_REQUIRED] = {"A request has no deviceClassName.",
                              "resource.k8s.io/v1 requires deviceClassName in `exactly` and in "
                              "every firstAvailable subrequest."},
    [DC_LR_CLASS_UNKNOWN] = {"A request names a DeviceClass that does not exist (--classes).",
                             "The allocator fails the pod's scheduling with \"device class not "
                             "found\"."},
    [DC_LR_ANNOTATION] = {"A lint-disable annotation or comment names an unknown rule.",
                          "The value of dracel.dev/lint-disable is a comma-separated list of "
                          "rule ids, or `all`."},
    [DC_LR_GATED] = {"The selector calls a function only a feature gate declares.",
                     "includes() is declared for new or changed selectors only when the API "
                     "server has DRAListTypeAttributes on; stored selectors keep working."},
    [DC_LR_POLICY_KEY] = {"A TierPolicy key names no request, subrequest or DeviceClass.",
                          "A cap on a key that no allocation counts toward limits nothing: the "
                          "tenant is not capped. Keys are checked against the claims and "
                          "classes linted (and --classes)."},
    [DC_LR_POLICY_SIZE] = {"A TierPolicy cap or idle reserve is above the tier's size (--slices).",
                           "A cap above the devices the tier has never refuses anything; an idle "
                           "reserve above it leaves nothing any tenant may borrow."},
    [DC_LR_POLICY_DEFAULT] = {"A claim's namespace falls to a TierPolicy's default tenant.",
                              "No tenant of the policy names the namespace: its pods count as the "
                              "default tenant's (unless a tenant's podLabel matches them)."},
    [DC_LR_DEPRECATED] = {"The object is written in a deprecated resource.k8s.io version.",
                          "resource.k8s.io/v1beta1 (deprecated from Kubernetes 1.35, not served "
                          "from 1.38) and v1beta2 (deprecated from 1.36, not served from 1.39) "
                          "are read as the API server converts them to v1; once per file."},
    [DC_LR_UNKNOWN_FIELD] = {"A field the object's schema does not have.",
                             "kubectl's default field validation (strict) refuses the object; "
                             "with --validate=warn the API server drops the field with a "
                             "warning. Usually a typo or a field at the wrong indentation."},
};

int dc_lint_rule_find(const char *s, size_t n)
{
    for (int i = 0; i < DC_LR__COUNT; i++)
        if (strlen(RULES[i].id) == n && memcmp(RULES[i].id, s, n) == 0)
            return i;
    return -1;
}

size_t dracel_lint_rules(void)
{
    return DC_LR__COUNT;
}

dracel_status dracel_lint_rule_size(size_t i, dracel_lint_rule *out, size_t size)
{
    if (!out || i >= DC_LR__COUNT)
        return DRACEL_EINVAL;
    dracel_lint_rule r = {RULES[i].id, RULES[i].sev, SUMMARY[i][0], SUMMARY[i][1]};
    return dc_struct_write(out, size, &r, sizeof r, sizeof r);
}

/* ---------------------------------------------------------------------------------------------
 * The state
 */

typedef struct lfile {
    const char *name;
    char *text;
    size_t len;
    bool json, ascii;
    uint32_t *lines;        /* byte offsets of line starts (built when first needed) */
    uint32_t nlines;
    uint64_t off;           /* rules switched off for the file */
    uint32_t cur_char;      /* a cursor for YAML marks: character cur_char is at cur_byte */
    size_t cur_byte;
    bool policy;            /* holds a TierPolicy document: loaded whole once read */
    bool deprecated;        /* its deprecated-version note is out */
} lfile;

typedef struct lsel {
    uint32_t file;
    uint32_t at;            /* the byte where the scalar's node starts */
    const char *expr;
    uint32_t len;
    dc_lexpr *x;
    uint32_t *map;
    bool mapped;
} lsel;

typedef struct ltier {
    const dc_subreq_in *sub;
    const char *label;      /* "request gpu" or "subrequest gpu/h100" */
    lsel *sels;
    uint32_t nsels;
    uint32_t at, at_class, at_count, at_name;
} ltier;

typedef struct lreq {
    const dc_request_in *q;
    ltier *tiers;
    uint32_t ntiers;
    uint32_t at;
} lreq;

typedef struct lobj {
    unsigned kind;          /* DC_OBJ_CLASS or DC_OBJ_CLAIM */
    const char *kname;      /* its kind */
    const char *name;
    uint32_t file, at;
    uint64_t off;
    const dc_class_in *cl;
    lsel *sels;
    uint32_t nsels;
    const dc_claim_in *cm;
    lreq *reqs;
    uint32_t nreqs;
    uint32_t at_requests;
    uint32_t at_ns;         /* metadata.namespace, or NONE */
} lobj;

/* A TierPolicy's key, resolved once against the claims and classes linted. */
typedef struct lpkey {
    const char *key;
    bool done;
    bool request, klass;    /* names a request (or subrequest) of a claim; a DeviceClass */
    bool sized;             /* size is known (--slices) */
    uint32_t size;          /* the largest over the claims that have the request */
    const char *why;        /* why the key names nothing, when it does not */
} lpkey;

/* A cap or an idle reserve of a TierPolicy, where it is written. */
typedef struct lpent {
    uint32_t key;           /* in lpol.keys; NONE: the policy's own idleReserve */
    const char *tenant;     /* the tenant whose cap it is; NULL: a reserve */
    int64_t count;          /* a count of devices; -1: a percent or fair */
    uint32_t at;            /* the key (the value for the policy's idleReserve) */
} lpent;

typedef struct lpol {
    const char *name;
    uint32_t file;
    uint64_t off;           /* its lint-disable annotation */
    bool ok;                /* dra-extender's --policy would load it */
    lpkey *keys;
    uint32_t nkeys, capkeys;
    lpent *e;
    uint32_t n, cap;
    const char **ns;        /* the namespaces its tenants name */
    uint32_t nns, capns;
    bool by_label;          /* a tenant is chosen by podLabel */
    const char *dflt;       /* the default tenant's name */
} lpol;

typedef struct lfind {
    uint32_t file, at, line, col;
    dracel_severity sev;
    dc_lint_rule rule;
    const char *msg, *hint, *source;
    const char *rfile, *rmsg;
    uint32_t rline, rcol;
    uint32_t seq;
} lfind;

struct dracel_lint {
    dracel_config cfg;
    dracel_alloc alloc;
    dc_arena arena;
    dc_objects objs;
    dc_env *env;
    dracel_env *denv;       /* for --slices */
    const dracel_table *table;
    const dracel_objects *classes;
    uint64_t off;           /* switched off on the command line */
    lfile *files;
    uint32_t nfiles, capfiles;
    lobj *obj;
    uint32_t nobj, capobj;
    lpol *pols;
    uint32_t npols, cappols;
    dracel_field_validation fields;
    dc_lpub *pubs;          /* the rows of PublishedAttributes files */
    uint32_t npubs, cappubs;
    dc_lexpr **ht;
    uint32_t htcap, nexpr;
    lfind *finds;
    uint32_t nfinds, capfinds;
    const char **notes;
    uint32_t nnotes, capnotes;
    bool ran, oom;
    /* fleet side tables, made when first needed */
    uint32_t *row_node;     /* per row: node index, or NONE (not tied to one node) */
    uint32_t nnodes;
    bool nodes_done;
};

static bool grow(dracel_lint *l, void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap)
        return true;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *p = dc_arena_alloc(&l->arena, (size_t)nc * elem);
    if (!p) {
        l->oom = true;
        return false;
    }
    if (n)
        memcpy(p, *arr, (size_t)n * elem);
    *arr = p;
    *cap = nc;
    return true;
}

static uint64_t rule_bit(dc_lint_rule r)
{
    return (uint64_t)1 << r;
}

/* "rule,rule" or "all" into a mask; unknown ids are reported through *bad (the first). */
static uint64_t parse_rules(const char *s, size_t n, const char **bad, size_t *badlen)
{
    uint64_t m = 0;
    *bad = NULL;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ',' || s[i] == ' ' || s[i] == '\t'))
            i++;
        size_t j = i;
        while (j < n && s[j] != ',' && s[j] != ' ' && s[j] != '\t')
            j++;
        if (j > i) {
            int r = dc_lint_rule_find(s + i, j - i);
            if (j - i == 3 && memcmp(s + i, "all", 3) == 0)
                m = ~(uint64_t)0;
            else if (r >= 0)
                m |= rule_bit((dc_lint_rule)r);
            else if (!*bad) {
                *bad = s + i;
                *badlen = j - i;
            }
        }
        i = j;
    }
    return m;
}

void dracel_lint_opts_init_size(dracel_lint_opts *o, size_t size)
{
    if (!o || size < sizeof(size_t))
        return;
    memset(o, 0, size);
    o->size = size;
}

#define LINT_OPTS_V1 (offsetof(dracel_lint_opts, disable) + sizeof(const char *))

dracel_status dracel_lint_new(const dracel_config *cfg, const dracel_lint_opts *in,
                              dracel_lint **out, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!out)
        return DRACEL_EINVAL;
    *out = NULL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    dracel_lint_opts o;
    dracel_lint_opts_init(&o);
    if (in)
        DC_TRY(dc_struct_read(&o, sizeof o, in, in->size, LINT_OPTS_V1));
    if ((unsigned)o.fields > DRACEL_FIELDS_IGNORE) {
        if (err && errcap)
            snprintf(err, errcap, "no field validation %d (strict, warn or ignore)", (int)o.fields);
        return DRACEL_EINVAL;
    }
    uint64_t off = 0;
    if (o.disable) {
        const char *bad;
        size_t bl = 0;
        off = parse_rules(o.disable, strlen(o.disable), &bad, &bl);
        if (bad) {
            if (err && errcap)
                snprintf(err, errcap, "no lint rule '%.*s' (dra-celc lint --list-rules)",
                         (int)(bl > 60 ? 60 : bl), bad);
            return DRACEL_EINVAL;
        }
    }
    const dracel_alloc *a = dc_alloc_of(&c);
    dracel_lint *l = dc_malloc(a, sizeof *l);
    if (!l)
        return DRACEL_ENOMEM;
    memset(l, 0, sizeof *l);
    l->cfg = c;
    l->alloc = *a;
    l->cfg.alloc = &l->alloc;
    dc_arena_init(&l->arena, &l->alloc);
    dc_objects_init(&l->objs, &l->alloc);
    l->table = o.slices;
    l->classes = o.classes;
    l->off = off;
    l->fields = o.fields;
    l->env = dc_env_new(&l->alloc, DC_ENV_DRA);
    dracel_status st = l->env ? DRACEL_OK : DRACEL_ENOMEM;
    if (st == DRACEL_OK && l->table)
        st = dracel_env_new(&l->cfg, DRACEL_ENV_DRA, &l->denv);
    if (st != DRACEL_OK) {
        dracel_lint_free(l);
        return st;
    }
    *out = l;
    return DRACEL_OK;
}

void dracel_lint_free(dracel_lint *l)
{
    if (!l)
        return;
    dracel_alloc a = l->alloc;
    for (uint32_t i = 0; i < l->nfiles; i++)
        dc_free(&a, l->files[i].text, l->files[i].len + 1);
    dc_env_free(l->env);
    dracel_env_free(l->denv);
    dc_objects_free(&l->objs);
    dc_arena_free(&l->arena);
    dc_free(&a, l, sizeof *l);
}

/* ---------------------------------------------------------------------------------------------
 * Positions
 */

/* The byte of a node's mark. */
static uint32_t node_at(lfile *f, uint32_t off)
{
    size_t bom = f->len >= 3 && memcmp(f->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    if (f->json || f->ascii)
        return (uint32_t)(bom + off < f->len ? bom + off : f->len);
    if (off < f->cur_char || f->cur_byte < bom) {
        f->cur_char = 0;
        f->cur_byte = bom;
    }
    size_t p = f->cur_byte;
    for (uint32_t i = f->cur_char; i < off && p < f->len; i++) {
        p++;
        while (p < f->len && ((unsigned char)f->text[p] & 0xC0) == 0x80)
            p++;
    }
    f->cur_char = off;
    f->cur_byte = p;
    return (uint32_t)p;
}

static bool build_lines(dracel_lint *l, lfile *f)
{
    if (f->lines)
        return true;
    uint32_t n = 1;
    for (size_t i = 0; i < f->len; i++)
        n += f->text[i] == '\n';
    f->lines = dc_arena_alloc(&l->arena, (size_t)n * sizeof *f->lines);
    if (!f->lines)
        return l->oom = true, false;
    f->lines[0] = 0;
    uint32_t k = 1;
    for (size_t i = 0; i < f->len; i++)
        if (f->text[i] == '\n')
            f->lines[k++] = (uint32_t)(i + 1);
    f->nlines = n;
    return true;
}

/* Line and column (code points) of byte `at`, and the line's text. */
static void position(dracel_lint *l, lfile *f, uint32_t at, uint32_t *line, uint32_t *col,
                     const char **src)
{
    *line = 1;
    *col = 1;
    if (src)
        *src = NULL;
    if (!build_lines(l, f))
        return;
    if (at > f->len)
        at = (uint32_t)f->len;
    uint32_t lo = 0, hi = f->nlines;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (f->lines[mid] <= at)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t ls = f->lines[lo];
    *line = lo + 1;
    /* the line as shown ends before its line break and a CR before it (or the file's end): a
     * place past that (the end of a file that ends in a CR) is the column after it */
    size_t le = ls;
    while (le < f->len && f->text[le] != '\n')
        le++;
    if (le > ls && f->text[le - 1] == '\r')
        le--;
    if (at > le)
        at = (uint32_t)le;
    uint32_t c = 1;
    for (uint32_t i = ls; i < at; i++)
        if (((unsigned char)f->text[i] & 0xC0) != 0x80)
            c++;
    *col = c;
    if (src) {
        *src = dc_arena_strndup(&l->arena, f->text + ls, le - ls);
        if (!*src)
            l->oom = true;
    }
}

/* The byte of the first non-blank character of a line (1-based). */
static uint32_t line_at(dracel_lint *l, lfile *f, uint32_t line)
{
    if (!build_lines(l, f) || line == 0)
        return 0;
    if (line > f->nlines)
        line = f->nlines;
    uint32_t p = f->lines[line - 1];
    while (p < f->len && (f->text[p] == ' ' || f->text[p] == '\t'))
        p++;
    return p;
}

/* Where byte `off` of a selector's expression is in its file. */
static uint32_t sel_at(dracel_lint *l, lsel *s, uint32_t off)
{
    lfile *f = &l->files[s->file];
    if (!s->mapped) {
        s->mapped = true;
        s->map = dc_srcmap(&l->arena, f->text, f->len, s->at, f->json, s->expr, s->len);
    }
    if (!s->map)
        return s->at;
    return s->map[off < s->len ? off : s->len];
}

/* ---------------------------------------------------------------------------------------------
 * Findings
 */

typedef struct rel {
    const char *file;
    uint32_t line, col;
    const char *msg;
} rel;

static void vemit(dracel_lint *l, uint64_t off, uint32_t file, uint32_t at, dc_lint_rule rule,
                  dracel_severity sev, const char *hint, const rel *r, const char *fmt, va_list ap)
{
    lfile *f = &l->files[file];
    if (((l->off | f->off | off) & rule_bit(rule)) || l->oom)
        return;
    if (!grow(l, (void **)&l->finds, &l->capfinds, l->nfinds, sizeof *l->finds))
        return;
    lfind *x = &l->finds[l->nfinds];
    memset(x, 0, sizeof *x);
    x->file = file;
    x->at = at;
    x->sev = sev;
    x->rule = rule;
    x->seq = l->nfinds;
    position(l, f, at, &x->line, &x->col, &x->source);
    x->msg = dc_arena_vprintf(&l->arena, fmt, ap);
    x->hint = hint ? dc_arena_strndup(&l->arena, hint, strlen(hint)) : NULL;
    if (r && r->file) {
        x->rfile = r->file;
        x->rline = r->line;
        x->rcol = r->col;
        x->rmsg = r->msg;
    }
    if (!x->msg || (hint && !x->hint)) {
        l->oom = true;
        return;
    }
    l->nfinds++;
}

static void emit(dracel_lint *l, uint64_t off, uint32_t file, uint32_t at, dc_lint_rule rule,
                 dracel_severity sev, const char *hint, const rel *r, const char *fmt, ...)
    DC_PRINTF(9, 10);

static void emit(dracel_lint *l, uint64_t off, uint32_t file, uint32_t at, dc_lint_rule rule,
                 dracel_severity sev, const char *hint, const rel *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vemit(l, off, file, at, rule, sev, hint, r, fmt, ap);
    va_end(ap);
}

static void note(dracel_lint *l, const char *fmt, ...) DC_PRINTF(2, 3);

static void note(dracel_lint *l, const char *fmt, ...)
{
    if (!grow(l, (void **)&l->notes, &l->capnotes, l->nnotes, sizeof *l->notes))
        return;
    va_list ap;
    va_start(ap, fmt);
    const char *s = dc_arena_vprintf(&l->arena, fmt, ap);
    va_end(ap);
    if (!s)
        l->oom = true;
    else
        l->notes[l->nnotes++] = s;
}

/* ---------------------------------------------------------------------------------------------
 * Reading: the tree of each document
 */

static const dc_tnode *fieldv(const dc_tnode *m, const char *name)
{
    if (!m || m->t != DC_TN_MAP)
        return NULL;
    size_t n = strlen(name);
    for (uint32_t i = 0; i < m->n; i++)
        if (m->kids[i].klen == n && memcmp(m->kids[i].k, name, n) == 0)
            return m->kids[i].v.t == DC_TN_NULL ? NULL : &m->kids[i].v;
    return NULL;
}

static bool str_is(const dc_tnode *v, const char *s)
{
    return v && v->t == DC_TN_STR && strlen(s) == v->n && memcmp(v->s, s, v->n) == 0;
}

typedef struct rd {
    dracel_lint *l;
    uint32_t file;
} rd;

static uint32_t at_of(rd *r, const dc_tnode *v)
{
    return v ? node_at(&r->l->files[r->file], v->off) : NONE;
}

/* The object's lint-disable annotation, as a mask (unknown ids are findings). */
static uint64_t annotation(rd *r, const dc_tnode *meta)
{
    const dc_tnode *v = fieldv(fieldv(meta, "annotations"), LINT_ANNOTATION);
    if (!v || v->t != DC_TN_STR)
        return 0;
    const char *bad;
    size_t bl = 0;
    uint64_t m = parse_rules(v->s, v->n, &bad, &bl);
    if (bad)
        emit(r->l, 0, r->file, at_of(r, v), DC_LR_ANNOTATION, DRACEL_SEV_WARNING,
             "list rule ids separated by commas (dra-celc lint --list-rules), or all", NULL,
             "%s names no lint rule '%.*s'", LINT_ANNOTATION, (int)(bl > 60 ? 60 : bl), bad);
    return m;
}

/* Limits the API server enforces, from the tree (the decoder would stop at the first). */
static unsigned limit(rd *r, uint64_t off, const dc_tnode *list, uint32_t max, const char *what,
                      const char *name)
{
    if (!list || list->t != DC_TN_SEQ || list->n <= max)
        return 0;
    emit(r->l, off, r->file, at_of(r, &list->kids[max].v), DC_LR_API_LIMIT, DRACEL_SEV_ERROR,
         NULL, NULL, "%u %s, more than the %u Kubernetes accepts (%s)", (unsigned)list->n, what,
         (unsigned)max, name);
    return 1;
}

static unsigned sel_limits(rd *r, uint64_t off, const dc_tnode *sels)
{
    unsigned n = limit(r, off, sels, MAX_SELECTORS, "selectors", "DeviceSelectorsMaxSize");
    if (!sels || sels->t != DC_TN_SEQ)
        return n;
    for (uint32_t i = 0; i < sels->n; i++) {
        const dc_tnode *x = fieldv(fieldv(&sels->kids[i].v, "cel"), "expression");
        if (x && x->t == DC_TN_STR && x->n > MAX_EXPR_LEN) {
            emit(r->l, off, r->file, at_of(r, x), DC_LR_API_LIMIT, DRACEL_SEV_ERROR, NULL, NULL,
                 "an expression of %u bytes, more than the %u Kubernetes accepts "
                 "(CELSelectorExpressionMaxLength)", (unsigned)x->n, MAX_EXPR_LEN);
            n++;
        }
    }
    return n;
}

static const dc_tnode *claim_spec(const dc_tnode *obj, bool tmpl)
{
    const dc_tnode *spec = fieldv(obj, "spec");
    return tmpl ? fieldv(spec, "spec") : spec;
}

static unsigned limits(rd *r, uint64_t off, const dc_tnode *obj, unsigned kind, bool tmpl)
{
    if (kind == DC_OBJ_CLASS)
        return sel_limits(r, off, fieldv(fieldv(obj, "spec"), "selectors"));
    const dc_tnode *reqs = fieldv(fieldv(claim_spec(obj, tmpl), "devices"), "requests");
    unsigned n = limit(r, off, reqs, MAX_REQUESTS, "requests", "DeviceRequestsMaxSize");
    if (!reqs || reqs->t != DC_TN_SEQ)
        return n;
    for (uint32_t i = 0; i < reqs->n; i++) {
        const dc_tnode *q = &reqs->kids[i].v;
        n += sel_limits(r, off, fieldv(fieldv(q, "exactly"), "selectors"));
        n += sel_limits(r, off, fieldv(q, "selectors")); /* resource.k8s.io/v1beta1 */
        const dc_tnode *fa = fieldv(q, "firstAvailable");
        n += limit(r, off, fa, MAX_SUBREQUESTS, "firstAvailable subrequests",
                   "FirstAvailableDeviceRequestMaxSize");
        if (fa && fa->t == DC_TN_SEQ)
            for (uint32_t j = 0; j < fa->n; j++)
                n += sel_limits(r, off, fieldv(&fa->kids[j].v, "selectors"));
    }
    return n;
}

/* ---- Unknown fields: the object's tree against the schema of resource.k8s.io/v1 (and
 * v1beta1's request shape), as the API server's strict decoding checks it. What is not
 * described here (a status, opaque parameters, label and annotation maps) is not walked. */

static uint32_t key_at(rd *r, const dc_tent *e);

typedef enum { SF_LEAF, SF_OBJ, SF_LIST, SF_RAW } sf_kind;
typedef struct sfield {
    const char *name;
    sf_kind kind;               /* SF_OBJ: a map of sub; SF_LIST: a list of maps of sub */
    const struct sfield *sub;   /* NULL-terminated */
} sfield;

#define SF_END {NULL, SF_LEAF, NULL}
static const sfield S_META[] = {
    {"name", SF_LEAF, NULL}, {"generateName", SF_LEAF, NULL}, {"namespace", SF_LEAF, NULL},
    {"selfLink", SF_LEAF, NULL}, {"uid", SF_LEAF, NULL}, {"resourceVersion", SF_LEAF, NULL},
    {"generation", SF_LEAF, NULL}, {"creationTimestamp", SF_LEAF, NULL},
    {"deletionTimestamp", SF_LEAF, NULL}, {"deletionGracePeriodSeconds", SF_LEAF, NULL},
    {"labels", SF_RAW, NULL}, {"annotations", SF_RAW, NULL}, {"ownerReferences", SF_RAW, NULL},
    {"finalizers", SF_RAW, NULL}, {"managedFields", SF_RAW, NULL}, SF_END};
static const sfield S_CEL[] = {{"expression", SF_LEAF, NULL}, SF_END};
static const sfield S_SEL[] = {{"cel", SF_OBJ, S_CEL}, SF_END};
static const sfield S_TOL[] = {{"key", SF_LEAF, NULL}, {"operator", SF_LEAF, NULL},
                               {"value", SF_LEAF, NULL}, {"effect", SF_LEAF, NULL},
                               {"tolerationSeconds", SF_LEAF, NULL}, SF_END};
static const sfield S_CAPREQ[] = {{"requests", SF_RAW, NULL}, SF_END};
static const sfield S_EXACT[] = {
    {"deviceClassName", SF_LEAF, NULL}, {"selectors", SF_LIST, S_SEL},
    {"allocationMode", SF_LEAF, NULL}, {"count", SF_LEAF, NULL}, {"adminAccess", SF_LEAF, NULL},
    {"tolerations", SF_LIST, S_TOL}, {"capacity", SF_OBJ, S_CAPREQ}, SF_END};
static const sfield S_SUB[] = {
    {"name", SF_LEAF, NULL}, {"deviceClassName", SF_LEAF, NULL}, {"selectors", SF_LIST, S_SEL},
    {"allocationMode", SF_LEAF, NULL}, {"count", SF_LEAF, NULL}, {"tolerations", SF_LIST, S_TOL},
    {"capacity", SF_OBJ, S_CAPREQ}, SF_END};
static const sfield S_REQ[] = {{"name", SF_LEAF, NULL}, {"exactly", SF_OBJ, S_EXACT},
                               {"firstAvailable", SF_LIST, S_SUB}, SF_END};
static const sfield S_REQ_V1BETA1[] = {
    {"name", SF_LEAF, NULL}, {"deviceClassName", SF_LEAF, NULL}, {"selectors", SF_LIST, S_SEL},
    {"allocationMode", SF_LEAF, NULL}, {"count", SF_LEAF, NULL}, {"adminAccess", SF_LEAF, NULL},
    {"firstAvailable", SF_LIST, S_SUB}, {"tolerations", SF_LIST, S_TOL},
    {"capacity", SF_OBJ, S_CAPREQ}, SF_END};
static const sfield S_CONS[] = {{"requests", SF_RAW, NULL}, {"matchAttribute", SF_LEAF, NULL},
                                {"distinctAttribute", SF_LEAF, NULL}, SF_END};
static const sfield S_OPAQUE[] = {{"driver", SF_LEAF, NULL}, {"parameters", SF_RAW, NULL},
                                  SF_END};
static const sfield S_CCFG[] = {{"requests", SF_RAW, NULL}, {"opaque", SF_OBJ, S_OPAQUE},
                                SF_END};
static const sfield S_DCFG[] = {{"opaque", SF_OBJ, S_OPAQUE}, SF_END};
static const sfield S_DEVS[] = {{"requests", SF_LIST, S_REQ}, {"constraints", SF_LIST, S_CONS},
                                {"config", SF_LIST, S_CCFG}, SF_END};
static const sfield S_DEVS_V1BETA1[] = {{"requests", SF_LIST, S_REQ_V1BETA1},
                                        {"constraints", SF_LIST, S_CONS},
                                        {"config", SF_LIST, S_CCFG}, SF_END};
static const sfield S_CSPEC[] = {{"devices", SF_OBJ, S_DEVS}, SF_END};
static const sfield S_CSPEC_V1BETA1[] = {{"devices", SF_OBJ, S_DEVS_V1BETA1}, SF_END};
static const sfield S_CLASS_SPEC[] = {{"selectors", SF_LIST, S_SEL},
                                      {"config", SF_LIST, S_DCFG},
                                      {"extendedResourceName", SF_LEAF, NULL}, SF_END};
#define S_TOP(spec)                                                                            \
    {"apiVersion", SF_LEAF, NULL}, {"kind", SF_LEAF, NULL}, {"metadata", SF_OBJ, S_META},       \
        {"spec", SF_OBJ, spec}
static const sfield S_CLASS[] = {S_TOP(S_CLASS_SPEC), SF_END};
static const sfield S_CLAIM[] = {S_TOP(S_CSPEC), {"status", SF_RAW, NULL}, SF_END};
static const sfield S_CLAIM_V1BETA1[] = {S_TOP(S_CSPEC_V1BETA1), {"status", SF_RAW, NULL},
                                         SF_END};
static const sfield S_TSPEC[] = {{"metadata", SF_OBJ, S_META}, {"spec", SF_OBJ, S_CSPEC},
                                 SF_END};
static const sfield S_TSPEC_V1BETA1[] = {{"metadata", SF_OBJ, S_META},
                                         {"spec", SF_OBJ, S_CSPEC_V1BETA1}, SF_END};
static const sfield S_TMPL[] = {S_TOP(S_TSPEC), SF_END};
static const sfield S_TMPL_V1BETA1[] = {S_TOP(S_TSPEC_V1BETA1), SF_END};

#define FIELD_PATH 512

static void unknown_fields(rd *r, uint64_t off, const dc_tnode *m, const sfield *fs, char *path,
                           size_t plen, unsigned depth)
{
    dracel_lint *l = r->l;
    if (!m || m->t != DC_TN_MAP || depth > 16)
        return;
    for (uint32_t i = 0; i < m->n && !l->oom; i++) {
        const dc_tent *e = &m->kids[i];
        const sfield *f = fs;
        while (f->name && !(strlen(f->name) == e->klen && memcmp(f->name, e->k, e->klen) == 0))
            f++;
        if (!f->name) {
            bool strict = l->fields == DRACEL_FIELDS_STRICT;
            emit(l, off, r->file, key_at(r, e), DC_LR_UNKNOWN_FIELD,
                 strict ? DRACEL_SEV_ERROR : DRACEL_SEV_WARNING,
                 "check the spelling and the indentation (a field one level too deep or too "
                 "shallow is unknown where it lands)",
                 NULL, "unknown field \"%s%s%.*s\": %s", path, plen ? "." : "",
                 (int)(e->klen > 80 ? 80 : e->klen), e->k,
                 strict ? "kubectl's default field validation (strict) refuses the object"
                        : "the API server drops it with a warning (field validation warn)");
            continue;
        }
        if (f->kind == SF_LEAF || f->kind == SF_RAW)
            continue;
        size_t n = plen;
        int w = snprintf(path + n, FIELD_PATH - n, "%s%s", n ? "." : "", f->name);
        if (w < 0 || (size_t)w >= FIELD_PATH - n)
            continue;
        n += (size_t)w;
        if (f->kind == SF_OBJ) {
            unknown_fields(r, off, &e->v, f->sub, path, n, depth + 1);
        } else if (e->v.t == DC_TN_SEQ) {
            for (uint32_t k = 0; k < e->v.n && k < 64; k++) {
                int x = snprintf(path + n, FIELD_PATH - n, "[%u]", (unsigned)k);
                if (x > 0 && (size_t)x < FIELD_PATH - n)
                    unknown_fields(r, off, &e->v.kids[k].v, f->sub, path, n + (size_t)x,
                                   depth + 1);
            }
        }
        path[plen] = '\0';
    }
}

static void check_fields(rd *r, uint64_t off, const dc_tnode *obj, unsigned kind, bool tmpl)
{
    if (r->l->fields == DRACEL_FIELDS_IGNORE)
        return;
    bool b1 = str_is(fieldv(obj, "apiVersion"), "resource.k8s.io/v1beta1");
    const sfield *fs = kind == DC_OBJ_CLASS ? S_CLASS
                       : tmpl               ? (b1 ? S_TMPL_V1BETA1 : S_TMPL)
                                            : (b1 ? S_CLAIM_V1BETA1 : S_CLAIM);
    char path[FIELD_PATH];
    path[0] = '\0';
    unknown_fields(r, off, obj, fs, path, 0, 0);
}

/* The loader's message "FILE:LINE: rest" as a finding. */
static void loader_error(rd *r, uint64_t off, const char *file, const char *msg)
{
    dracel_lint *l = r->l;
    size_t fl = strlen(file);
    uint32_t line = 0;
    const char *m = msg;
    if (strncmp(m, file, fl) == 0 && m[fl] == ':') {
        m += fl + 1;
        while (*m >= '0' && *m <= '9')
            line = line * 10 + (uint32_t)(*m++ - '0');
        if (*m == ':')
            m++;
        while (*m == ' ')
            m++;
    }
    lfile *f = &l->files[r->file];
    emit(l, off, r->file, line_at(l, f, line ? line : 1), DC_LR_INVALID, DRACEL_SEV_ERROR, NULL,
         NULL, "%s", m);
}

/* The selectors of a list (at field path `path` of an object whose lint-disable mask is
 * `off`). One without `cel` or with an empty expression is what the API server refuses
 * ("Required value"): an invalid-object finding, not linted further (allocate keeps it, to
 * fail as the allocator does with "CEL expression empty"). */
static dracel_status sels_of(rd *r, uint64_t off, const char *path, const dc_tnode *list,
                             const dc_sel_in *in, uint32_t n, lsel **out, uint32_t *nout)
{
    dracel_lint *l = r->l;
    *out = NULL;
    *nout = 0;
    if (!n)
        return DRACEL_OK;
    lsel *v = dc_arena_zalloc(&l->arena, n * sizeof *v);
    if (!v)
        return DRACEL_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const dc_tnode *item = list && list->t == DC_TN_SEQ && i < list->n ? &list->kids[i].v
                                                                            : NULL;
        const dc_tnode *cel = fieldv(item, "cel"), *x = fieldv(cel, "expression");
        if (!in[i].expr || !in[i].len) {
            uint32_t at = x     ? at_of(r, x)
                          : cel ? at_of(r, cel)
                          : item ? at_of(r, item)
                                 : line_at(l, &l->files[r->file], in[i].line);
            emit(l, off, r->file, at, DC_LR_INVALID, DRACEL_SEV_ERROR,
                 "a selector is `cel: {expression: ...}` (check the indentation of expression)",
                 NULL, "%s[%u].%s: Required value: the API server refuses the object%s", path,
                 (unsigned)i, in[i].expr ? "cel.expression" : "cel",
                 in[i].expr ? "" : " (allocate fails with \"CEL expression empty\")");
            continue;
        }
        v[k].file = r->file;
        v[k].at = x ? at_of(r, x) : line_at(l, &l->files[r->file], in[i].line);
        v[k].expr = in[i].expr;
        v[k].len = in[i].len;
        k++;
    }
    *out = v;
    *nout = k;
    return DRACEL_OK;
}

static dracel_status record_claim(rd *r, lobj *o, const dc_tnode *obj, bool tmpl)
{
    dracel_lint *l = r->l;
    const dc_claim_in *cm = o->cm;
    const dc_tnode *reqs = fieldv(fieldv(claim_spec(obj, tmpl), "devices"), "requests");
    bool v1beta1 = str_is(fieldv(obj, "apiVersion"), "resource.k8s.io/v1beta1");
    o->at_requests = reqs ? at_of(r, reqs) : o->at;
    if (!cm->nreqs)
        return DRACEL_OK;
    o->reqs = dc_arena_zalloc(&l->arena, cm->nreqs * sizeof *o->reqs);
    if (!o->reqs)
        return DRACEL_ENOMEM;
    o->nreqs = cm->nreqs;
    for (uint32_t i = 0; i < cm->nreqs; i++) {
        const dc_request_in *q = &cm->reqs[i];
        const dc_tnode *qn = reqs && reqs->t == DC_TN_SEQ && i < reqs->n ? &reqs->kids[i].v : NULL;
        lreq *lq = &o->reqs[i];
        lq->q = q;
        lq->at = qn ? at_of(r, qn) : o->at;
        lq->tiers = dc_arena_zalloc(&l->arena, q->nsubs * sizeof *lq->tiers);
        if (q->nsubs && !lq->tiers)
            return DRACEL_ENOMEM;
        lq->ntiers = q->nsubs;
        const dc_tnode *fa = fieldv(qn, "firstAvailable");
        /* resource.k8s.io/v1beta1: the `exactly` fields are on the request itself */
        const dc_tnode *ex = v1beta1 ? qn : fieldv(qn, "exactly");
        for (uint32_t j = 0; j < q->nsubs; j++) {
            const dc_subreq_in *s = &q->subs[j];
            const dc_tnode *sn = q->first_available ? (fa && fa->t == DC_TN_SEQ && j < fa->n
                                                        ? &fa->kids[j].v
                                                        : NULL)
                                                 : ex;
            ltier *t = &lq->tiers[j];
            t->sub = s;
            t->label = q->first_available
                           ? dc_arena_printf(&l->arena, "subrequest %s/%s", q->name, s->name)
                           : dc_arena_printf(&l->arena, "request %s", q->name);
            if (!t->label)
                return DRACEL_ENOMEM;
            t->at = sn ? at_of(r, sn) : lq->at;
            const dc_tnode *v = fieldv(sn, "deviceClassName");
            t->at_class = v ? at_of(r, v) : t->at;
            v = fieldv(sn, "count");
            t->at_count = v ? at_of(r, v) : t->at;
            v = fieldv(sn, "name");
            t->at_name = v ? at_of(r, v) : t->at;
            const char *path =
                q->first_available
                    ? dc_arena_printf(&l->arena, "%sdevices.requests[%u].firstAvailable[%u].selectors",
                                      tmpl ? "spec.spec." : "spec.", (unsigned)i, (unsigned)j)
                    : dc_arena_printf(&l->arena, "%sdevices.requests[%u].%sselectors",
                                      tmpl ? "spec.spec." : "spec.", (unsigned)i,
                                      v1beta1 ? "" : "exactly.");
            if (!path)
                return DRACEL_ENOMEM;
            DC_TRY(sels_of(r, o->off, path, fieldv(sn, "selectors"), s->sels, s->nsels, &t->sels,
                           &t->nsels));
        }
    }
    return DRACEL_OK;
}

/* ---- TierPolicies: where each cap and idle reserve is written. The file is loaded whole by
 * dracel_tierpolicy_load_buffer once read (dracel_lint_add), as dra-extender loads it; this
 * only records positions, bounded by that loader's limits (a file past one is refused there). */

/* Where the key of entry e is: its first occurrence on its line, else the line's start. */
static uint32_t key_at(rd *r, const dc_tent *e)
{
    dracel_lint *l = r->l;
    lfile *f = &l->files[r->file];
    uint32_t s = line_at(l, f, e->kline);
    size_t end = s;
    while (end < f->len && f->text[end] != '\n')
        end++;
    for (size_t i = s; e->klen && i + e->klen <= end; i++)
        if (memcmp(f->text + i, e->k, e->klen) == 0)
            return (uint32_t)i;
    return s;
}

static uint32_t pol_key(dracel_lint *l, lpol *p, const char *k, size_t n)
{
    for (uint32_t i = 0; i < p->nkeys; i++)
        if (strlen(p->keys[i].key) == n && memcmp(p->keys[i].key, k, n) == 0)
            return i;
    if (p->nkeys > DRACEL_TIERPOLICY_MAX_KEYS ||
        !grow(l, (void **)&p->keys, &p->capkeys, p->nkeys, sizeof *p->keys))
        return NONE;
    lpkey *x = &p->keys[p->nkeys];
    memset(x, 0, sizeof *x);
    x->key = dc_arena_strndup(&l->arena, k, n);
    if (!x->key)
        return l->oom = true, NONE;
    return p->nkeys++;
}

static void pol_entry(rd *r, lpol *p, uint32_t key, const char *tenant, const dc_tnode *v,
                      uint32_t at)
{
    if (key == NONE && tenant)
        return;
    if (!grow(r->l, (void **)&p->e, &p->cap, p->n, sizeof *p->e))
        return;
    lpent *x = &p->e[p->n++];
    x->key = key;
    x->tenant = tenant;
    x->count = v && v->t == DC_TN_INT && v->iok && v->i >= 0 ? v->i : -1;
    x->at = at;
}

/* A tenant's name, namespaces and caps (the default tenant's when dflt). */
static void pol_tenant(rd *r, lpol *p, const dc_tnode *t, bool dflt)
{
    dracel_lint *l = r->l;
    const dc_tnode *nm = fieldv(t, "name");
    /* the tree lives as long as its document: what is kept is copied */
    const char *name = nm && nm->t == DC_TN_STR ? dc_arena_strndup(&l->arena, nm->s, nm->n)
                       : dflt                   ? "default"
                                                : "(unnamed)";
    if (!name) {
        l->oom = true;
        return;
    }
    if (dflt)
        p->dflt = name;
    if (fieldv(t, "podLabel"))
        p->by_label = true;
    const dc_tnode *ns = fieldv(t, "namespaces");
    for (uint32_t i = 0; ns && ns->t == DC_TN_SEQ && i < ns->n; i++) {
        const dc_tnode *x = &ns->kids[i].v;
        if (x->t != DC_TN_STR || p->nns >= DRACEL_TIERPOLICY_MAX_BYTES ||
            !grow(l, (void **)&p->ns, &p->capns, p->nns, sizeof *p->ns))
            continue;
        if (!(p->ns[p->nns++] = dc_arena_strndup(&l->arena, x->s, x->n)))
            l->oom = true;
    }
    const dc_tnode *caps = fieldv(t, "caps");
    for (uint32_t i = 0; caps && caps->t == DC_TN_MAP && i < caps->n && !l->oom; i++) {
        const dc_tent *e = &caps->kids[i];
        pol_entry(r, p, pol_key(l, p, e->k, e->klen), name, &e->v, key_at(r, e));
    }
}

static dracel_status read_policy(rd *r, const dc_tnode *v, const dc_tnode *meta, const char *nm)
{
    dracel_lint *l = r->l;
    if (!grow(l, (void **)&l->pols, &l->cappols, l->npols, sizeof *l->pols))
        return DRACEL_ENOMEM;
    lpol *p = &l->pols[l->npols];
    memset(p, 0, sizeof *p);
    p->name = nm ? dc_arena_strndup(&l->arena, nm, strlen(nm)) : "(unnamed)";
    if (!p->name)
        return DRACEL_ENOMEM;
    p->file = r->file;
    p->off = annotation(r, meta);
    p->dflt = "default";
    const dc_tnode *g = fieldv(v, "idleReserve");
    if (g)
        pol_entry(r, p, NONE, NULL, g, at_of(r, g));
    const dc_tnode *tiers = fieldv(v, "tiers");
    for (uint32_t i = 0; tiers && tiers->t == DC_TN_MAP && i < tiers->n && !l->oom; i++) {
        const dc_tent *e = &tiers->kids[i];
        uint32_t k = pol_key(l, p, e->k, e->klen);
        if (k != NONE)
            pol_entry(r, p, k, NULL, fieldv(&e->v, "idleReserve"), key_at(r, e));
    }
    const dc_tnode *ts = fieldv(v, "tenants");
    for (uint32_t i = 0; ts && ts->t == DC_TN_SEQ && i < ts->n &&
                         i <= DRACEL_TIERPOLICY_MAX_TENANTS && !l->oom; i++)
        pol_tenant(r, p, &ts->kids[i].v, false);
    if (fieldv(v, "defaultTenant"))
        pol_tenant(r, p, fieldv(v, "defaultTenant"), true);
    l->files[r->file].policy = true;
    l->npols++;
    return l->oom ? DRACEL_ENOMEM : DRACEL_OK;
}

/* ---- PublishedAttributes: rows added to src/lint_pub.c's table of what drivers publish on
 * every device (docs/lint.md). A mistake is an invalid-object finding at the value. */

#define PUB_API "dracel.dev/v1alpha1"
#define PUB_MAX_ROWS 4096u

static bool pub_bad(rd *r, const dc_tnode *v, const char *what, const char *why)
{
    emit(r->l, 0, r->file, at_of(r, v), DC_LR_INVALID, DRACEL_SEV_ERROR, NULL, NULL, "%s: %s",
         what, why);
    return false;
}

/* Only the fields of names[]; an unknown one is reported at its key. */
static bool pub_fields(rd *r, const dc_tnode *m, const char *where, const char *const *names,
                       unsigned nn)
{
    if (!m || m->t != DC_TN_MAP)
        return pub_bad(r, m, where, "must be a mapping");
    bool ok = true;
    for (uint32_t i = 0; i < m->n; i++) {
        const dc_tent *e = &m->kids[i];
        unsigned k = 0;
        while (k < nn && !(strlen(names[k]) == e->klen && memcmp(names[k], e->k, e->klen) == 0))
            k++;
        if (k == nn) {
            emit(r->l, 0, r->file, key_at(r, e), DC_LR_INVALID, DRACEL_SEV_ERROR, NULL, NULL,
                 "%s: unknown field \"%.*s\"", where, (int)(e->klen > 60 ? 60 : e->klen), e->k);
            ok = false;
        }
    }
    return ok;
}

static const char *pub_str(rd *r, const dc_tnode *v, const char *what)
{
    if (!v || v->t != DC_TN_STR || v->n == 0 || memchr(v->s, '\0', v->n)) {
        pub_bad(r, v, what, "must be a non-empty string");
        return NULL;
    }
    const char *s = dc_arena_strndup(&r->l->arena, v->s, v->n);
    if (!s)
        r->l->oom = true;
    return s;
}

static bool pub_row(rd *r, const dc_lpub *row, const dc_tnode *at)
{
    dracel_lint *l = r->l;
    if (l->npubs >= PUB_MAX_ROWS)
        return pub_bad(r, at, "PublishedAttributes", "more than 4,096 rows in all");
    if (!grow(l, (void **)&l->pubs, &l->cappubs, l->npubs, sizeof *l->pubs))
        return false;
    l->pubs[l->npubs++] = *row;
    return true;
}

/* The rows of a list of qualified names (an unqualified one is in the driver's domain). */
static void pub_names(rd *r, const dc_lpub *base, dc_lpath_kind kind, const dc_tnode *list,
                      const char *what)
{
    if (!list)
        return;
    if (list->t != DC_TN_SEQ) {
        pub_bad(r, list, what, "must be a list of names");
        return;
    }
    for (uint32_t i = 0; i < list->n && !r->l->oom; i++) {
        const dc_tnode *v = &list->kids[i].v;
        const char *s = pub_str(r, v, what);
        if (!s)
            continue;
        const char *bad = dc_ld_qualified_err(s, strlen(s));
        if (bad) {
            emit(r->l, 0, r->file, at_of(r, v), DC_LR_INVALID, DRACEL_SEV_ERROR, NULL, NULL,
                 "%s: \"%s\" is not a qualified name: %s", what, s, bad);
            continue;
        }
        dc_lpub row = *base;
        row.kind = kind;
        const char *slash = strrchr(s, '/');
        row.dom = slash ? dc_arena_strndup(&r->l->arena, s, (size_t)(slash - s)) : base->driver;
        row.id = slash ? slash + 1 : s;
        if (!row.dom)
            r->l->oom = true;
        else if (!pub_row(r, &row, v))
            return;
    }
}

static dracel_status read_published(rd *r, const dc_tnode *v)
{
    dracel_lint *l = r->l;
    static const char *const TOP[] = {"apiVersion", "kind", "metadata", "drivers"};
    static const char *const ROWF[] = {"driver", "when", "attributes", "capacity"};
    static const char *const WHENF[] = {"attribute", "in"};
    pub_fields(r, v, "PublishedAttributes", TOP, 4);
    const dc_tnode *av = fieldv(v, "apiVersion");
    if (!str_is(av, PUB_API))
        pub_bad(r, av ? av : v, "apiVersion", "must be " PUB_API);
    const dc_tnode *ds = fieldv(v, "drivers");
    if (!ds || ds->t != DC_TN_SEQ) {
        pub_bad(r, ds ? ds : v, "drivers", "must be a list");
        return l->oom ? DRACEL_ENOMEM : DRACEL_OK;
    }
    for (uint32_t i = 0; i < ds->n && !l->oom; i++) {
        const dc_tnode *d = &ds->kids[i].v;
        if (!pub_fields(r, d, "drivers[]", ROWF, 4))
            continue;
        dc_lpub base = {0};
        const dc_tnode *dv = fieldv(d, "driver");
        if (!dv) {
            pub_bad(r, d, "drivers[].driver", "Required value");
            continue;
        }
        if (!(base.driver = pub_str(r, dv, "drivers[].driver")))
            continue;
        const char *bad = dc_ld_driver_err(base.driver, strlen(base.driver));
        if (bad) {
            emit(l, 0, r->file, at_of(r, dv), DC_LR_INVALID, DRACEL_SEV_ERROR, NULL, NULL,
                 "drivers[].driver: \"%s\" is not a driver name: %s", base.driver, bad);
            continue;
        }
        const dc_tnode *w = fieldv(d, "when");
        if (w) {
            if (!pub_fields(r, w, "drivers[].when", WHENF, 2))
                continue;
            const dc_tnode *wa = fieldv(w, "attribute"), *in = fieldv(w, "in");
            if (!wa || !in) {
                pub_bad(r, w, "drivers[].when", "needs attribute and in");
                continue;
            }
            if (!(base.when = pub_str(r, wa, "drivers[].when.attribute")))
                continue;
            if (strchr(base.when, '/') || dc_ld_qualified_err(base.when, strlen(base.when))) {
                pub_bad(r, wa, "drivers[].when.attribute",
                        "must be a name in the driver's own domain, without a domain");
                continue;
            }
            if (in->t != DC_TN_SEQ || in->n == 0) {
                pub_bad(r, in, "drivers[].when.in", "must be a non-empty list of strings");
                continue;
            }
            const char **vals = dc_arena_alloc(&l->arena, in->n * sizeof *vals);
            if (!vals)
                return DRACEL_ENOMEM;
            bool ok = true;
            for (uint32_t k = 0; k < in->n && ok; k++)
                ok = (vals[k] = pub_str(r, &in->kids[k].v, "drivers[].when.in[]")) != NULL;
            if (!ok)
                continue;
            base.in = vals;
            base.nin = in->n;
        }
        pub_names(r, &base, LP_ATTR, fieldv(d, "attributes"), "drivers[].attributes");
        pub_names(r, &base, LP_CAP, fieldv(d, "capacity"), "drivers[].capacity");
    }
    return l->oom ? DRACEL_ENOMEM : DRACEL_OK;
}

/* Once per file: an object in a deprecated version of resource.k8s.io (the loader reads it
 * as the API server converts it). */
static void deprecated(rd *r, const dc_tnode *av, uint64_t off)
{
    lfile *f = &r->l->files[r->file];
    bool b1 = str_is(av, "resource.k8s.io/v1beta1"), b2 = str_is(av, "resource.k8s.io/v1beta2");
    if (f->deprecated || (!b1 && !b2))
        return;
    f->deprecated = true;
    emit(r->l, off, r->file, at_of(r, av), DC_LR_DEPRECATED, DRACEL_SEV_NOTE,
         b1 ? "write it as resource.k8s.io/v1: move a request's deviceClassName, selectors, "
              "allocationMode, count, adminAccess, tolerations and capacity under `exactly`, and "
              "a device's fields out of `basic` (kubectl convert --output-version "
              "resource.k8s.io/v1 does it)"
            : "write it as resource.k8s.io/v1: the same fields, only apiVersion changes",
         NULL,
         "%s is deprecated from Kubernetes %s and not served from %s: it is read as the API "
         "server converts it to resource.k8s.io/v1 (noted once for the file)",
         b1 ? "resource.k8s.io/v1beta1" : "resource.k8s.io/v1beta2", b1 ? "1.35" : "1.36",
         b1 ? "1.38" : "1.39");
}

static dracel_status read_object(rd *r, dc_ld *c, const dc_tnode *v)
{
    dracel_lint *l = r->l;
    const dc_tnode *kind = fieldv(v, "kind"), *meta = fieldv(v, "metadata");
    const dc_tnode *name = fieldv(meta, "name");
    const char *nm = name && name->t == DC_TN_STR ? name->s : NULL;
    unsigned kbit = 0;
    bool tmpl = false;
    if (str_is(kind, "TierPolicy"))
        return read_policy(r, v, meta, nm);
    if (str_is(kind, "PublishedAttributes"))
        return read_published(r, v);
    if (str_is(kind, "DeviceClass"))
        kbit = DC_OBJ_CLASS;
    else if (str_is(kind, "ResourceClaim"))
        kbit = DC_OBJ_CLAIM;
    else if (str_is(kind, "ResourceClaimTemplate"))
        kbit = DC_OBJ_CLAIM, tmpl = true;
    if (!kbit) {
        if (kind && kind->t == DC_TN_STR)
            note(l, "%s:%u: skipped object of kind %s%s%s%s", c->file, (unsigned)v->line, kind->s,
                 nm ? " (" : "", nm ? nm : "", nm ? ")" : "");
        else
            note(l, "%s:%u: skipped object without kind%s%s%s", c->file, (unsigned)v->line,
                 nm ? " (" : "", nm ? nm : "", nm ? ")" : "");
        return l->oom ? DRACEL_ENOMEM : DRACEL_OK;
    }
    DC_TRY(dc_ld_room(c, v->line));
    if (!grow(l, (void **)&l->obj, &l->capobj, l->nobj, sizeof *l->obj))
        return DRACEL_ENOMEM;
    lobj o;
    memset(&o, 0, sizeof o);
    o.kind = kbit;
    o.kname = kbit == DC_OBJ_CLASS ? "DeviceClass" : tmpl ? "ResourceClaimTemplate" : "ResourceClaim";
    o.name = nm ? dc_arena_strndup(&l->arena, nm, strlen(nm)) : "(unnamed)";
    o.file = r->file;
    o.at = at_of(r, v);
    o.off = annotation(r, meta);
    deprecated(r, fieldv(v, "apiVersion"), o.off);
    check_fields(r, o.off, v, kbit, tmpl);
    o.at_ns = fieldv(meta, "namespace") ? at_of(r, fieldv(meta, "namespace")) : NONE;
    if (!o.name)
        return DRACEL_ENOMEM;
    if (limits(r, o.off, v, kbit, tmpl)) {
        l->obj[l->nobj++] = o; /* counted, not linted further */
        return DRACEL_OK;
    }
    static const char *const OF[] = {"apiVersion", "kind", "metadata", "spec"};
    const dc_tent *f[4];
    c->np = 0;
    c->oname = NULL;
    uint32_t before = kbit == DC_OBJ_CLASS ? l->objs.nclasses : l->objs.nclaims;
    dracel_status st = dc_ld_fields(c, v, OF, 4, f);
    if (st == DRACEL_OK)
        st = dc_ld_object(c, v, kbit, kind, f);
    c->np = 0;
    c->oname = NULL;
    if (st == DRACEL_EINPUT) {
        loader_error(r, o.off, c->file, c->err);
        l->obj[l->nobj++] = o;
        return l->oom ? DRACEL_ENOMEM : DRACEL_OK;
    }
    DC_TRY(st);
    if (kbit == DC_OBJ_CLASS && l->objs.nclasses > before) {
        o.cl = &l->objs.classes[l->objs.nclasses - 1];
        DC_TRY(sels_of(r, o.off, "spec.selectors", fieldv(fieldv(v, "spec"), "selectors"),
                       o.cl->sels, o.cl->nsels, &o.sels, &o.nsels));
    } else if (kbit == DC_OBJ_CLAIM && l->objs.nclaims > before) {
        o.cm = &l->objs.claims[l->objs.nclaims - 1];
        DC_TRY(record_claim(r, &o, v, tmpl));
    }
    l->obj[l->nobj++] = o;
    return DRACEL_OK;
}

static dracel_status read_value(rd *r, dc_ld *c, const dc_tnode *v, unsigned nest)
{
    if (v->t == DC_TN_NULL)
        return DRACEL_OK;
    if (nest > 4)
        return dc_ld_fail(c, v->line, "lists nested more than 4 deep");
    if (v->t == DC_TN_SEQ) {
        for (uint32_t i = 0; i < v->n; i++)
            DC_TRY(read_value(r, c, &v->kids[i].v, nest + 1));
        return DRACEL_OK;
    }
    if (v->t != DC_TN_MAP)
        return dc_ld_fail(c, v->line, "expected an object, found %s", dc_ld_tname(v));
    const dc_tnode *kind = fieldv(v, "kind"), *items = fieldv(v, "items");
    bool list = kind ? kind->t == DC_TN_STR && kind->n >= 4 &&
                           memcmp(kind->s + kind->n - 4, "List", 4) == 0
                     : items != NULL;
    if (list) {
        if (items && items->t == DC_TN_SEQ)
            for (uint32_t i = 0; i < items->n; i++)
                DC_TRY(read_value(r, c, &items->kids[i].v, nest + 1));
        return DRACEL_OK;
    }
    return read_object(r, c, v);
}

static dracel_status read_doc(dc_ld *c, const dc_tnode *root)
{
    rd *r = c->doc_ctx;
    dracel_status st = read_value(r, c, root, 0);
    if (st == DRACEL_EINPUT) {
        /* a document the reader refuses: a finding; the next documents are read */
        loader_error(r, 0, c->file, c->err);
        st = r->l->oom ? DRACEL_ENOMEM : DRACEL_OK;
    }
    return st;
}

/* `# dracel.dev/lint-disable: rule,rule` on a line of its own: for the whole file. */
static void file_comments(dracel_lint *l, uint32_t file)
{
    lfile *f = &l->files[file];
    if (f->json)
        return;
    size_t n = strlen(LINT_ANNOTATION);
    for (size_t p = 0; p < f->len;) {
        size_t e = p;
        while (e < f->len && f->text[e] != '\n')
            e++;
        size_t q = p;
        while (q < e && (f->text[q] == ' ' || f->text[q] == '\t'))
            q++;
        if (q < e && f->text[q] == '#') {
            q++;
            while (q < e && (f->text[q] == ' ' || f->text[q] == '\t'))
                q++;
            if (e - q > n && memcmp(f->text + q, LINT_ANNOTATION, n) == 0 &&
                f->text[q + n] == ':') {
                const char *bad;
                size_t bl = 0;
                f->off |= parse_rules(f->text + q + n + 1, e - q - n - 1, &bad, &bl);
                if (bad && !(bad[bl - 1] == '\r' && bl == 1))
                    emit(l, 0, file, (uint32_t)q, DC_LR_ANNOTATION, DRACEL_SEV_WARNING,
                         "list rule ids separated by commas (dra-celc lint --list-rules), or all",
                         NULL, "%s names no lint rule '%.*s'", LINT_ANNOTATION,
                         (int)(bl > 60 ? 60 : bl), bad);
            }
        }
        p = e + 1;
    }
}

/* A file holding a TierPolicy, loaded whole as dra-extender's --policy loads it: what that
 * refuses is invalid-object, at the line and column it names; else its policies are checked. */
static dracel_status load_policy(dracel_lint *l, uint32_t file)
{
    lfile *f = &l->files[file];
    dracel_tierpolicy *tp = NULL;
    char err[512];
    dracel_status st = dracel_tierpolicy_load_buffer(&l->cfg, f->name, f->text, f->len, &tp,
                                                     err, sizeof err);
    if (st == DRACEL_ENOMEM)
        return st;
    dracel_tierpolicy_free(tp);
    uint64_t off = 0;
    for (uint32_t i = 0; i < l->npols; i++)
        if (l->pols[i].file == file) {
            l->pols[i].ok = st == DRACEL_OK;
            off |= l->pols[i].off;
        }
    if (st == DRACEL_OK)
        return DRACEL_OK;
    /* "FILE:LINE:COL: message", "FILE:LINE: message" or "FILE: message" */
    size_t fl = strlen(f->name);
    const char *m = err;
    uint32_t line = 0, col = 0;
    if (strncmp(m, f->name, fl) == 0 && m[fl] == ':') {
        m += fl + 1;
        while (*m >= '0' && *m <= '9')
            line = line * 10 + (uint32_t)(*m++ - '0');
        if (*m == ':')
            m++;
        while (line && *m >= '0' && *m <= '9')
            col = col * 10 + (uint32_t)(*m++ - '0');
        if (col && *m == ':')
            m++;
        while (*m == ' ')
            m++;
    }
    uint32_t at = line_at(l, f, line ? line : 1);
    if (line && col && build_lines(l, f) && line <= f->nlines) {
        at = f->lines[line - 1];
        /* position() keeps the place within the line as shown */
        for (uint32_t c = 1; c < col && at < f->len && f->text[at] != '\n'; c++) {
            at++;
            while (at < f->len && ((unsigned char)f->text[at] & 0xC0) == 0x80)
                at++;
        }
    }
    emit(l, off, file, at, DC_LR_INVALID, DRACEL_SEV_ERROR,
         "dra-extender --policy and dra-celc replay --policy refuse the file as it is", NULL, "%s",
         m);
    return l->oom ? DRACEL_ENOMEM : DRACEL_OK;
}

dracel_status dracel_lint_add(dracel_lint *l, const char *name, const char *buf, size_t len)
{
    if (!l || !name || (!buf && len) || l->ran)
        return DRACEL_EINVAL;
    if (!grow(l, (void **)&l->files, &l->capfiles, l->nfiles, sizeof *l->files))
        return DRACEL_ENOMEM;
    lfile *f = &l->files[l->nfiles];
    memset(f, 0, sizeof *f);
    f->name = dc_arena_strndup(&l->arena, name, strlen(name));
    f->text = dc_malloc(&l->alloc, len + 1);
    if (!f->name || !f->text) {
        dc_free(&l->alloc, f->text, len + 1);
        return DRACEL_ENOMEM;
    }
    if (len)
        memcpy(f->text, buf, len);
    f->text[len] = '\0';
    f->len = len;
    l->nfiles++;
    size_t i = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    f->json = i < len && (buf[i] == '{' || buf[i] == '[');
    f->ascii = true;
    for (size_t k = 0; k < len && f->ascii; k++)
        f->ascii = (unsigned char)buf[k] < 0x80;
    uint32_t file = l->nfiles - 1;
    file_comments(l, file);
    char err[1024];
    dc_ld c;
    dc_ld_init(&c, &l->objs.slices, NULL, err, sizeof err);
    c.o = &l->objs;
    c.kinds = DC_OBJ_CLASS | DC_OBJ_CLAIM;
    c.per_doc = read_doc;
    rd r = {l, file};
    c.doc_ctx = &r;
    dracel_status st = dc_ld_load_buffer(&c, f->name, f->text, f->len);
    if (st == DRACEL_EINPUT || st == DRACEL_EINVAL) {
        loader_error(&r, 0, c.file ? c.file : f->name, err);
        st = DRACEL_OK;
    } else if (st == DRACEL_OK && f->policy) {
        st = load_policy(l, file);
    }
    dc_ld_free(&c);
    if (l->oom)
        st = DRACEL_ENOMEM;
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Expressions, once per distinct text
 */

static uint64_t hash_text(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static dc_lexpr *expr_of(dracel_lint *l, const char *src, uint32_t len)
{
    uint64_t h = hash_text(src, len);
    if (l->nexpr * 2 >= l->htcap) {
        uint32_t nc = l->htcap ? l->htcap * 2 : 256;
        dc_lexpr **t = dc_arena_zalloc(&l->arena, nc * sizeof *t);
        if (!t)
            return l->oom = true, NULL;
        for (uint32_t i = 0; i < l->htcap; i++)
            for (dc_lexpr *x = l->ht[i], *nx; x; x = nx) {
                nx = x->next;
                x->next = t[x->hash & (nc - 1)];
                t[x->hash & (nc - 1)] = x;
            }
        l->ht = t;
        l->htcap = nc;
    }
    for (dc_lexpr *x = l->ht[h & (l->htcap - 1)]; x; x = x->next)
        if (x->hash == h && x->len == len && memcmp(x->src, src, len) == 0)
            return x;
    dc_lexpr *x = dc_arena_zalloc(&l->arena, sizeof *x);
    if (!x)
        return l->oom = true, NULL;
    x->src = src;
    x->len = len;
    dc_lint_env le = {&l->cfg, l->env, &l->arena};
    if (dc_lint_expr(&le, x) != DRACEL_OK)
        return l->oom = true, NULL;
    x->hash = h;
    x->next = l->ht[h & (l->htcap - 1)];
    l->ht[h & (l->htcap - 1)] = x;
    l->nexpr++;
    return x;
}

/* The selector over the fleet: matched and errored rows. */
static bool select_fleet(dracel_lint *l, dc_lexpr *x)
{
    if (x->sel_done)
        return x->sel_ok;
    x->sel_done = true;
    if (!x->ok)
        return false;
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    dracel_bound *b = NULL;
    dracel_selection *sel = NULL;
    dracel_status st = dracel_compile(l->denv, x->src, x->len, 0, &p, &d);
    if (st == DRACEL_OK)
        st = dracel_bind(p, l->table, &b);
    if (st == DRACEL_OK)
        st = dracel_selection_new(&l->cfg, &sel);
    if (st == DRACEL_OK)
        st = dracel_select(b, l->denv, NULL, sel);
    if (st == DRACEL_OK) {
        uint32_t rows = dracel_table_rows(l->table);
        size_t words = DC_BITS_WORDS(rows);
        x->matched = dc_arena_alloc(&l->arena, (words + 1) * sizeof(uint64_t));
        x->errored = dc_arena_alloc(&l->arena, (words + 1) * sizeof(uint64_t));
        if (!x->matched || !x->errored) {
            l->oom = true;
        } else {
            if (words) {
                memcpy(x->matched, dracel_selection_matched(sel), words * sizeof(uint64_t));
                memcpy(x->errored, dracel_selection_errored(sel), words * sizeof(uint64_t));
            }
            x->erows = dc_arena_alloc(&l->arena, DC_LINT_ERROR_ROWS * sizeof *x->erows);
            x->emsgs = dc_arena_alloc(&l->arena, DC_LINT_ERROR_ROWS * sizeof *x->emsgs);
            if (!x->erows || !x->emsgs)
                l->oom = true;
            for (uint32_t r = 0; r < rows && !l->oom && x->nerr < DC_LINT_ERROR_ROWS; r++) {
                if (!dc_bit(x->errored, r))
                    continue;
                dracel_device_info di;
                const char *m = dracel_selection_error(sel, r);
                if (dracel_table_device(l->table, r, &di) != DRACEL_OK)
                    continue;
                x->erows[x->nerr] = r;
                x->emsgs[x->nerr] = dc_arena_printf(&l->arena, "%s/%s/%s: %s", di.driver,
                                                    di.pool, di.device, m ? m : "error");
                if (!x->emsgs[x->nerr])
                    l->oom = true;
                x->nerr++;
            }
            x->sel_ok = true;
        }
    } else if (st == DRACEL_ENOMEM) {
        l->oom = true;
    }
    dracel_selection_free(sel);
    dracel_bound_free(b);
    dracel_program_free(p);
    dracel_diags_free(d);
    return x->sel_ok;
}

/* ---------------------------------------------------------------------------------------------
 * Selector lists: a class's, or a tier's after its class's
 */

typedef struct lent {
    dc_lexpr *x;
    lsel *sel;              /* NULL: a class of --classes (not linted here) */
    const char *file;
    uint32_t line;
    bool from_class;
    uint32_t index;         /* in its own list */
} lent;

typedef struct lctx {
    dracel_lint *l;
    const lobj *o;
    const ltier *t;         /* NULL: a class's own list */
    const char *class_name;
    lent *e;
    uint32_t n, nclass;     /* entries; how many are the class's */
} lctx;

static bool mine(const lctx *c, uint32_t k)
{
    return c->t ? k >= c->nclass : true;
}

static const char *sel_name(const lctx *c, uint32_t k)
{
    const lent *e = &c->e[k];
    if (e->from_class && c->t)
        return dc_arena_printf(&c->l->arena, "selector #%u of DeviceClass %s", e->index,
                               c->class_name);
    return dc_arena_printf(&c->l->arena, "selector #%u", e->index);
}

static rel rel_of(const lctx *c, uint32_t k, uint32_t off, const char *msg)
{
    rel r = {NULL, 0, 0, msg};
    const lent *e = &c->e[k];
    dracel_lint *l = c->l;
    if (e->sel) {
        uint32_t at = sel_at(l, e->sel, off);
        lfile *f = &l->files[e->sel->file];
        r.file = f->name;
        position(l, f, at, &r.line, &r.col, NULL);
    } else {
        r.file = e->file;
        r.line = e->line;
        r.col = 0;
    }
    return r;
}

static const char *where(dracel_lint *l, const rel *r)
{
    if (!r->file)
        return "";
    if (r->col)
        return dc_arena_printf(&l->arena, "%s:%u:%u", r->file, r->line, r->col);
    return dc_arena_printf(&l->arena, "%s:%u", r->file, r->line);
}

static const char *fact_text(dracel_lint *l, const dc_lexpr *x, const dc_lfact *f)
{
    const char *s = dc_arena_strndup(&l->arena, x->src + f->span.start,
                                     f->span.end - f->span.start);
    if (!s)
        l->oom = true;
    return s ? s : "";
}

static void report_expr(lctx *c, uint32_t k)
{
    dracel_lint *l = c->l;
    lent *e = &c->e[k];
    for (uint32_t i = 0; i < e->x->nfinds; i++) {
        const dc_lxfind *f = &e->x->finds[i];
        emit(l, c->o->off, e->sel->file, sel_at(l, e->sel, f->span.start), f->rule, f->sev,
             f->hint, NULL, "%s", f->msg);
    }
}

static const char *const HINT_ANDED =
    "a device must satisfy every selector (and its class's): for alternatives write one "
    "selector with ||, or list them in order of preference as firstAvailable subrequests";

static void contradictions(lctx *c)
{
    dracel_lint *l = c->l;
    unsigned reported = 0;
    for (uint32_t k = 0; k < c->n && reported < 8; k++) {
        const dc_lexpr *xk = c->e[k].x;
        for (uint32_t i = 0; i < xk->nfacts && reported < 8; i++) {
            const dc_lfact *fb = &xk->facts[i];
            if (!fb->analyzed || !mine(c, k))
                continue;
            if (fb->is_false) {
                emit(l, c->o->off, c->e[k].sel->file, sel_at(l, c->e[k].sel, fb->span.start),
                     DC_LR_CONTRADICTION, DRACEL_SEV_ERROR, NULL, NULL,
                     "%s is the constant false: %s never matches a device", sel_name(c, k),
                     c->t ? c->t->label : "this class");
                reported++;
                continue;
            }
            if (dc_lvset_empty(&fb->set)) {
                emit(l, c->o->off, c->e[k].sel->file, sel_at(l, c->e[k].sel, fb->span.start),
                     DC_LR_CONTRADICTION, DRACEL_SEV_ERROR, NULL, NULL,
                     "`%s` can never be true", fact_text(l, xk, fb));
                reported++;
                continue;
            }
            /* against every earlier condition on the same value (and the earlier ones of this
             * selector) */
            bool done = false;
            for (uint32_t j = 0; j <= k && !done; j++) {
                const dc_lexpr *xj = c->e[j].x;
                uint32_t lim = j == k ? i : xj->nfacts;
                for (uint32_t h = 0; h < lim && !done; h++) {
                    const dc_lfact *fa = &xj->facts[h];
                    if (!fa->analyzed || fa->is_false || !dc_lpath_eq(&fa->path, &fb->path))
                        continue;
                    dc_lvset m;
                    if (!dc_lvset_meet(&l->arena, &fa->set, &fb->set, &m)) {
                        l->oom = true;
                        return;
                    }
                    if (!dc_lvset_empty(&m))
                        continue;
                    const char *ta = fact_text(l, xj, fa), *tb = fact_text(l, xk, fb);
                    const char *val = dc_lpath_str(&l->arena, &fb->path);
                    if (j == k) {
                        emit(l, c->o->off, c->e[k].sel->file,
                             sel_at(l, c->e[k].sel, fb->span.start), DC_LR_CONTRADICTION,
                             DRACEL_SEV_ERROR, "did you mean || ?", NULL,
                             "%s can never be true: `%s` and `%s` cannot both hold for %s",
                             sel_name(c, k), ta, tb, val ? val : "the value");
                    } else {
                        rel r = rel_of(c, j, fa->span.start, "the other condition");
                        emit(l, c->o->off, c->e[k].sel->file,
                             sel_at(l, c->e[k].sel, fb->span.start), DC_LR_CONTRADICTION,
                             DRACEL_SEV_ERROR, HINT_ANDED, &r,
                             "`%s` (%s) and `%s` (%s, %s) can never both hold for %s: %s "
                             "matches no device", tb, sel_name(c, k), ta, sel_name(c, j),
                             where(l, &r), val ? val : "the value",
                             c->t ? c->t->label : "the class");
                    }
                    reported++;
                    done = true;
                }
            }
        }
    }
}

/* Paths the entries before k need present (their selectors are false or errors without). */
static bool present_before(const lctx *c, uint32_t k, const dc_lpath *p)
{
    for (uint32_t j = 0; j < k; j++)
        for (uint32_t i = 0; i < c->e[j].x->npresent; i++)
            if (dc_lpath_eq(&c->e[j].x->present[i], p))
                return true;
    return false;
}

static const dc_tcol *column(dracel_lint *l, const dc_lpath *p)
{
    const dc_table *t = dc_api_table(l->table);
    return dc_table_col(t, p->kind == LP_CAP, p->dom, strlen(p->dom), p->id, strlen(p->id));
}

static bool row_has(const dc_tcol *col, uint32_t r)
{
    if (!col)
        return false;
    if (dc_bit(col->present, r))
        return true;
    for (uint32_t i = 0; i < col->nforeign; i++)
        if (col->foreign[i].row == r)
            return true;
    return false;
}

static uint32_t popcount(const uint64_t *b, uint32_t rows)
{
    uint32_t n = 0;
    for (size_t w = 0; w < DC_BITS_WORDS(rows); w++)
        n += (uint32_t)__builtin_popcountll(b[w]);
    return n;
}

/* ---- What drivers publish: a read behind a check of device.driver */

/* Meets out with f's set when f is about p. */
static void ctx_meet(dracel_lint *l, const dc_lfact *f, const dc_lpath *p, dc_lvset *out,
                     bool *any)
{
    if (!f->analyzed || f->is_false || !dc_lpath_eq(&f->path, p))
        return;
    dc_lvset m;
    if (!dc_lvset_meet(&l->arena, out, &f->set, &m)) {
        l->oom = true;
        return;
    }
    *out = m;
    *any = true;
}

/* The values of p that hold wherever read a of entry k counts: its own selector's conditions
 * around it, and the selectors before it (the class's first), each of which is true there.
 * False when none of them speaks of p. */
static bool ctx_set(lctx *c, uint32_t k, const dc_lacc *a, const dc_lpath *p, dc_lvset *out)
{
    bool any = false;
    dc_lvset_all(out);
    for (uint32_t i = 0; i < a->nctx; i++)
        ctx_meet(c->l, &a->ctx[i], p, out, &any);
    for (uint32_t j = 0; j < k; j++)
        for (uint32_t i = 0; i < c->e[j].x->nfacts; i++)
            ctx_meet(c->l, &c->e[j].x->facts[i], p, out, &any);
    return any;
}

/* A finite, non-empty set of strings, and only strings. */
static bool only_strs(const dc_lvset *s)
{
    return s->sfin && s->sv.n && !s->absent && (s->kinds & ~LK_STR) == 0;
}

static bool row_covers(lctx *c, uint32_t k, const dc_lacc *a, const dc_lpub *row,
                       const char *drv)
{
    if (strcmp(row->driver, drv) != 0 || row->kind != a->path.kind ||
        strcmp(row->dom, a->path.dom) != 0 || strcmp(row->id, a->path.id) != 0)
        return false;
    if (!row->when)
        return true;
    dc_lpath wp = {LP_ATTR, row->driver, row->when};
    dc_lvset s;
    if (!ctx_set(c, k, a, &wp, &s) || !only_strs(&s))
        return false;
    for (uint32_t i = 0; i < s.sv.n; i++) {
        uint32_t j = 0;
        while (j < row->nin && strcmp(row->in[j], s.sv.v[i]) != 0)
            j++;
        if (j == row->nin)
            return false;
    }
    return true;
}

typedef enum { COVER_NONE, COVER_DRIVER, COVER_TABLE } cover;

/* Whether read a of entry k is behind a check of device.driver (its drivers in *drivers,
 * quoted), and whether each of those drivers publishes it (the table's rows; the file's). */
static cover covered(lctx *c, uint32_t k, const dc_lacc *a, const char **drivers)
{
    dracel_lint *l = c->l;
    dc_lpath dp = {LP_DRIVER, NULL, NULL};
    dc_lvset s;
    if (!ctx_set(c, k, a, &dp, &s))
        return COVER_NONE;
    if (s.sfin && s.sv.n == 0 && !s.absent)
        return COVER_TABLE; /* no driver: never read (a contradiction, reported as one) */
    if (!only_strs(&s))
        return COVER_NONE;
    uint32_t nb;
    const dc_lpub *b = dc_lpub_builtin(&nb);
    bool all = true;
    dc_buf t;
    dc_buf_init(&t, &l->alloc);
    for (uint32_t i = 0; i < s.sv.n; i++) {
        const char *d = s.sv.v[i];
        bool one = false;
        for (uint32_t r = 0; r < nb && !one; r++)
            one = row_covers(c, k, a, &b[r], d);
        for (uint32_t r = 0; r < l->npubs && !one; r++)
            one = row_covers(c, k, a, &l->pubs[r], d);
        all = all && one;
        if (i < 4)
            dc_buf_printf(&t, "%s\"%s\"", i ? ", " : "", d);
        else if (i == 4)
            dc_buf_printf(&t, ", ... (%u drivers)", (unsigned)s.sv.n);
    }
    *drivers = t.oom ? NULL : dc_arena_strndup(&l->arena, t.data, t.len);
    if (!*drivers)
        l->oom = true, *drivers = "";
    dc_buf_free(&t);
    return all ? COVER_TABLE : COVER_DRIVER;
}

static void unguarded(lctx *c, uint32_t k, const uint64_t *reach, uint32_t nreach)
{
    dracel_lint *l = c->l;
    lent *e = &c->e[k];
    for (uint32_t i = 0; i < e->x->nacc; i++) {
        const dc_lacc *a = &e->x->acc[i];
        if (present_before(c, k, &a->path))
            continue;
        const char *drv = "";
        cover cv = covered(c, k, a, &drv);
        bool cap = a->path.kind == LP_CAP;
        char hint[400];
        snprintf(hint, sizeof hint,
                 "guard it: has(%s) && ..., \"%s\" in device.%s[\"%s\"] && ..., or "
                 "device.%s[\"%s\"].?%s.orValue(DEFAULT)",
                 a->text, a->path.id, cap ? "capacity" : "attributes", a->path.dom,
                 cap ? "capacity" : "attributes", a->path.dom, a->path.id);
        uint32_t at = sel_at(l, e->sel, a->span.start);
        if (reach) {
            const dc_tcol *col = column(l, &a->path);
            uint32_t rows = dracel_table_rows(l->table), lack = 0;
            /* a device without it reaches the read when the selector is an error there (a
             * driver check before it, false, does not) */
            for (uint32_t r = 0; r < rows; r++)
                if (dc_bit(reach, r) && dc_bit(e->x->errored, r) && !row_has(col, r))
                    lack++;
            if (lack == 0 && cv == COVER_TABLE)
                continue;
            if (lack == 0)
                emit(l, c->o->off, e->sel->file, at, DC_LR_UNGUARDED, DRACEL_SEV_NOTE, hint,
                     NULL,
                     "%s is read without has() or optional syntax: each of the %u devices of "
                     "--slices that reach this selector has it, but on a device without it the "
                     "selector is an error and Kubernetes fails the whole pod's allocation",
                     a->text, nreach);
            else
                emit(l, c->o->off, e->sel->file, at, DC_LR_UNGUARDED, DRACEL_SEV_WARNING, hint,
                     NULL,
                     "%s is read without has() or optional syntax: on a device without it the "
                     "selector is an error and Kubernetes fails the whole pod's allocation; %u "
                     "of the %u devices of --slices that reach this selector reach the read "
                     "without it",
                     a->text, lack, nreach);
        } else if (cv == COVER_DRIVER) {
            emit(l, c->o->off, e->sel->file, at, DC_LR_UNGUARDED, DRACEL_SEV_NOTE, hint, NULL,
                 "%s is read without has() or optional syntax, behind a check of device.driver "
                 "(%s): safe if the driver publishes it on every device that reaches the read, "
                 "which lint's table of what drivers publish does not say (a PublishedAttributes "
                 "file can)",
                 a->text, drv);
        } else if (cv == COVER_NONE) {
            emit(l, c->o->off, e->sel->file, at, DC_LR_UNGUARDED, DRACEL_SEV_WARNING, hint, NULL,
                 "%s is read without has() or optional syntax: on a device without it the "
                 "selector is an error and Kubernetes fails the whole pod's allocation, not just "
                 "that device",
                 a->text);
        }
    }
}

static void versions(lctx *c, uint32_t k)
{
    dracel_lint *l = c->l;
    lent *e = &c->e[k];
    for (uint32_t i = 0; i < e->x->nvcmp; i++) {
        const dc_lvcmp *v = &e->x->vcmp[i];
        bool fleet = false;
        if (l->table) {
            const dc_tcol *col = column(l, &v->path);
            fleet = col && col->kind == DC_COL_VERSION;
        }
        if (!v->named && !fleet)
            continue;
        char hint[300];
        snprintf(hint, sizeof hint, "compare versions: %s %s semver(\"%s\")%s", v->text,
                 v->equality ? "==" : ".compareTo(", v->lit, v->equality ? "" : ") >= 0");
        if (!v->equality)
            snprintf(hint, sizeof hint, "compare versions: %s.compareTo(semver(\"%s\")) >= 0",
                     v->text, v->lit);
        emit(l, c->o->off, e->sel->file, sel_at(l, e->sel, v->span.start),
             DC_LR_VERSION_STRING, DRACEL_SEV_WARNING, hint, NULL,
             "%s %s a version, compared here with the string \"%s\": %s", v->text,
             fleet ? "is (in --slices)" : "looks like", v->lit,
             v->attr_left || !v->equality
                 ? "on a device where it is a version this is an error (no such overload), which "
                   "aborts the allocation"
                 : "a version never equals a string, so this is always false (\"x\" == version)");
    }
}

/* Per row of the fleet: the node it is tied to by name (an index), or NONE. */
static bool fleet_nodes(dracel_lint *l)
{
    if (l->nodes_done)
        return l->row_node != NULL || dracel_table_rows(l->table) == 0;
    l->nodes_done = true;
    const dc_table *t = dc_api_table(l->table);
    uint32_t rows = t->rows;
    if (!rows)
        return true;
    l->row_node = dc_arena_alloc(&l->arena, rows * sizeof *l->row_node);
    uint32_t *ids = dc_arena_alloc(&l->arena, rows * sizeof *ids);
    if (!l->row_node || !ids)
        return l->oom = true, false;
    uint32_t n = 0;
    for (uint32_t r = 0; r < rows; r++) {
        l->row_node[r] = NONE;
        if (t->node_kind[r] != DC_NODE_NAME)
            continue;
        uint32_t k = 0;
        while (k < n && ids[k] != t->node[r])
            k++;
        if (k == n)
            ids[n++] = t->node[r];
        l->row_node[r] = k;
    }
    l->nnodes = n;
    return true;
}

static void fleet_tier(lctx *c, const uint64_t *reach)
{
    dracel_lint *l = c->l;
    const ltier *t = c->t;
    uint32_t rows = dracel_table_rows(l->table), m = popcount(reach, rows);
    const dc_subreq_in *s = t->sub;
    bool exact = s->name == NULL; /* `exactly`: no alternative */
    if (m == 0) {
        emit(l, c->o->off, c->o->file, t->at, DC_LR_NO_MATCH,
             exact ? DRACEL_SEV_ERROR : DRACEL_SEV_WARNING,
             exact ? "check the selectors against the devices the drivers publish"
                   : "check its selectors, or drop the subrequest",
             NULL, "%s matches none of the %u devices of --slices%s", t->label, rows,
             c->nclass ? "" : " (its class's selectors not counted: --classes)");
        return;
    }
    bool all = s->mode && strcmp(s->mode, "All") == 0;
    if (all || (s->mode && strcmp(s->mode, "ExactCount") != 0) || s->count <= 1 ||
        !fleet_nodes(l))
        return;
    uint32_t untied = 0, best = 0;
    uint32_t *per = l->nnodes ? dc_arena_zalloc(&l->arena, l->nnodes * sizeof *per) : NULL;
    if (l->nnodes && !per) {
        l->oom = true;
        return;
    }
    for (uint32_t r = 0; r < rows; r++) {
        if (!dc_bit(reach, r))
            continue;
        if (l->row_node[r] == NONE)
            untied++;
        else if (++per[l->row_node[r]] > best)
            best = per[l->row_node[r]];
    }
    if ((int64_t)(best + untied) < s->count)
        emit(l, c->o->off, c->o->file, t->at_count, DC_LR_COUNT,
             exact ? DRACEL_SEV_ERROR : DRACEL_SEV_WARNING, "lower the count", NULL,
             "%s asks for %lld devices, but no node of --slices has more than %u that its "
             "selectors accept", t->label, (long long)s->count, best + untied);
}

/* A bitmap of every row of --slices (in the arena); NULL when memory ran out. */
static uint64_t *every_row(dracel_lint *l)
{
    uint32_t rows = dracel_table_rows(l->table);
    size_t words = DC_BITS_WORDS(rows);
    uint64_t *b = dc_arena_alloc(&l->arena, (words + 1) * sizeof *b);
    if (!b)
        return l->oom = true, NULL;
    for (size_t w = 0; w < words; w++)
        b[w] = ~(uint64_t)0;
    if (rows % 64)
        b[words - 1] = ((uint64_t)1 << (rows % 64)) - 1;
    return b;
}

static void analyse_list(lctx *c)
{
    dracel_lint *l = c->l;
    for (uint32_t k = 0; k < c->n; k++)
        if (mine(c, k)) {
            report_expr(c, k);
            versions(c, k);
        }
    contradictions(c);
    bool fleet = l->table != NULL;
    for (uint32_t k = 0; k < c->n && fleet; k++)
        fleet = select_fleet(l, c->e[k].x);
    if (!fleet) {
        for (uint32_t k = 0; k < c->n; k++)
            if (mine(c, k))
                unguarded(c, k, NULL, 0);
        return;
    }
    uint32_t rows = dracel_table_rows(l->table);
    size_t words = DC_BITS_WORDS(rows);
    uint64_t *reach = every_row(l);
    if (!reach)
        return;
    for (uint32_t k = 0; k < c->n; k++) {
        const dc_lexpr *x = c->e[k].x;
        uint32_t nreach = popcount(reach, rows);
        if (mine(c, k)) {
            unguarded(c, k, reach, nreach);
            uint32_t errs = 0, first = NONE;
            for (size_t w = 0; w < words; w++) {
                uint64_t b = x->errored[w] & reach[w];
                if (b && first == NONE)
                    first = (uint32_t)(w * 64 + (uint32_t)__builtin_ctzll(b));
                errs += (uint32_t)__builtin_popcountll(b);
            }
            if (errs) {
                const char *ex = NULL;
                for (uint32_t i = 0; i < x->nerr && !ex; i++)
                    if (dc_bit(reach, x->erows[i]))
                        ex = x->emsgs[i];
                if (!ex && first != NONE) {
                    dracel_device_info di;
                    if (dracel_table_device(l->table, first, &di) == DRACEL_OK)
                        ex = dc_arena_printf(&l->arena, "%s/%s/%s", di.driver, di.pool,
                                             di.device);
                }
                emit(l, c->o->off, c->e[k].sel->file, sel_at(l, c->e[k].sel, 0), DC_LR_RUNTIME,
                     DRACEL_SEV_ERROR, "guard what it reads (has(), .?name.orValue())", NULL,
                     "%s is an error on %u of the %u devices of --slices that reach it (%s): on "
                     "such a device Kubernetes aborts the pod's allocation", sel_name(c, k),
                     errs, nreach, ex ? ex : "?");
            }
        }
        for (size_t w = 0; w < words; w++)
            reach[w] &= x->matched[w];
    }
    if (c->t)
        fleet_tier(c, reach);
}

/* ---------------------------------------------------------------------------------------------
 * Classes and claims
 */

/* A class of the linted files, or of --classes: its entries. */
static bool class_entries(dracel_lint *l, const char *name, lent **out, uint32_t *n,
                          bool *known)
{
    *out = NULL;
    *n = 0;
    *known = false;
    for (uint32_t i = 0; i < l->nobj; i++) {
        const lobj *o = &l->obj[i];
        if (o->kind != DC_OBJ_CLASS || !o->cl || strcmp(o->name, name) != 0)
            continue;
        *known = true;
        lent *e = o->nsels ? dc_arena_zalloc(&l->arena, o->nsels * sizeof *e) : NULL;
        if (o->nsels && !e)
            return l->oom = true, false;
        for (uint32_t k = 0; k < o->nsels; k++) {
            e[k].x = expr_of(l, o->sels[k].expr, o->sels[k].len);
            if (!e[k].x)
                return false;
            e[k].sel = &o->sels[k];
            e[k].from_class = true;
            e[k].index = k;
        }
        *out = e;
        *n = o->nsels;
        return true;
    }
    if (!l->classes)
        return true;
    const dc_objects *co = &l->classes->o;
    uint32_t idx = dc_objects_find(co, DC_OBJ_CLASS, NULL, name);
    if (idx == UINT32_MAX)
        return true;
    *known = true;
    const dc_class_in *cl = &co->classes[idx];
    lent *e = cl->nsels ? dc_arena_zalloc(&l->arena, cl->nsels * sizeof *e) : NULL;
    if (cl->nsels && !e)
        return l->oom = true, false;
    uint32_t k = 0;
    for (uint32_t i = 0; i < cl->nsels; i++) {
        if (!cl->sels[i].expr)
            continue;
        e[k].x = expr_of(l, cl->sels[i].expr, cl->sels[i].len);
        if (!e[k].x)
            return false;
        e[k].file = cl->file;
        e[k].line = cl->sels[i].line;
        e[k].from_class = true;
        e[k].index = i;
        k++;
    }
    *out = e;
    *n = k;
    return true;
}

static bool tier_list(dracel_lint *l, const lobj *o, const ltier *t, lctx *c)
{
    memset(c, 0, sizeof *c);
    c->l = l;
    c->o = o;
    c->t = t;
    const dc_subreq_in *s = t->sub;
    lent *ce = NULL;
    uint32_t nce = 0;
    bool known = false;
    if (!s->class_name) {
        emit(l, o->off, o->file, t->at, DC_LR_CLASS_REQUIRED, DRACEL_SEV_ERROR,
             "name the DeviceClass of the devices it asks for", NULL,
             "%s has no deviceClassName, which resource.k8s.io/v1 requires", t->label);
    } else {
        if (!class_entries(l, s->class_name, &ce, &nce, &known))
            return false;
        if (!known && l->classes)
            emit(l, o->off, o->file, t->at_class, DC_LR_CLASS_UNKNOWN, DRACEL_SEV_ERROR,
                 "create the class, or name one of --classes", NULL,
                 "%s names DeviceClass %s, which does not exist (not in --classes nor in the "
                 "files linted): the allocator fails with \"device class %s not found\"",
                 t->label, s->class_name, s->class_name);
    }
    c->class_name = s->class_name;
    c->nclass = nce;
    c->n = nce + t->nsels;
    c->e = c->n ? dc_arena_zalloc(&l->arena, c->n * sizeof *c->e) : NULL;
    if (c->n && !c->e)
        return l->oom = true, false;
    for (uint32_t k = 0; k < nce; k++)
        c->e[k] = ce[k];
    for (uint32_t k = 0; k < t->nsels; k++) {
        lent *e = &c->e[nce + k];
        e->x = expr_of(l, t->sels[k].expr, t->sels[k].len);
        if (!e->x)
            return false;
        e->sel = &t->sels[k];
        e->index = k;
    }
    return true;
}

static bool same_tols(const dc_subreq_in *a, const dc_subreq_in *b)
{
    if (a->ntols != b->ntols)
        return false;
    for (uint32_t i = 0; i < a->ntols; i++) {
        const dc_toleration_in *x = &a->tols[i], *y = &b->tols[i];
#define SEQ(p, q) ((p) == (q) || ((p) && (q) && strcmp((p), (q)) == 0))
        if (!SEQ(x->key, y->key) || !SEQ(x->op, y->op) || !SEQ(x->value, y->value) ||
            !SEQ(x->effect, y->effect) || x->has_seconds != y->has_seconds ||
            x->seconds != y->seconds)
            return false;
#undef SEQ
    }
    return true;
}

/* A constraint that names req/sub itself (not the whole request). */
static bool named_by_constraint(const dc_claim_in *cm, const dc_request_in *q,
                                const dc_subreq_in *s)
{
    size_t qn = strlen(q->name);
    for (uint32_t i = 0; i < cm->ncons; i++)
        for (uint32_t k = 0; k < cm->cons[i].nrequests; k++) {
            const char *r = cm->cons[i].requests[k];
            if (strncmp(r, q->name, qn) == 0 && r[qn] == '/' && strcmp(r + qn + 1, s->name) == 0)
                return true;
        }
    return false;
}

/* Does every device the later tier (entries b) accepts pass the earlier tier's own selectors
 * (entries a from a->nclass on)? Proved only from exact facts and identical conditions. */
static bool covers(dracel_lint *l, const lctx *a, const lctx *b)
{
    for (uint32_t k = a->nclass; k < a->n; k++) {
        const dc_lexpr *xa = a->e[k].x;
        if (!xa->ok)
            return false;
        for (uint32_t i = 0; i < xa->nfacts; i++) {
            const dc_lfact *fa = &xa->facts[i];
            bool ok = false;
            /* the same condition in the later tier */
            for (uint32_t j = 0; j < b->n && !ok; j++)
                for (uint32_t h = 0; h < b->e[j].x->nfacts && !ok; h++)
                    ok = strcmp(b->e[j].x->facts[h].canon, fa->canon) == 0;
            if (ok)
                continue;
            if (!fa->analyzed || !fa->exact || fa->is_false)
                return false;
            /* what the later tier allows of the value, over all its conditions */
            dc_lvset m;
            dc_lvset_all(&m);
            for (uint32_t j = 0; j < b->n; j++) {
                const dc_lexpr *xb = b->e[j].x;
                for (uint32_t h = 0; h < xb->nfacts; h++) {
                    const dc_lfact *fb = &xb->facts[h];
                    if (!fb->analyzed || fb->is_false || !dc_lpath_eq(&fb->path, &fa->path))
                        continue;
                    if (!dc_lvset_meet(&l->arena, &m, &fb->set, &m)) {
                        l->oom = true;
                        return false;
                    }
                }
            }
            if (!dc_lvset_subset(&m, &fa->set))
                return false;
        }
    }
    return true;
}

static bool same_selectors(const lctx *a, const lctx *b)
{
    uint32_t na = a->n - a->nclass, nb = b->n - b->nclass;
    if (na != nb)
        return false;
    for (uint32_t k = 0; k < na; k++) {
        const dc_lexpr *x = a->e[a->nclass + k].x;
        bool found = false;
        for (uint32_t j = 0; j < nb && !found; j++) {
            const dc_lexpr *y = b->e[b->nclass + j].x;
            found = x->canon && y->canon ? strcmp(x->canon, y->canon) == 0
                                         : x->len == y->len && memcmp(x->src, y->src, x->len) == 0;
        }
        if (!found)
            return false;
    }
    return true;
}

static void tiers(dracel_lint *l, const lobj *o, const lreq *q, lctx *ctx)
{
    for (uint32_t j = 1; j < q->ntiers; j++) {
        const dc_subreq_in *sj = q->tiers[j].sub;
        for (uint32_t i = 0; i < j; i++) {
            const dc_subreq_in *si = q->tiers[i].sub;
            bool ec_i = !si->mode || strcmp(si->mode, "ExactCount") == 0;
            bool ec_j = !sj->mode || strcmp(sj->mode, "ExactCount") == 0;
            if (!ec_i || !ec_j || si->count > sj->count || si->capacity_requests ||
                sj->capacity_requests || !same_tols(si, sj) || !si->class_name ||
                !sj->class_name || strcmp(si->class_name, sj->class_name) != 0 ||
                named_by_constraint(o->cm, q->q, si))
                continue;
            bool dup = si->count == sj->count && same_selectors(&ctx[i], &ctx[j]);
            if (!dup && !covers(l, &ctx[i], &ctx[j]))
                continue;
            if (dup)
                emit(l, o->off, o->file, q->tiers[j].at_name, DC_LR_TIER_DUP, DRACEL_SEV_WARNING,
                     "remove it, or change what it asks for", NULL,
                     "%s is the same as %s before it: it is never chosen", q->tiers[j].label,
                     q->tiers[i].label);
            else
                emit(l, o->off, o->file, q->tiers[j].at_name, DC_LR_TIER_SUB, DRACEL_SEV_WARNING,
                     "put the narrower subrequest first: firstAvailable is tried in order", NULL,
                     "%s can never be chosen: %s before it accepts every device it accepts "
                     "(same class, %s selectors) and needs %s",
                     q->tiers[j].label, q->tiers[i].label, "weaker",
                     si->count == sj->count ? "as many" : "fewer");
            break;
        }
    }
}

static void claim(dracel_lint *l, const lobj *o)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < o->nreqs && !l->oom; i++) {
        const lreq *q = &o->reqs[i];
        lctx *ctx = dc_arena_zalloc(&l->arena, (q->ntiers ? q->ntiers : 1) * sizeof *ctx);
        if (!ctx) {
            l->oom = true;
            return;
        }
        int64_t least = INT64_MAX;
        for (uint32_t j = 0; j < q->ntiers; j++) {
            if (!tier_list(l, o, &q->tiers[j], &ctx[j]))
                return;
            analyse_list(&ctx[j]);
            const dc_subreq_in *s = q->tiers[j].sub;
            int64_t n = !s->mode || strcmp(s->mode, "ExactCount") == 0 ? s->count : 1;
            if (n < least)
                least = n;
        }
        if (q->q->first_available)
            tiers(l, o, q, ctx);
        if (least != INT64_MAX && least > 0)
            total += (uint64_t)least;
    }
    if (total > MAX_RESULTS)
        emit(l, o->off, o->file, o->at_requests, DC_LR_CLAIM_LIMIT, DRACEL_SEV_ERROR,
             "split the devices over several claims", NULL,
             "%s %s asks for at least %llu devices: Kubernetes allocates at most %u to one claim",
             o->kname, o->name, (unsigned long long)total, MAX_RESULTS);
}

static void dclass(dracel_lint *l, const lobj *o)
{
    lctx c;
    memset(&c, 0, sizeof c);
    c.l = l;
    c.o = o;
    c.n = o->nsels;
    c.e = c.n ? dc_arena_zalloc(&l->arena, c.n * sizeof *c.e) : NULL;
    if (c.n && !c.e) {
        l->oom = true;
        return;
    }
    for (uint32_t k = 0; k < c.n; k++) {
        c.e[k].x = expr_of(l, o->sels[k].expr, o->sels[k].len);
        if (!c.e[k].x)
            return;
        c.e[k].sel = &o->sels[k];
        c.e[k].index = k;
    }
    analyse_list(&c);
}

/* ---------------------------------------------------------------------------------------------
 * TierPolicies: their keys against the claims and classes linted, caps and reserves against
 * the tiers' sizes in --slices, and the namespaces that fall to the default tenant
 */

/* The devices of --slices that every entry accepts; false when one cannot be evaluated. */
static bool list_size(dracel_lint *l, const lent *e, uint32_t n, uint32_t *out)
{
    uint32_t rows = dracel_table_rows(l->table);
    size_t words = DC_BITS_WORDS(rows);
    uint64_t *reach = every_row(l);
    if (!reach)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        if (!select_fleet(l, e[k].x))
            return false;
        for (size_t w = 0; w < words; w++)
            reach[w] &= e[k].x->matched[w];
    }
    *out = popcount(reach, rows);
    return true;
}

/* A request's or subrequest's devices: its class's selectors and its own. */
static bool tier_size(dracel_lint *l, const ltier *t, uint32_t *out)
{
    lent *ce = NULL;
    uint32_t nce = 0;
    bool known = false;
    if (t->sub->class_name && !class_entries(l, t->sub->class_name, &ce, &nce, &known))
        return false;
    uint32_t n = nce + t->nsels;
    lent *e = n ? dc_arena_zalloc(&l->arena, n * sizeof *e) : NULL;
    if (n && !e)
        return l->oom = true, false;
    for (uint32_t k = 0; k < nce; k++)
        e[k] = ce[k];
    for (uint32_t k = 0; k < t->nsels; k++)
        if (!(e[nce + k].x = expr_of(l, t->sels[k].expr, t->sels[k].len)))
            return false;
    return list_size(l, e, n, out);
}

/* What key k names (docs/fairness.md: a request or subrequest of the claim at hand, else a
 * DeviceClass), its size over every claim that has it, and why it names nothing. */
static void resolve(dracel_lint *l, lpkey *k)
{
    if (k->done)
        return;
    k->done = true;
    const char *slash = strchr(k->key, '/');
    size_t rl = slash ? (size_t)(slash - k->key) : strlen(k->key);
    bool all_sized = l->table != NULL;
    uint32_t n;
    for (uint32_t i = 0; i < l->nobj && !l->oom; i++) {
        const lobj *o = &l->obj[i];
        for (uint32_t j = 0; o->cm && j < o->nreqs; j++) {
            const lreq *q = &o->reqs[j];
            const char *qn = q->q->name;
            if (!qn || strlen(qn) != rl || memcmp(qn, k->key, rl) != 0)
                continue;
            bool hit = false;
            for (uint32_t t = 0; t < q->ntiers; t++) {
                const char *sn = q->tiers[t].sub->name;
                if (slash ? !q->q->first_available || !sn || strcmp(sn, slash + 1) != 0
                          : q->q->first_available)
                    continue;
                hit = k->request = true;
                if (all_sized && tier_size(l, &q->tiers[t], &n))
                    k->size = n > k->size ? n : k->size;
                else
                    all_sized = false;
            }
            if (hit || k->why)
                continue;
            /* the request is there, its devices count under another key */
            char subs[160] = "";
            size_t sl = 0;
            for (uint32_t t = 0; q->q->first_available && t < q->ntiers; t++)
                sl += (size_t)snprintf(subs + sl, sl < sizeof subs ? sizeof subs - sl : 0,
                                       "%s%.*s/%s", t ? ", " : "", (int)rl, qn,
                                       q->tiers[t].sub->name ? q->tiers[t].sub->name : "?");
            if (sl >= sizeof subs)
                memcpy(subs + sizeof subs - 4, "...", 4);
            k->why = !q->q->first_available
                         ? dc_arena_printf(&l->arena,
                                           "request %.*s of %s %s has no firstAvailable "
                                           "subrequests: its devices count as %.*s",
                                           (int)rl, qn, o->kname, o->name, (int)rl, qn)
                     : slash ? dc_arena_printf(&l->arena,
                                               "request %.*s of %s %s has no subrequest %s "
                                               "(its devices count as %s)",
                                               (int)rl, qn, o->kname, o->name, slash + 1, subs)
                             : dc_arena_printf(&l->arena,
                                               "request %.*s of %s %s has firstAvailable "
                                               "subrequests, which allocation results name: its "
                                               "devices count as %s, never as %.*s",
                                               (int)rl, qn, o->kname, o->name, subs, (int)rl,
                                               qn);
            if (!k->why)
                l->oom = true;
        }
    }
    if (!slash) {
        lent *ce = NULL;
        uint32_t nce = 0;
        bool known = false;
        if (class_entries(l, k->key, &ce, &nce, &known) && known) {
            k->klass = true;
            if (all_sized && list_size(l, ce, nce, &n))
                k->size = n > k->size ? n : k->size;
            else
                all_sized = false;
        }
    }
    k->sized = all_sized && (k->request || k->klass);
    if (!k->why && !k->request && !k->klass)
        k->why = slash ? dc_arena_printf(&l->arena, "no claim linted has a request %.*s",
                                         (int)rl, k->key)
                 : strchr(k->key, '.')
                     ? "no DeviceClass of that name is linted or in --classes"
                     : "no claim linted has a request of that name, and no DeviceClass has it";
    if (!k->why && !(k->request || k->klass))
        l->oom = true;
}

static int cmp_pstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void policy(dracel_lint *l, lpol *p)
{
    if (!p->ok)
        return;
    bool claims = false, classes = l->classes != NULL;
    for (uint32_t i = 0; i < l->nobj; i++) {
        claims |= l->obj[i].cm != NULL;
        classes |= l->obj[i].kind == DC_OBJ_CLASS && l->obj[i].cl != NULL;
    }
    static const char *const HINT_KEY =
        "name a key as allocation results name it (REQUEST or REQUEST/SUBREQUEST) or a "
        "DeviceClass; lint the policy with the claims and classes it governs";
    for (uint32_t i = 0; i < p->n && !l->oom; i++) {
        const lpent *x = &p->e[i];
        if (x->key == NONE) { /* the policy's idleReserve: every key's */
            for (uint32_t j = 0; j < p->nkeys && x->count >= 0 && l->table && !l->oom; j++) {
                lpkey *k = &p->keys[j];
                resolve(l, k);
                if (k->sized && (uint64_t)x->count > k->size)
                    emit(l, p->off, p->file, x->at, DC_LR_POLICY_SIZE, DRACEL_SEV_WARNING,
                         "lower the reserve, or give the key its own (tiers: {KEY: "
                         "{idleReserve: N}})", NULL,
                         "the idle reserve of %lld devices is above the size of %s, %u devices "
                         "of --slices: no tenant may ever borrow there", (long long)x->count,
                         k->key, k->size);
            }
            continue;
        }
        lpkey *k = &p->keys[x->key];
        resolve(l, k);
        if (!k->request && !k->klass) {
            const char *slash = strchr(k->key, '/');
            if (slash ? claims : strchr(k->key, '.') ? classes : claims && classes) {
                if (x->tenant)
                    emit(l, p->off, p->file, x->at, DC_LR_POLICY_KEY, DRACEL_SEV_ERROR, HINT_KEY,
                         NULL,
                         "tenant %s's cap on %s names nothing (%s): no device counts toward it, "
                         "so the tenant is not capped", x->tenant, k->key, k->why);
                else
                    emit(l, p->off, p->file, x->at, DC_LR_POLICY_KEY, DRACEL_SEV_ERROR, HINT_KEY,
                         NULL, "the idle reserve of %s names nothing (%s): it holds nothing back",
                         k->key, k->why);
            }
            continue;
        }
        if (!k->sized || x->count < 0 || (uint64_t)x->count <= k->size)
            continue;
        if (x->tenant)
            emit(l, p->off, p->file, x->at, DC_LR_POLICY_SIZE, DRACEL_SEV_WARNING,
                 "lower the cap, or write it as a share (50%) of the tier", NULL,
                 "tenant %s's cap of %lld on %s is above the tier's size, %u devices of "
                 "--slices: it never refuses anything", x->tenant, (long long)x->count, k->key,
                 k->size);
        else
            emit(l, p->off, p->file, x->at, DC_LR_POLICY_SIZE, DRACEL_SEV_WARNING,
                 "lower the reserve, or write it as a share (10%) of the tier", NULL,
                 "the idle reserve of %lld on %s is above the tier's size, %u devices of "
                 "--slices: no tenant may ever borrow there", (long long)x->count, k->key,
                 k->size);
    }
    if (!p->nns)
        return;
    dc_sort(p->ns, p->nns, sizeof *p->ns, cmp_pstr);
    for (uint32_t i = 0; i < l->nobj && !l->oom; i++) {
        const lobj *o = &l->obj[i];
        const char *ns = o->cm ? o->cm->namespace : NULL;
        if (!ns || o->at_ns == NONE)
            continue;
        uint32_t lo = 0, hi = p->nns;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            int c = strcmp(p->ns[mid], ns);
            if (c == 0)
                break;
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < hi)
            continue;
        emit(l, o->off, o->file, o->at_ns, DC_LR_POLICY_DEFAULT, DRACEL_SEV_NOTE,
             "add the namespace to its tenant's namespaces, if it has one", NULL,
             "%s %s is in namespace %s, which no tenant of TierPolicy %s names: its pods are "
             "the default tenant's (%s)%s", o->kname, o->name, ns, p->name, p->dflt,
             p->by_label ? ", unless a tenant's podLabel is on them" : "");
    }
}

static int cmp_find(const void *a, const void *b)
{
    const lfind *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

dracel_status dracel_lint_run(dracel_lint *l)
{
    if (!l || l->ran)
        return DRACEL_EINVAL;
    l->ran = true;
    for (uint32_t i = 0; i < l->nobj && !l->oom; i++) {
        const lobj *o = &l->obj[i];
        if (o->cl)
            dclass(l, o);
        else if (o->cm)
            claim(l, o);
    }
    for (uint32_t i = 0; i < l->npols && !l->oom; i++)
        policy(l, &l->pols[i]);
    if (l->oom)
        return DRACEL_ENOMEM;
    dc_sort(l->finds, l->nfinds, sizeof *l->finds, cmp_find);
    /* one finding where two paths (a template linted through two routes) gave the same */
    uint32_t k = 0;
    for (uint32_t i = 0; i < l->nfinds; i++) {
        const lfind *p = k ? &l->finds[k - 1] : NULL, *x = &l->finds[i];
        if (p && p->file == x->file && p->at == x->at && p->rule == x->rule &&
            strcmp(p->msg, x->msg) == 0)
            continue;
        l->finds[k++] = *x;
    }
    l->nfinds = k;
    return DRACEL_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Reading the results
 */

size_t dracel_lint_files(const dracel_lint *l)
{
    return l ? l->nfiles : 0;
}

size_t dracel_lint_objects(const dracel_lint *l)
{
    return l ? l->nobj + l->npols : 0;
}

size_t dracel_lint_notes(const dracel_lint *l)
{
    return l ? l->nnotes : 0;
}

const char *dracel_lint_note(const dracel_lint *l, size_t i)
{
    return l && i < l->nnotes ? l->notes[i] : NULL;
}

size_t dracel_lint_count(const dracel_lint *l)
{
    return l && l->ran ? l->nfinds : 0;
}

dracel_status dracel_lint_finding_size(const dracel_lint *l, size_t i, dracel_finding *out,
                                       size_t size)
{
    if (!l || !out || !l->ran || i >= l->nfinds)
        return DRACEL_EINVAL;
    const lfind *x = &l->finds[i];
    dracel_finding f = {l->files[x->file].name, x->line, x->col, x->sev, RULES[x->rule].id,
                        x->msg, x->hint, x->source, x->rfile, x->rline, x->rcol, x->rmsg};
    return dc_struct_write(out, size, &f, sizeof f, sizeof f);
}
