// op_table_mindspore_elements.cc — MindSpore's element-wise index ops in
// the op table (op_table.h), from the MindSpore API documentation r2.10
// (mindspore 2.10.0's docstrings): ops.gather_elements. The entries take
// the pages' own parameter names; the references are
// reference/mindspore_<op>.cc, the shared rules
// reference/dialect_mindspore_elements.*.
#include "reference/op_table.h"

// The entries name only the fields that differ from OpSpec's defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp {

Expectation mindspore_gather_elements(const OpCall& call, Trace* trace);  // mindspore_gather_elements.cc

namespace {

using T = Arg::Type;
using R = OperandRole;

const DTypeSet kInt32Or64{DType::Int32, DType::Int64};

constexpr const char* kPages = "MindSpore API documentation r2.10 (mindspore 2.10.0's docstrings)";

// ops.gather_elements.
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
}

}  // namespace

void add_mindspore_element_ops(std::vector<OpSpec>& t) { add_ops_entries(t); }

}  // namespace sp
