// Report writers: the JSONL round trip, junit.xml well-formedness and
// escaping, report.md's matrix, repro lines, errata, n/a and unsupported
// groups and size bound, and report-full.md's listing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/report_writers.h"
#include "reports/result_stream.h"

namespace sp {
namespace {

ResultRecord sample(const std::string& id, const std::string& backend, Verdict::Kind v, std::string detail = {}) {
  ResultRecord r;
  r.case_id = id;
  r.file = "specs/torch/scatter.json";
  r.op = "torch.scatter_";
  r.backend = backend;
  r.check = "differential";
  r.verdict = v;
  r.detail = std::move(detail);
  r.expected = "outputs";
  r.outcome = "outputs [1, 2]";
  r.source = Provenance{"002_9301e372f38f2ff8.txt", "example 1", "", "example"};
  r.tags = {"example", "reduce"};
  r.duration_ms = 1.5;
  r.repro = repro_command(backend, id, r.file);
  return r;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("sp_reports_test_" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ResultStream, JsonlRoundTripKeepsEveryField) {
  const auto dir = fresh_dir("roundtrip");
  ResultRecord a = sample("torch/a", "cpu", Verdict::Kind::Fail, "self[1]: allowed 2, actual 3");
  a.erratum = ResultRecord::ErratumNote{"001_bd549c940236546d.txt", "row 1 is overwritten", "[[0, 0, 0], [1, 2, 3]]"};
  a.source.doc_version = "2.3";
  a.backend_version = "scatterproof 0.1.0";
  a.clause = "T-IA13 T-IA11";
  const ResultRecord b = sample("torch/b", "reference", Verdict::Kind::XPass);
  {
    ResultStream stream((dir / "results.jsonl").string());
    stream.write(a);
    stream.write(b);
  }
  const std::vector<ResultRecord> back = read_results((dir / "results.jsonl").string());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(record_to_json(back[0]), record_to_json(a));
  EXPECT_EQ(record_to_json(back[1]), record_to_json(b));
  EXPECT_EQ(back[0].verdict, Verdict::Kind::Fail);
  ASSERT_TRUE(back[0].erratum);
  EXPECT_EQ(back[0].erratum->reference_says, "[[0, 0, 0], [1, 2, 3]]");
  EXPECT_EQ(back[0].tags, (std::vector<std::string>{"example", "reduce"}));
  EXPECT_EQ(back[0].backend_version, "scatterproof 0.1.0");
  EXPECT_EQ(back[0].clause, "T-IA13 T-IA11");
}

TEST(Reports, EveryBackendIsShownWithWhatItRan) {
  ResultRecord lib = sample("torch/a", "libtorch", Verdict::Kind::Pass);
  lib.backend_version = "LibTorch 1.13.0";
  ResultRecord paddle = sample("torch/b", "paddle", Verdict::Kind::Unsupported);
  paddle.backend_version = "paddle 3.3.1";
  const std::vector<ResultRecord> records = {lib, paddle};
  const std::string md = report_markdown(records);
  EXPECT_NE(md.find("## Backends"), std::string::npos) << md;
  EXPECT_NE(md.find("| libtorch | LibTorch 1.13.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| paddle | paddle 3.3.1 |"), std::string::npos) << md;
  EXPECT_NE(junit_xml(records).find("<property name=\"version\" value=\"LibTorch 1.13.0\"/>"), std::string::npos);
  EXPECT_NE(report_json(records).find("\"paddle\": \"paddle 3.3.1\""), std::string::npos) << report_json(records);
}

TEST(ResultStream, EachRecordIsOnDiskAsSoonAsWritten) {
  const auto dir = fresh_dir("flush");
  ResultStream stream((dir / "results.jsonl").string());
  stream.write(sample("torch/a", "cpu", Verdict::Kind::Pass));
  EXPECT_EQ(read_results((dir / "results.jsonl").string()).size(), 1u);  // stream still open
}

TEST(ResultStream, TruncatedLastLineIsSkippedButCorruptionElsewhereIsReported) {
  const auto dir = fresh_dir("truncated");
  const std::string good = record_to_json(sample("torch/a", "cpu", Verdict::Kind::Pass)).dump();
  std::ofstream((dir / "killed.jsonl")) << good << "\n" << good.substr(0, good.size() / 2);
  EXPECT_EQ(read_results((dir / "killed.jsonl").string()).size(), 1u);
  std::ofstream((dir / "corrupt.jsonl")) << "{not json\n" << good << "\n";
  EXPECT_THROW(read_results((dir / "corrupt.jsonl").string()), std::runtime_error);
  std::ofstream((dir / "badverdict.jsonl"))
      << R"({"case_id":"x","backend":"b","check":"differential","verdict":"maybe"})"
      << "\n";
  try {
    read_results((dir / "badverdict.jsonl").string());
    FAIL() << "an unknown verdict must be rejected";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":1: field verdict"), std::string::npos) << e.what();
  }
}

TEST(Repro, CommandQuotesTheFilterAndOddPaths) {
  EXPECT_EQ(repro_command("cpu", "torch/scatter/x-1", "specs/a.json"),
            "scatterproof run --backend cpu --filter 'torch/scatter/x-1' specs/a.json");
  EXPECT_EQ(repro_command("cpu", "a", "my specs/it's.json"),
            "scatterproof run --backend cpu --filter 'a' 'my specs/it'\\''s.json'");
}

TEST(JunitXml, EscapesMarkupAndClassifiesVerdicts) {
  std::vector<ResultRecord> records = {
      sample("torch/<pass>", "cpu", Verdict::Kind::Pass),
      sample("torch/fail", "cpu", Verdict::Kind::Fail, "allowed <2> & \"3\", got 'x'\x01"),
      sample("torch/crash", "cpu", Verdict::Kind::Crash, "SIGSEGV"),
      sample("torch/skip", "libtorch", Verdict::Kind::Unsupported, "no bfloat16"),
  };
  const std::string xml = junit_xml(records);
  EXPECT_NE(xml.find("name=\"torch/&lt;pass&gt;\""), std::string::npos);
  EXPECT_NE(xml.find("allowed &lt;2&gt; &amp; &quot;3&quot;, got &apos;x&apos;\xEF\xBF\xBD"), std::string::npos) << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"cpu\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"libtorch\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("<error message=\"crash: SIGSEGV\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"unsupported: no bfloat16\"/>"), std::string::npos);
  EXPECT_NE(xml.find("classname=\"torch.scatter_\""), std::string::npos);
}

