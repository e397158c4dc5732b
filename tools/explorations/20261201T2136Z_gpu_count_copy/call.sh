#!/usr/bin/env bash
# For the GPU machine's copy of the tree only: it writes 1 GiB files into the working directory and removes build-gpu.
# One device call: the register probe and count-bench on the same files, alternating.
set -u
P=.deps/h200/probe/register_probe
O=/tmp/oP; rm -rf $O build-gpu; mkdir -p $O
{ date -u; nproc; df -T /dev/shm . /var/tmp; cat /proc/loadavg; } > $O/env.txt 2>&1
OUT=$O/h200 tools/h200_run.sh build > $O/build.txt 2>&1 || echo "build failed" >> $O/build.txt
mkdir -p /dev/shm/rp
head -c 1073741824 /dev/urandom > /dev/shm/rp/uniform-1GiB
head -c $((4*1024*1024*1024+3)) /dev/urandom > /dev/shm/rp/uniform-4GiB+3
head -c 1073741824 /dev/urandom > ./disk-uniform-1GiB
mkdir -p $O/cb
for round in 1 2; do
  for f in /dev/shm/rp/uniform-1GiB ./disk-uniform-1GiB; do
    echo "== round $round probe $f $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $O/probe.txt
    $P $f 9 >> $O/probe.txt 2>&1
    echo "== round $round count-bench $f $(date -u +%T)" >> $O/probe.txt
    build-gpu/histostudy count-bench $f --impl lane_shared -o $O/cb >> $O/probe.txt 2>&1
  done
done
echo "== probe 4GiB+3 $(date -u +%T)" >> $O/probe.txt
$P /dev/shm/rp/uniform-4GiB+3 5 >> $O/probe.txt 2>&1
rm -f ./disk-uniform-1GiB
tar -C $O -czf "$OUT"/x.tar.gz .
cat $O/probe.txt | tail -80
