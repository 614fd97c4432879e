#!/usr/bin/env bash
# Builds build-libtorch-current/: scatterproof-serve against the LibTorch
# that the current PyTorch wheel in .venv-current ships, for the backend
# `libtorch-current` (two LibTorch versions cannot share one process, so the
# harness runs this one out of process: `scatterproof-serve libtorch`), and
# scatterproof-bench-worker, with which `scatterproof bench` times that
# LibTorch in its own process (bench/bench.h).
#
# Idempotent: configures once (the wheel's torch package as SP_TORCH_WHEEL,
# no tests, no CUDA backend), then only runs ninja for the two targets. With
# no torch in .venv-current it says so and exits 0: the backend is then
# unavailable (make_backend names this script), and callers go on without it.
#
#   scripts/setup-libtorch-current.sh
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build-libtorch-current
py=.venv-current/bin/python
torch_pkg=
for candidate in .venv-current/lib/python3*/site-packages/torch; do
  [ -f "$candidate/include/torch/headeronly/version.h" ] || [ -f "$candidate/include/torch/version.h" ] || continue
  torch_pkg=$PWD/$candidate
done
if [ ! -x "$py" ] || [ -z "$torch_pkg" ]; then
  echo "setup-libtorch-current: no PyTorch wheel with LibTorch in .venv-current (.venv-current/lib/python3*/site-packages/torch);" \
    "the backend libtorch-current stays unavailable. Make it with:" \
    "scripts/setup-python.sh (it makes .venv-current with the pinned torch)"
  exit 0
fi

if [ ! -f "$dir/build.ninja" ]; then
  # The wheel must use the C++11 ABI, as GCC's default and Debian's
  # libraries (fmt, nlohmann_json users) do; one tree cannot mix the two.
  abi=$("$py" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
  if [ "$abi" != 1 ]; then
    echo "setup-libtorch-current: the wheel in .venv-current is built without the C++11 ABI" \
      "(torch._C._GLIBCXX_USE_CXX11_ABI = $abi); this tree cannot link it" >&2
    exit 1
  fi
  echo "setup-libtorch-current: configuring $dir against $torch_pkg"
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_TESTS=OFF -DSP_WITH_CUDA=OFF \
    -DSP_TORCH_WHEEL="$torch_pkg" "${launcher[@]}"
fi
# shellcheck source=scripts/sp-ccache-env.sh
. scripts/sp-ccache-env.sh
exec ninja -C "$dir" scatterproof-serve scatterproof-bench-worker
