// Tests of the fuzz case generator, the shrinker and the fuzz engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "backends/mutant/mutant.h"
#include "fuzz/case_gen.h"
#include "fuzz/engine.h"
#include "fuzz/shrink.h"
#include "harness/spec_loader.h"
#include "reference/op_table.h"
#include "reference/reference.h"
#include "reference/versions.h"

namespace sp::fuzz {
namespace {

// The call's full content: description plus every operand's bits.
std::string fingerprint(const OpCall& call) {
  std::string s = call.describe();
  for (const auto& [name, t] : call.tensors) {
    s += " " + name + ":";
    for (uint64_t b : t.to_bits()) s += std::to_string(b) + ",";
  }
  return s;
}

// A mutant backend by name ("mutant:" + name), one thread.
std::unique_ptr<Backend> mutant(const std::string& name) {
  return make_backend("mutant:" + name, BackendOptions{1, false}, nullptr);
}

int64_t total_elements(const OpCall& call) {
  int64_t n = 0;
  for (const auto& [name, t] : call.tensors) n += t.numel();
  return n;
}

TEST(FuzzGen, SameSeedSameCase) {
  for (uint64_t seed : {1u, 2u, 99u}) {
    Choices a(seed), b(seed);
    const OpCall ca = generate_call(a), cb = generate_call(b);
    EXPECT_EQ(fingerprint(ca), fingerprint(cb));
    EXPECT_EQ(a.consumed(), b.consumed());
    Choices replay = Choices::replay(a.consumed());
    EXPECT_EQ(fingerprint(generate_call(replay)), fingerprint(ca)) << "replaying the consumed choices";
  }
}

TEST(FuzzGen, AllZeroChoicesGiveTheSimplestValidCall) {
  Choices zeros = Choices::replay({});
  const OpCall call = generate_call(zeros);
  EXPECT_EQ(call.op, "torch.gather");
  EXPECT_EQ(total_elements(call), 2);  // input [1], index [1]
  const Expectation e = evaluate(call);
  EXPECT_FALSE(e.expects_error()) << e.summary();
}

// The forward ops (a backward call wraps a forward one: FuzzGen.BackwardCalls).
std::vector<const OpSpec*> forward_ops() {
  std::vector<const OpSpec*> ops;
  for (const OpSpec& op : op_table())
    if (op.backward_of.empty()) ops.push_back(&op);
  return ops;
}

TEST(FuzzGen, DistributionCoversTheEdges) {
  constexpr int kCases = 6000;  // every op of the table drawn a few dozen times
  const std::vector<const OpSpec*> forward = forward_ops();
  std::set<std::string> ops;
  std::set<int64_t> ranks;
  std::set<DType> dtypes, index_dtypes;
  std::map<std::string, int> seen;
  int invalid = 0, large = 0;
  for (int i = 0; i < kCases; ++i) {
    Choices c(1000 + static_cast<uint64_t>(i));
    const OpCall call = generate_call(c, forward);
    ops.insert(call.op);
    const Expectation e = evaluate(call);
    if (e.expects_error()) ++invalid;
    // Small but for the rare large tier (fuzz_gen_edges_test.cc).
    large += std::any_of(call.tensors.begin(), call.tensors.end(),
                         [](const auto& named) { return named.second.numel() > 4 * kMaxGeneratedElements; });
    for (const auto& [name, t] : call.tensors) {
      EXPECT_LE(t.numel(), 2 * kMaxLargeElements) << call.describe();
      ranks.insert(t.rank());
      if (name == "index")
        index_dtypes.insert(t.dtype());
      else
        dtypes.insert(t.dtype());
      if (!t.is_contiguous()) ++seen["non-contiguous"];
      if (t.offset() != 0) ++seen["offset"];
      for (int64_t s : t.strides()) seen["stride0"] += s == 0 && t.numel() > 1;
      for (int64_t d : t.shape()) seen["zero-dim"] += d == 0;
      if (is_floating(t.dtype()))
        for (uint64_t b : t.to_bits()) {
          const double v = value_from_bits(t.dtype(), b).f;
          seen["nan"] += std::isnan(v);
          seen["inf"] += std::isinf(v);
          seen["-0.0"] += v == 0.0 && std::signbit(v);
        }
    }
    for (const ArgSpec& a : op_spec(call.op).args)
      if (const auto s = a.type == Arg::Type::String ? call.string_arg(a.name) : std::nullopt;
          s && std::find(a.allowed.begin(), a.allowed.end(), *s) == a.allowed.end())
        ++seen["bad-" + a.name];
    if (call.scalar_arg("value")) ++seen["value-" + std::to_string(static_cast<int>(call.scalar_arg("value")->kind))];
    for (const auto& err : e.errors) ++seen[std::string(error_name(err))];
  }
  EXPECT_LE(large, 3 * kCases / static_cast<int>(kLargeTierOneIn) + 3);
  EXPECT_EQ(ops.size(), forward.size());
  for (int64_t r = 0; r <= 9; ++r) EXPECT_TRUE(ranks.count(r)) << "rank " << r;
  EXPECT_EQ(dtypes.size(), static_cast<size_t>(kNumDTypes));
  EXPECT_GE(index_dtypes.size(), 5u);
  for (const char* k : {"non-contiguous",
                        "offset",
                        "stride0",
                        "zero-dim",
                        "nan",
                        "inf",
                        "-0.0",
                        "bad-reduce",
                        "value-0",
                        "value-1",
                        "value-2",
                        "index_out_of_bounds",
                        "dim_out_of_range",
                        "rank_mismatch",
                        "shape_mismatch",
                        "dtype_mismatch",
                        "index_dtype",
                        "invalid_reduce",
                        "rank_limit",
                        "value_out_of_range"})
    EXPECT_GT(seen[k], 0) << k;
  const double ratio = static_cast<double>(invalid) / kCases;
  std::printf("invalid ratio: %.3f over %d cases\n", ratio, kCases);
  EXPECT_GT(ratio, 0.25);
  EXPECT_LT(ratio, 0.45);
}

// Every backward op is drawn; its call is a forward call of its op (no
// out=) plus grad_output, mostly of floating data and shaped like the
// forward's output, sometimes not (the backward's own rules).
TEST(FuzzGen, BackwardCalls) {
  std::vector<const OpSpec*> backward;
  for (const OpSpec& op : op_table())
    if (!op.backward_of.empty()) backward.push_back(&op);
  ASSERT_FALSE(backward.empty());
  std::set<std::string> ops;
  int floating = 0, shaped = 0, misshaped = 0, gradients = 0;
  constexpr int kCases = 2000;
  for (int i = 0; i < kCases; ++i) {
    Choices c(7000 + static_cast<uint64_t>(i));
    const OpCall call = generate_call(c, backward);
    const OpSpec& op = op_spec(call.op);
    ops.insert(call.op);
    ASSERT_FALSE(op.backward_of.empty());
    ASSERT_NE(call.tensor("grad_output"), nullptr) << call.describe();
    EXPECT_EQ(call.tensor("out"), nullptr) << call.describe();
    const OpSpec& forward = op_spec(op.backward_of);
    floating += is_floating(call.tensor(forward.data_operand)->dtype());
    OpCall forward_call = call;
    forward_call.op = forward.id;
    forward_call.tensors.erase("grad_output");
    const std::optional<Shape> shape = output_shape_of(forward, forward_call);
    (shape && *shape == call.tensor("grad_output")->shape() ? shaped : misshaped) += 1;
    const Expectation e = evaluate(call);
    gradients += e.outputs.has_value() && !e.unspecified;
  }
  EXPECT_EQ(ops.size(), backward.size());
  EXPECT_GT(floating, kCases * 3 / 4);
  EXPECT_GT(shaped, kCases * 3 / 4);
  EXPECT_GT(misshaped, 0);
  EXPECT_GT(gradients, kCases / 4) << "the reference answers gradients for a good share";
}

TEST(FuzzGen, ANewOpOfAnExistingFamilyNeedsNoGeneratorChange) {
  // An entry shaped like torch.scatter_reduce_, built here rather than read
  // from the table: the generator knows only its operand and argument
  // names, roles and types.
  OpSpec op = op_spec("torch.scatter_");
  op.id = "torch.scatter_reduce_";
  op.operands = {{"self", OperandRole::InPlace, DTypeSet::all(), ""},
                 {"index", OperandRole::Index, DTypeSet{DType::Int64}, ""},
                 {"src", OperandRole::Read, DTypeSet::all(), ""}};
  op.args = {{"dim", Arg::Type::Int, true, std::nullopt, {}},
             {"reduce", Arg::Type::String, true, std::nullopt, {"sum", "prod", "mean", "amax", "amin"}},
             {"include_self", Arg::Type::Bool, false, Arg::of_bool(true), {}}};
  std::map<std::string, int> seen;
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    Choices c(seed);
    const OpCall call = generate_call_for(c, op);
    ASSERT_EQ(call.op, op.id);
    ASSERT_FALSE(check_signature(call).has_value() && check_signature(call)->field != "op")
        << check_signature(call)->message;
    ASSERT_TRUE(call.tensor("self") && call.tensor("index") && call.tensor("src")) << call.describe();
    ASSERT_TRUE(call.string_arg("reduce")) << "a required argument is always passed";
    ++seen["reduce=" + *call.string_arg("reduce")];
    ++seen[call.bool_arg("include_self") ? (*call.bool_arg("include_self") ? "include_self" : "exclude_self")
                                         : "include_self default"];
  }
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"})
    EXPECT_GT(seen[std::string("reduce=") + reduce], 200);
  for (const char* invalid : {"Sum", "SUM", "sum ", ""})
    EXPECT_GT(seen[std::string("reduce=") + invalid], 0) << invalid;
  for (const char* k : {"include_self", "exclude_self", "include_self default"}) EXPECT_GT(seen[k], 400) << k;
  Choices zeros = Choices::replay({});
  const OpCall simplest = generate_call_for(zeros, op);
  EXPECT_EQ(*simplest.string_arg("reduce"), "sum");
  EXPECT_FALSE(simplest.bool_arg("include_self"));
}

// The IndexAlongDim family, on entries shaped like index_add_ (a source)
// and index_select (none), built here: a 1-D index mostly (0-d and 2-D
// sometimes), a source shaped like self with dim replaced by len(index)
// mostly, alpha drawn as a Python scalar, and the reference answering every
// case (a third or so invalid).
TEST(FuzzGen, IndexAlongDimFamilyCoversItsShapes) {
  OpSpec add = op_spec("torch.scatter_add_");
  add.id = "torch.index_add_";
  add.family = ShapeFamily::IndexAlongDim;
  add.operands = {{"self", OperandRole::InPlace, DTypeSet::all(), ""},
                  {"index", OperandRole::Index, DTypeSet{DType::Int32, DType::Int64}, ""},
                  {"source", OperandRole::Read, DTypeSet::all(), ""}};
  add.args = {{"dim", Arg::Type::Int, true, std::nullopt, {}},
              {"alpha", Arg::Type::Scalar, false, Arg::of_scalar(Scalar::of_int(1)), {}}};
  OpSpec select = op_spec("torch.gather");
  select.id = "torch.index_select";
  select.family = ShapeFamily::IndexAlongDim;
  std::map<std::string, int> seen;
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    Choices c(seed);
    const OpCall call = generate_call_for(c, add);
    ASSERT_FALSE(check_signature(call).has_value() && check_signature(call)->field != "op");
    const Tensor& self = *call.tensor("self");
    const Tensor& index = *call.tensor("index");
    const Tensor& source = *call.tensor("source");
    ++seen["index rank " + std::to_string(index.rank())];
    if (call.arg("alpha")) ++seen["alpha"];
    const int64_t dim = *call.int_arg("dim");
    if (self.rank() > 0 && dim >= -self.rank() && dim < self.rank() && index.rank() <= 1) {
      Shape expected = self.shape();
      expected[static_cast<size_t>(dim < 0 ? dim + self.rank() : dim)] = index.numel();
      ++seen[source.shape() == expected ? "source shaped" : "source misshaped"];
    }
    Choices c2(seed);
    const OpCall s = generate_call_for(c2, select);
    // input and index, and sometimes PyTorch's out=.
    ASSERT_TRUE(s.tensor("input") && s.tensor("index") && s.tensors.size() == (s.tensor("out") ? 3u : 2u))
        << s.describe();
  }
  EXPECT_GT(seen["index rank 1"], 1000);
  EXPECT_GT(seen["index rank 0"], 0);
  EXPECT_GT(seen["index rank 2"], 30);
  EXPECT_GT(seen["alpha"], 400);
  EXPECT_GT(seen["source shaped"], 600);
  EXPECT_GT(seen["source misshaped"], 50);
}

