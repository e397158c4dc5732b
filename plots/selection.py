"""Which runs feed which report: the one place that decides.

The paper is built from exactly the runs that data/paper-runs.csv names
(columns file, role, reason; one line per run and role, files relative to
data/runs/). Every other file in data/runs/ is kept and ignored, so a new
run there, or a user's own runs (`./dev study` writes them to runs/),
changes nothing until a line of the manifest names it. data/runs/superseded.csv
(file, reason) records why earlier runs are out; the manifest may not name
one of them.

Roles, and what a run must hold to take one (checked, so the manifest cannot
name a run that does not fit):

  lesson      GPU lesson rows: the lesson table, the subject at the lesson's size
  versions    GPU lesson rows of two CUDA versions: the version comparison, one run a line, in order
  sweep       GPU sweep rows: the contention sweep
  placement   GPU placement rows: where the bins lie
  hot, cold   GPU rows sampled hot; GPU rows sampled cold holding some of the hot run's cases
  perf        GPU perf rows: performance at 1 GiB
  sizes       GPU sizes rows: the subject and the peer beside the read floor from 1 MiB to 4 GiB
  blocks      GPU blocks rows: the block-size claim
  cpu         CPU rows, one run per CPU: the CPU performance report
  series      CPU rows of the CPU's subject, one of a series of runs on one machine: a line each in the CPU
              report's table of that machine's runs (beside its cpu runs; a machine with one run has no such
              table), and no CPU tables of its own; like every run named, it is in the environments and the
              claims audit
  history     three or more NVRTC releases' modules: the release history
  peers       library peer rows (tools/peers.py: torch.bincount, cupy.bincount on the perf and sizes cases): the
              performance report's peers, against the subject and floor of the perf and sizes runs of the same GPU;
              such a run holds no other role. Several of one GPU (a run a time limit stopped, then one of the cases
              it lacks) join into one table, so they must share a cache mode and library versions
  count       a count-bench file (count-bench/NAME.json: `histostudy count-bench`, plots/count_bench.py), one a
              line: count against its floor, the performance report's last table

The GPU roles (GPU_ROLES: all but cpu, series and count) are per GPU: a role takes one run per GPU (versions a run
a line per GPU; peers several, joined), so the paper shows every GPU the manifest names, in the order it first
names each. A GPU is its model as the run records it ("NVIDIA H200"; gpu_of), not a board: each call to a GPU
machine may get another board.

Every GPU run must carry the study's controls (results.is_controlled), and no
run may be incomplete (stopped on an error after measuring): such a run never
feeds the paper. The claims audit and the environments read every run named.

A Study is what the reports are built from: this selection, for a user's own
appendix the study's selection beside it, and the data beside the runs (the
published figures, the codegen audit). It says which runs feed each report
where that is more than one role's runs (the CPU runs of the performance
report, the GPUs of the lesson table); plots/models.py takes it from here.

A user's own appendix (plots/own_appendix.py) has no manifest: by_content
gives each role the newest of the user's runs that fits it (a GPU role's on
each GPU), and leaves out, saying why, the incomplete and the uncontrolled ones.
"""
import csv
import functools
import pathlib
from dataclasses import dataclass, field

from plots import count_bench
from plots.environment import cpu_name, gpu_name
from plots.results import (Kernel, ResultError, case_key, is_controlled, is_peers_run, is_timed, library_toolchains,
                           load_run, module_entry, primary_gpu_toolchain, registry_doc, run_order_key, version_pairs)

MANIFEST_FILE = "paper-runs.csv"
MANIFEST_COLUMNS = ("file", "role", "reason")
SUPERSEDED_FILE = "superseded.csv"
SUPERSEDED_COLUMNS = ("file", "reason")
NOT_YET = "not measured yet"


def cache_mode(run):
    """'hot' or 'cold' when every sampled GPU row of the run was sampled so; else None."""
    modes = {r["sampling"]["cache"] for r in run.rows if r["backend"] == "cuda" and r.get("sampling")}
    return modes.pop() if len(modes) == 1 else None


def gpu_cases(run):
    return {case_key(r) for r in run.rows if r["backend"] == "cuda"}


def is_version_run(run):
    return run.has_gpu_rows("lesson") and bool(version_pairs(run))


def is_matrix_run(run):
    """A run holding timed rows of three or more releases' modules: what the release history reads."""
    timed = {r["toolchain"] for r in run.rows if is_timed(r)}
    return len({module_entry(t)[0] for t in timed if module_entry(t)}) >= 3


CPU_EXPERIMENTS = ("lesson", "sweep", "custom")   # the CPU rows the CPU performance report reads
CPU_SUBJECT = Kernel("subject")


