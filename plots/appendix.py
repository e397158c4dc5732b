"""The appendix a course author pastes (paper/appendix.md, paper/appendix.tex): at most 400 lines.

Built from a Study: the runs chosen (plots/selection.py) and, for a user's own appendix, the study's runs shown
beside them. Every number is computed here from the run files and data/published/; nothing is typed. Each
section's models are computed first; the renderers (plots/document.py, plots/figures.py) take them.
"""
from dataclasses import dataclass

from plots import claims, figures, history, lesson, placement, stats, sweep, versions
from plots import table as fmt
from plots.document import FigureBlock, Heading, Items, Para, Slot, TableBlock
from plots.environment import (build_words, clock_words, commit_line, gpu_line, gpu_name, gpu_words, host_words,
                               sampling_plan_words)
from plots.results import (case_key, cuda_version, implementation, kernel_label, primary_gpu_toolchain, roles,
                           version_pairs)
from plots.table import Table, value_range

TITLE = "Appendix: the 256-bin histogram, re-measured"
MAX_LINES = 400
LESSON_INPUTS = ("uniform", "lesson_english", "one_byte")   # the three the lesson ran
BASELINE, PRIVATIZED = lesson.LESSON_PAIR["cuda"]
PLACEMENT_ROLES = {BASELINE, PRIVATIZED, "subject", "peer"}   # Figure 2's kernels
SWEEP_ROLES = (BASELINE, PRIVATIZED, "subject", "peer")       # the sweep's kernels of this appendix's GPU


def _ratio(a, b):
    return a / b if a and b else None


# ---- the GPUs measured: the lesson run of each selection ----

@dataclass(frozen=True)
class Gpu:
    name: str               # 'NVIDIA H200', with ', yours' or ", the study's" in a user's appendix
    view: object            # lesson.LessonView of the lesson run's first GPU toolchain
    kind: int               # 0: this appendix's runs; 1: the study's, beside them

    @property
    def label(self):
        return f"{self.name} ({self.view.toolchain})"


def _gpu(run, kind, whose):
    if run is None:
        return None
    toolchain = primary_gpu_toolchain(run)
    size = next(r["size"] for r in run.rows if r["toolchain"] == toolchain and r["experiment"] == "lesson")
    return Gpu(f"{gpu_name(run, toolchain)}{whose}", lesson.LessonView(run, toolchain, size), kind)


def gpus(study):
    """This appendix's GPU, then the study's beside it (a user's appendix)."""
    whose = (", yours", ", the study's") if study.beside else ("", "")
    found = [_gpu(study.sel.lesson, 0, whose[0]), _gpu(study.beside.lesson, 1, whose[1]) if study.beside else None]
    return [g for g in found if g]


# ---- 1. the lesson's table ----

