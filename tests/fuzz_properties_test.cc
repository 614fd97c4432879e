// RapidCheck properties: the choice-sequence generator fed from rc::gen,
// differential agreement of every backend with the reference, and laws of
// the operations that do not lean on the reference at all. A failing
// property prints RapidCheck's reproduce string; the differential property
// also writes its counterexample as a spec file under
// $TMPDIR/scatterproof-rc/ (replay: scatterproof repro FILE).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <numeric>

#include "fuzz/case_gen.h"
#include "fuzz/engine.h"
#include "harness/comparator.h"
#include "tests/test_support.h"

namespace sp::fuzz {
namespace {

// The project's own in-process implementations (BackendOrigin::Project),
// held to the reference on every generated case: the reference, cpu, and
// cuda where it runs. Third-party code such as LibTorch has known
// deviations from the documents (specs/expectations/real-frameworks.json,
// e.g. index_add_'s broadcast source): the spec suite holds it to the
// documents with those listed, and `scatterproof fuzz --backend libtorch`
// campaigns hunt for new ones.
std::vector<std::unique_ptr<Backend>> all_backends() {
  std::vector<std::unique_ptr<Backend>> v;
  for (const auto& info : registered_backends()) {
    if (!info.in_process || info.name.back() == ':' || info.origin != BackendOrigin::Project) continue;
    BackendOptions opts;
    opts.threads = 2;
    if (auto b = make_backend(info.name, opts, nullptr)) v.push_back(std::move(b));
  }
  return v;
}

std::string counterexample_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return (std::filesystem::path(tmp ? tmp : "/tmp") / "scatterproof-rc").string();
}

Tensor int64_tensor(const Shape& shape, const std::vector<int64_t>& values) {
  return sp::test::i64(shape, std::vector<double>(values.begin(), values.end()));  // small index values
}
std::vector<int64_t> int64_values(const Tensor& t) {
  std::vector<int64_t> v;
  for (uint64_t b : t.to_bits()) v.push_back(value_from_bits(DType::Int64, b).i);
  return v;
}

// Runs `call` on a private copy; the single output, or nullopt when the
// backend declined or failed.
std::optional<Tensor> output_of(Backend& b, const OpCall& call) {
  OpCall mine = call.deep_copy();
  Outcome o = b.run(mine);
  if (o.kind != Outcome::Kind::Outputs || o.outputs.size() != 1) return std::nullopt;
  return o.outputs.front();
}

RC_GTEST_PROP(FuzzProperties, EveryBackendAgreesWithTheReference, (const std::vector<uint32_t>& choices)) {
  static auto backends = all_backends();
  Choices c = Choices::replay(choices);
  const OpCall call = generate_call(c);
  for (auto& b : backends) {
    const Trial t = judge_call(*b, call);
    if (is_finding(t.verdict.kind)) {
      const std::string path = write_repro(repro_case(t, b->name()), b->name(), counterexample_dir());
      RC_FAIL(b->name() + ": " + t.verdict.detail + "\n  " + call.describe() + "\n  counterexample: " + path);
    }
  }
}

RC_GTEST_PROP(FuzzProperties, GatherAfterScatterReturnsSrcForUniqueIndices, ()) {
  static auto backends = all_backends();
  const int64_t n = *rc::gen::inRange<int64_t>(1, 7);
  const int64_t m = *rc::gen::inRange<int64_t>(1, 5);
  const int64_t k = *rc::gen::inRange<int64_t>(1, n + 1);
  // Per column, k distinct rows: a prefix of a permutation.
  std::vector<int64_t> index(static_cast<size_t>(k * m));
  for (int64_t col = 0; col < m; ++col) {
    // A random permutation: the rows sorted by random keys.
    const auto keys =
        *rc::gen::container<std::vector<uint32_t>>(static_cast<size_t>(n), rc::gen::arbitrary<uint32_t>());
    std::vector<int64_t> rows(static_cast<size_t>(n));
    std::iota(rows.begin(), rows.end(), 0);
    std::stable_sort(rows.begin(), rows.end(),
                     [&](int64_t a, int64_t b) { return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)]; });
    for (int64_t r = 0; r < k; ++r) index[static_cast<size_t>(r * m + col)] = rows[static_cast<size_t>(r)];
  }
  const auto src =
      *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(k * m), rc::gen::inRange<int64_t>(-50, 50));
  OpCall scatter;
  scatter.op = "torch.scatter";
  scatter.set_arg("dim", Arg::of_int(0));
  scatter.tensors["self"] = Tensor::zeros(DType::Int64, {n, m});
  scatter.tensors["index"] = int64_tensor({k, m}, index);
  scatter.tensors["src"] = int64_tensor({k, m}, src);
  for (auto& b : backends) {
    const auto scattered = output_of(*b, scatter);
    RC_ASSERT(scattered.has_value());
    OpCall gather;
    gather.op = "torch.gather";
    gather.set_arg("dim", Arg::of_int(0));
    gather.tensors["input"] = *scattered;
    gather.tensors["index"] = scatter.tensors["index"];
    const auto gathered = output_of(*b, gather);
    RC_ASSERT(gathered.has_value());
    RC_ASSERT(int64_values(*gathered) == src);
  }
}

