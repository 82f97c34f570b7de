#!/bin/sh
# fuzz/smoke.sh: `make fuzz-smoke` (a build configured with --enable-fuzzing). Runs each libFuzzer
# harness for FUZZ_SECONDS (default 30) from a copy of its seed corpus, with its dictionary and
# flags (fuzz/harnesses.sh), with a fixed seed (FUZZ_SEED, default 1).
# A crash, a sanitizer report or (fuzz_eval) a disagreement between the VMs fails the harness;
# the reproducer is left in fuzz-artifacts/. Ends with "N passed, N failed".
set -u
top=${1:-..}
secs=${FUZZ_SECONDS:-30}
# The same mutations on every run of the same code (FUZZ_SEED, default 1): a failure in CI is
# replayed with that seed; fuzz/long.sh explores with libFuzzer's random seeds.
seed=${FUZZ_SEED:-1}
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
  before=$(ls fuzz-artifacts | wc -l)
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -dict="$top/fuzz/$dict" \
       -seed="$seed" $(fuzz_flags "$h") -artifact_prefix=fuzz-artifacts/ "$corpus" \
       >fuzz-$h.log 2>&1; then
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' fuzz-$h.log)
    echo "ok fuzz_$h ($runs runs in ${secs}s)"
    pass=$((pass + 1))
  else
    # what CI shows of a failure: the report, and the reproducer itself (base64; a
    # harness's inputs are at most a few KB), so that it can be replayed from CI's output
    echo "not ok fuzz_$h: see fuzz-$h.log and fuzz-artifacts/ (seed $seed)"
    grep -E 'ERROR|SUMMARY|==[0-9]+==|#[0-9]+ 0x|runtime error|Test unit written|Slowest unit' \
      fuzz-$h.log | head -n 30 | sed 's/^/#   /'
    [ "$(ls fuzz-artifacts | wc -l)" -gt "$before" ] &&
      for a in $(ls -t fuzz-artifacts | head -n 1); do
        echo "#   reproducer fuzz-artifacts/$a, base64:"
        base64 -w 0 "fuzz-artifacts/$a" | head -c 12000 | fold -w 120 | sed 's/^/#   /'
      done
    fail=$((fail + 1))
  fi
  rm -rf "$corpus"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
