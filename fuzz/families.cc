// families.cc — the builders of the element-wise and along-dim shape
// families (gather, scatter elements, row scatter, index along dim,
// take_along_dim) and family_gen(), the builder of each family.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "fuzz/gen_detail.h"

// family_gen()'s entries name only the facts that differ from the defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp::fuzz::gen {

namespace {

// A src shape near the index's: each dim sometimes one longer (valid), and
// sometimes one dim one shorter (index larger than src: invalid).
Shape source_shape_near(Choices& c, const Shape& x_shape) {
  Shape src_shape = x_shape;
  for (auto& d : src_shape)
    if (c.chance(25)) d += 1;
  if (checked_numel(src_shape) > t_max_elements) src_shape = x_shape;
  if (!src_shape.empty() && c.chance(3)) src_shape[c.below(static_cast<uint32_t>(src_shape.size()))] -= 1;
  for (auto& d : src_shape) d = std::max<int64_t>(d, 0);
  return src_shape;
}

// The draws gather and scatter cases share, in this order: the data
// operand's dtype and shape, dim, and an index shape within the data's
// (logical) shape; `size` is the data's size along dim (1 when dim is out of
// range), the bound of the index values.
struct ElementwiseShapes {
  DType dtype;
  Shape data, index;
  int64_t dim, size;
};
ElementwiseShapes draw_elementwise(Draw& g) {
  Choices& c = g.c;
  ElementwiseShapes e{pick_dtype_for(c, *g.roles.data), {}, {}, 0, 1};
  const int64_t rank = pick_rank(c);
  e.data = data_shape_of_rank(c, rank);
  const bool promoted = rank == 0 && g.knobs.rank0_as_one;
  const int64_t r = promoted ? 1 : rank;
  e.dim = g.draw_dim(r);
  const Shape logical = promoted ? Shape{1} : e.data;
  e.index = rank == 0 ? Shape{} : index_shape_within(c, logical, g.knobs.index_bounded_along_dim ? -1 : e.dim);
  if (e.dim >= 0 && e.dim < r) e.size = logical[static_cast<size_t>(e.dim)];
  return e;
}

// Rows of L for a row-shaped draw: just past the parallel threshold (the
// reference's cost grows with the elements; the cpu kernels' paths change
// at the threshold, not past it).
int64_t rows_past_threshold(Choices& c, int64_t L) {
  return c.between((kLargeMinElements + L - 1) / L, (kLargeMinElements + 4096 + L - 1) / L);
}

// Targets for K rows: at most 2K (the cpu kernels' per-thread accumulators
// take them with two threads), at least K / 4: a few terms per target, as
// the reference's cost grows with a target's terms (its float and gradient
// rules keep every term).
int64_t few_targets(Choices& c, int64_t K) { return c.between(std::max<int64_t>(1, K / 4), 2 * K); }

// The row-shaped scatter (row_shaped: a third of the large tier): data
// [S, L], an index [K, L] expanded along its rows (strides [1, 0]: one value
// per row, as an index built by expand; L = 1: all three 1-D), a source
// [K, L], dim 0, K * L just past the cpu kernels' parallel threshold. S is
// few_targets (the private accumulators) or past twice K (the target
// ranges; with L = 1 sometimes a few positions into 62 000 or more targets,
// past the cache); L narrow or wide (16 on: the sorted paths): the shapes of
// backends/cpu/scatter_kernel.cc's row reduction, sorted, private-accumulator
// and target-range paths, which other large draws rarely reach (an index
// varying along its rows splits by position).
void row_shaped_scatter(Draw& g) {
  Choices& c = g.c;
  static constexpr std::array<int64_t, 7> kRow = {1, 2, 8, 15, 16, 64, 256};
  const int64_t L = kRow[c.below(static_cast<uint32_t>(kRow.size()))];
  int64_t K = rows_past_threshold(c, L);
  int64_t S = c.chance(50) ? 2 * K + c.between(1, 64) : few_targets(c, K);
  if (L == 1 && c.chance(33)) {
    // A few positions into more targets than the cache holds (each prefetched ahead: visit).
    K = c.between(33, 4096);
    S = c.between(kMaxLargeElements - 8192, kMaxLargeElements);
  }
  if (g.knobs.index_bounded_along_dim) S = std::max(S, K);  // MindSpore's MS-S3: index.size(d) <= self.size(d)
  if (const ArgSpec* axis = axis_arg(g.op)) g.call.set_arg(axis->name, Arg::of_int(0));
  // Rows of 1: 1-D operands (the private accumulators' one-element rows).
  const auto shape = [&](int64_t n) { return L == 1 ? Shape{n} : Shape{n, L}; };
  g.put(*g.roles.data, data_tensor(c, pick_dtype_for(c, *g.roles.data), shape(S)));
  const Tensor values = index_tensor(c, g.element_index_dtype(), {K}, S, g.negatives_valid);
  if (L == 1)
    g.put(*g.roles.index, values);
  else
    g.call.tensors[g.roles.index->name] = Tensor::view(values.dtype(), {K, L}, {1, 0}, 0, values.storage());
  // The source in the data's dtype: these draws are for the kernels' paths (other draws mismatch them).
  g.put(*g.roles.source, data_tensor(c, g.call.tensor(g.roles.data->name)->dtype(), shape(K)));
}

// The row-shaped draw of index_*_ (row_shaped): self [S, L] along dim 0,
// an index of K positions, a source [K, L], K * L past the parallel
// threshold, rows from 16 on mostly (index_add_'s sorted row reduction).
void row_shaped_index_along_dim(Draw& g) {
  Choices& c = g.c;
  static constexpr std::array<int64_t, 4> kRow = {8, 16, 64, 256};
  const int64_t L = kRow[c.below(static_cast<uint32_t>(kRow.size()))];
  const int64_t K = rows_past_threshold(c, L);
  const int64_t S = few_targets(c, K);
  const DType t = pick_dtype_for(c, *g.roles.data);
  if (const ArgSpec* axis = axis_arg(g.op)) g.call.set_arg(axis->name, Arg::of_int(0));
  g.put(*g.roles.data, data_tensor(c, t, {S, L}));
  g.put(*g.roles.index, index_tensor(c, pick_dtype_for(c, *g.roles.index), {K}, S, g.negatives_valid));
  if (g.roles.source) g.put(*g.roles.source, data_tensor(c, t, {K, L}));
}

}  // namespace

