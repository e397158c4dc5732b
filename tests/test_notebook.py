#!/usr/bin/env python3
"""notebooks/colab.ipynb end to end with nbclient, as a reader runs it, on this repository and its built
BUILD_DIR (no clone, no new build), a small study (-e lesson -s 1MiB) into a temporary folder: no cell fails,
an output cell holds a CPU lesson table beside the T4's, the result file and its appendix are made, and without
a GPU both GPU cells say they skip in one line. The committed notebook must hold no outputs.

Exits 77 (skipped) only where no Python here has nbclient and ipykernel (./dev test installs python3-nbclient and
python3-ipykernel). Usage: test_notebook.py HISTOSTUDY"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "colab.ipynb"
STUDY_ARGS = "-e lesson -s 1MiB"
SKIP_LINE = "skipped: no GPU here"


def fail(message):
    sys.exit(f"test_notebook: {message}")


def with_nbclient():
    """Runs under a Python that has nbclient and ipykernel: this one, else the project's (PYTHON, /usr/bin/python3)."""
    try:
        import ipykernel  # noqa: F401
        import nbclient  # noqa: F401
        return
    except ImportError:
        pass
    project = os.environ.get("PYTHON", "/usr/bin/python3")
    if os.path.realpath(project) != os.path.realpath(sys.executable) and subprocess.run(
            [project, "-c", "import nbclient, ipykernel"], capture_output=True).returncode == 0:
        os.execv(project, [project, *sys.argv])
    print(f"skipped: neither {sys.executable} nor {project} has nbclient and ipykernel "
          "(apt install python3-nbclient python3-ipykernel; ./dev test does)")
    sys.exit(77)


def outputs(nb, kind):
    """The texts of every output of one kind: 'stream' (printed) or a MIME type such as 'text/markdown'."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if kind == "stream" and out.output_type == "stream":
                yield out.text
            elif kind in out.get("data", {}):
                yield out.data[kind]


def main():
    with_nbclient()
    import nbclient
    import nbformat
    if len(sys.argv) != 2:
        sys.exit("usage: test_notebook.py HISTOSTUDY")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    if any(cell.get("outputs") or cell.get("execution_count") for cell in nb.cells if cell.cell_type == "code"):
        fail(f"{NOTEBOOK.relative_to(ROOT)} is committed with outputs: clear them")
    gpu = shutil.which("nvidia-smi") is not None and subprocess.run(["nvidia-smi", "-L"],
                                                                    capture_output=True).returncode == 0
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(HISTOSTUDY_DIR=str(ROOT), BUILD_DIR=str(pathlib.Path(sys.argv[1]).resolve().parent),
                          HISTOSTUDY_OUT=str(pathlib.Path(tmp) / "runs"), STUDY_ARGS=STUDY_ARGS)
        os.environ.pop("HISTOSTUDY_REPO_URL", None)
        started = time.monotonic()
        try:
            nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                    resources={"metadata": {"path": tmp}}).execute()
        except nbclient.exceptions.CellExecutionError as e:
            fail(f"a cell failed:\n{e}")
        took = time.monotonic() - started
        results = sorted((pathlib.Path(tmp) / "runs").glob("*.json"))
        if len(results) != 1 or not (results[0].with_name(results[0].stem + "-appendix") / "appendix.md").is_file():
            fail(f"expected one result file and its appendix in {tmp}/runs, found {results}")
    tables = [t for t in outputs(nb, "text/markdown") if "**Lesson table: cpu," in t and "| uniform |" in t
              and "T4 private ms" in t]
    if not tables:
        fail("no output cell holds a CPU lesson table beside the T4's:\n" + "\n".join(outputs(nb, "text/markdown")))
    skips = [t for t in outputs(nb, "stream") if t.startswith(SKIP_LINE)]
    if not gpu and len(skips) != 2:
        fail(f"without a GPU both GPU cells should print one '{SKIP_LINE}' line, got {skips}")
    if gpu and skips:
        fail(f"with a GPU no cell should skip, got {skips}")
    print(f"notebooks/colab.ipynb ran end to end in {took:.0f} s ({'GPU' if gpu else 'no GPU: both GPU cells skipped'},"
          f" study {STUDY_ARGS}); a CPU lesson table beside the T4's is among its outputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
