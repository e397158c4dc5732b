#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include, .deps/h200 and .whl carried; data/runs,
# data/explorations and paper moved aside for the 64 MiB a call carries). The regression audit's positive
# control (tools/h200_run.sh audit) at the commit of .deps/h200/provenance.env, after the gpu and cli suites
# of its build. jsonschema and its needs come as wheels (the machine's python3 has numpy, scipy, matplotlib).
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
. .deps/h200/provenance.env
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
step build 240 env OUT="$OUT/b" tools/h200_run.sh unpack build
step suites 300 meson test -C build-gpu gpu cli --print-errorlogs
step list 30 build-gpu/histostudy list
step audit 420 env OUT="$OUT/a" tools/h200_run.sh audit
mkdir -p "$OUT/runs"; cp "$OUT"/a/audit/*.json "$OUT/runs/" 2>/dev/null
tar -C "$OUT/a" -xzf "$OUT/a/logs.tar.gz" 2>/dev/null
cp "$OUT"/a/audit-*.txt "$OUT"/a/audit-*-progress.log "$OUT/" 2>/dev/null
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$OUT/steps.txt" 2>&1
rm -rf "$OUT/a" "$OUT/b"
(cd "$OUT" && tar -czf logs.tar.gz build.txt suites.txt list.txt audit.txt audit-*-progress.log --remove-files)
