// spec_loader.h — reads spec files (specs/FORMAT.md) into Cases, and writes
// Cases back in the same format.
//
// Loading runs three stages, each of which reports a SpecError naming the
// file, the case id and the field (a path such as
// `cases[3].inputs.index.data[1]`):
//   1. a pre-scan of the raw text for the limits that must hold before a
//      parser touches it (file size, nesting depth, string length), then
//      JSON parsing (errors carry line and column);
//   2. the JSON Schema (structure, names, enums), checked with valijson:
//      specs/schema/spec.schema.json with its op-specific part (op ids,
//      argument names and types, operand names) generated from the op table;
//   3. semantic checks the schema cannot express: operands and arguments
//      per op (from the op table), shapes vs values, dtype ranges, views
//      inside storage, element limits (computed overflow-safe before
//      anything is allocated), unique ids.
// The stages live in harness/spec_*.cc (spec_loader_internal.h says which).
// A problem inside one case never affects the other cases of the file (see
// load_spec_file_lenient); the strict entry points throw the first problem.
//
// Writing (tensor_to_json / case_to_json) is exact: loading what it writes
// gives the same bits, layouts (strides, offset, whole storage) included.
//
// Thread-safety: all functions are reentrant; the compiled schema is built
// once, thread-safely, on first use.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case.h"

namespace sp {

// Limits against hostile input (specs/FORMAT.md "Limits").
inline constexpr uint64_t kMaxSpecFileBytes = 64ull << 20;
inline constexpr int kMaxJsonDepth = 64;
inline constexpr size_t kMaxJsonStringChars = 8192;  // std::regex (schema `pattern`) recurses per char
inline constexpr size_t kMaxCasesPerFile = 100000;
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 24;
inline constexpr int64_t kMaxCaseElements = int64_t{1} << 24;
inline constexpr int64_t kMaxStorageBytes = int64_t{1} << 26;
inline constexpr std::string_view kSpecFormat = "scatterproof-spec/1";
// Byte written into storage gaps of views built from data/values/fill, so a
// backend that writes outside the view is caught.
inline constexpr std::byte kGapSentinel{0x5a};

// Strict: the cases of one spec file; throws SpecError on the first problem.
std::vector<Case> load_spec_text(std::string_view text, const std::string& file_name);
std::vector<Case> load_spec_file(const std::string& path);

// Lenient: every well-formed case, and one error per broken case (or one
// error for a problem with the file as a whole, then `cases` is empty).
struct LoadReport {
  std::vector<Case> cases;
  std::vector<SpecError> errors;
};
LoadReport load_spec_text_lenient(std::string_view text, const std::string& file_name);
LoadReport load_spec_file_lenient(const std::string& path);

// The spec files named by `paths`: files as given, directories searched
// recursively for `*.json` (skipping any directory named `schema`); sorted,
// without duplicates. Throws SpecError for a path that does not exist.
std::vector<std::string> find_spec_files(const std::vector<std::string>& paths);

// Writers of the same format; load(case_to_json(c)) reproduces c bit-exactly
// (file name aside). A contiguous tensor with offset 0 and no spare storage
// is written as nested `data`; any other layout as shape+strides+offset and
// the whole `storage`.
nlohmann::json tensor_to_json(const Tensor& t);
nlohmann::json case_to_json(const Case& c);
// A whole spec file holding `cases`.
nlohmann::json spec_file_json(const std::vector<Case>& cases, const std::string& description);

// The complete schema the loader enforces (`scatterproof schema` prints it):
// the structural file with the op table's part filled in.
std::string_view spec_schema_text();

}  // namespace sp
