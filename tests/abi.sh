#!/bin/sh
# tests/abi.sh: the shared library exports exactly the symbols listed in include/dracel.sym,
# which are exactly the functions dracel.h declares with DRACEL_API; the header's version is the
# package's. A static-only build (--disable-shared) has no export list to check: it skips.
top=${top_srcdir:-.}
build=${top_builddir:-.}
lib=$build/.libs/libdracel.so
if [ ! -f "$lib" ]; then
  echo "1..0 # SKIP no shared library in this build (--disable-shared)"
  exit 0
fi
echo "1..3"
fail=0
tmp=${TMPDIR:-/tmp}/dracel-abi.$$
trap 'rm -f "$tmp".*' EXIT INT TERM

grep -v '^#' "$top/include/dracel.sym" | sed '/^$/d' | LC_ALL=C sort >"$tmp.want"
# Defined dynamic symbols of any kind (functions, data, weak, unique), version suffix dropped.
nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' |
  grep -v '^DRACEL_0$' | LC_ALL=C sort -u >"$tmp.have"
if cmp -s "$tmp.want" "$tmp.have"; then
  echo "ok 1 - libdracel.so exports exactly include/dracel.sym ($(wc -l <"$tmp.want") symbols)"
else
  echo "not ok 1 - libdracel.so exports differ from include/dracel.sym (< listed, > exported):"
  diff "$tmp.want" "$tmp.have" | sed -n 's/^[<>]/#   &/p'
  fail=1
fi

# Every DRACEL_API declaration of the header: the identifier before its '('.
tr '\n' ' ' <"$top/include/dracel.h" | sed 's/DRACEL_API/\n&/g' | sed -n 's/^DRACEL_API[^(]*[^A-Za-z0-9_(]\(dracel_[A-Za-z0-9_]*\) *(.*/\1/p' |
  LC_ALL=C sort -u >"$tmp.decl"
if cmp -s "$tmp.want" "$tmp.decl"; then
  echo "ok 2 - include/dracel.sym lists every DRACEL_API function of dracel.h"
else
  echo "not ok 2 - include/dracel.sym and the DRACEL_API declarations differ (< listed, > declared):"
  diff "$tmp.want" "$tmp.decl" | sed -n 's/^[<>]/#   &/p'
  fail=1
fi

hv=$(sed -n 's/^#define DRACEL_VERSION_STRING "\(.*\)"$/\1/p' "$top/include/dracel.h")
pv=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$build/config.h")
if [ -n "$hv" ] && [ "$hv" = "$pv" ]; then
  echo "ok 3 - DRACEL_VERSION_STRING is the package version ($pv)"
else
  echo "not ok 3 - DRACEL_VERSION_STRING '$hv' differs from configure.ac's version '$pv'"
  fail=1
fi
exit $fail
