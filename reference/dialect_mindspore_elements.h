// dialect_mindspore_elements.h — the argument rules MindSpore's element-wise
// index ops share (ops.gather_elements, ops.tensor_scatter_elements,
// ops.gather, mint.scatter, mint.scatter_add): one small check per rule, each
// taking the clause id (MS-GE*, MS-TSE*, MS-G*, MS-MS*) it records, so each op
// cites its own page. Source: the MindSpore API documentation r2.10 (the
// docstrings of mindspore 2.10.0); reference/SEMANTICS.md, "MindSpore's
// element-wise index ops".
//
// Ranks and sizes are the tensors' own: the pages document no rank-0
// promotion, so a rank-0 operand has no valid dim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "reference/semantics_common.h"

namespace sp::ref::mindspore_elements {

// `name` (dim / axis) in [-rank, rank); the wrapped value, nullopt (and
// dim_out_of_range) otherwise.
std::optional<int64_t> dim_in_range(RuleLog& log, std::string_view clause, std::string_view name, int64_t value,
                                    int64_t rank);
// `t` (an index operand named `name`) is int32 or int64; else index_dtype.
bool index_dtype_int32_or_int64(RuleLog& log, std::string_view clause, std::string_view name, const Tensor& t);
// `t` has rank >= 1; else rank_mismatch (a rule on the number of dims).
bool rank_at_least_one(RuleLog& log, std::string_view clause, std::string_view name, const Tensor& t);
// `b` has `a`'s rank; else rank_mismatch.
bool same_rank(RuleLog& log, std::string_view clause, std::string_view a_name, const Tensor& a, std::string_view b_name,
               const Tensor& b);
// `b` has `a`'s dtype; else dtype_mismatch.
bool same_dtype(RuleLog& log, std::string_view clause, std::string_view a_name, const Tensor& a,
                std::string_view b_name, const Tensor& b);
// index.shape[d] <= other.shape[d] for every d (every d but `skip_dim` when
// set); else shape_mismatch. REQUIRES: equal ranks.
bool index_fits(RuleLog& log, std::string_view clause, const Tensor& index, std::string_view other_name,
                const Tensor& other, std::optional<int64_t> skip_dim);
// The first index value (row-major) outside [lo, size), as "index[1, 0]=5";
// nullopt when every value is inside. REQUIRES: integral dtype.
std::optional<std::string> first_outside(const Tensor& index, std::string_view name, int64_t lo, int64_t size);

}  // namespace sp::ref::mindspore_elements
