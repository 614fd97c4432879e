// messages_mindspore.cc — see messages_mindspore.h.
#include "reference/messages_mindspore.h"

namespace sp::ref::mindspore_messages {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

std::string dim_out_of_range(int64_t dim, int64_t rank) {
  return "dim " + str(dim) + " is out of range [" + str(-rank) + ", " + str(rank) + ")";
}

std::string rank_limit(int64_t rank) { return "the rank of self " + str(rank) + " exceeds 8"; }

std::string index_dtype(DType index) {
  return "index dtype " + std::string(dtype_name(index)) + " is not supported, expected int32 or int64";
}

std::string src_dtype() { return "self and src must have the same dtype"; }

std::string reduce_mode(const std::string& reduce) {
  return "reduce must be \"add\" or \"multiply\", but got \"" + reduce + "\"";
}

std::string value_overload_removed() { return "value overload removed after 2.9"; }

std::string index_rank(const std::string& other) { return "the rank of index and " + other + " must be the same"; }

std::string index_size(int64_t d, int64_t index_size, const std::string& other, int64_t other_size) {
  return "index.size(" + str(d) + ") " + str(index_size) + " > " + other + ".size(" + str(d) + ") " + str(other_size);
}

std::string value_conversion(const std::string& value, DType t) {
  return "value " + value + " cannot be converted to " + std::string(dtype_name(t));
}

std::string index_outside(const Shape& position, int64_t value, int64_t lo, int64_t size, int64_t dim) {
  return "index" + format_index(position) + "=" + str(value) + " is outside [" + str(lo) + ", " + str(size) +
         ") for dim " + str(dim);
}

}  // namespace sp::ref::mindspore_messages
