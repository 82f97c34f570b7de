#!/bin/sh
# tests/extender/auth.sh: who may call dra-extender (docs/extender.md, "Who may call what").
# With --tls-client-ca, every request but the probes' needs a client certificate signed by that
# CA and meant for client authentication, and with --tls-client-name one of those common names:
# none is 401, a certificate of another CA, an expired one or a server's is 401, a name not
# allowed is 403, each with the JSON reason, answered before the body is read; /healthz and
# /readyz answer without one, on the main port and on the probe port; the policy endpoints stay
# loopback-only on top. The certificates are made here with openssl. The real program on
# loopback ports; TAP output; every wait is bounded.
set -u
ext=${DRA_EXTENDER:-./dra-extender}
case $ext in /*) ;; *) ext=$PWD/$ext ;; esac
src=${top_srcdir:-.}
tmp=$(mktemp -d)
. "$src/tests/extender/common.sh"
command -v openssl >/dev/null 2>&1 || { echo "1..0 # SKIP openssl is not installed"; exit 0; }

# ---- Certificates: a CA, the server's, and clients: the scheduler's, another name's, one of
# another CA, an expired one, and a server certificate (serverAuth only) of the right CA.
ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
# ca NAME: a self-signed CA
ca() {
  # shellcheck disable=SC2086 # $ec is several words
  openssl req -x509 $ec -keyout "$tmp/$1.key" -out "$tmp/$1.pem" -days 2 -subj "/CN=$1" \
    >/dev/null 2>&1
}
# cert NAME CN CA EKU [DAYS-AGO]: a certificate signed by CA with that extended key usage
cert() {
  printf 'extendedKeyUsage = %s\n' "$4" >"$tmp/$1.ext"
  # shellcheck disable=SC2086
  openssl req -new $ec -keyout "$tmp/$1.key" -out "$tmp/$1.csr" -subj "/CN=$2" >/dev/null 2>&1 &&
  if [ $# -ge 5 ]; then # valid from 3 days ago to 1 day ago, through a temporary CA database
    mkdir -p "$tmp/db" && : >"$tmp/db/index" && echo 01 >"$tmp/db/serial" &&
    printf '[ca]\ndefault_ca = c\n[c]\ndatabase = %s/db/index\nserial = %s/db/serial\nnew_certs_dir = %s/db\ndefault_md = sha256\npolicy = p\n[p]\ncommonName = supplied\n' \
      "$tmp" "$tmp" "$tmp" >"$tmp/db/conf" &&
    openssl ca -batch -config "$tmp/db/conf" -cert "$tmp/$3.pem" -keyfile "$tmp/$3.key" \
      -in "$tmp/$1.csr" -out "$tmp/$1.pem" -extfile "$tmp/$1.ext" \
      -startdate "$(date -u -d "$5 days ago" +%Y%m%d%H%M%SZ)" \
      -enddate "$(date -u -d '1 day ago' +%Y%m%d%H%M%SZ)" >/dev/null 2>&1
  else
    openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/$3.pem" -CAkey "$tmp/$3.key" \
      -CAcreateserial -days 1 -extfile "$tmp/$1.ext" -out "$tmp/$1.pem" >/dev/null 2>&1
  fi
}
if ! { ca ca && ca other && cert server 127.0.0.1 ca serverAuth && ca hookca &&
       cert hook 127.0.0.1 hookca serverAuth &&
       cert sched kube-scheduler ca clientAuth && cert intruder intruder ca clientAuth &&
       cert stranger kube-scheduler other clientAuth &&
       cert expired kube-scheduler ca clientAuth 3 && cert srvonly kube-scheduler ca serverAuth; }
then
  echo "1..0 # SKIP openssl could not make the certificates"; exit 0
fi

mkdir -p "$tmp/objs/claims"
cp -r "$src/examples/fleet" "$src/examples/classes" "$src/examples/nodes.yaml" "$tmp/objs/"
cp "$src/examples/extender/claims.yaml" "$tmp/objs/claims/"
req=$src/examples/extender/filter.json

# A TLS server: start cannot wait on plain-HTTP /readyz.
# tstart NAME ARGS...: dra-extender over HTTPS on a free loopback port, a probe port beside it;
# sets url_NAME (https), probe_NAME, pid_NAME.
tstart() {
  tname=$1; shift
  launch "$tname" --probe-listen 127.0.0.1:0 --objects "$tmp/objs" --tls-cert "$tmp/server.pem" \
    --tls-key "$tmp/server.key" "$@"
  eval "url_$name=https://127.0.0.1:$port"
  i=0
  until [ $i -ge 300 ] || ! kill -0 "$p" 2>/dev/null ||
        grep -q '"msg":"serving probes"' "$tmp/$name.log"; do
    sleep 0.1; i=$((i + 1))
  done
  pp=$(sed -n 's/.*"msg":"serving probes".*"port":\([0-9]*\).*/\1/p' "$tmp/$name.log" | head -n 1)
  eval "probe_$name=https://127.0.0.1:${pp:-1}"
}
# call [CLIENT] METHOD URL [BODY]: the status and the JSON reason ("-" without one) as one
# line; CLIENT names the certificate sent (none: no certificate)
call() {
  cl=
  case $1 in GET|POST) ;; *) cl="--cert $tmp/$1.pem --key $tmp/$1.key"; shift ;; esac
  # shellcheck disable=SC2086 # $cl is several words
  if [ $# -ge 3 ]; then
    code=$(curl -sk $cl -o "$tmp/resp" -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' \
           --data-binary @"$3" "$2")
  else
    code=$(curl -sk $cl -o "$tmp/resp" -w '%{http_code}' -X "$1" "$2")
  fi
  echo "$code $(jq -r '.error // "-"' "$tmp/resp" 2>/dev/null || echo '(not JSON)')"
}

tstart m --tls-client-ca "$tmp/ca.pem" --tls-client-name kube-scheduler
wait_for sh -c "curl -sfk '$url_m/readyz' >/dev/null"
check "mutual TLS: the start is logged as such" \
  "$(grep -q '"msg":"serving".*"tls":"mutual"' "$tmp/m.log"; echo $?)"

# The scheduler's certificate: every endpoint.
check "the scheduler's certificate: filter answered" \
  "$(is "$(call sched POST "$url_m/filter" "$req")" "200 -")"
check "...its answer is the cluster's (trainer-0 passes on some nodes)" \
  "$(is "$(jq '.NodeNames | length > 0' "$tmp/resp")" true)"
check "...explain and metrics too" \
  "$(is "$(call sched GET "$url_m/explain?pod=default/trainer-0" | cut -c1-3) $(call sched GET "$url_m/metrics" | cut -c1-3)" "200 200")"

# Without a certificate: 401 with the reason, probes answered.
need="unauthorized: a client certificate is required"
check "no certificate: filter 401 with the JSON reason" \
  "$(is "$(call POST "$url_m/filter" "$req")" "401 $need")"
check "...prioritize, explain, metrics and an unknown path 401 too (nothing is told before)" \
  "$(is "$(call POST "$url_m/prioritize" "$req" | cut -c1-3) $(call GET "$url_m/explain?pod=default/trainer-0" | cut -c1-3) $(call GET "$url_m/metrics" | cut -c1-3) $(call GET "$url_m/nope" | cut -c1-3)" "401 401 401 401")"
check ".../healthz and /readyz answered without one" \
  "$(is "$(call GET "$url_m/healthz" | cut -c1-3) $(call GET "$url_m/readyz" | cut -c1-3)" "200 200")"
check "probe port: /healthz and /readyz without a certificate, /metrics needs one" \
  "$(is "$(call GET "$probe_m/healthz" | cut -c1-3) $(call GET "$probe_m/readyz" | cut -c1-3) $(call GET "$probe_m/metrics" | cut -c1-3) $(call sched GET "$probe_m/metrics" | cut -c1-3)" "200 200 401 200")"

# Certificates that are not accepted.
r=$(call stranger POST "$url_m/filter" "$req")
check "a certificate of another CA: 401, the issuer unknown" \
  "$(case $r in "401 unauthorized: the client certificate is not accepted: "*issuer*) echo 0 ;; *) echo "#   got '$r'" >&2; echo 1 ;; esac)"
r=$(call expired POST "$url_m/filter" "$req")
check "an expired certificate of the CA: 401, expired" \
  "$(case $r in "401 unauthorized: the client certificate is not accepted: "*expired*) echo 0 ;; *) echo "#   got '$r'" >&2; echo 1 ;; esac)"
r=$(call srvonly POST "$url_m/filter" "$req")
check "a server certificate (serverAuth only) of the CA: 401" \
  "$(case $r in "401 unauthorized: the client certificate is not accepted: "*) echo 0 ;; *) echo "#   got '$r'" >&2; echo 1 ;; esac)"
check "a name not among --tls-client-name: 403 naming it" \
  "$(is "$(call intruder POST "$url_m/filter" "$req")" "403 forbidden: the client certificate's common name 'intruder' is not among --tls-client-name")"

# A large body without a certificate is refused at its headers, not read: curl sends
# Expect: 100-continue and gets the 401 instead.
head -c 4000000 /dev/zero | tr '\0' ' ' >"$tmp/big.json"
check "a 4 MB body without a certificate: 401 before the body" \
  "$(is "$(call POST "$url_m/filter" "$tmp/big.json")" "401 $need")"
metrics=$(curl -sk --cert "$tmp/sched.pem" --key "$tmp/sched.key" "$url_m/metrics")
check "refusals counted: unauthenticated and forbidden" \
  "$(is "$(printf '%s\n' "$metrics" | grep -c '^dra_extender_http_rejected_total{reason="\(unauthenticated\|forbidden\)"} [1-9]')" 2)"
# The policy endpoints: a certificate does not lift the loopback rule, nor the loopback rule
# the certificate (127.0.0.1 here: both apply).
check "/policy from loopback: with the certificate answered, without it 401" \
  "$(is "$(call sched GET "$url_m/policy" | cut -c1-3) $(call GET "$url_m/policy" | cut -c1-3)" "404 401")"

# Any certificate of the CA when no name is given.
tstart any --tls-client-ca "$tmp/ca.pem"
wait_for sh -c "curl -sfk '$url_any/readyz' >/dev/null"
check "without --tls-client-name: any client certificate of the CA" \
  "$(is "$(call intruder POST "$url_any/filter" "$req" | cut -c1-3) $(call POST "$url_any/filter" "$req" | cut -c1-3)" "200 401")"

# Configuration errors: exit 1 or 2 with the reason, nothing served.
"$ext" --objects "$tmp/objs" --listen 127.0.0.1:0 --tls-client-ca "$tmp/ca.pem" \
  >/dev/null 2>"$tmp/e1"; rc1=$?
printf 'not a certificate\n' >"$tmp/junk.pem"
"$ext" --objects "$tmp/objs" --listen 127.0.0.1:0 --tls-cert "$tmp/server.pem" \
  --tls-key "$tmp/server.key" --tls-client-ca "$tmp/junk.pem" >/dev/null 2>"$tmp/e2"; rc2=$?
"$ext" --objects "$tmp/objs" --listen 127.0.0.1:0 --tls-client-name x >/dev/null 2>"$tmp/e3"; rc3=$?
check "--tls-client-ca without HTTPS: exit 1, said" \
  "$([ $rc1 = 1 ] && grep -q 'tls-client-ca needs --tls-cert and --tls-key' "$tmp/e1"; echo $?)"
check "a CA file without a certificate: exit 1, named" \
  "$([ $rc2 = 1 ] && grep -q "junk.pem: no PEM certificate in it" "$tmp/e2"; echo $?)"
check "--tls-client-name without --tls-client-ca: exit 2" \
  "$(is "$rc3 $(head -n 1 "$tmp/e3")" "2 dra-extender: --tls-client-name needs --tls-client-ca")"

kill -TERM "$pid_m"; reap "$pid_m"
check "SIGTERM: exit 0" "$(is "$?" 0)"
check "no sanitizer report in any log" \
  "$(! grep -l -E 'ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer|runtime error:' "$tmp"/*.log; echo $?)"

# The webhook port (--webhook-listen): its own certificate, no client certificate asked (the
# API server calls a webhook with none), /validate and the health checks only, while the main
# port still asks every caller for one.
tstart w --tls-client-ca "$tmp/ca.pem" --tls-client-name kube-scheduler \
  --webhook-listen 127.0.0.1:0 --webhook-tls-cert "$tmp/hook.pem" --webhook-tls-key "$tmp/hook.key"
wp=$(sed -n 's/.*"msg":"serving the webhook".*"port":\([0-9]*\).*/\1/p' "$tmp/w.log" | head -n 1)
hook=https://127.0.0.1:${wp:-1}
printf '%s' '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"w-1","kind":{"group":"resource.k8s.io","version":"v1","kind":"DeviceClass"},"operation":"CREATE","object":{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"x"},"spec":{}}}}' >"$tmp/review.json"
hcode=$(curl -s --cacert "$tmp/hookca.pem" -o "$tmp/resp" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data-binary @"$tmp/review.json" "$hook/validate")
check "the webhook port: /validate answered without a client certificate, under its own certificate (its CA verifies it)" \
  "$(is "$hcode $(jq -r '.response.uid + " " + (.response.allowed | tostring)' "$tmp/resp")" "200 w-1 true")"
check "...filter and metrics are not served there (404 with the reason)" \
  "$(is "$(call POST "$hook/filter" "$req") | $(call GET "$hook/metrics" | cut -c1-3)" "404 the webhook port answers /validate, /healthz and /readyz only | 404")"
check "...while the main port still asks for a client certificate" \
  "$(is "$(call POST "$url_w/validate" "$tmp/review.json" | cut -c1-3)" "401")"
check "...and the main port's CA does not verify the webhook's certificate (they are apart)" \
  "$(curl -s --cacert "$tmp/ca.pem" -o /dev/null "$hook/healthz"; [ $? != 0 ]; echo $?)"
"$ext" --objects "$tmp/objs" --webhook-listen 127.0.0.1:0 >/dev/null 2>"$tmp/err"; code=$?
check "--webhook-listen without its certificate: a usage error (2) that says why" \
  "$(is "$code:$(grep -c 'HTTPS only' "$tmp/err")" "2:1")"

# deploy/webhook-certs.sh: a CA and a serving certificate for the Service's name, which the
# webhook port serves and a client that checks the name against that CA accepts.
sh "$src/deploy/webhook-certs.sh" "$tmp/wc" kube-system >"$tmp/wc.out" 2>&1; wcode=$?
check "deploy/webhook-certs.sh: exit 0, the certificate verifies against its CA, the install commands printed" \
  "$(is "$wcode:$(openssl verify -CAfile "$tmp/wc/ca.crt" "$tmp/wc/tls.crt" 2>/dev/null | grep -c ': OK'):$(grep -c 'caBundle: ' "$tmp/wc.out")" "0:1:1")"
check "...a second run refuses to overwrite the key" \
  "$(sh "$src/deploy/webhook-certs.sh" "$tmp/wc" >/dev/null 2>&1; is $? 2)"
tstart wc --webhook-listen 127.0.0.1:0 --webhook-tls-cert "$tmp/wc/tls.crt" --webhook-tls-key "$tmp/wc/tls.key"
wcp=$(sed -n 's/.*"msg":"serving the webhook".*"port":\([0-9]*\).*/\1/p' "$tmp/wc.log" | head -n 1)
hcode=$(curl -s --cacert "$tmp/wc/ca.crt" --resolve "dra-extender.kube-system.svc:${wcp:-1}:127.0.0.1" -o "$tmp/resp" \
        -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/review.json" \
        "https://dra-extender.kube-system.svc:${wcp:-1}/validate")
check "...the webhook port with it: the Service's name verified against the CA (as the API server does), the review answered" \
  "$(is "$hcode $(jq -r '.response.uid' "$tmp/resp")" "200 w-1")"

echo "1..$n"
[ "$failed" = 0 ]
