"""Issue 10's controls in the reports, on planted SYNTHETIC runs (written to temp, never data/): the version
report gives a verdict only where the A/A pair is the same; superseded runs feed no report; the placement
report finds the planted best and worst offsets; hot and cold pair by case."""
import csv
import pathlib
import tempfile
import unittest

from plots import hotcold, lesson, placement, selection, stats, versions
from plots.published import load_published
from plots.results import ResultError, Run, is_controlled, load_run
from plots.tests import fixtures, synthetic

UNCONTROLLED = "uncontrolled: each toolchain had its own bins buffer (issue 10)"


def cpu_doc():
    doc = fixtures.real_run_doc()
    if doc is None:
        raise unittest.SkipTest("no run file with CPU lesson and sweep rows in data/runs")
    return fixtures.cpu_only_doc(doc)


def lesson_run(**kwargs):
    return Run("synthetic.json", synthetic.gpu_run(cpu_doc(), with_blocks=False, experiments=("lesson",), **kwargs))


def found(run, impl, input, pair=("nvrtc 12.6.85", "nvrtc 13.0.88")):
    return next(c for c in versions.comparisons(run, *pair) if (c.base["impl"], c.base["input"]) == (impl, input))


class VersionVerdicts(unittest.TestCase):
    def test_a_verdict_where_the_a_a_pair_is_same(self):
        c = found(lesson_run(), "sum_bytes", "uniform")   # planted: 1.5x slower under CUDA 13
        self.assertEqual(c.aa.verdict, stats.SAME)
        self.assertEqual(c.verdict, stats.SLOWER)
        self.assertEqual(found(lesson_run(), "global", "uniform").verdict, stats.SAME)

    def test_withheld_where_the_a_a_pair_differs(self):
        run = lesson_run(aa_factors={("sum_bytes", "uniform"): 1.3})
        c = found(run, "sum_bytes", "uniform")
        self.assertEqual(c.ab.verdict, stats.SLOWER)      # the A/B interval alone would say slower
        self.assertEqual(c.aa.verdict, stats.SLOWER)
        self.assertEqual(c.verdict, stats.WITHHELD_AA)
        self.assertEqual(found(run, "sum_bytes", "lesson_english").verdict, stats.SLOWER)   # its A/A is same

    def test_withheld_without_a_control(self):
        doc = synthetic.gpu_run(cpu_doc(), with_blocks=False, experiments=("lesson",))
        doc["rows"] = [r for r in doc["rows"] if not (r["control_of"] and r["impl"] == "global")]
        self.assertEqual(found(Run("x.json", doc), "global", "uniform").verdict, stats.WITHHELD_NO_AA)

    def test_the_table_shows_the_a_a_pair_and_the_rule(self):
        table = versions.comparison_table(lesson_run(aa_factors={("sum_bytes", "uniform"): 1.3}), "nvrtc 12.6.85",
                                          "nvrtc 13.0.88", None).markdown()
        line = next(l for l in table.splitlines() if l.startswith("| sum_bytes | uniform |"))
        self.assertIn("| 1.3", line)                       # the A/A ratio, beside the A/B one
        self.assertIn(f"| {stats.WITHHELD_AA} |", line)
        self.assertIn("given only where the A/A pair of the same kernel and input is same", table)
        self.assertIn("A/A: nvcc 13.0.88 (A/A control) over nvcc 13.0.88", table)


