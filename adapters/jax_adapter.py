"""JAX's lax.gather / lax.scatter* as an implementation of the StableHLO dialect:
each stablehlo.* request becomes one lax call with the case's dimension numbers,
run by jaxlib's XLA on the CPU.

    .venv-current/bin/python adapters/jax_adapter.py   (backends/process/PROTOCOL.md)

Verified with jax / jaxlib 0.10.2 (.venv-current). The calls use
mode=PROMISE_IN_BOUNDS: JAX then adds no index arithmetic of its own and XLA's
own gather / scatter run (JAX's docs, lax.GatherScatterMode: "out-of-bounds
gathers will be clamped but out-of-bounds scatters will be discarded"); the
clip / fill modes are JAX's layer over them (docs/stablehlo.md). lax takes the
index vector in the last dim of the indices, so a case's index_vector_dim is
moved there (a transpose; index_vector_dim = rank adds a trailing 1), with the
batching dims renumbered: the same start vectors in the same batch order.
dynamic_gather's slice_sizes operand is read into lax.gather's static
slice_sizes (the operands are concrete here). x64 is enabled (int64 / float64
kept); bfloat16 travels as bits (ml_dtypes).

The jax.lax.gather / jax.lax.scatter ops are lax's calls as a user makes them:
lax's own dimension numbers (the index vector last), the case's mode and
fill_value passed as given (absent: None, so lax's own defaults apply). The
jax.at.* ops are x.at[tuple(indices[..., j] for j in range(k))].get / set /
add / multiply / min / max with the case's keyword arguments.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Row, Unsupported, classifier, encode_array, serve  # noqa: E402  (before the framework)

try:
    import jax
    import ml_dtypes
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
except ImportError as exc:
    serve("jax", "", {}, None, unavailable="jax cannot be imported: %s" % exc)
    raise SystemExit(0)

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

GATHER_ARGS = ["offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
               "start_index_map", "index_vector_dim", "slice_sizes", "indices_are_sorted"]
SCATTER_ARGS = ["update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
                "scatter_dims_to_operand_dims", "index_vector_dim", "indices_are_sorted", "unique_indices",
                "update_computation"]
LAX_GATHER_ARGS = ["offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
                   "start_index_map", "slice_sizes", "indices_are_sorted", "unique_indices", "mode", "fill_value"]
LAX_SCATTER_ARGS = ["update_window_dims", "inserted_window_dims", "operand_batching_dims",
                    "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "indices_are_sorted",
                    "unique_indices", "mode", "update_computation"]
AT_ARGS = ["indices_are_sorted", "unique_indices", "mode", "wrap_negative_indices"]
AT_METHODS = ["set", "add", "multiply", "min", "max"]
OPS = {"jax.at.get": AT_ARGS + ["fill_value"], **{"jax.at." + m: AT_ARGS for m in AT_METHODS},
       "stablehlo.gather": GATHER_ARGS, "stablehlo.dynamic_gather": GATHER_ARGS, "stablehlo.scatter": SCATTER_ARGS,
       "jax.lax.gather": LAX_GATHER_ARGS, "jax.lax.scatter": LAX_SCATTER_ARGS}
SCATTERS = {"replace": lax.scatter, "add": lax.scatter_add, "multiply": lax.scatter_mul, "minimum": lax.scatter_min,
            "maximum": lax.scatter_max}

# lax's shape rules (jax/_src/lax/slicing.py) raise TypeError / ValueError
# with these texts (measured on jax 0.10.2).
CATEGORIES = [
    Row(TypeError, r"^(Gather|Scatter) index leaf dimension must be within \[0, rank\(indices\) \+ 1\)",
        "invalid_argument"),
    Row(ValueError, r"^Unknown gather mode", "invalid_argument"),
    Row(TypeError, r"^Gather op must have one slice size for every input dimension", "shape_mismatch"),
    Row(TypeError, r"^Indexer must have integer type", "index_dtype"),
    Row(IndexError, r"^Too many indices", "invalid_argument"),
    Row(IndexError, r"^index is out of bounds for axis \d+ with size 0", "index_out_of_bounds"),
    # x.at[] with a signed index dtype narrower than an indexed axis: jnp wraps negatives as i + dim in
    # the index dtype, and dim does not fit (JAX-AT6; "Python integer 40000 out of bounds for int16").
    Row(OverflowError, r"^Python integer -?\d+ out of bounds for int\d+", "index_dtype"),
    Row(ValueError, r"^Incompatible types for broadcasting", "shape_mismatch"),
    Row((TypeError, ValueError), r"indices must have an integer type", "index_dtype"),
    Row(TypeError, r"must have the same dtype|does not accept dtype", "dtype_mismatch"),
    Row(TypeError, r"^Gather op can only collapse slice dims with bound 1", "invalid_argument"),
    Row(TypeError, r"^dynamic_gather: slice_sizes must be a 1-D integer tensor", "invalid_argument"),
    Row(TypeError, r"^Scatter op has \d+ elements in scatter_dims_to_operand_dims and the bound of dimension",
        "shape_mismatch"),
    Row(TypeError, r"^Gather op has \d+ elements in start_index_map and the bound of dimension index_vector_dim",
        "shape_mismatch"),
    Row(TypeError, r"^Bounds of the scatter dimensions of updates must be the same as the bounds", "shape_mismatch"),
    Row(TypeError, r"^Updates tensor must be of rank \d+", "shape_mismatch"),
    Row(TypeError, r"^Invalid (inserted_window_dims|update_window_dims|scatter_dims_to_operand_dims|"
        r"collapsed_slice_dims|offset_dims|start_index_map)[a-z_ ]* set in (scatter|gather) op; valid range",
        "dim_out_of_range"),
    Row((TypeError, ValueError), r"must be in bounds|out of bounds for (operand|updates|start_indices)|"
        r"is out of bounds|must be a valid dimension", "dim_out_of_range"),
    Row((TypeError, ValueError), r"must be sorted|must not repeat|must be unique|duplicate|must either be|"
        r"must have the same|length of|len\(", "invalid_argument"),
    Row((TypeError, ValueError), r"slice size|slice_sizes|Bounds of the window|must be less than or equal to|"
        r"shape|must match", "shape_mismatch"),
]


def array(wire):
    if wire.dtype == "bfloat16":
        return np.ascontiguousarray(wire.view()).reshape(wire.shape).view(ml_dtypes.bfloat16)
    return wire.array()


def index_vector_last(indices, ivd, batching):
    """lax's indices (the index vector last) and the batching dims renumbered."""
    if ivd < 0 or ivd > indices.ndim:
        raise ValueError("index_vector_dim %d must be a valid dimension of the indices (rank %d)" % (ivd, indices.ndim))
    if ivd == indices.ndim:
        return indices[..., None], list(batching)
    perm = [a for a in range(indices.ndim) if a != ivd] + [ivd]
    return np.transpose(indices, perm), [perm.index(d) if 0 <= d < indices.ndim else d for d in batching]


