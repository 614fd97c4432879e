// spec_loader_test.cc — every class of spec error names file, case and field;
// the writer round-trips bit-exactly.
#include "harness/spec_loader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "harness/spec_loader_internal.h"  // the schema generator
#include "reference/op_table.h"
#include "tests/test_paths.h"

namespace sp {
namespace {

using json = nlohmann::json;

constexpr const char* kFile = "mem.json";

// A valid torch.scatter_ case each test breaks in one place.
json scatter_case(const std::string& id = "t/scatter/base") {
  json c = json::parse(R"({
    "op": "torch.scatter_",
    "source": {"document": "002_9301e372f38f2ff8.txt", "kind": "edge"},
    "args": {"dim": 0},
    "inputs": {
      "self": {"dtype": "int64", "data": [[0, 0], [0, 0]]},
      "index": {"dtype": "int64", "data": [[1, 0]]},
      "src": {"dtype": "int64", "data": [[5, 6]]}
    },
    "expect": {"output": {"data": [[0, 6], [5, 0]]}}
  })");
  c["id"] = id;
  return c;
}

json spec_file(const std::vector<json>& cases) { return {{"format", "scatterproof-spec/1"}, {"cases", cases}}; }

std::string text_of(const json& case_json) { return spec_file({case_json}).dump(); }

// The error loading `text` raises; a failure if it loads.
SpecError load_error(const std::string& text) {
  try {
    load_spec_text(text, kFile);
  } catch (const SpecError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error: " << text.substr(0, 300);
  return SpecError("", "", "", "");
}

// Asserts the error names the file, the case and the field, and says `words`.
void expect_error(const SpecError& e, const std::string& case_id, const std::string& field, const std::string& words) {
  EXPECT_EQ(e.file(), kFile) << e.what();
  EXPECT_EQ(e.case_id(), case_id) << e.what();
  EXPECT_EQ(e.field(), field) << e.what();
  EXPECT_NE(e.message().find(words), std::string::npos) << "message lacks \"" << words << "\": " << e.what();
  const std::string what = e.what();
  EXPECT_NE(what.find(kFile), std::string::npos);
  EXPECT_NE(what.find(case_id), std::string::npos);
  EXPECT_NE(what.find(field), std::string::npos);
}

void expect_case_error(json c, const std::string& field, const std::string& words) {
  const std::string id = c["id"];
  expect_error(load_error(text_of(c)), id, field, words);
}

TEST(SpecLoader, LoadsTheFormatExample) {
  const auto cases = load_spec_text(R"({
    "format": "scatterproof-spec/1",
    "description": "PyTorch gather: examples from 000",
    "source": {"document": "000_bc03f2d9d994437c.txt"},
    "cases": [{
      "id": "torch/gather/000-example-1",
      "op": "torch.gather",
      "source": {"example": "gather, example 1", "kind": "example"},
      "args": {"dim": 1},
      "inputs": {
        "input": {"dtype": "int64", "data": [[1, 2], [3, 4]]},
        "index": {"dtype": "int64", "data": [[0, 0], [1, 0]]}
      },
      "expect": {"output": {"data": [[1, 1], [4, 3]]}},
      "tags": ["example"]
    }]})",
                                    kFile);
  ASSERT_EQ(cases.size(), 1u);
  const Case& c = cases[0];
  EXPECT_EQ(c.id, "torch/gather/000-example-1");
  EXPECT_EQ(c.file, kFile);
  EXPECT_EQ(c.call.op, "torch.gather");
  EXPECT_EQ(c.call.int_arg("dim"), 1);
  EXPECT_EQ(c.source.document, "000_bc03f2d9d994437c.txt");  // merged from the file
  EXPECT_EQ(c.source.kind, "example");
  EXPECT_EQ(c.tags, std::vector<std::string>{"example"});
  const Tensor& input = c.call.tensors.at("input");
  EXPECT_EQ(input.shape(), (Shape{2, 2}));
  EXPECT_EQ(input.to_bits(), (std::vector<uint64_t>{1, 2, 3, 4}));
  ASSERT_EQ(c.expect.kind, CaseExpect::Kind::Output);
  EXPECT_EQ(c.expect.outputs.at(0).dtype(), DType::Int64);  // defaults to input's dtype
  EXPECT_EQ(c.expect.outputs.at(0).to_bits(), (std::vector<uint64_t>{1, 1, 4, 3}));
}

TEST(SpecLoader, BadJsonNamesLineAndColumn) {
  const SpecError e = load_error("{\n  \"format\": \"scatterproof-spec/1\",\n  \"cases\": [,]\n}");
  EXPECT_EQ(e.file(), kFile);
  EXPECT_NE(e.message().find("line 3, column"), std::string::npos) << e.what();
}

