/*
 * parse.h: the parser's state and entry point. The grammar is grammar/parser.y (Bison, pure,
 * with byte-offset locations); this header is what the rest of the library sees of it.
 */
#ifndef DC_PARSE_H
#define DC_PARSE_H

#include "ast.h"
#include "lex.h"

/* Growable arrays in the compile arena, for the parser's lists. */
typedef struct dc_nodevec {
    dc_ast **v;
    bool *opt;      /* allocated on the first optional element */
    uint32_t n, cap;
} dc_nodevec;

typedef struct dc_entryvec {
    dc_entry *v;
    uint32_t n, cap;
} dc_entryvec;

/* The operands and operator positions of a chain of one logical operator (a && b && c). */
typedef struct dc_chain {
    dc_ast **t;
    uint32_t *op;   /* op[i] is the position of the operator between t[i] and t[i + 1] */
    uint32_t n, cap;
} dc_chain;

typedef struct dc_parser {
    dc_lexer lx;
    dc_ast_ctx ast;
    const dracel_config *cfg;
    dc_ast *result;
    uint32_t depth;       /* open brackets: ( [ { */
    dc_token peek;        /* one token of lookahead, for signed literals */
    bool have_peek;
    int prev;             /* kind of the previous token, -1 at the start */
    bool prev_unary_minus;
} dc_parser;

/**
 * Parse @p src (@p len bytes) into an AST in @p arena; diagnostics go to @p diags (which gets a
 * copy of the source). Enforces the source length, UTF-8 validity, depth and node limits.
 * @return DRACEL_OK with *out set, DRACEL_EINPUT (errors reported), DRACEL_ENOMEM.
 */
dracel_status dc_parse(const dracel_config *cfg, dc_arena *arena, dc_diags *diags,
                       const char *src, size_t len, dc_ast **out) DC_WUR;

#endif
