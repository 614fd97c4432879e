// mindspore_scatter.cc — mutants of mindspore.scatter_.
#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"
#include "reference/dialect_mindspore.h"

namespace sp::mutant {
namespace {

bool is_mindspore_scatter(const OpSpec& op) { return op.id == "mindspore.scatter_"; }

// MS-L1 forgotten: where the cpu backend rejects self's rank (> 8), the
// call runs as PyTorch's scatter_ instead, whose kernel has no rank limit:
// negative index values that MindSpore's doc_version allows are normalized
// first, and an int32 index widened (PyTorch takes int64 only).
Outcome rank_limit_missing(Backend& cpu, OpCall& c) {
  if (!is_error(dry_run(cpu, c), ErrorCategory::RankLimit)) return cpu.run(c);
  const int64_t s = indexed_size(c, *normalized_dim(c));
  const bool negatives_allowed = !ref::mindspore_rules::follows_r2_10_or_later(c.framework_version);
  const Tensor index = *c.tensor("index");
  if (index.dtype() == DType::Int32 || index.dtype() == DType::Int64)
    c.tensors["index"] = remap(DType::Int64, index.shape(), [&](const Shape& pos) {
      const int64_t v = read_int(index, pos);
      return bits_from_value(DType::Int64, Value::of_int(negatives_allowed && v < 0 && v >= -s ? v + s : v));
    });
  c.op = "torch.scatter_";
  bind_call(c);
  c.framework_version.clear();
  return cpu.run(c);
}

Outcome index_dtype_lenient(Backend& cpu, OpCall& c) {
  const Tensor& index = *c.tensor("index");
  if (is_integral(index.dtype()) && index.dtype() != DType::Int32 && index.dtype() != DType::Int64)
    c.tensors["index"] = remap(DType::Int64, index.shape(), [&](const Shape& pos) {
      return bits_from_value(DType::Int64, Value::of_int(read_int(index, pos)));
    });
  return cpu.run(c);
}

}  // namespace

void register_mindspore_scatter(MutantRegistry& r) {
  r.add({"mindspore-rank-limit-missing", "MindSpore accepts self of rank > 8"}, is_mindspore_scatter,
        rank_limit_missing);
  r.add({"mindspore-index-dtype-lenient", "MindSpore accepts int8/int16/uint8/bool index"}, is_mindspore_scatter,
        index_dtype_lenient);
}

}  // namespace sp::mutant
