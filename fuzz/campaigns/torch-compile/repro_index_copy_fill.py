"""torch.compile (Inductor, CPU) and eager disagree on torch.index_copy and torch.index_fill: standalone
reproducer, torch only.

    python3 repro_index_copy_fill.py      # prints eager vs compiled for each call, dynamic=False and True

Measured with torch 2.15.0+cu132 (CPU), 2026-11-27, by scatterproof's torch-compile-current backends
(specs/edge/torch-index-copy-*.json, torch-index-fill-*.json; reference/SEMANTICS.md CC-3/CC-4). Compiled
index_copy becomes an index_put (index_fill goes through index_copy: torch/_refs/__init__.py _index_fill),
which, unlike eager,
  1. takes an int32 index (eager index_copy_: "Expected a long tensor for index", index_fill_: "Expected
     dtype int64 for index"),
  2. wraps a negative index (-1: the last row) where eager raises "index_copy_(): index -1 is out of bounds",
  3. converts a source of another dtype (eager: "self and source expected to have the same dtype"),
  4. fills 1e6 into float16 as inf (eager: "value cannot be converted to type c10::Half without overflow"), and
  5. with a dim out of range, fails in the ref with a bare "IndexError: list assignment index out of range",
  6. reads a uint8 (or bool) index as a mask: index_fill with index [3, 1, 2, 1] fills every column (all
     nonzero) where eager raises "index_fill_(): Expected dtype int64 for index"; [1, 0, 1, 0] selects two
     columns and then fails in index_put's broadcast (found by the campaign, fuzz/campaigns/torch-compile/static;
     pinned in specs/regressions/torch-compile-index-copy-fill-index-put.json), and
  7. with dynamic=True, fills -0.0 as +0.0 (the Python float becomes a SymFloat; dynamic=False keeps the sign).
"""
import torch


def index_copy(self, index, source):
    return torch.index_copy(self, 0, index, source)


def index_fill(self, index, value, dim):
    return torch.index_fill(self, dim, index, value)


CALLS = [
    ("index_copy, int32 index", index_copy, torch.zeros(3, 4), torch.tensor([2, 0], dtype=torch.int32),
     torch.arange(1.0, 9.0).reshape(2, 4)),
    ("index_copy, negative index -1", index_copy, torch.zeros(3, 4), torch.tensor([-1, 0]),
     torch.arange(1.0, 9.0).reshape(2, 4)),
    ("index_copy, float64 source into float32 self", index_copy, torch.zeros(3, 4), torch.tensor([0]),
     torch.ones(1, 4, dtype=torch.float64)),
    ("index_fill, int32 index", index_fill, torch.zeros(3, 4), torch.tensor([0, 2], dtype=torch.int32), -1.0, 1),
    ("index_fill, negative index -1 (eager wraps it too: no difference)", index_fill, torch.zeros(3, 4), torch.tensor([-1]), 7.0, 0),
    ("index_fill, 1e6 into float16", index_fill, torch.zeros(2, dtype=torch.float16), torch.tensor([1]), 1e6, 0),
    ("index_fill, uint8 index [3, 1, 2, 1] (compiled reads it as a mask, all nonzero: every column)", index_fill,
     torch.zeros(2, 4), torch.tensor([3, 1, 2, 1], dtype=torch.uint8), -0.75, 1),
    ("index_fill, uint8 index [1, 0, 1, 0] (a mask of 2 columns: index_put's broadcast refuses)", index_fill,
     torch.zeros(2, 4), torch.tensor([1, 0, 1, 0], dtype=torch.uint8), -0.75, 1),
    ("index_fill, value -0.0 (dynamic=True: a symbolic float, the sign is lost)", index_fill,
     torch.ones(2, dtype=torch.float64), torch.tensor([1]), -0.0, 0),
    ("index_copy, uint8 source into int16 self", index_copy, torch.tensor([5, 6], dtype=torch.int16),
     torch.tensor([1]), torch.tensor([254], dtype=torch.uint8)),
    ("index_fill, dim 2 of a 2-d self (both dim errors, other words)", index_fill, torch.zeros(3, 4), torch.tensor([0]), 1.0, 2),
]


def outcome(fn, args):
    try:
        return "result %s" % fn(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args]).tolist()
    except Exception as exc:  # noqa: BLE001 (what each side raises is the point)
        lines = str(exc).strip().splitlines()  # Dynamo's wrapper names the op's own error in a line with "got"
        return "%s: %s" % (type(exc).__name__, next((l for l in lines if "got " in l), lines[0]).strip()[-200:])


if __name__ == "__main__":
    print("torch", torch.__version__)
    for dynamic in (False, True):
        for name, fn, *args in CALLS:
            torch._dynamo.reset()
            compiled = torch.compile(fn, fullgraph=True, dynamic=dynamic)
            eager, comp = outcome(fn, args), outcome(compiled, args)
            print("%s dynamic=%s\n  eager:    %s\n  compiled: %s%s" % (name, dynamic, eager, comp,
                                                                    "" if eager == comp else "   <-- differs"))
