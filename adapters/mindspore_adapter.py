"""Runs the real MindSpore (CPU build) for scatterproof: mindspore.Tensor.scatter_
and its backward (mindspore.scatter_.backward, run_backward), the ND and element-wise
index ops, and the backward of ops.gather_elements, ops.tensor_scatter_elements, mint.scatter and
mint.scatter_add (gather_elements_backward, tensor_scatter_elements_backward, mint_scatter_backward).

    .venv/bin/python adapters/mindspore_adapter.py     (speaks backends/process/PROTOCOL.md)

Each request calls the documented API first, exactly as the case writes it:
self.scatter_(dim, index, src | value, reduce=...). MindSpore's CPU build
validates the arguments but has no kernel for it (InplaceScatterSrc /
InplaceScatterValue "unregistered"; Ascend only). Only then does the adapter
run the CPU kernel of the src overloads, ops.tensor_scatter_elements, and
write its result into self's storage; modes without a CPU kernel are
reported unsupported. The handshake's version string says so.

Nothing is checked here before MindSpore sees it; errors are MindSpore's
own, mapped to a category by their message (classify; where the CPU kernel
only says "resize failed", by the reason it logged, which with_kernel_log
reads from MindSpore's C++ log). Layout cases whose
self aliases itself (stride 0) cannot be built from host arrays and are
reported unsupported.

Every response carries the operands as the call left them ("operands",
PROTOCOL.md): MindSpore runs on tensors built from copies of the wire
arrays, each registered with track_values and read back from MindSpore
after the call, errors included. Self is the tensor Tensor.scatter_ was
called on, then handed to the CPU kernel; when the kernel's result is
written back, that result is what the call left in self.
"""
import os
import re
import sys
import tempfile

os.environ.setdefault("GLOG_v", "3")  # MindSpore logs warnings at import; errors only
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Row, Unsupported, classifier, serve, track_values  # noqa: E402

try:
    import mindspore
    from mindspore import Tensor, ops
except ImportError as e:
    serve("mindspore", "", [], run=None, unavailable="mindspore is not importable (%s); run scripts/setup-python.sh" % e)
    sys.exit(0)

mindspore.set_device("CPU")
# PyNative runs kernels asynchronously by default: a kernel's error then
# surfaces at a later, unrelated sync point (and again at the next one), so
# one failing case would poison the following ones. Block on every launch.
mindspore.runtime.launch_blocking()

