#!/bin/sh
# examples/replay/make-traces.sh: writes steady.jsonl and burst.jsonl (docs/fairness.md) with
# a fixed pseudo-random sequence: the same bytes every time. Run from examples/replay/.
set -eu
awk -v seed=12345 '
function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return (seed + 0.5) / 2147483648 }
function expo(mean) { return -log(rnd()) * mean }
BEGIN {
  claim = "../claims/gpu-tiered.yaml"
  # steady: four hours of arrivals, one every 40 s on average, each running 30 min on average
  # (at least 5); research (label) 50%, prod 30%, ci (the default tenant) 20%
  out = "steady.jsonl"
  print "# A steady mix: research, prod and ci pods asking for one GPU each (an H100, else an" > out
  print "# A100, else an L4), about one every 40 s for four hours (make-traces.sh)." > out
  t = 0
  for (i = 0; i < 360; i++) {
    t += expo(40); u = rnd(); run = expo(1800); if (run < 300) run = 300
    if (u < 0.5) { ns = "research"; lb = "{\"dracel.dev/tenant\":\"research\"}" }
    else if (u < 0.8) { ns = "prod"; lb = "{}" } else { ns = "ci"; lb = "{}" }
    printf "{\"time\":%d,\"pod\":\"%s/s-%03d\",\"labels\":%s,\"claim\":\"%s\",\"runSeconds\":%d}\n", t, ns, i, lb, claim, run > out
  }
  # burst: research asks for 24 GPUs in the first minute, each for two hours; prod then sends
  # one pod every five minutes for two hours, each for half an hour
  out = "burst.jsonl"
  print "# A burst: research asks for every H100 (24 pods in the first minute, two hours each)," > out
  print "# then prod sends a pod every five minutes, half an hour each (make-traces.sh)." > out
  for (i = 0; i < 24; i++)
    printf "{\"time\":%d,\"pod\":\"research/b-%02d\",\"labels\":{\"dracel.dev/tenant\":\"research\"},\"claim\":\"%s\",\"runSeconds\":7200}\n", i * 2, i, claim > out
  for (i = 0; i < 24; i++)
    printf "{\"time\":%d,\"pod\":\"prod/p-%02d\",\"claim\":\"%s\",\"runSeconds\":1800}\n", 300 + i * 300, i, claim > out
}'
