// op_table_stablehlo.cc — the StableHLO entries of the op table
// (op_table.h): stablehlo.gather, stablehlo.dynamic_gather and
// stablehlo.scatter, with the spec's operand and attribute names. The
// dimension numbers are int-list arguments (the spec's "1-dimensional tensor
// constant of type si64"); an attribute MLIR leaves out when it is empty or
// 0 defaults to that. scatter's update computation (a region in MLIR) is
// the `update_computation` string: the region kinds StableHLO's tests use.
#include "reference/op_table.h"
#include "reference/output_shapes.h"

// The entries name only the fields that differ from OpSpec's defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp {

Expectation stablehlo_gather(const OpCall& call, Trace* trace);   // stablehlo_gather.cc (also dynamic_gather)
Expectation stablehlo_scatter(const OpCall& call, Trace* trace);  // stablehlo_scatter.cc

namespace {

using T = Arg::Type;
using R = OperandRole;

constexpr const char* kSpec = "StableHLO specification (docs/spec.md), openxla/stablehlo commit 3c9301c";
// "tensor of integer type": StableHLO's si8..si64 and ui8..ui64 (its i1 is
// the boolean type, not an integer type).
const DTypeSet kIntegers{DType::UInt8, DType::Int8,   DType::Int16,  DType::Int32,
                         DType::Int64, DType::UInt16, DType::UInt32, DType::UInt64};

ArgSpec dims(const char* name) { return {.name = name, .type = T::IntList, .default_value = Arg::of_ints({})}; }
ArgSpec flag(const char* name) { return {.name = name, .type = T::Bool, .default_value = Arg::of_bool(false)}; }
ArgSpec index_vector_dim() { return {.name = "index_vector_dim", .type = T::Int, .default_value = Arg::of_int(0)}; }

OpSpec gather_op(OpSpec e) {
  e.dialect = "stablehlo";
  e.source = kSpec;
  e.in_place = false;
  e.output = "out";
  e.output_shape_of = "operand";
  e.output_dtype_of = "operand";
  e.data_operand = "operand";
  e.family = ShapeFamily::StableHloGather;
  e.reference = stablehlo_gather;
  e.output_shape = shape_rules::kStableHloGather;
  return e;
}

}  // namespace

void add_stablehlo_ops(std::vector<OpSpec>& t) {
  t.push_back(gather_op(
      {.id = "stablehlo.gather",
       .summary = "StableHLO gather: windows of operand (slice_sizes) at start index vectors, offset / collapsed / "
                  "batching dims; out-of-range starts clamped",
       .operands = {{.name = "operand", .role = R::Read},
                    {.name = "start_indices", .role = R::Index, .dtypes = kIntegers}},
       .args = {dims("offset_dims"),
                dims("collapsed_slice_dims"),
                dims("operand_batching_dims"),
                dims("start_indices_batching_dims"),
                dims("start_index_map"),
                index_vector_dim(),
                {.name = "slice_sizes", .type = T::IntList, .required = true},
                flag("indices_are_sorted")}}));
  t.push_back(
      gather_op({.id = "stablehlo.dynamic_gather",
                 .summary = "StableHLO dynamic_gather: gather with slice_sizes as an operand (no batching dims)",
                 .operands = {{.name = "operand", .role = R::Read},
                              {.name = "start_indices", .role = R::Index, .dtypes = kIntegers},
                              {.name = "slice_sizes", .role = R::Read, .dtypes = kIntegers}},
                 .args = {dims("offset_dims"), dims("collapsed_slice_dims"), dims("start_index_map"),
                          index_vector_dim(), flag("indices_are_sorted")}}));
  t.push_back({.id = "stablehlo.scatter",
               .dialect = "stablehlo",
               .summary = "StableHLO scatter: updates' windows combined into inputs by update_computation (replace, "
                          "add, multiply, minimum, maximum); out-of-range update elements dropped",
               .source = kSpec,
               .operands = {{.name = "inputs", .role = R::Read},
                            {.name = "scatter_indices", .role = R::Index, .dtypes = kIntegers},
                            {.name = "updates", .role = R::Read}},
               .args = {dims("update_window_dims"),
                        dims("inserted_window_dims"),
                        dims("input_batching_dims"),
                        dims("scatter_indices_batching_dims"),
                        dims("scatter_dims_to_operand_dims"),
                        index_vector_dim(),
                        flag("indices_are_sorted"),
                        flag("unique_indices"),
                        {.name = "update_computation",
                         .type = T::String,
                         .required = true,
                         .allowed = {"replace", "add", "multiply", "minimum", "maximum"}}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "inputs",
               .output_dtype_of = "inputs",
               .data_operand = "inputs",
               .family = ShapeFamily::StableHloScatter,
               .reference = stablehlo_scatter});
}

}  // namespace sp
