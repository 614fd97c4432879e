// plugin_call.h — a vendor plugin (include/scatterproof/plugin.h) loaded
// and called in this process. scatterproof-plugin-host serves it out of the
// harness's process (the default: a plugin's crash costs one case); the
// coverage-guided fuzz target (fuzz/targets/plugin_guided.cc) calls it in
// process, so libFuzzer sees the plugin's own coverage.
//
// Everything it knows about ops comes from the op table
// (reference/op_table.h): the ops it offers (each one the plugin supports
// for some dtype), the data operand supports() is asked about, the operand
// the plugin writes and the shape and dtype of the "out" it allocates.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/process/protocol.h"
#include "backends/process/serve.h"
#include "reference/op_call.h"
#include "scatterproof/plugin.h"

namespace sp::plugin {

// The plugin, or why it is refused.
struct LoadedPlugin {
  const sp_plugin* plugin = nullptr;
  std::string refusal;
};
// dlopens `path` and checks the ABI: struct size, major version, entry points.
LoadedPlugin load_plugin(const std::string& path);

// The hello: every op of the table the plugin supports for some dtype, its
// name, version and ABI (plugin.h, call 4).
protocol::Hello hello_reply(const sp_plugin& plugin);

// Runs one request through the plugin (run, or backward for a backward op)
// and answers as the line protocol does (protocol::encode_outcome, or
// protocol::broken_contract on `ch` when the plugin breaks its contract).
// The plugin writes `call`'s operands in place; an out-of-place op's "out"
// is allocated into `call` first.
nlohmann::json run_case(const protocol::Channel& ch, const sp_plugin& plugin, uint64_t id, OpCall& call);

}  // namespace sp::plugin
