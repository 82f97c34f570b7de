#!/bin/sh
# tests/lint.sh: `dra-celc lint` on the corpus of tests/lint/ (TAP). Each NAME.yaml or
# NAME.json holds broken and correct examples of some rules (docs/lint.md); NAME.out is the
# expected standard output of `dra-celc lint [ARGS] tests/lint/NAME.yaml`, run from the source
# tree, where ARGS is the text after "# lint-args: " on a line of the file, if any. The exit
# status must be 1 when the .out has an error finding, else 0. For each file the JSON output
# must agree with the text (the same findings in the same order, the contract's keys) and the
# SARIF output must hold them as results (its validation against the SARIF 2.1.0 schema is
# scripts/sarif-check, which fetches the validators: `make sarif-check`). Then the examples of
# examples/, the exit statuses of --fail-on, --disable, usage errors and unreadable input.
# Needs $DRA_CELC (set by make check) and jq.
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
cd "$src" || exit 1

# `dra-celc lint ARGS...` into $tmp/out, $tmp/err, $rc
run() { "$celc" lint "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

missing=
for f in tests/lint/*.yaml tests/lint/*.json; do
  [ -f "${f%.*}.out" ] || missing="$missing $f"
done
[ -z "$missing" ] || echo "# without a .out file:$missing"
check "every file of tests/lint has its .out" "$([ -z "$missing" ]; echo $?)"

for f in tests/lint/*.yaml tests/lint/*.json; do
  exp=${f%.*}.out
  [ -f "$exp" ] || continue
  args=$(sed -n 's/^# lint-args: //p' "$f" | head -n 1)
  # shellcheck disable=SC2086
  run $args "$f"
  want=0
  grep -q '^[^ ].*:[0-9]*:[0-9]*: error: ' "$exp" && want=1
  if cmp -s "$tmp/out" "$exp" && [ "$rc" = "$want" ]; then
    check "$f" 0
  else
    check "$f" 1
    echo "# exit status $rc (expected $want); diff expected actual:"
    diff "$exp" "$tmp/out" | comment
    comment <"$tmp/err"
  fi
  # JSON: the same findings, with the contract's keys
  # shellcheck disable=SC2086
  "$celc" lint --format json $args "$f" >"$tmp/json" 2>/dev/null; jrc=$?
  grep '^[^ ].*:[0-9]*:[0-9]*: \(error\|warning\|note\): ' "$tmp/out" >"$tmp/heads"
  jq -r '.findings[] | "\(.file):\(.line):\(.column): \(.severity): \(.message) [\(.rule)]"' \
    "$tmp/json" >"$tmp/jheads" 2>"$tmp/jerr"
  keys=$(jq -c '[.findings[] | keys] | unique' "$tmp/json" 2>/dev/null)
  ok=1
  if cmp -s "$tmp/heads" "$tmp/jheads" && [ "$jrc" = "$rc" ] &&
     jq -e '(.files | type) == "number" and (.objects | type) == "number"' "$tmp/json" >/dev/null &&
     { [ "$keys" = '[]' ] || [ "$keys" = '[["column","file","hint","line","message","rule","severity"]]' ]; }; then
    ok=0
  fi
  check "$f: --format json" "$ok"
  [ "$ok" = 0 ] || { diff "$tmp/heads" "$tmp/jheads" | comment; echo "# keys $keys rc $jrc"; }
  # SARIF: one result per finding, at the same place
  # shellcheck disable=SC2086
  "$celc" lint --format sarif $args "$f" >"$tmp/sarif" 2>/dev/null
  jq -r '.runs[0].results[] | "\(.locations[0].physicalLocation.artifactLocation.uri):\(.locations[0].physicalLocation.region.startLine):\(.locations[0].physicalLocation.region.startColumn): \(.level) [\(.ruleId)]"' \
    "$tmp/sarif" >"$tmp/sheads" 2>/dev/null
  sed 's/^\([^ ]*:[0-9]*:[0-9]*: [a-z]*\): .* \[\([a-z-]*\)\]$/\1 [\2]/' "$tmp/heads" >"$tmp/hs"
  ok=1
  cmp -s "$tmp/hs" "$tmp/sheads" &&
    jq -e '.version == "2.1.0" and (.runs[0].tool.driver.rules | length) > 20' "$tmp/sarif" >/dev/null &&
    ok=0
  check "$f: --format sarif" "$ok"
  [ "$ok" = 0 ] || diff "$tmp/hs" "$tmp/sheads" | comment
done

# The examples: the sample template reads memory without a guard in its A100 tier (a warning),
# with and without the fleet.
run examples/
cmp -s "$tmp/out" tests/lint/examples.out && [ "$rc" = 0 ]
check "examples/ (tests/lint/examples.out)" $?
[ "$rc" = 0 ] && cmp -s "$tmp/out" tests/lint/examples.out || diff tests/lint/examples.out "$tmp/out" | comment
run --slices examples/fleet --classes examples/classes examples/claims
cmp -s "$tmp/out" tests/lint/examples-fleet.out && [ "$rc" = 0 ]
check "examples/claims with the fleet (tests/lint/examples-fleet.out)" $?
cmp -s "$tmp/out" tests/lint/examples-fleet.out || diff tests/lint/examples-fleet.out "$tmp/out" | comment
run examples/
grep -q '^dra-celc: note: examples/fleet/h100-nodes.yaml:2: skipped object of kind ResourceSlice (node-h100-a-gpu)$' "$tmp/err"
check "other kinds are skipped with a note on stderr" $?
grep -q '^dra-celc: lint: 0 errors, 0 warnings, 3 notes in 17 files (6 objects)$' "$tmp/err"
check "the summary line on stderr" $?

# --fail-on
run --fail-on warning examples/claims
check "--fail-on warning: a warning fails (exit 1)" "$([ "$rc" = 1 ]; echo $?)"
run --fail-on note tests/lint/12-correct.yaml
check "--fail-on note: nothing to report is exit 0" "$([ "$rc" = 0 ] && [ ! -s "$tmp/out" ]; echo $?)"
run --fail-on note tests/lint/05-regex-types.yaml --disable quantity-compare,regex-invalid,regex-unanchored \
  --disable version-string --disable regex-not-constant
check "--disable, repeated and comma-separated: nothing left" "$([ "$rc" = 0 ] && [ ! -s "$tmp/out" ]; echo $?)"
run --disable regex-not-constant --fail-on warning tests/lint/05-regex-types.yaml
check "--disable one rule: the others stay" "$([ "$rc" = 1 ] && ! grep -q regex-not-constant "$tmp/out" && grep -q regex-invalid "$tmp/out"; echo $?)"

# standard input
"$celc" lint - <tests/lint/02-contradiction.yaml >"$tmp/out" 2>/dev/null; rc=$?
check "- reads standard input (named <stdin>)" "$([ "$rc" = 1 ] && grep -q '^<stdin>:20:27: error: ' "$tmp/out"; echo $?)"

# usage and unreadable input: exit 2
for a in "" "--format yaml x.yaml" "--fail-on fatal x.yaml" "--field-validation loose x.yaml" "--bogus x.yaml" "--disable no-such-rule examples/claims" \
         "--slices" "no/such/file.yaml" "--slices no/such/dir examples/claims" "--classes no/such/dir examples/claims" \
         "--slices tests/lint/07-syntax.yaml examples/claims"; do
  # shellcheck disable=SC2086
  run $a
  check "exit 2: lint $a" "$([ "$rc" = 2 ] && [ -s "$tmp/err" ]; echo $?)"
done
run --list-rules
check "--list-rules lists every rule of docs/lint.md" \
  "$([ "$rc" = 0 ] && [ "$(wc -l <"$tmp/out")" -ge 20 ] && for r in $(cut -d' ' -f1 "$tmp/out"); do grep -q "^### \`$r\`" docs/lint.md || exit 1; done; echo $?)"

echo "1..$n"
[ "$failed" = 0 ]
