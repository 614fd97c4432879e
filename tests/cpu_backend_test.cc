// cpu_backend_test.cc — the cpu backend, differentially against the
// reference (sp::evaluate) on generated cases.
//
// Each case is evaluated by the reference on the original call and run by
// the cpu backend on a deep copy; every output element must be one the
// reference allows, an error must be one it lists, an in-place op must
// leave the storage outside self's view untouched and return self's own
// view, and an out-of-place op must leave all inputs untouched. Sizes sit
// on the kernels' edges: vector widths (7..33), the 16-element wide-row
// threshold, the parallel-work threshold, 0- and 1-sized dims; operands are
// contiguous, transposed, sliced with gaps and an offset, or expanded.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>

#include "backends/backend.h"
#include "backends/cpu/kernels.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::kLayouts;
using test::Layout;

class CpuBackendTest : public ::testing::Test {
 protected:
  std::mt19937 gen{20240611};

  Backend& backend(int threads) {
    auto& slot = backends_[threads];
    if (!slot) {
      std::string why;
      slot = make_backend("cpu", BackendOptions{threads, false}, &why);
      if (!slot) ADD_FAILURE() << why;
    }
    return *slot;
  }

  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); }

  // A random element of dtype t: small values whose sums and products stay
  // exact-ish, with an occasional -0.0.
  uint64_t random_bits(DType t) {
    if (t == DType::Bool) return static_cast<uint64_t>(uniform(0, 1));
    if (is_floating(t)) {
      if (uniform(0, 30) == 0) return bits_from_value(t, Value::of_float(-0.0));
      return bits_from_value(t, Value::of_float(static_cast<double>(uniform(-16, 16)) / 4.0));
    }
    return bits_from_value(t, Value::of_int(uniform(-100, 100)));
  }

  // A tensor of `shape` with random values, in `layout` (test_support.h;
  // the gaps of a gapped layout hold a sentinel, so a stray write shows).
  // Expanded: the first dim of size > 1 gets stride 0.
  Tensor make(DType t, const Shape& shape, Layout layout) {
    Shape drawn = shape;
    size_t expanded_dim = shape.size();
    if (layout == Layout::Expanded)
      for (size_t d = 0; d < shape.size() && expanded_dim == shape.size(); ++d)
        if (shape[d] > 1) expanded_dim = d, drawn[d] = 1;
    Tensor values = Tensor::zeros(t, drawn);
    if (values.numel() > 0) {
      Shape idx(drawn.size(), 0);
      do values.set_bits_at(idx, random_bits(t));
      while (next_index(idx, drawn));
    }
    if (expanded_dim == shape.size()) return test::relaid(values, layout);
    Shape strides = contiguous_strides(drawn);
    strides[expanded_dim] = 0;
    return Tensor::view(t, shape, strides, 0, values.storage());
  }

  // An index tensor with values drawn from [lo, hi].
  Tensor make_index(DType t, const Shape& shape, Layout layout, int64_t lo, int64_t hi) {
    Tensor x = make(t, shape, layout);
    if (x.numel() == 0) return x;
    Shape pos(shape.size(), 0);
    do {
      x.set_bits_at(pos, bits_from_value(t, Value::of_int(uniform(lo, hi))));
    } while (next_index(pos, shape));
    return x;
  }

  // Runs the call on the reference and on the cpu backend with `threads`.
  void agree(const OpCall& call, const Expectation& want, int threads) {
    SCOPED_TRACE("threads=" + std::to_string(threads) + " " + call.describe());
    OpCall copy = call.deep_copy();
    const Outcome got = backend(threads).run(copy);
    ++checked_;
    if (want.unspecified) {
      EXPECT_TRUE(got.kind == Outcome::Kind::Outputs || got.kind == Outcome::Kind::Error) << got.message;
      return;
    }
    if (want.expects_error()) {
      ASSERT_EQ(got.kind, Outcome::Kind::Error) << "reference: " << want.summary();
      EXPECT_TRUE(want.allows_error(*got.error))
          << "cpu said " << error_name(*got.error) << " (" << got.message << "), reference " << want.summary();
      return;
    }
    ASSERT_EQ(got.kind, Outcome::Kind::Outputs) << got.message << " | reference: " << want.summary();
    ASSERT_EQ(got.outputs.size(), 1u);
    const ExpectedTensor& expected = want.outputs->front();
    const Tensor& out = got.outputs.front();
    ASSERT_EQ(out.dtype(), expected.exact.dtype());
    ASSERT_EQ(out.shape(), expected.exact.shape());
    const std::vector<uint64_t> bits = out.to_bits();
    for (size_t i = 0; i < bits.size(); ++i) {
      if (!expected.allows(static_cast<int64_t>(i), bits[i])) {
        ADD_FAILURE() << "element " << i << " is " << format_value(out.dtype(), bits[i]) << " ("
                      << format_bits(out.dtype(), bits[i]) << "), allowed "
                      << expected.describe_allowed(static_cast<int64_t>(i));
        return;
      }
    }
    if (is_inplace_op(call.op)) {
      const Tensor& self = *copy.tensor("self");
      EXPECT_EQ(out.storage(), self.storage()) << "in-place op must return self's own view";
      EXPECT_EQ(out.strides(), self.strides());
      EXPECT_EQ(out.offset(), self.offset());
      expect_outside_view_untouched(*call.tensor("self"), self);
    } else {
      EXPECT_TRUE(out.numel() == 0 || out.is_contiguous());
      for (const auto& [name, t] : call.tensors)
        EXPECT_EQ(*t.storage(), *copy.tensor(name)->storage()) << name << " of an out-of-place op changed";
    }
  }

  void expect_outside_view_untouched(const Tensor& before, const Tensor& after) {
    std::set<int64_t> inside;
    if (before.numel() > 0) {
      Shape pos(static_cast<size_t>(before.rank()), 0);
      do {
        inside.insert(before.element_offset(pos));
      } while (next_index(pos, before.shape()));
    }
    const int64_t n = static_cast<int64_t>(before.storage_elements());
    for (int64_t e = 0; e < n; ++e) {
      if (inside.count(e)) continue;
      ASSERT_EQ(load_bits(before.dtype(), before.element_ptr(e)), load_bits(after.dtype(), after.element_ptr(e)))
          << "storage element " << e << " outside self's view was written";
    }
  }

  void agree_all_threads(const OpCall& call) {
    const Expectation want = evaluate(call);
    for (int threads : {1, 2, 3}) agree(call, want, threads);
  }

  int checked_ = 0;
  std::map<int, std::unique_ptr<Backend>> backends_;
};

