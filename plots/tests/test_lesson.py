"""plots.lesson on a run of many sizes: time linear in the rows (a run of 300 sizes took 48 s)."""
import contextlib
import io
import pathlib
import tempfile
import time
import unittest

from plots import lesson
from plots.tests import fixtures, synthetic

SIZES = 300
BOUND_S = 10.0   # generous: linear takes about 2 s on a CI machine of 2 cores


class ManySizes(unittest.TestCase):
    def test_300_sizes_are_fast(self):
        cpu = fixtures.real_run_doc()
        if cpu is None:
            self.skipTest("no run file with CPU lesson rows in data/runs")
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "many.json"
            synthetic.write_json(path, synthetic.many_sizes_run(fixtures.cpu_only_doc(cpu), SIZES))
            out = io.StringIO()
            start = time.monotonic()
            with contextlib.redirect_stdout(out):
                status = lesson.main([str(path)])
            took = time.monotonic() - start
        self.assertEqual(status, 0)
        self.assertEqual(out.getvalue().count("**Lesson table: cpu,"), SIZES)
        self.assertLess(took, BOUND_S, f"{SIZES} sizes took {took:.1f} s")


if __name__ == "__main__":
    unittest.main()
