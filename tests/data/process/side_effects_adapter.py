"""An adapter on adapters/common.py for tests/side_effects_test.cc: a
torch.scatter_ (src, no reduce) on 1-D float32 self, run with NumPy on the
wire arrays themselves (so what it leaves in them is what the call left).
argv[1] picks a mode, as tests/data/plugin/side_effects_plugin.c:
  correct      every rule checked before the first write
  write_input  correct, then also writes into src (an operand it only reads)
  partial      writes while it checks the index values, checks src's dtype
               and the sizes only after writing
  old          write_input, from an adapter that does not return its
               operands (serve(operands=False)): the harness must call its
               side effects not observable, never checked
Needs a python3 with numpy (common.py imports it): the test runs it with .venv.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters"))
from common import DocumentedError, Unsupported, serve  # noqa: E402

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"


def write_all(self_view, index, src):
    for i, target in enumerate(index):
        if not 0 <= target < len(self_view):
            raise DocumentedError("index_out_of_bounds", "index %d out of bounds" % target)
        self_view[target] = src[i]


def run(op, args, tensors):
    self_wire, index_wire, src_wire = tensors["self"], tensors["index"], tensors.get("src")
    if (src_wire is None or args.get("dim") != 0 or "reduce" in args or len(self_wire.shape) != 1
            or len(index_wire.shape) != 1 or len(src_wire.shape) != 1 or index_wire.dtype != "int64"
            or self_wire.dtype != "float32" or src_wire.dtype not in ("float32", "float64")):
        raise Unsupported("side_effects adapter: only 1-D scatter_ with an int64 index and a float src")
    self_view, index, src = self_wire.view(), [int(v) for v in index_wire.view()], src_wire.view()
    dtype_ok = src_wire.dtype == self_wire.dtype
    sizes_ok = len(index) <= len(src)
    if MODE == "partial":
        write_all(self_view, index, src)
    if not dtype_ok:
        raise DocumentedError("dtype_mismatch", "src dtype differs from self")
    if not sizes_ok:
        raise DocumentedError("shape_mismatch", "index is longer than src")
    if MODE != "partial":
        for target in index:
            if not 0 <= target < len(self_view):
                raise DocumentedError("index_out_of_bounds", "index %d out of bounds" % target)
        write_all(self_view, index, src)
    if MODE in ("write_input", "old") and len(src):
        src[0] = src[0] + 1
    return [self_wire]


serve("side-effects-" + MODE, "0", {"torch.scatter_": ["dim"]}, run, operands=MODE != "old")
