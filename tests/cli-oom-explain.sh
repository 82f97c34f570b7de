#!/bin/sh
# tests/cli-oom-explain.sh: tests/cli-oom.sh's sweep for dra-celc explain (its allocations
# failing in turn, about 1,150 runs; a file of its own, so that the sweeps run side by side
# under make -j and none nears the 600 s limit of a test on a loaded machine: the two files
# in one were killed at it once). TAP output.
set -u
src=${top_srcdir:-.}
. "$src/tests/oom/sweep.sh"

sweep "explain" explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" \
  --nodes "$ex/nodes.yaml" --allocated "$ex/allocated.txt"
sweep "explain --format json --node" explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" \
  --slices "$ex/fleet" --node node-tainted --format json
echo "1..$n"
[ "$failed" = 0 ]
