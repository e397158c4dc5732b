"""tools/peers.py (the library peers' driver) without a GPU, and its rows through the reports and the audit.

The driver is run in process with stand-ins: numpy's bincount as a "library" on a pretend GPU whose clock each call
advances by a planted time (so the timing rules run as on a GPU, and every time is known), a study that makes
small inputs, and a clock. Its result files are written to temporary folders and read back through the schema.
Where HISTOSTUDY names the binary (meson test passes it), the study's own cases, bytes and reference are checked
too; the driver is also run as a command where torch and CuPy cannot import."""
import contextlib
import copy
import functools
import importlib.util
import io
import itertools
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import unittest.mock

import numpy as np

from plots import claims, peers, selection
from plots.published import load_published
from plots.results import ResultError, load_run
from plots.tests import fixtures, synthetic
from plots.tests.test_perf import _attach_floors, _row

_spec = importlib.util.spec_from_file_location("peers_tool", fixtures.REPO / "tools" / "peers.py")
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

GPU = dict(synthetic.GPU, index=0, pci_bus_id="0000:00:00.0")
SMALL, LARGE = 1 << 14, 1 << 16
LISTED = {"experiments": [
    {"name": "lesson", "inputs": ["uniform"], "sizes": [67_109_475], "roles": [], "gpu_only": False},
    {"name": "perf", "inputs": ["uniform", "one_byte"], "sizes": [LARGE], "roles": ["subject"], "gpu_only": True},
    {"name": "sizes", "inputs": ["uniform"], "sizes": [SMALL, LARGE], "roles": ["subject"], "gpu_only": True}],
    # histostudy run's default GPU plan, as `list --experiments` gives it (the CLI test checks the binary's)
    "gpu_timing": {"warmups": 3, "reps": 20, "stop": {"min_samples": 20, "max_samples": 200, "target_noise": 0.005,
                                                      "max_seconds": 5.0},
                   "cache": "cold", "throttle_fraction": 0.75, "lesson_warmups": 3, "lesson_reps": 10,
                   "runs_between_zeroings": 23}}
CASES = 4   # perf: uniform and one_byte at LARGE; sizes: uniform at SMALL and LARGE


# ---- stand-ins --------------------------------------------------------------------------------------------------

class PretendGpu:
    now_ms = 0.0


class PretendEvent:
    def __init__(self, gpu):
        self.gpu, self.at = gpu, None

    def record(self):
        self.at = self.gpu.now_ms

    def synchronize(self):
        pass


class StandIn:
    """numpy.bincount as a library: each call takes the bytes over `gbps` on the pretend GPU (times the next of
    `spread`); `miscount` adds one to that bin, `raises` raises at inputs of that size, `interrupt_after` calls
    raise KeyboardInterrupt, `terminate_after` calls send SIGTERM, `unavailable` refuses to open."""

    def __init__(self, library="torch", version="2.5.1+cu124", gbps=500.0, spread=(1.0,), miscount=None, raises=None,
                 interrupt_after=None, unavailable=None, terminate_after=None):
        self.library, self.impl, self.want_version = library, f"{library}_bincount", version
        self.call = f"numpy.bincount(x, minlength=256) (a test's stand-in for {library})"
        self.gbps, self.spread, self.miscount, self.raises = gbps, itertools.cycle(spread), miscount, raises
        self.interrupt_after, self.unavailable, self.terminate_after = interrupt_after, unavailable, terminate_after
        self.calls, self.flushes, self.gpu = 0, 0, PretendGpu()

    def open(self, device):
        if self.unavailable:
            raise tool.Unavailable(self.unavailable)
        self.version = self.want_version
        return self

    def describe(self):
        return {"kind": "library", "library": self.library, "version": self.version, "cuda": "none (a stand-in)",
                "call": self.call}

    def device_record(self):
        return dict(GPU)

    def prepare(self, flush_bytes):
        self.flush_bytes = flush_bytes

    def upload(self, host):
        return host.copy()

    def count(self, x):
        self.calls += 1
        if self.interrupt_after is not None and self.calls > self.interrupt_after:
            raise KeyboardInterrupt
        if self.terminate_after is not None and self.calls > self.terminate_after:
            os.kill(os.getpid(), signal.SIGTERM)
        if self.raises == x.size:
            raise RuntimeError("out of resources (a planted failure)\nsecond line")
        self.gpu.now_ms += x.size / (self.gbps * 1e9) * 1e3 * next(self.spread)
        counts = np.bincount(x, minlength=256).astype(np.int64)
        if self.miscount is not None:
            counts[self.miscount] += 1
        return counts

    def host_counts(self, counts):
        return counts

    def address(self, x):
        return x.__array_interface__["data"][0]

    def flush_l2(self, value):
        self.flushes += 1

    def event(self):
        return PretendEvent(self.gpu)

    def elapsed_ms(self, start, stop):
        return stop.at - start.at

    def synchronize(self):
        pass

    def release(self):
        pass


def input_bytes(input, size):
    if input == "one_byte":
        return np.full(size, 0x65, dtype=np.uint8)
    return np.random.default_rng(len(input)).integers(0, 256, size, dtype=np.uint8)


@functools.lru_cache(maxsize=None)
def real_doc():
    """fixtures.real_run_doc, read once (each test copies what it changes)."""
    return fixtures.real_run_doc()


