#include "harness/comparator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

std::string_view verdict_name(Verdict::Kind k) {
  switch (k) {
    case Verdict::Kind::Pass:
      return "pass";
    case Verdict::Kind::Fail:
      return "fail";
    case Verdict::Kind::Unsupported:
      return "unsupported";
    case Verdict::Kind::Crash:
      return "crash";
    case Verdict::Kind::Timeout:
      return "timeout";
    case Verdict::Kind::Error:
      return "error";
    case Verdict::Kind::XFail:
      return "xfail";
    case Verdict::Kind::XPass:
      return "xpass";
    case Verdict::Kind::Unclassified:
      return "unclassified";
    case Verdict::Kind::NotApplicable:
      return "not_applicable";
    case Verdict::Kind::DeviceAssert:
      return "device_assert";
  }
  return "?";
}

std::string_view failure_name(Verdict::Failure f) {
  switch (f) {
    case Verdict::Failure::Other:
      return "other";
    case Verdict::Failure::InputModified:
      return "input_modified";
    case Verdict::Failure::SelfModifiedOnError:
      return "self_modified_on_error";
  }
  return "?";
}

std::optional<Verdict::Kind> verdict_from_name(std::string_view name) {
  for (Verdict::Kind k : kAllVerdictKinds)
    if (verdict_name(k) == name) return k;
  return std::nullopt;
}

bool verdict_is_unexpected(Verdict::Kind k) {
  switch (k) {
    case Verdict::Kind::Fail:
    case Verdict::Kind::Crash:
    case Verdict::Kind::Timeout:
    case Verdict::Kind::Error:
    case Verdict::Kind::XPass:
    case Verdict::Kind::Unclassified:
    case Verdict::Kind::DeviceAssert:
      return true;
    default:
      return false;
  }
}

namespace {

std::string error_list(const std::vector<ErrorCategory>& errors) {
  std::string s;
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i) s += i + 1 == errors.size() ? " or " : ", ";
    s += error_name(errors[i]);
  }
  return s;
}

struct Mismatch {
  Shape index;
  int64_t linear = 0;
  uint64_t bits = 0;
};

// The one per-element check: is `bits` (of dtype `t`, at `idx`, row-major
// `linear`) allowed by `expected`? With atol > 0 a floating element also
// passes when it lies within atol of the reference's exact value; an integral
// one never does: integers compare by exact bits (as doubles, uint64 and
// int64 values above 2^53 that differ would compare equal).
bool element_allowed(const ExpectedTensor& expected, DType t, const Shape& idx, int64_t linear, uint64_t bits,
                     double atol) {
  if (expected.allows(linear, bits)) return true;
  if (atol <= 0 || !is_floating(t)) return false;
  const double got = value_from_bits(t, bits).as_double();
  const double want = value_from_bits(t, expected.exact.bits_at(idx)).as_double();
  return std::isfinite(got) && std::isfinite(want) && std::fabs(got - want) <= atol;
}

// As first_disallowed below, for a contiguous `actual` and no atol: blocks
// of bytes equal to the reference's exact ones pass at once (a huge case's
// 2^31 elements in a second), only a differing block is read element by
// element.
std::optional<Mismatch> first_disallowed_contiguous(const ExpectedTensor& expected, const Tensor& actual) {
  const DType t = actual.dtype();
  const size_t size = dtype_size(t);
  const int64_t n = actual.numel();
  const std::byte* got = actual.element_ptr(actual.offset());
  const std::byte* want = expected.exact.element_ptr(expected.exact.offset());
  constexpr int64_t kBlock = 4096;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    const size_t from = static_cast<size_t>(start) * size, bytes = static_cast<size_t>(end - start) * size;
    if (std::memcmp(got + from, want + from, bytes) == 0) continue;
    for (int64_t linear = start; linear < end; ++linear) {
      const uint64_t bits = load_bits(t, got + static_cast<size_t>(linear) * size);
      if (expected.allows(linear, bits)) continue;
      Shape idx(actual.shape().size(), 0);
      for (size_t d = idx.size(), rest = static_cast<size_t>(linear); d-- > 0;) {
        idx[d] = static_cast<int64_t>(rest % static_cast<size_t>(actual.shape()[d]));
        rest /= static_cast<size_t>(actual.shape()[d]);
      }
      return Mismatch{idx, linear, bits};
    }
  }
  return std::nullopt;
}

