/*
 * log.h: structured logs of dra-extender (src/extender/log.c): one JSON object a line on
 * stderr, {"time":"2026-12-01T16:04:05.123Z","level":"info","msg":"...", then fields}, written
 * with one write(2) so that lines of different threads never interleave. Levels: debug, info,
 * warn, error; lines below the configured level cost one comparison.
 */
#ifndef EXT_LOG_H
#define EXT_LOG_H

#include <stdbool.h>
#include <stdint.h>

typedef enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR } log_level;

/** The level by name ("debug", "info", "warn", "error"); -1 when unknown. */
int log_level_parse(const char *name);
void log_set_level(log_level l);
bool log_enabled(log_level l);

/**
 * Write one line: @p msg, then fields given as pairs of a key and a value, ended by NULL. A key
 * starting with '#' takes an int64_t value (written as a number, the '#' dropped); one starting
 * with '%' a double; any other a string (NULL: null).
 *   log_line(LOG_INFO, "snapshot published", "#id", (int64_t)7, "%build_ms", 0.4, NULL);
 */
void log_line(log_level l, const char *msg, ...);

#endif
