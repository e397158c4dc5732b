#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200 carried; data/runs,
# data/explorations and paper moved aside for the 64 MiB a call carries). After the day's merges (a CUDA
# runtime linked statically, one arch where no GPU is found, the command line's escaping and one input per
# file, the peers driver): the build, the gpu and cli suites, compute-sanitizer memcheck, and the peer
# libraries (torch.bincount, cupy.bincount) on the perf and sizes experiments' inputs, cold and hot.
# Runs come back in runs.tar.gz, logs in logs.tar.gz.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$L" 2>&1
mkdir -p "$OUT/s" "$OUT/runs"
step build 200 env OUT="$OUT/s" tools/h200_run.sh unpack build
step ldd 10 bash -c 'ldd build-gpu/histostudy; readelf -d build-gpu/histostudy | grep -i -E "runpath|needed"'
step suites 240 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 meson test -C build-gpu gpu cli --print-errorlogs
step sanitize 120 env OUT="$OUT/s" tools/h200_run.sh sanitize
step peers-cold 150 python3 tools/peers.py --histostudy build-gpu/histostudy --cache cold -o "$OUT/runs"
step peers-hot 150 python3 tools/peers.py --histostudy build-gpu/histostudy --cache hot -o "$OUT/runs"
(cd "$OUT/runs" && tar -czf "$OUT/runs.tar.gz" .) ; rm -rf "$OUT/runs"
cp build-gpu/meson-logs/testlog.txt "$OUT/s/" 2>/dev/null
(cd "$OUT" && tar --exclude=./steps.txt -czf logs.tar.gz s ./*.txt 2>/dev/null); rm -rf "$OUT/s"
find "$OUT" -maxdepth 1 -name "*.txt" ! -name steps.txt -delete
