/* admit.c: the validating admission webhook of dra-extender (src/extender/admit.h). */
#include "admit.h"

#include <stdio.h>
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

static void review_head(jbuf *out, const char *body, js_span uid)
{
    jb_puts(out, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                 "\"response\":{\"uid\":");
    jb_put(out, body + uid.off, uid.len); /* a JSON string, validated: echoed as it came */
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
    bool lint = q[1].len && body[q[1].off] == '{' && linted_kind(body, q[1]) && q[3].len &&
                body[q[3].off] == '{' && !span_is(body, q[2], "\"DELETE\"");
    review_head(out, body, q[0]);
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
        st = dracel_lint_add(l, "object", body + q[3].off, q[3].len);
    if (st == DRACEL_OK)
        st = dracel_lint_run(l);
    if (st != DRACEL_OK) {
        dracel_lint_free(l);
        snprintf(err, errcap, "%s", st == DRACEL_ENOMEM ? "out of memory" : "lint failed");
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
