#!/usr/bin/env bash
# Third round (the size sweep's targets): lane_shared as committed (count kernel +
# fold kernel) against round 2's best (one launch, spread bins, ticket) and
# the arrival merge (one launch, each spread entry counting its arrivals
# beside the sum, so the last block to add a bin moves it: no ticket, no
# fence), with 2 and 4 loads a lane a tile; beside read_floor and cub on the
# sizes experiment's sizes and inputs; then the arrival merge's grid.
# Result files and logs: $OUT/explore3.tar.gz.
set -uo pipefail
OUT=${OUT:-out}; W=/tmp/explore3; rm -rf $W; mkdir -p "$W/runs" "$W/logs"
source .deps/h200/provenance.env; export HISTOSTUDY_GIT_DIRTY=1
[ -f build-gpu/build.ninja ] || meson setup build-gpu -Dcuda=enabled -Dvendor_include="$PWD/.deps/include" >"$W/logs/setup.log"
ninja -C build-gpu histostudy >"$W/logs/build.log" 2>&1 || { tail -30 "$W/logs/build.log"; exit 1; }
HS=build-gpu/histostudy
SIZES=1MiB,4MiB,16MiB,67109475,256MiB,1GiB,4GiB
rows() { awk '$1 == "custom" {printf "%-22s %-15s %-10s %9s %17s %6s\n", $4, $5, $6, $(NF-4), $(NF-3), $(NF-1)}'; }
echo "=== every size"
$HS run --impl lane_shared,lane_shared_spread,lane_shared_arrive,lane_shared_arrive4,read_floor,cub \
  --input uniform,lesson_english,one_byte -s $SIZES -o "$W/runs" 2>"$W/logs/sizes.err" | tee "$W/logs/sizes.txt" | rows
for g in 66 264 528; do
  echo "=== grid $g"
  $HS run --impl lane_shared_arrive,lane_shared_arrive4 --input uniform -s 1MiB,4MiB,16MiB,67109475,256MiB --grid $g \
    -o "$W/runs" 2>>"$W/logs/grid.err" | tee "$W/logs/grid-$g.txt" | rows
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
tar -C $W -czf "$OUT/explore3.tar.gz" runs logs
