// stablehlo.cc — cpu kernels for stablehlo.gather, stablehlo.dynamic_gather
// and stablehlo.scatter (StableHLO specification at openxla/stablehlo
// 3c9301c; reference/SEMANTICS.md "StableHLO").
//
// Validate with the dialect's constraint checks (reference/dialect_stablehlo.h,
// the first violated one reported), then work in element offsets:
//   gather: for every batch position (row-major), read the start index
//     vector through start_indices' strides, clamp each start into
//     [0, dim - slice_size], add the batching position, and copy the window
//     (slice_sizes at the offset axes) into the result's offset dims;
//   scatter: out = copy of inputs; for every scatter position, its start
//     (not clamped) and batching position, then every element of its window:
//     when the element's target lies inside inputs, combine it (replace: the
//     update; add / multiply: one correctly rounded op; minimum / maximum
//     NaN-propagating), else skip that element alone.
// The promises indices_are_sorted / unique_indices are not used (no fast
// path depends on them): any result is allowed when they do not hold.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/dialect_stablehlo.h"
#include "reference/jax_lax.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

namespace sh = ref::stablehlo;
using Dims = std::vector<int64_t>;

// The index element `offset` elements from the view's first one; a uint64
// above 2^63-1 saturates to INT64_MAX (out of bounds either way, as
// ref::read_index reads it).
int64_t index_at(const Tensor& t, int64_t offset) {
  const std::byte* p = data(t);
  switch (t.dtype()) {
    case DType::UInt8:
      return reinterpret_cast<const uint8_t*>(p)[offset];
    case DType::Int8:
      return reinterpret_cast<const int8_t*>(p)[offset];
    case DType::Int16:
      return reinterpret_cast<const int16_t*>(p)[offset];
    case DType::UInt16:
      return reinterpret_cast<const uint16_t*>(p)[offset];
    case DType::Int32:
      return reinterpret_cast<const int32_t*>(p)[offset];
    case DType::UInt32:
      return reinterpret_cast<const uint32_t*>(p)[offset];
    case DType::UInt64: {
      const uint64_t u = reinterpret_cast<const uint64_t*>(p)[offset];
      return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
    }
    default:
      return reinterpret_cast<const int64_t*>(p)[offset];
  }
}

std::optional<Outcome> first_violation(const ref::RuleLog& log) {
  if (log.passed()) return std::nullopt;
  const RuleViolation& v = log.violations().front();
  return Outcome::of_error(v.category, v.message);
}

// The shape of `shape` at `axes`, and the offsets of its positions
// (row-major) with `strides` at those axes.
Shape shape_at(const Shape& shape, const Dims& axes) {
  Shape s;
  for (int64_t a : axes) s.push_back(shape[static_cast<size_t>(a)]);
  return s;
}
std::vector<int64_t> offsets_at(const Shape& shape, const Shape& strides, const Dims& axes) {
  Shape sub_strides;
  for (int64_t a : axes) sub_strides.push_back(strides[static_cast<size_t>(a)]);
  const Shape sub = shape_at(shape, axes);
  return dim_range_offsets(sub, sub_strides, 0, sub.size());
}

// One batch / scatter position's start vector: per operand axis, the start
// (clamped for gather) plus the batching position.
struct Starts {
  Shape batch_shape;                   // the index's dims without index_vector_dim
  std::vector<int64_t> index_offsets;  // each batch position's offset into the index
  Shape batch_strides_of_index;
};

Starts batch_walk(const Tensor& indices, int64_t ivd) {
  Starts s;
  Dims axes;
  for (int64_t a = 0; a < indices.rank(); ++a)
    if (a != ivd) axes.push_back(a);
  s.batch_shape = shape_at(indices.shape(), axes);
  s.index_offsets = offsets_at(indices.shape(), indices.strides(), axes);
  if (checked_numel(s.batch_shape) == 0) s.index_offsets.clear();
  return s;
}

