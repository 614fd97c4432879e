// spec_schema.cc — stage 2 of the spec loader (spec_loader_internal.h): the
// JSON Schema, and valijson's errors turned into one problem per case.
//
// The schema has two parts. The structure (file, case, tensor, expect) is
// specs/schema/spec.schema.json, written by hand. The op-specific part is
// generated from the op table (reference/op_table.h), so a new op needs no
// schema edit: the `op` enum (every op id), `args` (every argument name of
// any op, with the JSON type of its declared type) and `inputs` (every
// operand name of any op). The structural file holds placeholders for
// those three ({"$comment": "generated ..."}), replaced here; which names
// belong to which op is checked by stage 3 (spec_cases.cc), from the same
// table. `scatterproof schema` prints the complete schema.
#include <algorithm>
#include <charconv>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#include <vector>

#include "harness/spec_loader.h"
#include "harness/spec_loader_internal.h"
#include "reference/op_table.h"

#ifdef SP_HAVE_EMBEDDED_SCHEMA
// Generated at build time by harness/embedded_schema.cmake.
extern const char kSpEmbeddedSpecSchema[];
#endif

namespace sp {
namespace spec_internal {
namespace {

std::string read_structural_schema() {
#ifdef SP_HAVE_EMBEDDED_SCHEMA
  return kSpEmbeddedSpecSchema;
#else
  const std::string path = std::string(SP_SOURCE_DIR) + "/specs/schema/spec.schema.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the spec schema " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
#endif
}

json arg_type_schema(Arg::Type type) {
  switch (type) {
    case Arg::Type::Int:
      return {{"type", "integer"}};
    case Arg::Type::Bool:
      return {{"type", "boolean"}};
    case Arg::Type::String:
      return {{"type", "string"}};
    case Arg::Type::Scalar:
      return {{"$ref", "#/definitions/scalar"}};
    case Arg::Type::IntList:
      return {{"type", "array"}, {"items", {{"type", "integer"}}}};
  }
  throw std::logic_error("arg_type_schema: unknown Arg::Type");
}

// "torch.scatter_, mindspore.scatter_" for the description of a name.
std::string ops_list(const std::vector<std::string>& ops) {
  std::string s;
  for (const std::string& op : ops) s += (s.empty() ? "" : ", ") + op;
  return s;
}

// Replaces the placeholder at definitions.case.properties.KEY; a missing
// placeholder means the structural file and this generator disagree.
void fill(json& schema, const char* key, json generated) {
  json& properties = schema.at("definitions").at("case").at("properties");
  if (!properties.contains(key) || !properties[key].contains("$comment"))
    throw std::logic_error(std::string("spec.schema.json: definitions.case.properties.") + key +
                           " is not the placeholder the generator fills");
  properties[key] = std::move(generated);
}

}  // namespace

json generate_spec_schema(const json& structural) {
  json schema = structural;
  json op_ids = json::array();
  // Every name with the ops that use it; an argument name keeps one type
  // across all ops (the union below could not say "integer for one op,
  // string for another").
  std::map<std::string, std::pair<Arg::Type, std::vector<std::string>>> args;
  std::map<std::string, std::vector<std::string>> operands;
  for (const OpSpec& op : op_table()) {
    // A backward op is asked for with a backward block on its forward op:
    // not an `op`, and its grad_output is not an input.
    if (!op.backward_of.empty()) continue;
    op_ids.push_back(op.id);
    for (const ArgSpec& a : op.args) {
      auto [it, fresh] = args.try_emplace(a.name, a.type, std::vector<std::string>{});
      if (!fresh && it->second.first != a.type)
        throw std::logic_error("op table: argument '" + a.name + "' is a " + std::string(arg_type_name(a.type)) +
                               " in " + op.id + " but a " + std::string(arg_type_name(it->second.first)) + " in " +
                               it->second.second.front() + "; an argument name has one type across all ops");
      it->second.second.push_back(op.id);
    }
    for (const OperandSpec& o : op.operands) operands[o.name].push_back(op.id);
  }
  json arg_properties = json::object();
  for (const auto& [name, typed] : args) {
    json property = arg_type_schema(typed.first);
    property["description"] = std::string(arg_type_name(typed.first)) + "; taken by " + ops_list(typed.second);
    arg_properties[name] = std::move(property);
  }
  json input_properties = json::object();
  for (const auto& [name, ops] : operands)
    input_properties[name] = {{"$ref", "#/definitions/input_tensor"}, {"description", "operand of " + ops_list(ops)}};
  fill(schema, "op", {{"description", "an op id of the op table (`scatterproof ops`)"}, {"enum", std::move(op_ids)}});
  fill(schema, "args",
       {{"description", "scalar arguments by name; which ones an op takes is checked by the loader"},
        {"type", "object"},
        {"additionalProperties", false},
        {"properties", std::move(arg_properties)}});
  fill(schema, "inputs",
       {{"description", "tensor operands by name; which ones an op takes is checked by the loader"},
        {"type", "object"},
        {"additionalProperties", false},
        {"properties", std::move(input_properties)}});
  return schema;
}

namespace {

// The two compiled schemas the loader validates with: the file without its
// cases' content (`cases` is checked to be an array, its items are not
// looked at), and one case (`#/definitions/case` of the same schema). A
// file is validated a case at a time, so a problem's errors are those of
// one case, and a case's JSON can be released once it is built.
struct CompiledSchemas {
  valijson::Schema file;
  valijson::Schema one_case;
};

const CompiledSchemas& compiled_schemas() {
  static const std::unique_ptr<CompiledSchemas> schemas = [] {
    json file_document = json::parse(spec_schema_text());
    json case_document = {{"$ref", "#/definitions/case"}, {"definitions", file_document.at("definitions")}};
    json& cases = file_document.at("properties").at("cases");
    cases.erase("items");
    cases.erase("maxItems");  // checked by check_file_schema, which sees the real count
    auto compiled = std::make_unique<CompiledSchemas>();
    valijson::SchemaParser parser;
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(file_document), compiled->file);
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(case_document), compiled->one_case);
    return compiled;
  }();
  return *schemas;
}

// valijson names a node by a context such as {"<root>", "[cases]", "[3]",
// "[inputs]"}; we write it as `cases[3].inputs`.
std::string field_path(const std::vector<std::string>& context) {
  std::string path;
  for (const std::string& part : context) {
    if (part.size() < 2 || part.front() != '[' || part.back() != ']') continue;  // "<root>"
    const std::string name = part.substr(1, part.size() - 2);
    const bool is_index =
        !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
    path = is_index ? path + part : join_path(path, name);
  }
  return path;
}

// The most specific of a node's schema errors: the first of the deepest
// ones, with the other reasons valijson gives for the same node. Generic
// "Failed to validate ..." summaries (oneOf/anyOf/items) are dropped when a
// concrete reason sits at that node.
SchemaProblem most_specific(const valijson::ValidationResults& results, const std::string& base) {
  const valijson::ValidationResults::Error* deepest = &*results.begin();
  for (const auto& e : results)
    if (e.context.size() > deepest->context.size()) deepest = &e;
  std::vector<std::string> reasons, summaries;
  for (const auto& e : results) {
    if (e.context != deepest->context) continue;
    // valijson's oneOf summary when more than one alternative matched.
    const bool several_alternatives = e.description == "Failed to validate against exactly one child schema.";
    const std::string description =
        several_alternatives ? "gives more than one of fields that exclude each other (a tensor takes one of data, "
                               "values, fill, storage; expect one of output, one_of, error, unspecified)"
                             : e.description;
    auto& list = !several_alternatives && description.starts_with("Failed to validate") ? summaries : reasons;
    if (std::find(list.begin(), list.end(), description) == list.end()) list.push_back(description);
  }
  if (reasons.empty()) reasons = summaries;
  std::string message = "schema: ";
  for (size_t i = 0; i < reasons.size(); ++i) message += (i ? " / " : "") + reasons[i];
  const std::string relative = field_path(deepest->context);
  const std::string field = relative.empty()                          ? base
                            : base.empty() || relative.front() == '[' ? base + relative
                                                                      : join_path(base, relative);
  return {field, message};
}

// A copy of `node` holding at most about `budget` JSON values: arrays and
// objects keep a prefix of their members. valijson collects one error per
// failing node, so its collecting mode only ever sees such a copy (a case
// of four million ill-typed tags would otherwise cost gigabytes of errors).
json bounded_copy(const json& node, size_t& budget) {
  budget = budget > 0 ? budget - 1 : 0;
  if (node.is_array()) {
    json out = json::array();
    for (const json& item : node) {
      if (budget == 0) break;
      out.push_back(bounded_copy(item, budget));
    }
    return out;
  }
  if (node.is_object()) {
    json out = json::object();
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (budget == 0 && !out.empty()) break;
      out[it.key()] = bounded_copy(it.value(), budget);
    }
    return out;
  }
  return node;
}

