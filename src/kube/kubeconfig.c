/*
 * kubeconfig.c: the API client's configuration (kubeconfig.h): a kubeconfig file read with
 * libyaml's event API into a small tree (the first document; aliases refused, nesting capped),
 * or the in-cluster environment. Paths in a kubeconfig are relative to its directory, as
 * client-go resolves them; a user's tokenFile wins over its token, as in client-go.
 */
#define _POSIX_C_SOURCE 200809L

#include "kubeconfig.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount/"

enum {
    MAX_KUBECONFIG = 16 << 20, /* bytes */
    MAX_TOKEN = 64 << 10,
    MAX_YAML_DEPTH = 64,
};

static int fail(char *err, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errcap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errcap, fmt, ap);
    va_end(ap);
    return -1;
}

/* Read a whole file of at most max bytes, NUL-terminated. */
static int slurp(const char *path, size_t max, char **out, size_t *outlen, char *err, size_t errcap)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, errcap, "%s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    int rc = -1;
    if (!buf) {
        fail(err, errcap, "%s: out of memory", path);
        goto done;
    }
    for (;;) {
        if (cap - n < 2) {
            if (cap > max) {
                fail(err, errcap, "%s: larger than %zu bytes", path, max);
                goto done;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                fail(err, errcap, "%s: out of memory", path);
                goto done;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        fail(err, errcap, "%s: read error", path);
        goto done;
    }
    if (n > max) {
        fail(err, errcap, "%s: larger than %zu bytes", path, max);
        goto done;
    }
    buf[n] = '\0';
    *out = buf;
    *outlen = n;
    buf = NULL;
    rc = 0;
done:
    free(buf);
    fclose(f);
    return rc;
}

int kc_read_token(const char *path, char **tok, char *err, size_t errcap)
{
    char *buf;
    size_t n;
    *tok = NULL;
    if (slurp(path, MAX_TOKEN, &buf, &n, err, errcap) != 0)
        return -1;
    size_t a = 0;
    while (a < n && (buf[a] == ' ' || buf[a] == '\t' || buf[a] == '\r' || buf[a] == '\n'))
        a++;
    while (n > a && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r' || buf[n - 1] == '\n'))
        n--;
    if (n == a) {
        free(buf);
        return fail(err, errcap, "%s: the token file is empty", path);
    }
    for (size_t i = a; i < n; i++) {
        if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f) {
            free(buf);
            return fail(err, errcap, "%s: the token holds a control character", path);
        }
    }
    memmove(buf, buf + a, n - a);
    buf[n - a] = '\0';
    *tok = buf;
    return 0;
}

int kc_base64(const char *in, size_t n, kc_blob *out)
{
    out->data = NULL;
    out->len = 0;
    unsigned char *buf = malloc(n / 4 * 3 + 3);
    if (!buf)
        return -2;
    uint32_t acc = 0;
    int bits = 0, pad = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        int v;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad)
            goto bad; /* data after padding */
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+')
            v = 62;
        else if (c == '/')
            v = 63;
        else
            goto bad;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[k++] = (unsigned char)(acc >> bits);
        }
    }
    /* leftover bits: 0 (complete), 2 (one byte from 2 characters) or 4 (two bytes from 3);
     * 6 would be a lone character, which no encoding produces */
    if (bits == 6 || pad > 2)
        goto bad;
    out->data = buf;
    out->len = k;
    return 0;
bad:
    free(buf);
    return -1;
}

/* ---- A small YAML tree. */

typedef enum { Y_SCALAR, Y_MAP, Y_SEQ } ykind;

typedef struct ynode {
    ykind kind;
    bool plain;  /* a plain (unquoted) scalar */
    size_t line; /* 1-based */
    char *str;   /* Y_SCALAR */
    struct ynode **kids; /* Y_MAP: key, value, key, value...; Y_SEQ: the items */
    size_t n, cap;
} ynode;

static void ynode_free(ynode *y)
{
    if (!y)
        return;
    for (size_t i = 0; i < y->n; i++)
        ynode_free(y->kids[i]);
    free(y->kids);
    free(y->str);
    free(y);
}

