"""SYNTHETIC result and codegen files for tests only: made-up GPU runs with
three CUDA toolchains and an A/A control, a bins-placement sweep and hot and
cold runs, so the GPU paths of every report are exercised before real GPU
data exists. Written to temporary directories, never into data/.

The shape follows a real CPU run (its rows and environment are reused) and,
for the controls' fields, the study's result writer (study/driver/harness.cpp); the GPU
figures are invented round numbers, and the GPU is named as synthetic.
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
       "l2_cache_bytes": 60 << 20, "driver_version": "000.00 (synthetic)"}
CONTROL = " (A/A control)"
MIB = 1 << 20

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


def _input_stats(input, cpu_rows, size):
    """The input_stats of `input` at `size` bytes, from the CPU row that measured it."""
    for row in cpu_rows:
        if row["input"] == input:
            return input_stats_at(row["input_stats"], row["size"], size)
    raise KeyError(input)


def summary(samples):
    """summary_ms of `samples`, as study/driver/stats.cpp summarizes them."""
    ordered = np.sort(samples)
    return {"median": float(np.median(ordered)), "min": float(ordered[0]), "max": float(ordered[-1]),
            "p10": float(np.percentile(ordered, 10)), "p90": float(np.percentile(ordered, 90)),
            "mean": float(np.mean(ordered))}


def gbps(row):
    return row["bytes_read"] / (row["summary_ms"]["median"] * 1e-3) / 1e9


def resummarized(doc):
    """doc with every row's summary_ms, gbps and recorded pct_of_floor made again from its samples, as
    study/driver/harness.cpp makes them: what a test that changes samples writes, so that the file agrees with itself."""
    for row in doc["rows"]:
        if row["samples_ms"]:
            row["summary_ms"] = summary(row["samples_ms"])
            row["gbps"] = gbps(row)
    for row in doc["rows"]:
        floor = next((f for f in doc["rows"] if f["impl"] == row["floor_impl"] and f["check"]["passed"] and
                      (f["toolchain"], f["input"], f["size"]) == (row["toolchain"], row["input"], row["size"])), None)
        if row["pct_of_floor"] is not None:
            row["pct_of_floor"] = 100 * row["gbps"] / floor["gbps"] if floor and floor["gbps"] else None
    return doc


def _row(experiment, impl, toolchain, input, size, passes, block, stats, rng, median=None, samples=None):
    median = median or _median_ms(impl, input, passes, toolchain.removesuffix(CONTROL))
    samples = samples or [round(float(median * f), 6) for f in rng.normal(1.0, 0.01, 20)]
    pol = _policy(impl, passes, block)
    atomics = {"global": size, "cub": None, "sum_bytes": 0, "read_floor": 0}.get(impl, GRID * BINS)
    row = {"experiment": experiment, "impl": impl, "backend": "cuda", "toolchain": toolchain, "input": input,
           "size": size, "policy": pol, "input_stats": stats, "check": {"passed": True, "detail": ""},
           "global_atomics": atomics, "bytes_read": size * passes, "samples_ms": samples,
           "summary_ms": summary(samples), "floor_impl": "read_floor", "pct_of_floor": None}
    return dict(row, lesson_mean_ms=row["summary_ms"]["mean"], gbps=gbps(row))


def _attach_floors(rows):
    """pct_of_floor as study/driver/harness.cpp's attach_floors sets it: over the first passing floor row of the same
    toolchain, input and size."""
    for row in rows:
        floor = next((f for f in rows if f["impl"] == row["floor_impl"] and f["check"]["passed"] and
                      (f["toolchain"], f["input"], f["size"]) == (row["toolchain"], row["input"], row["size"])), None)
        if floor:
            row["pct_of_floor"] = 100 * row["gbps"] / floor["gbps"]


def control(toolchain):
    return toolchain + CONTROL


def _with_executors(cpu_doc, toolchains):
    doc = copy.deepcopy(cpu_doc)
    doc["environment"]["gpu_absent"] = None
    for tc in toolchains:
        compiler, version = tc.removesuffix(CONTROL).split()
        doc["environment"]["executors"].append({"toolchain": tc, "describe": {
            "compiler": compiler, "version": version, "flags": "-O3 (synthetic)", "gpu": dict(GPU)}})
    return doc


def add_controls(row, group, offset=0, cache="cold"):
    """The controls' per-row records, as a controlled run writes them (study/driver/harness.cpp)."""
    n = len(row["samples_ms"])
    row.update({"control_of": row["toolchain"].removesuffix(CONTROL) if row["toolchain"].endswith(CONTROL) else None,
                "sample_log": {"ms": list(row["samples_ms"]), "position": [i % len(group) for i in range(n)],
                               "clock_mhz": [1980.0] * n, "throttled": [False] * n},
                "sampling": {"cache": cache, "taken": n, "used": n, "throttled": 0, "stop": "noise", "noise": 0.002,
                             "group": list(group)},
                "placement": {"bins_offset": offset, "bins_mod_2mib": offset, "input_mod_2mib": 0,
                              "byte_sum_mod_2mib": 4096, "scratch_mod_2mib": 8192}})
    return row


