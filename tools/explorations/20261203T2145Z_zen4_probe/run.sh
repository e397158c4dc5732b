#!/usr/bin/env bash
# Builds probe.cpp against a histostudy build (default build) and runs it for SECONDS on each input named, output
# into OUT_DIR, each run started on a quiet machine:
#   tools/explorations/20261203T2145Z_zen4_probe/run.sh OUT_DIR SECONDS INPUT...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$1 seconds=$2
shift 2
mkdir -p "$out"
ninja -C "$build" libhistostudy_core.a >/dev/null
g++ -std=c++20 -O3 -fopenmp -I"$root" -I"$root/study" -I"$build" "$here/probe.cpp" "$build/libhistostudy_core.a" -o "$build/zen4-probe"
{ grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 "^model\s" /proc/cpuinfo; } > "$out/cpu.txt"
for input in "$@"; do
  "$root/tools/explorations/cpu-avx512/when_quiet.sh" "$build/zen4-probe" "$seconds" "$input" > "$out/$input-${seconds}s.txt" 2>&1
done
