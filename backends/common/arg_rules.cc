#include "backends/common/arg_rules.h"

#include <algorithm>
#include <vector>

#include "reference/dialect_mindspore.h"
#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/versions.h"

namespace sp::backend_rules {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// PyTorch addresses a rank-0 tensor as shape [1].
int64_t torch_rank(const Tensor& t) { return t.rank() == 0 ? 1 : t.rank(); }
int64_t torch_size(const Tensor& t, int64_t d) { return t.rank() == 0 ? 1 : t.size(d); }

std::optional<Violation> fail(ErrorCategory c, std::string message) { return Violation{c, std::move(message)}; }

std::optional<Violation> dim_rule(int64_t dim, int64_t rank) {
  if (dim >= -rank && dim < rank) return std::nullopt;
  return fail(ErrorCategory::DimOutOfRange,
              "dim " + str(dim) + " is out of range [" + str(-rank) + ", " + str(rank) + ")");
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
  return fail(ErrorCategory::IndexDtype,
              std::string(op) + "(): Expected dtype " + (int32_too ? "int32/int64" : "int64") + " for index");
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
    return fail(ErrorCategory::DtypeMismatch, "Expected out tensor to have dtype " +
                                                  std::string(dtype_name(result.dtype())) + ", but got " +
                                                  std::string(dtype_name(out.dtype())) + " instead");
  if (out.shape() != result.shape()) return std::nullopt;  // resized into a fresh layout
  if (out.has_internal_overlap())
    return fail(ErrorCategory::OverlappingOutput,
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.");
  const bool scatter = call.tensor("self") != nullptr;  // out starts as a copy of self
  for (const auto& [name, t] : call.tensors) {
    if (name == "out" || !memory_overlaps(out, t)) continue;
    if (same_view(out, t) && ((scatter && name == "self") || (!scatter && (name == "index" || name == "indices"))))
      continue;
    return fail(ErrorCategory::OverlappingOutput,
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.");
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
  if (torch_rank(index) != rank)
    return fail(ErrorCategory::RankMismatch, "Index tensor must have the same number of dimensions as input tensor");
  const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && torch_size(index, d) > torch_size(input, d))
      return fail(ErrorCategory::ShapeMismatch, "Size does not match at dimension " + str(d) + " expected index " +
                                                    format_shape(index.shape()) + " to be smaller than self " +
                                                    format_shape(input.shape()) + " apart from dimension " + str(dim));
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
  if (src && src->dtype() != self.dtype())
    return fail(ErrorCategory::DtypeMismatch, "scatter(): Expected self.dtype to be equal to src.dtype");
  if (!empty) {
    if (torch_rank(index) != rank || (src && torch_rank(*src) != rank))
      return fail(ErrorCategory::RankMismatch, "Index tensor must have the same number of dimensions as self tensor");
    const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
    for (int64_t d = 0; d < rank; ++d) {
      const bool too_big = (src && torch_size(index, d) > torch_size(*src, d)) ||
                           (d != dim && torch_size(index, d) > torch_size(self, d));
      if (too_big)
        return fail(ErrorCategory::ShapeMismatch, "Expected index " + format_shape(index.shape()) +
                                                      " to be smaller than self " + format_shape(self.shape()) +
                                                      " apart from dimension " + str(dim));
    }
  }
  if (is_inplace_op(call) && self.has_internal_overlap())
    return fail(ErrorCategory::OverlappingOutput,
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location");
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
    return fail(ErrorCategory::InvalidReduce, "reduce argument must be either add or multiply.");
  if (!src && call.scalar_arg("value") && !empty && !value_fits(*call.scalar_arg("value"), self.dtype()))
    return fail(ErrorCategory::ValueOutOfRange, "value " + call.scalar_arg("value")->to_string() +
                                                    " cannot be converted to type " +
                                                    std::string(dtype_name(self.dtype())) + " without overflow");
  return std::nullopt;
}

std::optional<Violation> check_mindspore_scatter(const OpCall& call) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");
  const bool r2_10 = ref::mindspore_rules::follows_r2_10_or_later(call.framework_version);
  if (auto v = dim_rule(*call.int_arg("dim"), self.rank())) return v;
  if (self.rank() > 8) return fail(ErrorCategory::RankLimit, "the rank of self " + str(self.rank()) + " exceeds 8");
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype,
                "index dtype " + std::string(dtype_name(index.dtype())) + " is not supported, expected int32 or int64");
  if (src && src->dtype() != self.dtype())
    return fail(ErrorCategory::DtypeMismatch, "self and src must have the same dtype");
  if (call.string_arg("reduce") && *call.string_arg("reduce") != "add" && *call.string_arg("reduce") != "multiply")
    return fail(ErrorCategory::InvalidReduce,
                "reduce must be \"add\" or \"multiply\", but got \"" + *call.string_arg("reduce") + "\"");
  if (!src && r2_10) return fail(ErrorCategory::InvalidArgument, "value overload removed after 2.9");
  if (index.numel() == 0) return std::nullopt;
  if (index.rank() != self.rank() || (src && src->rank() != index.rank()))
    return fail(ErrorCategory::RankMismatch, "the rank of index, self and src must be the same");
  for (int64_t d = 0; d < index.rank(); ++d) {
    if (src && index.size(d) > src->size(d))
      return fail(ErrorCategory::ShapeMismatch, "index.size(" + str(d) + ") " + str(index.size(d)) + " > src.size(" +
                                                    str(d) + ") " + str(src->size(d)));
    if (index.size(d) > self.size(d))
      return fail(ErrorCategory::ShapeMismatch, "index.size(" + str(d) + ") " + str(index.size(d)) + " > self.size(" +
                                                    str(d) + ") " + str(self.size(d)));
  }
  if (!src && !value_fits(*call.scalar_arg("value"), self.dtype()))
    return fail(ErrorCategory::ValueOutOfRange, "value " + call.scalar_arg("value")->to_string() +
                                                    " cannot be converted to " + std::string(dtype_name(self.dtype())));
  return std::nullopt;
}

std::optional<Violation> check_paddle_scatter(const OpCall& call) {
  const Tensor& x = *call.tensor("x");
  const Tensor& index = *call.tensor("index");
  const Tensor& updates = *call.tensor("updates");
  if (x.rank() < 1)
    return fail(ErrorCategory::InvalidArgument, "x must be an N-D tensor with ndim >= 1, but got ndim 0");
  if (index.rank() != 1)
    return fail(ErrorCategory::InvalidArgument, "index must be a 1-D tensor, but got ndim " + str(index.rank()));
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype,
                "index dtype must be int32 or int64, but got " + std::string(dtype_name(index.dtype())));
  if (updates.dtype() != x.dtype()) return fail(ErrorCategory::DtypeMismatch, "updates must have the dtype of x");
  // [n] + x.shape[1:] with n >= len(index): only the first len(index) rows are read.
  const Shape& u = updates.shape();
  if (u.size() != x.shape().size() || !std::equal(u.begin() + 1, u.end(), x.shape().begin() + 1) ||
      u[0] < index.size(0))
    return fail(
        ErrorCategory::ShapeMismatch,
        "updates.shape " + format_shape(u) + " must be [n] + x.shape[1:] with n >= len(index) = " + str(index.size(0)));
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
  if (index.rank() > 1)
    return fail(ErrorCategory::InvalidArgument,
                "index_add_(): Index is supposed to be a vector, but got dim: " + str(index.rank()));
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index_add_(): Expected dtype int32/int64 for index");
  if (source.dtype() != self.dtype())
    return fail(ErrorCategory::DtypeMismatch, "index_add_(): self and source must have the same scalar type");
  if (dim != 0 && dim >= source.rank())
    return fail(ErrorCategory::ShapeMismatch,
                "index_add_(): Indexing dim " + str(dim) + " is out of bounds of the source tensor");
  if (index.numel() != torch_size(source, dim))
    return fail(ErrorCategory::ShapeMismatch,
                "index_add_(): Number of indices (" + str(index.numel()) + ") should be equal to source.size(dim)");
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
      return fail(ErrorCategory::ShapeMismatch,
                  "source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                  "self.shape = " +
                      format_shape(self.shape()) + " source.shape = " + format_shape(source.shape()));
  }
  if (is_inplace_op(call) && self.has_internal_overlap())
    return fail(ErrorCategory::OverlappingOutput,
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location");
  if (!physical_shape && (index.numel() > 0 || (shape_when_empty && self.rank() < 2))) {
    bool same = torch_rank(source) == rank;
    for (int64_t d = 0; same && d < rank; ++d)
      same = torch_size(source, d) == (d == dim ? index.numel() : torch_size(self, d));
    if (!same)
      return fail(ErrorCategory::ShapeMismatch, "index_add_(): source " + format_shape(source.shape()) +
                                                    " must have self's shape " + format_shape(self.shape()) +
                                                    " with dim " + str(dim) + " replaced by " + str(index.numel()));
  }
  return std::nullopt;
}

std::optional<Violation> check_torch_index_add(const OpCall& call, std::optional<uint64_t>* alpha_bits) {
  if (auto v = check_torch_index_operands(call, false)) return v;
  const Tensor& self = *call.tensor("self");
  if (call.tensor("index")->numel() == 0 && self.rank() >= 2) return std::nullopt;
  const Scalar alpha = call.scalar_arg("alpha").value_or(Scalar::of_int(1));
  if (!value_fits(alpha, self.dtype()))
    return fail(ErrorCategory::ValueOutOfRange, "alpha " + alpha.to_string() + " cannot be converted to type " +
                                                    std::string(dtype_name(self.dtype())) + " without overflow");
  *alpha_bits = ref::torch_rules::scalar_to_bits(alpha, self.dtype());
  return std::nullopt;
}

std::optional<Violation> check_torch_index_reduce(const OpCall& call) {
  const std::string reduce = *call.string_arg("reduce");
  if (reduce != "prod" && reduce != "mean" && reduce != "amax" && reduce != "amin")
    return fail(ErrorCategory::InvalidReduce,
                "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got " + reduce + ".");
  return check_torch_index_operands(call, true);
}

std::optional<Violation> check_torch_index_copy(const OpCall& call) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& source = *call.tensor("source");
  const int64_t rank = torch_rank(self);
  if (auto v = dim_rule(*call.int_arg("dim"), rank)) return v;
  const int64_t dim = *call.int_arg("dim") < 0 ? *call.int_arg("dim") + rank : *call.int_arg("dim");
  if (is_inplace_op(call) && self.has_internal_overlap())
    return fail(ErrorCategory::OverlappingOutput,
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location");
  if (index.rank() > 1)
    return fail(ErrorCategory::InvalidArgument,
                "index_copy_(): Index should have dimension 1 or 0 (got " + str(index.rank()) + ")");
  if (index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index_copy_(): Expected a long tensor for index");
  if (source.dtype() != self.dtype())
    return fail(ErrorCategory::DtypeMismatch, "index_copy_(): self and source expected to have the same dtype");
  bool same = torch_rank(source) == rank;
  for (int64_t d = 0; same && d < rank; ++d)
    same = torch_size(source, d) == (d == dim ? index.numel() : torch_size(self, d));
  if (!same)
    return fail(ErrorCategory::ShapeMismatch, "index_copy_(): source " + format_shape(source.shape()) +
                                                  " must have self's shape " + format_shape(self.shape()) +
                                                  " with dim " + str(dim) + " replaced by " + str(index.numel()));
  return std::nullopt;
}

std::optional<Violation> check_torch_index_fill(const OpCall& call, uint64_t* value_bits) {
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  if (index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index_fill_(): Expected dtype int64 for index.");
  if (auto v = dim_rule(*call.int_arg("dim"), torch_rank(self))) return v;
  if (index.rank() > 1) return fail(ErrorCategory::InvalidArgument, "Index has to be a vector/scalar");
  const Scalar value = *call.scalar_arg("value");
  if (!value_fits(value, self.dtype()))
    return fail(ErrorCategory::ValueOutOfRange, "value " + value.to_string() + " cannot be converted to type " +
                                                    std::string(dtype_name(self.dtype())) + " without overflow");
  *value_bits = ref::torch_rules::scalar_to_bits(value, self.dtype());
  return std::nullopt;
}

std::optional<Violation> check_torch_index_select(const OpCall& call) {
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const int64_t dim = *call.int_arg("dim");
  const int64_t rank = torch_rank(input);
  if (dim < -rank || dim >= rank)
    return fail(ErrorCategory::DimOutOfRange, "Dimension out of range (expected to be in range of [" + str(-rank) +
                                                  ", " + str(rank - 1) + "], but got " + str(dim) + ")");
  if (index.rank() > 1) return fail(ErrorCategory::InvalidArgument, "index_select(): Index is supposed to be a vector");
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    return fail(ErrorCategory::IndexDtype, "index_select(): Expected dtype int32 or int64 for index");
  if (input.rank() == 0 && index.numel() != 1)
    return fail(ErrorCategory::InvalidArgument,
                "index_select(): Index to scalar can have only 1 value, got " + str(index.numel()) + " value(s)");
  return std::nullopt;
}

std::optional<Violation> check_torch_take_along_dim(const OpCall& call) {
  const Tensor& input = *call.tensor("input");
  const Tensor& indices = *call.tensor("indices");
  const std::optional<int64_t> dim = call.int_arg("dim");
  const Violation dtype_error{
      ErrorCategory::IndexDtype,
      "torch.take_along_dim(): dtype of indices should be Long but got " + std::string(dtype_name(indices.dtype()))};
  if (!dim) {
    if (indices.dtype() != DType::Int64) return dtype_error;
    return std::nullopt;
  }
  if (input.rank() != indices.rank())
    return fail(ErrorCategory::RankMismatch,
                "torch.take_along_dim(): input and indices should have the same number of dimensions, but got " +
                    str(input.rank()) + " dimensions for input, and " + str(indices.rank()) +
                    " dimensions for indices");
  if (indices.dtype() != DType::Int64) return dtype_error;
  const int64_t rank = torch_rank(input);
  if (*dim < -rank || *dim >= rank)
    return fail(ErrorCategory::DimOutOfRange, "Dimension out of range (expected to be in range of [" + str(-rank) +
                                                  ", " + str(rank - 1) + "], but got " + str(*dim) + ")");
  const int64_t d = *dim < 0 ? *dim + rank : *dim;
  for (int64_t k = 0; k < input.rank(); ++k) {
    const int64_t a = input.size(k), b = indices.size(k);
    if (k != d && a != b && a != 1 && b != 1)
      return fail(ErrorCategory::ShapeMismatch, "The size of tensor a (" + str(a) +
                                                    ") must match the size of tensor b (" + str(b) +
                                                    ") at non-singleton dimension " + str(k));
  }
  return std::nullopt;
}

}  // namespace sp::backend_rules
