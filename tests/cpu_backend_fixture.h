// cpu_backend_fixture.h — the fixture of the cpu backend tests (cpu_*_test.cc,
// one file per op as in backends/cpu/ops/, plus cpu_backend_test.cc for what
// every op shares): the differential check and the call builders.
//
// The cpu backend, differentially against the reference (sp::evaluate) on
// generated cases.
//
// Each case is evaluated by the reference on the original call and run by
// the cpu backend on a deep copy; every output element must be one the
// reference allows, an error must be one it lists, an in-place op must
// leave the storage outside self's view untouched and return self's own
// view, and an out-of-place op must leave all inputs untouched. Sizes sit
// on the kernels' edges: vector widths (7..33), the 16-element wide-row
// threshold, the parallel-work threshold, 0- and 1-sized dims; operands are
// contiguous, transposed, sliced with gaps and an offset, or expanded.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "backends/backend.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp::cpu_test {

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

inline OpCall gather_call(Tensor input, Tensor index, int64_t dim) {
  OpCall c;
  c.op = "torch.gather";
  c.tensors = {{"input", std::move(input)}, {"index", std::move(index)}};
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

inline OpCall scatter_call(std::string op, Tensor self, Tensor index, std::optional<Tensor> src, int64_t dim) {
  OpCall c;
  c.op = std::move(op);
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}};
  if (src) c.tensors["src"] = std::move(*src);
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

inline constexpr int64_t kEdgeSizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33};

inline OpCall index_add_call(const char* op, Tensor self, Tensor index, Tensor source, int64_t dim,
                             std::optional<Scalar> alpha = std::nullopt) {
  OpCall c;
  c.op = op;
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}, {"source", std::move(source)}};
  c.set_arg("dim", Arg::of_int(dim));
  if (alpha) c.set_arg("alpha", Arg::of_scalar(*alpha));
  return c;
}

inline OpCall index_reduce_call(const char* op, Tensor self, Tensor index, Tensor source, int64_t dim,
                                const std::string& reduce, std::optional<bool> include_self) {
  OpCall c;
  c.op = op;
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}, {"source", std::move(source)}};
  c.set_arg("dim", Arg::of_int(dim));
  c.set_arg("reduce", Arg::of_string(reduce));
  if (include_self) c.set_arg("include_self", Arg::of_bool(*include_self));
  return c;
}

inline OpCall index_copy_call(const char* op, Tensor self, Tensor index, Tensor source, int64_t dim) {
  OpCall c;
  c.op = op;
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}, {"source", std::move(source)}};
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

inline OpCall index_fill_call(const char* op, Tensor self, Tensor index, int64_t dim, Scalar value) {
  OpCall c;
  c.op = op;
  c.tensors = {{"self", std::move(self)}, {"index", std::move(index)}};
  c.set_arg("dim", Arg::of_int(dim));
  c.set_arg("value", Arg::of_scalar(value));
  return c;
}

inline OpCall index_select_call(Tensor input, Tensor index, int64_t dim) {
  OpCall c;
  c.op = "torch.index_select";
  c.tensors = {{"input", std::move(input)}, {"index", std::move(index)}};
  c.set_arg("dim", Arg::of_int(dim));
  return c;
}

inline OpCall take_along_dim_call(Tensor input, Tensor indices, std::optional<int64_t> dim) {
  OpCall c;
  c.op = "torch.take_along_dim";
  c.tensors = {{"input", std::move(input)}, {"indices", std::move(indices)}};
  if (dim) c.set_arg("dim", Arg::of_int(*dim));
  return c;
}

}  // namespace sp::cpu_test
