/*
 * kubecmd.c: dra-celc against a live cluster (kubecmd.h).
 *
 * The lists are the server's bytes (kubefetch.h), written as they came; only the pod, its
 * claims' names and the allocations' device IDs are read here, with cJSON (strings only: no
 * number is re-encoded). Files are created in a directory of mode 0700 under $TMPDIR (else
 * /tmp), removed by celc_kube_remove.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "kubecmd.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dracel.h"
#include "kubefetch.h"
#include "out.h"

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", celc_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wx");
    if (!f)
        return fail("%s: %s", path, strerror(errno));
    bool ok = fwrite(data, 1, len, f) == len;
    if (fclose(f) != 0 || !ok)
        return fail("%s: cannot write: %s", path, strerror(errno));
    return -1;
}

static const char *jstr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The resources the client reads, listed (but those in skip). */
static int fetch(const celc_kube *k, unsigned skip, kube_fetch *kf, char *err, size_t errcap)
{
    kube_config kc;
    memset(&kc, 0, sizeof kc);
    kc.skip = skip;
    kc.kubeconfig = k->kubeconfig;
    kc.context = k->context;
    kc.user_agent = "dra-celc";
    return kube_fetch_lists(&kc, k->timeout_ms, kf, err, errcap);
}

/* The private directory of the files (mode 0700, under $TMPDIR or /tmp). */
static bool make_dir(celc_kube_files *out)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out->dir, sizeof out->dir, "%s/dra-celc.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(out->dir))
        return true;
    (void)fail("%s: %s", out->dir, strerror(errno));
    out->dir[0] = '\0';
    return false;
}

/* The devices of every allocated claim but the pod's own, "driver/pool/device\n" each. */
static char *allocated_ids(const kube_fetch *kf, const kf_obj *const *own, size_t nown, size_t *len)
{
    size_t cap = 256, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (size_t i = 0; i < kf->nobjs[KUBE_CLAIMS]; i++) {
        const kf_obj *o = &kf->objs[KUBE_CLAIMS][i];
        bool mine = false;
        for (size_t k = 0; k < nown && !mine; k++)
            mine = own[k] == o;
        if (mine)
            continue;
        cJSON *c = cJSON_ParseWithLength(kf->json[KUBE_CLAIMS] + o->off, o->len);
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(c, "status"), "allocation"),
                "devices"),
            "results");
        const cJSON *r;
        cJSON_ArrayForEach(r, res) {
            const char *d = jstr(r, "driver"), *p = jstr(r, "pool"), *dev = jstr(r, "device");
            if (!d || !p || !dev)
                continue;
            size_t need = strlen(d) + strlen(p) + strlen(dev) + 4;
            if (n + need >= cap) {
                while (n + need >= cap)
                    cap *= 2;
                char *np = realloc(out, cap);
                if (!np) {
                    cJSON_Delete(c);
                    free(out);
                    return NULL;
                }
                out = np;
            }
            n += (size_t)snprintf(out + n, cap - n, "%s/%s/%s\n", d, p, dev);
        }
        cJSON_Delete(c);
    }
    out[n] = '\0';
    *len = n;
    return out;
}

