#!/usr/bin/env python3
"""The CUDA toolkit and host compiler as `./dev build` takes them. A toolkit named by CUDA_TOOLKIT is used
or refused in one line (exit 2) naming what it lacks, never swapped for another, and a build folder keeps
the nvcc it was configured with. The binary runs as built: the CUDA runtime is linked statically, so no
libcudart is looked for. nvcc compiles host code with CXX (./dev passes it as -Dcuda_ccbindir), and where
nvcc's g++ is not the C++ compiler, configuring stops naming the fix. The toolkit named is this build's,
seen through a folder of links elsewhere (one outside /usr/local/cuda), and is configured, not built
(HISTOSTUDY, built with this build's, shows the runtime's linking); without a GPU, gpu_archs=auto is one
arch. Exits 77 (skipped) where this build's nvcc is not in a toolkit folder of NVIDIA's layout.
Usage: test_toolkit.py NVCC HISTOSTUDY"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NVCC = pathlib.Path(sys.argv.pop(1))
HISTOSTUDY = pathlib.Path(sys.argv.pop(1)).resolve()
TOOLKIT = NVCC.resolve().parent.parent
PARTS = ["bin", "include", "lib64", "nvvm"]
# What CI's environment may set that these builds choose themselves.
CHOSEN_HERE = ["CUDA_TOOLKIT", "BUILD_DIR", "MESON_ARGS", "CXX", "NVCC_CCBIN"]


def dev_build(cwd, **env):
    base = {k: v for k, v in os.environ.items() if k not in CHOSEN_HERE}
    return subprocess.run([ROOT / "dev", "build"], capture_output=True, text=True, cwd=cwd, env=base | env,
                          timeout=1800)


def linked_toolkit(folder, parts):
    """A toolkit folder elsewhere: links to this toolkit's parts."""
    folder.mkdir()
    for part in parts:
        (folder / part).symlink_to(TOOLKIT / part)
    return folder


def configure_only(folder):
    """Stand-ins on PATH: a ninja that builds nothing where ./dev asks it to build (ninja -C DIR), and an
    nvidia-smi that finds no GPU, as on CI's machines."""
    folder.mkdir()
    ninja = shutil.which("ninja")
    (folder / "ninja").write_text(f'#!/bin/sh\n[ $# -eq 2 ] && [ "$1" = -C ] && exit 0\nexec {ninja} "$@"\n')
    (folder / "nvidia-smi").write_text("#!/bin/sh\necho 'No devices were found'\nexit 6\n")
    for stub in folder.iterdir():
        stub.chmod(0o755)
    return folder


