// reference.h — the executable reference: one entry point over every
// documented semantic.
//
// evaluate() dispatches on call.op to the semantic's file (torch_gather.cc,
// torch_scatter.cc, torch_scatter_add.cc, mindspore_scatter.cc,
// paddle_scatter.cc). It never throws for a well-formed OpCall: documented
// failures come back as an error Expectation. It does not modify the call's
// tensors. With `trace`, every check and write is recorded for `explain`.
#pragma once

#include "reference/expectation.h"
#include "reference/op_call.h"

namespace sp {

Expectation evaluate(const OpCall& call, Trace* trace = nullptr);

// Per-semantic entry points (called by evaluate).
Expectation torch_gather(const OpCall& call, Trace* trace);
Expectation torch_scatter(const OpCall& call, Trace* trace);      // scatter_, scatter (src|value, reduce)
Expectation torch_scatter_add(const OpCall& call, Trace* trace);  // scatter_add_, scatter_add
Expectation mindspore_scatter(const OpCall& call, Trace* trace);  // Tensor.scatter_, 4 overloads
Expectation paddle_scatter(const OpCall& call, Trace* trace);     // paddle.scatter, both modes

// Renders a trace as the lines `scatterproof explain` prints.
std::vector<std::string> explain_lines(const OpCall& call, const Expectation& e, const Trace& trace);

}  // namespace sp
