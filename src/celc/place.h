/* place.h: the placement commands of dra-celc (src/celc/place.c). */
#ifndef CELC_PLACE_H
#define CELC_PLACE_H

int celc_allocate(int argc, char **argv);
int celc_explain(int argc, char **argv);

#endif
