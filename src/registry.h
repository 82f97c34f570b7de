/*
 * registry.h: the tables of run-time builtins, one per library file, and the lookup the
 * compiler uses. A (name, receiver style, argument count) triple has exactly one
 * implementation, which dispatches on the kinds of its arguments.
 *
 * Change with: src/registry.c (the list of tables), src/decls.c (the checker's signatures).
 */
#ifndef DC_REGISTRY_H
#define DC_REGISTRY_H

#include "vm.h"

extern const dc_builtin dc_lib_core[];      /* src/lib_core.c: optional, regex, quantity, semver */
extern const uint32_t dc_lib_core_count;

/* The implementation of calls to functions that do not exist (unchecked programs): any number
 * of arguments (argc DC_ARGC_ANY), result "no such overload". */
extern const dc_builtin dc_builtin_no_overload;

/* Build a Semver value from text (also used for device version attributes). */
dc_val dc_semver_value(dc_ectx *c, const char *s, size_t n, bool normalize);

#endif
