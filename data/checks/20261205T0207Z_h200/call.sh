#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs and
# data/explorations moved aside for the 64 MiB the call carries). The check of the new user's fixes (cdb751b) where
# a GPU is: build; the gpu suite (every GPU implementation exact on every input and size), the cpu, hostile and
# cli suites (the GPU-only options refused only where no GPU case runs, the out-of-memory line under an
# address-space limit with CUDA loaded, cubins' words); then a run that mixes GPU and CPU implementations with
# GPU-only options, which must run; and the review fixes of b1ef30c (below). Each step under its own timeout.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
. .deps/h200/provenance.env
rm -rf build-gpu
step build 120 env OUT="$OUT/b" tools/h200_run.sh build
step suites 420 meson test -C build-gpu gpu cpu hostile cli --print-errorlogs
step mixed 60 build-gpu/histostudy run -i reference,global --input uniform -s 1MiB --cache hot --reps 5 --bins-offset 128 --no-save
step cpu_only 20 build-gpu/histostudy run -i reference -s 611 --cache hot --no-save
# b1ef30c: a block lane_shared refuses stops the run at its plan (exit 2, no "[1/" line); perf's shared-memory
# rates measured on the run's GPU (--device 0 named, the index read from the executor's record).
step refused_block 30 build-gpu/histostudy run -i global,lane_shared --input uniform -s 1MiB --block 1024 --no-save
step perf_rates 120 build-gpu/histostudy run -e perf -i lane_shared --input uniform -s 1MiB --device 0 --no-save
# adc0dc6: a first SIGINT in the middle of a GPU lesson run saves the cases it finished (an incomplete file).
step interrupt 90 bash -c 'build-gpu/histostudy run -e lesson -o "$OUT/intr" & p=$!; sleep 20; kill -TERM $p; wait $p;
  echo "rc=$?"; ls "$OUT/intr"'
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$OUT/gpu.txt" 2>&1
rm -rf "$OUT/b"
echo done >>"$L"
