#!/bin/sh
# bench/run.sh: what `make bench` runs (from the build directory). Not a test: it prints
# numbers and ratios, and fails only when a VM and the hand-written loop disagree or a step
# cannot run (a fleet update or explain that fails).
#
#  1. S1..S4 on the scalar VM over one device activation (bench_scalar).
#  2. Synthetic fleets (bench/genfleet, cached in bench-data/): 10,000 devices in one file and
#     100,000 as a directory of files (1,000,000 too with BENCH_LARGE=1): `dra-celc bench` for
#     S1..S4 on both VMs, with the vector/scalar speed-up, and the vector VM's batch
#     interpreter alone (--vm batched: what programs without fused kernels get); then SD, a
#     DeviceClass's `device.driver == "gpu.example.com"`.
#  3. The hand-written C loops for S1 and S3 over the same columns, with the VM/loop ratio and a
#     check that both produce identical bitmaps.
#  4. Keeping a fleet up to date: the 100,000-device fleet loaded into a dracel_fleet, then
#     watch events (a node's slice published again with a higher generation: the same devices,
#     one changed, one less or more), each followed by a new snapshot patched from the previous
#     one, against a full reload (bench/fleetupdate; one line per kind of event).
#  5. Placement: 5,000 nodes of 8 GPUs (40,000 devices, one file per node), the sample's claim of
#     three tiers (examples/claims/gpu-tiered.yaml): the tier of every node, with `dra-celc
#     explain --stats`, beside Kubernetes' reported ~10 ms per node for its DRA filter.
#  6. Cluster state: 5,000 nodes, 40,000 devices, 10,000 claims in a dracel_cluster; one claim's
#     status or one node's labels changed and a snapshot taken (bench/cluster).
#  7. Replay: `dra-celc replay` of 100,000 pods (bench/gentrace) over 5,000 nodes of 8 GPUs,
#     with a tier policy in shadow and in enforce mode (bench/replay.sh).
#  8. Lint: `dra-celc lint` over a generated repository of 1,000 ResourceClaimTemplates, in each
#     output format, with the sample fleet, and over 1,000 copies of one template (bench/lint.sh).
#  9. Many objects: `dra-celc explain` over the sample fleet with 10,000 and 100,000 Node
#     objects, then with 5,000 and 50,000 DeviceClasses (each name checked against all others
#     for duplicates): the wall time of each, less that of a run with the sample's own objects,
#     and the ratio for ten times the objects (about 10 when reading and checking are linear,
#     100 when quadratic).
set -u
celc=./dra-celc
data=bench-data
mkdir -p "$data"
status=0

echo "== scalar VM, one device (ns per evaluation)"
./bench/bench_scalar || status=1

S1='device.attributes["gpu.example.com"].model == "H100"'
S2='device.attributes["gpu.example.com"].model in ["H100", "A100"] && device.attributes["gpu.example.com"].numaNode == 0'
S3='device.attributes["gpu.example.com"].model == "H100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0'
S4='device.attributes["gpu.example.com"].model.startsWith("H") && device.attributes["gpu.example.com"].healthy && device.attributes["gpu.example.com"].driverVersion.matches("^5[3-9][0-9]\\.")'
# Not one of the issue's four: the driver check every DeviceClass makes.
SD='device.driver == "gpu.example.com"'

field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }

