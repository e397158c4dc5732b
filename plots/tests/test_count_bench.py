"""plots/count_bench.py: count-bench files read through their schema, their verdicts against the study's 80% target,
the manifest's `count` lines and the performance report's table, on copies of a committed file changed in temp."""
import contextlib
import copy
import io
import json
import pathlib
import tempfile
import types
import unittest

from plots import count_bench, make_all, own_appendix, selection, stats
from plots import table as fmt
from plots.results import ResultError
from plots.tests import fixtures, synthetic

GIB = 1 << 30


def committed_bench(backend):
    """A count-bench file of `backend` the committed manifest names (its document), or skip."""
    for name in fixtures.manifest_runs():
        path = fixtures.RUNS / name
        if name.startswith(f"{count_bench.FOLDER}/"):
            doc = json.loads(path.read_text())
            if doc["backend"] == backend:
                return doc
    raise unittest.SkipTest(f"the manifest names no {backend} count-bench file")


def entry(doc, name):
    return next(e for e in doc["entries"] if e["name"] == name)


def at_pct(doc, pct, bytes=GIB, control_pct=100.0, cached=1.0):
    """`doc` with count's median at `pct` of its floor's, the A/A repeat at `control_pct`, the file `bytes`
    long and `cached` in the page cache."""
    doc = copy.deepcopy(doc)
    floor = entry(doc, doc["floor"]["entry"])["gbps"]["median"]
    for name in (count_bench.COUNT, count_bench.again(count_bench.COUNT)):  # the second, where the file has it
        if any(e["name"] == name for e in doc["entries"]):
            entry(doc, name)["gbps"]["median"] = floor * pct / 100
    entry(doc, count_bench.again(doc["floor"]["entry"]))["gbps"]["median"] = floor * control_pct / 100
    doc["file"].update(bytes=bytes, page_cached_before=cached)
    doc["settle_s"] = 0.05  # each pass after count-bench's default idle
    doc.get("machine", {}).pop("passes", None)  # others' use over the whole window, which the tests set
    return agreeing(doc)


def incomplete(doc):
    """`doc` as count-bench writes it when the file changed after some passes: its last entry never timed, no
    ratios."""
    doc = copy.deepcopy(doc)
    doc["incomplete"] = {"error": "f: changed while counted"}
    doc["entries"][-1]["samples_s"] = []
    del doc["entries"][-1]["gbps"]
    for key in [k for k in doc if "_pct_" in k]:
        del doc[key]
    return doc


def agreeing(doc):
    """`doc` with each entry's samples scaled to give the GB/s median a test set, its other GB/s figures made again
    from them: plots/count_bench.py refuses a file whose figures disagree with its samples."""
    doc = copy.deepcopy(doc)
    size = doc.get("file", {}).get("bytes")
    for e in doc.get("entries", []):
        timed = e.get("samples_s") or []
        if "gbps" not in e or not timed or not isinstance(size, int) or not all(t > 0 for t in timed):
            continue
        now = stats.median([size / t / 1e9 for t in timed])
        e["samples_s"] = [t * now / e["gbps"]["median"] for t in timed]
        made = synthetic.summary([size / t / 1e9 for t in e["samples_s"]])
        e["gbps"].update({k: v for k, v in made.items() if k in e["gbps"]})
    return doc


def bench(doc, shown="x.json"):
    return count_bench.parse_bench(shown, agreeing(doc))


