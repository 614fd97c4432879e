// libtorch_index_copy_fill_fuzz_test.cc — generated torch.index_copy_ /
// index_copy / index_fill_ / index_fill cases (fuzz/case_gen) run through
// the real LibTorch 1.13.1 backend and judged against the reference: no
// disagreement. `scatterproof fuzz --backend libtorch` draws every op and
// stops at LibTorch's known index_add deviation (T-IA13); this holds the
// four ops of T-IC* / T-IF* to the same standard on their own.
// Built only when the backend is (SP_HAVE_LIBTORCH).
#ifdef SP_HAVE_LIBTORCH

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/backend.h"
#include "fuzz/case_gen.h"
#include "harness/comparator.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {
namespace {

TEST(LibTorchFuzzIndexCopyFill, GeneratedCasesAgreeWithTheReference) {
  std::string why;
  auto libtorch = make_backend("libtorch", BackendOptions{1, false}, &why);
  ASSERT_TRUE(libtorch) << why;
  for (const char* op : {"torch.index_copy_", "torch.index_copy", "torch.index_fill_", "torch.index_fill"}) {
    int outputs = 0, errors = 0;
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
      fuzz::Choices c(seed);
      OpCall call = fuzz::generate_call_for(c, op_spec(op));
      call.framework_version = libtorch->framework()->version;  // judged by LibTorch's own version's rules
      const OpCall before = call.deep_copy();
      OpCall given = call.deep_copy();
      const Outcome out = libtorch->run(given);
      const Verdict v = judge(before, evaluate(before), out, given);
      ASSERT_EQ(v.kind, Verdict::Kind::Pass)
          << op << " seed " << seed << ": " << call.describe() << ": " << v.detail << " (" << out.message << ")";
      if (out.kind == Outcome::Kind::Outputs) ++outputs;
      if (out.kind == Outcome::Kind::Error) ++errors;
    }
    // Both sides of the rules were exercised.
    EXPECT_GT(outputs, 500) << op;
    EXPECT_GT(errors, 200) << op;
  }
}

}  // namespace
}  // namespace sp

#endif  // SP_HAVE_LIBTORCH
