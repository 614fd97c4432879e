// mindspore_nd.cc — MindSpore's ND index ops (API documentation r2.10) translated onto LibTorch,
// onnx.cc's ScatterND way: each index tuple (indices' last dim, k values) becomes one row of the
// tensor reshaped to [prod(shape[:k]), prod(shape[k:])], then
//   ops.gather_nd -> index_select of those rows;
//   ops.scatter_nd -> zeros(shape), index_put_(rows, updates, accumulate=True) (MS-SND7: sums);
//   ops.tensor_scatter_update / add / sub -> a copy of input_x, index_put_ (accumulate=False:
//     one writer, MS-TS10; add: accumulate=True; sub: accumulate=True of the negated updates,
//     exact, MS-TS11);
//   tensor_scatter_mul / max / min -> scatter_reduce_ "prod" / "amax" / "amin" (include_self)
//     over the rows, the row index expanded along the slice;
//   tensor_scatter_div -> rows read, divided ("trunc" for integers), written back, when no two
//     tuples share a row.
// MindSpore's own rules are checked first with the reference's rule functions, in its order
// (reference/dialect_mindspore_nd.h: MS-TS2..MS-TS6, MS-GND2..MS-GND4, MS-SND2..MS-SND6), then
// every index component against [0, s): MS-TS8's index_out_of_bounds (also where the page
// leaves the value undefined, MS-GND5, MS-SND8: an error is one allowed answer).
// Declined (unsupported, with the reason): tensor_scatter_mul with a tuple out of range (the op
// drops it, MS-TS9; no LibTorch op does); tensor_scatter_div with two tuples on one row
// (LibTorch has no index-wise division reduce); a bool input_x under add / sub / mul / div /
// max / min (MS-TS7 leaves it undefined and LibTorch's accumulate on bool is no arithmetic).
#include <limits>
#include <variant>

#include "backends/libtorch/libtorch_common.h"
#include "reference/dialect_mindspore_nd.h"
#include "reference/semantics_common.h"

namespace sp::libtorch {
namespace {

namespace rules = ref::mindspore_nd_rules;

Outcome fail(ErrorCategory c, const std::string& op, const std::string& message) {
  return Outcome::of_error(c, op + ": " + message);
}

Outcome first_violation(const ref::RuleLog& log) {
  return Outcome::of_error(log.violations().front().category, log.violations().front().message);
}

int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to; ++d) n *= s[d];
  return n;
}

// The row of each tuple in a tensor of `shape` viewed as [prod(shape[:k]), prod(shape[k:])], as a
// 1-D int64 tensor (row-major over indices.shape[:-1]); the index of the first tuple with a
// component outside [0, s) instead, if any (*bad_value set to that component).
std::variant<at::Tensor, int64_t> tuple_rows(const Shape& shape, const Tensor& indices, TorchViews& views,
                                             int64_t* bad_value) {
  const int64_t k = indices.shape().back();
  const int64_t tuples = product(indices.shape(), 0, indices.shape().size() - 1);
  const at::Tensor idx = views.view(indices).to(at::kLong).reshape({tuples, k});
  const std::vector<int64_t> sizes(shape.begin(), shape.begin() + k);
  const at::Tensor sizes_t = at::tensor(sizes, at::kLong).to(idx.device());
  if (idx.numel() > 0) {
    const at::Tensor bad = idx.lt(0).logical_or(idx.ge(sizes_t));
    if (bad.any().item<bool>()) {
      const at::Tensor where = bad.nonzero()[0];
      *bad_value = idx[where[0]][where[1]].item<int64_t>();
      return where[0].item<int64_t>();
    }
  }
  std::vector<int64_t> strides(static_cast<size_t>(k), 1);
  for (int64_t j = k - 1; j > 0; --j) strides[j - 1] = strides[j] * sizes[j];
  if (k == 0) return at::zeros({idx.size(0)}, views.options(DType::Int64));
  return (idx * at::tensor(strides, at::kLong).to(idx.device())).sum(1);
}

Outcome out_of_range(const std::string& op, int64_t tuple, int64_t value) {
  return fail(ErrorCategory::IndexOutOfBounds, op,
              "index tuple " + std::to_string(tuple) + " has the value " + std::to_string(value) +
                  ", outside [0, s) of its dim");
}