# MindSpore's messages -> taxonomy: one table of Row(exception classes,
# regex, category, since=, until=) (common.Row; the range of MindSpore
# versions printing the text, open when omitted: every row was measured on
# MindSpore 2.10.0, the one version run so far). First match among the rows
# that hold for the running MindSpore wins. Samples of every text:
# adapters/test_classifier_samples.py. MindSpore 2.10's Tensor.scatter_ checks
# only reduce before it finds no CPU kernel; the other texts are those of
# the CPU kernel run instead (ops.tensor_scatter_elements).
CATEGORIES = [
    # The CPU kernel's Resize refuses the call with "Framework Unexpected Exception ... CPU kernel op
    # [Default/TensorScatterElements-op5] resize failed" and logs why; with_kernel_log() puts the logged reason
    # first: "For 'TensorScatterElements', the 'axis' should be less than input dims and greater than or equal
    # 0, but got 2, while input dims is: 2" (dim 2 and -3 on a rank-2 self: -3 arrives as -1)
    Row(RuntimeError, r"For 'TensorScatterElements', the 'axis' should be less than input dims", "dim_out_of_range"),
    # "... the indices dims should be less than input dims, but got indices dim is: 3 at axis: 1, while input dim
    # is:2" (index larger than self apart from dim)
    Row(RuntimeError, r"For 'TensorScatterElements', the indices dims should be less than input dims",
        "shape_mismatch"),
    # "... the shape of 'indices' and the shape of 'updates' should be same, but got indices shape: [const
    # vector]{3, 1}; updates shape: [const vector]{3, 2}." (the kernel wants src's shape to be index's)
    Row(RuntimeError, r"For 'TensorScatterElements', the shape of 'indices' and the shape of 'updates' should be same",
        "shape_mismatch"),
    # The backward (run_backward) differentiates the CPU kernel through GatherD, which refuses an index value the
    # forward kernel took: "For 'GatherD', the value of 'index' must be in [-4, 4), but got: 4" (MS-B1's range
    # [-s, s); the call is unspecified there, an error is allowed and is this one)
    Row(RuntimeError, r"For 'GatherD', the value of 'index' must be in \[", "index_out_of_bounds"),
    # mindspore.vjp refuses a grad_output (its "sens") of another rank than the output's: "For grad interface or
    # custom function, grad tensor should be broadcast to expected shape, but got [const vector]{} vs [const
    # vector]{1}" (MS-GR3: grad_output has the output's shape)
    Row(RuntimeError, r"grad tensor should be broadcast to expected shape", "shape_mismatch"),
    # The element-wise index ops (ops.gather_elements's GatherD, ops.gather's Gather, mint.scatter's Scatter,
    # mint.scatter_add's ScatterAddExt), measured on MindSpore 2.10.0; before the rows below: their InferShape
    # texts end in a C++ call stack naming "InferShape" (the last row would read it as a shape rule), and the
    # kernel's logged reasons come with "Framework Unexpected Exception" (the None row).
    Row(RuntimeError, r"For 'Gather', the 'input_indices' should be in the range \[", "index_out_of_bounds"),
    # a float or int8 input_indices: no CPU kernel takes that index dtype ("Select CPU operator[Gather] fail!
    # Unsupported data type! The supported data types are input[UInt8 Int32 Int64 Int64] ...")
    Row(TypeError, r"Select CPU operator\[Gather\] fail! Unsupported data type", "index_dtype"),
    Row(ValueError, r"For primitive\[Gather\], the axis must be in \[", "dim_out_of_range"),
    Row(ValueError, r"For primitive\[Gather\], the batch_dims must be in \[", "invalid_argument"),
    Row(ValueError, r"For primitive\[Gather\], the axis must be greater than or equal to", "invalid_argument"),
    Row(RuntimeError, r"For 'Gather', params.shape\[\d+\] should be equal to indices.shape", "shape_mismatch"),
    # batch_dims above the rank of input_indices (MS-G4), and a batch_dims below -rank (wrapped, still negative)
    Row(ValueError, r"For primitive\[Gather\], the indices shape size must be greater than or equal to",
        "invalid_argument"),
    Row(RuntimeError, r"The int64_t value\(-\d+\) is less than 0", "invalid_argument"),
    Row(RuntimeError, r"For 'Gather', the dimension of 'input_params' should be \d+D or lower", "rank_limit"),
    Row(ValueError, r"For primitive\[GatherD\], the x_rank must be equal to", "rank_mismatch"),
    Row(ValueError, r"For primitive\[GatherD\], the dim value must be in \[", "dim_out_of_range"),
    # gather_elements' backward (GatherDGradV2) refuses the 0-d index the forward read as shape [1]: "For
    # 'GatherDGradV2', the dimension of grad and output must be the equal to the dimension of index: 0, but got
    # the dimension of grad: 0, the dimension of input/output: 1" (MS-GE4: index has input's rank)
    Row(ValueError, r"For 'GatherDGradV2', the dimension of grad and output must be the equal to the dimension of",
        "rank_mismatch"),
    # ops.tensor_scatter_elements' reduction enum also takes 'multiply' (and any case: 'None', 'ADD'); the
    # kernel then fails at launch ("Launch kernel failed, name:Default/TensorScatterElements-op0") and logs why
    Row(RuntimeError, r"For 'TensorScatterElements', reduce_type: \d+ not support now", "invalid_reduce"),
    # mint.scatter runs Scatter with a tensor src, ScatterValue with a float one
    Row(RuntimeError, r"For 'Scatter(Value)?', the 'dim' should be less than input dims", "dim_out_of_range"),
    Row(RuntimeError, r"For 'Scatter', the shape of 'index' and the shape of 'src' should be same", "shape_mismatch"),
    Row(RuntimeError, r"For 'Scatter(Value)?', the dimension of 'input' should be greater than or equal to 1",
        "rank_mismatch"),
    Row(RuntimeError, r"For 'Scatter(Value)?', the indices dims should be less than input dims", "shape_mismatch"),
    # an empty index or src: MindSpore's own argument rule, no page states it
    Row(RuntimeError, r"For Scatter(Value)?, \[input\]( or \[src\])? got empty tensor, which is not allowed",
        "invalid_argument"),
    Row(ValueError, r"For primitive\[ScatterAddExt\], the dim must be in \[", "dim_out_of_range"),
    # a rank-0 input, index or src (MS-MSA2: rank >= 1), as TensorScatterElements' "dims must be greater than 1"
    Row(ValueError, r"For ScatterAddExt, dimension size of 'input', 'index' and 'src' must be greater than or equal to 1",
        "rank_mismatch"),
    # a float index (Scatter); an input dtype the float-src kernel lacks, int64 among them (ScatterValue)
    Row(TypeError, r"Select CPU operator\[Scatter\] fail! Unsupported data type", "index_dtype"),
    Row(TypeError, r"Select CPU operator\[ScatterValue\] fail! Unsupported data type", "unsupported_dtype"),
    # "Framework Unexpected Exception" with no logged reason is MindSpore saying it failed internally: that is no
    # documented error, so it stays without a category.
    Row(RuntimeError, r"Framework Unexpected Exception", None),
    # ops.tensor_scatter_* (ND, MS-TS*): the CPU kernel's index check, "For 'TensorScatterAdd', the 0-th value of
    # 'indices'[0, 3] is out of range[2, 3]." (add, sub, mul, div, max, min; MS-TS8)
    Row(RuntimeError, r"value of 'indices'.* is out of range", "index_out_of_bounds"),
    # ops.tensor_scatter_update: "For 'TensorScatterUpdate', indices out of range for input_x. Please check the
    # indices which is [const vector]{2, 0}" (a first component >= its size; MS-TS8)
    Row(ValueError, r"indices out of range for input_x", "index_out_of_bounds"),
    # "For TensorScatterAdd, the dimension of 'indices' cannot be less than 2,  but got 1" (MS-TS3)
    Row(ValueError, r"the dimension of 'indices' cannot be less than 2", "invalid_argument"),
    # "For TensorScatterAdd, the last dimension of 'indices' must be less than or equal to the dimension of
    # 'input_x', but got ..." (MS-TS4)
    Row(ValueError, r"the last dimension of 'indices' must be less than or equal", "shape_mismatch"),
    # "For TensorScatterAdd, input_x_type cannot be bool." (MS-TS7: unspecified; a refusal is one outcome)
    Row(TypeError, r"input_x_type cannot be bool", "unsupported_dtype"),
    # "For primitive[TensorScatterSub], the input argument[input_x] must be a type of {Tensor[BFloat16], ...}, but
    # got Tensor[Bool]." (no kernel for input_x's dtype)
    Row(TypeError, r"the input argument\[input_x\] must be a type of", "unsupported_dtype"),
    # "For TensorScatterAdd, input_x_type must equal to updates type, but got input_x_type: Float32, updates_type:
    # Float64." (MS-TS5)
    Row(TypeError, r"input_x_type must equal to updates type", "dtype_mismatch"),
    # ops.gather_nd: "For 'GatherNd', the indices[0]: [const vector]{0, 3}, does not index into input_shape: [const
    # vector]{2, 3}." (a value outside [0, s), negatives too: MS-GND5, unspecified)
    Row(RuntimeError, r"For 'GatherNd', the indices\[\d+\]: .* does not index into input_shape", "index_out_of_bounds"),
    # "For primitive[GatherNd], the In GatherNd, the input of indices data must be greater than or equal to 3, but
    # got 2." (indices.shape[-1] 3 on a rank-2 input_x: MS-GND4)
    Row(ValueError, r"In GatherNd, the input of indices data must be greater than or equal to", "shape_mismatch"),
    # "Kernel select failed: Select CPU operator[GatherNd] fail! Unsupported data type! The supported data types are
    # input[Float16 Int32], ..." (GatherNd's CPU kernels take every input_x dtype with int32 / int64 indices: the
    # indices' dtype is the one refused; MS-GND2)
    Row(TypeError, r"Select CPU operator\[GatherNd\] fail! Unsupported data type", "index_dtype"),
    # ops.scatter_nd: "For 'ScatterNd', each element in 'indices' should be smaller than the value of shape, but got
    # 3 and got the value of shape 3" and "each element in 'indice' must be greater than or equal to 0, but got -1"
    # (MS-SND8, unspecified)
    Row(RuntimeError, r"For 'ScatterNd', each element in 'indices?' (should be smaller|must be greater)",
        "index_out_of_bounds"),
    # "For 'ScatterNd', the input [shape] should be a tuple with all positive item. But got: { 2, 0 }" (MS-SND5)
    Row(ValueError, r"For 'ScatterNd', the input \[shape\] should be a tuple with all positive item", "invalid_argument"),
    # "For primitive[ScatterNd], the rank(indices) must be greater than or equal to 2, but got 1." (MS-SND3)
    Row(ValueError, r"the rank\(indices\) must be greater than or equal to 2", "invalid_argument"),
    # "Select CPU operator[ScatterNd] fail! Unsupported data type! The supported data types are input[Int16 Float64
    # Int32], ..." (updates of bool, uint8, int8, int16, int32, int64, float16, float32, float64 measured to have
    # kernels with int32 indices: the indices' dtype is the one refused; MS-SND2)
    Row(TypeError, r"Select CPU operator\[ScatterNd\] fail! Unsupported data type", "index_dtype"),
    # Tensor.scatter_: 'Failed to convert the value "mean" of input 'reduce' of 'scatter_' to enum.'
    Row(ValueError, r"reduce", "invalid_reduce"),
    # "For primitive[TensorScatterElements], the input argument[indices type] must be a type of {Tensor[Int32],
    # Tensor[Int64]}, but got Tensor[Float32]."
    Row(TypeError, r"(indices|index).*(int32|int64|type)", "index_dtype"),
    # "For 'TensorScatterElements', the dimension of 'input_x', 'indice' and 'update' should be same, ..."
    Row(ValueError, r"(dimension|rank|ndim) of .*(should|must) be (the )?same", "rank_mismatch"),
    # "For primitive[TensorScatterElements], the input type must be same."
    Row(TypeError, r"type must be (the )?same|(dtype|data type).*(same|equal|match)", "dtype_mismatch"),
    # "For TensorScatterElements, 'input_x_shape', 'indices_shape' and 'updates_shape' dims must be greater than 1.
    # but got input_x_shape:[const vector]{}, ..." (a rank-0 self, index or src): a rule on the operands' number
    # of dimensions (rank >= 1), so rank_mismatch, as ONNX-SE3's "rank r >= 1" (MS-S1: a rank-0 index or src
    # beside a rank-1 self)
    Row(ValueError, r"'updates_shape' dims must be greater than", "rank_mismatch"),
    Row(ValueError, r"shape|\bsize", "shape_mismatch"),
    # The backward (run_backward): mindspore.vjp refuses a grad_output (its "sens") not shaped or typed like the
    # output: "The shape should be [const vector]{2, 3}, but got [const vector]{1, 3}, , sens gradient abs
    # AbstractTensor(...)" (ValueError, the "shape" row below) and "The dtype should be Float32, but got Float64, ,
    # sens gradient abs AbstractTensor(...)" (TypeError).
    Row(TypeError, r"The dtype should be \w+, but got \w+, , sens gradient", "dtype_mismatch"),
    # No row for a dim out of range from Tensor.scatter_ itself, an index out of bounds or a rank above 8: MindSpore
    # 2.10 prints none (scatter_ finds no CPU kernel first; the CPU kernel takes an out-of-range index and a rank-9
    # self without error).
]