// One batch / scatter position's start vector (per operand axis; 0 off
// index_map) and its batching position (0 off the batching dims).
struct Start {
  Shape start, batching;
};
Start start_of(const Tensor& indices, const sh::DimNumbers& d, int64_t index_offset, const Shape& batch_index,
               int64_t rank) {
  Start s{Shape(static_cast<size_t>(rank), 0), Shape(static_cast<size_t>(rank), 0)};
  const int64_t step = d.index_vector_dim < indices.rank() ? indices.stride(d.index_vector_dim) : 0;
  for (size_t k = 0; k < d.index_map.size(); ++k)
    s.start[static_cast<size_t>(d.index_map[k])] = index_at(indices, index_offset + static_cast<int64_t>(k) * step);
  for (size_t k = 0; k < d.batching.size(); ++k) {
    const int64_t ds = d.index_batching[k];
    s.batching[static_cast<size_t>(d.batching[k])] =
        batch_index[static_cast<size_t>(ds - (ds < d.index_vector_dim ? 0 : 1))];
  }
  return s;
}

// Whether a window with these starts and sizes lies inside `shape` along
// every indexed axis.
bool window_in_range(const Shape& start, const Dims& index_map, const Shape& shape, const Shape& size) {
  return std::all_of(index_map.begin(), index_map.end(), [&](int64_t x) {
    const size_t k = static_cast<size_t>(x);
    return start[k] >= 0 && start[k] <= shape[k] - size[k];
  });
}

void next_position(Shape& pos, const Shape& shape) {
  for (size_t k = shape.size(); k-- > 0;) {
    if (++pos[k] < shape[k]) return;
    pos[k] = 0;
  }
}

// `fill` (jax.lax.gather mode fill): a window whose start is not within
// [0, dim - slice_size] on every start_index_map axis is written whole with
// these bits instead of read from its clamped start.
Outcome stablehlo_gather(CpuContext& cpu, const OpCall& call, std::optional<uint64_t> fill = std::nullopt) {
  const bool dynamic = call.op == "stablehlo.dynamic_gather";
  const sh::Op op = dynamic ? sh::Op::DynamicGather : sh::Op::Gather;
  const Tensor& operand = *call.tensor("operand");
  const Tensor& si = *call.tensor("start_indices");
  sh::DimNumbers d = sh::read_dims(call, op);
  if (dynamic) {
    const Tensor& sizes = *call.tensor("slice_sizes");
    if (sizes.rank() != 1 || !is_integral(sizes.dtype()) || sizes.dtype() == DType::Bool)
      return Outcome::of_error(ErrorCategory::InvalidArgument, "slice_sizes must be a 1-D integer tensor");
    for (int64_t k = 0; k < sizes.shape()[0]; ++k) d.slice_sizes.push_back(index_at(sizes, k * sizes.stride(0)));
  }
  ref::RuleLog log(nullptr);
  sh::check_gather(log, op, operand, si, d);
  if (auto bad = first_violation(log)) return *bad;

  const Shape result_shape = sh::gather_result_shape(si, d);
  const Shape result_strides = contiguous_strides(result_shape);
  const int64_t r = operand.rank();
  const Dims offset_axes = sh::window_axes(r, d);
  const Dims batch_dims = sh::other_axes(static_cast<int64_t>(result_shape.size()), d.window_dims);
  Shape window;
  for (int64_t a : offset_axes) window.push_back(d.slice_sizes[static_cast<size_t>(a)]);
  Shape op_strides, res_strides;
  for (int64_t a : offset_axes) op_strides.push_back(operand.stride(a));
  for (int64_t a : d.window_dims) res_strides.push_back(result_strides[static_cast<size_t>(a)]);
  const std::vector<int64_t> win_op = dim_range_offsets(window, op_strides, 0, window.size());
  const std::vector<int64_t> win_res = dim_range_offsets(window, res_strides, 0, window.size());
  // An empty operand with a non-empty result (slice size 0 in a collapsed
  // dim): SH-G-U2, unspecified; zeros rather than a read outside it.
  if (checked_numel(result_shape) == 0 || operand.numel() == 0)
    return Outcome::of_outputs({Tensor::zeros(operand.dtype(), result_shape)});
  Tensor out = cpu.uninitialized(operand.dtype(), result_shape);
  const Starts walk = batch_walk(si, d.index_vector_dim);
  const size_t es = dtype_size(operand.dtype());
  Shape batch_index(walk.batch_shape.size(), 0);
  for (int64_t off : walk.index_offsets) {
    const Start st = start_of(si, d, off, batch_index, r);
    int64_t base = 0, res_base = 0;
    bool in_range = true;
    for (int64_t a = 0; a < r; ++a) {
      const size_t k = static_cast<size_t>(a);
      const int64_t hi = std::max<int64_t>(operand.shape()[k] - d.slice_sizes[k], 0);
      in_range = in_range && st.start[k] >= 0 && st.start[k] <= operand.shape()[k] - d.slice_sizes[k];
      base += (std::clamp<int64_t>(st.start[k], 0, hi) + st.batching[k]) * operand.stride(a);
    }
    for (size_t b = 0; b < batch_dims.size(); ++b)
      res_base += batch_index[b] * result_strides[static_cast<size_t>(batch_dims[b])];
    for (size_t w = 0; w < win_op.size(); ++w) {
      std::byte* to = data(out) + static_cast<size_t>(res_base + win_res[w]) * es;
      if (fill && !in_range)
        store_bits(operand.dtype(), to, *fill);
      else
        std::memcpy(to, data(operand) + static_cast<size_t>(base + win_op[w]) * es, es);
    }
    next_position(batch_index, walk.batch_shape);
  }
  return Outcome::of_outputs({out});
}

