#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (it removes build-gpu). One device call: the machine's
# CPU topology, the gcount stage at this commit, then lane_shared's count-bench on uniform and one_byte
# 1 GiB files in alternating order, three rounds, each file's /proc/stat steal recorded by count-bench.
set -u
O=/tmp/oH; rm -rf $O build-gpu; mkdir -p $O
{ date -u; nproc; lscpu; echo; numactl --hardware 2>&1 | head -5; echo;
  cat /sys/kernel/mm/transparent_hugepage/enabled; head -3 /proc/meminfo; head -1 /proc/stat; cat /proc/loadavg; } > $O/env.txt 2>&1
OUT=$O/h200 tools/h200_run.sh build gcount > $O/stages.txt 2>&1 || echo "a stage failed" >> $O/stages.txt
HS=build-gpu/histostudy
mkdir -p /dev/shm/hh $O/cb
$HS generate uniform -s 1GiB -o /dev/shm/hh/uniform-1GiB
$HS generate one_byte -s 1GiB -o /dev/shm/hh/one_byte-1GiB
for round in 1 2 3; do
  files="/dev/shm/hh/uniform-1GiB /dev/shm/hh/one_byte-1GiB"
  [ $round = 2 ] && files="/dev/shm/hh/one_byte-1GiB /dev/shm/hh/uniform-1GiB"
  for f in $files; do
    echo "== round $round ${f##*/} $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg); $(head -1 /proc/stat)" >> $O/rounds.txt
    $HS count-bench $f --impl lane_shared -o $O/cb >> $O/rounds.txt 2>&1
  done
done
head -1 /proc/stat >> $O/rounds.txt
rm -rf /dev/shm/hh
tar -C $O -czf "$OUT"/x.tar.gz .
tail -5 $O/stages.txt; grep -E "^== |count: |other processes" $O/rounds.txt
