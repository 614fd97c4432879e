#include "reports/result_stream.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace sp {

using nlohmann::json;

nlohmann::json record_to_json(const ResultRecord& r) {
  json j = {
      {"case_id", r.case_id},
      {"file", r.file},
      {"op", r.op},
      {"backend", r.backend},
      {"check", r.check},
      {"verdict", verdict_name(r.verdict)},
      {"detail", r.detail},
      {"expected", r.expected},
      {"clause", r.clause},
      {"backend_version", r.backend_version},
      {"rules_version", r.rules_version},
      {"outcome", r.outcome},
      {"source",
       {{"document", r.source.document},
        {"example", r.source.example},
        {"doc_version", r.source.doc_version},
        {"kind", r.source.kind}}},
      {"tags", r.tags},
      {"duration_ms", r.duration_ms},
      {"repro", r.repro},
  };
  if (r.framework) j["framework"] = {{"name", r.framework->name}, {"version", r.framework->version}};
  if (r.erratum)
    j["erratum"] = {
        {"document", r.erratum->document}, {"claim", r.erratum->claim}, {"reference_says", r.erratum->reference_says}};
  return j;
}

namespace {

std::string string_field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) throw std::runtime_error(fmt::format("missing field {}", key));
  if (!it->is_string()) throw std::runtime_error(fmt::format("field {} is not a string", key));
  return it->get<std::string>();
}

std::string optional_string(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

ResultRecord record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("record is not a JSON object");
  ResultRecord r;
  r.case_id = string_field(j, "case_id");
  r.file = optional_string(j, "file");
  r.op = optional_string(j, "op");
  r.backend = string_field(j, "backend");
  r.check = string_field(j, "check");
  const std::string verdict = string_field(j, "verdict");
  const std::optional<Verdict::Kind> kind = verdict_from_name(verdict);
  if (!kind) throw std::runtime_error(fmt::format("field verdict: unknown verdict '{}'", verdict));
  r.verdict = *kind;
  r.detail = optional_string(j, "detail");
  r.expected = optional_string(j, "expected");
  r.clause = optional_string(j, "clause");
  r.backend_version = optional_string(j, "backend_version");
  r.rules_version = optional_string(j, "rules_version");
  if (auto f = j.find("framework"); f != j.end() && f->is_object())
    r.framework = FrameworkVersion{optional_string(*f, "name"), optional_string(*f, "version")};
  r.outcome = optional_string(j, "outcome");
  if (auto s = j.find("source"); s != j.end() && s->is_object()) {
    r.source.document = optional_string(*s, "document");
    r.source.example = optional_string(*s, "example");
    r.source.doc_version = optional_string(*s, "doc_version");
    r.source.kind = optional_string(*s, "kind");
  }
  if (auto e = j.find("erratum"); e != j.end() && e->is_object())
    r.erratum = ResultRecord::ErratumNote{optional_string(*e, "document"), optional_string(*e, "claim"),
                                          optional_string(*e, "reference_says")};
  if (auto t = j.find("tags"); t != j.end() && t->is_array())
    for (const json& tag : *t)
      if (tag.is_string()) r.tags.push_back(tag.get<std::string>());
  if (auto d = j.find("duration_ms"); d != j.end() && d->is_number()) r.duration_ms = d->get<double>();
  r.repro = optional_string(j, "repro");
  return r;
}

ResultStream::ResultStream(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw std::runtime_error(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
}

ResultStream::~ResultStream() {
  if (file_) std::fclose(file_);
}

void ResultStream::write(const ResultRecord& r) {
  // Invalid UTF-8 from a backend's message must not make the record unwritable.
  const std::string line = record_to_json(r).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw std::runtime_error(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
}

void for_each_result_at(const std::string& path, const std::function<void(const ResultRecord&, uint64_t)>& fn) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path));
  std::string line;
  int line_no = 0;
  uint64_t offset = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const uint64_t at = offset;
    offset += line.size() + 1;
    if (line.empty()) continue;
    const bool last_line_unterminated = in.eof();
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      if (last_line_unterminated) break;  // a run killed mid-write
      throw std::runtime_error(fmt::format("{}:{}: not valid JSON", path, line_no));
    }
    ResultRecord r;
    try {
      r = record_from_json(j);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: {}", path, line_no, e.what()));
    }
    fn(r, at);
  }
}

std::vector<ResultRecord> read_results(const std::string& path) {
  std::vector<ResultRecord> out;
  for_each_result_at(path, [&](const ResultRecord& r, uint64_t) { out.push_back(r); });
  return out;
}

}  // namespace sp
