// hostile_loader_test.cc — the spec loader against hostile input (issue 15,
// items 1, 3 and 7): views whose extent sits near 2^63, the storage and
// element limits per tensor and per case, paths that are not spec files
// (symlink loops, dangling symlinks, FIFOs, unreadable files), and the edges
// of JSON numbers (-0, float literals for integral dtypes, huge literals in
// error messages). End-to-end checks of the same live in
// tests/hostile/check_loader.py.
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <string>
#include <vector>

#include "harness/layouts.h"
#include "harness/spec_loader.h"
#include "harness/spec_loader_internal.h"
#include "reference/dtype.h"

namespace sp {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFile = "hostile.json";
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// A torch.gather case whose `input` is `input` (index [0]; unspecified expect:
// only loading is tested).
json gather_case(const json& input, const std::string& id = "h/case") {
  return {{"id", id},
          {"op", "torch.gather"},
          {"source", {{"document", "d"}}},
          {"args", {{"dim", 0}}},
          {"inputs", {{"input", input}, {"index", {{"dtype", "int64"}, {"data", {0}}}}}},
          {"expect", {{"unspecified", "loading only"}}}};
}

std::string spec_text(const std::vector<json>& cases) {
  return json{{"format", "scatterproof-spec/1"}, {"cases", cases}}.dump();
}

// The one error loading `text` gives; a failure if there is not exactly one.
SpecError only_error(const std::string& text) {
  const LoadReport report = load_spec_text_lenient(text, kFile);
  EXPECT_EQ(report.errors.size(), 1u) << text.substr(0, 400);
  if (report.errors.empty()) return SpecError("", "", "", "");
  return report.errors.front();
}

void expect_named(const SpecError& e, const std::string& case_id, const std::string& field) {
  EXPECT_EQ(e.file(), kFile) << e.what();
  EXPECT_EQ(e.case_id(), case_id) << e.what();
  EXPECT_EQ(e.field(), field) << e.what();
}

std::string dtype_of(DType t) { return std::string(dtype_name(t)); }

// --- item 1: extents near 2^63 ---

TEST(HostileLoader, ViewReachingNearInt64MaxIsASpecErrorForEveryDtypeAndForm) {
  const std::string in = "cases[0].inputs.input";
  for (DType t : kAllDTypes) {
    for (const char* form : {"data", "values", "fill", "storage"}) {
      json base = {{"dtype", dtype_of(t)}, {"shape", {1}}};
      if (std::string(form) == "data") base["data"] = {1};
      if (std::string(form) == "values") base["values"] = {1};
      if (std::string(form) == "fill") base["fill"] = 1;
      if (std::string(form) == "storage") base["storage"] = {1}, base["strides"] = {1};
      SCOPED_TRACE(dtype_of(t) + " " + form);
      // The last element at 2^63 - 1 (its end overflows), and just below.
      for (int64_t offset : {kInt64Max, kInt64Max - 1, kInt64Max / 2}) {
        json input = base;
        input["offset"] = offset;
        expect_named(only_error(spec_text({gather_case(input)})), "h/case", in + ".offset");
      }
      // Strides that carry the last element there: 1 + (2 - 1) * (2^63 - 2).
      json strided = base;
      strided["shape"] = {2};
      if (strided.contains("data")) strided["data"] = {1, 1};
      if (strided.contains("values")) strided["values"] = {1, 1};
      if (strided.contains("storage")) strided["storage"] = {1, 1};
      strided["strides"] = {kInt64Max - 1};
      strided["offset"] = 1;
      const SpecError e = only_error(spec_text({gather_case(strided)}));
      EXPECT_EQ(e.case_id(), "h/case") << e.what();
      EXPECT_TRUE(e.field() == in + ".strides" || e.field() == in) << e.what();
      // And strides whose product alone overflows.
      strided["strides"] = {kInt64Max};
      strided["shape"] = {3};
      if (strided.contains("data")) strided["data"] = {1, 1, 1};
      if (strided.contains("values")) strided["values"] = {1, 1, 1};
      EXPECT_EQ(only_error(spec_text({gather_case(strided)})).case_id(), "h/case");
    }
  }
}

TEST(HostileLoader, ViewOfAnotherOperandNearInt64MaxIsASpecError) {
  for (const json& view : {json{{"view_of", "input"}, {"shape", {1}}, {"offset", kInt64Max}},
                           json{{"view_of", "input"}, {"shape", {2}}, {"strides", {kInt64Max - 1}}, {"offset", 1}},
                           json{{"view_of", "input"}, {"shape", {1}}, {"offset", -1}}}) {
    json c = gather_case({{"dtype", "int64"}, {"data", {1, 2}}});
    c["op"] = "torch.gather";
    c["inputs"]["out"] = view;
    c["inputs"]["out"]["view_of"] = "input";
    const SpecError e = only_error(spec_text({c}));
    EXPECT_EQ(e.case_id(), "h/case") << e.what();
    EXPECT_EQ(e.field().rfind("cases[0].inputs.out", 0), 0u) << e.what();
  }
}

// --- item 1: the limits, per tensor and per case ---

TEST(HostileLoader, StoragePerTensorLimitHoldsAtTheLastByte) {
  static_assert(kMaxCaseStorageBytes <= kMaxStorageBytes * 2 && kMaxCaseElements >= 2);
  // One int8 element near the last byte the limit allows loads (the index
  // takes 8 bytes of the case's storage); one past the limit does not.
  json at_limit = {{"dtype", "int8"}, {"shape", {1}}, {"fill", 3}, {"offset", kMaxStorageBytes - 9}};
  const LoadReport ok = load_spec_text_lenient(spec_text({gather_case(at_limit)}), kFile);
  ASSERT_TRUE(ok.errors.empty()) << ok.errors.front().what();
  EXPECT_EQ(ok.cases.at(0).call.tensors.at("input").storage()->size(), static_cast<size_t>(kMaxStorageBytes - 8));
  at_limit["offset"] = kMaxStorageBytes;
  const SpecError e = only_error(spec_text({gather_case(at_limit)}));
  expect_named(e, "h/case", "cases[0].inputs.input.offset");
  EXPECT_NE(e.message().find(std::to_string(kMaxStorageBytes) + " bytes per tensor"), std::string::npos) << e.what();
  // float64: 2^22 elements are the whole 2^25 bytes.
  json wide = {{"dtype", "float64"}, {"shape", {1}}, {"fill", 1}, {"offset", kMaxStorageBytes / 8}};
  expect_named(only_error(spec_text({gather_case(wide)})), "h/case", "cases[0].inputs.input.offset");
}

TEST(HostileLoader, StoragePerCaseCountsASharedStorageOnce) {
  // input and out each 2^24 + 1 bytes: 2^25 + 2 in all, over the case limit.
  const int64_t half = kMaxCaseStorageBytes / 2;
  json c = gather_case({{"dtype", "int8"}, {"shape", {1}}, {"fill", 1}, {"offset", half}});
  c["inputs"]["index"] = {{"dtype", "int64"}, {"data", {0}}};
  c["inputs"]["out"] = {{"dtype", "int8"}, {"shape", {1}}, {"fill", 0}, {"offset", half}};
  const SpecError e = only_error(spec_text({c}));
  EXPECT_EQ(e.case_id(), "h/case") << e.what();
  EXPECT_NE(e.message().find("in all"), std::string::npos) << e.what();
  EXPECT_NE(e.field().find("cases[0].inputs."), std::string::npos) << e.what();
  // The same out as a view of input's storage adds nothing: it loads.
  c["inputs"]["out"] = {{"view_of", "input"}, {"shape", {1}}, {"offset", half}};
  const LoadReport ok = load_spec_text_lenient(spec_text({c}), kFile);
  EXPECT_TRUE(ok.errors.empty()) << ok.errors.front().what();
}

TEST(HostileLoader, ElementsPerTensorAndPerCaseLimits) {
  json big = {{"dtype", "int8"}, {"shape", {kMaxTensorElements + 1}}, {"fill", 1}};
  expect_named(only_error(spec_text({gather_case(big)})), "h/case", "cases[0].inputs.input.shape");
  // Two tensors of 2^21 + 1 elements each: over the case's budget.
  json c = gather_case({{"dtype", "int8"}, {"shape", {kMaxCaseElements / 2 + 1}}, {"fill", 1}});
  c["inputs"]["index"] = {{"dtype", "int64"}, {"shape", {kMaxCaseElements / 2 + 1}}, {"fill", 0}};
  const SpecError e = only_error(spec_text({c}));
  EXPECT_EQ(e.case_id(), "h/case") << e.what();
  EXPECT_NE(e.message().find("elements in all"), std::string::npos) << e.what();
}

// --- item 1: layouts ---

TEST(HostileLayouts, AViewAtALargeOffsetIsReLaidOutFromItsShape) {
  // A one-element view at the far end of a storage at the limit: every
  // layout places it from its logical shape, not from its old offset.
  json input = {{"dtype", "int8"}, {"shape", {1, 1}}, {"fill", 5}, {"offset", kMaxStorageBytes - 64}};
  const LoadReport loaded = load_spec_text_lenient(spec_text({gather_case(input)}), kFile);
  ASSERT_TRUE(loaded.errors.empty()) << loaded.errors.front().what();
  for (const std::string& layout : layout_names()) {
    const std::optional<OpCall> moved = relayout(loaded.cases.at(0).call, layout);
    if (!moved) continue;
    const Tensor& t = moved->tensors.at("input");
    EXPECT_LE(t.storage()->size(), 64u) << layout;
    EXPECT_EQ(t.to_bits(), (std::vector<uint64_t>{5})) << layout;
  }
}

TEST(HostileLayouts, PlaceWithLayoutRefusesAnExtentBeyondInt64) {
  const Tensor t = Tensor::zeros(DType::Int8, {2});
  EXPECT_THROW(place_with_layout(t, {kInt64Max}, 1), std::invalid_argument);
  EXPECT_THROW(place_with_layout(t, {1}, kInt64Max), std::invalid_argument);
  EXPECT_THROW(place_with_layout(Tensor::zeros(DType::Float64, {2}), {kInt64Max / 4}, 0), std::invalid_argument);
  EXPECT_EQ(place_with_layout(t, {3}, 2).storage()->size(), 6u);
}

TEST(HostileLayouts, AnEmptyTensorWithHugeDimsKeepsSaneStrides) {
  // No element, dims whose product overflows: contiguous strides saturate
  // instead of overflowing (signed overflow is undefined), and the offset
  // layout still works.
  const Shape shape = {0, int64_t{1} << 62, int64_t{1} << 62};
  for (int64_t s : contiguous_strides(shape)) EXPECT_GE(s, 1);
  json input = {{"dtype", "float32"}, {"shape", shape}, {"data", json::array()}};
  json c = gather_case(input);
  c["inputs"]["index"] = {{"dtype", "int64"}, {"shape", shape}, {"data", json::array()}};
  const LoadReport loaded = load_spec_text_lenient(spec_text({c}), kFile);
  ASSERT_TRUE(loaded.errors.empty()) << loaded.errors.front().what();
  for (const std::string& layout : layout_names()) EXPECT_NO_THROW(relayout(loaded.cases.at(0).call, layout));
}

// --- item 3: paths that are not spec files ---

class HostileSpecPaths : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(testing::TempDir()) / ("sp_hostile_paths_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "sub");
    std::ofstream(root_ / "ok.json") << spec_text({gather_case({{"dtype", "int64"}, {"data", {1}}})});
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(root_ / "sub", fs::perms::owner_all, ec);
    fs::remove_all(root_, ec);
  }