class StandInStudy:
    """The study's side with small cases: the listing above, the committed registry, a real run's environment."""

    def __init__(self):
        self.env = dict(copy.deepcopy(real_doc()["environment"]), gpu_absent=None,
                        gpu_state={"clocks_mhz": {"sm": 1980}},
                        executors=[{"toolchain": "nvcc 13.0.88", "describe": {"device": dict(GPU)}}])
        self.loads = []

    def experiments(self):
        return LISTED, json.loads((fixtures.DATA / "registry.json").read_text())

    def environment(self, device):
        return copy.deepcopy(self.env)

    def load(self, input, size, reference_impl):
        self.loads.append((input, size, reference_impl))
        data = input_bytes(input, size)
        return data, np.bincount(data, minlength=256).astype(np.uint64)


class StandInClock:
    source = "a test's stand-in clock"
    peak_sm_mhz = 2000.0

    def __init__(self, mhz=(1980.0,)):
        self.mhz = itertools.cycle(mhz)

    def sm_mhz(self):
        return next(self.mhz)

    def state(self):
        return {"source": self.source, "sm_mhz": 1980.0}


def run_peers(out, libraries, *args, study=None, clock=None):
    """(exit status, stderr, stdout, result files) of the driver with stand-ins, writing into `out`."""
    err, std = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(std):
        status = tool.main(["-o", str(out), *args], libraries=libraries, study=study or StandInStudy(),
                           clock=clock or StandInClock())
    return status, err.getvalue(), std.getvalue(), sorted(pathlib.Path(out).glob("*.json"))


class NeedsARun(unittest.TestCase):
    def setUp(self):
        if real_doc() is None:
            self.skipTest("no run file with lesson rows in data/runs")
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.out = pathlib.Path(self.tmp.name) / "runs"


# ---- the rules, one by one --------------------------------------------------------------------------------------

class Statistics(unittest.TestCase):
    def test_median_noise_is_the_harness_formula(self):
        samples = [float(v) for v in range(1, 21)]   # n 20: ranks floor(10 - 4.38) = 5 and ceil(14.38) = 15
        self.assertAlmostEqual(tool.median_noise(samples), (16.0 - 6.0) / 2 / 10.5)
        self.assertAlmostEqual(tool.median_noise(samples[::-1]), tool.median_noise(samples))
        self.assertTrue(np.isnan(tool.median_noise([1.0])))
        self.assertEqual(tool.median_noise([1.0] * 5), 0.0)

    def test_stopping_rule(self):
        plan = tool.Plan.of(LISTED["gpu_timing"])
        self.assertEqual(tool.should_stop(plan, [1.0] * 19, 19, 0.0)[0], None)      # fewer than --reps
        self.assertEqual(tool.should_stop(plan, [1.0] * 20, 20, 0.0)[0], "noise")
        noisy = [1.0, 2.0] * 10
        self.assertEqual(tool.should_stop(plan, noisy, 20, 0.0)[0], None)
        self.assertEqual(tool.should_stop(plan, noisy, 20, 5.0)[0], "max_time")
        self.assertEqual(tool.should_stop(plan, noisy[:4], 200, 0.0)[0], "max_samples")  # throttled samples count

    def test_rotation_puts_every_entry_in_every_place(self):
        rounds = [tool.rotation(3, r) for r in range(3)]
        self.assertEqual(rounds, [[0, 1, 2], [1, 2, 0], [2, 0, 1]])
        self.assertEqual([sorted(r[p] for r in rounds) for p in range(3)], [[0, 1, 2]] * 3)

    def test_summary_percentiles_by_linear_interpolation(self):
        s = tool.summarize([4.0, 1.0, 3.0, 2.0])
        self.assertEqual([s[k] for k in ("median", "p10", "p90", "min", "max", "mean")], [2.5, 1.3, 3.7, 1.0, 4.0, 2.5])

    def test_options_change_runs_plan(self):
        args = tool.parser().parse_args(["--reps", "5", "--max-reps", "9", "--noise", "1", "--cache", "hot"])
        plan = tool.Plan.of(LISTED["gpu_timing"], args)
        self.assertEqual((plan.min_samples, plan.max_samples, plan.target_noise, plan.cache, plan.warmups),
                         (5, 9, 0.01, "hot", 3))
        with self.assertRaises(tool.UsageError):
            tool.Plan.of(LISTED["gpu_timing"], tool.parser().parse_args(["--reps", "10", "--max-reps", "9"]))


