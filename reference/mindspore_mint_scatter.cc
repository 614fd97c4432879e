// mindspore_mint_scatter.cc — mindspore.mint.scatter(input, dim, index, src)
// and mindspore.mint.scatter_add(input, dim, index, src) -> out
// (torch.scatter / torch.scatter_add's semantics, out of place; MindSpore's
// rules from their r2.10 pages).
//
// Formula (each page's 3-D listing; MS-MS1, MS-MSA1), out = copy of input:
//   output[i][index[i][j][k]][k] = src[i][j][k]    # mint.scatter, dim 1
//   input[i][index[i][j][k]][k] += src[i][j][k]    # mint.scatter_add, dim 1
// mint.scatter's src may be a float scalar (the `value` argument here),
// read as a tensor of input's dtype (MS-MS6).
//
// Checks, in the order they run (all run; every violation is collected):
//   MS-MS2 / MS-MSA2  input, index, src have rank >= 1 (ValueError)
//                                                        (rank_mismatch)
//   MS-MS3 / MS-MSA3  dim in [-r, r), r = input's rank    (dim_out_of_range)
//   MS-MS4 / MS-MSA4  index dtype int32 or int64 (TypeError) (index_dtype)
//   MS-MS5 / MS-MSA5  index and src have input's rank (ValueError)
//                                                        (rank_mismatch)
//   MS-MS7 / MS-MSA6  src dtype == input dtype (scatter: TypeError)
//                                                        (dtype_mismatch)
//   MS-MSA7  index.shape[d] <= input.shape[d], d != dim; index.shape[d] <=
//            src.shape[d], every d (ValueError)          (shape_mismatch)
// Then what the pages leave undefined makes the call unspecified (MS-MS9
// even where the call also breaks a rule above):
//   MS-MS8   mint.scatter: an index value outside [0, input.shape[dim])
//            ("Negative or out-of-range `index` values are illegal input
//            and will lead to undefined behavior"); before MindSpore 2.10 a
//            negative value is index_out_of_bounds instead (versioned rule
//            MS-MS11; 2.7.2: "RuntimeError: If `index` has negative
//            elements"), checked with the rules above
//   MS-MS9   mint.scatter: index larger than src in a dim, or than input
//            apart from dim (the page states no shape rule between them)
//   MS-MS6   mint.scatter: a value that does not fit input's dtype
//   MS-MSA8  mint.scatter_add: an index value outside [0, input.shape[dim])
//            (the page states no range for the values)
// Duplicates (MS-MS10 / MS-MSA9): mint.scatter, any writer may win (the page
// gives no order); scatter_add, every term in any order (float interval).
// No exemption for an empty index: every rule applies.
// Source: https://www.mindspore.cn/docs/en/r2.10.0/api_python/mint/mindspore.mint.scatter.html
// and .../mint/mindspore.mint.scatter_add.html (r2.10; mindspore 2.10.0's
// docstrings; 2.7.2's for MS-MS11), SEMANTICS.md MS-MS*, MS-MSA*.
#include "reference/dialect_mindspore_elements.h"
#include "reference/dialect_torch.h"
#include "reference/op_call.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"
#include "reference/versions.h"

