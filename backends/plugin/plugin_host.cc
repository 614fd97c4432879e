// scatterproof-plugin-host — runs one vendor plugin (include/scatterproof/plugin.h)
// out of the harness's process and speaks the subprocess line protocol
// (backends/process/protocol.h) for it on stdin/stdout.
//
//   scatterproof-plugin-host /path/libvendor.so
//
// The harness's "plugin:" backend starts this program under its supervisor,
// so whatever the plugin does (segfault, abort, exit, hang, print) costs at
// most the case it was running.
//
// Loading the plugin and running a request through it is plugin_call.h's
// (the op table decides the ops offered and the "out" allocated; the
// arguments are passed through as the request carries them, by name).
//
// Protocol channel protection: before the plugin is loaded (its constructors
// run at dlopen) the protocol's stdin/stdout are moved to private
// close-on-exec descriptors; fd 1 then points at stderr and fd 0 at
// /dev/null, so a vendor's printf or read(0) cannot touch the protocol. That,
// the protocol loop and the exit codes are shared with scatterproof-serve
// (backends/process/serve.h).
//
// Exit codes: 0 after "bye" or end of input; 2 bad command line; 3 the
// plugin cannot be loaded or its ABI is refused (the handshake is answered
// "unavailable" with the reason, which is also on stderr; a plugin of
// another ABI major is refused with both versions and, for 1.x, a pointer
// to the migration note in docs/plugin-abi.md); 4 the harness
// sent a message this host cannot decode.
#include <cstdio>

#include "backends/plugin/plugin_call.h"
#include "backends/process/protocol.h"
#include "backends/process/serve.h"
#include "reference/op_call.h"
#include "scatterproof/plugin.h"

namespace sp {
namespace {

using plugin::hello_reply;
using plugin::run_case;

constexpr const char* kProgram = "scatterproof-plugin-host";

int serve(const protocol::Channel& ch, const sp_plugin& plugin) {
  const int status = protocol::serve(ch, {[&] { return hello_reply(plugin); },
                                          [&](uint64_t id, OpCall& call) { return run_case(ch, plugin, id, call); }});
  if (plugin.release) plugin.release();
  return status;
}

}  // namespace
}  // namespace sp

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: scatterproof-plugin-host /path/to/libvendor.so\n");
    return sp::protocol::kExitUsage;
  }
  const sp::protocol::Channel channel = sp::protocol::protect_channel(sp::kProgram);
  const sp::plugin::LoadedPlugin loaded = sp::plugin::load_plugin(argv[1]);
  if (!loaded.plugin) return sp::protocol::refuse(channel, loaded.refusal);
  return sp::serve(channel, *loaded.plugin);
}