std::optional<Reduce> region_reduce(const std::string& kind) {
  if (kind == "add") return Reduce::Sum;
  if (kind == "multiply") return Reduce::Prod;
  if (kind == "minimum") return Reduce::Amin;
  if (kind == "maximum") return Reduce::Amax;
  return std::nullopt;  // replace
}

// JAX's modes over the scatter (jax.lax.scatter): the window's starts
// clamped into [0, dim - window size] (Clip), or the window skipped whole
// when one start is outside that range (Drop); Spec: the spec's element-wise
// drop.
enum class Windows { Spec, Clip, Drop };

Outcome stablehlo_scatter(CpuContext& cpu, const OpCall& call, Windows windows = Windows::Spec) {
  const Tensor& input = *call.tensor("inputs");
  const Tensor& si = *call.tensor("scatter_indices");
  const Tensor& updates = *call.tensor("updates");
  const sh::DimNumbers d = sh::read_dims(call, sh::Op::Scatter);
  const std::string kind = op_spec(call).arg_or_default(call, "update_computation")->s;
  ref::RuleLog log(nullptr);
  sh::check_scatter(log, input, si, updates, d);
  if (auto bad = first_violation(log)) return *bad;
  if (kind != "replace" && kind != "add" && kind != "multiply" && kind != "minimum" && kind != "maximum")
    return Outcome::of_error(ErrorCategory::InvalidReduce, "update_computation \"" + kind + "\" is not supported");
  Tensor target = cpu.fresh_copy(input);
  if (updates.numel() == 0) return Outcome::of_outputs({target});
  const int64_t r = input.rank();
  const Dims waxes = sh::window_axes(r, d);
  const Dims scatter_dims = sh::other_axes(updates.rank(), d.window_dims);
  const Shape window = shape_at(updates.shape(), d.window_dims);
  Shape full_window(static_cast<size_t>(r), 1);  // the window's size along every input axis
  for (size_t w = 0; w < waxes.size(); ++w) full_window[static_cast<size_t>(waxes[w])] = window[w];
  const std::vector<int64_t> win_upd = offsets_at(updates.shape(), updates.strides(), d.window_dims);
  const std::vector<int64_t> scat_upd = offsets_at(updates.shape(), updates.strides(), scatter_dims);
  const Starts walk = batch_walk(si, d.index_vector_dim);
  const std::optional<Reduce> reduce = region_reduce(kind);
  dispatch_dtype(target.dtype(), [&](auto elem) {
    using E = decltype(elem);
    auto* a = reinterpret_cast<S<E>*>(data(target));
    const auto* p = reinterpret_cast<const S<E>*>(data(updates));
    Shape batch_index(walk.batch_shape.size(), 0);
    for (size_t n = 0; n < walk.index_offsets.size(); ++n) {
      Start st = start_of(si, d, walk.index_offsets[n], batch_index, r);
      if (windows != Windows::Spec && !window_in_range(st.start, d.index_map, input.shape(), full_window)) {
        if (windows == Windows::Drop) {
          next_position(batch_index, walk.batch_shape);
          continue;
        }
        for (int64_t x : d.index_map) {
          const size_t k = static_cast<size_t>(x);
          st.start[k] = std::clamp<int64_t>(st.start[k], 0, input.shape()[k] - full_window[k]);
        }
      }
      Shape at(static_cast<size_t>(r));
      for (size_t k = 0; k < at.size(); ++k) at[k] = st.start[k] + st.batching[k];
      Shape w(window.size(), 0);
      for (size_t j = 0; j < win_upd.size(); ++j, next_position(w, window)) {
        int64_t off = 0;
        bool inside = true;
        for (int64_t x = 0; x < r && inside; ++x) {
          // The start is the index value as given (scatter does not clamp): it
          // may be near INT64_MAX, so test start + window offset against the
          // bounds without forming the sum first, and only then address it.
          const int64_t c = at[static_cast<size_t>(x)];
          const auto it = std::find(waxes.begin(), waxes.end(), x);
          const int64_t wx = it != waxes.end() ? w[static_cast<size_t>(it - waxes.begin())] : 0;
          inside = c >= -wx && c < input.size(x) - wx;
          if (inside) off += (c + wx) * target.stride(x);
        }
        if (!inside) continue;  // this element alone is dropped
        const S<E> v = p[scat_upd[n] + win_upd[j]];
        a[off] = reduce ? combine<E>(*reduce, a[off], v) : v;
      }
      next_position(batch_index, walk.batch_shape);
    }
  });
  return Outcome::of_outputs({target});
}

