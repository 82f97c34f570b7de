/*
 * print.c: values as typed JSON (the contract of `dra-celc eval --format json`, docs/dra-celc.md) and
 * as CEL-like text (the default output of eval, and constants in the disassembly).
 *
 *   {"int":"-5"} {"uint":"5"} {"double":1.5} {"double":"NaN"} {"string":"x"} {"bytes":"YWI="}
 *   {"bool":true} {"null":null} {"list":[V,...]} {"map":[[K,V],...]} {"type":"int"}
 *   {"quantity":"80Gi"} {"semver":"1.2.3"} {"optional":V} {"optional":null}
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

void dc_double_text(dc_buf *b, double d, bool json)
{
    if (isnan(d)) {
        dc_buf_puts(b, json ? "\"NaN\"" : "NaN");
        return;
    }
    if (isinf(d)) {
        dc_buf_puts(b, json ? (d > 0 ? "\"Infinity\"" : "\"-Infinity\"") : (d > 0 ? "+Inf" : "-Inf"));
        return;
    }
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    dc_buf_puts(b, tmp);
    if (!strpbrk(tmp, ".eE")) /* NaN and infinities are written above */
        dc_buf_puts(b, ".0");
}

/* The one JSON string writer of the library (values, allocation results, explanations): the
 * output is valid UTF-8 whatever the bytes given (a node name from a C caller, say): each byte
 * that does not begin a valid UTF-8 sequence is written as U+FFFD, as Go's encoding/json does
 * (and dra-celc's and dra-extender's own writers). */
void dc_json_quote(dc_buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    dc_buf_putc(b, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        if (c >= 0x80) {
            uint32_t cp;
            int k = dc_utf8_decode(u + i, n - i, &cp);
            if (k > 0) {
                dc_buf_append(b, s + i, (size_t)k);
                i += (size_t)k;
            } else {
                dc_buf_append(b, "\xEF\xBF\xBD", 3);
                i++;
            }
            continue;
        }
        switch (c) {
        case '"': dc_buf_puts(b, "\\\""); break;
        case '\\': dc_buf_puts(b, "\\\\"); break;
        case '\n': dc_buf_puts(b, "\\n"); break;
        case '\r': dc_buf_puts(b, "\\r"); break;
        case '\t': dc_buf_puts(b, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7f)
                dc_buf_printf(b, "\\u%04x", c);
            else
                dc_buf_putc(b, (char)c);
        }
        i++;
    }
    dc_buf_putc(b, '"');
}

static void put_base64(dc_buf *b, const unsigned char *s, size_t n)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    dc_buf_putc(b, '"');
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)s[i + 1] << 8;
        if (i + 2 < n)
            v |= s[i + 2];
        dc_buf_putc(b, tbl[(v >> 18) & 63]);
        dc_buf_putc(b, tbl[(v >> 12) & 63]);
        dc_buf_putc(b, i + 1 < n ? tbl[(v >> 6) & 63] : '=');
        dc_buf_putc(b, i + 2 < n ? tbl[v & 63] : '=');
    }
    dc_buf_putc(b, '"');
}

/* Depth is bounded: values built by a program are at most as deep as its nesting plus the
 * depth of its inputs; the printers still stop at a fixed depth to stay safe on any input. */
#define PRINT_MAX_DEPTH DC_VALUE_MAX_DEPTH

