"""paper/paper.md: the write-up, an appendix to the course.

Every number in the prose is computed here from the run files; the tables are
the generated ones, embedded as they are written under paper/tables/.
Sentences that need data that is absent say "not measurable here", or "not
measured yet" where the controlled runs of issue 10 are still to come.
"""
from plots import claims, hotcold, lesson, perf, placement, stats, versions
from plots import table as fmt
from plots.environment import commit_line, gpu_line
from plots.figures import primary_gpu_toolchain
from plots.results import conditions, kernel_label, requested_offset, sampling_words
from plots.selection import SUPERSEDED_FILE, cache_mode

NOT_HERE = "not measurable here"
PLACEMENT_CAPTION = ("Median time against the bins offset per kernel and input, one line per toolchain (dashed: the "
                     "A/A control), band p10..p90")


def figure(name, caption):
    return (f"![{caption}](figures/{name}.png)\n\n"
            f"*{caption}* (also as [SVG](figures/{name}.svg) and [PDF](figures/{name}.pdf))\n")


def embed(reports, name):
    return "\n".join(t.markdown() for t in reports[name][0])


def _lesson_view(run):
    """The primary GPU toolchain's lesson view, else the CPU's."""
    keys = lesson.table_keys(run)
    gpu = primary_gpu_toolchain(run)
    toolchain, size = next(((tc, s) for tc, s in keys if tc == gpu), keys[0])
    return lesson.LessonView(run, toolchain, size)


def _speedup(view, input):
    base, priv = view.ms(view.base, input), view.ms(view.private, input)
    return base / priv if base and priv else None


def _lesson_placement(inp, view):
    """The lesson rows' bins offset, and the baseline on uniform at the placement run's best and worst."""
    row = view.row(view.base, "uniform")
    text = f" Its rows put the bins {requested_offset(row):,} bytes past a 2 MiB boundary." if row else ""
    s = placement.find_series(inp.sel.placement, view.base, "uniform", view.toolchain) if inp.sel.placement else None
    if s is None:
        return text + f" {view.base} at the best and the worst bins placement is {inp.sel.reasons()['placement']}"
    medians, priv = s.medians(), view.ms(view.private, "uniform")
    return text + (f" Where the bins lie matters to {view.base} (section 3): in the placement run it takes "
                   f"{fmt.ms(medians[s.best])} ms with them at offset {s.best:,} and {fmt.ms(medians[s.worst])} ms "
                   f"at {s.worst:,}, a privatized speedup of {fmt.ratio(_ratio(medians[s.best], priv))} to "
                   f"{fmt.ratio(_ratio(medians[s.worst], priv))}.")


def _ratio(a, b):
    return a / b if a and b else None


def lesson_prose(inp):
    run = inp.sel.lesson
    if run is None:
        return f"No run file holds lesson rows: the lesson's table is {NOT_HERE}.\n"
    view = _lesson_view(run)
    t4 = lesson.baseline_source(inp.published)
    speedups = {i: _speedup(view, i) for i in ("uniform", "one_byte")}
    if view.backend == "cpu":
        opening = (f"Every GPU figure of the lesson is {inp.sel.reasons()['lesson']} The tables keep the lesson's "
                   f"layout with the CPU pair in place of the kernels: the single-thread `reference` against "
                   f"`openmp_private` on {run.environment['host']['cpu_model']} "
                   f"({run.environment['host']['logical_cores']} logical cores), from `{run.path}`.")
    else:
        opening = (f"On {gpu_line(run, view.toolchain)} with {view.toolchain} (`{run.path}`), global atomics took "
                   f"{fmt.ms(view.ms('global', 'uniform'))} ms on uniform bytes and the privatized kernel "
                   f"{fmt.ms(view.ms('per_block', 'uniform'))} ms.") + _lesson_placement(inp, view)
    figures_ = (f" The privatized speedup is {fmt.ratio(speedups['uniform'])} on uniform bytes and "
                f"{fmt.ratio(speedups['one_byte'])} on the one-byte input; the lesson's {t4.gpu} "
                f"(CUDA {t4.cuda}) shows {fmt.ratio(t4.get('speedup', 'uniform'))} and "
                f"{fmt.ratio(t4.get('speedup', 'one_byte'))}.")
    return opening + figures_ + (" Times are medians of per-run samples; where the run recorded it, the lesson's "
                                 "own method (mean of back-to-back runs after warm-ups) is shown beside.\n")


