#include "backends/libtorch/libtorch_errors.h"

#include <utility>

namespace sp {
namespace {

// A message matches when it contains every fragment of a row, in order.
struct Pattern {
  std::string_view first;
  std::string_view then;  // empty: only `first` is needed
  ErrorCategory category;
};

// Texts as printed by LibTorch 1.13.1 (the calls that produce them are in the
// test). Ordered from the most specific text to the most general.
constexpr Pattern kPatterns[] = {
    // "index 5 is out of bounds for dimension 0 with size 3" (gather, scatter,
    // index_put_, index_copy_)
    {"is out of bounds for dimension", "", ErrorCategory::IndexOutOfBounds},
    // index_add_ / index_fill_
    {"index out of range in self", "", ErrorCategory::IndexOutOfBounds},
    // index_select along dim >= 1: "INDICES element is out of DATA bounds, id=-1 axis_dim=4"
    {"INDICES element is out of DATA bounds", "", ErrorCategory::IndexOutOfBounds},
    // index_select, a non-empty index into a size-0 dim of a rank >= 2 input
    {"self indexing axis dim should be positive", "", ErrorCategory::IndexOutOfBounds},
    // "index_select(): Index is supposed to be a vector" (a 2-D index)
    {"Index is supposed to be a vector", "", ErrorCategory::InvalidArgument},
    // index_copy_: "index_copy_(): Index should have dimension 1 or 0 (got 2)"
    {"Index should have dimension 1 or 0", "", ErrorCategory::InvalidArgument},
    // index_fill_: "Index has to be a vector/scalar"
    {"Index has to be a vector/scalar", "", ErrorCategory::InvalidArgument},
    // index_copy_: "index_copy_(): Expected a long tensor for index, but got Int"
    {"Expected a long tensor for index", "", ErrorCategory::IndexDtype},
    // index_copy_: "index_copy_(): self and source expected to have the same
    // dtype, but got (self) Float and (source) Double"
    {"self and source expected to have the same dtype", "", ErrorCategory::DtypeMismatch},
    // index_copy_: "When source is scalar, index should have one element (got
    // 2)", "When source and destination are not scalars, their dimensionality
    // must match. ...", "Source/destination tensor must have same slice
    // shapes. ..."
    {"When source is scalar, index should have one element", "", ErrorCategory::ShapeMismatch},
    {"their dimensionality must match", "", ErrorCategory::ShapeMismatch},
    {"Source/destination tensor must have same slice shapes", "", ErrorCategory::ShapeMismatch},
    // index_copy_ / index_fill_ with a non-empty index into a size-0 dim
    // (every value out of range): "setStorage: sizes [1, 3], strides [0, 1],
    // storage offset 0, and itemsize 4 requiring a storage size of 12 are out
    // of bounds for storage of size 0"
    {"setStorage: sizes", "are out of bounds for storage of size", ErrorCategory::IndexOutOfBounds},
    // "index_select(): Expected dtype int32 or int64 for index"
    {"Expected dtype int32 or int64 for index", "", ErrorCategory::IndexDtype},
    // "Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    {"Dimension out of range", "", ErrorCategory::DimOutOfRange},
    // "scatter(): Expected dtype int64 for index"
    {"Expected dtype int64 for index", "", ErrorCategory::IndexDtype},
    // take_along_dim: "torch.take_along_dim(): dtype of indices should be Long but got Int"
    {"dtype of indices should be Long", "", ErrorCategory::IndexDtype},
    // take_along_dim: "torch.take_along_dim(): input and indices should have
    // the same number of dimensions, but got 2 dimensions for input, and 1
    // dimensions for indices"
    {"input and indices should have the same number of dimensions", "", ErrorCategory::RankMismatch},
    {"reduce argument must be either", "", ErrorCategory::InvalidReduce},  // add or multiply / sum, prod, ...
    // A dtype a kernel has no dispatch for: "\"div_floor_cpu\" not implemented for 'Bool'"
    {"not implemented for '", "", ErrorCategory::UnsupportedDtype},
    // "Index tensor must have the same number of dimensions as self tensor"
    {"Index tensor must have the same number of dimensions", "", ErrorCategory::RankMismatch},
    // gather: "Size does not match at dimension 1 expected index [1, 5] to be
    // smaller than self [3, 4] apart from dimension 0"
    {"Size does not match at dimension", "", ErrorCategory::ShapeMismatch},
    // scatter: "Expected index [1, 5] to be smaller than self [3, 4] apart
    // from dimension 0 and to be smaller size than src [1, 5]"
    {"Expected index [", "to be smaller", ErrorCategory::ShapeMismatch},
    // index_put_: "shape mismatch: value tensor of shape [3, 4] cannot be
    // broadcast to indexing result of shape [2, 4]"
    {"shape mismatch: value tensor of shape", "", ErrorCategory::ShapeMismatch},
    // out= of another dtype than the result (T-OUT1): "Expected out tensor to
    // have dtype float, but got double instead"; index_select's own text:
    // "index_select(): self and result must have the same scalar type"
    {"Expected out tensor to have dtype", "", ErrorCategory::DtypeMismatch},
    {"self and result must have the same scalar type", "", ErrorCategory::DtypeMismatch},
    // "scatter(): Expected self.dtype to be equal to src.dtype"
    {"Expected self.dtype to be equal to src.dtype", "", ErrorCategory::DtypeMismatch},
    // An expanded (stride-0) self written in place.
    {"more than one element of the written-to tensor refers to a single memory location", "",
     ErrorCategory::OverlappingOutput},
    // self written in place while it shares memory with index or src.
    {"some elements of the input tensor and the written-to tensor refer to a single memory location", "",
     ErrorCategory::OverlappingOutput},
    // std::runtime_error from c10::checked_convert: "value cannot be converted
    // to type uint8_t without overflow"
    {"value cannot be converted to type", "without overflow", ErrorCategory::ValueOutOfRange},
    // index_add_: "index_add_(): Expected dtype int32/int64 for index but got: Short"
    {"Expected dtype int32/int64 for index", "", ErrorCategory::IndexDtype},
    // index_add_: "index_add_(): self (Float) and source (Double) must have the same scalar type"
    {") and source (", "must have the same scalar type", ErrorCategory::DtypeMismatch},
    // index_add_: "index_add_(): Indexing dim 1 is out of bounds of the source tensor with dim 1"
    {"Indexing dim", "is out of bounds of the source tensor", ErrorCategory::ShapeMismatch},
    // index_add_: "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for dim: 0"
    {"Number of indices (", "should be equal to source.size(dim)", ErrorCategory::ShapeMismatch},
    // index_add_ building that message for a 0-d source: "Dimension specified
    // as 0 but tensor has no dimensions"
    {"Dimension specified as", "but tensor has no dimensions", ErrorCategory::ShapeMismatch},
    // index_add_ on a rank >= 2 self, a source slice that does not broadcast
    // to self's: "The size of tensor a (4) must match the size of tensor b (5)
    // at non-singleton dimension 0", "output with shape [4] doesn't match the
    // broadcast shape [4, 4]", "select() cannot be applied to a 0-dim tensor."
    {"must match the size of tensor b", "", ErrorCategory::ShapeMismatch},
    {"doesn't match the broadcast shape", "", ErrorCategory::ShapeMismatch},
    {"select() cannot be applied to a 0-dim tensor", "", ErrorCategory::ShapeMismatch},
    // index_add_ on a rank >= 2 self with size 0 along dim (every index value
    // is out of range): "select(): index 0 out of range for tensor of size
    // [0, 1] at dimension 0"
    {"select(): index", "out of range for tensor of size", ErrorCategory::IndexOutOfBounds},
    // index_add_ on a rank <= 1 self: "source.dim() (2) must one or zero for given self.dim() (1)"
    {"must one or zero for given self.dim()", "", ErrorCategory::ShapeMismatch},
    // index_reduce_: "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum."
    {"Expected reduce to be one of prod, mean, amax or amin", "", ErrorCategory::InvalidReduce},
};

}  // namespace

std::optional<ErrorCategory> classify_libtorch_error(std::string_view message) {
  for (const Pattern& p : kPatterns) {
    const size_t at = message.find(p.first);
    if (at == std::string_view::npos) continue;
    if (p.then.empty() || message.find(p.then, at + p.first.size()) != std::string_view::npos) return p.category;
  }
  return std::nullopt;
}

}  // namespace sp