// Whether a signed integer dividend holds its dtype's minimum where the divisor is -1.
bool min_by_minus_one(DType t, const at::Tensor& dividend, const at::Tensor& divisor) {
  int64_t lowest = 0;
  switch (t) {
    case DType::Int8:
      lowest = std::numeric_limits<int8_t>::min();
      break;
    case DType::Int16:
      lowest = std::numeric_limits<int16_t>::min();
      break;
    case DType::Int32:
      lowest = std::numeric_limits<int32_t>::min();
      break;
    case DType::Int64:
      lowest = std::numeric_limits<int64_t>::min();
      break;
    default:
      return false;  // unsigned: no -1 divisor
  }
  return dividend.eq(lowest).logical_and(divisor.eq(-1)).any().item<bool>();
}

bool integer_index(const Tensor& t) { return is_integral(t.dtype()) && t.dtype() != DType::Bool; }

// MS-GND2..MS-GND4, the components in [0, s), then index_select of the rows.
Outcome gather_nd(const OpCall& call, TorchViews& views) {
  const Tensor &input = operand(call, "input_x"), &indices = operand(call, "indices");
  if (!integer_index(indices)) return fail(ErrorCategory::IndexDtype, call.op, "indices must be an integer tensor");
  if (indices.rank() < 1) return fail(ErrorCategory::InvalidArgument, call.op, "indices must have rank >= 1");
  const int64_t k = indices.shape().back(), r = input.rank();
  if (k > r) return fail(ErrorCategory::ShapeMismatch, call.op, "indices.shape[-1] exceeds the rank of input_x");
  Shape out_shape(indices.shape().begin(), indices.shape().end() - 1);
  out_shape.insert(out_shape.end(), input.shape().begin() + k, input.shape().end());
  int64_t bad_value = 0;
  auto rows = tuple_rows(input.shape(), indices, views, &bad_value);
  if (auto* t = std::get_if<int64_t>(&rows)) return out_of_range(call.op, *t, bad_value);
  auto [out, out_t] = views.fresh(input.dtype(), out_shape);
  if (out.numel() == 0) return Outcome::of_outputs({out});
  const Shape& s = input.shape();
  const at::Tensor table = views.view(input).reshape({product(s, 0, k), product(s, k, s.size())});
  out_t.copy_(table.index_select(0, std::get<at::Tensor>(rows)).reshape(out_shape));
  return Outcome::of_outputs({out});
}

// MS-SND2..MS-SND6, the components in [0, s), then index_put_ with accumulate into zeros.
Outcome scatter_nd(const OpCall& call, TorchViews& views) {
  const Tensor &indices = operand(call, "indices"), &updates = operand(call, "updates");
  const std::optional<std::vector<int64_t>> shape_arg = call.ints_arg("shape");
  if (!shape_arg) throw MalformedCall{call.op + ": missing argument 'shape'"};
  const Shape shape(shape_arg->begin(), shape_arg->end());
  if (!integer_index(indices)) return fail(ErrorCategory::IndexDtype, call.op, "indices must be an integer tensor");
  if (indices.rank() < 2) return fail(ErrorCategory::InvalidArgument, call.op, "indices must have rank >= 2");
  bool shape_ok = !shape.empty();
  for (const int64_t s : shape) shape_ok = shape_ok && s >= 1;
  if (!shape_ok) return fail(ErrorCategory::InvalidArgument, call.op, "shape must be non-empty, every element >= 1");
  const int64_t k = indices.shape().back();
  if (k > std::ssize(shape)) return fail(ErrorCategory::ShapeMismatch, call.op, "indices.shape[-1] > len(shape)");
  ref::RuleLog log(nullptr);
  if (!rules::updates_shape(log, "MS-SND6", shape, indices, updates)) return first_violation(log);
  int64_t bad_value = 0;
  auto rows = tuple_rows(shape, indices, views, &bad_value);
  if (auto* t = std::get_if<int64_t>(&rows)) return out_of_range(call.op, *t, bad_value);
  auto [out, out_t] = views.fresh(updates.dtype(), shape);
  const at::Tensor& row_ids = std::get<at::Tensor>(rows);
  if (row_ids.numel() == 0 || updates.numel() == 0) return Outcome::of_outputs({out});
  const int64_t cols = product(shape, static_cast<size_t>(k), shape.size());
  at::Tensor table = out_t.view({product(shape, 0, static_cast<size_t>(k)), cols});
  table.index_put_({row_ids}, views.view(updates).reshape({row_ids.numel(), cols}), /*accumulate=*/true);
  return Outcome::of_outputs({out});
}

