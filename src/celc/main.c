/*
 * dra-celc: the command-line front of libdracel, built on the public header (dracel.h) alone,
 * as jq's main.c is on jv.h and jq.h. The placement commands (allocate, explain) are in
 * src/celc/place.c; how it writes is src/celc/out.c, how it reads files src/celc/files.c.
 *
 * Contracts (docs/dra-celc.md): results on stdout, diagnostics on stderr in cel-go's
 * format; with --format json, stdout also gets {"error":..., "diagnostics":[...]}. Exit status:
 * 0 success, 1 the input was read and rejected, 2 usage or I/O error (memory included). A
 * command takes only the options its --help lists; any other is a usage error.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dracel.h"
#include "files.h"
#include "lintcmd.h"
#include "replay.h"
#include "out.h"
#include "place.h"

typedef enum { FMT_TEXT, FMT_JSON } out_format;

/* The options of the commands that compile an expression; each command takes a subset. */
enum {
    O_EXPR = 1u << 0,     /* -e, -f */
    O_FORMAT = 1u << 1,   /* --format */
    O_LIMITS = 1u << 2,   /* --max-length --max-depth --max-nodes --max-errors --max-diag-bytes */
    O_COST = 1u << 3,     /* --cost-limit */
    O_BIND = 1u << 4,     /* --bind */
    O_DEVICE = 1u << 5,   /* --device */
    O_SLICES = 1u << 6,   /* --slices */
    O_NOCHECK = 1u << 7,  /* --no-check */
    O_VALUE = 1u << 8,    /* --value */
    O_ENV = 1u << 9       /* --env */
};

#define MAX_BINDS 64

typedef struct options {
    const char *cmd;       /* the command's name, for messages */
    void (*usage)(FILE *);
    unsigned takes;        /* O_* */
    const char *expr;      /* -e */
    const char *file;      /* -f */
    out_format format;
    dracel_config cfg;
    const char *device;    /* --device FILE */
    const char *slices;    /* --slices PATH */
    const char *binds[MAX_BINDS]; /* --bind NAME=TYPED_JSON */
    int nbinds;
    bool no_check;         /* --no-check */
    bool value;            /* --value */
    int env;               /* --env: -1 default, else dracel_env_kind */
} options;

static void usage_main(FILE *f)
{
    fprintf(f,
            "usage: %s COMMAND [OPTIONS]\n"
            "\n"
            "commands:\n"
            "  parse    parse a CEL expression and print its AST (macros expanded)\n"
            "  check    type-check an expression and print its type\n"
            "  eval     evaluate an expression (plain CEL, or a selector on a device)\n"
            "  disasm   compile an expression and print its bytecode\n"
            "  bench    time a selector over a fleet (vector or scalar VM)\n"
            "  allocate allocate one pod's claims on one node (a scenario file)\n"
            "  explain  the tier every node would give a pod's claims, and why\n"
            "  lint     find the selector bugs that block scheduling, in manifests\n"
            "  replay   replay pod arrivals against a fleet and tier policies\n"
            "  version  print the version\n"
            "\n"
            "Run '%s COMMAND --help' for the options of a command. See dra-celc(1).\n",
            celc_prog, celc_prog);
}

#define LIMITS_HELP                                                                             \
    "  --max-length BYTES  source length limit (default %u)\n"                                 \
    "  --max-depth N       nesting limit (default %u)\n"                                       \
    "  --max-nodes N       AST node limit (default %u)\n"                                      \
    "  --max-errors N      diagnostics reported at most (default %u)\n"                        \
    "  --max-diag-bytes N  bytes of diagnostics printed at most (default %u; 0: no limit)\n"
#define LIMITS_ARGS                                                                             \
    DRACEL_DEFAULT_MAX_SOURCE_BYTES, DRACEL_DEFAULT_MAX_DEPTH, DRACEL_DEFAULT_MAX_NODES,      \
        DRACEL_DEFAULT_MAX_ERRORS, DRACEL_DEFAULT_MAX_DIAG_BYTES

static void usage_parse(FILE *f)
{
    fprintf(f,
            "usage: %s parse (-e EXPR | -f FILE) [--format text|json] [limits]\n"
            "\n"
            "Parses EXPR (or the contents of FILE, '-' for standard input), expands macros and\n"
            "prints the AST as one s-expression line (docs/ast.md). Errors go to stderr in\n"
            "cel-go's format. Exit status: 0 parsed, 1 rejected, 2 usage or I/O error.\n"
            "\n"
            "  -e EXPR             the expression (diagnostics name it <input>)\n"
            "  -f FILE             read the expression from FILE\n"
            "  --format FMT        text (default) or json\n" LIMITS_HELP,
            celc_prog, LIMITS_ARGS);
}

