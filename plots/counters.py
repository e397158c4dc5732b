"""Counted, not declared: a profile's hardware counters (data/profiles/, made by tools/ncu_profile.py) beside
the counts the study declares, and three findings explained from the counters.

    python3 -m plots.counters [PROFILE.json] [--registry FILE] [--text]

prints the report for one profile (default: the newest in data/profiles/) and exits 1 when a declaration
disagrees with its counter beyond the tolerance. The paper (./dev paper) shows it in reports/counters.md and a
section of the appendix only when data/profiles/ holds a profile; without one the paper is what it was.

Models first (declared against counted, the claim of C1 by the counter, bank conflicts, the bins' placement, the
partitioned passes), computed once per profile by gpu_model (the paper's part declares study_model, which
plots/models.py calls once; the command line builds the one profile it reads); then their tables and prose, which
only format them. Which implementation plays which part comes from the rows' roles or data/registry.json, never
from a name. Standard library only, so the GPU machine can print it.
"""
import argparse
import json
import pathlib
import statistics
import sys
from dataclasses import dataclass

from plots import cli, output
from plots import table as fmt
from plots.document import Heading, Para, Part, TableBlock, markdown
from plots.table import Table

try:
    from plots.results import ResultError
except ImportError:  # a machine without jsonschema (the GPU machine's summary): the same error, stdlib only
    class ResultError(Exception):
        def __init__(self, path, problem):
            super().__init__(f"{path}: {problem}")
            self.path = str(path)

REPO = pathlib.Path(__file__).resolve().parent.parent
FORMAT = "histostudy-profile"
SCHEMA_VERSION = 1
REPORT = "counters"

BINS = 256                 # a histogram's bins: what a privatized block merges
SECTOR_BYTES = 32          # an L2 sector; lts__t_sectors counts them
WARP = 32                 # lanes a warp instruction can carry
BYTES_TOLERANCE = 0.01     # bytes read: the counter sees whole 32-byte sectors at the input's ends and what a kernel
#                            reads beside its input (the subject's rows: 264 x 256 x 4 bytes at the lesson's size)
MOVES = 0.02               # placement: a counter moves with the offset when it differs by more than this fraction
NOISE_FACTOR = 3           # ... and by more than this many times the spread of the case's own two runs
FOLLOWS = 0.9              # ... and follows the time over every offset when |Pearson r| is at least this
LEVEL = 0.05               # two times within this fraction of each other are level
CONFLICT_INPUTS = ("uniform", "one_byte")  # the bank-conflict comparison: the lesson's easy and hard input
COMPARED_SETS = ("lesson", "gib")          # the sets whose cases are compared (the placement set is apart)
LESSON_ROLES = ("baseline", "privatized", "reader")   # the lesson's kernels (plots/published.py, which needs numpy)

# The counters read here (tools/ncu_profile.py asks for them).
TIME = "gpu__time_duration.sum"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
DRAM_READ, DRAM_WRITE = "dram__bytes_read.sum", "dram__bytes_write.sum"
L2_READ = "lts__t_sectors_srcunit_tex_op_read.sum"
RED_BYTES, ATOM_BYTES = "smsp__sass_data_bytes_mem_global_op_red.sum", "smsp__sass_data_bytes_mem_global_op_atom.sum"
L2_RED_REQUESTS, L2_ATOM_REQUESTS = "lts__t_requests_srcunit_tex_op_red.sum", "lts__t_requests_srcunit_tex_op_atom.sum"
L2_RED_SECTORS, L2_RED_SECTORS_MAX = "lts__t_sectors_srcunit_tex_op_red.sum", "lts__t_sectors_srcunit_tex_op_red.max"
ATOMIC_BUSY_MAX, L2_CYCLES = "lts__d_atomic_input_cycles_active.max", "lts__cycles_elapsed.avg"
FABRIC = "lts__t_requests_srcunit_ltcfabric.sum"
SHARED_INST = "smsp__sass_inst_executed_op_shared_atom.sum"
GLOBAL_RED_INST, GLOBAL_ATOM_INST = ("smsp__sass_inst_executed_op_global_red.sum",
                                     "smsp__sass_inst_executed_op_global_atom.sum")
SHARED_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"
SHARED_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"

AGREES, DISAGREES, NOT_COUNTED, NOT_DECLARED = "agrees", "DISAGREES", "not counted", "not declared"
HOLDS, FAILS, UNMEASURABLE = "holds", "does not hold", "not measurable here"


def _n(value):
    return fmt.count(round(value)) if value is not None else fmt.MISSING


def _ratio(a, b):
    return a / b if a is not None and b else None


def _pct(fraction):
    return 100 * fraction if fraction is not None else None


# ---- the profile ----

@dataclass(frozen=True)
class Counted:
    path: str            # as shown: data/profiles/<file>
    doc: dict
    registry: dict       # {(implementation, backend): roles} of data/registry.json; {} without it

    @property
    def cases(self):
        return [Case(c, self) for c in self.doc["cases"]]

    def toolchains(self):
        return list(dict.fromkeys(c["toolchain"] for c in self.doc["cases"]))

    def missing(self):
        """{metric: why} of the metrics asked that the profile has no values of."""
        return {m["metric"]: m["why"] for m in self.doc["metrics"]["missing"]}

    def gpu(self):
        for e in (self.doc.get("environment") or {}).get("executors", []):
            device = (e.get("describe") or {}).get("device")
            if device:
                return device
        return {}


def load(profiles_dir, shown, registry_path=None):
    """The newest profile in profiles_dir (names start with their UTC date), or None where there is none; a
    malformed one raises ResultError naming it."""
    newest = load_each_gpu(profiles_dir, shown, registry_path)
    return max(newest, key=lambda c: pathlib.Path(c.path).name) if newest else None


def load_each_gpu(profiles_dir, shown, registry_path=None):
    """[Counted]: the newest profile of each GPU in profiles_dir, oldest first; a profile's name is
    <UTC date>_<GPU>_profile.json (tools/ncu_profile.py), so an older profile of a GPU is never read. A
    malformed one read raises ResultError naming it."""
    profiles_dir = pathlib.Path(profiles_dir)
    found = sorted(profiles_dir.glob("*.json")) if profiles_dir.is_dir() else []
    newest = {path.stem.partition("_")[2]: path for path in found}   # by GPU: the newest wins
    return [read(path, f"{shown}{path.name}", registry_path or profiles_dir.parent / "registry.json")
            for path in sorted(newest.values())]


