"""plots.counters: declared against counted, C1 by the counter, the three explanations, and the paper's hooks
(nothing without a profile; a report and an appendix section with one). The profiles are synthetic (tests
only) except one: the collector's profile of the recorded H200 table (tests/data/ncu/)."""
import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import types
import unittest

import jsonschema

from plots import appendix, counters, document, make_all, models, selection
from plots.results import ResultError
from plots.tests import fixtures

SCHEMA = json.loads((fixtures.DATA / "schema" / "profile.schema.json").read_text())
SIZE = 67_109_475
GRID = 1024
REGISTRY = {"implementations": [
    {"name": "global", "backend": "cuda", "roles": ["baseline"]},
    {"name": "per_block", "backend": "cuda", "roles": ["privatized"]},
    {"name": "per_warp", "backend": "cuda", "roles": ["contender"], "policy_axis": "copies"},
    {"name": "partitioned", "backend": "cuda", "roles": ["contender"], "policy_axis": "passes"},
    {"name": "read_floor", "backend": "cuda", "roles": ["floor"]}]}


def case(set_name, impl, input, values, passes=1, offset=0, declared=None, bits=32, size=SIZE, toolchain="nvcc 13.0"):
    """A profiled case as tools/ncu_profile.py records it; `values` {metric: (run 1, run 2)} summed per run."""
    atomics = {"global": size, "read_floor": 0}.get(impl, GRID * 256) if declared is None else declared
    policy = {"grid": GRID, "block": 256, "passes": passes, "copies": 1, "counter_bits": bits}
    per_run = {m: {"values": list(v), "median": sum(v) / 2} for m, v in values.items()}
    return {"set": set_name, "experiment": "placement" if set_name == "placement" else "lesson", "impl": impl,
            "backend": "cuda", "input": input, "size": size, "toolchain": toolchain, "bins_offset": offset,
            "range": {}, "problems": [], "policy": policy, "roles": None, "check_passed": True,
            "declared": {"global_atomics": atomics, "bytes_read": size * passes}, "runs": 2, "launches_per_run": passes,
            "launches": {"id": [], "kernel": [], "grid": [], "block": [], "values": {}}, "per_run": per_run,
            "per_kernel": {"k": {"launches_per_run": passes, "median": {
                m: v[0] for m, v in values.items()} | {counters.OCCUPANCY: 90.0,
                                                       counters.L2_RED_SECTORS_MAX: values.get("max", (None,))[0]}}}}


