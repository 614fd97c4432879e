"""Writes specs/programs/*.json: program cases (specs/FORMAT.md "Programs") for every (write op,
read op) pair of PyTorch's gather/scatter family that shares a buffer, every write read by a next
write, and the shapes of compiled/eager disagreements issue 32 names (a scatter_add_ into a size-1
dim then a read; index_add_ then gather; duplicates), with views between steps.

    /work/main/.venv-current/bin/python specs/programs/gen_programs.py   # any torch >= 2.0

The expected outputs are what eager torch computes on the CPU (the "document" of these cases); the
runner's document check holds them against the reference (reference/SEMANTICS.md P-1), so an
eager value the reference does not allow is a failing document check, never a silent pass. Inputs
are small integers and halves, so sums are exact and a value can be checked by hand. The JSON files
are committed; rerun this script only to change the cases.
"""
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DOCUMENT = "torch eager on the CPU (specs/programs/gen_programs.py), composed per reference/SEMANTICS.md P-1"
F32, I64 = torch.float32, torch.int64
WIRE = {torch.float32: "float32", torch.int64: "int64", torch.float64: "float64", torch.int32: "int32"}

# The writes, each with its operands beyond self (name -> tensor) and its arguments, on a 3x4 self.
# Duplicated targets everywhere: scatter's index rows collide in columns 1 and 3, the index_* ops'
# index names row 2 twice.
SCATTER_INDEX = [[0, 1, 2, 0], [2, 1, 0, 0]]
SCATTER_SRC = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]
ROWS_INDEX = [2, 0, 2]
ROWS_SOURCE = [[1.0, 2.0, 3.0, 4.0], [0.5, 1.5, 2.5, 3.5], [-1.0, -2.0, 6.0, 0.0]]


def write_ops():
    s_index, s_src = torch.tensor(SCATTER_INDEX), torch.tensor(SCATTER_SRC)
    r_index, r_source = torch.tensor(ROWS_INDEX), torch.tensor(ROWS_SOURCE)
    scatter = {"index": s_index, "src": s_src}
    rows = {"index": r_index, "source": r_source}
    return [
        ("torch.scatter", {"dim": 0}, scatter),
        ("torch.scatter_add", {"dim": 0}, scatter),
        ("torch.scatter_reduce", {"dim": 0, "reduce": "amax"}, scatter),
        ("torch.index_add", {"dim": 0, "alpha": 2}, rows),
        ("torch.index_copy", {"dim": 0}, {"index": torch.tensor([2, 0]), "source": r_source[:2]}),
        ("torch.index_fill", {"dim": 0, "value": 7.5}, {"index": torch.tensor([2, 0, 2])}),
        ("torch.index_reduce", {"dim": 0, "reduce": "prod"}, rows),
    ]


def read_ops():
    return [
        ("torch.gather", {"dim": 1}, "input", {"index": torch.tensor([[3, 1], [0, 0], [2, 3]])}),
        ("torch.index_select", {"dim": 0}, "input", {"index": torch.tensor([2, 0, 1, 2])}),
        ("torch.take_along_dim", {"dim": 1}, "input", {"indices": torch.tensor([[1], [3], [0]])}),
    ]


def call(op, args, t):
    """op on torch tensors t (operand -> tensor), as torch_adapter.py's apply_op runs it."""
    fn_name = op.split(".", 1)[1]
    if op == "torch.take_along_dim":
        return torch.take_along_dim(t["input"], t["indices"], args.get("dim"))
    if op in ("torch.gather", "torch.index_select"):
        return getattr(torch, fn_name)(t["input"], args["dim"], t["index"])
    extra = [t[k] for k in ("src", "source") if k in t]
    if fn_name.startswith("index_fill"):
        extra = [args["value"]]
    kwargs = {}
    if "reduce" in args:
        extra.append(args["reduce"])
    if "alpha" in args:
        kwargs["alpha"] = args["alpha"]
    self_t = t["self"]
    if fn_name.endswith("_"):
        getattr(self_t, fn_name)(args["dim"], t["index"], *extra, **kwargs)
        return None
    return getattr(torch, fn_name)(self_t, args["dim"], t["index"], *extra, **kwargs)


VIEWS = {"view.transpose": lambda x, a: x.transpose(a["dim0"], a["dim1"]),
         "view.narrow": lambda x, a: x.narrow(a["dim"], a["start"], a["length"])}


def run(inputs, steps, expect):
    """The program on eager torch: the compared tensors, or the error's category."""
    t = {name: v.clone() for name, v in inputs.items()}
    for s in steps:
        if s["op"] in VIEWS:
            t[s["let"]] = VIEWS[s["op"]](t[s["operands"]["self"]], s.get("args", {}))
            continue
        try:
            r = call(s["op"], s.get("args", {}), {role: t[n] for role, n in s["operands"].items()})
        except (RuntimeError, IndexError) as e:
            if "out of bounds" in str(e) or "out of range" in str(e):
                return "index_out_of_bounds"
            raise
        if "let" in s:
            t[s["let"]] = r
    return {name: t[name] for name in expect}


