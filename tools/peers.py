#!/usr/bin/env python3
"""The libraries a reader would reach for, measured under the study's rules: torch.bincount and cupy.bincount.

    tools/peers.py [-e perf] [-e sizes] [--library torch,cupy] [--input NAME]... [--size BYTES]...
                   [-o DIR] [--device N] [--cache cold|hot] [--warmups N] [--reps N] [--max-reps N]
                   [--noise PCT] [--max-time S] [--lesson-reps N] [--histostudy build/histostudy]
    ./dev peers [ARGS]                                                                     (the same)

What it measures: each library's own 256-bin count of a uint8 array on the GPU, `torch.bincount(x,
minlength=256)` (torch_bincount) and `cupy.bincount(x, minlength=256)` (cupy_bincount), on the inputs and sizes
of the study's `perf` and `sizes` experiments as `histostudy list --experiments` gives them, each input's bytes
made by `histostudy generate`: the peers count the bytes the study's kernels count. torch.histc is left out: it
bins floating-point values into equal ranges, so the bytes would first become floats (four times the bytes, a
pass the study's kernels do not make), and its top bin closes at `max`: a float histogram, not a byte count.

The study's rules (study/driver/harness.cpp, study/driver/sampling.cpp), with run's default plan (`list --experiments`):
  - check, then time: each entry counts the input once; every bin is compared with `histostudy count --impl
    reference` on the same bytes and the bins must sum to the size. A wrong answer, or a call that raises, is
    recorded with the first mismatch and never timed.
  - per-run samples, CUDA events around the library call alone; warm-ups first; the entries of a case take one
    sample each in turn, the order rotating every round, until each median's noise is small enough or a cap is
    reached (the row says which). Every library is measured twice, as two independent entries (the second is
    its A/A control), so each peer row carries its own noise.
  - cold by default: the L2 is flushed before every sample (twice its size written, as the harness does);
    --cache hot runs the samples back to back.
  - clocks watched: NVML (pynvml, where it imports) reads the SM clock after every sample; a sample below the
    throttle fraction of the peak is kept in the log and left out of the statistics. Without pynvml no sample is
    judged, and the timing plan says so. The SM and memory clocks and the throttle reasons before each case (NVML,
    else nvidia-smi, else "unknown") are in every row; the GPU state before and after the run is histostudy
    env's.
  - everything recorded: one result file in the study's schema, in -o DIR (default runs/ of this checkout),
    named and written as histostudy names and writes its own (whole, never over another file), with the
    environment block of `histostudy env` and one executor per library (its describe: kind "library", its
    version and the CUDA it was built for). Validated against data/schema/ where jsonschema imports.

Without a GPU, or where a library does not import, one line says so for each library and it is skipped.

Exit status: 0 when every entry measured passed its check, or when nothing could run here (no library imports,
or no GPU: said in one line each, no file written); 1 when an entry failed its check (the file is written, the
row names the mismatch), histostudy failed, or the run stopped on an error after measuring (the file is written,
marked incomplete); 2 for a usage error; 130 when interrupted by Ctrl-C, SIGTERM or SIGHUP (what was measured is
written, marked incomplete).
"""
import argparse
import dataclasses
import datetime
import json
import math
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tools"))
import new_file  # noqa: E402
try:
    import numpy as np
    from plots.stats import percentile  # numpy's linear interpolation: study/driver/stats.cpp's formula
except ImportError as e:
    print(f"peers: {e.name} does not import in {sys.executable}: run it with the Python that has numpy, scipy and "
          "the libraries (PEERS_PYTHON=... ./dev peers)", file=sys.stderr)
    sys.exit(2)

EXPERIMENTS = ("perf", "sizes")    # the study's experiments the peers mirror
BINS = 256
MIB2 = 2 << 20                     # addresses are recorded modulo 2 MiB, as the harness records its buffers'
CONTROL = " (A/A control)"         # the second entry of a toolchain, as histostudy names its A/A control
FORMAT, SCHEMA_VERSION = "histostudy-result", 1
USAGE, FAILED, INTERRUPTED = 2, 1, 130


class Unavailable(Exception):
    """A library that cannot run here: why, in a few words."""


class PeersError(Exception):
    """What stops the run: one line."""


class UsageError(PeersError):
    """Bad arguments: one line, exit 2."""


def first_line(error):
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


# ---- the libraries ----------------------------------------------------------------------------------------------

