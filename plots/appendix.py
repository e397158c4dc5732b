"""The appendix a course author pastes (paper/appendix.md, paper/appendix.tex): at most 400 lines.

A renderer: its blocks (plots/document.py) are written from the Models of plots/models.py, which computed every
number from the runs plots/selection.py chose and data/published/; nothing is typed, nothing computed here.
"""
from plots import carryover, claims, counters, environment_words, history, stats, versions
from plots import table as fmt
from plots.document import FigureBlock, Heading, Items, Para, Slot, TableBlock
from plots.environment import gpu_line, gpu_name
from plots.models import BASELINE, LESSON_INPUTS, PRIVATIZED, major_minor, uniform_rows
from plots.published import lesson_name
from plots.results import case_key, kernel_label
from plots.table import Table, value_range

TITLE = "Appendix: the 256-bin histogram, re-measured"
MAX_LINES = 400


def _ratio(a, b):
    return a / b if a and b else None


# ---- 1. the lesson's table ----

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
            cells += [fmt.ms(base), fmt.ms(priv), fmt.ratio(_ratio(base, priv))]
        cells += [fmt.ms(t4.kernel(BASELINE, "ms", input)), fmt.ms(t4.kernel(PRIVATIZED, "ms", input)),
                  fmt.ratio(t4.get("speedup", input))]
        rows.append(cells)
    view = gpu_list[0].view
    launch = view.row(view.base, inputs[0])["policy"]
    notes = [f"{'; '.join(g.lesson_label for g in gpu_list)}: medians of per-run samples, {view.size:,} bytes, "
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


def _placement_range(s, view):
    """' At the placement run's best and worst bins offsets global atomics take ...' for the placement run's series
    `s` of the view's baseline on uniform bytes; '' without one."""
    if s is None:
        return ""
    medians, priv = s.medians(), view.ms(view.private, "uniform")
    return (f" Where the bins lie moves global atomics (section 2): at the placement run's best and worst offsets "
            f"they take {fmt.ms(medians[s.best])} and {fmt.ms(medians[s.worst])} ms on uniform bytes, a speedup "
            f"of {fmt.ratio(_ratio(medians[s.best], priv))} to {fmt.ratio(_ratio(medians[s.worst], priv))}.")


def lesson_prose(g, t4):
    """The lesson's figures on one GPU (models.GpuModels) beside the T4's."""
    view, run = g.view, g.view.run
    base, private = view.base, view.private
    speed = {i: _ratio(view.ms(base, i), view.ms(private, i)) for i in ("uniform", "one_byte")}
    priv = [view.ms(private, i) for i in view.inputs]
    t4_grows = _ratio(t4.kernel(PRIVATIZED, "ms", "one_byte"), t4.kernel(PRIVATIZED, "ms", "uniform"))
    text = (f"On {gpu_line(run, view.toolchain)} with {view.toolchain}, at the lesson's size and launch, global "
            f"atomics take {fmt.ms(view.ms(base, 'uniform'))} ms on uniform bytes and the privatized kernel "
            f"{fmt.ms(view.ms(private, 'uniform'))} ms: a speedup of {fmt.ratio(speed['uniform'])}, where the "
            f"lesson's {t4.gpu} shows {fmt.ratio(t4.get('speedup', 'uniform'))}; on the one-byte input "
            f"{fmt.ratio(speed['one_byte'])} against {fmt.ratio(t4.get('speedup', 'one_byte'))}. The privatized "
            f"kernel takes {value_range(priv, 3, ' ms')} on every input (the {t4.gpu}'s grows "
            f"{fmt.ratio(t4_grows)} on the one-byte input)")
    reader = min(view.readers, default=None)
    over_reader = _ratio(view.ms(private, "uniform"), view.ms(reader, "uniform"))
    if over_reader:
        text += f", {fmt.ratio(over_reader, 2)} the time of `{reader}`, the lesson's reader that counts nothing"
        if 1 / stats.DEFAULT_BAND <= over_reader <= stats.DEFAULT_BAND:
            text += ": on this GPU counting costs little more than reading the bytes one at a time"
    return text + "." + _placement_range(g.lesson_range, view)


def missing_detail(missing):
    """The part of a `missing` sentence ("not measured ...: none of your runs holds ...") after its verdict, as a
    sentence of its own."""
    detail = missing.partition(": ")[2]
    return detail[:1].upper() + detail[1:]


def lesson_section(m):
    t4, gpu_list = m.t4, m.lesson_gpus
    blocks = [Heading("1. The lesson's table on a newer GPU")]
    if not gpu_list:
        return blocks + [Para(f"The lesson's table: {m.missing('lesson')}")]
    runs = " and ".join(f"`{g.view.run.path}`" for g in gpu_list)
    own = [g for g in gpu_list if g.gpu.yours]
    if m.study.beside and not own:   # a user's appendix, the study's GPUs alone
        blocks.append(Para(f"{missing_detail(m.study.sel.missing('lesson'))} The table and figure below are the "
                           "study's; what your runs measured on the CPU is in [the performance report]"
                           "(reports/performance.md) and [the sweep report](reports/sweep.md)."))
    shown = " and ".join(g.lesson_label for g in gpu_list)
    styles = "(solid)" if len(gpu_list) == 1 else "(a colour each; global atomics solid, the privatized kernel lighter)"
    return blocks + [Para(lesson_prose(g, t4)) for g in own or gpu_list[:1]] + [
        TableBlock(lesson_table(gpu_list, t4), "lesson", wide=True),
        FigureBlock("lesson", 1, f"Median time per run of global atomics and of the privatized kernel on the "
                                 f"lesson's three inputs, {shown} {styles} beside the lesson's {t4.gpu} (hatched, "
                                 "published); log scale.",
                    f"{runs}; `data/published/lesson_t4.csv`")]


# ---- 2. where the bins lie ----

def placement_intro(p):
    return (f"Every GPU toolchain of a controlled run adds into one bins buffer, placed a chosen number of bytes past "
            f"a 2 MiB boundary. The placement run moved it from {p.offsets[0]:,} to {p.offsets[-1]:,} bytes in steps "
            f"of {p.step:,}.")


def placement_effect(summary):
    """What one GPU's placement run shows (a models.PlacementSummary), in sentences."""
    s, text = summary.head, ""
    if s:
        period = s.period()
        text += (f" Global atomics on uniform bytes take {fmt.ms(s.medians()[s.best])} ms with the bins at "
                 f"{s.best:,} and {fmt.ms(s.medians()[s.worst])} ms at {s.worst:,}: {fmt.ratio(s.spread, 2)} from "
                 "placement alone" + (f", the pattern repeating every {period:,} bytes" if period else "") + ".")
    spreads = [f"{value_range(found, 2, 'x')} on {input}" for input, found in summary.others.items()]
    if spreads:
        text += f" Worst over best on the other inputs: {' and '.join(spreads)}."
    if summary.merging is not None:
        text += (f" The kernels that add into the global bins only to merge per-block counts vary by at most "
                 f"{fmt.ratio(summary.merging, 2)}.")
    if summary.gap:
        text += (f" The other toolchains and the A/A control lie within {100 * summary.gap:.1f}% of the curves of "
                 "Figure 2.")
    return text


def placement_prose(placed, unplaced=()):
    """The first placement run's sweep, then what each GPU's shows (under its name where there are several), and
    why the GPUs `unplaced` show none."""
    several = len(placed) + len(unplaced) > 1
    text = placement_intro(placed[0].placement) + "".join(
        (f" **{g.label}.**" if several else "") + placement_effect(g.placement_summary) for g in placed)
    text += "".join(f" **{g.label}.** {_sentence(g.missing('placement'))}" for g in unplaced)
    return text + (" So a comparison of global atomics across builds, drivers or GPUs holds only with the bins at "
                   "the same offset; the study records the offset in every row and compares toolchains on one "
                   "buffer. Why the offset matters is not measured here ([the placement report](reports/placement.md) "
                   "says what is conjecture).")


def _sentence(words):
    return words[:1].upper() + words[1:]


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
        ["Offsets in bytes past a 2 MiB boundary, medians in ms, under the placement run's first toolchain; the "
         "other inputs' and the merging kernels' worst over best over every toolchain of the run; period as in the "
         "placement report."], align="ll" + "r" * 7)


