"""An adapter outside scatterproof's tree: a vendor's own gather kernels,
written in NumPy here, checked against PyTorch's documented rules.

    python3 -m venv venv && venv/bin/pip install /path/to/scatterproof/python/scatterproof_adapter
    scatterproof run --backend "process:$PWD/venv/bin/python $PWD/my_vendor_adapter.py" \\
        specs/torch specs/edge/torch-gather-*.json specs/edge/torch-index-select-*.json

It needs only the installed SDK (`scatterproof_adapter`) and NumPy. It
implements two ops; every other op the specs name is "n/a" for it (not in its
hello). A kernel must check the arguments the framework checks, in the
framework's order, and answer each refusal with its category
(reference/SEMANTICS.md: clause ids in the comments below), or the cases that
expect an error fail.

MY_VENDOR_BUG=gather-off-by-one makes the gather kernel read one element
further along `dim` (clamped), a planted bug: the suite must then fail
(scripts/check-python-adapter-sdk.sh runs it both ways).
"""
import os

from scatterproof_adapter import DocumentedError, Unsupported, WireTensor, compare_versions, parse_version, \
    request_version, serve, track_values

import numpy as np  # after the SDK: importing it takes stdout for the protocol

VENDOR_VERSION = "1.0.0"
BUG = os.environ.get("MY_VENDOR_BUG", "")

# Each op with the arguments the kernels implement: the SDK answers "unsupported"
# for a call passing any other (out=, a future argument), naming it.
OPS = {
    "torch.gather": ["dim"],
    "torch.index_select": ["dim"],
}


def fail(category, message):
    raise DocumentedError(category, message)


def logical_shape(wire):
    """PyTorch counts a 0-d tensor as shape [1] for dim, rank and size rules (T-D2)."""
    return wire.shape if wire.shape else (1,)


def check_dim(dim, rank):  # T-D1
    if not -rank <= dim < rank:
        fail("dim_out_of_range", "dim %d is out of range for rank %d" % (dim, rank))
    return dim % rank


def check_bounds(index, size, dim):  # T-B1 / T-IS6: no wrap-around for negative values
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        fail("index_out_of_bounds", "index %d is out of bounds for dimension %d with size %d" % (bad[0], dim, size))


def output(dtype, array):
    """A result as a wire tensor of the harness dtype (bfloat16 travels as its uint16 bits)."""
    out = WireTensor.__new__(WireTensor)
    array = np.require(array, requirements="C")
    out.dtype, out.shape, out.offset = dtype, tuple(array.shape), 0
    strides, step = [], 1
    for n in reversed(array.shape):
        strides.insert(0, step)
        step *= max(n, 1)
    out.strides, out.storage = tuple(strides), array.reshape(-1)
    return out


def elements(wire):
    """The view's elements as a contiguous array, rank 0 as [1] (bfloat16: raw bits).
    The kernels run on this copy, so the adapter tells the SDK how to read it
    back (track_values): with operands=True below, every response then says
    what the call left in each operand, and the harness checks that a
    read-only operand was not written (PROTOCOL.md, "Operands after the call")."""
    copy = np.array(wire.view(), copy=True, order="C")
    track_values(wire, lambda: copy)
    return copy.reshape(logical_shape(wire))


def gather(args, tensors):
    source_wire, index_wire = tensors["input"], tensors["index"]
    dim = check_dim(args["dim"], len(logical_shape(source_wire)))
    if 0 in index_wire.shape:  # T-E1: nothing is read, no further check
        return [output(source_wire.dtype, np.zeros(index_wire.shape, source_wire.view().dtype))]
    # T-I1 (int64), from torch 2.8 T-I2 (int32 too): the request says which version's rules apply.
    allowed = ("int64", "int32") if compare_versions(parse_version(request_version()) or (1, 13), (2, 8)) >= 0 \
        else ("int64",)
    if index_wire.dtype not in allowed:
        fail("index_dtype", "gather(): Expected dtype %s for index" % "/".join(reversed(allowed)))
    if len(logical_shape(index_wire)) != len(logical_shape(source_wire)):  # T-G3
        fail("rank_mismatch", "Index tensor must have the same number of dimensions as input tensor")
    for d, (n, limit) in enumerate(zip(logical_shape(index_wire), logical_shape(source_wire))):  # T-G4
        if d != dim and n > limit:
            fail("shape_mismatch", "index %s is larger than input %s apart from dimension %d"
                 % (list(index_wire.shape), list(source_wire.shape), dim))
    source, index = elements(source_wire), elements(index_wire).astype(np.int64)
    check_bounds(index, source.shape[dim], dim)
    if BUG == "gather-off-by-one":
        index = np.minimum(index + 1, source.shape[dim] - 1)
    # The vendor kernel: out[i][j][k] = input[i][index[i][j][k]][k] (dim 1), every position of index.
    positions = list(np.indices(index.shape, sparse=True))
    positions[dim] = index
    return [output(source_wire.dtype, source[tuple(positions)].reshape(index_wire.shape))]


def index_select(args, tensors):
    source_wire, index_wire = tensors["input"], tensors["index"]
    dim = check_dim(args["dim"], len(logical_shape(source_wire)))
    if len(index_wire.shape) > 1:  # T-IS3
        fail("invalid_argument", "index_select(): Index is supposed to be a vector")
    if index_wire.dtype not in ("int32", "int64"):  # T-IS4
        fail("index_dtype", "index_select(): Expected dtype int32 or int64 for index")
    index = elements(index_wire).reshape(-1).astype(np.int64)
    if not source_wire.shape:  # T-IS7: a 0-d input takes one index value, which must be 0
        if index.size != 1:
            fail("invalid_argument", "index_select(): Index to scalar can have only 1 value, got %d" % index.size)
        check_bounds(index, 1, 0)
        return [output(source_wire.dtype, np.array(source_wire.view(), copy=True))]
    source = elements(source_wire)
    if index.size:  # T-IS5: an empty index reads no value
        check_bounds(index, source.shape[dim], dim)  # T-IS6
    # The vendor kernel: whole slices along dim, one per index value (T-IS1, T-IS8).
    return [output(source_wire.dtype, np.take(source, index, axis=dim))]


def run(op, args, tensors):
    if op == "torch.gather":
        return gather(args, tensors)
    if op == "torch.index_select":
        return index_select(args, tensors)
    raise Unsupported("my-vendor has no kernel for " + op)


# No framework=: these are the vendor's kernels following PyTorch's documents, not torch itself.
serve("my-vendor", VENDOR_VERSION, OPS, run, operands=True)
