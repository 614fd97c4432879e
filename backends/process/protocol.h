// protocol.h — the line protocol between scatterproof and an out-of-process
// backend (a subprocess adapter, or the plugin host running a vendor's
// shared library). Version 2. Documented for adapter authors in
// backends/process/PROTOCOL.md (which also says what changed from 1).
//
// One JSON object per line, UTF-8. The backend's stdout carries only the
// protocol; its stderr is free for logs (the harness keeps the tail for
// crash reports).
//
//   harness -> backend   {"type":"hello","protocol":2}
//   backend -> harness   {"type":"hello","protocol":2,"name":"paddle","version":"3.3.1",
//                         "ops":["paddle.scatter"],
//                         "framework":{"name":"paddle","version":"3.3.1"}}   (framework optional)
//   harness -> backend   {"type":"run","id":7,"op":"torch.scatter_","args":{"dim":0,"reduce":"add",
//                         "value":{"kind":"float","value":1.5}},"doc_version":"2.3",
//                         "tensors":{"self":TENSOR,"index":TENSOR,...}}
//   backend -> harness   {"type":"result","id":7,"outputs":[TENSOR]}
//                      | {"type":"error","id":7,"category":"index_out_of_bounds","message":"..."}
//                        (category null: an error the adapter cannot map to the taxonomy)
//                      | {"type":"unsupported","id":7,"reason":"..."}
//   harness -> backend   {"type":"bye"}            (then the backend exits 0)
// Operands after the call (optional part of version 2, negotiated): the
// harness's hello says "operands": true; a backend that answers with
// "operands": true in its hello adds to every result, error and unsupported
//   "operands":{"self":"<base64>","index":"<base64>",...}
// — the whole storage of every operand the request sent with "storage", as
// the call left it, so the harness sees writes into read-only inputs and
// into self before an error. Without it those are "not observable".
// A backend that cannot serve (its framework is not installed) answers the
// hello with {"type":"unavailable","reason":"..."} and exits.
// Every request gets exactly one response line; anything else on stdout is
// a protocol violation (the supervisor restarts the backend).
//
// "args" holds exactly the arguments the case passes, by the names the op
// table declares (reference/op_table.h), each as the JSON value of its
// declared type: int -> integer, bool -> true/false, string -> string,
// scalar -> {"kind":"bool"|"int"|"float","value":...} (float specials as the
// strings "nan", "inf", "-inf"). An absent argument means the op's default.
// "doc_version" (optional) is the documentation version the case follows.
//
// TENSOR = {"dtype":"float32","shape":[2,3],"strides":[3,1],"offset":0,
//           "storage":"<base64 of the whole storage, little-endian>"}
// strides/offset are in elements. For an in-place op the backend returns
// self with its full storage (same strides/offset), so the harness can check
// that nothing outside self's view changed; likewise a correctly shaped
// out= operand (PyTorch's out=) comes back as out with its full storage.
// Operands that share one storage (an out= over an input) are sent once:
// the first operand (by name) carries "storage", the others
//   {"dtype":...,"shape":...,"strides":...,"offset":...,"storage_of":"input"}
// — a view of that operand's storage. Only a backend whose hello says
// "shared_storage": true is sent such calls; for any other the harness
// answers "unsupported" itself.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "reference/op_call.h"

