/* admit.c: the validating admission webhook of dra-extender (src/extender/admit.h). */
#include "admit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonspan.h"

static bool span_is(const char *s, js_span v, const char *lit)
{
    size_t n = strlen(lit);
    return v.len == n && memcmp(s + v.off, lit, n) == 0;
}

/* The kinds linted (group resource.k8s.io); anything else is allowed unread. */
static bool linted_kind(const char *s, js_span kind)
{
    static const char *const KF[] = {"group", "kind"};
    js_span f[2];
    if (js_members(s, kind, KF, 2, f) != 0 || !span_is(s, f[0], "\"resource.k8s.io\""))
        return false;
    return span_is(s, f[1], "\"DeviceClass\"") || span_is(s, f[1], "\"ResourceClaim\"") ||
           span_is(s, f[1], "\"ResourceClaimTemplate\"");
}

/* A ConfigMap (the core group): the tier policies the webhook's objectSelector chose. */
static bool configmap_kind(const char *s, js_span kind)
{
    static const char *const KF[] = {"group", "kind"};
    js_span f[2];
    return js_members(s, kind, KF, 2, f) == 0 && (!f[0].len || span_is(s, f[0], "\"\"")) &&
           span_is(s, f[1], "\"ConfigMap\"");
}

/* Add each value of the ConfigMap's data to l as a file "data[KEY]": a TierPolicy each (docs/
 * fairness.md), linted against the classes. Non-zero on a body that is not what it says. */
static dracel_status add_configmap(dracel_lint *l, const char *s, js_span obj)
{
    static const char *const OF[] = {"data"};
    js_span d;
    if (js_members(s, obj, OF, 1, &d) != 0 || !d.len || s[d.off] != '{')
        return DRACEL_OK; /* no data: nothing to lint */
    js_iter it;
    if (js_object_begin(s, d, &it) != 0)
        return DRACEL_EINPUT;
    js_span k, v;
    int r = 0;
    dracel_status st = DRACEL_OK;
    while (st == DRACEL_OK && (r = js_object_next(s, &it, &k, &v)) == 1) {
        if (!js_is_string(s, v) || !js_is_string(s, k))
            return DRACEL_EINPUT;
        size_t kl = k.len, vl = v.len;
        char *key = malloc(kl + 8), *val = malloc(vl + 1);
        if (!key || !val || js_string(s, k, key + 5, &kl) != 0 || js_string(s, v, val, &vl) != 0) {
            st = !key || !val ? DRACEL_ENOMEM : DRACEL_EINPUT;
        } else {
            memcpy(key, "data[", 5);
            memcpy(key + 5 + kl, "]", 2);
            st = dracel_lint_add(l, key, val, vl);
        }
        free(key);
        free(val);
    }
    if (st == DRACEL_OK && r < 0)
        st = DRACEL_EINPUT;
    return st;
}

/* s cut to at most max bytes on a UTF-8 boundary, "..." marking the cut. */
static void put_cut(jbuf *b, const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max) {
        jb_str(b, s, n);
        return;
    }
    size_t k = max - 3;
    while (k && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    char tmp[ADMIT_MESSAGE_MAX + 4];
    if (k > ADMIT_MESSAGE_MAX)
        k = ADMIT_MESSAGE_MAX;
    memcpy(tmp, s, k);
    memcpy(tmp + k, "...", 4);
    jb_str(b, tmp, k + 3);
}

/* The response's start, the request's uid in it: decoded and written again, as the API server's
 * Go code reads and writes it (a lone surrogate escape, which Go reads as U+FFFD, is not sent
 * back as one: some JSON readers refuse it; fuzz_request found it). A real uid (a UUID) comes
 * back byte for byte. */
static bool review_head(jbuf *out, const char *body, js_span uid)
{
    char *u = malloc(uid.len + 1);
    size_t n = 0;
    if (!u || js_string(body, uid, u, &n) != 0) {
        free(u);
        return false;
    }
    jb_puts(out, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                 "\"response\":{\"uid\":");
    jb_str(out, u, n);
    free(u);
    return true;
}

