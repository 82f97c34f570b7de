#!/bin/sh
# deploy/webhook-certs.sh [DIR] [NAMESPACE]: the TLS set-up of dra-extender's webhook port
# without cert-manager (docs/extender.md, "Lint at admission"). Makes, with openssl, in DIR
# (default ./dra-extender-tls, created with mode 0700):
#   ca.crt, ca.key     a CA of its own (ECDSA P-256, 10 years)
#   tls.crt, tls.key   the serving certificate it signs, for the Service's DNS names
#                      dra-extender.NAMESPACE.svc and dra-extender.NAMESPACE.svc.cluster.local
#                      (NAMESPACE default kube-system), serverAuth, 1 year
# then prints the two commands that install them: the secret deploy/extender.yaml mounts, and
# the caBundle of deploy/webhook.yaml. Nothing is sent to a cluster by this script. Keep ca.key
# away from the cluster (it signs only this one certificate; renew by running the script again).
set -eu
dir=${1:-./dra-extender-tls}
ns=${2:-kube-system}
command -v openssl >/dev/null 2>&1 || { echo "webhook-certs: openssl is needed" >&2; exit 2; }
if [ -e "$dir/tls.key" ]; then
  echo "webhook-certs: $dir/tls.key exists: remove $dir first to make new ones" >&2
  exit 2
fi
mkdir -p "$dir"
chmod 700 "$dir"
svc=dra-extender.$ns.svc
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
  -subj "/CN=dra-extender webhook CA" -keyout "$dir/ca.key" -out "$dir/ca.crt" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  >/dev/null 2>&1
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$svc" \
  -keyout "$dir/tls.key" -out "$dir/tls.csr" >/dev/null 2>&1
printf '%s\n' "subjectAltName = DNS:$svc, DNS:$svc.cluster.local" \
  "extendedKeyUsage = serverAuth" "keyUsage = critical, digitalSignature" \
  "basicConstraints = critical, CA:FALSE" >"$dir/tls.ext"
openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 365 -sha256 -extfile "$dir/tls.ext" -out "$dir/tls.crt" >/dev/null 2>&1
rm -f "$dir/tls.csr" "$dir/tls.ext" "$dir/ca.srl"
chmod 600 "$dir/ca.key" "$dir/tls.key"
openssl verify -CAfile "$dir/ca.crt" "$dir/tls.crt" >/dev/null
cat <<EOF
Made $dir/ca.crt and $dir/tls.crt (for $svc), with their keys. Install them:

  kubectl -n $ns create secret tls dra-extender-tls --cert=$dir/tls.crt --key=$dir/tls.key

and in deploy/webhook.yaml, without cert-manager: drop its annotation and its cert-manager
objects, and give each webhook's clientConfig this line:

      caBundle: $(base64 -w0 <"$dir/ca.crt")
EOF
