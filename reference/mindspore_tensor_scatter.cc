// mindspore_tensor_scatter.cc — ops.tensor_scatter_{update, add, sub, mul,
// div, max, min}(input_x, indices, updates) -> out: one reference for the
// seven entries, the combiner f the id's last word (tensor_scatter_combiner).
//
// Formula (MS-TS1; "output[indices] = input_x + updates" and its siblings),
// k = indices.shape[-1]:
//   out = copy of input_x
//   for idx in ndindex(indices.shape[:-1]):
//     out[tuple(indices[idx])] = f(out[tuple(indices[idx])], updates[idx])
// f: update "=", add "+", sub "-", mul "*", div "/", max, min; a tuple of
// length k < rank addresses the slice input_x.shape[k:].
//
// Checks, in the order they run (all run; every violation is collected;
// the later ones only where the rules they read passed):
//   MS-TS2  indices int32 or int64
//   MS-TS3  rank(indices) >= 2
//   MS-TS4  k <= rank(input_x)
//   MS-TS5  updates dtype == input_x dtype
//   MS-TS6  updates.shape == indices.shape[:-1] ++ input_x.shape[k:]
//   MS-TS8  (CPU; not mul) every index value in [0, s): index_out_of_bounds
// What the pages leave undefined: MS-TS7 a bool input_x under a combiner
// other than update and MS-TS12 div with a zero in updates (or an integer
// input_x's minimum divided by -1), whatever else the call breaks. MS-TS9: mul drops a tuple with
// a value outside [0, s) (every device). Duplicates: MS-TS10 (update: one
// of the writers), MS-TS11 (add, sub, mul: accumulated in any order; sub
// adds the negated update, exact), MS-TS12 (div: any order of the divisions,
// each rounded in the dtype or all in a wider one; integers truncate or
// floor), MS-TS13 (max / min: an element with a NaN term is unspecified).
// MS-TS14: every answer for an input_x without elements carries a note.
// Source: MindSpore 2.10.0's docstrings (the r2.10 pages), see the entries.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "reference/dialect_mindspore_nd.h"
#include "reference/dialect_onnx_nd.h"
#include "reference/nd_slices.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {
namespace {

namespace rules = ref::mindspore_nd_rules;

// Row-major position of `pos` in `shape`.
int64_t linear_of(const Shape& shape, const Shape& pos) {
  int64_t l = 0;
  for (size_t d = 0; d < shape.size(); ++d) l = l * shape[d] + pos[d];
  return l;
}

Value negated(DType t, Value v) {
  if (is_floating(t)) return Value::of_float(-v.f);
  return value_from_bits(t, bits_from_value(t, Value::of_int(static_cast<int64_t>(0ULL - static_cast<uint64_t>(v.i)))));
}

// What `x / d[0] / d[1] / ...` may give (MS-TS12): integers truncate or
// floor (order-free); floats: every order of the divisions, each rounded
// in t, or in float64 and rounded once to t (exact for t float64). More
// than 6 divisors: not enumerated, any value.
ElementAllowed division_allowed(DType t, Value x, std::vector<Value> d) {
  ElementAllowed a;
  if (!is_floating(t)) {
    for (bool floor_mode : {false, true}) {
      int64_t q = x.i;  // |values| < 2^63 and no int-min / -1 (checked): exact in int64
      for (const Value& v : d) {
        const int64_t r = q / v.i;
        q = floor_mode && (q % v.i != 0) && ((q < 0) != (v.i < 0)) ? r - 1 : r;
      }
      a.bits.push_back(bits_from_value(t, Value::of_int(q)));
    }
  } else if (d.size() > 6) {
    a.unspecified = true;
    a.why = "MS-TS12: " + std::to_string(d.size()) + " divisions into one element (not enumerated)";
    return a;
  } else {
    std::sort(d.begin(), d.end(), [](const Value& p, const Value& q) { return p.f < q.f; });
    do {
      double in_t = x.f, wide = x.f;
      for (const Value& v : d) {
        in_t = value_from_bits(t, bits_from_value(t, Value::of_float(in_t / v.f))).f;
        wide /= v.f;
      }
      for (double r : {in_t, value_from_bits(t, bits_from_value(t, Value::of_float(wide))).f}) {
        if (std::isnan(r))
          a.any_nan = true;
        else
          a.bits.push_back(bits_from_value(t, Value::of_float(r)));
      }
    } while (std::next_permutation(d.begin(), d.end(), [](const Value& p, const Value& q) { return p.f < q.f; }));
  }
  std::sort(a.bits.begin(), a.bits.end());
  a.bits.erase(std::unique(a.bits.begin(), a.bits.end()), a.bits.end());
  a.why = "MS-TS12: " + std::to_string(d.size()) + " divisions in any order";
  return a;
}

// Calls visit(value) for every element of t.
template <class F>
void for_each_value(const Tensor& t, F visit) {
  if (t.numel() == 0) return;
  Shape pos(static_cast<size_t>(t.rank()), 0);
  do visit(t.value_at(pos));
  while (next_index(pos, t.shape()));
}

std::optional<std::string> undefined_division(const Tensor& input, const Tensor& updates) {
  const DType t = input.dtype();
  bool zero = false, minus_one = false, minimum = false;
  for_each_value(updates, [&](const Value& v) {
    zero = zero || v.as_double() == 0.0;
    minus_one = minus_one || (!is_floating(t) && !v.is_unsigned && v.i == -1);
  });
  if (zero) return "MS-TS12: updates holds a 0 (\"the user needs to make sure there is no 0 value in updates\")";
  const bool is_signed = t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64;
  if (minus_one && is_signed)
    for_each_value(input, [&](const Value& v) { minimum = minimum || v.i == dtype_int_min(t); });
  if (minimum) return "MS-TS12: input_x holds its dtype's minimum and updates a -1 (the quotient overflows)";
  return std::nullopt;
}

// The writes (MS-TS1), once the call is valid: out = input_x, then every
// index tuple's slice combined by f (MS-TS9..MS-TS13).
Expectation writes(const std::string& f, const Tensor& input, const Tensor& indices, const Tensor& updates,
                   Trace* trace) {
  const int64_t k = indices.shape().back();
  const Shape lead(indices.shape().begin(), indices.shape().end() - 1);
  const Shape slice(input.shape().begin() + k, input.shape().end());
  const DType t = input.dtype();
  const ReduceMode mode = f == "update"              ? ReduceMode::None
                          : f == "add" || f == "sub" ? ReduceMode::Add
                          : f == "mul"               ? ReduceMode::Multiply
                          : f == "max"               ? ReduceMode::Max
                                                     : ReduceMode::Min;
  OutputBuilder out("out", input, trace);
  std::map<int64_t, std::vector<Value>> divisors;  // div: each element's divisors, in visit order
  std::set<int64_t> nan_terms;                     // max / min: elements a NaN is combined into
  int dropped = 0;
  ref::nd::for_each_position(lead, [&](const Shape& pos) {
    if (!rules::tuple_in_range(input.shape(), indices, pos)) {
      ++dropped;  // MS-TS9 (mul): the tuple's updates are not applied
      return;
    }
    Shape target_base, at_base = pos;
    for (int64_t j = 0; j < k; ++j) {
      Shape c = pos;
      c.push_back(j);
      target_base.push_back(ref::read_index(indices, c));
    }
    const int64_t first = target_base.empty() ? 0 : target_base[0];
    ref::nd::for_each_position(slice, [&](const Shape& s) {
      Shape target = target_base, at = at_base;
      target.insert(target.end(), s.begin(), s.end());
      at.insert(at.end(), s.begin(), s.end());
      const WriteOrigin from{"updates", &updates, &at, &pos, first};
      Value v = updates.value_at(at);
      if (f == "update")
        out.overwrite(target, updates.bits_at(at), from);
      else if (f == "div")
        divisors[linear_of(input.shape(), target)].push_back(v);
      else {
        if ((f == "max" || f == "min") && is_floating(t) && (std::isnan(v.f) || std::isnan(input.value_at(target).f)))
          nan_terms.insert(linear_of(input.shape(), target));
        out.reduce(target, mode, f == "sub" ? negated(t, v) : v, from);
      }
    });
  });
  ExpectedTensor result = out.finish();
  for (const int64_t l : nan_terms) {
    ElementAllowed any;
    any.unspecified = true;
    any.why = "MS-TS13: " + f + " with a NaN term (the page defines max / min on numbers)";
    result.loose[l] = any;
  }
  for (const auto& [l, d] : divisors) {
    std::byte* p = result.exact.element_ptr(l);  // exact is contiguous: linear l
    ElementAllowed a = division_allowed(t, value_from_bits(t, load_bits(t, p)), d);
    if (!a.bits.empty()) store_bits(t, p, a.bits.front());
    result.loose[l] = std::move(a);
  }
  std::vector<Note> notes;
  if (dropped > 0) notes.push_back({"MS-TS9", std::to_string(dropped) + " index tuple(s) outside [0, s) dropped"});
  if (mode != ReduceMode::None)
    notes.push_back({"MS-TS11", "tensor_scatter_" + f + ": duplicates accumulate in any order"});
  return ref::outputs_expectation({std::move(result)}, std::move(notes));
}

}  // namespace

