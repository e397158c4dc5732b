"""CUDA version against CUDA version, in controlled runs: per kernel
and input, each toolchain's median, the A/B ratio with its bootstrap interval,
the A/A ratio (the run's control entry over the toolchain it repeats) with
its interval, a verdict only where that A/A pair is the same, and the codegen
difference beside it; the published T4 figures beside ours."""
from dataclasses import dataclass

from plots import codegen, environment, pages, stats
from plots import table as fmt
from plots.document import FigureBlock, Heading, Para, Part, TableBlock
from plots.published import LESSON_ROLES
from plots.results import (aa_comparison, case_key, conditions, cuda_version, is_control, is_timed, kernel_label, roles,
                           toolchain_pairs, version_pairs)
from plots.table import Table

EXPERIMENT = "lesson"  # the lesson's rows; `./dev audit` (plots/audit.py) audits every row
HEADLINE = ("baseline", "uniform")  # the role and input where bins placement once passed for a version effect


def matched_rows(run, base_tc, new_tc, experiment=EXPERIMENT):
    """[(base row, new row)] of timed rows measured by both toolchains."""
    timed = [r for r in run.rows if r["experiment"] == experiment and is_timed(r)]
    news = {case_key(r): r for r in timed if r["toolchain"] == new_tc}
    return [(b, news[case_key(b)]) for b in timed if b["toolchain"] == base_tc and case_key(b) in news]


@dataclass(frozen=True)
class VersionComparison:
    base: dict
    new: dict
    ab: stats.Comparison
    aa: object          # stats.Comparison of the A/A pair of the same case, or None

    @property
    def verdict(self):
        return stats.guarded_verdict(self.ab, [self.aa])


def comparisons(run, base_tc, new_tc, band=stats.DEFAULT_BAND):
    """[VersionComparison] for every matched row."""
    return [VersionComparison(b, n, stats.compare_samples(b["samples_ms"], n["samples_ms"], band),
                              aa_comparison(run, b, band))
            for b, n in matched_rows(run, base_tc, new_tc)]


def headline(found):
    """HEADLINE's comparison among `found` ([VersionComparison]), or None."""
    role, input = HEADLINE
    return next((c for c in found if role in roles(c.base) and c.base["input"] == input), None)


def aa_label(run):
    """'nvcc 13.0.88 (A/A control) over nvcc 13.0.88', or None without a control entry."""
    control = next((r for r in run.rows if is_control(r)), None)
    return f"{control['toolchain']} over {control['control_of']}" if control else None


def _aa_cells(aa):
    return [fmt.ratio(aa.ratio, 3), fmt.interval(aa.ci_low, aa.ci_high)] if aa else [fmt.MISSING, fmt.MISSING]


def short_rule_note(band):
    """rule_note in a sentence, for the appendix."""
    return (f"A verdict is slower or faster where the whole A/B interval lies beyond {band:.2f}x, same where it lies "
            "within, else ambiguous, and withheld where the A/A pair is not the same; the versions report gives the "
            "rule in full, every kernel and the medians.")


def rule_note(band):
    return (f"verdict: slower or faster when the whole A/B interval lies beyond {band:.2f}x either way, same when "
            f"it lies within, ambiguous otherwise (plots/stats.py verdict; fewer than {stats.MIN_SAMPLES} samples a "
            "side is ambiguous); given only where the A/A pair of the same kernel and input is same by that rule, "
            f"else '{stats.WITHHELD_AA}' ('{stats.WITHHELD_NO_AA}' where the run repeated no toolchain on it): a "
            "difference between a toolchain and its own repeat is one no toolchain made.")


@dataclass(frozen=True)
class PairModel:
    """One run's comparison of two CUDA toolchains, each row with its codegen difference."""
    run: object
    base_tc: str
    new_tc: str
    comparisons: list   # [VersionComparison]
    codegen: list       # the codegen difference of each comparison's two builds, in words
    audit: object       # codegen.Audit the differences come from: the run's own where no audit file is recorded
    arch: str           # the GPU's compute capability as digits ('90'), '' where not recorded
    band: float = stats.DEFAULT_BAND


def pair_model(run, base_tc, new_tc, audit, band=stats.DEFAULT_BAND):
    audit = audit or codegen.from_run(run)  # no audit file: what the executors recorded, if anything
    cc = environment.compute_capability(run, new_tc)
    arch = f"{cc[0]}{cc[1]}" if cc else ""
    found = comparisons(run, base_tc, new_tc, band)
    build = lambda row, tc: codegen.find(audit, row["impl"], tc, arch, row["policy"]["counter_bits"])  # noqa: E731
    diffs = [codegen.difference(build(c.base, base_tc), build(c.new, new_tc)) if audit else codegen.NO_AUDIT
             for c in found]
    return PairModel(run, base_tc, new_tc, found, diffs, audit, arch, band)


