/*
 * vvm.h: the vector VM's batch interpreter. It runs a bound program (vm/vm.h, dc_bound) over a
 * device table, a batch of rows (lanes) per instruction, into a selection (vm/select.h): two
 * bitmaps over all rows, matched and errored (with each errored row's error). Programs of the
 * shapes vm/vplan.h covers run on the fused kernels instead (the choice: vm/select.c).
 *
 * Registers are typed batches (bools as bitmaps, ints, dictionary ids, distinct-value ids,
 * broadcast constants, or boxed values) with an error mask; control flow narrows an active
 * mask. Pure functions of a dictionary-encoded value with constant other operands are
 * computed once per distinct value (host functions only when declared pure: DC_BF_IMPURE).
 * Anything else runs lane by lane through the scalar VM's
 * own code (dc_vm_apply), and programs with comprehensions or whole-device uses run entirely
 * lane by lane on the scalar VM: the two VMs agree by construction.
 *
 * Change with: vm/vvm.c, vm/select.c, vm/opcodes.def (each opcode's vector path: the dispatch
 * tables of vm/vvm.c require its function, and the build fails without it), docs/columnar.md.
 */
#ifndef DC_VVM_H
#define DC_VVM_H

#include "vm.h"

#include "select.h"

/** The batch interpreter: run @p b over every row of its table into @p out (whose bitmaps are
 *  zeroed), batch by batch; a batch that reaches the evaluation memory limit is redone row by
 *  row (dc_select_row). *heavy: a memo entry came near the limit (dc_memo_heavy), and the run
 *  stopped: the caller runs the selection row by row instead. The selection's contexts are
 *  reset by the caller. DRACEL_OK or DRACEL_ENOMEM. */
dracel_status dc_vvm_batches(const dc_bound *b, const dc_val *vars, const dc_vopts *o,
                             dc_selection *out, bool *heavy) DC_WUR;

#endif
