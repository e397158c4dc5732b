#!/usr/bin/env bash
# Runs a command once the machine has been at least 90% idle over 3 seconds
# (from /proc/stat), waiting at most an hour; prints the idle share it saw.
#   tools/explorations/cpu-avx512/when_quiet.sh COMMAND...
set -euo pipefail
idle_pct() {  # idle share (0-100) over $1 seconds
  read -r _ a b c d e f g h _ < /proc/stat; local i0=$((d + e)) t0=$((a + b + c + d + e + f + g + h))
  sleep "$1"
  read -r _ a b c d e f g h _ < /proc/stat; local i1=$((d + e)) t1=$((a + b + c + d + e + f + g + h))
  echo $((100 * (i1 - i0) / (t1 - t0)))
}
for _ in $(seq 1200); do
  pct=$(idle_pct 3)
  if [ "$pct" -ge 90 ]; then
    echo "when_quiet: ${pct}% idle over 3 s at $(date -u +%H:%M:%SZ)" >&2
    exec "$@"
  fi
done
echo "when_quiet: the machine was never quiet for an hour" >&2
exit 1
