// edge_classes.cc — mutants of the bug classes only hard inputs reach
// (issue 14): a large tensor's last chunk left unprocessed, a stride-0
// index fast path, int64 indices truncated to 32 bits, a scalar rounded
// on another path than c10's double rounding, a kernel that writes into an
// operand it only reads, a partial write before an error, a float sum that
// loses its last term.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool any_op(const OpSpec&) { return true; }
bool scatters(const OpSpec& op) {
  return op.family == ShapeFamily::ScatterElements || op.family == ShapeFamily::RowScatter;
}
bool has_index(const OpSpec& op) {
  return std::any_of(op.operands.begin(), op.operands.end(),
                     [](const OperandSpec& o) { return o.role == OperandRole::Index; });
}

// Position of row-major element k of `shape`.
Shape unravel(int64_t k, const Shape& shape) {
  Shape pos(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    pos[d] = k % shape[d];
    k /= shape[d];
  }
  return pos;
}

// The cpu backend goes parallel above 1 << 15 elements and hands out parts
// of 1 << 11; this bug loses the last part (a remainder, or a whole one).
constexpr int64_t kParallelFrom = int64_t{1} << 15;
constexpr int64_t kPart = int64_t{1} << 11;

void zero_tail(const Tensor& t) {
  const int64_t n = t.numel();
  if (n <= kParallelFrom) return;
  const int64_t tail = n % kPart == 0 ? kPart : n % kPart;
  for (int64_t k = n - tail; k < n; ++k) t.set_bits_at(unravel(k, t.shape()), 0);
}

Outcome large_tail_dropped(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs) return out;
  // What the unprocessed tail holds: here zeros (the real kernel leaves
  // whatever was there), in the result and in the written operand.
  for (const Tensor& t : out.outputs) zero_tail(t);
  for (const OperandSpec& o : spec_of(c).operands)
    if (o.role == OperandRole::InPlace || o.role == OperandRole::Out)
      if (const Tensor* t = c.tensor(o.name); t && !t->has_internal_overlap()) zero_tail(*t);
  return out;
}

// An index with a stride-0 dim takes a "broadcast" fast path that reads it
// along its innermost dim only, as if every outer dim had stride 0.
Outcome expanded_index_fast_path(Backend& cpu, OpCall& c) {
  const std::string name = index_name(c);
  const Tensor& index = *c.tensor(name);
  bool expanded = false;
  for (int64_t d = 0; d < index.rank(); ++d)
    expanded |= index.strides()[static_cast<size_t>(d)] == 0 && index.size(d) > 1;
  if (!expanded || index.numel() == 0) return cpu.run(c);
  const Tensor original = index;
  c.tensors[name] = remap(original.dtype(), original.shape(), [&](const Shape& pos) {
    Shape inner(pos.size(), 0);
    inner.back() = pos.back();
    return original.bits_at(inner);
  });
  return cpu.run(c);
}

Outcome index_truncated_to_int32(Backend& cpu, OpCall& c) {
  const std::string name = index_name(c);
  const Tensor& index = *c.tensor(name);
  if (index.dtype() != DType::Int64 || index.numel() == 0) return cpu.run(c);
  c.tensors[name] =
      with_index_values(index, [](const Shape&, int64_t v) { return static_cast<int64_t>(static_cast<int32_t>(v)); });
  return cpu.run(c);
}

// The other rounding path of a scalar: PyTorch (T-V1) and MindSpore
// (MS-V1) round a float scalar to float32 and then to float16 / bfloat16;
// this kernel rounds the double straight to the 16-bit dtype, which differs
// on halfway cases (1 + 2^-11 + 2^-40: 1 + 2^-10, not 1.0, in float16).
// Modelled by handing the cpu backend the directly rounded value (exact in
// the dtype, so its own conversion keeps it); values that would overflow
// are left alone.
Outcome scalar_rounded_directly(Backend& cpu, OpCall& c) {
  const Tensor* data = c.tensor(data_name(c));
  if (!data || (data->dtype() != DType::Float16 && data->dtype() != DType::BFloat16)) return cpu.run(c);
  for (auto& [name, arg] : c.args) {
    if (arg.type != Arg::Type::Scalar || arg.scalar.kind != Scalar::Kind::Float) continue;
    const double v = arg.scalar.f;
    if (!std::isfinite(v) || std::fabs(v) > dtype_max(data->dtype())) continue;
    const uint64_t bits = data->dtype() == DType::Float16 ? double_to_half_bits(v) : double_to_bf16_bits(v);
    const double direct = value_from_bits(data->dtype(), bits).f;
    if (std::isfinite(direct)) arg.scalar.f = direct;
  }
  return cpu.run(c);
}

