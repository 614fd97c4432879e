#include "reference/errors.h"

namespace sp {

std::string_view error_name(ErrorCategory c) {
  switch (c) {
    case ErrorCategory::IndexOutOfBounds:
      return "index_out_of_bounds";
    case ErrorCategory::DimOutOfRange:
      return "dim_out_of_range";
    case ErrorCategory::RankMismatch:
      return "rank_mismatch";
    case ErrorCategory::ShapeMismatch:
      return "shape_mismatch";
    case ErrorCategory::DtypeMismatch:
      return "dtype_mismatch";
    case ErrorCategory::IndexDtype:
      return "index_dtype";
    case ErrorCategory::InvalidReduce:
      return "invalid_reduce";
    case ErrorCategory::RankLimit:
      return "rank_limit";
    case ErrorCategory::UnsupportedDtype:
      return "unsupported_dtype";
    case ErrorCategory::OverlappingOutput:
      return "overlapping_output";
    case ErrorCategory::ValueOutOfRange:
      return "value_out_of_range";
    case ErrorCategory::InvalidArgument:
      return "invalid_argument";
  }
  return "?";
}

std::optional<ErrorCategory> error_from_name(std::string_view name) {
  for (ErrorCategory c : kAllErrorCategories)
    if (error_name(c) == name) return c;
  return std::nullopt;
}

}  // namespace sp
