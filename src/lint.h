/*
 * lint.h: the insides of `dra-celc lint` (the public API is dracel_lint_* in dracel.h;
 * docs/lint.md lists the rules). Three parts:
 *
 *   src/srcmap.c     where each byte of a YAML or JSON string came from in its file;
 *   src/lint_expr.c  one CEL selector on its own: Kubernetes' checks (syntax, types,
 *                    unsupported features, the result type, the cost estimate) and the rules
 *                    that read its syntax tree (regular expressions, versions compared with
 *                    strings, quantities with numbers, reads without a guard), and the
 *                    selector as facts: a conjunction of conditions on one device value each;
 *   src/lint.c       the objects of the files (read with src/slices.c's loader), the rules
 *                    over selector lists, tiers, classes and a fleet, the findings and the API.
 *
 * The facts are over-approximations: `set` holds every value (and absence) on which the
 * condition can be true, and `exact` says that it holds no other. Two conditions whose sets do
 * not meet can never both hold (a proof); a tier is subsumed only when every condition of the
 * earlier tier is exact and contains the later tier's. Nothing is reported that these sets do
 * not prove.
 *
 * Change with: src/lint.c, src/lint_expr.c, src/srcmap.c, include/dracel.h (the rules' ids),
 * docs/lint.md, tests/lint/, tests/unit/test_lint.c.
 */
#ifndef DC_LINT_H
#define DC_LINT_H

#include "ast.h"
#include "env.h"
#include "quantity.h"
#include "semver.h"

/* ---- Source maps (src/srcmap.c) */

/** The byte offset in @p text of a node's dc_tnode.off (YAML: characters, a BOM not counted). */
size_t dc_srcmap_byte(const char *text, size_t len, bool json, uint32_t off);
/**
 * The source offset of every byte of the decoded string @p want (@p wlen bytes) whose node
 * starts at byte @p start of @p text (the file, @p len bytes): map[i] for byte i, map[wlen] for
 * the end. In @p a; NULL when the text there does not decode to @p want (or on ENOMEM).
 */
uint32_t *dc_srcmap(dc_arena *a, const char *text, size_t len, size_t start, bool json,
                    const char *want, size_t wlen);

/* ---- Rules. The order is the public one (dracel_lint_rule). */
#define DC_LINT_RULES(X)                                                                        \
    X(SYNTAX, "syntax-error", ERROR)                                                            \
    X(TYPE, "type-error", ERROR)                                                                \
    X(UNSUPPORTED, "unsupported-feature", ERROR)                                                \
    X(NONBOOL, "non-bool-result", ERROR)                                                        \
    X(COST, "cost-limit", ERROR)                                                                \
    X(API_LIMIT, "api-limit", ERROR)                                                            \
    X(INVALID, "invalid-object", ERROR)                                                         \
    X(CONTRADICTION, "contradiction", ERROR)                                                    \
    X(UNGUARDED, "unguarded-access", WARNING)                                                   \
    X(RUNTIME, "runtime-error", ERROR)                                                          \
    X(TIER_DUP, "tier-duplicate", WARNING)                                                      \
    X(TIER_SUB, "tier-unreachable", WARNING)                                                    \
    X(NO_MATCH, "no-match", WARNING)                                                            \
    X(COUNT, "count-exceeds-nodes", WARNING)                                                    \
    X(CLAIM_LIMIT, "too-many-devices", ERROR)                                                   \
    X(VERSION_STRING, "version-string", WARNING)                                                \
    X(QTY_COMPARE, "quantity-compare", ERROR)                                                   \
    X(REGEX_INVALID, "regex-invalid", ERROR)                                                    \
    X(REGEX_ANCHOR, "regex-unanchored", WARNING)                                                \
    X(REGEX_CONST, "regex-not-constant", WARNING)                                               \
    X(CLASS_REQUIRED, "class-required", ERROR)                                                  \
    X(CLASS_UNKNOWN, "unknown-class", ERROR)                                                    \
    X(ANNOTATION, "lint-annotation", WARNING)                                                   \
    X(GATED, "gated-function", WARNING)                                                         \
    X(POLICY_KEY, "policy-unknown-key", ERROR)                                                  \
    X(POLICY_SIZE, "policy-above-size", WARNING)                                                \
    X(POLICY_DEFAULT, "policy-default-tenant", NOTE)                                            \
    X(DEPRECATED, "deprecated-version", NOTE)                                                   \
    X(UNKNOWN_FIELD, "unknown-field", ERROR)

typedef enum dc_lint_rule {
#define DC_LR_ENUM(id, name, sev) DC_LR_##id,
    DC_LINT_RULES(DC_LR_ENUM)
#undef DC_LR_ENUM
    DC_LR__COUNT
} dc_lint_rule;

/** The rule named s[0..n) (an id of DC_LINT_RULES), or -1. */
int dc_lint_rule_find(const char *s, size_t n);

/* ---- Facts */

/* What a device value is: kinds as bits. OTHER: lists (list-type attributes), doubles. */
enum { LK_STR = 1, LK_INT = 2, LK_BOOL = 4, LK_VER = 8, LK_QTY = 16, LK_OTHER = 32,
       LK_ALL = 63 };

/* A device value a selector reads. */
typedef enum dc_lpath_kind { LP_DRIVER, LP_ATTR, LP_CAP, LP_MULTI } dc_lpath_kind;
typedef struct dc_lpath {
    dc_lpath_kind kind;
    const char *dom, *id;   /* LP_ATTR, LP_CAP: device.attributes[dom].id */
} dc_lpath;

typedef struct dc_lstrs {
    const char **v;         /* sorted, distinct */
    uint32_t n;
} dc_lstrs;

typedef struct dc_lints {
    int64_t *v;             /* sorted, distinct */
    uint32_t n;
} dc_lints;

