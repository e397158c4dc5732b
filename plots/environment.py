"""What a run ran on: readable summaries and typed differences.

The environment record grows (GPU state, versions, kernel attributes), so
nothing here assumes a key: values are looked up by name anywhere in the
record and shown as "not recorded" when absent.
"""
import json
import re

from plots.results import cuda_version

NOT_RECORDED = "not recorded"
ABSENT = "(absent)"

# Typed difference: the first category whose pattern matches a flattened key.
# Order matters: driver and clock keys live under the GPU's own record.
DIFF_CATEGORIES = [
    ("clocks and GPU state", r"clock|temperature|power|ecc|persistence|throttle|event_reasons"),
    ("driver", r"driver"),
    ("build flags", r"flags|archs|build_type|host_compiler|\.build\."),
    ("GPU", r"gpu|device"),
    ("toolchains", r"executors|toolchain|version|compiler|cub|openmp"),
    ("host", r"\.host\."),
    ("provenance", r"provenance|git"),
    ("timing plan", r"^timing"),
]


# The generation of each (vendor, family, model) from /proc/cpuinfo these runs were made on: the model name
# ("AMD EPYC") names none, and a Zen 4 and a Zen 5 run openmp_fast's AVX-512 path at different speeds. Another
# CPU is named by its family and model numbers alone.
CPU_GENERATIONS = {("AuthenticAMD", "25", "17"): "Zen 4", ("AuthenticAMD", "26", "2"): "Zen 5",
                   ("GenuineIntel", "6", "143"): "Sapphire Rapids", ("GenuineIntel", "6", "207"): "Emerald Rapids"}


def cpu_identity(environment):
    """The CPU's vendor, family, model... as the host record holds them (count-bench files before 2026-12-03
    hold them beside the host, as environment.cpu); None where not recorded."""
    return environment.get("host", {}).get("cpu") or environment.get("cpu")


def cpu_name(environment):
    """'AMD EPYC (Zen 4, family 25, model 17)', 'AMD EPYC (family 25, model 1)', 'AMD EPYC (generation not
    recorded)' for a run made before the record held the CPU's identity (or on a CPU whose /proc/cpuinfo gives
    no family), 'CPU not recorded'."""
    model_name = environment.get("host", {}).get("cpu_model")
    if not model_name:
        return "CPU not recorded"
    ident = cpu_identity(environment) or {}
    if not ident.get("family"):
        return f"{model_name} (generation not recorded)"
    numbers = f"family {ident['family']}, model {ident['model']}"
    generation = CPU_GENERATIONS.get((ident["vendor"], ident["family"], ident["model"]))
    return f"{model_name} ({generation}, {numbers})" if generation else f"{model_name} ({numbers})"


def cpu_and_cores(environment):
    """'AMD EPYC (Zen 4, family 25, model 17), 2 logical cores'."""
    return f"{cpu_name(environment)}, {environment['host']['logical_cores']} logical cores"


def toolchain_slot(toolchain):
    """'nvrtc 12' for 'nvrtc 12.6.85', 'cpu' for 'cpu': one executor across version bumps; an A/A
    control entry keeps its suffix ('nvcc 13 (A/A control)'), so it never stands in for its toolchain."""
    name, control, suffix = toolchain.partition(" (")
    version = cuda_version(name)
    return (f"{name.split()[0]} {version[0]}" if version else name) + control + suffix


def flatten(value, prefix=""):
    """{'a.b[0].c': scalar}; executors are keyed by toolchain slot, not position."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        out = {}
        for i, v in enumerate(value):
            slot = toolchain_slot(v["toolchain"]) if isinstance(v, dict) and "toolchain" in v else i
            out.update(flatten(v, f"{prefix}[{slot}]"))
        return out
    return {prefix: value}


def show(value):
    return value if isinstance(value, str) else json.dumps(value)


def find_value(record, *keys):
    """The first value under any of `keys`, searching nested dicts depth-first; None if absent."""
    if isinstance(record, dict):
        for key in keys:
            if key in record and not isinstance(record[key], (dict, list)):
                return record[key]
        children = record.values()
    elif isinstance(record, list):
        children = record
    else:
        return None
    for child in children:
        found = find_value(child, *keys)
        if found is not None:
            return found
    return None


def executor_describe(run, toolchain):
    for executor in run.environment["executors"]:
        if executor["toolchain"] == toolchain:
            return executor["describe"]
    return {}


def _find_dict_with(record, key):
    if isinstance(record, dict):
        if key in record:
            return record
        record = list(record.values())
    if isinstance(record, list):
        for child in record:
            found = _find_dict_with(child, key)
            if found is not None:
                return found
    return None


def gpu_record(run, toolchain=None):
    """The dict describing the GPU (the one holding 'compute_capability'):
    first under the toolchain's executor, else anywhere in the environment."""
    places = [executor_describe(run, toolchain)] if toolchain else []
    for place in places + [run.environment]:
        found = _find_dict_with(place, "compute_capability")
        if found is not None:
            return found
    return {}


