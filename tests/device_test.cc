// What a device adds (reference/SEMANTICS.md "Devices", issue 30): a
// device-side assert is its own verdict keyed by the clause of the error the
// document requires (DEV-A1); flush-to-zero of float32 atomic adds is cited
// as DEV-FTZ on a device and never on the host; expectation entries key on
// the device and the verdict; a hello's "device" reaches Backend::device().

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "backends/process/protocol.h"
#include "harness/case.h"
#include "harness/comparator.h"
#include "harness/expectations.h"
#include "reference/reference.h"
#include "tests/test_paths.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::f32;
using test::i64;

// gather of [[1, 2], [3, 4]] along dim 1 with index [[0, 2], [1, 0]]: T-B1's index_out_of_bounds.
OpCall gather_out_of_bounds() {
  OpCall call;
  call.op = "torch.gather";
  call.set_arg("dim", Arg::of_int(1));
  call.tensors.emplace("input", f32({2, 2}, {1, 2, 3, 4}));
  call.tensors.emplace("index", i64({2, 2}, {0, 2, 1, 0}));
  return call;
}

const Outcome kAssert{Outcome::Kind::DeviceAssert,
                      {},
                      std::nullopt,
                      "ScatterGatherKernel.cu:163: Assertion `idx_dim >= 0 && idx_dim < index_size` failed; "
                      "RuntimeError: CUDA error: device-side assert triggered"};

TEST(DeviceAssert, WhereAnErrorIsRequiredItIsADeviationKeyedByThatErrorsClause) {
  const OpCall call = gather_out_of_bounds();
  const Expectation exp = evaluate(call);
  ASSERT_EQ(exp.error_clause, "T-B1");
  const Verdict v = judge(call, exp, kAssert, call, "cuda:0");
  EXPECT_EQ(v.kind, Verdict::Kind::DeviceAssert);
  EXPECT_EQ(verdict_name(v.kind), "device_assert");
  EXPECT_TRUE(verdict_is_unexpected(v.kind));
  EXPECT_EQ(v.detail.rfind("expected error index_out_of_bounds (T-B1); a device kernel asserted instead: "
                           "ScatterGatherKernel.cu:163",
                           0),
            0u)
      << v.detail;
}

TEST(DeviceAssert, WhereOutputsAreRequiredItIsADeviationAndWhereUnspecifiedAPass) {
  OpCall call = gather_out_of_bounds();
  call.tensors.at("index") = i64({2, 2}, {0, 1, 1, 0});
  EXPECT_EQ(judge(call, evaluate(call), kAssert, call).kind, Verdict::Kind::DeviceAssert);
  Expectation unspecified = evaluate(call);
  unspecified.unspecified = true;
  EXPECT_EQ(judge(call, unspecified, kAssert, call).kind, Verdict::Kind::Pass);
}

// scatter_add_ of one float32 subnormal into a zero: the exact result is the subnormal; a device's
// atomic add flushes it to zero.
OpCall scatter_add_subnormal() {
  OpCall call;
  call.op = "torch.scatter_add";
  call.set_arg("dim", Arg::of_int(0));
  call.tensors.emplace("self", f32({2}, {0, 5}));
  call.tensors.emplace("index", i64({1}, {0}));
  Tensor src = f32({1}, {0});
  src.set_bits_at({0}, 0x00000001u);  // the smallest float32 subnormal
  call.tensors.emplace("src", src);
  return call;
}

TEST(DevFtz, AFlushedSubnormalInAnAddedPositionCitesDevFtzOnADeviceOnly) {
  const OpCall call = scatter_add_subnormal();
  const Expectation exp = evaluate(call);
  const Outcome flushed = Outcome::of_outputs({f32({2}, {0, 5})});
  const Verdict on_device = judge(call, exp, flushed, call, "cuda:0");
  EXPECT_EQ(on_device.kind, Verdict::Kind::Fail);
  EXPECT_EQ(on_device.clause, "DEV-FTZ");
  EXPECT_EQ(on_device.detail.rfind("DEV-FTZ: 1 float32 element(s)", 0), 0u) << on_device.detail;
  // The host: the same output is a plain fail, no clause, never loosened.
  const Verdict on_host = judge(call, exp, flushed, call);
  EXPECT_EQ(on_host.kind, Verdict::Kind::Fail);
  EXPECT_EQ(on_host.clause, "");
  EXPECT_EQ(on_host.detail.find("DEV-FTZ"), std::string::npos) << on_host.detail;
  // The right answer passes on both.
  const Outcome exact = Outcome::of_outputs({exp.outputs->front().exact});
  EXPECT_EQ(judge(call, exp, exact, call, "cuda:0").kind, Verdict::Kind::Pass);
  EXPECT_EQ(judge(call, exp, exact, call).kind, Verdict::Kind::Pass);
}

