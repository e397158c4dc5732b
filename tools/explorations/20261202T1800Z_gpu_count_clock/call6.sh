#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include, .deps/h200 carried): at the shim's fix (call 5 hung
# in the hostile suite's read-error test): build; the read-error case alone, 4 times for each GPU implementation,
# each under a watchdog that takes cuda-gdb's backtraces of a count still running after 30 s; then gcount.
set -u
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
readerr() {
  local hs=build-gpu/histostudy shim f=/dev/shm/readerr-64MiB impl i pid rc t
  shim=$(find build-gpu/tests -name '*failing_read*.so' | head -1); echo "shim: $shim"
  python3 -c "open('$f','wb').write(bytes(range(256)) * (64 << 12))"
  for impl in lane_shared cub; do for i in 1 2 3 4; do
    t=$(date +%s.%N)
    LD_PRELOAD=$shim HISTOSTUDY_SHIM_FILE=$f HISTOSTUDY_FAIL_READ_AFTER=$((6 << 20)) "$hs" count --impl $impl "$f" \
      >/dev/shm/readerr.out 2>/dev/shm/readerr.err & pid=$!
    for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    if kill -0 $pid 2>/dev/null; then
      echo "$impl #$i: still running after 30 s; backtraces:"
      cat /proc/$pid/status | grep -E 'State|Threads'
      for tk in /proc/$pid/task/*; do echo "$tk $(cat $tk/comm) $(cat $tk/wchan 2>/dev/null) $(cut -d' ' -f3 $tk/stat)"; done
      [ -n "${traced:-}" ] || { traced=1; timeout 45 cuda-gdb -batch -ex 'thread apply all bt' -p $pid 2>&1 | tail -150; }
      kill -9 $pid
    fi
    wait $pid; rc=$?
    echo "$impl #$i: rc=$rc $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t}")s stdout=$(wc -c </dev/shm/readerr.out)B stderr: $(head -c 300 /dev/shm/readerr.err)"
  done; done
  rm -f "$f"
}
rm -rf build-gpu
step build 150 env OUT="$OUT/h200" tools/h200_run.sh build
export -f readerr; step readerr 240 bash -c readerr
step gcount 250 env OUT="$OUT/h200" tools/h200_run.sh gcount
tar -C "$OUT" -cf "$OUT/h200.tar" h200 && rm -rf "$OUT/h200"
echo done >>"$L"