static void usage_eval(FILE *f)
{
    fprintf(f,
            "usage: %s eval (-e EXPR | -f FILE) [--device FILE | --slices PATH]\n"
            "                [--bind NAME=TYPED_JSON]... [--no-check] [--value] [--format text|json]\n"
            "                [--cost-limit N] [limits]\n"
            "\n"
            "Evaluates the expression and prints its value, one line (typed JSON with --format json).\n"
            "Without --device or --slices the expression is plain CEL; with --device FILE it is a\n"
            "DRA selector evaluated on that device (a JSON object shaped like one entry of a\n"
            "ResourceSlice's spec.devices plus \"driver\"), and must give a bool unless --value is\n"
            "given; with --slices PATH it is evaluated on every device of the fleet and the\n"
            "matching devices are printed. An evaluation error exits 1 ({\"error\":...} on stdout\n"
            "with --format json).\n"
            "\n"
            "  --device FILE           a device (JSON)\n"
            "  --slices PATH           ResourceSlices (a file or a directory, JSON or YAML)\n"
            "  --bind NAME=TYPED_JSON  declare NAME with the type of the value and bind it\n"
            "  --no-check              skip type checking (every name is dyn)\n"
            "  --value                 with --device: print any result, not only a bool\n"
            "  --format FMT            text (default) or json\n"
            "  --cost-limit N          run-time cost budget (default %u)\n" LIMITS_HELP,
            celc_prog, DRACEL_DEFAULT_COST_LIMIT, LIMITS_ARGS);
}

static void usage_check(FILE *f)
{
    fprintf(f,
            "usage: %s check (-e EXPR | -f FILE) [--env dra|plain] [--bind NAME=TYPED_JSON]...\n"
            "                 [--cost-limit N] [--format text|json] [limits]\n"
            "\n"
            "Type-checks the expression (by default as a DRA device selector) and prints its type\n"
            "and its estimated cost range (cel-go's estimator with Kubernetes' device size bounds).\n"
            "A DRA selector whose estimate exceeds --cost-limit (default %u) is rejected, as\n"
            "Kubernetes' API validation rejects it.\n"
            "Exit status: 0 valid, 1 rejected (diagnostics on stderr), 2 usage or I/O error.\n"
            "\n"
            "  --env ENV               dra (default) or plain\n"
            "  --bind NAME=TYPED_JSON  declare NAME with the type of the value\n"
            "  --cost-limit N          the estimate's limit\n"
            "  --format FMT            text (default) or json\n" LIMITS_HELP,
            celc_prog, DRACEL_DEFAULT_COST_LIMIT, LIMITS_ARGS);
}

static void usage_disasm(FILE *f)
{
    fprintf(f,
            "usage: %s disasm (-e EXPR | -f FILE) [--env dra|plain] [--bind NAME=TYPED_JSON]...\n"
            "                  [--no-check] [limits]\n"
            "\n"
            "Compiles the expression (by default in the DRA environment, any result type) and\n"
            "prints the program, one instruction a line (docs/bytecode.md).\n"
            "\n"
            "  --env ENV               dra (default) or plain\n"
            "  --bind NAME=TYPED_JSON  declare NAME with the type of the value\n"
            "  --no-check              skip type checking (every name is dyn)\n" LIMITS_HELP,
            celc_prog, LIMITS_ARGS);
}

static void usage_bench(FILE *f)
{
    fprintf(f,
            "usage: %s bench --slices PATH (-e EXPR | -f FILE) [--vm scalar|vector|batched] [--repeat N]\n"
            "                 [--batch N] [--bind NAME=TYPED_JSON]...\n"
            "\n"
            "Loads the fleet, compiles the selector, binds it to the table, evaluates it on every\n"
            "device N times (default 5) and prints one JSON line:\n"
            "{\"devices\":N,\"matched\":M,\"errored\":E,\"ns_per_device\":X,\"load_ms\":Y,\"bytes_per_device\":Z}\n"
            "ns_per_device is the median over the repeats of one evaluation of every device,\n"
            "binding excluded; load_ms is parsing plus building the table; bytes_per_device is all\n"
            "of the table's memory divided by the devices. --vm scalar reads the same table row by\n"
            "row; --vm batched is the vector VM without its fused kernels (its batch interpreter,\n"
            "--batch lanes at a time). A benchmark, not a test.\n",
            celc_prog);
}

int usage_error(void (*usage)(FILE *), const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", celc_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    usage(stderr);
    return EXIT_USAGE;
}

/* A number from 1 to max (0 too when zero_ok). */
static int parse_uint(const char *s, unsigned long max, bool zero_ok, unsigned long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || (v == 0 && !zero_ok) || v > max)
        return -1;
    *out = v;
    return 0;
}