def lesson_table(gpu_list, t4):
    inputs = list(dict.fromkeys(i for g in gpu_list for i in g.view.inputs))
    columns = ["input", "busiest bin", "bins used"]
    for g in gpu_list:
        columns += [f"{g.name}: {g.view.base} ms", f"{g.view.private} ms", "speedup"]
    columns += [f"{t4.gpu}: global ms", "private ms", "speedup"]
    rows = []
    for input in inputs:
        first = next(g.view.any_row(input) for g in gpu_list if g.view.any_row(input))
        cells = [input, fmt.pct(first["input_stats"]["busiest_pct"], 2), first["input_stats"]["bins_used"]]
        for g in gpu_list:
            base, priv = g.view.ms(g.view.base, input), g.view.ms(g.view.private, input)
            cells += [fmt.ms(base), fmt.ms(priv), fmt.ratio(_ratio(base, priv))]
        cells += [fmt.ms(t4.get("global_ms", input)), fmt.ms(t4.get("private_ms", input)),
                  fmt.ratio(t4.get("speedup", input))]
        rows.append(cells)
    view = gpu_list[0].view
    launch = view.row(view.base, inputs[0])["policy"]
    notes = [f"{'; '.join(g.label for g in gpu_list)}: medians of per-run samples, {view.size:,} bytes, "
             f"grid {launch['grid']:,} x {launch['block']}; speedup: {view.base} over {view.private}.",
             f"{t4.label}, {t4.build}: the lesson's table, a mean of {fmt.count(t4.get('timed_runs'))} runs "
             f"(data/published/); prose is our own English input, which the lesson did not run.",
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


def lesson_bars(gpu_list, t4):
    names = (gpu_list[0].view.base, gpu_list[0].view.private)
    def times(kernel_ms, kernels):
        return {name: {i: kernel_ms(kernel, i) for i in LESSON_INPUTS} for name, kernel in zip(names, kernels)}
    sources = [(g.name, g.kind, times(g.view.ms, (g.view.base, g.view.private))) for g in gpu_list]
    sources.append((f"{t4.gpu}, published", "published", times(t4.kernel_ms, (BASELINE, PRIVATIZED))))
    return figures.LessonBars(list(LESSON_INPUTS), [(name, name) for name in names], sources)


def _placement_range(study, view):
    """' At the placement run's best and worst bins offsets global atomics take ...', or ''."""
    s = placement.find_series(study.sel.placement, view.base, "uniform", view.toolchain) \
        if study.sel.placement else None
    if s is None:
        return ""
    medians, priv = s.medians(), view.ms(view.private, "uniform")
    return (f" Where the bins lie moves global atomics (section 2): at the placement run's best and worst offsets "
            f"they take {fmt.ms(medians[s.best])} and {fmt.ms(medians[s.worst])} ms on uniform bytes, a speedup "
            f"of {fmt.ratio(_ratio(medians[s.best], priv))} to {fmt.ratio(_ratio(medians[s.worst], priv))}.")


def lesson_prose(study, gpu_list, t4):
    g = gpu_list[0]
    view, run = g.view, g.view.run
    base, private = view.base, view.private
    speed = {i: _ratio(view.ms(base, i), view.ms(private, i)) for i in ("uniform", "one_byte")}
    priv = [view.ms(private, i) for i in view.inputs]
    text = (f"On {gpu_line(run, view.toolchain)} with {view.toolchain}, at the lesson's size and launch, global "
            f"atomics take {fmt.ms(view.ms(base, 'uniform'))} ms on uniform bytes and the privatized kernel "
            f"{fmt.ms(view.ms(private, 'uniform'))} ms: a speedup of {fmt.ratio(speed['uniform'])}, where the "
            f"lesson's {t4.gpu} shows {fmt.ratio(t4.get('speedup', 'uniform'))}; on the one-byte input "
            f"{fmt.ratio(speed['one_byte'])} against {fmt.ratio(t4.get('speedup', 'one_byte'))}. The privatized "
            f"kernel takes {value_range(priv, 3, ' ms')} on every input (the T4's grows "
            f"{fmt.ratio(_ratio(t4.get('private_ms', 'one_byte'), t4.get('private_ms', 'uniform')))} on the "
            f"one-byte input)")
    reader = min(view.readers, default=None)
    over_reader = _ratio(view.ms(private, "uniform"), view.ms(reader, "uniform"))
    if over_reader:
        text += f", {fmt.ratio(over_reader, 2)} the time of `{reader}`, the lesson's reader that counts nothing"
        if 1 / stats.DEFAULT_BAND <= over_reader <= stats.DEFAULT_BAND:
            text += ": on this GPU counting costs little more than reading the bytes one at a time"
    return text + "." + _placement_range(study, view)


def lesson_section(study):
    t4 = lesson.baseline_source(study.published)
    gpu_list = gpus(study)
    blocks = [Heading("1. The lesson's table on a newer GPU")]
    if not gpu_list:
        return blocks + [Para(f"The lesson's table: {study.missing('lesson')}")]
    runs = " and ".join(f"`{g.view.run.path}`" for g in gpu_list)
    return blocks + [
        Para(lesson_prose(study, gpu_list, t4)),
        TableBlock(lesson_table(gpu_list, t4), "lesson", wide=True),
        FigureBlock("lesson", 1, f"Median time per run of global atomics and of the privatized kernel on the "
                                 f"lesson's three inputs, {' and '.join(g.label for g in gpu_list)} (solid) beside "
                                 f"the lesson's {t4.gpu} (hatched, published); log scale.",
                    f"{runs}; `data/published/lesson_t4.csv`")]


# ---- 2. where the bins lie ----

def _shown(series):
    """A series Figure 2 shows: global atomics on every input, the kernels that merge on uniform bytes."""
    return bool(PLACEMENT_ROLES & set(series.roles)) and (BASELINE in series.roles or series.input == "uniform")


def placement_lines(run):
    """Each kernel's time over its fastest offset under the run's first toolchain: global atomics on every input,
    and the kernels that add into the bins only to merge, on uniform bytes."""
    toolchain = primary_gpu_toolchain(run)
    shown = [s for s in placement.all_series(run) if s.toolchain == toolchain and _shown(s)]
    ratios = lambda s: {o: m / s.medians()[s.best] for o, m in s.medians().items()}  # noqa: E731
    return figures.PlacementLines([
        ("Global atomics", [(s.kernel, s.input, ratios(s)) for s in shown if BASELINE in s.roles]),
        ("Per-block copies merged into the bins", [(s.kernel, s.input, ratios(s)) for s in shown
                                                    if BASELINE not in s.roles])], toolchain)


def _toolchains_agree(run):
    """How far, at most, another toolchain's (or the A/A control's) median lies from the first toolchain's at
    the same kernel, input and offset, over the series the figure shows: the curves are the code's."""
    first = primary_gpu_toolchain(run)
    by_case = {(s.kernel, s.input, s.toolchain): s.medians() for s in placement.all_series(run) if _shown(s)}
    gaps = [max(m, by_case[(k, i, first)][o]) / min(m, by_case[(k, i, first)][o]) - 1
            for (k, i, tc), medians in by_case.items() if tc != first and (k, i, first) in by_case
            for o, m in medians.items() if o in by_case[(k, i, first)]]
    return f"{100 * max(gaps):.1f}%" if gaps else None


def placement_prose(study):
    run = study.sel.placement
    found = placement.effects(run)
    baseline = {e.input: e for e in found if BASELINE in e.roles}
    offsets = placement.offsets_of(run)
    head = baseline.get("uniform")
    s = next(x for x in head.series if x.toolchain == primary_gpu_toolchain(run)) if head else None
    others = [x.spread for e in found if BASELINE not in e.roles for x in e.series]
    text = (f"Every GPU toolchain of a controlled run adds into one bins buffer, placed a chosen number of bytes past "
            f"a 2 MiB boundary. The placement run moved it from {offsets[0]:,} to {offsets[-1]:,} bytes in steps of "
            f"{placement.sweep_step(offsets):,}.")
    if s:
        period = s.period()
        text += (f" Global atomics on uniform bytes take {fmt.ms(s.medians()[s.best])} ms with the bins at "
                 f"{s.best:,} and {fmt.ms(s.medians()[s.worst])} ms at {s.worst:,}: {fmt.ratio(s.spread, 2)} from "
                 "placement alone" + (f", the pattern repeating every {period:,} bytes" if period else "") + ".")
    spreads = [f"{value_range([x.spread for x in e.series], 2, 'x')} on {input}" for input in ("lesson_english",
               "one_byte") for e in [baseline.get(input)] if e]
    if spreads:
        text += f" Worst over best on the other inputs: {' and '.join(spreads)}."
    if others:
        text += (f" The kernels that add into the global bins only to merge per-block counts vary by at most "
                 f"{fmt.ratio(max(others), 2)}.")
    agree = _toolchains_agree(run)
    if agree:
        text += f" The other toolchains and the A/A control lie within {agree} of the curves of Figure 2."
    return text + (" So a comparison of global atomics across builds, drivers or GPUs holds only with the bins at "
                   "the same offset; the study records the offset in every row and compares toolchains on one "
                   "buffer. Why the offset matters is not measured here ([the placement report](reports/placement.md) "
                   "says what is conjecture).")


def placement_section(study):
    blocks = [Heading("2. Where the bins lie")]
    run = study.sel.placement
    if run is None:
        return blocks + [Para(f"Bins placement: {study.missing('placement')}")]
    lines = placement_lines(run)
    merging = ", ".join(dict.fromkeys(impl for impl, _, _ in lines.panels[1][1]))
    return blocks + [Para(placement_prose(study)),
                     FigureBlock("placement", 2, f"Median time of each kernel at each bins offset over its time at "
                                                 f"its fastest offset, {lines.toolchain}: global atomics on three "
                                                 f"inputs; the kernels that merge per-block copies into the bins "
                                                 f"({merging}) on uniform bytes.", f"`{run.path}`")]


# ---- 3. CUDA versions ----

def _version_pair(run):
    """The first pair of CUDA versions of one compiler (the version, not the compiler, changes)."""
    return version_pairs(run)[0]


def version_rows(run, input="uniform"):
    return [c for c in versions.comparisons(run, *_version_pair(run)) if c.base["input"] == input]


def _cell(c):
    return f"{fmt.ratio(c.ratio, 3)} ({fmt.interval(c.ci_low, c.ci_high)})" if c else fmt.MISSING


def gpu_toolchains(run):
    return [tc for tc in run.toolchains(controls=False) if tc != "cpu"]


def repeat_words(run, first):
    """How a later version run differs from the first: the order of its toolchains, or nothing."""
    return "order reversed" if gpu_toolchains(run) != gpu_toolchains(first) else "repeat"


def _in_run(run, first):
    if run is first:
        return "in the run"
    return "in the run with the order reversed" if repeat_words(run, first) == "order reversed" else "in its repeat"


def version_table(runs):
    main, rest = runs[0], runs[1:]
    base_tc, new_tc = _version_pair(main)
    repeats = [{case_key(c.base): c for c in version_rows(r)} for r in rest]
    rows = []
    for c in version_rows(main):
        cells = [kernel_label(c.base), fmt.ms(c.ab.base_median), fmt.ms(c.ab.new_median), _cell(c.ab), _cell(c.aa),
                 c.verdict]
        for repeat in repeats:
            again = repeat.get(case_key(c.base))
            cells += [_cell(again.ab) if again else fmt.MISSING, again.verdict if again else fmt.MISSING]
        rows.append(cells)
    columns = ["kernel", f"{base_tc} ms", f"{new_tc} ms", "A/B (95% CI)", "A/A (95% CI)", "verdict"]
    for run in rest:
        columns += [f"{repeat_words(run, main)}: A/B", "verdict"]
    notes = [f"Uniform bytes, medians; A/B: {new_tc} over {base_tc}; A/A: {versions.aa_label(main)}, the same kernel "
             "and input in the same run.", versions.rule_note(stats.DEFAULT_BAND)]
    notes += [f"{repeat_words(r, main).capitalize()}: `{r.path}`, toolchains in the order "
              f"{', '.join(gpu_toolchains(r))}; A/A: {versions.aa_label(r) or 'none'}." for r in rest]
    return Table(f"CUDA {_major_minor(new_tc)} against {_major_minor(base_tc)}: one kernel source, two NVRTC "
                 "releases", columns, rows, notes, align="lrrrrl" + "rl" * len(repeats))


def _major_minor(toolchain):
    major, minor = cuda_version(toolchain)
    return f"{major}.{minor}"


def _counts(run):
    found = versions.comparisons(run, *_version_pair(run))
    n = {v: sum(c.verdict == v for c in found) for v in (stats.SAME, stats.SLOWER, stats.FASTER)}
    return (f"of {len(found)} rows ({len({kernel_label(c.base) for c in found})} kernels on "
            f"{len({c.base['input'] for c in found})} inputs) {n[stats.SAME]} are the same within "
            f"{stats.DEFAULT_BAND:.2f}x, {n[stats.SLOWER]} slower and {n[stats.FASTER]} faster")


def versions_prose(study):
    runs = study.sel.versions
    t4 = lesson.baseline_source(study.published)
    text = (f"The lesson timed its {t4.gpu} under two CUDA versions: " + "; ".join(
        f"`{p.metric}` {fmt.ms(p.old_ms)} ms under CUDA {p.old.cuda}, {fmt.ms(p.new_ms)} ms under CUDA {p.new.cuda} "
        f"({fmt.ratio(p.ratio, 3)})" for p in versions.published_pairs(study.published))
        + f", means of {fmt.count(t4.get('timed_runs'))} runs with no spread, so the lesson cannot say which "
        "change is noise.")
    if not runs:
        return text
    base_tc, new_tc = _version_pair(runs[0])
    text += (f" Ours compiles one kernel source with {base_tc} and {new_tc}, samples them in rotation on one set of "
             f"buffers with an A/A control, and gives a verdict only where the A/A pair is the same: "
             + "; ".join(f"{_in_run(r, runs[0])}, {_counts(r)}" for r in runs) + ".")
    return text


def version_figure(study):
    main = study.sel.version
    pairs = versions.published_pairs(study.published)
    published = {p.role: p.ratio for p in pairs if p.input in ("-", "uniform") and p.role}
    rows = [(kernel_label(c.base), c.ab, c.aa, next((published[r] for r in roles(c.base) if r in published), None))
            for c in version_rows(main)]
    base_tc, new_tc = _version_pair(main)
    published_label = f"{pairs[0].old.gpu}, CUDA {pairs[0].new.cuda} over {pairs[0].old.cuda} (published, no " \
        "interval)" if pairs else ""
    return figures.VersionRows(rows, (_major_minor(base_tc), _major_minor(new_tc)), f"ours: {new_tc} over {base_tc}",
                               published_label)


def history_model(study):
    """plots.history's series for the history run, or None without one."""
    run = study.sel.history
    return history.history(run, study.audit, study.ptx or {}) if run else None


def history_prose(study, model):
    run = study.sel.first("history")
    stepped = [s for s in model if s.steps]
    flat = len(model) - len(stepped)
    skipped = run.environment.get("skipped_toolchains") or []
    releases = sorted({p.release for s in model for p in s.points})
    kernels = sorted({(s.impl, s.input) for s in stepped})
    text = (f"Every NVRTC release from {history.version_text(releases[0])} to {history.version_text(releases[-1])} "
            f"built the study's kernels on a machine without a GPU; one run on the H200 "
            f"(`{run.path}`) timed each release's SASS, and each release's PTX compiled by the driver, beside nvcc "
            f"and its A/A control, sampled in rotation on one set of buffers. Of {len(model)} kernel x input x "
            f"code series, {flat} are flat within their A/A noise")
    if stepped:
        steps = sorted({history.version_text(st.release) for s in stepped for st in s.steps})
        text += (f"; {len(stepped)} series step, all at {', '.join(steps)}, in "
                 + ", ".join(sorted({impl for impl, _ in kernels})) + " (table below)")
    text += "."
    if skipped:
        text += (f" {len(skipped)} entries could not run on this driver and were skipped, each with its reason in "
                 f"the run; the first: `{skipped[0]}`")
    return text


def history_section(study):
    model = history_model(study)
    if not model:
        return [history_slot(study.releases)]
    stepped = [s for s in model if s.steps]
    table = history.history_table(study.sel.first("history"), stepped or model[:1])
    table.title = "Release steps beyond the A/A noise" if stepped else table.title
    return [Heading("The release history", 3), Para(history_prose(study, model)), TableBlock(table, "history", wide=True),
            FigureBlock("history", 4, "Each kernel's median time on uniform bytes under every NVRTC release, over the "
                                      "oldest release's: the release's own SASS (filled) and its PTX compiled by the "
                                      "driver (hollow, where the driver could load it); the grey band is the run's "
                                      "A/A noise.", f"`{study.sel.first('history').path}`; `data/codegen/`")]


def history_slot(releases):
    """The marked place for the release history, over the releases the study lists (data/nvrtc-releases.csv)."""
    span = f"CUDA {releases[0]} to {releases[-1]}" if releases else "every CUDA release"
    return Slot(f"Release history, {span}: not measured yet.",
                f"This place is kept for the same comparison across every NVRTC release of {span} "
                f"({len(releases) or 'each'} releases) on one GPU and driver, each against the one before under an "
                "A/A control (a run of `histostudy run --toolchain nvcc,modules:DIR`, read by "
                "`python3 -m plots.history`). No such run is in the paper yet: nothing here is a result.")


def versions_section(study):
    runs = study.sel.versions
    pair = [_major_minor(tc) for tc in _version_pair(runs[0])] if runs else None
    blocks = [Heading(f"3. CUDA {pair[0]} against CUDA {pair[1]}" if pair else "3. CUDA versions compared")]
    if not runs:
        return blocks + [Para(versions_prose(study) + f" Ours: {study.missing('versions')}")] + history_section(study)
    model = version_figure(study)
    return blocks + [
        Para(versions_prose(study)),
        TableBlock(version_table(runs), "versions", wide=True),
        FigureBlock("versions", 3, f"Each kernel's median time under the newer CUDA over the older on uniform bytes "
                                   f"with its 95% bootstrap interval ({model.ours}), its A/A control (hollow "
                                   "squares), and the lesson's published T4 ratios (hollow diamonds); the grey band "
                                   "is the 'same' band.",
                    f"`{study.sel.version.path}`; `data/published/lesson_t4.csv`")] + history_section(study)


# ---- 4. the contention sweep ----

def sweep_series(study):
    """Table 16-4's columns and, per measured GPU, its per-block histogram (and, for this appendix's GPU, global
    atomics, the subject and the peer beside it)."""
    textbook = (sweep.LIKE_FOR_LIKE,)
    series = [figures.SweepSeries(implementation("cuda", sweep.LIKE_FOR_LIKE), f"{g} (published)", "published", v,
                                  textbook) for g, v in study.published.table_16_4.items()]
    for kind, sel in enumerate([study.sel] + ([study.beside] if study.beside else [])):
        run = sel.sweep
        if run is None:
            continue
        tc = primary_gpu_toolchain(run)
        whose = (", yours" if kind == 0 else ", the study's") if study.beside else ""
        ours = [c for c in sweep.our_series(run).values() if c.toolchain == tc and not c.variant]
        series += [figures.SweepSeries(c.impl, f"{gpu_name(run, tc)}{whose}", kind, c.values, c.roles)
                   for role in (SWEEP_ROLES if kind == 0 else textbook) for c in ours if role in c.roles]
    return series


def sweep_table(study, series):
    measured = [s for s in series if s.kind != "published"]
    published = [s for s in series if s.kind == "published"]
    columns = ["distinct values"] + [s.whose.removesuffix(" (published)") for s in published] + \
        [f"{s.impl}, {s.whose}" for s in measured]
    ks = study.published.distinct_values
    rows = [[str(k)] + [fmt.number(s.values.get(k), 0) for s in published + measured] for k in ks]
    notes = ["Mpix/s: million one-byte samples a second (input bytes over the median time). The first columns are "
             "the textbook's per-block histogram (data/published/table_16_4_per_block.csv); ours are medians at "
             "the lesson's size, the same LCG's high byte mod K for K distinct values."]
    return Table("The contention sweep beside Table 16-4: Mpix/s by distinct values", columns, rows, notes)


def sweep_prose(study, series):
    spread = lambda v: max(v.values()) / min(v.values())  # noqa: E731
    text = "In the textbook's table the per-block histogram's best over worst throughput is " + ", ".join(
        f"{spread(v):.1f}x on {g}" for g, v in study.published.table_16_4.items()) + "."
    for s in series:
        if s.kind == 0 and {BASELINE, PRIVATIZED} & set(s.roles):
            text += (f" Ours, {s.impl} on the {s.whose}: {fmt.number(min(s.values.values()), 0)} to "
                     f"{fmt.number(max(s.values.values()), 0)} Mpix/s ({spread(s.values):.2f}x).")
    return text


def sweep_section(study):
    blocks = [Heading("4. The contention sweep (Table 16-4)")]
    series = sweep_series(study)
    measured = [s for s in series if s.kind != "published"]
    if not measured:
        return blocks + [Para(f"The sweep: {study.missing('sweep')}")]
    runs = " and ".join(f"`{sel.sweep.path}`" for sel in (study.sel, study.beside) if sel and sel.sweep)
    return blocks + [
        Para(sweep_prose(study, series)),
        TableBlock(sweep_table(study, series), "sweep", wide=True),
        FigureBlock("sweep", 5, "Throughput against the number of distinct byte values in the input (256 down to 1), "
                                "our kernels (solid) beside the textbook's per-block histogram on four GPU "
                                "generations (dashed, hollow markers, published); log scales.",
                    f"{runs}; `data/published/table_16_4_per_block.csv`")]


# ---- 5. the claims ----

def claims_section(study):
    envs, combined, _ = claims.audit(study.all_runs(), study.published)
    ours = [e for e in envs if not e.published]
    decided = sum(combined[(cid, e.label)].status != claims.UNMEASURABLE for e in ours for cid, _, _ in claims.CLAIMS)
    return [Heading("5. The course text's claims, checked"),
            Para(f"Each claim of the course text is a rule on the data, decided per environment (GPU, toolchain, "
                 f"driver) as holds, does not hold or not measurable here. {decided} of the "
                 f"{len(ours) * len(claims.CLAIMS)} verdicts for our {len(ours)} environments are decided; the "
                 "rules, figures and runs behind every verdict are in [the claims report](reports/claims.md). "
                 "CPU runs decide none: every claim is about CUDA kernels."),
            Items(tuple(f"**{cid}** {statement}" for cid, statement, _ in claims.CLAIMS)),
            TableBlock(claims.summary_table(envs, combined), "claims", wide=True)]


# ---- 6. the environments ----

def _runs_words(runs, sel):
    """'2026-12-01T09:22:49Z (lesson, versions, sweep), ...; each sampled: <plan>' with the distinct plans, for
    a GPU environment (the CPU role of a run is another environment's)."""
    plans = {}
    for run in runs:
        plans.setdefault(sampling_plan_words(run), []).append(run)
    gpu_roles = lambda r: [role for role in sel.roles_of(r) if role != "cpu"]  # noqa: E731
    started = "; ".join(f"{r.doc['started']} ({', '.join(gpu_roles(r))})" for r in runs)
    roles = lambda rs: ", ".join(dict.fromkeys(role for r in rs for role in gpu_roles(r)))  # noqa: E731
    return f"{started}. Samples: " + "; ".join(plan + ("" if len(plans) == 1 else f" ({roles(rs)})")
                                             for plan, rs in plans.items())


def environment_paragraph(env, sel_of):
    """What produced one environment's numbers: its build, its GPU and driver, its host, its commit, its runs."""
    runs = [ev.run for ev in env.members]
    run, tc = runs[0], env.members[0].toolchain
    commits = sorted({commit_line(r.doc["provenance"]) for r in runs})
    clocks = clock_words(run)
    version = run.environment["build"].get("histostudy_version", "?")
    return (f"**{env.label}.** The kernels {build_words(run, tc)}; histostudy {version} at commit "
            f"{', '.join(commits)}, on {gpu_words(run, tc)}" + (f", {clocks}" if clocks else "")
            + f"; host {host_words(run)}. Runs started {_runs_words(runs, sel_of(runs[0]))}.")


def published_paragraphs(published):
    lines = [f"**{claims.published_label(s)}.** Published by the course page ({s.source}): {s.gpu} (cc "
             f"{s.compute_capability}), `{s.build}`" + (f", {fmt.count(s.get('input_bytes'))} bytes, grid "
                                                        f"{fmt.count(s.get('grid_blocks'))} x "
                                                        f"{fmt.count(s.get('block_threads'))}, "
                                                        f"{fmt.count(s.get('warmup_runs'))} warm-ups and the mean of "
                                                        f"{fmt.count(s.get('timed_runs'))} timed runs"
                                                        if s.get("timed_runs") else ", partial figures")
             + " (`data/published/lesson_t4.csv`)." for s in published.lesson]
    lines.append(f"**Table 16-4 ({', '.join(published.table_16_4)}).** A GPU textbook's per-block histogram in "
                 "Mpix/s on one GPU of each generation; the table names no toolchain or driver "
                 "(`data/published/table_16_4_per_block.csv`).")
    return lines


def environments_section(study):
    envs, _, _ = claims.audit(study.all_runs(), study.published)
    sel_of = lambda run: study.sel if run in study.sel.runs else study.beside  # noqa: E731
    ours = [Para(environment_paragraph(e, sel_of)) for e in envs if not e.published]
    return ([Heading("6. What produced each environment's numbers")] + ours
            + [Para(p) for p in published_paragraphs(study.published)]
            + [Para("Every recorded key of every run is in [the environments report](reports/environments.md).")])


# ---- 7. further ----

REPORTS = (("lesson.md", "the lesson's tables for every toolchain and the CPU, with the floors, the atomic counts "
                         "and the partitioned exercise"),
           ("versions.md", "the version comparison for every pair of toolchains and input"),
           ("placement.md", "where the bins lie, every kernel and toolchain at every offset, and hot against cold "
                            "samples"),
           ("sweep.md", "the sweep for every implementation, GPU and CPU apart"),
           ("performance.md", "performance engineering: the fastest kernels against the read floor, the GPU's "
                              "shared-memory ceilings, the CPU implementations"),
           ("codegen.md", "what each toolchain made of each kernel"),
           ("claims.md", "every claim's rule, verdict and figures per environment and run"),
           ("environments.md", "which run feeds which report, and every environment in full"))


def further_section(study):
    return [Heading("7. In full, and on your own GPU"),
            Items(tuple(f"[reports/{name}](reports/{name}): {what}" for name, what in REPORTS)),
            Para("Your own GPU: `./dev study` on it writes its runs under `runs/`; `./dev appendix` then makes this "
                 "appendix from them, your GPU beside the T4 and the study's H200, in `runs/appendix/` (the "
                 "committed paper is never touched). `python3 -m plots.compare A.json B.json` audits one run "
                 "against another, exiting 1 on a slowdown beyond its threshold.")]


# ---- the whole ----

def intro(study, made_by, files):
    """files: the data the appendix is made from, in words."""
    return [Heading(TITLE, 1),
            Para(f"This appendix re-measures the course's histogram lesson (global atomics against a per-block "
                 f"privatized histogram on uniform bytes, English text and a one-byte input) and the textbook's "
                 f"contention sweep, and checks the course text's claims against the measurements. {made_by} from "
                 f"{files}; every number in it is computed from those files. Its tables are also in `tables/` as "
                 "Markdown and LaTeX (booktabs) fragments, with `appendix.tex` including them; its figures in "
                 "`figures/` at one column (3.5 in) and full width (`-wide`), as PNG, SVG and PDF. How the study "
                 f"measures: [docs/study-spec.md]({study.spec_link}).")]


def blocks(study, made_by, files):
    return (intro(study, made_by, files) + lesson_section(study) + placement_section(study) + versions_section(study)
            + sweep_section(study) + claims_section(study) + environments_section(study) + further_section(study))


def figure_models(study):
    """{figure name: (draw, model)} for the figures the appendix shows."""
    t4 = lesson.baseline_source(study.published)
    gpu_list = gpus(study)
    found = {}
    if gpu_list:
        found["lesson"] = (figures.lesson_figure, lesson_bars(gpu_list, t4))
    if study.sel.placement:
        found["placement"] = (figures.placement_figure, placement_lines(study.sel.placement))
    if study.sel.versions:
        found["versions"] = (figures.versions_figure, version_figure(study))
    if study.sel.first("history"):
        found["history"] = (history.history_figure, history_model(study))
    series = sweep_series(study)
    if any(s.kind != "published" for s in series):
        found["sweep"] = (figures.sweep_figure, figures.SweepLines(study.published.distinct_values, series))
    return found
