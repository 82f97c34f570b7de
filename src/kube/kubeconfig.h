/*
 * kubeconfig.h: where the API server is and how to talk to it (kubeconfig.c), from a kubeconfig
 * file or from the in-cluster environment, resolved once by kube_new.
 *
 * Supported in a kubeconfig: current-context or a named context; the cluster's server,
 * certificate-authority (a file, relative to the kubeconfig's directory) or
 * certificate-authority-data (base64), insecure-skip-tls-verify, proxy-url; the user's token,
 * tokenFile, client-certificate(-data) and client-key(-data). Refused with a message: exec and
 * auth-provider plugins, username/password, impersonation (as, as-groups, as-uid), and
 * tls-server-name. One file only (no KUBECONFIG list merging).
 *
 * Changes with: kube.c (applies the result to each curl handle), docs/extender-watch.md.
 */
#ifndef EXT_KUBECONFIG_H
#define EXT_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "kube.h"

typedef struct kc_blob {
    unsigned char *data; /* malloc'd, or NULL */
    size_t len;
} kc_blob;

typedef struct kc_conf {
    char *server;     /* the base URL, without a trailing '/' */
    char *ca_file;    /* PEM file of the CAs to trust, or NULL */
    kc_blob ca_data;  /* or PEM in memory */
    bool insecure;    /* insecure-skip-tls-verify: no verification of the server */
    char *token;      /* a fixed bearer token, or NULL */
    char *token_file; /* a file holding the bearer token, read before every request, or NULL */
    char *cert_file;  /* client certificate and key (PEM), files or in memory */
    kc_blob cert_data;
    char *key_file;
    kc_blob key_data;
    char *proxy;      /* proxy-url, or NULL */
    char *describe;   /* one line for logs: server, origin, trust and credentials */
} kc_conf;

/** Resolve cfg (cfg->kubeconfig, or in cluster when it is NULL) into c. Returns 0, or -1 with a
 *  message in err (c is then empty). */
int kc_load(const kube_config *cfg, kc_conf *c, char *err, size_t errcap);
void kc_free(kc_conf *c);

/** Read a bearer token file: the contents without surrounding whitespace, malloc'd in *tok.
 *  Returns 0, or -1 with a message (unreadable, empty, over 64 KiB, or holding a control
 *  character, which could not go in an HTTP header). */
int kc_read_token(const char *path, char **tok, char *err, size_t errcap);

/** Decode standard base64 (padding optional, whitespace ignored) into a malloc'd buffer.
 *  Returns 0, -1 when the text is not base64, -2 out of memory. */
int kc_base64(const char *in, size_t n, kc_blob *out);

#endif
