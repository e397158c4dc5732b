"""paper/appendix.tex compiles with pdflatex (Debian's texlive-latex-base and -recommended, which ./dev deps
installs): any LaTeX error fails. Skipped, saying so, only where pdflatex is not installed."""
import pathlib
import shutil
import subprocess
import tempfile
import unittest

from plots.tests import fixtures

PAPER = fixtures.REPO / "paper"
PDFLATEX = shutil.which("pdflatex")


@unittest.skipUnless(PDFLATEX, "pdflatex is not installed (./dev deps installs texlive-latex-base and "
                               "texlive-latex-recommended): paper/appendix.tex was not compiled")
class Appendix(unittest.TestCase):
    def test_the_committed_appendix_compiles(self):
        if not (PAPER / "appendix.tex").exists():
            self.skipTest("no committed paper/appendix.tex")
        with tempfile.TemporaryDirectory() as tmp:
            work = pathlib.Path(tmp) / "paper"
            shutil.copytree(PAPER, work)   # pdflatex writes beside its input: never into paper/
            done = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                                   "appendix.tex"], cwd=work, capture_output=True, text=True, timeout=300)
            log = (work / "appendix.log").read_text(errors="replace") if (work / "appendix.log").exists() else ""
            errors = [line for line in log.splitlines() if line.startswith("!")]
            self.assertEqual(done.returncode, 0, "\n".join(errors) or done.stdout[-2000:])
            self.assertEqual(errors, [])
            self.assertGreater((work / "appendix.pdf").stat().st_size, 10_000)


if __name__ == "__main__":
    unittest.main()
