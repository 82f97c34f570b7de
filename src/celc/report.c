/*
 * report.c: the renderings of a replay's report (report.h). Text and HTML are printed with
 * fixed precision; JSON goes through cJSON with every fraction rounded to 6 decimal places.
 * The HTML page holds everything it shows (styles, inline SVG): no script, no network; it is
 * also well-formed XML (polyglot markup: closed tags, numeric character references), so that
 * tests can check it with an XML parser.
 */
#define _POSIX_C_SOURCE 200809L

#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

/* Set when a piece of the output was lost: printf can fail on its own allocations (a number's
 * digits) without setting the stream's error, and esc can fail to make its copy. */
static bool failed;

__attribute__((format(printf, 2, 3))) static void pf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(f, fmt, ap) < 0)
        failed = true;
    va_end(ap);
}

static double rate(size_t a, size_t b)
{
    return b ? (double)a / (double)b : 0;
}

/* The share of tier k tenant t held on average over the replay. */
static double share(const report *r, const rep_policy *p, const rep_tenant *t, size_t k)
{
    double d = (double)r->tiers[k].devices * p->end;
    return d > 0 ? t->held[k] / d : 0;
}

static const rep_tenant *find_tenant(const rep_policy *p, const char *name)
{
    for (size_t i = 0; i < p->ntenants; i++)
        if (strcmp(p->tenants[i].name, name) == 0)
            return &p->tenants[i];
    return NULL;
}

