"""The claims audit: C1..C12 of docs/study-spec.md section 3, each decided
per environment (a GPU, toolchain and driver, or a published source) as
holds / does not hold / not measurable here, with the figures that decide.
Each of our environments is the evidence of every run and toolchain that
measured it; where they disagree the verdict is "mixed".

Every decision function's docstring is its rule; the report prints it, each
{kernel} in it named as the data name it (claim_kernels). Kernels are found by
role, or by the launch-policy field that defines them in the rows (P passes, a
copy per warp), never by a name typed here (plots/results.py). Published
numbers are never typed here: bounds that come from the published text are
computed from data/published/.
"""
import inspect
import math
from dataclasses import dataclass

from plots import environment, pages
from plots.document import Heading, Para, Part, TableBlock
from plots import table as fmt
from plots.published import GENERATION_CC, LESSON_FILE, LESSON_INPUTS, TABLE_16_4_FILE
from plots.results import Kernel, cuda_version, defined_by, find_row, find_rows, library_toolchains, median_ms
from plots.sweep import distinct_values, mpix_per_s
from plots.table import Table

HOLDS, FAILS, UNMEASURABLE = "holds", "does not hold", "not measurable here"
BINS = 256
WARP = 32
COUNTER_BYTES = 4        # the lesson's 32-bit shared counters
BARELY = 1.15            # C3: "barely changes": within 15% either way
DOUBLES = 2.0            # C4: "more than doubles"
DEGRADES = 1.10          # C5: slower by more than 10% (beyond run-to-run noise)
CONTENTION_REMAINS = 1.5  # C8: one-byte input still >= 1.5x uniform at every block size
ABOUT = 0.25             # C9: "about 4x": within 25% of P
FLAT = 1.10              # C10: flat: best/worst throughput within 10%
ORDER_OF_MAGNITUDE = 10  # C10: older GPUs degrade by more than this factor
# The kernels the claims are about (every claim is about CUDA kernels): four by role, and two that a launch-policy
# field defines in the runs' rows (claim_kernels): P passes over the input (C9), a copy of the bins per warp (C11).
ROLE_KERNELS = {role: Kernel(role) for role in ("baseline", "privatized", "reader", "floor")}
BASELINE, PRIVATIZED, READER, FLOOR = ROLE_KERNELS.values()
DEFINED_BY = {"passes": "multi-pass", "copies": "per-warp-copy"}   # {policy field: words where no row has it}


def claim_kernels(runs):
    """{key: Kernel} of every kernel a rule names ({baseline}, {passes}, ...): the defined ones as the GPU rows of
    `runs` show them."""
    rows = [r for run in runs for r in run.rows if r["backend"] == "cuda"]
    found = {field: Kernel(impl=next(iter(defined_by(rows, field)), None), words=words)
             for field, words in DEFINED_BY.items()}
    return {**ROLE_KERNELS, **found}


def name(kernel):
    return kernel.name("cuda")


@dataclass(frozen=True)
class Finding:
    status: str
    figures: str


def unmeasurable(why):
    return Finding(UNMEASURABLE, why)


def decided(holds, figures):
    return Finding(HOLDS if holds else FAILS, figures)


# ---- evidence: one environment's figures, the same questions for runs and published sources ----

