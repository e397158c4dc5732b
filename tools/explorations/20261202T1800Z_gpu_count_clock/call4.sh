#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include, .deps/h200 carried): count's new plan (4 MiB x 8)
# against the plan before (16 MiB x 4) on another machine, settled, two rounds with the order reversed in the
# second; lane_shared and cub, 1 GiB uniform and one_byte, and 4 GiB + 3 once. Each step under its own timeout,
# the count-bench files packed into $OUT/cb.tar after every round (the device tool returns 8 files).
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
rm -rf build-gpu
step build 150 env OUT="$OUT/h200" tools/h200_run.sh build
HS=build-gpu/histostudy D=/dev/shm/plans
mkdir -p $D $OUT/cb
step generate 90 bash -c "$HS generate uniform -s 1GiB -o $D/uniform-1GiB & $HS generate one_byte -s 1GiB -o $D/one_byte-1GiB &
  $HS generate uniform -s 4GiB+3 -o $D/uniform-4GiB+3 & wait; cat $D/* >/dev/null"
runs=("lane_shared uniform-1GiB" "lane_shared one_byte-1GiB" "cub uniform-1GiB"
      "lane_shared uniform-1GiB --chunk 16MiB --buffers 4" "lane_shared one_byte-1GiB --chunk 16MiB --buffers 4")
for round in 0 1; do
  for k in 0 1 2 3 4; do
    [ $round = 0 ] && r=${runs[$k]} || r=${runs[$((4 - k))]}
    set -- $r
    impl=$1 f=$2; shift 2
    step cb 40 $HS count-bench $D/$f --impl $impl "$@" -o $OUT/cb
  done
  tar -C $OUT -cf $OUT/cb.tar cb
done
step cb 60 $HS count-bench $D/uniform-4GiB+3 --impl lane_shared -o $OUT/cb
tar -C $OUT -cf $OUT/cb.tar cb && rm -rf $OUT/cb $OUT/h200
echo done >>"$L"