// The first element of `actual` (row-major logical order) that `expected`
// does not allow. With atol > 0 an element also passes when it lies within
// atol of the reference's exact value (documents print rounded values).
std::optional<Mismatch> first_disallowed(const ExpectedTensor& expected, const Tensor& actual, double atol) {
  if (actual.numel() <= 0) return std::nullopt;
  if (atol <= 0 && actual.is_contiguous() && expected.exact.is_contiguous() && expected.exact.dtype() == actual.dtype())
    return first_disallowed_contiguous(expected, actual);
  Shape idx(actual.shape().size(), 0);
  int64_t linear = 0;
  do {
    const uint64_t bits = actual.bits_at(idx);
    if (!element_allowed(expected, actual.dtype(), idx, linear, bits, atol)) return Mismatch{idx, linear, bits};
    ++linear;
  } while (next_index(idx, actual.shape()));
  return std::nullopt;
}

// "fed by index[0][1]=2 <- src[0][1]=4" for each reference write into
// `target`, or why there is none.
std::string writers_of(const OpCall& call, const Shape& target) {
  if (!find_op(call)) return "a program: `scatterproof explain` shows each step's writers";
  Trace trace;
  evaluate(call, &trace);
  std::vector<std::string> fed;
  for (const Write& w : trace.writes) {
    if (w.target != target) continue;
    std::string from =
        w.index_pos.empty() ? std::string() : fmt::format("index{}={} <- ", format_index(w.index_pos), w.index_value);
    fed.push_back(from + w.source);
  }
  if (fed.empty()) return "no writer: element should keep self's original bits";
  constexpr size_t kMaxListed = 8;
  std::string s = "fed by ";
  for (size_t i = 0; i < std::min(fed.size(), kMaxListed); ++i) s += (i ? "; " : "") + fed[i];
  if (fed.size() > kMaxListed) s += fmt::format("; and {} more", fed.size() - kMaxListed);
  return s;
}

// Compares one produced tensor with the expected one: dtype, shape, elements.
std::optional<std::string> compare_output(const OpCall& call, const ExpectedTensor& expected, const Tensor& actual,
                                          bool name_writers) {
  const Tensor& want = expected.exact;
  if (actual.dtype() != want.dtype())
    return fmt::format("output {}: dtype {} but expected {}", expected.name, dtype_name(actual.dtype()),
                       dtype_name(want.dtype()));
  if (actual.shape() != want.shape())
    return fmt::format("output {}: shape {} but expected {}", expected.name, format_shape(actual.shape()),
                       format_shape(want.shape()));
  const std::optional<Mismatch> m = first_disallowed(expected, actual, 0.0);
  if (!m) return std::nullopt;
  std::string s = fmt::format("output {}{}: allowed {}, actual {} ({})", expected.name, format_index(m->index),
                              expected.describe_allowed(m->linear), format_value(actual.dtype(), m->bits),
                              format_bits(actual.dtype(), m->bits));
  if (name_writers) s += "; " + writers_of(call, m->index);
  return s;
}

// Whether `call`'s writes add float terms into their targets (atomic adds
// on a GPU): scatter_add, index_add, a reduce of add / sum / mean, Paddle's
// overwrite=False.
bool adds_into_targets(const OpCall& call) {
  const std::string& op = call.op;
  if (op.rfind("torch.scatter_add", 0) == 0 || op.rfind("torch.index_add", 0) == 0) return true;
  if (op == "paddle.scatter") return call.bool_arg("overwrite") == false;
  const std::optional<std::string> reduce = call.string_arg("reduce");
  return reduce && (*reduce == "add" || *reduce == "sum" || *reduce == "mean");
}

