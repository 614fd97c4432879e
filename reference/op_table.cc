// op_table.cc — the entries of the op table (op_table.h), one per op, and
// the declarations of the reference functions they name (each defined in
// its own semantic file).
#include "reference/op_table.h"

#include <algorithm>
#include <stdexcept>

namespace sp {

// The reference functions, one semantic file each.
Expectation torch_gather(const OpCall& call, Trace* trace);           // torch_gather.cc
Expectation torch_scatter(const OpCall& call, Trace* trace);          // torch_scatter.cc
Expectation torch_scatter_add(const OpCall& call, Trace* trace);      // torch_scatter_add.cc
Expectation torch_scatter_reduce(const OpCall& call, Trace* trace);   // torch_scatter_reduce.cc
Expectation torch_index_select(const OpCall& call, Trace* trace);     // torch_index_select.cc
Expectation torch_index_add(const OpCall& call, Trace* trace);        // torch_index_add.cc
Expectation torch_index_copy(const OpCall& call, Trace* trace);       // torch_index_copy.cc
Expectation torch_index_fill(const OpCall& call, Trace* trace);       // torch_index_fill.cc
Expectation torch_index_reduce(const OpCall& call, Trace* trace);     // torch_index_reduce.cc
Expectation torch_take_along_dim(const OpCall& call, Trace* trace);   // torch_take_along_dim.cc
Expectation mindspore_scatter(const OpCall& call, Trace* trace);      // mindspore_scatter.cc
Expectation paddle_scatter(const OpCall& call, Trace* trace);         // paddle_scatter.cc
Expectation onnx_gather_elements(const OpCall& call, Trace* trace);   // onnx_gather_elements.cc
Expectation onnx_scatter_elements(const OpCall& call, Trace* trace);  // onnx_scatter_elements.cc (also onnx.Scatter)
Expectation onnx_gather_nd(const OpCall& call, Trace* trace);         // onnx_gather_nd.cc
Expectation onnx_scatter_nd(const OpCall& call, Trace* trace);        // onnx_scatter_nd.cc
// The backward references (the gradients from the documented rules).
Expectation torch_gather_backward(const OpCall& call, Trace* trace);          // torch_gather_backward.cc
Expectation torch_scatter_backward(const OpCall& call, Trace* trace);         // torch_scatter_backward.cc
Expectation torch_scatter_add_backward(const OpCall& call, Trace* trace);     // torch_scatter_add_backward.cc
Expectation torch_scatter_reduce_backward(const OpCall& call, Trace* trace);  // torch_scatter_reduce_backward.cc
Expectation paddle_scatter_backward(const OpCall& call, Trace* trace);        // paddle_scatter_backward.cc
Expectation mindspore_scatter_backward(const OpCall& call, Trace* trace);     // mindspore_scatter_backward.cc

namespace {

using T = Arg::Type;
using R = OperandRole;

const DTypeSet kAll = DTypeSet::all();
// PyTorch 1.13 documents and accepts an int64 index only.
const DTypeSet kTorchIndex{DType::Int64};
const DTypeSet kInt32Or64{DType::Int32, DType::Int64};
const DTypeSet kFloating{DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};
const DTypeSet kInt64{DType::Int64};

// ONNX's operator documentation (onnx/docs/Operators.md, the op schemas in
// onnx/defs/tensor/defs.cc and old.cc), onnx 1.23; each op's `opset`
// argument selects the version of its schema (reference/onnx_*.cc).
constexpr const char* kOnnxDoc = "ONNX operator documentation (docs/Operators.md and the op schemas), onnx 1.23";
ArgSpec onnx_axis() { return {"axis", T::Int, false, Arg::of_int(0), {}}; }
ArgSpec onnx_opset(int64_t latest) { return {"opset", T::Int, false, Arg::of_int(latest), {}}; }
ArgSpec onnx_reduction() {
  return {"reduction", T::String, false, Arg::of_string("none"), {"none", "add", "mul", "max", "min"}};
}
OpSpec onnx_op(std::string id, std::string summary, std::vector<OperandSpec> operands, std::vector<ArgSpec> args,
               std::string output_shape_of, ShapeFamily family, Expectation (*reference)(const OpCall&, Trace*),
               OutputShape output_shape = OutputShape::OfOperand) {
  return {std::move(id),
          "onnx",
          std::move(summary),
          kOnnxDoc,
          std::move(operands),
          std::move(args),
          false,
          "out",
          std::move(output_shape_of),
          "data",
          "data",
          family,
          reference,
          output_shape};
}

ArgSpec dim_arg() { return {"dim", T::Int, true, std::nullopt, {}}; }
// PyTorch's optional out= tensor; `may_be`: operands it may be the very
// same view of (T-OUT5).
OperandSpec out_param(std::vector<std::string> may_be) { return {"out", R::Out, kAll, "", std::move(may_be)}; }

// The in-place entry of a PyTorch op (self written in place, the output is
// self, operands self / index / a third one) and the table's defaults for
// its shape; torch_pair() derives the out-of-place twin.
OpSpec torch_in_place(std::string id, std::string summary, std::string source, DTypeSet index_dtypes, OperandSpec third,
                      std::vector<ArgSpec> args, ShapeFamily family, Expectation (*reference)(const OpCall&, Trace*)) {
  return {std::move(id),
          "torch",
          std::move(summary),
          std::move(source),
          {{"self", R::InPlace, kAll, ""}, {"index", R::Index, index_dtypes, ""}, std::move(third)},
          std::move(args),
          true,
          "self",
          "self",
          "self",
          "self",
          family,
          reference};
}

// Adds `in_place` and its out-of-place twin `out_id` (out = a copy of self,
// then the same writes; self is only read).
// With `takes_out`, the twin also takes PyTorch's out= tensor (T-OUT*).
void torch_pair(std::vector<OpSpec>& table, OpSpec in_place, std::string out_id, std::string out_summary,
                bool takes_out = false) {
  OpSpec out = in_place;
  out.id = std::move(out_id);
  out.summary = std::move(out_summary);
  out.in_place = false;
  out.output = "out";
  for (OperandSpec& o : out.operands)
    if (o.role == R::InPlace) o.role = R::Read;
  if (takes_out) out.operands.push_back(out_param({}));
  table.push_back(std::move(in_place));
  table.push_back(std::move(out));
}

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
  b.operands.push_back({std::string(kGradOutput), R::Read, kAll, "", {}, false});
  b.summary = "the backward of " + f.id + ": " + grads + " from grad_output (shaped like its output)";
  b.args = f.args;
  b.in_place = false;
  b.data_operand = f.data_operand;
  b.family = f.family;
  b.reference = f.backward;
  b.backward_of = f.id;
  return b;
}

std::vector<OpSpec> build_table() {
  std::vector<OpSpec> t;
  t.push_back({"torch.gather",
               "torch",
               "torch.gather: out[i][j][k] = input[index[i][j][k]][j][k] (dim 0)",
               "seed 000 (torch.gather explained, PyTorch 1.13)",
               {{"input", R::Read, kAll, ""}, {"index", R::Index, kTorchIndex, ""}, out_param({"index"})},
               {dim_arg()},
               false,
               "out",
               "index",
               "input",
               "input",
               ShapeFamily::Gather,
               torch_gather});
  // src or value, optional reduce.
  torch_pair(t,
             torch_in_place("torch.scatter_",
                            "Tensor.scatter_: writes src (or value) into self at index along dim, optionally reducing",
                            "seed 002 (PyTorch Tensor.scatter_ documentation, 1.13)", kTorchIndex,
                            {"src", R::Read, kAll, "value"},
                            {dim_arg(),
                             {"value", T::Scalar, false, std::nullopt, {}},
                             {"reduce", T::String, false, std::nullopt, {"add", "multiply"}}},
                            ShapeFamily::ScatterElements, torch_scatter),
             "torch.scatter", "torch.scatter: out = self.clone().scatter_(dim, index, src|value, reduce)",
             /*takes_out=*/true);
  torch_pair(
      t,
      torch_in_place("torch.scatter_add_", "Tensor.scatter_add_: adds src into self at index along dim",
                     "seed 002 (PyTorch Tensor.scatter_ documentation, 1.13: 'the same as scatter_add_')", kTorchIndex,
                     {"src", R::Read, kAll, ""}, {dim_arg()}, ShapeFamily::ScatterElements, torch_scatter_add),
      "torch.scatter_add", "torch.scatter_add: out = self.clone().scatter_add_(dim, index, src)");
  torch_pair(t,
             torch_in_place("torch.scatter_reduce_",
                            "Tensor.scatter_reduce_: reduces src into self at index along dim (sum, prod, mean, amax, "
                            "amin), optionally without self's own values",
                            "PyTorch documentation of Tensor.scatter_reduce_ / torch.scatter_reduce, 1.13 "
                            "(https://pytorch.org/docs/1.13/generated/torch.Tensor.scatter_reduce_.html)",
                            kTorchIndex, {"src", R::Read, kAll, ""},
                            {dim_arg(),
                             {"reduce", T::String, true, std::nullopt, {"sum", "prod", "mean", "amax", "amin"}},
                             {"include_self", T::Bool, false, Arg::of_bool(true), {}}},
                            ShapeFamily::ScatterElements, torch_scatter_reduce),
             "torch.scatter_reduce",
             "torch.scatter_reduce: out = self.clone().scatter_reduce_(dim, index, src, reduce, include_self)");
  torch_pair(t,
             torch_in_place("torch.index_add_",
                            "Tensor.index_add_: self[...][index[i]][...] += alpha * source[...][i][...] along dim "
                            "(a 1-D or 0-d index)",
                            "PyTorch documentation of Tensor.index_add_ / torch.index_add, 1.13 "
                            "(https://pytorch.org/docs/1.13/generated/torch.Tensor.index_add_.html)",
                            kInt32Or64, {"source", R::Read, kAll, ""},
                            {dim_arg(), {"alpha", T::Scalar, false, Arg::of_scalar(Scalar::of_int(1)), {}}},
                            ShapeFamily::IndexAlongDim, torch_index_add),
             "torch.index_add", "torch.index_add: out = self.clone().index_add_(dim, index, source, alpha=alpha)");
  torch_pair(t,
             torch_in_place("torch.index_copy_",
                            "Tensor.index_copy_: self[...][index[i]][...] = source[...][i][...] along dim (a 1-D or "
                            "0-d index; duplicates: any writer may win)",
                            "PyTorch documentation of Tensor.index_copy_ / torch.index_copy, 1.13 "
                            "(https://pytorch.org/docs/1.13/generated/torch.Tensor.index_copy_.html)",
                            kTorchIndex, {"source", R::Read, kAll, ""}, {dim_arg()}, ShapeFamily::IndexAlongDim,
                            torch_index_copy),
             "torch.index_copy", "torch.index_copy: out = self.clone().index_copy_(dim, index, source)");
  {
    // No third operand: value is a scalar argument.
    OpSpec index_fill = torch_in_place(
        "torch.index_fill_", "Tensor.index_fill_: self[...][index[i]][...] = value along dim (a 1-D or 0-d index)",
        "PyTorch documentation of Tensor.index_fill_ / torch.index_fill, 1.13 "
        "(https://pytorch.org/docs/1.13/generated/torch.Tensor.index_fill_.html)",
        kTorchIndex, {}, {dim_arg(), {"value", T::Scalar, true, std::nullopt, {}}}, ShapeFamily::IndexAlongDim,
        torch_index_fill);
    index_fill.operands.pop_back();
    torch_pair(t, std::move(index_fill), "torch.index_fill",
               "torch.index_fill: out = self.clone().index_fill_(dim, index, value)");
  }
  {
    // The document: "This function only supports floating point tensors"
    // (self and source); other dtypes are answered as unspecified (T-IR4).
    OpSpec index_reduce = torch_in_place(
        "torch.index_reduce_",
        "Tensor.index_reduce_: reduces source's slices into self's rows index[i] along dim (prod, mean, amax, "
        "amin), optionally without self's own values",
        "PyTorch documentation of Tensor.index_reduce_ / torch.index_reduce, 1.13 "
        "(https://pytorch.org/docs/1.13/generated/torch.Tensor.index_reduce_.html)",
        kInt32Or64, {"source", R::Read, kFloating, ""},
        {dim_arg(),
         {"reduce", T::String, true, std::nullopt, {"prod", "mean", "amax", "amin"}},
         {"include_self", T::Bool, false, Arg::of_bool(true), {}}},
        ShapeFamily::IndexAlongDim, torch_index_reduce);
    index_reduce.operands[0].dtypes = kFloating;
    torch_pair(t, std::move(index_reduce), "torch.index_reduce",
               "torch.index_reduce: out = self.clone().index_reduce_(dim, index, source, reduce, include_self)");
  }
  t.push_back({"torch.index_select",
               "torch",
               "torch.index_select: out[...][i][...] = input[...][index[i]][...] along dim (a 1-D or 0-d index)",
               "PyTorch documentation of torch.index_select, 1.13 "
               "(https://pytorch.org/docs/1.13/generated/torch.index_select.html)",
               {{"input", R::Read, kAll, ""}, {"index", R::Index, kInt32Or64, ""}, out_param({"index"})},
               {dim_arg()},
               false,
               "out",
               "input",
               "input",
               "input",
               ShapeFamily::IndexAlongDim,
               torch_index_select,
               OutputShape::IndexLengthAlongDim});
  // dim is optional: absent means None (both operands read flattened).
  t.push_back({"torch.take_along_dim",
               "torch",
               "torch.take_along_dim: out[i][j][k] = input[indices[i][j][k]][j][k] (dim 0) with indices and input "
               "broadcast apart from dim; without dim, input.flatten()[indices.flatten()]",
               "PyTorch documentation of torch.take_along_dim, 1.13 "
               "(https://pytorch.org/docs/1.13/generated/torch.take_along_dim.html)",
               {{"input", R::Read, kAll, ""}, {"indices", R::Index, kTorchIndex, ""}, out_param({"indices"})},
               {{"dim", T::Int, false, std::nullopt, {}}},
               false,
               "out",
               "input",
               "input",
               "input",
               ShapeFamily::TakeAlongDim,
               torch_take_along_dim,
               OutputShape::BroadcastAlongDim});
  t.push_back({"mindspore.scatter_",
               "mindspore",
               "MindSpore Tensor.scatter_: 4 overloads (src|value, reduce), negative indices allowed before r2.10",
               "seed 003 (MindSpore Tensor.scatter_ documentation; doc_version r2.10+ rules)",
               {{"self", R::InPlace, kAll, ""}, {"index", R::Index, kInt32Or64, ""}, {"src", R::Read, kAll, "value"}},
               {dim_arg(),
                {"value", T::Scalar, false, std::nullopt, {}},
                {"reduce", T::String, false, std::nullopt, {"add", "multiply"}}},
               true,
               "self",
               "self",
               "self",
               "self",
               ShapeFamily::ScatterElements,
               mindspore_scatter});
  t.push_back({"paddle.scatter",
               "paddle",
               "paddle.scatter: rows of x replaced (overwrite=True) or accumulated from updates at index",
               "seed 004 (PaddlePaddle paddle.scatter documentation)",
               {{"x", R::Read, kAll, ""}, {"index", R::Index, kInt32Or64, ""}, {"updates", R::Read, kAll, ""}},
               {{"overwrite", T::Bool, false, Arg::of_bool(true), {}}},
               false,
               "out",
               "x",
               "x",
               "x",
               ShapeFamily::RowScatter,
               paddle_scatter});
  // ONNX: out-of-place (a node's output), ONNX's own operand and attribute
  // names; `axis` first (the generator's dim), then the opset.
  t.push_back(onnx_op("onnx.GatherElements",
                      "ONNX GatherElements: out[i][j][k] = data[indices[i][j][k]][j][k] (axis 0); negative indices "
                      "wrap (opset 11+)",
                      {{"data", R::Read, kAll, ""}, {"indices", R::Index, kInt32Or64, ""}},
                      {onnx_axis(), onnx_opset(13)}, "indices", ShapeFamily::Gather, onnx_gather_elements));
  t.push_back(onnx_op(
      "onnx.ScatterElements",
      "ONNX ScatterElements: out = data; out[indices[i][j]][j] = updates[i][j] (axis 0), or reduced "
      "with reduction add / mul (opset 16+), max / min (opset 18+)",
      {{"data", R::Read, kAll, ""}, {"indices", R::Index, kInt32Or64, ""}, {"updates", R::Read, kAll, ""}},
      {onnx_axis(), onnx_reduction(), onnx_opset(18)}, "data", ShapeFamily::ScatterElements, onnx_scatter_elements));
  t.push_back(
      onnx_op("onnx.Scatter",
              "ONNX Scatter (deprecated in opset 11 for ScatterElements): out = data; out[indices[i][j]][j] "
              "= updates[i][j] (axis 0)",
              {{"data", R::Read, kAll, ""}, {"indices", R::Index, kInt32Or64, ""}, {"updates", R::Read, kAll, ""}},
              {onnx_axis(), onnx_opset(11)}, "data", ShapeFamily::ScatterElements, onnx_scatter_elements));
  t.push_back(onnx_op("onnx.GatherND",
                      "ONNX GatherND: out[i] = data[indices[i]] for index tuples in indices' last dim, after "
                      "batch_dims shared leading dims (opset 12+)",
                      {{"data", R::Read, kAll, ""}, {"indices", R::Index, kInt64, ""}},
                      {{"batch_dims", T::Int, false, Arg::of_int(0), {}}, onnx_opset(13)}, "data",
                      ShapeFamily::GatherND, onnx_gather_nd, OutputShape::GatherND));
  t.push_back(onnx_op("onnx.ScatterND",
                      "ONNX ScatterND: out = data; out[indices[i]] = updates[i] for index tuples in indices' last dim, "
                      "or reduced with reduction add / mul (opset 16+), max / min (opset 18+)",
                      {{"data", R::Read, kAll, ""}, {"indices", R::Index, kInt64, ""}, {"updates", R::Read, kAll, ""}},
                      {onnx_reduction(), onnx_opset(18)}, "data", ShapeFamily::ScatterND, onnx_scatter_nd));
  differentiable(t, {"torch.gather"}, {"input"}, torch_gather_backward);
  differentiable(t, {"torch.scatter_", "torch.scatter"}, {"self", "src"}, torch_scatter_backward);
  differentiable(t, {"torch.scatter_add_", "torch.scatter_add"}, {"self", "src"}, torch_scatter_add_backward);
  differentiable(t, {"torch.scatter_reduce_", "torch.scatter_reduce"}, {"self", "src"}, torch_scatter_reduce_backward);
  differentiable(t, {"paddle.scatter"}, {"x", "updates"}, paddle_scatter_backward);
  differentiable(t, {"mindspore.scatter_"}, {"self", "src"}, mindspore_scatter_backward);
  const size_t forward_ops = t.size();
  for (size_t i = 0; i < forward_ops; ++i)
    if (t[i].backward) t.push_back(derive_backward(t[i]));
  return t;
}

}  // namespace

