// scatterproof-serve — serves one built-in backend of this build (the name
// make_backend takes: libtorch, cpu, ...) over the subprocess line protocol
// (backends/process/protocol.h, PROTOCOL.md) on stdin/stdout.
//
//   scatterproof-serve BACKEND
//
// What it is for: two LibTorch versions cannot share one process (one set of
// c10/torch_cpu symbols), so the harness links Debian's LibTorch 1.13 as the
// in-process backend `libtorch`, and build-libtorch-current/ (a second build
// tree against the current PyTorch wheel, scripts/setup-libtorch-current.sh)
// builds only this program; the harness's backend `libtorch-current` runs it
// as `scatterproof-serve libtorch` under its supervisor.
//
// The hello names the backend's version() split at its first space
// ("LibTorch 2.15.0" -> name "LibTorch", version "2.15.0", so the harness's
// backend_version is the served backend's own), lists every op of the op
// table the backend implements, says shared_storage (operands sharing a
// storage are rebuilt over one buffer by the decoder), and passes the
// backend's framework() through as "framework". Each request is run with
// run_backend(); an outcome the protocol has no message for (a harness error
// inside the backend, a device crash) is answered as a broken contract, so
// the harness reports it as an error with the reason.
//
// The protocol channel is protected before the backend is created, and the
// exit codes are those of every protocol server here (serve.h): 0 after
// "bye" or end of input; 2 bad command line; 3 the backend is unknown or
// unavailable in this build (the handshake is answered "unavailable" with
// the reason, which is also on stderr); 4 the harness sent a message this
// program cannot decode.
#include <cstdio>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/process/protocol.h"
#include "backends/process/serve.h"
#include "reference/op_table.h"

namespace sp {
namespace {

constexpr const char* kProgram = "scatterproof-serve";

protocol::Hello hello_of(const Backend& backend) {
  protocol::Hello hello;
  const std::string version = backend.version();
  const size_t space = version.find(' ');
  hello.name = space == std::string::npos ? backend.name() : version.substr(0, space);
  hello.version = space == std::string::npos ? version : version.substr(space + 1);
  for (const OpSpec& op : op_table())
    if (backend.implements(op.id)) hello.ops.push_back(op.id);
  hello.shared_storage = true;
  hello.framework = backend.framework();
  hello.device = backend.device();  // a device variant's ("cuda:0"): results and expectations key on it
  return hello;
}

nlohmann::json run_case(const protocol::Channel& ch, Backend& backend, uint64_t id, const OpCall& call) {
  const Outcome outcome = run_backend(backend, call);
  switch (outcome.kind) {
    case Outcome::Kind::Outputs:
    case Outcome::Kind::Error:
    case Outcome::Kind::Unsupported:
      return protocol::encode_outcome(id, outcome);
    case Outcome::Kind::Crash:
    case Outcome::Kind::Timeout:
    case Outcome::Kind::HarnessError:
    case Outcome::Kind::DeviceAssert:
      break;
  }
  return protocol::broken_contract(
      ch, id, backend.name() + " answered " + std::string(outcome_kind_name(outcome.kind)) + ": " + outcome.message,
      outcome.message);
}

}  // namespace
}  // namespace sp

int main(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: scatterproof-serve BACKEND   (a built-in backend: `scatterproof backends`)\n");
    return sp::protocol::kExitUsage;
  }
  const sp::protocol::Channel channel = sp::protocol::protect_channel(sp::kProgram);
  std::string why;
  const std::unique_ptr<sp::Backend> backend = sp::make_backend(argv[1], sp::BackendOptions{}, &why);
  if (!backend) return sp::protocol::refuse(channel, why);
  return sp::protocol::serve(
      channel, {[&] { return sp::hello_of(*backend); },
                [&](uint64_t id, sp::OpCall& call) { return sp::run_case(channel, *backend, id, call); }});
}