OpCall gather_call(Tensor input, Tensor index, int64_t dim) {
  OpCall c;
  c.op = "torch.gather";
  c.tensors = {{"input", std::move(input)}, {"index", std::move(index)}};
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

OpCall scatter_call(std::string op, Tensor self, Tensor index, std::optional<Tensor> src, int64_t dim) {
  OpCall c;
  c.op = std::move(op);
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}};
  if (src) c.tensors["src"] = std::move(*src);
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

constexpr int64_t kEdgeSizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33};

TEST_F(CpuBackendTest, GatherEveryDtypeLayoutAndEdgeSize) {
  for (DType t : kAllDTypes) {
    for (int64_t n : kEdgeSizes) {
      const Layout layout = kLayouts[static_cast<size_t>(uniform(0, 3))];
      const Layout index_layout = kLayouts[static_cast<size_t>(uniform(0, 3))];
      const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
      const int64_t dim = uniform(0, 1);
      const Shape input_shape{rows + 1, width};
      Shape index_shape{rows, n};
      index_shape[static_cast<size_t>(dim)] = dim == 0 ? rows + 2 : n;  // along dim the index may be longer
      const int64_t size = input_shape[static_cast<size_t>(dim)];
      agree_all_threads(gather_call(make(t, input_shape, layout),
                                    make_index(DType::Int64, index_shape, index_layout, 0, size - 1), dim));
    }
  }
}

TEST_F(CpuBackendTest, GatherLargeLastDimAndExpandedRows) {
  for (DType t : {DType::Float32, DType::BFloat16, DType::Int8, DType::Float64}) {
    // Last-dim gather past the parallel threshold; rows split across threads.
    agree_all_threads(gather_call(make(t, {67, 601}, Layout::Contiguous),
                                  make_index(DType::Int64, {67, 599}, Layout::Contiguous, 0, 600), 1));
    // Row gather along dim 0 with an index expanded along the last dim (memcpy rows).
    Tensor rows = make_index(DType::Int64, {3001, 1}, Layout::Contiguous, 0, 499);
    Tensor expanded = Tensor::view(DType::Int64, {3001, 33}, {1, 0}, rows.offset(), rows.storage());
    agree_all_threads(gather_call(make(t, {500, 33}, Layout::Contiguous), expanded, 0));
    agree_all_threads(gather_call(make(t, {500, 33}, Layout::Gapped), expanded, 0));
    // Rank 3, middle dim, transposed input.
    agree_all_threads(gather_call(make(t, {9, 40, 130}, Layout::Transposed),
                                  make_index(DType::Int64, {9, 41, 129}, Layout::Gapped, 0, 39), 1));
  }
  // Rank-0 input and index.
  agree_all_threads(gather_call(make(DType::Float32, {}, Layout::Contiguous),
                                make_index(DType::Int64, {}, Layout::Contiguous, 0, 0), -1));
}