def read(path, shown, registry_path):
    try:
        doc = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ResultError(shown, f"cannot read the profile ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ResultError(shown, f"not a profile (format {doc.get('format') if isinstance(doc, dict) else None!r})")
    if not isinstance(doc.get("schema_version"), int) or doc["schema_version"] > SCHEMA_VERSION:
        raise ResultError(shown, f"schema_version {doc.get('schema_version')!r}: this reader knows {SCHEMA_VERSION}")
    for key in ("profiler", "metrics", "cases", "invocations"):
        if key not in doc:
            raise ResultError(shown, f"no '{key}'")
    return Counted(shown, doc, roles_registry(registry_path))


def roles_registry(path):
    """{(name, backend): roles} of data/registry.json; {} where there is none (every role then unknown)."""
    try:
        entries = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))["implementations"]
        return {(e["name"], e["backend"]): tuple(e["roles"]) for e in entries}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def files(counted):
    """The data files the paper reads for the counters, of [Counted]: [] without a profile."""
    return [c.path for c in counted or []]


# ---- one profiled case ----

@dataclass(frozen=True)
class Case:
    c: dict
    profile: Counted

    def __getitem__(self, key):
        return self.c[key]

    @property
    def roles(self):
        """The roles its result row recorded, else data/registry.json's for its implementation."""
        if self.c.get("roles") is not None:
            return tuple(self.c["roles"])
        return self.profile.registry.get((self.c["impl"], self.c.get("backend", "cuda")), ())

    @property
    def passes(self):
        return (self.c.get("policy") or {}).get("passes", 1)

    def declared(self, count):
        """A count its result row declares ('global_atomics', 'bytes_read', ...), or None."""
        return (self.c.get("declared") or {}).get(count)

    @property
    def label(self):
        return self.c["impl"] + (f" P={self.passes}" if self.passes > 1 else "")

    def run(self, metric):
        """The median over the case's runs of a counter summed over each run's launches; None if absent."""
        entry = (self.c.get("per_run") or {}).get(metric)
        return entry["median"] if entry else None

    def spread(self, metric):
        """(max - min) / median over the case's runs: how far its own runs differ; None if unknown."""
        entry = (self.c.get("per_run") or {}).get(metric) or {}
        values = [v for v in entry.get("values", []) if v is not None]
        middle = entry.get("median")
        return (max(values) - min(values)) / middle if values and middle else None

    def main_kernel(self, metric):
        """A per-launch metric (a maximum, a ratio) of the run's longest kernel, median over its launches."""
        kernels = self.c.get("per_kernel") or {}
        if not kernels:
            return None
        longest = max(kernels.values(), key=lambda k: (k["median"].get(TIME) or 0) * k["launches_per_run"])
        return longest["median"].get(metric)

    def ms(self):
        ns = self.run(TIME)
        return ns / 1e6 if ns is not None else None

    def atomic_width(self):
        """Bytes an update adds, on average: the declared bytes over the declared updates where the row declares
        both (lane_shared's 64-bit spread entries beside 32-bit bins), else the counter width. Where the bytes are
        declared, the counted updates are the counted bytes at that width, so the global-atomics check then tests
        the declared bytes against the counter: the counters do not tell the two widths' updates apart."""
        updates, nbytes = self.declared("global_atomics"), self.declared("global_atomic_bytes")
        if updates and nbytes:
            return nbytes / updates
        bits = (self.c.get("policy") or {}).get("counter_bits")
        return bits // 8 if bits else None

    def counted_atomics(self):
        """Global atomic updates per run, at least: the bytes the reductions and atomics move over the width of
        an update (atomic_width). The SM merges a warp's lanes that update one address into one, so this counts
        the addresses each warp instruction updates: a lower bound of the threads' updates, equal to it where no
        two lanes of a warp share a bin."""
        red, atom, width = self.run(RED_BYTES), self.run(ATOM_BYTES), self.atomic_width()
        if red is None or atom is None or not width:
            return None
        return (red + atom) / width

    def atomic_lanes(self):
        """Global atomic updates per run, at most: 32 lanes for each warp instruction (a warp's idle lanes
        count too: no counter here counts the threads' updates themselves)."""
        red, atom = self.run(GLOBAL_RED_INST), self.run(GLOBAL_ATOM_INST)
        return WARP * (red + atom) if red is not None and atom is not None else None

    def l2_requests(self):
        red, atom = self.run(L2_RED_REQUESTS), self.run(L2_ATOM_REQUESTS)
        return red + atom if red is not None and atom is not None else None

    def counted_bytes(self):
        """Bytes read per run, counted: the 32-byte L2 sectors the SMs read."""
        sectors = self.run(L2_READ)
        return sectors * SECTOR_BYTES if sectors is not None else None

    def per_byte(self, metric):
        value = self.run(metric)
        return value / self.c["size"] if value is not None and self.c["size"] else None

    def per_instruction(self, metric):
        value, inst = self.run(metric), self.run(SHARED_INST)
        return value / inst if value is not None and inst else None


# ---- model 1: declared against counted ----

@dataclass(frozen=True)
class Check:
    """A declaration against what the counters allow: `counted` within `tolerance` of it, or, where the
    counters bound it (`upper`), counted <= declared <= upper."""
    what: str                 # 'global atomics' or 'bytes read'
    declared: object
    counted: object
    tolerance: float = 0.0
    upper: object = None

    @property
    def status(self):
        if self.declared is None:
            return NOT_DECLARED
        if self.counted is None:
            return NOT_COUNTED
        if self.upper is not None:
            return AGREES if self.counted <= self.declared <= self.upper else DISAGREES
        return AGREES if abs(self.counted - self.declared) <= self.tolerance * self.declared else DISAGREES

    @property
    def decided(self):
        return self.status in (AGREES, DISAGREES)

    @property
    def off(self):
        """How far the declaration is outside what was counted, as a fraction of it (or the count, where 0
        is declared)."""
        if self.declared is None or self.counted is None:
            return None
        nearest = self.counted if self.upper is None or self.declared < self.counted else self.upper
        return (nearest - self.declared) / self.declared if self.declared else nearest


