// rule_messages_test.cc — one text per rule: a call that breaks one argument
// rule gets the same message from the reference and from each of our own
// backends (cpu, cuda-host), since all of them word it from the dialect's
// message table (reference/messages_torch.h, messages_mindspore.h,
// messages_paddle.h), while each still decides on its own whether the rule
// holds.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/backend.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::f32;
using test::i64;

struct Broken {
  std::string rule;
  OpCall call;
};

OpCall with_dim(OpCall c, int64_t dim) {
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

std::vector<Broken> broken_calls() {
  const Tensor m = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor idx = i64({2, 1}, {0, 1});
  const Tensor row = i64({1}, {0});
  std::vector<Broken> b;
  // T-D1, one wording in every op that checks it (the cpu and cuda backends
  // once had a second one for five of them).
  b.push_back({"T-D1 gather", with_dim(test::call_of("torch.gather", {{"input", m}, {"index", idx}}, {}), 2)});
  b.push_back(
      {"T-D1 scatter_", with_dim(test::call_of("torch.scatter_", {{"self", m}, {"index", idx}, {"src", m}}, {}), -3)});
  b.push_back(
      {"T-D1 index_add",
       with_dim(test::call_of("torch.index_add", {{"self", m}, {"index", row}, {"source", f32({1, 3}, {1, 1, 1})}}, {}),
                2)});
  b.push_back(
      {"T-D1 index_copy", with_dim(test::call_of("torch.index_copy",
                                                 {{"self", m}, {"index", row}, {"source", f32({1, 3}, {1, 1, 1})}}, {}),
                                   5)});
  b.push_back(
      {"T-D1 index_select", with_dim(test::call_of("torch.index_select", {{"input", m}, {"index", row}}, {}), 2)});
  b.push_back({"T-D1 take_along_dim",
               with_dim(test::call_of("torch.take_along_dim", {{"input", m}, {"indices", idx}}, {}), -3)});
  // MS-D1: MindSpore's own words for the same range.
  b.push_back({"MS-D1 scatter_",
               with_dim(test::call_of("mindspore.scatter_", {{"self", m}, {"index", idx}, {"src", m}}, {}), 2)});
  // Rules whose backend text once differed from the reference's.
  b.push_back(
      {"T-IA3", with_dim(test::call_of("torch.index_add",
                                       {{"self", m}, {"index", f32({1}, {0})}, {"source", f32({1, 3}, {1, 1, 1})}}, {}),
                         0)});
  b.push_back({"T-IA5", with_dim(test::call_of("torch.index_add",
                                               {{"self", m}, {"index", row}, {"source", f32({3}, {1, 1, 1})}}, {}),
                                 1)});
  b.push_back(
      {"T-IC4", with_dim(test::call_of("torch.index_copy",
                                       {{"self", m}, {"index", row}, {"source", test::f64({1, 3}, {1, 1, 1})}}, {}),
                         0)});
  b.push_back(
      {"T-V1", test::call_of("torch.scatter_", {{"self", test::tensor_of(DType::Int8, {2}, {0, 0})}, {"index", row}},
                             {{"dim", Arg::of_int(0)}, {"value", Arg::of_scalar(Scalar::of_int(300))}})});
  b.push_back(
      {"PD-S1", test::call_of("paddle.scatter",
                              {{"x", m}, {"index", i64({2}, {0, 1})}, {"updates", f32({1, 3}, {1, 1, 1})}}, {})});
  return b;
}

TEST(RuleMessages, OurBackendsWordEachRuleAsTheReferenceDoes) {
  for (const char* name : {"cpu", "cuda-host"}) {
    std::unique_ptr<Backend> backend = make_backend(name, BackendOptions{}, nullptr);
    ASSERT_TRUE(backend) << name;
    for (const Broken& b : broken_calls()) {
      const Expectation e = evaluate(b.call);
      ASSERT_TRUE(e.expects_error()) << b.rule << ": " << e.summary();
      const Outcome o = backend->run(b.call.deep_copy());
      ASSERT_EQ(o.kind, Outcome::Kind::Error) << name << ", " << b.rule << ": " << o.message;
      EXPECT_TRUE(o.error && *o.error == e.errors.front()) << name << ", " << b.rule;
      EXPECT_EQ(o.message, e.error_message) << name << ", " << b.rule;
    }
  }
}

}  // namespace
}  // namespace sp
