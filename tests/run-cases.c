/*
 * run-cases: runs the data-driven case files (tests/cases/NAME.test) and reports TAP.
 *
 * A case file is a sequence of blocks separated by blank lines; lines starting with '#' between
 * blocks are comments. A block is a directive line, the expression (one line), and the expected
 * output (every following line up to the blank line):
 *
 *   %%PARSE [options]      the expression parses; the expected line is its AST (docs/ast.md)
 *   %%FAIL [options]       the expression is rejected; the expected lines are the diagnostics
 *                          exactly as rendered (cel-go's format, name <input>)
 *   %%EVAL [options]       the expression is compiled and evaluated; the expected line is the
 *                          result as typed JSON ({"error":"..."} for an evaluation error), or
 *                          the diagnostics when it does not compile. Lines between the directive
 *                          and the expression: `%bind NAME=TYPED_JSON` and `%device JSON` (which
 *                          selects the DRA environment). Options: dra (the DRA environment
 *                          without a device, even a file's), plain (plain CEL, even in a file
 *                          with a device), no-check,
 *                          any-result, cost-limit=N, host (the host functions of host_library
 *                          below are declared), rows=N (the agreement table below has N rows
 *                          at least, not DIFF_ROWS: for a selector that runs to the cost limit
 *                          on every row).
 *   %%DISASM [options]     the expression is compiled (the DRA environment, as `dra-celc
 *                          disasm`; option plain: plain CEL); the expected lines are the
 *                          program's disassembly (docs/bytecode.md)
 *
 * A line `%device JSON` between blocks is the file's device from there on: every %%EVAL block
 * without a %device of its own (or the option plain) runs on it; `%device none` ends it.
 *
 * Every %%EVAL block that runs on a device is also run over a table: the block's device many
 * times, between every other device the file names (a varied table: lanes of one batch take
 * different paths, columns hold values of several kinds), on the scalar VM, the batch
 * interpreter at several batch sizes and the vector VM; every row must give the scalar VM's
 * answer, and the block's own rows the expected one.
 *
 * Options: `escaped` (the expression line takes the escapes \n \t \r \\ \0 and \xHH, to write
 * control bytes, NULs and invalid UTF-8), max-length=N, max-depth=N, max-nodes=N, max-errors=N.
 *
 * The examples of the documentation run too: in docs/NAME.md, a fenced block whose info string
 * is `cel-eval` (plain CEL) or `cel-eval device=PATH` (a device file of the repository) holds
 * lines `EXPRESSION  ==>  RESULT`, RESULT being the value as `dra-celc eval` prints it, or
 * `error: MESSAGE`.
 *
 * The format is documented in docs/testing.md. Usage: run-cases [FILE...] (FILE.test, or a
 * Markdown file for its examples); with no arguments it runs every tests/cases/NAME.test and
 * the examples of every docs/NAME.md under $top_srcdir (default ".").
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dracel.h"

static int n_run, n_failed;

/* ---- The host functions that `%%EVAL host` declares (docs/testing.md lists them): one of
 * every C type mapping, member and global overloads, an overload added to a library function,
 * and every way a call can fail. */

static int64_t h_twice_int(dracel_host_ctx *x, int64_t v)
{
    if (v > INT64_MAX / 2 || v < INT64_MIN / 2) {
        dracel_host_error(x, "integer overflow");
        return 0;
    }
    return v * 2;
}

static uint64_t h_twice_uint(dracel_host_ctx *x, uint64_t v)
{
    if (v > UINT64_MAX / 2)
        dracel_host_error(x, "unsigned integer overflow");
    return v * 2;
}

static double h_twice_double(dracel_host_ctx *x, double v)
{
    (void)x;
    return v * 2;
}

static bool h_flip(dracel_host_ctx *x, bool b)
{
    (void)x;
    return !b;
}

static int64_t h_times(dracel_host_ctx *x, int64_t a, int64_t b)
{
    if (__builtin_mul_overflow(a, b, &a))
        dracel_host_error(x, "integer overflow");
    return a;
}

static void h_shout(dracel_host_ctx *x, const char *s, size_t n)
{
    char buf[64];
    if (n > sizeof buf) {
        dracel_host_error(x, "shout: too long");
        return;
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 32) : s[i];
    dracel_host_return_string(x, buf, n); /* a stack buffer: copied by the library */
}