def has_cpu_rows(run, kernel=None):
    """Whether the run holds CPU rows (of `kernel`, a results.Kernel, where given)."""
    return any(r["backend"] == "cpu" and r["experiment"] in CPU_EXPERIMENTS and (kernel is None or kernel.picks(r))
               for r in run.rows)


# {role: (what a run of it holds, in words; the test)}, in the order reports list them.
ROLES = {
    "lesson": ("GPU lesson rows", lambda r: r.has_gpu_rows("lesson")),
    "versions": ("GPU lesson rows of two CUDA versions", is_version_run),
    "sweep": ("GPU sweep rows", lambda r: r.has_gpu_rows("sweep")),
    "placement": ("GPU placement rows", lambda r: r.has_gpu_rows("placement")),
    "hot": ("GPU rows sampled hot", lambda r: cache_mode(r) == "hot"),
    "cold": ("GPU rows sampled cold", lambda r: cache_mode(r) == "cold"),
    "perf": ("GPU perf rows", lambda r: r.has_gpu_rows("perf")),
    "sizes": ("GPU sizes rows", lambda r: r.has_gpu_rows("sizes")),
    "blocks": ("GPU blocks rows", lambda r: r.has_gpu_rows("blocks")),
    "cpu": ("CPU rows", has_cpu_rows),
    "series": ("CPU rows of the CPU's subject", lambda r: has_cpu_rows(r, CPU_SUBJECT)),
    "history": ("three or more NVRTC releases' modules (--toolchain modules:DIR)", is_matrix_run),
    "peers": ("library peer rows (tools/peers.py)", is_peers_run),
}


def declared_experiments():
    """The experiments data/registry.json declares (`histostudy list --json`): [{name, description, ...}]; [] where
    it declares none."""
    try:
        return list(registry_doc().get("experiments", []))
    except ResultError:
        return []   # no registry: only the roles above, and a manifest naming another is refused by name


def experiment_roles(declared):
    """{role: (words, test)} for each declared experiment that no role above reads (custom, what --impl, --input or
    --size alone run, aside): a role of its own name, its GPU rows. A new experiment's runs can so be named in the
    manifest with no line here."""
    return {e["name"]: (f"GPU {e['name']} rows", lambda r, name=e["name"]: r.has_gpu_rows(name))
            for e in declared if e["name"] not in ROLES and e["name"] != "custom"}


ROLES.update(experiment_roles(declared_experiments()))
PEERS = "peers"
BENCH_ROLE = count_bench.ROLE   # count-bench files: not runs of the study, so in Selection.benches, never in its roles
BENCH_WORDS = "count-bench results (histostudy count-bench FILE)"
GPU_ROLES = tuple(role for role in ROLES if role not in ("cpu", "series"))   # the roles a GPU's runs take
MANY_PER_GPU = ("versions", PEERS)   # the GPU roles that take several runs of one GPU; the others take one


def gpu_of(run):
    """The GPU a run's GPU rows ran on, by name ('NVIDIA H200'); None for a run without GPU rows."""
    toolchain = primary_gpu_toolchain(run)
    return gpu_name(run, toolchain) if toolchain else None


