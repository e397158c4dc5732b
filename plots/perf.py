"""Performance: how close the fastest kernels come to the read floor.

GPU: the perf run plots/selection.py picks (1 GiB, every input). Per input,
each implementation's GB/s and percent of the read floor measured in the same
run, the subject kernel's ratio to CUB, the study's targets with verdicts,
and the shared-memory microbenchmark the run records at its top level
(`hardware`, data/schema/README.md).

CPU: for each CPU, the run plots/selection.py picks: the CPU's subject against
its privatized implementation and the single-thread reference (the oracle) on
every input, as GB/s and percent of the parallel read floor of the same run,
with the code path each row of the subject ran (its run-time dispatch) and,
on a 2-core machine whose CPU has AVX-512, the study's GB/s target. Where
one machine has several runs (its cpu runs and the series the manifest
names), one more table gives each of them a line: how the same code fares
from run to run on one host.

Implementations are found by their roles (plots/results.py), never by name.
"""
import re
from dataclasses import dataclass

from plots import pages, stats
from plots.document import FigureBlock, Heading, Para, Part, TableBlock
from plots import table as fmt
from plots.environment import (NOT_RECORDED, commit_line, cpu_and_cores, executor_describe, find_value, gpu_line,
                               gpu_record, toolchain_line)
from plots.results import Kernel, find_row, find_rows, roles, run_order_key
from plots.selection import CPU_EXPERIMENTS, cpu_host
from plots.table import MET, NOT_MET, Table, value_range

EXPERIMENT = "perf"
SUBJECT = Kernel("subject")  # our fastest kernel, the one the targets are set for (on the CPU too)
PEER = Kernel("peer")        # CUB HistogramEven
PRIVATIZED, ORACLE = Kernel("privatized"), Kernel("oracle")   # the CPU subject's rivals

# The study's targets for its fastest kernel (docs/study-spec.md section 5): percent of the read floor
# measured in the same run, at 1 GiB on the H200.
HIGH_PCT = 95.0          # lesson_english, prose, one_byte and distinct_k for every k <= 32
HIGH_INPUTS = ("lesson_english", "prose", "one_byte")
HIGH_MAX_K = 32
LOW_PCT = 75.0           # uniform and distinct_k for k >= 64
LOW_INPUTS = ("uniform",)
LOW_MIN_K = 64
CUB_RATIO = 1.5          # at least 1.5x CUB on uniform bytes
CUB_RATIO_INPUT = "uniform"
# The CPU subject's target: at least 10 GB/s on every input, set for a 2-core machine with AVX-512. Whether the
# CPU has AVX-512 is read from the paths the run's rows took: the subject's, or the read floor's (avx512bw
# where the CPU has AVX-512 F and BW, whatever path the subject's dispatch chose).
CPU_MIN_GBPS = 10.0
CPU_TARGET_CORES = 2
CPU_TARGET_PATH = "avx512"
NO_TARGET_CORES = f"no target here (set for {CPU_TARGET_CORES} cores)"
NO_TARGET_ISA = "no target here (set for a CPU with AVX-512; this one's paths show none)"
PATHS_NOT_RECORDED = "not judged (the run records no code path)"

NOT_HERE = pages.NOT_HERE   # a verdict where the run holds no figure to judge


def distinct_k(input):
    m = re.fullmatch(r"distinct_(\d+)", input)
    return int(m.group(1)) if m else None


def required_pct(input):
    """The percent-of-floor target for an input; None where the study sets none."""
    k = distinct_k(input)
    if input in HIGH_INPUTS or (k is not None and k <= HIGH_MAX_K):
        return HIGH_PCT
    if input in LOW_INPUTS or (k is not None and k >= LOW_MIN_K):
        return LOW_PCT
    return None


def pct_of_floor(row, floor_gbps):
    """A row's percent of its read floor's GB/s (same input and size, same run): as the run records it, else from
    the floor's GB/s; None without the row, or without either figure."""
    if row is None:
        return None
    if row["pct_of_floor"] is not None:
        return row["pct_of_floor"]
    return 100 * row["gbps"] / floor_gbps if floor_gbps else None


