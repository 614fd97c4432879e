#include "backends/common/arg_rules.h"

#include <algorithm>
#include <vector>

#include "reference/dialect_mindspore.h"
#include "reference/dialect_torch.h"
#include "reference/messages_mindspore.h"
#include "reference/messages_paddle.h"
#include "reference/messages_torch.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::backend_rules {
namespace {

namespace msg = ref::torch_messages;
namespace ms_msg = ref::mindspore_messages;
namespace pd_msg = ref::paddle_messages;

// PyTorch addresses a rank-0 tensor as shape [1].
int64_t torch_rank(const Tensor& t) { return t.rank() == 0 ? 1 : t.rank(); }
int64_t torch_size(const Tensor& t, int64_t d) { return t.rank() == 0 ? 1 : t.size(d); }

std::optional<Violation> fail(ErrorCategory c, std::string message) { return Violation{c, std::move(message)}; }

// T-D1 (MS-D1: the same range in MindSpore's words): dim in [-rank, rank).
std::optional<Violation> dim_rule(int64_t dim, int64_t rank,
                                  std::string (*message)(int64_t, int64_t) = msg::dim_out_of_range) {
  if (dim >= -rank && dim < rank) return std::nullopt;
  return fail(ErrorCategory::DimOutOfRange, message(dim, rank));
}

// The value converted to `t` as c10::checked_convert would; the reference's
// conversion (the same c10 rules) is the one definition of what a scalar
// means, so it is shared rather than restated.
bool value_fits(const Scalar& value, DType t) {
  return !ref::torch_rules::scalar_overflows(value, t) && !ref::torch_rules::value_conversion_is_undefined(value, t);
}

// T-I1, or T-I2 where the call's torch version has it.
std::optional<Violation> torch_index_dtype_rule(const OpCall& call, const char* op, DType index) {
  if (index == DType::Int64) return std::nullopt;
  const bool int32_too = torch_accepts_int32_index(call);
  if (int32_too && index == DType::Int32) return std::nullopt;
  return fail(ErrorCategory::IndexDtype, msg::index_dtype(op, int32_too));
}

}  // namespace

bool torch_accepts_int32_index(const OpCall& call) { return ref::rule_holds("T-I2", call.framework_version); }
bool torch_index_add_physical_shape(const OpCall& call) { return ref::rule_holds("T-IA14", call.framework_version); }
bool paddle_negatives_wrap(const OpCall& call) { return ref::rule_holds("PD-B3", call.framework_version); }

namespace {

// Byte ranges [start, start + size) of every element of `t`, sorted.
std::vector<int64_t> element_starts(const Tensor& t) {
  std::vector<int64_t> starts;
  if (checked_numel(t.shape()) <= 0) return starts;
  const auto size = static_cast<int64_t>(dtype_size(t.dtype()));
  Shape idx(t.shape().size(), 0);
  do starts.push_back(t.element_offset(idx) * size);
  while (next_index(idx, t.shape()));
  std::sort(starts.begin(), starts.end());
  return starts;
}

bool memory_overlaps(const Tensor& out, const Tensor& other) {
  if (!out.storage() || out.storage() != other.storage()) return false;
  const std::vector<int64_t> a = element_starts(out);
  const auto a_size = static_cast<int64_t>(dtype_size(out.dtype()));
  const auto b_size = static_cast<int64_t>(dtype_size(other.dtype()));
  for (int64_t b : element_starts(other)) {
    // The first out element starting at or after b - a_size + 1 overlaps when it starts before b + b_size.
    auto it = std::lower_bound(a.begin(), a.end(), b - a_size + 1);
    if (it != a.end() && *it < b + b_size) return true;
  }
  return false;
}

bool same_view(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() && a.dtype() == b.dtype() && a.offset() == b.offset() && a.shape() == b.shape() &&
         a.strides() == b.strides();
}

}  // namespace

