#!/bin/sh
# tests/extender/events.sh: the Events dra-extender posts (docs/extender.md, "Events"), on the
# fake API server (tests/extender/fakeapi) loaded with the sample cluster of the README. TAP;
# needs curl and jq (and python3-jsonschema for the schema checks).
#
# - a filter's outcome is one events.k8s.io/v1 Event regarding the pod, with the fields
#   client-go's recorder writes, its note the answer's counts and the best tier;
# - a repeat is a PATCH of the Event's series (count 2 at once, later counts at the flush, the
#   last one at shutdown), never a second Event; after the series window, a new Event;
# - a failed pod is a Warning; the per-pod rate drops what is over it, counted;
# - the API server's 429 (Retry-After honoured) and 5xx are retried, another 4xx drops the
#   event; the filter answers meanwhile; a full queue drops, counted;
# - every body written validates against Kubernetes' OpenAPI v3 schema (tests/openapi/).
# Every wait is bounded and polls for its condition; all traffic goes to 127.0.0.1.
set -u
ext=${DRA_EXTENDER:-./dra-extender}
fakeapi=${FAKEAPI:-./tests/extender/fakeapi}
src=${top_srcdir:-.}
tmp=$(mktemp -d)
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy NO_PROXY no_proxy
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT POD_NAME
. "$src/tests/extender/common.sh"
r() { "$@" 2>&1; }

sample_cluster
fault() { printf '%s' "$1" >"$tmp/fault.json"; ctl POST /_control/fault "$tmp/fault.json" >/dev/null; }
writes() { ctl GET /_control/writes >"$tmp/writes.json"; }
# nwrites JQ-FILTER: how many writes the filter selects
nwrites() { writes && jq "[.[] | select($1)] | length" "$tmp/writes.json"; }
metric() { curl -s "$1/metrics" | awk -v m="$2" '$1 == m { print $2; exit }'; }
at_least() { [ "$(nwrites "$1")" -ge "$2" ]; }

start a --kubeconfig "$tmp/kc.yaml" --event-instance dra-extender-0 --event-flush 500ms \
  --event-series-window 4s --event-pod-burst 4 --event-pod-refill 1h \
  --watch-backoff-min 100ms --watch-backoff-max 500ms --model-attribute gpu.example.com/model \
  --pod-conditions on
post "$url_a/filter" "$src/examples/extender/filter.json" "$tmp/f1.json"
check "filter answers 200" "$(is "$status" 200)"
check "...and its outcome is posted as one Event" \
  "$(wait_for at_least '.method == "POST"' 1; is "$(nwrites '.method == "POST"')" 1)"
jq '[.[] | select(.method == "POST")][0]' "$tmp/writes.json" >"$tmp/ev1.json"
passed=$(jq '.NodeNames | length' "$tmp/f1.json")
best=$(jq -r '.body.note | capture("best (?<t>[^ ]+) on").t' "$tmp/ev1.json")
check "POST /apis/events.k8s.io/v1/namespaces/default/events, application/json" \
  "$(is "$(jq -r '[.path, .contentType] | @tsv' "$tmp/ev1.json")" \
        "$(printf '/apis/events.k8s.io/v1/namespaces/default/events\tapplication/json')")"
check "...the fields client-go's recorder writes: regarding the pod (with its uid), controller, instance, action, reason, type" \
  "$(is "$(jq -c '.body | [.apiVersion, .kind, .metadata.namespace, .regarding, .reportingController, .reportingInstance, .action, .reason, .type]' "$tmp/ev1.json")" \
        '["events.k8s.io/v1","Event","default",{"kind":"Pod","namespace":"default","name":"trainer-0","uid":"6f1c2d9e-3b5a-4c7e-8f10-2a4b6c8d0e12","apiVersion":"v1"},"dracel.dev/dra-extender","dra-extender-0","Filter","DevicesFit","Normal"]')"
check "...named POD.HEX(nanoseconds), eventTime a MicroTime, no series yet" \
  "$(is "$(jq -r '.body | [(.metadata.name | test("^trainer-0\\.[0-9a-f]{12,16}$")), (.eventTime | test("^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$")), (.series == null)] | @tsv' "$tmp/ev1.json")" \
        "$(printf 'true\ttrue\ttrue')")"