// out = input gathered at index along dim.
void gather_case(Draw& g) {
  Choices& c = g.c;
  ElementwiseShapes e = draw_elementwise(g);
  if (c.chance(3)) e.index = change_rank(c, e.index);
  g.put(*g.roles.data, data_tensor(c, e.dtype, e.data));
  g.put(*g.roles.index, index_tensor(c, g.element_index_dtype(), e.index, e.size, g.negatives_valid));
}

// self[... index ...] = src[...] (or the scalar alternative), along dim.
void scatter_elements_case(Draw& g) {
  Choices& c = g.c;
  if (row_shaped(c, 33)) return row_shaped_scatter(g);
  ElementwiseShapes e = draw_elementwise(g);
  const OperandSpec& source = *g.roles.source;
  const bool use_arg = !source.or_arg.empty() && c.chance(25);
  // An op that broadcasts its index (paddle.put_along_axis's `broadcast`):
  // half the time every dim but dim is 1 or the data's size (else the
  // broadcast is refused, as a smaller index mostly is).
  if (g.op.arg("broadcast") && e.index.size() == e.data.size() && c.chance(50)) {
    for (size_t d = 0; d < e.index.size(); ++d)
      if (static_cast<int64_t>(d) != e.dim) e.index[d] = c.below(2) ? 1 : e.data[d];
    clamp_numel(e.index);
  }
  Shape src_shape = source_shape_near(c, e.index);
  if (g.knobs.source_shape_is_index) {
    src_shape = e.index;
    if (!src_shape.empty() && c.chance(4)) {
      const size_t d = c.below(static_cast<uint32_t>(src_shape.size()));
      src_shape[d] = std::max<int64_t>(0, src_shape[d] + (c.below(2) ? 1 : -1));
    }
  }
  if (c.chance(3)) e.index = change_rank(c, e.index);
  g.put(*g.roles.data, data_tensor(c, e.dtype, e.data));
  g.put(*g.roles.index, index_tensor(c, g.element_index_dtype(), e.index, e.size, g.negatives_valid));
  if (use_arg) {
    if (const ArgSpec* alternative = g.op.arg(source.or_arg)) {
      ArgSpec given = *alternative;  // standing in for the operand: never absent
      given.required = true;
      draw_arg(c, given, g.call);
    }
    return;
  }
  const DType src_t = c.chance(3) ? pick_dtype_for(c, source) : e.dtype;
  g.put(source, data_tensor(c, src_t, src_shape));
}

