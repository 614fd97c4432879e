#!/usr/bin/env bash
# Creates the project's Python environment (.venv at the source root) for the
# subprocess adapters (adapters/*.py) and installs the real frameworks they
# drive: NumPy, PaddlePaddle and MindSpore, CPU builds from PyPI, at versions
# the adapters were verified against. Idempotent: an existing .venv is kept
# and a package is installed only when it is missing or at another version.
# Non-interactive (CI, root or not).
#
#   scripts/setup-python.sh            # all three frameworks
#   SP_PYTHON_PACKAGES="numpy==2.2.6" scripts/setup-python.sh   # a subset
#
# The venv sees the system site-packages, so Debian's python3-torch (if
# installed) serves the torch-python adapter without a second copy of torch.
set -euo pipefail
cd "$(dirname "$0")/.."

# Verified together on CPython 3.11 / x86_64 (see adapters/README.md).
default_packages="numpy==1.26.4 paddlepaddle==3.3.1 mindspore==2.10.0"
read -r -a packages <<<"${SP_PYTHON_PACKAGES:-$default_packages}"

venv=.venv
if [ ! -x "$venv/bin/python" ]; then
  # Debian's interpreter when its venv module is installed (python3-venv),
  # else the first python3 on PATH.
  base_python=python3
  if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null; then
    base_python=/usr/bin/python3
  fi
  echo "setup-python: creating $venv with $base_python"
  "$base_python" -m venv --system-site-packages "$venv"
fi
py="$venv/bin/python"

# A package is present when the venv reports exactly the pinned version.
missing=()
for spec in "${packages[@]}"; do
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
  echo "setup-python: installing ${missing[*]}"
  start=$(date +%s)
  "$py" -m pip install --no-input --disable-pip-version-check --progress-bar off "${missing[@]}"
  echo "setup-python: installed in $(($(date +%s) - start)) s"
else
  echo "setup-python: ${packages[*]} already installed"
fi
