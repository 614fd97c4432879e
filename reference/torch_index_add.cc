// torch_index_add.cc — Tensor.index_add_(dim, index, source, *, alpha=1)
// (in place, writes self) and torch.index_add(input, dim, index, source, *,
// alpha=1) (out of place: out = a copy of self, then the same additions;
// self is unchanged, T-IA12).
//
// Formula (the document's listing; clause T-IA1), for a 3-D tensor:
//   self[index[i], :, :] += alpha * src[i, :, :]  # if dim == 0
//   self[:, index[i], :] += alpha * src[:, i, :]  # if dim == 1
//   self[:, :, index[i]] += alpha * src[:, :, i]  # if dim == 2
// A 0-d self counts as shape [1] and a 0-d index as [index] (T-D2). An
// element no index value points at keeps self's bits.
//
// Checks, in the order they run (LibTorch 1.13's order; all run and every
// violation is collected):
//   T-D1   dim in [-r, r), r = logical rank of self
//   T-IA2  index is a vector (rank <= 1), also when empty
//   T-IA3  index dtype is int32 or int64, also when empty
//   T-IA4  source dtype == self dtype
//   T-IA5  dim == 0 or dim < source's rank
//   T-IA6  len(index) == source.size(dim) (1 for a 0-d source)
//   T-O1   in place only: self has no internal overlap
//   T-IA7  an empty index adds nothing: for a self of rank >= 2 nothing
//          below runs; for rank <= 1 T-IA9 still runs (LibTorch converts
//          alpha before its loop there)
//   T-IA14 torch >= 2.3 only (reference/versions.h): source's physical
//          shape apart from dim equals self's, also for an empty index;
//          it replaces T-IA8 and the empty-index exemption of T-IA7
//   T-IA8  source's shape is self's with dim replaced by len(index)
//          (logical shapes); LibTorch 1.13 CPU accepts a source whose slices
//          broadcast to self's (T-IA13), the document does not
//   T-IA9  alpha converts to self's dtype like scatter_'s value (T-V1):
//          int alpha truncates a float (2.5 -> 2 for int64), bool is 0/1,
//          a value outside the dtype is value_out_of_range
//   T-IA10 every index value in [0, self.size(dim)); negative values do not
//          wrap. Runs when the checks above T-IA9 pass (a call breaking both
//          T-IA9 and T-IA10 may report either: LibTorch's order depends on
//          self's rank and on which position is bad); for a rank >= 2 self
//          of size 0 along dim also despite T-IA8 (either may be reported)
// Visit order: index positions in order, each adding alpha * source's slice
// i to self's slice index[i]. The term (T-IA11): integers alpha * source
// wrapped in self's dtype; bool source && alpha (the add is or); floats
// either alpha * source rounded to self's dtype then added (LibTorch's 1-D
// loop) or the exact product added with one rounding (its vectorised
// a + alpha * b, an fma): where the two differ, the element's result is an
// interval covering both (float_bounds over the smaller and the larger
// product), else as scatter_add_ (one op exact, >= 2 ops an interval).
// Source: PyTorch documentation, torch.Tensor.index_add_ and torch.index_add
// ("See index_add_() for function description"), PyTorch 1.13:
// https://pytorch.org/docs/1.13/generated/torch.Tensor.index_add_.html. The
// 1.13 page is not stored; the text was read from the stable page (.../docs/
// stable/generated/torch.Tensor.index_add_.html) and the 1.10 one, which
// agree; its example gives the printed results on LibTorch 1.13.1. Where the
// page is silent: LibTorch 1.13.1 (Debian), measured (reference/SEMANTICS.md).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "reference/dialect_torch.h"
#include "reference/float_bounds.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"
#include "reference/semantics_common.h"

