"""Runs PyTorch through its Python API for scatterproof: torch.gather,
Tensor.scatter_ (src / value, with or without reduce), torch.scatter,
Tensor.scatter_add_, torch.scatter_add, Tensor.scatter_reduce_,
torch.scatter_reduce, torch.index_select, Tensor.index_add_,
torch.index_add, Tensor.index_copy_, torch.index_copy, Tensor.index_fill_,
torch.index_fill, Tensor.index_reduce_, torch.index_reduce and
torch.take_along_dim, on CPU; and the backward (`<op>.backward`) of
torch.gather and of the scatter family through torch.autograd.grad.

    .venv/bin/python adapters/torch_adapter.py     (speaks backends/process/PROTOCOL.md)

The torch it finds is the venv's: scripts/setup-python.sh makes the venv
with --system-site-packages, so Debian's python3-torch (1.13, apt) serves
when the venv's base interpreter is /usr/bin/python3. Without an importable
torch the adapter answers the handshake "unavailable" with the reason.

Every operand keeps the layout it was sent with (torch.as_strided over a
copy of its whole storage), so PyTorch sees expanded, strided and offset
views as a caller would pass them, and an in-place op answers with the
whole storage it wrote into. With `--device cuda[:N]` (or `cpu`; the backend
names `torch-python@cuda`, torch_device.py) the storages are copied to that
device, the views built there the same way, and every output and operand
is copied back after the call. Nothing is checked here: errors are PyTorch's
own, mapped to a category by message (the same texts as
backends/libtorch/libtorch_errors.cc).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Row, Unsupported, WireTensor, classifier, serve, track_storage  # noqa: E402

import numpy as np  # noqa: E402  (common.py must take stdout first)

try:
    import torch
except ImportError as e:  # OSError too would mean a broken install; let it show as a crash with its stderr
    serve("torch-python", "", [], run=None,
          unavailable="torch is not importable from the venv (%s); install Debian's python3-torch "
                      "(the venv sees system site-packages)" % e)
    sys.exit(0)

from torch_device import DeviceUnavailable, describe_device, parse_device  # noqa: E402
import torch_program  # noqa: E402

# The device the operands are built on (`--device cuda:1`, the backend name's
# "@cuda:1", backends/process/process_backend.cc); None: the plain backend, cpu.
try:
    DEVICE = parse_device(sys.argv[1:])
except DeviceUnavailable as e:
    serve("torch-python", torch.__version__, [], run=None, unavailable=str(e))
    sys.exit(0)

# Each op with the arguments run() passes on to PyTorch (common.serve declines any other).
OPS = {
    "torch.gather": ["dim"],
    "torch.scatter_": ["dim", "value", "reduce"],
    "torch.scatter": ["dim", "value", "reduce"],
    "torch.scatter_add_": ["dim"],
    "torch.scatter_add": ["dim"],
    "torch.scatter_reduce_": ["dim", "reduce", "include_self"],
    "torch.scatter_reduce": ["dim", "reduce", "include_self"],
    "torch.index_select": ["dim"],
    "torch.index_add_": ["dim", "alpha"],
    "torch.index_add": ["dim", "alpha"],
    "torch.index_copy_": ["dim"],
    "torch.index_copy": ["dim"],
    "torch.index_fill_": ["dim", "value"],
    "torch.index_fill": ["dim", "value"],
    "torch.index_reduce_": ["dim", "reduce", "include_self"],
    "torch.index_reduce": ["dim", "reduce", "include_self"],
    "torch.take_along_dim": ["dim"],
}
# The backward ops (reference/op_table.h, OpSpec::backward_of): the forward's
# operands and arguments plus grad_output; answered by run_backward. Each
# maps to its differentiable operands, in the forward's operand order (the
# order of the gradients it answers).
DIFFERENTIABLE = {
    "torch.gather": ("input",),
    "torch.scatter_": ("self", "src"),
    "torch.scatter": ("self", "src"),
    "torch.scatter_add_": ("self", "src"),
    "torch.scatter_add": ("self", "src"),
    "torch.scatter_reduce_": ("self", "src"),
    "torch.scatter_reduce": ("self", "src"),
}
OPS.update({forward + ".backward": OPS[forward] for forward in DIFFERENTIABLE})

TORCH_DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
    "int64": torch.int64, "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
    "float64": torch.float64,
}
# torch.uint16/uint32/uint64 exist from torch 2.3 ("limited support" in eager mode: some kernels say "not
# implemented for 'UInt16'", unsupported_dtype); before, a case with one is unsupported (torch_tensor).
TORCH_DTYPES.update({name: getattr(torch, name) for name in ("uint16", "uint32", "uint64") if hasattr(torch, name)})
WIRE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}

# PyTorch's messages -> taxonomy, one table for every torch version: each row
# is Row(exception classes, regex searched in the text, category, since=,
# until=) (common.Row). First match among the rows that hold for the running
# torch wins (most specific first). No row has a range: every text means the
# same category in every release that prints it, and a release that does not
# print a text simply never matches it, so a range would only turn a known
# text into "unclassified" on a release nobody measured (issue 33: torch 2.11
# prints texts first measured on 2.15). A range belongs on a row only where
# the same text means different things in different releases, with the
# change cited. Samples of every text, with the releases each was seen in:
# adapters/test_classifier_samples.py. (backends/libtorch/libtorch_errors.cc has
# the same texts for the C++ backend.)
CATEGORIES = [
    # gather, scatter (RuntimeError); index_fill_, index_copy_ (IndexError); index_add_ / index_fill_
    Row((RuntimeError, IndexError), r"is out of bounds for dimension|index out of range in self",
        "index_out_of_bounds"),
    # index_select: dim >= 1, and a non-empty index into a size-0 dim
    Row(RuntimeError, r"INDICES element is out of DATA bounds|self indexing axis dim should be positive",
        "index_out_of_bounds"),
    Row(IndexError, r"Index is supposed to be a vector", "invalid_argument"),
    Row(RuntimeError, r"Expected dtype int32 or int64 for index", "index_dtype"),
    Row(IndexError, r"Dimension out of range", "dim_out_of_range"),
    # gather / scatter (1.13; 2.15 says "Expected dtype int32/int64 for index" there), index_fill_ (both)
    Row((RuntimeError, IndexError), r"Expected dtype int64 for index", "index_dtype"),
    # take_along_dim (libtorch_errors.cc has the same rows)
    Row(RuntimeError, r"dtype of indices should be Long", "index_dtype"),
    # an int32 index (taken from 2.8, T-I2) reaching a kernel path that takes only int64: scatter_add_ /
    # scatter_reduce_ with an int32 index expanded along the inner dim (2.11 and 2.15; a known deviation)
    Row(RuntimeError, r"\Aexpected scalar type Long but found Int(\n|\Z)", "index_dtype"),
    Row(RuntimeError, r"input and indices should have the same number of dimensions", "rank_mismatch"),
    # "reduce argument must be either add or multiply." / "... sum, prod, mean, amax or amin[, got Sum]"
    Row(RuntimeError, r"reduce argument must be either", "invalid_reduce"),
    Row(RuntimeError, r"Index tensor must have the same number of dimensions", "rank_mismatch"),
    # gather: "Size does not match at dimension 0 expected index [3, 1] to be smaller (2.15: no larger) than self ..."
    Row(RuntimeError, r"Size does not match at dimension", "shape_mismatch"),
    # scatter: "Expected index [1, 3] to be smaller than self [2, 2] apart from dimension 0[ and to be smaller
    # size than src [..]]"; 2.15: "Expected index [..] to be no larger than self [..] apart from dimension 0[ and
    # to be no larger size than src [..]]"
    Row(RuntimeError, r"Expected index \[.*\] to be smaller than self \[", "shape_mismatch"),
    Row(RuntimeError, r"Expected index \[.*\] to be no larger than self \[.*\] apart from dimension", "shape_mismatch"),
    Row(RuntimeError, r"Expected self\.dtype to be equal to src\.dtype", "dtype_mismatch"),
    # out= of another dtype than the result (libtorch_errors.cc has the same rows)
    Row(RuntimeError, r"Expected out tensor to have dtype|self and result must have the same scalar type",
        "dtype_mismatch"),
    Row(RuntimeError, r"refers? to a single memory location", "overlapping_output"),
    Row(RuntimeError, r"value cannot be converted to type .* without overflow", "value_out_of_range"),
    # CUDA (device="cuda": rows of the CUDA kernels' own texts, beside the CPU rows of the same rules; the texts as
    # torch 2.11.0+cu130 printed them on an H100, issue 30, and as aten/src/ATen/native/cuda/Indexing.cu writes them).
    # index_select's index dtype: the CUDA kernel dispatches on the index's dtype (AT_DISPATCH_INDEX_TYPES, int32 and
    # int64) without the CPU's "Expected dtype int32 or int64 for index" check first, so another index dtype fails
    # in the dispatch: '"index_select_out_cuda_impl" not implemented for 'Short'' (NotImplementedError). The
    # dispatch is the index's: T-IS4's index_dtype. Before the generic "not implemented" row.
    Row(RuntimeError, r"\"index_select_out_cuda_impl\" not implemented for '", "index_dtype", device="cuda"),
    # index_select with an index of rank >= 2 (T-IS3; the CPU says "Index is supposed to be a vector", an IndexError,
    # invalid_argument). The CUDA kernel raises it as a RuntimeError, before the index's dtype and bounds checks
    # (rank-before-dtype, rank-before-bounds): 23 cases unclassified in the first GPU run, 2026-11-27, issue 30.
    Row((RuntimeError, IndexError), r"Index is supposed to be an empty tensor or a vector", "invalid_argument",
        device="cuda"),
    # a floating operand of another dtype than self, refused by the CUDA kernel's accessor (index_add_ / index_copy_
    # of a float32 source into a float16 self): "expected scalar type Half but found Float" (the CPU words it
    # "self (Half) and source (Float) must have the same scalar type"); index_select of a bool input into a float16
    # out= says "expected scalar type Half but found Bool" (fuzz campaign on an H100, 2026-11-27). Floating types and
    # Bool only: "expected scalar type Long but found Int" is an index's dtype, not placed here.
    Row(RuntimeError,
        r"expected scalar type (Half|BFloat16|Float|Double|Bool) but found (Half|BFloat16|Float|Double|Bool)\b",
        "dtype_mismatch", device="cuda"),
    # A kernel's device-side assert: known, and deliberately no category. The harness names the outcome
    # device_assert itself (backends/process/supervisor.cc, reference/SEMANTICS.md DEV-A1), with the kernel's
    # file:line from stderr; the adapter's process is replaced (the CUDA context is lost).
    Row(RuntimeError, r"CUDA error: device-side assert triggered", None, device="cuda"),
    # AT_DISPATCH found no kernel for the dtype: '"scatter_gather_tensor_cpu_reduce_mean" not implemented for 'Bool''
    # (RuntimeError in 1.13, NotImplementedError, a RuntimeError, in 2.15); on CUDA the same words, with the CUDA
    # kernel's name ('"scatter_gather_kernel_cuda" not implemented for 'Bool'': scatter_reduce prod/amax/amin on bool)
    Row(RuntimeError, r"not implemented for '", "unsupported_dtype"),
    # index_add_ (libtorch_errors.cc has the same rows); gather / scatter in 2.15 too
    Row(RuntimeError, r"Expected dtype int32/int64 for index", "index_dtype"),
    Row(RuntimeError, r"\) and source \(.*must have the same scalar type", "dtype_mismatch"),
    Row(RuntimeError, r"Indexing dim .*is out of bounds of the source tensor", "shape_mismatch"),
    Row((RuntimeError, IndexError), r"Number of indices \(.*should be equal to source\.size\(dim\)", "shape_mismatch"),
    Row(IndexError, r"Dimension specified as .*but tensor has no dimensions", "shape_mismatch"),
    # take_along_dim's broadcast (both); index_add_'s broadcast of source (1.13)
    Row(RuntimeError, r"must match the size of tensor b", "shape_mismatch"),
    # index_add_ / index_reduce_ since 2.3 check source's shape first (pytorch/pytorch#114929, reference/versions.cc
    # T-IA14): "source tensor shape must match self tensor shape, excluding the specified dimension. Got
    # self.shape = [3, 4] source.shape = [2, 1]"; before, index_add_ failed in the broadcast or the select
    Row(RuntimeError, r"doesn't match the broadcast shape", "shape_mismatch"),
    Row(IndexError, r"select\(\) cannot be applied to a 0-dim tensor", "shape_mismatch"),
    Row(RuntimeError, r"must one or zero for given self\.dim\(\)", "shape_mismatch"),
    Row(RuntimeError, r"source tensor shape must match self tensor shape, excluding the specified dimension",
        "shape_mismatch"),
    Row(IndexError, r"select\(\): index .*out of range for tensor of size", "index_out_of_bounds"),
    # index_copy_ / index_fill_ (libtorch_errors.cc has the same rows)
    Row((RuntimeError, IndexError), r"Index should have dimension 1 or 0|Index has to be a vector/scalar",
        "invalid_argument"),
    Row(RuntimeError, r"Expected a long tensor for index", "index_dtype"),
    Row(RuntimeError, r"self and source expected to have the same dtype", "dtype_mismatch"),
    Row(IndexError, r"When source is scalar, index should have one element|their dimensionality must match",
        "shape_mismatch"),
    Row(RuntimeError, r"Source/destination tensor must have same slice shapes", "shape_mismatch"),
    Row(RuntimeError, r"setStorage: sizes .*are out of bounds for storage of size", "index_out_of_bounds"),
    # index_reduce_ (libtorch_errors.cc has the same row)
    Row(RuntimeError, r"Expected reduce to be one of prod, mean, amax or amin", "invalid_reduce"),
    # scatter_reduce's backward (2.15; its forward takes 'max'/'min' as 'amax'/'amin', the backward refuses them)
    Row(RuntimeError, r"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin'", "invalid_reduce"),
    # index_select of a 0-d input with an index of more than one value (SEMANTICS.md T-IS7: the call is
    # unspecified; 1.13 wrote past the 0-d out): 2.x refuses it, "index_select(): Index to scalar can have only 1
    # value, got 3 value(s)". An argument rule, as the cpu backend words and classifies the same refusal
    # (invalid_argument, backends/cpu/ops/torch_index_select.cc).
    Row(RuntimeError, r"index_select\(\): Index to scalar can have only 1 value", "invalid_argument"),
    # the same check as 2.0.1 words it (measured by scripts/version-matrix)
    Row(RuntimeError, r"index_select\(\): Index to scalar cannot have multiple values", "invalid_argument"),
    # take_along_dim: 2.15 wraps indices with indices % input.size(dim), and the integer remainder raises the bare
    # text "ZeroDivisionError" for a size-0 dim, i.e. only when the input has no element along dim, so every
    # index value is out of bounds (SEMANTICS.md T-TA6; 1.13 says "index 0 is out of bounds for dimension 1 with size
    # 0"). Anchored: the message is that one word (a C++ stack trace may follow on its own lines).
    Row(RuntimeError, r"\AZeroDivisionError(\n|\Z)", "index_out_of_bounds"),
    # take_along_dim without dim flattens input and indices with view(-1) (1.13 and 2.15), which a transposed or
    # gapped operand cannot take: "view size is not compatible with input tensor's size and stride (at least one
    # dimension spans across two contiguous subspaces). Use .reshape(...) instead." No documented error (the call
    # is valid: SEMANTICS.md T-TA8, T-TA11; a known deviation in specs/expectations/real-frameworks.json): placed
    # as a refused argument (its layout) so the verdict is a fail against the expected outputs, not unclassified.
    Row(RuntimeError, r"view size is not compatible with input tensor's size and stride", "invalid_argument"),
    # The backward ops (run_backward), autograd's own checks. A non-floating differentiable operand: "only Tensors
    # of floating point dtype can require gradients" (1.13 and 2.15; older releases said "floating point and
    # complex dtype").
    Row(RuntimeError, r"only Tensors of floating point (and complex )?dtype can require gradients",
        "unsupported_dtype"),
    # grad_output not shaped like the forward's output: "Mismatch in shape: grad_output[0] has a shape of
    # torch.Size([4]) and output[0] has a shape of torch.Size([3])."
    Row(RuntimeError, r"Mismatch in shape: grad_output\[\d+\] has a shape of", "shape_mismatch"),
    # src.shape != index.shape (002: "the backward pass is implemented only for src.shape == index.shape"): the
    # gradient of src is gathered in index's shape, which autograd refuses for src: "Function ScatterBackward0
    # returned an invalid gradient at index 1 - got [2, 2] but expected shape compatible with [2, 3]"
    Row(RuntimeError, r"returned an invalid gradient at index \d+ - got \[.*\] but expected shape compatible with",
        "shape_mismatch"),
]


# The rows of the device the ops run on (the CPU's for the plain backend and the fake device).
classify = classifier(CATEGORIES, torch.__version__,
                      device=DEVICE.type if DEVICE is not None and DEVICE.type == "cuda" else None)


# The request's storages as torch tensors, by the wire storage they copy:
# operands that share a storage (an out= over an input, "storage_of") share
# one torch storage too. Cleared per request.
_storages = {}


def storage_tensor(wire):
    """A 1-D torch tensor over a (torch-owned, so resizable) copy of the wire tensor's whole storage."""
    key = id(wire.storage)
    if wire.dtype not in TORCH_DTYPES:
        raise Unsupported("torch %s has no %s (torch has uint16/uint32/uint64 from 2.3)" % (torch.__version__,
                                                                                              wire.dtype))
    if key not in _storages:
        # Copied as raw bytes, then viewed as the dtype: a bool storage keeps
        # the harness's gap sentinels (a bool copy would normalise them to 1),
        # and bfloat16 needs no NumPy dtype.
        raw = torch.from_numpy(wire.storage.view(np.uint8)).clone()
        if DEVICE is not None and DEVICE.type != "fakecuda":
            raw = raw.to(DEVICE)  # the same bytes on the device: views over it keep their layout
        _storages[key] = raw.view(TORCH_DTYPES[wire.dtype])
        track_storage(wire, lambda t=_storages[key]: storage_array(t))  # "operands" reads it back (PROTOCOL.md)
    return _storages[key]


