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


def all_series(rows, toolchains):
    """[Series] of placement rows, in row order of kernel and input, `toolchains` in the run's order."""
    grouped = {}
    for row in rows:
        key = (kernel_label(row), row["input"], row["toolchain"])
        grouped.setdefault(key, {})[requested_offset(row)] = row
    cases = list(dict.fromkeys(k[:2] for k in grouped))
    keys = sorted(grouped, key=lambda k: (cases.index(k[:2]), toolchains.index(k[2])))
    return [Series(*key, dict(sorted(grouped[key].items()))) for key in keys]


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


def effects_of(series):
    """[Effect] per kernel x input, in the series' order."""
    found = {}
    for s in series:
        found.setdefault((s.kernel, s.input), []).append(s)
    return [Effect(kernel, input, group) for (kernel, input), group in found.items()]


@dataclass(frozen=True)
class PlacementModel:
    """The placement run's series and effects, computed once."""
    run: object
    rows: list          # placement_rows
    series: list        # [Series]
    effects: list       # [Effect]
    offsets: list       # every bins offset swept, ascending

    @property
    def step(self):
        return sweep_step(self.offsets)

    def find(self, kernel, input, toolchain):
        return next((s for s in self.series if (s.kernel, s.input, s.toolchain) == (kernel, input, toolchain)), None)

    def bins_bytes(self, kernel):
        """The bytes of one kernel's bins: 256 counters of the rows' counter width."""
        row = next(r for r in self.rows if kernel_label(r) == kernel)
        return BINS * row["policy"]["counter_bits"] // 8


def model(run):
    """The PlacementModel of a run with placement rows."""
    rows = placement_rows(run)
    series = all_series(rows, run.toolchains())
    return PlacementModel(run, rows, series, effects_of(series), sorted({requested_offset(r) for r in rows}))


# ---- the tables ----

def where(effect, offset, band=stats.DEFAULT_BAND):
    """'512 mod 1,024', or '512' without a period."""
    period = effect.period(band)
    return f"{offset:,} mod {period:,}" if period else f"{offset:,}"


def _offset_ms(series, offset):
    return f"{offset:,} ({fmt.ms(series.medians()[offset])})"


def _periods_cell(effect, band):
    return ", ".join("none found" if p is None else f"{p:,}" for p in effect.periods(band)) or fmt.MISSING


def _agreed_cell(effect, attribute, band):
    offset = effect.agreed(attribute, band)
    return fmt.MISSING if offset is None else where(effect, offset, band)


def summary_table(m, band=stats.DEFAULT_BAND):
    rows = []
    for e in m.effects:
        spreads = [s.spread for s in e.series]
        rows.append([e.kernel, e.input, f"{len(e.showing(band))} of {len(e.series)}", _agreed_cell(e, "best", band),
                     _agreed_cell(e, "worst", band), f"{fmt.ratio(min(spreads), 2)}..{fmt.ratio(max(spreads), 2)}",
                     _periods_cell(e, band)])
    notes = [f"Toolchains showing it: worst median over best above {band:.2f}x. Period: the smallest shift of the "
             f"bins that moves no median by more than {PERIOD_TOLERANCE:.0%} of the series' range (worst minus best), "
             "per toolchain showing the effect. "
             "Best, worst: the offset of the lowest and highest median, modulo the period, where every toolchain "
             "showing the effect agrees (- where none shows it or they differ; the full table has each)."]
    return Table(f"Bins placement, summary: {m.run.name}", ["kernel", "input", "toolchains showing it",
                                                             "best offset", "worst offset", "worst/best",
                                                             "period, bytes"], rows, notes, align="llrrrrr")


def offsets_table(m):
    rows = [[s.kernel, s.input, s.toolchain] + [fmt.ms(s.medians().get(o)) for o in m.offsets]
            + [_offset_ms(s, s.best), _offset_ms(s, s.worst), fmt.ratio(s.spread, 2)] for s in m.series]
    notes = [f"Median ms of the samples at each bins offset (bytes past a 2 MiB boundary), {m.rows[0]['size']:,} bytes "
             "per input; best, worst: the offset of the lowest and highest median (the lowest offset on a tie), its ms "
             "in brackets."]
    return Table(f"Bins placement: median ms by bins offset ({m.run.name})",
                 ["kernel", "input", "toolchain"] + [f"{o:,}" for o in m.offsets] + ["best", "worst", "worst/best"],
                 rows, notes, align="lll" + "r" * (len(m.offsets) + 3))


def placement_tables(m, not_yet):
    """The summary and the full table of a PlacementModel; one table saying `not_yet` for None."""
    if m is None:
        return [Table("Bins placement", ["kernel", "input", "toolchain"], [], [not_yet])]
    return [summary_table(m), offsets_table(m)]
