#!/usr/bin/env bash
# The count target, round 1: what holds the GPU count at 74-79% of pinned
# host-to-device copies? On the GPU machine after `tools/h200_run.sh unpack
# build`: count-bench of the subject (lane_shared) on a page-cached 1 GiB
# uniform file in /dev/shm, varying one knob at a time from count's plan
# (16 MiB chunks, 4 buffers, 1 MiB pieces, 16 reading threads), then the
# zero-copy probe (zero_copy_probe.cu, built beside it as PROBE). Every
# count-bench file goes to $OUT/sweep; summarize.py prints the table.
#   OUT=... PROBE=... bash sweep.sh
set -uo pipefail
HS=${HS:-build-gpu/histostudy}
OUT=${OUT:-out}
mkdir -p "$OUT/sweep"
f=/dev/shm/uniform-1GiB
"$HS" generate uniform -s 1GiB -o "$f" && cat "$f" >/dev/null
bench() {  # label, count-bench options
  local label=$1; shift
  echo "== $label: $*"
  timeout 60 "$HS" count-bench "$f" --impl lane_shared --rounds 7 -o "$OUT/sweep" "$@" | grep -E "^count:|^  " || echo "FAILED"
}
bench baseline
for t in 4 8 12; do bench threads -t "$t"; done
for b in 3 6 8 16; do bench buffers --buffers "$b"; done
for c in 4MiB 8MiB 32MiB; do bench chunk --chunk "$c"; bench chunk+8buffers --chunk "$c" --buffers 8; done
for p in 256KiB 512KiB 2MiB 4MiB; do bench piece --piece "$p"; bench piece+8buffers --piece "$p" --buffers 8; done
bench 8threads+8buffers -t 8 --buffers 8
bench 8threads+8buffers+8MiB -t 8 --buffers 8 --chunk 8MiB
bench 8threads+8buffers+2MiB-pieces -t 8 --buffers 8 --piece 2MiB
bench baseline-again
[ -n "${PROBE:-}" ] && { echo "== zero-copy probe"; timeout 120 "$PROBE" "$f"; }
rm -f "$f"
