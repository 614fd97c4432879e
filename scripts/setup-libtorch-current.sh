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
#   scripts/setup-libtorch-current.sh [--venv DIR] [--build-dir DIR]
#
#   --venv       the venv whose torch wheel to build against (default .venv-current);
#                scripts/version-matrix passes each release's
#   --build-dir  the build tree (default build-libtorch-current); another one
#                is run by pointing SCATTERPROOF_LIBTORCH_SERVE at its scatterproof-serve
#
# A wheel built with the pre-C++11 ABI (PyPI's before 2.7) gets a tree
# compiled with -D_GLIBCXX_USE_CXX11_ABI=0 throughout (SP_TORCH_WHEEL_CXX11_ABI=OFF)
# and only scatterproof-serve: the bench worker links Debian's libfmt, built
# with the C++11 ABI, so it cannot be built against such a wheel (said, exit 0).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-current
dir=build-libtorch-current
while (($#)); do
  case $1 in
    --venv) venv=$2; shift 2 ;;
    --build-dir) dir=$2; shift 2 ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "setup-libtorch-current: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
py=$venv/bin/python
torch_pkg=
for candidate in "$venv"/lib/python3*/site-packages/torch; do
  [ -f "$candidate/include/torch/headeronly/version.h" ] || [ -f "$candidate/include/torch/version.h" ] ||
    [ -f "$candidate/include/torch/csrc/api/include/torch/version.h" ] || continue
  torch_pkg=$(cd "$candidate" && pwd)
done
if [ ! -x "$py" ] || [ -z "$torch_pkg" ]; then
  echo "setup-libtorch-current: no PyTorch wheel with LibTorch in $venv ($venv/lib/python3*/site-packages/torch);" \
    "the backend libtorch-current stays unavailable. Make it with:" \
    "scripts/setup-python.sh (it makes .venv-current with the pinned torch)"
  exit 0
fi

# The wheel's ABI: the C++11 one (GCC's default, Debian's libraries) or the
# old one, for which every object of the tree is compiled the old way.
abi=$("$py" -c 'import torch; print(int(torch.compiled_with_cxx11_abi()))')
targets=(scatterproof-serve scatterproof-bench-worker)
cxx11=ON
if [ "$abi" != 1 ]; then
  cxx11=OFF
  targets=(scatterproof-serve)
  echo "setup-libtorch-current: the wheel in $venv uses the pre-C++11 ABI (torch.compiled_with_cxx11_abi() is False):" \
    "building $dir with -D_GLIBCXX_USE_CXX11_ABI=0, scatterproof-serve only (the bench worker links Debian's" \
    "libfmt, built with the C++11 ABI)"
fi
if [ -f "$dir/build.ninja" ] && ! grep -qxF "SP_TORCH_WHEEL:PATH=$torch_pkg" "$dir/CMakeCache.txt"; then
  echo "setup-libtorch-current: $dir was configured against another wheel: configuring it again"
  rm -f "$dir/CMakeCache.txt" "$dir/build.ninja"
fi
if [ ! -f "$dir/build.ninja" ]; then
  echo "setup-libtorch-current: configuring $dir against $torch_pkg"
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_TESTS=OFF -DSP_WITH_CUDA=OFF \
    -DSP_TORCH_WHEEL="$torch_pkg" -DSP_TORCH_WHEEL_CXX11_ABI=$cxx11 "${launcher[@]}"
fi
# shellcheck source=scripts/sp-ccache-env.sh
. scripts/sp-ccache-env.sh
exec ninja -C "$dir" "${targets[@]}"