TEST(SpecLoader, DeepNestingIsRefusedBeforeParsing) {
  const SpecError e = load_error(std::string(100000, '['));
  EXPECT_NE(e.message().find("nesting deeper than 64"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find("line 1, column 65"), std::string::npos) << e.what();
}

TEST(SpecLoader, DeepDataInsideACaseIsRefused) {
  json c = scatter_case();
  std::string text = text_of(c);
  const std::string deep = std::string(70, '[') + "1" + std::string(70, ']');
  text.replace(text.find("[[5,6]]"), 7, deep);
  EXPECT_NE(load_error(text).message().find("nesting deeper"), std::string::npos);
}

TEST(SpecLoader, DuplicateKeysAreRefused) {
  const std::string text = text_of(scatter_case("t/dup-key"));
  std::string doubled = text;
  doubled.replace(doubled.find("\"data\":[[5,6]]"), 14, "\"data\":[[5,6]],\"data\":[[7,8]]");
  expect_error(load_error(doubled), "", "cases[0].inputs.src.data", "duplicate key");
}

TEST(SpecLoader, WrongFormatStringIsAFileError) {
  json f = spec_file({scatter_case()});
  f["format"] = "scatterproof-spec/2";
  expect_error(load_error(f.dump()), "", "format", "const");
}

TEST(SpecLoader, WrongTypeNamesTheField) {
  json c = scatter_case("t/wrong-type");
  c["args"]["dim"] = "0";
  expect_case_error(c, "cases[0].args.dim", "schema");
}

TEST(SpecLoader, UnknownFieldIsRefused) {
  json c = scatter_case("t/unknown-field");
  c["inputs"]["self"]["layout"] = "strided";
  expect_case_error(c, "cases[0].inputs.self", "layout");
  json d = scatter_case("t/unknown-case-field");
  d["expected"] = 1;
  expect_case_error(d, "cases[0]", "expected");
}

TEST(SpecLoader, UnknownDtypeOpAndErrorCategory) {
  json c = scatter_case("t/dtype");
  c["inputs"]["self"]["dtype"] = "float128";
  expect_case_error(c, "cases[0].inputs.self.dtype", "enum");
  json o = scatter_case("t/op");
  o["op"] = "torch.no_such_op";
  expect_case_error(o, "cases[0].op", "enum");
  json e = scatter_case("t/category");
  e["expect"] = {{"error", "index_oob"}};
  expect_case_error(e, "cases[0].expect.error", "enum");
}

TEST(SpecLoader, RaggedArrayNamesTheRow) {
  json c = scatter_case("t/ragged");
  c["inputs"]["self"]["data"] = json::parse("[[0, 0], [0]]");
  expect_case_error(c, "cases[0].inputs.self.data[1]", "ragged");
  json d = scatter_case("t/ragged-depth");
  d["inputs"]["self"]["data"] = json::parse("[[0, 0], 7]");
  expect_case_error(d, "cases[0].inputs.self.data[1]", "ragged");
}

TEST(SpecLoader, ShapeAndValueCountMustAgree) {
  json c = scatter_case("t/values");
  c["inputs"]["src"] = {{"dtype", "int64"}, {"shape", {2, 3}}, {"values", {1, 2, 3, 4, 5}}};
  expect_case_error(c, "cases[0].inputs.src.values", "needs 6");
  json d = scatter_case("t/data-vs-shape");
  d["inputs"]["src"] = {{"dtype", "int64"}, {"shape", {1, 3}}, {"data", {{5, 6}}}};
  expect_case_error(d, "cases[0].inputs.src.data[0]", "needs 3");
}

TEST(SpecLoader, ValuesOutOfDtypeRange) {
  json c = scatter_case("t/int8");
  c["inputs"]["self"] = {{"dtype", "int8"}, {"data", {1, 200}}};
  expect_case_error(c, "cases[0].inputs.self.data[1]", "out of range of int8");
  json d = scatter_case("t/non-integer");
  d["inputs"]["src"]["data"] = json::parse("[[5, 6.5]]");
  expect_case_error(d, "cases[0].inputs.src.data[0][1]", "not an integer");
  json e = scatter_case("t/nan-int");
  e["inputs"]["src"]["data"] = json::parse(R"([[5, "nan"]])");
  expect_case_error(e, "cases[0].inputs.src.data[0][1]", "integral");
  json f = scatter_case("t/f32-overflow");
  f["inputs"]["self"] = {{"dtype", "float32"}, {"shape", {2}}, {"values", {1.0, 1e39}}};
  expect_case_error(f, "cases[0].inputs.self.values[1]", "out of range of float32");
  json g = scatter_case("t/hex-wide");
  g["inputs"]["self"] = {{"dtype", "float16"}, {"data", {"0x17c00"}}};
  expect_case_error(g, "cases[0].inputs.self.data[0]", "wider than float16");
  json h = scatter_case("t/int64-string");
  h["inputs"]["self"] = {{"dtype", "int64"}, {"data", {"9223372036854775808"}}};
  expect_case_error(h, "cases[0].inputs.self.data[0]", "out of range");
  json i = scatter_case("t/bool");
  i["inputs"]["self"] = {{"dtype", "bool"}, {"data", {1, 2}}};
  expect_case_error(i, "cases[0].inputs.self.data[1]", "out of range of bool");
  json k = scatter_case("t/uint64-json");
  k["inputs"]["self"] = {{"dtype", "int64"}, {"data", {18446744073709551615ull}}};
  expect_case_error(k, "cases[0].inputs.self.data[0]", "out of range of int64");
}

TEST(SpecLoader, HugeShapesFailFastWithoutAllocating) {
  json c = scatter_case("t/huge-fill");
  c["inputs"]["self"] = {{"dtype", "float64"}, {"shape", {1000000000, 1000000000}}, {"fill", 0}};
  expect_case_error(c, "cases[0].inputs.self.shape", "limit");
  json d = scatter_case("t/overflow");
  d["inputs"]["self"] = {{"dtype", "float64"}, {"shape", {int64_t{1} << 62, int64_t{1} << 62}}, {"fill", 0}};
  expect_case_error(d, "cases[0].inputs.self.shape", "int64");
  // An expanded view: tiny storage, but too many logical elements.
  json e = scatter_case("t/expanded-huge");
  e["inputs"]["self"] = {{"dtype", "int64"}, {"shape", {1 << 13, 1 << 12}}, {"strides", {0, 0}}, {"storage", {0}}};
  expect_case_error(e, "cases[0].inputs.self.shape", "limit");
  // Strides that need a huge storage for few elements.
  json f = scatter_case("t/huge-stride");
  f["inputs"]["self"] = {{"dtype", "int64"}, {"shape", {2}}, {"strides", {int64_t{1} << 40}}, {"fill", 0}};
  expect_case_error(f, "cases[0].inputs.self.strides", "limit");
  // Many tensors within the per-tensor limit, over the per-case limit.
  json g = scatter_case("t/case-budget");
  g["inputs"]["self"] = {{"dtype", "int8"}, {"shape", {kMaxCaseElements / 2 + 1}}, {"fill", 0}};
  g["inputs"]["src"] = {{"dtype", "int8"}, {"shape", {kMaxCaseElements / 2 + 1}}, {"fill", 0}};
  expect_case_error(g, "cases[0].inputs.src.shape", "in all");
}

TEST(SpecLoader, LongStringsAreRefused) {
  json c = scatter_case("t/long");
  c["source"]["example"] = std::string(100000, 'a');
  // A long string inside a case is that case's problem (the others load).
  expect_error(load_error(text_of(c)), "t/long", "cases[0].source.example", "limit");
  json file = spec_file({scatter_case("t/ok")});
  file["description"] = std::string(100000, 'a');
  expect_error(load_error(file.dump()), "", "description", "limit");
}

TEST(SpecLoader, DuplicateIdsNameTheSecondCase) {
  const SpecError e = load_error(spec_file({scatter_case("t/a"), scatter_case("t/b"), scatter_case("t/a")}).dump());
  expect_error(e, "t/a", "cases[2].id", "duplicate");
  EXPECT_NE(e.message().find("cases[0]"), std::string::npos);
}

TEST(SpecLoader, BadStridesAndOffsets) {
  json c = scatter_case("t/strides-rank");
  c["inputs"]["self"] = {{"dtype", "int64"}, {"shape", {2, 2}}, {"strides", {1}}, {"fill", 0}};
  expect_case_error(c, "cases[0].inputs.self.strides", "rank 2");
  json d = scatter_case("t/storage-small");
  d["inputs"]["self"] = {{"dtype", "int64"}, {"shape", {2, 2}}, {"strides", {2, 1}}, {"storage", {1, 2, 3}}};
  expect_case_error(d, "cases[0].inputs.self.strides", "outside its storage");
  json e = scatter_case("t/offset-beyond");
  e["inputs"]["self"] = {{"dtype", "int64"}, {"shape", {2}}, {"strides", {1}}, {"offset", 9}, {"storage", {1, 2}}};
  expect_case_error(e, "cases[0].inputs.self.offset", "outside its storage");
  json f = scatter_case("t/negative-stride");
  f["inputs"]["self"] = {{"dtype", "int64"}, {"shape", {2}}, {"strides", {-1}}, {"storage", {1, 2}}};
  expect_case_error(f, "cases[0].inputs.self.strides[0]", "schema");
  json g = scatter_case("t/stride0-differs");
  g["inputs"]["self"] = {{"dtype", "int64"}, {"data", {{1, 2}, {1, 3}}}, {"strides", {0, 1}}};
  expect_case_error(g, "cases[0].inputs.self.data[1][1]", "differs");
}

// out= over another operand's storage: {"view_of": NAME, shape, strides?, offset?}.
json gather_out_case(const std::string& id, const json& out) {
  json c = json::parse(R"({
    "op": "torch.gather",
    "source": {"document": "doc", "kind": "edge"},
    "args": {"dim": 0},
    "inputs": {
      "input": {"dtype": "int64", "shape": [2, 2], "strides": [2, 1], "storage": [1, 2, 3, 4, 5, 6]},
      "index": {"dtype": "int64", "data": [[0, 1], [1, 0]]}
    },
    "expect": {"error": "overlapping_output"}
  })");
  c["id"] = id;
  c["inputs"]["out"] = out;
  return c;
}

