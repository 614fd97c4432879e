// op_table_test.cc — the op table is consistent with itself, every reader
// agrees with it, and a backend answers "unsupported" for any op it does
// not declare.
#include "reference/op_table.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "backends/backend.h"
#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

TEST(OpTable, EveryEntryIsConsistent) {
  std::set<std::string> ids;
  std::map<std::string, Arg::Type> arg_types;
  for (const OpSpec& op : op_table()) {
    SCOPED_TRACE(op.id);
    EXPECT_TRUE(ids.insert(op.id).second) << "duplicate op id";
    EXPECT_TRUE(op.id.starts_with(op.dialect + ".")) << "an op id starts with its dialect";
    EXPECT_NE(op.reference, nullptr);
    EXPECT_FALSE(op.summary.empty());
    EXPECT_FALSE(op.source.empty());
    EXPECT_NE(op.operand(op.output_shape_of), nullptr) << "output_shape_of names an operand";
    EXPECT_NE(op.operand(op.output_dtype_of), nullptr) << "output_dtype_of names an operand";
    EXPECT_NE(op.operand(op.data_operand), nullptr) << "data_operand names an operand";
    if (op.backward_of.empty()) {
      // In place: the operand written ("self", paddle's "arr"); else "out".
      if (op.in_place) {
        ASSERT_NE(op.operand(op.output), nullptr) << "an in-place op's output names its operand";
        EXPECT_EQ(op.operand(op.output)->role, OperandRole::InPlace);
      } else {
        EXPECT_EQ(op.output, "out");
      }
    } else {
      // A backward op: derived from a forward op with a backward reference;
      // its output names the first gradient.
      ASSERT_NE(find_op(op.backward_of), nullptr);
      EXPECT_EQ(find_op(op.backward_of)->backward, op.reference);
      EXPECT_EQ(backward_op(*find_op(op.backward_of)), &op);
      EXPECT_EQ(op.output, grad_name(op.output_shape_of));
      EXPECT_TRUE(op.operand(op.output_shape_of)->differentiable);
      EXPECT_NE(op.operand(kGradOutput), nullptr);
    }
    int in_place_operands = 0, index_operands = 0;
    for (const OperandSpec& o : op.operands) {
      in_place_operands += o.role == OperandRole::InPlace;
      index_operands += o.role == OperandRole::Index;
      if (!o.or_arg.empty()) {
        ASSERT_NE(op.arg(o.or_arg), nullptr) << o.name << "'s alternative is an argument";
        EXPECT_EQ(op.arg(o.or_arg)->type, Arg::Type::Scalar);
        EXPECT_FALSE(op.arg(o.or_arg)->required);
      }
      EXPECT_FALSE(o.dtypes.members().empty()) << o.name;
    }
    EXPECT_EQ(in_place_operands, op.in_place ? 1 : 0);
    if (op.in_place) {
      EXPECT_EQ(op.operand(op.output)->role, OperandRole::InPlace);
    }
    EXPECT_EQ(index_operands, 1);
    for (const ArgSpec& a : op.args) {
      EXPECT_FALSE(a.required && a.default_value) << a.name << ": a required argument has no default";
      if (a.default_value) {
        EXPECT_EQ(a.default_value->type, a.type) << a.name;
      }
      EXPECT_TRUE(a.allowed.empty() || a.type == Arg::Type::String) << a.name;
      // One name, one type across the table: the spec schema and the
      // protocol type an argument by its name.
      const auto [it, fresh] = arg_types.emplace(a.name, a.type);
      EXPECT_EQ(it->second, a.type) << "argument " << a.name << " has two types across ops";
    }
  }
}

TEST(OpTable, SignatureCheckNamesTheField) {
  using test::f32;
  using test::i64;
  const OpCall good =
      test::call_of("torch.scatter_add", {{"self", f32({2}, {0, 0})}, {"index", i64({1}, {0})}, {"src", f32({1}, {1})}},
                    {{"dim", Arg::of_int(0)}});
  EXPECT_FALSE(check_signature(good));

  OpCall missing_dim = good;
  missing_dim.args.clear();
  ASSERT_TRUE(check_signature(missing_dim));
  EXPECT_EQ(check_signature(missing_dim)->field, "args.dim");

  OpCall wrong_type = good;
  wrong_type.set_arg("dim", Arg::of_string("0"));
  ASSERT_TRUE(check_signature(wrong_type));
  EXPECT_EQ(check_signature(wrong_type)->field, "args.dim");

  OpCall unknown_arg = good;
  unknown_arg.set_arg("reduce", Arg::of_string("add"));
  ASSERT_TRUE(check_signature(unknown_arg));
  EXPECT_EQ(check_signature(unknown_arg)->field, "args.reduce");

  OpCall missing_src = good;
  missing_src.tensors.erase("src");
  ASSERT_TRUE(check_signature(missing_src));
  EXPECT_EQ(check_signature(missing_src)->field, "inputs.src");

  // scatter_ takes src or value, never both, never neither.
  OpCall both = good;
  both.op = "torch.scatter_";
  both.set_arg("value", Arg::of_scalar(Scalar::of_int(1)));
  ASSERT_TRUE(check_signature(both));
  EXPECT_EQ(check_signature(both)->field, "args.value");
  both.tensors.erase("src");
  EXPECT_FALSE(check_signature(both));

  OpCall unknown_op = good;
  unknown_op.op = "torch.nonexistent";
  ASSERT_TRUE(check_signature(unknown_op));
  EXPECT_EQ(check_signature(unknown_op)->field, "op");
}

