#!/usr/bin/env python3
"""The `count` and `generate` commands as a user runs them: agreement with an
independent count (Python's collections.Counter) and a clear one-line error
with a non-zero exit for every bad input. Usage: test_cli.py HISTOSTUDY"""
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

EXE = sys.argv.pop(1) if len(sys.argv) > 1 else "histostudy"


def run(*args, stdin=None):
    return subprocess.run([EXE, *args], input=stdin, capture_output=True, timeout=600)


def independent_count(data: bytes) -> str:
    counts = collections.Counter(data)
    return "".join(f"{v} {counts.get(v, 0)}\n" for v in range(256))


class Count(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def file_with(self, data: bytes) -> str:
        path = os.path.join(self.dir.name, f"f{random.random()}")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def assert_counts(self, data: bytes, *args, stdin=None):
        out = run("count", *args, stdin=stdin)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.decode(), independent_count(data))

    def test_binary_text_and_empty_files_with_every_cpu_impl(self):
        rng = random.Random(7)
        cases = [bytes(rng.getrandbits(8) for _ in range(100_003)), b"hello, histogram\n" * 999, b"", b"\x00", b"\xff" * 70000]
        for data in cases:
            path = self.file_with(data)
            for impl in ("reference", "openmp_private", "openmp_fast"):
                with self.subTest(len=len(data), impl=impl):
                    self.assert_counts(data, "--impl", impl, path)

    def test_standard_input(self):
        data = bytes(range(256)) * 1000 + b"tail"
        self.assert_counts(data, stdin=data)
        self.assert_counts(data, "-", stdin=data)
        longer = os.urandom((9 << 20) + 5)  # several of count's chunks through a pipe
        self.assert_counts(longer, "--impl", "openmp_fast", stdin=longer)

    def test_count_bench_checks_times_and_saves(self):
        path = self.file_with(bytes(range(256)) * 4096 + b"odd")
        out_dir = os.path.join(self.dir.name, "bench")
        out = run("count-bench", path, "--rounds", "2", "-o", out_dir)
        self.assertEqual(out.returncode, 0, out.stderr)
        saved = [os.path.join(out_dir, f) for f in os.listdir(out_dir)]
        self.assertEqual(len(saved), 1)
        self.assertIn(f"result file: {saved[0]}", out.stdout.decode())
        with open(saved[0], encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["format"], "histostudy-count-bench")
        self.assertEqual(doc["file"]["bytes"], 256 * 4096 + 3)
        self.assertEqual([e["name"] for e in doc["entries"]], ["count", "read_discard", "read_discard_again", "pread_discard"])
        for e in doc["entries"]:
            self.assertEqual(len(e["samples_s"]), 2)
            self.assertTrue(all(s > 0 for s in e["samples_s"]))
        self.assertIn(doc["cpu_paths"]["openmp_fast"], ("avx512", "scalar-8x16"))
        self.assertTrue(doc["environment"]["cpu"]["model_name"])
        self.assertGreater(doc["count_pct_of_read"], 0)
        self.assertGreaterEqual(doc["machine"]["timed_s"], 0)

    def test_larger_than_one_chunk(self):
        data = os.urandom((64 << 20) + 611)
        self.assert_counts(data, "--threads", "2", self.file_with(data))

    def expect_error(self, *args, code=None, says=""):
        out = run(*args)
        self.assertNotEqual(out.returncode, 0)
        if code is not None:
            self.assertEqual(out.returncode, code)
        err = out.stderr.decode()
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn(says, err)
        self.assertEqual(out.stdout, b"")

    def test_bad_paths(self):
        self.expect_error("count", os.path.join(self.dir.name, "missing"), says="No such file")
        self.expect_error("count", self.dir.name, says="is a directory")
        self.expect_error("count", "/proc/self/mem", says="read error")

    def test_unknown_and_unusable_implementations(self):
        path = self.file_with(b"abc")
        self.expect_error("count", "--impl", "nope", path, code=2, says="unknown implementation 'nope'")
        self.expect_error("count", "--impl", "openmp_read_floor", path, code=2, says="counts nothing")
        self.expect_error("count-bench", "-", code=2, says="regular file")
        self.expect_error("count-bench", path, "--impl", "openmp_read_floor", code=2, says="CPU implementations that count")
        self.expect_error("count-bench", path, "--rounds", "0", code=2, says="rounds")


class Generate(unittest.TestCase):
    def test_bytes_match_the_documented_generators(self):
        out = run("generate", "uniform", "--size", "1000")
        self.assertEqual(out.returncode, 0, out.stderr)
        state, want = 12345, bytearray()
        for _ in range(1000):
            state = (state * 1664525 + 1013904223) % 2**32
            want.append(state >> 24)
        self.assertEqual(out.stdout, bytes(want))
        self.assertEqual(run("generate", "one_byte", "-s", "611").stdout, b"e" * 611)
        k7 = run("generate", "distinct_7", "-s", "1000").stdout
        self.assertEqual(k7, bytes(b % 7 for b in want))

    def test_sizes_and_output_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.bin")
            out = run("generate", "prose", "--size", "64KiB+611", "-o", path)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(os.path.getsize(path), 65536 + 611)
            self.assertEqual(os.listdir(d), ["p.bin"])  # no temporary left behind

    def test_errors(self):
        e = Count.expect_error
        e(self, "generate", "nonsense", code=2, says="unknown input 'nonsense'")
        e(self, "generate", "distinct_300", code=2, says="K in 1..256")
        e(self, "generate", "uniform", "--size", "12XB", code=2, says="unknown unit")
        e(self, "generate", "uniform", "--size", "5TiB", code=2, says="larger than 1 TiB")
        e(self, "generate", "uniform", "--size", "", code=2, says="empty size")
        e(self, "generate", "/etc/hostname", code=2, says="is a file")
        e(self, "generate", "uniform", "-s", "10", "-o", "/nonexistent/dir/x", says="cannot create")
        e(self, "run", "--impl", "bogus", "--no-save", code=2, says="unknown implementation")
        e(self, "run", "--input", "bogus", "--no-save", code=2, says="unknown input")
        e(self, "run", "--experiment", "bogus", "--no-save", code=2, says="unknown experiment")
        e(self, "run", "--size", "1x", "--no-save", code=2, says="unknown unit")
        e(self, "run", "--impl", "reference", "--input", "/nonexistent", "--no-save", says="cannot open")
        e(self, "run", "--bins-offset", "100", "-s", "611", "--no-save", code=2, says="multiple of 128")
        e(self, "run", "--bins-offset", "2MiB", "-s", "611", "--no-save", code=2, says="not a number of bytes")
        e(self, "run", "--reps", "30", "--max-reps", "10", "-s", "611", "--no-save", code=2, says="below --reps")
        e(self, "run", "--cache", "warm", "-s", "611", "--no-save", code=2, says="warm")
        e(self, "run", "--control", "bogus", "-s", "611", "--no-save", code=2, says="unknown toolchain 'bogus'")
        if b"cubins" in run("--help").stdout:  # built with CUDA
            e(self, "cubins", "-o", tempfile.gettempdir(), "--arch", "12x", code=2, says="compute capability")
        if "[cannot run here]" in run("list").stdout.decode():  # a machine without a usable GPU
            e(self, "run", "--experiment", "perf", "--no-save", says="needs the GPU kernels")
            e(self, "run", "--impl", "lane_shared", "--no-save", says="cannot run here")
            e(self, "run", "--experiment", "placement", "--no-save", says="needs the GPU kernels that count")


if __name__ == "__main__":
    unittest.main(verbosity=2)