class Selection(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cpu = cpu_doc()

    def tearDown(self):
        self.tmp.cleanup()

    def data(self, runs, superseded=None):
        data = fixtures.data_dir(self.tmp.name, runs)
        if superseded is not None:
            with (data / "runs" / selection.SUPERSEDED_FILE).open("w", newline="") as f:
                csv.writer(f).writerows([selection.SUPERSEDED_COLUMNS] + superseded)
        return data / "runs"

    def test_superseded_and_uncontrolled_runs_feed_no_report(self):
        old = synthetic.gpu_run(self.cpu, with_blocks=False, controlled=False)
        runs = {"20990101T000000Z_old.json": old, "20990102T000000Z_unlisted.json": old,
                "20990103T000000Z_cpu.json": self.cpu}
        sel = selection.load(self.data(runs, [("20990101T000000Z_old.json", UNCONTROLLED)]), "data/runs/")
        self.assertEqual(sel.superseded, {"data/runs/20990101T000000Z_old.json": UNCONTROLLED})
        for pick in (sel.version, sel.placement, sel.perf, sel.hot):
            self.assertIsNone(pick)
        self.assertEqual(sel.versions, [])
        self.assertEqual(sel.lesson.path, "data/runs/20990103T000000Z_cpu.json")   # CPU runs stay usable
        self.assertEqual(sel.sweep.path, "data/runs/20990103T000000Z_cpu.json")
        self.assertEqual([r.path for r in sel.former_versions], ["data/runs/20990101T000000Z_old.json"])
        self.assertEqual([r.path for r in sel.unlisted_uncontrolled()], ["data/runs/20990102T000000Z_unlisted.json"])
        self.assertIn("not listed in superseded.csv", sel.unusable()["data/runs/20990102T000000Z_unlisted.json"])
        self.assertTrue(sel.reasons()["versions"].startswith(selection.NOT_YET))

    def test_controlled_runs_are_picked_by_content(self):
        runs = {"20990101T000000Z_a.json": synthetic.gpu_run(self.cpu, with_blocks=False),
                "20990102T000000Z_b.json": synthetic.placement_run(self.cpu),
                "20990103T000000Z_c.json": synthetic.cache_run(self.cpu, "hot"),
                "20990104T000000Z_d.json": synthetic.cache_run(self.cpu, "cold"),
                "20990105T000000Z_e.json": self.cpu}
        sel = selection.load(self.data(runs), "")
        self.assertEqual(sel.superseded, {})      # no csv: nothing superseded
        self.assertEqual([pathlib.Path(r.path).name for r in (sel.lesson, sel.version, sel.placement, sel.hot,
                                                               sel.cold)],
                         ["20990101T000000Z_a.json"] * 2 + [f"2099010{i}T000000Z_{n}.json" for i, n in
                                                             ((2, "b"), (3, "c"), (4, "d"))])

    def test_a_malformed_or_stale_csv_is_named(self):
        with self.assertRaises(ResultError) as caught:
            selection.load(self.data({"20990101T000000Z_cpu.json": self.cpu}, [("gone.json", "x")]), "data/runs/")
        self.assertIn("lists data/runs/gone.json", str(caught.exception))
        path = pathlib.Path(self.tmp.name) / "data" / "runs" / selection.SUPERSEDED_FILE
        path.write_text("name,why\n")
        with self.assertRaises(ResultError) as caught:
            selection.load(path.parent, "data/runs/")
        self.assertIn("data/runs/superseded.csv: the columns must be file,reason", str(caught.exception))

    def test_the_committed_csv_lists_every_uncontrolled_gpu_run(self):
        listed = selection.load_superseded(fixtures.RUNS)
        for path in sorted(fixtures.RUNS.glob("*.json")):
            run = load_run(path)
            if run.has_gpu_rows() and not is_controlled(run):
                self.assertEqual(listed.get(path.name), UNCONTROLLED, path.name)
            if not run.has_gpu_rows():
                self.assertNotIn(path.name, listed, "a CPU-only run is not superseded")


class Placement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.placed = Run("placement.json", synthetic.placement_run(cpu_doc()))

    def series(self, impl="global"):
        return [s for s in placement.all_series(self.placed) if s.kernel == impl]

    def test_the_planted_best_and_worst_offsets(self):
        for s in self.series():
            self.assertEqual((s.best, s.worst), (512, 0), s.toolchain)
            self.assertEqual(s.period(), 1024, s.toolchain)
            self.assertTrue(s.shows_effect())
        self.assertEqual(len(self.series()), 3)         # two toolchains and the A/A control
        self.assertFalse(any(s.shows_effect() for s in self.series("per_block")))
        self.assertTrue(all(s.period() is None for s in self.series("per_block")))

    def test_the_tables_show_them(self):
        summary, offsets = placement.placement_tables(self.placed, "unused")
        self.assertIn("| global | uniform | 3 of 3 | 512 mod 1,024 | 0 mod 1,024 |", summary.markdown())
        line = next(l for l in offsets.markdown().splitlines() if l.startswith("| global | uniform | nvcc 13.0.88 |"))
        self.assertIn("| 512 (8.", line)
        self.assertIn("| 0 (17.", line)

    def test_a_tie_goes_to_the_lowest_offset(self):
        row = self.series()[0].rows[0]
        flat = {o: dict(row, samples_ms=[1.0, 1.0, 1.0]) for o in (0, 128, 256)}
        s = placement.Series("global", "uniform", "t", flat)
        self.assertEqual((s.best, s.worst, s.spread), (0, 0, 1.0))

    def test_no_run_says_not_measured_yet(self):
        table, = placement.placement_tables(None, selection.Selection([]).reasons()["placement"])
        self.assertIn("not measured yet", table.markdown())

    def test_the_lesson_table_shows_global_at_the_best_and_worst_placement(self):
        data = pathlib.Path(fixtures.REPO / "data" / "published")
        run = lesson_run()
        tables = [t.markdown() for t in lesson.lesson_tables(run, load_published(data), self.placed)]
        text = next(t for t in tables if "global by bins placement: nvcc 13.0.88" in t)
        self.assertRegex(text, r"\| uniform \| 1[67]\.\d+ at 0 \| 0\.\d+ \| 512 \| 8\.\d+ \| [\d.]+x \| 0 \| 17\.")
        self.assertIn("placement.json, a different file from the lesson run synthetic.json", text)
        main = next(t for t in tables if t.startswith("**Lesson table: nvcc 13.0.88"))
        self.assertIn("bins 0 bytes past a 2 MiB boundary (0 mod 2 MiB)", main)


class HotCold(unittest.TestCase):
    def test_pairs_by_case_and_marks_what_fits_the_l2(self):
        cpu = cpu_doc()
        hot, cold = Run("hot.json", synthetic.cache_run(cpu, "hot")), Run("cold.json", synthetic.cache_run(cpu, "cold"))
        self.assertEqual((selection.cache_mode(hot), selection.cache_mode(cold)), ("hot", "cold"))
        table = hotcold.hot_cold_table(hot, cold, "unused").markdown()
        rows = [l for l in table.splitlines() if l.startswith("| per_block |")]
        self.assertEqual(len(rows), len(synthetic.CACHE_SIZES))
        self.assertIn("| 16,777,216 | yes |", rows[0])
        self.assertIn("| 0.800x |", rows[0])
        self.assertIn("| 67,109,475 | no |", rows[2])
        self.assertIn("62,914,560 bytes, 60.0 MiB", table)


class FormerFinding(unittest.TestCase):
    def test_the_earlier_ratio_is_read_from_the_superseded_run_and_checked_under_the_controls(self):
        from plots.tests.test_make_all import build
        cpu = cpu_doc()
        old = synthetic.gpu_run(cpu, with_blocks=False, controlled=False, experiments=("lesson",))
        for row in old["rows"]:   # the accident: one toolchain's bins lay at a fast place
            if (row["impl"], row["input"], row["toolchain"]) == ("global", "uniform", "nvrtc 12.6.85"):
                row["samples_ms"] = [x / 2 for x in row["samples_ms"]]
        with tempfile.TemporaryDirectory() as tmp:
            data = fixtures.data_dir(tmp, {"20990101T000000Z_old.json": old,
                                           "20990102T000000Z_new.json": synthetic.gpu_run(cpu, with_blocks=False),
                                           "20990103T000000Z_placement.json": synthetic.placement_run(cpu)})
            (data / "runs" / selection.SUPERSEDED_FILE).write_text(
                f"file,reason\n20990101T000000Z_old.json,{UNCONTROLLED}\n")
            build(data, pathlib.Path(tmp) / "paper")
            paper = (pathlib.Path(tmp) / "paper" / "paper.md").read_text()
            versions_md = (pathlib.Path(tmp) / "paper" / "tables" / "versions.md").read_text()
        earlier = versions.headline(Run("old.json", old)).ab.ratio
        self.assertAlmostEqual(earlier, 2.0, delta=0.05)
        self.assertIn(f"**The earlier {earlier:.2f}x.**", paper)
        self.assertIn("superseded nvrtc 12.6.85 time lies within 1.05x of its medians at offsets 512, 1,536", paper)
        self.assertIn("; the difference vanished.", paper)
        self.assertNotIn("20990101T000000Z_old", versions_md)   # no version table reads the superseded run


if __name__ == "__main__":
    unittest.main()
