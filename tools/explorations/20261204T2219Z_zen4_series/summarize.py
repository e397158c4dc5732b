#!/usr/bin/env python3
"""The series' table: per run file, its start, commit, openmp_fast's range of medians over the inputs, how many
inputs reached 10 GB/s, the read floor's range, and whether every check passed.
Usage: summarize.py RUN.json..."""
import json
import sys


def line(path):
    doc = json.load(open(path, encoding="utf-8"))
    rows = doc["rows"]
    fast = [r["gbps"] for r in rows if r["impl"] == "openmp_fast"]
    floor = [r["gbps"] for r in rows if r["impl"] == "openmp_read_floor"]
    checks = all(r["check"]["passed"] for r in rows)
    return (f"| {doc['started'][11:19]} | {doc['provenance']['git_commit'][:7]} | {min(fast):.2f}-{max(fast):.2f} | "
            f"{sum(g >= 10 for g in fast)} of {len(fast)} | {min(floor):.1f}-{max(floor):.1f} | "
            f"{'all' if checks else 'NOT ALL'} |")


print("| started (UTC) | commit | openmp_fast GB/s | inputs at >= 10 GB/s | read floor GB/s | checks passed |")
print("| --- | --- | ---: | ---: | ---: | --- |")
for path in sys.argv[1:]:
    print(line(path))