// x[index[i], ...] = updates[i, ...]: rows of x addressed by a 1-D index.
void row_scatter_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  int64_t rank = pick_rank(c);
  if (rank == 0 && !c.chance(50)) rank = 1;  // x of rank 0 is an error: keep it rarer
  Shape x_shape = data_shape_of_rank(c, rank);
  // Row-shaped (row_shaped: half the large tier): x [S, L], updates past the
  // parallel threshold, S few (the cpu kernels' per-thread accumulators;
  // sorted rows from 16 on) or more than twice the updates' rows (their
  // target ranges, where accumulators of S rows would not fit).
  const bool by_rows = row_shaped(c, 50);
  int64_t row = 1, m = 0;
  if (by_rows) {
    static constexpr std::array<int64_t, 6> kRow = {1, 2, 8, 15, 16, 64};
    row = kRow[c.below(static_cast<uint32_t>(kRow.size()))];
    m = rows_past_threshold(c, row);
    x_shape = {c.chance(50) ? 2 * m + c.between(1, 64) : few_targets(c, m), row};
  }
  const int64_t rows = x_shape.empty() ? 1 : x_shape[0];
  if (!by_rows)
    m = c.chance(10) ? 0
                     : c.between(1, std::min<int64_t>(std::max<int64_t>(rows, 1) + 1, t_large ? t_max_elements : 5));
  Shape updates_shape = x_shape.empty() ? Shape{m} : x_shape;
  updates_shape[0] = m;
  clamp_numel(updates_shape);
  const int64_t m_final = updates_shape[0];
  Shape index_shape{m_final};
  if (c.chance(3)) index_shape = Shape{m_final, 1};
  if (c.chance(3)) updates_shape = change_rank(c, updates_shape);
  const DType index_t = pick_dtype_for(c, *g.roles.index);
  g.put(*g.roles.data, data_tensor(c, t, x_shape));
  g.put(*g.roles.index, index_tensor(c, index_t, index_shape, rows, g.negatives_valid));
  const DType u_t = c.chance(3) ? pick_dtype_for(c, *g.roles.source) : t;
  g.put(*g.roles.source, data_tensor(c, u_t, updates_shape));
}

// self.index_*_(dim, index, source): a 1-D index (sometimes 0-d, sometimes
// 2-D, an error) of positions along dim, values at the edges as for the
// other families; source (when the op has one) is self's shape with dim
// replaced by len(index), sometimes one off in a dim (an error).
void index_along_dim_case(Draw& g) {
  Choices& c = g.c;
  if (row_shaped(c, 33)) return row_shaped_index_along_dim(g);
  const DType t = pick_dtype_for(c, *g.roles.data);
  const int64_t rank = pick_rank(c);
  Shape data_shape = data_shape_of_rank(c, rank);
  const int64_t r = std::max<int64_t>(rank, 1);  // a 0-d tensor has one dim to index
  const int64_t dim = g.draw_dim(r);
  const bool dim_ok = dim >= -r && dim < r;
  const int64_t d = dim < 0 ? dim + r : dim;
  const int64_t s = !dim_ok ? 1 : rank == 0 ? 1 : data_shape[static_cast<size_t>(d)];
  const int64_t m = c.chance(10) ? 0 : c.between(1, t_large ? std::min<int64_t>(2 * s + 1, t_max_elements) : 6);
  Shape index_shape{m};
  if (m == 1 && c.chance(20)) index_shape = Shape{};  // a 0-d index
  if (c.chance(4)) index_shape = Shape{m, 1};         // 2-D: an error
  g.put(*g.roles.data, data_tensor(c, t, data_shape));
  g.put(*g.roles.index, index_tensor(c, pick_dtype_for(c, *g.roles.index), index_shape, s, g.negatives_valid));
  if (!g.roles.source) return;
  Shape source_shape = data_shape;
  if (dim_ok && rank > 0) source_shape[static_cast<size_t>(d)] = checked_numel(index_shape);
  if (!source_shape.empty() && c.chance(4)) {
    const size_t k = c.below(static_cast<uint32_t>(source_shape.size()));
    source_shape[k] = std::max<int64_t>(0, source_shape[k] + (c.below(2) ? 1 : -1));
  }
  clamp_numel(source_shape);
  // A 0-d source where [1] is expected, or [1] where 0-d is: the same
  // logical shape, another physical one (torch's T-IA8 takes it, T-IA14
  // from 2.3 does not).
  if (g.knobs.rank0_as_one && (source_shape.empty() || source_shape == Shape{1}) && c.chance(10))
    source_shape = source_shape.empty() ? Shape{1} : Shape{};
  const DType source_t = c.chance(3) ? pick_dtype_for(c, *g.roles.source) : t;
  g.put(*g.roles.source, data_tensor(c, source_t, source_shape));
}

