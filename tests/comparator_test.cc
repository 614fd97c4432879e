// Comparator verdicts for every Outcome kind and every Expectation kind.
#include "harness/comparator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "reference/reference.h"
#include "tests/test_support.h"

namespace sp {
namespace {

using test::f32;
using test::i64;

uint64_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// torch.scatter_(self=[0,0,0], dim=0, index=[0,2], src=[10,20]) -> [10, 0, 20]
OpCall scatter_call() {
  OpCall c;
  c.op = "torch.scatter_";
  c.set_arg("dim", Arg::of_int(0));
  c.tensors["self"] = f32({3}, {0, 0, 0});
  c.tensors["index"] = i64({2}, {0, 2});
  c.tensors["src"] = f32({2}, {10, 20});
  return c;
}

Expectation outputs_expectation(Tensor exact, std::map<int64_t, ElementAllowed> loose = {}) {
  Expectation e;
  e.outputs = std::vector<ExpectedTensor>{ExpectedTensor{"self", std::move(exact), std::move(loose)}};
  return e;
}

Expectation error_expectation(std::vector<ErrorCategory> errors) {
  Expectation e;
  e.errors = std::move(errors);
  e.error_message = "bad";
  return e;
}

// Runs judge as for an in-place backend: `after` is a deep copy (which a
// test may disturb first) whose self receives the returned output's values.
struct Judged {
  OpCall before = scatter_call();
  OpCall after = before.deep_copy();
  Verdict operator()(const Expectation& e, const Outcome& o) {
    const Tensor& self = after.tensors["self"];
    if (o.outputs.size() == 1 && o.outputs[0].shape() == self.shape() && o.outputs[0].dtype() == self.dtype()) {
      Shape idx(self.shape().size(), 0);
      do self.set_bits_at(idx, o.outputs[0].bits_at(idx));
      while (next_index(idx, self.shape()));
    }
    return judge(before, e, o, after);
  }
};

TEST(Comparator, AnErrorWithNoCategoryIsUnclassifiedWhateverTheReferenceAllows) {
  // The backend's classifier could not place the error: never a pass (not
  // even for an unspecified call), never confused with "raised nothing".
  const Outcome unplaced{Outcome::Kind::Error, {}, std::nullopt, "RuntimeError: something new"};
  Expectation unspecified;
  unspecified.unspecified = true;
  for (const Expectation& e : {error_expectation({ErrorCategory::IndexOutOfBounds}), unspecified}) {
    Judged j;
    const Verdict v = j(e, unplaced);
    EXPECT_EQ(v.kind, Verdict::Kind::Unclassified) << v.detail;
    EXPECT_NE(v.detail.find("something new"), std::string::npos) << v.detail;
  }
  EXPECT_TRUE(verdict_is_unexpected(Verdict::Kind::Unclassified));
  EXPECT_EQ(verdict_from_name("unclassified"), Verdict::Kind::Unclassified);
  // Raising nothing where an error is expected is a fail, not this.
  Judged j;
  EXPECT_EQ(
      j(error_expectation({ErrorCategory::IndexOutOfBounds}), Outcome::of_outputs({j.before.tensors.at("self")})).kind,
      Verdict::Kind::Fail);
}

TEST(Comparator, ExactOutputPasses) {
  Judged j;
  EXPECT_EQ(j(outputs_expectation(f32({3}, {10, 0, 20})), Outcome::of_outputs({f32({3}, {10, 0, 20})})).kind,
            Verdict::Kind::Pass);
}

TEST(Comparator, OneBitDifferenceFailsWithPositionValueBitsAndWriters) {
  Judged j;
  Tensor actual = f32({3}, {10, 0, 20});
  store_bits(DType::Float32, actual.element_ptr(2), f32_bits(20) | 1);
  const Verdict v = j(outputs_expectation(f32({3}, {10, 0, 20})), Outcome::of_outputs({actual}));
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("self[2]"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find(format_bits(DType::Float32, f32_bits(20) | 1)), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("index[1]=2"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("src[1]"), std::string::npos) << v.detail;
}

TEST(Comparator, InPlaceOpMustUpdateSelf) {
  const OpCall before = scatter_call();
  const Verdict v = judge(before, outputs_expectation(f32({3}, {10, 0, 20})),
                          Outcome::of_outputs({f32({3}, {10, 0, 20})}), before.deep_copy());
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("in-place op did not update self: output self[0]"), std::string::npos) << v.detail;
}

TEST(Comparator, UntouchedElementNamesNoWriter) {
  Judged j;
  const Verdict v = j(outputs_expectation(f32({3}, {10, 0, 20})), Outcome::of_outputs({f32({3}, {10, -0.0f, 20})}));
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("self[1]"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("no writer"), std::string::npos) << v.detail;
}

TEST(Comparator, StridedOutputIsComparedInLogicalOrder) {
  OpCall before;
  before.op = "torch.scatter";
  before.set_arg("dim", Arg::of_int(0));
  before.tensors["self"] = f32({2, 2}, {0, 0, 0, 0});
  before.tensors["index"] = i64({1, 2}, {1, 0});
  before.tensors["src"] = f32({1, 2}, {5, 6});
  // Storage [1, 3, 2, 4] viewed transposed reads [[1, 2], [3, 4]].
  const Tensor storage = f32({4}, {1, 3, 2, 4});
  const Tensor transposed = Tensor::view(DType::Float32, {2, 2}, {1, 2}, 0, storage.storage());
  Expectation e = outputs_expectation(f32({2, 2}, {1, 2, 3, 4}));
  e.outputs->front().name = "out";
  EXPECT_EQ(judge(before, e, Outcome::of_outputs({transposed}), before.deep_copy()).kind, Verdict::Kind::Pass);
  const Verdict v = judge(before, e, Outcome::of_outputs({storage}), before.deep_copy());
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);  // shape [4] vs [2, 2]
}

TEST(Comparator, SetMembership) {
  Judged j;
  ElementAllowed either;
  either.bits = {f32_bits(20), f32_bits(30)};
  const Expectation e = outputs_expectation(f32({3}, {10, 0, 20}), {{2, either}});
  EXPECT_EQ(j(e, Outcome::of_outputs({f32({3}, {10, 0, 30})})).kind, Verdict::Kind::Pass);
  EXPECT_EQ(j(e, Outcome::of_outputs({f32({3}, {10, 0, 20})})).kind, Verdict::Kind::Pass);
  const Verdict v = j(e, Outcome::of_outputs({f32({3}, {10, 0, 25})}));
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("one of {20"), std::string::npos) << v.detail;
}

