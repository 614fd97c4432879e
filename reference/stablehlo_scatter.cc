// stablehlo_scatter.cc — StableHLO scatter(inputs, scatter_indices, updates;
// update_window_dims, inserted_window_dims, input_batching_dims,
// scatter_indices_batching_dims, scatter_dims_to_operand_dims,
// index_vector_dim, indices_are_sorted, unique_indices, update_computation)
// -> results, with one input and one update tensor (N = 1).
//
// Formula (scatter, "More formally"; SH-S-F1), for every update_index:
//   update_scatter_index = update_index[update_scatter_dims...], the
//                      updates axes not in update_window_dims
//   start_index      = scatter_indices[si0, ..., :, ..., siN] (`:` at
//                      index_vector_dim), or [scatter_indices[...]] when
//                      index_vector_dim = rank(scatter_indices)
//   full_start_index[d] = start_index[k] for d = scatter_dims_to_operand_dims[k]
//                      (not clamped), else 0
//   full_batching_index[input_batching_dims[i]] =
//                      update_scatter_index[d - (d < index_vector_dim ? 0 : 1)],
//                      d = scatter_indices_batching_dims[i]
//   full_window_index = update_index[update_window_dims...] with 0 inserted at
//                      inserted_window_dims and input_batching_dims
//   result_index     = full_start_index + full_batching_index + full_window_index
//   if result_index is in bounds: results[result_index] =
//       update_computation(results[result_index], updates[update_index])
//   otherwise the update element is dropped (SH-S-F2: element by element, as
//   the spec's exec() reads; XLA drops whole windows, docs/stablehlo.md)
// update_computation is the region's kind (SH-S-C23): add, multiply,
// minimum, maximum, or replace (the region returns its second argument).
// Checks, in the order they run (all run; every violation is collected):
//   SH-S-I2          scatter_indices of an integer type
//   SH-S-C2..C22     the spec's constraints (dialect_stablehlo.cc)
//   SH-S-C23         update_computation one of the kinds above
//   SH-S-U1          indices_are_sorted = true but the full_start_index
//                    sequence is not sorted: unspecified
//   SH-S-U2          unique_indices = true but two updates reach the same
//                    result_index: unspecified
// Visit order: the schedule is "an implementation-defined permutation of
// index_space(updates[0])": updates row-major here, and every order is
// allowed: replace with several writers is one of their values; add /
// multiply of >= 2 float ops an interval; integers wrap (bool: or / and);
// minimum / maximum exact, NaN propagating (reference/output_builder.h).
// Source: StableHLO specification (docs/spec.md, scatter) at
// openxla/stablehlo commit 3c9301c.
#include <set>

#include "reference/dialect_stablehlo.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {

namespace sh = ref::stablehlo;

namespace {

std::optional<ReduceMode> region_mode(ref::RuleLog& log, const std::string& kind) {
  static const std::pair<const char*, ReduceMode> kKinds[] = {{"replace", ReduceMode::None},
                                                              {"add", ReduceMode::Add},
                                                              {"multiply", ReduceMode::Multiply},
                                                              {"minimum", ReduceMode::Min},
                                                              {"maximum", ReduceMode::Max}};
  for (const auto& [name, mode] : kKinds)
    if (kind == name) {
      log.check(true, "SH-S-C23", "update_computation is " + kind, ErrorCategory::InvalidReduce, "");
      return mode;
    }
  log.check(false, "SH-S-C23", "update_computation one of replace, add, multiply, minimum, maximum",
            ErrorCategory::InvalidReduce,
            "update_computation \"" + kind + "\" is none of replace, add, multiply, minimum, maximum");
  return std::nullopt;
}

// The target of one update element, or nullopt when it is out of bounds.
std::optional<Shape> result_index(const Tensor& input, const sh::DimNumbers& d, const sh::StartIndex& s,
                                  const sh::Dims& window_axes, const Shape& update_index) {
  // The start is the index value as given (scatter does not clamp, SH-S-F2): a
  // sum past int64 is out of bounds like any other, never wrapped.
  Shape target(s.full_start.size());
  for (size_t k = 0; k < target.size(); ++k)
    if (__builtin_add_overflow(s.full_start[k], s.full_batching[k], &target[k])) return std::nullopt;
  for (size_t w = 0; w < window_axes.size(); ++w) {
    int64_t& t = target[static_cast<size_t>(window_axes[w])];
    if (__builtin_add_overflow(t, update_index[static_cast<size_t>(d.window_dims[w])], &t)) return std::nullopt;
  }
  for (size_t k = 0; k < target.size(); ++k)
    if (target[k] < 0 || target[k] >= input.shape()[k]) return std::nullopt;
  return target;
}

}  // namespace

