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
import base64
import json
import math
import os
import re
import sys
import traceback

import numpy as np

# The scatterproof release this SDK comes with (CMakeLists.txt's project(VERSION)).
__version__ = "0.1.0"

__all__ = [
    "PROTOCOL_VERSION", "NUMPY_DTYPES", "WIRE_DTYPES", "Unsupported", "DocumentedError", "WireTensor",
    "dtype_name_of", "encode_array", "scalar_value", "python_args", "parse_version", "compare_versions",
    "Row", "rows_for", "classifier", "decode_tensors", "track_storage", "track_values", "serve",
    "request_version",
]

# 2: args are every op-table argument the case passes, typed; the request's
# doc_version is a field of its own (backends/process/PROTOCOL.md).
PROTOCOL_VERSION = 2

# The real stdout is kept for the protocol; fd 1 (and sys.stdout) now point
# at stderr, so a framework's banner or C++ log line cannot corrupt a response.
_protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
os.dup2(2, 1)
sys.stdout = sys.stderr

NUMPY_DTYPES = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
}
# bfloat16 has no NumPy dtype: its elements travel as raw uint16 bits and
# adapters that can build a framework bfloat16 tensor from bits may do so.
WIRE_DTYPES = dict(NUMPY_DTYPES, bfloat16=np.uint16)


class Unsupported(Exception):
    """The framework cannot run this call here (e.g. a kernel missing on CPU)."""


class DocumentedError(Exception):
    """The framework rejected the call with an error of a known category."""

    def __init__(self, category, message):
        super().__init__(message)
        self.category = category


class WireTensor:
    """A tensor as the harness sent it: dtype, shape, element strides, offset, storage."""

    def __init__(self, wire, owner=None):
        """`owner`: the WireTensor whose storage this one views ("storage_of")."""
        self.dtype = wire["dtype"]
        if self.dtype not in WIRE_DTYPES:
            raise ValueError("unknown dtype " + self.dtype)
        self.shape = tuple(int(s) for s in wire["shape"])
        self.strides = tuple(int(s) for s in wire["strides"])
        self.offset = int(wire["offset"])
        if owner is not None:
            if owner.dtype != self.dtype:
                raise ValueError("a storage_of view must have its owner's dtype")
            self.storage = owner.storage  # the same array: writes through one are seen by the other
        else:
            self.storage = np.frombuffer(bytearray(base64.b64decode(wire["storage"])), dtype=WIRE_DTYPES[self.dtype])

    def view(self):
        """The elements as a NumPy view of the storage (bfloat16: uint16 bits)."""
        itemsize = self.storage.itemsize
        if 0 in self.shape:
            return np.zeros(self.shape, dtype=self.storage.dtype)
        return np.lib.stride_tricks.as_strided(
            self.storage[self.offset:], shape=self.shape, strides=tuple(s * itemsize for s in self.strides)
        )

    def array(self):
        """A contiguous copy of the elements (what a framework tensor is built from)."""
        if self.dtype == "bfloat16":
            raise Unsupported("bfloat16 has no NumPy dtype to build a framework tensor from")
        return np.array(self.view(), copy=True, order="C")

    def has_internal_overlap(self):
        return any(st == 0 and n > 1 for n, st in zip(self.shape, self.strides)) or (
            self.view().size > 1 and len(set(_element_offsets(self))) < self.view().size
        )

    def with_values(self, values):
        """Self's whole storage, with its view's elements replaced by `values`
        (an in-place op's answer keeps layout and untouched storage)."""
        values = np.asarray(values)
        if values.shape != self.shape:
            raise RuntimeError("in-place result has shape %s, self has %s" % (values.shape, self.shape))
        out = WireTensor.__new__(WireTensor)
        out.dtype, out.shape, out.strides, out.offset = self.dtype, self.shape, self.strides, self.offset
        out.storage = self.storage.copy()
        if values.size:
            out.view()[...] = values.astype(out.storage.dtype, copy=False)
        return out

    def to_wire(self):
        return {
            "dtype": self.dtype,
            "shape": list(self.shape),
            "strides": list(self.strides),
            "offset": self.offset,
            "storage": base64.b64encode(self.storage.tobytes()).decode("ascii"),
        }


def _element_offsets(t):
    grids = np.meshgrid(*[np.arange(n) * st for n, st in zip(t.shape, t.strides)], indexing="ij")
    return (sum(grids) + t.offset).ravel().tolist() if grids else [t.offset]