class TorchBincount:
    library, impl = "torch", "torch_bincount"
    call = "torch.bincount(x, minlength=256) on a uint8 CUDA tensor"

    def open(self, device):
        try:
            import torch
        except Exception as e:  # an absent module, or a broken install raising anything
            raise Unavailable(f"not importable ({first_line(e)})") from None
        if not torch.cuda.is_available():
            raise Unavailable("no CUDA GPU here (torch.cuda.is_available() is False)")
        if device >= torch.cuda.device_count():
            raise Unavailable(f"no GPU {device} (torch sees {torch.cuda.device_count()})")
        self.torch, self.device = torch, torch.device("cuda", device)
        torch.cuda.set_device(self.device)
        self.version = torch.__version__
        return self

    def describe(self):
        return {"kind": "library", "library": self.library, "version": self.version,
                "cuda": self.torch.version.cuda, "call": self.call}

    def device_record(self):
        p = self.torch.cuda.get_device_properties(self.device)
        return {"index": self.device.index, "name": p.name, "compute_capability": f"{p.major}.{p.minor}",
                "sm_count": p.multi_processor_count, "memory_bytes": p.total_memory,
                "l2_cache_bytes": getattr(p, "L2_cache_size", None), "uuid": nvml_uuid(getattr(p, "uuid", None))}

    def prepare(self, flush_bytes):
        self.flush_buffer = self.torch.empty(flush_bytes, dtype=self.torch.uint8, device=self.device)

    def upload(self, host):
        return self.torch.from_numpy(host).to(self.device)

    def count(self, x):
        return self.torch.bincount(x, minlength=BINS)

    def host_counts(self, counts):
        return counts.cpu().numpy()

    def address(self, x):
        return x.data_ptr()

    def flush_l2(self, value):
        self.flush_buffer.fill_(value)

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def elapsed_ms(self, start, stop):
        return start.elapsed_time(stop)

    def synchronize(self):
        self.torch.cuda.synchronize(self.device)

    def release(self):
        self.torch.cuda.empty_cache()


def nvml_uuid(uuid):
    """'GPU-3552e1e7-...', as NVML and histostudy name a GPU, from torch's bare UUID; None without one."""
    text = str(uuid or "")
    return None if not text else text if text.startswith("GPU-") else f"GPU-{text}"


class CupyBincount:
    library, impl = "cupy", "cupy_bincount"
    call = "cupy.bincount(x, minlength=256) on a uint8 CuPy array"

    def open(self, device):
        try:
            import cupy
        except Exception as e:
            raise Unavailable(f"not importable ({first_line(e)})") from None
        try:
            found = cupy.cuda.runtime.getDeviceCount()
        except Exception as e:  # no driver, no device
            raise Unavailable(f"no CUDA GPU here ({first_line(e)})") from None
        if device >= found:
            raise Unavailable(f"no GPU {device} (CuPy sees {found})")
        self.cupy, self.index = cupy, device
        cupy.cuda.Device(device).use()
        self.version = cupy.__version__
        return self

    def describe(self):
        runtime = self.cupy.cuda.runtime.runtimeGetVersion()
        return {"kind": "library", "library": self.library, "version": self.version,
                "cuda": f"{runtime // 1000}.{runtime % 1000 // 10}", "call": self.call}

    def device_record(self):
        p = self.cupy.cuda.runtime.getDeviceProperties(self.index)
        name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
        return {"index": self.index, "name": name, "compute_capability": f"{p['major']}.{p['minor']}",
                "sm_count": p["multiProcessorCount"], "memory_bytes": p["totalGlobalMem"],
                "l2_cache_bytes": p.get("l2CacheSize")}

    def prepare(self, flush_bytes):
        self.flush_buffer = self.cupy.empty(flush_bytes, dtype=self.cupy.uint8)

    def upload(self, host):
        return self.cupy.asarray(host)

    def count(self, x):
        return self.cupy.bincount(x, minlength=BINS)

    def host_counts(self, counts):
        return self.cupy.asnumpy(counts)

    def address(self, x):
        return x.data.ptr

    def flush_l2(self, value):
        self.flush_buffer.fill(value)

    def event(self):
        return self.cupy.cuda.Event()

    def elapsed_ms(self, start, stop):
        return self.cupy.cuda.get_elapsed_time(start, stop)

    def synchronize(self):
        self.cupy.cuda.Device(self.index).synchronize()

    def release(self):
        self.cupy.get_default_memory_pool().free_all_blocks()


LIBRARIES = (TorchBincount, CupyBincount)


def open_libraries(libraries, device, say):
    """The libraries that run here; one line through `say` for each that does not."""
    opened = []
    for lib in libraries:
        try:
            opened.append(lib.open(device))
        except Unavailable as e:
            say(f"{lib.library}: {e}; skipped")
    return opened


# ---- the study's side: cases, bytes, the reference, the environment -------------------------------------------

def run_tool(cmd, what, timeout=3600):
    """stdout of a histostudy command, or PeersError naming it with its last line of error."""
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except OSError as e:
        raise PeersError(f"{what}: cannot run {cmd[0]} ({e.strerror or e})") from None
    except subprocess.TimeoutExpired:
        raise PeersError(f"{what}: no answer in {timeout} s") from None
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip().splitlines()
        raise PeersError(f"{what}: exit {done.returncode}{': ' + err[-1] if err else ''}")
    return done.stdout


def parse_counts(text):
    """The 256 counts of `histostudy count`'s lines 'value count', in value order."""
    counts = np.zeros(BINS, dtype=np.uint64)
    lines = text.split()
    if len(lines) != 2 * BINS:
        raise PeersError(f"histostudy count printed {len(lines) // 2} lines, not {BINS}")
    for value, count in zip(lines[::2], lines[1::2]):
        counts[int(value)] = int(count)
    return counts


