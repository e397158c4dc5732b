"""Models: every report's model, computed once from a Study (plots/selection.py).

The pipeline is select -> models -> renderers: plots/selection.py decides which runs feed which report,
build() here computes from them everything the reports show (the lesson views, the placement series, the version
comparisons, the release history, the sweep curves, the performance views, the size sweep, the claims audit, the
figures' data), and the renderers (plots/appendix.py, plots/reports.py, the tables of each model module,
plots/figures.py) take these models and compute nothing of their own. Kernels are found by role (plots/results.py).
"""
from dataclasses import dataclass

from plots import claims, codegen, history, hotcold, lesson, peers, perf, placement, sizes, stats, sweep, versions
from plots import table as fmt
from plots.environment import gpu_name
from plots.results import cuda_version, implementation, kernel_label, primary_gpu_toolchain, roles

BASELINE, PRIVATIZED = lesson.LESSON_PAIR["cuda"]
LESSON_INPUTS = ("uniform", "lesson_english", "one_byte")   # the three the lesson ran
PLACEMENT_ROLES = {BASELINE, PRIVATIZED, "subject", "peer"}   # Figure 2's kernels
SWEEP_ROLES = (BASELINE, PRIVATIZED, "subject", "peer")       # the sweep's kernels of this appendix's GPU
T4_ARCH = "sm_75"       # the lesson's GPU: the codegen report's release question


# ---- the figures' models ----

@dataclass(frozen=True)
class LessonBars:
    inputs: list        # x groups
    impls: list         # (implementation, label in the legend): the lesson's pair
    sources: list       # (label, kind, {impl: {input: ms}}): measured GPUs (kind 0, 1) and the published one


@dataclass(frozen=True)
class PlacementLines:
    panels: list        # (title, [(implementation label, input, {offset: time over the series' best})])
    toolchain: str


@dataclass(frozen=True)
class VersionRows:
    rows: list          # (kernel label, Comparison A/B, Comparison A/A or None, published ratio or None)
    versions: tuple     # ('12.6', '13.0'): the CUDA versions compared
    ours: str           # 'NVRTC 13.0.88 over 12.6.85'
    published: str      # 'Tesla T4, CUDA 13.0 over 12.6.85 (published)'
    band: float = stats.DEFAULT_BAND


@dataclass(frozen=True)
class SweepSeries:
    impl: str
    whose: str          # a GPU or a published column
    kind: object        # 0: this appendix's GPU, 1: the study's beside it, 'published'
    values: dict        # {K: Mpix/s}
    roles: tuple = ()


@dataclass(frozen=True)
class SweepLines:
    distinct_values: list   # as Table 16-4 orders them
    series: list            # [SweepSeries]

    @property
    def measured(self):
        return [s for s in self.series if s.kind != "published"]

    @property
    def published(self):
        return [s for s in self.series if s.kind == "published"]


@dataclass(frozen=True)
class PerfBars:
    inputs: list
    impls: list             # implementations, each {input: percent of the read floor}
    pcts: dict
    targets: list           # (percent, label): the study's targets
    ceilings: list          # (percent, label): the shared-memory ceilings
    floor: str
    size: str               # '1 GiB'


# ---- the appendix's GPUs ----

@dataclass(frozen=True)
class Gpu:
    name: str               # 'NVIDIA H200', with ', yours' or ", the study's" in a user's appendix
    view: object            # lesson.LessonView of the lesson run's first GPU toolchain
    kind: int               # 0: this appendix's runs; 1: the study's, beside them

    @property
    def label(self):
        return f"{self.name} ({self.view.toolchain})"


def _gpu(model, kind, whose):
    """A lesson run's GPU: the view of its LessonModel of its first GPU toolchain at its first lesson row's size."""
    run = model.run
    toolchain = primary_gpu_toolchain(run)
    size = next(r["size"] for r in run.rows if r["toolchain"] == toolchain and r["experiment"] == "lesson")
    view = next(v for v in model.views if (v.toolchain, v.size) == (toolchain, size))
    return Gpu(f"{gpu_name(run, toolchain)}{whose}", view, kind)


def gpus(study, lessons):
    """This appendix's GPU, then the study's beside it (a user's appendix), from each selection's LessonModel."""
    whose = (", yours", ", the study's") if study.beside else ("", "")
    return [_gpu(m, kind, whose[kind]) for kind, m in enumerate(lessons) if m]


def lesson_bars(gpu_list, t4):
    names = (gpu_list[0].view.base, gpu_list[0].view.private)

    def times(kernel_ms, kernels):
        return {name: {i: kernel_ms(kernel, i) for i in LESSON_INPUTS} for name, kernel in zip(names, kernels)}
    sources = [(g.name, g.kind, times(g.view.ms, (g.view.base, g.view.private))) for g in gpu_list]
    sources.append((f"{t4.gpu}, published", "published", times(t4.kernel_ms, (BASELINE, PRIVATIZED))))
    return LessonBars(list(LESSON_INPUTS), [(name, name) for name in names], sources)


# ---- where the bins lie ----