def wire(v):
    return {"dtype": WIRE[v.dtype], "data": v.tolist()}


def case(cid, inputs, steps, expect, tags, example):
    result = run(inputs, steps, expect)
    out = {"id": cid, "source": {"document": DOCUMENT, "example": example, "kind": "edge"},
           "program": {"inputs": {k: wire(v) for k, v in inputs.items()}, "steps": steps, "expect": expect},
           "tags": ["program"] + tags}
    if isinstance(result, str):
        out["expect"] = {"error": result}
    else:
        out["expect"] = {"outputs": {k: {"data": v.tolist()} for k, v in result.items()}}
    return out


def step(op, args, operands, let=None):
    s = {"op": op, "args": args, "operands": operands}
    if let:
        s["let"] = let
    return s


def pair_cases(write, in_place):
    """write (out-of-place id) then each read of its result; then a next write reading it."""
    op, args, extra = write
    wop = op + "_" if in_place else op
    short = wop.split(".", 1)[1]
    inputs = {"x": torch.arange(12, dtype=F32).reshape(3, 4) - 4.0}
    inputs.update({"w_" + k: v for k, v in extra.items()})
    operands = dict({"self": "x"}, **{k: "w_" + k for k in extra})
    first = step(wop, args, operands, None if in_place else "y")
    buf = "x" if in_place else "y"
    cases = []
    for rop, rargs, rin, rextra in read_ops():
        rshort = rop.split(".", 1)[1]
        ins = dict(inputs, **{"r_" + k: v for k, v in rextra.items()})
        second = step(rop, rargs, dict({rin: buf}, **{k: "r_" + k for k in rextra}), "z")
        cases.append(case("programs/%s/%s" % (short, rshort), ins, [first, second], [buf, "z"],
                          ["pair"], "%s then %s of its result" % (wop, rop)))
    # A write read by a next write: the result is the src of a scatter_add_ into a fresh buffer, then gathered.
    ins = dict(inputs, acc=torch.zeros(3, 4), k=torch.tensor([[2, 2, 0, 1], [0, 0, 1, 1], [1, 2, 2, 0]]),
               j=torch.tensor([[0, 3], [1, 2], [3, 3]]))
    steps = [first, step("torch.scatter_add_", {"dim": 0}, {"self": "acc", "index": "k", "src": buf}),
             step("torch.gather", {"dim": 1}, {"input": "acc", "index": "j"}, "z")]
    cases.append(case("programs/%s/then-scatter_add_" % short, ins, steps, [buf, "acc", "z"], ["write-write"],
                      "%s, its result the src of a scatter_add_, then a gather" % wop))
    return cases


