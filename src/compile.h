/*
 * compile.h: the code generator, from a (checked) AST to an immutable dc_program. The only
 * module that sees both the front end (AST, environment) and the VM (opcodes, values).
 *
 * Change with: vm/opcodes.def, vm/vm.c, docs/bytecode.md.
 */
#ifndef DC_COMPILE_H
#define DC_COMPILE_H

#include "ast.h"
#include "env.h"
#include "vm.h"

/** Find the runtime implementation of a function (every library of src/lib*.c). */
const dc_builtin *dc_builtin_find(const char *name, bool member, uint32_t argc);

/**
 * Compile @p e for @p env into a new program allocated with @p alloc. Problems that only the
 * code generator sees (an unsupported construct that checking let through, unknown functions
 * when checking was skipped) are reported to @p d.
 * @return DRACEL_OK (*out set), DRACEL_EINPUT, DRACEL_ENOMEM.
 */
dracel_status dc_compile(const dc_env *env, const dracel_alloc *alloc, dc_diags *d,
                         const dc_ast *e, dc_program **out) DC_WUR;

/** Release a program. */
void dc_program_free(dc_program *p);

#endif
