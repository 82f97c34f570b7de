/*
 * runner: the evaluating half of the CEL conformance run (`make conformance`, scripts/conformance).
 *
 * tests/conformance/run.js reads the suite (@bufbuild/cel-spec, fetched at test time), converts
 * each test to dracel's typed JSON, and pipes the cases to this program, which compiles and
 * evaluates them in process through the public API (dracel.h) and prints one JSON line per case.
 * run.js compares the answers and keeps the known-failures list.
 *
 * Why a C program and not `dra-celc eval` per case: the suite has about 1,500 cases in the subset
 * we run; spawning dra-celc (a libtool wrapper script) costs about 0.2 s each, so several minutes,
 * while one process answers all of them in about a second. Why the split: the suite is a
 * JavaScript module, so reading and converting it is a few lines of JavaScript, and the value
 * comparison (maps are unordered, NaN matches NaN) is simplest there too.
 *
 * Input (stdin), a sequence of cases, each:
 *   "CASE <flags> <nbind> <exprlen>\n" <expr bytes> "\n"
 *   then nbind times: "BIND <namelen> <jsonlen>\n" <name bytes> <typed JSON bytes> "\n"
 * flags: 1 = compile without type checking (DRACEL_COMPILE_NO_CHECK), 2 = check only (no eval).
 * Output (stdout), one line per case, flushed after each line (so that run.js can tell which
 * case crashed or hung): {"bind":"<message>"} | {"compile":"<diagnostics>"} |
 * {"type":"<checked type>"} (check only) | {"type":"<checked type>","result":<typed JSON>}
 * where the result is dracel_result_json's output ({"error":"..."} for an evaluation error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dracel.h"

enum { F_NO_CHECK = 1, F_CHECK_ONLY = 2 };

static void die(const char *msg)
{
    fprintf(stderr, "conformance runner: %s\n", msg);
    exit(2);
}

/* Read exactly n bytes into a fresh NUL-terminated buffer. */
static char *read_bytes(size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        die("out of memory");
    if (n && fread(p, 1, n, stdin) != n)
        die("truncated input");
    p[n] = '\0';
    return p;
}

static void expect_newline(void)
{
    if (getchar() != '\n')
        die("malformed input (missing newline)");
}

/* Print s as a JSON string. */
static void put_json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void put_message(const char *key, const char *msg)
{
    printf("{\"%s\":", key);
    put_json_string(msg ? msg : "(no message)");
    fputs("}\n", stdout);
}

static void run_case(unsigned flags, char *expr, size_t expr_len, int nbind, char **names,
                     char **values)
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    dracel_env *env = NULL;
    if (dracel_env_new(&cfg, DRACEL_ENV_PLAIN, &env) != DRACEL_OK)
        die("dracel_env_new failed");
    char err[512];
    for (int i = 0; i < nbind; i++) {
        err[0] = '\0';
        if (dracel_env_bind_json(env, names[i], values[i], strlen(values[i]), err, sizeof err) !=
            DRACEL_OK) {
            char msg[700];
            snprintf(msg, sizeof msg, "%s: %s", names[i], err);
            put_message("bind", msg);
            dracel_env_free(env);
            return;
        }
    }
    dracel_program *p = NULL;
    dracel_diags *d = NULL;
    unsigned cflags = (flags & F_NO_CHECK) ? DRACEL_COMPILE_NO_CHECK : 0;
    if (dracel_compile(env, expr, expr_len, cflags, &p, &d) != DRACEL_OK) {
        char *text = d ? dracel_diags_render(d, "<input>") : NULL;
        put_message("compile", text ? text : "compile failed without diagnostics");
        dracel_free_string(&cfg, text);
    } else {
        const char *type = dracel_program_type(p);
        fputs("{\"type\":", stdout);
        put_json_string(type ? type : "");
        if (!(flags & F_CHECK_ONLY)) {
            dracel_result *r = NULL;
            char *json = NULL;
            if (dracel_eval(p, env, &r) == DRACEL_OK)
                json = dracel_result_json(r);
            fputs(",\"result\":", stdout);
            if (json)
                fputs(json, stdout);
            else
                fputs("{\"error\":\"(runner) dracel_eval or dracel_result_json failed\"}", stdout);
            dracel_free_string(&cfg, json);
            dracel_result_free(r);
        }
        fputs("}\n", stdout);
    }
    dracel_program_free(p);
    dracel_diags_free(d);
    dracel_env_free(env);
}

int main(void)
{
    unsigned flags;
    int nbind;
    size_t expr_len;
    int got;
    while ((got = scanf("CASE %u %d %zu", &flags, &nbind, &expr_len)) == 3) {
        expect_newline();
        if (nbind < 0 || nbind > 64)
            die("bad binding count");
        char *expr = read_bytes(expr_len);
        expect_newline();
        char *names[64], *values[64];
        for (int i = 0; i < nbind; i++) {
            size_t nl, vl;
            if (scanf("BIND %zu %zu", &nl, &vl) != 2)
                die("malformed BIND line");
            expect_newline();
            names[i] = read_bytes(nl);
            values[i] = read_bytes(vl);
            expect_newline();
        }
        run_case(flags, expr, expr_len, nbind, names, values);
        fflush(stdout);
        for (int i = 0; i < nbind; i++) {
            free(names[i]);
            free(values[i]);
        }
        free(expr);
    }
    if (got != EOF)
        die("malformed CASE line");
    return 0;
}
