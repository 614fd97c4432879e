// mindspore_scatter.cc — MindSpore's Tensor.scatter_ translated onto Tensor::scatter_, as a
// framework converter would (the rules below).
#include "backends/libtorch/libtorch_common.h"
#include "reference/dialect_mindspore.h"

namespace sp::libtorch {
namespace {

// MindSpore documents self ranks up to 8.
constexpr int64_t kMindSporeMaxRank = 8;

// mindspore.Tensor.scatter_ (seed 003) translated onto Tensor::scatter_.
// MindSpore's own argument rules come first, as a converter must check them
// in MindSpore's terms (LibTorch's differ: it promotes a rank-0 self to rank
// 1, has no rank limit, checks nothing for an empty index, and checks
// index.size(d) <= self.size(d) only apart from dim):
//   dim in [-r, r) of self's own rank -> dim_out_of_range
//   self rank <= 8 -> rank_limit; index int32/int64 -> index_dtype;
//   src dtype == self dtype -> dtype_mismatch; reduce "add"/"multiply" ->
//   invalid_reduce; value overloads with doc_version r2.10+ (removed after
//   2.9) -> invalid_argument;
//   an empty index returns self unchanged;
//   index, self and src share a rank -> rank_mismatch;
//   index.size(d) > self.size(d) for ANY d -> shape_mismatch.
// Then the index becomes a new int64 tensor (LibTorch only takes int64)
// with negative values v mapped to v + s (003: [-s, s) counts from the end),
// and scatter_ runs with src/value and reduce exactly as PyTorch's. Index
// values outside [-s, s) (undefined on Ascend per 003) are left to LibTorch
// to report; the value's conversion to self's dtype is LibTorch's own.
Outcome translate_mindspore_scatter(const OpCall& call, TorchViews& views) {
  const Tensor& self = operand(call, "self");
  const Tensor& index = operand(call, "index");
  const int64_t rank = self.rank();
  const int64_t raw_dim = dim_arg(call);
  const std::string op = "mindspore.scatter_: ";
  if (raw_dim < -rank || raw_dim >= rank) {
    return Outcome::of_error(ErrorCategory::DimOutOfRange, op + "dim " + std::to_string(raw_dim) + " is outside [-" +
                                                               std::to_string(rank) + ", " + std::to_string(rank) +
                                                               ")");
  }
  if (rank > kMindSporeMaxRank) {
    return Outcome::of_error(ErrorCategory::RankLimit, op + "self has rank " + std::to_string(rank) + ", more than 8");
  }
  if (index.dtype() != DType::Int32 && index.dtype() != DType::Int64) {
    return Outcome::of_error(ErrorCategory::IndexDtype,
                             op + "index dtype " + std::string(dtype_name(index.dtype())) + " is not int32 or int64");
  }
  const bool src_given = has_src(call);
  if (src_given && operand(call, "src").dtype() != self.dtype()) {
    return Outcome::of_error(ErrorCategory::DtypeMismatch, op + "src dtype differs from self dtype");
  }
  if (call.string_arg("reduce") && *call.string_arg("reduce") != "add" && *call.string_arg("reduce") != "multiply") {
    return Outcome::of_error(ErrorCategory::InvalidReduce, op + "reduce must be \"add\" or \"multiply\", but got \"" +
                                                               *call.string_arg("reduce") + "\"");
  }
  bool r2_10_or_later = false;
  try {
    r2_10_or_later = ref::mindspore_rules::follows_r2_10_or_later(call.framework_version);
  } catch (const std::invalid_argument& e) {
    throw MalformedCall{e.what()};
  }
  if (!src_given && r2_10_or_later) {
    return Outcome::of_error(ErrorCategory::InvalidArgument,
                             op + "the value overloads were removed after 2.9 (doc " + call.framework_version + ")");
  }
  if (index.numel() == 0) return Outcome::of_outputs({self});
  // LibTorch checks src's rank only after the dim against it, so a 1-D src
  // would read as a dim error: check the ranks in MindSpore's terms first.
  const bool ranks_agree = index.rank() == rank && (!src_given || operand(call, "src").rank() == rank);
  if (!ranks_agree) {
    return Outcome::of_error(ErrorCategory::RankMismatch, op + "index, self and src must have the same rank");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (index.size(d) > self.size(d)) {
      return Outcome::of_error(ErrorCategory::ShapeMismatch,
                               op + "index.size(" + std::to_string(d) + ") = " + std::to_string(index.size(d)) +
                                   " exceeds self.size(" + std::to_string(d) + ") = " + std::to_string(self.size(d)));
    }
  }
  const int64_t dim = raw_dim < 0 ? raw_dim + rank : raw_dim;
  at::Tensor self_t = views.view(self);
  const at::Tensor as_long = views.view(index).to(at::kLong);
  const at::Tensor index_t = at::where(as_long.lt(0), as_long + self.size(dim), as_long);
  scatter_in_place(self_t, dim, index_t, call, views);
  return Outcome::of_outputs({self});
}

}  // namespace

void register_mindspore_scatter(LibTorchOps& ops) { ops.add("mindspore.scatter_", translate_mindspore_scatter); }

}  // namespace sp::libtorch
