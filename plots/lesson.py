"""The lesson's table for one run, per toolchain, beside the published T4 table.

The lesson compares global atomics (the baseline) with the privatized
kernel; on the CPU the same pair is the single-thread reference (the oracle)
and the OpenMP privatized one (as study/driver/report.cpp prints it). Kernels are
found by their roles (plots/results.py), never by name.
"""
from dataclasses import dataclass

from plots import cli, pages, placement
from plots import table as fmt
from plots.document import FigureBlock, Heading, Para, Part, TableBlock
from plots.published import LESSON_INPUTS, lesson_name
from plots.results import (Kernel, busiest_pct, conditions, defined_by, is_control, is_timed, median_ms,
                           policy_label, requested_offset, roles)
from plots.table import Table, value_range

LESSON_EXPERIMENTS = ("lesson", "custom")
LESSON_PAIR = {"cpu": ("oracle", "privatized"), "cuda": ("baseline", "privatized")}   # the roles compared
BASELINE, PRIVATIZED = LESSON_PAIR["cuda"]
READER = "reader"       # the lesson's own floor kernel; the others are whatever the rows name as their floor
PASSES = "passes"       # the launch-policy field of the lesson's exercise: P passes over the input


def lesson_rows(run, toolchain):
    return [r for r in run.rows if r["toolchain"] == toolchain and r["experiment"] in LESSON_EXPERIMENTS]


def table_keys(run):
    """(toolchain, size) of every lesson table in the run, in row order."""
    keys = [(r["toolchain"], r["size"]) for r in run.rows if r["experiment"] in LESSON_EXPERIMENTS
            and not is_control(r)]  # the A/A control serves the version comparison
    return list(dict.fromkeys(keys))


def baseline_source(published):
    """The lesson's own table: the earliest CUDA version published."""
    return min(published.lesson, key=lambda s: s.cuda_version)


class LessonView:
    """One toolchain and size of one run, asked for the lesson's figures. Its rows are indexed once, so the
    tables of a run with many sizes take time linear in its rows."""

    def __init__(self, run, toolchain, size, rows=None):
        self.run, self.toolchain, self.size = run, toolchain, size
        self.rows = rows if rows is not None else [r for r in lesson_rows(run, toolchain) if r["size"] == size]
        self.backend = self.rows[0]["backend"]
        self.inputs = list(dict.fromkeys(r["input"] for r in self.rows))
        self.base, self.private = (Kernel(role).name(self.backend, self.rows) for role in LESSON_PAIR[self.backend])
        self.readers = {r["impl"] for r in self.rows if READER in roles(r)}
        self._timed = {}
        for row in sorted(self.rows, key=lambda r: LESSON_EXPERIMENTS.index(r["experiment"])):  # lesson first
            if is_timed(row):
                self._timed.setdefault((row["impl"], row["input"], row["policy"]["passes"]), row)

    def row(self, impl, input, passes=1):
        return self._timed.get((impl, input, passes))

    def ms(self, impl, input, passes=1):
        row = self.row(impl, input, passes)
        return median_ms(row) if row else None

    def any_row(self, input):
        """A row of the input, timed or not: its input statistics are the input's."""
        return self.row(self.base, input) or self.row(self.private, input) or \
            next((r for r in self.rows if r["input"] == input), None)

    def floor_impls(self):
        """Readers that count nothing: the lesson's reader and whatever the rows name as their floor."""
        impls = {r["impl"] for r in self.rows}
        return sorted(self.readers | ({r["floor_impl"] for r in self.rows} & impls))


def views(run):
    """A LessonView per (toolchain, size) of the run's lesson rows, A/A controls aside, grouped in one pass."""
    grouped = {}
    for row in run.rows:
        if row["experiment"] in LESSON_EXPERIMENTS and not is_control(row):
            grouped.setdefault((row["toolchain"], row["size"]), []).append(row)
    return [LessonView(run, toolchain, size, rows) for (toolchain, size), rows in grouped.items()]


@dataclass(frozen=True)
class LessonModel:
    """One run's lesson tables: a view per toolchain and size, the lesson's T4 table beside them, and the
    placement run's series (placement.PlacementModel, or None) for the baseline at its best and worst offsets."""
    run: object
    views: list
    t4: object
    placement: object = None


