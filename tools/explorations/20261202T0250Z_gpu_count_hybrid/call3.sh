#!/usr/bin/env bash
# For the GPU machine's copy of the tree only: it writes 1 GiB files into /dev/shm and the working directory.
# The third device call: which state carries over (hybrid_probe carryover OTHER), on tmpfs and ext4, twice each.
set -u
P=.deps/h200/probe/hybrid_probe
O=/tmp/oH; rm -rf $O; mkdir -p $O
{ date -u; nproc; lscpu; df -T /dev/shm .; cat /proc/loadavg; } > $O/env.txt 2>&1
mkdir -p /dev/shm/hp
for f in /dev/shm/hp/a /dev/shm/hp/b ./disk-a ./disk-b; do head -c 1073741824 /dev/urandom > $f; done
for round in 1 2; do
  for pair in "/dev/shm/hp/a /dev/shm/hp/b" "./disk-a ./disk-b"; do
    set -- $pair
    echo "== round $round $1 (other $2) $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/carryover.txt
    $P $1 15 carryover $2 >> $O/carryover.txt 2>&1
  done
done
rm -f ./disk-a ./disk-b
tar -C $O -czf "$OUT"/x.tar.gz .
cat $O/carryover.txt
