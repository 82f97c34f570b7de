/*
 * failmalloc.c: an LD_PRELOAD library for tests/cli-oom.sh. In a dra-celc process it counts the
 * allocation calls (malloc, calloc, realloc, posix_memalign, aligned_alloc) and makes the Nth
 * fail (FAILMALLOC_AT=N; 0 or unset: none), so that a test can fail each allocation of a whole
 * command in turn, the C library's, cJSON's and libyaml's included. At exit it writes the count
 * to the file FAILMALLOC_COUNT, when set.
 *
 * Allocations made for the C++ runtime (operator new: RE2's) are counted but never failed: RE2
 * crashes on a failed allocation instead of reporting it (docs/api.md, "Allocation"), which no
 * caller can repair. Other processes (the shell of libtool's wrapper script) are left alone.
 * FAILMALLOC_TRACE=1 prints the failing call's stack on stderr (to find what absorbed it).
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern char *program_invocation_short_name;

static int active;         /* this process is a dra-celc */
static long calls, fail_at;

__attribute__((constructor)) static void setup(void)
{
    const char *n = program_invocation_short_name;
    active = n && (strcmp(n, "dra-celc") == 0 || strcmp(n, "lt-dra-celc") == 0);
    const char *at = getenv("FAILMALLOC_AT");
    fail_at = at ? atol(at) : 0;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("FAILMALLOC_COUNT");
    if (!active || !path)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%ld\n", calls);
        fclose(f);
    }
}

/* Whether this call (its caller at @p ret) is the one to fail. */
static int fail_now(void *ret)
{
    if (!active)
        return 0;
    if (++calls != fail_at)
        return 0;
    Dl_info info;
    if (dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, "libstdc++"))
        return 0; /* operator new: RE2 cannot take a failure */
    if (getenv("FAILMALLOC_TRACE")) {
        void *frames[32];
        int k = backtrace(frames, 32);
        backtrace_symbols_fd(frames, k, 2);
    }
    return 1;
}

void *malloc(size_t n)
{
    if (fail_now(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    if (fail_now(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
    if (n && fail_now(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (fail_now(__builtin_return_address(0)))
        return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    if (fail_now(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_memalign(align, n);
}
