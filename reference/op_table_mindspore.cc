// op_table_mindspore.cc — MindSpore's ND ops in the op table (op_table.h):
// the seven ops.tensor_scatter_* (one entry per combiner: update, add, sub,
// mul, div, max, min; the combiner is the id's last word, which the one
// reference, reference/mindspore_tensor_scatter.cc, and the one cpu kernel
// read with tensor_scatter_combiner, dialect_mindspore_nd.h). Their operands are the functions' own names
// (input_x, indices, updates); the output is a fresh tensor shaped and typed
// like input_x; ops.gather_nd(input_x, indices), shaped by the ND gather
// rule (kGatherND, no batch dims); ops.scatter_nd(indices, updates, shape). Source: the MindSpore 2.10.0
// docstrings (the r2.10 pages).
#include "reference/op_table.h"
#include "reference/output_shapes.h"

// The entries name only the fields that differ from OpSpec's defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp {

Expectation mindspore_tensor_scatter(const OpCall& call, Trace* trace);  // mindspore_tensor_scatter.cc
Expectation mindspore_gather_nd(const OpCall& call, Trace* trace);       // mindspore_gather_nd.cc
Expectation mindspore_scatter_nd(const OpCall& call, Trace* trace);      // mindspore_scatter_nd.cc

namespace {

using R = OperandRole;

const DTypeSet kInt32Or64{DType::Int32, DType::Int64};
// gather_nd's "K-dimensional integer tensor" (MS-GND2: int32 / int64 held,
// the other integer dtypes allow the result or index_dtype).
const DTypeSet kIntegers{DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64};

// ops.tensor_scatter_<combiner>(input_x, indices, updates).
OpSpec tensor_scatter(const char* combiner, const char* summary, const char* source) {
  return {.id = std::string("mindspore.tensor_scatter_") + combiner,
          .dialect = "mindspore",
          .summary = summary,
          .source = source,
          .operands = {{.name = "input_x", .role = R::Read},
                       {.name = "indices", .role = R::Index, .dtypes = kInt32Or64},
                       {.name = "updates", .role = R::Read}},
          .in_place = false,
          .output = "out",
          .output_shape_of = "input_x",
          .output_dtype_of = "input_x",
          .data_operand = "input_x",
          .family = ShapeFamily::ScatterND,
          .reference = mindspore_tensor_scatter};
}

constexpr const char* kFunctions =
    "MindSpore 2.10.0 docstring of mindspore.ops.tensor_scatter_<op> (mindspore/ops/function/array_func.py, "
    "gen_ops_def.py; the r2.10 page)";

}  // namespace

void add_mindspore_nd_ops(std::vector<OpSpec>& t) {
  t.push_back(tensor_scatter("update",
                             "ops.tensor_scatter_update: out = input_x; out[indices[i]] = updates[i] (index tuples in "
                             "indices' last dim; a duplicate target takes one of its writers)",
                             "MindSpore 2.10.0 docstring of mindspore.ops.TensorScatterUpdate "
                             "(mindspore/ops/operations/array_ops.py; ops.tensor_scatter_update is its instance)"));
  t.push_back(
      tensor_scatter("add", "ops.tensor_scatter_add: out = input_x; out[indices[i]] += updates[i]", kFunctions));
  t.push_back(
      tensor_scatter("sub", "ops.tensor_scatter_sub: out = input_x; out[indices[i]] -= updates[i]", kFunctions));
  t.push_back(
      tensor_scatter("mul", "ops.tensor_scatter_mul: out = input_x; out[indices[i]] *= updates[i]", kFunctions));
  t.push_back(
      tensor_scatter("div", "ops.tensor_scatter_div: out = input_x; out[indices[i]] /= updates[i]", kFunctions));
  t.push_back(tensor_scatter(
      "max", "ops.tensor_scatter_max: out = input_x; out[indices[i]] = max(out[indices[i]], updates[i])", kFunctions));
  t.push_back(tensor_scatter(
      "min", "ops.tensor_scatter_min: out = input_x; out[indices[i]] = min(out[indices[i]], updates[i])", kFunctions));
  t.push_back(
      {.id = "mindspore.gather_nd",
       .dialect = "mindspore",
       .summary = "ops.gather_nd: out[i] = input_x[indices[i]] for index tuples in indices' last dim (a "
                  "tuple shorter than input_x's rank selects a slice)",
       .source = "MindSpore 2.10.0 docstring of mindspore.ops.gather_nd (gen_ops_def.py; the r2.10 page)",
       .operands = {{.name = "input_x", .role = R::Read}, {.name = "indices", .role = R::Index, .dtypes = kIntegers}},
       .in_place = false,
       .output = "out",
       .output_shape_of = "input_x",
       .output_dtype_of = "input_x",
       .data_operand = "input_x",
       .family = ShapeFamily::GatherND,
       .reference = mindspore_gather_nd,
       .output_shape = shape_rules::kGatherND});
  // No input tensor: the ScatterND family's builder draws `shape` (and the
  // generator takes updates as both its data and its source).
  t.push_back(
      {.id = "mindspore.scatter_nd",
       .dialect = "mindspore",
       .summary = "ops.scatter_nd: out = zeros(shape); out[indices[i]] += updates[i] (duplicates summed)",
       .source = "MindSpore 2.10.0 docstring of mindspore.ops.scatter_nd (gen_ops_def.py; the r2.10 page)",
       .operands = {{.name = "indices", .role = R::Index, .dtypes = kIntegers}, {.name = "updates", .role = R::Read}},
       .args = {{.name = "shape", .type = Arg::Type::IntList, .required = true}},
       .in_place = false,
       .output = "out",
       .output_shape_of = "updates",
       .output_dtype_of = "updates",
       .data_operand = "updates",
       .family = ShapeFamily::ScatterND,
       .reference = mindspore_scatter_nd,
       .output_shape = shape_rules::kShapeArgument});
}

}  // namespace sp
