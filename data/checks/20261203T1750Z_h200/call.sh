#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs and
# data/explorations moved aside). The check of 9fcdca2's harness change (an input's CPU implementations sampled in
# one rotation; measure() over entries): build; the sampling and gpu suites; a lesson run of GPU and CPU
# implementations together at 1 MiB; the CPU lesson rows at the lesson's size. Each step under its own timeout.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
. .deps/h200/provenance.env
rm -rf build-gpu
step build 120 env OUT="$OUT/b" tools/h200_run.sh build
step suites 120 meson test -C build-gpu sampling gpu --print-errorlogs
step mixed 60 build-gpu/histostudy run -e lesson -s 1MiB -i global,lane_shared,reference,openmp_fast --warmups 1 \
  --reps 5 --max-reps 5 --lesson-reps 0 -o "$OUT"
step cpu-lesson 60 build-gpu/histostudy run -e lesson -i reference,openmp_private,openmp_fast,openmp_read_floor -o "$OUT"
echo done >>"$L"
