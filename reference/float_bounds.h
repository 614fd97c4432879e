// float_bounds.h — what a float reduction may produce when the order in
// which its terms are combined is unspecified.
//
// terms[0] is the element's starting value, terms[1..] the combined terms;
// there are n-1 operations, each correctly rounded in dtype t (or done more
// accurately, e.g. a 16-bit dtype accumulated in float32). Any order,
// including tree orders, multiplies each term by at most n-1 factors
// (1 + d), |d| <= u, so
//   add:      |result - exact| <= ((1+u)^(n-1) - 1) * sum|t_i|
//   multiply: |result - exact| <= ((1+u)^(n-1) - 1) * |exact|  (no underflow)
// Specials are exact: NaN in -> any NaN; +inf and -inf (add) or 0 and inf
// (multiply) -> any NaN; one-signed infinities propagate. When some order
// could overflow an intermediate, the infinity (and, where it could meet an
// opposite infinity or a zero, NaN) is allowed too; when some order could
// underflow (multiply), zero and any magnitude up to the bound are allowed.
#pragma once

#include <vector>

#include "reference/dtype.h"
#include "reference/expectation.h"
#include "reference/output_builder.h"

namespace sp {

ElementAllowed float_reduction_bounds(DType t, ReduceMode mode, const std::vector<double>& terms);

// The mean of `terms` (all of them, the element's own value included where
// it takes part; at least 2) computed in an unspecified way: a sum in any
// order divided once by the count (LibTorch), or each term divided first.
// Both stay within n rounded operations of the exact mean, so
//   |result - exact/n| <= ((1+u)^n - 1) * sum|t_i| / n  (+ one subnormal
// step for an underflowing quotient). The exact mean is allowed even where
// the sum leaves the dtype's range; the infinity (NaN with both signs) that
// an overflowing intermediate sum gives is allowed too. Specials as for add.
ElementAllowed float_mean_bounds(DType t, const std::vector<double>& terms);

}  // namespace sp
