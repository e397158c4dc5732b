"""SYNTHETIC result and codegen files for tests only: a made-up GPU run with
three CUDA toolchains, so the GPU paths of every report are exercised before
real GPU data exists. Written to temporary directories, never into data/.

The shape follows a real CPU run (its rows and environment are reused); the
GPU figures are invented round numbers, and the GPU is named as synthetic.
"""
import copy
import json

import numpy as np

GRID, BLOCK, BINS = 1024, 256, 256
TOOLCHAINS = ("nvcc 13.0.88", "nvrtc 12.6.85", "nvrtc 13.0.88")
LESSON_INPUTS = ("uniform", "lesson_english", "prose", "one_byte")
SWEEP_INPUTS = tuple(f"distinct_{k}" for k in (256, 128, 64, 32, 16, 8, 4, 2, 1))
GPU = {"name": "SYNTHETIC GPU (test fixture)", "uuid": "GPU-00000000-synthetic", "compute_capability": "9.0",
       "sm_count": 132, "shared_per_block": 49152, "shared_per_block_optin": 232448, "shared_per_sm": 233472,
       "driver_version": "000.00 (synthetic)"}

# Invented medians, ms, at the lesson's size: contention on global, flat elsewhere.
BASE_MS = {"sum_bytes": 0.1, "read_floor": 0.02, "per_block": 0.1, "per_warp": 0.09, "cub": 0.03}
GLOBAL_MS = {"uniform": 17.0, "lesson_english": 16.0, "prose": 16.5, "one_byte": 49.0}


def _policy(impl, passes=1, block=BLOCK):
    copies = block // 32 if impl == "per_warp" else 1
    shared = {"sum_bytes": 256, "read_floor": 256, "global": 0, "cub": 0}.get(impl, 4 * BINS * copies)
    return {"grid": GRID, "block": block, "threads": 0, "passes": passes, "copies": copies, "counter_bits": 32,
            "shared_bytes": shared}


def _median_ms(impl, input, passes, toolchain):
    if impl == "global":
        contention = GLOBAL_MS.get(input) or 17.0 + 32.0 / int(input.split("_")[1])
        return contention
    if impl == "partitioned":
        return 0.1 * passes
    slow_reader = 1.5 if impl == "sum_bytes" and "13." in toolchain else 1.0  # a version effect to find
    return BASE_MS[impl] * slow_reader


def _input_stats(input, cpu_rows):
    for row in cpu_rows:
        if row["input"] == input:
            return copy.deepcopy(row["input_stats"])
    raise KeyError(input)


def _row(experiment, impl, toolchain, input, size, passes, block, stats, rng):
    median = _median_ms(impl, input, passes, toolchain)
    samples = [round(float(median * f), 6) for f in rng.normal(1.0, 0.01, 20)]
    pol = _policy(impl, passes, block)
    atomics = {"global": size, "cub": None, "sum_bytes": 0, "read_floor": 0}.get(impl, GRID * BINS)
    bytes_read = size * passes
    ordered = np.sort(samples)
    summary = {"median": float(np.median(ordered)), "min": float(ordered[0]), "max": float(ordered[-1]),
               "p10": float(np.percentile(ordered, 10)), "p90": float(np.percentile(ordered, 90)),
               "mean": float(np.mean(ordered))}
    return {"experiment": experiment, "impl": impl, "backend": "cuda", "toolchain": toolchain, "input": input,
            "size": size, "policy": pol, "input_stats": stats, "check": {"passed": True, "detail": ""},
            "global_atomics": atomics, "bytes_read": bytes_read, "samples_ms": samples, "summary_ms": summary,
            "lesson_mean_ms": summary["mean"], "gbps": bytes_read / (summary["median"] * 1e-3) / 1e9,
            "floor_impl": "read_floor", "pct_of_floor": None}


def _attach_floors(rows):
    for row in rows:
        floor = next((f for f in rows if f["impl"] == row["floor_impl"] and f["toolchain"] == row["toolchain"]
                      and f["input"] == row["input"] and f["experiment"] == row["experiment"]), None)
        if floor:
            row["pct_of_floor"] = 100 * row["gbps"] / floor["gbps"]


def gpu_run(cpu_doc, seed=1, with_blocks=True):
    """A synthetic GPU result document built on a real CPU run's document."""
    rng = np.random.default_rng(seed)
    doc = copy.deepcopy(cpu_doc)
    cpu_rows = [r for r in doc["rows"] if r["backend"] == "cpu"]
    size = cpu_rows[0]["size"]
    doc["environment"]["gpu_absent"] = None
    for tc in TOOLCHAINS:
        compiler, version = tc.split()
        doc["environment"]["executors"].append({"toolchain": tc, "describe": {
            "compiler": compiler, "version": version, "flags": "-O3 (synthetic)", "gpu": dict(GPU)}})
    plan = [("lesson", LESSON_INPUTS, (1, 2, 4, 8), (BLOCK,)), ("sweep", SWEEP_INPUTS, (4,), (BLOCK,))]
    rows = []
    for experiment, inputs, passes_list, blocks in plan:
        for input in inputs:
            stats = _input_stats(input, cpu_rows)
            for tc in TOOLCHAINS:
                for impl in ("sum_bytes", "read_floor", "global", "per_block", "per_warp", "partitioned", "cub"):
                    for passes in (passes_list if impl == "partitioned" else (1,)):
                        rows.append(_row(experiment, impl, tc, input, size, passes, BLOCK, stats, rng))
    if with_blocks:
        for input in ("uniform", "lesson_english", "one_byte"):
            for block in (64, 128, 256, 512, 1024):
                for impl in ("global", "per_block"):
                    rows.append(_row("blocks", impl, TOOLCHAINS[0], input, size, 1, block,
                                     _input_stats(input, cpu_rows), rng))
    _attach_floors(rows)
    doc["rows"] = cpu_rows + rows
    return doc


def codegen_doc():
    """A synthetic codegen audit in the shape plots/codegen.py reads."""
    records = []
    for tc in TOOLCHAINS:
        for arch in ("sm_75", "sm_90"):
            for kernel in ("hs_sum_bytes", "hs_read_floor", "hs_global<unsigned int>", "hs_per_block<unsigned int>"):
                newer = "13." in tc and kernel == "hs_sum_bytes"
                records.append({"kernel": kernel, "toolchain": tc, "arch": arch, "registers": 18 if newer else 16,
                                "shared_bytes": 256, "spill_stores": 0, "spill_loads": 0,
                                "sass_instructions": 140 if newer else 120,
                                "opcodes": {"LDG.E.U8": 4 if newer else 8, "IADD3": 12}, "cubin_sha256": f"{tc}{arch}"})
    return {"format": "histostudy-codegen", "records": records}


def write_json(path, doc):
    path.write_text(json.dumps(doc, indent=1) + "\n")
