// mutant.h — the mutant backends ("mutant:NAME"): deliberately wrong
// variants of the cpu backend, each modelled on a real kernel bug. They
// measure the harness: a spec suite or fuzzer that does not kill a mutant
// would also miss that bug in a real backend (`scatterproof mutants`).
//
// A mutant wraps an unmodified cpu backend through its public interface
// (make_backend("cpu") and Backend::run) and changes the call it gets or
// the answer it gives, using only the reference's Tensor API; nothing of
// the bug lives inside the cpu kernels. Where the real bug would read
// garbage the mutant reads zeros, so no mutant reads or writes outside a
// storage.
//
// Mutants are defined in op files, backends/mutant/ops/<stem>.cc, each
// defining `void register_<stem>(MutantRegistry&)`; the files are
// collected by sp_op_files() (cmake/sp_helpers.cmake), so a new file of
// mutants is the whole change. A mutant is applied only to calls that fit
// their op's signature (reference/op_table.h) and whose op it `applies` to;
// every other call goes to the cpu backend as is.
//
// Thread-safety: the catalog is built once (thread-safe static) and
// immutable; a mutant Backend, like any, is used by one thread at a time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "reference/op_table.h"

namespace sp::mutant {

struct MutantInfo {
  std::string name;  // selected as "mutant:NAME"
  std::string bug;   // the real bug it models
};

// Runs the call through the bug: `cpu` is the unmodified cpu backend,
// `call` a shallow copy private to the mutant (replacing an operand stays
// private, while writes through shared storages reach the caller as a real
// bug's would).
using MutantRun = std::function<Outcome(Backend& cpu, OpCall& call)>;
// The ops whose calls the bug touches.
using MutantApplies = std::function<bool(const OpSpec& op)>;

struct MutantDef {
  MutantInfo info;
  MutantApplies applies;
  MutantRun run;
};

class MutantRegistry {
 public:
  // REQUIRES: a name not added before (std::logic_error otherwise).
  void add(MutantInfo info, MutantApplies applies, MutantRun run);
  const std::vector<MutantDef>& definitions() const { return defs_; }

 private:
  std::vector<MutantDef> defs_;
};

// Every mutant of this build, in op-file order.
const std::vector<MutantInfo>& mutant_catalog();

// Registers the prefix "mutant:" with the backend registry; called once
// from register_builtin_backends() (backends/builtin.cc). make_backend
// ("mutant:NAME") then answers a mutant, or nullptr for an unknown NAME.
void register_mutant_backend();

}  // namespace sp::mutant
