#!/bin/sh
# tests/replay.sh: `dra-celc replay` (docs/fairness.md) on the small traces of tests/replay/,
# whose numbers are worked out by hand below (TAP): first-choice and fallback rates, waits,
# tier shares and Jain's index; caps with borrowing and refusal at the idle reserve; the retry
# order of the queue (tenants under their cap first, then arrival time, whatever the trace's
# line order); over-cap counts for pods queued behind a refused one; two pods racing for the last H100; shadow
# against enforce on the same trace; the same bytes twice and with the fleet's files in another
# order; text, JSON and HTML; the examples of examples/replay/; bad input (exit 1 with
# FILE:LINE[:COL], exit 2 for usage and unreadable files). Needs $DRA_CELC and jq.
set -u
LC_ALL=C
export LC_ALL
celc=${DRA_CELC:-./dra-celc}
src=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; failed=0
check() { # name, condition result (0 ok)
  n=$((n + 1))
  if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}
comment() { head -n 30 | sed 's/^/# /'; }
cd "$src/tests/replay" || exit 1

replay() { "$celc" replay --fleet fleet.yaml --classes classes.yaml "$@"; }
# same NAME JQ-FILTER WANT: the filter on $tmp/out.json gives WANT (compact JSON)
same() {
  got=$(jq -c "$2" "$tmp/out.json" 2>&1)
  if [ "$got" = "$3" ]; then check "$1" 0; else check "$1" 1; echo "# got:  $got"; echo "# want: $3"; fi
}

# --- mix.jsonl under cap-enforce.yaml (team-a: one H100; an idle reserve of 1).
# Fleet: node-a {H100, A100}, node-b {H100, A100}, node-c {A100}.
#  t=0  p1 (a): H100 on node-a or node-b, same score: node-a (name). team-a 1/1.
#  t=0  p2 (a): node-b's H100 would be its second: at its cap, borrowing would leave 0 free,
#       below the reserve of 1: refused (over a cap); node-a's A100 (before node-c's).
#  t=0  p3 (b): node-b's H100 (no cap).
#  t=10 p4 (b): node-b's A100 (before node-c's); leaves at 20.
#  t=20 p4 leaves first, then p5 (a): node-b's A100 until 50.
#  t=30 p6 (c, the default tenant): node-c until 35; p7 (31) and p8 (32) queue.
#  t=35 p7 placed (wait 4) until 40; t=40 p8 placed (wait 8) until 41. The end: t=100.
# team-a: first 1/3, fallback a100 2/3; team-b: 1/2 and 1/2; default: 0 and 1, waits 0, 4, 8
# (mean 4, p95 the third of three: 8). H100 device-seconds: team-a 100 (p1), team-b 50 (p3):
# shares 100/(2*100) = 0.5 and 0.25; A100: team-a 100 (p2) + 30 (p5) = 130/300, team-b 10/300,
# default 5+5+1 = 11/300. Jain's index over the three tenants asking for H100s, x = 100/150,
# 50/150, 0: (1)^2 / (3 * (4/9 + 1/9)) = 0.6.
replay --policy cap-enforce.yaml --format json mix.jsonl >"$tmp/out.json" 2>"$tmp/err"
check "mix, enforce: exit 0" $?
same "mix, enforce: team-a" '.policies[0].tenants[0]' \
  '{"tenant":"team-a","mode":"enforce","weight":1,"pods":3,"placed":3,"firstChoiceRate":0.333333,"fallbackRate":{"gpu/a100":0.666667},"waitSeconds":{"mean":0,"p95":0,"max":0},"unschedulable":0,"overCap":1,"borrowed":0,"tierShare":{"gpu/h100":0.5,"gpu/a100":0.433333}}'
same "mix, enforce: team-b" '.policies[0].tenants[1]' \
  '{"tenant":"team-b","mode":"enforce","weight":1,"pods":2,"placed":2,"firstChoiceRate":0.5,"fallbackRate":{"gpu/a100":0.5},"waitSeconds":{"mean":0,"p95":0,"max":0},"unschedulable":0,"overCap":0,"borrowed":0,"tierShare":{"gpu/h100":0.25,"gpu/a100":0.033333}}'
same "mix, enforce: the default tenant waits 0, 4 and 8 s" '.policies[0].tenants[2]' \
  '{"tenant":"default","mode":"enforce","weight":1,"pods":3,"placed":3,"firstChoiceRate":0,"fallbackRate":{"gpu/a100":1},"waitSeconds":{"mean":4,"p95":8,"max":8},"unschedulable":0,"overCap":0,"borrowed":0,"tierShare":{"gpu/h100":0,"gpu/a100":0.036667}}'