void report_free(report *r)
{
    for (size_t k = 0; k < r->ntiers; k++)
        free(r->tiers[k].name);
    free(r->tiers);
    /* both entries: a simulation that failed half-way leaves its tenants past npol */
    for (size_t i = 0; i < 2; i++) {
        rep_policy *p = &r->pol[i];
        for (size_t t = 0; p->tenants && t < p->ntenants; t++) {
            free(p->tenants[t].waits);
            free(p->tenants[t].fallback);
            free(p->tenants[t].held);
            free(p->tenants[t].series);
            free(p->tenants[t].cap);
        }
        free(p->reserve);
        free(p->tenants);
        for (size_t d = 0; p->dflt && d < p->ndflt; d++) {
            free(p->dflt[d].key);
            free(p->dflt[d].value);
        }
        free(p->dflt);
        free(p->records);
    }
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------------------------------------
 * Text
 */

/* How many reasons of the default tenant's pods text and HTML list (JSON lists them all). */
#define DEFAULTS_SHOWN 20

/* The reasons text and HTML show; the pods of those they leave out in *more. */
static size_t defaults_shown(const rep_policy *p, size_t *more)
{
    size_t n = p->ndflt < DEFAULTS_SHOWN ? p->ndflt : DEFAULTS_SHOWN;
    *more = 0;
    for (size_t i = n; i < p->ndflt; i++)
        *more += p->dflt[i].pods;
    return n;
}

static void text_defaults(FILE *f, const rep_policy *p)
{
    if (!p->ndflt)
        return;
    pf(f, "  pods of the default tenant %s by default (no tenant has them):\n", p->dflt_name);
    size_t more, n = defaults_shown(p, &more);
    for (size_t i = 0; i < n; i++) {
        const rep_default *d = &p->dflt[i];
        if (d->key)
            pf(f, "    label %s=%s: %zu pod%s (a tenant's podLabel key, a value no tenant has)\n",
               d->key, d->value, d->pods, d->pods == 1 ? "" : "s");
        else
            pf(f, "    namespace %s: %zu pod%s (no tenant names it)\n", d->value, d->pods,
               d->pods == 1 ? "" : "s");
    }
    if (more)
        pf(f, "    and %zu more reasons: %zu pods (--format json lists them)\n",
           p->ndflt - DEFAULTS_SHOWN, more);
}

static void text_policy(FILE *f, const report *r, const rep_policy *p, char letter)
{
    pf(f, "\npolicy %c: %s\n", letter, p->file);
    pf(f, "  version %s, mode %s%s%s\n", p->label, p->mode, p->name ? ", name " : "",
            p->name ? p->name : "");
    bool own = false;
    for (size_t i = 0; i < p->ntenants; i++)
        if (strcmp(p->tenants[i].mode, p->mode) != 0) {
            pf(f, "%s %s %s", own ? "," : "  tenants in another mode:", p->tenants[i].name,
                    p->tenants[i].mode);
            own = true;
        }
    if (own)
        fputc('\n', f);
    pf(f, "  %zu pods: %zu placed, %zu unschedulable, %zu over a cap, %zu borrowing; "
               "Jain's index %.3f over the premium tiers\n",
            p->pods, p->placed, p->unschedulable, p->over_cap, p->borrowed, p->jain);
    pf(f, "  %-16s %6s %6s %6s %9s %9s %9s %7s %7s %7s\n", "tenant", "pods", "placed",
            "first", "wait-mean", "wait-p95", "wait-max", "unsched", "overcap", "borrow");
    for (size_t i = 0; i < p->ntenants; i++) {
        const rep_tenant *t = &p->tenants[i];
        pf(f, "  %-16s %6zu %6zu %6.3f %9.1f %9.1f %9.1f %7zu %7zu %7zu\n", t->name,
                t->pods, t->placed, rate(t->first, t->placed), t->wait_mean, t->wait_p95,
                t->wait_max, t->unschedulable, t->over_cap, t->borrowed);
    }
    text_defaults(f, p);
    bool any = false;
    for (size_t k = 0; k < r->ntiers; k++)
        any = any || r->tiers[k].fallback;
    if (any) {
        pf(f, "  fallback rate (placed pods that got the tier below their first choice):\n");
        for (size_t i = 0; i < p->ntenants; i++) {
            const rep_tenant *t = &p->tenants[i];
            pf(f, "    %-16s", t->name);
            for (size_t k = 0; k < r->ntiers; k++)
                if (r->tiers[k].fallback)
                    pf(f, " %s %.3f", r->tiers[k].name, rate(t->fallback[k], t->placed));
            fputc('\n', f);
        }
    }
    pf(f, "  tier share (devices held on average over the replay / the tier's devices):\n");
    for (size_t i = 0; i < p->ntenants; i++) {
        const rep_tenant *t = &p->tenants[i];
        pf(f, "    %-16s", t->name);
        for (size_t k = 0; k < r->ntiers; k++)
            pf(f, " %s %.3f", r->tiers[k].name, share(r, p, t, k));
        fputc('\n', f);
    }
}

static void text_compare(FILE *f, const report *r)
{
    const rep_policy *a = &r->pol[0], *b = &r->pol[1];
    pf(f, "\nA against B:\n");
    pf(f, "  %-16s %15s %19s %15s %15s\n", "tenant", "first A -> B", "wait-mean A -> B",
            "unsched A -> B", "overcap A -> B");
    /* the tenants of A, then those only B has */
    for (int side = 0; side < 2; side++) {
        const rep_policy *p = side ? b : a;
        for (size_t i = 0; i < p->ntenants; i++) {
            const char *name = p->tenants[i].name;
            if (side && find_tenant(a, name))
                continue;
            const rep_tenant *x = find_tenant(a, name), *y = find_tenant(b, name);
            char c1[32] = "-", c2[32] = "-", c3[32] = "-", c4[32] = "-";
            char d1[32] = "-", d2[32] = "-", d3[32] = "-", d4[32] = "-";
            if (x) {
                snprintf(c1, sizeof c1, "%.3f", rate(x->first, x->placed));
                snprintf(c2, sizeof c2, "%.1f", x->wait_mean);
                snprintf(c3, sizeof c3, "%zu", x->unschedulable);
                snprintf(c4, sizeof c4, "%zu", x->over_cap);
            }
            if (y) {
                snprintf(d1, sizeof d1, "%.3f", rate(y->first, y->placed));
                snprintf(d2, sizeof d2, "%.1f", y->wait_mean);
                snprintf(d3, sizeof d3, "%zu", y->unschedulable);
                snprintf(d4, sizeof d4, "%zu", y->over_cap);
            }
            char e1[48], e2[48], e3[48], e4[48];
            snprintf(e1, sizeof e1, "%s -> %s", c1, d1);
            snprintf(e2, sizeof e2, "%s -> %s", c2, d2);
            snprintf(e3, sizeof e3, "%s -> %s", c3, d3);
            snprintf(e4, sizeof e4, "%s -> %s", c4, d4);
            pf(f, "  %-16s %15s %19s %15s %15s\n", name, e1, e2, e3, e4);
        }
    }
    pf(f, "  Jain's index: %.3f -> %.3f\n", a->jain, b->jain);
}

bool report_text(FILE *f, const report *r)
{
    failed = false;
    pf(f, "replay of %s: %zu pods, %zu claims, %zu nodes, %zu devices\n", r->trace, r->pods,
            r->claims, r->nodes, r->devices);
    pf(f, "tiers:");
    for (size_t k = 0; k < r->ntiers; k++)
        pf(f, "%s %s (%u devices%s)", k ? "," : "", r->tiers[k].name, r->tiers[k].devices,
                r->tiers[k].premium ? ", premium" : "");
    fputc('\n', f);
    for (size_t i = 0; i < r->npol; i++)
        text_policy(f, r, &r->pol[i], (char)('A' + i));
    if (r->npol == 2)
        text_compare(f, r);
    return !failed && !ferror(f);
}

/* ---------------------------------------------------------------------------------------------
 * JSON
 */

static double r6(double x)
{
    return round(x * 1e6) / 1e6;
}

static cJSON *json_tenant(const report *r, const rep_policy *p, const rep_tenant *t)
{
    cJSON *o = cJSON_CreateObject(), *fb = NULL, *w = NULL, *sh = NULL;
    bool ok = o && celc_json_str(o, "tenant", t->name) && celc_json_str(o, "mode", t->mode) &&
              celc_json_num(o, "weight", t->weight) &&
              celc_json_num(o, "pods", (double)t->pods) &&
              celc_json_num(o, "placed", (double)t->placed) &&
              celc_json_num(o, "firstChoiceRate", r6(rate(t->first, t->placed))) &&
              (fb = cJSON_AddObjectToObject(o, "fallbackRate")) != NULL;
    for (size_t k = 0; ok && k < r->ntiers; k++)
        if (r->tiers[k].fallback)
            ok = celc_json_num(fb, r->tiers[k].name, r6(rate(t->fallback[k], t->placed)));
    ok = ok && (w = cJSON_AddObjectToObject(o, "waitSeconds")) != NULL &&
         celc_json_num(w, "mean", r6(t->wait_mean)) && celc_json_num(w, "p95", r6(t->wait_p95)) &&
         celc_json_num(w, "max", r6(t->wait_max)) &&
         celc_json_num(o, "unschedulable", (double)t->unschedulable) &&
         celc_json_num(o, "overCap", (double)t->over_cap) &&
         celc_json_num(o, "borrowed", (double)t->borrowed) &&
         (sh = cJSON_AddObjectToObject(o, "tierShare")) != NULL;
    for (size_t k = 0; ok && k < r->ntiers; k++)
        ok = celc_json_num(sh, r->tiers[k].name, r6(share(r, p, t, k)));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

bool report_jsonl(FILE *f, const report *r)
{
    for (size_t i = 0; i < r->npol; i++)
        if (r->pol[i].records)
            fwrite(r->pol[i].records, 1, r->pol[i].nrecords, f);
    return !ferror(f);
}

bool report_json(FILE *f, const report *r)
{
    cJSON *root = cJSON_CreateObject(), *tiers = NULL, *pols = NULL;
    bool ok = root && celc_json_str(root, "trace", r->trace) &&
              celc_json_num(root, "pods", (double)r->pods) &&
              celc_json_num(root, "claims", (double)r->claims) &&
              celc_json_num(root, "nodes", (double)r->nodes) &&
              celc_json_num(root, "devices", (double)r->devices) &&
              (tiers = cJSON_AddArrayToObject(root, "tiers")) != NULL;
    for (size_t k = 0; ok && k < r->ntiers; k++) {
        cJSON *t = cJSON_CreateObject();
        ok = t && cJSON_AddItemToArray(tiers, t) && celc_json_str(t, "name", r->tiers[k].name) &&
             celc_json_num(t, "devices", r->tiers[k].devices) &&
             cJSON_AddBoolToObject(t, "premium", r->tiers[k].premium) != NULL;
        if (!t)
            ok = false;
    }
    ok = ok && (pols = cJSON_AddArrayToObject(root, "policies")) != NULL;
    for (size_t i = 0; ok && i < r->npol; i++) {
        const rep_policy *p = &r->pol[i];
        cJSON *o = cJSON_CreateObject(), *ts = NULL;
        ok = o && cJSON_AddItemToArray(pols, o) && celc_json_str(o, "file", p->file) &&
             celc_json_str(o, "version", p->version) && celc_json_str(o, "hash", p->hash) &&
             celc_json_str(o, "label", p->label) && celc_json_str(o, "mode", p->mode) &&
             (p->name ? celc_json_str(o, "name", p->name) : celc_json_null(o, "name")) &&
             celc_json_num(o, "pods", (double)p->pods) &&
             celc_json_num(o, "placed", (double)p->placed) &&
             celc_json_num(o, "unschedulable", (double)p->unschedulable) &&
             celc_json_num(o, "overCap", (double)p->over_cap) &&
             celc_json_num(o, "borrowed", (double)p->borrowed) &&
             celc_json_num(o, "endSeconds", r6(p->end)) &&
             (ts = cJSON_AddArrayToObject(o, "tenants")) != NULL;
        for (size_t t = 0; ok && t < p->ntenants; t++) {
            cJSON *x = json_tenant(r, p, &p->tenants[t]);
            ok = x && cJSON_AddItemToArray(ts, x);
        }
        cJSON *ds = NULL;
        ok = ok && celc_json_str(o, "defaultTenant", p->dflt_name) &&
             (ds = cJSON_AddArrayToObject(o, "defaulted")) != NULL;
        for (size_t d = 0; ok && d < p->ndflt; d++) {
            const rep_default *x = &p->dflt[d];
            cJSON *e = cJSON_CreateObject();
            ok = e && cJSON_AddItemToArray(ds, e) &&
                 celc_json_str(e, "reason", x->key ? "label" : "namespace") &&
                 (x->key ? celc_json_str(e, "label", x->key) && celc_json_str(e, "value", x->value)
                         : celc_json_str(e, "namespace", x->value)) &&
                 celc_json_num(e, "pods", (double)x->pods);
            if (!e)
                ok = false;
        }
        ok = ok && celc_json_num(o, "jain", r6(p->jain));
        cJSON *rs = NULL;
        if (ok && p->records)
            ok = (rs = cJSON_AddArrayToObject(o, "records")) != NULL;
        for (const char *l = p->records; ok && rs && l && *l;) {
            const char *e = strchr(l, '\n');
            size_t n = e ? (size_t)(e - l) : strlen(l);
            char *line = strndup(l, n);
            cJSON *x = line ? cJSON_CreateRaw(line) : NULL;
            free(line);
            ok = x && cJSON_AddItemToArray(rs, x);
            l += n + (e != NULL);
        }
    }
    ok = ok && celc_json_print(f, root);
    cJSON_Delete(root);
    return ok && !ferror(f);
}

/* ---------------------------------------------------------------------------------------------
 * HTML
 */


static void esc(FILE *f, const char *s)
{
    char *u = celc_utf8(s);
    if (!u)
        failed = true;
    for (const char *c = u ? u : ""; *c; c++) {
        switch (*c) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*c, f);
        }
    }
    free(u);
}

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NPAL (sizeof palette / sizeof *palette)

