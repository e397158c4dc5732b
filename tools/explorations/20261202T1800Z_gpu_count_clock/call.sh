#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include, .deps/h200 carried). Each step under its own
# timeout, its output under $OUT as it goes (a call past its limit returns only $OUT): the clock probe on 1
# and 14 cores, build, tools/h200_run.sh gcount at this commit, the probe again. clock_ramp was the first
# version of wake_probe.cpp, its `add` work alone, the same loop (built static: g++ -O2 -std=c++17 -pthread -static).
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
( while sleep 5; do { date -u +%T; ps -eo etimes,pcpu,args --sort=-etimes | grep -E "histostudy|test_|meson|ninja" |
  grep -v grep | head -3; } >>"$OUT/tick.txt"; done ) >/dev/null 2>&1 &
TICK=$!; trap 'kill $TICK 2>/dev/null' EXIT
{ nproc; lscpu; cat /proc/cmdline; grep -H . /sys/devices/system/cpu/cpuidle/current_* \
  /sys/devices/system/cpu/cpu0/cpuidle/state*/name /sys/devices/system/cpu/cpu0/cpufreq/* 2>/dev/null; } >"$OUT/env.txt" 2>&1
P=.deps/h200/probe/clock_ramp
step clock-1 30 $P 1 7
step clock-14 30 $P 14 7
rm -rf build-gpu
step build 170 env OUT="$OUT/h200" tools/h200_run.sh build
step gcount 320 env OUT="$OUT/h200" tools/h200_run.sh gcount
step clock-14-after 30 $P 14 7
echo done >>"$L"
