"""plots/sizes.py: the size sweep's model, targets, table and figure on small SYNTHETIC sizes runs with planted
numbers (written to temp, never data/), and the selection of the sizes run."""
import pathlib
import tempfile
import unittest

from plots import figures, lesson, make_all, models, perf, selection, sizes
from plots import table as fmt
from plots.published import load_published
from plots.results import ResultError, Run
from plots.tests import fixtures, synthetic
from plots.tests.test_make_all import build, png_inches

MIB = 1 << 20
# The lesson's size, as the published lesson records it (never typed here).
LESSON = models.lesson_size(lesson.baseline_source(load_published(fixtures.DATA / "published")))
SIZES = (MIB, LESSON, 1024 * MIB)
INPUTS = sizes.LESSON_SIZE_INPUTS
THEORETICAL = 4000.0


def planted(subject_at_lesson=21.5):
    """Medians, us: the floor at 5, 20 and 250 us; the subject 1.0 us over it at 1 MiB, `subject_at_lesson` at the
    lesson's size, 2.0 us over it at 1 GiB; the peer at 9, 30 and 400 us. The same on every input."""
    us = {}
    for input in INPUTS:
        for size, floor, subject, peer in zip(SIZES, (5.0, 20.0, 250.0), (6.0, subject_at_lesson, 252.0),
                                              (9.0, 30.0, 400.0)):
            us.update({("floor", input, size): floor, ("subject", input, size): subject,
                       ("peer", input, size): peer})
    return us


def sizes_doc(us=None, **kwargs):
    return synthetic.sizes_run(fixtures.cpu_doc_or_skip(), planted() if us is None else us, **kwargs)


def model(doc=None, lesson_size=LESSON):
    return sizes.model(Run("20990101T000000Z_sizes.json", doc or sizes_doc(theoretical_gbps=THEORETICAL)),
                       lesson_size)


def verdicts(m):
    return {(c.requirement.split()[0], c.input, c.size): c.verdict for c in m.checks}


class Model(unittest.TestCase):
    def test_each_figure_from_the_planted_numbers(self):
        m = model()
        self.assertEqual((m.inputs, m.sizes), (list(INPUTS), list(SIZES)))
        self.assertEqual(m.names, {"floor": "read_floor", "subject": "lane_shared", "peer": "cub"})
        p = m.points[("uniform", MIB)]
        low, high = synthetic.SIZES_SPREAD[0], synthetic.SIZES_SPREAD[-1]
        self.assertAlmostEqual(p.floor.median_us, 5.0)
        self.assertAlmostEqual(p.floor.p10_us, 5.0 * (low + (synthetic.SIZES_SPREAD[1] - low) * 0.4))
        self.assertTrue(p.floor.p10_us < p.floor.median_us < p.floor.p90_us < 5.0 * high)
        s, b = p.kernels["subject"], p.kernels["peer"]
        self.assertAlmostEqual(s.median_us, 6.0)
        self.assertAlmostEqual(s.gbps, MIB / 6e-6 / 1e9)
        self.assertAlmostEqual(s.pct_of_floor, 100 * 5 / 6)
        self.assertAlmostEqual(s.gap_us, 1.0)
        self.assertAlmostEqual(s.over_peer, 9 / 6)
        self.assertIsNone(b.over_peer)                      # the peer against itself: no ratio
        self.assertAlmostEqual(b.pct_of_floor, 100 * 5 / 9)
        self.assertAlmostEqual(p.theoretical_us, MIB / (THEORETICAL * 1e9) * 1e6)
        self.assertAlmostEqual(p.floor_pct_of_theoretical, 100 * (MIB / 5e-6 / 1e9) / THEORETICAL)
        self.assertEqual([size for size, _ in m.series("one_byte", "peer")], list(SIZES))

    def test_kernels_are_found_by_role_not_by_name(self):
        names = {"floor": "reads_only", "subject": "fold_once", "peer": "library"}
        m = model(sizes_doc(names=names))
        self.assertEqual(m.names, names)
        self.assertAlmostEqual(m.points[("uniform", LESSON)].kernels["subject"].median_us, 21.5)
        self.assertIn("| within 1.5 us of reads_only |", sizes.target_table(m).markdown())

    def test_without_a_theoretical_bandwidth_or_a_floor(self):
        us = {k: v for k, v in planted().items() if k != ("floor", "one_byte", MIB)}
        m = model(sizes_doc(us, theoretical_gbps=None))
        self.assertIsNone(m.theoretical_gbps)
        self.assertIsNone(m.points[("uniform", MIB)].theoretical_us)
        p = m.points[("one_byte", MIB)]
        self.assertIsNone(p.floor)
        self.assertIsNone(p.kernels["subject"].gap_us)
        self.assertEqual(verdicts(m)[("within", "one_byte", MIB)], perf.NOT_HERE)
        self.assertIn("not recorded in the run", sizes.sweep_table(m).markdown())