std::optional<Violation> check_torch_out(const OpCall& call, const Tensor& result) {
  const Tensor& out = *call.tensor("out");
  if (out.dtype() != result.dtype())
    return fail(ErrorCategory::DtypeMismatch, msg::out_dtype(result.dtype(), out.dtype()));
  if (out.shape() != result.shape()) return std::nullopt;  // resized into a fresh layout
  if (out.has_internal_overlap()) return fail(ErrorCategory::OverlappingOutput, msg::internal_overlap());
  const bool scatter = call.tensor("self") != nullptr;  // out starts as a copy of self
  for (const auto& [name, t] : call.tensors) {
    if (name == "out" || !memory_overlaps(out, t)) continue;
    if (same_view(out, t) && ((scatter && name == "self") || (!scatter && (name == "index" || name == "indices"))))
      continue;
    return fail(ErrorCategory::OverlappingOutput, msg::out_overlaps_operand());
  }
  return std::nullopt;
}

std::optional<Violation> check_torch_gather(const OpCall& call) {
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const int64_t rank = torch_rank(input);
  if (auto v = dim_rule(*call.int_arg("dim"), rank)) return v;
  if (index.numel() == 0) return std::nullopt;
  if (auto v = torch_index_dtype_rule(call, "gather", index.dtype())) return v;
  if (torch_rank(index) != rank) return fail(ErrorCategory::RankMismatch, msg::index_rank("input"));
  const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && torch_size(index, d) > torch_size(input, d))
      return fail(ErrorCategory::ShapeMismatch, msg::gather_index_shape(d, index, input, dim));
  return std::nullopt;
}

std::optional<Violation> check_torch_scatter_operands(const OpCall& call) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");
  const int64_t rank = torch_rank(self);
  if (auto v = dim_rule(*call.int_arg("dim"), rank)) return v;
  const bool empty = index.numel() == 0;
  if (!empty)
    if (auto v = torch_index_dtype_rule(call, "scatter", index.dtype())) return v;
  if (src && src->dtype() != self.dtype()) return fail(ErrorCategory::DtypeMismatch, msg::src_dtype("scatter"));
  if (!empty) {
    if (torch_rank(index) != rank) return fail(ErrorCategory::RankMismatch, msg::index_rank("self"));
    if (src && torch_rank(*src) != rank) return fail(ErrorCategory::RankMismatch, msg::index_rank("src"));
    const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
    for (int64_t d = 0; d < rank; ++d) {
      const bool too_big = (src && torch_size(index, d) > torch_size(*src, d)) ||
                           (d != dim && torch_size(index, d) > torch_size(self, d));
      if (too_big) return fail(ErrorCategory::ShapeMismatch, msg::scatter_index_shape(self, index, src, dim));
    }
  }
  if (is_inplace_op(call) && self.has_internal_overlap())
    return fail(ErrorCategory::OverlappingOutput, msg::internal_overlap());
  return std::nullopt;
}

std::optional<Violation> check_torch_scatter(const OpCall& call) {
  if (auto v = check_torch_scatter_operands(call)) return v;
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");
  const bool empty = index.numel() == 0;
  const std::optional<std::string> reduce = call.string_arg("reduce");
  if (reduce && *reduce != "add" && *reduce != "multiply")
    return fail(ErrorCategory::InvalidReduce, msg::reduce_add_or_multiply());
  if (!src && call.scalar_arg("value") && !empty && !value_fits(*call.scalar_arg("value"), self.dtype()))
    return fail(ErrorCategory::ValueOutOfRange, msg::value_overflow(self.dtype()));
  return std::nullopt;
}

