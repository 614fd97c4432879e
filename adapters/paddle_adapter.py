"""Runs the real PaddlePaddle for scatterproof: paddle.scatter on CPU, and
its backward (paddle.scatter.backward) through paddle.grad; paddle.put_along_axis,
Tensor.put_along_axis_, paddle.take_along_axis, paddle.index_add, Tensor.index_add_, paddle.index_select, paddle.gather,
paddle.gather_nd, paddle.scatter_nd_add and paddle.scatter_nd.

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
from common import DocumentedError, Row, Unsupported, classifier, encode_array, serve, track_values  # noqa: E402

import numpy as np  # noqa: E402  (common.py must take stdout first)

try:
    import paddle
except ImportError as e:
    serve("paddle", "", [], run=None, unavailable="paddlepaddle is not importable (%s); run scripts/setup-python.sh" % e)
    sys.exit(0)

paddle.set_device("cpu")

# Paddle's messages (C++ enforce texts and Python checks) -> taxonomy: one
# table of Row(exception classes, regex, category, since=, until=)
# (common.Row; the range of Paddle versions printing the text, open when
# omitted: every row was measured on PaddlePaddle 3.3.1, the one version
# run so far). First match among the rows that hold for the running Paddle
# wins; the order puts specific texts before generic ones. Paddle raises
# (InvalidArgument) as ValueError, (OutOfRange) as IndexError and (NotFound)
# as RuntimeError. Samples of every text: adapters/test_classifier_samples.py.
CATEGORIES = [
    # no kernel for x's dtype: "(NotFound) The kernel with key (CPU, ..., float16) of kernel `scatter` is not
    # registered. Selected wrong DataType `float16`. Paddle support following DataTypes: ..."
    Row(RuntimeError, r"is not registered\. Selected wrong DataType", "unsupported_dtype"),
    # index_add, index_select: "(InvalidArgument) The 'shape' of Input(Index) must be 1-D tensor. But received:
    # ..." (PD-IA3, PD-IS3);
    # "The add_value must be the same dimension as x." (PD-IA6)
    Row(ValueError, r"'shape' of Input\(Index\) must be 1-D tensor", "invalid_argument"),
    Row(ValueError, r"add_value must be the same dimension as x", "rank_mismatch"),
    # "(OutOfRange) Attr(dim) is out of range, It's expected to be in range of [-2, 1]. But received Attr(axis) = 2."
    # (gather: "Attr(axis) is out of range")
    Row(IndexError, r"Attr\((dim|axis)\) is out of range", "dim_out_of_range"),
    # gather: "(InvalidArgument) The last dim of index should be 0 or 1 when it is 2D, but we get 2" (PD-GA3; 2.6
    # and 3.0: "should be 1")
    Row(ValueError, r"last dim of index should be (0 or )?1 when it is 2D", "invalid_argument"),
    # gather_nd: "(InvalidArgument) The rank of Input(Index) should be greater than 1" (PD-GN2; 2.6 and 3.0 for a 0-d
    # index), "Input(Index).shape[-1] should be no greater than Input(X).rank" (PD-GN4), "The value of Input(index)
    # must be no less than [-2]" / "Input(index[-1)] has wrong value, it is [3]" (PD-GN5)
    Row(ValueError, r"rank of Input\(Index\) should be greater than 1", "invalid_argument"),
    Row(ValueError, r"Input\(Index\)\.shape\[-1\] should be no greater than Input\(X\)\.rank", "shape_mismatch"),
    Row(ValueError, r"value of Input\(index\) must be no less than|Input\(index\[-1\)\] has wrong value",
        "index_out_of_bounds"),
    # scatter_nd_add (and scatter_nd): "When the updates is a 0d tensor, the index should be a 1d tensor." (PD-SNA3);
    # "Updates has wrong shape. The shape of Updates and Input(Updates) should be same, but received the shape of
    # Updates is 1, the shape of Input(Updates) is 2." (ranks, PD-SNA6; "The dimensions of Updates and
    # Input(Updates) should match": sizes, the generic row); 3.x "x and updates must have same data type"
    # (PD-SNA2; 2.6: "The type of data we are trying to retrieve", below)
    Row(ValueError, r"the index should be a 1d tensor", "invalid_argument"),
    Row(ValueError, r"shape of Updates and Input\(Updates\) should be same", "rank_mismatch"),
    Row(TypeError, r"x and updates must have same data type", "dtype_mismatch"),
    # scatter_nd: "(InvalidArgument) Each value of attribute 'shape' is expected to be no less than 0." (PD-SN2)
    Row(ValueError, r"Each value of attribute 'shape' is expected to be no less than 0", "invalid_argument"),
    # index_add before 3.3 has no alpha (PD-IA10): "index_add() got an unexpected keyword argument 'alpha'"
    Row(TypeError, r"unexpected keyword argument 'alpha'", "invalid_argument"),
    # "(InvalidArgument) Variable value (index) of OP(index_add) expected >= -3 and < 3, but got 3." (PD-IA8;
    # index_select's the same, PD-IS5)
    Row(ValueError, r"Variable value \(index\) of OP\(index_(add|select)\) expected", "index_out_of_bounds"),
    # index_add with an index longer than value along axis: "(PreconditionNotMet) Tensor's dimension is out of
    # bound.Tensor's dimension must be equal or less than the size of its memory." (PD-IA7)
    Row(RuntimeError, r"Tensor's dimension is out of bound", "shape_mismatch"),
    # 2.6 and 3.0: "(InvalidArgument) The length of Input(Index) can't be 0." (index_add of an empty index)
    Row(ValueError, r"length of Input\(Index\) can't be 0", "invalid_argument"),
    # "The add_value parameter does not supported broadcast, so input_dim[i](3) must be equal to
    # add_value_dim[i](2) when i(1) != axis(0)." (PD-IA7)
    Row(ValueError, r"add_value parameter does not supported broadcast", "shape_mismatch"),
    # "(InvalidArgument) Index holds the wrong type, it holds [float32],but desires to be [int32] or [int64]."
    Row(ValueError, r"index.*(int32|int64)|dtype of index|'index'.*dtype|data type of index", "index_dtype"),
    # "(OutOfRange) The index is out of bounds, please check ... It should be less than [3], but received [3]"
    Row(IndexError, r"out of (range|bound)|should be (less|greater) than|index.*(exceed|larger|smaller)|OutOfRange",
        "index_out_of_bounds"),
    # updates of another dtype than x: the kernel reads updates as x's type, "(InvalidArgument) The type of data we
    # are trying to retrieve (float32) does not match the type of data (float64) currently contained in the
    # container." (measured by a direct paddle.scatter call; the row used to be "(updates|x).*(dtype|data
    # type)|...", which matched this text only through the x of the hint's "Expected")
    Row(ValueError, r"type of data we are trying to retrieve \(\w+\) does not match the type of data",
        "dtype_mismatch"),
    # the index's rank (PD-I1, PD-I3): "The last dim of the index should be 1 when the index is a 2D tensor",
    # "The index should be a 0D or 1D tensor when the index is not a 2D tensor"
    Row(ValueError, r"last dim of the index should be 1|index should be a 0D or 1D tensor", "invalid_argument"),
    # put_along_axis (Python checks of 3.3.1's paddle/tensor/manipulation.py, and its kernels):
    # "`indices` and `arr` must have the same number of dimensions!" (also `values`, broadcast=False)
    Row(ValueError, r"`indices` and `(arr|values)` must have the same number of dimensions", "rank_mismatch"),
    # "'axis'  must be in the range of [-2, 2)" (an assert in non_negative_axis)
    Row(AssertionError, r"'axis'\s+must be in the range of", "dim_out_of_range"),
    # "The data type of indices should be one of ['int32', 'int64'], but got float32"
    Row(TypeError, r"data type of indices should be one of", "index_dtype"),
    # "(InvalidArgument) can not support reduce: 'sum' for scatter kernel, only support reduce op: ..."
    Row(ValueError, r"can not support reduce", "invalid_reduce"),
    # broadcast=False: "Size does not match at dimension 1 expected index [1, 3] to be smaller than self ..."
    Row(RuntimeError, r"Size does not match at dimension", "shape_mismatch"),
    # broadcast=False: "one of element of indices is out of bounds for dimension 0 with size 2"
    Row(RuntimeError, r"out of bounds for dimension", "index_out_of_bounds"),
    # Paddle's rank limits (not on the put_along_axis page): broadcast_to "The number of elements (9) of 'shape'
    # for must not be greater than 8", a tensor "Invalid dimension to be accessed. Now only supports access to
    # dimension 0 to 9, but received dimension is 10" (OSError)
    Row(ValueError, r"of 'shape' for must not be greater than 8", "rank_limit"),
    Row(OSError, r"Invalid dimension to be accessed", "rank_limit"),
    # gather_nd with Q = 0 (its tile kernel): "(InvalidArgument) Only support tensor with rank being between 0 and 7.
    # But received tensor's rank = 8."
    Row(ValueError, r"Only support tensor with rank being between 0 and 7", "rank_limit"),
    # Tensor.put_along_axis_ before 3.0 has no broadcast parameter (PD-PA12)
    Row(TypeError, r"unexpected keyword argument 'broadcast'", "invalid_argument"),
    # "The dimensions of the source tensor and target tensor should match", "The first dimension size of
    # Input(Index) should be no greater than Input(Updates)", "... should have the same shape size"
    Row(ValueError, r"dimension|dims|rank|shape|size", "shape_mismatch"),
]


classify = classifier(CATEGORIES, paddle.__version__, re.IGNORECASE)


def to_paddle(wire):
    """A Paddle tensor of the operand's values; bfloat16 from its bits (Paddle has the dtype, NumPy has not)."""
    if wire.dtype in ("uint16", "uint32", "uint64"):
        # 3.3.1 measured: paddle.to_tensor makes a NumPy uint16 array a bfloat16 tensor (Paddle's uint16 is
        # its bfloat16 storage type) and refuses uint32/uint64 arrays ("tensor.set() supports array with bool,
        # float16, ..."); paddle.scatter documents float32/float64 only (PD-T1).
        raise Unsupported("PaddlePaddle %s builds no %s tensor from NumPy (a uint16 array becomes bfloat16)"
                          % (paddle.__version__, wire.dtype))
    if wire.dtype == "bfloat16":
        tensor = paddle.to_tensor(np.ascontiguousarray(wire.view())).view(paddle.bfloat16).reshape(wire.shape)
        track_values(wire, lambda: bfloat16_bits(tensor).reshape(wire.shape))
        return tensor
    tensor = paddle.to_tensor(wire.array())
    # The response's "operands" carry the tensor as the call left it (PROTOCOL.md).
    track_values(wire, lambda: tensor.numpy().reshape(wire.shape))
    return tensor


