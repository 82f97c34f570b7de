#!/bin/sh
# bench/extender.sh: dra-extender under load (make bench, after bench/run.sh; wrk from Debian).
# A benchmark, not a test: it prints numbers, and fails only when a step cannot run or an
# answer is not 200. Traffic goes to 127.0.0.1 only, every wait bounded.
#
# The fleet: 5,000 nodes x 8 GPUs (bench/genfleet, one file per node), Node objects with labels,
# the sample's DeviceClass, and the claim of three tiers of examples/extender/claims.yaml. The
# scheduler's request names every node (nodeCacheCapable: true), 65 KB.
#
#  1. The first pod of a new claim (a new claim file of a new spec: a new snapshot and a policy
#     to compile, every node computed), of a new claim of a spec seen before (the answers
#     cached), of a new snapshot after an allocation elsewhere (the policy and the answers of
#     the other nodes kept), and after a slice update (one pool changed: a new table, the
#     policy compiled again, one node computed): curl's time_total, 5 of each.
#  2. Filter and prioritize at a constant rate (50 req/s, one connection: bench/extender.lua
#     schedules each request from the start time) and at saturation (2 and 4 connections):
#     p50/p90/p99/max from wrk, the rate achieved, and the extender's CPU time per request.
#  3. The same with allocations arriving between requests: a claim allocated on another node
#     every 100 ms (each a new snapshot), and the snapshots published meanwhile.
#  4. RSS over a 60 s saturating run (BENCH_SECONDS to change), sampled every 5 s.
#     BENCH_FIRST_ONLY=1 stops after section 1.
#  5. The Nodes form (nodeCacheCapable: false): 5,000 full Node objects in the request.
# The machine's cores and load are printed first: on a shared machine, latencies are the
# machine's as much as the extender's (the CPU time per request is less sensitive to it).
set -u
ext=./dra-extender
top=${top_srcdir:-$(dirname "$0")/..}
data=bench-data
secs=${BENCH_SECONDS:-60}
status=0
command -v wrk >/dev/null 2>&1 || { echo "== extender: wrk is not installed (scripts/deps installs it): skipped"; exit 0; }
command -v curl >/dev/null 2>&1 || { echo "== extender: curl is not installed: skipped"; exit 0; }
[ -x "$ext" ] || { echo "== extender: $ext was not built: skipped"; exit 0; }
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
mkdir -p "$data"
fleet=$data/fleet-40k/
[ -e "$fleet" ] || ./bench/genfleet 40000 "$fleet" >/dev/null || exit 1
work=$(mktemp -d)
pid=
wpid=
cleanup() {
  rm -f "$work/alloc-on"
  [ -n "$wpid" ] && kill "$wpid" 2>/dev/null
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Node objects (one List) with a zone label, the claims, the slices (a copy: section 1 rewrites
# some), and the request bodies.
awk 'BEGIN { printf "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
  for (i = 0; i < 5000; i++) printf "%s{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%05d\",\"labels\":{\"topology.kubernetes.io/zone\":\"zone-%d\",\"kubernetes.io/hostname\":\"node-%05d\"}}}", (i ? "," : ""), i, i % 3, i;
  print "]}" }' >"$work/nodes.json"
mkdir -p "$work/claims" "$work/fleet"
cp "$top/examples/extender/claims.yaml" "$work/claims/"
cp "$fleet"/* "$work/fleet/"
pod() { # CLAIM: the pod trainer-0 with its claim named CLAIM
  printf '{"metadata":{"name":"trainer-0","namespace":"default","uid":"u-0"},"spec":{"containers":[{"name":"main","image":"x"}],"resourceClaims":[{"name":"gpu","resourceClaimName":"%s"}]},"status":{}}' "$1"
}
names_body() { # CLAIM FILE
  awk -v pod="$(pod "$1")" 'BEGIN { printf "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":[", pod;
    for (i = 0; i < 5000; i++) printf "%s\"node-%05d\"", (i ? "," : ""), i; print "]}" }' >"$2"
}
names_body trainer-0-gpu "$work/names.json"
# The Nodes form: each Node as kube-scheduler sends it (labels, capacity, conditions, images).
awk -v pod="$(pod trainer-0-gpu)" 'BEGIN { printf "{\"Pod\":%s,\"Nodes\":{\"metadata\":{},\"items\":[", pod;
  for (i = 0; i < 5000; i++) {
    printf "%s{\"metadata\":{\"name\":\"node-%05d\",\"uid\":\"%08d-0000-4000-8000-000000000000\",\"resourceVersion\":\"%d\",\"labels\":{\"kubernetes.io/hostname\":\"node-%05d\",\"topology.kubernetes.io/zone\":\"zone-%d\",\"node.kubernetes.io/instance-type\":\"gpu-8x\"},\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\"}},", (i ? "," : ""), i, i, 1000 + i, i, i % 3;
    printf "\"spec\":{\"podCIDR\":\"10.%d.%d.0/24\"},\"status\":{\"capacity\":{\"cpu\":\"96\",\"memory\":\"1056000000Ki\",\"pods\":\"110\"},\"allocatable\":{\"cpu\":\"95\",\"memory\":\"1050000000Ki\",\"pods\":\"110\"},", int(i / 256), i % 256;
    printf "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastHeartbeatTime\":\"2026-12-01T10:00:00Z\",\"lastTransitionTime\":\"2026-11-01T10:00:00Z\",\"reason\":\"KubeletReady\",\"message\":\"kubelet is posting ready status\"}],";
    printf "\"images\":[";
    for (k = 0; k < 20; k++) printf "%s{\"names\":[\"registry.example.com/team/image-%d@sha256:%064d\",\"registry.example.com/team/image-%d:v%d\"],\"sizeBytes\":%d}", (k ? "," : ""), k, k, k, k, 100000000 + k;
    printf "],\"nodeInfo\":{\"kubeletVersion\":\"v1.36.0\",\"containerRuntimeVersion\":\"containerd://2.1.0\",\"osImage\":\"Debian GNU/Linux 12 (bookworm)\"}}}";
  }
  print "]}}" }' >"$work/nodes-form.json"

"$ext" --objects "$work/fleet" --objects "$top/examples/classes" --objects "$work/nodes.json" \
  --objects "$work/claims" --address 127.0.0.1 --port 0 --port-file "$work/port" \
  --log-level warn --max-body 256MiB 2>"$work/ext.log" &
pid=$!
i=0
while [ ! -s "$work/port" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$work/port" ] || { echo "== extender: did not start"; cat "$work/ext.log"; exit 1; }
url=http://127.0.0.1:$(cat "$work/port")
i=0
until curl -sf "$url/readyz" >/dev/null 2>&1 || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
metric() { curl -s "$url/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
snaps() { metric dra_extender_snapshots_total; }
# wait_snapshot N: until more than N snapshots were published (at most 10 s)
wait_snapshot() {
  i=0
  while [ "$(snaps)" -le "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
# timed PATH BODY: one request's curl time_total in ms (its status in $work/code; a status
# other than 200 makes the run fail)
timed() {
  t=$(curl -s -o "$work/out.json" -w '%{time_total} %{http_code}' -X POST \
       -H 'Content-Type: application/json' --data-binary @"$2" "$url$1")
  echo "${t#* }" >"$work/code"
  [ "${t#* }" = 200 ] || echo bad >"$work/failed"
  echo "$t" | awk '{ printf "%.2f", $1 * 1000 }'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

echo "== extender: 5,000 nodes x 8 GPUs, a claim of three tiers, every node name sent"
echo "   machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "   request body $(wc -c <"$work/names.json") bytes (NodeNames), $(wc -c <"$work/nodes-form.json") bytes (Nodes)"
t=$(timed /filter "$work/names.json")
passed=$(grep -o '"NodeNames":\[[^]]*\]' "$work/out.json" | tr ',' '\n' | grep -c node-)
echo "   the first filter (a new claim, the first snapshot): $t ms, $passed nodes passed"
t=$(timed /prioritize "$work/names.json")
echo "   the first prioritize (the answers the filter cached): $t ms"

# 1. First pods.
new_claim=; same_spec=; new_snap=; new_slice=
claim_file() { # K EXTRA-SELECTOR: claim trainer-K-gpu, the first tier with one more selector
  awk -v k="$1" -v extra="$2" '/^---$/ { exit }
    { sub(/name: trainer-0-gpu/, "name: trainer-" k "-gpu"); print }
    extra != "" && /^        selectors:$/ && !done { print "        - cel:"; print "            expression: " extra; done = 1 }' \
    "$top/examples/extender/claims.yaml" >"$work/claims/.t.tmp"
  mv "$work/claims/.t.tmp" "$work/claims/trainer-$1.yaml"
}
for k in 1 2 3 4 5; do
  s0=$(snaps)
  # a selector true of every device, other for each claim: a new policy version
  claim_file "$k" "device.driver != \"other-$k.example.com\""
  wait_snapshot "$s0"
  names_body "trainer-$k-gpu" "$work/new.json"
  new_claim="$new_claim $(timed /filter "$work/new.json")"
done
echo "   the first pod of a new claim (a new spec: new snapshot, policy compiled, 5,000 nodes computed): median $(echo "$new_claim" | median) ms of$new_claim"
for k in 6 7 8 9 10; do
  s0=$(snaps)
  claim_file "$k" ""
  wait_snapshot "$s0"
  names_body "trainer-$k-gpu" "$work/new.json"
  same_spec="$same_spec $(timed /filter "$work/new.json")"
done
echo "   the first pod of a new claim of a spec seen before (another pod of the template: policy compiled, answers cached): median $(echo "$same_spec" | median) ms of$same_spec"
alloc_claim() { # N NODE: claim busy-N holds gpu-0 of NODE
  cat >"$work/claims/.busy.tmp" <<EOC
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: busy-$1, namespace: default}
spec:
  devices:
    requests:
    - name: g
      exactly: {deviceClassName: gpu.example.com}
status:
  allocation:
    devices:
      results:
      - {request: g, driver: gpu.example.com, pool: $2, device: gpu-0}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [$2]}
EOC
  mv "$work/claims/.busy.tmp" "$work/claims/busy-$(($1 % 50)).yaml"
}
for k in 1 2 3 4 5; do
  s0=$(snaps)
  alloc_claim "$k" "$(printf 'node-%05d' $((k * 977 % 5000)))"
  wait_snapshot "$s0"
  new_snap="$new_snap $(timed /filter "$work/names.json")"
done
echo "   the first pod of a new snapshot after an allocation (policy and other answers kept): median $(echo "$new_snap" | median) ms of$new_snap"
for k in 1 2 3 4 5; do
  s0=$(snaps)
  f=$(printf 'node-%05d.json' $((k * 611 % 5000)))
  sed 's/"generation": *1/"generation": 2/' "$fleet/$f" >"$work/fleet/.s.tmp"
  mv "$work/fleet/.s.tmp" "$work/fleet/$f"
  wait_snapshot "$s0"
  new_slice="$new_slice $(timed /filter "$work/names.json")"
done
echo "   the first pod after a slice update (a new table: policy compiled again, 1 node computed): median $(echo "$new_slice" | median) ms of$new_slice"
t=$(timed /filter "$work/names.json")
echo "   then warm: $t ms (curl, one request)"
# BENCH_FIRST_ONLY=1: section 1 alone (a change to the first pods, measured in a minute)
if [ "${BENCH_FIRST_ONLY:-0}" = 1 ]; then
  [ -e "$work/failed" ] && status=1
  exit $status
fi

# 2. Constant rate and saturation.
run_wrk() { # label path connections rate seconds
  c0=$(metric process_cpu_seconds_total)
  out=$(BODY=$work/names.json URLPATH=$2 RATE=$4 wrk -t "$3" -c "$3" -d "${5}s" --timeout 5s \
        -s "$top/bench/extender.lua" "$url" 2>&1 | grep '^requests')
  c1=$(metric process_cpu_seconds_total)
  cpu=$(echo "$out" | awk -v a="$c0" -v b="$c1" '{ if ($2 > 0) printf "%.3f", (b - a) * 1000 / $2 }')
  printf '   %-46s %s  cpu/request %s ms\n' "$1" "$out" "$cpu"
  case $out in *"non200 0  socket_errors 0"*) ;; *) status=1 ;; esac
}
run_wrk "filter, 50 req/s on 1 connection" /filter 1 50 20
run_wrk "prioritize, 50 req/s on 1 connection" /prioritize 1 50 20
run_wrk "filter, saturating (2 connections)" /filter 2 0 10
run_wrk "filter, saturating (4 connections)" /filter 4 0 10
run_wrk "prioritize, saturating (2 connections)" /prioritize 2 0 10

# 3. Allocations arriving: every 100 ms a claim allocated on another node (a new snapshot each).
touch "$work/alloc-on"
(
  n=100
  while [ -f "$work/alloc-on" ]; do
    alloc_claim "$n" "$(printf 'node-%05d' $((n * 37 % 5000)))"
    n=$((n + 1))
    sleep 0.1
  done
) &
wpid=$!
snaps0=$(snaps)
run_wrk "filter, 50 req/s, allocations every 100 ms" /filter 1 50 20
run_wrk "filter, saturating (2), allocations every 100 ms" /filter 2 0 10
rm -f "$work/alloc-on"
wait "$wpid" 2>/dev/null
wpid=
snaps1=$(snaps)
echo "   snapshots published during those two runs (30 s): $((snaps1 - snaps0))"

echo "== extender: RSS over a ${secs} s saturating filter run (2 connections, sampled every 5 s)"
BODY=$work/names.json URLPATH=/filter RATE=0 wrk -t 2 -c 2 -d "${secs}s" --timeout 5s \
  -s "$top/bench/extender.lua" "$url" >"$work/rss-wrk.out" 2>&1 &
wpid=$!
samples="$(metric process_resident_memory_bytes | awk '{ printf "%.1f", $1 / 1048576 }')"
k=0
while [ $k -lt $((secs / 5)) ]; do
  sleep 5
  samples="$samples $(metric process_resident_memory_bytes | awk '{ printf "%.1f", $1 / 1048576 }')"
  k=$((k + 1))
done
wait $wpid
wpid=
echo "   RSS MiB:$samples"
echo "   $(grep '^requests' "$work/rss-wrk.out")"
grep -q 'non200 0  socket_errors 0' "$work/rss-wrk.out" || status=1

echo "== extender: the Nodes form (nodeCacheCapable: false)"
for k in 1 2 3; do
  t=$(timed /filter "$work/nodes-form.json")
  printf '   filter with 5,000 Node objects: %s ms (HTTP %s), answer %s bytes\n' "$t" \
    "$(cat "$work/code")" "$(wc -c <"$work/out.json")"
done

echo "== extender: snapshots (from its metrics)"
sum=$(metric dra_extender_snapshot_build_seconds_sum); cnt=$(metric dra_extender_snapshot_build_seconds_count)
awk -v s="$sum" -v c="$cnt" 'BEGIN { if (c > 0) printf "   %d snapshots, mean build %.3f ms\n", c, s / c * 1000 }'
sum=$(metric dra_extender_policy_build_seconds_sum); cnt=$(metric dra_extender_policy_build_seconds_count)
awk -v s="$sum" -v c="$cnt" 'BEGIN { if (c > 0) printf "   %d policies compiled, mean %.3f ms\n", c, s / c * 1000 }'
echo "   machine load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -e "$work/failed" ] && { echo "   some answers were not 200"; status=1; }
exit $status
