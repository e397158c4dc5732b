#!/usr/bin/env python3
"""./dev's help (on stdout, and ./dev CMD --help doing nothing else), its
paths (from the caller's folder), what ./dev study installs (never LaTeX)
and its refusal of a numpy older than plots/requirements.txt's floor before
it measures, and ./dev where the system's meson is
missing or too old (Ubuntu 22.04 ships 0.61) and where the nlohmann-json
package is: DEV_MESON=pypi forces the pinned PyPI meson and ninja in
.deps/venv, DEV_JSON=pypi the pinned PyPI nlohmann-json (into a temporary
VENDOR_INCLUDE), with which `./dev test` must configure, build (CPU only, in
a temporary build folder) and pass the doctest suites, and `./dev test` of a
name that matches no test must fail. Exits 77 (skipped)
only when PyPI or python3-venv is not reachable here. Usage: test_dev.py"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENV = ROOT / ".deps" / "venv" / "bin"
# The C++ unit tests (doctest); not the whole cpu suite, which holds this test.
UNIT_TESTS = ["cpu", "sampling"]
# What ./dev CMD would run to install or build; each stands in for it, on PATH, and says it ran.
INSTALLERS = ["dpkg-query", "apt-get", "apt-cache", "sudo", "meson", "ninja", "cp", "python3", "pip"]


def stand_in_installers(tmp):
    """tmp/bin/NAME for each of INSTALLERS: records its command line in tmp/ran and does nothing else."""
    (tmp / "bin").mkdir()
    for name in INSTALLERS:
        (tmp / "bin" / name).write_text(f'#!/bin/sh\necho "{name} $*" >>"{tmp}/ran"\n')
        (tmp / "bin" / name).chmod(0o755)


def dev(*args, **kwargs):
    return subprocess.run([ROOT / "dev", *args], capture_output=True, text=True, **kwargs)


def expect(ok, what, result):
    if not ok:
        sys.exit(f"test_dev: {what} (exit {result.returncode}):\n{result.stdout}{result.stderr}")


def check_help():
    """./dev --help, -h and help: the usage on stdout, saying what ./dev alone does; an unknown command named, with
    the commands, in one line; ./dev alone and ./dev CMD --help (and -h): usage (./dev's on stderr with exit 2, CMD's
    on stdout), nothing installed, built, copied or measured."""
    for asked in ("--help", "-h", "help"):
        usage = dev(asked)
        expect(usage.returncode == 0 and "(no command)" in usage.stdout and not usage.stderr, f"./dev {asked}", usage)
    bogus = dev("bogus")
    expect(bogus.returncode == 2 and bogus.stderr.startswith("./dev: no command 'bogus' (the commands: study test ")
           and len(bogus.stderr.splitlines()) == 1, "./dev bogus should name it and the commands in one line", bogus)
    empty = dev("")
    expect(empty.returncode == 2 and empty.stderr.startswith("./dev: no command '' "),
           "./dev '' should be refused, not run the study", empty)
    for cmd in ("deps", "build", "vendor"):
        stray = dev(cmd, "--bogus")
        expect(stray.returncode == 2 and stray.stderr == f"./dev {cmd}: takes no arguments (got: --bogus); see "
               f"./dev {cmd} --help\n", f"./dev {cmd} --bogus should refuse the argument", stray)
    commands = [c for c in re.findall(r"^  \./dev (\w+)", usage.stdout, re.M) if c != "help"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        stand_in_installers(tmp)
        env = dict(os.environ, PATH=f"{tmp}/bin:{os.environ['PATH']}", BUILD_DIR=str(tmp / "build"),
                   VENDOR_INCLUDE=str(tmp / "vendor"))
        bare = dev(env=env, cwd=tmp)
        ran = sorted(p.name for p in tmp.iterdir())
        expect(bare.returncode == 2 and not bare.stdout and bare.stderr == usage.stdout and ran == ["bin"],
               f"./dev alone should print the usage on stderr, exit 2 and do nothing else (ran: {ran})", bare)
        for cmd in commands:
            for asked in ("--help", "-h"):
                helped = dev(cmd, asked, env=env)
                ran = sorted(p.name for p in tmp.iterdir())
                expect(helped.returncode == 0 and helped.stdout.startswith(f"  ./dev {cmd}") and ran == ["bin"],
                       f"./dev {cmd} {asked} should print its usage and do nothing else (ran: {ran})", helped)


def check_paths_from_the_caller():
    """The paths given to ./dev appendix, paper and study mean what they mean in the caller's folder; ./dev study
    builds histostudy, not the tests it does not run."""
    with tempfile.TemporaryDirectory() as here, tempfile.TemporaryDirectory() as build:
        (pathlib.Path(here) / "mine.json").write_text("{}\n")
        (pathlib.Path(here) / "afile").write_text("mine\n")
        mine = dev("appendix", "mine.json", "-o", "fresh", cwd=here)
        expect(mine.returncode == 2 and "own_appendix: mine.json: not a histostudy result file" in mine.stderr
               and not (pathlib.Path(here) / "fresh").exists() and not (ROOT / "fresh").exists(),
               "./dev appendix mine.json should read the caller's mine.json", mine)
        for args in (["appendix", "mine.json", "-o", "afile"], ["paper", "--out", "afile"]):
            into = dev(*args, cwd=here)
            expect(into.returncode == 2 and into.stderr.endswith(": afile: exists and is not a folder\n"),
                   f"./dev {' '.join(args)} should check the caller's afile", into)
        # a build whose histostudy (a stand-in) is up to date and whose tests fail to build: ./dev study builds
        # histostudy alone
        (pathlib.Path(build) / "build.ninja").write_text("rule fail\n  command = false\nbuild tests: fail\n"
                                                         "build histostudy: phony\n")
        (pathlib.Path(build) / "histostudy").write_text('#!/bin/sh\npwd\nprintf "%s\\n" "$@"\n')
        (pathlib.Path(build) / "histostudy").chmod(0o755)
        for args, given in (
                (["-i", "x", "-o", "a", "--out-dir=b", "-oc", "--out-dir", "/d"], []),
                (["--input", "mine.bin", "--toolchain", "nvrtc:lib/libnvrtc.so.13", "--control", "modules:m"],
                 ["--out-dir", f"{ROOT}/runs"])):
            study = dev("study", *args, cwd=here, env=dict(os.environ, BUILD_DIR=build))
            # from the caller's folder, as typed, after the descriptor ./dev reads the result file's path from
            given = [os.path.realpath(here), "run", "--result-path-fd", "3", *given, *args]
            expect(study.returncode == 0 and study.stdout.splitlines()[-len(given):] == given,
                   f"./dev study should run histostudy {' '.join(given[1:])} in {here}", study)


def check_report_tools():
    """./dev lesson, history, fleet and counters run their plots tool from the caller's folder: a committed run's
    lesson table; a missing file or folder refused in one line and a non-zero exit."""
    run = ROOT / "data" / "runs" / ("20261201T160941Z_nvidia-h200_cpu-nvcc-13.0.88-nvrtc-12.6.85-nvrtc-13.0-"
                                    "nvcc-13.0.88-a-a-control.json")
    if not run.exists():
        sys.exit(f"test_dev: {run.name}, the committed H200 lesson run the report check reads, is missing")
    with tempfile.TemporaryDirectory() as here:
        (pathlib.Path(here) / "mine.json").write_bytes(run.read_bytes())
        lesson = dev("lesson", "mine.json", cwd=here)
        expect(lesson.returncode == 0 and "**Lesson table: " in lesson.stdout and "| uniform |" in lesson.stdout,
               "./dev lesson mine.json should print the lesson table of the caller's mine.json", lesson)
        for cmd in ("fleet", "history", "counters"):
            missing = dev(cmd, "nosuch", cwd=here)
            expect(missing.returncode != 0 and len(missing.stderr.splitlines()) == 1 and "nosuch" in missing.stderr,
                   f"./dev {cmd} nosuch should refuse it in one line", missing)


def check_result_path_whatever_it_holds():
    """./dev study makes the appendix of the result file run names on --result-path-fd, a newline in its path and
    all, whatever lines standard output holds (a table line may start "result file: "): the run and the Python
    are stand-ins, the Python saying what it was asked."""
    with tempfile.TemporaryDirectory() as here, tempfile.TemporaryDirectory() as build:
        saved = os.path.join(here, "runs", "odd\nname.json")
        asked = pathlib.Path(here) / "asked"
        (pathlib.Path(build) / "build.ninja").write_text("build histostudy: phony\n")
        (pathlib.Path(build) / "histostudy").write_text(
            "#!/bin/sh\necho 'result file: decoy.json'\necho 'result file: other.json'\n"
            "printf '%s\\0' \"$SAVED_PATH\" >&3\n")
        (pathlib.Path(build) / "python3").write_text(   # its libraries' check passes; the appendix says what it got
            f"#!/bin/sh\n[ \"$2\" = plots.requirements ] && exit 0\nprintf '%s\\0' \"$@\" >'{asked}'\n")
        for name in ("histostudy", "python3"):
            (pathlib.Path(build) / name).chmod(0o755)
        study = dev("study", cwd=here, env=dict(os.environ, BUILD_DIR=build, SAVED_PATH=saved,
                                                PYTHON=str(pathlib.Path(build) / "python3")))
        made = asked.read_bytes().split(b"\0")[:-1] if asked.exists() else []
        expected = [b"-m", b"plots.cli", b"own_appendix", saved.encode(), b"-o", saved.removesuffix(".json").encode()
                    + b"-appendix"]
        expect(study.returncode == 0 and made == expected,
               f"./dev study should make the appendix of {saved!r}, not {made!r}", study)


def check_peers_from_the_caller():
    """./dev peers runs tools/peers.py in the caller's folder, with the build's histostudy, in PEERS_PYTHON."""
    with tempfile.TemporaryDirectory() as here, tempfile.TemporaryDirectory() as build:
        (pathlib.Path(build) / "build.ninja").write_text("build histostudy: phony\n")   # nothing to do
        (pathlib.Path(build) / "histostudy").write_text("#!/bin/sh\n")
        (pathlib.Path(build) / "histostudy").chmod(0o755)
        python = pathlib.Path(here) / "python"
        python.write_text('#!/bin/sh\npwd\nprintf "%s\\n" "$@"\n')
        python.chmod(0o755)
        peers = dev("peers", "-o", "mine", cwd=here, env=dict(os.environ, BUILD_DIR=build, PEERS_PYTHON=str(python)))
        given = [os.path.realpath(here), str(ROOT / "tools" / "peers.py"), "--histostudy",
                 os.path.realpath(pathlib.Path(build) / "histostudy"), "-o", "mine"]
        expect(peers.returncode == 0 and peers.stdout.splitlines() == given,
               f"./dev peers should run {' '.join(given[1:])} in {here}", peers)


def check_audit_whatever_python3_is():
    """./dev audit of two committed runs, as the README has it, works where the python3 on PATH lacks numpy (a
    stand-in that cannot import it): ./dev runs the plots tools with the project's Python."""
    runs = sorted((ROOT / "data" / "runs").glob("20261201T16*_nvidia-h200_cpu-nvrtc-13.0-*a-a-control.json")) + \
        sorted((ROOT / "data" / "runs").glob("20261201T16*_nvidia-h200_cpu-nvcc-13.0.88-nvrtc-12.6.85-*.json"))
    if len(runs) < 2:
        sys.exit("test_dev: the two committed H200 lesson runs the audit check reads are missing from data/runs")
    with tempfile.TemporaryDirectory() as tmp:
        stub = pathlib.Path(tmp) / "python3"
        stub.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'numpy'\" >&2\nexit 1\n")
        stub.chmod(0o755)
        env = dict(os.environ, PATH=f"{tmp}:{os.environ['PATH']}")
        audit = dev("audit", str(runs[1]), str(runs[0]), "--experiment", "lesson", env=env, cwd=tmp)
    expect(audit.returncode == 0 and audit.stdout.splitlines()[-1].startswith("No regression beyond 1.10x"),
           "./dev audit of two committed runs with a python3 lacking numpy on PATH", audit)


