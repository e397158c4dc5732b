#!/usr/bin/env bash
# The count target, round 2: round 1's best plans against count's, each run
# REPS times in rotating order (a plan's runs spread over the whole call, so
# the machine's drift over minutes falls on every plan alike), on a 1 GiB
# uniform file written alone, then count's plan and the best on a file
# written beside two others at once (as tools/h200_run.sh gcount writes its
# files), the two alternating (16 first each time). Into $OUT/round2;
# summarize.py prints the table.
#   OUT=... bash rotate.sh
set -uo pipefail
HS=${HS:-build-gpu/histostudy}
OUT=${OUT:-out}
REPS=${REPS:-4}
mkdir -p "$OUT/round2"
alone=/dev/shm/alone-1GiB beside=/dev/shm/beside-1GiB
"$HS" generate uniform -s 1GiB -o "$alone"
"$HS" generate uniform -s 1GiB -o "$beside" & "$HS" generate one_byte -s 1GiB -o /dev/shm/x1 &
"$HS" generate uniform -s 2GiB -o /dev/shm/x2 & wait
cat /dev/shm/*GiB /dev/shm/x? >/dev/null
plans=("-t 16" "-t 12" "-t 16 --chunk 32MiB" "-t 12 --chunk 32MiB" "-t 16 --chunk 4MiB --buffers 8")
bench() {  # file, count-bench options
  local f=$1; shift
  echo "== ${f##*/}: $*"
  # shellcheck disable=SC2068
  timeout 60 "$HS" count-bench "$f" --impl lane_shared --rounds 7 -o "$OUT/round2" $@ | grep -E "^count:" || echo FAILED
}
for rep in $(seq "$REPS"); do
  for k in "${!plans[@]}"; do bench "$alone" "${plans[(k + rep) % ${#plans[@]}]}"; done
done
for rep in 1 2 3; do
  for p in "-t 16" "-t 12"; do bench "$beside" "$p"; done
done
rm -f "$alone" "$beside" /dev/shm/x1 /dev/shm/x2