def as_torch(wire, storage=None):
    """The operand exactly as sent: its shape, strides and offset over its storage."""
    storage = storage_tensor(wire) if storage is None else storage
    return storage.as_strided(wire.shape, wire.strides, wire.offset)


def storage_array(tensor):
    """A 1-D torch tensor's elements as the wire's NumPy array (bfloat16: uint16 bits), copied to the host."""
    tensor = tensor.cpu()  # the tensor itself when it is on the CPU
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


def written_back(wire, storage):
    """An in-place op's answer: the whole storage it wrote, in the layout it was sent."""
    out = WireTensor.__new__(WireTensor)
    out.dtype, out.shape, out.strides, out.offset = wire.dtype, wire.shape, wire.strides, wire.offset
    out.storage = storage_array(storage).copy()
    return out


def fresh(tensor):
    """An out-of-place output as a contiguous wire tensor."""
    flat = tensor.contiguous()
    wire = WireTensor.__new__(WireTensor)
    wire.dtype, wire.shape, wire.offset = WIRE_NAMES[flat.dtype], tuple(flat.shape), 0
    wire.strides = tuple(flat.stride())
    wire.storage = storage_array(flat.reshape(-1)).copy()
    return wire


def apply_op(op, args, t):
    """The call itself, on torch tensors `t` (operand name -> tensor in its layout): the result of an
    out-of-place op, None for an in-place one (t["self"] written)."""
    if op == "torch.take_along_dim":
        # dim absent: None, the documented default (input read flattened).
        return torch.take_along_dim(t["input"], t["indices"], args.get("dim"))
    dim, index = args["dim"], t["index"]
    if op == "torch.gather":
        return torch.gather(t["input"], dim, index)
    if op == "torch.index_select":
        return torch.index_select(t["input"], dim, index)
    self_tensor = t["self"]
    # alpha absent: PyTorch's default (1), as the op table says.
    if op == "torch.index_add_":
        self_tensor.index_add_(dim, index, t["source"], alpha=args.get("alpha", 1))
    elif op == "torch.index_add":
        return torch.index_add(self_tensor, dim, index, t["source"], alpha=args.get("alpha", 1))
    elif op == "torch.index_copy_":
        self_tensor.index_copy_(dim, index, t["source"])
    elif op == "torch.index_copy":
        return torch.index_copy(self_tensor, dim, index, t["source"])
    elif op == "torch.index_fill_":
        self_tensor.index_fill_(dim, index, args["value"])
    elif op == "torch.index_fill":
        return torch.index_fill(self_tensor, dim, index, args["value"])
    # include_self absent: PyTorch's default (True), as the op table says.
    elif op == "torch.index_reduce_":
        self_tensor.index_reduce_(dim, index, t["source"], args["reduce"], include_self=args.get("include_self", True))
    elif op == "torch.index_reduce":
        return torch.index_reduce(self_tensor, dim, index, t["source"], args["reduce"],
                                  include_self=args.get("include_self", True))
    else:
        return apply_scatter(op, args, t)
    return None