def checks(case):
    """(global atomics, bytes read): the case's two Checks."""
    return (Check("global atomics", case.declared("global_atomics"), case.counted_atomics(),
                  upper=case.atomic_lanes()),
            Check("bytes read", case.declared("bytes_read"), case.counted_bytes(), BYTES_TOLERANCE))


@dataclass(frozen=True)
class Checked:
    """A case that declares its counts, with its checks."""
    case: Case
    atomics: Check
    read: Check

    @property
    def checks(self):
        return self.atomics, self.read


def checked_cases(counted):
    """[Checked] of every case that declares its counts, under every toolchain, in the profile's order."""
    return [Checked(c, *checks(c)) for c in counted.cases if c.c.get("declared")]


def compared(checked, toolchain):
    """The Checked of the declared-against-counted table, in the profile's order."""
    return [k for k in checked if k.case["toolchain"] == toolchain and k.case["set"] in COMPARED_SETS]


def failures(checked):
    """(case, check) of every declaration of `checked` that disagrees with its counter."""
    return [(k.case, check) for k in checked for check in k.checks if check.status == DISAGREES]


@dataclass(frozen=True)
class KernelChecks:
    """One kernel's compared cases: a row of the summary table."""
    label: str
    first: Checked      # its case at the lesson's size (else its first), whose counts are shown
    decided: int        # its checks decided, over every case
    failed: int         # of those, the ones that disagree
    lesson: bool        # one of the lesson's kernels (LESSON_ROLES)

    @property
    def agrees(self):
        """At least one check decided, and none disagrees."""
        return bool(self.decided) and not self.failed


def kernel_checks(compared_cases):
    """[KernelChecks] of the compared Checked, a kernel each, in the order first profiled."""
    by_label = {}
    for k in compared_cases:
        by_label.setdefault(k.case.label, []).append(k)
    found = []
    for label, group in by_label.items():
        checked = [check for k in group for check in k.checks]
        decided = sum(check.decided for check in checked)
        failed = sum(check.status == DISAGREES for check in checked)
        found.append(KernelChecks(label, next((k for k in group if k.case["set"] == "lesson"), group[0]), decided,
                                  failed, any(set(LESSON_ROLES) & set(k.case.roles) for k in group)))
    return found


# ---- model 2: claim C1, by the counter ----

@dataclass(frozen=True)
class C1:
    by_arithmetic: str
    by_counter: str
    figures: str


def _with_role(cases, role):
    return [c for c in cases if role in c.roles]


def c1(counted, toolchain):
    """Holds if, on every input profiled at the lesson's size, the baseline makes one global atomic update per
    input byte and the privatized kernel exactly blocks x 256: by the declared counts (arithmetic) and by the
    counted ones (bytes of global reductions and atomics over the counter width), each within its tolerance."""
    cases = [c for c in counted.cases if c["toolchain"] == toolchain and c["set"] == "lesson"]
    base, priv = _with_role(cases, "baseline"), _with_role(cases, "privatized")
    if not base or not priv:
        why = "no baseline and privatized kernels among the profiled cases (their roles unknown without " \
              "data/registry.json)"
        return C1(UNMEASURABLE, UNMEASURABLE, why)
    want = [(c, c["size"]) for c in base] + [(c, c["policy"]["grid"] * BINS) for c in priv]
    declared = [(c, w, c.declared("global_atomics")) for c, w in want]
    counts = [(c, w, c.counted_atomics(), c.atomic_lanes()) for c, w in want]
    arithmetic = HOLDS if all(d == w for _, w, d in declared) else FAILS
    by_counter = UNMEASURABLE if any(lo is None or hi is None for _, _, lo, hi in counts) else \
        HOLDS if all(lo <= w <= hi for _, w, lo, hi in counts) else FAILS
    p = priv[0]
    n_priv = p.counted_atomics()
    figures = (f"{p['impl']} at {p['size']:,} bytes, grid {p['policy']['grid']:,}: declared "
               f"{fmt.count(p.declared('global_atomics'))}, counted {fmt.count(n_priv)} "
               f"= {p['policy']['grid']:,} x {BINS} on {len(priv)} inputs" if n_priv is not None else
               f"{p['impl']}: declared {fmt.count(p.declared('global_atomics'))}; no count "
               f"({_why_missing(counted, (RED_BYTES, ATOM_BYTES))})")
    b = base[0]
    if b.counted_atomics() is not None:
        figures += f"; {b['impl']} counted {fmt.count(b.counted_atomics())} for {b['size']:,} bytes"
    return C1(arithmetic, by_counter, figures)


def _why_missing(counted, metrics):
    missing = counted.missing()
    found = [f"{m}: {missing[m]}" for m in metrics if m in missing]
    return "; ".join(found) if found else "the counter gave no value"


# ---- model 3: bank conflicts, uniform against one byte ----

def conflict_cases(counted, toolchain):
    """{(label, size): {input: case}} of the kernels that make shared-memory atomics, on the lesson's easy and
    hard inputs, found by their counters (shared atomic instructions > 0)."""
    found = {}
    for c in counted.cases:
        if c["toolchain"] == toolchain and c["set"] in COMPARED_SETS and c["input"] in CONFLICT_INPUTS \
                and (c.run(SHARED_INST) or 0) > 0:
            found.setdefault((c.label, c["size"]), {})[c["input"]] = c
    return {k: v for k, v in found.items() if len(v) == len(CONFLICT_INPUTS)}


@dataclass(frozen=True)
class Conflict:
    """A kernel with shared-memory atomics at one size, on the easy input and on the hard one (CONFLICT_INPUTS)."""
    label: str
    size: int
    cases: tuple          # (its case on the easy input, on the hard one)
    per_byte: tuple       # bank conflicts per input byte on each, or None
    per_atomic: tuple     # wavefronts per warp-level shared atomic on each, or None
    time_ratio: object    # the easy input's time over the hard one's, or None
    lesson: bool          # the lesson's kernel or one of its one-pass rivals

    @property
    def measured(self):
        return None not in self.per_byte + self.per_atomic