same "mix, enforce: the policy's totals and Jain's index" \
  '.policies[0] | [.version, .mode, .pods, .placed, .unschedulable, .overCap, .borrowed, .endSeconds, .jain]' \
  '["cap-enforce","enforce",8,8,0,1,0,100,0.6]'
same "mix: the report's head" '[.trace, .pods, .claims, .nodes, .devices, .tiers]' \
  '["mix.jsonl",8,1,3,5,[{"name":"gpu/h100","devices":2,"premium":true},{"name":"gpu/a100","devices":3,"premium":false}]]'

# --- the same under cap-shadow.yaml: nothing is rejected, p2's H100 is counted over a cap.
#  p1 node-a H100, p2 node-b H100, p3 node-a A100, p4 node-b A100 (10-20), p5 node-b A100
#  (20-50), p6-p8 as before. team-a: first 2/3; team-b: 0/2. H100: team-a 200 (share 1), so
# Jain's index is 1 / 3.
replay --policy cap-enforce.yaml --policy cap-shadow.yaml --format json mix.jsonl >"$tmp/out.json"
same "mix, shadow beside enforce: first-choice rates A and B" \
  '[.policies[] | [.mode, [.tenants[] | .firstChoiceRate]]]' \
  '[["enforce",[0.333333,0.5,0]],["shadow",[0.666667,0,0]]]'
same "mix, shadow: p2 counted over a cap, not rejected; Jain's index 1/3" \
  '.policies[1] | [.overCap, .borrowed, .jain, [.tenants[] | .overCap], .tenants[0].tierShare]' \
  '[1,0,0.333333,[1,0,0],{"gpu/h100":1,"gpu/a100":0.1}]'
replay --policy cap-off.yaml --format json mix.jsonl >"$tmp/off.json"
jq -c '[.policies[0].tenants[] | del(.overCap, .mode)]' "$tmp/off.json" >"$tmp/a"
jq -c '[.policies[1].tenants[] | del(.overCap, .mode)]' "$tmp/out.json" >"$tmp/b"
check "mix: shadow places every pod where mode off does" "$(cmp -s "$tmp/a" "$tmp/b"; echo $?)"
jq -c '.policies[0].overCap' "$tmp/off.json" | grep -qx 0
check "mix, off: no pod over a cap" $?

# --- cap-one.yaml: enforce for one tenant. team-a (enforce) is refused p2's H100 as under
# cap-enforce.yaml; team-b (shadow, a cap of 0 H100) takes node-b's H100 with p3, counted over
# its cap but not refused.
replay --policy cap-one.yaml --format json mix.jsonl >"$tmp/out.json"
same "enforce for one tenant: team-a refused, team-b counted" \
  '[.policies[0].mode, [.policies[0].tenants[] | [.tenant, .mode, .firstChoiceRate, .overCap]]]' \
  '["shadow",[["team-a","enforce",0.333333,1],["team-b","shadow",0.5,1],["default","shadow",0,0]]]'
replay --policy cap-one.yaml mix.jsonl | grep -qx '  tenants in another mode: team-a enforce'
check "text: the tenants in another mode than the policy's" $?

# --- queue.jsonl: h100-only claims, caps of one H100 each, no idle reserve.
#  t=0 q1 (a) node-a until 10; q2 (a) borrows node-b (0 free after it, the reserve is 0) until
#  20; t=1 q3 (a) and t=2 q4 (b) queue. t=10 q1 leaves: enforce retries team-b first (under its
#  cap; team-a, holding q2, would borrow): q4 at 10 (wait 8), q3 at 20 (wait 19). Shadow keeps
#  kube-scheduler's order: q3 at 10 (wait 9, borrowing again), q4 at 20 (wait 18).
replay --policy queue-enforce.yaml --policy queue-shadow.yaml --format json queue.jsonl >"$tmp/out.json"
same "queue: under-cap tenants are retried before borrowers (enforce), in arrival order (shadow)" \
  '[.policies[] | [.mode, [.tenants[] | [.tenant, .waitSeconds.max, .borrowed]]]]' \
  '[["enforce",[["team-a",19,1],["team-b",8,0]]],["shadow",[["team-a",9,2],["team-b",18,0]]]]'
same "queue, enforce: team-a's mean wait (0 + 0 + 19) / 3" '.policies[0].tenants[0].waitSeconds' \
  '{"mean":6.333333,"p95":19,"max":19}'

# --- race.jsonl: the default tenant's pod takes node-a's H100 at t=0; at t=1 a/x and b/y both
# want the last one (node-b's). Without caps the first in the trace gets it, whichever it is;
# with team-a capped at 0 H100 and an idle reserve of 1, x would borrow the last free one:
# refused, so y gets it although x came first.
replay --policy cap-off.yaml --format json race.jsonl >"$tmp/out.json"
same "race, no caps: x (first in the trace) gets the H100, y the A100" \
  '[.policies[0].tenants[] | [.tenant, .firstChoiceRate]]' '[["team-a",1],["team-b",0],["default",1]]'
