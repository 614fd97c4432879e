// messages_torch.cc — see messages_torch.h.
#include "reference/messages_torch.h"

namespace sp::ref::torch_messages {
namespace {

std::string str(int64_t v) { return std::to_string(v); }
std::string name(DType t) { return std::string(dtype_name(t)); }

}  // namespace

std::string c10_type_name(DType t) {
  switch (t) {
    case DType::Bool:
      return "bool";
    case DType::UInt8:
      return "uint8_t";
    case DType::Int8:
      return "int8_t";
    case DType::Int16:
      return "int16_t";
    case DType::Int32:
      return "int";
    case DType::Int64:
      return "int64_t";
    case DType::Float16:
      return "at::Half";
    case DType::BFloat16:
      return "at::BFloat16";
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    case DType::UInt16:
      return "uint16_t";
    case DType::UInt32:
      return "uint32_t";
    case DType::UInt64:
      return "uint64_t";
  }
  return "?";
}

std::string dim_out_of_range(int64_t dim, int64_t rank) {
  return "Dimension out of range (expected to be in range of [" + str(-rank) + ", " + str(rank - 1) + "], but got " +
         str(dim) + ")";
}

std::string index_dtype(std::string_view op, bool int32_too) {
  return std::string(op) + "(): Expected dtype " + (int32_too ? "int32/int64" : "int64") + " for index";
}

std::string src_dtype(std::string_view op) {
  return std::string(op) + "(): Expected self.dtype to be equal to src.dtype";
}

std::string reduce_add_or_multiply() { return "reduce argument must be either add or multiply."; }

std::string scatter_reduce_mode() { return "reduce argument must be either sum, prod, mean, amax or amin."; }

std::string reduce_mean_bool() { return "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'"; }

std::string index_rank(std::string_view other) {
  return "Index tensor must have the same number of dimensions as " + std::string(other) + " tensor";
}

std::string scatter_index_shape(const Tensor& self, const Tensor& index, const Tensor* src, int64_t dim) {
  std::string m = "Expected index " + format_shape(index.shape()) + " to be smaller than self " +
                  format_shape(self.shape()) + " apart from dimension " + str(dim);
  if (src != nullptr) m += " and to be smaller size than src " + format_shape(src->shape());
  return m;
}

std::string gather_index_shape(int64_t d, const Tensor& index, const Tensor& input, int64_t dim) {
  return "Size does not match at dimension " + str(d) + " expected index " + format_shape(index.shape()) +
         " to be smaller than self " + format_shape(input.shape()) + " apart from dimension " + str(dim);
}

std::string internal_overlap() {
  return "unsupported operation: more than one element of the written-to tensor refers to a single memory "
         "location. Please clone() the tensor before performing the operation.";
}

std::string out_overlaps_operand() {
  return "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
         "single memory location. Please clone() the tensor before performing the operation.";
}

std::string out_dtype(DType result, DType out) {
  return "Expected out tensor to have dtype " + name(result) + ", but got " + name(out) + " instead";
}

std::string value_overflow(DType t) {
  return "value cannot be converted to type " + c10_type_name(t) + " without overflow";
}

std::string index_out_of_bounds(int64_t value, int64_t dim, int64_t size) {
  return "index " + str(value) + " is out of bounds for dimension " + str(dim) + " with size " + str(size);
}

std::string index_out_of_range_in_self() { return "index out of range in self"; }

std::string index_add_index_rank(int64_t rank) {
  return "index_add_(): Index is supposed to be a vector, but got dim: " + str(rank);
}

std::string index_add_index_dtype(DType index) {
  return "index_add_(): Expected dtype int32/int64 for index but got: " + name(index);
}

std::string index_add_source_dtype(DType self, DType source) {
  return "index_add_(): self (" + name(self) + ") and source (" + name(source) + ") must have the same scalar type";
}

std::string index_add_source_has_dim(int64_t dim, int64_t rank) {
  return "index_add_(): Indexing dim " + str(dim) + " is out of bounds of the source tensor with dim " + str(rank);
}

std::string index_add_source_length(int64_t n, int64_t along, int64_t dim) {
  return "index_add_(): Number of indices (" + str(n) + ") should be equal to source.size(dim): (" + str(along) +
         "), for dim: " + str(dim);
}

std::string index_add_source_shape(const Tensor& self, const Tensor& source, int64_t dim, int64_t n) {
  return "index_add_(): source " + format_shape(source.shape()) + " must have self's shape " +
         format_shape(self.shape()) + " with dim " + str(dim) + " replaced by " + str(n);
}

std::string index_add_source_shape_physical(const Tensor& self, const Tensor& source) {
  return "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = " +
         format_shape(self.shape()) + " source.shape = " + format_shape(source.shape());
}

std::string index_copy_index_rank(int64_t rank) {
  return "index_copy_(): Index should have dimension 1 or 0 (got " + str(rank) + ")";
}

std::string index_copy_index_dtype(DType index) {
  return "index_copy_(): Expected a long tensor for index, but got " + name(index);
}

std::string index_copy_source_dtype(DType self, DType source) {
  return "index_copy_(): self and source expected to have the same dtype, but got (self) " + name(self) +
         " and (source) " + name(source);
}

std::string index_copy_source_shape(const Tensor& self, const Tensor& source, int64_t dim, int64_t n) {
  return "index_copy_(): source " + format_shape(source.shape()) + " must have self's shape " +
         format_shape(self.shape()) + " with dim " + str(dim) + " replaced by " + str(n);
}

std::string index_copy_out_of_bounds(int64_t value, int64_t dim, int64_t size) {
  return "index_copy_(): " + index_out_of_bounds(value, dim, size);
}

std::string index_fill_index_dtype() { return "index_fill_(): Expected dtype int64 for index."; }

std::string index_fill_index_rank() { return "Index has to be a vector/scalar"; }

std::string index_reduce_mode(std::string_view reduce) {
  return "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got " + std::string(reduce) + ".";
}

std::string index_select_index_rank() { return "index_select(): Index is supposed to be a vector"; }

std::string index_select_index_dtype() { return "index_select(): Expected dtype int32 or int64 for index"; }

std::string index_select_scalar_count(int64_t count) {
  return "index_select(): Index to scalar can have only 1 value, got " + str(count) + " value(s)";
}

std::string take_along_dim_rank(int64_t input_rank, int64_t indices_rank) {
  return "torch.take_along_dim(): input and indices should have the same number of dimensions, but got " +
         str(input_rank) + " dimensions for input, and " + str(indices_rank) + " dimensions for indices";
}

std::string take_along_dim_indices_dtype(DType indices) {
  return "torch.take_along_dim(): dtype of indices should be Long but got " + name(indices);
}

std::string broadcast_size(int64_t a, int64_t b, int64_t d) {
  return "The size of tensor a (" + str(a) + ") must match the size of tensor b (" + str(b) +
         ") at non-singleton dimension " + str(d);
}

}  // namespace sp::ref::torch_messages
