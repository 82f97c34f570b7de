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
#include "log.h"
#include "metrics.h"

#define MAX_FILE_BYTES ((size_t)64 << 20)
#define WATCH_MASK                                                                            \
    (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF |   \
     IN_MOVE_SELF)

static const metric_family m_files = {
    "dra_extender_objects_file_loads_total",
    "Loads of --objects files, by result (ok; rejected: the file's objects were kept as they "
    "were; removed).",
    METRIC_COUNTER, NULL, 0};

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
        track(d, path, false);
        log_line(LOG_INFO, "objects file removed", "file", path, NULL);
        return;
    }
    dracel_status st = store_set_source(d->st, path, buf, len, ALL_KINDS, err, sizeof err);
    free(buf);
    track(d, path, true);
    if (st == DRACEL_OK) {
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
    free(d);
}
