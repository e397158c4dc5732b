"""paper/reports/*.md: everything the appendix leaves out, in full, linked from it.

A renderer: each report is a list of blocks (plots/document.py) written from the Models of plots/models.py,
which computed every number from the runs plots/selection.py names. A report whose runs are absent says why, in
the selection's words.
"""
from plots import (claims, count_bench, environment_words, history, hotcold, lesson, peers, perf, placement, sizes, stats,
                   sweep, versions)
from plots import table as fmt
from plots.document import FigureBlock, Heading, Para, Raw, TableBlock
from plots.environment import NOT_RECORDED, commit_line, cpu_and_cores, flatten, show, summary
from plots.results import cuda_version, kernel_label, sampling_words
from plots.selection import BENCH_ROLE, BENCH_WORDS, PEERS, ROLES, SUPERSEDED_FILE, cache_mode
from plots.table import Table, value_range

NOT_HERE = "not measurable here"
BACK = "Part of [the appendix](../appendix.md)."


def _page(title, *parts):
    return [Heading(title, 1), Para(BACK)] + [b for part in parts for b in part]


def _tables(tables):
    return [TableBlock(t) for t in tables]


# ---- the lesson in full ----

def _each_gpu(m, role, blocks_of):
    """blocks_of(g) for each GPU of this appendix's runs that has the role's runs, under a heading per GPU where
    there are several (a GPU without them says why); [] where none has."""
    has = [g for g in m.own if g.gpu.sel.roles.get(role)]
    if not has:
        return []
    if len(m.own) == 1:
        return blocks_of(has[0])
    return [b for g in m.own for b in [Heading(g.label)] + (blocks_of(g) if g in has else
                                                            [Para(_sentence(g.missing(role)))])]


def _sentence(words):
    return words[:1].upper() + words[1:]


def lesson_report(m):
    found = _each_gpu(m, "lesson", lambda g: [
        Para(f"Every toolchain of `{g.lesson.run.path}`, its CPU too, then the other CPUs recorded; for "
             "GPU toolchains the baseline at the placement run's best and worst bins offsets, the floor "
             "rows, the declared global atomic updates and the lesson's partitioned exercise.")]
        + _tables(lesson.lesson_tables(g.lesson)))
    if not found:
        return _page("The lesson's tables in full", [Para(m.missing("lesson"))])
    other = [Heading("The other CPUs")] if len(m.own) > 1 and m.cpu_lessons else []
    return _page("The lesson's tables in full", found, other,
                 *(_tables(lesson.lesson_tables(model)) for model in m.cpu_lessons))


# ---- versions in full ----

def _verdict_counts(found):
    verdicts = (stats.SLOWER, stats.FASTER, stats.SAME, stats.AMBIGUOUS, stats.WITHHELD_AA, stats.WITHHELD_NO_AA)
    return {v: sum(c.verdict == v for c in found) for v in verdicts}


def pair_prose(pair):
    run, base_tc, new_tc, found = pair.run, pair.base_tc, pair.new_tc, pair.comparisons
    n = _verdict_counts(found)
    text = (f"{new_tc} against {base_tc} (`{run.path}`; A/A: {versions.aa_label(run) or 'none'}): of {len(found)} "
            f"lesson rows, {n[stats.SLOWER]} are slower, {n[stats.FASTER]} faster, {n[stats.SAME]} the same within "
            f"{stats.DEFAULT_BAND:.2f}x and {n[stats.AMBIGUOUS]} ambiguous; the verdict is withheld on "
            f"{n[stats.WITHHELD_AA]} where the A/A pair is not the same and on {n[stats.WITHHELD_NO_AA]} where "
            "there is none.")
    c = versions.headline(found)
    if c:
        aa = f"A/A {fmt.ratio(c.aa.ratio, 3)} ({fmt.interval(c.aa.ci_low, c.aa.ci_high)})" if c.aa else "no A/A pair"
        text += (f" {c.base['impl']} on {c.base['input']}: {fmt.ms(c.ab.base_median)} ms against "
                 f"{fmt.ms(c.ab.new_median)} ms, A/B {fmt.ratio(c.ab.ratio, 3)} ({stats.CONFIDENCE:.0%} CI "
                 f"{fmt.interval(c.ab.ci_low, c.ab.ci_high)}), {aa}: {c.verdict}.")
    return text


