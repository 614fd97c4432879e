// plugin_backend.h — the "plugin:" backend: a vendor's shared library
// (include/scatterproof/plugin.h) run out of process.
//
//   scatterproof run --backend plugin:/path/libvendor.so ...
//
// The backend starts `scatterproof-plugin-host /path/libvendor.so` under a
// Supervisor (backends/process/supervisor.h): the plugin never runs inside
// the harness, so a crash, abort or hang costs one case (CRASH / TIMEOUT)
// and the host is restarted for the next. The host is looked up next to the
// running executable (an installed tree: bin/scatterproof beside
// bin/scatterproof-plugin-host), then where this build tree put it.
// The process backends' timeout setting bounds each case and each start
// (BackendOptions::timeout_s, the CLI's --timeout, else
// SCATTERPROOF_CASE_TIMEOUT_S, else 10 s; backends/process/supervisor.h).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "backends/backend.h"

namespace sp {

// The plugin host executable this build uses: beside the running program,
// else this build tree's ("" when neither; resources::helper_program).
std::string plugin_host_path();

// Starts the host for `library` (made absolute) and performs the handshake.
// Returns nullptr and sets *why when the library is missing or the host
// refuses it (an ABI-major mismatch, no sp_plugin_entry, a load error).
// `stop`: BackendOptions::stop.
std::unique_ptr<Backend> make_plugin_backend(const std::string& library, std::chrono::milliseconds case_timeout,
                                             std::string* why, const std::atomic<int>* stop = nullptr);

// Registers the "plugin:" prefix (one line in backends/builtin.cc).
void register_plugin_backend();

}  // namespace sp
