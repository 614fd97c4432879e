"""onnxruntime as an implementation of the ONNX dialect: each onnx.* request
becomes a one-node model (onnx_model.py, shared with onnx_reference_adapter.py)
at the requested opset, run on CPUExecutionProvider.

    .venv-current/bin/python adapters/onnxruntime_adapter.py   (backends/process/PROTOCOL.md)

Verified with onnxruntime 1.32.0 and onnx 1.23.2 (.venv-current). bfloat16
operands are unsupported (NumPy has no bfloat16 to feed). Errors are the
pybind exceptions of onnxruntime.capi.onnxruntime_pybind11_state (Fail,
InvalidArgument, NotImplemented, RuntimeException, InvalidGraph), raised at
session creation (the node's schema and type checks) or at run (the
kernel's checks); CATEGORIES classifies their messages, measured from real
runs over specs/onnx and specs/edge/onnx-*.json.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Row, Unsupported, classifier, serve  # noqa: E402  (before the framework)

try:
    import onnxruntime
    from onnxruntime.capi import onnxruntime_pybind11_state as ort_state
    import onnx_model
except ImportError as exc:  # answered in the hello
    serve("onnxruntime", "", {}, None, unavailable="onnxruntime cannot be imported: %s" % exc)
    raise SystemExit(0)

_ORT = (ort_state.Fail, ort_state.InvalidArgument, ort_state.RuntimeException, ort_state.InvalidGraph,
        ort_state.NotImplemented, ort_state.EPFail)

# The error table. No version bounds yet: every row was measured on
# onnxruntime 1.32.0. No framework= is sent in the hello: versioned rules
# are keyed by op-table dialect names, the dialect is "onnx", and
# onnxruntime's version (1.32) is not an ONNX version; the opset travels in
# each request's args instead.
#
# Every onnxruntime error is one of the pybind classes of
# onnxruntime_pybind11_state (plain Exception subclasses); str(exc) begins
# with the status, "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : ...", so the
# rows name Exception and key on the status and the kernel's text (and
# adapters/test_classifiers.py can read the table without onnxruntime).
# Session creation (the node's schema, attribute and type checks) raises
# INVALID_GRAPH or FAIL; the kernels' checks at run raise INVALID_ARGUMENT
# or FAIL.
CATEGORIES = [
    # Out-of-range index values (GatherND / ScatterND, ScatterElements / Scatter, GatherElements).
    Row(Exception, r"INVALID_ARGUMENT : .*invalid ind(ex|ice) found, ind(ex|ice) = -?\d+", "index_out_of_bounds", "1.32"),
    Row(Exception, r"INVALID_ARGUMENT : .*indices element out of data bounds, idx=-?\d+", "index_out_of_bounds", "1.32"),
    Row(Exception, r"FAIL : .*GatherElements op: Out of range value in index tensor", "index_out_of_bounds", "1.32"),
    # axis outside [-r, r-1] (HandleNegativeAxis).
    Row(Exception, r"FAIL : .*axis -?\d+ is not in valid range", "dim_out_of_range", "1.32"),
    # Rank and shape rules.
    Row(Exception, r"INVALID_ARGUMENT : .*Rank of input 'data' needs to be equal to rank of input 'indices'",
        "rank_mismatch", "1.32"),
    Row(Exception, r"INVALID_ARGUMENT : .*Indices must have the same rank as Input", "rank_mismatch", "1.32"),
    Row(Exception, r"INVALID_ARGUMENT : .*'indices' shape should have values within bounds of 'data' shape",
        "shape_mismatch", "1.32"),
    Row(Exception, r"INVALID_ARGUMENT : .*Indices vs updates dimensions differs", "shape_mismatch", "1.32"),
    Row(Exception, r"INVALID_ARGUMENT : .*Indices dim=\d+ at pos=\d+ is greater than input dim", "shape_mismatch", "1.32"),
    Row(Exception, r"INVALID_ARGUMENT : .*last dimension of indices must not be larger than rank of input",
        "shape_mismatch", "1.32"),
    Row(Exception, r"INVALID_ARGUMENT : .*indices batch size \(\d+\) is not divisible by input batch size",
        "shape_mismatch", "1.32"),
    Row(Exception, r"INVALID_ARGUMENT : .*updates tensor should have shape equal to", "shape_mismatch", "1.32"),
    # The node's schema at the requested opset (session creation).
    Row(Exception, r"INVALID_GRAPH : .*Unrecognized attribute: reduction for operator", "invalid_reduce", "1.32"),
    Row(Exception, r"INVALID_GRAPH : .*Unrecognized attribute: \w+ for operator", "invalid_argument", "1.32"),
    Row(Exception, r"INVALID_GRAPH : .*No Op registered for \w+ with domain_version of \d+", "invalid_argument", "1.32"),
    Row(Exception, r"INVALID_GRAPH : .*Op registered for \w+ is deprecated in domain_version of \d+",
        "invalid_argument", "1.32"),
    Row(Exception, r"INVALID_GRAPH : .*Type Error: Type 'tensor\(\w+\)' of input parameter \(indices\)", "index_dtype",
        "1.32"),
    Row(Exception, r"INVALID_GRAPH : .*Type Error: Type 'tensor\(\w+\)' of input parameter \((data|updates)\)",
        "unsupported_dtype", "1.32"),
    Row(Exception, r"FAIL : Type Error: Type parameter \(T\) of Optype \(\w+\) bound to different types",
        "dtype_mismatch", "1.32"),
]

# Kernels onnxruntime's CPU provider lacks for a dtype the ONNX schema allows:
# the call cannot run here (unsupported), which is not an ONNX rule.
MISSING_KERNEL = re.compile(r"data type is not supported with \w+ opset \d+ when reduction is")


def run(op, args, tensors):
    model, feeds = onnx_model.build(op, args, tensors)
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 4  # the exception carries the message; no duplicate log line on stderr
    try:
        session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        return [session.run(["out"], feeds)[0]]
    except ort_state.NotImplemented as exc:
        raise Unsupported("onnxruntime has no CPU kernel for this node: %s" % str(exc).strip()[:300])
    except ort_state.RuntimeException as exc:
        if MISSING_KERNEL.search(str(exc)):
            raise Unsupported("onnxruntime's CPU kernel declines this dtype: %s" % str(exc).strip()[:300])
        raise


# operands=True: the session runs on the feeds onnx_model.build tracks, so every
# response carries them as the call left them (PROTOCOL.md, "Operands after the call").
serve("onnxruntime", onnxruntime.__version__, onnx_model.ADAPTER_OPS, run,
      classifier(CATEGORIES, onnxruntime.__version__), operands=True)
