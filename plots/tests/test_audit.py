"""The regression audit (python3 -m plots.audit, what ./dev audit runs) on SYNTHETIC runs written to temp: a run
against itself passes; a planted slowdown fails; a failed bin check, a missing row fail first; toolchains pair by
kind across versions; a row is judged only against its own noise; bad files and closed outputs end in one line."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

from plots.tests import fixtures, synthetic

FIRST = synthetic.TOOLCHAINS[0]


def audit(*args, stdout=subprocess.PIPE):
    return subprocess.run([sys.executable, "-m", "plots.audit", *map(str, args)], cwd=fixtures.REPO,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300)


def lines_of(out, impl, input, toolchain=FIRST):
    """The table lines of lesson rows of impl on input under toolchain."""
    return [line for line in out.stdout.splitlines()
            if line.startswith("lesson ") and line.split()[:2] == ["lesson", impl] and f" {toolchain} " in line and f" {input} " in line]


def copy(doc):
    return json.loads(json.dumps(doc))


def scaled(doc, factor, impl="per_block", input="uniform", toolchains=(FIRST, synthetic.control(FIRST))):
    """doc with the lesson samples of impl on input under `toolchains` scaled by `factor`."""
    doc = copy(doc)
    for row in doc["rows"]:
        if (row["experiment"], row["impl"], row["input"]) == ("lesson", impl, input) and row["toolchain"] in toolchains:
            row["samples_ms"] = [x * factor for x in row["samples_ms"]]
    return synthetic.resummarized(doc)


def relabeled(doc, old, new):
    """doc with toolchain `old` renamed `new` everywhere (another build of the same kernels)."""
    return json.loads(json.dumps(doc).replace(f'"{old}', f'"{new}'))


def failed(doc, impl="per_block", input="uniform", toolchain=FIRST):
    """doc with that row's bin check failed, saved as the study saves one: no samples."""
    doc = copy(doc)
    for row in doc["rows"]:
        if (row["experiment"], row["impl"], row["input"], row["toolchain"]) == ("lesson", impl, input, toolchain):
            row["check"] = {"passed": False, "detail": "bin 101: 17 != 18"}
            row["samples_ms"] = []
            row["sample_log"] = {"ms": [], "position": [], "clock_mhz": [], "throttled": []}
    return doc


