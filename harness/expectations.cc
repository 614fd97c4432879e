#include "harness/expectations.h"

#include <fnmatch.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/case.h"
#include "reference/versions.h"

namespace sp {
namespace {

constexpr const char* kFormat = "scatterproof-expectations/1";

bool glob_matches(const std::string& pattern, const std::string& text) {
  return pattern == text || fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string required_string(const nlohmann::json& entry, const std::string& path, size_t i, const char* field) {
  const std::string where = "entries[" + std::to_string(i) + "]." + field;
  auto it = entry.find(field);
  if (it == entry.end()) throw SpecError(path, "", where, "missing");
  if (!it->is_string() || it->get<std::string>().empty())
    throw SpecError(path, "", where, "must be a non-empty string");
  return it->get<std::string>();
}

}  // namespace

std::vector<ExpectationEntry> load_expectation_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw SpecError(path, "", "", "cannot open expectation file");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw SpecError(path, "", "", std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object() || doc.value("format", "") != kFormat)
    throw SpecError(path, "", "format", std::string("must be \"") + kFormat + "\"");
  if (!doc.contains("entries") || !doc["entries"].is_array()) throw SpecError(path, "", "entries", "must be an array");
  std::vector<ExpectationEntry> out;
  const nlohmann::json& entries = doc["entries"];
  for (size_t i = 0; i < entries.size(); ++i) {
    const nlohmann::json& e = entries[i];
    if (!e.is_object()) throw SpecError(path, "", "entries[" + std::to_string(i) + "]", "must be an object");
    for (const auto& [key, value] : e.items())
      if (key != "case" && key != "clause" && key != "op" && key != "backend" && key != "reason" && key != "link" &&
          key != "framework" && key != "versions" && key != "intermittent" && key != "device" && key != "verdict")
        throw SpecError(path, "", "entries[" + std::to_string(i) + "]." + key, "unknown field");
    ExpectationEntry x;
    if (!e.contains("case") && !e.contains("clause"))
      throw SpecError(path, "", "entries[" + std::to_string(i) + "].case",
                      "missing: an entry names a case (glob), a clause of reference/SEMANTICS.md, or both");
    if (e.contains("case")) x.case_pattern = required_string(e, path, i, "case");
    if (e.contains("clause")) x.clause_pattern = required_string(e, path, i, "clause");
    if (e.contains("op")) x.op_pattern = required_string(e, path, i, "op");
    x.backend_pattern = required_string(e, path, i, "backend");
    x.reason = required_string(e, path, i, "reason");
    if (e.contains("link")) x.link = required_string(e, path, i, "link");
    if (e.contains("framework")) x.framework = required_string(e, path, i, "framework");
    if (e.contains("device")) x.device = required_string(e, path, i, "device");
    if (e.contains("verdict")) {
      x.verdict = required_string(e, path, i, "verdict");
      const std::optional<Verdict::Kind> k = verdict_from_name(x.verdict);
      if (!k || !verdict_is_unexpected(*k) || *k == Verdict::Kind::XPass)
        throw SpecError(path, "", "entries[" + std::to_string(i) + "].verdict",
                        "'" + x.verdict + "' is not a failing verdict (fail, crash, device_assert, timeout, ...)");
    }
    if (e.contains("intermittent")) {
      if (!e["intermittent"].is_boolean())
        throw SpecError(path, "", "entries[" + std::to_string(i) + "].intermittent", "expected true or false");
      x.intermittent = e["intermittent"].get<bool>();
    }
    if (e.contains("versions")) {
      x.versions = required_string(e, path, i, "versions");
      const std::string field = "entries[" + std::to_string(i) + "].versions";
      if (x.framework.empty()) throw SpecError(path, "", field, "needs \"framework\": the versions of which framework");
      std::string why;
      if (!ref::parse_version_range(x.versions, &why)) throw SpecError(path, "", field, why);
    }
    x.file = path;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<ExpectationEntry> load_expectation_files(const std::vector<std::string>& paths) {
  std::vector<ExpectationEntry> all;
  for (const std::string& p : paths) {
    std::vector<ExpectationEntry> some = load_expectation_file(p);
    all.insert(all.end(), some.begin(), some.end());
  }
  return all;
}

bool matches_op_and_clause(const ExpectationEntry& e, const std::string& op, const std::string& clause) {
  if (!e.op_pattern.empty() && !glob_matches(e.op_pattern, op)) return false;
  if (e.clause_pattern.empty()) return true;
  // `clause`: the cited clauses, space separated; any one may match.
  for (size_t start = 0; start < clause.size();) {
    size_t end = clause.find(' ', start);
    if (end == std::string::npos) end = clause.size();
    if (glob_matches(e.clause_pattern, clause.substr(start, end - start))) return true;
    start = end + 1;
  }
  return false;
}

const ExpectationEntry* find_expectation(const std::vector<ExpectationEntry>& entries, const std::string& case_id,
                                         const std::string& backend, const std::string& op, const std::string& clause,
                                         const std::optional<FrameworkVersion>& framework, const std::string& device,
                                         std::optional<Verdict::Kind> verdict) {
  for (const ExpectationEntry& e : entries) {
    if (!glob_matches(e.backend_pattern, backend)) continue;
    if (!e.device.empty() && !glob_matches(e.device, device.empty() ? "cpu" : device)) continue;
    if (!e.verdict.empty() && (!verdict || verdict_name(*verdict) != e.verdict)) continue;
    if (!e.framework.empty()) {
      if (!framework || framework->name != e.framework) continue;
      if (!e.versions.empty()) {
        const std::optional<ref::Version> v = ref::parse_version(framework->version);
        if (!v || !ref::parse_version_range(e.versions, nullptr)->contains(*v)) continue;
      }
    }
    if (!e.case_pattern.empty() && !glob_matches(e.case_pattern, case_id)) continue;
    if (!matches_op_and_clause(e, op, clause)) continue;
    return &e;
  }
  return nullptr;
}

Verdict apply_expectation(const ExpectationEntry& entry, Verdict v) {
  const std::string why =
      "listed in " + entry.file + ": " + entry.reason + (entry.link.empty() ? "" : " (" + entry.link + ")");
  switch (v.kind) {
    case Verdict::Kind::Fail:
    case Verdict::Kind::Crash:
    case Verdict::Kind::DeviceAssert:
    case Verdict::Kind::Timeout:
    case Verdict::Kind::Error:
    case Verdict::Kind::Unclassified:
      return {Verdict::Kind::XFail, "expected " + std::string(verdict_name(v.kind)) + ", " + why + "; " + v.detail};
    case Verdict::Kind::Pass:
      if (entry.intermittent) return {Verdict::Kind::Pass, "passed this time; intermittently " + why};
      return {Verdict::Kind::XPass, "passed although " + why};
    default:
      return v;
  }
}

size_t write_expectation_file(const std::string& path, const std::vector<ExpectationEntry>& add) {
  nlohmann::json doc = {{"format", kFormat}, {"entries", nlohmann::json::array()}};
  std::vector<ExpectationEntry> existing;
  if (std::ifstream(path).good()) existing = load_expectation_file(path);
  auto to_json = [](const ExpectationEntry& e) {
    nlohmann::json j = {{"backend", e.backend_pattern}, {"reason", e.reason}};
    if (!e.case_pattern.empty()) j["case"] = e.case_pattern;
    if (!e.clause_pattern.empty()) j["clause"] = e.clause_pattern;
    if (!e.op_pattern.empty()) j["op"] = e.op_pattern;
    if (!e.framework.empty()) j["framework"] = e.framework;
    if (!e.versions.empty()) j["versions"] = e.versions;
    if (!e.link.empty()) j["link"] = e.link;
    if (e.intermittent) j["intermittent"] = true;
    if (!e.device.empty()) j["device"] = e.device;
    if (!e.verdict.empty()) j["verdict"] = e.verdict;
    return j;
  };
  for (const ExpectationEntry& e : existing) doc["entries"].push_back(to_json(e));
  size_t added = 0;
  for (const ExpectationEntry& e : add) {
    bool known = false;
    for (const ExpectationEntry& x : existing)
      known = known || (x.case_pattern == e.case_pattern && x.backend_pattern == e.backend_pattern);
    if (known) continue;
    existing.push_back(e);
    doc["entries"].push_back(to_json(e));
    ++added;
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot write expectation file");
  out << doc.dump(2) << "\n";
  return added;
}

}  // namespace sp