def gpu_run(cpu_doc, seed=1, with_blocks=True, controlled=True, aa_factors=None, experiments=("lesson", "sweep")):
    """A synthetic GPU result document built on a real CPU run's document, with GPU rows of `experiments`
    (lesson, sweep) and of blocks. Controlled: the controls' records on every GPU row and an A/A control of
    the first toolchain, its samples scaled by aa_factors {(impl, input): factor} (a planted A/A
    difference); else as runs made before the controls."""
    rng = np.random.default_rng(seed)
    toolchains = TOOLCHAINS + ((control(TOOLCHAINS[0]),) if controlled else ())
    doc = _with_executors(cpu_doc, toolchains)
    cpu_rows = [r for r in doc["rows"] if r["backend"] == "cpu"]
    size = cpu_rows[0]["size"]
    plan = [("lesson", LESSON_INPUTS, (1, 2, 4, 8)), ("sweep", SWEEP_INPUTS, (4,))]
    rows = []
    for experiment, inputs, passes_list in (p for p in plan if p[0] in experiments):
        for input in inputs:
            stats = _input_stats(input, cpu_rows, size)
            for tc in toolchains:
                for impl in ("sum_bytes", "read_floor", "global", "per_block", "per_warp", "partitioned", "cub"):
                    for passes in (passes_list if impl == "partitioned" else (1,)):
                        factor = (aa_factors or {}).get((impl, input), 1.0) if tc.endswith(CONTROL) else 1.0
                        median = _median_ms(impl, input, passes, tc.removesuffix(CONTROL)) * factor
                        rows.append(_row(experiment, impl, tc, input, size, passes, BLOCK, stats, rng, median))
    if with_blocks:
        for input in ("uniform", "lesson_english", "one_byte"):
            for block in (64, 128, 256, 512, 1024):
                for impl in ("global", "per_block"):
                    rows.append(_row("blocks", impl, TOOLCHAINS[0], input, size, 1, block,
                                     _input_stats(input, cpu_rows, size), rng))
    if controlled:
        rows = [add_controls(r, toolchains if r["experiment"] != "blocks" else TOOLCHAINS[:1]) for r in rows]
    _attach_floors(rows)
    doc["rows"] = cpu_rows + rows
    return doc


# Planted placement medians, ms: global on uniform is fastest with the bins at 512 and slowest at 0,
# with a period of 1,024 bytes; per_block does not care where its bins lie.
PLACEMENT_OFFSETS = tuple(range(0, 2049, 128))
PLACED_GLOBAL_MS = {0: 17.3, 512: 8.3, 1024: 17.0, 1536: 8.6, 2048: 17.0}


def placed_ms(impl, offset):
    if impl == "global":
        return PLACED_GLOBAL_MS.get(offset, 12.85)
    return 0.1


def placement_run(cpu_doc, seed=2):
    """A controlled placement run: global and per_block on uniform at every offset, two toolchains and the control."""
    rng = np.random.default_rng(seed)
    toolchains = TOOLCHAINS[:2] + (control(TOOLCHAINS[0]),)
    doc = _with_executors(cpu_doc, toolchains)
    cpu_rows = [r for r in doc["rows"] if r["backend"] == "cpu"]
    stats = _input_stats("uniform", cpu_rows, cpu_rows[0]["size"])
    rows = [add_controls(_row("placement", impl, tc, "uniform", cpu_rows[0]["size"], 1, BLOCK, stats, rng,
                              placed_ms(impl, offset)), toolchains, offset)
            for impl in ("global", "per_block") for offset in PLACEMENT_OFFSETS for tc in toolchains]
    doc["rows"] = rows
    return doc


