#!/usr/bin/env python3
"""stablehlo_mlir_check.py — tests of scripts/stablehlo_mlir.py, the MLIR subset reader of
scripts/import-stablehlo-tests (CTest stablehlo_mlir_check). Exits 1 on the first failed check."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import stablehlo_mlir as m  # noqa: E402


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def raises(fn, what):
    try:
        fn()
    except m.Unsupported:
        return
    check(False, what + " should be Unsupported")


def main():
    check(m.parse_type("tensor<2x3xf32>") == ([2, 3], "f32"), "shape and element type")
    check(m.parse_type("tensor<i64>") == ([], "i64"), "rank 0")
    raises(lambda: m.parse_type("tensor<?x4xf32>"), "a dynamic dim")
    check(m.parse_type("tensor<2xui32>") == ([2], "ui32"), "ui32 (a dtype since issue 34)")
    raises(lambda: m.parse_type("tensor<2xf8E4M3FN>"), "an element type the harness lacks")
    u64 = '"0x%s"' % struct.pack("<QQ", 2 ** 64 - 1, 2 ** 63).hex()
    check(m.parse_dense(u64, "tensor<2xui64>") == {"dtype": "uint64", "data": [2 ** 64 - 1, 2 ** 63]},
          "hex buffer, ui64 above 2^63 (unsigned, exact)")
    check(m.parse_dense("[65535, 0]", "tensor<2xui16>")["data"] == [65535, 0], "ui16 literals")
    check(m.parse_dense("[[1, -2], [3, 4]]", "tensor<2x2xi8>") == {"dtype": "int8", "data": [[1, -2], [3, 4]]},
          "nested list")
    check(m.parse_dense("0", "tensor<1xi64>")["data"] == [0], "splat")
    check(m.parse_dense("true", "tensor<2xi1>")["data"] == [True, True], "bool splat")
    check(m.parse_dense("[-0.000000e+00, 1.5]", "tensor<2xf32>")["data"] == ["-0.0", 1.5], "negative zero")
    check(m.parse_dense("0x7FC00000", "tensor<f32>")["data"] == "0x7fc00000", "NaN bits splat, rank 0")
    f32 = '"0x%s"' % (struct.pack("<f", 1.0) + struct.pack("<f", -2.0)).hex()
    check(m.parse_dense(f32, "tensor<2xf32>")["data"] == ["0x3f800000", "0xc0000000"], "hex buffer, f32")
    i16 = '"0x%s"' % struct.pack("<hh", -3, 7).hex()
    check(m.parse_dense(i16, "tensor<2xi16>")["data"] == [-3, 7], "hex buffer, signed i16")
    check(m.parse_dense('"0x803F"', "tensor<2xbf16>")["data"] == ["0x3f80", "0x3f80"], "hex splat, bf16")
    check(m.parse_dense("[]", "tensor<0x3xf32>") == {"dtype": "float32", "data": [], "shape": [0, 3]}, "empty")
    raises(lambda: m.parse_dense("[1, 2, 3]", "tensor<2xi32>"), "a literal of the wrong size")
    attrs = m.parse_op_attrs("stablehlo.gather", "dimension_numbers = #stablehlo.gather<offset_dims = [1], "
                             "collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 2>, "
                             "indices_are_sorted = true, slice_sizes = array<i64: 1, 3>")
    check(attrs == {"offset_dims": [1], "collapsed_slice_dims": [0], "start_index_map": [0, 1],
                    "index_vector_dim": 2, "slice_sizes": [1, 3], "indices_are_sorted": True}, "gather attributes")
    attrs = m.parse_op_attrs("stablehlo.scatter", "#stablehlo.scatter<update_window_dims = [0, 1], "
                             "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true")
    check(attrs == {"update_window_dims": [0, 1], "inserted_window_dims": [0], "scatter_dims_to_operand_dims": [0],
                    "unique_indices": True}, "scatter attributes (index_vector_dim left out)")
    region = "^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>): %3 = stablehlo.maximum %arg0, %arg1 : tensor<f32> " \
             "stablehlo.return %3 : tensor<f32>"
    check(m.region_kind(region) == "maximum", "region kind")
    check(m.region_kind("^bb0(%a: tensor<i1>, %b: tensor<i1>): stablehlo.return %b : tensor<i1>") == "replace",
          "the update returned")
    raises(lambda: m.region_kind("^bb0(%a: tensor<i1>, %b: tensor<i1>): stablehlo.return %a : tensor<i1>"),
           "the old value returned")
    raises(lambda: m.region_kind("^bb0(%a: tensor<f32>, %b: tensor<f32>): %3 = stablehlo.subtract %a, %b : "
                                 "tensor<f32> stablehlo.return %3 : tensor<f32>"), "subtract")
    print("stablehlo_mlir_check: all checks passed")


if __name__ == "__main__":
    main()