class StudyInputs:
    """The study's cases, bytes, reference counts and environment record, from its binary."""

    def __init__(self, histostudy, work_dir=None):
        self.histostudy, self.work_dir = str(histostudy), work_dir
        if not pathlib.Path(self.histostudy).is_file():
            raise UsageError(f"{histostudy}: no histostudy binary (./dev build makes one; or name it with "
                             "--histostudy PATH)")

    def _json(self, *args):
        text = run_tool([self.histostudy, *args], f"histostudy {' '.join(args)}", timeout=300)
        try:
            return json.loads(text)
        except ValueError as e:
            raise PeersError(f"histostudy {' '.join(args)}: not JSON ({e})") from None

    def experiments(self):
        """(`list --experiments`: {"experiments": [...], "gpu_timing": {...}}, `list --json`: the registry)."""
        return self._json("list", "--experiments"), self._json("list", "--json")

    def environment(self, device):
        """histostudy env's record of GPU `device` (0: the first, named only where it is another, so that a
        machine without one still gives its host)."""
        return self._json("env", *(("--device", str(device)) if device else ()))

    def load(self, input, size, reference_impl):
        """(the input's bytes as histostudy generates them, their counts by `histostudy count --impl
        reference_impl`)."""
        with tempfile.TemporaryDirectory(prefix="peers-", dir=self.work_dir) as tmp:
            path = str(pathlib.Path(tmp) / "input.bin")
            run_tool([self.histostudy, "generate", input, "-s", str(size), "-o", path],
                     f"histostudy generate {input} -s {size}")
            reference = parse_counts(run_tool([self.histostudy, "count", "--impl", reference_impl, path],
                                              f"histostudy count --impl {reference_impl}").decode())
            data = np.fromfile(path, dtype=np.uint8)
        if data.size != size:
            raise PeersError(f"histostudy generate {input} -s {size} wrote {data.size:,} bytes")
        return data, reference


@dataclasses.dataclass(frozen=True)
class Case:
    experiment: str
    input: str
    size: int


def plan_cases(listed, experiments, inputs=(), sizes=()):
    """The cases of `experiments` (the study's, from `list --experiments`), narrowed to `inputs` and `sizes` where
    named; a name or size none of them holds is a UsageError."""
    known = {e["name"]: e for e in listed["experiments"]}
    for name in experiments:
        if name not in EXPERIMENTS or name not in known:
            raise UsageError(f"-e {name}: the peers run the study's {' and '.join(EXPERIMENTS)} experiments")
    chosen = [known[name] for name in experiments]
    for what, named, key in (("--input", inputs, "inputs"), ("--size", sizes, "sizes")):
        held = [x for e in chosen for x in e[key]]
        for x in named:
            if x not in held:
                shown = ", ".join(map(str, dict.fromkeys(held)))
                raise UsageError(f"{what} {x}: not among the experiments' {key} ({shown})")
    return [Case(e["name"], input, size) for e in chosen for size in e["sizes"] for input in e["inputs"]
            if (not inputs or input in inputs) and (not sizes or size in sizes)]


def implementation(registry, backend, role):
    """The registry's first implementation of `backend` with `role` (`histostudy list --json`)."""
    found = [e["name"] for e in registry["implementations"] if e["backend"] == backend and role in e["roles"]]
    if not found:
        raise PeersError(f"histostudy list --json names no {backend} implementation with the role {role}")
    return found[0]


# ---- the timing plan and its statistics (study/driver/sampling.cpp, study/driver/stats.cpp) ----------------------------------

@dataclasses.dataclass
class Plan:
    warmups: int
    min_samples: int
    max_samples: int
    target_noise: float
    max_seconds: float
    cache: str
    throttle_fraction: float
    lesson_warmups: int
    lesson_reps: int
    sample_clock: str = "not recorded"   # where each sample's SM clock came from

    @classmethod
    def of(cls, gpu_timing, args=None):
        """run's default plan (`list --experiments`'s gpu_timing), with what the command line changes."""
        stop = gpu_timing["stop"]
        plan = cls(gpu_timing["warmups"], stop["min_samples"], stop["max_samples"], stop["target_noise"],
                   stop["max_seconds"], gpu_timing["cache"], gpu_timing["throttle_fraction"],
                   gpu_timing["lesson_warmups"], gpu_timing["lesson_reps"])
        if args:
            for name, value in (("warmups", args.warmups), ("min_samples", args.reps),
                                ("max_samples", args.max_reps), ("max_seconds", args.max_time),
                                ("cache", args.cache), ("lesson_reps", args.lesson_reps)):
                if value is not None:
                    setattr(plan, name, value)
            if args.noise is not None:
                plan.target_noise = args.noise / 100
        if plan.max_samples < plan.min_samples:
            raise UsageError(f"--max-reps {plan.max_samples} is below --reps {plan.min_samples}")
        return plan

    def to_json(self):
        return {"warmups": self.warmups, "reps": self.min_samples,
                "stop": {"min_samples": self.min_samples, "max_samples": self.max_samples,
                         "target_noise": self.target_noise, "max_seconds": self.max_seconds},
                "cache": self.cache, "throttle_fraction": self.throttle_fraction,
                "lesson_warmups": self.lesson_warmups, "lesson_reps": self.lesson_reps,
                "sample_clock": self.sample_clock}


def median_noise(samples):
    """Half the width of the median's distribution-free 95% interval (order statistics n/2 -+ 0.98 sqrt(n)),
    over the median; NaN for fewer than 2 samples (study/driver/sampling.cpp)."""
    n = len(samples)
    if n < 2:
        return math.nan
    ordered = sorted(samples)
    half = 0.98 * math.sqrt(n)
    lo, hi = int(max(0.0, math.floor(n / 2 - half))), min(n - 1, int(math.ceil(n / 2 + half)))
    median = percentile(ordered, 50)
    return (ordered[hi] - ordered[lo]) / 2 / median if median > 0 else math.inf