classify = classifier(CATEGORIES, mindspore.__version__, re.IGNORECASE)


def no_cpu_kernel(exc):
    return isinstance(exc, RuntimeError) and "unregistered" in str(exc)


BACKWARD = "mindspore.scatter_.backward"


def run(op, args, tensors):
    if op in ELEMENT_OPS:
        return ELEMENT_OPS[op](args, tensors)
    if op == BACKWARD:
        return run_backward(args, tensors)
    if op in ND_OPS:
        return run_nd(op, args, tensors)
    if op != "mindspore.scatter_":
        raise Unsupported("the mindspore adapter runs mindspore.scatter_ only")
    self_wire = tensors["self"]
    if self_wire.has_internal_overlap():
        raise Unsupported("an overlapping (stride-0) self cannot be built as a MindSpore tensor from host memory")
    index = tracked(tensors["index"])
    operand = tracked(tensors["src"]) if "src" in tensors else args["value"]
    kwargs = {"reduce": args["reduce"]} if "reduce" in args else {}
    # self as the call leaves it: the tensor scatter_ writes in place, or
    # the CPU kernel's result once it is written back.
    self_state = {"tensor": Tensor(self_wire.array())}
    track_values(self_wire, lambda: self_state["tensor"].asnumpy().reshape(self_wire.shape))
    try:
        # The documented API, as written: MindSpore validates dim, reduce,
        # dtypes and shapes here before it looks for a kernel.
        result = self_state["tensor"].scatter_(args["dim"], index, operand, **kwargs)
    except RuntimeError as exc:
        if not no_cpu_kernel(exc):
            raise
        result = run_on_cpu_kernel(self_state["tensor"], args, index, operand)
    self_state["tensor"] = result
    return [self_wire.with_values(result.asnumpy())]


