#!/usr/bin/env bash
# Every GPU check and run of histostudy, on the GPU machine: build, the gpu
# test suite, compute-sanitizer memcheck and racecheck on every kernel, the
# default study with nvcc 13.0, NVRTC 12.6 and NVRTC 13.0 sampled in
# rotation on shared buffers with an A/A control, the lesson again with the
# toolchains in the opposite order, the bins-placement sweep, the lesson's
# kernels hot and cold at 16 MiB, 32 MiB and the lesson's size, the perf
# experiment (1 GiB, with the shared-memory update rates) and the block-size
# sweep. Result files go to $OUT (default ./out); the
# logs go into $OUT/logs.tar.gz, since the device tool returns 8 files.
#
# The GPU machine has no package manager and no network, so a development
# machine packs what the build and NVRTC need into .deps/ first:
#
#   tools/h200_run.sh pack              # here: .deps/include (headers), .deps/h200/nvrtc.tar.xz (~50 MB),
#                                       #       .deps/h200/modules (every release's sm_90 SASS and PTX)
#   tools/h200_run.sh [STAGE ...]       # there, carrying .deps/include and .deps/h200
#
# A call that copies the working tree to the GPU machine may carry only so
# much (the device tool here: 64 MiB, tree and carried paths together). The
# tracked tree is over that, most of it data/runs and data/explorations,
# which nothing here reads: move them aside for the call and back after it.
# The copy there has no current .git, so its builds take the commit from
# .deps/h200/provenance.env (written by pack; rewrite it for a commit made
# since), which this script sources: a build outside it records a stale one.
#
# Stages: unpack build test sanitize study order placement cache perf blocks
# (default: all, in that order), matrix, profile, peers, fleet, gcount and audit (on request); the logs
# are bundled at the end. The build
# directory (BUILD_DIR, default build-gpu) is
# kept between calls, so later stages can run in a separate call.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
BUILD_DIR=${BUILD_DIR:-build-gpu}
HS="$BUILD_DIR/histostudy"
PACK=${PACK:-.deps/h200/nvrtc.tar.xz}  # the NVRTC releases packed for the GPU machine (those ./dev audit's check names)
MODULES=.deps/h200/modules
# What each NVRTC needs at run time: the library, its builtins (which it
# loads from its own folder), its wheel's record (the patch version) and
# ./dev nvrtc's marker (so `./dev nvrtc` there sees it installed). NVRTC
# 13.0 is not packed: unpack links the GPU machine's own toolkit copy, byte
# for byte the 13.0.88 wheel's (data/checks/20261201T1609Z_h200_nvrtc13-md5.txt),
# for the 64 MiB a call carries.
PACKED=(12.6/.wheel 12.6/nvidia_cuda_nvrtc_cu12-12.6.85.dist-info 12.6/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
        12.6/nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.6
        13.1/.wheel 13.1/nvidia_cuda_nvrtc-13.1.115.dist-info 13.1/nvidia/cu13/lib/libnvrtc.so.13
        13.1/nvidia/cu13/lib/libnvrtc-builtins.so.13.1)
TOOLKIT_NVRTC=(/usr/local/cuda/lib64/libnvrtc.so.13 /usr/local/cuda/lib64/libnvrtc-builtins.so.13.0)

pack() {
  ./dev vendor
  ./dev nvrtc
  mkdir -p "$(dirname "$PACK")"
  tar -C .deps/nvrtc -cf - "${PACKED[@]}" | xz -T0 -9 >"$PACK.new"
  mv "$PACK.new" "$PACK"
  # Every release's SASS and PTX for the H200 (a few MB): the matrix runs them there.
  rm -rf "$MODULES" && "${BUILD_DIR_HERE:-build}/histostudy" cubins --arch 90 -o "$MODULES"
  # The copy sent to the GPU machine has no .git: carry the commit it is.
  { echo "export HISTOSTUDY_GIT_COMMIT=$(git rev-parse HEAD)"
    echo "export HISTOSTUDY_GIT_DIRTY=$([ -z "$(git status --porcelain --untracked-files=no)" ] && echo 0 || echo 1)"
  } >.deps/h200/provenance.env
  du -sh .deps/include "$PACK"
}

