// fuzz_index_copy_fill_test.cc — the fuzz generator on the real op-table
// entries of torch.index_copy_ / torch.index_copy (a source) and
// torch.index_fill_ / torch.index_fill (no source, a required scalar
// value): every call fits the signature, the operands are the op's own,
// the shapes cover the family's edges, and the reference answers every
// case with about a third invalid.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "fuzz/case_gen.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp::fuzz {
namespace {

struct Mix {
  std::map<std::string, int> seen;
  int invalid = 0, unspecified = 0, total = 0;
};

Mix draw(const std::string& op_id, int n) {
  const OpSpec& op = op_spec(op_id);
  Mix mix;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(n); ++seed) {
    Choices c(seed);
    const OpCall call = generate_call_for(c, op);
    EXPECT_EQ(call.op, op_id);
    EXPECT_FALSE(check_signature(call).has_value()) << check_signature(call)->message << " " << call.describe();
    ++mix.seen["index rank " + std::to_string(call.tensor("index")->rank())];
    ++mix.seen[call.tensor("source") ? "source" : "no source"];
    if (call.arg("value")) ++mix.seen["value"];
    const Expectation e = evaluate(call);
    ++mix.total;
    if (e.unspecified) ++mix.unspecified;
    if (e.expects_error()) {
      ++mix.invalid;
      ++mix.seen[std::string(error_name(e.errors.front()))];
    }
  }
  ::testing::Test::RecordProperty(op_id + " invalid", mix.invalid);
  ::testing::Test::RecordProperty(op_id + " unspecified", mix.unspecified);
  return mix;
}

TEST(FuzzGenIndexCopyFill, IndexCopyCasesHaveASourceAndAThirdInvalid) {
  for (const char* op : {"torch.index_copy_", "torch.index_copy"}) {
    const Mix m = draw(op, 2000);
    EXPECT_EQ(m.seen.at("source"), 2000) << op;
    EXPECT_EQ(m.seen.count("value"), 0u) << op;
    EXPECT_GT(m.seen.at("index rank 0"), 0) << op;
    EXPECT_GT(m.seen.at("index rank 2"), 30) << op;
    EXPECT_GT(m.invalid, m.total / 5) << op;
    EXPECT_LT(m.invalid, m.total * 3 / 5) << op;
    for (const char* category : {"index_out_of_bounds", "shape_mismatch", "dim_out_of_range", "dtype_mismatch",
                                 "index_dtype", "invalid_argument"})
      EXPECT_GT(m.seen.count(category) ? m.seen.at(category) : 0, 0) << op << " " << category;
  }
}

TEST(FuzzGenIndexCopyFill, IndexFillCasesHaveAValueNoSourceAndAThirdInvalid) {
  for (const char* op : {"torch.index_fill_", "torch.index_fill"}) {
    const Mix m = draw(op, 2000);
    EXPECT_EQ(m.seen.at("no source"), 2000) << op;
    EXPECT_EQ(m.seen.at("value"), 2000) << op << ": value is required";
    EXPECT_GT(m.seen.at("index rank 0"), 0) << op;
    EXPECT_GT(m.seen.at("index rank 2"), 30) << op;
    EXPECT_GT(m.invalid, m.total / 5) << op;
    EXPECT_LT(m.invalid, m.total * 3 / 5) << op;
    // Negative values in range: the document is silent (T-IF6); they occur, but are not most cases.
    EXPECT_GT(m.unspecified, 0) << op;
    EXPECT_LT(m.unspecified, m.total / 4) << op;
    for (const char* category :
         {"index_out_of_bounds", "dim_out_of_range", "index_dtype", "invalid_argument", "value_out_of_range"})
      EXPECT_GT(m.seen.count(category) ? m.seen.at(category) : 0, 0) << op << " " << category;
  }
}

}  // namespace
}  // namespace sp::fuzz
