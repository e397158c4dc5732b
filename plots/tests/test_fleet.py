"""plots/fleet.py on SYNTHETIC result files made here (never in data/): GPUs of one model that agree, that differ
beyond their A/A controls, whose A/A pair itself differs; Slurm tasks without a result; files without a run id or
that cannot be read."""
import io
import json
import pathlib
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

import numpy as np

from plots import fleet
from plots.results import parse_run
from plots.tests import synthetic

MODEL = "SYNTHETIC GPU (test fixture)"
TOOLCHAIN = "nvcc 13.0.88"
POLICY = {"grid": 1024, "block": 256, "threads": 0, "passes": 1, "copies": 1, "counter_bits": 32,
          "shared_bytes": 1024}


def samples(median, seed, n=30, noise=0.005):
    rng = np.random.default_rng(seed)
    return [round(float(median * f), 6) for f in rng.normal(1.0, noise, n)]


def row(impl, median, seed, device, control_of=None, input="uniform"):
    s = samples(median, seed)
    toolchain = TOOLCHAIN + (" (A/A control)" if control_of else "")
    found = {"experiment": "custom", "impl": impl, "backend": "cuda", "device": device, "toolchain": toolchain,
             "control_of": control_of, "input": input, "size": 1 << 20, "policy": POLICY,
             "input_stats": {"busiest_pct": 100 * 4096 / (1 << 20), "busiest": 4096, "bins_used": 256},
             "check": {"passed": True, "detail": ""}, "global_atomics": 0, "bytes_read": 1 << 20, "samples_ms": s,
             "summary_ms": synthetic.summary(s), "lesson_mean_ms": None, "floor_impl": "read_floor",
             "pct_of_floor": None}
    return dict(found, gbps=synthetic.gbps(found))


def gpu(index):
    return {"index": index, "uuid": f"GPU-0000000{index}-synthetic", "name": MODEL,
            "pci_bus_id": f"00000000:0{index}:00.0"}


def doc(rows, run_id="fleet-1", host="node1", variables=None):
    d = {"format": "histostudy-result", "schema_version": 1, "started": "2026-12-01T12:00:00Z",
         "finished": "2026-12-01T12:01:00Z",
         "provenance": {"argv": ["histostudy", "run"], "cwd": "/", "git_commit": None, "git_dirty": None},
         "environment": {"host": {"hostname": host, "cpu_model": "SYNTHETIC CPU", "variables": variables or {},
                                  "logical_cores": 2, "openmp_max_threads": 2, "os": "test", "kernel": "test",
                                  "machine": "x86_64"},
                         "build": {}, "executors": [], "gpu_absent": None},
         "timing": {p: {"warmups": 3, "reps": 30, "lesson_warmups": 3, "lesson_reps": 0} for p in ("gpu", "cpu")},
         "rows": rows}
    if run_id:
        d["run_id"] = run_id
    return d


def gpu_part(index, median, aa_factor=1.0, seed=0, **kw):
    """One GPU's file: the kernel, and its A/A control aa_factor times as slow."""
    return doc([row("per_block", median, seed + 2 * index, gpu(index)),
                row("per_block", median * aa_factor, seed + 2 * index + 1, gpu(index), control_of=TOOLCHAIN)], **kw)


