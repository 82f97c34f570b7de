/*
 * api.c: the public entry points that are not owned by one module: version, configuration,
 * strings, and the parse-and-print call behind `dra-celc parse`.
 */
#include "apiint.h"
#include "parse.h"

#include <string.h>

const char *dracel_version(void)
{
    return DRACEL_VERSION_STRING;
}

unsigned long dracel_version_number(void)
{
    return DRACEL_VERSION_HEX;
}

const char *dracel_status_string(dracel_status st)
{
    switch (st) {
    case DRACEL_OK: return "success";
    case DRACEL_EINPUT: return "the input was read and rejected";
    case DRACEL_ENOMEM: return "out of memory";
    case DRACEL_EINVAL: return "invalid argument";
    case DRACEL_ELIMIT: return "a configured limit was exceeded";
    }
    return "unknown status";
}

dracel_status dc_struct_read(void *dst, size_t dst_size, const void *src, size_t src_size,
                             size_t min_size)
{
    if (src_size < min_size)
        return DRACEL_EINVAL;
    if (src_size > dst_size) {
        /* a newer caller: what this library does not know must be left at zero */
        const unsigned char *extra = (const unsigned char *)src + dst_size;
        for (size_t i = 0; i < src_size - dst_size; i++)
            if (extra[i])
                return DRACEL_EINVAL;
        src_size = dst_size;
    }
    memcpy(dst, src, src_size);
    return DRACEL_OK;
}

dracel_status dc_struct_write(void *dst, size_t dst_size, const void *src, size_t src_size,
                              size_t min_size)
{
    if (dst_size < min_size)
        return DRACEL_EINVAL;
    if (dst_size > src_size) {
        /* a newer caller: the fields this library does not have read as zero */
        memset((char *)dst + src_size, 0, dst_size - src_size);
        dst_size = src_size;
    }
    memcpy(dst, src, dst_size);
    return DRACEL_OK;
}

dracel_status dc_config_read(const dracel_config *in, dracel_config *out)
{
    dracel_config_init(out);
    if (!in)
        return DRACEL_OK;
    DC_TRY(dc_struct_read(out, sizeof *out, in, in->size, DC_CONFIG_SIZE_V1));
    out->size = sizeof *out;
    return DRACEL_OK;
}

void dracel_config_init_size(dracel_config *cfg, size_t size)
{
    if (!cfg || size < DC_CONFIG_SIZE_V1)
        return;
    dracel_config d;
    memset(&d, 0, sizeof d);
    d.alloc = NULL;
    d.max_source_bytes = DRACEL_DEFAULT_MAX_SOURCE_BYTES;
    d.max_depth = DRACEL_DEFAULT_MAX_DEPTH;
    d.max_nodes = DRACEL_DEFAULT_MAX_NODES;
    d.max_errors = DRACEL_DEFAULT_MAX_ERRORS;
    d.cost_limit = DRACEL_DEFAULT_COST_LIMIT;
    d.eval_memory_limit = DRACEL_DEFAULT_EVAL_MEMORY;
    d.max_diag_bytes = DRACEL_DEFAULT_MAX_DIAG_BYTES;
    /* Only the bytes the caller has: an older caller's struct is shorter, a newer caller's
     * extra fields stay zero, and `size` stays the caller's, so that a newer field set to
     * something this library cannot honour is refused (dc_struct_read). */
    memset(cfg, 0, size);
    memcpy(cfg, &d, size < sizeof d ? size : sizeof d);
    cfg->size = size;
}

void dracel_select_opts_init_size(dracel_select_opts *o, size_t size)
{
    if (!o || size < DC_SELECT_OPTS_SIZE_V1)
        return;
    memset(o, 0, size);
    o->size = size;
    o->vm = DRACEL_VM_VECTOR;
}

void dracel_free_string(const dracel_config *cfg, char *s)
{
    if (s)
        dc_free(dc_alloc_of(cfg), s, strlen(s) + 1);
}

dracel_status dracel_parse_sexpr(const dracel_config *cfg, const char *src, size_t len,
                                 char **out_sexpr, dracel_diags **out_diags)
{
    if (!out_sexpr || !out_diags || (!src && len))
        return DRACEL_EINVAL;
    *out_sexpr = NULL;
    *out_diags = NULL;
    dracel_config c;
    DC_TRY(dc_config_read(cfg, &c));
    const dracel_alloc *a = dc_alloc_of(&c);
    dc_diags *d = dc_diags_new(a, c.max_errors);
    if (!d)
        return DRACEL_ENOMEM;
    d->max_bytes = c.max_diag_bytes;
    dc_arena arena;
    dc_arena_init(&arena, a);
    dc_ast *ast = NULL;
    dracel_status st = dc_parse(&c, &arena, d, src ? src : "", len, &ast);
    if (st == DRACEL_OK) {
        dc_buf b;
        dc_buf_init(&b, a);
        dc_ast_print(&b, ast);
        *out_sexpr = dc_buf_take(&b);
        if (!*out_sexpr)
            st = DRACEL_ENOMEM;
    }
    dc_arena_free(&arena);
    if (d->oom && st != DRACEL_ENOMEM) {
        /* a diagnostic was lost: the answer would be incomplete */
        dracel_free_string(&c, *out_sexpr);
        *out_sexpr = NULL;
        st = DRACEL_ENOMEM;
    }
    if (st == DRACEL_ENOMEM) {
        dracel_diags_free(d);
        return st;
    }
    dc_diags_sort(d);
    *out_diags = d;
    return st;
}
