#!/usr/bin/env bash
# For the GPU machine's copy of the tree only. The last call ran past 600 s in build+test+gcount; find the
# step that hangs: build, then each of gcount's GPU steps under its own timeout, written to $OUT as it goes.
# Run it at 3564d35 (8 MiB x 6 as count's plan, the floor in 16 MiB copies): the code that call ran.
set -u
L=$OUT/diag.txt
step() { local t=$1; shift; local s=$(date +%s.%N); timeout "$t" "$@" > $OUT/last.out 2>&1; local rc=$?
  echo "$(date -u +%T) rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >> $L; tail -3 $OUT/last.out >> $L; }
( while sleep 5; do { date -u +%T; ps -eo etimes,pcpu,args --sort=-etimes | grep -E "histostudy|test_" | grep -v grep | head -3; } >> $OUT/tick.txt; done ) > /dev/null 2>&1 &
TICK=$!; trap 'kill $TICK 2>/dev/null' EXIT
rm -rf build-gpu
step 120 env OUT=$OUT/h200 tools/h200_run.sh build
HS=build-gpu/histostudy; D=/dev/shm/hd; mkdir -p $D
step 30 $HS generate uniform -s 1GiB -o $D/u1
step 40 $HS generate uniform -s 4GiB+3 -o $D/u4
step 20 $HS count --impl lane_shared $D/u1
step 20 bash -c "$HS count --impl lane_shared - < $D/u1"
step 30 $HS count-bench $D/u1 --impl lane_shared --rounds 2 --no-save
step 30 $HS count --impl lane_shared $D/u4
step 30 $HS count --impl per_block $D/u4
step 40 $HS count-bench $D/u4 --impl lane_shared --rounds 2 --no-save
step 30 $HS count-bench $D/u1 --impl cub --rounds 2 --no-save
echo done >> $L