// Gather checks its index inside the kernel (no separate pass): a bad value
// at the first or last position of each kernel path, on both sides of the
// range, must still be an IndexOutOfBounds error (and a 1-thread fallback
// part must not miss it).
TEST_F(CpuBackendTest, GatherFusedBoundsCheckCatchesEveryPath) {
  const int64_t rows = 67, cols = 601;
  for (int64_t bad : {int64_t{-1}, cols, int64_t{1} << 40}) {
    for (bool at_end : {false, true}) {
      // Last-dim path, past the parallel threshold.
      Tensor index = make_index(DType::Int64, {rows, cols - 2}, Layout::Contiguous, 0, cols - 1);
      index.set_bits_at({at_end ? rows - 1 : 0, at_end ? cols - 3 : 0}, static_cast<uint64_t>(bad));
      agree_all_threads(gather_call(make(DType::Float32, {rows, cols}, Layout::Contiguous), index, 1));
      // Row path: an index expanded along the last dim.
      Tensor per_row = make_index(DType::Int64, {3001, 1}, Layout::Contiguous, 0, 499);
      per_row.set_bits_at({at_end ? 3000 : 0, 0}, static_cast<uint64_t>(bad < 0 ? bad : 500 + (bad - cols)));
      agree_all_threads(gather_call(make(DType::Float32, {500, 33}, Layout::Contiguous),
                                    Tensor::view(DType::Int64, {3001, 33}, {1, 0}, 0, per_row.storage()), 0));
      // Element path: a strided index along a middle dim.
      Tensor mid = make_index(DType::Int64, {9, 41, 129}, Layout::Gapped, 0, 39);
      mid.set_bits_at({at_end ? 8 : 0, at_end ? 40 : 0, at_end ? 128 : 0}, static_cast<uint64_t>(bad < 0 ? bad : 40));
      agree_all_threads(gather_call(make(DType::Float32, {9, 40, 130}, Layout::Transposed), mid, 1));
    }
  }
}

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

// scatter_reduce splits its work by outer position or by inner ranges
// (never by k, so no two threads meet on a target): small cases at the
// vector-width edges, and large ones past the parallel threshold in both
// split modes, every reduce, include_self both ways, heavy duplicates.
TEST_F(CpuBackendTest, TorchScatterReduceEveryDtypeReduceAndSplit) {
  const char* reduces[] = {"sum", "prod", "mean", "amax", "amin"};
  const auto call_of = [&](const char* op, DType t, const char* reduce, bool include_self, const Shape& self_shape,
                           const Shape& index_shape, int64_t dim, Layout layout) {
    Tensor index = make_index(DType::Int64, index_shape, kLayouts[static_cast<size_t>(uniform(0, 3))], 0,
                              self_shape[static_cast<size_t>(dim)] - 1);
    Shape src_shape = index_shape;
    for (auto& d : src_shape) d += uniform(0, 1);
    OpCall call = scatter_call(op, make(t, self_shape, layout), index, make(t, src_shape, Layout::Contiguous), dim);
    call.set_arg("reduce", Arg::of_string(reduce));
    if (!include_self || uniform(0, 1)) call.set_arg("include_self", Arg::of_bool(include_self));
    return call;
  };
  for (const char* op : {"torch.scatter_reduce_", "torch.scatter_reduce"}) {
    for (DType t : kAllDTypes) {
      for (const char* reduce : reduces) {
        for (bool include_self : {true, false}) {
          for (int64_t n : {0, 1, 9, 17}) {
            const int64_t dim = uniform(0, 1);
            const Shape self_shape{5, std::max<int64_t>(n, 1) + 1};
            agree_all_threads(call_of(op, t, reduce, include_self, self_shape, {dim == 0 ? 8 : 5, n}, dim,
                                      kLayouts[static_cast<size_t>(uniform(0, 2))]));
          }
        }
      }
    }
  }
  for (DType t : {DType::Float32, DType::Int32, DType::BFloat16}) {
    for (const char* reduce : reduces) {
      for (bool include_self : {true, false}) {
        // Many outer positions: split by outer (dim 1 of a tall tensor).
        agree_all_threads(
            call_of("torch.scatter_reduce_", t, reduce, include_self, {700, 60}, {700, 90}, 1, Layout::Contiguous));
        // Few outer positions, long rows: split by inner ranges (dim 0).
        agree_all_threads(
            call_of("torch.scatter_reduce", t, reduce, include_self, {40, 900}, {60, 900}, 0, Layout::Gapped));
      }
    }
  }
}

OpCall index_add_call(const char* op, Tensor self, Tensor index, Tensor source, int64_t dim,
                      std::optional<Scalar> alpha = std::nullopt) {
  OpCall c;
  c.op = op;
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}, {"source", std::move(source)}};
  c.set_arg("dim", Arg::of_int(dim));
  if (alpha) c.set_arg("alpha", Arg::of_scalar(*alpha));
  return c;
}