def bug_shape_cases():
    """The shapes issue 32 names, and views between steps."""
    cases = []
    # scatter_add_ into a size-1 dim, then a read of the result.
    ins = {"x": torch.zeros(1, 4), "i": torch.zeros(3, 4, dtype=I64), "s": torch.arange(12, dtype=F32).reshape(3, 4),
           "j": torch.tensor([[3, 0, 2]])}
    for rop, operands in (("torch.gather", {"input": "x", "index": "j"}),):
        steps = [step("torch.scatter_add_", {"dim": 0}, {"self": "x", "index": "i", "src": "s"}),
                 step(rop, {"dim": 1}, operands, "z")]
        cases.append(case("programs/bugs/scatter_add_-size1-dim0-gather", ins, steps, ["x", "z"], ["size1"],
                          "scatter_add_ into a size-1 dim 0, then gather"))
    ins = {"x": torch.zeros(4, 1), "i": torch.zeros(4, 3, dtype=I64), "s": torch.ones(4, 3),
           "k": torch.tensor([3, 0, 3])}
    steps = [step("torch.scatter_add_", {"dim": 1}, {"self": "x", "index": "i", "src": "s"}),
             step("torch.index_select", {"dim": 0}, {"input": "x", "index": "k"}, "z")]
    cases.append(case("programs/bugs/scatter_add_-size1-dim1-index_select", ins, steps, ["x", "z"], ["size1"],
                      "scatter_add_ into a size-1 dim 1, then index_select"))
    ins = {"x": torch.zeros(1, 1), "i": torch.zeros(5, 1, dtype=I64), "s": torch.arange(5, dtype=F32).reshape(5, 1),
           "j": torch.zeros(1, 1, dtype=I64)}
    steps = [step("torch.scatter_add", {"dim": 0}, {"self": "x", "index": "i", "src": "s"}, "y"),
             step("torch.take_along_dim", {"dim": 0}, {"input": "y", "indices": "j"}, "z")]
    cases.append(case("programs/bugs/scatter_add-1x1-take_along_dim", ins, steps, ["y", "z"], ["size1"],
                      "scatter_add into a 1x1 self, then take_along_dim"))
    # index_add_ then gather, with duplicates and alpha; int64 too.
    for dtype, name in ((F32, "float32"), (I64, "int64")):
        ins = {"x": torch.arange(8, dtype=dtype).reshape(2, 4), "k": torch.tensor([1, 1, 0, 1]),
               "src": torch.arange(16, dtype=dtype).reshape(4, 4), "j": torch.tensor([[3, 3, 0], [1, 2, 0]])}
        steps = [step("torch.index_add_", {"dim": 0, "alpha": 3}, {"self": "x", "index": "k", "source": "src"}),
                 step("torch.gather", {"dim": 1}, {"input": "x", "index": "j"}, "z")]
        cases.append(case("programs/bugs/index_add_-duplicates-gather-" + name, ins, steps, ["x", "z"],
                          ["duplicates"], "index_add_ with a duplicated index, then gather"))
    # Duplicates read back: the loose elements feed forward (unspecified there, exact elsewhere).
    ins = {"x": torch.zeros(2, 3), "i": torch.tensor([[0, 0, 1], [0, 1, 1]]), "s": torch.tensor([[1., 2, 3], [4, 5, 6]]),
           "j": torch.tensor([[0, 1, 2], [2, 2, 0]])}
    steps = [step("torch.scatter_", {"dim": 0}, {"self": "x", "index": "i", "src": "s"}),
             step("torch.gather", {"dim": 1}, {"input": "x", "index": "j"}, "z"),
             step("torch.index_add_", {"dim": 0}, {"self": "x", "index": "k", "source": "z"})]
    ins["k"] = torch.tensor([1, 0])
    cases.append(case("programs/bugs/scatter_-duplicates-gather-index_add_", ins, steps, ["x", "z"], ["duplicates"],
                      "scatter_ with duplicate writers, a gather of it, index_add_ of that back"))
    # Views: a write through a transposed view, then a read of the base; a narrow view read after a write.
    ins = {"x": torch.zeros(3, 4), "k": torch.tensor([3, 0]), "src": torch.arange(6, dtype=F32).reshape(2, 3),
           "j": torch.tensor([[0, 3], [1, 0], [3, 3]])}
    steps = [step("view.transpose", {"dim0": 0, "dim1": 1}, {"self": "x"}, "v"),
             step("torch.index_add_", {"dim": 0}, {"self": "v", "index": "k", "source": "src"}),
             step("torch.gather", {"dim": 1}, {"input": "x", "index": "j"}, "z")]
    cases.append(case("programs/bugs/transpose-index_add_-gather", ins, steps, ["x", "z"], ["view"],
                      "index_add_ through a transposed view, then gather from its base"))
    ins = {"x": torch.arange(12, dtype=F32).reshape(4, 3), "i": torch.tensor([[1, 0, 1]]),
           "s": torch.tensor([[10., 20, 30]]), "k": torch.tensor([0, 3, 2])}
    steps = [step("view.narrow", {"dim": 0, "start": 1, "length": 2}, {"self": "x"}, "v"),
             step("torch.scatter_add_", {"dim": 0}, {"self": "v", "index": "i", "src": "s"}),
             step("torch.index_select", {"dim": 0}, {"input": "x", "index": "k"}, "z")]
    cases.append(case("programs/bugs/narrow-scatter_add_-index_select", ins, steps, ["x", "v", "z"], ["view"],
                      "scatter_add_ into a narrowed view, then index_select of its base"))
    # A read whose index is out of bounds after a write: the program ends with the read's error.
    ins = {"x": torch.zeros(2, 3), "i": torch.tensor([[0, 1, 0]]), "s": torch.ones(1, 3), "j": torch.tensor([[3]])}
    steps = [step("torch.scatter_add_", {"dim": 0}, {"self": "x", "index": "i", "src": "s"}),
             step("torch.gather", {"dim": 1}, {"input": "x", "index": "j"}, "z")]
    cases.append(case("programs/bugs/scatter_add_-then-gather-out-of-bounds", ins, steps, ["x", "z"], ["error"],
                      "scatter_add_, then a gather whose index is out of bounds"))
    ins = {"x": torch.zeros(3, 2), "k": torch.tensor([0, 3]), "src": torch.ones(2, 2), "j": torch.tensor([0, 1])}
    steps = [step("torch.index_add_", {"dim": 0}, {"self": "x", "index": "k", "source": "src"}),
             step("torch.index_select", {"dim": 0}, {"input": "x", "index": "j"}, "z")]
    cases.append(case("programs/bugs/index_add_-out-of-bounds-then-read", ins, steps, ["x", "z"], ["error"],
                      "index_add_ with an index out of bounds (the first step breaks the rule)"))
    return cases


def main():
    files = {}
    for write in write_ops():
        short = write[0].split(".", 1)[1]
        files[short] = pair_cases(write, False) + pair_cases(write, True)
    files["bugs"] = bug_shape_cases()
    for name, cases in files.items():
        doc = {"format": "scatterproof-spec/1",
               "description": "programs (specs/FORMAT.md \"Programs\") of %s; written by gen_programs.py" % name,
               "cases": cases}
        with open(os.path.join(HERE, name + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print("%s.json: %d cases" % (name, len(cases)))


if __name__ == "__main__":
    main()
