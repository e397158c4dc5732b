"""The size sweep: the subject and the peer beside the read floor from 1 MiB to 4 GiB, with the GPU's physical limit.

The `sizes` experiment (study/driver/experiments.cpp) times the subject and the peer (CUB) beside the read floor at every
size from 1 MiB to 4 GiB on uniform, lesson_english and one_byte, in one run; plots/selection.py picks the run
(role sizes). model() computes once, per input and size: the floor's median and p10..p90; each kernel's median,
p10..p90, GB/s, percent of the floor, gap to the floor and ratio to the peer; and the time the GPU's theoretical
memory bandwidth (the environment record's, from the memory clock and bus width) allows for the bytes read. It
checks the study's targets for the sweep (docs/study-spec.md section 5). sweep_table and target_table render it,
plots/figures.py's sizes_figure draws it. Kernels are found by role (plots/results.py), never by name.
"""
from dataclasses import dataclass

from plots import pages, perf
from plots.document import FigureBlock, Heading, Para, Part, TableBlock
from plots import table as fmt
from plots.environment import gpu_fact
from plots.published import LESSON_INPUTS
from plots.results import Kernel, conditions, find_rows, is_control
from plots.table import Table, value_range

EXPERIMENT = "sizes"
FLOOR = Kernel("floor")
KERNELS = {"subject": perf.SUBJECT, "peer": perf.PEER}   # the kernels beside the floor, by role
US_PER_MS = 1000.0

# The study's targets for the sweep (docs/study-spec.md section 5), for the subject, in the same run:
GAP_US = 1.5                # its median at most 1.5 us over the floor's, at every size on every input
LESSON_PCT = 90.0           # at the lesson's size: at least 90% of the floor's GB/s
LESSON_PEER_RATIO = 1.3     # and at least 1.3x the peer's GB/s
LESSON_SIZE_INPUTS = LESSON_INPUTS   # on the lesson's three inputs


@dataclass(frozen=True)
class Timing:
    """One implementation at one input and size."""
    impl: str
    median_us: float
    p10_us: float
    p90_us: float
    gbps: float
    pct_of_floor: object    # percent of the floor's GB/s at the same input and size; None without a floor
    gap_us: object          # its median over the floor's; None without a floor
    over_peer: object       # its GB/s over the peer's; None for the floor and the peer, or without a peer row


@dataclass(frozen=True)
class Point:
    input: str
    size: int
    floor: object           # Timing of the floor, or None
    kernels: dict           # {role: Timing}: the subject and the peer, where measured
    theoretical_us: object  # the bytes read over the theoretical bandwidth; None where it is not recorded
    floor_pct_of_theoretical: object   # the floor's GB/s as a percent of the theoretical bandwidth, or None

    def timing(self, role):
        """The Timing of 'floor', 'subject' or 'peer', or None."""
        return self.floor if role == "floor" else self.kernels.get(role)


@dataclass(frozen=True)
class SizesModel:
    run: object
    toolchain: str
    names: dict             # {'floor' | 'subject' | 'peer': implementation}
    inputs: list            # in row order
    sizes: list             # ascending
    points: dict            # {(input, size): Point}, input by input, each by size
    theoretical_gbps: object    # from the environment record, or None
    lesson_size: object     # the lesson's size (data/published/), or None
    checks: list            # [perf.Check]: the targets, the gap checks first, input by input
    failed: list            # rows whose check failed: never timed
    conditions: str         # where the bins lay and how the rows were sampled, in words

    def at(self, size):
        """[Point] at `size`, input by input."""
        return [p for p in self.points.values() if p.size == size]

    def series(self, input, role):
        """[(size, Timing)] of 'floor', 'subject' or 'peer' on `input`, by size, where measured."""
        found = ((size, self.points[(input, size)].timing(role)) for size in self.sizes
                 if (input, size) in self.points)
        return [(size, timing) for size, timing in found if timing]


def _timing(row, floor_row, peer_row):
    """A row's Timing against the floor's row and the peer's (None: no ratio to the peer)."""
    summary = row["summary_ms"]
    return Timing(row["impl"], summary["median"] * US_PER_MS, summary["p10"] * US_PER_MS, summary["p90"] * US_PER_MS,
                  row["gbps"], perf.pct_of_floor(row, floor_row["gbps"] if floor_row else None),
                  (summary["median"] - floor_row["summary_ms"]["median"]) * US_PER_MS if floor_row else None,
                  row["gbps"] / peer_row["gbps"] if peer_row else None)