def bfloat16_bits(tensor):
    """A bfloat16 tensor's bits as uint16. Paddle's numpy() gives a bfloat16 tensor as its bits (2.6.2, 3.0.0
    and 3.3.1 measured); paddle.uint16, which a view to the bits needs, is missing before 3.3 (2.6.2, 3.0.0)."""
    bits = tensor.numpy()
    return bits if bits.dtype == np.uint16 else bits.view(np.uint16)


def from_paddle(tensor):
    """The output as a wire tensor (bfloat16 as its bits; a 0-d result stays 0-d, as encode_array keeps it)."""
    bfloat16 = tensor.dtype == paddle.bfloat16
    # bfloat16: the bits travel as int16 (uint16 is a wire dtype of its own), then relabelled
    values = bfloat16_bits(tensor).view(np.int16) if bfloat16 else tensor.numpy()
    wire = encode_array(values)
    if bfloat16:
        wire["dtype"] = "bfloat16"
    return wire


def put_along_axis(op, args, tensors):
    """paddle.put_along_axis / Tensor.put_along_axis_ with the case's arguments; values is a tensor or the
    scalar `value` as a Python number; broadcast is passed only when the case gives it (2.6's in-place
    variant has no such parameter: PD-PA12)."""
    arr = to_paddle(tensors["arr"])
    indices = to_paddle(tensors["indices"])
    values = to_paddle(tensors["values"]) if "values" in tensors else args["value"]
    kwargs = {"reduce": args.get("reduce", "assign"), "include_self": args.get("include_self", True)}
    if "broadcast" in args:
        kwargs["broadcast"] = args["broadcast"]
    if op == "paddle.put_along_axis_":
        wire = tensors["arr"]
        if wire.has_internal_overlap():
            raise Unsupported("an overlapping (stride-0) arr cannot be built as a Paddle tensor from host memory")
        arr.put_along_axis_(indices, values, args["axis"], **kwargs)
        # arr's view in the storage it was sent in (an in-place answer keeps layout and untouched storage)
        bits = bfloat16_bits(arr) if arr.dtype == paddle.bfloat16 else arr.numpy()
        return [wire.with_values(bits.reshape(wire.shape))]
    return [from_paddle(paddle.put_along_axis(arr, indices, values, args["axis"], **kwargs))]


