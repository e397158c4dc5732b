"""The paper across GPUs: the manifest takes a run per role and GPU, and a paper built from two GPUs shows both in
every table and figure, says which findings carry over, and tells the machines apart; built from one it shows one.

The second GPU is made here from committed H200 runs (fixtures.on_other_gpu, in temp only): every time 1.25x the
H200's, except that its bins' placement and its release history are made flat, so that those findings hold on the
H200 and not on it. The runs are trimmed to what the reports need, so the test runs in seconds, not minutes."""
import pathlib
import re
import tempfile
import unittest

from plots import appendix, carryover, document, figures, make_all, models, parts, selection, stats
from plots.results import ResultError, load_run, module_entry, policy_label, roles
from plots.tests import fixtures, synthetic
from plots.tests.test_make_all import png_inches

OTHER = "TEST GPU B (rescaled H200)"
OTHER_UUID = "GPU-00000000-0000-0000-0000-0000000000b0"
OTHER_DRIVER = "999.99 (test)"
SLOWER = 1.25

# The committed H200 runs each role takes here, and what of each is kept.
RUNS = {
    "20261201T160941Z_nvidia-h200_cpu-nvcc-13.0.88-nvrtc-12.6.85-nvrtc-13.0-nvcc-13.0.88-a-a-control.json":
        (("lesson", "versions", "sweep", "cpu"), lambda r: r["input"] != "prose" and (
            r["experiment"] == "lesson" or r["toolchain"] in ("cpu", "nvcc 13.0.88"))),
    "20261201T172645Z_nvidia-h200_nvcc-13.0.88-nvrtc-12.6.85-nvrtc-13.0.88-nvcc-13.0.88-a-a-control.json":
        (("placement",), lambda r: r["toolchain"].startswith("nvcc")),
    "20261201T161032Z_nvidia-h200_nvcc-13.0.88.json": (("hot",), lambda r: {"subject", "floor"} & set(roles(r))),
    "20261201T161033Z_nvidia-h200_nvcc-13.0.88.json": (("cold",), lambda r: {"subject", "floor"} & set(roles(r))),
    "20261203T213403Z_nvidia-h200_nvcc-13.0.88.json": (("perf",), None),
    "20261203T213326Z_nvidia-h200_nvcc-13.0.88.json": (("sizes",), None),
    "20261201T092805Z_nvidia-h200_nvcc-13.0.88.json": (("blocks",), None),
    "20261201T161254Z_nvidia-h200_cpu-and-27-more-toolchains.json":
        (("history",), lambda r: r["input"] == "uniform" and {"privatized", "contender"} & set(roles(r))
         and (r["toolchain"].startswith("nvcc") or (module_entry(r["toolchain"]) or [0, ""])[1] == "SASS")),
}


def _median(row):
    return stats.median(row["samples_ms"])


def flat_scale(doc):
    """scale(row) for on_other_gpu: SLOWER everywhere, global atomics' placement series and every release-history
    series made flat (each row at its series' best offset, or at its oldest release)."""
    series = {}
    for row in doc["rows"]:
        key = _series(row)
        if key:
            series.setdefault(key, []).append(_median(row))
    reference = {key: (min(found) if key[0] == "placement" else found[0]) for key, found in series.items()}
    return lambda row: SLOWER * (reference[_series(row)] / _median(row) if _series(row) in reference else 1.0)


def _series(row):
    """The series a row belongs to where the second GPU makes it flat, else None."""
    if row["experiment"] == "placement" and "baseline" in roles(row):
        return ("placement", row["impl"], row["input"], row["toolchain"])
    entry = module_entry(row["toolchain"])
    if entry and row["impl"] != row["floor_impl"]:     # a history row, not on_other_gpu's probe of its floor
        return ("history", row["impl"], policy_label(row), row["input"], entry[1])
    return None


