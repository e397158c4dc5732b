#!/bin/bash
# Device call: the committed build's GPU suite (the closed-stream hold), then a
# rotation of GPU count's readers: 12 at nice 0 (the default), 12 at nice 5, 14 at nice 5.
set -u
STAGES=${STAGES:-build test}
ROUNDS=${ROUNDS:-6}
O=/tmp/oX; rm -rf $O; mkdir -p $O
date -u +%FT%TZ > /tmp/stages.txt
nproc >> /tmp/stages.txt; grep -m1 "model name" /proc/cpuinfo >> /tmp/stages.txt
(OUT=$O timeout 300 bash tools/h200_run.sh $STAGES) >> /tmp/stages.txt 2>&1; echo "stages rc $?" >> /tmp/stages.txt
patch -p1 --dry-run < tools/explorations/20261201T1726Z_gpu_count_ring/reader_priority/nice.patch >/dev/null || { echo "the patch does not apply to this study/count.cpp"; exit 1; }
patch -p1 < tools/explorations/20261201T1726Z_gpu_count_ring/reader_priority/nice.patch >> /tmp/stages.txt
ninja -C build-gpu >> /tmp/stages.txt 2>&1
HS=build-gpu/histostudy
T=$(mktemp -d /dev/shm/nice.XXXXXX)
$HS generate uniform -s 1GiB -o $T/uniform-1GiB & $HS generate one_byte -s 1GiB -o $T/one_byte-1GiB & wait
cat $T/* >/dev/null
for r in $(seq $ROUNDS); do
  for v in 12 12n5 14n5; do
    for f in uniform-1GiB one_byte-1GiB; do
      mkdir -p $O/nice/$v
      nice=0; [ $v = 12 ] || nice=5
      if [ $v = 12 ]; then env -u HS_READER_NICE $HS count-bench $T/$f --impl lane_shared --threads 12 -o $O/nice/$v
      else HS_READER_NICE=$nice $HS count-bench $T/$f --impl lane_shared --threads ${v%%n*} -o $O/nice/$v; fi 2>&1 |
        grep -E 'count: |other processes' | tr '\n' ' ' | sed "s/^/$r $v $f: /"; echo
    done
  done
done > $O/explore.txt
rm -rf $T
patch -R -p1 < tools/explorations/20261201T1726Z_gpu_count_ring/reader_priority/nice.patch >> /tmp/stages.txt
date -u +%FT%TZ >> /tmp/stages.txt
cp /tmp/stages.txt $O/
tar -C $O -czf "$OUT"/x.tar.gz .
cat /tmp/stages.txt | tail -40; cat $O/explore.txt