def versions_report(m):
    intro = [Para("A verdict stands only where the A/A pair (a toolchain against its own repeat, same kernel and "
                  "input, same run) is the same: the rule is under each table. What each toolchain made of each "
                  "kernel: [the codegen report](codegen.md).")]
    pairs = [pair for g in m.own for pair in g.versions]
    prose = [Para(pair_prose(pair)) for pair in pairs]
    return _page("CUDA versions compared, in full", intro, prose or [Para(m.missing("versions"))],
                 _tables(versions.version_tables(pairs, m.published_pairs, m.study.published, m.study.audit,
                                                 m.missing("versions"))))


def t4_table(t4_steps):
    """The lesson's T4 question: did any release change the SASS of its kernels for sm_75, and how?"""
    rows = []
    for impl, releases, steps in t4_steps:
        between = [s for s in steps if (12, 6) < cuda_version("nvrtc " + s[0]) <= (13, 0)]
        rows.append([impl, f"{releases[0].removeprefix('nvrtc ')} to {releases[-1].removeprefix('nvrtc ')}",
                     "; ".join(f"{r} ({w})" for r, w in steps) or "none: identical SASS",
                     "; ".join(f"{r} ({w})" for r, w in between) or "no: identical SASS"])
    return Table("sm_75 (the lesson's T4): the releases that changed the SASS of the lesson's kernels",
                 ["kernel", "releases audited", "SASS changed at (what else changed)", "between 12.6 and 13.0"],
                 rows, ["SASS: the kernel's instructions differ from the release before; hot loop: the opcodes of "
                        "its innermost loop that reads the input changed too; PTX: the front end's output changed "
                        "(else the change is ptxas's alone). From the codegen audit, no GPU needed."], align="llll")


def codegen_report(m):
    tables = [t4_table(m.t4_steps)] + versions.codegen_tables(m.study.audit)
    return _page("What each toolchain made of each kernel",
                 [Para(f"The codegen audit (`tools/codegen_audit.py`, no GPU needed): {m.study.audit.describe()}. Per "
                       "pair of toolchains, per arch and kernel, the metrics that differ (registers, shared "
                       "memory, spills, SASS instruction and opcode counts of the whole kernel and of its hot "
                       "loop), or that the code is identical.")], _tables(tables))


# ---- placement and hot/cold in full ----

def _effect_sentence(e):
    showing = e.showing()
    best, worst = e.agreed("best"), e.agreed("worst")
    if best is not None and worst is not None:
        fastest, slowest = ([s.medians()[getattr(s, end)] for s in showing] for end in ("best", "worst"))
        where = (f"fastest with the bins at {placement.where(e, best)} ({value_range(fastest, 3, ' ms')}), "
                 f"slowest at {placement.where(e, worst)} ({value_range(slowest, 3, ' ms')})")
    else:
        where = "; ".join(f"{s.toolchain} fastest at {s.best:,} ({fmt.ms(s.medians()[s.best])} ms), slowest at "
                          f"{s.worst:,} ({fmt.ms(s.medians()[s.worst])} ms)" for s in showing)
    period = e.period()
    repeats = f"a period of {period:,} bytes" if period else "periods " + ", ".join(
        "none within the sweep" if p is None else f"{p:,} bytes" for p in e.periods())
    who = f"all {len(e.series)} toolchains show it, the A/A control included" if len(showing) == len(e.series) \
        else f"{len(showing)} of {len(e.series)} toolchains show it ({', '.join(s.toolchain for s in showing)})"
    return (f"{e.kernel} on {e.input}: {where}, worst over best "
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
            "mechanism stays a conjecture; only the offsets and times above are measured.")


def placement_prose(p):
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
        return f"The GPU record holds no L2 size, so which sizes fit in it is {NOT_HERE}. Sampled: {modes}."
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
    placed = _each_gpu(m, "placement", lambda g: placement_prose(g.placement)
                       + _tables(placement.placement_tables(g.placement, None)))
    if not placed:
        placed = [Para(f"Bins placement: {m.missing('placement')}")] + \
            _tables(placement.placement_tables(None, m.missing("placement")))
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
    return _page("Where the bins lie, and hot against cold samples", placed, cache)