// Every versioned rule (reference/versions.h) is drawn on both sides of its
// bound, and on calls where the rule decides the answer: an int32 index for
// gather/scatter (T-I2), a source that only the physical or only the logical
// shape rule takes (T-IA14), negative Paddle index values (PD-B3).
TEST(FuzzGen, VersionedRulesAreDrawnOnBothSides) {
  std::map<std::string, std::vector<const OpSpec*>> by_dialect;
  for (const OpSpec& op : op_table()) by_dialect[op.dialect].push_back(&op);
  std::map<std::string, int> seen;
  for (const ref::VersionedRule& rule : ref::versioned_rules()) {
    for (uint64_t seed = 1; seed <= 3000; ++seed) {
      Choices c(seed);
      const OpCall call = generate_call(c, by_dialect.at(rule.framework));
      const bool holds = ref::rule_holds(rule.clause, call.framework_version);
      ++seen[std::string(rule.clause) + (holds ? " holds" : " does not hold")];
    }
  }
  for (const ref::VersionedRule& rule : ref::versioned_rules())
    for (const char* side : {" holds", " does not hold"}) EXPECT_GT(seen[rule.clause + std::string(side)], 300) << side;

  const auto with_version = [](OpCall call, const char* version) {
    call.framework_version = version;
    return call;
  };
  std::vector<const OpSpec*> element_ops, index_add_ops;
  for (const OpSpec* op : by_dialect.at("torch")) {
    if (op->family == ShapeFamily::Gather || op->family == ShapeFamily::ScatterElements) element_ops.push_back(op);
    if (op->id.starts_with("torch.index_add") || op->id.starts_with("torch.index_reduce")) index_add_ops.push_back(op);
  }
  for (uint64_t seed = 1; seed <= 10000; ++seed) {
    Choices c(seed);
    const OpCall call = generate_call(c, element_ops);
    const Tensor& index = *call.tensor("index");
    if (index.dtype() != DType::Int32 || index.numel() == 0) continue;
    const bool holds = ref::rule_holds("T-I2", call.framework_version);
    const Expectation e = evaluate(call);
    if (holds && !e.expects_error()) ++seen["T-I2 int32 computed"];
    if (!holds && e.expects_error() && e.errors.front() == ErrorCategory::IndexDtype) ++seen["T-I2 int32 refused"];
  }
  for (uint64_t seed = 1; seed <= 10000; ++seed) {
    Choices c(seed);
    const OpCall call = generate_call(c, index_add_ops);
    const Expectation before = evaluate(with_version(call, "2.2")), after = evaluate(with_version(call, "2.3"));
    if (before.expects_error() != after.expects_error()) ++seen["T-IA14 decides"];
  }
  std::vector<const OpSpec*> row_scatter_ops;  // paddle.scatter (PD-B3); its other ops have their own rules
  for (const OpSpec* op : by_dialect.at("paddle"))
    if (op->family == ShapeFamily::RowScatter) row_scatter_ops.push_back(op);
  for (uint64_t seed = 1; seed <= 5000; ++seed) {
    Choices c(seed);
    const OpCall call = generate_call(c, row_scatter_ops);
    const Tensor& index = *call.tensor("index");
    bool negative = false;
    for (int64_t i = 0; index.rank() == 1 && i < index.numel(); ++i) negative |= index.value_at(Shape{i}).i < 0;
    if (!negative) continue;
    const Expectation e = evaluate(call);
    if (ref::rule_holds("PD-B3", call.framework_version) && e.outputs) ++seen["PD-B3 negatives computed"];
    if (!ref::rule_holds("PD-B3", call.framework_version) && e.unspecified) ++seen["PD-B2 negatives unspecified"];
  }
  for (const char* k : {"T-I2 int32 computed", "T-I2 int32 refused", "T-IA14 decides", "PD-B3 negatives computed",
                        "PD-B2 negatives unspecified"}) {
    std::printf("%s: %d\n", k, seen[k]);
    EXPECT_GT(seen[k], 20) << k;
  }
}

