// torch_out.h — PyTorch's out= for our own kernels (cpu, cuda, cuda-host):
// one procedure, so every backend that has a kernel for an op has its out=.
#pragma once

#include <functional>

#include "backends/backend.h"
#include "reference/op_call.h"

namespace sp::backend_rules {

// Runs `kernel` on `call` without its "out" operand, then applies T-OUT*:
// out's rules are checked against the fresh result (check_torch_out, so a
// dtype or overlap error is raised and nothing is written into out); a
// correctly shaped out receives the result in its own layout and is the
// answer; a mis-shaped one is "resized" (T-OUT6): the fresh result is the
// answer. Anything but a one-tensor result is returned as the kernel gave it.
// REQUIRES: call has a tensor "out".
Outcome run_with_torch_out(const OpCall& call, const std::function<Outcome(const OpCall&)>& kernel);

}  // namespace sp::backend_rules
