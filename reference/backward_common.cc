#include "reference/backward_common.h"

#include <algorithm>
#include <cmath>

#include "reference/float_bounds.h"
#include "reference/op_table.h"
#include "reference/output_builder.h"

namespace sp::ref {

const BackwardClauses kTorchBackwardClauses{"T-GR1", "T-GR2", "T-GR3",
                                            "only Tensors of floating point dtype can require gradients"};
const BackwardClauses kPaddleBackwardClauses{"PD-GR1", "PD-GR2", "PD-GR3",
                                             "only floating point tensors have gradients (stop_gradient=False)"};
const BackwardClauses kMindsporeBackwardClauses{"MS-GR1", "MS-GR2", "MS-GR3",
                                                "only floating point tensors have gradients"};

BackwardStart start_backward(const OpCall& call, const BackwardClauses& clauses, Trace* trace,
                             const std::function<void(RuleLog&)>& own_checks) {
  const OpSpec& op = op_spec(call);
  const OpSpec& forward = op_spec(op.backward_of);
  BackwardStart s;
  OpCall forward_call = call;  // the call as the forward op (grad_output left out)
  forward_call.op = forward.id;
  forward_call.spec = call.spec ? &forward : nullptr;  // a bound backward call's forward fits too
  forward_call.tensors.erase(std::string(kGradOutput));
  // The backward only reads an in-place op's self (no forward write
  // happens), so the forward's rules are evaluated on a contiguous copy of
  // it: an expanded self is not an overlapping output here (T-GR1).
  for (const OperandSpec& o : forward.operands)
    if (o.role == OperandRole::InPlace)
      if (auto it = forward_call.tensors.find(o.name); it != forward_call.tensors.end())
        it->second = it->second.contiguous();
  const std::vector<std::string> grads = grad_operands(op, call);  // the operands differentiated

  // The forward's checks, shown in the trace; its writes are not the
  // backward's and stay out of it.
  Trace forward_trace;
  s.forward = forward.reference(forward_call, trace ? &forward_trace : nullptr);
  RuleLog log(trace);
  if (trace)
    for (const std::string& line : forward_trace.checks) trace->checks.push_back("forward " + forward.id + ": " + line);

  for (const std::string& name : grads) {
    const DType t = call.tensor(name)->dtype();
    log.check(is_floating(t), clauses.floating, name + " dtype " + std::string(dtype_name(t)) + " is floating",
              ErrorCategory::UnsupportedDtype,
              clauses.floating_message + " (" + name + " is " + std::string(dtype_name(t)) + ")");
  }
  if (s.forward.unspecified) {
    s.answer = unspecified_expectation(
        clauses.forward + ": the forward call is unspecified: " + s.forward.unspecified_reason, trace);
    return s;
  }
  if (!s.forward.outputs) {
    // The forward's error, then whatever the backward's own dtype rule adds
    // (a framework refuses a non-floating operand's requires_grad first).
    Expectation e = s.forward;
    for (const RuleViolation& v : log.violations()) e.allow_error(v.category);
    e.notes.push_back({clauses.forward, "the forward call fails, so does its backward"});
    s.answer = std::move(e);
    return s;
  }

  const Tensor& grad_output = *call.tensor(std::string(kGradOutput));
  const Tensor& output = s.forward.outputs->front().exact;
  log.check(grad_output.shape() == output.shape(), clauses.grad_output,
            "grad_output shape " + format_shape(grad_output.shape()) + " == the forward's output shape " +
                format_shape(output.shape()),
            ErrorCategory::ShapeMismatch,
            "Mismatch in shape: grad_output[0] has a shape of " + format_shape(grad_output.shape()) +
                " and output[0] has a shape of " + format_shape(output.shape()));
  log.check(grad_output.dtype() == output.dtype(), clauses.grad_output,
            "grad_output dtype " + std::string(dtype_name(grad_output.dtype())) + " == the forward's output dtype " +
                std::string(dtype_name(output.dtype())),
            ErrorCategory::DtypeMismatch,
            "grad_output dtype " + std::string(dtype_name(grad_output.dtype())) + " is not the output's " +
                std::string(dtype_name(output.dtype())));
  if (own_checks) own_checks(log);
  if (!log.passed()) {
    Expectation e = log.error_expectation();
    for (ErrorCategory c : s.forward.errors) e.allow_error(c);
    s.answer = std::move(e);
  }
  return s;
}

bool src_shape_equals_index_shape(RuleLog& log, const Tensor& src, const Tensor& index) {
  return log.check(src.shape() == index.shape(), "T-GR4",
                   "src shape " + format_shape(src.shape()) + " == index shape " + format_shape(index.shape()) +
                       " (the backward pass is implemented only for src.shape == index.shape)",
                   ErrorCategory::ShapeMismatch,
                   "the backward pass is implemented only for src.shape == index.shape (src " +
                       format_shape(src.shape()) + ", index " + format_shape(index.shape()) + ")");
}

Expectation gradients_expectation(const BackwardStart& start, std::vector<ExpectedTensor> grads,
                                  std::vector<Note> notes) {
  Expectation e = outputs_expectation(std::move(grads), start.forward.notes);
  e.notes.insert(e.notes.end(), notes.begin(), notes.end());
  // A forward answer that also allows an error (an undocumented dtype,
  // PD-T1; an [N, 1] index, PD-I3) allows it for the backward too.
  e.errors = start.forward.errors;
  e.error_message = start.forward.error_message;
  e.error_clause = start.forward.error_clause;
  return e;
}

std::string because_index(const IndexPosition& p, const Trace* trace) {
  if (trace == nullptr) return {};
  return "because index" + format_index(p.pos) + "=" + std::to_string(p.value);
}

ExpectedTensor gather_input_gradient(const Tensor& input, const Tensor& index, const Tensor& grad_output, int64_t dim,
                                     const std::function<int64_t(int64_t)>& along, Trace* trace) {
  GradientBuilder grad("grad_input", Tensor::zeros(input.dtype(), input.shape()), "", trace);
  // grad_input[index[i][j][k]][j][k] += grad_output[i][j][k]   (dim 0)
  for_each_index_position(index, [&](const IndexPosition& p) {
    const Shape target = position_along_dim(input, p, dim, along(p.value));
    grad.add(target, grad_output, same_position(grad_output, p), "grad_output", &p, because_index(p, trace));
  });
  return grad.finish();
}

std::vector<ExpectedTensor> element_scatter_gradients(const ElementScatter& s, Trace* trace) {
  const Tensor& input = *s.input;
  const Tensor& grad_output = *s.grad_output;
  const auto target_of = [&](const IndexPosition& p) -> std::optional<Shape> {
    const std::optional<int64_t> a = s.along(p.value);
    if (!a) return std::nullopt;
    return position_along_dim(input, p, s.dim, *a);
  };
  // How many index positions write each element of input (keyed row-major):
  // a slot written more than once has duplicate writers.
  const auto linear = [&](const Shape& target) {
    int64_t l = 0;
    for (size_t d = 0; d < target.size(); ++d) l = l * input.shape()[d] + target[d];
    return l;
  };
  std::map<int64_t, int64_t> writers;
  for_each_index_position(*s.index, [&](const IndexPosition& p) {
    if (const auto t = target_of(p)) ++writers[linear(*t)];
  });
  GradientBuilder grad_input(s.input_grad, grad_output,
                             s.add ? "(input's element is a term of the sum; " + s.clause + ")"
                                   : "(no index position writes there; " + s.clause + ")",
                             trace);
  std::optional<GradientBuilder> grad_src;
  if (s.src) grad_src.emplace(s.src_grad, Tensor::zeros(s.src->dtype(), s.src->shape()), "", trace);
  for_each_index_position(*s.index, [&](const IndexPosition& p) {
    const std::optional<Shape> target = target_of(p);
    if (!target) return;  // dropped: its update reaches nothing
    if (!s.add)
      grad_input.mask(*target, s.clause, &p,
                      trace ? because_index(p, trace) + " wrote out" + format_index(*target) : "");
    if (!grad_src) return;
    const Shape at = same_position(*s.src, p);
    if (!s.add && writers[linear(*target)] > 1)
      grad_src->copy_or_mask(at, grad_output, *target, "grad_output", s.clause, &p,
                             trace ? because_index(p, trace) + " (a duplicate writer)" : "");
    else
      grad_src->copy(at, grad_output, *target, "grad_output", &p, because_index(p, trace));
  });
  std::vector<ExpectedTensor> grads{grad_input.finish()};
  if (grad_src) grads.push_back(grad_src->finish());
  return grads;
}

GradientBuilder::GradientBuilder(std::string name, const Tensor& initial, std::string pass_reason, Trace* trace)
    : name_(std::move(name)), initial_(initial.contiguous()), pass_reason_(std::move(pass_reason)), trace_(trace) {}

GradientBuilder::Slot& GradientBuilder::slot(const Shape& target) { return slots_[initial_.element_offset(target)]; }

std::string GradientBuilder::element_name(const Shape& target) const { return name_ + format_index(target); }

void GradientBuilder::record(const Shape& target, const IndexPosition* p, const std::string& source,
                             const std::string& effect) {
  if (trace_ == nullptr) return;
  trace_->writes.push_back(Write{target, p ? p->pos : Shape{}, p ? p->value : 0, source, effect, {}, {}});
}

void GradientBuilder::copy(const Shape& target, const Tensor& from, const Shape& at, const std::string& from_name,
                           const IndexPosition* p, const std::string& why) {
  Slot& s = slot(target);
  s = Slot{};
  s.kind = Kind::Copy;
  s.bits = from.bits_at(at);
  if (trace_)
    record(target, p, element_text(from_name, from, at),
           element_name(target) + " = " + from_name + format_index(at) + (why.empty() ? "" : " " + why));
}

void GradientBuilder::mask(const Shape& target, const std::string& clause, const IndexPosition* p,
                           const std::string& why) {
  Slot& s = slot(target);
  s = Slot{};
  s.kind = Kind::Mask;
  s.why = clause;
  if (trace_) record(target, p, "0", element_name(target) + " = 0" + (why.empty() ? "" : " " + why));
}

void GradientBuilder::copy_or_mask(const Shape& target, const Tensor& from, const Shape& at,
                                   const std::string& from_name, const std::string& clause, const IndexPosition* p,
                                   const std::string& why) {
  Slot& s = slot(target);
  s = Slot{};
  s.kind = Kind::CopyOrMask;
  s.bits = from.bits_at(at);
  s.why = clause;
  if (trace_)
    record(target, p, element_text(from_name, from, at),
           element_name(target) + " = " + from_name + format_index(at) + " or 0" + (why.empty() ? "" : " " + why));
}

void GradientBuilder::add(const Shape& target, const Tensor& from, const Shape& at, const std::string& from_name,
                          const IndexPosition* p, const std::string& why) {
  Slot& s = slot(target);
  s.kind = Kind::Sum;
  s.terms.push_back(from.value_at(at).f);
  if (trace_)
    record(target, p, element_text(from_name, from, at),
           element_name(target) + " += " + from_name + format_index(at) + (why.empty() ? "" : " " + why));
}

void GradientBuilder::divide(const Shape& target, const Tensor& from, const Shape& at, int64_t n,
                             const std::string& from_name, const IndexPosition* p, const std::string& why) {
  Slot& s = slot(target);
  s = Slot{};
  s.kind = Kind::Quotient;
  s.dividend = from.value_at(at).f;
  s.divisor = n;
  if (trace_)
    record(target, p, element_text(from_name, from, at),
           element_name(target) + " = " + from_name + format_index(at) + " / " + std::to_string(n) +
               (why.empty() ? "" : " " + why));
}

void GradientBuilder::unspecified(const Shape& target, const std::string& why) {
  Slot& s = slot(target);
  s = Slot{};
  s.kind = Kind::Unspecified;
  s.why = why;
  if (trace_) record(target, nullptr, "?", element_name(target) + " unspecified: " + why);
}

ExpectedTensor GradientBuilder::finish() {
  const DType t = initial_.dtype();
  ExpectedTensor out;
  out.name = name_;
  out.exact = initial_.clone_storage();
  // Elements nothing replaced pass grad_output through (or stay fresh
  // zeros): exact bits. The trace names each pass-through.
  if (trace_ && !pass_reason_.empty() && initial_.numel() > 0) {
    Shape idx(static_cast<size_t>(initial_.rank()), 0);
    do {
      if (slots_.count(initial_.element_offset(idx))) continue;
      record(idx, nullptr, element_text("grad_output", initial_, idx),
             element_name(idx) + " = grad_output" + format_index(idx) + " " + pass_reason_);
    } while (next_index(idx, initial_.shape()));
  }
  const uint64_t plus_zero = bits_from_value(t, Value::of_float(0.0));
  const uint64_t minus_zero = bits_from_value(t, Value::of_float(-0.0));
  for (const auto& [linear, s] : slots_) {
    std::byte* p = out.exact.element_ptr(linear);
    ElementAllowed a;
    switch (s.kind) {
      case Kind::Copy:
        store_bits(t, p, s.bits);
        continue;
      case Kind::CopyOrMask:
        store_bits(t, p, s.bits);
        a.bits = {s.bits};
        if (s.bits != plus_zero) a.bits.push_back(plus_zero);
        if (s.bits != minus_zero) a.bits.push_back(minus_zero);
        a.why = s.why + ": a duplicate writer gets the slot's gradient or 0 of either sign";
        break;
      case Kind::Mask:
        // T-GR5: the rules make it 0; whether it is +0.0 (a fill) or -0.0
        // (grad_output times a 0/1 mask) no document says.
        store_bits(t, p, plus_zero);
        a.bits = {plus_zero, minus_zero};
        a.why = s.why + ": a masked-out gradient is 0 of either sign";
        break;
      case Kind::Sum: {
        // T-GR6: zeros, then += every term (scatter_add into zeros).
        std::vector<double> terms{0.0};
        terms.insert(terms.end(), s.terms.begin(), s.terms.end());
        uint64_t acc = plus_zero;
        for (double term : s.terms)
          acc = reduce_once(t, ReduceMode::Add, value_from_bits(t, acc), Value::of_float(term));
        store_bits(t, p, acc);
        if (s.terms.size() == 1) {
          // One correctly rounded op, 0 + term: exact (-0.0 becomes +0.0),
          // a NaN any NaN.
          if (!bits_is_nan(t, acc)) continue;
          a.any_nan = true;
          a.why = "a NaN term: its payload is not specified";
        } else {
          a = float_reduction_bounds(t, ReduceMode::Add, terms);
          a.why = std::to_string(s.terms.size()) + " gradient terms summed in an unspecified order (T-GR6)";
        }
        break;
      }
      case Kind::Quotient: {
        // T-GR11: one division in the dtype: the correctly rounded quotient
        // (the double quotient rounds once more innocuously: 53 >= 2p + 2),
        // and for the 16-bit dtypes also the float32 quotient rounded.
        const double q = s.dividend / static_cast<double>(s.divisor);
        const uint64_t exact = bits_from_value(t, Value::of_float(q));
        store_bits(t, p, exact);
        if (std::isnan(s.dividend)) {
          a.any_nan = true;
          a.why = "a NaN divided by its count: any NaN";
          break;
        }
        if (s.divisor == 1) continue;
        a.bits = {exact};
        if (t == DType::Float16 || t == DType::BFloat16) {
          const float f = static_cast<float>(s.dividend) / static_cast<float>(s.divisor);
          const uint64_t via_float = bits_from_value(t, Value::of_float(static_cast<double>(f)));
          if (via_float != exact) a.bits.push_back(via_float);
        }
        if (a.bits.size() == 1) continue;
        a.why = "the quotient correctly rounded, or computed in float32 and rounded";
        break;
      }
      case Kind::Unspecified:
        a.unspecified = true;
        a.why = s.why;
        break;
    }
    if (trace_) {
      Shape idx(static_cast<size_t>(initial_.rank()), 0);
      for (int64_t rest = linear, d = initial_.rank(); d-- > 0;) {
        idx[static_cast<size_t>(d)] = rest % initial_.size(d);
        rest /= initial_.size(d);
      }
      trace_->finals.push_back(element_name(idx) + ": " + a.describe(t));
    }
    out.loose[linear] = std::move(a);
  }
  return out;
}

}  // namespace sp::ref
