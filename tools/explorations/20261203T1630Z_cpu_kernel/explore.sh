#!/usr/bin/env bash
# Builds and runs this note's scratch programs against a histostudy build (default build), each on a quiet
# machine, their output into OUT_DIR:
#   tools/explorations/20261203T1630Z_cpu_kernel/explore.sh OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$1
mkdir -p "$out"
quiet="$root/tools/explorations/cpu-avx512/when_quiet.sh"
ninja -C "$build" libhistostudy_core.a >/dev/null
# kernels.cpp and parts.cpp include the loop they compare against, as it was before this note changed it
# (three digit planes, 64-bit shifts): commit 9e2f255's cpu_openmp/openmp_fast.cpp and .hpp.
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
mkdir -p "$before/cpu_openmp"
for f in openmp_fast.cpp openmp_fast.hpp; do git -C "$root" show "9e2f255:cpu_openmp/$f" >"$before/cpu_openmp/$f"; done
for p in kernels parts; do
  g++ -std=c++20 -O3 -fopenmp -I"$before" -I"$root" -I"$root/study" -I"$build" "$here/$p.cpp" "$build/libhistostudy_core.a" \
      -o "$build/cpu-kernel-$p"
done
for p in throughput pairs; do g++ -std=c++20 -O2 "$here/$p.cpp" -o "$build/cpu-kernel-$p"; done
g++ -O2 "$root/tools/explorations/cpu-avx512/clock.cpp" -o "$build/cpu-kernel-clock"
g++ -std=c++20 -O3 -fopenmp -I"$root" -I"$root/study" -I"$build" "$root/tools/explorations/cpu-avx512/hybrid.cpp" \
    "$build/libhistostudy_core.a" -o "$build/cpu-kernel-hybrid"
inputs="uniform one_byte lesson_english distinct_4"
{ grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 "^model\s" /proc/cpuinfo; } > "$out/cpu.txt"
"$quiet" "$build/cpu-kernel-clock" > "$out/clock.txt"
"$quiet" "$build/cpu-kernel-throughput" > "$out/throughput.txt"
"$quiet" "$build/cpu-kernel-pairs" > "$out/pairs.txt"
for r in 1 2; do "$quiet" "$build/cpu-kernel-parts"; done > "$out/parts.txt"
"$quiet" "$build/cpu-kernel-kernels" 1 1 $inputs > "$out/kernels-1MiB-1-thread.txt"
"$quiet" "$build/cpu-kernel-kernels" 64 2 $inputs > "$out/kernels-64MiB-2-threads.txt"
"$quiet" "$build/cpu-kernel-hybrid" 1048576 15 > "$out/hybrid-1MiB.txt"
BUILD_DIR=$build "$quiet" "$root/tools/explorations/cpu-avx512/explore.sh" 64MiB 2 15 $inputs > "$out/paths-64MiB-2-threads.txt"
