#!/usr/bin/env bash
# The measurements in README.md, each started on a quiet machine:
#   1. both paths and the read floor, 2 threads, 67,109,475 bytes, every
#      lesson and sweep input (wall clock, 15 rotations);
#   2. the same on one core, 1 MiB (cache-resident; thread CPU clock);
#   3. the study's own rows: histostudy run, lesson and sweep experiments.
#   tools/explorations/cpu-avx512/measure.sh OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$1
mkdir -p "$out"
inputs="uniform lesson_english prose one_byte distinct_256 distinct_128 distinct_64 distinct_32 distinct_16 distinct_8 distinct_4 distinct_2 distinct_1"
# shellcheck disable=SC2086
"$here/when_quiet.sh" "$here/explore.sh" 67109475 2 15 $inputs | tee "$out/two-cores-67109475.txt"
# shellcheck disable=SC2086
"$here/when_quiet.sh" "$root/build-cpu/cpu-avx512-bench" 1MiB 1 15 $inputs | tee "$out/one-core-1MiB.txt"
"$here/when_quiet.sh" "$root/${BUILD_DIR:-build-cpu}/histostudy" run --impl openmp_fast,openmp_private,openmp_read_floor \
  --experiment lesson,sweep -o "$out" | tee "$out/histostudy-run.txt"