class RunEvidence:
    """One toolchain of one run file."""

    def __init__(self, run, toolchain, kernels):
        self.run, self.toolchain, self.kernels = run, toolchain, kernels
        self.is_gpu = toolchain != "cpu"
        self.cuda = cuda_version(toolchain)
        self.label = f"{run.name.removesuffix('.json')} / {toolchain}"
        self.source_label = f"{run.name} ({toolchain})"

    def row(self, kernel, input="uniform", experiment="lesson", **policy):
        return find_row(self.run, kernel, experiment=experiment, toolchain=self.toolchain, input=input, **policy)

    def ms(self, kernel, input="uniform", experiment="lesson", **policy):
        policy.setdefault("passes", 1)
        row = self.row(kernel, input, experiment, **policy)
        return median_ms(row) if row else None

    def rows(self, kernel, experiment="lesson"):
        return find_rows(self.run, kernel, experiment=experiment, toolchain=self.toolchain)

    def global_atomics(self, kernel):
        row = self.row(kernel)
        return row["global_atomics"] if row else None

    def launch(self):
        row = self.row(PRIVATIZED) or self.row(BASELINE)
        return (row["size"], row["policy"]["grid"]) if row else (None, None)

    def device(self, key):
        return environment.gpu_fact(self.run, self.toolchain, key) if self.is_gpu else None

    def compute_capability(self):
        return environment.compute_capability(self.run, self.toolchain) if self.is_gpu else None

    def sweep(self, kernel):
        """{K: Mpix/s} of `kernel` on distinct_K inputs."""
        return {distinct_values(r["input"]): mpix_per_s(r) for r in self.rows(kernel, "sweep")
                if distinct_values(r["input"]) is not None}


class PublishedLessonEvidence:
    """One source of lesson_t4.csv (the lesson's CUDA 12.6 table, its CUDA 13.0 figures)."""

    DEVICE_METRICS = {"shared_per_block": "smem_per_block_default", "shared_per_sm": "smem_per_sm",
                      "shared_per_block_optin": "smem_per_block_optin"}

    def __init__(self, source, kernels):
        self.source, self.kernels = source, kernels
        self.is_gpu = True
        self.cuda = source.cuda_version
        self.label = source.label
        self.source_label = f"data/published/{LESSON_FILE} ({source.source})"

    def row(self, *args, **kwargs):
        return None

    def rows(self, kernel, experiment="lesson"):
        return []

    def ms(self, kernel, input="uniform", experiment="lesson", **policy):
        if experiment != "lesson" or policy.get("passes", 1) != 1 or len(policy) > 1:
            return None
        return self.source.kernel_ms(kernel.role, input)

    def global_atomics(self, kernel):
        return self.source.global_atomics(kernel.role)

    def launch(self):
        size, grid = self.source.get("input_bytes"), self.source.get("grid_blocks")
        return (int(size), int(grid)) if size and grid else (None, None)

    def device(self, key):
        return self.source.get(self.DEVICE_METRICS[key]) if key in self.DEVICE_METRICS else None

    def compute_capability(self):
        major, minor = self.source.compute_capability.split(".")
        return int(major), int(minor)

    def sweep(self, kernel):
        return {}


class PublishedSweepEvidence:
    """One GPU generation's column of Table 16-4 (per-block histogram only)."""

    def __init__(self, generation, values, kernels):
        self.generation, self.values, self.kernels = generation, values, kernels
        self.is_gpu = True
        self.cuda = None
        self.label = f"{generation} (published, Table 16-4)"
        self.source_label = f"data/published/{TABLE_16_4_FILE}"

    def row(self, *args, **kwargs):
        return None

    def rows(self, kernel, experiment="lesson"):
        return []

    def ms(self, *args, **kwargs):
        return None

    def global_atomics(self, kernel):
        return None

    def launch(self):
        return None, None

    def device(self, key):
        return None

    def compute_capability(self):
        return GENERATION_CC.get(self.generation)

    def sweep(self, kernel):
        return dict(self.values) if kernel == PRIVATIZED else {}   # the textbook's per-block histogram


# ---- helpers ----

def _ratio(a, b):
    return a / b if a is not None and b else None


def _needs_gpu(ev):
    return None if ev.is_gpu else unmeasurable("CPU toolchain: the claim is about CUDA kernels")


def _missing(what):
    return unmeasurable(f"no {what} in this environment")


