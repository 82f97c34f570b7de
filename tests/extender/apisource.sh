#!/bin/sh
# tests/extender/apisource.sh: dra-extender itself reading the cluster through the Kubernetes
# API (--kubeconfig), from the fake API server (tests/extender/fakeapi) loaded with the sample
# cluster of the README (examples/fleet, examples/classes, examples/nodes.yaml,
# examples/extender/claims.yaml). TAP; needs curl and jq.
#
# - /readyz answers 503 while one resource (nodes) cannot be listed, and 200 only once every
#   resource has synced, with every object in the snapshot it answers from;
# - the answers equal those of an extender reading the same objects with --objects, byte for
#   byte, and those of `dra-celc explain` and `dra-celc allocate` on the same objects;
# - then faults through fakeapi's control interface (a disconnect in the middle of an event,
#   HTTP 410 and an ERROR event with code 410, a compaction with bookmarks and one before any,
#   a silent stream, a token rotated through the kubeconfig's tokenFile both ways, a claim
#   allocated and then deleted while running), after each of which the extender's cache must
#   equal the server's state: its dra_extender_cache_objects per resource equal the server's
#   counts, and its answers those of a second extender that reads the server's state, written
#   to a file (--objects), as the reference.
# Every wait is bounded and polls for its condition; all traffic goes to 127.0.0.1.
set -u
ext=${DRA_EXTENDER:-./dra-extender}
celc=${DRA_CELC:-./dra-celc}
fakeapi=${FAKEAPI:-./tests/extender/fakeapi}
src=${top_srcdir:-.}
tmp=$(mktemp -d)
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy NO_PROXY no_proxy
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT
# Sanitizer builds are slower: longer bounds (never shorter sleeps).
slow=1
[ -n "${DRACEL_SANITIZED:-}" ] && slow=3
pids=
# reap PID: wait for it at most 30 s, then SIGKILL it; its exit status. The watchdog is a
# process of its own that ends once PID is gone (never killed: a subshell signalled right
# after its fork can run this script's traps), its output away from the TAP driver's pipe.
reap() {
  sh -c 'i=0; while [ $i -lt "$2" ] && kill -0 "$1"; do sleep 0.1; i=$((i + 1)); done
         kill -KILL "$1"' dog "$1" $((300 * slow)) >/dev/null 2>&1 &
  wait "$1"
}
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  for p in $pids; do reap "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
n=0; failed=0
check() { # name, condition result (0 ok)
  n=$((n + 1))
  if [ "$2" = 0 ]; then echo "ok $n - $1"; else
    echo "not ok $n - $1"; failed=$((failed + 1))
    for f in "$tmp"/a.log "$tmp"/fakeapi.log; do
      [ -s "$f" ] && { echo "#   --- tail of ${f##*/}"; tail -n 8 "$f" | cut -c1-300 | sed 's/^/#   /'; }
    done
  fi
}
exec 3>&1
# is A B: equal (else a TAP comment); r CMD...: CMD's exit status, printed (for check)
is() { [ "$1" = "$2" ] || { echo "#   expected '$2', got '$1'" | cut -c1-400 >&3; return 1; }; }
r() { "$@" >&3; echo $?; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
for tool in curl jq; do
  command -v $tool >/dev/null 2>&1 || { echo "1..0 # SKIP $tool is not installed"; exit 0; }
done
now() { date +%s%3N; }
# wait_for SECONDS COMMAND...: poll every 0.1 s until the command succeeds
wait_for() {
  limit=$(( $(now) + $1 * 1000 * slow )); shift
  while ! "$@"; do
    [ "$(now)" -ge "$limit" ] && return 1
    sleep 0.1
  done
}

post() { # URL FILE [OUT]: the body and the status in $status
  status=$(curl -s -o "${3:-$tmp/resp}" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
           --data-binary @"$2" "$1")
}
# ---- The fake API server, with the sample cluster.
"$fakeapi" --bookmark-ms 300 >"$tmp/fakeapi.port" 2>"$tmp/fakeapi.log" &
fpid=$!; pids="$pids $fpid"
wait_for 10 test -s "$tmp/fakeapi.port" || { echo "Bail out! fakeapi did not start"; exit 1; }
base=http://127.0.0.1:$(cat "$tmp/fakeapi.port")
ctl() { # METHOD PATH [BODY-FILE]: the server's control interface; the answer on stdout
  if [ $# -ge 3 ]; then
    curl -sf -X "$1" --data-binary @"$3" "$base$2"
  else
    curl -sf -X "$1" "$base$2"
  fi
}
fault() { printf '%s' "$1" >"$tmp/fault.json"; ctl POST /_control/fault "$tmp/fault.json" >/dev/null; }
put() { printf '%s' "$2" >"$tmp/put.json"; ctl POST "/_control/objects/$1" "$tmp/put.json" >/dev/null; }
del() { ctl DELETE "/_control/objects/$1" >/dev/null; }
loaded=0
for f in "$src"/examples/fleet/* "$src"/examples/classes/* "$src/examples/nodes.yaml" \
         "$src/examples/extender/claims.yaml"; do
  ctl POST /_control/load "$f" >/dev/null || { echo "# cannot load $f"; loaded=1; }
done
check "the sample cluster is loaded into the fake API server" "$loaded"

# The server's state: counts per resource, and the objects as one List (the reference's file).
state() { ctl GET /_control/state >"$tmp/state.json"; }
server_count() { jq --arg r "$1" '[.objects[] | select(.[0] == $r)] | length' "$tmp/state.json"; }
write_ref() { # the reference extender's directory holds the server's objects, nothing else
  state || return 1
  jq -c '{apiVersion: "v1", kind: "List", items: [.objects[] | .[3]]}' "$tmp/state.json" \
    >"$tmp/ref/.state.tmp" && mv "$tmp/ref/.state.tmp" "$tmp/ref/state.json"
}

# ---- dra-extender on the API. nodes cannot be listed at first: the server answers 500.
echo t0 >"$tmp/token"
fault '{"tokens":["t0"]}'
cat >"$tmp/kc.yaml" <<EOF
apiVersion: v1
kind: Config
current-context: fake
contexts:
- name: fake
  context: {cluster: fake, user: me}
clusters:
- name: fake
  cluster: {server: "$base"}
users:
- name: me
  user: {tokenFile: token}
EOF
fault '{"res":"nodes","errors":1000000,"status":500}'
# start NAME ARGS...: dra-extender on a free loopback port; sets url_NAME, pid_NAME
start() {
  name=$1; shift
  rm -f "$tmp/$name.port"
  "$ext" --address 127.0.0.1 --port 0 --port-file "$tmp/$name.port" "$@" 2>"$tmp/$name.log" &
  p=$!; pids="$pids $p"
  eval "pid_$name=$p"
  wait_for 30 test -s "$tmp/$name.port" || echo "# dra-extender $name did not write its port"
  eval "url_$name=http://127.0.0.1:$(cat "$tmp/$name.port" 2>/dev/null || echo 1)"
}
# (--snapshot-delay: a snapshot comes 1 s after the first change of a burst: /readyz must wait
# for the one that holds the last list)
start a --kubeconfig "$tmp/kc.yaml" --watch-idle-timeout 3s --watch-backoff-min 100ms \
  --watch-backoff-max 500ms --snapshot-delay 1s --log-level debug
metric() { # URL NAME{LABELS}: the value of one series
  curl -s "$1/metrics" | awk -v m="$2" '$1 == m { print $2; exit }'
}
synced() { [ "$(metric "$url_a" "dra_extender_watch_synced{resource=\"$1\"}")" = 1 ]; }
three() { synced resourceslices && synced deviceclasses && synced resourceclaims; }
check "the three resources the server lists are synced" "$(wait_for 30 three; echo $?)"
status=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/readyz")
check "/readyz: 503 while nodes cannot be listed, with a JSON reason" \
  "$(r is "$status:$(jq -r '.error | test("not ready")' "$tmp/resp")" "503:true")"
check "...nodes not synced, dra_extender_ready 0, API errors counted" \
  "$(r is "$(metric "$url_a" 'dra_extender_watch_synced{resource="nodes"}'):$(metric "$url_a" dra_extender_ready):$([ "$(metric "$url_a" 'dra_extender_watch_errors_total{resource="nodes"}')" -ge 1 ] && echo errors)" "0:0:errors")"
# No snapshot of a partial state: filter is refused too.
post "$url_a/filter" "$src/examples/extender/filter.json"
check "...no snapshot of the three alone: filter answers 503, not ready" \
  "$(r is "$status:$(metric "$url_a" dra_extender_snapshots_total):$(jq -r '.error | test("not ready")' "$tmp/resp")" "503:0:true")"
fault '{"errors":0}'
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$url_a/readyz")" = 200 ]; }
check "/readyz: 200 once nodes are listed too" "$(wait_for 30 ready; echo $?)"
# What the extender answers at once when it says ready holds every object of every resource.
post "$url_a/filter" "$src/examples/extender/filter.json" "$tmp/first.json"
curl -s "$url_a/metrics" >"$tmp/metrics.a"
state
counts_of() { # METRICS-FILE: the cache_objects of the four resources
  for res in resourceslices deviceclasses resourceclaims nodes; do
    printf '%s=%s ' $res "$(awk -v m="dra_extender_cache_objects{resource=\"$res\"}" '$1 == m { print $2 }' "$1")"
  done
}
server_counts() {
  for res in resourceslices deviceclasses resourceclaims nodes; do
    printf '%s=%s ' $res "$(server_count $res)"
  done
}
check "ready: the cache holds every object of the server ($(server_counts))" \
  "$(r is "$(counts_of "$tmp/metrics.a")" "$(server_counts)")"

# ---- The same objects through --objects: the same answers, byte for byte.
mkdir -p "$tmp/objs" "$tmp/ref"
cp -r "$src/examples/fleet" "$src/examples/classes" "$src/examples/nodes.yaml" "$tmp/objs/"
cp "$src/examples/extender/claims.yaml" "$tmp/objs/"
start o --objects "$tmp/objs"
wait_for 30 sh -c "curl -sf '$url_o/readyz' >/dev/null"
post "$url_o/filter" "$src/examples/extender/filter.json" "$tmp/first.o.json"
check "filter at readiness: the answer of --objects on the same objects, byte for byte" \
  "$(r cmp -s "$tmp/first.json" "$tmp/first.o.json")"
check "...which passes some nodes and fails others" \
  "$(r is "$(jq -c '[(.NodeNames | length) > 0, (.FailedNodes | length) > 0]' "$tmp/first.json")" '[true,true]')"
post "$url_a/prioritize" "$src/examples/extender/filter.json" "$tmp/prio.a"
post "$url_o/prioritize" "$src/examples/extender/filter.json" "$tmp/prio.o"
check "prioritize: the answer of --objects, byte for byte" "$(r cmp -s "$tmp/prio.a" "$tmp/prio.o")"
check "metrics: the same cache counts as --objects (devices too)" \
  "$(curl -s "$url_o/metrics" >"$tmp/metrics.o"; r is "$(grep '^dra_extender_cache_objects' "$tmp/metrics.a")" "$(grep '^dra_extender_cache_objects' "$tmp/metrics.o")")"

# dra-celc explain on the same objects: the same passing nodes and reasons.
printf '%s\n' gpu.example.com/node-h100-a/gpu-0 gpu.example.com/node-h100-a/gpu-1 \
  gpu.example.com/node-h100-a/gpu-2 >"$tmp/busy.txt"
awk '/^---$/ { exit } { print }' "$src/examples/extender/claims.yaml" >"$tmp/trainer.yaml"
"$celc" explain --claim "$tmp/trainer.yaml" --classes "$src/examples/classes" \
  --slices "$src/examples/fleet" --nodes "$src/examples/nodes.yaml" --allocated "$tmp/busy.txt" \
  2>/dev/null | grep '^node-' >"$tmp/celc.txt"
check "filter passes the nodes dra-celc explain allocates on" \
  "$(r is "$(jq -r '.NodeNames[]' "$tmp/first.json" | sort | tr '\n' ' ')" "$(awk -F': ' '$2 ~ /^allocated/ { print $1 }' "$tmp/celc.txt" | sort | tr '\n' ' ')")"
check "...and fails the others with dra-celc's reason" \
  "$(r is "$(jq -r '.FailedNodes | to_entries[] | "\(.key): \(.value)"' "$tmp/first.json" | sort)" "$(grep -v ': allocated' "$tmp/celc.txt" | sort)")"

# dra-celc allocate, node by node, on scenarios made of the server's objects: the extender's
# explanation of each node is allocate's answer (outcome, allocations, explanation). The
# scenarios name no features: the newest release's default gates, as the extender's.
jq -c .Pod "$src/examples/extender/filter.json" >"$tmp/pod.json"
same_alloc=0; nodes_seen=0
for node in $(jq -r '.NodeNames[]' "$src/examples/extender/filter.json"); do
  jq --arg node "$node" '
    [.objects[] | {res: .[0], obj: .[3]}] as $o
    | ([$o[] | select(.res == "nodes") | .obj | select(.metadata.name == $node)][0]) as $n
    | {node: {name: $node, labels: ($n.metadata.labels // {})},
       classes: [$o[] | select(.res == "deviceclasses") | .obj],
       slices: [$o[] | select(.res == "resourceslices") | .obj],
       allocatedDevices: [$o[] | select(.res == "resourceclaims") | .obj.status.allocation.devices.results[]?
                          | select(.adminAccess != true) | "\(.driver)/\(.pool)/\(.device)"],
       claims: [$o[] | select(.res == "resourceclaims" and .obj.metadata.name == "trainer-0-gpu") | .obj]}' \
    "$tmp/state.json" >"$tmp/scenario.json"
  "$celc" allocate "$tmp/scenario.json" --explain --format json >"$tmp/alloc.json" 2>/dev/null
  post "$url_a/explain?node=$node" "$tmp/pod.json" "$tmp/explain.json"
  # the extender shows up to three example devices a selector rejected, allocate one
  one='walk(if type == "object" and has("examples") then .examples |= .[0:1] else . end)'
  jq -c ".nodes[0] | del(.node, .tiers) | $one" "$tmp/explain.json" >"$tmp/explain.node"
  nodes_seen=$((nodes_seen + 1))
  if [ "$(jq -c "$one" "$tmp/alloc.json")" != "$(cat "$tmp/explain.node")" ]; then
    same_alloc=1; echo "# $node: dra-celc allocate and the extender differ"
  fi
done
check "explain of each of the $nodes_seen nodes: dra-celc allocate's answer on the server's objects" "$same_alloc"
check "...which allocates on some nodes" \
  "$(r grep -q '"outcome":"allocated"' "$tmp/explain.json" "$tmp/alloc.json")"

# ---- After each fault: the cache equals the server's state. The reference extender reads the
# server's objects from a file (its --objects directory holds nothing else).
write_ref
start ref --objects "$tmp/ref"
wait_for 30 sh -c "curl -sf '$url_ref/readyz' >/dev/null"
# agree: A's counts are the server's, and A's filter and prioritize answers the reference's
agree() {
  curl -s "$url_a/metrics" >"$tmp/metrics.a" || return 1
  [ "$(counts_of "$tmp/metrics.a")" = "$(server_counts)" ] || return 1
  curl -s "$url_ref/metrics" >"$tmp/metrics.ref" || return 1
  [ "$(counts_of "$tmp/metrics.ref")" = "$(server_counts)" ] || return 1
  for verb in filter prioritize; do
    post "$url_a/$verb" "${body:-$src/examples/extender/filter.json}" "$tmp/ans.a" || return 1
    post "$url_ref/$verb" "${body:-$src/examples/extender/filter.json}" "$tmp/ans.ref" || return 1
    cmp -s "$tmp/ans.a" "$tmp/ans.ref" || return 1
  done
}
# converge [SECONDS]: the server's state to the reference, then wait for A and it to agree
converge() {
  write_ref || return 1
  wait_for "${1:-30}" agree || {
    { echo "#   server: $(server_counts)"; echo "#   cache:  $(counts_of "$tmp/metrics.a")"
      echo "#   answer: $(head -c 300 "$tmp/ans.a")"
      echo "#   reference: $(head -c 300 "$tmp/ans.ref")"; } >&3
    return 1; }
}
check "the reference agrees with the extender before any fault" "$(converge; echo $?)"
# celc_agrees: the extender's filter answer passes the nodes that
# dra-celc explain allocates on, computed afresh on the server's objects (no cache), and fails
# the others with explain's reasons. (Not when the pod's claim is gone or allocated.)
celc_agrees() {
  mkdir -p "$tmp/celc"
  for res in deviceclasses resourceslices nodes; do
    jq -c --arg r $res '{apiVersion: "v1", kind: "List", items: [.objects[] | select(.[0] == $r) | .[3]]}' \
      "$tmp/state.json" >"$tmp/celc/$res.json"
  done
  jq -r '.objects[] | select(.[0] == "resourceclaims") | .[3].status.allocation.devices.results[]?
         | select(.adminAccess != true) | "\(.driver)/\(.pool)/\(.device)"' "$tmp/state.json" >"$tmp/celc/busy.txt"
  jq -c '.objects[] | select(.[0] == "resourceclaims" and .[2] == "trainer-0-gpu") | .[3]' \
    "$tmp/state.json" >"$tmp/celc/claim.json"
  "$celc" explain --claim "$tmp/celc/claim.json" --classes "$tmp/celc/deviceclasses.json" \
    --slices "$tmp/celc/resourceslices.json" --nodes "$tmp/celc/nodes.json" \
    --allocated "$tmp/celc/busy.txt" 2>/dev/null | grep '^node-' >"$tmp/celc/lines"
  post "$url_a/filter" "$src/examples/extender/filter.json" "$tmp/celc/ans" || return 1
  # the request names seven nodes: explain's lines for them
  for node in $(jq -r '.NodeNames[]' "$src/examples/extender/filter.json"); do
    grep "^$node: " "$tmp/celc/lines"
  done | sort >"$tmp/celc/want"
  jq -r '(.NodeNames[] | "\(.): allocated"), (.FailedNodes | to_entries[] | "\(.key): \(.value)")' \
    "$tmp/celc/ans" | sort >"$tmp/celc/got"
  sed 's/: allocated.*/: allocated/' "$tmp/celc/want" >"$tmp/celc/want2"
  cmp -s "$tmp/celc/want2" "$tmp/celc/got" || { diff "$tmp/celc/want2" "$tmp/celc/got" | head -n 6 | sed 's/^/#   /' >&3; return 1; }
}
check "...and dra-celc explain, computed afresh on the server's objects" "$(r celc_agrees)"
counter() { v=$(metric "$url_a" "dra_extender_watch_$1_total{resource=\"$2\"}"); echo "${v:-0}"; }

# A claim that holds node-h100-b's three GPUs (added, later deleted).
holder() {
  printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"%s","namespace":"default"},"spec":{"devices":{"requests":[{"name":"g","exactly":{"deviceClassName":"gpu.example.com","allocationMode":"All"}}]}},"status":{"allocation":{"devices":{"results":[{"request":"g","driver":"gpu.example.com","pool":"%s","device":"gpu-0"},{"request":"g","driver":"gpu.example.com","pool":"%s","device":"gpu-1"},{"request":"g","driver":"gpu.example.com","pool":"%s","device":"gpu-2"}]},"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["%s"]}]}]}}}}' "$1" "$2" "$2" "$2" "$2"
}

# 1. A connection broken in the middle of an event: resumed, no relist.
relist0=$(counter relists resourceclaims); disc0=$(counter disconnects resourceclaims)
fault '{"res":"resourceclaims","cut":1}'
put resourceclaims "$(holder busy-h100-b node-h100-b)"
check "cut mid-event: the cache converges on the server's state" "$(converge; echo $?)"
post "$url_a/filter" "$src/examples/extender/filter.json"
check "...node-h100-b now fails (its GPUs are in use)" \
  "$(r is "$(jq -r '.FailedNodes["node-h100-b"] // "" | test("^unschedulable")' "$tmp/resp")" true)"
check "...the answers are dra-celc explain's on the server's objects" "$(r celc_agrees)"
check "...a disconnect, no relist" \
  "$(r is "$([ "$(counter disconnects resourceclaims)" -gt "$disc0" ] && echo more):$(counter relists resourceclaims)" "more:$relist0")"

# 2. HTTP 410 on a watch, then an ERROR event with code 410: relists.
relist0=$(counter relists resourceslices)
fault '{"res":"resourceslices","gone":"http","close":true}'
del resourceslices/node-l4-gpu
check "HTTP 410 on the watch: converged (node-l4's slice gone)" "$(converge; echo $?)"
check "...the answers are dra-celc explain's on the server's objects" "$(r celc_agrees)"
check "...one relist" "$(r is "$(counter relists resourceslices)" $((relist0 + 1)))"
relist0=$(counter relists resourceclaims)
fault '{"res":"resourceclaims","gone":"event","close":true}'
del resourceclaims/default/busy-h100-a
check "ERROR 410 event: converged (busy-h100-a gone)" "$(converge; echo $?)"
check "...one relist" "$(r is "$(counter relists resourceclaims)" $((relist0 + 1)))"
post "$url_a/filter" "$src/examples/extender/filter.json"
check "...the answers are dra-celc explain's on the server's objects" "$(r celc_agrees)"
check "...node-h100-a passes now, node-l4 fails" \
  "$(r is "$(jq -c '[(.NodeNames | index("node-h100-a")) != null, (.FailedNodes["node-l4"] // "" | length) > 0]' "$tmp/resp")" '[true,true]')"

# 3. Bookmarks: they keep the resourceVersion current, so that a compaction does not force a
# relist; a compaction before any bookmark does.
bm() { v=$(metric "$url_a" 'dra_extender_watch_events_total{resource="deviceclasses",type="bookmark"}'); echo "${v:-0}"; }
bm_past() { [ "$(bm)" -gt "$1" ]; }
b0=$(bm)
check "bookmarks arrive (dra_extender_watch_events_total{type=\"bookmark\"})" \
  "$(wait_for 20 bm_past "$b0"; echo $?)"
fault '{"compact":true}'
b1=$(bm)
# two bookmarks after the compaction: the second carries a resourceVersion past it
wait_for 20 bm_past $((b1 + 1))
relist0=$(counter relists deviceclasses)
fault '{"res":"deviceclasses","close":true}'
put deviceclasses '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"fpga.example.com"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"fpga.example.com\""}}]}}'
check "compaction after bookmarks: converged" "$(converge; echo $?)"
check "...without a relist (resumed from the bookmark)" "$(r is "$(counter relists deviceclasses)" "$relist0")"
relist0=$(counter relists nodes)
fault '{"compact":true,"res":"nodes","close":true}'
put nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-new","labels":{"zone":"d"}}}'
check "compaction before a bookmark: converged (a new node)" "$(converge; echo $?)"
check "...the answers are dra-celc explain's on the server's objects" "$(r celc_agrees)"
check "...after a relist" "$(r is "$(counter relists nodes)" $((relist0 + 1)))"

# 4. A silent stream (no bytes, no bookmarks) is found dead after --watch-idle-timeout (3 s).
relist0=$(counter relists resourceslices)
fault '{"res":"resourceslices","silent_ms":60000}'
sleep 0.5
ctl GET /_control/state | jq -c '.objects[] | select(.[0] == "resourceslices" and .[2] == "node-h100-b-gpu") | .[3] | del(.metadata.resourceVersion) | .spec.devices |= map(select(.name != "gpu-0"))' >"$tmp/slice.json"
ctl POST /_control/objects/resourceslices "$tmp/slice.json" >/dev/null
check "silent stream: converged (a slice changed meanwhile)" "$(converge 40; echo $?)"
check "...found dead after 3 s" "$(r grep -q 'nothing received for 3 s' "$tmp/a.log")"
check "...the answers are dra-celc explain's on the server's objects" "$(r celc_agrees)"
check "...resumed without a relist" "$(r is "$(counter relists resourceslices)" "$relist0")"

# 5. The token rotated through the kubeconfig's tokenFile: the file first (nothing refused),
# then the server first (401s, then recovery once the file has the new token).
fault '{"tokens":["t0","t1"]}'
echo t1 >"$tmp/token"
fault '{"tokens":["t1"],"close":true}'
put nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-new","labels":{"zone":"e"}}}'
check "token rotated (file first): converged" "$(converge; echo $?)"
check "...no request refused" "$(state; r is "$(jq .unauthorized "$tmp/state.json")" 0)"
fault '{"tokens":["t2"],"close":true}'
del nodes/node-new
has_401() { state && [ "$(jq .unauthorized "$tmp/state.json")" -gt 0 ]; }
check "token rotated (server first): the old token refused" "$(wait_for 30 has_401; echo $?)"
echo t2 >"$tmp/token"
check "...converged once the file has the new one (node-new gone)" "$(converge; echo $?)"
check "...the answers are dra-celc explain's on the server's objects" "$(r celc_agrees)"
check "...the 401 logged" "$(r grep -q 'HTTP 401' "$tmp/a.log")"

# 6. The pod's own claim allocated while running (on node-a100-80), then deleted.
ctl GET /_control/state | jq -c '.objects[] | select(.[0] == "resourceclaims" and .[2] == "trainer-0-gpu") | .[3] | del(.metadata.resourceVersion) | .status = {allocation: {devices: {results: [{request: "gpu/a100", driver: "gpu.example.com", pool: "node-a100-80", device: "gpu-0"}]}, nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: "metadata.name", operator: "In", values: ["node-a100-80"]}]}]}}, reservedFor: [{resource: "pods", name: "trainer-0", uid: "u-0"}]}' >"$tmp/claim.json"
ctl POST /_control/objects/resourceclaims "$tmp/claim.json" >/dev/null
check "the pod's claim allocated: converged" "$(converge; echo $?)"
post "$url_a/filter" "$src/examples/extender/filter.json"
check "...only its allocation's node passes" \
  "$(r is "$(jq -c '[.NodeNames, .FailedNodes["node-l4"]]' "$tmp/resp")" '[["node-a100-80"],"resourceclaim default/trainer-0-gpu not available on the node"]')"
del resourceclaims/default/trainer-0-gpu
check "the pod's claim deleted: converged" "$(converge; echo $?)"
post "$url_a/filter" "$src/examples/extender/filter.json"
check "...every node fails: the claim is not found" \
  "$(r is "$(jq -r '[(.NodeNames | length), .FailedNodes["node-l4"]] | @tsv' "$tmp/resp")" "$(printf '0\tresourceclaim default/trainer-0-gpu not found')")"

# 7. A claim whose opaque parameters nest 200 levels (1.5 KB, which the API server accepts:
# its limit is 10 KiB of parameters) is taken: the parameters are kept as their text, never
# built into a tree past the reader's 64 levels. It once was refused, and before that made the
# whole claims list rejected.
deep=$(awk 'BEGIN { for (i = 0; i < 200; i++) printf "["; printf "1"; for (i = 0; i < 200; i++) printf "]" }')
claim_json() { # NAME PARAMETERS
  echo "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"$1\",\"namespace\":\"default\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"g\",\"exactly\":{\"deviceClassName\":\"gpu.example.com\"}}],\"config\":[{\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":$2}}]}}}"
}
refused_n() { v=$(metric "$url_a" 'dra_extender_objects_refused{resource="resourceclaims"}'); echo "${v:-0}"; }
put resourceclaims "$(claim_json deep "{\"p\":$deep}")"
pod_with() { # CLAIM: the sample's request for a pod whose one claim is CLAIM
  jq -c --arg c "$1" '.Pod.spec.resourceClaims = [{name: "gpu", resourceClaimName: $c}] | del(.Pod.status)' \
    "$src/examples/extender/filter.json" >"$tmp/podwith.json"
}
pod_with deep
deep_seen() { post "$url_a/filter" "$tmp/podwith.json"; [ "$(jq '.NodeNames | length' "$tmp/resp")" -gt 0 ]; }
check "parameters nested 200 levels: the claim is taken, its pod placed" \
  "$(wait_for 30 deep_seen; echo $?)"
