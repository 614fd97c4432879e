// cpu_mindspore_elements_backward_test.cc — the cpu backend's backward of
// MindSpore's element-wise index ops (backends/cpu/ops/mindspore_elements.cc)
// against gradients measured with MindSpore 2.10.0 CPU (.venv,
// `mindspore.vjp`); operands also transposed, gapped and expanded.
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "reference/op_table.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::call_of;
using test::f32;
using test::i64;
using test::Layout;
using test::relaid;
using test::values_of;

Outcome run_cpu(const OpCall& call) {
  std::string why;
  auto backend = make_backend("cpu", BackendOptions{1, false}, &why);
  if (!backend) {
    ADD_FAILURE() << why;
    return Outcome::harness_error(why);
  }
  return run_backend(*backend, call);
}

std::vector<double> only_grad(const Outcome& o) {
  EXPECT_EQ(o.kind, Outcome::Kind::Outputs) << o.message;
  if (o.outputs.size() != 1) {
    ADD_FAILURE() << o.outputs.size() << " outputs";
    return {};
  }
  EXPECT_TRUE(o.outputs[0].is_contiguous());
  return values_of(o.outputs[0]);
}

TEST(CpuMindsporeElementsBackward, GatherElementsAccumulatesAndWrapsInEveryLayout) {
  // measured: ops.gather_elements(x, 0, [[1, 0, 1], [1, 1, 1]]) with grad_output [[1, 2, 3], [4, 5, 6]]
  // -> [[0, 2, 0], [5, 5, 9]]; along dim 1 with index [[-1, 0], [-3, -1]] -> [[2, 0, 1], [3, 0, 4]].
  for (Layout l : test::kLayouts) {
    const OpCall dup = call_of("mindspore.ops.gather_elements.backward",
                               {{"input", relaid(f32({2, 3}, {0, 1, 2, 3, 4, 5}), l)},
                                {"index", relaid(i64({2, 3}, {1, 0, 1, 1, 1, 1}), l)},
                                {"grad_output", relaid(f32({2, 3}, {1, 2, 3, 4, 5, 6}), l)}},
                               {{"dim", Arg::of_int(0)}});
    EXPECT_EQ(only_grad(run_cpu(dup)), (std::vector<double>{0, 2, 0, 5, 5, 9})) << static_cast<int>(l);
    const OpCall neg = call_of("mindspore.ops.gather_elements.backward",
                               {{"input", relaid(f32({2, 3}, {1, 2, 3, 4, 5, 6}), l)},
                                {"index", relaid(i64({2, 2}, {-1, 0, -3, -1}), l)},
                                {"grad_output", relaid(f32({2, 2}, {1, 2, 3, 4}), l)}},
                               {{"dim", Arg::of_int(1)}});
    EXPECT_EQ(only_grad(run_cpu(neg)), (std::vector<double>{2, 0, 1, 3, 0, 4})) << static_cast<int>(l);
  }
}

TEST(CpuMindsporeElementsBackward, GatherElementsErrorsComeInTheReferencesOrder) {
  const auto run = [](const Tensor& input, const Tensor& index, const Tensor& g) {
    return run_cpu(call_of("mindspore.ops.gather_elements.backward",
                           {{"input", input}, {"index", index}, {"grad_output", g}}, {{"dim", Arg::of_int(0)}}));
  };
  // The forward's (MS-GE6) before the gradient's: an int32 input with an index out of bounds.
  const Outcome bounds = run(test::i32({2}, {1, 2}), i64({1}, {2}), test::i32({1}, {1}));
  EXPECT_EQ(bounds.error, ErrorCategory::IndexOutOfBounds) << bounds.message;
  const Outcome ints = run(test::i32({2}, {1, 2}), i64({1}, {1}), test::i32({1}, {1}));  // MS-GEG2
  EXPECT_EQ(ints.error, ErrorCategory::UnsupportedDtype) << ints.message;
  const Outcome shape = run(f32({2}, {1, 2}), i64({1}, {1}), f32({2}, {1, 2}));  // MS-GEG3
  EXPECT_EQ(shape.error, ErrorCategory::ShapeMismatch) << shape.message;
}