grep -v '^#' race.jsonl | sed -n '1p' >"$tmp/race.jsonl"
grep -v '^#' race.jsonl | sed -n '3p' >>"$tmp/race.jsonl"
grep -v '^#' race.jsonl | sed -n '2p' >>"$tmp/race.jsonl"
cp tiered.yaml h100-only.yaml "$tmp/"
"$celc" replay --fleet fleet.yaml --classes classes.yaml --policy cap-off.yaml --format json \
  "$tmp/race.jsonl" >"$tmp/out.json"
same "race, no caps, y first in the trace: y gets it" \
  '[.policies[0].tenants[] | [.tenant, .firstChoiceRate]]' '[["team-a",0],["team-b",1],["default",1]]'
replay --policy race-enforce.yaml --format json race.jsonl >"$tmp/out.json"
same "race, enforce: the borrower is refused at the idle reserve, y gets the last H100" \
  '[.policies[0].tenants[] | [.tenant, .firstChoiceRate, .overCap]]' \
  '[["team-a",0,1],["team-b",1,0],["default",1,0]]'

# --- health.jsonl on fleet-tainted.yaml: four H100s, node-d's tainted NoSchedule. team-a may
# hold none and borrows only while one stays free (idle reserve 1). With DRADeviceTaints on
# (1.37) the tainted H100 is neither in the tier's size nor free: 3 usable; p1 and p2 borrow
# (3 free, then 2), p3 would leave 0 free: refused at t=0, placed at t=100 when p1 and p2
# leave (wait 100). Counting the tainted one as free would let p3 take the last usable H100.
# With the gate off (1.35's default) the taint does not count and every pod borrows at t=0.
"$celc" replay --fleet fleet-tainted.yaml --classes classes.yaml --policy health-enforce.yaml \
  --format json health.jsonl >"$tmp/out.json"
same "health, 1.37: a tainted device is neither size nor free; the third borrower waits" \
  '[.tiers[0].devices, (.policies[0].tenants[0] | [.placed, .overCap, .borrowed, .waitSeconds.max])]' \
  '[3,[3,1,3,100]]'
"$celc" replay --fleet fleet-tainted.yaml --classes classes.yaml --policy health-enforce.yaml \
  --kubernetes-version 1.35 --format json health.jsonl >"$tmp/out.json"
same "health, 1.35 (DRADeviceTaints off): the taint does not count, all borrow at once" \
  '[.tiers[0].devices, (.policies[0].tenants[0] | [.placed, .overCap, .borrowed, .waitSeconds.max])]' \
  '[4,[3,0,3,0]]'

# Its records (--format jsonl): arrive, try and place for p1 and p2 at t=0; p3 arrives and its
# try is refused with the cap's reason (2 held, cap 0, 1 free, reserve 1); p1 leaves at 100,
# p3's second try is allowed and it is placed (wait 100); p2 leaves at 100, p3 at 200. team-a
# never holds more than 2 (the "used" of every place and leave), so the reserve held.
"$celc" replay --fleet fleet-tainted.yaml --classes classes.yaml --policy health-enforce.yaml \
  --format jsonl health.jsonl >"$tmp/rec.jsonl"
check "records: one JSON object a line, 13 events" \
  "$([ "$(jq -s 'length' "$tmp/rec.jsonl")" = 13 ] && [ "$(wc -l <"$tmp/rec.jsonl")" = 13 ]; echo $?)"
check "records: the events in order" \
  "$(r=$(jq -r '"\(.time) \(.pod) \(.event)"' "$tmp/rec.jsonl" | tr '\n' ','); [ "$r" = "0 a/p1 arrive,0 a/p1 try,0 a/p1 place,0 a/p2 arrive,0 a/p2 try,0 a/p2 place,0 a/p3 arrive,0 a/p3 try,100 a/p1 leave,100 a/p3 try,100 a/p3 place,100 a/p2 leave,200 a/p3 leave," ]; echo $?)"
check "records: p3's first try is refused with the cap's reason" \
  "$(is=$(jq -c 'select(.pod == "a/p3" and .event == "try" and .time == 0) | [.tier, .allowed, .reason]' "$tmp/rec.jsonl"); [ "$is" = '["gpu",false,"tenant team-a at 2/0 gpu (1 free, idle reserve 1)"]' ]; echo $?)"
