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

// Index position 0 and source's slice 0 dropped: the loop runs i = 1..M-1.
Outcome skips_first(Backend& cpu, OpCall& c) {
  const std::optional<int64_t> dim = normalized_dim(c);
  const Tensor& self = *c.tensor("self");
  const Tensor& index = *c.tensor("index");
  const Tensor& source = *c.tensor("source");
  if (!dim || self.rank() == 0 || index.rank() != 1 || index.numel() < 1 || source.rank() != self.rank() ||
      source.size(*dim) != index.numel() || index.dtype() != DType::Int64)
    return cpu.run(c);
  const int64_t m = index.numel() - 1;
  c.tensors["index"] = remap(DType::Int64, Shape{m}, [&](const Shape& pos) {
    return static_cast<uint64_t>(read_int(index, Shape{pos[0] + 1}));
  });
  Shape shape = source.shape();
  shape[static_cast<size_t>(*dim)] = m;
  c.tensors["source"] = remap(source.dtype(), shape, [&](const Shape& pos) {
    Shape from = pos;
    from[static_cast<size_t>(*dim)] += 1;
    return source.bits_at(from);
  });
  return cpu.run(c);
}

// Negative index values wrapped by self.size(dim) instead of refused.
Outcome wraps_negative(Backend& cpu, OpCall& c) {
  const std::optional<int64_t> dim = normalized_dim(c);
  const Tensor& index = *c.tensor("index");
  if (!dim || index.dtype() != DType::Int64) return cpu.run(c);
  const int64_t size = indexed_size(c, *dim);
  c.tensors["index"] = with_index_values(index, [&](const Shape&, int64_t v) { return v < 0 ? v + size : v; });
  return cpu.run(c);
}

// A source whose dims other than dim differ from self's is cropped or
// zero-padded to the expected shape instead of refused.
Outcome accepts_misshaped_source(Backend& cpu, OpCall& c) {
  const std::optional<int64_t> dim = normalized_dim(c);
  const Tensor& self = *c.tensor("self");
  const Tensor& index = *c.tensor("index");
  const Tensor& source = *c.tensor("source");
  if (!dim || self.rank() == 0 || source.rank() != self.rank() || source.size(*dim) != index.numel()) return cpu.run(c);
  Shape expected = self.shape();
  expected[static_cast<size_t>(*dim)] = index.numel();
  if (expected == source.shape()) return cpu.run(c);
  c.tensors["source"] = remap(source.dtype(), expected, [&](const Shape& pos) -> uint64_t {
    for (size_t d = 0; d < pos.size(); ++d)
      if (pos[d] >= source.shape()[d]) return 0;
    return source.bits_at(pos);
  });
  return cpu.run(c);
}

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
        is_index_copy, skips_first);
  r.add({"index-copy-wraps-negative", "index_copy wraps negative index values by self.size(dim) instead of refusing"},
        is_index_copy, wraps_negative);
  r.add({"index-copy-accepts-misshaped-source",
         "index_copy accepts a source whose other dims differ from self's (cropped or zero-padded)"},
        is_index_copy, accepts_misshaped_source);
  r.add({"index-copy-accepts-int32", "index_copy takes an int32 index (index_add_'s dtype gate) where 1.13 refuses it"},
        is_index_copy, accepts_int32);
}

}  // namespace sp::mutant
