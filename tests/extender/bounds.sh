#!/bin/sh
# tests/extender/bounds.sh: the bounds of dra-extender that one client or one tenant must not be
# able to break (issue 27): a request that cannot start within --queue-wait is answered at that
# moment, SIGTERM ends the process within --shutdown-grace whatever is computed, the memory of
# remembered pods is capped in bytes, and the edges that once answered wrongly: a NUL in a query
# argument, an unknown node in explain, explain of a body that is not a pod, two Content-Length
# headers. The real program on loopback ports; TAP output; every wait is bounded.
set -u
ext=${DRA_EXTENDER:-./dra-extender}
case $ext in /*) ;; *) ext=$PWD/$ext ;; esac
src=${top_srcdir:-.}
tmp=$(mktemp -d)
. "$src/tests/extender/common.sh"

# ---- A slow cluster: 40 nodes of 64 devices and a claim whose selector costs about 100 ms a
# node (seconds a request; far more under the sanitizers).
awk 'BEGIN { for (i = 0; i < 40; i++) { printf "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s%d}\nspec:\n  driver: gpu.example.com\n  nodeName: n%d\n  pool: {name: n%d, generation: 1, resourceSliceCount: 1}\n  devices:\n", i, i, i;
  for (d = 0; d < 64; d++) printf "  - {name: gpu-%d, attributes: {model: {string: H100}}}\n", d } }' >"$tmp/slices.yaml"
mkdir -p "$tmp/slow"
cp "$tmp/slices.yaml" "$src/examples/classes/gpu.yaml" "$tmp/slow/"
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
# send NAME URL: POST the slow request in the background; "CODE SECONDS" into $tmp/NAME.code
send() {
  (curl -s -o "$tmp/$1.body" -w '%{http_code} %{time_total}\n' -X POST \
     -H 'Content-Type: application/json' --data-binary @"$tmp/slow.json" "$2/filter" \
     >"$tmp/$1.tmp"; mv "$tmp/$1.tmp" "$tmp/$1.code") &
}

# ---- Queue wait: one worker, busy for seconds; the two requests behind it are answered 503
# when they have waited --queue-wait, not when the worker comes free (9.8 s once).
start q --objects "$tmp/slow" --workers 1 --queue 4 --queue-wait 500ms --shutdown-grace 2s
send q1 "$url_q"
sleep 0.2
send q2 "$url_q"
send q3 "$url_q"
two() { [ -s "$tmp/q2.code" ] && [ -s "$tmp/q3.code" ]; }
wait_for two >/dev/null
running=$([ -e "$tmp/q1.code" ] && echo answered || echo running)
cat "$tmp"/q*.code | sed 's/^/# queue-wait answer: /'
check "--queue-wait 500ms: the requests behind a busy worker get 503 within 2 s" \
  "$(is "$(cat "$tmp/q2.code" "$tmp/q3.code" | awk '$1 == 503 && $2 < 2 { n++ } END { print n + 0 }')" 2)"
check "...while the worker still computes the first" "$(is "$running" running)"
check "...with the wait in the reason" \
  "$(jq -r .error "$tmp/q2.body" | grep -Eqx 'overloaded: waited [0-9]+ ms for a worker \(limit 500 ms\)'; echo $?)"
check "...counted as rejected: overloaded" \
  "$(curl -s "$url_q/metrics" | grep -q '^dra_extender_http_rejected_total{reason="overloaded"} 2$'; echo $?)"
kill -TERM "$pid_q"; reap "$pid_q"

# ---- Shutdown: --shutdown-grace 1s with a computation of seconds running and two requests
# waiting for the worker: the waiting ones get 503 "shutting down", the computation is cut
# short (503), and the process exits 0 within the grace (19.5 s once).
start s --objects "$tmp/slow" --workers 1 --queue 4 --queue-wait 60s --shutdown-grace 1s
send s1 "$url_s"
sleep 0.2
send s2 "$url_s"
send s3 "$url_s"
inflight() { curl -s "$url_s/metrics" | awk '/^dra_extender_http_requests_in_flight / { n = $2 } END { exit !(n >= 4) }'; }
wait_for inflight >/dev/null
t0=$(date +%s%N)
kill -TERM "$pid_s"
reap "$pid_s"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "# exited ${ms} ms after SIGTERM"
three() { [ -s "$tmp/s1.code" ] && [ -s "$tmp/s2.code" ] && [ -s "$tmp/s3.code" ]; }
wait_for three >/dev/null
cat "$tmp"/s?.code | sed 's/^/# shutdown answer: /'
check "SIGTERM with --shutdown-grace 1s: exit 0 within 3 s, the computation running cut short" \
  "$(is "$rc $([ "$ms" -lt 3000 ] && echo in-time || echo "${ms}ms")" "0 in-time")"
check "...the computation answered 503: cancelled" \
  "$(is "$(cut -d' ' -f1 "$tmp/s1.code") $(jq -r .error "$tmp/s1.body")" \
        "503 shutting down: the computation was cancelled")"
check "...the requests waiting for a worker answered 503: shutting down" \
  "$(is "$(cat "$tmp/s2.code" "$tmp/s3.code" | cut -d' ' -f1 | tr '\n' ' ')$(jq -r .error "$tmp/s2.body")" \
        "503 503 shutting down")"
check "...and it logged the stop" "$(grep -q '"msg":"stopped"' "$tmp/s.log"; echo $?)"

# ---- The sample cluster, for the edges.
mkdir -p "$tmp/objs/claims"
cp -r "$src/examples/fleet" "$src/examples/classes" "$src/examples/nodes.yaml" "$tmp/objs/"
cp "$src/examples/extender/claims.yaml" "$tmp/objs/claims/"
start a --objects "$tmp/objs"
post "$url_a/filter" "$src/examples/extender/filter.json"
check "the sample's trainer-0 is filtered (and remembered)" "$(is "$status" 200)"

code=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/explain?pod=default/trainer-0%00x")
check "GET /explain?pod= with a NUL (%00): 400, not trainer-0's explanation" \
  "$(is "$code $(jq -r .error "$tmp/resp")" "400 a query argument contains a NUL byte (%00)")"
long_ns=$(head -c 256 /dev/zero | tr '\0' a); long_name=$(head -c 254 /dev/zero | tr '\0' b)
code=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/explain?pod=$long_ns/x")
check "GET /explain?pod= with a namespace of 256 bytes: 400 naming the bound" \
  "$(is "$code $(jq -r .error "$tmp/resp")" "400 pod=: the namespace has 256 bytes, more than a namespace (a DNS label) allows (63)")"
code=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/explain?pod=default/$long_name")
check "...a name of 254 bytes: 400; an empty namespace or name: 400 saying which" \
  "$(is "$code $(jq -r .error "$tmp/resp") $(curl -s "$url_a/explain?pod=/x" | jq -r .error) $(curl -s "$url_a/explain?pod=default/" | jq -r .error)" "400 pod=: the name has 254 bytes, more than a pod's name allows (253) explain needs ?pod=NAMESPACE/NAME: the namespace is empty explain needs ?pod=NAMESPACE/NAME: the name is empty")"
code=$(curl -s -o "$tmp/resp" -w '%{http_code}' "$url_a/explain?pod=default/trainer-0&node=nope")
check "GET /explain?node= naming no node of the cluster: 404 with the reason" \
  "$(is "$code $(jq -r .error "$tmp/resp")" "404 node nope is unknown: not among the cluster's nodes")"
post "$url_a/explain?node=nope" "$src/examples/extender/filter.json"
check "POST /explain?node= naming none of the request's nodes: 404" \
  "$(is "$status $(jq -r .error "$tmp/resp")" "404 node nope is unknown: not among the request's nodes")"
printf '{"foo":1}' >"$tmp/foo.json"
post "$url_a/filter" "$tmp/foo.json"; fcode=$status; ferr=$(jq -r .error "$tmp/resp")
post "$url_a/explain" "$tmp/foo.json"
check "POST /explain of a body that is neither ExtenderArgs nor a Pod: 400 as filter gives" \
  "$(is "$status $(jq -r .error "$tmp/resp")" "$fcode $ferr")"
check "...which is 400" "$(is "$fcode" 400)"
printf '{"metadata":{"namespace":"default"},"spec":{}}' >"$tmp/noname.json"
post "$url_a/explain" "$tmp/noname.json"
check "POST /explain of a Pod without a name: 400" \
  "$(is "$status $(jq -r .error "$tmp/resp")" "400 Pod: metadata.name: required value")"
jq -c .Pod "$src/examples/extender/filter.json" >"$tmp/pod.json"
post "$url_a/explain?node=node-h100-b" "$tmp/pod.json"
check "...a bare Pod is still explained" "$(is "$status $(jq -r '.nodes[0].outcome' "$tmp/resp")" "200 allocated")"

# Readers are linear: a pod with 10,000 claims from templates (each found through
# status.resourceClaimStatuses, listed in the reverse order), one with 200,000 labels and one
# with 100,000 container resources are each read in well under a second (a scan for every
# entry, as before, took minutes and gigabytes: the 60 s bound is generous, never a timing).
big() { # NAME JQ-PROGRAM: the sample's request with the pod changed by the program
  jq -c "$2" "$src/examples/extender/filter.json" >"$tmp/$1.json"
  curl -s -m 60 -o "$tmp/$1.out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary @"$tmp/$1.json" "$url_a/filter"
}
code=$(big claims '.Pod.spec.resourceClaims = [range(10000) | {name: "c\(.)",
  resourceClaimTemplateName: "t"}] | .Pod.status.resourceClaimStatuses = [range(9999; -1; -1) |
  {name: "c\(.)", resourceClaimName: "gen-\(.)"}]')
check "10,000 template claims: each found by its status, answered" \
  "$(is "$code $(jq -r '.FailedNodes["node-h100-b"]' "$tmp/claims.out")" \
        "200 resourceclaim default/gen-0 not found")"
base=$(big base '.'); nodes=$(jq -c .NodeNames "$tmp/base.out")
code=$(big labels '.Pod.metadata.labels = ([range(200000) | {key: "l\(.)", value: "v"}] |
  from_entries)')
check "200,000 labels: answered as without them" \
  "$(is "$base $code $(jq -c .NodeNames "$tmp/labels.out")" "200 200 $nodes")"
code=$(big res '.Pod.spec.containers[0].resources.requests = ([range(100000) |
  {key: "example.com/r\(.)", value: "1"}] | from_entries)')
check "100,000 container resources (none backed by a DeviceClass): answered as without them" \
  "$(is "$code $(jq -c .NodeNames "$tmp/res.out")" "200 $nodes")"

# ---- The memory of one request (--max-request-memory) and its reading under --budget: the
# 200,000 labels need megabytes to read (413, with the cap in the reason) and tens of
# milliseconds (503 when the budget is 1 ms, which validating their 5 MB alone passes); the
# sample request is answered by both servers as before.
start mm --objects "$tmp/objs" --max-request-memory 1MiB
start mb --objects "$tmp/objs" --budget 1ms
for u in mm mb; do
  eval "url=\$url_$u"
  post "$url/filter" "$tmp/labels.json"; eval "big_$u=\"\$status \$(jq -r .error \"\$tmp/resp\")\""
  post "$url/filter" "$src/examples/extender/filter.json"; eval "small_$u=\$status"
done
check "--max-request-memory 1MiB: 200,000 labels are 413 with the reason" \
  "$(is "$big_mm" "413 request too large: reading it needs more than 1048576 bytes of memory (--max-request-memory)")"
check "...the sample request is still 200" "$(is "$small_mm" 200)"
check "--budget 1ms counts reading the body: 503 with the reason" \
  "$(is "$big_mb" "503 the time budget for the request (--budget) ran out while reading it")"
check "...the sample request is still 200" "$(is "$small_mb" 200)"
check "...each counted as an answer with its status" \
  "$(curl -s "$url_mm/metrics" | grep -q '^dra_extender_http_requests_total{verb="filter",code="413"} 1$' &&
     curl -s "$url_mb/metrics" | grep -q '^dra_extender_http_requests_total{verb="filter",code="503"} 1$'; echo $?)"
kill -TERM "$pid_mm" "$pid_mb"; reap "$pid_mm"; reap "$pid_mb"

# Two Content-Length headers (request smuggling behind a proxy that reads the other one):
# 400 with the JSON reason, and the connection closed (the client sees its end, no timeout).
port_a=${url_a##*:}
printf 'POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 20\r\n\r\n{}' |
  timeout 10 curl -s "telnet://127.0.0.1:$port_a" >"$tmp/dup" 2>/dev/null; rc=$?
check "two Content-Length headers: 400, JSON reason, the connection closed" \
  "$(is "$rc $(head -n 1 "$tmp/dup" | tr -d '\r') $(grep -c '^Connection: close' "$tmp/dup") $(tail -n 1 "$tmp/dup")" \
        '0 HTTP/1.1 400 Bad Request 1 {"error":"more than one Content-Length header"}')"

# Malformed HTTP that libmicrohttpd answers itself, before any handler of ours sees the
# request (its bodies are fixed HTML; docs/extender.md, "Answers libmicrohttpd gives"): each
# gets its status, Connection: close and the connection's end (no client waits for a
# timeout), and the server goes on answering. (For a bad Content-Length, libmicrohttpd 0.9.75
# writes its status line and headers twice before the body: the status and the end hold.)
raw() { # NAME TEXT: TEXT sent raw to the server of check a; the first status line
  printf "$2" | timeout 10 curl -s "telnet://127.0.0.1:$port_a" >"$tmp/raw.$1" 2>/dev/null
  echo "$? $(head -n 1 "$tmp/raw.$1" | tr -d '\r') $(grep -q '^Connection: close' "$tmp/raw.$1" && echo 1)"
}
big_header=$(head -c 40000 /dev/zero | tr '\0' a)
check "a bad chunk size: 400, the connection closed" \
  "$(is "$(raw chunk 'POST /filter HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n')" "0 HTTP/1.1 400 Bad Request 1")"
check "a negative Content-Length: 400, the connection closed" \
  "$(is "$(raw neg 'POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n')" "0 HTTP/1.1 400 Bad Request 1")"
check "a Content-Length of 1e20: 400, the connection closed" \
  "$(is "$(raw e20 'POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 1e20\r\n\r\n')" "0 HTTP/1.1 400 Bad Request 1")"
check "HTTP/2.5: 505, the connection closed" \
  "$(is "$(raw ver 'GET /healthz HTTP/2.5\r\nHost: x\r\n\r\n')" "0 HTTP/1.1 505 HTTP Version Not Supported 1")"
check "a 40,000-byte header: 431, the connection closed" \
  "$(is "$(raw hdr "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: $big_header\r\n\r\n")" "0 HTTP/1.1 431 Request Header Fields Too Large 1")"
check "a request line of raw bytes: 400, the connection closed" \
  "$(is "$(raw bytes '\001\002\377\376 garbage \177\r\n\r\n')" "0 HTTP/1.1 400 Bad Request 1")"
check "...and the server still answers" "$(is "$(curl -s "$url_a/healthz")" ok)"

# ---- An --objects file with one bad object: that object is left out alone (logged with its
# file and line, refused in the store: pods that use it fail with the reason), the file's other
# objects are taken; the same for an item of a JSON List; fixing the file clears the refusal.
mkdir -p "$tmp/iso/claims"
cp -r "$src/examples/fleet" "$src/examples/classes" "$src/examples/nodes.yaml" "$tmp/iso/"
iso_claim() { # NAME COUNT: a claim of COUNT GPUs (0 or less is refused by Kubernetes' validation)
  printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s, namespace: default}\nspec:\n  devices:\n    requests:\n    - name: g\n      exactly: {deviceClassName: gpu.example.com, count: %s}\n' "$1" "$2"
}
{ iso_claim iso-good 1; echo ---; iso_claim iso-bad -3; echo ---; iso_claim iso-later 1; } >"$tmp/iso/claims/c.yaml"
printf '{"apiVersion":"v1","kind":"List","items":[\n{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"j-bad","namespace":"default"},"spec":{"devices":{"requests":[{"name":"g","exactly":{"deviceClassName":"gpu.example.com","count":-1}}]}}},\n{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"j-good","namespace":"default"},"spec":{"devices":{"requests":[{"name":"g","exactly":{"deviceClassName":"gpu.example.com"}}]}}}]}\n' >"$tmp/iso/claims/j.json"
start iso --objects "$tmp/iso"
iso_pod() { # CLAIM: filter a pod of that claim; the answer in $tmp/resp
  jq -c --arg c "$1" '.Pod.metadata.name = "iso" | .Pod.spec.resourceClaims = [{name: "g", resourceClaimName: $c}] | del(.Pod.status)' \
    "$src/examples/extender/filter.json" >"$tmp/iso.json"
  post "$url_iso/filter" "$tmp/iso.json"
}
passes() { jq -r '(.NodeNames | length) > 0' "$tmp/resp"; }
iso_pod iso-good; good="$status $(passes)"
iso_pod iso-later; later="$status $(passes)"
iso_pod j-good; jgood="$status $(passes)"
check "one bad document of a YAML stream: the file's other claims are taken" \
  "$(is "$good $later $jgood" "200 true 200 true 200 true")"
iso_pod iso-bad
check "...a pod of the bad claim fails with the reason, file and line" \
  "$(is "$(jq -r '.FailedNodes["node-h100-b"]' "$tmp/resp")" \
        "resourceclaim default/iso-bad is refused by the extender: $tmp/iso/claims/c.yaml:17: ResourceClaim iso-bad: spec.devices.requests[0].exactly.count: invalid value -3: must be greater than zero")"
iso_pod j-bad
check "...the same for an item of a JSON List" \
  "$(jq -r '.FailedNodes["node-h100-b"]' "$tmp/resp" | grep -q "^resourceclaim default/j-bad is refused by the extender: $tmp/iso/claims/j.json:2: ResourceClaim j-bad: "; echo $?)"
check "...each logged, counted, and /readyz says so" \
  "$(is "$(grep -c '"an object was refused and is left out"' "$tmp/iso.log") $(curl -s "$url_iso/readyz" | sed -n 2p) $(curl -s "$url_iso/metrics" | awk '$1 == "dra_extender_objects_file_loads_total{result=\"partial\"}" { print $2 }')" \
        "2 2 objects refused (dra_extender_objects_refused) 2")"
{ iso_claim iso-good 1; echo ---; iso_claim iso-bad 2; } >"$tmp/iso/claims/c.tmp" && mv "$tmp/iso/claims/c.tmp" "$tmp/iso/claims/c.yaml"
fixed() { iso_pod iso-bad; [ "$(passes)" = true ]; }
wait_for fixed; fixed_rc=$?
check "the file fixed: the claim is taken, its refusal forgotten" \
  "$(is "$fixed_rc $(curl -s "$url_iso/readyz" | sed -n 2p)" "0 1 objects refused (dra_extender_objects_refused)")"
kill -TERM "$pid_iso"; reap "$pid_iso"

# ---- Remembered pods: capped in bytes (--recent-bytes) as well as in count (--recent-pods).
# pod NAME FILE [SIZE]: the sample's request for a pod of that name, with a container resource
# whose name has SIZE bytes (the bulk that counts; names are held to Kubernetes' 253 bytes)
pod() {
  jq -c --arg n "$1" --argjson z "${3:-0}" '.Pod.metadata.name = $n |
    if $z > 0 then .Pod.spec.containers[0].resources.requests[("example.com/" + ("r" * $z))] = "1"
    else . end' "$src/examples/extender/filter.json" >"$2"
}
seen() { curl -s -o /dev/null -w '%{http_code}' "$1/explain?pod=default/$2"; }
a3000=pa; b3000=pb; c5000=pc # the pods of 3,000, 3,000 and 5,000 bytes
pod pa "$tmp/pa.json" 3000; pod pb "$tmp/pb.json" 3000; pod pc "$tmp/pc.json" 5000
start r --objects "$tmp/objs" --recent-bytes 4096
post "$url_r/filter" "$tmp/pa.json"
check "--recent-bytes 4096: a pod of 3,000 bytes is remembered" "$(is "$(seen "$url_r" "$a3000")" 200)"
post "$url_r/filter" "$tmp/pb.json"
check "...another one pushes the first out" \
  "$(is "$(seen "$url_r" "$a3000") $(seen "$url_r" "$b3000")" "404 200")"
post "$url_r/filter" "$tmp/pc.json"
check "...a pod larger than the cap is not remembered, and the filter still answers" \
  "$(is "$status $(seen "$url_r" "$c5000")" "200 404")"
start r2 --objects "$tmp/objs" --recent-pods 2
for p in p1 p2 p3; do pod "$p" "$tmp/$p.json"; post "$url_r2/filter" "$tmp/$p.json"; done
check "--recent-pods 2: the oldest of three is forgotten" \
  "$(is "$(seen "$url_r2" p1) $(seen "$url_r2" p2) $(seen "$url_r2" p3)" "404 200 200")"
"$ext" --objects "$tmp/objs" --recent-bytes 100 --listen 127.0.0.1:0 >/dev/null 2>"$tmp/e"; rc=$?
check "--recent-bytes below 4096: a usage error (exit 2)" \
  "$(is "$rc $(grep -c 'recent-bytes' "$tmp/e")" "2 1")"

# ---- Slow headers (slowloris): connections sending a header byte every 0.3 s once held every
# place past every timeout (libmicrohttpd's counts from the last byte), /healthz included.
# dribble NAME PORT TEXT: TEXT, then a byte every 0.3 s, on one connection; $tmp/NAME.done
# once the server has closed it.
dribble() {
  ( { printf "$3"; i=0; while [ $i -lt 100 ]; do printf X || exit 0; sleep 0.3; i=$((i + 1)); done; } |
      curl -sN --max-time 40 "telnet://127.0.0.1:$2" >/dev/null 2>&1
    echo closed >"$tmp/$1.done" ) &
  pids="$pids $!"
}
start h --objects "$tmp/objs" --max-connections 4 --header-timeout 4s --idle-timeout 6s \
  --probe-listen 127.0.0.1:0
hport=${url_h##*:}
pport=$(grep '"serving probes"' "$tmp/h.log" | jq -r .port)
for k in 1 2 3 4; do dribble sl$k "$hport" 'GET /healthz HTTP/1.1\r\nX-Slow: '; done
# the four are open (the scrape's own connection on the probe port is the fifth) before the
# main port is tried: a try among them could take a place first
open_at_least() { # PROBE-PORT N: the extender holds N connections or more, on both ports
  curl -s --max-time 2 "http://127.0.0.1:$1/metrics" |
    awk -v n="$2" '$1 == "dra_extender_http_connections" { ok = $2 >= n } END { exit !ok }'
}
wait_for open_at_least "$pport" 5 >/dev/null
full() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url_h/healthz")" = 000 ]; }
check "four slow-header connections take the four places: a new connection is closed" \
  "$(wait_for full; echo $?)"
code=$(curl -s -o "$tmp/resp" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$pport/healthz")
check "...while the probe port (--probe-listen) answers /healthz" \
  "$(is "$code $(cat "$tmp/resp")" "200 ok")"
check "...and /readyz and /metrics" \
  "$(is "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$pport/readyz") $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$pport/metrics")" "200 200")"
code=$(curl -s -o "$tmp/resp" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data-binary @"$src/examples/extender/filter.json" "http://127.0.0.1:$pport/filter")
check "...but nothing else (404 with the reason)" \
  "$(is "$code $(jq -r .error "$tmp/resp")" "404 the probe port answers /healthz, /readyz and /metrics only")"
cut4() { [ -e "$tmp/sl1.done" ] && [ -e "$tmp/sl2.done" ] && [ -e "$tmp/sl3.done" ] && [ -e "$tmp/sl4.done" ]; }
check "--header-timeout 4s: the slow-header connections are closed though bytes keep coming" \
  "$(wait_for cut4; echo $?)"
check "...counted as too_slow and logged" \
  "$(is "$(curl -s "http://127.0.0.1:$pport/metrics" | awk '$1 == "dra_extender_http_rejected_total{reason=\"too_slow\"}" { print $2 }') $(grep -c 'request headers not received in time' "$tmp/h.log")" "4 4")"
check "...and the main port serves again" "$(is "$(curl -s --max-time 5 "$url_h/healthz")" ok)"
# A request line dribbled without end: --idle-timeout counts from the connection's opening,
# not from its last byte.
dribble idle "$hport" ''
idle_cut() { [ -e "$tmp/idle.done" ]; }
i=0; until idle_cut || [ $i -ge 20 ]; do sleep 0.1; i=$((i + 1)); done
early=$(idle_cut && echo early || echo open)
check "--idle-timeout 6s: a request line that never ends is closed, after 2 s still open" \
  "$(is "$early $(wait_for idle_cut; echo $?)" "open 0")"
check "libmicrohttpd's own messages are JSON log lines too" \
  "$(is "$(grep -v '^{' "$tmp/h.log" | head -n 3)" "")"
kill -TERM "$pid_h"; reap "$pid_h"

# ---- One address may hold --max-connections-per-address connections, not every place.
start pa --objects "$tmp/objs" --max-connections-per-address 2 --probe-listen 127.0.0.1:0
paport=${url_pa##*:}
papport=$(grep '"serving probes"' "$tmp/pa.log" | jq -r .port)
dribble pa1 "$paport" 'GET /healthz HTTP/1.1\r\nX-Slow: '
dribble pa2 "$paport" 'GET /healthz HTTP/1.1\r\nX-Slow: '
# both are open (the scrape's own connection is the third) before the third is tried: a try
# between them would take the second place and the second dribble would be the one refused
wait_for open_at_least "$papport" 3 >/dev/null
addr_full() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url_pa/healthz")" = 000 ]; }
check "--max-connections-per-address 2: a third connection from 127.0.0.1 is closed at once" \
  "$(wait_for addr_full; echo $?)"
check "...counted as rejected: address (the probe port has no such limit)" \
  "$(curl -s "http://127.0.0.1:$papport/metrics" | awk '$1 == "dra_extender_http_rejected_total{reason=\"address\"}" { ok = $2 >= 1 } END { exit !ok }'; echo $?)"
kill -TERM "$pid_pa"; reap "$pid_pa"

for p in $pids; do kill -TERM "$p" 2>/dev/null; done
check "no sanitizer report in any log" \
  "$(! grep -l -E 'ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$tmp"/*.log; echo $?)"

echo "1..$n"
[ "$failed" = 0 ]
