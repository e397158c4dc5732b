"""The fuzzing tier: generated result files fed to every plots entry point that reads them (audit, lesson,
history, fleet, and the readers of ./dev appendix and ./dev paper), in process. Each file is a valid one, made
from the schema's shapes with random values and agreeing with itself, or one with mutations: a field of the
wrong type or removed, NaN, infinities, 1e308, negative or scaled numbers, huge or empty lists, deep nesting,
odd unicode and newlines in names, the text cut short. Every entry point must end in its output, or in one line
on stderr and exit status 2 (fleet: each unreadable file named and skipped); never an exception, and never a
verdict the file does not hold: a planted regression is never audited as "no regression", whatever up to
three mutations do to either file, and a failed bin check never passes the audit.

Profiles (Hypothesis): "ci", the default, 25 examples a test, derandomized so that every CI run tries the same
files; "long" (HYPOTHESIS_PROFILE=long), 1,000 examples a test, random, for a search of minutes to an hour. The
meson test `fuzz` runs this file on its own; unittest discovery (the `paper` test) leaves it to that test
(load_tests below).
"""
import contextlib
import io
import json
import os
import pathlib
import tempfile
import unittest

try:
    from hypothesis import HealthCheck, configuration, given, settings, strategies as st
except ModuleNotFoundError as missing:   # ./dev test installs it; the meson test fuzz is registered only with it
    raise unittest.SkipTest(f"{missing.name} is not installed: install python3-hypothesis") from None

HOME = tempfile.TemporaryDirectory(prefix="hypothesis.")   # its caches, never in the repository
configuration.set_hypothesis_home_dir(HOME.name)


def tearDownModule():
    HOME.cleanup()

from plots import audit, count_bench, fleet, history, lesson, own_appendix, selection
from plots.results import ResultError, load_run
from plots.tests import fixtures, synthetic