def tracked(wire):
    """A MindSpore tensor of the operand's elements (a fresh copy:
    Tensor(ndarray) may share the array's memory), read back after the call
    for the response's "operands"."""
    tensor = Tensor(wire.array())
    track_values(wire, lambda: tensor.asnumpy().reshape(wire.shape))
    return tensor


def run_on_cpu_kernel(self_tensor, args, index, operand):
    """Tensor.scatter_ passed MindSpore's checks but has no CPU kernel: run the
    same scatter through ops.tensor_scatter_elements, the CPU kernel of the
    src overloads. Tensor.scatter (the out-of-place twin) is not used: on
    the 2.10 CPU build it caches its kernel per shape/dtype and reuses the
    reduce mode of the first call for every later one, so its answers
    depend on earlier cases."""
    if "src" not in args and not isinstance(operand, Tensor):
        raise Unsupported("the value overloads have no CPU kernel (InplaceScatterValue unregistered; MindSpore 2.10's "
                          "documentation dropped them after 2.9) and Tensor.scatter's value kernel is not reproducible "
                          "on CPU (reuses a cached reduce mode)")
    reduce = args.get("reduce")
    if reduce is None:
        reduction = "none"
    elif reduce.lower() == "add":
        reduction = "add"
    else:
        raise Unsupported("reduce=%r: the CPU kernel (TensorScatterElements) supports none/add only "
                          "('reduce_type: 2 not support now')" % reduce)
    return with_kernel_log(lambda: ops.tensor_scatter_elements(self_tensor, index, operand, args["dim"], reduction))


