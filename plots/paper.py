"""paper/paper.md: the write-up, an appendix to the course.

Every number in the prose is computed here from the run files; the tables are
the generated ones, embedded as they are written under paper/tables/.
Sentences that need data that is absent say "not measurable here".
"""
from plots import claims, lesson, perf, stats, versions
from plots import table as fmt
from plots.environment import commit_line, gpu_line
from plots.figures import primary_gpu_toolchain

NOT_HERE = "not measurable here"


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


def lesson_prose(inp):
    run = inp.lesson_run
    if run is None:
        return f"No run file holds lesson rows: the lesson's table is {NOT_HERE}.\n"
    view = _lesson_view(run)
    t4 = lesson.baseline_source(inp.published)
    speedups = {i: _speedup(view, i) for i in ("uniform", "one_byte")}
    if view.backend == "cpu":
        opening = (f"No GPU run is recorded in `data/runs/` yet, so every GPU figure of the lesson is {NOT_HERE}. "
                   f"The tables keep the lesson's layout with the CPU pair in place of the kernels: the "
                   f"single-thread `reference` against `openmp_private` on {run.environment['host']['cpu_model']} "
                   f"({run.environment['host']['logical_cores']} logical cores), from `{run.path}`.")
    else:
        opening = (f"On {gpu_line(run, view.toolchain)} with {view.toolchain} (`{run.path}`), global atomics took "
                   f"{fmt.ms(view.ms('global', 'uniform'))} ms on uniform bytes and the privatized kernel "
                   f"{fmt.ms(view.ms('per_block', 'uniform'))} ms.")
    figures_ = (f" The privatized speedup is {fmt.ratio(speedups['uniform'])} on uniform bytes and "
                f"{fmt.ratio(speedups['one_byte'])} on the one-byte input; the lesson's {t4.gpu} "
                f"(CUDA {t4.cuda}) shows {fmt.ratio(t4.get('speedup', 'uniform'))} and "
                f"{fmt.ratio(t4.get('speedup', 'one_byte'))}.")
    return opening + figures_ + (" Times are medians of per-run samples; where the run recorded it, the lesson's "
                                 "own method (mean of back-to-back runs after warm-ups) is shown beside.\n")


def versions_prose(inp):
    t4 = inp.published
    rows = versions.published_table(t4).rows
    published = "; ".join(f"{r[0]} on {r[1]}: {r[3]} ms on {r[2]}, {r[5]} ms on {r[4]} ({r[6]})" for r in rows)
    text = f"The lesson's own two versions (published): {published}.\n\n"
    run = inp.version_run
    if run is None:
        return text + (f"Our comparison is {NOT_HERE}: no run file in `data/runs/` holds rows of two CUDA "
                       "versions. A run with NVRTC 12.6 and 13.0 toolchains fills the table below. "
                       f"Codegen: {inp.audit.describe()}.\n")
    for base_tc, new_tc in versions.pairs_in(run):
        found = versions.comparisons(run, base_tc, new_tc)
        counts = {v: sum(c.verdict == v for _, _, c in found) for v in (stats.SLOWER, stats.FASTER, stats.SAME,
                                                                      stats.AMBIGUOUS)}
        reader = next(((b, c) for b, _, c in found if b["impl"] == "sum_bytes" and b["input"] == "uniform"), None)
        text += (f"{new_tc} against {base_tc} (`{run.path}`): of {len(found)} lesson rows, {counts['slower']} are "
                 f"slower, {counts['faster']} faster, {counts['same']} the same within {stats.DEFAULT_BAND:.2f}x and "
                 f"{counts['ambiguous']} ambiguous.")
        if reader:
            text += (f" sum_bytes on uniform: {fmt.ms(reader[1].base_median)} ms against "
                     f"{fmt.ms(reader[1].new_median)} ms, {fmt.ratio(reader[1].ratio, 3)} "
                     f"(95% CI {fmt.interval(reader[1].ci_low, reader[1].ci_high)}): {reader[1].verdict}.")
        text += "\n\n"
    return text + f"Codegen: {inp.audit.describe()}.\n"


def sweep_prose(inp):
    spread = {g: max(v.values()) / min(v.values()) for g, v in inp.published.table_16_4.items()}
    text = "In the textbook's table the per-block histogram's best over worst throughput is " + ", ".join(
        f"{s:.1f}x on {g}" for g, s in spread.items()) + "."
    run = inp.sweep_run
    if run is None:
        return text + f" Our sweep is {NOT_HERE}: no run holds sweep rows.\n"
    ev = claims.RunEvidence(run, primary_gpu_toolchain(run) or "cpu")
    impl = "per_block" if ev.is_gpu else "reference"
    series = ev.sweep(impl)
    if not series:
        return text + f" Our {impl} sweep is {NOT_HERE}.\n"
    spread = max(series.values()) / min(series.values())
    where = f"{gpu_line(run, ev.toolchain)} ({ev.toolchain})" if ev.is_gpu else \
        f"the CPU ({run.environment['host']['cpu_model']}; no GPU sweep is recorded, so ours is {NOT_HERE} on a GPU)"
    return text + (f" Ours, on {where}, `{impl}` runs at {fmt.number(max(series.values()), 0)} Mpix/s at best and "
                   f"{fmt.number(min(series.values()), 0)} at worst ({spread:.2f}x), from `{run.path}`.\n")


def _range(values, digits=1, suffix=""):
    values = [v for v in values if v is not None]
    low, high = f"{min(values):,.{digits}f}", f"{max(values):,.{digits}f}"
    return f"{low}{suffix}" if low == high else f"{low} to {high}{suffix}"


