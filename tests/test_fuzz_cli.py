#!/usr/bin/env python3
"""The command line under generated arguments (Hypothesis, driving histostudy by subprocess).

Every parser (sizes, lists, inputs, toolchain specs, devices, thread counts, the GPU's numbers, whole command
lines) ends in one line on stderr and exit 1 or 2, or in a valid plan (run --dry-run, which measures nothing):
never a signal, a hang or a traceback. Sizes, thread counts and names as printed are checked against models
of their own here. count, from a file, a pipe and standard input left at an offset, with every CPU
implementation it takes and random thread counts, at sizes around its pieces and chunks, must agree with
numpy.bincount.

Profiles: ci (the default: derandomized, a fixed number of examples, about a minute on two cores) and long
(HYPOTHESIS_PROFILE=long: random, many more). Usage: test_fuzz_cli.py HISTOSTUDY"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
    from hypothesis import HealthCheck, assume, example, given, settings, strategies as st
except ImportError as missing:  # a check that cannot run says so
    print(f"skipped: no {missing.name} here (./dev test installs python3-hypothesis)")
    sys.exit(77)

EXE = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else "histostudy")
HANG_S = 60  # a call still running after this long is a hang

settings.register_profile("ci", derandomize=True, max_examples=80, deadline=None, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=1500, deadline=None, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# What must never reach stderr: an uncaught exception, an abort, a sanitizer's report.
CRASH_WORDS = ("Traceback", "terminate called", "what():", "Aborted", "core dumped", "Sanitizer", "runtime error:")


def histostudy(args, cwd=None, env=None, **kw):
    """histostudy ARGS (str or bytes each), its outcome checked: no signal, no hang, no crash, and a failure is
    one line on stderr with exit 1 or 2."""
    kw.setdefault("stdin", subprocess.DEVNULL)
    try:
        proc = subprocess.run([EXE, *args], capture_output=True, timeout=HANG_S, cwd=cwd,
                              env=dict(os.environ, **(env or {})), **kw)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"hung for {HANG_S} s: histostudy {args!r}") from None
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}: histostudy {args!r}\n{err}"
    for word in CRASH_WORDS:
        assert word not in err, f"{word!r} on stderr: histostudy {args!r}\n{err}"
    if proc.returncode != 0:
        # libgomp judges OMP_* variables itself, before main runs: "\nlibgomp: Invalid value ..."
        lines = [line for line in err.splitlines() if not (env and (not line or line.startswith("libgomp: ")))]
        assert proc.returncode in (1, 2), f"exit {proc.returncode}: histostudy {args!r}\n{err}"
        assert len(lines) == 1 and lines[0].startswith("histostudy: error: "), \
            f"not one line on stderr (exit {proc.returncode}): histostudy {args!r}\n{err}"
    return proc


def registry():
    return json.loads(subprocess.run([EXE, "list", "--json"], capture_output=True, check=True).stdout)


REGISTRY = registry()
IMPLS = [i["name"] for i in REGISTRY["implementations"]]
# count's CPU implementations: the CPU's, but for its read floor, which counts nothing.
COUNTING_CPU = [i["name"] for i in REGISTRY["implementations"] if i["backend"] == "cpu" and "floor" not in i["roles"]]
PIECE = REGISTRY["count_plans"]["cpu"]["piece_bytes"]
GPU_CHUNK = REGISTRY["count_plans"]["cuda"]["chunk_bytes"]
EXPERIMENTS = re.findall(r"^  (\w+) ", subprocess.run([EXE, "list"], capture_output=True, text=True).stdout.split(
    "experiments (--experiment NAME):\n")[1].split("toolchains")[0], re.M)
INPUTS = ["uniform", "lesson_english", "prose", "one_byte", "distinct_1", "distinct_256", "distinct_01", "distinct_0",
          "distinct_257", "distinct_", "distinct_+1", "distinct_1 "]
TOOLCHAINS = ["cpu", "nvcc", "nvrtc", "12.6", "nvrtc-12.6", "nvrtc:12.6", "nvrtc:", "nvrtc:/nonexistent/libnvrtc.so",
              "modules:", "modules:.", "13.0", "99.9", "nvrtc-"]
DEVICES = ["0", "1", "all", "0,1", "0,0", ",", "GPU-", "GPU-8a1f", "-1", "99999999999999999999", "0x1"]

# The units a size may carry (README "run options": 611, 64MiB, 1GiB, 2GB; the whole list in study/driver/sizes.cpp).
UNITS = {"": 1, "B": 1, "k": 1000, "K": 1000, "KB": 1000, "KiB": 1 << 10, "M": 10**6, "MB": 10**6, "MiB": 1 << 20,
         "G": 10**9, "GB": 10**9, "GiB": 1 << 30, "TiB": 1 << 40}
TIB = 1 << 40
MAX_THREADS = 4096  # README: OMP_NUM_THREADS beyond 4,096 is refused, as is -t


def size_of(text):
    """The bytes a size names (611, 64MiB+611), or None where run refuses it."""
    total = 0
    for term in text.split("+"):
        m = re.fullmatch(r"([0-9]+)(.*)", term, re.S)
        if not m or m.group(2) not in UNITS:
            return None
        total += int(m.group(1)) * UNITS[m.group(2)]
        if total > TIB:
            return None
    return total or None  # 0 measures nothing


def sizes_of(items):
    """The sizes a list of -s values names, in order, each once; None where run refuses them."""
    sizes = []
    for item in items:
        if re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})+", item):  # digit grouping or a list: ambiguous
            return None
        parts = item.split(",")
        if "" in parts:
            return None
        for part in parts:
            size = size_of(part)
            if size is None:
                return None
            if size not in sizes:
                sizes.append(size)
    return sizes


def plan(proc):
    """The cases of a dry run's plan: its lines on stdout, as many as stderr's 'N cases' says."""
    lines = proc.stdout.decode(errors="replace").splitlines()
    said = re.search(r"^histostudy: (\d+) cases", proc.stderr.decode(errors="replace"), re.M)
    assert said and int(said.group(1)) == len(lines) > 0, (proc.stdout, proc.stderr)
    return lines


def planned_sizes(lines):
    return {int(m.group(1).replace(",", "")) for m in (re.search(r" ([0-9,]+) B \(", line) for line in lines)}


def printable(raw):
    """How histostudy shows a name (study/platform/printable.hpp), modelled here: a backslash doubled; each byte outside
    well-formed UTF-8, and each control character's bytes (C0, DEL, C1), as \\xNN."""
    out = []
    for ch in raw.decode("utf-8", "surrogateescape"):
        if ch == "\\":
            out.append("\\\\")
        elif "\udc80" <= ch <= "\udcff":
            out.append(f"\\x{ord(ch) - 0xdc00:02X}")
        elif ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f:
            out.append("".join(f"\\x{b:02X}" for b in ch.encode()))
        else:
            out.append(ch)
    return "".join(out)


