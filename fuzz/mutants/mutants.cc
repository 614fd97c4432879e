#include "fuzz/mutants/mutants.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>

#include "reference/op_table.h"
#include "backends/cpu/mutation.h"

namespace sp::fuzz {
namespace {

bool is_torch_op(const OpCall& c) { return c.op.rfind("torch.", 0) == 0; }
bool is_gather(const OpCall& c) { return c.op == "torch.gather"; }
bool is_paddle(const OpCall& c) { return c.op == "paddle.scatter"; }
const char* written_name(const OpCall& c) { return is_gather(c) ? "input" : is_paddle(c) ? "x" : "self"; }
const char* positional_name(const OpCall& c) { return is_gather(c) ? "input" : is_paddle(c) ? "updates" : "src"; }

// Rank as the op's dialect counts it (PyTorch addresses a scalar as [1]).
int64_t op_rank(const OpCall& c) {
  const int64_t r = c.tensor(written_name(c))->rank();
  return is_torch_op(c) && r == 0 ? 1 : r;
}
std::optional<int64_t> normalized_dim(const OpCall& c) {
  if (is_paddle(c)) return 0;
  const int64_t r = op_rank(c), d = c.int_arg("dim").value_or(0);
  if (d < -r || d >= r) return std::nullopt;
  return d < 0 ? d + r : d;
}
// Size of the indexed operand along dim.
int64_t indexed_size(const OpCall& c, int64_t dim) {
  const Tensor& t = *c.tensor(written_name(c));
  return t.rank() == 0 ? 1 : t.size(dim);
}
int64_t read_int(const Tensor& t, const Shape& pos) {
  const Value v = t.value_at(pos);
  return v.is_float ? static_cast<int64_t>(v.f) : v.i;
}

// A fresh contiguous tensor whose element at each position is bits_at(position).
Tensor remap(DType dtype, const Shape& shape, const std::function<uint64_t(const Shape&)>& bits_at) {
  Tensor out = Tensor::zeros(dtype, shape);
  if (out.numel() == 0) return out;
  Shape pos(shape.size(), 0);
  do out.set_bits_at(pos, bits_at(pos));
  while (next_index(pos, shape));
  return out;
}
Tensor with_index_values(const Tensor& index, const std::function<int64_t(const Shape&, int64_t)>& fn) {
  return remap(index.dtype(), index.shape(), [&](const Shape& pos) {
    const int64_t v = fn(pos, read_int(index, pos));
    return bits_from_value(index.dtype(), is_floating(index.dtype()) ? Value::of_float(static_cast<double>(v))
                                                                      : Value::of_int(v));
  });
}

// Every write a scatter-like call performs, in row-major index order:
// (target position in the written tensor, position in the positional operand).
struct Write {
  Shape target, source;
};
std::vector<Write> writes_of(const OpCall& c) {
  std::vector<Write> out;
  const auto dim = normalized_dim(c);
  const Tensor& index = *c.tensor("index");
  if (!dim || index.numel() == 0) return out;
  const int64_t s = indexed_size(c, *dim);
  if (is_paddle(c)) {
    const Shape& us = c.tensor("updates")->shape();
    Shape pos(us.size(), 0);
    if (checked_numel(us) == 0) return out;
    do {
      int64_t v = read_int(index, Shape{pos[0]});
      if (v < 0 || v >= s) return {};
      Shape target = pos;
      target[0] = v;
      out.push_back({target, pos});
    } while (next_index(pos, us));
    return out;
  }
  Shape pos(index.shape().size(), 0);
  do {
    int64_t v = read_int(index, pos);
    if (v < 0) v += s;
    if (v < 0 || v >= s) return {};
    Shape target = pos;
    if (!target.empty()) target[static_cast<size_t>(*dim)] = v;
    out.push_back({target, pos});
  } while (next_index(pos, index.shape()));
  return out;
}

bool is_add_reduction(const OpCall& c) {
  return c.op == "torch.scatter_add_" || c.op == "torch.scatter_add" || c.string_arg("reduce") == "add" ||
         (is_paddle(c) && c.bool_arg("overwrite") == false);
}
bool is_reduction(const OpCall& c) { return is_add_reduction(c) || c.string_arg("reduce") == "multiply"; }

using MutantRun = std::function<Outcome(Backend& cpu, OpCall& call)>;

// Runs the cpu backend on a scratch copy, leaving `call` untouched.
Outcome dry_run(Backend& cpu, const OpCall& call) {
  OpCall scratch = call.deep_copy();
  return cpu.run(scratch);
}
bool is_error(const Outcome& o, ErrorCategory c) { return o.kind == Outcome::Kind::Error && o.error == c; }

struct MutantDef {
  MutantInfo info;
  cpu::Mutation hook = cpu::Mutation::None;
  MutantRun run;  // empty: the hooked cpu backend as is
};

Outcome reject_last_valid_index(Backend& cpu, OpCall& c) {
  const Outcome probe = dry_run(cpu, c);
  if (probe.kind == Outcome::Kind::Outputs) {
    const auto dim = normalized_dim(c);
    const Tensor& index = *c.tensor("index");
    const int64_t s = indexed_size(c, *dim);
    Shape pos(index.shape().size(), 0);
    if (index.numel() > 0) do {
        if (read_int(index, pos) == s - 1)
          return Outcome::of_error(ErrorCategory::IndexOutOfBounds, "index " + std::to_string(s - 1) + " >= size - 1");
      } while (next_index(pos, index.shape()));
  }
  return cpu.run(c);
}

Outcome wrap_negative_torch_index(Backend& cpu, OpCall& c) {
  if (!is_torch_op(c) || !is_error(dry_run(cpu, c), ErrorCategory::IndexOutOfBounds)) return cpu.run(c);
  const int64_t s = indexed_size(c, *normalized_dim(c));
  Tensor& index = c.tensors["index"];
  bool all_wrappable = true;
  Shape pos(index.shape().size(), 0);
  do {
    const int64_t v = read_int(index, pos);
    all_wrappable &= v >= -s && v < s;
  } while (next_index(pos, index.shape()));
  if (all_wrappable) index = with_index_values(index, [&](const Shape&, int64_t v) { return v < 0 ? v + s : v; });
  return cpu.run(c);
}

Outcome skip_src_size_check(Backend& cpu, OpCall& c) {
  auto src_it = c.tensors.find("src");
  const Tensor& index = *c.tensor("index");
  if (is_paddle(c) || is_gather(c) || src_it == c.tensors.end() || src_it->second.rank() != index.rank())
    return cpu.run(c);
  const Tensor src = src_it->second;
  Shape padded = src.shape();
  for (size_t d = 0; d < padded.size(); ++d) padded[d] = std::max(padded[d], index.shape()[d]);
  if (padded == src.shape()) return cpu.run(c);
  // The real kernel reads past src's end; here what lies there is zeros.
  src_it->second = remap(src.dtype(), padded, [&](const Shape& pos) -> uint64_t {
    for (size_t d = 0; d < pos.size(); ++d)
      if (pos[d] >= src.shape()[d]) return 0;
    return src.bits_at(pos);
  });
  return cpu.run(c);
}

// Reads the positional operand as if contiguous from `start` (storage order).
MutantRun read_storage_order(bool keep_offset) {
  return [keep_offset](Backend& cpu, OpCall& c) {
    Tensor& t = c.tensors[positional_name(c)];
    if (t.is_contiguous() && (keep_offset || t.offset() == 0)) return cpu.run(c);
    const int64_t n = static_cast<int64_t>(t.storage_elements());
    const int64_t start = keep_offset ? t.offset() : 0;
    const Tensor original = t;
    int64_t linear = 0;
    t = remap(original.dtype(), original.shape(), [&](const Shape&) {
      return load_bits(original.dtype(), original.element_ptr((start + linear++) % std::max<int64_t>(n, 1)));
    });
    return cpu.run(c);
  };
}

Outcome negative_dim_off_by_one(Backend& cpu, OpCall& c) {
  if (const auto dim = c.int_arg("dim"); dim && *dim < 0 && *dim + op_rank(c) - 1 >= 0)
    c.set_arg("dim", Arg::of_int(*dim + op_rank(c) - 1));
  return cpu.run(c);
}

Outcome multiply_as_add(Backend& cpu, OpCall& c) {
  if (c.string_arg("reduce") == "multiply") c.set_arg("reduce", Arg::of_string("add"));
  return cpu.run(c);
}

Outcome value_to_positional_slots(Backend& cpu, OpCall& c) {
  const auto dim = normalized_dim(c);
  if (c.tensor("src") || !c.scalar_arg("value") || !dim || is_gather(c) || is_paddle(c)) return cpu.run(c);
  const int64_t s = indexed_size(c, *dim);
  Tensor& index = c.tensors["index"];
  if (s > 0 && index.rank() > 0)
    index = with_index_values(index, [&](const Shape& pos, int64_t) { return pos[static_cast<size_t>(*dim)] % s; });
  return cpu.run(c);
}

Outcome drop_duplicate_term(Backend& cpu, OpCall& c) {
  if (!is_reduction(c) || !c.tensor(positional_name(c))) return cpu.run(c);
  std::map<Shape, int> hits;
  std::vector<Shape> lost;
  for (const Write& w : writes_of(c))
    if (++hits[w.target] == 2) lost.push_back(w.source);  // the second writer's update is lost
  if (lost.empty()) return cpu.run(c);
  Tensor& p = c.tensors[positional_name(c)];
  const Tensor original = p;
  const uint64_t identity =
      bits_from_value(p.dtype(), c.string_arg("reduce") == "multiply" ? Value::of_int(1) : Value::of_int(0));
  const uint64_t identity_f =
      bits_from_value(p.dtype(), Value::of_float(c.string_arg("reduce") == "multiply" ? 1.0 : 0.0));
  p = remap(original.dtype(), original.shape(), [&](const Shape& pos) {
    if (std::find(lost.begin(), lost.end(), pos) != lost.end()) return is_floating(original.dtype()) ? identity_f : identity;
    return original.bits_at(pos);
  });
  return cpu.run(c);
}

Outcome empty_index_rank_strict(Backend& cpu, OpCall& c) {
  const Tensor& index = *c.tensor("index");
  if (is_torch_op(c) && index.numel() == 0) {
    const int64_t index_rank = index.rank() == 0 ? 1 : index.rank();
    if (index_rank != op_rank(c))
      return Outcome::of_error(ErrorCategory::RankMismatch, "index rank differs from self rank (empty index)");
  }
  return cpu.run(c);
}

// bf16 add-reductions accumulated in bf16 *and truncated* at every step
// (rounding per step stays inside the reference's interval; truncation of
// a single inexact sum does not).
Outcome bf16_truncating_accumulator(Backend& cpu, OpCall& c) {
  const Tensor* target0 = c.tensor(written_name(c));
  if (is_gather(c) || !is_add_reduction(c) || target0->dtype() != DType::BFloat16 || !c.tensor(positional_name(c)))
    return cpu.run(c);
  const OpCall original = c.deep_copy();
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs) return out;
  const Tensor& result = out.outputs.front();
  const Tensor& src = *original.tensor(positional_name(original));
  const Tensor& base = *original.tensor(written_name(original));
  const bool zero_first = is_paddle(original);
  std::map<Shape, float> acc;
  for (const Write& w : writes_of(original)) {
    auto it = acc.find(w.target);
    if (it == acc.end())
      it = acc.emplace(w.target, zero_first ? 0.0f : static_cast<float>(base.value_at(w.target).f)).first;
    const float sum = it->second + static_cast<float>(src.value_at(w.source).f);
    uint32_t bits;
    std::memcpy(&bits, &sum, 4);
    bits &= 0xffff0000u;  // truncate to bf16
    if (std::isnan(sum)) bits = 0x7fc00000u;
    std::memcpy(&it->second, &bits, 4);
  }
  for (const auto& [target, value] : acc) result.set_bits_at(target, float_to_bf16_bits(value));
  return out;
}

Outcome canonicalize_bits(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs) return out;
  for (const Tensor& t : out.outputs) {
    if (!is_floating(t.dtype()) || t.numel() == 0) continue;
    Shape pos(t.shape().size(), 0);
    do {
      const Value v = t.value_at(pos);
      if (std::isnan(v.f)) t.set_bits_at(pos, bits_from_value(t.dtype(), Value::of_float(std::nan(""))));
      else if (v.f == 0.0) t.set_bits_at(pos, bits_from_value(t.dtype(), Value::of_float(0.0)));
    } while (next_index(pos, t.shape()));
  }
  return out;
}

