"""The in-tree adapters' name for the Python adapter SDK, scatterproof_adapter
(python/scatterproof_adapter/src/scatterproof_adapter/: its code and
documentation live there, once).

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import serve, Unsupported, DocumentedError   # before importing the framework

The adapters run from the project's venvs (.venv, .venv-current), where the
package is not installed: this module puts the package's source directory,
found relative to this file, first on sys.path (so the checkout's SDK wins
over any installed copy) and then makes `common` the package module itself,
so `common.X` and `scatterproof_adapter.X` are one object, module state
included. Where that directory is absent (adapters copied elsewhere), an
installed scatterproof_adapter, or one beside this file, is used.
"""
import os
import sys

_source = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python",
                                        "scatterproof_adapter", "src"))
if os.path.isdir(os.path.join(_source, "scatterproof_adapter")) and _source not in sys.path:
    sys.path.insert(0, _source)

try:
    import scatterproof_adapter  # noqa: E402  (takes stdout for the protocol on import)
except ModuleNotFoundError as exc:
    if exc.name != "scatterproof_adapter":
        raise  # NumPy missing: the venv's own problem, said as Python says it
    raise ImportError("adapters/common.py: cannot import scatterproof_adapter (%s): it is expected in %s, or "
                      "installed with `python3 -m pip install python/scatterproof_adapter`" % (exc, _source)) from exc

sys.modules[__name__] = scatterproof_adapter