check "...its note: the nodes passed, as the answer says, and the best tier" \
  "$(is "$(jq -r '.body.note | test("^'"$passed"' of 7 nodes passed; best [^ ]+ on node-")' "$tmp/ev1.json"):$([ -n "$best" ] && echo y)" "true:y")"
name=$(jq -r '.body.metadata.name' "$tmp/ev1.json")

# A repeat: the series' count, by PATCH, at once.
post "$url_a/filter" "$src/examples/extender/filter.json" "$tmp/f2.json"
check "the same outcome again: a strategic merge PATCH of that Event's series, count 2" \
  "$(wait_for at_least '.method == "PATCH"' 1
     is "$(jq -c '[.[] | select(.method == "PATCH")][0] | [.path, .contentType, .body.series.count, (.body | keys)]' "$tmp/writes.json")" \
        "[\"/apis/events.k8s.io/v1/namespaces/default/events/$name\",\"application/strategic-merge-patch+json\",2,[\"series\"]]")"
for i in 1 2 3; do post "$url_a/filter" "$src/examples/extender/filter.json" "$tmp/f3.json"; done
series_count() { ctl GET /_control/events | jq --arg n "$name" '[.[] | select(.metadata.name == $n)][0].series.count'; }
count_is() { [ "$(series_count)" = "$1" ]; }
check "...three more: counted in memory, written at the flush (count 5), still one Event" \
  "$(wait_for count_is 5; is "$(series_count):$(nwrites '.method == "POST"')" "5:1")"
check "...lastObservedTime is a MicroTime after eventTime" \
  "$(is "$(ctl GET /_control/events | jq --arg n "$name" '[.[] | select(.metadata.name == $n)][0] | (.series.lastObservedTime | test("\\.[0-9]{6}Z$")) and .series.lastObservedTime >= .eventTime')" true)"
check "...dra_extender_events_series_total 4, written_total create 1" \
  "$(is "$(metric "$url_a" dra_extender_events_series_total):$(metric "$url_a" 'dra_extender_events_written_total{verb="create"}')" "4:1")"

# A failed pod: a Warning, with the reason the nodes failed for.
jq -c '.Pod.status.resourceClaimStatuses[0].resourceClaimName = "no-such-claim"' \
  "$src/examples/extender/filter.json" >"$tmp/missing.json"
post "$url_a/filter" "$tmp/missing.json" "$tmp/f4.json"
check "a pod whose claim is missing: a Warning NoDevicesFit, the nodes' reason and count in its note" \
  "$(wait_for at_least '.method == "POST"' 2
     is "$(jq -r '[.[] | select(.method == "POST")][1].body | [.type, .reason, (.note | test("^0 of 7 nodes passed; 7: resourceclaim default/no-such-claim not found"))] | @tsv' "$tmp/writes.json")" \
        "$(printf 'Warning\tNoDevicesFit\ttrue')")"

# The pod's rate: 4 Events at once (--event-pod-burst 4), the 5th is dropped.
for k in 1 2 3 4 5; do
  jq -c --argjson k "$k" '.Pod.metadata.name = "rate" | .Pod.metadata.uid = "urate" | .NodeNames = .NodeNames[0:$k]' \
    "$src/examples/extender/filter.json" >"$tmp/sub$k.json"
  post "$url_a/filter" "$tmp/sub$k.json"
done
rated() { [ "$(metric "$url_a" 'dra_extender_events_dropped_total{reason="pod_rate"}')" = 1 ]; }
check "a pod's fifth distinct Event within its rate is dropped, counted as pod_rate" \
  "$(wait_for rated; sleep 0.3; is "$(nwrites '.method == "POST" and .body.regarding.name == "rate"'):$(metric "$url_a" 'dra_extender_events_dropped_total{reason="pod_rate"}')" "4:1")"

# The best node gives a fallback tier: the note says the preferred tier is on no node that passed.
jq -c '.Pod.metadata.name = "lower" | .Pod.metadata.uid = "ulower" | .NodeNames = ["node-a100-80"]' \
  "$src/examples/extender/filter.json" >"$tmp/lower.json"
post "$url_a/filter" "$tmp/lower.json" "$tmp/lower.out"
lowered() { [ "$(nwrites '.body.regarding.name == "lower"')" -ge 1 ]; }
check "a fallback is the best: the note names the tier preferred to it, on no node that passed" \
  "$(wait_for lowered; is "$(jq -r '[.[] | select(.body.regarding.name == "lower")][0].body.note' "$tmp/writes.json")" \
        "1 of 1 node passed; best gpu/a100 on node-a100-80; gpu/h100 on none of the 1 node that passed")"

