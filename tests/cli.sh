#!/bin/sh
# Integration tests of the dra-celc program: formats, exit codes, files, limits. TAP output.
# Needs $DRA_CELC (set by make check) and python3 only for checking JSON, when present.
set -u
celc=${DRA_CELC:-./dra-celc}
src=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; failed=0

check() { # name, condition result (0 ok)
  n=$((n + 1))
  if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}
# run ARGS...: sets rc, out, err
run() {
  "$celc" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
}
is() { [ "$1" = "$2" ]; echo $?; }

run parse -e '1 + 2 * 3'
check "parse prints the AST" "$(is "$rc:$out" "0:(_+_ 1 (_*_ 2 3))")"

run parse -e 'device.attributes["gpu.example.com"].model == "H100"'
check "parse a selector" "$(is "$out" '(_==_ (. (_[_] (. device attributes) "gpu.example.com") model) "H100")')"

run parse -e '1 +'
check "syntax error exits 1" "$(is "$rc" 1)"
check "syntax error on stderr in cel-go's format" \
  "$(printf '%s\n' "$err" | head -n 1 | grep -q '^ERROR: <input>:1:4: ' ; echo $?)"
check "caret line" "$(is "$(printf '%s\n' "$err" | sed -n 3p)" ' | ...^')"
check "nothing on stdout for a rejected input" "$(is "$out" "")"

run parse -e '1 +' --format json
check "json diagnostics exit 1" "$(is "$rc" 1)"
if command -v python3 >/dev/null 2>&1; then
  printf '%s' "$out" | python3 -c '
import json, sys
v = json.loads(sys.stdin.read())
d = v["diagnostics"][0]
assert v["error"] == d["message"], v
assert (d["severity"], d["source"], d["line"], d["column"]) == ("error", "<input>", 1, 4), d
' 2>/dev/null
  check "json diagnostics shape" $?
  run parse -e 'a.b' --format json
  printf '%s' "$out" | python3 -c 'import json,sys; assert json.loads(sys.stdin.read()) == {"ast": "(. a b)"}' 2>/dev/null
  check "json AST" $?
fi

printf 'a &&\n  (b ||' >"$tmp/sel.cel"
run parse -f "$tmp/sel.cel"
check "file diagnostics name the file" \
  "$(printf '%s\n' "$err" | head -n 1 | grep -q "^ERROR: $tmp/sel.cel:2:8: " ; echo $?)"

printf 'x.y' | "$celc" parse -f - >"$tmp/out" 2>&1
check "stdin with -f -" "$(is "$(cat "$tmp/out")" "(. x y)")"

run parse
check "no expression is a usage error (2)" "$(is "$rc" 2)"
run parse -e x -f y
check "both -e and -f is a usage error" "$(is "$rc" 2)"
run parse -e x --bogus
check "unknown option is a usage error" "$(is "$rc" 2)"
run frobnicate
check "unknown command is a usage error" "$(is "$rc" 2)"
run parse -f "$tmp/does-not-exist"
check "unreadable file is exit 2" "$(is "$rc" 2)"
run parse -e x --max-depth 0
check "a zero limit is a usage error" "$(is "$rc" 2)"
run parse -e x --format yaml
check "bad --format is a usage error" "$(is "$rc" 2)"
run parse --help
check "parse --help exits 0" "$(is "$rc" 0)"

run parse -e '[[[[1]]]]' --max-depth 3
check "--max-depth is applied" "$(is "$rc" 1)"
check "--max-depth message" "$(printf '%s' "$err" | grep -q 'recursion limit exceeded: 3'; echo $?)"
run parse -e '1 + 1' --max-length 4
check "--max-length is applied" \
  "$(is "$rc:$(printf '%s\n' "$err" | head -n 1)" "1:ERROR: <input>:1:1: expression size exceeds limit: size: 5 bytes, limit 4")"
run parse -e 'a + b + c' --max-nodes 3
check "--max-nodes is applied" "$(is "$rc" 1)"
run parse -e '1 + + + ) ( 2' --max-errors 1
check "--max-errors caps the list" "$(printf '%s\n' "$err" | grep -c '^ERROR' | grep -q '^1$'; echo $?)"