/* An interval of ordered values (versions or quantities). */
typedef struct dc_lrange {
    bool has_lo, has_hi, lo_open, hi_open;
    dc_semver vlo, vhi;
    dc_qty qlo, qhi;
} dc_lrange;

/* A filter on strings that the set cannot represent (contains, matches): applied to finite
 * sets only. */
typedef struct dc_lpred {
    int op;                 /* 1 contains, 2 matches */
    const char *arg;
    uint32_t len;
    struct dc_lpred *next;
} dc_lpred;

/* A set of values (and absence). Each kind in `kinds` has its component; kinds not in it have
 * no value in the set. */
typedef struct dc_lvset {
    bool absent;            /* true on a device without the value */
    uint8_t kinds;
    /* strings: the finite set `sv`, or every string with prefix `pre` and suffix `suf` but
     * those of `sx` */
    bool sfin;
    dc_lstrs sv, sx;
    const char *pre, *suf;
    dc_lpred *preds;
    /* ints: the finite set `iv`, or [ilo, ihi] but those of `ix` */
    bool ifin;
    dc_lints iv, ix;
    int64_t ilo, ihi;
    uint8_t bools;          /* bit 0: false, bit 1: true */
    dc_lrange ver, qty;
} dc_lvset;

/* One condition of a selector's top-level conjunction. */
typedef struct dc_lfact {
    bool analyzed;          /* false: an opaque condition, known only by its text */
    bool exact;
    bool is_false;          /* the constant false */
    dc_lpath path;
    dc_lvset set;
    dracel_span span;       /* in the expression */
    const char *canon;      /* the condition's syntax tree, printed (whitespace does not count) */
} dc_lfact;

/* ---- Findings of one expression (offsets into the expression) */
typedef struct dc_lxfind {
    dc_lint_rule rule;
    dracel_severity sev;
    dracel_span span;
    const char *msg, *hint;
} dc_lxfind;

/* A value read without a guard. */
typedef struct dc_lacc {
    dc_lpath path;
    dracel_span span;
    const char *text;       /* as written: device.attributes["d"].model */
    /* conditions on device.driver and string attributes that hold wherever the read's error
     * counts (the other side of an enclosing `&&`, the condition of an enclosing `?:`'s first
     * branch): src/lint.c adds the selectors before this one and looks the read up in the
     * table of what drivers publish */
    dc_lfact *ctx;
    uint32_t nctx;
} dc_lacc;

/* A version-looking attribute compared with a string. */
typedef struct dc_lvcmp {
    dc_lpath path;
    dracel_span span;
    bool named;             /* the attribute's name says version and the string parses as one */
    bool attr_left;         /* attr OP "x" (an error on a version); else "x" OP attr (false) */
    bool equality;          /* == or != */
    const char *text;       /* the attribute as written */
    const char *lit;        /* the string */
} dc_lvcmp;

#define DC_LINT_ERROR_ROWS 16u

typedef struct dc_lexpr {
    const char *src;
    uint32_t len;
    uint64_t hash;
    struct dc_lexpr *next;  /* hash chain */
    bool ok;                /* parsed and checked without error */
    const char *canon;
    dc_lxfind *finds;
    uint32_t nfinds;
    dc_lfact *facts;
    uint32_t nfacts;
    dc_lpath *present;      /* paths the whole selector is false (or an error) without */
    uint32_t npresent;
    dc_lacc *acc;
    uint32_t nacc;
    dc_lvcmp *vcmp;
    uint32_t nvcmp;
    /* over the fleet (--slices), computed once */
    bool sel_done, sel_ok;
    uint64_t *matched, *errored;
    uint32_t *erows;        /* the first errored rows (at most DC_LINT_ERROR_ROWS) */
    const char **emsgs;     /* their messages, "driver/pool/device: message" */
    uint32_t nerr;
} dc_lexpr;

/* What a driver publishes on every device (src/lint_pub.c): device.attributes[dom].id
 * (LP_ATTR) or device.capacity[dom].id (LP_CAP), on every device of the driver, or on every
 * device whose attribute device.attributes[driver].when is one of in[0..nin). */
typedef struct dc_lpub {
    const char *driver;
    dc_lpath_kind kind;
    const char *dom, *id;
    const char *when;
    const char *const *in;
    uint32_t nin;
} dc_lpub;

/** The built-in rows: NVIDIA's GPU and ComputeDomain drivers, the example driver. */
const dc_lpub *dc_lpub_builtin(uint32_t *n);

typedef struct dc_lint_env {
    const dracel_config *cfg;
    const dc_env *env;      /* the DRA environment */
    dc_arena *arena;        /* where results live */
} dc_lint_env;

/** Analyse @p x (src and len set) into its fields. @return DRACEL_OK or DRACEL_ENOMEM. */
dracel_status dc_lint_expr(const dc_lint_env *le, dc_lexpr *x) DC_WUR;

/* Set algebra (src/lint_expr.c). */
/** The universe: every value of every kind, and absence. */
void dc_lvset_all(dc_lvset *s);
/** *out = a ∩ b (in @p ar). @return false on ENOMEM. */
bool dc_lvset_meet(dc_arena *ar, const dc_lvset *a, const dc_lvset *b, dc_lvset *out);
/** Whether the set is empty (every kind's component and absence). */
bool dc_lvset_empty(const dc_lvset *s);
/** Whether a ⊆ b can be proved. */
bool dc_lvset_subset(const dc_lvset *a, const dc_lvset *b);
bool dc_lpath_eq(const dc_lpath *a, const dc_lpath *b);
/** The path as CEL writes it, in @p ar. */
const char *dc_lpath_str(dc_arena *ar, const dc_lpath *p);

#endif
