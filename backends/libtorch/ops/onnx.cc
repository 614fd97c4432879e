// onnx.cc — the ONNX ops translated onto LibTorch, converter-style (as
// onnx2torch-like converters lower them), where the lowering is faithful:
//   GatherElements: at::gather(data, axis, indices) after wrapping negatives;
//   ScatterElements / Scatter: data.clone().scatter_(axis, indices, updates)
//     (reduction none), else scatter_reduce_(axis, indices, updates,
//     "sum" / "prod" / "amax" / "amin", include_self=True), after wrapping;
//   GatherND: index arithmetic — each tuple (and its batch) becomes one
//     row of data reshaped to [prod(data[:b+k]), data[b+k:]...], then
//     index_select;
//   ScatterND: the same rows, written with index_put_ (accumulate=True for
//     add), or index_reduce_(..., "prod" / "amax" / "amin", include_self)
//     for mul / max / min on floating dtypes.
// Unsupported (with the reason): bool with a reduction (LibTorch's
// scatter_reduce / index_put_ accumulate / index_reduce_ have no bool
// kernel that means ONNX's add / mul / max / min), and ScatterND mul / max /
// min on integers (index_reduce_ in LibTorch 1.13 is floating-only).
// The ONNX attribute and shape rules a converter enforces are checked first
// with the cpu backend's (backends/common/onnx_rules.h); index values are
// checked here against [-s, s - 1] before LibTorch sees them.
#include <variant>

#include "backends/common/onnx_rules.h"
#include "backends/libtorch/libtorch_common.h"
#include "reference/op_table.h"

