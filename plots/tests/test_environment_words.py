"""The environment paragraphs (the environments report): a module compiled ahead is named as such, and a fact that differs
between an environment's runs (the GPU machine's kernel, say) is given for each run, not the first one's."""
import types
import unittest

from plots import environment_words, selection
from plots.environment import NOT_RECORDED, build_words, cpu_name, host_words


def run_with(executors=(), kernel="Linux 6.1", roles=("lesson",)):
    host = {"cpu_model": "Xeon", "logical_cores": 16, "os": "Ubuntu", "kernel": kernel}
    return types.SimpleNamespace(environment={"executors": list(executors), "host": host}, roles=roles)


class EnvironmentWords(unittest.TestCase):
    def test_a_module_compiled_ahead_is_named_by_its_file(self):
        module = {"toolchain": "nvrtc 12.0.140 sm_90",
                  "describe": {"file": "nvrtc-12.0.140/sm_90.cubin", "code": "sass", "arch": "sm_90",
                               "kernel_sources_sha256": "ab" * 32}}
        words = build_words(run_with([module]), "nvrtc 12.0.140 sm_90")
        self.assertIn("`nvrtc-12.0.140/sm_90.cubin` (sass, sm_90)", words)
        self.assertIn("abababababab", words)
        self.assertNotIn(NOT_RECORDED, words)

    def test_a_fact_that_differs_between_runs_is_given_for_each(self):
        runs = [run_with(kernel="Linux v657", roles=("blocks",)), run_with(kernel="Linux v973", roles=("sizes",)),
                run_with(kernel="Linux v973", roles=("lesson", "cpu"))]
        sel = types.SimpleNamespace(roles_of=lambda r: r.roles)
        words = environment_words._per_run_words(host_words, runs, sel)
        self.assertIn("Linux v657 (blocks)", words)
        self.assertIn("Linux v973 (sizes, lesson)", words)
        self.assertEqual(environment_words._per_run_words(host_words, runs[1:], sel), host_words(runs[1]))
        clocks = {"blocks": "", "sizes": "SM clock 1,980 MHz"}
        self.assertEqual(environment_words._per_run_words(lambda r: clocks.get(r.roles[0], ""), runs[:2], sel),
                         f"{NOT_RECORDED} (blocks); SM clock 1,980 MHz (sizes)")


class CpuName(unittest.TestCase):
    ZEN4 = {"vendor": "AuthenticAMD", "model_name": "AMD EPYC", "family": "25", "model": "17", "stepping": "1",
            "features": ["avx512f"]}

    def test_a_cpu_is_named_by_its_generation_where_its_identity_is_recorded(self):
        host = {"cpu_model": "AMD EPYC", "cpu": self.ZEN4}
        self.assertEqual(cpu_name({"host": host}), "AMD EPYC (Zen 4, family 25, model 17)")
        self.assertEqual(cpu_name({"host": {"cpu_model": "AMD EPYC"}, "cpu": self.ZEN4}),   # an older count-bench file
                         "AMD EPYC (Zen 4, family 25, model 17)")

    def test_an_unknown_generation_keeps_its_numbers_and_an_unrecorded_one_its_model_name(self):
        other = dict(self.ZEN4, model="1")
        self.assertEqual(cpu_name({"host": {"cpu_model": "AMD EPYC", "cpu": other}}), "AMD EPYC (family 25, model 1)")
        self.assertEqual(cpu_name({"host": {"cpu_model": "AMD EPYC"}}), "AMD EPYC (generation not recorded)")
        self.assertEqual(cpu_name({"host": {"cpu_model": "Neoverse-V2", "cpu": dict(other, family="")}}),
                         "Neoverse-V2 (generation not recorded)")   # no family in an Arm CPU's /proc/cpuinfo
        self.assertEqual(cpu_name({}), "CPU not recorded")

    def test_zen_4_and_zen_5_runs_are_kept_apart(self):
        zen5 = dict(self.ZEN4, family="26", model="2")
        runs = [types.SimpleNamespace(environment={"host": {"cpu_model": "AMD EPYC", "logical_cores": 2, "cpu": c}})
                for c in (self.ZEN4, zen5)]
        self.assertNotEqual(selection.cpu_host(runs[0]), selection.cpu_host(runs[1]))


if __name__ == "__main__":
    unittest.main()