def _shown(series):
    """A series Figure 2 shows: global atomics on every input, the kernels that merge on uniform bytes."""
    return bool(PLACEMENT_ROLES & set(series.roles)) and (BASELINE in series.roles or series.input == "uniform")


def placement_lines(m):
    """Each kernel's time over its fastest offset under the run's first toolchain: global atomics on every input,
    and the kernels that add into the bins only to merge, on uniform bytes."""
    toolchain = primary_gpu_toolchain(m.run)
    shown = [s for s in m.series if s.toolchain == toolchain and _shown(s)]
    ratios = lambda s: {o: t / s.medians()[s.best] for o, t in s.medians().items()}  # noqa: E731
    return PlacementLines([
        ("Global atomics", [(s.kernel, s.input, ratios(s)) for s in shown if BASELINE in s.roles]),
        ("Per-block copies merged into the bins", [(s.kernel, s.input, ratios(s)) for s in shown
                                                    if BASELINE not in s.roles])], toolchain)


def toolchains_gap(m):
    """How far, at most, another toolchain's (or the A/A control's) median lies from the first toolchain's at
    the same kernel, input and offset, over the series Figure 2 shows, as a fraction; None with one toolchain."""
    first = primary_gpu_toolchain(m.run)
    by_case = {(s.kernel, s.input, s.toolchain): s.medians() for s in m.series if _shown(s)}
    gaps = [max(t, by_case[(k, i, first)][o]) / min(t, by_case[(k, i, first)][o]) - 1
            for (k, i, tc), medians in by_case.items() if tc != first and (k, i, first) in by_case
            for o, t in medians.items() if o in by_case[(k, i, first)]]
    return max(gaps) if gaps else None


# ---- CUDA versions ----

def version_figure(pair, published_pairs):
    """The figure's rows: the uniform rows of one PairModel, the lesson's published ratios beside them."""
    published = {p.role: p.ratio for p in published_pairs if p.input in ("-", "uniform") and p.role}
    rows = [(kernel_label(c.base), c.ab, c.aa, next((published[r] for r in roles(c.base) if r in published), None))
            for c in uniform_rows(pair)]
    first = published_pairs[0] if published_pairs else None
    published_label = f"{first.old.gpu}, CUDA {first.new.cuda} over {first.old.cuda} (published, no interval)" \
        if first else ""
    return VersionRows(rows, (major_minor(pair.base_tc), major_minor(pair.new_tc)),
                       f"ours: {pair.new_tc} over {pair.base_tc}", published_label)


def uniform_rows(pair):
    return [c for c in pair.comparisons if c.base["input"] == "uniform"]


def major_minor(toolchain):
    major, minor = cuda_version(toolchain)
    return f"{major}.{minor}"


# ---- the contention sweep ----

def sweep_lines(study, published, sweeps):
    """Table 16-4's columns and, per measured GPU, its per-block histogram (and, for this appendix's GPU, global
    atomics, the subject and the peer beside it), from the sweep runs' models `sweeps` ({run path: SweepModel});
    None where no GPU was measured."""
    textbook = (sweep.LIKE_FOR_LIKE,)
    series = [SweepSeries(implementation("cuda", sweep.LIKE_FOR_LIKE), f"{g} (published)", "published", v, textbook)
              for g, v in published.table_16_4.items()]
    for kind, sel in enumerate(study.selections):
        run = sel.sweep
        if run is None:
            continue
        tc = primary_gpu_toolchain(run)
        whose = (", yours" if kind == 0 else ", the study's") if study.beside else ""
        ours = [c for c in sweeps[run.path].curves.values() if c.toolchain == tc and not c.variant]
        series += [SweepSeries(c.impl, f"{gpu_name(run, tc)}{whose}", kind, c.values, c.roles)
                   for role in (SWEEP_ROLES if kind == 0 else textbook) for c in ours if role in c.roles]
    found = SweepLines(published.distinct_values, series)
    return found if found.measured else None


# ---- performance ----

def perf_bars(view):
    """The perf run's percent of the read floor per implementation and input, with the targets and ceilings."""
    pcts = {impl: {i: view.pct(impl, i) for i in view.inputs} for impl in view.impls}
    targets = [(need, f"target {need:g}% ({sum(perf.required_pct(i) == need for i in view.inputs)} inputs)")
               for need in (perf.HIGH_PCT, perf.LOW_PCT)]
    floor = view.floor_median()
    levels = {}  # patterns whose ceilings agree to 0.1% of the floor share one line
    for rate in view.shared_rates():
        levels.setdefault(round(100 * rate["ceiling_gbps"] / floor, 1), []).append(rate.get("pattern", "?"))
    ceilings = [(level, f"{' = '.join(p)} ceiling: {level:.1f}%") for level, p in levels.items()]
    return PerfBars(view.inputs, view.impls, pcts, targets, ceilings, view.floor, fmt.size_words(view.size))


def lesson_size(t4):
    """The lesson's input size in bytes, as its published table records it, or None."""
    size = t4.get("input_bytes")
    return int(size) if size else None


# ---- the codegen audit ----

