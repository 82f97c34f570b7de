#!/bin/sh
# bench/extender.sh: dra-extender under load (make bench, after bench/run.sh; wrk from Debian).
# A benchmark, not a test: it prints numbers, and fails only when a step cannot run or an
# answer is not 200. Traffic goes to 127.0.0.1 only, bounded in time.
#
# The fleet: 5,000 nodes x 8 GPUs (bench/genfleet, one file per node), Node objects with labels,
# the sample's DeviceClass, and a claim of three tiers (examples/extender/claims.yaml). The
# scheduler's request names every node (nodeCacheCapable: true).
#
#  1. Cold answers: the first filter of a new claim on a new snapshot (curl's time_total).
#  2. Warm filter and prioritize at a fixed rate (1 connection, 50 req/s) and at saturation
#     (4 connections), p50/p90/p99/max and throughput (wrk --latency through bench/extender.lua).
#  3. The same with allocations arriving between requests: a claim allocated on another node
#     every 100 ms (each a new snapshot).
#  4. RSS over a 60 s saturating run (BENCH_SECONDS to change), sampled every 5 s from /metrics.
#  5. The Nodes form (nodeCacheCapable: false): full Node objects in the request.
#  6. Snapshot build time after watch-like updates (from the extender's metrics).
set -u
ext=./dra-extender
top=${top_srcdir:-$(dirname "$0")/..}
data=bench-data
secs=${BENCH_SECONDS:-60}
status=0
command -v wrk >/dev/null 2>&1 || { echo "== extender: wrk is not installed (scripts/deps installs it): skipped"; exit 0; }
[ -x "$ext" ] || { echo "== extender: $ext was not built: skipped"; exit 0; }
fleet=$data/fleet-40k/
[ -e "$fleet" ] || ./bench/genfleet 40000 "$fleet" || exit 1
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT INT TERM

# Node objects (one List) with a zone label, and the request bodies.
awk 'BEGIN { printf "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
  for (i = 0; i < 5000; i++) printf "%s{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%05d\",\"labels\":{\"topology.kubernetes.io/zone\":\"zone-%d\",\"kubernetes.io/hostname\":\"node-%05d\"}}}", (i ? "," : ""), i, i % 3, i;
  print "]}" }' >"$work/nodes.json"
mkdir -p "$work/claims"
cp "$top/examples/extender/claims.yaml" "$work/claims/"
pod='{"metadata":{"name":"trainer-0","namespace":"default","uid":"u-0"},"spec":{"containers":[{"name":"main","image":"x"}],"resourceClaims":[{"name":"gpu","resourceClaimName":"trainer-0-gpu"}]},"status":{}}'
awk -v pod="$pod" 'BEGIN { printf "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":[", pod;
  for (i = 0; i < 5000; i++) printf "%s\"node-%05d\"", (i ? "," : ""), i; print "]}" }' >"$work/names.json"
# The Nodes form: each Node as kube-scheduler sends it (labels, capacity, conditions, images).
awk -v pod="$pod" 'BEGIN { printf "{\"Pod\":%s,\"Nodes\":{\"metadata\":{},\"items\":[", pod;
  for (i = 0; i < 5000; i++) {
    printf "%s{\"metadata\":{\"name\":\"node-%05d\",\"uid\":\"%08d-0000-4000-8000-000000000000\",\"resourceVersion\":\"%d\",\"labels\":{\"kubernetes.io/hostname\":\"node-%05d\",\"topology.kubernetes.io/zone\":\"zone-%d\",\"node.kubernetes.io/instance-type\":\"gpu-8x\"},\"annotations\":{\"node.alpha.kubernetes.io/ttl\":\"0\"}},", (i ? "," : ""), i, i, 1000 + i, i, i % 3;
    printf "\"spec\":{\"podCIDR\":\"10.%d.%d.0/24\"},\"status\":{\"capacity\":{\"cpu\":\"96\",\"memory\":\"1056000000Ki\",\"pods\":\"110\"},\"allocatable\":{\"cpu\":\"95\",\"memory\":\"1050000000Ki\",\"pods\":\"110\"},", int(i / 256), i % 256;
    printf "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastHeartbeatTime\":\"2026-12-01T10:00:00Z\",\"lastTransitionTime\":\"2026-11-01T10:00:00Z\",\"reason\":\"KubeletReady\",\"message\":\"kubelet is posting ready status\"}],";
    printf "\"images\":[";
    for (k = 0; k < 20; k++) printf "%s{\"names\":[\"registry.example.com/team/image-%d@sha256:%064d\",\"registry.example.com/team/image-%d:v%d\"],\"sizeBytes\":%d}", (k ? "," : ""), k, k, k, k, 100000000 + k;
    printf "],\"nodeInfo\":{\"kubeletVersion\":\"v1.36.0\",\"containerRuntimeVersion\":\"containerd://2.1.0\",\"osImage\":\"Debian GNU/Linux 12 (bookworm)\"}}}";
  }
  print "]}}" }' >"$work/nodes-form.json"

"$ext" --objects "$fleet" --objects "$top/examples/classes" --objects "$work/nodes.json" \
  --objects "$work/claims" --port 0 --port-file "$work/port" --log-level warn \
  --max-body 256MiB 2>"$work/ext.log" &
