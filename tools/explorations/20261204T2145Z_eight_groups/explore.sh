#!/usr/bin/env bash
# Builds kernels.cpp against a CPU build of histostudy and runs it on a quiet machine, output into OUT_DIR:
#   BUILD_DIR=build-cpu tools/explorations/20261204T2145Z_eight_groups/explore.sh OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$1
mkdir -p "$out"
quiet="$root/tools/explorations/cpu-avx512/when_quiet.sh"
ninja -C "$build" libhistostudy_core.a >/dev/null
g++ -std=c++20 -O3 -fopenmp -I"$root" -I"$root/study" -I"$build" "$here/kernels.cpp" "$build/libhistostudy_core.a" -o "$build/eight-groups"
g++ -O2 "$root/tools/explorations/cpu-avx512/clock.cpp" -o "$build/cpu-kernel-clock"
inputs="uniform one_byte lesson_english distinct_4 distinct_256"
{ grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 "^model\s" /proc/cpuinfo; } > "$out/cpu.txt"
"$quiet" "$build/cpu-kernel-clock" > "$out/clock.txt" 2>&1
"$quiet" "$build/eight-groups" 1 1 $inputs > "$out/kernels-1MiB-1-thread.txt" 2>&1
"$quiet" "$build/eight-groups" 64 2 $inputs > "$out/kernels-64MiB-2-threads.txt" 2>&1
"$quiet" "$build/eight-groups" 1 1 $inputs > "$out/kernels-1MiB-1-thread-again.txt" 2>&1
