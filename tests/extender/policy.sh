#!/bin/sh
# tests/extender/policy.sh: dra-extender with a tier policy (--policy; docs/fairness.md, "The
# extender"), the real program on a loopback port with --objects: caps with borrowing and
# reclaim, two pods racing for the last H100 a tenant may have, shadow against enforce on the
# same objects, the reload of a broken policy, rollback under load (loopback peers only),
# reconciliation with a planted mismatch, decision records parsed with jq, metrics checked
# with promtool, and the Grafana dashboard's metric names against /metrics. Needs curl and jq.
# TAP output; every wait is bounded.
# shellcheck disable=SC2154,SC2016 # url_NAME and pid_NAME are set by start, through eval;
# backquotes in single quotes are Markdown
set -u
ext=${DRA_EXTENDER:-./dra-extender}
case $ext in /*) ;; *) ext=$PWD/$ext ;; esac
src=${top_srcdir:-.}
fx=$src/tests/extender/policy
tmp=$(mktemp -d)
. "$src/tests/extender/common.sh"
# claim NS NAME [NODE DEVICE]: a ResourceClaim asking for an H100, else an A100; allocated
# (request gpu/h100 or gpu/a100 by the node) when NODE and DEVICE are given.
claim() {
  cat <<EOC
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: $2, namespace: $1}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - name: h100
        deviceClassName: gpu.example.com
        selectors:
        - cel: {expression: 'device.attributes["gpu.example.com"].model == "H100"'}
      - name: a100
        deviceClassName: gpu.example.com
        selectors:
        - cel: {expression: 'device.attributes["gpu.example.com"].model == "A100"'}
EOC
  if [ $# -ge 4 ]; then
    case $3 in node-h1) sub=h100 ;; *) sub=a100 ;; esac
    cat <<EOC
status:
  allocation:
    devices:
      results:
      - {request: gpu/$sub, driver: gpu.example.com, pool: $3, device: $4}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [$3]}
EOC
  fi
}
# args FILE NS POD CLAIM: an ExtenderArgs for pod NS/POD with the claim, both nodes
args() {
  printf '{"Pod":{"metadata":{"name":"%s","namespace":"%s","uid":"u-%s","labels":{"app":"t"}},"spec":{"resourceClaims":[{"name":"gpu","resourceClaimName":"%s"}]},"status":{}},"Nodes":null,"NodeNames":["node-a1","node-h1"]}' \
    "$3" "$2" "$3" "$4" >"$1"
}
# filter URL NS POD CLAIM OUT: POST /filter; the answer in OUT
filter() {
  args "$tmp/req-$3.json" "$2" "$3" "$4"
  curl -s -o "$5" -X POST -H 'Content-Type: application/json' \
    --data-binary @"$tmp/req-$3.json" "$1/filter"
}
passed() { jq -r '.NodeNames | sort | join(" ")' "$1" 2>/dev/null; }
reason() { jq -r --arg n "$2" '.FailedNodes[$n] // ""' "$1" 2>/dev/null; }
metric() { # URL SERIES-PREFIX: the value of the first series starting so
  curl -s "$1/metrics" | awk -v p="$2" 'index($0, p) == 1 { print $NF; exit }'
}

# ---- The objects: team-a holds one H100 already (a/held), the others wait.
mkdir -p "$tmp/objs"
cp "$fx/cluster.yaml" "$tmp/objs/"
{ claim a held node-h1 gpu-0; for c in a/p1 a/p2 b/q1 b/q2 b/q3 c/r1; do claim "${c%/*}" "${c#*/}-gpu"; done; } \
  >"$tmp/objs/claims.yaml"
cp "$fx/enforce.yaml" "$tmp/policy.yaml"

# ---- A policy rejected at start: FILE:LINE:COL, exit 1.
"$ext" --objects "$tmp/objs" --policy "$fx/broken.yaml" --listen 127.0.0.1:0 >"$tmp/o" 2>"$tmp/e"
rc=$?
check "a rejected policy at start: exit 1 with FILE:LINE:COL" \
  "$(is "$rc $(grep -c "broken.yaml:8:20: tenants\[0\].caps\[\"gpu/h100\"\]: must be a count" "$tmp/e")" "1 1")"

