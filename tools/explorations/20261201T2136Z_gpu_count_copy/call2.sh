#!/usr/bin/env bash
# For the GPU machine's copy of the tree only: it writes 1 GiB files into the working directory.
# One device call: read_probe on a 1 GiB file in /dev/shm and on ext4, twice each, alternating.
set -u
P=.deps/h200/probe/read_probe
O=/tmp/oR; rm -rf $O; mkdir -p $O
{ date -u; nproc; lscpu | grep -i 'model name\|numa\|L3'; df -T /dev/shm .; cat /proc/loadavg; } > $O/env.txt 2>&1
mkdir -p /dev/shm/rp
head -c 1073741824 /dev/urandom > /dev/shm/rp/uniform-1GiB
head -c 1073741824 /dev/urandom > ./disk-uniform-1GiB
for round in 1 2; do
  for f in /dev/shm/rp/uniform-1GiB ./disk-uniform-1GiB; do
    echo "== round $round read_probe $f $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/read_probe.txt
    $P $f 9 >> $O/read_probe.txt 2>&1
  done
done
rm -f ./disk-uniform-1GiB
tar -C $O -czf "$OUT"/x.tar.gz .
cat $O/env.txt $O/read_probe.txt
