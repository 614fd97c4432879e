#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build of the libFuzzer targets of fuzz/targets/,
# by the base-builder's contract: run from the project's checkout
# ($SRC/scatterproof, the Dockerfile's WORKDIR); compiler and flags come from
# $CC, $CXX, $CFLAGS and $CXXFLAGS (the sanitizer and coverage flags, which
# differ per build: address, undefined, memory, coverage), the fuzzing engine
# from $LIB_FUZZING_ENGINE; intermediate files go to $WORK, the targets with
# their dictionaries and seed corpora to $OUT. This script names no sanitizer
# and no engine. scripts/check-oss-fuzz-build emulates the base-builder on a
# Debian machine and proves the flags come from the environment.
src=$PWD
if [ ! -f "$src/fuzz/CMakeLists.txt" ]; then
  echo "build.sh: run from the scatterproof checkout (\$SRC/scatterproof), not $src" >&2
  exit 1
fi
build="$WORK/scatterproof-build"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi

# CMAKE_BUILD_TYPE=OSSFuzz: a build type with no flags of its own, so the
# optimisation and debug flags are $CXXFLAGS' (-O1 -gline-tables-only).
# SP_LIB_FUZZING_ENGINE links each target with $LIB_FUZZING_ENGINE and
# keeps the project's own sanitizer flags (SP_FUZZERS, SP_SANITIZE) out.
cmake -S "$src" -B "$build" "${generator[@]}" --no-warn-unused-cli \
  -DCMAKE_BUILD_TYPE=OSSFuzz \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DSP_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DSP_FUZZERS=OFF -DSP_SANITIZE=OFF -DSP_BUILD_TESTS=OFF -DSP_WITH_LIBTORCH=OFF -DSP_WITH_CUDA=OFF

# Every self-contained target: those fuzz/CMakeLists.txt declares with
# sp_add_fuzz_target. Not every file of fuzz/targets/ is one: replay_main.cc
# is the corpus replayer of the project's own builds, and plugin_guided.cc
# fuzzes a vendor plugin named at run time (SP_FUZZ_PLUGIN), so it is built
# only in the project's plain trees (docs/fuzzing.md).
mapfile -t targets < <(sed -n 's/^sp_add_fuzz_target(\([a-z_0-9]*\).*/\1/p' "$src/fuzz/CMakeLists.txt")
if [ "${#targets[@]}" -eq 0 ]; then
  echo "build.sh: no sp_add_fuzz_target line in $src/fuzz/CMakeLists.txt" >&2
  exit 1
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

for name in "${targets[@]}"; do
  cp "$build/fuzz/fuzz_$name" "$OUT/$name"
  if [ -f "$src/fuzz/$name.dict" ]; then cp "$src/fuzz/$name.dict" "$OUT/$name.dict"; fi
  # Seed corpus: the corpus and every saved crash (fixed bugs, kept as
  # regressions), staged in $WORK so equal file names cannot collide.
  seeds="$WORK/seeds/$name"
  rm -rf "$seeds" "$OUT/${name}_seed_corpus.zip"
  mkdir -p "$seeds"
  if [ -d "$src/fuzz/corpus/$name" ]; then cp -R "$src/fuzz/corpus/$name/." "$seeds/"; fi
  if [ -d "$src/fuzz/crashes/$name" ]; then
    for crash in "$src/fuzz/crashes/$name"/*; do
      if [ -f "$crash" ]; then cp "$crash" "$seeds/crash-$(basename "$crash")"; fi
    done
  fi
  if [ -n "$(ls -A "$seeds")" ]; then (cd "$seeds" && zip -q -r "$OUT/${name}_seed_corpus.zip" .); fi
done
