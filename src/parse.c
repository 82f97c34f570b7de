/*
 * parse.c: the front end's entry point: limits on the raw text, UTF-8 validation, then the
 * Bison parser over the re2c lexer. Everything it allocates lives in the caller's arena.
 */
#include "parse.h"

#include <string.h>

int dc_yyparse(dc_parser *p);

dracel_status dc_parse(const dracel_config *cfg, dc_arena *arena, dc_diags *diags,
                       const char *src, size_t len, dc_ast **out)
{
    dracel_config defaults;
    if (!cfg) {
        dracel_config_init(&defaults);
        cfg = &defaults;
    }
    size_t max_src = cfg->max_source_bytes;
    if (max_src == 0 || max_src > DRACEL_HARD_MAX_SOURCE_BYTES)
        max_src = DRACEL_HARD_MAX_SOURCE_BYTES;
    *out = NULL;
    /* Keep only what a diagnostic can show of an oversized input. */
    DC_TRY(dc_diags_set_source(diags, src, len > max_src ? max_src : len));
    if (len > max_src) {
        dc_limit_error(diags, dc_span(0, 0),
                       "expression size exceeds limit: size: %zu bytes, limit %zu", len, max_src);
        return DRACEL_ELIMIT;
    }
    /* NUL bytes pass: the lexer takes them inside literals and comments, as cel-go does, and
     * reports them anywhere else. */
    size_t bad = dc_utf8_check((const unsigned char *)src, len);
    while (bad < len && src[bad] == '\0')
        bad += 1 + dc_utf8_check((const unsigned char *)src + bad + 1, len - bad - 1);
    if (bad < len) {
        dc_error(diags, dc_span((uint32_t)bad, (uint32_t)bad + 1),
                 "invalid UTF-8 in source text (byte 0x%02x)", (unsigned char)src[bad]);
        return DRACEL_EINPUT;
    }
    char *copy = dc_arena_strndup(arena, src, len);
    if (!copy)
        return DRACEL_ENOMEM;

    dc_parser p;
    memset(&p, 0, sizeof p);
    p.cfg = cfg;
    p.prev = -1;
    p.ast.arena = arena;
    p.ast.diags = diags;
    p.ast.max_nodes = cfg->max_nodes ? cfg->max_nodes : DRACEL_DEFAULT_MAX_NODES;
    p.ast.max_depth = cfg->max_depth ? cfg->max_depth : DRACEL_DEFAULT_MAX_DEPTH;
    if (p.ast.max_depth > DRACEL_HARD_MAX_DEPTH)
        p.ast.max_depth = DRACEL_HARD_MAX_DEPTH;
    dc_lex_init(&p.lx, copy, len, arena, diags);

    int rc = dc_yyparse(&p);
    if (p.ast.oom || diags->oom)
        return DRACEL_ENOMEM;
    if (rc != 0 || diags->errors > 0 || !p.result)
        return diags->errors > 0 ? dc_diags_status(diags) : DRACEL_ENOMEM;
    *out = p.result;
    return DRACEL_OK;
}