def docs():
    """{file name: doc} of the trimmed H200 runs and of the second GPU's, and the manifest's lines for each GPU."""
    h200, other, lines = {}, {}, {"h200": [], "other": []}
    for name, (role_list, keep) in RUNS.items():
        doc = fixtures.committed_doc(name)
        doc = fixtures.trimmed(doc, keep) if keep else doc
        twin = name.replace("nvidia-h200", "test-gpu-b").replace("20261", "20271")
        h200[name] = doc
        other[twin] = fixtures.on_other_gpu(doc, OTHER, OTHER_UUID, OTHER_DRIVER, flat_scale(doc))
        lines["h200"] += [(name, role, "test: a trimmed H200 run") for role in role_list]
        lines["other"] += [(twin, role, "test: the H200 run rescaled") for role in role_list]
    return h200, other, lines


def build_text(data):
    """(Models, {name: Markdown}) of the appendix and every report of the paper data/ makes; no figures."""
    m = models.build(make_all.gather(data))
    texts = {"appendix": document.markdown(appendix.blocks(m, "made", "files"))}
    texts.update({name: document.markdown(blocks, root="../") for name, blocks in parts.reports(m).items()})
    return m, texts


def written_text(out):
    """{name: Markdown} of the appendix and the reports written under out/."""
    return {"appendix": (out / "appendix.md").read_text(),
            **{p.stem: p.read_text() for p in (out / "reports").glob("*.md")}}


def row_of(text, first_cell):
    """The cells of the first table row whose first cell is first_cell (or starts 'first_cell: ', a claim's)."""
    line = next(l for l in text.splitlines() if l.startswith((f"| {first_cell} |", f"| {first_cell}: ")))
    return [c.strip() for c in line.strip("|").split("|")]


class Manifest(unittest.TestCase):
    """A role takes one run per GPU: two of one GPU are refused, two GPUs' are taken, in the manifest's order."""

    @classmethod
    def setUpClass(cls):
        cpu = fixtures.cpu_doc_or_skip()
        run = synthetic.gpu_run(fixtures.cpu_only_doc(cpu))
        cls.runs = {"20990101T000000Z_a.json": run, "20990102T000000Z_a.json": run,
                    "20990103T000000Z_b.json": fixtures.on_other_gpu(run, OTHER, OTHER_UUID, OTHER_DRIVER,
                                                                     lambda row: SLOWER)}

    def load(self, lines):
        with tempfile.TemporaryDirectory() as tmp:
            return selection.load(fixtures.data_dir(tmp, self.runs, manifest=lines))

    def test_two_gpus_take_a_role_each_in_the_manifests_order(self):
        sel = self.load([("20990103T000000Z_b.json", "lesson", "b"), ("20990101T000000Z_a.json", "lesson", "a"),
                         ("20990101T000000Z_a.json", "versions", "a"), ("20990102T000000Z_a.json", "versions", "a")])
        self.assertEqual(sel.gpus, [OTHER, synthetic.GPU["name"]])
        self.assertEqual([r.name for r in sel.on_gpu(OTHER).roles["lesson"]], ["20990103T000000Z_b.json"])
        self.assertEqual(len(sel.on_gpu(synthetic.GPU["name"]).versions), 2)   # versions: a run a line
        self.assertIn(f"names no run on {OTHER} with GPU sweep rows", sel.on_gpu(OTHER).missing("sweep"))

    def test_two_runs_of_one_gpu_in_one_role_are_refused(self):
        with self.assertRaises(ResultError) as caught:
            self.load([("20990101T000000Z_a.json", "lesson", "a"), ("20990102T000000Z_a.json", "lesson", "again")])
        self.assertIn("paper-runs.csv, line 3: 20990102T000000Z_a.json cannot be the lesson run: "
                      f"20990101T000000Z_a.json is its lesson run of {synthetic.GPU['name']} already", str(caught.exception))

    def test_by_content_a_users_newest_run_on_each_gpu(self):
        with tempfile.TemporaryDirectory() as tmp:
            data = fixtures.data_dir(tmp, self.runs)
            runs = [load_run(p, p.name) for p in sorted((data / "runs").glob("*.json"))]
        sel = selection.by_content(runs)
        self.assertEqual([r.name for r in sel.roles["lesson"]], ["20990102T000000Z_a.json", "20990103T000000Z_b.json"])
        self.assertEqual(sel.gpus, [synthetic.GPU["name"], OTHER])


class TwoGpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not all((fixtures.RUNS / name).exists() for name in RUNS):
            raise unittest.SkipTest("the committed H200 runs these tests start from are not in data/runs")
        cls.tmp = tempfile.TemporaryDirectory()
        h200, other, lines = docs()
        data = fixtures.data_dir(cls.tmp.name, {**h200, **other}, manifest=lines["h200"] + lines["other"])
        cls.m = models.build(make_all.gather(data))
        cls.out = pathlib.Path(cls.tmp.name) / "paper"
        make_all.write_models(cls.m, cls.out, make_all.COMMAND, [])
        cls.text = written_text(cls.out)
        path = pathlib.Path(cls.tmp.name) / "20990101T000000Z_mine.json"   # a user's run: the synthetic GPU's
        synthetic.write_json(path, synthetic.gpu_run(fixtures.cpu_only_doc(fixtures.cpu_doc_or_skip())))
        mine = load_run(path, f"runs/{path.name}")
        cls.yours = models.build(make_all.gather(data, selection.by_content([mine], "your runs"),
                                                 beside=selection.load(data, "data/")))
        cls.your_text = document.markdown(appendix.blocks(cls.yours, "made", "files"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_gpus_in_the_manifests_order(self):
        self.assertEqual([g.label for g in self.m.gpus], ["NVIDIA H200", OTHER])

    def test_the_lesson_table_shows_both_gpus_beside_the_t4(self):
        header = row_of(self.text["appendix"], "input")
        for gpu in ("NVIDIA H200", OTHER, "Tesla T4"):
            self.assertIn(f"{gpu}: global ms", header)
        cells = row_of(self.text["appendix"], "uniform")
        h200, other = float(cells[3]), float(cells[6])
        self.assertAlmostEqual(other / h200, SLOWER, delta=0.01)    # GPU B's own rows, not the H200's again

    def test_a_versions_table_and_a_sweep_column_per_gpu(self):
        versions = (self.out / "tables" / "versions.md").read_text()   # one table, a group of columns per GPU
        self.assertFalse((self.out / "tables" / "versions-2.md").exists())
        header = row_of(versions, "kernel")
        for gpu in ("NVIDIA H200", OTHER):
            self.assertIn(f"{gpu}: A/B (95% CI)", header)
        columns = row_of((self.out / "tables" / "sweep.md").read_text(), "distinct values")
        for gpu in ("NVIDIA H200", OTHER):
            self.assertIn(f"per_block, {gpu}", columns)

    def test_placement_has_a_period_on_one_gpu_and_no_effect_on_the_other(self):
        h200, other = row_of(self.text["appendix"], "NVIDIA H200"), row_of(self.text["appendix"], OTHER)
        self.assertRegex(h200[5], r"^\d[\d,]*$")                           # a period, in bytes
        self.assertEqual(other[5], "none found")
        self.assertLess(float(other[4].rstrip("x")), stats.DEFAULT_BAND)   # worst over best: flat

    def test_findings_say_what_carries_over(self):
        words = {f.name: f.words for f in self.m.findings}
        self.assertEqual(words["privatization's speedup over global atomics"],
                         "privatization's speedup over global atomics holds on both GPUs")
        self.assertEqual(words["the bins' placement effect on global atomics"],
                         f"the bins' placement effect on global atomics holds on NVIDIA H200, not on {OTHER}")
        steps = [f for f in self.m.findings if "release-history step" in f.name]
        self.assertTrue(steps, "the H200's release history shows a step")
        for f in steps:
            self.assertEqual((f.verdicts["NVIDIA H200"].status, f.verdicts[OTHER].status),
                             (carryover.HOLDS, carryover.FAILS))
        self.assertIn("Which of the study's findings hold on each GPU", self.text["appendix"])
        self.assertIn("holds on both GPUs", self.text["appendix"])

    def test_the_release_steps_replicate_on_neither_other_gpu(self):
        self.assertTrue(self.m.steps.rows)
        self.assertFalse(any(self.m.steps.replicated(moves) for *_, moves in self.m.steps.rows))
        self.assertIn(f"| {OTHER} |", self.text["history"].replace(" | on every GPU |", f" | {OTHER} |"))
        self.assertIn("within noise", self.text["appendix"])

    def test_the_claims_a_column_per_gpu(self):
        header = row_of(self.text["appendix"], "claim")
        self.assertEqual(header[-2:], ["NVIDIA H200", OTHER])
        self.assertEqual(row_of(self.text["appendix"], "C1")[-2:], ["holds", "holds"])

    def test_each_gpus_own_floor(self):
        text = self.text["performance"]
        self.assertIn("Percent of each GPU's own read floor", text)
        self.assertIn(f"### {OTHER}", text)
        self.assertIn("The size sweep on each GPU", text)

    def test_the_machines_differ_in_their_driver_and_gpu(self):
        text = self.text["environments"]
        section = text.split("## What differs between the GPUs' machines")[1].split("\n## ")[0]
        self.assertIn("`driver.driver_version`", section)
        self.assertIn(OTHER_DRIVER, section)
        self.assertIn("`gpu.name`", section)
        self.assertNotIn("uuid", section)   # a board's identity tells no machine apart

    def test_the_appendix_keeps_its_length(self):
        self.assertLessEqual(len((self.out / "appendix.md").read_text().splitlines()), appendix.MAX_LINES)

    def test_every_figure_drawn_with_both_gpus_within_its_width(self):
        for name in ("lesson", "placement", "versions", "history", "sweep", "perf", "sizes"):
            svg = (self.out / "figures" / f"{name}-wide.svg").read_text()
            self.assertIn(OTHER, svg, f"figures/{name} names the second GPU")
            for suffix, limit in (("", figures.COLUMN), ("-wide", figures.FULL)):
                width, _ = png_inches(self.out / "figures" / f"{name}{suffix}.png")
                self.assertLessEqual(width, limit + 0.01, f"figures/{name}{suffix}.png is {width:.2f} in wide")


    def test_a_users_gpu_beside_both_of_ours_and_the_t4(self):
        header = row_of(self.your_text, "input")
        for gpu in (f"{synthetic.GPU['name']}, yours", "NVIDIA H200, the study's", f"{OTHER}, the study's",
                    "Tesla T4"):
            self.assertIn(f"{gpu}: global ms", header)
        self.assertEqual([g.label for g in self.yours.own], [f"{synthetic.GPU['name']}, yours"])

    def test_a_users_findings_beside_ours_not_measured_where_absent(self):
        findings = {f.name: f for f in self.yours.findings}
        placed = findings["the bins' placement effect on global atomics"].verdicts
        self.assertEqual([v.status for v in placed.values()],
                         [carryover.NOT_MEASURED, carryover.HOLDS, carryover.FAILS])
        speedup = findings["privatization's speedup over global atomics"].verdicts
        self.assertEqual(speedup[f"{synthetic.GPU['name']}, yours"].status, carryover.HOLDS)
        self.assertIn("### Which of the study's findings hold on each GPU", self.your_text)
        self.assertIn(f"not measured on {synthetic.GPU['name']}, yours", self.your_text)


class OneGpu(unittest.TestCase):
    """The same H200 runs alone: one GPU, no comparison of GPUs."""

    @classmethod
    def setUpClass(cls):
        if not all((fixtures.RUNS / name).exists() for name in RUNS):
            raise unittest.SkipTest("the committed H200 runs these tests start from are not in data/runs")
        h200, _, lines = docs()
        with tempfile.TemporaryDirectory() as tmp:
            cls.m, cls.text = build_text(fixtures.data_dir(tmp, h200, manifest=lines["h200"]))

    def test_one_gpu_and_no_comparison(self):
        self.assertEqual([g.label for g in self.m.gpus], ["NVIDIA H200"])
        self.assertNotIn("Which of the study's findings", self.text["appendix"])
        self.assertNotIn("What differs between the GPUs' machines", self.text["environments"])
        self.assertIsNone(self.m.steps)
        self.assertEqual(row_of(self.text["appendix"], "claim")[-1], "NVIDIA H200")
        self.assertIn("NVIDIA H200: global ms", self.text["appendix"])
        self.assertFalse(re.search(r"^### NVIDIA H200", self.text["performance"], re.MULTILINE))


if __name__ == "__main__":
    unittest.main()
