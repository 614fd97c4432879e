// errors.h — the one taxonomy of documented failures.
//
// Every error a document describes maps to exactly one ErrorCategory. These
// are *spec-defined* failures of the operation under test; they are kept
// apart from harness problems (bad spec files, crashing backends), which are
// never an ErrorCategory.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sp {

enum class ErrorCategory {
  IndexOutOfBounds,   // an index value outside the documented range
  DimOutOfRange,      // dim outside [-r, r) (or [0, r) where negatives are not documented)
  RankMismatch,       // operands do not share the documented rank
  ShapeMismatch,      // a size rule between operands is violated
  DtypeMismatch,      // self and src (or updates) dtypes differ
  IndexDtype,         // index is not of a documented integer dtype
  InvalidReduce,      // reduce is not one of the documented strings
  RankLimit,          // rank above the documented maximum (MindSpore: 8)
  UnsupportedDtype,   // a documented dtype restriction on self/src/x
  OverlappingOutput,  // in-place write into a tensor whose elements alias
  ValueOutOfRange,    // a scalar `value` not representable in self's dtype
  InvalidArgument,    // any other documented argument rule (e.g. index not 1-D for paddle)
};
inline constexpr ErrorCategory kAllErrorCategories[] = {
    ErrorCategory::IndexOutOfBounds,  ErrorCategory::DimOutOfRange,   ErrorCategory::RankMismatch,
    ErrorCategory::ShapeMismatch,     ErrorCategory::DtypeMismatch,   ErrorCategory::IndexDtype,
    ErrorCategory::InvalidReduce,     ErrorCategory::RankLimit,       ErrorCategory::UnsupportedDtype,
    ErrorCategory::OverlappingOutput, ErrorCategory::ValueOutOfRange, ErrorCategory::InvalidArgument};

std::string_view error_name(ErrorCategory c);  // "index_out_of_bounds", ...
std::optional<ErrorCategory> error_from_name(std::string_view name);

// One violated rule: its category, a message in the framework's own words
// where the document gives them, and the clause id of reference/SEMANTICS.md.
struct RuleViolation {
  ErrorCategory category;
  std::string message;
  std::string clause;
};

}  // namespace sp
