// torch_take_along_dim.cc — torch.take_along_dim(input, indices, dim=None) -> out.
//
// Formula (the document: "Selects values from input at the 1-dimensional
// indices from indices along the given dim"; "similar to NumPy's
// take_along_axis. See also torch.gather()"; clause T-TA1), for a 3-D input
// once input and indices are broadcast against each other in every dim but
// dim (T-TA5):
//   out[i][j][k] = input[indices[i][j][k]][j][k]  # if dim == 0
//   out[i][j][k] = input[i][indices[i][j][k]][k]  # if dim == 1
//   out[i][j][k] = input[i][j][indices[i][j][k]]  # if dim == 2
// out has input's dtype; its size along dim is indices.size(dim), elsewhere
// the broadcast size (T-TA2). Without dim (None, the default) both are read
// flattened in row-major order: out = input.flatten()[indices.flatten()], a
// 1-D out of indices.numel() elements (T-TA8; the document's
// `take_along_dim(t, argmax(t))` example, a 0-d indices giving a [1] out).
//
// Checks, in the order they run (LibTorch 1.13's order, measured; all run
// and every violation is collected, bounds only when the others pass):
//   with dim:
//   T-TA3 indices has input's rank (physical ranks)
//   T-TA4 indices dtype is int64 (an empty indices too)
//   T-D1  dim in [-r, r), r = logical rank of input (rank 0 counts as 1)
//   T-TA5 every d != dim broadcasts: equal sizes or one of them 1
//   T-TA9 a 0-d input (and so 0-d indices) with a dim: the document is
//         silent; LibTorch 1.13 raises ("Dimension specified as 0 but tensor
//         has no dimensions"). Either that error (dim_out_of_range or the
//         shape_mismatch LibTorch's message classifies as) or the T-D2
//         result (out 0-d, input's value at index 0) passes
//   without dim: T-TA4, then bounds against input.numel()
//   T-TA6 every index value that out reads in [-s, s), s = input's size
//         along dim (input.numel() without dim); values outside are
//         index_out_of_bounds. An out with no element reads no value (an
//         empty indices, or a size-0 broadcast dim): no bound applies
//   T-TA7 a value in [-s, 0): the document is silent on negative indices
//         (NumPy's take_along_axis, which it names, wraps them; gather,
//         which LibTorch 1.13 runs, rejects them). Either
//         index_out_of_bounds or the wrapped result (v + s) passes
// Visit order: out positions in row-major order; every out element is
// written exactly once, so the result is exact bits (input's own bits,
// -0.0 and NaN payloads included).
// Source: PyTorch documentation, torch.take_along_dim, PyTorch 1.13:
// https://pytorch.org/docs/1.13/generated/torch.take_along_dim.html (text
// read from torch 1.13.1's own docstring, torch.take_along_dim.__doc__,
// which that page is generated from; "If dim is None, the input array is
// treated as if it has been flattened to 1d" is the stored stable page's,
// .../docs/stable/generated/torch.take_along_dim.html, which 1.13's example
// already follows). Where the page is silent: LibTorch 1.13.1 (Debian),
// measured (reference/SEMANTICS.md).
#include <algorithm>

#include "reference/dialect_torch.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// How out position `pos` (logical) reads its operands: the logical position
// in indices and, once the index value is known, in input.
struct Reader {
  const Tensor& input;
  const Tensor& indices;
  std::optional<int64_t> dim;  // nullopt: flattened (dim=None)

  Shape indices_at(const Shape& logical_out) const {
    if (!dim) {
      // out[n] reads indices.flatten()[n]: n unravelled over indices' shape.
      Shape at(static_cast<size_t>(indices.rank()), 0);
      int64_t rem = logical_out[0];
      for (size_t d = at.size(); d-- > 0;) {
        at[d] = rem % indices.shape()[d];
        rem /= indices.shape()[d];
      }
      return at;
    }
    Shape at = logical_out;  // a size-1 dim of indices broadcasts
    const Shape ls = ref::logical_shape(indices);
    for (size_t d = 0; d < at.size(); ++d)
      if (ls[d] == 1) at[d] = 0;
    return ref::physical_index(indices, at);
  }

  Shape input_at(const Shape& logical_out, int64_t value) const {
    if (!dim) {
      Shape at(static_cast<size_t>(input.rank()), 0);
      int64_t rem = value;
      for (size_t d = at.size(); d-- > 0;) {
        at[d] = rem % input.shape()[d];
        rem /= input.shape()[d];
      }
      return at;
    }
    Shape at = logical_out;
    const Shape ls = ref::logical_shape(input);
    for (size_t d = 0; d < at.size(); ++d)
      if (ls[d] == 1) at[d] = 0;
    at[static_cast<size_t>(*dim)] = value;
    return ref::physical_index(input, at);
  }
};

// Whether view(-1) can flatten `t` (PyTorch's view rule): its dims of size
// > 1 chain with stride[d] == stride[d + 1] * size[d + 1]; an empty tensor
// always can.
bool flattens_by_view(const Tensor& t) {
  if (t.numel() == 0) return true;
  int64_t inner_stride = -1, inner_size = 1;
  for (int64_t d = t.rank(); d-- > 0;) {
    if (t.size(d) == 1) continue;
    if (inner_stride >= 0 && t.stride(d) != inner_stride * inner_size) return false;
    inner_stride = t.stride(d);
    inner_size = t.size(d);
  }
  return true;
}

