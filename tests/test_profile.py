#!/usr/bin/env python3
"""The profile collector without a GPU: tools/ncu_csv.py on recorded Nsight Compute output (tests/data/ncu/,
see its README) and hand-made bad samples, and tools/ncu_profile.py end to end against a fake ncu that replays the
recorded H200 table and a fake histostudy that writes the result rows of the recorded run's cases."""
import csv
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

REPO = pathlib.Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data" / "ncu"
sys.path.insert(0, str(REPO / "tools"))
import ncu_csv  # noqa: E402
import ncu_profile as collector  # noqa: E402

EXCERPT = (DATA / "h200-raw-excerpt.csv").read_text()
NVTX_COLUMN = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"


def table(text):
    """(lines before the table, header, units, launch rows, lines after) of a raw-page output."""
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(lines[at:]))
    body = [r for r in rows[2:] if r and r[0].isdigit()]
    after = [line for line in lines[at:] if line.startswith("==")]
    return "".join(lines[:at]), rows[0], rows[1], body, "".join(after)


def write_table(before, header, units, body, after):
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([header, units] + body)
    return before + out.getvalue() + after


def without_column(text, prefix):
    before, header, units, body, after = table(text)
    keep = [i for i, name in enumerate(header) if not name.startswith(prefix)]
    pick = lambda r: [r[i] for i in keep]  # noqa: E731
    return write_table(before, pick(header), pick(units), [pick(r) for r in body], after)


def with_values(text, column, value):
    before, header, units, body, after = table(text)
    at = header.index(column)
    return write_table(before, header, units, [r[:at] + [value] + r[at + 1:] for r in body], after)


def case_chunks(body):
    """The recorded launches split after each clock probe: one chunk per case, in the run's order."""
    chunks, current = [], []
    for r in body:
        current.append(r)
        if collector.CLOCK_PROBE in r[4]:
            chunks.append(current)
            current = []
    return chunks


def range_name(row):
    """The range study/driver/case_range.hpp names for a result row of a custom run (every policy field a default)."""
    fields = {"experiment": row["experiment"], "impl": row["impl"], "input": row["input"], "size": row["size"],
              "grid": 0, "block": 0, "passes": 0, "bins_offset": 0, "toolchains": row["toolchain"]}
    return "hs-case|" + "".join(f"{k}={v}|" for k, v in fields.items())


def with_nvtx(text, rows):
    """The recorded table with the NVTX column ncu adds under --nvtx, each case's launches in its row's range."""
    before, header, units, body, after = table(text)
    out = []
    for chunk, row in zip(case_chunks(body), rows):
        cell = f'1  "<default domain>:{range_name(row)}:none:none:none:none:none:none"'
        out += [r[:4] + [cell] + r[4:] for r in chunk]
    return write_table(before, header[:4] + [NVTX_COLUMN] + header[4:], units[:4] + [""] + units[4:], out, after)


# The recorded run's cases (tests/data/ncu/README.md) as histostudy's result rows state them: the policies its
# progress lines printed, the declarations of study/driver/registry.cpp for those policies.
SIZE = 67_109_475
GRID, BLOCK = 1024, 256
POLICIES = {"global": {}, "per_block": {}, "per_warp": {"copies": 8}, "partitioned": {"passes": 4},
            "lane_shared": {"grid": 264, "block": 512}, "cub": {"grid": 0, "block": 0}, "read_floor": {},
            "sum_bytes": {}}
FOLD_ROWS = 32  # cuda/variants.hpp kFoldRowsPerBlock