std::optional<Violation> check_mindspore_scatter(const OpCall& call) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");
  const bool r2_10 = ref::mindspore_rules::follows_r2_10_or_later(call.framework_version);
  if (auto v = dim_rule(*call.int_arg("dim"), self.rank(), ms_msg::dim_out_of_range)) return v;
  if (self.rank() > 8) return fail(ErrorCategory::RankLimit, ms_msg::rank_limit(self.rank()));
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, ms_msg::index_dtype(index.dtype()));
  if (src && src->dtype() != self.dtype()) return fail(ErrorCategory::DtypeMismatch, ms_msg::src_dtype());
  if (call.string_arg("reduce") && *call.string_arg("reduce") != "add" && *call.string_arg("reduce") != "multiply")
    return fail(ErrorCategory::InvalidReduce, ms_msg::reduce_mode(*call.string_arg("reduce")));
  if (!src && r2_10) return fail(ErrorCategory::InvalidArgument, ms_msg::value_overload_removed());
  if (index.numel() == 0) return std::nullopt;
  if (index.rank() != self.rank()) return fail(ErrorCategory::RankMismatch, ms_msg::index_rank("self"));
  if (src && src->rank() != index.rank()) return fail(ErrorCategory::RankMismatch, ms_msg::index_rank("src"));
  for (int64_t d = 0; d < index.rank(); ++d) {
    if (src && index.size(d) > src->size(d))
      return fail(ErrorCategory::ShapeMismatch, ms_msg::index_size(d, index.size(d), "src", src->size(d)));
    if (index.size(d) > self.size(d))
      return fail(ErrorCategory::ShapeMismatch, ms_msg::index_size(d, index.size(d), "self", self.size(d)));
  }
  if (!src && !value_fits(*call.scalar_arg("value"), self.dtype()))
    return fail(ErrorCategory::ValueOutOfRange,
                ms_msg::value_conversion(call.scalar_arg("value")->to_string(), self.dtype()));
  return std::nullopt;
}

std::optional<Violation> check_paddle_scatter(const OpCall& call) {
  const Tensor& x = *call.tensor("x");
  const Tensor& index = *call.tensor("index");
  const Tensor& updates = *call.tensor("updates");
  if (x.rank() < 1) return fail(ErrorCategory::InvalidArgument, pd_msg::x_rank(x.rank()));
  if (index.rank() != 1) return fail(ErrorCategory::InvalidArgument, pd_msg::index_rank(index.rank()));
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, pd_msg::index_dtype(index.dtype()));
  if (updates.dtype() != x.dtype()) return fail(ErrorCategory::DtypeMismatch, pd_msg::updates_dtype());
  // [n] + x.shape[1:] with n >= len(index): only the first len(index) rows are read.
  const Shape& u = updates.shape();
  if (u.size() != x.shape().size() || !std::equal(u.begin() + 1, u.end(), x.shape().begin() + 1) ||
      u[0] < index.size(0))
    return fail(ErrorCategory::ShapeMismatch, pd_msg::updates_shape(u, x.shape(), index.size(0)));
  return std::nullopt;
}