namespace sp::protocol {

// 2: arguments are every op-table argument the case passes, typed, and
// doc_version moved from args to the request (1 had a fixed set of args).
inline constexpr int kVersion = 2;

// A malformed or unexpected message (the backend "answered garbage").
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Limits on what a peer may send (PROTOCOL.md, "Limits"). A line beyond
// them is a protocol violation, refused before it is parsed.
//
// Nesting depth of one line, as for spec files (harness/spec_loader.h
// kMaxJsonDepth): checked on the raw text, so a line of 40 MiB of '[' costs
// its bytes, never a parse tree.
inline constexpr int kMaxJsonDepth = 64;
// The storage one message may carry (per tensor when decoded, and in all
// through kMaxLineBytes): twice the
// per-case storage limit of spec files (2^24 bytes, harness/spec_loader.h
// kMaxCaseStorageBytes; the backends layer cannot include it, and
// tests/hostile_process_test.cc checks the two agree). A correct answer
// returns at most the case's storage (an in-place self, a caller's out=, with
// their whole storage) or fresh tensors of at most the case's logical
// elements (2^20) in the widest dtype (8 bytes: 2^23 bytes); the factor two
// is room for an op whose output outgrows its operands (index_select with a
// repeated index, a broadcasting take_along_dim).
inline constexpr size_t kMaxStorageBytes = size_t{1} << 25;
// The operands' storages an answer sends back ("operands"): at most the
// case's, the spec files' per-case limit (2^24 bytes, half kMaxStorageBytes;
// tests/hostile_process_test.cc checks it).
inline constexpr size_t kMaxOperandStorageBytes = kMaxStorageBytes / 2;
// The longest line: the base64 of kMaxStorageBytes of outputs plus
// kMaxOperandStorageBytes of operands (4 characters per 3 bytes) plus 1 MiB
// for the JSON around it (field names, shapes and strides of up to 32
// dimensions, messages). A correct answer carrying up to kMaxStorageBytes of
// outputs and the case's operands always fits (68 157 440 bytes); the
// supervisor never buffers more than this (plus one read) of a line.
inline constexpr size_t kMaxLineBytes = (kMaxStorageBytes + kMaxOperandStorageBytes + 2) / 3 * 4 + (size_t{1} << 20);

// Empty, or why `text` nests deeper than `max_depth` (brackets inside JSON
// strings do not count). Linear, no allocation.
std::string nesting_problem(std::string_view text, int max_depth = kMaxJsonDepth);
// One protocol line parsed. ProtocolError when it nests deeper than
// kMaxJsonDepth or is not JSON; the message completes "the line ...":
// "nests deeper than 64 levels (at byte 64)", "is not JSON: TEXT".
nlohmann::json parse_line(std::string_view line);

std::string base64_encode(const void* data, size_t size);
std::vector<std::byte> base64_decode(const std::string& text);  // throws ProtocolError

nlohmann::json encode_tensor(const Tensor& t);
Tensor decode_tensor(const nlohmann::json& j);  // throws ProtocolError (bounds-checked view)

nlohmann::json encode_request(uint64_t id, const OpCall& call);
// {"type":"program","id","inputs":{NAME:TENSOR},"steps":[{"let"?,"op","args",
// "operands"}],"expect":[NAME],"doc_version"?} (PROTOCOL.md "Programs"); each
// step's args encoded as a run request's. protocol_program.cc.
nlohmann::json encode_program_request(uint64_t id, const Program& program);
// Whether two operands of `call` share a storage (sent with "storage_of").
bool shares_storage(const OpCall& call);
// Throws ProtocolError on garbage, an op not in the op table, or an
// argument the op does not declare or of another JSON type than declared
// (the message names the argument).
OpCall decode_request(const nlohmann::json& j, uint64_t* id);

// The program's answer to the handshake (PROTOCOL.md, "Sequence", 2).
struct Hello {
  std::string name;     // what runs ("paddle", "LibTorch"): name + " " + version is the
  std::string version;  // backend's version() in every result
  std::vector<std::string> ops;
  // "shared_storage": true — it rebuilds operands sent with "storage_of".
  bool shared_storage = false;
  // "framework": {"name","version"} — the framework whose rules it runs by
  // (Backend::framework()); absent for an implementation of the documents.
  std::optional<FrameworkVersion> framework;
  std::string abi;  // the plugin host's: the plugin's ABI version (informational)
  // "operands": true — every answer carries "operands" (the storages after
  // the call). The harness's own hello says it too, asking for them.
  bool operands = false;
  // "device": where it runs the ops ("cuda:0"; the fake "fakecuda"); absent
  // or "cpu": the host (Backend::device()).
  std::string device;
  // "programs": true — it takes a whole program in one "program" request
  // (PROTOCOL.md "Programs"); without it a program runs one request per step.
  bool programs = false;
};
nlohmann::json encode_hello(const Hello& hello);
// Decodes a {"type":"hello"} answer (the caller has checked type and
// protocol number). name, version, ops and shared_storage are read leniently
// as before; a "framework" that is present must be an object with string
// "name" and "version", else ProtocolError naming the field.
Hello decode_hello(const nlohmann::json& j);

nlohmann::json encode_outcome(uint64_t id, const Outcome& outcome);  // result | error | unsupported
// Throws ProtocolError on garbage, an unknown category, or an id other than
// `expected_id` (a backend answering the wrong request).
Outcome decode_response(const nlohmann::json& j, uint64_t expected_id);

// The operands that carry a storage in a request (the first operand by name
// of each storage; the others are sent with "storage_of"), with their
// storages: what an answer's "operands" returns.
using OperandStorages = std::vector<std::pair<std::string, std::shared_ptr<std::vector<std::byte>>>>;
OperandStorages operand_storages(const OpCall& call);
// {"self":"<base64>",...} of those storages as they are now.
nlohmann::json encode_operands(const OperandStorages& operands);
// Copies a response's "operands" into `call`'s storages (the ones
// operand_storages(call) names). ProtocolError, before anything is copied,
// when the field is missing or not an object, names another operand set,
// or a storage is not base64 of exactly the size that was sent.
void apply_operands(const nlohmann::json& response, const OpCall& call);

}  // namespace sp::protocol