# A pod's names go into the request's path: one Kubernetes would not allow is not posted.
jq -c '.Pod.metadata.name = "x/../../../api/v1/secrets?a=" | .Pod.metadata.uid = "uinv"' "$src/examples/extender/filter.json" >"$tmp/inv.json"
post "$url_a/filter" "$tmp/inv.json"
invalid() { [ "$(metric "$url_a" 'dra_extender_events_dropped_total{reason="invalid"}')" = 1 ]; }
check "a pod name Kubernetes would not allow: no Event (dropped as invalid), the filter answers 200" \
  "$(wait_for invalid; is "$status:$(nwrites '(.path | contains("secrets"))')" "200:0")"

# After the series window (4 s) the same outcome is a new Event.
sleep 4.5
post "$url_a/filter" "$src/examples/extender/filter.json"
check "after the series window, the same outcome is a new Event (a POST, not a PATCH)" \
  "$(wait_for at_least '.method == "POST"' 7
     is "$(jq -r '[.[] | select(.method == "POST")][6].body | [.reason, .metadata.name != "'"$name"'", .series == null] | @tsv' "$tmp/writes.json")" \
        "$(printf 'DevicesFit\ttrue\ttrue')")"

# The API server refuses: 429 with Retry-After 1, twice; then it accepts.
before=$(nwrites 'true')
fault '{"write_errors":2,"write_status":429,"write_retry_after":1}'
jq -c '.Pod.metadata.name = "p429" | .Pod.metadata.uid = "u429"' "$tmp/missing.json" >"$tmp/p429.json"
post "$url_a/filter" "$tmp/p429.json"
check "filter answers while the API server refuses events" "$(is "$status" 200)"
created() { ctl GET /_control/events | jq -e --arg p "$1" 'any(.[]; .regarding.name == $p)' >/dev/null; }
check "429 twice: the event is written on the third try, each after the Retry-After (1 s)" \
  "$(wait_for created p429
     is "$(writes; jq --argjson b "$before" '[.[$b:][] | select(.body.regarding.name == "p429")] | [length, ((.[1].atMs - .[0].atMs) >= 900), ((.[2].atMs - .[1].atMs) >= 900)]' -c "$tmp/writes.json")" \
        '[3,true,true]')"
check "...counted: dra_extender_events_failures_total{cause=\"429\"} 2" \
  "$(is "$(metric "$url_a" 'dra_extender_events_failures_total{cause="429"}')" 2)"
fault '{"write_errors":1,"write_status":503}'
jq -c '.Pod.metadata.name = "p503" | .Pod.metadata.uid = "u503"' "$tmp/missing.json" >"$tmp/p503.json"
post "$url_a/filter" "$tmp/p503.json"
check "a 503: retried after a backoff, then written" \
  "$(wait_for created p503; is "$(metric "$url_a" 'dra_extender_events_failures_total{cause="5xx"}')" 1)"
fault '{"write_errors":1,"write_status":403}'
jq -c '.Pod.metadata.name = "p403" | .Pod.metadata.uid = "u403"' "$tmp/missing.json" >"$tmp/p403.json"
post "$url_a/filter" "$tmp/p403.json"
rejected() { [ "$(metric "$url_a" 'dra_extender_events_dropped_total{reason="rejected"}')" = 1 ]; }
check "a 403: not retried, dropped and counted as rejected" \
  "$(wait_for rejected; sleep 0.3; is "$(nwrites '.body.regarding.name == "p403"')" 1)"

# The final choice: once the claim is allocated and reserved for the pod, an Event says what it
# got, whether that was a fallback, the devices' model and whether the prediction held.
ctl GET /_control/state | jq -c '.objects[] | select(.[0] == "resourceclaims" and .[2] == "trainer-0-gpu") | .[3]' >"$tmp/claim.json"
for c in fc fb; do
  jq -c --arg c "$c" '.metadata.name = "\($c)-gpu" | del(.metadata.resourceVersion, .metadata.uid, .status)' "$tmp/claim.json" >"$tmp/$c-claim.json"
  ctl POST /_control/objects/resourceclaims "$tmp/$c-claim.json" >/dev/null
  jq -c --arg c "$c" '.Pod.metadata.name = $c | .Pod.metadata.uid = "uid-\($c)" | .Pod.spec.resourceClaims[0] = {name: "gpu", resourceClaimName: "\($c)-gpu"} | del(.Pod.status)' \
    "$src/examples/extender/filter.json" >"$tmp/$c.json"