def declared(impl, policy):
    if impl == "global":
        return SIZE
    if impl in ("per_block", "per_warp", "partitioned"):
        return policy["grid"] * 256
    if impl == "lane_shared":
        return -(-policy["grid"] // FOLD_ROWS) * 256
    return None if impl == "cub" else 0


def recorded_rows():
    rows = []
    for input in ("uniform", "one_byte"):
        for impl, extra in POLICIES.items():
            policy = {"grid": GRID, "block": BLOCK, "threads": 0, "passes": 1, "copies": 1, "counter_bits": 32,
                      "shared_bytes": 0, **extra}
            rows.append({"experiment": "custom", "impl": impl, "backend": "cuda", "toolchain": "nvcc 13.0.88",
                         "input": input, "size": SIZE, "policy": policy, "check": {"passed": True, "detail": ""},
                         "global_atomics": declared(impl, policy), "bytes_read": SIZE * policy["passes"],
                         "sampling": {"taken": 1}, "lesson_mean_ms": None, "code": "sass sm_90",
                         "placement": {"bins_offset": 0}})
    return rows


FAKE_HISTOSTUDY = textwrap.dedent("""\
    #!/usr/bin/env python3
    import json, os, pathlib, sys
    args = sys.argv[1:]
    if args[:1] == ["list"]:
        print("implementations (histostudy run --impl NAME):")
        for name, backend in (("reference", "cpu"), ("global", "cuda"), ("per_block", "cuda"), ("cub", "cuda")):
            print(f"  {name:<18} {backend:<5} an idea")
        print("  lane_gone          cuda  an idea  [cannot run here]")
        sys.exit(0)
    if os.environ.get("FAKE_HISTOSTUDY") == "fail":
        print("histostudy: error: implementation 'global' cannot run here (no usable CUDA GPU)", file=sys.stderr)
        sys.exit(2)
    out = pathlib.Path(args[args.index("-o") + 1])
    out.mkdir(parents=True, exist_ok=True)
    doc = {"format": "histostudy-result", "schema_version": 1, "provenance": {"argv": ["histostudy"] + args},
           "timing": {"gpu": {"warmups": 0, "lesson_warmups": 3, "lesson_reps": 0}},
           "environment": {"executors": [{"toolchain": "nvcc 13.0.88",
                                          "describe": {"device": {"name": "NVIDIA H200"}}}]},
           "rows": json.loads(os.environ["FAKE_ROWS"])}
    (out / "20261201T000000Z_nvidia-h200_nvcc-13.0.88.json").write_text(json.dumps(doc))
    """)

FAKE_NCU = textwrap.dedent("""\
    #!/usr/bin/env python3
    import os, pathlib, subprocess, sys
    args = sys.argv[1:]
    data = pathlib.Path(os.environ["FAKE_DATA"])
    mode = os.environ.get("FAKE_NCU", "ok")
    if args == ["--version"]:
        print("NVIDIA (R) Nsight Compute Command Line Profiler")
        print("Version 2025.3.1.0 (build 36398880) (public-release)")
        sys.exit(0)
    if args[:1] == ["--query-metrics"]:
        sys.stdout.write((data / "h200-query-metrics.csv").read_text())
        sys.exit(0)
    log = pathlib.Path(args[args.index("--log-file") + 1])
    with open(os.environ["FAKE_CALLS"], "a") as calls:
        calls.write(" ".join(args) + "\\n")
    if mode.startswith("refuse:") and mode[7:] in args[args.index("--metrics") + 1]:
        log.write_text((data / "failed-to-find-metric.txt").read_text().replace(
            "lts__t_requests_srcunit_nosuch_op_red", mode[7:].split(".")[0]))
        sys.exit(1)
    if mode == "no-kernel-filter" and "--kernel-name" in args:
        log.write_text("==ERROR== unrecognised option '--kernel-name-base'\\n")
        sys.exit(1)
    status = subprocess.run(args[args.index("--log-file") + 2:]).returncode
    log.write_text(pathlib.Path(os.environ["FAKE_TABLE"]).read_text() if mode != "permission" else
                   (data / "err-nvgpuctrperm.txt").read_text())
    sys.exit(status)
    """)


class Parser(unittest.TestCase):
    def test_the_recorded_table(self):
        report = ncu_csv.raw_report(EXCERPT)
        _, header, _, body, _ = table(EXCERPT)
        self.assertEqual(len(report.launches), len(body))
        self.assertEqual([l.id for l in report.launches], [int(r[0]) for r in body])
        self.assertFalse(report.has_nvtx)
        self.assertTrue(all(l.case is None for l in report.launches))
        self.assertIn("Running with unmodified GPU clocks", report.messages[0])
        first = report.launches[0]
        self.assertIn("hs_global", first.kernel)
        column = header.index("dram__bytes_read.avg")
        self.assertEqual(first.values["dram__bytes_read.avg"], float(body[0][column].replace(",", "")))
        self.assertEqual(report.units["gpu__time_duration.sum"], "ns")

    def test_a_metric_without_its_column_is_missing_not_fatal(self):
        report = ncu_csv.raw_report(without_column(EXCERPT, "gpu__time_duration"))
        self.assertEqual(report.missing(["gpu__time_duration.sum", "dram__bytes_read.sum"]),
                         ["gpu__time_duration.sum"])
        self.assertTrue(report.launches)

    def test_na_values_are_none(self):
        report = ncu_csv.raw_report(with_values(EXCERPT, "dram__bytes_read.sum", "n/a"))
        self.assertTrue(all(l.values["dram__bytes_read.sum"] is None for l in report.launches))
        for text in ("n/a", "", "(256, 1, 1)", "1,2", "PolicySpread"):
            self.assertIsNone(ncu_csv.number(text), text)
        self.assertEqual(ncu_csv.number("1,400,437.33"), 1400437.33)

    def test_refused_counters_and_empty_output_are_one_line_errors(self):
        for text, kind, says in (((DATA / "err-nvgpuctrperm.txt").read_text(), "permission", "ERR_NVGPUCTRPERM"),
                                 ("", "empty", "no table"), ("==PROF== Disconnected\n", "empty", "no table")):
            with self.assertRaises(ncu_csv.NcuError) as caught:
                ncu_csv.raw_report(text)
            self.assertEqual(caught.exception.kind, kind)
            self.assertIn(says, str(caught.exception))
            self.assertNotIn("\n", str(caught.exception))

    def test_an_unknown_metric_is_named(self):
        report = ncu_csv.raw_report((DATA / "failed-to-find-metric.txt").read_text())
        self.assertEqual(report.unknown_metrics, ["lts__t_requests_srcunit_nosuch_op_red"])
        self.assertEqual(report.launches, [])

    def test_query_and_version(self):
        have = ncu_csv.available_metrics((DATA / "h200-query-metrics.csv").read_text())
        self.assertIn("lts__t_requests_srcunit_tex_op_red", have)
        self.assertNotIn("smsp__sass_thread_inst_executed_op_global_red", have)  # the H200 has no such counter
        self.assertEqual(ncu_csv.version("Copyright\nVersion 2025.3.1.0 (build 1) (public-release)"), "2025.3.1.0")
        with self.assertRaises(ncu_csv.NcuError):
            ncu_csv.available_metrics("")
        with self.assertRaises(ncu_csv.NcuError):
            ncu_csv.version("command not found")

    def test_case_ranges_read_back(self):
        # The range tests/test_cpu.cpp checks study/driver/case_range.hpp makes.
        name = ("hs-case|experiment=lesson|impl=partitioned|input=dir%3Aa%7Cb%3Dc%25.bin|size=611|grid=0|block=0|"
                "passes=4|bins_offset=256|toolchains=cpu,cpu|")
        case = ncu_csv.cases_in(f'1  "<default domain>:{name}:none:none:none"')[-1]
        self.assertEqual(case["input"], "dir:a|b=c%.bin")
        self.assertEqual(case["toolchains"], ["cpu", "cpu"])
        self.assertEqual((case["passes"], case["bins_offset"]), ("4", "256"))
        rows = recorded_rows()
        report = ncu_csv.raw_report(with_nvtx(EXCERPT, rows))
        self.assertTrue(report.has_nvtx)
        self.assertEqual({l.case["impl"] for l in report.launches}, set(POLICIES))

    def test_kernel_names_shorten(self):
        names = {collector.short_kernel(l.kernel) for l in ncu_csv.raw_report(EXCERPT).launches}
        self.assertIn("hs_global", names)
        self.assertIn("cub::DeviceHistogramSweepKernel", names)
        self.assertIn("hs::<unnamed>::hs_cub_accumulate", names)


class Collector(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        for name, text in (("ncu", FAKE_NCU), ("histostudy", FAKE_HISTOSTUDY)):
            (self.dir / name).write_text(text)
            (self.dir / name).chmod(0o755)
        self.rows = recorded_rows()
        (self.dir / "table.csv").write_text(with_nvtx(EXCERPT, self.rows))
        self.env = dict(os.environ, FAKE_DATA=str(DATA), FAKE_ROWS=json.dumps(self.rows),
                        FAKE_TABLE=str(self.dir / "table.csv"), FAKE_CALLS=str(self.dir / "calls.txt"))

    def tearDown(self):
        self.tmp.cleanup()

    def collect(self, *extra, **env):
        out = self.dir / "profiles"
        done = subprocess.run([sys.executable, str(REPO / "tools" / "ncu_profile.py"), "--ncu", str(self.dir / "ncu"),
                               "--histostudy", str(self.dir / "histostudy"), "-o", str(out), "--set", "lesson",
                               *extra], env={**self.env, **env}, capture_output=True, text=True, timeout=120)
        files = sorted(out.glob("*.json")) if out.exists() else []
        return done, [json.loads(p.read_text()) for p in files], files

    def test_a_profile_from_the_recorded_table(self):
        done, docs, files = self.collect()
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len(files), 1)
        self.assertTrue(files[0].name.endswith("_nvidia-h200_profile.json"))
        doc = docs[0]
        self.assertEqual(doc["format"], "histostudy-profile")
        self.assertEqual(doc["profiler"]["version"], "2025.3.1.0")
        self.assertEqual(doc["environment"]["executors"][0]["toolchain"], "nvcc 13.0.88")
        call = (self.dir / "calls.txt").read_text()
        for option in ("--clock-control none", "--nvtx", "--lesson-reps 0", "--control none",
                       "--impl global,per_block,cub"):
            self.assertIn(option, call)
        # The recorded run asked for no thread-level byte counts: their columns are missing, said so, skipped.
        missing = {m["metric"]: m["why"] for m in doc["metrics"]["missing"]}
        self.assertEqual(missing.get("smsp__sass_data_bytes_mem_global_op_red.sum"), "no column in ncu's table")
        self.assertIn("its column is skipped", done.stderr)
        invocation = doc["invocations"][0]
        self.assertEqual(invocation["not_attributed"]["clock probe"], len(self.rows))
        self.assertEqual(invocation["not_attributed"]["outside any case"], 0)
        cases = {(c["impl"], c["input"]): c for c in doc["cases"]}
        self.assertEqual(len(cases), len(self.rows))
        for c in doc["cases"]:
            self.assertEqual(c["problems"], [], c["impl"])
            self.assertEqual(c["runs"], 2)
        # What the counters say of the declared counts (relations only: no recorded figure is typed here).
        red = "smsp__sass_inst_executed_op_global_red.sum"
        for impl in ("per_block", "per_warp", "partitioned", "lane_shared"):
            c = cases[(impl, "uniform")]
            self.assertEqual(c["per_run"][red]["median"] * 32, c["declared"]["global_atomics"], impl)
        part = cases[("partitioned", "uniform")]
        self.assertEqual(part["launches_per_run"], 4)
        read = part["per_run"]["lts__t_sectors_srcunit_tex_op_read.sum"]["median"] * 32
        self.assertAlmostEqual(read / part["declared"]["bytes_read"], 1.0, places=4)
        self.assertEqual(len(cases[("cub", "one_byte")]["per_kernel"]), 3)
        self.assertEqual(len(cases[("cub", "one_byte")]["launches"]["id"]), 6)

    def test_values_given_as_na_are_kept_as_null(self):
        (self.dir / "table.csv").write_text(with_values(with_nvtx(EXCERPT, self.rows), "gpu__time_duration.sum",
                                                        "n/a"))
        done, docs, _ = self.collect()
        self.assertEqual(done.returncode, 0, done.stderr)
        case = docs[0]["cases"][0]
        self.assertEqual(set(case["launches"]["values"]["gpu__time_duration.sum"]), {None})
        self.assertIsNone(case["per_run"]["gpu__time_duration.sum"]["median"])

    def test_no_ncu(self):
        done, docs, _ = self.collect("--ncu", str(self.dir / "no-such-ncu"))
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.strip().count("\n"), 0)
        self.assertIn("no Nsight Compute", done.stderr)
        self.assertEqual(docs, [])

    def test_counters_refused(self):
        done, docs, _ = self.collect(FAKE_NCU="permission")
        self.assertEqual(done.returncode, 1)
        self.assertIn("ERR_NVGPUCTRPERM", done.stderr.strip().splitlines()[-1])
        self.assertEqual(docs, [])

    def test_a_metric_ncu_refuses_is_left_out_and_the_run_repeated(self):
        refused = "lts__t_requests_srcunit_ltcfabric.sum"
        done, docs, _ = self.collect(FAKE_NCU=f"refuse:{refused}")
        self.assertEqual(done.returncode, 0, done.stderr)
        missing = {m["metric"]: m["why"] for m in docs[0]["metrics"]["missing"]}
        self.assertEqual(missing[refused], "ncu: Failed to find metric")
        calls = (self.dir / "calls.txt").read_text().splitlines()
        self.assertEqual(len(calls), 2)
        self.assertNotIn(refused, calls[1])

    def test_an_ncu_without_the_kernel_filter(self):
        done, docs, _ = self.collect(FAKE_NCU="no-kernel-filter")
        self.assertEqual(done.returncode, 0, done.stderr)
        calls = (self.dir / "calls.txt").read_text().splitlines()
        self.assertEqual((len(calls), "--kernel-name" in calls[0], "--kernel-name" in calls[1]), (2, True, False))
        self.assertEqual(docs[0]["invocations"][0]["not_attributed"]["clock probe"], len(self.rows))

    def test_ranges_that_name_no_case(self):
        (self.dir / "table.csv").write_text(with_nvtx(EXCERPT, self.rows).replace("hs-case|", "other|"))
        done, docs, _ = self.collect()
        self.assertEqual(done.returncode, 1)
        self.assertIn("no launch ran in an hs-case range", done.stderr)
        self.assertIn("other|experiment=custom", done.stderr)

    def test_empty_output_and_a_failing_histostudy(self):
        (self.dir / "table.csv").write_text("")
        done, docs, _ = self.collect()
        self.assertEqual(done.returncode, 1)
        self.assertIn("no case was profiled", done.stderr)
        self.assertIn("no table", done.stderr)
        (self.dir / "table.csv").write_text(with_nvtx(EXCERPT, self.rows))
        done, docs, _ = self.collect(FAKE_HISTOSTUDY="fail")
        self.assertEqual(done.returncode, 1)
        self.assertIn("cannot run here", done.stderr.strip().splitlines()[-1])

    def test_an_unknown_set(self):
        done, _, _ = self.collect("--set", "nonsense")
        self.assertEqual(done.returncode, 2)
        self.assertIn("known sets are", done.stderr)


