// spec_loader.cc — specs/FORMAT.md made executable: the public entry points
// of spec_loader.h, running the stages of spec_loader_internal.h (pre-scan
// and parse, schema, semantics) and keeping one case's problem from
// affecting the other cases of its file.
#include "harness/spec_loader.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "harness/spec_loader_internal.h"

namespace sp {

using spec_internal::build_case;
using spec_internal::CaseProblem;
using spec_internal::check_schema;
using spec_internal::check_string_lengths;
using spec_internal::indexed;
using spec_internal::join_path;
using spec_internal::json;
using spec_internal::parse_json;
using spec_internal::read_file;
using spec_internal::SchemaVerdict;

LoadReport load_spec_text_lenient(std::string_view text, const std::string& file_name) {
  LoadReport report;
  json document;
  SchemaVerdict verdict;
  try {
    document = parse_json(text, file_name);
    check_string_lengths(document, file_name);
    verdict = check_schema(document);
  } catch (const SpecError& e) {
    report.errors.push_back(e);
    return report;
  }
  if (verdict.file_problem) {
    report.errors.emplace_back(file_name, "", verdict.file_problem->field, verdict.file_problem->message);
    return report;
  }
  const json& cases = document["cases"];
  const json no_source = json::object();
  const json& file_source = document.contains("source") ? document["source"] : no_source;
  std::map<std::string, size_t> first_with_id;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = indexed("cases", i);
    const json& jc = cases[i];
    const bool has_id =
        jc.is_object() && jc.contains("id") && jc["id"].is_string() && !jc["id"].get_ref<const std::string&>().empty();
    const std::string label = has_id ? jc["id"].get<std::string>() : path;
    if (has_id) {
      const auto [it, fresh] = first_with_id.emplace(label, i);
      if (!fresh) {
        report.errors.emplace_back(file_name, label, join_path(path, "id"),
                                   "duplicate case id; first used by " + indexed("cases", it->second));
        continue;
      }
    }
    if (const auto problem = verdict.case_problems.find(i); problem != verdict.case_problems.end()) {
      report.errors.emplace_back(file_name, label, problem->second.field, problem->second.message);
      continue;
    }
    try {
      report.cases.push_back(build_case(jc, path, file_source, file_name));
    } catch (const CaseProblem& p) {
      report.errors.emplace_back(file_name, label, p.field, p.message);
    } catch (const json::exception& e) {  // a shape the schema should have refused
      report.errors.emplace_back(file_name, label, path, std::string("malformed case: ") + e.what());
    }
  }
  return report;
}

std::vector<Case> load_spec_text(std::string_view text, const std::string& file_name) {
  LoadReport report = load_spec_text_lenient(text, file_name);
  if (!report.errors.empty()) throw report.errors.front();
  return std::move(report.cases);
}

LoadReport load_spec_file_lenient(const std::string& path) {
  try {
    return load_spec_text_lenient(read_file(path), path);
  } catch (const SpecError& e) {
    return LoadReport{{}, {e}};
  }
}

std::vector<Case> load_spec_file(const std::string& path) { return load_spec_text(read_file(path), path); }

std::vector<std::string> find_spec_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        // schema/ holds the JSON Schema, expectations/ the CI gate's
        // expectation files: neither is a spec file.
        if (it->is_directory() && (it->path().filename() == "schema" || it->path().filename() == "expectations"))
          it.disable_recursion_pending();
        else if (it->is_regular_file() && it->path().extension() == ".json")
          files.push_back(it->path().string());
      }
      if (ec) throw SpecError(path, "", "", "cannot list directory: " + ec.message());
    } else if (fs::exists(path, ec)) {
      files.push_back(path);
    } else {
      throw SpecError(path, "", "", "no such file or directory");
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace sp