check "...nothing refused" "$(r is "$(refused_n)" 0)"
# One claim the extender cannot take (parameters of 11,000 bytes, past Kubernetes' own 10 KiB:
# an API server that does not check them) is left out alone.
big=$(head -c 11000 /dev/zero | tr '\0' x)
put resourceclaims "$(claim_json huge "{\"p\":\"$big\"}")"
one_refused() { [ "$(refused_n)" = 1 ]; }
check "a claim the extender cannot read (watch event): refused alone, counted" \
  "$(wait_for 30 one_refused; echo $?)"
check "...named in the log with its resourceVersion and reason" \
  "$(r is "$(grep '"an object was refused' "$tmp/a.log" | jq -r 'select(.name == "huge") | [.resource, .namespace, (.resourceVersion | length > 0), (.error | test("more than 10240"))] | @tsv' | head -n 1)" "$(printf 'resourceclaims\tdefault\ttrue\ttrue')")"
pod_with huge
post "$url_a/filter" "$tmp/podwith.json"
check "...a pod that uses it fails with its reason" \
  "$(r is "$(jq -r '.FailedNodes["node-l4"] | test("^resourceclaim default/huge is refused by the extender: .*more than 10240")' "$tmp/resp")" true)"
put resourceclaims "$(holder after-deep node-h100-b)"
pod_with after-deep
seen_after() { post "$url_a/filter" "$tmp/podwith.json"; [ "$(jq -r '.FailedNodes["node-l4"] // ""' "$tmp/resp")" = "resourceclaim default/after-deep not available on the node" ]; }
check "...a claim created afterwards is seen" "$(wait_for 30 seen_after; echo $?)"
relist0=$(counter relists resourceclaims)
fault '{"res":"resourceclaims","gone":"http","close":true}'
del resourceclaims/default/after-deep
relisted() { [ "$(counter relists resourceclaims)" -gt "$relist0" ]; }
wait_for 30 relisted >/dev/null
gone_after() { post "$url_a/filter" "$tmp/podwith.json"; [ "$(jq -r '.FailedNodes["node-l4"] // ""' "$tmp/resp")" = "resourceclaim default/after-deep not found" ]; }
check "after a relist (the list path): the list is taken without it, a deletion seen" \
  "$(wait_for 30 gone_after; echo $?)"
