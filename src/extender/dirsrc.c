/* dirsrc.c: the --objects source of dra-extender (src/extender/dirsrc.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirsrc.h"
#include "jsonspan.h"
#include "log.h"
#include "metrics.h"

#define MAX_FILE_BYTES ((size_t)64 << 20)
#define WATCH_MASK                                                                            \
    (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF |   \
     IN_MOVE_SELF)

static const metric_family m_files = {
    "dra_extender_objects_file_loads_total",
    "Loads of --objects files, by result (ok; partial: taken without the objects refused; "
    "rejected: the file's objects were kept as they were; removed).",
    METRIC_COUNTER, NULL, 0};

/* An object of a file left out (refused in the store), forgotten when the file loads again. */
typedef struct frefused {
    char *path;
    unsigned kind;
    char *ns, *name;
} frefused;

static const unsigned ALL_KINDS = DRACEL_OBJ_SLICE | DRACEL_OBJ_CLASS | DRACEL_OBJ_CLAIM |
                                  DRACEL_OBJ_NODE | DRACEL_OBJ_TAINT_RULE;

typedef struct wdir {
    int wd;
    char *path;
    bool scanned;                /* given or found as a directory: all its files are loaded */
} wdir;

struct dirsrc {
    store *st;
    int fd;                      /* inotify */
    int wake[2];                 /* a pipe: stop */
    wdir *dirs;
    size_t ndirs, cap_dirs;
    char **roots;                /* files given directly (watched through their directory) */
    size_t nroots;
    char **files;                /* the files loaded (sources of the store) */
    size_t nfiles, cap_files;
    frefused *refused;           /* objects of those files left out */
    size_t nrefused, cap_refused;
    pthread_t thread;
    bool running;
};

static bool object_file(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return false;
    return (n > 5 && strcmp(name + n - 5, ".json") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

/* Read a file whole (at most MAX_FILE_BYTES); NULL with errno set. */
static char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (size_t)sb.st_size > MAX_FILE_BYTES) {
        int e = S_ISREG(sb.st_mode) ? EFBIG : EISDIR;
        close(fd);
        errno = e;
        return NULL;
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > MAX_FILE_BYTES) {
                free(buf);
                close(fd);
                errno = EFBIG;
                return NULL;
            }
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                close(fd);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            errno = e;
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void track(dirsrc *d, const char *path, bool present)
{
    for (size_t i = 0; i < d->nfiles; i++)
        if (strcmp(d->files[i], path) == 0) {
            if (!present) {
                free(d->files[i]);
                d->files[i] = d->files[--d->nfiles];
            }
            return;
        }
    if (!present)
        return;
    if (d->nfiles == d->cap_files) {
        size_t cap = d->cap_files ? d->cap_files * 2 : 64;
        char **n = realloc(d->files, cap * sizeof *n);
        if (!n)
            return;
        d->files = n;
        d->cap_files = cap;
    }
    if ((d->files[d->nfiles] = strdup(path)) != NULL)
        d->nfiles++;
}

/* ---- One bad object is left out alone, not its file. A file the store rejects is cut into its
 * objects: the documents of a YAML stream (at its `---` lines, which YAML forbids inside
 * content) or the items of a JSON array or List (spans of jsonspan.h). Each is checked alone;
 * one that fails is replaced by a null of the same lines (the readers skip a null document or
 * item, and every other object keeps its line), named through dracel_objects_keys, refused in
 * the store with the reason and logged. A file that cannot be cut (one YAML List) or whose
 * rest still fails is rejected whole, as before. */

typedef struct piece {
    size_t off, len;
    uint32_t line;               /* of its first byte */
} piece;

#define MAX_PIECES 100000

static uint32_t lines_to(const char *buf, size_t from, size_t to, uint32_t line)
{
    for (size_t i = from; i < to; i++)
        line += buf[i] == '\n';
    return line;
}

/* One more piece; false past MAX_PIECES or when memory runs out (*p freed then). */
static bool push_piece(piece **p, size_t *n, size_t *cap, piece x)
{
    if (*n == MAX_PIECES) {
        free(*p);
        return false;
    }
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        piece *np = realloc(*p, c * sizeof *np);
        if (!np) {
            free(*p);
            return false;
        }
        *p = np;
        *cap = c;
    }
    (*p)[(*n)++] = x;
    return true;
}

/* The pieces of buf; 0 when it cannot be cut (or memory ran out). *json: they are JSON items;
 * *list: the span of their List's kind (len 0: none, or a bare array). */