@dataclass(frozen=True)
class Conflicts:
    """A toolchain's bank conflicts, the easy input against the hard one."""
    cases: list           # [Conflict] of every kernel found: the table's rows
    shown: list           # [Conflict] the prose tells: the measured ones, the lesson's where any of those is measured
    reverses_the_lesson: bool   # the easy input meets the conflicts, not the hard one
    slower: list          # [Conflict] of those shown whose input with the conflicts is the slower one
    level: list           # [Conflict] of those shown whose inputs take the same time, the conflicts differing


def conflict(label, size, by_input):
    """The Conflict of a kernel at one size, of its cases {input: case}."""
    cases = tuple(by_input[i] for i in CONFLICT_INPUTS)
    easy, hard = cases
    lesson_roles = {"privatized", "contender"}  # the lesson's kernel and its one-pass rivals
    return Conflict(label, size, cases, tuple(c.per_byte(SHARED_CONFLICTS) for c in cases),
                    tuple(c.per_instruction(SHARED_WAVEFRONTS) for c in cases), _ratio(easy.ms(), hard.ms()),
                    any(lesson_roles & set(c.roles) and c.passes == 1 for c in cases))


def bank_conflicts(counted, toolchain):
    """The Conflicts of a toolchain's kernels with shared-memory atomics."""
    found = [conflict(label, size, by) for (label, size), by in conflict_cases(counted, toolchain).items()]
    measured = [c for c in found if c.measured]
    shown = [c for c in measured if c.lesson] or measured
    apart = [c for c in shown if c.per_byte[0] > 2 * c.per_byte[1]]   # the easy input's over twice the hard one's
    return Conflicts(found, shown, bool(apart) and all(c.per_byte[0] >= c.per_byte[1] for c in shown),
                     [c for c in apart if c.time_ratio and c.time_ratio > 1 + LEVEL],
                     [c for c in apart if c.time_ratio and abs(c.time_ratio - 1) <= LEVEL])


# ---- model 4: the bins' placement ----

@dataclass(frozen=True)
class Mover:
    words: str
    show: object               # the value as a table cell
    fastest: float
    slowest: float
    moves: bool
    r: object                  # Pearson r with the time over every offset, or None


@dataclass(frozen=True)
class Placement:
    impl: str
    input: str
    by_offset: dict            # {offset: Case}
    fastest: int
    slowest: int
    values: dict               # {offset: (each of PLACEMENT_COUNTERS' values, or None)}
    movers: list               # [Mover]

    def ms(self, offset):
        return self.by_offset[offset].ms()

    @property
    def follows(self):
        """A counter that moves follows the time over every offset (|r| >= FOLLOWS)."""
        return any(m.moves and m.r is not None and abs(m.r) >= FOLLOWS for m in self.movers)


def _busiest_share(case):
    total, top = case.run(L2_RED_SECTORS), case.main_kernel(L2_RED_SECTORS_MAX)
    return top / total if total and top is not None else None


def _atomic_unit_busy(case):
    busy, cycles = case.main_kernel(ATOMIC_BUSY_MAX), case.main_kernel(L2_CYCLES)
    return busy / cycles if busy is not None and cycles else None


def _share(fraction):
    return fmt.pct(_pct(fraction))


# (what it is, its value for a case, the summed counter whose run-to-run spread is its noise, its cell, its column
# in the placement table or None)
PLACEMENT_COUNTERS = (
    ("reduction requests reaching L2", lambda c: c.run(L2_RED_REQUESTS), L2_RED_REQUESTS, _n, "L2 reduction requests"),
    ("reduction sectors at L2", lambda c: c.run(L2_RED_SECTORS), L2_RED_SECTORS, _n, "sectors"),
    ("the busiest L2 slice's share of the reduction sectors", _busiest_share, L2_RED_SECTORS, _share,
     "busiest slice's share"),
    ("the busiest slice's atomic unit busy", _atomic_unit_busy, L2_RED_REQUESTS, _share, "its atomic unit busy"),
    ("requests crossing between the L2 partitions", lambda c: c.run(FABRIC), FABRIC, _n, "requests across partitions"),
    ("DRAM bytes written", lambda c: c.run(DRAM_WRITE), DRAM_WRITE, _n, None),
)


def _pearson(xs, ys):
    pairs = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    if len(pairs) < 3 or len({x for x, _ in pairs}) < 2 or len({y for _, y in pairs}) < 2:
        return None
    return statistics.correlation([x for x, _ in pairs], [y for _, y in pairs])


def placement(counted, toolchain):
    """The placement set's cases at every offset profiled, the fastest and slowest offset by the counted kernel
    time, and for each counter whether it moves with the offset beyond the runs' own spread."""
    series = {}
    for c in counted.cases:
        if c["toolchain"] == toolchain and c["set"] == "placement" and c.ms():
            series.setdefault((c["impl"], c["input"]), {})[c["bins_offset"]] = c
    if not series:
        return None
    (impl, input), by_offset = max(series.items(), key=lambda item: len(item[1]))  # the floor has one offset
    if len(by_offset) < 2:
        return None
    fastest = min(by_offset, key=lambda o: by_offset[o].ms())
    slowest = max(by_offset, key=lambda o: by_offset[o].ms())
    offsets = sorted(by_offset)
    values = {o: tuple(value(by_offset[o]) for _, value, _, _, _ in PLACEMENT_COUNTERS) for o in offsets}
    times = [by_offset[o].ms() for o in offsets]
    movers = []
    for n, (words, _, metric, show, _) in enumerate(PLACEMENT_COUNTERS):
        a, b = values[fastest][n], values[slowest][n]
        if a is None or b is None:
            continue
        noise = max((by_offset[o].spread(metric) or 0) for o in (fastest, slowest))
        differs = abs(a - b) / max(abs(a), abs(b)) if max(abs(a), abs(b)) else 0.0
        r = _pearson([values[o][n] for o in offsets], times)
        movers.append(Mover(words, show, a, b, differs > max(MOVES, NOISE_FACTOR * noise), r))
    return Placement(impl, input, by_offset, fastest, slowest, values, movers)


# ---- model 5: partitioned, bytes read per pass ----

