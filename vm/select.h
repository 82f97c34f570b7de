/*
 * select.h: a selection, the result of running a bound program (vm/vm.h, dc_bound) over every
 * row of a device table: two bitmaps over all rows, matched and errored, with each errored
 * row's error; and the choice of the engine that computes it (vm/select.c): the fused kernels
 * (vm/vplan.h), the batch interpreter (vm/vvm.h) or the scalar VM row by row. The three agree
 * exactly (tests/unit/test_diff, tests/unit/test_vplan, every case of tests/run-cases).
 *
 * Change with: vm/select.c, vm/vvm.c, vm/vplan_run.c, src/api_table.c, docs/columnar.md.
 */
#ifndef DC_SELECT_H
#define DC_SELECT_H

#include "vm.h"

/* The result of a run over a table. */
typedef struct dc_selection {
    dc_arena arena;              /* the bitmaps and the error values */
    uint32_t rows;
    uint64_t *matched, *errored; /* DC_BITS_WORDS(rows) words each */
    dc_foreign *errors;          /* (row, error value), sorted by row */
    uint32_t nerrors, caperrors;
    dc_val common_err;           /* the error of every errored row that errors[] does not list
                                    (the fused kernels' commonest error: a column's absence),
                                    or null */
    uint64_t lanes_scalar;       /* rows evaluated lane by lane on the scalar VM (statistics) */
    dc_val *values;              /* with dc_vopts.keep_values: every row's result (tests) */
    const dc_err *last_err;      /* the last error copied: the next equal one shares it */
    dc_ectx run, lane, row;      /* the evaluators' scratch, kept across runs (memory chunks,
                                    compiled regular expressions): the run's memos, a batch's
                                    lanes, a row on the scalar VM */
    uint64_t *bits;              /* matched and errored live here, kept across runs */
    size_t bits_cap;             /* words */
} dc_selection;

enum { DC_VVM_DEFAULT_BATCH = 1024 };

typedef struct dc_vopts {
    uint32_t batch;              /* lanes per batch (0: DC_VVM_DEFAULT_BATCH); any value >= 1 */
    bool scalar;                 /* run every row on the scalar VM (the reference) */
    bool batched;                /* never the fused kernels (vm/vplan.h): the batch interpreter */
    uint64_t cost_limit;         /* per-row run-time cost budget (0: unlimited) */
    size_t mem_limit;            /* per-evaluation memory of the scalar fallback */
    bool keep_values;            /* also keep every row's result value (differential tests) */
} dc_vopts;

void dc_selection_init(dc_selection *s, const dracel_alloc *a);
void dc_selection_free(dc_selection *s);

/** Run @p b over all rows of its table with activation @p vars (the `device` slot is the
 *  row), on the engine that can: the fused kernels (vm/vplan.h), the batch interpreter
 *  (vm/vvm.h), or row by row on the scalar VM (loops, reads of `device` as a whole, a worst
 *  case over the cost limit, what asked for it, and a run whose memos came near the memory
 *  limit). Reuses @p out's memory. DRACEL_OK or DRACEL_ENOMEM. */
dracel_status dc_select_run(const dc_bound *b, const dc_val *vars, const dc_vopts *o,
                            dc_selection *out) DC_WUR;

/** Row @p row on the scalar VM (the reference) in context @p c, its result recorded in @p out
 *  (and kept with @p keep): false on ENOMEM. */
bool dc_select_row(const dc_bound *b, const dc_val *vars, bool keep, dc_ectx *c,
                   dc_selection *out, uint32_t row) DC_WUR;

/** Record the error of a row (rows in increasing order): false on ENOMEM. */
bool dc_selection_add_error(dc_selection *s, uint32_t row, dc_val e);
/** The same with an error already in s's arena. */
bool dc_selection_add_copied(dc_selection *s, uint32_t row, dc_val e);

/** Did a memo entry (one value of one instruction or expression, computed once for many rows
 *  in the vector VM's run arena, which has no per-row limit) take so much memory that some
 *  row's evaluation might reach the evaluation memory limit on the scalar VM? Then the vector
 *  VM runs the selection row by row instead: the limit stays exactly per row. */
bool dc_memo_heavy(size_t bytes, size_t mem_limit, uint32_t ninsns);

/** The error of an errored row, or NULL. */
const dc_val *dc_selection_error(const dc_selection *s, uint32_t row);

#endif
