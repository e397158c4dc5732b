#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs and
# data/explorations moved aside here for the 64 MiB the call carries). The check of 2026-12-03's changes, which
# touch the environment record every run and count-bench file writes (host.cpu): build; the gpu and cli suites
# (tools/h200_run.sh test); the environment suite (the record against /proc/cpuinfo); gcount (GPU count exact on
# 1 GiB and 4 GiB + 3 files, its suites, and count-bench for lane_shared, cub and openmp_fast, whose files must
# pass their schema in the paper); the CPU implementations' study rows on the host's 16 cores. Each step under its
# own timeout, its output under $OUT as it goes; the count-bench and run files come back in one archive.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
rm -rf build-gpu
step build 170 env OUT="$OUT/h200" tools/h200_run.sh build
step test 240 env OUT="$OUT/h200" tools/h200_run.sh test
step environment 60 meson test -C build-gpu environment --print-errorlogs
step gcount 250 env OUT="$OUT/h200" tools/h200_run.sh gcount
step cpu-study 90 build-gpu/histostudy run -i reference,openmp_private,openmp_fast,openmp_read_floor -o "$OUT/h200"
tar -C "$OUT" -cf "$OUT/h200.tar" h200 && rm -rf "$OUT/h200"
echo done >>"$L"