static size_t cut(const char *buf, size_t len, piece **out, bool *json, js_span *list)
{
    *out = NULL;
    *json = false;
    *list = (js_span){0, 0};
    size_t i = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    size_t n = 0, cap = 0;
    piece *p = NULL;
    if (i < len && (buf[i] == '{' || buf[i] == '[')) {
        *json = true;
        size_t pos = i;
        js_span root, items = {0, 0}, kind = {0, 0};
        if (js_value(buf, len, &pos, &root) != 0)
            return 0;
        if (buf[root.off] == '[') {
            items = root;
        } else {
            static const char *const keys[] = {"items", "kind"};
            js_span v[2];
            if (js_members(buf, root, keys, 2, v) != 0 || !v[0].len || buf[v[0].off] != '[')
                return 0;
            items = v[0];
            kind = *list = v[1];
            if (kind.len && (kind.len < 6 || memcmp(buf + kind.off + kind.len - 5, "List\"", 5) != 0))
                return 0;
        }
        js_iter it;
        js_span e;
        if (js_array_begin(buf, items, &it) != 0)
            return 0;
        uint32_t line = 1;
        size_t at = 0;
        while (js_array_next(buf, &it, &e) == 1) {
            line = lines_to(buf, at, e.off, line);
            at = e.off;
            if (!push_piece(&p, &n, &cap, (piece){e.off, e.len, line}))
                return 0;
        }
    } else {
        /* YAML: a document starts at each line "---" (followed by a blank or the line's end) */
        size_t start = 0;
        uint32_t line = 1, sline = 1;
        for (size_t k = 0; k <= len; k++) {
            bool bol = k == 0 || buf[k - 1] == '\n';
            bool marker = k < len && bol && len - k >= 3 && memcmp(buf + k, "---", 3) == 0 &&
                          (k + 3 == len || buf[k + 3] == ' ' || buf[k + 3] == '\t' ||
                           buf[k + 3] == '\r' || buf[k + 3] == '\n');
            if (k == len || (marker && k > 0)) {
                if (!push_piece(&p, &n, &cap, (piece){start, k - start, sline}))
                    return 0;
                start = k;
                sline = line;
            }
            if (k < len && buf[k] == '\n')
                line++;
        }
    }
    *out = p;
    return n;
}

typedef struct refuse_ctx {
    dirsrc *d;
    const char *path, *why;
    size_t named;
} refuse_ctx;

static int refuse_key(void *ctx, const dracel_object_info *k)
{
    refuse_ctx *r = ctx;
    dirsrc *d = r->d;
    unsigned kind = k->kind_bit;
    r->named++;
    log_line(LOG_ERROR, "an object was refused and is left out", "file", r->path, "kind",
             k->kind, "namespace", k->ns ? k->ns : "", "name", k->name ? k->name : "", "error",
             r->why, NULL);
    if (!kind || !k->name)
        return 0;
    store_refuse(d->st, kind, k->ns, k->name, NULL, r->why);
    if (d->nrefused == d->cap_refused) {
        size_t cap = d->cap_refused ? 2 * d->cap_refused : 16;
        frefused *n = realloc(d->refused, cap * sizeof *n);
        if (!n)
            return 0;
        d->refused = n;
        d->cap_refused = cap;
    }
    frefused *f = &d->refused[d->nrefused];
    f->path = strdup(r->path);
    f->kind = kind;
    f->ns = k->ns ? strdup(k->ns) : NULL;
    f->name = strdup(k->name);
    if (f->path && f->name && (!k->ns || f->ns)) {
        d->nrefused++;
    } else {
        free(f->path);
        free(f->ns);
        free(f->name);
    }
    return 0;
}

/* The objects of path that were left out are forgiven (the file loads again, or is gone). */
static void forget_refused(dirsrc *d, const char *path)
{
    for (size_t i = 0; i < d->nrefused;) {
        frefused *f = &d->refused[i];
        if (strcmp(f->path, path) != 0) {
            i++;
            continue;
        }
        store_unrefuse(d->st, f->kind, f->ns, f->name);
        free(f->path);
        free(f->ns);
        free(f->name);
        *f = d->refused[--d->nrefused];
    }
}

/* "check:LINE: REST" of a piece checked alone as "PATH:LINE': REST", LINE' its line in the file. */
static void file_message(char *out, size_t cap, const char *path, uint32_t first,
                         const char *msg)
{
    unsigned long line;
    char *end;
    if (strncmp(msg, "check:", 6) == 0 && (line = strtoul(msg + 6, &end, 10)) > 0 &&
        *end == ':')
        snprintf(out, cap, "%s:%lu:%s", path, line + first - 1, end + 1);
    else if (strncmp(msg, "check: ", 7) == 0)
        snprintf(out, cap, "%s:%u: %s", path, first, msg + 7);
    else
        snprintf(out, cap, "%s:%u: %s", path, first, msg);
}