static int ynode_add(ynode *parent, ynode *kid)
{
    if (parent->n == parent->cap) {
        size_t cap = parent->cap ? parent->cap * 2 : 8;
        ynode **nk = realloc(parent->kids, cap * sizeof *nk);
        if (!nk)
            return -1;
        parent->kids = nk;
        parent->cap = cap;
    }
    parent->kids[parent->n++] = kid;
    return 0;
}

/* The first document of buf as a tree, or NULL with a message. */
static ynode *yaml_tree(const char *name, const char *buf, size_t len, char *err, size_t errcap)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        fail(err, errcap, "%s: out of memory", name);
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    ynode *root = NULL, *stack[MAX_YAML_DEPTH];
    int depth = 0;
    bool done = false, ok = false;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            fail(err, errcap, "%s:%zu:%zu: %s", name, (size_t)p.problem_mark.line + 1,
                 (size_t)p.problem_mark.column + 1, p.problem ? p.problem : "YAML error");
            break;
        }
        ynode *y = NULL;
        size_t line = (size_t)ev.start_mark.line + 1;
        bool bad = false;
        switch (ev.type) {
        case YAML_DOCUMENT_END_EVENT:
        case YAML_STREAM_END_EVENT:
            done = ok = true;
            break;
        case YAML_ALIAS_EVENT:
            fail(err, errcap, "%s:%zu: YAML aliases are not supported in a kubeconfig", name, line);
            bad = true;
            break;
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            y = calloc(1, sizeof *y);
            if (!y) {
                fail(err, errcap, "%s: out of memory", name);
                bad = true;
                break;
            }
            y->line = line;
            if (ev.type == YAML_SCALAR_EVENT) {
                y->kind = Y_SCALAR;
                y->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
                if (memchr(ev.data.scalar.value, '\0', ev.data.scalar.length)) {
                    fail(err, errcap, "%s:%zu: a value holds a NUL character", name, line);
                    bad = true;
                } else if (!(y->str = strdup((const char *)ev.data.scalar.value))) {
                    fail(err, errcap, "%s: out of memory", name);
                    bad = true;
                }
            } else {
                y->kind = ev.type == YAML_MAPPING_START_EVENT ? Y_MAP : Y_SEQ;
            }
            if (!bad && depth > 0 && ynode_add(stack[depth - 1], y) != 0) {
                fail(err, errcap, "%s: out of memory", name);
                bad = true;
            } else if (!bad && depth == 0) {
                root = y;
            }
            if (bad) {
                ynode_free(y);
                break;
            }
            if (y->kind != Y_SCALAR) {
                if (depth == MAX_YAML_DEPTH) {
                    fail(err, errcap, "%s:%zu: nested deeper than %d levels", name, line,
                         MAX_YAML_DEPTH);
                    bad = true;
                    break;
                }
                stack[depth++] = y;
            }
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (bad)
            break;
    }
    yaml_parser_delete(&p);
    if (!ok) {
        ynode_free(root);
        return NULL;
    }
    if (!root)
        fail(err, errcap, "%s: the file is empty", name);
    return root;
}

/* A plain scalar YAML reads as null. */
static bool is_null_scalar(const ynode *y)
{
    return y->plain && (!y->str[0] || strcmp(y->str, "~") == 0 || strcmp(y->str, "null") == 0 ||
                        strcmp(y->str, "Null") == 0 || strcmp(y->str, "NULL") == 0);
}

/* Member key of a mapping (the last one when it repeats), or NULL; a null value is absent. */
static const ynode *get(const ynode *map, const char *key)
{
    const ynode *found = NULL;
    if (!map || map->kind != Y_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < map->n; i += 2) {
        const ynode *k = map->kids[i];
        if (k->kind == Y_SCALAR && strcmp(k->str, key) == 0)
            found = map->kids[i + 1];
    }
    if (found && found->kind == Y_SCALAR && is_null_scalar(found))
        return NULL;
    return found;
}

/* The scalar text of a member, or NULL when absent; an error when it is not a scalar. */
static int get_str(const ynode *map, const char *key, const char **out, const char *where,
                   char *err, size_t errcap)
{
    const ynode *v = get(map, key);
    *out = NULL;
    if (!v)
        return 0;
    if (v->kind != Y_SCALAR)
        return fail(err, errcap, "%s:%zu: %s is not a string", where, v->line, key);
    *out = v->str;
    return 0;
}