def placement_section(m):
    blocks = [Heading("2. Where the bins lie")]
    placed = [g for g in m.own if g.placement]
    if not placed:
        return blocks + [Para(f"Bins placement: {m.missing('placement')}")]
    lines = m.placement_lines
    merging = ", ".join(dict.fromkeys(impl for impl, *_ in lines.panels[1][1]))
    shown = [g for g in m.gpus if g.index in lines.gpus]
    blocks.append(Para(placement_prose(placed, [g for g in m.own if not g.placement])))
    if len(shown) > 1:
        blocks.append(TableBlock(placement_table(shown), "placement", wide=True))
    colours = "; a colour per GPU, a marker per kernel" if len(shown) > 1 else ""
    return blocks + [FigureBlock("placement", 2, f"Median time of each kernel at each bins offset over its time at "
                                                 f"its fastest offset, {lines.toolchain}: global atomics on three "
                                                 f"inputs; the kernels that merge per-block copies into the bins "
                                                 f"({merging}) on uniform bytes{colours}.",
                                 " and ".join(f"`{g.placement.run.path}`" for g in shown))]


# ---- 3. CUDA versions ----

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


def version_table(pairs):
    """The first PairModel's uniform rows, each later one's beside them (the appendix of one GPU)."""
    first, rest = pairs[0], pairs[1:]
    main, base_tc, new_tc = first.run, first.base_tc, first.new_tc
    repeats = [{case_key(c.base): c for c in uniform_rows(pair)} for pair in rest]
    rows = []
    for c in uniform_rows(first):
        cells = [kernel_label(c.base), fmt.ms(c.ab.base_median), fmt.ms(c.ab.new_median), _cell(c.ab), _cell(c.aa),
                 c.verdict]
        for repeat in repeats:
            again = repeat.get(case_key(c.base))
            cells += [_cell(again.ab) if again else fmt.MISSING, again.verdict if again else fmt.MISSING]
        rows.append(cells)
    columns = ["kernel", f"{base_tc} ms", f"{new_tc} ms", "A/B (95% CI)", "A/A (95% CI)", "verdict"]
    for pair in rest:
        columns += [f"{repeat_words(pair.run, main)}: A/B", "verdict"]
    notes = [f"Uniform bytes, medians; A/B: {new_tc} over {base_tc}; A/A: {versions.aa_label(main)}, the same kernel "
             "and input in the same run.", versions.rule_note(stats.DEFAULT_BAND)]
    notes += [f"{repeat_words(r, main).capitalize()}: `{r.path}`, toolchains in the order "
              f"{', '.join(gpu_toolchains(r))}; A/A: {versions.aa_label(r) or 'none'}." for r in (p.run for p in rest)]
    return Table(f"CUDA {major_minor(new_tc)} against {major_minor(base_tc)}: one kernel source, two NVRTC "
                 "releases", columns, rows, notes, align="lrrrrl" + "rl" * len(repeats))


