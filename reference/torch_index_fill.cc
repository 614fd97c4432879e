// torch_index_fill.cc — Tensor.index_fill_(dim, index, value) (in place,
// writes self) and torch.index_fill(input, dim, index, value) (out of place:
// out = a copy of self, then the same fills; self is unchanged, T-IF8).
//
// Formula (the document's "fills the elements of the self tensor with value
// value by selecting the indices in the order given in index"; clause
// T-IF1), for dim 0:
//   self[index[i], ...] = value
// and the analogues along dim. A 0-d self counts as shape [1] and a 0-d
// index as [index] (T-D2). An element no index value points at keeps
// self's bits; duplicate index values write the same value again.
//
// Checks, in the order they run (LibTorch 1.13's; all run and every
// violation is collected):
//   T-IF2  index dtype is int64 (int32 refused), also when empty; LibTorch
//          checks it before the dim
//   T-D1   dim in [-r, r), r = logical rank of self
//   T-IF3  index is a vector (rank <= 1), also when empty
//   T-IF4  value converts to self's dtype like scatter_'s value (T-V1): a
//          float truncates for integer self (2.7 -> 2), bool is 0/1, any
//          non-zero value is True for bool self, -1 wraps to 255 for uint8;
//          out of range is value_out_of_range; also with an empty index. A
//          float >= 2^63 into int64 is undefined in c10: unspecified (T-V2)
//   T-IF5  every index value in [-size, size), size = self.size(dim)
//          (logical); others are index_out_of_bounds. A self with no
//          elements: error or no-op are both allowed (as T-IC7). A size-0
//          dim with a non-empty index also runs it when T-IF4 fails (either
//          may be reported: LibTorch fails building the slice view first)
//   T-IF6  a value in [-size, 0): the document is silent (no range is
//          documented; index_copy_ and index_add_ refuse negatives, LibTorch
//          1.13's index_fill_ wraps them Python-style): the call is
//          unspecified
//   T-IF7  in place only: a self whose elements share memory: the document
//          is silent, LibTorch 1.13 warns ("Use of index_fill_ on expanded
//          tensors is deprecated") and writes through the aliases: the call
//          is unspecified
// Visit order: index positions in order, each writing value to every
// element of self's slice index[i] row-major.
// Source: PyTorch documentation, torch.Tensor.index_fill_ and
// torch.index_fill, PyTorch 1.13:
// https://pytorch.org/docs/1.13/generated/torch.Tensor.index_fill_.html (the
// text was read from torch 1.13.1's own docstring,
// torch.Tensor.index_fill_.__doc__, which the page is generated from).
// Where the page is silent: LibTorch 1.13.1 (Debian), measured
// (reference/SEMANTICS.md).
#include <cmath>

#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {
namespace {

// The notes of an answer: T-IF8 out of place, T-IF4 on -0.0 into a float
// self (its sign kept; compiled entries key by it), T-IF9 an empty index.
std::vector<Note> fill_notes(bool in_place, const Scalar& value, DType t, bool empty_index) {
  std::vector<Note> notes;
  if (!in_place) notes.push_back({"T-IF8", "out-of-place, out = copy of self then the fills"});
  if (value.kind == Scalar::Kind::Float && value.f == 0.0 && std::signbit(value.f) && is_floating(t))
    notes.push_back({"T-IF4", "value -0.0 is written with its sign"});
  if (empty_index) notes.push_back({"T-IF9", "empty index, nothing filled"});
  return notes;
}

}  // namespace

Expectation torch_index_fill(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const int64_t dim_arg = *call.int_arg("dim");
  const Scalar value = *call.scalar_arg("value");
  ref::RuleLog log(trace);

  const int64_t rank = ref::logical_rank(self);
  rules::index_fill_index_dtype(log, index);
  const bool dim_ok = rules::dim_in_range(log, dim_arg, rank);
  const int64_t dim = dim_ok ? ref::wrap_dim(dim_arg, rank) : dim_arg;
  rules::index_fill_index_is_vector(log, index);
  if (log.passed() && rules::value_conversion_is_undefined(value, self.dtype()))
    return ref::unspecified_expectation(
        "T-IF4: converting value " + value.to_string() + " to int64 is undefined behaviour in c10", trace);
  std::optional<uint64_t> value_bits;
  const bool arguments_ok = log.passed();
  if (arguments_ok) value_bits = rules::index_fill_value(log, value, self.dtype());
  // A size-0 dim (every value out of range): LibTorch 1.13 fails building
  // self's slice view before it converts value; either error may come.
  const bool size_zero_checked = arguments_ok && !value_bits && index.numel() > 0 && ref::logical_size(self, dim) == 0;
  if (size_zero_checked) rules::index_fill_values_within(log, index, dim, 0);
  // C-1: with another rule broken, the bounds rule is one more a backend may
  // report (whenever the values can be compared with a bound).
  if (!log.passed() && !size_zero_checked && dim_ok && ref::index_values_readable(index))
    rules::index_fill_values_within(log, index, dim, ref::logical_size(self, dim));
  if (!log.passed()) return log.error_expectation();

  const int64_t size = ref::logical_size(self, dim);
  ref::RuleLog bounds(trace);
  rules::index_fill_values_within(bounds, index, dim, size);
  OutputBuilder out(op.output, self, trace);
  if (!bounds.passed()) {
    if (self.numel() > 0) return bounds.error_expectation();
    Expectation either = bounds.error_expectation();
    either.outputs = std::vector<ExpectedTensor>{out.finish()};
    either.notes.push_back({"T-IF5", "self has no elements; an out-of-range index value may be refused or ignored"});
    return either;
  }
  bool negative = false;
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) { negative |= p.value < 0; });
  if (negative)
    return ref::unspecified_expectation(
        "T-IF6: a negative index value in [-" + std::to_string(size) +
            ", 0): the document is silent (LibTorch 1.13 wraps it, index_copy_ refuses it)",
        trace);
  if (op.in_place && self.has_internal_overlap() && index.numel() > 0)
    return ref::unspecified_expectation(
        "T-IF7: self's elements share memory; the document is silent (LibTorch 1.13 writes through the aliases)",
        trace);

  std::vector<Note> notes = fill_notes(op.in_place, value, self.dtype(), index.numel() == 0);
  const Shape self_logical = ref::logical_shape(self);
  bool slice_empty = false;
  for (size_t d = 0; d < self_logical.size(); ++d)
    if (static_cast<int64_t>(d) != dim && self_logical[d] == 0) slice_empty = true;
  const std::string text = "value " + value.to_string();
  ref::for_each_index_position(index, [&](const ref::IndexPosition& p) {
    if (slice_empty) return;
    Shape q(self_logical.size(), 0);
    q[static_cast<size_t>(dim)] = p.value;
    for (bool more = true; more;) {
      out.overwrite(ref::physical_index(self, q), *value_bits, ref::scalar_from(p, text));
      more = false;
      for (size_t d = q.size(); d-- > 0;) {  // next position of the slice, row-major
        if (static_cast<int64_t>(d) == dim) continue;
        if (++q[d] < self_logical[d]) {
          more = true;
          break;
        }
        q[d] = 0;
      }
    }
  });
  return ref::outputs_expectation({out.finish()}, std::move(notes));
}

}  // namespace sp