def index_add(op, args, tensors):
    """paddle.index_add / Tensor.index_add_; alpha is passed only when the case gives it (3.3 added it)."""
    x, index, value = to_paddle(tensors["x"]), to_paddle(tensors["index"]), to_paddle(tensors["value"])
    kwargs = {"alpha": args["alpha"]} if "alpha" in args else {}
    if op == "paddle.index_add_":
        wire = tensors["x"]
        if wire.has_internal_overlap():
            raise Unsupported("an overlapping (stride-0) x cannot be built as a Paddle tensor from host memory")
        x.index_add_(index, args["axis"], value, **kwargs)
        bits = bfloat16_bits(x) if x.dtype == paddle.bfloat16 else x.numpy()
        return [wire.with_values(bits.reshape(wire.shape))]
    return [from_paddle(paddle.index_add(x, index, args["axis"], value, **kwargs))]


def run(op, args, tensors):
    if op not in OPS:
        raise Unsupported("the paddle adapter runs paddle.scatter (and its backward), put_along_axis, take_along_axis and "
                          "index_add, index_select, gather, gather_nd, scatter_nd_add and scatter_nd only")
    if op.startswith("paddle.put_along_axis"):
        return put_along_axis(op, args, tensors)
    if op.startswith("paddle.index_add"):
        return index_add(op, args, tensors)
    if op == "paddle.gather":
        x, index = to_paddle(tensors["x"]), to_paddle(tensors["index"])
        return [from_paddle(paddle.gather(x, index, axis=args.get("axis", 0)))]
    if op == "paddle.gather_nd":
        return [from_paddle(paddle.gather_nd(to_paddle(tensors["x"]), to_paddle(tensors["index"])))]
    if op == "paddle.scatter_nd_add":
        x, index, updates = (to_paddle(tensors[name]) for name in ("x", "index", "updates"))
        return [from_paddle(paddle.scatter_nd_add(x, index, updates))]
    if op == "paddle.scatter_nd":
        index, updates = to_paddle(tensors["index"]), to_paddle(tensors["updates"])
        return [from_paddle(paddle.scatter_nd(index, updates, list(args["shape"])))]
    if op == "paddle.index_select":
        x, index = to_paddle(tensors["x"]), to_paddle(tensors["index"])
        return [from_paddle(paddle.index_select(x, index, args.get("axis", 0)))]
    if op == "paddle.take_along_axis":
        arr, indices = to_paddle(tensors["arr"]), to_paddle(tensors["indices"])
        return [from_paddle(paddle.take_along_axis(arr, indices, args["axis"], args.get("broadcast", True)))]
    x = to_paddle(tensors["x"])
    index = to_paddle(tensors["index"])
    updates = to_paddle(tensors["updates"])
    if op == "paddle.scatter":
        return [from_paddle(paddle.scatter(x, index, updates, overwrite=args.get("overwrite", True)))]
    # paddle.scatter.backward: x and updates as a user makes them trainable
    # (stop_gradient=False; Paddle takes that on any dtype, integers too),
    # the forward, then paddle.grad with the request's grad_output as it is:
    # what Paddle checks of it (shape, dtype) is under test. An operand that
    # does not reach the output gets zeros (allow_unused), its gradient.
    x.stop_gradient = False
    updates.stop_gradient = False
    out = paddle.scatter(x, index, updates, overwrite=args.get("overwrite", True))
    grads = paddle.grad([out], [x, updates], [to_paddle(tensors["grad_output"])], allow_unused=True)
    return [from_paddle(paddle.zeros_like(leaf) if g is None else g) for leaf, g in zip((x, updates), grads)]


# Each op with the arguments run() passes on to Paddle (common.serve declines any other).
PUT_ALONG_AXIS_ARGS = ["axis", "value", "reduce", "include_self", "broadcast"]
OPS = {
    "paddle.scatter": ["overwrite"],
    "paddle.scatter.backward": ["overwrite"],
    "paddle.put_along_axis": PUT_ALONG_AXIS_ARGS,
    "paddle.put_along_axis_": PUT_ALONG_AXIS_ARGS,
    "paddle.take_along_axis": ["axis", "broadcast"],
    "paddle.index_add": ["axis", "alpha"],
    "paddle.index_add_": ["axis", "alpha"],
    "paddle.index_select": ["axis"],
    "paddle.gather": ["axis"],
    "paddle.gather_nd": [],
    "paddle.scatter_nd_add": [],
    "paddle.scatter_nd": ["shape"],
}

serve("paddle", paddle.__version__, OPS, run, classify, framework=("paddle", paddle.__version__), operands=True)