# ---- the GPU perf run --------------------------------------------------------

class PerfView:
    """The perf rows of one run and toolchain."""

    def __init__(self, run, toolchain=None):
        self.run = run
        gpu_rows = [r for r in run.rows if r["experiment"] == EXPERIMENT and r["backend"] == "cuda"]
        self.toolchain = toolchain or gpu_rows[0]["toolchain"]
        rows = [r for r in gpu_rows if r["toolchain"] == self.toolchain]
        self.size = rows[0]["size"]
        self.inputs = list(dict.fromkeys(r["input"] for r in rows))
        self.floor = rows[0]["floor_impl"]
        self.subject, self.peer = SUBJECT.name("cuda", rows), PEER.name("cuda", rows)
        impls = list(dict.fromkeys(r["impl"] for r in rows if r["impl"] != self.floor))
        self.impls = sorted(impls, key=lambda i: (i != self.subject, impls.index(i)))  # the subject first
        self.failed = [r for r in rows if not r["check"]["passed"]]
        self.checks = threshold_checks(self)

    def row(self, impl, input):
        return find_row(self.run, experiment=EXPERIMENT, toolchain=self.toolchain, impl=impl, input=input)

    def gbps(self, impl, input):
        row = self.row(impl, input)
        return row["gbps"] if row else None

    def pct(self, impl, input):
        """Percent of the read floor on the same input in the same run."""
        return pct_of_floor(self.row(impl, input), self.gbps(self.floor, input))

    def ratio(self, impl, other, input):
        a, b = self.gbps(impl, input), self.gbps(other, input)
        return a / b if a and b else None

    def floor_median(self):
        values = [g for g in (self.gbps(self.floor, i) for i in self.inputs) if g]
        return stats.median(values) if values else None

    def hardware(self):
        return self.run.doc.get("hardware") or {}

    def shared_rates(self):
        return [r for r in self.hardware().get("shared_rates", []) if r.get("ceiling_gbps")]


GAP_UNIT = "us"   # a gap to the floor in microseconds: the one unit whose target is a most, not a least


@dataclass(frozen=True)
class Check:
    requirement: str    # as the study words it
    input: str
    measured: object    # percent of floor, a ratio, or a gap in microseconds; None when absent
    required: float
    unit: str           # "pct", "ratio" or GAP_UNIT
    size: int = None    # the input's size, where the checks span sizes (plots/sizes.py)

    @property
    def margin(self):
        """How far the measured figure lies on the met side of the target (negative: not met), or None."""
        if self.measured is None:
            return None
        return self.required - self.measured if self.unit == GAP_UNIT else self.measured - self.required

    @property
    def verdict(self):
        if self.measured is None:
            return pages.NOT_HERE
        return MET if self.margin >= 0 else NOT_MET


def threshold_checks(view):
    """The targets for the subject, one check per input plus the ratio to CUB."""
    checks = []
    for input in view.inputs:
        need = required_pct(input)
        if need is not None:
            what = f">= {need:g}% of floor"
            checks.append(Check(what, input, view.pct(view.subject, input), need, "pct"))
    checks.append(Check(f">= {CUB_RATIO:g}x {view.peer}", CUB_RATIO_INPUT,
                        view.ratio(view.subject, view.peer, CUB_RATIO_INPUT), CUB_RATIO, "ratio"))
    return checks


def overall(checks):
    """'met' when every check is met, 'not met' when one is not, else not measurable."""
    verdicts = [c.verdict for c in checks]
    if not verdicts or pages.NOT_HERE in verdicts:
        return pages.NOT_HERE
    return MET if all(v == MET for v in verdicts) else NOT_MET


def worst(checks):
    """The measured check with the smallest margin (the furthest from met), or None."""
    return min((c for c in checks if c.measured is not None), key=lambda c: c.margin, default=None)


def show(check):
    if check.unit == GAP_UNIT:
        return fmt.MISSING if check.measured is None else f"{check.measured:.2f} us"
    return fmt.pct(check.measured) if check.unit == "pct" else fmt.ratio(check.measured, 2)