/* The source text of the expression given by -e or -f; NULL after printing why. */
static char *load_source(const options *o, size_t *len, const char **name, int *rc)
{
    if (o->expr) {
        *len = strlen(o->expr);
        *name = "<input>";
        char *s = malloc(*len + 1);
        if (s)
            memcpy(s, o->expr, *len + 1);
        else
            *rc = celc_oom();
        return s;
    }
    *name = o->file;
    int oom;
    /* refused before reading when the file is larger than the largest source allowed */
    char *s = celc_read_file(o->file, DRACEL_HARD_MAX_SOURCE_BYTES, len, &oom);
    if (!s)
        *rc = EXIT_USAGE;
    return s;
}

/* Report diagnostics: cel-go text on stderr; with json, the contract object on stdout.
 * Returns rc, or 2 when memory ran out or stdout could not be written. */
static int report(const options *o, const dracel_diags *d, const char *name, bool json, int rc)
{
    char *text = dracel_diags_render(d, name);
    if (!text)
        return celc_oom();
    fputs(text, stderr);
    dracel_free_string(&o->cfg, text);
    if (!json)
        return rc;
    /* {"error": first error message, "diagnostics": [...]}: "error" comes first. */
    size_t n = dracel_diags_count(d);
    const char *first = "rejected";
    for (size_t i = n; i-- > 0;) {
        dracel_diag_info info;
        if (dracel_diags_get(d, i, &info) == DRACEL_OK && info.severity == DRACEL_SEV_ERROR)
            first = info.message;
    }
    celc_out out;
    celc_out_open(&out);
    cJSON *root = cJSON_CreateObject(), *list = NULL;
    bool ok = out.f && root && celc_json_str(root, "error", first) &&
              (list = cJSON_AddArrayToObject(root, "diagnostics")) != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        dracel_diag_info info;
        if (dracel_diags_get(d, i, &info) != DRACEL_OK)
            continue;
        bool is_error = info.severity == DRACEL_SEV_ERROR;
        cJSON *x = cJSON_CreateObject();
        ok = x != NULL;
        if (ok)
            cJSON_AddItemToArray(list, x); /* list owns x from here */
        ok = ok && celc_json_str(x, "severity", is_error ? "error" : "warning") &&
             celc_json_str(x, "message", info.message) && celc_json_str(x, "source", name) &&
             celc_json_num(x, "line", info.line) && celc_json_num(x, "column", info.column);
    }
    ok = ok && celc_json_print(out.f, root);
    cJSON_Delete(root);
    if (!ok) {
        celc_out_discard(&out);
        return celc_oom();
    }
    return celc_out_close(&out, rc);
}

/* Options shared by the commands that compile an expression. Returns 1 if consumed (and how
 * many argv slots), 0 if not one, -1 on a usage error (already printed). */