# ---- the sweep in full ----

def sweep_report(m):
    missing, published = m.missing("sweep"), m.study.published
    cpu = [t for t in (sweep.cpu_sweep_table(s) for s in m.cpu_sweeps) if t]
    swept = [g for g in m.own if g.sweep]
    named = len(swept) > 1
    gpu = [sweep.gpu_sweep_table(g.sweep, published, missing, g.label if named else "") for g in swept] or \
        [sweep.gpu_sweep_table(None, published, missing)]
    return _page("The contention sweep in full",
                 [TableBlock(sweep.textbook_layout_table([(g.label if named else "", g.sweep) for g in swept],
                                                         published, missing))], _tables(gpu), _tables(cpu))


# ---- performance ----

def perf_gpu_prose(view, missing):
    """One GPU's perf run (a perf.PerfView, or None: missing('perf') says why) in words."""
    if view is None:
        return f"The GPU performance report: {missing('perf')}"
    run, s, b, checks = view.run, view.subject, view.peer, view.checks
    host = run.environment["host"]
    text = (f"Environment: {perf.gpu_environment_line(view)}; host {cpu_and_cores(run.environment)}, "
            f"{host['os']}; run file `{run.path}` (started "
            f"{run.doc['started']}, commit {commit_line(run.doc['provenance'])}), {view.size:,} bytes per input, "
            f"{len(view.inputs)} inputs, medians of per-run samples. ")
    pcts = [view.pct(s, i) for i in view.inputs]
    text += (f"`{s}` runs at {value_range(pcts, 1, '%')} of the read floor ({view.floor}, "
             f"{value_range([view.gbps(view.floor, i) for i in view.inputs], 0, ' GB/s')}) over the inputs, and at "
             f"{fmt.ratio(view.ratio(s, b, perf.CUB_RATIO_INPUT), 2)} `{b}`'s GB/s on {perf.CUB_RATIO_INPUT} bytes "
             f"(`{b}` itself: {fmt.pct(view.pct(b, perf.CUB_RATIO_INPUT))} of the floor there, "
             f"{value_range([view.pct(b, i) for i in view.inputs], 1, '%')} over the inputs). ")
    groups = []
    for need, unit in sorted({(c.required, c.unit) for c in checks}, reverse=True):
        group = [c for c in checks if (c.required, c.unit) == (need, unit)]
        worst = min((c for c in group if c.measured is not None), key=lambda c: c.measured, default=None)
        label = f"{need:g}% of the floor" if unit == "pct" else f"{need:g}x `{b}`"
        detail = f"lowest {perf.show(worst)} on {worst.input}" if worst else NOT_HERE
        groups.append(f"{label} on {len(group)} input{'s' if len(group) > 1 else ''}: **{perf.overall(group)}** "
                      f"({detail})")
    met = sum(c.verdict == perf.MET for c in checks)
    text += (f"The study's targets, checked on these figures: {'; '.join(groups)}. In all, {met} of {len(checks)} "
             f"checks are met: **{perf.overall(checks)}** on this run.")
    return text


def small_prose(small):
    """The subject at the lesson's size on one GPU (a perf.Small, or None)."""
    races = small.races if small else []
    if not races:
        return f"`{perf.SUBJECT.name('cuda')}` at the lesson's size: {NOT_HERE} (no GPU lesson run with it)."
    s = races[0].subject["impl"]
    first = sum(r.fastest for r in races)
    sure = sum(r.comparison.verdict == stats.FASTER for r in races)
    speedups = [1 / r.comparison.ratio for r in races]
    rivals = sorted({r.rival["impl"] for r in races})
    return (f"At the lesson's {races[0].subject['size']:,} bytes (`{small.run.path}`, "
            f"{races[0].subject['toolchain']}), `{s}` has the lowest median time of every kernel that counts on "
            f"{first} of {len(races)} inputs (the fastest at the lesson's size: **{small.verdict}**), "
            f"{value_range(speedups, 2, 'x')} the next fastest ({', '.join(f'`{r}`' for r in rivals)}); the "
            f"bootstrap interval of the ratio lies wholly below 1 on {sure} of them.")