Outcome out_of_place_writes_input(Backend& cpu, OpCall& c) {
  Outcome out = cpu.run(c);
  if (out.kind != Outcome::Kind::Outputs || is_gather(c) || is_inplace_op(c.op)) return out;
  const Tensor& input = *c.tensor(written_name(c));
  const Tensor& result = out.outputs.front();
  if (input.has_internal_overlap() || input.numel() == 0) return out;
  Shape pos(input.shape().size(), 0);
  do input.set_bits_at(pos, result.bits_at(pos));
  while (next_index(pos, input.shape()));
  return out;
}

Outcome value_rounds(Backend& cpu, OpCall& c) {
  const Tensor& self = *c.tensor(written_name(c));
  if (c.scalar_arg("value") && c.scalar_arg("value")->kind == Scalar::Kind::Float && is_integral(self.dtype()) && std::isfinite(c.scalar_arg("value")->f))
    c.set_arg("value", Arg::of_scalar(Scalar::of_float(std::nearbyint(c.scalar_arg("value")->f))));
  return cpu.run(c);
}

Outcome dim_modulo_rank(Backend& cpu, OpCall& c) {
  const int64_t r = op_rank(c);
  if (c.int_arg("dim") && r > 0 && is_error(dry_run(cpu, c), ErrorCategory::DimOutOfRange)) c.set_arg("dim", Arg::of_int(((*c.int_arg("dim") % r) + r) % r));
  return cpu.run(c);
}