def check_audit_refuses_what_it_cannot_do():
    """./dev audit of two releases on a machine with no GPU (nvidia-smi finds none) refuses in one line before it
    installs or builds anything; a result file that is not there is named as missing."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "bin").mkdir()
        (tmp / "bin" / "nvidia-smi").write_text("#!/bin/sh\nexit 9\n")
        (tmp / "bin" / "nvidia-smi").chmod(0o755)
        env = dict(os.environ, PATH=f"{tmp}/bin:{os.environ['PATH']}", BUILD_DIR=str(tmp / "build"))
        releases = dev("audit", "12.6", "13.0", env=env, cwd=tmp)
        expect(releases.returncode == 2 and releases.stderr.startswith("./dev audit: no GPU here")
               and len(releases.stderr.splitlines()) == 1 and not (tmp / "build").exists(),
               "./dev audit 12.6 13.0 with no GPU should refuse in one line before building", releases)
        (tmp / "old.json").write_text("{}")
        missing = dev("audit", "old.json", "new.json", env=env, cwd=tmp)
        expect(missing.returncode == 2 and missing.stderr == "./dev audit: new.json: no such file\n",
               "./dev audit of a result file that is not there should say so", missing)


def check_what_study_installs_and_refuses():
    """./dev study asks apt for the build's and the plots' packages, never LaTeX (./dev deps does: the control), and
    refuses in one line, before building or measuring, a Python whose numpy is older than plots/requirements.txt's
    floor (a numpy-1.0.0 dist-info ahead on PYTHONPATH stands in for an old one)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        stand_in_installers(tmp)
        old = tmp / "site" / "numpy-1.0.0.dist-info"
        old.mkdir(parents=True)
        (old / "METADATA").write_text("Metadata-Version: 2.1\nName: numpy\nVersion: 1.0.0\n")
        env = dict(os.environ, PATH=f"{tmp}/bin:{os.environ['PATH']}", BUILD_DIR=str(tmp / "build"),
                   VENDOR_INCLUDE=str(tmp / "vendor"), PYTHONPATH=str(tmp / "site"))
        study = dev("study", "-o", str(tmp / "runs"), env=env)
        asked = [line for line in (tmp / "ran").read_text().splitlines() if line.startswith("apt-get install")]
        expect(study.returncode == 2 and study.stderr.splitlines()[-1].startswith("plots: numpy 1.0.0 is older than ")
               and "-m pip install 'numpy>=" in study.stderr and not (tmp / "build").exists()
               and not (tmp / "runs").exists(), "./dev study with numpy 1.0.0 should refuse before building", study)
        expect(len(asked) == 1 and "python3-numpy" in asked[0] and "g++" in asked[0] and "texlive" not in asked[0],
               f"./dev study should ask apt for the build's and plots' packages, not LaTeX (asked: {asked})", study)
        (tmp / "ran").unlink()
        everything = dev("deps", env=env)
        asked = [line for line in (tmp / "ran").read_text().splitlines() if line.startswith("apt-get install")]
        expect(len(asked) == 1 and "texlive-latex-base" in asked[0],
               f"./dev deps should ask apt for LaTeX too (asked: {asked})", everything)