CACHE_SIZES = (16 * MIB, 32 * MIB, 67_109_475)


def cache_run(cpu_doc, cache, seed=3):
    """A controlled custom run of per_block at CACHE_SIZES on uniform, sampled `cache`: hot samples of an
    input that fits the synthetic L2 are planted at 0.8x the cold ones."""
    rng = np.random.default_rng(seed)
    doc = _with_executors(cpu_doc, TOOLCHAINS[:1])
    cpu_rows = [r for r in doc["rows"] if r["backend"] == "cpu"]
    rows = []
    for size in CACHE_SIZES:
        hot = 0.8 if cache == "hot" and size <= GPU["l2_cache_bytes"] else 1.0
        stats = _input_stats("uniform", cpu_rows, size)
        rows.append(add_controls(_row("custom", "per_block", TOOLCHAINS[0], "uniform", size, 1, BLOCK, stats, rng,
                                      0.1 * size / CACHE_SIZES[-1] * hot), TOOLCHAINS[:1], cache=cache))
    doc["rows"] = rows
    return doc


SIZES_SPREAD = (0.98, 0.99, 1.0, 1.01, 1.02)   # each sizes row's samples over its median


def sizes_run(cpu_doc, medians_us, theoretical_gbps=4000.0, names=None):
    """A controlled run of the sizes experiment: {(role, input, size): median in microseconds} for the roles floor,
    subject and peer, each row's samples its median times SIZES_SPREAD and its roles recorded (as the C++ writes
    them). names {role: implementation}: the implementations (default: the registry's read_floor, lane_shared and
    cub). theoretical_gbps: the GPU record's theoretical bandwidth (None: not recorded)."""
    names = names or {"floor": "read_floor", "subject": "lane_shared", "peer": "cub"}
    doc = _with_executors(cpu_doc, TOOLCHAINS[:1])
    gpu = doc["environment"]["executors"][-1]["describe"]["gpu"]
    gpu.pop("theoretical_bandwidth_gbps", None)
    if theoretical_gbps:
        gpu["theoretical_bandwidth_gbps"] = theoretical_gbps
    cpu_rows = [r for r in doc["rows"] if r["backend"] == "cpu"]
    rng = np.random.default_rng(4)
    rows = []
    for (role, input, size), us in medians_us.items():
        ms = us / 1000
        row = _row("sizes", names[role], TOOLCHAINS[0], input, size, 1, BLOCK, _input_stats(input, cpu_rows, size), rng,
                   ms, [ms * f for f in SIZES_SPREAD])
        row.update(floor_impl=names["floor"], roles=[role])
        rows.append(add_controls(row, TOOLCHAINS[:1]))
    for row in rows:   # the floor of the same input and size
        floor = next((f for f in rows if f["impl"] == row["floor_impl"] and (f["input"], f["size"]) ==
                      (row["input"], row["size"])), None)
        row["pct_of_floor"] = 100 * row["gbps"] / floor["gbps"] if floor else None
    doc["rows"] = rows
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


def many_sizes_run(cpu_doc, n_sizes):
    """A CPU run of the lesson's rows at n_sizes sizes (as `run -s` with many sizes writes it): what the
    lesson tables must handle in time linear in the rows."""
    doc = copy.deepcopy(cpu_doc)
    lesson = [r for r in doc["rows"] if r["experiment"] == "lesson" and r["backend"] == "cpu"]
    doc["rows"] = [repeated(dict(r, experiment="custom"), k + 1) for k in range(n_sizes) for r in lesson]
    return resummarized(doc)


def input_stats_at(found, size_found, size):
    """input_stats `found` of size_found bytes, as the same mix of bytes has them at `size` bytes."""
    used = min(found["bins_used"], size)
    busiest = min(max(-(-size // used), round(found["busiest"] * size / size_found)), size - used + 1)
    return {"busiest_pct": 100 * busiest / size, "busiest": busiest, "bins_used": used}


def repeated(row, times):
    """row as measured on its input repeated `times` over: its size, bytes read and bins `times` as large."""
    row = copy.deepcopy(row)
    row.update(size=row["size"] * times, bytes_read=row["bytes_read"] * times)
    row["input_stats"]["busiest"] *= times
    return row
