// process_program_test.cc — programs over the line protocol (PROTOCOL.md
// "Programs"): the "program" request's encoding, the hello's "programs",
// and the op-by-op fallback for a program whose hello does not say it
// (scatterproof-serve cpu: one "run" request per step, an in-place step's
// self written back into the harness's tensors).
#include <gtest/gtest.h>

#include <string>

#include "backends/process/protocol.h"
#include "harness/program_run.h"
#include "harness/spec_loader.h"
#include "tests/test_paths.h"

namespace sp {
namespace {

using json = nlohmann::json;

Case program_case(int64_t read_at) {
  const json steps = {
      {{"op", "torch.index_add_"},
       {"args", {{"dim", 0}, {"alpha", 2}}},
       {"operands", {{"self", "x"}, {"index", "k"}, {"source", "s"}}}},
      {{"let", "v"}, {"op", "view.transpose"}, {"args", {{"dim0", 0}, {"dim1", 1}}}, {"operands", {{"self", "x"}}}},
      {{"let", "z"}, {"op", "torch.gather"}, {"args", {{"dim", 0}}}, {"operands", {{"input", "v"}, {"index", "j"}}}}};
  const json c = {{"id", "p"},
                  {"source", {{"document", "test"}}},
                  {"program",
                   {{"inputs",
                     {{"x", {{"dtype", "float32"}, {"data", {{0, 0}, {0, 0}}}}},
                      {"k", {{"dtype", "int64"}, {"data", {1, 1}}}},
                      {"s", {{"dtype", "float32"}, {"data", {{1, 2}, {3, 4}}}}},
                      {"j", {{"dtype", "int64"}, {"data", {{read_at, 1}}}}}}},
                    {"steps", steps},
                    {"expect", {"x", "z"}}}},
                  {"expect", {{"unspecified", "test"}}}};
  return load_spec_text(json{{"format", "scatterproof-spec/1"}, {"cases", {c}}}.dump(), "p.json").at(0);
}

TEST(ProcessPrograms, TheProgramRequestCarriesStepsArgumentsAndNames) {
  const Case c = program_case(0);
  const json r = protocol::encode_program_request(9, *c.program);
  EXPECT_EQ(r["type"], "program");
  EXPECT_EQ(r["id"], 9);
  EXPECT_EQ(r["inputs"].size(), 4u);
  EXPECT_EQ(r["inputs"]["x"]["shape"], json({2, 2}));
  ASSERT_EQ(r["steps"].size(), 3u);
  EXPECT_FALSE(r["steps"][0].contains("let"));                                       // in place: writes its self
  EXPECT_EQ(r["steps"][0]["args"]["alpha"], json({{"kind", "int"}, {"value", 2}}));  // a scalar keeps its kind
  EXPECT_EQ(r["steps"][1]["args"], json({{"dim0", 0}, {"dim1", 1}}));
  EXPECT_EQ(r["steps"][2]["operands"], json({{"input", "v"}, {"index", "j"}}));
  EXPECT_EQ(r["expect"], json({"x", "z"}));
  protocol::Hello hello;
  hello.programs = true;
  EXPECT_TRUE(protocol::decode_hello(protocol::encode_hello(hello)).programs);
  EXPECT_FALSE(protocol::decode_hello(json{{"type", "hello"}}).programs);
}

TEST(ProcessPrograms, AProgramWithoutProgramsInItsHelloRunsOneRequestPerStep) {
  std::string why;
  auto backend = make_backend("process:" + sp::test::serve_binary() + " cpu", BackendOptions{}, &why);
  ASSERT_TRUE(backend) << why;
  // x = [[0, 0], [4, 8]] after index_add_ (alpha 2, both writes into row 1); v = x^T; z = [[v[0][0], v[1][1]]].
  const Case c = program_case(0);
  const Outcome out = run_program(*backend, *c.program);
  ASSERT_EQ(out.kind, Outcome::Kind::Outputs) << out.message;
  ASSERT_EQ(out.outputs.size(), 2u);
  EXPECT_EQ(out.outputs[0].to_bits(), evaluate_program(*c.program).outputs->at(0).exact.to_bits());
  const Verdict v = judge_program(evaluate_program(*c.program), out);
  EXPECT_EQ(v.kind, Verdict::Kind::Pass) << v.detail;
  // A step's error ends the program, named.
  const Case bad = program_case(2);
  const Outcome err = run_program(*backend, *bad.program);
  ASSERT_EQ(err.kind, Outcome::Kind::Error) << err.message;
  EXPECT_EQ(err.message.rfind("step 3 (torch.gather): ", 0), 0u) << err.message;
  EXPECT_EQ(judge_program(evaluate_program(*bad.program), err).kind, Verdict::Kind::Pass);
}

}  // namespace
}  // namespace sp
