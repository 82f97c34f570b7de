/* log.c: structured logs of dra-extender (src/extender/log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"

static log_level threshold = LOG_INFO;
static const char *const names[] = {"debug", "info", "warn", "error"};

int log_level_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

void log_set_level(log_level l)
{
    __atomic_store_n(&threshold, l, __ATOMIC_RELAXED);
}

bool log_enabled(log_level l)
{
    return l >= __atomic_load_n(&threshold, __ATOMIC_RELAXED);
}

void log_line(log_level l, const char *msg, ...)
{
    if (!log_enabled(l))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    jbuf b;
    jb_init(&b);
    jb_printf(&b, "{\"time\":\"%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ\",\"level\":\"%s\",\"msg\":",
              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
              ts.tv_nsec / 1000000, names[l]);
    jb_cstr(&b, msg);
    va_list ap;
    va_start(ap, msg);
    for (const char *key; (key = va_arg(ap, const char *)) != NULL;) {
        jb_putc(&b, ',');
        if (key[0] == '#') {
            jb_cstr(&b, key + 1);
            jb_printf(&b, ":%lld", (long long)va_arg(ap, int64_t));
        } else if (key[0] == '%') {
            jb_cstr(&b, key + 1);
            jb_printf(&b, ":%.6g", va_arg(ap, double));
        } else {
            jb_cstr(&b, key);
            const char *v = va_arg(ap, const char *);
            jb_putc(&b, ':');
            if (v)
                jb_cstr(&b, v);
            else
                jb_puts(&b, "null");
        }
    }
    va_end(ap);
    jb_puts(&b, "}\n");
    size_t n;
    char *line = jb_take(&b, &n);
    if (!line) {
        static const char oom[] = "{\"level\":\"error\",\"msg\":\"out of memory writing a log line\"}\n";
        (void)!write(2, oom, sizeof oom - 1);
        return;
    }
    for (size_t off = 0; off < n;) {
        ssize_t w = write(2, line + off, n - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    free(line);
}
