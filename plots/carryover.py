"""Which of the study's findings hold on each GPU, each decided from that GPU's own rows, and in words what carries
over from one GPU to another.

The findings: privatization's cut in global atomic updates (claim C1, plots/claims.py), privatization's speedup on
the lesson's three inputs, the bins' placement effect on global atomics (plots/placement.py), each step of the
release history that some GPU shows (plots/history.py), and the subject at its read floor (the study's
percent-of-floor targets, plots/perf.py). On each GPU a finding holds, does not hold or is not measured, with the
figures that decide it. A model (plots/models.py builds it): the renderers print its words and table.
"""
from dataclasses import dataclass

from plots import claims, perf, stats
from plots.document import Heading, Para, Part, TableBlock
from plots import table as fmt
from plots.history import version_text
from plots.published import LESSON_INPUTS
from plots.results import primary_gpu_toolchain
from plots.table import Table

HOLDS, FAILS, NOT_MEASURED = "holds", "does not hold", "not measured"
BINS = 256
BASELINE = "baseline"


@dataclass(frozen=True)
class Verdict:
    status: str
    figures: str


def decided(holds, figures):
    return Verdict(HOLDS if holds else FAILS, figures)


def not_measured(why):
    return Verdict(NOT_MEASURED, why)


def _and(items):
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class Finding:
    name: str           # what the study found, in words
    verdicts: dict      # {GPU label: Verdict}, in the appendix's order of GPUs

    def _where(self, labels):
        everyone = len(labels) == len(self.verdicts) > 1
        return ("both GPUs" if len(labels) == 2 else f"all {len(labels)} GPUs") if everyone else _and(labels)

    @property
    def words(self):
        """'privatization's speedup holds on both GPUs', '... holds on A, not on B; not measured on C'."""
        on = {status: [g for g, v in self.verdicts.items() if v.status == status]
              for status in (HOLDS, FAILS, NOT_MEASURED)}
        parts = [f"holds on {self._where(on[HOLDS])}"] if on[HOLDS] else []
        if on[FAILS]:
            parts.append(("not on " if parts else "does not hold on ") + self._where(on[FAILS]))
        text = ", ".join(parts)
        if on[NOT_MEASURED]:
            absent = "any GPU" if len(on[NOT_MEASURED]) == len(self.verdicts) > 1 else _and(on[NOT_MEASURED])
            text += ("; not measured on " if parts else "is not measured on ") + absent
        return f"{self.name} {text}"


# ---- the findings, each decided on one GPU (models.GpuModels) ----

def atomics_cut(gpus, by_gpu, t4):
    """C1 as the claims audit decides it for each GPU over every run and toolchain of it."""
    size, grid = t4.get("input_bytes"), t4.get("grid_blocks")
    factor = f" {size / (grid * BINS):.1f}x" if size and grid else ""
    status = {claims.HOLDS: HOLDS, claims.FAILS: FAILS, claims.MIXED: FAILS, claims.UNMEASURABLE: NOT_MEASURED}
    found = {g.label: by_gpu[("C1", g.label)] for g in gpus}
    return Finding(f"privatization's{factor} cut in global atomic updates (C1)",
                   {label: Verdict(status[f.status], f.figures) for label, f in found.items()})


def speedup(g):
    """Holds where the privatized kernel is faster than global atomics beyond the reports' band on each of the
    lesson's three inputs, by the medians of the GPU's lesson run."""
    view = g.view
    if view is None:
        return not_measured("no lesson run")
    base, private = ({i: view.ms(k, i) for i in LESSON_INPUTS} for k in (view.base, view.private))
    if None in base.values() or None in private.values():
        return not_measured(f"{view.base} or {view.private} not timed on {', '.join(LESSON_INPUTS)}")
    speedups = {i: base[i] / private[i] for i in LESSON_INPUTS}
    return decided(min(speedups.values()) > stats.DEFAULT_BAND,
                   ", ".join(f"{fmt.ratio(s)} on {i}" for i, s in speedups.items()))


def placement_effect(g):
    """Holds where global atomics on uniform bytes, under the placement run's first toolchain, take longer at their
    worst bins offset than at their best by more than the reports' band."""
    if g.placement is None:
        return not_measured("no placement run")
    tc = primary_gpu_toolchain(g.placement.run)
    s = next((s for s in g.placement.series if s.toolchain == tc and s.input == "uniform" and BASELINE in s.roles),
             None)
    if s is None:
        return not_measured("no global atomics on uniform bytes in its placement run")
    period = s.period()
    return decided(s.shows_effect(), f"{s.kernel} on uniform bytes {fmt.ratio(s.spread, 2)} slower with the bins at "
                                     f"{s.worst:,} than at {s.best:,}, " +
                   (f"repeating every {period:,} bytes" if period else "no period within the sweep"))


