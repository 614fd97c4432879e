// op_table_entries.cc — the entries of the op table (op_table.h), one per
// op (the PyTorch ones in op_table_torch.cc), the declarations of the
// reference functions they name (each defined in its own semantic file),
// and the backward ops derived from them. op_table.cc answers the queries.
#include <algorithm>
#include <stdexcept>

#include "reference/op_table.h"
#include "reference/output_shapes.h"

// The entries name only the fields that differ from OpSpec's defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp {

// The reference functions, one semantic file each.
Expectation mindspore_scatter(const OpCall& call,
                              Trace* trace);  // mindspore_scatter.cc
Expectation paddle_scatter(const OpCall& call,
                           Trace* trace);  // paddle_scatter.cc
Expectation paddle_put_along_axis(const OpCall& call,
                                  Trace* trace);  // paddle_put_along_axis.cc
Expectation paddle_take_along_axis(const OpCall& call,
                                   Trace* trace);  // paddle_take_along_axis.cc
Expectation paddle_index_add(const OpCall& call,
                             Trace* trace);  // paddle_index_add.cc
Expectation paddle_index_select(const OpCall& call,
                                Trace* trace);  // paddle_index_select.cc
Expectation paddle_gather(const OpCall& call,
                          Trace* trace);  // paddle_gather.cc
Expectation paddle_gather_nd(const OpCall& call,
                             Trace* trace);  // paddle_gather_nd.cc
Expectation paddle_scatter_nd_add(const OpCall& call,
                                  Trace* trace);  // paddle_scatter_nd_add.cc
Expectation paddle_scatter_nd(const OpCall& call,
                              Trace* trace);  // paddle_scatter_nd.cc
Expectation onnx_gather_elements(const OpCall& call,
                                 Trace* trace);  // onnx_gather_elements.cc
Expectation onnx_scatter_elements(const OpCall& call,
                                  Trace* trace);  // onnx_scatter_elements.cc (also onnx.Scatter)
Expectation onnx_gather_nd(const OpCall& call,
                           Trace* trace);  // onnx_gather_nd.cc
Expectation onnx_scatter_nd(const OpCall& call,
                            Trace* trace);  // onnx_scatter_nd.cc
// The backward references (the gradients from the documented rules).
Expectation torch_gather_backward(const OpCall& call,
                                  Trace* trace);  // torch_gather_backward.cc
Expectation torch_scatter_backward(const OpCall& call,
                                   Trace* trace);  // torch_scatter_backward.cc
Expectation torch_scatter_add_backward(const OpCall& call,
                                       Trace* trace);  // torch_scatter_add_backward.cc
Expectation torch_scatter_reduce_backward(const OpCall& call,
                                          Trace* trace);  // torch_scatter_reduce_backward.cc
Expectation paddle_scatter_backward(const OpCall& call,
                                    Trace* trace);  // paddle_scatter_backward.cc
Expectation mindspore_scatter_backward(const OpCall& call,
                                       Trace* trace);  // mindspore_scatter_backward.cc
Expectation mindspore_gather_elements_backward(const OpCall& call,
                                               Trace* trace);  // mindspore_gather_elements_backward.cc
Expectation mindspore_tensor_scatter_elements_backward(const OpCall& call,
                                                       Trace* trace);  // mindspore_tensor_scatter_elements_backward.cc
Expectation mindspore_mint_scatter_backward(const OpCall& call,
                                            Trace* trace);  // mindspore_mint_scatter_backward.cc
Expectation mindspore_mint_scatter_add_backward(const OpCall& call,
                                                Trace* trace);  // mindspore_mint_scatter_backward.cc

void add_torch_ops(std::vector<OpSpec>& t);         // op_table_torch.cc
void add_stablehlo_ops(std::vector<OpSpec>& t);     // op_table_stablehlo.cc
void add_jax_ops(std::vector<OpSpec>& t);           // op_table_jax.cc
void add_mindspore_nd_ops(std::vector<OpSpec>& t);  // op_table_mindspore.cc

// op_table_mindspore_elements.cc
void add_mindspore_element_ops(std::vector<OpSpec>& t);

