#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (it removes build-gpu). One device call: build, the test
# stage (the GPU suite and the GPU meson suites: CLI and hostile with a GPU), the gcount stage.
set -u
O=/tmp/oF; rm -rf $O build-gpu; mkdir -p $O
{ date -u; nproc; lscpu; head -1 /proc/stat; cat /proc/loadavg; } > $O/env.txt 2>&1
OUT=$O/h200 tools/h200_run.sh build test gcount > $O/stages.txt 2>&1 || echo "a stage failed" >> $O/stages.txt
tar -C $O -czf "$OUT"/x.tar.gz .
grep -E "passed|FAILED|failed|differ|^Ok:|^Fail:" $O/stages.txt | head -30
grep -E "^\| " $O/stages.txt | tail -14
