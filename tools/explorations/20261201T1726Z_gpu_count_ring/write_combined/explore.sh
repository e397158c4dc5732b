#!/bin/bash
# GPU count's ring: default pinned against write-combined pinned (cudaHostAllocWriteCombined), lane_shared,
# 1 GiB files in /dev/shm, count-bench's default plan (16 MiB x 4, 12 readers) and 16 readers with WC; rotated.
# Run from the repository root on the GPU machine after `patch -p1 < tools/explorations/20261201T1726Z_gpu_count_ring/write_combined/wc.patch` and a rebuild. Files to $OUT/wc/<variant>/ (here: write_combined/<variant>/).
set -u
HS=build-gpu/histostudy
T=$(mktemp -d /dev/shm/wc.XXXXXX)
$HS generate uniform -s 1GiB -o $T/uniform-1GiB & $HS generate one_byte -s 1GiB -o $T/one_byte-1GiB & wait
cat $T/* >/dev/null
for r in 1 2 3 4; do
  for v in default wc wc16 ; do
    for f in uniform-1GiB one_byte-1GiB; do
      wc=0; [ $v = default ] || wc=1
      th=(); [ $v = wc16 ] && th=(--threads 16)
      mkdir -p $OUT/wc/$v
      HS_WRITE_COMBINED=$wc $HS count-bench $T/$f --impl lane_shared "${th[@]}" -o $OUT/wc/$v 2>&1 | grep -E 'count |pct|%' | head -3 | sed "s/^/$r $v $f: /"
    done
  done
done
rm -rf $T