def model(run, published, placement_model=None):
    return LessonModel(run, views(run), baseline_source(published), placement_model)


# ---- the tables ----


def _speedup(a, b):
    return a / b if a and b else None


def bins_note(view):
    """Where the view's GPU rows put their bins and how they were sampled, as their records say."""
    found = conditions(view.rows)
    return f"{found}." if found else "bins placement: not recorded (a run made before placement was recorded)."


def main_table(view, t4, placement=None):
    title = f"Lesson table: {view.toolchain}, {view.size:,} bytes, median ms ({view.run.name})"
    base_role, private_role = LESSON_PAIR["cuda"]   # the lesson's own pair, beside ours of either backend
    columns = ["input", "busiest bin", "bins used", f"{view.base} ms", f"{view.private} ms", "speedup",
               "lesson-method ms", "T4 busiest", "T4 bins"] + \
        [f"T4 {lesson_name(role)} ms" for role in (base_role, private_role)] + ["T4 speedup"]
    rows = []
    for input in view.inputs:
        base, priv, any_row = view.row(view.base, input), view.row(view.private, input), view.any_row(input)
        lesson_means = [r["lesson_mean_ms"] if r and r["lesson_mean_ms"] is not None else None for r in (base, priv)]
        rows.append([input, fmt.pct(busiest_pct(any_row), 2), any_row["input_stats"]["bins_used"],
                     fmt.ms(view.ms(view.base, input)), fmt.ms(view.ms(view.private, input)),
                     fmt.ratio(_speedup(view.ms(view.base, input), view.ms(view.private, input))),
                     " / ".join(fmt.ms(m) for m in lesson_means) if any(lesson_means) else fmt.MISSING,
                     fmt.pct(t4.get("max_bin_pct", input), 2), fmt.count(t4.get("bins_used", input)),
                     fmt.ms(t4.kernel(base_role, "ms", input)), fmt.ms(t4.kernel(private_role, "ms", input)),
                     fmt.ratio(t4.get("speedup", input))])
    notes = [f"ms: median of the per-run samples; lesson-method ms: {view.base} / {view.private} timed the "
             "lesson's way (mean of back-to-back runs after warm-ups), where recorded.",
             f"T4: {t4.label}, {t4.build}, from data/published/ (inputs the lesson did not run show -)."]
    if view.backend != "cpu":
        notes.append(bins_note(view))
        if placement is None:
            notes.append(f"{view.base} at the best and the worst bins placement: not measured yet (no controlled "
                         "placement run).")
    notes += [f"CHECK FAILED: {r['impl']} on {r['input']}: {r['check']['detail']}"
              for r in view.rows if not r["check"]["passed"]]
    return Table(title, columns, rows, notes, align="lrr" + "r" * 9)


def floor_table(view, t4):
    title = f"Floor rows: {view.toolchain} (readers that count nothing)"
    rows = []
    for impl in view.floor_impls():
        for input in view.inputs:
            row = view.row(impl, input)
            if row:
                published = impl in view.readers and input == view.inputs[0]  # the lesson measured it once
                rows.append([impl, input, fmt.ms(median_ms(row)), fmt.number(row["gbps"]),
                             fmt.ms(t4.kernel(READER, "ms")) if published else fmt.MISSING,
                             fmt.number(t4.kernel(READER, "gbs")) if published else fmt.MISSING])
    return Table(title, ["floor", "input", "ms", "GB/s", "T4 ms", "T4 GB/s"], rows, align="llrrrr")


def atomics_table(view, t4):
    first = view.inputs[0]
    base_row = view.row(view.base, first)
    published = {view.base: t4.global_atomics(LESSON_PAIR[view.backend][0]),
                 view.private: t4.global_atomics(LESSON_PAIR[view.backend][1])}
    floors = view.floor_impls()
    rows = []
    for row in (r for r in view.rows if r["input"] == first and is_timed(r) and r["impl"] not in floors):
        atomics = row["global_atomics"]
        factor = base_row["global_atomics"] / atomics if base_row and base_row["global_atomics"] and atomics else None
        rows.append([row["impl"], policy_label(row), fmt.count(atomics) if atomics is not None else "hidden by library",
                     fmt.ratio(factor), fmt.count(published.get(row["impl"]))])
    notes = [f"Declared per implementation (study/driver/registry.cpp): one per byte for {view.base}, blocks x 256 for a "
             "block-privatized kernel; not counted by a profiler."]
    return Table(f"Global atomic updates per run: {view.toolchain}, {first}",
                 ["impl", "policy", "global atomics", f"fewer than {view.base}", "T4 (published)"], rows, notes,
                 align="llrrr")