// index_add splits its work by outer position or by inner ranges (never by
// index position, so no two threads meet on a target): every dtype at the
// edge sizes (duplicates, int32/int64 and 0-d indices, alpha int / float /
// bool, a bad value, a mis-shaped source), and large cases past the parallel
// threshold in both split modes with heavy duplicates.
TEST_F(CpuBackendTest, TorchIndexAddEveryDtypeAlphaAndSplit) {
  const auto alpha_of = [&](DType t) -> std::optional<Scalar> {
    switch (uniform(0, 3)) {
      case 0:
        return std::nullopt;
      case 1:
        return Scalar::of_int(uniform(-2, 3));
      case 2:
        return Scalar::of_bool(uniform(0, 1) != 0);
      default:
        return t == DType::UInt8 ? Scalar::of_float(1.5) : Scalar::of_float(-0.75);
    }
  };
  for (const char* op : {"torch.index_add_", "torch.index_add"}) {
    for (DType t : kAllDTypes) {
      for (int64_t n : kEdgeSizes) {
        const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
        for (int64_t dim : {0, 1, -1}) {
          const Shape self_shape{rows + 1, width};
          const int64_t d = dim < 0 ? dim + 2 : dim;
          const int64_t size = self_shape[static_cast<size_t>(d)];
          const int64_t m = uniform(0, 6);
          Shape source_shape = self_shape;
          source_shape[static_cast<size_t>(d)] = m;
          const DType index_t = uniform(0, 1) ? DType::Int64 : DType::Int32;
          Tensor index = make_index(index_t, {m}, kLayouts[static_cast<size_t>(uniform(0, 2))], 0, size - 1);
          agree_all_threads(index_add_call(op, make(t, self_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]), index,
                                           make(t, source_shape, kLayouts[static_cast<size_t>(uniform(0, 2))]), dim,
                                           alpha_of(t)));
        }
      }
      // A bad value (self untouched), a mis-shaped source, a 0-d index and self.
      agree_all_threads(index_add_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 3}),
                                       make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_add_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, -1}),
                                       make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_add_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 1}),
                                       make(t, {2, 1}, Layout::Contiguous), 0));
      agree_all_threads(index_add_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({}, {2}),
                                       make(t, {3, 1}, Layout::Contiguous), 1, Scalar::of_int(2)));
      agree_all_threads(index_add_call(op, make(t, {}, Layout::Contiguous), test::i64({3}, {0, 0, 0}),
                                       make(t, {3}, Layout::Contiguous), 0));
    }
  }
  for (DType t : {DType::Float32, DType::Int32, DType::BFloat16, DType::Bool}) {
    // Many outer positions: split by outer (dim 1 of a tall tensor).
    agree_all_threads(index_add_call("torch.index_add_", make(t, {700, 60}, Layout::Contiguous),
                                     make_index(DType::Int64, {90}, Layout::Contiguous, 0, 59),
                                     make(t, {700, 90}, Layout::Contiguous), 1, Scalar::of_int(3)));
    // Few outer positions, long rows: split by inner ranges (dim 0).
    agree_all_threads(index_add_call("torch.index_add", make(t, {40, 900}, Layout::Gapped),
                                     make_index(DType::Int32, {60}, Layout::Contiguous, 0, 39),
                                     make(t, {60, 900}, Layout::Transposed), 0));
  }
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

OpCall index_reduce_call(const char* op, Tensor self, Tensor index, Tensor source, int64_t dim,
                         const std::string& reduce, std::optional<bool> include_self) {
  OpCall c;
  c.op = op;
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}, {"source", std::move(source)}};
  c.set_arg("dim", Arg::of_int(dim));
  c.set_arg("reduce", Arg::of_string(reduce));
  if (include_self) c.set_arg("include_self", Arg::of_bool(*include_self));
  return c;
}

// index_reduce splits like index_add (outer positions or inner ranges):
// every floating dtype x reduce x include_self at the edge sizes (duplicates,
// int32/int64 indices, rows never named), a bad value, a mis-shaped source,
// a 0-d self, and large cases past the parallel threshold in both split
// modes with heavy duplicates (mean's per-row count included).
TEST_F(CpuBackendTest, TorchIndexReduceEveryFloatDtypeReduceAndSplit) {
  for (const char* op : {"torch.index_reduce_", "torch.index_reduce"}) {
    for (DType t : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
      for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
        for (std::optional<bool> include_self : {std::optional<bool>{}, std::optional<bool>{false}}) {
          for (int64_t n : {0, 1, 7, 16, 33}) {
            const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
            for (int64_t dim : {0, 1, -1}) {
              const Shape self_shape{rows + 1, width};
              const int64_t d = dim < 0 ? dim + 2 : dim;
              const int64_t size = self_shape[static_cast<size_t>(d)];
              const int64_t m = uniform(0, 6);
              Shape source_shape = self_shape;
              source_shape[static_cast<size_t>(d)] = m;
              const DType index_t = uniform(0, 1) ? DType::Int64 : DType::Int32;
              agree_all_threads(index_reduce_call(
                  op, make(t, self_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]),
                  make_index(index_t, {m}, kLayouts[static_cast<size_t>(uniform(0, 2))], 0, size - 1),
                  make(t, source_shape, kLayouts[static_cast<size_t>(uniform(0, 2))]), dim, reduce, include_self));
            }
          }
          agree_all_threads(index_reduce_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, -1}),
                                              make(t, {2, 4}, Layout::Contiguous), 0, reduce, include_self));
          agree_all_threads(index_reduce_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 1}),
                                              make(t, {2, 1}, Layout::Contiguous), 0, reduce, include_self));
          agree_all_threads(index_reduce_call(op, make(t, {}, Layout::Contiguous), test::i64({3}, {0, 0, 0}),
                                              make(t, {3}, Layout::Contiguous), 0, reduce, include_self));
        }
      }
    }
  }
  for (DType t : {DType::Float32, DType::BFloat16}) {
    for (const char* reduce : {"mean", "amax"}) {
      agree_all_threads(index_reduce_call("torch.index_reduce_", make(t, {700, 60}, Layout::Contiguous),
                                          make_index(DType::Int64, {90}, Layout::Contiguous, 0, 59),
                                          make(t, {700, 90}, Layout::Contiguous), 1, reduce, false));
      agree_all_threads(index_reduce_call("torch.index_reduce", make(t, {40, 900}, Layout::Gapped),
                                          make_index(DType::Int32, {60}, Layout::Contiguous, 0, 39),
                                          make(t, {60, 900}, Layout::Transposed), 0, reduce, std::nullopt));
    }
  }
}

