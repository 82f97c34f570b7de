/*
 * files.c: reading the files dra-celc is given directly, with one size cap (files.h). The
 * library reads ResourceSlices, objects and scenarios itself, with the same cap.
 */
#define _POSIX_C_SOURCE 200809L

#include "files.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char prog[] = "dra-celc";

char *celc_read_file(const char *path, size_t max, size_t *len, int *oom)
{
    *oom = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        if (errno == ENOMEM) {
            *oom = 1;
            fprintf(stderr, "%s: out of memory\n", prog);
        } else {
            fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        }
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "%s: %s: is a directory\n", prog, path);
            goto fail;
        }
        if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) {
            fprintf(stderr, "%s: %s: file larger than %zu bytes (%lld)\n", prog, path, max,
                    (long long)st.st_size);
            goto fail;
        }
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap > max + 1) {
                /* a file whose size was not known (a pipe, a device) passed the cap */
                fprintf(stderr, "%s: %s: file larger than %zu bytes\n", prog, path, max);
                free(buf);
                goto fail;
            }
            size_t nc = cap * 2 > max + 2 ? max + 2 : cap * 2;
            char *nb = realloc(buf, nc);
            if (!nb)
                break;
            buf = nb;
            cap = nc;
        }
        size_t k = fread(buf + n, 1, cap - 1 - n, f);
        n += k;
        if (k == 0) {
            if (ferror(f)) {
                fprintf(stderr, "%s: cannot read %s: %s\n", prog, path, strerror(errno));
                free(buf);
                goto fail;
            }
            if (n > max) {
                fprintf(stderr, "%s: %s: file larger than %zu bytes\n", prog, path, max);
                free(buf);
                goto fail;
            }
            buf[n] = '\0';
            if (!is_stdin)
                fclose(f);
            *len = n;
            return buf;
        }
    }
    free(buf);
    *oom = 1;
    fprintf(stderr, "%s: out of memory\n", prog);
fail:
    if (!is_stdin)
        fclose(f);
    return NULL;
}