start enf --objects "$tmp/objs" --policy "$tmp/policy.yaml" --policy-poll 100ms --queue-wait 60s \
  --decision-log "$tmp/decisions.log" --decision-log-nodes 1 --model-attribute gpu.example.com/model
url=$url_enf

# ---- Caps, enforce: team-a is at 1/1 and the reserve forbids borrowing: node-h1 (where DRA
# would give the H100) is rejected with the cap's reason, node-a1 (an A100) passes.
filter "$url" a p1 p1-gpu "$tmp/f1"
check "enforce: team-a at its cap: only node-a1 passes" "$(is "$(passed "$tmp/f1")" "node-a1")"
check "enforce: node-h1's reason names the tenant, its usage and the tier" \
  "$(is "$(reason "$tmp/f1" node-h1)" "tenant team-a at 1/1 gpu/h100 (2 free, idle reserve 2)")"
# team-b is under its cap: the H100 node passes
filter "$url" b q1 q1-gpu "$tmp/f2"
check "enforce: team-b under its cap gets node-h1" "$(is "$(passed "$tmp/f2")" "node-a1 node-h1")"
# The same pod again counts once: its own decision is not usage against itself.
filter "$url" b q1 q1-gpu "$tmp/f2b"
check "a pod's repeated filter counts once" "$(is "$(passed "$tmp/f2b")" "node-a1 node-h1")"
# q2 (team-b) now finds team-b at 1/1: q1's decision counts until its allocation is seen.
filter "$url" b q2 q2-gpu "$tmp/f3"
check "recent decisions count: q2 finds team-b at 1/1" \
  "$(is "$(passed "$tmp/f3") | $(reason "$tmp/f3" node-h1)" \
     "node-a1 | tenant team-b at 1/1 gpu/h100 (1 free, idle reserve 2)")"
# When no node gives a permitted tier the pod stays pending with the cap's reason: a request
# naming node-h1 alone.
printf '{"Pod":{"metadata":{"name":"p9","namespace":"a"},"spec":{"resourceClaims":[{"name":"gpu","resourceClaimName":"p2-gpu"}]}},"NodeNames":["node-h1"]}' \
  >"$tmp/only-h1.json"
curl -s -o "$tmp/f4" -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/only-h1.json" "$url/filter"
check "no permitted node: nothing passes, the reason is the cap's, no pod error" \
  "$(is "$(jq -r '[(.NodeNames | length), (.FailedNodes["node-h1"] | startswith("tenant team-a at 1/1 gpu/h100")), .Error] | map(tostring) | join(" ")' "$tmp/f4")" "0 true ")"

# ---- Metrics of the decisions.
curl -s "$url/metrics" >"$tmp/m1"
check "metrics: cap rejections by tenant and tier, with the policy version" \
  "$(is "$(grep -c '^dra_extender_cap_rejections_total{policy="enforce-1 (h:[0-9a-f]*)",tenant="team-a",tier="gpu/h100",mode="enforce"} 2$' "$tmp/m1")" 1)"
check "metrics: decisions by tenant, tier and outcome" \
  "$(is "$(grep '^dra_extender_tenant_decisions_total{policy="enforce-1' "$tmp/m1" | sed 's/.*tenant="\([^"]*\)",tier="\([^"]*\)",outcome="\([^"]*\)"} \(.*\)/\1 \2 \3 \4/' | tr '\n' ',')" \
     "team-a  rejected 1,team-a gpu/a100 allowed 1,team-b gpu/a100 allowed 1,team-b gpu/h100 allowed 2,")"
check "metrics: usage and cap of team-b on gpu/h100 (q1 in flight)" \
  "$(is "$(grep -c '^dra_extender_tier_\(usage\|cap\)_devices{policy="enforce-1[^"]*",tier="gpu/h100",tenant="team-b"} 1$' "$tmp/m1")" 2)"
check "metrics: team-a's usage from its allocated claim" \
  "$(is "$(grep -c '^dra_extender_tier_usage_devices{policy="enforce-1[^"]*",tier="gpu/h100",tenant="team-a"} 1$' "$tmp/m1")" 1)"
check "metrics: the fallback count (choices), the policy version info" \
  "$(is "$(grep -c '^dra_extender_tier_choices_total{policy="enforce-1[^"]*",tenant="team-a",choice="fallback"} \|^dra_extender_policy_info{version="enforce-1",hash="[0-9a-f]\{16\}",mode="enforce",seq="1"} 1$' "$tmp/m1")" 2)"
