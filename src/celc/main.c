/*
 * dra-celc: the command-line front of libdracel. This file uses only the public header
 * (dracel.h), as jq's main.c uses only jv.h and jq.h; the placement commands (allocate,
 * explain: src/celc/place.c) use the library's internal allocator interface.
 *
 * Contracts (docs/dra-celc.md, DESIGN.md): results on stdout, diagnostics on stderr in cel-go's
 * format; with --format json, stdout also gets {"error":..., "diagnostics":[...]}. Exit status:
 * 0 success, 1 the input was read and rejected, 2 usage or I/O error.
 */
#define _POSIX_C_SOURCE 200809L

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dracel.h"
#include "place.h"

enum { EXIT_OK = 0, EXIT_REJECTED = 1, EXIT_USAGE = 2 };

/* Input files larger than this are refused before reading (the library's limit is smaller by
 * default; this only stops a mistaken multi-gigabyte read). */
#define MAX_FILE_BYTES (DRACEL_HARD_MAX_SOURCE_BYTES + 1u)

typedef enum { FMT_TEXT, FMT_JSON } out_format;

#define MAX_BINDS 64

typedef struct options {
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

static const char *progname = "dra-celc";

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
            "  version  print the version\n"
            "\n"
            "Run '%s COMMAND --help' for the options of a command. See dra-celc(1).\n",
            progname, progname);
}

static void usage_parse(FILE *f)
{
    fprintf(f,
            "usage: %s parse (-e EXPR | -f FILE) [--format text|json]\n"
            "                [--max-length BYTES] [--max-depth N] [--max-nodes N] [--max-errors N]\n"
            "\n"
            "Parses EXPR (or the contents of FILE, '-' for standard input), expands macros and\n"
            "prints the AST as one s-expression line (docs/ast.md). Errors go to stderr in\n"
            "cel-go's format. Exit status: 0 parsed, 1 rejected, 2 usage or I/O error.\n"
            "\n"
            "  -e EXPR             the expression (diagnostics name it <input>)\n"
            "  -f FILE             read the expression from FILE\n"
            "  --format FMT        text (default) or json\n"
            "  --max-length BYTES  source length limit (default %u)\n"
            "  --max-depth N       nesting limit (default %u)\n"
            "  --max-nodes N       AST node limit (default %u)\n"
            "  --max-errors N      diagnostics reported at most (default %u)\n",
            progname, DRACEL_DEFAULT_MAX_SOURCE_BYTES, DRACEL_DEFAULT_MAX_DEPTH,
            DRACEL_DEFAULT_MAX_NODES, DRACEL_DEFAULT_MAX_ERRORS);
}

int usage_error(void (*usage)(FILE *), const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", progname);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    usage(stderr);
    return EXIT_USAGE;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v == 0 || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Read a whole file (or stdin for "-"). Returns NULL and prints why on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", progname, path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= MAX_FILE_BYTES) {
                fprintf(stderr, "%s: %s: file larger than %u bytes\n", progname, path,
                        MAX_FILE_BYTES);
                free(buf);
                buf = NULL;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) {
            if (ferror(f)) {
                fprintf(stderr, "%s: cannot read %s: %s\n", progname, path, strerror(errno));
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    if (f != stdin)
        fclose(f);
    if (!buf && !ferror(stdin))
        return NULL;
    *len = n;
    return buf;
}

/* The source text of the expression given by -e or -f. */
static char *load_source(const options *o, size_t *len, const char **name)
{
    if (o->expr) {
        *len = strlen(o->expr);
        *name = "<input>";
        char *s = malloc(*len + 1);
        if (s)
            memcpy(s, o->expr, *len + 1);
        return s;
    }
    *name = o->file;
    return read_file(o->file, len);
}

/* Report diagnostics: cel-go text on stderr; with json, the contract object on stdout. */
static void report(const options *o, const dracel_diags *d, const char *name)
{
    char *text = dracel_diags_render(d, name);
    if (text) {
        fputs(text, stderr);
        dracel_free_string(&o->cfg, text);
    }
    if (o->format != FMT_JSON)
        return;
    /* {"error": first error message, "diagnostics": [...]}: "error" comes first. */
    size_t n = dracel_diags_count(d);
    const char *first = "rejected";
    for (size_t i = n; i-- > 0;) {
        dracel_diag_info info;
        if (dracel_diags_get(d, i, &info) == DRACEL_OK && info.severity == DRACEL_SEV_ERROR)
            first = info.message;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "error", first);
    cJSON *list = cJSON_AddArrayToObject(root, "diagnostics");
    for (size_t i = 0; i < n; i++) {
        dracel_diag_info info;
        if (dracel_diags_get(d, i, &info) != DRACEL_OK)
            continue;
        bool is_error = info.severity == DRACEL_SEV_ERROR;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "severity", is_error ? "error" : "warning");
        cJSON_AddStringToObject(x, "message", info.message);
        cJSON_AddStringToObject(x, "source", name);
        cJSON_AddNumberToObject(x, "line", info.line);
        cJSON_AddNumberToObject(x, "column", info.column);
        cJSON_AddItemToArray(list, x);
    }
    char *s = cJSON_PrintUnformatted(root);
    if (s) {
        puts(s);
        cJSON_free(s);
    }
    cJSON_Delete(root);
}

