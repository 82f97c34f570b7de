/*
 * arena.h: a bump allocator for everything with the lifetime of one compilation (tokens, AST,
 * decoded literals, diagnostics). Freed all at once; no per-object free (PostgreSQL's memory
 * contexts, Lua's parser arenas). Chunks come from the dracel_alloc hook.
 */
#ifndef DC_ARENA_H
#define DC_ARENA_H

#include "common.h"

typedef struct dc_arena_chunk dc_arena_chunk;

typedef struct dc_arena {
    const dracel_alloc *alloc;
    dc_arena_chunk *head;
    size_t used, cap;   /* in the head chunk */
    size_t total;       /* bytes obtained from the hook, for tests and statistics */
    size_t served;      /* bytes handed out since init (resets do not lower it): what a
                           computation allocated is the difference across it */
    size_t first;       /* the size of the first chunk; 0: the default (4 KiB) */
} dc_arena;

void dc_arena_init(dc_arena *a, const dracel_alloc *alloc);
/** An arena whose first chunk holds @p first bytes: one allocation for objects whose size is
 *  known beforehand (measured with `served` on a copy made elsewhere). */
void dc_arena_init_sized(dc_arena *a, const dracel_alloc *alloc, size_t first);
/** Release every chunk. The arena can be reused after. */
void dc_arena_free(dc_arena *a);
/** Free every chunk but the newest and make it empty: memory is reused by the next user
 *  (the evaluation arena between evaluations). */
void dc_arena_reset(dc_arena *a);
/** @return @p n bytes aligned for any object, or NULL when the hook fails. */
void *dc_arena_alloc(dc_arena *a, size_t n);
/** Like dc_arena_alloc, zero-filled. */
void *dc_arena_zalloc(dc_arena *a, size_t n);
/** Copy s[0..n) and a NUL into the arena. */
char *dc_arena_strndup(dc_arena *a, const char *s, size_t n);
/** Formatted string in the arena. */
char *dc_arena_printf(dc_arena *a, const char *fmt, ...) DC_PRINTF(2, 3);
char *dc_arena_vprintf(dc_arena *a, const char *fmt, va_list ap);

#endif