check "records: p3 placed at 100 after waiting 100 s, borrowing, on one device" \
  "$(is=$(jq -c 'select(.pod == "a/p3" and .event == "place") | [.time, .waitSeconds, .borrowed, (.devices | length), .used.gpu]' "$tmp/rec.jsonl"); [ "$is" = '[100,100,true,1,2]' ]; echo $?)"
check "records: team-a never holds more than 2 of the 3 usable H100s" \
  "$([ "$(jq -s '[.[] | select(.used) | .used.gpu] | max' "$tmp/rec.jsonl")" = 2 ]; echo $?)"
"$celc" replay --fleet fleet-tainted.yaml --classes classes.yaml --policy health-enforce.yaml \
  --format json --records health.jsonl >"$tmp/out.json"
check "records: --format json --records holds the same records" \
  "$(jq -c '.policies[0].records[]' "$tmp/out.json" | cmp -s - "$tmp/rec.jsonl"; echo $?)"
"$celc" replay --fleet fleet-tainted.yaml --classes classes.yaml --policy health-enforce.yaml \
  --format json health.jsonl >"$tmp/out.json"
same "records: none in --format json without --records" '.policies[0] | has("records")' 'false'

# --- arrival.jsonl: lines out of time order. a/q1 (until 10) and a/q2 (until 100) take both
# H100s at t=0; b/late (t=2, the third line) and c/early (t=1, the fourth) queue. At t=10 the
# freed H100 goes to c/early, which arrived first: wait 9, until 20; then b/late: wait 18.
replay --policy cap-off.yaml --format json arrival.jsonl >"$tmp/out.json"
same "arrival: the queue's order is arrival time, not the trace's lines" \
  '[.policies[0].tenants[] | [.tenant, .waitSeconds.max]]' '[["team-a",0],["team-b",18],["default",9]]'
mkdir -p "$tmp/perm"
cp h100-only.yaml "$tmp/perm/"
grep -v '^#' arrival.jsonl >"$tmp/lines"
jq -c '.policies' "$tmp/out.json" >"$tmp/want"
for order in 1234 4321 3142 2413; do
  for k in $(echo $order | sed 's/./& /g'); do sed -n "${k}p" "$tmp/lines"; done >"$tmp/perm/arrival.jsonl"
  "$celc" replay --fleet fleet.yaml --classes classes.yaml --policy cap-off.yaml --policy \
    queue-enforce.yaml --format json "$tmp/perm/arrival.jsonl" | jq -c '.policies[0]' >"$tmp/got"
  jq -c '.[0]' "$tmp/want" | cmp -s - "$tmp/got"
  check "arrival: lines in the order $order give the same report" $?
done

# --- overcap.jsonl under overcap-enforce.yaml (team-a: one device, an idle reserve of 1).
#  t=0  b/h1 node-a until 10, b/h2 node-b until 20 (team-b has no cap).
#  t=1  a/x1, a/x2, a/x3 queue: no H100 is free (no node, so no cap is asked).
#  t=10 x1 within its cap: node-a until 1010 (wait 9); x2 finds nothing free.
#  t=20 node-b is free: x2 at its cap would leave 0 free, below the reserve: refused, over its
#       cap. x3, behind it with the same claim, would get the same answer: over its cap too.
#  t=21 b/h3 (no cap) node-b until 10021. t=1010 x2 within its cap (wait 1009) until 1020;
#  t=1020 x3 (wait 1019). team-a: 2 over a cap, waits 9, 1009, 1019 (mean 679).
replay --policy overcap-enforce.yaml --format json overcap.jsonl >"$tmp/out.json"
same "overcap: each queued pod behind a refused one is counted over its cap" \
  '.policies[0] | [.overCap, [.tenants[] | [.tenant, .placed, .overCap, .borrowed, .waitSeconds]]]' \
  '[2,[["team-a",3,2,0,{"mean":679,"p95":1019,"max":1019}],["team-b",3,0,0,{"mean":0,"p95":0,"max":0}]]]'

