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

from plots import hotcold, pages, stats
from plots import table as fmt
from plots.document import FigureBlock, Heading, Para, Part, TableBlock
from plots.results import is_control, is_timed, kernel_label, median_ms, requested_offset, roles, sampling_words
from plots.selection import cache_mode
from plots.table import Table, value_range

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


def placement_intro(p):
    return (f"Every GPU toolchain of a run adds into one bins buffer, which the placement run moved from "
            f"{p.offsets[0]:,} to {p.offsets[-1]:,} bytes past a 2 MiB boundary in steps of {p.step:,}.")


def placement_effect(g):
    """What one GPU's placement run shows of global atomics on uniform bytes (its models.PlacementSummary), in a
    sentence."""
    s = g.placement_summary.head
    if s is None:
        return f" On {g.label}, global atomics on uniform bytes were not placed."
    period = s.period()
    return (f" On {g.label}, global atomics on uniform bytes run {fmt.ratio(s.spread, 2)} slower with the bins at "
            f"{s.worst:,} than at {s.best:,}" + (f", the pattern repeating every {period:,} bytes" if period else "")
            + ".")


def placement_prose(placed, unplaced=()):
    """The first placement run's sweep, then what each GPU's shows, and why the GPUs `unplaced` show none."""
    heads = [g.placement_summary.head for g in placed if g.placement_summary.head]
    if len(placed) > 1 and len(heads) == len(placed):   # the table below gives each GPU's offsets
        text = placement_intro(placed[0].placement) + (
            f" Global atomics on uniform bytes run {value_range([s.spread for s in heads], 2, 'x')} slower at the "
            "worst offset than at the best on " + fmt.and_list(g.label for g in placed) + ".")
    else:
        text = placement_intro(placed[0].placement) + "".join(placement_effect(g) for g in placed)
    text += "".join(f" On {g.label}: {g.missing('placement')}" for g in unplaced)
    gaps = [g.placement_summary.gap for g in placed if g.placement_summary.gap is not None]
    if gaps:
        text += (f" The other toolchains and the A/A control lie within {100 * max(gaps):.1f}% of the figure's "
                 "curves.")
    return text + (" So global atomics compare across builds, drivers or GPUs only with the bins at one offset: "
                   "every row records its offset, and toolchains are compared on one buffer. Why the offset matters "
                   "is not measured ([the placement report](reports/placement.md) says what is conjecture).")


def placement_table(gpus):
    """The placement effect on each GPU with a placement run: its size and period."""
    rows = []
    for g in gpus:
        summary, s = g.placement_summary, g.placement_summary.head
        at = lambda o: f"{o:,} ({fmt.ms(s.medians()[o])})"  # noqa: E731
        rows.append([g.label, summary.toolchain] + ([at(s.best), at(s.worst), fmt.ratio(s.spread, 2),
                                                     f"{s.period():,}" if s.period() else "none found"]
                                                    if s else [fmt.MISSING] * 4)
                    + [value_range(summary.others.get(i, []), 2, "x") for i in ("lesson_english", "one_byte")]
                    + [fmt.ratio(summary.merging, 2)])
    return Table("Where the bins lie, on each GPU", [
        "GPU", "toolchain", "global atomics on uniform: best offset (ms)", "worst offset (ms)", "worst/best",
        "period, bytes", "on lesson_english: worst/best", "on one_byte", "merging kernels: worst/best at most"], rows,
        ["Offsets in bytes past a 2 MiB boundary; medians under the run's first toolchain; the other inputs and the "
         "merging kernels over every toolchain."], align="ll" + "r" * 7)


def placement_section(m):
    blocks = [Heading("Where the bins lie")]
    placed = [g for g in m.own if g.placement]
    if not placed:
        return blocks + [Para(f"Bins placement: {m.missing('placement')}")]
    lines = m.placement_lines
    merging = ", ".join(dict.fromkeys(impl for impl, *_ in lines.panels[1][1]))
    shown = [g for g in m.gpus if g.index in lines.gpus]
    colours = "; a colour per GPU, a marker per kernel, the first GPU drawn wider to show a curve repeated" \
        if len(shown) > 1 else ""
    return blocks + [Para(placement_prose(placed, [g for g in m.own if not g.placement])),
                     TableBlock(placement_table(shown), "placement", wide=True),
                     FigureBlock("placement", 0, f"Median time of each kernel at each bins offset over its time at "
                                                 f"its fastest offset, {lines.toolchain}: global atomics on three "
                                                 f"inputs; the kernels that merge per-block copies into the bins "
                                                 f"({merging}) on uniform bytes{colours}.",
                                 pages.runs_words(g.placement.run.path for g in shown))]


