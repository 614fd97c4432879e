// comparator.h — judges what a backend did against what the reference
// allows, and checks the reference against a case's documented expectation.
//
// judge() is pure: it reads its arguments and re-evaluates the reference
// only to name the writers of a differing element. It is thread-safe.
#pragma once

#include "backends/backend.h"
#include "harness/case.h"
#include "harness/result_record.h"
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
//  * Side effects (for outputs, errors and unsupported;
//    side_effect_violation below): operands the op does not write must be
//    bitwise unchanged (else fail "input modified"), for an in-place op the
//    bytes of self's storage outside self's view must be unchanged, and
//    after an error the reference promises was checked before any write
//    (promises_no_write_on_error) the written operand must be unchanged too
//    (else fail "self modified although an error was reported").
//  * unsupported / crash / timeout / harness error map to their verdicts.
//  * An outcome whose operands could not be seen after the call
//    (Outcome::side_effects_unobservable: an out-of-process backend that
//    does not return them) is judged on what it returned, and the verdict's
//    detail says "side effects not observable: WHY" — never a pass of the
//    side-effect checks.
// The one implementation for every backend: in-process backends leave
// their side effects in `after` directly, the plugin and process backends
// copy the storages their program returns into it (PROTOCOL.md).
//  * `device` (Backend::device(): "" for the host): on a device, a float32
//    output that differs from the allowed set only where an element the op
//    adds into holds ±0 instead of a subnormal value is the platform's
//    flush-to-zero (reference/SEMANTICS.md DEV-FTZ): a fail whose detail
//    starts with "DEV-FTZ" and whose clause is DEV-FTZ, so expectation files
//    can list it by device. Never for the host: there it is a plain fail.
Verdict judge(const OpCall& before, const Expectation& exp, const Outcome& out, const OpCall& after,
              const std::string& device = {});

// Whether a call the reference answers with `exp`, answered with an error,
// must have written nothing (reference/SEMANTICS.md SE-2): the call breaks a
// rule other than an index value's (those are checked while writing).
bool promises_no_write_on_error(const Expectation& exp);

struct SideEffect {
  Verdict::Failure failure = Verdict::Failure::Other;
  std::string detail;  // "input modified: operand index was modified: element [1] ..."
};
// The side-effect checks alone; nullopt when nothing was disturbed.
// `no_write`: the written operand (self, out) must be unchanged as well.
std::optional<SideEffect> side_effect_violation(const OpCall& before, const OpCall& after, bool no_write);

// One produced tensor against the expected one (dtype, shape, every
// element): "output z[0][1]: allowed 5.0 (0x40a00000), actual ..."; nullopt
// when allowed. Names no writers (a program's are per step: `explain`).
std::optional<std::string> output_mismatch(const ExpectedTensor& expected, const Tensor& actual);

// The storage guards alone (side_effect_violation without no_write);
// nullopt when nothing was disturbed.
std::optional<std::string> storage_guard_violation(const OpCall& before, const OpCall& after);

// Does the reference agree with what the case's documents say? (the
// "document" check). Also checks that an erratum's claimed output really is
// rejected by the reference (else: error "erratum is not an erratum").
Verdict check_reference_against_document(const Case& c, const Expectation& exp);

// A produced output element by element against the reference's allowed set
// (the comparator's own per-element check), for the HTML report's picture:
// the first kMaxPictureElements elements, each value as text, which are
// outside the allowed set and what is allowed there. nullopt when dtype or
// shape differ, the output is empty, or every shown element is allowed.
std::optional<OutputPicture> output_picture(const ExpectedTensor& expected, const Tensor& actual);
// The picture of the first of `out`'s outputs with a disallowed element.
std::optional<OutputPicture> output_picture(const Expectation& exp, const Outcome& out);

// A small tensor rendered as nested lists of its values ("[[0, 0], [1, 2]]");
// elided after `max_elements`.
std::string render_tensor_values(const Tensor& t, int64_t max_elements = 64);

}  // namespace sp
