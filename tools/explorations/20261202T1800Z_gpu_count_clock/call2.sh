#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include, .deps/h200 carried). The wake probe's memory
# cases (does the memory's latency after idle fall within a lap of L2?), then count's plan against 8 MiB x 6
# and 4 MiB x 8 on 1 GiB files, lane_shared, one count-bench process each, three rounds with the plans'
# order rotating by one a round. Each step under its own timeout, its output under $OUT as it goes, the
# count-bench files packed into $OUT/cb.tar after every round (the tool returns 8 files).
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
( while sleep 5; do { date -u +%T; ps -eo etimes,pcpu,args --sort=-etimes | grep -E "histostudy|ninja" |
  grep -v grep | head -2; } >>"$OUT/tick.txt"; done ) >/dev/null 2>&1 &
TICK=$!; trap 'kill $TICK 2>/dev/null' EXIT
P=.deps/h200/probe/wake_probe
step probes 20 $P chase 1 7 1
step probes 20 $P chase 14 7 1
step probes 30 $P chase 1 7 256
step probes 30 $P stream 14 7 64
rm -rf build-gpu
step build 170 env OUT="$OUT/h200" tools/h200_run.sh build
HS=build-gpu/histostudy D=/dev/shm/plans
mkdir -p $D $OUT/cb
step generate 60 bash -c "$HS generate uniform -s 1GiB -o $D/uniform-1GiB & $HS generate one_byte -s 1GiB -o $D/one_byte-1GiB & wait; cat $D/* >/dev/null"
plans=("" "--chunk 8MiB --buffers 6" "--chunk 4MiB --buffers 8")
for round in 0 1 2; do
  for k in 0 1 2; do
    plan=${plans[$(( (k + round) % 3 ))]}
    for f in uniform-1GiB one_byte-1GiB; do
      # shellcheck disable=SC2086
      step cb 40 $HS count-bench $D/$f --impl lane_shared $plan -o $OUT/cb
    done
  done
  tar -C $OUT -cf $OUT/cb.tar cb
done
echo done >>"$L"