def ceilings_prose(view):
    if view is None:
        return None
    s = view.subject
    rates = view.shared_rates()
    if not rates:
        return f"The run records no shared-memory microbenchmark: the kernels' share of the hardware is {NOT_HERE}."
    floor = view.floor_median()
    parts = [f"{r.get('pattern', '?')} {fmt.number(r.get('updates_per_clock_sm'), 2)} updates per clock per SM, a "
             f"ceiling of {fmt.number(r['ceiling_gbps'], 0)} GB/s ({fmt.pct(100 * r['ceiling_gbps'] / floor)} of the "
             f"floor's median), of which `{s}` reaches "
             f"{value_range([100 * view.gbps(s, i) / r['ceiling_gbps'] for i in view.inputs], 1, '%')}"
             for r in rates]
    return (f"The shared-memory microbenchmark of the same run measured {'; '.join(parts)}. A design that spends "
            "one shared update of a pattern per byte cannot pass that pattern's ceiling as measured; a kernel above "
            "100% of one spends fewer than one such update per byte.")


def cpu_run_prose(view):
    run = view.run
    host = run.environment["host"]
    f, priv, oracle = view.subject, view.privatized, view.oracle
    margin = view.margin
    confirmed = [i for i in view.inputs if view.compare(priv, i) and view.compare(priv, i).verdict == stats.FASTER]
    text = (f"On {cpu_and_cores(run.environment)}, {host['os']}, from `{run.path}` at "
            f"{view.size:,} bytes: `{f}` runs at {value_range([view.gbps(f, i) for i in view.inputs], 2, ' GB/s')} "
            f"({value_range([view.pct(f, i) for i in view.inputs], 1, '%')} of the parallel read floor, "
            f"`{view.floor}`), `{priv}` at "
            f"{value_range([view.gbps(priv, i) for i in view.inputs], 2)} GB/s and the single-thread "
            f"`{oracle}` at {value_range([view.gbps(oracle, i) for i in view.inputs], 2)} GB/s. `{f}` ahead "
            f"of both on every input, by medians: **{view.verdict}**")
    if margin:
        text += f"; the narrowest lead is {fmt.ratio(margin[0], 2)} over `{margin[1]}` on {margin[2]}"
    paths = ", ".join(sorted({p for p in view.paths.values() if p})) or NOT_RECORDED
    others = "" if len(confirmed) == len(view.inputs) else \
        "; on the others the samples cannot tell the lead from noise"
    return text + (f". The bootstrap interval puts `{f}` faster than `{priv}` beyond the "
                   f"{stats.DEFAULT_BAND:g}x band on {len(confirmed)} of {len(view.inputs)} inputs{others}. "
                   f"`{f}`'s code path: {paths}; at >= {perf.CPU_MIN_GBPS:g} GB/s on every input, the study's "
                   f"target for a {perf.CPU_TARGET_CORES}-core machine with AVX-512: **{view.rate_verdict}**.")


def reads_bound(b):
    """A file not met where count kept up with its own reads (within the A/A band, or faster) and those reads alone
    were under the target, its counting alone (CPU) not: the reading bound it, not the counting."""
    return (b.verdict == count_bench.NOT_MET and b.reads_pct < count_bench.TARGET_PCT and
            b.reads_alone_pct >= 100 - count_bench.AA_BAND and
            (b.counting_alone_pct is None or b.counting_alone_pct >= count_bench.TARGET_PCT))


def reads_bound_prose(benches):
    """Where every file not met was bound by its reading (reads_bound), the report says so, by medians."""
    missed = [b for b in benches if b.verdict == count_bench.NOT_MET]
    if not missed or not all(reads_bound(b) for b in missed):
        return ""
    files = "the file" if len(missed) == 1 else f"the {len(missed)} files"
    return (f". On {files} not met, count's own reads alone ran at {value_range([b.reads_pct for b in missed], 1, '%')} "
            f"of the floor, under {count_bench.TARGET_PCT:g}%, and count at "
            f"{value_range([b.reads_alone_pct for b in missed], 0, '%')} of them (medians): the reading bound count "
            "there, not the counting")


