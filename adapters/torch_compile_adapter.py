"""Runs PyTorch's ops through torch.compile (TorchDynamo + Inductor, C++
code generated and built with the system compiler, on the CPU) for
scatterproof: the same calls as torch_adapter.py, each one the body of a
function compiled with `torch.compile(fn, fullgraph=True, dynamic=D)`.

    .venv-current/bin/python adapters/torch_compile_adapter.py [--dynamic] [--recompile]

--dynamic    dynamic=True (symbolic shapes from the first compile); without it
             dynamic=False (every new shape or stride is a new graph).
--recompile  no graph reuse: every call is traced and lowered afresh
             (torch._dynamo.reset() and Inductor's FX graph cache off), as a
             program that compiles once per input would. Default: the graph
             cache (below), as a user's compiled function is called many times.

The graph cache. One compiled function per signature: the kind of call (op,
out=, backward), the op, its arguments (dim, value, reduce, ...), and each
operand's name, dtype, rank and requires_grad. Each gets a code object of its
own (Dynamo keeps its compiled graphs per code object), so cases of one
signature reuse that function, and within it Dynamo's guards key the graphs by
the operands' sizes and strides: with dynamic=False each new size or stride
compiles a new graph (a recompilation), with dynamic=True a graph serves every
size its guards allow. So the recompilations counted are Dynamo's own, as a
user's program triggers them. Dynamo's limit on graphs per function is lifted
(a function past it would silently run eagerly, which is not under test).

Statistics: at exit the adapter writes one JSON line to stderr, and appends it
to the file SCATTERPROOF_COMPILE_STATS names if set: calls, compiled functions,
graphs compiled (Dynamo's unique_graphs), recompilations (graphs beyond each
function's first), compile seconds (Dynamo's _compile.compile_inner total,
Inductor included) and run seconds (the compiled calls' wall time less it).
`python3 adapters/torch_compile_adapter.py --summarize FILE` adds up the lines
of every adapter process of a run (docs/compiled.md).

Errors: an error raised while tracing (fake tensors run the ops' shape and
dtype checks) comes wrapped in Dynamo's TorchRuntimeError; the original
exception (its __cause__) is what gets classified, with torch_adapter.py's
table. A call Dynamo cannot capture as one graph (fullgraph=True refuses a
graph break) is answered unsupported with Dynamo's reason.
"""
import json
import os
import sys
import time
import types