@dataclass(frozen=True)
class Pass:
    """One pass count of a partitioned kernel: what its run reads and takes, in all and per pass."""
    passes: int
    case: Case
    declared: object        # bytes read declared (P x N), or None
    read: object            # bytes read counted, or None
    per_pass: object        # those over the passes, or None
    per_input: object       # per pass over the input's size (1: each pass reads the input once), or None
    dram_per_pass: object   # DRAM bytes read per pass, or None
    ms_per_pass: object     # the run's time per pass, or None


@dataclass(frozen=True)
class PassSeries:
    """An implementation on one input and size, profiled at two or more pass counts."""
    impl: str
    input: str
    size: int
    passes: list            # [Pass], fewest passes first


def per_pass(passes, case):
    """The Pass of a case run at `passes` passes."""
    read = case.counted_bytes()
    return Pass(passes, case, case.declared("bytes_read"), read, _ratio(read, passes),
                _ratio(_ratio(read, passes), case["size"]), _ratio(case.run(DRAM_READ), passes),
                _ratio(case.ms(), passes))


def pass_series(counted, toolchain):
    """[PassSeries] of every implementation profiled at two or more pass counts."""
    found = {}
    for c in counted.cases:
        if c["toolchain"] == toolchain and c["set"] in COMPARED_SETS:
            found.setdefault((c["impl"], c["input"], c["size"]), {})[c.passes] = c
    return [PassSeries(impl, input, size, [per_pass(p, by[p]) for p in sorted(by)])
            for (impl, input, size), by in found.items() if len(by) >= 2]


def each_pass_reads_the_input(series):
    """Every pass counted reads the input once, within BYTES_TOLERANCE."""
    return all(abs(p.per_input - 1) <= BYTES_TOLERANCE for s in series for p in s.passes if p.per_input is not None)


# ---- a profile's model: every model above, computed once ----

@dataclass(frozen=True)
class Toolchain:
    """What a profile's cases under one toolchain show."""
    name: str
    compared: list          # [Checked] of the declared-against-counted table
    kernels: list           # [KernelChecks]: those, a kernel each
    c1: C1
    conflicts: Conflicts
    placement: object       # Placement, or None
    passes: list            # [PassSeries]
    each_pass_reads_the_input: bool


@dataclass(frozen=True)
class CountersGpu:
    """One GPU's profile and everything its report shows."""
    counted: Counted
    failures: list          # [(Case, Check)] of those that disagree with their counters
    decided: list           # [Check] of those that agree or disagree (the others not counted or not declared)
    toolchains: list        # [Toolchain], in the profile's order


def toolchain_model(counted, checked, toolchain):
    """The Toolchain of a profile's cases under `toolchain`; checked: the profile's Checked."""
    found = compared(checked, toolchain)
    series = pass_series(counted, toolchain)
    return Toolchain(toolchain, found, kernel_checks(found), c1(counted, toolchain),
                     bank_conflicts(counted, toolchain), placement(counted, toolchain), series,
                     each_pass_reads_the_input(series))


def gpu_model(counted):
    """The CountersGpu of a profile: its checks and findings, before any rendering."""
    checked = checked_cases(counted)
    return CountersGpu(counted, failures(checked), [k for c in checked for k in c.checks if k.decided],
                       [toolchain_model(counted, checked, tc) for tc in counted.toolchains()])


def study_model(study):
    """[CountersGpu] of the Study's profiles that hold cases: the newest of each GPU."""
    return [gpu_model(c) for c in study.counted if c.cases]


# ---- tables ----

def _skipped(counted, metrics):
    """'-' for a value the profile does not have; 'skipped' where a metric was not collected."""
    return "skipped" if any(m in counted.missing() for m in metrics) else fmt.MISSING


def _cell(counted, value, metrics, show=_n):
    return show(value) if value is not None else _skipped(counted, metrics)


def _check_cell(check):
    if check.status == DISAGREES:
        off = check.off
        return f"DISAGREES ({off:+.2%})" if check.declared else f"DISAGREES ({fmt.count(round(off))} counted)"
    return check.status


def tolerance_note():
    return ("Check: a declared count of global atomics agrees when it lies between the two counts that bound it: "
            "the addresses the warps' atomic instructions update (the SM merges a warp's lanes that update one "
            f"address) and {WARP} lanes for each such instruction; bytes read agree within {BYTES_TOLERANCE:.0%} "
            f"(the counter sees whole {SECTOR_BYTES}-byte sectors and what a kernel reads beside its input). A "
            "declaration outside fails the check (DISAGREES).")


def counted_words():
    return (f"Counted global atomics: the bytes the global reductions and atomics move "
            f"(`{RED_BYTES}`, `{ATOM_BYTES}`) over the counter width, at most {WARP} x the warp instructions "
            f"(`{GLOBAL_RED_INST}`, `{GLOBAL_ATOM_INST}`); L2 requests: `{L2_RED_REQUESTS}` + "
            f"`{L2_ATOM_REQUESTS}` (the L1 merges a warp's updates to one sector into one request); counted bytes "
            f"read: the {SECTOR_BYTES}-byte L2 sectors the SMs read (`{L2_READ}`); DRAM: `{DRAM_READ}`, after the "
            "profiler flushed the caches. Per run: summed over its launches, the median of the case's runs.")


def missing_note(counted):
    missing = counted.missing()
    return ("Not collected (their columns are skipped): " + "; ".join(f"`{m}` ({why})" for m, why in missing.items())
            + ".") if missing else ""


def declared_table(counted, toolchain):
    """Every compared case of a Toolchain, its declared counts beside the counted ones."""
    rows = []
    for k in toolchain.compared:
        c, atomics, read = k.case, k.atomics, k.read
        rows.append([c.label, c["input"], fmt.count(c["size"]), fmt.count(atomics.declared),
                     _cell(counted, atomics.counted, (RED_BYTES, ATOM_BYTES)),
                     _cell(counted, c.l2_requests(), (L2_RED_REQUESTS, L2_ATOM_REQUESTS)), _check_cell(atomics),
                     fmt.count(read.declared), _cell(counted, read.counted, (L2_READ,)),
                     _cell(counted, c.run(DRAM_READ), (DRAM_READ,)), _check_cell(read),
                     _cell(counted, c.ms(), (TIME,), fmt.ms),
                     _cell(counted, c.main_kernel(OCCUPANCY), (OCCUPANCY,), fmt.pct)])
    notes = [counted_words(), tolerance_note(),
             "Occupancy: achieved, the run's longest kernel (`sm__warps_active` over its peak); ms: the kernels' "
             "durations summed over a run, under the profiler."]
    notes += [n for n in (missing_note(counted),) if n]
    return Table(f"Declared against counted, {toolchain.name}: every implementation", [
        "kernel", "input", "bytes", "atomics declared", "counted", "L2 requests", "check", "bytes read declared",
        "counted", "DRAM read", "check", "ms", "occupancy"], rows, notes, align="ll" + "r" * 11)