class Check(unittest.TestCase):
    def test_bin_for_bin_then_the_sum(self):
        data = input_bytes("uniform", 1000)
        reference = np.bincount(data, minlength=256).astype(np.uint64)
        self.assertIsNone(tool.check_counts(reference.astype(np.int64), reference, 1000))
        off = reference.astype(np.int64)
        off[7] += 1
        self.assertEqual(tool.check_counts(off, reference, 1000),
                         f"bin 7: expected {reference[7]}, got {int(reference[7]) + 1}")
        self.assertEqual(tool.check_counts(off[:255], reference, 1000), "255 bins, expected 256")
        self.assertEqual(tool.check_counts(reference, reference, 999), "bins sum to 1000, input has 999 bytes")

    def test_input_stats(self):
        reference = np.zeros(256, dtype=np.uint64)
        reference[[3, 9]] = (30, 10)
        self.assertEqual(tool.input_stats(reference), {"busiest_pct": 75.0, "busiest": 30, "bins_used": 2})

    def test_cases_come_from_the_listing_and_narrow(self):
        cases = tool.plan_cases(LISTED, tool.EXPERIMENTS)
        self.assertEqual(len(cases), CASES)
        self.assertEqual(cases[0], tool.Case("perf", "uniform", LARGE))
        self.assertEqual(tool.plan_cases(LISTED, ["sizes"], sizes=[SMALL]), [tool.Case("sizes", "uniform", SMALL)])
        for experiments, inputs, sizes, words in ((["lesson"], (), (), "-e lesson"), (["bogus"], (), (), "-e bogus"),
                                                  (["perf"], ["prose"], (), "--input prose"),
                                                  (["perf"], (), [SMALL], f"--size {SMALL}")):
            with self.assertRaises(tool.UsageError) as caught:
                tool.plan_cases(LISTED, experiments, inputs, sizes)
            self.assertIn(words, str(caught.exception))

    def test_file_names_never_clash(self):
        with tempfile.TemporaryDirectory() as tmp:
            first = tool.write_new_file(tmp, "stem", "one\n")
            second = tool.write_new_file(tmp, "stem", "two\n")
            self.assertEqual((first.name, second.name), ("stem.json", "stem-002.json"))
            self.assertEqual(first.read_text(), "one\n")
            self.assertEqual(sorted(p.name for p in pathlib.Path(tmp).iterdir()), ["stem-002.json", "stem.json"])
        self.assertEqual(tool.slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3")
        self.assertEqual(tool.slug("torch 2.5.1+cu124+cupy 13.3.0"), "torch-2.5.1-cu124-cupy-13.3.0")


class FakeNvml:
    """pynvml's few calls the clock makes, on a GPU at 1,755 of 1,980 MHz, idle and power capped."""
    __version__ = "0.0 (a test's stand-in)"
    NVML_CLOCK_SM, NVML_CLOCK_MEM = 1, 2
    nvmlClocksThrottleReasonGpuIdle, nvmlClocksThrottleReasonSwPowerCap = 0x1, 0x4
    nvmlClocksThrottleReasonHwSlowdown, nvmlClocksThrottleReasonAll = 0x8, 0xFF

    def __init__(self):
        self.asked = []

    def nvmlInit(self):
        pass

    def nvmlDeviceGetHandleByUUID(self, uuid):
        self.asked.append(uuid)
        return "handle"

    def nvmlDeviceGetHandleByPciBusId(self, bus):
        self.asked.append(bus)
        return "handle"

    def nvmlDeviceGetHandleByIndex(self, index):
        self.asked.append(index)
        return "handle"

    def nvmlDeviceGetClockInfo(self, handle, clock):
        return {1: 1755, 2: 3201}[clock]

    def nvmlDeviceGetMaxClockInfo(self, handle, clock):
        return 1980

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle):
        return 0x5


class Clocks(unittest.TestCase):
    def test_nvml_reads_the_gpu_the_study_names(self):
        nvml = FakeNvml()
        clock = tool.NvmlClock(nvml, dict(GPU))
        self.assertEqual(nvml.asked, [GPU["uuid"].encode()])
        self.assertEqual((clock.sm_mhz(), clock.peak_sm_mhz), (1755.0, 1980.0))
        self.assertEqual(clock.state(), {"source": "nvml (pynvml 0.0 (a test's stand-in))", "sm_mhz": 1755,
                                         "memory_mhz": 3201, "max_sm_mhz": 1980.0,
                                         "clock_event_reasons": {"mask": 5, "active": ["GpuIdle", "SwPowerCap"]}})

    def test_a_uuid_nvml_does_not_know_falls_back_to_the_bus(self):
        nvml = FakeNvml()
        nvml.nvmlDeviceGetHandleByUUID = unittest.mock.Mock(side_effect=RuntimeError("NVML_ERROR_NOT_FOUND"))
        nvml.nvmlDeviceGetHandleByPciBusId = unittest.mock.Mock(return_value="by bus")
        self.assertEqual(tool.NvmlClock(nvml, dict(GPU)).handle, "by bus")
        self.assertEqual(tool.nvml_uuid("3552e1e7-dc92"), "GPU-3552e1e7-dc92")
        self.assertEqual(tool.nvml_uuid("GPU-3552e1e7-dc92"), "GPU-3552e1e7-dc92")
        self.assertIsNone(tool.nvml_uuid(None))

    def test_an_nvml_call_that_fails_stops_nothing(self):
        nvml = FakeNvml()
        clock = tool.NvmlClock(nvml, dict(GPU))
        nvml.nvmlDeviceGetClockInfo = unittest.mock.Mock(side_effect=RuntimeError("NVML_ERROR_GPU_IS_LOST"))
        self.assertIsNone(clock.sm_mhz())
        self.assertEqual(clock.state(), {"source": "unknown",
                                         "why": "nvml (pynvml 0.0 (a test's stand-in)): NVML_ERROR_GPU_IS_LOST"})

    def test_without_pynvml_no_sample_is_judged_and_the_state_says_why(self):
        clock = tool.SmiClock(dict(GPU), "pynvml: No module named 'pynvml'")
        self.assertIsNone(clock.sm_mhz())
        self.assertEqual(clock.source, "nvidia-smi (no clock per sample: pynvml: No module named 'pynvml')")
        with tempfile.TemporaryDirectory() as empty:
            with unittest.mock.patch.dict(os.environ, PATH=empty):
                self.assertEqual(clock.state()["source"], "unknown")


# ---- the driver, whole ---------------------------------------------------------------------------------------------

