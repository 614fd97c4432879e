// program_run_test.cc — programs on backends (backends/backend.h run_program,
// harness/program_run.h): run op by op on the backend's own results, judged
// against the composed reference (SEMANTICS.md P-1). A backend that picks
// another legal writer of a duplicate, propagated, passes (soundness); a
// wrong value where the program stays exact fails (tightness); a step's
// error ends the program.
#include "harness/program_run.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/backend.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "reports/report_writers.h"

namespace sp {
namespace {

using json = nlohmann::json;

json t_int64(const json& data) { return {{"dtype", "int64"}, {"data", data}}; }
json t_f32(const json& data) { return {{"dtype", "float32"}, {"data", data}}; }

// x.scatter_(0, i, s) with duplicate writers into x[0][0] (x becomes
// [[1 or 3, 2], [5, 4]]); then
// z = gather(x, 0, j); then x.index_copy_(0, [1], z): a write, a read and a
// write that reads the read.
Case program_case(const json& j) {
  json steps = json::array();
  steps.push_back(
      {{"op", "torch.scatter_"}, {"args", {{"dim", 0}}}, {"operands", {{"self", "x"}, {"index", "i"}, {"src", "s"}}}});
  steps.push_back(
      {{"let", "z"}, {"op", "torch.gather"}, {"args", {{"dim", 0}}}, {"operands", {{"input", "x"}, {"index", "j"}}}});
  steps.push_back({{"op", "torch.index_copy_"},
                   {"args", {{"dim", 0}}},
                   {"operands", {{"self", "x"}, {"index", "k"}, {"source", "z"}}}});
  const json c = {{"id", "p"},
                  {"source", {{"document", "test"}}},
                  {"program",
                   {{"inputs",
                     {{"x", t_f32({{0, 0}, {5, 6}})},
                      {"i", t_int64({{0, 0}, {0, 1}})},
                      {"s", t_f32({{1, 2}, {3, 4}})},
                      {"j", j},
                      {"k", t_int64({1})}}},
                    {"steps", steps},
                    {"expect", {"x", "z"}}}},
                  {"expect", {{"unspecified", "test"}}}};
  return load_spec_text(json{{"format", "scatterproof-spec/1"}, {"cases", {c}}}.dump(), "p.json").at(0);
}

// Answers every call with the reference's result, except that a loose
// element takes a member of its allowed set other than the reference's
// representative (another legal choice, for scatter_'s duplicates), and
// `wrong_op`'s output gets its element `wrong_at` off by one.
class ChoosingBackend final : public Backend {
 public:
  explicit ChoosingBackend(std::string wrong_op = {}, int64_t wrong_at = -1)
      : wrong_op_(std::move(wrong_op)), wrong_at_(wrong_at) {}
  std::string name() const override { return "choosing"; }
  std::string description() const override { return "program_run_test"; }
  bool implements(std::string_view) const override { return true; }
  Outcome run(const OpCall& call) override {
    ++calls;
    const Expectation e = evaluate(call);
    if (!e.outputs) return Outcome::of_error(e.errors.front(), e.error_message);
    const ExpectedTensor& want = e.outputs->front();
    Tensor out = want.exact.clone_storage();
    for (const auto& [linear, allowed] : want.loose)
      for (uint64_t b : allowed.bits)  // a member other than the reference's representative
        if (b != load_bits(out.dtype(), want.exact.element_ptr(linear)))
          store_bits(out.dtype(), out.element_ptr(linear), b);
    if (call.op == wrong_op_) {
      const double v = value_from_bits(out.dtype(), load_bits(out.dtype(), out.element_ptr(wrong_at_))).as_double();
      store_bits(out.dtype(), out.element_ptr(wrong_at_), bits_from_value(out.dtype(), Value::of_float(v + 1)));
    }
    if (is_inplace_op(call)) {  // in place: the caller's self holds the result
      const Tensor& self = *call.tensor("self");
      Shape idx(self.shape().size(), 0);
      if (self.numel() > 0) do
          self.set_bits_at(idx, out.bits_at(idx));
        while (next_index(idx, self.shape()));
    }
    return Outcome::of_outputs({out});
  }
  int calls = 0;