# --- the same bytes: twice, and with the fleet's files in another order (and split)
mkdir -p "$tmp/d1/fleet" "$tmp/d2/fleet"
for d in d1 d2; do cp mix.jsonl tiered.yaml classes.yaml cap-enforce.yaml cap-shadow.yaml "$tmp/$d/"; done
awk 'BEGIN{d=0} /^---$/ {d++; next} {print > (dir "/fleet/" d ".yaml")}' dir="$tmp/d1" fleet.yaml
awk 'BEGIN{d=0} /^---$/ {d++; next} {print > (dir "/fleet/" (9 - d) ".yaml")}' dir="$tmp/d2" fleet.yaml
for fmt in text json html; do
  for d in d1 d2; do
    (cd "$tmp/$d" && "$celc" replay --fleet fleet --classes classes.yaml --policy cap-enforce.yaml \
      --policy cap-shadow.yaml --format $fmt mix.jsonl >"$tmp/$d.$fmt" 2>&1) || echo "# $d $fmt failed"
  done
  (cd "$tmp/d1" && "$celc" replay --fleet fleet --classes classes.yaml --policy cap-enforce.yaml \
    --policy cap-shadow.yaml --format $fmt mix.jsonl >"$tmp/again.$fmt" 2>&1)
  check "$fmt: the same bytes twice" "$(cmp -s "$tmp/d1.$fmt" "$tmp/again.$fmt"; echo $?)"
  check "$fmt: the same bytes with the fleet's files in another order" \
    "$(cmp -s "$tmp/d1.$fmt" "$tmp/d2.$fmt"; echo $?)"
done
# the text report names both policies and the comparison
grep -q '^policy A: cap-enforce.yaml$' "$tmp/d1.text" && grep -q '^policy B: cap-shadow.yaml$' "$tmp/d1.text" &&
  grep -q '^A against B:$' "$tmp/d1.text" && grep -q '^  team-a  *0.333 -> 0.667 ' "$tmp/d1.text"
check "text: both policies and A against B" $?
# HTML: one self-contained page (no script, nothing fetched), with SVG charts
html=$tmp/d1.html
{ head -n 1 "$html" | grep -qx '<!DOCTYPE html>' && tail -n 1 "$html" | grep -qx '</html>' &&
  [ "$(grep -c '<svg ' "$html")" -ge 9 ] && ! grep -qi '<script\|src=\|href=\|@import\|url(' "$html"; }
check "html: a page with inline SVG charts, no script, no reference out of it" $?
grep -q 'A against B' "$html" && grep -q 'Devices held over time, by tenant and tier' "$html" && grep -q 'Waits of placed pods' "$html"
check "html: devices held by tenant and tier, waits, A against B" $?
# the page is polyglot markup: well-formed XML too
if command -v xmllint >/dev/null 2>&1; then
  xmllint --noout "$html" 2>"$tmp/xml"; check "html: well-formed (xmllint)" "$([ ! -s "$tmp/xml" ]; echo $?)"
  comment <"$tmp/xml"
fi

# --- the contract's JSON keys
replay --policy cap-enforce.yaml --format json mix.jsonl >"$tmp/out.json"
jq -e '(.policies | length) == 1 and (.policies[0] | has("version") and has("tenants") and has("jain")) and
  all(.policies[0].tenants[]; has("tenant") and has("pods") and has("firstChoiceRate") and has("fallbackRate") and
  (.waitSeconds | has("mean") and has("p95") and has("max")) and has("unschedulable"))' "$tmp/out.json" >/dev/null
check "json: the contract's fields" $?
check "json: one line" "$([ "$(wc -l <"$tmp/out.json")" = 1 ]; echo $?)"

# --- a pod that fits nowhere is unschedulable; a claim with a missing class never schedules
printf '{"time": 0, "pod": "a/big", "claim": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"}, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "count": 3}}]}}}}\n{"time": 0, "pod": "a/nocls", "claim": {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "d"}, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "missing"}}]}}}}\n{"time": 5, "pod": "a/ok", "claim": "tiered.yaml", "runSeconds": 1}\n' \
  >"$tmp/inline.jsonl"
cp tiered.yaml "$tmp/"
"$celc" replay --fleet fleet.yaml --classes classes.yaml --policy cap-off.yaml --format json \
  "$tmp/inline.jsonl" >"$tmp/out.json" 2>"$tmp/err"
check "inline claims: exit 0" $?
same "inline claims: three devices on one node and a missing class: unschedulable" \
  '[.claims, (.policies[0].tenants[0] | .pods, .placed, .unschedulable, .firstChoiceRate)]' '[3,3,1,2,1]'
# their records: a try no node can answer (tier null; the missing class an error on the 3
# nodes), tried again when a/ok leaves at 6, and pending at the end
"$celc" replay --fleet fleet.yaml --classes classes.yaml --policy cap-off.yaml --format jsonl \
  "$tmp/inline.jsonl" >"$tmp/rec.jsonl"
check "records: unschedulable pods try with no tier (errors counted) and end pending" \
  "$(r=$(jq -r 'select(.pod != "a/ok") | "\(.time) \(.pod) \(.event) \(.tier) \(.errorNodes)"' "$tmp/rec.jsonl" | tr '\n' ','); [ "$r" = "0 a/big arrive null null,0 a/big try null null,0 a/nocls arrive null null,0 a/nocls try null 3,6 a/big try null null,6 a/nocls try null 3,6 a/big pending null null,6 a/nocls pending null null," ]; echo $?)"

