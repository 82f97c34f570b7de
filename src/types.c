/*
 * types.c: the checker's static types: shared singletons for the primitive types, arena
 * constructors for the parameterized ones, structural equality, printing in cel-go's two styles,
 * and a parser for the signature texts of src/decls.c ("list(A)", "map(string, dyn)").
 *
 * Invariants: types are immutable once built; a type built here never points into another
 * arena than the one given (or at the static singletons), so an environment's types live as long
 * as its arena. Printing and parsing recurse over the type's nesting, which is bounded by the
 * AST height (types of expressions) or by the signature texts (declarations).
 *
 * Change with: src/types.h, src/check.c (which relies on the printed forms in diagnostics),
 * src/decls.c (signature texts).
 */
#include "types.h"

#include <string.h>

#define PRIM(n, k) const dc_type n = {k, NULL, NULL, NULL}
PRIM(dc_ty_dyn, DC_TY_DYN);
PRIM(dc_ty_null, DC_TY_NULL);
PRIM(dc_ty_bool, DC_TY_BOOL);
PRIM(dc_ty_int, DC_TY_INT);
PRIM(dc_ty_uint, DC_TY_UINT);
PRIM(dc_ty_double, DC_TY_DOUBLE);
PRIM(dc_ty_string, DC_TY_STRING);
PRIM(dc_ty_bytes, DC_TY_BYTES);
PRIM(dc_ty_quantity, DC_TY_QUANTITY);
PRIM(dc_ty_semver, DC_TY_SEMVER);
PRIM(dc_ty_device, DC_TY_DEVICE);
PRIM(dc_ty_error, DC_TY_ERROR);
#undef PRIM

static const dc_type *mk(dc_arena *a, dc_tykind k, const dc_type *x, const dc_type *y,
                         const char *name)
{
    dc_type *t = dc_arena_alloc(a, sizeof *t);
    if (!t)
        return NULL;
    t->kind = k;
    t->a = x;
    t->b = y;
    t->name = name;
    return t;
}

const dc_type *dc_ty_list(dc_arena *a, const dc_type *elem)
{
    return elem ? mk(a, DC_TY_LIST, elem, NULL, NULL) : NULL;
}

const dc_type *dc_ty_map(dc_arena *a, const dc_type *key, const dc_type *val)
{
    return key && val ? mk(a, DC_TY_MAP, key, val, NULL) : NULL;
}

const dc_type *dc_ty_optional(dc_arena *a, const dc_type *inner)
{
    return inner ? mk(a, DC_TY_OPTIONAL, inner, NULL, NULL) : NULL;
}

const dc_type *dc_ty_type(dc_arena *a, const dc_type *of)
{
    return mk(a, DC_TY_TYPE, of, NULL, NULL);
}

const dc_type *dc_ty_param(dc_arena *a, const char *name)
{
    char *n = dc_arena_strndup(a, name, strlen(name));
    return n ? mk(a, DC_TY_PARAM, NULL, NULL, n) : NULL;
}

bool dc_type_equal(const dc_type *x, const dc_type *y)
{
    if (x == y)
        return true;
    if (!x || !y || x->kind != y->kind)
        return false;
    switch (x->kind) {
    case DC_TY_LIST:
    case DC_TY_OPTIONAL:
    case DC_TY_TYPE:
        return dc_type_equal(x->a, y->a);
    case DC_TY_MAP:
        return dc_type_equal(x->a, y->a) && dc_type_equal(x->b, y->b);
    case DC_TY_PARAM:
        return strcmp(x->name, y->name) == 0;
    default:
        return true;
    }
}

