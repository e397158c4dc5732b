#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (.deps/include and .deps/h200/provenance.env carried; data/runs,
# data/explorations and paper moved aside for the 64 MiB a call carries). The peer libraries (torch.bincount,
# cupy.bincount, each with its A/A control; tools/peers.py) on the perf and sizes experiments' inputs and sizes,
# under the cache mode MODE (cold or hot), every input's bytes made in /dev/shm; PEERS_ARGS narrows the cases. BUILD=1 builds first (a fresh
# machine); a warm one keeps build-gpu. A time limit's SIGTERM writes what was measured, marked incomplete. The
# run comes back in runs.tar.gz, the logs in logs.tar.gz.
set -u
MODE=${MODE:-cold} LIMIT=${LIMIT:-500}
L=$OUT/steps.txt
step() { local name=$1 t=$2; shift 2; local s; s=$(date +%s.%N)
  timeout "$t" "$@" >>"$OUT/$name.txt" 2>&1; local rc=$?
  echo "$(date -u +%T) $name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}")s: $*" >>"$L"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,ecc.mode.current,power.limit --format=csv >>"$L" 2>&1
python3 -c 'import torch, cupy; print("torch", torch.__version__, "cupy", cupy.__version__)' >>"$L" 2>&1
mkdir -p "$OUT/s" "$OUT/runs"
[ "${BUILD:-1}" = 1 ] && step build 200 env OUT="$OUT/s" tools/h200_run.sh build
# shellcheck disable=SC1091
. .deps/h200/provenance.env   # the commit this copy is (its .git may be stale)
W=$(mktemp -d /dev/shm/peers.XXXXXX)
step "peers-$MODE" "$LIMIT" python3 tools/peers.py --histostudy build-gpu/histostudy --cache "$MODE" ${PEERS_ARGS:-} --work-dir "$W" \
  -o "$OUT/runs"
rm -rf "$W"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv >>"$L" 2>&1
(cd "$OUT/runs" && tar -czf "$OUT/runs.tar.gz" .); rm -rf "$OUT/runs"
(cd "$OUT" && tar --exclude=./steps.txt -czf logs.tar.gz s ./*.txt 2>/dev/null); rm -rf "$OUT/s"
find "$OUT" -maxdepth 1 -name "*.txt" ! -name steps.txt -delete
cat "$L"; tar -xzOf "$OUT/logs.tar.gz" "./peers-$MODE.txt" 2>/dev/null | tail -8
