#include "reports/result_stream.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "harness/build_info.h"

namespace sp {

using nlohmann::json;

nlohmann::json provenance_to_json(const Provenance& p) {
  return {{"document", p.document}, {"example", p.example}, {"doc_version", p.doc_version}, {"kind", p.kind}};
}

nlohmann::json picture_to_json(const OutputPicture& p) {
  return {{"output", p.output}, {"dtype", p.dtype}, {"shape", p.shape},     {"numel", p.numel},
          {"actual", p.actual}, {"bad", p.bad},     {"allowed", p.allowed}, {"bad_total", p.bad_total}};
}

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
      {"source", provenance_to_json(r.source)},
      {"tags", r.tags},
      {"duration_ms", r.duration_ms},
      {"repro", r.repro},
  };
  if (r.framework) j["framework"] = {{"name", r.framework->name}, {"version", r.framework->version}};
  if (!r.device.empty()) j["device"] = r.device;
  if (r.erratum)
    j["erratum"] = {
        {"document", r.erratum->document}, {"claim", r.erratum->claim}, {"reference_says", r.erratum->reference_says}};
  if (r.picture) j["picture"] = picture_to_json(*r.picture);
  if (!r.explanation.empty()) j["explanation"] = r.explanation;
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

// The optional "picture" of a failing record; bounded as written
// (OutputPicture), a malformed one is dropped, not an error.
std::optional<OutputPicture> picture_from_json(const json& p) {
  try {
    OutputPicture pic;
    pic.output = optional_string(p, "output");
    pic.dtype = optional_string(p, "dtype");
    pic.shape = p.at("shape").get<std::vector<int64_t>>();
    pic.numel = p.at("numel").get<int64_t>();
    pic.actual = p.at("actual").get<std::vector<std::string>>();
    pic.bad = p.at("bad").get<std::vector<int64_t>>();
    if (auto a = p.find("allowed"); a != p.end()) pic.allowed = a->get<std::vector<std::string>>();
    if (auto b = p.find("bad_total"); b != p.end()) pic.bad_total = b->get<int64_t>();
    const auto shown = static_cast<int64_t>(pic.actual.size());
    if (shown > OutputPicture::kMaxPictureElements || pic.bad.size() > pic.actual.size() ||
        pic.allowed.size() > pic.bad.size())
      return std::nullopt;
    for (int64_t b : pic.bad)
      if (b < 0 || b >= shown) return std::nullopt;
    return pic;
  } catch (const json::exception&) {
    return std::nullopt;
  }
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
  r.device = optional_string(j, "device");
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
  if (auto p = j.find("picture"); p != j.end() && p->is_object()) r.picture = picture_from_json(*p);
  if (auto e = j.find("explanation"); e != j.end() && e->is_array())
    for (const json& line : *e)
      if (line.is_string() && r.explanation.size() <= kMaxExplanationLines)
        r.explanation.push_back(line.get<std::string>());
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

namespace {

// PRETTY_NAME of /etc/os-release, or empty.
std::string distribution() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("PRETTY_NAME=")) continue;
    std::string v = line.substr(12);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    return v;
  }
  return {};
}

}  // namespace

nlohmann::json run_record_json() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  struct utsname u = {};
  const std::string os = ::uname(&u) == 0 ? fmt::format("{} {} {}", u.sysname, u.release, u.machine) : "";
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc = {};
  gmtime_r(&now, &utc);
  char started[32] = {};
  std::strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return json{{"format", "scatterproof-run/1"},
              {"tool_version", tool_version()},
              {"commit", tool_commit()},
              {"started_at", started},
              {"machine",
               {{"hostname", host},
                {"os", os},
                {"distribution", distribution()},
                {"cpu_count", std::thread::hardware_concurrency()}}}};
}

void write_run_record(const std::string& path, const nlohmann::json& record) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << record.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    if (!out.flush()) throw std::runtime_error(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
}

std::optional<nlohmann::json> read_run_record(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
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