OpCall index_copy_call(const char* op, Tensor self, Tensor index, Tensor source, int64_t dim) {
  OpCall c;
  c.op = op;
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}, {"source", std::move(source)}};
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

OpCall index_fill_call(const char* op, Tensor self, Tensor index, int64_t dim, Scalar value) {
  OpCall c;
  c.op = op;
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}};
  c.set_arg("dim", Arg::of_int(dim));
  c.set_arg("value", Arg::of_scalar(value));
  return c;
}

// index_copy / index_fill split their work like index_add (outer positions
// or inner ranges, never index positions): every dtype at the edge sizes,
// duplicates (index_copy: the set of writers), a bad or negative value,
// argument errors, 0-d tensors, and large cases past the parallel threshold
// in both split modes.
TEST_F(CpuBackendTest, TorchIndexCopyAndFillEveryDtypeAndSplit) {
  for (DType t : kAllDTypes) {
    for (int64_t n : kEdgeSizes) {
      const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
      for (int64_t dim : {0, 1, -1}) {
        const Shape self_shape{rows + 1, width};
        const int64_t d = dim < 0 ? dim + 2 : dim;
        const int64_t size = self_shape[static_cast<size_t>(d)];
        const int64_t m = uniform(0, 6);
        Shape source_shape = self_shape;
        source_shape[static_cast<size_t>(d)] = m;
        for (const char* op : {"torch.index_copy_", "torch.index_copy"})
          agree_all_threads(
              index_copy_call(op, make(t, self_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]),
                              make_index(DType::Int64, {m}, kLayouts[static_cast<size_t>(uniform(0, 2))], 0, size - 1),
                              make(t, source_shape, kLayouts[static_cast<size_t>(uniform(0, 2))]), dim));
        for (const char* op : {"torch.index_fill_", "torch.index_fill"})
          agree_all_threads(
              index_fill_call(op, make(t, self_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]),
                              make_index(DType::Int64, {m}, kLayouts[static_cast<size_t>(uniform(0, 2))], 0, size - 1),
                              dim, uniform(0, 1) ? Scalar::of_int(uniform(0, 1)) : Scalar::of_float(0.75)));
      }
    }
    // Bad values (self untouched), an int32 index, a mis-shaped source, 0-d tensors.
    for (const char* op : {"torch.index_copy_", "torch.index_copy"}) {
      agree_all_threads(index_copy_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 3}),
                                        make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_copy_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, -1}),
                                        make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_copy_call(op, make(t, {3, 4}, Layout::Contiguous), test::i32({2}, {0, 1}),
                                        make(t, {2, 4}, Layout::Contiguous), 0));
      agree_all_threads(index_copy_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 1}),
                                        make(t, {2, 1}, Layout::Contiguous), 0));
      agree_all_threads(index_copy_call(op, make(t, {}, Layout::Contiguous), test::i64({3}, {0, 0, 0}),
                                        make(t, {3}, Layout::Contiguous), 0));
    }
    for (const char* op : {"torch.index_fill_", "torch.index_fill"}) {
      agree_all_threads(
          index_fill_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, 4}), 1, Scalar::of_int(1)));
      agree_all_threads(
          index_fill_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({2}, {0, -5}), 1, Scalar::of_int(1)));
      agree_all_threads(
          index_fill_call(op, make(t, {3, 4}, Layout::Contiguous), test::i32({1}, {0}), 1, Scalar::of_int(1)));
      agree_all_threads(
          index_fill_call(op, make(t, {3, 4}, Layout::Contiguous), test::i64({1}, {0}), 0, Scalar::of_int(300)));
      agree_all_threads(
          index_fill_call(op, make(t, {}, Layout::Contiguous), test::i64({}, {0}), -1, Scalar::of_float(-2.5)));
    }
  }
  for (DType t : {DType::Float32, DType::Int32, DType::BFloat16, DType::Bool}) {
    // Many outer positions: split by outer (dim 1 of a tall tensor), heavy duplicates.
    agree_all_threads(index_copy_call("torch.index_copy_", make(t, {700, 60}, Layout::Contiguous),
                                      make_index(DType::Int64, {90}, Layout::Contiguous, 0, 59),
                                      make(t, {700, 90}, Layout::Contiguous), 1));
    agree_all_threads(index_fill_call("torch.index_fill_", make(t, {700, 60}, Layout::Contiguous),
                                      make_index(DType::Int64, {90}, Layout::Contiguous, 0, 59), 1, Scalar::of_int(1)));
    // Few outer positions, long rows: split by inner ranges (dim 0).
    agree_all_threads(index_copy_call("torch.index_copy", make(t, {40, 900}, Layout::Gapped),
                                      make_index(DType::Int64, {60}, Layout::Contiguous, 0, 39),
                                      make(t, {60, 900}, Layout::Transposed), 0));
    agree_all_threads(index_fill_call("torch.index_fill", make(t, {40, 900}, Layout::Gapped),
                                      make_index(DType::Int64, {60}, Layout::Contiguous, 0, 39), 0, Scalar::of_int(0)));
  }
}

