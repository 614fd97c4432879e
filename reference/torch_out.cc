// torch_out.cc — PyTorch's out= tensor: torch.gather(..., out=out),
// torch.scatter(..., out=out), torch.index_select(..., out=out),
// torch.take_along_dim(..., out=out).
//
// Formula: the result is the op's result without out= (T-OUT0); out= only
// decides where it lands. With out given:
//   out.shape == result shape: the result is written into out's elements,
//     in out's own layout (strides, offset); nothing else of out's storage
//     changes.
//   otherwise: out is resized to the result's shape first (T-OUT6), then
//     written.
//
// Checks, after the op's own checks (a call that violates both may fail
// with either: the categories are collected, the op's first):
//   T-OUT1 out.dtype is the result's dtype (no casting into out)
//   T-OUT2 out (correctly shaped) has no internal overlap: no two of its
//          elements share memory (an expanded out)
//   T-OUT3 out (correctly shaped) shares no element with an operand the op
//          reads, except:
//   T-OUT4 out is the very same view (storage, offset, shape, strides) as
//          the operand the op starts from (torch.scatter's self: out =
//          self.clone().scatter_(...), so out == self is Tensor.scatter_):
//          the result, as the in-place op (other operands still must not
//          overlap out)
//   T-OUT5 out is the very same view as an operand the op reads only at
//          out's own positions (the op table's out_may_be: gather's and
//          index_select's index): an error or the result — the documents
//          are silent; PyTorch 1.13 allows it for gather
//          (assert_no_partial_overlap) and rejects it for index_select
//          (assert_no_overlap)
//   T-OUT7 where PyTorch cannot tell (out with internal overlap but no
//          stride-0 dim; an overlap with an operand where either tensor is
//          not "non-overlapping and dense", i.e. has gaps, or is read
//          broadcast — take_along_dim's input and indices), it does not
//          check, and what it writes is undefined: unspecified
//   T-OUT6 a mis-shaped out is resized (PyTorch warns that resizing a
//          non-empty out is deprecated); when it shares storage with
//          another operand the call is unspecified (the resize keeps or
//          replaces the storage depending on its size, and whether the
//          resized out overlaps depends on that)
// Source: PyTorch documentation of each op (1.13) lists `out (Tensor,
// optional) – the output tensor`; the dtype and overlap rules are
// LibTorch 1.13.1's (at::native::resize_output, at::assert_no_overlap and
// at::assert_no_internal_overlap in the ops' meta functions), measured with
// torch 1.13.1 and written in their error texts; reference/SEMANTICS.md.
#include "reference/torch_out.h"

#include <algorithm>
#include <vector>

#include "reference/messages_torch.h"
#include "reference/op_table.h"
#include "reference/semantics_common.h"

namespace sp {
namespace {

// The byte ranges of storage that `t` reaches, as a bitmap over its storage.
std::vector<bool> reached_bytes(const Tensor& t) {
  std::vector<bool> bytes(t.storage() ? t.storage()->size() : 0, false);
  if (checked_numel(t.shape()) <= 0) return bytes;
  const size_t size = dtype_size(t.dtype());
  Shape idx(t.shape().size(), 0);
  do {
    const size_t at = static_cast<size_t>(t.element_offset(idx)) * size;
    std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), size, true);
  } while (next_index(idx, t.shape()));
  return bytes;
}

// Whether the op starts from a copy of operand `name`: the out-of-place twin
// of an in-place op (torch.scatter: out = self.clone().scatter_(...)).
bool starts_from(const OpSpec& op, const std::string& name) {
  const OpSpec* in_place = find_op(op.id + "_");
  if (!in_place || !in_place->in_place) return false;
  const OperandSpec* o = in_place->operand(name);
  return o && o->role == OperandRole::InPlace;
}

