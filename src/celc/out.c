/*
 * out.c: dra-celc's output (out.h): gathered in memory, written at once, every failure an exit
 * status of 2 with a message; JSON through cJSON with strings coerced to UTF-8.
 */
#define _POSIX_C_SOURCE 200809L

#include "out.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char celc_prog[] = "dra-celc";

void celc_out_open(celc_out *o)
{
    o->data = NULL;
    o->len = 0;
    o->f = open_memstream(&o->data, &o->len);
}

bool celc_out_ok(const celc_out *o)
{
    return o->f != NULL;
}

void celc_out_discard(celc_out *o)
{
    if (o->f)
        fclose(o->f);
    free(o->data);
    o->f = NULL;
    o->data = NULL;
}

double celc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int celc_load_status(dracel_status st, bool json, const char *file, const char *err)
{
    if (st == DRACEL_OK)
        return -1;
    if (st == DRACEL_ENOMEM)
        return celc_oom();
    if (st == DRACEL_EINPUT)
        return celc_rejected(json, file, err);
    fprintf(stderr, "%s: %s\n", celc_prog, err[0] ? err : "cannot read the input");
    return EXIT_USAGE;
}

int celc_oom(void)
{
    fprintf(stderr, "%s: out of memory\n", celc_prog);
    return EXIT_USAGE;
}

int celc_out_close(celc_out *o, int rc)
{
    if (!o->f)
        return celc_oom();
    /* a memory stream's errors are memory errors */
    bool ok = !ferror(o->f);
    if (fclose(o->f) != 0)
        ok = false;
    o->f = NULL;
    /* glibc's memory stream shrinks its buffer on close: when that fails it loses the text and
     * leaves NULL, though fclose succeeds */
    if (!o->data)
        ok = false;
    if (!ok) {
        free(o->data);
        o->data = NULL;
        return celc_oom();
    }
    if ((o->len && fwrite(o->data, 1, o->len, stdout) != o->len) || fflush(stdout) != 0) {
        int e = errno;
        free(o->data);
        o->data = NULL;
        fprintf(stderr, "%s: cannot write the output: %s\n", celc_prog, strerror(e));
        return EXIT_USAGE;
    }
    free(o->data);
    o->data = NULL;
    return rc;
}

int celc_help(void (*usage)(FILE *))
{
    celc_out o;
    celc_out_open(&o);
    if (o.f)
        usage(o.f);
    return celc_out_close(&o, EXIT_OK);
}

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    return v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) ? 0 : len;
}

char *celc_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), bad = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(u + i, n - i);
        bad += k == 0;
        i += k ? k : 1;
    }
    char *out = malloc(n + 2 * bad + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(u + i, n - i);
        if (k) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}

bool celc_json_str(cJSON *obj, const char *name, const char *s)
{
    char *u = celc_utf8(s);
    bool ok = u && cJSON_AddStringToObject(obj, name, u) != NULL;
    free(u);
    return ok;
}

bool celc_json_num(cJSON *obj, const char *name, double v)
{
    return cJSON_AddNumberToObject(obj, name, v) != NULL;
}

bool celc_json_null(cJSON *obj, const char *name)
{
    return cJSON_AddNullToObject(obj, name) != NULL;
}

bool celc_json_print(FILE *f, const cJSON *root)
{
    char *s = cJSON_PrintUnformatted(root);
    if (!s)
        return false;
    fputs(s, f);
    fputc('\n', f);
    cJSON_free(s);
    return true;
}

int celc_rejected(bool json, const char *file, const char *msg)
{
    fprintf(stderr, "%s: %s\n", celc_prog, msg);
    if (!json)
        return EXIT_REJECTED;
    unsigned long line = 0;
    size_t fl = file ? strlen(file) : 0;
    if (fl && strncmp(msg, file, fl) == 0 && msg[fl] == ':') {
        char *end;
        line = strtoul(msg + fl + 1, &end, 10);
        if (*end != ':')
            line = 0;
    }
    celc_out o;
    celc_out_open(&o);
    cJSON *root = cJSON_CreateObject(), *list = NULL, *d = NULL;
    bool built = o.f && root && celc_json_str(root, "error", msg) &&
                 (list = cJSON_AddArrayToObject(root, "diagnostics")) != NULL &&
                 (d = cJSON_CreateObject()) != NULL;
    if (built)
        cJSON_AddItemToArray(list, d); /* list owns d from here */
    built = built && celc_json_str(d, "severity", "error") && celc_json_str(d, "message", msg) &&
                 celc_json_str(d, "source", file ? file : "") &&
                 celc_json_num(d, "line", (double)line) && celc_json_num(d, "column", 0) &&
                 celc_json_print(o.f, root);
    cJSON_Delete(root);
    if (!built) {
        celc_out_discard(&o);
        return celc_oom();
    }
    return celc_out_close(&o, EXIT_REJECTED);
}
