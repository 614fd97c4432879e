"""One-node ONNX models for the scatterproof ONNX adapters (onnxruntime_adapter.py,
onnx_reference_adapter.py): the op table's onnx.* ops (reference/op_table.cc)
built as the node they name, with the opset the request asks for.

    model, feeds = build(op, args, tensors)   # tensors: common.WireTensor

The model imports the default domain at `opset` (the op table's default when
the case passes none) and carries the lowest IR version that opset needs
(onnx.helper.find_min_ir_version_for), which every onnxruntime since that
opset's release accepts (measured: onnxruntime 1.32.0 loads IR 7..14; onnx
1.23.2 writes IR 14 by default, which an older onnxruntime would reject). Inputs and the output are declared
with their element type and no shape, so the runtime's own shape checks (not
ONNX's shape inference at load) answer for mis-shaped operands.

The feeds are the arrays the runtime reads: build() registers each with
common.track_values, so a response's "operands" (PROTOCOL.md, "Operands
after the call") carry those very arrays as the call left them. ONNX nodes
are out of place, so they must come back unchanged; a runtime that wrote
into a feed would be seen ("input modified"), which returning the request's
own wire arrays would hide.
"""
import onnx
from onnx import TensorProto, helper

from common import Unsupported, track_values

# op id -> (node op_type, operand names in node input order, attributes the node takes, default opset)
OPS = {
    "onnx.GatherElements": ("GatherElements", ["data", "indices"], ["axis"], 13),
    "onnx.ScatterElements": ("ScatterElements", ["data", "indices", "updates"], ["axis", "reduction"], 18),
    "onnx.Scatter": ("Scatter", ["data", "indices", "updates"], ["axis"], 11),
    "onnx.GatherND": ("GatherND", ["data", "indices"], ["batch_dims"], 13),
    "onnx.ScatterND": ("ScatterND", ["data", "indices", "updates"], ["reduction"], 18),
}

# The arguments each op implements (common.serve declines any other): its attributes and the opset.
ADAPTER_OPS = {op: attrs + ["opset"] for op, (_, _, attrs, _) in OPS.items()}

ELEM_TYPES = {
    "bool": TensorProto.BOOL,
    "uint8": TensorProto.UINT8,
    "int8": TensorProto.INT8,
    "int16": TensorProto.INT16,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "float16": TensorProto.FLOAT16,
    "float32": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE,
    "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64,
}


def build(op, args, tensors):
    """The one-node model of `op` with `args` and the feeds (name -> contiguous ndarray)."""
    if op not in OPS:
        raise Unsupported("not an ONNX op: " + op)
    op_type, operands, attrs, default_opset = OPS[op]
    opset = int(args.get("opset", default_opset))
    for name in operands:
        if tensors[name].dtype == "bfloat16":
            # TensorProto.BFLOAT16 exists, but a feed is a NumPy array and NumPy has no bfloat16.
            raise Unsupported("bfloat16 operand %s: NumPy has no bfloat16 dtype to feed the model with" % name)
    feeds = {name: tensors[name].array() for name in operands}
    for name, fed in feeds.items():
        # Read back after the call, result or error: the fed array itself, not a copy of the request.
        track_values(tensors[name], lambda fed=fed: fed)
    node = helper.make_node(op_type, operands, ["out"], **{a: args[a] for a in attrs if a in args})
    out_type = ELEM_TYPES[tensors["data"].dtype]
    graph = helper.make_graph(
        [node], "scatterproof_" + op_type,
        [helper.make_tensor_value_info(name, ELEM_TYPES[tensors[name].dtype], None) for name in operands],
        [helper.make_tensor_value_info("out", out_type, None)])
    opset_id = helper.make_opsetid("", opset)
    model = helper.make_model(graph, opset_imports=[opset_id], producer_name="scatterproof")
    model.ir_version = helper.find_min_ir_version_for([opset_id])
    return model, feeds