// PyTorch's is_non_overlapping_and_dense: the elements fill a contiguous
// range of storage exactly, in some order of the dims (transposed is fine,
// gaps or repeats are not).
bool dense(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims of size > 1
  for (int64_t d = 0; d < t.rank(); ++d)
    if (t.size(d) > 1) dims.emplace_back(t.stride(d), t.size(d));
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (const auto& [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

// Whether the kernel reads operand `name` broadcast (expanded: stride 0)
// rather than as given: take_along_dim with a dim broadcasts input and
// indices apart from dim (T-TA5), and an expanded tensor is not dense, so
// PyTorch's overlap check cannot tell (T-OUT7).
bool read_broadcast(const OpSpec& op, const OpCall& call, const std::string& name, const Shape& result_shape) {
  if (op.family != ShapeFamily::TakeAlongDim) return false;
  const std::optional<int64_t> dim_arg = call.int_arg("dim");
  const Tensor* t = call.tensor(name);
  if (!dim_arg || !t || t->rank() != static_cast<int64_t>(result_shape.size())) return false;
  const int64_t rank = t->rank();
  const int64_t dim = *dim_arg < 0 ? *dim_arg + rank : *dim_arg;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && t->size(d) == 1 && result_shape[static_cast<size_t>(d)] > 1) return true;
  return false;
}

// The operand as the kernel reads it: take_along_dim without a dim reads
// input and indices flattened (view(-1): one dim of the innermost stride),
// so out may be the very same view as a flattened indices (T-OUT5).
Tensor as_read(const OpSpec& op, const OpCall& call, const Tensor& t) {
  if (op.family != ShapeFamily::TakeAlongDim || call.int_arg("dim") || t.rank() == 1) return t;
  // view(-1) needs the dims of size > 1 to chain, inner to outer:
  // stride[outer] == stride[inner] * size[inner]; otherwise LibTorch's view
  // fails (T-TA11) and the operand is left as given.
  int64_t flat_stride = 1, inner_stride = -1, inner_size = 1;
  for (int64_t d = t.rank(); d-- > 0;) {
    if (t.size(d) == 1) continue;
    if (inner_stride < 0) {
      flat_stride = t.stride(d);
    } else if (t.stride(d) != inner_stride * inner_size) {
      return t;
    }
    inner_stride = t.stride(d);
    inner_size = t.size(d);
  }
  return Tensor::view(t.dtype(), Shape{t.numel()}, Shape{flat_stride}, t.offset(), t.storage());
}

bool stride_zero_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.rank(); ++d)
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  return false;
}

bool same_view(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() && a.offset() == b.offset() && a.shape() == b.shape() &&
         a.strides() == b.strides() && a.dtype() == b.dtype();
}

}  // namespace

bool shares_element(const Tensor& a, const Tensor& b) {
  if (!a.storage() || a.storage() != b.storage()) return false;
  if (checked_numel(a.shape()) <= 0 || checked_numel(b.shape()) <= 0) return false;
  const std::vector<bool> in_a = reached_bytes(a);
  const size_t size = dtype_size(b.dtype());
  Shape idx(b.shape().size(), 0);
  do {
    const size_t at = static_cast<size_t>(b.element_offset(idx)) * size;
    for (size_t k = 0; k < size; ++k)
      if (in_a[at + k]) return true;
  } while (next_index(idx, b.shape()));
  return false;
}