def _headline_figures(c):
    """'8.286 ms against 17.289 ms, A/B 2.087x (95% CI ..), A/A 1.001x (..): same'."""
    aa = f"A/A {fmt.ratio(c.aa.ratio, 3)} ({fmt.interval(c.aa.ci_low, c.aa.ci_high)})" if c.aa else "no A/A pair"
    return (f"{fmt.ms(c.ab.base_median)} ms against {fmt.ms(c.ab.new_median)} ms, A/B {fmt.ratio(c.ab.ratio, 3)} "
            f"({stats.CONFIDENCE:.0%} CI {fmt.interval(c.ab.ci_low, c.ab.ci_high)}), {aa}: {c.verdict}")


def _matching_offsets(series, ms, band=stats.DEFAULT_BAND):
    """The offsets whose median lies within `band` of `ms`, as words."""
    found = [o for o, m in series.medians().items() if max(m, ms) / min(m, ms) <= band]
    return ", ".join(f"{o:,}" for o in found) if found else "none"


def _former_placement(inp, h):
    s = placement.find_series(inp.sel.placement, *versions.HEADLINE, h.base["toolchain"]) if inp.sel.placement else None
    if s is None:
        return f" How far placement alone moves that kernel is {inp.sel.reasons()['placement']}"
    medians = s.medians()
    return (f" In the placement run (`{inp.sel.placement.path}`), where every toolchain shares one bins buffer, "
            f"{s.toolchain}'s {s.kernel} kernel on {s.input} bytes takes {fmt.ms(medians[s.best])} ms with the bins "
            f"{s.best:,} bytes past a 2 MiB boundary and {fmt.ms(medians[s.worst])} ms at {s.worst:,}; the superseded "
            f"{h.base['toolchain']} time lies within {stats.DEFAULT_BAND:.2f}x of its medians at offsets "
            f"{_matching_offsets(s, h.ab.base_median)}, the {h.new['toolchain']} time at offsets "
            f"{_matching_offsets(s, h.ab.new_median)}.")


def _former_outcome(inp):
    c = versions.headline(inp.sel.version) if inp.sel.version else None
    if c is None:
        return f" Whether it vanishes under the controls is {inp.sel.reasons()['versions']}"
    if c.verdict == stats.SAME:
        outcome = "the difference vanished"
    elif c.verdict in (stats.SLOWER, stats.FASTER):
        outcome = f"a difference remains: {c.new['toolchain']} is {c.verdict}, its A/A pair the same"
    else:
        outcome = "the controlled run cannot tell a version difference from noise here"
    return (f" Under the controls (`{inp.sel.version.path}`; {conditions(inp.sel.version.rows)}), "
            f"{c.base['toolchain']} against {c.new['toolchain']}: {_headline_figures(c)}; {outcome}.")


def former_prose(inp):
    """Issue 10: what the superseded version finding was, from the superseded files."""
    found = [(r, versions.headline(r)) for r in inp.sel.former_versions]
    found = [(r, h) for r, h in found if h]
    if not found:
        return ""
    run, h = found[-1]
    kernel, input = versions.HEADLINE
    return (f"**The earlier {fmt.ratio(h.ab.ratio, 2)}.** Until issue 10 this section read a CUDA version effect "
            f"into {kernel} atomics on {input} bytes: {fmt.ms(h.ab.base_median)} ms with {h.base['toolchain']} "
            f"against {fmt.ms(h.ab.new_median)} ms with {h.new['toolchain']}, a ratio of {fmt.ratio(h.ab.ratio, 2)} "
            f"in `{run.path}` ({_range([x.ab.ratio for _, x in found], 2, 'x')} over the {len(found)} runs of two "
            "CUDA versions before the controls). It was an allocation accident: each toolchain's executor allocated "
            "its own bins buffer, so each toolchain's kernel added into counters at a different address, and that "
            "kernel's time depends on where its bins lie (section 3). Those runs record no placement, so which "
            f"address each toolchain had is not in the files; they stay in `data/runs/`, listed in "
            f"`data/runs/{SUPERSEDED_FILE}`, and no other report here reads their times."
            + _former_placement(inp, h) + _former_outcome(inp) + "\n\n")


