"""One of the ONNX adapters (adapters/onnxruntime_adapter.py or
adapters/onnx_reference_adapter.py, argv[1]: onnxruntime | onnx-reference)
run unchanged, over a runtime that writes into its input: after every run
of the session (InferenceSession.run) or evaluator (ReferenceEvaluator.run),
result or error, the first element of the array fed as "updates" (else
"data") is changed. ONNX nodes are out of place, so
tests/onnx_adapter_operands_test.cc expects "input modified": the adapter
returns the very arrays it fed (onnx_model.build, track_values), not copies
of the request, or the write would pass unseen.

    .venv-current/bin/python tests/data/process/onnx_writing_adapter.py onnxruntime
"""
import os
import runpy
import sys

ADAPTERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters")
SCRIPTS = {"onnxruntime": "onnxruntime_adapter.py", "onnx-reference": "onnx_reference_adapter.py"}

sys.path.insert(0, ADAPTERS)
import common  # noqa: E402,F401  (takes stdout for the protocol before any framework loads)

import numpy as np  # noqa: E402


def write_into(feeds):
    fed = feeds["updates"] if "updates" in feeds else feeds["data"]
    if fed.size:
        fed.flat[0] = not fed.flat[0] if fed.dtype == np.bool_ else fed.flat[0] + 1


def writing(run):
    def run_then_write(self, output_names, feeds, *args, **kwargs):
        try:
            return run(self, output_names, feeds, *args, **kwargs)
        finally:
            write_into(feeds)

    return run_then_write


target = sys.argv[1] if len(sys.argv) > 1 else ""
if target not in SCRIPTS:
    raise SystemExit("usage: onnx_writing_adapter.py onnxruntime|onnx-reference")
try:  # a framework that cannot be imported: the adapter itself answers "unavailable"
    if target == "onnxruntime":
        import onnxruntime

        onnxruntime.InferenceSession.run = writing(onnxruntime.InferenceSession.run)
    else:
        from onnx.reference import ReferenceEvaluator

        ReferenceEvaluator.run = writing(ReferenceEvaluator.run)
except ImportError:
    pass

script = os.path.join(ADAPTERS, SCRIPTS[target])
sys.argv = [script]
runpy.run_path(script, run_name="__main__")
