"""Reading result files: every malformed file is rejected with a message naming it."""
import contextlib
import io
import json
import pathlib
import tempfile
import unittest

from unittest import mock

import jsonschema

from plots import codegen, lesson, make_all, results
from plots.results import ResultError, Run, first_bad_time, load_run, load_runs, roles, run_order_key
from plots.tests import fixtures, synthetic


class Malformed(unittest.TestCase):
    def setUp(self):
        self.doc = fixtures.real_run_doc()
        if self.doc is None:
            self.skipTest("no run file with lesson rows in data/runs")
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = pathlib.Path(self.dir.name) / name
        path.write_text(text)
        return path

    def assert_rejected(self, path, *words):
        with self.assertRaises(ResultError) as caught:
            load_run(path)
        message = str(caught.exception)
        self.assertTrue(message.startswith(str(path)), message)
        for word in words:
            self.assertIn(word, message)

    def test_a_valid_file_loads(self):
        run = load_run(self.write("ok.json", json.dumps(self.doc)))
        self.assertEqual(len(run.rows), len(self.doc["rows"]))

    def test_truncated(self):
        text = json.dumps(self.doc)
        self.assert_rejected(self.write("cut.json", text[: len(text) // 2]), "not valid JSON, or truncated")

    def test_empty_and_binary(self):
        self.assert_rejected(self.write("empty.json", ""), "not valid JSON")
        path = pathlib.Path(self.dir.name) / "bin.json"
        path.write_bytes(b"\xff\xfe\x00garbage")
        self.assert_rejected(path, "cannot read")

    def test_foreign(self):
        self.assert_rejected(self.write("other.json", '{"hello": 1}'), "not a histostudy result file")
        self.assert_rejected(self.write("list.json", "[1, 2]"), "not a histostudy result file")
        self.assert_rejected(self.write("fmt.json", '{"format": "something-else"}'), "something-else")

    def test_newer_schema_version(self):
        self.doc["schema_version"] = 2
        self.assert_rejected(self.write("new.json", json.dumps(self.doc)), "written by a newer histostudy")

    def test_missing_field_is_named(self):
        del self.doc["rows"][3]["samples_ms"]
        self.assert_rejected(self.write("miss.json", json.dumps(self.doc)), "rows[3]", "samples_ms")

    def test_wrong_type_is_named(self):
        self.doc["rows"][0]["summary_ms"]["median"] = "fast"
        self.assert_rejected(self.write("type.json", json.dumps(self.doc)), "rows[0].summary_ms.median")

    def test_the_fast_column_check_judges_as_jsonschema_does(self):
        plain = jsonschema.validators.validator_for(json.loads(results.SCHEMA_PATH.read_text()))
        plain = plain(json.loads(results.SCHEMA_PATH.read_text()))
        row = next(r for r in self.doc["rows"] if r.get("sample_log") and len(r["samples_ms"]) > 2)
        columns = {"samples_ms": row, "ms": row["sample_log"], "position": row["sample_log"],
                   "clock_mhz": row["sample_log"], "throttled": row["sample_log"]}
        odd = [True, 0, -1, 1.0, 2.5, None, "1", [1], {"a": 1}, 10 ** 30]
        for key, holder in columns.items():
            for value in odd:
                kept = holder[key][1]
                holder[key][1] = value
                with self.subTest(column=key, value=value):
                    self.assertEqual(results._schema_validator().is_valid(self.doc), plain.is_valid(self.doc))
                holder[key][1] = kept
        self.assertTrue(results._schema_validator().is_valid(self.doc))

    def test_a_file_of_100000_wrong_rows_is_refused_from_its_first_problems(self):
        self.doc["rows"] = [1.0] * 100_000   # every one a problem: collecting them all took a minute
        self.assert_rejected(self.write("many.json", json.dumps(self.doc)),
                             "rows[0]: 1.0 is not of type 'object' (and at least 99 more problems)")

    def test_non_standard_constants(self):
        text = json.dumps(self.doc).replace('"gbps": ', '"gbps": NaN, "x": ', 1)
        self.assert_rejected(self.write("nan.json", text), "NaN")

    def test_missing_file(self):
        self.assert_rejected(pathlib.Path(self.dir.name) / "absent.json", "cannot read")

    def test_zero_or_negative_times_are_bad_input(self):
        for where, value in (("samples_ms", [0.0, 1.0, 1.0]), ("summary_ms", None), ("lesson_mean_ms", -1.0)):
            doc = json.loads(json.dumps(self.doc))
            row = doc["rows"][2]
            if where == "summary_ms":
                row["summary_ms"]["median"] = 0.0
            else:
                row[where] = value
            self.assertIsNotNone(first_bad_time(doc), where)   # the reader's own check, whatever the schema
            self.assert_rejected(self.write(f"{where}.json", json.dumps(doc)), "rows[2]")   # by the schema or the reader
        self.assertIsNone(first_bad_time(self.doc))

    def test_a_file_that_contradicts_itself_is_refused_naming_the_row_and_the_field(self):
        gpu = synthetic.gpu_run(fixtures.cpu_only_doc(self.doc), with_blocks=False, experiments=("lesson",))
        n, row = next((n, r) for n, r in enumerate(gpu["rows"]) if r["impl"] == "per_block")
        where = f"rows[{n}] (per_block on {row['input']}, {row['toolchain']}): "
        size, median = row["size"], row["summary_ms"]["median"]
        edits = {
            "input_stats.busiest_pct is 100": lambda r: r["input_stats"].update(busiest_pct=100.0),
            "input_stats.bins_used is 256, beside a busiest bin": lambda r: r["input_stats"].update(
                busiest_pct=100.0, busiest=size, bins_used=256),
            "input_stats.bins_used is 2, none holding more than": lambda r: r["input_stats"].update(
                busiest_pct=100 * (size // 4) / size, busiest=size // 4, bins_used=2),
            "gbps is 1e+300": lambda r: r.update(gbps=1e300),
            f"summary_ms.median is {median / 2!r} ms, but its 20 samples_ms": lambda r: r["summary_ms"].update(
                median=median / 2),
            "summary_ms.median is 1000.0 ms": lambda r: r["summary_ms"].update(median=1000.0),  # beyond every sample
            "summary_ms.": lambda r: r.update(samples_ms=[t * 0.5 if i == 0 else t for i, t in
                                                                enumerate(r["samples_ms"])]),   # a faster sample
            "pct_of_floor is 250.0": lambda r: r.update(pct_of_floor=250.0),
        }
        for words, edit in edits.items():
            with self.subTest(words):
                doc = json.loads(json.dumps(gpu))
                edit(doc["rows"][n])
                self.assert_rejected(self.write("edited.json", json.dumps(doc)), f"contradicts itself: {where}{words}")
        load_run(self.write("whole.json", json.dumps(gpu)))   # as written, it agrees with itself

    def test_a_string_that_is_half_a_utf16_pair_is_refused(self):
        self.doc["environment"]["host"]["hostname"] = "node\udcff"   # json.dumps writes it as the escape \udcff
        self.assert_rejected(self.write("half.json", json.dumps(self.doc)),
                             "holds a string that is not text ('\\udcff' is half a UTF-16 pair)")
        self.doc["environment"]["host"]["hostname"] = "node\U0001f600"   # a whole pair, \ud83d\ude00, is text
        self.assertEqual(load_run(self.write("pair.json", json.dumps(self.doc))).environment["host"]["hostname"],
                         "node\U0001f600")

    def test_a_blank_name_is_refused_and_a_name_of_two_lines_named_in_one(self):
        self.doc["rows"][0]["toolchain"] = " "   # audit pairs toolchains by their first word
        self.assert_rejected(self.write("blank.json", json.dumps(self.doc)), "rows[0].toolchain: ' ' does not match")
        self.doc["rows"][0].update(toolchain="cpu", impl="two\nlines", gbps=1e300)
        with self.assertRaises(ResultError) as caught:
            load_run(self.write("lines.json", json.dumps(self.doc)))
        self.assertEqual(len(str(caught.exception).splitlines()), 1, caught.exception)
        self.assertIn("rows[0] (two\\nlines on ", str(caught.exception))

    def test_every_committed_run_agrees_with_itself(self):
        for path in sorted(fixtures.RUNS.glob("*.json")):
            self.assertIsNone(results.first_contradiction(json.loads(path.read_text())), path)

    def test_an_incomplete_run_loads_and_says_so(self):
        self.doc["incomplete"] = {"error": "cannot write: disk full"}
        run = load_run(self.write("cut.json", json.dumps(self.doc)))
        self.assertEqual(run.incomplete, "cannot write: disk full")
        self.assertIsNone(load_run(self.write("whole.json", json.dumps(fixtures.real_run_doc()))).incomplete)

    def test_runs_are_ordered_oldest_first_with_numbered_names(self):
        names = ["20990101T000001Z_x-010.json", "20990101T000000Z_x.json", "20990101T000001Z_x.json",
                 "20990101T000001Z_x-002.json", "20990101T000001Z_x-003.json"]
        self.assertEqual(sorted(names, key=run_order_key),
                         ["20990101T000000Z_x.json", "20990101T000001Z_x.json", "20990101T000001Z_x-002.json",
                          "20990101T000001Z_x-003.json", "20990101T000001Z_x-010.json"])
        self.assertLess(run_order_key("20990101T000000Z_nvcc-13.0.88.json"),
                        run_order_key("20990101T000000Z_nvcc-13.0.88-002.json"))
        paths = [self.write(n, json.dumps(self.doc)) for n in names]
        self.assertEqual([pathlib.Path(r.path).name for r in load_runs(paths)][-1], "20990101T000001Z_x-010.json")

    def test_make_all_stops_and_names_the_file(self):
        data = fixtures.data_dir(self.dir.name, {"20990101T000000Z_ok.json": self.doc},
                                 manifest=[("20990101T000000Z_ok.json", "cpu", "x"),
                                           ("20990102T000000Z_broken.json", "cpu", "x")])
        (data / "runs" / "20990102T000000Z_broken.json").write_text('{"format": "histostudy-result", "schema_')
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = make_all.main(["--data", str(data), "--out", str(pathlib.Path(self.dir.name) / "paper")])
        self.assertEqual(status, 1)
        self.assertIn("data/runs/20990102T000000Z_broken.json", err.getvalue())

    def test_malformed_codegen_audit_is_named(self):
        path = pathlib.Path(self.dir.name) / "codegen"
        path.mkdir()
        (path / "bad.json").write_text("{")
        with self.assertRaises(ResultError) as caught:
            codegen.load_audit(path, "data/codegen/")
        self.assertIn("data/codegen/bad.json", str(caught.exception))

    def test_codegen_audit_without_records_says_so(self):
        path = pathlib.Path(self.dir.name) / "codegen"
        path.mkdir()
        (path / "odd.json").write_text('{"something": [1, 2]}')
        audit = codegen.load_audit(path, "data/codegen/")
        self.assertFalse(audit)
        self.assertIn("holds no records", audit.describe())
        self.assertEqual(codegen.load_audit(pathlib.Path(self.dir.name) / "none").describe(), codegen.NO_AUDIT)

    def test_kernel_attributes_recorded_in_a_run_serve_as_codegen(self):
        doc = synthetic.gpu_run(fixtures.cpu_only_doc(self.doc))
        for executor in doc["environment"]["executors"]:
            if executor["toolchain"].startswith("nvrtc"):
                registers = 16 if "12." in executor["toolchain"] else 20
                executor["describe"].update(target="sm_90", kernels={"hs_sum_bytes": {"registers": registers}})
        audit = codegen.from_run(Run("x.json", doc))
        base = codegen.find(audit, "sum_bytes", "nvrtc 12.6.85", "90")
        self.assertEqual(codegen.difference(base, codegen.find(audit, "sum_bytes", "nvrtc 13.0.88", "90")),
                         "registers 16->20")


class Roles(unittest.TestCase):
    """A row's roles are its own where it records them, else data/registry.json's: kernels are found by role."""

    def setUp(self):
        self.doc = fixtures.cpu_doc_or_skip()
        self.doc["rows"] = [r for r in self.doc["rows"] if r["experiment"] == "lesson"]

    def test_a_row_without_roles_takes_the_registry_s(self):
        listed = json.loads(results.REGISTRY_PATH.read_text())["implementations"]
        listed = {(e["name"], e["backend"]): tuple(e["roles"]) for e in listed}
        for row in self.doc["rows"]:
            row.pop("roles", None)   # as rows written before rows recorded their roles
        for row in self.doc["rows"]:
            self.assertEqual(roles(row), listed[(row["impl"], row["backend"])], row["impl"])
        self.assertIn("oracle", roles(next(r for r in self.doc["rows"] if r["impl"] == "reference")))
        self.assertEqual(roles(dict(self.doc["rows"][0], impl="not_in_the_registry")), ())

    def test_a_row_s_own_roles_decide(self):
        renamed = {"reference": ("new_oracle", ["oracle"]), "openmp_private": ("new_private", ["privatized"])}
        for row in self.doc["rows"]:
            if row["impl"] in renamed:
                row["impl"], row["roles"] = renamed[row["impl"]]
        view, = lesson.views(Run("roles.json", self.doc))
        self.assertEqual((view.base, view.private), ("new_oracle", "new_private"))
        table = lesson.main_table(view, lesson.baseline_source(make_all.gather(fixtures.DATA).published))
        self.assertIn("| new_oracle ms | new_private ms |", table.markdown())
        self.assertNotIn("| - | - | - |", table.markdown().split("\n")[4])   # the times are found under the new names

    def test_roles_must_be_a_list_of_strings(self):
        self.doc["rows"][2]["roles"] = "oracle"
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "roles.json"
            path.write_text(json.dumps(self.doc))
            with self.assertRaises(ResultError) as caught:
                load_run(path)
        self.assertIn("rows[2].roles", str(caught.exception))

    def test_an_unreadable_registry_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "registry.json"
            for text in ("{", '{"implementations": [{"name": "x", "backend": "tpu", "roles": []}]}'):
                path.write_text(text)
                results.registry.cache_clear()
                with mock.patch.object(results, "REGISTRY_PATH", path), self.assertRaises(ResultError) as caught:
                    results.registry()
                self.assertIn("data/registry.json: cannot read the implementations' roles", str(caught.exception))
        results.registry.cache_clear()


if __name__ == "__main__":
    unittest.main()
