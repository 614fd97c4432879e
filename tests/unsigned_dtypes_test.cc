// unsigned_dtypes_test.cc — uint16 / uint32 / uint64 (issue 34) through the
// spec loader and writer, the comparator and the fuzz generator: uint64's
// upper half loads, writes and compares exactly; out-of-range values name
// file, case and field; the generator draws them by each op's documented
// dtype set (reference/SEMANTICS.md C-7).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "fuzz/case_gen.h"
#include "harness/comparator.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {
namespace {

using json = nlohmann::json;

constexpr const char* kFile = "mem.json";

// A valid torch.scatter_ case each test changes in one place.
json scatter_case(const std::string& id) {
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

std::string text_of(const json& case_json) {
  return json{{"format", "scatterproof-spec/1"}, {"cases", {case_json}}}.dump();
}

// Loading `c` fails naming the file, its case, `field`, and saying `words`.
void expect_case_error(const json& c, const std::string& field, const std::string& words) {
  try {
    load_spec_text(text_of(c), kFile);
  } catch (const SpecError& e) {
    EXPECT_EQ(e.file(), kFile) << e.what();
    EXPECT_EQ(e.case_id(), c["id"].get<std::string>()) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(e.message().find(words), std::string::npos) << "message lacks \"" << words << "\": " << e.what();
    return;
  }
  ADD_FAILURE() << "loaded without error: " << c.dump();
}

Tensor from_bits(DType t, const std::vector<uint64_t>& bits) {
  Tensor out = Tensor::zeros(t, {static_cast<int64_t>(bits.size())});
  for (size_t i = 0; i < bits.size(); ++i) store_bits(t, out.element_ptr(static_cast<int64_t>(i)), bits[i]);
  return out;
}

// `t` written by the spec writer (as a gather's input) and loaded back.
Tensor reload(const Tensor& t) {
  Case c;
  c.id = "t/roundtrip";
  c.call.op = "torch.gather";
  c.call.set_arg("dim", Arg::of_int(0));
  c.source.document = "test";
  c.call.tensors["input"] = t;
  c.call.tensors["index"] = Tensor::zeros(DType::Int64, {1});
  c.expect.kind = CaseExpect::Kind::Unspecified;
  return load_spec_text(spec_file_json({c}, "round trip").dump(), kFile).at(0).call.tensors.at("input");
}

// uint16/uint32/uint64 (issue 34): uint64's upper half loads exactly, as a
// JSON number or a decimal string; a value out of a kind's range names the
// file, the case and the element.
TEST(SpecLoaderUnsigned, ValuesLoadExactlyAndOutOfRangeIsRefused) {
  json c = scatter_case("t/uint64-exact");
  c["inputs"]["self"] = {{"dtype", "uint64"}, {"data", json::parse(R"([[18446744073709551615, "18446744073709551614"],
                                                  [9223372036854775808, 0]])")}};
  c["inputs"]["src"] = {{"dtype", "uint64"}, {"data", {{5, 6}}}};
  c["expect"] = {{"output", {{"data", json::parse("[[18446744073709551615, 6], [5, 0]]")}}}};
  const auto cases = load_spec_text(text_of(c), kFile);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].call.tensors.at("self").dtype(), DType::UInt64);
  EXPECT_EQ(cases[0].call.tensors.at("self").to_bits(), (std::vector<uint64_t>{~0ull, ~0ull - 1, 1ull << 63, 0}));
  EXPECT_EQ(cases[0].expect.outputs.at(0).to_bits(), (std::vector<uint64_t>{~0ull, 6, 5, 0}));
  json a = scatter_case("t/uint64-over");
  a["inputs"]["self"] = {{"dtype", "uint64"}, {"data", {"1", "18446744073709551616"}}};
  expect_case_error(a, "cases[0].inputs.self.data[1]", "out of range of uint64");
  json b = scatter_case("t/uint32-over");
  b["inputs"]["self"] = {{"dtype", "uint32"}, {"data", {4294967295ll, 4294967296ll}}};
  expect_case_error(b, "cases[0].inputs.self.data[1]", "out of range of uint32 [0, 4294967295]");
  json d = scatter_case("t/uint16-negative");
  d["inputs"]["self"] = {{"dtype", "uint16"}, {"data", {-1}}};
  expect_case_error(d, "cases[0].inputs.self.data[0]", "out of range of uint16 [0, 65535]");
  json e = scatter_case("t/uint32-above-int64");
  e["inputs"]["self"] = {{"dtype", "uint32"}, {"data", {18446744073709551615ull}}};
  expect_case_error(e, "cases[0].inputs.self.data[0]", "out of range of uint32");
  json f = scatter_case("t/uint64-negative-string");
  f["inputs"]["self"] = {{"dtype", "uint64"}, {"data", {"-1"}}};
  expect_case_error(f, "cases[0].inputs.self.data[0]", "out of range of uint64 [0, 18446744073709551615]");
}

TEST(SpecLoaderUnsigned, WriterRoundTripsTheExtremes) {
  const Tensor u64 = from_bits(DType::UInt64, {~0ull, 1ull << 63, (1ull << 53) + 1, 1ull << 53, 0});
  const json j = tensor_to_json(u64);
  EXPECT_EQ(j["data"][0], "18446744073709551615");  // above 2^53: a decimal string, never a negative number
  EXPECT_EQ(j["data"][1], "9223372036854775808");
  EXPECT_EQ(j["data"][3], 1ull << 53);
  for (const Tensor& t :
       {u64, from_bits(DType::UInt32, {0, 0xffffffff, 1u << 31}), from_bits(DType::UInt16, {0, 0xffff, 0x8000})}) {
    const Tensor back = reload(t);
    EXPECT_EQ(back.dtype(), t.dtype());
    EXPECT_EQ(back.to_bits(), t.to_bits()) << t.describe();
  }
}

// Which operands take uint16/32/64 is each op's documented set (C-7), as
// `scatterproof ops` prints it.
TEST(OpTableUnsigned, DocumentedSetsPerDialect) {
  const auto described = [](const char* op, const char* operand) {
    return op_spec(op).operand(operand)->dtypes.describe();
  };
  EXPECT_EQ(described("torch.gather", "input"), "every dtype but uint16, uint32, uint64");
  EXPECT_EQ(described("paddle.scatter", "updates"), "every dtype but uint16, uint32, uint64");
  EXPECT_EQ(described("mindspore.scatter_", "self"), "every dtype but uint16, uint32, uint64");
  EXPECT_EQ(described("torch.index_reduce_", "self"), "float16, bfloat16, float32, float64");
  EXPECT_EQ(described("onnx.GatherElements", "data"), "every dtype");
  EXPECT_EQ(described("onnx.GatherElements", "indices"), "int32, int64");
  EXPECT_EQ(described("stablehlo.scatter", "updates"), "every dtype");
  EXPECT_EQ(described("stablehlo.gather", "start_indices"), "uint8, int8, int16, int32, int64, uint16, uint32, uint64");
}

// LibTorch 1.13 (the in-process libtorch backend) has no uint16/32/64: a
// call with one is unsupported, saying why, never run on a wrong dtype; the
// reference allows the result or unsupported_dtype (C-7).
TEST(LibTorchUnsigned, UnsupportedWithTheReason) {
  std::string why;
  const std::unique_ptr<Backend> libtorch = make_backend("libtorch", BackendOptions{1, false}, &why);
  ASSERT_TRUE(libtorch) << why;
  for (DType t : {DType::UInt16, DType::UInt32, DType::UInt64}) {
    OpCall call;
    call.op = "torch.gather";
    call.set_arg("dim", Arg::of_int(0));
    call.tensors["input"] = from_bits(t, {1, 2});
    call.tensors["index"] = Tensor::zeros(DType::Int64, {1});
    const Expectation e = evaluate(call);
    EXPECT_TRUE(e.outputs && e.allows_error(ErrorCategory::UnsupportedDtype)) << e.summary();
    OpCall given = call.deep_copy();
    const Outcome out = libtorch->run(given);
    EXPECT_EQ(out.kind, Outcome::Kind::Unsupported) << out.message;
    if (libtorch->version().find("LibTorch 1.") == std::string::npos) continue;  // 2.3+ has the dtype
    EXPECT_NE(out.message.find("has no " + std::string(dtype_name(t)) + " scalar type (operand input"),
              std::string::npos)
        << out.message;
  }
}

// A uint64 torch.scatter_ case whose document prints `printed`.
Case document_case(CaseExpect printed) {
  Case c;
  c.id = "t/doc";
  c.file = "t.json";
  c.call.op = "torch.scatter_";
  c.call.set_arg("dim", Arg::of_int(0));
  c.call.tensors["self"] = Tensor::zeros(DType::UInt64, {2});
  c.call.tensors["index"] = Tensor::zeros(DType::Int64, {1});
  c.call.tensors["src"] = Tensor::zeros(DType::UInt64, {1});
  c.expect = std::move(printed);
  return c;
}

Expectation outputs_expectation(Tensor exact) {
  Expectation e;
  e.outputs = std::vector<ExpectedTensor>{ExpectedTensor{"self", std::move(exact), {}}};
  return e;
}

// Integers compare by exact bits, atol or not: 2^64-1 and 2^64-2 are one
// double (2^64), and so are int64's 2^62+1 and 2^62.
TEST(DocumentCheckUnsigned, AtolNeverLoosensAnIntegralElement) {
  Tensor reference_u64 = Tensor::zeros(DType::UInt64, {2});
  store_bits(DType::UInt64, reference_u64.element_ptr(0), ~0ull);
  Tensor printed_u64 = reference_u64.contiguous();
  store_bits(DType::UInt64, printed_u64.element_ptr(0), ~0ull - 1);
  CaseExpect printed;
  printed.outputs = {printed_u64};
  printed.atol = 0.5;
  const Verdict v = check_reference_against_document(document_case(printed), outputs_expectation(reference_u64));
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("18446744073709551614"), std::string::npos) << v.detail;
  printed.outputs = {reference_u64};
  EXPECT_EQ(check_reference_against_document(document_case(printed), outputs_expectation(reference_u64)).kind,
            Verdict::Kind::Pass);
}

