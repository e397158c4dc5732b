#!/usr/bin/env bash
# Builds bench.cpp against a histostudy build (default build-cpu) and runs it:
#   tools/explorations/cpu-avx512/explore.sh SIZE THREADS ROUNDS INPUT...
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD_DIR:-$root/build-cpu}
ninja -C "$build" libhistostudy_core.a >/dev/null
g++ -std=c++20 -O3 -fopenmp -I"$root" -I"$root/study" -I"$build" "$root/tools/explorations/cpu-avx512/bench.cpp" \
    "$build/libhistostudy_core.a" -o "$build/cpu-avx512-bench"
exec "$build/cpu-avx512-bench" "$@"
