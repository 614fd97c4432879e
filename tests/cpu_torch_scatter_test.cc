// cpu_torch_scatter_test.cc — the cpu backend against the reference
// (sp::evaluate): torch.scatter_ / scatter / scatter_add_ / scatter_add
// (backends/cpu/ops/torch_scatter.cc, scatter_kernel.cc). The fixture and the
// differential check: cpu_backend_fixture.h.
#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

TEST_F(CpuBackendTest, TorchScatterEveryDtypeReduceAndValue) {
  const std::optional<std::string> reduces[] = {std::nullopt, "add", "multiply"};
  for (const char* op : {"torch.scatter_", "torch.scatter"}) {
    for (DType t : kAllDTypes) {
      for (const auto& reduce : reduces) {
        for (int64_t n : {0, 1, 9, 17, 33}) {
          const int64_t dim = uniform(0, 1);
          const Shape self_shape{6, std::max<int64_t>(n, 1) + 1};
          const Shape index_shape{dim == 0 ? 9 : 5, n};  // duplicates along dim 0
          const Layout self_layout = kLayouts[static_cast<size_t>(uniform(0, 2))];
          Tensor index = make_index(DType::Int64, index_shape, kLayouts[static_cast<size_t>(uniform(0, 3))], 0,
                                    self_shape[static_cast<size_t>(dim)] - 1);
          const bool use_value = uniform(0, 2) == 0;
          std::optional<Tensor> src;
          if (!use_value) src = make(t, {index_shape[0] + 1, n + 2}, kLayouts[static_cast<size_t>(uniform(0, 3))]);
          OpCall call = scatter_call(op, make(t, self_shape, self_layout), index, src, dim);
          if (reduce) call.set_arg("reduce", Arg::of_string(*reduce));
          if (use_value)
            call.set_arg("value", Arg::of_scalar(is_floating(t)     ? Scalar::of_float(1.25)
                                                 : t == DType::Bool ? Scalar::of_bool(true)
                                                                    : Scalar::of_int(3)));
          agree_all_threads(call);
        }
      }
    }
  }
}

TEST_F(CpuBackendTest, ScatterAddParallelPaths) {
  for (DType t : {DType::Float32, DType::BFloat16, DType::Float16, DType::Int32, DType::Float64, DType::Bool}) {
    for (const char* op : {"torch.scatter_add_", "torch.scatter_add"}) {
      // Wide rows (sorted path): dim 0, index expanded along rows of width >= 16.
      for (int64_t width : {16, 17, 33, 128}) {
        const int64_t sources = 70000 / width + 3, targets = 97;
        Tensor rows = make_index(DType::Int64, {sources, 1}, Layout::Contiguous, 0, targets - 1);
        for (int64_t i = 0; i < sources; i += 2) rows.set_bits_at({i, 0}, 0);  // half aimed at row 0: contention
        Tensor index = Tensor::view(DType::Int64, {sources, width}, {1, 0}, 0, rows.storage());
        agree_all_threads(scatter_call(op, make(t, {targets, width}, Layout::Contiguous), index,
                                       make(t, {sources, width}, Layout::Contiguous), 0));
      }
      // Narrow rows: 1-D into few slots (private accumulators) and into many (target ranges).
      for (int64_t slots : {5, 1000, 60000}) {
        const int64_t n = 70001;
        agree_all_threads(scatter_call(op, make(t, {slots}, Layout::Gapped),
                                       make_index(DType::Int64, {n}, Layout::Contiguous, 0, slots - 1),
                                       make(t, {n + 3}, Layout::Contiguous), 0));
      }
      // 1-D into targets spread past the cache (accumulators prefetched ahead),
      // contiguous, with negative values counted from the end.
      {
        const int64_t slots = 100000, n = 70001;
        Tensor index = make_index(DType::Int64, {n}, Layout::Contiguous, -slots, slots - 1);
        agree_all_threads(
            scatter_call(op, make(t, {slots}, Layout::Contiguous), index, make(t, {n}, Layout::Contiguous), 0));
      }
      // Narrow expanded rows of width 3, and a full (non-expanded) index along dim 0.
      Tensor rows = make_index(DType::Int64, {30000, 1}, Layout::Contiguous, 0, 40);
      agree_all_threads(scatter_call(op, make(t, {41, 3}, Layout::Transposed),
                                     Tensor::view(DType::Int64, {30000, 3}, {1, 0}, 0, rows.storage()),
                                     make(t, {30000, 3}, Layout::Contiguous), 0));
      agree_all_threads(scatter_call(op, make(t, {50, 700}, Layout::Contiguous),
                                     make_index(DType::Int64, {80, 700}, Layout::Contiguous, 0, 49),
                                     make(t, {80, 700}, Layout::Gapped), 0));
    }
  }
}

