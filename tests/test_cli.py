#!/usr/bin/env python3
"""The `count` and `generate` commands as a user runs them: agreement with an
independent count (Python's collections.Counter) and a clear one-line error
with a non-zero exit for every bad input. Usage: test_cli.py HISTOSTUDY"""
import ast
import collections
import itertools
import json
import os
import pathlib
import pty
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

EXE = sys.argv.pop(1) if len(sys.argv) > 1 else "histostudy"


def run(*args, stdin=None):
    return subprocess.run([EXE, *args], input=stdin, capture_output=True, timeout=600)


def drained(main):
    """Everything a pseudo-terminal's reader can read once its writer has exited: the tty layer hands a
    writer's bytes to the reader asynchronously, so one read may return the last write's bytes or not yet."""
    text = b""
    while select.select([main], [], [], 1)[0]:   # the terminal stays open: no end of file, only a pause
        text += os.read(main, 4096)
    return text.decode()


def counts_default(option):
    """count's own value of a count-bench plan option (study/count/count.hpp: kGpuChunk, kGpuBuffers), as its --help
    names it: '4MiB', '8'."""
    return re.search(rf"{option} .*?\(default count's, (\w+)\)", run("count-bench", "--help").stdout.decode(),
                     re.S).group(1)


def gpu_chunk():
    """count's GPU chunk in bytes."""
    return int(counts_default("--chunk").removesuffix("MiB")) << 20


def built_with_cuda():
    """Whether this histostudy has the CUDA backend, by its own record (every build lists `cubins`)."""
    return json.loads(run("env").stdout)["build"]["cuda_built"]


def independent_count(data: bytes) -> str:
    counts = collections.Counter(data)
    return "".join(f"{v} {counts.get(v, 0)}\n" for v in range(256))


