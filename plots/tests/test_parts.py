"""The paper's parts (plots/parts.py): each experiment declared once, every part iterated, every experiment the C++
declares given a role."""
import types
import unittest
import unittest.mock

from plots import document, parts, selection
from plots.published import LESSON_INPUTS
from plots.results import registry_doc


class Parts(unittest.TestCase):
    def test_each_part_once_with_something_to_show(self):
        names = [p.name for p in parts.PARTS]
        self.assertEqual(len(names), len(set(names)))
        for part in parts.PARTS:
            self.assertTrue(part.section or part.report, part.name)
            if part.joins:
                self.assertIn(part.joins, names, part.name)

    def test_the_appendix_numbers_its_sections_and_figures(self):
        blocks = parts.numbered([document.Heading("a"), document.FigureBlock("x", 0, "c", "s"),
                                 document.Heading("b", 3), document.Heading("c"),
                                 document.FigureBlock("y", 0, "c", "s")], sections=True)
        self.assertEqual([b.text for b in blocks if isinstance(b, document.Heading)], ["1. a", "b", "2. c"])
        self.assertEqual([b.number for b in blocks if isinstance(b, document.FigureBlock)], [1, 2])

    def test_a_joining_part_ends_the_report_it_names(self):
        first = document.Part("first", report=lambda m: [document.Para("one")])
        second = document.Part("second", report=lambda m: [document.Para("two")], joins="first")
        empty = document.Part("empty", report=lambda m: [])
        with unittest.mock.patch.object(parts, "PARTS", (first, second, empty)):
            found = parts.reports(None)
        self.assertEqual(list(found), ["first"])   # a part with nothing to say writes no report
        self.assertEqual([b.text for b in found["first"]], ["one", "two"])


class Roles(unittest.TestCase):
    def test_every_experiment_the_registry_declares_has_a_role(self):
        declared = selection.declared_experiments()
        self.assertTrue(declared, "data/registry.json declares no experiment (build/histostudy list --json)")
        for e in declared:
            if e["name"] != "custom":
                self.assertIn(e["name"], selection.ROLES)

    def test_the_lessons_inputs_are_inputs_the_registry_declares(self):
        declared = {i["name"] for i in registry_doc()["inputs"]}
        self.assertLessEqual(set(LESSON_INPUTS), declared)
        lesson = next(e for e in selection.declared_experiments() if e["name"] == "lesson")
        self.assertLessEqual(set(LESSON_INPUTS), set(lesson["inputs"]))

    def test_a_new_experiment_takes_a_role_of_its_name(self):
        found = selection.experiment_roles([{"name": "lesson"}, {"name": "custom"}, {"name": "stripes"}])
        self.assertEqual(list(found), ["stripes"])
        words, fits = found["stripes"]
        self.assertEqual(words, "GPU stripes rows")
        run = types.SimpleNamespace(has_gpu_rows=lambda name: name == "stripes")
        self.assertTrue(fits(run))
        self.assertFalse(fits(types.SimpleNamespace(has_gpu_rows=lambda name: False)))


if __name__ == "__main__":
    unittest.main()
