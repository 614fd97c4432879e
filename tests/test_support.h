// test_support.h — the one way the tests build tensors, layouts and calls.
//
//   tensor_of(DType, shape, {values})  contiguous, values in row-major order
//                                       (integral dtypes take them as ints)
//   f32 / f64 / i64 / i32 (shape, {values})  shorthands
//   relaid(t, Layout)                   the same values in another layout:
//                                       transposed (last two dims), gapped
//                                       (every stride doubled, an offset, the
//                                       gaps holding a 0x5a sentinel) or
//                                       expanded (stride 0 along the first
//                                       dim whose values are all equal)
//   call_of(op, {tensors}, {args})      an OpCall; args by name, e.g.
//                                       {{"dim", Arg::of_int(0)}}
//   values_of(t)                        the elements as doubles, row-major
// and the one way they read a reference answer:
//   only_output(e)                      its single output (a failure if none)
//   expect_exact(e, {values})           exact bits, no loose element
//   expect_exact(e, shape, {values})    the same at out's shape, and at every
//                                       position a value one off refused
//   expect_errors(e, {categories})      an error, exactly these categories
//   expect_error(e, {categories}, clause)  the same, cited by `clause`
//   allows(e, linear, dtype, v)         whether element `linear` may be v
//   grad(e, "grad_src")                 a backward answer's output by name
//   output_names(e)                     its outputs' names, in order
//   allows_all(g, {values})             whether every element of g may be
//                                       the value given (row-major)
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "reference/expectation.h"
#include "reference/op_call.h"
#include "reference/tensor.h"

