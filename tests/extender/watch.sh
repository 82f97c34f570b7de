#!/bin/sh
# tests/extender/watch.sh: dra-extender's Kubernetes API client (src/kube/kube.c) against
# the fake API server (tests/extender/fakeapi), run alone by tests/extender/kubewatch. TAP.
#
# After each fault the client must hold exactly the server's objects (fakeapi's /_control/state
# and kubewatch's dump compared byte for byte), with no list holding an object twice, no ADDED
# event for an object held and no MODIFIED or DELETED event for one not held; the notes show
# how it got there (relists, disconnects, errors, backoffs). Covered: paged lists, events
# (also cut into chunks of 1 to 7 bytes), exact text (int64 beyond 2^53, escapes), a connection
# broken in the middle of an event, bytes that are not JSON inside an event, an event stalled
# half-way on an open connection, a resourceVersion that goes backwards, HTTP 410 and ERROR 410
# on a watch, a compacted history with
# and without bookmarks, an expired continue token, a silent stream, 500s and 429 with
# Retry-After, connection refused (the backoff's growth), token rotation through a kubeconfig
# tokenFile, the caps, a sink that refuses, streams ending after timeoutSeconds, kube_stop
# during a silent stream and during a backoff, and when openssl is present: in cluster over TLS
# (CA file, IPv6 host), certificate-authority-data, insecure-skip-tls-verify, a client
# certificate, and a wrong CA. Kubeconfig errors (exec plugins and the rest) through
# kubewatch --describe. Every wait is bounded; all traffic goes to 127.0.0.1.
set -u
fakeapi=${FAKEAPI:-./tests/extender/fakeapi}
kubewatch=${KUBEWATCH:-./tests/extender/kubewatch}
tmp=$(mktemp -d)
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy NO_PROXY no_proxy
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT
# Sanitizer builds are slower: longer bounds (never shorter sleeps).
slow=1
[ -n "${DRACEL_SANITIZED:-}" ] && slow=3

pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  for p in $pids; do stop "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

n=0; failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() {
  n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
  for f in "$tmp"/kw*.log "$tmp/fakeapi.log"; do
    [ -s "$f" ] && { echo "#   --- tail of ${f##*/}"; tail -n 15 "$f" | sed 's/^/#   /'; }
  done
}
# check DESCRIPTION COMMAND...: one test, ok when the command succeeds
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }

now() { date +%s%3N; }
# wait_for SECONDS COMMAND...: poll every 0.1 s until the command succeeds
wait_for() {
  limit=$(( $(now) + $1 * 1000 * slow )); shift
  while ! "$@"; do
    [ "$(now)" -ge "$limit" ] && return 1
    sleep 0.1
  done
}
# stop PID: SIGTERM, then wait for it, at most 20 s (then SIGKILL); its exit status
# The watchdog is a process of its own that ends once PID is gone (never killed: a subshell
# signalled right after its fork can run this script's traps), its output away from the TAP
# driver's pipe.
stop() {
  kill -TERM "$1" 2>/dev/null
  sh -c 'i=0; while [ $i -lt "$2" ] && kill -0 "$1"; do sleep 0.1; i=$((i + 1)); done
         kill -KILL "$1"' dog "$1" $((200 * slow)) >/dev/null 2>&1 &
  wait "$1"
}
ctl() { "$kubewatch" --ctl "$@"; }
fault() { ctl POST "$base/_control/fault" "$1" >/dev/null; }
put() { ctl POST "$base/_control/objects/$1" "$2" >/dev/null; }
del() { ctl DELETE "$base/_control/objects/$1" >/dev/null; }

