// reference.h — the executable reference: one entry point over every
// documented semantic.
//
// evaluate() checks the call against its op's signature in the op table
// (reference/op_table.h) and runs the reference function the table names. It never throws for a well-formed OpCall:
// documented failures come back as an error Expectation. It does not modify the call's tensors. With `trace`, every
// check and write is recorded for `explain`.
#pragma once

#include "reference/expectation.h"
#include "reference/op_call.h"

namespace sp {

Expectation evaluate(const OpCall& call, Trace* trace = nullptr);

// Renders a trace as the lines `scatterproof explain` prints.
std::vector<std::string> explain_lines(const OpCall& call, const Expectation& e, const Trace& trace);

}  // namespace sp