def _verdict_counts(found):
    verdicts = (stats.SLOWER, stats.FASTER, stats.SAME, stats.AMBIGUOUS, stats.WITHHELD_AA, stats.WITHHELD_NO_AA)
    return {v: sum(c.verdict == v for c in found) for v in verdicts}


def _pair_prose(run, base_tc, new_tc):
    found = versions.comparisons(run, base_tc, new_tc)
    n = _verdict_counts(found)
    text = (f"{new_tc} against {base_tc} (`{run.path}`; A/A: {versions.aa_label(run) or 'none'}): of {len(found)} "
            f"lesson rows, {n[stats.SLOWER]} are slower, {n[stats.FASTER]} faster, {n[stats.SAME]} the same within "
            f"{stats.DEFAULT_BAND:.2f}x and {n[stats.AMBIGUOUS]} ambiguous; the verdict is withheld on "
            f"{n[stats.WITHHELD_AA]} where the A/A pair is not the same and on {n[stats.WITHHELD_NO_AA]} where "
            "there is none.")
    headline = next((c for c in found if (c.base["impl"], c.base["input"]) == versions.HEADLINE), None)
    if headline:
        text += f" {versions.HEADLINE[0]} on {versions.HEADLINE[1]}: {_headline_figures(headline)}."
    return text + "\n\n"


def versions_prose(inp):
    t4 = inp.published
    rows = versions.published_table(t4).rows
    published = "; ".join(f"{r[0]} on {r[1]}: {r[3]} ms on {r[2]}, {r[5]} ms on {r[4]} ({r[6]})" for r in rows)
    text = f"The lesson's own two versions (published): {published}.\n\n" + former_prose(inp)
    if not inp.sel.versions:
        return text + (f"Our comparison is {inp.sel.reasons()['versions']} A controlled run with NVRTC 12.6 and "
                       f"13.0 toolchains and an A/A control fills the table below. Codegen: {inp.audit.describe()}.\n")
    text += ("A verdict stands only where the A/A pair (a toolchain against its own repeat, same kernel and input, "
             "same run) is the same: the rule is under each table.\n\n")
    text += "".join(_pair_prose(run, a, b) for run in inp.sel.versions for a, b in versions.pairs_in(run))
    return text + f"Codegen: {inp.audit.describe()}.\n"


def _effect_sentence(e):
    showing = e.showing()
    best, worst = e.agreed("best"), e.agreed("worst")
    if best is not None and worst is not None:
        fastest, slowest = ([s.medians()[getattr(s, end)] for s in showing] for end in ("best", "worst"))
        where = (f"fastest with the bins at {e.where(best)} ({_range(fastest, 3, ' ms')}), "
                 f"slowest at {e.where(worst)} ({_range(slowest, 3, ' ms')})")
    else:
        where = "; ".join(f"{s.toolchain} fastest at {s.best:,} ({fmt.ms(s.medians()[s.best])} ms), slowest at "
                          f"{s.worst:,} ({fmt.ms(s.medians()[s.worst])} ms)" for s in showing)
    period = e.period()
    repeats = f"a period of {period:,} bytes" if period else f"periods {placement_periods(e)}"
    who = f"all {len(e.series)} toolchains show it, the A/A control included" if len(showing) == len(e.series) \
        else f"{len(showing)} of {len(e.series)} toolchains show it ({', '.join(s.toolchain for s in showing)})"
    return f"{e.kernel} on {e.input}: {where}, worst over best {_range([s.spread for s in showing], 2, 'x')}, " \
           f"{repeats}; {who}."


def placement_periods(e):
    return ", ".join("none within the sweep" if p is None else f"{p:,} bytes" for p in e.periods())