def should_stop(plan, used, taken, seconds):
    """('noise' | 'max_samples' | 'max_time' | None: go on, the noise now)."""
    noise = median_noise(used)
    if len(used) >= plan.min_samples and noise <= plan.target_noise:
        return "noise", noise
    if taken >= plan.max_samples:
        return "max_samples", noise
    if len(used) >= plan.min_samples and seconds >= plan.max_seconds:
        return "max_time", noise
    return None, noise


def rotation(members, round):
    """A B C, B C A, C A B, ...: over `members` rounds every entry holds every position once."""
    return [(i + round) % members for i in range(members)]


def summarize(samples):
    if not samples:
        return {k: 0.0 for k in ("median", "min", "max", "p10", "p90", "mean")}
    return {"median": percentile(samples, 50), "min": min(samples), "max": max(samples),
            "p10": percentile(samples, 10), "p90": percentile(samples, 90), "mean": sum(samples) / len(samples)}


def gigabytes_per_second(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9 if ms > 0 else 0.0


def finite_or_none(value):
    return value if value is not None and math.isfinite(value) else None


# ---- the check ------------------------------------------------------------------------------------------------

def check_counts(counts, reference, size):
    """None where `counts` are the reference's bin for bin and sum to `size`; else the first problem, as the
    harness words it."""
    counts = np.asarray(counts)
    if counts.shape != (BINS,):
        return f"{counts.size} bins, expected {BINS}"
    for value in range(BINS):
        if int(counts[value]) != int(reference[value]):
            return f"bin {value}: expected {int(reference[value])}, got {int(counts[value])}"
    total = int(counts.astype(np.uint64).sum())
    if total != size:
        return f"bins sum to {total}, input has {size} bytes"
    return None


def input_stats(reference):
    total, busiest = int(reference.sum()), int(reference.max())
    return {"busiest_pct": 100.0 * busiest / total if total else 0.0, "busiest": busiest,
            "bins_used": int(np.count_nonzero(reference))}


# ---- the GPU's clocks -------------------------------------------------------------------------------------------

class NvmlClock:
    """The SM clock after every sample and the GPU's state before every case, through pynvml."""

    def __init__(self, pynvml, device):
        self.nvml = pynvml
        pynvml.nvmlInit()
        self.handle = self._handle(device)
        version = getattr(pynvml, "__version__", None) or "version not recorded"
        self.source = f"nvml (pynvml {version})"
        self.peak_sm_mhz = float(pynvml.nvmlDeviceGetMaxClockInfo(self.handle, pynvml.NVML_CLOCK_SM))

    def _handle(self, device):
        """The GPU by its UUID, else its PCI bus, as the record names it; by index where neither finds it (NVML's
        order may differ from CUDA's)."""
        n = self.nvml
        for key, find in (("uuid", n.nvmlDeviceGetHandleByUUID), ("pci_bus_id", n.nvmlDeviceGetHandleByPciBusId)):
            if device.get(key):
                try:
                    return find(device[key].encode())
                except Exception:
                    continue
        return n.nvmlDeviceGetHandleByIndex(device.get("index", 0))

    def sm_mhz(self):
        """The SM clock now; None where NVML does not answer (the sample is then not judged)."""
        try:
            return float(self.nvml.nvmlDeviceGetClockInfo(self.handle, self.nvml.NVML_CLOCK_SM))
        except Exception:
            return None

    def _reasons(self):
        get = (getattr(self.nvml, "nvmlDeviceGetCurrentClocksEventReasons", None)
               or self.nvml.nvmlDeviceGetCurrentClocksThrottleReasons)
        mask = int(get(self.handle))
        names = sorted({name.removeprefix("nvmlClocksThrottleReason").removeprefix("nvmlClocksEventReason")
                        for name in dir(self.nvml)
                        if re.match(r"nvmlClocks(Throttle|Event)Reason(?!All|None|Unknown)", name)
                        and isinstance(getattr(self.nvml, name), int) and mask & getattr(self.nvml, name)})
        return {"mask": mask, "active": names}

    def state(self):
        n = self.nvml
        try:
            return {"source": self.source, "sm_mhz": n.nvmlDeviceGetClockInfo(self.handle, n.NVML_CLOCK_SM),
                    "memory_mhz": n.nvmlDeviceGetClockInfo(self.handle, n.NVML_CLOCK_MEM),
                    "max_sm_mhz": self.peak_sm_mhz, "clock_event_reasons": self._reasons()}
        except Exception as e:
            return {"source": "unknown", "why": f"{self.source}: {first_line(e)}"}


SMI_FIELDS = ("clocks.sm", "clocks.mem", "clocks.max.sm")
SMI_REASONS = ("clocks_event_reasons.active", "clocks_throttle_reasons.active")   # newer drivers' name, older


class SmiClock:
    """No clock per sample (nvidia-smi takes tens of milliseconds a call): the state before every case."""
    peak_sm_mhz = None

    def __init__(self, device, why):
        self.device, self.source = device, f"nvidia-smi (no clock per sample: {why})"

    def sm_mhz(self):
        return None

    def state(self):
        where = self.device.get("pci_bus_id") or str(self.device.get("index", 0))
        for reasons in SMI_REASONS:
            try:
                out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(SMI_FIELDS + (reasons,))}",
                                      "--format=csv,noheader,nounits", "-i", where],
                                     capture_output=True, text=True, timeout=30)
            except (OSError, subprocess.TimeoutExpired) as e:
                return {"source": "unknown", "why": f"nvidia-smi: {first_line(e)}"}
            if out.returncode == 0:
                values = [v.strip() for v in out.stdout.strip().split(",")]
                if len(values) == 4:
                    sm, memory, peak, mask = values
                    return {"source": "nvidia-smi", "sm_mhz": sm, "memory_mhz": memory, "max_sm_mhz": peak,
                            "clock_event_reasons": {"mask": mask}}
        return {"source": "unknown", "why": f"nvidia-smi: exit {out.returncode}"}