Outcome reduce_case_insensitive(Backend& cpu, OpCall& c) {
  if (c.string_arg("reduce")) {
    std::string r;
    for (char ch : *c.string_arg("reduce"))
      if (!std::isspace(static_cast<unsigned char>(ch))) r += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.set_arg("reduce", Arg::of_string(r));
  }
  return cpu.run(c);
}

Outcome gather_clamps_index(Backend& cpu, OpCall& c) {
  if (!is_gather(c) || !is_error(dry_run(cpu, c), ErrorCategory::IndexOutOfBounds)) return cpu.run(c);
  const int64_t s = indexed_size(c, *normalized_dim(c));
  if (s > 0)
    c.tensors["index"] = with_index_values(*c.tensor("index"), [&](const Shape&, int64_t v) {
      return std::clamp<int64_t>(v, 0, s - 1);
    });
  return cpu.run(c);
}

Outcome mindspore_index_dtype_lenient(Backend& cpu, OpCall& c) {
  const Tensor& index = *c.tensor("index");
  if (c.op == "mindspore.scatter_" && is_integral(index.dtype()) && index.dtype() != DType::Int32 &&
      index.dtype() != DType::Int64)
    c.tensors["index"] = remap(DType::Int64, index.shape(), [&](const Shape& pos) {
      return bits_from_value(DType::Int64, Value::of_int(read_int(index, pos)));
    });
  return cpu.run(c);
}