  // find_spec_files over root_ lists `bad` and ok.json; loading `bad` is one
  // error naming it and saying `words`; ok.json loads.
  void expect_only_bad(const fs::path& bad, const std::string& words) {
    std::vector<std::string> files;
    ASSERT_NO_THROW(files = find_spec_files({root_.string()}));
    EXPECT_NE(std::find(files.begin(), files.end(), bad.string()), files.end()) << bad;
    EXPECT_NE(std::find(files.begin(), files.end(), (root_ / "ok.json").string()), files.end());
    for (const std::string& f : files) {
      auto future = std::async(std::launch::async, [f] { return load_spec_file_lenient(f); });
      ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready) << f << " blocks";
      const LoadReport r = future.get();
      if (f == (root_ / "ok.json").string()) {
        EXPECT_TRUE(r.errors.empty()) << r.errors.front().what();
        EXPECT_EQ(r.cases.size(), 1u);
      } else if (f == bad.string()) {
        ASSERT_EQ(r.errors.size(), 1u) << f;
        EXPECT_EQ(r.errors[0].file(), f);
        EXPECT_NE(r.errors[0].message().find(words), std::string::npos) << r.errors[0].what();
      }
    }
  }

  fs::path root_;
};

TEST_F(HostileSpecPaths, SymlinkLoopBetweenTwoNames) {
  fs::create_symlink("b", root_ / "a");
  fs::create_symlink("a", root_ / "b");
  expect_only_bad(root_ / "a", "symlink loop");
  expect_only_bad(root_ / "b", "symlink loop");
}