def _flat_words(found):
    """'per_block and cub on every input; global on one_byte': the kernel x inputs without an effect."""
    inputs = list(dict.fromkeys(e.input for e in found))
    flat = {}
    for e in found:
        if not e.shown():
            flat.setdefault(e.kernel, []).append(e.input)
    everywhere = [k for k, on in flat.items() if len(on) == len(inputs)]
    parts = [f"{', '.join(everywhere)} on every input"] if everywhere else []
    parts += [f"{k} on {', '.join(on)}" for k, on in flat.items() if k not in everywhere]
    return "; ".join(parts)


def _conjecture(run, e):
    step = placement.sweep_step(placement.offsets_of(run))
    size = placement.bins_bytes(run, e.kernel)
    bits = size * 8 // placement.BINS
    found = e.period()
    period = ""
    if found:
        period = (f" The period, {found:,} bytes, equals the bins' size: what matters is where the bins start "
                  f"within a {found:,}-byte window." if found == size else
                  f" The period, {found:,} bytes, is {found / size:g} times the bins' size.")
    return (f"What is conjecture: {e.kernel}'s bins are {placement.BINS} counters of {bits} bits, {size:,} bytes, "
            f"so {size // step} lines of {step} bytes (the sweep's step, an L2 cache line).{period} One explanation, "
            "which this study does not test: the L2 is built of slices, grouped in partitions, each slice with its "
            "own atomic units, and an address hash picks each line's slice; at some offsets the bins' "
            f"{size // step} lines may fall on fewer slices, or on a farther partition, so the atomics of every SM "
            "queue behind fewer units. The study records no slice mapping and no per-slice counters, so that "
            "mechanism stays a conjecture; only the offsets and times above are measured.\n")


def placement_prose(inp):
    run = inp.sel.placement
    if run is None:
        return f"Bins placement is {inp.sel.reasons()['placement']}\n"
    offsets, found = placement.offsets_of(run), placement.effects(run)
    rows = placement.placement_rows(run)
    inputs = list(dict.fromkeys(r["input"] for r in rows))
    toolchains = list(dict.fromkeys(r["toolchain"] for r in rows))
    text = (f"`{run.path}` placed the bins of every kernel that counts at {len(offsets)} offsets, {offsets[0]:,} to "
            f"{offsets[-1]:,} bytes past a 2 MiB boundary in steps of "
            f"{placement.sweep_step(offsets):,} bytes, on {', '.join(inputs)} at {rows[0]['size']:,} bytes, under "
            f"{', '.join(toolchains)}; {sampling_words(rows)}.\n\n")
    shown = [e for e in found if e.shown()]
    none = f"no kernel's worst median exceeds its best by more than {stats.DEFAULT_BAND:.2f}x."
    text += "What is measured: " + (" ".join(_effect_sentence(e) for e in shown) if shown else none)
    flat = [s.spread for e in found if not e.shown() for s in e.series]
    if flat:
        text += (f" Within {stats.DEFAULT_BAND:.2f}x of their best at every offset, under every toolchain (worst "
                 f"over best at most {fmt.ratio(max(flat), 2)}): {_flat_words(found)}.")
    text += "\n\n"
    if shown:
        text += _conjecture(run, max(shown, key=lambda e: max(s.spread for s in e.series)))
    return text


def hotcold_prose(inp):
    hot, cold = inp.sel.hot, inp.sel.cold
    if not (hot and cold):
        return f"Hot against cold samples: {inp.sel.reasons()['hotcold']}\n"
    pairs = hotcold.cache_pairs(hot, cold)
    l2 = hotcold.l2_bytes(hot, pairs)
    modes = "; ".join(f"{what} `{run.path}` {cache_mode(run)}" for what, run in
                      (("the lesson run", inp.sel.lesson), ("the placement run", inp.sel.placement)) if run)
    if l2 is None:
        return f"The GPU record holds no L2 size, so which sizes fit in it is {NOT_HERE}. Sampled: {modes}.\n"
    parts = []
    for fits, where in ((True, "at the sizes that fit"), (False, "at the sizes beyond it")):
        group = [p.comparison.ratio for p in pairs if hotcold.fits_l2(p.size, l2) == fits]
        if group:
            sizes = ", ".join(f"{s:,}" for s in sorted({p.size for p in pairs if hotcold.fits_l2(p.size, l2) == fits}))
            parts.append(f"{where} ({sizes} bytes) the hot/cold ratio of medians is {_range(group, 3, 'x')} "
                         f"(median {fmt.ratio(stats.median(group), 3)})")
    slower = list(dict.fromkeys(f"{kernel_label(p.hot)} at {p.size:,}" for p in pairs
                                if p.comparison.verdict == stats.SLOWER))
    exceptions = (f" Hot is slower than cold beyond {stats.DEFAULT_BAND:.2f}x on "
                  f"{sum(p.comparison.verdict == stats.SLOWER for p in pairs)} of {len(pairs)} rows (kernel and "
                  f"size, over the inputs: {', '.join(slower)})." if slower else "")
    return (f"The GPU's L2 holds {l2:,} bytes ({hotcold.mib(l2)}), and hot samples are partly L2-resident where "
            f"the input fits in it: {'; '.join(parts)} (`{hot.path}` hot, `{cold.path}` cold).{exceptions} The "
            f"other GPU reports are sampled as their runs say ({modes or 'no lesson or placement run'}).\n")


