#!/bin/bash
# GPU count's readers at a lower priority (setpriority nice 5 on each reading thread, HS_READER_NICE=5), so that
# the thread that enqueues the copies and the driver's get a core when they wake: 12 readers at nice 0 (the
# default) against 16 and 14 at nice 5; lane_shared, 1 GiB files in /dev/shm; rotated. Run from the repository
# root on the GPU machine after `patch -p1 < tools/explorations/20261201T1726Z_gpu_count_ring/reader_priority/nice.patch` and a rebuild. Files to $OUT/nice/<variant>/ (here: reader_priority/<variant>/).
set -u
HS=build-gpu/histostudy
T=$(mktemp -d /dev/shm/nice.XXXXXX)
$HS generate uniform -s 1GiB -o $T/uniform-1GiB & $HS generate one_byte -s 1GiB -o $T/one_byte-1GiB & wait
cat $T/* >/dev/null
for r in 1 2 3 4; do
  for v in 12 16n5 14n5; do
    for f in uniform-1GiB one_byte-1GiB; do
      mkdir -p $OUT/nice/$v
      nice=0; [ $v = 12 ] || nice=5
      HS_READER_NICE=$nice $HS count-bench $T/$f --impl lane_shared --threads ${v%%n*} -o $OUT/nice/$v 2>&1 |
        grep -E 'count: |other processes' | tr '\n' ' ' | sed "s/^/$r $v $f: /"; echo
    done
  done
done
rm -rf $T