TEST(SpecLoader, ViewOfSharesTheOperandsStorage) {
  const std::vector<Case> cases = load_spec_text(
      text_of(gather_out_case("t/view", {{"view_of", "input"}, {"shape", {2, 2}}, {"strides", {1, 2}}, {"offset", 1}})),
      kFile);
  ASSERT_EQ(cases.size(), 1u);
  const Tensor& out = cases[0].call.tensors.at("out");
  const Tensor& input = cases[0].call.tensors.at("input");
  EXPECT_EQ(out.storage(), input.storage());
  EXPECT_EQ(out.dtype(), DType::Int64);
  EXPECT_EQ(out.offset(), 1);
  EXPECT_EQ(out.strides(), (Shape{1, 2}));
  // The writer gives it back as a view, and it loads to the same sharing.
  const std::vector<Case> again = load_spec_text(spec_file({case_to_json(cases[0])}).dump(), kFile);
  EXPECT_EQ(again[0].call.tensors.at("out").storage(), again[0].call.tensors.at("input").storage());
  EXPECT_EQ(again[0].call.tensors.at("out").offset(), 1);
}

TEST(SpecLoader, BadViewsNameTheField) {
  expect_case_error(gather_out_case("t/view-unknown", {{"view_of", "nope"}, {"shape", {2, 2}}}),
                    "cases[0].inputs.out.view_of", "not another operand");
  expect_case_error(gather_out_case("t/view-self", {{"view_of", "out"}, {"shape", {2, 2}}}),
                    "cases[0].inputs.out.view_of", "not another operand");
  expect_case_error(gather_out_case("t/view-outside", {{"view_of", "input"}, {"shape", {2, 2}}, {"offset", 3}}),
                    "cases[0].inputs.out", "outside the storage of input");
  expect_case_error(gather_out_case("t/view-rank", {{"view_of", "input"}, {"shape", {2, 2}}, {"strides", {1}}}),
                    "cases[0].inputs.out.strides", "rank-2");
  json chain = gather_out_case("t/view-chain", {{"view_of", "index"}, {"shape", {2, 2}}});
  chain["inputs"]["index"] = {{"view_of", "input"}, {"shape", {2, 2}}};
  expect_case_error(chain, "cases[0].inputs.out.view_of", "itself a view");
  // A view carries no elements and no dtype of its own (the schema says so).
  json with_data = gather_out_case("t/view-data", {{"view_of", "input"}, {"shape", {2, 2}}, {"data", {1}}});
  const SpecError e = load_error(text_of(with_data));
  EXPECT_EQ(e.case_id(), "t/view-data");
}