static void h_join(dracel_host_ctx *x, const char *a, size_t an, const char *b, size_t bn)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%.*s-%.*s", (int)an, a, (int)bn, b);
    dracel_host_return_string(x, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static int64_t h_len(dracel_host_ctx *x, const unsigned char *b, size_t n)
{
    (void)x;
    (void)b;
    return (int64_t)n;
}

static void h_rev(dracel_host_ctx *x, const unsigned char *b, size_t n)
{
    unsigned char buf[64];
    if (n > sizeof buf) {
        dracel_host_error(x, "rev: too long");
        return;
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = b[n - 1 - i];
    dracel_host_return_bytes(x, buf, n);
}

static int64_t h_mix(dracel_host_ctx *x, int64_t i, uint64_t u, double d, bool b, const char *s,
                     size_t sn, const unsigned char *y, size_t yn)
{
    (void)x;
    (void)s;
    (void)y;
    return i + (int64_t)u + (int64_t)d + (b ? 1000 : 0) + (int64_t)sn * 10000 + (int64_t)yn * 100000;
}

static bool h_fail(dracel_host_ctx *x, const char *msg, size_t n)
{
    (void)n;
    dracel_host_error(x, msg);
    return true; /* ignored */
}

static void h_noresult(dracel_host_ctx *x, int64_t v)
{
    (void)x;
    (void)v;
}

static void h_null(dracel_host_ctx *x)
{
    dracel_host_return_string(x, NULL, 3);
}

static void h_big(dracel_host_ctx *x, int64_t n)
{
    static const char xs[64] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    dracel_host_return_string(x, xs, n < 0 ? 0 : n > 64 ? 64 : (size_t)n);
}

static void h_bad_utf8(dracel_host_ctx *x)
{
    dracel_host_return_string(x, "a\xff", 2);
}

static void h_wrong_kind(dracel_host_ctx *x)
{
    dracel_host_return_bytes(x, "ab", 2); /* declared to return a string */
}

static int64_t h_digits(dracel_host_ctx *x, int64_t v)
{
    (void)x;
    int64_t n = 1;
    while (v / 10) {
        v /= 10;
        n++;
    }
    return n;
}

static int64_t h_next(dracel_host_ctx *x, int64_t v)
{
    (void)x;
    return v == INT64_MAX ? v : v + 1;
}

static int64_t h_costly(dracel_host_ctx *x, const char *s, size_t n)
{
    (void)x;
    (void)s;
    return (int64_t)n;
}

typedef struct host_decl {
    const char *name, *id;
    bool member, pure;
    uint32_t nparams;
    dracel_type params[8];
    dracel_type result;
    dracel_host_fn fn;
    uint64_t cost;
    double factor;
    size_t max_result;
} host_decl;

#define B DRACEL_TYPE_BOOL
#define I DRACEL_TYPE_INT
#define U DRACEL_TYPE_UINT
#define D DRACEL_TYPE_DOUBLE
#define S DRACEL_TYPE_STRING
#define Y DRACEL_TYPE_BYTES
static const host_decl host_library[] = {
    {"hx.twice", "twice_int", false, true, 1, {I}, I, DRACEL_HOST_FN(h_twice_int), 0, 0, 0},
    {"hx.twice", "twice_uint", false, true, 1, {U}, U, DRACEL_HOST_FN(h_twice_uint), 0, 0, 0},
    {"hx.twice", "twice_double", false, true, 1, {D}, D, DRACEL_HOST_FN(h_twice_double), 0, 0, 0},
    {"hx.flip", "flip_bool", false, true, 1, {B}, B, DRACEL_HOST_FN(h_flip), 0, 0, 0},
    {"times", "int_times_int", true, true, 2, {I, I}, I, DRACEL_HOST_FN(h_times), 0, 0, 0},
    {"shout", "string_shout", true, true, 1, {S}, S, DRACEL_HOST_FN(h_shout), 0, 0, 0},
    {"hx.join", "join_string_string", false, true, 2, {S, S}, S, DRACEL_HOST_FN(h_join), 0, 0, 0},
    {"hx.len", "len_bytes", false, true, 1, {Y}, I, DRACEL_HOST_FN(h_len), 0, 0, 0},
    {"rev", "bytes_rev", true, true, 1, {Y}, Y, DRACEL_HOST_FN(h_rev), 0, 0, 0},
    {"hx.mix", "mix", false, true, 6, {I, U, D, B, S, Y}, I, DRACEL_HOST_FN(h_mix), 0, 0, 0},
    {"hx.fail", "fail_string", false, true, 1, {S}, B, DRACEL_HOST_FN(h_fail), 0, 0, 0},
    {"hx.noresult", "noresult_int", false, true, 1, {I}, S, DRACEL_HOST_FN(h_noresult), 0, 0, 0},
    {"hx.nil", "nil", false, true, 0, {I}, S, DRACEL_HOST_FN(h_null), 0, 0, 0},
    {"hx.big", "big_int", false, true, 1, {I}, S, DRACEL_HOST_FN(h_big), 0, 0, 16},
    {"hx.bad", "bad_utf8", false, true, 0, {I}, S, DRACEL_HOST_FN(h_bad_utf8), 0, 0, 0},
    {"hx.wrong", "wrong_kind", false, true, 0, {I}, S, DRACEL_HOST_FN(h_wrong_kind), 0, 0, 0},
    {"size", "size_int_digits", false, true, 1, {I}, I, DRACEL_HOST_FN(h_digits), 0, 0, 0},
    {"hx.next", "next_int", false, false, 1, {I}, I, DRACEL_HOST_FN(h_next), 0, 0, 0},
    {"hx.costly", "costly_string", false, true, 1, {S}, I, DRACEL_HOST_FN(h_costly), 100, 0.5, 0},
};
#undef B
#undef I
#undef U
#undef D
#undef S
#undef Y

static bool declare_hosts(dracel_env *env, char *err, size_t cap)
{
    for (size_t i = 0; i < sizeof host_library / sizeof host_library[0]; i++) {
        const host_decl *h = &host_library[i];
        dracel_function f;
        dracel_function_init(&f);
        f.name = h->name;
        f.overload_id = h->id;
        f.member = h->member;
        f.nparams = h->nparams;
        memcpy(f.params, h->params, sizeof f.params);
        f.result = h->result;
        f.fn = h->fn;
        f.flags = h->pure ? DRACEL_FUNCTION_PURE : 0;
        if (h->cost)
            f.cost = h->cost;
        f.size_cost_factor = h->factor;
        if (h->max_result)
            f.max_result_bytes = h->max_result;
        if (dracel_env_add_function(env, &f, err, cap) != DRACEL_OK)
            return false;
    }
    return true;
}

#define MAX_SETUP 16

typedef struct block {
    const char *file;
    int line;
    bool text_result;  /* a documentation example: the result as text ("error: MSG") */
    char *setup[MAX_SETUP]; /* %bind / %device lines */
    int nsetup;
    char *directive;   /* "PARSE", "FAIL" */
    char *options;
    char *expr;        /* the expression line (escapes processed when asked) */
    size_t expr_len;
    char *expected;    /* the expected lines, joined with '\n' */
} block;

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) {
        perror("run-cases");
        exit(2);
    }
    memcpy(p, s, n);
    return p;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Process escapes in place; returns the new length. */
static size_t unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r != '\\' || !r[1]) {
            *w++ = *r;
            continue;
        }
        r++;
        switch (*r) {
        case 'n': *w++ = '\n'; break;
        case 't': *w++ = '\t'; break;
        case 'r': *w++ = '\r'; break;
        case '0': *w++ = '\0'; break;
        case '\\': *w++ = '\\'; break;
        case 'x':
            if (hexval(r[1]) >= 0 && hexval(r[2]) >= 0) {
                *w++ = (char)(hexval(r[1]) * 16 + hexval(r[2]));
                r += 2;
                break;
            }
            /* fall through */
        default:
            *w++ = '\\';
            *w++ = *r;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

static bool option_value(const char *options, const char *name, unsigned long *out)
{
    size_t n = strlen(name);
    for (const char *p = options; (p = strstr(p, name)) != NULL; p += n) {
        if ((p == options || p[-1] == ' ') && p[n] == '=') {
            *out = strtoul(p + n + 1, NULL, 10);
            return true;
        }
    }
    return false;
}

static bool has_word(const char *options, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = options; (p = strstr(p, word)) != NULL; p += n)
        if ((p == options || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

static void config_from(const block *b, dracel_config *cfg)
{
    unsigned long v;
    dracel_config_init(cfg);
    if (option_value(b->options, "max-length", &v))
        cfg->max_source_bytes = v;
    if (option_value(b->options, "max-depth", &v))
        cfg->max_depth = (uint32_t)v;
    if (option_value(b->options, "max-nodes", &v))
        cfg->max_nodes = (uint32_t)v;
    if (option_value(b->options, "max-errors", &v))
        cfg->max_errors = (uint32_t)v;
}

/* Print a multi-line text as TAP diagnostics. */
static void tap_text(const char *label, const char *text)
{
    printf("#   %s:\n", label);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        printf("#     %.*s\n", n, p);
        p += n + (nl ? 1 : 0);
    }
}

static void result(const block *b, bool ok, const char *got)
{
    n_run++;
    if (!ok)
        n_failed++;
    printf("%s %d - %s:%d: %s %.60s\n", ok ? "ok" : "not ok", n_run, b->file, b->line,
           b->directive, b->expr);
    if (!ok) {
        tap_text("expected", b->expected);
        tap_text("got", got ? got : "(nothing)");
    }
}

/* Drop one trailing newline (rendered diagnostics end with one). */
static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && s[n - 1] == '\n')
        s[--n] = '\0';
}

