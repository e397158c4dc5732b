#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200 carried; data/runs,
# data/explorations and paper moved aside for the 64 MiB a call carries). The study's recorded experiments on
# an H100 as on the H200 (tools/h200_run.sh's stages), at the commit of .deps/h200/provenance.env: the default
# study (lesson and sweep; nvcc, NVRTC 12.6 and 13.0 with the A/A control), the lesson with the toolchains in the
# reversed order, placement, hot and cold cache, perf, sizes and blocks. The runs come back as runs.tar.gz (the
# device tool returns 8 files), the logs as logs.tar.gz.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,ecc.mode.current,power.limit --format=csv >>"$L" 2>&1
step stages 560 env OUT="$OUT/s" tools/h200_run.sh unpack build study order placement cache perf sizes blocks
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$L" 2>&1
(cd "$OUT/s" && tar -czf "$OUT/runs.tar.gz" ./*.json)
mv "$OUT/s/logs.tar.gz" "$OUT/logs.tar.gz" 2>/dev/null
cp "$OUT"/s/*.txt "$OUT/" 2>/dev/null
rm -rf "$OUT/s"