TEST(SpecLoader, OperandsAndArgumentsFollowTheOp) {
  json c = scatter_case("t/no-src");
  c["inputs"].erase("src");
  expect_case_error(c, "cases[0].inputs.src", "args.value");
  json d = scatter_case("t/src-and-value");
  d["args"]["value"] = 1.5;
  expect_case_error(d, "cases[0].args.value", "not both");
  json e = scatter_case("t/foreign-operand");
  e["inputs"]["updates"] = e["inputs"]["src"];
  expect_case_error(e, "cases[0].inputs.updates", "no operand updates");
  json f = scatter_case("t/foreign-arg");
  f["args"]["overwrite"] = true;
  expect_case_error(f, "cases[0].args.overwrite", "takes no argument");
  json g = scatter_case("t/no-dim");
  g["args"].erase("dim");
  expect_case_error(g, "cases[0].args.dim", "needs args.dim");
  json h = scatter_case("t/no-document");
  h["source"].erase("document");
  expect_case_error(h, "cases[0].source.document", "missing");
  json i = scatter_case("t/no-dtype");
  i["inputs"]["index"].erase("dtype");
  expect_case_error(i, "cases[0].inputs.index", "dtype");
}

TEST(SpecLoader, TensorGivesExactlyOneElementForm) {
  json c = scatter_case("t/two-forms");
  c["inputs"]["self"]["values"] = {0, 0, 0, 0};
  c["inputs"]["self"]["shape"] = {2, 2};
  expect_case_error(c, "cases[0].inputs.self", "schema");
  json d = scatter_case("t/values-without-shape");
  d["inputs"]["self"] = {{"dtype", "int64"}, {"values", {0, 0}}};
  expect_case_error(d, "cases[0].inputs.self", "shape");
}

TEST(SpecLoader, InvalidIdIsASchemaError) {
  json c = scatter_case("bad id with spaces");
  expect_case_error(c, "cases[0].id", "pattern");
}

