/*
 * out.h: how dra-celc writes (src/celc/out.c). Every command gathers what it prints on
 * standard output in memory and writes it at once at the end: when memory runs out or the
 * output cannot be written (a full disk, a closed descriptor), nothing half-written is left
 * and the exit status is 2 with a message on standard error ("out of memory", "cannot write
 * the output: ..."), never a different answer. Diagnostics and notes go to standard error as
 * they come.
 *
 * JSON is written by cJSON; strings that are not UTF-8 (a file name, say) are coerced to UTF-8
 * first, replacing each invalid byte with U+FFFD, as Go's encoding/json writes them.
 */
#ifndef CELC_OUT_H
#define CELC_OUT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "dracel.h"

enum { EXIT_OK = 0, EXIT_REJECTED = 1, EXIT_USAGE = 2 };

extern const char celc_prog[];

/** What a command prints on standard output, gathered in memory. */
typedef struct celc_out {
    FILE *f;       /* print here; NULL when it could not be opened (out of memory) */
    char *data;
    size_t len;
} celc_out;

/** Start gathering. Printing to a NULL o->f is not allowed: check celc_out_ok first. */
void celc_out_open(celc_out *o);
/** Whether o->f can be printed to (false: memory ran out). */
bool celc_out_ok(const celc_out *o);
/** Write what was gathered to standard output at once and return @p rc, or print why it could
 *  not be done and return 2. Releases @p o. */
int celc_out_close(celc_out *o, int rc);
/** Release without writing. */
void celc_out_discard(celc_out *o);

/** "dra-celc: out of memory" on standard error; returns 2. */
int celc_oom(void);
/** A command's help on standard output (checked: 0, or 2 when it could not be written). */
int celc_help(void (*usage)(FILE *));

/** A copy of @p s in which every byte that is not part of valid UTF-8 is U+FFFD (malloc'ed;
 *  NULL on ENOMEM). */
char *celc_utf8(const char *s);
/** cJSON with checks: add a string (coerced to UTF-8) / a number / null; false on ENOMEM. */
bool celc_json_str(cJSON *obj, const char *name, const char *s);
bool celc_json_num(cJSON *obj, const char *name, double v);
bool celc_json_null(cJSON *obj, const char *name);
/** Print @p root unformatted and a newline into @p f; false on ENOMEM. Frees nothing. */
bool celc_json_print(FILE *f, const cJSON *root);

/**
 * A rejected input: the message on standard error; with @p json, also the contract's object on
 * standard output: {"error":MSG,"diagnostics":[{"severity":"error","message":MSG,"source":FILE,
 * "line":N,"column":0}]}, the line read back from MSG's "FILE:LINE: ...". Returns 1 (2 when
 * the object could not be written).
 */
int celc_rejected(bool json, const char *file, const char *msg);

/** The status of a load of objects (dracel_objects_load and the like): -1 to go on, else the
 *  exit status, the message printed (1 for a rejected input, with the JSON object under
 *  @p json; 2 for memory or an unreadable input). */
int celc_load_status(dracel_status st, bool json, const char *file, const char *err);

/** Milliseconds of the monotonic clock. */
double celc_now_ms(void);

#endif