// DEV-FTZ: every element of float32 `actual` that `expected` does not allow
// is ±0 where the reference's exact value is a nonzero subnormal, and is a
// target the op adds into. Then what differs is the device's flush-to-zero,
// and the detail says where; nullopt otherwise.
std::optional<std::string> flushed_to_zero_only(const OpCall& call, const ExpectedTensor& expected,
                                                const Tensor& actual) {
  if (actual.dtype() != DType::Float32 || expected.exact.dtype() != DType::Float32 ||
      actual.shape() != expected.exact.shape() || actual.numel() <= 0 || !adds_into_targets(call))
    return std::nullopt;
  Trace trace;
  evaluate(call, &trace);
  std::set<Shape> added;
  for (const Write& w : trace.writes) added.insert(w.target);
  constexpr uint32_t kExponent = 0x7f800000u, kMagnitude = 0x7fffffffu;
  Shape idx(actual.shape().size(), 0);
  int64_t linear = 0, flushed = 0;
  std::string first;
  do {
    const uint64_t bits = actual.bits_at(idx);
    if (!expected.allows(linear, bits)) {
      const uint32_t want = static_cast<uint32_t>(expected.exact.bits_at(idx));
      const bool subnormal = (want & kExponent) == 0 && (want & kMagnitude) != 0;
      if ((bits & kMagnitude) != 0 || !subnormal || !added.count(idx)) return std::nullopt;
      if (flushed++ == 0)
        first = fmt::format("{}{}: allowed {}, actual {}", expected.name, format_index(idx),
                            expected.describe_allowed(linear), format_value(actual.dtype(), bits));
    }
    ++linear;
  } while (next_index(idx, actual.shape()));
  if (!flushed) return std::nullopt;
  return fmt::format(
      "DEV-FTZ: {} float32 element(s) the op adds into hold 0 where the exact result is subnormal, as the device's "
      "float32 atomic adds flush subnormals to zero (reference/SEMANTICS.md DEV-FTZ); first: {}",
      flushed, first);
}

}  // namespace

std::optional<std::string> output_mismatch(const ExpectedTensor& expected, const Tensor& actual) {
  return compare_output(OpCall{}, expected, actual, /*name_writers=*/false);
}

std::string render_tensor_values(const Tensor& t, int64_t max_elements) {
  if (t.rank() == 0) return format_value(t.dtype(), t.bits_at({}));
  std::string s;
  const int64_t n = t.numel();
  if (n <= 0) return "[] (shape " + format_shape(t.shape()) + ")";
  Shape idx(t.shape().size(), 0);
  int64_t emitted = 0;
  do {
    // Open a bracket for every trailing dim whose index just wrapped to 0.
    size_t opens = 0;
    for (size_t d = idx.size(); d-- > 0 && idx[d] == 0;) ++opens;
    if (emitted) s += ", ";
    s.append(opens, '[');
    if (emitted == max_elements) {
      s += fmt::format("... ({} elements)", n);
      return s + std::string(t.shape().size(), ']');
    }
    s += format_value(t.dtype(), t.bits_at(idx));
    ++emitted;
    size_t closes = 0;
    for (size_t d = idx.size(); d-- > 0 && idx[d] == t.shape()[d] - 1;) ++closes;
    s.append(closes, ']');
  } while (next_index(idx, t.shape()));
  return s;
}

std::optional<OutputPicture> output_picture(const ExpectedTensor& expected, const Tensor& actual) {
  if (actual.dtype() != expected.exact.dtype() || actual.shape() != expected.exact.shape() || actual.numel() <= 0)
    return std::nullopt;
  OutputPicture p;
  p.output = expected.name;
  p.dtype = std::string(dtype_name(actual.dtype()));
  p.shape.assign(actual.shape().begin(), actual.shape().end());
  p.numel = actual.numel();
  Shape idx(actual.shape().size(), 0);
  int64_t linear = 0;
  do {
    const uint64_t bits = actual.bits_at(idx);
    p.actual.push_back(format_value(actual.dtype(), bits));
    if (!element_allowed(expected, actual.dtype(), idx, linear, bits, 0.0)) {
      p.bad.push_back(linear);
      if (p.allowed.size() < OutputPicture::kMaxAllowedTexts) p.allowed.push_back(expected.describe_allowed(linear));
    }
    ++linear;
  } while (linear < OutputPicture::kMaxPictureElements && next_index(idx, actual.shape()));
  p.bad_total = static_cast<int64_t>(p.bad.size());
  if (p.bad.empty()) return std::nullopt;
  return p;
}

std::optional<OutputPicture> output_picture(const Expectation& exp, const Outcome& out) {
  if (out.kind != Outcome::Kind::Outputs || exp.unspecified || !exp.outputs ||
      exp.outputs->size() != out.outputs.size())
    return std::nullopt;
  for (size_t i = 0; i < out.outputs.size(); ++i)
    if (std::optional<OutputPicture> p = output_picture((*exp.outputs)[i], out.outputs[i])) return p;
  return std::nullopt;
}

