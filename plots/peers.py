"""The libraries a reader would reach for: torch.bincount and cupy.bincount against the study's fastest kernel.

A peers run (tools/peers.py, docs/peers.md) times each library's own call on the cases of the `perf` and
`sizes` experiments, checked and sampled under the study's rules, each library with its A/A control. model()
joins the peers runs of one GPU (a run stopped by a time limit, and a later one of the cases it lacks), then
sets every peer row beside the study's perf and sizes runs of a GPU of the same name (plots/selection.py picks
them all), on the same experiment, input, size and cache mode: the subject's GB/s over the peer's (how many
times faster the study's kernel is) and the peer's GB/s as a percent of the read floor's. The two figures
compare rows of two runs, each with its own controls: the peer's A/A pair (its median against its control's)
says whether the peer's figure is stable within its run. peers_tables renders the model; the numbers are all
computed here. Kernels are found by role (plots/results.py), never by name.
"""
from dataclasses import dataclass

from plots import pages, stats
from plots.document import Heading, Para, Part
from plots import table as fmt
from plots.results import Kernel, aa_comparison, is_timed, library_toolchains, primary_gpu_toolchain
from plots.selection import PEERS, gpu_of, peer_case
from plots.table import Table, value_range

SUBJECT, FLOOR = Kernel("subject"), Kernel("floor")
EXPERIMENTS = ("perf", "sizes")   # the study's experiments whose cases the peers repeat


@dataclass(frozen=True)
class PeerCase:
    """One peer row beside the study's rows of the same case."""
    peer: dict              # the library's row
    aa: object              # stats.Comparison of its A/A control over it, or None
    subject: dict           # the study's subject row of the case, or None
    floor: dict             # the study's read floor row of the case, or None
    study_run: object       # the run those two come from, or None
    run: object             # the peers run the peer row comes from

    @property
    def key(self):
        return peer_case(self.peer)

    @property
    def subject_over_peer(self):
        """The subject's GB/s over the peer's: above 1, the study's kernel is that many times faster."""
        return self.subject["gbps"] / self.peer["gbps"] if self.subject else None

    @property
    def pct_of_floor(self):
        return 100 * self.peer["gbps"] / self.floor["gbps"] if self.floor else None


@dataclass(frozen=True)
class PeersGpu:
    """The peers runs of one GPU, set against the study's runs of a GPU of the same name."""
    gpu: str
    runs: list                  # the peers runs, in the manifest's order; a case is read from the first holding it
    study_runs: list            # the perf and sizes runs of that GPU, [] where there are none
    libraries: list             # the run's library toolchains, A/A controls aside
    peers: list                 # the peer implementations, in row order
    subject: str                # the subject's name in the study's runs, or None
    floor: str                  # the read floor the peer rows name
    cases: list                 # [PeerCase], in row order
    failed: list                # the peer rows (controls too) whose check failed: never timed

    def of(self, experiment):
        return [c for c in self.cases if c.peer["experiment"] == experiment]

    def case(self, impl, key):
        return next((c for c in self.cases if c.peer["impl"] == impl and c.key == key), None)

    def values(self, impl, field, experiment):
        """A PeerCase property over the peer's cases of `experiment`, where measured."""
        return [getattr(c, field) for c in self.of(experiment)
                if c.peer["impl"] == impl and getattr(c, field) is not None]

    @property
    def unmeasured(self):
        """The study's cases of this GPU (its subject's rows in the perf and sizes runs) no peer row holds."""
        held = {c.key for c in self.cases} | {peer_case(r) for r in self.failed}
        study = dict.fromkeys(peer_case(r) for run in self.study_runs for r in run.rows
                              if r["experiment"] in EXPERIMENTS and is_timed(r) and SUBJECT.picks(r))
        return [key for key in study if key not in held]

    @property
    def unmatched(self):
        """Peer rows the study's runs hold no subject or floor beside."""
        return [c for c in self.cases if c.subject is None or c.floor is None]


def _sampled_case(row):
    """The case and the cache mode it was sampled in."""
    return peer_case(row) + ((row.get("sampling") or {}).get("cache"),)


def _study_row(runs, kernel, peer, impl=None):
    """(row, run) of `kernel` (or of the implementation `impl`) in the first of `runs` with the peer's case,
    under the run's own GPU toolchain, sampled as the peer was; (None, None) where none has it."""
    for run in runs:
        toolchain = primary_gpu_toolchain(run)
        for row in run.rows:
            if (row["toolchain"] == toolchain and is_timed(row) and _sampled_case(row) == _sampled_case(peer)
                    and (row["impl"] == impl if impl else kernel.picks(row))):
                return row, run
    return None, None