def available_memory():
    with open("/proc/meminfo") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))


def text(**kw):
    """Any text a command line can carry (every character but NUL)."""
    return st.text(alphabet=st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), **kw)


# A size's text: terms of digits and a unit (known, or not), joined by '+'; or any text at all.
digits = st.one_of(st.integers(0, 2**70).map(str), st.sampled_from(["0", "00", "007", "611", "1" + "0" * 20]))
unit = st.one_of(st.sampled_from(sorted(UNITS)), text(max_size=3))
term = st.builds(lambda d, u: d + u, digits, unit)
size_text = st.one_of(st.lists(term, min_size=1, max_size=3).map("+".join), text(max_size=12))
size_item = st.one_of(size_text, st.lists(size_text, min_size=1, max_size=3).map(",".join),
                      st.sampled_from(["1,000", "65,536", "67,109,475", "1,000B", "1GiB+3", ",611", "611,"]))
junk = st.one_of(text(max_size=16), st.binary(max_size=16).filter(lambda b: b"\0" not in b))
# A file name: any bytes but '/' and NUL, as text or not.
file_name = st.one_of(text(min_size=1, max_size=40).map(os.fsencode), st.binary(min_size=1, max_size=40)).filter(
    lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b".."))
number_text = st.one_of(st.integers(-2**70, 2**70).map(str), st.floats().map(repr),
                        st.sampled_from(["010", "0x10", "1e3", " 1", "1 ", "+1", "-0", "nan", "inf", ""]), junk)


def as_bytes(word):
    """An argument as the bytes a process gets (a str as the file system encodes it)."""
    return word if isinstance(word, bytes) else os.fsencode(word)


def as_text(word):
    return word if isinstance(word, str) else os.fsdecode(word)


def names(choices):
    """A list option's value: known names and junk, comma-joined, sometimes with empty items."""
    return st.lists(st.one_of(st.sampled_from(choices), junk), min_size=1, max_size=3).map(
        lambda items: b",".join(as_bytes(i) for i in items))


