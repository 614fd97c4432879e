// torch_index_reduce.cc — mutants of Tensor.index_reduce_ /
// torch.index_reduce, each a bug that real index/scatter-reduce kernels
// have had: the include_self flag ignored, "amax"/"amin" dispatched to the
// sum kernel (a mode table off by one: index_add_ run instead), and the
// mean's count leaving self out although include_self=True.
#include <vector>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_index_reduce(const OpSpec& op) { return op.id == "torch.index_reduce_" || op.id == "torch.index_reduce"; }

std::string reduce_of(const OpCall& c) { return c.string_arg("reduce").value_or(""); }

// include_self=False read as the default True.
Outcome ignores_include_self(Backend& cpu, OpCall& c) {
  c.args.erase("include_self");
  return cpu.run(c);
}

// The same call as torch.index_add_ / torch.index_add (alpha 1).
OpCall as_index_add(const OpCall& c) {
  OpCall sum = c;
  sum.op = spec_of(c).in_place ? "torch.index_add_" : "torch.index_add";
  sum.args.erase("reduce");
  sum.args.erase("include_self");
  bind_call(sum);
  return sum;
}

// "amax" / "amin" computed as a sum of the terms (self included as given).
Outcome max_as_sum(Backend& cpu, OpCall& c) {
  const std::string reduce = reduce_of(c);
  if (reduce != "amax" && reduce != "amin") return cpu.run(c);
  OpCall sum = as_index_add(c);
  return cpu.run(sum);
}

// "mean" with include_self=True divides self + the terms by the number of
// terms alone (a count array started from zeros instead of ones).
Outcome mean_count_misses_self(Backend& cpu, OpCall& c) {
  const Tensor& self = *c.tensor("self");
  const Tensor& index = *c.tensor("index");
  const std::optional<int64_t> dim = normalized_dim(c);
  if (reduce_of(c) != "mean" || !c.bool_arg("include_self").value_or(true) || !is_floating(self.dtype()) || !dim ||
      index.rank() > 1 || (index.dtype() != DType::Int32 && index.dtype() != DType::Int64) || self.numel() == 0)
    return cpu.run(c);
  const int64_t size = indexed_size(c, *dim);
  std::vector<int64_t> hits(static_cast<size_t>(size), 0);
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t v = read_int(index, index.rank() == 0 ? Shape{} : Shape{i});
    if (v < 0 || v >= size) return cpu.run(c);  // the error is the kernel's to report
    ++hits[static_cast<size_t>(v)];
  }
  const Outcome sum = dry_run(cpu, as_index_add(c));
  if (sum.kind != Outcome::Kind::Outputs || sum.outputs.size() != 1) return cpu.run(c);
  const Tensor total = sum.outputs.front().contiguous();
  const Outcome right = cpu.run(c);
  if (right.kind != Outcome::Kind::Outputs || right.outputs.size() != 1) return right;
  const Tensor& out = right.outputs.front();
  Shape pos(static_cast<size_t>(out.rank()), 0);
  do {
    const int64_t row = out.rank() == 0 ? 0 : pos[static_cast<size_t>(*dim)];
    const int64_t n = hits[static_cast<size_t>(row)];
    if (n == 0) continue;
    const double s = value_from_bits(out.dtype(), total.bits_at(pos)).as_double();
    out.set_bits_at(pos, bits_from_value(out.dtype(), Value::of_float(s / static_cast<double>(n))));
  } while (next_index(pos, out.shape()));
  return right;
}

}  // namespace

void register_torch_index_reduce(MutantRegistry& r) {
  r.add({"index-reduce-ignores-include-self", "index_reduce treats include_self=False as True"}, is_index_reduce,
        ignores_include_self);
  r.add({"index-reduce-max-as-sum", "index_reduce computes reduce='amax'/'amin' as a sum (index_add_)"},
        is_index_reduce, max_as_sum);
  r.add({"index-reduce-mean-count-misses-self",
         "index_reduce mean with include_self=True divides by the number of source terms, leaving self out"},
        is_index_reduce, mean_count_misses_self);
}

}  // namespace sp::mutant
