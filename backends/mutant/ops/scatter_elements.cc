// scatter_elements.cc — mutants of element-wise scatters along dim
// (ShapeFamily::ScatterElements: torch.scatter_ / scatter / scatter_add_ /
// scatter_add, mindspore.scatter_): src sizes, the scalar value overload,
// the reduce string.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool scatters_elements(const OpSpec& op) { return op.family == ShapeFamily::ScatterElements; }
bool has_value_overload(const OpSpec& op) {
  return scatters_elements(op) &&
         std::any_of(op.operands.begin(), op.operands.end(), [](const OperandSpec& o) { return !o.or_arg.empty(); });
}
bool has_reduce(const OpSpec& op) { return scatters_elements(op) && op.arg("reduce"); }

Outcome skip_src_size_check(Backend& cpu, OpCall& c) {
  auto src_it = c.tensors.find(source_name(c));
  const Tensor& index = *c.tensor(index_name(c));
  if (src_it == c.tensors.end() || src_it->second.rank() != index.rank()) return cpu.run(c);
  const Tensor src = src_it->second;
  Shape padded = src.shape();
  for (size_t d = 0; d < padded.size(); ++d) padded[d] = std::max(padded[d], index.shape()[d]);
  if (padded == src.shape()) return cpu.run(c);
  // The real kernel reads past src's end; here what lies there is zeros.
  src_it->second = remap(src.dtype(), padded, [&](const Shape& pos) -> uint64_t {
    for (size_t d = 0; d < pos.size(); ++d)
      if (pos[d] >= src.shape()[d]) return 0;
    return src.bits_at(pos);
  });
  return cpu.run(c);
}

Outcome value_to_positional_slots(Backend& cpu, OpCall& c) {
  const auto dim = normalized_dim(c);
  if (c.tensor(source_name(c)) || !c.scalar_arg("value") || !dim) return cpu.run(c);
  const int64_t s = indexed_size(c, *dim);
  Tensor& index = c.tensors["index"];
  if (s > 0 && index.rank() > 0)
    index = with_index_values(index, [&](const Shape& pos, int64_t) { return pos[static_cast<size_t>(*dim)] % s; });
  return cpu.run(c);
}

Outcome multiply_as_add(Backend& cpu, OpCall& c) {
  if (c.string_arg("reduce") == "multiply") c.set_arg("reduce", Arg::of_string("add"));
  return cpu.run(c);
}

Outcome value_rounds(Backend& cpu, OpCall& c) {
  const Tensor& self = *c.tensor(data_name(c));
  const auto value = c.scalar_arg("value");
  if (value && value->kind == Scalar::Kind::Float && is_integral(self.dtype()) && std::isfinite(value->f))
    c.set_arg("value", Arg::of_scalar(Scalar::of_float(std::nearbyint(value->f))));
  return cpu.run(c);
}

Outcome reduce_case_insensitive(Backend& cpu, OpCall& c) {
  if (const auto reduce = c.string_arg("reduce")) {
    std::string r;
    for (char ch : *reduce)
      if (!std::isspace(static_cast<unsigned char>(ch)))
        r += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.set_arg("reduce", Arg::of_string(r));
  }
  return cpu.run(c);
}

}  // namespace

void register_scatter_elements(MutantRegistry& r) {
  r.add({"no-src-size-check", "index.size(d) <= src.size(d) is not checked; reads past src's end"}, scatters_elements,
        skip_src_size_check);
  r.add({"value-wrong-slots", "value overload writes to the position's own slot, ignoring index values"},
        has_value_overload, value_to_positional_slots);
  r.add({"multiply-as-add", "reduce='multiply' dispatched to the add kernel"}, has_reduce, multiply_as_add);
  r.add({"value-rounds", "float value into an integer self rounds instead of truncating"}, has_value_overload,
        value_rounds);
  r.add({"reduce-case-insensitive", "reduce string lower-cased and trimmed before matching"}, has_reduce,
        reduce_case_insensitive);
}

}  // namespace sp::mutant