std::vector<DType> DTypeSet::members() const {
  std::vector<DType> out;
  for (DType t : kAllDTypes)
    if (contains(t)) out.push_back(t);
  return out;
}

std::string DTypeSet::describe() const {
  const std::vector<DType> m = members();
  if (m.size() == static_cast<size_t>(kNumDTypes)) return "every dtype";
  std::string s;
  for (DType t : m) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
  return s.empty() ? "none" : s;
}

std::string_view operand_role_name(OperandRole r) {
  switch (r) {
    case OperandRole::Read:
      return "read";
    case OperandRole::Index:
      return "index";
    case OperandRole::InPlace:
      return "in place";
    case OperandRole::Out:
      return "out (optional)";
  }
  return "?";
}

const OperandSpec* OpSpec::operand(std::string_view name) const {
  for (const OperandSpec& o : operands)
    if (o.name == name) return &o;
  return nullptr;
}

const ArgSpec* OpSpec::arg(std::string_view name) const {
  for (const ArgSpec& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

std::optional<Arg> OpSpec::arg_or_default(const OpCall& call, std::string_view name) const {
  if (const Arg* given = call.arg(std::string(name))) return *given;
  if (const ArgSpec* spec = arg(name)) return spec->default_value;
  return std::nullopt;
}

const std::vector<OpSpec>& op_table() {
  static const std::vector<OpSpec> table = build_table();
  return table;
}

const OpSpec* find_op(std::string_view id) {
  for (const OpSpec& op : op_table())
    if (op.id == id) return &op;
  return nullptr;
}

const OpSpec& op_spec(std::string_view id) {
  const OpSpec* op = find_op(id);
  if (!op) throw std::invalid_argument("unknown op '" + std::string(id) + "'");
  return *op;
}

namespace {

// OutputShape::BroadcastAlongDim (take_along_dim): nullopt when the index
// operand is missing, the ranks differ, dim is out of range or a dim apart
// from dim does not broadcast. A 0-d `of` with a dim keeps its 0-d shape.
std::optional<Shape> broadcast_along_dim_shape(const OpSpec& op, const OpCall& call, const Tensor& of) {
  const Tensor* index = nullptr;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Index) index = call.tensor(o.name);
  if (!index) return std::nullopt;
  const std::optional<int64_t> dim = call.int_arg("dim");
  if (!dim) return Shape{index->numel()};
  const int64_t rank = std::max<int64_t>(of.rank(), 1);
  if (index->rank() != of.rank() || *dim < -rank || *dim >= rank) return std::nullopt;
  if (of.rank() == 0) return of.shape();
  const size_t along = static_cast<size_t>(*dim < 0 ? *dim + rank : *dim);
  Shape shape = of.shape();
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t a = of.shape()[d], b = index->shape()[d];
    if (d == along)
      shape[d] = b;
    else if (a == b || b == 1)
      shape[d] = a;
    else if (a == 1)
      shape[d] = b;
    else
      return std::nullopt;
  }
  return shape;
}

}  // namespace