namespace {

// The verdict of the side-effect checks, if they find something.
std::optional<Verdict> side_effect_verdict(const OpCall& before, const OpCall& after, bool no_write,
                                           const std::string& prefix = {}) {
  std::optional<SideEffect> bad = side_effect_violation(before, after, no_write);
  if (!bad) return std::nullopt;
  return Verdict::fail(bad->failure, prefix + bad->detail);
}

// Says, in a verdict's detail, that the side effects could not be seen.
Verdict noting_unobservable(Verdict v, const Outcome& out) {
  if (out.side_effects_unobservable.empty()) return v;
  v.detail +=
      (v.detail.empty() ? "" : "; ") + std::string("side effects not observable: ") + out.side_effects_unobservable;
  return v;
}

Verdict judge_outcome(const OpCall& before, const Expectation& exp, const Outcome& out, const OpCall& after,
                      const std::string& device) {
  switch (out.kind) {
    case Outcome::Kind::Crash:
      return {Verdict::Kind::Crash, out.message};
    case Outcome::Kind::DeviceAssert:
      // The kernel detected the call's problem, asynchronously, and the
      // context died with it (SEMANTICS.md "Devices"): never a pass where
      // the document says what happens, whatever it says.
      if (exp.unspecified) return Verdict::pass("unspecified call; a device kernel asserted: " + out.message);
      if (exp.errors.empty())
        return {Verdict::Kind::DeviceAssert, "expected outputs; a device kernel asserted: " + out.message};
      return {Verdict::Kind::DeviceAssert,
              fmt::format("expected error {}{}; a device kernel asserted instead: {}", error_list(exp.errors),
                          exp.error_clause.empty() ? "" : " (" + exp.error_clause + ")", out.message)};
    case Outcome::Kind::Timeout:
      return {Verdict::Kind::Timeout, out.message};
    case Outcome::Kind::HarnessError:
      return Verdict::error(out.message);
    case Outcome::Kind::Unsupported:
      if (auto bad = side_effect_verdict(before, after, /*no_write=*/false, "unsupported, but ")) return *bad;
      return {Verdict::Kind::Unsupported, out.message};
    case Outcome::Kind::Error: {
      // SE-2 covers an in-place self; a given out= may hold anything after
      // an error (LibTorch copies self into it before converting value).
      const bool no_write = promises_no_write_on_error(exp) && is_inplace_op(after);
      if (auto bad = side_effect_verdict(before, after, no_write)) return *bad;
      // An error the backend's classifier cannot place: its own outcome,
      // whatever the reference allows (harness/verdict.h).
      if (!out.error) return {Verdict::Kind::Unclassified, "unclassified error: " + out.message};
      const std::string got = std::string(error_name(*out.error));
      if (exp.unspecified) return Verdict::pass(fmt::format("unspecified call; got error {}", got));
      if (out.error && exp.allows_error(*out.error)) return Verdict::pass();
      if (exp.errors.empty()) return Verdict::fail(fmt::format("expected outputs, got error {}: {}", got, out.message));
      return Verdict::fail(fmt::format("expected error {}, got {}: {}", error_list(exp.errors), got, out.message));
    }
    case Outcome::Kind::Outputs:
      break;
  }
  if (auto bad = side_effect_verdict(before, after, /*no_write=*/false)) return *bad;
  if (exp.unspecified) return Verdict::pass("unspecified call; got outputs");
  if (!exp.outputs) return Verdict::fail(fmt::format("expected error {}, got outputs", error_list(exp.errors)));
  const std::vector<ExpectedTensor>& want = *exp.outputs;
  if (out.outputs.size() != want.size())
    return Verdict::fail(fmt::format("expected {} output(s), got {}", want.size(), out.outputs.size()));
  // A device's flush-to-zero (DEV-FTZ) is reported once every other check passed.
  std::optional<std::string> flushed;
  const auto wrong = [&](const ExpectedTensor& expected, const Tensor& actual) -> std::optional<std::string> {
    std::optional<std::string> bad = compare_output(before, expected, actual, /*name_writers=*/true);
    if (!bad || device.empty()) return bad;
    std::optional<std::string> ftz = flushed_to_zero_only(before, expected, actual);
    if (!ftz) return bad;
    if (!flushed) flushed = std::move(ftz);
    return std::nullopt;
  };
  for (size_t i = 0; i < want.size(); ++i)
    if (auto bad = wrong(want[i], out.outputs[i])) return Verdict::fail(*bad);
  // An in-place op must leave its result in the caller's self, and a
  // correctly shaped out= must hold it, not only what the op returns.
  const std::string written = written_operand(after);
  const Tensor* target = written.empty() ? nullptr : after.tensor(written);
  if (target && want.size() == 1 && target->shape() == want.front().exact.shape())
    if (auto bad = wrong(want.front(), *target))
      return Verdict::fail((is_inplace_op(after) ? "in-place op did not update self: "
                                                 : "the result was not written into the given out: ") +
                           *bad);
  if (flushed) {
    Verdict v = Verdict::fail(*flushed);
    v.clause = "DEV-FTZ";
    return v;
  }
  return Verdict::pass();
}

}  // namespace

