#!/bin/sh
# bench/lint.sh [DRA-CELC]: `dra-celc lint` over a generated repository of 1,000
# ResourceClaimTemplates (one file each, three firstAvailable tiers in the sample's style: an
# H100 of a model that varies from file to file, an A100 with a memory floor that varies, any
# GPU with 24Gi; so that most selectors are distinct texts), in its three output formats, with
# the sample fleet and classes (--slices, --classes), and a repository of 1,000 copies of one
# template (every selector text seen before: the per-text cache). Prints one JSON line per run:
# {"run":...,"files":N,"findings":N,"ms":X} (the median of 5 runs, wall clock). Not a test.
set -u
celc=${1:-./dra-celc}
top=$(cd "$(dirname "$0")/.." && pwd)
data=${BENCH_DATA:-bench-data}/lint
mkdir -p "$data"
if [ ! -f "$data/distinct/t999.yaml" ]; then
  rm -rf "$data/distinct" "$data/same" && mkdir -p "$data/distinct" "$data/same"
  i=0
  while [ $i -lt 1000 ]; do
    cat >"$data/distinct/t$i.yaml" <<Y
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpu-$i
  namespace: team-$((i % 40))
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - name: h100
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: device.attributes["gpu.example.com"].?model.orValue("") == "H100-$i"
        - name: a100
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: device.attributes["gpu.example.com"].?model.orValue("") == "A100"
          - cel:
              expression: >-
                "memory" in device.capacity["gpu.example.com"] &&
                device.capacity["gpu.example.com"].memory.compareTo(quantity("$((40 + i % 41))Gi")) >= 0
        - name: any
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: >-
                "memory" in device.capacity["gpu.example.com"] &&
                device.capacity["gpu.example.com"].memory.compareTo(quantity("24Gi")) >= 0
Y
    cp "$top/examples/claims/gpu-tiered.yaml" "$data/same/t$i.yaml"
    i=$((i + 1))
  done
fi
ms() { # the median wall time of 5 runs of the command, in ms
  for k in 1 2 3 4 5; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N)
    echo $(((e - s) / 1000))
  done | sort -n | sed -n 3p | awk '{ printf "%.1f", $1 / 1000 }'
}
line() { # name, args...
  name=$1; shift
  f=$("$celc" lint --format json "$@" 2>/dev/null | sed -n 's/.*"findings":\[\(.*\)\],"files".*/\1/p' | grep -o '"rule":' | wc -l)
  t=$(ms "$celc" lint "$@")
  echo "{\"run\":\"$name\",\"files\":1000,\"findings\":$f,\"ms\":$t}"
}
line distinct "$data/distinct"
line distinct-json --format json "$data/distinct"
line distinct-sarif --format sarif "$data/distinct"
line distinct-fleet --slices "$top/examples/fleet" --classes "$top/examples/classes" "$data/distinct"
line same "$data/same"