def _point(input, size, found, theoretical_gbps):
    """found: {'floor' | role: row} at one input and size."""
    floor_row, peer_row = found.get("floor"), found.get("peer")
    floor = _timing(floor_row, floor_row, None) if floor_row else None
    kernels = {role: _timing(row, floor_row, peer_row if role != "peer" else None) for role, row in found.items()
               if role != "floor"}
    if not theoretical_gbps:
        return Point(input, size, floor, kernels, None, None)
    bytes_read = next(iter(found.values()))["bytes_read"]
    return Point(input, size, floor, kernels, bytes_read / (theoretical_gbps * 1e9) * 1e6,
                 100 * floor.gbps / theoretical_gbps if floor else None)


def target_checks(names, inputs, sizes, points, lesson_size):
    """The gap check at every input and size, then the lesson size's percent and ratio checks on its inputs."""
    def measured(input, size, field):
        timing = points[(input, size)].timing("subject") if (input, size) in points else None
        return getattr(timing, field) if timing else None
    gap = f"within {GAP_US:g} us of {names['floor']}"
    checks = [perf.Check(gap, input, measured(input, size, "gap_us"), GAP_US, perf.GAP_UNIT, size)
              for input in inputs for size in sizes]
    for input in LESSON_SIZE_INPUTS:
        checks += [perf.Check(f">= {LESSON_PCT:g}% of floor", input, measured(input, lesson_size, "pct_of_floor"),
                              LESSON_PCT, "pct", lesson_size),
                   perf.Check(f">= {LESSON_PEER_RATIO:g}x {names['peer']}", input,
                              measured(input, lesson_size, "over_peer"), LESSON_PEER_RATIO, "ratio", lesson_size)]
    return checks


def _toolchain(rows):
    return next((r["toolchain"] for r in rows if not is_control(r)), rows[0]["toolchain"])


def _by_case(rows):
    """{(input, size): the first row of that input and size}."""
    found = {}
    for row in rows:
        found.setdefault((row["input"], row["size"]), row)
    return found


def model(run, lesson_size=None):
    """The SizesModel of `run`'s GPU sizes rows under its first toolchain (A/A controls aside); lesson_size: the
    lesson's size in bytes, at which the lesson-size targets are checked."""
    gpu = [r for r in run.rows if r["backend"] == "cuda" and r["experiment"] == EXPERIMENT]
    toolchain = _toolchain(gpu)
    rows = [r for r in gpu if r["toolchain"] == toolchain]
    kernels = {"floor": FLOOR, **KERNELS}
    names = {role: k.name("cuda", rows) for role, k in kernels.items()}
    timed = {role: _by_case(find_rows(run, k, experiment=EXPERIMENT, toolchain=toolchain))
             for role, k in kernels.items()}
    theoretical = gpu_fact(run, toolchain, "theoretical_bandwidth_gbps")
    inputs = list(dict.fromkeys(r["input"] for r in rows))
    sizes = sorted({r["size"] for r in rows})
    points = {}
    for case in ((input, size) for input in inputs for size in sizes):
        found = {role: by_case[case] for role, by_case in timed.items() if case in by_case}
        if found:
            points[case] = _point(*case, found, theoretical)
    return SizesModel(run, toolchain, names, inputs, sizes, points, theoretical, lesson_size,
                      target_checks(names, inputs, sizes, points, lesson_size),
                      [r for r in rows if not r["check"]["passed"]], conditions(rows) or "no controls recorded")


# ---- the tables ----

def _us(timing):
    return f"{timing.median_us:,.2f} ({timing.p10_us:,.2f}..{timing.p90_us:,.2f})" if timing else fmt.MISSING


def _rate(timing):
    return f"{fmt.number(timing.gbps, 0)} ({fmt.pct(timing.pct_of_floor)})" if timing else fmt.MISSING


def _field(timing, name, show):
    return show(getattr(timing, name)) if timing else fmt.MISSING


