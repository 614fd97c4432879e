// torch_index_add.cc — mutants of Tensor.index_add_ / torch.index_add, each a
// bug that real index_add kernels have had: a mis-shaped source accepted
// (LibTorch's CPU kernel broadcasting source slices while CUDA rejects
// them), duplicate indices dropped (last writer wins, as a plain scatter
// store instead of an accumulation), alpha ignored, and negative index
// values wrapped Python-style where the op rejects them.
#include <map>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_index_add(const OpSpec& op) { return op.id == "torch.index_add_" || op.id == "torch.index_add"; }

// alpha read as its default 1.
Outcome ignores_alpha(Backend& cpu, OpCall& c) {
  c.args.erase("alpha");
  return cpu.run(c);
}

// Duplicate index values: only the last position pointing at a target
// adds (a store per position, the last one winning).
Outcome duplicates_last_wins(Backend& cpu, OpCall& c) {
  const std::optional<int64_t> dim = normalized_dim(c);
  const Tensor& index = *c.tensor("index");
  const Tensor& source = *c.tensor("source");
  if (!dim || index.rank() != 1 || source.rank() == 0 || source.size(*dim) != index.numel() ||
      (index.dtype() != DType::Int32 && index.dtype() != DType::Int64))
    return cpu.run(c);
  std::map<int64_t, int64_t> last;  // value -> its last position
  for (int64_t i = 0; i < index.numel(); ++i) last[read_int(index, Shape{i})] = i;
  if (static_cast<int64_t>(last.size()) == index.numel()) return cpu.run(c);
  std::vector<int64_t> kept;  // positions kept, in order
  for (int64_t i = 0; i < index.numel(); ++i)
    if (last[read_int(index, Shape{i})] == i) kept.push_back(i);
  const auto k = static_cast<int64_t>(kept.size());
  c.tensors["index"] = remap(DType::Int64, Shape{k}, [&](const Shape& pos) {
    return static_cast<uint64_t>(read_int(index, Shape{kept[static_cast<size_t>(pos[0])]}));
  });
  Shape shape = source.shape();
  shape[static_cast<size_t>(*dim)] = k;
  c.tensors["source"] = remap(source.dtype(), shape, [&](const Shape& pos) {
    Shape from = pos;
    from[static_cast<size_t>(*dim)] = kept[static_cast<size_t>(pos[static_cast<size_t>(*dim)])];
    return source.bits_at(from);
  });
  return cpu.run(c);
}

}  // namespace

void register_torch_index_add(MutantRegistry& r) {
  r.add({"index-add-ignores-alpha", "index_add adds source unscaled, as if alpha were 1"}, is_index_add, ignores_alpha);
  r.add({"index-add-wraps-negative", "index_add wraps negative index values by self.size(dim) instead of refusing"},
        is_index_add, [](Backend& cpu, OpCall& c) { return index_wraps_negative(cpu, c, true); });
  r.add({"index-add-accepts-misshaped-source",
         "index_add accepts a source whose other dims differ from self's (cropped or zero-padded)"},
        is_index_add, index_accepts_misshaped_source);
  r.add({"index-add-duplicates-last-wins", "index_add with duplicate indices keeps only the last position's term"},
        is_index_add, duplicates_last_wins);
}

}  // namespace sp::mutant
