// mutant_util.cc — see mutant_util.h.
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {

const OpSpec& spec_of(const OpCall& c) { return op_spec(c); }

const std::string& data_name(const OpCall& c) { return spec_of(c).data_operand; }

std::string source_name(const OpCall& c) {
  const OpSpec& op = spec_of(c);
  for (const OperandSpec& o : op.operands)
    if (!o.or_arg.empty()) return o.name;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Read && o.name != op.data_operand) return o.name;
  return op.data_operand;
}

std::string index_name(const OpCall& c) {
  for (const OperandSpec& o : spec_of(c).operands)
    if (o.role == OperandRole::Index) return o.name;
  return "index";
}

int64_t op_rank(const OpCall& c) {
  const int64_t r = c.tensor(data_name(c))->rank();
  return spec_of(c).dialect == "torch" && r == 0 ? 1 : r;
}

std::optional<int64_t> normalized_dim(const OpCall& c) {
  if (spec_of(c).family == ShapeFamily::RowScatter) return 0;
  // ONNX names it axis (absent: its default, 0).
  const int64_t r = op_rank(c), d = c.int_arg(spec_of(c).dialect == "onnx" ? "axis" : "dim").value_or(0);
  if (d < -r || d >= r) return std::nullopt;
  return d < 0 ? d + r : d;
}

int64_t indexed_size(const OpCall& c, int64_t dim) {
  const Tensor& t = *c.tensor(data_name(c));
  return t.rank() == 0 ? 1 : t.size(dim);
}

int64_t read_int(const Tensor& t, const Shape& pos) {
  const Value v = t.value_at(pos);
  return v.is_float ? static_cast<int64_t>(v.f) : v.i;
}

Tensor remap(DType dtype, const Shape& shape, const std::function<uint64_t(const Shape&)>& bits_at) {
  Tensor out = Tensor::zeros(dtype, shape);
  if (out.numel() == 0) return out;
  Shape pos(shape.size(), 0);
  do out.set_bits_at(pos, bits_at(pos));
  while (next_index(pos, shape));
  return out;
}

Tensor with_index_values(const Tensor& index, const std::function<int64_t(const Shape&, int64_t)>& fn) {
  return remap(index.dtype(), index.shape(), [&](const Shape& pos) {
    const int64_t v = fn(pos, read_int(index, pos));
    return bits_from_value(index.dtype(),
                           is_floating(index.dtype()) ? Value::of_float(static_cast<double>(v)) : Value::of_int(v));
  });
}

std::vector<Write> writes_of(const OpCall& c) {
  std::vector<Write> out;
  const auto dim = normalized_dim(c);
  const Tensor& index = *c.tensor(index_name(c));
  if (!dim || index.numel() == 0) return out;
  const int64_t s = indexed_size(c, *dim);
  if (spec_of(c).family == ShapeFamily::RowScatter) {
    const Tensor* source = c.tensor(source_name(c));
    if (!source || source->rank() == 0 || index.rank() != 1 || source->size(0) != index.size(0) ||
        checked_numel(source->shape()) == 0)
      return out;
    const Shape& us = source->shape();
    Shape pos(us.size(), 0);
    do {
      int64_t v = read_int(index, Shape{pos[0]});
      if (v < 0) v += s;  // where the call runs, Paddle >= 3.0 wraps it (PD-B3)
      if (v < 0 || v >= s) return {};
      Shape target = pos;
      target[0] = v;
      out.push_back({target, pos});
    } while (next_index(pos, us));
    return out;
  }
  // A 0-d operand is addressed as [0] by the dialect (logical rank 1) and
  // as {} physically: each position is given in its own tensor's rank.
  const Tensor& data = *c.tensor(data_name(c));
  const Tensor* source = c.tensor(source_name(c));
  Shape pos(index.shape().size(), 0);
  do {
    int64_t v = read_int(index, pos);
    if (v < 0) v += s;
    if (v < 0 || v >= s) return {};
    const Shape logical = pos.empty() ? Shape{0} : pos;
    Shape target = data.rank() == 0 ? Shape{} : logical;
    if (!target.empty()) target[static_cast<size_t>(*dim)] = v;
    out.push_back({target, source && source->rank() == 0 ? Shape{} : logical});
  } while (next_index(pos, index.shape()));
  return out;
}

