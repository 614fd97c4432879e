// torch_index_copy.cc — mutants of Tensor.index_copy_ / torch.index_copy,
// each a bug that real index_copy kernels have had: the loop over index
// positions starting at 1 (the first slice never copied), negative index
// values wrapped Python-style where the op rejects them, a mis-shaped
// source accepted (cropped or zero-padded, as a kernel that trusts the
// slice sizes does), and index_add_'s int32 index gate copied to
// index_copy_ (upstream refuses int32 there).
#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_index_copy(const OpSpec& op) { return op.id == "torch.index_copy_" || op.id == "torch.index_copy"; }

// An int32 index is widened to int64 instead of refused.
Outcome accepts_int32(Backend& cpu, OpCall& c) {
  const Tensor& index = *c.tensor("index");
  if (index.dtype() != DType::Int32) return cpu.run(c);
  c.tensors["index"] =
      remap(DType::Int64, index.shape(), [&](const Shape& pos) { return static_cast<uint64_t>(read_int(index, pos)); });
  return cpu.run(c);
}

}  // namespace

void register_torch_index_copy(MutantRegistry& r) {
  r.add({"index-copy-skips-first", "index_copy starts its loop at position 1: the first slice is never copied"},
        is_index_copy, index_skips_first);
  r.add({"index-copy-wraps-negative", "index_copy wraps negative index values by self.size(dim) instead of refusing"},
        is_index_copy, [](Backend& cpu, OpCall& c) { return index_wraps_negative(cpu, c, false); });
  r.add({"index-copy-accepts-misshaped-source",
         "index_copy accepts a source whose other dims differ from self's (cropped or zero-padded)"},
        is_index_copy, index_accepts_misshaped_source);
  r.add({"index-copy-accepts-int32", "index_copy takes an int32 index (index_add_'s dtype gate) where 1.13 refuses it"},
        is_index_copy, accepts_int32);
}

}  // namespace sp::mutant
