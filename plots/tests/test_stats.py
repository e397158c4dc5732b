"""plots.stats on cases whose answers are known."""
import pathlib
import unittest

import numpy as np

from plots import selection, stats

REPO = pathlib.Path(__file__).resolve().parents[2]


class Percentiles(unittest.TestCase):
    def test_linear_interpolation_between_ranks(self):
        # rank = pct/100 * (n - 1), as study/driver/stats.cpp computes it
        self.assertEqual(stats.percentile([4, 1, 3, 2], 50), 2.5)
        self.assertAlmostEqual(stats.percentile([1, 2, 3, 4], 10), 1.3)
        self.assertAlmostEqual(stats.percentile([1, 2, 3, 4], 90), 3.7)
        self.assertEqual(stats.median([7.0]), 7.0)

    def test_agrees_with_the_summaries_histostudy_wrote(self):
        runs = selection.load(REPO / "data").runs   # the paper's: a user's own runs change no test
        rows = [r for run in runs for r in run.rows if r["samples_ms"]]
        if not rows:
            self.skipTest("no run file in data/runs")
        for row in rows:
            for pct, key in ((50, "median"), (10, "p10"), (90, "p90")):
                self.assertAlmostEqual(stats.percentile(row["samples_ms"], pct), row["summary_ms"][key], places=9)


class Bootstrap(unittest.TestCase):
    base = [10.0 + 0.1 * i for i in range(20)]

    def test_is_deterministic(self):
        slower = [x * 1.5 for x in self.base]
        self.assertEqual(stats.bootstrap_ratio_ci(self.base, slower), stats.bootstrap_ratio_ci(self.base, slower))

    def test_interval_holds_the_true_ratio(self):
        low, high = stats.bootstrap_ratio_ci(self.base, [x * 2 for x in self.base])
        self.assertLess(low, 2.0 + 1e-9)
        self.assertGreater(high, 2.0 - 1e-9)
        self.assertGreater(low, 1.8)
        self.assertLess(high, 2.2)

    def test_identical_samples_give_an_interval_around_one(self):
        low, high = stats.bootstrap_ratio_ci(self.base, self.base)
        self.assertLessEqual(low, 1.0)
        self.assertGreaterEqual(high, 1.0)


class FastMedians(unittest.TestCase):
    """The bootstrap takes its resamples' medians from draw counts: the same intervals as the textbook bootstrap."""

    @staticmethod
    def textbook(base, new):
        rng = np.random.Generator(np.random.PCG64(stats.SEED))
        base, new = np.asarray(base, dtype=float), np.asarray(new, dtype=float)
        medians = [np.median(side[rng.integers(0, len(side), (stats.RESAMPLES, len(side)))], axis=1)
                   for side in (base, new)]
        tail = (1 - stats.CONFIDENCE) / 2 * 100
        return tuple(float(x) for x in np.percentile(medians[1] / medians[0], [tail, 100 - tail]))

    def test_the_same_intervals_as_resampling_the_values(self):
        draw = np.random.default_rng(7)
        sizes = [(1, 1), (2, 3), (27, 27), (54, 12), (255, 256), (300, 40)]   # odd, even, past a byte's count
        for n_base, n_new in sizes:
            for decimals in (0, 3):   # many ties, few
                base = np.round(draw.lognormal(size=n_base), decimals) + 0.5
                new = np.round(draw.lognormal(size=n_new), decimals) + 0.5
                with self.subTest(sizes=(n_base, n_new), decimals=decimals):
                    self.assertEqual(stats.bootstrap_ratio_ci(base, new), self.textbook(base, new))


class MannWhitney(unittest.TestCase):
    def test_separated_samples_are_significant(self):
        self.assertLess(stats.mann_whitney_p(list(range(10)), list(range(100, 110))), 0.001)

    def test_identical_samples_are_not(self):
        self.assertEqual(stats.mann_whitney_p([1.0] * 5, [1.0] * 5), 1.0)
        self.assertGreater(stats.mann_whitney_p([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]), 0.5)


class Verdicts(unittest.TestCase):
    def test_rules(self):
        self.assertEqual(stats.verdict(1.2, 1.3, band=1.1), stats.SLOWER)
        self.assertEqual(stats.verdict(0.7, 0.8, band=1.1), stats.FASTER)
        self.assertEqual(stats.verdict(0.98, 1.02, band=1.1), stats.SAME)
        self.assertEqual(stats.verdict(1.05, 1.2, band=1.1), stats.AMBIGUOUS)   # straddles the upper edge
        self.assertEqual(stats.verdict(0.5, 2.0, band=1.1), stats.AMBIGUOUS)    # too wide to tell

    def test_comparison_of_a_planted_slowdown(self):
        base = [10.0 + 0.05 * i for i in range(20)]
        c = stats.compare_samples(base, [x * 1.5 for x in base], band=1.1)
        self.assertAlmostEqual(c.ratio, 1.5)
        self.assertEqual(c.verdict, stats.SLOWER)

    def test_too_few_samples_give_no_verdict(self):
        self.assertEqual(stats.compare_samples([1.0, 1.0], [5.0, 5.0]).verdict, stats.AMBIGUOUS)


if __name__ == "__main__":
    unittest.main()