class Driver(NeedsARun):
    def test_a_run_writes_one_valid_file_of_checked_sampled_rows(self):
        torch, cupy = StandIn(gbps=500.0), StandIn("cupy", "13.3.0", gbps=250.0)
        status, err, out, files = run_peers(self.out, [torch, cupy])
        self.assertEqual(status, 0, err)
        self.assertEqual(len(files), 1)
        self.assertEqual(out, f"result file: {files[0]}\n")
        self.assertRegex(files[0].name,
                         r"^\d{8}T\d{6}Z_synthetic-gpu-test-fixture_torch-2.5.1-cu124-cupy-13.3.0\.json$")
        run = load_run(files[0])   # validated against the schema
        self.assertEqual(len(run.rows), CASES * 4)   # each library and its A/A control, every case
        self.assertEqual(run.toolchains(), ["torch 2.5.1+cu124", "cupy 13.3.0", "torch 2.5.1+cu124 (A/A control)",
                                            "cupy 13.3.0 (A/A control)"])
        for row in run.rows:
            self.assertTrue(row["check"]["passed"])
            self.assertEqual((row["roles"], row["floor_impl"], row["global_atomics"]), (["peer"], "read_floor", None))
            self.assertEqual(row["sampling"]["stop"], "noise")
            self.assertEqual(len(row["samples_ms"]) % 4, 0)   # whole rotations of the four entries
            self.assertGreaterEqual(len(row["samples_ms"]), 20)
            self.assertEqual(sorted(set(row["sample_log"]["position"])), [0, 1, 2, 3])
            planted = 500.0 if row["impl"] == "torch_bincount" else 250.0
            self.assertAlmostEqual(row["gbps"], planted, places=6)
            self.assertAlmostEqual(row["lesson_mean_ms"], row["summary_ms"]["median"], places=9)
            self.assertEqual(row["control_of"], row["toolchain"].removesuffix(" (A/A control)") if
                             row["toolchain"].endswith(")") else None)
        self.assertEqual(run.rows[0]["sampling"]["group"], ["torch 2.5.1+cu124 torch_bincount",
                                                            "cupy 13.3.0 cupy_bincount",
                                                            "torch 2.5.1+cu124 (A/A control) torch_bincount",
                                                            "cupy 13.3.0 (A/A control) cupy_bincount"])
        env = run.environment
        self.assertEqual([e["describe"]["kind"] for e in env["executors"]], ["library"] * 4)
        self.assertEqual(env["executors"][0]["describe"]["device"]["name"], GPU["name"])
        self.assertEqual(run.doc["timing"]["gpu"]["sample_clock"], StandInClock.source)
        self.assertEqual(run.doc["provenance"]["argv"][1:3], ["-o", str(self.out)])
        # the L2 flushed before every sample, cold as run's plan is: twice the L2's bytes
        samples = sum(len(r["sample_log"]["ms"]) for r in run.rows if r["impl"] == "torch_bincount")
        self.assertEqual((torch.flushes, torch.flush_bytes), (samples, 2 * GPU["l2_cache_bytes"]))
        # a second run beside the first: a new file, never over it
        self.assertEqual(len(run_peers(self.out, [StandIn(), StandIn("cupy", "13.3.0")])[3]), 2)

    def test_hot_samples_flush_nothing(self):
        torch = StandIn()
        status, err, _, files = run_peers(self.out, [torch], "--cache", "hot", "-e", "sizes")
        self.assertEqual(status, 0, err)
        self.assertEqual(torch.flushes, 0)
        self.assertEqual({r["sampling"]["cache"] for r in load_run(files[0]).rows}, {"hot"})

    def test_a_miscount_is_refused_before_timing(self):
        wrong, right = StandIn(miscount=101), StandIn("cupy", "13.3.0")
        status, err, _, files = run_peers(self.out, [wrong, right], "-e", "perf", "--input", "uniform")
        self.assertEqual(status, 1, err)
        self.assertEqual(wrong.calls, 2)   # the two checks, never a warm-up or a sample
        run = load_run(files[0])
        failed = [r for r in run.rows if r["impl"] == "torch_bincount"]
        self.assertEqual(len(failed), 2)
        for row in failed:
            self.assertFalse(row["check"]["passed"])
            self.assertRegex(row["check"]["detail"], r"^bin 101: expected \d+, got \d+$")
            self.assertEqual((row["samples_ms"], row["sample_log"]["ms"]), ([], []))
        self.assertTrue(all(r["samples_ms"] for r in run.rows if r["impl"] == "cupy_bincount"))
        self.assertIn("CHECK FAILED: torch_bincount (torch 2.5.1+cu124) on uniform, 65,536 bytes: bin 101", err)

    def test_a_call_that_raises_is_recorded_not_timed(self):
        status, err, _, files = run_peers(self.out, [StandIn(raises=SMALL)], "-e", "sizes")
        self.assertEqual(status, 1, err)
        run = load_run(files[0])
        raised = [r for r in run.rows if r["size"] == SMALL]
        self.assertEqual([r["check"]["detail"] for r in raised],
                         ["torch_bincount raised RuntimeError: out of resources (a planted failure)"] * 2)
        self.assertEqual([r["placement"] for r in raised], [None, None])
        self.assertTrue(all(r["samples_ms"] for r in run.rows if r["size"] == LARGE))

    def test_throttled_samples_are_logged_and_left_out(self):
        clock = StandInClock(mhz=(1980.0, 1980.0, 1000.0))   # every third sample below 0.75 x 2000 MHz
        status, err, _, files = run_peers(self.out, [StandIn()], "-e", "sizes", "--size", str(SMALL), clock=clock)
        self.assertEqual(status, 0, err)
        for row in load_run(files[0]).rows:
            log = row["sample_log"]
            self.assertEqual(log["throttled"], [mhz < 1500 for mhz in log["clock_mhz"]])
            self.assertEqual(row["sampling"]["throttled"], sum(log["throttled"]))
            self.assertEqual(len(row["samples_ms"]), row["sampling"]["taken"] - row["sampling"]["throttled"])

    def test_an_interrupted_run_keeps_what_it_measured(self):
        once = StandIn()
        status, err, _, _ = run_peers(self.out / "once", [once], "-e", "sizes", "--size", str(SMALL))
        per_case = once.calls
        status, err, _, files = run_peers(self.out, [StandIn(interrupt_after=per_case + 1)], "-e", "sizes")
        self.assertEqual(status, 130, err)
        run = load_run(files[0])
        self.assertEqual(run.incomplete, "interrupted (Ctrl-C)")
        self.assertEqual(run.environment["gpu_state_after"], {"unavailable": "not read: the run was interrupted"})
        self.assertEqual({r["size"] for r in run.rows}, {SMALL})   # the first case whole, the second not at all

    def test_a_terminated_run_keeps_what_it_measured(self):
        once = StandIn()
        run_peers(self.out / "once", [once], "-e", "sizes", "--size", str(SMALL))
        status, err, _, files = run_peers(self.out, [StandIn(terminate_after=once.calls + 1)], "-e", "sizes")
        self.assertEqual(status, 130, err)
        self.assertEqual(load_run(files[0]).incomplete, "interrupted (SIGTERM)")
        self.assertEqual({r["size"] for r in load_run(files[0]).rows}, {SMALL})

    def test_a_carried_commit_is_recorded_and_a_bad_one_refused_before_measuring(self):
        commit = "5" * 40
        with unittest.mock.patch.dict(os.environ, HISTOSTUDY_GIT_COMMIT=commit, HISTOSTUDY_GIT_DIRTY="0"):
            status, err, _, files = run_peers(self.out, [StandIn()], "-e", "sizes", "--size", str(SMALL))
        self.assertEqual(status, 0, err)
        provenance = load_run(files[0]).doc["provenance"]
        self.assertEqual((provenance["git_commit"], provenance["git_dirty"]), (commit, False))
        for env, words in (({"HISTOSTUDY_GIT_COMMIT": "abc123"}, "HISTOSTUDY_GIT_COMMIT=abc123: not a commit"),
                           ({"HISTOSTUDY_GIT_COMMIT": commit, "HISTOSTUDY_GIT_DIRTY": "yes"},
                            "HISTOSTUDY_GIT_DIRTY=yes: not 0 (a clean tree) or 1 (edited)")):
            library = StandIn()
            with unittest.mock.patch.dict(os.environ, env):
                status, err, _, files = run_peers(self.out / "bad", [library], "-e", "sizes")
            self.assertEqual((status, files, library.calls), (2, [], 0), err)
            self.assertIn(words, err)

    def test_libraries_that_cannot_run_are_named_and_skipped(self):
        status, err, _, files = run_peers(self.out, [StandIn(unavailable="not importable (planted)"),
                                                     StandIn("cupy", "13.3.0")], "-e", "sizes")
        self.assertEqual(status, 0, err)
        self.assertIn("peers: torch: not importable (planted); skipped\n", err)
        self.assertEqual(load_run(files[0]).toolchains(controls=False), ["cupy 13.3.0"])
        status, err, _, files = run_peers(self.out / "none", [StandIn(unavailable="no CUDA GPU here")])
        self.assertEqual((status, files), (0, []))
        self.assertEqual(err, "peers: torch: no CUDA GPU here; skipped\n"
                              "peers: nothing measured: none of the libraries can run here (exit 0: nothing to do)\n")

    def test_usage_errors_are_one_line(self):
        (pathlib.Path(self.tmp.name) / "afile").write_text("")
        for args, words in ((["--library", "numba"], "--library numba: the libraries are torch"),
                            (["-o", f"{self.tmp.name}/afile/runs"], "afile is not a folder this process can write"),
                            (["-e", "lesson"], "-e lesson: the peers run the study's perf and sizes experiments"),
                            (["--input", "prose"], "--input prose: not among the experiments' inputs")):
            status, err, _, files = run_peers(self.out, [StandIn()], *args)
            self.assertEqual((status, files), (2, []), err)
            self.assertEqual(err.count("\n"), 1, err)
            self.assertIn(words, err)


