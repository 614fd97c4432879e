"""ONNX's own reference implementation (onnx.reference.ReferenceEvaluator,
NumPy code shipped in the onnx package) as an implementation of the ONNX
dialect: each onnx.* request becomes the same one-node model
onnxruntime_adapter.py runs (onnx_model.py), evaluated in Python.

    .venv-current/bin/python adapters/onnx_reference_adapter.py   (backends/process/PROTOCOL.md)

Verified with onnx 1.23.2 (.venv-current). bfloat16 operands are
unsupported (NumPy has no bfloat16 to feed). The evaluator raises plain
Python exceptions (IndexError from NumPy indexing, ValueError,
RuntimeError, TypeError, NotImplementedError); CATEGORIES classifies them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Row, Unsupported, classifier, serve  # noqa: E402  (before the framework)

try:
    import onnx
    from onnx.reference import ReferenceEvaluator
    import onnx_model
except ImportError as exc:
    serve("onnx-reference", "", {}, None, unavailable="onnx cannot be imported: %s" % exc)
    raise SystemExit(0)

# Measured on onnx 1.23.2; no framework= in the hello (onnx's package version
# is not an op-table dialect version; the opset travels in each request).
# The evaluator checks almost nothing itself: the errors are NumPy's, raised
# where its kernels index or reshape (measured on onnx 1.23.2).
CATEGORIES = [
    Row(IndexError, r"^index -?\d+ is out of bounds for axis \d+ with size \d+", "index_out_of_bounds", "1.23"),
    Row(IndexError, r"^too many indices for array: array is \d+-dimensional, but \d+ were indexed", "shape_mismatch",
        "1.23"),
    Row(ValueError, r"^Except for dimension -?\d+, all dimensions of index and self should be the same size",
        "shape_mismatch", "1.23"),
    Row(ValueError, r"^cannot reshape array of size \d+ into shape", "shape_mismatch", "1.23"),
    Row(ValueError, r"^could not broadcast input array from shape", "shape_mismatch", "1.23"),
    # NumPy refusing a float array as indices (the evaluator never checks
    # the indices' type itself).
    Row(IndexError, r"^only integers, slices \(`:`\), ellipsis \(`\.\.\.`\), numpy\.newaxis \(`None`\) and integer or "
        r"boolean arrays are valid indices", "index_dtype", "1.23"),
    # The evaluator's ScatterElements assigns into a Python list of per-dim
    # index arrays at position axis: raised for an axis outside [-r, r)
    # (measured: the only way the text arises for these kernels).
    Row(IndexError, r"^list assignment index out of range$", "dim_out_of_range", "1.23"),
]


def run(op, args, tensors):
    model, feeds = onnx_model.build(op, args, tensors)
    try:
        evaluator = ReferenceEvaluator(model)
    except RuntimeError as exc:  # onnx.reference's RuntimeImplementationError: no kernel for the op (Scatter)
        if "No registered implementation for operator" in str(exc):
            raise Unsupported("onnx.reference has no implementation of %s" % onnx_model.OPS[op][0])
        raise
    return [evaluator.run(["out"], feeds)[0]]


# operands=True: the evaluator runs on the feeds onnx_model.build tracks, so every
# response carries them as the call left them (PROTOCOL.md, "Operands after the call").
serve("onnx-reference", onnx.__version__, onnx_model.ADAPTER_OPS, run, classifier(CATEGORIES, onnx.__version__),
      operands=True)
