"""python3 -m plots.compare: A/A passes, a planted 1.5x slowdown of one row fails."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

from plots.tests import fixtures


def compare(*args):
    return subprocess.run([sys.executable, "-m", "plots.compare", *map(str, args)], cwd=fixtures.REPO,
                          capture_output=True, text=True, timeout=300)


class Compare(unittest.TestCase):
    def setUp(self):
        self.real = fixtures.real_run_path()
        if self.real is None:
            self.skipTest("no run file with lesson rows in data/runs")
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def planted(self, factor):
        """The real run with one row's samples scaled by `factor`; returns (path, that row)."""
        doc = json.loads(self.real.read_text())
        row = next(r for r in doc["rows"] if r["check"]["passed"] and len(r["samples_ms"]) >= 5)
        row["samples_ms"] = [x * factor for x in row["samples_ms"]]
        path = pathlib.Path(self.dir.name) / "planted.json"
        path.write_text(json.dumps(doc))
        return path, row

    def test_a_run_against_itself_reports_no_regression(self):
        out = compare(self.real, self.real)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("none: both environments are recorded identically", out.stdout)
        self.assertIn("No regression", out.stdout)

    def test_a_planted_slowdown_fails(self):
        path, row = self.planted(1.5)
        out = compare(self.real, path, "--threshold", "1.10")
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        slower = [line for line in out.stdout.splitlines() if line.endswith("SLOWER")]
        self.assertEqual(len(slower), 1, out.stdout)
        self.assertIn(row["impl"], slower[0])
        self.assertIn("1.500x", slower[0])
        self.assertIn("REGRESSION: 1 rows", out.stdout)

    def test_impl_filter_leaves_the_slow_row_out(self):
        path, row = self.planted(1.5)
        others = {r["impl"] for r in json.loads(self.real.read_text())["rows"]} - {row["impl"]}
        out = compare(self.real, path, "--impl", ",".join(sorted(others)))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_environment_changes_are_listed_by_kind(self):
        doc = json.loads(self.real.read_text())
        doc["environment"]["host"]["hostname"] = "another-host"
        doc["environment"]["executors"][0]["describe"]["compiler"] = "a newer compiler"
        path = pathlib.Path(self.dir.name) / "moved.json"
        path.write_text(json.dumps(doc))
        out = compare(self.real, path)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("  host:\n    environment.host.hostname:", out.stdout)
        self.assertIn("-> another-host", out.stdout)
        self.assertIn("a newer compiler", out.stdout)

    def test_bad_files_exit_2_naming_them(self):
        bad = pathlib.Path(self.dir.name) / "bad.json"
        bad.write_text('{"format": "nope"}')
        out = compare(self.real, bad)
        self.assertEqual(out.returncode, 2)
        self.assertIn(str(bad), out.stderr)


if __name__ == "__main__":
    unittest.main()