def run_backward(args, tensors):
    """mindspore.scatter_.backward: grad_self, and grad_src with a tensor
    src, as a user gets them from MindSpore's grad API. The documented call
    runs first, as in run() (Tensor.scatter_ validates its arguments, then
    finds no CPU kernel); then mindspore.vjp differentiates the CPU kernel
    of the src overloads, ops.tensor_scatter_elements, with respect to self
    and src, and applies the request's grad_output as it is (its dtype and
    shape: what vjp checks of them is under test). Non-floating operands
    are passed as they are: MindSpore does not refuse them."""
    index = tracked(tensors["index"])
    operand = tracked(tensors["src"]) if "src" in tensors else args["value"]
    self_tensor = tracked(tensors["self"])  # only read: a backward writes no operand
    grad_output = tracked(tensors["grad_output"])
    kwargs = {"reduce": args["reduce"]} if "reduce" in args else {}
    try:
        # On a copy of self: the validation call must not write self.
        Tensor(tensors["self"].array()).scatter_(args["dim"], index, operand, **kwargs)
    except RuntimeError as exc:
        if not no_cpu_kernel(exc):
            raise
    if "src" not in tensors:
        raise Unsupported("the value overloads have no CPU kernel (InplaceScatterValue unregistered) to differentiate")
    reduce = args.get("reduce")
    if reduce is not None and reduce.lower() != "add":
        raise Unsupported("reduce=%r: the CPU kernel (TensorScatterElements) supports none/add only" % reduce)
    reduction = "none" if reduce is None else "add"

    def forward(self_t, src_t):
        return ops.tensor_scatter_elements(self_t, index, src_t, args["dim"], reduction)

    def gradients():
        _, vjp_fn = mindspore.vjp(forward, self_tensor, operand)
        return [g.asnumpy() for g in vjp_fn(grad_output)]

    return with_kernel_log(gradients)  # fresh contiguous arrays: grad_self, grad_src