def dtype_name_of(array):
    for name, dt in NUMPY_DTYPES.items():
        if array.dtype == np.dtype(dt):
            return name
    raise RuntimeError("framework returned an unsupported dtype " + str(array.dtype))


def encode_array(array):
    """A framework's output as a contiguous wire tensor (little-endian)."""
    array = np.ascontiguousarray(array)
    name = dtype_name_of(array)
    strides, step = [], 1
    for n in reversed(array.shape):
        strides.insert(0, step)
        step *= max(n, 1)
    return {
        "dtype": name,
        "shape": list(array.shape),
        "strides": strides,
        "offset": 0,
        "storage": base64.b64encode(array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()).decode("ascii"),
    }


def scalar_value(wire):
    """The Python value of a wire scalar {"kind", "value"}, keeping its kind (bool/int/float)."""
    kind, v = wire["kind"], wire["value"]
    if kind == "bool":
        return bool(v)
    if kind == "int":
        return int(v)
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return float(v)


def python_args(wire_args):
    """The request's args as Python values: a JSON object is a scalar argument
    ({"kind", "value"}); every other JSON value (int, bool, string) is already
    the argument's value."""
    return {name: scalar_value(v) if isinstance(v, dict) else v for name, v in wire_args.items()}


def _send(message):
    _protocol_out.write(json.dumps(message, allow_nan=False) + "\n")
    _protocol_out.flush()


def parse_version(text):
    """The numeric release of a framework's version string as a tuple of ints,
    read leniently as frameworks print it: "2.15.0+cu132" -> (2, 15, 0),
    "1.13.0a0+gitunknown" -> (1, 13, 0), "3.3.1" -> (3, 3, 1), "r2.10" ->
    (2, 10). What follows the release (a pre-release, post or local tag: "a0",
    "rc1", ".dev2", "+cu132") is not read. None when the text does not start
    with a number (after an optional "r" or "v"). The same reading as
    reference/versions.h's parse_version."""
    match = re.match(r"\s*[rv]?(\d+(?:\.\d+)*)", str(text or ""))
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def compare_versions(a, b):
    """<0, 0 or >0 as release tuple (or version string) a is before, equal to
    or after b; missing parts count as 0 ("2.10" == "2.10.0")."""
    a = parse_version(a) if isinstance(a, str) else tuple(a)
    b = parse_version(b) if isinstance(b, str) else tuple(b)
    width = max(len(a), len(b))
    a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (a > b) - (a < b)


class Row(tuple):
    """One row of an adapter's error table: the exceptions it applies to, a
    regex searched in the exception's text, the category (an
    reference/errors.h name; None: the text is known and deliberately left
    without one), and the half-open range of framework versions
    [since, until) the text is printed in ("" or None: open). `since` is the
    first version known to print it, `until` the first known not to.
    `device`: the device kind whose kernels print the text ("cuda"; a CUDA
    kernel's message beside the CPU row of the same rule), None for every
    device: a device row holds only where the adapter runs on that device."""

    __slots__ = ()

    def __new__(cls, types, pattern, category, since=None, until=None, device=None):
        types = tuple(types) if isinstance(types, (tuple, list)) else (types,)
        if not types or not all(isinstance(t, type) and issubclass(t, BaseException) for t in types):
            raise TypeError("Row %r: types must be exception classes" % (pattern,))
        for bound in (since, until):
            if bound and parse_version(bound) is None:
                raise ValueError("Row %r: unreadable version bound %r" % (pattern, bound))
        if device is not None and (not isinstance(device, str) or not device or ":" in device):
            raise ValueError("Row %r: device must be a device kind such as 'cuda', got %r" % (pattern, device))
        return super().__new__(cls, (types, pattern, category, since or None, until or None, device))

    types = property(lambda self: self[0])
    pattern = property(lambda self: self[1])
    category = property(lambda self: self[2])
    since = property(lambda self: self[3])
    until = property(lambda self: self[4])
    device = property(lambda self: self[5])

    def holds_on(self, device):
        """Whether the row holds on `device` ("cuda:0", a kind, or None for the host's CPU)."""
        kind = str(device).split(":")[0] if device is not None else "cpu"
        return self.device is None or self.device == kind

    def applies_to(self, version):
        """Whether the row holds for framework `version` (a string or a
        parse_version tuple). An unreadable version gets only the rows that
        hold for every version."""
        if self.since is None and self.until is None:
            return True
        v = parse_version(version) if isinstance(version, str) or version is None else tuple(version)
        if v is None:
            return False
        if self.since is not None and compare_versions(v, self.since) < 0:
            return False
        return self.until is None or compare_versions(v, self.until) < 0


