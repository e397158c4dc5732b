"""plots/perf.py: the performance targets' verdicts on small SYNTHETIC perf runs,
written to temporary directories (never data/) and read back through the schema."""
import copy
import pathlib
import shutil
import tempfile
import unittest

from plots import make_all, perf, selection
from plots.results import ResultError, implementation, load_run
from plots.tests import fixtures, synthetic

SIZE = 1 << 30
TC = "nvcc 13.0.88"
INPUTS = ("uniform", "lesson_english", "prose", "one_byte", "distinct_256", "distinct_64", "distinct_32", "distinct_1")
FLOOR_GBPS = 4000.0
SUBJECT, PEER = implementation("cuda", "subject"), implementation("cuda", "peer")   # lane_shared, cub
CPU_SUBJECT = implementation("cpu", "subject")                                     # openmp_fast


def _row(template, impl, input, gbps, backend="cuda", toolchain=TC, experiment=perf.EXPERIMENT,
         floor="read_floor", size=SIZE, threads=0):
    ms = size / gbps / 1e6
    samples = [ms * f for f in (0.99, 1.0, 1.01)]
    row = copy.deepcopy(template)
    row.pop("roles", None)   # the template's own: the registry's roles for `impl` instead
    row.update({"experiment": experiment, "impl": impl, "backend": backend, "toolchain": toolchain, "input": input,
                "size": size, "bytes_read": size, "samples_ms": samples, "gbps": gbps, "floor_impl": floor,
                "pct_of_floor": None, "global_atomics": None, "lesson_mean_ms": None,
                "check": {"passed": True, "detail": ""}, "summary_ms": synthetic.summary(samples)})
    row["policy"] = dict(row["policy"], threads=threads)
    row["input_stats"] = synthetic.input_stats_at(template["input_stats"], template["size"], size)
    return row


def _attach_floors(rows):
    """Floors attached, and the controls' records on the GPU rows, as a controlled run has them."""
    for row in rows:
        floor = next(f for f in rows if f["impl"] == row["floor_impl"] and f["input"] == row["input"])
        row["pct_of_floor"] = 100 * row["gbps"] / floor["gbps"]
        if row["backend"] == "cuda":
            synthetic.add_controls(row, [row["toolchain"]])
    return rows


def perf_doc(subject_pct, cub_pct, hardware=True):
    """A perf run: read_floor at FLOOR_GBPS; lane_shared and cub at the given percents ({input: pct})."""
    base = fixtures.real_run_doc()
    doc = fixtures.cpu_only_doc(base)
    doc["environment"]["gpu_absent"] = None
    doc["environment"]["executors"].append({"toolchain": TC, "describe": {"device": synthetic.GPU}})
    template = doc["rows"][0]
    rows = []
    for input in INPUTS:
        rows.append(_row(template, "read_floor", input, FLOOR_GBPS))
        for impl, pcts in ((SUBJECT, subject_pct), (PEER, cub_pct)):
            if input in pcts:
                rows.append(_row(template, impl, input, FLOOR_GBPS * pcts[input] / 100))
    doc["rows"] = _attach_floors(rows)
    if hardware:
        doc["hardware"] = {"shared_rates": [{"pattern": "atomic_distinct", "updates_per_clock_sm": 10.0,
                                             "ceiling_gbps": 5000.0}],
                           "sm_count": 100, "sm_clock_mhz": 5000.0, "threads_per_block": 1024, "blocks_per_sm": 2}
    return doc


def load(tmp, name, doc):
    path = pathlib.Path(tmp) / name
    synthetic.write_json(path, doc)
    return load_run(path)


def verdicts(run):
    return {(c.input, c.unit): c.verdict for c in perf.threshold_checks(perf.PerfView(run))}


class RequiredPct(unittest.TestCase):
    def test_targets_per_input(self):
        self.assertEqual(perf.required_pct("uniform"), 75.0)
        self.assertEqual(perf.required_pct("lesson_english"), 95.0)
        self.assertEqual(perf.required_pct("one_byte"), 95.0)
        self.assertEqual(perf.required_pct("distinct_32"), 95.0)
        self.assertEqual(perf.required_pct("distinct_1"), 95.0)
        self.assertEqual(perf.required_pct("distinct_64"), 75.0)
        self.assertEqual(perf.required_pct("distinct_256"), 75.0)
        self.assertIsNone(perf.required_pct("distinct_48"))   # the study sets none between 32 and 64
        self.assertIsNone(perf.required_pct("/tmp/some.bin"))