def other_plans_prose(own, others):
    """The files timed with other reading plans (options of their own, or count's plan of an earlier commit), by
    plan, in GB/s, beside count's own plan now on the same files where there are such."""
    def gbps(benches):
        return value_range([b.gbps(count_bench.COUNT)["median"] for b in benches], 1) + " GB/s"

    by_plan = "; ".join(f"{plan}: {gbps([b for b in others if b.plan == plan])}"
                        for plan in dict.fromkeys(b.plan for b in others))
    paths = {b.doc["file"]["path"] for b in others}   # a call's files have paths of their own (a fresh folder)
    same_files = [b for b in own if b.doc["file"]["path"] in paths]
    beside = f", against {gbps(same_files)} with count's own plan on the same files" if same_files else ""
    return (f"Timed with other reading plans, options of their own or count's plan of an earlier commit "
            f"({len(others)} file{'s' if len(others) > 1 else ''}, not judged), count ran at {by_plan}{beside}")


def count_prose(m):
    benches = m.benches
    if not benches:
        return f"The count benchmark: {m.missing(BENCH_ROLE)}"
    parts = []
    for backend, what in (("cpu", "CPU implementations"), ("cuda", "GPU implementations")):
        group = [b for b in benches if b.backend == backend]
        for machine in dict.fromkeys(b.machine for b in group):
            here = [b for b in group if b.machine == machine and b.own_plan]
            other_plans = [b for b in group if b.machine == machine and not b.own_plan]
            if not here:
                prose = other_plans_prose(here, other_plans)
                parts.append(f"{what} on {machine}: {prose[0].lower()}{prose[1:]}")
                continue
            text = (f"{what} on {machine}: count at {value_range([b.count_pct for b in here], 0, '%')} of "
                    f"{here[0].floor_entry} ({here[0].floor_what}) over {len(here)} file"
                    f"{'s' if len(here) > 1 else ''}, its A/A pair at "
                    f"{value_range([b.control_pct for b in here], 0, '%')} and count at "
                    f"{value_range([b.reads_alone_pct for b in here], 0, '%')} of its own reads alone: "
                    f"**{count_bench.overall(here)}**")
            noisy = count_bench.inconclusive(here)
            if noisy:
                judged = [b.count_pct for b in here if b.verdict in (count_bench.MET, count_bench.NOT_MET)]
                rest = f"; the {len(judged)} judged at {value_range(judged, 0, '%')}" if judged else ""
                text += (f" ({len(noisy)} of the {len(here)} files inconclusive, their passes back to back, their machine "
                         f"busy or their A/A pair apart: count at {value_range([b.count_pct for b in noisy], 0, '%')} there{rest})")
            if min(b.count_pct for b in here) > 100:
                text += (f". The floor, {here[0].floor_entry}, does not bind here: count runs faster than it, and "
                         "its own reads alone are the figure to read")
            alone = [b.counting_alone_pct for b in here if b.counting_alone_pct is not None]
            if alone and max(alone) < count_bench.TARGET_PCT:
                text += (f". Counting alone, on the file's bytes already in memory, runs at {value_range(alone, 0, '%')} "
                         f"of the floor: under {count_bench.TARGET_PCT:g}% however the file is read, so on this "
                         "machine the target needs a faster counting kernel or more cores")
            text += reads_bound_prose(here)
            if other_plans:
                text += ". " + other_plans_prose(here, other_plans)
            parts.append(text)
    return (f"`histostudy count-bench` times `count` on a page-cached file against its own floor in the same run, in "
            f"rotating order with an A/A pair; the target is at least {count_bench.TARGET_PCT:g}% of that floor on "
            f"files of {fmt.size_words(count_bench.TARGET_MIN_BYTES)} and more (docs/study-spec.md section 5). "
            + ". ".join(parts) + ".")


def count_section(m):
    blocks = [Heading("`count` at the speed of its input", 2), Para(count_prose(m))]
    return blocks + ([TableBlock(count_bench.bench_table(m.benches))] if m.benches else [])


def gpu_performance(g, missing):
    """One GPU's perf run and its subject at the lesson's size, in words; g None: no GPU of this appendix's runs."""
    view = g.perf if g else None
    blocks = [Para(perf_gpu_prose(view, missing)), Para(small_prose(g.small if g else None))]
    return blocks + ([Para(ceilings_prose(view))] if ceilings_prose(view) else [])