static void run_parse_block(const block *b, bool expect_ok)
{
    dracel_config cfg;
    config_from(b, &cfg);
    char *out = NULL;
    dracel_diags *d = NULL;
    dracel_status st = dracel_parse_sexpr(&cfg, b->expr, b->expr_len, &out, &d);
    char *diag = d ? dracel_diags_render(d, "<input>") : NULL;
    if (diag)
        chomp(diag);
    if (expect_ok) {
        bool ok = st == DRACEL_OK && out && strcmp(out, b->expected) == 0;
        result(b, ok, st == DRACEL_OK ? out : diag);
    } else {
        /* rejected: read and refused (EINPUT), or over a configured limit (ELIMIT) */
        bool ok = (st == DRACEL_EINPUT || st == DRACEL_ELIMIT) && diag &&
                  strcmp(diag, b->expected) == 0;
        result(b, ok, st == DRACEL_OK ? out : diag);
    }
    dracel_free_string(&cfg, out);
    dracel_free_string(&cfg, diag);
    dracel_diags_free(d);
}

/* ---- Agreement of the VMs. Each evaluated case also runs over a table of DIFF_ROWS copies of
 * its device (a device with no attributes for plain CEL), on the scalar VM row by row and on the
 * vector VM at each of the batch sizes below; every row must give the activation's answer. */
