// side_effects_test.cc — side effects are seen through every boundary
// (reference/SEMANTICS.md "Side effects", PROTOCOL.md "Operands after the
// call"): a write into an operand the op only reads is "input modified", a
// write into self before an error the dialect checks before writing is
// "self modified although an error was reported" — in process, through the
// plugin host and through the process protocol alike; a program that does
// not return its operands is "not observable", never a pass of the check.
//
// The plugins are tests/data/plugin/side_effects_plugin.c (one library per
// mode: correct, write_input, partial); the adapter is
// tests/data/process/side_effects_adapter.py (the same modes, plus "old": a
// program that does not return its operands).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "backends/plugin/plugin_backend.h"
#include "backends/process/protocol.h"
#include "harness/comparator.h"
#include "harness/run_judge.h"
#include "reference/reference.h"
#include "tests/test_paths.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using std::chrono::milliseconds;
using namespace sp::test;  // NOLINT(google-build-using-namespace)

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// self.scatter_(0, index, src) on 1-D operands.
OpCall scatter(Tensor index, Tensor src) {
  return call_of("torch.scatter_",
                 {{"self", f32({4}, {0, 0, 0, 0})}, {"index", std::move(index)}, {"src", std::move(src)}},
                 {{"dim", Arg::of_int(0)}});
}
OpCall valid_call() { return scatter(i64({2}, {1, 3}), f32({2}, {5, 6})); }
// Breaks the dtype rule only (checked before any write: SE-2).
OpCall dtype_error_call() { return scatter(i64({2}, {1, 3}), f64({2}, {5, 6})); }
// Breaks only the index-value rule (checked while writing: SE-2).
OpCall index_error_call() { return scatter(i64({2}, {1, 9}), f32({2}, {5, 6})); }

void set_element(const Tensor& t, int64_t i, double v) {
  t.set_bits_at({i}, bits_from_value(t.dtype(), Value::of_float(v)));
}

// --- The comparator (the one implementation every backend goes through) ---

TEST(SideEffects, AWriteIntoAReadOnlyOperandIsInputModifiedNamingTheOperandAndElement) {
  const OpCall before = valid_call();
  const Expectation exp = evaluate(before);
  OpCall after = before.deep_copy();
  set_element(after.tensors.at("self"), 1, 5);
  set_element(after.tensors.at("self"), 3, 6);
  ASSERT_EQ(judge(before, exp, Outcome::of_outputs({after.tensors.at("self")}), after).kind, Verdict::Kind::Pass);
  set_element(after.tensors.at("src"), 1, 7);
  const Verdict v = judge(before, exp, Outcome::of_outputs({after.tensors.at("self")}), after);
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_EQ(v.failure, Verdict::Failure::InputModified);
  EXPECT_TRUE(contains(v.detail, "input modified: operand src was modified: element [1]")) << v.detail;
  EXPECT_TRUE(contains(v.detail, "changed from 6")) << v.detail;
  // The same after an error: the error is not what is reported.
  const OpCall bad = dtype_error_call();
  OpCall bad_after = bad.deep_copy();
  set_element(bad_after.tensors.at("index"), 0, 2);
  const Verdict e = judge(bad, evaluate(bad), Outcome::of_error(ErrorCategory::DtypeMismatch, "dtype"), bad_after);
  EXPECT_EQ(e.failure, Verdict::Failure::InputModified) << e.detail;
  EXPECT_TRUE(contains(e.detail, "operand index was modified: element [0]")) << e.detail;
}

TEST(SideEffects, SelfWrittenBeforeAnErrorFailsOnlyWhereTheRulesAreCheckedBeforeWrites) {
  // dtype_mismatch is checked before any write: self must be untouched.
  const OpCall bad = dtype_error_call();
  OpCall after = bad.deep_copy();
  const Outcome error = Outcome::of_error(ErrorCategory::DtypeMismatch, "dtype");
  ASSERT_TRUE(promises_no_write_on_error(evaluate(bad)));
  EXPECT_EQ(judge(bad, evaluate(bad), error, after).kind, Verdict::Kind::Pass);
  set_element(after.tensors.at("self"), 1, 5);
  const Verdict v = judge(bad, evaluate(bad), error, after);
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_EQ(v.failure, Verdict::Failure::SelfModifiedOnError);
  EXPECT_TRUE(
      contains(v.detail, "self modified although an error was reported: operand self was modified: element [1]"))
      << v.detail;
  // An index value is checked while writing (LibTorch writes the elements
  // before the bad one): a partial write before index_out_of_bounds passes.
  const OpCall oob = index_error_call();
  ASSERT_FALSE(promises_no_write_on_error(evaluate(oob)));
  OpCall oob_after = oob.deep_copy();
  set_element(oob_after.tensors.at("self"), 1, 5);
  EXPECT_EQ(judge(oob, evaluate(oob), Outcome::of_error(ErrorCategory::IndexOutOfBounds, "oob"), oob_after).kind,
            Verdict::Kind::Pass);
}

