#!/usr/bin/env bash
# For the GPU machine only: it writes a 16 MiB file (which the dma mode only opens) into /dev/shm.
# The fifth device call: the copy engine alone, cold and warm, from pinned sources of several sizes (hybrid_probe dma), twice.
set -u
P=.deps/h200/probe/hybrid_probe
O=/tmp/oH; rm -rf $O; mkdir -p $O
{ date -u; nproc; lscpu; df -T /dev/shm .; cat /proc/loadavg; } > $O/env.txt 2>&1
mkdir -p /dev/shm/hp
head -c 16777216 /dev/urandom > /dev/shm/hp/a
for round in 1 2; do
  for f in /dev/shm/hp/a; do
    echo "== round $round $f $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/dma.txt
    $P $f 15 dma >> $O/dma.txt 2>&1
  done
done
tar -C $O -czf "$OUT"/x.tar.gz .
cat $O/dma.txt
