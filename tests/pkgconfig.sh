#!/bin/sh
# dracel.pc (as configure made it; make install copies it unchanged): users' compile flags are
# dracel's include directory and nothing else (no -I of cJSON, RE2 or libyaml, whose headers
# dracel.h does not include); a static link gets the dependencies. TAP output.
set -u
pc=${PKG_CONFIG:-pkg-config}
dir=${top_builddir:-.}
if ! command -v "$pc" >/dev/null 2>&1 || [ ! -f "$dir/dracel.pc" ]; then
  echo "1..0 # SKIP no $pc or no dracel.pc"
  exit 0
fi
n=0; failed=0
check() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi; }
PKG_CONFIG_PATH=$dir; export PKG_CONFIG_PATH
incdir=$("$pc" --variable=includedir dracel)
cflags=$("$pc" --cflags dracel | sed 's/ *$//')
check "--cflags is -I$incdir only (got: $cflags)" "$([ "$cflags" = "-I$incdir" ]; echo $?)"
cflags=$("$pc" --cflags --static dracel | sed 's/ *$//')
check "--cflags --static is -I$incdir only (got: $cflags)" "$([ "$cflags" = "-I$incdir" ]; echo $?)"
libs=$("$pc" --libs dracel)
check "--libs names only dracel (got: $libs)" \
  "$(printf '%s' "$libs" | grep -q -- '-ldracel' && ! printf '%s' "$libs" | grep -q -- '-lcjson'; echo $?)"
libs=$("$pc" --libs --static dracel)
for l in -lcjson -lre2 -lyaml -lstdc++; do
  check "--libs --static has $l" "$(printf ' %s ' "$libs" | grep -q -- " $l "; echo $?)"
done
check "no empty URL field" "$(! grep -q '^URL: *$' "$dir/dracel.pc"; echo $?)"
echo "1..$n"
[ "$failed" = 0 ]