TEST(FuzzMutants, EveryMutantIsABackend) {
  const auto& catalog = mutant::mutant_catalog();
  std::set<std::string> names;
  for (const auto& m : catalog) EXPECT_TRUE(names.insert(m.name).second) << "defined twice: " << m.name;
  // The mutants of the first seven ops keep their names (reports and
  // scripts select them as mutant:NAME).
  for (const char* name : {"bound-off-by-one",
                           "torch-negative-wrap",
                           "no-src-size-check",
                           "src-stride-ignored",
                           "src-storage-order",
                           "negative-dim-off-by-one",
                           "multiply-as-add",
                           "paddle-accumulate-keeps-old-row",
                           "value-wrong-slots",
                           "drop-duplicate-term",
                           "empty-index-rank-strict",
                           "mindspore-rank-limit-missing",
                           "bf16-truncating-accumulator",
                           "canonicalize-bits",
                           "out-of-place-writes-input",
                           "value-rounds",
                           "dim-modulo-rank",
                           "reduce-case-insensitive",
                           "gather-clamps-index",
                           "mindspore-index-dtype-lenient"})
    EXPECT_TRUE(names.count(name)) << name;
  for (const auto& m : catalog) {
    EXPECT_FALSE(m.bug.empty()) << m.name;
    auto b = mutant(m.name);
    ASSERT_TRUE(b) << m.name;
    EXPECT_EQ(b->name(), "mutant:" + m.name);
  }
  EXPECT_FALSE(mutant("no-such-mutant"));
}

