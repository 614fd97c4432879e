"""What a call left in its operands' storages (PROTOCOL.md, "Operands after the call")."""
import base64


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
