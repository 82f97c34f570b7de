/*
 * arena.c: the compile-time bump allocator. Chunks double in size up to 1 MiB; a request larger
 * than a chunk gets a chunk of its own.
 */
#include "arena.h"

#include <stdio.h>
#include <string.h>

struct dc_arena_chunk {
    dc_arena_chunk *next;
    size_t size; /* bytes of payload after the header */
    _Alignas(max_align_t) unsigned char data[];
};

#define ARENA_ALIGN (sizeof(max_align_t))
#define ARENA_FIRST 4096u
#define ARENA_MAX_CHUNK (1u << 20)

void dc_arena_init(dc_arena *a, const dracel_alloc *alloc)
{
    a->alloc = alloc;
    a->head = NULL;
    a->used = a->cap = 0;
    a->total = 0;
    a->served = 0;
    a->first = 0;
}

void dc_arena_init_sized(dc_arena *a, const dracel_alloc *alloc, size_t first)
{
    dc_arena_init(a, alloc);
    a->first = (first + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
}

void dc_arena_free(dc_arena *a)
{
    dc_arena_chunk *c = a->head;
    while (c) {
        dc_arena_chunk *next = c->next;
        dc_free(a->alloc, c, sizeof *c + c->size);
        c = next;
    }
    a->head = NULL;
    a->used = a->cap = 0;
    a->total = 0;
}

void dc_arena_reset(dc_arena *a)
{
    if (!a->head)
        return;
    dc_arena_chunk *keep = a->head;
    dc_arena_chunk *c = keep->next;
    while (c) {
        dc_arena_chunk *next = c->next;
        a->total -= sizeof *c + c->size;
        dc_free(a->alloc, c, sizeof *c + c->size);
        c = next;
    }
    keep->next = NULL;
    a->used = 0;
    a->cap = keep->size;
}

void *dc_arena_alloc(dc_arena *a, size_t n)
{
    if (n > SIZE_MAX / 2)
        return NULL;
    n = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    if (n == 0)
        n = ARENA_ALIGN;
    if (a->head && a->cap - a->used >= n) {
        void *p = a->head->data + a->used;
        a->used += n;
        a->served += n;
        return p;
    }
    size_t size = a->head ? a->head->size * 2 : a->first ? a->first : ARENA_FIRST;
    if (size > ARENA_MAX_CHUNK)
        size = ARENA_MAX_CHUNK;
    if (size < n)
        size = n;
    dc_arena_chunk *c = dc_malloc(a->alloc, sizeof *c + size);
    if (!c)
        return NULL;
    c->size = size;
    a->total += sizeof *c + size;
    a->served += n;
    if (a->head && size == n && a->cap - a->used > 256) {
        /* A big one-off request: keep bump-allocating from the current chunk. */
        c->next = a->head->next;
        a->head->next = c;
        return c->data;
    }
    c->next = a->head;
    a->head = c;
    a->used = n;
    a->cap = size;
    return c->data;
}

void *dc_arena_zalloc(dc_arena *a, size_t n)
{
    void *p = dc_arena_alloc(a, n);
    if (p)
        memset(p, 0, n);
    return p;
}

char *dc_arena_strndup(dc_arena *a, const char *s, size_t n)
{
    char *p = dc_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *dc_arena_vprintf(dc_arena *a, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *p = dc_arena_alloc(a, (size_t)n + 1);
    if (p)
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *dc_arena_printf(dc_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = dc_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}
