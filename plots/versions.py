"""CUDA version against CUDA version, in one run: per kernel and input, each
toolchain's median, the ratio with its bootstrap interval, a verdict, and the
codegen difference beside it; the published T4 figures beside ours."""
from plots import codegen, environment, stats
from plots import table as fmt
from plots.results import policy_label
from plots.table import Table

EXPERIMENT = "lesson"  # the lesson's rows; `python3 -m plots.compare` audits every row


def pairs_in(run):
    return codegen.toolchain_pairs(run.toolchains())


def newest_version_run(runs):
    """The newest run holding two CUDA versions (runs are oldest first), or None."""
    return next((r for r in reversed(runs) if pairs_in(r)), None)


def _same_case(a, b):
    return all(a[k] == b[k] for k in ("experiment", "impl", "input", "size", "policy"))


def matched_rows(run, base_tc, new_tc, experiment=EXPERIMENT):
    """[(base row, new row)] of timed rows measured by both toolchains."""
    timed = [r for r in run.rows if r["experiment"] == experiment and r["check"]["passed"] and r["samples_ms"]]
    news = [r for r in timed if r["toolchain"] == new_tc]
    return [(b, n) for b in timed if b["toolchain"] == base_tc for n in news if _same_case(b, n)]


def comparisons(run, base_tc, new_tc, band=stats.DEFAULT_BAND):
    """[(base row, new row, stats.Comparison)] for every matched row."""
    return [(b, n, stats.compare_samples(b["samples_ms"], n["samples_ms"], band))
            for b, n in matched_rows(run, base_tc, new_tc)]


def _kernel_label(row):
    label = policy_label(row).replace(f"{row['policy']['grid']}x{row['policy']['block']}", "").strip()
    return f"{row['impl']} {label}".strip()


def comparison_table(run, base_tc, new_tc, audit, band=stats.DEFAULT_BAND):
    audit = audit or codegen.from_run(run)  # no audit file: what the executors recorded, if anything
    arch = environment.compute_capability(run, new_tc)
    arch = f"{arch[0]}{arch[1]}" if arch else ""
    rows = []
    for b, n, c in comparisons(run, base_tc, new_tc, band):
        diff = codegen.difference(codegen.find(audit, b["impl"], base_tc, arch, b["policy"]["counter_bits"]),
                                  codegen.find(audit, n["impl"], new_tc, arch, n["policy"]["counter_bits"])) \
            if audit else codegen.NO_AUDIT
        rows.append([_kernel_label(b), b["input"], fmt.ms(c.base_median), fmt.ms(c.new_median),
                     fmt.ratio(c.ratio, 3), fmt.interval(c.ci_low, c.ci_high), fmt.p_value(c.p_value), c.verdict, diff])
    notes = [f"ratio: {new_tc} median over {base_tc} median (above 1: {new_tc} is slower); "
             f"CI: {stats.CONFIDENCE:.0%} percentile bootstrap ({stats.RESAMPLES:,} resamples, seed {stats.SEED}); "
             "p: two-sided Mann-Whitney U.",
             f"verdict: slower or faster when the whole interval lies beyond {band:.2f}x either way, same when it "
             f"lies within, ambiguous otherwise (plots/stats.py verdict); fewer than {stats.MIN_SAMPLES} samples "
             "a side is ambiguous.",
             f"codegen: {audit.describe()}" + (f", arch sm_{arch}" if audit and arch else "") + "."]
    return Table(f"{base_tc} vs {new_tc}: {run.name}, lesson rows, median ms",
                 ["kernel", "input", f"{base_tc} ms", f"{new_tc} ms", "ratio", "95% CI", "p", "verdict", "codegen"],
                 rows, notes, align="llrrrrrll")


def published_table(published):
    """Each kernel the published sources timed under two CUDA versions."""
    sources = sorted(published.lesson, key=lambda s: s.cuda_version)
    rows = []
    for a, b in zip(sources, sources[1:]):
        for (input, metric), new in sorted(b.figures.items()):
            old = a.get(metric, input)
            if metric.endswith("_ms") and old is not None:
                rows.append([metric.removesuffix("_ms"), "the lesson's input" if input == "-" else input,
                             f"CUDA {a.cuda}", fmt.ms(old), f"CUDA {b.cuda}", fmt.ms(new), fmt.ratio(new / old, 3)])
    gpus = ", ".join(sorted({s.gpu for s in sources}))
    runs = sources[0].get("timed_runs")
    return Table(f"Published ({gpus}): the same kernels under two CUDA versions",
                 ["kernel", "input", "old", "old ms", "new", "new ms", "ratio"], rows,
                 [f"From data/published/lesson_t4.csv; the lesson publishes means of {fmt.count(runs)} runs and no "
                  "spread, so no interval or verdict can be given."], align="llrrrrr")


def codegen_tables(audit):
    """Per pair of toolchains in the audit, per arch and kernel: what changed."""
    if not audit:
        return []
    tables = []
    for base_tc, new_tc in codegen.toolchain_pairs(list(dict.fromkeys(r.toolchain for r in audit.records))):
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


def version_tables(run, published, audit):
    tables = []
    if run is None:
        tables.append(Table("CUDA versions compared in one run", ["kernel", "input", "verdict"], [],
                            ["not measurable here: no run in data/runs holds rows of two CUDA versions.",
                             f"codegen: {audit.describe()}."]))
    else:
        tables += [comparison_table(run, a, b, audit) for a, b in pairs_in(run)]
    return tables + [published_table(published)] + codegen_tables(audit)