# The ND ops: the documented function of each op id (mindspore.ops.<name>), called with the operands in
# order. ops.tensor_scatter_update is an instance of the primitive TensorScatterUpdate (its documentation page).
ND_OPS = {"mindspore.tensor_scatter_" + f: ("tensor_scatter_" + f, ("input_x", "indices", "updates"))
          for f in ("update", "add", "sub", "mul", "div", "max", "min")}
ND_OPS["mindspore.gather_nd"] = ("gather_nd", ("input_x", "indices"))
ND_OPS["mindspore.scatter_nd"] = ("scatter_nd", ("indices", "updates"), "shape")  # shape: a tuple argument


def run_nd(op, args, tensors):
    """An ND op: mindspore.ops.<name>(*operands), on CPU; its result as
    MindSpore returns it (operands are copies, tracked for "operands")."""
    name, operands = ND_OPS[op][:2]
    inputs = [tracked(tensors[o]) for o in operands]
    if len(ND_OPS[op]) > 2:
        inputs.append(tuple(args[ND_OPS[op][2]]))
    result = with_kernel_log(lambda: getattr(ops, name)(*inputs))
    return [from_mindspore(result)]


def from_mindspore(result):
    """The result as a NumPy array of its own shape (a 0-d result stays 0-d)."""
    array = result.asnumpy()
    return array.reshape(tuple(result.shape))


# MindSpore's element-wise index ops (MindSpore API documentation r2.10), each called as its page
# writes it, on tensors built from copies of the wire arrays (tracked: the operands read back after
# the call). Out of place: the result is a fresh tensor. Kernel errors logged by Resize are read
# back by with_kernel_log, as for scatter_.
def gather_elements(args, tensors):
    inp, index = tracked(tensors["input"]), tracked(tensors["index"])
    return [with_kernel_log(lambda: ops.gather_elements(inp, args["dim"], index)).asnumpy()]