def partitioned_table(view):
    exercise = defined_by(view.rows, PASSES)
    if not exercise:
        return None
    impl = exercise[0]
    passes = sorted({r["policy"]["passes"] for r in view.rows if r["impl"] == impl})
    rows = []
    for input in view.inputs:
        private = view.ms(view.private, input)
        cells = [input, fmt.ms(private)]
        for p in passes:
            t = view.ms(impl, input, p)
            cells.append(f"{fmt.ms(t)} ({fmt.ratio(_speedup(t, private))})" if t else fmt.MISSING)
        rows.append(cells)
    notes = ["The lesson's exercise: P passes, each privatizing 256/P bins and reading all N bytes (P x N in all); "
             f"in brackets, the time over {view.private}'s."]
    return Table(f"Exercise, {impl}: {view.toolchain}, median ms",
                 ["input", f"{view.private} ms"] + [f"P={p} ms" for p in passes], rows, notes)


def by_placement_table(view, placement):
    """The baseline's row at the placement run's best and worst bins offset, beside the lesson run's;
    None where the placement run (a placement.PlacementModel) has no series of it for the view's toolchain."""
    found = {s.input: s for s in placement.series if s.kernel == view.base and s.toolchain == view.toolchain}
    rows = []
    for input in (i for i in view.inputs if i in found):
        s, row, priv = found[input], view.row(view.base, input), view.ms(view.private, input)
        medians = s.medians()
        cells = [input, f"{fmt.ms(view.ms(view.base, input))} at {requested_offset(row):,}" if row
                 else fmt.MISSING, fmt.ms(priv)]
        for offset in (s.best, s.worst):
            cells += [f"{offset:,}", fmt.ms(medians[offset]), fmt.ratio(_speedup(medians[offset], priv))]
        rows.append(cells)
    if not rows:
        return None
    source = "the lesson run itself" if placement.run.path == view.run.path else \
        f"{placement.run.path}, a different file from the lesson run {view.run.path}"
    notes = [f"Best, worst: the bins offset (bytes past a 2 MiB boundary) of the lowest and highest median of "
             f"{view.base} in the placement run, {source}; speedup: that time over {view.private}'s in the lesson "
             "run."]
    return Table(f"Lesson table, {view.base} by bins placement: {view.toolchain}, median ms",
                 ["input", f"{view.base} ms (lesson run, at offset)", f"{view.private} ms", "best offset", "best ms",
                  "speedup at best", "worst offset", "worst ms", "speedup at worst"], rows, notes)


def lesson_tables(m):
    """Every table of a LessonModel: per toolchain and size, the main table,
    the baseline by bins placement, the floor rows, the atomic counts and the
    exercise's passes."""
    t4 = m.t4
    tables = []
    for view in m.views:
        tables.append(main_table(view, t4, m.placement))
        by_placement = by_placement_table(view, m.placement) if view.backend != "cpu" and m.placement and \
            m.placement.series else None
        if by_placement:
            tables.append(by_placement)
        tables.append(floor_table(view, t4))
        if view.backend != "cpu":  # CPU implementations use no global atomics
            tables.append(atomics_table(view, t4))
        part = partitioned_table(view)
        if part:
            tables.append(part)
    return tables


