// fuzz_programs_test.cc — the program generator (fuzz/program_gen.h) and
// program campaigns: generated programs load as spec cases, pass on the cpu
// backend, vary in steps, views and sizes, and a finding in a program
// shrinks to fewer steps.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>

#include "fuzz/engine.h"
#include "fuzz/program_gen.h"
#include "harness/spec_loader.h"

namespace sp::fuzz {
namespace {

std::unique_ptr<Backend> backend_named(const std::string& name) {
  std::string why;
  auto b = make_backend(name, BackendOptions{}, &why);
  EXPECT_TRUE(b) << why;
  return b;
}

TEST(FuzzPrograms, GeneratedProgramsLoadAsSpecCasesAndPassOnCpu) {
  auto cpu = backend_named("cpu");
  ASSERT_TRUE(cpu);
  std::set<size_t> step_counts;
  std::set<std::string> shapes;
  int views = 0, errors = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Choices choices(seed);
    auto program = std::make_shared<const Program>(generate_program(choices));
    ASSERT_GE(program->steps.size(), 2u);
    ASSERT_LE(program->steps.size(), 4u);
    step_counts.insert(program->steps.size());
    for (const ProgramStep& s : program->steps) views += is_view_op(s.op);
    shapes.insert(format_shape(program->inputs.begin()->second.shape()));
    const Trial t = judge_program_trial(*cpu, program);
    errors += t.expectation.expects_error();
    EXPECT_FALSE(is_finding(t.verdict.kind)) << "seed " << seed << ": " << t.verdict.detail;
    // Its repro spec loads, and the loader's checks accept every generated step.
    const Case c = repro_case(t, "cpu");
    if (c.expect.kind == CaseExpect::Kind::Output)  // every compared tensor, by name
      EXPECT_EQ(c.expect.outputs.size(), program->expect.size()) << "seed " << seed;
    const std::vector<Case> loaded = load_spec_text(spec_file_json({c}, "generated").dump(), "gen.json");
    ASSERT_EQ(loaded.size(), 1u);
    ASSERT_TRUE(loaded[0].is_program());
    EXPECT_EQ(loaded[0].program->steps.size(), program->steps.size());
  }
  EXPECT_EQ(step_counts, (std::set<size_t>{2, 3, 4}));
  EXPECT_GT(views, 0);
  EXPECT_GT(errors, 0);           // invalid writes or reads end programs too
  EXPECT_GT(shapes.size(), 10u);  // sizes vary from program to program
}

TEST(FuzzPrograms, AFindingInAProgramShrinksToFewerSteps) {
  auto mutant = backend_named("mutant:index-copy-skips-first");
  auto cpu = backend_named("cpu");
  ASSERT_TRUE(mutant && cpu);
  FuzzScope scope;
  scope.programs = true;
  // The first finding found with more than the two steps a program needs.
  std::optional<Trial> found;
  for (uint64_t seed = 1; seed <= 200 && !found; ++seed) {
    FuzzLimits limits;
    limits.seed = seed;
    limits.max_cases = 5000;
    limits.duration = std::chrono::milliseconds(30000);
    FuzzResult r = fuzz_backend(*mutant, limits, {}, cpu.get(), scope);
    if (r.finding && r.finding->program && r.finding->program->steps.size() > 2) found = std::move(r.finding);
  }
  ASSERT_TRUE(found) << "no finding of more than two steps";
  const Shrunk s = shrink_finding(*mutant, *found, {}, scope);
  ASSERT_TRUE(s.trial.program);
  EXPECT_TRUE(is_finding(s.trial.verdict.kind)) << s.trial.verdict.detail;
  // The bug is in the write: the view and the write back are shrunk away; the read stays.
  EXPECT_EQ(s.trial.program->steps.size(), 2u) << "found with " << found->program->steps.size() << " steps";
  EXPECT_EQ(s.trial.program->steps.front().op.rfind("torch.index_copy", 0), 0u) << s.trial.program->steps.front().op;
}

}  // namespace
}  // namespace sp::fuzz
