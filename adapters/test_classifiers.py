"""Unit test of the adapters' error tables (common.Row, common.classifier).

    .venv/bin/python adapters/test_classifiers.py      (CTest: adapter_classifiers)

Each adapter's CATEGORIES is read from its source (the assignment alone,
evaluated with common's Row and Python's exception classes), so the test
needs no framework. SAMPLES (test_classifier_samples.py) holds messages
as the frameworks printed them in real runs: (versions measured, exception
class, text as the adapter saw it, the category it must get, the spec case
that printed it or the direct call). The checks:

  * every sample gets its category at every version it was measured on;
  * every row of every table is the deciding (first matching) row for at
    least one sample at a version the row holds for: no row is dead or
    shadowed;
  * no torch row has a range, and every known text keeps its category on
    releases nobody measured (issue 33); Row's ranges work as documented;
  * a message no row knows (or a known text under another exception class)
    gets None;
  * versions are read as the frameworks print them.

A new row needs a sample in test_classifier_samples.py (MindSpore's ND ops:
test_classifier_ms_nd_samples.py), copied from a real
run (results.jsonl's "outcome" after the exception's class name, or the
framework's str(exc)).
"""
import ast
import builtins
import itertools
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402
from common import Row, classifier, compare_versions, parse_version, rows_for  # noqa: E402
from test_classifier_samples import T211, T215, EVERY, UNMEASURED_TORCH, TORCH_CUDA, SAMPLES  # noqa: E402
from test_classifier_ms_nd_samples import MINDSPORE_ND_TEXTS  # noqa: E402

SAMPLES["mindspore_adapter.py"] = SAMPLES["mindspore_adapter.py"] + MINDSPORE_ND_TEXTS  # MindSpore's ND ops

# The flags each adapter compiles its table with (its classifier(...) call).
FLAGS = {"torch_adapter.py": 0, "paddle_adapter.py": re.IGNORECASE, "mindspore_adapter.py": re.IGNORECASE,
         "onnxruntime_adapter.py": 0, "onnx_reference_adapter.py": 0, "torch_compile_adapter.py": 0}


def load_table(adapter):
    """The adapter's CATEGORIES, without importing the adapter (or its framework)."""
    path = os.path.join(HERE, adapter)
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "CATEGORIES" for t in node.targets):
            code = compile(ast.Expression(node.value), path, "eval")
            return eval(code, {"__builtins__": builtins, "Row": Row})
    raise AssertionError("%s has no CATEGORIES table" % adapter)


def deciding_row(table, version, exc, flags, device=None):
    """The first row holding for `version` on `device` that matches `exc` (classifier's choice), or None."""
    for row in rows_for(table, version, device):
        if isinstance(exc, row.types) and re.search(row.pattern, str(exc), flags):
            return row
    return None


def category_names():
    """The taxonomy's names, from reference/errors.cc (error_name)."""
    with open(os.path.join(HERE, "..", "reference", "errors.cc"), encoding="utf-8") as f:
        return set(re.findall(r'return "([a-z_]+)";', f.read()))


