// messages_paddle.h — the Paddle dialect's message table (see
// messages_torch.h): the one text of every paddle.scatter rule the
// reference (dialect_paddle.cc) and our backends (cpu, cuda:
// backends/common/arg_rules.cc and their kernels) report, keyed by clause.
#pragma once

#include <cstdint>
#include <string>

#include "reference/dtype.h"
#include "reference/tensor.h"

namespace sp::ref::paddle_messages {

std::string x_rank(int64_t rank);      // PD-X1
std::string index_rank(int64_t rank);  // PD-I1
std::string index_dtype(DType index);  // PD-I2
std::string updates_dtype();           // PD-K1
// PD-S1: updates is not [n] + x.shape[1:] with n >= len(index) = `n`.
std::string updates_shape(const Shape& updates, const Shape& x, int64_t n);
std::string index_too_large(int64_t length, int64_t value);  // PD-B1: value >= x.shape[0] = length
std::string index_too_small(int64_t lo, int64_t value);      // PD-B3: value < -x.shape[0] = lo
// PD-B2: a negative value Paddle < 3.0 does not describe, as our backends
// refuse it (at position `i` of index).
std::string index_negative(int64_t i, int64_t value);
// Our backends' bounds error for index value `value` at position `i`,
// x.shape[0] = `rows`: PD-B1 when too large, else PD-B3 where negatives
// wrap (Paddle >= 3.0), else PD-B2.
std::string bad_index(int64_t i, int64_t value, int64_t rows, bool wraps);

}  // namespace sp::ref::paddle_messages
