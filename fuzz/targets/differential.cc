// differential.cc — libFuzzer target: the fuzzer's bytes are the choice
// sequence (4 bytes per choice, little-endian; zeros past the end) of the
// case generator; the call runs through the reference and every in-process
// backend, and any disagreement aborts with the call and the verdict.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz/case_gen.h"
#include "fuzz/engine.h"

namespace {

std::vector<std::unique_ptr<sp::Backend>>& backends() {
  static std::vector<std::unique_ptr<sp::Backend>> all = [] {
    std::vector<std::unique_ptr<sp::Backend>> v;
    for (const auto& info : sp::registered_backends()) {
      // Out-of-process and plugin families are not in-process backends.
      if (!info.in_process || info.name.back() == ':' || info.name == "reference") continue;
      sp::BackendOptions opts;
      opts.threads = 1;
      if (auto b = sp::make_backend(info.name, opts, nullptr)) v.push_back(std::move(b));
    }
    return v;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint32_t> choices(size / 4);
  if (!choices.empty()) std::memcpy(choices.data(), data, choices.size() * 4);
  sp::fuzz::Choices c = sp::fuzz::Choices::replay(choices);
  const sp::OpCall call = sp::fuzz::generate_call(c);
  for (auto& b : backends()) {
    const sp::fuzz::Trial t = sp::fuzz::judge_call(*b, call);
    if (sp::fuzz::is_finding(t.verdict.kind)) {
      std::fprintf(stderr, "backend %s: %s: %s\n  %s\n", b->name().c_str(),
                   std::string(sp::verdict_name(t.verdict.kind)).c_str(), call.describe().c_str(),
                   t.verdict.detail.c_str());
      std::abort();
    }
  }
  return 0;
}
