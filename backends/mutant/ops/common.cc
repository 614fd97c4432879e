// common.cc — mutants of bugs that can live in any op's kernel: bounds,
// strides, dim normalization, lost reduction terms, bf16 accumulation,
// float bit patterns, an out-of-place op writing its input.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool any_op(const OpSpec&) { return true; }
// The element scatters whose writes writes_of() describes (index_* ops and
// take_along_dim have their own op files).
bool scatters(const OpSpec& op) {
  return op.family == ShapeFamily::ScatterElements || op.family == ShapeFamily::RowScatter;
}

Outcome reject_last_valid_index(Backend& cpu, OpCall& c) {
  if (dry_run(cpu, c).kind == Outcome::Kind::Outputs) {
    const int64_t s = indexed_size(c, *normalized_dim(c));
    const Tensor& index = *c.tensor(index_name(c));
    Shape pos(index.shape().size(), 0);
    if (index.numel() > 0) do {
        if (read_int(index, pos) == s - 1)
          return Outcome::of_error(ErrorCategory::IndexOutOfBounds, "index " + std::to_string(s - 1) + " >= size - 1");
      } while (next_index(pos, index.shape()));
  }
  return cpu.run(c);
}

// Reads the source operand as if contiguous from `start` (storage order).
MutantRun read_storage_order(bool keep_offset) {
  return [keep_offset](Backend& cpu, OpCall& c) {
    if (!c.tensor(source_name(c))) return cpu.run(c);  // the value overload reads no tensor
    Tensor& t = c.tensors[source_name(c)];
    if (t.is_contiguous() && (keep_offset || t.offset() == 0)) return cpu.run(c);
    const int64_t n = static_cast<int64_t>(t.storage_elements());
    const int64_t start = keep_offset ? t.offset() : 0;
    const Tensor original = t;
    int64_t linear = 0;
    t = remap(original.dtype(), original.shape(), [&](const Shape&) {
      return load_bits(original.dtype(), original.element_ptr((start + linear++) % std::max<int64_t>(n, 1)));
    });
    return cpu.run(c);
  };
}

Outcome negative_dim_off_by_one(Backend& cpu, OpCall& c) {
  if (const auto dim = c.int_arg("dim"); dim && *dim < 0 && *dim + op_rank(c) - 1 >= 0)
    c.set_arg("dim", Arg::of_int(*dim + op_rank(c) - 1));
  return cpu.run(c);
}

Outcome dim_modulo_rank(Backend& cpu, OpCall& c) {
  const int64_t r = op_rank(c);
  if (c.int_arg("dim") && r > 0 && is_error(dry_run(cpu, c), ErrorCategory::DimOutOfRange))
    c.set_arg("dim", Arg::of_int(((*c.int_arg("dim") % r) + r) % r));
  return cpu.run(c);
}

Outcome drop_duplicate_term(Backend& cpu, OpCall& c) {
  const Reduction reduction = reduction_of(c);
  if (reduction == Reduction::None || !c.tensor(source_name(c))) return cpu.run(c);
  std::map<Shape, int> hits;
  std::vector<Shape> lost;
  for (const Write& w : writes_of(c))
    if (++hits[w.target] == 2) lost.push_back(w.source);  // the second writer's update is lost
  if (lost.empty()) return cpu.run(c);
  Tensor& p = c.tensors[source_name(c)];
  const Tensor original = p;
  const bool multiply = reduction == Reduction::Multiply;
  const uint64_t identity = is_floating(p.dtype()) ? bits_from_value(p.dtype(), Value::of_float(multiply ? 1.0 : 0.0))
                                                   : bits_from_value(p.dtype(), Value::of_int(multiply ? 1 : 0));
  p = remap(original.dtype(), original.shape(), [&](const Shape& pos) {
    return std::find(lost.begin(), lost.end(), pos) != lost.end() ? identity : original.bits_at(pos);
  });
  return cpu.run(c);
}

