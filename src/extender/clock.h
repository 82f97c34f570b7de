/* clock.h: the monotonic clock of dra-extender, in seconds. */
#ifndef EXT_CLOCK_H
#define EXT_CLOCK_H

#include <time.h>

static inline double ext_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