def _verdict_cell(kernel):
    if kernel.agrees:
        return f"agrees in {kernel.decided} of {kernel.decided}"
    return f"DISAGREES in {kernel.failed} of {kernel.decided}" if kernel.failed else "not decided"


def summary_table(counted, toolchain):
    """One row per kernel at the lesson's size on its first input, the checks over every case of the kernel."""
    rows = []
    for k in toolchain.kernels:
        atomics, read = k.first.atomics, k.first.read
        rows.append([k.label, fmt.count(atomics.declared), _cell(counted, atomics.counted, (RED_BYTES, ATOM_BYTES)),
                     fmt.count(read.declared), _cell(counted, read.counted, (L2_READ,)),
                     _cell(counted, k.first.case.ms(), (TIME,), fmt.ms), _verdict_cell(k)])
    notes = [counts_note(toolchain.compared, "ms: its kernels' durations under the profiler, clocks left alone; ")] \
        + [n for n in (missing_note(counted),) if n]
    return Table(f"Declared against counted ({toolchain.name}, {counted.gpu().get('name', 'the GPU')})",
                 ["kernel", "global atomics declared", "counted", "bytes read declared", "counted", "ms", "check"],
                 rows, notes)


def where_counted(cases, ms_words=""):
    """Which case the counts are of, and what the check covers; cases: [Checked]."""
    first = cases[0].case if cases else None
    where = f"{first['input']} at {first['size']:,} bytes" if first else "no case"
    return (f"Counts of one run on {where}; {ms_words}the check over every input and size profiled ({len(cases)} "
            "cases).")


def counts_note(cases, ms_words=""):
    """where_counted, with the check's rule."""
    return f"{where_counted(cases, ms_words)} {tolerance_note()}"


def conflicts_table(counted, toolchain):
    rows = [[x.label, fmt.size_words(x.size)]
            + [_cell(counted, v, (SHARED_CONFLICTS,), lambda v: f"{v:.4f}") for v in x.per_byte]
            + [_cell(counted, v, (SHARED_WAVEFRONTS,), lambda v: f"{v:.2f}") for v in x.per_atomic]
            + [_cell(counted, c.ms(), (TIME,), fmt.ms) for c in x.cases] + [fmt.ratio(x.time_ratio, 2)]
            for x in toolchain.conflicts.cases]
    a, b = CONFLICT_INPUTS
    return Table(f"Shared-memory bank conflicts, {a} against {b} ({toolchain.name})",
                 ["kernel", "size", f"conflicts/byte {a}", b, f"wavefronts/atomic {a}", b, f"ms {a}", b,
                  f"time {a}/{b}"], rows,
                 [f"Conflicts: `{SHARED_CONFLICTS}` per input byte; wavefronts/atomic: `{SHARED_WAVEFRONTS}` per "
                  f"warp-level shared atomic (`{SHARED_INST}`): 1 when a warp's 32 updates are served at once. "
                  "Every kernel whose counters show shared-memory atomics."], align="ll" + "r" * 7)


def placement_table(model, toolchain):
    """A Placement's offsets, each with its time and the counters that have a column (PLACEMENT_COUNTERS)."""
    columns = [(n, show, column) for n, (_, _, _, show, column) in enumerate(PLACEMENT_COUNTERS) if column]
    rows = [[f"{o:,}", fmt.ms(model.ms(o))] + [show(values[n]) for n, show, _ in columns]
            for o, values in model.values.items()]
    return Table(f"{model.impl} on {model.input} bytes at each bins offset ({toolchain})",
                 ["bins offset (bytes past 2 MiB)", "ms"] + [column for _, _, column in columns], rows,
                 [f"Busiest slice's share: `{L2_RED_SECTORS_MAX}` over the sum; its atomic unit busy: "
                  f"`{ATOMIC_BUSY_MAX}` over `{L2_CYCLES}`; across partitions: `{FABRIC}` (every kind of request)."])


def passes_table(series):
    """Each pass count of [PassSeries]: the bytes read, in all and per pass, and the time."""
    rows = [[f"{s.impl} P={p.passes}", s.input, fmt.size_words(s.size), fmt.count(p.declared), _n(p.read),
             _n(p.per_pass), fmt.ratio(p.per_input, 3), _n(p.dram_per_pass), fmt.ms(p.case.ms()),
             fmt.ms(p.ms_per_pass)] for s in series for p in s.passes]
    return Table("Bytes read per pass", ["kernel", "input", "size", "declared (P x N)", "counted", "per pass",
                                         "per pass / N", "DRAM read per pass", "ms", "ms per pass"], rows,
                 ["Counted: the L2 sectors the SMs read, 32 bytes each, over the run's P launches; DRAM: the profiler "
                  "flushes the caches before each profiled kernel, so each pass starts cold."], align="lll" + "r" * 7)


# ---- prose ----

def intro(counted):
    doc, gpu = counted.doc, counted.gpu()
    driver = ((doc.get("environment") or {}).get("driver") or {}).get("driver_version", "not recorded")
    commit = (doc.get("provenance") or {}).get("git_commit") or "not recorded"
    runs = {c.c.get("runs") for c in counted.cases if c.c.get("runs")}
    passes = sorted({p for i in doc["invocations"] for p in i.get("passes", [])})
    return (f"In `{counted.path}`, Nsight Compute {doc['profiler']['version']} profiled every case on "
            f"{gpu.get('name', 'a GPU')} (driver {driver}, histostudy at {commit[:12]}), clocks left alone and "
            f"the caches flushed before each profiled kernel; each case ran {'/'.join(map(str, sorted(runs)))} "
            f"times (its check and one sample), each kernel replayed in {'/'.join(map(str, passes)) or '?'} "
            "passes. The counts are the hardware's; the declared ones are the study's arithmetic "
            "(study/driver/registry.cpp) as the profiled run's result rows state them.")