# --- the examples of examples/replay/ run, and docs/fairness.md shows their numbers
ex=../../examples/replay
for t in steady burst; do
  "$celc" replay --fleet "$ex/fleet.yaml" --classes ../../examples/classes --policy "$ex/policy-shadow.yaml" \
    --policy "$ex/policy-enforce.yaml" "$ex/$t.jsonl" >"$tmp/$t.txt" 2>"$tmp/err"
  check "examples/replay/$t.jsonl: exit 0" $?
  comment <"$tmp/err"
  # every line of the text report's A-against-B table is in docs/fairness.md
  sed -n '/^A against B:$/,$p' "$tmp/$t.txt" | sed '1d' >"$tmp/$t.cmp"
  miss=0
  while IFS= read -r line; do grep -qF -- "$line" ../../docs/fairness.md || { miss=1; echo "# not in docs/fairness.md: $line"; }; done <"$tmp/$t.cmp"
  check "docs/fairness.md shows the comparison of examples/replay/$t.jsonl as the tool prints it" $miss
done

# --- bad input
bad() { # name, want-rc, want-stderr-regexp, args...
  name=$1; want=$2; re=$3; shift 3
  "$celc" replay "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ "$rc" = "$want" ] && grep -q -- "$re" "$tmp/err"; then check "$name" 0; else
    check "$name" 1; echo "# exit $rc (want $want)"; comment <"$tmp/err"; fi
}
B="--fleet fleet.yaml --classes classes.yaml --policy cap-enforce.yaml"
t=$tmp/t.jsonl
printf '{"time": 0, "pod": "a/p", "claim": "tiered.yaml"}\n{"time": 1, "pod": "a/q" "claim": "x"}\n' >"$t"
bad "a JSON syntax error: FILE:LINE:COL" 1 "^dra-celc: $t:2:26: JSON syntax error$" $B "$t"
printf '{"time": 0, "pod": "a/p", "claim": "tiered.yaml", "run": 3}\n' >"$t"
bad "an unknown field" 1 "^dra-celc: $t:1: unknown field \"run\"$" $B "$t"
printf '\n# a comment\n{"time": -1, "pod": "a/p", "claim": "tiered.yaml"}\n' >"$t"
bad "a negative time" 1 "^dra-celc: $t:3: time: must be a number of seconds from 0 to 1e12, not -1$" $B "$t"
printf '{"time": 1000000000001, "pod": "a/p", "claim": "tiered.yaml"}\n' >"$t"
bad "a time past 1e12, named as written" 1 "^dra-celc: $t:1: time: must be a number of seconds from 0 to 1e12, not 1000000000001$" $B "$t"
printf '{"time": 0, "pod": "a/p", "claim": "tiered.yaml", "runSeconds": -0.1}\n' >"$t"
bad "a negative run time, named as written" 1 "^dra-celc: $t:1: runSeconds: must be a number of seconds above 0 and at most 1e12, not -0.1$" $B "$t"
printf '{"time": 1, "pod": "a/p", "claim": "tiered.yaml", "runSeconds": 0}\n' >"$t"
bad "runSeconds 0" 1 "^dra-celc: $t:1: runSeconds: must be a number of seconds above 0" $B "$t"
printf '{"time": 1, "pod": "A/p", "claim": "tiered.yaml"}\n' >"$t"
bad "a pod that is not NAMESPACE/NAME" 1 "^dra-celc: $t:1: pod: \"A/p\" is not NAMESPACE/NAME" $B "$t"
printf '{"time": 1, "pod": "a/p", "claim": "tiered.yaml", "labels": {"k": 1}}\n' >"$t"
bad "a label that is not a string" 1 "^dra-celc: $t:1: labels\[\"k\"\]: must be a string, not a number$" $B "$t"
printf '{"time": 1, "pod": "a/p", "claim": 7}\n' >"$t"
bad "a claim that is neither a path nor an object" 1 "^dra-celc: $t:1: claim: must be a path or an object, not a number$" $B "$t"
printf '{"time": 1, "time": 2, "pod": "a/p", "claim": "x"}\n' >"$t"
bad "a field given twice" 1 "^dra-celc: $t:1: field \"time\" given twice$" $B "$t"
printf '[1]\n' >"$t"
bad "a line that is not an object" 1 "^dra-celc: $t:1: a trace line is a JSON object, not a list$" $B "$t"
printf '{"time": 1, "pod": "a/p", "claim": "tiered.yaml"} 3\n' >"$t"
bad "two values on a line" 1 "^dra-celc: $t:1:51: more than one JSON value on the line$" $B "$t"
printf '{"time": 1, "pod": "a/p", "claim": "missing.yaml"}\n' >"$t"
bad "a claim file that cannot be read: exit 2" 2 "^dra-celc: $t:1: claim: $tmp/missing.yaml: " $B "$t"
printf '{"time": 1, "pod": "a/p", "claim": {"kind": "ResourceClaim", "metadata": {"name": "c"}, "spec": {"devices": {"requests": [{"name": "Gpu", "exactly": {"deviceClassName": "x"}}]}}}}\n' >"$t"
bad "an inline claim Kubernetes would reject: at its trace line" 1 "^dra-celc: $t:1: ResourceClaim c: spec.devices.requests\[0\].name: " $B "$t"
printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x}\n' >"$tmp/cls.yaml"
printf '{"time": 1, "pod": "a/p", "claim": "cls.yaml"}\n' >"$t"
bad "a claim file without a claim" 1 "^dra-celc: $t:1: claim: $tmp/cls.yaml: no ResourceClaim or ResourceClaimTemplate$" $B "$t"
printf '{"time": 1, "pod": "a/p", "claim": "tiered.yaml"}\n{"time": 2, "pod": "a/q", "claim": "tiered.yaml"}\n' >"$t"
bad "--max-pods" 1 "^dra-celc: $t:2: more than 1 pods (--max-pods)$" $B --max-pods 1 "$t"
printf '{"time": 1, "pod": "a/p", "claim": "tiered.yaml"}\n{"time": 2, "pod": "a/q", "claim": "h100-only.yaml"}\n' >"$t"
cp h100-only.yaml "$tmp/"
bad "--max-claims" 1 "^dra-celc: $t:2: claim: more than 1 distinct claims (--max-claims)$" $B --max-claims 1 "$t"
"$celc" replay $B --max-claims 2 "$t" >/dev/null 2>&1
check "--max-claims 2 takes two claims" $?
printf 'apiVersion: dracel.dev/v1alpha1\nkind: TierPolicy\nversion: v\nmode: sometimes\n' >"$tmp/p.yaml"
bad "a policy that is rejected: FILE:LINE:COL" 1 "^dra-celc: $tmp/p.yaml:4:7: mode: must be enforce, shadow or off" \
  --fleet fleet.yaml --classes classes.yaml --policy "$tmp/p.yaml" mix.jsonl
