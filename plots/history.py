"""The release history: every NVRTC release's build of each kernel, timed in one
run on one GPU under the study's controls (`--toolchain nvcc,modules:DIR`).

    python3 -m plots.history RUN.json [--codegen data/codegen] [-o DIR]

-o DIR: the figure also into DIR, which must be new, empty or an earlier -o DIR (plots/output.py).

For every kernel x input and each kind of code (the release's own SASS, and its
PTX compiled by the driver), the time of every release relative to the oldest,
and a step detector: a step is a release whose time differs from the release
before it beyond the run's A/A noise (the bootstrap interval of new/old lies
wholly outside the A/A pair's own interval around 1), with whether the PTX
changed at that step (the front end) or only the SASS (the back end, ptxas or
the driver's compiler) and the hot-loop difference from the codegen audit.
Where no step is found it says "flat" and shows the largest move and the noise.
"""
import argparse
import pathlib
import sys
from dataclasses import dataclass, field

from plots import cli, codegen, figures, output, pages, selection, stats
from plots import table as fmt
from plots.document import FigureBlock, Heading, Para, Part, Slot, TableBlock
from plots.environment import gpu_name
from plots.results import ResultError, aa_comparison, is_control, is_timed, load_run, module_entry, policy_label
from plots.table import Table

MIN_NOISE = 0.005   # a step must exceed 0.5% even where the A/A pair agrees to the last digit


def version_text(release):
    return ".".join(map(str, release))


@dataclass
class Point:
    release: tuple
    median: float
    relative: float   # over the oldest release's median, same kind
    samples: tuple


@dataclass
class Step:
    release: tuple
    previous: tuple
    comparison: stats.Comparison
    front_end: bool | None   # the PTX changed at this step; None where the audit does not say
    hot_loop: str            # the codegen audit's difference between the two builds


@dataclass
class Series:
    kernel: str
    impl: str
    input: str
    kind: str
    arch: str
    points: list
    noise: float          # the A/A pair's half-width around 1, at least MIN_NOISE
    aa: object            # stats.Comparison of the A/A pair, or None
    steps: list = field(default_factory=list)


def _noise(aa):
    if aa is None:
        return None
    return max(MIN_NOISE, aa.ci_high - 1, 1 - aa.ci_low)


def _step(old, new, noise, series, audit, ptx):
    c = stats.compare_samples(old.samples, new.samples, 1 + noise)
    if c.ci_low <= 1 + noise and c.ci_high >= 1 / (1 + noise):
        return None
    label = lambda p: f"nvrtc {version_text(p.release)}"
    key = lambda p: ptx.get((series["kernel"], label(p), series["arch"]))
    front = None if key(old) is None or key(new) is None else key(old) != key(new)
    sass = lambda p: codegen.find(audit, series["impl"], label(p), series["arch"], series["bits"])
    return Step(new.release, old.release, c, front, codegen.difference(sass(old), sass(new)))


@dataclass(frozen=True)
class History:
    run: object
    series: list        # [Series]

    @property
    def releases(self):
        return sorted({p.release for s in self.series for p in s.points})


def model(run, audit, ptx):
    """The History of a release-matrix run: its series, each step told against the codegen audit."""
    return History(run, history(run, audit, ptx))


def history(run, audit, ptx):
    """[Series] for every kernel x input x kind of the run's module rows."""
    groups = {}
    for row in run.rows:
        entry = module_entry(row["toolchain"])
        if not entry or not is_timed(row) or is_control(row):
            continue
        release, kind, arch = entry
        key = (row["impl"], policy_label(row), row["input"], kind, arch, row["policy"]["counter_bits"])
        groups.setdefault(key, []).append((release, row))
    out = []
    for (impl, policy, input, kind, arch, bits), found in groups.items():
        found.sort(key=lambda x: x[0])
        base = stats.median(found[0][1]["samples_ms"])
        points = [Point(rel, stats.median(r["samples_ms"]), stats.median(r["samples_ms"]) / base,
                        tuple(r["samples_ms"])) for rel, r in found]
        aa = aa_comparison(run, found[0][1])
        kernel_name = f"{impl} {policy}".strip()
        series = Series(kernel_name, impl, input, kind, arch, points, _noise(aa) or MIN_NOISE, aa)
        hit = codegen.find(audit, impl, f"nvrtc {version_text(points[0].release)}", arch, bits)
        info = {"kernel": hit.kernel if hit else impl, "impl": impl, "arch": arch, "bits": bits}
        series.steps = [s for a, b in zip(points, points[1:]) if (s := _step(a, b, series.noise, info, audit, ptx))]
        out.append(series)
    return out


# ---- several GPUs: which steps replicate ----

