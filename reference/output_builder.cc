#include "reference/output_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "reference/float_bounds.h"
#include "reference/semantics_common.h"

namespace sp {
namespace {

// Indexed by ReduceMode: its name, and the operator a trace line shows.
constexpr const char* kModeName[] = {"overwrite", "add", "multiply", "mean", "max", "min"};
constexpr const char* kEffectOperator[] = {" = ", " += ", " *= ", " mean+= ", " max= ", " min= "};
std::string mode_name(ReduceMode m) { return kModeName[static_cast<int>(m)]; }
std::string effect_operator(ReduceMode m) { return kEffectOperator[static_cast<int>(m)]; }

// The value a reduction starts from when the element's own value does not
// take part: the identity of the operation.
Value identity(DType t, ReduceMode m) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (is_floating(t)) {
    return Value::of_float(m == ReduceMode::Multiply ? 1.0
                           : m == ReduceMode::Max    ? -kInf
                           : m == ReduceMode::Min    ? kInf
                                                     : 0.0);
  }
  return Value::of_int(m == ReduceMode::Multiply ? 1
                       : m == ReduceMode::Max    ? dtype_int_min(t)
                       : m == ReduceMode::Min    ? dtype_int_max(t)
                                                 : 0);
}

// The sum of integral terms exactly (a uint64 term is read unsigned).
__int128 exact_term(const Value& v) {
  return v.is_unsigned ? static_cast<__int128>(static_cast<uint64_t>(v.i)) : static_cast<__int128>(v.i);
}

int64_t floor_divide(__int128 sum, int64_t count) {
  __int128 q = sum / count;
  if (sum % count != 0 && sum < 0) --q;
  return static_cast<int64_t>(q);
}

ElementAllowed any_nan(const std::string& why) {
  ElementAllowed a;
  a.any_nan = true;
  a.why = why;
  return a;
}

}  // namespace

uint64_t reduce_once(DType t, ReduceMode mode, Value a, Value b) {
  if (mode == ReduceMode::Max || mode == ReduceMode::Min) {
    if (is_floating(t) && std::isnan(b.f)) return bits_from_value(t, b);
    if (is_floating(t) && std::isnan(a.f)) return bits_from_value(t, a);
    const bool max = mode == ReduceMode::Max;
    const bool b_wins = is_floating(t) ? (max ? b.f > a.f : b.f < a.f) : (max ? int_less(t, a, b) : int_less(t, b, a));
    return bits_from_value(t, b_wins ? b : a);
  }
  const bool add = mode != ReduceMode::Multiply;
  if (t == DType::Bool) {
    const bool x = a.i != 0, y = b.i != 0;
    return add ? (x || y) : (x && y);
  }
  if (is_integral(t)) {
    // Two's-complement wrap: compute in uint64, truncate to the dtype.
    const uint64_t x = static_cast<uint64_t>(a.i), y = static_cast<uint64_t>(b.i);
    return bits_from_value(t, Value::of_int(static_cast<int64_t>(add ? x + y : x * y)));
  }
  // One IEEE op. For float32/16-bit dtypes the double result rounds once
  // more to the dtype; with p <= 24 that double rounding is innocuous
  // (53 >= 2p + 2), so the result is the correctly rounded one.
  const double r = add ? a.f + b.f : a.f * b.f;
  return bits_from_value(t, Value::of_float(r));
}

OutputBuilder::OutputBuilder(std::string name, const Tensor& initial, Trace* trace)
    : name_(std::move(name)), initial_(initial.contiguous()), trace_(trace) {}

OutputBuilder::Slot& OutputBuilder::slot_at(int64_t linear) {
  uint32_t* at = nullptr;
  if (initial_.numel() <= kDenseSlotElements) {
    if (slot_of_.empty()) slot_of_.assign(static_cast<size_t>(initial_.numel()), kNoSlot);
    at = &slot_of_[static_cast<size_t>(linear)];
  } else {
    at = &sparse_slot_of_.try_emplace(linear, kNoSlot).first->second;
  }
  if (*at == kNoSlot) {
    if (slots_.size() >= kNoSlot) throw std::length_error("output builder: more written elements than slots");
    *at = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
    // An element written once so far: that write is the slot's first.
    const size_t word = static_cast<size_t>(linear) / 64;
    const uint64_t bit = uint64_t{1} << (linear % 64);
    if (word < written_once_.size() && (written_once_[word] & bit)) {
      written_once_[word] &= ~bit;
      slots_.back().overwrites.push_back(load_bits(initial_.dtype(), initial_.element_ptr(linear)));
    }
  }
  return slots_[*at];
}