TEST_F(HostileSpecPaths, SymlinkLoopNamedJson) {
  fs::create_symlink("self.json", root_ / "self.json");
  expect_only_bad(root_ / "self.json", "symlink loop");
}

TEST_F(HostileSpecPaths, SymlinkToItsOwnDirectoryOrAnAncestor) {
  fs::create_symlink("..", root_ / "sub" / "up");
  fs::create_symlink(root_, root_ / "loop");
  expect_only_bad(root_ / "sub" / "up", "symlink loop");
  expect_only_bad(root_ / "loop", "symlink loop");
}

TEST_F(HostileSpecPaths, DanglingSymlink) {
  fs::create_symlink("nowhere.json", root_ / "dangling.json");
  expect_only_bad(root_ / "dangling.json", "dangling symlink");
}

TEST_F(HostileSpecPaths, FifoNamedJsonDoesNotBlock) {
  ASSERT_EQ(::mkfifo((root_ / "fifo.json").c_str(), 0644), 0);
  expect_only_bad(root_ / "fifo.json", "FIFO");
  // Named on its own too.
  EXPECT_EQ(find_spec_files({(root_ / "fifo.json").string()}).size(), 1u);
}

TEST_F(HostileSpecPaths, DirectoryNamedJsonIsSearchedNotRead) {
  fs::create_directories(root_ / "d.json");
  std::ofstream(root_ / "d.json" / "inner.json")
      << spec_text({gather_case({{"dtype", "int64"}, {"data", {1}}}, "h/x")});
  const std::vector<std::string> files = find_spec_files({root_.string()});
  EXPECT_EQ(files,
            (std::vector<std::string>{(root_ / "d.json" / "inner.json").string(), (root_ / "ok.json").string()}));
  // A directory given where a file is read: a spec error, not a crash.
  EXPECT_EQ(load_spec_file_lenient(root_.string()).errors.size(), 1u);
}