#define DIFF_ROWS 70u
static const uint32_t diff_batches[] = {1, 63, 64, 65, 1025};
static int n_diff_skipped;

/* The devices a file names (each %device line), for the varied tables. */
#define MAX_FILE_DEVICES 64
static char *file_devices[MAX_FILE_DEVICES];
static int nfile_devices;

static void file_devices_reset(void)
{
    for (int i = 0; i < nfile_devices; i++)
        free(file_devices[i]);
    nfile_devices = 0;
}

static void file_device_add(const char *json)
{
    for (int i = 0; i < nfile_devices; i++)
        if (strcmp(file_devices[i], json) == 0)
            return;
    if (nfile_devices < MAX_FILE_DEVICES)
        file_devices[nfile_devices++] = xstrdup(json);
}

/* ResourceSlices of the devices devs[0..n) (JSON texts of device entries with a "driver"; NULL:
 * an attribute-less device), named dev-K for the K-th: one pool per driver, slices of up to 32.
 * Returns a malloc'ed JSON List, or NULL when a device is not JSON. */
static char *fleet_json(const char *const *devs, uint32_t n)
{
    cJSON *list = cJSON_CreateObject();
    cJSON_AddStringToObject(list, "apiVersion", "v1");
    cJSON_AddStringToObject(list, "kind", "List");
    cJSON *items = cJSON_AddArrayToObject(list, "items");
    /* by driver: per driver the devices, in order */
    char drivers[8][256];
    cJSON *bydrv[8];
    int ndrv = 0;
    bool bad = false;
    for (uint32_t k = 0; k < n && !bad; k++) {
        cJSON *dev = devs[k] ? cJSON_Parse(devs[k]) : cJSON_CreateObject();
        if (!dev) {
            bad = true;
            break;
        }
        const cJSON *drv = cJSON_GetObjectItemCaseSensitive(dev, "driver");
        const char *dn = cJSON_IsString(drv) ? drv->valuestring : "dra.example.com";
        int g = 0;
        while (g < ndrv && strcmp(drivers[g], dn) != 0)
            g++;
        if (g == ndrv) {
            if (ndrv == 8) {
                cJSON_Delete(dev);
                bad = true;
                break;
            }
            snprintf(drivers[ndrv], sizeof drivers[ndrv], "%s", dn);
            bydrv[ndrv++] = cJSON_CreateArray();
        }
        cJSON_DeleteItemFromObjectCaseSensitive(dev, "driver");
        cJSON_DeleteItemFromObjectCaseSensitive(dev, "name");
        char name[64];
        snprintf(name, sizeof name, "dev-%u", k);
        cJSON_AddStringToObject(dev, "name", name);
        cJSON_AddItemToArray(bydrv[g], dev);
    }
    for (int g = 0; g < ndrv; g++) {
        uint32_t total = (uint32_t)cJSON_GetArraySize(bydrv[g]), per_slice = 32;
        uint32_t nslices = (total + per_slice - 1) / per_slice;
        for (uint32_t sl = 0; sl < nslices && !bad; sl++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "apiVersion", "resource.k8s.io/v1");
            cJSON_AddStringToObject(o, "kind", "ResourceSlice");
            cJSON *md = cJSON_AddObjectToObject(o, "metadata");
            char name[64];
            snprintf(name, sizeof name, "slice-%d-%u", g, sl);
            cJSON_AddStringToObject(md, "name", name);
            cJSON *spec = cJSON_AddObjectToObject(o, "spec");
            cJSON_AddStringToObject(spec, "driver", drivers[g]);
            cJSON *pool = cJSON_AddObjectToObject(spec, "pool");
            cJSON_AddStringToObject(pool, "name", "pool");
            cJSON_AddNumberToObject(pool, "generation", 1);
            cJSON_AddNumberToObject(pool, "resourceSliceCount", nslices);
            cJSON_AddBoolToObject(spec, "allNodes", 1);
            cJSON *out = cJSON_AddArrayToObject(spec, "devices");
            for (uint32_t d = sl * per_slice; d < (sl + 1) * per_slice && d < total; d++)
                cJSON_AddItemToArray(out, cJSON_Duplicate(cJSON_GetArrayItem(bydrv[g], (int)d), 1));
            cJSON_AddItemToArray(items, o);
        }
        cJSON_Delete(bydrv[g]);
    }
    char *text = bad ? NULL : cJSON_PrintUnformatted(list);
    cJSON_Delete(list);
    return text;
}

/* Does the slice loader take this device alone (Kubernetes' limits)? */
static bool device_loads(const dracel_config *cfg, const char *json)
{
    const char *one[1] = {json};
    char *fleet = fleet_json(one, 1), err[512];
    dracel_table *t = NULL;
    bool ok = fleet && dracel_table_load_buffer(cfg, "case", fleet, strlen(fleet), &t, err,
                                                sizeof err) == DRACEL_OK;
    free(fleet);
    dracel_table_free(t);
    return ok;
}

