/*
 * vm.h: programs (immutable bytecode + constants + function table + column map), the
 * evaluation context, the scalar VM, the verifier and the disassembler.
 *
 * A program is built once by the compiler (src/compile.c) and never changes after: any number
 * of threads can evaluate it at once, each with its own dc_ectx. The scalar VM is the reference
 * evaluator; the vector VM (vm/vvm.c) runs the same programs over column batches.
 *
 * A CALL names a dc_builtin: a library function (src/lib_*.c), or a dc_hostcall of host
 * functions (vm/host.h) that the program holds references to; dc_builtin_call is the one way
 * both VMs call either.
 *
 * Change with: vm/opcodes.def, vm/vm.c, vm/program.c (the verifier and the disassembler), src/compile.c, vm/host.h.
 */
#ifndef DC_VM_H
#define DC_VM_H

#include "arena.h"
#include "table.h"
#include "value.h"

typedef enum dc_op {
#define FMT(f)
#define OP(name, fmt, pop, push, cls, vec, doc) DC_OP_##name,
#include "opcodes.def"
#undef OP
#undef FMT
    DC_OP__COUNT
} dc_op;

typedef enum dc_opfmt {
#define FMT(f) DC_FMT_##f,
#define OP(name, fmt, pop, push, cls, vec, doc)
#include "opcodes.def"
#undef OP
#undef FMT
    DC_FMT__COUNT
} dc_opfmt;

/* The classes and vector paths of vm/opcodes.def (its header says what each means). */
typedef enum dc_opcls {
    DC_CLS_VALUE, DC_CLS_LOAD, DC_CLS_STORE, DC_CLS_CONTROL, DC_CLS_LOOP
} dc_opcls;
typedef enum dc_opvec {
    DC_VEC_NONE, DC_VEC_MASK, DC_VEC_LOAD, DC_VEC_KERNEL, DC_VEC_MEMO, DC_VEC_SCALAR
} dc_opvec;

typedef struct dc_opinfo {
    const char *name;
    dc_opfmt fmt;
    int8_t pop, push;
    dc_opcls cls;
    dc_opvec vec;
    const char *doc;
} dc_opinfo;

extern const dc_opinfo dc_op_info[DC_OP__COUNT];

/** Words taken by an instruction of format f (1 or 2). */
static inline unsigned dc_fmt_words(dc_opfmt f)
{
    return f == DC_FMT_FN || f == DC_FMT_IJ || f == DC_FMT_CK ? 2u : 1u;
}
#define DC_INSN(op, a) ((uint32_t)(op) | ((uint32_t)(a) << 8))
#define DC_INSN_OP(w) ((dc_op)((w)&0xFFu))
#define DC_INSN_A(w) ((w) >> 8)
/* Signed 24-bit operand. */
#define DC_INSN_SA(w) ((int32_t)((w) & 0xFFFFFF00u) >> 8)

/* A builtin function: one implementation for every overload of a (name, style, arity). */
typedef dc_val (*dc_builtin_fn)(dc_ectx *c, const dc_val *args, uint32_t nargs);

enum {
    DC_BF_NONSTRICT = 1u << 0, /* receives error arguments (default: the first error is the result) */
    DC_BF_HOST = 1u << 1,      /* a call of host functions: the builtin is a dc_hostcall
                                  (vm/host.h), called through dc_host_call, never through fn */
    DC_BF_IMPURE = 1u << 2,    /* may answer differently for equal arguments: never memoised,
                                  folded or fused (host functions not declared pure) */
    DC_BF_REGEX = 1u << 3      /* args[1] is a regular expression: the call costs the subject's
                                  traversal times dc_regex_units(pattern) */
};

/*
 * The regular expression factor of a regex call's run-time cost (src/lib_core.c): cel-go's
 * ceil(code points * 0.25), or the compiled program's size * 0.25 when the program is far larger
 * than the pattern (counted repetitions). Compiles the pattern; for bounds computed once per
 * binding, not per evaluation.
 */
uint64_t dc_regex_units(const dc_str *pattern);

/* dc_builtin.argc of a builtin that takes any number of arguments (the verifier accepts any
 * CALL of it). */
#define DC_ARGC_ANY 255u

typedef struct dc_builtin {
    const char *name;   /* as declared: "size", "startsWith", "optional.of", "_+_" is not used */
    bool member;        /* receiver style: args[0] is the receiver */
    uint8_t argc;       /* including the receiver; DC_ARGC_ANY: any count */
    uint8_t flags;
    dc_builtin_fn fn;
} dc_builtin;

/* Call a host function (vm/host.c): @p b is a dc_hostcall. */
dc_val dc_host_call(dc_ectx *c, const dc_builtin *b, const dc_val *args, uint32_t n);

/* The one way the VMs call a builtin: library functions directly, host functions through
 * libffi. Arguments are the caller's (not copied); results live in c's arena. */
