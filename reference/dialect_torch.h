// dialect_torch.h — PyTorch's argument rules for gather / scatter_ /
// scatter_add_ / scatter_reduce_, one small check per rule, each citing its clause in
// reference/SEMANTICS.md. Sources: seeds 000 and 002, plus LibTorch 1.13
// behaviour recorded in SEMANTICS-NOTES.md where the seeds are silent.
//
// Every check records itself in the RuleLog and returns whether it held;
// the semantic files decide the order and which checks are skipped.
// Sizes and ranks are *logical*: a rank-0 tensor counts as shape [1]
// (T-D2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "reference/op_call.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp::ref::torch_rules {

// T-D1: dim in [-r, r), r = logical rank of self/input.
bool dim_in_range(RuleLog& log, int64_t dim, int64_t rank);
// T-I1: index dtype is int64. `op` names the op in the message ("scatter").
bool index_is_int64(RuleLog& log, std::string_view op, const Tensor& index);
// T-E1: an empty index makes the call a no-op; returns index.numel() == 0.
bool index_is_empty(RuleLog& log, const Tensor& index);
// T-K1: self and src share a dtype.
bool src_dtype_matches(RuleLog& log, std::string_view op, const Tensor& self, const Tensor& src);
// T-R1: reduce, when given, is exactly "add" or "multiply". Returns the mode
// (None when absent); nullopt when invalid.
std::optional<ReduceMode> reduce_mode(RuleLog& log, const std::optional<std::string>& reduce);
// T-RD3: scatter_reduce's reduce is exactly "sum", "prod", "mean", "amax"
// or "amin". Returns the mode; nullopt (and a violation) otherwise.
std::optional<ReduceMode> scatter_reduce_mode(RuleLog& log, const std::string& reduce);
// T-RD7: LibTorch 1.13 reduces every dtype every way but bool by "mean".
bool reduction_supports_dtype(RuleLog& log, ReduceMode mode, DType t);
// T-S2 / T-G3: index has the same logical rank as `other` (named).
bool same_rank(RuleLog& log, std::string_view clause, std::string_view other_name, const Tensor& other,
               const Tensor& index);
// The message LibTorch gives for a T-S3/T-S4 violation (src may be null).
std::string scatter_shape_message(const Tensor& self, const Tensor& index, const Tensor* src, int64_t dim);
// T-S3: index.size(d) <= src.size(d) for every d.
bool index_within_src(RuleLog& log, const Tensor& index, const Tensor& src, const std::string& message);
// T-S4: index.size(d) <= self.size(d) for every d != dim.
bool index_within_self_apart_from_dim(RuleLog& log, const Tensor& self, const Tensor& index, int64_t dim,
                                      const std::string& message);
// T-G4: index.size(d) <= input.size(d) for every d != dim (gather).
bool index_within_input_apart_from_dim(RuleLog& log, const Tensor& input, const Tensor& index, int64_t dim);
// T-O1: an in-place self has no two elements sharing memory.
bool no_internal_overlap(RuleLog& log, const Tensor& self);
// PyTorch's scalar -> dtype conversion (c10::checked_convert), exposed as
// mechanics for dialects that document "convert like a tensor of self's
// dtype". scalar_overflows is c10's `overflows` test, rule by rule.
bool scalar_overflows(const Scalar& value, DType t);
// REQUIRES: !scalar_overflows(value, t) && !value_conversion_is_undefined(value, t).
uint64_t scalar_to_bits(const Scalar& value, DType t);
// T-V1: the scalar `value` converted to dtype t as c10::checked_convert
// does; nullopt (and a violation) when it does not fit.
std::optional<uint64_t> convert_value(RuleLog& log, const Scalar& value, DType t);
// T-V2: the conversion c10 performs is undefined behaviour (a float
// >= 2^63 to int64 passes its range test); the call is then unspecified.
bool value_conversion_is_undefined(const Scalar& value, DType t);
// T-B1: every index value v satisfies 0 <= v < size (size of the indexed
// dim of self/input). Reports the first offender in row-major order.
bool index_values_in_bounds(RuleLog& log, const Tensor& index, int64_t dim, int64_t size);

}  // namespace sp::ref::torch_rules