/* The value of row r of a run (the bitmaps' form without values). */
static char *row_value(const dracel_config *cfg, const dracel_selection *sel, uint32_t r,
                       bool plain)
{
    if (!plain) {
        char *j = dracel_selection_value_json(sel, r), *v = j ? strdup(j) : NULL;
        dracel_free_string(cfg, j);
        return v;
    }
    bool mt = (dracel_selection_matched(sel)[r / 64] >> (r % 64)) & 1;
    bool er = (dracel_selection_errored(sel)[r / 64] >> (r % 64)) & 1;
    if (!er)
        return strdup(mt ? "{\"bool\":true}" : "{\"bool\":false}");
    const char *emsg = dracel_selection_error(sel, r);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "error", emsg ? emsg : "(none)");
    char *v = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return v;
}

static bool is_bitmap_form(const char *v)
{
    return strncmp(v, "{\"bool\"", 7) == 0 || strncmp(v, "{\"error\"", 8) == 0;
}

/* Compare every row of every run with the scalar VM's, and the rows of the block's device
 * (device_json) with `want`; returns a failure message or NULL. */
static const char *vms_agree(const dracel_config *cfg, dracel_env *env, dracel_program *p,
                             const char *device_json, const char *want, uint32_t want_rows,
                             char *msg, size_t cap)
{
    /* The block's device at every third row, the file's others (those the loader takes)
     * between them, want_rows (at most DIFF_ROWS) rows at least. */
    const char *others[MAX_FILE_DEVICES];
    uint32_t nothers = 0;
    for (int i = 0; device_json && i < nfile_devices; i++)
        if (strcmp(file_devices[i], device_json) != 0 && device_loads(cfg, file_devices[i]))
            others[nothers++] = file_devices[i];
    const char *devs[DIFF_ROWS + 3 * MAX_FILE_DEVICES];
    bool mine[DIFF_ROWS + 3 * MAX_FILE_DEVICES];
    uint32_t n = 0;
    for (uint32_t k = 0; n < want_rows || k < nothers; k++) {
        devs[n] = device_json;
        mine[n++] = true;
        for (int j = 0; j < 2; j++) {
            devs[n] = nothers ? others[(2 * k + (uint32_t)j) % nothers] : device_json;
            mine[n++] = nothers == 0;
        }
    }
    char *fleet = fleet_json(devs, n);
    char err[512];
    dracel_table *t = NULL;
    if (!fleet || dracel_table_load_buffer(cfg, "case", fleet, strlen(fleet), &t, err, sizeof err) != DRACEL_OK) {
        /* A device the slice loader rejects (beyond Kubernetes' limits): nothing to compare. */
        free(fleet);
        n_diff_skipped++;
        return NULL;
    }
    free(fleet);
    uint32_t rows = dracel_table_rows(t);
    /* Each row's device: its name is dev-K. */
    bool *row_mine = calloc(rows + 1, sizeof *row_mine);
    char **ref = calloc(rows + 1, sizeof *ref);
    for (uint32_t r = 0; r < rows; r++) {
        dracel_device_info info;
        unsigned k = 0;
        if (dracel_table_device(t, r, &info) == DRACEL_OK && sscanf(info.device, "dev-%u", &k) == 1 &&
            k < n)
            row_mine[r] = mine[k];
    }
    dracel_bound *bnd = NULL;
    dracel_selection *sel = NULL;
    const char *fail = NULL;
    if (dracel_bind(p, t, &bnd) != DRACEL_OK || dracel_selection_new(cfg, &sel) != DRACEL_OK) {
        fail = "bind failed";
    }
    /* Runs: -1 the scalar VM (the reference: every row's value); 0..4 the batch interpreter at
     * each batch size; 5 the vector VM as users call it (fused kernels when the program has
     * their shape); 6 the same without values (bitmaps and error messages). */
    int nb = (int)(sizeof diff_batches / sizeof diff_batches[0]);
    for (int run = -1; !fail && run <= nb + 1; run++) {
        bool plain = run == nb + 1;
        dracel_select_opts o = {sizeof(dracel_select_opts), run < 0 ? DRACEL_VM_SCALAR : run < nb ? DRACEL_VM_BATCHED : DRACEL_VM_VECTOR,
                                run < 0 || run >= nb ? 0 : diff_batches[run], !plain};
        if (dracel_select(bnd, env, &o, sel) != DRACEL_OK) {
            fail = "select failed";
            break;
        }
        const char *name = run < 0 ? "scalar VM" : run < nb ? "batch interpreter" : plain ? "vector VM without values" : "vector VM";
        for (uint32_t r = 0; r < rows && !fail; r++) {
            char *v = row_value(cfg, sel, r, plain);
            if (run < 0) {
                ref[r] = v;
                if (row_mine[r] && (!v || strcmp(v, want) != 0)) {
                    snprintf(msg, cap, "scalar VM, row %u: %s (the activation gave %s)", r,
                             v ? v : "(none)", want);
                    fail = msg;
                }
                continue;
            }
            /* A result that is not a bool (plain CEL) has no bitmap form. */
            if (plain && ref[r] && !is_bitmap_form(ref[r])) {
                free(v);
                continue;
            }
            if (!v || !ref[r] || strcmp(v, ref[r]) != 0) {
                snprintf(msg, cap, "%s%s%u, row %u (%s): %s (the scalar VM gave %s)", name,
                         run < 0 || run >= nb ? "" : " batch ", run < 0 || run >= nb ? 0 : diff_batches[run],
                         r, row_mine[r] ? "the block's device" : "another device of the file",
                         v ? v : "(none)", ref[r] ? ref[r] : "(none)");
                fail = msg;
            }
            free(v);
        }
    }
    for (uint32_t r = 0; r < rows; r++)
        free(ref[r]);
    free(ref);
    free(row_mine);
    dracel_selection_free(sel);
    dracel_bound_free(bnd);
    dracel_table_free(t);
    return fail;
}

