#include <map>
#include <utility>

#include "backends/backend.h"
#include "reference/op_table.h"

namespace sp {
namespace {

std::map<std::string, RegisteredBackend>& registry() {
  static std::map<std::string, RegisteredBackend> r;
  return r;
}

thread_local std::string unavailable_reason;

}  // namespace

void explain_unavailable(std::string reason) { unavailable_reason = std::move(reason); }

std::string take_unavailable_reason() { return std::exchange(unavailable_reason, std::string()); }

std::string_view outcome_kind_name(Outcome::Kind k) {
  switch (k) {
    case Outcome::Kind::Outputs:
      return "outputs";
    case Outcome::Kind::Error:
      return "error";
    case Outcome::Kind::Unsupported:
      return "unsupported";
    case Outcome::Kind::Crash:
      return "crash";
    case Outcome::Kind::Timeout:
      return "timeout";
    case Outcome::Kind::HarnessError:
      return "harness_error";
    case Outcome::Kind::DeviceAssert:
      return "device_assert";
  }
  return "?";
}

std::string Backend::version() const { return "scatterproof " SP_PROJECT_VERSION; }

Outcome run_backend(Backend& backend, const OpCall& call) {
  // A call bound where it entered (bind_call) had its signature checked there.
  if (const auto problem = needs_signature_check(call) ? check_signature(call) : std::nullopt)
    return Outcome::harness_error(call.op + ": " + problem->field + ": " + problem->message);
  if (!backend.implements(call.op))
    return Outcome::unsupported("backend " + backend.name() + " does not implement op " + call.op);
  return backend.run(call);
}

void register_backend(const std::string& name, std::string summary, BackendFactory factory, bool in_process,
                      BackendOrigin origin) {
  registry()[name] = RegisteredBackend{std::move(summary), std::move(factory), in_process, origin};
}

const RegisteredBackend* find_registered_backend(const std::string& name) {
  auto it = registry().find(name);
  if (it == registry().end()) {
    // Prefix registrations ("plugin:", "mutant:") receive the full name.
    const auto colon = name.find(':');
    if (colon != std::string::npos) it = registry().find(name.substr(0, colon + 1));
    // A numbered device ("torch-python@cuda:1") is served by its device
    // variant ("torch-python@cuda"), which receives the full name.
    const auto at = name.find('@');
    if (it == registry().end() && at != std::string::npos && colon != std::string::npos && at < colon)
      it = registry().find(name.substr(0, colon));
  }
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<BackendInfo> list_registered_backends() {
  std::vector<BackendInfo> out;
  for (const auto& [name, e] : registry()) out.push_back({name, e.summary, e.in_process, e.origin});
  return out;
}

}  // namespace sp