def published_speedup_range(published, cuda):
    """(low, high) speedup the lesson publishes for CUDA `cuda` (major, minor):
    its speedup_min..speedup_max, or its per-input speedups rounded outward
    to whole numbers; for another version, the span of every source's range."""
    def span(source):
        low, high = source.get("speedup_min"), source.get("speedup_max")
        if low is not None and high is not None:
            return low, high
        speedups = [v for (_, metric), v in source.figures.items() if metric == "speedup"]
        return (math.floor(min(speedups)), math.ceil(max(speedups))) if speedups else None
    spans = [s for s in (span(src) for src in published.lesson if src.cuda_version == cuda) if s]
    spans = spans or [s for s in (span(src) for src in published.lesson) if s]
    return min(s[0] for s in spans), max(s[1] for s in spans)


def published_floor_margin(published):
    """The lesson's privatized kernel's time over its reader's on uniform (12.6), rounded up to a whole percent:
    'within N%'."""
    source = min(published.lesson, key=lambda s: s.cuda_version)
    ratio = source.kernel_ms(PRIVATIZED.role, "uniform") / source.kernel_ms(READER.role, "uniform")
    return math.ceil(round(ratio * 100, 6)) / 100


# ---- the claims: one decision function each; the docstring is the rule ----

def c1_atomic_updates(ev, published):
    """Holds if the {baseline} kernel makes one global atomic update per input byte
    and the per-block kernel exactly blocks x 256, so the factor is bytes / (blocks x 256).
    Counts are the implementations' declared ones (study/driver/registry.cpp), not profiler counts."""
    if (no := _needs_gpu(ev)):
        return no
    size, grid = ev.launch()
    glob, priv = ev.global_atomics(BASELINE), ev.global_atomics(PRIVATIZED)
    if None in (size, grid, glob, priv):
        return _missing(f"{name(BASELINE)} and {name(PRIVATIZED)} atomic counts")
    figures = (f"{name(BASELINE)} {fmt.count(glob)} for {fmt.count(size)} bytes; {name(PRIVATIZED)} "
               f"{fmt.count(priv)} = {fmt.count(grid)} blocks x {BINS}; factor {glob / priv:.1f}")
    return decided(glob == size and priv == grid * BINS, figures)


def c2_privatized_speedup(ev, published):
    """Holds if {baseline}/{privatized} on each of the lesson's inputs (uniform,
    lesson_english, one_byte) lies in the published speedup range for the
    toolchain's CUDA major.minor (the span of all published ranges for other versions)."""
    if (no := _needs_gpu(ev)):
        return no
    speedups = {i: _ratio(ev.ms(BASELINE, i), ev.ms(PRIVATIZED, i)) for i in LESSON_INPUTS}
    if any(s is None for s in speedups.values()):
        return _missing(f"{name(BASELINE)} and {name(PRIVATIZED)} times on all three lesson inputs")
    low, high = published_speedup_range(published, ev.cuda)
    figures = ", ".join(f"{i} {fmt.ratio(s)}" for i, s in speedups.items())
    figures += f" (published range {low:g}x..{high:g}x)"
    return decided(all(low <= s <= high for s in speedups.values()), figures)


def c3_english_barely_changes_global(ev, published):
    """Holds if {baseline}'s time on lesson_english over its time on uniform lies
    within 1/1.15..1.15 ("barely": less than 15% either way). Our own prose is shown beside."""
    return _over_uniform(ev, BASELINE, "lesson_english", lambda ratio: 1 / BARELY <= ratio <= BARELY, beside="prose")


def _over_uniform(ev, kernel, input, holds, beside=None):
    """A claim on the kernel's time on `input` over its time on uniform: holds(ratio); the same ratio on the
    input `beside` is shown in brackets."""
    if (no := _needs_gpu(ev)):
        return no
    on, uniform = ev.ms(kernel, input), ev.ms(kernel, "uniform")
    ratio = _ratio(on, uniform)
    if ratio is None:
        return _missing(f"{name(kernel)} times on {input} and uniform")
    other = _ratio(ev.ms(kernel, beside), uniform) if beside else None
    figures = f"{name(kernel)}: {input} {fmt.ms(on)} ms / uniform {fmt.ms(uniform)} ms = {fmt.ratio(ratio, 2)}"
    return decided(holds(ratio), figures + (f" ({beside} {fmt.ratio(other, 2)})" if other else ""))


