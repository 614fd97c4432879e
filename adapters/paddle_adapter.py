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
from common import DocumentedError, Unsupported, classifier, serve  # noqa: E402

try:
    import paddle
except ImportError as e:
    serve("paddle", "", [], run=None, unavailable="paddlepaddle is not importable (%s); run scripts/setup-python.sh" % e)
    sys.exit(0)

paddle.set_device("cpu")

# Paddle's messages (C++ enforce texts and Python checks) -> taxonomy. First
# match wins; the order puts specific texts before generic ones.
CATEGORIES = [
    (r"index.*(int32|int64)|dtype of index|'index'.*dtype|data type of index", "index_dtype"),
    (r"out of (range|bound)|should be (less|greater) than|index.*(exceed|larger|smaller)|OutOfRange", "index_out_of_bounds"),
    (r"(updates|x).*(dtype|data type)|dtype.*(mismatch|same)|data type.*same", "dtype_mismatch"),
    (r"dimension|dims|rank|shape|size", "shape_mismatch"),
]


classify = classifier(CATEGORIES, re.IGNORECASE)


def run(op, args, tensors):
    if op != "paddle.scatter":
        raise Unsupported("the paddle adapter runs paddle.scatter only")
    x = paddle.to_tensor(tensors["x"].array())
    index = paddle.to_tensor(tensors["index"].array())
    updates = paddle.to_tensor(tensors["updates"].array())
    out = paddle.scatter(x, index, updates, overwrite=args.get("overwrite", True))
    return [out.numpy()]


serve("paddle", paddle.__version__, {"paddle.scatter": ["overwrite"]}, run, classify)