Verdict judge(const OpCall& before, const Expectation& exp, const Outcome& out, const OpCall& after,
              const std::string& device) {
  Verdict v = judge_outcome(before, exp, out, after, device);
  switch (out.kind) {
    case Outcome::Kind::Outputs:
    case Outcome::Kind::Error:
    case Outcome::Kind::Unsupported:
      return noting_unobservable(std::move(v), out);
    default:
      return v;
  }
}

namespace {

// Is the document's tensor allowed by the reference's output?
// `which`: the output it is (a backward's gradients are several).
std::optional<std::string> document_tensor_rejected(const Case& c, const Expectation& exp, const Tensor& doc,
                                                    double atol, size_t which = 0) {
  const size_t count = std::max<size_t>(c.expect.output_names.size(), 1);
  if (!exp.outputs || exp.outputs->size() != count || which >= count)
    return fmt::format("reference gives {}", exp.summary());
  const ExpectedTensor& want = (*exp.outputs)[which];
  if (!c.expect.output_names.empty() && want.name != c.expect.output_names[which])
    return fmt::format("the document gives {} where the reference's output is {}", c.expect.output_names[which],
                       want.name);
  if (doc.dtype() != want.exact.dtype())
    return fmt::format("dtype {} but the reference's output is {}", dtype_name(doc.dtype()),
                       dtype_name(want.exact.dtype()));
  if (doc.shape() != want.exact.shape())
    return fmt::format("shape {} but the reference's output is {}", format_shape(doc.shape()),
                       format_shape(want.exact.shape()));
  if (const std::optional<Mismatch> m = first_disallowed(want, doc, atol)) {
    std::string s = fmt::format("element {}{}: document says {} ({}), reference allows {}", want.name,
                                format_index(m->index), format_value(doc.dtype(), m->bits),
                                format_bits(doc.dtype(), m->bits), want.describe_allowed(m->linear));
    if (atol > 0) s += fmt::format(" (atol {})", atol);
    return s + "; " + writers_of(c.call, m->index);
  }
  return std::nullopt;
}

Verdict check_document_expectation(const Case& c, const Expectation& exp) {
  const CaseExpect& doc = c.expect;
  switch (doc.kind) {
    case CaseExpect::Kind::Error: {
      if (!doc.error)
        return Verdict::error(fmt::format("{}: case {}: field expect.error: missing category", c.file, c.id));
      if (!exp.unspecified && exp.allows_error(*doc.error)) return Verdict::pass();
      return Verdict::fail(
          fmt::format("document expects error {}, reference gives {}", error_name(*doc.error), exp.summary()));
    }
    case CaseExpect::Kind::Unspecified:
      if (exp.unspecified) return Verdict::pass();
      return Verdict::fail(
          fmt::format("document leaves the call unspecified ({}), reference gives {}", doc.text, exp.summary()));
    case CaseExpect::Kind::Output:
    case CaseExpect::Kind::OneOf: {
      if (exp.unspecified || !exp.outputs)
        return Verdict::fail(fmt::format("document expects outputs, reference gives {}", exp.summary()));
      if (doc.outputs.empty())
        return Verdict::error(fmt::format("{}: case {}: field expect: no output given", c.file, c.id));
      for (size_t i = 0; i < doc.outputs.size(); ++i) {
        const size_t which = doc.output_names.empty() ? 0 : i;
        if (auto bad = document_tensor_rejected(c, exp, doc.outputs[i], doc.atol, which)) {
          const std::string which =
              doc.kind == CaseExpect::Kind::OneOf ? fmt::format("one_of[{}]: ", i) : std::string();
          return Verdict::fail(which + *bad);
        }
      }
      return Verdict::pass();
    }
  }
  return Verdict::error("unknown expectation kind");
}

}  // namespace

Verdict check_reference_against_document(const Case& c, const Expectation& exp) {
  Verdict v = check_document_expectation(c, exp);
  if (v.kind != Verdict::Kind::Pass || !c.erratum || !c.erratum->claimed_output) return v;
  if (!document_tensor_rejected(c, exp, *c.erratum->claimed_output, 0.0))
    return Verdict::error(fmt::format(
        "{}: case {}: field erratum.claimed_output: erratum is not an erratum: the reference allows {}'s claim", c.file,
        c.id, c.erratum->document));
  return v;
}

}  // namespace sp