def floor_pcts_table(bars):
    """Each implementation's percent of each GPU's own read floor per input: the perf runs side by side."""
    impls = list(dict.fromkeys(impl for b in bars for impl in b.impls))
    inputs = list(dict.fromkeys(i for b in bars for i in b.inputs))
    rows = [[input] + [fmt.pct(b.pcts.get(impl, {}).get(input)) for impl in impls for b in bars] for input in inputs]
    return Table(f"Percent of each GPU's own read floor, {bars[0].size}", ["input"] + [
        f"{impl}, {b.gpu}" for impl in impls for b in bars], rows,
        [f"Each implementation's GB/s over {bars[0].floor}'s on the same input in the same run on the same GPU: a "
         "GPU against its own floor, whatever its memory bandwidth."],
        align="l" + "r" * len(impls) * len(bars))


def performance_report(m):
    own, several = m.own or [None], len(m.own) > 1
    gpu = [b for g in own for b in ([Heading(g.label, 3)] if several else [])
           + gpu_performance(g, g.missing if several else m.missing)]
    views = [g.perf for g in m.own if g.perf]
    if m.perf_bars:
        gpu.append(FigureBlock("perf", 1, "Each implementation's GB/s as a percent of the read floor's on the same "
                                          "input in the same run, with the study's targets and the shared-memory "
                                          "ceilings" + ("; a panel per implementation, a colour per GPU." if
                                                        len(m.perf_bars) > 1 else "."),
                               " and ".join(f"`{g.perf.run.path}`" for g in m.gpus if g.perf_bars in m.perf_bars)))
    if len(m.perf_bars) > 1:
        gpu.append(TableBlock(floor_pcts_table(m.perf_bars)))
    size = f" at {fmt.size_words(views[0].size)}" if views else ""
    cpu_prose = [Para(cpu_run_prose(cpu)) for cpu in m.cpus] or [
        Para(f"No run chosen holds CPU rows of `{perf.SUBJECT.name('cpu')}`: the CPU comparison is {NOT_HERE}.")]
    gpu_tables = [t for g in own for t in perf.gpu_tables(g.perf if g else None, g.small if g else None,
                                                          (g.missing if several else m.missing)("perf"))]
    return _page("Performance engineering: how close to the read floor",
                 [Para(f"The study's `perf` experiment times the fastest implementations{size} on every input "
                       "beside the read floor of the same run, and records a microbenchmark of the GPU's "
                       "shared-memory update rates; the targets are the study's (docs/study-spec.md section 5), the "
                       "verdicts computed from the run.")],
                 gpu, [Heading("The CPU", 2)], cpu_prose,
                 _tables(gpu_tables + perf.cpu_tables(m.cpus, m.cpu_series)), sizes_section(m),
                 peers_section(m), count_section(m))


def _target_words(checks, peer):
    """'within 1.5 us of read_floor, 21 cases: **not met** (3 met; furthest from it: 8.64 us on uniform at 4 GiB);
    ...': each requirement's verdict over its checks, with the check furthest from its target."""
    parts = []
    for requirement in dict.fromkeys(c.requirement for c in checks):
        group = [c for c in checks if c.requirement == requirement]
        worst = perf.worst(group)
        where = (f"furthest from it: {perf.show(worst)} on {worst.input} at {fmt.size_words(worst.size)}" if worst
                 else NOT_HERE)
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
    text = (f"The `{sizes.EXPERIMENT}` experiment (`{z.run.path}`, {z.toolchain}; {z.conditions}) times `{s}` and "
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
        text += f"The run records no theoretical memory bandwidth: the physical limit is {NOT_HERE}. "
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
                                                           _sentence(g.missing("sizes")))) for g in m.own]
    caption = (f"Per input, the median time per run of `{z.names['floor']}`, `{z.names['subject']}` "
               f"and `{z.names['peer']}` against the input's size (log-log; shaded: p10..p90; "
               "dashed: the bytes read at the GPU's theoretical memory bandwidth), and each "
               "kernel's GB/s as a percent of the floor's at the same size (log x; dotted: the "
               "floor's own GB/s as a percent of the theoretical bandwidth). Sizes: M MiB, G GiB." if len(lines) == 1
               else f"Per input, the median time per run of `{z.names['floor']}` (dotted), `{z.names['subject']}` "
               f"(solid) and `{z.names['peer']}` (dashed) against the input's size (log-log), and the two kernels' "
               "GB/s as a percent of their own GPU's floor at the same size (log x); a colour per GPU. Sizes: M MiB, "
               "G GiB.")
    figure = FigureBlock("sizes", 2, caption, " and ".join(f"`{model.run.path}`" for _, _, model in lines))
    side_by_side = [TableBlock(sizes.gpus_table(lines))] if len(lines) > 1 else []
    return blocks + prose + [figure] + side_by_side + [
        TableBlock(t) for g in found for t in (sizes.sweep_table(g.sizes), sizes.target_table(g.sizes))]


