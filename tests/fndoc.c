/*
 * fndoc: prints every declared function and overload of the DRA environment (src/decls.c) as
 * the markdown list of docs/functions.md. tests/fndoc.sh checks that the document holds exactly
 * this list, so the function reference is generated from the declarations.
 */
#include <stdio.h>
#include <string.h>

#include "compile.h"
#include "env.h"
#include "types.h"

/* Operators are opcodes and the optional/sort macros are compiled inline; every other declared
 * overload needs a run-time builtin of its (name, receiver style, arity). */
static int is_inline(const char *name)
{
    return strchr("_!-@", name[0]) != NULL || strcmp(name, "optMap") == 0 ||
           strcmp(name, "optFlatMap") == 0 || strcmp(name, "sortBy") == 0;
}

int main(void)
{
    dc_env *env = dc_env_new(NULL, DC_ENV_DRA);
    if (!env)
        return 1;
    dc_arena a;
    dc_arena_init(&a, &dc_default_alloc);
    int missing = 0;
    puts("| function | overload id | signature |");
    puts("| :-- | :-- | :-- |"); /* distinct from the other tables of the page */
    for (uint32_t i = 0; i < env->nfuns; i++) {
        const dc_fundecl *f = &env->funs[i];
        for (uint32_t k = 0; k < f->n; k++) {
            const dc_overload *o = &f->overloads[k];
            char sig[512];
            size_t n = 0;
            uint32_t first = 0;
            if (o->member && o->nparams) {
                n += (size_t)snprintf(sig + n, sizeof sig - n, "%s.", dc_type_str(&a, o->params[0]));
                first = 1;
            }
            n += (size_t)snprintf(sig + n, sizeof sig - n, "%s(", f->name);
            for (uint32_t p = first; p < o->nparams && n < sizeof sig; p++)
                n += (size_t)snprintf(sig + n, sizeof sig - n, "%s%s", p > first ? ", " : "",
                                      dc_type_str(&a, o->params[p]));
            if (n < sizeof sig)
                snprintf(sig + n, sizeof sig - n, ") -> %s", dc_type_str(&a, o->result));
            /* Markdown: escape the pipe of the || operator's name. */
            char name[128];
            size_t w = 0;
            for (const char *c = f->name; *c && w + 2 < sizeof name; c++) {
                if (*c == '|')
                    name[w++] = '\\';
                name[w++] = *c;
            }
            name[w] = '\0';
            char esc[1024];
            w = 0;
            for (const char *c = sig; *c && w + 2 < sizeof esc; c++) {
                if (*c == '|')
                    esc[w++] = '\\';
                esc[w++] = *c;
            }
            esc[w] = '\0';
            printf("| `%s` | `%s` | `%s` |\n", name, o->id ? o->id : "", esc);
            if (!is_inline(f->name) && !dc_builtin_find(f->name, o->member, o->nparams)) {
                fprintf(stderr, "fndoc: %s is declared but has no run-time implementation\n", sig);
                missing++;
            }
        }
    }
    dc_arena_free(&a);
    dc_env_free(env);
    return missing ? 1 : 0;
}