const dc_type *dc_type_clone(dc_arena *a, const dc_type *t)
{
    if (!t)
        return NULL;
    switch (t->kind) {
    case DC_TY_LIST:
        return dc_ty_list(a, dc_type_clone(a, t->a));
    case DC_TY_OPTIONAL:
        return dc_ty_optional(a, dc_type_clone(a, t->a));
    case DC_TY_TYPE:
        if (!t->a)
            return dc_ty_type(a, NULL);
        {
            const dc_type *of = dc_type_clone(a, t->a);
            return of ? dc_ty_type(a, of) : NULL;
        }
    case DC_TY_MAP:
        return dc_ty_map(a, dc_type_clone(a, t->a), dc_type_clone(a, t->b));
    case DC_TY_PARAM:
        return dc_ty_param(a, t->name);
    case DC_TY_DYN: return &dc_ty_dyn;
    case DC_TY_NULL: return &dc_ty_null;
    case DC_TY_BOOL: return &dc_ty_bool;
    case DC_TY_INT: return &dc_ty_int;
    case DC_TY_UINT: return &dc_ty_uint;
    case DC_TY_DOUBLE: return &dc_ty_double;
    case DC_TY_STRING: return &dc_ty_string;
    case DC_TY_BYTES: return &dc_ty_bytes;
    case DC_TY_QUANTITY: return &dc_ty_quantity;
    case DC_TY_SEMVER: return &dc_ty_semver;
    case DC_TY_DEVICE: return &dc_ty_device;
    case DC_TY_ERROR: return &dc_ty_error;
    }
    return NULL;
}

/* ---- Printing. cel-go has two printers: Type.String() (used by Kubernetes' "must evaluate to
 * ..." message) names null "null_type" and errors "*error*"; the checker's FormatCELType (used
 * in type-check diagnostics) names them "null" and "!error!". */

static const char *simple_name(dc_tykind k, bool checker)
{
    switch (k) {
    case DC_TY_DYN: return "dyn";
    case DC_TY_NULL: return checker ? "null" : "null_type";
    case DC_TY_BOOL: return "bool";
    case DC_TY_INT: return "int";
    case DC_TY_UINT: return "uint";
    case DC_TY_DOUBLE: return "double";
    case DC_TY_STRING: return "string";
    case DC_TY_BYTES: return "bytes";
    case DC_TY_QUANTITY: return "kubernetes.Quantity";
    case DC_TY_SEMVER: return "kubernetes.Semver";
    case DC_TY_DEVICE: return "kubernetes.DRADevice";
    case DC_TY_ERROR: return checker ? "!error!" : "*error*";
    default: return NULL;
    }
}

static void print(dc_buf *b, const dc_type *t, bool checker)
{
    if (!t) {
        dc_buf_puts(b, "?");
        return;
    }
    const char *s = simple_name(t->kind, checker);
    if (s) {
        dc_buf_puts(b, s);
        return;
    }
    switch (t->kind) {
    case DC_TY_LIST:
        dc_buf_puts(b, "list(");
        print(b, t->a, checker);
        dc_buf_putc(b, ')');
        break;
    case DC_TY_MAP:
        dc_buf_puts(b, "map(");
        print(b, t->a, checker);
        dc_buf_puts(b, ", ");
        print(b, t->b, checker);
        dc_buf_putc(b, ')');
        break;
    case DC_TY_OPTIONAL:
        dc_buf_puts(b, "optional_type(");
        print(b, t->a, checker);
        dc_buf_putc(b, ')');
        break;
    case DC_TY_TYPE:
        dc_buf_puts(b, "type");
        if (t->a) {
            dc_buf_putc(b, '(');
            print(b, t->a, checker);
            dc_buf_putc(b, ')');
        }
        break;
    case DC_TY_PARAM:
        dc_buf_puts(b, t->name ? t->name : "?");
        break;
    default:
        dc_buf_puts(b, "?");
        break;
    }
}

static const char *to_arena(dc_arena *a, const dc_type *t, bool checker)
{
    dc_buf b;
    dc_buf_init(&b, a->alloc);
    print(&b, t, checker);
    char *r = b.oom ? NULL : dc_arena_strndup(a, b.data ? b.data : "", b.len);
    dc_buf_free(&b);
    return r;
}

