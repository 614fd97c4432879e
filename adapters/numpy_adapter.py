"""NumPy as an implementation under test: PyTorch's gather/scatter ops as a
model converter would write them in NumPy.

    .venv/bin/python adapters/numpy_adapter.py     (speaks backends/process/PROTOCOL.md)

Verified with NumPy 1.26.4 (.venv, backend numpy) and 2.4.6 (.venv-current,
backend numpy-current): every call below behaves the same under both (NEP 50
promotion never applies: every scalar is made a NumPy scalar of the target
dtype by converted_value before it meets an array, and every Python int that
becomes a NumPy integer is range-checked first, so NumPy 2's OverflowError
for out-of-range Python ints cannot arise). The hello's version is
numpy.__version__.

The conversion (one function per op below):
  torch.gather(input, dim, index)
      np.take_along_axis on input sliced to index's extent in every dim but
      `dim` (take_along_axis wants equal extents there; torch allows index
      to be smaller).
  scatter_ / scatter with src or value, no reduce
      np.put_along_axis into self (a copy for the out-of-place op) sliced
      to index's extent apart from `dim`, with src sliced to index's extent.
      Duplicate targets: NumPy's last writer wins (PyTorch allows any).
  reduce='add' / 'multiply', scatter_add_ / scatter_add
      put_along_axis cannot accumulate; np.add.at / np.multiply.at with the
      same fancy index put_along_axis builds (unbuffered, so duplicates
      accumulate).

NumPy enforces none of PyTorch's argument rules and wraps negative indices,
so the adapter checks them first, as a converter must, in LibTorch's order
(reference/SEMANTICS.md: T-D1, T-E1, T-I1, T-K1, T-S2..S4 / T-G3, T-G4,
T-O1, T-R1, T-V1, T-B1) and answers the category of the first violation.
The scalar `value` is converted like c10::checked_convert (T-V1).

bfloat16 has no NumPy dtype: ops that only move elements (gather, scatter
without reduce) move its raw 16-bit patterns; arithmetic on it is
unsupported. MindSpore and Paddle ops are unsupported (see run()).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (DocumentedError, Unsupported, WireTensor, compare_versions, parse_version,  # noqa: E402
                    request_version, serve, track_values)

import numpy as np  # noqa: E402  (common.py must take stdout first)

# Each converted op with the arguments it implements (common.serve declines any other).
TORCH_OPS = {
    "torch.gather": ["dim"],
    "torch.scatter_": ["dim", "value", "reduce"],
    "torch.scatter": ["dim", "value", "reduce"],
    "torch.scatter_add_": ["dim"],
    "torch.scatter_add": ["dim"],
}
# Not implemented, so not in the hello (the harness reports them "n/a", not
# "unsupported"): paddle.scatter writes whole rows x[index[i]] (overwrite, or
# zero-then-accumulate), which is row indexing, not the
# take_along_axis/put_along_axis this adapter converts to; mindspore.scatter_
# follows MindSpore's own documents (rank limit 8, dtype lists, value
# overloads that changed across versions), and this adapter converts
# PyTorch's rules only.

# Integer ranges for c10's overflow test (floats use finfo below).
INT_LIMITS = {name: (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for name, t in [("uint8", np.uint8), ("int8", np.int8), ("int16", np.int16),
                              ("int32", np.int32), ("int64", np.int64)]}
FLOAT_MAX = {"float16": float(np.finfo(np.float16).max), "float32": float(np.finfo(np.float32).max),
             "float64": float(np.finfo(np.float64).max), "bfloat16": 3.3895313892515355e38}


# --- the tensors as NumPy sees them ------------------------------------------------------------

def elements(wire, operand=True):
    """A contiguous copy of the view's elements (bfloat16: uint16 bit patterns).
    operand: the copy stands for the operand itself (in place, or only read),
    so the response's "operands" carry it as the call left it (PROTOCOL.md);
    False for an out-of-place op's copy of self, which becomes the output."""
    copy = np.array(wire.view(), copy=True, order="C")
    if operand:
        track_values(wire, lambda: copy)
    return copy


def logical(array):
    """PyTorch counts a rank-0 tensor as shape [1] (T-D2)."""
    return array.reshape(1) if array.ndim == 0 else array


def logical_shape(wire):
    return wire.shape if wire.shape else (1,)


