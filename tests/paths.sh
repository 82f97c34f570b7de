#!/bin/sh
# tests/paths.sh: every path of the repository that a comment or a document names exists
# (a file renamed or split leaves references behind: "vm/disasm.c", "src/table.c"). Scans the
# sources, scripts, Makefile.am, configure.ac and every Markdown and man page for tokens such as
# src/alloc/run.c, vm/opcodes.def or docs/api.md, and checks each against the source tree. Paths of
# the build tree (generated files), of an installation and of other projects are listed in the
# exceptions below. TAP output.
set -u
top=${top_srcdir:-.}
cd "$top" || exit 1
dirs='src|vm|include|grammar|tests|fuzz|docs|examples|bench|scripts|deploy|man|build-aux|m4'
# Generated in the build tree, or made by a test: named, never committed.
generated='^(grammar/lexer\.c|grammar/parser\.[ch]|tests/opdoc|tests/fndoc|tests/run-cases|tests/unit/test_[a-z0-9_]+|tests/extender/(fakeapi|kubewatch)|tests/conformance/runner|tests/oom/libfailmalloc\.la|bench/(bench_scalar|genfleet|handloop|fleetupdate|cluster)|fuzz/fuzz_[a-z]+|tests/oom/\.libs/libfailmalloc\.so|bench-data/.*|build-aux/[a-z-]+)$'
# Paths a test makes under its own temporary directory.
made='^(src/prog)$'
files=$(git ls-files 2>/dev/null | grep -E '\.(c|h|cc|y|re|def|sh|am|ac|md|[1-9]|lua|in)$|^scripts/|^\.ci/' |
  grep -v -E '^tests/(cases|alloc|data)/|^tests/paths\.sh$')
[ -n "$files" ] || { echo "1..0 # SKIP not a git checkout"; exit 0; }
missing=$(for f in $files; do
  # (not after $, { or another path character: "$src/examples" is the source tree's)
  grep -o -E "(^|[^A-Za-z0-9_./\${}-])($dirs)/[A-Za-z0-9_.*/-]*[A-Za-z0-9_*]" "$f" 2>/dev/null |
    sed -E "s/^[^a-z]*//" | sort -u | while read -r p; do
      case "$p" in *'*'*) continue ;; esac           # a pattern: src/lib_*.c
      echo "$p" | grep -q -E '/[A-Z][A-Z]+' && continue  # a placeholder: tests/cases/NAME.test
      echo "$p" | grep -q -E "$generated|$made" && continue
      [ -e "$p" ] || ls -d "$p".* >/dev/null 2>&1 || echo "$f: $p"
    done
done)
echo "1..1"
if [ -z "$missing" ]; then
  echo "ok 1 - every repository path a comment or document names exists"
else
  echo "not ok 1 - paths named that do not exist:"
  echo "$missing" | sed 's/^/#   /'
  exit 1
fi
