"""torch.compile (Inductor, CPU) wraps a negative index in torch.index_select where eager refuses it:
standalone reproducer, torch only.

    python3 repro_index_select.py         # prints eager vs compiled, dynamic=False and True

Found by scatterproof fuzz --backend torch-compile-current (torch 2.15.0+cu132, CPU, 2026-11-27;
fuzz/campaigns/torch-compile/static, bucket 6; pinned in specs/regressions/torch-compile-index-select-negative-index.json).
Eager index_select refuses an index value outside [0, size) ("index out of range in self"); compiled code lowers
index_select through aten.index (torch/_inductor/lowering.py), whose indexing wraps negative values, so -1 selects
the last element. A value >= size is still refused by the generated kernel's check ("index out of bounds").
"""
import torch


def select(x, index):
    return torch.index_select(x, -1, index)


CALLS = [
    ("index -1 along the last dim", torch.arange(12.0).reshape(3, 4), torch.tensor([-1])),
    ("index [0, -4] along the last dim", torch.arange(12.0).reshape(3, 4), torch.tensor([0, -4])),
    ("index 4 along a dim of size 4 (both refuse)", torch.arange(12.0).reshape(3, 4), torch.tensor([4])),
]


def outcome(fn, args):
    try:
        return "result %s" % fn(*[a.clone() for a in args]).tolist()
    except Exception as exc:  # noqa: BLE001 (what each side raises is the point)
        lines = str(exc).strip().splitlines()
        return "%s: %s" % (type(exc).__name__, next((l for l in lines if "got " in l), lines[0]).strip()[-200:])


if __name__ == "__main__":
    print("torch", torch.__version__)
    for dynamic in (False, True):
        for name, *args in CALLS:
            torch._dynamo.reset()
            compiled = torch.compile(select, fullgraph=True, dynamic=dynamic)
            eager, comp = outcome(select, args), outcome(compiled, args)
            print("%s dynamic=%s\n  eager:    %s\n  compiled: %s%s" % (name, dynamic, eager, comp,
                                                                    "" if eager == comp else "   <-- differs"))
