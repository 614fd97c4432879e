// plugin_isolation_test.cc — vendor plugins run out of process: whatever a
// plugin does costs at most the case it was running.
//
// The plugins are tests/data/plugin/misbehaving_plugin.c built once per
// mode (crash, hang, slow, lie, print, abi, status); each is a correct
// float32 torch.gather that misbehaves only on calls with dim == 1, so every
// test also checks that the calls around the bad one get correct results
// from the restarted host. abi1_plugin.c is a plugin built for ABI 1.0,
// which the host refuses. The example vendor plugin (examples/plugin/) is
// checked here for its in-place path; CI runs it through the spec suite.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "backends/plugin/plugin_backend.h"
#include "harness/comparator.h"
#include "include/scatterproof/plugin.h"  // the SDK header, as a vendor includes it
#include "reference/reference.h"
#include "tests/test_paths.h"

namespace sp {
namespace {

using std::chrono::milliseconds;

std::string test_plugin(const std::string& mode) {
  return sp::test::plugin_dir() + "/libsp_test_plugin_" + mode + ".so";
}
std::string example_plugin() { return sp::test::plugin_dir() + "/libsp_example_vendor_plugin.so"; }

Tensor float_tensor(const Shape& shape, float first) {
  Tensor t = Tensor::zeros(DType::Float32, shape);
  Shape pos(shape.size(), 0);
  float v = first;
  do t.set_bits_at(pos, bits_from_value(DType::Float32, Value::of_float(v++)));
  while (next_index(pos, shape));
  return t;
}

// index[i][j] = (i + 2j) % 3: valid along dim 0 (size 3) and dim 1 (size 4).
Tensor index_tensor(const Shape& shape) {
  Tensor t = Tensor::zeros(DType::Int64, shape);
  Shape pos(shape.size(), 0);
  do t.set_bits_at(pos, static_cast<uint64_t>((pos[0] + 2 * pos[1]) % 3));
  while (next_index(pos, shape));
  return t;
}

OpCall gather_call(int64_t dim) {
  OpCall call;
  call.op = "torch.gather";
  call.set_arg("dim", Arg::of_int(dim));
  call.tensors["input"] = float_tensor({3, 4}, 1.0f);
  call.tensors["index"] = index_tensor({3, 4});
  return call;
}

// Runs `call` on a private copy, as the runner does, and judges the outcome
// against the reference.
Verdict run_and_judge(Backend& backend, const OpCall& call) {
  const OpCall mine = call.deep_copy();
  const Outcome outcome = backend.run(mine);
  return judge(call, evaluate(call), outcome, mine);
}

std::unique_ptr<Backend> start(const std::string& library, milliseconds case_timeout = milliseconds{10'000}) {
  std::string why;
  std::unique_ptr<Backend> backend = make_plugin_backend(library, case_timeout, &why);
  EXPECT_TRUE(backend) << why;
  return backend;
}

#define EXPECT_VERDICT(verdict, expected_kind) \
  EXPECT_EQ(verdict_name((verdict).kind), verdict_name(expected_kind)) << (verdict).detail

TEST(PluginIsolation, SegfaultOnOneCaseIsACrashAndEveryOtherCasePasses) {
  auto backend = start(test_plugin("crash"));
  ASSERT_TRUE(backend);
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(0)), Verdict::Kind::Pass);
  const Verdict crashed = run_and_judge(*backend, gather_call(1));
  EXPECT_VERDICT(crashed, Verdict::Kind::Crash);
  // SIGSEGV normally; under ASan/UBSan the sanitizer catches the fault
  // first and aborts or exits with status 1, which is the same crash.
  EXPECT_TRUE(crashed.detail.find("killed by signal") != std::string::npos ||
              crashed.detail.find("exited with status") != std::string::npos)
      << crashed.detail;
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(0)), Verdict::Kind::Pass);
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(1)), Verdict::Kind::Crash);
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(0)), Verdict::Kind::Pass);
}

