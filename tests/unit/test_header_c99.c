/* The public header compiles alone as strict C99 (-std=c99 -pedantic-errors) and links. */
#include "dracel.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    dracel_config cfg;
    dracel_config_init(&cfg);
    int ok = strcmp(dracel_version(), DRACEL_VERSION_STRING) == 0 &&
             cfg.max_source_bytes == DRACEL_DEFAULT_MAX_SOURCE_BYTES;
    printf("1..1\n%s 1 - dracel.h compiles alone as C99 and the version matches\n",
           ok ? "ok" : "not ok");
    return ok ? 0 : 1;
}