def peers_prose(g):
    """What the peers runs of one GPU found, peer by peer and experiment by experiment, from its PeersGpu."""
    s = f"`{g.subject}`" if g.subject else "the subject"
    parts = []
    for impl in g.peers:
        for experiment in peers.EXPERIMENTS:
            pct = g.values(impl, "pct_of_floor", experiment)
            speedup = g.values(impl, "subject_over_peer", experiment)
            if g.of(experiment) and any(c.peer["impl"] == impl for c in g.of(experiment)):
                parts.append(f"`{impl}` on the {experiment} cases runs at {value_range(pct, 1, '%')} of the read "
                             f"floor's GB/s, and {s} at {value_range(speedup, 2, 'x')} its GB/s")
    where = (", ".join(f"`{r.path}`" for r in g.study_runs) if g.study_runs else
             f"no perf or sizes run of the {g.gpu} is chosen: the ratios are {NOT_HERE}")
    found = "; ".join(parts) if parts else "no peer row was timed"
    return (f"On the {g.gpu} ({peers.runs_words(g.runs)}; {', '.join(g.libraries)}, each with its A/A control; "
            f"against {where}): {found}."
            + (f" {len(g.failed)} peer rows failed their check and were not timed (named under the tables)."
               if g.failed else "")
            + stopped_words(g) + unmeasured_words(g))


def unmeasured_words(g):
    missing = g.unmeasured
    if not missing:
        return ""
    return (f" The peers were not measured on {fmt.plural(len(missing), 'case')} of the study's on this GPU: "
            + ", ".join(f"{e} {i} at {n:,} bytes" for e, i, n in missing) + ".")


def stopped_words(g):
    """What the runs that stopped before their end leave out, or ''."""
    stopped = [r for r in g.runs if r.incomplete]
    if not stopped:
        return ""
    held = fmt.plural(len({c.key for c in g.cases}), "case")
    why = "; ".join(r.incomplete for r in stopped)
    if len(g.runs) == 1:
        return (f" The run stopped before its end ({why}); it holds {held} whole, and the cases it lacks were not "
                "measured.")
    return (f" {' and '.join(f'`{r.name}`' for r in stopped)} stopped before its end ({why}); the runs hold {held} "
            "whole, and a case none of them holds was not measured.")


def peers_section(m):
    blocks = [Heading("The libraries a reader would reach for", 2),
              Para("`tools/peers.py` (docs/peers.md) times each library's own histogram call, `torch.bincount` and "
                   "`cupy.bincount` on the GPU, on the cases of the `perf` and `sizes` experiments, checked bin for "
                   "bin against the study's reference first and sampled under the study's rules, each with an A/A "
                   "control. Each peer is set beside the study's subject and read floor from the perf and sizes "
                   "runs of a GPU of the same name, on the same input, size and cache mode: two runs compared, "
                   "each with its own controls.")]
    if not m.peers:
        return blocks + [Para(f"Library peers: {m.missing(PEERS)}")]
    return blocks + [Para(peers_prose(g)) for g in m.peers] + _tables(peers.peers_tables(m.peers))


# ---- claims in full ----