def apply_scatter(op, args, t):
    """apply_op for the scatter family."""
    dim, index, self_tensor = args["dim"], t["index"], t["self"]
    operand = t["src"] if "src" in t else args["value"]
    kwargs = {"reduce": args["reduce"]} if "reduce" in args else {}
    if op == "torch.scatter_":
        self_tensor.scatter_(dim, index, operand, **kwargs)
    elif op == "torch.scatter":
        return torch.scatter(self_tensor, dim, index, operand, **kwargs)
    elif op == "torch.scatter_add_":
        self_tensor.scatter_add_(dim, index, operand)
    elif op == "torch.scatter_add":
        return torch.scatter_add(self_tensor, dim, index, operand)
    # include_self absent: PyTorch's default (True), as the op table says.
    elif op == "torch.scatter_reduce_":
        self_tensor.scatter_reduce_(dim, index, operand, args["reduce"], include_self=args.get("include_self", True))
    elif op == "torch.scatter_reduce":
        return torch.scatter_reduce(self_tensor, dim, index, operand, args["reduce"],
                                    include_self=args.get("include_self", True))
    else:
        raise ValueError("op %s was not offered in the handshake" % op)
    return None


# How run(), run_with_out() and run_backward() call their tensor-level function (`kind` "op", "out", "backward"):
# as it is; torch_compile_adapter.py replaces APPLY with one that calls it through torch.compile.
APPLY = lambda kind, function, op, args, t: function(op, args, t)  # noqa: E731