def check_study_without_a_gpu_builds_without_cuda():
    """./dev study where nvidia-smi finds no GPU configures a new build folder with -Dcuda=disabled and marks it; a
    later ./dev build turns CUDA back on in it first (meson configure -Dcuda=auto). A meson that only records its
    command lines (and writes build.ninja on setup) stands in for the real one, so nothing is built."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "bin").mkdir()
        stand_ins = {"meson": f'echo "meson $*" >>"{tmp}/ran"; [ "$1" = --version ] && echo 1.0.1; '
                              '[ "$1" = setup ] && mkdir -p "$2" && : >"$2/build.ninja"; exit 0',
                     "ninja": f'echo "ninja $*" >>"{tmp}/ran"', "nvidia-smi": "exit 9"}
        for name, body in stand_ins.items():
            (tmp / "bin" / name).write_text(f"#!/bin/sh\n{body}\n")
            (tmp / "bin" / name).chmod(0o755)
        env = dict(os.environ, PATH=f"{tmp}/bin:{os.environ['PATH']}", BUILD_DIR=str(tmp / "build"),
                   VENDOR_INCLUDE=str(tmp / "vendor"), MESON_ARGS="")
        env.pop("CUDA_TOOLKIT", None)
        study = dev("study", "-o", str(tmp / "runs"), env=env)
        ran = (tmp / "ran").read_text().splitlines()
        setup = [line for line in ran if line.startswith("meson setup")]
        expect(len(setup) == 1 and "-Dcuda=disabled" in setup[0] and (tmp / "build" / "cpu-only-for-study").exists(),
               f"./dev study with no GPU should configure without CUDA and mark the folder (ran: {ran})", study)
        (tmp / "ran").unlink()
        build = dev("build", env=env)
        ran = (tmp / "ran").read_text().splitlines()
        expect(any(line.startswith("meson configure") and "-Dcuda=auto" in line for line in ran)
               and not (tmp / "build" / "cpu-only-for-study").exists(),
               f"./dev build should turn CUDA back on in a folder configured for a CPU-only study (ran: {ran})",
               build)


def main():
    check_help()
    check_study_without_a_gpu_builds_without_cuda()
    check_what_study_installs_and_refuses()
    check_paths_from_the_caller()
    check_report_tools()
    check_result_path_whatever_it_holds()
    check_peers_from_the_caller()
    check_audit_whatever_python3_is()
    check_audit_refuses_what_it_cannot_do()
    unknown = subprocess.run([ROOT / "dev", "nvrtc", "99.9"], capture_output=True, text=True)
    if unknown.returncode != 2 or "no release 99.9 in data/nvrtc-releases.csv" not in unknown.stderr:
        sys.exit(f"test_dev: ./dev nvrtc 99.9 should refuse the release (exit 2): {unknown.returncode} {unknown.stderr}")
    env = {"DEV_MESON": "pypi", "PATH": "/usr/bin:/bin"}
    version = subprocess.run([ROOT / "dev", "meson", "--version"], capture_output=True, text=True, env=env)
    if version.returncode != 0:
        print(f"skipped: the PyPI meson cannot be installed here:\n{version.stderr}")
        return 77
    with tempfile.TemporaryDirectory() as build, tempfile.TemporaryDirectory() as vendor:
        env |= {"BUILD_DIR": build, "MESON_ARGS": "-Dcuda=disabled", "DEV_JSON": "pypi", "VENDOR_INCLUDE": vendor}
        test = subprocess.run([ROOT / "dev", "test", *UNIT_TESTS], capture_output=True, text=True, env=env, cwd=ROOT)
        summary = f"{len(UNIT_TESTS)} passed, 0 failed, 0 skipped"
        if test.returncode != 0 or summary not in test.stdout.splitlines():
            sys.exit(f"test_dev: ./dev test with the PyPI meson did not end in '{summary}':\n{test.stdout}{test.stderr}")
        # A name that matches no test: an error, never the summary of the run before (its log is still there).
        none = subprocess.run([ROOT / "dev", "test", "nosuch"], capture_output=True, text=True, env=env, cwd=ROOT)
        if none.returncode == 0 or "dev: no test ran (no test matches: nosuch;" not in none.stderr or "passed" in none.stdout:
            sys.exit(f"test_dev: ./dev test nosuch should fail and say no test ran:\n{none.stdout}{none.stderr}")
        info = json.loads((pathlib.Path(build) / "meson-info" / "meson-info.json").read_text())
        used = info["meson_version"]["full"]
        log = (pathlib.Path(build) / "meson-logs" / "meson-log.txt").read_text()
        ninja = re.search(r"^Found ninja-\S+ at (.+)$", log, re.M)
        vendored = sorted(p.name for p in pathlib.Path(vendor).iterdir())
    if vendored != ["nlohmann"] or f"Message: nlohmann_json from {vendor}" not in log:
        sys.exit(f"test_dev: nlohmann-json not from PyPI into VENDOR_INCLUDE ({vendored}):\n{test.stderr}")
    if used != version.stdout.strip() or not (VENV / "meson").exists():
        sys.exit(f"test_dev: configured by meson {used}, not the venv's {version.stdout.strip()}")
    if not ninja or ninja.group(1) != str(VENV / "ninja"):
        sys.exit(f"test_dev: built with {ninja.group(1) if ninja else 'no ninja found'}, not {VENV / 'ninja'}")
    print(f"./dev builds (CPU only) and passes {', '.join(UNIT_TESTS)} with the PyPI meson {used}, its ninja"
          " and the PyPI nlohmann-json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