/* The item of a named list (contexts, clusters, users) whose name is name: its member field. */
static const ynode *named(const ynode *root, const char *list, const char *name, const char *field)
{
    const ynode *seq = get(root, list);
    const ynode *found = NULL;
    if (!seq || seq->kind != Y_SEQ)
        return NULL;
    for (size_t i = 0; i < seq->n; i++) {
        const ynode *n = get(seq->kids[i], "name");
        if (n && n->kind == Y_SCALAR && strcmp(n->str, name) == 0)
            found = seq->kids[i];
    }
    return found ? get(found, field) : NULL;
}

/* A path of the kubeconfig, relative to its directory unless absolute. */
static char *resolve(const char *kubeconfig, const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    const char *slash = strrchr(kubeconfig, '/');
    size_t dl = slash ? (size_t)(slash - kubeconfig) + 1 : 0;
    char *out = malloc(dl + strlen(path) + 1);
    if (out) {
        memcpy(out, kubeconfig, dl);
        strcpy(out + dl, path);
    }
    return out;
}

static int readable(const char *what, const char *path, char *err, size_t errcap)
{
    if (access(path, R_OK) != 0)
        return fail(err, errcap, "%s %s: %s", what, path, strerror(errno));
    return 0;
}

static int check_header_safe(const char *what, const char *s, char *err, size_t errcap)
{
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return fail(err, errcap, "%s holds a control character", what);
    return 0;
}

/* Resolve a file member or a -data member into *file or *blob. */
static int file_or_data(const ynode *map, const char *fkey, const char *dkey, const char *kcpath,
                        const char *where, char **file, kc_blob *blob, char *err, size_t errcap)
{
    const char *f, *d;
    if (get_str(map, fkey, &f, where, err, errcap) != 0 ||
        get_str(map, dkey, &d, where, err, errcap) != 0)
        return -1;
    if (d) {
        int r = kc_base64(d, strlen(d), blob);
        if (r == -2)
            return fail(err, errcap, "%s: out of memory", where);
        if (r != 0 || blob->len == 0)
            return fail(err, errcap, "%s: %s is not base64", where, dkey);
        return 0;
    }
    if (f) {
        if (!(*file = resolve(kcpath, f)))
            return fail(err, errcap, "%s: out of memory", where);
        return readable(fkey, *file, err, errcap);
    }
    return 0;
}

