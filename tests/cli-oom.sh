#!/bin/sh
# tests/cli-oom.sh: every allocation failure of a dra-celc command (parse, check, eval, disasm;
# tests/cli-oom-alloc.sh: allocate, explain, replay), the C library's, cJSON's and
# libyaml's included (tests/oom/failmalloc.c, preloaded), ends in the same answer (the failure
# was absorbed) or in exit 2 with "out of memory" on stderr and nothing on stdout: never in a
# different answer, a half-written one, another exit status or a crash. Each command is run
# once to count its allocations, then with each one failing in turn (past the first 300, a
# spread of 300 more). TAP output. Skips where the shim cannot be preloaded (static and
# sanitizer builds).
set -u
src=${top_srcdir:-.}
. "$src/tests/oom/sweep.sh"

sweep "parse" parse -e '[1, 2].map(x, x + 1) == [2, 3]'
sweep "parse --format json" parse -e 'a.b(c, d[1])' --format json
sweep "parse, a syntax error, --format json" parse -e '1 + ' --format json
sweep "check" check -e 'device.attributes["gpu.example.com"].model.matches("^H") && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'
sweep "check --format json" check -e 'device.driver == "gpu.example.com"' --format json
sweep "eval" eval -e '{"a": [1, 2.5, "x", b"y"]}'
sweep "eval --format json" eval -e '[1, 2, 3].map(x, x * 2)' --format json
sweep "eval --device" eval --device "$tmp/dev.json" -e 'device.attributes["gpu.example.com"].model == "H100"'
sweep "eval, a regex" eval -e '"gpu-12".matches("^gpu-[0-9]+$") && "a,b".split(",").size() == 2'
sweep "eval --bind" eval -e 'x + 1' --bind 'x={"int":"41"}' --format json
sweep "eval --slices" eval --slices "$ex/fleet" -e 'device.attributes["gpu.example.com"].model == "H100"'
sweep "eval --slices --format json" eval --slices "$ex/fleet" -e 'device.driver == "gpu.example.com"' --format json
sweep "disasm" disasm -e 'device.attributes["gpu.example.com"].model in ["H100", "A100"]'
echo "1..$n"
[ "$failed" = 0 ]