def sweep_prose(inp):
    spread = {g: max(v.values()) / min(v.values()) for g, v in inp.published.table_16_4.items()}
    text = "In the textbook's table the per-block histogram's best over worst throughput is " + ", ".join(
        f"{s:.1f}x on {g}" for g, s in spread.items()) + "."
    run = inp.sel.sweep
    if run is None:
        return text + f" Our sweep is {NOT_HERE}: no run holds sweep rows.\n"
    ev = claims.RunEvidence(run, primary_gpu_toolchain(run) or "cpu")
    impl = "per_block" if ev.is_gpu else "reference"
    series = ev.sweep(impl)
    if not series:
        return text + f" Our {impl} sweep is {NOT_HERE}.\n"
    spread = max(series.values()) / min(series.values())
    where = f"{gpu_line(run, ev.toolchain)} ({ev.toolchain})" if ev.is_gpu else \
        f"the CPU ({run.environment['host']['cpu_model']}; on a GPU ours is {inp.sel.reasons()['sweep'].rstrip('.')})"
    return text + (f" Ours, on {where}, `{impl}` runs at {fmt.number(max(series.values()), 0)} Mpix/s at best and "
                   f"{fmt.number(min(series.values()), 0)} at worst ({spread:.2f}x), from `{run.path}`.\n")


def _range(values, digits=1, suffix=""):
    values = [v for v in values if v is not None]
    low, high = f"{min(values):,.{digits}f}", f"{max(values):,.{digits}f}"
    return f"{low}{suffix}" if low == high else f"{low} to {high}{suffix}"


def _earlier_attempts(inp):
    newest = inp.sel.perf
    shown = set(perf.PerfView(newest).impls) | {perf.PerfView(newest).floor}
    parts = []
    for run in inp.sel.earlier_perf:
        impls = sorted({r["impl"] for r in run.rows if r["experiment"] == perf.EXPERIMENT} - shown)
        parts.append(f"`{run.path}`" + (f" ({', '.join(impls)})" if impls else ""))
    if not parts:
        return ""
    return (" Earlier attempts, earlier perf runs kept as recorded (in brackets, the implementations they timed "
            f"that the newest run does not): {'; '.join(parts)}.")