def claims_report(m):
    return _page("The course text's claims, in full",
                 [Para("Each claim is a rule on the data (printed under its table), decided per environment (GPU, "
                       "toolchain, driver) from every run and toolchain that measured it, and per published source. "
                       "CPU toolchains are left out: every claim is about CUDA kernels.")],
                 [TableBlock(claims.gpu_table(m.claims, m.claims_by_gpu, [g.label for g in m.gpus])),
                  TableBlock(claims.summary_table(m.claims))], _tables(claims.claim_tables(m.claims)))


# ---- environments in full ----

def _role_lines(sel):
    lines = []
    for role, runs in sel.roles.items():
        for run in runs:
            lines.append(f"- {role} ({ROLES[role][0]}): `{run.path}`: {sel.why[(run.path, role)]}")
    for bench in sel.benches:
        lines.append(f"- {BENCH_ROLE} ({BENCH_WORDS}): `{bench.path}`: {sel.why[(bench.path, BENCH_ROLE)]}")
    return lines


def chosen_section(sel):
    lines = [f"The runs this paper is built from, as {sel.source} names them (role: what the run must hold, and "
             "why it was chosen):", ""] + _role_lines(sel)
    lines += ["", f"Every other file in `data/runs/` is kept as recorded and read by no report; "
                  f"`data/runs/{SUPERSEDED_FILE}` says why the earlier ones are out. A run that stopped on an error "
                  "after measuring (marked incomplete) never feeds the paper."]
    lines += [f"- left out: `{path}`: {why}" for path, why in sel.left_out.items()]
    return Raw("\n".join(lines) + "\n")


def full_record(run):
    """Every recorded environment key, flattened, collapsed under the run's name."""
    doc = {"environment": run.environment, "provenance": run.doc["provenance"], "timing": run.doc["timing"]}
    rows = "\n".join(f"| `{k}` | {show(v).replace('|', '/')} |" for k, v in flatten(doc).items())
    return Raw(f"<details><summary>{run.path}</summary>\n\n| key | value |\n| --- | --- |\n{rows}\n\n</details>\n")


def environments_report(m):
    runs = m.study.all_runs()
    summaries = [TableBlock(Table(f"Environment: {run.name}", ["field", "value"], [list(p) for p in summary(run)],
                                  [f"Command: `{' '.join(run.doc['provenance']['argv'])}`"], align="ll"))
                 for run in runs]
    produced = [Heading("What produced each environment's numbers", 2)] + \
        [Para(p) for p in environment_words.environment_paragraphs(m.claims.ours, m.study)]
    return _page("The environments in full", [chosen_section(m.study.sel)], produced, machines_section(m), summaries,
                 [Heading("Every recorded key", 2)], [full_record(run) for run in runs])


def machines_section(m):
    """What differs between the GPUs' machines, key by key, where there are several GPUs."""
    if not m.machines:
        return []
    gpus = [g.label for g in m.gpus]
    rows = [[what, f"`{key}`"] + [values[g].replace("|", "/") for g in gpus] for what, key, values in m.machines]
    return [Heading("What differs between the GPUs' machines", 2), TableBlock(Table(
        "The GPUs' machines: every recorded key whose values differ", ["what", "key"] + gpus, rows,
        ["Each GPU's values over its runs (every distinct one, in the order of its runs): its GPU record, driver, "
         "GPU state before the run, host and build; what changes from moment to moment (times, temperatures, power "
         "drawn) and from board to board (identity, bus) left out."], align="ll" + "l" * len(gpus)))]


def history_report(m):
    """Every kernel x input x kind of code under every release: the release history in full, a GPU's each, and
    which steps replicate on every GPU."""
    found = _each_gpu(m, "history", lambda g: [TableBlock(history.history_table(g.history))])
    if not found:
        return _page("The release history", [Para(f"Release history: {m.missing('history')}")])
    steps = [Heading("Which steps replicate", 2), Para(_sentence(m.steps.words) + "."),
             TableBlock(history.replication_table(m.steps))] if m.steps and m.steps.rows else []
    return _page("The release history in full", [Para(history.METHOD)], found, steps)


REPORTS = {"lesson": lesson_report, "versions": versions_report, "history": history_report,
           "placement": placement_report,
           "sweep": sweep_report, "performance": performance_report, "codegen": codegen_report,
           "claims": claims_report, "environments": environments_report}
