#include "backends/process/serve.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace sp::protocol {

void die(const std::string& program, int code, const std::string& why) {
  std::fprintf(stderr, "%s: %s\n", program.c_str(), why.c_str());
  std::fflush(stderr);
  std::_Exit(code);
}

Channel protect_channel(const std::string& program) {
  const int in_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  const int out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in_fd < 0 || out_fd < 0 || null_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
      dup2(null_fd, STDIN_FILENO) < 0)
    die(program, kExitUnavailable, std::string("cannot set up the protocol channel: ") + std::strerror(errno));
  close(null_fd);
  Channel ch{program, fdopen(in_fd, "r"), fdopen(out_fd, "w")};
  if (!ch.in || !ch.out) die(program, kExitUnavailable, "fdopen failed on the protocol channel");
  return ch;
}

void send(const Channel& ch, const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), ch.out) != line.size() || std::fflush(ch.out) != 0)
    die(ch.program, kExitBadRequest, "the harness closed the protocol channel");
}

std::optional<std::string> receive(const Channel& ch) {
  std::string line;
  for (int c; (c = std::fgetc(ch.in)) != EOF;) {
    if (c == '\n') return line;
    line.push_back(static_cast<char>(c));
  }
  if (line.empty()) return std::nullopt;
  return line;
}

int serve(const Channel& ch, const Handlers& handlers) {
  bool operands = false;  // the harness asked for the operands after each call
  while (std::optional<std::string> line = receive(ch)) {
    nlohmann::json message;
    std::string type;
    try {
      message = nlohmann::json::parse(*line);
      type = message.at("type").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      die(ch.program, kExitBadRequest, std::string("undecodable message from the harness: ") + e.what());
    }
    if (type == "hello") {
      operands = message.contains("operands") && message["operands"] == true;
      Hello hello = handlers.hello();
      hello.operands = operands;
      send(ch, encode_hello(hello));
    } else if (type == "bye") {
      break;
    } else if (type == "run") {
      uint64_t id = 0;
      OpCall call;
      try {
        call = decode_request(message, &id);
      } catch (const ProtocolError& e) {
        die(ch.program, kExitBadRequest, std::string("bad run request from the harness: ") + e.what());
      }
      // The storages the request carried, held before the handler runs (it
      // may replace an operand, e.g. a mis-shaped out by a fresh one): what
      // "operands" returns, as the call left them.
      const OperandStorages sent = operand_storages(call);
      nlohmann::json response = handlers.run(id, call);
      if (operands && response.is_object()) response["operands"] = encode_operands(sent);
      send(ch, response);
    } else {
      die(ch.program, kExitBadRequest, "unknown message type '" + type + "' from the harness");
    }
  }
  return 0;
}

int refuse(const Channel& ch, const std::string& reason) {
  std::fprintf(stderr, "%s: %s\n", ch.program.c_str(), reason.c_str());
  if (std::optional<std::string> line = receive(ch))
    send(ch, {{"type", "unavailable"}, {"protocol", kVersion}, {"reason", reason}});
  return kExitUnavailable;
}

nlohmann::json broken_contract(const Channel& ch, uint64_t id, const std::string& why, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", ch.program.c_str(), why.c_str());
  return {{"type", "error"}, {"id", id}, {"category", why}, {"message", message}};
}

}  // namespace sp::protocol