TEST(CpuMindsporeElementsBackward, TensorScatterElementsInEveryLayout) {
  // measured: the page's example (indices [[2, 4]], axis 1) with grad_output [[1, 2, 3, 4, 5]]:
  // "none" -> [[1, 2, 0, 4, 0]], [[3, 5]]; "add" -> [[1, 2, 3, 4, 5]], [[3, 5]]. An index 5 (dropped,
  // MS-TSE10) gets +0.0 and leaves input_x's gradient (MindSpore refuses it: a listed deviation).
  for (Layout l : test::kLayouts)
    for (const std::string reduction : {"none", "add"}) {
      const auto run = [&](const Tensor& indices) {
        return run_cpu(call_of("mindspore.ops.tensor_scatter_elements.backward",
                               {{"input_x", relaid(f32({1, 5}, {1, 2, 3, 4, 5}), l)},
                                {"indices", relaid(indices, l)},
                                {"updates", relaid(f32({1, 2}, {8, 8}), l)},
                                {"grad_output", relaid(f32({1, 5}, {1, 2, 3, 4, 5}), l)}},
                               {{"axis", Arg::of_int(1)}, {"reduction", Arg::of_string(reduction)}}));
      };
      const bool add = reduction == "add";
      const Outcome o = run(i64({1, 2}, {2, 4}));
      ASSERT_EQ(o.outputs.size(), 2u) << o.message;
      EXPECT_EQ(values_of(o.outputs[0]),
                (add ? std::vector<double>{1, 2, 3, 4, 5} : std::vector<double>{1, 2, 0, 4, 0}))
          << reduction << static_cast<int>(l);
      EXPECT_EQ(values_of(o.outputs[1]), (std::vector<double>{3, 5})) << reduction << static_cast<int>(l);
      const Outcome dropped = run(i64({1, 2}, {5, 1}));
      ASSERT_EQ(dropped.outputs.size(), 2u) << dropped.message;
      EXPECT_EQ(values_of(dropped.outputs[0]),
                (add ? std::vector<double>{1, 2, 3, 4, 5} : std::vector<double>{1, 0, 3, 4, 5}));
      EXPECT_EQ(values_of(dropped.outputs[1]), (std::vector<double>{0, 2}));
    }
}

TEST(CpuMindsporeElementsBackward, MintScatterAndScatterAddInEveryLayout) {
  // mint.scatter, measured: the page's first example with grad_output [[1, 2, 3, 4, 5]] -> [[1, 2, 0, 4, 0]],
  // [[3, 5]]. mint.scatter_add (no CPU kernel in MindSpore 2.10.0): grad_output passes, src [1, 3] larger than
  // index [1, 2] gets [[3, 5, 0]] (MS-MSG6).
  for (Layout l : test::kLayouts) {
    const auto run = [&](const std::string& op, const Tensor& src) {
      return run_cpu(call_of(op,
                             {{"input", relaid(f32({1, 5}, {1, 2, 3, 4, 5}), l)},
                              {"index", relaid(i64({1, 2}, {2, 4}), l)},
                              {"src", relaid(src, l)},
                              {"grad_output", relaid(f32({1, 5}, {1, 2, 3, 4, 5}), l)}},
                             {{"dim", Arg::of_int(1)}}));
    };
    const Outcome scatter = run("mindspore.mint.scatter.backward", f32({1, 2}, {8, 8}));
    ASSERT_EQ(scatter.outputs.size(), 2u) << scatter.message;
    EXPECT_EQ(values_of(scatter.outputs[0]), (std::vector<double>{1, 2, 0, 4, 0})) << static_cast<int>(l);
    EXPECT_EQ(values_of(scatter.outputs[1]), (std::vector<double>{3, 5})) << static_cast<int>(l);
    const Outcome add = run("mindspore.mint.scatter_add.backward", f32({1, 3}, {8, 8, 8}));
    ASSERT_EQ(add.outputs.size(), 2u) << add.message;
    EXPECT_EQ(values_of(add.outputs[0]), (std::vector<double>{1, 2, 3, 4, 5})) << static_cast<int>(l);
    EXPECT_EQ(values_of(add.outputs[1]), (std::vector<double>{3, 5, 0})) << static_cast<int>(l);
    // MS-MSG4: mint.scatter's backward needs src shaped like index.
    EXPECT_EQ(run("mindspore.mint.scatter.backward", f32({1, 3}, {8, 8, 8})).error, ErrorCategory::ShapeMismatch);
  }
}

}  // namespace
}  // namespace sp
