"""torch.compile (Inductor, CPU) and eager disagree on torch.index_add: standalone reproducer, torch only.

    python3 repro_index_add.py            # prints eager vs compiled for each call, dynamic=False and True

Measured with torch 2.15.0+cu132 (CPU), 2026-11-27, by scatterproof's torch-compile-current backends
(specs/edge/torch-index-add-*.json; reference/SEMANTICS.md CC-3/CC-4). Eager refuses each call the
documentation refuses and computes alpha * source in the tensor's dtype; compiled code decomposes index_add
(torch/_inductor/decomposition.py index_add -> torch/_decomp/decompositions.py _index_add, an index_put with
accumulate=True; bfloat16 on the CPU is left to the eager kernel), which
  1. skips alpha's range check (300 into int8, -256 into uint8, 1e300 into float32: eager raises
     "value cannot be converted to type ... without overflow"),
  2. broadcasts source instead of refusing a shape that is not self's apart from dim (eager: "source tensor
     shape must match self tensor shape, excluding the specified dimension"), and takes a 0-d self,
  3. multiplies alpha * source in float32 for a float16 self (one rounding fewer: 1.2099609 vs eager's
     1.2089844),
  4. refuses a float alpha on an integer self that eager accepts and truncates ("alpha argument of type
     <class 'float'> cannot be safely cast to type <class 'int'>!").
  5. wraps a negative index (-1: the last row) where eager refuses it (pytorch/pytorch#185885, open, reports
     it for dynamic=True; dynamic=False does the same), and
  6. converts a source of another dtype where eager refuses it ("must have the same scalar type").
"""
import torch


def index_add(self, index, source, alpha):
    return torch.index_add(self, 0, index, source, alpha=alpha)


CALLS = [
    ("alpha 300 into int8 (eager: value cannot be converted)",
     torch.tensor([1, 2, 3], dtype=torch.int8), torch.tensor([0]), torch.tensor([1], dtype=torch.int8), 300),
    ("alpha -256 into uint8", torch.tensor([1, 2, 3], dtype=torch.uint8), torch.tensor([0]),
     torch.tensor([1], dtype=torch.uint8), -256),
    ("alpha 1e300 into float32", torch.tensor([1.0, 2.0]), torch.tensor([0]), torch.tensor([1.0]), 1e300),
    ("source [2, 1] for self [3, 4] (eager: source tensor shape must match)", torch.zeros(3, 4),
     torch.tensor([0, 2]), torch.tensor([[1.0], [2.0]]), 1),
    ("0-d self", torch.tensor(5.0), torch.tensor([0, 0]), torch.tensor([1.0, 2.0]), 1),
    ("float16 alpha 1.1 times 1.0996 (eager rounds alpha * source in float16)", torch.zeros(2, dtype=torch.float16),
     torch.tensor([0]), torch.tensor([1.099609375], dtype=torch.float16), 1.1),
    ("negative index -1 (eager: index out of range in self; pytorch/pytorch#185885)", torch.zeros(3, 2),
     torch.tensor([-1]), torch.tensor([[1.0, 2.0]]), 1),
    ("float64 source into float32 self (eager: must have the same scalar type)", torch.zeros(3, 2),
     torch.tensor([0]), torch.tensor([[1.0, 2.0]], dtype=torch.float64), 1),
    ("float alpha 2.5 on int32 (eager truncates)", torch.tensor([1, 2, 3], dtype=torch.int32),
     torch.tensor([0, 2]), torch.tensor([3, -4], dtype=torch.int32), 2.5),
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
        for name, *args in CALLS:
            torch._dynamo.reset()
            compiled = torch.compile(index_add, fullgraph=True, dynamic=dynamic)
            eager, comp = outcome(index_add, args), outcome(compiled, args)
            print("%s dynamic=%s\n  eager:    %s\n  compiled: %s%s" % (name, dynamic, eager, comp,
                                                                    "" if eager == comp else "   <-- differs"))
