// mutants.h — deliberately wrong backends ("mutant:NAME"), each a small
// change of the cpu backend's behaviour modelled on a real kernel bug. They
// measure the harness: a spec suite or fuzzer that does not kill a mutant
// would also miss that bug in a real backend.
//
// Most mutants wrap an unmodified cpu backend and change the call it gets
// or the answer it gives (so no bug ever reads or writes outside a
// storage: where the real bug would read garbage, the mutant reads zeros);
// two live inside the cpu backend as hooks (backends/cpu/mutation.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace sp::fuzz {

struct MutantInfo {
  std::string name;  // selected as "mutant:NAME"
  std::string bug;   // the real bug it models
};
const std::vector<MutantInfo>& mutant_catalog();

// Registers the prefix "mutant:" with the backend registry (idempotent).
void register_mutant_backends();
// nullptr when `name` (without the prefix) is not a mutant.
std::unique_ptr<Backend> make_mutant(const std::string& name, const BackendOptions& opts);

}  // namespace sp::fuzz
