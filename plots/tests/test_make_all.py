"""make_all: the committed data regenerates the committed paper/, the paper keeps its promises (length, links,
words, figure widths), and every report copes with GPU data (a synthetic run, in temp only) and with none."""
import contextlib
import dataclasses
import io
import pathlib
import re
import struct
import tempfile
import unittest

from unittest import mock

from plots import (appendix, claims, counters, document, figures, history, hotcold, lesson, make_all, models, output,
                   perf, parts, placement, sizes, sweep, versions)
from plots.results import registry, roles
from plots.tests import fixtures, synthetic

PAPER = fixtures.REPO / "paper"
TEXT = ("*.md", "*.tex")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
INTERNAL = re.compile(r"\b(issues?|work items?)\s+#?\d+", re.IGNORECASE)


class TerminalErr(io.StringIO):
    """stderr as a terminal has it."""

    def isatty(self):
        return True


def run_main(*args, err=None):
    """(exit status, stderr) of make_all.main(args)."""
    err = err or io.StringIO()
    with contextlib.redirect_stderr(err):
        status = make_all.main([str(a) for a in args])
    return status, err.getvalue()


def build(data, out, err=None):
    """make_all into `out`; its stderr."""
    status, said = run_main("--data", data, "--out", out, err=err)
    if status:
        raise AssertionError(f"make_all exited {status}: {said}")
    return said


def tree(root):
    """{path under root: bytes} of every file under root."""
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def files(root, patterns):
    return sorted(p.relative_to(root) for pattern in patterns for p in root.rglob(pattern))


def png_inches(path):
    """(width, height) in inches at the figures' 300 dpi, from the PNG header."""
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width / figures.DPI, height / figures.DPI


# The models the pipeline computes once per paper (plots/models.py): counted while the paper is made.
COUNTED = ((claims, "audit"), (placement, "model"), (hotcold, "model"), (history, "model"), (perf, "PerfView"),
           (perf, "CpuView"), (perf, "small_races"), (versions, "pair_model"), (lesson, "views"),
           (sweep, "our_series"), (sizes, "model"))
# What builds the counters' model (plots/counters.py): none of it may run while the paper is rendered.
COUNTERS_MODEL = ("checks", "checked_cases", "compared", "failures", "kernel_checks", "c1", "conflict_cases",
                  "conflict", "bank_conflicts", "placement", "per_pass", "pass_series", "each_pass_reads_the_input",
                  "toolchain_model", "gpu_model", "study_model")


