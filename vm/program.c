/*
 * program.c: the opcode table, the verifier and the disassembler.
 *
 * The verifier walks the code once, in order, tracking the stack depth; every jump target must
 * be an instruction boundary reached with one consistent depth (as QuickJS's ss_check), operand
 * indexes must be in range, and the code must end in RETURN. It computes max_stack, which the
 * VM trusts instead of checking bounds on every push.
 */
#include "vm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const dc_opinfo dc_op_info[DC_OP__COUNT] = {
#define FMT(f)
#define OP(name, fmt, pop, push, doc) {#name, DC_FMT_##fmt, pop, push, doc},
#include "opcodes.def"
#undef OP
#undef FMT
};

_Static_assert(DC_OP__COUNT <= 256, "opcodes fit in 8 bits");

/* Stack effect of the instruction at pc. */
static int pops(const dc_program *p, uint32_t pc, dc_op op)
{
    const dc_opinfo *in = &dc_op_info[op];
    if (in->pop >= 0)
        return in->pop;
    uint32_t a = DC_INSN_A(p->code[pc]);
    switch (op) {
    case DC_OP_CALL: return (int)p->code[pc + 1];
    case DC_OP_MKLIST:
    case DC_OP_MKMAP: {
        if (a >= p->nconsts || p->consts[a].k != DC_K_LIST || p->consts[a].u.l->n < 1)
            return -1;
        int64_t n = p->consts[a].u.l->v[0].u.i;
        return (int)(op == DC_OP_MKMAP ? 2 * n : n);
    }
    default: return -1;
    }
}

const char *dc_program_verify(dc_program *p)
{
    uint32_t n = p->ncode;
    if (n == 0)
        return "empty program";
    /* depth[i] + 1 at instruction starts reached so far (0: not reached yet). */
    uint32_t depth_buf[256];
    uint32_t *depth = n <= 256 ? depth_buf : NULL;
    dc_arena tmp;
    dc_arena_init(&tmp, p->arena.alloc ? p->arena.alloc : &dc_default_alloc);
    if (!depth)
        depth = dc_arena_alloc(&tmp, n * sizeof *depth);
    if (!depth)
        return "out of memory";
    memset(depth, 0, n * sizeof *depth);
    const char *err = NULL;
    uint32_t max = 0;
    int64_t d = 0;
    bool reachable = true;
    depth[0] = 1;
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
        if (depth[pc]) {
            if (reachable && depth[pc] != d + 1) {
                err = "stack depth differs at a join";
                break;
            }
            d = depth[pc] - 1;
            reachable = true;
        } else if (!reachable) {
            /* Dead code after an unconditional jump: skip it (it is never run). */
            pc += words;
            continue;
        }
        uint32_t a = DC_INSN_A(w);
        switch (in->fmt) {
        case DC_FMT_K: if (a >= p->nconsts) err = "constant index out of range"; break;
        case DC_FMT_S: if (a >= p->nlocals) err = "local slot out of range"; break;
        case DC_FMT_V: if (a >= p->nvars) err = "variable slot out of range"; break;
        case DC_FMT_COL: if (a >= p->ncols) err = "column out of range"; break;
        case DC_FMT_FN:
            if (a >= p->nfns) err = "function index out of range";
            else if (p->fns[a]->argc != 255 && p->code[pc + 1] != p->fns[a]->argc)
                err = "argument count differs from the function's";
            break;
        case DC_FMT_IJ: if (a >= p->niters) err = "iterator slot out of range"; break;
        case DC_FMT_CK:
            if (a >= p->ncols || p->code[pc + 1] >= p->nconsts) err = "column or constant out of range";
            break;
        default: break;
        }
        if (err)
            break;
        int np = pops(p, pc, op);
        if (np < 0 || d < np) {
            err = np < 0 ? "bad operand" : "stack underflow";
            break;
        }
        d -= np;
        int push = in->push;
        if (op == DC_OP_ITERNEXT || op == DC_OP_ITERNEXT2) {
            /* The fallthrough pushes the element(s); the jump (done) pushes nothing. */
            int32_t off = (int32_t)p->code[pc + 1];
            int64_t t = (int64_t)pc + words + off;
            if (t < 0 || t >= n) { err = "jump out of range"; break; }
            if (depth[t] && depth[t] != d + 1) { err = "stack depth differs at a join"; break; }
            depth[t] = (uint32_t)d + 1;
        }
        if (op == DC_OP_ITERINIT2 || op == DC_OP_ITERINIT) {
            /* Error exit: an error value pushed, jump to the end of the comprehension. */
            int32_t off = (int32_t)p->code[pc + 1];
            int64_t t = (int64_t)pc + words + off;
            if (t < 0 || t >= n) { err = "jump out of range"; break; }
            if (depth[t] && depth[t] != d + 2) { err = "stack depth differs at a join"; break; }
            depth[t] = (uint32_t)d + 2;
        }
        d += push;
        if (d > max)
            max = (uint32_t)d;
        if (in->fmt == DC_FMT_J) {
            int32_t off = DC_INSN_SA(w);
            int64_t t = (int64_t)pc + words + off;
            if (t < 0 || t >= n) {
                err = "jump out of range";
                break;
            }
            /* ANDJ/ORJ/TESTCOND jump with the value kept: the depth after the instruction. */
            uint32_t at = (uint32_t)d + 1;
            if (depth[t] && depth[t] != at) {
                err = "stack depth differs at a join";
                break;
            }
            depth[t] = at;
        }
        if (op == DC_OP_JMP || op == DC_OP_RETURN)
            reachable = false;
        pc += words;
    }
    if (!err && DC_INSN_OP(p->code[n - 1]) != DC_OP_RETURN)
        err = "the program does not end in RETURN";
    dc_arena_free(&tmp);
    if (!err)
        p->max_stack = max;
    return err;
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
