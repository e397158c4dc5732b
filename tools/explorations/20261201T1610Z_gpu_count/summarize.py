"""The sweep's count-bench files as one table, in the order they ran: python3 summarize.py DIR"""
import glob
import json
import os
import sys

print("| run | file | threads | chunk MiB | buffers | piece KiB | count GB/s (p10-p90) | h2d_pinned | A/A | count % of h2d | pread_pinned |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(path))
    g = {e["name"]: e["gbps"] for e in d["entries"]}
    c = g["count"]
    print(f"| {os.path.basename(path)[:16]} | {os.path.basename(d['file']['path'])} | {d['threads']} | {d['chunk_bytes'] >> 20} | {d['buffers']} "
          f"| {d['piece_bytes'] >> 10} | {c['median']:.1f} ({c['p10']:.1f}-{c['p90']:.1f}) "
          f"| {g['h2d_pinned']['median']:.1f} | {d['control_pct_of_h2d']:.0f}% | {d['count_pct_of_h2d']:.0f}% "
          f"| {g['pread_pinned']['median']:.1f} |")