def _effect_sentence(e):
    showing = e.showing()
    best, worst = e.agreed("best"), e.agreed("worst")
    if best is not None and worst is not None:
        fastest, slowest = ([s.medians()[getattr(s, end)] for s in showing] for end in ("best", "worst"))
        place = (f"fastest with the bins at {where(e, best)} ({value_range(fastest, 3, ' ms')}), "
                 f"slowest at {where(e, worst)} ({value_range(slowest, 3, ' ms')})")
    else:
        place = "; ".join(f"{s.toolchain} fastest at {s.best:,} ({fmt.ms(s.medians()[s.best])} ms), slowest at "
                          f"{s.worst:,} ({fmt.ms(s.medians()[s.worst])} ms)" for s in showing)
    period = e.period()
    repeats = f"a period of {period:,} bytes" if period else "periods " + ", ".join(
        "none within the sweep" if p is None else f"{p:,} bytes" for p in e.periods())
    who = f"all {len(e.series)} toolchains show it, the A/A control included" if len(showing) == len(e.series) \
        else f"{len(showing)} of {len(e.series)} toolchains show it ({', '.join(s.toolchain for s in showing)})"
    return (f"{e.kernel} on {e.input}: {place}, worst over best "
            f"{value_range([s.spread for s in showing], 2, 'x')}, {repeats}; {who}.")


def _flat_words(found):
    """'a and b on every input; c on one_byte': the kernel x inputs without an effect."""
    inputs = list(dict.fromkeys(e.input for e in found))
    flat = {}
    for e in found:
        if not e.shown():
            flat.setdefault(e.kernel, []).append(e.input)
    everywhere = [k for k, on in flat.items() if len(on) == len(inputs)]
    parts = [f"{', '.join(everywhere)} on every input"] if everywhere else []
    parts += [f"{k} on {', '.join(on)}" for k, on in flat.items() if k not in everywhere]
    return "; ".join(parts)


def _conjecture(p, e):
    step = p.step
    size = p.bins_bytes(e.kernel)
    bits = size * 8 // BINS
    found = e.period()
    period = ""
    if found:
        period = (f" The period, {found:,} bytes, equals the bins' size: what matters is where the bins start "
                  f"within a {found:,}-byte window." if found == size else
                  f" The period, {found:,} bytes, is {found / size:g} times the bins' size.")
    return (f"What is conjecture: {e.kernel}'s bins are {BINS} counters of {bits} bits, {size:,} bytes, "
            f"so {size // step} lines of {step} bytes (the sweep's step, an L2 cache line).{period} One explanation, "
            "which this study does not test: the L2 is built of slices, grouped in partitions, each slice with its "
            "own atomic units, and an address hash picks each line's slice; at some offsets the bins' "
            f"{size // step} lines may fall on fewer slices, or on a farther partition, so the atomics of every SM "
            "queue behind fewer units. The study records no slice mapping and no per-slice counters, so that "
            "mechanism stays a conjecture; only the offsets and times above are measured.")


def report_prose(p):
    run, offsets, found, rows = p.run, p.offsets, p.effects, p.rows
    inputs = list(dict.fromkeys(r["input"] for r in rows))
    toolchains = list(dict.fromkeys(r["toolchain"] for r in rows))
    paras = [f"`{run.path}` placed the bins of every kernel that counts at {len(offsets)} offsets, {offsets[0]:,} to "
             f"{offsets[-1]:,} bytes past a 2 MiB boundary in steps of {p.step:,} bytes, on "
             f"{', '.join(inputs)} at {rows[0]['size']:,} bytes, under {', '.join(toolchains)}; "
             f"{sampling_words(rows)}."]
    shown = [e for e in found if e.shown()]
    none = f"no kernel's worst median exceeds its best by more than {stats.DEFAULT_BAND:.2f}x."
    text = "What is measured: " + (" ".join(_effect_sentence(e) for e in shown) if shown else none)
    flat = [s.spread for e in found if not e.shown() for s in e.series]
    if flat:
        text += (f" Within {stats.DEFAULT_BAND:.2f}x of their best at every offset, under every toolchain (worst "
                 f"over best at most {fmt.ratio(max(flat), 2)}): {_flat_words(found)}.")
    paras.append(text)
    if shown:
        paras.append(_conjecture(p, max(shown, key=lambda e: max(s.spread for s in e.series))))
    return [Para(p) for p in paras]