class Verdicts(unittest.TestCase):
    def test_target_at_80_percent_of_the_floor_from_1_gib(self):
        for backend in ("cpu", "cuda"):
            doc = committed_bench(backend)
            self.assertEqual(bench(at_pct(doc, 80.0)).verdict, count_bench.MET)
            self.assertEqual(bench(at_pct(doc, 79.99)).verdict, count_bench.NOT_MET)
            self.assertEqual(bench(at_pct(doc, 50.0, bytes=GIB - 1)).verdict, count_bench.NO_TARGET)

    def test_a_file_not_page_cached_or_with_a_wide_a_a_pair_is_not_judged(self):
        doc = committed_bench("cpu")
        self.assertEqual(bench(at_pct(doc, 90.0, cached=0.5)).verdict, "no target (not page-cached: 0.50)")
        self.assertEqual(bench(at_pct(doc, 90.0, cached=-1)).verdict, "no target (not page-cached: -)")
        self.assertEqual(bench(at_pct(doc, 90.0, control_pct=94.0)).verdict, "inconclusive (A/A 94.0%)")
        self.assertEqual(bench(at_pct(doc, 90.0, control_pct=104.9)).verdict, count_bench.MET)  # inside the band

    def test_passes_back_to_back_are_not_judged(self):
        for backend in ("cpu", "cuda"):
            doc = at_pct(committed_bench(backend), 90.0)
            doc["settle_s"] = 0.039
            self.assertEqual(bench(doc).verdict, "inconclusive (passes back to back)")
            del doc["settle_s"]  # a file made before count-bench settled
            self.assertEqual(bench(doc).verdict, "inconclusive (passes back to back)")
            doc["settle_s"] = 0.04
            self.assertEqual(bench(doc).verdict, count_bench.MET)

    def test_a_plan_of_its_own_is_shown_and_not_judged(self):
        for backend in ("cpu", "cuda"):
            doc = at_pct(committed_bench(backend), 50.0)
            head = doc["provenance"]["argv"][:3]
            for asked, named in ((["--chunk", "16MiB", "--buffers", "4"], "--chunk --buffers"),
                                 (["--piece=512KiB"], "--piece"), (["-t4"], "-t"), (["-t", "4"], "-t"),
                                 (["--threads", "2"], "--threads"), (["--threads=2", "-o", "-t"], "--threads")):
                doc["provenance"]["argv"] = head + asked
                other = bench(doc)
                self.assertEqual(other.verdict, f"not judged (a plan of its own: {named})")
                self.assertEqual(count_bench.overall([other]), count_bench.NOT_JUDGED)
            doc["provenance"]["argv"] = head + ["--", "-tfile"]   # a file named -tfile: count's plan
            self.assertEqual(bench(doc).verdict, count_bench.NOT_MET)
            doc["provenance"]["argv"] = head + ["--chunk", "1MiB"]
            own = at_pct(doc, 90.0)
            own["provenance"]["argv"] = head + ["--impl", "x", "--rounds", "3", "--settle", "50"]
            self.assertEqual(count_bench.overall([other, bench(own)]), count_bench.MET)  # the 50% one not judged
            doc["provenance"]["argv"] = own["provenance"]["argv"]
            self.assertEqual(bench(doc).verdict, count_bench.NOT_MET)

    def test_count_s_plan_of_an_earlier_commit_is_shown_and_not_judged(self):
        for backend in ("cpu", "cuda"):
            now = count_bench.counts_plans()[backend]
            doc = at_pct(committed_bench(backend), 90.0)
            self.assertTrue(set(now) <= set(doc), f"count_plans names fields count-bench does not record: {now}")
            self.assertEqual({field: doc[field] for field in now}, now)   # the manifest's files: count's plan now
            self.assertEqual(bench(doc).verdict, count_bench.MET)
            doc["piece_bytes"] = now["piece_bytes"] * 2
            before = bench(doc)
            self.assertFalse(before.own_plan)
            self.assertEqual(count_bench.overall([before]), count_bench.NOT_JUDGED)
            pieces = f"{fmt.size_words(now['piece_bytes'] * 2)} pieces"
            if backend == "cuda":
                doc.update(chunk_bytes=16 << 20, buffers=4)
                pieces = f"16 MiB x 4, {pieces}"
            self.assertEqual(bench(doc).verdict, f"not judged (count's plan before: {pieces})")
            del doc["piece_bytes"]
            self.assertIn("not recorded pieces", bench(doc).verdict)

    def test_a_registry_without_count_plans_is_refused(self):
        for doc in ({}, {"count_plans": []}, {"count_plans": {"cuda": 4}}, []):
            with self.assertRaisesRegex(ResultError, "no count_plans"):
                count_bench.plans_of(doc)

    def test_count_s_own_a_a_pair_apart_makes_a_file_inconclusive(self):
        for backend in ("cpu", "cuda"):
            doc = at_pct(committed_bench(backend), 90.0)
            doc["entries"] = [e for e in doc["entries"] if e["name"] != count_bench.again(count_bench.COUNT)]
            repeat = copy.deepcopy(entry(doc, count_bench.COUNT))
            repeat["name"] = count_bench.again(count_bench.COUNT)
            doc["entries"].append(repeat)
            count = repeat["gbps"]["median"]
            repeat["gbps"]["median"] = count * 0.94
            self.assertEqual(bench(doc).verdict, "inconclusive (count's A/A 94.0%)")
            repeat["gbps"]["median"] = count * 1.04
            self.assertEqual(bench(doc).verdict, count_bench.MET)
            self.assertIn("(count 104.0%)", count_bench.bench_table([bench(doc)]).rows[0][10])

    def test_busy_is_judged_over_the_passes_where_recorded(self):
        doc = at_pct(committed_bench("cuda"), 90.0)
        doc["machine"].update(timed_s=3.0, other_processes_cpu_s=0.9, steal_s=0.0)  # 0.3 a second of the window
        self.assertEqual(bench(doc).verdict, count_bench.MET)
        doc["machine"]["passes"] = {"seconds": 1.0, "other_processes_cpu_s": 0.6, "steal_s": 0.0}
        self.assertEqual(bench(doc).verdict, "inconclusive (busy: others used 0.60 CPU s in 1.00 s)")
        doc["machine"]["passes"]["other_processes_cpu_s"] = 0.5
        self.assertEqual(bench(doc).verdict, count_bench.MET)

    def test_seconds_the_hypervisor_stole_make_a_file_busy_as_other_processes_do(self):
        doc = at_pct(committed_bench("cuda"), 50.0)
        doc["machine"].update(timed_s=2.0, other_processes_cpu_s=0.2, steal_s=1.01)
        self.assertEqual(bench(doc).verdict, "inconclusive (busy: the hypervisor stole 1.01 CPU s in 2.00 s)")
        doc["machine"]["steal_s"] = 1.0
        self.assertEqual(bench(doc).verdict, count_bench.NOT_MET)
        doc["machine"].update(other_processes_cpu_s=1.2, steal_s=1.1)
        self.assertEqual(bench(doc).verdict, "inconclusive (busy: others used 1.20 CPU s in 2.00 s)")

    def test_a_file_timed_while_other_processes_were_busy_is_inconclusive(self):
        doc = at_pct(committed_bench("cuda"), 50.0)
        doc["machine"].pop("steal_s", None)
        doc["machine"].update(timed_s=2.0, other_processes_cpu_s=1.01)
        self.assertEqual(bench(doc).verdict, "inconclusive (busy: others used 1.01 CPU s in 2.00 s)")
        doc["machine"]["other_processes_cpu_s"] = 1.0
        self.assertEqual(bench(doc).verdict, count_bench.NOT_MET)
        del doc["machine"]
        self.assertEqual(bench(doc).verdict, count_bench.NOT_MET)   # not recorded: judged

    def test_the_reader_s_ratios_are_the_writer_s(self):
        for backend in ("cpu", "cuda"):
            doc = committed_bench(backend)
            b, floor = bench(doc), doc["floor"]["name"]
            self.assertAlmostEqual(b.count_pct, doc[f"count_pct_of_{floor}"], places=9)
            self.assertAlmostEqual(b.control_pct, doc[f"control_pct_of_{floor}"], places=9)
            self.assertAlmostEqual(b.reads_alone_pct, doc["count_pct_of_pread"], places=9)
            if "counting_alone" in doc:
                self.assertAlmostEqual(b.counting_alone_pct, doc["counting_alone"][f"pct_of_{floor}"], places=9)

    def test_overall_judges_only_files_with_a_target(self):
        doc = committed_bench("cpu")
        met, missed, small = (bench(at_pct(doc, p, b)) for p, b in ((90, GIB), (70, GIB), (10, 1 << 20)))
        self.assertEqual(count_bench.overall([met, small]), count_bench.MET)
        self.assertEqual(count_bench.overall([met, missed]), count_bench.NOT_MET)
        self.assertEqual(count_bench.overall([small]), count_bench.NO_TARGET)
        wide = bench(at_pct(doc, 90, control_pct=80))
        self.assertEqual(count_bench.overall([met, wide]), count_bench.MET)   # judged where it can be
        self.assertEqual(count_bench.overall([missed, wide]), count_bench.NOT_MET)
        self.assertEqual(count_bench.overall([wide, small]), count_bench.INCONCLUSIVE)
        self.assertEqual(count_bench.inconclusive([met, wide, small]), [wide])

    def test_the_report_says_where_the_reading_bound_a_missed_file(self):
        base = committed_bench("cuda")
        base["machine"] = {"other_processes_cpu_s": 0.0, "timed_s": 1.0}

        def gpu_file(count_pct, reads_pct):
            doc = at_pct(base, count_pct)
            floor = entry(doc, doc["floor"]["entry"])["gbps"]["median"]
            entry(doc, doc["reads_alone"]["entry"])["gbps"]["median"] = floor * reads_pct / 100
            return bench(doc)

        def prose(*benches):
            return count_bench.count_prose(types.SimpleNamespace(benches=list(benches)))

        self.assertIn("On the file not met, count's own reads alone ran at 79.6% of the floor, under 80%, and count "
                      "at 98% of them (medians): the reading bound count there", prose(gpu_file(78.0, 79.6)))
        self.assertIn("On the 2 files not met, count's own reads alone ran at 70.0 to 79.6% of the floor",
                      prose(gpu_file(78.0, 79.6), gpu_file(68.0, 70.0), gpu_file(90.0, 95.0)))
        for unbound in ([gpu_file(78.0, 80.0)],                       # its reads reached the target
                        [gpu_file(78.0, 79.6), gpu_file(70.0, 90.0)],  # one missed with its reads fast enough
                        [gpu_file(85.0, 79.0)],                       # none missed
                        [gpu_file(70.0, 79.0)]):                      # count at 89% of its reads: not only them
            self.assertNotIn("the reading bound", prose(*unbound))
        self.assertIn("the reading bound", prose(gpu_file(75.0, 78.9)))  # count at 95% of its reads: within 5%
        cpu = committed_bench("cpu")
        self.assertNotIn("the reading bound", prose(bench(at_pct(cpu, 50.0))))   # its counting alone binds

    def test_the_report_gives_other_plans_in_gb_s_beside_count_s_on_the_same_files(self):
        doc = at_pct(committed_bench("cuda"), 90.0)
        doc["machine"] = {"other_processes_cpu_s": 0.0, "timed_s": 1.0}
        own = bench(doc)
        other_doc = copy.deepcopy(doc)
        other_doc["provenance"]["argv"] = other_doc["provenance"]["argv"][:3] + ["--chunk", "8MiB", "--buffers", "6"]
        other_doc.update(chunk_bytes=8 << 20, buffers=6)
        entry(other_doc, count_bench.COUNT)["gbps"]["median"] = 48.25
        other = bench(other_doc)
        prose = count_bench.count_prose(types.SimpleNamespace(benches=[own, other]))
        count = f"{own.gbps(count_bench.COUNT)['median']:.1f}"
        self.assertIn(f"Timed with other reading plans, options of their own or count's plan of an earlier commit "
                      f"(1 file, not judged), count ran at "
                      f"{other.plan}: 48.2 GB/s, against {count} GB/s with count's own plan on the same files", prose)
        self.assertIn(f"over 1 file", prose)    # only count's own plan in the judged figures
        alone = count_bench.count_prose(types.SimpleNamespace(benches=[other]))
        self.assertIn(f"GPU implementations on {other.machine}: timed with other reading plans", alone)
        self.assertNotIn(". .", alone)

    def test_plans_name_the_cpu_path_and_the_gpu_ring(self):
        cpu, gpu = bench(committed_bench("cpu")), bench(committed_bench("cuda"))
        self.assertRegex(cpu.plan, r"^\d+ threads, \S+ path$")
        self.assertRegex(gpu.plan, r"^\d+ reading threads, \d+ x \d+ [MG]iB pinned$")
        self.assertIsNone(gpu.counting_alone_pct)
        self.assertIsNotNone(cpu.counting_alone_pct)

    def test_optional_records_may_be_absent(self):
        gpu = copy.deepcopy(committed_bench("cuda"))
        for key in ("chunk_bytes", "buffers", "piece_bytes", "device", "machine"):
            gpu.pop(key)
        cpu = copy.deepcopy(committed_bench("cpu"))
        alone = cpu.pop("counting_alone")["entry"]
        cpu["entries"] = [e for e in cpu["entries"] if e["name"] != alone]
        cpu.pop("cpu_paths")
        self.assertRegex(bench(gpu).plan, r"^\d+ reading threads$")
        self.assertRegex(bench(cpu).plan, r"^\d+ threads, path not recorded$")
        text = count_bench.bench_table([bench(cpu), bench(gpu)]).markdown()
        self.assertEqual(text.count(" | - | "), 3, text)   # counting alone twice, others' CPU once

    def test_stolen_seconds_shown_where_recorded(self):
        doc = copy.deepcopy(committed_bench("cuda"))
        doc["machine"].pop("passes", None)  # without machine.passes the table reads the whole window
        doc["machine"].pop("steal_s", None)
        recorded = copy.deepcopy(doc)
        recorded["machine"].update(other_processes_cpu_s=0.5, steal_s=0.25)
        text = count_bench.bench_table([bench(doc), bench(recorded)]).markdown()
        self.assertEqual(text.count(" stolen) | "), 1, text)
        self.assertIn(" | 0.50 (0.25 stolen) | ", text)


