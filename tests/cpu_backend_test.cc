// cpu_backend_test.cc — the cpu backend against the reference (sp::evaluate):
// what every op shares: the output pool, the whole-row reductions
// (row_reduce.cc, under scatter_reduce, index_add and scatter_add), every error
// category. The fixture and the differential check: cpu_backend_fixture.h.
#include <limits>

#include "tests/cpu_backend_fixture.h"

namespace sp {
namespace {

using namespace cpu_test;  // NOLINT: the fixture and its builders

// Large outputs come from the backend's output pool: a storage the caller
// still holds is never reused, a released one is (and is fully rewritten).
TEST_F(CpuBackendTest, OutputPoolReusesOnlyReleasedStorage) {
  Backend& cpu = backend(2);
  const OpCall call = gather_call(make(DType::Float32, {600, 700}, Layout::Contiguous),
                                  make_index(DType::Int64, {600, 700}, Layout::Contiguous, 0, 699), 1);
  const Expectation want = evaluate(call);
  const Outcome first = cpu.run(call);
  ASSERT_EQ(first.kind, Outcome::Kind::Outputs) << first.message;
  const std::vector<uint64_t> first_bits = first.outputs.front().to_bits();
  Outcome second = cpu.run(call);
  ASSERT_EQ(second.kind, Outcome::Kind::Outputs) << second.message;
  EXPECT_NE(first.outputs.front().storage(), second.outputs.front().storage());
  const std::byte* released = second.outputs.front().storage()->data();
  second = Outcome{};
  // The next output of the same byte size reuses the released storage.
  const Outcome third = cpu.run(call);
  ASSERT_EQ(third.kind, Outcome::Kind::Outputs) << third.message;
  EXPECT_EQ(third.outputs.front().storage()->data(), released);
  EXPECT_EQ(third.outputs.front().to_bits(), first_bits);
  EXPECT_EQ(first.outputs.front().to_bits(), first_bits) << "a held output was overwritten";
  agree(call, want, 2);
}

// The sorted whole-row reduction (backends/cpu/row_reduce.h) behind
// scatter_reduce with an index expanded along rows and index_add over
// contiguous slices: every reduce and include_self, float/16-bit/integer/
// bool, half of the rows aimed at row 0 (a row cut between threads and
// merged from partials), negative values counted from the end where the op
// takes them, two outer positions, alpha.
TEST_F(CpuBackendTest, WholeRowReductionsEveryReduceDtypeAndHotRow) {
  const int64_t targets = 97;
  const auto hot_rows = [&](int64_t sources, int64_t outer) {
    Tensor rows = make_index(DType::Int64, {outer * sources}, Layout::Contiguous, 0, targets - 1);
    for (int64_t i = 0; i < outer * sources; i += 2) rows.set_bits_at({i}, 0);
    return rows;
  };
  for (DType t : {DType::Float32, DType::BFloat16, DType::Int32, DType::Bool}) {
    for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
      if (t == DType::Bool && std::string(reduce) == "mean") continue;
      for (bool include_self : {true, false}) {
        for (int64_t width : {16, 40}) {
          const int64_t sources = 40000 / width + 3;
          const Tensor rows = hot_rows(sources, 2);
          // dim 0 of [targets, width]; dim 1 of [2, targets, width] (two outer positions).
          OpCall flat = scatter_call(include_self ? "torch.scatter_reduce_" : "torch.scatter_reduce",
                                     make(t, {targets, width}, Layout::Contiguous),
                                     Tensor::view(DType::Int64, {sources, width}, {1, 0}, 0, rows.storage()),
                                     make(t, {sources, width}, Layout::Contiguous), 0);
          OpCall outer =
              scatter_call("torch.scatter_reduce_", make(t, {2, targets, width}, Layout::Contiguous),
                           Tensor::view(DType::Int64, {2, sources, width}, {sources, 1, 0}, 0, rows.storage()),
                           make(t, {2, sources, width}, Layout::Contiguous), 1);
          for (OpCall* call : {&flat, &outer}) {
            call->set_arg("reduce", Arg::of_string(reduce));
            call->set_arg("include_self", Arg::of_bool(include_self));
            agree_all_threads(*call);
          }
        }
      }
    }
  }
  for (DType t : {DType::Float32, DType::BFloat16, DType::Float16, DType::Int64, DType::Bool}) {
    for (int64_t width : {16, 64}) {
      const int64_t sources = 40000 / width + 3;
      // alpha: true for bool, -2 for the narrow rows, 1 (terms taken as they are) for the wide ones.
      const Scalar alpha = t == DType::Bool ? Scalar::of_bool(true) : Scalar::of_int(width == 16 ? -2 : 1);
      agree_all_threads(index_add_call("torch.index_add_", make(t, {targets, width}, Layout::Contiguous),
                                       hot_rows(sources, 1), make(t, {sources, width}, Layout::Contiguous), 0, alpha));
      agree_all_threads(index_add_call("torch.index_add", make(t, {2, targets, width}, Layout::Contiguous),
                                       hot_rows(sources, 1), make(t, {2, sources, width}, Layout::Contiguous), 1,
                                       alpha));
    }
  }
  // scatter_add_ with negative values (counted from the end) and a bad one
  // after them: an error, self untouched.
  Tensor rows = hot_rows(3000, 1);
  for (int64_t i = 1; i < 3000; i += 3) rows.set_bits_at({i}, bits_from_value(DType::Int64, Value::of_int(-5)));
  agree_all_threads(scatter_call("torch.scatter_add_", make(DType::Float32, {targets, 32}, Layout::Contiguous),
                                 Tensor::view(DType::Int64, {3000, 32}, {1, 0}, 0, rows.storage()),
                                 make(DType::Float32, {3000, 32}, Layout::Contiguous), 0));
  rows.set_bits_at({2999}, bits_from_value(DType::Int64, Value::of_int(targets)));
  agree_all_threads(scatter_call("torch.scatter_add_", make(DType::Float32, {targets, 32}, Layout::Contiguous),
                                 Tensor::view(DType::Int64, {3000, 32}, {1, 0}, 0, rows.storage()),
                                 make(DType::Float32, {3000, 32}, Layout::Contiguous), 0));
}

// amax/amin on the sorted whole-row reduction, whose row loop takes the
// larger term by selects (so that it vectorises): a NaN in a source row or
// in self propagates whichever side it is on, at every thread count.
TEST_F(CpuBackendTest, WholeRowAmaxAminPropagateNaNFromEitherSide) {
  const int64_t targets = 61, width = 24, sources = 3000;
  const Tensor rows = make_index(DType::Int64, {sources}, Layout::Contiguous, 0, targets - 1);
  for (DType t : {DType::Float32, DType::BFloat16, DType::Float16}) {
    const uint64_t nan = bits_from_value(t, Value::of_float(std::numeric_limits<double>::quiet_NaN()));
    for (const char* reduce : {"amax", "amin"}) {
      for (bool include_self : {true, false}) {
        Tensor self = make(t, {targets, width}, Layout::Contiguous);
        Tensor src = make(t, {sources, width}, Layout::Contiguous);
        for (int64_t k = 0; k < sources; k += 37) src.set_bits_at({k, k % width}, nan);        // source side
        for (int64_t r = 0; r < targets; r += 5) self.set_bits_at({r, (r * 7) % width}, nan);  // self side
        OpCall call = scatter_call("torch.scatter_reduce_", self,
                                   Tensor::view(DType::Int64, {sources, width}, {1, 0}, 0, rows.storage()), src, 0);
        call.set_arg("reduce", Arg::of_string(reduce));
        call.set_arg("include_self", Arg::of_bool(include_self));
        agree_all_threads(call);
      }
    }
  }
}

TEST_F(CpuBackendTest, EveryErrorCategoryTheSemanticsProduce) {
  const Tensor f = make(DType::Float32, {4, 5}, Layout::Contiguous);
  const Tensor i64 = make_index(DType::Int64, {2, 3}, Layout::Contiguous, 0, 3);
  const Tensor i32 = make_index(DType::Int32, {2, 3}, Layout::Contiguous, 0, 3);
  std::vector<OpCall> calls;
  calls.push_back(gather_call(f, i64, 2));  // dim_out_of_range
  calls.push_back(gather_call(f, i32, 1));  // index_dtype
  calls.push_back(gather_call(f, make_index(DType::Int64, {2, 3, 1}, Layout::Contiguous, 0, 1), 1));  // rank
  calls.push_back(gather_call(f, make_index(DType::Int64, {5, 3}, Layout::Contiguous, 0, 1), 1));     // shape
  calls.push_back(gather_call(f, make_index(DType::Int64, {2, 3}, Layout::Contiguous, 5, 5), 1));     // bounds
  calls.push_back(scatter_call("torch.scatter_", f, i64, make(DType::Float64, {2, 3}, Layout::Contiguous), 0));
  calls.push_back(scatter_call("torch.scatter_", make(DType::Float32, {4, 5}, Layout::Expanded), i64, f, 0));
  calls.push_back(
      scatter_call("torch.scatter_add_", f, make_index(DType::Int64, {2, 3}, Layout::Contiguous, -1, -1), f, 0));
  calls.push_back(scatter_call("torch.scatter", f, make_index(DType::Int64, {2, 6}, Layout::Contiguous, 0, 1), f, 0));
  OpCall bad_reduce = scatter_call("torch.scatter_", f, i64, f, 0);
  bad_reduce.set_arg("reduce", Arg::of_string("max"));
  calls.push_back(bad_reduce);
  OpCall bad_value =
      scatter_call("torch.scatter_", make(DType::Int8, {4, 5}, Layout::Contiguous), i64, std::nullopt, 0);
  bad_value.set_arg("value", Arg::of_scalar(Scalar::of_int(300)));
  calls.push_back(bad_value);
  calls.push_back(
      scatter_call("mindspore.scatter_", make(DType::Float32, {1, 1, 1, 1, 1, 1, 1, 1, 2}, Layout::Contiguous),
                   make_index(DType::Int64, {1, 1, 1, 1, 1, 1, 1, 1, 1}, Layout::Contiguous, 0, 0),
                   make(DType::Float32, {1, 1, 1, 1, 1, 1, 1, 1, 1}, Layout::Contiguous), 0));  // rank_limit
  calls.push_back(
      scatter_call("mindspore.scatter_", f, make_index(DType::Int16, {2, 3}, Layout::Contiguous, 0, 1), f, 0));
  calls.push_back(scatter_call("mindspore.scatter_", f, make_index(DType::Int64, {5, 3}, Layout::Contiguous, 0, 1),
                               make(DType::Float32, {5, 5}, Layout::Contiguous), 0));  // letter of MS-S3
  calls.push_back(scatter_call("mindspore.scatter_", f, make_index(DType::Int64, {2, 3}, Layout::Contiguous, 4, 9), f,
                               0));  // undefined on Ascend: the reference allows anything
  OpCall ms_removed = scatter_call("mindspore.scatter_", f, i64, std::nullopt, 0);
  ms_removed.set_arg("value", Arg::of_scalar(Scalar::of_float(1.5)));
  ms_removed.framework_version = "r2.10";
  calls.push_back(ms_removed);
  OpCall pd;
  pd.op = "paddle.scatter";
  pd.tensors = {{"x", f}, {"index", i64}, {"updates", make(DType::Float32, {2, 5}, Layout::Contiguous)}};
  calls.push_back(pd);  // invalid_argument: index not 1-D
  pd.tensors["index"] = make_index(DType::Int64, {2}, Layout::Contiguous, 4, 4);
  calls.push_back(pd);  // index_out_of_bounds
  pd.tensors["index"] = make_index(DType::Int64, {3}, Layout::Contiguous, 0, 3);
  calls.push_back(pd);  // shape_mismatch
  std::set<ErrorCategory> seen;
  for (const OpCall& call : calls) {
    const Expectation e = evaluate(call);
    if (e.expects_error()) seen.insert(e.errors.front());
    agree_all_threads(call);
  }
  for (ErrorCategory c : {ErrorCategory::IndexOutOfBounds, ErrorCategory::DimOutOfRange, ErrorCategory::RankMismatch,
                          ErrorCategory::ShapeMismatch, ErrorCategory::DtypeMismatch, ErrorCategory::IndexDtype,
                          ErrorCategory::InvalidReduce, ErrorCategory::RankLimit, ErrorCategory::OverlappingOutput,
                          ErrorCategory::ValueOutOfRange, ErrorCategory::InvalidArgument})
    EXPECT_TRUE(seen.count(c)) << "no case exercised " << error_name(c);
}

}  // namespace
}  // namespace sp