def pair_models(runs, audit):
    """A PairModel per run and pair of CUDA versions in it, in order."""
    return [pair_model(run, a, b, audit) for run in runs for a, b in version_pairs(run)]


def comparison_table(m):
    base_tc, new_tc, audit, arch = m.base_tc, m.new_tc, m.audit, m.arch
    rows = []
    for c, diff in zip(m.comparisons, m.codegen):
        b, ab = c.base, c.ab
        rows.append([kernel_label(b), b["input"], fmt.ms(ab.base_median), fmt.ms(ab.new_median),
                     fmt.ratio(ab.ratio, 3), fmt.interval(ab.ci_low, ab.ci_high), fmt.p_value(ab.p_value)]
                    + _aa_cells(c.aa) + [c.verdict, diff])
    notes = [f"ratio (A/B): {new_tc} median over {base_tc} median (above 1: {new_tc} is slower); "
             f"CI: {stats.CONFIDENCE:.0%} percentile bootstrap ({stats.RESAMPLES:,} resamples, seed {stats.SEED}); "
             "p: two-sided Mann-Whitney U.",
             f"A/A: {aa_label(m.run) or 'none: the run repeated no toolchain'}, the same kernel and input in the "
             "same run, ratio of medians with its interval.",
             rule_note(m.band),
             f"{conditions(m.run.rows)}.",
             f"codegen: {audit.describe()}" + (f", arch sm_{arch}" if audit and arch else "") + "."]
    return Table(f"{base_tc} vs {new_tc}: {m.run.name}, lesson rows, median ms",
                 ["kernel", "input", f"{base_tc} ms", f"{new_tc} ms", "A/B", "95% CI", "p", "A/A", "A/A 95% CI",
                  "verdict", "codegen"], rows, notes, align="llrrrrrrrll")


@dataclass(frozen=True)
class PublishedPair:
    """One figure the lesson published under two CUDA versions."""
    metric: str         # the lesson's name for the kernel: lesson_t4.csv's metric without _ms
    input: str          # ours, or '-' for the lesson's input at large
    old: object         # published.LessonSource
    new: object
    old_ms: float
    new_ms: float

    @property
    def role(self):
        """The role our implementation of the lesson's kernel plays, or None for a figure of no kernel."""
        return LESSON_ROLES.get(self.metric)

    @property
    def ratio(self):
        return self.new_ms / self.old_ms


def published_pairs(published):
    """Each kernel time the published sources give under two CUDA versions, older first."""
    sources = sorted(published.lesson, key=lambda s: s.cuda_version)
    return [PublishedPair(metric.removesuffix("_ms"), input, a, b, a.get(metric, input), new)
            for a, b in zip(sources, sources[1:]) for (input, metric), new in sorted(b.figures.items())
            if metric.endswith("_ms") and a.get(metric, input) is not None]


def published_table(pairs, published):
    """The published pairs (published_pairs) as a table."""
    rows = [[p.metric, "the lesson's input" if p.input == "-" else p.input, f"CUDA {p.old.cuda}", fmt.ms(p.old_ms),
             f"CUDA {p.new.cuda}", fmt.ms(p.new_ms), fmt.ratio(p.ratio, 3)] for p in pairs]
    gpus = ", ".join(sorted({s.gpu for s in published.lesson}))
    runs = min(published.lesson, key=lambda s: s.cuda_version).get("timed_runs")
    return Table(f"Published ({gpus}): the same kernels under two CUDA versions",
                 ["kernel", "input", "old", "old ms", "new", "new ms", "ratio"], rows,
                 [f"From data/published/lesson_t4.csv; the lesson publishes means of {fmt.count(runs)} runs and no "
                  "spread, so no interval or verdict can be given."], align="llrrrrr")


def codegen_tables(audit):
    """Per pair of toolchains in the audit, per arch and kernel: what changed."""
    if not audit:
        return []
    tables = []
    for base_tc, new_tc in toolchain_pairs(list(dict.fromkeys(r.toolchain for r in audit.records))):
        rows = []
        for rec in audit.records:
            if rec.toolchain != base_tc:
                continue
            new = next((r for r in audit.records if r.toolchain == new_tc and r.kernel == rec.kernel
                        and r.arch == rec.arch), None)
            rows.append([rec.kernel, f"sm_{rec.arch}" if rec.arch else "-", codegen.difference(rec, new)])
        tables.append(Table(f"Codegen audit: {base_tc} vs {new_tc}", ["kernel", "arch", "difference"], rows,
                            [audit.describe() + "."], align="lll"))
    return tables