// T-D1, T-IA2..T-IA6, T-O1 (in place), then T-IA8 for a non-empty index
// (also for an empty one into a rank <= 1 self when `shape_when_empty`);
// from torch 2.3, T-IA14 between T-IA6 and T-O1 for every index instead of
// T-IA8. Shared by index_add_ and index_reduce_.
std::optional<Violation> check_torch_index_operands(const OpCall& call, bool shape_when_empty) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& source = *call.tensor("source");
  const int64_t rank = torch_rank(self);
  if (auto v = dim_rule(*call.int_arg("dim"), rank)) return v;
  const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
  if (index.rank() > 1) return fail(ErrorCategory::InvalidArgument, msg::index_add_index_rank(index.rank()));
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, msg::index_add_index_dtype(index.dtype()));
  if (source.dtype() != self.dtype())
    return fail(ErrorCategory::DtypeMismatch, msg::index_add_source_dtype(self.dtype(), source.dtype()));
  if (dim != 0 && dim >= source.rank())
    return fail(ErrorCategory::ShapeMismatch, msg::index_add_source_has_dim(dim, source.rank()));
  if (index.numel() != torch_size(source, dim))
    return fail(ErrorCategory::ShapeMismatch,
                msg::index_add_source_length(index.numel(), torch_size(source, dim), dim));
  const bool physical_shape = torch_index_add_physical_shape(call);
  if (physical_shape) {
    // The physical shapes, dim removed from both unless either is 0-d (a 0-d
    // tensor is not [1] here: a [3] self takes no 0-d source).
    Shape self_rest = self.shape(), source_rest = source.shape();
    if (self.rank() > 0 && source.rank() > 0) {
      self_rest.erase(self_rest.begin() + dim);
      source_rest.erase(source_rest.begin() + dim);
    }
    if (self_rest != source_rest)
      return fail(ErrorCategory::ShapeMismatch, msg::index_add_source_shape_physical(self, source));
  }
  if (is_inplace_op(call) && self.has_internal_overlap())
    return fail(ErrorCategory::OverlappingOutput, msg::internal_overlap());
  if (!physical_shape && (index.numel() > 0 || (shape_when_empty && self.rank() < 2))) {
    bool same = torch_rank(source) == rank;
    for (int64_t d = 0; same && d < rank; ++d)
      same = torch_size(source, d) == (d == dim ? index.numel() : torch_size(self, d));
    if (!same) return fail(ErrorCategory::ShapeMismatch, msg::index_add_source_shape(self, source, dim, index.numel()));
  }
  return std::nullopt;
}

std::optional<Violation> check_torch_index_add(const OpCall& call, std::optional<uint64_t>* alpha_bits) {
  if (auto v = check_torch_index_operands(call, false)) return v;
  const Tensor& self = *call.tensor("self");
  if (call.tensor("index")->numel() == 0 && self.rank() >= 2) return std::nullopt;
  const Scalar alpha = call.scalar_arg("alpha").value_or(Scalar::of_int(1));
  if (!value_fits(alpha, self.dtype())) return fail(ErrorCategory::ValueOutOfRange, msg::value_overflow(self.dtype()));
  *alpha_bits = ref::torch_rules::scalar_to_bits(alpha, self.dtype());
  return std::nullopt;
}

std::optional<Violation> check_torch_index_copy(const OpCall& call) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& source = *call.tensor("source");
  const int64_t rank = torch_rank(self);
  if (auto v = dim_rule(*call.int_arg("dim"), rank)) return v;
  const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
  if (is_inplace_op(call) && self.has_internal_overlap())
    return fail(ErrorCategory::OverlappingOutput, msg::internal_overlap());
  if (index.rank() > 1) return fail(ErrorCategory::InvalidArgument, msg::index_copy_index_rank(index.rank()));
  if (index.dtype() != DType::Int64) return fail(ErrorCategory::IndexDtype, msg::index_copy_index_dtype(index.dtype()));
  if (source.dtype() != self.dtype())
    return fail(ErrorCategory::DtypeMismatch, msg::index_copy_source_dtype(self.dtype(), source.dtype()));
  bool same = torch_rank(source) == rank;
  for (int64_t d = 0; same && d < rank; ++d)
    same = torch_size(source, d) == (d == dim ? index.numel() : torch_size(self, d));
  if (!same) return fail(ErrorCategory::ShapeMismatch, msg::index_copy_source_shape(self, source, dim, index.numel()));
  return std::nullopt;
}

std::optional<Violation> check_torch_index_fill(const OpCall& call, uint64_t* value_bits) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  if (index.dtype() != DType::Int64) return fail(ErrorCategory::IndexDtype, msg::index_fill_index_dtype());
  if (auto v = dim_rule(*call.int_arg("dim"), torch_rank(self))) return v;
  if (index.rank() > 1) return fail(ErrorCategory::InvalidArgument, msg::index_fill_index_rank());
  const Scalar value = *call.scalar_arg("value");
  if (!value_fits(value, self.dtype())) return fail(ErrorCategory::ValueOutOfRange, msg::value_overflow(self.dtype()));
  *value_bits = ref::torch_rules::scalar_to_bits(value, self.dtype());
  return std::nullopt;
}

