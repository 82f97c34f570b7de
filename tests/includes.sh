#!/bin/sh
# tests/includes.sh: the programs include only dracel.h and their own headers
# (scripts/check-includes, which the build also runs), and the check catches what it must.
top=${top_srcdir:-.}
echo "1..2"
if out=$(sh "$top/scripts/check-includes" "$top" src/celc src/extender src/kube 2>&1); then
  echo "ok 1 - src/celc, src/extender and src/kube include only dracel.h, system headers, their own headers and src/kube's"
else
  echo "not ok 1 - a program includes library-internal headers:"
  printf '%s\n' "$out" | sed 's/^/#   /'
fi
tmp=${TMPDIR:-/tmp}/dracel-includes.$$
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/src/prog" "$tmp/src/alloc" "$tmp/vm"
: >"$tmp/vm/vm.h"
: >"$tmp/src/alloc/allocint.h"
: >"$tmp/src/alloc.h"
: >"$tmp/src/prog/own.h"
printf '%s\n' '#include "dracel.h"' '#include "own.h"' '#include <stdio.h>' \
  '#include "../alloc.h"' '# include <vm.h>' '#include <allocint.h>' >"$tmp/src/prog/main.c"
out=$(sh "$top/scripts/check-includes" "$tmp" src/prog 2>&1); rc=$?
if [ $rc = 1 ] && printf '%s\n' "$out" | grep -q 'main.c:4: includes "../alloc.h"' &&
   printf '%s\n' "$out" | grep -q 'main.c:5: includes <vm.h>' &&
   printf '%s\n' "$out" | grep -q 'main.c:6: includes <allocint.h>' &&
   [ "$(printf '%s\n' "$out" | wc -l)" = 3 ]; then
  echo "ok 2 - a program including an internal header (by path, or with <>, one of a folder's too) is caught"
else
  echo "not ok 2 - the include check missed a violation (status $rc):"
  printf '%s\n' "$out" | sed 's/^/#   /'
fi