def rows_for(table, version, device=None):
    """The rows of `table` that hold for framework `version` on `device` (None: the CPU), in table order."""
    return [row for row in (r if isinstance(r, Row) else Row(*r) for r in table)
            if row.applies_to(version) and row.holds_on(device)]


def classifier(table, version, flags=0, device=None):
    """A classify(exc) for serve(): the category of the first row of `table`
    (Row, or a tuple of Row's fields) that holds for framework `version`
    (the running framework's __version__), names a class of the exception and
    whose regex (compiled with `flags`) matches the exception's text; None
    when no row does. `device`: where the adapter runs the ops (None: the
    CPU); rows of another device are left out. classify.rows: the rows in use."""
    rows = rows_for(table, version, device)
    compiled = [(row.types, re.compile(row.pattern, flags), row.category) for row in rows]

    def classify(exc):
        text = str(exc)
        for types, pattern, category in compiled:
            if isinstance(exc, types) and pattern.search(text):
                return category
        return None

    classify.rows = rows
    return classify


def decode_tensors(wire_tensors):
    """The request's operands; those sent with "storage_of" share their owner's storage array."""
    tensors = {k: WireTensor(v) for k, v in wire_tensors.items() if "storage_of" not in v}
    for k, v in wire_tensors.items():
        if "storage_of" in v:
            if v["storage_of"] not in tensors:
                raise ValueError("operand %s has storage_of %r, which carries no storage" % (k, v["storage_of"]))
            tensors[k] = WireTensor(v, owner=tensors[v["storage_of"]])
    return tensors


# The framework's copies of the request's storages (track_storage), by the
# id of the wire storage array they copy. Cleared per request.
_live = {}


def track_storage(wire, reader):
    """Says that the framework runs on its own copy of `wire`'s whole storage
    and how to read that copy back: reader() returns it (a NumPy array or
    bytes, the wire storage's size) as the call left it. What a response's
    "operands" sends for that storage (PROTOCOL.md, "Operands after the
    call"), result or error; a storage nobody tracks is sent as the wire
    array holds it, so an adapter that runs on the wire arrays themselves
    needs nothing."""
    _live[id(wire.storage)] = reader


def track_values(wire, reader):
    """track_storage for a framework tensor built from the view's elements
    (wire.array()): reader() returns its values (NumPy, the view's shape);
    the storage sent back is the wire storage with the view's elements
    replaced by them (the bytes outside the view as sent)."""
    track_storage(wire, lambda: wire.with_values(reader()).storage)


def _operands(wire_tensors, tensors):
    """Every storage the request carried, as the call left it: the tracked
    framework copy, else the wire array; the request's own text for a
    request whose operands were never decoded (nothing ran on them)."""
    out = {}
    for name, wire in wire_tensors.items():
        if "storage_of" in wire:
            continue
        t = tensors.get(name) if tensors else None
        if t is None:
            out[name] = wire.get("storage", "")
            continue
        reader = _live.get(id(t.storage))
        data = t.storage if reader is None else reader()
        data = data.tobytes() if hasattr(data, "tobytes") else bytes(data)
        out[name] = base64.b64encode(data).decode("ascii")
    return out