def open_clock(device):
    """NvmlClock where pynvml imports and finds the GPU, else SmiClock, which says why."""
    try:
        import pynvml
        return NvmlClock(pynvml, device)
    except Exception as e:
        return SmiClock(device, f"pynvml: {first_line(e)}")


# ---- one case: check every entry, then sample them in rotation --------------------------------------------------

@dataclasses.dataclass
class Entry:
    lib: object
    toolchain: str
    control_of: str
    data: object                     # the input on the GPU, shared by the library's two entries
    row: dict = None
    start: object = None
    stop: object = None

    def sample(self, cold, flush_value):
        """One timed call: [flush the L2], start event, the call, stop event; its milliseconds."""
        if cold:
            self.lib.flush_l2(flush_value)
        self.start.record()
        self.lib.count(self.data)
        self.stop.record()
        self.stop.synchronize()
        return self.lib.elapsed_ms(self.start, self.stop)

    def back_to_back_ms(self, warmups, reps):
        """The lesson's method: `warmups` calls, then the mean of `reps` calls timed as one."""
        for _ in range(warmups):
            self.lib.count(self.data)
        self.start.record()
        for _ in range(reps):
            self.lib.count(self.data)
        self.stop.record()
        self.stop.synchronize()
        return self.lib.elapsed_ms(self.start, self.stop) / reps


def _device_of(device):
    return {k: device[k] for k in ("index", "uuid", "name", "pci_bus_id") if device.get(k) is not None}


def checked_row(entry, case, reference, common):
    """The entry's row after one call checked against the reference: timed later only if it passed."""
    lib = entry.lib
    try:
        result = lib.count(entry.data)
        counts = lib.host_counts(result)
        problem = check_counts(counts, reference, case.size)
        bits, bins_at = int(np.asarray(counts).dtype.itemsize * 8), lib.address(result)
    except Exception as e:  # a library that raises on this case: recorded, never timed
        problem, bits, bins_at = f"{lib.impl} raised {type(e).__name__}: {first_line(e)}", 64, None
    placement = None if bins_at is None else {
        "bins_offset": 0, "bins_mod_2mib": bins_at % MIB2, "input_mod_2mib": lib.address(entry.data) % MIB2,
        "bins": "allocated by the library at every call; bins_mod_2mib is the checked call's"}
    return {"experiment": case.experiment, "impl": lib.impl, "backend": "cuda", "roles": ["peer"],
            "device": common["device"], "toolchain": entry.toolchain, "input": case.input, "size": case.size,
            "policy": {"grid": 0, "block": 0, "threads": 0, "passes": 1, "copies": 1, "counter_bits": bits,
                       "shared_bytes": 0},
            "input_stats": input_stats(reference), "check": {"passed": problem is None, "detail": problem or ""},
            "global_atomics": None, "global_atomic_bytes": None, "bytes_read": case.size, "samples_ms": [],
            "sample_log": {"ms": [], "position": [], "clock_mhz": [], "throttled": []},
            "sampling": {"cache": common["cache"], "taken": 0, "used": 0, "throttled": 0, "stop": None,
                         "noise": None, "group": []},
            "control_of": entry.control_of, "code": f"library: {lib.call}", "placement": placement,
            "summary_ms": summarize([]), "lesson_mean_ms": None, "gbps": 0.0, "floor_impl": common["floor"],
            "pct_of_floor": None, "host_load": None, "gpu_state": common["gpu_state"]}


class Rotation:
    """The entries that passed their check, sampled in rotation (study/driver/harness.cpp's RotatingSampling)."""

    def __init__(self, entries, plan, clock, peak_mhz):
        self.members = [e for e in entries if e.row["check"]["passed"]]
        self.plan, self.clock = plan, clock
        self.throttle_below = plan.throttle_fraction * peak_mhz if peak_mhz else 0.0
        several = len({e.lib.impl for e in entries}) > 1
        group = [f"{e.toolchain} {e.lib.impl}" if several else e.toolchain for e in self.members]
        for e in self.members:
            e.row["sampling"]["group"] = group
            e.start, e.stop = e.lib.event(), e.lib.event()
        self.flushes = 0

    def run(self):
        k = len(self.members)
        if not k:
            return
        for w in range(self.plan.warmups):
            for j in rotation(k, w):
                self.members[j].lib.count(self.members[j].data)
        for m in self.members:
            m.lib.synchronize()
        start = time.monotonic()
        round = 0
        while True:
            for position, j in enumerate(rotation(k, round)):
                self.take(self.members[j], position)
            round += 1
            if round % k == 0 and self.all_stopped(time.monotonic() - start):
                return

    def take(self, member, position):
        self.flushes += 1
        ms = member.sample(self.plan.cache == "cold", self.flushes & 0xFF)
        mhz = self.clock.sm_mhz()
        throttled = bool(self.throttle_below and mhz is not None and mhz < self.throttle_below)
        log = member.row["sample_log"]
        for key, value in (("ms", ms), ("position", position), ("clock_mhz", mhz), ("throttled", throttled)):
            log[key].append(value)
        if not throttled:
            member.row["samples_ms"].append(ms)

    def all_stopped(self, seconds):
        stopped = True
        for m in self.members:
            reason, noise = should_stop(self.plan, m.row["samples_ms"], len(m.row["sample_log"]["ms"]), seconds)
            m.row["sampling"].update(stop=reason, noise=finite_or_none(noise))
            stopped = stopped and reason is not None
        return stopped


