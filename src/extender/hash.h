/* hash.h: the string hash of dra-extender's tables (FNV-1a, 64 bits). */
#ifndef EXT_HASH_H
#define EXT_HASH_H

#include <stdint.h>

static inline uint64_t ext_hash_str(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

#endif
