// op_table_mindspore_elements.cc — MindSpore's element-wise index ops in
// the op table (op_table.h), from the MindSpore API documentation r2.10
// (mindspore 2.10.0's docstrings): ops.gather_elements, ops.tensor_scatter_elements. The entries take
// the pages' own parameter names; the references are
// reference/mindspore_<op>.cc, the shared rules
// reference/dialect_mindspore_elements.*.
#include "reference/op_table.h"

// The entries name only the fields that differ from OpSpec's defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp {

Expectation mindspore_gather_elements(const OpCall& call, Trace* trace);  // mindspore_gather_elements.cc
Expectation mindspore_tensor_scatter_elements(const OpCall& call,
                                              Trace* trace);               // mindspore_tensor_scatter_elements.cc

namespace {

using T = Arg::Type;
using R = OperandRole;

const DTypeSet kInt32Or64{DType::Int32, DType::Int64};

constexpr const char* kPages = "MindSpore API documentation r2.10 (mindspore 2.10.0's docstrings)";

// ops.gather_elements, ops.tensor_scatter_elements.
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
}

}  // namespace

void add_mindspore_element_ops(std::vector<OpSpec>& t) {
  add_ops_entries(t);
}

}  // namespace sp