def finish_row(entry, plan):
    """Counts and statistics of a sampled row, and the lesson's own mean."""
    row = entry.row
    log, used = row["sample_log"], row["samples_ms"]
    row["sampling"].update(taken=len(log["ms"]), used=len(used), throttled=len(log["ms"]) - len(used))
    if not used:
        return
    row["summary_ms"] = summarize(used)
    if plan.lesson_reps > 0:
        row["lesson_mean_ms"] = entry.back_to_back_ms(plan.lesson_warmups, plan.lesson_reps)
    row["gbps"] = gigabytes_per_second(row["bytes_read"], row["summary_ms"]["median"])


def measure_case(case, data, reference, libs, plan, clock, common):
    """Every library twice (its toolchain, then its A/A control) on `data`, its rows in that order; the libraries'
    GPU memory handed back after."""
    try:
        return _measured(case, data, reference, libs, plan, clock, common)
    finally:
        for lib in libs:
            lib.release()


def _measured(case, data, reference, libs, plan, clock, common):
    uploaded = [(lib, lib.upload(data)) for lib in libs]   # one copy a library, shared by its two entries
    entries = [Entry(lib, toolchain_of(lib) + label, toolchain_of(lib) if label else None, on_gpu)
               for label in ("", CONTROL) for lib, on_gpu in uploaded]
    for entry in entries:
        entry.row = checked_row(entry, case, reference, common)
    Rotation(entries, plan, clock, common["peak_mhz"]).run()
    for entry in entries:
        finish_row(entry, plan)
    return [entry.row for entry in entries]


def toolchain_of(lib):
    return f"{lib.library} {lib.version}"


def progress_words(row):
    if not row["check"]["passed"]:
        return f"{row['toolchain']}: CHECK FAILED ({row['check']['detail']})"
    if not row["samples_ms"]:
        return f"{row['toolchain']}: every sample throttled"
    s = row["sampling"]
    return f"{row['toolchain']} {row['summary_ms']['median']:.4g} ms ({s['used']} samples, {s['stop']})"


# ---- the result file ----------------------------------------------------------------------------------------------

def utc_now(compact=False):
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ" if compact else
                                                                 "%Y-%m-%dT%H:%M:%SZ")


def slug(label):
    """'nvidia-h100-80gb-hbm3' for 'NVIDIA H100 80GB HBM3': study/driver/results.cpp's slug."""
    out = ""
    for c in label:
        if c.isascii() and c.isalnum():
            out += c.lower()
        elif c == ".":
            out += "."
        elif out and not out.endswith("-"):
            out += "-"
    return out.rstrip("-") or "unknown"


def text_of(value):
    """A path or argument as text a UTF-8 file can hold: bytes that are not UTF-8 as \\xNN."""
    return os.fsencode(value).decode("utf-8", "backslashreplace")


def carried_commit():
    """(commit, dirty) that HISTOSTUDY_GIT_COMMIT and HISTOSTUDY_GIT_DIRTY name, as histostudy reads them
    (study/platform/env.cpp): a copy of the tree whose .git is missing or stale (the GPU machine's) carries its commit
    there. None where unset; UsageError where they are not a commit and 0 or 1, checked before measuring."""
    commit = os.environ.get("HISTOSTUDY_GIT_COMMIT")
    if not commit:
        return None
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise UsageError(f"HISTOSTUDY_GIT_COMMIT={text_of(commit)}: not a commit (40 lowercase hex digits)")
    dirty = os.environ.get("HISTOSTUDY_GIT_DIRTY")
    if dirty not in (None, "0", "1"):
        raise UsageError(f"HISTOSTUDY_GIT_DIRTY={text_of(dirty)}: not 0 (a clean tree) or 1 (edited)")
    return commit, None if dirty is None else dirty == "1"


def provenance(argv):
    def git(*args):
        try:
            done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None
    carried = carried_commit()
    if carried:
        (commit, dirty), of = carried, "HISTOSTUDY_GIT_COMMIT: the commit the caller names for this source tree"
    else:
        commit = git("rev-parse", "HEAD")
        commit = commit if commit and re.fullmatch(r"[0-9a-f]{40}", commit) else None
        dirty = None if commit is None else bool(git("status", "--porcelain", "--untracked-files=no"))
        of = "the source tree tools/peers.py ran from, at run time"
    try:
        cwd, cwd_error = text_of(os.getcwd()), None
    except OSError as e:
        cwd, cwd_error = None, e.strerror
    return {"argv": [text_of(a) for a in argv], "cwd": cwd, "cwd_error": cwd_error, "git_commit": commit,
            "git_dirty": dirty, "commit_of": of}


