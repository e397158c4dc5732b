"""CUDA version against CUDA version, in controlled runs: per kernel
and input, each toolchain's median, the A/B ratio with its bootstrap interval,
the A/A ratio (the run's control entry over the toolchain it repeats) with
its interval, a verdict only where that A/A pair is the same, and the codegen
difference beside it; the published T4 figures beside ours."""
from dataclasses import dataclass

from plots import codegen, environment, stats
from plots import table as fmt
from plots.published import LESSON_ROLES
from plots.results import (aa_comparison, case_key, conditions, is_control, is_timed, kernel_label, roles,
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