unpack() {
  mkdir -p .deps/nvrtc
  # Python's tarfile: the machine may lack xz. "data" filter where Python has it (3.12 warns without).
  python3 -c 'import sys, tarfile
kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
tarfile.open(sys.argv[1]).extractall(sys.argv[2], **kw)' "$PACK" .deps/nvrtc
  mkdir -p .deps/nvrtc/13.0/lib
  for f in "${TOOLKIT_NVRTC[@]}"; do ln -sf "$(readlink -f "$f")" ".deps/nvrtc/13.0/lib/$(basename "$f")"; done
  echo "nvidia-cuda-nvrtc==13.0.88" >.deps/nvrtc/13.0/.wheel
}

build() {
  [ -f "$BUILD_DIR/build.ninja" ] ||
    meson setup "$BUILD_DIR" -Dcuda=enabled -Dvendor_include="$PWD/.deps/include" >"$OUT/setup.log"
  ninja -C "$BUILD_DIR" >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; return 1; }
}

# The GPU suite and the command-line tests (their --device and GPU parts)
# of the build in $1, logged as test-$2.log.
suite() {
  local dir=$1 name=$2 rc=0
  # The toolkit's NVRTC, for the suite's modules test, where the loader's path lacks it.
  LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    meson test -C "$dir" gpu cli --print-errorlogs >"$OUT/test-$name.log" 2>&1 || rc=$?
  tail -5 "$OUT/test-$name.log"
  cp "$dir/meson-logs/testlog.txt" "$OUT/testlog-$name.txt"
  return $rc
}

test_gpu() { suite "$BUILD_DIR" gpu; }

# The JIT check: the GPU suite from a build with SASS for 7.5 to 8.9 and PTX for
# compute_75, none for this GPU: every kernel runs from PTX the driver
# compiles (the code path every row records).
jit() {
  local dir=build-jit
  [ -f "$dir/build.ninja" ] ||
    meson setup "$dir" -Dcuda=enabled -Dgpu_archs=75,80,86,89 -Dvendor_include="$PWD/.deps/include" \
      >"$OUT/setup-jit.log"
  ninja -C "$dir" >"$OUT/build-jit.log" 2>&1 || { tail -50 "$OUT/build-jit.log"; return 1; }
  grep -o 'gpu_archs auto[^"]*\|-gencode[^ ]*' "$OUT/setup-jit.log" "$dir/build.ninja" | sort -u | head -12
  "$dir/histostudy" env | python3 -c 'import json, sys; e = json.load(sys.stdin)["executors"][1]["describe"]
print("jit build:", e["archs"], "ptx", e["ptx_arch"], "code:", e["code"])'
  suite "$dir" jit
}

# Every kernel on every lesson input at a small, odd size, under both tools.
sanitize() {
  local tool
  for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$HS" run -e lesson,blocks -s 70001 --warmups 0 --reps 1 --no-save >"$OUT/sanitize-$tool.log" 2>&1 &&
      echo "compute-sanitizer $tool: no errors" ||
      { echo "compute-sanitizer $tool: FAILED"; grep -m5 -E "ERROR|error" "$OUT/sanitize-$tool.log"; }
  done
}

# Performance beyond the lesson: the fast kernels against their peers at 1 GiB, with the GPU's
# shared-memory update rates.
perf() { "$HS" run -e perf -o "$OUT" 2>"$OUT/perf-progress.log" | tee "$OUT/perf.txt" | tail -60; }

# The size sweep: the subject and the peer beside the read floor from 1 MiB to 4 GiB.
sizes() { "$HS" run -e sizes -o "$OUT" 2>"$OUT/sizes-progress.log" | tee "$OUT/sizes.txt" | tail -40; }

