// hostile_runs_test.cc — issue 15's run-level guarantees, in process: spec
// files stream a case at a time (an oversized case is refused while it is
// parsed, millions of bad values give one bounded error), a stop request
// ends a run after the record in hand, reports are written from
// results.jsonl as they would be from memory and never carry raw control
// bytes, and one report directory takes one run at a time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/exit_codes.h"
#include "harness/runner.h"
#include "harness/spec_loader.h"
#include "reports/report_dir.h"
#include "reports/report_writers.h"
#include "reports/result_stream.h"

namespace sp {
namespace {

using nlohmann::json;

json gather_case(const std::string& id) {
  return {{"id", id},
          {"op", "torch.gather"},
          {"args", {{"dim", 0}}},
          {"inputs",
           {{"input", {{"dtype", "float32"}, {"data", {1.0, 2.0}}}}, {"index", {{"dtype", "int64"}, {"data", {1}}}}}},
          {"expect", {{"output", {{"data", {2.0}}}}}}};
}

std::string spec_text(const std::vector<json>& cases) {
  return json{{"format", "scatterproof-spec/1"}, {"source", {{"document", "hostile"}}}, {"cases", cases}}.dump();
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("sp_hostile_runs_" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

class MemorySink final : public ResultSink {
 public:
  std::string open() override { return {}; }
  void write(const ResultRecord& r) override {
    records.push_back(r);
    if (stop && records.size() == stop_after) stop->store(SIGINT);
  }
  void close() override { closed = true; }

  std::vector<ResultRecord> records;
  std::atomic<int>* stop = nullptr;
  size_t stop_after = 0;
  bool closed = false;
};

TEST(HostileStreaming, AnOversizedCaseIsRefusedWhileParsedAndTheOthersLoad) {
  json big = gather_case("t/big");
  big["tags"] = json::array();
  for (size_t i = 0; i <= kMaxCaseJsonValues; ++i) big["tags"].push_back("x");
  const LoadReport report = load_spec_text_lenient(spec_text({gather_case("t/a"), big, gather_case("t/b")}), "f.json");
  ASSERT_EQ(report.cases.size(), 2u);
  EXPECT_EQ(report.cases[1].id, "t/b");
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].case_id(), "t/big");
  EXPECT_EQ(report.errors[0].field(), "cases[1]");
  EXPECT_NE(report.errors[0].message().find("JSON values"), std::string::npos) << report.errors[0].what();
}

TEST(HostileStreaming, MillionsOfIllTypedValuesGiveOneErrorAtTheFirst) {
  json c = gather_case("t/tags");
  c["tags"] = json::array();
  for (int i = 0; i < 1'000'000; ++i) c["tags"].push_back(i);
  const LoadReport report = load_spec_text_lenient(spec_text({c}), "f.json");
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].case_id(), "t/tags");
  EXPECT_EQ(report.errors[0].field(), "cases[0].tags[0]") << report.errors[0].what();
}

TEST(HostileStreaming, CasesRunAsTheyAreLoaded) {
  // A broken case between two good ones is reported between their results:
  // the run does not load the file's cases before running them.
  const auto dir = fresh_dir("order");
  json bad = gather_case("t/bad");
  bad["args"]["dim"] = "zero";
  std::ofstream(dir / "s.json") << spec_text({gather_case("t/1"), bad, gather_case("t/3")});
  RunOptions o;
  MemorySink sink;
  EXPECT_EQ(run_specs({(dir / "s.json").string()}, o, sink).exit_code, exit_code::kBadSpecInput);
  std::vector<std::string> order;
  for (const ResultRecord& r : sink.records) order.push_back(r.case_id + "/" + r.check);
  EXPECT_EQ(order, (std::vector<std::string>{"t/1/document", "t/1/differential", "t/bad/load", "t/3/document",
                                             "t/3/differential"}));
}

TEST(HostileStreaming, DuplicateIdsAcrossFilesAreFoundWithoutKeepingTheCases) {
  const auto dir = fresh_dir("dup");
  std::ofstream(dir / "a.json") << spec_text({gather_case("t/same")});
  std::ofstream(dir / "b.json") << spec_text({gather_case("t/same"), gather_case("t/other")});
  size_t cases = 0;
  std::vector<SpecError> errors;
  stream_specs(
      {dir.string()}, [&](Case&&) { ++cases; }, [&](SpecError&& e) { errors.push_back(e); });
  EXPECT_EQ(cases, 2u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].case_id(), "t/same");
  EXPECT_NE(errors[0].message().find("a.json"), std::string::npos) << errors[0].what();
}

