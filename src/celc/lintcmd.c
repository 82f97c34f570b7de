/*
 * lintcmd.c: `dra-celc lint` (docs/lint.md): reads the files and directories given, hands each
 * file to the library's lint (dracel_lint_*), and writes the findings as text, JSON or SARIF
 * 2.1.0. The rules are the library's; this file only reads and writes.
 *
 * Contract (docs/dra-celc.md): text findings `FILE:LINE:COL: SEVERITY: MESSAGE [RULE]`, the
 * source line and a caret; JSON {"findings":[{"file","line","column","severity","rule",
 * "message","hint"}],"files":N,"objects":N}; SARIF with the rules in tool.driver.rules. Exit 0
 * when no finding is at or above --fail-on (default error), 1 when one is, 2 for usage or
 * unreadable input.
 */
#define _POSIX_C_SOURCE 200809L

#include "lintcmd.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dracel.h"
#include "files.h"
#include "out.h"
#include "place.h"
#ifdef DRACEL_CELC_KUBE
#include "kubecmd.h"
#endif

enum { F_TEXT, F_JSON, F_SARIF };

static void usage_lint(FILE *f)
{
    fprintf(f,
            "usage: %s lint [--format text|json|sarif] [--slices PATH] [--classes PATH]\n"
            "                [--fail-on error|warning|note] [--disable RULE[,RULE...]]...\n"
            "                [--field-validation strict|warn|ignore] PATH...\n"
            "       %s lint --list-rules\n"
            "\n"
            "Finds the selector bugs that block scheduling in DeviceClasses, ResourceClaims and\n"
            "ResourceClaimTemplates, and the mistakes of TierPolicies against them (YAML or JSON\n"
            "files; directories are read recursively for .yaml, .yml and .json files; '-' is\n"
            "standard input). Every finding has the file,\n"
            "the line and column inside the CEL text, a severity and a rule (docs/lint.md).\n"
            "\n"
            "  --format FMT      text (default), json or sarif (SARIF 2.1.0)\n"
            "  --slices PATH     ResourceSlices: the fleet the rules that need one check against\n"
            "  --classes PATH    DeviceClasses that exist (enables unknown-class)\n"
            "  --fail-on SEV     exit 1 when a finding is at or above SEV (default error)\n"
            "  --disable RULES   switch rules off (comma-separated ids; also per object with the\n"
            "                    annotation dracel.dev/lint-disable, per file with a comment)\n"
            "  --field-validation MODE  an unknown field is an error (strict, kubectl's\n"
            "                    default), a warning (warn) or nothing (ignore)\n"
            "  --list-rules      print the rules: id, severity, summary\n"
            "  --kubeconfig FILE the cluster's ResourceSlices and DeviceClasses as --slices and\n"
            "                    --classes (the client of dra-extender)\n"
            "  --in-cluster      the same with the pod's service account\n"
            "  --context NAME    a context of the kubeconfig (default: its current-context)\n"
            "  --kube-timeout DURATION  reading the cluster at most (default 30s)\n"
            "\n"
            "Exit status: 0 no finding at or above --fail-on, 1 one is, 2 usage or unreadable\n"
            "input.\n",
            celc_prog, celc_prog);
}

static const char *sev_name(dracel_severity s)
{
    return s == DRACEL_SEV_ERROR ? "error" : s == DRACEL_SEV_WARNING ? "warning" : "note";
}

/* ---- Paths */

typedef struct paths {
    char **v;
    size_t n, cap;
} paths;

static bool push(paths *p, const char *s)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 64;
        char **v = realloc(p->v, nc * sizeof *v);
        if (!v)
            return false;
        p->v = v;
        p->cap = nc;
    }
    char *c = strdup(s);
    if (!c)
        return false;
    p->v[p->n++] = c;
    return true;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool wanted(const char *n)
{
    size_t l = strlen(n);
    return (l > 5 && strcmp(n + l - 5, ".yaml") == 0) || (l > 4 && strcmp(n + l - 4, ".yml") == 0) ||
           (l > 5 && strcmp(n + l - 5, ".json") == 0);
}