const char *dc_type_str(dc_arena *a, const dc_type *t)
{
    return to_arena(a, t, false);
}

const char *dc_type_str_checker(dc_arena *a, const dc_type *t)
{
    return to_arena(a, t, true);
}

/* ---- Parsing signature texts:  type = name [ "(" type { "," type } ")" ]. A name that is not
 * a known type and starts with an upper-case letter is a type parameter (A, B, K, V, T). */

typedef struct tparser {
    dc_arena *a;
    const char *s;
    unsigned depth;
} tparser;

#define TPARSE_MAX_DEPTH 64u

static void skip_ws(tparser *p)
{
    while (*p->s == ' ' || *p->s == '\t')
        p->s++;
}

static bool name_char(char c)
{
    return c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static const dc_type *parse_type(tparser *p);

/* Parse "(" t1 { "," ti } ")" into out[0..max); @return the count, or -1 when malformed. */
static int parse_params(tparser *p, const dc_type **out, int max)
{
    int n = 0;
    skip_ws(p);
    if (*p->s != '(')
        return 0;
    p->s++;
    for (;;) {
        if (n == max)
            return -1;
        const dc_type *t = parse_type(p);
        if (!t)
            return -1;
        out[n++] = t;
        skip_ws(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        if (*p->s == ')') {
            p->s++;
            return n;
        }
        return -1;
    }
}

static bool is_name(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static const dc_type *parse_type(tparser *p)
{
    if (++p->depth > TPARSE_MAX_DEPTH)
        return NULL;
    skip_ws(p);
    const char *start = p->s;
    while (name_char(*p->s))
        p->s++;
    size_t n = (size_t)(p->s - start);
    const dc_type *params[2];
    const dc_type *r = NULL;
    if (n == 0)
        goto out;
    int np = parse_params(p, params, 2);
    if (np < 0)
        goto out;
    static const struct {
        const char *name;
        const dc_type *t;
    } simple[] = {
        {"dyn", &dc_ty_dyn},       {"null_type", &dc_ty_null},
        {"bool", &dc_ty_bool},     {"int", &dc_ty_int},
        {"uint", &dc_ty_uint},     {"double", &dc_ty_double},
        {"string", &dc_ty_string}, {"bytes", &dc_ty_bytes},
        {"kubernetes.Quantity", &dc_ty_quantity},
        {"kubernetes.Semver", &dc_ty_semver},
        {"kubernetes.DRADevice", &dc_ty_device},
    };
    for (size_t i = 0; i < DC_COUNTOF(simple); i++)
        if (is_name(start, n, simple[i].name)) {
            r = np == 0 ? simple[i].t : NULL;
            goto out;
        }
    if (is_name(start, n, "list")) {
        r = np == 1 ? dc_ty_list(p->a, params[0]) : NULL;
    } else if (is_name(start, n, "map")) {
        r = np == 2 ? dc_ty_map(p->a, params[0], params[1]) : NULL;
    } else if (is_name(start, n, "optional_type")) {
        r = np == 1 ? dc_ty_optional(p->a, params[0]) : NULL;
    } else if (is_name(start, n, "type")) {
        r = np <= 1 ? dc_ty_type(p->a, np ? params[0] : NULL) : NULL;
    } else if (np == 0 && start[0] >= 'A' && start[0] <= 'Z' && !memchr(start, '.', n)) {
        char *name = dc_arena_strndup(p->a, start, n);
        r = name ? mk(p->a, DC_TY_PARAM, NULL, NULL, name) : NULL;
    }
out:
    p->depth--;
    return r;
}

const dc_type *dc_type_parse(dc_arena *a, const char *text)
{
    if (!text)
        return NULL;
    tparser p = {a, text, 0};
    const dc_type *t = parse_type(&p);
    skip_ws(&p);
    return t && *p.s == '\0' ? t : NULL;
}
