/*
 * lex.h: the CEL lexer (grammar/lexer.re, compiled by re2c). It turns source text into tokens,
 * decoding literals (escapes, numbers) as it goes. Lexical errors are reported to the diagnostics
 * list and the lexer always returns a usable token afterwards, so the parser can go on and report
 * further errors (as ANTLR does in cel-go). The token kinds are ours, not Bison's: the parser maps
 * them (grammar/parser.y, dc_yylex), so the lexer does not depend on the generated parser.
 *
 * Input contract: src[len] == '\0' (the caller passes an owned, NUL-terminated copy); the text has
 * been checked for invalid UTF-8 already (dc_utf8_check), but the lexer must still be memory-safe
 * on any bytes. A NUL byte is a character inside literals and comments (as in cel-go) and an
 * error ("NUL byte in source text") anywhere else. Change with: grammar/lexer.re, grammar/parser.y (token mapping),
 * tests/unit/test_lex.c, fuzz/cel.dict.
 */
#ifndef DC_LEX_H
#define DC_LEX_H

#include "diag.h"

#define DC_TOKENS(X)                \
    X(EOF, "end of input")          \
    X(IDENT, "identifier")          \
    X(QIDENT, "quoted identifier")  \
    X(INT, "int literal")           \
    X(UINT, "uint literal")         \
    X(DOUBLE, "double literal")     \
    X(STRING, "string literal")     \
    X(BYTES, "bytes literal")       \
    X(TRUE, "'true'")               \
    X(FALSE, "'false'")             \
    X(NULL, "'null'")               \
    X(IN, "'in'")                   \
    X(LPAREN, "'('")                \
    X(RPAREN, "')'")                \
    X(LBRACKET, "'['")              \
    X(RBRACKET, "']'")              \
    X(LBRACE, "'{'")                \
    X(RBRACE, "'}'")                \
    X(DOT, "'.'")                   \
    X(COMMA, "','")                 \
    X(COLON, "':'")                 \
    X(QUESTION, "'?'")              \
    X(OR, "'||'")                   \
    X(AND, "'&&'")                  \
    X(EQ, "'=='")                   \
    X(NE, "'!='")                   \
    X(LT, "'<'")                    \
    X(LE, "'<='")                   \
    X(GT, "'>'")                    \
    X(GE, "'>='")                   \
    X(PLUS, "'+'")                  \
    X(MINUS, "'-'")                 \
    X(STAR, "'*'")                  \
    X(SLASH, "'/'")                 \
    X(PERCENT, "'%'")               \
    X(BANG, "'!'")

typedef enum dc_tok {
#define DC_TOK_ENUM(name, text) DC_TOK_##name,
    DC_TOKENS(DC_TOK_ENUM)
#undef DC_TOK_ENUM
    DC_TOK__COUNT
} dc_tok;

/** Human-readable name of a token kind ("'('", "identifier", ...). */
const char *dc_tok_name(dc_tok t);

/* dc_token.flags */
enum {
    /* INT: the magnitude is > INT64_MAX. v.u holds it when it is exactly 2^63 (valid only as the
     * operand of a single unary minus: -9223372036854775808); the parser reports
     * "invalid int literal" otherwise. */
    DC_TOKF_INT_OVERFLOW = 1u << 0,
    /* STRING/BYTES/INT/UINT/DOUBLE: the literal was malformed and an error was already reported;
     * the value is a placeholder. */
    DC_TOKF_BAD = 1u << 1,
    /* INT/DOUBLE: set by the parser's token stream when a unary '-' was folded into the literal
     * (the span then starts at the '-'). Never set by the lexer. */
    DC_TOKF_NEG = 1u << 2
};

typedef struct dc_token {
    dc_tok kind;
    dracel_span span;       /* byte offsets of the whole token, [start, end) */
    unsigned flags;
    union {
        uint64_t u;         /* INT: magnitude (non-negative); UINT: value */
        double d;           /* DOUBLE */
        struct {
            const char *ptr; /* STRING, BYTES: decoded contents in the arena (NUL-terminated,
                                but BYTES may contain NULs: use len);
                                IDENT, QIDENT: the name (QIDENT without backquotes) */
            size_t len;
        } s;
    } v;
} dc_token;

typedef struct dc_lexer {
    const unsigned char *src;   /* start of input; src[len] == '\0' */
    const unsigned char *lim;   /* src + len */
    const unsigned char *cur;   /* next byte to scan */
    dc_arena *arena;            /* decoded literals go here */
    dc_diags *diags;            /* lexical errors go here */
} dc_lexer;

void dc_lex_init(dc_lexer *lx, const char *src, size_t len, dc_arena *arena, dc_diags *diags);

/**
 * Scan the next token into @p t and return its kind. Whitespace and `//` comments are skipped.
 * At the end of input returns DC_TOK_EOF (span: [len, len)) every time it is called.
 * Unrecognized input is reported ("Syntax error: token recognition error at: '#'") and skipped.
 * On allocation failure the diagnostics list records it and the lexer returns DC_TOK_EOF.
 */
dc_tok dc_lex_next(dc_lexer *lx, dc_token *t);

/* Literal decoding, exposed for unit tests. Each returns NULL on success, or a static message
 * describing the problem. The decoded text goes into the arena. */

/** Decode the body of a quoted string or bytes literal (between the quotes, raw or not). */
const char *dc_lex_decode_quoted(dc_arena *a, const unsigned char *body, size_t n, bool raw,
                                 bool bytes, const char **out, size_t *out_len);
/** Parse a decimal or 0x hex integer literal text (no sign, no suffix) into its magnitude.
 *  Sets *overflow when the value does not fit in uint64_t. */
const char *dc_lex_parse_uint(const unsigned char *text, size_t n, uint64_t *out, bool *overflow);
/** Parse a double literal text. */
const char *dc_lex_parse_double(const unsigned char *text, size_t n, double *out);

#endif