def run(op, args, tensors):
    t = {name: as_torch(wire) for name, wire in tensors.items()}
    if op == "torch.index_select" and t["input"].dim() == 0 and t["index"].numel() > 1:
        # torch 1.13 writes one element per index value into the 0-d out,
        # past its end (SEMANTICS.md T-IS7): give it room for all of them.
        source = t["input"]
        out = torch.zeros(t["index"].numel(), dtype=source.dtype, device=source.device).as_strided((), ())
        return [fresh(torch.index_select(source, args["dim"], t["index"], out=out))]
    result = APPLY("op", apply_op, op, args, t)
    if result is None:  # in place: the whole storage self was written into
        return [written_back(tensors["self"], storage_tensor(tensors["self"]))]
    return [fresh(result)]


def apply_program(_, program, t):
    """A program's steps on torch tensors (torch_program.py), each op through apply_op."""
    return torch_program.apply_steps(apply_op, program, t)


def run_program(inputs, steps, expect):
    """serve()'s run_program: the whole program in one request, through APPLY (compiled whole there)."""
    _storages.clear()
    t = {name: as_torch(wire) for name, wire in inputs.items()}
    return [fresh(r) for r in APPLY("program", apply_program, "program", {"steps": steps, "expect": expect}, t)]


def apply_with_out(op, args, t):
    """PyTorch's out= call on torch tensors: its result (t["out"] itself unless PyTorch resized it)."""
    out = t["out"]
    if op == "torch.gather":
        return torch.gather(t["input"], args["dim"], t["index"], out=out)
    if op == "torch.index_select":
        return torch.index_select(t["input"], args["dim"], t["index"], out=out)
    if op == "torch.take_along_dim":
        return torch.take_along_dim(t["input"], t["indices"], args.get("dim"), out=out)
    if op == "torch.scatter":
        src = t["src"] if "src" in t else args["value"]
        kwargs = {"reduce": args["reduce"]} if "reduce" in args else {}
        return torch.scatter(t["self"], args["dim"], t["index"], src, out=out, **kwargs)
    raise ValueError("op %s takes no out= operand" % op)


