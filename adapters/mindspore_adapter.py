"""Runs the real MindSpore (CPU build) for scatterproof: mindspore.Tensor.scatter_.

    .venv/bin/python adapters/mindspore_adapter.py     (speaks backends/process/PROTOCOL.md)

Each request calls the documented API first, exactly as the case writes it:
self.scatter_(dim, index, src | value, reduce=...). MindSpore's CPU build
validates the arguments but has no kernel for it (InplaceScatterSrc /
InplaceScatterValue "unregistered"; Ascend only). Only then does the adapter
run the CPU kernel of the src overloads, ops.tensor_scatter_elements, and
write its result into self's storage; modes without a CPU kernel are
reported unsupported. The handshake's version string says so.

Nothing is checked here before MindSpore sees it; errors are MindSpore's
own, mapped to a category by their message (classify). Layout cases whose
self aliases itself (stride 0) cannot be built from host arrays and are
reported unsupported.
"""
import os
import re
import sys

os.environ.setdefault("GLOG_v", "3")  # MindSpore logs warnings at import; errors only
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Unsupported, classifier, serve  # noqa: E402

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

# MindSpore's messages -> taxonomy; first match wins. "Framework Unexpected
# Exception" is MindSpore saying it failed internally (e.g. "kernel resize
# failed"): that is no documented error, so it stays without a category.
CATEGORIES = [
    (r"Framework Unexpected Exception", None),
    (r"reduce", "invalid_reduce"),
    (r"(indices|index).*(int32|int64|type)", "index_dtype"),
    (r"(dimension|rank|ndim) of .*(should|must) be (the )?same", "rank_mismatch"),
    (r"\b(dim|axis)\b.*(range|\[)", "dim_out_of_range"),
    (r"(rank|dimension).*(<= ?8|less than or equal to 8|exceed 8)", "rank_limit"),
    (r"type must be (the )?same|(dtype|data type).*(same|equal|match)", "dtype_mismatch"),
    (r"index.*(out of (range|bound)|exceed)|out of (range|bound)", "index_out_of_bounds"),
    (r"shape|\bsize", "shape_mismatch"),
]


classify = classifier(CATEGORIES, re.IGNORECASE)


def no_cpu_kernel(exc):
    return isinstance(exc, RuntimeError) and "unregistered" in str(exc)


def run(op, args, tensors):
    if op != "mindspore.scatter_":
        raise Unsupported("the mindspore adapter runs mindspore.scatter_ only")
    self_wire = tensors["self"]
    if self_wire.has_internal_overlap():
        raise Unsupported("an overlapping (stride-0) self cannot be built as a MindSpore tensor from host memory")
    # Fresh copies: Tensor(ndarray) may share the array's memory.
    index = Tensor(tensors["index"].array())
    operand = Tensor(tensors["src"].array()) if "src" in tensors else args["value"]
    kwargs = {"reduce": args["reduce"]} if "reduce" in args else {}
    try:
        # The documented API, as written: MindSpore validates dim, reduce,
        # dtypes and shapes here before it looks for a kernel.
        result = Tensor(self_wire.array()).scatter_(args["dim"], index, operand, **kwargs).asnumpy()
    except RuntimeError as exc:
        if not no_cpu_kernel(exc):
            raise
        result = run_on_cpu_kernel(self_wire, args, index, operand)
    return [self_wire.with_values(result)]


def run_on_cpu_kernel(self_wire, args, index, operand):
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
    return ops.tensor_scatter_elements(Tensor(self_wire.array()), index, operand, args["dim"], reduction).asnumpy()


serve("mindspore", mindspore.__version__ + " (Tensor.scatter_ has no CPU kernel: src overloads run ops.tensor_scatter_elements, written back)",
      {"mindspore.scatter_": ["dim", "value", "reduce"]}, run, classify)