// bf16 add-reductions accumulated in bf16 *and truncated* at every step
// (rounding per step stays inside the reference's interval; truncation of
// a single inexact sum does not).
Outcome bf16_truncating_accumulator(Backend& cpu, OpCall& c) {
  if (reduction_of(c) != Reduction::Add || c.tensor(data_name(c))->dtype() != DType::BFloat16 ||
      !c.tensor(source_name(c)))
    return cpu.run(c);
  const OpCall original = c.deep_copy();
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs) return out;
  const Tensor& result = out.outputs.front();
  const Tensor& src = *original.tensor(source_name(original));
  const Tensor& base = *original.tensor(data_name(original));
  // A row scatter accumulating adds into a zeroed row.
  const bool zero_first = spec_of(original).family == ShapeFamily::RowScatter;
  std::map<Shape, float> acc;
  for (const Write& w : writes_of(original)) {
    auto it = acc.find(w.target);
    if (it == acc.end())
      it = acc.emplace(w.target, zero_first ? 0.0f : static_cast<float>(base.value_at(w.target).f)).first;
    const float sum = it->second + static_cast<float>(src.value_at(w.source).f);
    uint32_t bits;
    std::memcpy(&bits, &sum, 4);
    bits &= 0xffff0000u;  // truncate to bf16
    if (std::isnan(sum)) bits = 0x7fc00000u;
    std::memcpy(&it->second, &bits, 4);
  }
  for (const auto& [target, value] : acc) result.set_bits_at(target, float_to_bf16_bits(value));
  return out;
}

Outcome canonicalize_bits(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs) return out;
  for (const Tensor& t : out.outputs) {
    if (!is_floating(t.dtype()) || t.numel() == 0) continue;
    Shape pos(t.shape().size(), 0);
    do {
      const Value v = t.value_at(pos);
      if (std::isnan(v.f))
        t.set_bits_at(pos, bits_from_value(t.dtype(), Value::of_float(std::nan(""))));
      else if (v.f == 0.0)
        t.set_bits_at(pos, bits_from_value(t.dtype(), Value::of_float(0.0)));
    } while (next_index(pos, t.shape()));
  }
  return out;
}

Outcome out_of_place_writes_input(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs) return out;
  const Tensor& input = *c.tensor(data_name(c));
  const Tensor& result = out.outputs.front();
  if (input.has_internal_overlap() || input.numel() == 0) return out;
  Shape pos(input.shape().size(), 0);
  do input.set_bits_at(pos, result.bits_at(pos));
  while (next_index(pos, input.shape()));
  return out;
}

}  // namespace

void register_common(MutantRegistry& r) {
  r.add({"bound-off-by-one", "index bound check `v >= size - 1` rejects the last valid index"}, any_op,
        reject_last_valid_index);
  r.add({"src-stride-ignored", "src/updates/input read as contiguous from its offset, strides ignored"}, any_op,
        read_storage_order(true));
  r.add({"src-storage-order", "src/updates/input read in storage order from the storage start"}, any_op,
        read_storage_order(false));
  r.add({"negative-dim-off-by-one", "negative dim normalized as dim + rank - 1"}, any_op, negative_dim_off_by_one);
  r.add({"drop-duplicate-term", "a reduction loses the second update to a slot (racy read-modify-write)"}, scatters,
        drop_duplicate_term);
  r.add({"bf16-truncating-accumulator", "bf16 add-reduction accumulated in bf16, truncated instead of rounded"},
        scatters, bf16_truncating_accumulator);
  r.add({"canonicalize-bits", "-0.0 becomes +0.0 and NaN payloads are lost in the output"}, any_op, canonicalize_bits);
  r.add(
      {"out-of-place-writes-input", "out-of-place scatter also writes its input"},
      [](const OpSpec& op) { return scatters(op) && !op.in_place; }, out_of_place_writes_input);
  r.add({"dim-modulo-rank", "out-of-range dim taken modulo rank instead of raising"}, any_op, dim_modulo_rank);
}

}  // namespace sp::mutant