// Scalar conversions that slip at a boundary (T-V1), each as a rewrite of
// the call's float scalars before the correct backend converts them.
// `rewrite` returns the scalar to pass instead, given self's dtype.
template <typename Rewrite>
Outcome rewrite_float_scalars(Backend& cpu, OpCall& c, Rewrite rewrite) {
  const Tensor* data = c.tensor(data_name(c));
  if (!data) return cpu.run(c);
  for (auto& [name, arg] : c.args)
    if (arg.type == Arg::Type::Scalar && arg.scalar.kind == Scalar::Kind::Float)
      arg.scalar.f = rewrite(data->dtype(), arg.scalar.f);
  return cpu.run(c);
}

// A value just over a 16-bit float's max is rounded into range (to max)
// instead of refused as c10 refuses it.
Outcome scalar_over_max_rounded(Backend& cpu, OpCall& c) {
  return rewrite_float_scalars(cpu, c, [](DType t, double v) {
    if (t != DType::Float16 && t != DType::BFloat16) return v;
    const double max = dtype_max(t);
    return std::isfinite(v) && std::fabs(v) > max && std::fabs(v) < max * (1 + 0x1p-8) ? std::copysign(max, v) : v;
  });
}

// A value whose 16-bit result is subnormal is flushed to zero (FTZ).
Outcome scalar_subnormal_flushed(Backend& cpu, OpCall& c) {
  return rewrite_float_scalars(cpu, c, [](DType t, double v) {
    if (t != DType::Float16 && t != DType::BFloat16) return v;
    const double smallest_normal = t == DType::Float16 ? 0x1p-14 : 0x1p-126;
    return std::fabs(v) < smallest_normal ? std::copysign(0.0, v) : v;
  });
}

// A fractional value into bool is truncated first (0.25 -> 0 -> False).
Outcome scalar_fraction_into_bool_truncated(Backend& cpu, OpCall& c) {
  return rewrite_float_scalars(
      cpu, c, [](DType t, double v) { return t == DType::Bool && std::isfinite(v) ? std::trunc(v) : v; });
}

// A sorted-runs kernel sorts the index in place (the caller's tensor).
Outcome index_sorted_in_place(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  const Tensor& index = *c.tensor(index_name(c));
  if (index.numel() < 2 || index.has_internal_overlap()) return out;
  for (const auto& [name, t] : c.tensors)
    if (name != index_name(c) && t.storage() == index.storage()) return out;
  std::vector<std::pair<int64_t, uint64_t>> keyed;
  Shape pos(index.shape().size(), 0);
  do keyed.emplace_back(read_int(index, pos), index.bits_at(pos));
  while (next_index(pos, index.shape()));
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  pos.assign(index.shape().size(), 0);
  size_t k = 0;
  do index.set_bits_at(pos, keyed[k++].second);
  while (next_index(pos, index.shape()));
  return out;
}

// An in-place element scatter that checks src lazily: it writes (casting
// src's values to self's dtype) the positions before the one where src runs
// out or an index value is out of range, then reports the error the call
// has. Errors of index values (checked while writing, SE-2) are left alone:
// only those a backend must raise before writing.
Outcome partial_write_before_error(Backend& cpu, OpCall& c) {
  Outcome err = dry_run(cpu, c);
  const Tensor* src = c.tensor(source_name(c));
  const Tensor& self = *c.tensor(data_name(c));
  const Tensor& index = *c.tensor(index_name(c));
  const auto dim = normalized_dim(c);
  if (err.kind != Outcome::Kind::Error || !err.error || *err.error == ErrorCategory::IndexOutOfBounds || !src ||
      src == &self || !dim || self.has_internal_overlap() || index.numel() == 0 || !is_integral(index.dtype()) ||
      self.rank() != index.rank() || src->rank() != index.rank())
    return cpu.run(c);
  const int64_t s = indexed_size(c, *dim);
  Shape pos(index.shape().size(), 0);
  do {
    int64_t v = read_int(index, pos);
    if (v < 0) v += s;
    if (v < 0 || v >= s) break;
    Shape target = pos;
    bool inside = true;
    for (size_t d = 0; d < pos.size(); ++d) {
      if (static_cast<int64_t>(d) == *dim) target[d] = v;
      inside &= target[d] < self.shape()[d] && pos[d] < src->shape()[d];
    }
    if (!inside) break;
    self.set_bits_at(target, bits_from_value(self.dtype(), src->value_at(pos)));
  } while (next_index(pos, index.shape()));
  return err;
}

