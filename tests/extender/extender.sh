#!/bin/sh
# tests/extender/extender.sh: integration tests of dra-extender, the real program on a loopback
# port, driven as kube-scheduler drives it (requests written as Go's encoding/json writes
# ExtenderArgs: capitalised keys, null for nil fields), with answers checked against
# `dra-celc explain` on the same objects. Also: the --objects directory watch, bad input at the
# HTTP edge, overload, TLS, explain, metrics (promtool when installed), shutdown under load.
# Needs curl and jq. TAP output; every wait is bounded.
set -u
ext=${DRA_EXTENDER:-./dra-extender}
celc=${DRA_CELC:-./dra-celc}
case $ext in /*) ;; *) ext=$PWD/$ext ;; esac
src=${top_srcdir:-.}
tmp=$(mktemp -d)
. "$src/tests/extender/common.sh"
# jtrue EXPR [FILE]: does jq's EXPR give exactly true? (jq -e passes on empty input.)
jtrue() { [ "$(jq -r "$@" 2>/dev/null)" = true ]; }

# ---- The sample cluster (README): fleet, class, nodes, claims.
mkdir -p "$tmp/objs"
cp -r "$src/examples/fleet" "$src/examples/classes" "$src/examples/nodes.yaml" "$tmp/objs/"
mkdir -p "$tmp/objs/claims"
cp "$src/examples/extender/claims.yaml" "$tmp/objs/claims/"
start a --objects "$tmp/objs" --log-level debug
check "starts, listens and reports ready on the sample cluster" \
  "$(is "$(curl -s -o /dev/null -w '%{http_code}' "$url_a/readyz")" 200)"
check "healthz" "$(is "$(curl -s "$url_a/healthz")" ok)"
check "logs are JSON objects, one a line" \
  "$(head -n 3 "$tmp/a.log" | jq -s -r 'length == 3 and all(has("time") and has("level") and has("msg"))' | grep -qx true; echo $?)"

# What dra-celc says about the same objects: the trainer's claim, with busy-h100-a's devices
# in use.
printf '%s\n' gpu.example.com/node-h100-a/gpu-0 gpu.example.com/node-h100-a/gpu-1 \
  gpu.example.com/node-h100-a/gpu-2 >"$tmp/busy.txt"
awk '/^---$/ { exit } { print }' "$src/examples/extender/claims.yaml" >"$tmp/trainer.yaml"
"$celc" explain --claim "$tmp/trainer.yaml" --classes "$src/examples/classes" \
  --slices "$src/examples/fleet" --nodes "$src/examples/nodes.yaml" --allocated "$tmp/busy.txt" \
  2>/dev/null | grep '^node-' >"$tmp/celc.txt"
expect_pass=$(awk -F': ' '$2 ~ /^allocated/ { print $1 }' "$tmp/celc.txt" | sort | tr '\n' ' ')

post "$url_a/filter" "$src/examples/extender/filter.json"
check "filter: 200 with a JSON ExtenderFilterResult" \
  "$(is "$status:$(jq -r 'keys | join(",")' "$tmp/resp")" \
        "200:Error,FailedAndUnresolvableNodes,FailedNodes,NodeNames,Nodes")"
got_pass=$(jq -r '.NodeNames[]' "$tmp/resp" | sort | tr '\n' ' ')
check "filter passes exactly the nodes dra-celc allocates on ($expect_pass)" \
  "$(is "$got_pass" "$expect_pass")"
check "filter: Nodes is null in the NodeNames form, Error is empty" \
  "$(is "$(jq -c '[.Nodes, .Error]' "$tmp/resp")" '[null,""]')"
expect_fail=$(awk -F': ' '$2 !~ /^allocated/ { sub(/^[^:]*: /, ""); print }' "$tmp/celc.txt" | sort)
got_fail=$(jq -r '.FailedNodes | to_entries[] | .value' "$tmp/resp" | sort)
check "FailedNodes: each reason is dra-celc's line for the node" "$(is "$got_fail" "$expect_fail")"
check "node-h100-a fails: busy-h100-a holds its GPUs" \
  "$(jtrue '.FailedNodes["node-h100-a"] | test("^unschedulable")' "$tmp/resp"; echo $?)"

post "$url_a/prioritize" "$src/examples/extender/filter.json"
check "prioritize: a HostPriorityList, one entry per node" \
  "$(is "$status:$(jq 'length' "$tmp/resp")" "200:7")"
check "prioritize: H100 10, A100 9, any GPU 8, failed 0 (8 - rank, scaled to 10)" \
  "$(is "$(jq -c 'map({(.Host): .Score}) | add' "$tmp/resp")" \
   '{"node-a100-40":9,"node-a100-80":9,"node-h100-a":0,"node-h100-b":10,"node-l4":8,"node-t4":0,"node-tainted":9}')"

# ---- The release reproduced: in 1.34 DRADeviceTaints is alpha (off), so node-tainted's H100
# is usable and the node gives the first tier; --feature-gates turns the gate on again.
start k34 --objects "$tmp/objs" --kubernetes-version 1.34
post "$url_k34/prioritize" "$src/examples/extender/filter.json"
check "--kubernetes-version 1.34: node-tainted's tainted H100 counts (no DeviceTaints): 10" \
  "$(is "$status:$(jq -c 'map(select(.Host == "node-tainted") | .Score)' "$tmp/resp")" "200:[10]")"
"$celc" explain --claim "$tmp/trainer.yaml" --classes "$src/examples/classes" \
  --slices "$src/examples/fleet" --nodes "$src/examples/nodes.yaml" --allocated "$tmp/busy.txt" \
  --kubernetes-version 1.34 --node node-tainted 2>/dev/null | grep '^node-tainted' >"$tmp/k34.txt"
check "--kubernetes-version 1.34: dra-celc explain gives node-tainted the same first tier" \
  "$(grep -q 'gpu-0' "$tmp/k34.txt"; echo $?)"
kill -TERM "$pid_k34"; reap "$pid_k34"
start k34g --objects "$tmp/objs" --kubernetes-version 1.34 --feature-gates DRADeviceTaints=true
post "$url_k34g/prioritize" "$src/examples/extender/filter.json"
check "--kubernetes-version 1.34 --feature-gates DRADeviceTaints=true: the taint counts again: 9" \
  "$(is "$status:$(jq -c 'map(select(.Host == "node-tainted") | .Score)' "$tmp/resp")" "200:[9]")"
kill -TERM "$pid_k34g"; reap "$pid_k34g"

# README.md's two commands, as written there (but for the port: a free one), from the top of
# the source tree: the extender on the sample cluster, then one filter request with curl.
awk '/^## The scheduler extender/ { f = 1 } f && /^```sh$/ { g = 1; next } g && /^```$/ { exit } g' \
  "$src/README.md" >"$tmp/readme.sh"
readme_ext=$(awk '{ l = l $0 "\n" } / &$/ { printf "%s", l; exit }' "$tmp/readme.sh" | sed 's/\\$//' |
  tr -d '\n' | sed 's/ &$//')
readme_curl=$(awk 'f { printf "%s\n", $0 } / &$/ { f = 1 }' "$tmp/readme.sh" | sed 's/\\$//' | tr -d '\n')
case "$readme_ext" in ./build/dra-extender\ *--listen\ 127.0.0.1:8888*) readme_ok=0 ;; *) readme_ok=1 ;; esac
case "$readme_curl" in curl\ *http://127.0.0.1:8888/filter*) ;; *) readme_ok=1 ;; esac
check "README.md: an extender command and a curl command, as expected ($readme_ext)" "$readme_ok"
rm -f "$tmp/readme.port"
cmd=$(printf '%s' "$readme_ext" | sed "s|^./build/dra-extender|\"\$ext\"|; s|--listen 127.0.0.1:8888|--listen 127.0.0.1:0 --port-file \"\$tmp/readme.port\"|")
(cd "$src" && eval "exec $cmd") 2>"$tmp/readme.log" &
pid_readme=$!
pids="$pids $pid_readme"
wait_for test -s "$tmp/readme.port" >/dev/null
rport=$(cat "$tmp/readme.port" 2>/dev/null)
wait_for curl -sf "http://127.0.0.1:${rport:-1}/readyz" >/dev/null
(cd "$src" && eval "$(printf '%s' "$readme_curl" | sed "s|127.0.0.1:8888|127.0.0.1:${rport:-1}|")") \
  >"$tmp/readme.out" 2>&1
check "README.md's curl command: the nodes dra-celc allocates on pass, node-h100-a fails" \
  "$(is "$(jq -r '.NodeNames | sort | join(" ")' "$tmp/readme.out" 2>/dev/null) $(jq -r '.FailedNodes["node-h100-a"] | test("^unschedulable")' "$tmp/readme.out" 2>/dev/null)" "$(printf '%s' "$expect_pass" | sed 's/ $//') true")"
kill -TERM "$pid_readme"
reap "$pid_readme"; rc=$?
check "...and the extender it starts stops on SIGTERM (exit 0)" "$(is "$rc" 0)"

# Keys as Go decodes them: case-insensitively, the last duplicate winning.
jq -c '{pod: .Pod, nodenames: ["node-h100-b"], NODENAMES: ["node-l4", "nope"]}' \
  "$src/examples/extender/filter.json" >"$tmp/lower.json"
post "$url_a/filter" "$tmp/lower.json"
check "keys are matched case-insensitively, the last duplicate winning" \
  "$(is "$(jq -c '[.NodeNames, (.FailedAndUnresolvableNodes | keys)]' "$tmp/resp")" '[["node-l4"],["nope"]]')"
check "an unknown node is failed as unresolvable, with a reason" \
  "$(jtrue '.FailedAndUnresolvableNodes.nope | test("not in the extender")' "$tmp/resp"; echo $?)"

# A pod without claims passes everything; one whose claim does not exist fails everything.
jq -c '.Pod.spec.resourceClaims = null | .Pod.status = {}' "$src/examples/extender/filter.json" >"$tmp/noclaims.json"
post "$url_a/filter" "$tmp/noclaims.json"
check "a pod without claims passes every node" "$(is "$(jq '.NodeNames | length' "$tmp/resp")" 7)"
post "$url_a/prioritize" "$tmp/noclaims.json"
check "a pod without claims: every score 0" "$(is "$(jq '[.[].Score] | max' "$tmp/resp")" 0)"
jq -c '.Pod.status.resourceClaimStatuses[0].resourceClaimName = "missing"' \
  "$src/examples/extender/filter.json" >"$tmp/missing.json"
post "$url_a/filter" "$tmp/missing.json"
check "a claim not in the cache fails every node, saying which" \
  "$(is "$(jq -r '[(.NodeNames | length), .FailedNodes["node-l4"]] | @tsv' "$tmp/resp")" \
        "$(printf '0\tresourceclaim default/missing not found')")"
jq -c '.Pod.status = {}' "$src/examples/extender/filter.json" >"$tmp/nostatus.json"
post "$url_a/filter" "$tmp/nostatus.json"
check "a template's claim not yet created: every node fails, waiting" \
  "$(jtrue '.FailedNodes["node-l4"] | test("waiting for the ResourceClaim")' "$tmp/resp"; echo $?)"
jq -c '.Pod.status.resourceClaimStatuses[0].resourceClaimName = null' \
  "$src/examples/extender/filter.json" >"$tmp/notneeded.json"
post "$url_a/filter" "$tmp/notneeded.json"
check "a template entry whose status names no claim needs none" \
  "$(is "$(jq '.NodeNames | length' "$tmp/resp")" 7)"

# A pod whose claim is already allocated: only its allocation's node passes.
jq -c '.Pod.status.resourceClaimStatuses[0].resourceClaimName = "busy-h100-a"' \
  "$src/examples/extender/filter.json" >"$tmp/pinned.json"
post "$url_a/filter" "$tmp/pinned.json"
check "an allocated claim pins the pod to its node selector" \
  "$(is "$(jq -c '[.NodeNames, .FailedNodes["node-l4"]]' "$tmp/resp")" \
        '[["node-h100-a"],"resourceclaim default/busy-h100-a not available on the node"]')"

# The Nodes form: the Node objects that pass come back as they were sent.
jq -c '.NodeNames as $n | .Nodes = {metadata: {}, items: [$n[] | {metadata: {name: ., labels: {zone: "a"}, uid: "u"}, status: {capacity: {cpu: "8"}}}]} | .NodeNames = null' \
  "$src/examples/extender/filter.json" | sed 's/"uid":"u"/"uid":"u","serial":9007199254740993/g' >"$tmp/nodesform.json"
post "$url_a/filter" "$tmp/nodesform.json"
check "Nodes form: the passing Node objects are returned in Nodes, NodeNames null" \
  "$(is "$(jq -r '[.Nodes.items[].metadata.name] | sort | join(" ")' "$tmp/resp") $(jq -c .NodeNames "$tmp/resp")" "$(printf '%s' "$expect_pass" | sed 's/ $//') null")"
npass=$(printf '%s' "$expect_pass" | wc -w)
check "Nodes form: the objects come back byte for byte (an integer past 2^53 untouched)" \
  "$(is "$(grep -o '"serial":9007199254740993' "$tmp/resp" | wc -l)" "$npass")"

# Explain.
status=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/explain?pod=default/trainer-0")
check "GET /explain of a pod seen: JSON, one entry per node of the cluster" \
  "$(is "$status:$(jq '.nodes | length' "$tmp/resp"):$(jq -r .pod "$tmp/resp")" "200:7:default/trainer-0")"
check "explain: the explanation of dra-celc (tiers, selectors)" \
  "$(jtrue '.nodes[] | select(.node == "node-l4") | .explanation.claims[0].requests[0].tiers | length == 3' "$tmp/resp"; echo $?)"
status=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/explain?pod=default/trainer-0&node=node-t4&format=text")
check "GET /explain?node=&format=text: dra-celc's line and explanation for one node" \
  "$(is "$status:$(sed -n 2p "$tmp/resp")" "200:$(grep '^node-t4: ' "$tmp/celc.txt")")"
status=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/explain?pod=default/nobody")
check "GET /explain of a pod never seen: 404 with a JSON reason" \
  "$(is "$status:$(jq -r '.error | test("has not been seen")' "$tmp/resp")" "404:true")"
jq -c .Pod "$src/examples/extender/filter.json" >"$tmp/pod.json"
post "$url_a/explain?node=node-h100-b" "$tmp/pod.json"
check "POST /explain with a Pod" \
  "$(is "$status:$(jq -r '.nodes[0].outcome' "$tmp/resp")" "200:allocated")"

# ---- The search in parts: the first pod of a claim on 1,200 nodes, searched on 1 thread and
# in 4 parts (--search-threads), gets the same answers, byte for byte, and dra-celc's. Nodes
# differ (H100, A100 80Gi or 40Gi, L4, T4, none; some GPUs held) so that tiers and failures mix.
mkdir -p "$tmp/many/fleet" "$tmp/many/claims"
awk 'BEGIN {
  split("H100 A100 A100 L4 T4", model, " "); split("80Gi 80Gi 40Gi 24Gi 16Gi", mem, " ")
  printf "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": ["
  for (i = 0; i < 1200; i++) {
    m = i % 6; nd = m == 5 ? 0 : 1 + i % 3
    printf "%s{\"apiVersion\": \"resource.k8s.io/v1\", \"kind\": \"ResourceSlice\", \"metadata\": {\"name\": \"n%04d-gpu\"}, \"spec\": {\"driver\": \"gpu.example.com\", \"nodeName\": \"n%04d\", \"pool\": {\"name\": \"n%04d\", \"generation\": 1, \"resourceSliceCount\": 1}, \"devices\": [", (i ? "," : ""), i, i, i
    for (d = 0; d < nd; d++)
      printf "%s{\"name\": \"gpu-%d\", \"attributes\": {\"model\": {\"string\": \"%s\"}}, \"capacity\": {\"memory\": {\"value\": \"%s\"}}}", (d ? "," : ""), d, model[m + 1], mem[m + 1]
    printf "]}}"
  }
  print "]}" }' >"$tmp/many/fleet/slices.json"
awk 'BEGIN { printf "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": ["
  for (i = 0; i < 1200; i++) printf "%s{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n%04d\"}}", (i ? "," : ""), i
  print "]}" }' >"$tmp/many/nodes.json"
# every seventh node's first GPU is held by another claim
awk 'BEGIN { for (i = 0; i < 1200; i += 7) printf "gpu.example.com/n%04d/gpu-0\n", i }' >"$tmp/many/busy.txt"
{
  awk '{ split($0, p, "/"); printf "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: busy-%s, namespace: default}\nspec:\n  devices:\n    requests:\n    - name: g\n      exactly: {deviceClassName: gpu.example.com}\nstatus:\n  allocation:\n    devices:\n      results:\n      - {request: g, driver: gpu.example.com, pool: %s, device: gpu-0}\n", p[2], p[2] }' "$tmp/many/busy.txt"
} >"$tmp/many/claims/busy.yaml"
cp "$tmp/trainer.yaml" "$tmp/many/claims/"
awk -v pod="$(jq -c .Pod "$src/examples/extender/filter.json")" 'BEGIN {
  printf "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":[", pod
  for (i = 0; i < 1200; i++) printf "%s\"n%04d\"", (i ? "," : ""), i; print ",\"n9999\"]}" }' \
  >"$tmp/many/filter.json"
for t in 1 4; do
  start many$t --objects "$tmp/many/fleet" --objects "$src/examples/classes" \
    --objects "$tmp/many/nodes.json" --objects "$tmp/many/claims" --search-threads=$t \
    --log-level debug
  eval "u=\$url_many$t"
  post "$u/filter" "$tmp/many/filter.json"; cp "$tmp/resp" "$tmp/many/filter$t.out"
  post "$u/prioritize" "$tmp/many/filter.json"; cp "$tmp/resp" "$tmp/many/prio$t.out"
  eval "kill \$pid_many$t"
done
check "search in parts: 4 parts of 300 nodes, on 4 threads" \
  "$(grep -q '"msg":"search in parts","nodes":1200,"parts":4,"threads":4' "$tmp/many4.log"; echo $?)"
check "...and none on one thread" "$(! grep -q 'search in parts' "$tmp/many1.log"; echo $?)"
check "...filter's answer the same byte for byte" \
  "$(cmp -s "$tmp/many/filter1.out" "$tmp/many/filter4.out"; echo $?)"
check "...prioritize's the same" "$(cmp -s "$tmp/many/prio1.out" "$tmp/many/prio4.out"; echo $?)"
"$celc" explain --claim "$tmp/trainer.yaml" --classes "$src/examples/classes" \
  --slices "$tmp/many/fleet" --nodes "$tmp/many/nodes.json" --allocated "$tmp/many/busy.txt" \
  2>/dev/null | grep '^n[0-9]' >"$tmp/many/celc.txt"
expect=$(awk -F': ' '$2 ~ /^allocated/ { print $1 }' "$tmp/many/celc.txt" | sort | tr '\n' ' ')
got=$(jq -r '.NodeNames[]' "$tmp/many/filter4.out" | sort | tr '\n' ' ')
check "...the nodes that pass are dra-celc's ($(echo "$expect" | wc -w) of 1,200)" \
  "$(is "$got" "$expect")"
check "...the failures' reasons are dra-celc's lines" \
  "$(is "$(jq -r '.FailedNodes | to_entries[] | .value' "$tmp/many/filter4.out" | sort)" \
        "$(awk -F': ' '$2 !~ /^allocated/ { sub(/^[^:]*: /, ""); print }' "$tmp/many/celc.txt" | sort)")"
check "...and the unknown node is unresolvable" \
  "$(is "$(jq -c '.FailedAndUnresolvableNodes | keys' "$tmp/many/filter4.out")" '["n9999"]')"
check "...tiers and failures mix: scores 10, 9, 8 and 0 all occur" \
  "$(is "$(jq -c '[.[].Score] | unique' "$tmp/many/prio4.out")" '[0,8,9,10]')"

# ---- Watching --objects: files written, replaced and removed change the answers.
post "$url_a/filter" "$src/examples/extender/filter.json"
before=$(jq -r '.NodeNames | length' "$tmp/resp")
rm "$tmp/objs/fleet/a100-nodes.json"
changed() { post "$url_a/filter" "$src/examples/extender/filter.json"; [ "$(jq -r '.NodeNames | length' "$tmp/resp")" != "$before" ]; }
check "a removed slice file takes its nodes' devices away" "$(wait_for changed; echo $?)"
check "...and those nodes now fail" \
  "$(jtrue '.FailedNodes["node-a100-40"] | test("unschedulable")' "$tmp/resp"; echo $?)"
cp "$src/examples/fleet/a100-nodes.json" "$tmp/objs/fleet/.a100.tmp"
mv "$tmp/objs/fleet/.a100.tmp" "$tmp/objs/fleet/a100-nodes.json"
back() { post "$url_a/filter" "$src/examples/extender/filter.json"; [ "$(jq -r '.NodeNames | length' "$tmp/resp")" = "$before" ]; }
check "a file renamed into place brings them back" "$(wait_for back; echo $?)"
printf 'kind: ResourceSlice\nspec: [\n' >"$tmp/objs/fleet/broken.yaml"
sleep 0.3
post "$url_a/filter" "$src/examples/extender/filter.json"
check "a broken file is logged and changes nothing" \
  "$(grep -q 'broken.yaml' "$tmp/a.log" && [ "$(jq -r '.NodeNames | length' "$tmp/resp")" = "$before" ]; echo $?)"
rm -f "$tmp/objs/fleet/broken.yaml"
rm "$tmp/objs/claims/claims.yaml"
gone() { post "$url_a/filter" "$src/examples/extender/filter.json"; jtrue '.FailedNodes["node-l4"] | test("not found")' "$tmp/resp"; }
check "a removed claim file: the claim is gone" "$(wait_for gone; echo $?)"
cp "$src/examples/extender/claims.yaml" "$tmp/objs/claims/"
wait_for back >/dev/null
# each snapshot's view (the node index, the keys and answers carried over) is made when it is
# published, on the publisher thread, not by the first request on it
last=$(grep -o '"msg":"snapshot published","id":[0-9]*' "$tmp/a.log" | tail -n 1 | sed 's/.*://')
made() { grep -q "\"msg\":\"view made\",\"snapshot\":${last:-none}," "$tmp/a.log"; }
check "the view of the last snapshot published (${last:-none}) is made then" "$(wait_for made; echo $?)"

# ---- Bad input at the HTTP edge: a 4xx with a JSON reason, and the server keeps serving.
bad() { # name expected-status curl-args...
  name=$1; want=$2; shift 2
  status=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$@")
  check "$name: $want with a JSON reason" \
    "$(is "$status:$(jq -r '.error | type' "$tmp/resp" 2>/dev/null)" "$want:string")"
}
bad "malformed JSON" 400 -X POST -H 'Content-Type: application/json' --data-binary '{"Pod":' "$url_a/filter"
bad "trailing garbage" 400 -X POST -H 'Content-Type: application/json' --data-binary '{"Pod":{}} x' "$url_a/filter"
bad "a body that is not an object" 400 -X POST -H 'Content-Type: application/json' --data-binary '[1,2]' "$url_a/filter"
bad "no Pod" 400 -X POST -H 'Content-Type: application/json' --data-binary '{"NodeNames":["a"]}' "$url_a/filter"
bad "NodeNames of the wrong type" 400 -X POST -H 'Content-Type: application/json' --data-binary '{"Pod":{},"NodeNames":[1]}' "$url_a/filter"
check "...which names the field" "$(is "$(jq -r .error "$tmp/resp")" "NodeNames[0]: expected a string")"
bad "Pod of the wrong type" 400 -X POST -H 'Content-Type: application/json' --data-binary '{"Pod":"x","NodeNames":[]}' "$url_a/filter"
bad "resourceClaims of the wrong type" 400 -X POST -H 'Content-Type: application/json' --data-binary '{"Pod":{"spec":{"resourceClaims":{}}}}' "$url_a/filter"
awk 'BEGIN { for (i = 0; i < 100; i++) printf "["; for (i = 0; i < 100; i++) printf "]" }' >"$tmp/deep.json"
printf '{"Pod":{},"NodeNames":[],"x":' >"$tmp/deep2.json"; cat "$tmp/deep.json" >>"$tmp/deep2.json"; printf '}' >>"$tmp/deep2.json"
bad "nesting deeper than --max-json-depth" 400 -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/deep2.json" "$url_a/filter"
printf '{"Pod":{"metadata":{"name":"a\\u0000b"}},"NodeNames":[]}' >"$tmp/nul.json"
bad "a NUL character in a string" 400 -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/nul.json" "$url_a/filter"
printf '{"Pod":{"metadata":{"name":"\377"}},"NodeNames":[]}' >"$tmp/utf8.json"
bad "invalid UTF-8" 400 -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/utf8.json" "$url_a/filter"
bad "a content type other than JSON" 415 -X POST -H 'Content-Type: text/plain' --data-binary '{}' "$url_a/filter"
bad "GET on a POST endpoint" 405 "$url_a/filter"
bad "an unknown path" 404 "$url_a/nope"
bad "explain without ?pod=" 400 "$url_a/explain"
# 100 MB announced: refused before the body is sent (curl waits for 100-continue).
head -c 104857600 /dev/zero >"$tmp/big"
start b --objects "$tmp/objs" --max-body 1MiB --request-timeout 2s
t0=$(date +%s)
bad "a 100 MB body" 413 -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/big" "$url_b/filter"
check "...refused from its Content-Length, fast" "$(is "$(( $(date +%s) - t0 < 5 ))" 1)"
bad "a chunked body over --max-body" 413 -X POST -H 'Content-Type: application/json' -H 'Transfer-Encoding: chunked' --data-binary @"$tmp/big" "$url_b/filter"
# A client that sends its body too slowly is disconnected after --request-timeout.
(printf 'POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{'; sleep 1; printf '"'; sleep 3; printf 'P') |
  curl -s -o /dev/null --max-time 8 telnet://127.0.0.1:${url_b##*:} >/dev/null 2>&1
check "a slow client is disconnected" "$(grep -q 'not received in time' "$tmp/b.log"; echo $?)"
check "the server keeps serving after all that" \
  "$(post "$url_b/filter" "$src/examples/extender/filter.json"; is "$status" 200)"

# ---- Metrics.
curl -s "$url_a/metrics" >"$tmp/metrics"
check "metrics: requests by verb and status" \
  "$(grep -q '^dra_extender_http_requests_total{verb="filter",code="200"} [1-9]' "$tmp/metrics"; echo $?)"
check "metrics: node answers by result and reason" \
  "$(grep -q '^dra_extender_node_answers_total{verb="filter",result="failed",reason="unschedulable"}' "$tmp/metrics"; echo $?)"
check "metrics: decisions by tier" \
  "$(grep -q '^dra_extender_decisions_total{tiers="gpu/h100"} ' "$tmp/metrics"; echo $?)"
check "metrics: cache objects, snapshot age, build info, RSS" \
  "$(grep -q '^dra_extender_cache_objects{resource="resourceclaims"} 2' "$tmp/metrics" &&
     grep -q '^dra_extender_snapshot_age_seconds ' "$tmp/metrics" &&
     grep -q '^dra_extender_build_info{version="' "$tmp/metrics" &&
     grep -q '^process_resident_memory_bytes ' "$tmp/metrics"; echo $?)"
check "metrics: latency histograms by verb and status" \
  "$(grep -q '^dra_extender_http_request_duration_seconds_bucket{verb="filter",code="200",le="+Inf"} ' "$tmp/metrics"; echo $?)"
if command -v promtool >/dev/null 2>&1; then
  check "promtool check metrics is clean" "$(promtool check metrics <"$tmp/metrics" >"$tmp/promtool.out" 2>&1; echo $?)"
else
  skip "promtool check metrics is clean" "promtool is not installed"
fi

# ---- A real Prometheus scrapes /metrics.
if command -v prometheus >/dev/null 2>&1; then
  pport=$(( 20000 + $$ % 20000 ))
  printf "global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n- job_name: dra-extender\n  static_configs: [{targets: ['127.0.0.1:%s']}]\n" "${url_a##*:}" >"$tmp/prom.yml"
  prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/prom-data" \
    --web.listen-address="127.0.0.1:$pport" --log.level=warn >"$tmp/prom.log" 2>&1 &
  pids="$pids $!"
  q() { curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
  scraped() { q 'up{job="dra-extender"}' | jtrue '.data.result[0].value[1] == "1"'; }
  i=0; until scraped || [ $i -ge 200 ]; do sleep 0.2; i=$((i + 1)); done
  check "Prometheus scrapes the extender (up == 1)" "$(scraped; echo $?)"
  scraped || { q 'up' | sed 's/^/# /'; sed 's/^/# /' "$tmp/prom.log" | tail -n 20; }
  check "...and stores its series (dra_extender_http_requests_total)" \
    "$(q 'sum(dra_extender_http_requests_total{verb="filter"})' | jtrue '.data.result[0].value[1] | tonumber > 0'; echo $?)"
else
  skip "Prometheus scrapes the extender (up == 1)" "prometheus is not installed"
  skip "...and stores its series" "prometheus is not installed"
fi

# ---- TLS.
if command -v openssl >/dev/null 2>&1 &&
   openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
     -days 1 -subj /CN=127.0.0.1 >/dev/null 2>&1; then
  rm -f "$tmp/t.port"
  "$ext" --address 127.0.0.1 --port 0 --port-file "$tmp/t.port" --objects "$tmp/objs" \
    --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem" 2>"$tmp/t.log" &
  pids="$pids $!"
  i=0; while [ ! -s "$tmp/t.port" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  turl=https://127.0.0.1:$(cat "$tmp/t.port" 2>/dev/null)
  wait_for curl -sf --cacert "$tmp/cert.pem" "$turl/readyz" >/dev/null
  status=$(curl -s --cacert "$tmp/cert.pem" -o "$tmp/resp" -w '%{http_code}' -X POST \
           -H 'Content-Type: application/json' --data-binary @"$src/examples/extender/filter.json" "$turl/filter")
  check "TLS: filter over HTTPS with the configured certificate" \
    "$(is "$status:$(jq -r '.NodeNames | length' "$tmp/resp")" "200:$before")"
else
  skip "TLS: filter over HTTPS with the configured certificate" "openssl is not installed"
fi
start bad --objects "$tmp/objs" --tls-cert "$tmp/cert.pem"
reap "$pid_bad"; rc=$?
check "TLS needs both files: exit 1 with a message" \
  "$([ $rc = 1 ] && grep -q 'both a certificate and a key' "$tmp/bad.log"; echo $?)"

# ---- Usage errors exit 2.
"$ext" --port nope >/dev/null 2>"$tmp/err"; rc=$?
check "a bad option value: exit 2, named" "$(is "$rc:$(head -n 1 "$tmp/err")" "2:dra-extender: --port: invalid value 'nope'")"
"$ext" >/dev/null 2>"$tmp/err"; rc=$?
check "no source: exit 2" "$(is "$rc" 2)"
for bad in 8888 127.0.0.1 127.0.0.1: :8888 127.0.0.1:65536 127.0.0.1:-1 ::1:8888 '[::1]' '[::1:8888' \
           '[]:8888' 127.0.0.1:8888x; do
  "$ext" --objects "$tmp/objs" --listen "$bad" >/dev/null 2>"$tmp/err"; rc=$?
  check "--listen '$bad': exit 2, named" \
    "$(is "$rc:$(head -n 1 "$tmp/err")" "2:dra-extender: --listen: invalid value '$bad'")"
done
for bad in 0 65 x; do
  "$ext" --objects "$tmp/objs" --search-threads "$bad" >/dev/null 2>"$tmp/err"; rc=$?
  check "--search-threads $bad (1 to 64): exit 2, named" \
    "$(is "$rc:$(head -n 1 "$tmp/err")" "2:dra-extender: --search-threads: invalid value '$bad'")"
done
for bad in 1MiB 8388607 0; do
  "$ext" --objects "$tmp/objs" --max-object-size "$bad" >/dev/null 2>"$tmp/err"; rc=$?
  check "--max-object-size $bad (8MiB at least: above any object an API server stores): exit 2" \
    "$(is "$rc:$(head -n 1 "$tmp/err")" "2:dra-extender: --max-object-size: invalid value '$bad'")"
done
"$ext" --objects "$tmp/objs" --max-request-memory 65535 >/dev/null 2>"$tmp/err"; rc=$?
check "--max-request-memory 65535 (64KiB at least): exit 2" \
  "$(is "$rc:$(head -n 1 "$tmp/err")" "2:dra-extender: --max-request-memory: invalid value '65535'")"
"$ext" --objects "$tmp/objs" --listen=not-an-address:0 >/dev/null 2>"$tmp/err"; rc=$?
check "--listen=HOST:PORT with a name, not an address: exit 1, named" \
  "$([ $rc = 1 ] && grep -q "the listen address 'not-an-address' is not an IPv4 or IPv6" "$tmp/err"; echo $?)"
if grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null; then
  rm -f "$tmp/v6.port"
  "$ext" --objects "$tmp/objs" --listen '[::1]:0' --port-file "$tmp/v6.port" 2>"$tmp/v6.log" &
  v6=$!; pids="$pids $v6"
  i=0; while [ ! -s "$tmp/v6.port" ] && kill -0 $v6 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  check "--listen '[::1]:0': an IPv6 loopback listener answers /healthz" \
    "$(curl -sf -g "http://[::1]:$(cat "$tmp/v6.port" 2>/dev/null)/healthz" >/dev/null; echo $?)"
  kill -TERM $v6 2>/dev/null; wait $v6 2>/dev/null
else
  skip "--listen '[::1]:0': an IPv6 loopback listener answers /healthz" "no IPv6 loopback"
fi
"$ext" --objects "$tmp/objs" --kubernetes-version 1.33 >/dev/null 2>"$tmp/err"; rc=$?
check "--kubernetes-version 1.33: exit 2, named" \
  "$(is "$rc:$(head -n 1 "$tmp/err")" "2:dra-extender: --kubernetes-version: invalid value '1.33'")"
"$ext" --objects "$tmp/objs" --feature-gates DRANope=true >/dev/null 2>"$tmp/err"; rc=$?
check "--feature-gates with an unknown gate: exit 2 with Kubernetes' message" \
  "$([ $rc = 2 ] && grep -q 'unrecognized feature gate: DRANope' "$tmp/err"; echo $?)"
"$ext" --objects "$tmp/objs" --feature-gates DRAAdminAccess=false >/dev/null 2>"$tmp/err"; rc=$?
check "--feature-gates DRAAdminAccess=false in 1.37: exit 2, the gate is locked" \
  "$([ $rc = 2 ] && grep -q 'locked to true' "$tmp/err"; echo $?)"
"$ext" --objects "$tmp/objs" --port= >/dev/null 2>"$tmp/err"; rc=$?
check "--port= (an empty value after =): exit 2" "$(is "$rc:$(head -n 1 "$tmp/err")" "2:dra-extender: --port: invalid value ''")"
check "--help lists every option of docs/extender.md" \
  "$(for o in $(grep -o '^| `--[a-z-]*' "$src/docs/extender.md" | sed 's/^| `//'); do "$ext" --help | grep -q -- "$o" || echo "$o"; done | grep -q .; [ $? = 1 ]; echo $?)"
check "deploy/ uses only options dra-extender has" \
  "$(for o in $( (grep -- '^ *- --' "$src/deploy/extender.yaml"; grep '^CMD' "$src/deploy/Dockerfile") | grep -o -- '--[a-z-]*' | sort -u); do "$ext" --help | grep -q -- "$o" || echo "$o"; done | grep -q .; [ $? = 1 ]; echo $?)"

# ---- --max-connections is the process's limit, whatever the number of HTTP threads: with two
# threads and a limit of two, two keep-alive connections (each answered once, then idle) hold
# both places; a third is closed at once without an answer; once one goes, new ones are served.
start e --objects "$tmp/objs" --max-connections 2 --threads 2
eport=${url_e##*:}
hold() { # K: connection K, its request sent through a FIFO that stays open (fd 7 or 8)
  mkfifo "$tmp/fifo$1"
  curl -sN --max-time 60 "telnet://127.0.0.1:$eport" <"$tmp/fifo$1" >"$tmp/held$1" 2>/dev/null &
  eval "held_$1=\$!"
  pids="$pids $!"
  if [ "$1" = 1 ]; then exec 7>"$tmp/fifo1"; else exec 8>"$tmp/fifo2"; fi
  printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' >"$tmp/fifo$1"
}
hold 1
hold 2
answered() { grep -q '^ok' "$tmp/held1" && grep -q '^ok' "$tmp/held2"; }
check "--max-connections 2, --threads 2: two connections answered and kept open" \
  "$(wait_for answered; echo $?)"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$url_e/healthz"); rc=$?
check "...a third is closed without an answer ($code, curl exit $rc)" \
  "$(is "$code:$([ $rc = 52 ] || [ $rc = 56 ] && echo closed)" "000:closed")"
{ kill "$held_1"; reap "$held_1"; } 2>/dev/null; exec 7>&-
served() { [ "$(curl -s --max-time 5 "$url_e/healthz")" = ok ]; }
check "...once one goes, new connections are served again" "$(wait_for served; echo $?)"
# (a scrape too may find both places taken for a moment, by the last connection not yet closed)
scrape() { curl -sf "$url_e/metrics" >"$tmp/metrics.e"; }
wait_for scrape
check "...the refusal counted (rejected_total{reason=\"connections\"}), 2 connections open" \
  "$(is "$(awk '$1 == "dra_extender_http_rejected_total{reason=\"connections\"}" { r = ($2 >= 1) }
               $1 == "dra_extender_http_connections" { c = $2 } END { print r, c }' "$tmp/metrics.e")" "1 2")"
{ kill "$held_2"; reap "$held_2"; } 2>/dev/null; exec 8>&-
kill -TERM "$pid_e"; reap "$pid_e"

# ---- Overload: one worker, a queue of one: the rest is answered 503 at once.
awk 'BEGIN { for (i = 0; i < 40; i++) { printf "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s%d}\nspec:\n  driver: gpu.example.com\n  nodeName: n%d\n  pool: {name: n%d, generation: 1, resourceSliceCount: 1}\n  devices:\n", i, i, i;
  for (d = 0; d < 64; d++) printf "  - {name: gpu-%d, attributes: {model: {string: H100}}}\n", d } }' >"$tmp/slow-slices.yaml"
mkdir -p "$tmp/slow"
cp "$tmp/slow-slices.yaml" "$src/examples/classes/gpu.yaml" "$tmp/slow/"
cat >"$tmp/slow/claim.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: slow, namespace: default}
spec:
  devices:
    requests:
    - name: g
      exactly:
        deviceClassName: gpu.example.com
        count: 2
        selectors:
        - cel: {expression: 'lists.range(300).all(i, lists.range(300).all(j, i + j >= 0)) && device.attributes["gpu.example.com"].model == "L4"'}
EOF
awk 'BEGIN { printf "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},\"spec\":{\"resourceClaims\":[{\"name\":\"g\",\"resourceClaimName\":\"slow\"}]}},\"Nodes\":null,\"NodeNames\":[";
  for (i = 0; i < 40; i++) printf "%s\"n%d\"", (i ? "," : ""), i; print "]}" }' >"$tmp/slow.json"
start c --objects "$tmp/slow" --workers 1 --queue 1 --queue-wait 30s --cache-entries 64
ov=
for k in 1 2 3 4 5 6; do
  (curl -s -o "$tmp/ov$k" -w '%{http_code} %{time_total}\n' -X POST -H 'Content-Type: application/json' \
     --data-binary @"$tmp/slow.json" "$url_c/filter" >"$tmp/ov$k.code") &
  ov="$ov $!"
done
wait_for sh -c "[ \$(cat $tmp/ov*.code 2>/dev/null | grep -c '^503') -ge 4 ]" >/dev/null
cat "$tmp"/ov*.code | sed 's/^/# overload answer: /'
check "overload: with the worker and the queue taken, requests get 503 at once" \
  "$(is "$(cat "$tmp"/ov*.code | awk '$1 == 503 && $2 < 1 { n++ } END { print n + 0 }')" 4)"
check "...with a JSON reason" "$(cat "$tmp"/ov* | grep -q '"error":"overloaded: '; echo $?)"
for p in $ov; do reap "$p"; done
check "...and the two admitted requests are answered" \
  "$(is "$(cat "$tmp"/ov*.code | awk '$1 == 200 { n++ } END { print n + 0 }')" 2)"

# ---- Shutdown under load: SIGTERM while three slow requests are computed: each is answered in
# full, new connections are refused, then exit 0.
mkdir -p "$tmp/sd"
cp "$tmp/slow-slices.yaml" "$src/examples/classes/gpu.yaml" "$tmp/sd/"
sed 's/range(300)/range(100)/g' "$tmp/slow/claim.yaml" >"$tmp/sd/claim.yaml"
start d --objects "$tmp/sd" --workers 3 --queue 8 --queue-wait 60s --shutdown-grace 120s
sd=
for k in 1 2 3; do
  (code=$(curl -s -o "$tmp/sd-body$k" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
            --data-binary @"$tmp/slow.json" "$url_d/filter")
   echo "$code $(jq -r '.FailedNodes | length' "$tmp/sd-body$k" 2>/dev/null)" >"$tmp/sd-code$k") &
  sd="$sd $!"
done
# in flight: the three requests, and the scrape itself, are counted before the signal
inflight() { curl -s "$url_d/metrics" | awk '/^dra_extender_http_requests_in_flight / { n = $2 } END { exit !(n >= 4) }'; }
wait_for inflight >/dev/null
kill -TERM "$pid_d"
sleep 0.3
refused=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url_d/healthz")
reap "$pid_d"; rc=$?
for p in $sd; do reap "$p"; done
cat "$tmp"/sd-code* | sed 's/^/# answer: /'
check "SIGTERM with requests in flight: exit 0" "$(is "$rc" 0)"
check "...each request in flight answered in full" \
  "$(is "$(cat "$tmp"/sd-code* | tr '\n' ' ')" "200 40 200 40 200 40 ")"
check "...new connections refused once the signal came" "$(is "$refused" 000)"
check "...and it logged the stop" "$(grep -q '"msg":"stopped"' "$tmp/d.log"; echo $?)"
kill -TERM "$pid_a"
reap "$pid_a"; rc=$?
check "SIGTERM when idle: exit 0" "$(is "$rc" 0)"
check "no sanitizer report in any log" \
  "$(! grep -l -E 'ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$tmp"/*.log; echo $?)"

echo "1..$n"
[ "$failed" = 0 ]
