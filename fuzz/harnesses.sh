# fuzz/harnesses.sh: sourced by fuzz/smoke.sh and fuzz/long.sh. The libFuzzer harnesses, the
# dictionary of each and the flags each needs beyond the common ones.
# shellcheck disable=SC2034 # used by the scripts that source this file
fuzz_harnesses="parse eval slices alloc inputs cluster watch request lint tierpolicy trace"
# fuzz_dict HARNESS: its dictionary (cel.dict for the CEL harnesses, slices.dict for the
# ResourceSlice loader, alloc.dict for the allocation scenarios, inputs.dict for the readers of
# dra-celc's own inputs, cluster.dict for the cluster's scripts of watch events, watch.dict for
# the extender's API client: JSON spans, watch events, list pages, the line buffer; request.dict
# for the extender's requests; lint.dict for the lint's scalar styles and objects; tierpolicy.dict
# for TierPolicy files, trace.dict for dra-celc replay's traces)
fuzz_dict() {
  case $1 in
  parse | eval) echo cel.dict ;;
  *) echo "$1.dict" ;;
  esac
}
# fuzz_flags HARNESS: the CEL harnesses take inputs past the source length limit (10 KiB; the
# eval harness's first byte is not source), so that the limit and the deepest expressions
# within it are reached (STYLE.md, "Fuzz at the limits"; their seeds sit there)
fuzz_flags() {
  case $1 in
  parse | eval) echo -max_len=12288 ;;
  esac
}
