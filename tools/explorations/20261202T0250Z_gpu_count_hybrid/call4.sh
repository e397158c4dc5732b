#!/usr/bin/env bash
# For the GPU machine's copy of the tree only: it writes 1 GiB files into /dev/shm and the working directory.
# The fourth device call: can a pass prime the ring itself (hybrid_probe prime), on tmpfs and ext4, twice each.
set -u
P=.deps/h200/probe/hybrid_probe
O=/tmp/oH; rm -rf $O; mkdir -p $O
{ date -u; nproc; lscpu; df -T /dev/shm .; cat /proc/loadavg; } > $O/env.txt 2>&1
mkdir -p /dev/shm/hp
for f in /dev/shm/hp/a ./disk-a; do head -c 1073741824 /dev/urandom > $f; done
for round in 1 2; do
  for f in /dev/shm/hp/a ./disk-a; do
    echo "== round $round $f $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/prime.txt
    $P $f 15 prime >> $O/prime.txt 2>&1
  done
done
rm -f ./disk-a
tar -C $O -czf "$OUT"/x.tar.gz .
cat $O/prime.txt