class Schema(unittest.TestCase):
    def test_the_cpu_identity_is_described_alike_in_both_schemas(self):
        """count-bench.schema.json repeats result.schema.json's cpu_identity (a schema file cannot name another
        without a registry): the two must not drift apart, but for the note on the older files."""
        schemas = count_bench.DATA / "schema"
        result = json.loads((schemas / "result.schema.json").read_text())["$defs"]["cpu_identity"]
        bench_host = json.loads((schemas / "count-bench.schema.json").read_text())["properties"]["environment"]
        bench = bench_host["properties"]["host"]["properties"]["cpu"]
        self.assertEqual({k: v for k, v in bench.items() if k != "description"},
                         {k: v for k, v in result.items() if k != "description"})
        self.assertTrue(bench["description"].startswith(result["description"].removesuffix(".")))


class Refusals(unittest.TestCase):
    def assertRefused(self, doc, words):
        with self.assertRaises(ResultError) as caught:
            bench(doc, "runs/count-bench/bad.json")
        self.assertTrue(str(caught.exception).startswith("runs/count-bench/bad.json: "), caught.exception)
        self.assertIn(words, str(caught.exception))

    def test_bad_documents_are_refused_naming_the_file(self):
        doc = committed_bench("cuda")
        self.assertRefused(dict(doc, format="histostudy-result"), "not a count-bench result file")
        self.assertRefused(dict(doc, version=count_bench.VERSION + 1), "written by a newer histostudy")
        renamed = {k: v for k, v in doc.items() if k != "version"}
        self.assertRefused(dict(renamed, schema_version=count_bench.VERSION + 1), "written by a newer histostudy")
        self.assertRefused(renamed, "does not follow the count-bench schema")   # no version key at all
        bench(dict(renamed, schema_version=count_bench.VERSION), "runs/count-bench/new.json")  # today's files
        no_control = copy.deepcopy(doc)
        no_control["entries"] = [e for e in doc["entries"] if e["name"] != doc["floor"]["entry"] + "_again"]
        self.assertRefused(no_control, "names entries it does not hold")
        zero = copy.deepcopy(doc)
        zero["entries"][0]["samples_s"][0] = 0.0
        self.assertRefused(zero, "does not follow the count-bench schema at entries[0].samples_s[0]")
        no_file = copy.deepcopy(doc)
        del no_file["file"]["bytes"]
        self.assertRefused(no_file, "'bytes' is a required property")
        older = copy.deepcopy(doc)
        del older["floor"], older["reads_alone"]
        self.assertRefused(older, "written by an older count-bench")
        self.assertRefused(dict(incomplete(doc), incomplete={}), "'error' is a required property")
        unsummarized = copy.deepcopy(doc)
        del unsummarized["entries"][1]["gbps"]
        self.assertRefused(unsummarized, "'gbps' is a required property")   # only an incomplete bench may lack it

    def test_a_rate_its_samples_do_not_give_is_refused_naming_the_entry(self):
        doc = copy.deepcopy(committed_bench("cuda"))
        doc["entries"][1]["gbps"]["median"] *= 1.5   # a faster count typed in
        with self.assertRaises(ResultError) as caught:
            count_bench.parse_bench("runs/count-bench/edited.json", doc)
        self.assertRegex(str(caught.exception), r"^runs/count-bench/edited.json: contradicts itself: entries\[1\] "
                                                 r"\(\w+\): gbps.median is [\d.]+, but its \d+ samples_s of [\d,]+ "
                                                 r"bytes give [\d.]+$")
        doc["entries"][1]["gbps"]["median"] /= 1.5
        count_bench.parse_bench("runs/count-bench/edited.json", doc)

    def test_an_incomplete_bench_is_left_out_with_its_error(self):
        with self.assertRaises(count_bench.IncompleteBench) as caught:
            bench(incomplete(committed_bench("cpu")), "runs/count-bench/stopped.json")
        self.assertEqual(str(caught.exception),
                         "runs/count-bench/stopped.json: incomplete: count-bench stopped on an error (f: changed while "
                         "counted); its samples are kept, but no verdict is drawn from them")

    def test_truncated_file_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "cut.json"
            path.write_text(json.dumps(committed_bench("cpu"))[:200])
            with self.assertRaisesRegex(ResultError, "not valid JSON, or truncated"):
                count_bench.load_bench(path)
            with self.assertRaisesRegex(ResultError, "not valid JSON, or truncated"):
                own_appendix.load_files([path])

    def test_infinity_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "inf.json"
            path.write_text(json.dumps(committed_bench("cuda")).replace('"median": ', '"median": Infinity, "x": ', 1))
            with self.assertRaisesRegex(ResultError, "non-standard JSON constant Infinity"):
                count_bench.load_bench(path)


