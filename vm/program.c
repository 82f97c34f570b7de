/*
 * program.c: the opcode table, the verifier and the disassembler.
 *
 * The verifier walks the code once, in order, tracking the stack depth; every jump target must
 * be an instruction boundary reached with one consistent depth (as QuickJS's ss_check), operand
 * indexes must be in range, and the code must end in RETURN. It stores in the program what
 * every evaluator needs and must not compute again: max_stack (the VM trusts it instead of
 * checking bounds on every push), each instruction's depth and pops (the vector VM finds its
 * operands by position), the largest pop count, whether the program loops or reads the device
 * as a whole, and the static part of its cost bound.
 */
#include "vm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const dc_opinfo dc_op_info[DC_OP__COUNT] = {
#define FMT(f)
#define OP(name, fmt, pop, push, cls, vec, doc)                                         \
    {#name, DC_FMT_##fmt, pop, push, DC_CLS_##cls, DC_VEC_##vec, doc},
#include "opcodes.def"
#undef OP
#undef FMT
};

_Static_assert(DC_OP__COUNT <= 256, "opcodes fit in 8 bits");

const char *const dc_devfield_name[DC_DEVF__COUNT] = {"driver", "allowMultipleAllocations"};

/* The values the instruction at pc pops; -1 when its operand is malformed. */
static int64_t pops_at(const dc_program *p, uint32_t pc, dc_op op)
{
    const dc_opinfo *in = &dc_op_info[op];
    if (in->pop >= 0)
        return in->pop;
    uint32_t a = DC_INSN_A(p->code[pc]);
    switch (op) {
    case DC_OP_CALL: return p->code[pc + 1];
    case DC_OP_MKLIST:
    case DC_OP_MKMAP: {
        if (a >= p->nconsts || p->consts[a].k != DC_K_LIST || p->consts[a].u.l->n < 1 ||
            p->consts[a].u.l->v[0].k != DC_K_INT || p->consts[a].u.l->v[0].u.i < 0 ||
            p->consts[a].u.l->v[0].u.i > (int64_t)UINT32_MAX / 2)
            return -1;
        int64_t n = p->consts[a].u.l->v[0].u.i;
        return op == DC_OP_MKMAP ? 2 * n : n;
    }
    default: return -1;
    }
}

/* The target of the jump at pc (fmt J or IJ), or -1 when it leaves the code. */
static int64_t jump_target(const dc_program *p, uint32_t pc, unsigned words)
{
    uint32_t w = p->code[pc];
    int64_t off = dc_op_info[DC_INSN_OP(w)].fmt == DC_FMT_J ? DC_INSN_SA(w)
                                                           : (int32_t)p->code[pc + 1];
    int64_t t = (int64_t)pc + words + off;
    return t >= 0 && t < p->ncode ? t : -1;
}

/* Record depth d at jump target t: the first time, or the same depth again. A backward jump
 * must land on an instruction already verified (loops jump back to their ITERNEXT). */
static const char *join(int32_t *depth, const uint8_t *seen, int64_t t, uint32_t pc, int64_t d)
{
    if (t < 0)
        return "jump out of range";
    if (t <= pc && !seen[t])
        return "backward jump to an instruction not verified";
    if (depth[t] >= 0 && depth[t] != d)
        return "stack depth differs at a join";
    depth[t] = (int32_t)d;
    return NULL;
}

