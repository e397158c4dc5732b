#!/usr/bin/env bash
# Exploration on the H200: the committed lane_shared (atomic merge, e36e983) against the working tree's
# (rows + fold), same inputs, same call. Not committed; its runs are.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT/old" "$OUT/new" "$OUT/logs"
INC=$PWD/.deps/include
mkdir -p /tmp/old && tar -xzf .deps/h200/old-src.tar.gz -C /tmp/old
( meson setup build-gpu -Dcuda=enabled -Dvendor_include="$INC" >"$OUT/logs/setup-new.log" && ninja -C build-gpu histostudy >"$OUT/logs/build-new.log" 2>&1 ) &
( cd /tmp/old && meson setup b -Dcuda=enabled -Dvendor_include="$INC" >"$OUT/logs/setup-old.log" && ninja -C b histostudy >"$OUT/logs/build-old.log" 2>&1 ) &
wait
ls -la build-gpu/histostudy /tmp/old/b/histostudy || { tail -30 "$OUT"/logs/build-*.log; }
rows() { awk '$1 ~ /^(custom|perf)$/ {printf "%-12s %-15s %-22s %9s %6s\n", $4, $5, $6, $(NF-4), $(NF-1)}'; }
OLDC=e36e9831bdc3df1f441ed3870d25894707f23225
for side in old new; do
  if [ $side = old ]; then HS=/tmp/old/b/histostudy; export HISTOSTUDY_GIT_COMMIT=$OLDC HISTOSTUDY_GIT_DIRTY=0
  else HS=build-gpu/histostudy; export HISTOSTUDY_GIT_COMMIT=$(cat .deps/h200/head) HISTOSTUDY_GIT_DIRTY=1; fi
  o="$OUT/$side"
  echo "=== $side"
  for g in 132 528 2112; do $HS run --impl lane_shared --input uniform -s 16MiB --grid $g -o "$o" 2>>"$OUT/logs/$side.err" | rows ; done
  $HS run --impl lane_shared,cub --input uniform,lesson_english,one_byte -o "$o" 2>>"$OUT/logs/$side.err" | rows
  $HS run -e perf -o "$o" 2>>"$OUT/logs/$side.err" | tee "$OUT/logs/perf-$side.txt" | rows
done
HS=build-gpu/histostudy
echo "=== new, grid 1056 (two waves), 1 GiB"
$HS run -e perf --impl lane_shared --grid 1056 -o "$OUT/new" 2>>"$OUT/logs/new.err" | rows
echo "=== per_block grid sweep, lesson size (merge-bound?)"
for g in 132 528 1024 4096; do $HS run --impl per_block --input uniform --grid $g --no-save 2>/dev/null | rows ; done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
(cd "$OUT" && tar -czf explore.tar.gz old new logs && rm -rf old new logs)