// A float sum (add reductions, scatter_reduce's sum and mean) loses the
// last term of every target written more than once.
Outcome float_sum_drops_last_term(Backend& cpu, OpCall& c) {
  const Tensor* data = c.tensor(data_name(c));
  const auto reduce = c.string_arg("reduce");
  const bool scatter_reduce_sum = c.op.rfind("torch.scatter_reduce", 0) == 0 && (reduce == "sum" || reduce == "mean");
  if (!data || !is_floating(data->dtype()) || !c.tensor(source_name(c)) ||
      (reduction_of(c) != Reduction::Add && !scatter_reduce_sum))
    return cpu.run(c);
  std::map<Shape, std::pair<int, Shape>> last;  // target -> (writes, source of the last)
  for (const Write& w : writes_of(c)) {
    auto& [count, source] = last[w.target];
    ++count;
    source = w.source;
  }
  std::vector<Shape> lost;
  for (const auto& [target, entry] : last)
    if (entry.first >= 2) lost.push_back(entry.second);
  if (lost.empty()) return cpu.run(c);
  Tensor& p = c.tensors[source_name(c)];
  const Tensor original = p;
  const uint64_t zero = bits_from_value(p.dtype(), Value::of_float(0.0));
  p = remap(original.dtype(), original.shape(), [&](const Shape& pos) {
    return std::find(lost.begin(), lost.end(), pos) != lost.end() ? zero : original.bits_at(pos);
  });
  return cpu.run(c);
}

}  // namespace

void register_edge_classes(MutantRegistry& r) {
  r.add({"large-tail-dropped", "a result over 1 << 15 elements loses its last part of 1 << 11 (left unwritten)"},
        any_op, large_tail_dropped);
  r.add({"expanded-index-fast-path", "an index with a stride-0 dim is read along its innermost dim only"}, has_index,
        expanded_index_fast_path);
  r.add({"index-truncated-to-int32", "int64 index values cast to int32 before the bounds check and the access"},
        has_index, index_truncated_to_int32);
  r.add({"scalar-rounded-directly",
         "a float scalar rounded straight to float16 / bfloat16, not through float32 as c10 does (double rounding)"},
        any_op, scalar_rounded_directly);
  r.add({"scalar-over-max-rounded",
         "a float scalar just over float16's / bfloat16's max is rounded to max instead of refused (T-V1)"},
        any_op, scalar_over_max_rounded);
  r.add({"scalar-subnormal-flushed", "a float scalar whose float16 / bfloat16 value is subnormal is flushed to zero"},
        any_op, scalar_subnormal_flushed);
  r.add({"scalar-fraction-into-bool-truncated",
         "a fractional float scalar into bool is truncated first (0.25 becomes False, not True; T-V1)"},
        any_op, scalar_fraction_into_bool_truncated);
  r.add({"index-sorted-in-place", "the sorted-runs path sorts the caller's index in place (a read-only operand)"},
        has_index, index_sorted_in_place);
  r.add(
      {"partial-write-before-error",
       "an in-place scatter writes the positions before an out-of-range index value, then reports the error"},
      [](const OpSpec& op) { return op.family == ShapeFamily::ScatterElements && op.in_place; },
      partial_write_before_error);
  r.add({"float-sum-drops-last-term", "a float sum loses the last term of every target written more than once"},
        scatters, float_sum_drops_last_term);
}

}  // namespace sp::mutant