def version_tables(pairs, published_pairs, published, audit, not_yet):
    """Each PairModel's table, and the published pairs'; `not_yet` says why there is no PairModel."""
    tables = [comparison_table(m) for m in pairs]
    if not tables:
        tables.append(Table("CUDA versions compared in one controlled run", ["kernel", "input", "verdict"], [],
                            [not_yet, f"codegen: {audit.describe()}."]))
    return tables + [published_table(published_pairs, published)]


def uniform_rows(pair):
    return [c for c in pair.comparisons if c.base["input"] == "uniform"]


def major_minor(toolchain):
    major, minor = cuda_version(toolchain)
    return f"{major}.{minor}"


def _cell(c):
    return f"{fmt.ratio(c.ratio, 3)} ({fmt.interval(c.ci_low, c.ci_high)})" if c else fmt.MISSING


def gpu_toolchains(run):
    return [tc for tc in run.toolchains(controls=False) if tc != "cpu"]


def repeat_words(run, first):
    """How a later version run differs from the first: the order of its toolchains, or nothing."""
    return "order reversed" if gpu_toolchains(run) != gpu_toolchains(first) else "repeat"


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
    notes = [f"Uniform bytes, medians; A/B: {new_tc} over {base_tc}; A/A: {aa_label(main)}, the same kernel "
             "and input in the same run.", rule_note(stats.DEFAULT_BAND)]
    notes += [f"{repeat_words(r, main).capitalize()}: `{r.path}`, toolchains in the order "
              f"{', '.join(gpu_toolchains(r))}; A/A: {aa_label(r) or 'none'}." for r in (p.run for p in rest)]
    return Table(f"CUDA {major_minor(new_tc)} against {major_minor(base_tc)}: one kernel source, two NVRTC "
                 "releases", columns, rows, notes, align="lrrrrl" + "rl" * len(repeats))


def versions_gpus_table(compared):
    """version_table of several GPUs in one: each GPU's A/B, A/A and its runs' verdicts beside the others', without
    the medians (the versions report has them), for the lesson's kernels and every other kernel with a verdict other
    than same on some GPU: the exceptions."""
    cells, labels, shown = {}, {}, set()
    for g in compared:
        first, rest = g.version_runs[0], g.version_runs[1:]
        repeats = [{case_key(c.base): c for c in uniform_rows(pair)} for pair in rest]
        for c in uniform_rows(first):
            key = case_key(c.base)
            labels.setdefault(key, kernel_label(c.base))
            verdicts = [c.verdict] + [r[key].verdict if key in r else fmt.MISSING for r in repeats]
            if set(LESSON_ROLES.values()) & set(roles(c.base)) or set(verdicts) != {stats.SAME}:
                shown.add(key)
            cells.setdefault(key, {})[g.label] = [_cell(c.ab), fmt.ratio(c.aa.ratio, 3) if c.aa else fmt.MISSING,
                                                  ", ".join(verdicts)]
    rows = [[labels[key]] + [cell for g in compared for cell in found.get(g.label, [fmt.MISSING] * 3)]
            for key, found in cells.items() if key in shown]
    left = len(cells) - len(shown)
    columns = ["kernel"] + [f"{g.label}: {what}" for g in compared for what in ("A/B (95% CI)", "A/A", "verdicts")]
    first = compared[0].version_runs[0]
    notes = [f"Uniform bytes, medians; A/B: {first.new_tc} over {first.base_tc}; A/A: a toolchain over its repeat in "
             "the same run; verdicts: each run's, the second with the toolchains in reverse order. "
             + short_rule_note(stats.DEFAULT_BAND) + f" Shown: the lesson's kernels and any other not the same on some "
             f"GPU ({fmt.plural(left, 'other')} left out)."]
    return Table(f"CUDA {major_minor(first.new_tc)} against {major_minor(first.base_tc)}: one kernel source, two NVRTC "
                 "releases, each GPU", columns, rows, notes, align="l" + "rrl" * len(compared))


def _counts(pairs):
    """'of 160 rows in 4 runs, 160 are the same within 1.05x, 0 slower and 0 faster', with the rows not the same
    named."""
    found = [c for pair in pairs for c in pair.comparisons]
    n = {v: sum(c.verdict == v for c in found) for v in (stats.SAME, stats.SLOWER, stats.FASTER)}
    text = (f"of {len(found)} rows in {fmt.plural(len(pairs), 'run')}, {n[stats.SAME]} are the same within "
            f"{stats.DEFAULT_BAND:.2f}x, {n[stats.SLOWER]} slower and {n[stats.FASTER]} faster")
    others = [c for c in found if c.verdict != stats.SAME]
    if others:
        text += " (" + "; ".join(f"{kernel_label(c.base)} on {c.base['input']}: {c.verdict}" for c in others) + ")"
    return text


