#!/bin/bash
# GPU count's readers: 12 (the default, three quarters of 16 cores), 13 and 14, lane_shared, 1 GiB files in
# /dev/shm, count-bench's default plan otherwise (16 MiB x 4, 1 MiB pieces); rotated. Files to $OUT/th/<n>/.
set -u
HS=build-gpu/histostudy
T=$(mktemp -d /dev/shm/th.XXXXXX)
$HS generate uniform -s 1GiB -o $T/uniform-1GiB & $HS generate one_byte -s 1GiB -o $T/one_byte-1GiB & wait
cat $T/* >/dev/null
for r in 1 2 3 4; do
  for n in 12 13 14; do
    for f in uniform-1GiB one_byte-1GiB; do
      mkdir -p $OUT/th/$n
      $HS count-bench $T/$f --impl lane_shared --threads $n -o $OUT/th/$n 2>&1 | grep -E 'count: ' | sed "s/^/$r $n $f: /"
    done
  done
done
rm -rf $T