static int from_kubeconfig(const kube_config *cfg, kc_conf *c, char *err, size_t errcap)
{
    const char *path = cfg->kubeconfig;
    char *buf = NULL;
    size_t len;
    if (slurp(path, MAX_KUBECONFIG, &buf, &len, err, errcap) != 0)
        return -1;
    ynode *root = yaml_tree(path, buf, len, err, errcap);
    free(buf);
    if (!root)
        return -1;
    int rc = -1;
    const char *ctxname = cfg->context;
    if (root->kind != Y_MAP) {
        fail(err, errcap, "%s: not a kubeconfig (a mapping is expected)", path);
        goto done;
    }
    if (!ctxname && get_str(root, "current-context", &ctxname, path, err, errcap) != 0)
        goto done;
    if (!ctxname || !*ctxname) {
        fail(err, errcap, "%s: no current-context (name a context)", path);
        goto done;
    }
    const ynode *ctx = named(root, "contexts", ctxname, "context");
    if (!ctx || ctx->kind != Y_MAP) {
        fail(err, errcap, "%s: context \"%s\" not found", path, ctxname);
        goto done;
    }
    const char *cname, *uname;
    if (get_str(ctx, "cluster", &cname, path, err, errcap) != 0 ||
        get_str(ctx, "user", &uname, path, err, errcap) != 0)
        goto done;
    if (!cname) {
        fail(err, errcap, "%s: context \"%s\" names no cluster", path, ctxname);
        goto done;
    }
    const ynode *cl = named(root, "clusters", cname, "cluster");
    if (!cl || cl->kind != Y_MAP) {
        fail(err, errcap, "%s: cluster \"%s\" (of context \"%s\") not found", path, cname, ctxname);
        goto done;
    }
    const char *server, *proxy, *tlsname;
    if (get_str(cl, "server", &server, path, err, errcap) != 0 ||
        get_str(cl, "proxy-url", &proxy, path, err, errcap) != 0 ||
        get_str(cl, "tls-server-name", &tlsname, path, err, errcap) != 0)
        goto done;
    if (!server || (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)) {
        fail(err, errcap, "%s: cluster \"%s\" has no http:// or https:// server", path, cname);
        goto done;
    }
    if (tlsname) {
        fail(err, errcap, "%s: cluster \"%s\": tls-server-name is not supported", path, cname);
        goto done;
    }
    size_t sl = strlen(server);
    while (sl > 0 && server[sl - 1] == '/')
        sl--;
    if (!(c->server = strndup(server, sl)) || (proxy && !(c->proxy = strdup(proxy)))) {
        fail(err, errcap, "out of memory");
        goto done;
    }
    const ynode *insecure = get(cl, "insecure-skip-tls-verify");
    if (insecure) {
        static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
        static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
        bool known = false;
        for (size_t i = 0; insecure->kind == Y_SCALAR && insecure->plain && i < 9; i++) {
            if (strcmp(insecure->str, yes[i]) == 0)
                c->insecure = known = true;
            if (strcmp(insecure->str, no[i]) == 0)
                known = true;
        }
        if (!known) {
            fail(err, errcap, "%s:%zu: insecure-skip-tls-verify is not a boolean", path, insecure->line);
            goto done;
        }
    }
    if (file_or_data(cl, "certificate-authority", "certificate-authority-data", path, path,
                     &c->ca_file, &c->ca_data, err, errcap) != 0)
        goto done;

    if (uname && *uname) {
        const ynode *u = named(root, "users", uname, "user");
        if (!u) {
            /* a user entry that is present but empty is anonymous; a missing one is an error */
            const ynode *seq = get(root, "users");
            bool listed = false;
            for (size_t i = 0; seq && seq->kind == Y_SEQ && i < seq->n; i++) {
                const ynode *n = get(seq->kids[i], "name");
                listed |= n && n->kind == Y_SCALAR && strcmp(n->str, uname) == 0;
            }
            if (!listed) {
                fail(err, errcap, "%s: user \"%s\" (of context \"%s\") not found", path, uname, ctxname);
                goto done;
            }
        } else if (u->kind != Y_MAP) {
            fail(err, errcap, "%s:%zu: user \"%s\" is not a mapping", path, u->line, uname);
            goto done;
        } else {
            static const char *const refused[][2] = {
                {"exec", "exec credential plugins are not supported (use a token, tokenFile or a client certificate)"},
                {"auth-provider", "auth-provider plugins are not supported (use a token, tokenFile or a client certificate)"},
                {"username", "basic authentication (username/password) is not supported"},
                {"password", "basic authentication (username/password) is not supported"},
                {"as", "impersonation (as) is not supported"},
                {"as-groups", "impersonation (as-groups) is not supported"},
                {"as-uid", "impersonation (as-uid) is not supported"},
                {"as-user-extra", "impersonation (as-user-extra) is not supported"},
            };
            for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
                if (get(u, refused[i][0])) {
                    fail(err, errcap, "%s: user \"%s\": %s", path, uname, refused[i][1]);
                    goto done;
                }
            }
            const char *tok, *tokfile;
            if (get_str(u, "token", &tok, path, err, errcap) != 0 ||
                get_str(u, "tokenFile", &tokfile, path, err, errcap) != 0)
                goto done;
            if (tokfile) {
                if (!(c->token_file = resolve(path, tokfile))) {
                    fail(err, errcap, "out of memory");
                    goto done;
                }
                char *t;
                if (kc_read_token(c->token_file, &t, err, errcap) != 0)
                    goto done;
                free(t);
            } else if (tok) {
                if (check_header_safe("the user's token", tok, err, errcap) != 0)
                    goto done;
                if (!(c->token = strdup(tok))) {
                    fail(err, errcap, "out of memory");
                    goto done;
                }
            }
            if (file_or_data(u, "client-certificate", "client-certificate-data", path, path,
                             &c->cert_file, &c->cert_data, err, errcap) != 0 ||
                file_or_data(u, "client-key", "client-key-data", path, path, &c->key_file,
                             &c->key_data, err, errcap) != 0)
                goto done;
            bool cert = c->cert_file || c->cert_data.data, key = c->key_file || c->key_data.data;
            if (cert != key) {
                fail(err, errcap, "%s: user \"%s\": a client certificate needs its key, and a key its certificate",
                     path, uname);
                goto done;
            }
        }
    }
    rc = 0;