Expectation mindspore_tensor_scatter(const OpCall& call, Trace* trace) {
  const std::string f = rules::tensor_scatter_combiner(call.op);
  const Tensor& input = *call.tensor("input_x");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  ref::RuleLog log(trace);

  const bool dtype_ok = rules::indices_int32_or_64(log, "MS-TS2", indices);
  const bool rank_ok = rules::indices_rank_at_least_two(log, "MS-TS3", indices);
  rules::updates_dtype_matches(log, "MS-TS5", input, updates);
  bool tuple_ok = rank_ok && rules::tuple_length_within(log, "MS-TS4", indices.shape().back(), input.rank());
  if (tuple_ok) tuple_ok = rules::updates_shape(log, "MS-TS6", input.shape(), indices, updates);
  if (f != "mul" && rank_ok && dtype_ok && indices.shape().back() <= input.rank())
    if (auto o = rules::first_value_out_of_range(input.shape(), indices))
      log.check(false, "MS-TS8", *o, ErrorCategory::IndexOutOfBounds, *o);
  // MS-TS14: an input_x without elements is a note on every answer, the
  // unspecified ones included (campaigns key by it); so is MS-TS7 for an
  // int8 or uint8 input_x under div, a number type the pages allow.
  const auto noted = [&](Expectation e) {
    if (input.numel() == 0) e.notes.push_back({"MS-TS14", "input_x has no element: every rule still applies"});
    if (f == "div" && (input.dtype() == DType::Int8 || input.dtype() == DType::UInt8))
      e.notes.push_back({"MS-TS7", "an " + std::string(dtype_name(input.dtype())) +
                                       " input_x under div: a number type, which MS-TS7 allows"});
    return e;
  };
  // No arithmetic on bool is defined (MS-TS7): the whole call, whatever
  // else it breaks.
  if (f != "update" && input.dtype() == DType::Bool)
    return noted(ref::unspecified_expectation(
        "MS-TS7: a bool input_x under tensor_scatter_" + f + " (no arithmetic on bool)", trace));
  // So is a division by 0 (MS-TS12: "the user needs to make sure"), a
  // precondition of every call.
  if (f == "div")
    if (auto why = undefined_division(input, updates)) {
      Expectation e = ref::unspecified_expectation(*why, trace);
      e.notes.push_back({"MS-TS12", *why});  // campaigns key by it: an unspecified call still may not crash (C-2)
      return noted(std::move(e));
    }
  if (!log.passed()) return noted(log.error_expectation());
  return noted(writes(f, input, indices, updates, trace));
}

}  // namespace sp