TEST(PluginIsolation, HangIsATimeoutAndTheHostIsRestarted) {
  auto backend = start(test_plugin("hang"), milliseconds{300});
  ASSERT_TRUE(backend);
  const auto began = std::chrono::steady_clock::now();
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(1)), Verdict::Kind::Timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds{5});
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(0)), Verdict::Kind::Pass);
}

TEST(PluginIsolation, SlowPluginPassesWithinTheDeadlineAndTimesOutPastIt) {
  auto patient = start(test_plugin("slow"), milliseconds{5'000});
  ASSERT_TRUE(patient);
  EXPECT_VERDICT(run_and_judge(*patient, gather_call(1)), Verdict::Kind::Pass);
  auto hasty = start(test_plugin("slow"), milliseconds{100});
  ASSERT_TRUE(hasty);
  EXPECT_VERDICT(run_and_judge(*hasty, gather_call(1)), Verdict::Kind::Timeout);
  EXPECT_VERDICT(run_and_judge(*hasty, gather_call(0)), Verdict::Kind::Pass);
}

TEST(PluginIsolation, LyingPluginFails) {
  auto backend = start(test_plugin("lie"));
  ASSERT_TRUE(backend);
  const Verdict lied = run_and_judge(*backend, gather_call(1));
  EXPECT_VERDICT(lied, Verdict::Kind::Fail);
  EXPECT_NE(lied.detail.find("42"), std::string::npos) << lied.detail;
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(0)), Verdict::Kind::Pass);
}

TEST(PluginIsolation, VendorPrintsToStdoutCannotCorruptTheProtocol) {
  auto backend = start(test_plugin("print"));
  ASSERT_TRUE(backend);
  for (int dim : {0, 1, 0, 1}) EXPECT_VERDICT(run_and_judge(*backend, gather_call(dim)), Verdict::Kind::Pass);
}

