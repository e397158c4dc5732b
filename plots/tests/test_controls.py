"""The study's controls in the reports, on planted SYNTHETIC runs (written to temp, never data/): the version
report gives a verdict only where the A/A pair is the same; the paper reads only the runs its manifest names,
never an incomplete, superseded or uncontrolled one; the placement report finds the planted best and worst
offsets; hot and cold pair by case."""
import csv
import pathlib
import tempfile
import unittest

from plots import hotcold, lesson, placement, selection, stats, versions
from plots.published import load_published
from plots.results import ResultError, Run
from plots.tests import fixtures, synthetic

UNCONTROLLED = "uncontrolled: each toolchain had its own bins buffer"


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
        doc["rows"] = [r for r in doc["rows"] if not (r.get("control_of") and r["impl"] == "global")]
        self.assertEqual(found(Run("x.json", doc), "global", "uniform").verdict, stats.WITHHELD_NO_AA)

    def test_the_table_shows_the_a_a_pair_and_the_rule(self):
        pair = versions.pair_model(lesson_run(aa_factors={("sum_bytes", "uniform"): 1.3}), "nvrtc 12.6.85",
                                   "nvrtc 13.0.88", None)
        table = versions.comparison_table(pair).markdown()
        line = next(l for l in table.splitlines() if l.startswith("| sum_bytes | uniform |"))
        self.assertIn("| 1.3", line)                       # the A/A ratio, beside the A/B one
        self.assertIn(f"| {stats.WITHHELD_AA} |", line)
        self.assertIn("given only where the A/A pair of the same kernel and input is same", table)
        self.assertIn("A/A: nvcc 13.0.88 (A/A control) over nvcc 13.0.88", table)


