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

const valijson::Schema& compiled_schema() {
  static const std::unique_ptr<valijson::Schema> schema = [] {
    const json document = json::parse(spec_schema_text());
    auto compiled = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser;
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(document), *compiled);
    return compiled;
  }();
  return *schema;
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

// The most specific of a case's (or the file's) schema errors: the first of
// the deepest ones, with the other reasons valijson gives for the same node.
// Generic "Failed to validate ..." summaries (oneOf/anyOf/items) are dropped
// when a concrete reason sits at that node.
SchemaProblem most_specific(const std::vector<const valijson::ValidationResults::Error*>& errors) {
  const valijson::ValidationResults::Error* deepest = errors.front();
  for (const auto* e : errors)
    if (e->context.size() > deepest->context.size()) deepest = e;
  std::vector<std::string> reasons, summaries;
  for (const auto* e : errors) {
    if (e->context != deepest->context) continue;
    // valijson's oneOf summary when more than one alternative matched.
    const bool several_alternatives = e->description == "Failed to validate against exactly one child schema.";
    const std::string description =
        several_alternatives ? "gives more than one of fields that exclude each other (a tensor takes one of data, "
                               "values, fill, storage; expect one of output, one_of, error, unspecified)"
                             : e->description;
    auto& list = !several_alternatives && description.starts_with("Failed to validate") ? summaries : reasons;
    if (std::find(list.begin(), list.end(), description) == list.end()) list.push_back(description);
  }
  if (reasons.empty()) reasons = summaries;
  std::string message = "schema: ";
  for (size_t i = 0; i < reasons.size(); ++i) message += (i ? " / " : "") + reasons[i];
  return {field_path(deepest->context), message};
}

}  // namespace

SchemaVerdict check_schema(const json& document) {
  valijson::Validator validator;
  valijson::ValidationResults results;
  SchemaVerdict verdict;
  if (validator.validate(compiled_schema(), valijson::adapters::NlohmannJsonAdapter(document), &results))
    return verdict;
  std::vector<const valijson::ValidationResults::Error*> file_errors;
  std::map<size_t, std::vector<const valijson::ValidationResults::Error*>> case_errors;
  for (const auto& e : results) {
    size_t case_index = 0;
    const bool in_case =
        e.context.size() >= 3 && e.context[1] == "[cases]" &&
        std::from_chars(e.context[2].data() + 1, e.context[2].data() + e.context[2].size() - 1, case_index).ec ==
            std::errc();
    (in_case ? case_errors[case_index] : file_errors).push_back(&e);
  }
  // valijson repeats each case failure as "Failed to validate item #N" on
  // `cases` and again on the root; those are not problems of their own.
  if (!case_errors.empty())
    std::erase_if(file_errors, [](const auto* e) {
      return e->context.size() <= 2 && e->description.starts_with("Failed to validate");
    });
  if (!file_errors.empty()) verdict.file_problem = most_specific(file_errors);
  for (const auto& [index, errors] : case_errors) verdict.case_problems.emplace(index, most_specific(errors));
  return verdict;
}

}  // namespace spec_internal

std::string_view spec_schema_text() {
  static const std::string text =
      spec_internal::generate_spec_schema(nlohmann::json::parse(spec_internal::read_structural_schema())).dump(2);
  return text;
}

}  // namespace sp