check "...still one refused" "$(r is "$(refused_n)" 1)"
code=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/readyz")
check "/readyz: ready (the rest is current), and says what is refused" \
  "$(r is "$code $(sed -n 2p "$tmp/resp")" "200 1 objects refused (dra_extender_objects_refused)")"
del resourceclaims/default/huge
none_refused() { [ "$(refused_n)" = 0 ]; }
check "the refused claim deleted: no longer counted" "$(wait_for 30 none_refused; echo $?)"

# ---- Metrics of the API source.
curl -s "$url_a/metrics" >"$tmp/metrics.a"
missing=$(for m in watch_events_total watch_lists_total watch_relists_total watch_disconnects_total \
                 watch_errors_total watch_synced watch_last_event_age_seconds; do
  for res in resourceslices deviceclasses resourceclaims nodes; do
    grep -q "^dra_extender_${m}{resource=\"$res\"" "$tmp/metrics.a" || printf '%s ' "$m{$res}"
  done; done)
check "metrics: events, lists, relists, disconnects, errors, synced and the newest event's age, per resource" \
  "$(r is "$missing" "")"
check "metrics: the request latency histogram by verb and status" \
  "$(r grep -q '^dra_extender_http_request_duration_seconds_bucket{verb="filter",code="200",le="+Inf"} ' "$tmp/metrics.a")"
