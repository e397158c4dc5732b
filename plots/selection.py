"""Which runs feed which report: the one place that decides.

Runs are data/runs/*.json, every one validated; names start with the UTC
date, so name order is time order. data/runs/superseded.csv (columns
file,reason) lists runs kept as recorded but no longer used. Issue 10: before
its controls every GPU toolchain of a run had its own bins buffer, so a
kernel adding into global bins timed where its buffer lay as much as the
toolchain; those runs are superseded.

A run is usable when it is not superseded and, if it has GPU rows, is
controlled: every GPU row records its bins placement and its sampling
(results.is_controlled). A GPU run without the controls that the csv does
not list is not used either, and the environment section names it.

  lesson tables, floor figure   the newest usable run with GPU lesson and sweep rows (the default study), else with
                                GPU lesson rows, else the newest usable run with lesson rows, else with custom rows
  version comparison            every usable run with GPU lesson rows of two CUDA versions, oldest first (the figure:
                                the lesson run where it is one, else the newest)
  the former version finding    the superseded runs with GPU lesson rows of two CUDA versions (issue 10's 2.09x)
  contention sweep              the newest usable run with GPU sweep rows, else the newest usable with sweep rows
  placement                     the newest usable run with GPU placement rows
  hot and cold                  the newest usable run sampled hot, and the newest usable run sampled cold that
                                holds some of its cases (same experiment, kernel, input, size, launch)
  performance (GPU)             the newest usable run with GPU perf rows (earlier usable ones: earlier attempts)
  performance (CPU)             per CPU, the newest usable run with CPU rows of openmp_fast, else the newest usable
                                run with CPU rows
  lane_shared at lesson size    the lesson run
  claims audit, environments    every run, every toolchain but the A/A controls; a claim decided by GPU times
                                reads them from usable runs only
"""
import csv
from dataclasses import dataclass, field

from plots import perf, versions
from plots.results import ResultError, case_key, is_controlled, load_runs

SUPERSEDED_FILE = "superseded.csv"
SUPERSEDED_COLUMNS = ("file", "reason")
NOT_YET = "not measured yet"


@dataclass
class Selection:
    runs: list                                        # every run file, oldest first
    superseded: dict = field(default_factory=dict)    # {run path: reason}
    lesson: object = None
    versions: list = field(default_factory=list)
    version: object = None                            # the one the figure shows
    former_versions: list = field(default_factory=list)
    sweep: object = None
    placement: object = None
    hot: object = None
    cold: object = None
    perf: object = None
    earlier_perf: list = field(default_factory=list)
    cpu_runs: list = field(default_factory=list)

    def usable(self, run):
        return run.path not in self.superseded and is_controlled(run)

    def not_yet(self, what, holds):
        """Why a GPU report is empty: no usable run holds `what`; says so of superseded ones that do."""
        earlier = [r for r in self.runs if not self.usable(r) and holds(r)]
        return (f"{NOT_YET}: no controlled run (issue 10) in data/runs holds {what}"
                + (f"; {len(earlier)} earlier, uncontrolled ones are superseded (data/runs/{SUPERSEDED_FILE})"
                   if earlier else "") + ".")

    def reasons(self):
        """{report: why it is not measured yet}, for reports whose runs are not there."""
        return {"lesson": self.not_yet("GPU lesson rows", lambda r: r.has_gpu_rows("lesson")),
                "versions": self.not_yet("GPU lesson rows of two CUDA versions", _is_version_run),
                "sweep": self.not_yet("GPU sweep rows", lambda r: r.has_gpu_rows("sweep")),
                "placement": self.not_yet("GPU placement rows", lambda r: r.has_gpu_rows("placement")),
                "hotcold": self.not_yet("GPU rows sampled hot and the same cases sampled cold",
                                        lambda r: cache_mode(r) == "hot"),
                "perf": self.not_yet("GPU perf rows", lambda r: r.has_gpu_rows(perf.EXPERIMENT))}

    def unusable(self):
        """{run path: why its GPU times are not used} for every run that is not usable."""
        return {r.path: self.superseded.get(r.path) or "uncontrolled (no placement and sampling records), not "
                f"listed in {SUPERSEDED_FILE}" for r in self.runs if not self.usable(r)}

    def unlisted_uncontrolled(self):
        """GPU runs without the controls that superseded.csv does not list: not used, and said so."""
        return [r for r in self.runs if r.path not in self.superseded and not is_controlled(r)]


