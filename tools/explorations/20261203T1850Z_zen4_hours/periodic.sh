#!/usr/bin/env bash
# Runs the study's CPU rows (histostudy run, its default experiments: lesson and sweep) every PERIOD seconds
# until STOP (a `date -d` time), each once the machine is quiet and no file HOLD exists (the author's own builds
# and tests create it while they run), the result files into OUT_DIR:
#   tools/explorations/20261203T1850Z_zen4_hours/periodic.sh HISTOSTUDY OUT_DIR PERIOD STOP [HOLD]
set -euo pipefail
bin=$1 out=$2 period=$3 stop=$(date -d "$4" +%s) hold=${5:-/tmp/histostudy-hold}
quiet=${QUIET:-"$(cd "$(dirname "$0")/../cpu-avx512" && pwd)/when_quiet.sh"}
while [ "$(date +%s)" -lt "$stop" ]; do
  next=$(( $(date +%s) + period ))
  while [ -e "$hold" ]; do sleep 5; done
  "$quiet" "$bin" run -o "$out" 2>&1 | grep -E "^result file|when_quiet" || echo "run failed at $(date -u +%H:%M:%SZ)"
  while [ "$(date +%s)" -lt "$next" ]; do sleep 10; done
done