def run_with_out(op, args, tensors):
    """PyTorch's out=: the result lands in the caller's out (its layout, over
    its storage, which may be an input's); a mis-shaped out is resized by
    PyTorch and comes back as a fresh tensor."""
    out_wire = tensors["out"]
    out_storage = storage_tensor(out_wire)
    t = {name: as_torch(wire) for name, wire in tensors.items()}
    result = APPLY("out", apply_with_out, op, args, t)
    if tuple(result.shape) == out_wire.shape and result.data_ptr() == t["out"].data_ptr():
        return [written_back(out_wire, out_storage)]
    return [fresh(result)]


BACKWARD_SUFFIX = ".backward"

# autograd has no derivative for some forms of an op (scatter with reduce=:
# "derivative for aten::scatter is not implemented"). The documents define
# no gradient there either (the reference answers unspecified); it is no
# documented error, so the call is answered unsupported, as a missing kernel.
_NO_DERIVATIVE = "is not implemented"


def run_backward(op, args, tensors):
    """`<forward>.backward`: the gradients of the forward's output with
    respect to each differentiable operand the call passes (grad_<operand>,
    in operand order), as a user gets them: the operands become leaves that
    require grad, the out-of-place form of the forward runs on them (an
    in-place op's autograd runs it on a clone of self, and a leaf that
    requires grad cannot be written in place), and torch.autograd.grad
    takes the request's grad_output as it is (its layout and dtype: what
    autograd checks of it and what it casts is under test). An operand
    that does not reach the output gets zeros (allow_unused), which is its
    gradient."""
    forward = op[: -len(BACKWARD_SUFFIX)]
    # detach(): a leaf with the operand's own layout (strides, offset,
    # stride-0 expansions). A non-floating operand fails here, with
    # autograd's "only Tensors of floating point dtype can require
    # gradients", before the forward runs, as in a user's program.
    operands = {name: as_torch(tensors[name]).detach().requires_grad_(True)
                for name in DIFFERENTIABLE[forward] if name in tensors}
    leaves = list(operands.values())  # the forward's operand order (dicts keep insertion order)
    try:
        # The forward's out-of-place form (scatter_ -> scatter), as apply_op runs it (a compiled forward traces
        # its backward at once, so "no derivative" can come from here too).
        result = APPLY("backward", apply_op, forward.rstrip("_"), args,
                       dict(operands, index=as_torch(tensors["index"])))
        grads = torch.autograd.grad([result], leaves, [as_torch(tensors["grad_output"])], allow_unused=True)
    except RuntimeError as exc:
        if str(exc).startswith("derivative for ") and _NO_DERIVATIVE in str(exc):
            raise Unsupported("torch %s has no derivative for this call (%s)" % (torch.__version__, exc))
        raise
    return [fresh(torch.zeros(leaf.shape, dtype=leaf.dtype, device=leaf.device) if g is None else g) for leaf, g in zip(leaves, grads)]


