// dialect_paddle.h — PaddlePaddle's argument rules for paddle.scatter, one
// small check per rule, each citing its clause in reference/SEMANTICS.md.
// Source: seed 004 (the paddle.scatter API page).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/semantics_common.h"

namespace sp::ref::paddle_rules {

// PD-X1: x has ndim >= 1.
bool x_rank_at_least_one(RuleLog& log, const Tensor& x);
// PD-I1: index is 1-D.
bool index_is_1d(RuleLog& log, const Tensor& index);
// PD-I2: index dtype int32 or int64.
bool index_dtype_supported(RuleLog& log, const Tensor& index);
// PD-T1: x dtype is one the document lists (float32, float64). Not a
// prohibition: records the finding in the trace and returns it; the caller
// allows both the computed result and unsupported_dtype.
bool x_dtype_documented(RuleLog& log, const Tensor& x);
// PD-K1: updates dtype == x dtype.
bool updates_dtype_matches(RuleLog& log, const Tensor& x, const Tensor& updates);
// PD-S1: updates.shape == [n] + x.shape[1:] with n >= len(index) (004:
// "The length of index cannot exceed updates's length", "dim value with
// dim > 1 should be the same as input"); only its first len(index) rows are
// read. The parameter text's "same as input" is erratum PD-E1.
// REQUIRES: index is 1-D and x has rank >= 1.
bool updates_shape_matches(RuleLog& log, const Tensor& x, const Tensor& index, const Tensor& updates);
// PD-B1: no index value >= x.shape[0] ("cannot exceed input's length").
bool index_values_below_length(RuleLog& log, const Tensor& index, int64_t length);
// PD-B3 (Paddle >= 3.0, reference/versions.h): no index value < -x.shape[0];
// values in [-x.shape[0], 0) address row v + x.shape[0].
bool index_values_at_least_minus_length(RuleLog& log, const Tensor& index, int64_t length);
// PD-B2 (before Paddle 3.0 and the baseline): the first negative index value (undescribed by 004), as a reason.
std::optional<std::string> negative_index_value(const Tensor& index);
// PD-X2 (a note, not a rule): some operand has rank 10 or more, which 004
// does not limit (PD-X1 asks only ndim >= 1) and Paddle's tensors cannot
// hold; campaign expectation entries key by it. nullopt otherwise.
std::optional<Note> rank_ten_note(const std::vector<const Tensor*>& operands);

}  // namespace sp::ref::paddle_rules
