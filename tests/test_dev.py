#!/usr/bin/env python3
"""./dev where the system's meson is missing or too old (Ubuntu 22.04 ships
0.61) and where the nlohmann-json package is: DEV_MESON=pypi forces the
pinned PyPI meson and ninja in .deps/venv, DEV_JSON=pypi the pinned PyPI
nlohmann-json (into a temporary VENDOR_INCLUDE), with which `./dev test` must
configure, build (CPU only, in a temporary build folder) and pass the doctest
suites. Exits 77 (skipped) only when PyPI or python3-venv is not reachable
here. Usage: test_dev.py"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENV = ROOT / ".deps" / "venv" / "bin"
# The C++ unit tests (doctest); not the whole cpu suite, which holds this test.
UNIT_TESTS = ["cpu", "sampling"]


def main():
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