const std::vector<MutantDef>& definitions() {
  static const std::vector<MutantDef> defs = {
      {{"bound-off-by-one", "index bound check `v >= size - 1` rejects the last valid index"}, {}, reject_last_valid_index},
      {{"torch-negative-wrap", "PyTorch dialect wraps negative indices Python-style instead of raising"}, {}, wrap_negative_torch_index},
      {{"no-src-size-check", "index.size(d) <= src.size(d) is not checked; reads past src's end"}, {}, skip_src_size_check},
      {{"src-stride-ignored", "src/updates/input read as contiguous from its offset, strides ignored"}, {}, read_storage_order(true)},
      {{"src-storage-order", "src/updates/input read in storage order from the storage start"}, {}, read_storage_order(false)},
      {{"negative-dim-off-by-one", "negative dim normalized as dim + rank - 1"}, {}, negative_dim_off_by_one},
      {{"multiply-as-add", "reduce='multiply' dispatched to the add kernel"}, {}, multiply_as_add},
      {{"paddle-accumulate-keeps-old-row", "paddle overwrite=False adds to the old row instead of a zeroed one"},
       cpu::Mutation::PaddleAccumulateKeepsOldRow, {}},
      {{"value-wrong-slots", "value overload writes to the position's own slot, ignoring index values"}, {}, value_to_positional_slots},
      {{"drop-duplicate-term", "a reduction loses the second update to a slot (racy read-modify-write)"}, {}, drop_duplicate_term},
      {{"empty-index-rank-strict", "rank check applied even when index is empty"}, {}, empty_index_rank_strict},
      {{"mindspore-rank-limit-missing", "MindSpore accepts self of rank > 8"}, cpu::Mutation::MindsporeRankLimitMissing, {}},
      {{"bf16-truncating-accumulator", "bf16 add-reduction accumulated in bf16, truncated instead of rounded"}, {}, bf16_truncating_accumulator},
      {{"canonicalize-bits", "-0.0 becomes +0.0 and NaN payloads are lost in the output"}, {}, canonicalize_bits},
      {{"out-of-place-writes-input", "out-of-place scatter also writes its input"}, {}, out_of_place_writes_input},
      {{"value-rounds", "float value into an integer self rounds instead of truncating"}, {}, value_rounds},
      {{"dim-modulo-rank", "out-of-range dim taken modulo rank instead of raising"}, {}, dim_modulo_rank},
      {{"reduce-case-insensitive", "reduce string lower-cased and trimmed before matching"}, {}, reduce_case_insensitive},
      {{"gather-clamps-index", "gather clamps out-of-range indices instead of raising"}, {}, gather_clamps_index},
      {{"mindspore-index-dtype-lenient", "MindSpore accepts int8/int16/uint8/bool index"}, {}, mindspore_index_dtype_lenient},
  };
  return defs;
}

