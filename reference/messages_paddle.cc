// messages_paddle.cc — see messages_paddle.h.
#include "reference/messages_paddle.h"

namespace sp::ref::paddle_messages {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

std::string x_rank(int64_t rank) { return "x must be an N-D tensor with ndim >= 1, but got ndim " + str(rank); }

std::string index_rank(int64_t rank) { return "index must be a 1-D tensor, but got ndim " + str(rank); }

std::string index_dtype(DType index) {
  return "index dtype must be int32 or int64, but got " + std::string(dtype_name(index));
}

std::string updates_dtype() { return "updates must have the dtype of x"; }

std::string updates_shape(const Shape& updates, const Shape& x, int64_t n) {
  Shape rows = x;
  if (!rows.empty()) rows[0] = n;
  return "updates.shape " + format_shape(updates) + " must be [n] + x.shape[1:] with n >= len(index), e.g. " +
         format_shape(rows);
}

std::string index_too_large(int64_t length, int64_t value) {
  return "The index is out of bounds: it should be less than " + str(length) + ", but received " + str(value);
}

std::string index_too_small(int64_t lo, int64_t value) {
  return "The index is out of bounds: it should be greater than or equal to " + str(lo) + ", but received " +
         str(value);
}

std::string index_negative(int64_t i, int64_t value) { return "index[" + str(i) + "]=" + str(value) + " is negative"; }

std::string bad_index(int64_t i, int64_t value, int64_t rows, bool wraps) {
  if (value >= rows) return index_too_large(rows, value);
  return wraps ? index_too_small(-rows, value) : index_negative(i, value);
}

}  // namespace sp::ref::paddle_messages