// Runs `checks` in this process, or, for root (who reads everything), in a
// forked child that has dropped to user nobody; the child's failures are
// printed by GoogleTest as they happen and fail this test.
void as_unprivileged_user(const std::function<void()>& checks) {
  if (::geteuid() != 0) return checks();
  constexpr uid_t kNobody = 65534;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0) << std::strerror(errno);
  if (child == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) {
      std::fprintf(stderr, "cannot become user nobody: %s\n", std::strerror(errno));
      std::fflush(stderr);
      ::_exit(2);
    }
    checks();
    std::fflush(stdout);
    ::_exit(testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the unprivileged child died: status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the checks failed as user nobody (output above)";
}

TEST_F(HostileSpecPaths, UnreadableFileAndDirectory) {
  std::ofstream(root_ / "secret.json") << "{}";
  fs::permissions(root_ / "secret.json", fs::perms::none);
  fs::permissions(root_ / "sub", fs::perms::none);
  as_unprivileged_user([this] {
    expect_only_bad(root_ / "secret.json", "ermission denied");
    expect_only_bad(root_ / "sub", "cannot be listed");
  });
}

// --- item 7: the edges of JSON ---

TEST(HostileJson, MinusZeroLoadsAsNegativeZero) {
  for (DType t : kAllDTypes) {
    if (!is_floating(t)) continue;
    // The raw text: a dumped DOM would never hold a signed-integer -0.
    const std::string text = R"({"format": "scatterproof-spec/1", "cases": [{"id": "z", "op": "torch.gather",
      "source": {"document": "d"}, "args": {"dim": 0},
      "inputs": {"input": {"dtype": ")" +
                             dtype_of(t) + R"(", "values": [-0, 0, -0.0, -0e3], "shape": [4]},
                 "index": {"dtype": "int64", "data": [-0]}},
      "expect": {"output": {"fill": -0, "shape": [1]}}}]})";
    const std::vector<Case> cases = load_spec_text(text, kFile);
    const Tensor& input = cases.at(0).call.tensors.at("input");
    const uint64_t neg = bits_from_value(t, Value::of_float(-0.0));
    EXPECT_EQ(input.to_bits(), (std::vector<uint64_t>{neg, 0, neg, neg})) << dtype_of(t);
    EXPECT_EQ(cases[0].expect.outputs.at(0).to_bits(), (std::vector<uint64_t>{neg})) << dtype_of(t);
    EXPECT_EQ(cases[0].call.tensors.at("index").to_bits(), (std::vector<uint64_t>{0}));
  }
}