class Targets(unittest.TestCase):
    def test_verdicts_on_the_planted_numbers(self):
        v = verdicts(model())
        for input in INPUTS:
            self.assertEqual(v[("within", input, MIB)], perf.MET)             # 1.0 us over the floor
            self.assertEqual(v[("within", input, LESSON)], perf.MET)          # 1.5 us: the bound itself meets it
            self.assertEqual(v[("within", input, 1024 * MIB)], perf.NOT_MET)  # 2.0 us
            self.assertEqual(v[(">=", input, LESSON)], perf.MET)
        ratios = [c for c in model().checks if c.unit == "ratio"]
        self.assertEqual([c.input for c in ratios], list(INPUTS))
        self.assertTrue(all(c.verdict == perf.MET and abs(c.measured - 30 / 21.5) < 1e-9 for c in ratios))
        self.assertEqual(perf.overall(model().checks), perf.NOT_MET)

    def test_the_checks_flip_when_the_numbers_change(self):
        # 23 us: 87.0% of the floor (not met), 1.304x the peer (met); 23.2 us: 1.293x (not met); 21.51: 1.51 us over
        by_kind = lambda m: {(c.unit, c.verdict) for c in m.checks if c.size == LESSON}  # noqa: E731
        self.assertEqual(by_kind(model(sizes_doc(planted(23.0)))),
                         {(perf.GAP_UNIT, perf.NOT_MET), ("pct", perf.NOT_MET), ("ratio", perf.MET)})
        self.assertEqual(by_kind(model(sizes_doc(planted(23.2)))),
                         {(perf.GAP_UNIT, perf.NOT_MET), ("pct", perf.NOT_MET), ("ratio", perf.NOT_MET)})
        self.assertEqual(by_kind(model(sizes_doc(planted(21.51)))),
                         {(perf.GAP_UNIT, perf.NOT_MET), ("pct", perf.MET), ("ratio", perf.MET)})

    def test_every_target_met(self):
        us = planted()
        us.update({("subject", i, 1024 * MIB): 251.0 for i in INPUTS})
        m = model(sizes_doc(us))
        self.assertEqual(perf.overall(m.checks), perf.MET)
        self.assertIn("All targets: met.", sizes.target_table(m).markdown())

    def test_a_lesson_size_the_sweep_lacks_is_not_measurable(self):
        m = model(lesson_size=LESSON + 1)
        lesson_checks = [c for c in m.checks if c.size == LESSON + 1]
        self.assertEqual(len(lesson_checks), 2 * len(INPUTS))
        self.assertTrue(all(c.verdict == perf.NOT_HERE for c in lesson_checks))
        self.assertEqual(perf.overall(m.checks), perf.NOT_HERE)

    def test_a_gap_is_a_most_and_the_worst_check_is_furthest_from_it(self):
        gap = lambda us: perf.Check("gap", "uniform", us, 1.5, perf.GAP_UNIT, MIB)  # noqa: E731
        self.assertEqual([gap(us).verdict for us in (-0.2, 1.5, 1.51, None)],
                         [perf.MET, perf.MET, perf.NOT_MET, perf.NOT_HERE])
        self.assertEqual(perf.worst([gap(1.0), gap(4.0), gap(None), gap(2.0)]).measured, 4.0)
        pct = lambda v: perf.Check("pct", "uniform", v, 90.0, "pct")  # noqa: E731
        self.assertEqual(perf.worst([pct(95.0), pct(82.0), pct(91.0)]).measured, 82.0)
        self.assertIsNone(perf.worst([gap(None)]))


