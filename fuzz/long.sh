#!/bin/sh
# fuzz/long.sh HARNESS SECONDS CORPUS [TOP]: one long libFuzzer run, from the build directory
# of a build configured with --enable-fuzzing (TOP: the source tree, default ..). HARNESS is
# one of fuzz/harnesses.sh's names (parse, eval, slices, alloc, inputs, cluster, watch,
# request, lint). CORPUS, a directory that does not exist or is empty, gets a copy of the harness's
# seeds (fuzz/corpus/HARNESS/), grows there for SECONDS with the dictionary and flags that
# fuzz/smoke.sh uses, and is kept (fuzz/corpus/ holds chosen seeds only). libFuzzer's output
# goes to fuzz-long-HARNESS.log, a finding to fuzz-artifacts/HARNESS/ (a directory per harness:
# two runs at once must not take each other's findings). At the end, one line:
#
#   fuzz_alloc 3600 s: 12345678 runs; seeds 15 files 22921 bytes; corpus 1234 files 456789
#   bytes; cov 2345 ft 9876; found nothing
#
# (one line; "found crash-<sha1>" and the like when libFuzzer stopped on a finding). Exit 0
# when nothing was found, 1 when something was, 2 for a usage error.
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 HARNESS SECONDS CORPUS [TOP]" >&2
  exit 2
fi
h=$1; secs=$2; corpus=$3; top=${4:-..}
# shellcheck source=fuzz/harnesses.sh
. "$top/fuzz/harnesses.sh"
case " $fuzz_harnesses " in
*" $h "*) ;;
*) echo "$0: no harness '$h' (one of: $fuzz_harnesses)" >&2; exit 2 ;;
esac
case $secs in
'' | *[!0-9]*) echo "$0: SECONDS must be a number, not '$secs'" >&2; exit 2 ;;
esac
bin=./fuzz/fuzz_$h
[ -x "$bin" ] || { echo "$0: $bin not built (make fuzz-harnesses, in a fuzzing build)" >&2; exit 2; }
if [ -e "$corpus" ] && [ -n "$(ls -A "$corpus" 2>/dev/null)" ]; then
  echo "$0: $corpus is not empty (give a new directory: the seed sizes are counted from it)" >&2
  exit 2
fi
arts=fuzz-artifacts/$h
mkdir -p "$corpus" "$arts" || exit 2
cp "$top/fuzz/corpus/$h"/* "$corpus"/ || exit 2
# size DIR: "FILES files BYTES bytes"
size() { find "$1" -type f | { f=0; b=0; while IFS= read -r x; do f=$((f + 1)); b=$((b + $(wc -c <"$x"))); done; echo "$f files $b bytes"; }; }
seeds=$(size "$corpus")
log=fuzz-long-$h.log
# artifacts: the files of $arts, one a line
artifacts() { for a in "$arts"/*; do [ -e "$a" ] && printf '%s\n' "${a#"$arts"/}"; done; }
before=$(artifacts)
# shellcheck disable=SC2046
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -dict="$top/fuzz/$(fuzz_dict "$h")" \
  $(fuzz_flags "$h") -print_final_stats=1 -artifact_prefix="$arts/" "$corpus" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
[ -n "$runs" ] || runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
last=$(grep ' cov: ' "$log" | tail -n 1)
# stopped on a finding: no totals, the last status line's count
[ -n "$runs" ] || runs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
new=$(artifacts | while IFS= read -r a; do
        printf '%s\n' "$before" | grep -qxF "$a" || printf ' %s' "$a"; done)
if [ "$rc" = 0 ] && [ -z "$new" ]; then
  found="found nothing"; status=0
else
  found="found${new:- nothing in $arts/} (libFuzzer exit $rc, see $log)"; status=1
fi
echo "fuzz_$h $secs s: ${runs:-?} runs; seeds $seeds; corpus $(size "$corpus"); cov ${cov:-?} ft ${ft:-?}; $found"
exit $status
