#!/usr/bin/env bash
# The second call on the H100 (same carry as call-a.sh): every NVRTC release's SASS and PTX (the release matrix,
# .deps/h200/modules) beside nvcc and the counters profile under Nsight Compute (the peers: call-c.sh). Runs and
# the profile come back in runs.tar.gz, the logs in logs.tar.gz.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$L" 2>&1
step build 200 env OUT="$OUT/s" tools/h200_run.sh unpack build
step matrix 200 env OUT="$OUT/s" tools/h200_run.sh matrix
step profile 200 env OUT="$OUT/s" tools/h200_run.sh profile
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$L" 2>&1
mv "$OUT/s/profile-raw.tar.gz" "$OUT/" 2>/dev/null
(cd "$OUT/s" && tar -czf "$OUT/runs.tar.gz" ./*.json)
mv "$OUT/s/logs.tar.gz" "$OUT/logs.tar.gz" 2>/dev/null
cp "$OUT"/s/*.txt "$OUT/" 2>/dev/null
rm -rf "$OUT/s"
