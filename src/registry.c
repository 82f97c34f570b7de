/*
 * registry.c: the list of builtin tables and the lookup the compiler uses.
 * Every library file contributes one table; a (name, receiver style, argc) triple may appear in
 * only one of them (tests/unit/test_check.c checks that every declared function has exactly
 * one implementation).
 */
#include <string.h>

#include "compile.h"
#include "lib.h"
#include "registry.h"

static const struct {
    const dc_builtin *fns;
    const uint32_t *count;
} tables[] = {
    {dc_lib_core, &dc_lib_core_count},
    {dc_lib_strings, &dc_lib_strings_count},
    {dc_lib_lists, &dc_lib_lists_count},
    {dc_lib_conv, &dc_lib_conv_count},
};

const dc_builtin *dc_builtin_find(const char *name, bool member, uint32_t argc)
{
    for (size_t t = 0; t < DC_COUNTOF(tables); t++)
        for (uint32_t i = 0; i < *tables[t].count; i++) {
            const dc_builtin *b = &tables[t].fns[i];
            if (b->member == member && b->argc == argc && strcmp(b->name, name) == 0)
                return b;
        }
    return NULL;
}