TEST(PluginIsolation, AbiMajorMismatchMakesTheBackendUnavailableAndSaysWhy) {
  std::string why;
  EXPECT_FALSE(make_plugin_backend(test_plugin("abi"), milliseconds{10'000}, &why));
  const std::string ours = std::to_string(SP_PLUGIN_ABI_MAJOR) + "." + std::to_string(SP_PLUGIN_ABI_MINOR);
  EXPECT_NE(why.find("built for plugin ABI " + std::to_string(SP_PLUGIN_ABI_MAJOR + 1) + "." +
                     std::to_string(SP_PLUGIN_ABI_MINOR)),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("speaks ABI " + ours), std::string::npos) << why;
  EXPECT_FALSE(make_backend("plugin:" + test_plugin("abi"), BackendOptions{}, &why));
}

TEST(PluginIsolation, AbiOnePluginIsRefusedWithBothVersionsAndTheMigrationNote) {
  // Built against the frozen 1.0 header (tests/data/plugin/abi1/); its
  // run() aborts, so a host that called it would show a crash, not this.
  std::string why;
  EXPECT_FALSE(make_plugin_backend(test_plugin("abi1"), milliseconds{10'000}, &why));
  EXPECT_NE(why.find("was built for plugin ABI 1.0 but this scatterproof speaks ABI " +
                     std::to_string(SP_PLUGIN_ABI_MAJOR) + "." + std::to_string(SP_PLUGIN_ABI_MINOR)),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("docs/plugin-abi.md, \"Migrating a plugin from ABI 1.x to 2.0\""), std::string::npos) << why;
  EXPECT_NE(why.find("sp_call.args"), std::string::npos) << why;
}

TEST(PluginIsolation, AnAbi20PluginIsNeverGivenACallersOut) {
  // ABI 2.1 added the caller's out= (any dtype, layout, possibly over an
  // input); a 2.0 plugin, which may write input-dtype bytes into it, is not
  // given one: those calls are unsupported, the others run as before.
  auto backend = start(test_plugin("abi20"));
  ASSERT_TRUE(backend);
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(0)), Verdict::Kind::Pass);
  OpCall with_out = gather_call(0);
  const Tensor* index = with_out.tensor("index");
  with_out.tensors.emplace("out", Tensor::zeros(DType::Float16, index->shape()));
  const Verdict v = run_and_judge(*backend, with_out);
  EXPECT_EQ(v.kind, Verdict::Kind::Unsupported) << v.detail;
  EXPECT_NE(v.detail.find("never given a caller's out="), std::string::npos) << v.detail;
}

TEST(PluginIsolation, APluginBeforeAbi23IsNeverGivenAWideUnsignedTensor) {
  // ABI 2.3 appended SP_DTYPE_UINT16/32/64: an older plugin knows no such
  // value, so no operand of one reaches it (here an out=, checked before
  // 2.1's out= rule) and supports() is never asked about one.
  auto backend = start(test_plugin("abi20"));
  ASSERT_TRUE(backend);
  OpCall call = gather_call(0);
  call.tensors.emplace("out", Tensor::zeros(DType::UInt16, call.tensor("index")->shape()));
  const Verdict v = run_and_judge(*backend, call);
  EXPECT_EQ(v.kind, Verdict::Kind::Unsupported) << v.detail;
  EXPECT_NE(v.detail.find("built against ABI 2.0, which has no uint16 (operand out; ABI 2.3 added it)"),
            std::string::npos)
      << v.detail;
}

TEST(PluginIsolation, MissingLibraryIsUnavailable) {
  std::string why;
  EXPECT_FALSE(make_plugin_backend("/nonexistent/libvendor.so", milliseconds{10'000}, &why));
  EXPECT_NE(why.find("no plugin library at /nonexistent/libvendor.so"), std::string::npos) << why;
}

TEST(PluginIsolation, AStatusOutsideTheAbiIsAHarnessErrorNamingIt) {
  auto backend = start(test_plugin("status"));
  ASSERT_TRUE(backend);
  const Verdict broken = run_and_judge(*backend, gather_call(1));
  EXPECT_VERDICT(broken, Verdict::Kind::Error);
  EXPECT_NE(broken.detail.find("plugin returned 7 from run(), which is not an sp_status"), std::string::npos)
      << broken.detail;
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(0)), Verdict::Kind::Pass);
}

TEST(PluginIsolation, UnsupportedDtypeIsDeclinedWithoutCallingRun) {
  auto backend = start(test_plugin("crash"));
  ASSERT_TRUE(backend);
  OpCall call = gather_call(1);  // would crash if run() were called
  call.tensors["input"] = Tensor::zeros(DType::Float64, {3, 4});
  EXPECT_VERDICT(run_and_judge(*backend, call), Verdict::Kind::Unsupported);
}

OpCall scatter_inplace_call() {
  OpCall call;
  call.op = "torch.scatter_";
  call.set_arg("dim", Arg::of_int(1));
  call.tensors["self"] = float_tensor({3, 4}, 100.0f);
  call.tensors["index"] = index_tensor({3, 2});
  call.tensors["src"] = float_tensor({3, 2}, -1.0f);
  return call;
}

TEST(ExamplePlugin, ScatterInPlaceWritesTheCallersSelf) {
  auto backend = start(example_plugin());
  ASSERT_TRUE(backend);
  const OpCall call = scatter_inplace_call();
  const OpCall mine = call.deep_copy();
  const Outcome outcome = backend->run(mine);
  EXPECT_VERDICT(judge(call, evaluate(call), outcome, mine), Verdict::Kind::Pass);
  // self[0][index[0][1] = 2] = src[0][1] = 0
  EXPECT_EQ(mine.tensor("self")->value_at({0, 2}).f, 0.0);
}

TEST(ExamplePlugin, ReportsDocumentedErrorsAndDeclinesWhatItDoesNotImplement) {
  auto backend = start(example_plugin());
  ASSERT_TRUE(backend);
  OpCall out_of_bounds = scatter_inplace_call();
  out_of_bounds.tensors["index"].set_bits_at({1, 1}, 4);
  EXPECT_VERDICT(run_and_judge(*backend, out_of_bounds), Verdict::Kind::Pass);
  OpCall reduce = scatter_inplace_call();
  reduce.set_arg("reduce", Arg::of_string("add"));
  EXPECT_VERDICT(run_and_judge(*backend, reduce), Verdict::Kind::Unsupported);
  OpCall out_of_place = scatter_inplace_call();
  out_of_place.op = "torch.scatter";
  EXPECT_VERDICT(run_and_judge(*backend, out_of_place), Verdict::Kind::Unsupported);
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(-1)), Verdict::Kind::Pass);
}

// gather's backward at `dim`, grad_output[i][j] = 1 + 4i + j (index's
// shape); at dim 0 column 3 of the index is all 0: three duplicates.
OpCall gather_backward_call(int64_t dim) {
  OpCall call = gather_call(dim);
  call.op = "torch.gather.backward";
  if (dim == 0)
    for (int64_t i = 0; i < 3; ++i) call.tensors["index"].set_bits_at({i, 3}, 0);
  call.tensors["grad_output"] = float_tensor({3, 4}, 1.0f);
  return call;
}

TEST(ExamplePlugin, GatherBackwardRunsThroughTheBackwardEntryPoint) {
  auto backend = start(example_plugin());
  ASSERT_TRUE(backend);
  const OpCall call = gather_backward_call(0);
  const OpCall mine = call.deep_copy();
  const Outcome outcome = backend->run(mine);
  ASSERT_EQ(outcome.kind, Outcome::Kind::Outputs) << outcome.message;
  ASSERT_EQ(outcome.outputs.size(), 1u);
  EXPECT_VERDICT(judge(call, evaluate(call), outcome, mine), Verdict::Kind::Pass);
  // index[i][0] = i: grad_input[1][0] = grad_output[1][0]; the duplicates
  // of column 3 accumulate into row 0: 4 + 8 + 12.
  EXPECT_EQ(outcome.outputs[0].value_at({1, 0}).f, 5.0);
  EXPECT_EQ(outcome.outputs[0].value_at({0, 3}).f, 24.0);
  EXPECT_EQ(outcome.outputs[0].value_at({1, 3}).f, 0.0);
  // A grad_output of another shape is the plugin's shape_mismatch, as the reference's.
  OpCall misshaped = call;
  misshaped.tensors["grad_output"] = float_tensor({2, 4}, 1.0f);
  EXPECT_VERDICT(run_and_judge(*backend, misshaped), Verdict::Kind::Pass);
  // A backward it does not implement is declined.
  OpCall scatter = scatter_inplace_call();
  scatter.op = "torch.scatter_.backward";
  scatter.tensors["src"] = float_tensor({3, 2}, -1.0f);
  scatter.tensors["index"] = index_tensor({3, 2});
  scatter.tensors["grad_output"] = float_tensor({3, 4}, 1.0f);
  EXPECT_VERDICT(run_and_judge(*backend, scatter), Verdict::Kind::Unsupported);
}

// A plugin whose supports() claims a backward op but whose struct has no
// backward entry point: the call is unsupported, and never reaches run()
// (which would crash on it: dim 1 makes the crash plugin misbehave).
TEST(PluginIsolation, ABackwardOpNeedsTheBackwardEntryPoint) {
  auto backend = start(test_plugin("crash"));
  ASSERT_TRUE(backend);
  EXPECT_VERDICT(run_and_judge(*backend, gather_backward_call(1)), Verdict::Kind::Unsupported);
  EXPECT_VERDICT(run_and_judge(*backend, gather_call(0)), Verdict::Kind::Pass);
}

TEST(ExamplePlugin, GatherOutputTakesTheShapeTheOpTableNames) {
  // torch.gather's out has index's shape (op table: output_shape_of), here
  // 2x3 from a 3x4 input: an out of input's shape would fail the judgement.
  auto backend = start(example_plugin());
  ASSERT_TRUE(backend);
  OpCall call = gather_call(1);
  call.tensors["index"] = index_tensor({2, 3});
  EXPECT_VERDICT(run_and_judge(*backend, call), Verdict::Kind::Pass);
}

// A float32 view of `storage` (T-OUT3's cases are views of one storage).
Tensor view_of(const Tensor& storage, const Shape& shape, const Shape& strides, int64_t offset) {
  return Tensor::view(DType::Float32, shape, strides, offset, storage.storage());
}

// op (torch.gather or torch.index_select, dim 0) of a 1-D input into a
// caller's out, index reversing: out[i] = input[n - 1 - i].
OpCall with_out(const std::string& op, const Tensor& input, const Tensor& out) {
  OpCall call;
  call.op = op;
  call.set_arg("dim", Arg::of_int(0));
  call.tensors["input"] = input;
  call.tensors["out"] = out;
  Tensor index = Tensor::zeros(DType::Int64, {out.size(0)});
  for (int64_t i = 0; i < out.size(0); ++i) index.set_bits_at({i}, static_cast<uint64_t>(out.size(0) - 1 - i));
  call.tensors["index"] = index;
  return call;
}

TEST(ExamplePlugin, AnOutInterleavingWithItsInputWithoutSharingAnElementRuns) {
  // out = s[0::2], input = s[1::2]: their byte ranges overlap, no element
  // is shared, so PyTorch (T-OUT3) and the reference run the op.
  auto backend = start(example_plugin());
  ASSERT_TRUE(backend);
  for (const char* op : {"torch.gather", "torch.index_select"}) {
    SCOPED_TRACE(op);
    const Tensor storage = float_tensor({12}, 0.0f);
    const OpCall call = with_out(op, view_of(storage, {6}, {2}, 1), view_of(storage, {6}, {2}, 0));
    const OpCall mine = call.deep_copy();
    const Outcome outcome = backend->run(mine);
    ASSERT_EQ(outcome.kind, Outcome::Kind::Outputs) << outcome.message;
    EXPECT_VERDICT(judge(call, evaluate(call), outcome, mine), Verdict::Kind::Pass);
    // out[0] = input[5] = s[11]; the odd elements (input) are untouched.
    EXPECT_EQ(mine.tensor("out")->value_at({0}).f, 11.0);
    EXPECT_EQ(mine.tensor("input")->value_at({0}).f, 1.0);
  }
}

TEST(ExamplePlugin, AnOutSharingAnElementWithItsInputIsStillRefused) {
  auto backend = start(example_plugin());
  ASSERT_TRUE(backend);
  const Tensor storage = float_tensor({13}, 0.0f);
  // Dense views a row apart: the reference expects the error (T-OUT3).
  const Tensor rows = float_tensor({9}, 0.0f);
  OpCall shifted = with_out("torch.gather", view_of(rows, {6}, {1}, 0), view_of(rows, {6}, {1}, 3));
  EXPECT_VERDICT(run_and_judge(*backend, shifted), Verdict::Kind::Pass);
  // Strided views sharing every other element, or exactly one (s[4]):
  // PyTorch does not check these (T-OUT7), the example refuses any
  // shared element.
  const OpCall cases[] = {
      with_out("torch.gather", view_of(storage, {6}, {2}, 2), view_of(storage, {6}, {2}, 0)),
      with_out("torch.index_select", view_of(storage, {4}, {3}, 1), view_of(storage, {3}, {4}, 0)),
  };
  for (const OpCall& call : cases) {
    SCOPED_TRACE(call.describe());
    const Outcome outcome = backend->run(call.deep_copy());
    ASSERT_EQ(outcome.kind, Outcome::Kind::Error) << outcome.message;
    EXPECT_EQ(outcome.error, ErrorCategory::OverlappingOutput) << outcome.message;
  }
}

TEST(PluginSdk, UnknownArgHelperNamesTheFirstArgumentNotListed) {
  const sp_arg args[] = {{"dim", SP_ARG_INT, 0, nullptr, {}}, {"include_self", SP_ARG_BOOL, 0, nullptr, {}}};
  sp_call call{};
  call.struct_size = sizeof call;
  call.args = args;
  call.num_args = 2;
  const char* const dim_only[] = {"dim"};
  const char* const both[] = {"include_self", "dim"};
  EXPECT_STREQ(sp_call_unknown_arg(&call, dim_only, 1), "include_self");
  EXPECT_EQ(sp_call_unknown_arg(&call, both, 2), nullptr);
  EXPECT_EQ(sp_call_arg(&call, "include_self"), &args[1]);
  EXPECT_EQ(sp_call_arg(&call, "reduce"), nullptr);
}

}  // namespace
}  // namespace sp