/* A nice upper bound for an axis. */
static double nice_max(double v)
{
    if (v <= 0)
        return 1;
    double e = pow(10, floor(log10(v)));
    for (int i = 0; i < 4; i++) {
        static const double steps[] = {1, 2, 5, 10};
        if (v <= steps[i] * e)
            return steps[i] * e;
    }
    return 10 * e;
}

/* Devices of each tier a tenant held over time: one line a tier. */
/* One tenant's devices held of one tier over time, with its cap (dashed) and the most the
 * tier lends while keeping its idle reserve free (dotted), when the policy has them. */
static void svg_tier(FILE *f, const report *r, const rep_policy *p, const rep_tenant *t,
                     size_t k)
{
    const double W = 300, H = 110, L = 40, B = 24, T = 8;
    const double *ser = t->series + k * REPORT_BUCKETS;
    double mx = 0;
    for (size_t b = 0; b < REPORT_BUCKETS; b++)
        if (ser[b] > mx)
            mx = ser[b];
    bool has_cap = t->cap && t->cap[k] != DRACEL_TIER_NO_CAP;
    uint64_t dev = r->tiers[k].devices, res = p->reserve ? p->reserve[k] : 0;
    double lend = res > 0 && res < dev ? (double)(dev - res) : -1;
    if (has_cap && (double)t->cap[k] > mx)
        mx = (double)t->cap[k];
    if (lend > mx)
        mx = lend;
    mx = nice_max(mx);
    pf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "role=\"img\" class=\"chart\" data-tenant=\"",
            W + L + 70, H + B + T);
    esc(f, t->name);
    pf(f, "\" data-tier=\"");
    esc(f, r->tiers[k].name);
    pf(f, "\"><title>");
    esc(f, t->name);
    pf(f, ": ");
    esc(f, r->tiers[k].name);
    pf(f, " devices held over time</title>\n");
    pf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" "
               "stroke=\"#bbbbbb\"/>\n",
            L, T, W, H);
    for (int g = 0; g <= 2; g++) {
        double y = T + H - H * g / 2;
        pf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"ax\" text-anchor=\"end\">%g</text>\n",
                L - 4, y + 4, mx * g / 2);
    }
    pf(f, "<text x=\"%.0f\" y=\"%.0f\" class=\"ax\">0 s</text>"
               "<text x=\"%.0f\" y=\"%.0f\" class=\"ax\" text-anchor=\"end\">%.0f s</text>\n",
            L, T + H + 16, L + W, T + H + 16, p->end);
    if (has_cap) {
        double y = T + H - H * (double)t->cap[k] / mx;
        pf(f, "<line class=\"cap\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c0392b\" "
                   "stroke-dasharray=\"5,3\"/><text x=\"%.0f\" y=\"%.1f\" class=\"ax\">cap %llu</text>\n",
                L, L + W, y, y, L + W + 4, y + 4, (unsigned long long)t->cap[k]);
    }
    if (lend >= 0) {
        double y = T + H - H * lend / mx;
        pf(f, "<line class=\"reserve\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#777777\" "
                   "stroke-dasharray=\"1,3\"/><text x=\"%.0f\" y=\"%.1f\" class=\"ax\">reserve %llu</text>\n",
                L, L + W, y, y, L + W + 4, y + (has_cap ? 14 : 4), (unsigned long long)res);
    }
    pf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
            palette[k % NPAL]);
    for (size_t b = 0; b < REPORT_BUCKETS; b++) {
        double x = L + W * ((double)b + 0.5) / REPORT_BUCKETS;
        double y = T + H - H * ser[b] / mx;
        pf(f, "%s%.1f,%.1f", b ? " " : "", x, y);
    }
    pf(f, "\"/>\n</svg>\n");
}

