#!/bin/sh
# Allocation scenarios: runs `dra-celc allocate` on every tests/alloc/*.yaml (sorted) and compares
# the result with the .out file beside it. TAP output.
#
# A scenario is one YAML file; its expected stdout is NAME.out. The exit status must be 0, or 1
# when the expected outcome is an error. If the scenario's first line is
#   # expect-error-substring: TEXT
# only line 1 of stdout is checked: it must start like line 1 of the .out file ("error: " for an
# error that aborts the scheduling attempt, "error (node-local): " for a node-local one) and contain
# TEXT, since our exact wording of Kubernetes' messages is not pinned. Otherwise stdout must equal
# the .out file byte for byte. A header comment line
#   # args: --explain --kubernetes-version 1.35
# (among the scenario's first lines of comments) adds those arguments to `dra-celc allocate`.
# Needs $DRA_CELC (set by make check; falls back to ./dra-celc).
set -u
LC_ALL=C
export LC_ALL
celc=${DRA_CELC:-./dra-celc}
src=${top_srcdir:-.}
dir=$src/tests/alloc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; failed=0

check() { # name, condition result (0 ok)
  n=$((n + 1))
  if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}
comment() { # [PREFIX]: print stdin as TAP comments, at most 20 lines
  head -n 20 | sed "s/^/# ${1:-}/"
}

# Every scenario has its expected output.
missing=
for f in "$dir"/*.yaml; do
  [ -e "$f" ] || continue
  [ -f "${f%.yaml}.out" ] || missing="$missing $(basename "$f")"
done
if [ -n "$missing" ]; then
  echo "# scenarios without a .out file:$missing"
fi
check "every alloc scenario has a .out file" "$([ -z "$missing" ]; echo $?)"

for f in "$dir"/*.yaml; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .yaml)
  exp=${f%.yaml}.out
  [ -f "$exp" ] || continue
  args=$(sed -n '/^#/!q; s/^# args: //p' "$f" | head -n 1)
  # shellcheck disable=SC2086 # the arguments are words
  "$celc" allocate "$f" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
  first=$(head -n 1 "$f")
  why=
  case $first in
  '# expect-error-substring: '*)
    text=${first#'# expect-error-substring: '}
    want1=$(head -n 1 "$exp")
    got1=$(head -n 1 "$tmp/out")
    case $want1 in
    'error (node-local): '*) prefix='error (node-local): ' ;;
    *) prefix='error: ' ;;
    esac
    [ "$rc" = 1 ] || why="exit status $rc, expected 1"
    case $got1 in
    "$prefix"*) ;;
    *) why="${why:+$why; }line 1 does not start with '$prefix'" ;;
    esac
    case $got1 in
    *"$text"*) ;;
    *) why="${why:+$why; }line 1 does not contain '$text'" ;;
    esac
    if [ -n "$why" ]; then
      echo "# $name: $why"
      echo "# got:      $got1"
      echo "# expected: $want1"
      comment "stderr: " <"$tmp/err"
    fi
    ;;
  *)
    case $(head -n 1 "$exp") in
    error*) want_rc=1 ;;
    *) want_rc=0 ;;
    esac
    [ "$rc" = "$want_rc" ] || why="exit status $rc, expected $want_rc"
    cmp -s "$exp" "$tmp/out" || why="${why:+$why; }output differs"
    if [ -n "$why" ]; then
      echo "# $name: $why"
      diff -u "$exp" "$tmp/out" 2>&1 | comment
      comment "stderr: " <"$tmp/err"
    fi
    ;;
  esac
  check "allocate $name" "$([ -z "$why" ]; echo $?)"
done

echo "1..$n"
[ "$failed" = 0 ]
