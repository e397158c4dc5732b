#!/usr/bin/env python3
"""./dev where the system's meson is missing or too old (Ubuntu 22.04 ships
0.61): DEV_MESON=pypi forces the pinned PyPI meson and ninja in .deps/venv,
which must configure the project. Exits 77 (skipped) only when PyPI or
python3-venv is not reachable here. Usage: test_dev.py"""
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    unknown = subprocess.run([ROOT / "dev", "nvrtc", "99.9"], capture_output=True, text=True)
    if unknown.returncode != 2 or "no release 99.9 in data/nvrtc-releases.csv" not in unknown.stderr:
        sys.exit(f"test_dev: ./dev nvrtc 99.9 should refuse the release (exit 2): {unknown.returncode} {unknown.stderr}")
    env = {"DEV_MESON": "pypi", "PATH": "/usr/bin:/bin"}
    version = subprocess.run([ROOT / "dev", "meson", "--version"], capture_output=True, text=True, env=env)
    if version.returncode != 0:
        print(f"skipped: the PyPI meson cannot be installed here:\n{version.stderr}")
        return 77
    with tempfile.TemporaryDirectory() as build:
        setup = subprocess.run([ROOT / "dev", "meson", "setup", build, "-Dcuda=disabled"], capture_output=True,
                               text=True, env=env, cwd=ROOT)
        if setup.returncode != 0:
            sys.exit(f"test_dev: meson setup with the PyPI meson failed:\n{setup.stdout}{setup.stderr}")
        info = json.loads((pathlib.Path(build) / "meson-info" / "meson-info.json").read_text())
        used = info["meson_version"]["full"]
    if used != version.stdout.strip() or not (ROOT / ".deps" / "venv" / "bin" / "meson").exists():
        sys.exit(f"test_dev: configured by meson {used}, not the venv's {version.stdout.strip()}")
    print(f"./dev configures with the PyPI meson {used} from .deps/venv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
