#!/bin/sh
# tests/depth-macros.sh: every macro nested at exactly --max-depth's maximum (10000), on the
# default 8 MiB stack: the deepest the parser accepts (K levels parse, K + 1 get the depth
# error, so that the test knows it is at the limit) of all, exists, exists_one and their
# two-variable forms, map with 2 and 3 arguments (the transform nested, and the filter),
# filter, a chain of maps, transformList, transformMap (with and without a filter),
# transformMapEntry, cel.bind (body and initializer), has, optional selection and index chains,
# optMap, a chain of optMaps, optFlatMap and sortBy, whose expansions are up to five times as
# deep as the AST (src/cost.c, "The walk"); each through parse, check (the cost estimate
# included), eval, eval --no-check and disasm, those with deep values through eval --format json
# too (the JSON printer), and a DRA selector of nested all through check, disasm, --device and
# --slices. Each must succeed or give the documented depth error (`expression recursion limit
# exceeded: 10000`), nothing else: a signal, a sanitizer report or another diagnostic fails.
# Sanitizer builds (larger frames) get a 64 MiB stack and no memory limit, as in
# tests/depth.sh. TAP output.
set -u
celc=${DRA_CELC:-./dra-celc}
src=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stack=8192
[ -n "${DRACEL_SANITIZED:-}" ] && stack=65536
# rep TEXT N: TEXT N times
rep() { awk -v t="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", t }'; }
printf '{"driver":"gpu.example.com","name":"gpu-0","attributes":{"model":{"string":"H100"}}}\n' >"$tmp/dev.json"
count=0; failed=0
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
  strict "check $s x $k" check --env plain -f "$tmp/m.cel"
  strict "eval $s x $k" eval -f "$tmp/m.cel"
  strict "eval --no-check $s x $k" eval --no-check -f "$tmp/m.cel"
  strict "disasm $s x $k" disasm --env plain -f "$tmp/m.cel"
  case $s in # a value as deep as the expression: the JSON printers too
  map | map3 | transformList | transformList4 | transformMap | transformMap4 | transformMapEntry | optMap)
    strict "eval --format json $s x $k" eval -f "$tmp/m.cel" --format json ;;
  esac
  [ "$s" = map ] && strict "parse --format json $s x $k" parse -f "$tmp/m.cel" --format json
done
echo "1..$count"
[ "$failed" = 0 ]
