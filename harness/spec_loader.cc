// spec_loader.cc — specs/FORMAT.md made executable: the public entry points
// of spec_loader.h, running the stages of spec_loader_internal.h (pre-scan
// and parse, schema, semantics) and keeping one case's problem from
// affecting the other cases of its file.
#include "harness/spec_loader.h"

#include <sys/stat.h>  // find_spec_files: directories by device and inode

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "harness/spec_loader_internal.h"

namespace sp {

using spec_internal::build_case;
using spec_internal::CaseProblem;
using spec_internal::check_case_schema;
using spec_internal::check_file_schema;
using spec_internal::check_string_lengths;
using spec_internal::indexed;
using spec_internal::join_path;
using spec_internal::json;
using spec_internal::parse_json;
using spec_internal::read_file;

namespace {

// One element of a file's `cases`, taken out of the DOM by CaseSplitter the
// moment the parser completed it.
struct SplitCase {
  std::vector<uint8_t> packed;  // its JSON as MessagePack (about the size of its text)
  std::string id;               // its "id" when that came as a string, for errors
  size_t values = 0;            // JSON values seen; over kMaxCaseJsonValues it was not kept
};

// The parser hook that takes each element of the root's `cases` array out
// of the DOM as it completes, so a file is never a whole DOM: the root
// keeps its other members, each case waits packed until it is checked and
// built, and a case with more than kMaxCaseJsonValues values stops growing
// (its values are discarded as they come) and is reported as too large.
class CaseSplitter {
 public:
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    if (depth == 1) {
      if (event == E::key) root_key_ = parsed.get<std::string>();
      if (event == E::array_start && root_key_ == "cases") in_cases_ = true;
      if (event == E::array_end) in_cases_ = false;
      return true;
    }
    if (!in_cases_ || depth < 2) return true;
    if (depth == 2 && (event == E::object_start || event == E::array_start)) current_ = SplitCase{};
    if (event != E::key) ++current_.values;
    if (depth == 3 && event == E::key) key_ = parsed.get<std::string>();
    if (depth == 3 && event == E::value && key_ == "id" && parsed.is_string())
      current_.id = parsed.get<std::string>().substr(0, kMaxJsonStringChars);
    const bool complete = depth == 2 && (event == E::value || event == E::object_end || event == E::array_end);
    const bool over = current_.values > kMaxCaseJsonValues;
    if (!complete) return !(over && (event == E::value || event == E::object_end || event == E::array_end));
    if (event == E::value) current_ = SplitCase{};
    if (!over) current_.packed = json::to_msgpack(parsed);
    cases.push_back(std::move(current_));
    current_ = SplitCase{};
    return false;
  }

  std::vector<SplitCase> cases;

 private:
  std::string root_key_, key_;
  bool in_cases_ = false;
  SplitCase current_;
};

struct SplitDocument {
  json root;  // the file without its cases (`cases` an empty array when it was an array)
  std::vector<SplitCase> cases;
};

// The file's JSON, parsed, split and checked for its raw limits; nullopt
// after giving the problem to `on_error`.
std::optional<SplitDocument> parse_checked(std::string_view text, const std::string& file_name,
                                           const ErrorFn& on_error) {
  try {
    CaseSplitter splitter;
    SplitDocument d;
    d.root = parse_json(text, file_name, std::ref(splitter));
    check_string_lengths(d.root, file_name);
    d.cases = std::move(splitter.cases);
    return d;
  } catch (const SpecError& e) {
    on_error(SpecError(e));
    return std::nullopt;
  }
}

// The case `packed` holds, its strings within the limit; throws CaseProblem.
json unpack_case(const SplitCase& split, const std::string& path, const std::string& file_name) {
  if (split.values > kMaxCaseJsonValues)
    spec_internal::fail(path, "the case holds more than " + std::to_string(kMaxCaseJsonValues) +
                                  " JSON values; the limit follows from the element limits (specs/FORMAT.md, Limits)");
  json jc = json::from_msgpack(split.packed);
  try {
    check_string_lengths(jc, file_name);
  } catch (const SpecError& e) {
    const std::string& field = e.field();
    spec_internal::fail(field.empty()          ? path
                        : field.front() == '[' ? path + field
                                               : join_path(path, field),
                        e.message());
  }
  return jc;
}

void stream_document(SplitDocument& document, const std::string& file_name, const CaseFn& on_case,
                     const ErrorFn& on_error) {
  if (document.cases.size() > kMaxCasesPerFile) {
    on_error(SpecError(file_name, "", "cases",
                       "schema: " + std::to_string(document.cases.size()) + " cases; the limit is " +
                           std::to_string(kMaxCasesPerFile) + " per file"));
    return;
  }
  if (const auto problem = check_file_schema(document.root)) {
    on_error(SpecError(file_name, "", problem->field, problem->message));
    return;
  }
  const json no_source = json::object();
  const json& file_source = document.root.contains("source") ? document.root["source"] : no_source;
  std::map<std::string, size_t> first_with_id;
  for (size_t i = 0; i < document.cases.size(); ++i) {
    const std::string path = indexed("cases", i);
    SplitCase& split = document.cases[i];
    const std::string label = split.id.empty() ? path : split.id;
    std::optional<Case> built;
    std::optional<SpecError> error;
    const auto [it, fresh] = split.id.empty() ? std::pair(first_with_id.end(), true) : first_with_id.emplace(label, i);
    try {
      if (!fresh)
        spec_internal::fail(join_path(path, "id"), "duplicate case id; first used by " + indexed("cases", it->second));
      const json jc = unpack_case(split, path, file_name);
      if (const auto problem = check_case_schema(jc, path)) spec_internal::fail(problem->field, problem->message);
      built = build_case(jc, path, file_source, file_name);
    } catch (const CaseProblem& p) {
      error.emplace(file_name, label, p.field, p.message);
    } catch (const json::exception& e) {  // a shape the schema should have refused
      error.emplace(file_name, label, path, std::string("malformed case: ") + e.what());
    }
    split = SplitCase{};  // this case's JSON is no longer needed: memory follows the cases still to come
    if (error)
      on_error(std::move(*error));
    else
      on_case(std::move(*built));
  }
}

}  // namespace