/* A file the store rejected: its bad objects left out. DRACEL_OK when the rest was taken
 * (*left_out of them refused); else the file is rejected whole (err as it was). */
static dracel_status isolate(dirsrc *d, const char *path, char *buf, size_t len,
                             size_t *left_out, char *err, size_t errcap)
{
    *left_out = 0;
    piece *p;
    bool json;
    js_span list;
    size_t n = cut(buf, len, &p, &json, &list);
    if (!n)
        return DRACEL_EINPUT;
    bool *bad = calloc(n, sizeof *bad);
    char **msgs = calloc(n, sizeof *msgs);
    char msg[2048], why[2300];
    /* an item of a typed List is checked inside a List of that kind, on the same line (its
     * kind may come from the List's) */
    char *wrap = NULL;
    size_t wcap = 0;
    if (!bad || !msgs) {
        free(bad);
        free(msgs);
        free(p);
        return DRACEL_ENOMEM;
    }
    size_t nbad = 0;
    for (size_t i = 0; i < n; i++) {
        const char *text = buf + p[i].off;
        size_t tlen = p[i].len;
        if (list.len) {
            size_t need = list.len + p[i].len + 64;
            if (need > wcap) {
                char *w = realloc(wrap, need);
                if (!w) {
                    nbad = n + 1;
                    break;
                }
                wrap = w;
                wcap = need;
            }
            int h = snprintf(wrap, wcap, "{\"kind\":%.*s,\"items\":[", (int)list.len,
                             buf + list.off);
            memcpy(wrap + h, text, tlen);
            memcpy(wrap + h + tlen, "]}", 2);
            text = wrap;
            tlen += (size_t)h + 2;
        }
        if (store_check(d->st, text, tlen, ALL_KINDS, msg, sizeof msg) != DRACEL_EINPUT)
            continue;
        bad[i] = true;
        nbad++;
        if (!(msgs[i] = strdup(msg)) || (json && p[i].len < 4)) /* too short for a null */
            nbad = n + 1;
    }
    free(wrap);
    /* every piece refused alone though the file names more than one: not one object's
     * fault (a key given twice, a context the pieces lack): the file whole */
    if (!nbad || (nbad >= n && n > 1) || nbad > n) {
        for (size_t i = 0; i < n; i++)
            free(msgs[i]);
        free(msgs);
        free(bad);
        free(p);
        return DRACEL_EINPUT;
    }
    forget_refused(d, path); /* this version's refusals replace the last one's */
    for (size_t i = 0; i < n; i++) {
        if (!bad[i])
            continue;
        file_message(why, sizeof why, path, p[i].line, msgs[i]);
        refuse_ctx r = {d, path, why, 0};
        if (dracel_objects_keys(NULL, path, buf + p[i].off, p[i].len, refuse_key, &r, NULL, 0) !=
                DRACEL_OK ||
            !r.named)
            log_line(LOG_ERROR, "a document that names no object was left out", "file", path,
                     "#line", (int64_t)p[i].line, "error", why, NULL);
        (*left_out)++;
    }
    /* the bad ones become nulls of the same lines: "null" then blanks, newlines kept (a YAML
     * document: its `---` line stays, the rest blank) */
    for (size_t i = 0; i < n; i++) {
        if (!bad[i])
            continue;
        size_t k = p[i].off, end = p[i].off + p[i].len;
        if (!json && end - k >= 3 && memcmp(buf + k, "---", 3) == 0)
            k += 3; /* the marker stays: the document is there, empty */
        bool wrote = false;
        for (; k < end; k++) {
            if (buf[k] == '\n')
                continue;
            if (json && !wrote && end - k >= 4) {
                memcpy(buf + k, "null", 4);
                k += 3;
                wrote = true;
                continue;
            }
            buf[k] = ' ';
        }
    }
    for (size_t i = 0; i < n; i++)
        free(msgs[i]);
    free(msgs);
    free(bad);
    free(p);
    return store_set_source(d->st, path, buf, len, ALL_KINDS, err, errcap);
}

