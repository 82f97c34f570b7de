#!/bin/sh
# tests/extender/extres.sh: extended resources backed by DRA (DRAExtendedResource, GA in 1.37)
# in dra-extender, the real program on a loopback port: a pod asking for example.com/gpu in its
# containers' resources gets the special claim the scheduler builds, on the nodes whose
# allocatable has none of it; device plugins serve the others. Each node's answer is checked
# against `dra-celc allocate` on a scenario of that node (the same objects, the node's
# allocatable, the pod). Both request forms (NodeNames, Nodes with their objects), mixed with a
# claim of the pod, init containers, the gate off (1.35), explain, and bad quantities.
# Needs curl and jq. TAP output; every wait is bounded.
set -u
ext=${DRA_EXTENDER:-./dra-extender}
celc=${DRA_CELC:-./dra-celc}
case $ext in /*) ;; *) ext=$PWD/$ext ;; esac
src=${top_srcdir:-.}
tmp=$(mktemp -d)
. "$src/tests/extender/common.sh"

# ---- The cluster: a class naming example.com/gpu; n1 with 2 GPUs, n2 with 2 GPUs and a
# device plugin's example.com/gpu, n3 without devices, n4 with one GPU and a NIC.
mkdir -p "$tmp/objs"
cat >"$tmp/objs/classes.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  extendedResourceName: example.com/gpu
  selectors: [{cel: {expression: 'device.attributes["dra.example.com"].kind == "gpu"'}}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: nic}
spec:
  selectors: [{cel: {expression: 'device.attributes["dra.example.com"].kind == "nic"'}}]
EOF
slice() { # NAME NODE DEVICE...
  printf -- '---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s}\n' "$1"
  printf 'spec:\n  driver: dra.example.com\n  nodeName: %s\n' "$2"
  printf '  pool: {name: %s, generation: 1, resourceSliceCount: 1}\n  devices:\n' "$2"
  shift 2
  for d in "$@"; do printf '  - {name: %s, attributes: {kind: {string: %s}}}\n' "$d" "${d%%-*}"; done
}
{ slice s1 n1 gpu-0 gpu-1; slice s2 n2 gpu-0 gpu-1; slice s4 n4 gpu-0 nic-0; } >"$tmp/objs/slices.yaml"
node() { # NAME ALLOCATABLE(flow map)
  printf -- '---\napiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus:\n  allocatable: %s\n' "$1" "$2"
}
{ node n1 '{cpu: "8"}'; node n2 '{cpu: "8", example.com/gpu: "4"}'; node n3 '{cpu: "8"}'
  node n4 '{cpu: "8", example.com/gpu: "0"}'; } >"$tmp/objs/nodes.yaml"
cat >"$tmp/objs/claims.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: nic, namespace: default}
spec:
  devices:
    requests:
    - name: nic
      exactly: {deviceClassName: nic}
EOF

# pod NAME CONTAINERS-JSON [CLAIMS-JSON]: a Pod as the scheduler sends it
pod() {
  printf '{"metadata":{"name":"%s","namespace":"default","uid":"u-%s"},"spec":{%s"containers":%s}}' \
    "$1" "$1" "${3:+\"resourceClaims\":$3,}" "$2"
}
names() { printf '{"Pod":%s,"Nodes":null,"NodeNames":["n1","n2","n3","n4"]}' "$1"; }
gpus() { printf '[{"name":"main","resources":{"requests":{"cpu":"1","example.com/gpu":"%s"}}}]' "$1"; }

# expect POD-JSON SCENARIO-POD-YAML: dra-celc allocate's outcome on each node, "n1=allocated ..."
expect() {
  out=
  for nd in n1 n2 n3 n4; do
    al=$(awk -v n="$nd" '/^---/ { x = 0 } $0 == "metadata: {name: " n "}" { x = 1 }
                         x && /allocatable:/ { sub(/.*allocatable: /, ""); print }' "$tmp/objs/nodes.yaml")
    {
      printf 'kubernetesVersion: "%s"\nnode: {name: %s, allocatable: %s}\n' "$kv" "$nd" "$al"
      printf 'classes:\n'
      awk '/^---/ { next } /^apiVersion|^kind/ { next } /^metadata/ { printf "- %s\n", $0; next } { print "  " $0 }' \
        "$tmp/objs/classes.yaml"
      printf 'slices:\n'
      awk '/^---/ { next } /^apiVersion|^kind/ { next } /^metadata/ { printf "- %s\n", $0; next } { print "  " $0 }' \
        "$tmp/objs/slices.yaml"
      printf '%s\n' "$2"
    } >"$tmp/scn-$nd.yaml"
    o=$("$celc" allocate "$tmp/scn-$nd.yaml" --format json 2>"$tmp/scn-$nd.err" | jq -r '.outcome')
    out="$out$nd=$o "
  done
  echo "$out"
}
# got: the filter's answer as "n1=allocated n2=..." (passing: allocated, failing: unschedulable)
got() {
  for nd in n1 n2 n3 n4; do
    if jq -e --arg n "$nd" '(.NodeNames // [.Nodes.items[].metadata.name]) | index($n) != null' \
         "$tmp/resp" >/dev/null; then printf '%s=allocated ' "$nd"
    else printf '%s=unschedulable ' "$nd"; fi
  done
}

start a --objects "$tmp/objs"
kv=1.37

# ---- Two GPUs: n1 by DRA, n2 by its device plugin, n3 and n4 not.
names "$(pod p2 "$(gpus 2)")" >"$tmp/p2.json"
post "$url_a/filter" "$tmp/p2.json"
want=$(expect x 'pod: {spec: {containers: [{name: main, resources: {requests: {cpu: "1", example.com/gpu: "2"}}}]}}')
check "2 GPUs: filter answers as dra-celc allocate on each node's scenario ($want)" \
  "$(is "$status $(got)" "200 $want")"
check "...which is n1 and n2 (device plugin) passing" \
  "$(is "$want" "n1=allocated n2=allocated n3=unschedulable n4=unschedulable ")"
check "...n4 fails with the allocator's reason (not enough devices)" \
  "$(jq -r '.FailedNodes.n4' "$tmp/resp" | grep -q '^unschedulable'; echo $?)"

# dra-celc explain --pod over the same objects: the same answer on every node
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p2, namespace: default}\nspec:\n  containers:\n  - name: main\n    resources: {requests: {cpu: "1", example.com/gpu: "2"}}\n' \
  >"$tmp/p2.yaml"
explain_pod() { # POD [ARGS]: "n1=allocated ..." of dra-celc explain --pod
  "$celc" explain --pod "$@" --classes "$tmp/objs/classes.yaml" --slices "$tmp/objs/slices.yaml" \
    --nodes "$tmp/objs/nodes.yaml" --format json | jq -r '[.nodes[] | "\(.node)=\(.outcome)"] | join(" ")'
}
check "dra-celc explain --pod: the same answer on each node" \
  "$(is "$(explain_pod "$tmp/p2.yaml") " "$want")"

# A pod whose only extended resource no DeviceClass names: nothing for DRA on any node, and the
# text says so rather than an empty list of devices (issue 28 item 6).
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: pf, namespace: default}\nspec:\n  containers:\n  - name: main\n    resources: {requests: {other.example.com/fpga: "1"}}\n' \
  >"$tmp/pf.yaml"
"$celc" explain --pod "$tmp/pf.yaml" --classes "$tmp/objs/classes.yaml" --slices "$tmp/objs/slices.yaml" \
  --nodes "$tmp/objs/nodes.yaml" --node n1 >"$tmp/pf.out" 2>&1
check "explain --pod, a resource no DeviceClass names: allocated, with nothing to allocate said" \
  "$(is "$(head -n 1 "$tmp/pf.out")" "n1: allocated (score 0): no device to allocate: no claim, and the pod's extended resources, if any, are not DRA's on this node (its allocatable serves them, as NodeResourcesFit checks)")"

# ---- One GPU: n4 too (its allocatable says 0: not a device plugin's).
names "$(pod p1 "$(gpus 1)")" >"$tmp/p1.json"
post "$url_a/filter" "$tmp/p1.json"
want=$(expect x 'pod: {spec: {containers: [{name: main, resources: {requests: {cpu: "1", example.com/gpu: "1"}}}]}}')
check "1 GPU: as dra-celc allocate ($want)" "$(is "$status $(got)" "200 $want")"
check "...n1, n2 and n4 pass" "$(is "$want" "n1=allocated n2=allocated n3=unschedulable n4=allocated ")"

# ---- The Nodes form: the nodes' own status.allocatable decides (n3 says it has a plugin).
jq -c --slurpfile p "$tmp/p2.json" -n '{Pod: $p[0].Pod, Nodes: {metadata: {}, items: [
  {metadata: {name: "n1"}, status: {allocatable: {cpu: "8"}}},
  {metadata: {name: "n3"}, status: {allocatable: {"example.com/gpu": 2}}},
  {metadata: {name: "n4"}}]}, NodeNames: null}' >"$tmp/nodes.json"
post "$url_a/filter" "$tmp/nodes.json"
check "Nodes form: n1 (DRA) and n3 (its allocatable, a JSON number) pass, n4 fails" \
  "$(is "$status $(jq -c '[.Nodes.items[].metadata.name, (.FailedNodes | keys)]' "$tmp/resp")" \
        '200 ["n1","n3",["n4"]]')"

# ---- With a claim of the pod: the claim and the special claim together.
names "$(pod pc "$(gpus 1)" '[{"name":"nic","resourceClaimName":"nic"}]')" >"$tmp/pc.json"
post "$url_a/filter" "$tmp/pc.json"
check "a claim (a NIC) and a GPU: only n4 has both" \
  "$(is "$status $(jq -c '.NodeNames' "$tmp/resp")" '200 ["n4"]')"
sed 's/"2"}/"1"}/' "$tmp/p2.yaml" >"$tmp/p1.yaml"
check "...and dra-celc explain --pod --claim says so too" \
  "$(is "$(explain_pod "$tmp/p1.yaml" --claim "$tmp/objs/claims.yaml")" \
        "n1=unschedulable n2=unschedulable n3=unschedulable n4=allocated")"

# ---- Init containers: the largest of the short-lived ones, after the long-lived ones.
ctr='[{"name":"init","resources":{"limits":{"example.com/gpu":"2"}}}]'
printf '{"Pod":{"metadata":{"name":"pi","namespace":"default"},"spec":{"initContainers":%s,"containers":%s}},"Nodes":null,"NodeNames":["n1","n2","n3","n4"]}' \
  "$ctr" "$(gpus 1)" >"$tmp/pi.json"
post "$url_a/filter" "$tmp/pi.json"
want=$(expect x 'pod: {spec: {initContainers: [{name: init, resources: {limits: {example.com/gpu: "2"}}}], containers: [{name: main, resources: {requests: {cpu: "1", example.com/gpu: "1"}}}]}}')
check "an init container's limit (2) and a container's request (1): as dra-celc ($want)" \
  "$(is "$status $(got)" "200 $want")"

# ---- Prioritize: the nodes that pass by DRA get a score.
post "$url_a/prioritize" "$tmp/p1.json"
check "prioritize: n1 and n4 scored by their tiers" \
  "$(is "$status $(jq -c '[.[] | select(.Host == "n1" or .Host == "n4") | .Score > 0] | all' "$tmp/resp")" \
        "200 true")"

# ---- Explain: the special claim's request on n1.
pod p1 "$(gpus 1)" >"$tmp/p1-pod.json"
status=$(curl -s -o "$tmp/resp" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
         --data-binary @"$tmp/p1-pod.json" "$url_a/explain?node=n1")
# (request 1: the container's requests sorted by name, cpu first, as the scheduler numbers them)
check "explain: n1 allocates container-0-request-1 of the special claim" \
  "$(is "$status $(jq -r '.nodes[0] | [.outcome, .allocations[0].devices.results[0].request,
                                     .explanation.claims[0].claim] | join(" ")' "$tmp/resp")" \
        "200 allocated container-0-request-1 default/<extended-resources>")"
status=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/explain?pod=default/p1&node=n2&format=text")
check "explain of a pod seen, in text: n2 has nothing to allocate (its device plugin)" \
  "$(is "$status $(grep -c '^n2: allocated (nothing to allocate' "$tmp/resp")" "200 1")"

# ---- Bad input: a quantity that does not parse is a 400 with a JSON reason.
names "$(pod bad '[{"name":"main","resources":{"requests":{"example.com/gpu":"two"}}}]')" >"$tmp/bad.json"
post "$url_a/filter" "$tmp/bad.json"
check "a quantity that does not parse: 400, the container and resource named" \
  "$(is "$status $(jq -r '.error' "$tmp/resp")" \
        "400 Pod.spec: container main: resources.requests[example.com/gpu]: must be a non-negative quantity")"

# ---- Kubernetes 1.35: DRAExtendedResource is off, the scheduler builds no such claim.
start b --objects "$tmp/objs" --kubernetes-version 1.35
post "$url_b/filter" "$tmp/p2.json"
kv=1.35
want=$(expect x 'pod: {spec: {containers: [{name: main, resources: {requests: {example.com/gpu: "2"}}}]}}')
check "1.35 (gate off): every node passes, as dra-celc allocate says ($want)" \
  "$(is "$status $(got)" "200 $want")"

kill -TERM "$pid_a" "$pid_b"
reap "$pid_a"
reap "$pid_b"
check "no sanitizer report in any log" \
  "$(! grep -l -E 'ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$tmp"/*.log; echo $?)"
echo "1..$n"
[ "$failed" = 0 ]