TEST(Comparator, IntervalEdgesAreInclusive) {
  Judged j;
  ElementAllowed range;
  range.has_interval = true;
  range.lo = 1.0;
  range.hi = 2.0;
  const Expectation e = outputs_expectation(f32({3}, {10, 0, 1.5f}), {{2, range}});
  auto verdict_for = [&](float x) { return j(e, Outcome::of_outputs({f32({3}, {10, 0, x})})).kind; };
  EXPECT_EQ(verdict_for(1.0f), Verdict::Kind::Pass);
  EXPECT_EQ(verdict_for(2.0f), Verdict::Kind::Pass);
  EXPECT_EQ(verdict_for(std::nextafter(2.0f, 3.0f)), Verdict::Kind::Fail);
  EXPECT_EQ(verdict_for(std::nextafter(1.0f, 0.0f)), Verdict::Kind::Fail);
  EXPECT_EQ(verdict_for(NAN), Verdict::Kind::Fail);
}

TEST(Comparator, NanPayloadIsExactUnlessAnyNanAllowed) {
  Judged j;
  Tensor expected = f32({3}, {10, 0, 0});
  store_bits(DType::Float32, expected.element_ptr(2), 0x7fc00000);
  Tensor other_payload = f32({3}, {10, 0, 0});
  store_bits(DType::Float32, other_payload.element_ptr(2), 0x7fc00001);
  EXPECT_EQ(j(outputs_expectation(expected), Outcome::of_outputs({expected.contiguous()})).kind, Verdict::Kind::Pass);
  EXPECT_EQ(j(outputs_expectation(expected), Outcome::of_outputs({other_payload})).kind, Verdict::Kind::Fail);
  ElementAllowed any_nan;
  any_nan.any_nan = true;
  EXPECT_EQ(j(outputs_expectation(expected, {{2, any_nan}}), Outcome::of_outputs({other_payload})).kind,
            Verdict::Kind::Pass);
}

TEST(Comparator, UnspecifiedAllowsOutputsAndErrorsButNotCrashes) {
  Judged j;
  Expectation e;
  e.unspecified = true;
  e.unspecified_reason = "duplicate indices on Ascend";
  EXPECT_EQ(j(e, Outcome::of_outputs({f32({1}, {42})})).kind, Verdict::Kind::Pass);
  EXPECT_EQ(j(e, Outcome::of_error(ErrorCategory::IndexOutOfBounds, "x")).kind, Verdict::Kind::Pass);
  EXPECT_EQ(j(e, Outcome{Outcome::Kind::Crash, {}, std::nullopt, "SIGSEGV"}).kind, Verdict::Kind::Crash);
}