def gpu_model(runs, study_runs):
    """The PeersGpu of the peers `runs` of one GPU, against those of `study_runs` measured on a GPU of the same
    name; a case two runs hold is read from the first."""
    libraries = list(dict.fromkeys(tc for run in runs for tc in run.toolchains(controls=False)
                                   if tc in library_toolchains(run)))
    gpu = gpu_of(runs[0])
    same_gpu = [r for r in study_runs if gpu_of(r) == gpu]
    rows, seen, failed = [], set(), []
    for run in runs:
        held = [r for r in run.rows if r["toolchain"] in library_toolchains(run)    # A/A controls too
                and (is_timed(r) or not r["check"]["passed"])]   # a row left untimed gives way to a later run's
        fresh = [r for r in held if (r["impl"], peer_case(r)) not in seen]
        seen |= {(r["impl"], peer_case(r)) for r in held}
        rows += [(run, r) for r in fresh if r["toolchain"] in libraries and r["experiment"] in EXPERIMENTS]
        failed += [r for r in fresh if not r["check"]["passed"]]
    cases = []
    for run, row in ((run, r) for run, r in rows if is_timed(r)):
        subject, subject_run = _study_row(same_gpu, SUBJECT, row)
        floor, floor_run = _study_row([subject_run] if subject_run else same_gpu, FLOOR, row, row["floor_impl"])
        cases.append(PeerCase(row, aa_comparison(run, row), subject, floor, subject_run or floor_run, run))
    subject = next((c.subject["impl"] for c in cases if c.subject), None)
    return PeersGpu(gpu, list(runs), same_gpu, libraries, list(dict.fromkeys(r["impl"] for _, r in rows)), subject,
                    rows[0][1]["floor_impl"] if rows else None, cases, failed)


def model(peers_runs, study_runs):
    """[PeersGpu], one per GPU of the peers runs, in the order their first runs come."""
    by_gpu = {}
    for run in peers_runs:
        by_gpu.setdefault(gpu_of(run), []).append(run)
    return [gpu_model(runs, study_runs) for runs in by_gpu.values()]


# ---- the tables --------------------------------------------------------------------------------------------------

def _aa_cell(case):
    c = case.aa
    return f"{fmt.ratio(c.ratio, 3)} {c.verdict}" if c else fmt.MISSING


def _peer_cells(g, impl, key):
    c = g.case(impl, key)
    if c is None:
        return [fmt.MISSING] * 3
    return [f"{fmt.number(c.peer['gbps'], 0)} ({fmt.pct(c.pct_of_floor)})", fmt.ratio(c.subject_over_peer, 2),
            _aa_cell(c)]


def cases_table(g, experiment):
    """One line per case of `experiment`: the floor's and the subject's GB/s, then each peer's."""
    keys = list(dict.fromkeys(c.key for c in g.of(experiment)))
    subject, floor = g.subject or SUBJECT.name("cuda"), g.floor or FLOOR.name("cuda")
    columns = ["input", "bytes", f"{floor} GB/s", f"{subject} GB/s"]
    for impl in g.peers:
        columns += [f"{impl} GB/s (% floor)", f"{subject} / {impl}", f"{impl} A/A"]
    rows = []
    for key in keys:
        first = next(c for c in g.of(experiment) if c.key == key)
        rows.append([key[1], f"{key[2]:,}", fmt.number(first.floor and first.floor["gbps"], 0),
                     fmt.number(first.subject and first.subject["gbps"], 0)]
                    + [cell for impl in g.peers for cell in _peer_cells(g, impl, key)])
    sources = sorted({c.study_run.path for c in g.of(experiment) if c.study_run})
    notes = [f"{', '.join(g.libraries)} on {g.gpu} ({runs_words(g.runs)}); {floor} and {subject} from "
             + (", ".join(f"`{p}`" for p in sources) if sources else "no run of this GPU")
             + ": the same GPU model, input, size and cache mode, measured in another run. GB/s: bytes over the "
             f"median time; % floor: over {floor}'s GB/s; {subject} / peer: ratio of GB/s (above 1: {subject} is "
             "faster).",
             f"A/A: the peer's median against its A/A control's in its own run, with the verdict of its "
             f"{stats.CONFIDENCE:.0%} bootstrap interval against the band {stats.DEFAULT_BAND:g}x: 'same' says the "
             "peer's figure is stable within its run."]
    missing = [c for c in g.unmatched if c.peer["experiment"] == experiment]
    if missing:
        notes.append(f"{len(missing)} peer rows have no {subject} or {floor} row of the same case on this GPU: their "
                     f"ratios are not measurable here.")
    notes += [f"CHECK FAILED: {r['impl']} ({r['toolchain']}) on {r['input']}, {r['size']:,} bytes: "
              f"{r['check']['detail']}" for r in g.failed if r["experiment"] == experiment]
    return Table(f"Library peers, {experiment} cases, on {g.gpu}: GB/s (percent of the read floor) and "
                 f"{subject}'s speedup ({', '.join(r.name for r in g.runs)})", columns, rows, notes,
                 align="l" + "r" * (len(columns) - 1))