// T-TA11, cited where LibTorch 1.13 deviates (its view(-1)), not a rule:
// the answer stays what the document says.
Expectation citing_unviewable(Expectation e, const Tensor& input, const Tensor& indices) {
  if (flattens_by_view(input) && flattens_by_view(indices)) return e;
  e.notes.push_back({"T-TA11",
                     "dim is None and input or indices has a layout view(-1) cannot flatten; the document reads it "
                     "flattened all the same (LibTorch 1.13 raises here, a recorded deviation)"});
  return e;
}

}  // namespace

Expectation torch_take_along_dim(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& input = *call.tensor("input");
  const Tensor& indices = *call.tensor("indices");
  const std::optional<int64_t> dim_arg = call.int_arg("dim");
  ref::RuleLog log(trace);

  std::optional<int64_t> dim;
  bool scalar_dim = false;  // T-TA9
  if (dim_arg) {
    const bool rank_ok = rules::take_along_dim_same_rank(log, input, indices);
    rules::take_along_dim_indices_long(log, indices, false);
    const int64_t rank = ref::logical_rank(input);
    const bool dim_ok = rules::dim_in_range(log, *dim_arg, rank);
    if (dim_ok) dim = ref::wrap_dim(*dim_arg, rank);
    if (rank_ok && dim_ok) rules::take_along_dim_broadcasts(log, input, indices, *dim);
    scalar_dim = log.passed() && input.rank() == 0;
  } else {
    log.note("dim is None: input and indices are read flattened [T-TA8]");
    rules::take_along_dim_indices_long(log, indices, true);
  }

  // The out shape exists once the shape rules hold (the op table's rule).
  std::optional<Shape> out_shape;
  if (log.passed()) out_shape = output_shape_of(op, call);
  const int64_t size = dim ? ref::logical_size(input, *dim) : input.numel();
  const Reader reader{input, indices, dim};
  const auto logical_out = [&](const Shape& pos) { return dim ? ref::logical_index(input, pos) : pos; };

  // T-TA6 / T-TA7 over the values out reads, in out's row-major order.
  bool negative = false;
  if (log.passed() && checked_numel(*out_shape) > 0) {
    Shape pos(out_shape->size(), 0);
    bool bounded = true;
    do {
      const Shape at = reader.indices_at(logical_out(pos));
      const int64_t v = ref::read_index(indices, at);
      if (v < -size || v >= size) {
        bounded = log.check(
            false, "T-TA6", "indices" + format_index(at) + "=" + str(v) + " in [" + str(-size) + ", " + str(size) + ")",
            ErrorCategory::IndexOutOfBounds,
            "index " + str(v) + " is out of bounds for dimension " + str(dim.value_or(0)) + " with size " + str(size));
        break;
      }
      negative = negative || v < 0;
    } while (next_index(pos, *out_shape));
    if (bounded) log.note("every index value out reads in [" + str(-size) + ", " + str(size) + ") [T-TA6] ok");
  } else if (log.passed()) {
    log.note("out has no element: no index value is read, T-TA6 skipped");
  } else if ((dim || !dim_arg) && ref::index_values_readable(indices)) {
    // C-1: another rule is broken, so which values out would read is not
    // defined; a backend checking the bounds first reads them all, and may
    // refuse a negative one (T-TA7).
    ref::for_each_index_position(indices, [&](const ref::IndexPosition& p) {
      if (p.value >= 0 && p.value < size) return;
      log.check(false, "T-TA6", "indices" + format_index(p.pos) + "=" + str(p.value) + " in [0, " + str(size) + ")",
                ErrorCategory::IndexOutOfBounds,
                "index " + str(p.value) + " is out of bounds for dimension " + str(dim.value_or(0)) + " with size " +
                    str(size));
    });
  }
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    if (scalar_dim) {
      for (ErrorCategory c : {ErrorCategory::DimOutOfRange, ErrorCategory::ShapeMismatch}) e.allow_error(c);
      e.notes.push_back({"T-TA9", "a 0-d input with a dim: LibTorch 1.13's dim error is allowed too"});
    }
    return dim_arg ? e : citing_unviewable(std::move(e), input, indices);
  }

  OutputBuilder out(op.output, Tensor::zeros(input.dtype(), *out_shape), trace);
  std::vector<Note> notes;
  if (checked_numel(*out_shape) > 0) {
    Shape pos(out_shape->size(), 0);
    do {
      const Shape logical = logical_out(pos);
      const Shape at = reader.indices_at(logical);
      const ref::IndexPosition p{at, ref::logical_index(indices, at), ref::read_index(indices, at)};
      const Shape from = reader.input_at(logical, p.value < 0 ? p.value + size : p.value);
      out.overwrite(pos, input.bits_at(from), ref::read_from(p, "input", input, from));
    } while (next_index(pos, *out_shape));
  }
  Expectation e = ref::outputs_expectation({out.finish()}, std::move(notes));
  if (negative) {
    // T-TA7: the document is silent; the wrapped result above or LibTorch's
    // error both pass.
    e.errors = {ErrorCategory::IndexOutOfBounds};
    e.error_message = "index out of bounds (a negative index; LibTorch 1.13 rejects it)";
    e.error_clause = "T-TA7";
    e.notes.push_back({"T-TA7", "negative indices: the document is silent; wrapped (v + " + str(size) +
                                    ") or index_out_of_bounds both allowed"});
  }
  if (scalar_dim) {
    e.allow_error(ErrorCategory::DimOutOfRange, "T-TA9", "Dimension specified as 0 but tensor has no dimensions");
    e.allow_error(ErrorCategory::ShapeMismatch);
    e.notes.push_back({"T-TA9",
                       "a 0-d input with a dim: the document is silent; the result or LibTorch 1.13's dim "
                       "error both allowed"});
  }
  return dim_arg ? e : citing_unviewable(std::move(e), input, indices);
}

}  // namespace sp
