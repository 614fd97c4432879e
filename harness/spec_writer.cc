// spec_writer.cc — the exact writer of the spec format (spec_loader.h):
// loading what it writes gives the same bits and layouts. Arguments are
// written generically, each by its Arg type, so a new op's arguments need
// nothing here.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

#include "harness/spec_loader.h"
#include "harness/spec_loader_internal.h"
#include "reference/op_table.h"

namespace sp {

using json = nlohmann::json;

namespace {

// The shortest decimal that loads back to exactly `bits` (the loader parses
// decimals to double and rounds once to the dtype).
json float_element(DType t, uint64_t bits) {
  const double v = value_from_bits(t, bits).f;
  if (std::isnan(v)) {
    const uint64_t canonical = bits_from_value(t, Value::of_float(std::numeric_limits<double>::quiet_NaN()));
    return bits == canonical ? json("nan") : json(format_bits(t, bits));
  }
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0.0 && std::signbit(v)) return "-0.0";
  for (int precision = 1; precision <= 17; ++precision) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, v);
    const double candidate = std::strtod(buffer, nullptr);
    if (bits_from_value(t, Value::of_float(candidate)) == bits) return candidate;
  }
  return v;  // 17 significant digits always round-trip a double; not reached
}

json element_to_json(DType t, uint64_t bits) {
  if (is_floating(t)) return float_element(t, bits);
  if (t == DType::Bool) return bits <= 1 ? json(bits == 1) : json(format_bits(t, bits));  // e.g. a sentinel gap
  const Value v = value_from_bits(t, bits);
  constexpr int64_t kExactInDouble = int64_t{1} << 53;
  if (v.is_unsigned) {  // uint64: its upper half does not fit int64
    const uint64_t u = static_cast<uint64_t>(v.i);
    if (u > static_cast<uint64_t>(kExactInDouble)) return std::to_string(u);
    return u;
  }
  if (v.i > kExactInDouble || v.i < -kExactInDouble) return std::to_string(v.i);
  return v.i;
}

json nested_data(const Tensor& t, Shape& idx, size_t level) {
  if (level == idx.size()) return element_to_json(t.dtype(), t.bits_at(idx));
  json array = json::array();
  for (idx[level] = 0; idx[level] < t.size(static_cast<int64_t>(level)); ++idx[level])
    array.push_back(nested_data(t, idx, level + 1));
  return array;
}

json scalar_to_json(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Bool:
      return s.b;
    case Scalar::Kind::Int:
      return s.i;
    case Scalar::Kind::Float:
      if (std::isnan(s.f)) return "nan";
      if (std::isinf(s.f)) return s.f > 0 ? "inf" : "-inf";
      if (s.f == 0.0 && std::signbit(s.f)) return "-0.0";
      return s.f;
  }
  return nullptr;
}

json arg_to_json(const Arg& a) {
  switch (a.type) {
    case Arg::Type::Int:
      return a.i;
    case Arg::Type::Bool:
      return a.b;
    case Arg::Type::String:
      return a.s;
    case Arg::Type::Scalar:
      return scalar_to_json(a.scalar);
    case Arg::Type::IntList:
      return a.ints;
  }
  return nullptr;
}

}  // namespace

json tensor_to_json(const Tensor& t) {
  json j = {{"dtype", std::string(dtype_name(t.dtype()))}};
  const int64_t numel = t.numel();
  const bool plain = t.offset() == 0 && t.strides() == contiguous_strides(t.shape()) &&
                     static_cast<int64_t>(t.storage_elements()) == numel;
  if (plain) {
    if (numel == 0) j["shape"] = t.shape();
    Shape idx(t.shape().size(), 0);
    j["data"] = nested_data(t, idx, 0);
    return j;
  }
  j["shape"] = t.shape();
  j["strides"] = t.strides();
  j["offset"] = t.offset();
  json storage = json::array();
  for (size_t i = 0; i < t.storage_elements(); ++i)
    storage.push_back(
        element_to_json(t.dtype(), load_bits(t.dtype(), t.storage()->data() + i * dtype_size(t.dtype()))));
  j["storage"] = std::move(storage);
  return j;
}

namespace {
json finish_case_json(const Case& c, json& j, json program);
}  // namespace

json spec_internal::program_to_json(const Program& p) {
  json inputs = json::object();
  for (const auto& [name, t] : p.inputs) inputs[name] = tensor_to_json(t);
  json steps = json::array();
  for (const ProgramStep& step : p.steps) {
    json s = json::object();
    if (!step.let.empty()) s["let"] = step.let;
    s["op"] = step.op;
    json args = json::object();
    for (const auto& [name, value] : step.call.args) args[name] = arg_to_json(value);
    if (!args.empty()) s["args"] = args;
    s["operands"] = step.operands;
    steps.push_back(std::move(s));
  }
  return {{"inputs", inputs}, {"steps", steps}, {"expect", p.expect}};
}