def main(argv=None):
    """python3 -m plots.lesson RUN.json [--latex]: the lesson's tables for any run file."""
    import argparse
    import pathlib
    import sys

    from plots.output import write_stdout
    from plots.published import load_published
    from plots.results import ResultError, load_run
    parser = argparse.ArgumentParser(prog="python3 -m plots.lesson", description=main.__doc__)
    parser.add_argument("run")
    parser.add_argument("--latex", action="store_true", help="LaTeX (booktabs) instead of Markdown")
    args = parser.parse_args(argv)
    try:
        run = load_run(args.run)
        published = load_published(pathlib.Path(__file__).resolve().parent.parent / "data" / "published")
    except ResultError as e:
        print(f"lesson: {e}", file=sys.stderr)
        return 2
    if not table_keys(run):
        print(f"lesson: {args.run}: no lesson rows", file=sys.stderr)
        return 2
    placed = placement.model(run) if run.has_gpu_rows(placement.EXPERIMENT) else None
    tables = lesson_tables(model(run, published, placed))
    write_stdout("\n".join(t.latex() if args.latex else t.markdown() for t in tables) + "\n")
    return 0


def lesson_table(gpu_list, t4):
    inputs = list(dict.fromkeys(i for g in gpu_list for i in g.view.inputs))
    columns = ["input", "busiest bin", "bins used"]
    for g in gpu_list:
        columns += [f"{g.label}: {g.view.base} ms", f"{g.view.private} ms", "speedup"]
    columns += [f"{t4.gpu}: {lesson_name(BASELINE)} ms", f"{lesson_name(PRIVATIZED)} ms", "speedup"]
    rows = []
    for input in inputs:
        first = next(g.view.any_row(input) for g in gpu_list if g.view.any_row(input))
        cells = [input, fmt.pct(first["input_stats"]["busiest_pct"], 2), first["input_stats"]["bins_used"]]
        for g in gpu_list:
            base, priv = g.view.ms(g.view.base, input), g.view.ms(g.view.private, input)
            cells += [fmt.ms(base), fmt.ms(priv), fmt.ratio(pages.ratio(base, priv))]
        cells += [fmt.ms(t4.kernel(BASELINE, "ms", input)), fmt.ms(t4.kernel(PRIVATIZED, "ms", input)),
                  fmt.ratio(t4.get("speedup", input))]
        rows.append(cells)
    view = gpu_list[0].view
    launch = view.row(view.base, inputs[0])["policy"]
    notes = [f"Ours: medians, {view.size:,} bytes, grid {launch['grid']:,} x {launch['block']}; speedup: {view.base} "
             f"over {view.private}. {t4.label}, {t4.build}: a mean of {fmt.count(t4.get('timed_runs'))} runs "
             f"(data/published/); the lesson did not run prose, our own English input.",
             _same_inputs_note(gpu_list[0].view, t4)]
    return Table("The lesson's table: global atomics against the privatized kernel", columns, rows, notes,
                 align="lrr" + "r" * (len(columns) - 3))


def _same_inputs_note(view, t4):
    """Whether our inputs have the lesson's busiest bin and bins used, checked, not assumed."""
    differ = [i for i in LESSON_INPUTS if view.any_row(i) and (
        fmt.pct(view.any_row(i)["input_stats"]["busiest_pct"], 2) != fmt.pct(t4.get("max_bin_pct", i), 2)
        or view.any_row(i)["input_stats"]["bins_used"] != t4.get("bins_used", i))]
    return ("Busiest bin and bins used: the lesson's own on its three inputs." if not differ else
            f"Busiest bin or bins used differ from the lesson's on {', '.join(differ)}.")


def _placement_range(s, view):
    """'74.1x to 157.2x': the speedup on uniform bytes at the placement run's best and worst bins offsets, from its
    series `s` of the view's baseline there; None without one."""
    if s is None:
        return None
    medians, priv = s.medians(), view.ms(view.private, "uniform")
    return f"{fmt.ratio(pages.ratio(medians[s.best], priv))} to {fmt.ratio(pages.ratio(medians[s.worst], priv))}"