def serve(name, version, ops, run, classify=lambda exc: None, unavailable=None, shared_storage=False,
          takes_out=False, framework=None, operands=False, device=None):
    """The protocol loop: handshake, then one response per request until bye/EOF.

    shared_storage: the adapter keeps operands that share a storage sharing it
    (PROTOCOL.md, "storage_of"); the harness sends such calls only then.
    takes_out: run() implements PyTorch's out= operand (written in place,
    answered with its whole storage); otherwise a call passing one is
    declined, never run as if out were not there.
    framework: (name, version) of the framework whose rules the adapter runs
    by ("torch", torch.__version__), sent as the hello's "framework"
    (PROTOCOL.md); None for an adapter that implements the documents itself.
    operands: the adapter can say what the call left in every operand's
    storage: the framework ran on the wire arrays themselves, or on copies
    the adapter tracks (track_storage, track_values). Then, when the
    harness asks, every response carries every operand's storage as the
    call left it ("operands", PROTOCOL.md), errors included. Off by
    default: an adapter whose framework runs on untracked copies would
    send back its unchanged wire arrays and claim a check it cannot make;
    the harness reports its side effects as not observable instead.
    device: where the ops run ("cuda:0"), sent as the hello's "device"
    (PROTOCOL.md); None for the host's CPU."""
    known_args = ops if isinstance(ops, dict) else None
    send_operands = False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if unavailable:
                _send({"type": "unavailable", "reason": unavailable})
                return
            if message.get("protocol") != PROTOCOL_VERSION:
                print("harness speaks protocol %r, this adapter %d" % (message.get("protocol"), PROTOCOL_VERSION),
                      file=sys.stderr)
            hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "version": version, "ops": list(ops)}
            if shared_storage:
                hello["shared_storage"] = True
            send_operands = bool(operands) and message.get("operands") is True
            if send_operands:
                hello["operands"] = True
            if framework is not None:
                hello["framework"] = {"name": framework[0], "version": framework[1]}
            if device:
                hello["device"] = str(device)
            _send(hello)
        elif kind == "run":
            _send(_answer(message, run, classify, known_args, takes_out, send_operands))
        elif kind == "bye":
            return
        else:
            raise SystemExit("unknown message type %r" % kind)


_request_version = ""


def request_version():
    """The framework version the current request follows (its "doc_version",
    PROTOCOL.md): the version the reference answers this adapter for, ""
    for the framework's baseline (reference/SEMANTICS.md, "Versioned
    rules"). An adapter that implements one framework's documented rules
    with another library (numpy_adapter.py) follows it; a real framework's
    adapter runs its own version and can ignore it."""
    return _request_version


def _answer(message, run, classify, known_args, takes_out=False, send_operands=False):
    global _request_version
    request_id = message["id"]
    _request_version = message.get("doc_version", "")
    _live.clear()
    tensors = {}
    response = _response(message, run, classify, known_args, takes_out, tensors)
    if send_operands:
        try:
            response["operands"] = _operands(message.get("tensors", {}), tensors)
        except Exception as exc:  # a tracked copy that cannot be read back: never a silent pass
            traceback.print_exc(file=sys.stderr)
            response = {"type": "error", "id": request_id, "category": None,
                        "message": "the adapter could not read its operands back after the call: %s: %s"
                                   % (type(exc).__name__, _first_lines(str(exc)))}
            response["operands"] = _operands(message.get("tensors", {}), {})
    _live.clear()
    return response


def _response(message, run, classify, known_args, takes_out, tensors):
    """The result, error or unsupported answer; `tensors` receives the decoded operands."""
    request_id = message["id"]
    try:
        if "out" in message.get("tensors", {}) and not takes_out:
            raise Unsupported("this adapter does not implement the out= operand of %s" % message["op"])
        args = python_args(message.get("args", {}))
        if known_args is not None:
            implemented = known_args.get(message["op"], ())
            unknown = [] if implemented is None else sorted(set(args) - set(implemented))
            if unknown:
                raise Unsupported("this adapter does not implement argument %s of %s" % (", ".join(unknown), message["op"]))
        tensors.update(decode_tensors(message["tensors"]))
        outputs = run(message["op"], args, dict(tensors))
        return {
            "type": "result",
            "id": request_id,
            "outputs": [
                o.to_wire() if isinstance(o, WireTensor) else o if isinstance(o, dict) else encode_array(o)
                for o in outputs
            ],
        }
    except Unsupported as u:
        return {"type": "unsupported", "id": request_id, "reason": str(u)}
    except DocumentedError as e:
        return {"type": "error", "id": request_id, "category": e.category, "message": str(e)}
    except Exception as exc:  # the framework's own error: classify it, never hide it
        message_text = "%s: %s" % (type(exc).__name__, _first_lines(str(exc)))
        category = classify(exc)
        if category is None:
            traceback.print_exc(file=sys.stderr)
        return {"type": "error", "id": request_id, "category": category, "message": message_text}


def _first_lines(text, limit=600):
    """Framework errors carry long C++ stack dumps; the head says what went wrong."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + " ..."
