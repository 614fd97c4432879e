// torch_scatter_reduce.cc — mutants of Tensor.scatter_reduce_ /
// torch.scatter_reduce, each a bug that real scatter-reduce kernels have
// had: the include_self flag ignored, NaN dropped by max/min (fmax
// semantics), integer mean truncated toward zero, the mean's count missing
// self, targets nobody indexes reset to the identity, and one reduction
// computed as another.
#include <cmath>
#include <limits>
#include <map>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_scatter_reduce(const OpSpec& op) { return op.id == "torch.scatter_reduce_" || op.id == "torch.scatter_reduce"; }

std::string reduce_of(const OpCall& c) { return c.string_arg("reduce").value_or(""); }
bool include_self(const OpCall& c) { return c.bool_arg("include_self").value_or(true); }

// The cpu backend's answer for `c` as a fresh contiguous tensor; nullopt when
// it is not a plain success (an error: the mutant then leaves the call alone).
std::optional<Tensor> cpu_result(Backend& cpu, const OpCall& c) {
  const Outcome o = dry_run(cpu, c);
  if (o.kind != Outcome::Kind::Outputs || o.outputs.size() != 1) return std::nullopt;
  return o.outputs.front().contiguous();
}

// How many index positions write each target (by its multi-index).
std::map<Shape, int64_t> hits_of(const OpCall& c) {
  std::map<Shape, int64_t> hits;
  for (const Write& w : writes_of(c)) ++hits[w.target];
  return hits;
}

// The mutant's answer: written into self for the in-place op (as a kernel
// would), a fresh output otherwise.
Outcome answer(OpCall& c, const Tensor& values) {
  if (!spec_of(c).in_place) return Outcome::of_outputs({values});
  const Tensor& self = *c.tensor("self");
  if (self.numel() > 0) {
    Shape pos(static_cast<size_t>(self.rank()), 0);
    do self.set_bits_at(pos, values.bits_at(pos));
    while (next_index(pos, self.shape()));
  }
  return Outcome::of_outputs({self});
}

// include_self=False read as the default True.
Outcome ignores_include_self(Backend& cpu, OpCall& c) {
  c.args.erase("include_self");
  return cpu.run(c);
}

// amax / amin skip NaN terms of src, as fmax / fmin do.
Outcome max_drops_nan(Backend& cpu, OpCall& c) {
  const std::string reduce = reduce_of(c);
  const Tensor& src = *c.tensor("src");
  if ((reduce != "amax" && reduce != "amin") || !is_floating(src.dtype())) return cpu.run(c);
  const double neutral =
      reduce == "amax" ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  c.tensors["src"] = remap(src.dtype(), src.shape(), [&](const Shape& pos) {
    const uint64_t bits = src.bits_at(pos);
    return bits_is_nan(src.dtype(), bits) ? bits_from_value(src.dtype(), Value::of_float(neutral)) : bits;
  });
  return cpu.run(c);
}

// mean as sum / count computed by the mutant: `divide(sum, count)` gives the
// element's bits; `count_of(hits)` the divisor it uses.
Outcome mean_from_sum(Backend& cpu, OpCall& c, const std::function<int64_t(int64_t hits)>& count_of,
                      const std::function<uint64_t(DType, uint64_t sum, int64_t count)>& divide) {
  OpCall sum_call = c;
  sum_call.set_arg("reduce", Arg::of_string("sum"));
  const std::optional<Tensor> sum = cpu_result(cpu, sum_call);
  std::optional<Tensor> result = cpu_result(cpu, c);
  if (!sum || !result) return cpu.run(c);
  for (const auto& [target, hits] : hits_of(c))
    result->set_bits_at(target, divide(result->dtype(), sum->bits_at(target), count_of(hits)));
  return answer(c, *result);
}

int64_t floor_div(int64_t n, int64_t d) { return n / d - (n % d != 0 && n < 0 ? 1 : 0); }

uint64_t divided(DType t, uint64_t sum, int64_t count, bool truncate) {
  const Value v = value_from_bits(t, sum);
  if (is_floating(t)) return bits_from_value(t, Value::of_float(v.f / static_cast<double>(count)));
  return bits_from_value(t, Value::of_int(truncate ? v.i / count : floor_div(v.i, count)));
}

// Integer mean divided with C's `/` (toward zero), not floor.
Outcome mean_truncates(Backend& cpu, OpCall& c) {
  const DType t = c.tensor("self")->dtype();
  if (reduce_of(c) != "mean" || is_floating(t) || t == DType::Bool) return cpu.run(c);
  const int64_t self_term = include_self(c) ? 1 : 0;
  return mean_from_sum(
      cpu, c, [&](int64_t hits) { return hits + self_term; },
      [](DType dt, uint64_t sum, int64_t count) { return divided(dt, sum, count, true); });
}

// The mean's count is the number of src terms only, even when self is one.
Outcome mean_count_misses_self(Backend& cpu, OpCall& c) {
  const DType t = c.tensor("self")->dtype();
  if (reduce_of(c) != "mean" || !include_self(c) || t == DType::Bool) return cpu.run(c);
  return mean_from_sum(
      cpu, c, [](int64_t hits) { return hits; },
      [](DType dt, uint64_t sum, int64_t count) { return divided(dt, sum, count, false); });
}

// include_self=False starts the whole output from zero, so targets nobody
// indexes lose self's value.
Outcome untouched_reset(Backend& cpu, OpCall& c) {
  if (include_self(c)) return cpu.run(c);
  std::optional<Tensor> result = cpu_result(cpu, c);
  if (!result) return cpu.run(c);
  const std::map<Shape, int64_t> hits = hits_of(c);
  if (result->numel() > 0) {
    Shape pos(static_cast<size_t>(result->rank()), 0);
    do
      if (!hits.count(pos)) result->set_bits_at(pos, 0);
    while (next_index(pos, result->shape()));
  }
  return answer(c, *result);
}

// "prod" dispatched to the sum kernel (a mode table off by one).
Outcome prod_as_sum(Backend& cpu, OpCall& c) {
  if (reduce_of(c) == "prod") c.set_arg("reduce", Arg::of_string("sum"));
  return cpu.run(c);
}

}  // namespace

void register_torch_scatter_reduce(MutantRegistry& r) {
  r.add({"scatter-reduce-ignores-include-self", "scatter_reduce treats include_self=False as True"}, is_scatter_reduce,
        ignores_include_self);
  r.add({"scatter-reduce-max-drops-nan", "scatter_reduce amax/amin skip NaN terms (fmax/fmin semantics)"},
        is_scatter_reduce, max_drops_nan);
  r.add({"scatter-reduce-mean-truncates", "integer scatter_reduce mean rounds toward zero instead of down"},
        is_scatter_reduce, mean_truncates);
  r.add({"scatter-reduce-mean-count-misses-self",
         "scatter_reduce mean divides by the number of src terms, leaving self out of the count"},
        is_scatter_reduce, mean_count_misses_self);
  r.add({"scatter-reduce-untouched-reset",
         "scatter_reduce with include_self=False resets elements no index points at to zero"},
        is_scatter_reduce, untouched_reset);
  r.add({"scatter-reduce-prod-as-sum", "scatter_reduce computes reduce='prod' as a sum"}, is_scatter_reduce,
        prod_as_sum);
}

}  // namespace sp::mutant
