"""Bins placement: every counting kernel's median time as its bins
move past a 2 MiB boundary, per input and toolchain, from the placement run.

A series is one kernel x input x toolchain over the offsets; its best and
worst offsets are those of the lowest and highest median (the lowest offset
on a tie). A kernel x input shows a placement effect when some toolchain's
worst median exceeds its best by more than the reports' band.
"""
import math
from dataclasses import dataclass
from functools import reduce

from plots import stats
from plots import table as fmt
from plots.results import is_control, is_timed, kernel_label, median_ms, requested_offset, roles
from plots.table import Table

EXPERIMENT = "placement"
BINS = 256
PERIOD_TOLERANCE = 0.25  # of a series' range: a shift that moves no median further maps the series onto itself


@dataclass(frozen=True)
class Series:
    kernel: str
    input: str
    toolchain: str
    rows: dict          # {bins offset: row}, ascending offsets

    @property
    def control(self):
        return is_control(next(iter(self.rows.values())))

    @property
    def roles(self):
        return roles(next(iter(self.rows.values())))

    def medians(self):
        return {o: median_ms(r) for o, r in self.rows.items()}

    def band(self, pct):
        return {o: stats.percentile(r["samples_ms"], pct) for o, r in self.rows.items()}

    @property
    def best(self):
        medians = self.medians()
        return min(medians, key=lambda o: (medians[o], o))

    @property
    def worst(self):
        medians = self.medians()
        return max(medians, key=lambda o: (medians[o], -o))

    @property
    def spread(self):
        """Worst median over best."""
        medians = self.medians()
        return medians[self.worst] / medians[self.best]

    def shows_effect(self, band=stats.DEFAULT_BAND):
        return self.spread > band

    def period(self, band=stats.DEFAULT_BAND):
        """The smallest shift, in multiples of the sweep's step and at most half its span, that moves no
        median by more than PERIOD_TOLERANCE of the series' range; None for a flat series or where none does."""
        if not self.shows_effect(band):
            return None
        medians, offsets = self.medians(), list(self.rows)
        step, tolerance = sweep_step(offsets), PERIOD_TOLERANCE * (medians[self.worst] - medians[self.best])
        for shift in range(step, (offsets[-1] - offsets[0]) // 2 + 1, step):
            moves = [abs(medians[o] - medians[o + shift]) for o in offsets if o + shift in medians]
            if moves and max(moves) <= tolerance:
                return shift
        return None


def sweep_step(offsets):
    """The spacing of the offsets swept (their differences' greatest common divisor)."""
    return reduce(math.gcd, (b - a for a, b in zip(offsets, offsets[1:])), 0)


def placement_rows(run):
    """Timed GPU rows of the placement experiment that count (the read floors write no bins)."""
    return [r for r in run.rows if r["experiment"] == EXPERIMENT and r["backend"] == "cuda" and is_timed(r)
            and r["impl"] != r["floor_impl"]]


def all_series(run):
    """[Series] in row order of kernel and input, toolchains in the run's order."""
    grouped = {}
    for row in placement_rows(run):
        key = (kernel_label(row), row["input"], row["toolchain"])
        grouped.setdefault(key, {})[requested_offset(row)] = row
    cases, toolchains = list(dict.fromkeys(k[:2] for k in grouped)), run.toolchains()
    keys = sorted(grouped, key=lambda k: (cases.index(k[:2]), toolchains.index(k[2])))
    return [Series(*key, dict(sorted(grouped[key].items()))) for key in keys]


def find_series(run, kernel, input, toolchain):
    return next((s for s in all_series(run) if (s.kernel, s.input, s.toolchain) == (kernel, input, toolchain)), None)


@dataclass(frozen=True)
class Effect:
    """One kernel x input: its series under every toolchain."""
    kernel: str
    input: str
    series: list

    @property
    def roles(self):
        return self.series[0].roles

    def shown(self, band=stats.DEFAULT_BAND):
        return any(s.shows_effect(band) for s in self.series)

    def showing(self, band=stats.DEFAULT_BAND):
        return [s for s in self.series if s.shows_effect(band)]

    def periods(self, band=stats.DEFAULT_BAND):
        return sorted({s.period(band) for s in self.showing(band)}, key=lambda p: (p is None, p))

    def period(self, band=stats.DEFAULT_BAND):
        """The period of every toolchain showing the effect, or None."""
        periods = self.periods(band)
        return periods[0] if len(periods) == 1 else None

    def agreed(self, attribute, band=stats.DEFAULT_BAND):
        """The offset ('best', 'worst') of every toolchain showing the effect, modulo the period where there
        is one (512 and 1,536 are one place with a period of 1,024); None where they differ."""
        period = self.period(band)
        values = {getattr(s, attribute) % period if period else getattr(s, attribute) for s in self.showing(band)}
        return values.pop() if len(values) == 1 else None

    def where(self, offset, band=stats.DEFAULT_BAND):
        """'512 mod 1,024', or '512' without a period."""
        period = self.period(band)
        return f"{offset:,} mod {period:,}" if period else f"{offset:,}"


def effects(run):
    """[Effect] per kernel x input, in the series' order."""
    found = {}
    for s in all_series(run):
        found.setdefault((s.kernel, s.input), []).append(s)
    return [Effect(kernel, input, series) for (kernel, input), series in found.items()]


def bins_bytes(run, kernel):
    """The bytes of one kernel's bins: 256 counters of the rows' counter width."""
    row = next(r for r in placement_rows(run) if kernel_label(r) == kernel)
    return BINS * row["policy"]["counter_bits"] // 8


def offsets_of(run):
    return sorted({requested_offset(r) for r in placement_rows(run)})


def _offset_ms(series, offset):
    return f"{offset:,} ({fmt.ms(series.medians()[offset])})"


def _periods_cell(effect, band):
    return ", ".join("none found" if p is None else f"{p:,}" for p in effect.periods(band)) or fmt.MISSING


def _agreed_cell(effect, attribute, band):
    offset = effect.agreed(attribute, band)
    return fmt.MISSING if offset is None else effect.where(offset, band)


def summary_table(run, band=stats.DEFAULT_BAND):
    rows = []
    for e in effects(run):
        spreads = [s.spread for s in e.series]
        rows.append([e.kernel, e.input, f"{len(e.showing(band))} of {len(e.series)}", _agreed_cell(e, "best", band),
                     _agreed_cell(e, "worst", band), f"{fmt.ratio(min(spreads), 2)}..{fmt.ratio(max(spreads), 2)}",
                     _periods_cell(e, band)])
    notes = [f"Toolchains showing it: worst median over best above {band:.2f}x. Period: the smallest shift of the "
             f"bins that moves no median by more than {PERIOD_TOLERANCE:.0%} of the series' range (worst minus best), "
             "per toolchain showing the effect. "
             "Best, worst: the offset of the lowest and highest median, modulo the period, where every toolchain "
             "showing the effect agrees (- where none shows it or they differ; the full table has each)."]
    return Table(f"Bins placement, summary: {run.name}", ["kernel", "input", "toolchains showing it",
                                                           "best offset", "worst offset", "worst/best",
                                                           "period, bytes"], rows, notes, align="llrrrrr")


def offsets_table(run):
    offsets = offsets_of(run)
    rows = [[s.kernel, s.input, s.toolchain] + [fmt.ms(s.medians().get(o)) for o in offsets]
            + [_offset_ms(s, s.best), _offset_ms(s, s.worst), fmt.ratio(s.spread, 2)] for s in all_series(run)]
    size = placement_rows(run)[0]["size"]
    notes = [f"Median ms of the samples at each bins offset (bytes past a 2 MiB boundary), {size:,} bytes per input; "
             "best, worst: the offset of the lowest and highest median (the lowest offset on a tie), its ms in "
             "brackets."]
    return Table(f"Bins placement: median ms by bins offset ({run.name})",
                 ["kernel", "input", "toolchain"] + [f"{o:,}" for o in offsets] + ["best", "worst", "worst/best"],
                 rows, notes, align="lll" + "r" * (len(offsets) + 3))


def placement_tables(run, not_yet):
    if run is None:
        return [Table("Bins placement", ["kernel", "input", "toolchain"], [], [not_yet])]
    return [summary_table(run), offsets_table(run)]
