// torch_index_fill.cc — mutants of Tensor.index_fill_ / torch.index_fill,
// each a bug that real index_fill kernels have had: the fill applied along
// dim 0 whatever dim says (a kernel that flattens the outer dims away), a
// float value rounded to nearest instead of truncated for an integer self
// (a conversion through lround rather than c10's static_cast), and the loop
// over index positions starting at 1 (the first slice never filled).
#include <cmath>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_index_fill(const OpSpec& op) { return op.id == "torch.index_fill_" || op.id == "torch.index_fill"; }

// dim read as 0.
Outcome fills_dim0(Backend& cpu, OpCall& c) {
  const std::optional<int64_t> dim = normalized_dim(c);
  if (dim && *dim != 0) c.set_arg("dim", Arg::of_int(0));
  return cpu.run(c);
}

// A float value rounded to the nearest integer for an integer self.
Outcome value_rounds(Backend& cpu, OpCall& c) {
  const Tensor& self = *c.tensor("self");
  const auto value = c.scalar_arg("value");
  if (value && value->kind == Scalar::Kind::Float && is_integral(self.dtype()) && self.dtype() != DType::Bool &&
      std::isfinite(value->f))
    c.set_arg("value", Arg::of_scalar(Scalar::of_float(std::nearbyint(value->f))));
  return cpu.run(c);
}

}  // namespace

void register_torch_index_fill(MutantRegistry& r) {
  r.add({"index-fill-along-dim0", "index_fill fills along dim 0 whatever dim is"}, is_index_fill, fills_dim0);
  r.add({"index-fill-value-rounds", "index_fill rounds a float value to nearest for an integer self (2.7 -> 3)"},
        is_index_fill, value_rounds);
  r.add({"index-fill-skips-first", "index_fill starts its loop at position 1: the first slice is never filled"},
        is_index_fill, index_skips_first);
}

}  // namespace sp::mutant