class Regenerates(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not (PAPER / "appendix.md").exists():
            raise unittest.SkipTest("no committed paper/")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = pathlib.Path(cls.tmp.name) / "paper"
        with contextlib.ExitStack() as stack:
            cls.calls = {name: stack.enter_context(mock.patch.object(module, name, wraps=getattr(module, name)))
                         for module, name in COUNTED}
            watched = tuple(dataclasses.replace(p, model=mock.Mock(wraps=p.model)) if p.model else p
                            for p in parts.PARTS)
            cls.part_models = {p.name: p.model for p in watched if p.model}
            stack.enter_context(mock.patch.object(parts, "PARTS", watched))
            written = stack.enter_context(mock.patch.object(make_all, "write_models", wraps=make_all.write_models))
            cls.err = build(fixtures.DATA, cls.out)
        cls.models = written.call_args.args[0]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_where_stderr_is_no_terminal_only_the_closing_line(self):
        self.assertRegex(self.err, r"^make_all: wrote \d+ files under \S+\n$")
        self.assertEqual([p.name for p in self.out.parent.iterdir()], ["paper"])   # no temporary folder left

    def test_committed_paper_is_what_the_committed_data_makes(self):
        out = self.out
        self.assertEqual(files(out, TEXT), files(PAPER, TEXT), "paper/ holds other files than ./dev paper makes")
        for name in files(PAPER, TEXT):
            self.assertEqual((out / name).read_bytes(), (PAPER / name).read_bytes(),
                             f"paper/{name} differs from what data/ makes: run ./dev paper")
        self.assertEqual(files(out / "figures", ("*",)), files(PAPER / "figures", ("*",)))

    def test_each_model_is_computed_once(self):
        for name, calls in self.calls.items():
            made = [repr(call) for call in calls.call_args_list]
            self.assertTrue(made, f"{name} was not computed")
            self.assertEqual(len(made), len(set(made)), f"{name} computed twice from the same arguments")
        self.assertEqual(self.calls["audit"].call_count, 1)   # the claims audit: the appendix and two reports read it

    def test_each_part_is_made_once(self):
        self.assertTrue(self.part_models, "no part declares a model")
        for name, made in self.part_models.items():
            self.assertEqual(made.call_count, 1, f"the {name} part's model")
        appendix_text = (self.out / "appendix.md").read_text()
        for part in parts.PARTS:
            if part.what:   # a listed report: written, and linked from the appendix
                self.assertTrue((self.out / "reports" / f"{part.name}.md").is_file(), part.name)
                self.assertIn(f"(reports/{part.name}.md)", appendix_text)
        self.assertEqual(len({p.name for p in parts.PARTS}), len(parts.PARTS), "two parts of one name")

    def test_the_counters_renderers_compute_nothing(self):
        """The Models made, every builder of the counters' model made to fail: the counters' section and report
        render all the same, as the paper has them."""
        with contextlib.ExitStack() as stack:
            for name in COUNTERS_MODEL:
                stack.enter_context(mock.patch.object(counters, name, side_effect=AssertionError(
                    f"counters.{name} called while rendering")))
            section = counters.counters_section(self.models)
            report = counters.counters_report(self.models)
        self.assertTrue(section and report, "the committed data holds no profile")
        self.assertIn(document.markdown(section), (self.out / "appendix.md").read_text())
        self.assertTrue((self.out / "reports" / "counters.md").read_text().endswith(
            document.markdown(report, root="../")))


class Promises(unittest.TestCase):
    """What the committed paper promises a course author."""

    def setUp(self):
        if not (PAPER / "appendix.md").exists():
            self.skipTest("no committed paper/")

    def test_every_generated_text_file_is_stamped(self):
        for name in files(PAPER, TEXT):
            first = (PAPER / name).read_text().splitlines()[0]
            self.assertIn("generated by ./dev paper (plots/make_all.py) from ", first, name)
            self.assertIn("do not edit", first, name)
            self.assertLess(len(first), 160, f"{name}: a stamp, not a list of files")

    def test_its_sources_list_every_data_file_and_nothing_else(self):
        lines = (PAPER / make_all.SOURCES).read_text().splitlines()
        self.assertTrue(lines[0].startswith("# generated by ./dev paper"), lines[0])
        listed = lines[1:]
        for read in ("data/paper-runs.csv", "data/runs/superseded.csv", "data/registry.json"):
            self.assertIn(read, listed)
        for name in listed:
            self.assertTrue((fixtures.REPO / name).is_file(), name)
        manifest = (fixtures.REPO / "data" / "paper-runs.csv").read_text().splitlines()[1:]
        for run in {line.split(",")[0] for line in manifest}:
            self.assertIn(f"data/runs/{run}", listed)

    def test_its_sha256sums_vouches_for_every_file_so_that_dev_paper_may_replace_it(self):
        self.assertIsNone(output.foreign_entry(PAPER), "paper/ was edited by hand or merged: rm -r paper; ./dev paper")

    def test_the_appendix_is_at_most_400_lines(self):
        self.assertLessEqual(len((PAPER / "appendix.md").read_text().splitlines()), appendix.MAX_LINES)

    def test_the_appendix_is_at_most_3000_words(self):
        self.assertLessEqual(len((PAPER / "appendix.md").read_text().split()), appendix.MAX_WORDS)

    def test_every_link_leads_to_a_file(self):
        for name in files(PAPER, ("*.md",)):
            for target in LINK.findall((PAPER / name).read_text()):
                if "://" not in target:
                    self.assertTrue(((PAPER / name).parent / target).exists(), f"paper/{name} links {target}")

    def test_no_word_of_how_the_project_is_organised(self):
        for name in files(PAPER, TEXT + ("*.svg",)):
            found = INTERNAL.search((PAPER / name).read_text())
            self.assertIsNone(found, f"paper/{name} says {found and found.group(0)!r}")

    def test_figures_fit_their_width_and_name_no_run_file(self):
        runs = [p.stem for p in fixtures.RUNS.glob("*.json")]
        for png in (PAPER / "figures").glob("*.png"):
            width, _ = png_inches(png)
            limit = figures.FULL if png.stem.endswith("-wide") else figures.COLUMN
            self.assertLessEqual(width, limit + 0.01, f"{png.name} is {width:.2f} in wide")
            svg = png.with_suffix(".svg").read_text()
            self.assertIn("<text", svg, f"{png.name}: the SVG keeps its text as text")
            self.assertFalse([r for r in runs if r[:16] in svg], f"{png.name} names a run file")

    def test_one_colour_per_implementation(self):
        self.assertEqual(figures.color("per_warp copies=8"), figures.color("per_warp"))
        colors = figures.impl_colors()
        self.assertEqual(set(colors), {e["name"] for e in registry() if e["backend"] == "cuda"})
        self.assertEqual(len(set(colors.values())), len(colors))
        self.assertNotIn(figures.OTHER_COLOR, colors.values())


class WithGpuData(unittest.TestCase):
    """A synthetic three-toolchain controlled GPU run (tests only): the GPU paths run and decide."""

    @classmethod
    def setUpClass(cls):
        cpu = fixtures.cpu_doc_or_skip()
        cls.tmp = tempfile.TemporaryDirectory()
        runs = {"20990101T000000Z_cpu.json": cpu,
                "20990102T000000Z_synthetic.json": synthetic.gpu_run(fixtures.cpu_only_doc(cpu)),
                "20990103T000000Z_placement.json": synthetic.placement_run(fixtures.cpu_only_doc(cpu))}
        data = fixtures.data_dir(cls.tmp.name, runs, codegen=synthetic.codegen_doc())
        cls.out = pathlib.Path(cls.tmp.name) / "paper"
        build(data, cls.out)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def read(self, name):
        return (self.out / name).read_text()

    def test_versions_find_the_planted_reader_slowdown_and_its_codegen(self):
        text = self.read("reports/versions.md")
        line = next(l for l in text.splitlines() if l.startswith("| sum_bytes | uniform |"))
        self.assertIn("| slower |", line)
        self.assertIn("sass_instructions 120->140", line)
        self.assertIn("Codegen audit: nvrtc 12.6.85 vs nvrtc 13.0.88", self.read("reports/codegen.md"))
        self.assertIn("| sum_bytes | 0.100 | 0.150 | 1.5", self.read("tables/versions.md"))

    def test_claims_are_decided_per_environment(self):
        label = f"{synthetic.GPU['name']} / nvcc 13.0.88 / driver {synthetic.GPU['driver_version']}"
        summary = next(l for l in self.read("reports/claims.md").splitlines() if l.startswith(f"| {label} |"))
        cells = [c.strip() for c in summary.strip("|").split("|")][1:]
        self.assertEqual(cells[0], "holds")       # C1: declared atomics
        self.assertEqual(cells[1], "NO")          # C2: far above the T4's speedups
        self.assertEqual(cells[7], "holds")       # C8: blocks rows present
        self.assertEqual(cells[11], "NO")         # C12: several 48 KiB blocks fit on the synthetic SM
        self.assertNotIn("20990102T000000Z", summary)   # environments, not run files
        per_gpu = self.read("tables/claims.md")     # the appendix: a column per GPU, over its environments
        self.assertIn(f"| {synthetic.GPU['name']} |", per_gpu.splitlines()[4])
        self.assertTrue(next(l for l in per_gpu.splitlines() if l.startswith("| C8: ")).endswith("| holds |"))

    def test_the_appendix_shows_the_gpu(self):
        text = self.read("appendix.md")
        self.assertIn(f"{synthetic.GPU['name']}: global ms", text)
        self.assertIn(f"per_block, {synthetic.GPU['name']}", self.read("tables/sweep.md"))
        self.assertIn("than at 512", text)                         # the planted best offset
        self.assertIn("Release history", text)

    def test_figures_at_both_widths_in_three_formats(self):
        for name in ("lesson", "sweep", "versions", "placement"):
            for suffix in ("", "-wide"):
                for ext in ("png", "svg", "pdf"):
                    path = self.out / "figures" / f"{name}{suffix}.{ext}"
                    self.assertGreater(path.stat().st_size, 1000, path.name)


class RolesInRows(unittest.TestCase):
    """Runs whose rows record their roles (as the C++ writes them now) read as the same runs without them (roles
    from data/registry.json): every report the same, word for word."""

    def test_the_same_reports_with_and_without_roles_in_the_rows(self):
        cpu = fixtures.cpu_doc_or_skip()
        runs = {"20990101T000000Z_cpu.json": cpu,
                "20990102T000000Z_synthetic.json": synthetic.gpu_run(fixtures.cpu_only_doc(cpu)),
                "20990103T000000Z_placement.json": synthetic.placement_run(fixtures.cpu_only_doc(cpu))}
        with_roles = {name: dict(doc, rows=[dict(r, roles=list(roles(r))) for r in doc["rows"]])
                      for name, doc in runs.items()}
        texts = []
        with tempfile.TemporaryDirectory() as tmp:
            for i, docs in enumerate((runs, with_roles)):
                m = models.build(make_all.gather(fixtures.data_dir(pathlib.Path(tmp) / str(i), docs)))
                texts.append([document.markdown(appendix.blocks(m, "made", "files"))]
                             + [document.markdown(blocks) for blocks in parts.reports(m).values()])
        self.assertTrue(all("roles" in r for doc in with_roles.values() for r in doc["rows"]))
        self.assertEqual(texts[0], texts[1])


class WithoutGpuData(unittest.TestCase):
    def test_cpu_only_says_not_measured(self):
        cpu = fixtures.cpu_doc_or_skip()
        with tempfile.TemporaryDirectory() as tmp:
            data = fixtures.data_dir(tmp, {"20990101T000000Z_cpu.json": cpu})
            out = pathlib.Path(tmp) / "paper"
            build(data, out)
            text = (out / "appendix.md").read_text()
            self.assertIn("The lesson's table: not measured yet: data/paper-runs.csv names no run with GPU lesson "
                          "rows.", text)
            self.assertIn("not measured yet", (out / "reports" / "placement.md").read_text())
            self.assertIn("no codegen audit recorded", (out / "reports" / "codegen.md").read_text())
            self.assertIn("| openmp_fast (cpu) |", (out / "reports" / "sweep.md").read_text())
            self.assertFalse((out / "figures" / "lesson.png").exists())

    def test_no_runs_at_all(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "paper"
            said = build(fixtures.data_dir(tmp, {}), out, err=TerminalErr())
            self.assertIn("not measured yet", (out / "appendix.md").read_text())
        lines = said.splitlines()    # on a terminal, what is being made, then the closing line
        self.assertEqual(lines[:3], [f"reading {tmp}/data...", "computing the models...",
                                     "writing the appendix, its tables and the reports..."])
        self.assertTrue(lines[-1].startswith("make_all: wrote "), lines)


class Output(unittest.TestCase):
    """The output replaces an earlier one once complete, never before (plots/tests/test_output.py: which folders
    it may replace); a folder it cannot replace is refused before any work, in one line."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.out = self.root / "paper"
        with output.replacing(self.out) as new:
            (new / "tables").mkdir()
            (new / "appendix.md").write_text("earlier\n")
            (new / "tables" / "gone.md").write_text("a table no longer made\n")
        self.earlier = tree(self.out)

    def tearDown(self):
        self.tmp.cleanup()

    def assert_as_it_was(self):
        self.assertEqual(tree(self.out), self.earlier)
        self.assertEqual(sorted(p.name for p in self.root.iterdir() if p.name != "afile"), ["paper"])

    def test_an_unusable_out_is_one_line_and_exit_status_2(self):
        afile = self.root / "afile"
        afile.write_text("mine\n")
        (self.out / "notes.md").write_text("mine\n")
        self.earlier = tree(self.out)
        with mock.patch.object(make_all, "gather", side_effect=AssertionError("read before --out was checked")):
            self.assertEqual(run_main("--out", afile), (2, f"make_all: {afile}: exists and is not a folder\n"))
            status, err = run_main("--out", self.out)
        self.assertEqual(status, 2)
        self.assertTrue(err.startswith(f"make_all: {self.out}: holds notes.md, which its SHA256SUMS does not list"),
                        err)
        self.assert_as_it_was()

    def test_the_data_folder_is_named_as_given(self):
        for data in (self.root / "missing", self.root, f"{self.root}/"):
            status, err = run_main("--data", data, "--out", self.root / "new")
            self.assertEqual(status, 1)
            self.assertTrue(err.startswith(f"make_all: {str(data).rstrip('/')}/paper-runs.csv: cannot read"), err)
            self.assert_as_it_was()

    def test_ctrl_c_writes_nothing_says_so_and_exits_130(self):
        with mock.patch.object(make_all, "gather", side_effect=KeyboardInterrupt):
            self.assertEqual(run_main("--out", self.out), (130, "make_all: interrupted: nothing written\n"))
        self.assert_as_it_was()


if __name__ == "__main__":
    unittest.main()