class Files(unittest.TestCase):
    def test_a_profile_never_replaces_another(self):
        with tempfile.TemporaryDirectory() as tmp:
            first = collector.write_new(tmp, "p", "one")
            second = collector.write_new(tmp, "p", "two")
            self.assertNotEqual(first, second)
            self.assertEqual((first.read_text(), second.read_text()), ("one", "two"))
            self.assertTrue(second.name.endswith("-002.json"))
            self.assertEqual(sorted(p.name for p in pathlib.Path(tmp).iterdir()), ["p-002.json", "p.json"])

    def test_a_modules_directory_is_profiled_entry_by_entry(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = pathlib.Path(tmp) / "modules"
            for release in ("nvrtc-12.6.85", "nvrtc-13.0.88"):
                (source / release).mkdir(parents=True)
                (source / release / "sm_90.cubin").write_bytes(b"cubin")
            builds = [{"toolchain": f"nvrtc {r[6:]}", "arch": "sm_90", "kind": "sass", "file": f"nvrtc-{r[6:]}/sm_90.cubin"}
                      for r in ("nvrtc-12.6.85", "nvrtc-13.0.88")]
            (source / "manifest.json").write_text(json.dumps({"format": "histostudy-modules", "builds": builds}))
            entries = collector.toolchain_entries(f"modules:{source}", pathlib.Path(tmp) / "work")
            self.assertEqual(len(entries), 2)
            for (label, spec), build in zip(entries, builds):
                folder = pathlib.Path(spec.removeprefix("modules:"))
                self.assertEqual(json.loads((folder / "manifest.json").read_text())["builds"], [build])
                self.assertEqual((folder / build["file"]).read_bytes(), b"cubin")
                self.assertIn(build["toolchain"], label)
            self.assertEqual(collector.toolchain_entries("nvcc", tmp), [("nvcc", "nvcc")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
