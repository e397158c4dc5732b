#!/usr/bin/env bash
# The third call on the H100 (same carry as call-a.sh): the peer libraries (torch.bincount, cupy.bincount) on the
# perf and sizes experiments' inputs and sizes, cold and then hot, each library with its A/A control
# (tools/peers.py). A time limit's SIGTERM writes what was measured, marked incomplete. Runs come back in
# runs.tar.gz, the logs in logs.tar.gz.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$L" 2>&1
mkdir -p "$OUT/s" "$OUT/runs"
step build 200 env OUT="$OUT/s" tools/h200_run.sh unpack build
step peers-cold 270 python3 tools/peers.py --histostudy build-gpu/histostudy --cache cold -o "$OUT/runs"
step peers-hot 255 python3 tools/peers.py --histostudy build-gpu/histostudy --cache hot -o "$OUT/runs"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$L" 2>&1
(cd "$OUT/runs" && tar -czf "$OUT/runs.tar.gz" .); rm -rf "$OUT/runs"
(cd "$OUT" && tar --exclude=./steps.txt -czf logs.tar.gz s ./*.txt 2>/dev/null); rm -rf "$OUT/s"
find "$OUT" -maxdepth 1 -name "*.txt" ! -name steps.txt -delete