def required_words(check):
    return {"pct": f"{check.required:g}%", GAP_UNIT: f"{check.required:g} us"}.get(check.unit, f"{check.required:g}x")


def _cell(view, impl, input, digits=0):
    g = view.gbps(impl, input)
    return f"{fmt.number(g, digits)} ({fmt.pct(view.pct(impl, input))})" if g else fmt.MISSING


def gpu_table(view):
    title = (f"Performance: {view.toolchain}, {view.size:,} bytes, GB/s (percent of the read floor) "
             f"({view.run.name})")
    s, b = view.subject, view.peer
    columns = ["input", f"{view.floor} GB/s"] + [f"{i} GB/s (% floor)" for i in view.impls] + [f"{s} / {b}"]
    rows = [[input, fmt.number(view.gbps(view.floor, input), 0)] + [_cell(view, i, input) for i in view.impls]
            + [fmt.ratio(view.ratio(s, b, input), 2)] for input in view.inputs]
    notes = [f"GB/s: bytes read over the median time; % floor: over {view.floor}'s GB/s on the same input in the "
             f"same run; {s} / {b}: ratio of GB/s."]
    notes += [f"CHECK FAILED: {r['impl']} on {r['input']}: {r['check']['detail']}" for r in view.failed]
    return Table(title, columns, rows, notes, align="l" + "r" * (len(columns) - 1))


def threshold_table(view):
    checks = view.checks
    rows = [[c.requirement, c.input, show(c), required_words(c), c.verdict] for c in checks]
    notes = [f"The targets: {view.subject} against the read floor measured in the same run: >= {HIGH_PCT:g}% on "
             f"{', '.join(HIGH_INPUTS)} and distinct_k for k <= {HIGH_MAX_K}; >= {LOW_PCT:g}% on "
             f"{', '.join(LOW_INPUTS)} and distinct_k for k >= {LOW_MIN_K}; >= {CUB_RATIO:g}x {view.peer} on "
             f"{CUB_RATIO_INPUT}. Percents are shown to one decimal; the verdict compares the unrounded figure.",
             f"All targets: {overall(checks)}."]
    return Table(f"Performance targets: {view.subject} ({view.run.name})", ["requirement", "input", "measured",
                                                                       "required", "verdict"],
                 rows, notes, align="llrrl")


def _span(values, digits=1, suffix="%"):
    values = [v for v in values if v is not None]
    if not values:
        return fmt.MISSING
    low, high = f"{min(values):,.{digits}f}", f"{max(values):,.{digits}f}"
    return f"{low}{suffix}" if low == high else f"{low}..{high}{suffix}"


def hardware_table(view):
    hw, rates = view.hardware(), view.shared_rates()
    floor = view.floor_median()
    title = f"Shared-memory microbenchmark: updates per clock per SM and the ceiling they imply ({view.run.name})"
    rows = [[r.get("pattern", "?"), fmt.number(r.get("updates_per_clock_sm"), 2), fmt.number(r["ceiling_gbps"], 0),
             fmt.number(floor, 0), fmt.pct(100 * r["ceiling_gbps"] / floor if floor else None)] for r in rates]
    if rates:
        notes = [f"Measured by the study on the same GPU in the same run: {hw.get('sm_count', NOT_RECORDED)} SMs at "
                 f"{fmt.number(hw.get('sm_clock_mhz'), 0)} MHz, {hw.get('threads_per_block', NOT_RECORDED)} threads "
                 f"per block, {hw.get('blocks_per_sm', NOT_RECORDED)} blocks per SM. Ceiling: the GB/s of a design "
                 "that spends one shared update of that pattern per byte.",
                 f"Read floor: the median of {view.floor}'s GB/s over the run's {len(view.inputs)} inputs."]
    else:
        notes = [f"{pages.NOT_HERE}: the run records no shared-memory microbenchmark (top-level \"hardware\")."]
    return Table(title, ["pattern", "updates / clock / SM", "ceiling GB/s", "read floor GB/s", "ceiling % of floor"],
                 rows, notes)