@dataclass(frozen=True)
class Move:
    """One GPU's series at one release against the release before it."""
    comparison: stats.Comparison
    noise: float
    step: bool          # beyond the noise: a step of that series

    @property
    def direction(self):
        return "faster" if self.comparison.ratio < 1 else "slower"


@dataclass(frozen=True)
class Replication:
    gpus: list          # the GPUs' labels, each with a release history
    rows: list          # [(kernel, input, kind of code, release, {GPU label: Move, or None where not timed})]

    def replicated(self, moves):
        """Whether every GPU shows the step, the same way."""
        found = list(moves.values())
        return all(m and m.step for m in found) and len({m.direction for m in found}) == 1

    @property
    def words(self):
        """'3 of 16 steps replicate on every GPU (...)'."""
        n = sum(self.replicated(moves) for *_, moves in self.rows)
        return f"{n} of the {len(self.rows)} steps found on some GPU replicate on every GPU"


def _move(series, release):
    """The series' Move at `release` against the release before it, or None where it has no such pair."""
    points = {p.release: p for p in series.points}
    before = [p for p in series.points if p.release < release]
    if release not in points or not before:
        return None
    step = next((st for st in series.steps if st.release == release), None)
    c = step.comparison if step else stats.compare_samples(before[-1].samples, points[release].samples,
                                                           1 + series.noise)
    return Move(c, series.noise, step is not None)


def replication(histories):
    """The Replication of [(GPU label, History)]: every step any GPU shows (kernel, input, code, release), and
    each GPU's move there; None with fewer than two histories."""
    if len(histories) < 2:
        return None
    keys = dict.fromkeys((s.kernel, s.input, s.kind, st.release) for _, h in histories for s in h.series
                         for st in s.steps)
    by_key = [(label, {(s.kernel, s.input, s.kind): s for s in h.series}) for label, h in histories]
    rows = [(kernel, input, kind, release, {label: _move(found[(kernel, input, kind)], release)
                                            if (kernel, input, kind) in found else None for label, found in by_key})
            for kernel, input, kind, release in keys]
    return Replication([label for label, _ in histories], rows)


def _move_cell(m):
    if m is None:
        return "not timed"
    c = m.comparison
    return (f"{m.direction if m.step else 'within noise'}: {fmt.ratio(c.ratio, 3)} "
            f"({fmt.interval(c.ci_low, c.ci_high)}; noise ±{m.noise:.1%})")


def replication_table(r):
    rows = [[kernel, input, kind, version_text(release)] + [_move_cell(moves[g]) for g in r.gpus]
            + ["yes" if r.replicated(moves) else "no"] for kernel, input, kind, release, moves in r.rows]
    return Table("Release steps on each GPU", ["kernel", "input", "code", "release"] + r.gpus + ["on every GPU"],
                 rows, ["Each GPU's time at the release over its time at the release before, with the bootstrap "
                        "interval and that series' A/A noise; a step lies wholly outside the noise (as for one GPU)."
                        " Every step any GPU shows is listed."], align="llll" + "r" * len(r.gpus) + "l")


def _group_cell(moves):
    """One GPU's moves over a group's inputs: 'N/M <direction>, low..high' (N of M inputs step)."""
    stepped = [m for m in moves if m and m.step]
    if not stepped:
        return "within noise" if any(moves) else "not timed"
    ratios = [m.comparison.ratio for m in stepped]
    return (f"{len(stepped)}/{len(moves)} {'/'.join(sorted({m.direction for m in stepped}))}, "
            f"{fmt.ratio(min(ratios), 3)}..{fmt.ratio(max(ratios), 3)}")


def replication_summary_table(r):
    """replication_table with a kernel's inputs in one line: each GPU's steps counted over them, with their range."""
    groups = {}
    for kernel, input, kind, release, moves in r.rows:
        groups.setdefault((kernel, kind, release), []).append(moves)
    rows = [[kernel, kind, version_text(release)] + [_group_cell([m[g] for m in found]) for g in r.gpus]
            + [f"{sum(r.replicated(m) for m in found)} of {len(found)}"] for (kernel, kind, release), found in
            groups.items()]
    return Table("Release steps on each GPU", ["kernel", "code", "release"] + r.gpus + ["inputs stepping on every GPU"],
                 rows, ["Each GPU's time at the release over the release before, over the inputs where some GPU "
                        "steps: how many step beyond the series' A/A noise, which way, and their ratios. Each input: "
                        "the history report."], align="lll" + "r" * len(r.gpus) + "r")


# ---- the table and the figure ----

METHOD = __doc__.split("\n\n")[1].replace("\n", " ")   # what the history does, in a paragraph


FRONT_END = {True: "front end: PTX changed", False: "back end only", None: "PTX not audited"}


