// protocol.cc — the codec of the line protocol (see protocol.h and PROTOCOL.md).
//
// Everything decoded here comes from a process we do not trust: every field
// is type-checked, storages are capped, and views are bounds-checked by
// Tensor::view before anyone reads through them.
#include "backends/process/protocol.h"

#include <array>
#include <cmath>
#include <limits>

namespace sp::protocol {
namespace {

using nlohmann::json;

// A storage larger than this is refused: no documented case needs it, and a
// hostile size must not make the harness allocate without limit.
constexpr size_t kMaxStorageBytes = size_t{256} << 20;

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Sextet value of each byte, or -1 for bytes outside the alphabet.
constexpr std::array<int8_t, 256> make_decode_table() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}
constexpr std::array<int8_t, 256> kDecodeTable = make_decode_table();

const json& field(const json& j, const char* name, const char* what) {
  if (!j.is_object()) throw ProtocolError(std::string(what) + " is not a JSON object");
  auto it = j.find(name);
  if (it == j.end()) throw ProtocolError(std::string(what) + " has no field '" + name + "'");
  return *it;
}

int64_t int_field(const json& j, const char* name, const char* what) {
  const json& v = field(j, name, what);
  if (!v.is_number_integer()) throw ProtocolError(std::string(what) + " field '" + name + "' is not an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw ProtocolError(std::string(what) + " field '" + name + "' exceeds int64");
  return v.get<int64_t>();
}

std::string string_field(const json& j, const char* name, const char* what) {
  const json& v = field(j, name, what);
  if (!v.is_string()) throw ProtocolError(std::string(what) + " field '" + name + "' is not a string");
  return v.get<std::string>();
}

Shape int_list(const json& j, const char* name) {
  const json& v = field(j, name, "tensor");
  if (!v.is_array()) throw ProtocolError(std::string("tensor field '") + name + "' is not an array");
  if (v.size() > static_cast<size_t>(kMaxRank))
    throw ProtocolError(std::string("tensor field '") + name + "' has more than " + std::to_string(kMaxRank) +
                        " entries");
  Shape out;
  for (const json& e : v) {
    if (!e.is_number_integer() ||
        (e.is_number_unsigned() && e.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())))
      throw ProtocolError(std::string("tensor field '") + name + "' holds a non-integer or out-of-range entry");
    out.push_back(e.get<int64_t>());
  }
  return out;
}

json encode_scalar(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Bool: return {{"kind", "bool"}, {"value", s.b}};
    case Scalar::Kind::Int: return {{"kind", "int"}, {"value", s.i}};
    case Scalar::Kind::Float:
      if (std::isnan(s.f)) return {{"kind", "float"}, {"value", "nan"}};
      if (std::isinf(s.f)) return {{"kind", "float"}, {"value", s.f > 0 ? "inf" : "-inf"}};
      return {{"kind", "float"}, {"value", s.f}};
  }
  throw ProtocolError("unknown scalar kind");
}

Scalar decode_scalar(const json& j) {
  const std::string kind = string_field(j, "kind", "scalar value");
  const json& v = field(j, "value", "scalar value");
  if (kind == "bool" && v.is_boolean()) return Scalar::of_bool(v.get<bool>());
  if (kind == "int" && v.is_number_integer()) return Scalar::of_int(int_field(j, "value", "scalar value"));
  if (kind == "float") {
    if (v.is_number()) return Scalar::of_float(v.get<double>());
    if (v == "nan") return Scalar::of_float(std::numeric_limits<double>::quiet_NaN());
    if (v == "inf") return Scalar::of_float(std::numeric_limits<double>::infinity());
    if (v == "-inf") return Scalar::of_float(-std::numeric_limits<double>::infinity());
  }
  throw ProtocolError("scalar value of kind '" + kind + "' has a value of the wrong type: " + v.dump());
}

uint64_t id_of(const json& j, const char* what) {
  const json& v = field(j, "id", what);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    throw ProtocolError(std::string(what) + " field 'id' is not a non-negative integer");
  return v.get<uint64_t>();
}

}  // namespace

std::string base64_encode(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t n = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (size - i == 1) {
    const uint32_t n = uint32_t{bytes[i]} << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += "==";
  } else if (size - i == 2) {
    const uint32_t n = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

std::vector<std::byte> base64_decode(const std::string& text) {
  if (text.size() % 4 != 0) throw ProtocolError("base64 text length " + std::to_string(text.size()) + " is not a multiple of 4");
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  const size_t decoded_size = text.size() / 4 * 3 - padding;
  if (decoded_size > kMaxStorageBytes)
    throw ProtocolError("storage of " + std::to_string(decoded_size) + " bytes exceeds the limit of " +
                        std::to_string(kMaxStorageBytes) + " bytes");
  std::vector<std::byte> out;
  out.reserve(decoded_size);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last_group = i + 4 == text.size();
    uint32_t n = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      int8_t sextet = kDecodeTable[static_cast<unsigned char>(c)];
      if (c == '=' && last_group && k >= 4 - padding) sextet = 0;
      if (sextet < 0) throw ProtocolError("invalid base64 character at offset " + std::to_string(i + k));
      n = (n << 6) | static_cast<uint32_t>(sextet);
    }
    out.push_back(static_cast<std::byte>(n >> 16));
    if (!(last_group && padding == 2)) out.push_back(static_cast<std::byte>((n >> 8) & 0xff));
    if (!(last_group && padding >= 1)) out.push_back(static_cast<std::byte>(n & 0xff));
  }
  return out;
}

json encode_tensor(const Tensor& t) {
  const auto& storage = t.storage();
  return {{"dtype", std::string(dtype_name(t.dtype()))},
          {"shape", t.shape()},
          {"strides", t.strides()},
          {"offset", t.offset()},
          {"storage", storage ? base64_encode(storage->data(), storage->size()) : std::string()}};
}