def kernel_ceiling_table(view):
    rates = view.shared_rates()
    impls = view.impls + [view.floor]
    rows = []
    for impl in impls:
        gbps = [view.gbps(impl, i) for i in view.inputs]
        rows.append([impl, _span(gbps, 0, "")] + [_span([100 * g / r["ceiling_gbps"] if g else None for g in gbps])
                                                 for r in rates])
    notes = ["Each cell: the lowest..highest over the run's inputs (one figure where they agree to the digit shown)."]
    if not rates:
        notes.append(f"percent of ceiling: {pages.NOT_HERE} (no microbenchmark in the run).")
    return Table(f"Each kernel against the shared-memory ceilings ({view.run.name})",
                 ["impl", "GB/s"] + [f"% of {r.get('pattern', '?')} ceiling" for r in rates], rows, notes)


def gpu_environment_line(view):
    run, tc = view.run, view.toolchain
    driver = find_value(gpu_record(run, tc), "driver_version") or find_value(run.environment, "driver_version")
    return (f"{gpu_line(run, tc)}, driver {driver or NOT_RECORDED}; toolchain {tc} "
            f"({toolchain_line(executor_describe(run, tc))})")


# ---- the CPU run --------------------------------------------------------------

class CpuView:
    def __init__(self, run):
        self.run = run
        rows = [r for r in run.rows if r["backend"] == "cpu" and r["experiment"] in CPU_EXPERIMENTS]
        self.size = max((r["size"] for r in rows), key=lambda s: sum(r["size"] == s for r in rows))
        rows = [r for r in rows if r["size"] == self.size]
        self.rows = rows
        self.inputs = list(dict.fromkeys(r["input"] for r in rows))
        self.floor = rows[0]["floor_impl"]
        self.subject, self.privatized, self.oracle = (k.name("cpu", rows) for k in (SUBJECT, PRIVATIZED, ORACLE))
        self.rivals = (self.privatized, self.oracle)
        self.failed = [r for r in rows if not r["check"]["passed"]]
        self.ahead, self.verdict, self.margin = cpu_ahead(self), cpu_verdict(self), cpu_margins(self)
        self.cores = run.environment["host"]["logical_cores"]
        self.paths = {i: self.path(self.subject, i) for i in self.inputs}
        self.floor_paths = {i: self.path(self.floor, i) for i in self.inputs}
        self.rate_verdict = cpu_rate_verdict(self)

    @property
    def subject_rates(self):
        """The subject's median GB/s on each input (None where it has no row)."""
        return [self.gbps(self.subject, i) for i in self.inputs]

    def row(self, impl, input):
        return next((r for e in CPU_EXPERIMENTS for r in find_rows(self.run, experiment=e, backend="cpu",
                                                                     size=self.size, impl=impl, input=input)), None)

    def gbps(self, impl, input):
        row = self.row(impl, input)
        return row["gbps"] if row else None

    def pct(self, impl, input):
        row = self.row(impl, input)
        return row["pct_of_floor"] if row else None

    def path(self, impl, input):
        """The code path a row ran ('avx512', 'scalar': its 'host: PATH' code), or None where not recorded."""
        row = self.row(impl, input)
        code = row.get("code") if row else None
        return code.split(":", 1)[1].strip() if code and ":" in code else None

    def threads(self, impl):
        row = next((self.row(impl, i) for i in self.inputs if self.row(impl, i)), None)
        return row["policy"]["threads"] if row else None

    def compare(self, rival, input):
        """Bootstrap comparison of the subject's times over the rival's (below 1: the subject is faster)."""
        a, b = self.row(rival, input), self.row(self.subject, input)
        return stats.compare_samples(a["samples_ms"], b["samples_ms"]) if a and b else None


def cpu_ahead(view):
    """{input: True/False/None}: the subject's median GB/s above every rival's on that input."""
    out = {}
    for input in view.inputs:
        fast = view.gbps(view.subject, input)
        rivals = [view.gbps(r, input) for r in view.rivals]
        out[input] = None if fast is None or None in rivals else all(fast > r for r in rivals)
    return out


