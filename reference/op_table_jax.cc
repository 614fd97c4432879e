// op_table_jax.cc — JAX's entries of the op table (op_table.h):
// jax.lax.gather and jax.lax.scatter, and the x.at[idx] methods (jax.at.get,
// set, add, multiply, min, max: one op per method, as the user calls them;
// get has no updates and its own output shape). The lax ops take lax's parameter names (its
// GatherDimensionNumbers / ScatterDimensionNumbers fields as int lists; the
// index vector is always the indices' last dim, so there is no
// index_vector_dim), `mode` and gather's `fill_value`. Scatter's combiner
// (lax.scatter, scatter_add, scatter_mul, scatter_min, scatter_max) is the
// `update_computation` string, named as stablehlo.scatter names it.
#include "reference/op_table.h"
#include "reference/output_shapes.h"

// The entries name only the fields that differ from OpSpec's defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp {

Expectation jax_lax_gather(const OpCall& call, Trace* trace);   // jax_lax.cc
Expectation jax_lax_scatter(const OpCall& call, Trace* trace);  // jax_lax.cc
Expectation jax_at(const OpCall& call, Trace* trace);           // jax_at.cc

namespace {

using T = Arg::Type;
using R = OperandRole;

constexpr const char* kLax = "jax 0.10.2: jax.lax.gather / jax.lax.scatter and jax.lax.GatherScatterMode docstrings";
const DTypeSet kIntegers{DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64};

ArgSpec dims(const char* name) { return {.name = name, .type = T::IntList, .default_value = Arg::of_ints({})}; }
ArgSpec flag(const char* name) { return {.name = name, .type = T::Bool, .default_value = Arg::of_bool(false)}; }
// No default_value: absent is lax's mode=None, whose meaning differs by op
// (JAX-M1: gather promise_in_bounds, scatter fill_or_drop).
ArgSpec mode() { return {.name = "mode", .type = T::String, .allowed = {"clip", "fill", "drop", "promise_in_bounds"}}; }

constexpr const char* kAt = "jax 0.10.2: jax.numpy.ndarray.at docstring (_IndexUpdateHelper) and its methods";

// x.at[idx].<method>: idx = tuple(indices[..., j] for j in range(k)).
OpSpec at_op(const char* id, const char* summary, bool get) {
  OpSpec e{.id = id,
           .dialect = "jax",
           .summary = summary,
           .source = kAt,
           .operands = {{.name = "x", .role = R::Read}, {.name = "indices", .role = R::Index, .dtypes = kIntegers}},
           .args = {flag("indices_are_sorted"),
                    flag("unique_indices"),
                    // No default_value: absent, get clips and the updates drop (JAX-AT4).
                    mode(),
                    {.name = "wrap_negative_indices", .type = T::Bool, .default_value = Arg::of_bool(true)}},
           .in_place = false,
           .output = "out",
           .output_shape_of = "x",
           .output_dtype_of = "x",
           .data_operand = "x",
           .family = ShapeFamily::JaxAt,
           .reference = jax_at};
  if (get) {
    e.args.push_back({.name = "fill_value", .type = T::Scalar});
    e.output_shape = shape_rules::kJaxAtGet;
  } else {
    e.operands.push_back({.name = "updates", .role = R::Read});
  }
  return e;
}

}  // namespace

void add_jax_ops(std::vector<OpSpec>& t) {
  t.push_back({.id = "jax.lax.gather",
               .dialect = "jax",
               .summary = "jax.lax.gather: StableHLO gather with lax's mode (clip, fill, promise_in_bounds) and "
                          "fill_value; the index vector in start_indices' last dim",
               .source = kLax,
               .operands = {{.name = "operand", .role = R::Read},
                            {.name = "start_indices", .role = R::Index, .dtypes = kIntegers}},
               .args = {dims("offset_dims"),
                        dims("collapsed_slice_dims"),
                        dims("operand_batching_dims"),
                        dims("start_indices_batching_dims"),
                        dims("start_index_map"),
                        {.name = "slice_sizes", .type = T::IntList, .required = true},
                        flag("indices_are_sorted"),
                        flag("unique_indices"),
                        mode(),
                        // No default_value: absent is fill_value=None, per dtype (JAX-F1).
                        {.name = "fill_value", .type = T::Scalar}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "operand",
               .output_dtype_of = "operand",
               .data_operand = "operand",
               .family = ShapeFamily::StableHloGather,
               .reference = jax_lax_gather,
               .output_shape = shape_rules::kJaxLaxGather});
  t.push_back({.id = "jax.lax.scatter",
               .dialect = "jax",
               .summary = "jax.lax.scatter / scatter_add / scatter_mul / scatter_min / scatter_max "
                          "(update_computation) with lax's mode (clip, drop, promise_in_bounds)",
               .source = kLax,
               .operands = {{.name = "operand", .role = R::Read},
                            {.name = "scatter_indices", .role = R::Index, .dtypes = kIntegers},
                            {.name = "updates", .role = R::Read}},
               .args = {dims("update_window_dims"),
                        dims("inserted_window_dims"),
                        dims("operand_batching_dims"),
                        dims("scatter_indices_batching_dims"),
                        dims("scatter_dims_to_operand_dims"),
                        flag("indices_are_sorted"),
                        flag("unique_indices"),
                        mode(),
                        {.name = "update_computation",
                         .type = T::String,
                         .default_value = Arg::of_string("replace"),
                         .allowed = {"replace", "add", "multiply", "minimum", "maximum"}}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "operand",
               .output_dtype_of = "operand",
               .data_operand = "operand",
               .family = ShapeFamily::StableHloScatter,
               .reference = jax_lax_scatter});
  t.push_back(at_op("jax.at.get",
                    "x.at[idx].get(): x[idx], idx integer arrays over x's leading dims (indices' last dim)", true));
  t.push_back(at_op("jax.at.set", "x.at[idx].set(updates): x[idx] = updates", false));
  t.push_back(at_op("jax.at.add", "x.at[idx].add(updates): x[idx] += updates, every duplicate applied", false));
  t.push_back(
      at_op("jax.at.multiply", "x.at[idx].multiply(updates): x[idx] *= updates, every duplicate applied", false));
  t.push_back(at_op("jax.at.min", "x.at[idx].min(updates): x[idx] = minimum(x[idx], updates)", false));
  t.push_back(at_op("jax.at.max", "x.at[idx].max(updates): x[idx] = maximum(x[idx], updates)", false));
}

}  // namespace sp
