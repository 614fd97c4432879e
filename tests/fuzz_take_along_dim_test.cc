// fuzz_take_along_dim_test.cc — the fuzz generator's TakeAlongDim family
// (fuzz/case_gen.cc) covers the shapes torch.take_along_dim's rules tell
// apart, and the reference answers each of its cases.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "fuzz/case_gen.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp::fuzz {
namespace {

int64_t value_at(const Tensor& t, const Shape& pos) { return t.value_at(pos).i; }

TEST(FuzzGen, TakeAlongDimFamilyCoversItsShapes) {
  const OpSpec& op = op_spec("torch.take_along_dim");
  ASSERT_EQ(op.family, ShapeFamily::TakeAlongDim);
  std::map<std::string, int> seen;
  const int kCases = 3000;
  for (uint64_t seed = 1; seed <= kCases; ++seed) {
    Choices c(seed);
    const OpCall call = generate_call_for(c, op);
    ASSERT_FALSE(check_signature(call).has_value()) << check_signature(call)->message;
    const Tensor& input = *call.tensor("input");
    const Tensor& indices = *call.tensor("indices");
    const std::optional<int64_t> dim = call.int_arg("dim");
    const Expectation e = evaluate(call);
    if (e.expects_error()) {
      ++seen["invalid"];
      ++seen[std::string("error ") + std::string(error_name(e.errors.front()))];
    }
    if (!e.errors.empty() && e.outputs) ++seen["error or result"];
    if (!dim) {
      ++seen["dim None"];
      if (indices.rank() != input.rank()) ++seen["dim None, other rank"];
      continue;
    }
    if (indices.rank() != input.rank()) {
      ++seen["rank mismatch"];
      continue;
    }
    const int64_t r = std::max<int64_t>(input.rank(), 1);
    if (*dim < -r || *dim >= r || input.rank() == 0) continue;
    const int64_t d = *dim < 0 ? *dim + r : *dim;
    for (int64_t k = 0; k < input.rank(); ++k) {
      if (k == d) continue;
      const int64_t a = input.size(k), b = indices.size(k);
      if (a == b)
        ++seen["equal dim"];
      else if (b == 1)
        ++seen["indices broadcasts"];
      else if (a == 1)
        ++seen["input broadcasts"];
      else
        ++seen["broadcast mismatch"];
    }
    if (indices.numel() > 0 && indices.dtype() == DType::Int64) {
      const int64_t s = input.size(d);
      Shape pos(static_cast<size_t>(indices.rank()), 0);
      do {
        const int64_t v = value_at(indices, pos);
        if (v == 0) ++seen["value 0"];
        if (v == s - 1) ++seen["value s-1"];
        if (v == s) ++seen["value s"];
        if (v == -1) ++seen["value -1"];
        if (v == -s && s > 1) ++seen["value -s"];
        if (v == -s - 1) ++seen["value -s-1"];
      } while (next_index(pos, indices.shape()));
    }
  }
  for (const char* kind : {"equal dim", "indices broadcasts", "input broadcasts", "broadcast mismatch", "rank mismatch",
                           "dim None", "dim None, other rank", "value 0", "value s-1", "value s", "value -1",
                           "value -s", "value -s-1", "error or result", "error shape_mismatch", "error rank_mismatch",
                           "error index_out_of_bounds", "error index_dtype", "error dim_out_of_range"})
    EXPECT_GT(seen[kind], 20) << kind;
  std::printf("take_along_dim: invalid %d, error-or-result %d, dim None %d of %d cases\n", seen["invalid"],
              seen["error or result"], seen["dim None"], kCases);
  // About a third invalid.
  EXPECT_GT(seen["invalid"], kCases / 5) << seen["invalid"];
  EXPECT_LT(seen["invalid"], kCases / 2) << seen["invalid"];
}

}  // namespace
}  // namespace sp::fuzz