Tensor decode_tensor(const json& j) {
  const std::string dtype_text = string_field(j, "dtype", "tensor");
  const std::optional<DType> dtype = dtype_from_name(dtype_text);
  if (!dtype) throw ProtocolError("tensor has unknown dtype '" + dtype_text + "'");
  Shape shape = int_list(j, "shape");
  Shape strides = int_list(j, "strides");
  const int64_t offset = int_field(j, "offset", "tensor");
  auto storage = std::make_shared<std::vector<std::byte>>(base64_decode(string_field(j, "storage", "tensor")));
  if (storage->size() % dtype_size(*dtype) != 0)
    throw ProtocolError("tensor storage of " + std::to_string(storage->size()) + " bytes is not a whole number of " +
                        dtype_text + " elements");
  try {
    return Tensor::view(*dtype, std::move(shape), std::move(strides), offset, std::move(storage));
  } catch (const std::invalid_argument& e) {
    throw ProtocolError(std::string("tensor view is invalid: ") + e.what());
  }
}

json encode_request(uint64_t id, const OpCall& call) {
  json args = json::object();
  if (call.int_arg("dim")) args["dim"] = *call.int_arg("dim");
  if (call.string_arg("reduce")) args["reduce"] = *call.string_arg("reduce");
  if (call.scalar_arg("value")) args["value"] = encode_scalar(*call.scalar_arg("value"));
  if (call.bool_arg("overwrite")) args["overwrite"] = *call.bool_arg("overwrite");
  if (!call.doc_version.empty()) args["doc_version"] = call.doc_version;
  json tensors = json::object();
  for (const auto& [name, t] : call.tensors) tensors[name] = encode_tensor(t);
  return {{"type", "run"}, {"id", id}, {"op", call.op}, {"args", std::move(args)}, {"tensors", std::move(tensors)}};
}

OpCall decode_request(const json& j, uint64_t* id) {
  if (string_field(j, "type", "request") != "run") throw ProtocolError("request type is not 'run'");
  *id = id_of(j, "request");
  OpCall call;
  call.op = string_field(j, "op", "request");
  const json& args = field(j, "args", "request");
  if (!args.is_object()) throw ProtocolError("request field 'args' is not an object");
  if (args.contains("dim")) call.set_arg("dim", Arg::of_int(int_field(args, "dim", "args")));
  if (args.contains("reduce")) call.set_arg("reduce", Arg::of_string(string_field(args, "reduce", "args")));
  if (args.contains("value")) call.set_arg("value", Arg::of_scalar(decode_scalar(args["value"])));
  if (args.contains("overwrite")) {
    if (!args["overwrite"].is_boolean()) throw ProtocolError("args field 'overwrite' is not a boolean");
    call.set_arg("overwrite", Arg::of_bool(args["overwrite"].get<bool>()));
  }
  if (args.contains("doc_version")) call.doc_version = string_field(args, "doc_version", "args");
  const json& tensors = field(j, "tensors", "request");
  if (!tensors.is_object()) throw ProtocolError("request field 'tensors' is not an object");
  for (const auto& [name, t] : tensors.items()) call.tensors.emplace(name, decode_tensor(t));
  return call;
}

json encode_outcome(uint64_t id, const Outcome& outcome) {
  switch (outcome.kind) {
    case Outcome::Kind::Outputs: {
      json outputs = json::array();
      for (const Tensor& t : outcome.outputs) outputs.push_back(encode_tensor(t));
      return {{"type", "result"}, {"id", id}, {"outputs", std::move(outputs)}};
    }
    case Outcome::Kind::Error:
      return {{"type", "error"},
              {"id", id},
              {"category", outcome.error ? json(std::string(error_name(*outcome.error))) : json(nullptr)},
              {"message", outcome.message}};
    case Outcome::Kind::Unsupported: return {{"type", "unsupported"}, {"id", id}, {"reason", outcome.message}};
    case Outcome::Kind::Crash:
    case Outcome::Kind::Timeout:
    case Outcome::Kind::HarnessError: break;
  }
  throw ProtocolError("outcome kind '" + std::string(outcome_kind_name(outcome.kind)) +
                      "' is decided by the harness and has no protocol message");
}

Outcome decode_response(const json& j, uint64_t expected_id) {
  const std::string type = string_field(j, "type", "response");
  const uint64_t id = id_of(j, "response");
  if (id != expected_id)
    throw ProtocolError("response answers request " + std::to_string(id) + " but request " +
                        std::to_string(expected_id) + " was sent");
  if (type == "result") {
    const json& outputs = field(j, "outputs", "result");
    if (!outputs.is_array()) throw ProtocolError("result field 'outputs' is not an array");
    std::vector<Tensor> tensors;
    for (const json& t : outputs) tensors.push_back(decode_tensor(t));
    return Outcome::of_outputs(std::move(tensors));
  }
  if (type == "error") {
    // A null category: the framework raised an error the adapter could not
    // map to the taxonomy; the comparator reports it as "(no category)".
    if (field(j, "category", "error").is_null())
      return Outcome{Outcome::Kind::Error, {}, std::nullopt, string_field(j, "message", "error")};
    const std::string category = string_field(j, "category", "error");
    const std::optional<ErrorCategory> c = error_from_name(category);
    if (!c) throw ProtocolError("error response has unknown category '" + category + "'");
    return Outcome::of_error(*c, string_field(j, "message", "error"));
  }
  if (type == "unsupported") return Outcome::unsupported(string_field(j, "reason", "unsupported"));
  throw ProtocolError("response has unknown type '" + type + "'");
}

}  // namespace sp::protocol