static inline dc_val dc_builtin_call(dc_ectx *c, const dc_builtin *b, const dc_val *args,
                                     uint32_t n)
{
    if (DC_UNLIKELY(b->flags & DC_BF_HOST))
        return dc_host_call(c, b, args, n);
    return b->fn(c, args, n);
}

/* A device column: a qualified attribute or capacity name, split as Kubernetes splits it. */
typedef struct dc_column {
    const dc_str *domain;
    const dc_str *id;
    bool capacity;
} dc_column;

/* An activation variable a program reads, as the environment it was compiled for declared it:
 * evaluating with another environment's values is refused unless its slot has the same name and
 * type (src/api_eval.c). */
typedef struct dc_varref {
    uint32_t slot;
    const char *name;
    const char *type;          /* as cel-go prints it; NULL: any (an unchecked program) */
} dc_varref;

typedef struct dc_program {
    dc_arena arena;            /* owns everything below, except the host functions its
                                  dc_hostcalls hold a reference to (released by
                                  dc_program_free) */
    const uint32_t *code;
    uint32_t ncode;
    const dc_val *consts;
    uint32_t nconsts;
    const dc_builtin *const *fns;
    uint32_t nfns;
    const dc_column *cols;
    uint32_t ncols;
    uint32_t nlocals;          /* local slots (comprehension variables, accumulators, bindings) */
    uint32_t niters;           /* iterator slots */
    /* Computed once by the verifier, read by every evaluator (dc_program_verify). */
    uint32_t max_stack;        /* the deepest stack */
    uint32_t max_pops;         /* the most values one instruction pops */
    const int32_t *depth;      /* per code word: the stack depth before the instruction that
                                  starts there; -1 for a second word or dead code */
    const uint32_t *pops;      /* per code word: the values the instruction there pops */
    bool loops;                /* an instruction whose vector path is SCALAR (comprehensions):
                                  the vector VM runs the program row by row */
    bool reads_device;         /* LOADVAR of `device`: the device as a whole */
    uint64_t static_cost;      /* 3 per instruction and every CHARGE: the part of a loop-free
                                  program's worst-case cost per row that depends on nothing
                                  else (vm/vvm.c adds what calls can charge) */
    uint32_t nvars;            /* activation variables the program reads */
    uint32_t device_slot;      /* the activation slot of `device` (UINT32_MAX: none) */
    bool result_must_be_bool;  /* a DRA selector: a non-bool result is an evaluation error */
    dc_varref *varrefs;        /* the variables the code reads (LOADVAR, and `device` for
                                  column loads), by slot */
    uint32_t nvarrefs;
} dc_program;

/* ---- A program bound to a device table: its columns resolved to the table's, its string
 * constants to dictionary ids. Immutable; shared by the scalar VM (row by row) and the vector
 * VM (vm/vvm.c). */
typedef struct dc_bound {
    dc_arena arena;             /* owns this structure */
    const dc_program *p;
    const dc_table *t;
    const dc_tcol **colmap;     /* per program column: the table's, or NULL (absent everywhere) */
    uint32_t *const_sid;        /* per constant: for a string, its dictionary id, or an id past
                                   the dictionary (t->dict_limit + i, text extra[i]) when the
                                   dictionary does not hold it, so that equal ids mean equal
                                   strings; DC_DICT_NONE for other constants */
    const dc_str **extra;       /* strings of the ids past the dictionary */
    uint32_t nextra;
    const struct dc_plan *plan; /* the vector VM's fused kernels (vm/vplan.h), or NULL */
    uint64_t regex_units;       /* the largest dc_regex_units of the program's regex calls (0:
                                   none; UINT64_MAX: a pattern that is not a constant) */
} dc_bound;

/* Does the instruction read part of `device` without loading the variable (a column, has() of
 * one, or a field: what a table row answers directly)? */
static inline bool dc_op_reads_device(dc_op op)
{
    return op == DC_OP_LOADATTR || op == DC_OP_LOADCAP || op == DC_OP_LOADCOLDEF ||
           op == DC_OP_HASCOL || op == DC_OP_LOADDEV;
}

/* LOADDEV's operand: the fields of `device` a table row answers without building the device. */
typedef enum dc_devfield {
    DC_DEVF_DRIVER = 0,        /* device.driver: the row's pool's driver */
    DC_DEVF_MULTI = 1,         /* device.allowMultipleAllocations: the table's bitmap */
    DC_DEVF__COUNT
} dc_devfield;
/* Their names, as CEL selects them. */
extern const char *const dc_devfield_name[DC_DEVF__COUNT];

dracel_status dc_bind(const dc_program *p, const dc_table *t, const dracel_alloc *a,
                      dc_bound **out) DC_WUR;
void dc_bound_free(dc_bound *b);

/* The row the scalar VM reads LOADATTR/LOADCAP (and `device`) from. */
typedef struct dc_rowsrc {
    const dc_bound *b;
    uint32_t row;
} dc_rowsrc;

/* ---- Evaluation. */

