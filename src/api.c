/*
 * api.c: the public entry points that are not owned by one module: version, configuration,
 * strings, and the parse-and-print call behind `dra-celc parse`.
 */
#include "parse.h"

#include <string.h>

const char *dracel_version(void)
{
    return DRACEL_VERSION_STRING;
}

void dracel_config_init(dracel_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->alloc = NULL;
    cfg->max_source_bytes = DRACEL_DEFAULT_MAX_SOURCE_BYTES;
    cfg->max_depth = DRACEL_DEFAULT_MAX_DEPTH;
    cfg->max_nodes = DRACEL_DEFAULT_MAX_NODES;
    cfg->max_errors = DRACEL_DEFAULT_MAX_ERRORS;
    cfg->cost_limit = DRACEL_DEFAULT_COST_LIMIT;
    cfg->eval_memory_limit = DRACEL_DEFAULT_EVAL_MEMORY;
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
    const dracel_alloc *a = dc_alloc_of(cfg);
    dc_diags *d = dc_diags_new(a, cfg ? cfg->max_errors : 0);
    if (!d)
        return DRACEL_ENOMEM;
    dc_arena arena;
    dc_arena_init(&arena, a);
    dc_ast *ast = NULL;
    dracel_status st = dc_parse(cfg, &arena, d, src ? src : "", len, &ast);
    if (st == DRACEL_OK) {
        dc_buf b;
        dc_buf_init(&b, a);
        dc_ast_print(&b, ast);
        *out_sexpr = dc_buf_take(&b);
        if (!*out_sexpr)
            st = DRACEL_ENOMEM;
    }
    dc_arena_free(&arena);
    if (st == DRACEL_ENOMEM) {
        dracel_diags_free(d);
        return st;
    }
    dc_diags_sort(d);
    *out_diags = d;
    return st;
}