TEST(SideEffects, AnOutcomeWhoseOperandsWereNotSeenSaysNotObservableNeverThatTheCheckPassed) {
  const OpCall call = valid_call();
  OpCall after = call.deep_copy();
  set_element(after.tensors.at("self"), 1, 5);
  set_element(after.tensors.at("self"), 3, 6);
  Outcome out = Outcome::of_outputs({after.tensors.at("self")});
  EXPECT_FALSE(contains(judge(call, evaluate(call), out, after).detail, "not observable"));
  out.side_effects_unobservable = "writes into index, src cannot be seen";
  const Verdict v = judge(call, evaluate(call), out, after);
  EXPECT_EQ(v.kind, Verdict::Kind::Pass);
  EXPECT_EQ(v.detail, "side effects not observable: writes into index, src cannot be seen");
}

// An in-process backend goes through the same judge: a scatter_ that writes
// into src, or into self before reporting a dtype error.
class WritingBackend final : public Backend {
 public:
  explicit WritingBackend(bool partial) : partial_(partial) {}
  std::string name() const override { return "writing"; }
  std::string description() const override { return "test"; }
  bool implements(std::string_view op) const override { return op == "torch.scatter_"; }
  Outcome run(const OpCall& call) override {
    const Tensor& self = call.tensors.at("self");
    set_element(self, 1, 5);
    if (call.tensors.at("src").dtype() != self.dtype()) return Outcome::of_error(ErrorCategory::DtypeMismatch, "dtype");
    set_element(self, 3, 6);
    if (!partial_) set_element(call.tensors.at("src"), 0, 1);
    return Outcome::of_outputs({self});
  }

 private:
  bool partial_;
};

TEST(SideEffects, InProcessBackendsAreJudgedByTheSameChecks) {
  WritingBackend writes_src(/*partial=*/false);
  const Verdict v = run_and_judge(writes_src, valid_call(), evaluate(valid_call())).verdict;
  EXPECT_EQ(v.failure, Verdict::Failure::InputModified) << v.detail;
  EXPECT_TRUE(contains(v.detail, "operand src was modified: element [0]")) << v.detail;
  WritingBackend partial(/*partial=*/true);
  EXPECT_EQ(run_and_judge(partial, valid_call(), evaluate(valid_call())).verdict.kind, Verdict::Kind::Pass);
  const Verdict e = run_and_judge(partial, dtype_error_call(), evaluate(dtype_error_call())).verdict;
  EXPECT_EQ(e.failure, Verdict::Failure::SelfModifiedOnError) << e.detail;
}

// --- The protocol's "operands" ---

TEST(SideEffects, OperandsComeBackForEveryStorageTheRequestCarriedOrTheAnswerIsRefused) {
  const OpCall call = valid_call();
  const protocol::OperandStorages sent = protocol::operand_storages(call);
  ASSERT_EQ(sent.size(), 3u);
  OpCall changed = call.deep_copy();
  set_element(changed.tensors.at("src"), 0, 9);
  const nlohmann::json answer = {{"operands", protocol::encode_operands(protocol::operand_storages(changed))}};
  OpCall target = call.deep_copy();
  protocol::apply_operands(answer, target);
  EXPECT_EQ(*target.tensors.at("src").storage(), *changed.tensors.at("src").storage());

  nlohmann::json missing = answer;
  missing["operands"].erase("index");
  EXPECT_THROW(protocol::apply_operands(missing, call.deep_copy()), protocol::ProtocolError);
  nlohmann::json extra = answer;
  extra["operands"]["grad"] = extra["operands"]["src"];
  EXPECT_THROW(protocol::apply_operands(extra, call.deep_copy()), protocol::ProtocolError);
  nlohmann::json short_storage = answer;
  short_storage["operands"]["src"] = protocol::base64_encode("abcd", 4);
  OpCall untouched = call.deep_copy();
  set_element(untouched.tensors.at("index"), 0, 0);
  const auto index_bytes = *untouched.tensors.at("index").storage();
  EXPECT_THROW(protocol::apply_operands(short_storage, untouched), protocol::ProtocolError);
  EXPECT_EQ(*untouched.tensors.at("index").storage(), index_bytes) << "nothing is copied from a refused answer";
  EXPECT_THROW(protocol::apply_operands(nlohmann::json::object(), call.deep_copy()), protocol::ProtocolError);
}

// --- Through the plugin host and the process protocol ---

