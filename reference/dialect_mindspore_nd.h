// dialect_mindspore_nd.h — MindSpore's rules for its ND ops (the seven
// ops.tensor_scatter_*), one small check per rule, each citing its clause
// (MS-TS*) in reference/SEMANTICS.md. Source: the MindSpore 2.10.0
// docstrings (the r2.10 pages). Shapes are physical: indices of rank >= 2
// is a rule (MS-TS3); a 0-d input_x takes index tuples of length 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reference/semantics_common.h"

namespace sp::ref::mindspore_nd_rules {

// The combiner of a mindspore.tensor_scatter_<f> entry (its id's last word:
// "update", "add", "sub", "mul", "div", "max", "min"), the one per-op fact
// the seven entries do not share.
std::string tensor_scatter_combiner(std::string_view op_id);

// MS-TS2: indices is int32 or int64; else index_dtype.
bool indices_int32_or_64(RuleLog& log, std::string_view clause, const Tensor& indices);
// MS-TS3: indices has rank >= 2 ("The rank must be at least 2"); else invalid_argument.
bool indices_rank_at_least_two(RuleLog& log, std::string_view clause, const Tensor& indices);
// MS-TS4: k = indices.shape[-1] <= rank ("The dimension of input_x must be
// no less than indices.shape[-1]"); else shape_mismatch.
bool tuple_length_within(RuleLog& log, std::string_view clause, int64_t k, int64_t rank);
// MS-TS5: updates' dtype is input_x's; else dtype_mismatch.
bool updates_dtype_matches(RuleLog& log, std::string_view clause, const Tensor& input, const Tensor& updates);
// MS-TS6: updates.shape == indices.shape[:-1] ++ shape[k:] (shape: input_x's);
// else shape_mismatch (another rank included: one rule, one category).
bool updates_shape(RuleLog& log, std::string_view clause, const Shape& shape, const Tensor& indices,
                   const Tensor& updates);
// The first index value outside [0, s) (s = shape[j] for component j), as
// a sentence; nullopt when every value is in range. REQUIRES: indices int32
// or int64 of rank >= 1, k <= rank(shape).
std::optional<std::string> first_value_out_of_range(const Shape& shape, const Tensor& indices);
// Whether the index tuple at `pos` (a position of indices.shape[:-1]) has
// every component in [0, s).
bool tuple_in_range(const Shape& shape, const Tensor& indices, const Shape& pos);

}  // namespace sp::ref::mindspore_nd_rules