int celc_kube_fetch(const celc_kube *k, const char *pod, bool json, celc_kube_files *out)
{
    (void)json;
    memset(out, 0, sizeof *out);
    const char *slash = strchr(pod, '/');
    if (!slash || slash == pod || !slash[1] || strchr(slash + 1, '/'))
        return fail("--pod %s: NAMESPACE/NAME is expected with --kubeconfig or --in-cluster", pod);
    char ns[256], name[256];
    snprintf(ns, sizeof ns, "%.*s", (int)(slash - pod), pod);
    snprintf(name, sizeof name, "%s", slash + 1);
    char err[2048];
    kube_fetch kf;
    if (fetch(k, 0, &kf, err, sizeof err) != 0)
        return fail("%s", err);
    int rc = -1;
    char *pj = NULL, *tj = NULL, *ids = NULL;
    cJSON *p = NULL;
    size_t plen = 0, tlen = 0, ilen = 0;
    char path[600];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s", ns, name);
    int g = kube_fetch_get(&kf, path, k->timeout_ms, &pj, &plen, err, sizeof err);
    if (g != 0) {
        rc = g > 0 ? fail("pod %s not found (%s)", pod, kube_server(kf.k)) : fail("%s", err);
        goto out;
    }
    if (!(p = cJSON_ParseWithLength(pj, plen))) {
        rc = fail("pod %s: the server's answer is not JSON", pod);
        goto out;
    }
    /* the pod's claims, in the order of spec.resourceClaims */
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(p, "spec");
    const cJSON *rcs = cJSON_GetObjectItemCaseSensitive(spec, "resourceClaims");
    const cJSON *sts = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p, "status"), "resourceClaimStatuses");
    size_t nrc = (size_t)cJSON_GetArraySize(rcs), nown = 0, clen = 0, ccap = 64;
    const kf_obj **own = calloc(nrc ? nrc : 1, sizeof *own);
    char *claims = malloc(ccap);
    if (!own || !claims) {
        free(own);
        free(claims);
        rc = celc_oom();
        goto out;
    }
    clen = (size_t)snprintf(claims, ccap, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    const cJSON *e;
    cJSON_ArrayForEach(e, rcs) {
        const char *entry = jstr(e, "name"), *cname = jstr(e, "resourceClaimName");
        const char *tname = jstr(e, "resourceClaimTemplateName");
        if (!cname && entry) {
            const cJSON *s;
            cJSON_ArrayForEach(s, sts) {
                const char *sn = jstr(s, "name");
                if (sn && strcmp(sn, entry) == 0)
                    cname = jstr(s, "resourceClaimName");
            }
        }
        const char *text = NULL;
        size_t tl = 0;
        if (cname) {
            const kf_obj *o = kube_fetch_find(&kf, KUBE_CLAIMS, ns, cname);
            if (!o) {
                rc = fail("resourceclaim %s/%s not found", ns, cname);
                break;
            }
            own[nown++] = o;
            text = kf.json[KUBE_CLAIMS] + o->off;
            tl = o->len;
        } else if (tname) {
            /* not made yet: the template is what the claim will be */
            free(tj);
            tj = NULL;
            snprintf(path, sizeof path,
                     "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaimtemplates/%s", ns, tname);
            g = kube_fetch_get(&kf, path, k->timeout_ms, &tj, &tlen, err, sizeof err);
            if (g != 0) {
                rc = g > 0 ? fail("resourceclaimtemplate %s/%s not found", ns, tname)
                           : fail("%s", err);
                break;
            }
            text = tj;
            tl = tlen;
        } else {
            continue; /* a status entry without a claim: the claim is not needed */
        }
        if (clen + tl + 4 >= ccap) {
            while (clen + tl + 4 >= ccap)
                ccap *= 2;
            char *np = realloc(claims, ccap);
            if (!np) {
                rc = celc_oom();
                break;
            }
            claims = np;
        }
        if (out->any_claim)
            claims[clen++] = ',';
        memcpy(claims + clen, text, tl);
        clen += tl;
        out->any_claim = true;
    }
    if (rc < 0) {
        memcpy(claims + clen, "]}", 3);
        clen += 2;
        ids = allocated_ids(&kf, own, nown, &ilen);
        if (!ids)
            rc = celc_oom();
    }
    free(own);
    if (rc >= 0) {
        free(claims);
        goto out;
    }
    if (!make_dir(out)) {
        rc = EXIT_USAGE;
        free(claims);
        goto out;
    }
    snprintf(out->slices, sizeof out->slices, "%s/resourceslices.json", out->dir);
    snprintf(out->classes, sizeof out->classes, "%s/deviceclasses.json", out->dir);
    snprintf(out->nodes, sizeof out->nodes, "%s/nodes.json", out->dir);
    snprintf(out->claims, sizeof out->claims, "%s/claims.json", out->dir);
    snprintf(out->pod, sizeof out->pod, "%s/pod.json", out->dir);
    snprintf(out->allocated, sizeof out->allocated, "%s/allocated.txt", out->dir);
    out->any_allocated = ilen > 0;
    rc = write_file(out->slices, kf.json[KUBE_SLICES], kf.len[KUBE_SLICES]);
    if (rc < 0)
        rc = write_file(out->classes, kf.json[KUBE_CLASSES], kf.len[KUBE_CLASSES]);
    if (rc < 0)
        rc = write_file(out->nodes, kf.json[KUBE_NODES], kf.len[KUBE_NODES]);
    if (rc < 0)
        rc = write_file(out->claims, claims, clen);
    if (rc < 0)
        rc = write_file(out->pod, pj, plen);
    if (rc < 0)
        rc = write_file(out->allocated, ids, ilen);
    free(claims);
out:
    cJSON_Delete(p);
    free(pj);
    free(tj);
    free(ids);
    kube_fetch_free(&kf);
    return rc;
}

int celc_kube_fleet(const celc_kube *k, celc_kube_files *out)
{
    memset(out, 0, sizeof *out);
    char err[2048];
    kube_fetch kf;
    if (fetch(k, 1u << KUBE_CLAIMS | 1u << KUBE_NODES, &kf, err, sizeof err) != 0)
        return fail("%s", err);
    int rc;
    if (!make_dir(out)) {
        rc = EXIT_USAGE;
    } else {
        snprintf(out->slices, sizeof out->slices, "%s/resourceslices.json", out->dir);
        snprintf(out->classes, sizeof out->classes, "%s/deviceclasses.json", out->dir);
        rc = write_file(out->slices, kf.json[KUBE_SLICES], kf.len[KUBE_SLICES]);
        if (rc < 0)
            rc = write_file(out->classes, kf.json[KUBE_CLASSES], kf.len[KUBE_CLASSES]);
    }
    kube_fetch_free(&kf);
    return rc;
}

void celc_kube_remove(celc_kube_files *f)
{
    if (!f->dir[0])
        return;
    const char *files[] = {f->slices, f->classes, f->nodes, f->claims, f->pod, f->allocated};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (files[i][0])
            (void)unlink(files[i]);
    (void)rmdir(f->dir);
    f->dir[0] = '\0';
}