TEST(SpecLoader, LenientLoadKeepsTheGoodCases) {
  json broken = scatter_case("t/broken");
  broken["inputs"]["self"]["data"] = json::parse("[[0, 0], [0]]");
  json wrong_type = scatter_case("t/wrong-type");
  wrong_type["args"]["dim"] = "x";
  const LoadReport report = load_spec_text_lenient(
      spec_file({scatter_case("t/one"), broken, scatter_case("t/two"), wrong_type}).dump(), kFile);
  ASSERT_EQ(report.cases.size(), 2u);
  EXPECT_EQ(report.cases[0].id, "t/one");
  EXPECT_EQ(report.cases[1].id, "t/two");
  ASSERT_EQ(report.errors.size(), 2u);
  EXPECT_EQ(report.errors[0].case_id(), "t/broken");
  EXPECT_EQ(report.errors[1].case_id(), "t/wrong-type");

  const LoadReport file_level = load_spec_text_lenient("{\"cases\": []}", kFile);
  EXPECT_TRUE(file_level.cases.empty());
  ASSERT_EQ(file_level.errors.size(), 1u);
  EXPECT_NE(file_level.errors[0].message().find("format"), std::string::npos) << file_level.errors[0].what();
}

TEST(SpecLoader, LoadsFilesFromDisk) {
  const std::string path = sp::test::source_dir() + "/tests/data/loader/mixed.json";
  const LoadReport report = load_spec_file_lenient(path);
  ASSERT_EQ(report.cases.size(), 1u);
  EXPECT_EQ(report.cases[0].id, "loader/good");
  EXPECT_EQ(report.cases[0].file, path);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].file(), path);
  EXPECT_EQ(report.errors[0].case_id(), "loader/ragged");
  EXPECT_EQ(report.errors[0].field(), "cases[1].inputs.index.data[1]");
  EXPECT_THROW(load_spec_file(path), SpecError);
}

TEST(SpecLoader, MissingFileIsASpecError) {
  const LoadReport report = load_spec_file_lenient("/nonexistent/x.json");
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].file(), "/nonexistent/x.json");
  EXPECT_THROW(load_spec_file("/nonexistent/x.json"), SpecError);
}

TEST(SpecLoader, FindsSpecFilesRecursivelySkippingTheSchema) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(testing::TempDir()) / "sp_find_spec_files";
  fs::remove_all(root);
  for (const char* dir : {"b/deep", "schema", "a"}) fs::create_directories(root / dir);
  for (const char* file : {"b/deep/z.json", "b/y.json", "a/x.json", "a/notes.md", "schema/spec.schema.json"})
    std::ofstream(root / file) << "{}";
  const auto files = find_spec_files({root.string(), (root / "a/x.json").string()});
  EXPECT_EQ(files, (std::vector<std::string>{(root / "a/x.json").string(), (root / "b/deep/z.json").string(),
                                             (root / "b/y.json").string()}));
  EXPECT_THROW(find_spec_files({(root / "missing").string()}), SpecError);
  fs::remove_all(root);
}

TEST(SpecLoader, ElementSpellings) {
  json c = scatter_case("t/spellings");
  c["inputs"]["self"] = {{"dtype", "float32"}, {"data", {"nan", "inf", "-inf", "-0.0", "0x7fc00001", 0.1, "3"}}};
  c["inputs"]["index"] = {{"dtype", "int64"}, {"data", {"-9223372036854775808", "9223372036854775807", 2}}};
  c["inputs"]["src"] = {{"dtype", "bool"}, {"data", {true, false, 1, 0}}};
  c["expect"] = {{"unspecified", "only loading is tested"}};
  const Case loaded = load_spec_text(text_of(c), kFile).at(0);
  EXPECT_EQ(
      loaded.call.tensors.at("self").to_bits(),
      (std::vector<uint64_t>{0x7fc00000, 0x7f800000, 0xff800000, 0x80000000, 0x7fc00001, 0x3dcccccd, 0x40400000}));
  EXPECT_EQ(loaded.call.tensors.at("index").to_bits(),
            (std::vector<uint64_t>{0x8000000000000000ull, 0x7fffffffffffffffull, 2}));
  EXPECT_EQ(loaded.call.tensors.at("src").to_bits(), (std::vector<uint64_t>{1, 0, 1, 0}));
  EXPECT_EQ(loaded.expect.kind, CaseExpect::Kind::Unspecified);
}

TEST(SpecLoader, ScalarValueKeepsItsPythonType) {
  auto value_of = [](const json& v) {
    json c = scatter_case("t/value");
    c["inputs"].erase("src");
    c["args"]["value"] = v;
    return load_spec_text(text_of(c), kFile).at(0).call.scalar_arg("value").value();
  };
  EXPECT_EQ(value_of(true).kind, Scalar::Kind::Bool);
  EXPECT_EQ(value_of(3).kind, Scalar::Kind::Int);
  EXPECT_EQ(value_of(3).i, 3);
  EXPECT_EQ(value_of(3.0).kind, Scalar::Kind::Float);
  EXPECT_TRUE(std::isnan(value_of("nan").f));
  EXPECT_TRUE(std::signbit(value_of("-0.0").f));
  EXPECT_EQ(value_of("-inf").f, -std::numeric_limits<double>::infinity());
}

