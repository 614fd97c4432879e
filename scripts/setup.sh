#!/usr/bin/env bash
# Installs what is missing (Debian packages) and builds scatterproof.
# Idempotent: installs only packages that are absent, reuses the build tree.
#
#   scripts/setup.sh [BUILD_DIR] [extra cmake args...]
#   scripts/setup.sh --packages-only     (install what is missing, build nothing)
# Environment: SP_BUILD_TYPE (default Release), SP_JOBS (default nproc),
# SP_EXTRA_PACKAGES (more Debian packages to install if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ ccache
          nlohmann-json3-dev libvalijson-dev libcli11-dev libfmt-dev
          libgtest-dev librapidcheck-dev libtorch-dev clang clang-format libclang-rt-dev
          zip unzip  # the emulated OSS-Fuzz build (scripts/check-oss-fuzz-build)
          chromium  # the headless-browser test of report.html (tests/html_report_check.py)
          python3-venv python3-torch  # the venv's base interpreter and PyTorch-through-Python
          python3-dev)  # Python.h: torch.compile (torch-compile-current) builds its C++ with g++ -I$(python include dir)
# SP_EXTRA_PACKAGES: more Debian packages an opt-in script needs (scripts/coverage: gcovr).
read -r -a extra_packages <<<"${SP_EXTRA_PACKAGES:-}"
packages+=("${extra_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${1:-}" = --packages-only ]; then exit 0; fi
build_dir=${1:-build}
shift || true
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# ccache shares objects between checkouts (a fresh clone in CI, worktrees): paths
# under the checkout's parent are hashed relative to the build directory, and the
# build directory itself is not hashed. scripts/sp-ccache-env.sh says which.
# shellcheck source=scripts/sp-ccache-env.sh
. scripts/sp-ccache-env.sh
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${SP_BUILD_TYPE:-Release}" "${launcher[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "${SP_JOBS:-$(nproc)}"