std::optional<Violation> check_torch_index_reduce(const OpCall& call) {
  const std::string reduce = *call.string_arg("reduce");
  if (reduce != "prod" && reduce != "mean" && reduce != "amax" && reduce != "amin")
    return Violation{ErrorCategory::InvalidReduce, ref::torch_messages::index_reduce_mode(reduce)};
  return check_torch_index_operands(call, true);
}

std::optional<Violation> check_torch_index_select(const OpCall& call) {
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  if (auto v = dim_rule(*call.int_arg("dim"), torch_rank(input))) return v;
  if (index.rank() > 1) return fail(ErrorCategory::InvalidArgument, msg::index_select_index_rank());
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, msg::index_select_index_dtype());
  if (input.rank() == 0 && index.numel() != 1)
    return fail(ErrorCategory::InvalidArgument, msg::index_select_scalar_count(index.numel()));
  return std::nullopt;
}

std::optional<Violation> check_torch_take_along_dim(const OpCall& call) {
  const Tensor& input = *call.tensor("input");
  const Tensor& indices = *call.tensor("indices");
  const std::optional<int64_t> dim = call.int_arg("dim");
  const Violation dtype_error{ErrorCategory::IndexDtype, msg::take_along_dim_indices_dtype(indices.dtype())};
  if (!dim) {
    if (indices.dtype() != DType::Int64) return dtype_error;
    return std::nullopt;
  }
  if (input.rank() != indices.rank())
    return fail(ErrorCategory::RankMismatch, msg::take_along_dim_rank(input.rank(), indices.rank()));
  if (indices.dtype() != DType::Int64) return dtype_error;
  const int64_t rank = torch_rank(input);
  if (auto v = dim_rule(*dim, rank)) return v;
  const int64_t d = *dim < 0 ? *dim + rank : *dim;
  for (int64_t k = 0; k < input.rank(); ++k) {
    const int64_t a = input.size(k), b = indices.size(k);
    if (k != d && a != b && a != 1 && b != 1) return fail(ErrorCategory::ShapeMismatch, msg::broadcast_size(a, b, k));
  }
  return std::nullopt;
}

std::optional<Violation> check_backward_grads(const OpCall& call, const Shape& output_shape, DType output_dtype) {
  for (const std::string& name : grad_operands(op_spec(call), call))
    if (!is_floating(call.tensor(name)->dtype()))
      return Violation{ErrorCategory::UnsupportedDtype, "only Tensors of floating point dtype can require gradients (" +
                                                            name + " is " +
                                                            std::string(dtype_name(call.tensor(name)->dtype())) + ")"};
  const Tensor& grad = *call.tensor(std::string(kGradOutput));
  if (grad.shape() != output_shape)
    return Violation{ErrorCategory::ShapeMismatch, "grad_output has shape " + format_shape(grad.shape()) +
                                                       " but the output has shape " + format_shape(output_shape)};
  if (grad.dtype() != output_dtype)
    return Violation{ErrorCategory::DtypeMismatch, "grad_output has dtype " + std::string(dtype_name(grad.dtype())) +
                                                       " but the output has dtype " +
                                                       std::string(dtype_name(output_dtype))};
  return std::nullopt;
}

std::optional<Violation> check_backward_src_like_index(const Tensor& src, const Tensor& index) {
  if (src.shape() == index.shape()) return std::nullopt;
  return Violation{ErrorCategory::ShapeMismatch,
                   "the backward of src is implemented only for src.shape == index.shape, got src " +
                       format_shape(src.shape()) + " and index " + format_shape(index.shape())};
}

}  // namespace sp::backend_rules