TEST(FuzzShrink, ReducesASequenceToItsCore) {
  // "Fails" when some choice is >= 10: the minimal failing sequence is {10}.
  const StillFails still_fails = [](const std::vector<uint32_t>& s) -> std::optional<std::vector<uint32_t>> {
    for (uint32_t v : s)
      if (v >= 10) return s;
    return std::nullopt;
  };
  const ShrinkResult r = shrink({3, 99, 7, 1000, 4}, still_fails);
  EXPECT_EQ(r.choices, (std::vector<uint32_t>{10}));
}

TEST(FuzzShrink, PlantedBugShrinksToAHandfulOfElements) {
  // The mutant that drops the second update of a reduction: a planted bug.
  auto planted = mutant("drop-duplicate-term");
  ASSERT_TRUE(planted);
  FuzzLimits limits;
  limits.seed = 5;
  limits.max_cases = 20000;
  limits.duration = std::chrono::milliseconds(20000);
  const FuzzResult r = fuzz_backend(*planted, limits);
  ASSERT_TRUE(r.finding) << "the planted bug was not found in " << r.stats.cases << " cases";
  const Shrunk s = shrink_finding(*planted, *r.finding);
  EXPECT_EQ(s.trial.verdict.kind, Verdict::Kind::Fail);
  EXPECT_LE(total_elements(s.trial.call), 8) << s.trial.call.describe();
}

