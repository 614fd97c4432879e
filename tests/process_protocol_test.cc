// The line-protocol codec: base64, tensors with layouts, requests (every
// op-table argument as its JSON type) and responses, and its refusal of
// hostile input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/process/protocol.h"
#include "reference/op_table.h"

namespace sp {
namespace {

using nlohmann::json;
using protocol::ProtocolError;

std::string decode_to_string(const std::string& b64) {
  const std::vector<std::byte> bytes = protocol::base64_decode(b64);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

TEST(ProcessProtocol, Base64MatchesRfc4648Vectors) {
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(protocol::base64_encode(plain.data(), plain.size()), encoded);
    EXPECT_EQ(decode_to_string(encoded), plain);
  }
}

TEST(ProcessProtocol, Base64RejectsMalformedText) {
  EXPECT_THROW(protocol::base64_decode("Zm9"), ProtocolError);       // length not a multiple of 4
  EXPECT_THROW(protocol::base64_decode("Zm9v!A=="), ProtocolError);  // character outside the alphabet
  EXPECT_THROW(protocol::base64_decode("Z=9v"), ProtocolError);      // padding inside the text
  EXPECT_THROW(protocol::base64_decode("Zg==Zg=="), ProtocolError);  // padding before the last group
}

TEST(ProcessProtocol, StridedTensorRoundTripsWithItsWholeStorage) {
  auto storage = std::make_shared<std::vector<std::byte>>(12 * sizeof(float));
  for (size_t i = 0; i < 12; ++i) {
    const float v = static_cast<float>(i) - 0.5f;
    std::memcpy(storage->data() + i * sizeof(float), &v, sizeof v);
  }
  // A transposed 3x2 view starting at element 1, with a gap in storage.
  const Tensor t = Tensor::view(DType::Float32, {3, 2}, {1, 4}, 1, storage);
  const Tensor back = protocol::decode_tensor(json::parse(protocol::encode_tensor(t).dump()));
  EXPECT_EQ(back.dtype(), DType::Float32);
  EXPECT_EQ(back.shape(), t.shape());
  EXPECT_EQ(back.strides(), t.strides());
  EXPECT_EQ(back.offset(), 1);
  EXPECT_EQ(*back.storage(), *storage);
  EXPECT_EQ(back.to_bits(), t.to_bits());
}

TEST(ProcessProtocol, HostileTensorsAreRefused) {
  const json good = protocol::encode_tensor(Tensor::zeros(DType::Int64, {2, 3}));
  auto with = [&](const char* field, json value) {
    json j = good;
    j[field] = std::move(value);
    return j;
  };
  EXPECT_NO_THROW(protocol::decode_tensor(good));
  EXPECT_THROW(protocol::decode_tensor(with("strides", {3, 2})), ProtocolError);   // reaches past storage
  EXPECT_THROW(protocol::decode_tensor(with("offset", 1)), ProtocolError);         // last element past storage
  EXPECT_THROW(protocol::decode_tensor(with("strides", {-3, 1})), ProtocolError);  // negative stride
  EXPECT_THROW(protocol::decode_tensor(with("shape", {2})), ProtocolError);        // strides/shape ranks differ
  EXPECT_THROW(protocol::decode_tensor(with("shape", {int64_t{1} << 62, 4})), ProtocolError);  // numel overflows
  EXPECT_THROW(protocol::decode_tensor(with("dtype", "complex64")), ProtocolError);
  EXPECT_THROW(protocol::decode_tensor(with("storage", "AAAA")), ProtocolError);  // 3 bytes: not whole int64s
  EXPECT_THROW(protocol::decode_tensor(with("shape", json::array({1.5, 2}))), ProtocolError);
  EXPECT_THROW(protocol::decode_tensor(with("shape", std::vector<int>(kMaxRank + 1, 1))), ProtocolError);
  EXPECT_THROW(protocol::decode_tensor(json::array()), ProtocolError);
}

TEST(ProcessProtocol, SharedStoragesTravelOnceAndComeBackShared) {
  OpCall call;
  call.op = "torch.gather";
  call.set_arg("dim", Arg::of_int(0));
  const Tensor input = Tensor::zeros(DType::Float32, {3, 2});
  call.tensors.emplace("input", input);
  call.tensors.emplace("index", Tensor::zeros(DType::Int64, {2, 2}));
  call.tensors.emplace("out", Tensor::view(DType::Float32, {2, 2}, {1, 2}, 1, input.storage()));
  EXPECT_TRUE(protocol::shares_storage(call));
  const json wire = protocol::encode_request(5, call);
  EXPECT_EQ(wire["tensors"]["out"]["storage_of"], "input");
  EXPECT_FALSE(wire["tensors"]["out"].contains("storage"));
  uint64_t id = 0;
  const OpCall back = protocol::decode_request(json::parse(wire.dump()), &id);
  const Tensor& out = back.tensors.at("out");
  EXPECT_EQ(out.storage(), back.tensors.at("input").storage());
  EXPECT_EQ(out.offset(), 1);
  EXPECT_EQ(out.strides(), (Shape{1, 2}));
  EXPECT_NE(back.tensors.at("index").storage(), out.storage());
  // Hostile: a view of a missing operand, of another dtype, or outside the storage.
  json bad = wire;
  bad["tensors"]["out"]["storage_of"] = "nope";
  EXPECT_THROW(protocol::decode_request(bad, &id), ProtocolError);
  bad = wire;
  bad["tensors"]["out"]["dtype"] = "float64";
  EXPECT_THROW(protocol::decode_request(bad, &id), ProtocolError);
  bad = wire;
  bad["tensors"]["out"]["offset"] = 100;
  EXPECT_THROW(protocol::decode_request(bad, &id), ProtocolError);
  call.tensors.erase("out");
  EXPECT_FALSE(protocol::shares_storage(call));
}

TEST(ProcessProtocol, RequestRoundTripsArgsAndScalarKinds) {
  OpCall call;
  call.op = "mindspore.scatter_";
  call.set_arg("dim", Arg::of_int(-1));
  call.set_arg("reduce", Arg::of_string("multiply"));
  call.framework_version = "2.3";
  call.tensors.emplace("self", Tensor::zeros(DType::Float16, {2, 2}));
  call.tensors.emplace("index", Tensor::zeros(DType::Int32, {1, 2}));
  for (const Scalar& value : {Scalar::of_bool(true), Scalar::of_int(-7), Scalar::of_float(0.1),
                              Scalar::of_float(-INFINITY), Scalar::of_float(NAN)}) {
    call.set_arg("value", Arg::of_scalar(value));
    uint64_t id = 0;
    const OpCall back = protocol::decode_request(json::parse(protocol::encode_request(42, call).dump()), &id);
    EXPECT_EQ(id, 42u);
    EXPECT_EQ(back.op, call.op);
    EXPECT_EQ(back.int_arg("dim"), call.int_arg("dim"));
    EXPECT_EQ(back.string_arg("reduce"), call.string_arg("reduce"));
    EXPECT_EQ(back.framework_version, call.framework_version);
    ASSERT_TRUE(back.scalar_arg("value").has_value());
    EXPECT_EQ(back.scalar_arg("value")->to_string(), value.to_string());
    EXPECT_EQ(back.scalar_arg("value")->kind, value.kind);
    EXPECT_EQ(back.args.size(), call.args.size());
    EXPECT_EQ(back.tensors.at("index").dtype(), DType::Int32);
  }
}

TEST(ProcessProtocol, EveryArgOfEveryOpTravelsAsItsJsonType) {
  // One value per declared argument of every op in the table, so an op or
  // argument added to the table is covered without touching this test.
  for (const OpSpec& op : op_table()) {
    OpCall call;
    call.op = op.id;
    for (const ArgSpec& a : op.args) {
      switch (a.type) {
        case Arg::Type::Int:
          call.set_arg(a.name, Arg::of_int(-3));
          break;
        case Arg::Type::Bool:
          call.set_arg(a.name, Arg::of_bool(false));
          break;
        case Arg::Type::String:
          call.set_arg(a.name, Arg::of_string("not-a-mode"));
          break;
        case Arg::Type::Scalar:
          call.set_arg(a.name, Arg::of_scalar(Scalar::of_int(5)));
          break;
        case Arg::Type::IntList:
          call.set_arg(a.name, Arg::of_ints({2, -1, 0}));
          break;
      }
    }
    const json wire = protocol::encode_request(1, call);
    for (const ArgSpec& a : op.args) {
      const json& v = wire.at("args").at(a.name);
      switch (a.type) {
        case Arg::Type::Int:
          EXPECT_TRUE(v.is_number_integer()) << op.id << " " << a.name;
          break;
        case Arg::Type::Bool:
          EXPECT_TRUE(v.is_boolean()) << op.id << " " << a.name;
          break;
        case Arg::Type::String:
          EXPECT_TRUE(v.is_string()) << op.id << " " << a.name;
          break;
        case Arg::Type::Scalar:
          EXPECT_EQ(v, (json{{"kind", "int"}, {"value", 5}})) << op.id << " " << a.name;
          break;
        case Arg::Type::IntList:
          EXPECT_EQ(v, (json{2, -1, 0})) << op.id << " " << a.name;
          break;
      }
    }
    EXPECT_FALSE(wire.contains("doc_version"));
    uint64_t id = 0;
    const OpCall back = protocol::decode_request(json::parse(wire.dump()), &id);
    ASSERT_EQ(back.args.size(), call.args.size()) << op.id;
    for (const auto& [name, arg] : call.args) {
      ASSERT_TRUE(back.arg(name)) << op.id << " " << name;
      EXPECT_EQ(back.arg(name)->type, arg.type) << op.id << " " << name;
      EXPECT_EQ(back.arg(name)->to_string(), arg.to_string()) << op.id << " " << name;
    }
  }
}

TEST(ProcessProtocol, UndeclaredOrMistypedArgsAreRefusedByName) {
  OpCall call;
  call.op = "paddle.scatter";
  call.set_arg("overwrite", Arg::of_bool(true));
  const json good = protocol::encode_request(3, call);
  uint64_t id = 0;
  EXPECT_NO_THROW(protocol::decode_request(good, &id));
  auto refusal = [&](const json& request) -> std::string {
    try {
      protocol::decode_request(request, &id);
    } catch (const ProtocolError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  json undeclared = good;
  undeclared["args"]["include_self"] = true;
  EXPECT_NE(refusal(undeclared)
                .find("'include_self': paddle.scatter takes no argument include_self (its arguments: overwrite)"),
            std::string::npos)
      << refusal(undeclared);
  json bool_as_int = good;
  bool_as_int["args"]["overwrite"] = 1;
  EXPECT_NE(refusal(bool_as_int).find("'overwrite' of paddle.scatter must be a JSON bool, not 1"), std::string::npos)
      << refusal(bool_as_int);
  json gather = protocol::encode_request(3, OpCall{"torch.gather", {}, {{"dim", Arg::of_int(0)}}, ""});
  gather["args"]["dim"] = "0";
  EXPECT_NE(refusal(gather).find("'dim' of torch.gather must be a JSON int"), std::string::npos) << refusal(gather);
  gather["args"]["dim"] = true;
  EXPECT_NE(refusal(gather).find("'dim' of torch.gather"), std::string::npos) << refusal(gather);
  json scatter = protocol::encode_request(3, OpCall{"torch.scatter_", {}, {{"dim", Arg::of_int(0)}}, ""});
  scatter["args"]["value"] = 1.5;  // a scalar keeps its Python kind: a bare number is not one
  EXPECT_NE(refusal(scatter).find("'value' of torch.scatter_ must be a {\"kind\",\"value\"} scalar"), std::string::npos)
      << refusal(scatter);
  scatter["args"]["value"] = json{{"kind", "int"}, {"value", 1.5}};
  EXPECT_NE(refusal(scatter).find("'value' of torch.scatter_: scalar value of kind 'int'"), std::string::npos)
      << refusal(scatter);
  json unknown_op = good;
  unknown_op["op"] = "torch.frobnicate";
  EXPECT_NE(refusal(unknown_op).find("op 'torch.frobnicate', which is not in the op table"), std::string::npos)
      << refusal(unknown_op);
}

TEST(ProcessProtocol, ResponsesDecodeAndWrongIdsAreRefused) {
  const Tensor out = Tensor::zeros(DType::Float32, {2});
  const Outcome result = protocol::decode_response(protocol::encode_outcome(5, Outcome::of_outputs({out})), 5);
  ASSERT_EQ(result.kind, Outcome::Kind::Outputs);
  EXPECT_EQ(result.outputs.at(0).shape(), out.shape());

  const Outcome error = protocol::decode_response(
      protocol::encode_outcome(6, Outcome::of_error(ErrorCategory::IndexOutOfBounds, "index 9 is out of bounds")), 6);
  EXPECT_EQ(error.kind, Outcome::Kind::Error);
  EXPECT_EQ(error.error, ErrorCategory::IndexOutOfBounds);
  EXPECT_EQ(error.message, "index 9 is out of bounds");

  const Outcome unclassified =
      protocol::decode_response(json{{"type", "error"}, {"id", 7}, {"category", nullptr}, {"message", "boom"}}, 7);
  EXPECT_EQ(unclassified.kind, Outcome::Kind::Error);
  EXPECT_FALSE(unclassified.error.has_value());

  const Outcome unsupported =
      protocol::decode_response(protocol::encode_outcome(8, Outcome::unsupported("no CPU kernel")), 8);
  EXPECT_EQ(unsupported.kind, Outcome::Kind::Unsupported);
  EXPECT_EQ(unsupported.message, "no CPU kernel");

  EXPECT_THROW(protocol::decode_response(protocol::encode_outcome(5, Outcome::unsupported("x")), 6), ProtocolError);
  EXPECT_THROW(protocol::decode_response(json{{"type", "error"}, {"id", 1}, {"category", "bogus"}, {"message", ""}}, 1),
               ProtocolError);
  EXPECT_THROW(protocol::decode_response(json{{"type", "banana"}, {"id", 1}}, 1), ProtocolError);
  EXPECT_THROW(protocol::decode_response(json{{"type", "result"}, {"id", -1}, {"outputs", json::array()}}, 1),
               ProtocolError);
  EXPECT_THROW(protocol::decode_response(json("result"), 1), ProtocolError);
  EXPECT_THROW(protocol::encode_outcome(1, Outcome::harness_error("not a wire message")), ProtocolError);
}

TEST(ProcessProtocol, HelloRoundTripsItsOptionalFramework) {
  protocol::Hello hello;
  hello.name = "LibTorch";
  hello.version = "2.15.0";
  hello.ops = {"torch.gather", "torch.scatter_"};
  hello.shared_storage = true;
  hello.framework = FrameworkVersion{"torch", "2.15.0"};
  const json wire = json::parse(protocol::encode_hello(hello).dump());
  EXPECT_EQ(wire["type"], "hello");
  EXPECT_EQ(wire["protocol"], protocol::kVersion);
  EXPECT_EQ(wire["framework"], (json{{"name", "torch"}, {"version", "2.15.0"}}));
  const protocol::Hello back = protocol::decode_hello(wire);
  EXPECT_EQ(back.name, "LibTorch");
  EXPECT_EQ(back.version, "2.15.0");
  EXPECT_EQ(back.ops, hello.ops);
  EXPECT_TRUE(back.shared_storage);
  ASSERT_TRUE(back.framework.has_value());
  EXPECT_EQ(back.framework->name, "torch");
  EXPECT_EQ(back.framework->version, "2.15.0");

  // Optional: a hello without it (an implementation of the documents, a
  // vendor plugin, an adapter of before) has none, and sends none.
  hello.framework.reset();
  const json plain = protocol::encode_hello(hello);
  EXPECT_FALSE(plain.contains("framework"));
  EXPECT_FALSE(protocol::decode_hello(plain).framework.has_value());

  // Present but malformed: refused, naming the field.
  for (const json& bad : {json("torch"), json{{"name", "torch"}}, json{{"name", "torch"}, {"version", 2}}}) {
    json j = plain;
    j["framework"] = bad;
    try {
      protocol::decode_hello(j);
      ADD_FAILURE() << "accepted framework " << bad.dump();
    } catch (const ProtocolError& e) {
      EXPECT_NE(std::string(e.what()).find("framework"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace sp