typedef struct dc_iter {
    dc_val range;
    uint32_t next;
    bool two;
} dc_iter;

/* A list or map under construction by a comprehension (ACC* ops). */
typedef struct dc_accum {
    dc_val *keys, *vals;
    uint32_t n, cap;
    bool is_map;
    dc_val poison;             /* DC_K_NULL when clean, else the error */
} dc_accum;

struct dc_ectx {
    dc_arena arena;            /* reset (chunks kept) at the start of each evaluation */
    uint64_t cost, cost_limit; /* cel-go cost units; 0 limit: unlimited */
    bool cost_exceeded;
    bool oom;
    bool limit_hit;            /* oom because of mem_limit (an evaluation error, as configured) */
    bool alloc_failed;         /* oom because the allocator failed (the caller's ENOMEM) */
    size_t mem_limit;          /* bytes one evaluation may allocate; 0: unlimited */
    size_t mem_base;           /* arena.served when the evaluation began */
    /* Scratch reused across evaluations of the same program. */
    dc_val *stack;
    uint32_t stack_cap;
    dc_val *locals;
    dc_accum *accums;
    dc_iter *iters;
    uint32_t locals_cap, accums_cap, iters_cap;
    /* State the function libraries keep across evaluations in this context (the compiled
     * regular expressions of src/lib_core.c), released by dc_ectx_free. */
    void *lib_state;
    void (*lib_state_free)(void *state, const dracel_alloc *a);
    /* Set by the caller to evaluate on a table row instead of a device value. */
    const dc_rowsrc *rowsrc;
};

/* Add run-time cost (cel-go units). Returns false when the budget is exhausted: the caller
 * returns any value, the VM turns the evaluation into "operation cancelled: actual cost limit
 * exceeded". */
static inline bool dc_cost(dc_ectx *c, uint64_t units)
{
    c->cost += units;
    if (c->cost_limit && c->cost > c->cost_limit) {
        c->cost_exceeded = true;
        return false;
    }
    return true;
}

void dc_ectx_init(dc_ectx *c, const dracel_alloc *a);
/* A context ready for a new run: its memory reset (chunks, scratch and library state such as
 * compiled regular expressions kept), no cost, no failure, the given limits. */
void dc_ectx_reset(dc_ectx *c, uint64_t cost_limit, size_t mem_limit);
void dc_ectx_free(dc_ectx *c);

/* The DRA device as the scalar VM sees it: a map with driver, attributes (domain -> id ->
 * value, missing domains read as empty maps), capacity, allowMultipleAllocations. */

/**
 * Evaluate @p p with the activation variables @p vars (indexed by slot). Always returns a
 * value: the result, or an error value (cost limit, out of memory, a CEL error).
 * Errors that are not CEL's (OOM, the cost limit) set c->oom / c->cost_exceeded.
 */
dc_val dc_vm_exec(const dc_program *p, dc_ectx *c, const dc_val *vars);
/* The error of an evaluation stopped by the cost limit. */
extern const dc_err dc_err_cost;

/** One value instruction (at pc) on boxed operands: the scalar VM's own semantics, for the
 *  vector VM's lanes that it does not vectorize. */
dc_val dc_vm_apply(dc_ectx *c, const dc_program *p, uint32_t pc, dc_val *args);
/** The evaluation error of a DRA selector whose result is not a bool. */
dc_val dc_vm_not_bool(dc_ectx *c, dc_val r);

/** Check stack discipline, jump targets and operand ranges; sets p->max_stack. Returns NULL or
 *  a static message naming the problem. */
/** Verify p's code (the checks of vm/program.c's header) and fill in the fields the verifier
 *  computes, allocated in @p mem (the program's arena, or a scratch one for a program that lives
 *  no longer). DRACEL_OK; DRACEL_EINPUT with *why the defect; DRACEL_ENOMEM. */
dracel_status dc_program_verify(dc_program *p, dc_arena *mem, const char **why) DC_WUR;

/** Print the program, one instruction a line (docs/bytecode.md). */
void dc_program_disasm(const dc_program *p, dc_buf *out);

/** Print a value as typed JSON (docs/dra-celc.md, "eval"). */
void dc_val_json(dc_buf *b, dc_val v);
/** Append s[0..n) as a JSON string (quotes, escapes; control characters and DEL as \\uXXXX;
 *  each byte that is not part of valid UTF-8 as U+FFFD, so that the output is valid UTF-8). */
void dc_json_quote(dc_buf *b, const char *s, size_t n);
/* A double as CEL prints it: the shortest text that reads back to the same value, ".0" after an
 * integral one, NaN and +Inf/-Inf (with json: the strings "NaN", "Infinity", "-Infinity"). The
 * one double printer of the values, the AST and JSON. */
void dc_double_text(dc_buf *b, double d, bool json);
/** Print a value as CEL-like text (for `eval` without --format json). */
void dc_val_text(dc_buf *b, dc_val v);

#endif