TEST(SpecLoader, DataWithStridesLeavesSentinelGaps) {
  json c = scatter_case("t/gaps");
  // A 2x2 view with row stride 3 and offset 1 over 6 elements: gaps at 0, 3, 5... (storage 0..5)
  c["inputs"]["self"] = {{"dtype", "int16"}, {"data", {{1, 2}, {3, 4}}}, {"strides", {3, 1}}, {"offset", 1}};
  const Tensor self = load_spec_text(text_of(c), kFile).at(0).call.tensors.at("self");
  EXPECT_EQ(self.to_bits(), (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(self.storage_elements(), 6u);
  EXPECT_EQ(load_bits(DType::Int16, self.storage()->data()), 0x5a5au);
  EXPECT_EQ(load_bits(DType::Int16, self.element_ptr(3)), 0x5a5au);
  // Stride 0 with equal values is an expanded view over one row.
  json d = scatter_case("t/expanded");
  d["inputs"]["self"] = {{"dtype", "int64"}, {"data", {{7, 8}, {7, 8}, {7, 8}}}, {"strides", {0, 1}}};
  const Tensor expanded = load_spec_text(text_of(d), kFile).at(0).call.tensors.at("self");
  EXPECT_EQ(expanded.storage_elements(), 2u);
  EXPECT_TRUE(expanded.has_internal_overlap());
}

TEST(SpecLoader, SchemaEnumsMatchTheCode) {
  const json schema = json::parse(spec_schema_text());
  std::vector<std::string> categories;
  for (ErrorCategory c : kAllErrorCategories) categories.emplace_back(error_name(c));
  EXPECT_EQ(schema["definitions"]["expect"]["properties"]["error"]["enum"].get<std::vector<std::string>>(), categories);
  std::vector<std::string> dtypes;
  for (DType t : kAllDTypes) dtypes.emplace_back(dtype_name(t));
  EXPECT_EQ(schema["definitions"]["tensor"]["properties"]["dtype"]["enum"].get<std::vector<std::string>>(), dtypes);
  // A case names forward ops only (a backward is asked for with a block).
  std::vector<std::string> forward_ops;
  for (const OpSpec& op : op_table())
    if (op.backward_of.empty()) forward_ops.push_back(op.id);
  EXPECT_EQ(schema["definitions"]["case"]["properties"]["op"]["enum"].get<std::vector<std::string>>(), forward_ops);
}

// The schema's args and inputs are the union over the op table: every
// argument name with its type's JSON type, every operand name.
TEST(SpecLoader, SchemaArgsAndInputsAreTheOpTablesNames) {
  const json schema = json::parse(spec_schema_text());
  const json& args = schema["definitions"]["case"]["properties"]["args"]["properties"];
  const json& inputs = schema["definitions"]["case"]["properties"]["inputs"]["properties"];
  std::set<std::string> arg_names, operand_names;
  for (const OpSpec& op : op_table()) {
    if (!op.backward_of.empty()) continue;  // the backward block's business, not inputs'
    for (const ArgSpec& a : op.args) {
      arg_names.insert(a.name);
      ASSERT_TRUE(args.contains(a.name)) << a.name;
      const json& property = args[a.name];
      switch (a.type) {
        case Arg::Type::Int:
        case Arg::Type::IntList:  // an array of integers
          EXPECT_EQ((a.type == Arg::Type::Int ? property : property["items"])["type"], "integer") << a.name;
          break;
        case Arg::Type::Bool:
        case Arg::Type::String:
          EXPECT_EQ(property["type"], a.type == Arg::Type::Bool ? "boolean" : "string") << a.name;
          break;
        case Arg::Type::Scalar:
          EXPECT_EQ(property["$ref"], "#/definitions/scalar") << a.name;
          break;
      }
    }
    for (const OperandSpec& o : op.operands) operand_names.insert(o.name);
  }
  EXPECT_EQ(args.size(), arg_names.size());
  EXPECT_EQ(inputs.size(), operand_names.size());
  for (const std::string& name : operand_names) EXPECT_EQ(inputs[name]["$ref"], "#/definitions/input_tensor") << name;
}

// The generator fills exactly the structural file's placeholders and
// refuses a structure without them (the two would have drifted apart).
TEST(SpecLoader, SchemaGeneratorFillsThePlaceholders) {
  const json placeholder = {{"$comment", "generated"}};
  json structural = {{"definitions", {{"case", {{"properties", {{"op", placeholder}, {"args", placeholder}}}}}}}};
  EXPECT_THROW(spec_internal::generate_spec_schema(structural), std::logic_error);  // no inputs placeholder
  structural["definitions"]["case"]["properties"]["inputs"] = placeholder;
  const json full = spec_internal::generate_spec_schema(structural);
  for (const char* key : {"op", "args", "inputs"})
    EXPECT_FALSE(full["definitions"]["case"]["properties"][key].contains("$comment")) << key;
}

// The schema gives each argument name one JSON type, so no two ops may
// declare the same name with different types.
TEST(SpecLoader, NoArgumentNameHasTwoTypes) {
  std::map<std::string, std::pair<Arg::Type, std::string>> first;
  for (const OpSpec& op : op_table())
    for (const ArgSpec& a : op.args) {
      const auto [it, fresh] = first.try_emplace(a.name, a.type, op.id);
      EXPECT_TRUE(fresh || it->second.first == a.type)
          << a.name << " is a " << arg_type_name(a.type) << " in " << op.id << " but a "
          << arg_type_name(it->second.first) << " in " << it->second.second;
    }
}

// Arguments are read by the type the op table declares, whatever their name.
TEST(SpecLoader, ArgumentsAreReadByTheirDeclaredType) {
  json c = scatter_case("t/arg-types");
  c["args"]["value"] = 3;
  c["inputs"].erase("src");
  c["args"]["reduce"] = "add";
  const OpCall call = load_spec_text(text_of(c), kFile).at(0).call;
  EXPECT_EQ(call.arg("dim")->type, Arg::Type::Int);
  EXPECT_EQ(call.arg("value")->type, Arg::Type::Scalar);
  EXPECT_EQ(call.arg("value")->scalar.kind, Scalar::Kind::Int);
  EXPECT_EQ(*call.string_arg("reduce"), "add");
  json p = json::parse(R"({"id": "t/paddle-args", "op": "paddle.scatter", "source": {"document": "004.txt"},
    "args": {"overwrite": false},
    "inputs": {"x": {"dtype": "float32", "data": [[1, 1], [2, 2]]}, "index": {"dtype": "int64", "data": [1]},
               "updates": {"dtype": "float32", "data": [[5, 5]]}},
    "expect": {"output": {"data": [[1, 1], [7, 7]]}}})");
  const Case paddle = load_spec_text(text_of(p), kFile).at(0);
  EXPECT_EQ(paddle.call.bool_arg("overwrite"), std::optional<bool>(false));
  EXPECT_EQ(case_to_json(paddle)["args"], json::parse(R"({"overwrite": false})"));  // written by its type
  p["args"]["overwrite"] = 1;
  expect_case_error(p, "cases[0].args.overwrite", "schema");
}

// --- round trips ---------------------------------------------------------------

void expect_same_tensor(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_EQ(a.strides(), b.strides());
  EXPECT_EQ(a.offset(), b.offset());
  ASSERT_TRUE(a.storage() && b.storage());
  EXPECT_TRUE(*a.storage() == *b.storage()) << a.describe();
}

Tensor reload(const Tensor& t) {
  Case c;
  c.id = "t/roundtrip";
  c.call.op = "torch.gather";
  c.call.set_arg("dim", Arg::of_int(0));
  c.source.document = "test";
  c.call.tensors["input"] = t;
  c.call.tensors["index"] = Tensor::zeros(DType::Int64, {1});
  c.expect.kind = CaseExpect::Kind::Unspecified;
  const std::string text = spec_file_json({c}, "round trip").dump();
  return load_spec_text(text, kFile).at(0).call.tensors.at("input");
}

Tensor from_bits(DType t, const std::vector<uint64_t>& bits) {
  Tensor out = Tensor::zeros(t, {static_cast<int64_t>(bits.size())});
  for (size_t i = 0; i < bits.size(); ++i) store_bits(t, out.element_ptr(static_cast<int64_t>(i)), bits[i]);
  return out;
}

TEST(SpecLoaderRoundTrip, SpecialFloatsAndPayloads) {
  const Tensor f32 = from_bits(DType::Float32, {0x7fc00001, 0xffc00000, 0x7fc00000, 0x80000000, 0x7f800000, 0xff800000,
                                                0x00000001, 0x3dcccccd, 0x7f7fffff});
  expect_same_tensor(reload(f32), f32);
  const Tensor f64 = from_bits(DType::Float64, {0x7ff8000000000001ull, 0x8000000000000000ull, 0x3fb999999999999aull,
                                                0x0000000000000001ull, 0x7fefffffffffffffull});
  expect_same_tensor(reload(f64), f64);
}

TEST(SpecLoaderRoundTrip, IntegerExtremes) {
  const Tensor i64 =
      from_bits(DType::Int64, {0x8000000000000000ull, 0x7fffffffffffffffull, 0, 1ull << 53, (1ull << 53) + 1});
  const json j = tensor_to_json(i64);
  EXPECT_EQ(j["data"][0], "-9223372036854775808");
  EXPECT_EQ(j["data"][1], "9223372036854775807");
  expect_same_tensor(reload(i64), i64);
  expect_same_tensor(reload(from_bits(DType::UInt8, {0, 255})), from_bits(DType::UInt8, {0, 255}));
  expect_same_tensor(reload(from_bits(DType::Bool, {0, 1})), from_bits(DType::Bool, {0, 1}));
}

TEST(SpecLoaderRoundTrip, EveryHalfAndBFloat16Pattern) {
  std::vector<uint64_t> all(1 << 16);
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (DType t : {DType::Float16, DType::BFloat16}) {
    const Tensor every = from_bits(t, all);
    expect_same_tensor(reload(every), every);
  }
}

TEST(SpecLoaderRoundTrip, RandomFloat32Patterns) {
  std::mt19937 rng(1234);
  std::vector<uint64_t> bits(20000);
  for (uint64_t& b : bits) b = rng();
  const Tensor t = from_bits(DType::Float32, bits);
  expect_same_tensor(reload(t), t);
}

TEST(SpecLoaderRoundTrip, ViewsKeepTheirLayoutAndStorage) {
  auto storage = std::make_shared<std::vector<std::byte>>(12 * sizeof(float), kGapSentinel);
  const Tensor base = Tensor::view(DType::Float32, {3, 4}, {4, 1}, 0, storage);
  for (int64_t i = 0; i < 12; ++i)
    store_bits(DType::Float32, base.element_ptr(i), 0x3f800000u + static_cast<uint64_t>(i));
  const Tensor transposed = Tensor::view(DType::Float32, {4, 3}, {1, 4}, 0, storage);
  const Tensor sliced = Tensor::view(DType::Float32, {2, 2}, {4, 2}, 5, storage);
  const Tensor expanded = Tensor::view(DType::Float32, {5, 4}, {0, 1}, 4, storage);
  const Tensor scalar = Tensor::view(DType::Float32, {}, {}, 7, storage);
  for (const Tensor& t : {transposed, sliced, expanded, scalar}) {
    const json j = tensor_to_json(t);
    EXPECT_TRUE(j.contains("storage")) << j.dump();
    expect_same_tensor(reload(t), t);
  }
  const Tensor empty = Tensor::zeros(DType::Int32, {0, 3});
  EXPECT_EQ(tensor_to_json(empty)["data"], json::array());
  expect_same_tensor(reload(empty), empty);
  const Tensor rank0 = Tensor::zeros(DType::Float64, {});
  EXPECT_TRUE(tensor_to_json(rank0)["data"].is_number());
  expect_same_tensor(reload(rank0), rank0);
}

TEST(SpecLoaderRoundTrip, WholeCases) {
  Case c;
  c.id = "torch/scatter_/roundtrip";
  c.call.op = "torch.scatter_";
  c.call.set_arg("dim", Arg::of_int(-1));
  c.call.set_arg("reduce", Arg::of_string("multiply"));
  c.call.set_arg("value", Arg::of_scalar(Scalar::of_float(-0.0)));
  c.source = {"002_9301e372f38f2ff8.txt", "reduce example", "", "edge"};
  c.call.tensors["self"] = from_bits(DType::BFloat16, {0x3f80, 0x7fc1, 0x8000});
  c.call.tensors["index"] = from_bits(DType::Int64, {2, 0});
  c.expect.kind = CaseExpect::Kind::OneOf;
  c.expect.outputs = {from_bits(DType::BFloat16, {0x3f80, 0x7fc1, 0x8000}), from_bits(DType::BFloat16, {0, 0, 0})};
  c.expect.atol = 0.25;
  c.erratum = Erratum{"001_bd549c940236546d.txt", "row 1 is overwritten", from_bits(DType::BFloat16, {0x4000, 0, 0})};
  c.tags = {"roundtrip", "bf16"};

  const std::string text = spec_file_json({c}, "whole case").dump(2);
  const Case back = load_spec_text(text, kFile).at(0);
  EXPECT_EQ(back.id, c.id);
  EXPECT_EQ(back.call.op, c.call.op);
  EXPECT_EQ(back.call.int_arg("dim"), -1);
  EXPECT_EQ(back.call.string_arg("reduce"), "multiply");
  ASSERT_TRUE(back.call.scalar_arg("value"));
  EXPECT_EQ(back.call.scalar_arg("value")->kind, Scalar::Kind::Float);
  EXPECT_TRUE(std::signbit(back.call.scalar_arg("value")->f));
  EXPECT_EQ(back.source.document, c.source.document);
  EXPECT_EQ(back.source.example, c.source.example);
  EXPECT_EQ(back.source.kind, c.source.kind);
  for (const auto& [name, t] : c.call.tensors) expect_same_tensor(back.call.tensors.at(name), t);
  ASSERT_EQ(back.expect.kind, CaseExpect::Kind::OneOf);
  ASSERT_EQ(back.expect.outputs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) expect_same_tensor(back.expect.outputs[i], c.expect.outputs[i]);
  EXPECT_EQ(back.expect.atol, 0.25);
  ASSERT_TRUE(back.erratum && back.erratum->claimed_output);
  EXPECT_EQ(back.erratum->claim, c.erratum->claim);
  expect_same_tensor(*back.erratum->claimed_output, *c.erratum->claimed_output);
  EXPECT_EQ(back.tags, c.tags);
  EXPECT_EQ(case_to_json(back), case_to_json(c));

  Case error_case = c;
  error_case.erratum.reset();
  error_case.expect = CaseExpect{
      CaseExpect::Kind::Error, {}, 0.0, ErrorCategory::InvalidReduce, "reduce argument must be either add or multiply"};
  const Case error_back = load_spec_text(spec_file_json({error_case}, "").dump(), kFile).at(0);
  EXPECT_EQ(error_back.expect.kind, CaseExpect::Kind::Error);
  EXPECT_EQ(error_back.expect.error, ErrorCategory::InvalidReduce);
  EXPECT_EQ(error_back.expect.text, error_case.expect.text);
}

}  // namespace
}  // namespace sp