// uint16/uint32/uint64 are drawn by each op's documented dtype set:
// StableHLO's, JAX's (lax and .at[] take every integer type) and ONNX's
// operands (StableHLO's indices too) get them, with
// their edge values; a torch, MindSpore or PaddlePaddle call never has one,
// not even as an on-purpose undocumented dtype or an out= of another dtype
// (their calls stay those drawn before the harness had these dtypes).
TEST(FuzzGenUnsigned, DrawnByEachOpsDocumentedSet) {
  const auto wide = [](DType t) { return t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64; };
  std::map<std::string, int> seen;
  for (const OpSpec& op : op_table()) {
    if (!op.backward_of.empty()) continue;
    const bool documents_them = op.dialect == "stablehlo" || op.dialect == "onnx" || op.dialect == "jax";
    for (uint64_t seed = 0; seed < 300; ++seed) {
      fuzz::Choices c(seed * 7919 + 17);
      const OpCall call = fuzz::generate_call_for(c, op);
      for (const OperandSpec& o : op.operands) {
        const Tensor* t = call.tensor(o.name);
        if (t == nullptr || !wide(t->dtype())) continue;
        if (!documents_them)
          ADD_FAILURE() << op.id << ": undocumented " << dtype_name(t->dtype()) << " drawn for " << o.name;
        ++seen[op.dialect + "/" + (o.role == OperandRole::Index ? "index/" : "data/") +
               std::string(dtype_name(t->dtype()))];
        if (t->dtype() != DType::UInt64 || o.role == OperandRole::Index) continue;
        for (uint64_t b : t->to_bits()) {
          seen["uint64 max"] += b == ~0ull;
          seen["uint64 2^63"] += b == 1ull << 63;
          seen["uint64 2^32"] += b == 1ull << 32;
        }
      }
    }
  }
  for (const char* k : {"stablehlo/data/uint16", "stablehlo/data/uint32", "stablehlo/data/uint64",
                        "stablehlo/index/uint16", "stablehlo/index/uint64", "onnx/data/uint16", "onnx/data/uint32",
                        "onnx/data/uint64", "uint64 max", "uint64 2^63", "uint64 2^32"})
    EXPECT_GT(seen[k], 0) << k;
}

}  // namespace
}  // namespace sp
