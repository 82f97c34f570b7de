#!/bin/sh
# tests/versions.sh: objects in resource.k8s.io/v1beta1 read as the API server converts them
# to v1 (docs/allocation.md, "API versions"), TAP. The claim, classes and fleet of
# tests/versions/v1beta1/ are those of tests/versions/v1/ in the older shape: explain, eval
# --slices and allocate give the same bytes for both; lint notes the deprecated version once
# per file; v1alpha3 and mixed shapes are refused with the field path. Needs $DRA_CELC.
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
cd "$src/tests/versions" || exit 1

# run_v VERSION ARGS...: dra-celc ARGS, each V/ at the start of an argument the version's
# directory
run_v() {
  v=$1; shift
  i=$#
  while [ "$i" -gt 0 ]; do
    a=$1; shift
    case $a in V/*) a=$v/${a#V/} ;; esac
    set -- "$@" "$a"
    i=$((i - 1))
  done
  "$celc" "$@"
}
# both NAME ARGS...: the command over v1 and over v1beta1 gives the same output and status 0
both() {
  name=$1; shift
  for v in v1 v1beta1; do
    run_v "$v" "$@" >"$tmp/$v.out" 2>"$tmp/$v.err"
    echo $? >"$tmp/$v.rc"
  done
  if cmp -s "$tmp/v1.out" "$tmp/v1beta1.out" && [ "$(cat "$tmp/v1.rc")" = 0 ] &&
     [ "$(cat "$tmp/v1beta1.rc")" = 0 ] && [ -s "$tmp/v1.out" ]; then
    check "$name" 0
  else
    check "$name" 1
    diff "$tmp/v1.out" "$tmp/v1beta1.out" | comment
    comment <"$tmp/v1beta1.err"
  fi
}
both "explain: the same answer from v1beta1 and v1" \
  explain --claim V/claim.yaml --classes V/classes.yaml --slices V/slices.yaml
both "explain --format json: the same" \
  explain --format json --claim V/claim.yaml --classes V/classes.yaml --slices V/slices.yaml
both "eval --slices: the same devices" \
  eval --slices V/slices.yaml -e 'device.capacity["gpu.example.com"].?memory.orValue(quantity("0")).compareTo(quantity("40Gi")) >= 0'
"$celc" explain --claim v1beta1/claim.yaml --classes v1beta1/classes.yaml --slices v1beta1/slices.yaml >"$tmp/out" 2>&1
grep -q '^node-a: allocated pair, any/l4 (score 7): gpu.example.com/node-a/gpu-0, gpu.example.com/node-a/gpu-1, gpu.example.com/node-a/spare$' "$tmp/out"
check "v1beta1: the request's own count, selectors and tolerations count (two H100s, one tainted)" $?

# lint: the deprecated version once per file, positions inside v1beta1 selectors
"$celc" lint v1beta1/ >"$tmp/out" 2>"$tmp/err"
check "lint: one deprecated-version note per file with v1beta1 objects" \
  "$([ "$(grep -c '\[deprecated-version\]$' "$tmp/out")" = 2 ] &&
     grep -q '^v1beta1/claim.yaml:4:13: note: resource.k8s.io/v1beta1 is deprecated from Kubernetes 1.35 and not served from 1.38' "$tmp/out"; echo $?)"
cat >"$tmp/b1.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors:
      - cel:
          expression: device.attributes["x"].y == 1
YAML
"$celc" lint "$tmp/b1.yaml" >"$tmp/out" 2>"$tmp/err"
grep -q "^$tmp/b1.yaml:11:23: warning: device.attributes\[\"x\"\].y is read without" "$tmp/out"
check "lint: a finding inside a v1beta1 request's selector at its line and column" $?

# refused: with the field path and the reason
refused() { # NAME TEXT MESSAGE
  printf '%s' "$2" >"$tmp/x.yaml"
  "$celc" explain --claim "$tmp/x.yaml" --classes v1/classes.yaml --slices v1/slices.yaml >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" = 1 ] && grep -qF "$3" "$tmp/err"; then check "$1" 0; else check "$1" 1; echo "# rc $rc"; comment <"$tmp/err"; fi
}
refused "v1alpha3: refused with the release that stopped serving it" \
  'apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c}
' 'apiVersion: "resource.k8s.io/v1alpha3" is not served for this kind since Kubernetes 1.33'
refused "v1beta1 with exactly: refused at the field" \
  'apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
' 'ResourceClaim c: spec.devices.requests[0].exactly: not a field of a resource.k8s.io/v1beta1 request'
refused "v1beta1 with deviceClassName and firstAvailable: refused" \
  'apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      firstAvailable: [{name: a, deviceClassName: gpu.example.com}]
' 'ResourceClaim c: spec.devices.requests[0].deviceClassName: must not be set together with `firstAvailable`'
printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.example.com\n  nodeName: node-x\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices:\n  - name: d\n    basic: {attributes: {a: {int: 1}}}\n' >"$tmp/s.yaml"
"$celc" eval --slices "$tmp/s.yaml" -e true >"$tmp/out" 2>"$tmp/err"
rc=$?
check "v1 slice with basic: refused at the field" \
  "$([ "$rc" = 1 ] && grep -qF 'spec.devices[0].basic: `basic` is the resource.k8s.io/v1beta1 device shape' "$tmp/err"; echo $?)"

echo "1..$n"
[ "$failed" = 0 ]
