#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include, .deps/h200 carried): the check of the review's
# changes at its commit: build, then gcount (the GPU suite's stream cases, the CLI's GpuCount tests with the
# count-bench file larger than the floor's copies, the hostile suite, every count against the reference's, the
# control between two timings of count's plan); each step under its own timeout, tools/h200_run.sh's output
# packed into $OUT/h200.tar at the end (the device tool returns 8 files).
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
rm -rf build-gpu
step build 150 env OUT="$OUT/h200" tools/h200_run.sh build
step gcount 260 env OUT="$OUT/h200" tools/h200_run.sh gcount
tar -C "$OUT" -cf "$OUT/h200.tar" h200 && rm -rf "$OUT/h200"
echo done >>"$L"
