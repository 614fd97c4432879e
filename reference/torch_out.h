// torch_out.h — PyTorch's out= tensor (reference/torch_out.cc has the rules,
// T-OUT0..T-OUT6): every op whose table entry has an operand of role Out.
#pragma once

#include "reference/expectation.h"
#include "reference/op_call.h"
#include "reference/op_table.h"

namespace sp {

// The expectation of `call`, which passes op's out= operand: the op's own
// reference without it, then out's rules. REQUIRES: out_operand(op) and
// call.tensor(out_operand(op)->name).
Expectation evaluate_with_out(const OpSpec& op, const OpCall& call, Trace* trace);

// Whether a and b reach a common byte of one storage (empty tensors share
// nothing).
bool shares_element(const Tensor& a, const Tensor& b);

}  // namespace sp
