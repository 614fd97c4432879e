#include "reference/output_builder.h"

#include <algorithm>
#include <cmath>

#include "reference/float_bounds.h"

namespace sp {
namespace {

std::string mode_name(ReduceMode m) { return m == ReduceMode::Add ? "add" : m == ReduceMode::Multiply ? "multiply" : "overwrite"; }

}  // namespace

uint64_t reduce_once(DType t, ReduceMode mode, Value a, Value b) {
  if (t == DType::Bool) {
    const bool x = a.i != 0, y = b.i != 0;
    return mode == ReduceMode::Add ? (x || y) : (x && y);
  }
  if (is_integral(t)) {
    // Two's-complement wrap: compute in uint64, truncate to the dtype.
    const uint64_t x = static_cast<uint64_t>(a.i), y = static_cast<uint64_t>(b.i);
    return bits_from_value(t, Value::of_int(static_cast<int64_t>(mode == ReduceMode::Add ? x + y : x * y)));
  }
  // One IEEE op. For float32/16-bit dtypes the double result rounds once
  // more to the dtype; with p <= 24 that double rounding is innocuous
  // (53 >= 2p + 2), so the result is the correctly rounded one.
  const double r = mode == ReduceMode::Add ? a.f + b.f : a.f * b.f;
  return bits_from_value(t, Value::of_float(r));
}

OutputBuilder::OutputBuilder(std::string name, const Tensor& initial, Trace* trace)
    : name_(std::move(name)), initial_(initial.contiguous()), trace_(trace) {}

OutputBuilder::Slot& OutputBuilder::slot(const Shape& target) {
  return slots_[initial_.element_offset(target)];
}

void OutputBuilder::overwrite(const Shape& target, uint64_t bits, Write why) {
  slot(target).overwrites.push_back(bits);
  if (trace_) trace_->writes.push_back(std::move(why));
}

void OutputBuilder::reduce(const Shape& target, ReduceMode mode, Value term, Write why) {
  Slot& s = slot(target);
  s.mode = mode;
  s.terms.push_back(term);
  if (trace_) trace_->writes.push_back(std::move(why));
}

void OutputBuilder::reset_to_zero(const Shape& target) { slot(target).zeroed = true; }

void OutputBuilder::resolve(int64_t linear, const Slot& s, ExpectedTensor& out) {
  const DType t = initial_.dtype();
  std::byte* p = out.exact.element_ptr(linear);
  const std::string where = name_ + format_index([&] {
    Shape idx(initial_.shape().size());
    int64_t rest = linear;
    for (size_t d = idx.size(); d-- > 0;) {
      idx[d] = rest % initial_.shape()[d];
      rest /= initial_.shape()[d];
    }
    return idx;
  }());
  if (!s.overwrites.empty()) {
    // Visit order: the last writer is the reference's representative.
    store_bits(t, p, s.overwrites.back());
    std::vector<uint64_t> distinct;
    for (uint64_t b : s.overwrites)
      if (std::find(distinct.begin(), distinct.end(), b) == distinct.end()) distinct.push_back(b);
    if (distinct.size() > 1) {
      ElementAllowed a;
      a.bits = distinct;
      a.why = std::to_string(s.overwrites.size()) + " writers to one element: any may win";
      if (trace_) trace_->finals.push_back(where + ": " + a.describe(t));
      out.loose[linear] = std::move(a);
    }
    return;
  }
  const Value start = s.zeroed ? Value{is_floating(t), 0, 0.0} : value_from_bits(t, load_bits(t, p));
  if (s.terms.empty()) {  // zeroed, never accumulated into
    store_bits(t, p, bits_from_value(t, start));
    return;
  }
  // Sequential accumulation in visit order is the representative result.
  uint64_t acc = bits_from_value(t, start);
  for (const Value& term : s.terms) acc = reduce_once(t, s.mode, value_from_bits(t, acc), term);
  store_bits(t, p, acc);
  if (!is_floating(t)) return;  // integral and bool reductions are exact in any order
  if (s.terms.size() == 1) {
    if (bits_is_nan(t, acc)) {
      ElementAllowed a;
      a.any_nan = true;
      a.why = "a computed NaN: its payload is not specified";
      out.loose[linear] = std::move(a);
    }
    return;
  }
  std::vector<double> terms;
  terms.reserve(s.terms.size() + 1);
  terms.push_back(start.f);
  for (const Value& term : s.terms) terms.push_back(term.f);
  ElementAllowed a = float_reduction_bounds(t, s.mode, terms);
  a.why = std::to_string(s.terms.size()) + " " + mode_name(s.mode) + " terms in an unspecified order";
  if (trace_) trace_->finals.push_back(where + ": " + a.describe(t));
  out.loose[linear] = std::move(a);
}

ExpectedTensor OutputBuilder::finish() {
  ExpectedTensor out;
  out.name = name_;
  out.exact = initial_.clone_storage();
  for (const auto& [linear, s] : slots_) resolve(linear, s, out);
  return out;
}

}  // namespace sp