Expectation evaluate_with_out(const OpSpec& op, const OpCall& call, Trace* trace) {
  const OperandSpec& out_spec = *out_operand(op);
  OpCall without = call;
  without.tensors.erase(out_spec.name);
  Expectation inner = op.reference(without, trace);
  const Tensor& out = *call.tensor(out_spec.name);
  ref::RuleLog log(trace);

  if (inner.unspecified) return inner;
  // An unspecified answer keeps the op's decision notes (the clauses it cites).
  const auto unspecified = [&](const std::string& reason, Trace*) {
    Expectation e = ref::unspecified_expectation(reason, trace);
    e.notes.insert(e.notes.begin(), inner.notes.begin(), inner.notes.end());
    return e;
  };
  const Tensor* dtype_of = call.tensor(op.output_dtype_of);
  const DType result_dtype = inner.outputs && !inner.outputs->empty() ? inner.outputs->front().exact.dtype()
                             : dtype_of                               ? dtype_of->dtype()
                                                                      : out.dtype();
  log.check(
      out.dtype() == result_dtype, "T-OUT1",
      "out.dtype " + std::string(dtype_name(out.dtype())) + " == result dtype " + std::string(dtype_name(result_dtype)),
      ErrorCategory::DtypeMismatch, ref::torch_messages::out_dtype(result_dtype, out.dtype()));

  const std::optional<Shape> result_shape = inner.outputs && !inner.outputs->empty()
                                                ? std::optional<Shape>(inner.outputs->front().exact.shape())
                                                : output_shape_of(op, without);
  bool may_error_instead = false;  // T-OUT5
  if (result_shape && out.shape() != *result_shape) {
    bool shared = false;
    for (const auto& [name, t] : call.tensors)
      if (name != out_spec.name && t.storage() && t.storage() == out.storage()) shared = true;
    if (shared && log.passed())
      return unspecified("T-OUT6: out has shape " + format_shape(out.shape()) + ", not the result's " +
                             format_shape(*result_shape) +
                             ", and shares storage with another operand: whether it still overlaps after the resize "
                             "depends on the allocator",
                         trace);
    log.note("out has shape " + format_shape(out.shape()) + ", not the result's " + format_shape(*result_shape) +
             ": it is resized, then written [T-OUT6]");
  } else {
    if (out.has_internal_overlap() && !stride_zero_overlap(out) && log.passed())
      return unspecified("T-OUT7: out " + out.describe() +
                             " has overlapping elements without a stride-0 dim: PyTorch does not "
                             "check, what it writes is undefined",
                         trace);
    log.check(!stride_zero_overlap(out), "T-OUT2", "out has no internal overlap (" + out.describe() + ")",
              ErrorCategory::OverlappingOutput, ref::torch_messages::internal_overlap());
    for (const OperandSpec& o : op.operands) {
      if (o.role == OperandRole::Out) continue;
      const Tensor* t = call.tensor(o.name);
      if (!t || !shares_element(out, *t)) continue;
      const Tensor read = as_read(op, without, *t);
      if (same_view(out, *t) && starts_from(op, o.name)) {
        log.note("out is the very same view as " + o.name + ": the op runs in place on it [T-OUT4]");
        continue;
      }
      if (same_view(out, read) &&
          std::find(out_spec.out_may_be.begin(), out_spec.out_may_be.end(), o.name) != out_spec.out_may_be.end()) {
        log.note("out is the very same view as " + o.name +
                 ", which the op reads only at out's own positions: an error or the result [T-OUT5]");
        may_error_instead = true;
        continue;
      }
      if (!dense(out) || !dense(*t) || (result_shape && read_broadcast(op, without, o.name, *result_shape))) {
        if (!log.passed()) continue;
        return unspecified("T-OUT7: out shares memory with " + o.name +
                               ", and one of them has gaps: PyTorch does not check the overlap, "
                               "what it writes is undefined",
                           trace);
      }
      log.check(false, "T-OUT3", "out shares memory with " + o.name, ErrorCategory::OverlappingOutput,
                ref::torch_messages::out_overlaps_operand());
    }
  }

  if (!log.passed()) {
    if (inner.outputs) {
      // out's error; the op's own decision notes (the clauses it cites) stay,
      // and so do the errors it allows instead of its result (T-TA9, T-OUT5).
      Expectation e = log.error_expectation();
      e.notes.insert(e.notes.begin(), inner.notes.begin(), inner.notes.end());
      for (ErrorCategory c : inner.errors) e.allow_error(c);
      return e;
    }
    // Both the op's rules and out's are violated: either may be reported.
    for (const RuleViolation& v : log.violations()) inner.allow_error(v.category);
    return inner;
  }
  if (may_error_instead && !inner.outputs) {
    // The op's own error, or T-OUT5's (a backend checking overlap first).
    if (std::find(inner.errors.begin(), inner.errors.end(), ErrorCategory::OverlappingOutput) == inner.errors.end())
      inner.errors.push_back(ErrorCategory::OverlappingOutput);
  } else if (may_error_instead) {
    inner.errors.push_back(ErrorCategory::OverlappingOutput);
    inner.notes.push_back({"T-OUT5",
                           "out is the very same view as an operand read only at its own positions: "
                           "overlapping_output or the result"});
  }
  return inner;
}

}  // namespace sp