static const double wait_edges[] = {0, 1, 10, 60, 300, 1800, 3600};
#define NEDGES (sizeof wait_edges / sizeof *wait_edges)

/* How the tenant's waits fall in buckets: 0, up to 1 s, up to 10 s, ... over an hour. */
static void svg_waits(FILE *f, const rep_tenant *t)
{
    static const char *const labels[] = {"0",           "&#8804;1s",  "&#8804;10s",
                                         "&#8804;1m",   "&#8804;5m",  "&#8804;30m",
                                         "&#8804;1h",   "&gt;1h"};
    size_t cnt[NEDGES + 1] = {0};
    for (size_t i = 0; i < t->nwaits; i++) {
        size_t b = 0;
        while (b < NEDGES && t->waits[i] > wait_edges[b])
            b++;
        cnt[b]++;
    }
    size_t mx = 1;
    for (size_t b = 0; b <= NEDGES; b++)
        if (cnt[b] > mx)
            mx = cnt[b];
    const double W = 360, H = 90, T = 14, bw = W / (NEDGES + 1);
    pf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "role=\"img\"><title>",
            W + 10, H + T + 20);
    esc(f, t->name);
    pf(f, ": waits of placed pods</title>\n");
    for (size_t b = 0; b <= NEDGES; b++) {
        double h = H * (double)cnt[b] / (double)mx, x = 5 + bw * (double)b;
        pf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\" text-anchor=\"middle\">%zu</text>"
                   "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\" text-anchor=\"middle\">%s</text>\n",
                x + 2, T + H - h, bw - 4, h, palette[0], x + bw / 2, T + H - h - 3, cnt[b],
                x + bw / 2, T + H + 14, labels[b]);
    }
    pf(f, "</svg>\n");
}