done
has_claims() { curl -s "$url_a/metrics" | grep -q '^dra_extender_cache_objects{resource="resourceclaims"} 4$'; }
wait_for has_claims
post "$url_a/filter" "$tmp/fc.json" "$tmp/fc.out"
post "$url_a/filter" "$tmp/fb.json" "$tmp/fb.out"
allocate() { # CLAIM POD REQUEST NODE DEVICE
  jq -c --arg r "$3" --arg n "$4" --arg d "$5" --arg p "$2" '.status = {allocation: {devices: {results: [{request: $r, driver: "gpu.example.com", pool: $n, device: $d}]}, nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: "metadata.name", operator: "In", values: [$n]}]}]}}, reservedFor: [{resource: "pods", name: $p, uid: "uid-\($p)"}]}' \
    "$tmp/$1-claim.json" >"$tmp/$1-alloc.json"
  ctl POST /_control/objects/resourceclaims "$tmp/$1-alloc.json" >/dev/null
}
final() { writes && jq -e --arg p "$1" 'any(.[]; .body.regarding.name == $p and .body.action == "Allocated")' "$tmp/writes.json" >/dev/null; }
final_of() { jq -r --arg p "$1" '[.[] | select(.body.regarding.name == $p and .body.action == "Allocated")][0].body | [.type, .reason, .note] | @tsv' "$tmp/writes.json"; }
allocate fc fc gpu/h100 node-h100-b gpu-0
check "claim allocated as predicted: a Normal FirstChoice Event with the tier, the device and its model (--model-attribute)" \
  "$(wait_for final fc; is "$(final_of fc)" "$(printf 'Normal\tFirstChoice\tclaim default/fc-gpu: gpu/h100 (first choice) gpu.example.com/node-h100-b/gpu-0 (H100); as predicted on node-h100-b')")"
allocate fb fb gpu/a100 node-a100-80 gpu-0
check "claim allocated on a lower tier elsewhere: a Fallback Event naming the tier it fell back from, and the prediction missed" \
  "$(wait_for final fb; is "$(final_of fb)" "$(printf 'Normal\tFallback\tclaim default/fb-gpu: gpu/a100 (fallback from gpu/h100) gpu.example.com/node-a100-80/gpu-0 (A100); not on node-h100-b, the node predicted best')")"

# The pod condition (--pod-conditions on): the tier the pod got, or Unschedulable.
cond_of() { ctl GET /_control/pods | jq -r --arg p "$1" '[.[] | select(.name == $p)][0].status.conditions[] | select(.type == "dracel.dev/DeviceTier") | [.status, .reason, (.lastTransitionTime | test("^20[0-9-]{8}T[0-9:]{8}Z$")), .message] | @tsv'; }
check "--pod-conditions: the pod allocated as predicted has dracel.dev/DeviceTier True FirstChoice, the Event's note as its message" \
  "$(is "$(cond_of fc)" "$(printf 'True\tFirstChoice\ttrue\t%s' "$(final_of fc | cut -f3)")")"
check "...the fallback pod: True Fallback" "$(is "$(cond_of fb | cut -f1,2)" "$(printf 'True\tFallback')")"
check "...a pod no node passes: False Unschedulable, with the filter's note" \
  "$(is "$(cond_of trainer-0 | cut -f1,2,4 | cut -c1-80)" "$(printf 'False\tUnschedulable\t0 of 7 nodes passed; 7: resourceclaim default/no-such-claim not found' | cut -c1-80)")"
check "...by a strategic merge PATCH of pods/status holding that condition alone" \
  "$(is "$(jq -c '[.[] | select(.path == "/api/v1/namespaces/default/pods/fc/status")][0] | [.method, .contentType, (.body | keys), (.body.status | keys), (.body.status.conditions | length)]' "$tmp/writes.json")" \
        '["PATCH","application/strategic-merge-patch+json",["status"],["conditions"],1]')"
check "--pod-conditions needs an API source" \
  "$("$ext" --objects "$src/examples/fleet" --pod-conditions on >/dev/null 2>&1; is $? 2)"

