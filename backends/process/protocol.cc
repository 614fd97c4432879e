// protocol.cc — the codec of the line protocol (see protocol.h and PROTOCOL.md).
//
// Everything decoded here comes from a process we do not trust: every field
// is type-checked, storages are capped, and views are bounds-checked by
// Tensor::view before anyone reads through them. Arguments are encoded
// generically and decoded typed by the op table (reference/op_table.h), so
// this file names no op and no argument.
#include "backends/process/protocol.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "reference/op_table.h"

namespace sp::protocol {
namespace {

using nlohmann::json;

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
    case Scalar::Kind::Bool:
      return {{"kind", "bool"}, {"value", s.b}};
    case Scalar::Kind::Int:
      return {{"kind", "int"}, {"value", s.i}};
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

// Every argument travels as the JSON value of its type: an int as a JSON
// integer, a bool as a JSON boolean, a string as a JSON string, a scalar as
// {"kind","value"} (its Python kind is part of the semantics), an int list as
// a JSON array. Nothing here names an argument: a new one needs no change.
json encode_arg(const Arg& arg) {
  switch (arg.type) {
    case Arg::Type::Int:
      return arg.i;
    case Arg::Type::Bool:
      return arg.b;
    case Arg::Type::String:
      return arg.s;
    case Arg::Type::Scalar:
      return encode_scalar(arg.scalar);
    case Arg::Type::IntList:
      return arg.ints;
  }
  throw ProtocolError("unknown argument type");
}

// The inverse, typed by the op's ArgSpec: the JSON type alone cannot tell
// an int argument from a bool-kind scalar's payload, and an argument the op
// does not declare is a harness/host mismatch, never something to guess at.
Arg decode_arg(const OpSpec& spec, const std::string& name, const json& value) {
  const ArgSpec* declared = spec.arg(name);
  if (!declared) {
    std::string names;
    for (const ArgSpec& a : spec.args) names += (names.empty() ? "" : ", ") + a.name;
    throw ProtocolError("request args field '" + name + "': " + spec.id + " takes no argument " + name +
                        " (its arguments: " + (names.empty() ? "none" : names) + ")");
  }
  const auto wrong_type = [&] {
    return ProtocolError("request args field '" + name + "' of " + spec.id + " must be " +
                         (declared->type == Arg::Type::Scalar
                              ? std::string("a {\"kind\",\"value\"} scalar")
                              : "a JSON " + std::string(arg_type_name(declared->type))) +
                         ", not " + value.dump());
  };
  const auto is_int64 = [](const json& v) {
    return v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() >> 63);
  };
  switch (declared->type) {
    case Arg::Type::Int:
      return is_int64(value) ? Arg::of_int(value.get<int64_t>()) : throw wrong_type();
    case Arg::Type::Bool:
      if (!value.is_boolean()) throw wrong_type();
      return Arg::of_bool(value.get<bool>());
    case Arg::Type::String:
      if (!value.is_string()) throw wrong_type();
      return Arg::of_string(value.get<std::string>());
    case Arg::Type::Scalar:
      if (!value.is_object()) throw wrong_type();
      try {
        return Arg::of_scalar(decode_scalar(value));
      } catch (const ProtocolError& e) {
        throw ProtocolError("request args field '" + name + "' of " + spec.id + ": " + e.what());
      }
    case Arg::Type::IntList:
      if (!value.is_array() || !std::all_of(value.begin(), value.end(), is_int64)) throw wrong_type();
      return Arg::of_ints(value.get<std::vector<int64_t>>());
  }
  throw wrong_type();
}

uint64_t id_of(const json& j, const char* what) {
  const json& v = field(j, "id", what);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    throw ProtocolError(std::string(what) + " field 'id' is not a non-negative integer");
  return v.get<uint64_t>();
}

}  // namespace

std::string nesting_problem(std::string_view text, int max_depth) {
  int depth = 0;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  for (const char* p = begin; p < end; ++p) {
    switch (*p) {
      case '"': {
        // Skip the string: to its closing quote, past escaped characters.
        for (++p;; ++p) {
          const char* quote = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
          if (!quote) return {};  // unterminated: the parser says so
          const char* backslash = static_cast<const char*>(std::memchr(p, '\\', static_cast<size_t>(quote - p)));
          if (!backslash) {
            p = quote;
            break;
          }
          p = backslash + 1;  // the escaped character; the loop's ++p steps past it
          if (p == end) return {};
        }
        break;
      }
      case '[':
      case '{':
        if (++depth > max_depth)
          return "nests deeper than " + std::to_string(max_depth) + " levels (at byte " + std::to_string(p - begin) +
                 ")";
        break;
      case ']':
      case '}':
        --depth;
        break;
      default:
        break;
    }
  }
  return {};
}

