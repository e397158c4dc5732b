"""Shared test helpers: a real run file to start from, and data directories in temp."""
import json
import pathlib
import shutil

from plots.tests import synthetic

REPO = pathlib.Path(__file__).resolve().parents[2]
RUNS = REPO / "data" / "runs"


def real_run_path():
    """The newest committed run file with CPU rows of the lesson and the sweep (what the synthetic runs
    build on), or None."""
    for path in sorted(RUNS.glob("*.json"), reverse=True):
        experiments = {r["experiment"] for r in json.loads(path.read_text())["rows"] if r["backend"] == "cpu"}
        if {"lesson", "sweep"} <= experiments:
            return path
    return None


def real_run_doc():
    path = real_run_path()
    return json.loads(path.read_text()) if path else None


def cpu_only_doc(doc):
    """The CPU half of a real run, as a CPU-only machine would have recorded it."""
    doc = json.loads(json.dumps(doc))
    doc["rows"] = [r for r in doc["rows"] if r["backend"] == "cpu"]
    doc["environment"]["executors"] = [e for e in doc["environment"]["executors"] if e["toolchain"] == "cpu"]
    doc["environment"]["gpu_absent"] = "no CUDA GPU (test fixture)"
    return doc


def data_dir(root, runs, codegen=None):
    """root/data with data/published copied, `runs` {name: doc} and an optional codegen audit."""
    data = pathlib.Path(root) / "data"
    shutil.copytree(REPO / "data" / "published", data / "published")
    (data / "runs").mkdir(parents=True)
    for name, doc in runs.items():
        synthetic.write_json(data / "runs" / name, doc)
    if codegen is not None:
        (data / "codegen").mkdir()
        synthetic.write_json(data / "codegen" / "codegen.json", codegen)
    return data