static int common_option(options *o, int argc, char **argv, int *i)
{
    static const struct {
        const char *name;
        unsigned bit;
        bool arg;
    } known[] = {
        {"-e", O_EXPR, true},           {"--expr", O_EXPR, true},
        {"-f", O_EXPR, true},           {"--file", O_EXPR, true},
        {"--format", O_FORMAT, true},   {"--max-length", O_LIMITS, true},
        {"--max-depth", O_LIMITS, true}, {"--max-nodes", O_LIMITS, true},
        {"--max-errors", O_LIMITS, true}, {"--max-diag-bytes", O_LIMITS, true},
        {"--cost-limit", O_COST, true}, {"--bind", O_BIND, true},
        {"--device", O_DEVICE, true},   {"--slices", O_SLICES, true},
        {"--env", O_ENV, true},         {"--no-check", O_NOCHECK, false},
        {"--value", O_VALUE, false},
    };
    const char *a = argv[*i];
    size_t k = 0;
    while (k < sizeof known / sizeof known[0] && strcmp(a, known[k].name) != 0)
        k++;
    if (k == sizeof known / sizeof known[0])
        return 0;
    if (!(o->takes & known[k].bit))
        return usage_error(o->usage, "%s does not take %s", o->cmd, a), -1;
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (known[k].arg && !v)
        return usage_error(o->usage, "%s needs an argument", a), -1;
    unsigned long n;
    switch (known[k].bit) {
    case O_EXPR:
        if (o->expr || o->file)
            return usage_error(o->usage, "%s", "give exactly one of -e EXPR or -f FILE"), -1;
        if (a[1] == 'e' || a[2] == 'e')
            o->expr = v;
        else
            o->file = v;
        break;
    case O_FORMAT:
        if (strcmp(v, "json") == 0)
            o->format = FMT_JSON;
        else if (strcmp(v, "text") == 0)
            o->format = FMT_TEXT;
        else
            return usage_error(o->usage, "--format takes text or json, not '%s'", v), -1;
        break;
    case O_LIMITS:
        if (strcmp(a, "--max-length") == 0) {
            if (parse_uint(v, DRACEL_HARD_MAX_SOURCE_BYTES, false, &n))
                return usage_error(o->usage, "--max-length takes a number of bytes from 1 to "
                                   "%u, not '%s'", DRACEL_HARD_MAX_SOURCE_BYTES, v), -1;
            o->cfg.max_source_bytes = n;
        } else if (strcmp(a, "--max-depth") == 0) {
            if (parse_uint(v, DRACEL_HARD_MAX_DEPTH, false, &n))
                return usage_error(o->usage, "--max-depth takes a number from 1 to %u, not '%s'",
                                   DRACEL_HARD_MAX_DEPTH, v), -1;
            o->cfg.max_depth = (uint32_t)n;
        } else if (strcmp(a, "--max-nodes") == 0) {
            if (parse_uint(v, UINT32_MAX, false, &n))
                return usage_error(o->usage, "--max-nodes takes a positive number, not '%s'", v),
                       -1;
            o->cfg.max_nodes = (uint32_t)n;
        } else if (strcmp(a, "--max-errors") == 0) {
            if (parse_uint(v, 100000, false, &n))
                return usage_error(o->usage, "--max-errors takes a number from 1 to 100000, "
                                   "not '%s'", v), -1;
            o->cfg.max_errors = (uint32_t)n;
        } else {
            if (parse_uint(v, 1ul << 30, true, &n))
                return usage_error(o->usage, "--max-diag-bytes takes a number of bytes from 0 "
                                   "to 1073741824, not '%s'", v), -1;
            o->cfg.max_diag_bytes = n;
        }
        break;
    case O_COST:
        if (parse_uint(v, UINT32_MAX, false, &n))
            return usage_error(o->usage, "--cost-limit takes a positive number, not '%s'", v), -1;
        o->cfg.cost_limit = n;
        break;
    case O_BIND:
        if (!strchr(v, '='))
            return usage_error(o->usage, "--bind takes NAME=TYPED_JSON, not '%s'", v), -1;
        if (o->nbinds == MAX_BINDS)
            return usage_error(o->usage, "at most %d --bind options", MAX_BINDS), -1;
        o->binds[o->nbinds++] = v;
        break;
    case O_DEVICE:
    case O_SLICES:
        if (o->device || o->slices)
            return usage_error(o->usage, "%s", "give at most one of --device and --slices"), -1;
        if (known[k].bit == O_DEVICE)
            o->device = v;
        else
            o->slices = v;
        break;
    case O_ENV:
        if (strcmp(v, "plain") == 0)
            o->env = DRACEL_ENV_PLAIN;
        else if (strcmp(v, "dra") == 0)
            o->env = DRACEL_ENV_DRA;
        else
            return usage_error(o->usage, "--env takes plain or dra, not '%s'", v), -1;
        break;
    case O_NOCHECK:
        o->no_check = true;
        return 1;
    case O_VALUE:
        o->value = true;
        return 1;
    }
    (*i)++;
    return 1;
}

/* Parse a compiling command's options. Returns -1 to go on, else an exit status. */
static int parse_options(options *o, const char *cmd, void (*usage)(FILE *), unsigned takes,
                         int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    dracel_config_init(&o->cfg);
    o->env = -1;
    o->cmd = cmd;
    o->usage = usage;
    o->takes = takes;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return celc_help(usage);
        int r = common_option(o, argc, argv, &i);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return usage_error(usage, "unknown option '%s'", argv[i]);
    }
    if (!o->expr == !o->file)
        return usage_error(usage, "%s", "give exactly one of -e EXPR or -f FILE");
    return -1;
}

