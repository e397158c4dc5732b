#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (it removes build-gpu). The second call: call 1 found
# 4 MiB x 8 buffers ahead of count's plan (16 MiB x 4) and 16 MiB rings far behind. Which ring wins,
# and why: lane_shared's count-bench, settled, on a 1 GiB uniform file in /dev/shm, count's plan and
# rings with 24 or more pieces in flight; cub with count's plan and 4 MiB x 8; two rounds, reversed.
set -u
O=/tmp/oC; rm -rf $O build-gpu; mkdir -p $O/cb
{ date -u; uname -r; nproc; lscpu | grep -E "Model name|L3"; cat /proc/loadavg; } > $O/env.txt 2>&1
OUT=$O/h200 tools/h200_run.sh build > $O/build.txt 2>&1 || echo "the build failed" >> $O/build.txt
HS=build-gpu/histostudy
mkdir -p /dev/shm/hc
$HS generate uniform -s 1GiB -o /dev/shm/hc/uniform-1GiB > /dev/null
plans=("lane_shared default" "lane_shared --chunk 4MiB --buffers 8" "lane_shared --chunk 4MiB --buffers 10"
       "lane_shared --chunk 8MiB --buffers 6" "lane_shared --chunk 2MiB --buffers 16"
       "lane_shared --chunk 4MiB --buffers 16" "lane_shared --chunk 4MiB --buffers 8 --piece 512KiB"
       "cub default" "cub --chunk 4MiB --buffers 8")
order="0 1 2 3 4 5 6 7 8"
for round in 1 2; do
  [ $round = 2 ] && order="8 7 6 5 4 3 2 1 0"
  for k in $order; do
    set -- ${plans[$k]}; impl=$1; shift; args="$*"; [ "$args" = default ] && args=""
    echo "== round $round plan [${plans[$k]}] $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/plans.txt
    $HS count-bench /dev/shm/hc/uniform-1GiB --impl $impl $args -o $O/cb >> $O/plans.txt 2>&1
  done
done
rm -rf /dev/shm/hc
tar -C $O -czf "$OUT"/x.tar.gz .
tail -3 $O/build.txt; grep -E "^== |count: " $O/plans.txt