def gpu_fact(run, toolchain, *keys):
    """A GPU property (e.g. 'shared_per_sm') from the GPU record, or None."""
    return find_value(gpu_record(run, toolchain), *keys)


def compute_capability(run, toolchain):
    """(major, minor) of the run's GPU, or None."""
    cc = gpu_fact(run, toolchain, "compute_capability")
    m = re.match(r"(\d+)\.(\d+)", str(cc)) if cc is not None else None
    return (int(m.group(1)), int(m.group(2))) if m else None


def _or_not_recorded(value):
    return NOT_RECORDED if value in (None, "") else str(value)


def gpu_name(run, toolchain):
    return gpu_record(run, toolchain).get("name", "an unnamed GPU")


def gpu_line(run, toolchain):
    """'NVIDIA H200 (cc 9.0, 132 SMs)', or why there is none."""
    gpu = gpu_record(run, toolchain)
    if not gpu:
        absent = run.environment.get("gpu_absent")
        return f"none ({absent})" if absent else NOT_RECORDED
    sms = gpu.get("sm_count")
    return f"{gpu.get('name', 'unnamed GPU')} (cc {gpu['compute_capability']}" + (f", {sms} SMs)" if sms else ")")


TOOLCHAIN_KEYS = ("compiler", "version", "flags", "archs", "host_compiler", "cub", "openmp")


def toolchain_line(describe):
    """'compiler nvcc; version 13.0.88; flags -O3 ...' from whichever of TOOLCHAIN_KEYS the executor recorded."""
    parts = [f"{k} {show(describe[k])}" for k in TOOLCHAIN_KEYS if k in describe and describe[k] not in (None, "")]
    return "; ".join(parts) or NOT_RECORDED


def commit_line(provenance):
    """'4267b7a1c0de (uncommitted changes)', or 'not recorded' ('HEAD': git found no commit)."""
    commit = provenance["git_commit"]
    if not commit or commit == "HEAD":
        return NOT_RECORDED + (" (git could not resolve HEAD)" if commit == "HEAD" else "")
    return commit[:12] + (" (uncommitted changes)" if provenance["git_dirty"] else "")


def summary(run, toolchain=None):
    """(label, value) pairs: the environment behind a run's numbers."""
    prov = run.doc["provenance"]
    commit = commit_line(prov)
    pairs = [("run file", run.path), ("started (UTC)", run.doc["started"]), ("commit", commit),
             ("host", host_words(run))]
    for tc in ([toolchain] if toolchain else run.toolchains()):
        describe = executor_describe(run, tc)
        pairs.append((f"toolchain {tc}", toolchain_line(describe)))
        if tc != "cpu":
            pairs.append((f"GPU ({tc})", gpu_line(run, tc)))
            pairs.append((f"driver ({tc})", _or_not_recorded(
                find_value(gpu_record(run, tc), "driver_version") or find_value(run.environment, "driver_version"))))
    if not any(tc != "cpu" for tc in run.toolchains()):
        pairs.append(("GPU", gpu_line(run, None)))
    return pairs


def comparable(doc):
    """The parts of a result document that describe its environment."""
    return {"environment": doc["environment"], "provenance": doc["provenance"], "timing": doc["timing"]}


def category(key):
    for name, pattern in DIFF_CATEGORIES:
        if re.search(pattern, key, re.IGNORECASE):
            return name
    return "other"


def differences(doc_a, doc_b):
    """[(category, key, value in A, value in B)] for every key that differs; ABSENT where a side lacks it."""
    a, b = flatten(comparable(doc_a)), flatten(comparable(doc_b))
    changed = [k for k in sorted(set(a) | set(b)) if a.get(k, ABSENT) != b.get(k, ABSENT)]
    order = [name for name, _ in DIFF_CATEGORIES] + ["other"]
    rows = [(category(k), k, a.get(k, ABSENT), b.get(k, ABSENT)) for k in changed]
    return sorted(rows, key=lambda r: (order.index(r[0]), r[1]))


# ---- the GPUs' machines side by side ----

# What changes from moment to moment or from board to board of one model, and no machine is told by: left out
# of the machines' differences.
MOMENT = re.compile(r"taken_at|temperature|power_draw|uuid|pci_bus_id|\.index$|hostname|clock_event|ecc_pending")


def machine_record(run):
    """A run's record of its machine, flattened: the GPU of its first GPU toolchain (gpu.*), the driver, the GPU's
    state before the run, the host and the build; what changes from moment to moment aside (MOMENT)."""
    gpu_toolchain = next((tc for tc in run.toolchains(controls=False) if tc != "cpu"), None)
    record = {"gpu": gpu_record(run, gpu_toolchain)} if gpu_toolchain else {}
    record.update({k: run.environment.get(k) for k in ("driver", "gpu_state_before", "host", "build")})
    return {k: v for k, v in flatten(record).items() if not MOMENT.search(k)}


