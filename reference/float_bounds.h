// float_bounds.h — what a float reduction may produce when the order in
// which its terms are combined is unspecified (reference/SEMANTICS.md,
// "Float reductions", FR-1..FR-6).
//
// terms[0] is the element's starting value, terms[1..] the combined terms;
// there are n-1 operations. Allowed: any binary tree over the terms, each
// operation correctly rounded in dtype t, united with the same accumulated
// in a wider format (float32 for the 16-bit floats, float64 for every
// narrower dtype) and rounded once to t.
//   add:      exact + the n-1 local rounding errors; ranking the tree's nodes
//             by leaf count bounds them by sum_m half-spacing(P_m + C_m)
//             (P_m: the m largest |terms| summed), zero where the spacing is
//             at most the terms' common power of two: exact whenever every
//             partial sum of every order is representable (0 + 1 + 1 = 2);
//             or, where tighter, by counting for each binade the nodes whose
//             leaves can sum into it (FR-3 (v)); for float16/bfloat16 each
//             side apart, from the terms' residues (FR-3 (vi)); few terms:
//             FR-7's exact hull.
//   multiply: exact when every subset's product is representable (odd parts
//             multiply to < 2^p, no underflow or overflow); else
//             |result - exact| <= ((1 + u/(1+u))^(n-1) - 1) * |exact|.
// The interval is snapped inward to t's values. Specials are exact: NaN in
// -> any NaN; +inf and -inf (add) or 0 and inf (multiply) -> any NaN;
// one-signed infinities propagate. When some order could overflow an
// intermediate, the infinity (and, where it could meet an opposite infinity
// or a zero, NaN) is allowed too; when some order could underflow
// (multiply), zero and any magnitude up to the bound are allowed.
#pragma once

#include <vector>

#include "reference/dtype.h"
#include "reference/expectation.h"
#include "reference/output_builder.h"

namespace sp {

ElementAllowed float_reduction_bounds(DType t, ReduceMode mode, const std::vector<double>& terms);

// The mean of `terms` (all of them, the element's own value included where
// it takes part; at least 2) computed in an unspecified way: a sum (any
// order, in t or wider) divided once by the count — in the accumulator, in
// float64, exactly, or after rounding the sum to t (LibTorch) — or each
// term divided first, then summed. The allowed set is the union of these
// paths' intervals (exact when the sum and every quotient are exact). The
// exact mean is allowed even where the sum leaves the dtype's range; the
// infinity (NaN with both signs) that an overflowing intermediate sum gives
// is allowed too. Specials as for add.
ElementAllowed float_mean_bounds(DType t, const std::vector<double>& terms);

}  // namespace sp