def sweep_table(m):
    f, s, b = m.names["floor"], m.names["subject"], m.names["peer"]
    columns = ["input", "size", f"{f} us", f"{s} us", f"{s} GB/s (% floor)", f"{s} - {f} us", f"{b} us",
               f"{b} GB/s (% floor)", f"{s} / {b}", "theoretical us", f"{f} % of theoretical"]
    rows = []
    for (input, size), p in m.points.items():
        subject, peer = p.kernels.get("subject"), p.kernels.get("peer")
        rows.append([input, fmt.size_words(size), _us(p.floor), _us(subject), _rate(subject),
                     _field(subject, "gap_us", lambda v: fmt.number(v, 2)), _us(peer), _rate(peer),
                     _field(subject, "over_peer", lambda v: fmt.ratio(v, 2)), fmt.number(p.theoretical_us, 2),
                     fmt.pct(p.floor_pct_of_theoretical)])
    theoretical = (f"{fmt.number(m.theoretical_gbps, 0)} GB/s, the environment record's theoretical bandwidth (from "
                   "the memory clock and bus width)" if m.theoretical_gbps else "not recorded in the run")
    notes = [f"us: median (p10..p90) of the per-run samples, in microseconds; GB/s: bytes read over the median time; "
             f"% floor: over {f}'s GB/s at the same input and size in the same run; {s} - {f}: the difference of "
             f"the medians; {s} / {b}: ratio of GB/s.",
             f"Theoretical: the bytes read at the GPU's theoretical memory bandwidth, {theoretical}; {f} % of "
             f"theoretical: {f}'s GB/s over it.",
             f"Toolchain {m.toolchain}; {m.conditions}."]
    notes += [f"CHECK FAILED: {r['impl']} on {r['input']} at {r['size']:,} bytes: {r['check']['detail']}"
              for r in m.failed]
    return Table(f"The size sweep: {s} and {b} beside {f} ({m.run.name})", columns, rows, notes,
                 align="ll" + "r" * (len(columns) - 2))


def target_table(m):
    rows = [[c.requirement, c.input, fmt.size_words(c.size) if c.size else fmt.MISSING, perf.show(c),
             perf.required_words(c), c.verdict] for c in m.checks]
    lesson = fmt.size_words(m.lesson_size) if m.lesson_size else "the lesson's size (not recorded)"
    notes = [f"The targets for the sweep: {m.names['subject']}'s median at most {GAP_US:g} us over "
             f"{m.names['floor']}'s at every size on every input; at {lesson}, at least {LESSON_PCT:g}% of the "
             f"floor's GB/s and at least {LESSON_PEER_RATIO:g}x {m.names['peer']}'s on "
             f"{', '.join(LESSON_SIZE_INPUTS)}; all in the same run. The verdict compares the unrounded figure.",
             f"All targets: {perf.overall(m.checks)}."]
    return Table(f"Size-sweep targets: {m.names['subject']} ({m.run.name})",
                 ["requirement", "input", "size", "measured", "required", "verdict"], rows, notes, align="lllrrl")


def gpus_table(found):
    """The subject and the peer against each GPU's own floor at every input and size, the GPUs side by side;
    found: [(GPU index, label, SizesModel)]."""
    names = found[0][2].names
    cases = list(dict.fromkeys(case for _, _, m in found for case in m.points))
    rows = []
    for input, size in cases:
        cells = []
        for _, _, m in found:
            point = m.points.get((input, size))
            subject, peer = (point.timing(role) if point else None for role in ("subject", "peer"))
            cells += [_field(subject, "pct_of_floor", fmt.pct), _field(peer, "pct_of_floor", fmt.pct),
                      _field(subject, "gap_us", lambda v: fmt.number(v, 2))]
        rows.append([input, fmt.size_words(size)] + cells)
    columns = ["input", "size"] + [column for _, label, _ in found for column in (
        f"{names['subject']} % floor, {label}", f"{names['peer']} % floor", f"{names['subject']} - floor us")]
    return Table(f"The size sweep on each GPU: {names['subject']} and {names['peer']} against each GPU's own floor",
                 columns, rows, [f"% floor: GB/s over {names['floor']}'s at the same input and size on the same GPU; "
                                 f"- floor us: the subject's median over the floor's, in microseconds."],
                 align="ll" + "r" * (len(columns) - 2))


def _target_words(checks, peer):
    """'within 1.5 us of read_floor, 21 cases: **not met** (3 met; furthest from it: 8.64 us on uniform at 4 GiB);
    ...': each requirement's verdict over its checks, with the check furthest from its target."""
    parts = []
    for requirement in dict.fromkeys(c.requirement for c in checks):
        group = [c for c in checks if c.requirement == requirement]
        worst = perf.worst(group)
        where = (f"furthest from it: {perf.show(worst)} on {worst.input} at {fmt.size_words(worst.size)}" if worst
                 else pages.NOT_HERE)
        met = sum(c.verdict == perf.MET for c in group)
        parts.append(f"{requirement.replace(peer, f'`{peer}`')}, {len(group)} cases: **{perf.overall(group)}** "
                     f"({met} met; {where})")
    return "; ".join(parts)


