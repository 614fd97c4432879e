"""The protocol loop: the handshake, then one answer per request until bye or EOF."""
import json
import sys
import traceback

from ._stdio import _protocol_out
from .errors import DocumentedError, Unsupported
from .operands import _live, _operands
from .wire import WireTensor, decode_tensors, encode_array, python_args


# 2: args are every op-table argument the case passes, typed; the request's
# doc_version is a field of its own (backends/process/PROTOCOL.md).
PROTOCOL_VERSION = 2


def _send(message):
    _protocol_out.write(json.dumps(message, allow_nan=False) + "\n")
    _protocol_out.flush()


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