namespace sp::libtorch {
namespace {

int64_t int_arg_or_default(const OpCall& call, const char* name) { return op_spec(call).arg_or_default(call, name)->i; }

std::string reduction_of(const OpCall& call) {
  const OpSpec& op = op_spec(call);
  return op.arg("reduction") ? op.arg_or_default(call, "reduction")->s : "none";
}

Outcome out_of_bounds(const std::string& op, int64_t v, int64_t s) {
  return Outcome::of_error(ErrorCategory::IndexOutOfBounds, op + ": index value " + std::to_string(v) +
                                                                " is outside [" + std::to_string(-s) + ", " +
                                                                std::to_string(s - 1) + "]");
}

// indices as int64 with negatives wrapped by `sizes` (broadcast against
// it); an error for a value outside [-s, s).
std::optional<Outcome> wrap(const std::string& op, at::Tensor& idx, const at::Tensor& sizes, int64_t lo_factor) {
  if (idx.numel() == 0) return std::nullopt;
  const at::Tensor bad = (idx >= sizes).logical_or(idx < -sizes * lo_factor);
  if (bad.any().item<bool>()) {
    const at::Tensor flat_bad = bad.expand_as(idx).reshape({-1}).nonzero();
    const int64_t at = flat_bad[0][0].item<int64_t>();
    const int64_t v = idx.reshape({-1})[at].item<int64_t>();
    const int64_t s = sizes.expand_as(idx).reshape({-1})[at].item<int64_t>();
    return out_of_bounds(op, v, s);
  }
  idx = at::where(idx < 0, idx + sizes, idx);
  return std::nullopt;
}

Outcome onnx_gather_elements(const OpCall& call, TorchViews& views) {
  if (auto v = backend_rules::check_onnx_gather_elements(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& data = operand(call, "data");
  const Tensor& indices = operand(call, "indices");
  const int64_t axis = (int_arg_or_default(call, "axis") + data.rank()) % data.rank();
  at::Tensor idx = views.view(indices).to(at::kLong);
  const at::Tensor size = at::full({}, data.size(axis), at::kLong);
  if (auto e = wrap(call.op, idx, size, 1)) return *e;
  if (indices.numel() > 0)
    if (auto v = backend_rules::check_onnx_indices_fit(call)) return Outcome::of_error(v->category, v->message);
  auto [out, out_t] = views.fresh(data.dtype(), indices.shape());
  if (indices.numel() > 0) out_t.copy_(at::gather(views.view(data), axis, idx));
  return Outcome::of_outputs({out});
}

Outcome onnx_scatter_elements(const OpCall& call, TorchViews& views) {
  if (auto v = backend_rules::check_onnx_scatter_elements(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& data = operand(call, "data");
  const Tensor& indices = operand(call, "indices");
  const Tensor& updates = operand(call, "updates");
  const std::string reduction = reduction_of(call);
  if (reduction != "none" && data.dtype() == DType::Bool)
    return Outcome::unsupported("onnx reduction '" + reduction +
                                "' on bool: LibTorch's scatter_reduce has no faithful bool kernel");
  const int64_t axis = (int_arg_or_default(call, "axis") + data.rank()) % data.rank();
  at::Tensor idx = views.view(indices).to(at::kLong);
  const at::Tensor size = at::full({}, data.size(axis), at::kLong);
  if (auto e = wrap(call.op, idx, size, backend_rules::onnx_negatives_wrap(call) ? 1 : 0)) return *e;
  if (indices.numel() > 0)
    if (auto v = backend_rules::check_onnx_indices_fit(call)) return Outcome::of_error(v->category, v->message);
  auto [out, out_t] = views.fresh(data.dtype(), data.shape());
  out_t.copy_(views.view(data));
  if (indices.numel() == 0) return Outcome::of_outputs({out});
  const at::Tensor src = views.view(updates);
  if (reduction == "none") {
    out_t.scatter_(axis, idx, src);
  } else {
    const char* reduce = reduction == "add"   ? "sum"
                         : reduction == "mul" ? "prod"
                         : reduction == "max" ? "amax"
                                              : "amin";
    out_t.scatter_reduce_(axis, idx, src, reduce, /*include_self=*/true);
  }
  return Outcome::of_outputs({out});
}

// Row numbers of each index tuple of `indices` (q-1 leading dims, k) into
// data's dims [b, b + k) flattened together with the batch dims [0, b):
// shape indices.shape[:-1]; an error for a value outside [-s, s).
std::variant<at::Tensor, Outcome> tuple_rows(const std::string& op, const Tensor& data, const Tensor& indices,
                                             int64_t b, TorchViews& views) {
  const int64_t k = indices.shape().back(), q = indices.rank();
  at::Tensor idx = views.view(indices).to(at::kLong);
  std::vector<int64_t> sizes(data.shape().begin() + b, data.shape().begin() + b + k);
  const at::Tensor sizes_t = at::tensor(sizes, at::kLong).to(idx.device());
  if (auto e = wrap(op, idx, sizes_t, 1)) return *e;
  // Row-major strides of data's dims [b, b + k).
  std::vector<int64_t> strides(static_cast<size_t>(k), 1);
  for (int64_t j = k - 1; j > 0; --j) strides[j - 1] = strides[j] * sizes[j];
  int64_t per_batch = 1;
  for (int64_t s : sizes) per_batch *= s;
  at::Tensor rows = (idx * at::tensor(strides, at::kLong).to(idx.device())).sum(-1);
  if (b > 0) {
    // Batch position n (row-major over indices' first b dims) starts at n * per_batch.
    std::vector<int64_t> batch_shape(indices.shape().begin(), indices.shape().begin() + b);
    int64_t batches = 1;
    for (int64_t s : batch_shape) batches *= s;
    std::vector<int64_t> view_shape = batch_shape;
    view_shape.resize(static_cast<size_t>(q - 1), 1);
    rows = rows + (at::arange(batches, views.options(DType::Int64)) * per_batch).reshape(view_shape);
  }
  return rows;
}

Outcome onnx_gather_nd(const OpCall& call, TorchViews& views) {
  if (auto v = backend_rules::check_onnx_gather_nd(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& data = operand(call, "data");
  const Tensor& indices = operand(call, "indices");
  const int64_t b = int_arg_or_default(call, "batch_dims");
  const int64_t k = indices.shape().back();
  Shape out_shape(indices.shape().begin(), indices.shape().end() - 1);
  out_shape.insert(out_shape.end(), data.shape().begin() + b + k, data.shape().end());
  auto [out, out_t] = views.fresh(data.dtype(), out_shape);
  auto rows = tuple_rows(call.op, data, indices, b, views);
  if (auto* e = std::get_if<Outcome>(&rows)) return *e;
  if (out.numel() == 0) return Outcome::of_outputs({out});
  std::vector<int64_t> flat{-1};
  flat.insert(flat.end(), data.shape().begin() + b + k, data.shape().end());
  const at::Tensor table = views.view(data).reshape(flat);
  out_t.copy_(table.index_select(0, std::get<at::Tensor>(rows).reshape({-1})).reshape(out_shape));
  return Outcome::of_outputs({out});
}

Outcome onnx_scatter_nd(const OpCall& call, TorchViews& views) {
  if (auto v = backend_rules::check_onnx_scatter_nd(call)) return Outcome::of_error(v->category, v->message);
  const Tensor& data = operand(call, "data");
  const Tensor& indices = operand(call, "indices");
  const Tensor& updates = operand(call, "updates");
  const std::string reduction = reduction_of(call);
  if (reduction != "none" && data.dtype() == DType::Bool)
    return Outcome::unsupported("onnx ScatterND reduction '" + reduction + "' on bool: no faithful LibTorch op");
  if ((reduction == "mul" || reduction == "max" || reduction == "min") && !is_floating(data.dtype()))
    return Outcome::unsupported("onnx ScatterND reduction '" + reduction + "' on " +
                                std::string(dtype_name(data.dtype())) +
                                ": index_reduce_ (the faithful op) is floating-only in LibTorch 1.13");
  auto [out, out_t] = views.fresh(data.dtype(), data.shape());
  out_t.copy_(views.view(data));
  auto rows = tuple_rows(call.op, data, indices, 0, views);
  if (auto* e = std::get_if<Outcome>(&rows)) return *e;
  // No tuples (k = 0 tuples still count: each addresses the whole of data).
  if (std::get<at::Tensor>(rows).numel() == 0 || updates.numel() == 0) return Outcome::of_outputs({out});
  const int64_t k = indices.shape().back();
  std::vector<int64_t> flat{-1};
  flat.insert(flat.end(), data.shape().begin() + k, data.shape().end());
  at::Tensor table = out_t.view(flat);  // out is fresh and contiguous
  const at::Tensor row_ids = std::get<at::Tensor>(rows).reshape({-1});
  const at::Tensor src = views.view(updates).reshape(flat);
  if (reduction == "none" || reduction == "add") {
    table.index_put_({row_ids}, src, /*accumulate=*/reduction == "add");
  } else {
    const char* reduce = reduction == "mul" ? "prod" : reduction == "max" ? "amax" : "amin";
    table.index_reduce_(0, row_ids, src, reduce, /*include_self=*/true);
  }
  return Outcome::of_outputs({out});
}

}  // namespace

void register_onnx(LibTorchOps& ops) {
  ops.add("onnx.GatherElements", onnx_gather_elements);
  ops.add("onnx.ScatterElements", onnx_scatter_elements);
  ops.add("onnx.Scatter", onnx_scatter_elements);
  ops.add("onnx.GatherND", onnx_gather_nd);
  ops.add("onnx.ScatterND", onnx_scatter_nd);
}

}  // namespace sp::libtorch
