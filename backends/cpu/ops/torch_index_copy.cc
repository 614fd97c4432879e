// torch_index_copy.cc — cpu kernels for Tensor.index_copy_ and
// torch.index_copy.
//
// Validate (backend_rules::check_torch_index_copy: T-D1, T-O1, T-IC2..
// T-IC5), scan the index values (self untouched on a bad one, T-IC7), then
// for every index position i, in order, copy source's slice i to self's
// slice index[i]: duplicates leave the last position's slice (one of the
// writers the document allows).
//
// The walk along dim and its parallel split are the family's
// (backends/cpu/slice_walk.h): each part walks i in order.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/common/arg_rules.h"
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/slice_walk.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

// Copies source's slice i to self's slice index[i], i in order.
void run_part(const SliceWalk& w, size_t element, int64_t o0, int64_t o1, int64_t l0, int64_t l1) {
  const auto e = static_cast<int64_t>(element);
  for (int64_t o = o0; o < o1; ++o) {
    const int64_t oa = w.outer_a[static_cast<size_t>(o)], op = w.outer_p[static_cast<size_t>(o)];
    for (size_t i = 0; i < w.index.size(); ++i) {
      const int64_t ta = oa + w.index[i] * w.along_a;
      const int64_t tp = op + static_cast<int64_t>(i) * w.along_p;
      for (int64_t l = l0; l < l1; ++l)
        std::memcpy(w.a + (ta + w.inner_a[static_cast<size_t>(l)]) * e,
                    w.p + (tp + w.inner_p[static_cast<size_t>(l)]) * e, element);
    }
  }
}

Outcome index_copy(CpuContext& cpu, const OpCall& call) {
  if (auto v = backend_rules::check_torch_index_copy(call)) return Outcome::of_error(v->category, v->message);
  IndexTarget prepared = prepare_index_target(cpu, call);
  if (prepared.done) return *prepared.done;
  const Tensor& target = prepared.target;
  const Tensor& index = *call.tensor("index");
  const int64_t dim = prepared.dim;

  const Tensor source_read = read_before_writes(cpu, *call.tensor("source"), target);
  const SliceWalk walk = make_slice_walk(target, &source_read, index_values(index), dim);
  const size_t element = dtype_size(target.dtype());
  for_each_slice_part(cpu.pool(), walk,
                      [&](int64_t o0, int64_t o1, int64_t l0, int64_t l1) { run_part(walk, element, o0, o1, l0, l1); });
  return Outcome::of_outputs({target});
}

}  // namespace

void register_torch_index_copy(CpuOps& ops) { ops.add_twins("torch.index_copy_", index_copy); }

}  // namespace sp::cpu
