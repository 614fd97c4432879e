// jax_lax.cc — jax.lax.gather(operand, start_indices; dimension_numbers,
// slice_sizes, indices_are_sorted, unique_indices, mode, fill_value) and
// jax.lax.scatter(operand, scatter_indices, updates; dimension_numbers,
// indices_are_sorted, unique_indices, mode, update_computation) -> out,
// built on the StableHLO references (stablehlo_gather.cc,
// stablehlo_scatter.cc): the call becomes the StableHLO call JAX lowers it
// to (reference/jax_lax.h), the mode transforms its indices, the StableHLO
// reference answers.
//
// Formula, per window (a batch / scatter position: the index vector in the
// indices' last dim) whose start lies in [0, dim - window size] along every
// start_index_map axis ("in range") or not:
//   clip (JAX-M2)      every start clamped into that range, then the
//                      StableHLO op: the whole window is in range
//   fill (JAX-M3)      gather: a window not in range is fill_value, whole;
//                      the others are the StableHLO gather's
//   drop (JAX-M4)      scatter: a window not in range is dropped, whole (its
//                      starts moved to dim, so SH-S-F2 drops every element);
//                      the others are the StableHLO scatter's
//   promise_in_bounds  every window in range: the StableHLO op; one not in
//   (JAX-M5)           range: unspecified
// A negative start is out of range (lax does not wrap).
// Checks, in the order they run:
//   JAX-L1   the indices have rank >= 1 (their last dim is the index vector)
//   JAX-M1   mode one of clip, fill, drop, promise_in_bounds (absent:
//            gather promise_in_bounds, scatter fill_or_drop)
//   the StableHLO op's checks (SH-G-*, SH-S-*) on the lowered call
//   JAX-F1   gather fill: fill_value converts to the operand's dtype; one
//            out of its range is unspecified (default: NaN, the lowest
//            signed, the highest unsigned value, True)
//   JAX-U1   indices_are_sorted = true but the indices as given are not
//            sorted: unspecified (checked on them, not on the transformed)
//   JAX-U2   gather unique_indices = true but two gathered elements are one
//            operand element: unspecified (scatter: SH-S-U2 on the updates
//            applied)
// Visit order: the StableHLO op's. Source: jax 0.10.2 docstrings
// (jax.lax.GatherScatterMode, jax.lax.gather, jax.lax.scatter).
#include "reference/jax_lax.h"

#include <cmath>
#include <set>

#include "reference/op_table.h"

