// families_jax.cc — the builder of the jax.at.* family (x.at[idx].get /
// set / add / multiply / min / max): x of rank 1..3 (rarely 0), k in
// [1, rank(x)] (rarely one more: an error), indices B + [k] whose values are
// in range, negative and wrapping, negative past -dim, or past the end
// (up to 2^40: the int32 wrap of lax's fill mode), and updates
// B + x.shape[k:] of x's dtype, sometimes given in a shape that broadcasts to
// it, rarely in one that does not (an error). mode, fill_value,
// wrap_negative_indices and the promises are drawn by their types
// (gen_args.cc).
#include <algorithm>

#include "fuzz/gen_detail.h"
#include "reference/dialect_stablehlo.h"

namespace sp::fuzz::gen {

namespace {

int64_t index_value(Choices& c, int64_t dim) {
  switch (c.below(10)) {
    case 0:
    case 1:
      return -c.between(1, std::max<int64_t>(dim, 1));  // wraps to an in-range index
    case 2:
      return -dim - c.between(1, 2);  // still negative once wrapped
    case 3:
      return c.chance(75) ? dim + c.between(0, 2) : int64_t{1} << 40;  // past the end
    default:
      return dim == 0 ? 0 : c.between(0, dim - 1);
  }
}

// The updates' shape: `full`, or one that broadcasts to it (leading dims
// dropped, a dim of 1), rarely one that does not.
Shape updates_shape(Choices& c, Shape full) {
  const uint32_t r = c.below(20);
  if (r < 2 && !full.empty()) full.erase(full.begin(), full.begin() + c.between(1, static_cast<int64_t>(full.size())));
  if (r == 2 && !full.empty()) full[c.below(static_cast<uint32_t>(full.size()))] = 1;
  if (r == 3 && !full.empty()) full[c.below(static_cast<uint32_t>(full.size()))] += 1;
  return full;
}

}  // namespace

void jax_at_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  const int64_t rank = c.chance(3) ? 0 : c.between(1, 3);
  const Shape x = data_shape_of_rank(c, rank);
  int64_t k = rank == 0 ? 1 : c.between(1, rank);
  if (c.chance(4)) k = rank + 1;
  Shape batch(c.below(3));
  for (auto& s : batch) s = c.chance(8) ? 0 : c.between(1, 3);
  Shape index_shape = batch;
  index_shape.push_back(k);
  clamp_numel(index_shape);
  const DType it = pick_dtype_for(c, *g.roles.index);
  Tensor indices = Tensor::zeros(it, index_shape);
  if (is_integral(it) && it != DType::Bool)
    ref::stablehlo::for_each_position(index_shape, [&](const Shape& at) {
      const size_t j = static_cast<size_t>(at.back());
      const int64_t v = index_value(c, j < x.size() ? x[j] : 1);
      indices.set_bits_at(at, bits_from_value(it, Value::of_int(std::clamp(v, dtype_int_min(it), dtype_int_max(it)))));
    });
  g.put(*g.roles.data, data_tensor(c, t, x));
  g.put(*g.roles.index, std::move(indices));
  if (const OperandSpec* updates = g.op.operand("updates")) {
    Shape full(index_shape.begin(), index_shape.end() - 1);
    for (size_t d = static_cast<size_t>(std::min(k, rank)); d < x.size(); ++d) full.push_back(x[d]);
    clamp_numel(full);
    g.put(*updates, data_tensor(c, t, updates_shape(c, full)));
  }
}

}  // namespace sp::fuzz::gen
