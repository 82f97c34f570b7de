#!/bin/sh
# The manual pages dra-celc(1), dra-extender(1) and dracel(3) (man/, mdoc): clean under
# `mandoc -Tlint` (but for the cross-references between them, which mandoc looks for among the
# installed pages); dra-celc(1) names every command of `dra-celc --help` and every option that
# `dra-celc COMMAND --help` prints, dra-extender(1) every option of `dra-extender --help`;
# every function dracel(3) names is declared in dracel.h.
# TAP output; skips when mandoc is not installed (scripts/deps installs it).
set -u
src=${top_srcdir:-.}
page=$src/man/dra-celc.1
celc=${DRA_CELC:-./dra-celc}
if ! command -v mandoc >/dev/null 2>&1; then
  echo "1..0 # SKIP mandoc is not installed"
  exit 0
fi
n=0; failed=0
check() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi; }
for p in "$page" "$src/man/dracel.3" "$src/man/dra-extender.1"; do
  lint=$(mandoc -Tlint "$p" 2>&1 | grep -v 'STYLE: referenced manual not found: Xr \(dra-celc 1\|dracel 3\|dra-extender 1\)')
  [ -n "$lint" ] && printf '%s\n' "$lint" | sed 's/^/# /'
  check "mandoc -Tlint $p is clean" "$([ -z "$lint" ]; echo $?)"
done
missing=
for f in $(sed -n 's/^\.Fn \(dracel_[a-z_0-9]*\).*/\1/p' "$src/man/dracel.3" | sort -u); do
  grep -q "\b$f\b" "$src/include/dracel.h" || missing="$missing $f"
done
[ -n "$missing" ] && echo "# not in dracel.h:$missing"
check "every function dracel(3) names is in dracel.h" "$([ -z "$missing" ]; echo $?)"
if [ -x "$celc" ]; then
  cmds=$("$celc" --help | sed -n 's/^  \([a-z][a-z]*\)  *.*/\1/p')
  for c in $cmds; do
    check "the page has the command $c" "$(grep -q "^\.Cm $c\$\|^\.It Cm $c\$" "$page"; echo $?)"
    for o in $("$celc" "$c" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
      o=${o#--}
      check "the page has $c --$o" "$(grep -q "Fl -$o\\b" "$page"; echo $?)"
    done
  done
fi
# dra-extender(1) has every option of `dra-extender --help` (when the extender is built).
ext=${DRA_EXTENDER:-./dra-extender}
if [ -x "$ext" ]; then
  for o in $("$ext" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    o=${o#--}
    check "dra-extender(1) has --$o" "$(grep -q "Fl -$o\\b" "$src/man/dra-extender.1"; echo $?)"
  done
fi
echo "1..$n"
[ "$failed" = 0 ]
