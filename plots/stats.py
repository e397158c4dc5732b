"""Statistics for timing samples: medians, percentiles, intervals, verdicts.

A comparison is always "new over base" of medians, so a ratio above 1 means
the new case is slower. Everything is deterministic: the bootstrap draws
from a numpy Generator with a fixed seed, so the same samples give the same
interval on every machine with the same numpy.
"""
import functools
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

SEED = 12345            # the bootstrap's; any fixed value makes reports repeatable
RESAMPLES = 10_000      # bootstrap resamples; the interval's ends move < 1% between seeds
CONFIDENCE = 0.95
MIN_SAMPLES = 3         # fewer samples than this on either side: no verdict
DEFAULT_BAND = 1.05     # reports: changes within 5% either way count as "same"

FASTER, SLOWER, SAME, AMBIGUOUS = "faster", "slower", "same", "ambiguous"
WITHHELD_AA = "withheld (A/A not same)"
WITHHELD_NO_AA = "withheld (no A/A control)"


def percentile(samples, pct):
    """Linear interpolation between closest ranks: numpy's default, and the
    formula of study/driver/stats.cpp (rank = pct/100 * (n - 1))."""
    return _percentile(tuple(samples), pct)


@functools.lru_cache(maxsize=None)
def _percentile(samples, pct):
    """percentile, kept: the reports ask for each row's median many times."""
    return float(np.percentile(np.asarray(samples, dtype=float), pct))


def median(samples):
    return percentile(samples, 50)


def bootstrap_ratio_ci(base, new, confidence=CONFIDENCE, resamples=RESAMPLES, seed=SEED):
    """Percentile-bootstrap interval of median(new) / median(base).

    Each side is resampled with replacement on its own (the runs are
    independent), `resamples` times, and the interval is the central
    `confidence` share of the resampled ratios."""
    base, new = np.asarray(base, dtype=float), np.asarray(new, dtype=float)
    base_counts, new_counts = _resample_counts((len(base), len(new)), resamples, seed)
    ratios = _resampled_medians(new, new_counts) / _resampled_medians(base, base_counts)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(low), float(high)


@functools.lru_cache(maxsize=16)
def _resample_counts(sizes, resamples, seed):
    """For samples of these sizes, resampled in turn from one seeded generator: how often each resample draws
    each index, a (resamples, size) array per sample. They depend on the sizes only, so every comparison of the
    same sizes shares them: the draws cost more than the medians."""
    rng = np.random.Generator(np.random.PCG64(seed))
    out = []
    for n in sizes:
        rows = rng.integers(0, n, (resamples, n)) + n * np.arange(resamples)[:, None]
        out.append(np.bincount(rows.ravel(), minlength=resamples * n).reshape(resamples, n)
                   .astype(np.min_scalar_type(n)))
    return tuple(out)


def _resampled_medians(sample, counts):
    """np.median of each resample of `sample` that `counts` describes, without building the resamples: in sorted
    order, the k-th smallest value of a resample is the first whose running count of draws passes k. The same
    values as np.median, a fifth of its time."""
    n = len(sample)
    order = np.argsort(sample, kind="stable")
    ranked = sample[order]
    drawn = counts[:, order].cumsum(axis=1, dtype=counts.dtype)
    kth = lambda k: ranked[(drawn <= k).sum(axis=1)]
    return kth(n // 2) if n % 2 else (kth(n // 2 - 1) + kth(n // 2)) / 2


def mann_whitney_p(base, new):
    """Two-sided Mann-Whitney U p-value: are the two sample sets shifted?
    1.0 when every sample is equal (no evidence of a shift)."""
    if len(set(base) | set(new)) == 1:
        return 1.0
    return float(scipy_stats.mannwhitneyu(new, base, alternative="two-sided").pvalue)


def verdict(ci_low, ci_high, band=DEFAULT_BAND):
    """Faster / slower / same / ambiguous for an interval of new/base times.

    Rules, with the equivalence band [1/band, band] around 1:
      slower     the whole interval lies above band (ci_low > band)
      faster     the whole interval lies below 1/band (ci_high < 1/band)
      same       the whole interval lies inside the band
      ambiguous  the interval straddles an edge of the band: the data cannot
                 tell a change of that size from noise
    """
    if ci_low > band:
        return SLOWER
    if ci_high < 1 / band:
        return FASTER
    if ci_low >= 1 / band and ci_high <= band:
        return SAME
    return AMBIGUOUS


@dataclass(frozen=True)
class Comparison:
    base_median: float
    new_median: float
    ratio: float        # new_median / base_median
    ci_low: float
    ci_high: float
    p_value: float      # Mann-Whitney, shown beside the interval
    verdict: str
    n_base: int
    n_new: int


def compare_samples(base, new, band=DEFAULT_BAND):
    """Ratio of medians, its bootstrap interval and a verdict.
    Fewer than MIN_SAMPLES on either side gives 'ambiguous', whatever the ratio."""
    return _compare(tuple(base), tuple(new), band)


@functools.lru_cache(maxsize=None)
def _compare(base, new, band):
    """compare_samples, kept: the reports ask for the same pairs many times, and the bootstrap is the cost."""
    base_median, new_median = median(base), median(new)
    ratio = new_median / base_median
    low, high = bootstrap_ratio_ci(base, new)
    enough = min(len(base), len(new)) >= MIN_SAMPLES
    return Comparison(base_median, new_median, ratio, low, high, mann_whitney_p(base, new),
                      verdict(low, high, band) if enough else AMBIGUOUS, len(base), len(new))


def guarded_verdict(comparison, controls):
    """The A/B verdict where every A/A comparison in `controls` (a toolchain
    against its own repeat, same case, same run) is SAME; else withheld. An A/A
    pair that differs shows a difference no toolchain made, so no A/B
    difference of the same run can be told from it. None: no control."""
    if any(c is None for c in controls):
        return WITHHELD_NO_AA
    if any(c.verdict != SAME for c in controls):
        return WITHHELD_AA
    return comparison.verdict
