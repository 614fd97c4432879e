// cpu_mindspore_scatter_test.cc — the cpu backend against the reference
// (sp::evaluate): mindspore.scatter_ (backends/cpu/ops/mindspore_scatter.cc).
// The fixture and the differential check: cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

TEST_F(CpuBackendTest, MindsporeOverloadsNegativeAndInt32Indices) {
  const std::optional<std::string> reduces[] = {std::nullopt, "add", "multiply"};
  for (DType t : kAllDTypes) {
    for (DType index_dtype : {DType::Int32, DType::Int64}) {
      for (const auto& reduce : reduces) {
        for (bool use_value : {false, true}) {
          const int64_t dim = uniform(-2, 1);
          const Shape self_shape{7, 9};
          const int64_t s = self_shape[static_cast<size_t>(dim < 0 ? dim + 2 : dim)];
          Tensor index = make_index(index_dtype, {5, 8}, kLayouts[static_cast<size_t>(uniform(0, 3))], -s, s - 1);
          std::optional<Tensor> src;
          if (!use_value) src = make(t, {6, 8}, kLayouts[static_cast<size_t>(uniform(0, 3))]);
          OpCall call = scatter_call("mindspore.scatter_", make(t, self_shape, Layout::Gapped), index, src, dim);
          if (reduce) call.set_arg("reduce", Arg::of_string(*reduce));
          if (use_value) call.set_arg("value", Arg::of_scalar(Scalar::of_int(1)));
          agree_all_threads(call);
        }
      }
    }
  }
  // Large enough for the parallel paths, with negative row indices.
  Tensor rows = make_index(DType::Int32, {5000, 1}, Layout::Contiguous, -50, 49);
  OpCall call = scatter_call("mindspore.scatter_", make(DType::Float32, {50, 20}, Layout::Contiguous),
                             Tensor::view(DType::Int32, {5000, 20}, {1, 0}, 0, rows.storage()),
                             make(DType::Float32, {5000, 20}, Layout::Contiguous), 0);
  call.set_arg("reduce", Arg::of_string("add"));
  agree_all_threads(call);
  // Empty index: a no-op whatever its rank.
  agree_all_threads(scatter_call("mindspore.scatter_", make(DType::Int16, {3, 4}, Layout::Contiguous),
                                 make_index(DType::Int32, {0}, Layout::Contiguous, 0, 0),
                                 make(DType::Int16, {3, 4}, Layout::Contiguous), 0));
}

}  // namespace
}  // namespace sp
