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
          takes_out=False, framework=None, operands=False, device=None, run_program=None):
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
    (PROTOCOL.md); None for the host's CPU.
    run_program: run_program(inputs, steps, expect) runs a whole program
    (PROTOCOL.md "Programs"; reference/program.h): `inputs` a dict of
    WireTensor, `steps` a list of {"let", "op", "args", "operands"} (args as
    run() gets them; "let" None for an in-place step), `expect` the names to
    return, in order; it returns their arrays (as run() returns outputs).
    Given, the hello says "programs": true and the harness sends a program
    as one request; without it the harness runs the steps one request each."""
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
            if run_program is not None:
                hello["programs"] = True
            _send(hello)
        elif kind == "run":
            _send(_answer(message, run, classify, known_args, takes_out, send_operands))
        elif kind == "program" and run_program is not None:
            _send(_answer_program(message, run_program, classify, known_args))
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


def _checked_args(op, wire_args, known_args):
    """The request's arguments as Python values; Unsupported for one the adapter does not declare for `op`."""
    args = python_args(wire_args)
    if known_args is not None:
        implemented = known_args.get(op, ())
        unknown = [] if implemented is None else sorted(set(args) - set(implemented))
        if unknown:
            raise Unsupported("this adapter does not implement argument %s of %s" % (", ".join(unknown), op))
    return args


def _response(message, run, classify, known_args, takes_out, tensors):
    """The result, error or unsupported answer; `tensors` receives the decoded operands."""
    def body():
        if "out" in message.get("tensors", {}) and not takes_out:
            raise Unsupported("this adapter does not implement the out= operand of %s" % message["op"])
        args = _checked_args(message["op"], message.get("args", {}), known_args)
        tensors.update(decode_tensors(message["tensors"]))
        return run(message["op"], args, dict(tensors))
    return _respond(message["id"], body, classify)


def _answer_program(message, run_program, classify, known_args):
    """A "program" request (PROTOCOL.md "Programs"): one answer for the whole program."""
    global _request_version
    _request_version = message.get("doc_version", "")
    _live.clear()

    def body():
        steps = []
        for step in message["steps"]:
            op = step["op"]
            if op.startswith("view."):
                args = python_args(step.get("args", {}))
            elif known_args is not None and op not in known_args:
                raise Unsupported("this adapter does not implement %s" % op)
            else:
                args = _checked_args(op, step.get("args", {}), known_args)
            steps.append({"let": step.get("let"), "op": op, "args": args, "operands": dict(step["operands"])})
        return run_program(decode_tensors(message["inputs"]), steps, list(message["expect"]))
    try:
        return _respond(message["id"], body, classify)
    finally:
        _live.clear()


def _respond(request_id, body, classify):
    """body()'s outputs as a result; Unsupported, DocumentedError and the framework's errors as their answers."""
    try:
        outputs = body()
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