def perf_gpu_prose(inp):
    run = inp.sel.perf
    if run is None:
        return f"The GPU performance report is {inp.sel.reasons()['perf']}\n"
    view = perf.PerfView(run)
    s, b = perf.SUBJECT, perf.BASELINE
    checks = perf.threshold_checks(view)
    host = run.environment["host"]
    text = (f"Environment: {perf.gpu_environment_line(view)}; host {host['cpu_model']} "
            f"({host['logical_cores']} logical cores, {host['os']}); run file `{run.path}` (started "
            f"{run.doc['started']}, commit {commit_line(run.doc['provenance'])}), {view.size:,} bytes per input, "
            f"{len(view.inputs)} inputs, medians of per-run samples.{_earlier_attempts(inp)}\n\n")
    pcts = [view.pct(s, i) for i in view.inputs]
    text += (f"`{s}` runs at {_range(pcts, 1, '%')} of the read floor ({view.floor}, "
             f"{_range([view.gbps(view.floor, i) for i in view.inputs], 0, ' GB/s')}) over the inputs, and at "
             f"{fmt.ratio(view.ratio(s, b, perf.CUB_RATIO_INPUT), 2)} `{b}`'s GB/s on {perf.CUB_RATIO_INPUT} bytes "
             f"(`{b}` itself: {fmt.pct(view.pct(b, perf.CUB_RATIO_INPUT))} of the floor there, "
             f"{_range([view.pct(b, i) for i in view.inputs], 1, '%')} over the inputs). ")
    groups = []
    for need, unit in sorted({(c.required, c.unit) for c in checks}, reverse=True):
        group = [c for c in checks if (c.required, c.unit) == (need, unit)]
        verdict = perf.overall(group)
        worst = min((c for c in group if c.measured is not None), key=lambda c: c.measured, default=None)
        label = f"{need:g}% of the floor" if unit == "pct" else f"{need:g}x `{b}`"
        detail = f"lowest {perf._show(worst)} on {worst.input}" if worst else NOT_HERE
        groups.append(f"{label} on {len(group)} input{'s' if len(group) > 1 else ''}: **{verdict}** ({detail})")
    met = sum(c.verdict == perf.MET for c in checks)
    text += (f"Issue 6's thresholds, checked on these figures: {'; '.join(groups)}. In all, {met} of "
             f"{len(checks)} checks are met, so the issue's GPU requirement is **{perf.overall(checks)}** "
             "on this run.\n\n")
    text += _small_prose(inp)
    rates = view.shared_rates()
    if rates:
        floor = view.floor_median()
        parts = []
        for r in rates:
            share = _range([100 * view.gbps(s, i) / r["ceiling_gbps"] for i in view.inputs], 1, "%")
            parts.append(f"{r.get('pattern', '?')} {fmt.number(r.get('updates_per_clock_sm'), 2)} updates per clock "
                         f"per SM, a ceiling of {fmt.number(r['ceiling_gbps'], 0)} GB/s "
                         f"({fmt.pct(100 * r['ceiling_gbps'] / floor)} of the floor's median), of which `{s}` reaches "
                         f"{share}")
        text += (f"The shared-memory microbenchmark of the same run measured {'; '.join(parts)}. A design that "
                 "spends one shared update of a pattern per byte cannot pass that pattern's ceiling as measured; "
                 "a kernel above 100% of one spends fewer than one such update per byte.\n")
    else:
        text += f"The run records no shared-memory microbenchmark: the kernels' share of the hardware is {NOT_HERE}.\n"
    return text


def _small_prose(inp):
    races = perf.small_races(inp.sel.lesson) if inp.sel.lesson else []
    if not races:
        return f"`{perf.SUBJECT}` at the lesson's size: {NOT_HERE} (no GPU lesson run with it).\n\n"
    s = perf.SUBJECT
    first = sum(r.fastest for r in races)
    sure = sum(r.comparison.verdict == stats.FASTER for r in races)
    speedups = [1 / r.comparison.ratio for r in races]
    rivals = sorted({r.rival["impl"] for r in races})
    return (f"At the lesson's {races[0].subject['size']:,} bytes (`{inp.sel.lesson.path}`, "
            f"{races[0].subject['toolchain']}), `{s}` has the lowest median time of every kernel that counts on "
            f"{first} of {len(races)} inputs (issue 6: the fastest at the lesson's size: "
            f"**{perf.small_verdict(races)}**), {_range(speedups, 2, 'x')} the next fastest "
            f"({', '.join(f'`{r}`' for r in rivals)}); the bootstrap interval of the ratio lies wholly below 1 on "
            f"{sure} of them.\n\n")


def perf_cpu_prose(inp):
    runs = [run for run in inp.sel.cpu_runs if any(r["impl"] == perf.CPU_SUBJECT for r in run.rows)]
    if not runs:
        return f"No run file holds CPU rows of `{perf.CPU_SUBJECT}`: the CPU comparison is {NOT_HERE}.\n"
    return "\n".join(_cpu_run_prose(run) for run in runs)


