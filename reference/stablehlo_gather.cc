// stablehlo_gather.cc — StableHLO gather(operand, start_indices; offset_dims,
// collapsed_slice_dims, operand_batching_dims, start_indices_batching_dims,
// start_index_map, index_vector_dim, slice_sizes, indices_are_sorted) and
// dynamic_gather(operand, start_indices, slice_sizes; the same attributes
// without the batching dims) -> result.
//
// Formula (gather, "More formally"; SH-G-F1): result[result_index] =
// operand[full_start_index + full_batching_index + full_offset_index] where
//   batch_index      = result_index[batch_dims...], batch_dims the result
//                      axes not in offset_dims
//   start_index      = start_indices[bi0, ..., :, ..., biN] (`:` at
//                      index_vector_dim), or [start_indices[batch_index]]
//                      when index_vector_dim = rank(start_indices)
//   full_start_index[d] = clamp(start_index[k], 0, dim(operand, d) -
//                      slice_sizes[d]) for d = start_index_map[k], else 0
//                      (SH-G-F2: out-of-range starts are clamped, never an
//                      error)
//   full_batching_index[operand_batching_dims[i]] =
//                      batch_index[d - (d < index_vector_dim ? 0 : 1)],
//                      d = start_indices_batching_dims[i]
//   full_offset_index = offset_index = result_index[offset_dims...] with 0
//                      inserted at collapsed_slice_dims and operand_batching_dims
// Checks, in the order they run (all run; every violation is collected):
//   SH-G-I2 / SH-DG-I2  start_indices of an integer type
//   SH-DG-I3            dynamic_gather: slice_sizes a 1-D integer tensor
//   SH-G-C1..C21        the spec's constraints (dialect_stablehlo.cc;
//                       dynamic_gather's numbers SH-DG-C1..C12)
//   SH-G-C22 / SH-DG-C13 the result shape (computed, never given)
//   SH-G-U1             indices_are_sorted = true but the full_start_index
//                       sequence (result order) is not sorted: unspecified
// Visit order: result positions row-major; every element is one read, so
// the result is exact bits (the operand's own, -0.0 and NaN payloads).
// Source: StableHLO specification (docs/spec.md, gather and dynamic_gather)
// at openxla/stablehlo commit 3c9301c.
#include <algorithm>

#include "reference/dialect_stablehlo.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

namespace sh = ref::stablehlo;

namespace {

// dynamic_gather's slice_sizes operand as a list; nullopt (and SH-DG-I3
// logged) when it is not a 1-D integer tensor.
std::optional<sh::Dims> read_slice_sizes(ref::RuleLog* log, const Tensor& t) {
  const bool ok = t.rank() == 1 && is_integral(t.dtype()) && t.dtype() != DType::Bool;
  if (log)
    log->check(ok, "SH-DG-I3", "slice_sizes a 1-dimensional tensor of integer type", ErrorCategory::InvalidArgument,
               "slice_sizes must be a 1-dimensional tensor of integer type, not " + t.describe());
  if (!ok) return std::nullopt;
  sh::Dims sizes;
  for (int64_t k = 0; k < t.shape()[0]; ++k) sizes.push_back(ref::read_index(t, Shape{k}));
  return sizes;
}

sh::Op op_of(const OpCall& call) {
  return call.op == "stablehlo.dynamic_gather" ? sh::Op::DynamicGather : sh::Op::Gather;
}

}  // namespace

namespace ref::stablehlo {

std::optional<Shape> gather_result_shape_if_valid(const OpCall& call, Op op) {
  const Tensor* operand = call.tensor("operand");
  const Tensor* si = call.tensor("start_indices");
  if (!operand || !si) return std::nullopt;
  DimNumbers d = read_dims(call, op);
  if (op == Op::DynamicGather) {
    const Tensor* sizes = call.tensor("slice_sizes");
    std::optional<Dims> read = sizes ? read_slice_sizes(nullptr, *sizes) : std::nullopt;
    if (!read) return std::nullopt;
    d.slice_sizes = *read;
  }
  RuleLog log(nullptr);
  if (!check_gather(log, op, *operand, *si, d)) return std::nullopt;
  return gather_result_shape(*si, d);
}

}  // namespace ref::stablehlo

