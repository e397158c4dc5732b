#!/usr/bin/env bash
# Exploration on the H200 (the size sweep's targets): lane_shared (count kernel + fold
# kernel) against lane_shared_spread (one launch: each block adds its sums
# into 256 bins one 128-byte line apart, the last block to take a ticket
# moves them into the bins), beside read_floor and cub, at every size of the
# sizes experiment on its three inputs; then spread's grid at 1 to 4 blocks
# an SM. Run from the repository root with the working tree that carries
# spread.patch applied; result files into $OUT.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT/runs" "$OUT/logs"
source .deps/h200/provenance.env; export HISTOSTUDY_GIT_DIRTY=1
meson setup build-gpu -Dcuda=enabled -Dvendor_include="$PWD/.deps/include" >"$OUT/logs/setup.log" &&
  ninja -C build-gpu histostudy >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
HS=build-gpu/histostudy
SIZES=1MiB,4MiB,16MiB,67109475,256MiB,1GiB,4GiB
rows() { awk '$1 == "custom" {printf "%-20s %-15s %-10s %-10s %9s %9s %6s\n", $4, $5, $6, $7, $(NF-4), $(NF-3), $(NF-1)}'; }
echo "=== all four, every size"
$HS run --impl lane_shared,lane_shared_spread,read_floor,cub --input uniform,lesson_english,one_byte -s $SIZES \
  -o "$OUT/runs" 2>"$OUT/logs/sizes.err" | tee "$OUT/logs/sizes.txt" | rows
for g in 132 264 396 528; do
  echo "=== spread, grid $g"
  $HS run --impl lane_shared_spread --input uniform,one_byte -s 1MiB,16MiB,67109475,256MiB,1GiB --grid $g \
    -o "$OUT/runs" 2>>"$OUT/logs/grid.err" | tee "$OUT/logs/grid-$g.txt" | rows
done
echo "=== spread, block 256, 6 blocks an SM"
$HS run --impl lane_shared_spread --input uniform,one_byte -s 1MiB,67109475,1GiB --grid 792 --block 256 \
  -o "$OUT/runs" 2>>"$OUT/logs/grid.err" | tee "$OUT/logs/block-256.txt" | rows
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