def _cpu_run_prose(run):
    view = perf.CpuView(run)
    host = run.environment["host"]
    f = perf.CPU_SUBJECT
    margin = perf.cpu_margins(view)
    confirmed = [i for i in view.inputs if view.compare("openmp_private", i)
                 and view.compare("openmp_private", i).verdict == stats.FASTER]
    text = (f"On {host['cpu_model']} ({host['logical_cores']} logical cores, {host['os']}), from `{run.path}` at "
            f"{view.size:,} bytes: `{f}` runs at {_range([view.gbps(f, i) for i in view.inputs], 2, ' GB/s')} "
            f"({_range([view.pct(f, i) for i in view.inputs], 1, '%')} of the parallel read floor, "
            f"`{view.floor}`), `openmp_private` at {_range([view.gbps('openmp_private', i) for i in view.inputs], 2)} "
            f"GB/s and the single-thread `reference` at {_range([view.gbps('reference', i) for i in view.inputs], 2)} "
            f"GB/s. `{f}` ahead of both on every input (issue 6, item 4), by medians: **{perf.cpu_verdict(view)}**")
    if margin:
        text += f"; the narrowest lead is {fmt.ratio(margin[0], 2)} over `{margin[1]}` on {margin[2]}"
    text += (f". The bootstrap interval puts `{f}` faster than `openmp_private` beyond the "
             f"{stats.DEFAULT_BAND:g}x band on {len(confirmed)} of {len(view.inputs)} inputs; on the others "
             "the samples cannot tell the lead from noise.\n")
    return text


def claims_prose(inp):
    unusable = inp.sel.unusable()
    envs, findings = claims.audit(inp.runs, inp.published, unusable)
    ours = [ev for ev in envs if isinstance(ev, claims.RunEvidence)]
    decided = sum(findings[(cid, ev.label)].status != claims.UNMEASURABLE for ev in ours for cid, _, _ in claims.CLAIMS)
    uncontrolled = sum(ev.is_gpu and ev.run.path in unusable for ev in ours)
    return (f"Each claim of the course text is a rule on the data (the rule is printed under its table). "
            f"{len(ours)} environments of ours (run file and toolchain; A/A controls aside) and the published "
            f"sources are audited; {decided} of the {len(ours) * len(claims.CLAIMS)} verdicts for ours could be "
            f"decided, the rest are {NOT_HERE} (a CPU toolchain, rows the run did not record, or GPU times of one "
            f"of the {uncontrolled} GPU environments from runs without issue 10's controls, which decide none of "
            f"{', '.join(sorted(claims.TIMED, key=lambda c: int(c[1:])))}).\n")


def _superseded_lines(sel):
    reasons = {}
    for path, reason in sel.superseded.items():
        reasons.setdefault(reason, []).append(path)
    lines = [f"- superseded, kept in `data/runs/` and used by no report but the account of the earlier finding "
             f"(section 2), the claims audit's structural claims and the environment records ({len(paths)} files, "
             f"`data/runs/{SUPERSEDED_FILE}`): {reason}" for reason, paths in reasons.items()]
    lines += [f"- `{run.path}`: GPU rows without issue 10's controls, not listed in `data/runs/{SUPERSEDED_FILE}`: "
              "used by no GPU report" for run in sel.unlisted_uncontrolled()]
    return lines


def environments_section(inp, reports, full_environment):
    sel = inp.sel
    picks = [("lesson tables and floor figure", [sel.lesson]), ("version comparison", sel.versions),
             ("bins placement", [sel.placement]), ("hot samples", [sel.hot]), ("cold samples", [sel.cold]),
             ("contention sweep", [sel.sweep]), ("performance, GPU", [sel.perf]),
             ("lane_shared at the lesson's size", [sel.lesson]), ("performance, CPU", sel.cpu_runs)]
    lines = ["Which run feeds which report (`plots/selection.py` says how it picks):", ""]
    lines += [f"- {what}: " + (", ".join(f"`{run.path}`" for run in runs if run) or "none (not measured yet)")
              for what, runs in picks]
    lines += ["- claims audit: every run file, every toolchain in it but the A/A controls"]
    lines += _superseded_lines(sel) + ["", embed(reports, "environment")]
    return "\n".join(lines)