class Command(unittest.TestCase):
    def test_without_the_libraries_one_line_each_and_exit_0(self):
        with tempfile.TemporaryDirectory() as tmp:
            blocked = pathlib.Path(tmp) / "blocked"
            for name in ("torch", "cupy"):
                (blocked / name).mkdir(parents=True)
                (blocked / name / "__init__.py").write_text("raise ImportError('blocked by the test')\n")
            out = pathlib.Path(tmp) / "runs"
            done = subprocess.run([sys.executable, str(fixtures.REPO / "tools" / "peers.py"), "-o", str(out),
                                   "--histostudy", f"{tmp}/missing/histostudy"], capture_output=True, text=True,
                                  env=dict(os.environ, PYTHONPATH=str(blocked)), timeout=300)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(done.stderr, "peers: torch: not importable (blocked by the test); skipped\n"
                                          "peers: cupy: not importable (blocked by the test); skipped\n"
                                          "peers: nothing measured: none of the libraries can run here "
                                          "(exit 0: nothing to do)\n")
            self.assertFalse(out.exists())


@unittest.skipUnless(os.environ.get("HISTOSTUDY"), "HISTOSTUDY names no histostudy binary (meson test passes it)")
class StudyBinary(NeedsARun):
    """The study's own cases, bytes and reference count, from the binary."""

    def test_cases_bytes_and_reference(self):
        study = tool.StudyInputs(os.environ["HISTOSTUDY"], self.tmp.name)
        listed, registry = study.experiments()
        cases = tool.plan_cases(listed, tool.EXPERIMENTS)
        self.assertEqual(len([c for c in cases if c.experiment == "perf"]), 13)     # the lesson's and the sweep's
        self.assertEqual({c.size for c in cases if c.experiment == "perf"}, {1 << 30})
        self.assertEqual(tool.implementation(registry, "cpu", "oracle"), "reference")
        data, reference = study.load("distinct_4", 1 << 20, "reference")
        self.assertEqual(data.size, 1 << 20)
        self.assertTrue(np.array_equal(reference, np.bincount(data, minlength=256)))
        self.assertEqual(int(np.count_nonzero(reference)), 4)
        self.assertEqual(list(pathlib.Path(self.tmp.name).iterdir()), [])   # each input's file removed once read

    def test_a_run_on_the_study_s_bytes(self):
        study = tool.StudyInputs(os.environ["HISTOSTUDY"], self.tmp.name)
        status, err, _, files = run_peers(self.out, [StandIn()], "-e", "sizes", "--input", "one_byte", "--size",
                                          str(1 << 20), study=study)
        self.assertEqual(status, 0, err)
        row, control = load_run(files[0]).rows
        self.assertEqual((row["input_stats"]["bins_used"], row["input_stats"]["busiest"]), (1, 1 << 20))
        self.assertEqual(control["control_of"], row["toolchain"])


