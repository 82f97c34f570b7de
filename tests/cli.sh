#!/bin/sh
# Integration tests of the dra-celc program: formats, exit codes, files, limits. TAP output.
# Needs $DRA_CELC (set by make check) and python3 only for checking JSON, when present.
set -u
celc=${DRA_CELC:-./dra-celc}
src=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; failed=0

check() { # name, condition result (0 ok)
  n=$((n + 1))
  if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}
# run ARGS...: sets rc, out, err
run() {
  "$celc" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
}
is() { [ "$1" = "$2" ]; echo $?; }

run parse -e '1 + 2 * 3'
check "parse prints the AST" "$(is "$rc:$out" "0:(_+_ 1 (_*_ 2 3))")"

run parse -e 'device.attributes["gpu.example.com"].model == "H100"'
check "parse a selector" "$(is "$out" '(_==_ (. (_[_] (. device attributes) "gpu.example.com") model) "H100")')"

run parse -e '1 +'
check "syntax error exits 1" "$(is "$rc" 1)"
check "syntax error on stderr in cel-go's format" \
  "$(printf '%s\n' "$err" | head -n 1 | grep -q '^ERROR: <input>:1:4: ' ; echo $?)"
check "caret line" "$(is "$(printf '%s\n' "$err" | sed -n 3p)" ' | ...^')"
check "nothing on stdout for a rejected input" "$(is "$out" "")"

run parse -e '1 +' --format json
check "json diagnostics exit 1" "$(is "$rc" 1)"
if command -v python3 >/dev/null 2>&1; then
  printf '%s' "$out" | python3 -c '
import json, sys
v = json.loads(sys.stdin.read())
d = v["diagnostics"][0]
assert v["error"] == d["message"], v
assert (d["severity"], d["source"], d["line"], d["column"]) == ("error", "<input>", 1, 4), d
' 2>/dev/null
  check "json diagnostics shape" $?
  run parse -e 'a.b' --format json
  printf '%s' "$out" | python3 -c 'import json,sys; assert json.loads(sys.stdin.read()) == {"ast": "(. a b)"}' 2>/dev/null
  check "json AST" $?
fi

printf 'a &&\n  (b ||' >"$tmp/sel.cel"
run parse -f "$tmp/sel.cel"
check "file diagnostics name the file" \
  "$(printf '%s\n' "$err" | head -n 1 | grep -q "^ERROR: $tmp/sel.cel:2:8: " ; echo $?)"

printf 'x.y' | "$celc" parse -f - >"$tmp/out" 2>&1
check "stdin with -f -" "$(is "$(cat "$tmp/out")" "(. x y)")"

run parse
check "no expression is a usage error (2)" "$(is "$rc" 2)"
run parse -e x -f y
check "both -e and -f is a usage error" "$(is "$rc" 2)"
run parse -e x --bogus
check "unknown option is a usage error" "$(is "$rc" 2)"
run frobnicate
check "unknown command is a usage error" "$(is "$rc" 2)"
run parse -f "$tmp/does-not-exist"
check "unreadable file is exit 2" "$(is "$rc" 2)"
run parse -e x --max-depth 0
check "a zero limit is a usage error" "$(is "$rc" 2)"
run parse -e x --format yaml
check "bad --format is a usage error" "$(is "$rc" 2)"
run parse --help
check "parse --help exits 0" "$(is "$rc" 0)"

run parse -e '[[[[1]]]]' --max-depth 3
check "--max-depth is applied" "$(is "$rc" 1)"
check "--max-depth message" "$(printf '%s' "$err" | grep -q 'recursion limit exceeded: 3'; echo $?)"
run parse -e '1 + 1' --max-length 4
check "--max-length is applied" \
  "$(is "$rc:$(printf '%s\n' "$err" | head -n 1)" "1:ERROR: <input>:1:1: expression size exceeds limit: size: 5 bytes, limit 4")"
run parse -e 'a + b + c' --max-nodes 3
check "--max-nodes is applied" "$(is "$rc" 1)"
run parse -e '1 + + + ) ( 2' --max-errors 1
check "--max-errors caps the list" "$(printf '%s\n' "$err" | grep -c '^ERROR' | grep -q '^1$'; echo $?)"

# Hostile inputs through the program: bounded, clean diagnostics.
python3 -c 'print("(" * 100000)' >"$tmp/deep.cel" 2>/dev/null || awk 'BEGIN{for(i=0;i<100000;i++)printf "(";print ""}' >"$tmp/deep.cel"
run parse -f "$tmp/deep.cel" --max-length 200000
check "100,000 open parentheses: a diagnostic, exit 1" "$(is "$rc" 1)"
head -c 3000 /dev/urandom >"$tmp/random.bin" 2>/dev/null
run parse -f "$tmp/random.bin"
check "random bytes: rejected, no crash" "$( [ "$rc" = 1 ] ; echo $?)"

for f in "$src"/examples/selectors/*.cel; do
  run parse -f "$f"
  check "sample selector $(basename "$f") parses" "$(is "$rc" 0)"
done

# A full stdout is an I/O error (exit 2), not a silent success.
if [ -w /dev/full ]; then
  for fmt in text json; do
    "$celc" check -e 'device.driver == "x"' --format $fmt >/dev/full 2>/dev/null; rc=$?
    check "check --format $fmt to a full disk exits 2" "$(is "$rc" 2)"
  done
fi

echo "1..$n"
[ "$failed" = 0 ]