def cpu_verdict(view):
    ahead = cpu_ahead(view)
    if not ahead or None in ahead.values():
        return pages.NOT_HERE
    return MET if all(ahead.values()) else NOT_MET


def cpu_rate_verdict(view):
    """The subject at >= CPU_MIN_GBPS on every input, where the target is set for the run's machine."""
    if view.cores != CPU_TARGET_CORES:
        return NO_TARGET_CORES
    paths = [p for p in [*view.paths.values(), *view.floor_paths.values()] if p]
    if not paths:
        return PATHS_NOT_RECORDED
    if not any(p.startswith(CPU_TARGET_PATH) for p in paths):
        return NO_TARGET_ISA
    rates = view.subject_rates
    return MET if None not in rates and min(rates) >= CPU_MIN_GBPS else NOT_MET


def cpu_margins(view):
    """(smallest subject / rival GB/s ratio, rival, input) over every input and rival."""
    s = view.subject
    found = [(view.gbps(s, i) / view.gbps(r, i), r, i) for i in view.inputs for r in view.rivals
             if view.gbps(s, i) and view.gbps(r, i)]
    return min(found) if found else None


@dataclass(frozen=True)
class CpuSeries:
    machine: str    # the CPU and its logical cores, in words
    views: list     # [CpuView] of that machine's runs, oldest first

    @property
    def judged(self):
        """The runs the study's GB/s target applies to."""
        return [v for v in self.views if v.rate_verdict in (MET, NOT_MET)]


def cpu_series(views):
    """[CpuSeries] of each machine (CPU and logical cores) with two or more runs among `views` (a run given twice
    counts once), by its first run."""
    machines = {}
    for view in sorted({v.run.path: v for v in views}.values(), key=lambda v: run_order_key(v.run.path)):
        machines.setdefault(cpu_host(view.run), []).append(view)
    return [CpuSeries(cpu_and_cores(vs[0].run.environment), vs) for vs in machines.values() if len(vs) >= 2]


def cpu_series_table(series):
    first = series.views[0]
    s, floor = first.subject, first.floor
    columns = ["run", "commit", f"{s} GB/s", f"{floor} GB/s", f"{s} % floor", f"inputs at >= {CPU_MIN_GBPS:g} GB/s",
               "target"]
    rows = []
    for v in series.views:
        rates = v.subject_rates
        rows.append([v.run.name, commit_line(v.run.doc["provenance"]), fmt.value_range(rates, 2),
                     fmt.value_range([v.gbps(floor, i) for i in v.inputs], 2),
                     fmt.value_range([v.pct(s, i) for i in v.inputs], 1, "%"),
                     f"{sum(r is not None and r >= CPU_MIN_GBPS for r in rates)} of {len(v.inputs)}", v.rate_verdict])
    judged = series.judged
    met = sum(v.rate_verdict == MET for v in judged)
    notes = [f"{series.machine}: each run's {s} and {floor} over the inputs of its CPU table's experiments, medians "
             f"per input; % floor over {floor} on the same input in the same run.",
             f"{s} at >= {CPU_MIN_GBPS:g} GB/s on every input (the study's target for a {CPU_TARGET_CORES}-core "
             f"machine with AVX-512): met in {met} of these {len(judged)} runs." if judged else
             "The study's GB/s target is not judged on this machine."]
    return Table(f"CPU: {s} run by run on {series.machine}", columns, rows, notes, align="llrrrrl")