if __name__ == "__main__" and sys.argv[1:2] == ["--summarize"]:
    totals = {}
    with open(sys.argv[2]) as f:
        for line in f:
            for key, value in json.loads(line).items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    totals[key] = totals.get(key, 0) + value
    print("torch-compile: %d processes, " % totals.pop("processes", 0) +
          ", ".join("%s %s" % (k, round(v, 3) if isinstance(v, float) else v) for k, v in sorted(totals.items())))
    sys.exit(0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_adapter as eager  # noqa: E402  (answers "unavailable" itself when torch is missing)
from common import Row, Unsupported, classifier, serve  # noqa: E402

torch = eager.torch
DYNAMIC = "--dynamic" in sys.argv[1:]
RECOMPILE = "--recompile" in sys.argv[1:]

try:
    import torch._dynamo  # noqa: E402
    from torch._dynamo.utils import compilation_time_metrics, counters  # noqa: E402
except ImportError as e:  # torch 1.x has no torch.compile
    serve("torch-compile", torch.__version__, [], run=None,
          unavailable="torch %s has no torch.compile (%s)" % (torch.__version__, e))
    sys.exit(0)

# A function past Dynamo's recompile limit would run eagerly, unannounced: never under test here.
torch._dynamo.config.recompile_limit = 1 << 30
torch._dynamo.config.accumulated_recompile_limit = 1 << 30
if RECOMPILE:
    import torch._inductor.config  # noqa: E402
    torch._inductor.config.fx_graph_cache = False

STATS = {"processes": 1, "calls": 0, "compiled_functions": 0, "graphs": 0, "recompilations": 0,
         "unsupported": 0, "compile_s": 0.0, "run_s": 0.0}
_compiled = {}  # signature -> the compiled function


# The compiled code's own texts (reference/SEMANTICS.md CC-1), tried before torch_adapter.py's table (the eager
# texts, which a compiled call prints too): the same form and rules (adapters/README.md "Error tables"); samples
# in adapters/test_classifier_samples.py, measured with torch 2.15.0 through this adapter.
CATEGORIES = [
    # Inductor's kernels check an indirect index,
    # "kernel, <file>.cpp:21, index out of bounds: 0 <= tmp2 < 2L" (torch/_inductor/codegen/common.py indirect_assert)
    Row(RuntimeError, r"index out of bounds: (0 <= )?tmp\d+ < ", "index_out_of_bounds"),
    # the meta functions' checks (torch/_meta_registrations.py scatter_shape_check), worded with torch.Size: "Expected
    # index torch.Size([2, 2]) to be no larger than self torch.Size([1, 1]) apart from dimension 0" / "... than src"
    Row(RuntimeError, r"Expected index torch\.Size\(\[.*\]\) to be no larger than (self|src) torch\.Size\(",
        "shape_mismatch"),
    # a compiled backward's broadcast (torch/_refs/__init__.py _broadcast_shapes; scatter_reduce amax, T-GR4):
    # "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 had torch.Size([3]); ..."
    Row(RuntimeError, r"Attempting to broadcast a dimension of length s?\d+ at -?\d+!", "shape_mismatch"),
    # the refs' scalar check (torch/_refs/__init__.py add, 2.15) in a compiled index_add: "alpha argument of type
    # <class 'float'> cannot be safely cast to type <class 'int'>!" (alpha 2.5 on int32: not representable)
    Row(RuntimeError, r"(alpha|value) argument of type <class '[\w.]+'> cannot be safely cast to type",
        "value_out_of_range"),
    # compiled index_add (2.15): Inductor's ExpandView refusing a source that does not broadcast, as AssertionErrors
    # (torch/_inductor/ir.py: "Broadcast failed in ExpandView([2], [2, 4]) on dimension 1", "Expected len(new_size) ==
    # len(old_size)"); index_put's lowering refusing an int16 index (lowering.py); the decomposition's length check
    Row(AssertionError, r"\ABroadcast failed in ExpandView\(|\AExpected len\(new_size\) == len\(old_size\)(\n|\Z)",
        "shape_mismatch"),
    Row(AssertionError, r"\Aindices must be int64, byte or bool\. Got \[", "index_dtype"),
    # (sizes are symbols under dynamic=True: "Number of indices (s59) should be equal to tensor.size(dim) (s24)")
    Row(RuntimeError, r"Number of indices \(s?\d+\) should be equal to tensor\.size\(dim\)", "shape_mismatch"),
    # a bool index taken as a mask by index_put's meta function (compiled index_copy, torch/_meta_registrations.py):
    # "The shape of the mask [1] at index 0 does not match the shape of the indexed tensor [3, 4] at index 0"
    Row(IndexError, r"The shape of the mask (torch\.Size\()?\[.*\]\)? at index \d+ does not match the shape of the "
        r"indexed tensor", "shape_mismatch"),
    # index_put's own check (ATen, the same words eager index_put_ prints) when a compiled index_fill's byte index,
    # read as a mask, selects fewer slices than the value was expanded to: "shape mismatch: value tensor of shape
    # [2, 4] cannot be broadcast to indexing result of shape [2, 2]"
    Row(RuntimeError, r"shape mismatch: value tensor of shape \[.*\] cannot be broadcast to indexing result of shape",
        "shape_mismatch"),
    # the generated wrapper's check of its inputs' sizes and strides (assert_size_stride, torch/_inductor/codegen/
    # wrapper.py) refusing an out= that aliases an input: "expected size 9==6, stride 1==1 at dim=0\nError in op:
    # input" (gather with out over its index; the sizes disagree: shape_mismatch)
    Row(AssertionError, r"\Aexpected size \d+==\d+, stride \d+==\d+ at dim=\d+", "shape_mismatch"),
    # index_copy's meta function raises as RuntimeError what eager raises as IndexError (torch_adapter.py's row):
    # "index_copy_(): When source and destination are not scalars, their dimensionality must match. ..."
    Row(RuntimeError, r"When source is scalar, index should have one element|their dimensionality must match",
        "shape_mismatch"),
    # the index_fill ref (torch/_refs/__init__.py _index_fill: `shape[dim] = index.numel()`) with dim out of range
    Row(IndexError, r"\Alist assignment index out of range(\n|\Z)", "dim_out_of_range"),
    # take_along_dim without dim flattens with view(-1), as eager does (torch_adapter.py's "view size is not
    # compatible" row, invalid_argument; T-TA11); the fake tensor's view says it its own way: "Cannot view a tensor
    # with shape torch.Size([3, 4]) and strides (0, 1) as a tensor with shape (12,)!" (a ValueError)
    Row((RuntimeError, ValueError),
        r"Cannot view a tensor with shape torch\.Size\(\[.*\]\) and strides \(.*\) as a tensor with shape",
        "invalid_argument"),
    # dynamic=True: scatter_ with a Python value and reduce is lowered to scatter_reduce_.two with the (now symbolic)
    # value where a tensor src is due: "aten::scatter_reduce_() Expected a value of type 'Tensor' for argument 'src'
    # but instead found type 'int'." A valid call refused: placed as a refused argument, so the verdict is a fail.
    Row(RuntimeError, r"aten::scatter_reduce_\(\) Expected a value of type 'Tensor' for argument 'src' but instead found",
        "invalid_argument"),
    # Inductor's index_select lowering refusing an int16 index (eager: "Expected dtype int32 or int64 for index")
    Row((RuntimeError, IndexError), r"tensors used as indices must be long, int, byte or bool tensors",
        "index_dtype"),
]


SYMBOLIC_LIMIT = "Cannot call numel() on tensor with symbolic sizes/strides"


def compile_seconds():
    """Dynamo's total compile time so far (Inductor's lowering and C++ build included)."""
    return sum(compilation_time_metrics.get("_compile.compile_inner", ()))


def signature(kind, op, args, t):
    return (kind, op, tuple(sorted((k, type(v).__name__, repr(v)) for k, v in args.items())),
            tuple((name, str(x.dtype), x.dim(), x.requires_grad) for name, x in sorted(t.items())))


def compiled_function(kind, function, op, args):
    """torch.compile of `function(op, args, t)`, with a code object of its own."""
    def program(**t):
        return function(op, args, t)

    code = program.__code__.replace(co_name="sp_%s_%d" % (kind, STATS["compiled_functions"]))
    fn = types.FunctionType(code, program.__globals__, code.co_name, program.__defaults__, program.__closure__)
    STATS["compiled_functions"] += 1
    return torch.compile(fn, fullgraph=True, dynamic=DYNAMIC, backend="inductor")


def original_error(exc):
    """The framework's own exception inside the compiler's wrappers: Dynamo's TorchRuntimeError (fake-tensor
    tracing ran an op's meta function, whose check raised; the original is its __context__'s), Inductor's
    BackendCompilerFailed (a lowering refused the call; the original is its __cause__)."""
    seen = 0
    while _is_compiler_wrapper(exc) and seen < 8:
        inner = exc.__cause__ if exc.__cause__ is not None else exc.__context__
        if inner is None:
            break
        exc, seen = inner, seen + 1
    return exc


def _is_compiler_wrapper(exc):
    return type(exc).__module__.startswith(("torch._dynamo", "torch._subclasses", "torch._inductor"))


def compiled_apply(kind, function, op, args, t):
    """torch_adapter.APPLY: the call through torch.compile, timed and counted."""
    if RECOMPILE:
        torch._dynamo.reset()
        fn = compiled_function(kind, function, op, args)
    else:
        key = signature(kind, op, args, t)
        fn = _compiled.get(key)
        if fn is None:
            fn = _compiled[key] = compiled_function(kind, function, op, args)
    graphs, compile_s, start = counters["stats"]["unique_graphs"], compile_seconds(), time.perf_counter()
    try:
        return fn(**t)
    except torch._dynamo.exc.Unsupported as exc:
        STATS["unsupported"] += 1
        raise Unsupported("torch.compile(fullgraph=True) cannot capture this call as one graph: %s"
                          % str(exc).strip().splitlines()[0])
    except Exception as exc:
        if SYMBOLIC_LIMIT in str(exc):
            # dynamic=True: an op's out= variant (and only it, measured) calls numel() on a symbolic tensor while
            # tracing; the compiler cannot take the call at all, which is no answer about its semantics.
            STATS["unsupported"] += 1
            raise Unsupported("torch.compile(dynamic=True) cannot trace this call: %s" % SYMBOLIC_LIMIT)
        original = original_error(exc)
        if original is exc:
            raise
        raise original from exc
    finally:
        spent = compile_seconds() - compile_s
        STATS["calls"] += 1
        STATS["compile_s"] += spent
        STATS["run_s"] += time.perf_counter() - start - spent
        new_graphs = counters["stats"]["unique_graphs"] - graphs
        STATS["graphs"] += new_graphs
        # A graph of a function that had one already (the recompile mode starts every call afresh).
        if not RECOMPILE and new_graphs and getattr(fn, "_sp_graphs", 0):
            STATS["recompilations"] += new_graphs
        fn._sp_graphs = getattr(fn, "_sp_graphs", 0) + new_graphs


def report_stats():
    line = json.dumps(dict(STATS, dynamic=DYNAMIC, recompile=RECOMPILE, torch=torch.__version__))
    sys.stderr.write("torch-compile stats: %s\n" % line)
    path = os.environ.get("SCATTERPROOF_COMPILE_STATS")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    if eager.DEVICE is not None and eager.DEVICE.type != "cpu":
        serve("torch-compile", torch.__version__, [], run=None,
              unavailable="torch_compile_adapter.py runs on the CPU only (asked for %s)" % eager.DEVICE)
        sys.exit(0)
    eager.APPLY = compiled_apply
    torch.set_num_threads(1)  # one case at a time; keeps the adapter light next to the harness
    version = "%s (torch.compile fullgraph=True, inductor, cpu, dynamic=%s, %s)" % (
        torch.__version__, DYNAMIC, "recompiled per call" if RECOMPILE else "graph cache")
    try:
        classify = classifier(CATEGORIES + eager.CATEGORIES, torch.__version__)
        serve("torch-compile", version, eager.OPS, eager.run_request, classify, shared_storage=True,
              takes_out=True, framework=("torch", torch.__version__), operands=True, run_program=eager.run_program)
    finally:
        report_stats()
