#!/bin/sh
# tests/cli-oom-alloc.sh: tests/cli-oom.sh's sweep for the commands that allocate and replay (a
# file of its own, so that they run side by side under make -j; explain's sweeps, about 1,150
# runs, are tests/cli-oom-explain.sh). TAP output.
set -u
src=${top_srcdir:-.}
. "$src/tests/oom/sweep.sh"

sweep "allocate --explain --format json" allocate "$src/tests/data/alloc/order-a.yaml" --explain --format json
sweep "allocate" allocate "$src/tests/alloc/37-first-available-backtrack-lower-tier.yaml"
sweep "allocate --explain, All mode" allocate "$src/tests/alloc/26-all-mode.yaml" --explain
sweep "allocate --format json, a pod's request mappings" allocate \
  "$src/tests/alloc/138-extended-resource-mappings.yaml" --format json
rp=$src/tests/replay
sweep "replay, two policies" replay --fleet "$rp/fleet.yaml" --classes "$rp/classes.yaml" \
  --policy "$rp/cap-enforce.yaml" --policy "$rp/cap-shadow.yaml" "$rp/mix.jsonl"
sweep "replay --format json, a queue" replay --fleet "$rp/fleet.yaml" --classes "$rp/classes.yaml" \
  --policy "$rp/queue-enforce.yaml" --format json "$rp/queue.jsonl"
sweep "replay --format html" replay --fleet "$rp/fleet.yaml" --classes "$rp/classes.yaml" \
  --policy "$rp/race-enforce.yaml" --format html "$rp/race.jsonl"
echo "1..$n"
[ "$failed" = 0 ]