// jax.lax.gather / jax.lax.scatter: lax's checks (the indices' last dim is
// the index vector; mode one of lax's), then the StableHLO kernels above on
// the call with the spec's names, with the mode's window rule.
std::optional<Outcome> lax_checks(const Tensor& indices, const OpCall& call) {
  if (indices.rank() < 1) return Outcome::of_error(ErrorCategory::InvalidArgument, "the indices must have rank >= 1");
  const auto mode = call.args.find("mode");
  if (mode == call.args.end()) return std::nullopt;
  for (const char* known : {"clip", "fill", "drop", "promise_in_bounds"})
    if (mode->second.s == known) return std::nullopt;
  return Outcome::of_error(ErrorCategory::InvalidArgument, "Unknown gather mode \"" + mode->second.s + "\"");
}

std::string mode_of(const OpCall& call, const char* absent) {
  const auto it = call.args.find("mode");
  return it == call.args.end() ? absent : it->second.s;
}

// gather's fill_value in dtype t: the documented default, or the given
// scalar converted (a value out of t's range: unspecified, the default).
uint64_t fill_bits(const OpCall& call, DType t) {
  const auto it = call.args.find("fill_value");
  const bool given = it != call.args.end();
  const Scalar v = given ? it->second.scalar : Scalar::of_int(0);
  if (t == DType::Bool)
    return !given || (v.kind == Scalar::Kind::Float ? v.f != 0.0 : v.kind == Scalar::Kind::Int ? v.i != 0 : v.b);
  if (is_floating(t)) {
    if (!given) return bits_from_value(t, Value::of_float(std::numeric_limits<double>::quiet_NaN()));
    return bits_from_value(t, v.kind == Scalar::Kind::Float ? Value::of_float(v.f)
                                                            : Value::of_int(v.kind == Scalar::Kind::Int ? v.i : v.b));
  }
  // uint64's maximum is its bit pattern (-1) as an int64: the ranges below use doubles and INT64_MAX.
  const int64_t lo = dtype_int_min(t), hi = t == DType::UInt64 ? INT64_MAX : dtype_int_max(t);
  if (!given) return bits_from_value(t, Value::of_int(is_unsigned_int(t) ? dtype_int_max(t) : lo));
  if (v.kind == Scalar::Kind::Float) {
    if (!std::isfinite(v.f) || v.f <= static_cast<double>(lo) - 1 || v.f >= dtype_max(t) + 1)
      return bits_from_value(t, Value::of_int(lo));
    const double whole = std::trunc(v.f);
    return bits_from_value(t, Value::of_int(whole >= 0x1p63 ? static_cast<int64_t>(static_cast<uint64_t>(whole))
                                                            : static_cast<int64_t>(whole)));
  }
  const int64_t i = v.kind == Scalar::Kind::Int ? v.i : v.b;
  return bits_from_value(t, Value::of_int(std::clamp(i, lo, hi)));
}