"$celc" replay --fleet fleet.yaml --classes classes.yaml --policy "$tmp/p.yaml" --format json mix.jsonl >"$tmp/out" 2>/dev/null
jq -e '.error and .diagnostics[0].line == 4' "$tmp/out" >/dev/null
check "a rejected policy with --format json: the error object on stdout" $?
bad "an unreadable trace: exit 2" 2 "missing.jsonl" $B missing.jsonl
bad "an unreadable policy: exit 2" 2 "nothere.yaml" --fleet fleet.yaml --classes classes.yaml --policy nothere.yaml mix.jsonl
bad "no --policy: exit 2" 2 "replay needs --fleet, --classes, --policy and a TRACE" --fleet fleet.yaml --classes classes.yaml mix.jsonl
bad "three policies: exit 2" 2 "at most two --policy" $B --policy cap-shadow.yaml --policy cap-off.yaml mix.jsonl
bad "an unknown format: exit 2" 2 "unknown format 'yaml'" $B --format yaml mix.jsonl
bad "--max-pods 0: exit 2" 2 "--max-pods needs a count" $B --max-pods 0 mix.jsonl
bad "an unknown option: exit 2" 2 "unknown option '--pol'" --pol x mix.jsonl
bad "a bad --features: exit 2" 2 "unknown feature 'Nope'" $B --features Nope mix.jsonl
bad "--features without DRAPrioritizedList: a note for a claim with firstAvailable (issue 23)" 0 \
  "^dra-celc: note: tiered.yaml: firstAvailable needs the DRAPrioritizedList feature, which --features or --feature-gates leaves out: its pods are unschedulable$" \
  $B --features AdminAccess mix.jsonl
check "...once for the claim, not for each of its 8 pods, which are all unschedulable" \
  "$([ "$(grep -c DRAPrioritizedList "$tmp/err")" = 1 ] && grep -q '^  8 pods: 0 placed, 8 unschedulable' "$tmp/out"; echo $?)"
# --kubernetes-version and --feature-gates, read as allocate and explain read them: the release's
# gates, Kubernetes' own messages for an unknown or a locked gate (DRAPrioritizedList is GA and
# locked on in 1.37; beta in 1.34, where kube-scheduler's --feature-gates may turn it off)
bad "--kubernetes-version 1.33: exit 2" 2 "unknown Kubernetes release '1.33' (known: 1.34, 1.35, 1.36, 1.37)" \
  $B --kubernetes-version 1.33 mix.jsonl