json case_to_json(const Case& c) {
  // A backward call is written as its forward op with a backward block
  // (FORMAT.md): grad_output and the expected gradients go there.
  const OpSpec* op = find_op(c.call);
  const bool backward = op && !op->backward_of.empty();
  json j = {{"id", c.id}};
  if (!c.is_program()) j["op"] = backward ? op->backward_of : c.call.op;
  json source = json::object();
  for (const auto& [key, value] : {std::pair{"document", &c.source.document}, std::pair{"example", &c.source.example},
                                   std::pair{"doc_version", &c.source.doc_version}, std::pair{"kind", &c.source.kind}})
    if (!value->empty()) source[key] = *value;
  j["source"] = source;
  if (c.is_program()) return finish_case_json(c, j, spec_internal::program_to_json(*c.program));
  json args = json::object();
  for (const auto& [name, value] : c.call.args) args[name] = arg_to_json(value);
  if (!args.empty()) j["args"] = args;
  json inputs = json::object();
  // Operands sharing a storage: the first (by name) owns it, the others are
  // views of it, so a repro keeps the aliasing it found.
  std::map<const void*, std::string> owner;
  for (const auto& [name, tensor] : c.call.tensors) {
    if (backward && name == kGradOutput) continue;
    const auto [it, first] = owner.emplace(tensor.storage().get(), name);
    if (first || !tensor.storage() || tensor.dtype() != c.call.tensors.at(it->second).dtype()) {
      inputs[name] = tensor_to_json(tensor);
      continue;
    }
    inputs[name] = {
        {"view_of", it->second}, {"shape", tensor.shape()}, {"strides", tensor.strides()}, {"offset", tensor.offset()}};
  }
  j["inputs"] = inputs;
  return finish_case_json(c, j, nullptr);
}

namespace {

json finish_case_json(const Case& c, json& j, json program) {
  const OpSpec* op = find_op(c.call);
  const bool backward = op && !op->backward_of.empty();
  if (!program.is_null()) j["program"] = std::move(program);
  json expect = json::object();
  switch (c.expect.kind) {
    case CaseExpect::Kind::Output:
      if (c.is_program()) {
        expect["outputs"] = json::object();
        for (size_t i = 0; i < c.expect.outputs.size(); ++i)
          expect["outputs"][c.expect.output_names.at(i)] = tensor_to_json(c.expect.outputs[i]);
      } else if (backward) {
        // Gradient names are grad_<operand>; the block keys them by operand.
        expect["grads"] = json::object();
        for (size_t i = 0; i < c.expect.outputs.size(); ++i)
          expect["grads"][c.expect.output_names.at(i).substr(5)] = tensor_to_json(c.expect.outputs[i]);
      } else {
        expect["output"] = tensor_to_json(c.expect.outputs.at(0));
      }
      break;
    case CaseExpect::Kind::OneOf:
      expect["one_of"] = json::array();
      for (const Tensor& t : c.expect.outputs) expect["one_of"].push_back(tensor_to_json(t));
      break;
    case CaseExpect::Kind::Error:
      expect["error"] = std::string(error_name(*c.expect.error));
      if (!c.expect.text.empty()) expect["message"] = c.expect.text;
      break;
    case CaseExpect::Kind::Unspecified:
      expect["unspecified"] = c.expect.text;
      break;
  }
  const bool has_outputs = c.expect.kind == CaseExpect::Kind::Output || c.expect.kind == CaseExpect::Kind::OneOf;
  if (has_outputs && c.expect.atol != 0.0) expect["atol"] = c.expect.atol;
  if (backward)
    j["backward"] = {{"grad_output", tensor_to_json(c.call.tensors.at(std::string(kGradOutput)))}, {"expect", expect}};
  else
    j["expect"] = expect;
  if (c.erratum) {
    json e = {{"document", c.erratum->document}, {"claim", c.erratum->claim}};
    if (c.erratum->claimed_output) e["claimed_output"] = tensor_to_json(*c.erratum->claimed_output);
    j["erratum"] = e;
  }
  if (!c.tags.empty()) j["tags"] = c.tags;
  if (!c.versions.empty()) j["versions"] = c.versions;
  return j;
}

}  // namespace

json spec_file_json(const std::vector<Case>& cases, const std::string& description) {
  json j = {{"format", std::string(kSpecFormat)}, {"description", description}, {"cases", json::array()}};
  for (const Case& c : cases) j["cases"].push_back(case_to_json(c));
  return j;
}

}  // namespace sp