def gpu_device(env, lib, index):
    """The GPU's record as histostudy env's GPU executor describes it (the study's own words for it), else as
    the library does."""
    for executor in env.get("executors", []):
        device = executor.get("describe", {}).get("device")
        if device and device.get("index") == index:
            return device
    return {k: v for k, v in lib.device_record().items() if v is not None}


def environment(env, libs, device):
    """histostudy env's record (host, build, driver) with one executor per library in place of its own."""
    record = {k: v for k, v in env.items() if k not in ("executors", "gpu_state", "module_loading",
                                                          "skipped_toolchains")}
    record["executors"] = [{"toolchain": toolchain_of(lib), "describe": dict(lib.describe(), device=device)}
                           for lib in libs]
    record["executors"] += [{"toolchain": e["toolchain"] + CONTROL, "describe": dict(e["describe"],
                                                                                   control_of=e["toolchain"])}
                            for e in record["executors"]]
    record["gpu_absent"] = None
    record["gpu_state_before"] = env.get("gpu_state")
    return record


NO_CPU_ROWS = {"warmups": 0, "reps": 0, "lesson_warmups": 0, "lesson_reps": 0}


def result_document(started, argv, env, plan, rows, stopped):
    doc = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "started": started, "finished": utc_now(),
           "provenance": provenance(argv), "environment": env, "timing": {"gpu": plan.to_json(), "cpu": NO_CPU_ROWS},
           "rows": rows}
    if stopped:
        doc["incomplete"] = {"error": stopped}
    return doc


def result_stem(device, libs):
    return f"{utc_now(True)}_{slug(device.get('name', 'gpu'))}_{slug('+'.join(toolchain_of(lib) for lib in libs))}"


def write_new_file(directory, stem, text):
    """directory/stem.json (stem-002.json, ... where taken), never over another file (tools/new_file.py)."""
    try:
        return new_file.write_new(directory, stem, text)
    except FileExistsError as e:
        raise PeersError(str(e)) from None


def schema_problem(text, shown):
    """Why the document breaks the result schema, or None; where jsonschema does not import, None and a line
    saying it was not checked."""
    try:
        from plots import results
    except ImportError as e:
        return None, f"not validated against data/schema/ here ({first_line(e)})"
    try:
        results.parse_run(shown, text)
    except results.ResultError as e:
        return str(e), None
    return None, None


# ---- the command ------------------------------------------------------------------------------------------------

def names(values):
    return [n for item in values for n in item.split(",") if n]