/* Options shared by the commands that compile an expression. Returns 1 if consumed (and how
 * many argv slots), 0 if not ours, -1 on a usage error (already printed). */
static int common_option(options *o, int argc, char **argv, int *i, void (*usage)(FILE *))
{
    const char *a = argv[*i];
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    unsigned long n;
    if (strcmp(a, "-e") == 0 || strcmp(a, "--expr") == 0) {
        if (!v)
            return usage_error(usage, "%s needs an argument", a), -1;
        o->expr = v;
    } else if (strcmp(a, "-f") == 0 || strcmp(a, "--file") == 0) {
        if (!v)
            return usage_error(usage, "%s needs an argument", a), -1;
        o->file = v;
    } else if (strcmp(a, "--format") == 0) {
        if (v && strcmp(v, "json") == 0)
            o->format = FMT_JSON;
        else if (v && strcmp(v, "text") == 0)
            o->format = FMT_TEXT;
        else
            return usage_error(usage, "--format takes text or json, not '%s'", v ? v : ""), -1;
    } else if (strcmp(a, "--max-length") == 0) {
        if (parse_uint(v, DRACEL_HARD_MAX_SOURCE_BYTES, &n))
            return usage_error(usage, "--max-length takes a number of bytes from 1 to 67108864, not '%s'",
                               v ? v : ""), -1;
        o->cfg.max_source_bytes = n;
    } else if (strcmp(a, "--max-depth") == 0) {
        if (parse_uint(v, DRACEL_HARD_MAX_DEPTH, &n))
            return usage_error(usage, "--max-depth takes a number from 1 to 10000, not '%s'",
                               v ? v : ""), -1;
        o->cfg.max_depth = (uint32_t)n;
    } else if (strcmp(a, "--max-nodes") == 0) {
        if (parse_uint(v, UINT32_MAX, &n))
            return usage_error(usage, "--max-nodes takes a positive number, not '%s'", v ? v : ""), -1;
        o->cfg.max_nodes = (uint32_t)n;
    } else if (strcmp(a, "--cost-limit") == 0) {
        if (parse_uint(v, UINT32_MAX, &n))
            return usage_error(usage, "--cost-limit takes a positive number, not '%s'", v ? v : ""), -1;
        o->cfg.cost_limit = n;
    } else if (strcmp(a, "--bind") == 0) {
        if (!v || !strchr(v, '='))
            return usage_error(usage, "--bind takes NAME=TYPED_JSON, not '%s'", v ? v : ""), -1;
        if (o->nbinds == MAX_BINDS)
            return usage_error(usage, "at most %d --bind options", MAX_BINDS), -1;
        o->binds[o->nbinds++] = v;
    } else if (strcmp(a, "--device") == 0) {
        if (!v)
            return usage_error(usage, "%s needs an argument", a), -1;
        o->device = v;
    } else if (strcmp(a, "--slices") == 0) {
        if (!v)
            return usage_error(usage, "%s needs an argument", a), -1;
        o->slices = v;
    } else if (strcmp(a, "--env") == 0) {
        if (v && strcmp(v, "plain") == 0)
            o->env = DRACEL_ENV_PLAIN;
        else if (v && strcmp(v, "dra") == 0)
            o->env = DRACEL_ENV_DRA;
        else
            return usage_error(usage, "--env takes plain or dra, not '%s'", v ? v : ""), -1;
    } else if (strcmp(a, "--no-check") == 0) {
        o->no_check = true;
        return 1;
    } else if (strcmp(a, "--value") == 0) {
        o->value = true;
        return 1;
    } else if (strcmp(a, "--max-errors") == 0) {
        if (parse_uint(v, 100000, &n))
            return usage_error(usage, "--max-errors takes a number from 1 to 100000, not '%s'",
                               v ? v : ""), -1;
        o->cfg.max_errors = (uint32_t)n;
    } else {
        return 0;
    }
    (*i)++;
    return 1;
}

