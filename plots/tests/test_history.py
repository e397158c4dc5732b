"""The release history on planted data: a release that changed a kernel's time
beyond the A/A noise is named as a step, with whether its PTX changed; noise
within the A/A band is flat."""
import contextlib
import io
import pathlib
import random
import tempfile
import unittest

from plots import codegen, history, selection
from plots.results import Run, module_entry

RELEASES = ["12.0.140", "12.6.85", "13.0.88", "13.1.115"]
POLICY = {"grid": 1024, "block": 256, "threads": 0, "passes": 1, "copies": 1, "counter_bits": 32, "shared_bytes": 0}


def row(toolchain, impl, ms, noise=0.002, control_of=None, seed=0):
    rng = random.Random(f"{toolchain}{impl}{seed}")
    return {"experiment": "lesson", "impl": impl, "backend": "cuda", "toolchain": toolchain, "input": "uniform",
            "size": 1 << 26, "policy": dict(POLICY), "check": {"passed": True, "detail": ""},
            "samples_ms": [ms * (1 + rng.uniform(-noise, noise)) for _ in range(40)], "control_of": control_of,
            "placement": {"bins_offset": 0, "bins_mod_2mib": 0, "input_mod_2mib": 0}}


def matrix(times):
    """A run with every release's SASS entry timed as times[impl][i], plus nvcc and its A/A control."""
    rows = []
    for impl, per_release in times.items():
        rows += [row(f"nvrtc {v} sm_90", impl, t) for v, t in zip(RELEASES, per_release)]
        rows += [row("nvcc 13.0.88", impl, per_release[0]),
                 row("nvcc 13.0.88 (A/A control)", impl, per_release[0], control_of="nvcc 13.0.88", seed=1)]
    return Run("planted.json", {"rows": rows})


class History(unittest.TestCase):
    def setUp(self):
        kernel = "hs_per_block<unsigned int>"
        new = {v: v >= "13.1" for v in RELEASES}
        self.audit = codegen.Audit(["planted"], [codegen.Record(kernel, f"nvrtc {v}", "90",
                                                                {"hot_loop.instructions": 15 if new[v] else 18}, {})
                                                 for v in RELEASES])
        self.ptx = {(kernel, f"nvrtc {v}", "90"): "new" if new[v] else "old" for v in RELEASES}

    def series(self, times):
        return {s.impl: s for s in history.history(matrix(times), self.audit, self.ptx)}

    def test_a_step_beyond_the_aa_noise_is_named_with_its_front_end(self):
        found = self.series({"global": [1.0, 1.001, 0.999, 1.0], "per_block": [1.0, 1.0, 1.0, 0.95]})
        self.assertEqual(found["global"].steps, [])
        self.assertTrue(history.verdict_words(found["global"]).startswith("flat from 12.0.140 to 13.1.115"))
        [step] = found["per_block"].steps
        self.assertEqual(history.version_text(step.release), "13.1.115")
        self.assertLess(step.comparison.ratio, 1)
        self.assertIn("faster at 13.1.115", history.verdict_words(found["per_block"]))
        self.assertTrue(step.front_end)
        self.assertIn("hot_loop.instructions 18->15", step.hot_loop)

    def test_a_run_without_the_releases_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "not-json.json"
            path.write_text("{")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(history.main([str(path)]), 2)
            self.assertIn("not-json.json", err.getvalue())

    def test_a_run_whose_module_rows_all_failed_is_not_read(self):
        run = matrix({"global": [1.0] * 4})
        for r in run.rows:
            if module_entry(r["toolchain"]):
                r.update(check={"passed": False, "detail": "bin 7: 1 != 2"}, samples_ms=[])
        self.assertFalse(selection.is_matrix_run(run))   # else the history's table had no release to name

    def test_labels_name_release_kind_and_arch(self):
        self.assertEqual(module_entry("nvrtc 12.6.85 sm_90"), ((12, 6, 85), "SASS", "90"))
        self.assertEqual(module_entry("nvrtc 13.0.88 compute_90 jit"), ((13, 0, 88), "PTX via the driver", "90"))
        self.assertIsNone(module_entry("nvcc 13.0.88"))
        self.assertTrue(selection.is_matrix_run(matrix({"global": [1.0] * 4})))


if __name__ == "__main__":
    unittest.main()
