// mutant_backend.cc — the "mutant:" backend family: the registry of mutant
// definitions (one register_<stem>() per op file, listed by sp_op_files)
// and the Backend that applies one of them around a cpu backend.
#include <memory>
#include <stdexcept>

#include "backends/mutant/mutant.h"
#include "sp_mutant_op_files.h"

namespace sp::mutant {

#define SP_DECLARE_MUTANT_FILE(stem) void register_##stem(MutantRegistry& registry);
SP_OP_FILES(SP_DECLARE_MUTANT_FILE)
#undef SP_DECLARE_MUTANT_FILE

void MutantRegistry::add(MutantInfo info, MutantApplies applies, MutantRun run) {
  for (const MutantDef& d : defs_)
    if (d.info.name == info.name) throw std::logic_error("mutant '" + info.name + "' is defined twice");
  defs_.push_back({std::move(info), std::move(applies), std::move(run)});
}

namespace {

const std::vector<MutantDef>& definitions() {
  static const MutantRegistry registry = [] {
    MutantRegistry r;
#define SP_REGISTER_MUTANT_FILE(stem) register_##stem(r);
    SP_OP_FILES(SP_REGISTER_MUTANT_FILE)
#undef SP_REGISTER_MUTANT_FILE
    return r;
  }();
  return registry.definitions();
}

class MutantBackend final : public Backend {
 public:
  MutantBackend(const MutantDef& def, std::unique_ptr<Backend> cpu) : def_(def), cpu_(std::move(cpu)) {}
  std::string name() const override { return "mutant:" + def_.info.name; }
  std::string description() const override { return "deliberately wrong cpu backend: " + def_.info.bug; }
  bool implements(std::string_view op) const override { return cpu_->implements(op); }
  Outcome run(const OpCall& call) override {
    // A call that does not fit its op's signature is the harness's problem,
    // not the bug's: the cpu backend answers it.
    if ((needs_signature_check(call) && check_signature(call)) || !def_.applies(op_spec(call))) return cpu_->run(call);
    OpCall mine = call;
    return def_.run(*cpu_, mine);
  }

 private:
  const MutantDef& def_;
  std::unique_ptr<Backend> cpu_;
};

std::unique_ptr<Backend> make_mutant(const std::string& name, const BackendOptions& opts) {
  for (const MutantDef& d : definitions()) {
    if (d.info.name != name) continue;
    auto cpu = make_backend("cpu", opts, nullptr);
    return cpu ? std::make_unique<MutantBackend>(d, std::move(cpu)) : nullptr;
  }
  return nullptr;
}

}  // namespace

const std::vector<MutantInfo>& mutant_catalog() {
  static const std::vector<MutantInfo> infos = [] {
    std::vector<MutantInfo> v;
    for (const MutantDef& d : definitions()) v.push_back(d.info);
    return v;
  }();
  return infos;
}

void register_mutant_backend() {
  register_backend("mutant:", "deliberately wrong cpu backends for mutation testing (scatterproof mutants)",
                   [](const std::string& full, const BackendOptions& opts) {
                     return make_mutant(full.substr(full.find(':') + 1), opts);
                   });
}

}  // namespace sp::mutant