def versions_gpus_table(compared):
    """version_table of several GPUs in one: each GPU's A/B, A/A and verdicts beside the others', without the
    medians (the versions report has them)."""
    cells, labels, second = {}, {}, {}
    for g in compared:
        first, rest = g.version_runs[0], g.version_runs[1:]
        second[g.label] = repeat_words(rest[0].run, first.run) if rest else "second run"
        repeats = [{case_key(c.base): c for c in uniform_rows(pair)} for pair in rest]
        for c in uniform_rows(first):
            key = case_key(c.base)
            labels.setdefault(key, kernel_label(c.base))
            again = repeats[0].get(key) if repeats else None
            cells.setdefault(key, {})[g.label] = [_cell(c.ab), _cell(c.aa), c.verdict,
                                                  again.verdict if again else fmt.MISSING]
    rows = [[labels[key]] + [cell for g in compared for cell in found.get(g.label, [fmt.MISSING] * 4)]
            for key, found in cells.items()]
    columns = ["kernel"] + [f"{g.label}: {what}" for g in compared
                            for what in ("A/B (95% CI)", "A/A (95% CI)", "verdict", second[g.label])]
    first = compared[0].version_runs[0]
    notes = [f"Uniform bytes, medians; A/B: {first.new_tc} over {first.base_tc} (each GPU's NVRTC releases); A/A: a "
             "toolchain over its repeat in the same run; then the verdict of each GPU's second run (order reversed: "
             "its toolchains in the opposite order). The medians and every run: the versions report "
             "(`paper/reports/versions.md`).",
             versions.rule_note(stats.DEFAULT_BAND)]
    return Table(f"CUDA {major_minor(first.new_tc)} against {major_minor(first.base_tc)}: one kernel source, two NVRTC "
                 "releases, each GPU", columns, rows, notes, align="l" + "rrll" * len(compared))


