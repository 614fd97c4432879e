// mutation.h — deliberate bugs the cpu backend can be built with, for
// mutation testing (fuzz/mutants): does the harness catch a backend that is
// wrong in the way real kernels are wrong?
//
// Only the bugs that live inside the cpu backend's own logic are hooks here;
// the other mutants wrap an unmodified cpu backend (fuzz/mutants/). A hook
// is one comparison per call against a member fixed at construction, so the
// real backend ("cpu", Mutation::None) pays nothing measurable.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace sp::cpu {

enum class Mutation {
  None,
  // paddle.scatter(overwrite=False) adds the updates to the old row instead
  // of to a zeroed row.
  PaddleAccumulateKeepsOldRow,
  // mindspore.scatter_ accepts self of rank above 8.
  MindsporeRankLimitMissing,
};

// A cpu backend instance with `mutation` switched on (threads as in
// BackendOptions::threads; 0: hardware concurrency).
std::unique_ptr<Backend> make_cpu_backend(int threads, Mutation mutation, std::string name);

}  // namespace sp::cpu