TEST(Comparator, WrongCountDtypeOrShapeFails) {
  Judged j;
  const Expectation e = outputs_expectation(f32({3}, {10, 0, 20}));
  const Verdict count = j(e, Outcome::of_outputs({}));
  EXPECT_EQ(count.kind, Verdict::Kind::Fail);
  EXPECT_NE(count.detail.find("output(s)"), std::string::npos) << count.detail;
  const Verdict dtype = j(e, Outcome::of_outputs({i64({3}, {10, 0, 20})}));
  EXPECT_EQ(dtype.kind, Verdict::Kind::Fail);
  EXPECT_NE(dtype.detail.find("dtype int64"), std::string::npos) << dtype.detail;
  const Verdict shape = j(e, Outcome::of_outputs({f32({1, 3}, {10, 0, 20})}));
  EXPECT_EQ(shape.kind, Verdict::Kind::Fail);
  EXPECT_NE(shape.detail.find("shape [1, 3]"), std::string::npos) << shape.detail;
}

TEST(Comparator, ErrorOutcomes) {
  Judged j;
  const Expectation two = error_expectation({ErrorCategory::IndexOutOfBounds, ErrorCategory::ShapeMismatch});
  EXPECT_EQ(j(two, Outcome::of_error(ErrorCategory::ShapeMismatch, "size")).kind, Verdict::Kind::Pass);
  const Verdict wrong = j(two, Outcome::of_error(ErrorCategory::DtypeMismatch, "dtype"));
  EXPECT_EQ(wrong.kind, Verdict::Kind::Fail);
  EXPECT_NE(wrong.detail.find("expected error index_out_of_bounds or shape_mismatch, got dtype_mismatch"),
            std::string::npos)
      << wrong.detail;
  const Verdict outputs_instead = j(two, Outcome::of_outputs({f32({3}, {10, 0, 20})}));
  EXPECT_EQ(outputs_instead.kind, Verdict::Kind::Fail);
  EXPECT_NE(outputs_instead.detail.find("got outputs"), std::string::npos);
  const Verdict error_instead =
      j(outputs_expectation(f32({3}, {10, 0, 20})), Outcome::of_error(ErrorCategory::IndexOutOfBounds, "oob"));
  EXPECT_EQ(error_instead.kind, Verdict::Kind::Fail);
  EXPECT_NE(error_instead.detail.find("expected outputs, got error index_out_of_bounds: oob"), std::string::npos);
}

TEST(Comparator, NonOutputOutcomesMapToTheirVerdicts) {
  Judged j;
  const Expectation e = outputs_expectation(f32({3}, {10, 0, 20}));
  const Verdict unsupported = j(e, Outcome::unsupported("no float16"));
  EXPECT_EQ(unsupported.kind, Verdict::Kind::Unsupported);
  EXPECT_EQ(unsupported.detail, "no float16");
  EXPECT_EQ(j(e, Outcome{Outcome::Kind::Timeout, {}, std::nullopt, "10 s"}).kind, Verdict::Kind::Timeout);
  EXPECT_EQ(j(e, Outcome::harness_error("pipe closed")).kind, Verdict::Kind::Error);
}

TEST(Comparator, WriteIntoSelfGapFails) {
  // self is every second element of a 6-element storage; the gaps must stay.
  OpCall before = scatter_call();
  const Tensor storage = f32({6}, {0, 7, 0, 7, 0, 7});
  before.tensors["self"] = Tensor::view(DType::Float32, {3}, {2}, 0, storage.storage());
  OpCall after = before.deep_copy();
  const Tensor& self = after.tensors["self"];
  self.set_bits_at({0}, f32_bits(10));
  self.set_bits_at({2}, f32_bits(20));
  const Expectation e = outputs_expectation(f32({3}, {10, 0, 20}));
  EXPECT_EQ(judge(before, e, Outcome::of_outputs({self}), after).kind, Verdict::Kind::Pass);
  store_bits(DType::Float32, self.element_ptr(3), f32_bits(1));  // the gap after self[1]
  const Verdict v = judge(before, e, Outcome::of_outputs({self}), after);
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("outside its view"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("element offset 3"), std::string::npos) << v.detail;
}

TEST(Comparator, ModifiedInputFailsNamingTheOperand) {
  Judged j;
  j.after.tensors["src"].set_bits_at({1}, f32_bits(21));
  const Verdict v = j(outputs_expectation(f32({3}, {10, 0, 20})), Outcome::of_outputs({f32({3}, {10, 0, 20})}));
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("operand src was modified: element [1]"), std::string::npos) << v.detail;
  // Even a correct error must leave the inputs alone.
  const Verdict on_error =
      j(error_expectation({ErrorCategory::IndexOutOfBounds}), Outcome::of_error(ErrorCategory::IndexOutOfBounds, ""));
  EXPECT_EQ(on_error.kind, Verdict::Kind::Fail);
}