def _counts(pair):
    found = pair.comparisons
    n = {v: sum(c.verdict == v for c in found) for v in (stats.SAME, stats.SLOWER, stats.FASTER)}
    return (f"of {len(found)} rows ({len({kernel_label(c.base) for c in found})} kernels on "
            f"{len({c.base['input'] for c in found})} inputs) {n[stats.SAME]} are the same within "
            f"{stats.DEFAULT_BAND:.2f}x, {n[stats.SLOWER]} slower and {n[stats.FASTER]} faster")


def versions_prose(m, gpus):
    """The lesson's published pairs, then what the version runs of each GPU of `gpus` found (under its name where
    there are several)."""
    t4 = m.t4
    text = (f"The lesson timed its {t4.gpu} under two CUDA versions: " + "; ".join(
        f"`{p.metric}` {fmt.ms(p.old_ms)} ms under CUDA {p.old.cuda}, {fmt.ms(p.new_ms)} ms under CUDA {p.new.cuda} "
        f"({fmt.ratio(p.ratio, 3)})" for p in m.published_pairs)
        + f", means of {fmt.count(t4.get('timed_runs'))} runs with no spread, so the lesson cannot say which "
        "change is noise.")
    if not gpus:
        return text
    first = gpus[0].version_runs[0]
    found = ["; ".join(f"{_in_run(p.run, g.version_runs[0].run)}, {_counts(p)}" for p in g.version_runs)
             for g in gpus]
    text += (f" Ours compiles one kernel source with {first.base_tc} and {first.new_tc}, samples them in "
             f"rotation on one set of buffers with an A/A control, and gives a verdict only where the A/A pair is the "
             "same: " + ("; ".join(f"on {g.label}, {words}" for g, words in zip(gpus, found)) if len(gpus) > 1
                         else found[0]) + ".")
    return text


def history_method(releases, gpus):
    """What the release history did, once for every GPU."""
    on = "each GPU" if gpus > 1 else "the GPU"
    return (f"Every NVRTC release from {history.version_text(releases[0])} to {history.version_text(releases[-1])} "
            f"built the study's kernels on a machine without a GPU. One run on {on} timed each release's SASS, and "
            "each release's PTX compiled by the driver, beside nvcc and its A/A control, sampled in rotation on one "
            "set of buffers.")


def history_prose(h):
    """What one GPU's release history found."""
    run, model = h.run, h.series
    stepped = [s for s in model if s.steps]
    flat = len(model) - len(stepped)
    skipped = run.environment.get("skipped_toolchains") or []
    kernels = sorted({s.impl for s in stepped})
    text = (f"On {gpu_name(run, None)} (`{run.path}`), of {len(model)} kernel x input x code series, {flat} are flat "
            "within their A/A noise")
    if stepped:
        steps = sorted({history.version_text(st.release) for s in stepped for st in s.steps})
        text += f"; {len(stepped)} step, all at {', '.join(steps)}, in {', '.join(kernels)}"
    text += "."
    if skipped:
        text += (f" {len(skipped)} entries could not run on its driver and were skipped; the first: "
                 f"`{skipped[0]}`")
    return text


