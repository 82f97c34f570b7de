/* gates.c: the release and feature gates of a command (src/celc/gates.h). */
#include <stdio.h>
#include <string.h>

#include "dracel.h"
#include "gates.h"
#include "out.h"

int celc_parse_features(const char *list, unsigned *out)
{
    *out = 0;
    if (strcmp(list, "none") == 0 || !*list)
        return 0;
    for (const char *s = list; *s;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        unsigned bit = dracel_feature_parse(s, n);
        if (!bit) {
            fprintf(stderr, "%s: unknown feature '%.*s'\n", celc_prog, (int)n, s);
            return -1;
        }
        *out |= bit;
        s += n;
        if (*s == ',')
            s++;
    }
    return 0;
}

int celc_release_and_gates(const char *version, const char *features, const char *gates,
                           unsigned *release, unsigned *out)
{
    if (version) {
        *release = dracel_kubernetes_parse(version, strlen(version));
        if (!*release) {
            fprintf(stderr, "%s: unknown Kubernetes release '%s' (known: 1.34, 1.35, 1.36, "
                    "1.37)\n", celc_prog, version);
            return -1;
        }
    }
    if (features && celc_parse_features(features, out) < 0)
        return -1;
    if (gates) {
        char err[512];
        if (dracel_feature_gates(*release, gates, strlen(gates), out, err, sizeof err) !=
            DRACEL_OK) {
            fprintf(stderr, "%s: --feature-gates: %s\n", celc_prog, err);
            return -1;
        }
    }
    return 0;
}