class TableTest(unittest.TestCase):
    def test_every_sample_gets_its_category(self):
        for adapter, samples in SAMPLES.items():
            table = load_table(adapter)
            for versions, exc_type, message, category, where in samples:
                for version in versions:
                    with self.subTest(adapter=adapter, version=version, where=where):
                        classify = classifier(table, version, FLAGS[adapter])
                        self.assertEqual(classify(exc_type(message)), category, message)

    def test_every_row_decides_a_sample(self):
        for adapter, samples in SAMPLES.items():
            table = load_table(adapter)
            decided = set()
            for versions, exc_type, message, _, _ in samples:
                for version in versions:
                    row = deciding_row(table, version, exc_type(message), FLAGS[adapter])
                    if row is not None:
                        decided.add(row)
            for versions, exc_type, message, _, _ in TORCH_CUDA if adapter == "torch_adapter.py" else []:
                for version in versions:
                    row = deciding_row(table, version, exc_type(message), FLAGS[adapter], "cuda:0")
                    if row is not None:
                        decided.add(row)
            for row in table:
                with self.subTest(adapter=adapter, pattern=row.pattern):
                    self.assertIn(row, decided, "no sample is classified by this row (dead or shadowed)")

    def test_cuda_rows_hold_on_cuda_only(self):
        table = load_table("torch_adapter.py")
        cuda_rows = [row for row in table if row.device == "cuda"]
        self.assertTrue(cuda_rows)
        for device in ("cuda", "cuda:1"):
            classify = classifier(table, T211, device=device)
            for versions, exc_type, message, category, where in TORCH_CUDA:
                with self.subTest(where=where, device=device):
                    self.assertEqual(classify(exc_type(message)), category, message)
        # On the CPU (the plain backend, @cpu) the CUDA rows do not hold: their texts are not placed there, or
        # placed by a CPU row (the generic dispatch row), never by a CUDA row.
        for device in (None, "cpu"):
            self.assertEqual([r for r in rows_for(table, T211, device) if r.device], [])
            for versions, exc_type, message, category, where in TORCH_CUDA:
                row = deciding_row(table, T211, exc_type(message), 0, device)
                with self.subTest(where=where, device=device):
                    self.assertTrue(row is None or row.device is None, row)
        self.assertIsNone(classifier(table, T211)(RuntimeError("Index is supposed to be an empty tensor or a vector")))
        self.assertEqual(classifier(table, T211)(NotImplementedError(
            "\"index_select_out_cuda_impl\" not implemented for 'Short'")), "unsupported_dtype")
        # "Long but found Int" is an index's dtype: the floating-only CUDA row leaves it to the host row
        # that places it (index_dtype, seen on 2.8-2.15), on either device.
        for device in ("cuda", None):
            message = RuntimeError("expected scalar type Long but found Int")
            self.assertEqual(classifier(table, T211, device=device)(message), "index_dtype")
            self.assertIsNone(deciding_row(table, T211, message, 0, device).device)
        with self.assertRaises(ValueError):
            Row(RuntimeError, "x", "invalid_argument", device="cuda:0")

    def test_categories_are_the_taxonomy(self):
        names = category_names()
        self.assertIn("index_out_of_bounds", names)
        for adapter in SAMPLES:
            for row in load_table(adapter):
                with self.subTest(adapter=adapter, pattern=row.pattern):
                    self.assertTrue(row.category is None or row.category in names, row.category)

    def test_no_torch_row_is_version_gated(self):
        # A range belongs on a row only where the same text means different things in different releases
        # (torch_adapter.py's rule); no torch text does.
        for row in load_table("torch_adapter.py"):
            with self.subTest(pattern=row.pattern):
                self.assertIsNone(row.since)
                self.assertIsNone(row.until)

    def test_known_texts_keep_their_category_on_unmeasured_releases(self):
        table = load_table("torch_adapter.py")
        for version in UNMEASURED_TORCH:
            classify = classifier(table, version)
            for _, exc_type, message, category, where in SAMPLES["torch_adapter.py"]:
                with self.subTest(version=version, where=where):
                    self.assertEqual(classify(exc_type(message)), category, message)
        # Both wordings of scatter's shape check, and take_along_dim's bare ZeroDivisionError.
        for version, text in itertools.product(EVERY, ("be smaller than", "be no larger than")):
            classify = classifier(table, version)
            self.assertEqual(classify(RuntimeError("Expected index [1, 3] to %s self [2, 2] apart from dimension 0"
                                                   % text)), "shape_mismatch")
            self.assertEqual(classify(RuntimeError("ZeroDivisionError")), "index_out_of_bounds")

    def test_range_bounds(self):
        # since is inclusive, until exclusive; a bound's missing parts are 0; local and pre-release tags ignored
        row = Row(RuntimeError, "x", "invalid_argument", since="2.3", until="2.15")
        self.assertEqual([row.applies_to(v) for v in ("2.2.9", "2.3", "2.3.0rc1", "2.14.1+cpu", "2.15.0", "3.0")],
                         [False, True, True, True, False, False])
        old = Row(RuntimeError, "old", "invalid_argument", until="2.3")
        new = Row(RuntimeError, "new", "shape_mismatch", since="2.3")
        table = [old, new, Row(RuntimeError, "any", "index_dtype")]
        for version, old_holds in (("2.2.1", True), ("2.3.0", False), ("2.3", False), ("2.3.0rc1", False)):
            rows = rows_for(table, version)
            with self.subTest(version=version):
                self.assertEqual(old in rows, old_holds)
                self.assertEqual(new in rows, not old_holds)
                self.assertIn(table[2], rows)
        for unreadable in ("", "unknown"):  # an unreadable version: the open rows only
            self.assertEqual(rows_for(table, unreadable), [table[2]])
        self.assertIsNone(classifier(table, "2.2")(RuntimeError("new")))
        self.assertEqual(classifier(table, "2.2")(RuntimeError("old")), "invalid_argument")

    def test_unknown_message_is_none(self):
        unknown = [RuntimeError("something else went wrong"), ValueError("bad value"), KeyError("dim"),
                   RuntimeError("")]
        for adapter in SAMPLES:
            table = load_table(adapter)
            versions = {v for sample in SAMPLES[adapter] for v in sample[0]}
            for version in versions:
                classify = classifier(table, version, FLAGS[adapter])
                for exc in unknown:
                    with self.subTest(adapter=adapter, version=version, exc=repr(exc)):
                        self.assertIsNone(classify(exc))
        # A known text under an exception class its row does not name is not placed either.
        classify = classifier(load_table("torch_adapter.py"), T215)
        self.assertEqual(classify(RuntimeError("ZeroDivisionError")), "index_out_of_bounds")
        self.assertIsNone(classify(ZeroDivisionError("ZeroDivisionError")))
        self.assertIsNone(classify(RuntimeError("ZeroDivisionError: integer division by zero in my own code")))
        self.assertIsNone(classify(ValueError("index out of range in self")))

    def test_unreadable_version_uses_open_rows_only(self):
        table = load_table("torch_adapter.py")
        rows = rows_for(table, "")
        self.assertEqual(rows, [row for row in table if not row.since and not row.until and not row.device])
        self.assertEqual(rows_for(table, "unknown"), rows)


class VersionTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_version("2.15.0+cu132"), (2, 15, 0))
        self.assertEqual(parse_version("1.13.0a0+gitunknown"), (1, 13, 0))
        self.assertEqual(parse_version("3.3.1"), (3, 3, 1))
        self.assertEqual(parse_version("2.10.0rc1"), (2, 10, 0))
        self.assertEqual(parse_version("r2.10"), (2, 10))
        self.assertEqual(parse_version("v1.2.3.dev4"), (1, 2, 3))
        self.assertEqual(parse_version("2.6.0.dev20240101+cpu"), (2, 6, 0))
        for text in ("", None, "unknown", "+cu132", "a1"):
            self.assertIsNone(parse_version(text), text)

    def test_compare(self):
        self.assertEqual(compare_versions("2.10", "2.10.0"), 0)
        self.assertLess(compare_versions("1.13.0a0+gitunknown", "2.15"), 0)
        self.assertLess(compare_versions("2.9.1", "2.10"), 0)  # numerically, not as text
        self.assertGreater(compare_versions("2.15.0+cu132", "2.15"), -1)
        self.assertGreater(compare_versions((3, 0), "2.99.9"), 0)

    def test_row_checks_its_fields(self):
        with self.assertRaises(TypeError):
            Row("RuntimeError", "x", "invalid_argument")
        with self.assertRaises(ValueError):
            Row(RuntimeError, "x", "invalid_argument", since="two")
        row = Row((RuntimeError, IndexError), "x", None, since="", until=None)
        self.assertEqual((row.types, row.since, row.until), ((RuntimeError, IndexError), None, None))


if __name__ == "__main__":
    # common.py keeps fd 1 for the protocol and points stdout at stderr; unittest writes to stderr anyway.
    assert common.PROTOCOL_VERSION >= 2
    unittest.main()
