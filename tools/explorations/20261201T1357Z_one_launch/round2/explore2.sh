#!/usr/bin/env bash
# Second round (the size sweep's targets): the spread merge with 1 or 8 sets of
# spread bins (block k adding into set k % 8), each with and without
# prefetching the merge's lines into L2 while the blocks count (cold samples
# flush them), and the last block adding into the bins by load and store;
# beside read_floor and cub on the sizes experiment's sizes and inputs; then
# grid 66 at the small sizes. Result files and logs: $OUT/explore2.tar.gz.
set -uo pipefail
OUT=${OUT:-out}; W=/tmp/explore2; rm -rf $W; mkdir -p "$W/runs" "$W/logs"
source .deps/h200/provenance.env; export HISTOSTUDY_GIT_DIRTY=1
[ -f build-gpu/build.ninja ] || meson setup build-gpu -Dcuda=enabled -Dvendor_include="$PWD/.deps/include" >"$W/logs/setup.log"
ninja -C build-gpu histostudy >"$W/logs/build.log" 2>&1 || { tail -30 "$W/logs/build.log"; exit 1; }
HS=build-gpu/histostudy
SIZES=1MiB,4MiB,16MiB,67109475,256MiB,1GiB,4GiB
rows() { awk '$1 == "custom" {printf "%-22s %-15s %-10s %9s %17s %6s\n", $4, $5, $6, $(NF-4), $(NF-3), $(NF-1)}'; }
echo "=== every size"
$HS run --impl lane_shared_spread,lane_shared_spread_p,lane_shared_spread8,lane_shared_spread8_p,read_floor,cub \
  --input uniform,lesson_english,one_byte -s $SIZES -o "$W/runs" 2>"$W/logs/sizes.err" | tee "$W/logs/sizes.txt" | rows
echo "=== grid 66"
$HS run --impl lane_shared_spread8_p,lane_shared_spread_p --input uniform,one_byte -s 1MiB,4MiB,16MiB --grid 66 \
  -o "$W/runs" 2>>"$W/logs/grid.err" | tee "$W/logs/grid-66.txt" | rows
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
tar -C $W -czf "$OUT/explore2.tar.gz" runs logs