namespace sp {
namespace {

struct Clauses {
  const char *rank1, *dim, *dtype, *same_rank, *src_dtype, *values;
};
constexpr Clauses kScatter{"MS-MS2", "MS-MS3", "MS-MS4", "MS-MS5", "MS-MS7", "MS-MS8"};
constexpr Clauses kScatterAdd{"MS-MSA2", "MS-MSA3", "MS-MSA4", "MS-MSA5", "MS-MSA6", "MS-MSA8"};

// The notes of an answer. MS-MS1 only where the formula meets what
// MindSpore 2.10.0 refuses (an empty index or src; a src of another shape
// than index's, which the page allows): campaign entries key by it, and a
// note on every answer would hide every finding of the op. MS-MS6: a float
// src (src null).
std::vector<Note> scatter_notes(bool add, const Tensor& index, const Tensor* src) {
  std::vector<Note> notes;
  if (!src) notes.push_back({"MS-MS6", "a float src, read as a tensor of input's dtype"});
  if (!add && (index.numel() == 0 || (src && (src->numel() == 0 || src->shape() != index.shape()))))
    notes.push_back({"MS-MS1", index.numel() == 0 || (src && src->numel() == 0)
                                   ? "an operand without elements: out = input, no write"
                                   : "src larger than index: only index's positions of src are read"});
  notes.push_back({add ? "MS-MSA9" : "MS-MS10",
                   add ? "duplicate targets: every term, in any order" : "duplicate targets: any writer may win"});
  return notes;
}

Expectation mint_scatter(const OpCall& call, Trace* trace, bool add) {
  namespace rules = ref::mindspore_elements;
  const Clauses& c = add ? kScatterAdd : kScatter;
  const Tensor& input = *call.tensor("input");
  const Tensor& index = *call.tensor("index");
  const Tensor* src = call.tensor("src");  // null: mint.scatter's float src (`value`)
  const int64_t dim_arg = *call.int_arg("dim");
  ref::RuleLog log(trace);

  bool ranks_ok = rules::rank_at_least_one(log, c.rank1, "input", input);
  ranks_ok = rules::rank_at_least_one(log, c.rank1, "index", index) && ranks_ok;
  if (src) ranks_ok = rules::rank_at_least_one(log, c.rank1, "src", *src) && ranks_ok;
  const std::optional<int64_t> dim = rules::dim_in_range(log, c.dim, "dim", dim_arg, input.rank());
  rules::index_dtype_int32_or_int64(log, c.dtype, "index", index);
  bool same = ranks_ok && rules::same_rank(log, c.same_rank, "input", input, "index", index);
  if (src) same = ranks_ok && rules::same_rank(log, c.same_rank, "input", input, "src", *src) && same;
  if (src) rules::same_dtype(log, c.src_dtype, "input", input, "src", *src);
  // MS-MS11: before MindSpore 2.10 a negative index value is an error (2.7.2: "RuntimeError: If `index` has
  // negative elements"); from 2.10 undefined (MS-MS8 below).
  if (!add && dim && ref::index_values_readable(index) && !ref::rule_holds("MS-MS11", call.framework_version)) {
    const std::optional<std::string> negative = rules::first_outside(index, "index", 0, INT64_MAX);
    log.check(!negative, "MS-MS11", negative.value_or("no negative index value"), ErrorCategory::IndexOutOfBounds,
              "index has negative elements: " + negative.value_or(""));
  }
  if (add && same && dim) {
    rules::index_fits(log, "MS-MSA7", index, "input", input, *dim);
    rules::index_fits(log, "MS-MSA7", index, "src", *src, std::nullopt);
  }
  // MS-MS9 wins over the listed errors the call also breaks (as MS-B1 does for Tensor.scatter_): the page
  // states no shape rule, so a backend may refuse the shapes before or after any other rule.
  if (!add && same && dim) {
    std::string where;
    for (int64_t d = 0; d < index.rank() && where.empty(); ++d) {
      if (src && index.size(d) > src->size(d)) where = "index.shape[" + std::to_string(d) + "] > src's";
      if (d != *dim && index.size(d) > input.size(d)) where = "index.shape[" + std::to_string(d) + "] > input's";
    }
    if (!where.empty())
      return ref::unspecified_expectation("MS-MS9: " + where + "; the page states no shape rule for index", trace);
  }
  if (!log.passed()) return log.error_expectation();

  const int64_t s = input.size(*dim);
  if (const auto bad = rules::first_outside(index, "index", 0, s))
    return ref::unspecified_expectation(std::string(c.values) + ": " + *bad +
                                            (add ? "; the page states no range for the index values"
                                                 : "; the page: a negative or too large index is undefined"),
                                        trace);
  std::optional<uint64_t> value_bits;
  if (!src) {
    const Scalar value = *call.scalar_arg("value");
    if (ref::torch_rules::scalar_overflows(value, input.dtype()) ||
        ref::torch_rules::value_conversion_is_undefined(value, input.dtype()))
      return ref::unspecified_expectation(
          "MS-MS6: src " + value.to_string() + " does not fit input's dtype; the page gives no conversion", trace);
    value_bits = ref::torch_rules::scalar_to_bits(value, input.dtype());
  }

  OutputBuilder out("out", input, trace);
  const std::string value_text = value_bits && trace ? "src " + call.scalar_arg("value")->to_string() : "";
  // output[i][index[i][j][k]][k] = (+=) src[i][j][k]
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    const Shape target = ref::position_along_dim(input, p, *dim, p.value);
    if (add)
      out.reduce(target, ReduceMode::Add, src->value_at(p.pos), ref::read_from(p, "src", *src, p.pos));
    else if (src)
      out.overwrite(target, src->bits_at(p.pos), ref::read_from(p, "src", *src, p.pos));
    else
      out.overwrite(target, *value_bits, ref::scalar_from(p, value_text));
  });
  return ref::outputs_expectation({out.finish()}, scatter_notes(add, index, src));
}

}  // namespace

Expectation mindspore_mint_scatter(const OpCall& call, Trace* trace) { return mint_scatter(call, trace, false); }
Expectation mindspore_mint_scatter_add(const OpCall& call, Trace* trace) { return mint_scatter(call, trace, true); }

}  // namespace sp