TEST(DevFtz, AnyOtherDifferenceStaysAPlainFailOnADevice) {
  const OpCall call = scatter_add_subnormal();
  const Expectation exp = evaluate(call);
  // A flushed subnormal next to another wrong element: the other one is the finding.
  const Verdict two_wrong = judge(call, exp, Outcome::of_outputs({f32({2}, {0, 6})}), call, "cuda:0");
  EXPECT_EQ(two_wrong.kind, Verdict::Kind::Fail);
  EXPECT_EQ(two_wrong.clause, "");
  // A nonzero wrong value where the subnormal belongs is no flush.
  const Verdict not_zero = judge(call, exp, Outcome::of_outputs({f32({2}, {1, 5})}), call, "cuda:0");
  EXPECT_EQ(not_zero.clause, "");
  // An op that does not add (gather reads): a zero for a subnormal is no atomic add's flush.
  OpCall gather;
  gather.op = "torch.gather";
  gather.set_arg("dim", Arg::of_int(0));
  Tensor input = f32({1}, {0});
  input.set_bits_at({0}, 0x00000001u);
  gather.tensors.emplace("input", input);
  gather.tensors.emplace("index", i64({1}, {0}));
  const Verdict read = judge(gather, evaluate(gather), Outcome::of_outputs({f32({1}, {0})}), gather, "cuda:0");
  EXPECT_EQ(read.kind, Verdict::Kind::Fail);
  EXPECT_EQ(read.clause, "");
}

std::string write_entries(const std::string& name, const std::string& entries) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << R"({"format": "scatterproof-expectations/1", "entries": [)" << entries << "]}";
  return path;
}

TEST(DeviceExpectations, EntriesKeyOnTheDeviceAndTheVerdict) {
  const auto entries = load_expectation_file(write_entries(
      "device.json",
      R"({"clause": "T-B1", "backend": "*", "device": "cuda*", "verdict": "device_assert", "reason": "asserts"},
         {"clause": "DEV-FTZ", "backend": "*", "device": "cuda*", "reason": "flush to zero"})"));
  ASSERT_EQ(entries.size(), 2u);
  const auto find = [&](const std::string& clause, const std::string& device, Verdict::Kind k) {
    return find_expectation(entries, "c", "torch-python-current@cuda", "torch.gather", clause, std::nullopt, device, k);
  };
  EXPECT_EQ(find("T-B1", "cuda:0", Verdict::Kind::DeviceAssert), &entries[0]);
  EXPECT_EQ(find("T-B1", "", Verdict::Kind::DeviceAssert), nullptr) << "the host is no cuda device";
  EXPECT_EQ(find("T-B1", "cuda:0", Verdict::Kind::Fail), nullptr) << "another deviation of T-B1 stays visible";
  EXPECT_EQ(find("DEV-FTZ", "cuda:0", Verdict::Kind::Fail), &entries[1]);
  EXPECT_EQ(find("DEV-FTZ", "", Verdict::Kind::Fail), nullptr);
  // "cpu" names the host.
  const auto cpu = load_expectation_file(
      write_entries("cpu.json", R"({"case": "c", "backend": "*", "device": "cpu", "reason": "host only"})"));
  EXPECT_NE(find_expectation(cpu, "c", "b", "", "", std::nullopt, ""), nullptr);
  EXPECT_EQ(find_expectation(cpu, "c", "b", "", "", std::nullopt, "cuda:0"), nullptr);
  EXPECT_THROW(
      load_expectation_file(write_entries(
          "bad.json", R"({"case": "c", "backend": "*", "verdict": "pass", "reason": "a pass is no failure"})")),
      SpecError);
}

TEST(DeviceExpectations, WrittenEntriesKeepTheirDeviceAndVerdict) {
  ExpectationEntry e;
  e.clause_pattern = "T-B1";
  e.backend_pattern = "*";
  e.reason = "asserts";
  e.device = "cuda*";
  e.verdict = "device_assert";
  const std::string path = testing::TempDir() + "/written.json";
  std::remove(path.c_str());
  ASSERT_EQ(write_expectation_file(path, {e}), 1u);
  const auto back = load_expectation_file(path);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].device, "cuda*");
  EXPECT_EQ(back[0].verdict, "device_assert");
}

TEST(DeviceHello, TheHellosDeviceIsDecodedAndCpuMeansTheHost) {
  nlohmann::json hello = {{"type", "hello"}, {"protocol", 2}, {"name", "n"}, {"version", "v"}, {"ops", {}}};
  EXPECT_EQ(protocol::decode_hello(hello).device, "");
  hello["device"] = "cuda:0";
  EXPECT_EQ(protocol::decode_hello(hello).device, "cuda:0");
  EXPECT_EQ(protocol::encode_hello(protocol::decode_hello(hello))["device"], "cuda:0");
  hello["device"] = "cpu";
  EXPECT_EQ(protocol::decode_hello(hello).device, "");
}

// The CUDA-only deviations of torch 2.11.0+cu130 measured on an H100 (issue 30, 2026-11-27, scripts/gpu-check run
// 2): each class is listed in specs/expectations/devices.json for a cuda device, with its verdict, and the same
// result on the host stays unexpected. {case, op, clause, verdict} of one case per class.
struct MeasuredDeviation {
  const char* case_id;
  const char* op;
  const char* clause;
  Verdict::Kind verdict;
};