def appendix(inp, full_environment):
    parts = []
    for run in inp.runs:
        rows = "\n".join(f"| `{k}` | {str(v).replace('|', '/')} |" for k, v in full_environment(run))
        parts.append(f"<details><summary>{run.path}</summary>\n\n| key | value |\n| --- | --- |\n{rows}\n\n</details>\n")
    return "\n".join(parts) or "No run file in data/runs.\n"


def render(inp, reports, full_environment):
    files = ", ".join(f"`{f}`" for f in inp.all_files())
    return f"""
# Appendix: the 256-bin histogram, re-measured

This appendix re-measures the course's histogram lesson (global atomics against a per-block privatized
histogram, on uniform bytes, English text and a one-byte input) and the textbook's contention sweep, and audits
the course text's claims against the measurements. It is generated by `./dev paper` from {files}; no number in
it is typed by hand, and regenerating it from the same files gives the same text. Tables are also under
`paper/tables/` as Markdown and as LaTeX (booktabs) fragments for the course text; figures under
`paper/figures/` as PNG, SVG and PDF.

## Environments

{environments_section(inp, reports, full_environment)}

## 1. The lesson's table

{lesson_prose(inp)}
{embed(reports, "lesson")}
{figure("lesson", "The lesson's table as bars: baseline and privatized median times per input, log scale")}
## 2. CUDA 12.6 against CUDA 13.0

{versions_prose(inp)}
{embed(reports, "versions")}
{figure("versions", "Newer CUDA over older per kernel on uniform bytes, 95% bootstrap intervals, the A/A pair beside")}
## 3. Where the bins lie

Every GPU toolchain of a controlled run shares one device: one input, one bins buffer at a chosen and recorded
offset past a 2 MiB boundary, one scratch buffer, one stream. The placement experiment moves that buffer and
times every kernel that counts at each offset.

{placement_prose(inp)}
{embed(reports, "placement")}
{figure("placement", PLACEMENT_CAPTION)}
## 4. Hot and cold samples

Cold samples follow a flush of the L2, so each run reads its input from DRAM (the study's default); hot samples
run back to back.

{hotcold_prose(inp)}
{embed(reports, "hotcold")}
## 5. The contention sweep (Table 16-4 style)

{sweep_prose(inp)}
{embed(reports, "sweep")}
{figure("sweep", "Mpix/s against distinct byte values, ours beside the textbook's four GPU generations")}
## 6. Percent of the read floor

Each implementation's GB/s as a percent of the read floor measured on the same input in the same run
(`read_floor` on the GPU, `openmp_read_floor` on the CPU): how far from the cost of only reading the bytes.

{figure("floor", "Percent of the read floor per implementation and input")}
## 7. Performance: how close to the read floor

The study's `perf` experiment (issue 6) times every implementation at 1 GiB on every input beside the read floor
of the same run, and the run records a microbenchmark of the GPU's shared-memory update rate. The thresholds
below are issue 6's requirements; the verdicts are computed from the run.

{perf_gpu_prose(inp)}
{perf_cpu_prose(inp)}
{embed(reports, "perf")}
{figure("perf", "Percent of the read floor per input, newest perf run, with issue 6's thresholds and the shared-memory ceilings")}
## 8. Claims audit

{claims_prose(inp)}
{embed(reports, "claims")}
## 9. Auditing a new toolkit, driver or GPU

`python3 -m plots.compare A.json B.json [--threshold 1.10] [--impl NAME ...]` prints what changed between two
runs' environments (toolchains, driver, GPU, clocks, flags, host, commit), then each matched row's ratio of
medians (B over A) with its {stats.CONFIDENCE:.0%} bootstrap interval and a verdict. Where both runs carry an A/A
control, each row shows both runs' A/A ratio and interval, and a verdict stands only where both A/A pairs are the
same; where a run carries none, one line says so. Every row whose bins lay elsewhere in B than in A is flagged.
It exits 1 when some row's whole interval lies above the threshold (a regression, its verdict not withheld), 2
for an unusable file or no rows in common, and 0 otherwise, so CI can gate on it. A run compared with itself
reports no regression.

## Appendix: full environment records

Every key each run file recorded about its environment, flattened.

{appendix(inp, full_environment)}"""
