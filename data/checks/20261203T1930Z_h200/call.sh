#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs and
# data/explorations moved aside for the 64 MiB the call carries). The check of bin_vector in its final form (3322f8b:
# v & 0xC0, the four masks before the stores) on the host's Xeon: build; the cpu suite (every path bin for bin
# against the reference) and the hostile suite; the CPU implementations' lesson and sweep rows on all cores and on
# 2 threads. Each step under its own timeout.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
. .deps/h200/provenance.env
rm -rf build-gpu
step build 120 env OUT="$OUT/b" tools/h200_run.sh build
step suites 200 meson test -C build-gpu cpu hostile --print-errorlogs
CPU_IMPLS=reference,openmp_private,openmp_fast,openmp_read_floor
step study-16 120 build-gpu/histostudy run -e lesson,sweep -i "$CPU_IMPLS" -o "$OUT"
step study-2 120 build-gpu/histostudy run -e lesson,sweep -i "$CPU_IMPLS" -t 2 -o "$OUT"
rm -rf "$OUT/b"
echo done >>"$L"