@dataclass
class Selection:
    roles: dict                                     # {role: [Run]}
    why: dict = field(default_factory=dict)         # {(run path, role): why the run has the role}
    left_out: dict = field(default_factory=dict)    # {run path: why it feeds nothing}
    source: str = MANIFEST_FILE                     # where the choice is written, for messages
    manifest: bool = True                           # chosen by a manifest, not by content
    benches: list = field(default_factory=list)     # [count_bench.Bench], in the manifest's order
    gpus: list = field(default_factory=list)        # the GPUs of its GPU roles' runs, in the manifest's order
    gpu: str = None                                 # the GPU of a selection of one GPU's runs (on_gpu)

    @property
    def runs(self):
        """Every run chosen, once, oldest first."""
        unique = {r.path: r for runs in self.roles.values() for r in runs}
        return sorted(unique.values(), key=lambda r: run_order_key(r.path))

    def first(self, role):
        return (self.roles.get(role) or [None])[0]

    lesson = property(lambda self: self.first("lesson"))
    sweep = property(lambda self: self.first("sweep"))
    placement = property(lambda self: self.first("placement"))
    hot = property(lambda self: self.first("hot"))
    cold = property(lambda self: self.first("cold"))
    perf = property(lambda self: self.first("perf"))
    sizes = property(lambda self: self.first("sizes"))
    history = property(lambda self: self.first("history"))
    versions = property(lambda self: self.roles.get("versions", []))
    cpu_runs = property(lambda self: self.roles.get("cpu", []))
    series_runs = property(lambda self: self.roles.get("series", []))
    peers_runs = property(lambda self: self.roles.get(PEERS, []))

    @property
    def gpu_study_runs(self):
        """The perf and sizes runs, whose subject and floor the peers are set against, once each."""
        return list({r.path: r for role in ("perf", "sizes") for r in self.roles.get(role, [])}.values())

    @property
    def subject_cpu_runs(self):
        """The CPU runs the performance report compares: those with CPU rows of the CPU's subject."""
        return [run for run in self.cpu_runs if has_cpu_rows(run, CPU_SUBJECT)]

    @property
    def other_cpu_runs(self):
        """The CPU runs the lesson report shows after the lesson runs: every one but a GPU's lesson run."""
        return [run for run in self.cpu_runs if run not in self.roles.get("lesson", [])]

    @property
    def version(self):
        """The version run the figure shows: the lesson run where it is one, else the first."""
        return self.lesson if self.lesson in self.versions else self.first("versions")

    def missing(self, role):
        """Why a report of `role` is empty, in one sentence."""
        what = BENCH_WORDS if role == BENCH_ROLE else ROLES[role][0]
        on = f" on {self.gpu}" if self.gpu else ""
        if self.manifest:
            return f"{NOT_YET}: {self.source} names no run{on} with {what}."
        return f"not measured in these runs: none of {self.source}{on} holds {what}."

    def on_gpu(self, gpu):
        """The selection of `gpu`'s runs: its runs of the GPU roles, no CPU runs, no count benches."""
        roles = {role: [r for r in runs if gpu_of(r) == gpu] for role, runs in self.roles.items() if role in GPU_ROLES}
        return Selection({role: runs for role, runs in roles.items() if runs}, self.why, {}, self.source,
                         self.manifest, gpus=[gpu], gpu=gpu)

    def roles_of(self, run):
        return [role for role, runs in self.roles.items() if run in runs]


# ---- the paper: the manifest ------------------------------------------------------------------------

def _read_csv(path, columns, shown):
    try:
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if tuple(reader.fieldnames or ()) != columns:
                raise ResultError(shown, f"the columns must be {','.join(columns)}")
            return list(reader)
    except OSError as e:
        raise ResultError(shown, f"cannot read ({e})") from None


def load_superseded(runs_dir, shown_prefix=""):
    """{file name: reason} from runs_dir/superseded.csv ({} without one); every file it lists must exist."""
    path = pathlib.Path(runs_dir) / SUPERSEDED_FILE
    shown = f"{shown_prefix}{SUPERSEDED_FILE}"
    if not path.exists():
        return {}
    listed = {row["file"]: row["reason"] for row in _read_csv(path, SUPERSEDED_COLUMNS, shown)}
    gone = sorted(name for name in listed if not (path.parent / name).is_file())
    if gone:
        raise ResultError(shown, f"lists {', '.join(gone)}, which is not a run file")
    return listed


def stopped_between_cases(run):
    """A peers run stopped by Ctrl-C, SIGTERM or SIGHUP: tools/peers.py writes a case's rows only once the case is
    measured whole, so each case it holds is whole and may be read; the cases it lacks were never measured."""
    return is_peers_run(run) and run.incomplete.startswith("interrupted")


def _problem(run, role, runs_by_role):
    """Why `run` cannot hold `role` in the paper, or None."""
    if run.incomplete and not stopped_between_cases(run):
        return f"it is incomplete (the run stopped on an error: {run.incomplete}) and never feeds the paper"
    if run.has_gpu_rows() and not is_controlled(run):
        return "its GPU rows lack the study's controls (bins placement and sampling records)"
    if role != PEERS and is_peers_run(run):
        return "it holds library peer rows (tools/peers.py), which the peers role alone reads"
    what, fits = ROLES[role]
    if not fits(run):
        return f"it holds no {what}"
    same_gpu = [r for r in runs_by_role.get(role, []) if gpu_of(r) == gpu_of(run)] if role in GPU_ROLES else []
    if same_gpu and role not in MANY_PER_GPU:
        return f"{same_gpu[0].name} is its {role} run of {gpu_of(run)} already, and a role takes one run per GPU"
    if same_gpu and role == PEERS and not joinable(run, same_gpu[0]):
        libraries = ", ".join(sorted(library_toolchains(run)))
        return (f"its samples ({'/'.join(cache_modes(run))}) or libraries ({libraries}) are not those of "
                f"{same_gpu[0].name}, the peers run of {gpu_of(run)} before it: one GPU's peers runs join into one "
                "table, of one cache mode and one version of each library")
    hot = next((r for r in runs_by_role.get("hot", []) if gpu_of(r) == gpu_of(run)), None)
    if role == "cold" and hot and not gpu_cases(run) & gpu_cases(hot):
        return f"it holds none of the cases of the hot run {hot.name}"
    return None