namespace sp::test {

enum class Layout { Contiguous, Transposed, Gapped, Expanded };
inline constexpr Layout kLayouts[] = {Layout::Contiguous, Layout::Transposed, Layout::Gapped, Layout::Expanded};

inline Tensor tensor_of(DType dtype, const Shape& shape, const std::vector<double>& values) {
  Tensor t = Tensor::zeros(dtype, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel()) << "tensor_of: values do not fill the shape";
  if (t.numel() == 0 || static_cast<int64_t>(values.size()) != t.numel()) return t;
  Shape idx(shape.size(), 0);
  size_t k = 0;
  do {
    const Value v = is_floating(dtype) ? Value::of_float(values[k]) : Value::of_int(static_cast<int64_t>(values[k]));
    t.set_bits_at(idx, bits_from_value(dtype, v));
    ++k;
  } while (next_index(idx, shape));
  return t;
}
inline Tensor f32(const Shape& shape, const std::vector<double>& v) { return tensor_of(DType::Float32, shape, v); }
inline Tensor f64(const Shape& shape, const std::vector<double>& v) { return tensor_of(DType::Float64, shape, v); }
inline Tensor i64(const Shape& shape, const std::vector<double>& v) { return tensor_of(DType::Int64, shape, v); }
inline Tensor i32(const Shape& shape, const std::vector<double>& v) { return tensor_of(DType::Int32, shape, v); }

inline std::vector<double> values_of(const Tensor& t) {
  std::vector<double> out;
  if (t.numel() == 0) return out;
  Shape idx(static_cast<size_t>(t.rank()), 0);
  do out.push_back(t.value_at(idx).as_double());
  while (next_index(idx, t.shape()));
  return out;
}

// The same values as `t` in `layout` (a layout that does not apply to `t`,
// e.g. transposing a rank-1 tensor or expanding one whose slices differ,
// gives a contiguous copy).
inline Tensor relaid(const Tensor& t, Layout layout) {
  const size_t r = static_cast<size_t>(t.rank());
  Shape strides = contiguous_strides(t.shape());
  int64_t offset = 0;
  if (layout == Layout::Transposed && r >= 2) {
    Shape alloc = t.shape();
    std::swap(alloc[r - 1], alloc[r - 2]);
    strides = contiguous_strides(alloc);
    std::swap(strides[r - 1], strides[r - 2]);
  } else if (layout == Layout::Gapped) {
    for (auto& s : strides) s *= 2;
    offset = 3;
  } else if (layout == Layout::Expanded) {
    for (size_t d = 0; d < r; ++d) {
      if (t.size(static_cast<int64_t>(d)) <= 1) continue;
      bool constant = true;
      Shape idx(r, 0);
      if (t.numel() > 0) {
        do {
          Shape first = idx;
          first[d] = 0;
          constant = constant && t.bits_at(idx) == t.bits_at(first);
        } while (constant && next_index(idx, t.shape()));
      }
      if (!constant) continue;
      strides = contiguous_strides(t.shape());
      strides[d] = 0;
      break;
    }
  }
  int64_t span = offset + 1;
  for (size_t d = 0; d < r; ++d) span += std::max<int64_t>(t.size(static_cast<int64_t>(d)) - 1, 0) * strides[d];
  auto storage =
      std::make_shared<std::vector<std::byte>>(static_cast<size_t>(span) * dtype_size(t.dtype()), std::byte{0x5a});
  Tensor out = Tensor::view(t.dtype(), t.shape(), strides, offset, storage);
  if (t.numel() > 0) {
    Shape idx(r, 0);
    do out.set_bits_at(idx, t.bits_at(idx));
    while (next_index(idx, t.shape()));
  }
  return out;
}

inline OpCall call_of(std::string op, std::map<std::string, Tensor> tensors, std::map<std::string, Arg> args = {}) {
  OpCall c;
  c.op = std::move(op);
  c.tensors = std::move(tensors);
  c.args = std::move(args);
  return c;
}

// Whether one of the answer's notes cites `clause` (campaign expectation
// entries key by the notes).
inline bool cites(const Expectation& e, const std::string& clause) {
  for (const Note& n : e.notes)
    if (n.clause == clause) return true;
  return false;
}

inline const ExpectedTensor& only_output(const Expectation& e) {
  EXPECT_TRUE(e.outputs.has_value()) << e.summary() << " " << e.error_message;
  static const ExpectedTensor none;
  if (!e.outputs || e.outputs->size() != 1) return none;
  return e.outputs->front();
}

inline void expect_exact(const Expectation& e, const std::vector<double>& expected) {
  EXPECT_FALSE(e.unspecified) << e.summary();
  const ExpectedTensor& out = only_output(e);
  EXPECT_TRUE(out.loose.empty()) << e.summary();
  EXPECT_EQ(values_of(out.exact), expected);
}

// Exact bits where every out element has one writer: the expected values at
// `shape`, and nothing else at any position (a value one off is refused).
inline void expect_exact(const Expectation& e, const Shape& shape, const std::vector<double>& expected) {
  const ExpectedTensor& out = only_output(e);
  EXPECT_TRUE(out.loose.empty()) << e.summary();
  EXPECT_FALSE(e.unspecified) << e.summary();
  EXPECT_EQ(out.exact.shape(), shape);
  EXPECT_EQ(values_of(out.exact), expected);
  const DType t = out.exact.dtype();
  for (size_t k = 0; k < expected.size(); ++k) {
    const auto linear = static_cast<int64_t>(k);
    EXPECT_TRUE(out.allows(linear, load_bits(t, out.exact.element_ptr(linear)))) << k;
    const Value other =
        is_floating(t) ? Value::of_float(expected[k] + 1) : Value::of_int(static_cast<int64_t>(expected[k]) + 1);
    EXPECT_FALSE(out.allows(linear, bits_from_value(t, other))) << k;
  }
}

inline void expect_errors(const Expectation& e, const std::vector<ErrorCategory>& categories) {
  EXPECT_TRUE(e.expects_error()) << e.summary();
  EXPECT_EQ(e.errors, categories) << e.error_message;
}

// An error of exactly `categories`, `clause` the first one's (a fatal
// failure when the answer is no error).
inline void expect_error(const Expectation& e, const std::vector<ErrorCategory>& categories,
                         const std::string& clause) {
  ASSERT_TRUE(e.expects_error()) << e.summary();
  EXPECT_EQ(e.errors, categories) << e.error_message;
  EXPECT_EQ(e.error_clause, clause) << e.error_message;
}

inline bool allows(const Expectation& e, int64_t linear, DType t, double v) {
  return only_output(e).allows(linear, bits_from_value(t, Value::of_float(v)));
}

// A backward answer's output `name` ("grad_src"); a failure (and an empty
// tensor) when the answer has no outputs or none of that name.
inline const ExpectedTensor& grad(const Expectation& e, const std::string& name) {
  static const ExpectedTensor none;
  EXPECT_TRUE(e.outputs.has_value()) << e.summary() << " " << e.error_message;
  if (!e.outputs) return none;
  for (const ExpectedTensor& t : *e.outputs)
    if (t.name == name) return t;
  ADD_FAILURE() << "no output " << name << " in " << e.summary();
  return none;
}

inline std::vector<std::string> output_names(const Expectation& e) {
  std::vector<std::string> names;
  if (e.outputs)
    for (const ExpectedTensor& t : *e.outputs) names.push_back(t.name);
  return names;
}

// Whether the whole tensor `values` (row-major) is allowed for gradient `g`.
inline bool allows_all(const ExpectedTensor& g, const std::vector<double>& values) {
  if (static_cast<int64_t>(values.size()) != g.exact.numel()) return false;
  for (size_t k = 0; k < values.size(); ++k)
    if (!g.allows(static_cast<int64_t>(k), bits_from_value(g.exact.dtype(), Value::of_float(values[k])))) return false;
  return true;
}

}  // namespace sp::test