// Well-formedness: after removing the escapes we produce, no raw markup
// characters remain inside text or attributes, and tags balance.
TEST(JunitXml, TagsBalanceAndTextHoldsNoRawMarkup) {
  const std::string xml = junit_xml({sample("a&b", "x<y", Verdict::Kind::Fail, "<<&>>\"")});
  std::vector<std::string> stack;
  size_t pos = xml.find("?>") + 2;
  while ((pos = xml.find('<', pos)) != std::string::npos) {
    const size_t end = xml.find('>', pos);
    ASSERT_NE(end, std::string::npos);
    std::string tag = xml.substr(pos + 1, end - pos - 1);
    ASSERT_EQ(tag.find('<'), std::string::npos) << tag;
    // Attribute values hold no raw '&' except entity starts.
    for (size_t amp = tag.find('&'); amp != std::string::npos; amp = tag.find('&', amp + 1))
      EXPECT_TRUE(tag.compare(amp, 4, "&lt;") == 0 || tag.compare(amp, 4, "&gt;") == 0 ||
                  tag.compare(amp, 5, "&amp;") == 0 || tag.compare(amp, 6, "&quot;") == 0 ||
                  tag.compare(amp, 6, "&apos;") == 0 || tag.compare(amp, 2, "&#") == 0)
          << tag;
    const std::string name = tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" />", 1) - (tag[0] == '/' ? 1 : 0));
    if (tag[0] == '/') {
      ASSERT_FALSE(stack.empty());
      EXPECT_EQ(stack.back(), name);
      stack.pop_back();
    } else if (tag.back() != '/') {
      stack.push_back(name);
    }
    pos = end + 1;
  }
  EXPECT_TRUE(stack.empty());
}

TEST(ReportMarkdown, UnclassifiedErrorsAreListedByBackendAndMessageWithCounts) {
  std::vector<ResultRecord> records = {
      sample("torch/a", "paddle", Verdict::Kind::Unclassified, "unclassified error: ValueError: new text"),
      sample("torch/b", "paddle", Verdict::Kind::Unclassified, "unclassified error: ValueError: new text"),
      sample("torch/c", "cpu", Verdict::Kind::Pass)};
  std::string md = report_markdown(records);
  EXPECT_NE(md.find("## Unclassified errors"), std::string::npos) << md;
  EXPECT_NE(md.find("| paddle | unclassified error: ValueError: new text | 2 |"), std::string::npos) << md;
  EXPECT_NE(junit_xml(records).find("errors=\"2\""), std::string::npos);
  records.resize(1);
  records[0].verdict = Verdict::Kind::Pass;
  md = report_markdown(records);
  EXPECT_NE(md.find("None: every error a backend raised was placed in the taxonomy."), std::string::npos) << md;
}