/* The files of a directory, recursively, in name order (hidden entries skipped). -1 on an
 * error (printed), -2 out of memory. */
static int walk(const char *dir, paths *out, unsigned depth)
{
    if (depth > 64) {
        fprintf(stderr, "%s: %s: directories nested more than 64 deep\n", celc_prog, dir);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open directory %s: %s\n", celc_prog, dir, strerror(errno));
        return -1;
    }
    paths here = {0};
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) != NULL && rc == 0) {
        if (de->d_name[0] == '.')
            continue;
        size_t n = strlen(dir) + strlen(de->d_name) + 2;
        char *p = malloc(n);
        if (!p) {
            rc = -2;
            break;
        }
        snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
        if (!push(&here, p))
            rc = -2;
        free(p);
    }
    closedir(d);
    if (here.n)
        qsort(here.v, here.n, sizeof *here.v, cmp_names);
    for (size_t i = 0; i < here.n && rc == 0; i++) {
        struct stat st;
        if (stat(here.v[i], &st) != 0)
            continue; /* a dangling link */
        if (S_ISDIR(st.st_mode))
            rc = walk(here.v[i], out, depth + 1);
        else if (S_ISREG(st.st_mode) && wanted(here.v[i]) && !push(out, here.v[i]))
            rc = -2;
    }
    for (size_t i = 0; i < here.n; i++)
        free(here.v[i]);
    free(here.v);
    return rc;
}

/* ---- Output */

static void text_finding(FILE *f, const dracel_finding *x)
{
    fprintf(f, "%s:%u:%u: %s: %s [%s]\n", x->file, x->line, x->column, sev_name(x->severity),
            x->message, x->rule);
    if (x->source) {
        fprintf(f, " | %s\n | ", x->source);
        for (uint32_t i = 1; i < x->column; i++)
            fputc('.', f);
        fputs("^\n", f);
    }
    if (x->hint)
        fprintf(f, " hint: %s\n", x->hint);
}

static bool json_finding(cJSON *arr, const dracel_finding *x)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return false;
    cJSON_AddItemToArray(arr, o);
    return celc_json_str(o, "file", x->file) && celc_json_num(o, "line", x->line) &&
           celc_json_num(o, "column", x->column) &&
           celc_json_str(o, "severity", sev_name(x->severity)) &&
           celc_json_str(o, "rule", x->rule) && celc_json_str(o, "message", x->message) &&
           (x->hint ? celc_json_str(o, "hint", x->hint) : celc_json_null(o, "hint"));
}

/* A path as a URI reference: relative paths stay relative, absolute ones become file:// URIs;
 * what a URI path cannot hold is percent-encoded. malloc'ed. */
static char *uri_of(const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(n * 3 + 8);
    if (!u)
        return NULL;
    size_t k = 0;
    if (path[0] == '/') {
        memcpy(u, "file://", 7);
        k = 7;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("/-._~!$&'()*+,;=:@", c))
            u[k++] = (char)c;
        else
            k += (size_t)sprintf(u + k, "%%%02X", c);
    }
    u[k] = '\0';
    return u;
}

static cJSON *text_obj(const char *s)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !celc_json_str(o, "text", s)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static bool add(cJSON *parent, const char *name, cJSON *child)
{
    if (!child)
        return false;
    cJSON_AddItemToObject(parent, name, child);
    return true;
}

static cJSON *location(const char *file, uint32_t line, uint32_t col, const char *snippet)
{
    cJSON *loc = cJSON_CreateObject(), *pl = cJSON_CreateObject(), *al = cJSON_CreateObject(),
          *reg = cJSON_CreateObject();
    char *u = uri_of(file);
    bool ok = loc && pl && al && reg && u && celc_json_str(al, "uri", u) &&
              celc_json_num(reg, "startLine", line) && (col == 0 || celc_json_num(reg, "startColumn", col)) &&
              (!snippet || add(reg, "snippet", text_obj(snippet)));
    free(u);
    if (!ok) {
        cJSON_Delete(loc);
        cJSON_Delete(pl);
        cJSON_Delete(al);
        cJSON_Delete(reg);
        return NULL;
    }
    cJSON_AddItemToObject(pl, "artifactLocation", al);
    cJSON_AddItemToObject(pl, "region", reg);
    cJSON_AddItemToObject(loc, "physicalLocation", pl);
    return loc;
}