def verdict_words(s):
    """'slower at 13.1.115 (1.05x, ...; front end: PTX changed)' per step, or 'flat from ... to ...'."""
    if s.steps:
        return "; ".join(f"{'slower' if st.comparison.ratio > 1 else 'faster'} at {version_text(st.release)} "
                         f"({fmt.ratio(st.comparison.ratio, 3)}, "
                         f"{fmt.interval(st.comparison.ci_low, st.comparison.ci_high)}; {FRONT_END[st.front_end]})"
                         for st in s.steps)
    return f"flat from {version_text(s.points[0].release)} to {version_text(s.points[-1].release)}"


def history_table(h, shown=None):
    """The History's series (or those `shown`) with their steps."""
    shown = h.series if shown is None else shown
    rows = [[s.kernel, s.input, s.kind, f"{fmt.ratio(min(p.relative for p in s.points), 3)}.."
             f"{fmt.ratio(max(p.relative for p in s.points), 3)}",
             f"±{s.noise:.1%}" + ("" if s.aa else " (no A/A)"), verdict_words(s),
             "; ".join(f"{version_text(st.previous)} -> {version_text(st.release)}: {st.hot_loop}" for st in s.steps)
             or "-"] for s in shown]
    releases = sorted({p.release for s in shown for p in s.points})
    return Table(f"Every release from {version_text(releases[0])} to {version_text(releases[-1])}, one run on one GPU",
                 ["kernel", "input", "code", "time over the oldest", "A/A noise", "steps", "SASS at each step"], rows,
                 ["time over the oldest: the range over releases of each release's median over the oldest release's, "
                  "same kernel, input and kind of code.",
                  "A/A noise: half the A/A pair's 95% interval around 1 (at least 0.5%); a step is a release whose "
                  "bootstrap interval against the release before it lies wholly outside that noise.",
                  "front end: the kernel's PTX (comments dropped) changed at that step; back end only: the PTX is "
                  "the same and the assembler (ptxas, or the driver's compiler for PTX) made different SASS.",
                  f"Run: {h.run.name}."], align="lllrrll")


FIGURE_INPUT = "uniform"   # the lesson's first input; the table has every input


def history_figure(model, width):
    """model: [(GPU index, label, History)]. One panel per implementation (the multi-pass one at its default P), on
    uniform bytes: SASS solid, PTX dashed; one GPU in its kernels' colours, several a colour each."""
    several = len(model) > 1
    drawn = [(index, label, [s for s in h.series if s.input == FIGURE_INPUT and "P=" not in s.kernel])
             for index, label, h in model]
    kernels = list(dict.fromkeys(s.kernel for _, _, found in drawn for s in found))
    fig, axes = figures.new_figure(width, 1.05 * len(kernels) + 0.8, nrows=len(kernels), ncols=1, sharex=True,
                                   squeeze=False)
    fig.subplots_adjust(hspace=0.55)
    releases = sorted({p.release for _, _, found in drawn for s in found for p in s.points})
    x = {r: i for i, r in enumerate(releases)}
    for ax, kernel in zip(axes[:, 0], kernels):
        mine = [(index, label, s) for index, label, found in drawn for s in found if s.kernel == kernel]
        noise = max(s.noise for _, _, s in mine)
        ax.axhspan(1 - noise, 1 + noise, color="0.88", lw=0, label="A/A noise")
        for index, label, s in mine:
            ax.plot([x[p.release] for p in s.points], [p.relative for p in s.points],
                    "-" if s.kind == "SASS" else "--",
                    color=figures.gpu_color(index) if several else figures.color(s.impl),
                    marker="o" if s.kind == "SASS" else "s", fillstyle="full" if s.kind == "SASS" else "none",
                    label=f"{s.kind}, {label}" if several else f"{s.kind}")
        ax.set_title(f"{kernel.split()[0]} on {FIGURE_INPUT} bytes", loc="left", pad=2)
        ax.set_ylabel("time / oldest")
    axes[-1, 0].set_xticks(range(len(releases)), [".".join(map(str, r[:2])) for r in releases], rotation=90)
    axes[-1, 0].set_xlabel("NVRTC release")
    figures.legend_below(fig, axes[0, 0], width, (1, 3) if several else (3, 3))
    return fig


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m plots.history", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a result file of `histostudy run --toolchain nvcc,modules:DIR`")
    parser.add_argument("--codegen", default="data/codegen", help="the codegen audit folder")
    parser.add_argument("-o", "--out-dir", type=pathlib.Path,
                        help="also write the figure into this folder, swapped in whole (plots/output.py)")
    args = parser.parse_args(argv)
    try:
        run = load_run(args.run)
        if not selection.is_matrix_run(run):
            raise ResultError(args.run, "holds timed rows of fewer than three releases' modules "
                                        "(--toolchain modules:DIR)")
        h = model(run, codegen.load_audit(args.codegen), codegen.ptx_hashes(args.codegen))
    except ResultError as e:
        print(f"history: {e}", file=sys.stderr)
        return 2
    if args.out_dir:
        status, _ = output.render("history", args.out_dir,
                                  lambda folder: figures.both_widths(history_figure, [(0, selection.gpu_of(run), h)],
                                                                     folder, "history"), 2)
        if status:
            return status
    output.write_stdout(history_table(h).text() + "\n")
    return 0