class InThePaper(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def data(self, count_lines, benches):
        runs = {"20990101T000000Z_cpu.json": fixtures.cpu_doc_or_skip()}
        data = fixtures.data_dir(self.tmp.name, runs, manifest=[])
        folder = data / "runs" / count_bench.FOLDER
        folder.mkdir()
        for name, doc in benches.items():
            synthetic.write_json(folder / name, doc)
        fixtures.write_manifest(data, [("20990101T000000Z_cpu.json", "cpu", "test fixture")] + count_lines)
        return data

    def test_manifest_count_lines_feed_the_report(self):
        from plots.tests.test_make_all import build
        cpu, gpu = at_pct(committed_bench("cpu"), 55.0), at_pct(committed_bench("cuda"), 85.0)
        data = self.data([(f"{count_bench.FOLDER}/a.json", "count", "fixture"),
                          (f"{count_bench.FOLDER}/b.json", "count", "fixture")], {"a.json": cpu, "b.json": gpu})
        sel = selection.load(data)
        self.assertEqual([b.name for b in sel.benches], ["a.json", "b.json"])
        self.assertEqual(sel.runs[0].name, "20990101T000000Z_cpu.json")   # benches are no study run
        out = pathlib.Path(self.tmp.name) / "paper"
        build(data, out)
        report = (out / "reports" / "performance.md").read_text()
        self.assertIn("| 55.0% |", report)
        self.assertIn("| 85.0% |", report)
        section = report.split("## `count` at the speed of its input")[1]
        self.assertRegex(section, r"CPU implementations on [^:]*: count at 55% .*: \*\*not met\*\*")
        self.assertRegex(section, r"GPU implementations on [^:]*: count at 85% .*: \*\*met\*\*")
        self.assertIn(f"data/runs/{count_bench.FOLDER}/a.json", (out / make_all.SOURCES).read_text().splitlines())
        environments = (out / "reports" / "environments.md").read_text()
        self.assertIn(f"`data/runs/{count_bench.FOLDER}/b.json`: fixture", environments)

    def test_a_count_line_must_name_a_count_bench_file(self):
        cpu = committed_bench("cpu")
        data = self.data([("20990101T000000Z_cpu.json", "count", "fixture")], {"a.json": cpu})
        with self.assertRaisesRegex(ResultError, "a count-bench file lies in runs/count-bench/"):
            selection.load(data)
        fixtures.write_manifest(data, [(f"{count_bench.FOLDER}/a.json", "count", "x")] * 2)
        with self.assertRaisesRegex(ResultError, "named twice as count"):
            selection.load(data)

    def test_the_paper_names_no_incomplete_bench(self):
        data = self.data([(f"{count_bench.FOLDER}/a.json", "count", "fixture")],
                         {"a.json": incomplete(committed_bench("cpu"))})
        with self.assertRaisesRegex(ResultError, r"a\.json: incomplete: count-bench stopped on an error"):
            selection.load(data)

    def test_without_count_lines_the_report_says_so(self):
        from plots.tests.test_make_all import build
        data = self.data([], {})
        out = pathlib.Path(self.tmp.name) / "paper"
        build(data, out)
        report = (out / "reports" / "performance.md").read_text()
        self.assertIn("The count benchmark: not measured yet: paper-runs.csv names no run with count-bench results",
                      report.replace("data/paper-runs.csv", "paper-runs.csv"))

    def test_own_appendix_tells_benches_from_runs(self):
        root = pathlib.Path(self.tmp.name)
        run, old, new, older = root / "r.json", root / "b1.json", root / "b2.json", root / "b0.json"
        synthetic.write_json(run, fixtures.cpu_doc_or_skip())
        doc = committed_bench("cpu")
        synthetic.write_json(old, at_pct(doc, 40.0))
        synthetic.write_json(new, dict(at_pct(doc, 45.0), started="2099-01-01T00:00:00Z"))
        synthetic.write_json(older, {k: v for k, v in doc.items() if k != "floor"})
        stopped = root / "b3.json"
        synthetic.write_json(stopped, incomplete(doc))
        with contextlib.redirect_stderr(io.StringIO()):
            runs, benches, left_out = own_appendix.load_files([run, old, new, older, stopped])
        self.assertEqual([r.path for r in runs], [str(run)])
        self.assertEqual([b.path for b in benches], [str(old), str(new)])
        self.assertIn("written by an older count-bench", left_out[str(older)])
        self.assertIn("incomplete: count-bench stopped on an error", left_out[str(stopped)])
        chosen = selection.by_content(runs, benches=benches).benches
        self.assertEqual([b.path for b in chosen], [str(new)])   # the newest for its machine, impl, file and plan


if __name__ == "__main__":
    unittest.main()