def contiguous_wire(dtype, array):
    """An output as a contiguous wire tensor of the harness dtype `dtype`."""
    array = np.require(array, requirements="C")  # unlike ascontiguousarray, keeps rank 0
    out = WireTensor.__new__(WireTensor)
    out.dtype, out.shape, out.offset = dtype, tuple(array.shape), 0
    strides, step = [], 1
    for n in reversed(array.shape):
        strides.insert(0, step)
        step *= max(n, 1)
    out.strides = tuple(strides)
    out.storage = array.reshape(-1)
    return out


# --- PyTorch's argument rules, checked the way a converter would -----------------------------

def fail(category, message):
    raise DocumentedError(category, message)


def check_dim(dim, rank):  # T-D1
    if not -rank <= dim < rank:
        fail("dim_out_of_range", "Dimension out of range (expected to be in range of [%d, %d], but got %d)"
             % (-rank, rank - 1, dim))
    return dim % rank


def check_index_dtype(op, index):  # T-I1; from torch 2.8 T-I2 (int32 too)
    version = parse_version(request_version()) or (1, 13)  # "" is the baseline, torch 1.13
    allowed = ("int64", "int32") if compare_versions(version, (2, 8)) >= 0 else ("int64",)
    if index.dtype not in allowed:
        fail("index_dtype", "%s(): Expected dtype %s for index" % (op, "/".join(reversed(allowed))))


def check_same_rank(index, other, other_name):  # T-S2 / T-G3
    if len(logical_shape(index)) != len(logical_shape(other)):
        fail("rank_mismatch", "Index tensor must have the same number of dimensions as %s tensor" % other_name)


def check_index_within(index, other, other_name, skip_dim):  # T-S3 (skip_dim None), T-S4, T-G4
    for d, (n, limit) in enumerate(zip(logical_shape(index), logical_shape(other))):
        if d != skip_dim and n > limit:
            fail("shape_mismatch", "Expected index %s to be smaller than %s %s apart from dimension %s"
                 % (list(index.shape), other_name, list(other.shape), skip_dim))


def check_no_internal_overlap(self_wire):  # T-O1
    if self_wire.has_internal_overlap():
        fail("overlapping_output", "unsupported operation: more than one element of the written-to tensor "
                                   "refers to a single memory location")


def check_reduce(reduce):  # T-R1
    if reduce is not None and reduce not in ("add", "multiply"):
        fail("invalid_reduce", "reduce argument must be either add or multiply.")
    return reduce


def check_bounds(index, dim, size):  # T-B1; NumPy would wrap a negative index silently
    bad = np.argwhere((index < 0) | (index >= size))
    if len(bad):
        v = int(index[tuple(bad[0])])
        fail("index_out_of_bounds", "index %d is out of bounds for dimension %d with size %d" % (v, dim, size))


def converted_value(value, dtype):
    """The scalar as c10::checked_convert makes it an element of `dtype`
    (T-V1): a NumPy scalar, or for bfloat16 its uint16 bit pattern."""
    overflow = DocumentedError("value_out_of_range", "value %r cannot be converted to type %s without overflow"
                               % (value, dtype))
    if isinstance(value, bool) or dtype == "bool":
        as_bool = bool(value)  # c10 never reports overflow to or from bool; NaN converts to true
        if dtype == "bool":
            return np.bool_(as_bool)
        value = int(as_bool)
    if dtype in INT_LIMITS:
        low, high = INT_LIMITS[dtype]
        if isinstance(value, int):
            if dtype == "uint8":  # c10 lets an int in [-255, 255] wrap into uint8
                if not -255 <= value <= 255:
                    raise overflow
                return np.uint8(value & 0xFF)
            if not low <= value <= high:
                raise overflow
            return np.array(value).astype(dtype_of(dtype))[()]
        # A float: the untruncated value must lie in range (127.9 does not fit int8). From 2^63 on,
        # int64 is the undefined case T-V2 where any answer is allowed; rejecting it is one.
        if math.isnan(value) or value < low or value > float(high) or (dtype == "int64" and value >= 2.0**63):
            raise overflow
        return np.array(math.trunc(value)).astype(dtype_of(dtype))[()]
    # Floating targets: infinities and NaN fit; finite values beyond the largest finite do not.
    if math.isfinite(value) and abs(value) > FLOAT_MAX[dtype]:
        raise overflow
    if dtype == "float64":
        return np.float64(value)
    single = np.float32(value)  # c10 builds Half and BFloat16 from a float: round to float first
    if dtype == "float32":
        return single
    if dtype == "float16":
        return np.float16(single)
    return bfloat16_bits(single)