/* Build the environment: kind, bindings, device. Returns -1 on success, else an exit status. */
static int make_env(const options *o, dracel_env_kind kind, dracel_env **env)
{
    if (dracel_env_new(&o->cfg, kind, env) != DRACEL_OK)
        return celc_oom();
    char err[512];
    for (int i = 0; i < o->nbinds; i++) {
        const char *eq = strchr(o->binds[i], '=');
        char name[256];
        size_t n = (size_t)(eq - o->binds[i]);
        if (n == 0 || n >= sizeof name)
            return usage_error(o->usage, "bad --bind name in '%s'", o->binds[i]);
        memcpy(name, o->binds[i], n);
        name[n] = '\0';
        dracel_status st = dracel_env_bind_json(*env, name, eq + 1, strlen(eq + 1), err, sizeof err);
        if (st == DRACEL_ENOMEM)
            return celc_oom();
        if (st != DRACEL_OK) {
            fprintf(stderr, "%s: --bind %s: %s\n", celc_prog, name, err);
            return EXIT_USAGE;
        }
    }
    if (o->device) {
        size_t len;
        int oom;
        char *text = celc_read_file(o->device, CELC_MAX_FILE_BYTES, &len, &oom);
        if (!text)
            return EXIT_USAGE;
        dracel_status st = dracel_env_device_json(*env, text, len, err, sizeof err);
        free(text);
        if (st == DRACEL_ENOMEM)
            return celc_oom();
        if (st == DRACEL_EINPUT) {
            /* a device the file gives and the reader rejects: rejected input, named by its
             * file (the library names the text "<input>" in "<input>:LINE: ...") */
            char msg[1024];
            if (strncmp(err, "<input>:", 8) == 0)
                snprintf(msg, sizeof msg, "%s:%s", o->device, err + 8);
            else
                snprintf(msg, sizeof msg, "%s: %s", o->device, err);
            return celc_rejected(o->format == FMT_JSON, o->device, msg);
        }
        if (st != DRACEL_OK) {
            fprintf(stderr, "%s: %s: %s\n", celc_prog, o->device, err);
            return EXIT_USAGE;
        }
    }
    return -1;
}

/* Compile o's expression; on rejection report and return the exit status, else -1. */
static int compile_expr(const options *o, dracel_env *env, unsigned flags, dracel_program **prog)
{
    size_t len;
    const char *name;
    int rc = -1;
    char *src = load_source(o, &len, &name, &rc);
    if (!src)
        return rc;
    dracel_diags *d = NULL;
    dracel_status st = dracel_compile(env, src, len, flags, prog, &d);
    free(src);
    if (st == DRACEL_EINPUT || st == DRACEL_ELIMIT)
        rc = report(o, d, name, o->format == FMT_JSON, EXIT_REJECTED);
    else if (st == DRACEL_ENOMEM)
        rc = celc_oom();
    else if (st != DRACEL_OK)
        rc = (fprintf(stderr, "%s: %s\n", celc_prog, dracel_status_string(st)), EXIT_USAGE);
    else if (dracel_diags_count(d) && report(o, d, name, false, -1) == EXIT_USAGE)
        rc = EXIT_USAGE; /* warnings: text on stderr only */
    dracel_diags_free(d);
    return rc;
}

/* The environment (kind, --bind, --device) and the compiled expression of a command.
 * Returns -1 on success, else an exit status (the caller still frees *env and *prog). */
static int env_and_program(const options *o, dracel_env_kind kind, unsigned flags,
                           dracel_env **env, dracel_program **prog)
{
    *env = NULL;
    *prog = NULL;
    int rc = make_env(o, kind, env);
    if (rc < 0)
        rc = compile_expr(o, *env, flags, prog);
    return rc;
}

/* Load a table, reporting notes and errors. Returns -1 on success, else an exit status. */
static int load_table(const options *o, dracel_table **t)
{
    char err[1024];
    dracel_status st = dracel_table_load(&o->cfg, o->slices, t, err, sizeof err);
    if (st == DRACEL_ENOMEM)
        return celc_oom();
    if (st == DRACEL_EINPUT)
        return celc_rejected(o->format == FMT_JSON, o->slices, err);
    if (st != DRACEL_OK) {
        fprintf(stderr, "%s: %s\n", celc_prog, err);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < dracel_table_notes(*t); i++)
        fprintf(stderr, "%s: note: %s\n", celc_prog, dracel_table_note(*t, i));
    return -1;
}

/* A device of the selection as JSON: {"driver","pool","device","node","poolState"}. */
static bool device_json(cJSON *arr, const dracel_device_info *d)
{
    cJSON *x = cJSON_CreateObject();
    if (!x)
        return false;
    cJSON_AddItemToArray(arr, x); /* arr owns x from here */
    return celc_json_str(x, "driver", d->driver) && celc_json_str(x, "pool", d->pool) &&
           celc_json_str(x, "device", d->device) &&
           (d->node ? celc_json_str(x, "node", d->node) : celc_json_null(x, "node")) &&
           celc_json_str(x, "poolState", d->pool_state);
}

