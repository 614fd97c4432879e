// dialect_mindspore.h — MindSpore's argument rules for Tensor.scatter_ (all
// four overloads), one small check per rule, each citing its clause in
// reference/SEMANTICS.md. Source: seed 003 (the r2.x documentation before
// 2.10) and, where a case names doc_version >= 2.10, the changes recorded
// in SEMANTICS-NOTES.md (MS-N1, MS-N2).
//
// Ranks and sizes are the tensors' own: MindSpore documents no rank-0
// promotion, so a rank-0 self has no valid dim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reference/op_call.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp::ref::mindspore_rules {

// MS-N0: true when the version (OpCall::framework_version) is 2.10 or later
// ("r2.10", "2.10", "r2.11.0", "2.10.0"), the range of MS-N1 and MS-N2 in
// reference/versions.cc; false for an empty version (the baseline, seed 003
// = r2.3). Throws std::invalid_argument for a version it cannot read.
bool follows_r2_10_or_later(const std::string& doc_version);

// MS-D1: dim in [-r, r), r = self's rank.
bool dim_in_range(RuleLog& log, int64_t dim, int64_t rank);
// MS-L1: self's rank is at most 8.
bool rank_within_limit(RuleLog& log, const Tensor& self);
// MS-I1: index dtype is int32 or int64.
bool index_dtype_supported(RuleLog& log, const Tensor& index);
// MS-K1: src dtype == self dtype.
bool src_dtype_matches(RuleLog& log, const Tensor& self, const Tensor& src);
// MS-R1: reduce, when given, is "add" or "multiply"; nullopt when invalid.
std::optional<ReduceMode> reduce_mode(RuleLog& log, const std::optional<std::string>& reduce);
// MS-N2: the value overloads exist (removed after 2.9).
bool value_overload_exists(RuleLog& log, bool r2_10_or_later);
// MS-E1: an empty index returns self unchanged; returns index.numel() == 0.
bool index_is_empty(RuleLog& log, const Tensor& index);
// MS-S1: `other` (self or src) has index's rank.
bool same_rank(RuleLog& log, const std::string& other_name, const Tensor& other, const Tensor& index);
// MS-S2 (src) / MS-S3 (self): index.size(d) <= other.size(d) for EVERY d.
bool index_within(RuleLog& log, const char* clause, const std::string& other_name, const Tensor& other,
                  const Tensor& index);
// MS-V1: value converted to self's dtype like a tensor of that dtype
// (PyTorch's conversion, T-V1); nullopt and a violation when it overflows.
std::optional<uint64_t> convert_value(RuleLog& log, const Scalar& value, DType t);
// MS-B1 / MS-N1: the first index value the document leaves undefined
// (outside [-s, s), or negative under r2.10+), as a reason; nullopt when
// every value is defined.
std::optional<std::string> undefined_index_value(const Tensor& index, int64_t dim, int64_t size, bool r2_10_or_later);

}  // namespace sp::ref::mindspore_rules