static int cmd_parse(int argc, char **argv)
{
    options o = {0};
    dracel_config_init(&o.cfg);
    o.env = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage_parse(stdout);
            return EXIT_OK;
        }
        int r = common_option(&o, argc, argv, &i, usage_parse);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return usage_error(usage_parse, "unknown option '%s'", argv[i]);
    }
    if (!o.expr == !o.file)
        return usage_error(usage_parse, "%s", "give exactly one of -e EXPR or -f FILE");
    if (o.device || o.slices || o.nbinds || o.no_check || o.value || o.env >= 0 ||
        o.cfg.cost_limit != DRACEL_DEFAULT_COST_LIMIT)
        return usage_error(usage_parse, "%s", "parse takes only -e/-f, --format and the limits");

    size_t len;
    const char *name;
    char *src = load_source(&o, &len, &name);
    if (!src)
        return EXIT_USAGE;
    char *sexpr = NULL;
    dracel_diags *d = NULL;
    dracel_status st = dracel_parse_sexpr(&o.cfg, src, len, &sexpr, &d);
    free(src);
    int rc;
    if (st == DRACEL_OK) {
        if (dracel_diags_count(d))
            report(&(options){.format = FMT_TEXT, .cfg = o.cfg}, d, name);
        if (o.format == FMT_JSON) {
            cJSON *root = cJSON_CreateObject();
            cJSON_AddStringToObject(root, "ast", sexpr);
            char *s = cJSON_PrintUnformatted(root);
            if (s)
                puts(s);
            cJSON_free(s);
            cJSON_Delete(root);
        } else {
            puts(sexpr);
        }
        rc = EXIT_OK;
    } else if (st == DRACEL_EINPUT) {
        report(&o, d, name);
        rc = EXIT_REJECTED;
    } else {
        fprintf(stderr, "%s: %s\n", progname,
                st == DRACEL_ENOMEM ? "out of memory" : "internal error");
        rc = EXIT_USAGE;
    }
    dracel_free_string(&o.cfg, sexpr);
    dracel_diags_free(d);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "%s: cannot write output: %s\n", progname, strerror(errno));
        return EXIT_USAGE;
    }
    return rc;
}

static void usage_eval(FILE *f)
{
    fprintf(f,
            "usage: %s eval (-e EXPR | -f FILE) [--device FILE] [--bind NAME=TYPED_JSON]...\n"
            "                [--no-check] [--value] [--format text|json] [--cost-limit N] [limits]\n"
            "\n"
            "Evaluates the expression and prints its value, one line (typed JSON with --format json).\n"
            "Without --device the expression is plain CEL; with --device FILE it is a DRA selector\n"
            "evaluated on that device (a JSON object shaped like one entry of a ResourceSlice's\n"
            "spec.devices plus \"driver\"), and must give a bool unless --value is given.\n"
            "An evaluation error exits 1 ({\"error\":...} on stdout with --format json).\n"
            "\n"
            "  --bind NAME=TYPED_JSON  declare NAME with the type of the value and bind it\n"
            "  --no-check              skip type checking (every name is dyn)\n"
            "  --value                 with --device: print any result, not only a bool\n"
            "  --cost-limit N          run-time cost budget (default %u)\n"
            "  limits                  --max-length --max-depth --max-nodes --max-errors, as for parse\n",
            progname, DRACEL_DEFAULT_COST_LIMIT);
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
            "Exit status: 0 valid, 1 rejected (diagnostics on stderr), 2 usage or I/O error.\n",
            progname, DRACEL_DEFAULT_COST_LIMIT);
}