def c4_one_byte_doubles_global(ev, published):
    """Holds if {baseline}'s time on one_byte is more than 2x its time on uniform."""
    return _over_uniform(ev, BASELINE, "one_byte", lambda ratio: ratio > DOUBLES)


def c5_privatized_degrades_on_one_byte(ev, published):
    """Holds if {privatized}'s time on one_byte is more than 1.10x its time on
    uniform (a degradation beyond run-to-run noise); does not hold if flatter."""
    return _over_uniform(ev, PRIVATIZED, "one_byte", lambda ratio: ratio > DEGRADES)


def c6_privatized_near_sum_bytes(ev, published):
    """Holds if {privatized}'s time on uniform over {reader}' time is at most the
    lesson's own margin (its CUDA 12.6 private/{reader}, rounded up to a whole percent)."""
    if (no := _needs_gpu(ev)):
        return no
    priv, floor = ev.ms(PRIVATIZED, "uniform"), ev.ms(READER, "uniform")
    if priv is None or floor is None:
        return _missing(f"{name(PRIVATIZED)} and {name(READER)} times on uniform")
    margin = published_floor_margin(published)
    ratio = priv / floor
    figures = (f"{name(PRIVATIZED)} {fmt.ms(priv)} ms / {name(READER)} {fmt.ms(floor)} ms = {fmt.ratio(ratio, 2)} "
               f"(margin {fmt.ratio(margin, 2)})")
    row = ev.row(PRIVATIZED)
    if row and row["pct_of_floor"] is not None and ev.row(FLOOR):
        figures += f"; {name(PRIVATIZED)} at {fmt.pct(row['pct_of_floor'])} of {name(FLOOR)}"
    return decided(ratio <= margin, figures)


def c7_privatized_beats_reader_on_13(ev, published):
    """For CUDA 13.x toolchains: holds if {privatized}'s median on uniform is below
    {reader}' (the reader is then no floor). Other versions: not measurable
    (the claim is about 13.0), with the same figures shown."""
    if (no := _needs_gpu(ev)):
        return no
    priv, reader = ev.ms(PRIVATIZED, "uniform"), ev.ms(READER, "uniform")
    if priv is None or reader is None:
        return _missing(f"{name(PRIVATIZED)} and {name(READER)} times on uniform")
    figures = f"{name(PRIVATIZED)} {fmt.ms(priv)} ms vs {name(READER)} {fmt.ms(reader)} ms"
    if not ev.cuda or ev.cuda[0] != 13:
        return unmeasurable(f"the claim is about CUDA 13.0; here {figures}")
    return decided(priv < reader, figures)


def c8_block_size_keeps_contention(ev, published):
    """Holds if, at every block size of the 'blocks' experiment, {baseline}'s time on
    one_byte is still at least 1.5x its time on uniform (contention remains);
    does not hold if some block size brings it below."""
    if (no := _needs_gpu(ev)):
        return no
    blocks = sorted({r["policy"]["block"] for r in ev.rows(BASELINE, "blocks")})
    ratios = {b: _ratio(ev.ms(BASELINE, "one_byte", "blocks", block=b), ev.ms(BASELINE, "uniform", "blocks", block=b))
              for b in blocks}
    ratios = {b: r for b, r in ratios.items() if r is not None}
    if not ratios:
        return _missing("'blocks' experiment rows (histostudy run -e blocks)")
    figures = "one_byte/uniform by block size: " + ", ".join(f"{b}: {fmt.ratio(r, 2)}" for b, r in ratios.items())
    return decided(min(ratios.values()) >= CONTENTION_REMAINS, figures)