def dispatch(op, args, tensors):
    if op.endswith(BACKWARD_SUFFIX):
        return run_backward(op, args, tensors)
    zero_d_select = op == "torch.index_select" and not tensors["input"].shape and tensors["index"].view().size > 1
    if "out" in tensors and not zero_d_select:  # T-IS7: run() gives torch room; the call is unspecified
        return run_with_out(op, args, tensors)
    return run(op, args, tensors)


def run_request(op, args, tensors):
    _storages.clear()
    if DEVICE is not None and DEVICE.type == "fakecuda":
        return run_on_fake_device(op, args, tensors)
    try:
        return dispatch(op, args, tensors)
    finally:
        # A kernel's error (a device-side assert) is reported asynchronously:
        # wait for this call's kernels so it surfaces in this call's answer,
        # never in a later one's. It replaces a host-side error in flight.
        if DEVICE is not None and DEVICE.type == "cuda":
            torch.cuda.synchronize(DEVICE)


def run_on_fake_device(op, args, tensors):
    """torch_device.FakeCuda: the CPU's answer, except that an index value
    the CPU refuses as out of bounds is a device-side assert."""
    DEVICE.check_alive()
    try:
        return dispatch(op, args, tensors)
    except Exception as exc:
        if classify(exc) == "index_out_of_bounds":
            DEVICE.kernel_assert(op)
        raise


if __name__ == "__main__":  # torch_compile_adapter.py imports this module for its functions and serves itself
    torch.set_num_threads(1)  # one case at a time; keeps the adapter light next to the harness
    serve("torch-python", torch.__version__ + describe_device(DEVICE), OPS, run_request, classify, shared_storage=True,
          takes_out=True, framework=("torch", torch.__version__), operands=True,
          device=None if DEVICE is None or DEVICE.type == "cpu" else DEVICE, run_program=run_program)