// Validates `node` against `schema`: fail-fast first (no error is kept),
// and only for a node that fails, again on a bounded copy to say where.
std::optional<SchemaProblem> validate(const valijson::Schema& schema, const json& node, const std::string& base) {
  valijson::Validator validator;
  if (validator.validate(schema, valijson::adapters::NlohmannJsonAdapter(node), nullptr)) return std::nullopt;
  constexpr size_t kDetailBudget = 4096;
  size_t budget = kDetailBudget;
  const json copy = bounded_copy(node, budget);
  valijson::ValidationResults results;
  if (validator.validate(schema, valijson::adapters::NlohmannJsonAdapter(copy), &results) || results.numErrors() == 0)
    return SchemaProblem{base, "schema: does not match the spec schema (the first problem lies beyond its first " +
                                   std::to_string(kDetailBudget) + " JSON values; run `scatterproof schema` for it)"};
  return most_specific(results, base);
}

}  // namespace

std::optional<SchemaProblem> check_file_schema(const json& document) {
  if (document.is_object())
    if (auto cases = document.find("cases"); cases != document.end() && cases->is_array()) {
      if (cases->size() > kMaxCasesPerFile)
        return SchemaProblem{"cases", "schema: " + std::to_string(cases->size()) + " cases; the limit is " +
                                          std::to_string(kMaxCasesPerFile) + " per file"};
      json skeleton = json::object();
      for (auto it = document.begin(); it != document.end(); ++it)
        skeleton[it.key()] = it.key() == "cases" ? json::array() : it.value();
      return validate(compiled_schemas().file, skeleton, "");
    }
  return validate(compiled_schemas().file, document, "");
}

std::optional<SchemaProblem> check_case_schema(const json& one_case, const std::string& path) {
  return validate(compiled_schemas().one_case, one_case, path);
}

}  // namespace spec_internal

std::string_view spec_schema_text() {
  static const std::string text =
      spec_internal::generate_spec_schema(nlohmann::json::parse(spec_internal::read_structural_schema())).dump(2);
  return text;
}

}  // namespace sp
