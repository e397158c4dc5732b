"""plots/output.py and plots/cli.py: a folder is replaced only where its SHA256SUMS vouches for all of it, never
losing a user's file; a report file is never replaced without --force; a stop (Ctrl-C, SIGTERM), a full disk, a
mount point or a closed pipe ends in one line (or quietly), nothing left beside the output."""
import contextlib
import errno
import io
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from unittest import mock

from plots import cli, fleet, output
from plots.tests import fixtures

SMALL_RUN = min(fixtures.RUNS.glob("*.json"), key=lambda p: p.stat().st_size)


def tree(root):
    """{path under root: bytes} of every file under root."""
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def tool(*args, stdout=subprocess.PIPE, cwd=None):
    """python3 -m plots.cli ARGS, as ./dev runs it."""
    env = dict(os.environ, PYTHONPATH=str(fixtures.REPO))
    return subprocess.run([sys.executable, "-m", "plots.cli", *map(str, args)], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=600, env=env, cwd=cwd or fixtures.REPO)


class Folder(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = pathlib.Path(self.tmp.name)
        self.out = self.root / "out"
        with output.replacing(self.out) as new:   # an earlier output
            (new / "figures").mkdir()
            (new / "figures" / "lesson.png").write_bytes(b"\x89PNG earlier")
            (new / "appendix.md").write_text("earlier\n")
        self.earlier = tree(self.out)

    def assert_as_it_was(self, earlier=None):
        self.assertEqual(tree(self.out), earlier or self.earlier)
        self.assertEqual(sorted(p.name for p in self.root.iterdir() if p.name != "afile"), ["out"])

    def refused(self, out=None):
        """The OutputError replacing(out) raises before its block runs."""
        with self.assertRaises(output.OutputError) as caught, output.replacing(out or self.out):
            self.fail("the block ran")
        self.assertEqual(len(str(caught.exception).splitlines()), 1, caught.exception)
        return str(caught.exception)

    def test_the_manifest_lists_every_file_written_as_sha256sum_checks_it(self):
        self.assertEqual(sorted(str(p) for p in self.earlier), ["SHA256SUMS", "appendix.md", "figures/lesson.png"])
        if shutil.which("sha256sum"):
            checked = subprocess.run(["sha256sum", "--strict", "-c", "SHA256SUMS"], cwd=self.out, capture_output=True,
                                     text=True)
            self.assertEqual(checked.returncode, 0, checked.stdout + checked.stderr)

    def test_an_earlier_output_is_replaced_as_a_whole(self):
        with output.replacing(self.out) as new:
            (new / "appendix.md").write_text("new\n")
            self.assertEqual(tree(self.out), self.earlier)
        self.assertEqual(sorted(str(p) for p in tree(self.out)), ["SHA256SUMS", "appendix.md"])
        self.assertEqual((self.out / "appendix.md").read_text(), "new\n")
        self.assert_as_it_was(tree(self.out))

    def test_a_folder_holding_anything_its_manifest_does_not_vouch_for_is_refused(self):
        cases = {
            "a file of yours": (lambda: (self.out / "figures" / "mine.png").write_text("mine"),
                                "holds figures/mine.png, which its SHA256SUMS does not list"),
            "a file changed": (lambda: (self.out / "appendix.md").write_text("my edit\n"),
                               "holds appendix.md, changed since it was written (its SHA256SUMS says otherwise)"),
            "a file gone": (lambda: (self.out / "appendix.md").unlink(),
                            "lacks appendix.md, which its SHA256SUMS lists"),
            "a folder of yours": (lambda: (self.out / "notes").mkdir(),
                                  "holds the folder notes, which its SHA256SUMS does not list"),
            "a link": (lambda: (self.out / "figures" / "lesson.png").unlink() or
                       (self.out / "figures" / "lesson.png").symlink_to(self.root / "afile"),
                       "holds figures/lesson.png, which its SHA256SUMS does not list"),
            "no manifest": (lambda: (self.out / "SHA256SUMS").unlink(),
                            "holds appendix.md and no SHA256SUMS of an earlier output"),
            "a manifest of another's": (lambda: (self.out / "SHA256SUMS").write_text("not sha256sum's\n"),
                                        "holds SHA256SUMS and no SHA256SUMS of an earlier output"),
            "a name of two lines": (lambda: (self.out / "a\nb").write_text("mine"),
                                    "holds 'a\\nb', which its SHA256SUMS does not list"),
        }
        for case, (change, problem) in cases.items():
            with self.subTest(case):
                change()
                changed = tree(self.out)
                self.assertIn(f"{self.out}: {problem}; the output replaces the folder as a whole", self.refused())
                self.assert_as_it_was(changed)
                shutil.rmtree(self.out)
                self.setUp_earlier()

    def setUp_earlier(self):
        with output.replacing(self.out) as new:
            (new / "figures").mkdir()
            (new / "figures" / "lesson.png").write_bytes(b"\x89PNG earlier")
            (new / "appendix.md").write_text("earlier\n")

    def test_a_file_put_there_while_the_output_is_made_is_not_lost(self):
        with self.assertRaises(output.OutputError) as caught, output.replacing(self.out) as new:
            (new / "appendix.md").write_text("new\n")
            (self.out / "mine.md").write_text("mine\n")
        self.assertIn("holds mine.md, which its SHA256SUMS does not list", str(caught.exception))
        self.assert_as_it_was({**self.earlier, pathlib.Path("mine.md"): b"mine\n"})

    def test_an_empty_folder_or_a_new_one_is_written(self):
        for out in (self.root / "empty", self.root / "new" / "deeper"):
            out.parent.mkdir(exist_ok=True)
            (self.root / "empty").mkdir(exist_ok=True)
            with output.replacing(out) as new:
                (new / "a.md").write_text("a\n")
            self.assertEqual(sorted(p.name for p in out.iterdir()), ["SHA256SUMS", "a.md"])

    def test_what_is_not_a_folder_or_cannot_be_written_is_refused(self):
        afile = self.root / "afile"
        afile.write_text("mine\n")
        self.assertEqual(self.refused(afile), f"{afile}: exists and is not a folder")
        self.assertTrue(self.refused(afile / "out").startswith(f"{afile / 'out'}: cannot write there"))
        self.assertEqual(afile.read_text(), "mine\n")
        self.assert_as_it_was()

    def test_a_failed_or_interrupted_output_leaves_the_folder_as_it_was(self):
        for stop in (KeyboardInterrupt(), output.Stopped(signal.SIGTERM), OSError(errno.ENOSPC, "No space left")):
            with self.assertRaises(type(stop)), output.replacing(self.out) as new:
                (new / "appendix.md").write_text("half\n")
                raise stop
            self.assert_as_it_was()

    def test_a_folder_that_cannot_be_renamed_is_one_line_and_left_as_it_was(self):
        real = os.replace
        for failing, error in ((1, errno.EBUSY), (2, errno.ENOSPC)):   # an empty mount point moving it aside; a full
            calls = []                                                  # disk moving the new one in

            def replace(src, dst):
                calls.append(src)
                if len(calls) == failing:
                    raise OSError(error, os.strerror(error))
                return real(src, dst)
            with self.subTest(failing=failing), mock.patch.object(output.os, "replace", side_effect=replace):
                with self.assertRaises(output.OutputError) as caught, output.replacing(self.out) as new:
                    (new / "appendix.md").write_text("new\n")
                self.assertEqual(str(caught.exception), f"{self.out}: cannot be replaced ({os.strerror(error)})")
            self.assert_as_it_was()

    def test_a_link_to_the_folder_stays_a_link(self):
        link = self.root / "afile"
        link.symlink_to(self.out)
        with output.replacing(link) as new:
            (new / "appendix.md").write_text("new\n")
        self.assertTrue(link.is_symlink())
        self.assertEqual((self.out / "appendix.md").read_text(), "new\n")

    def test_render_says_each_failure_in_one_line_with_its_status(self):
        def stopped(_folder):
            raise output.Stopped(signal.SIGTERM)

        def full(folder):
            raise OSError(errno.ENOSPC, "No space left on device", str(folder / "appendix.md"))
        for make, status, said in ((stopped, 143, "interrupted: nothing written"),
                                   (full, 2, "appendix.md: No space left on device; nothing written")):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(output.render("tool", self.out, make, 1), (status, None))
            self.assertEqual(len(err.getvalue().splitlines()), 1, err.getvalue())
            self.assertIn(said, err.getvalue())
            self.assert_as_it_was()


class File(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = pathlib.Path(self.tmp.name)
        self.path = self.root / "report.md"

    def names(self):
        return sorted(p.name for p in self.root.iterdir())

    def test_a_new_file_is_written_an_existing_one_only_with_force(self):
        output.write_file(self.path, "one\n")
        with self.assertRaises(output.OutputError) as caught:
            output.write_file(self.path, "two\n")
        self.assertEqual(str(caught.exception), f"{self.path}: exists; --force replaces it")
        self.assertEqual(self.path.read_text(), "one\n")
        output.write_file(self.path, "two\n", replace=True)
        self.assertEqual(self.path.read_text(), "two\n")
        self.assertEqual(self.names(), ["report.md"])

    def test_a_failure_says_one_line_and_leaves_nothing(self):
        for error, said in ((FileExistsError(errno.EEXIST, "File exists"), "appeared while written; --force"),
                            (OSError(errno.ENOSPC, "No space left on device"), "cannot write (No space left")):
            with self.subTest(said), mock.patch.object(output.os, "link", side_effect=error):
                with self.assertRaises(output.OutputError) as caught:
                    output.write_file(self.path, "text\n")
                self.assertIn(said, str(caught.exception))
                self.assertEqual(self.names(), [])

    def test_without_hard_links_it_is_renamed_into_place(self):
        with mock.patch.object(output.os, "link", side_effect=OSError(errno.EPERM, "Operation not permitted")):
            output.write_file(self.path, "text\n")
        self.assertEqual((self.names(), self.path.read_text()), (["report.md"], "text\n"))


class Fleet(unittest.TestCase):
    """fleet -o: a new file (an existing one with --force), or fleet.md in a folder swapped in whole."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = pathlib.Path(self.tmp.name)

    def fleet(self, *args):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = cli.guarded("fleet", lambda: fleet.main([str(SMALL_RUN), *map(str, args)]))
        return status, err.getvalue()

    def test_an_existing_report_is_replaced_only_with_force(self):
        report = self.root / "report.md"
        report.write_text("mine\n")
        status, err = self.fleet("-o", report)
        self.assertEqual((status, err), (2, f"fleet: {report}: exists; --force replaces it\n"))
        self.assertEqual(report.read_text(), "mine\n")
        self.assertEqual(self.fleet("-o", report, "--force")[0], 0)
        self.assertTrue(report.read_text().startswith("# Fleet report"))
        self.assertEqual(sorted(p.name for p in self.root.iterdir()), ["report.md"])

    def test_a_folder_gets_the_report_and_its_manifest_and_keeps_a_file_of_yours(self):
        folder = self.root / "fleet"
        folder.mkdir()
        for _ in range(2):   # new, then its own earlier output
            self.assertEqual(self.fleet("-o", folder)[0], 0)
            self.assertEqual(sorted(p.name for p in folder.iterdir()), ["SHA256SUMS", "fleet.md"])
        (folder / "mine.md").write_text("mine\n")
        status, err = self.fleet("-o", folder)
        self.assertEqual(status, 2)
        self.assertIn("holds mine.md, which its SHA256SUMS does not list", err)
        self.assertEqual(sorted(p.name for p in self.root.iterdir()), ["fleet"])

    def test_sigterm_while_writing_leaves_nothing_beside(self):
        def stopped(*_args, **_kwargs):
            raise output.Stopped(signal.SIGTERM)
        for target in ("report.md", "folder/"):
            with self.subTest(target), mock.patch.object(pathlib.Path, "write_text", side_effect=stopped), \
                    mock.patch.object(output.os, "fdopen", side_effect=stopped):
                status, err = self.fleet("-o", self.root / target)
            self.assertEqual((status, err), (143, "fleet: interrupted: nothing written\n"))
            self.assertEqual(list(self.root.iterdir()), [])


class Streams(unittest.TestCase):
    """Every tool that writes to standard output: a closed pipe ends it quietly, a full one in one line."""

    def setUp(self):
        if not SMALL_RUN.exists():
            self.skipTest("no run in data/runs")
        self.commands = {"audit": ("audit", SMALL_RUN, SMALL_RUN), "fleet": ("fleet", SMALL_RUN),
                         "lesson": ("lesson", fixtures.real_run_path()), "counters": ("counters",)}

    def test_a_full_disk_is_one_line_and_exit_status_2(self):
        for name, args in self.commands.items():
            with self.subTest(name), open("/dev/full", "w") as full:
                out = tool(*args, stdout=full)
                self.assertEqual(out.returncode, 2, out.stderr)
                self.assertEqual(len(out.stderr.splitlines()), 1, out.stderr)
                self.assertIn("standard output: cannot write the report (No space left on device)", out.stderr)

    def test_a_closed_pipe_ends_quietly(self):
        for name, args in self.commands.items():
            with self.subTest(name):
                env = dict(os.environ, PYTHONPATH=str(fixtures.REPO))
                with subprocess.Popen([sys.executable, "-m", "plots.cli", *map(str, args)], cwd=fixtures.REPO,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as reader:
                    reader.stdout.close()   # | head -0: closed before the first line
                    err = reader.stderr.read()
                    status = reader.wait(timeout=600)
                self.assertIn(status, (0, 1), err)   # the tool's verdict (counters: 1 for a declaration missed)
                self.assertTrue(all(line.startswith(f"{name}: ") for line in err.splitlines()), err)


class Names(unittest.TestCase):
    def test_a_file_name_that_is_not_utf8_is_shown_escaped_by_every_tool(self):
        run = fixtures.real_run_path()
        if run is None:
            self.skipTest("no run in data/runs")
        with tempfile.TemporaryDirectory() as tmp:
            odd = os.path.join(os.fsencode(tmp), b"run \xff.json")
            shutil.copyfile(run, odd)
            for args in (("audit", odd, odd), ("lesson", odd), ("fleet", odd)):
                with self.subTest(args[0]):
                    out = tool(*(os.fsdecode(a) for a in args))
                    self.assertIn(out.returncode, (0, 1), out.stderr)
                    self.assertIn("run \\xff.json", out.stdout)


class Signals(unittest.TestCase):
    def test_sigterm_during_an_appendix_leaves_nothing_beside_its_folder(self):
        run = fixtures.real_run_path()
        if run is None:
            self.skipTest("no run in data/runs")
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PYTHONPATH=str(fixtures.REPO))
            child = subprocess.Popen([sys.executable, "-m", "plots.cli", "own_appendix", str(run), "-o", "X"],
                                     cwd=tmp, stderr=subprocess.PIPE, text=True, env=env)
            deadline = time.monotonic() + 300
            while not any(p.name.startswith(".X.") for p in pathlib.Path(tmp).iterdir()) and child.poll() is None \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            child.send_signal(signal.SIGTERM)
            _, err = child.communicate(timeout=300)
            self.assertEqual((child.returncode, err), (143, "own_appendix: interrupted: nothing written\n"))
            self.assertEqual(os.listdir(tmp), [])


if __name__ == "__main__":
    unittest.main()