/* One value per tenant for A and B: grouped horizontal bars. */
static void svg_compare(FILE *f, const report *r, const char *title, int what)
{
    const rep_policy *a = &r->pol[0], *b = &r->pol[1];
    size_t n = 0;
    const char *names[2048];
    for (int side = 0; side < 2; side++) {
        const rep_policy *p = side ? b : a;
        for (size_t i = 0; i < p->ntenants && n < 2048; i++)
            if (!side || !find_tenant(a, p->tenants[i].name))
                names[n++] = p->tenants[i].name;
    }
    double vals[2][2048], mx = 0;
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < 2; s++) {
            const rep_tenant *t = find_tenant(&r->pol[s], names[i]);
            double v = 0;
            if (t)
                v = what == 0 ? rate(t->first, t->placed)
                    : what == 1 ? t->wait_mean
                                : (double)t->unschedulable;
            vals[s][i] = v;
            if (v > mx)
                mx = v;
        }
    mx = what == 0 ? 1 : nice_max(mx);
    const double L = 130, W = 360, row = 34;
    pf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "role=\"img\"><title>",
            L + W + 70, row * (double)n + 24);
    esc(f, title);
    pf(f, "</title>\n");
    for (size_t i = 0; i < n; i++) {
        double y = 4 + row * (double)i;
        pf(f, "<text x=\"%.0f\" y=\"%.1f\" class=\"lb\" text-anchor=\"end\">", L - 6,
                y + 17);
        esc(f, names[i]);
        pf(f, "</text>\n");
        for (int s = 0; s < 2; s++) {
            double w = W * vals[s][i] / mx;
            pf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"13\" fill=\"%s\"/>"
                       "<text x=\"%.1f\" y=\"%.1f\" class=\"ax\">%s %.*f</text>\n",
                    L, y + 14 * s, w, palette[s], L + w + 4, y + 14 * s + 11, s ? "B" : "A",
                    what == 1 ? 1 : what == 0 ? 3 : 0, vals[s][i]);
        }
    }
    pf(f, "</svg>\n");
}