def c9_partition_passes(ev, published):
    """Holds if every {passes} row reads P x N bytes and {passes} with
    P = 4 takes 3x..5x {privatized}'s time (about 4x, within 25%) on uniform and lesson_english."""
    if (no := _needs_gpu(ev)):
        return no
    p, multi = 4, ev.kernels["passes"]
    rows = ev.rows(multi)
    ratios = {i: _ratio(ev.ms(multi, i, passes=p), ev.ms(PRIVATIZED, i)) for i in ("uniform", "lesson_english")}
    if not rows or None in ratios.values():
        return _missing(f"{name(multi)} P={p} and {name(PRIVATIZED)} rows on uniform and lesson_english")
    reads_ok = all(r["bytes_read"] == r["policy"]["passes"] * r["size"] for r in rows)
    prose = _ratio(ev.ms(multi, "prose", passes=p), ev.ms(PRIVATIZED, "prose"))
    figures = ("bytes read = P x N on every row" if reads_ok else "some rows do not read P x N bytes") + \
        f"; P={p} / {name(PRIVATIZED)}: " + ", ".join(f"{i} {fmt.ratio(r, 2)}" for i, r in ratios.items()) \
        + (f" (prose {fmt.ratio(prose, 2)})" if prose else "")
    return decided(reads_ok and all(p * (1 - ABOUT) <= r <= p * (1 + ABOUT) for r in ratios.values()), figures)


def c10_flat_on_ampere(ev, published):
    """Per GPU generation: on compute capability 8.0 or later, holds if {privatized}'s
    best/worst Mpix/s over the distinct_K sweep is at most 1.10 (flat); before 8.0,
    holds if it exceeds 10 (an order of magnitude)."""
    if (no := _needs_gpu(ev)):
        return no
    series = ev.sweep(PRIVATIZED)
    cc = ev.compute_capability()
    if not series:
        return _missing(f"{name(PRIVATIZED)} sweep rows")
    if cc is None:
        return unmeasurable("the GPU's compute capability is not recorded")
    spread = max(series.values()) / min(series.values())
    worst = min(series, key=series.get)
    figures = (f"cc {cc[0]}.{cc[1]}: best/worst {fmt.ratio(spread, 2)} ({fmt.number(max(series.values()), 0)} vs "
               f"{fmt.number(series[worst], 0)} Mpix/s at {worst} distinct)")
    ampere = GENERATION_CC["Ampere"]
    return decided(spread <= FLAT if cc >= ampere else spread > ORDER_OF_MAGNITUDE, figures)


def c11_per_warp_copies(ev, published):
    """Holds if {copies} gives each warp its own copy (block / copies = 32 threads
    share a counter, against {privatized}'s whole block) and uses copies x {privatized}'s shared memory."""
    if (no := _needs_gpu(ev)):
        return no
    copies = ev.kernels["copies"]
    warp, block = ev.row(copies), ev.row(PRIVATIZED)
    if not warp or not block:
        return _missing(f"{name(copies)} and {name(PRIVATIZED)} rows")
    wp, bp = warp["policy"], block["policy"]
    sharing_warp, sharing_block = wp["block"] // wp["copies"], bp["block"] // bp["copies"]
    shared_ratio = wp["shared_bytes"] / bp["shared_bytes"] if bp["shared_bytes"] else None
    figures = (f"threads per counter {sharing_block} -> {sharing_warp}; shared {fmt.count(bp['shared_bytes'])} -> "
               f"{fmt.count(wp['shared_bytes'])} B ({fmt.ratio(shared_ratio)}); time uniform "
               f"{fmt.ms(median_ms(block))} -> {fmt.ms(median_ms(warp))} ms")
    return decided(sharing_warp == WARP and shared_ratio == wp["copies"], figures)


