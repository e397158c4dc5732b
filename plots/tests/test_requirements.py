"""The libraries' floors (plots/requirements.txt) and the schema validator an older jsonschema falls back to.
tests/test_oldest_deps.py installs the floors themselves and runs the appendix under them."""
import io
import json
import pathlib
import sys
import tempfile
import unittest
from contextlib import redirect_stderr
from unittest import mock

import jsonschema

from plots import cli, requirements, results
from plots.results import DATA, ResultError, draft7_differences, schema_validator
from plots.tests import fixtures

SCHEMAS = sorted((DATA / "schema").glob("*.schema.json"))


def versions(**have):
    return lambda name: have.get(name)


class Floors(unittest.TestCase):
    def setUp(self):
        self.lines = requirements.parse(requirements.FILE.read_text())
        self.names = list(dict.fromkeys(name for name, _, _ in self.lines))

    def test_the_file_names_the_four_libraries_for_every_python_from_its_oldest(self):
        self.assertEqual(self.names, ["numpy", "scipy", "matplotlib", "jsonschema"])
        self.assertEqual(requirements.oldest_python(self.lines), "3.10")
        for python in [(3, 10), (3, 11), (3, 12), (3, 13)]:
            self.assertEqual(sorted(requirements.floors(python, self.lines)), sorted(self.names), python)

    def test_each_python_has_one_floor_a_library(self):
        for python in [(3, 10), (3, 11), (3, 12)]:
            for name in self.names:
                lines = [oldest for n, oldest, terms in self.lines if n == name and requirements.applies(terms, python)]
                self.assertEqual(len(lines), 1, (name, python))

    def test_floors_met_say_nothing(self):
        floors = requirements.floors((3, 11), self.lines)
        self.assertEqual(requirements.problems((3, 11), versions(**floors), self.lines), [])

    def test_an_older_release_is_refused_with_its_fix(self):
        floors = dict(requirements.floors((3, 10), self.lines), jsonschema="3.1.9")
        found = requirements.problems((3, 10), versions(**floors), self.lines, executable="/usr/bin/python3")
        self.assertEqual(found, ["jsonschema 3.1.9 is older than 3.2.0, which histostudy's plots need on Python 3.10: "
                                 "/usr/bin/python3 -m pip install 'jsonschema>=3.2.0' (plots/requirements.txt)"])

    def test_releases_compare_as_numbers_not_text(self):
        floors = dict(requirements.floors((3, 11), self.lines), numpy="1.100.0", scipy="1.10.1+dfsg")
        self.assertEqual(requirements.problems((3, 11), versions(**floors), self.lines), [])
        floors["numpy"] = "1.9.0"
        self.assertIn("numpy 1.9.0 is older than", requirements.problems((3, 11), versions(**floors), self.lines)[0])

    def test_a_missing_library_is_named_with_both_ways_to_install_it(self):
        floors = requirements.floors((3, 11), self.lines)
        del floors["scipy"]
        found = requirements.problems((3, 11), versions(**floors), self.lines, executable="/usr/bin/python3")
        self.assertEqual(len(found), 1)
        self.assertIn("scipy is not installed for /usr/bin/python3 (Python 3.11)", found[0])
        self.assertIn("apt install python3-scipy", found[0])

    def test_a_python_older_than_every_line_is_refused_alone(self):
        found = requirements.problems((3, 9), versions(), self.lines)
        self.assertEqual(found, ["Python 3.9 is older than 3.10, which histostudy's plots need: set PYTHON to a "
                                 "newer Python (plots/requirements.txt)"])

    def test_a_marker_it_cannot_read_is_an_error_not_a_pass(self):
        with self.assertRaisesRegex(ValueError, "only python_version comparisons"):
            requirements.parse('numpy>=1.0; sys_platform == "linux"\n')

    def test_cli_refuses_before_loading_the_tool(self):
        argv = ["plots.cli", "own_appendix", "--help"]
        with mock.patch.object(sys, "argv", argv), mock.patch.object(requirements, "installed_version",
                                                                     return_value="0.1"):
            with mock.patch("importlib.import_module") as imported, redirect_stderr(io.StringIO()) as err:
                status = cli.main()
        self.assertEqual(status, 2)
        imported.assert_not_called()
        self.assertTrue(err.getvalue().startswith("own_appendix: numpy 0.1 is older than"), err.getvalue())


class OlderJsonschema(unittest.TestCase):
    """jsonschema before 4.0 knows no draft 2020-12: draft 7's validator stands in where it judges alike."""

    def without_2020_12(self):
        return mock.patch.object(results, "_named_validator", return_value=None)

    def test_the_committed_schemas_read_alike_under_draft_7(self):
        for path in SCHEMAS:
            self.assertEqual(draft7_differences(json.loads(path.read_text())), [], path.name)

    def test_what_draft_7_would_judge_otherwise_is_found(self):
        schema = {"$defs": {"a": {"prefixItems": [{}]}},
                  "properties": {"prefixItems": {"type": "string"},  # a property's name, not the keyword
                                 "x": {"$ref": "#/$defs/a", "description": "kept", "required": ["y"]}},
                  "anyOf": [{"unevaluatedProperties": False}]}
        self.assertEqual(sorted(draft7_differences(schema)),
                         ["#/$defs/a/prefixItems", "#/anyOf/0/unevaluatedProperties",
                          "#/properties/x/required beside $ref"])

    def test_the_validator_is_the_draft_the_schema_names_where_this_jsonschema_knows_it(self):
        named = getattr(jsonschema, "Draft202012Validator", jsonschema.Draft7Validator)  # 2020-12: jsonschema 4.0
        for path in SCHEMAS:   # the draft's validator, its columns checked in one pass (results.schema_validator)
            self.assertEqual(type(schema_validator(path)).META_SCHEMA, named.META_SCHEMA, path.name)

    def test_without_2020_12_draft_7_validates_and_still_refuses(self):
        doc = fixtures.real_run_doc()
        if doc is None:
            self.skipTest("no run file with lesson rows in data/runs")
        with self.without_2020_12():
            validator = schema_validator(results.SCHEMA_PATH)
            self.assertEqual(type(validator).META_SCHEMA, jsonschema.Draft7Validator.META_SCHEMA)
            self.assertEqual(list(validator.iter_errors(doc)), [])
            del doc["rows"][0]["impl"]
            with tempfile.TemporaryDirectory() as tmp:
                bad = pathlib.Path(tmp) / "bad.json"
                bad.write_text(json.dumps(doc))
                with self.assertRaisesRegex(ResultError, r"does not follow the result schema at rows\[0\]"):
                    results.load_run(bad)

    def test_without_2020_12_a_schema_draft_7_misreads_is_refused_with_the_fix(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "new.schema.json"
            path.write_text(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                        "prefixItems": [{"type": "string"}]}))
            with self.without_2020_12(), self.assertRaises(ResultError) as caught:
                schema_validator(path)
        self.assertIn("#/prefixItems needs the draft its $schema names): pip install 'jsonschema>=4.0'",
                      str(caught.exception))


if __name__ == "__main__":
    unittest.main()