def versions_prose(m, gpus):
    """The lesson's published pairs, then what the version runs of the GPUs `gpus` found."""
    t4 = m.t4
    text = (f"The lesson timed its {t4.gpu} under two CUDA versions: " + "; ".join(
        f"`{p.metric}` {fmt.ratio(p.ratio, 3)} ({fmt.ms(p.old_ms)} ms under CUDA {p.old.cuda}, {fmt.ms(p.new_ms)} "
        f"under {p.new.cuda})" for p in m.published_pairs)
        + f", means of {fmt.count(t4.get('timed_runs'))} runs with no spread: noise cannot be told from change.")
    if not gpus:
        return text
    first = gpus[0].version_runs[0]
    on = " and ".join(g.label for g in gpus)
    return text + (f" Ours compiles one kernel source with {first.base_tc} and {first.new_tc}, samples them in "
                   f"rotation on one set of buffers with an A/A control, and gives a verdict only where the A/A pair "
                   f"is the same. On {on}, {_counts([p for g in gpus for p in g.version_runs])}.")


def versions_section(m):
    compared = [g for g in m.own if g.version_runs]
    first = compared[0].version_runs[0] if compared else None
    heading = f"CUDA {major_minor(first.base_tc)} against CUDA {major_minor(first.new_tc)}" if first else \
        "CUDA versions compared"
    blocks = [Heading(heading)]
    if not compared:
        return blocks + [Para(versions_prose(m, []) + f" Ours: {m.missing('versions')}")]
    several = len(m.version_figure) > 1
    absent = "".join(f" On {g.label}: {g.missing('versions')}" for g in m.own if not g.version_runs)
    table = versions_gpus_table(compared) if len(compared) > 1 else version_table(compared[0].version_runs)
    ours = "; ".join(f"{rows.gpu}, {rows.ours}" if several else rows.ours for rows in m.version_figure)
    runs = pages.runs_words(g.gpu.sel.version.path for g in m.gpus if g.version_rows in m.version_figure)
    return blocks + [Para(versions_prose(m, compared) + absent), TableBlock(table, "versions", wide=True),
                     FigureBlock("versions", 0, f"Each kernel's median time under the newer CUDA over the older, "
                                                f"uniform bytes, with its 95% bootstrap interval ({ours}), its A/A "
                                                "control (hollow squares) and the lesson's T4 ratios (hollow "
                                                "diamonds); grey: the 'same' band"
                                                + ("; a colour per GPU." if several else "."),
                                 f"{runs}; `data/published/lesson_t4.csv`")]


def _verdict_counts(found):
    verdicts = (stats.SLOWER, stats.FASTER, stats.SAME, stats.AMBIGUOUS, stats.WITHHELD_AA, stats.WITHHELD_NO_AA)
    return {v: sum(c.verdict == v for c in found) for v in verdicts}


def pair_prose(pair):
    run, base_tc, new_tc, found = pair.run, pair.base_tc, pair.new_tc, pair.comparisons
    n = _verdict_counts(found)
    text = (f"{new_tc} against {base_tc} (`{run.path}`; A/A: {aa_label(run) or 'none'}): of {len(found)} "
            f"lesson rows, {n[stats.SLOWER]} are slower, {n[stats.FASTER]} faster, {n[stats.SAME]} the same within "
            f"{stats.DEFAULT_BAND:.2f}x and {n[stats.AMBIGUOUS]} ambiguous; the verdict is withheld on "
            f"{n[stats.WITHHELD_AA]} where the A/A pair is not the same and on {n[stats.WITHHELD_NO_AA]} where "
            "there is none.")
    c = headline(found)
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
    return pages.page("CUDA versions compared, in full", intro, prose or [Para(m.missing("versions"))],
                 pages.tables(version_tables(pairs, m.published_pairs, m.study.published, m.study.audit,
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
    tables = [t4_table(m.t4_steps)] + codegen_tables(m.study.audit)
    return pages.page("What each toolchain made of each kernel",
                 [Para(f"The codegen audit (`tools/codegen_audit.py`, no GPU needed): {m.study.audit.describe()}. Per "
                       "pair of toolchains, per arch and kernel, the metrics that differ (registers, shared "
                       "memory, spills, SASS instruction and opcode counts of the whole kernel and of its hot "
                       "loop), or that the code is identical.")], pages.tables(tables))


def _figures(m):
    from plots import figures   # matplotlib, loaded only where a figure is drawn
    return {"versions": (figures.versions_figure, m.version_figure)}


PART = Part("versions", "every pair of toolchains, on every input", versions_section,
            versions_report, figures=_figures)
CODEGEN = Part("codegen", "what each toolchain made of each kernel", report=codegen_report)
