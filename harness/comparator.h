// comparator.h — judges what a backend did against what the reference
// allows, and checks the reference against a case's documented expectation.
//
// judge() is pure: it reads its arguments and re-evaluates the reference
// only to name the writers of a differing element. It is thread-safe.
#pragma once

#include "backends/backend.h"
#include "harness/case.h"
#include "harness/verdict.h"
#include "reference/expectation.h"
#include "reference/op_call.h"

namespace sp {

// `before` is a deep copy of the call taken before the backend ran; `after`
// is the call object the backend received (its storages hold whatever the
// backend left there). Rules:
//  * Outcome error: pass iff the reference allows that error category (or
//    leaves the call unspecified).
//  * Outcome outputs: pass iff the reference expects outputs (or leaves the
//    call unspecified) and count, dtype, shape and every element (in the
//    output's row-major logical order, whatever its strides) are allowed;
//    for an in-place op, `after`'s self must hold an allowed result too.
//  * Storage guards (for outputs, errors and unsupported): operands the op
//    does not write must be bitwise unchanged, and for an in-place op the
//    bytes of self's storage outside self's view must be unchanged.
//  * unsupported / crash / timeout / harness error map to their verdicts.
Verdict judge(const OpCall& before, const Expectation& exp, const Outcome& out, const OpCall& after);

// The storage guards alone; nullopt when nothing was disturbed.
std::optional<std::string> storage_guard_violation(const OpCall& before, const OpCall& after);

// Does the reference agree with what the case's documents say? (the
// "document" check). Also checks that an erratum's claimed output really is
// rejected by the reference (else: error "erratum is not an erratum").
Verdict check_reference_against_document(const Case& c, const Expectation& exp);

// A small tensor rendered as nested lists of its values ("[[0, 0], [1, 2]]");
// elided after `max_elements`.
std::string render_tensor_values(const Tensor& t, int64_t max_elements = 64);

}  // namespace sp
