#!/bin/sh
# The manual page dra-celc(1) (man/dra-celc.1, mdoc): clean under `mandoc -Tlint`, and it names
# every command of `dra-celc --help` and every option that `dra-celc COMMAND --help` prints.
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
lint=$(mandoc -Tlint "$page" 2>&1); rc=$?
[ -n "$lint" ] && printf '%s\n' "$lint" | sed 's/^/# /'
check "mandoc -Tlint $page is clean" "$([ "$rc" = 0 ] && [ -z "$lint" ]; echo $?)"
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
echo "1..$n"
[ "$failed" = 0 ]