/* eval --slices: the matching devices of a fleet, in table order. */
static int eval_slices(const options *o)
{
    if (o->value)
        return usage_error(usage_eval, "%s", "--value goes with --device, not --slices");
    dracel_table *t = NULL;
    int rc = load_table(o, &t);
    if (rc >= 0)
        return rc;
    dracel_env *env;
    dracel_program *prog;
    rc = env_and_program(o, DRACEL_ENV_DRA, o->no_check ? DRACEL_COMPILE_NO_CHECK : 0, &env, &prog);
    dracel_bound *b = NULL;
    dracel_selection *sel = NULL;
    if (rc < 0 && (dracel_bind(prog, t, &b) != DRACEL_OK ||
                   dracel_selection_new(&o->cfg, &sel) != DRACEL_OK ||
                   dracel_select(b, env, NULL, sel) != DRACEL_OK))
        rc = celc_oom();
    if (rc < 0) {
        const uint64_t *m = dracel_selection_matched(sel), *e = dracel_selection_errored(sel);
        uint32_t rows = dracel_table_rows(t);
        celc_out out;
        celc_out_open(&out);
        cJSON *arr = o->format == FMT_JSON ? cJSON_CreateArray() : NULL;
        bool errors = false, ok = out.f && (o->format != FMT_JSON || arr);
        for (uint32_t r = 0; r < rows && ok; r++) {
            bool matched = (m[r / 64] >> (r % 64)) & 1, errored = (e[r / 64] >> (r % 64)) & 1;
            if (!matched && !errored)
                continue;
            dracel_device_info d;
            if (dracel_table_device(t, r, &d) != DRACEL_OK)
                continue;
            if (errored) {
                /* stderr, as it comes: errors are diagnostics */
                fprintf(stderr, "%s/%s/%s: error: %s\n", d.driver, d.pool, d.device,
                        dracel_selection_error(sel, r));
                errors = true;
            } else if (arr) {
                ok = device_json(arr, &d);
            } else {
                fprintf(out.f, "%s/%s/%s\n", d.driver, d.pool, d.device);
            }
        }
        if (ok && arr)
            ok = celc_json_print(out.f, arr);
        cJSON_Delete(arr);
        if (!ok) {
            celc_out_discard(&out);
            rc = celc_oom();
        } else {
            rc = celc_out_close(&out, errors ? EXIT_REJECTED : EXIT_OK);
        }
    }
    dracel_selection_free(sel);
    dracel_bound_free(b);
    dracel_program_free(prog);
    dracel_env_free(env);
    dracel_table_free(t);
    return rc;
}

