// report.html (reports/report_html.h) and the data behind its pictures: the
// comparator's per-element picture of a wrong output (bounded), its optional,
// backward-compatible "picture" field in results.jsonl, and the page: self-
// contained, hostile text kept inside its data, bounded for many results.
// tests/html_report_check.py renders a real run's page in Chromium.
#include "reports/report_html.h"

#include <gtest/gtest.h>

#include <regex>

#include "harness/comparator.h"
#include "reports/result_stream.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::f32;

ResultRecord failing(const std::string& id, std::string detail = "output self[1]: allowed 0.0, actual 9.0") {
  ResultRecord r;
  r.case_id = id;
  r.file = "specs/torch/scatter.json";
  r.op = "torch.scatter_";
  r.backend = "mutant:x";
  r.backend_version = "scatterproof 0.1.0";
  r.check = "differential";
  r.verdict = Verdict::Kind::Fail;
  r.detail = std::move(detail);
  r.source = Provenance{"PyTorch docs", "example 1", "1.13", "example"};
  r.repro = repro_command(r.backend, id, r.file);
  return r;
}

OutputPicture picture_of(int64_t n) {
  std::vector<double> values(static_cast<size_t>(n), 1.0);
  std::vector<double> wrong = values;
  wrong[1] = 9.0;
  const ExpectedTensor want{"self", f32({n}, values), {}};
  std::optional<OutputPicture> p = output_picture(want, f32({n}, wrong));
  EXPECT_TRUE(p);
  return p ? *p : OutputPicture{};
}

// The data embedded in a page, parsed back.
nlohmann::json page_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  const size_t start = html.find(open);
  EXPECT_NE(start, std::string::npos);
  const size_t end = html.find("</script>", start);
  return nlohmann::json::parse(html.substr(start + open.size(), end - start - open.size()));
}

TEST(ReportHtmlPicture, MarksTheElementsOutsideTheAllowedSet) {
  const ExpectedTensor want{"self", f32({2, 3}, {1, 2, 3, 4, 5, 6}), {}};
  const std::optional<OutputPicture> p = output_picture(want, f32({2, 3}, {1, 0, 3, 4, 5, 7}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->output, "self");
  EXPECT_EQ(p->dtype, "float32");
  EXPECT_EQ(p->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(p->numel, 6);
  EXPECT_EQ(p->actual, (std::vector<std::string>{"1.0", "0.0", "3.0", "4.0", "5.0", "7.0"}));
  EXPECT_EQ(p->bad, (std::vector<int64_t>{1, 5}));
  ASSERT_EQ(p->allowed.size(), 2u);
  EXPECT_NE(p->allowed[0].find("2.0"), std::string::npos) << p->allowed[0];
  EXPECT_NE(p->allowed[1].find("6.0"), std::string::npos) << p->allowed[1];
  // Nothing to picture: all allowed, or a wrong shape.
  EXPECT_FALSE(output_picture(want, f32({2, 3}, {1, 2, 3, 4, 5, 6})));
  EXPECT_FALSE(output_picture(want, f32({6}, {1, 0, 3, 4, 5, 7})));
}

TEST(ReportHtmlPicture, AnElementInALooseSetIsAllowed) {
  std::map<int64_t, ElementAllowed> loose;
  loose[0].bits = {f32({1}, {5}).bits_at({0}), f32({1}, {6}).bits_at({0})};
  const ExpectedTensor want{"self", f32({2}, {5, 1}), loose};
  EXPECT_FALSE(output_picture(want, f32({2}, {6, 1})));
  const std::optional<OutputPicture> p = output_picture(want, f32({2}, {7, 1}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->bad, (std::vector<int64_t>{0}));
}

TEST(ReportHtmlPicture, IsBoundedForALargeOutput) {
  const OutputPicture p = picture_of(5000);
  EXPECT_EQ(p.numel, 5000);
  EXPECT_EQ(static_cast<int64_t>(p.actual.size()), OutputPicture::kMaxPictureElements);
  EXPECT_EQ(p.bad, (std::vector<int64_t>{1}));
}

TEST(ReportHtmlPicture, RoundTripsThroughResultsJsonlAndIsOptional) {
  ResultRecord r = failing("torch/a");
  r.picture = picture_of(4);
  const ResultRecord back = record_from_json(record_to_json(r));
  ASSERT_TRUE(back.picture);
  EXPECT_EQ(back.picture->actual, r.picture->actual);
  EXPECT_EQ(back.picture->bad, r.picture->bad);
  EXPECT_EQ(back.picture->allowed, r.picture->allowed);
  EXPECT_EQ(record_to_json(back), record_to_json(r));
  // A record written before the field existed, and a malformed picture: no picture, no error.
  nlohmann::json old = record_to_json(failing("torch/b"));
  EXPECT_FALSE(old.contains("picture"));
  EXPECT_FALSE(record_from_json(old).picture);
  old["picture"] = {{"shape", {2}}, {"numel", 2}, {"actual", {"1"}}, {"bad", {7}}};
  EXPECT_FALSE(record_from_json(old).picture);
}

TEST(ReportHtml, IsSelfContained) {
  ResultRecord r = failing("torch/a");
  r.picture = picture_of(6);
  ResultRecord pass = failing("torch/b");
  pass.verdict = Verdict::Kind::Pass;
  const std::string html = report_html({r, pass});
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(\b(src|href)\s*=\s*["'])", std::regex::icase)));
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(<(link|img|iframe)\b)", std::regex::icase)));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("id=\"matrix\""), std::string::npos);
  const nlohmann::json data = page_data(html);
  ASSERT_EQ(data["failures"].size(), 1u);
  EXPECT_EQ(data["failures"][0]["case"], "torch/a");
  EXPECT_EQ(data["failures"][0]["picture"]["bad"], nlohmann::json::array({1}));
  EXPECT_EQ(data["failures"][0]["source"]["document"], "PyTorch docs");
}