dracel_status dc_program_verify(dc_program *p, dc_arena *mem, const char **why)
{
    uint32_t n = p->ncode;
    *why = NULL;
    if (n == 0) {
        *why = "empty program";
        return DRACEL_EINPUT;
    }
    /* depth: -1 until the first path reaches the word (or a jump targets it). */
    int32_t *depth = dc_arena_alloc(mem, n * sizeof *depth);
    uint32_t *npops = dc_arena_zalloc(mem, n * sizeof *npops);
    uint8_t *seen = dc_arena_zalloc(mem, n);
    if (!depth || !npops || !seen)
        return DRACEL_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        depth[i] = -1;
    const char *err = NULL;
    uint32_t max = 0, maxpops = 0;
    uint64_t cost = 0;
    bool loops = false, device = false;
    int64_t d = 0;
    bool reachable = true;
    depth[0] = 0;
    for (uint32_t pc = 0; pc < n && !err;) {
        uint32_t w = p->code[pc];
        dc_op op = DC_INSN_OP(w);
        if (op >= DC_OP__COUNT) {
            err = "unknown opcode";
            break;
        }
        const dc_opinfo *in = &dc_op_info[op];
        unsigned words = dc_fmt_words(in->fmt);
        if (pc + words > n) {
            err = "truncated instruction";
            break;
        }
        if (depth[pc] >= 0) {
            if (reachable && depth[pc] != d) {
                err = "stack depth differs at a join";
                break;
            }
            d = depth[pc];
            reachable = true;
        } else if (!reachable) {
            /* Dead code after an unconditional jump: skipped (it never runs), depth -1. */
            pc += words;
            continue;
        }
        depth[pc] = (int32_t)d;
        seen[pc] = 1;
        uint32_t a = DC_INSN_A(w);
        switch (in->fmt) {
        case DC_FMT_K: if (a >= p->nconsts) err = "constant index out of range"; break;
        case DC_FMT_S: if (a >= p->nlocals) err = "local slot out of range"; break;
        case DC_FMT_V: if (a >= p->nvars) err = "variable slot out of range"; break;
        case DC_FMT_COL: if (a >= p->ncols) err = "column out of range"; break;
        case DC_FMT_FN:
            if (a >= p->nfns) err = "function index out of range";
            else if (p->fns[a]->argc != DC_ARGC_ANY && p->code[pc + 1] != p->fns[a]->argc)
                err = "argument count differs from the function's";
            break;
        case DC_FMT_IJ: if (a >= p->niters) err = "iterator slot out of range"; break;
        case DC_FMT_CK:
            if (a >= p->ncols || p->code[pc + 1] >= p->nconsts) err = "column or constant out of range";
            break;
        case DC_FMT_DF: if (a >= DC_DEVF__COUNT) err = "device field out of range"; break;
        default: break;
        }
        if (err)
            break;
        int64_t np = pops_at(p, pc, op);
        if (np < 0 || d < np) {
            err = np < 0 ? "bad operand" : "stack underflow";
            break;
        }
        npops[pc] = (uint32_t)np;
        if (np > maxpops)
            maxpops = (uint32_t)np;
        loops |= in->vec == DC_VEC_SCALAR;
        device |= op == DC_OP_LOADVAR && a == p->device_slot;
        cost += 3 + (op == DC_OP_CHARGE ? a : 0);
        d -= np;
        /* Jumps that carry a value: ITERNEXT's done exit pushes nothing; ITERINIT's error exit
         * pushes the error. ANDJ/ORJ/TESTCOND keep the tested value (the depth after them);
         * JFALSE/JTRUE after their pop; JMP as it is. */
        if (in->fmt == DC_FMT_IJ)
            err = join(depth, seen, jump_target(p, pc, words), pc,
                       op == DC_OP_ITERINIT || op == DC_OP_ITERINIT2 ? d + 1 : d);
        d += in->push;
        if (d > max)
            max = (uint32_t)d;
        if (!err && in->fmt == DC_FMT_J)
            err = join(depth, seen, jump_target(p, pc, words), pc, d);
        if (op == DC_OP_JMP || op == DC_OP_RETURN)
            reachable = false;
        pc += words;
    }
    if (!err && DC_INSN_OP(p->code[n - 1]) != DC_OP_RETURN)
        err = "the program does not end in RETURN";
    /* Every jump target was reached by the sweep, unless it is an instruction's second word. */
    for (uint32_t i = 0; i < n && !err; i++)
        if (depth[i] >= 0 && !seen[i])
            err = "jump into the middle of an instruction";
    if (err) {
        *why = err;
        return DRACEL_EINPUT;
    }
    p->max_stack = max;
    p->max_pops = maxpops;
    p->depth = depth;
    p->pops = npops;
    p->loops = loops;
    p->reads_device = device;
    p->static_cost = cost;
    return DRACEL_OK;
}

void dc_program_disasm(const dc_program *p, dc_buf *out)
{
    for (uint32_t pc = 0; pc < p->ncode;) {
        uint32_t w = p->code[pc];
        dc_op op = DC_INSN_OP(w);
        if (op >= DC_OP__COUNT) {
            dc_buf_printf(out, "%4u  ??? 0x%08x\n", pc, w);
            pc++;
            continue;
        }
        const dc_opinfo *in = &dc_op_info[op];
        unsigned words = dc_fmt_words(in->fmt);
        uint32_t a = DC_INSN_A(w);
        dc_buf_printf(out, "%4u  %-10s", pc, in->name);
        switch (in->fmt) {
        case DC_FMT_K:
            dc_buf_printf(out, " %u  ; ", a);
            if (a < p->nconsts)
                dc_val_text(out, p->consts[a]);
            break;
        case DC_FMT_S: dc_buf_printf(out, " %u", a); break;
        case DC_FMT_N: dc_buf_printf(out, " %u", a); break;
        case DC_FMT_DF:
            if (a < DC_DEVF__COUNT)
                dc_buf_printf(out, " %u  ; device.%s", a, dc_devfield_name[a]);
            break;
        case DC_FMT_CK:
            if (a < p->ncols && p->code[pc + 1] < p->nconsts) {
                dc_buf_printf(out, " %u, %u  ; %s[\"%s\"].?%s.orValue(", a, p->code[pc + 1],
                              p->cols[a].capacity ? "capacity" : "attributes",
                              p->cols[a].domain->data, p->cols[a].id->data);
                dc_val_text(out, p->consts[p->code[pc + 1]]);
                dc_buf_putc(out, ')');
            }
            break;
        case DC_FMT_V: dc_buf_printf(out, " %u", a); break;
        case DC_FMT_COL:
            if (a < p->ncols)
                dc_buf_printf(out, " %u  ; %s%s[\"%s\"].%s%s", a, op == DC_OP_HASCOL ? "has(" : "",
                              p->cols[a].capacity ? "capacity" : "attributes",
                              p->cols[a].domain->data, p->cols[a].id->data,
                              op == DC_OP_HASCOL ? ")" : "");
            break;
        case DC_FMT_J:
            dc_buf_printf(out, " %+d  ; -> %d", DC_INSN_SA(w), (int)(pc + 1 + DC_INSN_SA(w)));
            break;
        case DC_FMT_FN:
            if (a < p->nfns)
                dc_buf_printf(out, " %s%s/%u", p->fns[a]->member ? "." : "", p->fns[a]->name,
                              p->code[pc + 1]);
            break;
        case DC_FMT_IJ:
            dc_buf_printf(out, " %u, %+d  ; -> %d", a, (int32_t)p->code[pc + 1],
                          (int)(pc + 2 + (int32_t)p->code[pc + 1]));
            break;
        default: break;
        }
        dc_buf_putc(out, '\n');
        pc += words;
    }
}
