"""The Table 16-4-style contention sweep: Mpix/s (million one-byte samples
per second, size / median seconds / 1e6) for every implementation as the
input's distinct values go 256 ... 1, with the published columns beside."""
import re
from dataclasses import dataclass, field

from plots import pages
from plots import table as fmt
from plots.document import FigureBlock, Heading, Para, Part, TableBlock
from plots.lesson import BASELINE, PRIVATIZED
from plots.results import find_rows, is_control, median_ms, policy_label, roles
from plots.environment import cpu_and_cores
from plots.table import Table

EXPERIMENT = "sweep"


def distinct_values(input):
    """K of 'distinct_K', else None."""
    m = re.fullmatch(r"distinct_(\d+)", input)
    return int(m.group(1)) if m else None


def mpix_per_s(row):
    return row["size"] / (median_ms(row) / 1e3) / 1e6


def variant_words(row):
    """'P=4', 'copies=8': what tells the row's variant apart from its implementation's default, or ''."""
    return " ".join(p for p in policy_label(row).split() if not re.fullmatch(r"\d+x\d+|\d+|thr", p))


@dataclass(frozen=True)
class Curve:
    """One implementation and variant under one toolchain over the distinct_K inputs."""
    impl: str
    variant: str        # variant_words
    toolchain: str
    roles: tuple
    values: dict = field(default_factory=dict)   # {K: Mpix/s}

    @property
    def label(self):
        """'name (nvcc 13.0.88)', with P=4 and the like when the policy tells variants apart."""
        return f"{self.impl}{' ' + self.variant if self.variant else ''} ({self.toolchain})"


def our_series(run):
    """{label: Curve} in row order; A/A controls left out (they serve the version comparison)."""
    series = {}
    for row in find_rows(run, experiment=EXPERIMENT):
        k = distinct_values(row["input"])
        if k is not None and not is_control(row):
            curve = Curve(row["impl"], variant_words(row), row["toolchain"], roles(row))
            series.setdefault(curve.label, curve).values[k] = mpix_per_s(row)
    return series


def is_gpu(curve):
    return curve.toolchain != "cpu"


@dataclass(frozen=True)
class SweepModel:
    """One run's curves over the distinct_K inputs."""
    run: object
    curves: dict        # {label: Curve}, in row order

    def shown(self, gpu):
        """{label: {K: Mpix/s}} of the GPU's curves (gpu=True) or the CPU's."""
        return {label: c.values for label, c in self.curves.items() if is_gpu(c) == gpu}


def model(run):
    """The SweepModel of a run, or None for no run."""
    return SweepModel(run, our_series(run)) if run else None


# ---- the tables ----

def published_series(published):
    return {f"{g} (published, per-block)": values for g, values in published.table_16_4.items()}


LIKE_FOR_LIKE = "privatized"  # the textbook's kernel's role: a shared-memory histogram per block


def textbook_layout_table(found, published, not_yet):
    """Table 16-4's own layout: a row per distinct-value count, a column per GPU, ours (the per-block kernel, per
    GPU toolchain) beside the published ones; found: [(GPU label, SweepModel)], the label '' for one GPU."""
    ours = {f"{label}{', ' + gpu if gpu else ''}": c.values for gpu, m in found for label, c in m.curves.items()
            if LIKE_FOR_LIKE in c.roles and not c.variant and is_gpu(c)}
    columns = list(published.table_16_4) + [f"ours: {label}" for label in ours]
    series = list(published.table_16_4.values()) + list(ours.values())
    ks = sorted({k for s in series for k in s}, reverse=True)
    rows = [[str(k)] + [fmt.number(s.get(k), 0) for s in series] for k in ks]
    notes = [] if ours else [f"ours: {not_yet}"]
    return Table("Table 16-4 layout: per-block histogram, Mpix/s by distinct values", ["distinct values"] + columns,
                 rows, notes)


def _series_table(title, shown, notes):
    ks = sorted({k for _, s in shown for k in s}, reverse=True)
    rows = [[label] + [fmt.number(s.get(k), 0) for k in ks] for label, s in shown]
    return Table(title, ["implementation"] + [str(k) for k in ks], rows, notes)


MPIX = "Mpix/s: million one-byte samples per second, input bytes over the median time"


def gpu_sweep_table(m, published, not_yet, gpu=""):
    """Every GPU implementation's Mpix/s by distinct values, the published rows first; gpu: the GPU's label, in
    the title where a report shows several."""
    ours = m.shown(gpu=True) if m else {}
    notes = [f"{MPIX}; the published rows are the textbook's per-block histogram, from "
             "data/published/table_16_4_per_block.csv.",
             f"Ours: {m.run.name}, every implementation on distinct_K inputs (the same LCG's high byte mod K)."
             if ours else f"Ours: {not_yet}"]
    return _series_table("Contention sweep, GPU: Mpix/s by distinct values" + (f" ({gpu})" if gpu else ""),
                         list(published_series(published).items()) + list(ours.items()), notes)