TEST(FuzzGen, OutOperandsCoverEveryKind) {
  // PyTorch's out= (T-OUT*): correctly shaped, of another dtype, mis-shaped,
  // expanded, and sharing an operand's storage (the same view or shifted).
  std::map<std::string, int> seen;
  for (const char* id : {"torch.gather", "torch.scatter", "torch.index_select"}) {
    const OpSpec& op = op_spec(id);
    for (uint64_t seed = 1; seed <= 3000; ++seed) {
      Choices c(seed * 7919);
      const OpCall call = generate_call_for(c, op);
      const Tensor* out = call.tensor("out");
      if (!out) {
        ++seen["no out"];
        continue;
      }
      const Tensor* like = call.tensor(op.output_dtype_of);
      OpCall without = call;
      without.tensors.erase("out");
      const std::optional<Shape> shape = output_shape_of(op, without);
      if (out->dtype() != like->dtype()) ++seen["other dtype"];
      if (shape && out->shape() != *shape) ++seen["mis-shaped"];
      if (out->has_internal_overlap()) ++seen["expanded"];
      for (const auto& [name, t] : call.tensors) {
        if (name == "out" || t.storage() != out->storage()) continue;
        ++seen[t.offset() == out->offset() && t.strides() == out->strides() && t.shape() == out->shape()
                   ? "same view"
                   : "shares storage"];
      }
      EXPECT_FALSE(check_signature(call).has_value()) << call.describe();
    }
  }
  for (const char* kind : {"no out", "other dtype", "mis-shaped", "expanded", "same view", "shares storage"})
    EXPECT_GT(seen[kind], 20) << kind;
}

