#!/bin/sh
# tests/extender/versions.sh: dra-extender's --objects reads resource.k8s.io/v1beta1 as the API
# server converts it (docs/allocation.md, "API versions"): two extenders on loopback ports, one
# on the objects of tests/versions/v1, one on the same objects in v1beta1, answer the same
# filter and prioritize requests byte for byte, and the answer allocates where dra-celc
# explain does. Needs curl and jq. TAP output; every wait is bounded.
set -u
ext=${DRA_EXTENDER:-./dra-extender}
case $ext in /*) ;; *) ext=$PWD/$ext ;; esac
src=${top_srcdir:-.}
tmp=$(mktemp -d)
. "$src/tests/extender/common.sh"

# The claim template of each version as a ResourceClaim (its spec.spec), beside the classes
# and slices.
for v in v1 v1beta1; do
  mkdir -p "$tmp/$v"
  cp "$src/tests/versions/$v/slices.yaml" "$src/tests/versions/$v/classes.yaml" "$tmp/$v/"
  awk '/^kind:/ { print "kind: ResourceClaim"; next }
       /^  spec:$/ && !d { d = 1; next }
       d && /^    / { print substr($0, 3); next }
       { print }' "$src/tests/versions/$v/claim.yaml" >"$tmp/$v/claim.yaml"
  start "$v" --objects "$tmp/$v"
done
printf '%s' '{"Pod":{"metadata":{"name":"p","namespace":"team-a","uid":"u-p"},"spec":{"containers":[{"name":"main","resources":{"claims":[{"name":"gpu"}]}}],"resourceClaims":[{"name":"gpu","resourceClaimName":"two-gpus"}]}},"Nodes":null,"NodeNames":["node-a","node-b"]}' >"$tmp/filter.json"
for v in v1 v1beta1; do
  eval "u=\$url_$v"
  post "$u/filter" "$tmp/filter.json" "$tmp/filter.$v"; echo "$status" >"$tmp/status.$v"
  post "$u/prioritize" "$tmp/filter.json" "$tmp/prio.$v"
done
check "filter: 200 from both" "$(is "$(cat "$tmp/status.v1") $(cat "$tmp/status.v1beta1")" "200 200")"
check "filter: v1beta1 objects answer as v1 ones, byte for byte" "$(cmp -s "$tmp/filter.v1" "$tmp/filter.v1beta1"; echo $?)"
check "...node-a passes (two H100s, one tainted and tolerated, and the L4), node-b fails" \
  "$(is "$(jq -c '[.NodeNames, (.FailedNodes | keys)]' "$tmp/filter.v1beta1")" '[["node-a"],["node-b"]]')"
check "prioritize: the same, byte for byte" "$(cmp -s "$tmp/prio.v1" "$tmp/prio.v1beta1"; echo $?)"

echo "1..$n"
[ "$failed" = 0 ]