def t4_steps(audit, ptx):
    """[(kernel, releases audited, [(release, what changed)])] of the lesson's kernels for the T4's arch."""
    found = [(impl, *codegen.release_steps(audit, ptx, impl, T4_ARCH)) for impl in codegen.lesson_kernels()]
    return [(impl, releases, steps) for impl, releases, steps in found if releases]


# ---- the whole ----

@dataclass(frozen=True)
class Models:
    study: object           # selection.Study: which runs, the words for what is missing, the links
    t4: object              # published.LessonSource: the lesson's own table
    gpus: list              # [Gpu]: this appendix's GPU, then the study's beside it
    lesson_bars: object     # LessonBars, or None without a GPU
    lesson_range: object    # the placement run's series of the first GPU's baseline on uniform bytes, or None
    lesson: object          # lesson.LessonModel of the lesson run, or None
    cpu_lessons: list       # [lesson.LessonModel] of each other CPU run
    placement: object       # placement.PlacementModel, or None
    placement_lines: object     # PlacementLines, or None
    placement_gap: object       # toolchains_gap, or None
    hotcold: object         # hotcold.HotCold, or None
    published_pairs: list   # [versions.PublishedPair]
    versions: list          # [versions.PairModel]: every version run's every pair
    version_runs: list      # [versions.PairModel]: each version run's first pair, in order
    version_figure: object  # VersionRows of the version run the figure shows, or None
    history: object         # history.History, or None
    sweep: object           # sweep.SweepModel of the sweep run, or None
    cpu_sweeps: list        # [sweep.SweepModel] of the CPU runs
    sweep_lines: object     # SweepLines, or None where no GPU was measured
    perf: object            # perf.PerfView, or None
    perf_bars: object       # PerfBars, or None
    small: object           # perf.Small: the subject at the lesson's size, or None
    sizes: object           # sizes.SizesModel of the sizes run (also the size sweep's figure), or None
    peers: list             # [peers.PeersGpu]: each peers run against the perf and sizes runs of its GPU
    cpus: list              # [perf.CpuView] of the CPU runs with the CPU's subject
    cpu_series: list        # [perf.CpuSeries]: each machine with two or more of those and the series runs
    benches: list           # [count_bench.Bench]: the count benchmark's files, CPU ones first
    claims: object          # claims.Audit
    t4_steps: list          # t4_steps

    def missing(self, role):
        return self.study.missing(role)


def build(study):
    """Every model of every report, from a Study."""
    sel, published = study.sel, study.published
    t4 = lesson.baseline_source(published)
    placed = placement.model(sel.placement) if sel.placement else None
    lessons = [lesson.model(s.lesson, published, placed if s is sel else None) if s.lesson else None
               for s in study.selections]    # this selection's lesson run, then the study's beside it
    gpu_list = gpus(study, lessons)
    swept = {run.path: run for run in [s.sweep for s in study.selections if s.sweep] + sel.cpu_runs}
    sweeps = {path: sweep.model(run) for path, run in swept.items()}   # a sweep run is often a CPU run too
    pairs = versions.published_pairs(published)
    version_pairs = versions.pair_models(sel.versions, study.audit)
    firsts = [next(m for m in version_pairs if m.run is run) for run in sel.versions]
    shown = next((m for m in firsts if m.run.path == sel.version.path), None)
    view = perf.PerfView(sel.perf) if sel.perf else None
    cpus = [perf.CpuView(run) for run in sel.subject_cpu_runs]
    series = cpus + [perf.CpuView(run) for run in sel.series_runs]
    first = gpu_list[0].view if gpu_list else None
    return Models(
        study=study, t4=t4, gpus=gpu_list, lesson_bars=lesson_bars(gpu_list, t4) if gpu_list else None,
        lesson_range=placed.find(first.base, "uniform", first.toolchain) if placed and first else None,
        lesson=lessons[0],
        cpu_lessons=[lesson.model(run, published) for run in sel.other_cpu_runs],
        placement=placed, placement_lines=placement_lines(placed) if placed else None,
        placement_gap=toolchains_gap(placed) if placed else None,
        hotcold=hotcold.model(sel.hot, sel.cold) if sel.hot and sel.cold else None,
        published_pairs=pairs, versions=version_pairs, version_runs=firsts,
        version_figure=version_figure(shown, pairs) if shown else None,
        history=history.model(sel.history, study.audit, study.ptx) if sel.history else None,
        sweep=sweeps[sel.sweep.path] if sel.sweep else None, cpu_sweeps=[sweeps[run.path] for run in sel.cpu_runs],
        sweep_lines=sweep_lines(study, published, sweeps),
        perf=view, perf_bars=perf_bars(view) if view else None, small=perf.small_model(sel.lesson),
        sizes=sizes.model(sel.sizes, lesson_size(t4)) if sel.sizes else None,
        peers=peers.model(sel.peers_runs, sel.gpu_study_runs),
        cpus=cpus, cpu_series=perf.cpu_series(series),
        benches=sorted(sel.benches, key=lambda b: b.backend),
        claims=claims.audit(study.all_runs(), published), t4_steps=t4_steps(study.audit, study.ptx))
