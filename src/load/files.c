/*
 * load/files.c: where the loader's text comes from: buffers, files (regular files only, the
 * size cap checked before reading), directories (sorted, recursively when asked); the loader's
 * set-up and teardown; the public entry points of src/slices.h. A text is JSON when its first
 * non-blank character is `{` or `[` (src/load/json.c), else YAML (src/load/yaml.c).
 *
 * Change with: src/ldint.h, src/slices.h, src/slices.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "ldint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Buffers, files, directories
 */

/* buf[len] is '\0'. */
static dracel_status load_text(dc_ld *c, const char *buf, size_t len)
{
    if (len > c->max_bytes)
        return dc_ld_fail(c, 0, "%zu bytes, more than the limit of %zu", len, c->max_bytes);
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    size_t j = i;
    while (j < len && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\r' || buf[j] == '\n'))
        j++;
    dracel_status st;
    if (c->json_only || (j < len && (buf[j] == '{' || buf[j] == '['))) {
        /* a BOM holds no newline: skipping it keeps the line numbers */
        st = dc_ld_load_json(c, buf + i, len - i);
    } else {
        st = dc_ld_load_yaml(c, buf, len);
    }
    dc_arena_free(&c->doc);
    return st;
}

static dracel_status set_file(dc_ld *c, const char *name)
{
    c->file = name;
    char *p = dc_arena_strndup(&c->s->arena, name, strlen(name));
    if (!p)
        return dc_ld_oom(c);
    c->file = p;
    return DRACEL_OK;
}

/* read(2), not stdio: fopen allocates its FILE and buffer with malloc, past the hook. */
static dracel_status load_file(dc_ld *c, const char *path)
{
    c->file = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return dc_ld_io_fail(c, path, "cannot open", errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return dc_ld_io_fail(c, path, "cannot stat", e);
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > c->max_bytes) {
        close(fd);
        return dc_ld_fail(c, 0, "%llu bytes, more than the limit of %zu",
                          (unsigned long long)st.st_size, c->max_bytes);
    }
    size_t size = (size_t)st.st_size, cap = size + 1, got = 0;
    char *buf = dc_malloc(c->a, cap);
    if (!buf) {
        close(fd);
        return dc_ld_oom(c);
    }
    int rerr = 0;
    while (got < size) {
        ssize_t k = read(fd, buf + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            rerr = k < 0 ? errno : EIO; /* an error, or a file that shrank */
            break;
        }
        got += (size_t)k;
    }
    close(fd);
    if (rerr) {
        dc_free(c->a, buf, cap);
        return dc_ld_io_fail(c, path, "read error", rerr);
    }
    buf[got] = '\0';
    dracel_status s = set_file(c, path);
    if (s == DRACEL_OK)
        s = load_text(c, buf, got);
    dc_free(c->a, buf, cap);
    return s;
}

static bool wanted_name(const char *n)
{
    size_t l = strlen(n);
    return (l >= 5 && strcmp(n + l - 5, ".json") == 0) ||
           (l >= 5 && strcmp(n + l - 5, ".yaml") == 0) || (l >= 4 && strcmp(n + l - 4, ".yml") == 0);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static dracel_status load_dir(dc_ld *c, const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return dc_ld_io_fail(c, path, "cannot open directory", errno);
    char **names = NULL;
    size_t n = 0, cap = 0;
    dracel_status st = DRACEL_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!wanted_name(de->d_name))
            continue;
        size_t l = strlen(de->d_name) + 1;
        char *copy = dc_malloc(c->a, l);
        if (!copy || !dc_ld_grow(c->a, (void **)&names, &cap, n + 1, sizeof *names)) {
            dc_free(c->a, copy, l);
            st = dc_ld_oom(c);
            break;
        }
        memcpy(copy, de->d_name, l);
        names[n++] = copy;
    }
    closedir(d);
    if (st == DRACEL_OK && n > 1)
        dc_sort(names, n, sizeof *names, cmp_names);
    size_t plen = strlen(path);
    bool slash = plen > 0 && path[plen - 1] == '/';
    for (size_t i = 0; i < n && st == DRACEL_OK; i++) {
        size_t fl = plen + (slash ? 0 : 1) + strlen(names[i]) + 1;
        char *full = dc_malloc(c->a, fl);
        if (!full) {
            st = dc_ld_oom(c);
            break;
        }
        snprintf(full, fl, "%s%s%s", path, slash ? "" : "/", names[i]);
        struct stat sb;
        if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode))
            st = load_file(c, full);
        dc_free(c->a, full, fl);
    }
    for (size_t i = 0; i < n; i++)
        dc_free(c->a, names[i], strlen(names[i]) + 1);
    dc_free(c->a, names, cap * sizeof *names);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Public functions
 */

