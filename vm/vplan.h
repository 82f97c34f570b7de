/*
 * vplan.h: fused kernels of the vector VM. When a program is bound to a table, the binder
 * tries to read its bytecode as a tree of `&&`, `||` and `!` over leaves that each depend on at
 * most one column, all of them of one kind (no rows of another kind). Such a tree runs 64 rows
 * at a time straight from the table's columns, with no copy into registers:
 *
 *   - a string column compared with a string constant (`==`, `!=`): dictionary id equality;
 *   - a string column `in` a constant list of strings: equality with a few ids;
 *   - an int column compared with an int constant, or `in` a constant list of up to 8 ints;
 *   - a bool column itself, and has() of any column: the column's bitmaps;
 *   - any other expression of one string, version, quantity or bool column and constants
 *     (startsWith, matches, compareTo(...) >= 0, lowerAscii() == ..., ...): a memo of its answer
 *     per distinct value (a dictionary id, an entry of the column's distinct values), filled
 *     for a string column as rows meet new ids and at once for the others;
 *   - an expression of no column: one value;
 *   - `device.driver` (an answer per driver, looked up through the row's pool) and
 *     `device.allowMultipleAllocations` (the table's bitmap): LOADDEV.
 *
 * Each leaf gives two bitmaps per word (true, and error-or-not-a-bool) and `&&`/`||`/`!`
 * combine them with cel-go's error absorption; a word whose left side already decides skips
 * the right. Rows whose result is an error (rare) get their exact error value from the same
 * tree evaluated on boxed values through dc_vm_apply, the scalar VM's own instruction code.
 * Programs of any other shape (a ternary, two columns in one comparison, an int column in a
 * function call, comprehensions, ...) run on the batch interpreter of vm/vvm.c.
 *
 * Change with: vm/vplan_build.c (the plan, built by vm/bind.c), vm/vplan_run.c, vm/select.c
 * (which runs a plan), docs/columnar.md.
 */
#ifndef DC_VPLAN_H
#define DC_VPLAN_H

#include "vm.h"

struct dc_selection;

/** Build the plan of a bound program in its arena (b->plan; NULL when the program does not
 *  have a shape the plan covers). DRACEL_OK or DRACEL_ENOMEM. */
dracel_status dc_plan_build(dc_bound *b, dc_arena *a) DC_WUR;

/** Run b's plan over every row of its table into out (whose bitmaps are zeroed; values
 *  allocated when keep). DRACEL_OK or DRACEL_ENOMEM. *heavy: a memo entry came near
 *  mem_limit (dc_memo_heavy): the caller runs the selection row by row instead. */
dracel_status dc_plan_run(const dc_bound *b, const dc_val *vars, bool keep, size_t mem_limit,
                          struct dc_selection *out, bool *heavy) DC_WUR;

#endif