uint32_t OutputBuilder::slot_index(int64_t linear) const {
  if (!slot_of_.empty()) return slot_of_[static_cast<size_t>(linear)];
  const auto it = sparse_slot_of_.find(linear);
  return it == sparse_slot_of_.end() ? kNoSlot : it->second;
}

void OutputBuilder::record(const Shape& target, ReduceMode mode, uint64_t bits, const WriteOrigin& from) {
  if (trace_ == nullptr) return;
  const DType t = initial_.dtype();
  std::string source(from.name);
  if (from.tensor != nullptr && from.at != nullptr) source = ref::element_text(from.name, *from.tensor, *from.at);
  trace_->writes.push_back(Write{target, from.index_pos ? *from.index_pos : Shape{}, from.index_value, source,
                                 name_ + format_index(target) + effect_operator(mode) + format_value(t, bits),
                                 from.tensor != nullptr && from.at != nullptr ? std::string(from.name) : std::string(),
                                 from.tensor != nullptr && from.at != nullptr ? *from.at : Shape{}});
}

void OutputBuilder::overwrite(const Shape& target, uint64_t bits, const WriteOrigin& from) {
  record(target, ReduceMode::None, bits, from);
  const int64_t linear = initial_.element_offset(target);
  const DType t = initial_.dtype();
  if (slot_index(linear) != kNoSlot) return slot_at(linear).overwrites.push_back(bits);
  if (written_once_.empty()) written_once_.assign(static_cast<size_t>(initial_.numel() + 63) / 64, 0);
  uint64_t& word = written_once_[static_cast<size_t>(linear) / 64];
  const uint64_t bit = uint64_t{1} << (linear % 64);
  if (!(word & bit)) {  // the first write: straight into the output
    word |= bit;
    return store_bits(t, initial_.element_ptr(linear), bits);
  }
  slot_at(linear).overwrites.push_back(bits);  // the second: both into a slot
}

void OutputBuilder::reduce(const Shape& target, ReduceMode mode, Value term, const WriteOrigin& from) {
  Slot& s = slot(target);
  s.mode = mode;
  s.terms.push_back(term);
  if (trace_) record(target, mode, bits_from_value(initial_.dtype(), term), from);
}

void OutputBuilder::reset_to_zero(const Shape& target) { slot(target).zeroed = true; }

std::string OutputBuilder::element_name(int64_t linear) const {
  Shape idx(initial_.shape().size());
  for (size_t d = idx.size(); d-- > 0;) {
    idx[d] = linear % initial_.shape()[d];
    linear /= initial_.shape()[d];
  }
  return name_ + format_index(idx);
}

void OutputBuilder::resolve(int64_t linear, const Slot& s, ExpectedTensor& out) {
  if (s.overwrites.empty()) return resolve_reduction(linear, s, out);
  // Visit order: the last writer is the reference's representative.
  store_bits(initial_.dtype(), out.exact.element_ptr(linear), s.overwrites.back());
  std::vector<uint64_t> distinct;
  for (uint64_t b : s.overwrites)
    if (std::find(distinct.begin(), distinct.end(), b) == distinct.end()) distinct.push_back(b);
  if (distinct.size() > 1) {
    ElementAllowed a;
    a.bits = distinct;
    a.why = std::to_string(s.overwrites.size()) + " writers to one element: any may win";
    if (trace_) trace_->finals.push_back(element_name(linear) + ": " + a.describe(initial_.dtype()));
    out.loose[linear] = std::move(a);
  }
}

