#include "reference/expectation.h"

#include <algorithm>
#include <cmath>

namespace sp {

std::string Note::line() const { return clause.empty() ? text : clause + ": " + text; }

bool ElementAllowed::allows(DType t, uint64_t actual_bits) const {
  if (unspecified) return true;
  if (std::find(bits.begin(), bits.end(), actual_bits) != bits.end()) return true;
  if (!is_floating(t)) return false;
  const double v = value_from_bits(t, actual_bits).f;
  if (std::isnan(v)) return any_nan;
  return has_interval && v >= lo && v <= hi;
}

std::string ElementAllowed::describe(DType t) const {
  if (unspecified) return "anything (unspecified)";
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : " or ") + part; };
  if (!bits.empty()) {
    std::string set = bits.size() == 1 ? "" : "one of {";
    for (size_t i = 0; i < bits.size(); ++i) set += (i ? ", " : "") + format_value(t, bits[i]);
    add(bits.size() == 1 ? set : set + "}");
  }
  if (has_interval) {
    const std::string lo_s = std::isinf(lo)
                                 ? (lo < 0 ? "-inf" : "inf")
                                 : format_value(DType::Float64, bits_from_value(DType::Float64, Value::of_float(lo)));
    const std::string hi_s = std::isinf(hi)
                                 ? (hi < 0 ? "-inf" : "inf")
                                 : format_value(DType::Float64, bits_from_value(DType::Float64, Value::of_float(hi)));
    add("in [" + lo_s + ", " + hi_s + "]");
  }
  if (any_nan) add("any NaN");
  if (s.empty()) s = "nothing";
  if (!why.empty()) s += " (" + why + ")";
  return s;
}

bool ExpectedTensor::allows(int64_t linear, uint64_t actual_bits) const {
  auto it = loose.find(linear);
  if (it != loose.end()) return it->second.allows(exact.dtype(), actual_bits);
  return load_bits(exact.dtype(), exact.element_ptr(linear)) == actual_bits;
}

std::string ExpectedTensor::describe_allowed(int64_t linear) const {
  auto it = loose.find(linear);
  if (it != loose.end()) return it->second.describe(exact.dtype());
  const uint64_t b = load_bits(exact.dtype(), exact.element_ptr(linear));
  return format_value(exact.dtype(), b) + " (" + format_bits(exact.dtype(), b) + ")";
}

bool Expectation::allows_error(ErrorCategory c) const {
  return unspecified || std::find(errors.begin(), errors.end(), c) != errors.end();
}

void Expectation::allow_error(ErrorCategory c) {
  if (std::find(errors.begin(), errors.end(), c) == errors.end()) errors.push_back(c);
}

void Expectation::allow_error(ErrorCategory c, const std::string& clause, const std::string& message) {
  allow_error(c);
  if (!error_clause.empty()) return;
  error_clause = clause;
  error_message = message;
}

std::string Expectation::summary() const {
  std::string s;
  if (unspecified) return "unspecified: " + unspecified_reason;
  if (!errors.empty()) {
    s = "error ";
    for (size_t i = 0; i < errors.size(); ++i) s += std::string(i ? " | " : "") + std::string(error_name(errors[i]));
  }
  if (outputs) {
    size_t loose = 0;
    for (const ExpectedTensor& t : *outputs) loose += t.loose.size();
    s += std::string(s.empty() ? "" : " or ") + "outputs";
    for (const ExpectedTensor& t : *outputs) s += " " + t.name + ":" + t.exact.describe();
    if (loose) s += " (" + std::to_string(loose) + " loose elements)";
  }
  return s.empty() ? "nothing" : s;
}

}  // namespace sp