fleets="10000:$data/fleet-10k.json 100000:$data/fleet-100k/"
[ "${BENCH_LARGE:-0}" = 1 ] && fleets="$fleets 1000000:$data/fleet-1m/"
for spec in $fleets; do
  n=${spec%%:*}; path=${spec#*:}
  [ -e "$path" ] || ./bench/genfleet "$n" "$path" || { status=1; continue; }
  echo "== fleet of $n devices ($path)"
  for s in 1 2 3 4 D; do
    eval "expr=\$S$s"
    sc=$("$celc" bench --slices "$path" -e "$expr" --vm scalar --repeat 3 2>/dev/null)
    vc=$("$celc" bench --slices "$path" -e "$expr" --vm vector --repeat 7 2>/dev/null)
    bc=$("$celc" bench --slices "$path" -e "$expr" --vm batched --repeat 7 2>/dev/null)
    ns_s=$(echo "$sc" | field ns_per_device); ns_v=$(echo "$vc" | field ns_per_device)
    ns_b=$(echo "$bc" | field ns_per_device)
    ms=$(echo "$sc" | field matched); mv=$(echo "$vc" | field matched)
    es=$(echo "$sc" | field errored); ev=$(echo "$vc" | field errored)
    ratio=$(awk -v a="$ns_s" -v b="$ns_v" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')
    mb=$(echo "$bc" | field matched); eb=$(echo "$bc" | field errored)
    agree=yes; { [ "$ms" = "$mv" ] && [ "$es" = "$ev" ] && [ "$ms" = "$mb" ] && [ "$es" = "$eb" ]; } || { agree=NO; status=1; }
    printf '   S%s  scalar %8s ns/device  vector %7s ns/device  speed-up %6sx  (batch interpreter %s)  matched %s errored %s  agree %s\n' \
      "$s" "$ns_s" "$ns_v" "$ratio" "$ns_b" "$mv" "$ev" "$agree"
  done
  echo "   $(echo "$vc" | sed 's/.*"load_ms"/load_ms/; s/}//')"
  ./bench/handloop "$path" 7 | sed 's/^/   /' || status=1
done
echo "== keeping a fleet up to date ($data/fleet-100k/)"
./bench/fleetupdate "$data/fleet-100k/" 201 | sed 's/^/   /' || status=1

fleet=$data/fleet-40k/
[ -e "$fleet" ] || ./bench/genfleet 40000 "$fleet" || status=1
top=${top_srcdir:-$(dirname "$0")/..}
echo "== placement: every node's tier for one claim of three tiers ($fleet)"
for mode in --no-explain ""; do
  st=$("$celc" explain --claim "$top/examples/claims/gpu-tiered.yaml" --classes "$top/examples/classes" \
        --slices "$fleet" --stats $mode 2>&1 >/dev/null | tail -n 1)
  ms=$(echo "$st" | sed -n 's/.*"allocate_ms":\([0-9.]*\).*/\1/p')
  nodes=$(echo "$st" | sed -n 's/.*"nodes":\([0-9]*\).*/\1/p')
  pol=$(echo "$st" | sed -n 's/.*"policy_ms":\([0-9.]*\).*/\1/p')
  [ -n "$ms" ] || { echo "   explain failed: $st"; status=1; continue; }
  ratio=$(awk -v a="$ms" -v n="$nodes" 'BEGIN { if (a > 0) printf "%.0f", n * 10 / a; else print "-" }')
  printf '   %-13s %s nodes in %s ms (target: under 10 ms in total), policy (compile + select) %s ms; %sx faster than 10 ms a node\n' \
    "${mode:-explained}" "$nodes" "$ms" "$pol" "$ratio"
done
echo "== cluster state: watch events and snapshots (5,000 nodes, 40,000 devices, 10,000 claims)"
./bench/cluster 5000 10000 101 | sed 's/^/   /' || status=1
echo "== replay: 100,000 pods over 5,000 nodes x 8 GPUs, two tier policies (bench/replay.sh)"
sh "$(dirname "$0")/replay.sh" "$celc" "$data" || status=1
echo "== lint: 1,000 ResourceClaimTemplates (bench/lint.sh)"
sh "$(dirname "$0")/lint.sh" "$celc" || status=1
echo "== many objects: Node objects and DeviceClasses read and checked for duplicates"
ms_now() { date +%s%N | awk '{ printf "%.0f", $1 / 1000000 }'; }
for n in 10000 100000; do
  [ -e "$data/nodes-$n.yaml" ] || awk -v n="$n" 'BEGIN { print "apiVersion: v1\nkind: List\nitems:"
    for (i = 0; i < n; i++) printf "- {kind: Node, metadata: {name: node-%d, labels: {zone: z%d}}}\n", i, i % 7 }' \
    >"$data/nodes-$n.yaml"
done
for n in 5000 50000; do
  [ -e "$data/classes-$n.yaml" ] || awk -v n="$n" 'BEGIN {
    print "apiVersion: v1\nkind: List\nitems:"
    print "- {kind: DeviceClass, metadata: {name: gpu.example.com}, spec: {selectors: [{cel: {expression: device.driver == \"gpu.example.com\"}}]}}"
    for (i = 1; i < n; i++) printf "- {kind: DeviceClass, metadata: {name: class-%d}, spec: {selectors: [{cel: {expression: \"true\"}}]}}\n", i }' \
    >"$data/classes-$n.yaml"
done
# many KIND: the wall time (ms) of explain with that file of objects
many() {
  t0=$(ms_now)
  "$celc" explain --claim "$top/examples/claims/gpu-tiered.yaml" --slices "$top/examples/fleet" \
    --no-explain "$@" >/dev/null 2>"$data/many.err" || { echo "   explain failed: $(head -c 200 "$data/many.err")" >&2; return 1; }
  echo $(( $(ms_now) - t0 ))
}
base=$(many --classes "$top/examples/classes") || status=1
echo "   the sample's own objects: ${base:-?} ms (subtracted below)"
for spec in "Node objects:10000:100000" "DeviceClasses:5000:50000"; do
  what=${spec%%:*}; rest=${spec#*:}; small=${rest%%:*}; large=${rest#*:}
  if [ "$what" = "Node objects" ]; then
    a=$(many --classes "$top/examples/classes" --nodes "$data/nodes-$small.yaml") || { status=1; continue; }
    b=$(many --classes "$top/examples/classes" --nodes "$data/nodes-$large.yaml") || { status=1; continue; }
  else
    a=$(many --classes "$data/classes-$small.yaml") || { status=1; continue; }
    b=$(many --classes "$data/classes-$large.yaml") || { status=1; continue; }
  fi
  ratio=$(awk -v a="$a" -v b="$b" -v z="${base:-0}" 'BEGIN { if (a > z) printf "%.1f", (b - z) / (a - z); else print "-" }')
  printf '   %-14s %6s in %6s ms, %6s in %6s ms: %sx the time for 10x the objects (linear: ~10)\n' \
    "$what" "$small" "$a" "$large" "$b" "$ratio"
done
exit $status
