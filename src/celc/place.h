/* place.h: the placement commands of dra-celc (src/celc/place.c). */
#ifndef CELC_PLACE_H
#define CELC_PLACE_H

#include <stdio.h>

int celc_allocate(int argc, char **argv);
int celc_explain(int argc, char **argv);

/** "dra-celc: MESSAGE", then the command's usage, on stderr; returns the usage exit status (2).
 *  Defined in main.c, shared by every command. */
__attribute__((format(printf, 2, 3)))
int usage_error(void (*usage)(FILE *), const char *fmt, ...);

#endif