static const char *level(dracel_severity s)
{
    return sev_name(s); /* SARIF's levels: error, warning, note */
}

static cJSON *sarif(const dracel_lint *l)
{
    cJSON *root = cJSON_CreateObject(), *runs, *run, *tool, *driver, *rules, *results;
    if (!root)
        return NULL;
    bool ok = celc_json_str(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json") &&
              celc_json_str(root, "version", "2.1.0") &&
              (runs = cJSON_AddArrayToObject(root, "runs")) != NULL &&
              (run = cJSON_CreateObject()) != NULL;
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    cJSON_AddItemToArray(runs, run);
    ok = (tool = cJSON_AddObjectToObject(run, "tool")) != NULL &&
         (driver = cJSON_AddObjectToObject(tool, "driver")) != NULL &&
         celc_json_str(driver, "name", "dra-celc") &&
         celc_json_str(driver, "fullName", "dra-celc lint (dracel)") &&
         celc_json_str(driver, "version", dracel_version()) &&
         celc_json_str(driver, "semanticVersion", dracel_version()) &&
         (rules = cJSON_AddArrayToObject(driver, "rules")) != NULL;
    size_t nrules = dracel_lint_rules();
    for (size_t i = 0; ok && i < nrules; i++) {
        dracel_lint_rule r;
        cJSON *o = cJSON_CreateObject(), *cfg;
        ok = o && dracel_lint_rule_get(i, &r) == DRACEL_OK;
        if (o)
            cJSON_AddItemToArray(rules, o);
        ok = ok && celc_json_str(o, "id", r.id) && add(o, "shortDescription", text_obj(r.summary)) &&
             add(o, "fullDescription", text_obj(r.help)) && add(o, "help", text_obj(r.help)) &&
             (cfg = cJSON_AddObjectToObject(o, "defaultConfiguration")) != NULL &&
             celc_json_str(cfg, "level", level(r.severity));
    }
    ok = ok && celc_json_str(run, "columnKind", "unicodeCodePoints") &&
         (results = cJSON_AddArrayToObject(run, "results")) != NULL;
    size_t n = dracel_lint_count(l);
    for (size_t i = 0; ok && i < n; i++) {
        dracel_finding x;
        cJSON *o = cJSON_CreateObject(), *locs;
        ok = o && dracel_lint_finding(l, i, &x) == DRACEL_OK;
        if (o)
            cJSON_AddItemToArray(results, o);
        size_t idx = 0;
        for (size_t k = 0; k < nrules; k++) {
            dracel_lint_rule r;
            if (dracel_lint_rule_get(k, &r) == DRACEL_OK && strcmp(r.id, x.rule) == 0)
                idx = k;
        }
        char *msg = NULL;
        if (ok) {
            size_t ml = strlen(x.message) + (x.hint ? strlen(x.hint) + 16 : 0) + 1;
            msg = malloc(ml);
            if (msg)
                snprintf(msg, ml, "%s%s%s", x.message, x.hint ? "\nHint: " : "",
                         x.hint ? x.hint : "");
        }
        ok = ok && msg && celc_json_str(o, "ruleId", x.rule) &&
             celc_json_num(o, "ruleIndex", (double)idx) &&
             celc_json_str(o, "level", level(x.severity)) && add(o, "message", text_obj(msg)) &&
             (locs = cJSON_AddArrayToObject(o, "locations")) != NULL;
        free(msg);
        cJSON *loc = ok ? location(x.file, x.line, x.column, x.source) : NULL;
        ok = ok && loc;
        if (loc)
            cJSON_AddItemToArray(locs, loc);
        if (ok && x.related_file) {
            cJSON *rl = cJSON_AddArrayToObject(o, "relatedLocations");
            cJSON *r = rl ? location(x.related_file, x.related_line, x.related_column, NULL)
                          : NULL;
            ok = r != NULL;
            if (r) {
                cJSON_AddItemToArray(rl, r);
                ok = celc_json_num(r, "id", 0) &&
                     add(r, "message", text_obj(x.related_message ? x.related_message : ""));
            }
        }
    }
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

static int list_rules(void)
{
    celc_out out;
    celc_out_open(&out);
    if (!out.f)
        return celc_oom();
    for (size_t i = 0; i < dracel_lint_rules(); i++) {
        dracel_lint_rule r;
        if (dracel_lint_rule_get(i, &r) == DRACEL_OK)
            fprintf(out.f, "%-21s %-8s %s\n", r.id, sev_name(r.severity), r.summary);
    }
    return celc_out_close(&out, EXIT_OK);
}

/* ---- The command */

int celc_lint(int argc, char **argv)
{
    int format = F_TEXT;
    dracel_severity fail_on = DRACEL_SEV_ERROR;
    const char *slices = NULL, *classes = NULL;
    const char *kubeconfig = NULL, *context = NULL;
    bool in_cluster = false;
    long kube_timeout = 30000;
    dracel_field_validation fields = DRACEL_FIELDS_STRICT;
    char *disable = NULL;
    size_t dlen = 0;
    paths in = {0}, files = {0};
    int rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            rc = celc_help(usage_lint);
        } else if (strcmp(a, "--list-rules") == 0) {
            rc = list_rules();
        } else if (strcmp(a, "--in-cluster") == 0) {
            in_cluster = true;
        } else if (strcmp(a, "--kubeconfig") == 0 || strcmp(a, "--context") == 0 ||
                   strcmp(a, "--kube-timeout") == 0) {
            if (!v) {
                rc = usage_error(usage_lint, "%s needs an argument", a);
                break;
            }
            i++;
            if (a[2] == 'c')
                context = v;
            else if (a[6] == 'c')
                kubeconfig = v;
            else {
                char *end;
                double sec = strtod(v, &end);
                double scale = strcmp(end, "ms") == 0 ? 1 : strcmp(end, "s") == 0 ? 1000
                               : strcmp(end, "m") == 0 ? 60000 : 0;
                if (!(sec > 0) || !scale || sec * scale > 86400000)
                    rc = usage_error(usage_lint, "bad duration '%s'", v);
                else
                    kube_timeout = (long)(sec * scale + 0.5);
            }
        } else if (strcmp(a, "--format") == 0 || strcmp(a, "--slices") == 0 ||
                   strcmp(a, "--classes") == 0 || strcmp(a, "--fail-on") == 0 ||
                   strcmp(a, "--disable") == 0 || strcmp(a, "--field-validation") == 0) {
            if (!v) {
                rc = usage_error(usage_lint, "%s needs an argument", a);
                break;
            }
            i++;
            if (strcmp(a, "--format") == 0) {
                if (strcmp(v, "text") == 0)
                    format = F_TEXT;
                else if (strcmp(v, "json") == 0)
                    format = F_JSON;
                else if (strcmp(v, "sarif") == 0)
                    format = F_SARIF;
                else
                    rc = usage_error(usage_lint, "--format takes text, json or sarif, not '%s'",
                                     v);
            } else if (strcmp(a, "--fail-on") == 0) {
                if (strcmp(v, "error") == 0)
                    fail_on = DRACEL_SEV_ERROR;
                else if (strcmp(v, "warning") == 0)
                    fail_on = DRACEL_SEV_WARNING;
                else if (strcmp(v, "note") == 0)
                    fail_on = DRACEL_SEV_NOTE;
                else
                    rc = usage_error(usage_lint,
                                     "--fail-on takes error, warning or note, not '%s'", v);
            } else if (strcmp(a, "--field-validation") == 0) {
                if (strcmp(v, "strict") == 0)
                    fields = DRACEL_FIELDS_STRICT;
                else if (strcmp(v, "warn") == 0)
                    fields = DRACEL_FIELDS_WARN;
                else if (strcmp(v, "ignore") == 0)
                    fields = DRACEL_FIELDS_IGNORE;
                else
                    rc = usage_error(usage_lint,
                                     "--field-validation takes strict, warn or ignore, not '%s'",
                                     v);
            } else if (strcmp(a, "--slices") == 0) {
                slices = v;
            } else if (strcmp(a, "--classes") == 0) {
                classes = v;
            } else {
                size_t n = strlen(v);
                char *d = realloc(disable, dlen + n + 2);
                if (!d) {
                    rc = celc_oom();
                    break;
                }
                disable = d;
                if (dlen)
                    disable[dlen++] = ',';
                memcpy(disable + dlen, v, n + 1);
                dlen += n;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = usage_error(usage_lint, "lint does not take %s", a);
        } else if (!push(&in, a)) {
            rc = celc_oom();
        }
    }
    if (rc < 0 && in.n == 0)
        rc = usage_error(usage_lint, "%s", "lint needs a file or a directory");
    bool kube = kubeconfig || in_cluster;
    if (rc < 0 && kube && (slices || classes))
        rc = usage_error(usage_lint, "%s", "--kubeconfig and --in-cluster read --slices and "
                         "--classes from the cluster: not both");
    if (rc < 0 && kubeconfig && in_cluster)
        rc = usage_error(usage_lint, "%s", "--kubeconfig and --in-cluster exclude each other");
    if (rc < 0 && context && !kubeconfig)
        rc = usage_error(usage_lint, "%s", "--context needs --kubeconfig");
#ifdef DRACEL_CELC_KUBE
    celc_kube_files kf;
    memset(&kf, 0, sizeof kf);
    if (rc < 0 && kube) {
        celc_kube ck = {kubeconfig, context, (uint32_t)kube_timeout};
        rc = celc_kube_fleet(&ck, &kf);
        slices = kf.slices;
        classes = kf.classes;
    }
#else
    if (rc < 0 && kube)
        rc = usage_error(usage_lint, "%s", "this dra-celc was built without the Kubernetes "
                         "client (configure found no libcurl)");
#endif
    /* the files, in the order given, directories expanded */
    for (size_t i = 0; rc < 0 && i < in.n; i++) {
        struct stat st;
        if (strcmp(in.v[i], "-") != 0 && stat(in.v[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            int w = walk(in.v[i], &files, 0);
            if (w == -2)
                rc = celc_oom();
            else if (w < 0)
                rc = EXIT_USAGE;
        } else if (!push(&files, in.v[i])) {
            rc = celc_oom();
        }
    }
    dracel_table *t = NULL;
    dracel_objects *cls = NULL;
    dracel_lint *l = NULL;
    char err[1024];
    if (rc < 0 && slices) {
        dracel_status st = dracel_table_load(NULL, slices, &t, err, sizeof err);
        if (st == DRACEL_ENOMEM)
            rc = celc_oom();
        else if (st != DRACEL_OK) {
            fprintf(stderr, "%s: --slices: %s\n", celc_prog, err);
            rc = EXIT_USAGE;
        } else {
            for (size_t i = 0; i < dracel_table_notes(t); i++)
                fprintf(stderr, "%s: note: %s\n", celc_prog, dracel_table_note(t, i));
        }
    }
    if (rc < 0 && classes) {
        dracel_status st = dracel_objects_new(NULL, &cls);
        if (st == DRACEL_OK)
            st = dracel_objects_load(cls, classes, DRACEL_OBJ_CLASS, err, sizeof err);
        if (st == DRACEL_ENOMEM) {
            rc = celc_oom();
        } else if (st != DRACEL_OK) {
            fprintf(stderr, "%s: --classes: %s\n", celc_prog, err);
            rc = EXIT_USAGE;
        } else {
            for (size_t i = 0; i < dracel_objects_notes(cls); i++)
                fprintf(stderr, "%s: note: %s\n", celc_prog, dracel_objects_note(cls, i));
        }
    }
    if (rc < 0) {
        dracel_lint_opts o;
        dracel_lint_opts_init(&o);
        o.slices = t;
        o.classes = cls;
        o.disable = disable;
        o.fields = fields;
        dracel_status st = dracel_lint_new(NULL, &o, &l, err, sizeof err);
        if (st == DRACEL_EINVAL)
            rc = usage_error(usage_lint, "--disable: %s", err);
        else if (st != DRACEL_OK)
            rc = celc_oom();
    }
    for (size_t i = 0; rc < 0 && i < files.n; i++) {
        size_t len;
        int oom;
        char *buf = celc_read_file(files.v[i], CELC_MAX_FILE_BYTES, &len, &oom);
        if (!buf) {
            rc = EXIT_USAGE;
            break;
        }
        const char *name = strcmp(files.v[i], "-") == 0 ? "<stdin>" : files.v[i];
        if (dracel_lint_add(l, name, buf, len) != DRACEL_OK)
            rc = celc_oom();
        free(buf);
    }
    if (rc < 0 && dracel_lint_run(l) != DRACEL_OK)
        rc = celc_oom();
    if (rc < 0) {
        for (size_t i = 0; i < dracel_lint_notes(l); i++)
            fprintf(stderr, "%s: note: %s\n", celc_prog, dracel_lint_note(l, i));
        size_t n = dracel_lint_count(l), count[3] = {0, 0, 0};
        bool failed = false;
        celc_out out;
        celc_out_open(&out);
        bool ok = out.f != NULL;
        cJSON *root = NULL, *arr = NULL;
        if (ok && format == F_JSON)
            ok = (root = cJSON_CreateObject()) != NULL &&
                 (arr = cJSON_AddArrayToObject(root, "findings")) != NULL;
        for (size_t i = 0; ok && i < n; i++) {
            dracel_finding x;
            if (dracel_lint_finding(l, i, &x) != DRACEL_OK)
                continue;
            count[x.severity]++;
            if (x.severity <= fail_on)
                failed = true;
            if (format == F_TEXT)
                text_finding(out.f, &x);
            else if (format == F_JSON)
                ok = json_finding(arr, &x);
        }
        if (ok && format == F_JSON)
            ok = celc_json_num(root, "files", (double)dracel_lint_files(l)) &&
                 celc_json_num(root, "objects", (double)dracel_lint_objects(l)) &&
                 celc_json_print(out.f, root);
        if (ok && format == F_SARIF) {
            root = sarif(l);
            ok = root && celc_json_print(out.f, root);
        }
        cJSON_Delete(root);
        if (!ok) {
            celc_out_discard(&out);
            rc = celc_oom();
        } else {
            fprintf(stderr, "%s: lint: %zu error%s, %zu warning%s, %zu note%s in %zu file%s "
                    "(%zu object%s)\n", celc_prog, count[0], count[0] == 1 ? "" : "s", count[1],
                    count[1] == 1 ? "" : "s", count[2], count[2] == 1 ? "" : "s",
                    dracel_lint_files(l), dracel_lint_files(l) == 1 ? "" : "s",
                    dracel_lint_objects(l), dracel_lint_objects(l) == 1 ? "" : "s");
            rc = celc_out_close(&out, failed ? EXIT_REJECTED : EXIT_OK);
        }
    }
    dracel_lint_free(l);
    dracel_objects_free(cls);
    dracel_table_free(t);
#ifdef DRACEL_CELC_KUBE
    celc_kube_remove(&kf);
#endif
    free(disable);
    for (size_t i = 0; i < in.n; i++)
        free(in.v[i]);
    for (size_t i = 0; i < files.n; i++)
        free(files.v[i]);
    free(in.v);
    free(files.v);
    return rc;
}
