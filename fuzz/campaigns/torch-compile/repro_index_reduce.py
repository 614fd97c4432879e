"""torch.compile (Inductor, CPU) accepts an out-of-range index in Tensor.index_reduce_ when self has
no element along dim, where eager refuses it: standalone reproducer, torch only.

    python3 repro_index_reduce.py         # prints eager vs compiled, dynamic=False and True

Found by scatterproof fuzz --backend torch-compile-current --programs (torch 2.15.0+cu132, CPU,
2026-11-28; fuzz/campaigns/torch-compile/programs, repro-torch-compile-current-40bc4ca891d7.json, its
first step alone; pinned in specs/regressions/torch-compile-index-reduce-empty-self.json). Eager
index_reduce_ refuses an index value outside [0, self.size(dim)) ("index out of range in self"), also
when self.size(dim) is 0. Compiled, amax/prod in float32 and every reduce in bfloat16 return self
unchanged: no index value is checked when self has no element (float32 'mean' is refused by the
generated kernel of its count). The scatter family shows the same class (compiled.json, T-B1).
"""
import torch


def amax_(x, index, source):
    return x.index_reduce_(0, index, source, "amax", include_self=True)


def mean_(x, index, source):
    return x.index_reduce_(0, index, source, "mean", include_self=True)


BF16 = torch.bfloat16
CALLS = [
    ("amax, index [0] into a float32 [0, 2] self", amax_, torch.empty(0, 2), torch.tensor([0]),
     torch.tensor([[2.0, -2.0]])),
    ("mean, int32 index [0] into a bfloat16 [0, 2] self (the campaign's call)", mean_, torch.empty(0, 2, dtype=BF16),
     torch.tensor([0], dtype=torch.int32), torch.tensor([[2.0, -2.0]], dtype=BF16)),
    ("mean, index [0] into a float32 [0, 2] self (both refuse: the count's kernel checks)", mean_, torch.empty(0, 2),
     torch.tensor([0]), torch.tensor([[2.0, -2.0]])),
    ("amax, index [3] into a float32 [2, 2] self (both refuse)", amax_, torch.zeros(2, 2), torch.tensor([3]),
     torch.tensor([[2.0, -2.0]])),
]


def outcome(fn, args):
    """("result" or "error", what it was)."""
    try:
        return "result", str(fn(*[a.clone() for a in args]).tolist())
    except Exception as exc:  # noqa: BLE001 (what each side raises is the point)
        lines = str(exc).strip().splitlines()
        return "error", "%s: %s" % (type(exc).__name__, lines[0].strip()[-160:])


if __name__ == "__main__":
    print("torch", torch.__version__)
    for dynamic in (False, True):
        for name, fn, *args in CALLS:
            torch._dynamo.reset()
            compiled = torch.compile(fn, fullgraph=True, dynamic=dynamic)
            eager, comp = outcome(fn, args), outcome(compiled, args)
            differs = "   <-- differs" if eager[0] != comp[0] else ""
            print("%s dynamic=%s\n  eager:    %s %s\n  compiled: %s %s%s" % (name, dynamic, *eager, *comp, differs))