// MS-TS2..MS-TS6 (the reference's rule functions, its order), the components in [0, s) (MS-TS8;
// mul declines instead, MS-TS9), then the combiner over the rows of a copy of input_x.
Outcome tensor_scatter(const OpCall& call, TorchViews& views) {
  const std::string f = rules::tensor_scatter_combiner(call.op);
  const Tensor &input = operand(call, "input_x"), &indices = operand(call, "indices");
  const Tensor& updates = operand(call, "updates");
  ref::RuleLog log(nullptr);
  rules::indices_int32_or_64(log, "MS-TS2", indices);
  const bool rank_ok = rules::indices_rank_at_least_two(log, "MS-TS3", indices);
  rules::updates_dtype_matches(log, "MS-TS5", input, updates);
  if (rank_ok && rules::tuple_length_within(log, "MS-TS4", indices.shape().back(), input.rank()))
    rules::updates_shape(log, "MS-TS6", input.shape(), indices, updates);
  if (!log.passed()) return first_violation(log);
  if (f != "update" && input.dtype() == DType::Bool)
    return Outcome::unsupported(call.op +
                                " on bool: undefined by the page (MS-TS7), and LibTorch's accumulate on "
                                "bool is no arithmetic");
  int64_t bad_value = 0;
  auto rows = tuple_rows(input.shape(), indices, views, &bad_value);
  if (auto* t = std::get_if<int64_t>(&rows)) {
    if (f == "mul")
      return Outcome::unsupported(call.op + ": index tuple " + std::to_string(*t) +
                                  " is out of range; the op drops it with no error (MS-TS9), no LibTorch op does");
    return out_of_range(call.op, *t, bad_value);
  }
  const at::Tensor& row_ids = std::get<at::Tensor>(rows);
  if (f == "div" && std::get<0>(at::_unique(row_ids)).numel() != row_ids.numel())
    return Outcome::unsupported(call.op +
                                ": two index tuples address one slice; LibTorch has no index-wise "
                                "division reduce");
  auto [out, out_t] = views.fresh(input.dtype(), input.shape());
  out_t.copy_(views.view(input));
  if (row_ids.numel() == 0 || updates.numel() == 0) return Outcome::of_outputs({out});
  const Shape& s = input.shape();
  const size_t k = static_cast<size_t>(indices.shape().back());
  const int64_t cols = product(s, k, s.size());
  at::Tensor table = out_t.view({product(s, 0, k), cols});
  const at::Tensor src = views.view(updates).reshape({row_ids.numel(), cols});
  if (f == "update" || f == "add" || f == "sub") {
    table.index_put_({row_ids}, f == "sub" ? src.neg() : src, /*accumulate=*/f != "update");
  } else if (f == "div") {
    const at::Tensor read = table.index_select(0, row_ids);
    // LibTorch's integer division kills the process (SIGFPE) on the minimum by -1 and raises
    // "ZeroDivisionError" on a 0 divisor: MS-TS12 leaves both undefined, so both are declined.
    if (!is_floating(input.dtype()) && (src.eq(0).any().item<bool>() || min_by_minus_one(input.dtype(), read, src)))
      return Outcome::unsupported(call.op +
                                  ": an integer division by 0 or of the minimum by -1 (undefined, "
                                  "MS-TS12): LibTorch's kernel raises or dies of SIGFPE");
    table.index_put_({row_ids}, is_floating(input.dtype()) ? read.div(src) : read.div(src, "trunc"));
  } else {
    const char* reduce = f == "mul" ? "prod" : f == "max" ? "amax" : "amin";
    table.scatter_reduce_(0, row_ids.unsqueeze(1).expand({-1, cols}), src, reduce, /*include_self=*/true);
  }
  return Outcome::of_outputs({out});
}

}  // namespace

void register_mindspore_nd(LibTorchOps& ops) {
  ops.add("mindspore.gather_nd", gather_nd);
  ops.add("mindspore.scatter_nd", scatter_nd);
  for (const char* f : {"update", "add", "sub", "mul", "div", "max", "min"})
    ops.add(std::string("mindspore.tensor_scatter_") + f, tensor_scatter);
}

}  // namespace sp::libtorch