Outcome jax_lax_gather(CpuContext& cpu, const OpCall& call) {
  if (auto bad = lax_checks(*call.tensor("start_indices"), call)) return *bad;
  const OpCall sh_call = ref::jax::to_stablehlo(call, false);
  const std::string mode = mode_of(call, "promise_in_bounds");
  if (mode == "fill" || mode == "drop")
    return stablehlo_gather(cpu, sh_call, fill_bits(call, call.tensor("operand")->dtype()));
  return stablehlo_gather(cpu, sh_call);  // clip: the kernel's clamp; promise_in_bounds: any answer
}

Outcome jax_lax_scatter(CpuContext& cpu, const OpCall& call) {
  if (auto bad = lax_checks(*call.tensor("scatter_indices"), call)) return *bad;
  const OpCall sh_call = ref::jax::to_stablehlo(call, true);
  const std::string mode = mode_of(call, "drop");
  return stablehlo_scatter(cpu, sh_call, mode == "clip" ? Windows::Clip : Windows::Drop);
}

// x.at[idx].<method> (jax.at.*): the lax call JAX makes for it (the
// indices' k columns over x's leading dims, the window x.shape[k:] whole),
// negatives wrapped first, the updates a stride-0 view where they broadcast;
// mode absent: get clips, the updates drop.
std::optional<Tensor> broadcast_view(const Tensor& u, const Shape& shape) {
  const size_t r = shape.size(), q = static_cast<size_t>(u.rank());
  if (q > r) return std::nullopt;
  Shape strides(r, 0);
  for (size_t d = 0; d < q; ++d) {
    const int64_t n = u.shape()[d], m = shape[r - q + d];
    if (n != m && n != 1) return std::nullopt;
    strides[r - q + d] = n == 1 ? 0 : u.strides()[d];
  }
  return Tensor::view(u.dtype(), shape, strides, u.offset(), u.storage());
}