# The bodies, against Kubernetes' schema.
if python3 -c 'import jsonschema' 2>/dev/null; then
  writes
  jq '[.[] | select(.method == "POST") | .body]' "$tmp/writes.json" >"$tmp/posts.json"
  jq '[.[] | select(.method == "PATCH" and (.path | contains("/events/"))) | .body]' "$tmp/writes.json" >"$tmp/patches.json"
  schema=$src/tests/openapi/apis__events.k8s.io__v1_openapi.json
  check "every Event posted validates against events.k8s.io/v1's OpenAPI schema (unknown fields refused)" \
    "$(python3 "$src/tests/openapi/validate.py" --each "$schema" io.k8s.api.events.v1.Event "$tmp/posts.json" >"$tmp/v1.out" 2>&1; echo $?)"
  check "...and every series patch, as a partial Event" \
    "$(python3 "$src/tests/openapi/validate.py" --each --partial "$schema" io.k8s.api.events.v1.Event "$tmp/patches.json" >"$tmp/v2.out" 2>&1; echo $?)"
  jq '.[0] | .notes = .note | del(.note)' "$tmp/posts.json" >"$tmp/bad.json"
  check "...(the check refuses an Event with a field misspelt)" \
    "$(python3 "$src/tests/openapi/validate.py" "$schema" io.k8s.api.events.v1.Event "$tmp/bad.json" >/dev/null 2>&1; is $? 1)"
  check "...notes within 1024 bytes, reasons and actions within 128" \
    "$(is "$(jq '[.[] | (.note | utf8bytelength) <= 1024 and (.reason | length) <= 128 and (.action | length) <= 128] | all' "$tmp/posts.json")" true)"
else
  skip "the bodies against Kubernetes' OpenAPI schema" "python3-jsonschema is not installed"
fi

# Shutdown: a series count still in memory is written before the process ends.
start b --kubeconfig "$tmp/kc.yaml" --event-flush 1h --event-instance dra-extender-1
jq -c '.Pod.metadata.name = "drain" | .Pod.metadata.uid = "udrain"' "$src/examples/extender/filter.json" >"$tmp/drain.json"
post "$url_b/filter" "$tmp/drain.json"
post "$url_b/filter" "$tmp/drain.json"
patched() { [ "$(nwrites '.method == "PATCH" and (.path | contains("/events/drain."))')" -ge 1 ]; }
wait_for patched
post "$url_b/filter" "$tmp/drain.json"
post "$url_b/filter" "$tmp/drain.json"
sleep 0.3
check "a series count is not written before the flush (1h)" \
  "$(is "$(nwrites '.method == "PATCH" and (.path | contains("/events/drain."))')" 1)"
kill -TERM "$pid_b"; reap "$pid_b"; code=$?
drain_count() { ctl GET /_control/events | jq '[.[] | select(.regarding.name == "drain")][0].series.count'; }
check "...SIGTERM: it is written (count 4) before dra-extender exits 0" "$(is "$code:$(drain_count)" "0:4")"

# A full queue drops, and says so; the filter still answers.
fault '{"write_errors":1000000,"write_status":500}'
start c --kubeconfig "$tmp/kc.yaml" --event-queue 1 --event-instance dra-extender-2 --event-drain 0
for k in 1 2 3 4; do
  jq -c --arg k "$k" '.Pod.metadata.name = "q\($k)"' "$src/examples/extender/filter.json" >"$tmp/q.json"
  post "$url_c/filter" "$tmp/q.json" "$tmp/q.out"
  [ "$status" = 200 ] || echo "# filter answered $status" >&2
done
qfull() { [ "$(metric "$url_c" 'dra_extender_events_dropped_total{reason="queue_full"}')" -ge 2 ] 2>/dev/null; }
check "a queue of 1 with the server failing: the events over it are dropped (queue_full), the filter answers 200" \
  "$(wait_for qfull; is "$?:$status" 0:200)"
fault '{"write_errors":0}'
check "the help lists every --event flag" \
  "$(is "$("$ext" --help 2>&1 | grep -o -- '--event[a-z-]*' | sort -u | tr '\n' ' ')" \
        "--event-await --event-burst --event-drain --event-flush --event-instance --event-pod-burst --event-pod-refill --event-qps --event-queue --event-series-window --events ")"
check "--events takes on or off only" "$(r "$ext" --kubeconfig "$tmp/kc.yaml" --events maybe >/dev/null 2>&1; is $? 2)"

echo "1..$n"
[ "$failed" = 0 ]
