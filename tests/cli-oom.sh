#!/bin/sh
# tests/cli-oom.sh: every allocation failure of a dra-celc command, the C library's, cJSON's and
# libyaml's included (tests/oom/failmalloc.c, preloaded), ends in the same answer (the failure
# was absorbed) or in exit 2 with "out of memory" on stderr and nothing on stdout: never in a
# different answer, a half-written one, another exit status or a crash. Each command is run
# once to count its allocations, then with each one failing in turn (past the first 300, a
# spread of 300 more). TAP output. Skips where the shim cannot be preloaded (static and
# sanitizer builds).
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

sweep "parse" parse -e '[1, 2].map(x, x + 1) == [2, 3]'
sweep "parse --format json" parse -e 'a.b(c, d[1])' --format json
sweep "parse, a syntax error, --format json" parse -e '1 + ' --format json
sweep "check" check -e 'device.attributes["gpu.example.com"].model.matches("^H") && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'
sweep "check --format json" check -e 'device.driver == "gpu.example.com"' --format json
sweep "eval" eval -e '{"a": [1, 2.5, "x", b"y"]}'
sweep "eval --format json" eval -e '[1, 2, 3].map(x, x * 2)' --format json
sweep "eval --device" eval --device "$tmp/dev.json" -e 'device.attributes["gpu.example.com"].model == "H100"'
sweep "eval, a regex" eval -e '"gpu-12".matches("^gpu-[0-9]+$") && "a,b".split(",").size() == 2'
sweep "eval --bind" eval -e 'x + 1' --bind 'x={"int":"41"}' --format json
sweep "eval --slices" eval --slices "$ex/fleet" -e 'device.attributes["gpu.example.com"].model == "H100"'
sweep "eval --slices --format json" eval --slices "$ex/fleet" -e 'device.driver == "gpu.example.com"' --format json
sweep "disasm" disasm -e 'device.attributes["gpu.example.com"].model in ["H100", "A100"]'
sweep "allocate --explain --format json" allocate "$src/tests/data/alloc/order-a.yaml" --explain --format json
sweep "allocate" allocate "$src/tests/alloc/37-first-available-backtrack-lower-tier.yaml"
sweep "allocate --explain, All mode" allocate "$src/tests/alloc/26-all-mode.yaml" --explain
sweep "allocate --format json, a pod's request mappings" allocate \
  "$src/tests/alloc/138-extended-resource-mappings.yaml" --format json
sweep "explain" explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" \
  --nodes "$ex/nodes.yaml" --allocated "$ex/allocated.txt"
sweep "explain --format json --node" explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" \
  --slices "$ex/fleet" --node node-tainted --format json
rp=$src/tests/replay
sweep "replay, two policies" replay --fleet "$rp/fleet.yaml" --classes "$rp/classes.yaml" \
  --policy "$rp/cap-enforce.yaml" --policy "$rp/cap-shadow.yaml" "$rp/mix.jsonl"
sweep "replay --format json, a queue" replay --fleet "$rp/fleet.yaml" --classes "$rp/classes.yaml" \
  --policy "$rp/queue-enforce.yaml" --format json "$rp/queue.jsonl"
sweep "replay --format html" replay --fleet "$rp/fleet.yaml" --classes "$rp/classes.yaml" \
  --policy "$rp/race-enforce.yaml" --format html "$rp/race.jsonl"
echo "1..$n"
[ "$failed" = 0 ]