def history_section(m):
    timed = [g for g in m.own if g.history and g.history.series]
    if not timed:
        return [history_slot(m.study.releases, m.missing("history"))]
    h = timed[0].history
    prose = [Para(history_method(h.releases, len(timed)) + " " + " ".join(history_prose(g.history) for g in timed))]
    if m.steps and m.steps.rows:
        prose.append(Para(f"{_sentence(m.steps.words)}: the table below counts each GPU's steps."))
        table = history.replication_summary_table(m.steps)
    else:
        stepped = [s for s in h.series if s.steps]
        table = history.history_table(h, stepped or h.series[:1])
        table.title = "Release steps beyond the A/A noise" if stepped else table.title
    several = len(m.histories) > 1
    runs = " and ".join(f"`{found.run.path}`" for _, _, found in m.histories)
    return [Heading("The release history", 3)] + prose + [TableBlock(table, "history", wide=True),
            FigureBlock("history", 4, "Each kernel's median time on uniform bytes under every NVRTC release, over the "
                                      "oldest release's: the release's own SASS (filled) and its PTX compiled by the "
                                      "driver (hollow, where the driver could load it); the grey band is the run's "
                                      "A/A noise" + ("; a colour per GPU." if several else "."),
                        f"{runs}; `data/codegen/`")]


def history_slot(releases, missing):
    """The marked place for the release history, over the releases the study lists (data/nvrtc-releases.csv);
    `missing` says why it is empty (a user's appendix: where the study's own history is)."""
    span = f"CUDA {releases[0]} to {releases[-1]}" if releases else "every CUDA release"
    return Slot(f"Release history, {span}: {missing.partition(': ')[0]}.",
                f"This place is kept for the same comparison across every NVRTC release of {span} "
                f"({len(releases) or 'each'} releases) on one GPU and driver, each against the one before under an "
                "A/A control (a run of `histostudy run --toolchain nvcc,modules:DIR`, read by "
                f"`python3 -m plots.history`). {missing_detail(missing)} Nothing here is a result.")


def versions_section(m):
    compared = [g for g in m.own if g.version_runs]
    first = compared[0].version_runs[0] if compared else None
    heading = f"3. CUDA {major_minor(first.base_tc)} against CUDA {major_minor(first.new_tc)}" if first else \
        "3. CUDA versions compared"
    blocks = [Heading(heading)]
    if not compared:
        return blocks + [Para(versions_prose(m, []) + f" Ours: {m.missing('versions')}")] + history_section(m)
    several = len(m.version_figure) > 1
    absent = "".join(f" On {g.label}: {g.missing('versions')}" for g in m.own if not g.version_runs)
    table = versions_gpus_table(compared) if len(compared) > 1 else version_table(compared[0].version_runs)
    tables = [TableBlock(table, "versions", wide=True)]
    ours = "; ".join(f"{rows.gpu}, {rows.ours}" if several else rows.ours for rows in m.version_figure)
    runs = " and ".join(f"`{g.gpu.sel.version.path}`" for g in m.gpus if g.version_rows in m.version_figure)
    return blocks + [Para(versions_prose(m, compared) + absent)] + tables + [
        FigureBlock("versions", 3, f"Each kernel's median time under the newer CUDA over the older on uniform bytes "
                                   f"with its 95% bootstrap interval ({ours}), its A/A control (hollow "
                                   "squares), and the lesson's published T4 ratios (hollow diamonds); the grey band "
                                   "is the 'same' band" + ("; a colour per GPU." if several else "."),
                    f"{runs}; `data/published/lesson_t4.csv`")] + history_section(m)


# ---- 4. the contention sweep ----