if command -v promtool >/dev/null 2>&1; then
  check "promtool check metrics is clean" \
    "$(promtool check metrics <"$tmp/metrics.a" >"$tmp/promtool.out" 2>&1; echo $?)"
  sed 's/^/# promtool: /' "$tmp/promtool.out" | head -n 5
else
  skip "promtool check metrics is clean" "promtool is not installed"
fi
# Every family exported (by this extender and the --objects one) is in docs/extender.md's
# table, and every metric of the table is exported by one of them.
curl -s "$url_o/metrics" >"$tmp/metrics.o"
cat "$tmp/metrics.a" "$tmp/metrics.o" | awk '$1 == "#" && $2 == "TYPE" { print $3 }' | sort -u >"$tmp/exported"
# (the first column of the table's rows)
grep '^| `dra_extender_\|^| `process_' "$src/docs/extender.md" | awk -F'|' '{ print $2 }' |
  grep -o '`[a-z_]*`' | tr -d '`' | sort -u >"$tmp/documented"
# (the tier policy families exist with --policy alone: tests/extender/policy.sh checks them)
policy_families='^dra_extender_\(tenant_decisions\|default_tenant_decisions\|cap_rejections\|tier_[a-z_]*\|pending_[a-z_]*\|predictions\|policy_info\|policy_reloads\|policy_rollbacks\|decision_log_records\|placement_wait_seconds\|allocations\|tenant_pending_pods\)'
grep -v "$policy_families" "$tmp/documented" >"$tmp/documented.np"
check "every metric exported is documented in docs/extender.md" \
  "$(r is "$(comm -23 "$tmp/exported" "$tmp/documented" | tr '\n' ' ')" "")"
check "every metric documented is exported" \
  "$(r is "$(comm -13 "$tmp/exported" "$tmp/documented.np" | tr '\n' ' ')" "")"

# ---- Shutdown: SIGTERM with watches open, one of them silent.
fault '{"res":"nodes","silent_ms":60000}'
sleep 0.3
kill -TERM "$pid_a"
reap "$pid_a"; rc=$?
check "SIGTERM with open watches (one silent): exit 0" "$(r is "$rc" 0)"
check "...logged the stop" "$(r grep -q '"msg":"stopped"' "$tmp/a.log")"
for p in $pid_o $pid_ref $fpid; do kill -TERM "$p"; reap "$p"; done
pids=
check "no sanitizer report in any log" \
  "$(r sh -c "! grep -l -E 'ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:' '$tmp'/*.log")"

echo "1..$n"
[ "$failed" = 0 ]