Reduction reduction_of(const OpCall& c) {
  if (c.op == "torch.scatter_add_" || c.op == "torch.scatter_add") return Reduction::Add;
  if (const Arg* reduce = c.arg("reduce"); reduce && reduce->type == Arg::Type::String) {
    if (reduce->s == "add") return Reduction::Add;
    if (reduce->s == "multiply") return Reduction::Multiply;
  }
  if (c.bool_arg("overwrite") == false) return Reduction::Add;
  return Reduction::None;
}

Outcome dry_run(Backend& cpu, const OpCall& call) {
  OpCall scratch = call.deep_copy();
  return cpu.run(scratch);
}

bool is_error(const Outcome& o, ErrorCategory c) { return o.kind == Outcome::Kind::Error && o.error == c; }

Outcome index_wraps_negative(Backend& cpu, OpCall& c, bool int32_too) {
  const std::optional<int64_t> dim = normalized_dim(c);
  const Tensor& index = *c.tensor("index");
  if (!dim || (index.dtype() != DType::Int64 && !(int32_too && index.dtype() == DType::Int32))) return cpu.run(c);
  const int64_t size = indexed_size(c, *dim);
  c.tensors["index"] = with_index_values(index, [&](const Shape&, int64_t v) { return v < 0 ? v + size : v; });
  return cpu.run(c);
}

Outcome index_accepts_misshaped_source(Backend& cpu, OpCall& c) {
  const std::optional<int64_t> dim = normalized_dim(c);
  const Tensor& self = *c.tensor("self");
  const Tensor& index = *c.tensor("index");
  const Tensor& source = *c.tensor("source");
  if (!dim || self.rank() == 0 || source.rank() != self.rank() || source.size(*dim) != index.numel()) return cpu.run(c);
  Shape expected = self.shape();
  expected[static_cast<size_t>(*dim)] = index.numel();
  if (expected == source.shape()) return cpu.run(c);
  c.tensors["source"] = remap(source.dtype(), expected, [&](const Shape& pos) -> uint64_t {
    for (size_t d = 0; d < pos.size(); ++d)
      if (pos[d] >= source.shape()[d]) return 0;
    return source.bits_at(pos);
  });
  return cpu.run(c);
}

Outcome index_skips_first(Backend& cpu, OpCall& c) {
  const Tensor& index = *c.tensor("index");
  if (index.rank() != 1 || index.numel() < 1 || index.dtype() != DType::Int64) return cpu.run(c);
  const std::optional<int64_t> dim = normalized_dim(c);
  const Tensor* source = c.tensor("source");
  if (source) {
    const Tensor& self = *c.tensor("self");
    if (!dim || self.rank() == 0 || source->rank() != self.rank() || source->size(*dim) != index.numel())
      return cpu.run(c);
  }
  const int64_t m = index.numel() - 1;
  c.tensors["index"] = remap(DType::Int64, Shape{m}, [&](const Shape& pos) {
    return static_cast<uint64_t>(read_int(index, Shape{pos[0] + 1}));
  });
  if (!source) return cpu.run(c);
  const Tensor from_source = *source;  // the map entry is replaced below
  Shape shape = from_source.shape();
  shape[static_cast<size_t>(*dim)] = m;
  c.tensors["source"] = remap(from_source.dtype(), shape, [&](const Shape& pos) {
    Shape from = pos;
    from[static_cast<size_t>(*dim)] += 1;
    return from_source.bits_at(from);
  });
  return cpu.run(c);
}

}  // namespace sp::mutant
