// op_table_torch.cc — the PyTorch entries of the op table (op_table.h):
// torch.gather, the in-place ops and their out-of-place twins, index_select
// and take_along_dim (op_table_entries.cc adds them first).
#include <optional>

#include "reference/op_table.h"
#include "reference/output_shapes.h"

// The entries name only the fields that differ from OpSpec's defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sp {

// The reference functions, one semantic file each.
Expectation torch_gather(const OpCall& call, Trace* trace);   // torch_gather.cc
Expectation torch_scatter(const OpCall& call, Trace* trace);  // torch_scatter.cc
Expectation torch_scatter_add(const OpCall& call,
                              Trace* trace);  // torch_scatter_add.cc
Expectation torch_scatter_reduce(const OpCall& call,
                                 Trace* trace);  // torch_scatter_reduce.cc
Expectation torch_index_select(const OpCall& call,
                               Trace* trace);  // torch_index_select.cc
Expectation torch_index_add(const OpCall& call,
                            Trace* trace);  // torch_index_add.cc
Expectation torch_index_copy(const OpCall& call,
                             Trace* trace);  // torch_index_copy.cc
Expectation torch_index_fill(const OpCall& call,
                             Trace* trace);  // torch_index_fill.cc
Expectation torch_index_reduce(const OpCall& call,
                               Trace* trace);  // torch_index_reduce.cc
Expectation torch_take_along_dim(const OpCall& call,
                                 Trace* trace);  // torch_take_along_dim.cc