def tensor_scatter_elements(args, tensors):
    input_x, indices, updates = (tracked(tensors[n]) for n in ("input_x", "indices", "updates"))
    return [with_kernel_log(lambda: ops.tensor_scatter_elements(
        input_x, indices, updates, args.get("axis", 0), args.get("reduction", "none"))).asnumpy()]


def gather(args, tensors):
    params, indices = tracked(tensors["input_params"]), tracked(tensors["input_indices"])
    return [with_kernel_log(lambda: ops.gather(params, indices, args["axis"], args.get("batch_dims", 0))).asnumpy()]


def mint_scatter(args, tensors, add=False):
    """mint.scatter / mint.scatter_add (their pages list Ascend only): a MindSpore without a CPU kernel for
    them is reported unsupported, with MindSpore's words."""
    from mindspore import mint
    inp, index = tracked(tensors["input"]), tracked(tensors["index"])
    src = tracked(tensors["src"]) if "src" in tensors else args["value"]
    fn = mint.scatter_add if add else mint.scatter
    try:
        return [with_kernel_log(lambda: fn(inp, args["dim"], index, src)).asnumpy()]
    except RuntimeError as exc:
        if not no_cpu_kernel(exc):
            raise
        raise Unsupported("mint.%s has no CPU kernel in MindSpore %s (its page lists Ascend only): %s"
                          % ("scatter_add" if add else "scatter", mindspore.__version__, str(exc).splitlines()[0]))


def gather_elements_backward(args, tensors):
    """mindspore.ops.gather_elements.backward: grad_input as a user gets it from MindSpore's grad API,
    mindspore.vjp of ops.gather_elements (the CPU kernel GatherD) applied to the request's grad_output as
    it is (its shape and dtype: what vjp checks of them is under test). A non-floating input is passed as
    it is: MindSpore does not refuse it."""
    inp, index, grad_output = (tracked(tensors[n]) for n in ("input", "index", "grad_output"))

    def gradients():
        _, vjp_fn = mindspore.vjp(lambda x: ops.gather_elements(x, args["dim"], index), inp)
        return [from_mindspore(g) for g in vjp_fn(grad_output)]

    return with_kernel_log(gradients)


def tensor_scatter_elements_backward(args, tensors):
    """mindspore.ops.tensor_scatter_elements.backward: grad_input_x and grad_updates from mindspore.vjp of
    ops.tensor_scatter_elements (CPU kernel TensorScatterElements; its gradient gathers through GatherD),
    applied to the request's grad_output as it is, as gather_elements_backward does."""
    input_x, indices, updates, grad_output = (tracked(tensors[n])
                                              for n in ("input_x", "indices", "updates", "grad_output"))
    axis, reduction = args.get("axis", 0), args.get("reduction", "none")

    def gradients():
        _, vjp_fn = mindspore.vjp(lambda x, u: ops.tensor_scatter_elements(x, indices, u, axis, reduction),
                                  input_x, updates)
        return [from_mindspore(g) for g in vjp_fn(grad_output)]

    return with_kernel_log(gradients)


def mint_scatter_backward(args, tensors, add=False):
    """mindspore.mint.scatter(_add).backward: grad_input (and grad_src with a tensor src) from mindspore.vjp of
    mint.scatter / mint.scatter_add, applied to the request's grad_output as it is; a MindSpore without a CPU
    kernel for the op is reported unsupported, as mint_scatter does."""
    from mindspore import mint
    inp, index, grad_output = (tracked(tensors[n]) for n in ("input", "index", "grad_output"))
    fn = mint.scatter_add if add else mint.scatter
    src = tracked(tensors["src"]) if "src" in tensors else args["value"]

    def gradients():
        if isinstance(src, Tensor):
            _, vjp_fn = mindspore.vjp(lambda x, s: fn(x, args["dim"], index, s), inp, src)
        else:
            _, vjp_fn = mindspore.vjp(lambda x: fn(x, args["dim"], index, src), inp)
        return [from_mindspore(g) for g in vjp_fn(grad_output)]

    try:
        return with_kernel_log(gradients)
    except RuntimeError as exc:
        if not no_cpu_kernel(exc):
            raise
        raise Unsupported("mint.%s has no CPU kernel in MindSpore %s (its page lists Ascend only): %s"
                          % ("scatter_add" if add else "scatter", mindspore.__version__, str(exc).splitlines()[0]))


