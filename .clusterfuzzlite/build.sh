#!/bin/bash -eu
# ClusterFuzzLite build: the libFuzzer targets of fuzz/targets with their
# dictionaries and seed corpora. The base image supplies CC/CXX (clang),
# CXXFLAGS (sanitizer + coverage flags) and LIB_FUZZING_ENGINE.
cmake -S . -B build-cfl -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$CXX" -DSP_FUZZERS=ON -DSP_BUILD_TESTS=OFF -DSP_WITH_LIBTORCH=OFF -DSP_WITH_CUDA=OFF
cmake --build build-cfl --target fuzz_differential fuzz_spec_loader
for target in differential spec_loader; do
  cp build-cfl/fuzz/fuzz_${target} "$OUT/${target}"
  cp fuzz/${target}.dict "$OUT/${target}.dict"
  (cd fuzz/corpus/${target} && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
done