# ---- peer rows through the performance report and the audit ------------------------------------------------------

FLOOR_GBPS, SUBJECT_GBPS = 4000.0, 3600.0


def study_runs(cpu_doc):
    """A perf run and a sizes run of the synthetic GPU at the stand-ins' cases: the floor at FLOOR_GBPS, the subject
    at SUBJECT_GBPS, cub at half of it."""
    perf = fixtures.cpu_only_doc(cpu_doc)
    perf["environment"]["gpu_absent"] = None
    perf["environment"]["executors"].append({"toolchain": "nvcc 13.0.88", "describe": {"device": dict(GPU)}})
    template = perf["rows"][0]
    perf["rows"] = _attach_floors([_row(template, impl, input, gbps, size=LARGE)
                                   for input in ("uniform", "one_byte")
                                   for impl, gbps in (("read_floor", FLOOR_GBPS), ("lane_shared", SUBJECT_GBPS),
                                                      ("cub", SUBJECT_GBPS / 2))])
    medians = {(role, "uniform", size): size / gbps / 1e3 for size in (SMALL, LARGE)
               for role, gbps in (("floor", FLOOR_GBPS), ("subject", SUBJECT_GBPS), ("peer", SUBJECT_GBPS / 2))}
    return perf, synthetic.sizes_run(fixtures.cpu_only_doc(cpu_doc), medians)