def result(out):
    """The output as a wire tensor: bfloat16 as its bits (int16 carries them: uint16 is a dtype of its own)."""
    out = np.asarray(out)
    bf16 = out.dtype == ml_dtypes.bfloat16
    wire = encode_array(out.view(np.int16) if bf16 else out)
    if bf16:
        wire["dtype"] = "bfloat16"
    return wire


def gather(op, args, tensors):
    operand = array(tensors["operand"])
    slice_sizes = args.get("slice_sizes")
    if op == "stablehlo.dynamic_gather":
        sizes = tensors["slice_sizes"].array()
        if sizes.ndim != 1 or sizes.dtype.kind not in "iu":  # lax's slice_sizes are static ints
            raise TypeError("dynamic_gather: slice_sizes must be a 1-D integer tensor, got %s %s" % (sizes.dtype,
                                                                                               sizes.shape))
        slice_sizes = [int(v) for v in sizes]
    indices, batching = index_vector_last(tensors["start_indices"].array(), args.get("index_vector_dim", 0),
                                          args.get("start_indices_batching_dims", []))
    dims = lax.GatherDimensionNumbers(offset_dims=tuple(args.get("offset_dims", [])),
                                      collapsed_slice_dims=tuple(args.get("collapsed_slice_dims", [])),
                                      start_index_map=tuple(args.get("start_index_map", [])),
                                      operand_batching_dims=tuple(args.get("operand_batching_dims", [])),
                                      start_indices_batching_dims=tuple(batching))
    return [result(lax.gather(operand, indices, dims, tuple(slice_sizes),
                              indices_are_sorted=args.get("indices_are_sorted", False),
                              mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS))]