RC_GTEST_PROP(FuzzProperties, ScatterAddSumsOverDuplicates, ()) {
  static auto backends = all_backends();
  const int64_t n = *rc::gen::inRange<int64_t>(1, 6);
  const int64_t k = *rc::gen::inRange<int64_t>(0, 20);
  const auto index = *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(k), rc::gen::inRange<int64_t>(0, n));
  const auto src =
      *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(k), rc::gen::inRange<int64_t>(-1000, 1000));
  const auto self =
      *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(n), rc::gen::inRange<int64_t>(-1000, 1000));
  std::vector<int64_t> expected = self;
  for (size_t j = 0; j < index.size(); ++j) expected[static_cast<size_t>(index[j])] += src[j];
  OpCall call;
  call.op = "torch.scatter_add";
  call.set_arg("dim", Arg::of_int(0));
  call.tensors["self"] = int64_tensor({n}, self);
  call.tensors["index"] = int64_tensor({k}, index);
  call.tensors["src"] = int64_tensor({k}, src);
  for (auto& b : backends) {
    const auto out = output_of(*b, call);
    RC_ASSERT(out.has_value());
    RC_ASSERT(int64_values(*out) == expected);
  }
}

RC_GTEST_PROP(FuzzProperties, PaddleAccumulateEqualsZeroRowsThenAdd, ()) {
  static auto backends = all_backends();
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 6);
  const int64_t cols = *rc::gen::inRange<int64_t>(1, 4);
  const int64_t m = *rc::gen::inRange<int64_t>(0, 8);
  const auto x =
      *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(rows * cols), rc::gen::inRange<int64_t>(-99, 99));
  const auto index =
      *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(m), rc::gen::inRange<int64_t>(0, rows));
  const auto updates =
      *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(m * cols), rc::gen::inRange<int64_t>(-99, 99));
  std::vector<int64_t> expected = x;
  for (int64_t r : index)
    for (int64_t j = 0; j < cols; ++j) expected[static_cast<size_t>(r * cols + j)] = 0;
  for (size_t i = 0; i < index.size(); ++i)
    for (int64_t j = 0; j < cols; ++j)
      expected[static_cast<size_t>(index[i] * cols + j)] +=
          updates[i * static_cast<size_t>(cols) + static_cast<size_t>(j)];
  OpCall call;
  call.op = "paddle.scatter";
  call.set_arg("overwrite", Arg::of_bool(false));
  call.tensors["x"] = int64_tensor({rows, cols}, x);
  call.tensors["index"] = int64_tensor({m}, index);
  call.tensors["updates"] = int64_tensor({m, cols}, updates);
  for (auto& b : backends) {
    const auto out = output_of(*b, call);
    if (!out) continue;  // a backend without paddle support declines
    RC_ASSERT(int64_values(*out) == expected);
  }
}

RC_GTEST_PROP(FuzzProperties, MindsporeNegativeIndicesEqualTorchNormalized, ()) {
  static auto backends = all_backends();
  const int64_t n = *rc::gen::inRange<int64_t>(1, 6);
  const int64_t k = *rc::gen::inRange<int64_t>(1, 10);
  const auto index =
      *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(k), rc::gen::inRange<int64_t>(-n, n));
  const auto src =
      *rc::gen::container<std::vector<int64_t>>(static_cast<size_t>(k), rc::gen::inRange<int64_t>(-99, 99));
  std::vector<int64_t> normalized = index;
  for (auto& v : normalized) v = v < 0 ? v + n : v;
  OpCall ms;
  ms.op = "mindspore.scatter_";
  ms.framework_version = "2.3";
  ms.set_arg("dim", Arg::of_int(0));
  ms.set_arg("reduce", Arg::of_string("add"));  // order-independent, so duplicates do not matter
  ms.tensors["self"] = Tensor::zeros(DType::Int64, {n});
  ms.tensors["index"] = int64_tensor({k}, index);
  ms.tensors["src"] = int64_tensor({k}, src);
  OpCall torch = ms;
  torch.op = "torch.scatter_";
  torch.framework_version.clear();
  torch.tensors["index"] = int64_tensor({k}, normalized);
  for (auto& b : backends) {
    const auto a = output_of(*b, ms), t = output_of(*b, torch);
    if (!a || !t) continue;  // a backend of only one framework declines the other
    RC_ASSERT(int64_values(*a) == int64_values(*t));
  }
}

RC_GTEST_PROP(FuzzProperties, GatherOutputHasIndexShape, (const std::vector<uint32_t>& choices)) {
  static auto backends = all_backends();
  Choices c = Choices::replay(choices);
  const OpCall call = generate_call_for(c, op_spec("torch.gather"));
  for (auto& b : backends) {
    if (const auto out = output_of(*b, call)) RC_ASSERT(out->shape() == call.tensor("index")->shape());
  }
}

}  // namespace
}  // namespace sp::fuzz
