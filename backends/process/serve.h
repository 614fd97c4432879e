// serve.h — the program side of the line protocol (protocol.h), shared by
// the programs of this project that serve a backend on stdin/stdout:
// scatterproof-plugin-host (a vendor plugin) and scatterproof-serve (a
// built-in backend, e.g. LibTorch 2.15 in its own process beside the
// harness's LibTorch 1.13).
//
// A program calls protect_channel() first, before it loads anything that may
// print (a plugin's constructors, a framework's libraries): the protocol's
// stdin/stdout move to private close-on-exec descriptors, fd 1 then points
// at stderr and fd 0 at /dev/null, so a stray printf or read(0) cannot touch
// the protocol. Then serve() runs the loop: hello -> the program's hello,
// run -> one decoded request to the program's handler, bye or end of input
// -> return 0. A program that cannot serve answers the hello with
// refuse() ("unavailable", with the reason) and exits.
//
// The exit codes are the same for every such program:
//   0  after "bye" or end of input
//   2  bad command line                      (kExitUsage)
//   3  cannot serve: the backend or plugin is unavailable or refused, or the
//      protocol channel cannot be set up     (kExitUnavailable)
//   4  the harness sent a message the program cannot decode, or closed the
//      channel mid-answer                    (kExitBadRequest)
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "backends/process/protocol.h"
#include "reference/op_call.h"

namespace sp::protocol {

inline constexpr int kExitUsage = 2;
inline constexpr int kExitUnavailable = 3;
inline constexpr int kExitBadRequest = 4;

// The protocol's private descriptors (see the file comment).
struct Channel {
  std::string program;  // for messages on stderr: "scatterproof-serve"
  FILE* in = nullptr;
  FILE* out = nullptr;
};

// Writes "PROGRAM: WHY" to stderr and exits with `code` at once.
[[noreturn]] void die(const std::string& program, int code, const std::string& why);

// Moves the protocol off fds 0/1; dies with kExitUnavailable if it cannot.
Channel protect_channel(const std::string& program);

void send(const Channel& ch, const nlohmann::json& message);  // dies with kExitBadRequest on a closed channel
std::optional<std::string> receive(const Channel& ch);        // one line; nullopt at end of input

// What the program answers: its hello, and one response line per run
// request (encode_outcome, or broken_contract).
struct Handlers {
  std::function<Hello()> hello;
  std::function<nlohmann::json(uint64_t id, OpCall& call)> run;
};

// The loop: when the harness's hello asks for "operands", the program's
// hello says "operands": true and every answer to a run request carries
// the storages of the operands the request sent, as the handler left them
// (PROTOCOL.md "Operands after the call"). Returns 0 after "bye" or end of input; dies with kExitBadRequest
// on a message it cannot decode (not JSON, an unknown type, a run request
// decode_request refuses).
int serve(const Channel& ch, const Handlers& handlers);

// Answers the harness's hello with {"type":"unavailable","reason":...}
// (the backend is then unavailable, with the reason, also written to
// stderr) and returns kExitUnavailable.
int refuse(const Channel& ch, const std::string& reason);

// The answer to a request the served code broke its contract on (a plugin's
// invalid status, a harness error inside a built-in backend): an error whose
// category is deliberately no known one, so the harness rejects the answer
// as garbage (verdict error, the program restarted) with `why` in its
// message. Also written to stderr.
nlohmann::json broken_contract(const Channel& ch, uint64_t id, const std::string& why, const std::string& message);

}  // namespace sp::protocol
