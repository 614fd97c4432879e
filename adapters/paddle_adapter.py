"""Runs the real PaddlePaddle for scatterproof: paddle.scatter on CPU.

    .venv/bin/python adapters/paddle_adapter.py     (speaks backends/process/PROTOCOL.md)

Each request builds paddle tensors from the wire tensors' elements (layouts
do not survive into paddle: x is out of place, so only values matter), calls
paddle.scatter(x, index, updates, overwrite) and returns its output. Nothing
is checked here before paddle sees it: an error is paddle's own, mapped to a
category by its message (classify).
"""
import os
import re
import sys

os.environ.setdefault("GLOG_minloglevel", "2")  # paddle's C++ logging goes to stderr anyway; keep it short
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import DocumentedError, Unsupported, classifier, encode_array, serve  # noqa: E402

import numpy as np  # noqa: E402  (common.py must take stdout first)

try:
    import paddle
except ImportError as e:
    serve("paddle", "", [], run=None, unavailable="paddlepaddle is not importable (%s); run scripts/setup-python.sh" % e)
    sys.exit(0)

paddle.set_device("cpu")

# Paddle's messages (C++ enforce texts and Python checks) -> taxonomy. First
# match wins; the order puts specific texts before generic ones.
CATEGORIES = [
    # no kernel for x's dtype: "The kernel with key (CPU, ..., float16) of kernel `scatter` is not
    # registered. Selected wrong DataType `float16`. Paddle support following DataTypes: ..."
    (r"is not registered\. Selected wrong DataType", "unsupported_dtype"),
    (r"index.*(int32|int64)|dtype of index|'index'.*dtype|data type of index", "index_dtype"),
    (r"out of (range|bound)|should be (less|greater) than|index.*(exceed|larger|smaller)|OutOfRange", "index_out_of_bounds"),
    (r"(updates|x).*(dtype|data type)|dtype.*(mismatch|same)|data type.*same", "dtype_mismatch"),
    # the index's rank (PD-I1, PD-I3): "The last dim of the index should be 1 when the index is a 2D tensor",
    # "The index should be a 0D or 1D tensor when the index is not a 2D tensor"
    (r"last dim of the index should be 1|index should be a 0D or 1D tensor", "invalid_argument"),
    (r"dimension|dims|rank|shape|size", "shape_mismatch"),
]


classify = classifier(CATEGORIES, re.IGNORECASE)


def to_paddle(wire):
    """A Paddle tensor of the operand's values; bfloat16 from its bits (Paddle has the dtype, NumPy has not)."""
    if wire.dtype == "bfloat16":
        return paddle.to_tensor(np.ascontiguousarray(wire.view())).view(paddle.bfloat16)
    return paddle.to_tensor(wire.array())


def from_paddle(tensor):
    """The output as a wire tensor (bfloat16 as its bits)."""
    if tensor.dtype == paddle.bfloat16:
        wire = encode_array(tensor.view(paddle.uint16).numpy())
        wire["dtype"] = "bfloat16"
        return wire
    return tensor.numpy()


def run(op, args, tensors):
    if op != "paddle.scatter":
        raise Unsupported("the paddle adapter runs paddle.scatter only")
    x = to_paddle(tensors["x"])
    index = to_paddle(tensors["index"])
    updates = to_paddle(tensors["updates"])
    out = paddle.scatter(x, index, updates, overwrite=args.get("overwrite", True))
    return [from_paddle(out)]


serve("paddle", paddle.__version__, {"paddle.scatter": ["overwrite"]}, run, classify)
