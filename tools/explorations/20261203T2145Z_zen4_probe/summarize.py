#!/usr/bin/env python3
"""Summarizes probe.cpp's output files: per 10-second stretch, the sample's median GB/s and the probes' medians (both
threads' kern and copy added), and over every iteration each probe's correlation with the sample's rate.
    /usr/bin/python3 tools/explorations/20261203T2145Z_zen4_probe/summarize.py runs/*-150s.txt"""
import sys

import numpy as np

for path in sys.argv[1:]:
    rows = [[float(x) for x in line.replace("|", " ").split()] for line in open(path) if line[0] != "#" and "|" in line]
    r = np.array(rows)
    t, sample, steal = r[:, 0], r[:, 1], r[:, 2]
    probes = {"clock GHz": (r[:, 3] + r[:, 7]) / 2, "vec zmm/ns": (r[:, 4] + r[:, 8]) / 2,
              "kern GB/s (2)": r[:, 5] + r[:, 9], "copy GB/s (2)": r[:, 6] + r[:, 10]}
    print(f"{path}: {len(r)} iterations; sample GB/s p5/p50/p95 {np.percentile(sample, [5, 50, 95]).round(2).tolist()}")
    print("  stretch   sample  " + "  ".join(f"{k:>13}" for k in probes) + "  steal ms")
    for k in np.unique((t // 10).astype(int)):
        m = (t // 10).astype(int) == k
        print(f"  {10 * k:4d} s   {np.median(sample[m]):6.2f}  " + "  ".join(f"{np.median(v[m]):13.2f}" for v in probes.values())
              + f"  {int(steal[m].sum()):8d}")
    print("  correlation with the sample's GB/s, iteration by iteration: "
          + ", ".join(f"{k} {np.corrcoef(v, sample)[0, 1]:.2f}" for k, v in probes.items()))
