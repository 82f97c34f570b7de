#!/bin/sh
# The library allocates only through the dracel_alloc hook (docs/api.md, "Allocation"): no
# object file of libdracel but vm/common.c's (the default allocator) may refer to the C
# library's allocation functions, and none to qsort (which may malloc a scratch copy: dc_sort
# replaces it). Checked on the compiled objects, so that macros and generated code (Bison's
# parser) count too. TAP output.
set -u
nm=${NM:-nm}
lib=${top_builddir:-.}/.libs/libdracel_core.a
if [ ! -f "$lib" ]; then
  echo "1..0 # SKIP $lib not built"
  exit 0
fi
n=0; failed=0
out=$($nm -A "$lib" 2>/dev/null) || { echo "1..0 # SKIP $nm cannot read $lib"; exit 0; }
for obj in $(printf '%s\n' "$out" | sed -n 's/^[^:]*:\([^:]*\.o\):.*/\1/p' | sort -u); do
  n=$((n + 1))
  bad=$(printf '%s\n' "$out" | grep ":$obj:" |
        sed -n 's/.* U \(malloc\|calloc\|realloc\|reallocarray\|free\|strdup\|strndup\|aligned_alloc\|posix_memalign\|valloc\|qsort\)$/\1/p' |
        sort -u | tr '\n' ' ')
  case $obj in
    *-common.o) bad=$(printf '%s' "$bad" | sed 's/\(malloc\|realloc\|free\) //g') ;;
  esac
  if [ -z "$bad" ]; then
    echo "ok $n - $obj allocates only through the hook"
  else
    echo "not ok $n - $obj calls $bad"
    failed=$((failed + 1))
  fi
done
echo "1..$n"
[ "$failed" = 0 ]