def checks_prose(gpu):
    """A CountersGpu's checks in a paragraph: how many agree, and the failing ones."""
    failed, decided = gpu.failures, gpu.decided
    if not decided:
        return "No declaration could be checked: " + (_why_missing(gpu.counted, (RED_BYTES, L2_READ)) + ".")
    text = (f"Of {len(decided)} declarations checked (global atomics and bytes read, every case and toolchain), "
            f"{len(decided) - len(failed)} agree with their counters.")
    if failed:
        text += " **Failing:** " + "; ".join(
            f"{c.label} on {c['input']} at {c['size']:,} bytes ({c['toolchain']}): {k.what} declared "
            f"{fmt.count(k.declared)}, counted {_n(k.counted)}" for c, k in failed[:6]) + \
            (f"; and {len(failed) - 6} more" if len(failed) > 6 else "") + "."
    return text


def c1_prose(toolchain):
    claim = toolchain.c1
    return (f"**C1** (privatization cuts global atomic updates by exactly blocks x bins), {toolchain.name}: by "
            f"arithmetic, {claim.by_arithmetic}; by the counter, {claim.by_counter} ({claim.figures}).")


def conflicts_prose(counted, toolchain):
    """A Toolchain's bank conflicts in a paragraph, easy input against hard."""
    found = toolchain.conflicts
    if not found.cases:
        return (f"Bank conflicts: no kernel with shared-memory atomics was profiled on both {CONFLICT_INPUTS[0]} and "
                f"{CONFLICT_INPUTS[1]}" + (f" ({_why_missing(counted, (SHARED_INST,))})" if SHARED_INST in
                                         counted.missing() else "") + ".")
    if not found.shown:
        return f"Bank conflicts: {_why_missing(counted, (SHARED_CONFLICTS, SHARED_WAVEFRONTS))}."
    a, b = CONFLICT_INPUTS
    text = ("Why the input changes a shared-memory histogram: " + "; ".join(
        f"{x.label} at {fmt.size_words(x.size)} meets {x.per_byte[0]:.4f} bank conflicts per byte on {a} and "
        f"{x.per_byte[1]:.4f} on {b}, its warps' shared atomics taking {x.per_atomic[0]:.2f} and "
        f"{x.per_atomic[1]:.2f} wavefronts each" for x in found.shown) + ". A warp whose lanes all update one address "
        f"is served in one pass; lanes spread over {BINS} bins collide in the banks.")
    if found.reverses_the_lesson:
        text += (f" The lesson's story makes {b} the hard input, every thread contending for one counter; for shared "
                 f"memory these counters show the reverse: the bank conflicts are {a}'s.")
    if found.slower:
        text += (" The input with the conflicts is the slower one for " + ", ".join(
            f"{x.label} at {fmt.size_words(x.size)} ({fmt.ratio(x.time_ratio, 2)})" for x in found.slower)
            + ": the counters agree with the explanation that conflicts, not contention for one counter, set the "
              "time (a correlation the counters show, not a proof).")
    if found.level:
        text += (f" Both inputs take the same time (within {LEVEL:.0%}) for "
                 + fmt.and_list([f"{x.label} at {fmt.size_words(x.size)}" for x in found.level])
                 + ", although the conflicts differ: there they are hidden behind another limit, which these "
                   "counters do not name.")
    return text


def placement_prose(model):
    if model is None:
        return "The bins' placement: no profile of one kernel at two or more bins offsets."
    f, s = model.fastest, model.slowest
    text = (f"{model.impl} on {model.input} bytes takes {fmt.ms(model.ms(f))} ms under the "
            f"profiler with the bins {f:,} bytes past a 2 MiB boundary (fastest of {len(model.by_offset)} offsets) "
            f"and {fmt.ms(model.ms(s))} ms at {s:,} (slowest).")
    moved = [m for m in model.movers if m.moves]
    steady = [m for m in model.movers if not m.moves]
    if moved:
        text += " Counters that move with the offset: " + "; ".join(
            f"{m.words}, {m.show(m.fastest)} at {f:,} against {m.show(m.slowest)} at {s:,}"
            + (f" (r = {m.r:.2f} with the time over every offset)" if m.r is not None else "") for m in moved) + "."
    if steady:
        text += " Unchanged within the runs' spread: " + ", ".join(m.words for m in steady) + "."
    if model.follows:
        text += (" So the offset changes how the L2 serves the reductions, as the counters above show; that this "
                 "sets the time is a correlation over the offsets, not a proof.")
    else:
        text += (" No counter collected follows the time over the offsets: the counters do not show the mechanism, "
                 "and any explanation of the placement effect stays conjecture.")
    return text


def passes_prose(counted, toolchain):
    """A Toolchain's partitioned passes in a paragraph: the bytes each pass reads, over the input."""
    if not toolchain.passes:
        return "Bytes read per pass: no implementation was profiled at two or more pass counts."
    parts = [f"{s.impl} on {s.input} at {fmt.size_words(s.size)} reads "
             f"{fmt.value_range([p.per_input for p in s.passes], 3, 'x')} the input per pass at "
             f"P = {', '.join(str(p.passes) for p in s.passes)}"
             for s in toolchain.passes if any(p.per_input is not None for p in s.passes)]
    if not parts:
        return f"Bytes read per pass: {_why_missing(counted, (L2_READ,))}."
    return ("Partitioned passes, counted: " + "; ".join(parts) + "." + (
        " Each pass reads the whole input again: the declared P x N bytes is what the SMs fetch."
        if toolchain.each_pass_reads_the_input else
        f" Some pass reads more or less than the input (beyond {BYTES_TOLERANCE:.0%}): the declared P x N is not "
        "what the SMs fetch there."))


# ---- the paper ----