namespace sp {

Expectation stablehlo_gather(const OpCall& call, Trace* trace);   // stablehlo_gather.cc
Expectation stablehlo_scatter(const OpCall& call, Trace* trace);  // stablehlo_scatter.cc

namespace sh = ref::stablehlo;
namespace jx = ref::jax;

namespace {

// JAX-L1 and JAX-M1; nullopt when either is violated.
std::optional<jx::Mode> jax_checks(ref::RuleLog& log, const OpCall& call, const Tensor& indices, bool scatter) {
  log.check(indices.rank() >= 1, "JAX-L1", "indices of rank >= 1 (the index vector is their last dim)",
            ErrorCategory::InvalidArgument,
            "the indices must have rank >= 1: lax reads the index vector in the last dim");
  std::optional<jx::Mode> mode = jx::read_mode(log, call, scatter);
  return log.passed() ? mode : std::nullopt;
}

// JAX-F1: fill_value's bits in dtype t; nullopt when it is out of t's range.
std::optional<uint64_t> fill_bits(const OpCall& call, DType t) {
  const auto it = call.args.find("fill_value");
  if (it == call.args.end()) {
    if (is_floating(t)) return bits_from_value(t, Value::of_float(std::nan("")));
    if (t == DType::Bool) return 1;
    // The highest value for unsigned kinds (uint64's as its bit pattern, Value's convention), the lowest for signed.
    return bits_from_value(t, Value::of_int(is_unsigned_int(t) ? dtype_int_max(t) : dtype_int_min(t)));
  }
  const Scalar& s = it->second.scalar;
  const double v = s.kind == Scalar::Kind::Float ? s.f : static_cast<double>(s.kind == Scalar::Kind::Int ? s.i : s.b);
  if (t == DType::Bool) return v != 0.0 || std::isnan(v) ? 1 : 0;
  if (is_floating(t))
    return bits_from_value(t, s.kind == Scalar::Kind::Float ? Value::of_float(s.f)
                                                            : Value::of_int(s.kind == Scalar::Kind::Int ? s.i : s.b));
  if (!std::isfinite(v) || v < dtype_lowest(t) || v >= dtype_max(t) + 1.0) return std::nullopt;
  if (s.kind != Scalar::Kind::Float) return bits_from_value(t, Value::of_int(s.kind == Scalar::Kind::Int ? s.i : s.b));
  // A float at or above 2^63 (uint64 only) converts through uint64: int64 cannot hold it.
  const double whole = std::trunc(v);
  return bits_from_value(t, Value::of_int(whole >= 0x1p63 ? static_cast<int64_t>(static_cast<uint64_t>(whole))
                                                          : static_cast<int64_t>(whole)));
}

bool promised(const OpCall& call, const char* name) {
  const auto it = call.args.find(name);
  return it != call.args.end() && it->second.b;
}

// JAX-U1 on the indices as given.
bool sorted_as_given(const OpCall& sh_call, bool scatter) {
  const sh::Op op = scatter ? sh::Op::Scatter : sh::Op::Gather;
  return sh::starts_sorted(*sh_call.tensor(scatter ? "scatter_indices" : "start_indices"), sh::read_dims(sh_call, op),
                           *sh_call.tensor(scatter ? "inputs" : "operand"), false);
}

// JAX-U2 (gather): whether two windows in `read` (not filled) read one
// operand element; `sh_call` is the transformed call.
bool gathers_overlap(const OpCall& sh_call, const std::vector<bool>& read) {
  const sh::DimNumbers d = sh::read_dims(sh_call, sh::Op::Gather);
  const Tensor& operand = *sh_call.tensor("operand");
  const Tensor& si = *sh_call.tensor("start_indices");
  const int64_t r = operand.rank();
  const sh::Dims offset_axes = sh::window_axes(r, d);
  Shape window;
  for (int64_t a : offset_axes) window.push_back(d.slice_sizes[static_cast<size_t>(a)]);
  std::set<Shape> seen;
  bool overlap = false;
  size_t n = 0;
  sh::for_each_position(Shape(si.shape().begin(), si.shape().end() - 1), [&](const Shape& b) {
    if (!read[n++] || overlap) return;
    const sh::StartIndex s = sh::start_index(si, d, b, r);
    sh::for_each_position(window, [&](const Shape& w) {
      Shape at(static_cast<size_t>(r));
      for (size_t k = 0; k < at.size(); ++k)
        at[k] = std::clamp<int64_t>(s.full_start[k], 0, std::max<int64_t>(operand.shape()[k] - d.slice_sizes[k], 0)) +
                s.full_batching[k];
      for (size_t o = 0; o < offset_axes.size(); ++o) at[static_cast<size_t>(offset_axes[o])] += w[o];
      overlap = overlap || !seen.insert(at).second;
    });
  });
  return overlap;
}

bool all_in_range(const std::vector<bool>& v) { return std::find(v.begin(), v.end(), false) == v.end(); }

// The filled windows of a fill-mode gather: every result element whose
// batch position is not in range becomes `bits`.
void fill_windows(ExpectedTensor& out, const OpCall& sh_call, const std::vector<bool>& in_range, uint64_t bits) {
  const sh::DimNumbers d = sh::read_dims(sh_call, sh::Op::Gather);
  const Tensor& si = *sh_call.tensor("start_indices");
  const Shape batch(si.shape().begin(), si.shape().end() - 1);
  const Shape& shape = out.exact.shape();
  const sh::Dims batch_dims = sh::other_axes(static_cast<int64_t>(shape.size()), d.window_dims);
  sh::for_each_position(shape, [&](const Shape& result_index) {
    int64_t linear = 0;
    for (size_t k = 0; k < batch_dims.size(); ++k)
      linear = linear * batch[k] + result_index[static_cast<size_t>(batch_dims[k])];
    if (!in_range[static_cast<size_t>(linear)]) out.exact.set_bits_at(result_index, bits);
  });
}

Expectation unspecified(const std::string& clause, const std::string& why, Trace* trace) {
  return ref::unspecified_expectation(clause + ": " + why, trace);
}

}  // namespace

Expectation jax_lax_gather(const OpCall& call, Trace* trace) {
  ref::RuleLog log(trace);
  const std::optional<jx::Mode> mode = jax_checks(log, call, *call.tensor("start_indices"), false);
  if (!mode) return log.error_expectation();
  OpCall sh_call = jx::to_stablehlo(call, false);
  ref::RuleLog quiet(nullptr);
  if (!sh::check_gather(quiet, sh::Op::Gather, *sh_call.tensor("operand"), *sh_call.tensor("start_indices"),
                        sh::read_dims(sh_call, sh::Op::Gather)) ||
      !quiet.passed())
    return stablehlo_gather(sh_call, trace);  // the StableHLO op's error
  const std::vector<bool> in_range = jx::windows_in_range(sh_call, false);
  if (*mode == jx::Mode::PromiseInBounds && !all_in_range(in_range))
    return unspecified("JAX-M5", "mode promise_in_bounds with a window out of range: \"implementation-defined\"",
                       trace);
  std::optional<uint64_t> fill;
  if (*mode == jx::Mode::FillOrDrop && !(fill = fill_bits(call, sh_call.tensor("operand")->dtype())))
    return unspecified("JAX-F1", "fill_value out of the range of the operand's dtype", trace);
  if (promised(call, "indices_are_sorted") && !sorted_as_given(sh_call, false))
    return unspecified("JAX-U1", "indices_are_sorted = true, but the indices are not sorted", trace);
  jx::transform_indices(sh_call, false, *mode);
  const std::vector<bool> read = *mode == jx::Mode::FillOrDrop ? in_range : std::vector<bool>(in_range.size(), true);
  if (promised(call, "unique_indices") && gathers_overlap(sh_call, read))
    return unspecified(
        "JAX-U2", "unique_indices = true, but two gathered elements overlap: \"the behavior is undefined\"", trace);
  sh_call.args.erase("indices_are_sorted");
  Expectation e = stablehlo_gather(sh_call, trace);
  if (!e.outputs) return e;
  if (*mode == jx::Mode::Clip) e.notes.push_back({"JAX-M2", "starts clamped so that every window is in range"});
  if (fill && !all_in_range(in_range)) {
    fill_windows(e.outputs->front(), sh_call, in_range, *fill);
    e.notes.push_back({"JAX-M3", "a window out of range is fill_value, whole"});
  }
  return e;
}

Expectation jax_lax_scatter(const OpCall& call, Trace* trace) {
  ref::RuleLog log(trace);
  const std::optional<jx::Mode> mode = jax_checks(log, call, *call.tensor("scatter_indices"), true);
  if (!mode) return log.error_expectation();
  OpCall sh_call = jx::to_stablehlo(call, true);
  ref::RuleLog quiet(nullptr);
  if (!sh::check_scatter(quiet, *sh_call.tensor("inputs"), *sh_call.tensor("scatter_indices"),
                         *sh_call.tensor("updates"), sh::read_dims(sh_call, sh::Op::Scatter)) ||
      !quiet.passed())
    return stablehlo_scatter(sh_call, trace);  // the StableHLO op's error
  const std::vector<bool> in_range = jx::windows_in_range(sh_call, true);
  if (*mode == jx::Mode::PromiseInBounds && !all_in_range(in_range))
    return unspecified("JAX-M5", "mode promise_in_bounds with a window out of range: \"implementation-defined\"",
                       trace);
  if (promised(call, "indices_are_sorted") && !sorted_as_given(sh_call, true))
    return unspecified("JAX-U1", "indices_are_sorted = true, but the indices are not sorted", trace);
  jx::transform_indices(sh_call, true, *mode);
  sh_call.args.erase("indices_are_sorted");
  Expectation e = stablehlo_scatter(sh_call, trace);
  if (!e.outputs) return e;
  if (*mode == jx::Mode::Clip) e.notes.push_back({"JAX-M2", "starts clamped so that every window is in range"});
  if (*mode == jx::Mode::FillOrDrop && !all_in_range(in_range))
    e.notes.push_back({"JAX-M4", "a window out of range is dropped, whole"});
  return e;
}

}  // namespace sp
