// torch_index_fill.cc — cpu kernels for Tensor.index_fill_ and
// torch.index_fill.
//
// Validate (backend_rules::check_torch_index_fill: T-IF2, T-D1, T-IF3,
// T-IF4), scan the index values for [-S, S) (self untouched on a bad one,
// T-IF5), then store value in every element of self's slice index[i],
// i in order. A negative value in range is wrapped Python-style, as LibTorch
// 1.13 does (the document is silent, T-IF6: the reference allows any
// outcome there). An in-place self whose elements alias is written through
// the aliases (T-IF7, also unspecified).
//
// The walk along dim and its parallel split are the family's
// (backends/cpu/slice_walk.h): no two parts write one element.
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

Outcome index_fill(CpuContext& cpu, const OpCall& call) {
  uint64_t value_bits = 0;
  if (auto v = backend_rules::check_torch_index_fill(call, &value_bits))
    return Outcome::of_error(v->category, v->message);
  IndexTarget prepared = prepare_index_target(cpu, call, /*negatives_in_range=*/true);
  if (prepared.done) return *prepared.done;
  const Tensor& target = prepared.target;
  const Tensor& index = *call.tensor("index");
  const int64_t dim = prepared.dim;
  const int64_t size = prepared.size;

  std::vector<int64_t> rows = index_values(index);
  for (int64_t& v : rows) v = v < 0 ? v + size : v;  // wrapped as LibTorch 1.13 does (T-IF6)
  const SliceWalk walk = make_slice_walk(target, nullptr, std::move(rows), dim);
  const size_t element = dtype_size(target.dtype());
  const auto e = static_cast<int64_t>(element);
  // Aliased elements (T-IF7) are written by one thread.
  for_each_slice_part(
      cpu.pool(), walk,
      [&](int64_t o0, int64_t o1, int64_t l0, int64_t l1) {
        for (int64_t o = o0; o < o1; ++o)
          for (int64_t row : walk.index) {
            const int64_t base = walk.outer_a[static_cast<size_t>(o)] + row * walk.along_a;
            for (int64_t l = l0; l < l1; ++l)  // little-endian: the element is value_bits' low bytes
              std::memcpy(walk.a + (base + walk.inner_a[static_cast<size_t>(l)]) * e, &value_bits, element);
          }
      },
      /*serial=*/target.has_internal_overlap());
  return Outcome::of_outputs({target});
}

}  // namespace

void register_torch_index_fill(CpuOps& ops) { ops.add_twins("torch.index_fill_", index_fill); }

}  // namespace sp::cpu