if command -v promtool >/dev/null 2>&1; then
  promtool check metrics <"$tmp/m1" >"$tmp/pt" 2>&1
  check "promtool check metrics: no problem" "$(is "$?:$(grep -c . "$tmp/pt")" "0:0")"
else
  skip "promtool check metrics" "promtool is not installed"
fi
# The dashboard: valid JSON, every metric it queries on /metrics
dash=$src/deploy/grafana-dashboard.json
names=$(jq -r '[.. | objects | .expr? // empty] | .[]' "$dash" 2>/dev/null |
  grep -o 'dra_extender_[a-z_]*' | sed 's/_\(bucket\|sum\|count\)$//' | sort -u)
missing=
for m in $names; do grep -q "^# TYPE $m " "$tmp/m1" || missing="$missing $m"; done
check "deploy/grafana-dashboard.json: valid JSON, its metrics all on /metrics ($missing)" \
  "$( [ -n "$names" ] && [ -z "$missing" ]; echo $?)"

# ---- Decision records.
check "decision log: every line is a JSON record with the fields" \
  "$(is "$(jq -s '[.[] | has("time") and has("pod") and has("tenant") and has("policy") and has("snapshot") and has("tiers") and has("rejected") and has("predicted") and has("latencyMs")] | all' "$tmp/decisions.log")" true)"
check "decision log: p1's record (tiers with counts and a sample, rejected by cause, bounded)" \
  "$(is "$(jq -c 'select(.pod == "a/p1") | [.tenant, .outcome, .best, .tier, (.tiers | map([.tiers, .check, .count]) ), .rejected.cap.count, (.predicted | length), .passing]' "$tmp/decisions.log")" \
     '["team-a","allowed","node-a1","gpu/a100",[["gpu/a100","allowed",1],["gpu/h100","rejected",1]],1,1,1]')"
check "decision log: no other pod's name in a record" \
  "$(is "$(jq -r 'select(.pod == "a/p1") | tostring' "$tmp/decisions.log" | grep -c 'q1\|q2\|held')" 0)"
mv "$tmp/decisions.log" "$tmp/decisions.log.1"
kill -USR1 "$pid_enf"
wait_for test -e "$tmp/decisions.log"
filter "$url" b q3 q3-gpu "$tmp/f5"
wait_for test -s "$tmp/decisions.log"
check "decision log: SIGUSR1 reopens it (rotation)" \
  "$(is "$(jq -r .pod "$tmp/decisions.log") $(grep -c . "$tmp/decisions.log.1")" "b/q3 5")"

# ---- Where pods went by default (issue 23, item 6): namespace c is no tenant's. Each decision
# is counted by reason; the namespace is logged once, as a warning; the record says why.
filter "$url" c r1 r1-gpu "$tmp/f6"
filter "$url" c r1 r1-gpu "$tmp/f6b"
check "default tenant by namespace: counted for each decision, by policy version and reason" \
  "$(is "$(metric "$url" 'dra_extender_default_tenant_decisions_total{policy="enforce-1 (h:')" 2)"
check "...logged once: the namespace, the pod, the tenant" \
  "$(is "$(grep -c '"msg":"no tenant names a pod'"'"'s namespace: it is the default tenant'"'"'s","policy":"enforce-1 (h:[0-9a-f]*)","pod":"r1","namespace":"c","tenant":"default"' "$tmp/enf.log")" 1)"
wait_for test "$(grep -c . "$tmp/decisions.log")" -ge 3
check "...the decision record says why: defaulted by namespace; a tenant's pod: null" \
  "$(is "$(jq -c '[.pod, .tenant, .defaulted]' "$tmp/decisions.log" | tr '\n' ' ')" \
     '["b/q3","team-b",null] ["c/r1","default",{"reason":"namespace","namespace":"c"}] ["c/r1","default",{"reason":"namespace","namespace":"c"}] ')"

# ---- Reconciliation: p1 allocated as predicted on node-a1 (gpu-0), q1 on node-h1 with
# another device than the predicted gpu-1 (gpu-0 is held: a planted mismatch).
{ claim a held node-h1 gpu-0; claim a p1-gpu node-a1 gpu-0; claim a p2-gpu
  claim b q1-gpu node-h1 gpu-2; claim b q2-gpu; claim b q3-gpu; } >"$tmp/objs/claims.new"
