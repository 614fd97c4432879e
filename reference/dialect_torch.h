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
// T-I1: index dtype is int64; from torch 2.8 (T-I2, reference/versions.h)
// int32 or int64. `op` names the op in the message ("scatter"); `version`
// is the call's OpCall::framework_version.
bool scatter_gather_index_dtype(RuleLog& log, std::string_view op, const Tensor& index, const std::string& version);
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
// T-IS3: index_select's index is a vector: rank 1, or 0-d (one element).
bool index_is_vector(RuleLog& log, const Tensor& index);
// T-IS4: index_select's index dtype is int32 or int64 (also when empty).
bool index_is_int32_or_int64(RuleLog& log, const Tensor& index);
// T-IS6: every index_select index value v satisfies 0 <= v < size (input's
// logical size along dim; negative values do not wrap). Reports the first
// offender in row-major order.
bool index_select_values_in_bounds(RuleLog& log, const Tensor& index, int64_t size);
// T-O1: an in-place self has no stride-0 dim over more than one element.
bool no_internal_overlap(RuleLog& log, const Tensor& self);
// T-O2: internal overlap without a stride-0 dim (overlapping strides), which
// LibTorch cannot detect (MemOverlap::TooHard: no error) and whose result
// depends on the kernel's write order: the reason the call is unspecified,
// or nullopt.
std::optional<std::string> undetected_overlap(const Tensor& self);
// The error a call breaking other rules expects, with T-O2's overlap as one
// more category a backend may report (C-1): one that detects the overlap
// LibTorch cannot is not failed for refusing it.
Expectation with_undetected_overlap(Expectation e, bool in_place, const Tensor& self);
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

// Tensor.index_add_ / torch.index_add (reference/torch_index_add.cc), in
// LibTorch 1.13's order. Sizes are physical unless said otherwise.
// T-IA2: index is a vector: rank 1, or 0-d (also when empty).
bool index_add_index_is_vector(RuleLog& log, const Tensor& index);
// T-IA3: index dtype is int32 or int64 (also when empty).
bool index_add_index_dtype(RuleLog& log, const Tensor& index);
// T-IA4: source has self's dtype.
bool index_add_source_dtype(RuleLog& log, const Tensor& self, const Tensor& source);
// T-IA5: source has the dim (dim == 0, or dim < source's rank).
bool index_add_source_has_dim(RuleLog& log, const Tensor& source, int64_t dim);
// T-IA6: len(index) == source.size(dim) (1 for a 0-d source).
bool index_add_source_length(RuleLog& log, const Tensor& index, const Tensor& source, int64_t dim);
// T-IA8: source's logical shape is self's with dim replaced by len(index).
bool index_add_source_shape(RuleLog& log, const Tensor& self, const Tensor& index, const Tensor& source, int64_t dim);
// T-IA14 (torch >= 2.3, reference/versions.h): source's physical shape with
// dim removed equals self's (nothing removed when either is 0-d). REQUIRES:
// T-IA5 held (dim == 0 or dim < source's rank) and dim in self's range.
bool index_add_source_shape_physical(RuleLog& log, const Tensor& self, const Tensor& source, int64_t dim);
// The checks of LibTorch's index_func_meta_impl, which index_add and
// index_reduce share (reference/torch_index_add.cc, torch_index_reduce.cc),
// in its order: T-D1 (dim in range), T-IA2..T-IA6, then on torch >= 2.3
// T-IA14 when every check so far held (its meta function compares the
// physical shapes before anything else reads the tensors, also for an empty
// index), then T-O1 for an in-place op. `version`: the call's framework
// version (T-IA14 is versioned, reference/versions.h).
struct IndexAddMeta {
  bool dim_ok;          // T-D1 held
  int64_t dim;          // dim wrapped into [0, r) when dim_ok, else as given
  bool vector;          // T-IA2 held
  bool physical_shape;  // T-IA14 holds at this version (then T-IA8 does not run)
};
IndexAddMeta index_add_meta(RuleLog& log, const Tensor& self, const Tensor& index, const Tensor& source,
                            int64_t dim_arg, bool in_place, const std::string& version);