/* The file's device from a `%device` line between blocks (NULL: none). */
static char *sticky_device;

static void run_eval_block(const block *b)
{
    dracel_config cfg;
    config_from(b, &cfg);
    unsigned long v;
    if (option_value(b->options, "cost-limit", &v))
        cfg.cost_limit = v;
    bool dra = has_word(b->options, "dra");
    /* The file's device, unless the block names its own or asks for none. */
    bool own = false;
    for (int i = 0; i < b->nsetup; i++)
        own |= strncmp(b->setup[i], "%device ", 8) == 0;
    char sticky_line[8192];
    block withdev;
    if (!own && sticky_device && !dra && !has_word(b->options, "plain") && b->nsetup < MAX_SETUP) {
        withdev = *b;
        snprintf(sticky_line, sizeof sticky_line, "%%device %s", sticky_device);
        withdev.setup[withdev.nsetup++] = sticky_line;
        b = &withdev;
    }
    for (int i = 0; i < b->nsetup; i++)
        dra |= strncmp(b->setup[i], "%device ", 8) == 0;
    dracel_env *env = NULL;
    char got[8192] = "";
    if (dracel_env_new(&cfg, dra ? DRACEL_ENV_DRA : DRACEL_ENV_PLAIN, &env) != DRACEL_OK) {
        result(b, false, "dracel_env_new failed");
        return;
    }
    char err[512];
    if (has_word(b->options, "host") && !declare_hosts(env, err, sizeof err)) {
        snprintf(got, sizeof got, "declaring the host functions failed: %s", err);
        result(b, false, got);
        dracel_env_free(env);
        return;
    }
    for (int i = 0; i < b->nsetup; i++) {
        const char *line = b->setup[i];
        dracel_status st;
        if (strncmp(line, "%device ", 8) == 0) {
            st = dracel_env_device_json(env, line + 8, strlen(line + 8), err, sizeof err);
        } else {
            const char *eq = strchr(line + 6, '=');
            char name[128];
            size_t n = eq ? (size_t)(eq - (line + 6)) : 0;
            if (!eq || n >= sizeof name) {
                snprintf(got, sizeof got, "bad setup line: %s", line);
                result(b, false, got);
                dracel_env_free(env);
                return;
            }
            memcpy(name, line + 6, n);
            name[n] = '\0';
            st = dracel_env_bind_json(env, name, eq + 1, strlen(eq + 1), err, sizeof err);
        }
        if (st != DRACEL_OK) {
            snprintf(got, sizeof got, "setup failed: %s: %s", line, err);
            result(b, false, got);
            dracel_env_free(env);
            return;
        }
    }
    unsigned flags = (has_word(b->options, "no-check") ? DRACEL_COMPILE_NO_CHECK : 0) |
                     (has_word(b->options, "any-result") ? DRACEL_COMPILE_ANY_RESULT : 0);
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    dracel_status st = dracel_compile(env, b->expr, b->expr_len, flags, &p, &d);
    if (st == DRACEL_OK) {
        dracel_result *r = NULL;
        char typed[8192] = "";
        if (dracel_eval(p, env, &r) == DRACEL_OK) {
            char *json = dracel_result_json(r);
            snprintf(typed, sizeof typed, "%s", json ? json : "(no output)");
            dracel_free_string(&cfg, json);
            if (b->text_result) {
                /* as `dra-celc eval` prints it */
                const char *e = dracel_result_error(r);
                char *text = e ? NULL : dracel_result_text(r);
                if (e)
                    snprintf(got, sizeof got, "error: %s", e);
                else
                    snprintf(got, sizeof got, "%s", text ? text : "(no output)");
                dracel_free_string(&cfg, text);
            } else {
                snprintf(got, sizeof got, "%s", typed);
            }
        } else {
            snprintf(got, sizeof got, "dracel_eval failed");
        }
        dracel_result_free(r);
        /* Both VMs, every batch size: the same answer on every row. */
        const char *device = NULL;
        for (int i = 0; i < b->nsetup; i++)
            if (strncmp(b->setup[i], "%device ", 8) == 0)
                device = b->setup[i] + 8;
        char msg[1024];
        unsigned long want_rows = DIFF_ROWS;
        if (option_value(b->options, "rows", &want_rows))
            want_rows = want_rows < 1 ? 1 : want_rows > DIFF_ROWS ? DIFF_ROWS : want_rows;
        const char *why = strcmp(got, b->expected) == 0
                              ? vms_agree(&cfg, env, p, device, typed, (uint32_t)want_rows, msg, sizeof msg)
                              : NULL;
        if (why) {
            char both[9000];
            snprintf(both, sizeof both, "the VMs disagree: %s", why);
            result(b, false, both);
            dracel_program_free(p);
            dracel_diags_free(d);
            dracel_env_free(env);
            return;
        }
    } else {
        char *diag = d ? dracel_diags_render(d, "<input>") : NULL;
        snprintf(got, sizeof got, "%s", diag ? diag : "compile failed");
        chomp(got);
        dracel_free_string(&cfg, diag);
    }
    result(b, strcmp(got, b->expected) == 0, got);
    dracel_program_free(p);
    dracel_diags_free(d);
    dracel_env_free(env);
}