def lesson_case(impl, input, passes=1, conflicts=0.0, ms=0.1, counted=None, **kw):
    n = SIZE
    atomics = counted if counted is not None else {"global": n, "read_floor": GRID}.get(impl, GRID * 256)
    width = 8 if impl == "read_floor" else 4
    values = {counters.TIME: (ms * 1e6, ms * 1e6), counters.L2_READ: (passes * n / 32,) * 2,
              counters.DRAM_READ: (passes * n,) * 2, counters.RED_BYTES: (atomics * width,) * 2,
              counters.ATOM_BYTES: (0, 0), counters.L2_RED_REQUESTS: (atomics / 3,) * 2,
              counters.L2_ATOM_REQUESTS: (0, 0),
              # a floor's one add a block is one lane's instruction; elsewhere full warps
              counters.GLOBAL_RED_INST: ((atomics if impl == "read_floor" else -(-atomics // 32)),) * 2,
              counters.GLOBAL_ATOM_INST: (0, 0)}
    if impl in ("per_block", "per_warp", "partitioned"):
        values |= {counters.SHARED_INST: (n / 32,) * 2, counters.SHARED_CONFLICTS: (conflicts * n,) * 2,
                   counters.SHARED_WAVEFRONTS: (n / 32 * (1 + 32 * conflicts),) * 2}
    return case("lesson", impl, input, values, passes=passes, bits=64 if impl == "read_floor" else 32, **kw)


def placement_case(offset, ms, share, spread=0.0):
    sectors = 4.0e7
    values = {counters.TIME: (ms * 1e6 * (1 - spread), ms * 1e6 * (1 + spread)),
              counters.L2_RED_SECTORS: (sectors, sectors), counters.L2_RED_REQUESTS: (2.1e7, 2.1e7),
              counters.RED_BYTES: (4 * SIZE,) * 2, counters.ATOM_BYTES: (0, 0), "max": (share * sectors,)}
    return case("placement", "global", "uniform", values, offset=offset)


def profile(cases, missing=()):
    return {"format": "histostudy-profile", "schema_version": 1, "started": "2099-01-01T00:00:00Z",
            "finished": "2099-01-01T00:04:00Z",
            "profiler": {"tool": "Nsight Compute", "path": "/usr/local/cuda/bin/ncu", "version": "2025.3.1.0",
                         "version_text": "Version 2025.3.1.0", "options": ["--clock-control", "none"],
                         "clock_control": "none", "cache_control": "all"},
            "histostudy": {"path": "build/histostudy", "run_options": [], "implementations": ["global"]},
            "metrics": {"asked": [], "missing": [{"metric": m, "why": "this GPU does not have it"} for m in missing],
                        "query": "ok"},
            "sets": {"lesson": "test"}, "invocations": [{"set": "lesson", "toolchain": "nvcc", "command": ["ncu"],
                                                         "exit_status": 0, "seconds": 1.0, "problems": [],
                                                         "passes": [6]}],
            "skipped": [], "cases": cases,
            "environment": {"executors": [{"toolchain": "nvcc 13.0", "describe": {"device": {"name": "NVIDIA H200"}}}],
                            "driver": {"driver_version": "580.0"}},
            "provenance": {"git_commit": "0123456789abcdef"}, "timing": {}}


def lesson_cases(floor_declared=None):
    found = []
    for input, conflicts, slow in (("uniform", 0.068, 1.4), ("one_byte", 0.0002, 1.0)):
        found += [lesson_case("global", input, ms=17.0), lesson_case("per_block", input, conflicts=conflicts, ms=0.1 * slow),
                  lesson_case("per_warp", input, conflicts=conflicts, ms=0.1),
                  lesson_case("read_floor", input, ms=0.02, declared=floor_declared)]
        found += [lesson_case("partitioned", input, passes=p, conflicts=conflicts / p, ms=0.1 * p) for p in (1, 2, 4, 8)]
    return found


class TempData:
    """A data directory in temp: the committed data linked, a registry and `profiles` {name: doc} added."""

    def __init__(self, profiles, registry=REGISTRY):
        self.tmp = tempfile.TemporaryDirectory()
        self.data = pathlib.Path(self.tmp.name) / "data"
        self.data.mkdir()
        for item in fixtures.DATA.iterdir():
            if item.name not in ("profiles", "registry.json"):
                (self.data / item.name).symlink_to(item)
        if registry is not None:
            (self.data / "registry.json").write_text(json.dumps(registry))
        (self.data / "profiles").mkdir()
        for name, doc in profiles.items():
            (self.data / "profiles" / name).write_text(doc if isinstance(doc, str) else json.dumps(doc))

    def load(self):
        return counters.load(self.data / "profiles", "data/profiles/")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.tmp.cleanup()


def counted_of(doc, registry=REGISTRY):
    with TempData({"20990101T000000Z_nvidia-h200_profile.json": doc}, registry) as d:
        return d.load()


def toolchain(counted, name="nvcc 13.0"):
    """The counters model of a profile's cases under one toolchain."""
    return next(t for t in counters.gpu_model(counted).toolchains if t.name == name)


def counters_of(study):
    """The Models as the counters' renderers read them (Models.of), the other parts' models left out."""
    return types.SimpleNamespace(of={counters.REPORT: counters.study_model(study)}.__getitem__)


class DeclaredAgainstCounted(unittest.TestCase):
    def test_the_synthetic_profile_fits_the_schema(self):
        jsonschema.validate(profile(lesson_cases() + [placement_case(0, 10, 0.25)]), SCHEMA)

    def test_a_declaration_off_its_counter_fails_the_check(self):
        c = counted_of(profile(lesson_cases(floor_declared=0)))
        failed = counters.gpu_model(c).failures
        self.assertEqual({(case["impl"], check.what) for case, check in failed}, {("read_floor", "global atomics")})
        table = counters.declared_table(c, toolchain(c))
        self.assertEqual(len(table.rows), len(lesson_cases()))
        floor = next(r for r in table.rows if r[0] == "read_floor")
        self.assertIn("DISAGREES", floor[6])
        self.assertIn("Failing", counters.checks_prose(counters.gpu_model(c)))
        self.assertTrue(all(r[6] == counters.AGREES for r in table.rows if r[0] != "read_floor"))
        self.assertTrue(any("tolerance" in n or "within" in n for n in table.notes))

    def test_agreeing_declarations_pass(self):
        c = counted_of(profile(lesson_cases(floor_declared=GRID)))
        self.assertEqual(counters.gpu_model(c).failures, [])
        self.assertIn("agree with their counters", counters.checks_prose(counters.gpu_model(c)))
        summary = counters.summary_table(c, toolchain(c))
        self.assertEqual([r[0] for r in summary.rows][:3], ["global", "per_block", "per_warp"])
        self.assertTrue(all(r[-1].startswith("agrees in") for r in summary.rows))

    def test_atomics_of_two_widths_count_at_the_declared_bytes(self):
        # lane_shared with 32-bit bins: 64-bit adds into its spread entries (ATOM) and 32-bit moves into the bins
        # (RED); read at the counter width alone, the counter would show 2 x GRID x 256 + 256 updates.
        updates, nbytes = (GRID + 1) * 256, GRID * 256 * 8 + 256 * 4
        def lane_shared(declared_bytes):
            values = {counters.TIME: (2e4, 2e4), counters.L2_READ: (SIZE / 32,) * 2, counters.DRAM_READ: (SIZE,) * 2,
                      counters.RED_BYTES: (256 * 4,) * 2, counters.ATOM_BYTES: (GRID * 256 * 8,) * 2,
                      counters.L2_RED_REQUESTS: (8,) * 2, counters.L2_ATOM_REQUESTS: (GRID * 8,) * 2,
                      counters.GLOBAL_RED_INST: (8,) * 2, counters.GLOBAL_ATOM_INST: (GRID * 8,) * 2}
            c = case("lesson", "lane_shared", "uniform", values, declared=updates)
            if declared_bytes is not None:
                c["declared"]["global_atomic_bytes"] = declared_bytes
            return c
        self.assertEqual(counted_of(profile([lane_shared(nbytes)])).cases[0].counted_atomics(), updates)
        self.assertEqual(counters.gpu_model(counted_of(profile([lane_shared(nbytes)]))).failures, [])
        jsonschema.validate(profile([lane_shared(nbytes)]), SCHEMA)
        # Without the bytes declared (profiles before them), the check reads the counter width and fails.
        failed = counters.gpu_model(counted_of(profile([lane_shared(None)]))).failures
        self.assertEqual([(case["impl"], check.what) for case, check in failed], [("lane_shared", "global atomics")])

    def test_a_metric_not_collected_is_a_skipped_column(self):
        cases = lesson_cases()
        for c in cases:
            del c["per_run"][counters.RED_BYTES]
        c = counted_of(profile(cases, missing=[counters.RED_BYTES]))
        row = counters.declared_table(c, toolchain(c)).rows[0]
        self.assertEqual((row[4], row[6]), ("skipped", counters.NOT_COUNTED))
        self.assertIn(counters.RED_BYTES, counters.missing_note(c))
        self.assertEqual(counters.c1(c, "nvcc 13.0").by_counter, counters.UNMEASURABLE)


class ClaimC1(unittest.TestCase):
    def test_decided_by_arithmetic_and_by_the_counter(self):
        claim = counters.c1(counted_of(profile(lesson_cases())), "nvcc 13.0")
        self.assertEqual((claim.by_arithmetic, claim.by_counter), (counters.HOLDS, counters.HOLDS))
        self.assertIn(f"{GRID:,} x 256", claim.figures)

    def test_a_count_one_off_does_not_hold(self):
        cases = lesson_cases()
        cases[1] = lesson_case("per_block", "uniform", counted=GRID * 256 + 1)
        claim = counters.c1(counted_of(profile(cases)), "nvcc 13.0")
        self.assertEqual((claim.by_arithmetic, claim.by_counter), (counters.HOLDS, counters.FAILS))

    def test_without_roles_it_is_not_measurable(self):
        claim = counters.c1(counted_of(profile(lesson_cases()), registry=None), "nvcc 13.0")
        self.assertEqual(claim.by_counter, counters.UNMEASURABLE)
        self.assertIn("registry", claim.figures)


class Explanations(unittest.TestCase):
    def test_bank_conflicts_per_byte_on_uniform_against_one_byte(self):
        c = counted_of(profile(lesson_cases()))
        table = counters.conflicts_table(c, toolchain(c))
        self.assertEqual([r[0] for r in table.rows], ["per_block", "per_warp", "partitioned", "partitioned P=2",
                                                      "partitioned P=4", "partitioned P=8"])
        prose = counters.conflicts_prose(c, toolchain(c))
        self.assertIn("per_block", prose)
        self.assertIn("per_warp", prose)
        self.assertIn("is the slower one for per_block", prose)   # the synthetic per_block is 1.4x on uniform
        self.assertRegex(prose, r"same time \(within 5%\) for per_warp at 67,109,475 bytes")
        self.assertIn("the bank conflicts are uniform's", prose)

    def test_a_placement_counter_that_follows_the_time(self):
        cases = [placement_case(o, 8 + o / 128, 0.2 + o / 20480) for o in range(0, 2049, 128)]
        model = counters.placement(counted_of(profile(cases)), "nvcc 13.0")
        self.assertEqual((model.fastest, model.slowest), (0, 2048))
        prose = counters.placement_prose(model)
        self.assertIn("busiest L2 slice's share", prose)
        self.assertIn("a correlation over the offsets, not a proof", prose)
        self.assertEqual(len(counters.placement_table(model, "nvcc 13.0").rows), 17)

    def test_no_counter_that_follows_the_time_leaves_a_conjecture(self):
        cases = [placement_case(o, 8 + (o % 1024) / 128, 0.25) for o in range(0, 2049, 128)]
        prose = counters.placement_prose(counters.placement(counted_of(profile(cases)), "nvcc 13.0"))
        self.assertIn("stays conjecture", prose)
        self.assertIn("Unchanged within the runs' spread", prose)

    def test_a_run_to_run_spread_hides_a_small_difference(self):
        cases = [placement_case(0, 10, 0.25, spread=0.05), placement_case(128, 12, 0.25, spread=0.05)]
        cases[1]["per_run"][counters.L2_RED_REQUESTS] = {"values": [2.2e7, 2.2e7], "median": 2.2e7}
        movers = {m.words: m.moves for m in counters.placement(counted_of(profile(cases)), "nvcc 13.0").movers}
        self.assertTrue(movers["reduction requests reaching L2"])   # 4.5% > 2% and no spread of its own
        cases[1]["per_run"][counters.L2_RED_REQUESTS] = {"values": [2.0e7, 2.2e7], "median": 2.1e7 * 1.01}
        movers = {m.words: m.moves for m in counters.placement(counted_of(profile(cases)), "nvcc 13.0").movers}
        self.assertFalse(movers["reduction requests reaching L2"])

    def test_bytes_read_per_pass(self):
        c = counted_of(profile(lesson_cases()))
        series = counters.pass_series(c, "nvcc 13.0")
        self.assertEqual({(s.impl, s.input, s.size) for s in series},
                         {("partitioned", "uniform", SIZE), ("partitioned", "one_byte", SIZE)})
        rows = counters.passes_table(series).rows
        self.assertEqual({r[6] for r in rows}, {"1.000x"})
        self.assertIn("1.000x the input per pass at P = 1, 2, 4, 8", counters.passes_prose(c, toolchain(c)))


class Paper(unittest.TestCase):
    def test_no_profile_no_counters(self):
        with TempData({}) as d:
            self.assertIsNone(d.load())
            self.assertEqual(counters.load_each_gpu(d.data / "profiles", "data/profiles/"), [])
            nothing = counters_of(selection.Study(None, None, None))
            self.assertEqual(counters.counters_report(nothing), [])
            self.assertEqual(counters.counters_section(nothing), [])
            self.assertEqual(counters.files(None), [])

    def test_a_profile_adds_a_report_an_appendix_section_and_its_stamp(self):
        doc = profile(lesson_cases() + [placement_case(o, 8 + o / 128, 0.2 + o / 20480) for o in (0, 128, 256)])
        with TempData({"20990101T000000Z_nvidia-h200_profile.json": doc,
                       "20980101T000000Z_nvidia-h200_profile.json": {"format": "old"}}) as d:
            study = make_all.gather(d.data)
            self.assertEqual([c.path for c in study.counted],   # the newest of the GPU: the older never read
                             ["data/profiles/20990101T000000Z_nvidia-h200_profile.json"])
            files = make_all.data_files(study, "data/published/")
            self.assertEqual(files[-1], study.counted[0].path)
            m = models.build(study)
            blocks = appendix.blocks(m, "made", "files")
            text = document.markdown(blocks)
            self.assertIn("### Counted, not declared", text)
            self.assertIn("(reports/counters.md)", text)
            self.assertIn("counters", document.fragments(blocks))
            report = counters.counters_report(m)
            body = document.markdown(report, root="../")
            self.assertIn("Part of [the appendix](../appendix.md)", body)
            for words in ("Bank conflicts", "Where the bins lie", "Bytes read per pass", "**C1**"):
                self.assertIn(words, body)
            self.assertNotRegex(body + text, r"(?i)\bissues?\s+#?\d+")
            document.latex(blocks, appendix.TITLE)  # renders (escaping) without error

    def test_profiles_of_two_gpus_a_table_and_a_part_each(self):
        other = profile(lesson_cases())
        other["environment"]["executors"][0]["describe"]["device"]["name"] = "NVIDIA H100 80GB HBM3"
        with TempData({"20990101T000000Z_nvidia-h200_profile.json": profile(lesson_cases()),
                       "20990102T000000Z_nvidia-h100-80gb-hbm3_profile.json": other}) as d:
            study = make_all.gather(d.data)
            self.assertEqual(len(study.counted), 2)
            blocks = counters.counters_section(counters_of(study))
            titles = [b.table.title for b in blocks if isinstance(b, document.TableBlock)]
            self.assertEqual(titles, ["Declared against counted (nvcc 13.0, NVIDIA H200 and NVIDIA H100 80GB HBM3)"])
            self.assertEqual([b.fragment for b in blocks if isinstance(b, document.TableBlock)],
                             ["counters"])
            body = document.markdown(counters.counters_report(counters_of(study)))
            self.assertEqual(body.count("\n# "), 0)
            self.assertIn("## NVIDIA H100 80GB HBM3", body)
            self.assertIn("On NVIDIA H200 and NVIDIA H100 80GB HBM3: ", document.markdown(blocks))   # said once

    def test_a_check_that_fails_on_the_second_gpu_only_is_shown(self):
        other = profile(lesson_cases(floor_declared=0))
        other["environment"]["executors"][0]["describe"]["device"]["name"] = "NVIDIA H100 80GB HBM3"
        with TempData({"20990101T000000Z_nvidia-h200_profile.json": profile(lesson_cases(floor_declared=GRID)),
                       "20990102T000000Z_nvidia-h100-80gb-hbm3_profile.json": other}) as d:
            blocks = counters.counters_section(counters_of(make_all.gather(d.data)))
        [table] = [b.table for b in blocks if isinstance(b, document.TableBlock)]
        floor = next(r for r in table.rows if r[0] == "read_floor")
        self.assertTrue(floor[-1].endswith("DISAGREES in 2 of 4 (NVIDIA H100 80GB HBM3)"), floor[-1])

    def test_a_malformed_profile_stops_the_build_naming_it(self):
        for text in ("{not json", json.dumps({"format": "histostudy-profile", "schema_version": 9}),
                     json.dumps({"format": "histostudy-profile", "schema_version": 1})):
            with TempData({"20990101T000000Z_x_profile.json": text}) as d:
                with self.assertRaises(ResultError) as caught:
                    d.load()
                self.assertIn("data/profiles/20990101T000000Z_x_profile.json", str(caught.exception))

    def test_the_command_line_exits_1_on_a_failing_check(self):
        with TempData({"20990101T000000Z_nvidia-h200_profile.json": profile(lesson_cases(floor_declared=0))}) as d:
            path = d.data / "profiles" / "20990101T000000Z_nvidia-h200_profile.json"
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
                status = counters.main([str(path), "--registry", str(d.data / "registry.json"), "--text"])
            self.assertEqual(status, 1)
            self.assertIn("disagree", err.getvalue())
            self.assertIn("Declared against counted", out.getvalue())
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(counters.main([str(d.data / "profiles" / "none.json")]), 1)
            self.assertIn("cannot read", err.getvalue())


class RecordedTable(unittest.TestCase):
    """The collector's profile of the recorded H200 table, read by the report: real counters end to end."""

    def test_recorded_counters_make_a_report(self):
        sys.path.insert(0, str(fixtures.REPO / "tests"))
        import test_profile as recorded  # the fakes replaying the recorded table
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            for name, text in (("ncu", recorded.FAKE_NCU), ("histostudy", recorded.FAKE_HISTOSTUDY)):
                (tmp / name).write_text(text)
                (tmp / name).chmod(0o755)
            rows = recorded.recorded_rows()
            (tmp / "table.csv").write_text(recorded.with_nvtx(recorded.EXCERPT, rows))
            env = dict(os.environ, FAKE_DATA=str(recorded.DATA), FAKE_ROWS=json.dumps(rows),
                       FAKE_TABLE=str(tmp / "table.csv"), FAKE_CALLS=str(tmp / "calls.txt"))
            done = subprocess.run([sys.executable, str(fixtures.REPO / "tools" / "ncu_profile.py"), "--ncu",
                                   str(tmp / "ncu"), "--histostudy", str(tmp / "histostudy"), "-o", str(tmp / "out"),
                                   "--set", "lesson"], env=env, capture_output=True, text=True, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
            doc = json.loads(next((tmp / "out").glob("*.json")).read_text())
        jsonschema.validate(doc, SCHEMA)
        c = counted_of(doc)
        # The recorded run asked for no thread-level byte counts: atomics are not counted, bytes are.
        recorded_toolchain = toolchain(c, "nvcc 13.0.88")
        table = counters.declared_table(c, recorded_toolchain)
        self.assertTrue(all(r[6] in (counters.NOT_COUNTED, counters.NOT_DECLARED) for r in table.rows))
        self.assertTrue(all(r[10] == counters.AGREES for r in table.rows))
        self.assertEqual(len(counters.conflicts_table(c, recorded_toolchain).rows), 5)
        self.assertIn("per_block", counters.conflicts_prose(c, recorded_toolchain))


if __name__ == "__main__":
    unittest.main()