json parse_line(std::string_view line) {
  if (std::string problem = nesting_problem(line); !problem.empty()) throw ProtocolError(problem);
  json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    constexpr size_t kShown = 200;
    throw ProtocolError("is not JSON: " + std::string(line.substr(0, kShown)) +
                        (line.size() > kShown ? "... (" + std::to_string(line.size()) + " bytes)" : ""));
  }
  return j;
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
  // By reference: the text may be a hundred megabytes, not to be copied.
  const json& text = field(j, "storage", "tensor");
  if (!text.is_string()) throw ProtocolError("tensor field 'storage' is not a string");
  auto storage = std::make_shared<std::vector<std::byte>>(base64_decode(text.get_ref<const std::string&>()));
  if (storage->size() % dtype_size(*dtype) != 0)
    throw ProtocolError("tensor storage of " + std::to_string(storage->size()) + " bytes is not a whole number of " +
                        dtype_text + " elements");
  try {
    return Tensor::view(*dtype, std::move(shape), std::move(strides), offset, std::move(storage));
  } catch (const std::invalid_argument& e) {
    throw ProtocolError(std::string("tensor view is invalid: ") + e.what());
  }
}

bool shares_storage(const OpCall& call) {
  std::set<const void*> seen;
  for (const auto& [name, t] : call.tensors)
    if (t.storage() && !seen.insert(t.storage().get()).second) return true;
  return false;
}

OperandStorages operand_storages(const OpCall& call) {
  OperandStorages out;
  std::set<const void*> seen;
  for (const auto& [name, t] : call.tensors)
    if (t.storage() && seen.insert(t.storage().get()).second) out.emplace_back(name, t.storage());
  return out;
}

json encode_operands(const OperandStorages& operands) {
  json j = json::object();
  for (const auto& [name, storage] : operands) j[name] = base64_encode(storage->data(), storage->size());
  return j;
}

void apply_operands(const json& response, const OpCall& call) {
  const json& given = field(response, "operands", "response");
  if (!given.is_object()) throw ProtocolError("response field 'operands' is not an object");
  const OperandStorages want = operand_storages(call);
  std::vector<std::vector<std::byte>> decoded;
  for (const auto& [name, storage] : want) {
    auto it = given.find(name);
    if (it == given.end()) throw ProtocolError("response field 'operands' lacks operand " + name);
    if (!it->is_string()) throw ProtocolError("response field 'operands' entry " + name + " is not a string");
    decoded.push_back(base64_decode(it->get_ref<const std::string&>()));
    if (decoded.back().size() != storage->size())
      throw ProtocolError("response field 'operands' returns " + std::to_string(decoded.back().size()) +
                          " bytes of storage for operand " + name + ", which was sent with " +
                          std::to_string(storage->size()));
  }
  if (given.size() != want.size())
    for (const auto& [name, value] : given.items())
      if (std::none_of(want.begin(), want.end(), [&key = name](const auto& w) { return w.first == key; }))
        throw ProtocolError("response field 'operands' names " + name +
                            ", which is not an operand the request sent with a storage");
  for (size_t i = 0; i < want.size(); ++i) std::copy(decoded[i].begin(), decoded[i].end(), want[i].second->begin());
}

json encode_request(uint64_t id, const OpCall& call) {
  json args = json::object();
  for (const auto& [name, arg] : call.args) args[name] = encode_arg(arg);
  json tensors = json::object();
  std::map<const void*, std::string> owner;  // storage -> the operand that carries it
  for (const auto& [name, t] : call.tensors) {
    const auto [it, first] = owner.emplace(t.storage().get(), name);
    if (first || !t.storage()) {
      tensors[name] = encode_tensor(t);
      continue;
    }
    tensors[name] = {{"dtype", std::string(dtype_name(t.dtype()))},
                     {"shape", t.shape()},
                     {"strides", t.strides()},
                     {"offset", t.offset()},
                     {"storage_of", it->second}};
  }
  json request = {
      {"type", "run"}, {"id", id}, {"op", call.op}, {"args", std::move(args)}, {"tensors", std::move(tensors)}};
  if (!call.framework_version.empty()) request["doc_version"] = call.framework_version;
  return request;
}

