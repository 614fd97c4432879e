// case_gen.cc — the choice stream (Choices) and generate_call
// (fuzz/case_gen.h): the tier, the dialect's version, the family's builder,
// the other arguments, out= and backward calls. The parts live beside it
// (gen_detail.h).
#include "fuzz/case_gen.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "fuzz/gen_detail.h"
#include "harness/layouts.h"
#include "reference/op_table.h"

namespace sp::fuzz {

Choices::Choices(uint64_t seed, std::vector<uint32_t> prefix)
    : source_(std::move(prefix)),
      extend_randomly_(true),
      rng_(static_cast<std::mt19937::result_type>(seed ^ (seed >> 32))) {}

Choices Choices::replay(std::vector<uint32_t> sequence) {
  Choices c;
  c.source_ = std::move(sequence);
  return c;
}

uint32_t Choices::next_raw(uint32_t n) {
  uint32_t raw = 0;
  if (position_ < source_.size()) {
    raw = source_[position_++];
  } else if (extend_randomly_) {
    // Record the reduced value, not the raw draw: halving a recorded choice
    // then moves the decision toward its simplest option.
    raw = n <= 1 ? 0 : static_cast<uint32_t>(rng_() % n);
  }
  consumed_.push_back(raw);
  return raw;
}

uint32_t Choices::below(uint32_t n) { return n <= 1 ? (next_raw(n), 0u) : next_raw(n) % n; }
bool Choices::chance(uint32_t percent) { return below(100) >= 100 - percent; }
int64_t Choices::between(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(below(span > 0xffffffffu ? 0xffffffffu : static_cast<uint32_t>(span)));
}

namespace gen {
namespace {

// PyTorch's out= (T-OUT*), for ops that take one: correctly shaped in any
// layout (expanded included), of another dtype, mis-shaped (empty or not),
// or a view into an operand's storage — the very same view (T-OUT4/5) or
// one shifted over it (T-OUT3).
void draw_out(Choices& c, const OpSpec& op, const OperandSpec& out_spec, OpCall& call) {
  const Tensor* like = call.tensor(op.output_dtype_of);
  if (!like) return;
  const std::optional<Shape> result_shape = output_shape_of(op, call);
  const Shape shape = result_shape ? *result_shape : like->shape();
  const DType dtype = like->dtype();
  // The formula's shape of an invalid call can be large (an index of 6 into
  // a size-0 dim of a rank-9 input): keep to the generator's sizes.
  if (checked_numel(shape) < 0 || checked_numel(shape) > t_max_elements) return;
  switch (c.below(10)) {
    case 0:  // another dtype
      call.tensors[out_spec.name] = data_tensor(c, any_dtype_for(c, op), shape);
      return;
    case 1: {  // mis-shaped: resized (T-OUT6)
      Shape other = c.chance(50) ? Shape{0} : pick_shape(c, pick_rank(c));
      clamp_numel(other);
      call.tensors[out_spec.name] = data_tensor(c, dtype, other);
      return;
    }
    case 2:
    case 3: {  // a view into the storage of an operand of the result's dtype
      std::vector<const Tensor*> candidates;
      for (const auto& [name, t] : call.tensors)
        if (name != out_spec.name && t.dtype() == dtype && t.storage()) candidates.push_back(&t);
      if (candidates.empty()) break;
      const Tensor& base = *candidates[c.below(static_cast<uint32_t>(candidates.size()))];
      if (base.shape() == shape && c.chance(50)) {
        call.tensors[out_spec.name] = base;  // the very same view
        return;
      }
      const int64_t numel = checked_numel(shape);
      const auto room = static_cast<int64_t>(base.storage_elements()) - numel;
      if (numel < 0 || room < 0) break;
      call.tensors[out_spec.name] =
          Tensor::view(dtype, shape, contiguous_strides(shape), c.between(0, room), base.storage());
      return;
    }
    default:
      break;
  }
  call.tensors[out_spec.name] = with_layout(c, data_tensor(c, dtype, shape), false);
}

// A backward op (`<op>.backward`): a forward call of its op as the
// generator draws it (valid or not), out= dropped, and an upstream
// gradient shaped and typed like the forward's output, sometimes not (the
// backward's own shape and dtype rules), in a drawn layout.
OpCall backward_call(Choices& c, const OpSpec& backward) {
  const OpSpec& forward = op_spec(backward.backward_of);
  // Mostly floating data: gradients of other dtypes are one error (a few
  // draws keep reaching it).
  OpCall call = generate_call_for(c, forward);
  for (int tries = 0; tries < 3; ++tries) {
    const Tensor* data = call.tensor(forward.data_operand);
    if (!data || is_floating(data->dtype())) break;
    call = generate_call_for(c, forward);
  }
  call.op = backward.id;
  if (const OperandSpec* out = out_operand(forward)) call.tensors.erase(out->name);
  const Tensor* dtype_of = call.tensor(forward.output_dtype_of);
  DType dtype = dtype_of ? dtype_of->dtype() : DType::Float32;
  std::optional<Shape> shape = output_shape_of(forward, call);
  if (!shape || c.chance(5)) {
    shape = pick_shape(c, pick_rank(c));
    clamp_numel(*shape);
  }
  if (c.chance(3)) dtype = any_dtype_for(c, forward);
  call.tensors[std::string(kGradOutput)] = with_layout(c, data_tensor(c, dtype, *shape));
  bind_call(call);  // the backward call enters here (the forward's binding is dropped)
  return call;
}

// An empty index (its first dim 0, or [0] for a 0-d one) together with, mostly,
// another violated rule: a floating index dtype, dim out of range, an index
// one rank higher, or a source of another dtype. A backend may report any
// of them (or must report the other rule: an empty index is no error).
void empty_index_with_violation(Draw& g) {
  Choices& c = g.c;
  const std::string& name = g.roles.index->name;
  const Tensor* index = g.call.tensor(name);
  if (!index) return;
  Shape shape = index->shape();
  // Its first dim 0. (Zeroing an inner dim, [m, 0], crashes the reference's
  // Paddle PD-B1/PD-B3 checks, which read index[i] of a 2-D index as 1-D:
  // reported, to be re-enabled with the reference's fix.)
  if (shape.empty())
    shape = Shape{0};
  else
    shape[0] = 0;
  DType dtype = index->dtype();
  uint32_t rule = c.below(5);
  const ArgSpec* axis = family_gen(g.op).axis ? axis_arg(g.op) : nullptr;
  const Tensor* data = g.call.tensor(g.roles.data->name);
  const Tensor* source = g.roles.source ? g.call.tensor(g.roles.source->name) : nullptr;
  if ((rule == 2 && (!axis || !data)) || (rule == 4 && (!source || !data))) rule = 1;
  switch (rule) {
    case 1:
      dtype = DType::Float32;
      break;
    case 2: {
      const int64_t rank = std::max<int64_t>(data->rank(), 1);
      g.call.set_arg(axis->name, Arg::of_int(c.below(2) ? rank : -rank - 1));
      break;
    }
    case 3:
      shape.push_back(1);
      break;
    case 4: {
      const DType other = data->dtype() == DType::Float64 ? DType::Int64 : DType::Float64;
      g.call.tensors[g.roles.source->name] = data_tensor(c, other, source->shape());
      break;
    }
    default:
      break;
  }
  g.call.tensors[name] = Tensor::zeros(dtype, shape);
}

}  // namespace
}  // namespace gen

using namespace gen;  // the generator's parts (gen_detail.h)

OpCall generate_call(Choices& choices) {
  const std::vector<OpSpec>& table = op_table();
  return generate_call_for(choices, table[choices.below(static_cast<uint32_t>(table.size()))]);
}

OpCall generate_call(Choices& choices, const std::vector<const OpSpec*>& ops) {
  if (ops.empty()) return generate_call(choices);
  return generate_call_for(choices, *ops[choices.below(static_cast<uint32_t>(ops.size()))]);
}

namespace {
OpCall generate_once(Choices& choices, const OpSpec& op);

// The elements of `call`'s output by the op table's shape rule (0 for an
// in-place op, a backward op or an invalid call: their outputs are shaped
// like operands, or there is none).
int64_t output_elements(const OpSpec& op, const OpCall& call) {
  if (op.in_place || !op.backward_of.empty()) return 0;
  const std::optional<Shape> shape = output_shape_of(op, call);
  if (!shape) return 0;
  int64_t n = 1;
  for (int64_t d : *shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
  return n;
}
}  // namespace

// An output can be far larger than the operands (index_select repeating the
// rows of an input whose zero-size dim makes it empty, take_along_dim's
// broadcast): a call whose output would pass kMaxGeneratedOutput elements is
// drawn again from the following choices, and after kOutputRedraws such
// draws the smallest call of the op (all choices 0) is taken. Replaying the
// recorded choices takes the same path, so any choice sequence (libFuzzer's
// included) gives a bounded call.
OpCall generate_call_for(Choices& choices, const OpSpec& op) {
  for (int attempt = 0; attempt < kOutputRedraws; ++attempt) {
    OpCall call = generate_once(choices, op);
    if (output_elements(op, call) <= kMaxGeneratedOutput) return call;
  }
  Choices smallest = Choices::replay({});
  return generate_once(smallest, op);
}

namespace {
OpCall generate_once(Choices& choices, const OpSpec& op) {
  if (!op.backward_of.empty()) return backward_call(choices, op);
  // The tier: kMaxLargeElements once in kLargeTierOneIn calls (the last
  // option, so shrinking leaves it), restored on return (backward_call nests).
  struct Tier {
    int64_t limit = t_max_elements;
    bool large = t_large, rows = t_row_shaped;
    ~Tier() { t_max_elements = limit, t_large = large, t_row_shaped = rows; }
  } const saved;
  const uint32_t tier = choices.below(kLargeTierOneIn);
  t_large = tier == kLargeTierOneIn - 1;
  t_row_shaped = !t_large && tier >= kLargeTierOneIn - 1 - kRowShapedTiers;
  t_max_elements = t_large ? kMaxLargeElements : kMaxGeneratedElements;
  OpCall call;
  call.op = op.id;
  const DialectKnobs& knobs = knobs_for(op.dialect);
  if (!knobs.framework_versions.empty())
    call.framework_version =
        knobs.framework_versions[choices.below(static_cast<uint32_t>(knobs.framework_versions.size()))];
  const bool negatives_valid = knobs.negatives_in_range && knobs.negatives_in_range(call.framework_version);
  Draw draw{choices, op, roles_of(op), knobs, negatives_valid, call};
  const FamilyGen& family = family_gen(op);
  family.build(draw);
  if (choices.chance(2)) empty_index_with_violation(draw);
  // Every other argument by its declared type: not the axis (drawn with the
  // shapes) and not an operand's alternative (drawn instead of the operand).
  const ArgSpec* axis = family.axis ? axis_arg(op) : nullptr;
  for (const ArgSpec& arg : op.args) {
    if (&arg == axis) continue;
    // Drawn by the family's builder (batch_dims) and draw_onnx_args (opset, reduction).
    if (!family.own_arg.empty() && arg.name == family.own_arg) continue;
    if (knobs.opset_argument && (arg.name == "opset" || arg.name == "reduction")) continue;
    const bool is_alternative =
        std::any_of(op.operands.begin(), op.operands.end(), [&](const OperandSpec& o) { return o.or_arg == arg.name; });
    if (!is_alternative) draw_arg(choices, arg, call);
  }
  if (knobs.opset_argument) draw_onnx_args(choices, op, call);
  if (const OperandSpec* out = out_operand(op); out && choices.chance(30)) draw_out(choices, op, *out, call);
  // The call enters the system here: its signature is checked once, and a
  // fitting call carries its entry (a misfit is left for run_backend).
  bind_call(call);
  return call;
}
}  // namespace

}  // namespace sp::fuzz