TEST(ReportMarkdown, MatrixReprosErrataAndSources) {
  ResultRecord doc = sample("torch/blog", "reference", Verdict::Kind::Pass);
  doc.check = "document";
  doc.source.document = "001_bd549c940236546d.txt";
  doc.erratum = ResultRecord::ErratumNote{"001_bd549c940236546d.txt", "row 1 gets 4, 5, 6", "[[0, 0, 0], [1, 2, 3]]"};
  std::vector<ResultRecord> records = {
      doc, sample("torch/a", "cpu", Verdict::Kind::Pass),
      sample("torch/b", "cpu", Verdict::Kind::Fail, "self[0]: allowed 1 | 2, actual 3")};
  records.back().op = "torch.gather";
  const std::string md = report_markdown(records);
  EXPECT_NE(md.find("| op | cpu | reference (document) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| torch.scatter_ | 1 pass | 1 pass |"), std::string::npos) << md;
  EXPECT_NE(md.find("| torch.gather | 1 fail | – |"), std::string::npos) << md;
  EXPECT_NE(md.find("allowed 1 \\| 2, actual 3"), std::string::npos) << md;
  EXPECT_NE(md.find("`scatterproof run --backend cpu --filter 'torch/b' specs/torch/scatter.json`"), std::string::npos)
      << md;
  EXPECT_NE(md.find("## Document errata found"), std::string::npos);
  EXPECT_NE(md.find("| 001_bd549c940236546d.txt | `torch/blog` | row 1 gets 4, 5, 6 | [[0, 0, 0], [1, 2, 3]] |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 001_bd549c940236546d.txt | 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 002_9301e372f38f2ff8.txt | 2 |"), std::string::npos) << md;
}

TEST(ReportMarkdown, ExpectedFailuresAreListedAsDeviationsNotAsFailures) {
  const std::string md = report_markdown({sample("paddle/index-2d", "paddle", Verdict::Kind::XFail,
                                                 "expected fail, listed in real.json: accepts a 2-D index"),
                                          sample("torch/x", "cpu", Verdict::Kind::Fail, "wrong bits")});
  const size_t deviations = md.find("## Known deviations");
  ASSERT_NE(deviations, std::string::npos);
  EXPECT_NE(md.find("accepts a 2-D index", deviations), std::string::npos);
  const std::string not_passing = md.substr(md.find("## Failures"), deviations - md.find("## Failures"));
  EXPECT_EQ(not_passing.find("paddle/index-2d"), std::string::npos);
  EXPECT_NE(not_passing.find("torch/x"), std::string::npos);
}