static void usage_disasm(FILE *f)
{
    fprintf(f,
            "usage: %s disasm (-e EXPR | -f FILE) [--env dra|plain] [--bind NAME=TYPED_JSON]...\n"
            "                  [--no-check] [limits]\n"
            "\n"
            "Compiles the expression (by default in the DRA environment, any result type) and\n"
            "prints the program, one instruction a line (docs/bytecode.md).\n",
            progname);
}

/* Parse the options of a compiling command. Returns -1 to go on, else an exit status. */
static int parse_options(options *o, int argc, char **argv, void (*usage)(FILE *),
                         bool allow_eval_flags)
{
    memset(o, 0, sizeof *o);
    dracel_config_init(&o->cfg);
    o->env = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return EXIT_OK;
        }
        const char *a = argv[i];
        int r = common_option(o, argc, argv, &i, usage);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return usage_error(usage, "unknown option '%s'", a);
        if (!allow_eval_flags && (strcmp(a, "--device") == 0 || strcmp(a, "--slices") == 0 ||
                                  strcmp(a, "--value") == 0))
            return usage_error(usage, "option '%s' is for eval", a);
    }
    if (!o->expr == !o->file)
        return usage_error(usage, "%s", "give exactly one of -e EXPR or -f FILE");
    if (o->device && o->slices)
        return usage_error(usage, "%s", "give at most one of --device and --slices");
    return -1;
}

/* Build the environment: kind, bindings, device. Returns -1 on success, else an exit status. */
static int make_env(const options *o, dracel_env_kind kind, dracel_env **env)
{
    if (dracel_env_new(&o->cfg, kind, env) != DRACEL_OK) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return EXIT_USAGE;
    }
    char err[512];
    for (int i = 0; i < o->nbinds; i++) {
        const char *eq = strchr(o->binds[i], '=');
        char name[256];
        size_t n = (size_t)(eq - o->binds[i]);
        if (n == 0 || n >= sizeof name)
            return usage_error(usage_eval, "bad --bind name in '%s'", o->binds[i]);
        memcpy(name, o->binds[i], n);
        name[n] = '\0';
        dracel_status st = dracel_env_bind_json(*env, name, eq + 1, strlen(eq + 1), err, sizeof err);
        if (st != DRACEL_OK) {
            fprintf(stderr, "%s: --bind %s: %s\n", progname, name,
                    st == DRACEL_ENOMEM ? "out of memory" : err);
            return EXIT_USAGE;
        }
    }
    if (o->device) {
        size_t len;
        char *text = read_file(o->device, &len);
        if (!text)
            return EXIT_USAGE;
        dracel_status st = dracel_env_device_json(*env, text, len, err, sizeof err);
        free(text);
        if (st != DRACEL_OK) {
            /* The library names the text "<input>" in "<input>:LINE: ...": say which file. */
            bool at = st == DRACEL_EINPUT && strncmp(err, "<input>:", 8) == 0;
            fprintf(stderr, "%s: %s%s%s\n", progname, o->device, at ? ":" : ": ",
                    st == DRACEL_ENOMEM ? "out of memory" : at ? err + 8 : err);
            return EXIT_USAGE;
        }
    }
    return -1;
}

