// protocol_program.cc — the "program" request of the line protocol
// (protocol.h, PROTOCOL.md "Programs").
#include "backends/process/protocol.h"

namespace sp::protocol {

nlohmann::json encode_program_request(uint64_t id, const Program& program) {
  nlohmann::json inputs = nlohmann::json::object();
  for (const auto& [name, t] : program.inputs) inputs[name] = encode_tensor(t);
  nlohmann::json steps = nlohmann::json::array();
  for (const ProgramStep& step : program.steps) {
    // A step's arguments travel exactly as a run request's (its call has no tensors).
    nlohmann::json s = {{"op", step.op}, {"args", encode_request(0, step.call)["args"]}, {"operands", step.operands}};
    if (!step.let.empty()) s["let"] = step.let;
    steps.push_back(std::move(s));
  }
  nlohmann::json request = {{"type", "program"},
                            {"id", id},
                            {"inputs", std::move(inputs)},
                            {"steps", std::move(steps)},
                            {"expect", program.expect}};
  if (!program.framework_version.empty()) request["doc_version"] = program.framework_version;
  return request;
}

}  // namespace sp::protocol