done:
    ynode_free(root);
    return rc;
}

static int in_cluster(const kube_config *cfg, kc_conf *c, char *err, size_t errcap)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST"), *port = getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port)
        return fail(err, errcap, "no kubeconfig given, and not in a cluster "
                                 "(KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)");
    if (strspn(port, "0123456789") != strlen(port) || strlen(port) > 5)
        return fail(err, errcap, "KUBERNETES_SERVICE_PORT is not a port: %s", port);
    if (strpbrk(host, "/?#@[] \t\r\n"))
        return fail(err, errcap, "KUBERNETES_SERVICE_HOST is not a host: %s", host);
    bool v6 = strchr(host, ':') != NULL;
    size_t n = strlen(host) + strlen(port) + 16;
    c->server = malloc(n);
    c->token_file = strdup(cfg->token_file ? cfg->token_file : SA_DIR "token");
    c->ca_file = strdup(cfg->ca_file ? cfg->ca_file : SA_DIR "ca.crt");
    if (!c->server || !c->token_file || !c->ca_file)
        return fail(err, errcap, "out of memory");
    snprintf(c->server, n, v6 ? "https://[%s]:%s" : "https://%s:%s", host, port);
    char *t;
    if (kc_read_token(c->token_file, &t, err, errcap) != 0)
        return -1;
    free(t);
    return readable("the service account's CA", c->ca_file, err, errcap);
}

static int describe(const kube_config *cfg, kc_conf *c)
{
    char buf[2048];
    size_t k = 0;
#define ADD(...) do { int w_ = snprintf(buf + k, sizeof buf - k, __VA_ARGS__); \
        if (w_ > 0) k = (size_t)w_ < sizeof buf - k ? k + (size_t)w_ : sizeof buf - 1; } while (0)
    ADD("%s (", c->server);
    if (cfg->kubeconfig)
        ADD("kubeconfig %s%s%s", cfg->kubeconfig, cfg->context ? ", context " : "",
            cfg->context ? cfg->context : "");
    else
        ADD("in cluster");
    if (strncmp(c->server, "http://", 7) == 0)
        ADD("; plain HTTP");
    else if (c->insecure)
        ADD("; TLS verification off");
    else if (c->ca_file)
        ADD("; CA %s", c->ca_file);
    else if (c->ca_data.data)
        ADD("; CA from certificate-authority-data");
    else
        ADD("; the system's CAs");
    if (c->token_file)
        ADD("; bearer token from %s", c->token_file);
    else if (c->token)
        ADD("; bearer token");
    if (c->cert_file || c->cert_data.data)
        ADD("; client certificate%s%s", c->cert_file ? " " : "", c->cert_file ? c->cert_file : "");
    if (c->proxy)
        ADD("; proxy %s", c->proxy);
    ADD(")");
#undef ADD
    c->describe = strdup(buf);
    return c->describe ? 0 : -1;
}

int kc_load(const kube_config *cfg, kc_conf *c, char *err, size_t errcap)
{
    memset(c, 0, sizeof *c);
    int rc = cfg->kubeconfig ? from_kubeconfig(cfg, c, err, errcap) : in_cluster(cfg, c, err, errcap);
    if (rc == 0 && describe(cfg, c) != 0)
        rc = fail(err, errcap, "out of memory");
    if (rc != 0)
        kc_free(c);
    return rc;
}

void kc_free(kc_conf *c)
{
    free(c->server);
    free(c->ca_file);
    free(c->ca_data.data);
    free(c->token);
    free(c->token_file);
    free(c->cert_file);
    free(c->cert_data.data);
    free(c->key_file);
    free(c->key_data.data);
    free(c->proxy);
    free(c->describe);
    memset(c, 0, sizeof *c);
}