# The deadline catches an example that hangs or goes quadratic (each takes a second or two), with room for a
# machine shared by builds; no example database: nothing is written into the repository.
QUIET = dict(deadline=60_000, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=25, derandomize=True, **QUIET)
settings.register_profile("long", max_examples=1000, **QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def load_tests(loader, tests, pattern):
    """Discovery (pattern given) leaves this file to the meson test `fuzz`, which names it, so that its time
    is its own."""
    return unittest.TestSuite() if pattern else tests


# ---- valid files: the schema's shapes, random values, agreeing with themselves ----------------------

RELEASES = ("12.6.85", "13.0.88", "13.1.115")
TOOLCHAINS = ("nvcc 13.0.88", "nvrtc 12.6.85", "nvrtc 13.0.88") + tuple(f"nvrtc {r} sm_90" for r in RELEASES)
CONTROL = synthetic.CONTROL
INPUTS = ("uniform", "lesson_english", "one_byte", "distinct_16")
GPU_IMPLS = ("read_floor", "global", "per_block", "lane_shared", "cub")
CPU_IMPLS = ("reference", "openmp_private", "openmp_read_floor")
POLICY = {"grid": 1024, "block": 256, "threads": 0, "passes": 1, "copies": 1, "counter_bits": 32,
          "shared_bytes": 1024}

ms_values = st.floats(min_value=1e-4, max_value=1e4, allow_nan=False, allow_infinity=False)


@st.composite
def input_stats(draw, size):
    """The busiest bin and the bins used of `size` bytes in 256 bins."""
    used = draw(st.integers(1, min(256, size)))
    busiest = draw(st.integers(-(-size // used), size - used + 1))
    return {"busiest_pct": 100 * busiest / size, "busiest": busiest, "bins_used": used}


@st.composite
def samples(draw, median=None):
    if median is None:
        return draw(st.lists(ms_values, min_size=1, max_size=30))
    spread = draw(st.floats(0.0, 0.01))
    n = draw(st.integers(8, 30))
    return [median * (1 + spread * ((k * 7919) % n / n - 0.5)) for k in range(n)]


@st.composite
def row(draw, experiment=None, impl=None, toolchain=None, input=None, size=None, times=None):
    backend = "cpu" if impl in CPU_IMPLS or toolchain == "cpu" else "cuda" if impl or toolchain else \
        draw(st.sampled_from(["cpu", "cuda"]))
    impl = impl or draw(st.sampled_from(CPU_IMPLS if backend == "cpu" else GPU_IMPLS))
    toolchain = toolchain or ("cpu" if backend == "cpu" else draw(st.sampled_from(TOOLCHAINS)))
    size = size or draw(st.one_of(st.integers(1, 1 << 12), st.sampled_from([1 << 20, 67_109_475, 1 << 40])))
    passed = draw(st.booleans()) if times is None else True
    taken = (times or draw(samples())) if passed else []
    found = {"experiment": experiment or draw(st.sampled_from(["lesson", "sweep", "custom"])), "impl": impl,
             "backend": backend, "toolchain": toolchain, "input": input or draw(st.sampled_from(INPUTS)),
             "size": size, "policy": dict(POLICY, threads=4 if backend == "cpu" else 0),
             "input_stats": draw(input_stats(size)),
             "check": {"passed": passed, "detail": "" if passed else "bin 7: 1 != 2"},
             "global_atomics": 0, "bytes_read": size, "samples_ms": taken,
             "summary_ms": synthetic.summary(taken) if taken else dict.fromkeys(synthetic.summary([1.0]), 0.0),
             "lesson_mean_ms": None, "gbps": 0.0, "floor_impl": "read_floor" if backend == "cuda" else
             "openmp_read_floor", "pct_of_floor": None, "control_of": None,
             "placement": {"bins_offset": 0, "bins_mod_2mib": 0, "input_mod_2mib": 0} if backend == "cuda" else None,
             "sampling": {"cache": "cold", "taken": len(taken), "used": len(taken), "throttled": 0,
                          "stop": "noise", "noise": 0.01, "group": [toolchain]}}
    if taken:
        found["gbps"] = synthetic.gbps(found)
    return found


def document(rows, run_id="fuzz-1"):
    toolchains = list(dict.fromkeys(r["toolchain"] for r in rows))
    doc = {"format": "histostudy-result", "schema_version": 1, "started": "2026-12-01T12:00:00Z",
           "finished": "2026-12-01T12:01:00Z",
           "provenance": {"argv": ["histostudy", "run"], "cwd": "/", "git_commit": None, "git_dirty": None},
           "environment": {"host": {"hostname": "node1", "cpu_model": "FUZZ CPU", "variables": {},
                                    "logical_cores": 2, "openmp_max_threads": 2, "os": "test", "kernel": "test",
                                    "machine": "x86_64"},
                           "build": {}, "executors": [{"toolchain": t, "describe": {}} for t in toolchains],
                           "gpu_absent": None},
           "timing": {p: {"warmups": 3, "reps": 30, "lesson_warmups": 3, "lesson_reps": 0} for p in ("gpu", "cpu")},
           "rows": rows, "run_id": run_id}
    return synthetic.resummarized(doc)


@st.composite
def valid_docs(draw):
    """A result file of 1 to 8 random rows, with their floors' shares where a floor is there."""
    rows = draw(st.lists(row(), min_size=1, max_size=8))
    for r in rows:
        floor = next((f for f in rows if f["impl"] == r["floor_impl"] and f["check"]["passed"] and
                      (f["toolchain"], f["input"], f["size"]) == (r["toolchain"], r["input"], r["size"])), None)
        if floor and floor["gbps"] and r["samples_ms"]:
            r["pct_of_floor"] = 100 * r["gbps"] / floor["gbps"]
    return document(rows)


CASE = {"experiment": "lesson", "impl": "per_block", "toolchain": "nvcc 13.0.88", "input": "uniform",
        "size": 1 << 26}


@st.composite
def audited_pairs(draw):
    """(A, B): a controlled GPU case and its A/A control measured twice, B `factor` times slower in both: a
    regression beyond any threshold the audit takes by default."""
    median, factor = draw(st.floats(0.01, 100.0)), draw(st.floats(1.5, 4.0))
    stats = draw(input_stats(CASE["size"]))

    def measured(scale):
        base = draw(samples(median * scale))
        rows = [draw(row(**CASE, times=base)), draw(row(**dict(CASE, toolchain=CASE["toolchain"] + CONTROL),
                                                      times=[t * 1.001 for t in base]))]
        rows[1]["control_of"] = CASE["toolchain"]
        for r in rows:
            r["input_stats"] = dict(stats)
        return document(rows)
    return measured(1.0), measured(factor)


# ---- mutations -----------------------------------------------------------------------------------

DEEP = "__deep_{}__"   # replaced in the text: json.dumps itself cannot write 100,000 brackets
ODD_TEXT = ("", "a\nb", "line\r\nbreak", "\u2028", "\u202e", "\udcff", "\x00", "é" * 300, "x" * 100_000)

hostile = st.one_of(
    st.none(), st.booleans(), st.integers(-(1 << 70), 1 << 70), st.floats(),
    st.sampled_from([1e308, -1e308, 5e-324, -0.0, 0, -1, float("nan"), float("inf"), float("-inf")]),
    st.sampled_from(ODD_TEXT), st.text(max_size=20),
    st.lists(st.floats(), max_size=5), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.sampled_from([[], {}, [1.0] * 100_000]),
    st.sampled_from([100, 990, 100_000]).map(DEEP.format))


def places_in(node, where=()):
    """Every place in a document: (path of keys and indexes) of each value under the top."""
    found = [where] if where else []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        found += places_in(value, where + (key,))
    return found


def at(doc, path):
    for key in path:
        doc = doc[key]
    return doc


@st.composite
def mutated(draw, doc):
    """`doc` (a copy) with one to three changes: a value replaced, a key removed, a number scaled."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(1, 3))):
        places = places_in(doc)
        if not places:
            break
        path = draw(st.sampled_from(places))
        parent, key = at(doc, path[:-1]), path[-1]
        how = draw(st.sampled_from(["replace", "remove", "scale"]))
        if how == "remove":
            del parent[key]
        elif how == "scale" and isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
            parent[key] = parent[key] * draw(st.sampled_from([0.5, 0.9, 0.999, 1.001, 2.0, -1.0, 1e300]))
        else:
            parent[key] = draw(hostile)
    return doc


def text_of(doc):
    text = json.dumps(doc, allow_nan=True)
    for depth in (100, 990, 100_000):
        text = text.replace(json.dumps(DEEP.format(depth)), "[" * depth + "]" * depth)
    return text


@st.composite
def file_texts(draw, docs=valid_docs()):
    """The text of a valid file, of a mutated one, or of either cut short."""
    doc = draw(docs)
    text = text_of(draw(mutated(doc)) if draw(st.booleans()) else doc)
    if draw(st.integers(0, 9)) == 0:
        text = text[:draw(st.integers(0, len(text)))]
    return text


def bench_texts():
    """A committed count-bench file and mutations of it (a few, fixed: mutated from a fixed seed)."""
    found = sorted((fixtures.RUNS / count_bench.FOLDER).glob("*.json"))
    if not found:
        return [""]
    doc = json.loads(found[-1].read_text())
    made = [text_of(doc)]
    for path in places_in(doc)[::7]:
        copy = json.loads(json.dumps(doc))
        parent = at(copy, path[:-1])
        parent[path[-1]] = -1 if not isinstance(parent[path[-1]], (int, float)) else parent[path[-1]] * 2
        made.append(text_of(copy))
    return made


BENCH_TEXTS = bench_texts()


# ---- running an entry point ------------------------------------------------------------------------------

class Ran:
    """What main(argv) did: its status and its output, written as a terminal's would be (stdout strict UTF-8)."""

    def __init__(self, main, argv):
        out, err = io.BytesIO(), io.BytesIO()
        stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict")
        stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace")
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            self.status = main([str(a) for a in argv])
            stdout.flush()
            stderr.flush()
        self.out, self.err = out.getvalue().decode(), err.getvalue().decode()
        self.err_lines = self.err.splitlines()


class Fuzz(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def fresh(self):
        """A new folder for this example's files (one test method runs many examples)."""
        self.dir, self.written = pathlib.Path(tempfile.mkdtemp(dir=self.tmp.name)), 0

    def file(self, text):
        self.written += 1
        path = self.dir / f"fuzz-{self.written}.json"
        path.write_text(text, encoding="utf-8")
        return path

    def readable(self, path):
        try:
            load_run(path)
            return True
        except ResultError:
            return False

    def assertOneLine(self, ran, tool, status=2):
        self.assertEqual(ran.status, status, ran.err)
        self.assertEqual(len(ran.err_lines), 1, ran.err)
        self.assertTrue(ran.err.startswith(f"{tool}: "), ran.err)

    def assertEnds(self, ran, tool, path, statuses=(0, 2)):
        """Its output, or where the file is refused, one line and exit status 2."""
        self.assertIn(ran.status, statuses, ran.err)
        if not self.readable(path):
            self.assertOneLine(ran, tool)
        self.assertTrue(all(line.startswith(f"{tool}: ") for line in ran.err_lines), ran.err)

    @given(file_texts())
    def test_lesson(self, text):
        self.fresh()
        path = self.file(text)
        self.assertEnds(Ran(lesson.main, [path]), "lesson", path)

    @given(file_texts(valid_docs().map(lambda d: dict(d, rows=d["rows"] + [
            dict(r, toolchain=f"nvrtc {v} sm_90") for v in RELEASES for r in d["rows"]]))))
    def test_history(self, text):
        self.fresh()
        path = self.file(text)
        self.assertEnds(Ran(history.main, [path, "--codegen", fixtures.DATA / "codegen"]), "history", path)

    @given(st.lists(file_texts(), min_size=1, max_size=4))
    def test_fleet_names_and_skips_each_unreadable_file(self, texts):
        self.fresh()
        paths = [self.file(text) for text in texts]
        ran = Ran(fleet.main, [self.dir])
        unreadable = [p for p in paths if not self.readable(p)]
        self.assertEqual(ran.status, 2 if len(unreadable) == len(paths) else 1 if unreadable else 0, ran.err)
        named = [line for line in ran.err_lines if line.startswith("fleet: ") and "no result file" not in line]
        self.assertEqual(len(named), len(unreadable), ran.err)
        for path in unreadable:
            self.assertTrue(any(str(path) in line for line in named), (path, ran.err))

    @given(audited_pairs(), st.data())
    def test_a_planted_regression_is_never_audited_as_none(self, pair, data):
        self.fresh()
        a, b = pair
        self.assertEqual(Ran(audit.main, [self.file(text_of(a)), self.file(text_of(b))]).status, audit.REGRESSION)
        side = data.draw(st.sampled_from([0, 1]))
        changed = [a, b]
        changed[side] = data.draw(mutated(changed[side]))
        paths = [self.file(text_of(doc)) for doc in changed]
        ran = Ran(audit.main, paths)
        self.assertIn(ran.status, (audit.REGRESSION, audit.UNUSABLE), ran.out + ran.err)
        self.assertTrue(all(line.startswith("audit: ") for line in ran.err_lines), ran.err)
        if not all(self.readable(p) for p in paths):
            self.assertOneLine(ran, "audit")

    @given(valid_docs(), st.data())
    def test_a_failed_check_never_passes_the_audit(self, doc, data):
        self.fresh()
        row_ = data.draw(st.sampled_from(doc["rows"]))
        row_.update(check={"passed": False, "detail": "bin 7: 1 != 2"}, samples_ms=[], gbps=0.0, pct_of_floor=None)
        row_["sampling"].update(taken=0, used=0)
        path = self.file(text_of(synthetic.resummarized(doc)))
        ran = Ran(audit.main, [path, path])
        self.assertEqual(ran.status, audit.REGRESSION, ran.out + ran.err)
        self.assertIn("CHECK FAILED", ran.out)

    @given(st.lists(st.one_of(file_texts(), st.sampled_from(BENCH_TEXTS)), min_size=1, max_size=3))
    def test_the_appendix_and_paper_readers(self, texts):
        """./dev appendix's and ./dev paper's reading: every file read, chosen or left out, or refused."""
        self.fresh()
        paths = [self.file(text) for text in texts]
        try:
            runs, benches, left_out = own_appendix.load_files(paths)
        except ResultError as e:
            self.assertEqual(len(str(e).splitlines()), 1, e)
            return
        selection.by_content(runs, "your runs", benches)
        self.assertEqual(len(runs) + len(benches) + len(left_out), len(paths))




if __name__ == "__main__":
    unittest.main()
