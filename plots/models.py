"""Models: every part's model, computed once from a Study (plots/selection.py).

The pipeline is select -> models -> renderers: plots/selection.py decides which runs feed which part, build() here
computes from them everything the parts show, a GPU's models for each GPU of the Study (the lesson views, the
placement series, the version comparisons, the release history, the sweep curves, the performance views, the size
sweep: GpuModels), what compares the GPUs (the claims audit per GPU, the findings that carry over or not, the release
steps that replicate, the machines' differences, the figures' data), and the model each part declares of its own
(plots/document.py Part.model). The parts' renderers (plots/parts.py lists them) take these models and compute
nothing of their own. Kernels are found by role (plots/results.py).
"""
from dataclasses import dataclass

from plots import (carryover, claims, codegen, history, hotcold, lesson, parts, perf, placement, sizes, stats,
                   sweep, versions)
from plots import table as fmt
from plots.environment import machine_differences
from plots.published import LESSON_INPUTS
from plots.results import implementation, kernel_label, primary_gpu_toolchain, roles
from plots.versions import major_minor, uniform_rows

BASELINE, PRIVATIZED = lesson.BASELINE, lesson.PRIVATIZED
PLACEMENT_ROLES = {BASELINE, PRIVATIZED, "subject", "peer"}   # Figure 2's kernels
SWEEP_ROLES = (BASELINE, PRIVATIZED, "subject", "peer")       # the sweep's kernels of this appendix's GPUs
T4_ARCH = "sm_75"       # the lesson's GPU: the codegen report's release question


# ---- the figures' models ----
# A figure's series carry their GPU's index among the GPUs it shows, or 'published'; where a figure shows several
# measured GPUs, plots/figures.py gives each GPU a colour of its own.

@dataclass(frozen=True)
class LessonBars:
    inputs: list        # x groups
    impls: list         # (implementation, label in the legend): the lesson's pair
    sources: list       # (label, GPU index or 'published', {impl: {input: ms}}): the measured GPUs, the published one


@dataclass(frozen=True)
class PlacementLines:
    panels: list        # (title, [(implementation label, input, GPU index, {offset: time over the series' best})])
    gpus: dict          # {GPU index: label} of the GPUs drawn
    toolchains: list    # the toolchain drawn, a GPU each

    @property
    def toolchain(self):
        return ", ".join(dict.fromkeys(self.toolchains))


@dataclass(frozen=True)
class VersionRows:
    rows: list          # (kernel label, Comparison A/B, Comparison A/A or None, published ratio or None)
    versions: tuple     # ('12.6', '13.0'): the CUDA versions compared
    ours: str           # 'NVRTC 13.0.88 over 12.6.85'
    published: str      # 'Tesla T4, CUDA 13.0 over 12.6.85 (published)'
    band: float = stats.DEFAULT_BAND
    gpu: str = ""       # the GPU's label
    index: int = 0      # the GPU's index among the appendix's GPUs


@dataclass(frozen=True)
class SweepSeries:
    impl: str
    whose: str          # a GPU or a published column
    gpu: object         # the GPU's index among the appendix's GPUs, or 'published'
    values: dict        # {K: Mpix/s}
    roles: tuple = ()


@dataclass(frozen=True)
class SweepLines:
    distinct_values: list   # as Table 16-4 orders them
    series: list            # [SweepSeries]

    @property
    def measured(self):
        return [s for s in self.series if s.gpu != "published"]

    @property
    def published(self):
        return [s for s in self.series if s.gpu == "published"]


@dataclass(frozen=True)
class PerfBars:
    inputs: list
    impls: list             # implementations, each {input: percent of the read floor}
    pcts: dict
    targets: list           # (percent, label): the study's targets
    ceilings: list          # (percent, label): the shared-memory ceilings
    floor: str
    size: str               # '1 GiB'
    gpu: str = ""           # the GPU's label
    index: int = 0          # the GPU's index among the appendix's GPUs


# ---- the appendix's GPUs ----

