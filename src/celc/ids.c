/* ids.c: the --allocated list of dra-celc explain (src/celc/ids.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ids.h"

static unsigned line_of(const char *buf, const char *at)
{
    unsigned line = 1;
    for (const char *c = buf; c < at; c++)
        line += *c == '\n';
    return line;
}

int celc_parse_ids(const char *name, char *buf, size_t len, dracel_device_id **out, size_t *n,
                   char *msg, size_t msgcap)
{
    *out = NULL;
    *n = 0;
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        snprintf(msg, msgcap, "%s:%u: a NUL byte (device IDs are text, one a line)", name,
                 line_of(buf, nul));
        return 1;
    }
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    dracel_device_id *ids = calloc(lines, sizeof *ids);
    if (!ids)
        return -1;
    size_t k = 0;
    unsigned lineno = 0;
    for (char *line = buf; line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        char *e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            *--e = '\0';
        if (*s && *s != '#') {
            char *first = strchr(s, '/'), *last = strrchr(s, '/');
            if (!first || first == last || first == s || last == first + 1 || !last[1]) {
                snprintf(msg, msgcap, "%s:%u: not a device ID (driver/pool/device): %.600s", name,
                         lineno, s);
                free(ids);
                return 1;
            }
            *first = '\0';
            *last = '\0';
            ids[k].driver = s;
            ids[k].pool = first + 1;
            ids[k].device = last + 1;
            k++;
        }
        line = nl ? nl + 1 : NULL;
    }
    *out = ids;
    *n = k;
    return 0;
}