// The text of report.md's section `title` (up to the next "## ").
std::string section(const std::string& md, const std::string& title) {
  const size_t at = md.find("\n## " + title + "\n");
  if (at == std::string::npos) return {};
  const size_t end = md.find("\n## ", at + 1);
  return md.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// An op the backend does not implement at all is "n/a" in the matrix and
// grouped by reason, never listed result by result (report.md nor
// report-full.md); junit.xml and report.json still carry each one.
TEST(ReportMarkdown, AnOpTheBackendDoesNotImplementIsNaAndNotListedOneByOne) {
  std::vector<ResultRecord> records;
  for (int i = 0; i < 3; ++i) {
    ResultRecord r = sample("paddle/case-" + std::to_string(i), "numpy", Verdict::Kind::NotApplicable,
                            not_implemented_detail("numpy"));
    r.op = "paddle.scatter";
    records.push_back(r);
  }
  records.push_back(sample("torch/a", "numpy", Verdict::Kind::Pass));
  records.push_back(sample("torch/b", "numpy", Verdict::Kind::Unsupported, "no bfloat16"));
  const std::string md = report_markdown(records);
  EXPECT_NE(md.find("| paddle.scatter | n/a |"), std::string::npos) << md;
  EXPECT_NE(md.find("| torch.scatter_ | 1 pass, 1 unsupported |"), std::string::npos) << md;
  EXPECT_NE(md.find("5 results: 1 pass, 1 unsupported, 3 n/a."), std::string::npos) << md;
  EXPECT_NE(section(md, "Not applicable (n/a), by reason")
                .find("| numpy | backend numpy does not implement this op; nothing was run | 3 | paddle.scatter |"),
            std::string::npos)
      << md;
  const std::string full = report_full_markdown(records);
  for (const std::string& text : {md, full})
    for (int i = 0; i < 3; ++i) EXPECT_EQ(text.find("paddle/case-" + std::to_string(i)), std::string::npos) << text;
  EXPECT_NE(full.find("| numpy | backend numpy does not implement this op; nothing was run | 3 | paddle.scatter |"),
            std::string::npos)
      << full;
  const std::string xml = junit_xml(records);
  EXPECT_NE(xml.find("skipped=\"4\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"paddle/case-2\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"not_applicable: backend numpy does not implement this op"), std::string::npos);
  EXPECT_NE(full.find("`torch/b`"), std::string::npos) << full;  // numpy's column is listed
  EXPECT_EQ(nlohmann::json::parse(report_json(records))["results"].size(), 5u);
}

// Unsupported (an op the backend implements, a call it declines) is grouped
// by (backend, reason) with counts in report.md, and listed one by one in
// report-full.md.
TEST(ReportMarkdown, UnsupportedIsGroupedByBackendAndReasonWithCounts) {
  std::vector<ResultRecord> records;
  for (int i = 0; i < 5; ++i)
    records.push_back(sample("torch/bf16-" + std::to_string(i), "numpy", Verdict::Kind::Unsupported,
                             "reduce on bfloat16: NumPy has no bfloat16 arithmetic"));
  for (int i = 0; i < 2; ++i) {
    records.push_back(sample("torch/out-" + std::to_string(i), "numpy", Verdict::Kind::Unsupported,
                             "this adapter does not implement the out= operand"));
    records.back().op = "torch.gather";
  }
  records.push_back(sample("torch/bf16-0", "libtorch", Verdict::Kind::Unsupported,
                           "reduce on bfloat16: NumPy has no bfloat16 arithmetic"));
  const std::string md = report_markdown(records);
  const std::string table = section(md, "Unsupported, by reason");
  EXPECT_NE(table.find("| numpy | reduce on bfloat16: NumPy has no bfloat16 arithmetic | 5 | torch.scatter_ |"),
            std::string::npos)
      << md;
  EXPECT_NE(table.find("| numpy | this adapter does not implement the out= operand | 2 | torch.gather |"),
            std::string::npos)
      << md;
  EXPECT_NE(table.find("| libtorch | reduce on bfloat16: NumPy has no bfloat16 arithmetic | 1 | torch.scatter_ |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("torch/bf16-3"), std::string::npos) << md;  // not one by one
  EXPECT_NE(md.find("| torch.scatter_ | 1 unsupported | 5 unsupported |"), std::string::npos) << md;
  const std::string full = report_full_markdown(records);
  for (int i = 0; i < 5; ++i) EXPECT_NE(full.find("`torch/bf16-" + std::to_string(i) + "`"), std::string::npos);
}

// A large run's report.md stays a summary under 100 KB (a GitHub job
// summary): thousands of unsupported and n/a results grouped, failures past
// the bound counted with a pointer to report-full.md, which lists every one.
TEST(ReportMarkdown, ALargeRunsSummaryStaysUnder100KBAndTheFullListingHasEveryFailure) {
  const auto dir = fresh_dir("large");
  const std::string long_detail(900, 'x');
  std::vector<std::string> failure_ids;
  {
    ResultStream stream((dir / "results.jsonl").string());
    const std::vector<std::string> backends = {"cpu", "libtorch", "numpy", "paddle", "mindspore"};
    const std::vector<std::string> ops = {"torch.scatter_", "torch.gather", "paddle.scatter", "mindspore.scatter_"};
    for (int i = 0; i < 20000; ++i) {
      const std::string& backend = backends[i % backends.size()];
      ResultRecord r = sample("suite/case-" + std::to_string(i), backend, Verdict::Kind::Pass);
      r.op = ops[(i / 5) % ops.size()];
      if (i % 33 == 0 && failure_ids.size() < 600) {
        r.verdict = Verdict::Kind::Fail;
        r.detail = "self[3]: allowed 1, actual 2; " + long_detail;
        failure_ids.push_back(r.case_id);
      } else if (i % 4 == 1) {
        r.verdict = Verdict::Kind::Unsupported;
        r.detail = "no kernel for dtype d" + std::to_string(i % 40) + " on CPU";
      } else if (i % 4 == 2) {
        r.verdict = Verdict::Kind::NotApplicable;
        r.detail = not_implemented_detail(backend);
      } else if (i % 97 == 3) {
        r.verdict = Verdict::Kind::XFail;
        r.detail = "expected fail, listed in real.json: " + long_detail;
      }
      stream.write(r);
    }
  }
  ASSERT_EQ(failure_ids.size(), 600u);
  write_reports(ResultsFileSource((dir / "results.jsonl").string()), dir.string());
  const std::string md = slurp(dir / "report.md");
  EXPECT_LT(md.size(), 100u * 1024u);
  EXPECT_NE(md.find("600 results failed"), std::string::npos) << md.substr(0, 4000);
  EXPECT_NE(md.find("more failures are not listed here"), std::string::npos);
  EXPECT_NE(md.find("report-full.md"), std::string::npos);
  // Every op x backend group with failures has some listed.
  for (const char* backend : {"cpu", "libtorch", "numpy", "paddle", "mindspore"})
    EXPECT_NE(section(md, "Failures").find(std::string("**fail** ") + backend + " "), std::string::npos) << backend;
  const std::string full = slurp(dir / "report-full.md");
  for (const std::string& id : failure_ids) EXPECT_NE(full.find("`" + id + "`"), std::string::npos) << id;
  const auto j = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_EQ(j["results"].size(), 20000u);
  std::filesystem::remove_all(dir);
}

TEST(ReportJson, SummaryCountsPerVerdictAndBackend) {
  const auto dir = fresh_dir("json");
  write_reports({sample("a", "cpu", Verdict::Kind::Pass), sample("b", "cpu", Verdict::Kind::Fail),
                 sample("a", "ref", Verdict::Kind::Pass)},
                dir.string());
  const auto j = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_EQ(j["summary"]["total"], 3);
  EXPECT_EQ(j["summary"]["verdicts"]["pass"], 2);
  EXPECT_EQ(j["summary"]["verdicts"]["fail"], 1);
  EXPECT_EQ(j["summary"]["backends"]["cpu"]["fail"], 1);
  EXPECT_EQ(j["results"].size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir / "junit.xml"));
  EXPECT_TRUE(std::filesystem::exists(dir / "report.md"));
  EXPECT_TRUE(std::filesystem::exists(dir / "report-full.md"));
}

TEST(Reports, EveryReportNamesTheToolCommitAndMachineOfItsRun) {
  const auto dir = fresh_dir("run-record");
  const nlohmann::json run = {{"format", "scatterproof-run/1"},
                              {"tool_version", "9.8.7"},
                              {"commit", "abc1234-dirty"},
                              {"started_at", "2026-11-26T05:00:00Z"},
                              {"machine",
                               {{"hostname", "ci--runner"},
                                {"os", "Linux 6.1 x86_64"},
                                {"distribution", "Debian GNU/Linux 12"},
                                {"cpu_count", 2}}}};
  write_run_record((dir / "run.json").string(), run);
  write_reports({sample("a", "cpu", Verdict::Kind::Pass)}, dir.string());
  const std::string line =
      "scatterproof 9.8.7 (commit abc1234-dirty), run 2026-11-26T05:00:00Z on ci--runner (Linux 6.1 x86_64, Debian "
      "GNU/Linux 12, 2 CPUs)";
  EXPECT_NE(slurp(dir / "report.md").find(line), std::string::npos) << slurp(dir / "report.md").substr(0, 400);
  const auto j = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_EQ(j["run"], run);
  const std::string junit = slurp(dir / "junit.xml");
  EXPECT_NE(junit.find("scatterproof 9.8.7 (commit abc1234-dirty)"), std::string::npos);
  EXPECT_EQ(junit.find("ci--runner"), std::string::npos) << "a comment may not hold --";
  // Without a run record (reports rebuilt from a results.jsonl alone) the
  // reports say nothing rather than something made up.
  std::filesystem::remove(dir / "run.json");
  write_reports({sample("a", "cpu", Verdict::Kind::Pass)}, dir.string());
  EXPECT_EQ(slurp(dir / "report.md").find("(commit "), std::string::npos);
  EXPECT_FALSE(nlohmann::json::parse(slurp(dir / "report.json")).contains("run"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sp