def device_index(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: name the GPU by its index: 0, 1, ...")
    return value


def byte_count(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: name a size in bytes, as `histostudy list --experiments` "
                                         "gives them (1048576, not 1MiB)")
    return value


def parser():
    p = argparse.ArgumentParser(prog="tools/peers.py", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-e", "--experiment", action="append", default=[],
                   help=f"the study's experiments whose cases to run: {', '.join(EXPERIMENTS)} (default both)")
    p.add_argument("--library", action="append", default=[],
                   help=f"only these libraries: {', '.join(cls.library for cls in LIBRARIES)} (default every one)")
    p.add_argument("--input", action="append", default=[], help="only these inputs of the experiments")
    p.add_argument("--size", action="append", default=[], type=byte_count,
                   help="only these sizes of the experiments, in bytes")
    p.add_argument("-o", "--out-dir", default=str(ROOT / "runs"),
                   help="where the result file goes (default: %(default)s)")
    p.add_argument("--device", type=device_index, default=0, help="the GPU's index (default 0)")
    p.add_argument("--histostudy", default=str(ROOT / "build" / "histostudy"),
                   help="the histostudy binary that lists the cases, makes the bytes and counts them "
                        "(default: %(default)s)")
    p.add_argument("--work-dir", help="where each input's bytes are written while they are read (default: the "
                                      "system's temporary folder)")
    p.add_argument("--cache", choices=("cold", "hot"), help="cold: the L2 flushed before every sample (run's default)")
    for option, kind, what in (("--warmups", int, "untimed calls of each entry before its samples"),
                               ("--reps", int, "at least this many samples an entry"),
                               ("--max-reps", int, "at most this many samples an entry (whole rotations)"),
                               ("--noise", float, "stop sampling once the median's 95%% interval is within +-this %%"),
                               ("--max-time", float, "stop sampling a case after this many seconds (after --reps)"),
                               ("--lesson-reps", int, "calls timed back to back for the lesson's mean; 0: none")):
        p.add_argument(option, type=kind, help=what + " (default: histostudy run's)")
    return p


def choose(libraries, wanted):
    known = {lib.library: lib for lib in libraries}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise UsageError(f"--library {', '.join(unknown)}: the libraries are {', '.join(known)}")
    return [known[n] for n in wanted] if wanted else list(libraries)


def say(line):
    print(f"peers: {line}", file=sys.stderr, flush=True)


def check_writable_dir(directory):
    """Refuses, before anything is measured, a -o where no file can be made: the nearest folder that is there
    must be a folder this process may write in (nothing is made yet)."""
    there = pathlib.Path(directory)
    while not there.exists() and there != there.parent:
        there = there.parent
    if not there.is_dir() or not os.access(there, os.W_OK | os.X_OK):
        raise UsageError(f"-o {directory}: {there} is not a folder this process can write in")


def save(directory, stem, text):
    """The result file written into `directory`, else (should that fail after measuring) into the temporary
    folder, saying so: no measurement is lost to a full disk or a folder gone."""
    try:
        return write_new_file(directory, stem, text)
    except OSError as e:
        say(f"-o {directory}: cannot write the result file ({e.strerror or e}); writing it to the temporary folder")
        return write_new_file(tempfile.gettempdir(), stem, text)


def state_after(study, device, status):
    """histostudy env's GPU state once the cases are done; not read after a Ctrl-C (a second one must not lose
    what was measured)."""
    if status == INTERRUPTED:
        return {"unavailable": "not read: the run was interrupted"}
    try:
        return study.environment(device).get("gpu_state")
    except (PeersError, KeyboardInterrupt) as e:
        return {"unavailable": str(e) or "interrupted"}


def measure(args, argv, libs, study, clock):
    """Every case, then the result file; the exit status."""
    check_writable_dir(args.out_dir)
    carried_commit()    # refused before measuring, not after
    listed, registry = study.experiments()
    cases = plan_cases(listed, names(args.experiment) or EXPERIMENTS, names(args.input), args.size)
    plan = Plan.of(listed["gpu_timing"], args)
    env = study.environment(args.device)
    device = gpu_device(env, libs[0], args.device)
    clock = clock or open_clock(device)
    plan.sample_clock = clock.source
    l2 = device.get("l2_cache_bytes")
    if plan.cache == "cold" and not l2:
        raise PeersError("the GPU's L2 size is not recorded: nothing to size its flush by (--cache hot runs without)")
    for lib in libs:
        lib.prepare(max(2 * int(l2 or 0), 1))
    common = {"device": _device_of(device), "cache": plan.cache, "floor": implementation(registry, "cuda", "floor"),
              "peak_mhz": clock.peak_sm_mhz or device.get("sm_clock_peak_mhz")}
    oracle = implementation(registry, "cpu", "oracle")
    say(f"{len(cases)} cases on {device.get('name', 'the GPU')}: {', '.join(toolchain_of(lib) for lib in libs)}, "
        f"each with its A/A control, {plan.cache}; SM clock per sample: {clock.source}")
    started, rows, stopped, status = utc_now(), [], None, 0
    try:
        for n, case in enumerate(cases, 1):
            say(f"[{n}/{len(cases)}] {case.experiment} {case.input} {case.size:,} bytes: making and counting them")
            data, reference = study.load(case.input, case.size, oracle)
            common["gpu_state"] = clock.state()
            measured = measure_case(case, data, reference, libs, plan, clock, common)
            rows += measured
            say(f"[{n}/{len(cases)}] " + "; ".join(progress_words(r) for r in measured))
    except KeyboardInterrupt as e:   # Ctrl-C, or SIGTERM and SIGHUP (stop_on_signals)
        stopped, status = f"interrupted ({e.args[0] if e.args else 'Ctrl-C'})", INTERRUPTED
    except Exception as e:  # keep every measurement taken: the file says where it stopped
        stopped, status = f"{type(e).__name__}: {first_line(e)}" if not isinstance(e, PeersError) else str(e), FAILED
    if stopped:
        say(f"stopped: {stopped}")
        if not rows:
            say("nothing measured: no file written")
            return status
    record = environment(env, libs, device)
    record["gpu_state_after"] = state_after(study, args.device, status)
    doc = result_document(started, argv, record, plan, rows, stopped)
    text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    path = save(args.out_dir, result_stem(device, libs), text)
    problem, note = schema_problem(text, str(path))
    if note:
        say(note)
    if problem:
        say(f"the file breaks the result schema: {problem}")
        status = status or FAILED
    for row in rows:
        if not row["check"]["passed"]:
            say(f"CHECK FAILED: {row['impl']} ({row['toolchain']}) on {row['input']}, {row['size']:,} bytes: "
                f"{row['check']['detail']}")
            status = status or FAILED
    print(f"result file: {path}", flush=True)
    return status


def stop_on_signals():
    """SIGTERM and SIGHUP (a batch system's time limit, a closed terminal) stop the run as Ctrl-C does, so what
    was measured is written; returns the handlers they replace."""
    def stop(number, frame):
        raise KeyboardInterrupt(signal.Signals(number).name)
    return {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}


def main(argv=None, libraries=None, study=None, clock=None):
    """tools/peers.py ARGS; a test passes stand-ins for the libraries, the study's binary and the clock."""
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    before = stop_on_signals()
    try:
        chosen = choose(libraries or [cls() for cls in LIBRARIES], names(args.library))
        libs = open_libraries(chosen, args.device, say)
        if not libs:
            say("nothing measured: none of the libraries can run here (exit 0: nothing to do)")
            return 0
        return measure(args, [sys.argv[0], *argv], libs, study or StudyInputs(args.histostudy, args.work_dir), clock)
    except UsageError as e:
        say(str(e))
        return USAGE
    except PeersError as e:
        say(str(e))
        return FAILED
    except KeyboardInterrupt:
        say("interrupted: nothing written")
        return INTERRUPTED
    except Exception as e:  # a library failing before any case was measured: one line, not a traceback
        say(f"{type(e).__name__}: {first_line(e)}")
        return FAILED
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


if __name__ == "__main__":
    sys.exit(main())