/* A against B side by side: per tenant, each measure under A, under B and the change. */
static void compare_table(FILE *f, const report *r)
{
    const rep_policy *a = &r->pol[0], *b = &r->pol[1];
    static const char *const what[] = {"first choice", "mean wait (s)", "unschedulable"};
    pf(f, "<table class=\"compare\"><tr><th rowspan=\"2\">tenant</th>");
    for (int w = 0; w < 3; w++)
        pf(f, "<th colspan=\"3\">%s</th>", what[w]);
    pf(f, "</tr>\n<tr>");
    for (int w = 0; w < 3; w++)
        pf(f, "<th>A</th><th>B</th><th>&#916;</th>");
    pf(f, "</tr>\n");
    for (int side = 0; side < 2; side++) {
        const rep_policy *p = side ? b : a;
        for (size_t i = 0; i < p->ntenants; i++) {
            const char *name = p->tenants[i].name;
            if (side && find_tenant(a, name))
                continue;
            const rep_tenant *t[2] = {find_tenant(a, name), find_tenant(b, name)};
            pf(f, "<tr><td>");
            esc(f, name);
            pf(f, "</td>");
            for (int w = 0; w < 3; w++) {
                double v[2];
                for (int s = 0; s < 2; s++) {
                    v[s] = !t[s] ? 0
                           : w == 0 ? rate(t[s]->first, t[s]->placed)
                           : w == 1 ? t[s]->wait_mean
                                    : (double)t[s]->unschedulable;
                    if (t[s])
                        pf(f, w == 2 ? "<td>%.0f</td>" : w == 1 ? "<td>%.1f</td>" : "<td>%.3f</td>", v[s]);
                    else
                        pf(f, "<td>&#8212;</td>");
                }
                if (t[0] && t[1])
                    pf(f, w == 2 ? "<td>%+.0f</td>" : w == 1 ? "<td>%+.1f</td>" : "<td>%+.3f</td>",
                       v[1] - v[0]);
                else
                    pf(f, "<td>&#8212;</td>");
            }
            pf(f, "</tr>\n");
        }
    }
    pf(f, "<tr><td>Jain's index (premium tiers)</td><td colspan=\"9\">A %.3f &#183; B %.3f "
               "&#183; &#916; %+.3f</td></tr>\n</table>\n",
            a->jain, b->jain, b->jain - a->jain);
}