/* %%DISASM: the program's disassembly. */
static void run_disasm_block(const block *b)
{
    dracel_config cfg;
    config_from(b, &cfg);
    dracel_env *env = NULL;
    char got[16384] = "";
    bool plain = has_word(b->options, "plain");
    if (dracel_env_new(&cfg, plain ? DRACEL_ENV_PLAIN : DRACEL_ENV_DRA, &env) != DRACEL_OK) {
        result(b, false, "dracel_env_new failed");
        return;
    }
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    unsigned flags = has_word(b->options, "no-check") ? DRACEL_COMPILE_NO_CHECK : 0;
    if (dracel_compile(env, b->expr, b->expr_len, flags, &p, &d) == DRACEL_OK) {
        char *text = dracel_program_disasm(p);
        snprintf(got, sizeof got, "%s", text ? text : "(no output)");
        dracel_free_string(&cfg, text);
    } else {
        char *diag = d ? dracel_diags_render(d, "<input>") : NULL;
        snprintf(got, sizeof got, "%s", diag ? diag : "compile failed");
        dracel_free_string(&cfg, diag);
    }
    chomp(got);
    result(b, strcmp(got, b->expected) == 0, got);
    dracel_program_free(p);
    dracel_diags_free(d);
    dracel_env_free(env);
}

static void run_block(const block *b)
{
    if (strcmp(b->directive, "EVAL") == 0)
        run_eval_block(b);
    else if (strcmp(b->directive, "DISASM") == 0)
        run_disasm_block(b);
    else if (strcmp(b->directive, "PARSE") == 0)
        run_parse_block(b, true);
    else if (strcmp(b->directive, "FAIL") == 0)
        run_parse_block(b, false);
    else {
        n_run++;
        n_failed++;
        printf("not ok %d - %s:%d: unknown directive %%%%%s\n", n_run, b->file, b->line,
               b->directive);
    }
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "run-cases: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (!buf) {
        perror("run-cases");
        exit(2);
    }
    buf[n] = '\0';
    return buf;
}

/* The devices of a case file (each %device line, in a block or between blocks). */
static void collect_devices(const char *text)
{
    file_devices_reset();
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n > 8 && strncmp(p, "%device ", 8) == 0 && !(n == 12 && strncmp(p + 8, "none", 4) == 0)) {
            char *dev = malloc(n - 8 + 1);
            if (!dev) {
                perror("run-cases");
                exit(2);
            }
            memcpy(dev, p + 8, n - 8);
            dev[n - 8] = '\0';
            file_device_add(dev);
            free(dev);
        }
        p = nl ? nl + 1 : NULL;
    }
}

static void set_sticky(const char *json)
{
    free(sticky_device);
    sticky_device = json && strcmp(json, "none") != 0 ? xstrdup(json) : NULL;
}