# The GPU count: `histostudy count` for GPU implementations at the speed of
# its input. Page-cached files of 1 GiB (uniform, one_byte) and 4 GiB + 3
# (made at once, in /dev/shm where it has room); the new GPU suite cases, the
# CLI's GpuCount tests and the hostile suite (a read error mid-file, GPU
# implementations too); every file's count by the subject, the privatized
# kernel and the peer (by role: lane_shared, per_block, cub) and through a
# pipe against the reference's, diffed; then count-bench of the subject and
# the peer on each file (count against pinned host-to-device copies of as
# many bytes, in the same run), the subject with the plan before count's
# (16 MiB x 4) on the 1 GiB files and then with count's again, and the CPU
# subject (openmp_fast, this machine's cores) on the two 1 GiB files against
# one thread's read-and-discard, into $OUT/count-bench (12 files), and their
# table. About two minutes.
# Prints whether the output of COMMAND... equals the file WANT (the reference's count).
same_as() {
  local label=$1 want=$2
  shift 2
  if "$@" | cmp -s - "$want"; then echo "$label: equals reference"; else echo "$label: DIFFERS from reference"; return 1; fi
}
count_piped() { "$HS" count --impl "$1" - <"$2"; }

gcount() {
  local tmp=/dev/shm rc=0 f impl subject privatized peer
  subject=$(impls cuda subject) privatized=$(impls cuda privatized) peer=$(impls cuda peer)
  [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 {print $4}')" -gt $((8 << 20)) ] 2>/dev/null || tmp=${TMPDIR:-/tmp}
  tmp=$(mktemp -d "$tmp/histostudy-gcount.XXXXXX")
  local files=("$tmp/uniform-1GiB" "$tmp/one_byte-1GiB" "$tmp/uniform-4GiB+3")
  local pids=() pid  # one core each, at once
  "$HS" generate uniform -s 1GiB -o "${files[0]}" & pids+=($!)
  "$HS" generate one_byte -s 1GiB -o "${files[1]}" & pids+=($!)
  "$HS" generate uniform -s 4GiB+3 -o "${files[2]}" & pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || { echo "generate failed"; rc=1; }; done
  cat "${files[@]}" >/dev/null
  lscpu >"$OUT/gcount-lscpu.txt" 2>&1 || true  # threads per core and sockets, beside the files' steal_s
  "$BUILD_DIR/tests/test_gpu" -tc="count streams*,a GPU stream*" >"$OUT/gcount-gpu-suite.log" 2>&1 &&
    echo "gpu suite, stream cases: passed" || { echo "gpu suite, stream cases: FAILED"; tail -30 "$OUT/gcount-gpu-suite.log"; rc=1; }
  python3 tests/test_cli.py "$HS" GpuCount >"$OUT/gcount-cli.log" 2>&1 &&
    echo "cli GpuCount: passed" || { echo "cli GpuCount: FAILED"; tail -30 "$OUT/gcount-cli.log"; rc=1; }
  meson test -C "$BUILD_DIR" hostile --print-errorlogs >"$OUT/gcount-hostile.log" 2>&1 &&
    echo "hostile suite: passed" || { echo "hostile suite: FAILED"; tail -30 "$OUT/gcount-hostile.log"; rc=1; }
  for f in "${files[@]}"; do
    "$HS" count --impl reference "$f" >"$f.want"
    for impl in "$subject" "$privatized" "$peer"; do
      same_as "count --impl $impl ${f##*/}" "$f.want" "$HS" count --impl "$impl" "$f" || rc=1
    done
  done
  same_as "count --impl $subject - <${files[0]##*/}" "${files[0]}.want" count_piped "$subject" "${files[0]}" || rc=1
  mkdir -p "$OUT/count-bench"
  for impl in "$subject" "$peer"; do
    for f in "${files[@]}"; do
      "$HS" count-bench "$f" --impl "$impl" -o "$OUT/count-bench" >>"$OUT/gcount.txt" 2>&1 || rc=1
    done
  done
  # The plan before count's (16 MiB x 4; data/explorations/20261202T1800Z_gpu_count_clock/), on the same files
  # in the same call, then count's plan again: the control for the plan's change, between two timings of count's
  # own (A B A), which the paper shows and does not judge.
  for f in "${files[@]:0:2}"; do
    "$HS" count-bench "$f" --impl "$subject" --chunk 16MiB --buffers 4 -o "$OUT/count-bench" >>"$OUT/gcount.txt" 2>&1 || rc=1
  done
  for f in "${files[@]:0:2}"; do
    "$HS" count-bench "$f" --impl "$subject" -o "$OUT/count-bench" >>"$OUT/gcount.txt" 2>&1 || rc=1
  done
  # The CPU side on this machine's cores: openmp_fast against one thread's read-and-discard of the same files.
  for f in "${files[@]:0:2}"; do
    "$HS" count-bench "$f" --impl "$(impls cpu subject)" -o "$OUT/count-bench" >>"$OUT/gcount.txt" 2>&1 || rc=1
  done
  rm -rf "$tmp"
  cat "$OUT/gcount.txt"
  # A first look, there: the GPU machine's Python has no jsonschema (and no package index), so not
  # plots/count_bench.py, which makes the paper's table and verdicts here from the committed files.
  python3 - "$OUT/count-bench" <<'PY'
import glob, json, os, sys
print("| impl | file | plan | count GB/s (p10-p90) | floor GB/s | A/A | count % of floor | its reads alone GB/s | cached "
      "| others' CPU s (stolen) |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(path))
    if "incomplete" in d:  # stopped on an error after some passes: its samples kept, no ratios
        print(f"| {d['impl']} | {os.path.basename(d['file']['path'])} | incomplete: {d['incomplete']['error']} |")
        continue
    g = {e["name"]: e["gbps"] for e in d["entries"]}
    floor = d["floor"]["name"]
    plan = (f"{d['chunk_bytes'] >> 20} MiB x {d['buffers']}, " if "chunk_bytes" in d else "") + f"{d['threads']} threads"
    print(f"| {d['impl']} | {os.path.basename(d['file']['path'])} | {plan} "
          f"| {g['count']['median']:.1f} ({g['count']['p10']:.1f}-{g['count']['p90']:.1f}) "
          f"| {d['floor']['entry']} {g[d['floor']['entry']]['median']:.1f} | {d['control_pct_of_' + floor]:.0f}% "
          f"| **{d['count_pct_of_' + floor]:.0f}%** | {g[d['reads_alone']['entry']]['median']:.1f} "
          f"| {d['file']['page_cached_before']:.2f} "
          f"| {d['machine']['other_processes_cpu_s']:.2f} ({d['machine']['steal_s']:.2f}) |")
PY
  return $rc
}

# Claim C8: the baseline and privatized kernels at 64 to 1024 threads per block.
blocks() { "$HS" run -e blocks -o "$OUT" 2>"$OUT/blocks-progress.log" >"$OUT/blocks.txt"; }

bundle() { (cd "$OUT" && find . -maxdepth 3 -type f ! -name '*.json' ! -name logs.tar.gz -print0 |
            tar --null -czf logs.tar.gz -T - --remove-files); }

# Not in the default stages (about 3 to 4 minutes): the hardware counters behind every count and finding
# (Nsight Compute, clocks left alone; tools/ncu_profile.py): every GPU implementation on the lesson's inputs at
# its size (partitioned with P = 1, 2, 4, 8) and at 1 GiB, and global atomics at every bins offset of the
# placement sweep. The profile file goes to $OUT (copy it into data/profiles/ and run ./dev paper), ncu's raw
# tables and histostudy's output into the logs; a summary is printed. PROFILE_TOOLCHAINS (comma-separated
# histostudy toolchains, default nvcc) and PROFILE_SETS (lesson,gib,placement) choose what is profiled.
profile() {
  local rc=0
  PYTHONUNBUFFERED=1 python3 tools/ncu_profile.py --histostudy "$HS" -o "$OUT" --raw "$OUT/profile-raw" \
    --toolchain "${PROFILE_TOOLCHAINS:-nvcc}" --set "${PROFILE_SETS:-lesson,gib,placement}" \
    >"$OUT/profile.txt" 2>"$OUT/profile-progress.log" || rc=$?
  cat "$OUT/profile-progress.log" "$OUT/profile.txt"
  [ -d "$OUT/profile-raw" ] && tar -C "$OUT" -czf "$OUT/profile-raw.tar.gz" profile-raw && rm -rf "$OUT/profile-raw"
  [ $rc -eq 0 ] || return $rc
  # A sample of the per-slice values ncu prints (--print-metric-instances), global atomics at two offsets, for
  # reading how the L2 slices share them once their format is known (a few seconds; into the logs).
  ncu --clock-control none --csv --page raw --print-units base --print-metric-instances values \
    --metrics lts__t_sectors_srcunit_tex_op_red.sum,lts__t_requests_srcunit_tex_op_red.sum \
    --kernel-name-base function --kernel-name regex:^hs_global --launch-count 4 --log-file "$OUT/profile-slices.csv" \
    "$HS" run -e placement -i global --input uniform --bins-offset 256,512 --warmups 0 --reps 1 --max-reps 1 \
    --lesson-reps 0 --cache hot --control none --no-save >/dev/null 2>&1 || echo "per-slice sample: ncu exit $?"
  # The report's summary (stdlib only); exit 1 there means a declaration disagrees with its counter: said above.
  python3 -m plots.counters "$(sed -n 's/^profile file: //p' "$OUT/profile.txt")" --brief --text \
    >"$OUT/profile-summary.txt" 2>&1 || true
  cat "$OUT/profile-summary.txt"
}

# The libraries a reader would reach for (tools/peers.py: torch.bincount, cupy.bincount, each with its A/A control) on
# the perf and sizes cases, cold and then hot; about 5 minutes each on the H100, most of it making the inputs. The
# commit is provenance.env's, which this script exports: the copy's own .git may be stale.
peers() {
  local mode
  for mode in cold hot; do
    python3 tools/peers.py --histostudy "$HS" --cache "$mode" -o "$OUT" 2>"$OUT/peers-$mode-progress.log" |
      tee -a "$OUT/peers.txt"
  done
}

NVRTCS="12.6,13.0"  # releases by name (data/nvrtc-releases.csv)

# The implementations of BACKEND with any of the ROLEs asked for, comma-separated in data/registry.json's
# order: kernels are named by the registry, not here.
impls() {
  python3 -c 'import json, sys
print(",".join(e["name"] for e in json.load(open("data/registry.json"))["implementations"]
               if e["backend"] == sys.argv[1] and set(sys.argv[2:]) & set(e["roles"])))' "$@"
}

# The release audit: every NVRTC release's SASS and driver-compiled PTX (built by
# pack, without a GPU) beside nvcc and CUB, in one process under the controls.
matrix() {
  "$HS" run -e lesson --toolchain "nvcc,modules:$PWD/$MODULES" -o "$OUT" 2>"$OUT/matrix-progress.log" \
    >"$OUT/matrix.txt" || { tail -5 "$OUT/matrix-progress.log"; return 1; }
  grep -E "^histostudy" "$OUT/matrix-progress.log"
  grep "result file" "$OUT/matrix.txt"
}

# The order control: the lesson with the toolchains in the opposite order (the A/A
# control is then NVRTC 13.0): a result that changes with the order is a defect.
order() {
  "$HS" run -e lesson --toolchain "13.0,12.6,nvcc" -o "$OUT" \
    2>"$OUT/order-progress.log" >"$OUT/order.txt"
}

# The placement sweep: every kernel that adds into global bins, the bins 0..2048 bytes
# past a 2 MiB boundary, under the three toolchains and the A/A control.
placement() {
  "$HS" run -e placement --toolchain "nvcc,$NVRTCS" --reps 10 -o "$OUT" \
    2>"$OUT/placement-progress.log" >"$OUT/placement.txt"
}

# The cache modes: hot against cold samples where the input fits the 60 MiB L2
# (16, 32 MiB) and where it does not quite (the lesson's 67 MB).
cache() {
  local mode
  for mode in hot cold; do
    # By role, but for the contender with a copy of the bins per warp, which no role names apart.
    "$HS" run -i "$(impls cuda floor reader privatized subject peer),per_warp" --input uniform,lesson_english,one_byte \
      -s 16MiB,32MiB,67109475 --cache "$mode" -o "$OUT" 2>"$OUT/cache-$mode-progress.log" >"$OUT/cache-$mode.txt"
  done
}

# The fleet, on request on a machine of two or more GPUs: the study on every
# GPU at once, one process per GPU, each with its A/A control (FLEET_ARGS:
# histostudy run arguments), into $OUT/fleet; then the report of the GPUs
# side by side where this python3 has plots/' packages (else make it where
# the files come back: ./dev fleet DIR).
fleet() {
  # shellcheck disable=SC2086
  "$HS" run --device all ${FLEET_ARGS:--e lesson,sweep --control nvcc} -o "$OUT/fleet" \
    2>"$OUT/fleet-progress.log" >"$OUT/fleet.txt" || { tail -20 "$OUT/fleet-progress.log"; return 1; }
  grep -E "^histostudy: (run |  GPU |GPU )" "$OUT/fleet-progress.log"
  if python3 -c 'import numpy, scipy, jsonschema' 2>/dev/null; then
    python3 -m plots.fleet "$OUT/fleet" -o "$OUT/fleet-report.md" && grep -c "^| " "$OUT/fleet-report.md"
  else
    echo "no numpy, scipy or jsonschema here: python3 -m plots.fleet DIR where the files come back"
  fi
}

# The regression audit's positive control, run as a user runs it (./dev audit OLD NEW: the lesson's kernels
# and inputs, both releases and the A/A control in one run): the committed release history has partitioned
# 4-5% faster from NVRTC 13.1 on, so 13.0 -> 13.1 under a 1.03x band must say so and pass (exit 0), 13.1 ->
# 13.0 under the same band must fail naming it (exit 1), and 12.6 -> 13.0 under the default band must pass.
# Each audit's table goes to $OUT/audit-OLD-NEW.txt, its run to $OUT/audit/. PYTHON: a Python with numpy,
# scipy, matplotlib and jsonschema (default python3).
audit() {
  local rc=0 got want old new args
  for check in "0 13.0 13.1 --threshold 1.03" "1 13.1 13.0 --threshold 1.03" "0 12.6 13.0"; do
    read -r want old new args <<<"$check"
    # shellcheck disable=SC2086
    BUILD_DIR=$BUILD_DIR PYTHON=${PYTHON:-python3} ./dev audit "$old" "$new" $args -o "$OUT/audit" \
      >"$OUT/audit-$old-$new.txt" 2>"$OUT/audit-$old-$new-progress.log" && got=0 || got=$?
    echo "audit $old $new $args: exit $got (want $want); $(tail -1 "$OUT/audit-$old-$new.txt")"
    grep -E "^(CHECK FAILED|lesson +partitioned .*(SLOWER|faster))" "$OUT/audit-$old-$new.txt" | head -8
    [ "$got" = "$want" ] || rc=1
  done
  return $rc
}

# The default study (lesson + sweep), the three toolchains and the A/A
# control sampled in rotation; every row is checked bin for bin before it is timed. The sm_90
# cubins the two NVRTCs build here are kept too: their SHA-256 should equal
# the cubins entries of data/codegen/codegen-audit.json, built elsewhere.
study() {
  local nvrtcs=$NVRTCS
  "$HS" env >"$OUT/env.json"
  "$HS" list >"$OUT/list.txt"
  command -v nvidia-smi >/dev/null && nvidia-smi -q >"$OUT/nvidia-smi-q.txt"
  "$HS" cubins --toolchain "$nvrtcs" --arch 90 -o "$OUT/cubins" && sha256sum "$OUT"/cubins/*/*.cubin
  "$HS" run --toolchain "nvcc,$nvrtcs" -o "$OUT" 2>"$OUT/study-progress.log" |
    tee "$OUT/study.txt" | sed -n '/^Lesson table/,/^$/p'
}

[ "${1:-}" = pack ] && { pack; exit; }
mkdir -p "$OUT"
# shellcheck disable=SC1091
[ -f .deps/h200/provenance.env ] && . .deps/h200/provenance.env
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(unpack build test sanitize study order placement cache perf blocks)
known=" unpack build test jit sizes sanitize study order placement cache perf blocks matrix profile peers fleet gcount audit "
for stage in "${stages[@]}"; do
  [[ "$known" == *" $stage "* ]] ||
    { echo "unknown stage $stage (stages:$known; here: pack)" >&2; exit 2; }
done
# A failed stage stops the later ones; the logs are bundled either way.
rc=0
for stage in "${stages[@]}"; do
  echo "== $stage"
  case "$stage" in
    test) test_gpu ;;
    *) "$stage" ;;
  esac || { rc=$?; echo "== $stage failed (exit $rc)"; break; }
done
bundle
exit $rc
