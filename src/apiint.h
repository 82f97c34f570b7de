/*
 * apiint.h: what the public API's source files share about each other's opaque types:
 * environments, programs and results (src/api_eval.c), host functions (src/api_host.c),
 * activations (src/api_activation.c), tables (src/api_table.c).
 */
#ifndef DC_APIINT_H
#define DC_APIINT_H

#include "env.h"
#include "vm.h"

struct dracel_env {
    dracel_config cfg;
    dracel_alloc alloc;
    dc_env *env;
    dc_ectx vals;          /* owns the bound values; never reset */
    dc_val *binds;         /* by slot; unbound slots hold an error value */
    uint32_t nbinds;
};

struct dracel_program {
    dracel_config cfg;     /* cfg.alloc is &alloc */
    dracel_alloc alloc;    /* a copy: the program may outlive its environment */
    dc_program *prog;
    char type[128];
    uint64_t cost_min, cost_max;
};

struct dracel_result {
    dracel_config cfg;     /* cfg.alloc is &alloc */
    dracel_alloc alloc;
    dc_ectx ectx;
    dc_val value;
};

/* What an unbound variable reads as. */
extern const dc_err dc_api_err_unbound;

/** DRACEL_EINVAL unless @p env declares every variable @p p reads (dc_varref) in the same slot
 *  with the same name and (for a checked program) the same type. */
dracel_status dc_api_check_vars(const dc_program *p, const dc_env *env) DC_WUR;
/** Evaluate @p p into @p r with @p nvals values by slot (slots past them are unbound). */
dracel_status dc_api_run(const dracel_program *p, const dc_val *vals, uint32_t nvals,
                         dracel_result *r) DC_WUR;

/* The first layouts of the growable public structs (dracel_config, dracel_select_opts,
 * dracel_function): a caller's `size` below these is refused. They never change once
 * released. */
#define DC_CONFIG_SIZE_V1 (offsetof(dracel_config, eval_memory_limit) + sizeof(size_t))
#define DC_SELECT_OPTS_SIZE_V1 (offsetof(dracel_select_opts, keep_values) + sizeof(bool))
#define DC_FUNCTION_SIZE_V1 (offsetof(dracel_function, max_result_bytes) + sizeof(size_t))

/** Copy a caller's growable struct (@p src_size bytes, its `size` field) into the library's
 *  (@p dst_size bytes, filled with defaults beforehand): DRACEL_EINVAL when @p src_size is
 *  below @p min_size or a newer caller set fields this library does not have. */
dracel_status dc_struct_read(void *dst, size_t dst_size, const void *src, size_t src_size,
                             size_t min_size) DC_WUR;
/** Fill a caller's growable output struct (@p dst_size bytes, passed by the header's macro)
 *  from the library's (@p src, @p src_size bytes): only what both have is copied, a newer
 *  caller's extra fields are zeroed; DRACEL_EINVAL below @p min_size. */
dracel_status dc_struct_write(void *dst, size_t dst_size, const void *src, size_t src_size,
                              size_t min_size) DC_WUR;
/** A caller's config (NULL: the defaults) as this library's struct. */
dracel_status dc_config_read(const dracel_config *in, dracel_config *out) DC_WUR;

const dc_program *dc_api_program(const dracel_program *p);
const dracel_config *dc_api_program_cfg(const dracel_program *p);
/** The activation of env for program p (checked with dc_api_check_vars): *vars points to it;
 *  when some are unbound a temporary copy is made (*tmp, released by dc_api_env_vars_done). */
dracel_status dc_api_env_vars(const dracel_env *env, const dc_program *p, const dc_val **vars,
                              dc_val **tmp);
void dc_api_env_vars_done(const dracel_env *env, uint32_t n, dc_val *tmp);

/** The table inside a public table handle (benchmarks compare against hand-written loops). */
const dc_table *dc_api_table(const dracel_table *t);
/** The allocator a table was made with (a copy held by the table). */
const dracel_alloc *dc_api_table_alloc(const dracel_table *t);
/** The placement index built with a table (src/alloc/pindex.c). */
struct dc_pindex;
const struct dc_pindex *dc_api_table_pindex(const dracel_table *t);
/** The bound program behind a public one (tests: whether it has fused kernels). */
struct dc_bound;
const struct dc_bound *dc_api_bound(const dracel_bound *b);
/* dracel_select over every row of the table, the older generations' too (vm/table.h): what the
 * allocator reads. */
dracel_status dc_api_select_all(const dracel_bound *b, const dracel_env *env,
                                const dracel_select_opts *o, dracel_selection *sel);

/** Build a public table from loaded slices (the set can be freed after). */
struct dc_slice_set;
dracel_status dc_api_table_build(const dracel_config *cfg, struct dc_slice_set *set,
                                 dracel_table **out, char *err, size_t errcap);
/** dracel_fleet_load_buffer of the kinds in @p kinds only (DC_OBJ_SLICE, DC_OBJ_RULE; the
 *  other is skipped with a note), as a cluster asked for some kinds reads them. */
dracel_status dc_api_fleet_load_buffer(dracel_fleet *fl, const char *name, const char *buf,
                                       size_t len, unsigned kinds, char *err,
                                       size_t errcap) DC_WUR;

#endif
