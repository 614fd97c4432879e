#!/usr/bin/env bash
# CI: a vendor's view of the plugin SDK. Installs a built scatterproof into a
# temporary prefix, builds examples/plugin/ against it with find_package,
# and runs the installed CLI with that plugin over the torch specs (cases it
# does not implement report "unsupported", which is an expected result), the
# gather backward through its ABI 2.2 backward entry point included.
#   scripts/check-plugin-sdk.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S examples/plugin -B "$work/vendor-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/vendor-build"
plugin="$work/vendor-build/libvendor_scatter.so"
"$work/prefix/bin/scatterproof" run --backend "plugin:$plugin" --report-dir "$work/reports" \
    specs/torch specs/edge/torch-gather-*.json specs/edge/torch-scatter-*.json specs/edge/torch-index-select-*.json \
    specs/edge/torch-out.json specs/edge/torch-backward.json
echo "check-plugin-sdk: the example plugin built against the installed SDK ran the torch specs as expected"

# The same plugin built for coverage-guided fuzzing (scatterproof_plugin(... COVERAGE), clang) and
# fuzzed in process by the installed fuzz_plugin_guided for 3 s: it loads, is steered, finds nothing.
if [[ -x "$work/prefix/bin/fuzz_plugin_guided" ]] && command -v clang >/dev/null; then
  CC=clang cmake -S examples/plugin -B "$work/vendor-cov" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$work/prefix" -DVENDOR_COVERAGE=ON >/dev/null
  cmake --build "$work/vendor-cov" >/dev/null
  SP_FUZZ_PLUGIN="$work/vendor-cov/libvendor_scatter.so" "$work/prefix/bin/fuzz_plugin_guided" \
      -seed=1 -max_total_time=3 -artifact_prefix="$work/" 2>"$work/guided.log" ||
      { tail -20 "$work/guided.log"; echo "check-plugin-sdk: coverage-guided fuzzing of the example failed"; exit 1; }
  grep -q "coverage-guided generation" "$work/guided.log"
  echo "check-plugin-sdk: the example built with COVERAGE was fuzzed in process, coverage-guided, 3 s, no finding"
else
  echo "check-plugin-sdk: no fuzz_plugin_guided or clang here: the COVERAGE build is not checked"
fi