Outcome jax_at(CpuContext& cpu, const OpCall& call) {
  const bool get = call.op == "jax.at.get";
  const Tensor& x = *call.tensor("x");
  const Tensor& indices = *call.tensor("indices");
  if (!is_integral(indices.dtype()) || indices.dtype() == DType::Bool)
    return Outcome::of_error(ErrorCategory::IndexDtype, "Indexer must have integer type");
  const int64_t k = indices.rank() >= 1 ? indices.shape().back() : 0;
  if ((k < 1 && indices.rank() != 1) || k > x.rank())  // k = 0 only as x.at[()]: indices of shape [0]
    return Outcome::of_error(ErrorCategory::InvalidArgument, "Too many indices");
  const int64_t b = indices.rank() - 1;
  const auto wrap = call.args.find("wrap_negative_indices");
  const bool wrapped = wrap == call.args.end() || wrap->second.b;
  Tensor starts = Tensor::zeros(DType::Int64, indices.shape());
  auto* to = reinterpret_cast<int64_t*>(data(starts));
  const std::vector<int64_t> from = dim_range_offsets(indices.shape(), indices.strides(), 0, indices.shape().size());
  for (size_t n = 0; n < from.size(); ++n) {
    const int64_t v = index_at(indices, from[n]), dim = x.size(static_cast<int64_t>(n % static_cast<size_t>(k)));
    to[n] = wrapped && v < 0 ? v + dim : v;
  }
  OpCall lax{.op = get ? "jax.lax.gather" : "jax.lax.scatter"};
  for (const char* name : {"mode", "fill_value"})
    if (const auto it = call.args.find(name); it != call.args.end()) lax.args.emplace(name, it->second);
  if (!lax.args.count("mode")) lax.set_arg("mode", Arg::of_string(get ? "clip" : "drop"));
  Dims indexed, window;
  for (int64_t a = 0; a < k; ++a) indexed.push_back(a);
  for (int64_t a = b; a < b + x.rank() - k; ++a) window.push_back(a);
  lax.set_arg(get ? "start_index_map" : "scatter_dims_to_operand_dims", Arg::of_ints(indexed));
  lax.set_arg(get ? "collapsed_slice_dims" : "inserted_window_dims", Arg::of_ints(indexed));
  lax.set_arg(get ? "offset_dims" : "update_window_dims", Arg::of_ints(window));
  lax.tensors.emplace("operand", x);
  lax.tensors.emplace(get ? "start_indices" : "scatter_indices", starts);
  if (get) {
    Dims sizes(static_cast<size_t>(k), 1);
    sizes.insert(sizes.end(), x.shape().begin() + k, x.shape().end());
    lax.set_arg("slice_sizes", Arg::of_ints(sizes));
    return jax_lax_gather(cpu, lax);
  }
  Shape target(indices.shape().begin(), indices.shape().end() - 1);
  target.insert(target.end(), x.shape().begin() + k, x.shape().end());
  const std::optional<Tensor> updates = broadcast_view(*call.tensor("updates"), target);
  if (!updates) return Outcome::of_error(ErrorCategory::ShapeMismatch, "Incompatible types for broadcasting");
  const std::string method = call.op.substr(std::string("jax.at.").size());
  lax.set_arg("update_computation", Arg::of_string(method == "set"   ? "replace"
                                                   : method == "min" ? "minimum"
                                                   : method == "max" ? "maximum"
                                                                     : method));
  lax.tensors.emplace("updates", *updates);
  return jax_lax_scatter(cpu, lax);
}

}  // namespace

void register_stablehlo(CpuOps& ops) {
  for (const char* id : {"jax.at.get", "jax.at.set", "jax.at.add", "jax.at.multiply", "jax.at.min", "jax.at.max"})
    ops.add(id, jax_at);
  ops.add("jax.lax.gather", jax_lax_gather);
  ops.add("jax.lax.scatter", jax_lax_scatter);
  ops.add("stablehlo.gather", [](CpuContext& cpu, const OpCall& call) { return stablehlo_gather(cpu, call); });
  ops.add("stablehlo.dynamic_gather", [](CpuContext& cpu, const OpCall& call) { return stablehlo_gather(cpu, call); });
  ops.add("stablehlo.scatter", [](CpuContext& cpu, const OpCall& call) { return stablehlo_scatter(cpu, call); });
}

}  // namespace sp::cpu
