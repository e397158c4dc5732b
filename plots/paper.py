"""paper/paper.md: the write-up, an appendix to the course.

Every number in the prose is computed here from the run files; the tables are
the generated ones, embedded as they are written under paper/tables/.
Sentences that need data that is absent say "not measurable here".
"""
from plots import claims, lesson, stats, versions
from plots import table as fmt
from plots.environment import gpu_line
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
             ("contention sweep", inp.sweep_run)]
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
## 5. Claims audit

{claims_prose(inp)}
{embed(reports, "claims")}
## 6. Auditing a new toolkit, driver or GPU

`python3 -m plots.compare A.json B.json [--threshold 1.10] [--impl NAME ...]` prints what changed between two
runs' environments (toolchains, driver, GPU, clocks, flags, host, commit), then each matched row's ratio of
medians (B over A) with its {stats.CONFIDENCE:.0%} bootstrap interval and a verdict. It exits 1 when some row's
whole interval lies above the threshold (a regression), 2 for an unusable file or no rows in common, and 0
otherwise, so CI can gate on it. A run compared with itself reports no regression.

## Appendix: full environment records

Every key each run file recorded about its environment, flattened.

{appendix(inp, full_environment)}"""
