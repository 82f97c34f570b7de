#!/bin/sh
# tests/extender/admission.sh: dra-extender's validating admission webhook (POST /validate;
# docs/extender.md, "Lint at admission"), the real program on a loopback port with --objects
# of examples/ (its DeviceClass gpu.example.com): AdmissionReviews as the API server sends
# them, the uid echoed; a claim that can never be satisfied denied with lint's reason, lint's
# warnings returned within Kubernetes' limits, a class not created yet a warning only, other
# kinds and DELETE allowed unread, --admission-mode warn (a dry run), and bad reviews a 400
# with a JSON reason. Needs curl and jq. TAP output; every wait is bounded.
set -u
ext=${DRA_EXTENDER:-./dra-extender}
case $ext in /*) ;; *) ext=$PWD/$ext ;; esac
src=${top_srcdir:-.}
tmp=$(mktemp -d)
. "$src/tests/extender/common.sh"

mkdir -p "$tmp/objs"
cp -r "$src/examples/classes" "$src/examples/fleet" "$tmp/objs/"
start deny --objects "$tmp/objs"
start warn --objects "$tmp/objs" --admission-mode warn

# review FILE UID KIND OBJECT-JSON [OPERATION]: an AdmissionReview of OBJECT
review() {
  printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s","kind":{"group":"resource.k8s.io","version":"v1","kind":"%s"},"resource":{"group":"resource.k8s.io","version":"v1","resource":"x"},"operation":"%s","object":%s}}' \
    "$2" "$3" "${5:-CREATE}" "$4" >"$1"
}
claim() { # REQUEST-EXACTLY-JSON
  printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":%s}]}}}' "$1"
}
sel() { printf '{"cel":{"expression":"%s"}}' "$1"; }

# A contradiction: model H100 and model A100 at once, ANDed: never satisfiable.
review "$tmp/bad.json" 5f6e-1 ResourceClaim \
  "$(claim "{\"deviceClassName\":\"gpu.example.com\",\"selectors\":[$(sel 'device.attributes[\"gpu.example.com\"].?model.orValue(\"\") == \"H100\"'),$(sel 'device.attributes[\"gpu.example.com\"].?model.orValue(\"\") == \"A100\"')]}")"
post "$url_deny/validate" "$tmp/bad.json" "$tmp/r1"
check "a claim that can never be satisfied: 200, denied with lint's reason, the uid echoed" \
  "$(is "$status $(jq -r '[.apiVersion, .kind, .response.uid, .response.allowed, .response.status.code, (.response.status.message | test("^dra-extender lint: .* \\[contradiction\\]"))] | map(tostring) | join(" ")' "$tmp/r1")" \
     "200 admission.k8s.io/v1 AdmissionReview 5f6e-1 false 403 true")"
post "$url_warn/validate" "$tmp/bad.json" "$tmp/r2"
check "--admission-mode warn: the same claim allowed, the error a warning" \
  "$(is "$(jq -r '[.response.allowed, (.response.warnings | length), (.response.warnings[0] | startswith("contradiction: "))] | map(tostring) | join(" ")' "$tmp/r2")" "true 1 true")"

# A version compared with a string: allowed with one warning, at most 256 bytes.
review "$tmp/w.json" u-2 ResourceClaim \
  "$(claim "{\"deviceClassName\":\"gpu.example.com\",\"selectors\":[$(sel 'device.attributes[\"gpu.example.com\"].driverVersion == \"550.54.15\"')]}")"
post "$url_deny/validate" "$tmp/w.json" "$tmp/r3"
check "a warning: allowed, returned as the review's warnings, within 256 bytes" \
  "$(is "$(jq -r '[.response.allowed, (.response.warnings | length), (.response.warnings[0] | startswith("version-string: ")), ((.response.warnings[0] | utf8bytelength) <= 256), has("status")] | map(tostring) | join(" ")' "$tmp/r3") $(jq -r 'has("status")' "$tmp/r3")" \
     "true 1 true true false false")"

# A class not created yet: a warning, not a denial (an apply of a folder may create it next).
review "$tmp/nc.json" u-3 ResourceClaim "$(claim '{"deviceClassName":"later.example.com"}')"
post "$url_deny/validate" "$tmp/nc.json" "$tmp/r4"
check "an unknown class: allowed with the unknown-class warning" \
  "$(is "$(jq -r '[.response.allowed, (.response.warnings[0] | startswith("unknown-class: "))] | map(tostring) | join(" ")' "$tmp/r4")" "true true")"

# A DeviceClass whose selector does not parse: denied.
review "$tmp/dc.json" u-4 DeviceClass \
  '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"broken"},"spec":{"selectors":[{"cel":{"expression":"device.driver =="}}]}}'
post "$url_deny/validate" "$tmp/dc.json" "$tmp/r5"
check "a DeviceClass with a syntax error: denied" \
  "$(is "$(jq -r '[.response.allowed, (.response.status.message | test("\\[syntax-error\\]"))] | map(tostring) | join(" ")' "$tmp/r5")" "false true")"

# Other kinds and DELETE: allowed unread.
printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-5","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","object":{"kind":"Pod"}}}' >"$tmp/pod.json"
post "$url_deny/validate" "$tmp/pod.json" "$tmp/r6"
review "$tmp/del.json" u-6 ResourceClaim null DELETE
post "$url_deny/validate" "$tmp/del.json" "$tmp/r7"
check "a Pod and a DELETE: allowed, nothing else said" \
  "$(is "$(jq -c .response "$tmp/r6") $(jq -c .response "$tmp/r7")" '{"uid":"u-5","allowed":true} {"uid":"u-6","allowed":true}')"

# Bad reviews: 400 with a JSON reason.
for body in 'not json' '{"kind":"AdmissionReview"}' \
            '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}' \
            '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}}'; do
  printf '%s' "$body" >"$tmp/b.json"
  post "$url_deny/validate" "$tmp/b.json" "$tmp/rb"
  check "a bad review: 400 with a JSON reason ($(printf '%.40s' "$body"))" \
    "$(is "$status $(jq -r '.error | type' "$tmp/rb" 2>/dev/null)" "400 string")"
done
code=$(curl -s -o /dev/null -w '%{http_code}' "$url_deny/validate")
check "GET /validate: 405" "$(is "$code" 405)"

# A bad --admission-disable: a usage error at start.
"$ext" --objects "$tmp/objs" --admission-disable no-such-rule --listen 127.0.0.1:0 >/dev/null 2>"$tmp/e"
rc=$?
check "--admission-disable with an unknown rule: exit 2 with lint's message" \
  "$(is "$rc $(grep -c "admission-disable: no lint rule 'no-such-rule'" "$tmp/e")" "2 1")"

# ConfigMaps that hold tier policies (the webhook's objectSelector picks them by label): each
# data value is linted as a TierPolicy against the classes.
cm_review() { # FILE UID POLICY-FILE
  jq -n -c --arg uid "$2" --rawfile p "$3" '{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
    request: {uid: $uid, kind: {group: "", version: "v1", kind: "ConfigMap"},
      resource: {group: "", version: "v1", resource: "configmaps"}, operation: "UPDATE",
      object: {apiVersion: "v1", kind: "ConfigMap", metadata: {name: "tiers", namespace: "kube-system",
        labels: {"dracel.dev/tier-policy": "true"}}, data: {"policy.yaml": $p}}}}' >"$1"
}
cm_review "$tmp/cm-bad.json" cm-1 "$src/tests/lint/policy/invalid.yaml"
post "$url_deny/validate" "$tmp/cm-bad.json" "$tmp/r"
check "a ConfigMap whose TierPolicy dra-extender would refuse: denied, lint's reason (invalid-object, the namespace twice)" \
  "$(is "$status $(jq -r '[.response.uid, .response.allowed, (.response.status.message | test("team-a is tenant a.s already \\[invalid-object\\]"))] | map(tostring) | join(" ")' "$tmp/r")" "200 cm-1 false true")"
cm_review "$tmp/cm-ok.json" cm-2 "$src/examples/replay/policy-enforce.yaml"
post "$url_deny/validate" "$tmp/cm-ok.json" "$tmp/r"
check "a ConfigMap with a sound TierPolicy: allowed, no warning" \
  "$(is "$status $(jq -c '[.response.allowed, (.response.warnings // [] | length)]' "$tmp/r")" '200 [true,0]')"
jq -c '.request.object.data = {"policy.yaml": 5}' "$tmp/cm-ok.json" >"$tmp/cm-num.json"
post "$url_deny/validate" "$tmp/cm-num.json" "$tmp/r"
check "a ConfigMap whose data is not strings: 400 with a JSON reason" \
  "$(is "$status $(jq -r '.error | test("data must map strings to strings")' "$tmp/r")" "400 true")"
jq -c '.request.operation = "DELETE"' "$tmp/cm-bad.json" >"$tmp/cm-del.json"
post "$url_deny/validate" "$tmp/cm-del.json" "$tmp/r"
check "...deleting it: allowed unread" "$(is "$status $(jq -r .response.allowed "$tmp/r")" "200 true")"

# The uid is decoded and written again, as the API server's Go code does: a lone surrogate
# escape comes back as U+FFFD, in JSON every reader takes (fuzz_request found one that cJSON
# refused); a NUL cannot be a uid.
printf '%s' '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"\ud800x","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","object":{}}}' >"$tmp/sur.json"
post "$url_deny/validate" "$tmp/sur.json" "$tmp/r"
check "a uid with a lone surrogate escape: 200, echoed as U+FFFD" \
  "$(is "$status $(jq -r '.response.uid' "$tmp/r")" "200 $(printf '\357\277\275x')")"
printf '%s' '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"a\u0000b","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","object":{}}}' >"$tmp/nul.json"
post "$url_deny/validate" "$tmp/nul.json" "$tmp/r"
check "...a uid holding a NUL: 400 with a JSON reason" \
  "$(is "$status $(jq -r '.error | test("request.uid")' "$tmp/r")" "400 true")"

echo "1..$n"
[ "$failed" = 0 ]
