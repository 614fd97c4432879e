// families_stablehlo.cc — the builders of StableHLO's gather and scatter
// families: dimension numbers drawn with the shapes (int-list arguments),
// start index vectors along index_vector_dim, sometimes a batching dim, and
// index values mostly in range, sometimes beyond it (gather clamps, scatter
// drops). indices_are_sorted / unique_indices and update_computation are
// drawn by their declared types (gen_args.cc), so a promise that does not
// hold (unspecified, SH-G-U1 / SH-S-U1 / SH-S-U2) is drawn too. One call in
// ten breaks one constraint (an error).
// jax.lax.gather / jax.lax.scatter share the builders: lax has no
// index_vector_dim (the index vector is always the indices' last dim) and
// names scatter's batching dims operand_batching_dims; their starts are drawn
// per window (lax_starts) with windows partly and wholly out of range and
// before the start as often as in range, so each mode's window rule is hit.
// mode and fill_value are drawn by their types (gen_args.cc).
#include <algorithm>

#include "fuzz/gen_detail.h"
#include "reference/dialect_stablehlo.h"

namespace sp::fuzz::gen {

namespace {

using Dims = std::vector<int64_t>;

// `n` distinct axes of [0, rank), in a random order.
Dims pick_axes(Choices& c, int64_t rank, int64_t n) {
  Dims all(static_cast<size_t>(rank));
  for (int64_t a = 0; a < rank; ++a) all[static_cast<size_t>(a)] = a;
  for (size_t k = all.size(); k > 1; --k) std::swap(all[k - 1], all[c.below(static_cast<uint32_t>(k))]);
  all.resize(static_cast<size_t>(std::min(n, rank)));
  return all;
}
Dims sorted_axes(Choices& c, int64_t rank, int64_t n) {
  Dims d = pick_axes(c, rank, n);
  std::sort(d.begin(), d.end());
  return d;
}
bool has(const Dims& d, int64_t v) { return std::find(d.begin(), d.end(), v) != d.end(); }

// What the two builders share: the operand's batching and indexed axes and
// the index tensor's shape (batch dims, the index vector at ivd).
struct Layout {
  Shape operand;
  Dims batching, index_batching, index_map, collapsed;
  int64_t ivd = 0;
  Shape indices;
};

// `lax`: the index vector is the last dim, even for a single start.
Layout draw_layout(Choices& c, const Shape& operand, bool batching_allowed, bool lax) {
  Layout l{operand, {}, {}, {}, {}, 0, {}};
  const int64_t r = static_cast<int64_t>(operand.size());
  if (batching_allowed && r >= 2 && c.chance(25)) l.batching = {c.between(0, r - 1)};
  Dims free;
  for (int64_t a = 0; a < r; ++a)
    if (!has(l.batching, a)) free.push_back(a);
  const Dims chosen = pick_axes(c, static_cast<int64_t>(free.size()), c.between(1, static_cast<int64_t>(free.size())));
  for (int64_t k : chosen) l.index_map.push_back(free[static_cast<size_t>(k)]);
  for (int64_t a : l.index_map)
    if (c.chance(50)) l.collapsed.push_back(a);
  std::sort(l.collapsed.begin(), l.collapsed.end());
  Shape batch(c.below(3));
  for (auto& s : batch) s = c.chance(8) ? 0 : c.between(1, 3);
  for (int64_t a : l.batching) {  // the index's batching dim, somewhere among the batch dims
    const int64_t at = c.between(0, static_cast<int64_t>(batch.size()));
    batch.insert(batch.begin() + at, operand[static_cast<size_t>(a)]);
    l.index_batching.push_back(at);
  }
  const int64_t k = static_cast<int64_t>(l.index_map.size());
  l.ivd = lax || (k == 1 && c.chance(30)) ? static_cast<int64_t>(batch.size())
                                          : c.between(0, static_cast<int64_t>(batch.size()));
  l.indices = batch;
  if (l.ivd < static_cast<int64_t>(batch.size()) || k != 1 || lax) {
    l.indices.insert(l.indices.begin() + l.ivd, k);
    for (int64_t& b : l.index_batching) b += b >= l.ivd ? 1 : 0;
  }
  return l;
}

// A lax op (jax.lax.*): no index_vector_dim argument.
bool is_lax(const Draw& g) { return g.op.arg("index_vector_dim") == nullptr; }

// lax's starts: per window and indexed axis (window size w in dim n), in
// range [0, n - w] half the time, else partly out past the end, wholly out,
// or negative (lax does not wrap); clamped to the index dtype.
Tensor lax_starts(Choices& c, DType t, const Layout& l, const Shape& window) {
  Tensor out = Tensor::zeros(t, l.indices);
  const Shape batch(l.indices.begin(), l.indices.end() - 1);
  ref::stablehlo::for_each_position(batch, [&](const Shape& b) {
    Shape at = b;
    at.push_back(0);
    for (size_t k = 0; k < l.index_map.size(); ++k) {
      const size_t axis = static_cast<size_t>(l.index_map[k]);
      const int64_t n = l.operand[axis], w = window[axis];
      int64_t v = c.between(0, std::max<int64_t>(n - w, 0));
      switch (c.below(8)) {
        case 0:
          v = w > 1 ? c.between(n - w + 1, n - 1) : n;  // partly out past the end
          break;
        case 1:
          v = c.chance(80) ? n + c.between(0, 3) : int64_t{1} << 40;  // wholly out
          break;
        case 2:
          v = c.chance(80) ? -c.between(1, std::max<int64_t>(w, 1)) : -(int64_t{1} << 40);  // before the start
          break;
        default:
          break;
      }
      at.back() = static_cast<int64_t>(k);
      out.set_bits_at(at, bits_from_value(t, Value::of_int(std::clamp(v, dtype_int_min(t), dtype_int_max(t)))));
    }
  });
  return out;
}

// `window`: the window's size along each operand axis (lax ops' starts).
Tensor start_indices(Draw& g, const Layout& l, const Shape& window) {
  const DType t = pick_dtype_for(g.c, *g.roles.index);
  if (is_lax(g) && t != DType::Bool && is_integral(t) && !window.empty()) return lax_starts(g.c, t, l, window);
  const int64_t s = l.operand.empty() ? 1 : *std::max_element(l.operand.begin(), l.operand.end());
  return index_tensor(g.c, t, l.indices, s, true);
}

void set_common(Draw& g, const Layout& l, const char* batching, const char* index_batching, const char* map,
                const char* collapsed) {
  if (!l.batching.empty() || g.c.chance(20)) {
    g.call.set_arg(batching, Arg::of_ints(l.batching));
    g.call.set_arg(index_batching, Arg::of_ints(l.index_batching));
  }
  g.call.set_arg(map, Arg::of_ints(l.index_map));
  g.call.set_arg(collapsed, Arg::of_ints(l.collapsed));
  if (!is_lax(g)) g.call.set_arg("index_vector_dim", Arg::of_int(l.ivd));
}

// One constraint broken in one call of ten: a list grows an out-of-range
// axis, or index_vector_dim moves past the index's rank.
void maybe_break(Draw& g, const std::vector<const char*>& lists) {
  if (!g.c.chance(10)) return;
  const char* name = lists[g.c.below(static_cast<uint32_t>(lists.size()))];
  if (g.c.chance(30) && !is_lax(g)) {
    g.call.set_arg("index_vector_dim", Arg::of_int(g.call.arg("index_vector_dim")->i + 2));
    return;
  }
  std::vector<int64_t> v = g.call.arg(name) ? g.call.arg(name)->ints : std::vector<int64_t>{};
  v.push_back(g.c.chance(50) ? 7 : -1);
  g.call.set_arg(name, Arg::of_ints(std::move(v)));
}

}  // namespace

// stablehlo.gather / dynamic_gather(operand, start_indices[, slice_sizes]).
void stablehlo_gather_case(Draw& g) {
  Choices& c = g.c;
  const bool dynamic = g.op.operand("slice_sizes") != nullptr;
  const Shape operand = data_shape_of_rank(c, c.between(1, 3));
  const Layout l = draw_layout(c, operand, !dynamic, is_lax(g));
  Dims slice(operand.size());
  for (size_t a = 0; a < operand.size(); ++a) {
    const int64_t a64 = static_cast<int64_t>(a);
    slice[a] =
        has(l.batching, a64) || has(l.collapsed, a64) ? std::min<int64_t>(1, operand[a]) : c.between(0, operand[a]);
  }
  const int64_t offsets = static_cast<int64_t>(operand.size() - l.collapsed.size() - l.batching.size());
  const int64_t result_rank =
      static_cast<int64_t>(l.indices.size()) - (l.ivd < static_cast<int64_t>(l.indices.size()) ? 1 : 0) + offsets;
  g.put(*g.roles.data, data_tensor(c, pick_dtype_for(c, *g.roles.data), operand));
  g.put(*g.roles.index, start_indices(g, l, slice));
  set_common(g, l, "operand_batching_dims", "start_indices_batching_dims", "start_index_map", "collapsed_slice_dims");
  if (dynamic) {
    g.call.args.erase("operand_batching_dims");
    g.call.args.erase("start_indices_batching_dims");
    Tensor sizes = Tensor::zeros(DType::Int64, Shape{static_cast<int64_t>(slice.size())});
    for (size_t a = 0; a < slice.size(); ++a)
      sizes.set_bits_at(Shape{static_cast<int64_t>(a)}, bits_from_value(DType::Int64, Value::of_int(slice[a])));
    g.call.tensors["slice_sizes"] = sizes;
  } else {
    g.call.set_arg("slice_sizes", Arg::of_ints(slice));
  }
  g.call.set_arg("offset_dims", Arg::of_ints(sorted_axes(c, result_rank, offsets)));
  if (dynamic)
    maybe_break(g, {"offset_dims", "collapsed_slice_dims", "start_index_map"});
  else
    maybe_break(g, {"offset_dims", "collapsed_slice_dims", "start_index_map", "slice_sizes"});
}

// stablehlo.scatter(inputs, scatter_indices, updates): update windows no
// larger than the input's window axes.
void stablehlo_scatter_case(Draw& g) {
  Choices& c = g.c;
  const Shape input = data_shape_of_rank(c, c.between(1, 3));
  const Layout l = draw_layout(c, input, true, is_lax(g));
  Shape window, full_window(input.size(), 1);
  for (size_t a = 0; a < input.size(); ++a) {
    const int64_t a64 = static_cast<int64_t>(a);
    if (!has(l.batching, a64) && !has(l.collapsed, a64)) window.push_back(full_window[a] = c.between(0, input[a]));
  }
  Shape scatter = l.indices;
  if (l.ivd < static_cast<int64_t>(scatter.size())) scatter.erase(scatter.begin() + l.ivd);
  const int64_t rank = static_cast<int64_t>(scatter.size() + window.size());
  const Dims window_dims = sorted_axes(c, rank, static_cast<int64_t>(window.size()));
  Shape updates(static_cast<size_t>(rank));
  size_t w = 0, s = 0;
  for (int64_t a = 0; a < rank; ++a) updates[static_cast<size_t>(a)] = has(window_dims, a) ? window[w++] : scatter[s++];
  // Large inputs: the windows shrink (still within the input's window axes) until updates fits the tier.
  for (bool shrunk = true; shrunk && checked_numel(updates) > t_max_elements;) {
    shrunk = false;
    int64_t* widest = nullptr;
    for (int64_t a = 0; a < rank; ++a)
      if (has(window_dims, a) && (!widest || updates[static_cast<size_t>(a)] > *widest))
        widest = &updates[static_cast<size_t>(a)];
    if (widest && *widest > 1) {
      *widest /= 2;
      shrunk = true;
    }
  }
  const DType t = pick_dtype_for(c, *g.roles.data);
  g.put(*g.roles.data, data_tensor(c, t, input));
  g.put(*g.roles.index, start_indices(g, l, full_window));
  g.put(*g.op.operand("updates"), data_tensor(c, c.chance(5) ? DType::Float64 : t, updates));
  set_common(g, l, is_lax(g) ? "operand_batching_dims" : "input_batching_dims", "scatter_indices_batching_dims",
             "scatter_dims_to_operand_dims", "inserted_window_dims");
  g.call.set_arg("update_window_dims", Arg::of_ints(window_dims));
  maybe_break(g, {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims"});
}

}  // namespace sp::fuzz::gen