namespace {

// indices.shape[:-1] + data.shape[batch_dims + k:], k = indices.shape[-1];
// nullopt when the shapes cannot make one (the reference says why).
std::optional<Shape> gather_nd_shape(const OpSpec& op, const OpCall& call, const Tensor& data) {
  const Tensor* indices = nullptr;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Index) indices = call.tensor(o.name);
  const int64_t batch_dims = op.arg_or_default(call, "batch_dims")->i;
  if (!indices || indices->rank() < 1 || batch_dims < 0) return std::nullopt;
  const int64_t k = indices->shape().back();
  if (batch_dims + k > data.rank() || batch_dims >= indices->rank()) return std::nullopt;
  Shape shape(indices->shape().begin(), indices->shape().end() - 1);
  shape.insert(shape.end(), data.shape().begin() + batch_dims + k, data.shape().end());
  return shape;
}

}  // namespace

std::optional<Shape> output_shape_of(const OpSpec& op, const OpCall& call) {
  const Tensor* of = call.tensor(op.output_shape_of);
  if (!of) return std::nullopt;
  if (op.output_shape == OutputShape::OfOperand) return of->shape();
  if (op.output_shape == OutputShape::BroadcastAlongDim) return broadcast_along_dim_shape(op, call, *of);
  if (op.output_shape == OutputShape::GatherND) return gather_nd_shape(op, call, *of);
  const Tensor* index = nullptr;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Index) index = call.tensor(o.name);
  const std::optional<int64_t> dim = call.int_arg("dim");
  const int64_t rank = std::max<int64_t>(of->rank(), 1);  // a 0-d tensor has one dim to select along
  if (!index || !dim || *dim < -rank || *dim >= rank) return std::nullopt;
  if (of->rank() == 0) return of->shape();
  Shape shape = of->shape();
  shape[static_cast<size_t>(*dim < 0 ? *dim + rank : *dim)] = index->numel();
  return shape;
}

