// fuzz_index_reduce_test.cc — the fuzz generator on the op table's own
// torch.index_reduce_ / torch.index_reduce entries (IndexAlongDim family):
// every documented reduce and some invalid names ("sum" among them),
// include_self both ways and absent, a floating self mostly (the document's
// domain; other dtypes are unspecified, T-IR4), and a third or so of the
// cases invalid, each answered by the reference.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "fuzz/case_gen.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp::fuzz {
namespace {

TEST(FuzzIndexReduce, GeneratorCoversReducesIncludeSelfAndErrors) {
  constexpr int kCases = 3000;
  for (const char* id : {"torch.index_reduce_", "torch.index_reduce"}) {
    const OpSpec& op = op_spec(id);
    std::map<std::string, int> seen;
    int invalid = 0, unspecified = 0;
    for (int i = 0; i < kCases; ++i) {
      Choices c(7000 + static_cast<uint64_t>(i));
      const OpCall call = generate_call_for(c, op);
      ASSERT_EQ(call.op, op.id);
      ASSERT_TRUE(call.tensor("self") && call.tensor("index") && call.tensor("source")) << call.describe();
      ASSERT_TRUE(call.string_arg("reduce")) << "a required argument is always passed";
      ++seen["reduce=" + *call.string_arg("reduce")];
      ++seen[call.bool_arg("include_self") ? (*call.bool_arg("include_self") ? "include_self" : "exclude_self")
                                           : "include_self default"];
      if (is_floating(call.tensor("self")->dtype())) ++seen["floating self"];
      const Expectation e = evaluate(call);
      if (e.expects_error()) ++invalid;
      if (e.unspecified) ++unspecified;
      if (e.expects_error())
        for (ErrorCategory k : e.errors) ++seen[std::string(error_name(k))];
    }
    for (const char* reduce : {"prod", "mean", "amax", "amin"})
      EXPECT_GT(seen[std::string("reduce=") + reduce], kCases / 8) << id << " " << reduce;
    EXPECT_GT(seen["reduce=sum"], 0) << id;
    for (const char* k : {"include_self", "exclude_self", "include_self default"})
      EXPECT_GT(seen[k], kCases / 6) << id << " " << k;
    EXPECT_GT(seen["floating self"], kCases * 3 / 4) << id;
    for (const char* k : {"invalid_reduce", "index_out_of_bounds", "shape_mismatch", "dim_out_of_range"})
      EXPECT_GT(seen[k], 0) << id << " " << k;
    const double ratio = static_cast<double>(invalid) / kCases;
    std::printf("%s: invalid %.3f, unspecified %.3f over %d cases\n", id, ratio,
                static_cast<double>(unspecified) / kCases, kCases);
    EXPECT_GT(ratio, 0.2) << id;
    EXPECT_LT(ratio, 0.6) << id;
    EXPECT_LT(unspecified, kCases / 4) << id;
  }
}

}  // namespace
}  // namespace sp::fuzz
