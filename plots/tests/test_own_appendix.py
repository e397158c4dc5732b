"""python3 -m plots.own_appendix (./dev appendix): a user's run becomes their own appendix, their GPU beside
the T4 and the study's H200, written outside paper/, which it never touches; an earlier appendix is replaced only
by a complete one."""
import contextlib
import hashlib
import io
import os
import pathlib
import shutil
import tempfile
import unittest

from unittest import mock

from plots import figures, make_all, output, own_appendix
from plots.results import path_text
from plots.tests import fixtures, synthetic

PAPER = fixtures.REPO / "paper"


def tree_hash(root):
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


def run_main(*args):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            status = own_appendix.main([str(a) for a in args])
        except SystemExit as e:
            status = e.code
    return status, err.getvalue()


class OwnAppendix(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cpu = fixtures.cpu_doc_or_skip()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = pathlib.Path(cls.tmp.name)
        mine = synthetic.gpu_run(fixtures.cpu_only_doc(cpu))
        runs = cls.root / os.fsdecode(b"runs \xff")   # a folder name that is not UTF-8 (histostudy run -o takes it)
        runs.mkdir()
        cls.runs = [runs / "20990102T000000Z_mine.json", runs / "20990103T000000Z_mine.json"]
        synthetic.write_json(cls.runs[0], mine)
        synthetic.write_json(cls.runs[1], dict(mine, incomplete={"error": "stopped: disk full"}))
        before = tree_hash(PAPER) if PAPER.exists() else None
        cls.out = cls.root / "appendix"
        with output.replacing(cls.out) as earlier:
            (earlier / "figures").mkdir()
            (earlier / "figures" / "gone.png").write_text("an earlier appendix's figure, no longer made")
        cls.status, cls.err = run_main(*cls.runs, "-o", cls.out)
        cls.paper_untouched = before == (tree_hash(PAPER) if PAPER.exists() else None)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_my_gpu_beside_the_t4_and_the_studys(self):
        self.assertEqual(self.status, 0, self.err)
        table = (self.out / "tables" / "lesson.md").read_text()
        header = next(line for line in table.splitlines() if line.startswith("| input |"))
        self.assertIn(f"{synthetic.GPU['name']}, yours: global ms", header)
        self.assertIn("NVIDIA H200, the study's: global ms", header)
        self.assertIn("Tesla T4: global ms", header)
        self.assertIn("own_appendix.py", (self.out / "appendix.md").read_text().splitlines()[0])
        for name in ("lesson", "lesson-wide", "sweep"):
            self.assertTrue((self.out / "figures" / f"{name}.pdf").exists(), name)
        self.assertTrue((self.out / "appendix.tex").exists())

    def test_the_committed_paper_is_untouched(self):
        self.assertTrue(self.paper_untouched)
        status, err = run_main(self.runs[0], "-o", PAPER / "mine")
        self.assertEqual(status, 2)
        self.assertIn("is the committed paper", err)

    def test_an_incomplete_run_is_left_out_and_named(self):
        self.assertIn(f"left out {path_text(self.runs[1])}: incomplete: the run stopped on an error (stopped: disk "
                      "full)", self.err)

    def test_a_folder_name_that_is_not_utf8_is_shown_escaped(self):
        self.assertEqual(self.status, 0, self.err)
        self.assertIn("runs \\xff/20990102T000000Z_mine.json", (self.out / make_all.SOURCES).read_text())

    def test_the_earlier_appendix_is_replaced_as_a_whole(self):
        self.assertFalse((self.out / "figures" / "gone.png").exists())
        self.assertEqual(sorted(p.name for p in self.root.iterdir()), ["appendix", self.runs[0].parent.name])

    def test_a_folder_holding_a_file_of_yours_is_refused_and_the_file_kept(self):
        mine = self.root / "mine"
        (mine / "figures").mkdir(parents=True)
        (mine / "figures" / "mine.png").write_text("my own figure")
        self.addCleanup(shutil.rmtree, mine)
        with mock.patch.object(own_appendix, "load_files", side_effect=AssertionError("read before -o was checked")):
            status, err = run_main(self.runs[0], "-o", mine)
        self.assertEqual(status, 2)
        self.assertEqual(err, f"own_appendix: {mine}: holds figures/mine.png and no SHA256SUMS of an earlier output; "
                              "the output replaces the folder as a whole, so that would be lost: name a new or empty "
                              "folder\n")
        self.assertEqual((mine / "figures" / "mine.png").read_text(), "my own figure")
        self.assertEqual(sorted(p.name for p in self.root.iterdir()), ["appendix", "mine", self.runs[0].parent.name])

    def test_an_interrupted_appendix_leaves_the_earlier_one_as_it_was(self):
        before = tree_hash(self.out)
        with mock.patch.object(figures, "both_widths", side_effect=KeyboardInterrupt):  # once the text is written
            status, err = run_main(*self.runs, "-o", self.out)
        self.assertEqual((status, err), (130, "own_appendix: interrupted: nothing written\n"))
        self.assertEqual(tree_hash(self.out), before)
        self.assertEqual(sorted(p.name for p in self.root.iterdir()), ["appendix", self.runs[0].parent.name])

    def test_an_unusable_output_folder_is_one_line_and_exit_status_2_before_any_reading(self):
        afile = self.root / "afile"
        afile.write_text("mine\n")
        self.addCleanup(afile.unlink)
        with mock.patch.object(own_appendix, "load_files", side_effect=AssertionError("read before -o was checked")):
            status, err = run_main(self.runs[0], "-o", afile)
        self.assertEqual((status, err), (2, f"own_appendix: {afile}: exists and is not a folder\n"))

    def test_an_empty_place_says_where_the_studys_own_result_is(self):
        text = (self.out / "appendix.md").read_text()
        self.assertIn("None of your runs holds three or more NVRTC releases' modules", text)  # the release history
        self.assertNotIn("in the paper yet", text)   # the paper has one: never say it has none

    def test_a_cpu_only_run_is_told_the_lesson_table_is_the_studys(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        cpu_run, out = pathlib.Path(tmp.name) / "20990104T000000Z_cpu.json", pathlib.Path(tmp.name) / "appendix"
        synthetic.write_json(cpu_run, fixtures.cpu_doc_or_skip())
        status, err = run_main(cpu_run, "-o", out)
        self.assertEqual(status, 0, err)
        lesson = (out / "appendix.md").read_text().split("## 1.")[1].split("## 2.")[0]
        self.assertIn("None of your runs holds GPU lesson rows. The table and figure below are the study's", lesson)
        self.assertIn("(reports/performance.md)", lesson)
        self.assertIn("NVIDIA H200, the study's", lesson)
        mine = (self.out / "appendix.md").read_text().split("## 1.")[1].split("## 2.")[0]
        self.assertNotIn("None of your runs holds GPU lesson rows", mine)   # a run with a GPU: its own rows

    def test_the_help_names_both_default_folders(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as caught, \
                mock.patch.dict(os.environ, {"COLUMNS": "200"}):   # argparse wraps at the terminal's width
            own_appendix.main(["--help"])
        self.assertEqual(caught.exception.code, 0)
        self.assertIn("(default: every runs/*.json and runs/count-bench/*.json)", out.getvalue())


if __name__ == "__main__":
    unittest.main()