# A ResourceSlice NAME (compact JSON) with an int64 beyond 2^53 and escapes in a string.
slice() {
  printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"%s"},"spec":{"driver":"gpu.example.com","nodeName":"node-1","pool":{"name":"p","generation":%s,"resourceSliceCount":1},"devices":[{"name":"d0","attributes":{"big":{"int":9007199254740993},"s":{"string":"\\u00e9\\"x\\\\"}}}]}}' "$1" "${2:-1}"
}
claim() { printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"%s","namespace":"%s"},"spec":{"devices":{"requests":[]}}}' "$2" "$1"; }
class() { printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"%s"},"spec":{}}' "$1"; }
node() { printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","labels":{"x":"%s"}}}' "$1" "${2:-a}"; }

# start_server FILE-PREFIX ARGS...: start fakeapi; its URL in $base, its pid in $fpid
start_server() {
  log=$1; shift
  : >"$tmp/$log.port"
  "$fakeapi" "$@" >"$tmp/$log.port" 2>>"$tmp/fakeapi.log" &
  fpid=$!; pids="$pids $fpid"
  wait_for 10 test -s "$tmp/$log.port" || { echo "Bail out! fakeapi did not start"; exit 1; }
  port=$(cat "$tmp/$log.port")
}

# A kubeconfig: kubeconfig FILE SERVER [USER-YAML]
kubeconfig() {
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
current-context: fake
contexts:
- name: fake
  context:
    cluster: fake
    user: me
- name: other
  context:
    cluster: elsewhere
clusters:
- name: fake
  cluster:
    server: $2
- name: elsewhere
  cluster:
    server: https://192.0.2.1:6443
users:
- name: me
  user:
${3:-    tokenFile: token}
EOF
}

# start_watch NAME ARGS...: kubewatch in the background, dumping to $tmp/NAME.dump, logging to
# $tmp/NAME.log; its pid in $kw
start_watch() {
  name=$1; shift
  "$kubewatch" --dump "$tmp/$name.dump" "$@" 2>>"$tmp/$name.log" &
  kw=$!; pids="$pids $kw"
  # its first line comes once SIGUSR1 is blocked (before, the signal would kill it)
  wait_for 10 grep -qs '^kubewatch: ' "$tmp/$name.log" || echo "# kubewatch $name did not start"
}

# snap PID NAME: ask kubewatch PID for its state, and wait for it in $tmp/NAME.dump
snap() {
  rm -f "$tmp/$2.dump"
  kill -USR1 "$1" 2>/dev/null || return 1
  # not wait_for: snap runs inside wait_for, and sh has no local variables
  snap_limit=$(( $(now) + 10000 * slow ))
  while ! test -s "$tmp/$2.dump"; do
    [ "$(now)" -ge "$snap_limit" ] && return 1
    sleep 0.05
  done
}
objects() { grep -E '^,?\[' "$1" | sed 's/^,//'; }
# same PID NAME: kubewatch holds exactly the server's objects
same() {
  ctl GET "$base/_control/state" >"$tmp/srv" || return 1
  snap "$1" "$2" || return 1
  objects "$tmp/srv" >"$tmp/srv.objs"
  objects "$tmp/$2.dump" >"$tmp/$2.objs"
  cmp -s "$tmp/srv.objs" "$tmp/$2.objs"
}
converge() { wait_for "${3:-30}" same "$1" "$2"; }
# field NAME RES KEY: a number of RES's notes in the last dump of NAME
field() {
  sed -n "s/^,\{0,1\}\"$2\":{\(.*\)}\$/\1/p" "$tmp/$1.dump" | tr ',' '\n' |
    sed -n "s/^\"$3\":\([0-9]*\)\$/\1/p"
}
# sfield NAME RES KEY: a string of RES's notes
sfield() {
  sed -n "s/^,\{0,1\}\"$2\":{\(.*\)}\$/\1/p" "$tmp/$1.dump" | sed -n "s/.*\"$3\":\"\([^\"]*\)\".*/\1/p"
}
# total NAME KEY: a number summed over the resources
total() {
  t=0
  for r in resourceslices deviceclasses resourceclaims nodes; do t=$((t + $(field "$1" $r "$2"))); done
  echo $t
}
# server KEY: a counter of the server's last state
server() { sed -n "1s/.*\"$1\":\"\{0,1\}\([0-9]*\).*/\1/p" "$tmp/srv"; }
# clean NAME: no object twice in a list, no ADDED for one held, no change for one not held
clean() {
  for r in resourceslices deviceclasses resourceclaims nodes; do
    [ "$(field "$1" $r dups)" = 0 ] && [ "$(field "$1" $r added_held)" = 0 ] &&
      [ "$(field "$1" $r changed_missing)" = 0 ] || return 1
  done
}
eq() { [ "$1" = "$2" ] || { echo "#   expected $2, got $1"; return 1; }; }
ge() { [ "$1" -ge "$2" ] || { echo "#   expected at least $2, got $1"; return 1; }; }
lt() { [ "$1" -lt "$2" ] || { echo "#   expected less than $2, got $1"; return 1; }; }
has() { grep -q -- "$2" "$1"; }

# ---- The main server and client.
start_server main --bookmark-ms 300
base=http://127.0.0.1:$port
main_fpid=$fpid
echo t0 >"$tmp/token"
kubeconfig "$tmp/kc.yaml" "$base/"
for i in 1 2 3 4 5 6 7; do put resourceslices "$(slice s$i)"; done
put resourceclaims "$(claim ns-a c1)"; put resourceclaims "$(claim ns-b c1)"; put resourceclaims "$(claim ns-a c2)"
put deviceclasses "$(class gpu)"; put deviceclasses "$(class fpga)"
put nodes "$(node node-1)"; put nodes "$(node node-2)"

watch_args="--kubeconfig $tmp/kc.yaml --list-limit 3 --idle-timeout 3 --backoff-min 100 --backoff-max 1000 --connect-timeout 2000"
# shellcheck disable=SC2086
start_watch kw $watch_args
main=$kw

# 1. The first list, in pages of 3.
check "initial list: synced, in pages (7 slices in 3 pages, 3 claims, 2 classes, 2 nodes: 6 LISTs)" \
  converge $main kw
check "initial list: one LIST page after another, no relist" \
  sh -c "[ \"\$(sed -n '1s/.*\"lists\":\([0-9]*\).*/\1/p' '$tmp/srv')\" = 6 ]"
check "initial list: listed once each, synced" eq "$(total kw listed)/$(total kw synced)/$(total kw relist)" "4/4/0"
check "initial list: objects clean" clean kw
check "exact text: the int64 9007199254740993 and the escapes arrive as written" \
  has "$tmp/kw.dump" '"big":{"int":9007199254740993},"s":{"string":"\\u00e9\\"x\\\\"}'

# 2. Events.
put resourceslices "$(slice s8)"; put resourceslices "$(slice s2 2)"; del resourceslices/s3
put resourceclaims "$(claim ns-c c9)"; del resourceclaims/ns-a/c2; put nodes "$(node node-1 b)"
check "events: added, modified, deleted across resources" converge $main kw
check "events: counted as sent" eq "$(total kw added)/$(total kw modified)/$(total kw deleted)" "2/2/2"
check "events: no relist" eq "$(total kw relist)" 0
check "events: clean" clean kw

# 3. Events cut into writes of 1 to 7 bytes.
fault '{"chunk":7}'
for i in 10 11 12 13 14 15; do put resourceslices "$(slice s$i)"; done
put deviceclasses "$(class tpu)"
check "chunks of 1 to 7 bytes: every event reassembled" converge $main kw
fault '{"chunk":0}'

# 4. A connection broken in the middle of an event: resume from the last resourceVersion.
relist0=$(field kw resourceslices relist); disc0=$(field kw resourceslices disconnect)
fault '{"res":"resourceslices","cut":1}'
put resourceslices "$(slice s20)"
check "cut mid-event: converged" converge $main kw
check "cut mid-event: the server cut one event" eq "$(server cuts)" 1
check "cut mid-event: a disconnect, no relist" \
  sh -c "[ $(field kw resourceslices disconnect) -gt $disc0 ] && [ $(field kw resourceslices relist) = $relist0 ]"
check "cut mid-event: nothing delivered twice" clean kw

# 4b. Faults inside a stream: bytes that are not JSON in the middle of an event (the stream
# goes on: the line is refused and the resource listed again, nothing of it applied); an event
# that stops half-way while the connection stays open (found dead by --idle-timeout, resumed
# without a relist, the half event never applied). A resourceVersion that goes backwards: 17b.
g_relist0=$(field kw resourceslices relist)
fault '{"res":"resourceslices","garbage":1}'
put resourceslices "$(slice s22)"
check "garbage inside an event: converged" converge $main kw
check "garbage inside an event: the server garbled one" eq "$(server garbled)" 1
check "garbage inside an event: one relist, with the reason" \
  eq "$(field kw resourceslices relist) $(sfield kw resourceslices last_relist)" \
     "$((g_relist0 + 1)) a bad watch event: the event is not a valid JSON object"
check "garbage inside an event: clean" clean kw
n_relist0=$(field kw nodes relist)
fault '{"res":"nodes","stall_ms":60000}'
put nodes "$(node node-3)"
check "a stream stalled in the middle of an event: converged" converge $main kw 30
check "...the server stalled one" eq "$(server stalls)" 1
check "...found dead after 3 s, resumed without a relist" \
  eq "$(sfield kw nodes last_disconnect) $(field kw nodes relist)" "nothing received for 3 s $n_relist0"
relist0=$(field kw resourceslices relist)

# 5. HTTP 410 on a watch, then an ERROR event with code 410: relist.
fault '{"res":"resourceslices","gone":"http","close":true}'
put resourceslices "$(slice s21)"
check "HTTP 410 on watch: converged" converge $main kw
check "HTTP 410 on watch: one relist" eq "$(field kw resourceslices relist)" $((relist0 + 1))
check "HTTP 410 on watch: the reason" eq "$(sfield kw resourceslices last_relist)" "WATCH: HTTP 410 Gone"
fault '{"res":"resourceclaims","gone":"event","close":true}'
del resourceclaims/ns-b/c1
check "ERROR 410 event: converged" converge $main kw
check "ERROR 410 event: one relist" eq "$(field kw resourceclaims relist)" 1
check "ERROR 410 event: the reason" has "$tmp/kw.log" 'resourceclaims relist ERROR event: 410 Expired'
check "410: nothing lost or duplicated" clean kw

# 6. Bookmarks: they advance the resourceVersion, so that a compacted history does not force a
# relist; without them it does.
put nodes "$(node node-3)"
ctl GET "$base/_control/state" >"$tmp/srv"
rv=$(server rv)
bm_now() { snap $main kw && [ "$(sfield kw deviceclasses last_bookmark)" = "$1" ]; }
check "bookmarks: deviceclasses' resourceVersion follows the server's ($rv) without an event" \
  wait_for 10 bm_now "$rv"
fault '{"compact":true}'
ctl GET "$base/_control/state" >"$tmp/srv"
crv=$(server compacted)
check "compaction then a bookmark: the bookmark carries the new resourceVersion ($crv)" \
  wait_for 10 bm_now "$crv"
relist_dc=$(field kw deviceclasses relist)
fault '{"res":"deviceclasses","close":true}'
put deviceclasses "$(class after-compaction)"
check "compaction after a bookmark: converged" converge $main kw
check "compaction after a bookmark: no relist (resumed from the bookmark)" \
  eq "$(field kw deviceclasses relist)" "$relist_dc"
relist_n=$(field kw nodes relist)
fault '{"compact":true,"res":"nodes","close":true}'
put nodes "$(node node-4)"
check "compaction before a bookmark: converged" converge $main kw
check "compaction before a bookmark: relisted (ERROR 410)" eq "$(field kw nodes relist)" $((relist_n + 1))

# 7. An expired continue token: the list starts again (client-go's pager), no partial list.
relist0=$(field kw resourceslices relist); listed0=$(field kw resourceslices listed)
fault '{"compact_after_page":true,"res":"resourceslices","gone":"http","close":true}'
check "expired continue token: converged" converge $main kw
check "expired continue token: two relists (410, then the continue token)" \
  eq "$(field kw resourceslices relist)" $((relist0 + 2))
check "expired continue token: one more complete list delivered" \
  eq "$(field kw resourceslices listed)" $((listed0 + 1))
check "expired continue token: the reason" has "$tmp/kw.log" 'the continue token expired (410): the list starts again'
check "expired continue token: clean" clean kw

# 8. A silent stream (no bytes, no bookmarks) is found dead after the idle timeout (3 s).
relist0=$(field kw resourceslices relist)
fault '{"res":"resourceslices","silent_ms":60000}'
put resourceslices "$(slice s30)"
check "silent stream: converged" converge $main kw 30
check "silent stream: found dead after 3 s" eq "$(sfield kw resourceslices last_disconnect)" "nothing received for 3 s"
check "silent stream: resumed without a relist" eq "$(field kw resourceslices relist)" "$relist0"

# A response that does not start within the idle timeout (3 s) is given up, then retried.
idle0=$(grep -c 'resourceslices disconnect nothing received for 3 s' "$tmp/kw.log")
fault '{"delays":1,"delay_ms":4500,"res":"resourceslices","close":true}'
put resourceslices "$(slice s32)"
check "a response 4.5 s late: converged" converge $main kw 30
check "a response 4.5 s late: given up after 3 s" \
  ge "$(grep -c 'resourceslices disconnect nothing received for 3 s' "$tmp/kw.log")" $((idle0 + 1))

# 9. 500s: errors, backoffs, then recovery.
err0=$(total kw error); bo0=$(total kw backoff)
fault '{"errors":6,"status":500,"close":true}'
put nodes "$(node node-5)"
check "500s: converged" converge $main kw
# converged can come before every error is spent (another resource may still be backing off)
spent() { snap $main kw && [ $(( $(total kw error) - err0 )) -ge 6 ] && [ $(( $(total kw backoff) - bo0 )) -ge 6 ]; }
wait_for 20 spent
check "500s: six errors noted" ge $(( $(total kw error) - err0 )) 6
check "500s: backed off" ge $(( $(total kw backoff) - bo0 )) 6
check "500s: the message" has "$tmp/kw.log" 'HTTP 500 InternalError: injected failure'
# 429 with Retry-After: 1: the backoff is the server's second (backoff-max is 1000 ms).
fault '{"errors":1,"status":429,"retry_after":1,"res":"resourceslices","close":true}'
put resourceslices "$(slice s31)"
check "429 with Retry-After: converged" converge $main kw
check "429 with Retry-After: waited 1000 ms" has "$tmp/kw.log" 'resourceslices backoff 1000$'
check "errors: clean" clean kw

# 10. Token rotation through the kubeconfig's tokenFile, read before every request.
fault '{"tokens":["t0","t1"]}'
echo t1 >"$tmp/token"
fault '{"tokens":["t1"],"close":true}'
put resourceslices "$(slice s40)"
check "token rotated (file first): converged with the new token" converge $main kw
ctl GET "$base/_control/state" >"$tmp/srv"
check "token rotated (file first): no request refused" eq "$(server unauthorized)" 0
fault '{"tokens":["t2"],"close":true}'
put resourceslices "$(slice s41)"
has_401() { ctl GET "$base/_control/state" >"$tmp/srv" && [ "$(server unauthorized)" -gt 0 ]; }
check "token rotated (server first): refused with the old token" wait_for 20 has_401
echo t2 >"$tmp/token"
check "token rotated (server first): converged once the file has it" converge $main kw
check "token rotated: the 401 noted" has "$tmp/kw.log" 'HTTP 401 Unauthorized'
fault '{"tokens":null}'

# 11. Caps: an event and a list item over max_object_bytes, a list over max_list_bytes.
# shellcheck disable=SC2086
start_watch kwcap --kubeconfig "$tmp/kc.yaml" --max-object-bytes 1000 --backoff-min 100 --backoff-max 500 --idle-timeout 5
cap=$kw
check "caps: a second client synced" converge $cap kwcap
pad=$(printf '%01200d' 0)
put resourceslices "$(printf '{"metadata":{"name":"zz-big"},"spec":{"pad":"%s"}}' "$pad")"
check "caps: an event over max_object_bytes is an error" \
  wait_for 20 has "$tmp/kwcap.log" 'an event passed max_object_bytes (1000 bytes)'
check "caps: ... and the list that follows holds it: an error too" \
  wait_for 20 has "$tmp/kwcap.log" 'LIST: an item passed max_object_bytes'
del resourceslices/zz-big
check "caps: recovered once the object is gone" converge $cap kwcap
check "caps: clean" clean kwcap
stop $cap; rc=$?
check "caps: the second client exits cleanly" eq $rc 0
timeout $((30 * slow)) "$kubewatch" --kubeconfig "$tmp/kc.yaml" --max-list-bytes 2000 --backoff-min 100 \
  --for 2 >"$tmp/kwlist.dump" 2>"$tmp/kwlist.log"
check "caps: a list over max_list_bytes is never delivered" \
  sh -c "grep -q '^\"resourceslices\":{\"listed\":0,' '$tmp/kwlist.dump' && grep -q 'LIST: the list passed max_list_bytes (2000 bytes)' '$tmp/kwlist.log'"

# 12. A sink that refuses: a list, then an event.
timeout $((30 * slow)) "$kubewatch" --kubeconfig "$tmp/kc.yaml" --refuse-replace 1 --backoff-min 100 \
  --until-synced >"$tmp/kwref.dump" 2>"$tmp/kwref.log"
check "sink refuses a list: retried, synced" \
  sh -c "grep -q '^{\"synced\":true' '$tmp/kwref.dump' && grep -q 'the sink refused the list' '$tmp/kwref.log'"
start_watch kwev --kubeconfig "$tmp/kc.yaml" --refuse-event 1 --backoff-min 100
ev=$kw
check "sink refuses an event: synced" converge $ev kwev
put deviceclasses "$(class refused-once)"
check "sink refuses an event: relisted, converged" converge $ev kwev
check "sink refuses an event: the reason" has "$tmp/kwev.log" 'relist the sink refused an event'
stop $ev
check "sink refuses an event: exits cleanly" eq $? 0

# 13. Streams that end after timeoutSeconds are resumed at once.
timeout $((30 * slow)) "$kubewatch" --kubeconfig "$tmp/kc.yaml" --watch-timeout 1 --for 5 \
  >"$tmp/kwto.dump" 2>"$tmp/kwto.log"
check "timeoutSeconds: watches resumed (3 or more each), no relist, no backoff" \
  sh -c "
    for r in resourceslices deviceclasses resourceclaims nodes; do
      line=\$(grep \"^,\\{0,1\\}\\\"\$r\\\":{\" '$tmp/kwto.dump')
      w=\$(echo \"\$line\" | sed 's/.*\"watch\":\([0-9]*\).*/\1/')
      echo \"\$line\" | grep -q '\"relist\":0,.*\"backoff\":0,' && [ \"\$w\" -ge 3 ] || exit 1
    done"
check "timeoutSeconds: the reason" has "$tmp/kwto.log" 'disconnect the stream ended'

# 14. Connection refused: the backoff doubles from backoff-min up to backoff-max, with jitter;
# kube_stop ends a backoff sleep at once.
start_server dead
dead=http://127.0.0.1:$port
stop $fpid
kubeconfig "$tmp/dead.yaml" "$dead"
timeout $((30 * slow)) "$kubewatch" --kubeconfig "$tmp/dead.yaml" --backoff-min 100 --backoff-max 800 \
  --for 4 >"$tmp/kwdead.dump" 2>"$tmp/kwdead.log"
sed -n 's/.* resourceslices backoff \([0-9]*\)$/\1/p' "$tmp/kwdead.log" >"$tmp/backoffs"
check "connection refused: noted" has "$tmp/kwdead.log" 'resourceslices error LIST: .*onnect'
check "connection refused: first backoff in [50, 100] ms" \
  sh -c "b=\$(sed -n 1p '$tmp/backoffs'); [ \"\$b\" -ge 50 ] && [ \"\$b\" -le 100 ]"
check "connection refused: the fourth in [400, 800] ms, none over 800" \
  sh -c "b=\$(sed -n 4p '$tmp/backoffs'); [ \"\$b\" -ge 400 ] && ! awk '\$1 > 800 { bad = 1 } END { exit !bad }' '$tmp/backoffs'"
start_watch kwstop --kubeconfig "$tmp/dead.yaml" --backoff-min 20000 --backoff-max 30000
stopper=$kw
wait_for 10 has "$tmp/kwstop.log" 'backoff' >/dev/null
t=$(now); stop $stopper; rc=$?; t=$(( $(now) - t ))
check "kube_stop during a 10 s backoff: exits cleanly" eq $rc 0
check "kube_stop during a 10 s backoff: stopped in under 1 s ($t ms)" lt "$t" $((1000 * slow))

# 15. Kubeconfig and in-cluster settings (kube_new only).
desc() { "$kubewatch" --describe "$@" 2>&1; }
kcbad() { # FILE USER-YAML: a kubeconfig whose user is USER-YAML
  kubeconfig "$1" "$base" "$2"
}
check "kubeconfig: described (server, tokenFile relative to the kubeconfig)" \
  eq "$(desc --kubeconfig "$tmp/kc.yaml")" "$base (kubeconfig $tmp/kc.yaml; plain HTTP; bearer token from $tmp/token)"
check "kubeconfig: a named context" \
  eq "$(desc --kubeconfig "$tmp/kc.yaml" --context other)" "https://192.0.2.1:6443 (kubeconfig $tmp/kc.yaml, context other; the system's CAs)"
check "kubeconfig: an unknown context" \
  eq "$(desc --kubeconfig "$tmp/kc.yaml" --context nope)" "kubewatch: $tmp/kc.yaml: context \"nope\" not found"
kcbad "$tmp/exec.yaml" '    exec:
      command: aws'
check "kubeconfig: exec plugins refused" \
  eq "$(desc --kubeconfig "$tmp/exec.yaml")" "kubewatch: $tmp/exec.yaml: user \"me\": exec credential plugins are not supported (use a token, tokenFile or a client certificate)"
kcbad "$tmp/ap.yaml" '    auth-provider:
      name: gcp'
check "kubeconfig: auth-provider refused" \
  eq "$(desc --kubeconfig "$tmp/ap.yaml")" "kubewatch: $tmp/ap.yaml: user \"me\": auth-provider plugins are not supported (use a token, tokenFile or a client certificate)"
kcbad "$tmp/basic.yaml" '    username: a
    password: b'
check "kubeconfig: basic authentication refused" \
  eq "$(desc --kubeconfig "$tmp/basic.yaml")" "kubewatch: $tmp/basic.yaml: user \"me\": basic authentication (username/password) is not supported"
kcbad "$tmp/tok.yaml" '    token: abc'
check "kubeconfig: a fixed token" eq "$(desc --kubeconfig "$tmp/tok.yaml")" "$base (kubeconfig $tmp/tok.yaml; plain HTTP; bearer token)"
kcbad "$tmp/nofile.yaml" '    tokenFile: /nonexistent/token'
check "kubeconfig: a missing token file" \
  eq "$(desc --kubeconfig "$tmp/nofile.yaml")" "kubewatch: /nonexistent/token: No such file or directory"
kcbad "$tmp/b64.yaml" '    client-certificate-data: "not base64!"
    client-key-data: QUJD'
check "kubeconfig: bad base64" \
  eq "$(desc --kubeconfig "$tmp/b64.yaml")" "kubewatch: $tmp/b64.yaml: client-certificate-data is not base64"
kcbad "$tmp/alias.yaml" '    token: &t abc
    tokenFile: *t'
check "kubeconfig: YAML aliases refused" \
  sh -c "'$kubewatch' --describe --kubeconfig '$tmp/alias.yaml' 2>&1 | grep -q 'YAML aliases are not supported'"
check "in cluster: needs KUBERNETES_SERVICE_HOST and _PORT" \
  eq "$(desc --in-cluster)" "kubewatch: no kubeconfig given, and not in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)"
check "in cluster: an IPv6 host in brackets" \
  eq "$(KUBERNETES_SERVICE_HOST=fd00::1 KUBERNETES_SERVICE_PORT=443 desc --in-cluster --token-file "$tmp/token" --ca-file "$tmp/kc.yaml")" \
  "https://[fd00::1]:443 (in cluster; CA $tmp/kc.yaml; bearer token from $tmp/token)"

# 16. Over TLS (when openssl is here): in cluster with the service account's CA and token;
# certificate-authority-data; insecure-skip-tls-verify; a client certificate; a wrong CA.
if command -v openssl >/dev/null 2>&1 &&
   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$tmp/ca.key" \
     -out "$tmp/ca.crt" -days 2 -subj /CN=fake-ca >/dev/null 2>&1 &&
   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$tmp/other.key" \
     -out "$tmp/other.crt" -days 2 -subj /CN=other-ca >/dev/null 2>&1 &&
   openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$tmp/srv.key" \
     -out "$tmp/srv.csr" -subj /CN=127.0.0.1 >/dev/null 2>&1 &&
   printf 'subjectAltName=IP:127.0.0.1\n' >"$tmp/ext" &&
   openssl x509 -req -in "$tmp/srv.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
     -out "$tmp/srv.crt" -days 2 -extfile "$tmp/ext" >/dev/null 2>&1 &&
   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$tmp/cli.key" \
     -out "$tmp/cli.crt" -days 2 -subj /CN=client >/dev/null 2>&1; then
  start_server tls --tls-cert "$tmp/srv.crt" --tls-key "$tmp/srv.key" --token sa-token
  tport=$port
  echo sa-token >"$tmp/sa-token"
  incluster() {
    KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$tport timeout $((30 * slow)) \
      "$kubewatch" --in-cluster --token-file "$tmp/sa-token" "$@"
  }
  incluster --ca-file "$tmp/ca.crt" --until-synced >"$tmp/kwtls.dump" 2>"$tmp/kwtls.log"
  check "TLS in cluster: synced, the CA verified, the token sent" \
    sh -c "grep -q '^{\"synced\":true' '$tmp/kwtls.dump' && grep -q 'https://127.0.0.1:$tport (in cluster; CA $tmp/ca.crt; bearer token from $tmp/sa-token)' '$tmp/kwtls.log'"
  incluster --ca-file "$tmp/other.crt" --for 2 >"$tmp/kwbad.dump" 2>"$tmp/kwbad.log"
  check "TLS in cluster: a server the CA did not sign is refused" \
    sh -c "grep -q '^{\"synced\":false' '$tmp/kwbad.dump' && grep -qi 'certificate' '$tmp/kwbad.log'"
  b64() { base64 <"$1" | tr -d '\n'; }
  kubeconfig "$tmp/tls.yaml" "https://127.0.0.1:$tport" "    tokenFile: sa-token
    client-certificate-data: $(b64 "$tmp/cli.crt")
    client-key-data: $(b64 "$tmp/cli.key")"
  sed -i "s|    server: https://127.0.0.1:$tport|    server: https://127.0.0.1:$tport\n    certificate-authority-data: $(b64 "$tmp/ca.crt")|" "$tmp/tls.yaml"
  timeout $((30 * slow)) "$kubewatch" --kubeconfig "$tmp/tls.yaml" --until-synced >"$tmp/kwca.dump" 2>"$tmp/kwca.log"
  check "TLS: certificate-authority-data and a client certificate (data)" \
    sh -c "grep -q '^{\"synced\":true' '$tmp/kwca.dump' && grep -q 'CA from certificate-authority-data; bearer token from $tmp/sa-token; client certificate)' '$tmp/kwca.log'"
  kubeconfig "$tmp/insecure.yaml" "https://127.0.0.1:$tport" "    tokenFile: sa-token"
  sed -i "s|    server: https://127.0.0.1:$tport|    server: https://127.0.0.1:$tport\n    insecure-skip-tls-verify: true|" "$tmp/insecure.yaml"
  timeout $((30 * slow)) "$kubewatch" --kubeconfig "$tmp/insecure.yaml" --until-synced >"$tmp/kwins.dump" 2>"$tmp/kwins.log"
  check "TLS: insecure-skip-tls-verify" \
    sh -c "grep -q '^{\"synced\":true' '$tmp/kwins.dump' && grep -q 'TLS verification off' '$tmp/kwins.log'"
  kubeconfig "$tmp/junk.yaml" "https://127.0.0.1:$tport" "    tokenFile: sa-token
    client-certificate-data: $(printf 'junk' | base64)
    client-key-data: $(printf 'junk' | base64)"
  sed -i "s|    server: https://127.0.0.1:$tport|    server: https://127.0.0.1:$tport\n    insecure-skip-tls-verify: true|" "$tmp/junk.yaml"
  timeout $((30 * slow)) "$kubewatch" --kubeconfig "$tmp/junk.yaml" --for 2 >"$tmp/kwjunk.dump" 2>"$tmp/kwjunk.log"
  check "TLS: a client certificate that is not one is an error" \
    sh -c "grep -q '^{\"synced\":false' '$tmp/kwjunk.dump' && grep -q 'resourceslices error LIST' '$tmp/kwjunk.log'"
  stop $fpid
  check "TLS: the server exits cleanly" eq $? 0
else
  for d in "TLS in cluster" "TLS: a wrong CA" "TLS: certificate-authority-data" "TLS: insecure" "TLS: client certificate" "TLS: server exit"; do
    n=$((n + 1)); echo "ok $n - $d # SKIP openssl could not make certificates"
  done
fi

# 17. kube_stop while watches are open and one stream is silent.
converge $main kw >/dev/null
fault '{"res":"nodes","silent_ms":60000}'
sleep 0.5
t=$(now); stop $main; rc=$?; t=$(( $(now) - t ))
check "kube_stop with open watches: exits cleanly" eq $rc 0
check "kube_stop with open watches: stopped in under 1 s ($t ms, kube_stop $(sed -n 's/^{"synced":[a-z]*,"stop_ms":\([0-9]*\).*/\1/p' "$tmp/kw.dump") ms)" lt "$t" $((1000 * slow))
check "main client: clean to the end" clean kw

# 17b. An event whose resourceVersion goes back to "1". The version is opaque to clients
# (Kubernetes' API conventions): the client keeps the object as sent and goes on (a bookmark
# or a later event moves its resourceVersion on), so nothing that follows is lost; what was
# sent wrong stays until the next list, which repairs it. A client of its own; the fault is
# for streams opened after it (a dead stream of a client stopped before could take the event
# and drop it): the close makes this client open its next.
# shellcheck disable=SC2086
start_watch kwrv $watch_args
rvc=$kw
# sent KEY N: the server's counter KEY is N
sent() { ctl GET "$base/_control/state" >"$tmp/srv" && [ "$(server "$1")" = "$2" ]; }
check "...a client of its own synced" converge $rvc kwrv
w0=$(grep -c 'resourceclaims watch' "$tmp/kwrv.log")
fault '{"res":"resourceclaims","rv_back":1,"close":true}'
rewatched() { [ "$(grep -c 'resourceclaims watch' "$tmp/kwrv.log")" -gt "$w0" ]; }
wait_for 10 rewatched
put resourceclaims "$(claim ns-d c3)"
wait_for 10 sent rv_backs 1 >/dev/null
put resourceclaims "$(claim ns-d c4)"
held() {
  snap $rvc kwrv && grep -q '"ns-d","c4"' "$tmp/kwrv.dump" &&
    grep '"ns-d","c3"' "$tmp/kwrv.dump" | grep -q '"resourceVersion":"1"'
}
check "a resourceVersion that goes backwards: the object kept as sent, the next event taken" \
  wait_for 30 held
check "...the server sent one" eq "$(server rv_backs)" 1
fault '{"res":"resourceclaims","gone":"http","close":true}'
check "...the next list repairs it: converged" converge $rvc kwrv
stop $rvc >/dev/null 2>&1

# 18. Measured (reported, not judged): events through the client, a relist of many objects,
# a first sync. The main client is stopped: the benchmark's client is the only one watching.
start_watch kwbench --kubeconfig "$tmp/kc.yaml" --idle-timeout 30
bench=$kw
converge $bench kwbench >/dev/null
awk 'BEGIN { printf "[" ; for (i = 0; i < 5000; i++) printf "%s{\"metadata\":{\"name\":\"bulk-%05d\"},\"spec\":{\"driver\":\"gpu.example.com\",\"devices\":[{\"name\":\"d0\",\"attributes\":{\"big\":{\"int\":9007199254740993}}}]}}", (i ? "," : ""), i; printf "]" }' >"$tmp/bulk.json"
put resourceslices "@$tmp/bulk.json"
check "5,000 events: the client converged" converge $bench kwbench 120
first=$(field kwbench resourceslices first_event_ms); last=$(field kwbench resourceslices last_event_ms)
echo "# measured: 5000 ADDED events in $((last - first)) ms through the client ($((5000000 / (last - first + 1))) events/s)"
fault '{"res":"resourceslices","gone":"http","close":true}'
relisted() { snap $bench kwbench && [ "$(field kwbench resourceslices listed)" -ge 2 ]; }
check "relist of 5,000+ slices" wait_for 60 relisted
echo "# measured: relist of $(field kwbench resourceslices objects) slices in $(field kwbench resourceslices list_ms) ms (pages of 500)"
t=$(now)
timeout $((60 * slow)) "$kubewatch" --kubeconfig "$tmp/kc.yaml" --until-synced >/dev/null 2>"$tmp/kwsync.log"
echo "# measured: a first sync of every resource in $(( $(now) - t )) ms (process start included)"
stop $bench
check "benchmark client: exits cleanly" eq $? 0

stop $main_fpid
check "fakeapi exits cleanly" eq $? 0
pids=""
# In a sanitizer build, the reports of runs whose exit status is not checked (kubewatch with
# --for or --until-synced) are in the logs.
check "no sanitizer report in any log" \
  sh -c "! grep -l -E 'ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:' '$tmp'/*.log"

echo "1..$n"
[ "$failed" = 0 ]