@dataclass(frozen=True)
class GpuModels:
    """Every model of one GPU's runs (selection.Gpu): what each report shows of that GPU."""
    gpu: object             # selection.Gpu
    index: int              # its place among the appendix's GPUs: its colour where a figure shows several
    lesson: object          # lesson.LessonModel of its lesson run, or None
    view: object            # lesson.LessonView of the lesson run's first GPU toolchain at its first size, or None
    lesson_range: object    # the placement run's series of the baseline on uniform bytes, or None
    placement: object       # placement.PlacementModel, or None
    placement_summary: object   # PlacementSummary, or None
    hotcold: object         # hotcold.HotCold, or None
    versions: list          # [versions.PairModel]: every version run's every pair
    version_runs: list      # [versions.PairModel]: each version run's first pair, in order
    version_rows: object    # VersionRows of the version run the figure shows, or None
    history: object         # history.History, or None
    sweep: object           # sweep.SweepModel of the sweep run, or None
    perf: object            # perf.PerfView, or None
    perf_bars: object       # PerfBars, or None
    small: object           # perf.Small: the subject at the lesson's size, or None
    sizes: object           # sizes.SizesModel of the sizes run, or None

    @property
    def label(self):
        """'NVIDIA H200', with ', yours' or ", the study's" in a user's appendix."""
        return self.gpu.label

    @property
    def lesson_label(self):
        """'NVIDIA H200 (nvcc 13.0.88)': the GPU and the toolchain of its lesson view."""
        return f"{self.label} ({self.view.toolchain})"

    def missing(self, role):
        return self.gpu.sel.missing(role)


def _view(model):
    """A lesson run's view of its first GPU toolchain at its first lesson row's size."""
    run = model.run
    toolchain = primary_gpu_toolchain(run)
    size = next(r["size"] for r in run.rows if r["toolchain"] == toolchain and r["experiment"] == "lesson")
    return next(v for v in model.views if (v.toolchain, v.size) == (toolchain, size))


def lesson_bars(gpu_list, t4):
    """The lesson figure's bars: each GPU with a lesson view, then the T4."""
    names = (gpu_list[0].view.base, gpu_list[0].view.private)

    def times(kernel_ms, kernels):
        return {name: {i: kernel_ms(kernel, i) for i in LESSON_INPUTS} for name, kernel in zip(names, kernels)}
    sources = [(g.label, n, times(g.view.ms, (g.view.base, g.view.private))) for n, g in enumerate(gpu_list)]
    sources.append((f"{t4.gpu}, published", "published", times(t4.kernel_ms, (BASELINE, PRIVATIZED))))
    return LessonBars(list(LESSON_INPUTS), [(name, name) for name in names], sources)


# ---- where the bins lie ----

def _shown(series):
    """A series Figure 2 shows: global atomics on every input, the kernels that merge on uniform bytes."""
    return bool(PLACEMENT_ROLES & set(series.roles)) and (BASELINE in series.roles or series.input == "uniform")


def placement_lines(gpus):
    """Figure 2's lines, a GPU's placement run each: each kernel's time over its fastest offset under the run's
    first toolchain, global atomics on every input and the kernels that add into the bins only to merge on uniform
    bytes; None where no GPU has a placement run."""
    placed = [g for g in gpus if g.placement]
    if not placed:
        return None
    ratios = lambda s: {o: t / s.medians()[s.best] for o, t in s.medians().items()}  # noqa: E731
    toolchains = [primary_gpu_toolchain(g.placement.run) for g in placed]
    shown = [(g.index, s) for g, tc in zip(placed, toolchains) for s in g.placement.series
             if s.toolchain == tc and _shown(s)]
    return PlacementLines([
        ("Global atomics", [(s.kernel, s.input, n, ratios(s)) for n, s in shown if BASELINE in s.roles]),
        ("Per-block copies merged into the bins", [(s.kernel, s.input, n, ratios(s)) for n, s in shown
                                                    if BASELINE not in s.roles])],
        {g.index: g.label for g in placed}, toolchains)


@dataclass(frozen=True)
class PlacementSummary:
    """What Figure 2 shows of one GPU's placement run, in figures."""
    toolchain: str      # the run's first GPU toolchain, the one Figure 2 draws
    head: object        # placement.Series of global atomics on uniform bytes under it, or None
    others: dict        # {input: [worst over best, a toolchain each]} of global atomics on lesson_english, one_byte
    merging: object     # the largest worst over best of the kernels that add into the bins only to merge, or None
    gap: object         # toolchains_gap, or None


def placement_summary(m):
    """The PlacementSummary of a PlacementModel."""
    toolchain = primary_gpu_toolchain(m.run)
    baseline = {e.input: e for e in m.effects if BASELINE in e.roles}
    head = baseline.get("uniform")
    merging = [x.spread for e in m.effects if BASELINE not in e.roles for x in e.series]
    return PlacementSummary(toolchain, next((x for x in head.series if x.toolchain == toolchain), None) if head
                            else None, {i: [x.spread for x in baseline[i].series] for i in ("lesson_english",
                                                                                             "one_byte")
                                        if i in baseline}, max(merging) if merging else None, toolchains_gap(m))


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