TEST(Comparator, OutOfPlaceOpMustNotWriteSelf) {
  OpCall before = scatter_call();
  before.op = "torch.scatter";
  OpCall after = before.deep_copy();
  after.tensors["self"].set_bits_at({0}, f32_bits(10));
  Expectation e = outputs_expectation(f32({3}, {10, 0, 20}));
  e.outputs->front().name = "out";
  const Verdict v = judge(before, e, Outcome::of_outputs({f32({3}, {10, 0, 20})}), after);
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("operand self was modified"), std::string::npos) << v.detail;
}

Case document_case(CaseExpect expect) {
  Case c;
  c.id = "t/doc";
  c.file = "t.json";
  c.call = scatter_call();
  c.expect = std::move(expect);
  return c;
}

TEST(DocumentCheck, OutputWithAtolOneOfErrorAndUnspecified) {
  const Expectation reference = outputs_expectation(f32({3}, {10, 0, 20.0001f}));
  CaseExpect printed;
  printed.outputs = {f32({3}, {10, 0, 20})};
  EXPECT_EQ(check_reference_against_document(document_case(printed), reference).kind, Verdict::Kind::Fail);
  printed.atol = 0.001;
  EXPECT_EQ(check_reference_against_document(document_case(printed), reference).kind, Verdict::Kind::Pass);

  CaseExpect one_of;
  one_of.kind = CaseExpect::Kind::OneOf;
  one_of.outputs = {f32({3}, {10, 0, 20.0001f}), f32({3}, {10, 1, 20.0001f})};
  const Verdict v = check_reference_against_document(document_case(one_of), reference);
  EXPECT_EQ(v.kind, Verdict::Kind::Fail);
  EXPECT_NE(v.detail.find("one_of[1]"), std::string::npos) << v.detail;

  CaseExpect error;
  error.kind = CaseExpect::Kind::Error;
  error.error = ErrorCategory::ShapeMismatch;
  EXPECT_EQ(check_reference_against_document(
                document_case(error), error_expectation({ErrorCategory::RankMismatch, ErrorCategory::ShapeMismatch}))
                .kind,
            Verdict::Kind::Pass);
  EXPECT_EQ(
      check_reference_against_document(document_case(error), error_expectation({ErrorCategory::RankMismatch})).kind,
      Verdict::Kind::Fail);
  EXPECT_EQ(check_reference_against_document(document_case(error), reference).kind, Verdict::Kind::Fail);

  CaseExpect unspecified;
  unspecified.kind = CaseExpect::Kind::Unspecified;
  EXPECT_EQ(check_reference_against_document(document_case(unspecified), reference).kind, Verdict::Kind::Fail);
  Expectation undefined;
  undefined.unspecified = true;
  EXPECT_EQ(check_reference_against_document(document_case(unspecified), undefined).kind, Verdict::Kind::Pass);
}

TEST(DocumentCheck, ErratumMustDisagreeWithTheReference) {
  const Expectation reference = outputs_expectation(f32({3}, {10, 0, 20}));
  CaseExpect official;
  official.outputs = {f32({3}, {10, 0, 20})};
  Case c = document_case(official);
  c.erratum = Erratum{"001.txt", "row 1 is overwritten", f32({3}, {10, 5, 20})};
  EXPECT_EQ(check_reference_against_document(c, reference).kind, Verdict::Kind::Pass);
  c.erratum->claimed_output = f32({3}, {10, 0, 20});
  const Verdict v = check_reference_against_document(c, reference);
  EXPECT_EQ(v.kind, Verdict::Kind::Error);
  EXPECT_NE(v.detail.find("erratum is not an erratum"), std::string::npos) << v.detail;
}

TEST(Comparator, PassesTheReferenceBackendOnTheRealReference) {
  const OpCall call = scatter_call();
  const Expectation e = evaluate(call);
  ASSERT_TRUE(e.outputs.has_value()) << e.summary();
  std::string why;
  std::unique_ptr<Backend> reference = make_backend("reference", BackendOptions{}, &why);
  ASSERT_TRUE(reference) << why;
  const OpCall given = call.deep_copy();
  const Verdict v = judge(call, e, reference->run(given), given);
  EXPECT_EQ(v.kind, Verdict::Kind::Pass) << v.detail;
}

TEST(RenderTensorValues, NestedAndElided) {
  EXPECT_EQ(render_tensor_values(i64({2, 2}, {1, 2, 3, 4})), "[[1, 2], [3, 4]]");
  EXPECT_EQ(render_tensor_values(i64({}, {7})), "7");
  EXPECT_EQ(render_tensor_values(i64({4}, {1, 2, 3, 4}), 2), "[1, 2, ... (4 elements)]");
}

}  // namespace
}  // namespace sp