class MutantBackend final : public Backend {
 public:
  MutantBackend(const MutantDef& def, const BackendOptions& opts)
      : def_(def), cpu_(cpu::make_cpu_backend(opts.threads, def.hook, "mutant:" + def.info.name)) {}
  std::string name() const override { return "mutant:" + def_.info.name; }
  std::string description() const override { return "deliberately wrong cpu backend: " + def_.info.bug; }
  bool implements(std::string_view op) const override { return cpu_->implements(op); }
  Outcome run(const OpCall& call) override {
    if (!def_.run || !call.tensor("index") || !call.tensor(written_name(call)) || (!call.int_arg("dim") && !is_paddle(call)))
      return cpu_->run(call);
    // A shallow copy: replacing an operand stays private to the mutant, while
    // writes through shared storages reach the caller as a real bug's would.
    OpCall mine = call;
    return def_.run(*cpu_, mine);
  }

 private:
  const MutantDef& def_;
  std::unique_ptr<Backend> cpu_;
};

}  // namespace

const std::vector<MutantInfo>& mutant_catalog() {
  static const std::vector<MutantInfo> infos = [] {
    std::vector<MutantInfo> v;
    for (const auto& d : definitions()) v.push_back(d.info);
    return v;
  }();
  return infos;
}

std::unique_ptr<Backend> make_mutant(const std::string& name, const BackendOptions& opts) {
  for (const auto& d : definitions())
    if (d.info.name == name) return std::make_unique<MutantBackend>(d, opts);
  return nullptr;
}

void register_mutant_backends() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_backend("mutant:", "deliberately wrong cpu backends for mutation testing (scatterproof mutants)",
                     [](const std::string& full, const BackendOptions& opts) {
                       return make_mutant(full.substr(full.find(':') + 1), opts);
                     });
  });
}

}  // namespace sp::fuzz
