#!/usr/bin/env python3
"""The plots under the oldest libraries plots/requirements.txt states for Python X.Y: a venv of that Python with
exactly those releases from PyPI (wheels only), cached under .deps/oldest-python/ keyed by the interpreter and the
releases. Under it: the requirement check passes; the appendix of the newest committed CPU run is made (tables
and figures); the lesson report of that run is the same text the project's Python makes; the audit of two
committed runs gives its verdict; a run file that breaks the schema is refused, naming the field (the validator
still judges under jsonschema 3.2); and the floors' unit tests pass.

Exits 77 (skipped), saying why, only where this machine has no Python X.Y (CI's Debian 12 has 3.11 alone; Ubuntu
22.04's 3.10 and Colab's 3.12 are found here as python3.X on PATH or under pyenv) or PyPI cannot be reached or a
venv cannot be made. Usage: test_oldest_deps.py X.Y"""
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from plots import requirements  # noqa: E402  (standard library only)

CACHE = ROOT / ".deps" / "oldest-python"
RUNS = ROOT / "data" / "runs"
# Two committed H200 runs the audit reads (test dev's pair): the A/A-controlled lesson under two toolchain orders.
AUDIT_PAIR = ["20261201T160941Z_nvidia-h200_cpu-nvcc-13.0.88-nvrtc-12.6.85-nvrtc-13.0-nvcc-13.0.88-a-a-control.json",
              "20261201T161001Z_nvidia-h200_cpu-nvrtc-13.0-nvrtc-12.6.85-nvcc-13.0.88-nvrtc-13.0-a-a-control.json"]
PYPI = "https://pypi.org/simple/jsonschema/"


def fail(message):
    sys.exit(f"test_oldest_deps: {message}")


def skip(reason):
    print(f"skipped: {reason}")
    sys.exit(77)


def version_of(python):
    """'3.10.13' for an interpreter that runs, else None."""
    try:
        ran = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return ran.stdout.strip() if ran.returncode == 0 else None


def find_python(wanted):
    """An interpreter of Python X.Y: the system's, one on PATH, or pyenv's."""
    candidates = [f"/usr/bin/python{wanted}", shutil.which(f"python{wanted}")]
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip()
        candidates += sorted(pathlib.Path(root, "versions").glob(f"{wanted}.*/bin/python{wanted}"), reverse=True)
    for python in filter(None, candidates):
        full = version_of(str(python))
        if full and full.split(".")[:2] == wanted.split("."):
            return str(python), full
    return None, None


def pypi_reachable():
    try:
        with urllib.request.urlopen(PYPI, timeout=30):
            return True
    except OSError:
        return False


