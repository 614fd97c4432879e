"""An adapter on adapters/common.py that shows what run() receives, for
tests/process_backend_test.cc: every request is answered "unsupported" with
the repr of the args dict run() got (sorted by name), so the test sees the
Python values and kinds common.py decoded.

torch.gather is declared with the arguments it implements (["dim"]), so
common.py must decline any other argument before run() is called;
torch.scatter_ is declared with None (no check) and echoes whatever comes.
Needs a python3 with numpy (common.py imports it): the test runs it with .venv.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters"))
from common import Unsupported, serve  # noqa: E402


def run(op, args, tensors):
    raise Unsupported("%s got {%s}" % (op, ", ".join("%r: %r" % (k, args[k]) for k in sorted(args))))


serve("args-echo", "0", {"torch.gather": ["dim"], "torch.scatter_": None}, run)
