#!/usr/bin/env bash
# Builds kernels.cpp against a histostudy build (default build) and runs it on a quiet machine, output into OUT_DIR:
#   tools/explorations/20261203T1845Z_zen4_kernel/explore.sh OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$1
mkdir -p "$out"
quiet="$root/tools/explorations/cpu-avx512/when_quiet.sh"
ninja -C "$build" libhistostudy_core.a >/dev/null
g++ -std=c++20 -O3 -fopenmp -I"$root" -I"$root/study" -I"$build" "$here/kernels.cpp" "$build/libhistostudy_core.a" -o "$build/zen4-kernels"
g++ -O2 "$root/tools/explorations/cpu-avx512/clock.cpp" -o "$build/cpu-kernel-clock"
g++ -O2 -pthread "$here/smt.cpp" -o "$build/zen4-smt"
inputs="uniform one_byte lesson_english distinct_4"
{ grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 "^model\s" /proc/cpuinfo; } > "$out/cpu.txt"
"$quiet" "$build/cpu-kernel-clock" > "$out/clock.txt" 2>&1
"$quiet" "$build/zen4-kernels" 1 1 $inputs > "$out/kernels-1MiB-1-thread.txt" 2>&1
"$quiet" "$build/zen4-kernels" 64 2 $inputs > "$out/kernels-64MiB-2-threads.txt" 2>&1
"$quiet" "$build/zen4-smt" > "$out/smt.txt" 2>&1
K="$build/zen4-kernels" "$quiet" "$here/scaling.sh" > "$out/scaling.txt" 2>&1
VARIANTS=K,L1+K,L2+K,B1+K,L1 "$quiet" "$build/zen4-kernels" 1 1 $inputs > "$out/slow-1MiB-1-thread.txt" 2>&1