OpCall decode_request(const json& j, uint64_t* id) {
  if (string_field(j, "type", "request") != "run") throw ProtocolError("request type is not 'run'");
  *id = id_of(j, "request");
  OpCall call;
  call.op = string_field(j, "op", "request");
  const OpSpec* spec = find_op(call.op);  // the id is the input here
  if (!spec) throw ProtocolError("request names op '" + call.op + "', which is not in the op table");
  const json& args = field(j, "args", "request");
  if (!args.is_object()) throw ProtocolError("request field 'args' is not an object");
  for (const auto& [name, value] : args.items()) call.set_arg(name, decode_arg(*spec, name, value));
  if (j.contains("doc_version")) call.framework_version = string_field(j, "doc_version", "request");
  const json& tensors = field(j, "tensors", "request");
  if (!tensors.is_object()) throw ProtocolError("request field 'tensors' is not an object");
  for (const auto& [name, t] : tensors.items())
    if (!t.is_object() || !t.contains("storage_of")) call.tensors.emplace(name, decode_tensor(t));
  for (const auto& [name, t] : tensors.items()) {
    if (!t.is_object() || !t.contains("storage_of")) continue;
    const std::string of = string_field(t, "storage_of", "tensor");
    const auto owner = call.tensors.find(of);
    if (of == name || owner == call.tensors.end() || (tensors.contains(of) && tensors[of].contains("storage_of")))
      throw ProtocolError("tensor " + name + " has storage_of '" + of +
                          "', which is not another operand that carries a storage");
    const std::string dtype_text = string_field(t, "dtype", "tensor");
    const std::optional<DType> dtype = dtype_from_name(dtype_text);
    if (!dtype) throw ProtocolError("tensor has unknown dtype '" + dtype_text + "'");
    if (*dtype != owner->second.dtype())
      throw ProtocolError("tensor " + name + " views the storage of " + of + " as " + dtype_text + ", but " + of +
                          " is " + std::string(dtype_name(owner->second.dtype())));
    try {
      call.tensors.emplace(name, Tensor::view(*dtype, int_list(t, "shape"), int_list(t, "strides"),
                                              int_field(t, "offset", "tensor"), owner->second.storage()));
    } catch (const std::invalid_argument& e) {
      throw ProtocolError(std::string("tensor view is invalid: ") + e.what());
    }
  }
  // The call enters the process here: its signature is checked once and
  // the call bound to its entry (a misfit stays unbound: run_backend
  // answers it, as in the parent).
  bind_call(call);
  return call;
}

json encode_hello(const Hello& hello) {
  json j = {
      {"type", "hello"}, {"protocol", kVersion}, {"name", hello.name}, {"version", hello.version}, {"ops", hello.ops}};
  if (!hello.abi.empty()) j["abi"] = hello.abi;
  if (hello.shared_storage) j["shared_storage"] = true;
  if (hello.operands) j["operands"] = true;
  if (hello.programs) j["programs"] = true;
  if (!hello.device.empty()) j["device"] = hello.device;
  if (hello.framework) j["framework"] = {{"name", hello.framework->name}, {"version", hello.framework->version}};
  return j;
}

Hello decode_hello(const json& j) {
  if (!j.is_object()) throw ProtocolError("hello is not a JSON object");
  Hello hello;
  const auto text = [&](const char* name) {
    auto it = j.find(name);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  hello.name = text("name");
  hello.version = text("version");
  hello.abi = text("abi");
  hello.device = text("device");
  if (hello.device == "cpu") hello.device.clear();
  if (auto ops = j.find("ops"); ops != j.end() && ops->is_array())
    for (const json& op : *ops)
      if (op.is_string()) hello.ops.push_back(op.get<std::string>());
  hello.shared_storage = j.contains("shared_storage") && j["shared_storage"] == true;
  hello.operands = j.contains("operands") && j["operands"] == true;
  hello.programs = j.contains("programs") && j["programs"] == true;
  if (auto fw = j.find("framework"); fw != j.end())
    hello.framework = FrameworkVersion{string_field(*fw, "name", "hello field 'framework'"),
                                       string_field(*fw, "version", "hello field 'framework'")};
  return hello;
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
    case Outcome::Kind::Unsupported:
      return {{"type", "unsupported"}, {"id", id}, {"reason", outcome.message}};
    case Outcome::Kind::Crash:
    case Outcome::Kind::Timeout:
    case Outcome::Kind::HarnessError:
    case Outcome::Kind::DeviceAssert:
      break;
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
