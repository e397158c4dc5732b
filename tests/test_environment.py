#!/usr/bin/env python3
"""The environment record and the toolchain options as a user meets them on
any machine, with or without a GPU: `env` always answers with JSON (saying
why there is no GPU or driver where there is none), a run records the
driver, the GPU state before and after, and a real commit or null, and a
toolchain that is not there is a usage error. Usage: test_environment.py HISTOSTUDY"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

EXE = sys.argv.pop(1) if len(sys.argv) > 1 else "histostudy"


def run(*args):
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=600)


class Environment(unittest.TestCase):
    def test_env_answers_with_or_without_a_gpu(self):
        out = run("env")
        self.assertEqual(out.returncode, 0, out.stderr)
        record = json.loads(out.stdout)
        for key in ("host", "build", "driver", "executors", "gpu_absent", "gpu_state"):
            self.assertIn(key, record)
        self.assertIn("driver_version", record["driver"])
        self.assertIn("cuda_compiler", record["build"])
        if record["gpu_absent"]:
            self.assertIsNone(record["gpu_state"])
        if record["driver"]["driver_version"] is None:
            self.assertTrue(record["driver"]["unavailable"])

    def test_a_run_records_driver_state_and_provenance(self):
        with tempfile.TemporaryDirectory() as out_dir:
            out = run("run", "-i", "reference", "--input", "uniform", "-s", "611", "-o", out_dir)
            self.assertEqual(out.returncode, 0, out.stderr)
            [path] = pathlib.Path(out_dir).glob("*.json")
            doc = json.loads(path.read_text())
        env = doc["environment"]
        self.assertIn("driver_version", env["driver"])
        self.assertIn("gpu_state_before", env)
        self.assertIn("gpu_state_after", env)
        cpu = env["host"]["cpu"]   # the generation beside the model name, which names none ("AMD EPYC")
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            first = {key.strip(): value.strip() for key, value in
                     (line.split(":", 1) for line in f.read().split("\n\n")[0].splitlines() if ":" in line)}
        self.assertEqual((cpu["family"], cpu["model"]), (first["cpu family"], first["model"]))
        wanted = ["avx2", "avx512f", "avx512bw", "avx512vbmi", "avx512_vbmi2", "avx512_bitalg", "gfni"]
        self.assertEqual(cpu["features"], [f for f in wanted if f in first["flags"].split()])
        commit = doc["provenance"]["git_commit"]
        self.assertTrue(commit is None or re.fullmatch(r"[0-9a-f]{40}", commit), commit)


class Toolchains(unittest.TestCase):
    def setUp(self):
        if not json.loads(run("env").stdout)["build"]["cuda_built"]:
            self.skipTest("built without CUDA: --toolchain names no GPU toolchain")

    def assert_usage_error(self, toolchain, words):
        out = run("run", "--toolchain", toolchain, "-i", "reference", "-s", "611", "--no-save")
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn(words, out.stderr)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)

    def test_unknown_toolchain(self):
        self.assert_usage_error("nvcc,bogus", "unknown toolchain 'bogus'")

    def test_missing_nvrtc_library(self):
        with tempfile.TemporaryDirectory() as d:   # a path absent on any machine
            self.assert_usage_error(f"nvrtc:{d}/libnvrtc.so.12", f"cannot load {d}/libnvrtc.so.12")

    def test_list_names_toolchains(self):
        out = run("list")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("toolchains (--toolchain SPEC)", out.stdout)


if __name__ == "__main__":
    unittest.main()
