#!/usr/bin/env bash
# Fourth round (the size sweep's targets), the build of round 3: the arrival merge
# with 4 loads a lane at 2 blocks an SM (grid 264: its registers leave room
# for no more) against 2 loads a lane at 3 (grid 396) at 1 and 4 GiB, and
# uniform at 4 GiB again (round 3 had it 5% slow once). $OUT/explore4.tar.gz.
set -uo pipefail
OUT=${OUT:-out}; W=/tmp/explore4; rm -rf $W; mkdir -p "$W/runs" "$W/logs"
source .deps/h200/provenance.env; export HISTOSTUDY_GIT_DIRTY=1
[ -f build-gpu/build.ninja ] || meson setup build-gpu -Dcuda=enabled -Dvendor_include="$PWD/.deps/include" >"$W/logs/setup.log"
ninja -C build-gpu histostudy >"$W/logs/build.log" 2>&1 || { tail -30 "$W/logs/build.log"; exit 1; }
HS=build-gpu/histostudy
rows() { awk '$1 == "custom" {printf "%-22s %-15s %-10s %9s %17s %6s\n", $4, $5, $6, $(NF-4), $(NF-3), $(NF-1)}'; }
for i in 1 2; do
  $HS run --impl lane_shared_arrive4 --input uniform,lesson_english,one_byte -s 1GiB,4GiB --grid 264 \
    -o "$W/runs" 2>>"$W/logs/err" | tee -a "$W/logs/arrive4-264.txt" | rows
  $HS run --impl lane_shared_arrive --input uniform,lesson_english,one_byte -s 1GiB,4GiB --grid 396 \
    -o "$W/runs" 2>>"$W/logs/err" | tee -a "$W/logs/arrive-396.txt" | rows
  $HS run --impl read_floor,lane_shared --input uniform,lesson_english,one_byte -s 1GiB,4GiB \
    -o "$W/runs" 2>>"$W/logs/err" | tee -a "$W/logs/floor.txt" | rows
done
tar -C $W -czf "$OUT/explore4.tar.gz" runs logs