// The narrow-row reduce path checks its index while it accumulates (no
// separate pass): a bad value at the first or last position must still be
// an IndexOutOfBounds error with self untouched, also when the path merges
// one outer position before reading the next (there it checks first).
TEST_F(CpuBackendTest, ScatterAddFusedBoundsCheckLeavesSelfUntouched) {
  const int64_t slots = 1000, n = 70001;
  for (int64_t bad : {int64_t{-1}, slots, int64_t{1} << 40}) {
    for (bool at_end : {false, true}) {
      Tensor flat = make_index(DType::Int64, {n}, Layout::Contiguous, 0, slots - 1);
      flat.set_bits_at({at_end ? n - 1 : 0}, static_cast<uint64_t>(bad));
      Tensor two_outer = make_index(DType::Int64, {2, n / 2}, Layout::Contiguous, 0, slots - 1);
      two_outer.set_bits_at({at_end ? 1 : 0, at_end ? n / 2 - 1 : 0}, static_cast<uint64_t>(bad));
      const OpCall calls[] = {scatter_call("torch.scatter_add_", make(DType::Float32, {slots}, Layout::Contiguous),
                                           flat, make(DType::Float32, {n}, Layout::Contiguous), 0),
                              scatter_call("torch.scatter_add_", make(DType::Int32, {2, slots}, Layout::Contiguous),
                                           two_outer, make(DType::Int32, {2, n / 2}, Layout::Contiguous), 1)};
      for (const OpCall& call : calls) {
        for (int threads : {1, 2, 3}) {
          SCOPED_TRACE("threads=" + std::to_string(threads) + " bad=" + std::to_string(bad) +
                       " at_end=" + std::to_string(at_end) + " " + call.describe());
          OpCall copy = call.deep_copy();
          const Outcome got = backend(threads).run(copy);
          ASSERT_EQ(got.kind, Outcome::Kind::Error) << got.message;
          EXPECT_EQ(got.error, ErrorCategory::IndexOutOfBounds) << got.message;
          EXPECT_EQ(*copy.tensor("self")->storage(), *call.tensor("self")->storage()) << "self changed on error";
        }
      }
    }
  }
}

TEST_F(CpuBackendTest, ScatterOverwriteKeepsIndexOrderAcrossThreads) {
  for (DType t : {DType::Float32, DType::Int64, DType::UInt8}) {
    // Last-dim permutation per row, and dim-0 rows with duplicates (wide and narrow).
    agree_all_threads(scatter_call("torch.scatter_", make(t, {70, 513}, Layout::Contiguous),
                                   make_index(DType::Int64, {70, 513}, Layout::Contiguous, 0, 512),
                                   make(t, {70, 513}, Layout::Contiguous), 1));
    Tensor rows = make_index(DType::Int64, {4000, 1}, Layout::Contiguous, 0, 20);
    agree_all_threads(scatter_call("torch.scatter_", make(t, {21, 40}, Layout::Gapped),
                                   Tensor::view(DType::Int64, {4000, 40}, {1, 0}, 0, rows.storage()),
                                   make(t, {4000, 40}, Layout::Contiguous), 0));
    agree_all_threads(scatter_call("torch.scatter_", make(t, {3000}, Layout::Contiguous),
                                   make_index(DType::Int64, {90000}, Layout::Gapped, 0, 2999),
                                   make(t, {90000}, Layout::Contiguous), 0));
    // Along the last dim each value is checked as it is written: a bad one
    // in the last row, or a negative one too far down in the first, is
    // index_out_of_bounds however many rows were written before it (SE-2).
    for (const int64_t bad : {int64_t{513}, int64_t{-514}}) {
      Tensor index = make_index(DType::Int64, {300, 513}, Layout::Contiguous, -513, 512);
      index.set_bits_at({bad > 0 ? 299 : 0, bad > 0 ? 512 : 3}, bits_from_value(DType::Int64, Value::of_int(bad)));
      agree_all_threads(scatter_call("torch.scatter_", make(t, {300, 513}, Layout::Contiguous), index,
                                     make(t, {300, 513}, Layout::Contiguous), 1));
    }
  }
}

TEST_F(CpuBackendTest, SrcSharingSelfStorageReadsOldValues) {
  Tensor self = make(DType::Float32, {8, 8}, Layout::Contiguous);
  Tensor src = Tensor::view(DType::Float32, {8, 8}, {1, 8}, 0, self.storage());  // self transposed
  agree_all_threads(
      scatter_call("torch.scatter_", self, make_index(DType::Int64, {8, 8}, Layout::Contiguous, 0, 7), src, 1));
}

}  // namespace
}  // namespace sp