def lesson_prose(g, t4, first=True):
    """The lesson's figures on one GPU (models.GpuModels) beside the T4's, in three sentences; a GPU after the
    `first` in one, its figures beside the first's."""
    view = g.view
    base, private = view.base, view.private
    speed = {i: pages.ratio(view.ms(base, i), view.ms(private, i)) for i in ("uniform", "one_byte")}
    priv = [view.ms(private, i) for i in view.inputs]
    t4_grows = pages.ratio(t4.kernel(PRIVATIZED, "ms", "one_byte"), t4.kernel(PRIVATIZED, "ms", "uniform"))
    reader = min(view.readers, default=None)
    over_reader = pages.ratio(view.ms(private, "uniform"), view.ms(reader, "uniform"))
    placed = _placement_range(g.lesson_range, view)
    if not first:
        return (f" On {g.lesson_label}: {fmt.ratio(speed['uniform'])} and {fmt.ratio(speed['one_byte'])}, "
                f"{value_range(priv, 3, ' ms')} on every input" + (f" ({fmt.ratio(over_reader, 2)} `{reader}`)"
                                                                  if over_reader else "")
                + (f", {placed} by the bins' offset" if placed else "") + ".")
    text = (f"On {g.lesson_label}, the privatized kernel is {fmt.ratio(speed['uniform'])} faster than global "
            f"atomics on uniform bytes and {fmt.ratio(speed['one_byte'])} on the one-byte input, against the "
            f"{t4.gpu}'s {fmt.ratio(t4.get('speedup', 'uniform'))} and {fmt.ratio(t4.get('speedup', 'one_byte'))}. "
            f"It takes {value_range(priv, 3, ' ms')} on every input")
    if over_reader:
        text += f", {fmt.ratio(over_reader, 2)} the time of `{reader}`, which reads and counts nothing"
    return (text + f"; the {t4.gpu}'s grows {fmt.ratio(t4_grows)} on the one-byte input."
            + (f" The bins' offset alone moves the speedup on uniform bytes from {placed}." if placed else ""))


def lesson_section(m):
    t4, gpu_list = m.t4, m.lesson_gpus
    blocks = [Heading("The lesson's table on a newer GPU")]
    if not gpu_list:
        return blocks + [Para(f"The lesson's table: {m.missing('lesson')}")]
    own = [g for g in gpu_list if g.gpu.yours]
    if m.study.beside and not own:   # a user's appendix, the study's GPUs alone
        blocks.append(Para(f"{pages.missing_detail(m.study.sel.missing('lesson'))} The table and figure below are the "
                           "study's; what your runs measured on the CPU is in [the performance report]"
                           "(reports/performance.md) and [the sweep report](reports/sweep.md)."))
    shown = " and ".join(g.lesson_label for g in gpu_list)
    styles = "(solid)" if len(gpu_list) == 1 else "(a colour each; global atomics solid, the privatized kernel lighter)"
    told = own or gpu_list[:1]
    return blocks + [Para("".join(lesson_prose(g, t4, n == 0) for n, g in enumerate(told)))] + [
        TableBlock(lesson_table(gpu_list, t4), "lesson", wide=True),
        FigureBlock("lesson", 0, f"Median time per run of global atomics and of the privatized kernel on the "
                                 f"lesson's three inputs, {shown} {styles} beside the lesson's {t4.gpu} (hatched, "
                                 "published); log scale.",
                    f"{pages.runs_words(g.view.run.path for g in gpu_list)}; `data/published/lesson_t4.csv`")]


def lesson_report(m):
    found = pages.each_gpu(m, "lesson", lambda g: [
        Para(f"Every toolchain of `{g.lesson.run.path}`, its CPU too, then the other CPUs recorded; for "
             "GPU toolchains the baseline at the placement run's best and worst bins offsets, the floor "
             "rows, the declared global atomic updates and the lesson's partitioned exercise.")]
        + pages.tables(lesson_tables(g.lesson)))
    if not found:
        return pages.page("The lesson's tables in full", [Para(m.missing("lesson"))])
    other = [Heading("The other CPUs")] if len(m.own) > 1 and m.cpu_lessons else []
    return pages.page("The lesson's tables in full", found, other,
                      *(pages.tables(lesson_tables(model)) for model in m.cpu_lessons))


def _figures(m):
    from plots import figures   # matplotlib, loaded only where a figure is drawn
    return {"lesson": (figures.lesson_figure, m.lesson_bars)}


PART = Part("lesson", "every toolchain and CPU, with the floors, the atomic counts and the partitioned exercise",
            lesson_section, lesson_report, figures=_figures)


if __name__ == "__main__":
    raise SystemExit(cli.guarded("lesson", main))
