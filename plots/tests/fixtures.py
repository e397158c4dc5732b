"""Shared test helpers: a real run file to start from, data directories in temp, and a second GPU made from a
committed run (in temp only)."""
import copy
import csv
import json
import pathlib
import shutil
import unittest

from plots import selection
from plots.results import load_run
from plots.tests import synthetic

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "data"
RUNS = DATA / "runs"


def manifest_runs():
    """The file names the committed manifest names, in its order."""
    with (DATA / selection.MANIFEST_FILE).open(newline="") as f:
        return list(dict.fromkeys(line["file"] for line in csv.DictReader(f)))


def _cpu_experiments(path):
    return {r["experiment"] for r in json.loads(path.read_text()).get("rows", []) if r["backend"] == "cpu"}


def real_run_path():
    """The smallest run the committed manifest names with CPU rows of the lesson and the sweep (what the
    synthetic runs build on), or None. Only the manifest's runs: a user's own runs change no test."""
    found = [RUNS / name for name in manifest_runs() if {"lesson", "sweep"} <= _cpu_experiments(RUNS / name)]
    return min(found, key=lambda p: p.stat().st_size, default=None)


def real_run_doc():
    path = real_run_path()
    return json.loads(path.read_text()) if path else None


def cpu_doc_or_skip():
    """cpu_only_doc of the real run; skips the test class where data/runs has none."""
    doc = real_run_doc()
    if doc is None:
        raise unittest.SkipTest("no run file with lesson rows in data/runs")
    return cpu_only_doc(doc)


def cpu_only_doc(doc):
    """The CPU half of a real run, as a CPU-only machine would have recorded it."""
    doc = json.loads(json.dumps(doc))
    doc["rows"] = [r for r in doc["rows"] if r["backend"] == "cpu"]
    doc["environment"]["executors"] = [e for e in doc["environment"]["executors"] if e["toolchain"] == "cpu"]
    doc["environment"]["gpu_absent"] = "no CUDA GPU (test fixture)"
    return doc


def write_manifest(data, lines):
    """data/paper-runs.csv with `lines` [(file, role, reason)]."""
    with (data / selection.MANIFEST_FILE).open("w", newline="") as f:
        csv.writer(f).writerows([selection.MANIFEST_COLUMNS] + list(lines))


def manifest_by_content(data):
    """The lines a manifest would have that gives each role the newest run fitting it."""
    runs = [load_run(p, p.name) for p in sorted((data / "runs").glob("*.json"))]
    sel = selection.by_content(runs)
    return [(run.path, role, "test fixture: the newest run that fits") for role, rs in sel.roles.items() for run in rs]


def data_dir(root, runs, codegen=None, manifest=None):
    """root/data with data/published copied, `runs` {name: doc}, an optional codegen audit, and a manifest:
    `manifest` [(file, role, reason)], by default each role's newest run."""
    data = pathlib.Path(root) / "data"
    shutil.copytree(DATA / "published", data / "published")
    (data / "runs").mkdir(parents=True)
    for name, doc in runs.items():
        synthetic.write_json(data / "runs" / name, doc)
    if codegen is not None:
        (data / "codegen").mkdir()
        synthetic.write_json(data / "codegen" / "codegen.json", codegen)
    write_manifest(data, manifest_by_content(data) if manifest is None else manifest)
    return data


# ---- a second GPU, for tests only: a committed run rescaled, in temp, never under data/ ----

def committed_doc(name):
    """A committed run's document, by file name."""
    return json.loads((RUNS / name).read_text())


def trimmed(doc, keep):
    """The run with only the rows keep(row) picks and their read floors' rows (a row's pct_of_floor names its
    floor's): a smaller copy, so a test reads and models it fast."""
    doc = copy.deepcopy(doc)
    floors = {(r["floor_impl"], r["toolchain"], r["input"], r["size"]) for r in doc["rows"] if keep(r)}
    doc["rows"] = [r for r in doc["rows"] if keep(r) or (r["impl"], r["toolchain"], r["input"], r["size"]) in floors]
    return doc


def _rename_gpu(record, name, uuid):
    """Every GPU record under `record` (a dict holding a compute capability, or a row's device) renamed."""
    if isinstance(record, dict):
        if "compute_capability" in record or ("uuid" in record and "name" in record):
            record.update(name=name, uuid=uuid)
        for value in record.values():
            _rename_gpu(value, name, uuid)
    elif isinstance(record, list):
        for value in record:
            _rename_gpu(value, name, uuid)


def _scaled_row(row, f):
    row["samples_ms"] = [t * f for t in row["samples_ms"]]
    log = row.get("sample_log")
    if log:
        log["ms"] = [t * f if t is not None else None for t in log["ms"]]
    if row["samples_ms"]:
        row["summary_ms"] = {k: v * f for k, v in row["summary_ms"].items()}
    if row.get("lesson_mean_ms") is not None:
        row["lesson_mean_ms"] *= f
    if row.get("gbps"):
        row["gbps"] /= f


def on_other_gpu(doc, name, uuid, driver, scale):
    """A GPU run as if measured on another GPU: the GPU's name and uuid and the driver replaced, every GPU row's
    times multiplied by scale(row) (samples, sample log, summary, the lesson's mean) and its GB/s and percent of
    the floor recomputed to match (the floor's factor is scale of the row as its floor: the row with its
    floor_impl and no roles of its own). For tests only, written to temp: it is no measurement."""
    doc = copy.deepcopy(doc)
    _rename_gpu(doc["environment"], name, uuid)
    doc["environment"]["driver"]["driver_version"] = driver
    for row in doc["rows"]:
        if row["backend"] != "cuda":
            continue
        _rename_gpu(row.get("device"), name, uuid)
        f, floor = scale(row), scale(dict(row, impl=row["floor_impl"], roles=None))
        _scaled_row(row, f)
        if row.get("pct_of_floor") is not None:
            row["pct_of_floor"] *= floor / f
    return doc
