#!/bin/sh
# docs/bytecode.md must hold the opcode table generated from vm/opcodes.def (tests/opdoc.c).
top=${top_srcdir:-.}
gen=${OPDOC:-./tests/opdoc}
echo "1..1"
if "$gen" >opdoc.out 2>&1 && grep -F -x -f opdoc.out "$top/docs/bytecode.md" | cmp -s - opdoc.out; then
  echo "ok 1 - docs/bytecode.md lists every opcode of vm/opcodes.def as generated"
  rm -f opdoc.out
else
  echo "not ok 1 - docs/bytecode.md is out of date: replace its table with the output of tests/opdoc"
  exit 1
fi