/* (Re)load one file as its own source; a file that is gone removes its objects. */
static void load_file(dirsrc *d, const char *path)
{
    size_t len = 0;
    char *buf = slurp(path, &len);
    char err[2048];
    if (!buf) {
        if (errno != ENOENT) {
            log_line(LOG_ERROR, "cannot read an objects file", "file", path, "error",
                     strerror(errno), NULL);
            metrics_add(&m_files, "result=\"rejected\"", 1);
            return;
        }
        if (store_set_source(d->st, path, "", 0, ALL_KINDS, err, sizeof err) == DRACEL_OK)
            metrics_add(&m_files, "result=\"removed\"", 1);
        forget_refused(d, path);
        track(d, path, false);
        log_line(LOG_INFO, "objects file removed", "file", path, NULL);
        return;
    }
    dracel_status st = store_set_source(d->st, path, buf, len, ALL_KINDS, err, sizeof err);
    size_t left_out = 0;
    if (st == DRACEL_OK)
        forget_refused(d, path);
    if (st == DRACEL_EINPUT) {
        char err2[2048];
        if (isolate(d, path, buf, len, &left_out, err2, sizeof err2) == DRACEL_OK)
            st = DRACEL_OK;
        else
            forget_refused(d, path);
    }
    free(buf);
    track(d, path, true);
    if (st == DRACEL_OK && left_out) {
        metrics_add(&m_files, "result=\"partial\"", 1);
        log_line(LOG_ERROR, "objects file loaded without the objects refused", "file", path,
                 "#refused", (int64_t)left_out, NULL);
    } else if (st == DRACEL_OK) {
        metrics_add(&m_files, "result=\"ok\"", 1);
        log_line(LOG_DEBUG, "objects file loaded", "file", path, NULL);
    } else {
        metrics_add(&m_files, "result=\"rejected\"", 1);
        log_line(LOG_ERROR, "objects file rejected: its objects are kept as they were", "file",
                 path, "error", err, NULL);
    }
}

static bool add_watch(dirsrc *d, const char *path, bool scanned)
{
    int wd = inotify_add_watch(d->fd, path, WATCH_MASK);
    if (wd < 0) {
        log_line(LOG_ERROR, "cannot watch a directory", "dir", path, "error", strerror(errno),
                 NULL);
        return false;
    }
    for (size_t i = 0; i < d->ndirs; i++)
        if (d->dirs[i].wd == wd) {
            d->dirs[i].scanned |= scanned;
            return true;
        }
    if (d->ndirs == d->cap_dirs) {
        size_t cap = d->cap_dirs ? d->cap_dirs * 2 : 16;
        wdir *n = realloc(d->dirs, cap * sizeof *n);
        if (!n)
            return false;
        d->dirs = n;
        d->cap_dirs = cap;
    }
    char *p = strdup(path);
    if (!p)
        return false;
    d->dirs[d->ndirs].wd = wd;
    d->dirs[d->ndirs].path = p;
    d->dirs[d->ndirs].scanned = scanned;
    d->ndirs++;
    return true;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Watch a directory and load what is in it, subdirectories included, in name order. */
static void scan_dir(dirsrc *d, const char *path, int depth)
{
    if (depth > 32 || !add_watch(d, path, true))
        return;
    DIR *dir = opendir(path);
    if (!dir)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(dir);
    qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", path, names[i]);
        struct stat sb;
        if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode))
            scan_dir(d, full, depth + 1);
        else if (object_file(names[i]))
            load_file(d, full);
        free(names[i]);
    }
    free(names);
}

static const char *dir_of(const dirsrc *d, int wd)
{
    for (size_t i = 0; i < d->ndirs; i++)
        if (d->dirs[i].wd == wd)
            return d->dirs[i].path;
    return NULL;
}

static bool is_root_file(const dirsrc *d, const char *path)
{
    for (size_t i = 0; i < d->nroots; i++)
        if (strcmp(d->roots[i], path) == 0)
            return true;
    return false;
}

static bool dir_is_scanned(const dirsrc *d, const char *dir)
{
    for (size_t i = 0; i < d->ndirs; i++)
        if (strcmp(d->dirs[i].path, dir) == 0)
            return d->dirs[i].scanned;
    return false;
}

