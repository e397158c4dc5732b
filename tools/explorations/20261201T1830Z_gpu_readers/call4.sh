#!/bin/bash
# Device call: build, then a rotation in rotating order: 12 and 14 readers at nice 0, 12 at nice 0 again (A/A), the default (14 at nice +5).
set -u
ROUNDS=${ROUNDS:-6}
O=/tmp/oX; rm -rf $O; mkdir -p $O
date -u +%FT%TZ > /tmp/stages.txt
nproc >> /tmp/stages.txt; grep -m1 "model name" /proc/cpuinfo >> /tmp/stages.txt
(OUT=$O timeout 200 bash tools/h200_run.sh build) >> /tmp/stages.txt 2>&1; echo "stages rc $?" >> /tmp/stages.txt
date -u +%FT%TZ >> /tmp/stages.txt
patch -p1 --dry-run < tools/explorations/20261201T1830Z_gpu_readers/nice-env.patch >/dev/null || { echo "the patch does not apply to this study/count.cpp"; exit 1; }
patch -p1 < tools/explorations/20261201T1830Z_gpu_readers/nice-env.patch >> /tmp/stages.txt
ninja -C build-gpu >> /tmp/stages.txt 2>&1
HS=build-gpu/histostudy
T=$(mktemp -d /dev/shm/nice.XXXXXX)
$HS generate uniform -s 1GiB -o $T/uniform-1GiB & $HS generate one_byte -s 1GiB -o $T/one_byte-1GiB & wait
cat $T/* >/dev/null
for r in $(seq $ROUNDS); do
  V=(12n0 14n0 12n0again 14n5); for i in 0 1 2 3; do v=${V[$(( (i + r) % 4 ))]}
    for f in uniform-1GiB one_byte-1GiB; do
      mkdir -p $O/nice/$v
      case $v in
        14n5) args=(); nice=();;
        12n0*) args=(--threads 12); nice=(HS_READER_NICE=0);;
        14n0) args=(--threads 14); nice=(HS_READER_NICE=0);;
      esac
      env "${nice[@]}" $HS count-bench $T/$f --impl lane_shared "${args[@]}" -o $O/nice/$v 2>&1 |
        grep -E 'count: |other processes' | tr '\n' ' ' | sed "s/^/$r $v $f: /"; echo
    done
  done
done > $O/explore.txt
rm -rf $T
patch -R -p1 < tools/explorations/20261201T1830Z_gpu_readers/nice-env.patch >> /tmp/stages.txt
date -u +%FT%TZ >> /tmp/stages.txt
cp /tmp/stages.txt $O/
tar -C $O -czf "$OUT"/x.tar.gz .
tail -30 /tmp/stages.txt; cat $O/explore.txt