void stream_spec_text(std::string_view text, const std::string& file_name, const CaseFn& on_case,
                      const ErrorFn& on_error) {
  if (std::optional<SplitDocument> document = parse_checked(text, file_name, on_error))
    stream_document(*document, file_name, on_case, on_error);
}

void stream_spec_file(const std::string& path, const CaseFn& on_case, const ErrorFn& on_error) {
  std::optional<SplitDocument> document;
  {
    std::string text;
    try {
      text = read_file(path);
    } catch (const SpecError& e) {
      on_error(SpecError(e));
      return;
    }
    document = parse_checked(text, path, on_error);
  }  // the text is released before the cases run
  if (document) stream_document(*document, path, on_case, on_error);
}

LoadReport load_spec_text_lenient(std::string_view text, const std::string& file_name) {
  LoadReport report;
  stream_spec_text(
      text, file_name, [&](Case&& c) { report.cases.push_back(std::move(c)); },
      [&](SpecError&& e) { report.errors.push_back(std::move(e)); });
  return report;
}

std::vector<Case> load_spec_text(std::string_view text, const std::string& file_name) {
  LoadReport report = load_spec_text_lenient(text, file_name);
  if (!report.errors.empty()) throw report.errors.front();
  return std::move(report.cases);
}

LoadReport load_spec_file_lenient(const std::string& path) {
  LoadReport report;
  stream_spec_file(
      path, [&](Case&& c) { report.cases.push_back(std::move(c)); },
      [&](SpecError&& e) { report.errors.push_back(std::move(e)); });
  return report;
}

std::vector<Case> load_spec_file(const std::string& path) {
  LoadReport report = load_spec_file_lenient(path);
  if (!report.errors.empty()) throw report.errors.front();
  return std::move(report.cases);
}

// One directory of find_spec_files, recursively. Every path that may be a
// spec file but cannot be read as one is listed all the same, so that
// reading it (read_file) is a spec error naming that path alone while the
// files beside it load: a *.json that is a FIFO, a device, a dangling or
// unreadable symlink or file; a symlink loop (whatever its name: its type
// cannot be known); a symlink to its own directory or an ancestor; a
// directory that cannot be listed. Symlinks to directories are not followed
// (a link to / would walk the whole file system); each real directory is
// walked once (by device and inode), so no loop can recurse.
static void find_spec_files_under(const std::filesystem::path& dir, std::vector<std::string>& files,
                                  std::set<std::pair<uintmax_t, uintmax_t>>& walked) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && !walked.emplace(st.st_dev, st.st_ino).second) return;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code own_ec;
    const fs::file_status own = it->symlink_status(own_ec);
    if (fs::is_directory(own)) {
      // schema/ holds the JSON Schema, expectations/ the CI gate's
      // expectation files: neither is a spec file.
      if (p.filename() != "schema" && p.filename() != "expectations") find_spec_files_under(p, files, walked);
      continue;
    }
    if (fs::is_symlink(own)) {
      std::error_code target_ec;
      const fs::file_status target = fs::status(p, target_ec);
      if (fs::is_directory(target)) {
        const fs::path to = fs::canonical(p, target_ec);
        const fs::path here = fs::canonical(dir, target_ec);
        if (!target_ec && std::mismatch(to.begin(), to.end(), here.begin(), here.end()).first == to.end())
          files.push_back(p.string());  // a loop: reported, not followed
        continue;
      }
      if (target_ec && target.type() != fs::file_type::not_found) {  // ELOOP and the like
        files.push_back(p.string());
        continue;
      }
    }
    if (p.extension() == ".json") files.push_back(p.string());
  }
  if (ec) files.push_back(dir.string());  // cannot be listed (read_file says why)
}

std::vector<std::string> find_spec_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::set<std::pair<uintmax_t, uintmax_t>> walked;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(fs::status(path, ec))) {
      find_spec_files_under(path, files, walked);
    } else if (fs::exists(fs::symlink_status(path, ec))) {
      files.push_back(path);  // whatever it is: read_file says what is wrong with it
    } else {
      throw SpecError(path, "", "", "no such file or directory");
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

namespace {
std::atomic<int64_t> g_huge_budget{0};
}  // namespace

void allow_huge_cases(int64_t budget_bytes) { g_huge_budget = std::max<int64_t>(budget_bytes, 0); }
int64_t huge_case_budget() { return g_huge_budget; }

CaseLimits huge_case_limits(int64_t budget_bytes) {
  CaseLimits l;
  l.tensor_elements = kMaxHugeElements;
  l.case_elements = kMaxHugeElements;
  l.storage_bytes = budget_bytes / 4;
  l.case_storage_bytes = budget_bytes / 2;
  l.output_elements = kMaxHugeElements;
  l.output_bytes = budget_bytes / 4;
  return l;
}

}  // namespace sp