class Fleet(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, document):
        path = self.dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(document) if isinstance(document, dict) else document
        path.write_text(text)
        if isinstance(document, dict):
            parse_run(path, text)  # the fixture itself follows the schema
        return path

    def report(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = fleet.main([str(self.dir), *extra])
        return code, out.getvalue(), err.getvalue()

    def verdict_line(self, text, impl="per_block"):
        lines = [line for line in text.splitlines() if line.startswith(f"| custom | {impl} ")]
        self.assertEqual(len(lines), 1, text)
        return lines[0]

    def test_gpus_that_agree(self):
        for i in range(3):
            self.write(f"gpu{i}.json", gpu_part(i, 1.0 + 0.001 * i))
        code, text, _ = self.report()
        self.assertEqual(code, 0)
        line = self.verdict_line(text)
        self.assertIn(f"| {MODEL} | 3 |", line)
        self.assertIn("agree within +-5%", line)
        for i in range(3):
            self.assertIn(f"GPU {i}: {MODEL}, GPU-0000000{i}-synthetic, PCI 00000000:0{i}:00.0", text)

    def test_a_slower_gpu_beyond_the_aa_matters(self):
        self.write("a.json", gpu_part(0, 1.0))
        self.write("b.json", gpu_part(1, 1.2))
        line = self.verdict_line(self.report()[1])
        self.assertIn("differ beyond the A/A: the device matters", line)
        self.assertIn("node1 GPU 0) .. 1.", line)  # fastest first, slowest last
        ratio, low, high = map(float, line.split("|")[9].replace("[", " ").replace("..", " ").strip("] ").split())
        self.assertTrue(1.18 < low < ratio < high < 1.22, line)

    def test_an_aa_pair_that_differs_withholds_the_verdict(self):
        self.write("a.json", gpu_part(0, 1.0, aa_factor=1.3))
        self.write("b.json", gpu_part(1, 1.2))
        line = self.verdict_line(self.report()[1])
        self.assertIn("an A/A pair differs", line)
        self.assertIn("30.", line.split("|")[10])  # the largest A/A gap, about 30%

    def test_one_gpu_and_no_control(self):
        self.write("a.json", doc([row("global", 2.0, 1, gpu(0))]))
        self.write("b.json", doc([row("per_block", 1.0, 2, gpu(0)), row("per_block", 1.3, 3, gpu(1))]))
        text = self.report()[1]
        self.assertIn("one device: nothing to compare", self.verdict_line(text, "global"))
        self.assertIn("no A/A control", self.verdict_line(text, "per_block"))
        self.assertIn("differ, but with no A/A control", self.verdict_line(text, "per_block"))

    def test_runs_are_grouped_by_run_id_and_files_without_one_left_out(self):
        self.write("x/a.json", gpu_part(0, 1.0, run_id="one"))
        self.write("y/b.json", gpu_part(1, 1.0, run_id="two"))
        self.write("z/c.json", gpu_part(0, 1.0, run_id=None))
        text = self.report()[1]
        self.assertIn("## Run one", text)
        self.assertIn("## Run two", text)
        self.assertEqual(text.count("one device: nothing to compare"), 2)
        self.assertIn(f"- {self.dir / 'z/c.json'}", text.split("without a run id")[1])

    def test_slurm_tasks_without_a_result_are_named(self):
        for task in (0, 2):
            v = {"SLURM_ARRAY_JOB_ID": "41", "SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_MIN": "0",
                 "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "4",
                 "SLURM_JOB_ID": str(50 + task)}
            self.write(f"task-{task}/r.json", gpu_part(task, 1.0, run_id="slurm-41", host=f"n{task}", variables=v))
        text = self.report()[1]
        self.assertIn("Slurm array job 41: 2 of 4 tasks left result files; no result from tasks 1, 3.", text)
        self.assertIn("| array job 41 task 2 |", text)

    def test_unreadable_files_are_named_and_fail_the_exit(self):
        self.write("a.json", gpu_part(0, 1.0))
        self.write("broken.json", '{"format": "histostudy-result", "rows": [')
        code, text, err = self.report()
        self.assertEqual(code, 1)
        self.assertIn("broken.json: not valid JSON", err)
        self.assertIn("broken.json: not valid JSON", text.split("could not be read")[1])

    def test_a_file_that_contradicts_itself_or_nests_too_deep_is_named_and_skipped(self):
        self.write("a.json", gpu_part(0, 1.0))
        edited = gpu_part(1, 1.0)
        edited["rows"][0]["input_stats"].update(busiest_pct=100.0, busiest=1 << 20)   # 256 bins used
        self.write("edited.json", json.dumps(edited))
        self.write("deep.json", '{"format": "histostudy-result", "rows": ' + "[" * 100_000 + "]" * 100_000 + "}")
        code, text, err = self.report()
        self.assertEqual(code, 1)
        self.assertEqual(err.splitlines(), [
            f"fleet: {self.dir / 'deep.json'}: nested too deeply to be a histostudy file",
            f"fleet: {self.dir / 'edited.json'}: contradicts itself: rows[0] (per_block on uniform, {TOOLCHAIN}): "
            "input_stats.bins_used is 256, beside a busiest bin of 1,048,576 bytes: more than the row's 1,048,576 "
            "bytes can fill"])
        self.assertIn("from 1 result files", text)

    def test_nothing_to_read_and_bad_arguments(self):
        self.assertEqual(self.report()[0], 2)
        code, _, err = self.report_of([str(self.dir / "missing")])
        self.assertEqual((code, err.strip().count("\n")), (2, 0))
        self.write("a.json", gpu_part(0, 1.0))
        with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            fleet.main([str(self.dir), "--band", "0.9"])

    def report_of(self, args):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = fleet.main(args)
        return code, out.getvalue(), err.getvalue()

    def test_the_report_file(self):
        self.write("runs/a.json", gpu_part(0, 1.0))
        target = self.dir / "report.md"
        code, out, _ = self.report_of([str(self.dir / "runs"), "-o", str(target)])
        self.assertEqual((code, out), (0, ""))
        text = target.read_text()
        self.assertTrue(text.startswith("# Fleet report\n\nMade by `python3 -m plots.fleet "))
        self.assertEqual(sorted(p.name for p in self.dir.iterdir()), ["report.md", "runs"])  # no temporary left


if __name__ == "__main__":
    unittest.main()