TEST(HostileStreaming, AStopEndsTheRunAfterTheRecordInHand) {
  std::vector<Case> cases;
  const LoadReport loaded = load_spec_text_lenient(
      spec_text({gather_case("t/1"), gather_case("t/2"), gather_case("t/3"), gather_case("t/4")}), "f.json");
  std::atomic<int> stop{0};
  RunOptions o;
  o.backends = {"reference", "cpu"};
  o.stop = &stop;
  MemorySink sink;
  sink.stop = &stop;
  sink.stop_after = 4;  // t/1: document, reference, cpu; t/2: document -> stop
  const RunSummary s = run_cases(loaded.cases, {}, o, sink);
  EXPECT_EQ(s.exit_code, 130);
  EXPECT_EQ(s.interrupted_by, SIGINT);
  EXPECT_EQ(sink.records.size(), 4u);
  EXPECT_TRUE(sink.closed) << "the reports are rebuilt from what finished";
}

ResultRecord record(const std::string& id, const std::string& backend, Verdict::Kind v, const std::string& check) {
  ResultRecord r;
  r.case_id = id;
  r.backend = backend;
  r.check = check;
  r.op = "torch.gather";
  r.file = "f.json";
  r.verdict = v;
  r.detail = v == Verdict::Kind::Pass ? "" : "detail of " + id;
  r.source.document = "doc-" + id.substr(0, 3);
  r.duration_ms = 1.5;
  r.repro = "scatterproof run --filter '" + id + "' f.json";
  return r;
}

TEST(HostileReports, ReportsFromResultsJsonlEqualReportsFromMemory) {
  using K = Verdict::Kind;
  const std::vector<ResultRecord> records = {
      record("t/1", "reference", K::Pass, "document"), record("t/1", "cpu", K::Fail, "differential"),
      record("t/2", "reference", K::Pass, "document"), record("t/2", "cpu", K::Unsupported, "differential"),
      record("u/3", "reference", K::Fail, "document"), record("u/3", "cpu", K::Pass, "differential")};
  const auto dir = fresh_dir("same");
  {
    ResultStream stream((dir / "results.jsonl").string());
    for (const ResultRecord& r : records) stream.write(r);
  }
  write_reports(ResultsFileSource((dir / "results.jsonl").string()), dir.string());
  auto read = [&](const char* name) {
    std::ifstream in(dir / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  EXPECT_EQ(read("report.json"), report_json(records));
  EXPECT_EQ(read("junit.xml"), junit_xml(records));
  EXPECT_EQ(read("report.md"), report_markdown(records));
  EXPECT_EQ(read("report-full.md"), report_full_markdown(records));
  const json j = json::parse(read("report.json"));
  ASSERT_EQ(j["results"].size(), 6u);
  // Grouped by column, in run order within one.
  EXPECT_EQ(j["results"][0]["backend"], "cpu");
  EXPECT_EQ(j["results"][0]["case_id"], "t/1");
  EXPECT_EQ(j["results"][2]["case_id"], "u/3");
  EXPECT_EQ(j["summary"]["backends"]["cpu"]["fail"], 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "report.md.tmp"));
}

TEST(HostileReports, MarkdownNeverCarriesRawControlBytes) {
  ResultRecord r = record("t/ctl", "cpu", Verdict::Kind::Fail, "differential");
  r.source.document = std::string("doc\0with\x1b[31mESC", 17);
  r.detail = "bell\a and NUL " + std::string(1, '\0');
  const std::string md = report_markdown({r});
  for (char c : md) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << int(c);
  EXPECT_NE(md.find("doc\\x00with\\x1b[31mESC"), std::string::npos) << md;
  EXPECT_NE(md.find("bell\\x07 and NUL \\x00"), std::string::npos) << md;
}

TEST(HostileReportDir, OneRunAtATimePerDirectory) {
  const auto dir = fresh_dir("lock").string();
  ReportDirSink first(dir);
  ASSERT_EQ(first.open(), "");
  ReportDirSink second(dir);
  const std::string why = second.open();
  EXPECT_NE(why.find("in use by another scatterproof run"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(::getpid())), std::string::npos) << why;
  std::string lock_why;
  EXPECT_FALSE(ReportDirLock::acquire(dir, &lock_why).has_value());
  first.close();
  ReportDirSink third(dir);
  EXPECT_EQ(third.open(), "");
  third.close();
}

TEST(HostileReportDir, ReportPathsThatCannotBeFilesAreNamed) {
  for (const char* name : {"results.jsonl", "report.json", "junit.xml", "report.md", "report-full.md"}) {
    const auto dir = fresh_dir(std::string("dir-") + name);
    std::filesystem::create_directories(dir / name);
    ReportDirSink sink(dir.string());
    const std::string why = sink.open();
    EXPECT_NE(why.find((dir / name).string()), std::string::npos) << why;
    EXPECT_NE(why.find("is a directory"), std::string::npos) << why;
    // ...and the lock is released with the refusal.
    std::string lock_why;
    EXPECT_TRUE(ReportDirLock::acquire(dir.string(), &lock_why).has_value()) << lock_why;
  }
  const auto file = fresh_dir("file") / "plain";
  std::ofstream(file) << "x";
  ReportDirSink sink(file.string());
  EXPECT_NE(sink.open().find(file.string()), std::string::npos);
}

}  // namespace
}  // namespace sp