def version_figure(pair, published_pairs, gpu="", index=0):
    """The figure's rows of one GPU: the uniform rows of one PairModel, the lesson's published ratios beside them."""
    published = {p.role: p.ratio for p in published_pairs if p.input in ("-", "uniform") and p.role}
    rows = [(kernel_label(c.base), c.ab, c.aa, next((published[r] for r in roles(c.base) if r in published), None))
            for c in uniform_rows(pair)]
    first = published_pairs[0] if published_pairs else None
    published_label = f"{first.old.gpu}, CUDA {first.new.cuda} over {first.old.cuda} (published, no interval)" \
        if first else ""
    return VersionRows(rows, (major_minor(pair.base_tc), major_minor(pair.new_tc)),
                       f"ours: {pair.new_tc} over {pair.base_tc}", published_label, gpu=gpu, index=index)


# ---- the contention sweep ----

def sweep_lines(gpus, published, sweeps):
    """Table 16-4's columns and, per measured GPU, its per-block histogram (and, for a GPU of this appendix's runs,
    global atomics, the subject and the peer beside it), from the sweep runs' models `sweeps` ({run path:
    SweepModel}); None where no GPU was measured."""
    textbook = (sweep.LIKE_FOR_LIKE,)
    series = [SweepSeries(implementation("cuda", sweep.LIKE_FOR_LIKE), f"{g} (published)", "published", v, textbook)
              for g, v in published.table_16_4.items()]
    for g in gpus:
        run = g.gpu.sel.sweep
        if run is None:
            continue
        tc = primary_gpu_toolchain(run)
        ours = [c for c in sweeps[run.path].curves.values() if c.toolchain == tc and not c.variant]
        series += [SweepSeries(c.impl, g.label, g.index, c.values, c.roles)
                   for role in (SWEEP_ROLES if g.gpu.yours else textbook) for c in ours if role in c.roles]
    found = SweepLines(published.distinct_values, series)
    return found if found.measured else None


# ---- performance ----

def perf_bars(view, gpu="", index=0):
    """The perf run's percent of the read floor per implementation and input, with the targets and ceilings."""
    pcts = {impl: {i: view.pct(impl, i) for i in view.inputs} for impl in view.impls}
    targets = [(need, f"target {need:g}% ({sum(perf.required_pct(i) == need for i in view.inputs)} inputs)")
               for need in (perf.HIGH_PCT, perf.LOW_PCT)]
    floor = view.floor_median()
    levels = {}  # patterns whose ceilings agree to 0.1% of the floor share one line
    for rate in view.shared_rates():
        levels.setdefault(round(100 * rate["ceiling_gbps"] / floor, 1), []).append(rate.get("pattern", "?"))
    ceilings = [(level, f"{' = '.join(p)} ceiling: {level:.1f}%") for level, p in levels.items()]
    return PerfBars(view.inputs, view.impls, pcts, targets, ceilings, view.floor, fmt.size_words(view.size), gpu,
                    index)


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
    gpus: list              # [GpuModels]: each GPU of this appendix's runs, then (a user's appendix) the study's
    lesson_bars: object     # LessonBars, or None without a GPU
    cpu_lessons: list       # [lesson.LessonModel] of each CPU run that is no GPU's lesson run
    placement_lines: object     # PlacementLines, or None
    published_pairs: list   # [versions.PublishedPair]
    version_figure: list    # [VersionRows]: a GPU's each, or []
    histories: list         # [(GPU index, label, history.History)]: the release histories figure 4 shows
    perf_bars: list         # [PerfBars]: the performance figure's, a GPU's each
    sizes_lines: list       # [(GPU index, label, sizes.SizesModel)]: the size sweep's figure
    cpu_sweeps: list        # [sweep.SweepModel] of the CPU runs
    sweep_lines: object     # SweepLines, or None where no GPU was measured
    cpus: list              # [perf.CpuView] of the CPU runs with the CPU's subject
    cpu_series: list        # [perf.CpuSeries]: each machine with two or more of those and the series runs
    benches: list           # [count_bench.Bench]: the count benchmark's files, CPU ones first
    claims: object          # claims.Audit
    claims_by_gpu: dict     # claims.by_gpu: each claim decided per GPU
    findings: list          # [carryover.Finding]: which of the study's findings hold on each GPU
    steps: object           # history.Replication of the GPUs' release histories, or None with fewer than two
    machines: list          # environment.machine_differences of the GPUs' machines
    t4_steps: list          # t4_steps
    parts: dict             # {part name: model} of the parts that declare one (plots/document.py Part.model)

    def missing(self, role):
        return self.study.missing(role)

    def of(self, part):
        """The model a part declared (Part.model), computed once."""
        return self.parts[part]

    @property
    def own(self):
        """The GPUs of this appendix's runs (a user's appendix: the user's), whose reports are in full."""
        return [g for g in self.gpus if g.gpu.yours]

    @property
    def lesson_gpus(self):
        """The GPUs with a lesson view: the lesson table's."""
        return [g for g in self.gpus if g.view]


