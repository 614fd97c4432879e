#!/usr/bin/env bash
# Creates the project's two Python environments at the source root for the
# subprocess adapters (adapters/*.py; which adapter runs in which venv is the
# "venv" field of adapters/manifest.json) and installs the real frameworks
# they drive, CPU builds from PyPI, at versions the adapters were verified
# against:
#
#   .venv          NumPy 1.26.4, PaddlePaddle 3.3.1, MindSpore 2.10.0; made
#                  with --system-site-packages, so Debian's python3-torch
#                  (1.13, if installed) serves the torch-python adapter
#                  without a second copy of torch
#   .venv-current  the current PyTorch and NumPy 2.x (torch 2.15.0, numpy
#                  2.4.6), without the system site-packages, so it sees only
#                  its own torch (backends torch-python-current and
#                  numpy-current); about 3.0 GB of wheels, 5.4 GB installed
#
# Idempotent: an existing venv is kept and a package is installed only when
# it is missing or at another version. Non-interactive (CI, root or not).
#
#   scripts/setup-python.sh                                     # both venvs
#   SP_PYTHON_PACKAGES="numpy==2.2.6" scripts/setup-python.sh   # .venv: these instead
#   SP_PYTHON_CURRENT_PACKAGES="torch==2.16.0 numpy==2.5.0" scripts/setup-python.sh
#                                                               # .venv-current: these instead
#   SP_PYTHON_CURRENT_PACKAGES= scripts/setup-python.sh         # no .venv-current (its
#                                                               # backends then say unavailable)
set -euo pipefail
cd "$(dirname "$0")/.."

# Verified together on CPython 3.11 / x86_64 (see adapters/README.md).
default_packages="numpy==1.26.4 paddlepaddle==3.3.1 mindspore==2.10.0"
default_current_packages="torch==2.15.0 numpy==2.4.6 onnx==1.23.2 onnxruntime==1.32.0 jax==0.10.2 jaxlib==0.10.2"

# Debian's interpreter when its venv module is installed (python3-venv),
# else the first python3 on PATH.
base_python=python3
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null; then
  base_python=/usr/bin/python3
fi

# ensure_venv DIR SYSTEM_SITE(yes|no) PACKAGE==VERSION...
# Makes DIR if it has no interpreter, then installs the packages it does not
# have at exactly the pinned version; says how long that took.
ensure_venv() {
  local venv=$1 system_site=$2
  shift 2
  local start
  start=$(date +%s)
  if [ ! -x "$venv/bin/python" ]; then
    local flags=()
    if [ "$system_site" = yes ]; then flags+=(--system-site-packages); fi
    echo "setup-python: creating $venv with $base_python${flags:+ ${flags[*]}}"
    "$base_python" -m venv "${flags[@]}" "$venv"
  fi
  local py="$venv/bin/python"

  # A package is present when the venv reports exactly the pinned version.
  local missing=() spec name want have
  for spec in "$@"; do
    name=${spec%%==*}
    want=${spec#*==}
    have=$("$py" -c 'import sys
from importlib import metadata
try:
    print(metadata.version(sys.argv[1]))
except metadata.PackageNotFoundError:
    pass' "$name")
    if [ "$have" != "$want" ]; then missing+=("$spec"); fi
  done

  if ((${#missing[@]})); then
    echo "setup-python: $venv: installing ${missing[*]}"
    "$py" -m pip install --no-input --disable-pip-version-check --progress-bar off "${missing[@]}"
    echo "setup-python: $venv: installed in $(($(date +%s) - start)) s"
  else
    echo "setup-python: $venv: $* already installed ($(($(date +%s) - start)) s)"
  fi
}

read -r -a packages <<<"${SP_PYTHON_PACKAGES:-$default_packages}"
ensure_venv .venv yes "${packages[@]}"

# Unset: the default pins; set but empty: no .venv-current.
read -r -a current_packages <<<"${SP_PYTHON_CURRENT_PACKAGES-$default_current_packages}"
if ((${#current_packages[@]})); then
  ensure_venv .venv-current no "${current_packages[@]}"
else
  echo "setup-python: SP_PYTHON_CURRENT_PACKAGES is empty: .venv-current not made or updated"
fi
