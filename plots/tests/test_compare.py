"""python3 -m plots.compare on SYNTHETIC runs (written to temp): a run against itself passes, a planted
1.5x slowdown of one row fails; A/A controls withhold verdicts; placement changes are flagged."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

from plots.tests import fixtures, synthetic


def compare(*args):
    return subprocess.run([sys.executable, "-m", "plots.compare", *map(str, args)], cwd=fixtures.REPO,
                          capture_output=True, text=True, timeout=300)


def lines_of(out, impl, input, toolchain=synthetic.TOOLCHAINS[0]):
    """The table lines of lesson rows of impl on input under toolchain."""
    return [line for line in out.stdout.splitlines()
            if line.split()[:2] == ["lesson", impl] and f" {toolchain} " in line and f" {input} " in line]


class Compare(unittest.TestCase):
    def setUp(self):
        cpu = fixtures.real_run_doc()
        if cpu is None:
            self.skipTest("no run file with CPU lesson and sweep rows in data/runs")
        self.cpu = fixtures.cpu_only_doc(cpu)
        self.cpu["rows"] = [r for r in self.cpu["rows"] if r["experiment"] == "lesson"]  # enough, and quick
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, doc):
        path = pathlib.Path(self.dir.name) / name
        synthetic.write_json(path, doc)
        return path

    def gpu_run(self, **kwargs):
        return synthetic.gpu_run(self.cpu, with_blocks=False, experiments=("lesson",), **kwargs)

    def uncontrolled(self):
        return self.gpu_run(controlled=False)

    def planted(self, doc, factor, impl="per_block", input="uniform"):
        """doc with the first toolchain's impl-on-input lesson samples scaled by `factor`, its A/A control's
        too: a change of the toolchain slows its repeat as much."""
        doc = json.loads(json.dumps(doc))
        for row in doc["rows"]:
            if (row["experiment"], row["impl"], row["input"]) == ("lesson", impl, input) and \
                    row["toolchain"] in (synthetic.TOOLCHAINS[0], synthetic.control(synthetic.TOOLCHAINS[0])):
                row["samples_ms"] = [x * factor for x in row["samples_ms"]]
        return doc

    def test_a_run_against_itself_reports_no_regression(self):
        path = self.write("a.json", self.uncontrolled())
        out = compare(path, path)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("none: both environments are recorded identically", out.stdout)
        self.assertIn("No regression", out.stdout)

    def test_a_planted_slowdown_fails(self):
        doc = self.uncontrolled()
        out = compare(self.write("a.json", doc), self.write("b.json", self.planted(doc, 1.5)), "--threshold", "1.10")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        slower = [line for line in out.stdout.splitlines() if line.endswith("SLOWER")]
        self.assertEqual(len(slower), 1, out.stdout)
        self.assertIn("per_block", slower[0])
        self.assertIn("1.500x", slower[0])
        self.assertIn("REGRESSION: 1 rows", out.stdout)

    def test_impl_filter_leaves_the_slow_row_out(self):
        doc = self.uncontrolled()
        out = compare(self.write("a.json", doc), self.write("b.json", self.planted(doc, 1.5)), "--impl", "global,cub")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_environment_changes_are_listed_by_kind(self):
        doc = self.uncontrolled()
        moved = json.loads(json.dumps(doc))
        moved["environment"]["host"]["hostname"] = "another-host"
        moved["environment"]["executors"][0]["describe"]["compiler"] = "a newer compiler"
        out = compare(self.write("a.json", doc), self.write("moved.json", moved))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("  host:\n    environment.host.hostname:", out.stdout)
        self.assertIn("-> another-host", out.stdout)
        self.assertIn("a newer compiler", out.stdout)

    def test_bad_files_exit_2_naming_them(self):
        bad = pathlib.Path(self.dir.name) / "bad.json"
        bad.write_text('{"format": "nope"}')
        out = compare(self.write("a.json", self.uncontrolled()), bad)
        self.assertEqual(out.returncode, 2)
        self.assertIn(str(bad), out.stderr)

    def test_zero_times_are_refused_not_passed_as_faster(self):
        doc = self.uncontrolled()
        for value in (0.0, -0.5):
            zero = json.loads(json.dumps(doc))
            row = next(r for r in zero["rows"] if r["backend"] == "cuda")
            row["samples_ms"] = [value] * len(row["samples_ms"])
            bad = self.write("zero.json", zero)
            for args in ((self.write("a.json", doc), bad), (bad, self.write("a.json", doc))):
                out = compare(*args)
                self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
                self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)
                self.assertIn(str(bad), out.stderr)
                self.assertNotIn("Traceback", out.stderr)

    def test_thresholds_must_be_finite_and_above_one(self):
        path = self.write("a.json", self.uncontrolled())
        for bad in ("nan", "inf", "1e400", "-inf", "1", "0.9", "abc"):
            out = compare(path, path, "--threshold", bad)
            self.assertEqual(out.returncode, 2, bad)
            self.assertIn("--threshold", out.stderr, bad)
        self.assertEqual(compare(path, path, "--threshold", "1.5").returncode, 0)

    def test_an_incomplete_run_is_compared_with_a_one_line_warning(self):
        doc = self.uncontrolled()
        cut = json.loads(json.dumps(doc), object_hook=None)
        cut["incomplete"] = {"error": "cannot write runs/: disk full"}
        cut["rows"] = cut["rows"][: len(cut["rows"]) // 2]
        out = compare(self.write("a.json", doc), self.write("cut.json", cut))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        warning, = out.stderr.strip().splitlines()
        self.assertIn("B", warning)
        self.assertIn("cut.json) is incomplete", warning)
        self.assertIn("disk full", warning)

    def test_missing_controls_are_said_in_one_line(self):
        controlled = self.gpu_run()
        out = compare(self.write("a.json", self.uncontrolled()), self.write("b.json", controlled))
        said = [line for line in out.stdout.splitlines() if line.startswith("A/A controls:")]
        self.assertEqual(said, ["A/A controls: A has none (a run made before the study's controls, or of one "
                                "toolchain), so no verdict is checked against an A/A pair."])
        both = compare(self.write("c.json", controlled), self.write("d.json", controlled))
        self.assertNotIn("A/A controls:", both.stdout)

    def test_an_a_a_pair_that_differs_withholds_the_verdict(self):
        base = self.gpu_run()
        noisy = self.gpu_run(seed=5, aa_factors={("per_block", "uniform"): 1.3})
        out = compare(self.write("a.json", base), self.write("b.json", self.planted(noisy, 1.5)), "--threshold", "1.10")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)   # the only slow row is withheld
        line, = lines_of(out, "per_block", "uniform")
        self.assertIn("1.500x", line)
        self.assertTrue(line.endswith("withheld (A/A not same)"), line)
        # the A/A pair is per case: every toolchain's per_block on uniform is withheld, nothing else
        self.assertIn(f"{len(synthetic.TOOLCHAINS)} withheld", out.stdout)
        line, = lines_of(out, "global", "uniform")
        self.assertTrue(line.endswith("same"), line)                    # its A/A pairs are the same

    def test_a_slowdown_with_same_a_a_pairs_still_fails(self):
        base = self.gpu_run()
        out = compare(self.write("a.json", base), self.write("b.json", self.planted(base, 1.5)), "--threshold", "1.10")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertTrue(lines_of(out, "per_block", "uniform")[0].endswith("SLOWER"))

    def test_a_placement_difference_is_flagged(self):
        base = self.gpu_run()
        moved = json.loads(json.dumps(base))
        for row in moved["rows"]:
            if row["impl"] == "global" and row["input"] == "uniform" and row["placement"]:
                row["placement"]["bins_mod_2mib"] = 512
        out = compare(self.write("a.json", base), self.write("b.json", moved))
        line, = lines_of(out, "global", "uniform")
        self.assertIn("DIFFERS: bins 0 -> 512 mod 2 MiB", line)
        self.assertNotIn("DIFFERS", lines_of(out, "per_block", "uniform")[0])
        moved_rows = sum(r["impl"] == "global" and r["input"] == "uniform" and r["toolchain"] in synthetic.TOOLCHAINS
                         and r["experiment"] == "lesson" for r in moved["rows"])
        self.assertIn(f"PLACEMENT: {moved_rows} of ", out.stdout)
        old = compare(self.write("c.json", self.uncontrolled()), self.write("d.json", base))
        self.assertIn("DIFFERS: not recorded in A", lines_of(old, "global", "uniform")[0])
        self.assertEqual(compare(self.write("e.json", base), self.write("f.json", base)).stdout.count("DIFFERS"), 0)


if __name__ == "__main__":
    unittest.main()