const OpSpec* backward_op(const OpSpec& forward) {
  return forward.backward ? find_op(forward.id + ".backward") : nullptr;
}

std::vector<std::string> grad_operands(const OpSpec& backward, const OpCall& call) {
  if (backward.backward_of.empty()) throw std::logic_error(backward.id + " is not a backward op");
  std::vector<std::string> names;
  for (const OperandSpec& o : backward.operands)
    if (o.differentiable && call.tensor(o.name)) names.push_back(o.name);
  return names;
}

std::vector<std::string> known_ops() {
  std::vector<std::string> ids;
  for (const OpSpec& op : op_table()) ids.push_back(op.id);
  return ids;
}

bool is_known_op(std::string_view op) { return find_op(op) != nullptr; }

bool is_inplace_op(std::string_view op) {
  const OpSpec* spec = find_op(op);
  return spec ? spec->in_place : (!op.empty() && op.back() == '_');
}

std::string output_name(std::string_view op) { return is_inplace_op(op) ? "self" : "out"; }

const OperandSpec* out_operand(const OpSpec& op) {
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Out) return &o;
  return nullptr;
}

std::string written_operand(const OpCall& call) {
  const OpSpec* spec = find_op(call.op);
  if (!spec) return is_inplace_op(call.op) ? "self" : "";
  if (spec->in_place) return spec->output;
  const OperandSpec* out = out_operand(*spec);
  return out && call.tensor(out->name) ? out->name : "";
}

