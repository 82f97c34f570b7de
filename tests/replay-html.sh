#!/bin/sh
# tests/replay-html.sh: the HTML report of `dra-celc replay` as a person sees it, rendered in
# headless Chromium (Debian's chromium) in a 1,280-pixel window (tests/replay/html/check.html
# measures it): the page and its tables fit the window, there is one chart per tenant and tier
# of each policy (the tenants and tiers the JSON report lists), each within the window, the
# tiers a policy caps show each tenant's cap and the idle reserve, and A against B is a table
# with both policies' numbers and the change. Skips without chromium or jq.
set -u
celc=${DRA_CELC:-./dra-celc}
src=${top_srcdir:-.}
for tool in chromium jq; do
  command -v $tool >/dev/null 2>&1 || { echo "1..0 # SKIP $tool is not installed"; exit 0; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0; failed=0
check() { n=$((n + 1)); if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi; }
is() { [ "$1" = "$2" ]; r=$?; [ $r = 0 ] || echo "#   got '$1', expected '$2'" >&2; echo $r; }
ex=$src/examples/replay
args="--fleet $ex/fleet.yaml --classes $src/examples/classes --policy $ex/policy-enforce.yaml --policy $ex/policy-shadow.yaml"
# shellcheck disable=SC2086
"$celc" replay $args --format html "$ex/burst.jsonl" >"$tmp/r.html" 2>/dev/null
check "replay --format html of two policies: exit 0" "$?"
# shellcheck disable=SC2086
"$celc" replay $args --format json "$ex/burst.jsonl" >"$tmp/r.json" 2>/dev/null
cp "$src/tests/replay/html/check.html" "$tmp/check.html"
# The sandbox needs user namespaces, which a container running as root may not have: the page
# is ours and local.
timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$tmp/profile" --allow-file-access-from-files --window-size=1280,900 \
  --virtual-time-budget=10000 --dump-dom "file://$tmp/check.html" >"$tmp/dom.html" 2>"$tmp/chromium.err"
sed -n 's/.*<pre id="out">\(.*\)<\/pre>.*/\1/p' "$tmp/dom.html" >"$tmp/seen.json"
if ! jq -e . "$tmp/seen.json" >/dev/null 2>&1; then
  echo "# chromium printed no measurement:"; tail -n 5 "$tmp/chromium.err" | sed 's/^/#   /'
  check "headless Chromium renders the report" 1
  echo "1..$n"; exit 1
fi
check "headless Chromium renders the report" 0
check "the page fits a 1,280-pixel window: no horizontal scrolling" \
  "$(is "$(jq '.scrollWidth <= .clientWidth' "$tmp/seen.json")" true)"
check "...and no table passes its right edge" \
  "$(is "$(jq -c '[.tables > 0, .tablesOverflowing]' "$tmp/seen.json")" '[true,0]')"
want=$(jq -c '[.tiers[].name] as $k | [.policies[] | .tenants[].tenant as $t | $k[] | [$t, .]]' "$tmp/r.json")
check "one chart per tenant and tier of each policy, as the JSON report lists them" \
  "$(is "$(jq -c '[.charts[] | [.[0], .[1]]]' "$tmp/seen.json")" "$want")"
check "...every chart drawn within the window" \
  "$(is "$(jq '[.charts[] | .[2]] | all' "$tmp/seen.json")" true)"
# every tenant of the example policies (the default one too) has a cap on gpu/h100: a cap line
# for each tenant the report shows
caps=$(jq '[.policies[].tenants[]] | length' "$tmp/r.json")
check "the capped tier's charts draw each capped tenant's cap and the idle reserve" \
  "$(is "$(jq -c '[.capLines, .reserveLines >= .capLines]' "$tmp/seen.json")" "[$caps,true]")"
check "A against B: one table with both policies and the change, per tenant" \
  "$(is "$(jq .compareTables "$tmp/seen.json"):$(grep -c '<th>A</th><th>B</th><th>&#916;</th>' "$tmp/r.html")" "1:1")"
check "...and both Jain's indexes" \
  "$(is "$(grep -c "Jain's index (premium tiers)</td><td colspan=\"9\">A [0-9][0-9.]* &#183; B [0-9][0-9.]* &#183; &#916; [-+][0-9.]*<" "$tmp/r.html")" 1)"
echo "1..$n"
[ "$failed" = 0 ]
