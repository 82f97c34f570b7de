#!/bin/sh
# tests/installcheck.sh LIBDIR SRCDIR: `make installcheck` (and so `make distcheck`). Builds each
# example program of examples/api/ as a user would, against the installed library, with
# pkg-config and nothing of the build tree, runs it from the source tree (the examples read
# examples/) and compares its output with examples/api/NAME.out. TAP output.
set -u
libdir=$1
src=$2
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
tmp=${TMPDIR:-/tmp}/dracel-installcheck.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# A build without the shared library links the static one with its private dependencies.
static=
[ -e "$libdir/libdracel.so" ] || static=--static
cflags=$($PKG_CONFIG --cflags dracel) && libs=$($PKG_CONFIG --libs $static dracel) || {
  echo "1..1"; echo "not ok 1 - pkg-config does not find dracel in $libdir/pkgconfig"; exit 1; }
set -- "$src"/examples/api/*.c
echo "1..$#"
n=0 fail=0
for c in "$@"; do
  n=$((n + 1))
  name=$(basename "$c" .c)
  # shellcheck disable=SC2086
  if ! $CC -std=c99 -Wall -Wextra -Werror $cflags "$c" -o "$tmp/$name" $libs -Wl,-rpath,"$libdir" \
       >"$tmp/$name.cc" 2>&1; then
    echo "not ok $n - examples/api/$name.c does not build against the installed library"
    sed 's/^/#   /' "$tmp/$name.cc"; fail=1; continue
  fi
  if (cd "$src" && "$tmp/$name") >"$tmp/$name.got" 2>&1 && cmp -s "$tmp/$name.got" "$src/examples/api/$name.out"; then
    echo "ok $n - examples/api/$name.c builds with pkg-config and prints examples/api/$name.out"
  else
    echo "not ok $n - examples/api/$name.c: its output differs from examples/api/$name.out"
    diff "$src/examples/api/$name.out" "$tmp/$name.got" | sed 's/^/#   /'; fail=1
  fi
done
exit $fail