/* Compile o's expression; on rejection report and return the exit status, else -1. */
static int compile_expr(const options *o, dracel_env *env, unsigned flags, dracel_program **prog,
                        const char **name_out)
{
    size_t len;
    const char *name;
    char *src = load_source(o, &len, &name);
    if (!src)
        return EXIT_USAGE;
    *name_out = name;
    dracel_diags *d = NULL;
    dracel_status st = dracel_compile(env, src, len, flags, prog, &d);
    free(src);
    int rc = -1;
    if (st == DRACEL_EINPUT) {
        report(o, d, name);
        rc = EXIT_REJECTED;
    } else if (st != DRACEL_OK) {
        fprintf(stderr, "%s: %s\n", progname, st == DRACEL_ENOMEM ? "out of memory" : "internal error");
        rc = EXIT_USAGE;
    } else if (dracel_diags_count(d)) {
        options text = *o;
        text.format = FMT_TEXT;
        report(&text, d, name);
    }
    dracel_diags_free(d);
    return rc;
}

/* The environment (kind, --bind, --device) and the compiled expression of a command.
 * Returns -1 on success, else an exit status (the caller still frees *env and *prog). */
static int env_and_program(const options *o, dracel_env_kind kind, unsigned flags,
                           dracel_env **env, dracel_program **prog)
{
    const char *name = "<input>";
    *env = NULL;
    *prog = NULL;
    int rc = make_env(o, kind, env);
    if (rc < 0)
        rc = compile_expr(o, *env, flags, prog, &name);
    return rc;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Load a table, reporting notes and errors. Returns -1 on success, else an exit status. */
static int load_table(const options *o, dracel_table **t)
{
    char err[1024];
    dracel_status st = dracel_table_load(&o->cfg, o->slices, t, err, sizeof err);
    if (st != DRACEL_OK) {
        fprintf(stderr, "%s: %s\n", progname, st == DRACEL_ENOMEM ? "out of memory" : err);
        return st == DRACEL_EINPUT ? EXIT_REJECTED : EXIT_USAGE;
    }
    for (size_t i = 0; i < dracel_table_notes(*t); i++)
        fprintf(stderr, "%s: note: %s\n", progname, dracel_table_note(*t, i));
    return -1;
}

static void device_id(const dracel_device_info *d, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s/%s", d->driver, d->pool, d->device);
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
    if (rc < 0 && (dracel_bind(prog, t, &b) != DRACEL_OK || dracel_selection_new(&o->cfg, &sel) != DRACEL_OK ||
                   dracel_select(b, env, NULL, sel) != DRACEL_OK)) {
        fprintf(stderr, "%s: out of memory\n", progname);
        rc = EXIT_USAGE;
    }
    if (rc < 0) {
        const uint64_t *m = dracel_selection_matched(sel), *e = dracel_selection_errored(sel);
        uint32_t rows = dracel_table_rows(t);
        cJSON *arr = o->format == FMT_JSON ? cJSON_CreateArray() : NULL;
        bool errors = false;
        char id[1024];
        for (uint32_t r = 0; r < rows; r++) {
            bool matched = (m[r / 64] >> (r % 64)) & 1, errored = (e[r / 64] >> (r % 64)) & 1;
            if (!matched && !errored)
                continue;
            dracel_device_info d;
            dracel_table_device(t, r, &d);
            device_id(&d, id, sizeof id);
            if (errored) {
                fprintf(stderr, "%s: error: %s\n", id, dracel_selection_error(sel, r));
                errors = true;
                continue;
            }
            if (arr) {
                cJSON *x = cJSON_CreateObject();
                cJSON_AddStringToObject(x, "driver", d.driver);
                cJSON_AddStringToObject(x, "pool", d.pool);
                cJSON_AddStringToObject(x, "device", d.device);
                if (d.node)
                    cJSON_AddStringToObject(x, "node", d.node);
                else
                    cJSON_AddNullToObject(x, "node");
                cJSON_AddStringToObject(x, "poolState", d.pool_state);
                cJSON_AddItemToArray(arr, x);
            } else {
                puts(id);
            }
        }
        if (arr) {
            char *text = cJSON_PrintUnformatted(arr);
            if (text)
                puts(text);
            cJSON_free(text);
            cJSON_Delete(arr);
        }
        rc = errors ? EXIT_REJECTED : EXIT_OK;
    }
    dracel_selection_free(sel);
    dracel_bound_free(b);
    dracel_program_free(prog);
    dracel_env_free(env);
    dracel_table_free(t);
    if (fflush(stdout) != 0)
        return EXIT_USAGE;
    return rc;
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
            progname);
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
    /* bench's own options first; the rest are the common ones. */
    char *rest[128];
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
                return usage_error(usage_bench, "--vm takes scalar, vector or batched, not '%s'", v ? v : "");
            i++;
        } else if (strcmp(argv[i], "--repeat") == 0) {
            if (parse_uint(v, 1000000, &repeat))
                return usage_error(usage_bench, "--repeat takes a positive number, not '%s'", v ? v : "");
            i++;
        } else if (strcmp(argv[i], "--batch") == 0) {
            if (parse_uint(v, 1u << 20, &batch))
                return usage_error(usage_bench, "--batch takes a positive number, not '%s'", v ? v : "");
            i++;
        } else if (nrest < 127) {
            rest[nrest++] = argv[i];
        }
    }
    int rc = parse_options(&o, nrest, rest, usage_bench, true);
    if (rc >= 0)
        return rc;
    if (!o.slices)
        return usage_error(usage_bench, "%s", "bench needs --slices PATH");
    double t0 = now_ms();
    dracel_table *t = NULL;
    rc = load_table(&o, &t);
    if (rc >= 0)
        return rc;
    double load_ms = now_ms() - t0;
    dracel_env *env;
    dracel_program *prog;
    rc = env_and_program(&o, DRACEL_ENV_DRA, o.no_check ? DRACEL_COMPILE_NO_CHECK : 0, &env, &prog);
    dracel_bound *b = NULL;
    dracel_selection *sel = NULL;
    if (rc < 0 && (dracel_bind(prog, t, &b) != DRACEL_OK || dracel_selection_new(&o.cfg, &sel) != DRACEL_OK)) {
        fprintf(stderr, "%s: out of memory\n", progname);
        rc = EXIT_USAGE;
    }
    if (rc < 0) {
        dracel_select_opts so = {sizeof(dracel_select_opts), vm, (uint32_t)batch, false};
        double *times = malloc(repeat * sizeof *times);
        uint32_t rows = dracel_table_rows(t);
        for (unsigned long k = 0; k < repeat && times; k++) {
            double s0 = now_ms();
            if (dracel_select(b, env, &so, sel) != DRACEL_OK) {
                rc = EXIT_USAGE;
                break;
            }
            times[k] = (now_ms() - s0) * 1e6 / (rows ? rows : 1);
        }
        if (rc < 0 && times) {
            qsort(times, repeat, sizeof *times, cmp_double);
            const uint64_t *m = dracel_selection_matched(sel), *e = dracel_selection_errored(sel);
            uint64_t matched = 0, errored = 0;
            for (uint32_t w = 0; w < (rows + 63) / 64; w++) {
                matched += (uint64_t)__builtin_popcountll(m[w]);
                errored += (uint64_t)__builtin_popcountll(e[w]);
            }
            printf("{\"devices\":%u,\"matched\":%llu,\"errored\":%llu,\"ns_per_device\":%.3f,"
                   "\"load_ms\":%.1f,\"bytes_per_device\":%.1f}\n",
                   rows, (unsigned long long)matched, (unsigned long long)errored, times[repeat / 2],
                   load_ms, rows ? (double)dracel_table_bytes(t) / rows : 0.0);
            rc = EXIT_OK;
        } else if (rc < 0) {
            rc = EXIT_USAGE;
        }
        free(times);
    }
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
    int rc = parse_options(&o, argc, argv, usage_eval, true);
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
    if (rc < 0) {
        dracel_result *r = NULL;
        if (dracel_eval(prog, env, &r) != DRACEL_OK) {
            fprintf(stderr, "%s: out of memory\n", progname);
            rc = EXIT_USAGE;
        } else {
            const char *err = dracel_result_error(r);
            char *out = o.format == FMT_JSON ? dracel_result_json(r) : dracel_result_text(r);
            if (err && o.format != FMT_JSON)
                fprintf(stderr, "%s: evaluation error: %s\n", progname, err);
            else if (out)
                puts(out);
            dracel_free_string(&o.cfg, out);
            rc = err ? EXIT_REJECTED : EXIT_OK;
        }
        dracel_result_free(r);
    }
    dracel_program_free(prog);
    dracel_env_free(env);
    if (fflush(stdout) != 0)
        return EXIT_USAGE;
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    options o;
    int rc = parse_options(&o, argc, argv, usage_check, false);
    if (rc >= 0)
        return rc;
    dracel_env *env;
    dracel_program *prog;
    rc = env_and_program(&o, o.env < 0 ? DRACEL_ENV_DRA : (dracel_env_kind)o.env,
                         DRACEL_COMPILE_ESTIMATE_COST, &env, &prog);
    if (rc < 0) {
        uint64_t cmin, cmax;
        dracel_program_cost(prog, &cmin, &cmax);
        rc = EXIT_OK;
        if (o.format == FMT_JSON) {
            /* Numbers as strings: uint64 estimates do not fit a JSON double exactly. Nothing is
             * printed unless the whole object was built. */
            char lo[32], hi[32];
            snprintf(lo, sizeof lo, "%llu", (unsigned long long)cmin);
            snprintf(hi, sizeof hi, "%llu", (unsigned long long)cmax);
            cJSON *root = cJSON_CreateObject();
            bool built = root && cJSON_AddStringToObject(root, "type", dracel_program_type(prog)) &&
                         cJSON_AddStringToObject(root, "costMin", lo) &&
                         (cmax == UINT64_MAX ? cJSON_AddNullToObject(root, "costMax") != NULL
                                             : cJSON_AddStringToObject(root, "costMax", hi) != NULL);
            char *s = built ? cJSON_PrintUnformatted(root) : NULL;
            if (s)
                puts(s);
            else {
                fprintf(stderr, "%s: out of memory\n", progname);
                rc = EXIT_USAGE;
            }
            cJSON_free(s);
            cJSON_Delete(root);
        } else if (cmax == UINT64_MAX) {
            printf("type: %s\ncost: %llu..unbounded\n", dracel_program_type(prog), (unsigned long long)cmin);
        } else {
            printf("type: %s\ncost: %llu..%llu\n", dracel_program_type(prog), (unsigned long long)cmin,
                   (unsigned long long)cmax);
        }
        if (fflush(stdout) != 0)
            rc = EXIT_USAGE;
    }
    dracel_program_free(prog);
    dracel_env_free(env);
    return rc;
}

