#include "backends/libtorch/libtorch_errors.h"

#include <string>

#include "reference/versions.h"

namespace sp {
namespace {

using C = ErrorCategory;

// {first, then, category, since, until, op, sample}. No row has a range:
// each text means the same category in every LibTorch release that prints
// it, and a release that does not print it never matches it, so a range
// could only make a known text "unclassified" on a release nobody measured
// (issue 33: LibTorch 2.11 prints texts first measured on 2.15). A range
// belongs on a row only where the same text means different things in
// different releases, with the change cited. Seen on 1.13.1 (Debian,
// `libtorch`) and 2.15.0 (the PyPI wheel, `libtorch-current`); the
// torch-python adapter's rows (adapters/torch_adapter.py) have the same
// texts, sampled per release in adapters/test_classifier_samples.py. Ordered from
// the most specific text to the most general.
constexpr LibTorchErrorRow kRows[] = {
    // gather, scatter, index_put_, index_copy_
    {"is out of bounds for dimension", "", C::IndexOutOfBounds, "", "", "",
     "index 5 is out of bounds for dimension 0 with size 3"},
    // index_add_ / index_fill_
    {"index out of range in self", "", C::IndexOutOfBounds, "", "", "", "index out of range in self"},
    // index_select along dim >= 1
    {"INDICES element is out of DATA bounds", "", C::IndexOutOfBounds, "", "", "",
     "INDICES element is out of DATA bounds, id=-1 axis_dim=4"},
    // index_select, a non-empty index into a size-0 dim of a rank >= 2 input
    {"self indexing axis dim should be positive", "", C::IndexOutOfBounds, "", "", "",
     "index_select(): self indexing axis dim should be positive"},
    // index_select with a 2-D index
    {"Index is supposed to be a vector", "", C::InvalidArgument, "", "", "",
     "index_select(): Index is supposed to be a vector"},
    {"Index should have dimension 1 or 0", "", C::InvalidArgument, "", "", "",
     "index_copy_(): Index should have dimension 1 or 0 (got 2)"},
    {"Index has to be a vector/scalar", "", C::InvalidArgument, "", "", "", "Index has to be a vector/scalar"},
    {"Expected a long tensor for index", "", C::IndexDtype, "", "", "",
     "index_copy_(): Expected a long tensor for index, but got Int"},
    {"self and source expected to have the same dtype", "", C::DtypeMismatch, "", "", "",
     "index_copy_(): self and source expected to have the same dtype, but got (self) Float and (source) Double"},
    {"When source is scalar, index should have one element", "", C::ShapeMismatch, "", "", "",
     "index_copy_(): When source is scalar, index should have one element (got 2)"},
    {"their dimensionality must match", "", C::ShapeMismatch, "", "", "",
     "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
     "dimensionality (1), destination dimensionality (2)"},
    {"Source/destination tensor must have same slice shapes", "", C::ShapeMismatch, "", "", "",
     "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: 3 at "
     "dimension 0 and source slice shape: 4 at dimension 0."},
    // index_copy_ / index_fill_ with a non-empty index into a size-0 dim
    // (every value out of range)
    {"setStorage: sizes", "are out of bounds for storage of size", C::IndexOutOfBounds, "", "", "",
     "setStorage: sizes [1, 3], strides [0, 1], storage offset 0, and itemsize 4 requiring a storage size of 12 "
     "are out of bounds for storage of size 0"},
    {"Expected dtype int32 or int64 for index", "", C::IndexDtype, "", "", "",
     "index_select(): Expected dtype int32 or int64 for index"},
    {"Dimension out of range", "", C::DimOutOfRange, "", "", "",
     "Dimension out of range (expected to be in range of [-2, 1], but got 5)"},
    {"Expected dtype int64 for index", "", C::IndexDtype, "", "", "", "scatter(): Expected dtype int64 for index"},
    {"dtype of indices should be Long", "", C::IndexDtype, "", "", "",
     "torch.take_along_dim(): dtype of indices should be Long but got Int"},
    {"input and indices should have the same number of dimensions", "", C::RankMismatch, "", "", "",
     "torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 dimensions "
     "for input, and 1 dimensions for indices"},
    {"reduce argument must be either", "", C::InvalidReduce, "", "", "",
     "reduce argument must be either add or multiply."},
    // Backward ops (torch_backward.cc), from autograd's check that a
    // gradient fits its tensor: a backward function's output ("Function
    // ScatterBackward0 returned an invalid gradient at index 1": src larger
    // than index in scatter(_add, _reduce)'s backward; 002: "implemented only
    // for src.shape == index.shape"), or grad_output against the forward's
    // output ("invalid gradient at index 0 - got [3] but expected shape
    // compatible with [2]"). 1.13 and 2.15 alike.
    {"invalid gradient at index", "but expected shape compatible with", C::ShapeMismatch, "", "", "",
     "Function ScatterBackward0 returned an invalid gradient at index 1 - got [2] but expected shape compatible "
     "with [3]"},
    // requires_grad_ on an integer operand of a backward op: the C++ text
    // (1.13 and 2.15); Python's reads "only Tensors of floating point dtype
    // can require gradients".
    {"Tensors of floating point", "can require gradients", C::UnsupportedDtype, "", "", "",
     "Only Tensors of floating point and complex dtype can require gradients"},
    // scatter(_) with reduce= has no derivative: no gradient is documented,
    // and LibTorch refuses the argument (1.13 and 2.15).
    {"derivative for aten::", "is not implemented", C::InvalidArgument, "", "", "",
     "derivative for aten::scatter is not implemented"},
    // A dtype a kernel has no dispatch for
    {"not implemented for '", "", C::UnsupportedDtype, "", "", "", "\"div_floor_cpu\" not implemented for 'Bool'"},
    {"Index tensor must have the same number of dimensions", "", C::RankMismatch, "", "", "",
     "Index tensor must have the same number of dimensions as self tensor"},
    // gather
    {"Size does not match at dimension", "", C::ShapeMismatch, "", "", "",
     "Size does not match at dimension 1 expected index [1, 5] to be smaller than self [3, 4] apart from "
     "dimension 0"},
    // scatter
    {"Expected index [", "to be smaller", C::ShapeMismatch, "", "", "",
     "Expected index [1, 5] to be smaller than self [3, 4] apart from dimension 0 and to be smaller size than "
     "src [1, 5]"},
    // LibTorch 2.15's wording of the same check: "Expected index [1, 5] to
    // be no larger than self [3, 4] apart from dimension 0 and to be no
    // larger size than src [1, 5]"
    {"Expected index [", "to be no larger than self", C::ShapeMismatch, "", "", "",
     "Expected index [2, 2] to be no larger than self [2, 2] apart from dimension 0 and to be no larger size than "
     "src [1, 2]"},
    // index_add_ in LibTorch 2.15, for any source whose shape is not self's
    // apart from dim (1.13 raised the broadcast texts below, or none)
    {"source tensor shape must match self tensor shape, excluding the specified dimension", "", C::ShapeMismatch, "",
     "", "",
     "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [3, 4] "
     "source.shape = [2, 1]"},
    // index_select on a 0-d input with an index of other than one value
    // (T-IS7; 1.13 wrote past its output instead of raising)
    {"Index to scalar can have only 1 value", "", C::InvalidArgument, "", "", "",
     "index_select(): Index to scalar can have only 1 value, got 3 value(s)"},
    // The same check as torch 2.0.1 words it (its Python API, measured by
    // scripts/version-matrix; the text is ATen's)
    {"Index to scalar cannot have multiple values", "", C::InvalidArgument, "", "", "",
     "index_select(): Index to scalar cannot have multiple values."},
    // take_along_dim in LibTorch 2.15 wraps negative indices modulo the
    // size along dim; along a size-0 dim (where every index is out of
    // bounds) that is an integer division by zero. The text names nothing,
    // so the row holds for this op only.
    {"ZeroDivisionError", "", C::IndexOutOfBounds, "", "", "torch.take_along_dim", "ZeroDivisionError"},
    // torch.take_along_dim without dim flattens with view(-1), which a
    // transposed or gapped operand cannot take (1.13 and 2.15 alike): no
    // documented error, an argument LibTorch refuses. The call's answer is an
    // output (T-TA8), so this is a fail, listed as the known deviation T-TA11
    // in specs/expectations/real-frameworks.json — the same category as the
    // torch-python adapter's row. Scoped to the op: elsewhere the text would
    // mean something else.
    {"view size is not compatible with input tensor's size and stride", "", C::InvalidArgument, "", "",
     "torch.take_along_dim",
     "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
     "contiguous subspaces). Use .reshape(...) instead."},
    // index_put_
    {"shape mismatch: value tensor of shape", "", C::ShapeMismatch, "", "", "",
     "shape mismatch: value tensor of shape [3, 4] cannot be broadcast to indexing result of shape [2, 4]"},
    // out= of another dtype than the result (T-OUT1)
    {"Expected out tensor to have dtype", "", C::DtypeMismatch, "", "", "",
     "Expected out tensor to have dtype float, but got double instead"},
    {"self and result must have the same scalar type", "", C::DtypeMismatch, "", "", "",
     "index_select(): self and result must have the same scalar type"},
    {"Expected self.dtype to be equal to src.dtype", "", C::DtypeMismatch, "", "", "",
     "scatter(): Expected self.dtype to be equal to src.dtype"},
    // An expanded (stride-0) self written in place.
    {"more than one element of the written-to tensor refers to a single memory location", "", C::OverlappingOutput, "",
     "", "",
     "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
     "Please clone() the tensor before performing the operation."},
    // self written in place while it shares memory with index or src.
    {"some elements of the input tensor and the written-to tensor refer to a single memory location", "",
     C::OverlappingOutput, "", "", "",
     "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
     "memory location. Please clone() the tensor before performing the operation."},
    // std::runtime_error from c10::checked_convert
    {"value cannot be converted to type", "without overflow", C::ValueOutOfRange, "", "", "",
     "value cannot be converted to type uint8_t without overflow"},
    {"Expected dtype int32/int64 for index", "", C::IndexDtype, "", "", "",
     "index_add_(): Expected dtype int32/int64 for index but got: Short"},
    {") and source (", "must have the same scalar type", C::DtypeMismatch, "", "", "",
     "index_add_(): self (Float) and source (Double) must have the same scalar type"},
    {"Indexing dim", "is out of bounds of the source tensor", C::ShapeMismatch, "", "", "",
     "index_add_(): Indexing dim 1 is out of bounds of the source tensor with dim 1"},
    {"Number of indices (", "should be equal to source.size(dim)", C::ShapeMismatch, "", "", "",
     "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for dim: 0"},
    // index_add_ building that message for a 0-d source
    {"Dimension specified as", "but tensor has no dimensions", C::ShapeMismatch, "", "", "",
     "Dimension specified as 0 but tensor has no dimensions"},
    // index_add_ on a rank >= 2 self, a source slice that does not broadcast
    // to self's
    {"must match the size of tensor b", "", C::ShapeMismatch, "", "", "",
     "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 0"},
    {"doesn't match the broadcast shape", "", C::ShapeMismatch, "", "", "",
     "output with shape [4] doesn't match the broadcast shape [4, 4]"},
    {"select() cannot be applied to a 0-dim tensor", "", C::ShapeMismatch, "", "", "",
     "select() cannot be applied to a 0-dim tensor."},
    // index_add_ on a rank >= 2 self with size 0 along dim (every index value
    // is out of range)
    {"select(): index", "out of range for tensor of size", C::IndexOutOfBounds, "", "", "",
     "select(): index 0 out of range for tensor of size [0, 1] at dimension 0"},
    // index_add_ on a rank <= 1 self
    {"must one or zero for given self.dim()", "", C::ShapeMismatch, "", "", "",
     "index_add_(): source.dim() (2) must one or zero for given self.dim() (1)"},
    {"Expected reduce to be one of prod, mean, amax or amin", "", C::InvalidReduce, "", "", "",
     "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum."},
    // scatter_reduce's backward (2.15; its forward takes 'max'/'min' as 'amax'/'amin')
    {"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin'", "", C::InvalidReduce, "", "", "",
     "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got max."},
};

bool matches(std::string_view message, std::string_view op, const LibTorchErrorRow& row) {
  if (!row.op.empty() && row.op != op) return false;
  const size_t at = message.find(row.first);
  if (at == std::string_view::npos) return false;
  return row.then.empty() || message.find(row.then, at + row.first.size()) != std::string_view::npos;
}

}  // namespace

std::span<const LibTorchErrorRow> libtorch_error_rows() { return kRows; }

bool libtorch_error_row_applies(const LibTorchErrorRow& row, std::string_view version) {
  if (row.since.empty() && row.until.empty()) return true;
  const std::optional<ref::Version> v = ref::parse_version(version);
  if (!v) return false;
  if (!row.since.empty() && ref::compare_versions(*v, *ref::parse_version(row.since)) < 0) return false;
  if (!row.until.empty() && ref::compare_versions(*v, *ref::parse_version(row.until)) >= 0) return false;
  return true;
}

const LibTorchErrorRow* match_libtorch_error(std::string_view message, std::string_view version, std::string_view op) {
  for (const LibTorchErrorRow& row : kRows)
    if (matches(message, op, row) && libtorch_error_row_applies(row, version)) return &row;
  return nullptr;
}

std::optional<ErrorCategory> classify_libtorch_error(std::string_view message, std::string_view version,
                                                     std::string_view op) {
  if (const LibTorchErrorRow* row = match_libtorch_error(message, version, op)) return row->category;
  return std::nullopt;
}

}  // namespace sp