mv "$tmp/objs/claims.new" "$tmp/objs/claims.yaml"
recon() { [ "$(metric "$url" 'dra_extender_predictions_total{policy="enforce-1')" != "" ] &&
          curl -s "$url/metrics" | grep -q 'result="mismatch"} 1$'; }
wait_for recon
curl -s "$url/metrics" >"$tmp/m2"
check "reconciliation: one match, one mismatch" \
  "$(is "$(grep -c '^dra_extender_predictions_total{policy="enforce-1[^"]*",result="\(match\|mismatch\)"} 1$' "$tmp/m2")" 2)"
check "reconciliation: the mismatch is logged with both sides" \
  "$(is "$(grep '"prediction mismatch"' "$tmp/enf.log" | jq -r '[.pod, .node, .predicted, .allocated] | join(" ")')" \
     "b/q1 node-h1 gpu/h100=gpu.example.com/node-h1/gpu-1 gpu/h100=gpu.example.com/node-h1/gpu-2")"
allocated() { [ "$(grep -c '"verb":"allocated"' "$tmp/decisions.log")" -ge 2 ]; }
wait_for allocated
check "the decision log records each allocation seen: the devices Kubernetes chose, their model, the prediction" \
  "$(is "$(jq -c 'select(.verb == "allocated") | [.pod, .tenant, (.devices | map([.claim, .request, .device, .model])), .prediction, .node, (.waitSeconds >= 0), (.policy | startswith("enforce-1"))]' "$tmp/decisions.log" | sort | tr '\n' ' ')" \
     '["a/p1","team-a",[["a/p1-gpu","gpu/a100","gpu.example.com/node-a1/gpu-0","A100"]],"match","node-a1",true,true] ["b/q1","team-b",[["b/q1-gpu","gpu/h100","gpu.example.com/node-h1/gpu-2","H100"]],"mismatch","node-h1",true,true] ')"
check "per tenant: the wait to placement (a histogram) and the allocations by tier" \
  "$(is "$(grep -c '^dra_extender_placement_wait_seconds_count{policy="enforce-1[^"]*",tenant="team-\(a\|b\)"} 1$' "$tmp/m2"):$(grep -c '^dra_extender_allocations_total{policy="enforce-1[^"]*",tenant="team-a",tier="gpu/a100"} 1$' "$tmp/m2")" "2:1")"
check "...and the pods decided but not allocated yet, by tenant" \
  "$(is "$(grep -c '^dra_extender_tenant_pending_pods{tenant="team-b"} [1-9]' "$tmp/m2")" 1)"
check "after the allocations: team-b's usage is q1's allocated H100, counted once" \
  "$(is "$(grep '^dra_extender_tier_usage_devices{policy="enforce-1[^"]*",tier="gpu/h100",tenant="team-b"}' "$tmp/m2" | awk '{print $NF}')" 1)"

# ---- Reload: a broken file keeps the running version (logged, counted).
cp "$fx/broken.yaml" "$tmp/policy.yaml"
kill -HUP "$pid_enf"
hup_failed() {
  curl -s "$url/metrics" >"$tmp/m3"; grep -q 'trigger="SIGHUP",result="failed"' "$tmp/m3"
}
wait_for hup_failed
check "reload of a broken policy: counted as failed, the old version stays current" \
  "$(is "$(grep -c 'trigger="SIGHUP",result="failed"} 1$' "$tmp/m3") $(curl -s "$url/policy" | jq -r '.versions[0].version')" "1 enforce-1")"
check "reload of a broken policy: logged with FILE:LINE:COL" \
  "$(is "$(grep '"tier policy rejected' "$tmp/enf.log" | jq -r '.error' | head -n 1 | grep -c 'policy.yaml:8:20: ')" 1)"
filter "$url" a p2 p2-gpu "$tmp/f6"
check "the running version still decides" "$(is "$(passed "$tmp/f6")" "node-a1")"
# A file cut short by a write in place (its first 60 bytes: a comment, no line break at its
# end) is no policy: it once loaded as a new version with no tenants, dropping every cap. The
# file's poll may see it too (and the empty file the shell's truncation leaves first): the check
# is that it was refused at its end at least once and never loaded.
head -c 60 "$fx/borrow.yaml" >"$tmp/policy.yaml"
kill -HUP "$pid_enf"
hup_failed2() {
  curl -s "$url/metrics" >"$tmp/m3"; grep -q 'trigger="SIGHUP",result="failed"} 2$' "$tmp/m3"
}
wait_for hup_failed2
check "reload of a file written in part: refused at its end (FILE:LINE:COL), the old version stays" \
  "$(is "$(grep '"tier policy rejected' "$tmp/enf.log" | jq -r '.error' | grep -q 'policy.yaml:1:61: the file does not end with a line break' && echo seen) $(curl -s "$url/policy" | jq -r '.versions[0].version')" "seen enforce-1")"

# ---- Borrowing and reclaim: borrow.yaml (reserve 1), loaded by a change of the file.
cp "$fx/borrow.yaml" "$tmp/policy.yaml"
wait_for sh -c "curl -s '$url/policy' | jq -e '.versions[0].version == \"borrow-1\"' >/dev/null"
check "a change of the file loads the new version" \
  "$(is "$(curl -s "$url/policy" | jq -r '[.versions[].version] | join(" ")')" "borrow-1 enforce-1")"
# H100: 3, in use: held, q1 (allocated); free 1. team-a is at 1/1: borrowing would leave 0 < 1.
filter "$url" a p2 p2-gpu "$tmp/f7"
check "borrowing: refused when it would take the reserve" \
  "$(is "$(reason "$tmp/f7" node-h1)" "tenant team-a at 1/1 gpu/h100 (1 free, idle reserve 1)")"
# Free q1's H100 (its pod ended): 2 free; team-a borrows, down to the reserve.
{ claim a held node-h1 gpu-0; claim a p1-gpu node-a1 gpu-0; claim a p2-gpu; claim b q2-gpu; claim b q3-gpu; } \
  >"$tmp/objs/claims.new"
mv "$tmp/objs/claims.new" "$tmp/objs/claims.yaml"
borrows() { filter "$url" a p2 p2-gpu "$tmp/f8"; [ "$(passed "$tmp/f8")" = "node-a1 node-h1" ]; }
wait_for borrows
check "borrowing: team-a past its cap while two H100 are free" "$(is "$(passed "$tmp/f8")" "node-a1 node-h1")"
# Reclaim: team-b (under its cap) takes the last free H100; the borrower is refused first.
filter "$url" b q2 q2-gpu "$tmp/f9"
check "reclaim: team-b under its cap gets the H100 the reserve kept" "$(is "$(passed "$tmp/f9")" "node-a1 node-h1")"
filter "$url" a p9 p2-gpu "$tmp/f10"
check "reclaim: another borrower of team-a is refused at the reserve" \
  "$(is "$(reason "$tmp/f10" node-h1)" "tenant team-a at 2/1 gpu/h100 (0 free, idle reserve 1)")"

# ---- Two pods racing for the last H100 team-b may have (q2's decision expires first: a
# second extender on the same objects, where nothing is in flight).
start race --objects "$tmp/objs" --policy "$fx/enforce.yaml"
args "$tmp/r1.json" b q2 q2-gpu; args "$tmp/r2.json" b q3 q3-gpu
curl -s -o "$tmp/race1" -X POST -H 'Content-Type: application/json' \
  --data-binary @"$tmp/r1.json" "$url_race/filter" & r1=$!
curl -s -o "$tmp/race2" -X POST -H 'Content-Type: application/json' \
  --data-binary @"$tmp/r2.json" "$url_race/filter" & r2=$!
wait $r1 $r2
got=$( (passed "$tmp/race1"; passed "$tmp/race2") | sort | tr '\n' '|')
check "race: exactly one of two concurrent pods gets the last H100 team-b may have" \
  "$(is "$got" "node-a1|node-a1 node-h1|")"

# ---- Shadow against enforce on the same objects: nothing rejected, counted and recorded.
start sh --objects "$tmp/objs" --policy "$fx/shadow.yaml" --decision-log "$tmp/shadow.log"
filter "$url_sh" a p2 p2-gpu "$tmp/s1"
filter "$url_race" a p2 p2-gpu "$tmp/e1"
check "shadow: node-h1 passes where enforce rejects it" \
  "$(is "$(passed "$tmp/s1") | $(passed "$tmp/e1")" "node-a1 node-h1 | node-a1")"
check "shadow: the would-be rejection is counted" \
  "$(is "$(curl -s "$url_sh/metrics" | grep -c '^dra_extender_cap_rejections_total{policy="shadow-1[^"]*",tenant="team-a",tier="gpu/h100",mode="shadow"} 1$')" 1)"
check "shadow: and recorded (outcome over_cap, the reason)" \
  "$(is "$(jq -r 'select(.pod == "a/p2") | [.outcome, .mode, (.tiers[] | select(.check == "over_cap") | .reason)] | join(" | ")' "$tmp/shadow.log")" \
     "over_cap | shadow | tenant team-a at 1/1 gpu/h100 (2 free, idle reserve 2)")"

# ---- A tenant's own mode: the policy in shadow, team-a enforced; then every check off.
start one --objects "$tmp/objs" --policy "$fx/one.yaml"
filter "$url_one" a p2 p2-gpu "$tmp/o1"
filter "$url_one" b q2 q2-gpu "$tmp/o2"
check "a tenant's own mode: team-a enforced, team-b (over its cap of 0) only counted" \
  "$(is "$(passed "$tmp/o1") | $(passed "$tmp/o2") | $(curl -s "$url_one/metrics" | grep -c '^dra_extender_cap_rejections_total{policy="one-1[^"]*",tenant="team-\(a",tier="gpu/h100",mode="enforce\|b",tier="gpu/h100",mode="shadow\)"} 1$')" \
     "node-a1 | node-a1 node-h1 | 2")"
start off --objects "$tmp/objs" --policy "$fx/off.yaml" --decision-log "$tmp/off.log"
filter "$url_off" a p2 p2-gpu "$tmp/x1"
check "mode off: nothing checked, nothing rejected or counted over a cap" \
  "$(is "$(passed "$tmp/x1") | $(curl -s "$url_off/metrics" | grep -c '^dra_extender_cap_rejections_total{') | $(jq -r '[.mode, .outcome, (.tiers | map(.check) | unique | join(","))] | join(" ")' "$tmp/off.log")" \
     "node-a1 node-h1 | 0 | off allowed allowed")"

# ---- Rollback under load: requests keep coming while the endpoint switches back.
load() { i=0; while [ $i -lt 40 ]; do
  curl -s -o /dev/null -w '%{http_code}\n' -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/req-p2.json" "$url/filter"
  i=$((i + 1)); done >"$tmp/load$1"; }
load 1 & l1=$!; load 2 & l2=$!
under_load() { [ "$(grep -c . "$tmp/load1" 2>/dev/null)" -ge 5 ]; }
wait_for under_load
st=$(curl -s -o "$tmp/rb" -w '%{http_code}' -X POST "$url/policy/rollback")
wait $l1 $l2
check "rollback: the endpoint answers 200 and enforce-1 is current again" \
  "$(is "$st $(curl -s "$url/policy" | jq -r '.versions[0].version')" "200 enforce-1")"
check "rollback under load: every request answered 200" \
  "$(is "$(cat "$tmp/load1" "$tmp/load2" | sort | uniq -c | awk '{print $1 ":" $2}')" "80:200")"
filter "$url" a p2 p2-gpu "$tmp/f11"
check "after the rollback the previous version decides (no borrowing)" \
  "$(is "$(reason "$tmp/f11" node-h1 | cut -d' ' -f1-5)" "tenant team-a at 1/1 gpu/h100")"
st=$(curl -s -o "$tmp/rb2" -w '%{http_code}' -X POST "$url/policy/rollback")
check "rollback with no previous version: 409, nothing changes" \
  "$(is "$st $(jq -r .result "$tmp/rb2") $(curl -s "$url/policy" | jq -r '.versions | length')" "409 none 1")"
# SIGUSR2: load borrow-1 again, then roll it back by the signal
cp "$fx/borrow.yaml" "$tmp/policy.yaml"; touch "$tmp/policy.yaml"
kill -HUP "$pid_enf"
wait_for sh -c "curl -s '$url/policy' | jq -e '.versions[0].version == \"borrow-1\"' >/dev/null"
kill -USR2 "$pid_enf"
wait_for sh -c "curl -s '$url/policy' | jq -e '.versions[0].version == \"enforce-1\"' >/dev/null"
check "rollback by SIGUSR2" "$(is "$(curl -s "$url/policy" | jq -r '.versions[0].version')" "enforce-1")"
# (the file's change may be seen by the watch before the SIGHUP: then SIGHUP finds it unchanged)
check "metrics: rollbacks and reloads counted" \
  "$(is "$(curl -s "$url/metrics" | grep -c '^dra_extender_policy_rollbacks_total{trigger="\(endpoint\|SIGUSR2\)",result="done"} 1$\|^dra_extender_policy_reloads_total{trigger="file_change",result="loaded"} [12]$')" 3)"
# Local only: a peer that is not on a loopback address is refused.
addr=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -v '^127\.\|:' | head -n 1)
if [ -n "$addr" ]; then
  rm -f "$tmp/any.port"
  "$ext" --objects "$tmp/objs" --policy "$fx/enforce.yaml" --listen "0.0.0.0:0" \
    --port-file "$tmp/any.port" 2>"$tmp/any.log" &
  pids="$pids $!"
  wait_for test -s "$tmp/any.port"
  aport=$(cat "$tmp/any.port")
  wait_for curl -sf "http://$addr:$aport/readyz" >/dev/null
  a=$(curl -s -o "$tmp/far" -w '%{http_code}' -X POST "http://$addr:$aport/policy/rollback")
  b=$(curl -s -o /dev/null -w '%{http_code}' "http://$addr:$aport/policy")
  c=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$aport/policy")
  check "local only: $addr is refused (403), 127.0.0.1 answered" "$(is "$a $b $c" "403 403 200")"
