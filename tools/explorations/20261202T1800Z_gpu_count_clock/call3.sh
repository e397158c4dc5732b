#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include, .deps/h200 carried): the check of count's new plan
# (4 MiB x 8) and count-bench's plan-independent floor: build, the test stage, gcount; each step under its own
# timeout, its output under $OUT as it goes, tools/h200_run.sh's output packed into $OUT/h200.tar at the end
# (the device tool returns 8 files).
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
( while sleep 5; do { date -u +%T; ps -eo etimes,pcpu,args --sort=-etimes | grep -E "histostudy|test_|ninja" |
  grep -v grep | head -2; } >>"$OUT/tick.txt"; done ) >/dev/null 2>&1 &
TICK=$!; trap 'kill $TICK 2>/dev/null' EXIT
rm -rf build-gpu
step build 150 env OUT="$OUT/h200" tools/h200_run.sh build
step test 200 env OUT="$OUT/h200" tools/h200_run.sh test
step gcount 230 env OUT="$OUT/h200" tools/h200_run.sh gcount
tar -C "$OUT" -cf "$OUT/h200.tar" h200 && rm -rf "$OUT/h200"
echo done >>"$L"
