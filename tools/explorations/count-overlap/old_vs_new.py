#!/usr/bin/env python3
"""Two builds' `histostudy count` against `dd bs=4M of=/dev/null` on the same
page-cached file, as a user runs them (whole processes), in rotating order;
each count's output is checked equal to the other's. Prints medians with
p10..p90 of GB/s.
Usage: old_vs_new.py OLD_HISTOSTUDY NEW_HISTOSTUDY FILE [ROUNDS] [IMPL]"""
import os
import statistics
import subprocess
import sys
import time

old, new, path = sys.argv[1:4]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 9
impl = sys.argv[5] if len(sys.argv) > 5 else "openmp_fast"
size = os.path.getsize(path)
entries = {
    "old count": [old, "count", "--impl", impl, path],
    "new count": [new, "count", "--impl", impl, path],
    "dd bs=4M": ["dd", f"if={path}", "of=/dev/null", "bs=4M", "status=none"],
}
outputs, seconds = {}, {name: [] for name in entries}
for r in range(rounds):
    names = list(entries)
    for k in range(len(names)):
        name = names[(r + k) % len(names)]
        start = time.perf_counter()
        out = subprocess.run(entries[name], capture_output=True, check=True).stdout
        seconds[name].append(time.perf_counter() - start)
        outputs.setdefault(name, out)
assert outputs["old count"] == outputs["new count"], "the two counts differ"


def pct(v, q):
    v = sorted(v)
    x = q * (len(v) - 1)
    lo = int(x)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (x - lo)


print(f"{path}: {size} bytes, {rounds} rounds, --impl {impl}")
gbps = {n: [size / s / 1e9 for s in v] for n, v in seconds.items()}
for n, v in gbps.items():
    print(f"  {n:10} {statistics.median(v):6.2f} GB/s (p10 {pct(v, 0.1):.2f}, p90 {pct(v, 0.9):.2f})"
          f"  {100 * statistics.median(v) / statistics.median(gbps['dd bs=4M']):4.0f}% of dd")