static int cmd_parse(int argc, char **argv)
{
    options o;
    int rc = parse_options(&o, "parse", usage_parse, O_EXPR | O_FORMAT | O_LIMITS, argc, argv);
    if (rc >= 0)
        return rc;
    size_t len;
    const char *name;
    char *src = load_source(&o, &len, &name, &rc);
    if (!src)
        return rc;
    char *sexpr = NULL;
    dracel_diags *d = NULL;
    dracel_status st = dracel_parse_sexpr(&o.cfg, src, len, &sexpr, &d);
    free(src);
    if (st == DRACEL_OK) {
        rc = EXIT_OK;
        if (dracel_diags_count(d))
            rc = report(&o, d, name, false, EXIT_OK); /* warnings: text on stderr only */
        celc_out out;
        celc_out_open(&out);
        bool ok = out.f != NULL;
        if (ok && o.format == FMT_JSON) {
            cJSON *root = cJSON_CreateObject();
            ok = root && celc_json_str(root, "ast", sexpr) && celc_json_print(out.f, root);
            cJSON_Delete(root);
        } else if (ok) {
            fprintf(out.f, "%s\n", sexpr);
        }
        if (!ok) {
            celc_out_discard(&out);
            rc = celc_oom();
        } else {
            rc = celc_out_close(&out, rc);
        }
    } else if (st == DRACEL_EINPUT || st == DRACEL_ELIMIT) {
        rc = report(&o, d, name, o.format == FMT_JSON, EXIT_REJECTED);
    } else if (st == DRACEL_ENOMEM) {
        rc = celc_oom();
    } else {
        fprintf(stderr, "%s: %s\n", celc_prog, dracel_status_string(st));
        rc = EXIT_USAGE;
    }
    dracel_free_string(&o.cfg, sexpr);
    dracel_diags_free(d);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmd_bench(int argc, char **argv)
{
    options o;
    unsigned vm = DRACEL_VM_VECTOR;
    unsigned long repeat = 5, batch = 0;
    /* bench's own options first; the rest are the common ones, in a copy of argv */
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    if (!rest)
        return celc_oom();
    int nrest = 1;
    rest[0] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--vm") == 0) {
            if (v && strcmp(v, "scalar") == 0)
                vm = DRACEL_VM_SCALAR;
            else if (v && strcmp(v, "vector") == 0)
                vm = DRACEL_VM_VECTOR;
            else if (v && strcmp(v, "batched") == 0)
                vm = DRACEL_VM_BATCHED;
            else
                return free(rest), usage_error(usage_bench, "--vm takes scalar, vector or "
                                               "batched, not '%s'", v ? v : "");
            i++;
        } else if (strcmp(argv[i], "--repeat") == 0) {
            if (parse_uint(v, 1000000, false, &repeat))
                return free(rest), usage_error(usage_bench, "--repeat takes a number from 1 "
                                               "to 1000000, not '%s'", v ? v : "");
            i++;
        } else if (strcmp(argv[i], "--batch") == 0) {
            if (parse_uint(v, 1u << 20, false, &batch))
                return free(rest), usage_error(usage_bench, "--batch takes a number from 1 to "
                                               "1048576, not '%s'", v ? v : "");
            i++;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    int rc = parse_options(&o, "bench", usage_bench, O_EXPR | O_SLICES | O_BIND, nrest, rest);
    free(rest);
    if (rc >= 0)
        return rc;
    if (!o.slices)
        return usage_error(usage_bench, "%s", "bench needs --slices PATH");
    double t0 = celc_now_ms();
    dracel_table *t = NULL;
    rc = load_table(&o, &t);
    if (rc >= 0)
        return rc;
    double load_ms = celc_now_ms() - t0;
    dracel_env *env;
    dracel_program *prog;
    rc = env_and_program(&o, DRACEL_ENV_DRA, 0, &env, &prog);
    dracel_bound *b = NULL;
    dracel_selection *sel = NULL;
    double *times = NULL;
    if (rc < 0 && (dracel_bind(prog, t, &b) != DRACEL_OK ||
                   dracel_selection_new(&o.cfg, &sel) != DRACEL_OK ||
                   !(times = malloc(repeat * sizeof *times))))
        rc = celc_oom();
    if (rc < 0) {
        dracel_select_opts so;
        dracel_select_opts_init(&so);
        so.vm = vm;
        so.batch = (uint32_t)batch;
        uint32_t rows = dracel_table_rows(t);
        for (unsigned long k = 0; k < repeat && rc < 0; k++) {
            double s0 = celc_now_ms();
            if (dracel_select(b, env, &so, sel) != DRACEL_OK)
                rc = celc_oom();
            times[k] = (celc_now_ms() - s0) * 1e6 / (rows ? rows : 1);
        }
        if (rc < 0) {
            qsort(times, repeat, sizeof *times, cmp_double);
            const uint64_t *m = dracel_selection_matched(sel), *e = dracel_selection_errored(sel);
            uint64_t matched = 0, errored = 0;
            for (uint32_t w = 0; w < (rows + 63) / 64; w++) {
                matched += (uint64_t)__builtin_popcountll(m[w]);
                errored += (uint64_t)__builtin_popcountll(e[w]);
            }
            celc_out out;
            celc_out_open(&out);
            if (out.f)
                fprintf(out.f, "{\"devices\":%u,\"matched\":%llu,\"errored\":%llu,"
                        "\"ns_per_device\":%.3f,\"load_ms\":%.1f,\"bytes_per_device\":%.1f}\n",
                        rows, (unsigned long long)matched, (unsigned long long)errored,
                        times[repeat / 2], load_ms,
                        rows ? (double)dracel_table_bytes(t) / rows : 0.0);
            rc = celc_out_close(&out, EXIT_OK);
        }
    }
    free(times);
    dracel_selection_free(sel);
    dracel_bound_free(b);
    dracel_program_free(prog);
    dracel_env_free(env);
    dracel_table_free(t);
    return rc;
}

static int cmd_eval(int argc, char **argv)
{
    options o;
    int rc = parse_options(&o, "eval", usage_eval,
                           O_EXPR | O_FORMAT | O_LIMITS | O_COST | O_BIND | O_DEVICE | O_SLICES |
                               O_NOCHECK | O_VALUE,
                           argc, argv);
    if (rc >= 0)
        return rc;
    if (o.slices)
        return eval_slices(&o);
    if (o.value && !o.device)
        return usage_error(usage_eval, "%s", "--value goes with --device");
    dracel_env *env;
    dracel_program *prog;
    rc = env_and_program(&o, o.device ? DRACEL_ENV_DRA : DRACEL_ENV_PLAIN,
                         (o.no_check ? DRACEL_COMPILE_NO_CHECK : 0) |
                             (o.value ? DRACEL_COMPILE_ANY_RESULT : 0),
                         &env, &prog);
    dracel_result *r = NULL;
    if (rc < 0 && dracel_eval(prog, env, &r) != DRACEL_OK)
        rc = celc_oom();
    if (rc < 0) {
        const char *err = dracel_result_error(r);
        celc_out out;
        celc_out_open(&out);
        if (err && o.format != FMT_JSON) {
            /* an evaluation error in text: stderr only */
            fprintf(stderr, "%s: evaluation error: %s\n", celc_prog, err);
        } else if (out.f) {
            char *text = o.format == FMT_JSON ? dracel_result_json(r) : dracel_result_text(r);
            if (text)
                fprintf(out.f, "%s\n", text);
            else
                celc_out_discard(&out); /* out.f is NULL now: close says "out of memory" */
            dracel_free_string(&o.cfg, text);
        }
        rc = celc_out_close(&out, err ? EXIT_REJECTED : EXIT_OK);
    }
    dracel_result_free(r);
    dracel_program_free(prog);
    dracel_env_free(env);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    options o;
    int rc = parse_options(&o, "check", usage_check,
                           O_EXPR | O_FORMAT | O_LIMITS | O_COST | O_BIND | O_ENV, argc, argv);
    if (rc >= 0)
        return rc;
    dracel_env *env;
    dracel_program *prog;
    rc = env_and_program(&o, o.env < 0 ? DRACEL_ENV_DRA : (dracel_env_kind)o.env,
                         DRACEL_COMPILE_ESTIMATE_COST, &env, &prog);
    if (rc < 0) {
        uint64_t cmin, cmax;
        dracel_program_cost(prog, &cmin, &cmax);
        celc_out out;
        celc_out_open(&out);
        bool ok = out.f != NULL;
        if (ok && o.format == FMT_JSON) {
            /* numbers as strings: uint64 estimates do not fit a JSON double exactly */
            char lo[32], hi[32];
            snprintf(lo, sizeof lo, "%llu", (unsigned long long)cmin);
            snprintf(hi, sizeof hi, "%llu", (unsigned long long)cmax);
            cJSON *root = cJSON_CreateObject();
            ok = root && celc_json_str(root, "type", dracel_program_type(prog)) &&
                 celc_json_str(root, "costMin", lo) &&
                 (cmax == UINT64_MAX ? celc_json_null(root, "costMax")
                                     : celc_json_str(root, "costMax", hi)) &&
                 celc_json_print(out.f, root);
            cJSON_Delete(root);
        } else if (ok && cmax == UINT64_MAX) {
            fprintf(out.f, "type: %s\ncost: %llu..unbounded\n", dracel_program_type(prog),
                    (unsigned long long)cmin);
        } else if (ok) {
            fprintf(out.f, "type: %s\ncost: %llu..%llu\n", dracel_program_type(prog),
                    (unsigned long long)cmin, (unsigned long long)cmax);
        }
        if (!ok) {
            celc_out_discard(&out);
            rc = celc_oom();
        } else {
            rc = celc_out_close(&out, EXIT_OK);
        }
    }
    dracel_program_free(prog);
    dracel_env_free(env);
    return rc;
}

static int cmd_disasm(int argc, char **argv)
{
    options o;
    int rc = parse_options(&o, "disasm", usage_disasm,
                           O_EXPR | O_LIMITS | O_BIND | O_ENV | O_NOCHECK, argc, argv);
    if (rc >= 0)
        return rc;
    dracel_env *env;
    dracel_program *prog;
    rc = env_and_program(&o, o.env < 0 ? DRACEL_ENV_DRA : (dracel_env_kind)o.env,
                         DRACEL_COMPILE_ANY_RESULT | (o.no_check ? DRACEL_COMPILE_NO_CHECK : 0),
                         &env, &prog);
    if (rc < 0) {
        char *text = dracel_program_disasm(prog);
        celc_out out;
        celc_out_open(&out);
        if (out.f && text) {
            fputs(text, out.f);
        } else {
            celc_out_discard(&out);
        }
        rc = celc_out_close(&out, EXIT_OK);
        dracel_free_string(&o.cfg, text);
    }
    dracel_program_free(prog);
    dracel_env_free(env);
    return rc;
}

static int cmd_version(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return usage_error(usage_main, "%s", "version takes no options");
    celc_out out;
    celc_out_open(&out);
    if (out.f)
        fprintf(out.f, "dra-celc %s\n", dracel_version());
    return celc_out_close(&out, EXIT_OK);
}

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"parse", cmd_parse},
    {"check", cmd_check},
    {"eval", cmd_eval},
    {"disasm", cmd_disasm},
    {"bench", cmd_bench},
    {"allocate", celc_allocate},
    {"explain", celc_explain},
    {"lint", celc_lint},
    {"replay", celc_replay},
    {"version", cmd_version},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage_main(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0)
        return celc_help(usage_main);
    if (strcmp(name, "--version") == 0)
        return cmd_version(1, argv);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "%s: unknown command '%s'\n", celc_prog, name);
    usage_main(stderr);
    return EXIT_USAGE;
}
