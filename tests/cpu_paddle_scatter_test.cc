// cpu_paddle_scatter_test.cc — the cpu backend against the reference
// (sp::evaluate): paddle.scatter (backends/cpu/ops/paddle_scatter.cc). The
// fixture and the differential check: cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

TEST_F(CpuBackendTest, PaddleBothModes) {
  for (DType t : kAllDTypes) {
    for (DType index_dtype : {DType::Int32, DType::Int64}) {
      for (bool overwrite : {true, false}) {
        for (int64_t n : {1, 4, 9, 17, 3000}) {
          const int64_t width = n >= 3000 ? 33 : uniform(1, 17);
          OpCall c;
          c.op = "paddle.scatter";
          c.tensors = {{"x", make(t, {40, width}, kLayouts[static_cast<size_t>(uniform(0, 3))])},
                       {"index", make_index(index_dtype, {n}, n % 2 ? Layout::Gapped : Layout::Contiguous, 0, 39)},
                       {"updates", make(t, {n, width}, kLayouts[static_cast<size_t>(uniform(0, 2))])}};
          c.set_arg("overwrite", Arg::of_bool(overwrite));
          agree_all_threads(c);
        }
      }
    }
  }
  // 1-D x with many rows (narrow paths) in accumulate mode.
  OpCall c;
  c.op = "paddle.scatter";
  c.tensors = {{"x", make(DType::Float64, {1000}, Layout::Contiguous)},
               {"index", make_index(DType::Int32, {80000}, Layout::Contiguous, 0, 999)},
               {"updates", make(DType::Float64, {80000}, Layout::Contiguous)}};
  c.set_arg("overwrite", Arg::of_bool(false));
  agree_all_threads(c);
}

}  // namespace
}  // namespace sp
