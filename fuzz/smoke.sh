#!/bin/sh
# fuzz/smoke.sh: `make fuzz-smoke` (a build configured with --enable-fuzzing). Runs each libFuzzer
# harness for FUZZ_SECONDS (default 30) from a copy of its seed corpus, with its dictionary and
# flags (fuzz/harnesses.sh).
# A crash, a sanitizer report or (fuzz_eval) a disagreement between the VMs fails the harness;
# the reproducer is left in fuzz-artifacts/. Ends with "N passed, N failed".
set -u
top=${1:-..}
secs=${FUZZ_SECONDS:-30}
# shellcheck source=fuzz/harnesses.sh
. "$top/fuzz/harnesses.sh"
pass=0; fail=0
mkdir -p fuzz-artifacts
for h in $fuzz_harnesses; do
  dict=$(fuzz_dict "$h")
  bin=./fuzz/fuzz_$h
  corpus=$(mktemp -d)
  cp "$top"/fuzz/corpus/"$h"/* "$corpus"/ 2>/dev/null
  # shellcheck disable=SC2046
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -dict="$top/fuzz/$dict" \
       $(fuzz_flags "$h") -artifact_prefix=fuzz-artifacts/ "$corpus" >fuzz-$h.log 2>&1; then
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' fuzz-$h.log)
    echo "ok fuzz_$h ($runs runs in ${secs}s)"
    pass=$((pass + 1))
  else
    echo "not ok fuzz_$h: see fuzz-$h.log and fuzz-artifacts/"
    tail -n 30 fuzz-$h.log
    fail=$((fail + 1))
  fi
  rm -rf "$corpus"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