int admit_review(const admit_config *c, const dracel_objects *classes, const char *body,
                 size_t len, jbuf *out, char *err, size_t errcap)
{
    size_t pos = 0;
    js_span root;
    if (js_value(body, len, &pos, &root) != 0 || body[root.off] != '{' ||
        !js_valid(body, len)) {
        snprintf(err, errcap, "the body is not a JSON object");
        return 400;
    }
    static const char *const TOP[] = {"apiVersion", "kind", "request"};
    static const char *const REQ[] = {"uid", "kind", "operation", "object"};
    js_span t[3], q[4];
    if (js_members_valid(body, root, TOP, 3, t) != 0 ||
        !span_is(body, t[0], "\"admission.k8s.io/v1\"") ||
        !span_is(body, t[1], "\"AdmissionReview\"")) {
        snprintf(err, errcap, "the body must be an admission.k8s.io/v1 AdmissionReview");
        return 400;
    }
    if (!t[2].len || body[t[2].off] != '{' || js_members_valid(body, t[2], REQ, 4, q) != 0) {
        snprintf(err, errcap, "AdmissionReview: request: required value (an object)");
        return 400;
    }
    if (!q[0].len || body[q[0].off] != '"' || q[0].len < 3) {
        snprintf(err, errcap, "AdmissionReview: request.uid: required value (a string)");
        return 400;
    }
    bool cm = q[1].len && body[q[1].off] == '{' && configmap_kind(body, q[1]);
    bool lint = q[1].len && body[q[1].off] == '{' && (cm || linted_kind(body, q[1])) &&
                q[3].len && body[q[3].off] == '{' && !span_is(body, q[2], "\"DELETE\"");
    if (!review_head(out, body, q[0])) {
        snprintf(err, errcap, "AdmissionReview: request.uid: not a string a uid can be (a NUL?)");
        return 400;
    }
    if (!lint) {
        jb_puts(out, ",\"allowed\":true}}\n");
        return out->oom ? 500 : 200;
    }
    dracel_lint_opts o;
    dracel_lint_opts_init(&o);
    o.classes = classes;
    o.disable = c->disable;
    dracel_lint *l = NULL;
    dracel_status st = dracel_lint_new(NULL, &o, &l, err, errcap);
    if (st == DRACEL_OK)
        st = cm ? add_configmap(l, body, q[3]) : dracel_lint_add(l, "object", body + q[3].off, q[3].len);
    if (st == DRACEL_OK)
        st = dracel_lint_run(l);
    if (st != DRACEL_OK) {
        dracel_lint_free(l);
        jb_free(out);
        jb_init(out);
        snprintf(err, errcap, "%s", st == DRACEL_ENOMEM  ? "out of memory"
                                    : cm && st == DRACEL_EINPUT ? "request.object: a ConfigMap's data must map strings to strings"
                                                         : "lint failed");
        return st == DRACEL_ENOMEM ? 500 : 400;
    }
    /* An error denies, but for a class not created yet (it may come after the claim, as an
     * apply of a folder does) and in warn mode; warnings (and those errors) are warnings. */
    size_t nerr = 0, first = SIZE_MAX;
    for (size_t i = 0; i < dracel_lint_count(l); i++) {
        dracel_finding f;
        if (dracel_lint_finding(l, i, &f) == DRACEL_OK && f.severity == DRACEL_SEV_ERROR &&
            strcmp(f.rule, "unknown-class") != 0 && !c->warn_only && nerr++ == 0)
            first = i;
    }
    jb_printf(out, ",\"allowed\":%s", nerr ? "false" : "true");
    if (nerr) {
        dracel_finding f;
        (void)dracel_lint_finding(l, first, &f);
        char msg[ADMIT_MESSAGE_MAX + 64];
        snprintf(msg, sizeof msg, "dra-extender lint: %s [%s]%s", f.message, f.rule,
                 nerr > 1 ? " (and more errors: dra-celc lint lists them)" : "");
        jb_puts(out, ",\"status\":{\"code\":403,\"reason\":\"Forbidden\",\"message\":");
        put_cut(out, msg, ADMIT_MESSAGE_MAX);
        jb_putc(out, '}');
    }
    size_t total = 0, nw = 0;
    for (size_t i = 0; i < dracel_lint_count(l); i++) {
        dracel_finding f;
        if (dracel_lint_finding(l, i, &f) != DRACEL_OK || f.severity == DRACEL_SEV_NOTE ||
            i == first)
            continue;
        char w[ADMIT_MESSAGE_MAX];
        int n = snprintf(w, sizeof w, "%s: %s", f.rule, f.message);
        size_t wl = n < 0 ? 0 : (size_t)n >= sizeof w ? sizeof w - 1 : (size_t)n;
        if (wl > ADMIT_WARNING_MAX)
            wl = ADMIT_WARNING_MAX;
        if (total + wl > ADMIT_WARNINGS_MAX)
            break; /* the API server would drop the rest */
        jb_puts(out, nw++ ? "," : ",\"warnings\":[");
        put_cut(out, w, ADMIT_WARNING_MAX);
        total += wl;
    }
    if (nw)
        jb_putc(out, ']');
    jb_puts(out, "}}\n");
    dracel_lint_free(l);
    return out->oom ? 500 : 200;
}
