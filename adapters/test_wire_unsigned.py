"""uint16 / uint32 / uint64 on the wire (issue 34; backends/process/PROTOCOL.md "Tensors"): the SDK maps
each to its NumPy dtype both ways, bit-exactly (uint64 above 2^63 and 2^53 included), and the ONNX model
builder gives each its TensorProto element type. The frameworks' own mappings are exercised by their
adapter suites over specs/edge/*-unsigned-*.json.

    .venv-current/bin/python adapters/test_wire_unsigned.py     (unittest)
"""
import base64
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (the SDK; needs NumPy: run with a venv's interpreter)
import numpy as np  # noqa: E402

WIDE = {"uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64}


def wire_of(dtype, values):
    storage = np.array(values, dtype=WIDE[dtype]).astype(np.dtype(WIDE[dtype]).newbyteorder("<")).tobytes()
    return {"dtype": dtype, "shape": [len(values)], "strides": [1], "offset": 0,
            "storage": base64.b64encode(storage).decode("ascii")}


class WireUnsigned(unittest.TestCase):
    def test_decode_keeps_every_bit(self):
        values = {"uint16": [0, 65535, 32768], "uint32": [0, 2 ** 32 - 1, 2 ** 31],
                  "uint64": [0, 2 ** 64 - 1, 2 ** 63, 2 ** 53 + 1]}
        for dtype, vals in values.items():
            t = common.WireTensor(wire_of(dtype, vals))
            self.assertEqual(t.array().dtype, np.dtype(WIDE[dtype]), dtype)
            self.assertEqual([int(v) for v in t.array()], vals, dtype)

    def test_encode_names_the_dtype_and_round_trips(self):
        for dtype, np_type in WIDE.items():
            top = int(np.iinfo(np_type).max)
            wire = common.encode_array(np.array([top, 1], dtype=np_type))
            self.assertEqual(wire["dtype"], dtype)
            self.assertEqual([int(v) for v in common.WireTensor(wire).array()], [top, 1], dtype)

    def test_bfloat16_still_travels_as_its_bits(self):
        t = common.WireTensor({"dtype": "bfloat16", "shape": [1], "strides": [1], "offset": 0,
                               "storage": base64.b64encode(np.array([0x3F80], "<u2").tobytes()).decode("ascii")})
        self.assertEqual(t.dtype, "bfloat16")
        with self.assertRaises(common.Unsupported):
            t.array()

    def test_onnx_element_types(self):
        try:
            import onnx_model
            from onnx import TensorProto
        except ImportError as exc:  # a venv without onnx cannot say: fail, never skip
            self.fail("onnx is not importable here (%s): run with .venv-current's interpreter" % exc)
        self.assertEqual(onnx_model.ELEM_TYPES["uint16"], TensorProto.UINT16)
        self.assertEqual(onnx_model.ELEM_TYPES["uint32"], TensorProto.UINT32)
        self.assertEqual(onnx_model.ELEM_TYPES["uint64"], TensorProto.UINT64)


if __name__ == "__main__":
    unittest.main()