TEST(FuzzEngine, ScopeLimitsTheOpsAndCountsKnownDeviations) {
  FuzzScope scope;
  scope.ops = {&op_spec("torch.index_select")};
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    Choices c(seed);
    EXPECT_EQ(generate_call(c, scope.ops).op, "torch.index_select");
  }
  // A mutant that clamps out-of-range indices fails only where the
  // reference expects T-IS6; listed as a known deviation, the campaign
  // counts it and finds nothing else.
  auto clamps = mutant("index-select-clamps-index");
  ASSERT_TRUE(clamps);
  FuzzLimits limits;
  limits.seed = 11;
  limits.max_cases = 3000;
  limits.duration = std::chrono::milliseconds(20000);
  const FuzzResult unscoped = fuzz_backend(*clamps, limits, {}, nullptr, scope);
  ASSERT_TRUE(unscoped.finding);
  EXPECT_EQ(unscoped.finding->expectation.error_clause, "T-IS6");
  scope.backend_name = "mutant:index-select-clamps-index";
  ExpectationEntry known;
  known.backend_pattern = "mutant:*";
  known.clause_pattern = "T-IS6";
  known.op_pattern = "torch.index_select";
  known.reason = "clamps";
  scope.known = {known};
  const FuzzResult r = fuzz_backend(*clamps, limits, {}, nullptr, scope);
  EXPECT_FALSE(r.finding) << r.finding->call.describe() << ": " << r.finding->verdict.detail;
  EXPECT_GT(r.stats.known, 0u);
  EXPECT_EQ(r.stats.cases, 3000u);
}

TEST(FuzzEngine, ReproCaseIsAValidSpecFile) {
  auto off_by_one = mutant("bound-off-by-one");
  ASSERT_TRUE(off_by_one);
  const Trial t = replay_trial(*off_by_one, {});
  ASSERT_EQ(t.verdict.kind, Verdict::Kind::Fail);
  const Case c = repro_case(t, "mutant:bound-off-by-one");
  EXPECT_EQ(c.source.kind, "fuzz");
  EXPECT_EQ(c.id.rfind("regression/fuzz-mutant-bound-off-by-one-", 0), 0u) << c.id;
  const std::vector<Case> loaded = load_spec_text(spec_file_json({c}, "test").dump(), "repro.json");
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(fingerprint(loaded[0].call), fingerprint(t.call));
  EXPECT_EQ(loaded[0].expect.kind, CaseExpect::Kind::Output);
}

TEST(FuzzEngine, ReproOfALongMessageStillLoads) {
  // A backend's message (a crash's stderr tail, a framework's traceback)
  // can exceed the loader's string limit: the repro keeps what fits, cut
  // at a character boundary, and says how much was left out.
  auto off_by_one = mutant("bound-off-by-one");
  ASSERT_TRUE(off_by_one);
  Trial t = replay_trial(*off_by_one, {});
  std::string detail;
  while (detail.size() < 3 * kMaxJsonStringChars) detail += "traceback line \xe2\x86\x92 \u2192 ";
  t.verdict.detail = detail;
  t.expectation.unspecified = true;
  t.expectation.unspecified_reason = detail;
  const Case c = repro_case(t, "mutant:bound-off-by-one");
  EXPECT_LE(c.source.example.size(), kMaxJsonStringChars);
  EXPECT_NE(c.source.example.find("bytes left out)"), std::string::npos) << c.source.example.substr(0, 80);
  EXPECT_LE(c.expect.text.size(), kMaxJsonStringChars);
  const std::vector<Case> loaded = load_spec_text(spec_file_json({c}, "test").dump(), "repro.json");
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].expect.kind, CaseExpect::Kind::Unspecified);
}

}  // namespace
}  // namespace sp::fuzz