static void run_file(const char *path, const char *shown)
{
    char *text = read_all(path);
    collect_devices(text);
    set_sticky(NULL);
    char *save = NULL;
    int lineno = 0;
    block b = {0};
    int state = 0; /* 0 between blocks, 1 want expression, 2 reading expected */
    size_t exp_len = 0;
    /* strtok_r would merge blank lines: split by hand. */
    char *p = text;
    (void)save;
    for (;;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        bool blank = p[0] == '\0';
        bool at_end = !nl;
        if (state == 0) {
            if (strncmp(p, "%device ", 8) == 0) {
                set_sticky(p + 8); /* the file's device from here on */
            } else if (!blank && p[0] != '#') {
                if (strncmp(p, "%%", 2) != 0) {
                    fprintf(stderr, "run-cases: %s:%d: expected a %%%% directive\n", shown, lineno);
                    exit(2);
                }
                memset(&b, 0, sizeof b);
                b.file = shown;
                b.line = lineno;
                char *sp = strchr(p + 2, ' ');
                b.options = xstrdup(sp ? sp + 1 : "");
                if (sp)
                    *sp = '\0';
                b.directive = xstrdup(p + 2);
                state = 1;
            }
        } else if (state == 1 && (strncmp(p, "%bind ", 6) == 0 || strncmp(p, "%device ", 8) == 0)) {
            if (b.nsetup == MAX_SETUP) {
                fprintf(stderr, "run-cases: %s:%d: too many setup lines\n", shown, lineno);
                exit(2);
            }
            b.setup[b.nsetup++] = xstrdup(p);
        } else if (state == 1) {
            b.expr = xstrdup(p);
            b.expr_len = has_word(b.options, "escaped") ? unescape(b.expr) : strlen(b.expr);
            b.expected = xstrdup("");
            exp_len = 0;
            state = 2;
        } else if (!blank) {
            size_t n = strlen(p);
            b.expected = realloc(b.expected, exp_len + n + 2);
            if (exp_len)
                b.expected[exp_len++] = '\n';
            memcpy(b.expected + exp_len, p, n + 1);
            exp_len += n;
        }
        if (state == 2 && (blank || at_end)) {
            run_block(&b);
            for (int i = 0; i < b.nsetup; i++)
                free(b.setup[i]);
            free(b.directive);
            free(b.options);
            free(b.expr);
            free(b.expected);
            state = 0;
        }
        if (at_end)
            break;
        p = nl + 1;
    }
    if (state == 1) {
        fprintf(stderr, "run-cases: %s:%d: block without an expression\n", shown, b.line);
        exit(2);
    }
    set_sticky(NULL);
    free(text);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* The examples of a Markdown file: ```cel-eval blocks of `EXPR ==> RESULT` lines. */
static void run_markdown(const char *path, const char *shown, const char *top)
{
    char *text = read_all(path);
    file_devices_reset();
    set_sticky(NULL);
    bool in = false;
    char *device = NULL;
    int lineno = 0;
    for (char *p = text; p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        if (!in && strncmp(p, "```cel-eval", 11) == 0) {
            in = true;
            free(device);
            device = NULL;
            const char *opt = strstr(p + 11, "device=");
            if (opt) {
                char file[4096];
                snprintf(file, sizeof file, "%s/%s", top, trim((char *)opt + 7));
                device = read_all(file);
                for (char *c = device; *c; c++)
                    if (*c == '\n')
                        *c = ' '; /* a %device line is one line */
                file_device_add(device);
            }
        } else if (in && strncmp(p, "```", 3) == 0) {
            in = false;
        } else if (in && *p && p[0] != '#') {
            char *arrow = strstr(p, "==>");
            if (!arrow) {
                fprintf(stderr, "run-cases: %s:%d: an example without ==>\n", shown, lineno);
                exit(2);
            }
            *arrow = '\0';
            block b = {0};
            b.file = shown;
            b.line = lineno;
            b.text_result = true;
            b.directive = xstrdup("EVAL");
            b.options = xstrdup("");
            char line[8192];
            if (device) {
                snprintf(line, sizeof line, "%%device %s", device);
                b.setup[b.nsetup++] = line;
            }
            b.expr = xstrdup(trim(p));
            b.expr_len = strlen(b.expr);
            b.expected = xstrdup(trim(arrow + 3));
            run_block(&b);
            free(b.directive);
            free(b.options);
            free(b.expr);
            free(b.expected);
        }
        p = nl ? nl + 1 : NULL;
    }
    free(device);
    free(text);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* Every NAME<suffix> of dir, in name order, through fn. */
static int run_dir(const char *dir, const char *suffix, const char *top,
                   void (*fn)(const char *path, const char *shown, const char *top))
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "run-cases: %s: %s\n", dir, strerror(errno));
        return 2;
    }
    char *names[512];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 512)
        if (ends_with(e->d_name, suffix))
            names[n++] = xstrdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char path[8192], shown[600];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(shown, sizeof shown, "%s%s", strcmp(suffix, ".md") == 0 ? "docs/" : "", names[i]);
        fn(path, shown, top);
        free(names[i]);
    }
    return 0;
}

static void run_case_file(const char *path, const char *shown, const char *top)
{
    (void)top;
    run_file(path, shown);
}

int main(int argc, char **argv)
{
    const char *top = getenv("top_srcdir");
    top = top ? top : ".";
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            if (ends_with(argv[i], ".md"))
                run_markdown(argv[i], argv[i], top);
            else
                run_file(argv[i], argv[i]);
        }
    } else {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/tests/cases", top);
        if (run_dir(dir, ".test", top, run_case_file))
            return 2;
        snprintf(dir, sizeof dir, "%s/docs", top);
        if (run_dir(dir, ".md", top, run_markdown))
            return 2;
    }
    if (n_run == 0) {
        printf("not ok 1 - no cases found\n1..1\n");
        return 1;
    }
    if (n_diff_skipped)
        printf("# %d evaluated cases had a device the slice loader rejects: compared on one VM only\n",
               n_diff_skipped);
    printf("1..%d\n", n_run);
    return n_failed ? 1 : 0;
}