class Audit(unittest.TestCase):
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

    def gpu_only(self, doc):
        doc = copy(doc)
        doc["rows"] = [r for r in doc["rows"] if r["backend"] == "cuda"]
        return doc

    def assertOneLine(self, out, status, *words):
        self.assertEqual(out.returncode, status, (out.stdout or "") + out.stderr)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)
        self.assertNotIn("Traceback", out.stderr)
        for word in words:
            self.assertIn(word, out.stderr)

    # ---- verdicts ----

    def test_a_run_against_itself_reports_no_regression(self):
        path = self.write("a.json", self.gpu_run())
        out = audit(path, path)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("none: both environments are recorded identically", out.stdout)
        self.assertIn("No regression", out.stdout)

    def test_a_planted_slowdown_fails(self):
        doc = self.gpu_run()
        out = audit(self.write("a.json", doc), self.write("b.json", scaled(doc, 1.5)), "--threshold", "1.10")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        slower = [line for line in out.stdout.splitlines() if line.endswith("SLOWER")]
        self.assertEqual(len(slower), 1, out.stdout)
        self.assertIn("per_block", slower[0])
        self.assertIn("1.500x", slower[0])
        self.assertIn("REGRESSION: 1 rows are slower beyond 1.10x", out.stdout)

    def test_narrowing_leaves_the_slow_row_out(self):
        doc = self.gpu_run()
        out = audit(self.write("a.json", doc), self.write("b.json", scaled(doc, 1.5)), "--impl", "global,cub")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_environment_changes_are_listed_by_kind(self):
        doc = self.gpu_run()
        moved = copy(doc)
        moved["environment"]["host"]["hostname"] = "another-host"
        moved["environment"]["executors"][0]["describe"]["compiler"] = "a newer compiler"
        out = audit(self.write("a.json", doc), self.write("moved.json", moved))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("  host:\n    environment.host.hostname:", out.stdout)
        self.assertIn("a newer compiler", out.stdout)

    # ---- wrong counts and missing rows fail first ----

    def test_a_failed_check_in_b_fails_and_is_named_first(self):
        doc = self.gpu_run()
        out = audit(self.write("a.json", doc), self.write("b.json", failed(doc)))
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        first = next(line for line in out.stdout.splitlines() if line.startswith(("CHECK FAILED", "Rows measured")))
        self.assertTrue(first.startswith("CHECK FAILED in B (b.json): lesson per_block"), first)
        self.assertIn("bin 101: 17 != 18", first)
        self.assertIn("REGRESSION: 1 rows failed their bin check", out.stdout)
        self.assertNotIn("MISSING", out.stdout)   # named as a failed check, not as a missing row

    def test_a_failed_check_in_a_fails_too(self):
        doc = self.gpu_run()
        out = audit(self.write("a.json", failed(doc, impl="global", input="prose")), self.write("b.json", doc))
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("CHECK FAILED in A (a.json): lesson global", out.stdout)

    def test_a_failed_check_of_an_a_a_control_fails(self):
        doc = self.gpu_run()
        out = audit(self.write("a.json", doc), self.write("b.json", failed(doc, toolchain=synthetic.control(FIRST))))
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("(A/A control)", next(line for line in out.stdout.splitlines() if line.startswith("CHECK")))

    def test_rows_missing_from_b_fail_unless_narrowed(self):
        doc = self.gpu_run()
        fewer = copy(doc)
        fewer["rows"] = [r for r in fewer["rows"] if r["impl"] != "per_warp"]
        a, b = self.write("a.json", doc), self.write("b.json", fewer)
        out = audit(a, b)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("rows of A MISSING from B", out.stdout)
        self.assertIn("lesson per_warp (nvcc 13.0.88): 4 rows, on uniform, lesson_english, prose, one_byte", out.stdout)
        self.assertIn("are missing from B", out.stdout)
        narrowed = audit(a, b, "--impl", "global,per_block,cub")
        self.assertEqual(narrowed.returncode, 0, narrowed.stdout + narrowed.stderr)

    # ---- pairing ----

    def test_nvcc_12_against_nvcc_13_pairs_and_is_judged(self):
        doc = self.gpu_only(self.gpu_run())
        old = relabeled(doc, "nvcc 13.0.88", "nvcc 12.6.85")
        out = audit(self.write("a.json", old), self.write("b.json", scaled(doc, 1.5)), "--threshold", "1.10")
        self.assertIn("nvcc 12.6.85 -> nvcc 13.0.88 (by kind: nvcc)", out.stdout)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        line, = lines_of(out, "per_block", "uniform", "nvcc 12.6.85 -> nvcc 13.0.88")
        self.assertTrue(line.endswith("SLOWER"), line)
        same = audit(self.write("c.json", old), self.write("d.json", doc))
        self.assertEqual(same.returncode, 0, same.stdout + same.stderr)
        self.assertNotIn("not judged", lines_of(same, "global", "uniform", "nvcc 12.6.85 -> nvcc 13.0.88")[0])

    def test_runs_that_pair_nothing_cannot_pass(self):
        doc = self.gpu_only(self.gpu_run())
        other = relabeled(relabeled(relabeled(doc, "nvcc 13.0.88", "clang 19.1"), "nvrtc 12.6.85", "hipcc 6.1"),
                          "nvrtc 13.0.88", "hipcc 6.2")
        out = audit(self.write("a.json", doc), self.write("b.json", other), "--toolchain", "nvcc 13.0.88")
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertIn("CANNOT JUDGE: no row in common", out.stdout)
        self.assertIn("No row pairs", out.stdout)

    # ---- noise ----

    def test_an_a_a_pair_that_differs_leaves_the_row_not_judged(self):
        base = self.gpu_run()
        noisy = self.gpu_run(seed=5, aa_factors={("per_block", "uniform"): 1.3})
        out = audit(self.write("a.json", base), self.write("b.json", scaled(noisy, 1.5)), "--threshold", "1.10")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)   # the only slow row is not judged
        line, = lines_of(out, "per_block", "uniform")
        self.assertIn("1.500x", line)
        self.assertTrue(line.endswith("not judged"), line)
        self.assertIn("per_block 1024x256 nvcc 13.0.88 uniform 67,109,475 B: noise outside the band: A/A in B",
                      out.stdout)
        self.assertTrue(lines_of(out, "global", "uniform")[0].endswith("same"))

    def test_a_slowdown_with_same_a_a_pairs_still_fails(self):
        base = self.gpu_run()
        out = audit(self.write("a.json", base), self.write("b.json", scaled(base, 1.5)), "--threshold", "1.10")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertTrue(lines_of(out, "per_block", "uniform")[0].endswith("SLOWER"))

    def test_uncontrolled_gpu_rows_are_judged_against_their_read_floor(self):
        base = self.gpu_run(controlled=False)
        out = audit(self.write("a.json", base), self.write("b.json", scaled(base, 1.5)), "--threshold", "1.10")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("read floor read_floor", lines_of(out, "per_block", "uniform")[0])
        slow_machine = base
        for impl in ("per_block", "read_floor"):
            slow_machine = scaled(slow_machine, 1.5, impl=impl)
        out = audit(self.write("c.json", base), self.write("d.json", slow_machine), "--threshold", "1.10")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertTrue(lines_of(out, "per_block", "uniform")[0].endswith("not judged"))

    def test_cpu_noise_without_control_is_not_a_regression(self):
        doc = self.gpu_run()
        noisy = copy(doc)
        for row in noisy["rows"]:
            if row["backend"] == "cpu" and row["input"] == "uniform":  # a busy host: the whole rotation slower
                row["samples_ms"] = [x * (1.7 if row["impl"] == "openmp_private" else 1.4) for x in row["samples_ms"]]
                row["host_load"] = {"seconds": 2.0, "cores": 2, "other_processes_cpu_s": 1.6, "steal_s": 0.2,
                                    "loadavg_1m": [3.1, 3.4]}
        out = audit(self.write("a.json", doc), self.write("b.json", synthetic.resummarized(noisy)))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        line = next(line for line in out.stdout.splitlines() if line.startswith("lesson")
                    and " openmp_private " in line and " uniform " in line)
        self.assertTrue(line.endswith("not judged"), line)
        self.assertIn("load 3.4, others 0.8 cores, steal 5%", line)
        self.assertIn("read floor openmp_read_floor", line)
        cpu_only = audit(self.write("c.json", self.cpu), self.write("d.json", self.gpu_only_cpu(noisy)),
                         "--input", "uniform")
        self.assertEqual(cpu_only.returncode, 2, cpu_only.stdout + cpu_only.stderr)
        self.assertIn("CANNOT JUDGE: no row could be judged", cpu_only.stdout)

    def gpu_only_cpu(self, doc):
        doc = copy(doc)
        doc["rows"] = [r for r in doc["rows"] if r["backend"] == "cpu"]
        doc["environment"] = self.cpu["environment"]
        return doc

    # ---- one run, two toolchains ----

    def test_between_two_toolchains_of_one_run(self):
        doc = self.gpu_only(self.gpu_run())
        slow = scaled(doc, 1.5, toolchains=("nvrtc 13.0.88",))
        path = self.write("run.json", slow)
        out = audit(path, "--between", "12.6", "13.0", "--threshold", "1.10")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("Compared within one run: nvrtc 12.6.85 (A) against nvrtc 13.0.88 (B)", out.stdout)
        line, = lines_of(out, "per_block", "uniform", "nvrtc 12.6.85 -> nvrtc 13.0.88")
        self.assertIn("A/A in the run", line)
        self.assertTrue(line.endswith("SLOWER"), line)
        back = audit(path, "--between", "nvrtc-13.0", "nvrtc 12.6.85", "--threshold", "1.10")
        self.assertEqual(back.returncode, 0, back.stdout + back.stderr)
        self.assertTrue(lines_of(back, "per_block", "uniform", "nvrtc 13.0.88 -> nvrtc 12.6.85")[0].endswith("faster"))
        self.assertOneLine(audit(path, "--between", "12.6", "12.9"), 2, "no toolchain '12.9'", "nvrtc 12.6.85")
        self.assertOneLine(audit(path, "--between", "12.6", "nvrtc 12.6.85"), 2, "the same toolchain")

    def test_between_names_a_failed_check_of_the_new_toolchain(self):
        path = self.write("run.json", failed(self.gpu_only(self.gpu_run()), toolchain="nvrtc 13.0.88"))
        out = audit(path, "--between", "12.6", "13.0")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("CHECK FAILED in the run (run.json): lesson per_block 1024x256 nvrtc 13.0.88 uniform", out.stdout)

    # ---- unusable input and outputs: one line, exit 2 ----

    def test_bad_files_exit_2_naming_them(self):
        bad = pathlib.Path(self.dir.name) / "bad.json"
        bad.write_text('{"format": "nope"}')
        self.assertOneLine(audit(self.write("a.json", self.gpu_run()), bad), 2, str(bad))

    def test_absurd_times_are_refused_naming_the_row(self):
        doc = self.gpu_run()
        row = next(n for n, r in enumerate(doc["rows"]) if r["backend"] == "cuda")
        for value in ("1e308", "1e400", "NaN", "-0.5", "0.0"):
            path = pathlib.Path(self.dir.name) / "bad.json"
            bad = copy(doc)
            bad["rows"][row]["samples_ms"][0] = 123.456789
            path.write_text(json.dumps(bad).replace("123.456789", value))
            for args in ((self.write("a.json", doc), path), (path, self.write("a.json", doc))):
                out = audit(*args)
                self.assertOneLine(out, 2, str(path))
                if value not in ("1e400", "NaN"):
                    self.assertIn(f"rows[{row}].samples_ms[0]", out.stderr)

    def test_deep_nesting_is_one_line(self):
        deep = pathlib.Path(self.dir.name) / "deep.json"
        deep.write_text("[" * 100_000 + "]" * 100_000)
        self.assertOneLine(audit(self.write("a.json", self.gpu_run()), deep), 2, "nested too deeply")

    def test_a_closed_pipe_ends_quietly_with_the_verdict(self):
        doc = self.gpu_run()
        a, b = self.write("a.json", doc), self.write("b.json", scaled(doc, 1.5))
        proc = subprocess.Popen([sys.executable, "-m", "plots.audit", str(a), str(b)], cwd=fixtures.REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.readline()
        proc.stdout.close()
        status = proc.wait(timeout=300)
        self.assertEqual(status, 1)   # the verdict, not a crash
        self.assertEqual(proc.stderr.read(), b"")
        proc.stderr.close()

    def test_a_full_disk_is_one_line_not_a_verdict(self):
        path = self.write("a.json", self.gpu_run())
        with open("/dev/full", "w") as full:
            out = audit(path, path, stdout=full)
        self.assertOneLine(out, 2, "cannot write the report", "No space left on device")

    def test_thresholds_must_be_finite_and_above_one(self):
        path = self.write("a.json", self.gpu_run())
        for bad in ("nan", "inf", "1e400", "-inf", "1", "0.9", "abc"):
            out = audit(path, path, "--threshold", bad)
            self.assertEqual(out.returncode, 2, bad)
            self.assertIn("--threshold", out.stderr, bad)

    def test_an_incomplete_run_is_compared_with_a_one_line_warning(self):
        doc = self.gpu_run()
        cut = copy(doc)
        cut["incomplete"] = {"error": "cannot write runs/: disk full"}
        out = audit(self.write("a.json", doc), self.write("cut.json", cut))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        warning, = out.stderr.strip().splitlines()
        self.assertIn("cut.json is incomplete", warning)
        self.assertIn("disk full", warning)

    def test_a_placement_difference_is_flagged(self):
        base = self.gpu_run()
        moved = copy(base)
        for row in moved["rows"]:
            if row["impl"] == "global" and row["input"] == "uniform" and row["placement"]:
                row["placement"]["bins_mod_2mib"] = 512
        out = audit(self.write("a.json", base), self.write("b.json", moved))
        self.assertIn("PLACEMENT: ", out.stdout)
        self.assertIn("lesson global 1024x256 nvcc 13.0.88 uniform", out.stdout)
        self.assertNotIn("PLACEMENT", audit(self.write("e.json", base), self.write("f.json", base)).stdout)


if __name__ == "__main__":
    unittest.main()
