#!/usr/bin/env python3
"""Paired comparison of the reader variants of one call: the k-th file of one
variant's folder ran in the same round, on the same file, as the k-th of
another's (each round runs both files per variant, uniform first).
  paired.py CALL_DIR A B   e.g. paired.py call3 14n0 12n0"""
import glob, json, os, statistics, sys

def pcts(call, variant):
    out = []
    for path in sorted(glob.glob(os.path.join(call, "nice", variant, "*.json"))):
        d = json.load(open(path))
        out.append(d["count_pct_of_" + d["floor"]["name"]])
    return out

call, a, b = sys.argv[1:4]
pairs = list(zip(pcts(call, a), pcts(call, b)))
diffs = [x - y for x, y in pairs]
print(f"{call}: {a} against {b}, {len(pairs)} pairs: ahead in {sum(d > 0 for d in diffs)}, "
      f"behind in {sum(d < 0 for d in diffs)}, median difference {statistics.median(diffs):+.1f} points")