ELEMENT_OPS = {
    "mindspore.mint.scatter": mint_scatter,
    "mindspore.mint.scatter_add": lambda args, tensors: mint_scatter(args, tensors, add=True),
    "mindspore.mint.scatter.backward": mint_scatter_backward,
    "mindspore.mint.scatter_add.backward": lambda args, tensors: mint_scatter_backward(args, tensors, add=True),
    "mindspore.ops.gather_elements": gather_elements,
    "mindspore.ops.gather_elements.backward": gather_elements_backward,
    "mindspore.ops.tensor_scatter_elements": tensor_scatter_elements,
    "mindspore.ops.tensor_scatter_elements.backward": tensor_scatter_elements_backward,
    "mindspore.ops.gather": gather,
}
ELEMENT_OP_ARGS = {
    "mindspore.mint.scatter": ["dim", "value"],
    "mindspore.mint.scatter_add": ["dim"],
    "mindspore.mint.scatter.backward": ["dim", "value"],
    "mindspore.mint.scatter_add.backward": ["dim"],
    "mindspore.ops.gather_elements": ["dim"],
    "mindspore.ops.gather_elements.backward": ["dim"],
    "mindspore.ops.tensor_scatter_elements": ["axis", "reduction"],
    "mindspore.ops.tensor_scatter_elements.backward": ["axis", "reduction"],
    "mindspore.ops.gather": ["axis", "batch_dims"],
}


# MindSpore's C++ log line for a kernel error: "[ERROR] KERNEL(pid,thread,python):date
# [mindspore/ops/kernel/cpu/native/scatter_cpu_kernel.cc:91] Resize] For 'TensorScatterElements', ..."
_LOGGED_ERROR = re.compile(r"^\[ERROR\] [^\[]*\[[^\]]*\] \w+\] (.*)$", re.MULTILINE)


def with_kernel_log(call):
    """call(), with fd 2 captured while it runs. A CPU kernel that refuses its
    arguments in Resize raises only "Framework Unexpected Exception ... CPU
    kernel op [...] resize failed"; the reason ("For 'TensorScatterElements',
    the 'axis' should be less than input dims ...") goes to MindSpore's C++
    log (likewise a kernel that fails at launch, "Launch kernel failed ...").
    The exception is re-raised with the logged reasons first, so
    classify() sees MindSpore's own words. The log is passed on to stderr."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 2)
        try:
            return call()
        except RuntimeError as exc:
            failure = exc
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            log.seek(0)
            logged = log.read().decode("utf-8", "replace")
            sys.stderr.write(logged)
            sys.stderr.flush()
    reasons = _LOGGED_ERROR.findall(logged)
    if reasons and ("resize failed" in str(failure) or "Launch kernel failed" in str(failure)):
        raise RuntimeError("\n".join(reasons) + "\n(MindSpore's log; the exception: " + str(failure).strip() + ")")
    raise failure


serve("mindspore", mindspore.__version__ + " (Tensor.scatter_ has no CPU kernel: src overloads run ops.tensor_scatter_elements, written back)",
      dict({"mindspore.scatter_": ["dim", "value", "reduce"], BACKWARD: ["dim", "value", "reduce"], **ELEMENT_OP_ARGS},
           **{op: list(ND_OPS[op][2:]) for op in ND_OPS}), run, classify,
      framework=("mindspore", mindspore.__version__), operands=True)