// torch.take_along_dim(input, indices, dim=None) and paddle.take_along_axis
// (axis required: always the first branch). With dim (3 in 4):
// indices has input's rank and, in every dim but dim, input's size, a 1
// (indices broadcasts), or input has the 1 (input broadcasts); sometimes a
// size that broadcasts neither way or another rank (errors). Along dim any
// length (0 sometimes). Without dim: any two shapes, values bounded by
// input.numel(). Index values at the edges as for the other families.
void take_along_dim_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  const int64_t rank = pick_rank(c);
  Shape input_shape = data_shape_of_rank(c, rank);
  const DType index_t = pick_dtype_for(c, *g.roles.index);
  const ArgSpec* axis = axis_arg(g.op);              // paddle.take_along_axis's axis is required
  if ((!axis || !axis->required) && c.chance(25)) {  // dim=None
    Shape index_shape = pick_shape(c, pick_rank(c));
    clamp_numel(index_shape);
    g.put(*g.roles.data, data_tensor(c, t, input_shape));
    g.put(*g.roles.index, index_tensor(c, index_t, index_shape, checked_numel(input_shape), g.negatives_valid));
    return;
  }
  const int64_t r = std::max<int64_t>(rank, 1);  // a 0-d tensor has one dim
  const int64_t dim = g.draw_dim(r);
  const bool dim_ok = dim >= 0 && dim < r;
  Shape index_shape = input_shape;
  for (size_t k = 0; k < index_shape.size(); ++k) {
    if (dim_ok && static_cast<int64_t>(k) == dim) {
      index_shape[k] = c.chance(8) ? 0 : c.between(1, 5);
      continue;
    }
    switch (c.below(12)) {
      case 0:
      case 1:
        index_shape[k] = 1;  // indices broadcasts
        break;
      case 2:
      case 3:
        input_shape[k] = 1;  // input broadcasts
        index_shape[k] = pick_size(c);
        break;
      case 4:  // neither broadcasts: an error
        input_shape[k] = std::max<int64_t>(input_shape[k], 2);
        index_shape[k] = input_shape[k] + 1;
        break;
      default:
        break;  // equal
    }
  }
  clamp_numel(input_shape);
  clamp_numel(index_shape);
  if (c.chance(5)) index_shape = change_rank(c, index_shape);
  const int64_t s = !dim_ok || rank == 0 ? 1 : input_shape[static_cast<size_t>(dim)];
  g.put(*g.roles.data, data_tensor(c, t, input_shape));
  g.put(*g.roles.index, index_tensor(c, index_t, index_shape, s, g.negatives_valid));
}

const FamilyGen& family_gen(const OpSpec& op) {
  using S = FamilyGen::Source;
  static const std::map<ShapeFamily, FamilyGen> kFamilies = {
      {ShapeFamily::Gather, {.build = gather_case, .source = S::None}},
      {ShapeFamily::ScatterElements, {.build = scatter_elements_case}},
      {ShapeFamily::RowScatter, {.build = row_scatter_case, .axis = false}},
      // index_select reads input along dim and has no source.
      {ShapeFamily::IndexAlongDim, {.build = index_along_dim_case, .source = S::Optional}},
      {ShapeFamily::TakeAlongDim, {.build = take_along_dim_case, .source = S::None}},
      {ShapeFamily::GatherND, {.build = gather_nd_case, .source = S::None, .axis = false, .own_arg = "batch_dims"}},
      // paddle.scatter_nd has no source: its updates is the data role, its shape an argument.
      {ShapeFamily::ScatterND, {.build = scatter_nd_case, .source = S::Optional, .axis = false, .own_arg = "shape"}},
      {ShapeFamily::StableHloGather,
       {.build = stablehlo_gather_case, .source = S::None, .axis = false, .own_arg = "index_vector_dim"}},
      {ShapeFamily::StableHloScatter, {.build = stablehlo_scatter_case, .axis = false, .own_arg = "index_vector_dim"}},
      {ShapeFamily::JaxAt, {.build = jax_at_case, .source = S::Optional, .axis = false}},
  };
  const auto it = kFamilies.find(op.family);
  if (it == kFamilies.end())
    throw std::logic_error("op table entry " + op.id + ": the generator has no shape family builder for it");
  return it->second;
}

}  // namespace sp::fuzz::gen