class Selection(unittest.TestCase):
    """The paper reads exactly the runs its manifest names, each checked against its role."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cpu = cpu_doc()
        self.runs = {"20990101T000000Z_a.json": synthetic.gpu_run(self.cpu, with_blocks=False),
                     "20990102T000000Z_b.json": synthetic.placement_run(self.cpu),
                     "20990103T000000Z_c.json": synthetic.cache_run(self.cpu, "hot"),
                     "20990104T000000Z_d.json": synthetic.cache_run(self.cpu, "cold"),
                     "20990105T000000Z_e.json": self.cpu}

    def tearDown(self):
        self.tmp.cleanup()

    def data(self, runs, manifest, superseded=None):
        data = fixtures.data_dir(tempfile.mkdtemp(dir=self.tmp.name), runs, manifest=manifest)
        if superseded is not None:
            with (data / "runs" / selection.SUPERSEDED_FILE).open("w", newline="") as f:
                csv.writer(f).writerows([selection.SUPERSEDED_COLUMNS] + superseded)
        return data

    def rejected(self, runs, manifest, *words, superseded=None):
        with self.assertRaises(ResultError) as caught:
            selection.load(self.data(runs, manifest, superseded), "data/")
        for word in words:
            self.assertIn(word, str(caught.exception))

    def test_the_runs_named_and_only_those(self):
        manifest = [("20990101T000000Z_a.json", "lesson", "why a"), ("20990101T000000Z_a.json", "versions", "why"),
                    ("20990102T000000Z_b.json", "placement", "why b"), ("20990103T000000Z_c.json", "hot", "why c"),
                    ("20990104T000000Z_d.json", "cold", "why d")]
        runs = dict(self.runs, **{"20990199T000000Z_newer.json": synthetic.gpu_run(self.cpu, with_blocks=False)})
        sel = selection.load(self.data(runs, manifest), "data/")
        self.assertEqual([pathlib.Path(r.path).name for r in (sel.lesson, sel.version, sel.placement, sel.hot,
                                                               sel.cold)],
                         ["20990101T000000Z_a.json"] * 2 + [f"2099010{i}T000000Z_{n}.json" for i, n in
                                                             ((2, "b"), (3, "c"), (4, "d"))])
        self.assertNotIn("data/runs/20990199T000000Z_newer.json", [r.path for r in sel.runs])
        self.assertEqual(sel.why[("data/runs/20990102T000000Z_b.json", "placement")], "why b")
        self.assertTrue(sel.missing("perf").startswith("not measured yet: data/paper-runs.csv names no run"))

    def test_files_that_are_no_run_are_ignored_unless_named(self):
        data = self.data(self.runs, [("20990101T000000Z_a.json", "lesson", "why")])
        (data / "runs" / "20990106T000000Z_broken.json").write_text('{"format": "histostudy-result", "sch')
        self.assertEqual(len(selection.load(data, "data/").runs), 1)
        with (data / selection.MANIFEST_FILE).open("a") as f:
            f.write("20990106T000000Z_broken.json,sweep,x\n")
        with self.assertRaises(ResultError) as caught:
            selection.load(data, "data/")
        self.assertIn("data/runs/20990106T000000Z_broken.json", str(caught.exception))

    def test_a_run_that_does_not_fit_its_role_is_named(self):
        self.rejected(self.runs, [("20990105T000000Z_e.json", "placement", "x")],
                      "data/paper-runs.csv, line 2", "cannot be the placement run: it holds no GPU placement rows")
        self.rejected(self.runs, [("20990101T000000Z_a.json", "lesson", "x"), ("20990101T000000Z_a.json", "lesson", "")],
                      "line 3", "named twice as lesson")
        self.rejected(self.runs, [("20990101T000000Z_a.json", "favourite", "x")], "unknown role 'favourite'")
        self.rejected(self.runs, [("gone.json", "lesson", "x")], "data/runs/gone.json", "cannot read")
        hot_other = dict(self.runs, **{"20990107T000000Z_f.json": synthetic.placement_run(self.cpu)})
        self.rejected(hot_other, [("20990103T000000Z_c.json", "hot", "x"), ("20990107T000000Z_f.json", "cold", "x")],
                      "holds none of the cases of the hot run 20990103T000000Z_c.json")

    def test_incomplete_superseded_and_uncontrolled_runs_never_feed_the_paper(self):
        incomplete = dict(self.runs["20990101T000000Z_a.json"], incomplete={"error": "disk full"})
        old = synthetic.gpu_run(self.cpu, with_blocks=False, controlled=False)
        runs = dict(self.runs, **{"20990108T000000Z_cut.json": incomplete, "20990109T000000Z_old.json": old})
        self.rejected(runs, [("20990108T000000Z_cut.json", "lesson", "x")], "it is incomplete", "disk full",
                      "never feeds the paper")
        self.rejected(runs, [("20990109T000000Z_old.json", "lesson", "x")], "lack the study's controls")
        self.rejected(runs, [("20990109T000000Z_old.json", "lesson", "x")], "is superseded (uncontrolled",
                      superseded=[("20990109T000000Z_old.json", UNCONTROLLED)])

    def test_a_malformed_or_stale_superseded_csv_is_named(self):
        self.rejected(self.runs, [], "lists gone.json", superseded=[("gone.json", "x")])
        data = self.data(self.runs, [])
        (data / "runs" / selection.SUPERSEDED_FILE).write_text("name,why\n")
        with self.assertRaises(ResultError) as caught:
            selection.load(data, "data/")
        self.assertIn("data/runs/superseded.csv: the columns must be file,reason", str(caught.exception))

    def test_the_committed_manifest_fills_every_role(self):
        sel = selection.load(fixtures.DATA, "data/")   # loading checks each run against its role
        # The peers role waits for its first GPU run (docs/peers.md): the report says "not measured yet" till then.
        awaiting = {selection.PEERS} - set(sel.roles)
        self.assertEqual(set(sel.roles), set(selection.ROLES) - awaiting)


class ByContent(unittest.TestCase):
    """A user's own runs: each role's newest fitting run; incomplete and uncontrolled ones left out, said why."""

    def test_newest_by_name_with_numbered_names_of_one_second(self):
        cpu = cpu_doc()
        names = ["20990101T000000Z_x.json", "20990101T000000Z_x-002.json", "20990101T000000Z_x-010.json"]
        runs = [Run(name, synthetic.placement_run(cpu)) for name in reversed(names)]
        self.assertEqual(selection.by_content(runs).placement.path, "20990101T000000Z_x-010.json")

    def test_incomplete_and_uncontrolled_runs_are_left_out_and_named(self):
        cpu = cpu_doc()
        good = synthetic.gpu_run(cpu, with_blocks=False)
        runs = [Run("20990101T000000Z_good.json", good),
                Run("20990102T000000Z_cut.json", dict(good, incomplete={"error": "killed"})),
                Run("20990103T000000Z_old.json", synthetic.gpu_run(cpu, with_blocks=False, controlled=False))]
        sel = selection.by_content(runs, "your runs")
        self.assertEqual(sel.lesson.path, "20990101T000000Z_good.json")
        self.assertIn("incomplete: the run stopped on an error (killed)", sel.left_out["20990102T000000Z_cut.json"])
        self.assertIn("lack the study's controls", sel.left_out["20990103T000000Z_old.json"])
        self.assertEqual(sel.missing("perf"), "not measured in these runs: none of your runs holds GPU perf rows.")


class Placement(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.placed = placement.model(Run("placement.json", synthetic.placement_run(cpu_doc())))

    def series(self, impl="global"):
        return [s for s in self.placed.series if s.kernel == impl]

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
        table, = placement.placement_tables(None, selection.Selection({}).missing("placement"))
        self.assertIn("not measured yet", table.markdown())

    def test_the_lesson_table_shows_global_at_the_best_and_worst_placement(self):
        data = pathlib.Path(fixtures.REPO / "data" / "published")
        run = lesson_run()
        tables = [t.markdown() for t in lesson.lesson_tables(lesson.model(run, load_published(data), self.placed))]
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
        table = hotcold.hot_cold_table(hotcold.model(hot, cold), "unused").markdown()
        rows = [l for l in table.splitlines() if l.startswith("| per_block |")]
        self.assertEqual(len(rows), len(synthetic.CACHE_SIZES))
        self.assertIn("| 16,777,216 | yes |", rows[0])
        self.assertIn("| 0.800x |", rows[0])
        self.assertIn("| 67,109,475 | no |", rows[2])
        self.assertIn("62,914,560 bytes, 60.0 MiB", table)


if __name__ == "__main__":
    unittest.main()