OPTION_VALUES = {
    "-e": names(EXPERIMENTS), "--experiment": names(EXPERIMENTS), "-i": names(IMPLS), "--impl": names(IMPLS),
    "--input": names(INPUTS), "-s": size_item, "--size": size_item, "--toolchain": names(TOOLCHAINS),
    "--control": st.one_of(st.sampled_from(["auto", "none", *TOOLCHAINS]), junk), "--device": st.sampled_from(DEVICES),
    "--bins-offset": names(["0", "128", "2048", "1048576", "1048704", "-128", "64"]),
    "--cache": st.one_of(st.sampled_from(["cold", "hot"]), junk), "--run-id": st.one_of(st.just("r-1"), junk),
    "-o": st.sampled_from(["runs", "a/b", "", ".", "a,b", "runs\nx"]),
    **{o: number_text for o in ("--grid", "--block", "-t", "--threads", "-p", "--passes", "--warmups", "--reps",
                                "--max-reps", "--lesson-reps", "--noise", "--max-time", "--throttle",
                                "--result-path-fd")},
}
FLAGS = ["--no-save", "--help", "--version", "--", "-", "--json", "-f"]


@st.composite
def run_arguments(draw):
    """Options of run with values, as `--opt value` or `--opt=value`, flags and junk, in any order."""
    words = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["option", "option", "option", "flag", "junk"]))
        if kind == "flag":
            words.append(draw(st.sampled_from(FLAGS)))
        elif kind == "junk":
            words.append(draw(junk))
        else:
            option = draw(st.sampled_from(sorted(OPTION_VALUES)))
            value = draw(OPTION_VALUES[option])
            joined = option.startswith("--") and draw(st.booleans())
            words += [option + "=" + as_text(value)] if joined else [option, value]
    return [as_bytes(w) for w in words]


class Parsers(unittest.TestCase):
    """run --dry-run under generated options: one line and exit 1 or 2, or a plan."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def dry_run(self, *args, **kw):
        """A dry run in a folder of its own: it must leave that folder as it found it."""
        proc = histostudy(["run", "--dry-run", *args], cwd=self.tmp.name, **kw)
        self.assertEqual(os.listdir(self.tmp.name), [], f"a dry run wrote: {args!r}")
        helped = {b"--help", b"--version"} & {as_bytes(a) for a in args}
        if proc.returncode == 0 and not helped:
            plan(proc)
        return proc

    @given(st.lists(size_item, min_size=1, max_size=3))
    @example(["1GiB+3"]).via("the README's sum of units")
    @example(["1,000"]).via("digit grouping")
    @example(["18446744073709551616"]).via("past 64 bits")
    @example(["1TiB+1"]).via("past 1 TiB by a byte")
    def test_sizes(self, items):
        args = [a for item in items for a in ("-s", item)]
        proc = self.dry_run("-i", "reference", "--input", "uniform", *args)
        expected = sizes_of(items)
        if expected is None:
            self.assertEqual(proc.returncode, 2, (items, proc.stderr))
        elif max(expected) > available_memory() // 2:  # refused or not as free memory now has it
            self.assertTrue(proc.returncode == 0 or b"does not fit" in proc.stderr, (items, proc.stderr))
        else:
            self.assertEqual(proc.returncode, 0, (items, proc.stderr))
            self.assertEqual(planned_sizes(plan(proc)), set(expected), items)

    @given(number_text)
    @example("4096").via("the largest team")
    @example("4097").via("one past it")
    @example("010").via("decimal, not octal")
    def test_thread_counts(self, value):
        proc = self.dry_run("-i", "openmp_private", "--input", "uniform", "-s", "611", "-t", value)
        threads = int(as_text(value)) if re.fullmatch(r"-?[0-9]+", as_text(value)) else None
        if threads is None or not 1 <= threads <= MAX_THREADS:
            self.assertEqual(proc.returncode, 2, (value, proc.stderr))
            return
        self.assertEqual(proc.returncode, 0, (value, proc.stderr))
        for line in plan(proc):
            self.assertIn(f"threads={threads} ", line)

    @given(run_arguments())
    def test_run_options(self, words):
        self.dry_run(*words)

    @given(st.lists(st.one_of(st.sampled_from(INPUTS), junk), min_size=1, max_size=3))
    def test_inputs(self, inputs):
        self.dry_run("-i", "reference", "--input", b",".join(as_bytes(i) for i in inputs))

    @given(file_name)
    @example(b"a\nresult file: x\x1b[31m\\,\xc2\x9b\xff").via("a newline, a decoy, ESC, a comma, C1, not UTF-8")
    def test_file_names(self, name):
        """Any file's name: one plan line a measurement, the name in it escaped."""
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(os.fsencode(folder), name)
            with open(path, "wb") as f:
                f.write(b"abc")
            proc = self.dry_run("-i", "reference", "--input", path)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = plan(proc)
        self.assertEqual(len(lines), 2, lines)  # reference and its floor
        for line in lines:
            self.assertIn(f" {printable(path)} 3 B (", line)

    @given(st.sampled_from(["--toolchain", "--control", "--device", "--grid", "--block", "--passes", "--bins-offset"]),
           st.one_of(st.sampled_from(TOOLCHAINS + DEVICES), number_text))
    def test_gpu_options(self, option, value):
        self.dry_run(option, value)
        self.dry_run("-i", "reference", "--input", "uniform", "-s", "611", option, value)