else
  skip "local only: a non-loopback peer is refused" "no non-loopback address"
fi

# ---- docs/extender.md's table of metrics: the tier policy families all exported now (every
# kind of event has happened), and every family exported documented.
curl -s "$url/metrics" | awk '$1 == "#" && $2 == "TYPE" { print $3 }' | sort -u >"$tmp/exported"
grep '^| `dra_extender_\|^| `process_' "$src/docs/extender.md" | awk -F'|' '{ print $2 }' |
  grep -o '`[a-z_]*`' | tr -d '`' | sort -u >"$tmp/documented"
pf='^dra_extender_\(tenant_decisions\|cap_rejections\|tier_[a-z_]*\|pending_[a-z_]*\|predictions\|policy_info\|policy_reloads\|policy_rollbacks\|decision_log_records\)'
check "metrics: every tier policy family of docs/extender.md is exported" \
  "$(is "$(grep "$pf" "$tmp/documented" | comm -23 - "$tmp/exported" | tr '\n' ' ')" "")"
check "metrics: every family exported is documented" \
  "$(is "$(comm -23 "$tmp/exported" "$tmp/documented" | tr '\n' ' ')" "")"

# ---- An unhealthy device is neither in a tier's size nor free: node-h1's gpu-2 tainted
# NoSchedule (DRADeviceTaints on, 1.37's default), team-a at 1/1 (a/held on gpu-0), an idle
# reserve of 1 (borrow.yaml). Usable H100s: 2, 1 free: borrowing would leave none, so node-h1
# is refused; counting the tainted one as free would let team-a borrow the last usable H100.
mkdir -p "$tmp/objs-h"
sed 's|  - {name: gpu-2, attributes: {model: {string: H100}}}|  - {name: gpu-2, attributes: {model: {string: H100}}, taints: [{key: gpu.example.com/unhealthy, value: ecc, effect: NoSchedule}]}|' \
  "$fx/cluster.yaml" >"$tmp/objs-h/cluster.yaml"
{ claim a held node-h1 gpu-0; claim a p1-gpu; } >"$tmp/objs-h/claims.yaml"
start hl --objects "$tmp/objs-h" --policy "$fx/borrow.yaml"
filter "$url_hl" a p1 p1-gpu "$tmp/fh"
check "unhealthy: a tainted H100 is not free; the borrower is refused at the reserve" \
  "$(is "$(passed "$tmp/fh") | $(reason "$tmp/fh" node-h1)" \
     "node-a1 | tenant team-a at 1/1 gpu/h100 (1 free, idle reserve 1)")"
kill -TERM "$pid_hl"
reap "$pid_hl"

# ---- SIGTERM: a clean exit.
kill -TERM "$pid_enf"
reap "$pid_enf"
check "SIGTERM: exit 0" "$(is "$?" 0)"

echo "1..$n"
[ "$failed" = 0 ]
