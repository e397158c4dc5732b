"""python3 -m plots.own_appendix (./dev appendix): a user's run becomes their own appendix, their GPU beside
the T4 and the study's H200, written outside paper/, which it never touches."""
import contextlib
import hashlib
import io
import pathlib
import tempfile
import unittest

from plots import own_appendix
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
        root = pathlib.Path(cls.tmp.name)
        mine = synthetic.gpu_run(fixtures.cpu_only_doc(cpu))
        cls.runs = [root / "20990102T000000Z_mine.json", root / "20990103T000000Z_mine.json"]
        synthetic.write_json(cls.runs[0], mine)
        synthetic.write_json(cls.runs[1], dict(mine, incomplete={"error": "stopped: disk full"}))
        before = tree_hash(PAPER) if PAPER.exists() else None
        cls.out = root / "appendix"
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
        self.assertIn(f"left out {self.runs[1]}: incomplete: the run stopped on an error (stopped: disk full)",
                      self.err)


if __name__ == "__main__":
    unittest.main()