class Reports(NeedsARun):
    def setUp(self):
        super().setUp()
        status, err, _, files = run_peers(self.out, [StandIn(gbps=500.0), StandIn("cupy", "13.3.0", gbps=250.0)])
        self.assertEqual(status, 0, err)
        self.peers_path = files[0]
        perf_doc, sizes_doc = study_runs(copy.deepcopy(real_doc()))
        self.perf_path = self.out / "20000101T000000Z_perf.json"
        self.sizes_path = self.out / "20000101T000001Z_sizes.json"
        synthetic.write_json(self.perf_path, perf_doc)
        synthetic.write_json(self.sizes_path, sizes_doc)

    def test_peers_against_the_subject_and_floor_of_their_gpu(self):
        peers_run, perf_run, sizes_run = map(load_run, (self.peers_path, self.perf_path, self.sizes_path))
        sel = selection.by_content([perf_run, sizes_run, peers_run])
        self.assertEqual([r.path for r in sel.peers_runs], [peers_run.path])
        self.assertEqual((sel.perf.path, sel.sizes.path), (perf_run.path, sizes_run.path))
        self.assertNotIn(peers_run.path, [r.path for role, runs in sel.roles.items() if role != "peers" for r in runs])
        g, = peers.model(sel.peers_runs, sel.gpu_study_runs)
        self.assertEqual((g.gpu, g.subject, g.floor, g.peers), (GPU["name"], "lane_shared", "read_floor",
                                                                ["torch_bincount", "cupy_bincount"]))
        self.assertEqual((g.unmatched, g.unmeasured), ([], []))
        for impl, gbps in (("torch_bincount", 500.0), ("cupy_bincount", 250.0)):
            for experiment in peers.EXPERIMENTS:
                for value, want in ((g.values(impl, "pct_of_floor", experiment), 100 * gbps / FLOOR_GBPS),
                                    (g.values(impl, "subject_over_peer", experiment), SUBJECT_GBPS / gbps)):
                    self.assertEqual(len(value), 2)
                    for v in value:
                        self.assertAlmostEqual(v, want, places=3)
        self.assertEqual({c.study_run.path for c in g.of("sizes")}, {sizes_run.path})
        self.assertEqual({c.aa.verdict for c in g.cases}, {"same"})
        text = "".join(t.markdown() for t in peers.peers_tables([g]))
        self.assertIn("| uniform | 65,536 | 4,000 | 3,600 | 500 (12.5%) | 7.20x | 1.000x same | 250 (6.2%) | 14.40x |",
                      text)
        prose = peers.peers_prose(g)
        self.assertIn("`torch_bincount` on the perf cases runs at 12.5% of the read floor's GB/s, and `lane_shared` "
                      "at 7.20x its GB/s", prose)

    def test_the_manifest_names_a_peers_run_in_the_peers_role_alone(self):
        runs = {p.name: json.loads(p.read_text()) for p in (self.peers_path, self.perf_path)}
        data = fixtures.data_dir(pathlib.Path(self.tmp.name) / "paper", runs,
                                 manifest=[(self.peers_path.name, "peers", "x"), (self.perf_path.name, "perf", "x")])
        self.assertEqual([r.name for r in selection.load(data).peers_runs], [self.peers_path.name])
        fixtures.write_manifest(data, [(self.peers_path.name, "perf", "x")])
        with self.assertRaises(ResultError) as caught:
            selection.load(data)
        self.assertIn("cannot be the perf run: it holds library peer rows (tools/peers.py)", str(caught.exception))

    def test_a_stopped_peers_run_feeds_the_paper_with_its_whole_cases_and_says_so(self):
        once = StandIn()
        run_peers(self.out / "once", [once], "-e", "sizes", "--size", str(SMALL))
        _, err, _, files = run_peers(self.out / "stopped", [StandIn(terminate_after=once.calls + 1)], "-e", "sizes")
        runs = {p.name: json.loads(p.read_text()) for p in (files[0], self.perf_path, self.sizes_path)}
        data = fixtures.data_dir(pathlib.Path(self.tmp.name) / "paper", runs,
                                 manifest=[(files[0].name, "peers", "x"), (self.perf_path.name, "perf", "x"),
                                           (self.sizes_path.name, "sizes", "x")])
        sel = selection.load(data)
        g, = peers.model(sel.peers_runs, sel.gpu_study_runs)
        self.assertIn("The run stopped before its end (interrupted (SIGTERM)); it holds 1 case whole, and the cases",
                      peers.peers_prose(g))
        self.assertTrue(g.unmeasured)   # the study's sizes cases the stopped run never reached, named
        self.assertIn(f"The peers were not measured on {len(g.unmeasured)} case", peers.peers_prose(g))
        self.assertIn(f"sizes {g.unmeasured[0][1]} at {g.unmeasured[0][2]:,} bytes", peers.peers_prose(g))
        broken = json.loads(files[0].read_text())
        broken["incomplete"] = {"error": "PeersError: the GPU fell off the bus"}   # stopped on an error: refused
        synthetic.write_json(data / "runs" / files[0].name, broken)
        with self.assertRaises(ResultError) as caught:
            selection.load(data)
        self.assertIn("it is incomplete (the run stopped on an error", str(caught.exception))

    def test_a_stopped_run_and_a_run_of_what_it_lacks_make_one_gpu(self):
        once = StandIn()
        run_peers(self.out / "once", [once], "-e", "sizes", "--size", str(SMALL))
        _, _, _, stopped = run_peers(self.out / "stopped", [StandIn(terminate_after=once.calls + 1)], "-e", "sizes")
        _, _, _, rest = run_peers(self.out / "rest", [StandIn()], "-e", "sizes", "--size", str(LARGE))
        _, _, _, again = run_peers(self.out / "again", [StandIn(gbps=1.0)], "-e", "sizes", "--size", str(SMALL))
        runs = [load_run(p) for p in (stopped[0], rest[0], again[0])]
        held = [{(r["input"], r["size"]) for r in run.rows} for run in runs]
        self.assertTrue(held[0] and held[1] and not held[0] & held[1], held)
        g, = peers.model(runs, [load_run(self.perf_path), load_run(self.sizes_path)])
        self.assertEqual([r.path for r in g.runs], [r.path for r in runs])
        self.assertEqual({c.key[1:] for c in g.cases}, held[0] | held[1])
        self.assertEqual({c.run.path for c in g.cases}, {runs[0].path, runs[1].path})  # the first run holding a case
        self.assertEqual({round(v, 6) for v in g.values("torch_bincount", "pct_of_floor", "sizes")},
                         {round(100 * 500.0 / FLOOR_GBPS, 6)})   # never the later run's 1 GB/s
        prose = peers.peers_prose(g)
        self.assertIn(f"`{runs[0].name}` stopped before its end (interrupted (SIGTERM)); the runs hold "
                      f"{len(held[0] | held[1])} cases whole", prose)
        self.assertEqual(len(peers.peers_tables([g])), 1)

    def test_a_case_left_untimed_gives_way_to_a_later_run_s(self):
        _, _, _, first = run_peers(self.out / "first", [StandIn()], "-e", "sizes", "--size", str(SMALL))
        _, _, _, again = run_peers(self.out / "again", [StandIn()], "-e", "sizes", "--size", str(SMALL))
        untimed, later = load_run(first[0]), load_run(again[0])
        for row in untimed.rows:
            row["samples_ms"] = []     # every sample throttled: checked, never timed
        g, = peers.model([untimed, later], [load_run(self.perf_path), load_run(self.sizes_path)])
        self.assertTrue(g.cases)
        self.assertEqual({c.run.path for c in g.cases}, {later.path})
        self.assertEqual([key for key in g.unmeasured if key[2] == SMALL], [])

    def test_a_user_s_stopped_run_and_its_catch_up_are_read_together(self):
        _, _, _, hot = run_peers(self.out / "hot", [StandIn()], "-e", "sizes", "--cache", "hot")
        once = StandIn()
        run_peers(self.out / "once", [once], "-e", "sizes", "--size", str(SMALL))
        time.sleep(1.1)   # each file newer than the one before
        _, _, _, stopped = run_peers(self.out / "stopped", [StandIn(terminate_after=once.calls + 1)], "-e", "sizes")
        time.sleep(1.1)
        _, _, _, rest = run_peers(self.out / "rest", [StandIn()], "-e", "sizes", "--size", str(LARGE))
        older_hot, stopped_run, catch_up = (load_run(p[0]) for p in (hot, stopped, rest))
        sel = selection.by_content([older_hot, stopped_run, catch_up, load_run(self.perf_path),
                                    load_run(self.sizes_path)])
        self.assertEqual([r.path for r in sel.peers_runs], [catch_up.path, stopped_run.path])   # never the hot one
        g, = peers.model(sel.peers_runs, sel.gpu_study_runs)
        self.assertEqual([key for key in g.unmeasured if key[0] == "sizes"], [])   # the two runs hold every one

    def refusal_beside_the_first(self, second):
        """Why a manifest naming the peers run of setUp, then `second`, both in the peers role, is refused."""
        runs = {p.name: json.loads(p.read_text()) for p in (self.peers_path, second)}
        data = fixtures.data_dir(pathlib.Path(self.tmp.name) / "paper", runs,
                                 manifest=[(self.peers_path.name, "peers", "x"), (second.name, "peers", "x")])
        with self.assertRaises(ResultError) as caught:
            selection.load(data)
        return str(caught.exception)

    def test_one_gpu_s_peers_runs_join_only_with_the_same_libraries(self):
        _, _, _, other = run_peers(self.out / "other", [StandIn(version="2.6.0+cu126")])
        self.assertIn("one cache mode and one version of each library", self.refusal_beside_the_first(other[0]))

    def test_one_gpu_s_peers_runs_join_only_in_one_cache_mode(self):
        _, _, _, hot = run_peers(self.out / "hot", [StandIn()], "--cache", "hot")
        self.assertIn("one GPU's peers runs join into one table, of one cache mode",
                      self.refusal_beside_the_first(hot[0]))

    def test_a_peer_sampled_hot_is_not_set_against_cold_rows(self):
        status, err, _, files = run_peers(self.out / "hot", [StandIn()], "--cache", "hot")
        g, = peers.model([load_run(files[0])], [load_run(self.perf_path), load_run(self.sizes_path)])
        self.assertEqual(len(g.unmatched), len(g.cases))

    def test_a_call_that_raised_leaves_the_run_controlled(self):
        status, err, _, files = run_peers(self.out / "raised", [StandIn(raises=SMALL)], "-e", "sizes")
        run = load_run(files[0])
        self.assertEqual([r.path for r in selection.by_content([run]).peers_runs], [run.path])

    def test_the_claims_leave_libraries_out(self):
        published = load_published(fixtures.DATA / "published")
        runs = [load_run(p) for p in (self.peers_path, self.perf_path)]
        labels = [e.label for e in claims.audit(runs, published).ours]
        self.assertEqual(labels, [claims.environment_label(runs[1], "nvcc 13.0.88")])

    def test_without_a_run_of_its_gpu_the_ratios_are_not_measurable(self):
        g, = peers.model([load_run(self.peers_path)], [])
        self.assertEqual(len(g.unmatched), len(g.cases))
        self.assertIn("no perf or sizes run of the", peers.peers_prose(g))
        self.assertIn("their ratios are not measurable here", peers.cases_table(g, "perf").markdown())

    def test_the_audit_pairs_peer_rows_by_library_across_versions(self):
        older = self.peers_path
        status, err, _, files = run_peers(self.out / "b", [StandIn(version="2.6.0+cu126", gbps=500.0),
                                                           StandIn("cupy", "13.4.0", gbps=250.0)])
        same = subprocess.run([sys.executable, "-m", "plots.audit", str(older), str(files[0])], cwd=fixtures.REPO,
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(same.returncode, 0, same.stdout + same.stderr)
        self.assertIn("torch 2.5.1+cu124 -> torch 2.6.0+cu126 (by kind: torch)", same.stdout)
        self.assertIn("cupy 13.3.0 -> cupy 13.4.0 (by kind: cupy)", same.stdout)
        self.assertIn(f"among the {CASES * 2} judged rows", same.stdout)
        status, err, _, files = run_peers(self.out / "c", [StandIn(version="2.6.0+cu126", gbps=250.0),
                                                           StandIn("cupy", "13.4.0", gbps=250.0)])
        slower = subprocess.run([sys.executable, "-m", "plots.audit", str(older), str(files[0])], cwd=fixtures.REPO,
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(slower.returncode, 1, slower.stdout + slower.stderr)
        self.assertIn(f"REGRESSION: {CASES} rows are slower beyond 1.10x", slower.stdout)
        self.assertTrue(all("torch_bincount" in line for line in slower.stdout.splitlines() if line.endswith("SLOWER")))


if __name__ == "__main__":
    unittest.main()