# Hostile inputs through the program: bounded, clean diagnostics.
python3 -c 'print("(" * 100000)' >"$tmp/deep.cel" 2>/dev/null || awk 'BEGIN{for(i=0;i<100000;i++)printf "(";print ""}' >"$tmp/deep.cel"
run parse -f "$tmp/deep.cel" --max-length 200000
check "100,000 open parentheses: a diagnostic, exit 1" "$(is "$rc" 1)"
head -c 3000 /dev/urandom >"$tmp/random.bin" 2>/dev/null
run parse -f "$tmp/random.bin"
check "random bytes: rejected, no crash" "$( [ "$rc" = 1 ] ; echo $?)"

for f in "$src"/examples/selectors/*.cel; do
  run parse -f "$f"
  check "sample selector $(basename "$f") parses" "$(is "$rc" 0)"
done


# A lone surrogate escape is invalid JSON, not a lack of memory.
run eval -e 'x' --bind 'x={"string":"\udc00"}'
check "--bind with a lone surrogate: invalid JSON, not out of memory" \
  "$(is "$rc:$err" '2:dra-celc: --bind x: JSON syntax error: invalid \u escape (a lone low surrogate)')"

# ---- --device and --bind read JSON as --slices does (docs/dra-celc.md, "eval"): exact int64,
# no silent cut at \u0000, names validated, messages with FILE:LINE and the field path, and the
# driver-qualified attribute over the bare one on both paths.
slice_of() { # FIELDS -> a ResourceSlice holding one device "d" with FIELDS
  printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"gpu.example.com","nodeName":"n","pool":{"name":"p","generation":1,"resourceSliceCount":1},"devices":[{"name":"d",%s}]}}\n' "$1"
}
dev_and_slice() { # FIELDS: $tmp/dev.json and $tmp/slice.json
  printf '{"driver":"gpu.example.com",\n %s}\n' "$1" >"$tmp/dev.json"
  slice_of "$1" >"$tmp/slice.json"
}
sel='device.attributes["gpu.example.com"].big == 9007199254740992'
dev_and_slice '"attributes":{"big":{"int":9007199254740993}}'
run eval --device "$tmp/dev.json" -e "$sel"
check "--device: an int beyond 2^53 is exact" "$(is "$rc:$out" "0:false")"
run eval --slices "$tmp/slice.json" -e "$sel"
check "--slices: the same device does not match either" "$(is "$rc:$out" "0:")"
run eval --device "$tmp/dev.json" --value -e 'device.attributes["gpu.example.com"].big'
check "--device --value prints 9007199254740993" "$(is "$out" "9007199254740993")"
dev_and_slice '"attributes":{"big":{"int":123456789012345678},"min":{"int":-9223372036854775808}}'
run eval --device "$tmp/dev.json" -e 'device.attributes["gpu.example.com"].big == 123456789012345678 && device.attributes["gpu.example.com"].min < 0'
check "--device: 123456789012345678 and -9223372036854775808 are exact int64" "$(is "$rc:$out" "0:true")"
dev_and_slice '"attributes":{"s":{"string":"x\u0000y"}}'
run eval --device "$tmp/dev.json" -e 'true'
check "--device: a string with \\u0000 is rejected, not cut" \
  "$(is "$rc:$err" "1:dra-celc: $tmp/dev.json:2: JSON string contains \\u0000 (not supported)")"
dev_and_slice '"name":"gpu-0","attributes":{"n":{"int":1e3}}'
run eval --device "$tmp/dev.json" -e 'true'
check "--device: 1e3 is not an int, with file, line, device and field" \
  "$(is "$rc:$err" "1:dra-celc: $tmp/dev.json:2: device gpu-0: attributes[\"n\"].int: 1e3 is not an integer")"
run eval --device "$tmp/dev.json" -e 'true' --format json
check "--device rejected with --format json: the error object on stdout, exit 1" \
  "$(is "$rc:$out" "1:{\"error\":\"$tmp/dev.json:2: device gpu-0: attributes[\\\"n\\\"].int: 1e3 is not an integer\",\"diagnostics\":[{\"severity\":\"error\",\"message\":\"$tmp/dev.json:2: device gpu-0: attributes[\\\"n\\\"].int: 1e3 is not an integer\",\"source\":\"$tmp/dev.json\",\"line\":2,\"column\":0}]}")"
dev_and_slice '"attributes":{"my model":{"string":"x"}}'
run eval --device "$tmp/dev.json" -e 'true'
check "--device: attribute names are validated" \
  "$(is "$rc:$err" "1:dra-celc: $tmp/dev.json:2: attributes[\"my model\"]: the name must be a C identifier (letters, digits and '_', not starting with a digit)")"
dev_and_slice '"attributes":{"model":{"string":"bare"},"gpu.example.com/model":{"string":"qualified"}}'
sel='device.attributes["gpu.example.com"].model == "qualified"'
run eval --device "$tmp/dev.json" -e "$sel"
check "--device: the driver-qualified attribute wins over the bare one" "$(is "$rc:$out" "0:true")"
run eval --slices "$tmp/slice.json" -e "$sel"
check "--slices: the same attribute wins" "$(is "$rc:$out" "0:gpu.example.com/p/d")"
run eval -e 'x == 9007199254740993' --bind 'x={"int":9007199254740993}'
check "--bind: {\"int\":N} is exact beyond 2^53" "$(is "$rc:$out" "0:true")"
run eval -e 'x + y' --bind 'x={"int":4}' --bind 'y={"int":"4"}'
check "--bind: {\"int\":4} and {\"int\":\"4\"}" "$(is "$rc:$out" "0:8")"
run eval -e 'x' --bind 'x={"list":[{"int":1},{"int":1e3}]}'
check "--bind: 1e3 is not an int, with the field path" \
  "$(is "$rc:$err" "2:dra-celc: --bind x: list[1].int: 1e3 is not an integer")"

# ---- allocate and explain (docs/allocation.md). The scenario semantics are in tests/alloc/.
d="$src/tests/data/alloc"
run allocate
check "allocate without a scenario is a usage error" "$(is "$rc" 2)"
run allocate "$tmp/nope.yaml"
check "allocate of a missing file exits 2" "$(is "$rc" 2)"
run allocate "$d/order-a.yaml" --format yaml
check "allocate --format yaml is a usage error" "$(is "$rc" 2)"
for dur in soon 0x10s 1e3ms +5s 25h 1.5.s; do
  run allocate "$d/order-a.yaml" --timeout "$dur"
  check "allocate --timeout $dur is a usage error (Go's duration syntax)" "$(is "$rc" 2)"
done
for dur in 1m30s 500µs 500μs .5s; do
  run allocate "$d/order-a.yaml" --timeout "$dur"
  check "allocate --timeout $dur is a duration" "$(is "$rc" 0)"
done
printf 'features: [Teleport]\nnode: {name: n1}\nclasses: []\nslices: []\nclaims: []\n' >"$tmp/badfeat.yaml"
run allocate "$tmp/badfeat.yaml"
check "an unknown feature is a rejected scenario (exit 1)" "$(is "$rc" 1)"
check "the rejection names the file and line" "$(printf '%s' "$err" | grep -q "badfeat.yaml:1: .*Teleport"; echo $?)"
run allocate "$tmp/badfeat.yaml" --format json
check "a rejected scenario with --format json prints an error object" \
  "$(printf '%s' "$out" | grep -q '^{"error":.*"diagnostics":\[{"severity":"error".*"line":1' ; echo $?)"

printf 'features: []\nnode: {name: n1}\nclasses:\n- metadata: {name: gpu}\n  spec: {selectors: []}\n- metadata: {name: gpu}\n  spec: {selectors: []}\nslices: []\nclaims: []\n' >"$tmp/dup.yaml"
run allocate "$tmp/dup.yaml"
check "two DeviceClasses of one name: rejected, not decided by input order" \
  "$(is "$rc:$err" "1:dra-celc: $tmp/dup.yaml:6: DeviceClass gpu: defined twice (also $tmp/dup.yaml:4)")"

run allocate "$d/order-a.yaml" --format json
check "allocate --format json: allocated, exit 0" "$(printf '%s' "$out" | grep -q '^{"outcome":"allocated","allocations":\[{"devices":{"results":\[{"request":"gpu/big","driver":"gpu.example.com","pool":"pool-a","device":"gpu-0"}\]}' ; echo $?)"
if command -v python3 >/dev/null 2>&1; then
  "$celc" allocate "$d/order-a.yaml" --format json --explain | python3 -c '
import json, sys
v = json.loads(sys.stdin.read())
assert v["outcome"] == "allocated" and len(v["allocations"]) == 2
e = v["explanation"]
assert e["node"] == "n1" and e["policyVersion"].startswith("pv1-")
t = e["claims"][0]["requests"][0]["tiers"]
assert [x["status"] for x in t] == ["failed", "chosen", "not tried"], t
assert t[0]["excluded"]["allocated"] == 2 and t[1]["devices"] == ["gpu.example.com/pool-a/gpu-0"]
assert t[0]["selectors"][1]["rejected"] == 2 and len(t[0]["selectors"][1]["examples"]) == 1
' 2>"$tmp/py.err"
  check "allocate --explain --format json is valid and complete" "$(is "$?" 0)"
fi

# Determinism: the same scenario written in another order (slices, classes, attribute keys,
# labels, allocated devices) gives the same bytes, explanation included.
for fmt in text json; do
  "$celc" allocate "$d/order-a.yaml" --explain --format $fmt >"$tmp/a.out" 2>&1
  "$celc" allocate "$d/order-b.yaml" --explain --format $fmt >"$tmp/b.out" 2>&1
  check "allocate --explain --format $fmt: input order does not change a byte" "$(cmp -s "$tmp/a.out" "$tmp/b.out"; echo $?)"
done

# The time limit: a search without solution that would run for days ends as Kubernetes' Filter
# does after its timeout.
run allocate "$d/timeout.yaml" --timeout 200ms
check "a search past its time limit is unschedulable (exit 0)" \
  "$(is "$rc:$out" "0:unschedulable: timed out trying to allocate devices")"
run allocate "$d/timeout.yaml" --timeout 200ms --format json
check "the time limit in JSON" "$(is "$out" '{"outcome":"unschedulable","allocations":[],"reason":"timed out trying to allocate devices"}')"

# explain over the sample fleet; file names and order do not matter.
ex="$src/examples"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" \
  --nodes "$ex/nodes.yaml" --allocated "$ex/allocated.txt"
check "explain over the sample: exit 0" "$(is "$rc" 0)"
check "explain: node-h100-a gets an H100" \
  "$(printf '%s\n' "$out" | grep -qx 'node-h100-a: allocated gpu/h100 (score 8): gpu.example.com/node-h100-a/gpu-1'; echo $?)"
check "explain: the tainted H100 sends node-tainted to its A100" \
  "$(printf '%s\n' "$out" | grep -q '^node-tainted: allocated gpu/a100 (score 7)'; echo $?)"
check "explain: an incomplete pool is said" \
  "$(printf '%s\n' "$out" | grep -q '^node-t4: unschedulable: .*in an incomplete pool'; echo $?)"
check "explain: the tally" "$(printf '%s\n' "$out" | tail -n 1 | grep -q '^7 nodes: 5 allocated, 2 unschedulable, 0 errors'; echo $?)"
printf '%s\n' "$out" >"$tmp/explain1"
mkdir -p "$tmp/fleet2"
i=9
for f in "$ex"/fleet/*; do cp "$f" "$tmp/fleet2/$i-$(basename "$f")"; i=$((i - 1)); done
"$celc" explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$tmp/fleet2" \
  --nodes "$ex/nodes.yaml" --allocated "$ex/allocated.txt" >"$tmp/explain2" 2>&1
check "explain: renamed and reordered files give the same bytes" "$(cmp -s "$tmp/explain1" "$tmp/explain2"; echo $?)"
# Node objects in another order: explain lists nodes by name all the same.
grep -v '^- ' "$ex/nodes.yaml" >"$tmp/nodes-rev.yaml"
grep '^- ' "$ex/nodes.yaml" | sort -r >>"$tmp/nodes-rev.yaml"
"$celc" explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" \
  --nodes "$tmp/nodes-rev.yaml" --allocated "$ex/allocated.txt" >"$tmp/explain3" 2>&1
check "explain: Node objects in reverse order give the same bytes" "$(cmp -s "$tmp/explain1" "$tmp/explain3"; echo $?)"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" \
  --nodes "$ex/nodes.yaml" --allocated "$ex/allocated.txt" --no-explain
check "explain --no-explain: an unschedulable node is just that" \
  "$(printf '%s\n' "$out" | grep -qx 'node-h100-b: unschedulable'; echo $?)"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" --node node-tainted
check "explain --node: the full explanation" \
  "$(printf '%s\n' "$out" | grep -q '^        excluded: 1 tainted$'; echo $?)"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" --features Warp
check "explain --features with an unknown name is a usage error" "$(is "$rc" 2)"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes"
check "explain without --slices is a usage error" "$(is "$rc" 2)"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" --features none --node node-a100-40
check "explain with PrioritizedList off: the error of Kubernetes, exit 1" \
  "$(is "$rc:$(printf '%s\n' "$out" | head -n 1)" "1:node-a100-40: error: claim default/gpu-tiered, request gpu: has subrequests, but the DRAPrioritizedList feature is disabled")"
check "explain: the tiers of an attempt that an error stopped are aborted" \
  "$(printf '%s\n' "$out" | grep -q '^      tier 0 gpu/h100 (class gpu.example.com): aborted$'; echo $?)"
printf 'gpu.example.com/just-two\n' >"$tmp/badalloc.txt"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" --allocated "$tmp/badalloc.txt"
check "explain --allocated with a bad device ID: rejected with file and line" \
  "$(is "$rc:$err" "1:dra-celc: $tmp/badalloc.txt:1: not a device ID (driver/pool/device): gpu.example.com/just-two")"

# Every file the command reads itself has the slice loader's cap, checked before reading when the
# size is known, while reading when not (/dev/zero would grow without end); text only.
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" --allocated /dev/zero
check "explain --allocated /dev/zero: refused at the size cap, exit 2" \
  "$(is "$rc:$err" "2:dra-celc: /dev/zero: file larger than 67108864 bytes")"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" --allocated "$tmp"
check "explain --allocated DIRECTORY: exit 2" "$(is "$rc:$err" "2:dra-celc: $tmp: is a directory")"
# Files over the cap are refused by their size before a byte is read: a sparse file of 1 GiB
# (no disk used), under a 500 MB address-space limit (reading it whole would run out of memory;
# not under a sanitizer, whose shadow memory needs terabytes of address space). The size in
# parentheses is fstat's: refused while reading, the message would not know it.
truncate -s 1G "$tmp/huge.cel" 2>/dev/null || dd if=/dev/null of="$tmp/huge.cel" bs=1 seek=1073741824 2>/dev/null
cp "$tmp/huge.cel" "$tmp/huge.json" 2>/dev/null || truncate -s 1G "$tmp/huge.json"
capped() { # ARGS...: run with the address-space limit
  ( [ -n "${DRACEL_SANITIZED:-}" ] || ulimit -v 500000 2>/dev/null
    "$celc" "$@" >"$tmp/out" 2>"$tmp/err" ); rc=$?
  err=$(cat "$tmp/err")
}
capped parse -f "$tmp/huge.cel"
check "parse -f a 1 GiB file: refused by its size before reading, exit 2" \
  "$(is "$rc:$err" "2:dra-celc: $tmp/huge.cel: file larger than 67108864 bytes (1073741824)")"
capped eval -e 'device.driver == "gpu.example.com"' --device "$tmp/huge.json"
check "eval --device a 1 GiB file: refused by its size before reading, exit 2" \
  "$(is "$rc:$err" "2:dra-celc: $tmp/huge.json: file larger than 67108864 bytes (1073741824)")"
capped allocate "$tmp/huge.json"
check "allocate a 1 GiB scenario: refused by its size before reading (a rejected scenario, exit 1)" \
  "$(is "$rc:$err" "1:dra-celc: $tmp/huge.json: 1073741824 bytes, more than the limit of 67108864")"
rm -f "$tmp/huge.cel" "$tmp/huge.json"
printf 'gpu.example.com/node-l4/gpu-0\n\0\n' >"$tmp/nul.txt"
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" --allocated "$tmp/nul.txt"
check "explain --allocated with a NUL byte: rejected with the line" \
  "$(is "$rc:$err" "1:dra-celc: $tmp/nul.txt:2: a NUL byte (device IDs are text, one a line)")"

# The time limits cover selection: a selector with comprehensions costing about a millisecond a
# device, false on all but the last of a node's 128 devices, over 40 nodes. The limits end the
# commands; what they say is checked, never how long they took.
if command -v python3 >/dev/null 2>&1; then
  python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
expr = ('lists.range(300).all(i, lists.range(300).exists(j, j >= i)) && '
        'device.attributes["gpu.example.com"].index == 127')
slices = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
           "metadata": {"name": "n%d" % n},
           "spec": {"driver": "gpu.example.com", "nodeName": "n%d" % n,
                    "pool": {"name": "n%d" % n, "generation": 1, "resourceSliceCount": 1},
                    "devices": [{"name": "gpu-%d" % k, "attributes": {"index": {"int": k}}}
                                for k in range(128)]}} for n in range(40)]
cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
       "spec": {"selectors": [{"cel": {"expression": expr}}]}}
claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
         "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}
json.dump({"apiVersion": "v1", "kind": "List", "items": slices}, open(d + "/slow-slices.json", "w"))
json.dump(cls, open(d + "/slow-class.json", "w"))
json.dump(claim, open(d + "/slow-claim.json", "w"))
json.dump({"features": [], "node": {"name": "n0"}, "classes": [cls], "slices": slices,
           "claims": [claim]}, open(d + "/slow.json", "w"))
PY
  run allocate "$tmp/slow.json" --timeout 0
  check "allocate: a slow selector is evaluated only on the node's devices, as the search reaches them" \
    "$(is "$rc:$out" "0:allocated
c r gpu.example.com/n0/gpu-127")"
  run allocate "$tmp/slow.json" --timeout 20ms --explain
  check "allocate --timeout bounds the selectors' evaluation" \
    "$(is "$rc:$(printf '%s\n' "$out" | head -n 1)" "0:unschedulable: timed out trying to allocate devices")"
  check "allocate --explain counts the devices the limit left unevaluated" \
    "$(printf '%s\n' "$out" | grep -q '^        [0-9]* not evaluated: the time limit was reached$'; echo $?)"
  run explain --claim "$tmp/slow-claim.json" --classes "$tmp/slow-class.json" --slices "$tmp/slow-slices.json" \
    --timeout 20ms --budget 100ms --no-explain
  check "explain --budget bounds all nodes together: the nodes left are not tried" \
    "$(printf '%s\n' "$out" | tail -n 1 | grep -q '^40 nodes: 0 allocated, [0-9]* unschedulable, 0 errors, [0-9]* not tried (the --budget of 100ms ran out)'; echo $?)"
  check "explain --budget: a node not tried says why" \
    "$(printf '%s\n' "$out" | grep -q '^n39: unschedulable: not tried: the time limit of the call (100ms) was reached before this node$'; echo $?)"
fi

# Contracts of every command (issue 14): options a command does not take, output that cannot be
# written, a rejected fleet under --format json, names that are not UTF-8.
run eval -e '1' --env plain
check "eval does not take --env" "$(is "$rc:$(printf '%s\n' "$err" | head -n 1)" "2:dra-celc: eval does not take --env")"
run check -e 'true' --no-check
check "check does not take --no-check" "$(is "$rc:$(printf '%s\n' "$err" | head -n 1)" "2:dra-celc: check does not take --no-check")"
run disasm -e 'true' --format json
check "disasm does not take --format" "$(is "$rc:$(printf '%s\n' "$err" | head -n 1)" "2:dra-celc: disasm does not take --format")"
run bench --slices "$ex/fleet" -e 'true' --value
check "bench does not take --value" "$(is "$rc:$(printf '%s\n' "$err" | head -n 1)" "2:dra-celc: bench does not take --value")"
run version --format json
check "version takes no options" "$(is "$rc" 2)"
set --
i=0; while [ $i -lt 130 ]; do set -- "$@" --repeat 1; i=$((i + 1)); done
run bench --slices "$ex/fleet" "$@" -e 'device.driver == "gpu.example.com"'
check "bench reads every argument (260 before -e)" \
  "$(is "$rc:$(printf '%s' "$out" | cut -c1-14)" '0:{"devices":12,')"
[ "$rc" = 0 ] || printf '%s\n' "$err" | head -n 3 | sed 's/^/# /' 
set --
printf 'not: [a slice\n' >"$tmp/bad-slice.yaml"
run eval --slices "$tmp/bad-slice.yaml" -e 'true' --format json
check "eval --slices with a rejected file: the error object on stdout, exit 1" \
  "$(is "$rc:$(printf '%s' "$out" | cut -c1-9)" '1:{"error":')"
bad=$(printf 'bad\377name.cel')
printf '1 +' >"$tmp/$bad"
run parse -f "$tmp/$bad" --format json
check "a file name that is not UTF-8 is U+FFFD in JSON" \
  "$(printf '%s' "$out" | grep -q "\"source\":\"$tmp/bad$(printf '\357\277\275')name.cel\""; echo $?)"
# The library's JSON (the allocator's answer and explanation) is valid UTF-8 too: a node name
# given with --node that is not UTF-8 has U+FFFD for its bad byte, wherever it is written.
run explain --claim "$ex/claims/gpu-tiered.yaml" --classes "$ex/classes" --slices "$ex/fleet" \
  --node "$(printf 'n\377x')" --format json
fffd=$(printf '\357\277\275')
check "explain --node NAME that is not UTF-8: U+FFFD in both places of the JSON, no raw byte" \
  "$(is "$(printf '%s' "$out" | grep -o "\"node\":\"n${fffd}x\"" | wc -l | tr -d ' '):$(printf '%s' "$out" | grep -c "$(printf '\377')")" "2:0")"
if [ -w /dev/full ]; then
  for args in "disasm -e true" "bench --slices $ex/fleet -e true --repeat 1" "version" "--help" \
              "eval --help" "parse -e 1" "eval -e 1 --format json" "check -e true"; do
    # shellcheck disable=SC2086
    "$celc" $args >/dev/full 2>"$tmp/err"; rc=$?
    check "$args to a full disk: exit 2 and says why" \
      "$(is "$rc:$(cat "$tmp/err")" "2:dra-celc: cannot write the output: No space left on device")"
  done
fi
"$celc" eval -e '1 + 2' >&- 2>"$tmp/err"; rc=$?
check "a closed stdout: exit 2 and says why" \
  "$(is "$rc:$(cat "$tmp/err")" "2:dra-celc: cannot write the output: Bad file descriptor")"

# A full stdout is an I/O error (exit 2), not a silent success.
if [ -w /dev/full ]; then
  for fmt in text json; do
    "$celc" check -e 'device.driver == "x"' --format $fmt >/dev/full 2>/dev/null; rc=$?
    check "check --format $fmt to a full disk exits 2" "$(is "$rc" 2)"
    "$celc" allocate "$d/order-a.yaml" --explain --format $fmt >/dev/full 2>/dev/null; rc=$?
    check "allocate --format $fmt to a full disk exits 2" "$(is "$rc" 2)"
  done
fi

echo "1..$n"
[ "$failed" = 0 ]