void dc_slices_limits_default(dc_slices_limits *lim)
{
    lim->max_file_bytes = DC_SLICES_DEFAULT_MAX_FILE_BYTES;
    lim->max_objects = DC_SLICES_DEFAULT_MAX_OBJECTS;
    lim->max_depth = DC_SLICES_DEFAULT_MAX_DEPTH;
}

void dc_slice_set_init(dc_slice_set *s, const dracel_alloc *a)
{
    memset(s, 0, sizeof *s);
    dc_arena_init(&s->arena, a ? a : &dc_default_alloc);
}

void dc_slice_set_free(dc_slice_set *s)
{
    const dracel_alloc *a = s->arena.alloc;
    dc_arena_free(&s->arena);
    memset(s, 0, sizeof *s);
    dc_arena_init(&s->arena, a);
}

void dc_ld_init(dc_ld *c, dc_slice_set *s, const dc_slices_limits *lim, char *err,
                       size_t errcap)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->a = s->arena.alloc ? s->arena.alloc : &dc_default_alloc;
    c->err = err;
    c->errcap = err ? errcap : 0;
    c->max_bytes = lim && lim->max_file_bytes ? lim->max_file_bytes
                                               : DC_SLICES_DEFAULT_MAX_FILE_BYTES;
    if (c->max_bytes > (size_t)UINT32_MAX - 1)
        c->max_bytes = (size_t)UINT32_MAX - 1;
    c->max_objects = lim && lim->max_objects ? lim->max_objects : DC_SLICES_DEFAULT_MAX_OBJECTS;
    c->max_depth = lim && lim->max_depth ? lim->max_depth : DC_SLICES_DEFAULT_MAX_DEPTH;
    if (c->max_depth > DC_LD_HARD_DEPTH)
        c->max_depth = DC_LD_HARD_DEPTH;
    dc_arena_init(&c->doc, c->a);
    if (err && errcap)
        err[0] = '\0';
}

void dc_ld_free(dc_ld *c)
{
    dc_arena_free(&c->doc);
    dc_free(c->a, c->scr, c->capscr * sizeof *c->scr);
    dc_free(c->a, c->fr, c->capfr * sizeof *c->fr);
    dc_free(c->a, c->jv, c->capjv * sizeof *c->jv);
    dc_free(c->a, c->jk, c->capjk * sizeof *c->jk);
    dc_free(c->a, c->it, c->capit * sizeof *c->it);
}

/* A file, or (when dirs) a directory of files. */
dracel_status dc_ld_load_path(dc_ld *c, const char *path, bool dirs)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return dc_ld_io_fail(c, path, "cannot open", errno);
    if (S_ISDIR(sb.st_mode))
        return dirs ? load_dir(c, path) : dc_ld_io_fail(c, path, "not a regular file", EISDIR);
    if (S_ISREG(sb.st_mode))
        return load_file(c, path);
    return dc_ld_io_fail(c, path, "not a regular file or directory", EINVAL);
}

dracel_status dc_ld_load_buffer(dc_ld *c, const char *name, const char *buf, size_t len)
{
    c->file = name ? name : "<input>";
    if (len > c->max_bytes)
        return dc_ld_fail(c, 0, "%zu bytes, more than the limit of %zu", len, c->max_bytes);
    char *copy = dc_malloc(c->a, len + 1);
    if (!copy)
        return dc_ld_oom(c);
    if (len)
        memcpy(copy, buf, len);
    copy[len] = '\0';
    dracel_status st = set_file(c, c->file);
    if (st == DRACEL_OK)
        st = load_text(c, copy, len);
    dc_free(c->a, copy, len + 1);
    return st;
}

dracel_status dc_slices_load(dc_slice_set *s, const char *path, const dc_slices_limits *lim,
                             char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!s || !path)
        return DRACEL_EINVAL;
    dc_ld c;
    dc_ld_init(&c, s, lim, err, errcap);
    uint32_t n0 = s->n, nn0 = s->nnotes, nr0 = s->nrules;
    dracel_status st = dc_ld_load_path(&c, path, true);
    dc_ld_free(&c);
    if (st != DRACEL_OK) {
        s->n = n0;
        s->nnotes = nn0;
        s->nrules = nr0;
    }
    return st;
}

dracel_status dc_slices_load_buffer(dc_slice_set *s, const char *name, const char *buf,
                                    size_t len, const dc_slices_limits *lim, char *err,
                                    size_t errcap)
{
    if (err && errcap)
        err[0] = '\0';
    if (!s || (!buf && len))
        return DRACEL_EINVAL;
    dc_ld c;
    dc_ld_init(&c, s, lim, err, errcap);
    uint32_t n0 = s->n, nn0 = s->nnotes, nr0 = s->nrules;
    dracel_status st = dc_ld_load_buffer(&c, name, buf, len);
    dc_ld_free(&c);
    if (st != DRACEL_OK) {
        s->n = n0;
        s->nnotes = nn0;
        s->nrules = nr0;
    }
    return st;
}
