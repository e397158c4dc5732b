#!/usr/bin/env python3
"""What a hostile user tries, one test per defect found: nothing
is lost or destroyed, bad input is refused before measuring with one line
and exit 2, failures exit 1 and keep what was measured.
Usage: test_hostile.py HISTOSTUDY"""
import contextlib
import ctypes
import glob
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

EXE = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else "histostudy")
QUICK = ["-i", "reference", "--input", "uniform", "-s", "611"]


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def run(*args, env=None, cwd=None, **kw):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([EXE, *args], capture_output=True, timeout=600, env=full_env, cwd=cwd, **kw)


@contextlib.contextmanager
def running(*args, **popen_kw):
    """histostudy ARGS, started; killed on leaving if it still runs, so that a failed assertion leaves no process."""
    proc = subprocess.Popen([EXE, *args], **popen_kw)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()


def built_with_cuda():
    """Whether this histostudy has the CUDA backend, by its own record (every build lists `cubins`)."""
    return json.loads(run("env").stdout)["build"]["cuda_built"]


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def refused(self, out, code, says):
        """One line on stderr naming the problem, nothing measured, exit `code`."""
        err = out.stderr.decode(errors="replace")
        self.assertEqual(out.returncode, code, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn(says, err)
        self.assertNotIn("[1/", err)

    def results(self, folder):
        return sorted(glob.glob(os.path.join(folder, "*.json")))


class GenerateOutput(Case):
    def test_an_existing_file_is_replaced_only_with_force(self):
        target = self.path("x.bin")
        with open(target, "wb") as f:
            f.write(b"precious")
        self.refused(run("generate", "one_byte", "-s", "10", "-o", target), 2, "--force")
        self.assertEqual(read_bytes(target), b"precious")
        self.assertEqual(run("generate", "one_byte", "-s", "10", "-o", target, "--force").returncode, 0)
        self.assertEqual(read_bytes(target), b"e" * 10)
        self.assertEqual(os.listdir(self.dir), ["x.bin"])

    def test_a_fifo_and_a_device_are_written_through_not_replaced(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
        out = run("generate", "one_byte", "-s", "1000", "-o", fifo)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(reader.communicate(timeout=60)[0], b"e" * 1000)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        out = run("generate", "one_byte", "-s", "1000", "-o", "/dev/null")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(stat.S_ISCHR(os.lstat("/dev/null").st_mode))

    def test_a_symlink_stays_a_symlink(self):
        target, link = self.path("target.bin"), self.path("link.bin")
        with open(target, "wb") as f:
            f.write(b"precious")
        os.symlink(target, link)
        self.refused(run("generate", "one_byte", "-s", "4", "-o", link), 2, "symlink")
        self.assertEqual(run("generate", "one_byte", "-s", "4", "-o", link, "--force").returncode, 0)
        self.assertTrue(os.path.islink(link))
        self.assertEqual(read_bytes(target), b"eeee")

    def test_a_full_disk_leaves_no_partial_file(self):
        def small_disk():  # writes past 1 MiB fail with EFBIG, as on a full disk
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        out = subprocess.run([EXE, "generate", "uniform", "-s", "8MiB", "-o", self.path("x.bin")],
                             capture_output=True, preexec_fn=small_disk, timeout=600)
        self.refused(out, 1, "write error")
        self.assertEqual(os.listdir(self.dir), [])

    def test_running_out_of_memory_is_said_in_words(self):
        """An allocation refused (here by an address-space limit) ends the run with a line saying so, not
        "std::bad_alloc"."""
        def little_memory():
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        out = subprocess.run([EXE, "run", "-i", "reference", "--input", "uniform", "-s", "4GiB", "--no-save"],
                             capture_output=True, preexec_fn=little_memory, timeout=600)
        err = out.stderr.decode(errors="replace")
        self.assertEqual(out.returncode, 1, err)
        self.assertTrue(err.splitlines()[-1].startswith("histostudy: error: out of memory: "), err)
        self.assertNotIn("bad_alloc", err)

    def test_an_interrupted_generate_leaves_no_temporary(self):
        target = self.path("big.bin")
        with running("generate", "uniform", "-s", "20GiB", "-o", target, stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE) as proc:
            deadline = time.time() + 30
            while not glob.glob(self.path(".big.bin.*.tmp")) and time.time() < deadline:
                time.sleep(0.01)
            self.assertTrue(glob.glob(self.path(".big.bin.*.tmp")), "the temporary never appeared")
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        self.assertEqual(proc.returncode, -signal.SIGTERM)
        self.assertEqual(os.listdir(self.dir), [])


class RefusedBeforeMeasuring(Case):
    def test_bad_output_folders(self):
        a_file = self.path("file")
        open(a_file, "w").close()
        self.refused(run("run", *QUICK, "-o", a_file), 2, "not a directory")
        self.refused(run("run", *QUICK, "-o", "/proc/histostudy-runs"), 2, "cannot create")
        self.refused(run("run", *QUICK, "-o", ""), 2, "empty path")

    def test_bad_sizes_and_inputs(self):
        self.refused(run("run", "-i", "reference", "-s", "611,0", "--no-save"), 2, "size 0")
        self.refused(run("run", "-i", "reference", "-s", "611,1TiB", "--no-save"), 2, "does not fit")
        empty = self.path("empty")
        open(empty, "w").close()
        self.refused(run("run", "-i", "reference", "--input", f"uniform,{empty}", "--no-save"), 1, "is empty")
        self.refused(run("run", "-i", "reference", "--input", "/dev/zero", "--no-save"), 1, "not a regular file")
        self.refused(run("run", "-i", "reference", "--input", empty, "-s", "611,64KiB", "--no-save"), 2,
                     "does not apply to file inputs")
        self.refused(run("run", "-i", "reference", "--input", "/proc/version", "--no-save"), 1,
                     "a /proc or /sys file says size 0 whatever it holds")

    def test_a_size_written_with_digit_grouping_commas_is_refused_not_read_as_several(self):
        """-s 67,109,475, as --help wrote the default, measured 67, 109 and 475 bytes; -s 65,536 65 and 536."""
        self.refused(run("run", "-i", "reference", "-s", "67,109,475", "--no-save"), 2,
                     "--size 67,109,475 could be one number with digit-grouping commas or a list: write -s 67109475 "
                     "for one size, or -s 67 -s 109 -s 475 for several")
        for ambiguous in ("65,536", "611,256", "1,024"):
            self.refused(run("run", "-i", "reference", "-s", ambiguous, "--no-save"), 2,
                         f"write -s {ambiguous.replace(',', '')} for one size")
        # 9,000 groups (about 36 KB): a recursive regex overflowed the stack here (SIGSEGV, exit 139)
        self.refused(run("run", "-i", "reference", "-s", "1" + ",000" * 9000, "--no-save"), 2,
                     "could be one number with digit-grouping commas")
        for not_grouped in ("1,0000", "1234,567", ",123", "1,23"):
            self.assertNotIn(b"digit-grouping", run("run", "-i", "reference", "-s", not_grouped, "--no-save").stderr)
        for sizes in (["-s", "611", "-s", "256"], ["-s", "611,256B"]):
            listed = run("run", "-i", "reference", "--input", "uniform", *sizes, "--no-save")
            self.assertEqual(listed.returncode, 0, listed.stderr)
            self.assertIn(b"at 256 B 611 B", listed.stderr)

    def test_a_fifo_input_is_refused_without_waiting_for_a_writer(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)  # no writer ever comes: opened to be read, it would wait forever
        out = subprocess.run([EXE, "run", "-i", "reference", "--input", fifo, "--no-save"], capture_output=True,
                             timeout=60)
        self.refused(out, 1, "not a regular file")  # as /dev/zero is

    def test_empty_names_are_usage_errors(self):
        """An empty name was dropped: -e '' ran the whole default study."""
        for option in ("-e", "-i", "--input", "-s", "--toolchain", "--bins-offset"):
            for value in ("", ",", "611,", ",,611", "611,,611"):
                with self.subTest(option=option, value=value):
                    self.refused(run("run", option, value, "--no-save"), 2, "names nothing")
        for option in ("--control", "--run-id"):
            self.refused(run("run", option, "", "--no-save"), 2, "an empty value names nothing")
        for option, value in (("--arch", "90,,75"), ("--toolchain", ""), ("--toolchain", "nvrtc,")):
            with self.subTest(option=option, value=value):
                self.refused(run("cubins", option, value, "-o", self.path("cubins")), 2, "names nothing")

    def test_grid_block_and_the_gpu_timing_options_are_the_gpu_implementations_alone(self):
        """With no GPU implementation to launch they are refused before anything is made (never accepted and
        ignored); beside GPU ones, the CPU ones run without them."""
        new = self.path("new")
        self.refused(run("run", "-i", "reference", "-s", "611", "--grid", "5", "-o", new), 2,
                     "--grid applies to GPU implementations, and this run has none")
        self.refused(run("run", "-i", "openmp_fast", "-s", "611", "--block", "64", "-o", new), 2, "--block applies")
        for option, value in (("--warmups", "7"), ("--reps", "3"), ("--max-reps", "30"), ("--lesson-reps", "3"),
                              ("--noise", "1"), ("--max-time", "2"), ("--cache", "hot"), ("--throttle", "0.9"),
                              ("--bins-offset", "128"), ("--control", "none")):
            with self.subTest(option=option):
                self.refused(run("run", "-i", "reference", "-s", "611", option, value, "-o", new), 2,
                             f"{option} applies to GPU implementations, and this run has none")
        self.refused(run("run", "-i", "reference", "-s", "611", "--cache", "hot", "--bins-offset", "128", "--reps",
                         "3", "-o", new), 2, "--reps, --cache and --bins-offset apply to GPU implementations")
        self.assertFalse(os.path.exists(new))
        if "[cannot run here]" in run("list").stdout.decode():  # the default selection is the CPU's alone
            self.refused(run("run", "-s", "611", "--grid", "512", "--no-save"), 2, "no usable CUDA GPU here")
            if built_with_cuda():   # a toolchain that could load, with no GPU to run it on
                self.refused(run("run", "-s", "611", "--toolchain", "nvcc,nvrtc", "--no-save"), 2,
                             "--toolchain applies to GPU implementations, and this run has none (no usable CUDA GPU")
            return
        out = run("run", "-i", "reference,global", "--input", "uniform", "-s", "611", "--grid", "64", "--block", "128",
                  "-o", new)
        self.assertEqual(out.returncode, 0, out.stderr)
        [saved] = self.results(new)
        rows = [r for r in load(saved)["rows"] if r["impl"] in ("reference", "global")]
        self.assertEqual(sorted(r["backend"] for r in rows), ["cpu", "cuda"])
        for row in rows:
            want = (64, 128) if row["backend"] == "cuda" else (0, 0)
            self.assertEqual((row["policy"]["grid"], row["policy"]["block"]), want, row["impl"])

    def test_threads_record_the_team_that_ran(self):
        """OMP_THREAD_LIMIT=1 with -t 2 recorded threads=2 while one thread ran: refused now; without -t, every
        row records the team's size."""
        limited = {"OMP_THREAD_LIMIT": "1"}
        self.refused(run("run", "-i", "openmp_private", "-t", "2", "-s", "611", "--no-save", env=limited), 2,
                     "--threads 2: OpenMP runs 1 here (OMP_THREAD_LIMIT or OMP_DYNAMIC): ask for 1 or fewer")
        out = self.path("limited")
        ran = run("run", "-i", "openmp_private", "--input", "uniform", "-s", "611", "-o", out, env=limited)
        self.assertEqual(ran.returncode, 0, ran.stderr)
        rows = load(self.results(out)[0])["rows"]
        self.assertEqual({r["policy"]["threads"] for r in rows}, {1})

    def test_passes_are_refused_where_no_implementation_takes_them(self):
        """-p 4 was ignored without a word on a run of CPU implementations, while --grid was refused."""
        self.refused(run("run", "-i", "reference", "-s", "611", "-p", "4", "--no-save"), 2,
                     "--passes applies to implementations that take passes (partitioned), and this run has none")

    def test_a_refused_run_makes_no_folder(self):
        out_dir = os.path.join(self.path("new"), "runs")
        self.refused(run("run", "-e", "bogus", "-o", out_dir), 2, "unknown experiment")
        self.refused(run("run", "-i", "reference", "-s", "0", "-o", out_dir), 2, "size 0")
        self.refused(run("run", "-i", "reference", "--input", self.path("missing"), "-o", out_dir), 1, "cannot open")
        self.assertEqual(os.listdir(self.dir), [])
        out = run("run", *QUICK, "-o", out_dir)  # made once there is a result to save
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(len(self.results(out_dir)), 1)

    def test_bad_environment(self):
        self.refused(run("run", *QUICK, "--no-save", env={"HISTOSTUDY_GIT_COMMIT": "abc123"}), 2, "not a commit")
        commit = "0" * 40
        for dirty in ("true", "yes", ""):   # recorded as false before: only 0 and 1 mean anything
            self.refused(run("run", *QUICK, "--no-save", env={"HISTOSTUDY_GIT_COMMIT": commit,
                                                             "HISTOSTUDY_GIT_DIRTY": dirty}), 2,
                         f"HISTOSTUDY_GIT_DIRTY={dirty}: not 0 (a clean tree) or 1 (edited)")
        f = self.path("f")
        with open(f, "wb") as out:
            out.write(b"abc")
        self.refused(run("count", f, env={"OMP_NUM_THREADS": "100000"}), 2, "OMP_NUM_THREADS=100000")

    def test_bad_modules_directories(self):
        if not built_with_cuda():
            self.skipTest("this build has no CUDA")
        self.refused(run("run", *QUICK, "--toolchain", f"modules:{self.dir}", "--no-save"), 2, "no manifest.json")
        with open(self.path("manifest.json"), "w") as f:
            json.dump({"format": "something else"}, f)
        self.refused(run("run", *QUICK, "--toolchain", f"modules:{self.dir}", "--no-save"), 2,
                     "not a histostudy modules manifest")

    def test_usage_errors_are_one_line_and_exit_2(self):
        self.refused(run("run", "--threads", "abc"), 2, "abc is not a whole number")
        self.refused(run("run", "--passes", "3"), 2, "--passes")
        self.refused(run("run", "-s", "18446744073709551616", "--no-save"), 2, "larger than 1 TiB")
        out = run("run", "-s", "12XB", "--no-save")
        self.refused(out, 2, "TiB")
        if built_with_cuda():
            self.refused(run("cubins", "-o", self.dir, "--arch", ""), 2, "an empty value names nothing")
            for spec in ("nvcc", f"modules:{self.dir}"):   # cubins compiles with NVRTC alone, and says so alike
                self.refused(run("cubins", "-o", self.path("m"), "--toolchain", spec), 2,
                             f"toolchain {spec}: ")
                self.refused(run("cubins", "-o", self.path("m"), "--toolchain", spec), 2,
                             "; name NVRTC toolchains here (nvrtc, nvrtc:/path/to/libnvrtc.so.N)")


class ModulesFolder(Case):
    """cubins -o: a new folder, written whole or not at all, never over an earlier one, refused before compiling."""

    def setUp(self):
        super().setUp()
        if not built_with_cuda():
            self.skipTest("this build has no CUDA")
        if not any(line.split()[:1] == ["nvrtc"] for line in run("list").stdout.decode().splitlines()):
            self.skipTest("no NVRTC on the default search path")

    def cubins(self, *args, **kw):
        return run("cubins", "--toolchain", "nvrtc", *args, **kw)

    def test_bad_folders_are_refused_before_compiling(self):
        self.refused(self.cubins("-o", "", cwd=self.dir), 2, "-o: empty path")
        a_file, earlier = self.path("file"), self.path("earlier")
        open(a_file, "w").close()
        self.refused(self.cubins("-o", a_file), 2, "not a directory")
        self.refused(self.cubins("-o", os.path.join(a_file, "sub")), 2, "not a directory")
        os.mkdir(earlier)
        with open(os.path.join(earlier, "manifest.json"), "w") as f:
            f.write("precious")
        self.refused(self.cubins("-o", earlier), 2, "not empty")
        self.assertEqual(os.listdir(earlier), ["manifest.json"])
        self.assertEqual(sorted(os.listdir(self.dir)), ["earlier", "file"])

    def test_an_arch_nvrtc_cannot_compile_for_is_refused_before_compiling(self):
        for arch in ("0", "74", "1000", "sm_74"):
            with self.subTest(arch=arch):
                self.refused(self.cubins("--arch", f"75,{arch}", "-o", self.path("m")), 2,
                             "not a compute capability NVRTC")
                self.assertEqual(os.listdir(self.dir), [])

    def test_repeated_values_are_built_once_and_an_earlier_folder_is_kept(self):
        folder = self.path("m")
        out = self.cubins("--toolchain", "nvrtc", "--arch", "75,sm_75,75", "-o", folder)  # nvrtc twice too
        self.assertEqual(out.returncode, 0, out.stderr)
        manifest = read_bytes(os.path.join(folder, "manifest.json"))
        builds = json.loads(manifest)["builds"]
        self.assertEqual([b["arch"] for b in builds], ["sm_75", "compute_75"])
        self.assertEqual(os.listdir(self.dir), ["m"])  # no temporary folder left beside it
        self.refused(self.cubins("--arch", "90", "-o", folder), 2, "not empty")
        self.assertEqual(read_bytes(os.path.join(folder, "manifest.json")), manifest)

    def test_a_write_error_on_standard_output_is_not_success(self):
        with open("/dev/full", "wb") as full:
            out = subprocess.run([EXE, "cubins", "--toolchain", "nvrtc", "--arch", "75", "-o", self.path("m")],
                                 stdout=full, stderr=subprocess.PIPE, timeout=600)
        self.refused(out, 1, "standard output")

    def test_an_interrupted_cubins_leaves_no_half_made_folder(self):
        """SIGINT as soon as anything appears beside the folder: then nothing, or the whole folder."""
        folder = self.path("m")
        with running("cubins", "--toolchain", "nvrtc", "--arch", "75", "-o", folder, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL) as proc:
            while proc.poll() is None and not os.listdir(self.dir):
                time.sleep(0.005)
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=600)
        if os.listdir(self.dir):
            self.assertEqual(os.listdir(self.dir), ["m"])
            builds = load(os.path.join(folder, "manifest.json"))["builds"]
            self.assertEqual(len(builds), 2)
            for b in builds:
                self.assertTrue(os.path.isfile(os.path.join(folder, b["file"])), b["file"])


class NothingLost(Case):
    def test_a_result_file_that_cannot_be_written_leaves_the_measurements_printed(self):
        out_dir = self.path("out")

        def small_files_only():  # as a full disk would: the result file's write fails (EFBIG, SIGXFSZ ignored)
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

        out = run("run", *QUICK, "-o", out_dir, preexec_fn=small_files_only)
        self.assertEqual(out.returncode, 1, out.stderr)
        last = out.stderr.decode().splitlines()[-1]
        self.assertIn("write error", last)
        self.assertTrue(last.endswith("nothing saved: the measurements are printed on standard output"), last)
        self.assertIn("All measurements", out.stdout.decode())
        self.assertIn("reference", out.stdout.decode())
        self.assertEqual(os.listdir(out_dir), [])  # no partial file left

    def test_a_failure_after_measuring_keeps_what_was_measured(self):
        doomed, out_dir = self.path("doomed.bin"), self.path("out")
        with open(doomed, "wb") as f:
            f.write(b"x" * 1000)
        # An input's CPU rows are sampled in one rotation and reported at its end: once uniform's are, one_byte's
        # rotation (a second or so at 32 MiB) still stands between the unlink and the file's read.
        with running("run", "-i", "reference,openmp_private,openmp_fast", "--input", f"uniform,one_byte,{doomed}",
                     "-s", "32MiB", "-o", out_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            first = proc.stderr.readline()
            while first and b"[1/" not in first:
                first = proc.stderr.readline()
            os.unlink(doomed)
            out, err = proc.communicate(timeout=300)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn(b"doomed.bin", err)
        [saved] = self.results(out_dir)
        self.assertEqual(out.decode(), f"result file: {saved}\n")  # where --device all's parent looks for it
        doc = load(saved)
        self.assertIn("doomed.bin", doc["incomplete"]["error"])
        self.assertEqual({r["input"] for r in doc["rows"]}, {"uniform", "one_byte"})

    def test_a_deleted_working_directory_loses_nothing(self):
        gone, out_dir = self.path("gone"), self.path("out")
        os.mkdir(gone)
        with running("run", *QUICK, "-o", out_dir, cwd=gone, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
            os.rmdir(gone)
            _, err = proc.communicate(timeout=300)
        self.assertEqual(proc.returncode, 0, err)
        [saved] = self.results(out_dir)
        provenance = load(saved)["provenance"]
        self.assertIsNone(provenance["cwd"])
        self.assertTrue(provenance["cwd_error"])

    def test_strings_that_are_not_utf8_are_recorded_escaped(self):
        name = os.path.join(self.dir.encode(), b"caf\xe9,\\.bin")
        with open(name, "wb") as f:
            f.write(b"abc" * 1000)
        out_dir = self.path("out")
        out = run("run", "-i", "reference", "--input", name, "-o", out_dir, env={"OMP_WEIRD": "\udcff"})
        self.assertEqual(out.returncode, 0, out.stderr)
        [saved] = self.results(out_dir)
        doc = load(saved)
        self.assertEqual(doc["rows"][0]["input"], os.path.join(self.dir, "caf\\xE9,\\\\.bin"))
        self.assertTrue(doc["escaped_strings"]["where"])
        self.assertEqual(doc["environment"]["host"]["variables"]["OMP_WEIRD"], "\\xFF")
        env = run("env", env={"OMP_WEIRD": "\udcff"})
        self.assertEqual(env.returncode, 0, env.stderr)
        self.assertIn("OMP_WEIRD", json.loads(env.stdout)["host"]["variables"])

    def test_a_closed_pipe_saves_the_run_first(self):
        out_dir = self.path("out")
        with running("run", "-i", "reference", "--input", "uniform", "-s", "611", "-e", "lesson,sweep", "-o", out_dir,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            proc.stdout.close()  # like `| head -c 0`
            _, err = proc.communicate(timeout=300)
        self.assertEqual(len(self.results(out_dir)), 1, err)
        self.assertEqual(proc.returncode, 1)
        self.assertIn(b"standard output", err)

    def test_a_closed_pipe_ends_a_command_that_saves_nothing_quietly(self):
        f = self.path("f")
        with open(f, "wb") as out:
            out.write(b"abc" * 100000)
        for args in (["generate", "uniform", "-s", "64MiB"], ["count", f], ["run", *QUICK, "--no-save"]):
            # The pipe's reader is gone before the command starts, like `| head -c 0` that has exited: closed
            # after the start instead, a short output (count's 256 lines) could fit the pipe before the close.
            reader, writer = os.pipe()
            os.close(reader)
            try:
                with running(*args, stdout=writer, stderr=subprocess.PIPE) as proc:
                    os.close(writer)
                    writer = None
                    _, err = proc.communicate(timeout=300)
            finally:
                if writer is not None:
                    os.close(writer)
            self.assertEqual(proc.returncode, 141, (args, err))  # as the shell reports a death by SIGPIPE
            self.assertEqual(err.count(b"error"), 0, (args, err))

    def test_write_errors_on_standard_output_are_not_success(self):
        f = self.path("f")
        with open(f, "wb") as out:
            out.write(b"abc")
        for args in (["count", f], ["list"], ["env"], ["run", *QUICK, "--no-save"], ["--help"], ["--version"]):
            with open("/dev/full", "wb") as full:
                out = subprocess.run([EXE, *args], stdout=full, stderr=subprocess.PIPE, timeout=600)
            self.assertEqual(out.returncode, 1, args)
            self.assertIn(b"standard output", out.stderr, args)

    def test_a_failing_standard_output_names_the_result_file(self):
        with open("/dev/full", "wb") as full:
            out = subprocess.run([EXE, "run", *QUICK, "-o", self.dir], stdout=full, stderr=subprocess.PIPE,
                                 timeout=600)
        [saved] = self.results(self.dir)
        self.assertEqual(out.returncode, 1)
        last = out.stderr.decode().splitlines()[-1]
        self.assertIn("standard output: write error", last)
        self.assertTrue(last.endswith(f"; result file: {saved}"), last)

    def interrupted_after_one_row(self, *args):
        """(stdout, stderr) of run ARGS sent SIGINT once its first row is measured (of 8: seconds remain)."""
        with running("run", "-i", "reference", "-s", "64MiB", *args, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE) as proc:
            line = proc.stderr.readline()
            while line and b"[1/" not in line:
                line = proc.stderr.readline()
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, -signal.SIGINT, err)
        self.assertIn(b"histostudy: interrupted: stopping to save what was measured (interrupt again to quit "
                      b"without saving)\n", err)
        return out.decode(), err.decode().splitlines()[-1]

    def test_a_run_stopped_before_its_first_case_saves_nothing_and_says_so(self):
        out_dir = self.path("out")
        with running("run", "-i", "reference", "-s", "64MiB", "-o", out_dir, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE) as proc:
            line = proc.stderr.readline()
            while line and b" cases; " not in line:   # the plan, said before the first case starts
                line = proc.stderr.readline()
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, -signal.SIGTERM, err)
        self.assertEqual(out, b"")
        self.assertTrue(err.decode().splitlines()[-1].endswith(" before its first case: nothing measured, nothing "
                                                                 "saved"), err)
        self.assertFalse(os.path.exists(out_dir) and os.listdir(out_dir))

    def test_an_interrupted_run_saves_what_it_measured(self):
        out_dir = self.path("out")
        out, last = self.interrupted_after_one_row("-o", out_dir)
        [saved] = self.results(out_dir)
        doc = load(saved)
        self.assertGreaterEqual(len(doc["rows"]), 1)
        self.assertIn("interrupted by signal", doc["incomplete"]["error"])
        self.assertEqual(out, f"result file: {saved}\n")
        self.assertEqual(last, f"histostudy: {doc['incomplete']['error']} (what was measured is in {saved})")

    def test_an_interrupted_run_without_saving_prints_what_it_measured(self):
        out, last = self.interrupted_after_one_row("--no-save")
        self.assertIn("All measurements", out)
        self.assertIn(" reference ", out)
        self.assertTrue(last.endswith("; nothing saved (--no-save): what was measured is on standard output"), last)

    def failing_read(self):
        shim = os.environ.get("HISTOSTUDY_FAILING_READ")
        if not shim:
            self.skipTest("run through meson: it builds the failing_read shim")
        return shim

    def file_of_64_mib(self):
        """64 MiB of every byte value in turn: many of count's pieces, and more
        than its reading threads (16 on a 16-core machine) have in flight when
        the shim's budget runs out (it counts a read once it returns)."""
        f = self.path("f")
        with open(f, "wb") as out:
            out.write(bytes(range(256)) * (64 << 12))
        return f

    def count_impls(self):
        impls = ["reference", "openmp_private", "openmp_fast"]
        if "[cannot run here]" not in run("list").stdout.decode():  # a GPU: its stream's parallel reads too
            impls += ["lane_shared", "cub"]
        return impls

    def test_a_read_error_mid_file_is_an_error_not_a_histogram(self):
        shim = self.failing_read()
        f = self.file_of_64_mib()
        whole = run("count", f, env={"LD_PRELOAD": shim})  # no budget set: the shim reads through
        self.assertEqual(whole.returncode, 0, whole.stderr)
        self.assertEqual(whole.stdout.decode().splitlines()[7], f"7 {64 << 12}")
        for impl in self.count_impls():
            out = run("count", "--impl", impl, f, env={"LD_PRELOAD": shim, "HISTOSTUDY_SHIM_FILE": f,
                                                       "HISTOSTUDY_FAIL_READ_AFTER": str(6 << 20)})
            self.refused(out, 1, "read error")
            self.assertEqual(out.stdout, b"", impl)

    def test_a_file_that_shrinks_or_grows_while_counted_is_an_error_not_a_histogram(self):
        shim = self.failing_read()
        # Once 6 MiB are read: cut to them (the pieces past them come short),
        # or 16 MiB of zeros appended.
        for size in (6 << 20, 80 << 20):
            for impl in self.count_impls():
                f = self.file_of_64_mib()
                out = run("count", "--impl", impl, f, env={"LD_PRELOAD": shim, "HISTOSTUDY_SHIM_FILE": f,
                                                           "HISTOSTUDY_RESIZE_AFTER": str(6 << 20),
                                                           "HISTOSTUDY_RESIZE_TO": str(size)})
                self.assertEqual(os.path.getsize(f), size, impl)
                self.refused(out, 1, "changed while counted")
                self.assertEqual(out.stdout, b"", impl)

    def test_results_are_saved_where_the_filesystem_has_no_hard_links(self):
        shim = os.environ.get("HISTOSTUDY_NO_HARD_LINKS")
        if not shim:
            self.skipTest("run through meson: it builds the no_hard_links shim")
        out_dir = self.path("out")
        for _ in range(2):
            out = run("run", *QUICK, "-o", out_dir, env={"LD_PRELOAD": shim})
            self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(len(self.results(out_dir)), 2)
        self.assertEqual(sorted(os.listdir(out_dir)), sorted(os.path.basename(p) for p in self.results(out_dir)))

    def test_result_names_sort_in_the_order_written(self):
        out_dir = self.path("out")
        written = []
        for _ in range(3):
            out = run("run", *QUICK, "-o", out_dir)
            self.assertEqual(out.returncode, 0, out.stderr)
            written.append(out.stdout.decode().split("result file: ")[1].strip())
        self.assertEqual(sorted(written, key=lambda p: p.replace(".json", "-001")), written)
        self.assertEqual(sorted(written), sorted(set(written)))  # never over an earlier file


class SaysWhatItDoes(Case):
    def test_provenance_is_the_build_and_the_tree_is_a_second_field(self):
        commit = "0" * 40
        out = run("run", *QUICK, "-o", self.dir, env={"HISTOSTUDY_GIT_COMMIT": commit})
        self.assertEqual(out.returncode, 0, out.stderr)
        [saved] = self.results(self.dir)
        provenance = load(saved)["provenance"]
        self.assertEqual(provenance["tree_commit"], commit)
        self.assertNotEqual(provenance["git_commit"], commit)
        self.assertEqual(provenance["commit_of"], "the build")

    def test_options_that_replace_the_default_experiments_say_so(self):
        out = run("run", *QUICK, "--no-save")
        self.assertIn(b"replace the default experiments", out.stderr)
        self.assertIn(b"custom: 2 implementations on uniform at 611 B", out.stderr)  # reference and its floor

    def test_a_path_with_a_comma_is_one_input_and_repeats_are_measured_once(self):
        name = self.path("a,b.bin")
        with open(name, "wb") as f:
            f.write(b"xyz" * 100)
        out = run("run", "-i", "reference,reference", "--input", f"{name}", "-o", self.dir)
        self.assertEqual(out.returncode, 0, out.stderr)
        [saved] = self.results(self.dir)
        rows = load(saved)["rows"]
        self.assertEqual(sorted({r["input"] for r in rows}), [name])
        self.assertEqual(len([r for r in rows if r["impl"] == "reference"]), 1)
        out = run("run", "-i", "reference", "--input", "uniform,uniform", "-s", "611", "-s", "611B", "-o",
                  self.dir)
        rows = load(sorted(self.results(self.dir))[-1])["rows"]
        self.assertEqual(len([r for r in rows if r["impl"] == "reference"]), 1)

    def test_percent_of_floor_is_not_given_at_tiny_sizes(self):
        out = run("run", "-i", "openmp_private", "--input", "uniform", "-s", "611", "-o", self.dir)
        [saved] = self.results(self.dir)
        self.assertTrue(all(r["pct_of_floor"] is None for r in load(saved)["rows"]))
        self.assertIn(b"not given below", out.stdout)

    def test_no_driver_is_named_as_such(self):
        try:
            ctypes.CDLL("libcuda.so.1")
            self.skipTest("a CUDA driver is installed here")
        except OSError:
            pass
        if not built_with_cuda():
            self.skipTest("this build has no CUDA")
        out = run("run", *QUICK, "--no-save")
        self.assertIn(b"no CUDA driver", out.stderr)

    def test_runs_go_to_an_ignored_folder_by_default(self):
        out = run("run", *QUICK, cwd=self.dir)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(len(self.results(os.path.join(self.dir, "runs"))), 1)


class InputSpellings(Case):
    """One file under two spellings is one input, refused as distinct_01 is; an entry that cannot be opened
    is named with why (a loop, a link to nothing), never called an unknown input."""

    def test_a_symlink_loop_is_named_as_one(self):
        os.symlink("loop", self.path("loop"))
        os.symlink("nowhere", self.path("dangling"))
        self.refused(run("run", "-i", "reference", "--input", "loop", "--no-save", cwd=self.dir), 1,
                     "loop: cannot open (Too many levels of symbolic links)")
        self.refused(run("run", "-i", "reference", "--input", "dangling", "--no-save", cwd=self.dir), 1,
                     "dangling: cannot open (No such file or directory)")

    def test_one_file_under_two_spellings_is_refused_as_distinct_01_is(self):
        with open(self.path("in.bin"), "wb") as f:
            f.write(b"abc")
        os.link(self.path("in.bin"), self.path("hard.bin"))
        os.symlink("in.bin", self.path("soft.bin"))
        roundabout = os.path.join(self.dir, "..", os.path.basename(self.dir), "in.bin")
        for second in ("./in.bin", self.path("in.bin"), roundabout, "hard.bin", "soft.bin"):
            self.refused(run("run", "-i", "reference", "--input", f"in.bin,{second}", "--no-save", cwd=self.dir), 2,
                         f"bad input '{second}': the file 'in.bin' again; name it once")
        self.refused(run("run", "-i", "reference", "--input", "distinct_1,distinct_01", "--no-save"), 2,
                     "bad input 'distinct_01': write it distinct_1")
        out = run("run", "-i", "reference", "--input", "in.bin,in.bin", "--no-save", cwd=self.dir)  # one spelling
        self.assertEqual(out.returncode, 0, out.stderr)


class NamesAsGiven(Case):
    """A name holds any byte but NUL: every line shows it escaped, whole; the result file keeps it exact, and
    --result-path-fd gives the result file's exact path."""

    def make(self, name, data=b"abc" * 100):
        path = os.path.join(self.dir.encode(), name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_control_characters_in_a_name_are_printed_escaped_and_recorded_exact(self):
        name = self.make(b"a\nresult file: x\x1b[31m\\b\xc2\x9b.bin")   # newline, ESC, backslash, C1 CSI
        shown = os.path.join(self.dir, "a\\x0Aresult file: x\\x1B[31m\\\\b\\xC2\\x9B.bin").encode()
        out = run("run", "-i", "reference", "--input", name, "-o", self.dir)
        self.assertEqual(out.returncode, 0, out.stderr)
        for stream in (out.stdout, out.stderr):
            self.assertNotIn(b"\x1b", stream)
            self.assertNotIn(b"\xc2\x9b", stream)
            self.assertIn(shown, stream)
        self.assertEqual([line for line in out.stdout.splitlines() if line.startswith(b"result file: ")],
                         [b"result file: " + self.results(self.dir)[0].encode()])
        [saved] = self.results(self.dir)
        self.assertEqual({r["input"] for r in load(saved)["rows"]}, {os.fsdecode(name)})
        gone = os.path.join(self.dir.encode(), b"no\nsuch")
        self.refused(run("run", "-i", "reference", "--input", gone, "--no-save"), 1, "no\\x0Asuch: cannot open")

    def test_a_long_name_keeps_every_table_line_whole(self):
        name = self.make(b"n" * 250)
        out = run("run", "-i", "reference,openmp_private", "--input", name, "--no-save")
        self.assertEqual(out.returncode, 0, out.stderr)
        measured = [line.split() for line in out.stdout.decode().splitlines() if line.startswith("custom ")]
        self.assertEqual(len(measured), 3, out.stdout)  # reference, openmp_private, the floor: a line each, whole
        self.assertTrue(all(row[3] == name.decode() and row[-1] == "0" for row in measured), measured)

    def test_the_result_path_comes_exact_on_its_descriptor(self):
        out_dir = os.path.join(self.dir, "runs\nhere")
        read, write = os.pipe()
        out = run("run", *QUICK, "-o", out_dir, "--result-path-fd", str(write), pass_fds=(write,))
        os.close(write)
        with os.fdopen(read, "rb") as f:
            told = f.read()
        self.assertEqual(out.returncode, 0, out.stderr)
        [saved] = self.results(out_dir)
        self.assertEqual(told, saved.encode() + b"\0")
        self.assertNotIn("--result-path-fd", load(saved)["provenance"]["argv"])  # where the path went, not what ran
        self.assertIn(b"result file: " + saved.replace("\n", "\\x0A").encode() + b"\n", out.stdout)
        for fd in ("9", "0", "2", "x"):  # not open here, or a standard stream
            self.refused(run("run", *QUICK, "--no-save", "--result-path-fd", fd), 2, "--result-path-fd")


class DryRun(Case):
    """run --dry-run: every check a run makes, then its plan; nothing measured, nothing written."""

    def test_a_dry_run_checks_and_plans_measuring_and_writing_nothing(self):
        out_dir = os.path.join(self.dir, "new", "runs")
        out = run("run", "--dry-run", "-i", "openmp_private", "--input", "uniform,prose", "-s", "611,1MiB", "-t", "3",
                  "-o", out_dir)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(os.listdir(self.dir), [])
        self.assertNotIn(b"[1/", out.stderr)
        plan = out.stdout.decode().splitlines()
        self.assertIn("histostudy: 8 cases;", out.stderr.decode())
        self.assertEqual(len(plan), 8, plan)
        self.assertIn("custom cpu openmp_private prose 1,048,576 B (threads=3 counters=64bit)", plan)
        self.assertIn("custom cpu openmp_read_floor uniform 611 B (threads=3 counters=64bit)", plan)
        self.refused(run("run", "--dry-run", "-i", "reference", "-s", "0", "-o", out_dir), 2, "size 0")
        self.refused(run("run", "--dry-run", *QUICK, "-o", "/proc/histostudy-runs"), 2, "cannot create")


if __name__ == "__main__":
    unittest.main(verbosity=2)