namespace {

using T = Arg::Type;
using R = OperandRole;

// PyTorch 1.13 documents and accepts an int64 index only.
const DTypeSet kTorchIndex{DType::Int64};
const DTypeSet kInt32Or64{DType::Int32, DType::Int64};
const DTypeSet kFloating{DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};

ArgSpec dim_arg() { return {.name = "dim", .type = T::Int, .required = true}; }
// PyTorch's optional out= tensor; `may_be`: operands it may be the very
// same view of (T-OUT5).
OperandSpec out_param(std::vector<std::string> may_be) {
  return {.name = "out", .role = R::Out, .out_may_be = std::move(may_be)};
}

// The in-place entry of a PyTorch op: `e` names the op, its summary,
// source, arguments, family and reference; self is written in place (the
// output is self), the operands are self / index (of `index_dtypes`) /
// `third` (none for index_fill_, whose value is an argument);
// torch_pair() derives the out-of-place twin.
OpSpec torch_in_place(OpSpec e, DTypeSet index_dtypes, std::optional<OperandSpec> third) {
  e.dialect = "torch";
  e.operands = {{.name = "self", .role = R::InPlace}, {.name = "index", .role = R::Index, .dtypes = index_dtypes}};
  if (third) e.operands.push_back(std::move(*third));
  e.in_place = true;
  e.output = e.output_shape_of = e.output_dtype_of = e.data_operand = "self";
  return e;
}

// The out-of-place twin of an in-place PyTorch op (out = a copy of self,
// then the same writes; self is only read); with `takes_out` it also takes
// PyTorch's out= tensor (T-OUT*).
struct Twin {
  std::string id;
  std::string summary;
  bool takes_out = false;
};

// Adds `in_place` and its out-of-place twin.
void torch_pair(std::vector<OpSpec>& table, OpSpec in_place, Twin twin) {
  OpSpec out = in_place;
  out.id = std::move(twin.id);
  out.summary = std::move(twin.summary);
  out.in_place = false;
  out.output = "out";
  for (OperandSpec& o : out.operands)
    if (o.role == R::InPlace) o.role = R::Read;
  if (twin.takes_out) out.operands.push_back(out_param({}));
  in_place.twin = out.id;
  out.twin = in_place.id;
  table.push_back(std::move(in_place));
  table.push_back(std::move(out));
}

// torch.gather and the scatter_ / scatter_add_ / scatter_reduce_ pairs.
void add_torch_gather_scatter(std::vector<OpSpec>& t) {
  t.push_back({.id = "torch.gather",
               .dialect = "torch",
               .summary = "torch.gather: out[i][j][k] = input[index[i][j][k]][j][k] (dim 0)",
               .source = "seed 000 (torch.gather explained, PyTorch 1.13)",
               .operands = {{.name = "input", .role = R::Read},
                            {.name = "index", .role = R::Index, .dtypes = kTorchIndex},
                            out_param({"index"})},
               .args = {dim_arg()},
               .in_place = false,
               .output = "out",
               .output_shape_of = "index",
               .output_dtype_of = "input",
               .data_operand = "input",
               .family = ShapeFamily::Gather,
               .reference = torch_gather});
  // src or value, optional reduce.
  torch_pair(t,
             torch_in_place({.id = "torch.scatter_",
                             .summary = "Tensor.scatter_: writes src (or value) into self at "
                                        "index along dim, optionally reducing",
                             .source = "seed 002 (PyTorch Tensor.scatter_ documentation, 1.13)",
                             .args = {dim_arg(),
                                      {.name = "value", .type = T::Scalar},
                                      {.name = "reduce", .type = T::String, .allowed = {"add", "multiply"}}},
                             .family = ShapeFamily::ScatterElements,
                             .reference = torch_scatter},
                            kTorchIndex, OperandSpec{.name = "src", .role = R::Read, .or_arg = "value"}),
             {.id = "torch.scatter",
              .summary = "torch.scatter: out = self.clone().scatter_(dim, index, "
                         "src|value, reduce)",
              .takes_out = true});
  torch_pair(t,
             torch_in_place({.id = "torch.scatter_add_",
                             .summary = "Tensor.scatter_add_: adds src into self at index along dim",
                             .source = "seed 002 (PyTorch Tensor.scatter_ documentation, 1.13: "
                                       "'the same as "
                                       "scatter_add_')",
                             .args = {dim_arg()},
                             .family = ShapeFamily::ScatterElements,
                             .reference = torch_scatter_add},
                            kTorchIndex, OperandSpec{.name = "src", .role = R::Read}),
             {.id = "torch.scatter_add",
              .summary = "torch.scatter_add: out = self.clone().scatter_add_(dim, "
                         "index, src)"});
  torch_pair(t,
             torch_in_place({.id = "torch.scatter_reduce_",
                             .summary = "Tensor.scatter_reduce_: reduces src into self at index "
                                        "along dim (sum, prod, "
                                        "mean, amax, amin), optionally without self's own values",
                             .source = "PyTorch documentation of Tensor.scatter_reduce_ / "
                                       "torch.scatter_reduce, 1.13 "
                                       "(https://pytorch.org/docs/1.13/generated/"
                                       "torch.Tensor.scatter_reduce_.html)",
                             .args = {dim_arg(),
                                      {.name = "reduce",
                                       .type = T::String,
                                       .required = true,
                                       .allowed = {"sum", "prod", "mean", "amax", "amin"}},
                                      {.name = "include_self", .type = T::Bool, .default_value = Arg::of_bool(true)}},
                             .family = ShapeFamily::ScatterElements,
                             .reference = torch_scatter_reduce},
                            kTorchIndex, OperandSpec{.name = "src", .role = R::Read}),
             {.id = "torch.scatter_reduce",
              .summary = "torch.scatter_reduce: out = "
                         "self.clone().scatter_reduce_(dim, index, src, reduce, "
                         "include_self)"});
}

// The index_add_ / index_copy_ / index_fill_ / index_reduce_ pairs.
void add_torch_index_ops(std::vector<OpSpec>& t) {
  torch_pair(t,
             torch_in_place(
                 {.id = "torch.index_add_",
                  .summary = "Tensor.index_add_: self[...][index[i]][...] += alpha * "
                             "source[...][i][...] "
                             "along dim (a 1-D or 0-d index)",
                  .source = "PyTorch documentation of Tensor.index_add_ / "
                            "torch.index_add, 1.13 "
                            "(https://pytorch.org/docs/1.13/generated/"
                            "torch.Tensor.index_add_.html)",
                  .args = {dim_arg(),
                           {.name = "alpha", .type = T::Scalar, .default_value = Arg::of_scalar(Scalar::of_int(1))}},
                  .family = ShapeFamily::IndexAlongDim,
                  .reference = torch_index_add},
                 kInt32Or64, OperandSpec{.name = "source", .role = R::Read}),
             {.id = "torch.index_add",
              .summary = "torch.index_add: out = self.clone().index_add_(dim, index, "
                         "source, alpha=alpha)"});
  torch_pair(t,
             torch_in_place({.id = "torch.index_copy_",
                             .summary = "Tensor.index_copy_: self[...][index[i]][...] = "
                                        "source[...][i][...] along dim "
                                        "(a 1-D or 0-d index; duplicates: any writer may win)",
                             .source = "PyTorch documentation of Tensor.index_copy_ / "
                                       "torch.index_copy, 1.13 "
                                       "(https://pytorch.org/docs/1.13/generated/"
                                       "torch.Tensor.index_copy_.html)",
                             .args = {dim_arg()},
                             .family = ShapeFamily::IndexAlongDim,
                             .reference = torch_index_copy},
                            kTorchIndex, OperandSpec{.name = "source", .role = R::Read}),
             {.id = "torch.index_copy",
              .summary = "torch.index_copy: out = self.clone().index_copy_(dim, "
                         "index, source)"});
  // No third operand: value is a scalar argument.
  torch_pair(t,
             torch_in_place({.id = "torch.index_fill_",
                             .summary = "Tensor.index_fill_: self[...][index[i]][...] = value "
                                        "along dim (a 1-D or 0-d "
                                        "index)",
                             .source = "PyTorch documentation of Tensor.index_fill_ / "
                                       "torch.index_fill, 1.13 "
                                       "(https://pytorch.org/docs/1.13/generated/"
                                       "torch.Tensor.index_fill_.html)",
                             .args = {dim_arg(), {.name = "value", .type = T::Scalar, .required = true}},
                             .family = ShapeFamily::IndexAlongDim,
                             .reference = torch_index_fill},
                            kTorchIndex, std::nullopt),
             {.id = "torch.index_fill",
              .summary = "torch.index_fill: out = self.clone().index_fill_(dim, "
                         "index, value)"});
  {
    // The document: "This function only supports floating point tensors"
    // (self and source); other dtypes are answered as unspecified (T-IR4).
    OpSpec index_reduce = torch_in_place(
        {.id = "torch.index_reduce_",
         .summary = "Tensor.index_reduce_: reduces source's slices into self's rows "
                    "index[i] along dim "
                    "(prod, mean, amax, amin), optionally without self's own values",
         .source = "PyTorch documentation of Tensor.index_reduce_ / "
                   "torch.index_reduce, 1.13 "
                   "(https://pytorch.org/docs/1.13/generated/"
                   "torch.Tensor.index_reduce_.html)",
         .args = {dim_arg(),
                  {.name = "reduce", .type = T::String, .required = true, .allowed = {"prod", "mean", "amax", "amin"}},
                  {.name = "include_self", .type = T::Bool, .default_value = Arg::of_bool(true)}},
         .family = ShapeFamily::IndexAlongDim,
         .reference = torch_index_reduce},
        kInt32Or64, OperandSpec{.name = "source", .role = R::Read, .dtypes = kFloating});
    index_reduce.operands[0].dtypes = kFloating;
    torch_pair(t, std::move(index_reduce),
               {.id = "torch.index_reduce",
                .summary = "torch.index_reduce: out = self.clone().index_reduce_(dim, "
                           "index, source, reduce, "
                           "include_self)"});
  }
}

// torch.index_select and torch.take_along_dim.
void add_torch_reads(std::vector<OpSpec>& t) {
  t.push_back({.id = "torch.index_select",
               .dialect = "torch",
               .summary = "torch.index_select: out[...][i][...] = "
                          "input[...][index[i]][...] along dim (a 1-D or 0-d "
                          "index)",
               .source = "PyTorch documentation of torch.index_select, 1.13 "
                         "(https://pytorch.org/docs/1.13/generated/torch.index_select.html)",
               .operands = {{.name = "input", .role = R::Read},
                            {.name = "index", .role = R::Index, .dtypes = kInt32Or64},
                            out_param({"index"})},
               .args = {dim_arg()},
               .in_place = false,
               .output = "out",
               .output_shape_of = "input",
               .output_dtype_of = "input",
               .data_operand = "input",
               .family = ShapeFamily::IndexAlongDim,
               .reference = torch_index_select,
               .output_shape = shape_rules::kIndexLengthAlongDim});
  // dim is optional: absent means None (both operands read flattened).
  t.push_back({.id = "torch.take_along_dim",
               .dialect = "torch",
               .summary = "torch.take_along_dim: out[i][j][k] = "
                          "input[indices[i][j][k]][j][k] (dim 0) with indices "
                          "and input broadcast apart from dim; without dim, "
                          "input.flatten()[indices.flatten()]",
               .source = "PyTorch documentation of torch.take_along_dim, 1.13 "
                         "(https://pytorch.org/docs/1.13/generated/"
                         "torch.take_along_dim.html)",
               .operands = {{.name = "input", .role = R::Read},
                            {.name = "indices", .role = R::Index, .dtypes = kTorchIndex},
                            out_param({"indices"})},
               .args = {{.name = "dim", .type = T::Int}},
               .in_place = false,
               .output = "out",
               .output_shape_of = "input",
               .output_dtype_of = "input",
               .data_operand = "input",
               .family = ShapeFamily::TakeAlongDim,
               .reference = torch_take_along_dim,
               .output_shape = shape_rules::kBroadcastAlongDim});
}

}  // namespace

void add_torch_ops(std::vector<OpSpec>& t) {
  add_torch_gather_scatter(t);
  add_torch_index_ops(t);
  add_torch_reads(t);
}

}  // namespace sp