static void html_policy(FILE *f, const report *r, const rep_policy *p, char letter)
{
    pf(f, "<h2>Policy %c: ", letter);
    esc(f, p->label);
    pf(f, "</h2>\n<p class=\"meta\">");
    esc(f, p->file);
    pf(f, " &#183; mode <b>%s</b>", p->mode);
    if (p->name) {
        pf(f, " &#183; ");
        esc(f, p->name);
    }
    pf(f, " &#183; %zu pods, %zu placed, %zu unschedulable, %zu over a cap, %zu borrowing "
               "&#183; Jain's index over the premium tiers <b>%.3f</b></p>\n",
            p->pods, p->placed, p->unschedulable, p->over_cap, p->borrowed, p->jain);
    pf(f, "<table><tr><th>tenant</th><th>mode</th><th>weight</th><th>pods</th><th>placed</th>"
               "<th>first choice</th>");
    for (size_t k = 0; k < r->ntiers; k++)
        if (r->tiers[k].fallback) {
            pf(f, "<th>fallback ");
            esc(f, r->tiers[k].name);
            pf(f, "</th>");
        }
    pf(f, "<th>wait mean</th><th>p95</th><th>max</th><th>unschedulable</th>"
               "<th>over cap</th><th>borrowed</th>");
    for (size_t k = 0; k < r->ntiers; k++) {
        pf(f, "<th>share ");
        esc(f, r->tiers[k].name);
        pf(f, "</th>");
    }
    pf(f, "</tr>\n");
    for (size_t i = 0; i < p->ntenants; i++) {
        const rep_tenant *t = &p->tenants[i];
        pf(f, "<tr><td>");
        esc(f, t->name);
        pf(f, "</td><td>%s</td><td>%u</td><td>%zu</td><td>%zu</td><td>%.3f</td>", t->mode,
                t->weight, t->pods, t->placed, rate(t->first, t->placed));
        for (size_t k = 0; k < r->ntiers; k++)
            if (r->tiers[k].fallback)
                pf(f, "<td>%.3f</td>", rate(t->fallback[k], t->placed));
        pf(f, "<td>%.1f s</td><td>%.1f s</td><td>%.1f s</td><td>%zu</td><td>%zu</td>"
                   "<td>%zu</td>",
                t->wait_mean, t->wait_p95, t->wait_max, t->unschedulable, t->over_cap,
                t->borrowed);
        for (size_t k = 0; k < r->ntiers; k++)
            pf(f, "<td>%.3f</td>", share(r, p, t, k));
        pf(f, "</tr>\n");
    }
    pf(f, "</table>\n");
    if (p->ndflt) {
        pf(f, "<p class=\"defaults\">Pods of the default tenant ");
        esc(f, p->dflt_name);
        pf(f, " by default (no tenant has them):");
        size_t more, n = defaults_shown(p, &more);
        for (size_t i = 0; i < n; i++) {
            const rep_default *d = &p->dflt[i];
            pf(f, "%s %s <code>", i ? "," : "", d->key ? "label" : "namespace");
            if (d->key) {
                esc(f, d->key);
                pf(f, "=");
            }
            esc(f, d->value);
            pf(f, "</code> %zu pod%s", d->pods, d->pods == 1 ? "" : "s");
        }
        if (more)
            pf(f, ", and %zu more reasons: %zu pods", p->ndflt - DEFAULTS_SHOWN, more);
        pf(f, ".</p>\n");
    }
    pf(f, "<h3>Devices held over time, by tenant and tier</h3>\n<p class=\"legend\">"
               "dashed: the tenant's cap; dotted: the most the tier lends while its idle reserve "
               "stays free</p>\n");
    for (size_t i = 0; i < p->ntenants; i++) {
        pf(f, "<div class=\"grid\">\n");
        for (size_t k = 0; k < r->ntiers; k++) {
            pf(f, "<figure><figcaption>");
            esc(f, p->tenants[i].name);
            pf(f, ": ");
            esc(f, r->tiers[k].name);
            pf(f, " (%u devices)</figcaption>\n", r->tiers[k].devices);
            svg_tier(f, r, p, &p->tenants[i], k);
            pf(f, "</figure>\n");
        }
        pf(f, "</div>\n");
    }
    pf(f, "<h3>Waits of placed pods</h3>\n<div class=\"grid\">\n");
    for (size_t i = 0; i < p->ntenants; i++) {
        pf(f, "<figure><figcaption>");
        esc(f, p->tenants[i].name);
        pf(f, ": pods by wait</figcaption>\n");
        svg_waits(f, &p->tenants[i]);
        pf(f, "</figure>\n");
    }
    pf(f, "</div>\n");
}

