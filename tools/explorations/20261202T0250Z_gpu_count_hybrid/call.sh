#!/usr/bin/env bash
# For the GPU machine's copy of the tree only: it writes 1 GiB files into /dev/shm and the working directory.
# One device call: hybrid_probe on a tmpfs and an ext4 1 GiB file (twice each, alternating) and on 4 GiB + 3.
set -u
P=.deps/h200/probe/hybrid_probe
O=/tmp/oH; rm -rf $O; mkdir -p $O
{ date -u; nproc; lscpu; df -T /dev/shm .; cat /proc/loadavg; nvidia-smi; } > $O/env.txt 2>&1
mkdir -p /dev/shm/hp
head -c 1073741824 /dev/urandom > /dev/shm/hp/uniform-1GiB
head -c $((4*1024*1024*1024+3)) /dev/urandom > /dev/shm/hp/uniform-4GiB+3
head -c 1073741824 /dev/urandom > ./disk-uniform-1GiB
for round in 1 2; do
  for f in /dev/shm/hp/uniform-1GiB ./disk-uniform-1GiB; do
    echo "== round $round $f $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/probe.txt
    $P $f 9 >> $O/probe.txt 2>&1
  done
done
echo "== 4GiB+3 $(date -u +%T)" >> $O/probe.txt
$P /dev/shm/hp/uniform-4GiB+3 5 >> $O/probe.txt 2>&1
rm -f ./disk-uniform-1GiB
tar -C $O -czf "$OUT"/x.tar.gz .
cat $O/probe.txt