def gpu_models(gpu, index, study, sweeps, t4, pairs):
    """Every model of one GPU's runs; sweeps: {run path: SweepModel}, computed once for every run; t4: the lesson's
    published table; pairs: the published version pairs."""
    sel, published = gpu.sel, study.published
    placed = placement.model(sel.placement) if sel.placement else None
    lessons = lesson.model(sel.lesson, published, placed) if sel.lesson else None
    view = _view(lessons) if lessons else None
    version_pairs = versions.pair_models(sel.versions, study.audit)
    firsts = [next(m for m in version_pairs if m.run is run) for run in sel.versions]
    shown = next((m for m in firsts if m.run.path == sel.version.path), None)
    perf_view = perf.PerfView(sel.perf) if sel.perf else None
    return GpuModels(
        gpu=gpu, index=index, lesson=lessons, view=view,
        lesson_range=placed.find(view.base, "uniform", view.toolchain) if placed and view else None,
        placement=placed, placement_summary=placement_summary(placed) if placed else None,
        hotcold=hotcold.model(sel.hot, sel.cold) if sel.hot and sel.cold else None,
        versions=version_pairs, version_runs=firsts,
        version_rows=version_figure(shown, pairs, gpu.label, index) if shown else None,
        history=history.model(sel.history, study.audit, study.ptx) if sel.history else None,
        sweep=sweeps[sel.sweep.path] if sel.sweep else None,
        perf=perf_view, perf_bars=perf_bars(perf_view, gpu.label, index) if perf_view else None,
        small=perf.small_model(sel.lesson), sizes=sizes.model(sel.sizes, lesson_size(t4)) if sel.sizes else None)


def beside_own(gpus, field):
    """The GPUs with a `field` model, where one of this appendix's GPUs has one ([] where none has): what a table or
    figure of several GPUs shows, the study's GPUs beside a user's and never alone."""
    if not any(getattr(g, field) for g in gpus if g.gpu.yours):
        return []
    return [g for g in gpus if getattr(g, field)]


def build(study):
    """Every model of every report, from a Study."""
    sel, published = study.sel, study.published
    t4 = lesson.baseline_source(published)
    swept = {run.path: run for run in [g.sel.sweep for g in study.gpus if g.sel.sweep] + sel.cpu_runs}
    sweeps = {path: sweep.model(run) for path, run in swept.items()}   # a sweep run is often a CPU run too
    pairs = versions.published_pairs(published)
    gpu_list = [gpu_models(gpu, n, study, sweeps, t4, pairs) for n, gpu in enumerate(study.gpus)]
    viewed = [g for g in gpu_list if g.view]
    cpus = [perf.CpuView(run) for run in sel.subject_cpu_runs]
    series = cpus + [perf.CpuView(run) for run in sel.series_runs]
    audited = claims.audit(study.all_runs(), published)
    by_gpu = claims.by_gpu(audited, [(g.label, g.gpu.sel.runs) for g in gpu_list])
    return Models(
        study=study, t4=t4, gpus=gpu_list, lesson_bars=lesson_bars(viewed, t4) if viewed else None,
        cpu_lessons=[lesson.model(run, published) for run in sel.other_cpu_runs],
        placement_lines=placement_lines(beside_own(gpu_list, "placement")), published_pairs=pairs,
        version_figure=[g.version_rows for g in beside_own(gpu_list, "version_rows")],
        histories=[(g.index, g.label, g.history) for g in beside_own(gpu_list, "history")],
        perf_bars=[g.perf_bars for g in beside_own(gpu_list, "perf_bars")],
        sizes_lines=[(g.index, g.label, g.sizes) for g in beside_own(gpu_list, "sizes")],
        cpu_sweeps=[sweeps[run.path] for run in sel.cpu_runs], sweep_lines=sweep_lines(gpu_list, published, sweeps),
        cpus=cpus, cpu_series=perf.cpu_series(series), benches=sorted(sel.benches, key=lambda b: b.backend),
        claims=audited, claims_by_gpu=by_gpu, findings=carryover.findings(gpu_list, by_gpu, t4),
        steps=history.replication([(g.label, g.history) for g in beside_own(gpu_list, "history")]),
        machines=machine_differences([(g.label, g.gpu.sel.runs) for g in gpu_list]),
        t4_steps=t4_steps(study.audit, study.ptx),
        parts={part.name: part.model(study) for part in parts.PARTS if part.model})
