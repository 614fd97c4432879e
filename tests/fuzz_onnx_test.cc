// fuzz_onnx_test.cc — the fuzz generator's ONNX cases (opset, reduction,
// negative and out-of-range indices, batch_dims, the GatherND / ScatterND
// builders) and the cpu backend's ONNX kernels on them, against plain
// loops written here from ONNX's documentation (a check of the kernels
// independent of reference/onnx_*.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "backends/backend.h"
#include "fuzz/case_gen.h"
#include "reference/op_table.h"

namespace sp::fuzz {
namespace {

std::vector<const OpSpec*> onnx_ops() {
  std::vector<const OpSpec*> ops;
  for (const OpSpec& op : op_table())
    if (op.dialect == "onnx") ops.push_back(&op);
  return ops;
}

TEST(FuzzOnnx, KnobsCoverOpsetsReductionsIndicesAndBatchDims) {
  const auto ops = onnx_ops();
  ASSERT_EQ(ops.size(), 5u);
  std::map<std::string, int> seen;
  for (uint64_t seed = 0; seed < 4000; ++seed) {
    Choices c(seed);
    const OpCall call = generate_call(c, ops);
    ASSERT_FALSE(check_signature(call)) << call.describe();
    const OpSpec& op = op_spec(call.op);
    const int64_t opset = op.arg_or_default(call, "opset")->i;
    if (opset < (call.op == "onnx.Scatter" ? 9 : 11)) ++seen["opset below the first"];
    if (const Arg* r = call.arg("reduction")) {
      if ((r->s == "max" || r->s == "min") && opset < 18) ++seen["max/min before 18"];
      if ((r->s == "add" || r->s == "mul") && opset >= 16) ++seen["add/mul at 16+"];
      if (r->s != "none" && r->s != "add" && r->s != "mul" && r->s != "max" && r->s != "min") ++seen["bad reduction"];
    }
    if (call.op == "onnx.GatherND" && op.arg_or_default(call, "batch_dims")->i > 0) ++seen["batch_dims > 0"];
    const Tensor& idx = *call.tensor("indices");
    if (idx.numel() > 0 && is_integral(idx.dtype())) {
      Shape pos(idx.shape().size(), 0);
      bool negative = false;
      do negative = negative || idx.value_at(pos).i < 0;
      while (next_index(pos, idx.shape()));
      if (negative) ++seen["negative index"];
    }
    ++seen[call.op];
  }
  for (const char* k : {"opset below the first", "max/min before 18", "add/mul at 16+", "bad reduction",
                        "batch_dims > 0", "negative index", "onnx.GatherND", "onnx.ScatterND"}) {
    std::printf("%s: %d\n", k, seen[k]);
    EXPECT_GT(seen[k], 20) << k;
  }
}

// --- plain loops over ONNX's formulas (valid calls only) ---

uint64_t combine(DType t, const std::string& r, uint64_t a_bits, uint64_t b_bits) {
  const Value a = value_from_bits(t, a_bits), b = value_from_bits(t, b_bits);
  if (r == "none") return b_bits;
  if (a.is_float) {
    if (r == "add") return bits_from_value(t, Value::of_float(a.f + b.f));
    if (r == "mul") return bits_from_value(t, Value::of_float(a.f * b.f));
    if (std::isnan(a.f)) return a_bits;
    if (std::isnan(b.f)) return b_bits;
    if (r == "max") return b.f > a.f ? b_bits : a_bits;
    return b.f < a.f ? b_bits : a_bits;
  }
  const auto ua = static_cast<uint64_t>(a.i), ub = static_cast<uint64_t>(b.i);
  if (r == "add") return bits_from_value(t, Value::of_int(static_cast<int64_t>(ua + ub)));
  if (r == "mul") return bits_from_value(t, Value::of_int(static_cast<int64_t>(ua * ub)));
  if (r == "max") return int_less(t, a, b) ? b_bits : a_bits;  // uint64 compares unsigned
  return int_less(t, b, a) ? b_bits : a_bits;
}

int64_t wrapped(const Tensor& idx, const Shape& pos, int64_t s) {
  const int64_t v = idx.value_at(pos).i;
  return v < 0 ? v + s : v;
}

// The expected output of a call the cpu backend answered with outputs.
Tensor expected_of(const OpCall& call) {
  const OpSpec& op = op_spec(call.op);
  const Tensor& data = *call.tensor("data");
  const Tensor& idx = *call.tensor("indices");
  const std::string r = op.arg("reduction") ? op.arg_or_default(call, "reduction")->s : "none";
  if (op.family == ShapeFamily::Gather || op.family == ShapeFamily::ScatterElements) {
    int64_t axis = op.arg_or_default(call, "axis")->i;
    if (axis < 0) axis += data.rank();
    const int64_t s = data.size(axis);
    Tensor out = op.family == ShapeFamily::Gather ? Tensor::zeros(data.dtype(), idx.shape()) : data.contiguous();
    if (idx.numel() == 0) return out;
    Shape pos(idx.shape().size(), 0);
    do {
      Shape at = pos;
      at[static_cast<size_t>(axis)] = wrapped(idx, pos, s);
      if (op.family == ShapeFamily::Gather)
        out.set_bits_at(pos, data.bits_at(at));
      else
        out.set_bits_at(at, combine(data.dtype(), r, out.bits_at(at), call.tensor("updates")->bits_at(pos)));
    } while (next_index(pos, idx.shape()));
    return out;
  }
  const int64_t b = op.arg("batch_dims") ? op.arg_or_default(call, "batch_dims")->i : 0;
  const int64_t k = idx.shape().back();
  const Shape lead(idx.shape().begin(), idx.shape().end() - 1);
  const Shape slice(data.shape().begin() + b + k, data.shape().end());
  Shape out_shape = lead;
  out_shape.insert(out_shape.end(), slice.begin(), slice.end());
  Tensor out = op.family == ShapeFamily::GatherND ? Tensor::zeros(data.dtype(), out_shape) : data.contiguous();
  if (checked_numel(lead) == 0 || checked_numel(slice) == 0) return out;
  Shape n(lead.size(), 0);
  do {
    Shape target(n.begin(), n.begin() + b);
    for (int64_t j = 0; j < k; ++j) {
      Shape at = n;
      at.push_back(j);
      target.push_back(wrapped(idx, at, data.size(b + j)));
    }
    Shape j(slice.size(), 0);
    do {
      Shape t = target, o = n;
      t.insert(t.end(), j.begin(), j.end());
      o.insert(o.end(), j.begin(), j.end());
      if (op.family == ShapeFamily::GatherND)
        out.set_bits_at(o, data.bits_at(t));
      else
        out.set_bits_at(t, combine(data.dtype(), r, out.bits_at(t), call.tensor("updates")->bits_at(o)));
    } while (next_index(j, slice));
  } while (next_index(n, lead));
  return out;
}

TEST(FuzzOnnx, CpuKernelsMatchPlainLoopsOnGeneratedCases) {
  const auto ops = onnx_ops();
  std::string why;
  auto cpu = make_backend("cpu", BackendOptions{2, false}, &why);
  ASSERT_TRUE(cpu) << why;
  int outputs = 0, errors = 0, compared = 0;
  std::map<std::string, int> by_op;
  for (uint64_t seed = 0; seed < 6000; ++seed) {
    Choices c(seed + 77);
    OpCall call = generate_call(c, ops);
    const OpCall original = call.deep_copy();
    const Outcome o = cpu->run(call);
    if (o.kind == Outcome::Kind::Error) {
      ++errors;
      ++by_op[original.op + " " + std::string(error_name(*o.error))];
      continue;
    }
    ASSERT_EQ(o.kind, Outcome::Kind::Outputs) << original.describe() << ": " << o.message;
    ++outputs;
    const DType t = original.tensor("data")->dtype();
    // 16-bit floats: the kernels round through float (an interval the
    // reference allows); compare the dtypes whose one op rounds once here.
    if (t == DType::Float16 || t == DType::BFloat16) continue;
    const Tensor expected = expected_of(original);
    ASSERT_EQ(o.outputs.at(0).shape(), expected.shape()) << original.describe();
    // NaN payloads are the hardware's choice: any NaN matches a NaN.
    const std::vector<uint64_t> got = o.outputs.at(0).contiguous().to_bits(), want = expected.to_bits();
    for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
      const bool both_nan =
          is_floating(t) && std::isnan(value_from_bits(t, got[i]).f) && std::isnan(value_from_bits(t, want[i]).f);
      EXPECT_TRUE(both_nan || got[i] == want[i]) << original.describe() << " element " << i;
    }
    ++compared;
  }
  std::printf("onnx cases: %d outputs (%d compared), %d errors\n", outputs, compared, errors);
  for (const auto& [k, n] : by_op) std::printf("  %s: %d\n", k.c_str(), n);
  const double invalid = static_cast<double>(errors) / (outputs + errors);
  EXPECT_GT(invalid, 0.2);
  EXPECT_LT(invalid, 0.5);
}

}  // namespace
}  // namespace sp::fuzz
