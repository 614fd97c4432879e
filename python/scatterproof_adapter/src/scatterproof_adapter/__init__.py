"""scatterproof_adapter: the adapter side of scatterproof's line protocol
(backends/process/PROTOCOL.md), the Python adapter SDK.

An adapter is a small program that runs one framework's real operation (or
a vendor's own kernels) for each request the harness sends. This package
does everything but the operation: it keeps stdout for the protocol alone
(anything a framework prints, from Python or from C, goes to stderr), answers
the handshake, turns the wire tensors into NumPy views (strides and offset
included) and back, turns the wire arguments into Python values, and turns
exceptions into protocol responses.

    from scatterproof_adapter import serve, Unsupported, DocumentedError   # before the framework
    serve(name="paddle", version=paddle.__version__, ops={"paddle.scatter": ["overwrite"]}, run=run)

Importing it takes stdout (fd 1) for the protocol, so import it before the
framework. Install it with `python3 -m pip install python/scatterproof_adapter`
from a scatterproof checkout (NumPy is its one dependency); the in-tree
adapters reach the same source through adapters/common.py, which puts
python/scatterproof_adapter/src on sys.path and is this module under
another name. examples/python_adapter/ is an adapter outside the tree.

`run(op, args, tensors)` gets the op id, the arguments the case passes as a
dict of plain Python values keyed by the op table's names (`scatterproof
ops` lists them): ints, bools and strings as they are, and Python-scalar
arguments (value, alpha, ...) as the bool / int / float the user passed, so
their kind survives; an argument the case leaves out is absent (the op's
default applies). Nothing here names an argument: a new one (include_self,
alpha, ...) arrives in the dict with no change to this module. `tensors` is
a dict of WireTensor. run() returns the list of output NumPy arrays (or, for
an in-place op, the updated self via WireTensor.with_values), or raises
Unsupported / DocumentedError. Any other exception becomes an error response
whose category comes from the adapter's `classify(exc)` (None: the error is
reported without a category).

`ops` is either a list of op ids or a dict from op id to the argument names
the adapter implements for it (None: no check, for an op run() declines
whole). With the dict, a request carrying any other argument is answered
"unsupported" naming it, before run() is called: an adapter written before
an argument existed must not run the op as if the argument were not there.

An in-tree adapter is declared in adapters/manifest.json
(adapters/README.md): one Python file and one manifest entry per adapter. An
adapter elsewhere runs as `scatterproof run --backend 'process:PYTHON
ADAPTER.py' SPECS...`.
"""
# Import order matters: _stdio takes stdout for the protocol before anything
# else runs (a framework imported after this package prints to stderr).
from . import _stdio  # noqa: F401  (first: takes stdout)
from .errors import DocumentedError, Unsupported
from .operands import track_storage, track_values
from .protocol import PROTOCOL_VERSION, request_version, serve
from .versions import Row, classifier, compare_versions, parse_version, rows_for
from .wire import (NUMPY_DTYPES, WIRE_DTYPES, WireTensor, decode_tensors, dtype_name_of, encode_array, python_args,
                   scalar_value)

# The scatterproof release this SDK comes with (CMakeLists.txt's project(VERSION)).
__version__ = "0.1.0"

__all__ = [
    "PROTOCOL_VERSION", "NUMPY_DTYPES", "WIRE_DTYPES", "Unsupported", "DocumentedError", "WireTensor",
    "dtype_name_of", "encode_array", "scalar_value", "python_args", "parse_version", "compare_versions",
    "Row", "rows_for", "classifier", "decode_tensors", "track_storage", "track_values", "serve",
    "request_version",
]