TEST(HostileJson, MinusZeroScalarArgumentStaysAPythonInt) {
  const std::string text = R"({"format": "scatterproof-spec/1", "cases": [{"id": "z", "op": "torch.scatter_",
    "source": {"document": "d"}, "args": {"dim": -0, "value": -0},
    "inputs": {"self": {"dtype": "float32", "data": [1]}, "index": {"dtype": "int64", "data": [0]}},
    "expect": {"unspecified": "x"}}]})";
  const OpCall call = load_spec_text(text, kFile).at(0).call;
  EXPECT_EQ(call.scalar_arg("value")->kind, Scalar::Kind::Int);
}

TEST(HostileJson, FloatLiteralsForIntegralDtypesAreErrors) {
  for (DType t : kAllDTypes) {
    if (is_floating(t)) continue;
    for (const char* literal : {"1e-400", "-1e-400", "2.0", "2.5", "1e0", "1.00000000000000000001", "0.0"}) {
      SCOPED_TRACE(dtype_of(t) + " " + literal);
      const std::string text = R"({"format": "scatterproof-spec/1", "cases": [{"id": "f", "op": "torch.gather",
        "source": {"document": "d"}, "args": {"dim": 0},
        "inputs": {"input": {"dtype": ")" +
                               dtype_of(t) + R"(", "data": [1, )" + literal + R"(]},
                   "index": {"dtype": "int64", "data": [0]}},
        "expect": {"unspecified": "x"}}]})";
      const SpecError e = only_error(text);
      expect_named(e, "f", "cases[0].inputs.input.data[1]");
      EXPECT_NE(e.message().find("integer literals only"), std::string::npos) << e.what();
    }
  }
  // A float dtype takes them: 1e-400 rounds to +0.
  const std::string text = R"({"format": "scatterproof-spec/1", "cases": [{"id": "f", "op": "torch.gather",
    "source": {"document": "d"}, "args": {"dim": 0},
    "inputs": {"input": {"dtype": "float64", "data": [1e-400, 2.0]}, "index": {"dtype": "int64", "data": [0]}},
    "expect": {"unspecified": "x"}}]})";
  EXPECT_EQ(load_spec_text(text, kFile).at(0).call.tensors.at("input").to_bits(),
            (std::vector<uint64_t>{0, 0x4000000000000000ull}));
}

TEST(HostileJson, ErrorsQuoteAtMost64CharactersOfANumberOrString) {
  // An 8-million-digit integer: nlohmann's overflow message quotes it.
  const std::string digits(8'000'000, '7');
  const std::string text = R"({"format": "scatterproof-spec/1", "cases": [{"id": "n", "op": "torch.gather",
    "source": {"document": "d"}, "args": {"dim": 0},
    "inputs": {"input": {"dtype": "int64", "data": [)" +
                           digits + R"(]}, "index": {"dtype": "int64", "data": [0]}},
    "expect": {"unspecified": "x"}}]})";
  const SpecError e = only_error(text);
  EXPECT_LT(std::string(e.what()).size(), 400u);
  EXPECT_NE(std::string(e.what()).find("(8000000 chars)"), std::string::npos) << e.what();
  // An invalid token of the same length.
  const SpecError bad = only_error(R"({"format": "scatterproof-spec/1", "cases": [0.)" + digits + "x]}");
  EXPECT_LT(std::string(bad.what()).size(), 400u) << std::string(bad.what()).substr(0, 400);
  // A long duplicate key.
  const std::string key(8000, 'k');
  const SpecError dup = only_error(R"({"format": "scatterproof-spec/1", ")" + key + R"(": 1, ")" + key + R"(": 2})");
  EXPECT_LT(std::string(dup.what()).size(), 400u);
  EXPECT_NE(dup.message().find("(8000 chars)"), std::string::npos) << dup.what();
  // The helper itself: short text as is, long text cut at a UTF-8 boundary.
  EXPECT_EQ(spec_internal::excerpt(std::string_view("abc")), "abc");
  const std::string cut = spec_internal::excerpt(std::string(63, 'a') + "\u00e9" + std::string(100, 'b'));
  EXPECT_EQ(cut.substr(0, 63), std::string(63, 'a'));
  EXPECT_NE(cut.find("(165 chars)"), std::string::npos) << cut;
  EXPECT_EQ(spec_internal::excerpt(json::array({1, 2, 3})), "an array of 3 entries");
}

}  // namespace
}  // namespace sp