def c12_shared_memory_limits(ev, published):
    """Holds if a block using the whole default shared memory per block (as
    4-byte bins) leaves no room for a second such block on the SM
    (shared per SM // shared per block == 1); does not hold if more fit."""
    if (no := _needs_gpu(ev)):
        return no
    block_bytes, per_sm = ev.device("shared_per_block"), ev.device("shared_per_sm")
    if not block_bytes or not per_sm:
        return _missing("shared memory per block and per SM (GPU record)")
    block_bytes, per_sm = int(block_bytes), int(per_sm)
    fit = per_sm // block_bytes
    figures = (f"{fmt.count(block_bytes)} B per block = {fmt.count(block_bytes // COUNTER_BYTES)} bins; "
               f"{fmt.count(per_sm)} B per SM fits {fit} such block{'s' if fit != 1 else ''}")
    return decided(fit == 1, figures)


CLAIMS = [
    ("C1", "Privatization cuts global atomic updates by exactly blocks x bins.", c1_atomic_updates),
    ("C2", "The privatized kernel's speedup over global atomics lies in the range the lesson publishes for its "
           "CUDA version.", c2_privatized_speedup),
    ("C3", "English prose barely changes the global kernel's time relative to uniform bytes.",
     c3_english_barely_changes_global),
    ("C4", "The one-byte input more than doubles the global kernel's time.", c4_one_byte_doubles_global),
    ("C5", "The privatized kernel also degrades on the one-byte input.", c5_privatized_degrades_on_one_byte),
    ("C6", "The privatized uniform row is within the lesson's margin of the sumBytes floor.",
     c6_privatized_near_sum_bytes),
    ("C7", "On CUDA 13.0 the privatized histogram runs faster than the sumBytes reader.",
     c7_privatized_beats_reader_on_13),
    ("C8", "Sweeping the block size does not remove contention on the global kernel.",
     c8_block_size_keeps_contention),
    ("C9", "P partition passes read P x N bytes; 4 passes cost about 4x the private kernel on uniform and prose.",
     c9_partition_passes),
    ("C10", "On Ampere and later the per-block histogram is flat across 256..1 distinct values; older GPUs degrade "
            "by more than an order of magnitude.", c10_flat_on_ampere),
    ("C11", "One copy per warp cuts the threads sharing a counter from a block's to a warp's, at copies x the "
            "shared memory.", c11_per_warp_copies),
    ("C12", "A block using all of the default shared memory as 4-byte bins may be alone on its SM.",
     c12_shared_memory_limits),
]

# Claims a GPU time decides: only from runs under the study's controls, since without them a kernel adding into
# global bins timed where each toolchain's bins lay as much as the kernel (plots/selection.py admits no other).
TIMED = {"C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10"}
TIMED_RULE = "Decided by GPU times from runs under the study's controls only."
MIXED = "mixed"
SHORT = {HOLDS: "holds", FAILS: "NO", UNMEASURABLE: "-", MIXED: "mixed"}


@dataclass(frozen=True)
class Environment:
    """A GPU x toolchain x driver, or a published source, and its evidence: a run and toolchain each."""
    label: str
    members: tuple

    @property
    def published(self):
        return not isinstance(self.members[0], RunEvidence)


def environment_label(run, toolchain):
    """'NVIDIA H200 / nvcc 13.0.88 / driver 580.159.04'."""
    gpu = environment.gpu_record(run, toolchain).get("name", "unnamed GPU")
    driver = environment.find_value(run.environment, "driver_version") or environment.NOT_RECORDED
    return f"{gpu} / {toolchain} / driver {driver}"


def published_label(source):
    driver = f"driver {source.driver}" if source.driver else "driver not published"
    return f"{source.gpu} / CUDA {source.cuda} / {driver} (published)"


