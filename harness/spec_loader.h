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
#include <functional>
#include <limits>
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
// Logical elements (an expanded view counts its full shape) per tensor and
// per case; storage bytes per tensor and per case (operands sharing a storage
// through view_of count it once). Together they bound what one case costs
// while it runs.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 20;
inline constexpr int64_t kMaxCaseElements = int64_t{1} << 20;
inline constexpr int64_t kMaxStorageBytes = int64_t{1} << 24;
inline constexpr int64_t kMaxCaseStorageBytes = int64_t{1} << 24;
// Elements of an op's output, by the op table's shape rule, which can
// exceed its operands' (index_select, take_along_dim, GatherND).
inline constexpr int64_t kMaxOutputElements = int64_t{1} << 22;
// The limits one case is held to: the defaults above, or for a case tagged
// `huge` in a run that allows huge cases (`--allow-huge BUDGET`, FORMAT.md
// "Huge cases") ones set by the memory budget.
struct CaseLimits {
  int64_t tensor_elements = kMaxTensorElements;
  int64_t case_elements = kMaxCaseElements;
  int64_t storage_bytes = kMaxStorageBytes;
  int64_t case_storage_bytes = kMaxCaseStorageBytes;
  int64_t output_elements = kMaxOutputElements;
  int64_t output_bytes = std::numeric_limits<int64_t>::max();  // beside output_elements
};
inline constexpr std::string_view kHugeTag = "huge";
// Logical elements a huge case's tensor may have (its storage is what the
// budget bounds: an expanded view counts its shape, not its storage).
inline constexpr int64_t kMaxHugeElements = int64_t{1} << 36;
// A huge case's tensors (inputs and written expectations) may take half the
// budget, one tensor or the output a quarter: while a backend runs, the
// runner holds the case as written, the backend's copy of the inputs and an
// untouched one for the storage guards, and the reference's output beside
// the backend's (a 2 GiB in-place self and its 2 GiB written expectation:
// about 12 GiB).
CaseLimits huge_case_limits(int64_t budget_bytes);
// Process-wide, set once by the CLI before loading (0: huge cases are not
// allowed; the loader then keeps such a case's id, op, source and tags and
// marks it Case::not_run, and the runner answers not_applicable for it).
void allow_huge_cases(int64_t budget_bytes);
int64_t huge_case_budget();
// The smallest budget --allow-huge takes (a 2^31-element int8 output, with
// the copies above, needs 8 GiB).
inline constexpr int64_t kMinHugeBudget = int64_t{1} << 30;

// JSON values one case may hold (numbers, strings, arrays, objects...):
// room for every element the element limit allows twice (inputs and the
// document's expected outputs) and the case's own fields. Counted while
// parsing, so an oversized case never becomes a DOM.
inline constexpr size_t kMaxCaseJsonValues = 2 * static_cast<size_t>(kMaxCaseElements) + (size_t{1} << 16);
inline constexpr std::string_view kSpecFormat = "scatterproof-spec/1";
// Byte written into storage gaps of views built from data/values/fill, so a
// backend that writes outside the view is caught.
inline constexpr std::byte kGapSentinel{0x5a};

// Streaming: the cases of one spec file in file order, each built just
// before `on_case` gets it (and released by the caller after), every
// problem given to `on_error` as found. Only the file's text and the JSON of
// the cases still to come stay in memory, so a caller that runs each case
// and drops it needs memory for one case at a time.
using CaseFn = std::function<void(Case&&)>;
using ErrorFn = std::function<void(SpecError&&)>;
void stream_spec_text(std::string_view text, const std::string& file_name, const CaseFn& on_case,
                      const ErrorFn& on_error);
void stream_spec_file(const std::string& path, const CaseFn& on_case, const ErrorFn& on_error);

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
// recursively for `*.json` (skipping directories named `schema` and
// `expectations`; symlinks to directories are not followed); sorted, without
// duplicates. A path that cannot be read as a spec file (a symlink loop, a
// dangling symlink, a FIFO, an unreadable file or directory) is listed too,
// so that loading it is a spec error for that path alone. Throws SpecError
// for a path given in `paths` that does not exist.
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
