// op_table_mindspore_elements.cc — MindSpore's element-wise index ops in
// the op table (op_table.h), from the MindSpore API documentation r2.10
// (mindspore 2.10.0's docstrings): ops.gather_elements, ops.tensor_scatter_elements, ops.gather, mint.scatter,
// mint.scatter_add. The entries take the pages' own parameter names; the references are reference/mindspore_<op>.cc,
// the shared rules reference/dialect_mindspore_elements.*.
#include "reference/op_table.h"
#include "reference/output_shapes.h"

// The entries name only the fields that differ from OpSpec's defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp {

Expectation mindspore_gather_elements(const OpCall& call, Trace* trace);  // mindspore_gather_elements.cc
Expectation mindspore_tensor_scatter_elements(const OpCall& call,
                                              Trace* trace);               // mindspore_tensor_scatter_elements.cc
Expectation mindspore_gather(const OpCall& call, Trace* trace);            // mindspore_gather.cc
Expectation mindspore_mint_scatter(const OpCall& call, Trace* trace);      // mindspore_mint_scatter.cc
Expectation mindspore_mint_scatter_add(const OpCall& call, Trace* trace);  // mindspore_mint_scatter.cc
namespace shape_rules {
std::optional<Shape> take_along_axis_batched(const OpSpec& op, const OpCall& call,
                                             const Tensor& of);  // mindspore_gather.cc
}  // namespace shape_rules

namespace {

using T = Arg::Type;
using R = OperandRole;

const DTypeSet kInt32Or64{DType::Int32, DType::Int64};

// ops.gather's out shape (the rule beside its reference, not in
// output_shapes.h: no other op has it).
constexpr OutputShapeRule kTakeAlongAxisBatched{
    shape_rules::take_along_axis_batched,
    " replaced by input_params.shape[:axis] + input_indices.shape[batch_dims:] + input_params.shape[axis + 1:]"};

constexpr const char* kPages = "MindSpore API documentation r2.10 (mindspore 2.10.0's docstrings)";

// ops.gather_elements, ops.tensor_scatter_elements, ops.gather.
void add_ops_entries(std::vector<OpSpec>& t) {
  t.push_back(
      {.id = "mindspore.ops.gather_elements",
       .dialect = "mindspore",
       .summary = "mindspore.ops.gather_elements: out[i][j][k] = input[i][index[i][j][k]][k] (dim 1), "
                  "out shaped like index",
       .source = kPages,
       .operands = {{.name = "input", .role = R::Read}, {.name = "index", .role = R::Index, .dtypes = kInt32Or64}},
       .args = {{.name = "dim", .type = T::Int, .required = true}},
       .in_place = false,
       .output = "out",
       .output_shape_of = "index",
       .output_dtype_of = "input",
       .data_operand = "input",
       .family = ShapeFamily::Gather,
       .reference = mindspore_gather_elements});
  t.push_back({.id = "mindspore.ops.tensor_scatter_elements",
               .dialect = "mindspore",
               .summary = "mindspore.ops.tensor_scatter_elements: output = input_x with updates written ('none') or "
                          "added ('add') at indices along axis; an index out of range drops its update",
               .source = kPages,
               .operands = {{.name = "input_x", .role = R::Read},
                            {.name = "indices", .role = R::Index, .dtypes = kInt32Or64},
                            {.name = "updates", .role = R::Read}},
               .args = {{.name = "axis", .type = T::Int, .default_value = Arg::of_int(0)},
                        {.name = "reduction",
                         .type = T::String,
                         .default_value = Arg::of_string("none"),
                         .allowed = {"none", "add"}}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "input_x",
               .output_dtype_of = "input_x",
               .data_operand = "input_x",
               .family = ShapeFamily::ScatterElements,
               .reference = mindspore_tensor_scatter_elements});
  t.push_back({.id = "mindspore.ops.gather",
               .dialect = "mindspore",
               .summary = "mindspore.ops.gather: slices of input_params along axis at input_indices (any rank), "
                          "batch_dims leading dims shared",
               .source = kPages,
               .operands = {{.name = "input_params", .role = R::Read},
                            {.name = "input_indices", .role = R::Index, .dtypes = kInt32Or64}},
               .args = {{.name = "axis", .type = T::Int, .required = true},
                        {.name = "batch_dims", .type = T::Int, .default_value = Arg::of_int(0)}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "input_params",
               .output_dtype_of = "input_params",
               .data_operand = "input_params",
               .family = ShapeFamily::IndexAlongDim,
               .reference = mindspore_gather,
               .output_shape = kTakeAlongAxisBatched});
}

// mint.scatter and mint.scatter_add.
void add_mint_ops(std::vector<OpSpec>& t) {
  // mint.scatter's src is a tensor or a float (`value` here).
  t.push_back({.id = "mindspore.mint.scatter",
               .dialect = "mindspore",
               .summary = "mindspore.mint.scatter: out = input with out[i][index[i][j][k]][k] = src[i][j][k] (dim 1); "
                          "src a tensor or a float",
               .source = kPages,
               .operands = {{.name = "input", .role = R::Read},
                            {.name = "index", .role = R::Index, .dtypes = kInt32Or64},
                            {.name = "src", .role = R::Read, .or_arg = "value"}},
               .args = {{.name = "dim", .type = T::Int, .required = true}, {.name = "value", .type = T::Scalar}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "input",
               .output_dtype_of = "input",
               .data_operand = "input",
               .family = ShapeFamily::ScatterElements,
               .reference = mindspore_mint_scatter});
  t.push_back(
      {.id = "mindspore.mint.scatter_add",
       .dialect = "mindspore",
       .summary = "mindspore.mint.scatter_add: out = input with out[i][index[i][j][k]][k] += src[i][j][k] (dim 1)",
       .source = kPages,
       .operands = {{.name = "input", .role = R::Read},
                    {.name = "index", .role = R::Index, .dtypes = kInt32Or64},
                    {.name = "src", .role = R::Read}},
       .args = {{.name = "dim", .type = T::Int, .required = true}},
       .in_place = false,
       .output = "out",
       .output_shape_of = "input",
       .output_dtype_of = "input",
       .data_operand = "input",
       .family = ShapeFamily::ScatterElements,
       .reference = mindspore_mint_scatter_add});
}

}  // namespace

void add_mindspore_element_ops(std::vector<OpSpec>& t) {
  add_ops_entries(t);
  add_mint_ops(t);
}

}  // namespace sp