def cpu_sweep_table(m):
    """Every CPU implementation's Mpix/s by distinct values in one run; None where it has no CPU sweep rows."""
    ours = m.shown(gpu=False)
    if not ours:
        return None
    return _series_table(f"Contention sweep, CPU ({cpu_and_cores(m.run.environment)}; {m.run.name}): "
                         "Mpix/s by distinct values", list(ours.items()), [f"{MPIX}.", f"Ours: {m.run.name}."])


def sweep_table(lines):
    """Table 16-4 beside ours: global atomics and the privatized kernel of each GPU (the sweep report has every
    kernel)."""
    measured = [s for s in lines.measured if {BASELINE, PRIVATIZED} & set(s.roles)]
    published = lines.published
    columns = ["distinct values"] + [s.whose.removesuffix(" (published)") for s in published] + \
        [f"{s.impl}, {s.whose}" for s in measured]
    rows = [[str(k)] + [fmt.number(s.values.get(k), 0) for s in published + measured] for k in lines.distinct_values]
    notes = ["Mpix/s: million one-byte samples a second. The first columns are the textbook's per-block histogram "
             "(data/published/table_16_4_per_block.csv); ours are medians at the lesson's size, the same LCG's high "
             "byte mod K for K distinct values."]
    return Table("The contention sweep beside Table 16-4: Mpix/s by distinct values", columns, rows, notes)


def sweep_prose(lines, own):
    """The textbook's spreads, then ours of global atomics and the privatized kernel on the GPUs `own` (indexes)."""
    spread = lambda v: max(v.values()) / min(v.values())  # noqa: E731
    text = "In Table 16-4 the per-block histogram's best over worst throughput is " + ", ".join(
        f"{spread(s.values):.1f}x on {s.whose.removesuffix(' (published)')}" for s in lines.published) + "."
    ours = [s for s in lines.series if s.gpu in own and {BASELINE, PRIVATIZED} & set(s.roles)]
    for impl in dict.fromkeys(s.impl for s in ours):
        found = [s for s in ours if s.impl == impl]
        text += (f" Ours, {impl}: " + ", ".join(f"{spread(s.values):.2f}x on the {s.whose}" for s in found)
                 + f" ({fmt.number(min(min(s.values.values()) for s in found), 0)} to "
                 f"{fmt.number(max(max(s.values.values()) for s in found), 0)} Mpix/s).")
    return text


def sweep_section(m):
    blocks = [Heading("The contention sweep (Table 16-4)")]
    if m.sweep_lines is None:
        return blocks + [Para(f"The sweep: {m.missing('sweep')}")]
    swept = [g for g in m.gpus if g.gpu.sel.sweep]
    ours = "our kernels (solid)" if len(swept) == 1 else \
        "our kernels (solid; a colour per GPU, a marker per kernel, the first GPU drawn wider to show a curve repeated)"
    return blocks + [
        Para(sweep_prose(m.sweep_lines, {g.index for g in m.own})),
        TableBlock(sweep_table(m.sweep_lines), "sweep", wide=True),
        FigureBlock("sweep", 0, "Throughput against the number of distinct byte values in the input (256 down to 1), "
                                f"{ours} beside the textbook's per-block histogram on four GPU "
                                "generations (dashed, hollow markers, published); log scales.",
                    f"{pages.runs_words(g.gpu.sel.sweep.path for g in swept)}; "
                    "`data/published/table_16_4_per_block.csv`")]


def sweep_report(m):
    missing, published = m.missing("sweep"), m.study.published
    cpu = [t for t in (cpu_sweep_table(s) for s in m.cpu_sweeps) if t]
    swept = [g for g in m.own if g.sweep]
    named = len(swept) > 1
    gpu = [gpu_sweep_table(g.sweep, published, missing, g.label if named else "") for g in swept] or \
        [gpu_sweep_table(None, published, missing)]
    return pages.page("The contention sweep in full",
                      [TableBlock(textbook_layout_table([(g.label if named else "", g.sweep) for g in swept],
                                                        published, missing))], pages.tables(gpu), pages.tables(cpu))


def _figures(m):
    from plots import figures   # matplotlib, loaded only where a figure is drawn
    return {"sweep": (figures.sweep_figure, m.sweep_lines)}


PART = Part("sweep", "every implementation, GPU and CPU", sweep_section, sweep_report,
            figures=_figures)
