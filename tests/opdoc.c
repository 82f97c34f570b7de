/*
 * opdoc: prints the opcode table of vm/opcodes.def as the markdown table of docs/bytecode.md.
 * tests/opdoc.sh checks that the document holds exactly this table, so the documentation is
 * generated from the one opcode list and cannot drift from it.
 */
#include <stdio.h>

static const char *fmt_doc(const char *f)
{
    return f;
}

int main(void)
{
    puts("| opcode | operands | pops | pushes | class | vector path | effect |");
    puts("| --- | --- | --- | --- | --- | --- | --- |");
#define FMT(f)
#define OP(name, fmt, pop, push, cls, vec, doc)                                            \
    if ((pop) < 0)                                                                       \
        printf("| `%s` | %s | n | %d | %s | %s | %s |\n", #name, fmt_doc(#fmt), (push), #cls, \
               #vec, doc);                                                               \
    else                                                                                 \
        printf("| `%s` | %s | %d | %d | %s | %s | %s |\n", #name, fmt_doc(#fmt), (pop),     \
               (push), #cls, #vec, doc);
#include "opcodes.def"
#undef OP
#undef FMT
    return 0;
}