def environments(runs, published, kernels):
    """Published sources first, then ours grouped by GPU, toolchain and driver in the order the runs (oldest
    first) show them. CPU toolchains are left out (every claim is about CUDA kernels), and so are A/A control
    entries (each repeats a toolchain already audited) and libraries' own calls (tools/peers.py: no claim is
    about them)."""
    envs = [Environment(published_label(s), (PublishedLessonEvidence(s, kernels),)) for s in published.lesson]
    envs += [Environment(f"{g} (Table 16-4, published)", (PublishedSweepEvidence(g, v, kernels),))
             for g, v in published.table_16_4.items()]
    ours = {}
    for run in runs:
        libraries = library_toolchains(run)
        for tc in run.toolchains(controls=False):
            if tc != "cpu" and tc not in libraries:
                ours.setdefault(environment_label(run, tc), []).append(RunEvidence(run, tc, kernels))
    return envs + [Environment(label, tuple(members)) for label, members in ours.items()]


def combine(findings):
    """One environment's verdict from its members': the one they agree on, 'mixed' where they differ, not
    measurable where none decides."""
    decided = [f for f in findings if f.status != UNMEASURABLE]
    if not decided:
        return findings[0]
    if len({f.status for f in decided}) == 1:
        return decided[0]
    return Finding(MIXED, "; ".join(f"{f.status}: {f.figures}" for f in decided))


@dataclass(frozen=True)
class Audit:
    envs: list          # [Environment]: published sources first, then ours
    combined: dict      # {(claim id, environment label): Finding}
    each: dict          # {(claim id, member label): Finding}
    kernels: dict       # claim_kernels: what the rules call each kernel

    @property
    def ours(self):
        return [e for e in self.envs if not e.published]


def audit(runs, published):
    """Every claim decided for every environment and for each of its members."""
    kernels = claim_kernels(runs)
    envs = environments(runs, published, kernels)
    each = {(cid, ev.label): decide(ev, published) for env in envs for ev in env.members for cid, _, decide in CLAIMS}
    combined = {(cid, env.label): combine([each[(cid, ev.label)] for ev in env.members])
                for env in envs for cid, _, _ in CLAIMS}
    return Audit(envs, combined, each, kernels)


def by_gpu(a, gpus):
    """{(claim id, GPU label): Finding}: each claim decided per GPU, combined over every run and toolchain of it
    (combine); gpus: [(label, [Run])]. A GPU none of whose runs measured a claim: not measurable here."""
    members = {label: [ev for env in a.ours for ev in env.members if ev.run in runs] for label, runs in gpus}
    return {(cid, label): combine([a.each[(cid, ev.label)] for ev in found] or [unmeasurable("no run")])
            for label, found in members.items() for cid, _, _ in CLAIMS}


def published_columns(a):
    """[(column label, [Environment])]: each source of the lesson's table, and Table 16-4's generations as one."""
    lesson = [(f"{env.members[0].source.gpu}, CUDA {env.members[0].source.cuda} (published)", [env])
              for env in a.envs if env.published and isinstance(env.members[0], PublishedLessonEvidence)]
    textbook = [env for env in a.envs if env.published and isinstance(env.members[0], PublishedSweepEvidence)]
    return lesson + ([("Table 16-4 (published)", textbook)] if textbook else [])


# ---- the tables ----

def gpu_table(a, verdicts, gpus, statements=False):
    """Each claim's verdict per published source and per GPU (by_gpu's `verdicts`; gpus: their labels), each
    claim's statement beside its name where `statements`."""
    published = published_columns(a)
    rows = []
    for cid, statement, _ in CLAIMS:
        sources = [combine([a.combined[(cid, env.label)] for env in envs]) for _, envs in published]
        rows.append([f"{cid}: {statement}" if statements else cid] + [SHORT[f.status] for f in sources]
                    + [SHORT[verdicts[(cid, g)].status] for g in gpus])
    return Table("The course text's claims, per GPU", ["claim"] + [label for label, _ in published] + list(gpus),
                 rows, ["holds / NO (does not hold) / - (not measurable here) / mixed (runs or toolchains disagree); "
                        "a GPU's verdict combines its runs and toolchains."], align="l" + "c" * (len(published) + len(gpus)))


