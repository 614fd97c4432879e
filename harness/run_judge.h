// run_judge.h — the one way a backend's answer to a call is obtained and
// judged, shared by the runner (spec cases) and the fuzz engine (generated
// cases), so both judge exactly alike.
//
// The backend gets its own deep copy of the call (an in-place op may write
// straight into it) and a second, untouched deep copy is kept as `before`
// for the storage guards; judge() (comparator.h) then compares the outcome
// and what the backend left in its copy with what the reference allows. A
// backend that throws, or a judge that throws, gives an `error` verdict;
// nothing escapes.
//
// Thread-safety: as the backend's (one thread per Backend instance).
#pragma once

#include <optional>
#include <string>

#include "backends/backend.h"
#include "harness/verdict.h"
#include "reference/expectation.h"
#include "reference/op_call.h"

namespace sp {

struct Judged {
  Outcome outcome;  // a harness error naming the backend when it threw
  Verdict verdict;
};

// Runs `backend` on a deep copy of `call` (not modified) and judges its
// answer against the reference's `expectation` of that call.
Judged run_and_judge(Backend& backend, const OpCall& call, const Expectation& expectation);

// Every clause of reference/SEMANTICS.md the expectation cites, space
// separated: the clause of the error it expects (or allows), then each
// decision note's clause (Note::clause, data, never parsed from the text).
// What clause-keyed expectation entries (harness/expectations.h) match.
std::string cited_clauses(const Expectation& e);

// One line: "outputs [[1, 2]]", "error index_out_of_bounds: ...",
// "unsupported: ...".
std::string outcome_summary(const Outcome& o);

// Where two expectations of the same call under different layouts differ;
// nullopt when they allow exactly the same outcomes.
std::optional<std::string> expectation_difference(const Expectation& a, const Expectation& b);

}  // namespace sp