// T-IA9: alpha converts to self's dtype (c10::checked_convert, as T-V1);
// the converted bits, or nullopt (and a violation).
std::optional<uint64_t> index_add_alpha(RuleLog& log, const Scalar& alpha, DType t);
// T-IA10: every index value v satisfies 0 <= v < size (self's logical size
// along dim; negative values do not wrap). First offender in order.
bool index_add_values_in_bounds(RuleLog& log, const Tensor& index, int64_t size);

// Tensor.index_copy_ / torch.index_copy (reference/torch_index_copy.cc).
// T-IC2: index is a vector: rank 1, or 0-d (also when empty).
bool index_copy_index_is_vector(RuleLog& log, const Tensor& index);
// T-IC3: index dtype is int64 (also when empty).
bool index_copy_index_dtype(RuleLog& log, const Tensor& index);
// T-IC4: source has self's dtype.
bool index_copy_source_dtype(RuleLog& log, const Tensor& self, const Tensor& source);
// T-IC5: source's logical shape is self's with dim replaced by len(index).
bool index_copy_source_shape(RuleLog& log, const Tensor& self, const Tensor& index, const Tensor& source, int64_t dim);
// T-IC7: every index value v satisfies 0 <= v < size (self's logical size
// along dim; negative values do not wrap). First offender in order.
bool index_copy_values_in_bounds(RuleLog& log, const Tensor& index, int64_t dim, int64_t size);

// Tensor.index_fill_ / torch.index_fill (reference/torch_index_fill.cc).
// T-IF2: index dtype is int64 (also when empty).
bool index_fill_index_dtype(RuleLog& log, const Tensor& index);
// T-IF3: index is a vector: rank 1, or 0-d (also when empty).
bool index_fill_index_is_vector(RuleLog& log, const Tensor& index);
// T-IF4: value converts to self's dtype (c10::checked_convert, as T-V1);
// the converted bits, or nullopt (and a violation).
std::optional<uint64_t> index_fill_value(RuleLog& log, const Scalar& value, DType t);
// T-IF5: every index value v satisfies -size <= v < size (self's logical
// size along dim). First offender in order. Values in [-size, 0) pass here:
// the document is silent on them (T-IF6 decides).
bool index_fill_values_within(RuleLog& log, const Tensor& index, int64_t dim, int64_t size);

// Tensor.index_reduce_ / torch.index_reduce (reference/torch_index_reduce.cc)
// share T-IA2..T-IA6, T-IA8 and T-IA10 with index_add_.
// T-IR3: reduce is exactly "prod", "mean", "amax" or "amin" ("sum" too is
// refused); the mode, or nullopt (and a violation).
std::optional<ReduceMode> index_reduce_mode(RuleLog& log, const std::string& reduce);

// torch.take_along_dim (reference/torch_take_along_dim.cc), in LibTorch
// 1.13's order.
// T-TA3: with a dim, indices has input's rank (physical: 0-d and 1-D differ).
bool take_along_dim_same_rank(RuleLog& log, const Tensor& input, const Tensor& indices);
// T-TA4: indices dtype is int64 ("Must have long dtype"), also when empty;
// `flattened` (dim is None) with an empty indices cites T-TA12.
bool take_along_dim_indices_long(RuleLog& log, const Tensor& indices, bool flattened);
// T-TA5: for every d != dim, input.size(d) and indices.size(d) are equal or
// one of them is 1 (they broadcast). REQUIRES: equal ranks, dim in range.
bool take_along_dim_broadcasts(RuleLog& log, const Tensor& input, const Tensor& indices, int64_t dim);

}  // namespace sp::ref::torch_rules