class CommandLines(unittest.TestCase):
    """Whole command lines of any command but run's measuring ones: count, list, env, or none."""

    @given(st.sampled_from(["count", "list", "env", "generate", None]), run_arguments())
    def test_any_command(self, command, words):
        with tempfile.TemporaryDirectory() as tmp:
            if command == "generate":  # a small size, to a file of its own
                assume(not any(w in (b"-s", b"--size") or w.startswith(b"--size=") for w in words))
                words = ["-s", "611", *words, "-o", "out.bin"]
            # With no command a run is refused as options before one: never the default study, measured.
            histostudy([command, *words] if command else [*words, "--dry-run"], cwd=tmp)


class ResultPaths(unittest.TestCase):
    """Real runs (a 611-byte one each), saved into folders of any name."""

    @settings(max_examples=max(10, settings().max_examples // 4))  # each a run, measured
    @given(file_name)
    def test_the_result_path_of_any_folder(self, name):
        """-o a folder of any name: --result-path-fd gives the file's exact path, the line printed its escaped one."""
        with tempfile.TemporaryDirectory() as tmp:
            out_dir = os.path.join(os.fsencode(tmp), name)
            read, write = os.pipe()
            try:
                proc = histostudy(["run", "-i", "reference", "--input", "uniform", "-s", "611", "-o", out_dir,
                                   "--result-path-fd", str(write)], pass_fds=(write,))
            finally:
                os.close(write)
            with os.fdopen(read, "rb") as f:
                told = f.read()
            self.assertEqual(proc.returncode, 0, proc.stderr)
            [saved] = [os.path.join(out_dir, f) for f in os.listdir(out_dir)]
            self.assertEqual(told, saved + b"\0")
            said = [line for line in proc.stdout.decode().splitlines() if line.startswith("result file: ")]
            self.assertEqual(said, ["result file: " + printable(saved)])


def independent_count(data):
    counts = np.bincount(np.frombuffer(data, dtype=np.uint8), minlength=256)
    return "".join(f"{v} {c}\n" for v, c in enumerate(counts)).encode()


# Sizes around count's pieces (a CPU team's unit) and chunks (a stream's and the GPU's), and any in between.
BOUNDARIES = sorted({max(0, k * PIECE + d) for k in range(0, 10) for d in (-1, 0, 1)} |
                    {GPU_CHUNK + d for d in (-1, 0, 1)})
count_size = st.one_of(st.sampled_from(BOUNDARIES), st.integers(0, 9 * PIECE + 1))


def data_of(size, seed, distinct):
    """`size` bytes of `distinct` values, seeded: all 256 spread, or a few, as text has."""
    return np.random.default_rng(seed).integers(0, distinct, size, dtype=np.uint8).tobytes()


class Counting(unittest.TestCase):
    """count with every CPU implementation it takes, against numpy.bincount."""

    @given(count_size, st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 7, 256]), st.sampled_from(COUNTING_CPU),
           st.one_of(st.none(), st.integers(1, 9)), st.sampled_from(["file", "pipe", "stdin-file", "stdin-offset"]),
           st.integers(0, 2**32 - 1))
    def test_count_agrees_with_numpy(self, size, seed, distinct, impl, threads, mode, cut):
        data = data_of(size, seed, distinct)
        args = ["count", "--impl", impl, *(["-t", str(threads)] if threads else [])]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "data.bin")
            with open(path, "wb") as f:
                f.write(data)
            offset = cut % (size + 1) if mode == "stdin-offset" else 0
            if mode == "file":
                proc = histostudy([*args, path])
            elif mode == "pipe":
                proc = histostudy([*args, "-"], stdin=None, input=data)
            else:  # standard input that is the file, at an offset: counted from there, as cat and wc count it
                with open(path, "rb") as f:
                    f.seek(offset)
                    proc = histostudy(args, stdin=f)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, independent_count(data[offset:]), (size, impl, threads, mode, offset))

    @given(st.sampled_from(COUNTING_CPU), st.one_of(number_text, st.integers(1, 64).map(str)))
    def test_thread_variable(self, impl, value):
        """OMP_NUM_THREADS as any text: refused in one line, or the count is right."""
        assume(isinstance(value, str) and "\0" not in value)
        data = data_of(3 * PIECE + 5, 1, 256)
        proc = histostudy(["count", "--impl", impl, "-"], stdin=None, input=data, env={"OMP_NUM_THREADS": value})
        if proc.returncode == 0:
            self.assertEqual(proc.stdout, independent_count(data))
        else:
            self.assertEqual(proc.returncode, 2, proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