OpCall index_select_call(Tensor input, Tensor index, int64_t dim) {
  OpCall c;
  c.op = "torch.index_select";
  c.tensors = {{"input", std::move(input)}, {"index", std::move(index)}};
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

// index_select runs as a gather over the index expanded along out's other
// dims: whole-slice memcpy when input is unit-stride after dim (dim 0 of a
// contiguous input), the per-element path when dim is last, the strided
// path otherwise; rows split across threads past the parallel threshold.
// A bad value first or last (the fused check), 0-d inputs and indices, an
// empty index and size-0 dims elsewhere (values still checked).
TEST_F(CpuBackendTest, TorchIndexSelectEveryPathAndSplit) {
  for (DType t : kAllDTypes) {
    for (int64_t n : kEdgeSizes) {
      const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
      for (int64_t dim : {0, 1, -1}) {
        const Shape input_shape{rows + 1, width};
        const int64_t size = input_shape[static_cast<size_t>(dim < 0 ? dim + 2 : dim)];
        const DType index_t = uniform(0, 1) ? DType::Int64 : DType::Int32;
        agree_all_threads(index_select_call(
            make(t, input_shape, kLayouts[static_cast<size_t>(uniform(0, 3))]),
            make_index(index_t, {n}, kLayouts[static_cast<size_t>(uniform(0, 3))], 0, size - 1), dim));
      }
    }
  }
  for (DType t : {DType::Float32, DType::BFloat16, DType::Int8, DType::Float64}) {
    for (Layout layout : kLayouts) {
      // Slices of 33 past the parallel threshold (memcpy when contiguous).
      agree_all_threads(index_select_call(make(t, {500, 33}, layout),
                                          make_index(DType::Int64, {3001}, Layout::Contiguous, 0, 499), 0));
      // Last dim past the threshold: one index read per element.
      agree_all_threads(
          index_select_call(make(t, {67, 601}, layout), make_index(DType::Int32, {599}, Layout::Gapped, 0, 600), 1));
      // Middle dim of rank 3.
      agree_all_threads(index_select_call(make(t, {9, 40, 130}, layout),
                                          make_index(DType::Int64, {41}, Layout::Contiguous, 0, 39), 1));
    }
  }
  for (int64_t bad : {int64_t{-1}, int64_t{500}, int64_t{1} << 40}) {
    for (bool at_end : {false, true}) {
      Tensor index = make_index(DType::Int64, {3001}, Layout::Contiguous, 0, 499);
      index.set_bits_at({at_end ? 3000 : 0}, static_cast<uint64_t>(bad));
      agree_all_threads(index_select_call(make(DType::Float32, {500, 33}, Layout::Contiguous), index, 0));
      agree_all_threads(index_select_call(make(DType::Float32, {33, 500}, Layout::Transposed), index, 1));
    }
  }
  // 0-d input (one value, which must be 0; other lengths are unspecified) and 0-d index.
  for (const Shape& index_shape : {Shape{}, Shape{1}, Shape{3}, Shape{0}})
    for (int64_t hi : {0, 1})
      agree_all_threads(index_select_call(make(DType::Float32, {}, Layout::Contiguous),
                                          make_index(DType::Int64, index_shape, Layout::Contiguous, 0, hi), -1));
  agree_all_threads(index_select_call(make(DType::Int16, {4, 5}, Layout::Contiguous),
                                      make_index(DType::Int32, {}, Layout::Contiguous, 0, 4), 1));
  // Nothing to write, values still checked: size-0 dims and an empty index.
  for (int64_t hi : {2, 3}) {
    agree_all_threads(index_select_call(make(DType::Float32, {0, 3}, Layout::Contiguous),
                                        make_index(DType::Int64, {4}, Layout::Contiguous, 0, hi), 1));
    agree_all_threads(index_select_call(make(DType::Float32, {3, 0}, Layout::Contiguous),
                                        make_index(DType::Int64, {4}, Layout::Contiguous, 0, hi), 0));
  }
  agree_all_threads(index_select_call(make(DType::Float32, {0, 3}, Layout::Contiguous),
                                      make_index(DType::Int64, {2}, Layout::Contiguous, 0, 0), 0));
  agree_all_threads(index_select_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                      make_index(DType::Int64, {0}, Layout::Contiguous, 0, 0), 1));
  // Argument errors, in LibTorch's order.
  agree_all_threads(index_select_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                      make_index(DType::Int64, {2, 1}, Layout::Contiguous, 0, 1), 2));
  agree_all_threads(index_select_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                      make_index(DType::Int16, {2, 1}, Layout::Contiguous, 0, 1), 0));
  agree_all_threads(index_select_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                      make_index(DType::UInt8, {2}, Layout::Contiguous, 0, 9), 0));
}

