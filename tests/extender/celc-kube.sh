#!/bin/sh
# tests/extender/celc-kube.sh: `dra-celc explain --kubeconfig FILE --pod NS/NAME` against the
# fake API server (tests/extender/fakeapi) loaded with the sample cluster of the README prints
# what `dra-celc explain` prints on the same objects from files, byte for byte (text, JSON, one
# node verbose), for a pod whose claim exists and for one whose template's claim is not made
# yet; and the errors: a pod not there, a server that refuses a list, no server at all, and
# usage. TAP; needs curl and jq. All traffic goes to 127.0.0.1.
set -u
celc=${DRA_CELC:-./dra-celc}
fakeapi=${FAKEAPI:-./tests/extender/fakeapi}
src=${top_srcdir:-.}
tmp=$(mktemp -d)
ext=/nonexistent
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy NO_PROXY no_proxy
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT
. "$src/tests/extender/common.sh"
if ! "$celc" explain --help | grep -q -- --kubeconfig; then
  echo "1..0 # SKIP dra-celc was built without the Kubernetes client"
  exit 0
fi

sample_cluster
serve() { # PATH FILE: GET PATH answers the object in FILE
  jq -c --arg p "$1" '{path: $p, object: .}' "$2" >"$tmp/serve.json"
  ctl POST /_control/serve "$tmp/serve.json" >/dev/null
}
jq -c '.Pod + {apiVersion: "v1", kind: "Pod"}' "$src/examples/extender/filter.json" >"$tmp/pod.json"
serve /api/v1/namespaces/default/pods/trainer-0 "$tmp/pod.json"

# The same objects as files: the pod, its claim, the classes, slices and nodes, and the devices
# the other claim holds.
ctl GET /_control/state >"$tmp/state.json"
jq -c '.objects[] | select(.[0] == "resourceclaims" and .[2] == "trainer-0-gpu") | .[3]' "$tmp/state.json" >"$tmp/claim.json"
jq -r '.objects[] | select(.[0] == "resourceclaims" and .[2] != "trainer-0-gpu") | .[3].status.allocation.devices.results[]? | "\(.driver)/\(.pool)/\(.device)"' \
  "$tmp/state.json" >"$tmp/allocated.txt"
files="--classes $src/examples/classes --slices $src/examples/fleet --nodes $src/examples/nodes.yaml"
for form in "" "--format json" "--node node-a100-80 --verbose"; do
  # shellcheck disable=SC2086
  "$celc" explain --pod "$tmp/pod.json" --claim "$tmp/claim.json" $files --allocated "$tmp/allocated.txt" $form \
    >"$tmp/files.out" 2>"$tmp/files.err"; want=$?
  # shellcheck disable=SC2086
  "$celc" explain --kubeconfig "$tmp/kc.yaml" --pod default/trainer-0 $form >"$tmp/kube.out" 2>"$tmp/kube.err"; got=$?
  check "explain --kubeconfig --pod default/trainer-0 ${form:-(text)}: what explain prints on the same files, byte for byte, exit $want" \
    "$(is "$got:$(cmp -s "$tmp/files.out" "$tmp/kube.out"; echo $?):$(wc -c <"$tmp/kube.out" | tr -d ' ' | sed 's/^0$/empty/')" "$want:0:$(wc -c <"$tmp/files.out" | tr -d ' ')")"
done
check "...and leaves no temporary file behind" \
  "$(TMPDIR=$tmp/t; mkdir -p "$TMPDIR"; export TMPDIR; "$celc" explain --kubeconfig "$tmp/kc.yaml" --pod default/trainer-0 >/dev/null 2>&1; is "$(ls -A "$TMPDIR")" "")"

# A pod whose claim is still to be made from its template: the template is explained.
cat >"$tmp/template.json" <<'EOF'
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"one-gpu","namespace":"team-a"},
 "spec":{"spec":{"devices":{"requests":[{"name":"gpu","firstAvailable":[
   {"name":"h100","deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"device.attributes[\"gpu.example.com\"].?model.orValue(\"\") == \"H100\""}}]},
   {"name":"any","deviceClassName":"gpu.example.com"}]}]}}}}
EOF
serve /apis/resource.k8s.io/v1/namespaces/team-a/resourceclaimtemplates/one-gpu "$tmp/template.json"
jq -c '.metadata = {name: "fresh", namespace: "team-a", uid: "u-fresh"} | .spec.resourceClaims = [{name: "gpu", resourceClaimTemplateName: "one-gpu"}] | del(.status)' \
  "$tmp/pod.json" >"$tmp/fresh.json"
