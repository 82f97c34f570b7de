# tests/oom/sweep.sh: what tests/cli-oom.sh and tests/cli-oom-alloc.sh share, sourced: the
# shim's path (skip where it cannot be preloaded), a temporary directory, and sweep, which runs
# one dra-celc command with each of its allocations failing in turn. TAP output.
# shellcheck shell=sh
set -u
LC_ALL=C
export LC_ALL
build=${top_builddir:-.}
src=${top_srcdir:-.}
celc=${DRA_CELC:-$build/dra-celc}
shim=$build/tests/oom/.libs/libfailmalloc.so
if [ ! -f "$shim" ]; then
  echo "1..0 # SKIP no shared build of tests/oom/failmalloc.c (a static or sanitizer build)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex=$src/examples
printf '{"driver":"gpu.example.com","name":"gpu-0","attributes":{"model":{"string":"H100"}},"capacity":{"memory":{"value":"80Gi"}}}\n' >"$tmp/dev.json"
n=0; failed=0

# sweep NAME ARGS...: the command with each allocation failing in turn
sweep() {
  name=$1; shift
  FAILMALLOC_COUNT="$tmp/count" LD_PRELOAD="$shim" "$celc" "$@" >"$tmp/ref.out" 2>"$tmp/ref.err"
  ref_rc=$?
  total=$(cat "$tmp/count" 2>/dev/null || echo 0)
  rm -f "$tmp/count"
  bad=0; tried=0; absorbed=0
  at=1
  while [ "$at" -le "$total" ]; do
    FAILMALLOC_AT=$at LD_PRELOAD="$shim" "$celc" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    tried=$((tried + 1))
    if [ "$rc" = "$ref_rc" ] && cmp -s "$tmp/out" "$tmp/ref.out"; then
      absorbed=$((absorbed + 1))
    elif [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -q 'out of memory' "$tmp/err"; then
      :
    else
      if [ "$bad" -lt 3 ]; then
        echo "# $name: allocation $at of $total: exit $rc (expected $ref_rc, or 2 and 'out of memory')"
        head -c 300 "$tmp/out" | sed 's/^/#   stdout: /'
        head -n 3 "$tmp/err" | sed 's/^/#   stderr: /'
      fi
      bad=$((bad + 1))
    fi
    if [ "$at" -lt 300 ]; then
      at=$((at + 1))
    else
      at=$((at + (total - 300) / 300 + 1))
    fi
  done
  n=$((n + 1))
  if [ "$bad" = 0 ] && [ "$total" -gt 0 ]; then
    echo "ok $n - $name: $tried of $total allocations failed in turn, each out of memory or absorbed ($absorbed)"
  else
    echo "not ok $n - $name: $bad of $tried failed allocations gave another answer (of $total)"
    failed=$((failed + 1))
  fi
}

