#include "reference/semantics_common.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace sp::ref {

int64_t read_index(const Tensor& index, const Shape& pos) {
  const Value v = index.value_at(pos);
  return v.is_unsigned && v.i < 0 ? std::numeric_limits<int64_t>::max() : v.i;
}

bool index_values_readable(const Tensor& index) { return is_integral(index.dtype()) && index.dtype() != DType::Bool; }

Shape logical_shape(const Tensor& t) { return t.rank() == 0 ? Shape{1} : t.shape(); }
int64_t logical_rank(const Tensor& t) { return t.rank() == 0 ? 1 : t.rank(); }
int64_t logical_size(const Tensor& t, int64_t d) { return t.rank() == 0 ? 1 : t.size(d); }
Shape logical_index(const Tensor& t, const Shape& physical) { return t.rank() == 0 ? Shape{0} : physical; }
Shape physical_index(const Tensor& t, Shape logical) {
  if (t.rank() == 0) logical.clear();
  return logical;
}

int64_t wrap_dim(int64_t dim, int64_t rank) { return dim < 0 ? dim + rank : dim; }

std::string element_text(std::string_view name, const Tensor& t, const Shape& pos) {
  return std::string(name) + format_index(pos) + "=" + format_value(t.dtype(), t.bits_at(pos));
}

void for_each_index_position(const Tensor& index, const std::function<void(const IndexPosition&)>& visit) {
  if (index.numel() == 0) return;
  IndexPosition p{Shape(static_cast<size_t>(index.rank()), 0), {}, 0};
  do {
    // Into the same buffer (no allocation an element: a huge case's index
    // has 2^31 positions).
    if (index.rank() == 0)
      p.logical.assign(1, 0);
    else
      p.logical.assign(p.pos.begin(), p.pos.end());
    p.value = read_index(index, p.pos);
    visit(p);
  } while (next_index(p.pos, index.shape()));
}

Shape position_along_dim(const Tensor& t, const IndexPosition& p, int64_t dim, int64_t along_dim) {
  Shape at = p.logical;
  at[static_cast<size_t>(dim)] = along_dim;
  return physical_index(t, std::move(at));
}

Shape same_position(const Tensor& t, const IndexPosition& p) { return physical_index(t, p.logical); }

void for_each_slice_position(const Tensor& index, const Tensor& source, int64_t dim,
                             const std::function<void(const IndexPosition&, const Shape&, const Shape&)>& visit) {
  if (index.numel() == 0) return;
  const Shape source_logical = logical_shape(source);
  for (int64_t d = 0; d < static_cast<int64_t>(source_logical.size()); ++d)
    if (d != dim && source_logical[static_cast<size_t>(d)] == 0) return;  // empty slices
  IndexPosition p{Shape(static_cast<size_t>(index.rank()), 0), {}, 0};
  int64_t i = 0;
  do {
    p.logical = Shape{i};
    p.value = read_index(index, p.pos);
    Shape q(source_logical.size(), 0);
    q[static_cast<size_t>(dim)] = i;
    for (bool more = true; more;) {
      Shape target = q;
      target[static_cast<size_t>(dim)] = p.value;
      visit(p, physical_index(source, q), target);
      more = false;
      for (size_t d = q.size(); d-- > 0;) {  // next position of the slice, row-major
        if (static_cast<int64_t>(d) == dim) continue;
        if (++q[d] < source_logical[d]) {
          more = true;
          break;
        }
        q[d] = 0;
      }
    }
    ++i;
  } while (next_index(p.pos, index.shape()));
}

void allow_any_nan_where_initial_nan(ExpectedTensor& result, DType t, const std::string& why) {
  if (!is_floating(t)) return;
  ElementAllowed any_nan;
  any_nan.any_nan = true;
  any_nan.why = why;
  for (int64_t k = 0; k < result.exact.numel(); ++k)
    if (bits_is_nan(t, load_bits(t, result.exact.element_ptr(k)))) result.loose.try_emplace(k, any_nan);
}

WriteOrigin read_from(const IndexPosition& p, std::string_view name, const Tensor& t, const Shape& at) {
  return WriteOrigin{name, &t, &at, &p.pos, p.value};
}

WriteOrigin scalar_from(const IndexPosition& p, std::string_view text) {
  return WriteOrigin{text, nullptr, nullptr, &p.pos, p.value};
}

bool RuleLog::check(bool holds, std::string_view clause, const std::string& fact, ErrorCategory category,
                    const std::string& message) {
  if (!holds) violations_.push_back(RuleViolation{category, message, std::string(clause)});
  if (trace_ != nullptr)
    trace_->checks.push_back(fact + " [" + std::string(clause) + "] " + (holds ? "ok" : "VIOLATED: " + message));
  return holds;
}

void RuleLog::note(const std::string& line) {
  if (trace_ != nullptr) trace_->checks.push_back(line);
}

Expectation RuleLog::error_expectation() const {
  Expectation e;
  for (const RuleViolation& v : violations_)  // each category once, at its first violation
    e.allow_error(v.category);
  e.error_message = violations_.front().message;
  e.error_clause = violations_.front().clause;
  return e;
}

Expectation unspecified_expectation(const std::string& reason, Trace* trace) {
  Expectation e;
  e.unspecified = true;
  e.unspecified_reason = reason;
  if (trace != nullptr) trace->finals.push_back("whole call unspecified: " + reason);
  return e;
}

Expectation outputs_expectation(std::vector<ExpectedTensor> outputs, std::vector<Note> notes) {
  Expectation e;
  e.outputs = std::move(outputs);
  e.notes = std::move(notes);
  return e;
}

}  // namespace sp::ref