namespace {

using T = Arg::Type;
using R = OperandRole;

const DTypeSet kInt32Or64{DType::Int32, DType::Int64};
const DTypeSet kInt64{DType::Int64};

// ONNX's operator documentation (onnx/docs/Operators.md, the op schemas in
// onnx/defs/tensor/defs.cc and old.cc), onnx 1.23; each op's `opset`
// argument selects the version of its schema (reference/onnx_*.cc).
constexpr const char* kOnnxDoc =
    "ONNX operator documentation (docs/Operators.md and the op schemas), onnx "
    "1.23";
ArgSpec onnx_axis() { return {.name = "axis", .type = T::Int, .default_value = Arg::of_int(0)}; }
ArgSpec onnx_opset(int64_t latest) { return {.name = "opset", .type = T::Int, .default_value = Arg::of_int(latest)}; }
ArgSpec onnx_reduction() {
  return {.name = "reduction",
          .type = T::String,
          .default_value = Arg::of_string("none"),
          .allowed = {"none", "add", "mul", "max", "min"}};
}
// An ONNX entry: `e` names the op, its summary, operands, arguments, schema
// versions, shape rule, family and reference; the rest is every ONNX op's
// (out-of-place, a node's output, shaped by output_shape_of and typed like
// data, and the `opset` argument last, the latest version by default).
OpSpec onnx_op(OpSpec e) {
  e.args.push_back(onnx_opset(e.opsets.back()));
  e.dialect = "onnx";
  e.source = kOnnxDoc;
  e.in_place = false;
  e.output = "out";
  e.output_dtype_of = "data";
  e.data_operand = "data";
  return e;
}

ArgSpec dim_arg() { return {.name = "dim", .type = T::Int, .required = true}; }

// Marks `operands` of each op in `ids` differentiable, with the op's
// backward reference.
void differentiable(std::vector<OpSpec>& table, std::vector<std::string> ids, std::vector<std::string> operands,
                    Expectation (*backward)(const OpCall&, Trace*)) {
  for (const std::string& id : ids) {
    auto op = std::find_if(table.begin(), table.end(), [&](const OpSpec& o) { return o.id == id; });
    if (op == table.end()) throw std::logic_error("op table: no op " + id + " to mark differentiable");
    for (const std::string& name : operands) {
      auto o =
          std::find_if(op->operands.begin(), op->operands.end(), [&](const OperandSpec& x) { return x.name == name; });
      if (o == op->operands.end()) throw std::logic_error("op table: " + id + " has no operand " + name);
      o->differentiable = true;
    }
    op->backward = backward;
  }
}

// `<id>.backward` (op_table.h, OpSpec::backward_of): the forward's
// operands, none written and out= left out, then grad_output; the forward's
// arguments; the gradients as outputs (the first one names the op's
// `output`, shape and dtype).
OpSpec derive_backward(const OpSpec& f) {
  OpSpec b;
  b.id = f.id + ".backward";
  b.dialect = f.dialect;
  b.source = f.source;
  std::string grads;
  for (OperandSpec o : f.operands) {
    if (o.role == R::Out) continue;
    if (o.role == R::InPlace) o.role = R::Read;
    o.out_may_be.clear();
    if (o.differentiable) {
      grads += (grads.empty() ? "" : ", ") + grad_name(o.name);
      if (b.output.empty()) b.output = grad_name(o.name), b.output_shape_of = o.name, b.output_dtype_of = o.name;
    }
    b.operands.push_back(std::move(o));
  }
  b.operands.push_back({.name = std::string(kGradOutput), .role = R::Read});
  b.summary = "the backward of " + f.id + ": " + grads + " from grad_output (shaped like its output)";
  b.args = f.args;
  b.in_place = false;
  b.data_operand = f.data_operand;
  b.family = f.family;
  b.reference = f.backward;
  b.backward_of = f.id;
  return b;
}

// mindspore.scatter_ and paddle.scatter.
void add_mindspore_paddle_ops(std::vector<OpSpec>& t) {
  t.push_back({.id = "mindspore.scatter_",
               .dialect = "mindspore",
               .summary = "MindSpore Tensor.scatter_: 4 overloads (src|value, reduce), "
                          "negative indices allowed "
                          "before r2.10",
               .source = "seed 003 (MindSpore Tensor.scatter_ documentation; "
                         "doc_version r2.10+ rules)",
               .operands = {{.name = "self", .role = R::InPlace},
                            {.name = "index", .role = R::Index, .dtypes = kInt32Or64},
                            {.name = "src", .role = R::Read, .or_arg = "value"}},
               .args = {dim_arg(),
                        {.name = "value", .type = T::Scalar},
                        {.name = "reduce", .type = T::String, .allowed = {"add", "multiply"}}},
               .in_place = true,
               .output = "self",
               .output_shape_of = "self",
               .output_dtype_of = "self",
               .data_operand = "self",
               .family = ShapeFamily::ScatterElements,
               .reference = mindspore_scatter});
  t.push_back({.id = "paddle.scatter",
               .dialect = "paddle",
               .summary = "paddle.scatter: rows of x replaced (overwrite=True) or "
                          "accumulated from updates at index",
               .source = "seed 004 (PaddlePaddle paddle.scatter documentation)",
               .operands = {{.name = "x", .role = R::Read},
                            {.name = "index", .role = R::Index, .dtypes = kInt32Or64},
                            {.name = "updates", .role = R::Read}},
               .args = {{.name = "overwrite", .type = T::Bool, .default_value = Arg::of_bool(true)}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "x",
               .output_dtype_of = "x",
               .data_operand = "x",
               .family = ShapeFamily::RowScatter,
               .reference = paddle_scatter});
}

// Paddle's family beyond paddle.scatter (issue 35): put_along_axis and
// take_along_axis here, index_add, index_select and gather below.
void add_paddle_along_axis_ops(std::vector<OpSpec>& t) {
  // Tensor.put_along_axis_ writes arr in place; paddle.put_along_axis is
  // its out-of-place twin (out = a copy of arr, then the same writes).
  OpSpec put_along_axis_ = {
      .id = "paddle.put_along_axis_",
      .dialect = "paddle",
      .summary =
          "Tensor.put_along_axis_: arr[... indices ...] = reduce(values) along axis, indices and values "
          "broadcast (broadcast=True)",
      .source =
          "PaddlePaddle API documentation 3.x (paddle.put_along_axis, Tensor.put_along_axis_; 3.3.1's "
          "docstring), 2.6 where it differs",
      .operands = {{.name = "arr", .role = R::InPlace},
                   {.name = "indices", .role = R::Index, .dtypes = kInt32Or64},
                   {.name = "values", .role = R::Read, .or_arg = "value"}},
      .args = {{.name = "axis", .type = T::Int, .required = true},
               {.name = "value", .type = T::Scalar},
               {.name = "reduce",
                .type = T::String,
                .default_value = Arg::of_string("assign"),
                .allowed = {"assign", "add", "mul", "multiply", "mean", "amin", "amax"}},
               {.name = "include_self", .type = T::Bool, .default_value = Arg::of_bool(true)},
               {.name = "broadcast", .type = T::Bool, .default_value = Arg::of_bool(true)}},
      .in_place = true,
      .output = "arr",
      .output_shape_of = "arr",
      .output_dtype_of = "arr",
      .data_operand = "arr",
      .family = ShapeFamily::ScatterElements,
      .reference = paddle_put_along_axis,
      .twin = "paddle.put_along_axis"};
  OpSpec put_along_axis = put_along_axis_;
  put_along_axis.id = "paddle.put_along_axis";
  put_along_axis.summary = "paddle.put_along_axis: out = arr with values put (or reduced) along axis at indices";
  put_along_axis.operands[0].role = R::Read;
  put_along_axis.in_place = false;
  put_along_axis.output = "out";
  put_along_axis.twin = put_along_axis_.id;
  t.push_back(std::move(put_along_axis_));
  t.push_back(std::move(put_along_axis));
  t.push_back(
      {.id = "paddle.take_along_axis",
       .dialect = "paddle",
       .summary = "paddle.take_along_axis: out = arr[... indices ...] along axis, indices and arr broadcast "
                  "against each other apart from axis (broadcast=True)",
       .source = "PaddlePaddle API documentation 3.x (paddle.take_along_axis; 3.3.1's docstring), 2.6 where "
                 "it differs",
       .operands = {{.name = "arr", .role = R::Read}, {.name = "indices", .role = R::Index, .dtypes = kInt32Or64}},
       .args = {{.name = "axis", .type = T::Int, .required = true},
                {.name = "broadcast", .type = T::Bool, .default_value = Arg::of_bool(true)}},
       .in_place = false,
       .output = "out",
       .output_shape_of = "arr",
       .output_dtype_of = "arr",
       .data_operand = "arr",
       .family = ShapeFamily::TakeAlongDim,
       .reference = paddle_take_along_axis,
       .output_shape = shape_rules::kAlongAxis});
}

void add_paddle_index_ops(std::vector<OpSpec>& t) {
  // Tensor.index_add_ writes x in place; paddle.index_add is its twin.
  OpSpec index_add_ = {
      .id = "paddle.index_add_",
      .dialect = "paddle",
      .summary = "Tensor.index_add_: x[..., index[i], ...] += alpha * value[..., i, ...] along axis",
      .source =
          "PaddlePaddle API documentation 3.x (paddle.index_add, index_add_; 3.3.1's docstring for alpha), "
          "2.6 where it differs",
      .operands = {{.name = "x", .role = R::InPlace},
                   {.name = "index", .role = R::Index, .dtypes = kInt32Or64},
                   {.name = "value", .role = R::Read}},
      .args = {{.name = "axis", .type = T::Int, .required = true}, {.name = "alpha", .type = T::Scalar}},
      .in_place = true,
      .output = "x",
      .output_shape_of = "x",
      .output_dtype_of = "x",
      .data_operand = "x",
      .family = ShapeFamily::IndexAlongDim,
      .reference = paddle_index_add,
      .twin = "paddle.index_add"};
  OpSpec index_add = index_add_;
  index_add.id = "paddle.index_add";
  index_add.summary = "paddle.index_add: out = x with alpha * value added along axis at index";
  index_add.operands[0].role = R::Read;
  index_add.in_place = false;
  index_add.output = "out";
  index_add.twin = index_add_.id;
  t.push_back(std::move(index_add_));
  t.push_back(std::move(index_add));
  t.push_back({.id = "paddle.index_select",
               .dialect = "paddle",
               .summary = "paddle.index_select: out[..., i, ...] = x[..., index[i], ...] along axis",
               .source = "PaddlePaddle API documentation 3.x (paddle.index_select; 3.3.1's docstring), 2.6 where it "
                         "differs",
               .operands = {{.name = "x", .role = R::Read}, {.name = "index", .role = R::Index, .dtypes = kInt32Or64}},
               .args = {{.name = "axis", .type = T::Int, .default_value = Arg::of_int(0)}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "x",
               .output_dtype_of = "x",
               .data_operand = "x",
               .family = ShapeFamily::IndexAlongDim,
               .reference = paddle_index_select,
               .output_shape = shape_rules::kIndexLengthAlongDim});
  t.push_back({.id = "paddle.gather",
               .dialect = "paddle",
               .summary = "paddle.gather: out = x's slices along axis at a 1-D index (a 0-d index drops axis)",
               .source = "PaddlePaddle API documentation 3.x (paddle.gather; 3.3.1's docstring), 2.6 where it differs",
               .operands = {{.name = "x", .role = R::Read}, {.name = "index", .role = R::Index, .dtypes = kInt32Or64}},
               .args = {{.name = "axis", .type = T::Int, .default_value = Arg::of_int(0)}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "x",
               .output_dtype_of = "x",
               .data_operand = "x",
               .family = ShapeFamily::IndexAlongDim,
               .reference = paddle_gather,
               .output_shape = shape_rules::kGatherAlongAxis});
}

// PaddlePaddle's ND ops: index tuples in the index's last dim (the ONNX ND
// ops' shape families and rules, reference/nd_slices.h).
void add_paddle_nd_ops(std::vector<OpSpec>& t) {
  t.push_back({.id = "paddle.gather_nd",
               .dialect = "paddle",
               .summary = "paddle.gather_nd: out[i] = x[index[i]] for index tuples in index's last dim (slices when "
                          "shorter than x's rank)",
               .source = "PaddlePaddle API documentation 3.x (paddle.gather_nd; 3.3.1's docstring), 2.6 where it "
                         "differs",
               .operands = {{.name = "x", .role = R::Read}, {.name = "index", .role = R::Index, .dtypes = kInt32Or64}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "x",
               .output_dtype_of = "x",
               .data_operand = "x",
               .family = ShapeFamily::GatherND,
               .reference = paddle_gather_nd,
               .output_shape = shape_rules::kGatherND});
  t.push_back({.id = "paddle.scatter_nd_add",
               .dialect = "paddle",
               .summary = "paddle.scatter_nd_add: out = x; out[index[i]] += updates[i] for index tuples in index's "
                          "last dim (duplicates accumulate)",
               .source = "PaddlePaddle API documentation 3.x (paddle.scatter_nd_add; 3.3.1's docstring), 2.6 where "
                         "it differs",
               .operands = {{.name = "x", .role = R::Read},
                            {.name = "index", .role = R::Index, .dtypes = kInt32Or64},
                            {.name = "updates", .role = R::Read}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "x",
               .output_dtype_of = "x",
               .data_operand = "x",
               .family = ShapeFamily::ScatterND,
               .reference = paddle_scatter_nd_add});
  t.push_back(
      {.id = "paddle.scatter_nd",
       .dialect = "paddle",
       .summary = "paddle.scatter_nd: out = zeros(shape); out[index[i]] += updates[i] for index tuples in "
                  "index's last dim (scatter_nd_add onto zeros)",
       .source = "PaddlePaddle API documentation 3.x (paddle.scatter_nd; 3.3.1's docstring), 2.6 where it "
                 "differs",
       .operands = {{.name = "index", .role = R::Index, .dtypes = kInt32Or64}, {.name = "updates", .role = R::Read}},
       .args = {{.name = "shape", .type = T::IntList, .required = true}},
       .in_place = false,
       .output = "out",
       .output_shape_of = "updates",
       .output_dtype_of = "updates",
       .data_operand = "updates",
       .family = ShapeFamily::ScatterND,
       .reference = paddle_scatter_nd,
       .output_shape = shape_rules::kShapeArgument});
}

// The ONNX ops.
void add_onnx_ops(std::vector<OpSpec>& t) {
  // ONNX: out-of-place (a node's output), ONNX's own operand and attribute
  // names; `axis` first (the generator's dim), then the opset.
  t.push_back(onnx_op(
      {.id = "onnx.GatherElements",
       .summary = "ONNX GatherElements: out[i][j][k] = "
                  "data[indices[i][j][k]][j][k] (axis 0); negative "
                  "indices wrap (opset 11+)",
       .operands = {{.name = "data", .role = R::Read}, {.name = "indices", .role = R::Index, .dtypes = kInt32Or64}},
       .args = {onnx_axis()},
       .opsets = {11, 13},
       .output_shape_of = "indices",
       .family = ShapeFamily::Gather,
       .reference = onnx_gather_elements}));
  t.push_back(onnx_op({.id = "onnx.ScatterElements",
                       .summary = "ONNX ScatterElements: out = data; out[indices[i][j]][j] = "
                                  "updates[i][j] (axis 0), "
                                  "or reduced with reduction add / mul (opset 16+), max / min "
                                  "(opset 18+)",
                       .operands = {{.name = "data", .role = R::Read},
                                    {.name = "indices", .role = R::Index, .dtypes = kInt32Or64},
                                    {.name = "updates", .role = R::Read}},
                       .args = {onnx_axis(), onnx_reduction()},
                       .opsets = {11, 13, 16, 18},
                       .output_shape_of = "data",
                       .family = ShapeFamily::ScatterElements,
                       .reference = onnx_scatter_elements}));
  t.push_back(onnx_op({.id = "onnx.Scatter",
                       .summary = "ONNX Scatter (deprecated in opset 11 for ScatterElements): "
                                  "out = data; "
                                  "out[indices[i][j]][j] = updates[i][j] (axis 0)",
                       .operands = {{.name = "data", .role = R::Read},
                                    {.name = "indices", .role = R::Index, .dtypes = kInt32Or64},
                                    {.name = "updates", .role = R::Read}},
                       .args = {onnx_axis()},
                       .opsets = {9, 11},
                       .output_shape_of = "data",
                       .family = ShapeFamily::ScatterElements,
                       .reference = onnx_scatter_elements}));
  t.push_back(
      onnx_op({.id = "onnx.GatherND",
               .summary = "ONNX GatherND: out[i] = data[indices[i]] for index tuples "
                          "in indices' last dim, "
                          "after batch_dims shared leading dims (opset 12+)",
               .operands = {{.name = "data", .role = R::Read}, {.name = "indices", .role = R::Index, .dtypes = kInt64}},
               .args = {{.name = "batch_dims", .type = T::Int, .default_value = Arg::of_int(0)}},
               .opsets = {11, 12, 13},
               .output_shape_of = "data",
               .family = ShapeFamily::GatherND,
               .reference = onnx_gather_nd,
               .output_shape = shape_rules::kGatherND}));
  t.push_back(onnx_op({.id = "onnx.ScatterND",
                       .summary = "ONNX ScatterND: out = data; out[indices[i]] = updates[i] "
                                  "for index tuples in "
                                  "indices' last dim, or reduced with reduction add / mul "
                                  "(opset 16+), max / min "
                                  "(opset 18+)",
                       .operands = {{.name = "data", .role = R::Read},
                                    {.name = "indices", .role = R::Index, .dtypes = kInt64},
                                    {.name = "updates", .role = R::Read}},
                       .args = {onnx_reduction()},
                       .opsets = {11, 13, 16, 18},
                       .output_shape_of = "data",
                       .family = ShapeFamily::ScatterND,
                       .reference = onnx_scatter_nd}));
}

// PyTorch, MindSpore and PaddlePaddle document no uint16 / uint32 / uint64
// operand (torch's own dtype page: "limited support" in eager mode; the
// seed documents list none): an operand the entry leaves at every dtype
// documents the other ten (SEMANTICS.md C-7). ONNX's T and StableHLO's
// tensor types do list them.
void without_wide_unsigned(std::vector<OpSpec>& t) {
  const DTypeSet ten{DType::Bool,  DType::UInt8,   DType::Int8,     DType::Int16,   DType::Int32,
                     DType::Int64, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};
  for (OpSpec& op : t)
    for (OperandSpec& o : op.operands)
      if (o.dtypes.members().size() == static_cast<size_t>(kNumDTypes)) o.dtypes = ten;
}

}  // namespace

// The op table's entries, in the order `list` prints them: the forward
// ops, then the backward ops derived from them (op_table.cc builds the
// table once).
std::vector<OpSpec> build_op_table() {
  std::vector<OpSpec> t;
  add_torch_ops(t);  // op_table_torch.cc
  add_mindspore_paddle_ops(t);
  add_paddle_along_axis_ops(t);
  add_paddle_index_ops(t);
  add_mindspore_nd_ops(t);  // op_table_mindspore.cc
  add_mindspore_element_ops(t);
  add_paddle_nd_ops(t);
  without_wide_unsigned(t);  // the torch, MindSpore and PaddlePaddle entries so far
  add_onnx_ops(t);
  add_stablehlo_ops(t);  // op_table_stablehlo.cc
  add_jax_ops(t);        // op_table_jax.cc
  differentiable(t, {"torch.gather"}, {"input"}, torch_gather_backward);
  differentiable(t, {"torch.scatter_", "torch.scatter"}, {"self", "src"}, torch_scatter_backward);
  differentiable(t, {"torch.scatter_add_", "torch.scatter_add"}, {"self", "src"}, torch_scatter_add_backward);
  differentiable(t, {"torch.scatter_reduce_", "torch.scatter_reduce"}, {"self", "src"}, torch_scatter_reduce_backward);
  differentiable(t, {"paddle.scatter"}, {"x", "updates"}, paddle_scatter_backward);
  differentiable(t, {"mindspore.scatter_"}, {"self", "src"}, mindspore_scatter_backward);
  differentiable(t, {"mindspore.ops.gather_elements"}, {"input"}, mindspore_gather_elements_backward);
  differentiable(t, {"mindspore.ops.tensor_scatter_elements"}, {"input_x", "updates"},
                 mindspore_tensor_scatter_elements_backward);
  differentiable(t, {"mindspore.mint.scatter"}, {"input", "src"}, mindspore_mint_scatter_backward);
  differentiable(t, {"mindspore.mint.scatter_add"}, {"input", "src"}, mindspore_mint_scatter_add_backward);
  const size_t forward_ops = t.size();
  for (size_t i = 0; i < forward_ops; ++i)
    if (t[i].backward) t.push_back(derive_backward(t[i]));
  return t;
}

}  // namespace sp