OpCall take_along_dim_call(Tensor input, Tensor indices, std::optional<int64_t> dim) {
  OpCall c;
  c.op = "torch.take_along_dim";
  c.tensors = {{"input", std::move(input)}, {"indices", std::move(indices)}};
  if (dim) c.set_arg("dim", Arg::of_int(*dim));
  return c;
}

TEST_F(CpuBackendTest, TorchTakeAlongDimBroadcastNoneAndSplit) {
  // Every dtype and layout, indices broadcast on either side of every dim
  // but dim (T-TA5), sizes around the walk's thresholds.
  for (DType t : kAllDTypes) {
    for (int64_t n : kEdgeSizes) {
      const int64_t rows = uniform(1, 5), width = std::max<int64_t>(n, 1);
      for (int64_t dim : {0, 1, -1}) {
        const int64_t d = dim < 0 ? dim + 2 : dim;
        const Shape input_shape{rows + 1, width};
        const int64_t size = input_shape[static_cast<size_t>(d)];
        Shape input_s = input_shape, index_s = input_shape;
        index_s[static_cast<size_t>(d)] = n;
        const size_t other = d == 0 ? 1 : 0;
        switch (uniform(0, 2)) {
          case 0:
            index_s[other] = 1;  // indices broadcasts
            break;
          case 1:
            input_s[other] = 1;  // input broadcasts
            break;
          default:
            break;
        }
        agree_all_threads(
            take_along_dim_call(make(t, input_s, kLayouts[static_cast<size_t>(uniform(0, 3))]),
                                make_index(DType::Int64, index_s, kLayouts[static_cast<size_t>(uniform(0, 3))], 0,
                                           std::max<int64_t>(size, 1) - 1),
                                dim));
      }
      // dim=None: both flattened, every layout (copies where not contiguous).
      const Layout input_layout = kLayouts[static_cast<size_t>(uniform(0, 3))];
      const Layout index_layout = kLayouts[static_cast<size_t>(uniform(0, 3))];
      agree_all_threads(take_along_dim_call(make(t, {rows, 3}, input_layout),
                                            make_index(DType::Int64, {2, width}, index_layout, 0, rows * 3 - 1),
                                            std::nullopt));
    }
  }
  for (Layout layout : kLayouts) {
    // Past the parallel threshold, a broadcast [1, 601] indices and a [1, 33] input.
    agree_all_threads(take_along_dim_call(make(DType::Float32, {67, 601}, layout),
                                          make_index(DType::Int64, {1, 601}, Layout::Contiguous, 0, 66), 0));
    agree_all_threads(take_along_dim_call(make(DType::BFloat16, {1, 33}, layout),
                                          make_index(DType::Int64, {500, 40}, Layout::Gapped, 0, 32), 1));
    agree_all_threads(take_along_dim_call(make(DType::Int8, {9, 40, 130}, layout),
                                          make_index(DType::Int64, {9, 41, 1}, layout, 0, 39), 1));
  }
  // A bad value anywhere (first or last), with dim and without.
  for (int64_t bad : {int64_t{500}, int64_t{-501}, int64_t{1} << 40}) {
    for (bool at_end : {false, true}) {
      Tensor index = make_index(DType::Int64, {3001, 1}, Layout::Contiguous, 0, 499);
      index.set_bits_at({at_end ? 3000 : 0, 0}, static_cast<uint64_t>(bad));
      agree_all_threads(take_along_dim_call(make(DType::Float32, {500, 33}, Layout::Contiguous), index, 0));
      Tensor flat = make_index(DType::Int64, {3001}, Layout::Contiguous, 0, 499);
      flat.set_bits_at({at_end ? 3000 : 0}, static_cast<uint64_t>(bad));
      agree_all_threads(take_along_dim_call(make(DType::Float32, {20, 25}, Layout::Transposed), flat, std::nullopt));
    }
  }
  // Negative values in [-s, 0): the reference allows the wrap or the error
  // (T-TA7); the cpu backend refuses them as LibTorch 1.13 does.
  for (std::optional<int64_t> dim : {std::optional<int64_t>{1}, std::optional<int64_t>{}}) {
    OpCall c = take_along_dim_call(make(DType::Float32, {2, 3}, Layout::Contiguous),
                                   make_index(DType::Int64, {2, 1}, Layout::Contiguous, -1, -1), dim);
    ASSERT_TRUE(evaluate(c).allows_error(ErrorCategory::IndexOutOfBounds));
    const Outcome got = backend(1).run(c);
    ASSERT_EQ(got.kind, Outcome::Kind::Error) << got.message;
    EXPECT_EQ(*got.error, ErrorCategory::IndexOutOfBounds) << got.message;
  }
  // 0-d operands, empty outs (no value read), and the argument errors in
  // LibTorch's order.
  for (int64_t hi : {0, 1}) {
    agree_all_threads(take_along_dim_call(make(DType::Float32, {}, Layout::Contiguous),
                                          make_index(DType::Int64, {}, Layout::Contiguous, 0, hi), 0));
    agree_all_threads(take_along_dim_call(make(DType::Float32, {}, Layout::Contiguous),
                                          make_index(DType::Int64, {3}, Layout::Contiguous, 0, hi), std::nullopt));
  }
  agree_all_threads(take_along_dim_call(make(DType::Float32, {0, 3}, Layout::Contiguous),
                                        make_index(DType::Int64, {1, 2}, Layout::Contiguous, 5, 9), 1));
  agree_all_threads(take_along_dim_call(make(DType::Float32, {1, 3}, Layout::Contiguous),
                                        make_index(DType::Int64, {0, 1}, Layout::Contiguous, 0, 0), 1));
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 0}, Layout::Contiguous),
                                        make_index(DType::Int64, {3, 2}, Layout::Contiguous, 0, 0), 1));
  agree_all_threads(take_along_dim_call(make(DType::Float32, {0, 3}, Layout::Contiguous),
                                        make_index(DType::Int64, {2}, Layout::Contiguous, 0, 0), std::nullopt));
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int64, {2, 2}, Layout::Contiguous, 0, 1), 1));  // shape
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int32, {3, 1}, Layout::Contiguous, 0, 1), 5));  // dtype
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int32, {3}, Layout::Contiguous, 0, 1), 5));  // rank
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int64, {3, 1}, Layout::Contiguous, 0, 1), -3));  // dim
  agree_all_threads(take_along_dim_call(make(DType::Float32, {3, 4}, Layout::Contiguous),
                                        make_index(DType::Int32, {0}, Layout::Contiguous, 0, 1), std::nullopt));
}

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
// The streamed row copy of gather_kernel (non-temporal stores, taken for
// large outputs) called directly with a zero threshold: the same bytes as the
// plain copy for rows of every width (head and tail bytes outside the 64-byte
// blocks, out rows not 16-byte aligned), and a bad value still refused.
TEST(CpuGatherKernel, StreamedRowCopyWritesWhatThePlainCopyWrites) {
  cpu::ThreadPool pool(2);
  std::mt19937_64 gen(5);
  for (int64_t width : {1, 3, 16, 17, 40, 129}) {
    const int64_t rows = 300, out_rows = 5000;
    std::vector<uint32_t> input(static_cast<size_t>(rows * width));
    for (auto& v : input) v = static_cast<uint32_t>(gen());
    std::vector<int64_t> index(static_cast<size_t>(out_rows));
    for (auto& v : index) v = static_cast<int64_t>(gen() % rows);
    // Index [out_rows, width] with strides [1, 0]; out and input contiguous.
    const cpu::IndexWalk walk = cpu::make_walk({out_rows, width}, 0, {width, 1}, {1, 0}, {width, 1}, rows);
    for (int64_t misalign : {0, 1}) {
      std::vector<uint32_t> plain(static_cast<size_t>(out_rows * width + 1)), streamed(plain.size());
      const auto run = [&](std::vector<uint32_t>& out, int64_t threshold) {
        return cpu::gather_kernel(DType::Int32, DType::Int64, reinterpret_cast<const std::byte*>(input.data()),
                                  reinterpret_cast<const std::byte*>(index.data()),
                                  reinterpret_cast<std::byte*>(out.data() + misalign), walk, pool, threshold);
      };
      ASSERT_TRUE(run(plain, INT64_MAX));
      ASSERT_TRUE(run(streamed, 0));
      ASSERT_EQ(plain, streamed) << "width " << width << ", out misaligned by " << misalign * 4 << " bytes";
      for (int64_t r = 0; r < out_rows; r += 997)
        EXPECT_EQ(streamed[static_cast<size_t>(r * width + misalign)],
                  input[static_cast<size_t>(index[static_cast<size_t>(r)] * width)]);
    }
    index[static_cast<size_t>(out_rows - 1)] = rows;
    std::vector<uint32_t> out(static_cast<size_t>(out_rows * width));
    EXPECT_FALSE(cpu::gather_kernel(DType::Int32, DType::Int64, reinterpret_cast<const std::byte*>(input.data()),
                                    reinterpret_cast<const std::byte*>(index.data()),
                                    reinterpret_cast<std::byte*>(out.data()), walk, pool, 0));
  }
}

}  // namespace sp
