#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (it removes build-gpu). One device call: does a deeper
# ring of pinned buffers keep count's pace when a neighbour takes CPUs in short bursts? lane_shared's
# count-bench on one 1 GiB uniform file, five ring shapes, each quiet and beside burst (16 threads, 2 ms
# bursts, a random 0-120 ms apart: about half a CPU), two repetitions in opposite orders.
set -u
O=/tmp/oB; rm -rf $O build-gpu; mkdir -p $O/cb
{ date -u; nproc; lscpu | grep -E 'Thread|Core|Socket|NUMA|Model name'; head -1 /proc/stat; } > $O/env.txt 2>&1
OUT=$O/h200 tools/h200_run.sh build > $O/build.txt 2>&1 || echo "build failed" >> $O/build.txt
HS=build-gpu/histostudy B=.deps/h200/probe/burst F=/dev/shm/hb/uniform-1GiB
mkdir -p /dev/shm/hb && $HS generate uniform -s 1GiB -o $F
shapes=("4 16MiB" "8 16MiB" "16 16MiB" "32 16MiB" "16 4MiB")
for rep in 1 2; do
  order=(0 1 2 3 4); [ $rep = 2 ] && order=(4 3 2 1 0)
  for i in "${order[@]}"; do
    set -- ${shapes[$i]}
    for load in quiet burst; do
      [ $rep = 2 ] && load=$([ $load = quiet ] && echo burst || echo quiet)
      pid=; [ $load = burst ] && { $B 16 2000 60000 120 & pid=$!; }
      echo "== rep $rep buffers $1 chunk $2 $load $(date -u +%T); $(head -1 /proc/stat)" >> $O/rounds.txt
      $HS count-bench $F --impl lane_shared --buffers $1 --chunk $2 -o $O/cb >> $O/rounds.txt 2>&1
      [ -n "$pid" ] && { kill $pid; wait $pid 2>/dev/null; }
    done
  done
done
rm -rf /dev/shm/hb
tar -C $O -czf "$OUT"/x.tar.gz .
tail -3 $O/build.txt; grep -E "^== |count: |other processes" $O/rounds.txt