static void *watch_main(void *arg)
{
    dirsrc *d = arg;
    char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        struct pollfd p[2] = {{d->fd, POLLIN, 0}, {d->wake[0], POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents)
            break;
        /* Gather the paths of a burst (until a 20 ms quiet period), then load each once. */
        char **paths = NULL;
        size_t n = 0, cap = 0;
        for (int quiet = 0; !quiet;) {
            ssize_t r = read(d->fd, buf, sizeof buf);
            if (r <= 0) {
                if (r < 0 && errno != EAGAIN && errno != EINTR)
                    break;
            }
            for (ssize_t off = 0; r > 0 && off < r;) {
                const struct inotify_event *e = (const struct inotify_event *)(buf + off);
                off += (ssize_t)(sizeof *e + e->len);
                const char *dir = dir_of(d, e->wd);
                if (!dir || !e->len)
                    continue;
                char full[PATH_MAX];
                snprintf(full, sizeof full, "%s/%s", dir, e->name);
                if (e->mask & IN_ISDIR) {
                    if ((e->mask & (IN_CREATE | IN_MOVED_TO)) && e->name[0] != '.' &&
                        dir_is_scanned(d, dir))
                        scan_dir(d, full, 1);
                    if (e->mask & (IN_MOVED_FROM | IN_DELETE)) {
                        /* A directory moved away: its files' objects go with it. */
                        size_t fl = strlen(full);
                        for (size_t i = 0; i < d->nfiles;) {
                            if (strncmp(d->files[i], full, fl) == 0 && d->files[i][fl] == '/') {
                                char *gone = d->files[i];
                                char errbuf[256];
                                store_set_source(d->st, gone, "", 0, ALL_KINDS, errbuf,
                                                 sizeof errbuf);
                                d->files[i] = d->files[--d->nfiles];
                                free(gone);
                            } else {
                                i++;
                            }
                        }
                    }
                    continue;
                }
                if (!object_file(e->name) || (!dir_is_scanned(d, dir) && !is_root_file(d, full)))
                    continue;
                bool seen = false;
                for (size_t i = 0; i < n && !seen; i++)
                    seen = strcmp(paths[i], full) == 0;
                if (seen)
                    continue;
                if (n == cap) {
                    cap = cap ? cap * 2 : 16;
                    char **np = realloc(paths, cap * sizeof *np);
                    if (!np)
                        continue;
                    paths = np;
                }
                if ((paths[n] = strdup(full)) != NULL)
                    n++;
            }
            struct pollfd q = {d->fd, POLLIN, 0};
            quiet = poll(&q, 1, 20) <= 0;
        }
        for (size_t i = 0; i < n; i++) {
            load_file(d, paths[i]);
            free(paths[i]);
        }
        free(paths);
    }
    return NULL;
}

dirsrc *dirsrc_start(store *st, const char *const *paths, size_t n, char *err, size_t errcap)
{
    dirsrc *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    d->st = st;
    d->wake[0] = d->wake[1] = -1;
    d->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    d->roots = calloc(n ? n : 1, sizeof *d->roots);
    if (d->fd < 0 || pipe(d->wake) != 0 || !d->roots) {
        snprintf(err, errcap, "cannot watch files: %s", strerror(errno));
        dirsrc_stop(d);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) != 0) {
            snprintf(err, errcap, "--objects %s: %s", paths[i], strerror(errno));
            dirsrc_stop(d);
            return NULL;
        }
        if (S_ISDIR(sb.st_mode)) {
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s", paths[i]);
            size_t l = strlen(p);
            while (l > 1 && p[l - 1] == '/')
                p[--l] = '\0';
            scan_dir(d, p, 0);
        } else {
            /* A file: loaded, and watched through its directory. */
            if (!(d->roots[d->nroots] = strdup(paths[i]))) {
                snprintf(err, errcap, "out of memory");
                dirsrc_stop(d);
                return NULL;
            }
            d->nroots++;
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s", paths[i]);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            else
                snprintf(dir, sizeof dir, ".");
            add_watch(d, dir, false);
            load_file(d, paths[i]);
        }
    }
    if (pthread_create(&d->thread, NULL, watch_main, d) != 0) {
        snprintf(err, errcap, "cannot start the watch thread");
        dirsrc_stop(d);
        return NULL;
    }
    d->running = true;
    store_source_synced(st);
    return d;
}

void dirsrc_stop(dirsrc *d)
{
    if (!d)
        return;
    if (d->running) {
        (void)!write(d->wake[1], "x", 1);
        pthread_join(d->thread, NULL);
    }
    if (d->fd >= 0)
        close(d->fd);
    if (d->wake[0] >= 0)
        close(d->wake[0]);
    if (d->wake[1] >= 0)
        close(d->wake[1]);
    for (size_t i = 0; i < d->ndirs; i++)
        free(d->dirs[i].path);
    free(d->dirs);
    for (size_t i = 0; i < d->nroots; i++)
        free(d->roots[i]);
    free(d->roots);
    for (size_t i = 0; i < d->nfiles; i++)
        free(d->files[i]);
    free(d->files);
    for (size_t i = 0; i < d->nrefused; i++) {
        free(d->refused[i].path);
        free(d->refused[i].ns);
        free(d->refused[i].name);
    }
    free(d->refused);
    free(d);
}