def report_blocks(gpu, back=(), level=1):
    """The report of a CountersGpu; `back`: blocks under its title (the paper's link back to the appendix); level 2:
    a further GPU's part of the paper's report, titled by its GPU."""
    counted = gpu.counted
    title = "Counted, not declared: the hardware counters" if level == 1 else counted.gpu().get("name", "Another GPU")
    blocks = [Heading(title, level), *back, Para(intro(counted)), Para(checks_prose(gpu))]
    for tc in gpu.toolchains:
        blocks += [Heading(tc.name, level + 1), Para(c1_prose(tc)), TableBlock(declared_table(counted, tc)),
                   Heading("Bank conflicts", level + 2), Para(conflicts_prose(counted, tc)),
                   TableBlock(conflicts_table(counted, tc)), Heading("Where the bins lie", level + 2),
                   Para(placement_prose(tc.placement))]
        if tc.placement:
            blocks.append(TableBlock(placement_table(tc.placement, tc.name)))
        blocks += [Heading("Bytes read per pass", level + 2), Para(passes_prose(counted, tc))]
        if tc.passes:
            blocks.append(TableBlock(passes_table(tc.passes)))
    return blocks


def brief_blocks(gpu):
    """What a terminal needs after a collection: the checks, C1, the summary table, the three findings."""
    counted, tc = gpu.counted, gpu.toolchains[0]
    return [Para(intro(counted)), Para(checks_prose(gpu)), Para(c1_prose(tc)), TableBlock(summary_table(counted, tc)),
            Para(conflicts_prose(counted, tc)), Para(placement_prose(tc.placement)), Para(passes_prose(counted, tc))]


def compact_table(gpus):
    """The appendix's table of [CountersGpu]: the lesson's kernels' declared global atomics and bytes read beside
    what the counters saw (and every kernel's whose check does not agree), a value once where every profiled GPU saw
    the same and each GPU's, named, where not; the check over every case."""
    def name(g):
        return g.counted.gpu().get("name", "the GPU")

    by_gpu = [(name(g), {row[0]: row for row in summary_table(g.counted, g.toolchains[0]).rows}) for g in gpus]
    labels = list(dict.fromkeys(label for _, rows in by_gpu for label in rows))
    kernels = [k for g in gpus for k in g.toolchains[0].kernels]
    disagreeing = {k.label for k in kernels if not k.agrees}   # on any GPU

    def once(label, column):
        """The value once where every GPU has the same; each GPU's, named, where they differ."""
        values = {gpu: rows[label][column] for gpu, rows in by_gpu if label in rows}
        return next(iter(values.values())) if len(set(values.values())) == 1 else \
            "; ".join(f"{value} ({gpu})" for gpu, value in values.items())

    lesson = {k.label for k in kernels if k.lesson}
    shown = [label for label in labels if label in lesson or label in disagreeing]
    rows = [[label, once(label, 1), once(label, 2), once(label, 3), once(label, 6)] for label in shown]
    said = {}
    for g in gpus:
        for note in (where_counted(g.toolchains[0].compared), missing_note(g.counted)):
            if note:
                said.setdefault(note, []).append(name(g))
    notes = [f"{fmt.and_list(named)}: {note}" if len(gpus) > 1 else note for note, named in said.items()]
    notes.append(f"Check: declared global atomics lie between the counters' two bounds (the addresses updated, and "
                 f"{WARP} lanes an instruction), bytes read within {BYTES_TOLERANCE:.0%}. Shown: the lesson's kernels "
                 f"and any check not agreeing ({fmt.plural(len(labels) - len(shown), 'other kernel')} agree). Every "
                 "kernel, the rule in full, the bytes counted and each kernel's time: the counters report.")
    toolchains = ", ".join(dict.fromkeys(g.toolchains[0].name for g in gpus))
    return Table(f"Declared against counted ({toolchains}, {fmt.and_list([gpu for gpu, _ in by_gpu])})",
                 ["kernel", "global atomics declared", "counted", "bytes read declared", "check"], rows, notes,
                 align="lrrrl")


def counters_section(m):
    """The appendix's part: the checks and C1 by the counter in a paragraph (once for the GPUs where they read the
    same); the declared counts beside each GPU's counted ones for every implementation in one table; nothing
    without a profile."""
    profiled = m.of(REPORT)
    if not profiled:
        return []
    said = {}
    for g in profiled:
        said.setdefault(checks_prose(g), []).append(g.counted.gpu().get("name", "a GPU"))
    prose = " ".join(f"On {fmt.and_list(gpus)}: {text}" if len(profiled) > 1 else text for text, gpus in said.items())
    table = compact_table(profiled)
    return [Heading("Counted, not declared", 3),
            Para(f"{prose} C1 by the counter, the bank conflicts, the bins' placement and the partitioned passes: [the "
                 f"counters report](reports/{REPORT}.md)."),
            TableBlock(table, "counters", wide=True)]


def counters_report(m):
    """The counters report, a part per profiled GPU; [] without a profile."""
    back = (Para("Part of [the appendix](../appendix.md)."),)
    return [b for n, g in enumerate(m.of(REPORT))
            for b in report_blocks(g, back if n == 0 else (), level=1 if n == 0 else 2)]


PART = Part(REPORT, section=counters_section, report=counters_report, model=study_model)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m plots.counters", description=__doc__.split("\n")[0])
    parser.add_argument("profile", nargs="?", help="a profile file (default: the newest in data/profiles/)")
    parser.add_argument("--registry", default=str(REPO / "data" / "registry.json"),
                        help="the implementations' roles (default: data/registry.json)")
    parser.add_argument("--text", action="store_true", help="tables as aligned text, for a terminal")
    parser.add_argument("--brief", action="store_true", help="the checks, C1, one table and the three findings")
    args = parser.parse_args(argv)
    try:
        counted = read(args.profile, args.profile, args.registry) if args.profile else \
            load(REPO / "data" / "profiles", "data/profiles/", args.registry)
    except ResultError as e:
        print(f"counters: {e}", file=sys.stderr)
        return 1
    if counted is None:
        print("counters: no profile in data/profiles/ (make one on a GPU with ./dev profile)", file=sys.stderr)
        return 1
    gpu = gpu_model(counted)
    blocks = brief_blocks(gpu) if args.brief and counted.cases else report_blocks(gpu)
    if args.text:
        out = "\n".join(b.table.text() if isinstance(b, TableBlock) else getattr(b, "text", "") for b in blocks)
    else:
        out = markdown(blocks)
    output.write_stdout(out + "\n")
    failed = gpu.failures
    if failed:
        print(f"counters: {len(failed)} declarations disagree with their counters", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(cli.guarded("counters", main))
