"""The adapter SDK's wire encoding of a framework's output (encode_array,
python/scatterproof_adapter/src/scatterproof_adapter/wire.py): a result keeps
its shape, 0-d included, and its elements in row-major order.

    .venv/bin/python adapters/test_wire.py      (unittest; CTest: adapter_wire)

Needs NumPy only (common.py's own need), no framework.
"""
import base64
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import WireTensor, encode_array  # noqa: E402


def decoded(wire):
    """The wire tensor back as a NumPy array, read as the harness reads it (shape, strides, offset)."""
    return WireTensor(wire).array()


class EncodeArray(unittest.TestCase):
    def test_a_0d_result_stays_0d(self):
        wire = encode_array(np.array(7, dtype=np.int64))
        self.assertEqual(wire["shape"], [])
        self.assertEqual(wire["strides"], [])
        self.assertEqual(base64.b64decode(wire["storage"]), np.int64(7).tobytes())
        self.assertEqual(decoded(wire).shape, ())
        self.assertEqual(decoded(wire)[()], 7)

    def test_a_0d_scalar_of_numpy_stays_0d(self):
        wire = encode_array(np.float32(1.5))
        self.assertEqual((wire["dtype"], wire["shape"], wire["strides"]), ("float32", [], []))

    def test_shapes_and_row_major_strides(self):
        for shape in [(1,), (3,), (2, 3), (2, 0, 3), (0,), (1, 1, 1)]:
            with self.subTest(shape=shape):
                a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
                wire = encode_array(a)
                self.assertEqual(wire["shape"], list(shape))
                np.testing.assert_array_equal(decoded(wire), a)

    def test_a_non_contiguous_result_is_copied_in_row_major_order(self):
        a = np.arange(12, dtype=np.float64).reshape(3, 4).T[::2]
        wire = encode_array(a)
        self.assertEqual((wire["shape"], wire["strides"], wire["offset"]), ([2, 3], [3, 1], 0))
        np.testing.assert_array_equal(decoded(wire), a)

    def test_bool(self):
        wire = encode_array(np.array([True, False]))
        self.assertEqual(wire["dtype"], "bool")
        np.testing.assert_array_equal(decoded(wire), [True, False])


if __name__ == "__main__":
    unittest.main()