pid=$!
i=0
while [ ! -s "$work/port" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$work/port" ] || { echo "== extender: did not start"; cat "$work/ext.log"; exit 1; }
port=$(cat "$work/port")
url=http://127.0.0.1:$port
i=0
until curl -sf "$url/readyz" >/dev/null 2>&1 || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
metric() { curl -s "$url/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

echo "== extender: 5,000 nodes x 8 GPUs, a claim of three tiers, every node name sent"
echo "   request body $(wc -c <"$work/names.json") bytes (NodeNames), $(wc -c <"$work/nodes-form.json") bytes (Nodes)"
t=$(curl -s -o "$work/first.json" -w '%{time_total}' -X POST -H 'Content-Type: application/json' \
     --data-binary @"$work/names.json" "$url/filter")
passed=$(jq '.NodeNames | length' "$work/first.json" 2>/dev/null)
printf '   cold filter (new claim, new snapshot): %.2f ms, %s nodes passed\n' "$(echo "$t" | awk '{ print $1 * 1000 }')" "$passed"
t=$(curl -s -o /dev/null -w '%{time_total}' -X POST -H 'Content-Type: application/json' \
     --data-binary @"$work/names.json" "$url/prioritize")
printf '   first prioritize (answers cached by the filter): %.2f ms\n' "$(echo "$t" | awk '{ print $1 * 1000 }')"

run_wrk() { # label path connections rate seconds
  out=$(BODY=$work/names.json URLPATH=$2 RATE=$4 wrk -t "$3" -c "$3" -d "${5}s" --timeout 5s \
        -s "$top/bench/extender.lua" "$url" 2>&1 | grep '^requests')
  printf '   %-44s %s\n' "$1" "$out"
  case $out in *"non200 0  socket_errors 0"*) ;; *) status=1 ;; esac
}
run_wrk "filter, 50 req/s on 1 connection" /filter 1 50 10
run_wrk "prioritize, 50 req/s on 1 connection" /prioritize 1 50 10
run_wrk "filter, saturating (4 connections)" /filter 4 0 10
run_wrk "prioritize, saturating (4 connections)" /prioritize 4 0 10

# Allocations arriving: every 100 ms a claim allocated on another node (a new snapshot each).
(
  n=0
  while [ -f "$work/alloc-on" ]; do
    node=$(printf 'node-%05d' $((n * 37 % 5000)))
    cat >"$work/claims/.busy.tmp" <<EOC
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: busy-$n, namespace: default}
spec:
  devices:
    requests:
    - name: g
      exactly: {deviceClassName: gpu.example.com}
status:
  allocation:
    devices:
      results:
      - {request: g, driver: gpu.example.com, pool: $node, device: gpu-0}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [$node]}
EOC
    mv "$work/claims/.busy.tmp" "$work/claims/busy-$((n % 50)).yaml"
    n=$((n + 1))
    sleep 0.1
  done
) &
touch "$work/alloc-on"
snaps0=$(metric dra_extender_snapshots_total)
run_wrk "filter, 50 req/s, allocations every 100 ms" /filter 1 50 10
run_wrk "filter, saturating, allocations every 100 ms" /filter 4 0 10
rm -f "$work/alloc-on"
wait $! 2>/dev/null
snaps1=$(metric dra_extender_snapshots_total)
echo "   snapshots published during those runs: $(awk -v a="$snaps0" -v b="$snaps1" 'BEGIN { print b - a }')"

echo "== extender: RSS over a ${secs} s saturating filter run (sampled every 5 s)"
BODY=$work/names.json URLPATH=/filter RATE=0 wrk -t 4 -c 4 -d "${secs}s" --timeout 5s \
  -s "$top/bench/extender.lua" "$url" >"$work/rss-wrk.out" 2>&1 &
wpid=$!
samples=
k=0
while [ $k -lt $((secs / 5)) ]; do
  sleep 5
  samples="$samples $(metric process_resident_memory_bytes | awk '{ printf "%.1f", $1 / 1048576 }')"
  k=$((k + 1))
done
wait $wpid
echo "   RSS MiB:$samples"
echo "   $(grep '^requests' "$work/rss-wrk.out")"
grep -q 'non200 0  socket_errors 0' "$work/rss-wrk.out" || status=1

echo "== extender: the Nodes form (nodeCacheCapable: false)"
for k in 1 2 3; do
  t=$(curl -s -o "$work/nf.json" -w '%{time_total} %{http_code}' -X POST -H 'Content-Type: application/json' \
       --data-binary @"$work/nodes-form.json" "$url/filter")
  printf '   filter with 5,000 Node objects: %.1f ms (HTTP %s), answer %s bytes\n' \
    "$(echo "$t" | awk '{ print $1 * 1000 }')" "${t#* }" "$(wc -c <"$work/nf.json")"
done

echo "== extender: snapshots (from its metrics)"
sum=$(metric dra_extender_snapshot_build_seconds_sum); cnt=$(metric dra_extender_snapshot_build_seconds_count)
awk -v s="$sum" -v c="$cnt" 'BEGIN { if (c > 0) printf "   %d snapshots, mean build %.3f ms\n", c, s / c * 1000 }'
exit $status
