#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs and
# data/explorations moved aside for the 64 MiB the call carries; zen4-kernels, the static build of
# data/explorations/20261203T1845Z_zen4_kernel/kernels.cpp at 21d8473, beside this file for the call only).
# The check of 17ae86e (openmp_fast's group masks by byte compares, variant K) on the host's Xeon: build; the cpu
# suite (every path bin for bin), gpu and hostile suites; K against the loop before's A/A pair on 1 core, 2 and 16
# threads; the CPU implementations' lesson and sweep rows on all cores and on 2 threads; count-bench of
# openmp_fast on 1 GiB uniform and one_byte files in /dev/shm. Each step under its own timeout.
set -u
L=$OUT/steps.txt
R=$OUT/h200
mkdir -p "$R/count-bench"
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
. .deps/h200/provenance.env
rm -rf build-gpu
step build 120 env OUT="$OUT/b" tools/h200_run.sh build
step suites 220 meson test -C build-gpu cpu gpu hostile --print-errorlogs
K=data/checks/20261203T1900Z_h200/zen4-kernels
inputs="uniform one_byte lesson_english distinct_4"
step kernels-1-thread 60 env VARIANTS=K,B1 "$K" 1 1 $inputs
step kernels-2-threads 60 env VARIANTS=K,B1 "$K" 64 2 $inputs
step kernels-16-threads 60 env VARIANTS=K "$K" 256 16 $inputs
CPU_IMPLS=reference,openmp_private,openmp_fast,openmp_read_floor
step study-16 120 build-gpu/histostudy run -e lesson,sweep -i "$CPU_IMPLS" -o "$R"
step study-2 120 build-gpu/histostudy run -e lesson,sweep -i "$CPU_IMPLS" -t 2 -o "$R"
for input in uniform one_byte; do
  build-gpu/histostudy generate "$input" -s 1GiB >"/dev/shm/$input-1GiB"
  step count-bench 120 build-gpu/histostudy count-bench "/dev/shm/$input-1GiB" -o "$R/count-bench"
  rm -f "/dev/shm/$input-1GiB"
done
tar -C "$OUT" -cf "$OUT/h200.tar" h200 && rm -rf "$R"
echo done >>"$L"