def _earlier_attempts(inp):
    newest = inp.perf_run
    shown = set(perf.PerfView(newest).impls) | {perf.PerfView(newest).floor}
    parts = []
    for run in perf.perf_runs(inp.runs)[:-1]:
        impls = sorted({r["impl"] for r in run.rows if r["experiment"] == perf.EXPERIMENT} - shown)
        parts.append(f"`{run.path}`" + (f" ({', '.join(impls)})" if impls else ""))
    if not parts:
        return ""
    return (" Earlier attempts, earlier perf runs kept as recorded (in brackets, the implementations they timed "
            f"that the newest run does not): {'; '.join(parts)}.")


def perf_gpu_prose(inp):
    run = inp.perf_run
    if run is None:
        return f"No run file holds GPU rows of the perf experiment: the GPU performance report is {NOT_HERE}.\n"
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
    races = perf.small_races(inp.lesson_run) if inp.lesson_run else []
    if not races:
        return f"`{perf.SUBJECT}` at the lesson's size: {NOT_HERE} (no GPU lesson run with it).\n\n"
    s = perf.SUBJECT
    first = sum(r.fastest for r in races)
    sure = sum(r.comparison.verdict == stats.FASTER for r in races)
    speedups = [1 / r.comparison.ratio for r in races]
    rivals = sorted({r.rival["impl"] for r in races})
    return (f"At the lesson's {races[0].subject['size']:,} bytes (`{inp.lesson_run.path}`, "
            f"{races[0].subject['toolchain']}), `{s}` has the lowest median time of every kernel that counts on "
            f"{first} of {len(races)} inputs (issue 6: the fastest at the lesson's size: "
            f"**{perf.small_verdict(races)}**), {_range(speedups, 2, 'x')} the next fastest "
            f"({', '.join(f'`{r}`' for r in rivals)}); the bootstrap interval of the ratio lies wholly below 1 on "
            f"{sure} of them.\n\n")


def perf_cpu_prose(inp):
    runs = [run for run in inp.cpu_runs if any(r["impl"] == perf.CPU_SUBJECT for r in run.rows)]
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
    envs, findings = claims.audit(inp.runs, inp.published)
    ours = [ev for ev in envs if isinstance(ev, claims.RunEvidence)]
    decided = sum(findings[(cid, ev.label)].status != claims.UNMEASURABLE for ev in ours for cid, _, _ in claims.CLAIMS)
    return (f"Each claim of the course text is a rule on the data (the rule is printed under its table). "
            f"{len(ours)} environments of ours (run file and toolchain) and the published sources are audited; "
            f"{decided} of the {len(ours) * len(claims.CLAIMS)} verdicts for ours could be decided, the rest are "
            f"{NOT_HERE} (a CPU toolchain, or rows the run did not record).\n")


def environments_section(inp, reports, full_environment):
    picks = [("lesson tables and floor figure", inp.lesson_run), ("version comparison", inp.version_run),
             ("contention sweep", inp.sweep_run), ("performance, GPU", inp.perf_run),
             ("lane_shared at the lesson's size", inp.lesson_run)]
    picks += [("performance, CPU", run) for run in inp.cpu_runs] or [("performance, CPU", None)]
    lines = ["Which run feeds which report (`plots/make_all.py` says how it picks):", ""]
    lines += [f"- {what}: " + (f"`{run.path}`" if run else f"none ({NOT_HERE})") for what, run in picks]
    lines += ["- claims audit: every run file, every toolchain in it", "", embed(reports, "environment")]
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
{figure("versions", "Newer CUDA over older, per kernel on uniform bytes, with 95% bootstrap intervals")}
## 3. The contention sweep (Table 16-4 style)

{sweep_prose(inp)}
{embed(reports, "sweep")}
{figure("sweep", "Mpix/s against distinct byte values, ours beside the textbook's four GPU generations")}
## 4. Percent of the read floor

Each implementation's GB/s as a percent of the read floor measured on the same input in the same run
(`read_floor` on the GPU, `openmp_read_floor` on the CPU): how far from the cost of only reading the bytes.

{figure("floor", "Percent of the read floor per implementation and input")}
## 5. Performance: how close to the read floor

The study's `perf` experiment (issue 6) times every implementation at 1 GiB on every input beside the read floor
of the same run, and the run records a microbenchmark of the GPU's shared-memory update rate. The thresholds
below are issue 6's requirements; the verdicts are computed from the run.

{perf_gpu_prose(inp)}
{perf_cpu_prose(inp)}
{embed(reports, "perf")}
{figure("perf", "Percent of the read floor per input, newest perf run, with issue 6's thresholds and the shared-memory ceilings")}
## 6. Claims audit

{claims_prose(inp)}
{embed(reports, "claims")}
## 7. Auditing a new toolkit, driver or GPU

`python3 -m plots.compare A.json B.json [--threshold 1.10] [--impl NAME ...]` prints what changed between two
runs' environments (toolchains, driver, GPU, clocks, flags, host, commit), then each matched row's ratio of
medians (B over A) with its {stats.CONFIDENCE:.0%} bootstrap interval and a verdict. It exits 1 when some row's
whole interval lies above the threshold (a regression), 2 for an unusable file or no rows in common, and 0
otherwise, so CI can gate on it. A run compared with itself reports no regression.

## Appendix: full environment records

Every key each run file recorded about its environment, flattened.

{appendix(inp, full_environment)}"""