def history_method(releases):
    """What the release history did, once for every GPU."""
    return (f"Every NVRTC release from {version_text(releases[0])} to {version_text(releases[-1])} built the "
            "study's kernels without a GPU; one run a GPU timed each release's SASS and its PTX compiled by the "
            "driver, beside nvcc and its A/A control, in rotation on one set of buffers.")


def history_prose(h):
    """What one GPU's release history found, in words that name no GPU (history_section names them)."""
    model = h.series
    stepped = [s for s in model if s.steps]
    skipped = h.run.environment.get("skipped_toolchains") or []
    text = f"{len(model) - len(stepped)} of {len(model)} kernel x input x code series are flat"
    if stepped:
        steps = sorted({version_text(st.release) for s in stepped for st in s.steps})
        text += (f" and {len(stepped)} step, all at {', '.join(steps)}, in "
                 f"{', '.join(sorted({s.impl for s in stepped}))}")
    if skipped:
        text += f"; the driver could not load {len(skipped)} entries (`{skipped[0].partition(': ')[0]}` first)"
    return text + "."


def history_section(m):
    timed = [g for g in m.own if g.history and g.history.series]
    if not timed:
        return [history_slot(m.study.releases, m.missing("history"))]
    h = timed[0].history
    said = {}
    for g in timed:
        said.setdefault(history_prose(g.history), []).append(gpu_name(g.history.run, None))
    text = history_method(h.releases) + "".join(f" On {fmt.and_list(gpus)}, {words}" for words, gpus in said.items())
    if m.steps and m.steps.rows:
        text += f" {pages.sentence(m.steps.words)}."
        table = replication_summary_table(m.steps)
    else:
        stepped = [s for s in h.series if s.steps]
        table = history_table(h, stepped or h.series[:1])
        table.title = "Release steps beyond the A/A noise" if stepped else table.title
    several = len(m.histories) > 1
    return [Heading("The release history", 3), Para(text), TableBlock(table, "history", wide=True),
            FigureBlock("history", 0, "Each kernel's median time on uniform bytes under every NVRTC release, over the "
                                      "oldest release's: the release's own SASS (filled) and its PTX compiled by the "
                                      "driver (hollow, where the driver could load it); the grey band is the run's "
                                      "A/A noise" + ("; a colour per GPU." if several else "."),
                        f"{pages.runs_words(found.run.path for _, _, found in m.histories)}; `data/codegen/`")]


def history_slot(releases, missing):
    """The marked place for the release history, over the releases the study lists (data/nvrtc-releases.csv);
    `missing` says why it is empty (a user's appendix: where the study's own history is)."""
    span = f"CUDA {releases[0]} to {releases[-1]}" if releases else "every CUDA release"
    return Slot(f"Release history, {span}: {missing.partition(': ')[0]}.",
                f"This place is kept for the same comparison across every NVRTC release of {span} "
                f"({len(releases) or 'each'} releases) on one GPU and driver, each against the one before under an "
                "A/A control (a run of `histostudy run --toolchain nvcc,modules:DIR`, read by "
                f"`python3 -m plots.history`). {pages.missing_detail(missing)} Nothing here is a result.")


def history_report(m):
    """Every kernel x input x kind of code under every release: the release history in full, a GPU's each, and
    which steps replicate on every GPU."""
    found = pages.each_gpu(m, "history", lambda g: [TableBlock(history_table(g.history))])
    if not found:
        return pages.page("The release history", [Para(f"Release history: {m.missing('history')}")])
    steps = [Heading("Which steps replicate", 2), Para(pages.sentence(m.steps.words) + "."),
             TableBlock(replication_table(m.steps))] if m.steps and m.steps.rows else []
    return pages.page("The release history in full", [Para(METHOD)], found, steps)



def _figures(m):
    return {"history": (history_figure, m.histories)}


PART = Part("history", "every kernel, input and kind of code under every NVRTC release",
            history_section, history_report, figures=_figures)

if __name__ == "__main__":
    sys.exit(cli.guarded("history", main))
