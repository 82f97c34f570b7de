#!/bin/sh
# tests/depth.sh: --max-depth's maximum (10000) is reachable by every command on the default
# 8 MiB stack: expressions nested as deep as it allows, of every shape a walk recurses on
# (chains of binary operators, calls, conversions, lists, maps, ?:, selections, indexes,
# has(), unary operators, parentheses, &&), through parse, check (the cost estimate included),
# eval (plain, unchecked, on a device, over a fleet) and disasm (compile and fold). Each must end
# in an answer or a diagnostic (exit 0 or 1), never a crash, within 4 GB of memory.
# Then every macro nested at exactly the maximum (the deepest the parser accepts, checked by one
# level more being refused): all, exists, exists_one and their two-variable forms, map with 2
# and 3 arguments (the transform nested, and the filter), filter, a chain of maps,
# transformList, transformMap (with and without a filter), transformMapEntry, cel.bind (body
# and initializer), has, optional selection and index chains, optMap, optFlatMap, sortBy;
# their expansions are up to five times as deep as the AST (src/cost.c, "The walk"). These run
# through parse (text and JSON), check, eval (text and JSON), eval --no-check and disasm, and
# must succeed or give the documented depth error (`expression recursion limit exceeded:
# 10000`), nothing else. Sanitizer builds (larger frames) get a 64 MiB stack and no memory
# limit. TAP output.
set -u
celc=${DRA_CELC:-./dra-celc}
src=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stack=8192
[ -n "${DRACEL_SANITIZED:-}" ] && stack=65536
n=9990
# rep TEXT N: TEXT N times
rep() { awk -v t="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", t }'; }
# join TEXT SEP N: TEXT N times, separated by SEP
join() { awk -v t="$1" -v s="$2" -v n="$3" 'BEGIN { for (i = 0; i < n; i++) printf "%s%s", (i ? s : ""), t }'; }
{ join '"x"' '+' $n; printf ' == "x"'; } >"$tmp/concat"
{ join 'i' '+' $n; printf ' > 0'; } >"$tmp/intchain"
{ rep 'int(' $n; printf '1'; rep ')' $n; printf ' == 1'; } >"$tmp/conv"
{ rep 'string(' $n; printf '"x"'; rep ')' $n; printf ' == "x"'; } >"$tmp/calls"
{ rep '[' $((n - 2)); printf '1'; rep ']' $((n - 2)); printf ' == []'; } >"$tmp/lists"
{ rep '{1: ' $((n - 2)); printf '1'; rep '}' $((n - 2)); printf ' == {}'; } >"$tmp/maps"
{ rep 'b ? 1 : ' $((n - 2)); printf '2 == 2'; } >"$tmp/ternary"
{ printf 'm'; rep '.a' $((n - 2)); printf ' == 1'; } >"$tmp/member"
{ printf 'l'; rep '[0]' $((n - 2)); printf ' == 1'; } >"$tmp/index"
{ printf 'has(m'; rep '.a' $((n - 3)); printf ')'; } >"$tmp/has"
{ rep '!' $n; printf 'b'; } >"$tmp/not"
{ rep '-' $((n - 1)); printf 'i == 1'; } >"$tmp/neg"
{ join 'b' ' && ' $n; } >"$tmp/and"
{ rep '(' $n; printf 'b'; rep ')' $n; } >"$tmp/parens"
{ rep 'device.attributes["gpu.example.com"].model == "H100" || ' $((n / 2 - 2)); printf 'false'; } >"$tmp/selector"
binds='--bind b={"bool":true} --bind i={"int":1} --bind m={"map":[]} --bind l={"list":[]}'
printf '{"driver":"gpu.example.com","name":"gpu-0","attributes":{"model":{"string":"H100"}}}\n' >"$tmp/dev.json"
count=0; failed=0
run() { # NAME ARGS...
  name=$1; shift
  # (no address-space limit under a sanitizer: its shadow memory reserves terabytes)
  ( ulimit -s $stack; [ -n "${DRACEL_SANITIZED:-}" ] || ulimit -v 4000000 2>/dev/null
    "$celc" "$@" --max-depth 10000 --max-length 400000 >/dev/null 2>"$tmp/err" ); rc=$?
  count=$((count + 1))
  # a sanitizer's report (a stack overflow included) exits 1 too: it is a failure
  if { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && ! grep -q 'Sanitizer' "$tmp/err"; then
    echo "ok $count - $name"
  else
    echo "not ok $count - $name: exit $rc"
    head -c 300 "$tmp/err" | sed 's/^/#   /'
    failed=$((failed + 1))
  fi
}
for s in concat intchain conv calls lists maps ternary member index has not neg and parens; do
  run "parse $s" parse -f "$tmp/$s"
  # shellcheck disable=SC2086
  run "check $s" check --env plain -f "$tmp/$s" $binds
  # shellcheck disable=SC2086
  run "eval $s" eval -f "$tmp/$s" $binds
  # shellcheck disable=SC2086
  run "eval --no-check $s" eval --no-check -f "$tmp/$s" $binds
  # shellcheck disable=SC2086
  run "disasm $s" disasm --env plain -f "$tmp/$s" $binds
done
run "check a DRA selector" check -f "$tmp/selector"
run "eval a selector --device" eval -f "$tmp/selector" --device "$tmp/dev.json"
run "eval a selector --slices" eval -f "$tmp/selector" --slices "$src/examples/fleet"

# ---- Macros at exactly the maximum.
# nest PRE INNER POST N: PRE N times (each @ the level, 0 outermost), INNER, POST N times
nest() {
  awk -v p="$1" -v m="$2" -v s="$3" -v n="$4" 'BEGIN {
    for (i = 0; i < n; i++) { t = p; gsub(/@/, i, t); printf "%s", t }
    printf "%s", m
    for (i = n - 1; i >= 0; i--) { t = s; gsub(/@/, i, t); printf "%s", t } }'
}
# shape NAME N: the shape NAME with N levels
shape() {
  case $1 in
  all) nest '[1].all(x@, ' 'x0 == 1' ')' "$2" ;;
  exists) nest '[1].exists(x@, ' 'x0 == 1' ')' "$2" ;;
  exists_one) nest '[1].exists_one(x@, ' 'x0 == 1' ')' "$2" ;;
  all2) nest '[1].all(i@, v@, ' 'v0 == 1' ')' "$2" ;;
  exists2) nest '[1].exists(i@, v@, ' 'v0 == 1' ')' "$2" ;;
  existsOne2) nest '[1].existsOne(i@, v@, ' 'v0 == 1' ')' "$2" ;;
  map) nest '[1].map(x@, ' 'x0' ')' "$2" ;;
  map3) nest '[1].map(x@, x@ == 1, ' 'x0' ')' "$2" ;;
  map3-filter) nest '[1].map(x@, ' '[1]' ' == [1], x@)' "$2" ;;
  filter) nest '[1].filter(x@, ' '[x0]' ' == [1])' "$2" ;;
  map-chain) printf '[1]'; rep '.map(x, x)' "$2" ;;
  transformList) nest '[1].transformList(i@, v@, ' 'v0' ')' "$2" ;;
  transformList4) nest '[1].transformList(i@, v@, i@ == 0, ' 'v0' ')' "$2" ;;
  transformMap) nest '{1: 1}.transformMap(k@, v@, ' 'v0' ')' "$2" ;;
  transformMap4) nest '{1: 1}.transformMap(k@, v@, k@ == 1, ' 'v0' ')' "$2" ;;
  transformMapEntry) nest '{1: 1}.transformMapEntry(k@, v@, {k@: ' 'v0' '})' "$2" ;;
  bind) nest 'cel.bind(x@, @, ' 'x0' ')' "$2" ;;
  bind-init) nest 'cel.bind(x@, ' '1' ', x@ + 1)' "$2" ;;
  has) nest 'has({"a": ' 'true' '}.a)' "$2" ;;
  optional-select) printf '{}'; rep '.?a' "$2" ;;
  optional-index) printf '[]'; rep '[?0]' "$2" ;;
  optMap) nest 'optional.of(@).optMap(x@, ' 'x0' ')' "$2" ;;
  optMap-chain) printf 'optional.of(1)'; rep '.optMap(x, x + 1)' "$2" ;;
  optFlatMap) nest 'optional.of(@).optFlatMap(x@, ' 'optional.of(x0)' ')' "$2" ;;
  sortBy) nest '[1].sortBy(x@, ' '[1]' '.size())' "$2" ;;
  selector) nest '[1].all(x@, ' 'device.driver == "gpu.example.com"' ')' "$2" ;;
  esac
}
# strict NAME ARGS...: exit 0, or exit 1 with the depth error and nothing else
strict() {
  name=$1; shift
  ( ulimit -s $stack; [ -n "${DRACEL_SANITIZED:-}" ] || ulimit -v 4000000 2>/dev/null
    "$celc" "$@" --max-depth 10000 --max-length 1000000 >/dev/null 2>"$tmp/err" ); rc=$?
  count=$((count + 1))
  if ! grep -q 'Sanitizer' "$tmp/err" && { [ "$rc" = 0 ] || { [ "$rc" = 1 ] &&
       [ "$(head -n 1 "$tmp/err" | sed 's/^ERROR: [^ ]* //')" = \
         'expression recursion limit exceeded: 10000' ]; }; }; then
    echo "ok $count - $name"
  else
    echo "not ok $count - $name: exit $rc"
    head -c 300 "$tmp/err" | sed 's/^/#   /'
    failed=$((failed + 1))
  fi
}
# The deepest each shape can be (levels): two brackets a level halve it.
for sk in all:9998 exists:9998 exists_one:9998 all2:9998 exists2:9998 existsOne2:9998 \
          map:9998 map3:9998 map3-filter:4999 filter:4999 map-chain:9998 transformList:9998 \
          transformList4:9998 transformMap:9998 transformMap4:9998 transformMapEntry:4999 \
          bind:9999 bind-init:9998 has:4999 optional-select:9999 optional-index:9999 \
          optMap:9998 optMap-chain:9998 optFlatMap:9998 sortBy:4999 selector:9997; do
  s=${sk%%:*}; k=${sk#*:}
  # K levels parse, K + 1 get the depth error: K is the maximum
  shape "$s" "$k" >"$tmp/m.cel"
  "$celc" parse -f "$tmp/m.cel" --max-depth 10000 --max-length 1000000 >/dev/null 2>&1; at=$?
  shape "$s" $((k + 1)) >"$tmp/m1.cel"
  "$celc" parse -f "$tmp/m1.cel" --max-depth 10000 --max-length 1000000 >/dev/null 2>"$tmp/err"
  count=$((count + 1))
  if [ "$at" = 0 ] &&
     [ "$(head -n 1 "$tmp/err" | sed 's/^ERROR: [^ ]* //')" = 'expression recursion limit exceeded: 10000' ]; then
    echo "ok $count - $s: $k levels are the maximum"
  else
    echo "not ok $count - $s: $k levels are not the maximum (parse of $k: exit $at; of $((k + 1)): $(head -n 1 "$tmp/err"))"
    failed=$((failed + 1))
  fi
  if [ "$s" = selector ]; then
    strict "check a selector of $k nested all" check -f "$tmp/m.cel"
    strict "disasm a selector of $k nested all" disasm -f "$tmp/m.cel"
    strict "eval a selector of $k nested all --device" eval -f "$tmp/m.cel" --device "$tmp/dev.json"
    strict "eval a selector of $k nested all --slices" eval -f "$tmp/m.cel" --slices "$src/examples/fleet"
    continue
  fi
  strict "parse $s x $k" parse -f "$tmp/m.cel"
  strict "parse --format json $s x $k" parse -f "$tmp/m.cel" --format json
  strict "check $s x $k" check --env plain -f "$tmp/m.cel"
  strict "eval $s x $k" eval -f "$tmp/m.cel"
  strict "eval --format json $s x $k" eval -f "$tmp/m.cel" --format json
  strict "eval --no-check $s x $k" eval --no-check -f "$tmp/m.cel"
  strict "disasm $s x $k" disasm --env plain -f "$tmp/m.cel"
done
echo "1..$count"
[ "$failed" = 0 ]
