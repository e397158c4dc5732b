#!/usr/bin/env bash
# For the GPU machine's copy of the tree only: it writes 1 GiB files into /dev/shm and the working directory.
# The second device call: hybrid_probe's carry-over question on a tmpfs and an ext4 1 GiB file, twice each, alternating.
set -u
P=.deps/h200/probe/hybrid_probe
O=/tmp/oH; rm -rf $O; mkdir -p $O
{ date -u; nproc; lscpu; df -T /dev/shm .; cat /proc/loadavg; } > $O/env.txt 2>&1
mkdir -p /dev/shm/hp
head -c 1073741824 /dev/urandom > /dev/shm/hp/uniform-1GiB
head -c 1073741824 /dev/urandom > ./disk-uniform-1GiB
for round in 1 2; do
  for f in /dev/shm/hp/uniform-1GiB ./disk-uniform-1GiB; do
    echo "== round $round $f $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/carryover.txt
    $P $f 15 carryover >> $O/carryover.txt 2>&1
  done
done
rm -f ./disk-uniform-1GiB
tar -C $O -czf "$OUT"/x.tar.gz .
cat $O/carryover.txt