bool report_html(FILE *f, const report *r)
{
    failed = false;
    pf(f, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
               "<title>dra-celc replay: ");
    esc(f, r->trace);
    pf(f, "</title>\n<style>\n"
               "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\n"
               "table{border-collapse:collapse;margin:.5em 0;font-size:12px}\n"
               "td,th{border:1px solid #ccc;padding:.2em .35em;text-align:right}\n"
               "td{white-space:nowrap}th{vertical-align:bottom}\n"
               "td:first-child,th:first-child{text-align:left}\n"
               "th{background:#f3f3f3;font-weight:600}\n"
               ".meta,.legend{color:#555}\n"
               ".grid{display:flex;flex-wrap:wrap;gap:1em}\n"
               "figure{margin:0}figcaption{font-weight:600;margin-bottom:.2em}\n"
               ".ax{font-size:11px;fill:#555}"
               ".lb{font-size:12px;fill:#222}\n"
               "</style>\n</head>\n<body>\n<h1>Replay of ");
    esc(f, r->trace);
    pf(f, "</h1>\n<p class=\"meta\">%zu pods, %zu claims, %zu nodes, %zu devices "
               "&#183; fleet ",
            r->pods, r->claims, r->nodes, r->devices);
    esc(f, r->fleet);
    pf(f, " &#183; classes ");
    esc(f, r->classes);
    pf(f, "</p>\n<p class=\"meta\">Tiers:");
    for (size_t k = 0; k < r->ntiers; k++) {
        pf(f, "%s ", k ? "," : "");
        esc(f, r->tiers[k].name);
        pf(f, " (%u devices%s)", r->tiers[k].devices, r->tiers[k].premium ? ", premium" : "");
    }
    pf(f, "</p>\n");
    for (size_t i = 0; i < r->npol; i++)
        html_policy(f, r, &r->pol[i], (char)('A' + i));
    if (r->npol == 2) {
        pf(f, "<h2>A against B</h2>\n<p class=\"legend\"><span style=\"color:%s\">&#9632;"
                   "</span> A: ",
                palette[0]);
        esc(f, r->pol[0].label);
        pf(f, " (%s) &#160; <span style=\"color:%s\">&#9632;</span> B: ", r->pol[0].mode,
                palette[1]);
        esc(f, r->pol[1].label);
        pf(f, " (%s) &#183; Jain's index %.3f &#8594; %.3f</p>\n<div class=\"grid\">\n",
                r->pol[1].mode, r->pol[0].jain, r->pol[1].jain);
        compare_table(f, r);
        static const char *const titles[] = {"first-choice rate", "mean wait (s)",
                                             "unschedulable pods"};
        for (int w = 0; w < 3; w++) {
            pf(f, "<figure><figcaption>%s</figcaption>\n", titles[w]);
            svg_compare(f, r, titles[w], w);
            pf(f, "</figure>\n");
        }
        pf(f, "</div>\n");
    }
    pf(f, "<p class=\"meta\">Made by dra-celc replay (docs/fairness.md). Times are the "
               "trace's seconds.</p>\n</body>\n</html>\n");
    return !failed && !ferror(f);
}