def machine_differences(gpus):
    """[(category, key, {GPU label: the values its runs record, in words})] of every key of the machine records
    (machine_record) whose values differ between the GPUs, gpus [(label, [Run])]; [] with fewer than two GPUs."""
    if len(gpus) < 2:
        return []
    records = {label: [machine_record(run) for run in runs] for label, runs in gpus}
    keys = sorted({k for found in records.values() for record in found for k in record})
    values = {k: {label: "; ".join(dict.fromkeys(show(r.get(k, ABSENT)) for r in found))
                  for label, found in records.items()} for k in keys}
    order = [name for name, _ in DIFF_CATEGORIES] + ["other"]
    rows = [(category(k), k, by_gpu) for k, by_gpu in values.items() if len(set(by_gpu.values())) > 1]
    return sorted(rows, key=lambda r: (order.index(r[0]), r[1]))


# ---- in words: what produced a run's numbers ----

MIB = 1 << 20


def build_words(run, toolchain):
    """How the toolchain's code was built: nvcc's flags, NVRTC's library and options, the CPU's compiler."""
    d = executor_describe(run, toolchain)
    if d.get("compiler") == "nvrtc":
        return (f"compiled at run time by NVRTC {d.get('version', NOT_RECORDED)} (`{d.get('library', NOT_RECORDED)}`, "
                f"options `{' '.join(d.get('options', []))}`) from the sources embedded in the binary, SHA-256 "
                f"{str(d.get('kernel_sources_sha256', NOT_RECORDED))[:12]}, and loaded through the driver API")
    if d.get("file"):  # a module the matrix compiled ahead (histostudy cubins), loaded by the driver
        return (f"loaded through the driver API from `{d['file']}` ({d.get('code', NOT_RECORDED)}, "
                f"{d.get('arch', NOT_RECORDED)}), compiled ahead by `histostudy cubins` from the sources embedded "
                f"in the binary, SHA-256 {str(d.get('kernel_sources_sha256', NOT_RECORDED))[:12]}")
    if d.get("compiler") == "nvcc":
        return (f"built into the binary by nvcc {d.get('version', NOT_RECORDED)} (host compiler "
                f"{d.get('host_compiler', NOT_RECORDED)}, `{d.get('flags', NOT_RECORDED)}`, CUB {d.get('cub', '-')})")
    return f"built by {d.get('compiler', NOT_RECORDED)} with OpenMP {d.get('openmp', NOT_RECORDED)}"


def gpu_words(run, toolchain):
    """'an NVIDIA H200 (cc 9.0, 132 SMs, 60.0 MiB L2, ECC on) with driver 580.159.04 (CUDA 13.0)'."""
    gpu = gpu_record(run, toolchain)
    l2 = gpu.get("l2_cache_bytes")
    ecc = {True: "ECC on", False: "ECC off"}.get(gpu.get("ecc_enabled"))
    facts = [f"cc {gpu.get('compute_capability', '?')}", f"{gpu['sm_count']} SMs" if gpu.get("sm_count") else None,
             f"{l2 / MIB:.1f} MiB L2" if l2 else None, ecc]
    driver = find_value(run.environment, "driver_version") or NOT_RECORDED
    cuda = gpu.get("driver_cuda_version")
    return (f"{gpu.get('name', 'an unnamed GPU')} ({', '.join(f for f in facts if f)}) with driver {driver}"
            + (f" (CUDA {cuda})" if cuda else ""))


def clock_words(run):
    """The SM clock before and after the run, against its peak, as NVML recorded it; '' where it did not."""
    states = [run.environment.get(k) or {} for k in ("gpu_state_before", "gpu_state_after")]
    clocks = [(s.get("clocks_mhz") or {}).get("sm") for s in states]
    peak = (states[0].get("max_clocks_mhz") or {}).get("sm")
    if None in clocks or not peak:
        return ""
    return f"SM clock {clocks[0]:,} MHz before and {clocks[1]:,} after (peak {peak:,})"


def host_words(run):
    host = run.environment["host"]
    return f"{cpu_and_cores(run.environment)}, {host['os']}, {host['kernel']}"


def sampling_plan_words(run, backend="gpu"):
    """'20 to 200 samples a case after 3 warm-ups, stopping at 0.5% noise or 5 s, cold': the run's timing plan."""
    plan = run.doc["timing"][backend]
    stop = plan.get("stop")
    words = (f"{stop['min_samples']} to {stop['max_samples']} samples a case after {plan['warmups']} warm-ups, "
             f"stopping at {100 * stop['target_noise']:g}% noise or {stop['max_seconds']:g} s" if stop else
             f"{plan['reps']} samples a case after {plan['warmups']} warm-ups")
    return words + (f", {plan['cache']}" if plan.get("cache") else "")
