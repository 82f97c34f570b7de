# tests/extender/common.sh: what extender.sh, policy.sh and extres.sh share, sourced after they
# set ext (the dra-extender to start) and tmp (a directory of their own): TAP output (check,
# is, skip), requests (post), dra-extender started on a free loopback port (start), bounded
# waits (wait_for, reap) and the clean-up of every process started. Every wait is bounded.
# shellcheck shell=sh
pids=
# reap PID: wait for it at most 30 s, then SIGKILL it; its exit status. The watchdog is a
# process of its own that ends once PID is gone (never killed: a subshell signalled right
# after its fork can run the script's traps), its output away from the TAP driver's pipe.
reap() {
  sh -c 'i=0; while [ $i -lt 300 ] && kill -0 "$1"; do sleep 0.1; i=$((i + 1)); done
         kill -KILL "$1"' dog "$1" >/dev/null 2>&1 &
  wait "$1"
}
# A sanitizer's report in a program's log goes to the test's log (CI keeps only that one).
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  for p in $pids; do reap "$p" 2>/dev/null; done
  for f in "$tmp"/*.log; do
    grep -q 'Sanitizer' "$f" 2>/dev/null || continue
    echo "# --- sanitizer report in $f:" >&2
    sed -n '/Sanitizer/,$p' "$f" | head -n 80 | sed 's/^/# /' >&2
  done
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
n=0; failed=0
check() { # name, condition result (0 ok)
  n=$((n + 1))
  if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}
# is A B: 0 when equal, else 1 and what differs on stderr (the test's log)
is() { [ "$1" = "$2" ]; r=$?; [ $r = 0 ] || echo "#   got '$1', expected '$2'" >&2; echo $r; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
for tool in curl jq; do
  command -v $tool >/dev/null 2>&1 || { echo "1..0 # SKIP $tool is not installed"; exit 0; }
done

# post URL FILE [OUT]: POST FILE as JSON; the body into OUT ($tmp/resp), the status in $status
post() {
  status=$(curl -s -o "${3:-$tmp/resp}" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
           --data-binary @"$2" "$1")
}
# launch NAME ARGS...: dra-extender on a free loopback port, its log in $tmp/NAME.log; sets
# pid_NAME, p (its pid) and port (1 when it wrote none), once the port file is written.
launch() {
  name=$1; shift
  rm -f "$tmp/$name.port"
  "$ext" --listen=127.0.0.1:0 --port-file "$tmp/$name.port" "$@" 2>"$tmp/$name.log" &
  p=$!
  pids="$pids $p"
  eval "pid_$name=$p"
  i=0
  while [ ! -s "$tmp/$name.port" ] && kill -0 "$p" 2>/dev/null && [ $i -lt 300 ]; do
    sleep 0.1; i=$((i + 1))
  done
  port=$(cat "$tmp/$name.port" 2>/dev/null)
  port=${port:-1}
}
# start NAME ARGS...: launch, then wait until /readyz answers 200; sets url_NAME, pid_NAME.
start() {
  launch "$@"
  eval "url_$name=http://127.0.0.1:$port"
  i=0
  until curl -sf "http://127.0.0.1:${port:-1}/readyz" >/dev/null 2>&1 || [ $i -ge 300 ] ||
        ! kill -0 "$p" 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
  done
}
# wait_for CMD...: retry for up to 10 s
wait_for() {
  i=0
  until "$@" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
  "$@"
}

# sample_cluster: tests/extender/fakeapi ($fakeapi) on a free loopback port, loaded with the
# sample cluster of the README (examples/fleet, classes, nodes.yaml, extender/claims.yaml): sets
# base, defines ctl METHOD PATH [BODY-FILE] (its control interface), writes $tmp/kc.yaml (a
# kubeconfig for it, token t0) and checks the load.
sample_cluster() {
  "$fakeapi" >"$tmp/fakeapi.port" 2>"$tmp/fakeapi.log" &
  pids="$pids $!"
  wait_for test -s "$tmp/fakeapi.port" || { echo "Bail out! fakeapi did not start"; exit 1; }
  base=http://127.0.0.1:$(cat "$tmp/fakeapi.port")
  loaded=0
  for f in "$src"/examples/fleet/* "$src"/examples/classes/* "$src/examples/nodes.yaml" \
           "$src/examples/extender/claims.yaml"; do
    ctl POST /_control/load "$f" >/dev/null || loaded=1
  done
  check "the sample cluster is loaded into the fake API server" "$loaded"
  printf '%s\n' 'apiVersion: v1' 'kind: Config' 'current-context: fake' 'contexts:' '- name: fake' \
    '  context: {cluster: fake, user: me}' 'clusters:' '- name: fake' "  cluster: {server: \"$base\"}" \
    'users:' '- name: me' '  user: {token: t0}' >"$tmp/kc.yaml"
}
ctl() { curl -sf -X "$1" ${3:+--data-binary @"$3"} "$base$2"; }