TEST(DeviceExpectations, MeasuredCudaDeviationsAreListedForCudaOnly) {
  const std::string dir = sp::test::source_dir() + "/specs/expectations/";
  const auto entries = load_expectation_files({dir + "real-frameworks.json", dir + "devices.json"});
  using K = Verdict::Kind;
  const MeasuredDeviation measured[] = {
      {"torch/float-rounding/float32-subnormal-into-normal@gapped", "torch.scatter_add_", "", K::Fail},
      {"torch/generator-classes/index-int64-min", "torch.index_add_", "T-IA10", K::Fail},
      {"torch/index_select-index/int64-min@transposed", "torch.index_select", "T-IS6", K::Fail},
      {"torch/index_select-index/empty-input-other-dim-neg", "torch.index_select", "T-IS6", K::Fail},
      {"torch/index_select-dtype/index-empty-float", "torch.index_select", "T-IS4", K::Fail},
      {"torch/scatter_reduce-modes/bool-amin-include-self-false", "torch.scatter_reduce", "T-S9 T-RD2", K::Fail},
      {"torch/index_add-alpha/float16-alpha-overflow-empty-2d", "torch.index_add_", "T-IA7", K::Fail},
      {"torch/take_along_dim-none/0d-input-oob", "torch.take_along_dim", "T-TA6", K::DeviceAssert},
      {"torch/take_along_dim-index/none-neg1", "torch.take_along_dim", "T-TA7", K::DeviceAssert},
      {"torch/regression/scatter-reduce-bool-mean-and-bounds", "torch.scatter_reduce", "T-RD7", K::DeviceAssert},
  };
  const FrameworkVersion cuda_torch{"torch", "2.11.0+cu130"};
  for (const MeasuredDeviation& m : measured) {
    SCOPED_TRACE(m.case_id);
    const ExpectationEntry* e = find_expectation(entries, m.case_id, "torch-python-current@cuda", m.op, m.clause,
                                                 cuda_torch, "cuda:0", m.verdict);
    ASSERT_NE(e, nullptr);
    EXPECT_NE(e->file.find("devices.json"), std::string::npos);
    EXPECT_EQ(e->device, "cuda*");
    EXPECT_EQ(find_expectation(entries, m.case_id, "torch-python-current", m.op, m.clause,
                               FrameworkVersion{"torch", "2.15.0+cpu"}, "", m.verdict),
              nullptr)
        << "the host's kernels conform: the same deviation there stays unexpected";
    EXPECT_EQ(find_expectation(entries, m.case_id, "torch-python-current@cuda", m.op, m.clause,
                               FrameworkVersion{"torch", "2.10.0"}, "cuda:0", m.verdict),
              nullptr)
        << "measured on 2.11 only";
  }
}

// The torch 2.11+ CPU deviations whose CUDA kernels conform (the same run: 39 xpass on torch-python-current@cuda):
// their entries hold on the host only, so on cuda the case passes plainly, and on the CPU it is still expected.
TEST(DeviceExpectations, HostOnlyTorchDeviationsAreNotExpectedOnCuda) {
  const std::string dir = sp::test::source_dir() + "/specs/expectations/";
  const auto entries = load_expectation_files({dir + "real-frameworks.json", dir + "devices.json"});
  const char* host_only[] = {
      "torch/take_along_dim-dtype/bfloat16-bits-none@gapped",
      "torch/backward/scatter/bfloat16-minus-zero@offset",
      "torch/scatter-float/copy-keeps-untouched-nan-float16@transposed",
      "torch/scatter-float/copy-keeps-untouched-nan-bfloat16",
      "torch/gather-dtype/copies-nan-bits-bfloat16",
      "torch/regression/scatter-add-int32-expanded-index-gather-backward@transposed",
      "torch/regression/index-reduce-half-prod-internal-assert/bfloat16-inplace@gapped",
      "torch/regression/gather-int32-expanded-index-wrong-rows/scatter-reduce-backward",
      "torch/regression/scatter-add-expanded-index-narrower-than-self/three-d@offset",
  };
  for (const char* case_id : host_only) {
    SCOPED_TRACE(case_id);
    EXPECT_EQ(find_expectation(entries, case_id, "torch-python-current@cuda", "", "",
                               FrameworkVersion{"torch", "2.11.0+cu130"}, "cuda:0", Verdict::Kind::Pass),
              nullptr);
    for (const char* device : {"", "cpu"}) {
      const ExpectationEntry* e =
          find_expectation(entries, case_id, "torch-python-current", "", "", FrameworkVersion{"torch", "2.15.0+cpu"},
                           device, Verdict::Kind::Fail);
      ASSERT_NE(e, nullptr) << device;
      EXPECT_EQ(e->device, "cpu");
    }
  }
}

}  // namespace
}  // namespace sp