def hotcold_prose(g, missing):
    """Hot against cold on one GPU (models.GpuModels); missing(role): why a role has no run."""
    sel, h = g.gpu.sel, g.hotcold
    if h is None:
        return f"Hot against cold samples: {missing('hot' if sel.hot is None else 'cold')}"
    hot, cold, pairs, l2 = h.hot, h.cold, h.pairs, h.l2
    modes = "; ".join(f"{what} `{run.path}` {cache_mode(run)}" for what, run in
                      (("the lesson run", sel.lesson), ("the placement run", sel.placement)) if run)
    if l2 is None:
        return f"The GPU record holds no L2 size, so which sizes fit in it is {pages.NOT_HERE}. Sampled: {modes}."
    parts = []
    for fits, where in ((True, "at the sizes that fit"), (False, "at the sizes beyond it")):
        group = [p for p in pairs if h.fits(p.size) == fits]
        if group:
            sizes = ", ".join(f"{s:,}" for s in sorted({p.size for p in group}))
            ratios = [p.comparison.ratio for p in group]
            parts.append(f"{where} ({sizes} bytes) the hot/cold ratio of medians is {value_range(ratios, 3, 'x')} "
                         f"(median {fmt.ratio(stats.median(ratios), 3)})")
    slower = list(dict.fromkeys(f"{kernel_label(p.hot)} at {p.size:,}" for p in pairs
                                if p.comparison.verdict == stats.SLOWER))
    exceptions = (f" Hot is slower than cold beyond {stats.DEFAULT_BAND:.2f}x on "
                  f"{sum(p.comparison.verdict == stats.SLOWER for p in pairs)} of {len(pairs)} rows (kernel and "
                  f"size, over the inputs: {', '.join(slower)})." if slower else "")
    return (f"The GPU's L2 holds {l2:,} bytes ({hotcold.mib(l2)}), and hot samples are partly L2-resident where "
            f"the input fits in it: {'; '.join(parts)} (`{hot.path}` hot, `{cold.path}` cold).{exceptions} The "
            f"other GPU reports are sampled as their runs say ({modes or 'no lesson or placement run'}).")


def placement_report(m):
    placed = pages.each_gpu(m, "placement", lambda g: report_prose(g.placement)
                       + pages.tables(placement_tables(g.placement, None)))
    if not placed:
        placed = [Para(f"Bins placement: {m.missing('placement')}")] + \
            pages.tables(placement_tables(None, m.missing("placement")))
    cache = [Heading("Hot and cold samples"),
             Para("Cold samples follow a flush of the L2, so each run reads its input from DRAM (the study's "
                  "default); hot samples run back to back.")]
    if not m.own:
        cache += [Para(f"Hot against cold samples: {m.missing('hot')}"),
                  TableBlock(hotcold.hot_cold_table(None, m.missing("hot")))]
    for g in m.own:
        missing = g.missing if len(m.own) > 1 else m.missing
        cache += [Heading(g.label, 3)] if len(m.own) > 1 else []
        cache += [Para(hotcold_prose(g, missing)), TableBlock(hotcold.hot_cold_table(g.hotcold, missing("hot")))]
    return pages.page("Where the bins lie, and hot against cold samples", placed, cache)


def _figures(m):
    from plots import figures   # matplotlib, loaded only where a figure is drawn
    return {"placement": (figures.placement_figure, m.placement_lines)}


PART = Part("placement", "every kernel and toolchain at every offset; hot against cold samples", placement_section, placement_report, figures=_figures)