def runs_words(runs):
    return " and ".join(f"`{r.path}`" for r in runs)


def peers_tables(models):
    return [cases_table(g, experiment) for g in models for experiment in EXPERIMENTS if g.of(experiment)
            or any(r["experiment"] == experiment for r in g.failed)]


def peers_prose(g):
    """What the peers runs of one GPU found, peer by peer and experiment by experiment, from its PeersGpu."""
    s = f"`{g.subject}`" if g.subject else "the subject"
    parts = []
    for impl in g.peers:
        for experiment in EXPERIMENTS:
            pct = g.values(impl, "pct_of_floor", experiment)
            speedup = g.values(impl, "subject_over_peer", experiment)
            if g.of(experiment) and any(c.peer["impl"] == impl for c in g.of(experiment)):
                parts.append(f"`{impl}` on the {experiment} cases runs at {value_range(pct, 1, '%')} of the read "
                             f"floor's GB/s, and {s} at {value_range(speedup, 2, 'x')} its GB/s")
    where = (", ".join(f"`{r.path}`" for r in g.study_runs) if g.study_runs else
             f"no perf or sizes run of the {g.gpu} is chosen: the ratios are {pages.NOT_HERE}")
    found = "; ".join(parts) if parts else "no peer row was timed"
    return (f"On the {g.gpu} ({runs_words(g.runs)}; {', '.join(g.libraries)}, each with its A/A control; "
            f"against {where}): {found}."
            + (f" {len(g.failed)} peer rows failed their check and were not timed (named under the tables)."
               if g.failed else "")
            + stopped_words(g) + unmeasured_words(g))


def unmeasured_words(g):
    missing = g.unmeasured
    if not missing:
        return ""
    return (f" The peers were not measured on {fmt.plural(len(missing), 'case')} of the study's on this GPU: "
            + ", ".join(f"{e} {i} at {n:,} bytes" for e, i, n in missing) + ".")


def stopped_words(g):
    """What the runs that stopped before their end leave out, or ''."""
    stopped = [r for r in g.runs if r.incomplete]
    if not stopped:
        return ""
    held = fmt.plural(len({c.key for c in g.cases}), "case")
    why = "; ".join(r.incomplete for r in stopped)
    if len(g.runs) == 1:
        return (f" The run stopped before its end ({why}); it holds {held} whole, and the cases it lacks were not "
                "measured.")
    return (f" {' and '.join(f'`{r.name}`' for r in stopped)} stopped before its end ({why}); the runs hold {held} "
            "whole, and a case none of them holds was not measured.")


def peers_section(m):
    blocks = [Heading("The libraries a reader would reach for", 2),
              Para("`tools/peers.py` (docs/peers.md) times each library's own histogram call, `torch.bincount` and "
                   "`cupy.bincount` on the GPU, on the cases of the `perf` and `sizes` experiments, checked bin for "
                   "bin against the study's reference first and sampled under the study's rules, each with an A/A "
                   "control. Each peer is set beside the study's subject and read floor from the perf and sizes "
                   "runs of a GPU of the same name, on the same input, size and cache mode: two runs compared, "
                   "each with its own controls.")]
    found = m.of(PEERS)
    if not found:
        return blocks + [Para(f"Library peers: {m.missing(PEERS)}")]
    return blocks + [Para(peers_prose(g)) for g in found] + pages.tables(peers_tables(found))


def study_model(study):
    """Its model, of the runs the Study chose: each peers run against the perf and sizes runs of its GPU."""
    return model(study.sel.peers_runs, study.sel.gpu_study_runs)


PART = Part(PEERS, report=peers_section, joins="performance", model=study_model)