def cpu_table(view):
    s, priv, oracle = view.subject, view.privatized, view.oracle
    impls = (view.floor, oracle, priv, s)
    columns = ["input", f"{view.floor} GB/s"] + [f"{i} GB/s (% floor)" for i in impls[1:]] + \
        [f"{s} path"] + [f"{s} / {r}" for r in view.rivals] + ["ahead of both", f"bootstrap vs {priv}"]
    ahead = view.ahead
    rows = []
    for input in view.inputs:
        cells = [input, fmt.number(view.gbps(view.floor, input), 2)]
        cells += [f"{fmt.number(view.gbps(i, input), 2)} ({fmt.pct(view.pct(i, input))})" if view.gbps(i, input)
                  else fmt.MISSING for i in impls[1:]]
        cells.append(view.paths[input] or NOT_RECORDED)
        cells += [fmt.ratio(view.gbps(s, input) / view.gbps(r, input), 2)
                  if view.gbps(s, input) and view.gbps(r, input) else fmt.MISSING for r in view.rivals]
        cells.append({True: "yes", False: "NO", None: pages.NOT_HERE}[ahead[input]])
        c = view.compare(priv, input)
        cells.append(f"{c.verdict} ({fmt.interval(c.ci_low, c.ci_high, 2)})" if c else fmt.MISSING)
        rows.append(cells)
    notes = [f"{cpu_and_cores(view.run.environment)}; threads: "
             + ", ".join(f"{i} {view.threads(i)}" for i in impls) + ".",
             f"GB/s over the median time; % floor: over {view.floor}'s GB/s on the same input in the same run. "
             f"Ahead of both: {s}'s median GB/s above {oracle}'s and {priv}'s.",
             f"Bootstrap: {s}'s median time over {priv}'s with its {stats.CONFIDENCE:.0%} interval "
             f"({stats.RESAMPLES:,} resamples); 'faster' when the whole interval lies below 1/{stats.DEFAULT_BAND:g}.",
             f"{s} ahead of {priv} and {oracle} on every input: "
             f"{view.verdict}.",
             f"Path: the code {s}'s run-time dispatch chose on this CPU. {s} at >= {CPU_MIN_GBPS:g} GB/s on every "
             f"input (the study's target for a {CPU_TARGET_CORES}-core machine with AVX-512): {view.rate_verdict}."]
    notes += [f"CHECK FAILED: {r['impl']} on {r['input']}: {r['check']['detail']}" for r in view.failed]
    return Table(f"CPU: {s} against {priv} and {oracle}, {view.size:,} bytes ({view.run.name})",
                 columns, rows, notes, align="l" + "r" * 4 + "l" + "r" * (len(columns) - 8) + "ll")


# ---- the lesson's size ---------------------------------------------------------

SMALL_EXPERIMENTS = ("lesson", "sweep")  # the lesson's 67,109,475 bytes, every input
READERS = {"reader", "floor"}             # the GPU floors' roles: they read every byte and count nothing


@dataclass(frozen=True)
class SmallRace:
    """The subject against the fastest other counting implementation on one input."""
    input: str
    subject: dict
    rival: dict
    comparison: object   # stats.Comparison of the subject's times over the rival's

    @property
    def fastest(self):
        return self.comparison.ratio < 1


def small_races(lesson_run):
    """Per input of the run's GPU lesson and sweep rows, with the toolchain that ran the library
    peer too: the subject against the fastest other implementation that counts."""
    rows = [r for r in lesson_run.rows if r["backend"] == "cuda" and r["experiment"] in SMALL_EXPERIMENTS
            and r["check"]["passed"] and r["samples_ms"] and not READERS & set(roles(r))]
    toolchain = next((r["toolchain"] for r in rows if PEER.picks(r)), None)
    races = []
    for input in dict.fromkeys(r["input"] for r in rows):
        here = [r for r in rows if r["input"] == input and r["toolchain"] == toolchain]
        subject = next((r for r in here if SUBJECT.picks(r)), None)
        others = [r for r in here if r["impl"] != subject["impl"]] if subject else []
        if not others:
            continue
        rival = min(others, key=lambda r: r["summary_ms"]["median"])
        races.append(SmallRace(input, subject, rival,
                               stats.compare_samples(rival["samples_ms"], subject["samples_ms"], band=1.0)))
    return races


def small_verdict(races):
    if not races:
        return pages.NOT_HERE
    return MET if all(r.fastest for r in races) else NOT_MET


