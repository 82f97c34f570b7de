#!/bin/sh
# fuzz/smoke.sh: `make fuzz-smoke` (a build configured with --enable-fuzzing). Runs each libFuzzer
# harness for FUZZ_SECONDS (default 30) from a copy of its seed corpus, with its dictionary
# (cel.dict for the CEL harnesses, slices.dict for the ResourceSlice loader, alloc.dict for the
# allocation scenarios, inputs.dict for the readers of dra-celc's own inputs, cluster.dict for the
# cluster's scripts of watch events, watch.dict for the extender's API client: JSON spans, watch
# events, list pages, the line buffer; request.dict for the extender's requests; lint.dict for
# the lint's scalar styles and objects; tierpolicy.dict for TierPolicy files, trace.dict for
# dra-celc replay's traces).
# A crash, a sanitizer report or (fuzz_eval) a disagreement between the VMs fails the harness;
# the reproducer is left in fuzz-artifacts/. Ends with "N passed, N failed".
set -u
top=${1:-..}
secs=${FUZZ_SECONDS:-30}
pass=0; fail=0
mkdir -p fuzz-artifacts
for h in parse eval slices alloc inputs cluster watch request lint tierpolicy trace; do
  dict=cel.dict; [ "$h" = slices ] && dict=slices.dict; [ "$h" = alloc ] && dict=alloc.dict
  [ "$h" = inputs ] && dict=inputs.dict; [ "$h" = cluster ] && dict=cluster.dict
  [ "$h" = watch ] && dict=watch.dict; [ "$h" = request ] && dict=request.dict
  [ "$h" = lint ] && dict=lint.dict; [ "$h" = tierpolicy ] && dict=tierpolicy.dict
  [ "$h" = trace ] && dict=trace.dict
  bin=./fuzz/fuzz_$h
  corpus=$(mktemp -d)
  cp "$top"/fuzz/corpus/"$h"/* "$corpus"/ 2>/dev/null
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -dict="$top/fuzz/$dict" \
       -artifact_prefix=fuzz-artifacts/ "$corpus" >fuzz-$h.log 2>&1; then
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
