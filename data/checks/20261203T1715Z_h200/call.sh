#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs and
# data/explorations moved aside for the 64 MiB the call carries). The check of openmp_fast's new avx512 loop
# (unaligned loads, four digit planes) on the host's Xeon: build; the cpu suite (every path bin for bin against the
# reference), the environment, cli and hostile suites; the CPU implementations' lesson and sweep rows on all 16
# cores and on 2 threads; count-bench of openmp_fast on 1 GiB uniform and one_byte files in /dev/shm. Each step under
# its own timeout, its output under $OUT as it goes; the result files come back in one archive.
set -u
L=$OUT/steps.txt
R=$OUT/h200
mkdir -p "$R/count-bench"
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
. .deps/h200/provenance.env   # the commit, for every build below (meson test rebuilds what changed)
rm -rf build-gpu
step build 170 env OUT="$R" tools/h200_run.sh build
step suites 240 meson test -C build-gpu cpu environment cli hostile --print-errorlogs
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
