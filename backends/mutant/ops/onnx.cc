// onnx.cc — mutants of the ONNX ops (onnx.GatherElements, onnx.ScatterElements,
// onnx.Scatter, onnx.GatherND, onnx.ScatterND), each a bug class real ONNX
// runtimes and converters have had: negative indices not normalised, the
// reduction attribute ignored, max / min emulated with add, integer mul
// computed in float32, no bounds check on a gather (out-of-range reads
// clamped), GatherND's batch_dims ignored, ScatterND's reduction not
// including the existing data value.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_onnx(const OpSpec& op) { return op.dialect == "onnx"; }
bool onnx_reduces(const OpSpec& op) { return is_onnx(op) && op.arg("reduction"); }
bool onnx_gathers(const OpSpec& op) { return op.id == "onnx.GatherElements" || op.id == "onnx.GatherND"; }
bool is_gather_nd(const OpSpec& op) { return op.id == "onnx.GatherND"; }
bool is_scatter_nd(const OpSpec& op) { return op.id == "onnx.ScatterND"; }

std::string reduction_of_call(const OpCall& c) {
  const auto r = spec_of(c).arg_or_default(c, "reduction");
  return r && r->type == Arg::Type::String ? r->s : "none";
}

// Every write of an ONNX scatter, in index order (target in data, position
// in updates), negatives wrapped; empty when a shape or value is invalid
// (the mutant then leaves the call to the cpu backend).
std::vector<Write> onnx_writes(const OpCall& c) {
  const Tensor* data = c.tensor("data");
  const Tensor* indices = c.tensor("indices");
  const Tensor* updates = c.tensor("updates");
  if (!data || !indices || !updates || indices->numel() == 0 || data->rank() < 1) return {};
  std::vector<Write> out;
  if (spec_of(c).family == ShapeFamily::ScatterElements) {
    const auto dim = normalized_dim(c);
    if (!dim || indices->rank() != data->rank() || updates->shape() != indices->shape()) return {};
    const int64_t s = data->size(*dim);
    Shape pos(indices->shape().size(), 0);
    do {
      int64_t v = read_int(*indices, pos);
      if (v < 0) v += s;
      if (v < 0 || v >= s) return {};
      Shape target = pos;
      target[static_cast<size_t>(*dim)] = v;
      for (size_t d = 0; d < target.size(); ++d)
        if (target[d] >= data->shape()[d]) return {};
      out.push_back({target, pos});
    } while (next_index(pos, indices->shape()));
    return out;
  }
  // ScatterND: tuples in indices' last dim, slices of data's dims after k.
  const int64_t q = indices->rank(), k = indices->shape().back(), r = data->rank();
  if (k < 1 || k > r) return {};
  const Shape lead(indices->shape().begin(), indices->shape().end() - 1);
  const Shape slice(data->shape().begin() + k, data->shape().end());
  Shape expected = lead;
  expected.insert(expected.end(), slice.begin(), slice.end());
  if (updates->shape() != expected || checked_numel(expected) == 0) return {};
  Shape n(lead.size(), 0);
  do {
    Shape tuple;
    for (int64_t j = 0; j < k; ++j) {
      Shape at = n;
      at.push_back(j);
      int64_t v = read_int(*indices, at);
      const int64_t s = data->size(j);
      if (v < 0) v += s;
      if (v < 0 || v >= s) return {};
      tuple.push_back(v);
    }
    Shape j(slice.size(), 0);
    do {
      Shape target = tuple, source = n;
      target.insert(target.end(), j.begin(), j.end());
      source.insert(source.end(), j.begin(), j.end());
      out.push_back({target, source});
    } while (next_index(j, slice));
  } while (next_index(n, lead));
  (void)q;
  return out;
}

// A negative index value is rejected as out of bounds: the kernel checks
// [0, s) and never adds s (ONNX allows [-s, s - 1] from opset 11).
Outcome negative_not_normalised(Backend& cpu, OpCall& c) {
  const Tensor& indices = *c.tensor(index_name(c));
  if (indices.numel() > 0 && (indices.dtype() == DType::Int32 || indices.dtype() == DType::Int64)) {
    Shape pos(indices.shape().size(), 0);
    do {
      const int64_t v = read_int(indices, pos);
      if (v < 0) return Outcome::of_error(ErrorCategory::IndexOutOfBounds, "index " + std::to_string(v) + " < 0");
    } while (next_index(pos, indices.shape()));
  }
  return cpu.run(c);
}

// reduction="add" read as the default "none": duplicates overwrite.
Outcome reduction_ignored(Backend& cpu, OpCall& c) {
  if (reduction_of_call(c) == "add") c.args.erase("reduction");
  return cpu.run(c);
}

// max / min dispatched to the add kernel (an emulation that sums).
Outcome max_min_as_add(Backend& cpu, OpCall& c) {
  const std::string r = reduction_of_call(c);
  if (r == "max" || r == "min") c.set_arg("reduction", Arg::of_string("add"));
  return cpu.run(c);
}