def cache_modes(run):
    """The cache modes a run's rows were sampled in, sorted."""
    return sorted({(r.get("sampling") or {}).get("cache") or "unrecorded" for r in run.rows})


def peer_case(row):
    """A peer row's case: its experiment, input and size."""
    return row["experiment"], row["input"], row["size"]


def joinable(run, other):
    """Whether two peers runs of one GPU may join into one table: the same cache mode and library versions."""
    return cache_modes(run) == cache_modes(other) and library_toolchains(run) == library_toolchains(other)


def peers_per_gpu(runs):
    """Each GPU's newest peers run, then (newest first) the older ones that may join it and hold cases it lacks: a
    run a time limit stopped, then one of the cases it lacks, are read together."""
    chosen = []
    for gpu in dict.fromkeys(map(gpu_of, runs)):
        mine = sorted((r for r in runs if gpu_of(r) == gpu), key=lambda r: run_order_key(r.path), reverse=True)
        held = set()
        for run in mine:
            cases = set(map(peer_case, run.rows))
            if run is mine[0] or (joinable(run, mine[0]) and cases - held):
                chosen.append(run)
                held |= cases
    return chosen


def gpus_of(runs):
    """The GPUs of `runs`, each once, in their order."""
    return list(dict.fromkeys(gpu for gpu in map(gpu_of, runs) if gpu))


def load(data_dir, shown_prefix=""):
    """The runs data_dir/paper-runs.csv names, each checked against its role; any problem raises
    ResultError naming the manifest and its line."""
    data_dir = pathlib.Path(data_dir)
    shown = f"{shown_prefix}{MANIFEST_FILE}"
    lines = _read_csv(data_dir / MANIFEST_FILE, MANIFEST_COLUMNS, shown)
    superseded = load_superseded(data_dir / "runs", f"{shown_prefix}runs/")
    loaded, roles, why, benches, named = {}, {}, {}, [], []
    for n, line in enumerate(lines, start=2):
        name, role = line["file"], line["role"]
        where = f"{shown}, line {n}"
        if role not in ROLES and role != BENCH_ROLE:
            raise ResultError(where, f"unknown role {role!r} (roles: {', '.join([*ROLES, BENCH_ROLE])})")
        if name in superseded:
            raise ResultError(where, f"{name} is superseded ({superseded[name]})")
        if role == BENCH_ROLE:
            bench = _manifest_bench(data_dir, name, shown_prefix, where)
            if (bench.path, role) in why:
                raise ResultError(where, f"{name} is named twice as {role}")
            benches.append(bench)
            why[(bench.path, role)] = line["reason"]
            continue
        if name not in loaded:
            loaded[name] = load_run(data_dir / "runs" / name, f"{shown_prefix}runs/{name}")
        run = loaded[name]
        if (run.path, role) in why:
            raise ResultError(where, f"{name} is named twice as {role}")
        problem = _problem(run, role, roles)
        if problem:
            raise ResultError(where, f"{name} cannot be the {role} run: {problem}")
        roles.setdefault(role, []).append(run)
        why[(run.path, role)] = line["reason"]
        named += [run] if role in GPU_ROLES else []
    return Selection({role: roles[role] for role in ROLES if role in roles}, why, source=shown, benches=benches,
                     gpus=gpus_of(named))


def _manifest_bench(data_dir, name, shown_prefix, where):
    """The count-bench file a manifest line names, which must lie in runs/count-bench/."""
    if pathlib.PurePosixPath(name).parent != pathlib.PurePosixPath(count_bench.FOLDER):
        raise ResultError(where, f"{name} cannot be the {BENCH_ROLE} run: a count-bench file lies in "
                                 f"runs/{count_bench.FOLDER}/")
    return count_bench.load_bench(data_dir / "runs" / name, f"{shown_prefix}runs/{name}")


# ---- a user's own runs: by content --------------------------------------------------------------------

def cpu_host(run):
    return (cpu_name(run.environment), run.environment["host"].get("logical_cores"))


def newest_cpu_runs(runs):
    """For each CPU (model, with its family and model numbers where recorded, and logical cores), the newest run
    with CPU rows of its subject, oldest first; with none, the newest run with CPU rows alone; else []. A GPU
    machine's own CPU rows must not hide a smaller machine's run, nor a Zen 5's run a Zen 4's."""
    newest = {cpu_host(run): run for run in runs if has_cpu_rows(run, CPU_SUBJECT)}
    if newest:
        return sorted(newest.values(), key=lambda r: run_order_key(r.path))
    with_cpu = [r for r in runs if has_cpu_rows(r)]
    return with_cpu[-1:]