serve /api/v1/namespaces/team-a/pods/fresh "$tmp/fresh.json"
# shellcheck disable=SC2086
"$celc" explain --pod "$tmp/fresh.json" --claim "$tmp/template.json" $files --allocated "$tmp/allocated.txt" >"$tmp/files.out" 2>&1; want=$?
"$celc" explain --kubeconfig "$tmp/kc.yaml" --pod team-a/fresh >"$tmp/kube.out" 2>&1; got=$?
check "a pod whose claim is not made yet: its template is explained, as from files" \
  "$(is "$got:$(cmp -s "$tmp/files.out" "$tmp/kube.out"; echo $?)" "$want:0")"

# lint --kubeconfig: the cluster's slices and classes, as --slices and --classes.
for fmt in text json; do
  "$celc" lint --format $fmt --slices "$src/examples/fleet" --classes "$src/examples/classes" "$src/examples/claims" >"$tmp/files.out" 2>/dev/null; want=$?
  "$celc" lint --format $fmt --kubeconfig "$tmp/kc.yaml" "$src/examples/claims" >"$tmp/kube.out" 2>/dev/null; got=$?
  check "lint --kubeconfig --format $fmt examples/claims: what lint prints with the same --slices and --classes from files" \
    "$(is "$got:$(cmp -s "$tmp/files.out" "$tmp/kube.out"; echo $?)" "$want:0")"
done
printf '%s\n' 'apiVersion: resource.k8s.io/v1' 'kind: ResourceClaim' 'metadata: {name: x}' \
  'spec: {devices: {requests: [{name: r, exactly: {deviceClassName: no-such-class}}]}}' >"$tmp/unknown.yaml"
"$celc" lint --kubeconfig "$tmp/kc.yaml" "$tmp/unknown.yaml" >"$tmp/out" 2>&1; code=$?
check "lint --kubeconfig: a class the cluster does not have is found (unknown-class)" \
  "$(is "$code:$(grep -c 'unknown-class' "$tmp/out")" "1:1")"
"$celc" lint --kubeconfig "$tmp/kc.yaml" --classes x "$tmp/unknown.yaml" >/dev/null 2>&1; code=$?
check "lint --kubeconfig with --classes: a usage error (2)" "$(is "$code" 2)"

# Errors.
"$celc" explain --kubeconfig "$tmp/kc.yaml" --pod default/nobody >"$tmp/out" 2>"$tmp/err"; code=$?
check "a pod that is not there: exit 2, the pod named" \
  "$(is "$code:$(grep -c 'pod default/nobody not found' "$tmp/err")" "2:1")"
"$celc" explain --kubeconfig "$tmp/kc.yaml" --pod default/trainer-0 --slices x >/dev/null 2>&1; code=$?
check "--kubeconfig with a file of objects: a usage error (2)" "$(is "$code" 2)"
"$celc" explain --kubeconfig "$tmp/kc.yaml" --pod trainer-0 >/dev/null 2>"$tmp/err"; code=$?
check "--pod without a namespace: 2, NAMESPACE/NAME asked for" "$(is "$code:$(grep -c 'NAMESPACE/NAME' "$tmp/err")" "2:1")"
printf '%s' '{"res":"nodes","errors":1000000,"status":403}' >"$tmp/fault.json"
ctl POST /_control/fault "$tmp/fault.json" >/dev/null
"$celc" explain --kubeconfig "$tmp/kc.yaml" --pod default/trainer-0 --kube-timeout 2s >/dev/null 2>"$tmp/err"; code=$?
check "a list the server refuses (403 on nodes): exit 2 within --kube-timeout, the resource and the status named" \
  "$(is "$code:$(grep -c 'not listed within 2s: nodes (.*HTTP 403' "$tmp/err")" "2:1")"
printf '%s' '{"res":"nodes","errors":0}' >"$tmp/fault.json"
ctl POST /_control/fault "$tmp/fault.json" >/dev/null
sed "s#$base#http://127.0.0.1:1#" "$tmp/kc.yaml" >"$tmp/kc-none.yaml"
"$celc" explain --kubeconfig "$tmp/kc-none.yaml" --pod default/trainer-0 --kube-timeout 1s >/dev/null 2>"$tmp/err"; code=$?
check "no server: exit 2 with the reason" "$(is "$code:$(grep -c 'not listed within 1s' "$tmp/err")" "2:1")"

echo "1..$n"
[ "$failed" = 0 ]