static int cmd_disasm(int argc, char **argv)
{
    options o;
    int rc = parse_options(&o, argc, argv, usage_disasm, false);
    if (rc >= 0)
        return rc;
    dracel_env *env;
    dracel_program *prog;
    rc = env_and_program(&o, o.env < 0 ? DRACEL_ENV_DRA : (dracel_env_kind)o.env,
                         DRACEL_COMPILE_ANY_RESULT | (o.no_check ? DRACEL_COMPILE_NO_CHECK : 0),
                         &env, &prog);
    if (rc < 0) {
        char *text = dracel_program_disasm(prog);
        if (text)
            fputs(text, stdout);
        dracel_free_string(&o.cfg, text);
        rc = text ? EXIT_OK : EXIT_USAGE;
    }
    dracel_program_free(prog);
    dracel_env_free(env);
    return rc;
}

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("dra-celc %s\n", dracel_version());
    return EXIT_OK;
}

static const command commands[] = {
    {"parse", cmd_parse},
    {"check", cmd_check},
    {"eval", cmd_eval},
    {"disasm", cmd_disasm},
    {"bench", cmd_bench},
    {"allocate", celc_allocate},
    {"explain", celc_explain},
    {"version", cmd_version},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage_main(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        usage_main(stdout);
        return EXIT_OK;
    }
    if (strcmp(name, "--version") == 0)
        return cmd_version(0, NULL);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "%s: unknown command '%s'\n", progname, name);
    usage_main(stderr);
    return EXIT_USAGE;
}
