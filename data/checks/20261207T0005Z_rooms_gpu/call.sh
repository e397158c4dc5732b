#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs,
# data/explorations and paper moved aside for the 64 MiB a call carries). After study/ moved into rooms and the
# command line into a file per subcommand: the build, the gpu and cli suites, and the default study (lesson and
# sweep, nvcc), whose result file comes back in runs.tar.gz for `./dev appendix` to make a user's appendix from
# on the CPU machine (the paper's parts with a real GPU run). Logs in logs.tar.gz.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$L" 2>&1
mkdir -p "$OUT/s" "$OUT/runs"
step build 240 env OUT="$OUT/s" tools/h200_run.sh build
step suites 200 env LD_LIBRARY_PATH=/usr/local/cuda/lib64 meson test -C build-gpu gpu cli --print-errorlogs
step bare 10 bash -c 'build-gpu/histostudy; echo "exit status $?"'
step list 10 bash -c 'build-gpu/histostudy list --json | python3 -c "import json,sys; d=json.load(sys.stdin); print(sorted(d), [e[\"name\"] for e in d[\"experiments\"]])"'
step study 200 build-gpu/histostudy run --out-dir "$OUT/runs"
(cd "$OUT/runs" && tar -czf "$OUT/runs.tar.gz" .); rm -rf "$OUT/runs"
cp build-gpu/meson-logs/testlog.txt "$OUT/s/" 2>/dev/null
(cd "$OUT" && tar --exclude=./steps.txt -czf logs.tar.gz s ./*.txt 2>/dev/null); rm -rf "$OUT/s"
find "$OUT" -maxdepth 1 -name "*.txt" ! -name steps.txt -delete
cat "$L"