static void json(dc_buf *b, dc_val v, int depth)
{
    if (depth > PRINT_MAX_DEPTH) {
        dc_buf_puts(b, "{\"error\":\"value too deep to print\"}");
        return;
    }
    switch (v.k) {
    case DC_K_NULL: dc_buf_puts(b, "{\"null\":null}"); break;
    case DC_K_BOOL: dc_buf_printf(b, "{\"bool\":%s}", v.u.b ? "true" : "false"); break;
    case DC_K_INT: dc_buf_printf(b, "{\"int\":\"%lld\"}", (long long)v.u.i); break;
    case DC_K_UINT: dc_buf_printf(b, "{\"uint\":\"%llu\"}", (unsigned long long)v.u.u); break;
    case DC_K_DOUBLE:
        dc_buf_puts(b, "{\"double\":");
        dc_double_text(b, v.u.d, true);
        dc_buf_putc(b, '}');
        break;
    case DC_K_STRING:
        dc_buf_puts(b, "{\"string\":");
        dc_json_quote(b, v.u.s->data, v.u.s->len);
        dc_buf_putc(b, '}');
        break;
    case DC_K_BYTES:
        dc_buf_puts(b, "{\"bytes\":");
        put_base64(b, (const unsigned char *)v.u.s->data, v.u.s->len);
        dc_buf_putc(b, '}');
        break;
    case DC_K_LIST:
        dc_buf_puts(b, "{\"list\":[");
        for (uint32_t i = 0; i < v.u.l->n; i++) {
            if (i)
                dc_buf_putc(b, ',');
            json(b, v.u.l->v[i], depth + 1);
        }
        dc_buf_puts(b, "]}");
        break;
    case DC_K_MAP:
        dc_buf_puts(b, "{\"map\":[");
        for (uint32_t i = 0; i < v.u.m->n; i++) {
            dc_buf_puts(b, i ? ",[" : "[");
            json(b, v.u.m->keys[i], depth + 1);
            dc_buf_putc(b, ',');
            json(b, v.u.m->vals[i], depth + 1);
            dc_buf_putc(b, ']');
        }
        dc_buf_puts(b, "]}");
        break;
    case DC_K_TYPE: dc_buf_printf(b, "{\"type\":\"%s\"}", dc_typename_str[v.u.t]); break;
    case DC_K_OPTIONAL:
        dc_buf_puts(b, "{\"optional\":");
        if (v.u.opt)
            json(b, *v.u.opt, depth + 1);
        else
            dc_buf_puts(b, "null");
        dc_buf_putc(b, '}');
        break;
    case DC_K_QUANTITY:
        dc_buf_puts(b, "{\"quantity\":");
        dc_json_quote(b, v.u.q->text->data, v.u.q->text->len);
        dc_buf_putc(b, '}');
        break;
    case DC_K_SEMVER:
        dc_buf_puts(b, "{\"semver\":");
        dc_json_quote(b, v.u.sv->text->data, v.u.sv->text->len);
        dc_buf_putc(b, '}');
        break;
    case DC_K_ERROR:
        dc_buf_puts(b, "{\"error\":");
        dc_json_quote(b, v.u.e->msg, strlen(v.u.e->msg));
        dc_buf_putc(b, '}');
        break;
    default: dc_buf_puts(b, "null"); break;
    }
}

void dc_val_json(dc_buf *b, dc_val v)
{
    json(b, v, 0);
}

static void cel_string(dc_buf *b, const char *s, size_t n, bool bytes)
{
    if (bytes)
        dc_buf_putc(b, 'b');
    dc_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            dc_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            dc_buf_puts(b, "\\n");
        else if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80))
            dc_buf_printf(b, "\\x%02x", c);
        else
            dc_buf_putc(b, (char)c);
    }
    dc_buf_putc(b, '"');
}

static void text(dc_buf *b, dc_val v, int depth)
{
    if (depth > PRINT_MAX_DEPTH) {
        dc_buf_puts(b, "...");
        return;
    }
    switch (v.k) {
    case DC_K_NULL: dc_buf_puts(b, "null"); break;
    case DC_K_BOOL: dc_buf_puts(b, v.u.b ? "true" : "false"); break;
    case DC_K_INT: dc_buf_printf(b, "%lld", (long long)v.u.i); break;
    case DC_K_UINT: dc_buf_printf(b, "%lluu", (unsigned long long)v.u.u); break;
    case DC_K_DOUBLE: dc_double_text(b, v.u.d, false); break;
    case DC_K_STRING: cel_string(b, v.u.s->data, v.u.s->len, false); break;
    case DC_K_BYTES: cel_string(b, v.u.s->data, v.u.s->len, true); break;
    case DC_K_LIST:
        dc_buf_putc(b, '[');
        for (uint32_t i = 0; i < v.u.l->n; i++) {
            if (i)
                dc_buf_puts(b, ", ");
            text(b, v.u.l->v[i], depth + 1);
        }
        dc_buf_putc(b, ']');
        break;
    case DC_K_MAP:
        dc_buf_putc(b, '{');
        for (uint32_t i = 0; i < v.u.m->n; i++) {
            if (i)
                dc_buf_puts(b, ", ");
            text(b, v.u.m->keys[i], depth + 1);
            dc_buf_puts(b, ": ");
            text(b, v.u.m->vals[i], depth + 1);
        }
        dc_buf_putc(b, '}');
        break;
    case DC_K_TYPE: dc_buf_puts(b, dc_typename_str[v.u.t]); break;
    case DC_K_OPTIONAL:
        if (v.u.opt) {
            dc_buf_puts(b, "optional.of(");
            text(b, *v.u.opt, depth + 1);
            dc_buf_putc(b, ')');
        } else {
            dc_buf_puts(b, "optional.none()");
        }
        break;
    case DC_K_QUANTITY:
        dc_buf_puts(b, "quantity(");
        cel_string(b, v.u.q->text->data, v.u.q->text->len, false);
        dc_buf_putc(b, ')');
        break;
    case DC_K_SEMVER:
        dc_buf_puts(b, "semver(");
        cel_string(b, v.u.sv->text->data, v.u.sv->text->len, false);
        dc_buf_putc(b, ')');
        break;
    case DC_K_ERROR: dc_buf_printf(b, "error: %s", v.u.e->msg); break;
    default: break;
    }
}

void dc_val_text(dc_buf *b, dc_val v)
{
    text(b, v, 0);
}