@dataclass(frozen=True)
class Small:
    """The subject at the lesson's size: the lesson run and its races."""
    run: object
    races: list         # [SmallRace]
    subject: str        # the subject's name

    @property
    def verdict(self):
        return small_verdict(self.races)


def small_model(lesson_run):
    """The subject's races in a lesson run with GPU rows, or None."""
    if lesson_run is None or not lesson_run.has_gpu_rows():
        return None
    races = small_races(lesson_run)
    return Small(lesson_run, races, races[0].subject["impl"] if races else SUBJECT.name("cuda", lesson_run.rows))


def small_table(m):
    races, name, lesson_run = m.races, m.subject, m.run
    if not races:
        return Table(f"{name} at the lesson's size", ["input"], [],
                     [f"{pages.NOT_HERE}: the newest lesson run has no GPU rows of {name} beside another kernel."])
    size = races[0].subject["size"]
    rows = []
    for r in races:
        s, v = r.subject["summary_ms"], r.rival["summary_ms"]
        c = r.comparison
        rows.append([r.input, f"{s['median']:.4f} ({s['p10']:.4f}..{s['p90']:.4f})", r.rival["impl"],
                     f"{v['median']:.4f} ({v['p10']:.4f}..{v['p90']:.4f})", fmt.ratio(1 / c.ratio, 2),
                     f"{c.verdict} ({fmt.interval(c.ci_low, c.ci_high, 3)})"])
    notes = [f"Toolchain {races[0].subject['toolchain']}; {name} with {races[0].subject['policy']['grid']} x "
             f"{races[0].subject['policy']['block']}; ms: median (p10..p90) of the per-run samples. Rival: the "
             "other implementation that counts with the lowest median on that input.",
             f"Bootstrap: {name}'s median time over the rival's with its {stats.CONFIDENCE:.0%} interval "
             f"({stats.RESAMPLES:,} resamples); 'faster' when the whole interval lies below 1.",
             f"{name} has the lowest median on every input: {m.verdict}; the interval "
             f"lies below 1 on {sum(r.comparison.verdict == stats.FASTER for r in races)} of {len(races)} inputs."]
    return Table(f"{name} against the fastest other kernel at {size:,} bytes ({lesson_run.name})",
                 ["input", f"{name} ms", "rival", "rival ms", "speedup", "bootstrap"], rows, notes,
                 align="lrlrrl")


# ---- the report ----------------------------------------------------------------

def gpu_tables(view, small, not_yet):
    """A GPU's PerfView tables (`not_yet` where None) and the subject at the lesson's size (a Small, or None)."""
    if view:
        tables = [gpu_table(view), threshold_table(view), hardware_table(view), kernel_ceiling_table(view)]
    else:
        tables = [Table("Performance (GPU)", ["input"], [], [not_yet])]
    return tables + ([small_table(small)] if small else [])


def cpu_tables(cpus, series=()):
    """A table per CpuView, and one per CpuSeries."""
    tables = [cpu_table(cpu) for cpu in cpus]
    tables += [cpu_series_table(s) for s in series]
    if not cpus:
        tables.append(Table("Performance (CPU)", ["input"], [],
                            [f"{pages.NOT_HERE}: no run in data/runs holds CPU rows of {SUBJECT.name('cpu')}."]))
    return tables