def sweep_table(lines):
    measured, published = lines.measured, lines.published
    columns = ["distinct values"] + [s.whose.removesuffix(" (published)") for s in published] + \
        [f"{s.impl}, {s.whose}" for s in measured]
    rows = [[str(k)] + [fmt.number(s.values.get(k), 0) for s in published + measured] for k in lines.distinct_values]
    notes = ["Mpix/s: million one-byte samples a second (input bytes over the median time). The first columns are "
             "the textbook's per-block histogram (data/published/table_16_4_per_block.csv); ours are medians at "
             "the lesson's size, the same LCG's high byte mod K for K distinct values."]
    return Table("The contention sweep beside Table 16-4: Mpix/s by distinct values", columns, rows, notes)


def sweep_prose(lines, own):
    """The textbook's spreads, then ours of global atomics and the privatized kernel on the GPUs `own` (indexes)."""
    spread = lambda v: max(v.values()) / min(v.values())  # noqa: E731
    text = "In the textbook's table the per-block histogram's best over worst throughput is " + ", ".join(
        f"{spread(s.values):.1f}x on {s.whose.removesuffix(' (published)')}" for s in lines.published) + "."
    for s in lines.series:
        if s.gpu in own and {BASELINE, PRIVATIZED} & set(s.roles):
            text += (f" Ours, {s.impl} on the {s.whose}: {fmt.number(min(s.values.values()), 0)} to "
                     f"{fmt.number(max(s.values.values()), 0)} Mpix/s ({spread(s.values):.2f}x).")
    return text


def sweep_section(m):
    blocks = [Heading("4. The contention sweep (Table 16-4)")]
    if m.sweep_lines is None:
        return blocks + [Para(f"The sweep: {m.missing('sweep')}")]
    swept = [g for g in m.gpus if g.gpu.sel.sweep]
    runs = " and ".join(f"`{g.gpu.sel.sweep.path}`" for g in swept)
    ours = "our kernels (solid)" if len(swept) == 1 else "our kernels (solid; a colour per GPU, a marker per kernel)"
    return blocks + [
        Para(sweep_prose(m.sweep_lines, {g.index for g in m.own})),
        TableBlock(sweep_table(m.sweep_lines), "sweep", wide=True),
        FigureBlock("sweep", 5, "Throughput against the number of distinct byte values in the input (256 down to 1), "
                                f"{ours} beside the textbook's per-block histogram on four GPU "
                                "generations (dashed, hollow markers, published); log scales.",
                    f"{runs}; `data/published/table_16_4_per_block.csv`")]


# ---- 5. the claims ----

def claims_section(m):
    a = m.claims
    ours = a.ours
    decided = sum(a.combined[(cid, e.label)].status != claims.UNMEASURABLE for e in ours for cid, _, _ in claims.CLAIMS)
    return [Heading("5. The course text's claims, checked"),
            Para(f"Each claim of the course text is a rule on the data, decided per environment (GPU, toolchain, "
                 f"driver) as holds, does not hold or not measurable here, and per GPU over every run and toolchain "
                 f"on it (the table below). {decided} of the {len(ours) * len(claims.CLAIMS)} verdicts for our "
                 f"{len(ours)} environments are decided; the rules, figures and runs behind every verdict, "
                 "environment by environment, are in [the claims report](reports/claims.md). CPU runs decide none: "
                 "every claim is about CUDA kernels."),
            Items(tuple(f"**{cid}** {statement}" for cid, statement, _ in claims.CLAIMS)),
            TableBlock(claims.gpu_table(a, m.claims_by_gpu, [g.label for g in m.gpus]), "claims", wide=True)] \
        + findings_section(m)


def findings_section(m):
    """Which of the study's findings hold on each GPU, where the appendix shows several GPUs or a user's runs."""
    if len(m.gpus) < 2 and not m.study.beside:
        return []
    words = "; ".join(f.words for f in m.findings)
    return [Heading("Which of the study's findings hold on each GPU", 3),
            Para(f"Each finding decided from each GPU's own runs: {words}."),
            TableBlock(carryover.findings_table(m.findings), "findings", wide=True)]