TEST(OpTable, DefaultsComeFromTheTable) {
  const OpSpec& paddle = op_spec("paddle.scatter");
  OpCall call;
  call.op = paddle.id;
  ASSERT_TRUE(paddle.arg_or_default(call, "overwrite"));
  EXPECT_TRUE(paddle.arg_or_default(call, "overwrite")->b) << "paddle.scatter's overwrite defaults to True";
  call.set_arg("overwrite", Arg::of_bool(false));
  EXPECT_FALSE(paddle.arg_or_default(call, "overwrite")->b);
  EXPECT_FALSE(op_spec("torch.scatter_").arg_or_default(call, "reduce")) << "scatter_'s reduce has no default";
}

// A backend that implements one op.
class OneOpBackend final : public Backend {
 public:
  std::string name() const override { return "one-op"; }
  std::string description() const override { return "implements torch.gather only"; }
  bool implements(std::string_view op) const override { return op == "torch.gather"; }
  Outcome run(const OpCall&) override {
    ++runs;
    return Outcome::unsupported("ran");
  }
  int runs = 0;
};

TEST(RunBackend, AnOpTheBackendDoesNotDeclareIsUnsupportedWithoutRunningIt) {
  OneOpBackend backend;
  const OpCall scatter =
      test::call_of("torch.scatter_add",
                    {{"self", test::f32({2}, {0, 0})}, {"index", test::i64({1}, {0})}, {"src", test::f32({1}, {1})}},
                    {{"dim", Arg::of_int(0)}});
  const Outcome out = run_backend(backend, scatter);
  EXPECT_EQ(out.kind, Outcome::Kind::Unsupported);
  EXPECT_NE(out.message.find("does not implement op torch.scatter_add"), std::string::npos) << out.message;
  EXPECT_EQ(backend.runs, 0);

  const OpCall gather = test::call_of(
      "torch.gather", {{"input", test::f32({2}, {0, 0})}, {"index", test::i64({1}, {0})}}, {{"dim", Arg::of_int(0)}});
  EXPECT_EQ(run_backend(backend, gather).message, "ran");
  EXPECT_EQ(backend.runs, 1);
}

TEST(RunBackend, AMalformedCallIsAHarnessErrorNamingTheField) {
  OneOpBackend backend;
  const OpCall gather = test::call_of("torch.gather", {{"input", test::f32({2}, {0, 0})}});
  const Outcome out = run_backend(backend, gather);
  EXPECT_EQ(out.kind, Outcome::Kind::HarnessError);
  EXPECT_NE(out.message.find("inputs.index"), std::string::npos) << out.message;
  EXPECT_EQ(backend.runs, 0);
}

// Every in-process backend of this build that can run here declares ops
// only from the table, and the reference implements all of them. (A backend
// that is unavailable here, cuda without a GPU, has nothing to declare.)
TEST(RunBackend, BuiltInBackendsDeclareOnlyTableOps) {
  int checked = 0;
  for (const BackendInfo& info : registered_backends()) {
    if (!info.in_process || info.name.ends_with(":")) continue;
    std::string why;
    const std::unique_ptr<Backend> backend = make_backend(info.name, BackendOptions{1, false}, &why);
    if (!backend) continue;
    ++checked;
    EXPECT_FALSE(backend->implements("torch.nonexistent")) << info.name;
    size_t declared = 0;
    for (const OpSpec& op : op_table()) declared += backend->implements(op.id);
    EXPECT_GT(declared, 0u) << info.name << " declares no op of the table";
    if (info.name == "reference") {
      EXPECT_EQ(declared, op_table().size());
    }
  }
  EXPECT_GE(checked, 2) << "the reference and cpu backends are always built";
}

}  // namespace
}  // namespace sp