def _left_out(run):
    if run.incomplete and not stopped_between_cases(run):
        return f"incomplete: the run stopped on an error ({run.incomplete})"
    if run.has_gpu_rows() and not is_controlled(run):
        return "its GPU rows lack the study's controls (made by an older histostudy)"
    return None


def by_content(runs, source="the runs given", benches=()):
    """Each role's newest run among `runs` that fits it, a GPU role's on each GPU (every usable version run, oldest
    first); of `benches` (count_bench.Bench), the newest per machine, implementation, file and plan."""
    runs = sorted(runs, key=lambda r: run_order_key(r.path))
    left_out = {r.path: _left_out(r) for r in runs if _left_out(r)}
    usable = [r for r in runs if r.path not in left_out]
    roles = {}
    for role, (what, fits) in ROLES.items():
        if role == "series":
            continue    # a series is the paper's choice, written in its manifest
        found = [r for r in usable if fits(r) and not _problem(r, role, roles)]
        if role == "versions":
            roles[role] = found
        elif role == PEERS:
            roles[role] = peers_per_gpu(found)
        elif role == "cpu":
            roles[role] = newest_cpu_runs(usable)
        elif found:
            roles[role] = newest_per_gpu(found)
    why = {(r.path, role): f"the newest of {source} with {ROLES[role][0]}" for role, rs in roles.items() for r in rs}
    chosen = count_bench.newest_benches(benches)
    why.update({(b.path, BENCH_ROLE): f"the newest of {source} for its machine, implementation, file and plan"
                for b in chosen})
    gpu_runs = [r for role, rs in roles.items() if role in GPU_ROLES for r in rs]
    return Selection({role: rs for role, rs in roles.items() if rs}, why, left_out, source, manifest=False,
                     benches=chosen, gpus=gpus_of(sorted(gpu_runs, key=lambda r: run_order_key(r.path))))


def newest_per_gpu(runs):
    """The newest of `runs` (oldest first) on each GPU, oldest first."""
    return sorted({gpu_of(r): r for r in runs}.values(), key=lambda r: run_order_key(r.path))


# ---- what the reports are built from ----------------------------------------------------------------

@dataclass(frozen=True)
class Gpu:
    """One GPU an appendix shows, and its runs."""
    name: str               # as its runs record it: 'NVIDIA H200'
    label: str              # as the appendix names it: the name, with ', yours' or ", the study's" in a user's appendix
    sel: Selection          # its runs (Selection.on_gpu)
    yours: bool = True      # of this appendix's runs: the paper's, or the user's in a user's appendix


@dataclass
class Study:
    sel: Selection          # the runs this appendix reports
    published: object       # published.Published
    audit: object           # codegen.Audit
    beside: Selection = None    # the study's own Selection, shown beside a user's runs; None in the paper
    paper_where: str = ""   # where the study's own appendix is, for a user's appendix (a path, not a link: the
                            # reports, a folder deeper, say it too)
    spec_link: str = "../docs/study-spec.md"   # the study's spec, from where the appendix is written
    releases: tuple = ()    # the CUDA releases the study lists for its release history ('12.0', ...)
    ptx: dict = field(default_factory=dict)    # codegen.ptx_hashes: each release's PTX per kernel
    counted: list = field(default_factory=list)   # [counters.Counted]: the newest profile of each GPU in data/profiles/

    def missing(self, role):
        where = f" The study's own result is in {self.paper_where}." if self.paper_where else ""
        return self.sel.missing(role) + where

    @property
    def selections(self):
        """This appendix's selection, then the study's beside it (a user's appendix)."""
        return [self.sel] + ([self.beside] if self.beside else [])

    @functools.cached_property
    def gpus(self):
        """[Gpu]: each GPU of this appendix's runs in their order, then (a user's appendix) each of the study's."""
        if not self.beside:
            return [Gpu(name, name, self.sel.on_gpu(name)) for name in self.sel.gpus]
        return [Gpu(name, f"{name}, yours", self.sel.on_gpu(name)) for name in self.sel.gpus] + \
            [Gpu(name, f"{name}, the study's", self.beside.on_gpu(name), yours=False) for name in self.beside.gpus]

    def all_runs(self):
        """Every run of every selection: what the claims audit and the environments read."""
        return [run for sel in self.selections for run in sel.runs]

    def selection_of(self, run):
        return self.sel if run in self.sel.runs else self.beside
