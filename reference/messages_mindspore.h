// messages_mindspore.h — the MindSpore dialect's message table (see
// messages_torch.h): the one text of every MindSpore Tensor.scatter_ rule
// the reference (dialect_mindspore.cc) and our backends (cpu, cuda:
// backends/common/arg_rules.cc and their kernels) report, keyed by clause.
#pragma once

#include <cstdint>
#include <string>

#include "reference/dtype.h"
#include "reference/tensor.h"

namespace sp::ref::mindspore_messages {

std::string dim_out_of_range(int64_t dim, int64_t rank);  // MS-D1
std::string rank_limit(int64_t rank);                     // MS-L1
std::string index_dtype(DType index);                     // MS-I1
std::string src_dtype();                                  // MS-K1
std::string reduce_mode(const std::string& reduce);       // MS-R1
std::string value_overload_removed();                     // MS-N2
// MS-S1: index's rank differs from `other`'s ("self", "src").
std::string index_rank(const std::string& other);
// MS-S2 / MS-S3: index.size(d) exceeds `other`'s.
std::string index_size(int64_t d, int64_t index_size, const std::string& other, int64_t other_size);
std::string value_conversion(const std::string& value, DType t);  // MS-V1
// MS-B1 / MS-N1: what 003 leaves undefined, as our backends refuse it: an
// index value outside [lo, size) at `position` of index.
std::string index_outside(const Shape& position, int64_t value, int64_t lo, int64_t size, int64_t dim);

}  // namespace sp::ref::mindspore_messages