class Verdicts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if fixtures.real_run_doc() is None:
            raise unittest.SkipTest("no run file with lesson rows in data/runs")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_all_met(self):
        subject = {i: (80.0 if perf.required_pct(i) == 75.0 else 96.0) for i in INPUTS}
        cub = {i: 50.0 for i in INPUTS}  # 80 / 50 = 1.6x on uniform
        run = load(self.tmp.name, "met.json", perf_doc(subject, cub))
        checks = perf.threshold_checks(perf.PerfView(run))
        self.assertEqual(len(checks), len(INPUTS) + 1)
        self.assertTrue(all(c.verdict == perf.MET for c in checks), [(c.input, c.verdict) for c in checks])
        self.assertEqual(perf.overall(checks), perf.MET)

    def test_boundaries_and_misses(self):
        subject = {i: 96.0 for i in INPUTS}
        subject.update({"one_byte": 94.99, "prose": 95.0, "distinct_64": 74.9, "uniform": 75.0})
        cub = {i: 50.5 for i in INPUTS}   # 75 / 50.5 = 1.485x: just under 1.5x
        run = load(self.tmp.name, "miss.json", perf_doc(subject, cub))
        v = verdicts(run)
        self.assertEqual(v[("one_byte", "pct")], perf.NOT_MET)
        self.assertEqual(v[("prose", "pct")], perf.MET)           # exactly the threshold meets it
        self.assertEqual(v[("distinct_64", "pct")], perf.NOT_MET)
        self.assertEqual(v[("uniform", "pct")], perf.MET)
        self.assertEqual(v[("uniform", "ratio")], perf.NOT_MET)
        self.assertEqual(perf.overall(perf.threshold_checks(perf.PerfView(run))), perf.NOT_MET)

    def test_missing_rows_are_not_measurable(self):
        subject = {i: 99.0 for i in INPUTS if i != "distinct_1"}
        run = load(self.tmp.name, "gap.json", perf_doc(subject, {}, hardware=False))
        v = verdicts(run)
        self.assertEqual(v[("distinct_1", "pct")], perf.NOT_HERE)
        self.assertEqual(v[("uniform", "ratio")], perf.NOT_HERE)   # no cub rows
        self.assertEqual(perf.overall(perf.threshold_checks(perf.PerfView(run))), perf.NOT_HERE)
        self.assertIn("not measurable here", perf.hardware_table(perf.PerfView(run)).markdown())

    def test_hardware_ceiling_percent(self):
        subject = {i: 100.0 for i in INPUTS}
        run = load(self.tmp.name, "hw.json", perf_doc(subject, {}))
        text = perf.kernel_ceiling_table(perf.PerfView(run)).markdown()
        self.assertIn(f"| {SUBJECT} | 4,000 | 80.0% |", text)  # 4000 of a 5000 GB/s ceiling

    def test_cpu_verdict(self):
        doc = perf_doc({}, {}, hardware=False)
        template = doc["rows"][0]
        rows = []
        for input, fast in (("uniform", 6.0), ("one_byte", 4.0)):
            for impl, gbps, threads in (("openmp_read_floor", 20.0, 2), ("reference", 2.0, 1),
                                        ("openmp_private", 5.0, 2), (CPU_SUBJECT, fast, 2)):
                rows.append(_row(template, impl, input, gbps, backend="cpu", toolchain="cpu", experiment="lesson",
                                 floor="openmp_read_floor", size=1 << 26, threads=threads))
        doc["rows"] = _attach_floors(rows)
        view = perf.CpuView(load(self.tmp.name, "cpu.json", doc))
        self.assertEqual(perf.cpu_ahead(view), {"uniform": True, "one_byte": False})
        self.assertEqual(perf.cpu_verdict(view), perf.NOT_MET)

    def _cpu_view(self, name, fast_gbps, cores=2, code="host: avx512", floor_code="host"):
        """A CPU lesson run of `cores` cores: openmp_fast at fast_gbps ({input: GB/s}); its rows' and the read
        floor's code."""
        doc = perf_doc({}, {}, hardware=False)
        doc["environment"]["host"]["logical_cores"] = cores
        template = doc["rows"][0]
        rows = []
        for input, fast in fast_gbps.items():
            for impl, gbps in (("openmp_read_floor", 40.0), ("reference", 2.0), ("openmp_private", 5.0),
                               (CPU_SUBJECT, fast)):
                rows.append(_row(template, impl, input, gbps, backend="cpu", toolchain="cpu", experiment="lesson",
                                 floor="openmp_read_floor", size=1 << 26, threads=cores))
                rows[-1]["code"] = {CPU_SUBJECT: code, "openmp_read_floor": floor_code}.get(impl, "host")
        doc["rows"] = _attach_floors(rows)
        return perf.CpuView(load(self.tmp.name, name, doc))

    def test_cpu_rate_target_on_two_avx512_cores(self):
        self.assertEqual(self._cpu_view("a.json", {"uniform": 10.0, "one_byte": 18.0}).rate_verdict, perf.MET)
        missed = self._cpu_view("b.json", {"uniform": 9.99, "one_byte": 18.0})
        self.assertEqual(missed.rate_verdict, perf.NOT_MET)
        self.assertEqual(missed.paths, {"uniform": "avx512", "one_byte": "avx512"})
        text = perf.cpu_table(missed).markdown()
        self.assertIn(f"| {CPU_SUBJECT} path |", text)
        self.assertIn("(the study's target for a 2-core machine with AVX-512): not met.", text)
        # The target is set for two cores with AVX-512 only: elsewhere it is not judged.
        self.assertEqual(self._cpu_view("c.json", {"uniform": 5.0}, cores=16).rate_verdict, perf.NO_TARGET_CORES)
        self.assertEqual(self._cpu_view("d.json", {"uniform": 5.0}, code="host: scalar").rate_verdict,
                         perf.NO_TARGET_ISA)
        # A CPU with AVX-512 (its read floor's path says so) whose dispatch fell back to scalar code is judged.
        fell_back = self._cpu_view("f.json", {"uniform": 5.0}, code="host: scalar", floor_code="host: avx512bw")
        self.assertEqual(fell_back.rate_verdict, perf.NOT_MET)
        unrecorded = self._cpu_view("e.json", {"uniform": 12.0}, code="host")
        self.assertEqual(unrecorded.rate_verdict, perf.PATHS_NOT_RECORDED)
        self.assertIn("| not recorded |", perf.cpu_table(unrecorded).markdown())

    def test_a_machines_runs_side_by_side(self):
        views = [self._cpu_view("20990101T000000Z_a.json", {"uniform": 12.0, "one_byte": 11.0}),
                 self._cpu_view("20990101T000001Z_b.json", {"uniform": 9.0, "one_byte": 11.0}),
                 self._cpu_view("20990101T000002Z_c.json", {"uniform": 40.0}, cores=16),
                 self._cpu_view("20990101T000003Z_d.json", {"uniform": 10.5, "one_byte": 10.0})]
        series = perf.cpu_series(views[::-1] + views[:1])   # newest first, and a run given twice
        self.assertEqual([[v.run.name for v in s.views] for s in series],
                         [["20990101T000000Z_a.json", "20990101T000001Z_b.json", "20990101T000003Z_d.json"]])
        text = perf.cpu_series_table(series[0]).markdown()
        commit = views[1].run.doc["provenance"]["git_commit"][:12]
        self.assertIn(f"| 20990101T000001Z_b.json | {commit} |", text)
        self.assertIn("| 9.00 to 11.00 | 40.00 | 22.5 to 27.5% | 1 of 2 | not met |", text)
        self.assertIn("met in 2 of these 3 runs.", text)
        # One run of a machine is no series; a machine the target is not set for is not judged.
        self.assertEqual(perf.cpu_series(views[:1]), [])
        many = perf.cpu_series([views[2], self._cpu_view("20990101T000004Z_e.json", {"uniform": 41.0}, cores=16)])
        self.assertIn("The study's GB/s target is not judged on this machine.", perf.cpu_series_table(many[0]).markdown())

    def test_a_series_run_needs_the_cpu_subjects_rows(self):
        cpu = fixtures.cpu_only_doc(fixtures.real_run_doc())
        without = copy.deepcopy(cpu)
        without["rows"] = [r for r in without["rows"] if r["impl"] != CPU_SUBJECT]
        runs = {"20990101T000000Z_cpu.json": cpu, "20990101T000001Z_cpu.json": without}
        data = fixtures.data_dir(self.tmp.name, runs, manifest=[("20990101T000000Z_cpu.json", "series", "x")])
        self.assertEqual([r.name for r in selection.load(data).series_runs], ["20990101T000000Z_cpu.json"])
        shutil.rmtree(data)
        data = fixtures.data_dir(self.tmp.name, runs, manifest=[("20990101T000001Z_cpu.json", "series", "x")])
        with self.assertRaises(ResultError) as caught:
            selection.load(data)
        self.assertIn("cannot be the series run: it holds no CPU rows of the CPU's subject", str(caught.exception))
        # A user's own appendix has no series: it is the paper's choice.
        self.assertNotIn("series", list(selection.by_content([load_run(data / "runs" / n) for n in runs]).roles))

    def _lesson_run(self, name, subject_gbps, samples=12):
        """A GPU lesson run at 64 MiB: read_floor, cub at 3,000 GB/s, lane_shared at subject_gbps ({input: GB/s})."""
        doc = perf_doc({}, {}, hardware=False)
        template = doc["rows"][0]
        rows = []
        for input, gbps in subject_gbps.items():
            for impl, g in (("read_floor", FLOOR_GBPS), ("sum_bytes", 9000.0), (PEER, 3000.0),
                            (SUBJECT, gbps)):
                row = _row(template, impl, input, g, experiment="lesson", size=1 << 26)
                ms = row["summary_ms"]["median"]
                row["samples_ms"] = [ms * (1 + 0.002 * (k - samples // 2)) for k in range(samples)]
                row.update(summary_ms=synthetic.summary(row["samples_ms"]))
                rows.append(dict(row, gbps=synthetic.gbps(row)))
        doc["rows"] = _attach_floors(rows)
        return load(self.tmp.name, name, doc)

    def test_lesson_size_race(self):
        # sum_bytes reads faster than anything counts: it is no rival. A 1% lead is resolved by tight samples.
        races = {r.input: r for r in perf.small_races(self._lesson_run("small.json", {"uniform": 3030.0,
                                                                                     "one_byte": 2900.0}))}
        self.assertEqual({i: r.rival["impl"] for i, r in races.items()}, {"uniform": "cub", "one_byte": "cub"})
        self.assertTrue(races["uniform"].fastest)
        self.assertEqual(races["uniform"].comparison.verdict, "faster")
        self.assertFalse(races["one_byte"].fastest)
        self.assertEqual(perf.small_verdict(list(races.values())), perf.NOT_MET)
        self.assertEqual(perf.small_verdict([races["uniform"]]), perf.MET)
        self.assertEqual(perf.small_verdict([]), perf.NOT_HERE)

    def test_each_cpu_keeps_its_newest_run(self):
        def cpu_doc(cores):
            doc = fixtures.cpu_only_doc(fixtures.real_run_doc())
            doc["environment"]["host"]["logical_cores"] = cores
            template = doc["rows"][0]
            doc["rows"] = _attach_floors([_row(template, impl, "uniform", g, backend="cpu", toolchain="cpu",
                                               experiment="lesson", floor="openmp_read_floor", size=1 << 26)
                                          for impl, g in (("openmp_read_floor", 20.0), (CPU_SUBJECT, 6.0))])
            return doc
        runs = [load(self.tmp.name, name, cpu_doc(cores))
                for name, cores in (("a_2.json", 2), ("b_16.json", 16), ("c_2.json", 2))]
        self.assertEqual([pathlib.Path(r.path).name for r in selection.newest_cpu_runs(runs)],
                         ["b_16.json", "c_2.json"])
        self.assertEqual(selection.newest_cpu_runs([]), [])

    def test_make_all_reports_the_verdicts(self):
        from plots.tests.test_make_all import build
        subject = {i: (80.0 if perf.required_pct(i) == 75.0 else 96.0) for i in INPUTS}
        subject["distinct_32"] = 90.0
        runs = {"20990101T000000Z_cpu.json": fixtures.cpu_only_doc(fixtures.real_run_doc()),
                "20990102T000000Z_perf.json": perf_doc(subject, {i: 50.0 for i in INPUTS})}
        data = fixtures.data_dir(self.tmp.name, runs)
        out = pathlib.Path(self.tmp.name) / "paper"
        build(data, out)
        report = (out / "reports" / "performance.md").read_text()
        self.assertIn("| >= 95% of floor | distinct_32 | 90.0% | 95% | not met |", report)
        self.assertIn("| >= 1.5x cub | uniform | 1.60x | 1.5x | met |", report)
        self.assertIn("All targets: not met.", report)
        self.assertIn("data/runs/20990102T000000Z_perf.json", (out / make_all.SOURCES).read_text().splitlines())
        self.assertIn("checks are met: **not met** on this run", report)
        self.assertTrue((out / "figures" / "perf-wide.svg").exists())


if __name__ == "__main__":
    unittest.main()
