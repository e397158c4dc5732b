"""Hot against cold samples, from two runs of the same cases: hot
samples run back to back, so an input no larger than the GPU's L2 can be
partly served from it; cold samples follow a flush of the L2, so each reads
its input from DRAM."""
from dataclasses import dataclass

from plots import stats
from plots import table as fmt
from plots.environment import gpu_fact
from plots.results import case_key, is_control, is_timed, kernel_label, median_ms
from plots.table import Table

L2_KEY = "l2_cache_bytes"   # the GPU record's L2 size
MIB = 1 << 20


@dataclass(frozen=True)
class CachePair:
    hot: dict
    cold: dict
    comparison: stats.Comparison    # hot samples over cold

    @property
    def size(self):
        return self.hot["size"]


def _rows(run):
    return {(case_key(r), r["toolchain"]): r for r in run.rows
            if r["backend"] == "cuda" and is_timed(r) and not is_control(r)}


def cache_pairs(hot_run, cold_run):
    """[CachePair] of every case both runs timed, in the hot run's row order."""
    cold = _rows(cold_run)
    return [CachePair(h, cold[key], stats.compare_samples(cold[key]["samples_ms"], h["samples_ms"]))
            for key, h in _rows(hot_run).items() if key in cold]


@dataclass(frozen=True)
class HotCold:
    hot: object         # the hot run
    cold: object        # the cold run
    pairs: list         # [CachePair]
    l2: object          # the GPU's L2 in bytes, or None where its record gives none

    def fits(self, size):
        """Whether `size` bytes fit the L2; None where its size is not recorded."""
        return None if self.l2 is None else size <= self.l2


def model(hot_run, cold_run):
    pairs = cache_pairs(hot_run, cold_run)
    found = gpu_fact(hot_run, pairs[0].hot["toolchain"], L2_KEY) if pairs else None
    return HotCold(hot_run, cold_run, pairs, int(found) if found else None)


def mib(size):
    return f"{size / MIB:,.1f} MiB"


def hot_cold_table(m, not_yet):
    """The table of a HotCold model; one saying `not_yet` for None."""
    if m is None:
        return Table("Hot against cold samples", ["kernel", "input", "size"], [], [not_yet])
    rows = [[kernel_label(p.hot), p.hot["toolchain"], p.hot["input"], f"{p.size:,}",
             {True: "yes", False: "no", None: fmt.MISSING}[m.fits(p.size)], fmt.ms(median_ms(p.hot)),
             fmt.ms(median_ms(p.cold)), fmt.ratio(p.comparison.ratio, 3),
             fmt.interval(p.comparison.ci_low, p.comparison.ci_high)] for p in m.pairs]
    notes = [f"hot: {m.hot.name}; cold: {m.cold.name}; ms: median of the samples; hot/cold: ratio of the "
             f"medians with its {stats.CONFIDENCE:.0%} bootstrap interval (below 1: hot is faster).",
             "fits L2: the input's size against the GPU's L2 as its record gives it ("
             + (f"{m.l2:,} bytes, {mib(m.l2)})." if m.l2 else "not recorded).")]
    return Table("Hot against cold samples, median ms", ["kernel", "toolchain", "input", "bytes", "fits L2",
                                                          "hot ms", "cold ms", "hot/cold", "95% CI"],
                 rows, notes, align="lllrlrrrr")
