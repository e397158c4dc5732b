#!/usr/bin/env bash
# One core alone, then two single-thread processes at once on vCPUs 0 and 1, then the 2-thread team: the same
# kernel (cur, the committed loop) on 64 MiB of uniform bytes.
K=${K:?the kernels binary (explore.sh builds it as build/zen4-kernels)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for r in 1 2; do
  echo "== round $r: vCPU 0 alone"; VARIANTS=none taskset -c 0 $K 64 1 uniform one_byte
  echo "== round $r: vCPUs 0 and 1 at once, one process each"
  VARIANTS=none taskset -c 0 $K 64 1 uniform one_byte > "$tmp/p0.txt" & VARIANTS=none taskset -c 1 $K 64 1 uniform one_byte > "$tmp/p1.txt"; wait
  cat "$tmp/p0.txt" "$tmp/p1.txt"
  echo "== round $r: the 2-thread team"; VARIANTS=none $K 64 2 uniform one_byte
done
