#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (it removes build-gpu). One device call: what the guest
# runs that could touch memory behind our back, the touch probe (touch_probe.cu), then lane_shared's
# count-bench, settled, on a 1 GiB uniform file in /dev/shm with count's plan and with smaller rings,
# and count's plan with --settle 200; two rounds, the second in reverse order.
set -u
O=/tmp/oC; rm -rf $O build-gpu; mkdir -p $O/cb
{ date -u; uname -r; cat /proc/cmdline; nproc; lscpu | head -20;
  echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag)";
  echo "numa_balancing: $(cat /proc/sys/kernel/numa_balancing 2>&1)";
  echo "damon: $(ls /sys/kernel/mm/damon/admin/kdamonds 2>&1 | tr '\n' ' ')"; ps -eo pid,comm,pcpu | grep -Ei "damon|khugepaged|ksm|kswapd" ;
  echo "ksm run: $(cat /sys/kernel/mm/ksm/run 2>&1)"; head -5 /proc/meminfo; cat /proc/loadavg; } > $O/env.txt 2>&1
cp /proc/vmstat $O/vmstat-before.txt
.deps/h200/probe/touch_probe 7 > $O/touch.txt 2>&1
cp /proc/vmstat $O/vmstat-after-touch.txt
OUT=$O/h200 tools/h200_run.sh build > $O/build.txt 2>&1 || echo "the build failed" >> $O/build.txt
HS=build-gpu/histostudy
mkdir -p /dev/shm/hc
$HS generate uniform -s 1GiB -o /dev/shm/hc/uniform-1GiB > /dev/null
plans=("default" "--chunk 4MiB --buffers 4" "--chunk 4MiB --buffers 8" "--chunk 2MiB --buffers 8"
       "--chunk 1MiB --buffers 16" "--settle 200")
order="0 1 2 3 4 5"
for round in 1 2; do
  [ $round = 2 ] && order="5 4 3 2 1 0"
  for k in $order; do
    args="${plans[$k]}"; [ "$args" = default ] && args=""
    echo "== round $round plan [${plans[$k]}] $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/plans.txt
    $HS count-bench /dev/shm/hc/uniform-1GiB --impl lane_shared $args -o $O/cb >> $O/plans.txt 2>&1
  done
done
cp /proc/vmstat $O/vmstat-after.txt
rm -rf /dev/shm/hc
tar -C $O -czf "$OUT"/x.tar.gz .
cat $O/touch.txt; tail -3 $O/build.txt; grep -E "^== |count: |  count|again|other processes" $O/plans.txt