Expectation stablehlo_gather(const OpCall& call, Trace* trace) {
  const sh::Op op = op_of(call);
  const bool dynamic = op == sh::Op::DynamicGather;
  const OpSpec& spec = op_spec(call);
  const Tensor& operand = *call.tensor("operand");
  const Tensor& si = *call.tensor("start_indices");
  const bool promised_sorted = spec.arg_or_default(call, "indices_are_sorted")->b;
  ref::RuleLog log(trace);
  sh::DimNumbers d = sh::read_dims(call, op);
  if (dynamic) d.slice_sizes = read_slice_sizes(&log, *call.tensor("slice_sizes")).value_or(sh::Dims{});
  if (!sh::check_gather(log, op, operand, si, d) || !log.passed()) return log.error_expectation();

  const Shape result_shape = sh::gather_result_shape(si, d);
  const int64_t r = operand.rank();
  const sh::Dims batch_dims = sh::other_axes(static_cast<int64_t>(result_shape.size()), d.window_dims);
  const sh::Dims offset_axes = sh::window_axes(r, d);
  OutputBuilder out("out", Tensor::zeros(operand.dtype(), result_shape), trace);
  bool clamped = false;
  std::optional<Shape> outside;  // an operand_index outside the operand (SH-G-U2)
  sh::for_each_position(result_shape, [&](const Shape& result_index) {
    Shape batch_index;
    for (int64_t a : batch_dims) batch_index.push_back(result_index[static_cast<size_t>(a)]);
    sh::StartIndex s = sh::start_index(si, d, batch_index, r);
    Shape at(static_cast<size_t>(r), 0);
    for (int64_t a = 0; a < r; ++a) {
      const size_t k = static_cast<size_t>(a);
      const int64_t hi = operand.shape()[k] - d.slice_sizes[k];
      const int64_t start = std::clamp<int64_t>(s.full_start[k], 0, std::max<int64_t>(hi, 0));
      clamped = clamped || start != s.full_start[k];
      s.full_start[k] = start;
      at[k] = start + s.full_batching[k];
    }
    for (size_t o = 0; o < offset_axes.size(); ++o)
      at[static_cast<size_t>(offset_axes[o])] += result_index[static_cast<size_t>(d.window_dims[o])];
    for (int64_t a = 0; a < r; ++a)
      if (at[static_cast<size_t>(a)] >= operand.shape()[static_cast<size_t>(a)]) outside = at;
    if (outside) return;
    out.overwrite(result_index, operand.bits_at(at), WriteOrigin{"operand", &operand, &at, &s.index_pos, 0});
  });
  const std::string name = dynamic ? "dynamic_gather" : "gather";
  if (outside) {
    log.note("SH-G-U2: operand_index " + format_index(*outside) + " lies outside the operand");
    return ref::unspecified_expectation(
        "SH-G-U2: " + name + " reads operand_index " + format_index(*outside) +
            ", outside the operand (a slice size of 0 in a collapsed or batching dimension of an empty operand "
            "dimension: the spec's formula reads an element that does not exist)",
        trace);
  }
  if (promised_sorted && !sh::starts_sorted(si, d, operand, true)) {
    log.note("SH-G-U1: indices_are_sorted = true, but full_start_index is not sorted in result order");
    return ref::unspecified_expectation("SH-G-U1: " + name +
                                            " with indices_are_sorted = true, but start_indices are not sorted: "
                                            "\"otherwise the behavior is undefined\" (StableHLO spec, gather)",
                                        trace);
  }
  std::vector<Note> notes;
  if (clamped)
    notes.push_back({"SH-G-F2",
                     "a start index outside [0, dim - slice_size] was clamped into it (the spec's "
                     "clamp in full_start_index)"});
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