def load_superseded(directory, shown_prefix=""):
    """{run path as shown: reason} from directory/superseded.csv; {} when there is none."""
    path = directory / SUPERSEDED_FILE
    shown = f"{shown_prefix}{SUPERSEDED_FILE}"
    if not path.exists():
        return {}
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != SUPERSEDED_COLUMNS:
            raise ResultError(shown, f"the columns must be {','.join(SUPERSEDED_COLUMNS)}")
        return {f"{shown_prefix}{row['file']}": row["reason"] for row in reader}


def load(directory, shown_prefix=""):
    """The runs of `directory` and what feeds each report."""
    runs = load_runs(directory, shown_prefix)
    superseded = load_superseded(directory, shown_prefix)
    unknown = sorted(set(superseded) - {r.path for r in runs})
    if unknown:
        raise ResultError(f"{shown_prefix}{SUPERSEDED_FILE}", f"lists {', '.join(unknown)}, which is not a run file")
    return select(runs, superseded)


def _newest(runs, *wanted):
    """The newest run meeting the first test any run meets, or None."""
    for test in wanted:
        found = next((r for r in reversed(runs) if test(r)), None)
        if found:
            return found
    return None


def cache_mode(run):
    """'hot' or 'cold' when every sampled GPU row of the run was sampled so; else None."""
    modes = {r["sampling"]["cache"] for r in run.rows if r["backend"] == "cuda" and r.get("sampling")}
    return modes.pop() if len(modes) == 1 else None


def _gpu_cases(run):
    return {case_key(r) for r in run.rows if r["backend"] == "cuda"}


def _cpu_host(run):
    host = run.environment["host"]
    return (host.get("cpu_model"), host.get("logical_cores"))


def newest_cpu_runs(runs):
    """For each CPU (model and logical cores), the newest run with CPU rows of openmp_fast, oldest
    first; with none, the newest run with CPU rows alone; else []. Issue 6 asks for a 2-core machine,
    and the GPU machine's own CPU rows must not hide that run."""
    newest = {_cpu_host(run): run for run in runs if perf.has_cpu_rows(run, perf.CPU_SUBJECT)}
    if newest:
        return sorted(newest.values(), key=lambda r: r.path)
    found = _newest(runs, perf.has_cpu_rows)
    return [found] if found else []


def _is_version_run(run):
    return run.has_gpu_rows(versions.EXPERIMENT) and bool(versions.pairs_in(run))


def select(runs, superseded):
    sel = Selection(runs, superseded)
    usable = [r for r in runs if sel.usable(r)]
    sel.lesson = _newest(usable, lambda r: r.has_gpu_rows("lesson") and r.has_gpu_rows("sweep"),
                         lambda r: r.has_gpu_rows("lesson"), lambda r: r.has_rows("lesson"),
                         lambda r: r.has_rows("custom"))
    sel.versions = [r for r in usable if _is_version_run(r)]
    sel.version = sel.lesson if sel.lesson in sel.versions else (sel.versions[-1] if sel.versions else None)
    sel.former_versions = [r for r in runs if r.path in superseded and _is_version_run(r)]
    sel.sweep = _newest(usable, lambda r: r.has_gpu_rows("sweep"), lambda r: r.has_rows("sweep"))
    sel.placement = _newest(usable, lambda r: r.has_gpu_rows("placement"))
    sel.hot = _newest(usable, lambda r: cache_mode(r) == "hot")
    if sel.hot:
        sel.cold = _newest(usable, lambda r: cache_mode(r) == "cold" and bool(_gpu_cases(r) & _gpu_cases(sel.hot)))
    perf_runs = [r for r in usable if r.has_gpu_rows(perf.EXPERIMENT)]
    sel.perf = perf_runs[-1] if perf_runs else None
    sel.earlier_perf = perf_runs[:-1]
    sel.cpu_runs = newest_cpu_runs(usable)
    return sel