# ---- 6. the environments ----

def environments_table(envs):
    """Each environment of ours in a line: its label and how many runs it took part in."""
    rows = [[label, fmt.count(runs)] for label, runs in environment_words.environment_labels(envs)]
    return Table("The environments behind our numbers", ["environment (GPU / toolchain / driver)", "runs"], rows,
                 ["What built each one's kernels, the histostudy commit, the GPU's clocks, the host and when each "
                  "run started: the environments report (`paper/reports/environments.md`), which also gives every "
                  "recorded key."], align="lr")


def environments_section(m):
    return ([Heading("6. What produced each environment's numbers"),
             TableBlock(environments_table(m.claims.ours), "environments")]
            + [Para(p) for p in environment_words.published_paragraphs(m.study.published)]
            + ([Para("What differs between the GPUs' machines (driver build, runtime, clocks, ECC, power) is in "
                     "[the environments report](reports/environments.md).")]
               if m.machines else []))


# ---- 7. further ----

REPORTS = (("lesson.md", "the lesson's tables for every toolchain and the CPU, with the floors, the atomic counts "
                         "and the partitioned exercise"),
           ("versions.md", "the version comparison for every pair of toolchains and input"),
           ("placement.md", "where the bins lie, every kernel and toolchain at every offset, and hot against cold "
                            "samples"),
           ("sweep.md", "the sweep for every implementation, GPU and CPU apart"),
           ("performance.md", "performance engineering: the fastest kernels against the read floor, the GPU's "
                              "shared-memory ceilings, the GPU at every size beside its theoretical memory "
                              "bandwidth, the CPU implementations, and `count` on a file against its floor"),
           ("codegen.md", "what each toolchain made of each kernel"),
           ("claims.md", "every claim's rule, verdict and figures per environment and run"),
           ("environments.md", "which run feeds which report, and every environment in full"))


def _studys_gpus(m):
    """'NVIDIA H200 and NVIDIA H100 80GB HBM3': the GPUs of the study's own runs, or 'GPUs' where it has none."""
    studys = [g for g in m.gpus if not g.gpu.yours] if m.study.beside else m.gpus
    return " and ".join(g.gpu.name for g in studys) or "GPUs"


def further_section(m):
    return [Heading("7. In full, and on your own GPU"),
            Items(tuple(f"[reports/{name}](reports/{name}): {what}" for name, what in REPORTS)),
            Para("Your own GPU: `./dev study` on it writes its runs under `runs/`; `./dev appendix` then makes this "
                 f"appendix from them, your GPU beside the T4 and the study's {_studys_gpus(m)}, in `runs/appendix/` "
                 "(the committed paper is never touched). `./dev audit A.json B.json` audits one run against another, "
                 "and `./dev audit 12.6 13.0` two CUDA releases on your GPU: exit 1 on a failed check, a missing "
                 "row or a slowdown beyond its threshold, 2 where it cannot judge.")]


# ---- the whole ----

def intro(m, made_by, files):
    """files: the data the appendix is made from, in words."""
    return [Heading(TITLE, 1),
            Para(f"This appendix re-measures the course's histogram lesson (global atomics against a per-block "
                 f"privatized histogram on uniform bytes, English text and a one-byte input) and the textbook's "
                 f"contention sweep, and checks the course text's claims against the measurements. {made_by} from "
                 f"{files}; every number in it is computed from those files. Its tables are also in `tables/` as "
                 "Markdown and LaTeX (booktabs) fragments, with `appendix.tex` including them; its figures in "
                 "`figures/` at one column (3.5 in) and full width (`-wide`), as PNG, SVG and PDF. How the study "
                 f"measures: [docs/study-spec.md]({m.study.spec_link}).")]


def blocks(m, made_by, files):
    """The appendix of Models `m`, as blocks."""
    return (intro(m, made_by, files) + lesson_section(m) + placement_section(m) + versions_section(m)
            + sweep_section(m) + claims_section(m) + counters.appendix_blocks(m.study) + environments_section(m)
            + further_section(m))