def perf_gpu_prose(view, missing):
    """One GPU's perf run (a PerfView, or None: missing('perf') says why) in words."""
    if view is None:
        return f"The GPU performance report: {missing('perf')}"
    run, s, b, checks = view.run, view.subject, view.peer, view.checks
    host = run.environment["host"]
    text = (f"Environment: {gpu_environment_line(view)}; host {cpu_and_cores(run.environment)}, "
            f"{host['os']}; run file `{run.path}` (started "
            f"{run.doc['started']}, commit {commit_line(run.doc['provenance'])}), {view.size:,} bytes per input, "
            f"{len(view.inputs)} inputs, medians of per-run samples. ")
    pcts = [view.pct(s, i) for i in view.inputs]
    text += (f"`{s}` runs at {value_range(pcts, 1, '%')} of the read floor ({view.floor}, "
             f"{value_range([view.gbps(view.floor, i) for i in view.inputs], 0, ' GB/s')}) over the inputs, and at "
             f"{fmt.ratio(view.ratio(s, b, CUB_RATIO_INPUT), 2)} `{b}`'s GB/s on {CUB_RATIO_INPUT} bytes "
             f"(`{b}` itself: {fmt.pct(view.pct(b, CUB_RATIO_INPUT))} of the floor there, "
             f"{value_range([view.pct(b, i) for i in view.inputs], 1, '%')} over the inputs). ")
    groups = []
    for need, unit in sorted({(c.required, c.unit) for c in checks}, reverse=True):
        group = [c for c in checks if (c.required, c.unit) == (need, unit)]
        worst = min((c for c in group if c.measured is not None), key=lambda c: c.measured, default=None)
        label = f"{need:g}% of the floor" if unit == "pct" else f"{need:g}x `{b}`"
        detail = f"lowest {show(worst)} on {worst.input}" if worst else pages.NOT_HERE
        groups.append(f"{label} on {len(group)} input{'s' if len(group) > 1 else ''}: **{overall(group)}** "
                      f"({detail})")
    met = sum(c.verdict == MET for c in checks)
    text += (f"The study's targets, checked on these figures: {'; '.join(groups)}. In all, {met} of {len(checks)} "
             f"checks are met: **{overall(checks)}** on this run.")
    return text


def small_prose(small):
    """The subject at the lesson's size on one GPU (a Small, or None)."""
    races = small.races if small else []
    if not races:
        return f"`{SUBJECT.name('cuda')}` at the lesson's size: {pages.NOT_HERE} (no GPU lesson run with it)."
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
        return f"The run records no shared-memory microbenchmark: the kernels' share of the hardware is {pages.NOT_HERE}."
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
                   f"`{f}`'s code path: {paths}; at >= {CPU_MIN_GBPS:g} GB/s on every input, the study's "
                   f"target for a {CPU_TARGET_CORES}-core machine with AVX-512: **{view.rate_verdict}**.")


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
        gpu.append(FigureBlock("perf", 0, "Each implementation's GB/s as a percent of the read floor's on the same "
                                          "input in the same run, with the study's targets and the shared-memory "
                                          "ceilings" + ("; a panel per implementation, a colour per GPU." if
                                                        len(m.perf_bars) > 1 else "."),
                               " and ".join(f"`{g.perf.run.path}`" for g in m.gpus if g.perf_bars in m.perf_bars)))
    if len(m.perf_bars) > 1:
        gpu.append(TableBlock(floor_pcts_table(m.perf_bars)))
    size = f" at {fmt.size_words(views[0].size)}" if views else ""
    cpu_prose = [Para(cpu_run_prose(cpu)) for cpu in m.cpus] or [
        Para(f"No run chosen holds CPU rows of `{SUBJECT.name('cpu')}`: the CPU comparison is {pages.NOT_HERE}.")]
    per_gpu = [t for g in own for t in gpu_tables(g.perf if g else None, g.small if g else None,
                                                          (g.missing if several else m.missing)("perf"))]
    return pages.page("Performance engineering: how close to the read floor",
                      [Para(f"The study's `perf` experiment times the fastest implementations{size} on every input "
                            "beside the read floor of the same run, and records a microbenchmark of the GPU's "
                            "shared-memory update rates; the targets are the study's (docs/study-spec.md section 5), "
                            "the verdicts computed from the run.")],
                      gpu, [Heading("The CPU", 2)], cpu_prose,
                      pages.tables(per_gpu + cpu_tables(m.cpus, m.cpu_series)))


def _figures(m):
    from plots import figures   # matplotlib, loaded only where a figure is drawn
    return {"perf": (figures.perf_figure, m.perf_bars)}


PART = Part("performance", "the fastest kernels against the read floor, at every size and beside the libraries; the "
                           "CPU; `count` on a file", report=performance_report, figures=_figures)