def scatter(args, tensors):
    kind = args["update_computation"]
    if kind not in SCATTERS:
        raise Unsupported("lax has no scatter with update computation %r" % kind)
    indices, batching = index_vector_last(tensors["scatter_indices"].array(), args.get("index_vector_dim", 0),
                                          args.get("scatter_indices_batching_dims", []))
    dims = lax.ScatterDimensionNumbers(update_window_dims=tuple(args.get("update_window_dims", [])),
                                       inserted_window_dims=tuple(args.get("inserted_window_dims", [])),
                                       scatter_dims_to_operand_dims=tuple(args.get("scatter_dims_to_operand_dims", [])),
                                       operand_batching_dims=tuple(args.get("input_batching_dims", [])),
                                       scatter_indices_batching_dims=tuple(batching))
    inputs, updates = array(tensors["inputs"]), array(tensors["updates"])
    if inputs.dtype != updates.dtype:
        raise TypeError("scatter: updates must have the same dtype as the operand, got %s and %s"
                        % (updates.dtype, inputs.dtype))
    return [result(SCATTERS[kind](inputs, indices, updates, dims,
                                  indices_are_sorted=args.get("indices_are_sorted", False),
                                  unique_indices=args.get("unique_indices", False),
                                  mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS))]


def lax_gather(args, tensors):
    """jax.lax.gather as the user calls it: lax's dimension numbers, mode (absent: mode=None) and fill_value
    (absent: None, lax's per-dtype default)."""
    dims = lax.GatherDimensionNumbers(offset_dims=tuple(args.get("offset_dims", [])),
                                      collapsed_slice_dims=tuple(args.get("collapsed_slice_dims", [])),
                                      start_index_map=tuple(args.get("start_index_map", [])),
                                      operand_batching_dims=tuple(args.get("operand_batching_dims", [])),
                                      start_indices_batching_dims=tuple(args.get("start_indices_batching_dims", [])))
    return [result(lax.gather(array(tensors["operand"]), array(tensors["start_indices"]), dims,
                              tuple(args["slice_sizes"]), indices_are_sorted=args.get("indices_are_sorted", False),
                              unique_indices=args.get("unique_indices", False), mode=args.get("mode"),
                              fill_value=args.get("fill_value")))]


def lax_scatter(args, tensors):
    """jax.lax.scatter / scatter_add / scatter_mul / scatter_min / scatter_max (update_computation, absent:
    replace) with lax's dimension numbers and mode (absent: mode=None)."""
    dims = lax.ScatterDimensionNumbers(update_window_dims=tuple(args.get("update_window_dims", [])),
                                       inserted_window_dims=tuple(args.get("inserted_window_dims", [])),
                                       scatter_dims_to_operand_dims=tuple(args.get("scatter_dims_to_operand_dims", [])),
                                       operand_batching_dims=tuple(args.get("operand_batching_dims", [])),
                                       scatter_indices_batching_dims=tuple(args.get("scatter_indices_batching_dims",
                                                                                    [])))
    operand, updates = array(tensors["operand"]), array(tensors["updates"])
    if operand.dtype != updates.dtype:
        raise TypeError("scatter: updates must have the same dtype as the operand, got %s and %s"
                        % (updates.dtype, operand.dtype))
    kind = args.get("update_computation", "replace")
    if kind not in SCATTERS:
        raise Unsupported("lax has no scatter with update computation %r" % kind)
    return [result(SCATTERS[kind](operand, array(tensors["scatter_indices"]), updates, dims,
                                  indices_are_sorted=args.get("indices_are_sorted", False),
                                  unique_indices=args.get("unique_indices", False), mode=args.get("mode")))]


def at(op, args, tensors):
    """x.at[idx].<method>(...) with idx = tuple(indices[..., j] for j in range(k)): integer arrays, so a bool
    indices tensor (a mask, another indexing) is refused here as lax would refuse a float one."""
    if tensors["indices"].dtype not in ("uint8", "int8", "int16", "int32", "int64"):
        raise TypeError("Indexer must have integer type, got indexer with type %s" % tensors["indices"].dtype)
    indices = tensors["indices"].array()
    if indices.ndim < 1 or (indices.shape[-1] == 0 and indices.ndim > 1):
        raise IndexError("Too many indices: no index arrays to carry the batch of indices of shape %s"
                         % (indices.shape,))
    ref = jnp.asarray(array(tensors["x"])).at[tuple(indices[..., j] for j in range(indices.shape[-1]))]
    kwargs = {name: args[name] for name in AT_ARGS if name in args}
    if op == "jax.at.get":
        return [result(ref.get(fill_value=args.get("fill_value"), **kwargs))]
    return [result(getattr(ref, op[len("jax.at."):])(array(tensors["updates"]), **kwargs))]


def run(op, args, tensors):
    if op.startswith("jax.at."):
        return at(op, args, tensors)
    if op == "jax.lax.gather":
        return lax_gather(args, tensors)
    if op == "jax.lax.scatter":
        return lax_scatter(args, tensors)
    if op == "stablehlo.scatter":
        return scatter(args, tensors)
    return gather(op, args, tensors)


serve("jax", jax.__version__, OPS, run, classifier(CATEGORIES, jax.__version__, re.IGNORECASE))