 private:
  std::string wrong_op_;
  int64_t wrong_at_;
};

TEST(ProgramRun, AnotherLegalChoiceOfADuplicateWriterPropagatedPasses) {
  // z[0][0] reads x[0][0] (two writers: 1 or 3); z[0][1] reads x[1][1] (exact 4).
  const Case c = program_case(t_int64({{0, 1}}));
  const Expectation exp = evaluate_program(*c.program);
  ChoosingBackend backend;
  const Outcome out = run_program(backend, *c.program);
  ASSERT_EQ(out.kind, Outcome::Kind::Outputs) << out.message;
  EXPECT_EQ(backend.calls, 3);  // op by op
  // The backend chose the writer the reference's representative is not (the reference's last writer wins: 3).
  EXPECT_EQ(value_from_bits(DType::Float32, exp.outputs->at(1).exact.bits_at({0, 0})).as_double(), 3.0);
  EXPECT_EQ(value_from_bits(DType::Float32, out.outputs.at(1).bits_at({0, 0})).as_double(), 1.0);
  const Verdict v = judge_program(exp, out);
  EXPECT_EQ(v.kind, Verdict::Kind::Pass) << v.detail;
}

TEST(ProgramRun, AWrongValueWhereTheProgramStaysExactFails) {
  const Case c = program_case(t_int64({{0, 1}}));
  const Expectation exp = evaluate_program(*c.program);
  ChoosingBackend wrong("torch.gather", 1);  // z[0][1] read the exact x[1][1]
  const Verdict v = judge_program(exp, run_program(wrong, *c.program));
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("output x[1][1]"), std::string::npos) << v.detail;  // index_copy_ carried it into x
  // The same wrong value where z read a loose element is allowed there (P-1), and caught nowhere else.
  ChoosingBackend loose("torch.gather", 0);
  const Verdict w = judge_program(exp, run_program(loose, *c.program));
  EXPECT_EQ(w.kind, Verdict::Kind::Pass) << w.detail;
}

TEST(ProgramRun, ARuleBreakingStepEndsTheProgramWithItsError) {
  const Case c = program_case(t_int64({{0, 5}}));
  const Expectation exp = evaluate_program(*c.program);
  ChoosingBackend backend;
  const Outcome out = run_program(backend, *c.program);
  ASSERT_EQ(out.kind, Outcome::Kind::Error);
  EXPECT_EQ(backend.calls, 2);  // the index_copy_ after the failing gather never ran
  EXPECT_EQ(out.message.rfind("step 2 (torch.gather): ", 0), 0u) << out.message;
  EXPECT_EQ(judge_program(exp, out).kind, Verdict::Kind::Pass);
  // Outputs where the program breaks a rule fail, naming the step's error.
  const Verdict v = judge_program(exp, Outcome::of_outputs({}));
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("step 2"), std::string::npos) << v.detail;
}

TEST(ProgramRun, TheCpuBackendAndAMutantOfIt) {
  // z = [x[1][0], x[0][1]] = [5, 2], copied into x[1].
  const Case c = program_case(t_int64({{1, 0}}));
  const Expectation exp = evaluate_program(*c.program);
  std::string why;
  std::unique_ptr<Backend> cpu = make_backend("cpu", BackendOptions{}, &why);
  ASSERT_TRUE(cpu) << why;
  const Verdict v = judge_program(exp, run_program(*cpu, *c.program));
  EXPECT_EQ(v.kind, Verdict::Kind::Pass) << v.detail;
  // index_copy_ that skips the first index position leaves x[1] as the scatter_ made it ([5, 4]).
  std::unique_ptr<Backend> mutant = make_backend("mutant:index-copy-skips-first", BackendOptions{}, &why);
  ASSERT_TRUE(mutant) << why;
  const Verdict m = judge_program(exp, run_program(*mutant, *c.program));
  EXPECT_EQ(m.kind, Verdict::Kind::Fail) << m.detail;
}

class Records final : public ResultSink {
 public:
  void write(const ResultRecord& r) override { all.push_back(r); }
  std::vector<ResultRecord> all;
};

TEST(ProgramRun, ADeviationListedByClauseAndStepOpIsExpected) {
  // mutant:index-copy-skips-first fails the program; an entry naming a clause the program cites
  // (T-G4, its gather step's note) with that step's op makes it an xfail, with another op not.
  const Case c = program_case(t_int64({{1, 0}}));
  for (const auto& [op, want] :
       {std::pair{"torch.gather", Verdict::Kind::XFail}, std::pair{"torch.scatter_reduce*", Verdict::Kind::Fail}}) {
    RunOptions options;
    options.backends = {"mutant:index-copy-skips-first"};
    ExpectationEntry e;
    e.backend_pattern = "mutant:*";
    e.clause_pattern = "T-G4";
    e.op_pattern = op;
    e.reason = "test";
    e.file = "test.json";
    options.expectations = {e};
    Records sink;
    run_cases({c}, {}, options, sink);
    ASSERT_EQ(sink.all.size(), 2u);  // the document check, the backend
    EXPECT_EQ(sink.all[1].op, "program");
    EXPECT_NE(sink.all[1].clause.find("T-G4"), std::string::npos) << sink.all[1].clause;
    EXPECT_EQ(sink.all[1].verdict, want) << op << ": " << sink.all[1].detail;
  }
}

TEST(ProgramRun, ReportsShowAProgramStepByStep) {
  const Case c = program_case(t_int64({{1, 0}}));
  ResultRecord r;
  r.case_id = c.id;
  r.file = c.file;
  r.op = c.call.op;
  r.backend = "mutant:index-copy-skips-first";
  r.check = "differential";
  r.verdict = Verdict::Kind::Fail;
  r.detail = "output x[1][1]: allowed 2.0, actual 4.0";
  r.explanation = program_explanation_lines(*c.program, "scatterproof explain p p.json");
  ASSERT_FALSE(r.explanation.empty());
  int blocks = 0;
  for (const std::string& l : r.explanation) blocks += l.rfind("== step ", 0) == 0;
  EXPECT_EQ(blocks, 3);  // report.html shows the explanation: one block per step
  for (const std::string& md : {report_markdown({r}), report_full_markdown({r})})
    EXPECT_NE(md.find("steps: 1. torch.scatter_(index=i, self=x, src=s, dim=0)  (writes x); 2. z = torch.gather("),
              std::string::npos)
        << md;
}

}  // namespace
}  // namespace sp
