#!/usr/bin/env bash
# For the GPU machine's copy of the tree only (it removes build-gpu). One device call: build, the GPU
# suite, the gcount stage (count-bench settled, with count's own A/A pair), and the CLI and hostile suites.
set -u
O=/tmp/oF; rm -rf $O build-gpu; mkdir -p $O
{ date -u; nproc; lscpu; head -1 /proc/stat; cat /proc/loadavg; } > $O/env.txt 2>&1
OUT=$O/h200 tools/h200_run.sh build test gcount > $O/stages.txt 2>&1 || echo "a stage failed" >> $O/stages.txt
python3 tests/test_cli.py build-gpu/histostudy > $O/cli.txt 2>&1; echo "cli rc=$?" >> $O/cli.txt
python3 tests/test_hostile.py build-gpu/histostudy > $O/hostile.txt 2>&1; echo "hostile rc=$?" >> $O/hostile.txt
tar -C $O -czf "$OUT"/x.tar.gz .
grep -E "passed|FAILED|failed|differ|test cases|assertions" $O/stages.txt | head -20; tail -4 $O/cli.txt; tail -4 $O/hostile.txt
grep -E "^\| " $O/stages.txt | tail -12