bad "--feature-gates with an unknown gate: exit 2, Kubernetes' message" 2 \
  "^dra-celc: --feature-gates: unrecognized feature gate: DRANope$" $B --feature-gates DRANope=true mix.jsonl
bad "--feature-gates DRAPrioritizedList=false in 1.37: exit 2, locked" 2 \
  "^dra-celc: --feature-gates: cannot set feature gate DRAPrioritizedList to false, feature is locked to true$" \
  $B --feature-gates DRAPrioritizedList=false mix.jsonl
bad "--kubernetes-version 1.34 --feature-gates DRAPrioritizedList=false: the gate is off" 0 \
  "DRAPrioritizedList feature, which --features or --feature-gates leaves out" \
  $B --kubernetes-version 1.34 --feature-gates DRAPrioritizedList=false mix.jsonl
check "...its claim's 8 pods unschedulable" "$(grep -q '^  8 pods: 0 placed, 8 unschedulable' "$tmp/out"; echo $?)"
"$celc" replay $B mix.jsonl >"$tmp/r37" 2>/dev/null
"$celc" replay $B --kubernetes-version 1.37 mix.jsonl >"$tmp/r37b" 2>/dev/null
check "--kubernetes-version 1.37 is the default" "$(cmp -s "$tmp/r37" "$tmp/r37b"; echo $?)"
# Where pods went by default (issue 23, item 6): default-why.jsonl has 6 pods; team-a has a/p1
# (namespace a), research d/p4 (its label); the other four are the default tenant's (others):
# namespace c twice, e once (no tenant names them), and d/p3, whose tenant label is misspelt
# (reserch: the key of research's podLabel with a value no tenant has). Most pods first, then
# namespaces before labels.
replay --policy default-why.yaml default-why.jsonl >"$tmp/out" 2>"$tmp/err"
sed -n '/^  pods of the default tenant/,/^  fallback/p' "$tmp/out" >"$tmp/dflt"
cat >"$tmp/want" <<'WANT'
  pods of the default tenant others by default (no tenant has them):
    namespace c: 2 pods (no tenant names it)
    namespace e: 1 pod (no tenant names it)
    label dracel.dev/tenant=reserch: 1 pod (a tenant's podLabel key, a value no tenant has)
  fallback rate (placed pods that got the tier below their first choice):
WANT
cmp -s "$tmp/dflt" "$tmp/want"
check "default tenant: each namespace no tenant names and each mistyped tenant label, with its pods" $?
cmp -s "$tmp/dflt" "$tmp/want" || diff "$tmp/want" "$tmp/dflt" | comment
check "...the tenant table counts the same 4 pods for others" \
  "$(grep -Eq '^  others +4 ' "$tmp/out"; echo $?)"
replay --policy default-why.yaml --format json default-why.jsonl >"$tmp/out.json" 2>/dev/null
same "default tenant in JSON: defaultTenant and every reason of defaulted" \
  '.policies[0] | [.defaultTenant, .defaulted]' \
  '["others",[{"reason":"namespace","namespace":"c","pods":2},{"reason":"namespace","namespace":"e","pods":1},{"reason":"label","label":"dracel.dev/tenant","value":"reserch","pods":1}]]'
replay --policy default-why.yaml --format html default-why.jsonl >"$tmp/out.html" 2>/dev/null
grep -q '<p class="defaults">Pods of the default tenant others by default (no tenant has them): namespace <code>c</code> 2 pods, namespace <code>e</code> 1 pod, label <code>dracel.dev/tenant=reserch</code> 1 pod.</p>' "$tmp/out.html"
check "default tenant in HTML: one paragraph under the tenant table" $?
replay --policy cap-enforce.yaml --format json mix.jsonl >"$tmp/out.json" 2>/dev/null
same "mix.jsonl: its 3 pods of namespace c (p6, p7, p8) are the default tenant's by namespace" \
  '.policies[0] | [.defaultTenant, .defaulted]' '["default",[{"reason":"namespace","namespace":"c","pods":3}]]'
replay --policy cap-enforce.yaml --format json queue.jsonl >"$tmp/out.json" 2>/dev/null
same "queue.jsonl: no pod of the default tenant, defaulted is empty" '.policies[0].defaulted' '[]'
replay --policy cap-enforce.yaml queue.jsonl >"$tmp/out" 2>/dev/null
check "...and the text has no such line" "$(! grep -q 'by default' "$tmp/out"; echo $?)"

"$celc" replay --help >"$tmp/out" 2>&1 && grep -q '^usage: dra-celc replay --fleet PATH' "$tmp/out"
check "--help" $?

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