namespace sp {
namespace {

// The exact real product lies in [lo, hi] (both exact doubles).
struct Product {
  double rounded = 0.0;  // alpha * source rounded to the dtype
  double lo = 0.0, hi = 0.0;
  // The rounded product is ±inf but the exact one is finite: fused (fma)
  // evaluation keeps a finite term, so the sum can be finite, ±inf or NaN
  // depending on which terms are fused and the order (T-IA11).
  bool overflows = false;
};

// The sign of (alpha * s, exactly) - d, for d = alpha * s rounded to a
// double. fma(alpha, s, -d) is that difference only where it is
// representable: where the product is subnormal (or underflows to zero) the
// difference is below the smallest subnormal and the fma rounds it to 0, so
// 1.5 * 5e-324 (rounded: 1e-323) would pass for exact. Here the significands
// are multiplied apart from the exponents, where nothing underflows.
int product_error_sign(double alpha, double s, double d) {
  int ea = 0, es = 0;
  const double ma = std::frexp(alpha, &ea), ms = std::frexp(s, &es);  // |m| in [0.5, 1) or 0
  const double pm = ma * ms;
  const double em = std::fma(ma, ms, -pm);      // exact: pm + em = ma * ms
  const double ds = std::ldexp(d, -(ea + es));  // exact: d's significand on pm's scale
  const double diff = (pm - ds) + em;           // pm - ds exact (Sterbenz, or ds = 0)
  return (diff > 0) - (diff < 0);
}

Product float_product(DType t, double alpha, double s) {
  Product p;
  const double d = alpha * s;  // the product rounded to a double (alpha may have 53 bits)
  p.rounded = value_from_bits(t, bits_from_value(t, Value::of_float(d))).f;
  p.overflows = std::isinf(p.rounded) && std::isfinite(alpha) && std::isfinite(s);
  p.lo = p.hi = d;
  if (std::isfinite(d)) {
    const int err = product_error_sign(alpha, s, d);  // sign of the exact product - d
    if (err > 0) p.hi = std::nextafter(d, INFINITY);
    if (err < 0) p.lo = std::nextafter(d, -INFINITY);
  }
  if (std::isnan(p.rounded) || std::isnan(d)) return p;
  p.lo = std::min(p.lo, p.rounded);
  p.hi = std::max(p.hi, p.rounded);
  return p;
}

// The union of two allowed sets as one set: bits when neither has an
// interval, else the interval hull of both (NaN kept apart).
ElementAllowed hull(DType t, const ElementAllowed& a, const ElementAllowed& b) {
  ElementAllowed r;
  r.unspecified = a.unspecified || b.unspecified;
  r.any_nan = a.any_nan || b.any_nan;
  if (!a.has_interval && !b.has_interval) {
    r.bits = a.bits;
    for (uint64_t x : b.bits)
      if (std::find(r.bits.begin(), r.bits.end(), x) == r.bits.end()) r.bits.push_back(x);
    return r;
  }
  bool any = false;
  const auto extend = [&](double lo, double hi) {
    r.lo = any ? std::min(r.lo, lo) : lo;
    r.hi = any ? std::max(r.hi, hi) : hi;
    any = true;
  };
  for (const ElementAllowed* e : {&a, &b}) {
    // A bound that overflowed to NaN (inf - inf) leaves that side open.
    if (e->has_interval) extend(std::isnan(e->lo) ? -INFINITY : e->lo, std::isnan(e->hi) ? INFINITY : e->hi);
    for (uint64_t x : e->bits) {
      if (bits_is_nan(t, x)) {
        r.any_nan = true;
        continue;
      }
      const double v = value_from_bits(t, x).as_double();
      extend(v, v);
    }
  }
  r.has_interval = any;
  return r;
}

// The multi-index of row-major linear index `linear` in `shape`.
Shape row_major_position(int64_t linear, const Shape& shape) {
  Shape p(shape.size(), 0);
  for (size_t d = p.size(); d-- > 0;) {
    p[d] = linear % shape[d];
    linear /= shape[d];
  }
  return p;
}

// The notes of an answer: T-IA7 an empty index, T-IA12 out of place, T-IA9
// a float alpha converted to an integer self (where Inductor's
// decomposition refuses what eager truncates; compiled entries key by it).
std::vector<Note> add_notes(bool empty, bool in_place, bool float_alpha_truncated) {
  std::vector<Note> notes;
  if (empty) notes.push_back(Note{"T-IA7", "empty index, no-op (LibTorch 1.13)"});
  if (!in_place) notes.push_back(Note{"T-IA12", "out-of-place, out = copy of self then the additions"});
  if (float_alpha_truncated) notes.push_back(Note{"T-IA9", "a float alpha converted to self's integer dtype"});
  return notes;
}

}  // namespace

Expectation torch_index_add(const OpCall& call, Trace* trace) {
  namespace rules = ref::torch_rules;
  const OpSpec& op = op_spec(call);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& source = *call.tensor("source");
  const int64_t dim_arg = *call.int_arg("dim");
  const Scalar alpha = op.arg_or_default(call, "alpha")->scalar;  // default 1
  ref::RuleLog log(trace);

  const auto [dim_ok, dim, vector, physical_shape] =
      rules::index_add_meta(log, self, index, source, dim_arg, op.in_place, call.framework_version);
  const bool empty = index.numel() == 0;
  const bool high_rank = self.rank() >= 2;
  const bool before_shape_ok = log.passed();
  if (!physical_shape && !empty && dim_ok && vector && before_shape_ok)
    rules::index_add_source_shape(log, self, index, source, dim);
  const bool arguments_ok = log.passed();
  const bool alpha_runs = arguments_ok && (!empty || !high_rank);
  if (alpha_runs && rules::value_conversion_is_undefined(alpha, self.dtype()))
    return ref::unspecified_expectation(
        "T-IA9: converting alpha " + alpha.to_string() + " to int64 is undefined behaviour in c10", trace);
  std::optional<uint64_t> alpha_bits;
  if (alpha_runs) alpha_bits = rules::index_add_alpha(log, alpha, self.dtype());
  // The bounds rule runs whenever the values can be compared with a bound
  // (C-1: a call breaking several rules may report any of them).
  if (dim_ok && !empty && ref::index_values_readable(index))
    rules::index_add_values_in_bounds(log, index, ref::logical_size(self, dim));
  if (!log.passed()) return rules::with_undetected_overlap(log.error_expectation(), op.in_place, self);
  if (op.in_place)
    if (const auto reason = rules::undetected_overlap(self)) return ref::unspecified_expectation(*reason, trace);

  OutputBuilder out(op.output, self, trace);
  std::vector<Note> notes =
      add_notes(empty, op.in_place, alpha_bits && alpha.kind == Scalar::Kind::Float && !is_floating(self.dtype()));
  if (empty) return ref::outputs_expectation({out.finish()}, std::move(notes));

  const DType t = self.dtype();
  const Value alpha_v = value_from_bits(t, *alpha_bits);
  const bool floating = is_floating(t);
  // Float elements whose terms' rounded and exact products differ: their
  // terms as [lo, hi] pairs (T-IA11).
  std::map<int64_t, std::pair<std::vector<double>, std::vector<double>>> widened;
  bool some_inexact = false;
  std::set<int64_t> overflowing;  // elements with a term that overflows only when rounded
  const Shape self_logical = ref::logical_shape(self);
  // self[..., index[i], ...] += alpha * source[..., i, ...] over every position of
  // source's logical slice i, i in order (T-IA1).
  ref::for_each_slice_position(
      index, source, dim, [&](const ref::IndexPosition& p, const Shape& at, const Shape& target_logical) {
        const Shape target = ref::physical_index(self, target_logical);
        const Value s = source.value_at(at);
        Value term;
        if (t == DType::Bool) {
          term = Value::of_int((s.i != 0 && alpha_v.i != 0) ? 1 : 0);
        } else if (!floating) {
          const uint64_t product = static_cast<uint64_t>(alpha_v.i) * static_cast<uint64_t>(s.i);  // wraps
          term = value_from_bits(t, bits_from_value(t, Value::of_int(static_cast<int64_t>(product))));
        } else {
          const Product product = float_product(t, alpha_v.f, s.f);
          term = Value::of_float(product.rounded);
          int64_t linear = 0;
          for (size_t d = 0; d < self_logical.size(); ++d) linear = linear * self_logical[d] + target_logical[d];
          auto& [lo, hi] = widened[linear];
          lo.push_back(product.lo);
          hi.push_back(product.hi);
          if (product.lo != product.hi) some_inexact = true;
          if (product.overflows) overflowing.insert(linear);
        }
        out.reduce(target, ReduceMode::Add, term, ref::read_from(p, "source", source, at));
      });
  ExpectedTensor result = out.finish();
  if (some_inexact) {
    notes.push_back(Note{"T-IA11", "alpha * source rounded to the dtype or exact (fma): intervals cover both"});
    for (auto& [linear, terms] : widened) {
      auto& [lo, hi] = terms;
      bool differ = false;
      for (size_t k = 0; k < lo.size(); ++k) differ |= lo[k] != hi[k];
      if (!differ) continue;
      const Shape pos = row_major_position(linear, self_logical);
      const double own = self.value_at(ref::physical_index(self, pos)).f;
      std::vector<double> lo_terms{own}, hi_terms{own};
      lo_terms.insert(lo_terms.end(), lo.begin(), lo.end());
      hi_terms.insert(hi_terms.end(), hi.begin(), hi.end());
      ElementAllowed allowed = hull(t, float_reduction_bounds(t, ReduceMode::Add, lo_terms),
                                    float_reduction_bounds(t, ReduceMode::Add, hi_terms));
      allowed.why = "T-IA11: " + std::to_string(lo.size()) +
                    " term(s) alpha * source, each rounded to the dtype or exact; any order";
      result.loose[linear] = std::move(allowed);
    }
  }
  for (int64_t linear : overflowing) {
    ElementAllowed anything;
    anything.unspecified = true;
    anything.why = "T-IA11: a term alpha * source overflows the dtype when rounded but not when fused (fma): any value";
    result.loose[linear] = std::move(anything);
  }
  if (!overflowing.empty())
    notes.push_back(
        Note{"T-IA11", std::to_string(overflowing.size()) +
                           " element(s) with a term alpha * source that overflows only when rounded: unspecified"});
  return ref::outputs_expectation({std::move(result)}, std::move(notes));
}

}  // namespace sp
