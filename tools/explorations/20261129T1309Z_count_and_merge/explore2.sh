#!/usr/bin/env bash
# Exploration 2 on the H200: lane_shared's merge and count, three builds in one call.
#   head: commit bde6789 (rows + a second fold kernel, word-indexed counts)
#   w0:   working tree, group fold in the kernel (tickets), word-indexed counts
#   w:    working tree, group fold, byte-offset counts
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT/logs"
INC=$PWD/.deps/include
mkdir -p /tmp/head /tmp/w0 && tar -xzf .deps/h200/head-src.tar.gz -C /tmp/head && tar -xzf .deps/h200/w0-src.tar.gz -C /tmp/w0
( meson setup build-gpu -Dcuda=enabled -Dvendor_include="$INC" >"$OUT/logs/setup-w.log" && ninja -C build-gpu >"$OUT/logs/build-w.log" 2>&1 ) &
for t in head w0; do ( cd /tmp/$t && meson setup b -Dcuda=enabled -Dvendor_include="$INC" >"$OUT/logs/setup-$t.log" && ninja -C b histostudy >"$OUT/logs/build-$t.log" 2>&1 ) & done
wait
ls build-gpu/histostudy /tmp/head/b/histostudy /tmp/w0/b/histostudy || { tail -30 "$OUT"/logs/build-*.log; exit 1; }
echo "== gpu suite (w)"; meson test -C build-gpu --suite gpu --print-errorlogs >"$OUT/logs/test-gpu-w.log" 2>&1; tail -4 "$OUT/logs/test-gpu-w.log" | head -2
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 3 build-gpu/histostudy run --impl lane_shared -s 70001,1MiB+3 --warmups 1 --reps 2 --no-save >"$OUT/logs/sanitize-$tool-w.log" 2>&1 && echo "$tool: no errors" || { echo "$tool FAILED"; grep -m5 -E "ERROR|rror" "$OUT/logs/sanitize-$tool-w.log"; }
done
rows() { awk '$1 ~ /^(custom|perf)$/ {printf "%-12s %-15s %-12s %9s %6s\n", $4, $5, $6, $(NF-4), $(NF-1)}'; }
for round in 1 2; do
  for side in head w0 w; do
    case $side in
      head) HS=/tmp/head/b/histostudy; export HISTOSTUDY_GIT_COMMIT=bde678948804318f0ecc5a12d2add1211bf729c1 HISTOSTUDY_GIT_DIRTY=0 ;;
      w0) HS=/tmp/w0/b/histostudy; export HISTOSTUDY_GIT_COMMIT=bde678948804318f0ecc5a12d2add1211bf729c1 HISTOSTUDY_GIT_DIRTY=1 ;;
      w) HS=build-gpu/histostudy; export HISTOSTUDY_GIT_COMMIT=bde678948804318f0ecc5a12d2add1211bf729c1 HISTOSTUDY_GIT_DIRTY=1 ;;
    esac
    o="$OUT/$side"; mkdir -p "$o"
    echo "=== round $round: $side"
    $HS run --impl lane_shared,cub --input uniform,lesson_english,one_byte -o "$o" 2>>"$OUT/logs/$side.err" | rows
    $HS run -e perf --impl lane_shared --input uniform,lesson_english,one_byte,distinct_32 -o "$o" 2>>"$OUT/logs/$side.err" | rows
  done
done
(cd "$OUT" && tar -czf explore2.tar.gz head w0 w logs && rm -rf head w0 w logs)
