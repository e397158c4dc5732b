#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs and
# data/explorations moved aside for the 64 MiB the call carries). The performance targets' last check at the session's
# commit: build; the gpu suite (every GPU implementation exact on every input and size, 4 GiB + 3 and odd
# alignments included), the cpu suite and the hostile suite; the sizes experiment (lane_shared and cub
# beside the read floor, 1 MiB to 4 GiB, cold) and the perf experiment (1 GiB, every input). Each step under its
# own timeout.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
. .deps/h200/provenance.env
rm -rf build-gpu
step build 120 env OUT="$OUT/b" tools/h200_run.sh build
step suites 240 meson test -C build-gpu gpu cpu hostile --print-errorlogs
step sizes 120 build-gpu/histostudy run -e sizes -o "$OUT"
step perf 120 build-gpu/histostudy run -e perf -o "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$OUT/gpu.txt" 2>&1
rm -rf "$OUT/b"
echo done >>"$L"