// The page is reports/templates/report.{html,css,js}, embedded at build
// time: every slot of the HTML is filled, the style and the script in place.
TEST(ReportHtml, FillsEverySlotOfTheTemplate) {
  const std::string html = report_html({failing("torch/a")});
  EXPECT_EQ(html.find("{{"), std::string::npos);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<style>\nbody{"), std::string::npos);
  EXPECT_NE(html.find("<script>\n\"use strict\";"), std::string::npos);
  EXPECT_NE(html.find("document.body.dataset.rendered = \"yes\";\n</script>\n</body></html>\n"), std::string::npos);
  EXPECT_EQ(page_data(html)["failures"][0]["case"], "torch/a");
}

TEST(ReportHtml, HostileTextStaysInsideTheData) {
  const std::string hostile = "</script><script>alert(1)</script><!-- </SCRIPT > & \xff bad utf-8";
  ResultRecord r = failing("torch/</script>", hostile);
  r.op = "<b>op</b>";
  const std::string html = report_html({r});
  // Exactly the page's own two script elements end.
  size_t closes = 0;
  for (size_t at = 0; (at = html.find("</script", at)) != std::string::npos; ++at) ++closes;
  EXPECT_EQ(closes, 2u);
  EXPECT_EQ(html.find("</SCRIPT"), std::string::npos);
  EXPECT_EQ(html.find("<!-- </"), std::string::npos);
  EXPECT_EQ(html.find("<b>op"), std::string::npos);
  const nlohmann::json data = page_data(html);
  const std::string detail = data["failures"][0]["detail"];
  EXPECT_EQ(detail.substr(0, 40), hostile.substr(0, 40));
  EXPECT_EQ(data["failures"][0]["case"], "torch/</script>");
  EXPECT_EQ(data["ops"][0], "<b>op</b>");
}

TEST(ReportHtml, IsBoundedForManyResults) {
  std::vector<ResultRecord> records;
  const OutputPicture big = picture_of(5000);
  for (int i = 0; i < 20000; ++i) {
    ResultRecord r = failing("torch/case-" + std::to_string(i), std::string(3000, 'x'));
    r.backend = "mutant:" + std::to_string(i % 4);
    r.picture = big;
    records.push_back(std::move(r));
  }
  const std::string html = report_html(records);
  EXPECT_LT(html.size(), 5u * 1024 * 1024);
  const nlohmann::json data = page_data(html);
  EXPECT_EQ(data["failures_total"], 20000);
  EXPECT_EQ(data["failures"].size(), kHtmlMaxFailures);
  size_t pictures = 0;
  for (const nlohmann::json& f : data["failures"]) pictures += f.contains("picture");
  EXPECT_EQ(pictures, kHtmlMaxPictures);
  EXPECT_EQ(data["pictures_left_out"], 20000 - kHtmlMaxPictures);
}

TEST(ReportHtml, ComparesSeveralRuns) {
  std::vector<ResultRecord> a = {failing("torch/a")}, b = {failing("torch/a")};
  b[0].backend = "libtorch";
  b[0].backend_version = "LibTorch 2.15";
  b[0].verdict = Verdict::Kind::Pass;
  const VectorSource sa(a), sb(b);
  std::ostringstream out;
  write_report_html({HtmlRun{"run-1", &sa, std::nullopt}, HtmlRun{"run-2", &sb, std::nullopt}}, out);
  const nlohmann::json data = page_data(out.str());
  ASSERT_EQ(data["columns"].size(), 2u);
  EXPECT_EQ(data["columns"][0]["run"], 0);
  EXPECT_EQ(data["columns"][1]["run"], 1);
  EXPECT_EQ(data["columns"][1]["version"], "LibTorch 2.15");
  EXPECT_EQ(data["runs"][1]["label"], "run-2");
  ASSERT_EQ(data["matrix"].size(), 2u);
  EXPECT_EQ(data["matrix"][1][2]["pass"], 1);
}

// One column per framework version (scripts/version-matrix's report
// directories): the cases whose verdict differs between the runs are listed
// with each run's verdict, rules and the case's clauses; a case alike in
// every run, and a single run, list none.
TEST(ReportHtml, ListsTheCasesWhoseVerdictChangesBetweenRuns) {
  std::vector<ResultRecord> runs[3];
  const char* versions[] = {"torch 2.0.1", "torch 2.4.1", "torch 2.8.0"};
  for (size_t i = 0; i < 3; ++i) {
    for (const char* id : {"torch/same", "torch/changes"}) {
      ResultRecord r = failing(id);
      r.backend = "torch-python-current";
      r.clause = "T-S9";
      r.rules_version = versions[i];
      r.verdict = std::string(id) == "torch/changes" && i > 0 ? Verdict::Kind::XFail : Verdict::Kind::Pass;
      runs[i].push_back(r);
    }
  }
  const VectorSource s0(runs[0]), s1(runs[1]), s2(runs[2]);
  std::ostringstream out;
  write_report_html({HtmlRun{"torch-2.0", &s0, std::nullopt}, HtmlRun{"torch-2.4", &s1, std::nullopt},
                     HtmlRun{"torch-2.8", &s2, std::nullopt}},
                    out);
  const nlohmann::json data = page_data(out.str());
  ASSERT_EQ(data["changes_total"], 1);
  const nlohmann::json& c = data["changes"][0];
  EXPECT_EQ(c["case"], "torch/changes");
  EXPECT_EQ(c["column"], "torch-python-current");
  ASSERT_EQ(c["runs"].size(), 3u);
  EXPECT_EQ(c["runs"][0]["verdict"], "pass");
  EXPECT_EQ(c["runs"][1]["verdict"], "xfail");
  EXPECT_EQ(c["runs"][1]["rules"], "torch 2.4.1");
  EXPECT_EQ(c["runs"][2]["clause"], "T-S9");
  EXPECT_NE(out.str().find("Changes between runs"), std::string::npos);
  // A run without the case: null there, and the case still compared over the others.
  runs[2].pop_back();
  const VectorSource t2(runs[2]);
  std::ostringstream out2;
  write_report_html({HtmlRun{"a", &s0, std::nullopt}, HtmlRun{"b", &s1, std::nullopt}, HtmlRun{"c", &t2, std::nullopt}},
                    out2);
  const nlohmann::json d2 = page_data(out2.str());
  ASSERT_EQ(d2["changes_total"], 1);
  EXPECT_TRUE(d2["changes"][0]["runs"][2].is_null());
  std::ostringstream out3;  // pass in one run, absent in the other: nothing to compare
  write_report_html({HtmlRun{"a", &s0, std::nullopt}, HtmlRun{"c", &t2, std::nullopt}}, out3);
  EXPECT_EQ(page_data(out3.str())["changes_total"], 0);
  EXPECT_EQ(page_data(report_html(runs[1]))["changes_total"], 0);
}

}  // namespace
}  // namespace sp
