// supervisor_call.cc — one request to the supervised child (supervisor.h):
// the call sent and waited for, its answer decoded with the operands'
// storages applied, a kernel's device-side assert named as such, and the
// outcome of a child that died, hung or overflowed the line limit.
#include <poll.h>

#include <algorithm>
#include <regex>

#include "backends/process/protocol.h"
#include "backends/process/supervisor.h"
#include "reference/op_table.h"

namespace sp {
namespace {

// What the comparator cannot see of a program that does not return its
// operands (its hello lacks "operands": true).
std::string unobservable_reason(const OpCall& call, const Outcome& outcome) {
  const std::string written = written_operand(call);
  const bool self_returned = outcome.kind == Outcome::Kind::Outputs && !written.empty();
  std::string what;
  for (const auto& [name, storage] : protocol::operand_storages(call))
    if (!(self_returned && name == written)) what += (what.empty() ? "" : ", ") + name;
  if (what.empty()) return "";
  return "the program does not return its operands' storage after a call (its hello lacks \"operands\": true, "
         "PROTOCOL.md \"Operands after the call\"): writes into " +
         what + " cannot be seen";
}

// An in-place op's caller sees the result in its own `self` (backend.h):
// copy the storage the child returned over the one it was sent. The whole
// storage travels, so a write outside self's view shows up too. A given
// out= comes back the same way when it was written in place; returned in
// another layout (a mis-shaped out, resized), it is judged as returned.
std::string write_back_self(const OpCall& call, const Outcome& outcome) {
  const std::string written = written_operand(call);
  const Tensor* self = call.tensor(written);
  if (!self || outcome.outputs.size() != 1) return "in-place op must return exactly one output, self";
  const Tensor& got = outcome.outputs.front();
  if (!is_inplace_op(call) && (got.shape() != self->shape() || got.strides() != self->strides() ||
                               got.offset() != self->offset() || got.storage()->size() != self->storage()->size()))
    return "";
  if (got.dtype() != self->dtype() || got.shape() != self->shape() || got.strides() != self->strides() ||
      got.offset() != self->offset() || got.storage()->size() != self->storage()->size())
    return "returned self as " + got.describe() + " (storage " + std::to_string(got.storage()->size()) +
           " bytes), but it was sent as " + self->describe() + " (storage " + std::to_string(self->storage()->size()) +
           " bytes)";
  std::copy(got.storage()->begin(), got.storage()->end(), self->storage()->begin());
  return "";
}

// "CUDA error: device-side assert triggered" (PyTorch's text; the CUDA
// runtime's cudaErrorAssert) in an error's message.
bool says_device_assert(const std::string& text) {
  return text.find("device-side assert triggered") != std::string::npos;
}

// A kernel's assert on stderr, as the device's printf writes it:
//   /pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:163: operator(): block: [0,0,0], thread: [0,0,0]
//   Assertion `idx_dim >= 0 && idx_dim < index_size && "index out of bounds"` failed.
// as "ScatterGatherKernel.cu:163: Assertion `...` failed (operator(), block [0,0,0], thread [0,0,0])" (the
// first one: every thread that hit it prints the same line); "" when there is none.
std::string kernel_assert(const std::string& stderr_text) {
  static const std::regex line(R"(([^\s:]*/)?([A-Za-z0-9_.-]+\.cu):(\d+): ([^\n]*?)\s*Assertion `([^\n]*)` failed\.?)");
  std::smatch m;
  if (!std::regex_search(stderr_text, m, line)) return "";
  std::string where = m[4].str();
  while (!where.empty() && (where.back() == ' ' || where.back() == ':' || where.back() == ',')) where.pop_back();
  for (size_t at = where.find(": "); at != std::string::npos; at = where.find(": ", at)) where.replace(at, 2, " ");
  return m[2].str() + ":" + m[3].str() + ": Assertion `" + m[5].str() + "` failed" +
         (where.empty() ? "" : " (" + where + ")");
}

}  // namespace

// The answer line of request `id` as the call's outcome: decoded, the
// operands' storages applied to `call`, a device-side assert named as such;
// the child is marked for a restart where the answer says it must be.
Outcome Supervisor::take_answer(std::string line, const OpCall& call, uint64_t id) {
  nlohmann::json j;
  try {
    j = protocol::parse_line(line);
  } catch (const protocol::ProtocolError& e) {
    trusted_ = false;
    return Outcome::harness_error("backend '" + command_line() + "' answered request " + std::to_string(id) +
                                  " with a line that " + e.what());
  }
  std::string().swap(line);  // parsed: its bytes are not needed while the tensors are decoded
  try {
    // A valid answer followed by more output keeps its answer, but the
    // child is restarted before the next request.
    if (!stdout_buffer_.empty()) trusted_ = false;
    Outcome outcome = protocol::decode_response(j, id);
    if (outcome.kind == Outcome::Kind::Error && says_device_assert(outcome.message)) {
      // The kernel's own words are on stderr, written before the framework raised.
      drain_stderr(kStderrGrace / 4);
      const std::string where = kernel_assert(stderr_ring_);
      kill_and_reap();  // the device context is lost: the next call gets a new one
      return Outcome{Outcome::Kind::DeviceAssert,
                     {},
                     std::nullopt,
                     (where.empty() ? "(no kernel assert text on stderr)" : where) + "; " + outcome.message};
    }
    if (outcome.kind == Outcome::Kind::Error && outcome.message.find("CUDA error: ") != std::string::npos)
      trusted_ = false;  // a CUDA error poisons the context: the answer stands, the child is replaced
    // Every operand's storage as the program left it, errors included:
    // the comparator's side-effect checks see them in the caller's call.
    if (info_.operands)
      protocol::apply_operands(j, call);
    else
      outcome.side_effects_unobservable = unobservable_reason(call, outcome);
    if (outcome.kind == Outcome::Kind::Outputs && !written_operand(call).empty()) {
      if (std::string bad = write_back_self(call, outcome); !bad.empty()) {
        trusted_ = false;
        return Outcome::harness_error("backend '" + command_line() + "' on request " + std::to_string(id) + ": " + bad);
      }
    }
    return outcome;
  } catch (const protocol::ProtocolError& e) {
    trusted_ = false;
    return Outcome::harness_error("backend '" + command_line() + "' broke the protocol on request " +
                                  std::to_string(id) + ": " + e.what());
  }
}

std::optional<Outcome> Supervisor::ready() {
  // Output the child wrote between requests breaks the protocol: start afresh.
  if (pid_ > 0 && (!stdout_buffer_.empty() || [&] {
        pollfd p{stdout_fd_, POLLIN, 0};
        return ::poll(&p, 1, 0) > 0;
      }()))
    trusted_ = false;
  if (!trusted_) {
    if (consecutive_start_failures_ >= options_.max_consecutive_start_failures)
      return Outcome{Outcome::Kind::Crash,
                     {},
                     std::nullopt,
                     "gave up restarting after " + std::to_string(consecutive_start_failures_) +
                         " failed starts in a row: " + last_start_error_};
    if (std::string err = start(); !err.empty())
      return Outcome{Outcome::Kind::Crash, {}, std::nullopt, "could not (re)start the backend: " + err};
  }
  return std::nullopt;
}

Outcome Supervisor::call(const OpCall& call) {
  if (std::optional<Outcome> refused = ready()) return std::move(*refused);
  if (std::find(info_.ops.begin(), info_.ops.end(), call.op) == info_.ops.end())
    return Outcome::unsupported(info_.name + " adapter does not implement " + call.op);
  if (!info_.shared_storage && protocol::shares_storage(call))
    return Outcome::unsupported(info_.name +
                                " adapter cannot take operands that share a storage (its hello does not say "
                                "\"shared_storage\": true)");
  const uint64_t id = next_id_++;
  return request(protocol::encode_request(id, call), id, options_.case_timeout,
                 [&](std::string line) { return take_answer(std::move(line), call, id); });
}

Outcome Supervisor::call_program(const Program& program, std::chrono::milliseconds timeout) {
  if (std::optional<Outcome> refused = ready()) return std::move(*refused);
  if (!info_.programs) return Outcome::unsupported(info_.name + " adapter does not take programs whole");
  const uint64_t id = next_id_++;
  return request(protocol::encode_program_request(id, program), id, timeout, [&](std::string line) {
    try {
      if (!stdout_buffer_.empty()) trusted_ = false;
      Outcome o = protocol::decode_response(protocol::parse_line(line), id);
      if (o.kind == Outcome::Kind::Outputs && o.outputs.size() != program.expect.size()) {
        trusted_ = false;
        return Outcome::harness_error("backend '" + command_line() + "' answered program request " +
                                      std::to_string(id) + " with " + std::to_string(o.outputs.size()) +
                                      " outputs for " + std::to_string(program.expect.size()) + " compared tensors");
      }
      return o;
    } catch (const protocol::ProtocolError& e) {
      trusted_ = false;
      return Outcome::harness_error("backend '" + command_line() + "' broke the protocol on program request " +
                                    std::to_string(id) + ": " + e.what());
    }
  });
}

Outcome Supervisor::request(const nlohmann::json& message, uint64_t id, std::chrono::milliseconds timeout,
                            const std::function<Outcome(std::string)>& take) {
  const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  Exchange ex = exchange(line, timeout);
  switch (ex.kind) {
    case Exchange::Kind::Line:
      return take(std::move(ex.line));
    case Exchange::Kind::Overflow:
      kill_and_reap();
      return Outcome::harness_error("backend '" + command_line() + "' wrote a response line over " +
                                    std::to_string(options_.max_line_bytes) +
                                    " bytes (the protocol's limit, PROTOCOL.md \"Limits\")");
    case Exchange::Kind::Interrupted:
      kill_and_reap();
      return Outcome::harness_error("interrupted: the run was asked to stop, the call was abandoned");
    case Exchange::Kind::TimedOut: {
      const pid_t pid = pid_;
      kill_and_reap();
      return Outcome{Outcome::Kind::Timeout,
                     {},
                     std::nullopt,
                     "no answer within " + std::to_string(timeout.count()) + " ms; killed pid " + std::to_string(pid) +
                         stderr_tail()};
    }
    case Exchange::Kind::Died: {
      std::string status = reap_status(kExitGrace);
      if (status.empty()) {  // closed its stdout but lives on
        kill_and_reap();
        status = "closed its stdout and was killed";
      }
      if (const std::string where = kernel_assert(stderr_ring_); !where.empty())
        return Outcome{Outcome::Kind::DeviceAssert,
                       {},
                       std::nullopt,
                       where + "; backend '" + command_line() + "' " + status + " during request " +
                           std::to_string(id) + stderr_tail()};
      return Outcome{
          Outcome::Kind::Crash,
          {},
          std::nullopt,
          "backend '" + command_line() + "' " + status + " during request " + std::to_string(id) + stderr_tail()};
    }
  }
  return Outcome::harness_error("unreachable exchange state");
}

}  // namespace sp