// Integer reduction="mul" computed in float32 and converted back
// (saturating): exact only while the values stay below 2^24.
Outcome integer_mul_in_float(Backend& cpu, OpCall& c) {
  const Tensor* data = c.tensor("data");
  if (reduction_of_call(c) != "mul" || !data || !is_integral(data->dtype()) || data->dtype() == DType::Bool)
    return cpu.run(c);
  const OpCall original = c.deep_copy();
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs) return out;
  const std::vector<Write> writes = onnx_writes(original);
  if (writes.empty()) return out;
  const Tensor& updates = *original.tensor("updates");
  const Tensor& base = *original.tensor("data");
  const DType t = base.dtype();
  std::map<Shape, float> acc;
  for (const Write& w : writes) {
    auto it = acc.find(w.target);
    if (it == acc.end()) it = acc.emplace(w.target, static_cast<float>(read_int(base, w.target))).first;
    it->second *= static_cast<float>(read_int(updates, w.source));
  }
  const double lo = static_cast<double>(dtype_int_min(t)), hi = static_cast<double>(dtype_int_max(t));
  const Tensor& result = out.outputs.front();
  for (const auto& [target, value] : acc) {
    const double v = std::isnan(value) ? 0.0 : std::clamp(static_cast<double>(value), lo, hi);
    const int64_t i = v >= hi ? dtype_int_max(t) : v <= lo ? dtype_int_min(t) : static_cast<int64_t>(v);
    result.set_bits_at(target, bits_from_value(t, Value::of_int(i)));
  }
  return out;
}

// No bounds check on a gather: an index value past either end is clamped
// to the nearest valid one (as a gather lowered to a clamped take does).
Outcome gather_clamps(Backend& cpu, OpCall& c) {
  const Tensor& data = *c.tensor("data");
  const Tensor& indices = *c.tensor("indices");
  if (data.rank() < 1 || indices.rank() < 1 || (indices.dtype() != DType::Int32 && indices.dtype() != DType::Int64))
    return cpu.run(c);
  const auto clamp_to = [](int64_t v, int64_t s) { return s <= 0 ? v : std::clamp<int64_t>(v, -s, s - 1); };
  if (c.op == "onnx.GatherElements") {
    const auto dim = normalized_dim(c);
    if (!dim) return cpu.run(c);
    const int64_t s = data.size(*dim);
    c.tensors["indices"] = with_index_values(indices, [&](const Shape&, int64_t v) { return clamp_to(v, s); });
    return cpu.run(c);
  }
  const auto b = spec_of(c).arg_or_default(c, "batch_dims");
  const int64_t first = b ? b->i : 0;
  c.tensors["indices"] = with_index_values(indices, [&](const Shape& pos, int64_t v) {
    const int64_t d = first + pos.back();
    return d >= 0 && d < data.rank() ? clamp_to(v, data.size(d)) : v;
  });
  return cpu.run(c);
}

// GatherND's batch_dims ignored: the tuples index data from dim 0.
Outcome batch_dims_ignored(Backend& cpu, OpCall& c) {
  c.args.erase("batch_dims");
  return cpu.run(c);
}

// ScatterND with a reduction starts every indexed element from the
// reduction's identity instead of data's value (the existing value left
// out, as a kernel that zero-fills its output before accumulating does).
Outcome nd_reduction_excludes_data(Backend& cpu, OpCall& c) {
  const std::string r = reduction_of_call(c);
  if (r != "add" && r != "mul" && r != "max" && r != "min") return cpu.run(c);
  const std::vector<Write> writes = onnx_writes(c);
  if (writes.empty()) return cpu.run(c);
  const Tensor& data = *c.tensor("data");
  const DType t = data.dtype();
  Value identity = Value::of_int(r == "mul" ? 1 : 0);
  if (r == "max" || r == "min") {
    const bool max = r == "max";
    if (is_floating(t))
      identity =
          Value::of_float(max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
    else if (t == DType::Bool)
      identity = Value::of_int(max ? 0 : 1);
    else
      identity = Value::of_int(max ? dtype_int_min(t) : dtype_int_max(t));
  } else if (is_floating(t)) {
    identity = Value::of_float(r == "mul" ? 1.0 : 0.0);
  }
  const uint64_t bits = bits_from_value(t, identity);
  Tensor fresh = data.contiguous();
  for (const Write& w : writes) fresh.set_bits_at(w.target, bits);
  c.tensors["data"] = fresh;
  return cpu.run(c);
}

}  // namespace

void register_onnx(MutantRegistry& r) {
  r.add({"onnx-negative-not-normalised", "ONNX: a negative index is rejected (checked against [0, s), never + s)"},
        is_onnx, negative_not_normalised);
  r.add({"onnx-reduction-ignored", "ONNX: reduction='add' ignored, the 'none' kernel overwrites duplicates"},
        onnx_reduces, reduction_ignored);
  r.add({"onnx-max-min-as-add", "ONNX: reduction max / min emulated with the add kernel"}, onnx_reduces,
        max_min_as_add);
  r.add({"onnx-int-mul-in-float", "ONNX: integer reduction='mul' computed in float32 (inexact beyond 2^24)"},
        onnx_reduces, integer_mul_in_float);
  r.add({"onnx-gather-clamps-index", "ONNX: no bounds check on Gather*: out-of-range indices clamped"}, onnx_gathers,
        gather_clamps);
  r.add({"onnx-batch-dims-ignored", "ONNX: GatherND's batch_dims ignored (tuples index from dim 0)"}, is_gather_nd,
        batch_dims_ignored);
  r.add({"onnx-nd-reduction-excludes-data",
         "ONNX: ScatterND reduction starts from the identity, not the existing data value"},
        is_scatter_nd, nd_reduction_excludes_data);
}

}  // namespace sp::mutant