void OutputBuilder::resolve_reduction(int64_t linear, const Slot& s, ExpectedTensor& out) {
  const DType t = initial_.dtype();
  std::byte* p = out.exact.element_ptr(linear);
  // Every term in visit order; the element's own value (or paddle's zero)
  // first where it takes part.
  const bool from_element = s.zeroed || include_initial_;
  std::vector<Value> terms;
  if (from_element) terms.push_back(s.zeroed ? Value{is_floating(t), 0, 0.0} : value_from_bits(t, load_bits(t, p)));
  terms.insert(terms.end(), s.terms.begin(), s.terms.end());
  if (s.terms.empty()) {  // zeroed, never accumulated into
    store_bits(t, p, bits_from_value(t, terms.front()));
    return;
  }
  // The representative: sequential combination in visit order (a mean
  // divides the sum once at the end), as LibTorch 1.13's CPU kernels do.
  uint64_t acc = bits_from_value(t, from_element ? terms.front() : identity(t, s.mode));
  for (size_t k = from_element ? 1 : 0; k < terms.size(); ++k)
    acc = reduce_once(t, s.mode, value_from_bits(t, acc), terms[k]);
  const int64_t count = static_cast<int64_t>(terms.size());
  if (s.mode == ReduceMode::Mean) {
    const Value sum = value_from_bits(t, acc);
    acc = is_floating(t) ? bits_from_value(t, Value::of_float(sum.f / static_cast<double>(count)))
                         : bits_from_value(t, Value::of_int(floor_divide(exact_term(sum), count)));
  }
  store_bits(t, p, acc);

  ElementAllowed a;
  if (!is_floating(t)) {
    if (s.mode != ReduceMode::Mean) return;  // integral and bool reductions are exact in any order
    __int128 true_sum = 0;
    for (const Value& v : terms) true_sum += exact_term(v);
    const uint64_t true_mean = bits_from_value(t, Value::of_int(floor_divide(true_sum, count)));
    if (true_mean == acc) return;
    a.bits = {acc, true_mean};
    a.why = "the sum leaves " + std::string(dtype_name(t)) + ": its wrapped value or the true sum, floor-divided";
  } else if (s.mode == ReduceMode::Max || s.mode == ReduceMode::Min) {
    if (std::any_of(terms.begin(), terms.end(), [](const Value& v) { return std::isnan(v.f); })) {
      a = any_nan("a NaN term: NaN propagates");
    } else {
      const double extreme = value_from_bits(t, acc).f;
      for (const Value& v : terms) {
        const uint64_t b = bits_from_value(t, v);
        if (v.f == extreme && std::find(a.bits.begin(), a.bits.end(), b) == a.bits.end()) a.bits.push_back(b);
      }
      if (a.bits.size() < 2) return;
      a.why = "terms tie at zero: either zero is the " + mode_name(s.mode);
    }
  } else if (s.mode != ReduceMode::Mean && from_element && terms.size() == 2) {
    // A single correctly rounded op is exact; a computed NaN is any NaN.
    if (!bits_is_nan(t, acc)) return;
    a = any_nan("a computed NaN: its payload is not specified");
  } else if (terms.size() == 1) {
    // One term and no element value: the result is that term (the identity's
    // op is exact, but +0 + -0 = +0 leaves the sign of a lone -0 open).
    const uint64_t term_bits = bits_from_value(t, terms.front());
    if (bits_is_nan(t, term_bits)) {
      a = any_nan("a computed NaN: its payload is not specified");
    } else if (s.mode != ReduceMode::Multiply && std::signbit(terms.front().f) && terms.front().f == 0) {
      a.bits = {acc, term_bits};
      a.why = "a lone -0.0 term: +0.0 from the identity, or the term itself";
    } else {
      return;
    }
  } else {
    std::vector<double> values;
    for (const Value& v : terms) values.push_back(v.f);
    a = s.mode == ReduceMode::Mean ? float_mean_bounds(t, values) : float_reduction_bounds(t, s.mode, values);
    a.why = std::to_string(s.terms.size()) + " " + mode_name(s.mode) + " terms in an unspecified order";
  }
  if (trace_) trace_->finals.push_back(element_name(linear) + ": " + a.describe(t));
  out.loose[linear] = std::move(a);
}

ExpectedTensor OutputBuilder::finish() {
  if (finished_) throw std::logic_error("output builder: finish() called twice");
  finished_ = true;
  ExpectedTensor out;
  out.name = name_;
  // The builder's own contiguous copy becomes the answer (a huge case's
  // output is not copied again); nothing writes to it after this.
  out.exact = initial_;
  // In element order, so that explain's final lines read in index order.
  for (size_t linear = 0; linear < slot_of_.size(); ++linear)
    if (slot_of_[linear] != kNoSlot) resolve(static_cast<int64_t>(linear), slots_[slot_of_[linear]], out);
  std::vector<std::pair<int64_t, uint32_t>> sparse(sparse_slot_of_.begin(), sparse_slot_of_.end());
  std::sort(sparse.begin(), sparse.end());
  for (const auto& [linear, at] : sparse) resolve(linear, slots_[at], out);
  return out;
}

}  // namespace sp