def summary_table(a):
    rows = [[env.label] + [SHORT[a.combined[(cid, env.label)].status] for cid, _, _ in CLAIMS] for env in a.envs]
    return Table("The course text's claims, per environment", ["environment"] + [cid for cid, _, _ in CLAIMS], rows,
                 ["holds / NO (does not hold) / - (not measurable here) / mixed (the runs of one environment "
                  "disagree); environment: GPU / toolchain / driver."], align="l" + "c" * len(CLAIMS))


def claim_tables(a):
    """Per claim: its rule and, per environment and member, the verdict and deciding figures.
    Published sources with nothing to measure for a claim are left out."""
    tables = []
    for cid, statement, decide in CLAIMS:
        rows = [[env.label, ev.source_label, a.each[(cid, ev.label)].status, a.each[(cid, ev.label)].figures]
                for env in a.envs for ev in env.members
                if a.each[(cid, ev.label)].status != UNMEASURABLE or not env.published]
        rule = " ".join(inspect.getdoc(decide).format(**{k: name(v) for k, v in a.kernels.items()}).split()) \
            + (f" {TIMED_RULE}" if cid in TIMED else "")
        tables.append(Table(f"{cid}: {statement}", ["environment", "evidence", "verdict", "figures"], rows,
                            [f"Rule: {rule}"], align="llll"))
    return tables


def exceptions_words(verdicts, gpus):
    """'C2, C5, C7 and C12 hold on none of our GPUs': the claims that do not hold (or are mixed) on some GPU, grouped
    by where; '' where every decided claim holds."""
    where = {}
    for cid, _, _ in CLAIMS:
        failing = tuple(g for g in gpus if verdicts[(cid, g)].status in (FAILS, MIXED))
        if failing:
            where.setdefault(failing, []).append(cid)
    return "; ".join(f"{fmt.and_list(cids)} hold{'s' if len(cids) == 1 else ''} on none of our GPUs"
                     if len(on) == len(gpus) > 1 else
                     f"{fmt.and_list(cids)} {'does' if len(cids) == 1 else 'do'} not hold on {fmt.and_list(on)}"
                     for on, cids in where.items())


def claims_section(m):
    a, gpus = m.claims, [g.label for g in m.gpus]
    ours = a.ours
    decided = sum(a.combined[(cid, e.label)].status != UNMEASURABLE for e in ours for cid, _, _ in CLAIMS)
    exceptions = exceptions_words(m.claims_by_gpu, gpus)
    return [Heading("The course text's claims, checked"),
            Para(f"Each claim is a rule on the data, decided per environment (GPU, toolchain, driver) and combined "
                 f"per GPU: {decided} of the {len(ours) * len(CLAIMS)} verdicts for our {len(ours)} environments "
                 "are decided" + (f"; {exceptions}" if exceptions else ", and every decided claim holds")
                 + ". Every claim is about CUDA kernels, so CPU runs decide none. Each rule, figure and run: [the "
                 "claims report](reports/claims.md)."),
            TableBlock(gpu_table(a, m.claims_by_gpu, gpus, statements=True), "claims", wide=True)]


def claims_report(m):
    return pages.page("The course text's claims, in full",
                      [Para("Each claim is a rule on the data (printed under its table), decided per environment "
                            "(GPU, toolchain, driver) from every run and toolchain that measured it, and per published "
                            "source. CPU toolchains are left out: every claim is about CUDA kernels.")],
                      [TableBlock(gpu_table(m.claims, m.claims_by_gpu, [g.label for g in m.gpus])),
                       TableBlock(summary_table(m.claims))], pages.tables(claim_tables(m.claims)))


PART = Part("claims", "every claim's rule, verdict and figures, per environment and run", claims_section,
            claims_report)
