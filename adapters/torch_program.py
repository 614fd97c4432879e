"""Programs (backends/process/PROTOCOL.md "Programs"; reference/program.h) on
torch tensors, shared by torch_adapter.py (eager: the steps run one after the
other inside the adapter, on the adapter's own tensors) and
torch_compile_adapter.py (the same function, compiled whole with
torch.compile(fullgraph=True), so a write and the read after it are fused as
a user's compiled function would fuse them).

A step is {"let", "op", "args", "operands"}: an op of the op table, run by
the adapter's apply_op on the named tensors (an in-place op writes the tensor
its self names, and through a view its base), or a view op, PyTorch's own
Tensor.transpose / Tensor.narrow, whose result shares its base's storage.
"""

VIEWS = {
    "view.transpose": lambda x, a: x.transpose(a["dim0"], a["dim1"]),
    "view.narrow": lambda x, a: x.narrow(a["dim"], a["start"], a["length"]),
}


def apply_steps(apply_op, program, t):
    """Runs program["steps"] on `t` (name -> torch tensor) with apply_op(op, args, operands); returns the
    tensors program["expect"] names, in order (an input written in place is the input itself)."""
    t = dict(t)
    for step in program["steps"]:
        op, args, names = step["op"], step["args"], step["operands"]
        if op in VIEWS:
            result = VIEWS[op](t[names["self"]], args)
        else:
            result = apply_op(op, args, {role: t[name] for role, name in names.items()})
        if step["let"] is not None:
            t[step["let"]] = result
    return [t[name] for name in program["expect"]]
