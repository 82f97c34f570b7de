#!/bin/sh
# docs/functions.md must hold the function table generated from src/decls.c (tests/fndoc.c),
# and every declared function must have a run-time implementation (fndoc exits 1 otherwise).
top=${top_srcdir:-.}
gen=${FNDOC:-./tests/fndoc}
echo "1..2"
if "$gen" >fndoc.out; then
  echo "ok 1 - every declared function has a run-time implementation"
else
  echo "not ok 1 - declared functions without a run-time implementation (see above)"
fi
if grep -F -x -f fndoc.out "$top/docs/functions.md" | cmp -s - fndoc.out; then
  echo "ok 2 - docs/functions.md lists every declared overload as generated"
  rm -f fndoc.out
else
  echo "not ok 2 - docs/functions.md is out of date: replace its table with the output of tests/fndoc"
  exit 1
fi