std::optional<SignatureProblem> check_signature(const OpCall& call) {
  const OpSpec* spec = find_op(call.op);
  if (!spec) return SignatureProblem{"op", "unknown op \"" + call.op + "\""};
  auto names_of = [](const auto& list) {
    std::string names;
    for (const auto& x : list) names += (names.empty() ? "" : ", ") + x.name;
    return names.empty() ? std::string("none") : names;
  };
  for (const auto& [name, tensor] : call.tensors)
    if (!spec->operand(name))
      return SignatureProblem{
          "inputs." + name, call.op + " has no operand " + name + " (its operands: " + names_of(spec->operands) + ")"};
  for (const auto& [name, value] : call.args) {
    const ArgSpec* a = spec->arg(name);
    if (!a)
      return SignatureProblem{
          "args." + name, call.op + " takes no argument " + name + " (its arguments: " + names_of(spec->args) + ")"};
    if (value.type != a->type)
      return SignatureProblem{"args." + name, call.op + " argument " + name + " is a " +
                                                  std::string(arg_type_name(a->type)) + ", not a " +
                                                  std::string(arg_type_name(value.type))};
  }
  for (const OperandSpec& o : spec->operands) {
    const bool given = call.tensor(o.name) != nullptr;
    if (!o.or_arg.empty()) {
      const bool arg_given = call.arg(o.or_arg) != nullptr;
      if (given && arg_given)
        return SignatureProblem{"args." + o.or_arg,
                                "give either inputs." + o.name + " or args." + o.or_arg + ", not both"};
      if (!given && !arg_given)
        return SignatureProblem{"inputs." + o.name,
                                "missing: " + call.op + " needs inputs." + o.name + " or args." + o.or_arg};
    } else if (!given && o.role != OperandRole::Out) {
      return SignatureProblem{"inputs." + o.name, "missing: " + call.op + " needs operand " + o.name};
    }
  }
  for (const ArgSpec& a : spec->args)
    if (a.required && !call.arg(a.name))
      return SignatureProblem{"args." + a.name, "missing: " + call.op + " needs args." + a.name};
  return std::nullopt;
}

}  // namespace sp