Expectation stablehlo_scatter(const OpCall& call, Trace* trace) {
  const OpSpec& spec = op_spec(call);
  const Tensor& input = *call.tensor("inputs");
  const Tensor& si = *call.tensor("scatter_indices");
  const Tensor& updates = *call.tensor("updates");
  const bool promised_sorted = spec.arg_or_default(call, "indices_are_sorted")->b;
  const bool promised_unique = spec.arg_or_default(call, "unique_indices")->b;
  const sh::DimNumbers d = sh::read_dims(call, sh::Op::Scatter);
  ref::RuleLog log(trace);
  sh::check_scatter(log, input, si, updates, d);
  const std::optional<ReduceMode> mode = region_mode(log, spec.arg_or_default(call, "update_computation")->s);
  if (!log.passed()) return log.error_expectation();

  const int64_t r = input.rank();
  const sh::Dims scatter_dims = sh::other_axes(updates.rank(), d.window_dims);
  const sh::Dims window_axes = sh::window_axes(r, d);
  OutputBuilder out("out", input, trace);
  std::set<Shape> targets;  // result indices written (SH-S-U2)
  std::optional<Shape> repeated;
  int64_t dropped = 0;
  Shape last_scatter_index{-1};
  sh::StartIndex s;
  sh::for_each_position(updates.shape(), [&](const Shape& update_index) {
    Shape scatter_index;
    for (int64_t a : scatter_dims) scatter_index.push_back(update_index[static_cast<size_t>(a)]);
    if (scatter_index != last_scatter_index) {  // a new window: read its start index once
      s = sh::start_index(si, d, scatter_index, r);
      last_scatter_index = scatter_index;
    }
    const std::optional<Shape> target = result_index(input, d, s, window_axes, update_index);
    if (!target) {
      ++dropped;
      return;
    }
    if (promised_unique && !targets.insert(*target).second && !repeated) repeated = *target;
    const WriteOrigin from{"updates", &updates, &update_index, &s.index_pos, 0};
    if (*mode == ReduceMode::None)
      out.overwrite(*target, updates.bits_at(update_index), from);
    else
      out.reduce(*target, *mode, updates.value_at(update_index), from);
  });
  if (promised_sorted && !sh::starts_sorted(si, d, input, false)) {
    log.note("SH-S-U1: indices_are_sorted = true, but full_start_index is not sorted");
    return ref::unspecified_expectation(
        "SH-S-U1: scatter with indices_are_sorted = true, but scatter_indices are not sorted: \"otherwise the "
        "behavior is undefined\" (StableHLO spec, scatter)",
        trace);
  }
  if (repeated) {
    log.note("SH-S-U2: unique_indices = true, but result_index " + format_index(*repeated) + " is written twice");
    return ref::unspecified_expectation("SH-S-U2: scatter with unique_indices = true, but result_index " +
                                            format_index(*repeated) +
                                            " is scattered to more than once: \"the behavior is undefined\" "
                                            "(StableHLO spec, scatter)",
                                        trace);
  }
  std::vector<Note> notes;
  if (dropped > 0)
    notes.push_back({"SH-S-F2", std::to_string(dropped) +
                                    " update element(s) with result_index out of bounds dropped, element by element"});
  if (*mode == ReduceMode::Add || *mode == ReduceMode::Multiply)
    notes.push_back({"SH-S-F3",
                     "the schedule is implementation-defined: a float add/multiply of >= 2 ops is an "
                     "interval"});
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
