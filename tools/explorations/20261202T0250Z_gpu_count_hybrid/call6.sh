#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (it removes build-gpu). One device call: build, the gcount
# stage at this commit (count-bench now settles 50 ms before each pass), then lane_shared's count-bench on a
# 1 GiB uniform file with --settle 0 (back to back, as before) and the default, alternating, three times each.
set -u
O=/tmp/oS; rm -rf $O build-gpu; mkdir -p $O
{ date -u; nproc; lscpu; head -1 /proc/stat; cat /proc/loadavg; } > $O/env.txt 2>&1
OUT=$O/h200 tools/h200_run.sh build gcount > $O/stages.txt 2>&1 || echo "a stage failed" >> $O/stages.txt
HS=build-gpu/histostudy
mkdir -p /dev/shm/hs $O/ab
$HS generate uniform -s 1GiB -o /dev/shm/hs/uniform-1GiB
for round in 1 2 3; do
  settles="0 50"; [ $round = 2 ] && settles="50 0"
  for s in $settles; do
    echo "== round $round settle $s $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/ab.txt
    $HS count-bench /dev/shm/hs/uniform-1GiB --impl lane_shared --settle $s -o $O/ab >> $O/ab.txt 2>&1
  done
done
rm -rf /dev/shm/hs
tar -C $O -czf "$OUT"/x.tar.gz .
tail -25 $O/stages.txt; grep -E "^== |  count |  pread|count: |other processes" $O/ab.txt