def bfloat16_bits(single):
    """c10's float -> BFloat16 conversion (round to nearest even; NaN -> 0x7FC0)."""
    if np.isnan(single):
        return np.uint16(0x7FC0)
    bits = int(np.array(single).view(np.uint32))
    return np.uint16((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)


def dtype_of(name):
    return np.dtype(np.uint16 if name == "bfloat16" else name)


# --- the conversion ----------------------------------------------------------------------------

def extent_slices(shape, skip_dim=None):
    """Slices keeping the first shape[d] elements of every dim d (all of skip_dim)."""
    return tuple(slice(None) if d == skip_dim else slice(0, n) for d, n in enumerate(shape))


def along_axis_index(index, dim):
    """The fancy index put_along_axis builds: index along dim, positions elsewhere."""
    grids = np.indices(index.shape, sparse=True)
    return tuple(index if d == dim else grids[d] for d in range(index.ndim))


def gather(args, tensors):
    input_wire, index_wire = tensors["input"], tensors["index"]
    dim = check_dim(args["dim"], len(logical_shape(input_wire)))
    if 0 in index_wire.shape:  # T-E1: nothing is read
        return [contiguous_wire(input_wire.dtype, np.zeros(index_wire.shape, dtype_of(input_wire.dtype)))]
    check_index_dtype("gather", index_wire)
    check_same_rank(index_wire, input_wire, "input")
    check_index_within(index_wire, input_wire, "self", dim)
    index = logical(elements(index_wire))
    source = logical(elements(input_wire))
    check_bounds(index, dim, source.shape[dim])
    out = np.take_along_axis(source[extent_slices(index.shape, dim)], index, axis=dim)
    return [contiguous_wire(input_wire.dtype, out.reshape(index_wire.shape))]


def scatter(op, args, tensors):
    self_wire, index_wire = tensors["self"], tensors["index"]
    src_wire = tensors.get("src")
    in_place = op.endswith("_")
    reduce = "add" if op.startswith("torch.scatter_add") else args.get("reduce")

    dim = check_dim(args["dim"], len(logical_shape(self_wire)))
    empty = 0 in index_wire.shape
    if not empty:
        check_index_dtype("scatter", index_wire)
    if src_wire is not None and src_wire.dtype != self_wire.dtype:
        fail("dtype_mismatch", "scatter(): Expected self.dtype to be equal to src.dtype")
    if not empty:
        check_same_rank(index_wire, self_wire, "self")
        if src_wire is not None:
            check_same_rank(index_wire, src_wire, "src")
            check_index_within(index_wire, src_wire, "src", None)
        check_index_within(index_wire, self_wire, "self", dim)
    if in_place:
        check_no_internal_overlap(self_wire)
    if not op.startswith("torch.scatter_add"):
        check_reduce(reduce)

    target = elements(self_wire, operand=in_place)
    if not empty:
        index = logical(elements(index_wire))
        check_bounds(index, dim, logical(target).shape[dim])
        if src_wire is not None:
            values = logical(elements(src_wire))[extent_slices(index.shape)]
        else:
            values = converted_value(args["value"], self_wire.dtype)
        if reduce is not None and self_wire.dtype == "bfloat16":
            raise Unsupported("reduce on bfloat16: NumPy has no bfloat16 arithmetic")
        written = logical(target)[extent_slices(index.shape, dim)]  # a view: writes reach target
        if reduce is None:
            np.put_along_axis(written, index, values, axis=dim)
        else:
            ufunc = np.add if reduce == "add" else np.multiply
            with np.errstate(all="ignore"):  # inf - inf, inf * 0, overflow: IEEE results, not warnings on stderr
                ufunc.at(written, along_axis_index(index, dim), values)
    if in_place:
        return [self_wire.with_values(target)]
    return [contiguous_wire(self_wire.dtype, target)]


def run(op, args, tensors):
    if op == "torch.gather":
        return gather(args, tensors)
    if op in TORCH_OPS:
        return scatter(op, args, tensors)
    raise Unsupported("the numpy adapter does not know op " + op)


# No framework= in the hello: this implements PyTorch's ops with NumPy; it is not torch.
serve("numpy", np.__version__, TORCH_OPS, run, operands=True)
