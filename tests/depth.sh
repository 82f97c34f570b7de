#!/bin/sh
# tests/depth.sh: --max-depth's maximum (10000) is reachable by every command on the default
# 8 MiB stack: expressions nested as deep as it allows, of every shape a walk recurses on
# (chains of binary operators, calls, conversions, lists, maps, ?:, selections, indexes,
# has(), unary operators, parentheses, &&), through parse, check (the cost estimate included),
# eval (plain, unchecked, on a device, over a fleet) and disasm (compile and fold). Each must end
# in an answer or a diagnostic (exit 0 or 1), never a crash, within 4 GB of memory. Macros
# at the maximum are tests/depth-macros.sh's. Sanitizer builds (larger frames) get a 64 MiB
# stack and no memory limit. TAP output.
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
echo "1..$count"
[ "$failed" = 0 ]