def release_steps(gpus):
    """[(implementation, release, 'faster' or 'slower')] of every step of any GPU's release history, in order."""
    steps = [(s.impl, st.release, "faster" if st.comparison.ratio < 1 else "slower")
             for g in gpus if g.history for s in g.history.series for st in s.steps]
    return list(dict.fromkeys(steps))


def release_step(g, impl, release, direction):
    """Holds where some series of `impl` in the GPU's release history steps the same way at the same release."""
    if g.history is None:
        return not_measured("no release-history run")
    covering = [s for s in g.history.series if s.impl == impl and release in {p.release for p in s.points[1:]}]
    if not covering:
        return not_measured(f"{impl} not timed under NVRTC {version_text(release)} and a release before it")
    stepping = [st for s in covering for st in s.steps if st.release == release
                and (st.comparison.ratio < 1) == (direction == "faster")]
    ratios = [st.comparison.ratio for st in stepping]
    figures = f"{len(stepping)} of its {len(covering)} series step {direction}" + \
        (f" ({fmt.value_range(ratios, 3, 'x')})" if ratios else "")
    return decided(bool(stepping), figures)


def at_floor(g):
    """Holds where the subject meets the study's percent-of-floor targets on every input of the GPU's perf run."""
    if g.perf is None:
        return not_measured("no perf run")
    view = g.perf
    checks = [c for c in view.checks if c.unit == "pct"]
    verdict = perf.overall(checks)
    if verdict == perf.NOT_HERE:
        return not_measured(f"{view.subject} or its floor not timed on every input")
    met = sum(c.verdict == perf.MET for c in checks)
    return decided(verdict == perf.MET, f"{fmt.value_range([c.measured for c in checks], 1, '%')} of its floor at "
                                        f"{fmt.size_words(view.size)}, {met} of {len(checks)} targets met")


def findings(gpus, by_gpu, t4):
    """[Finding] of the GPUs (models.GpuModels); by_gpu: claims.by_gpu; t4: the lesson's published table."""
    def each(name, decide):
        return Finding(name, {g.label: decide(g) for g in gpus})
    steps = [each(f"{impl} {direction} at NVRTC {version_text(release)} (a release-history step)",
                  lambda g, step=(impl, release, direction): release_step(g, *step))
             for impl, release, direction in release_steps(gpus)]
    return ([atomics_cut(gpus, by_gpu, t4), each("privatization's speedup over global atomics", speedup),
             each("the bins' placement effect on global atomics", placement_effect)] + steps
            + [each(f"{perf.SUBJECT.name('cuda')} at the read floor (the study's targets)", at_floor)])


def findings_table(found):
    """Each finding's verdict and figures, a column per GPU."""
    gpus = list(found[0].verdicts) if found else []
    rows = [[f.name] + [f"{f.verdicts[g].status}: {f.verdicts[g].figures}" for g in gpus] for f in found]
    return Table("Which of the study's findings hold on each GPU", ["finding"] + gpus, rows,
                 ["Each decided from that GPU's own runs: C1 by the claims audit; the speedup from the lesson run's "
                  f"medians (beyond {stats.DEFAULT_BAND:.2f}x on each input); the placement effect from the "
                  "placement run (worst over best offset beyond the same band); a release step from the release "
                  "history (beyond its A/A noise); the floor by the study's percent-of-floor targets."],
                 align="l" * (len(gpus) + 1))


def _shown(m):
    """Where the findings are shown: an appendix of several GPUs, or a user's beside the study's."""
    return len(m.gpus) > 1 or m.study.beside


def findings_section(m):
    """Which of the study's findings hold on each GPU, in a sentence; the figures behind each are in the claims
    report."""
    if not _shown(m):
        return []
    return [Heading("Which of the study's findings hold on each GPU", 3),
            Para(f"Each decided from each GPU's own runs: {'; '.join(f.words for f in m.findings)}. The figures "
                 "behind each: [the claims report](reports/claims.md).")]


def findings_report(m):
    if not _shown(m):
        return []
    return [Heading("Which of the study's findings hold on each GPU", 2), TableBlock(findings_table(m.findings))]


PART = Part("findings", section=findings_section, report=findings_report, joins="claims")
