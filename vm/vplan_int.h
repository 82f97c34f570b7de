/*
 * vplan_int.h: the plan of a fused program, shared by its builder (vm/vplan_build.c) and its
 * runner (vm/vplan_run.c); nothing else looks inside. A plan is a tree of value nodes (what the
 * bytecode computes, each with the one column it depends on) and of plan nodes (`&&`, `||`,
 * `!` over typed leaves) whose root is the program's result.
 */
#ifndef DC_VPLAN_INT_H
#define DC_VPLAN_INT_H

#include "vplan.h"

#include "kernels.h"

/* ---- Value nodes: what the bytecode computes. */

enum { VN_CONST, VN_VAR, VN_COL, VN_COLDEF, VN_HAS, VN_OP };

#define COL_NONE UINT32_MAX
#define COL_MANY (UINT32_MAX - 1)
#define MAX_ARGS 16u   /* operands of one instruction in a plan */
#define MAX_DEPTH 64u  /* nesting of a plan (its evaluation recurses) */
#define MAX_SET DC_KN_MAX_SET /* strings of an `in` list compared as ids */

typedef struct vnode {
    uint8_t kind;
    uint8_t nargs;
    uint32_t pc;       /* the instruction */
    uint32_t a;        /* CONST: constant; VAR: slot; COL, COLDEF, HAS: program column */
    uint32_t def;      /* COLDEF: the default's constant */
    uint32_t col;      /* the one column it depends on, COL_NONE or COL_MANY */
    uint32_t depth;
    uint32_t args[MAX_ARGS];
} vnode;

/* ---- Plan nodes. */

enum { P_AND, P_OR, P_NOT, P_CONST, P_EQID, P_INSET, P_CMPINT, P_ININT, P_BOOL, P_HAS, P_MEMO,
       P_DRIVER };

typedef struct pnode {
    uint8_t kind;
    uint8_t op;        /* P_CMPINT: the comparison (column OP constant); P_EQID: 1 for != */
    uint32_t pc;       /* P_AND, P_OR, P_NOT: the instruction */
    uint32_t a, b;     /* children */
    uint32_t vn;       /* leaves: the value node */
    uint32_t col;      /* leaves on a column: the program column */
    int64_t c;         /* P_CMPINT */
    uint32_t ids[MAX_SET], nids; /* P_EQID (one), P_INSET */
    int64_t ints[MAX_SET];       /* P_ININT (nids of them) */
} pnode;

typedef struct dc_plan {
    vnode *vn;
    uint32_t nvn;
    pnode *pn;
    uint32_t npn, root;
    /* Per program column, then the two fields of `device` read as columns: DRIVER (NULL here:
     * its leaves read the row's pool) and MULTI (allowMultipleAllocations, a bool column of
     * the table's bitmap, present on every row). */
    const dc_tcol **cols;
    dc_tcol multi;
} dc_plan;

/* The pseudo-columns after a program's own (pnode.col, vnode.a). */
#define DRIVER_COL(p) ((p)->ncols)
#define MULTI_COL(p) ((p)->ncols + 1)

#endif