class Table(unittest.TestCase):
    def test_the_table_shows_the_spread_and_the_checks_the_numbers(self):
        m = model()
        text = sizes.sweep_table(m).markdown()
        floor = m.points[("uniform", MIB)].floor
        line = next(l for l in text.splitlines() if l.startswith(f"| uniform | {fmt.size_words(MIB)} |"))
        self.assertIn(f"| {floor.median_us:,.2f} ({floor.p10_us:,.2f}..{floor.p90_us:,.2f}) |", line)
        self.assertIn("| 1.00 |", line)                     # the subject's gap, us
        self.assertIn("| 1.50x |", line)                    # over the peer
        targets = sizes.target_table(m).markdown()
        self.assertIn(f"| >= 90% of floor | lesson_english | {fmt.size_words(LESSON)} | 93.0% | 90% | met |", targets)
        self.assertIn(f"| within 1.5 us of read_floor | one_byte | {fmt.size_words(1024 * MIB)} | 2.00 us | 1.5 us "
                      "| not met |", targets)


class Selection(unittest.TestCase):
    def test_the_newest_sizes_run_is_chosen_and_a_run_without_sizes_rows_cannot_be(self):
        cpu = fixtures.cpu_doc_or_skip()
        runs = [Run("20990101T000000Z_sizes.json", sizes_doc()), Run("20990103T000000Z_sizes.json", sizes_doc()),
                Run("20990104T000000Z_lesson.json", synthetic.gpu_run(cpu, with_blocks=False)),
                Run("20990105T000000Z_cpu.json", cpu)]
        self.assertEqual(selection.by_content(runs).sizes.path, "20990103T000000Z_sizes.json")
        with tempfile.TemporaryDirectory() as tmp:
            data = fixtures.data_dir(tmp, {r.path: r.doc for r in runs},
                                     manifest=[("20990104T000000Z_lesson.json", "sizes", "x")])
            with self.assertRaises(ResultError) as caught:
                selection.load(data, "data/")
        self.assertIn("cannot be the sizes run: it holds no GPU sizes rows", str(caught.exception))

    def test_the_paper_reads_the_manifests_sizes_run(self):
        sel = selection.load(fixtures.DATA, "data/")
        self.assertTrue(sel.sizes.has_gpu_rows(sizes.EXPERIMENT))
        self.assertTrue(sel.why[(sel.sizes.path, "sizes")])


class Rendered(unittest.TestCase):
    """make_all on a data directory with a synthetic sizes run, and on one without."""

    def test_the_report_and_the_figure(self):
        cpu = fixtures.cpu_doc_or_skip()
        with tempfile.TemporaryDirectory() as tmp:
            data = fixtures.data_dir(tmp, {"20990101T000000Z_cpu.json": cpu,
                                           "20990102T000000Z_sizes.json": sizes_doc(planted(23.0))})
            out = pathlib.Path(tmp) / "paper"
            build(data, out)
            report = (out / "reports" / "performance.md").read_text()
            self.assertIn("## The GPU at every size", report)
            self.assertIn("data/runs/20990102T000000Z_sizes.json", (out / make_all.SOURCES).read_text().splitlines())
            self.assertIn(">= 90% of floor, 3 cases: **not met** (0 met; furthest from it: 87.0% on uniform", report)
            self.assertIn("](../figures/sizes.png)", report)
            for suffix, limit in (("", figures.COLUMN), ("-wide", figures.FULL)):
                for ext in ("png", "svg", "pdf"):
                    self.assertGreater((out / "figures" / f"sizes{suffix}.{ext}").stat().st_size, 1000)
                self.assertLessEqual(png_inches(out / "figures" / f"sizes{suffix}.png")[0], limit + 0.01)
            svg = (out / "figures" / "sizes-wide.svg").read_text()
            self.assertIn(f"the theoretical memory bandwidth ({THEORETICAL:,.0f} GB/s)", svg)

    def test_without_a_sizes_run_the_report_says_so(self):
        cpu = fixtures.cpu_doc_or_skip()
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "paper"
            build(fixtures.data_dir(tmp, {"20990101T000000Z_cpu.json": cpu}), out)
            self.assertIn("The size sweep: not measured yet: data/paper-runs.csv names no run with GPU sizes rows.",
                          (out / "reports" / "performance.md").read_text())
            self.assertFalse((out / "figures" / "sizes.png").exists())


if __name__ == "__main__":
    unittest.main()