def _at(z, size, role, field="pct_of_floor"):
    """A field of `role`'s Timing at `size`, input by input, where measured."""
    return [getattr(p.timing(role), field) for p in z.at(size) if p.timing(role)]


def sizes_prose(z):
    f, s, b = z.names["floor"], z.names["subject"], z.names["peer"]
    small, large = z.sizes[0], z.sizes[-1]
    ends = lambda role: (f"{value_range(_at(z, small, role), 1, '%')} at {fmt.size_words(small)} and "  # noqa: E731
                         f"{value_range(_at(z, large, role), 1, '%')} at {fmt.size_words(large)}")
    gaps = [gap for size in z.sizes for gap in _at(z, size, "subject", "gap_us")]
    text = (f"The `{EXPERIMENT}` experiment (`{z.run.path}`, {z.toolchain}; {z.conditions}) times `{s}` and "
            f"`{b}` beside `{f}` at {len(z.sizes)} sizes from {fmt.size_words(small)} to {fmt.size_words(large)} on "
            f"{', '.join(z.inputs)}. `{s}` reaches {ends('subject')} of the floor's GB/s, its median "
            f"{value_range(gaps, 2, ' us')} above the floor's over every size and input; `{b}` reaches "
            f"{ends('peer')}. ")
    if z.theoretical_gbps:
        theoretical = lambda size: value_range([p.floor_pct_of_theoretical for p in z.at(size)], 1, "%")  # noqa
        text += (f"The floor itself moves {theoretical(small)} of the GPU's theoretical memory bandwidth "
                 f"({fmt.number(z.theoretical_gbps, 0)} GB/s, from the memory clock and bus width the run records) "
                 f"at {fmt.size_words(small)} and {theoretical(large)} at {fmt.size_words(large)}: at small sizes, "
                 "100% of the floor is far from the physical limit. ")
    else:
        text += f"The run records no theoretical memory bandwidth: the physical limit is {pages.NOT_HERE}. "
    return text + (f"The study's targets for the sweep (docs/study-spec.md section 5), checked on these figures: "
                   f"{_target_words(z.checks, b)}. All targets: **{perf.overall(z.checks)}** on this run.")


def sizes_section(m):
    blocks = [Heading("The GPU at every size", 2)]
    found = [g for g in m.own if g.sizes]
    if not found:
        return blocks + [Para(f"The size sweep: {m.missing('sizes')}")]
    several, lines = len(m.own) > 1, m.sizes_lines
    z = found[0].sizes
    prose = [Para((f"**{g.label}.** " if several else "") + (sizes_prose(g.sizes) if g.sizes else
                                                           pages.sentence(g.missing("sizes")))) for g in m.own]
    caption = (f"Per input, the median time per run of `{z.names['floor']}`, `{z.names['subject']}` "
               f"and `{z.names['peer']}` against the input's size (log-log; shaded: p10..p90; "
               "dashed: the bytes read at the GPU's theoretical memory bandwidth), and each "
               "kernel's GB/s as a percent of the floor's at the same size (log x; dotted: the "
               "floor's own GB/s as a percent of the theoretical bandwidth). Sizes: M MiB, G GiB." if len(lines) == 1
               else f"Per input, the median time per run of `{z.names['floor']}` (dotted), `{z.names['subject']}` "
               f"(solid) and `{z.names['peer']}` (dashed) against the input's size (log-log), and the two kernels' "
               "GB/s as a percent of their own GPU's floor at the same size (log x); a colour per GPU. Sizes: M MiB, "
               "G GiB.")
    figure = FigureBlock("sizes", 0, caption, " and ".join(f"`{model.run.path}`" for _, _, model in lines))
    side_by_side = [TableBlock(gpus_table(lines))] if len(lines) > 1 else []
    return blocks + prose + [figure] + side_by_side + [
        TableBlock(t) for g in found for t in (sweep_table(g.sizes), target_table(g.sizes))]


def _figures(m):
    from plots import figures   # matplotlib, loaded only where a figure is drawn
    return {"sizes": (figures.sizes_figure, m.sizes_lines)}


PART = Part(EXPERIMENT, report=sizes_section, joins="performance", figures=_figures)