def check_counted_from_offsets(case, path, data, impls, offsets):
    """count of standard input, the regular file `path` (holding `data`) read up to each offset before, by each
    implementation: the rest of it, and the offset left at the end, as cat and wc leave it."""
    for impl in impls:
        for offset in offsets:
            with case.subTest(impl=impl, offset=offset), open(path, "rb") as f:
                f.seek(offset)
                out = subprocess.run([EXE, "count", "--impl", impl], stdin=f, capture_output=True, timeout=120)
                case.assertEqual(out.returncode, 0, out.stderr)
                case.assertEqual(out.stdout.decode(), independent_count(data[offset:]))
                case.assertEqual(os.lseek(f.fileno(), 0, os.SEEK_CUR), len(data))


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
        self.assertEqual((doc.get("schema_version"), "version" in doc), (3, False))  # one version key everywhere
        self.assertEqual(doc["file"]["bytes"], 256 * 4096 + 3)
        self.assertEqual([e["name"] for e in doc["entries"]],
                         ["count", "read_discard", "read_discard_again", "count_again", "pread_discard",
                          "count_in_memory"])
        self.assertEqual(doc["order"], "rotating: round r starts at entry r mod 6; each timed pass after 50 ms idle")
        self.assertEqual(doc["settle_s"], 0.05)
        self.assertGreaterEqual(doc["machine"]["timed_s"], 2 * 6 * 0.05)  # every timed pass waited its settle
        self.assertGreater(doc["count_control_pct"], 0)
        self.assertRegex(out.stdout.decode(), r"\(A/A control: [0-9]+%; count's own: [0-9]+%\)")
        self.assertIn("each timed pass after 50 ms idle", out.stdout.decode())
        self.assertNotIn("a file under 1 MiB", out.stdout.decode())   # 1 MiB and 3 bytes
        self.assertGreater(doc["counting_alone"]["pct_of_read"], 0)
        self.assertIn("counting alone, the file's bytes in memory: ", out.stdout.decode())
        for e in doc["entries"]:
            self.assertEqual(len(e["samples_s"]), 2)
            self.assertTrue(all(s > 0 for s in e["samples_s"]))
        self.assertIn(doc["cpu_paths"]["openmp_fast"], ("avx512", "scalar-8x16"))
        self.assertTrue(doc["environment"]["host"]["cpu"]["model_name"])
        self.assertGreater(doc["count_pct_of_read"], 0)
        self.assertGreaterEqual(doc["machine"]["timed_s"], 0)
        self.assertGreaterEqual(doc["machine"]["steal_s"], 0)
        self.assertRegex(out.stdout.decode(),
                         r"while the timed passes ran \([0-9.]+ s\), other processes used [0-9.]+ CPU s; the "
                         r"hypervisor stole [0-9.]+ s")
        passes = doc["machine"]["passes"]
        self.assertAlmostEqual(passes["seconds"], sum(sum(e["samples_s"]) for e in doc["entries"]))
        self.assertLess(passes["seconds"], doc["machine"]["timed_s"] - 2 * 6 * 0.05)  # no idle, no untimed pass

    def test_count_bench_settles_as_long_as_asked(self):
        path = self.file_with(b"abc" * 1000)
        for settle, at_least in (("0", 0), ("300", 2 * 6 * 0.3), ("010", 0)):  # 010: ten, not octal eight
            out = run("count-bench", path, "--rounds", "2", "--settle", settle, "-o", self.dir.name)
            self.assertEqual(out.returncode, 0, out.stderr)
            saved = out.stdout.decode().split("result file: ")[1].strip()
            with open(saved, encoding="utf-8") as f:
                doc = json.load(f)
            self.assertEqual(doc["settle_s"], int(settle, 10) / 1000)
            self.assertIn("(a file under 1 MiB: a pass this short times mostly its calls' own costs",
                          out.stdout.decode())
            self.assertGreaterEqual(doc["machine"]["timed_s"], at_least)
        for bad in ("-1", "10001", "1.5"):
            refused = run("count-bench", path, "--settle", bad, "--no-save")
            self.assertEqual(refused.returncode, 2, bad)
            self.assertIn("--settle", refused.stderr.decode())

    def test_standard_input_counted_from_its_offset_and_left_at_its_end(self):
        data = os.urandom(3_000_000)
        path = self.file_with(data)
        check_counted_from_offsets(self, path, data, ("reference", "openmp_fast"), (0, 1_234_567))

    def test_a_long_count_shows_its_progress_on_a_terminal_only(self):
        def count_slow_stream(stderr, seconds):   # a stream whose writer takes `seconds` to finish
            count = subprocess.Popen([EXE, "count"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
            count.stdin.write(b"abc" * 1000), count.stdin.flush()
            time.sleep(seconds)
            out, err = count.communicate(timeout=30)
            self.assertEqual((count.returncode, out.decode()), (0, independent_count(b"abc" * 1000)))
            return err

        def on_a_terminal(seconds):
            main, terminal = pty.openpty()
            try:
                count_slow_stream(terminal, seconds)
                return drained(main)
            finally:
                os.close(main), os.close(terminal)

        self.assertEqual(count_slow_stream(subprocess.PIPE, 3.5), b"")   # a log or a pipe gets nothing
        self.assertEqual(on_a_terminal(0.5), "")                          # nor a count shorter than 2 s
        shown = on_a_terminal(3.5)
        self.assertRegex(shown, r"^\r\x1b\[Khistostudy count: read \d+\.\d GB \(\d+\.\d GB/s\)")
        self.assertTrue(shown.endswith("\r\x1b[K"), repr(shown))         # erased at the end

    def test_standard_input_at_an_offset_that_changes_while_counted_is_refused(self):
        path = self.file_with(os.urandom(256 << 20))
        with open(path, "rb") as f:
            f.seek(1)
            count = subprocess.Popen([EXE, "count", "--impl", "reference"], stdin=f, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
            with open(path, "ab") as grow:
                while count.poll() is None:   # it grows all the while: the count cannot miss it
                    grow.write(b"x" * 65536), grow.flush(), time.sleep(0.01)
            out, err = count.communicate(timeout=60)
        self.assertEqual((count.returncode, out), (1, b""))
        self.assertEqual(err.decode(), "histostudy: error: standard input: changed while counted\n")

    def bench_stopped(self, change):
        """count-bench of a 32 MiB file that `change` changes once its passes are being timed: the incomplete
        file it saved, and its error."""
        path = self.file_with(os.urandom(32 << 20))
        out_dir = os.path.join(self.dir.name, "bench")
        bench = subprocess.Popen([EXE, "count-bench", path, "--rounds", "1000", "-o", out_dir],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(3)   # past the check and the untimed passes (well under 1 s), far from the 1,000th rotation
        self.assertIsNone(bench.poll(), "count-bench ended before the file changed")
        change(path)
        out, err = bench.communicate(timeout=120)
        self.assertEqual((bench.returncode, out), (1, b""), err)
        saved = [os.path.join(out_dir, f) for f in os.listdir(out_dir)]
        self.assertEqual(len(saved), 1)
        with open(saved[0], encoding="utf-8") as f:
            doc = json.load(f)
        error = doc["incomplete"]["error"]
        self.assertEqual(err.decode(), f"histostudy: error: {error} (what was measured before it is in {saved[0]})\n")
        self.assertTrue(all(e["samples_s"] for e in doc["entries"]))
        self.assertLess(min(len(e["samples_s"]) for e in doc["entries"]), 1000)
        self.assertFalse([k for k in doc if "_pct_" in k])   # no ratio of rotations that did not all run
        return doc, error, path

    def test_count_bench_saves_what_it_measured_before_the_file_changed(self):
        def grow(path):
            with open(path, "ab") as f:
                f.write(b"more")
        doc, error, path = self.bench_stopped(grow)
        self.assertIn(error, (f"{path}: changed while counted", f"{path}: changed while timed"))   # whichever pass met it
        self.assertGreaterEqual(doc["file"]["page_cached_after"], 0)   # measured: the file is there

    def test_count_bench_saves_what_it_measured_before_the_file_was_removed(self):
        doc, error, path = self.bench_stopped(os.remove)
        self.assertIn(error, (f"{path}: cannot open (No such file or directory)", f"{path}: changed while timed"))
        self.assertEqual(doc["file"]["page_cached_after"], -1)   # not measured: it is gone

    def test_count_bench_refuses_a_file_whose_copy_would_not_fit(self):
        with open("/proc/meminfo") as f:
            available = next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
        path = os.path.join(self.dir.name, "sparse")
        with open(path, "wb") as f:
            f.truncate(2 * available)  # sparse: no disk, and refused before a byte is read
        self.expect_error("count-bench", path, "--no-save", code=2, says="bytes twice is more than the")

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

    def test_closed_standard_streams(self):
        # stdin closed: one line, not a read of whatever descriptor took number 0 (on a GPU machine the
        # GPU's device node: count hung there; the reader's eventfd before that)
        for impl in ("openmp_fast", "reference"):
            out = subprocess.run([EXE, "count", "--impl", impl, "-"], capture_output=True, timeout=20,
                                 preexec_fn=lambda: os.close(0))
            self.assertEqual((out.returncode, out.stdout), (1, b""), impl)
            self.assertEqual(out.stderr.decode(), "histostudy: error: standard input: is closed\n")
        # ... and reopened by name it is no empty file (that counted 0 bytes and exited 0), nor a folder for
        # result files (they went into /)
        for args in (["count", "/dev/stdin"], ["count-bench", self.file_with(b"abc"), "-o", "/dev/stdin"]):
            out = subprocess.run([EXE, *args], capture_output=True, timeout=20, preexec_fn=lambda: os.close(0))
            self.assertEqual((out.returncode, out.stdout), (1, b""), args)
            self.assertEqual(out.stderr.decode(), "histostudy: error: /dev/stdin: standard input, which is closed\n")
        # stdout closed: the histogram cannot go anywhere, and must not go into another descriptor
        out = subprocess.run([EXE, "count", "-"], input=b"abc", stdout=None, stderr=subprocess.PIPE, timeout=60,
                             preexec_fn=lambda: os.close(1))
        self.assertEqual(out.returncode, 1)
        self.assertEqual(len(out.stderr.decode().splitlines()), 1, out.stderr)
        # ... nor, named, the bytes of generate (they went to nothing, exit 0)
        out = subprocess.run([EXE, "generate", "uniform", "-s", "1KiB", "-o", "/dev/stdout"], stdout=None,
                             stderr=subprocess.PIPE, timeout=20, preexec_fn=lambda: os.close(1))
        self.assertEqual(out.returncode, 1)
        self.assertEqual(out.stderr.decode(), "histostudy: error: /dev/stdout: standard output, which is closed\n")

    def test_bad_paths(self):
        self.expect_error("count", os.path.join(self.dir.name, "missing"), says="No such file")
        self.expect_error("count", self.dir.name, says="is a directory")
        self.expect_error("count", "/proc/self/mem", says="read error")

    def test_unknown_and_unusable_implementations(self):
        path = self.file_with(b"abc")
        self.expect_error("count", "--impl", "nope", path, code=2, says="unknown implementation 'nope'")
        self.expect_error("count", "--impl", "openmp_read_floor", path, code=2, says="counts nothing")
        self.expect_error("count-bench", "-", code=2, says="regular file named by its path, not standard input")
        self.expect_error("count-bench", os.path.join(self.dir.name, "missing"), code=1, says="No such file")
        self.expect_error("count-bench", self.dir.name, code=2, says="regular file")
        for flag in ("--chunk", "--piece"):
            for zero in ("0", "0B", "0MiB"):
                self.expect_error("count-bench", path, "--impl", "lane_shared", flag, zero, code=2,
                                  says=f"{flag}: {zero} is a size of 0 bytes")
            self.expect_error("count-bench", path, flag, "", code=2, says=f"{flag}: empty size")
        for command in (["count", path], ["count-bench", path, "--no-save"], ["env"], ["run", "--no-save"]):
            self.expect_error(*command, "--device", "", code=2, says="--device: an empty value names nothing")
        self.expect_error("count-bench", path, "--impl", "openmp_read_floor", code=2, says="implementations that count")
        self.expect_error("count-bench", path, "--impl", "read_floor", code=2, says="implementations that count")
        self.expect_error("count-bench", path, "--rounds", "0", code=2, says="rounds")
        self.expect_error("count-bench", path, "--chunk", "16MiB", code=2, says="are for GPU implementations")
        self.expect_error("count-bench", path, "--device", "0", code=2, says="are for GPU implementations")
        self.expect_error("count-bench", path, "--buffers", "8", code=2, says="are for GPU implementations")
        self.expect_error("count-bench", path, "--piece", "2MiB", code=2, says="are for GPU implementations")
        for chunk in ("3000", "2GiB", "1MiB+1"):
            self.expect_error("count-bench", path, "--impl", "lane_shared", "--chunk", chunk, code=2, says="whole pieces")
        self.expect_error("count-bench", path, "--impl", "lane_shared", "--chunk", "3MiB", "--piece", "2MiB", code=2,
                          says="whole pieces (2,097,152 bytes)")
        for piece in ("1000", "1MiB+4KiB", "2GiB"):
            self.expect_error("count-bench", path, "--impl", "lane_shared", "--piece", piece, code=2, says="whole 64 KiB")
        self.expect_error("count-bench", path, "--impl", "lane_shared", "--piece", "3MiB", code=2, says="name a --chunk")
        self.expect_error("count-bench", path, "--impl", "lane_shared", "--buffers", "1", code=2, says="2..64")
        self.expect_error("count-bench", path, "--impl", "lane_shared", "--chunk", "1GiB", "--buffers", "8", code=2,
                          says="8,589,934,592 bytes of pinned buffers, and the floor's 33,554,432 beside them; "
                               "at most 4,294,967,296 in all")
        self.expect_error("count-bench", path, "--impl", "lane_shared", "--chunk", "1GiB", "--buffers", "4", code=2,
                          says="4,294,967,296 bytes of pinned buffers, and the floor's")  # the ring alone would fit

    def test_gpu_implementations_without_a_gpu_are_one_line(self):
        if "[cannot run here]" not in run("list").stdout.decode():
            self.skipTest("a GPU is here: GpuCount counts with it")
        path = self.file_with(b"abc" * 1000)
        for impl in ("lane_shared", "per_block", "cub"):
            self.expect_error("count", "--impl", impl, path, code=1, says=f"implementation '{impl}' cannot run here")
            self.expect_error("count-bench", path, "--impl", impl, "--no-save", code=1, says="cannot run here")


class CountBenchOptions(unittest.TestCase):
    def test_the_paper_knows_every_count_bench_option_as_a_plan_or_not(self):
        """plots/count_bench.py judges no file whose command line names a plan option: a new option must be put
        in PLAN_OPTIONS or OTHER_OPTIONS there, or a file timed with another plan would be judged as count's."""
        source = (pathlib.Path(__file__).resolve().parent.parent / "plots" / "count_bench.py").read_text()
        known = set()
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and node.targets[0].id in ("PLAN_OPTIONS", "OTHER_OPTIONS"):
                known |= set(ast.literal_eval(node.value))
        listed = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", run("count-bench", "--help").stdout.decode().split("Options:")[1]))
        self.assertTrue({"--chunk", "--impl", "--settle", "-t"} <= listed, listed)
        self.assertEqual(listed - known, set())


class GpuCount(unittest.TestCase):
    """`count --impl <GPU implementation>` streams a file through pinned chunks; it must equal the reference."""

    def setUp(self):
        if "[cannot run here]" in run("list").stdout.decode():
            self.skipTest("no usable GPU here")
        self.dir = tempfile.TemporaryDirectory()
        self.CHUNK = gpu_chunk()

    def tearDown(self):
        self.dir.cleanup()

    def file_with(self, data: bytes) -> str:
        path = os.path.join(self.dir.name, f"g{len(data)}")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def count(self, *args, stdin=None) -> str:
        out = run("count", *args, stdin=stdin)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout.decode()

    def test_files_of_every_size_around_the_chunk_equal_the_reference(self):
        for n in (2 * self.CHUNK + 4099, 100_003, 1, 0):
            data = os.urandom(n)
            path = self.file_with(data)
            want = self.count("--impl", "reference", path)
            self.assertEqual(want, independent_count(data))
            for impl in ("lane_shared", "per_block", "cub"):
                with self.subTest(bytes=n, impl=impl):
                    self.assertEqual(self.count("--impl", impl, path), want)
            self.assertEqual(self.count("--impl", "lane_shared", "--threads", "3", path), want)

    def test_standard_input(self):
        data = b"\x07" * (self.CHUNK + 5) + bytes(range(256)) * 611
        for impl in ("lane_shared", "cub"):
            with self.subTest(impl=impl):
                self.assertEqual(self.count("--impl", impl, stdin=data), independent_count(data))

    def test_standard_input_counted_from_its_offset(self):
        data = os.urandom(self.CHUNK + 12345)
        path = self.file_with(data)
        check_counted_from_offsets(self, path, data, ("lane_shared", "cub"), (0, 1_000_001))

    def test_count_bench_checks_times_and_saves(self):
        path = self.file_with(bytes(range(256)) * 69632 + b"odd")  # 17 MiB + 3: more than one floor copy
        out_dir = os.path.join(self.dir.name, "bench")
        out = run("count-bench", path, "--impl", "lane_shared", "--rounds", "2", "--chunk", "1MiB", "-o", out_dir)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("of pinned host-to-device copies", out.stdout.decode())
        saved = [os.path.join(out_dir, f) for f in os.listdir(out_dir)]
        self.assertEqual(len(saved), 1)
        with open(saved[0], encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["backend"], "cuda")
        self.assertEqual([e["name"] for e in doc["entries"]],
                         ["count", "h2d_pinned", "h2d_pinned_again", "count_again", "pread_pinned"])
        for e in doc["entries"]:
            self.assertEqual(len(e["samples_s"]), 2)
            self.assertTrue(all(s > 0 for s in e["samples_s"]))
        self.assertEqual((doc["chunk_bytes"], doc["buffers"], doc["piece_bytes"]),
                         (1 << 20, int(counts_default("--buffers")), 1 << 20))
        floor = next(e for e in doc["entries"] if e["name"] == "h2d_pinned")["what"]
        self.assertIn("16,777,216-byte copies from 2 pinned buffers of their own", floor)  # not --chunk's
        self.assertEqual((doc["floor_copy_bytes"], doc["floor_buffers"]), (16 << 20, 2))
        self.assertGreater(doc["floor_setup_s"], 0)
        self.assertNotEqual(16 << 20, gpu_chunk())   # nor count's own chunk, which a floor in count's plan would copy
        self.assertEqual(doc["policy"]["counter_bits"], 64)
        self.assertTrue(doc["device"]["name"])
        self.assertIn("gpu_state_after", doc["environment"])
        for ratio in ("count_pct_of_h2d", "control_pct_of_h2d", "count_pct_of_pread", "count_control_pct"):
            self.assertGreater(doc[ratio], 0)
        self.assertEqual(doc["settle_s"], 0.05)


class Generate(unittest.TestCase):
    def test_a_long_generate_shows_its_progress_on_a_terminal_only(self):
        def generate_to_a_slow_reader(stderr, seconds):   # its pipe read only after `seconds`
            gen = subprocess.Popen([EXE, "generate", "uniform", "-s", "4MiB"], stdout=subprocess.PIPE, stderr=stderr)
            time.sleep(seconds)
            out, err = gen.communicate(timeout=30)
            self.assertEqual((gen.returncode, len(out)), (0, 4 << 20))
            return err

        main, terminal = pty.openpty()
        try:
            generate_to_a_slow_reader(terminal, 3.5)
            shown = drained(main)
        finally:
            os.close(main), os.close(terminal)
        self.assertRegex(shown, r"^\r\x1b\[Khistostudy generate: wrote \d+\.\d GB \(\d+\.\d GB/s\)")
        self.assertTrue(shown.endswith("\r\x1b[K"), repr(shown))
        self.assertEqual(generate_to_a_slow_reader(subprocess.PIPE, 2.5), b"")   # a log or a pipe gets nothing

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

    def test_one_spelling_per_input(self):
        """distinct_01 was distinct_1's bytes under another name: measured again as another input."""
        e = Count.expect_error
        for name in ("distinct_01", "distinct_001"):
            e(self, "generate", name, "-s", "10", code=2, says="write it distinct_1")
            e(self, "run", "-i", "reference", "--input", f"distinct_1,{name}", "-s", "611", "--no-save", code=2,
              says="write it distinct_1")

    def test_errors(self):
        missing = os.path.join(self.enterContext(tempfile.TemporaryDirectory()), "missing")   # absent on any machine
        e = Count.expect_error
        e(self, "generate", "nonsense", code=2, says="unknown input 'nonsense'")
        e(self, "generate", "distinct_300", code=2, says="K in 1..256")
        e(self, "generate", "uniform", "--size", "12XB", code=2, says="unknown unit")
        e(self, "generate", "uniform", "--size", "5TiB", code=2, says="larger than 1 TiB")
        e(self, "generate", "uniform", "--size", "", code=2, says="empty size")
        e(self, "generate", "/etc/hostname", code=2, says="is a file")
        e(self, "generate", "uniform", "--size", "0", code=2, says="a size of 0 bytes")
        e(self, "generate", "uniform", "-s", "10", "-o", f"{missing}/dir/x", code=2, says="cannot create")
        e(self, "generate", "uniform", "-s", "10", "-o", "/etc/hostname/x", code=2, says="cannot create")
        e(self, "run", "--impl", "bogus", "--no-save", code=2, says="unknown implementation")
        e(self, "run", "--input", "bogus", "--no-save", code=2, says="unknown input")
        e(self, "run", "--experiment", "bogus", "--no-save", code=2, says="unknown experiment")
        e(self, "run", "--size", "1x", "--no-save", code=2, says="unknown unit")
        e(self, "run", "--impl", "reference", "--input", missing, "--no-save", says="cannot open")
        e(self, "run", "--bins-offset", "100", "-s", "611", "--no-save", code=2, says="multiple of 128")
        e(self, "run", "--bins-offset", "2MiB", "-s", "611", "--no-save", code=2, says="not a number of bytes")
        e(self, "run", "--reps", "30", "--max-reps", "10", "-s", "611", "--no-save", code=2, says="below --reps")
        e(self, "run", "--cache", "warm", "-s", "611", "--no-save", code=2, says="warm")
        e(self, "run", "--lesson-reps", "-1", "-s", "611", "--no-save", code=2, says="is outside 0..100000")
        e(self, "run", "--control", "bogus", "-s", "611", "--no-save", code=2, says="unknown toolchain 'bogus'")
        e(self, "-s", "611", "-i", "reference", "--no-save", code=2,   # run's options, run's name left out
          says="options come after a command; did you mean: histostudy run -s 611 -i reference --no-save")
        e(self, "-s", "611", "--bogus", code=2, says="not expected: --bogus")   # no command takes these
        if built_with_cuda():
            e(self, "cubins", "-o", tempfile.gettempdir(), "--arch", "12x", code=2, says="compute capability")
        if "[cannot run here]" in run("list").stdout.decode():  # a machine without a usable GPU
            e(self, "run", "--experiment", "perf", "--no-save", says="needs GPU implementations")
            e(self, "run", "--impl", "lane_shared", "--no-save", says="cannot run here")
            e(self, "run", "--experiment", "placement", "--no-save", says="needs GPU implementations that count")


class Device(unittest.TestCase):
    """--device names the GPU of run, count and env; a GPU that is not here is one clear line."""

    def test_a_device_that_is_not_here_is_refused(self):
        gpu = "[cannot run here]" not in run("list").stdout.decode()
        for command in (["run", "-s", "611", "--impl", "reference", "--no-save"], ["env"], ["count"]):
            r = run(*command, "--device", "99", stdin=b"")
            err = r.stderr.decode()
            self.assertNotEqual(r.returncode, 0, command)
            self.assertEqual(err.count("\n"), 1, err)
            self.assertIn("--device 99:", err)
            if gpu:
                self.assertIn("GPUs here: 0: ", err)

    def test_several_devices_without_a_gpu_or_badly_named_are_one_line(self):
        gpu = "[cannot run here]" not in run("list").stdout.decode()
        study = ["run", "-s", "611", "--impl", "reference", "--no-save"]
        cases = [(study + ["--device", "0,0"], 2, "--device 0,0: 0 named twice"),
                 (study + ["--device", ","], 2, "--device ,: name GPUs"),
                 (study + ["--run-id", "a b"], 2, "--run-id a b: name it with"),
                 (["env", "--device", "all"], 2, "--device all: this command runs on one GPU"),
                 (["count", "--device", "0,1"], 2, "--device 0,1: this command runs on one GPU")]
        if not gpu:
            cases += [(study + ["--device", "all"], 1, "--device all: "),
                      (study + ["--device", "0,1"], 1, "--device 0,1: ")]
        for args, code, says in cases:
            with self.subTest(args=args):
                r = run(*args)
                err = r.stderr.decode()
                self.assertEqual(r.returncode, code, err)
                self.assertEqual(err.count("\n"), 1, err)
                self.assertIn(says, err)

    def test_a_run_id_is_recorded(self):
        with tempfile.TemporaryDirectory() as d:
            r = run("run", "-s", "4096", "--impl", "reference", "--run-id", "fleet-7", "-o", d)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            with open(os.path.join(d, os.listdir(d)[0])) as f:
                self.assertEqual(json.load(f)["run_id"], "fleet-7")

    def test_every_gpu_at_once(self):
        """--device all: one child per GPU, one result file each, one run id; every line tagged with its GPU."""
        if "[cannot run here]" in run("list").stdout.decode():
            self.skipTest("no usable GPU here")
        with tempfile.TemporaryDirectory() as d:
            r = run("run", "--device", "all", "-s", "65536", "--impl", "global,reference", "--reps", "3", "-o", d)
            err = r.stderr.decode()
            self.assertEqual(r.returncode, 0, err)
            count = int(err.split(" GPUs at once")[0].rsplit(" ", 1)[1])
            docs = []
            for name in sorted(os.listdir(d)):
                with open(os.path.join(d, name)) as f:
                    docs.append(json.load(f))
        self.assertEqual(len(docs), count, err)
        self.assertEqual(len({doc["run_id"] for doc in docs}), 1)
        uuids = {row["device"]["uuid"] for doc in docs for row in doc["rows"] if row["backend"] == "cuda"}
        self.assertEqual(len(uuids), count)
        for i in range(count):
            self.assertIn(f"histostudy: GPU {i} exited 0", err)
            self.assertIn(f"[GPU {i}] histostudy: on GPU {i}: ", err)

    def test_rows_name_their_gpu(self):
        if "[cannot run here]" in run("list").stdout.decode():
            self.skipTest("no usable GPU here")
        uuid = json.loads(run("env").stdout)["executors"][1]["describe"]["device"]["uuid"]
        with tempfile.TemporaryDirectory() as d:
            r = run("run", "--device", uuid[:12], "-s", "65536", "--impl", "global,reference", "--reps", "3",
                    "-o", d)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            self.assertIn("on GPU 0: ", r.stderr.decode())
            rows = json.load(open(os.path.join(d, os.listdir(d)[0])))["rows"]
        for row in rows:
            if row["backend"] == "cuda":
                self.assertEqual(row["device"]["uuid"], uuid)
                self.assertEqual(row["device"]["index"], 0)
                self.assertTrue(row["device"]["pci_bus_id"])
            else:
                self.assertIsNone(row["device"])


class Toolchains(unittest.TestCase):
    def test_an_nvrtc_without_its_package_record_is_named_by_its_file(self):
        """A toolkit's libnvrtc.so.13 -> libnvrtc.so.13.0.88 with no wheel record or version.json beside it
        (the GPU machine's) gets its patch version from the file it resolves to, not just 13.0."""
        wheel = pathlib.Path(__file__).resolve().parent.parent / ".deps" / "nvrtc" / "13.0"
        libs = sorted(wheel.glob("nvidia/*/lib/libnvrtc.so.13"))
        records = sorted(wheel.glob("nvidia_cuda_nvrtc-13.0.*.dist-info"))
        if not built_with_cuda() or not libs or not records:
            self.skipTest("a CUDA build and ./dev nvrtc 13.0's wheel are needed")
        version = records[0].name[len("nvidia_cuda_nvrtc-"):-len(".dist-info")]
        with tempfile.TemporaryDirectory() as d:
            lib = pathlib.Path(d, "lib")
            lib.mkdir()
            for source, name in ((libs[0], f"libnvrtc.so.{version}"), (libs[0].with_name("libnvrtc-builtins.so.13.0"),
                                                                         "libnvrtc-builtins.so.13.0")):
                try:
                    os.link(source.resolve(), lib / name)  # the same bytes under a toolkit's name, no copy
                except OSError:
                    shutil.copy(source, lib / name)
            (lib / "libnvrtc.so.13").symlink_to(f"libnvrtc.so.{version}")
            out = run("cubins", "--toolchain", f"nvrtc:{lib}/libnvrtc.so.13", "--arch", "90", "-o", f"{d}/out")
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(sorted(p.name for p in pathlib.Path(d, "out").iterdir() if p.is_dir()),
                             [f"nvrtc-{version}"])


class ToolchainSpellings(unittest.TestCase):
    """--toolchain and --control are checked alike with CUDA and without (where every toolchain needs CUDA)."""

    def test_unknown_spellings_are_refused_in_every_build(self):
        for option in ("--toolchain", "--control"):
            for spec in ("bogus", "nvrtc:", "modules:"):
                Count.expect_error(self, "run", "-i", "reference", "-s", "611", option, spec, "--no-save", code=2,
                                   says=f"unknown toolchain '{spec}'")

    def test_a_build_without_cuda_says_a_toolchain_needs_it(self):
        if built_with_cuda():
            self.skipTest("built with CUDA")
        for option, spec in (("--toolchain", "nvcc"), ("--toolchain", "nvrtc"), ("--control", "nvcc")):
            Count.expect_error(self, "run", "-i", "reference", "-s", "611", option, spec, "--no-save", code=2,
                               says=f"{option} {spec}: this histostudy was built without CUDA")


class Report(unittest.TestCase):
    def test_a_lesson_table_only_where_the_lessons_pair_ran(self):
        floor = run("run", "-e", "lesson", "-i", "openmp_read_floor", "-s", "611", "--no-save")
        self.assertEqual(floor.returncode, 0, floor.stderr)
        self.assertIn("lesson: 1 implementation on uniform", floor.stderr.decode())
        self.assertNotIn("Lesson table", floor.stdout.decode())   # no empty table: the floor is among all rows
        self.assertIn("openmp_read_floor", floor.stdout.decode())
        pair = run("run", "-e", "lesson", "-i", "reference", "-s", "611", "--no-save")
        self.assertEqual(pair.returncode, 0, pair.stderr)
        self.assertIn("Lesson table: cpu, 611 bytes", pair.stdout.decode())
        self.assertIn("lesson: 2 implementations on", pair.stderr.decode())   # and the floor beside it

    def test_times_of_a_few_microseconds_are_printed_as_such(self):
        out = run("run", "-i", "reference", "--input", "uniform", "-s", "611", "--no-save")
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.decode().splitlines()
        lesson = next(l for l in lines if l.startswith("uniform "))
        measured = next(l for l in lines if l.startswith("custom ") and " reference " in l)
        median, spread = measured.split()[6:8]
        for ms in (lesson.split()[3], median, *spread.split("..")):
            self.assertGreater(float(ms), 0, lines)  # a 611-byte count takes about 0.4 us, not "0.000" ms
            self.assertGreaterEqual(len(ms.lstrip("0.")), 3, lines)  # three significant digits


class Registry(unittest.TestCase):
    """The registry the binary declares is the one plots/ reads."""

    def test_list_json_is_the_committed_registry(self):
        printed = run("list", "--json")
        self.assertEqual(printed.returncode, 0)
        committed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "registry.json")
        with open(committed, "rb") as f:
            self.assertEqual(printed.stdout.decode(), f.read().decode(),
                             "data/registry.json differs from `histostudy list --json`: regenerate it")

    def test_list_json_holds_the_inputs_and_the_experiments(self):
        printed = run("list", "--json")
        self.assertEqual(printed.returncode, 0, printed.stderr)
        doc = json.loads(printed.stdout)
        self.assertEqual(list(doc), ["implementations", "count_plans", "inputs", "experiments"])
        inputs = {i["name"]: i["description"] for i in doc["inputs"]}
        self.assertEqual(list(inputs), ["uniform", "lesson_english", "prose", "one_byte", "distinct_K", "FILE"])
        listed = run("list").stdout.decode()
        for name, description in inputs.items():
            self.assertIn(f"  {name:<15} {description}\n", listed)   # as `list` shows each
        # The experiments as --experiments gives them, without its timing plan.
        self.assertEqual(doc["experiments"], json.loads(run("list", "--experiments").stdout)["experiments"])
        lesson = next(e for e in doc["experiments"] if e["name"] == "lesson")
        self.assertEqual(list(lesson), ["name", "description", "inputs", "sizes", "roles", "gpu_only"])
        self.assertIn("lesson_english", lesson["inputs"])

    def test_every_experiment_is_listed(self):
        listed = run("list").stdout.decode()
        for name in ("lesson", "sweep", "blocks", "perf", "sizes", "placement", "custom"):
            self.assertIn(f"  {name} ", listed)

    def test_list_experiments_gives_each_experiments_cases(self):
        printed = run("list", "--experiments")
        self.assertEqual(printed.returncode, 0, printed.stderr)
        experiments = {e["name"]: e for e in json.loads(printed.stdout)["experiments"]}
        listed = run("list").stdout.decode()
        self.assertEqual([n for n in experiments if f"  {n} " in listed], list(experiments))
        self.assertEqual(experiments["lesson"]["sizes"], [67_109_475])  # none named: the lesson's size
        self.assertEqual(experiments["perf"]["sizes"], [1 << 30])
        self.assertIn("distinct_1", experiments["perf"]["inputs"])
        self.assertEqual(experiments["sizes"]["roles"], ["subject", "peer"])
        self.assertTrue(experiments["sizes"]["gpu_only"])
        both = run("list", "--experiments", "--json")
        self.assertEqual(both.returncode, 2)

    def test_list_experiments_gives_the_timing_plan_run_records(self):
        listed = json.loads(run("list", "--experiments").stdout)["gpu_timing"]
        with tempfile.TemporaryDirectory() as tmp:
            out = run("run", "-i", "reference", "--input", "uniform", "-s", "611", "-o", tmp)
            self.assertEqual(out.returncode, 0, out.stderr)
            recorded = json.loads(next(pathlib.Path(tmp).glob("*.json")).read_text())["timing"]["gpu"]
        self.assertEqual(listed, recorded)

    def test_run_help_names_the_default_folder_and_every_experiment(self):
        listed = run("list").stdout.decode().split("experiments (--experiment NAME):\n")[1]
        names = [line.split()[0] for line in itertools.takewhile(lambda l: l.startswith("  "), listed.splitlines())]
        self.assertIn("custom", names)
        help_text = run("run", "--help").stdout.decode()
        self.assertIn("(default runs/)", help_text)
        self.assertNotIn("data/runs", help_text)
        experiment = next(line for line in help_text.splitlines() if "--experiment" in line)
        self.assertIn(", ".join(names), experiment)


class NoCommand(unittest.TestCase):
    """histostudy alone prints its usage and exits 2, as its --help says; it measures nothing, writes no ./runs/."""

    def test_no_command_is_the_usage_and_nothing_else(self):
        exe = os.path.abspath(shutil.which(EXE) or EXE)  # usage names it as typed
        usage = subprocess.run([exe, "--help"], capture_output=True, timeout=60).stdout.decode()
        self.assertIn("With no command, prints this help on stderr and exits 2", usage)
        for args in ([], ["--"]):
            with self.subTest(args=args), tempfile.TemporaryDirectory() as here:
                bare = subprocess.run([exe, *args], capture_output=True, cwd=here, timeout=60)
                self.assertEqual((bare.returncode, bare.stdout, bare.stderr.decode()), (2, b"", usage))
                self.assertEqual(os.listdir(here), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