class Toolkit(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_a_toolkit_without_nvcc_or_that_is_not_there_is_refused(self):
        lacking = linked_toolkit(self.tmp / "lacking", ["include", "lib64"])
        for named, said in ((lacking, f"dev: CUDA_TOOLKIT={lacking} has no bin/nvcc: name a CUDA toolkit's folder, "
                                      "e.g. /usr/local/cuda-12.4\n"),
                            (self.tmp / "absent", f"dev: CUDA_TOOLKIT={self.tmp}/absent: no such folder\n")):
            with self.subTest(named=named):
                refused = dev_build(self.tmp, CUDA_TOOLKIT=str(named), BUILD_DIR=str(self.tmp / "build"))
                self.assertEqual((refused.returncode, refused.stderr), (2, said), refused.stdout)
                self.assertFalse((self.tmp / "build").exists())

    def test_a_build_folder_keeps_its_nvcc(self):
        configured = self.tmp / "build"
        configured.mkdir()
        (configured / "build.ninja").write_text("")   # configured by another ./dev or meson, without this toolkit
        refused = dev_build(self.tmp, CUDA_TOOLKIT=str(TOOLKIT), BUILD_DIR=str(configured))
        self.assertEqual(refused.returncode, 2, refused.stdout + refused.stderr)
        self.assertEqual(refused.stderr, f"dev: {configured} keeps the nvcc it was configured with, not "
                                         f"CUDA_TOOLKIT={TOOLKIT}'s: name a new BUILD_DIR\n")

    def test_another_g_plus_plus_for_host_code_stops_configuring_naming_the_fix(self):
        clang = shutil.which("clang++")   # nvcc's host compiler here: __GNUC__ 4, never the C++ compiler's g++
        cxx = shutil.which("g++")
        if not clang or not cxx:
            self.skipTest("no clang++ and g++ here to tell apart")
        stopped = dev_build(self.tmp, BUILD_DIR=str(self.tmp / "build"), CXX=cxx,
                            MESON_ARGS=f"-Dcuda=enabled -Dcuda_ccbindir={clang}")
        self.assertNotEqual(stopped.returncode, 0, stopped.stdout)
        self.assertIn(f"nvcc compiles host code with another g++ than the C++ compiler ({cxx}, g++ ", stopped.stdout)
        self.assertIn(f"pass that one to nvcc with -Dcuda_ccbindir={cxx} (or NVCC_CCBIN={cxx})", stopped.stdout)

    def test_a_toolkit_elsewhere_is_the_one_configured_with_cxx_for_host_code(self):
        linked_toolkit(self.tmp / "elsewhere", PARTS)
        stubs = configure_only(self.tmp / "stubs")
        build = self.tmp / "build"
        cxx = shutil.which("g++") or self.skipTest("no g++ here")
        configured = dev_build(self.tmp, CUDA_TOOLKIT="elsewhere", BUILD_DIR=str(build), CXX="g++",
                               PATH=f"{stubs}:{os.environ['PATH']}")
        self.assertEqual(configured.returncode, 0, configured.stdout[-3000:] + configured.stderr)
        options = {o["name"]: o["value"] for o in json.loads((build / "meson-info" / "intro-buildoptions.json")
                                                              .read_text())}
        self.assertEqual(options["cuda_ccbindir"], cxx)
        commands = (build / "build.ninja").read_text()
        self.assertIn(f"command = {self.tmp}/elsewhere/bin/nvcc ", commands)   # the toolkit named, from the caller
        self.assertIn(f"-I{self.tmp}/elsewhere/include", commands)             # its headers for the C++ sources
        self.assertIn(f"-ccbin={cxx}", commands)
        # gpu_archs auto without a GPU: the lowest common arch alone, said in one line
        archs = sorted(set(re.findall(r"-gencode=arch=compute_(\d+),code=(\w+)", commands)))
        self.assertEqual(len(archs), 2, archs)
        lowest = archs[0][0]
        self.assertEqual(archs, [(lowest, f"compute_{lowest}"), (lowest, f"sm_{lowest}")])
        self.assertIn(f"Message: gpu_archs auto (no GPU found here): SASS for {lowest}; PTX for compute_{lowest}; "
                      "every CUDA source compiles", configured.stdout)

    def test_histostudy_runs_as_built(self):
        """No libcudart to look for: run with no loader path, no toolkit on PATH, outside ./dev."""
        dynamic = subprocess.run(["readelf", "-d", HISTOSTUDY], capture_output=True, text=True, check=True)
        self.assertNotIn("libcudart", dynamic.stdout)
        self.assertNotIn("not found", subprocess.run(["ldd", HISTOSTUDY], capture_output=True, text=True).stdout)
        record = subprocess.run([HISTOSTUDY, "env"], capture_output=True, text=True, cwd=self.tmp,
                                env={"PATH": "/usr/bin:/bin"}, timeout=120)
        self.assertEqual(record.returncode, 0, record.stderr)
        self.assertTrue(json.loads(record.stdout)["build"]["cuda_built"])


if __name__ == "__main__":
    if not all((TOOLKIT / part).is_dir() for part in PARTS) or not (TOOLKIT / "lib64" / "libcudart_static.a").is_file():
        print(f"skipped: {NVCC} is not in a toolkit folder of NVIDIA's layout ({', '.join(PARTS)}, "
              "lib64/libcudart_static.a)")
        sys.exit(77)
    unittest.main(verbosity=2)
