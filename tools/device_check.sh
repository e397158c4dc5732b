#!/usr/bin/env bash
# The GPU checks of histostudy, as run on the device machine (README "GPU
# checks"): build, the gpu test suite, compute-sanitizer memcheck and
# racecheck on every kernel at small sizes, then the study. Results and logs
# go to $OUT (default ./out).
#   tools/device_check.sh [STAGE ...]   stages: build test sanitize study blocks (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
BUILD_DIR=${BUILD_DIR:-build-gpu}
HS="$BUILD_DIR/histostudy"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test sanitize study blocks)

build() {
  local extra=()
  [ -d .deps/include ] && extra+=("-Dvendor_include=$PWD/.deps/include")
  [ -f "$BUILD_DIR/build.ninja" ] || meson setup "$BUILD_DIR" -Dcuda=enabled "${extra[@]}" >"$OUT/setup.log"
  ninja -C "$BUILD_DIR" >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; return 1; }
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
}

test_gpu() {
  meson test -C "$BUILD_DIR" --print-errorlogs --suite gpu --suite cpu 2>&1 | tail -15
  cp "$BUILD_DIR/meson-logs/testlog.txt" "$OUT/testlog.txt"
}

# Every kernel on every lesson input at a small, odd size, under both tools.
sanitize() {
  local tool
  for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$HS" run -e lesson,blocks -s 70001 --warmups 0 --reps 1 --no-save >"$OUT/sanitize-$tool.log" 2>&1 \
      && echo "compute-sanitizer $tool: no errors" \
      || { echo "compute-sanitizer $tool: FAILED"; grep -m5 -E "ERROR|error" "$OUT/sanitize-$tool.log"; }
  done
}

study() { "$HS" run -o "$OUT" "$@" 2>"$OUT/study-progress.log"; }
blocks() { "$HS" run -e blocks -o "$OUT" 2>"$OUT/blocks-progress.log" | tail -30; }

for stage in "${stages[@]}"; do
  echo "== $stage"
  case "$stage" in
    build) build ;;
    test) test_gpu ;;
    sanitize) sanitize ;;
    study) study ;;
    blocks) blocks ;;
    *) echo "unknown stage $stage" >&2; exit 2 ;;
  esac
done