std::unique_ptr<Backend> plugin(const std::string& mode) {
  std::string why;
  auto backend = make_plugin_backend(sp::test::plugin_dir() + "/libsp_side_effects_plugin_" + mode + ".so",
                                     milliseconds(10'000), &why);
  EXPECT_TRUE(backend) << why;
  return backend;
}

std::unique_ptr<Backend> adapter(const std::string& mode) {
  // common.py needs numpy: the adapters' venv (scripts/setup-python.sh).
  const std::string venv_python = sp::test::source_dir() + "/.venv/bin/python";
  const std::string python = std::filesystem::exists(venv_python) ? venv_python : "python3";
  std::string why;
  BackendOptions options;
  options.timeout_s = 20;
  auto backend = make_backend(
      "process:" + python + " " + sp::test::source_dir() + "/tests/data/process/side_effects_adapter.py " + mode,
      options, &why);
  EXPECT_TRUE(backend) << why;
  return backend;
}

Verdict through(Backend& backend, const OpCall& call) { return run_and_judge(backend, call, evaluate(call)).verdict; }

using Boundary = std::unique_ptr<Backend> (*)(const std::string& mode);

void a_correct_backend_passes(Boundary make) {
  auto b = make("correct");
  ASSERT_TRUE(b);
  for (const OpCall& call : {valid_call(), dtype_error_call(), index_error_call()}) {
    const Verdict v = through(*b, call);
    EXPECT_EQ(v.kind, Verdict::Kind::Pass) << v.detail;
    EXPECT_FALSE(contains(v.detail, "not observable")) << v.detail;
  }
}

void a_write_into_src_is_input_modified(Boundary make) {
  auto b = make("write_input");
  ASSERT_TRUE(b);
  const Verdict v = through(*b, valid_call());
  EXPECT_EQ(v.kind, Verdict::Kind::Fail) << v.detail;
  EXPECT_EQ(v.failure, Verdict::Failure::InputModified) << v.detail;
  EXPECT_TRUE(contains(v.detail, "input modified: operand src was modified: element [0]")) << v.detail;
}

void a_partial_write_before_an_error_is_self_modified(Boundary make) {
  auto b = make("partial");
  ASSERT_TRUE(b);
  const Verdict v = through(*b, dtype_error_call());
  EXPECT_EQ(v.kind, Verdict::Kind::Fail) << v.detail;
  EXPECT_EQ(v.failure, Verdict::Failure::SelfModifiedOnError) << v.detail;
  EXPECT_TRUE(
      contains(v.detail, "self modified although an error was reported: operand self was modified: element [1]"))
      << v.detail;
  // Index values are checked while writing: that partial write is allowed.
  const Verdict oob = through(*b, index_error_call());
  EXPECT_EQ(oob.kind, Verdict::Kind::Pass) << oob.detail;
  EXPECT_EQ(through(*b, valid_call()).kind, Verdict::Kind::Pass);
}

TEST(SideEffectsPlugin, ACorrectPluginPasses) { a_correct_backend_passes(plugin); }
TEST(SideEffectsPlugin, AWriteIntoAReadOnlyOperandIsInputModified) { a_write_into_src_is_input_modified(plugin); }
TEST(SideEffectsPlugin, APartialWriteBeforeAnErrorIsSelfModified) {
  a_partial_write_before_an_error_is_self_modified(plugin);
}

TEST(SideEffectsProcess, ACorrectAdapterPasses) { a_correct_backend_passes(adapter); }
TEST(SideEffectsProcess, AWriteIntoAReadOnlyOperandIsInputModified) { a_write_into_src_is_input_modified(adapter); }
TEST(SideEffectsProcess, APartialWriteBeforeAnErrorIsSelfModified) {
  a_partial_write_before_an_error_is_self_modified(adapter);
}

// An adapter that does not return its operands (written before "operands"
// existed): its write into src cannot be seen, and the record says so.
TEST(SideEffectsProcess, AnAdapterWithoutOperandsIsNotObservableNeverAPassOfTheCheck) {
  auto b = adapter("old");
  ASSERT_TRUE(b);
  const Verdict v = through(*b, valid_call());
  EXPECT_EQ(v.kind, Verdict::Kind::Pass) << v.detail;  // its output is right
  EXPECT_TRUE(contains(v.detail, "side effects not observable")) << v.detail;
  EXPECT_TRUE(contains(v.detail, "writes into index, src cannot be seen")) << v.detail;
  // After an error self did not come back either.
  const Verdict e = through(*b, dtype_error_call());
  EXPECT_EQ(e.kind, Verdict::Kind::Pass) << e.detail;
  EXPECT_TRUE(contains(e.detail, "writes into index, self, src cannot be seen")) << e.detail;
}

}  // namespace
}  // namespace sp