def venv_with(python, full, pins):
    """The cached venv of this interpreter and these releases; made (atomically, beside the cache) where missing."""
    key = hashlib.sha256("\n".join([python, full, *pins]).encode()).hexdigest()[:12]
    venv = CACHE / f"{full}-{key}"
    if (venv / "complete").exists():
        return venv
    if not pypi_reachable():
        skip(f"PyPI ({PYPI}) cannot be reached: the oldest releases ({', '.join(pins)}) cannot be installed")
    CACHE.mkdir(parents=True, exist_ok=True)
    new = pathlib.Path(tempfile.mkdtemp(prefix=f"{venv.name}.", dir=CACHE))
    try:
        made = subprocess.run([python, "-m", "venv", "--clear", new], capture_output=True, text=True)
        if made.returncode != 0:
            skip(f"{python} cannot make a venv (python3-venv?):\n{made.stderr}")
        pip = [new / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--only-binary", ":all:", *pins]
        installed = subprocess.run(pip, capture_output=True, text=True, timeout=1200)
        if installed.returncode != 0:
            fail(f"plots/requirements.txt's floors for Python {full} do not install from PyPI as wheels "
                 f"({' '.join(pins)}):\n{installed.stderr[-3000:]}")
        (new / "complete").write_text("\n".join(pins) + "\n")
        try:
            new.rename(venv)
        except OSError:  # another run made it meanwhile
            if not (venv / "complete").exists():
                raise
    finally:
        shutil.rmtree(new, ignore_errors=True)
    return venv


def plots(python, *args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONSAFEPATH="1", MPLBACKEND="Agg")
    return subprocess.run([python, "-m", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=900)


def expect(result, ok, what):
    if not ok:
        fail(f"{what} (exit {result.returncode}):\n{result.stdout[-3000:]}{result.stderr[-3000:]}")


def installed(python):
    """{library: release} of the venv's pip."""
    shown = plots(python, "pip", "list", "--format", "json", cwd=ROOT)
    return {p["name"].lower(): p["version"] for p in json.loads(shown.stdout)} if shown.returncode == 0 else {}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: test_oldest_deps.py X.Y")
    wanted = sys.argv[1]
    lines = requirements.parse(requirements.FILE.read_text())
    floors = requirements.floors(tuple(int(n) for n in wanted.split(".")), lines)
    if not floors:
        fail(f"plots/requirements.txt states no release for Python {wanted}")
    python, full = find_python(wanted)
    if python is None:
        skip(f"no Python {wanted} here (python{wanted}, /usr/bin/python{wanted} or pyenv's): its floors "
             f"({', '.join(f'{n} {v}' for n, v in floors.items())}) are not proven on this machine")
    pins = [f"{name}=={oldest}" for name, oldest in floors.items()]
    venv = venv_with(python, full, pins)
    old = str(venv / "bin" / "python")
    have = installed(old)
    if any(have.get(name) != oldest for name, oldest in floors.items()):
        fail(f"the venv {venv} holds {have}, not {pins}")
    cpu_runs = sorted(RUNS.glob("*_cpu_cpu.json"))
    if not cpu_runs:
        fail("no committed CPU run (data/runs/*_cpu_cpu.json) to make the appendix of")
    run = cpu_runs[-1]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        check = plots(old, "plots.requirements", cwd=tmp)
        expect(check, check.returncode == 0 and not check.stderr, "the floors should pass their own check")

        appendix = plots(old, "plots.cli", "own_appendix", str(run), "-o", str(tmp / "appendix"), cwd=tmp)
        made = [tmp / "appendix" / p for p in ("appendix.md", "tables/lesson.md", "figures/lesson.png",
                                              "figures/sweep.svg", "reports/lesson.md")]
        expect(appendix, appendix.returncode == 0 and all(p.is_file() and p.stat().st_size > 0 for p in made),
               f"the appendix of {run.name} (should make {', '.join(str(p.relative_to(tmp)) for p in made)})")

        lesson = plots(old, "plots.cli", "lesson", str(run), cwd=tmp)
        expect(lesson, lesson.returncode == 0 and "**Lesson table: cpu," in lesson.stdout, "the lesson report")
        project = os.environ.get("PYTHON", "/usr/bin/python3")
        reference = plots(project, "plots.cli", "lesson", str(run), cwd=tmp)
        if reference.returncode != 0:
            fail(f"the project's Python ({project}) cannot make the lesson report to compare with:\n{reference.stderr}")
        if lesson.stdout != reference.stdout:
            fail(f"the lesson report under the oldest releases differs from {project}'s:\n{lesson.stdout}")

        audit = plots(old, "plots.cli", "audit", *(str(RUNS / name) for name in AUDIT_PAIR), "--experiment",
                      "lesson", cwd=tmp)
        expect(audit, audit.returncode == 0 and audit.stdout.splitlines()[-1].startswith("No regression beyond"),
               "the audit of two committed H200 runs")

        broken = json.loads(run.read_text())
        del broken["rows"][0]["impl"]
        (tmp / "broken.json").write_text(json.dumps(broken))
        refused = plots(old, "plots.cli", "lesson", "broken.json", cwd=tmp)
        expect(refused, refused.returncode == 2 and "broken.json: does not follow the result schema at rows[0]"
               in refused.stderr and "Traceback" not in refused.stderr, "a run missing rows[0].impl should be refused")

        units = plots(old, "unittest", "plots.tests.test_requirements", cwd=ROOT)
        expect(units, units.returncode == 0, "plots/tests/test_requirements.py")
    print(f"Python {full} ({python}) with {', '.join(pins)}: the appendix of {run.name}, the lesson report (the same "
          f"as {project}'s), the audit and the schema's refusal, as the newest releases make them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
