// spec_loader_internal.h — the stages of the spec loader (spec_loader.h),
// shared between its files. Not part of the harness API: only
// harness/spec_*.cc include it (and tests/spec_loader_test.cc, for the
// schema generator).
//
//   spec_parse.cc    stage 1: raw-text limits and JSON parsing; SpecError
//   spec_schema.cc   stage 2: the JSON Schema (structure from
//                    specs/schema/spec.schema.json, op-specific part
//                    generated from the op table) and its verdicts
//   spec_tensors.cc  stage 3: elements and tensors
//   spec_cases.cc    stage 3: cases (operands and arguments per the op table)
//   spec_loader.cc   the public entry points, tying the stages together
//   spec_writer.cc   the exact writer of the same format
//
// Inside a case, a problem is thrown as CaseProblem (the full field path
// from the file root) and turned into a SpecError by spec_loader.cc once the
// case id is known; problems with the file as a whole are SpecErrors.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "harness/case.h"
#include "reference/dtype.h"
#include "reference/op_call.h"
#include "reference/op_table.h"
#include "reference/program.h"
#include "reference/tensor.h"

namespace sp::spec_internal {

using json = nlohmann::json;

struct CaseProblem {
  std::string field;
  std::string message;
};

[[noreturn]] void fail(std::string field, std::string message);

// `cases[3]` + `inputs` -> `cases[3].inputs`; `inputs` + 2 -> `inputs[2]`.
std::string join_path(const std::string& base, std::string_view member);
std::string indexed(const std::string& base, size_t i);
// What an error message quotes from the file, kept short (an 8-million-digit
// number is not printed in full): `text` itself up to kMaxQuotedChars, else
// its first kMaxQuotedChars bytes and "…(N chars)". For a JSON value, its dump
// cut the same way; an array or object is named by its size instead.
inline constexpr size_t kMaxQuotedChars = 64;
std::string excerpt(std::string_view text);
std::string excerpt(const json& v);
inline std::string excerpt(const std::string& text) { return excerpt(std::string_view(text)); }

// --- stage 1 (spec_parse.cc) ---
// The file's text; SpecError when it cannot be read or exceeds the size limit.
std::string read_file(const std::string& path);
// Size and nesting-depth limits on the raw text, then the parse (duplicate
// keys refused); SpecError naming line and column or the field.
// `hook`, when given, sees every parse event after the duplicate-key check,
// as nlohmann's parser callback (returning false discards the value: the
// loader takes each case out of the DOM as it completes).
using ParseHook = std::function<bool(int depth, json::parse_event_t event, json& parsed)>;
json parse_json(std::string_view text, const std::string& file, const ParseHook& hook = {});
// Every string and key within kMaxJsonStringChars; SpecError naming the field.
void check_string_lengths(const json& document, const std::string& file);

// --- stage 2 (spec_schema.cc) ---
struct SchemaProblem {
  std::string field;
  std::string message;
};
// The file's own fields (format, source, description; `cases` an array of
// at most kMaxCasesPerFile items), its cases not looked into.
std::optional<SchemaProblem> check_file_schema(const json& document);
// One case, found at `path` (`cases[3]`, the prefix of the field named).
// Both validate fail-fast and collect details only on a bounded copy of a
// failing node, so memory stays bounded whatever the input.
std::optional<SchemaProblem> check_case_schema(const json& one_case, const std::string& path);
// The complete schema: `structural` (specs/schema/spec.schema.json) with its
// op-specific placeholders filled from the op table. std::logic_error when a
// placeholder is missing or two ops give one argument name two types.
json generate_spec_schema(const json& structural);

// --- stage 3 (spec_tensors.cc) ---
int64_t json_int64(const json& v, const std::string& field);
// An array of non-negative sizes (shape, strides), at most kMaxRank long.
Shape json_dims(const json& a, const std::string& field);
// One tensor of a case, elements checked against `dtype`; `case_budget` is
// the case's remaining element allowance (decremented); `limits` the case's
// (CaseLimits: the defaults, or a huge case's).
Tensor build_tensor(const json& j, const std::string& path, DType dtype, int64_t& case_budget,
                    const CaseLimits& limits);

// --- stage 3 (spec_cases.cc) ---
// A Python scalar: true/false, a number, or "nan", "inf", "-inf", "-0.0".
Scalar scalar_from_json(const json& v, const std::string& field);
// One argument as its ArgSpec types it; CaseProblem at `field` otherwise.
Arg arg_from_json(const ArgSpec& spec, const json& v, const std::string& field);

// --- stage 3 (spec_program.cc) ---
// A case's "program" at `path` (`cases[3].program`): its inputs built by
// `build_input` (the case's tensor builder, which keeps the case's budgets),
// each step checked against the op table and bound once (bind_call), names
// defined before use. `result_dtypes`: the dtype of every compared name.
struct LoadedProgram {
  std::shared_ptr<Program> program;
  std::map<std::string, DType> result_dtypes;
};
using InputBuilder = std::function<Tensor(const json& tensor, const std::string& path)>;
LoadedProgram read_program(const json& p, const std::string& path, const InputBuilder& build_input);
json program_to_json(const Program& p);

// One schema-valid case at `path` (`cases[3]`); `file_source` is the file's
// default provenance. Throws CaseProblem.
Case build_case(const json& j, const std::string& path, const json& file_source, const std::string& file);

}  // namespace sp::spec_internal
