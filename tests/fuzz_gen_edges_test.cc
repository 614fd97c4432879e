// Tests that the fuzz case generator reaches the hard inputs (issue 14):
// each class is counted from the generated OpCalls themselves, and the
// rare large tier keeps generation bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "backends/backend.h"
#include "backends/cpu/kernels.h"
#include "fuzz/case_gen.h"
#include "fuzz/engine.h"
#include "reference/op_table.h"
#include "reference/output_shapes.h"
#include "reference/reference.h"

namespace sp::fuzz {
namespace {

constexpr int kCases = 30000;

std::vector<const OpSpec*> forward_ops() {
  std::vector<const OpSpec*> ops;
  for (const OpSpec& op : op_table())
    if (op.backward_of.empty()) ops.push_back(&op);
  return ops;
}

const Tensor* operand(const OpCall& call, const OperandSpec* spec) { return spec ? call.tensor(spec->name) : nullptr; }

const OperandSpec* with_role(const OpSpec& op, OperandRole role) {
  for (const OperandSpec& o : op.operands)
    if (o.role == role) return &o;
  return nullptr;
}

// The operand holding the data: written in place, else the first read one.
const OperandSpec* data_of(const OpSpec& op) {
  if (const OperandSpec* o = with_role(op, OperandRole::InPlace)) return o;
  return with_role(op, OperandRole::Read);
}

// The source of values: the operand with a scalar alternative, else a read
// operand other than the data.
const OperandSpec* source_of(const OpSpec& op) {
  for (const OperandSpec& o : op.operands)
    if (!o.or_arg.empty()) return &o;
  const OperandSpec* data = data_of(op);
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Read && &o != data) return &o;
  return nullptr;
}

int64_t index_value(const Tensor& t, const Shape& pos) {
  const Value v = t.value_at(pos);
  return v.is_float ? static_cast<int64_t>(v.f) : v.i;
}

// Whether a scalar, converted to float16 / bfloat16 through float32, lands
// elsewhere than converted directly (double rounding).
bool double_rounds(double v) {
  const double via = static_cast<double>(static_cast<float>(v));
  return double_to_half_bits(v) != double_to_half_bits(via) || double_to_bf16_bits(v) != double_to_bf16_bits(via);
}

bool is_subnormal(DType t, uint64_t bits) {
  if (!is_floating(t)) return false;
  const double v = std::fabs(value_from_bits(t, bits).f);
  const double smallest_normal = t == DType::Float16 ? 0x1p-14 : t == DType::Float64 ? 0x1p-1022 : 0x1p-126;
  return v != 0.0 && v < smallest_normal;
}

// The scalar classes (value, alpha) of issue 14 and issue 36 item 4, for a
// call whose data operand has dtype t.
void count_scalar_classes(const OpCall& call, DType t, std::map<std::string, int>& seen) {
  for (const auto& [name, arg] : call.args) {
    if (arg.type != Arg::Type::Scalar) continue;
    const Scalar& s = arg.scalar;
    const bool integral = is_integral(t);
    const double v = s.kind == Scalar::Kind::Float ? s.f : static_cast<double>(s.i);
    if (s.kind == Scalar::Kind::Bool) continue;
    seen["scalar-fractional-into-integer"] += integral && std::isfinite(v) && v != std::trunc(v);
    seen["scalar-negative-into-unsigned-or-bool"] += (t == DType::UInt8 || t == DType::Bool) && v < 0;
    seen["scalar-out-of-range-of-integer"] += integral && t != DType::Bool && s.kind == Scalar::Kind::Int &&
                                              (s.i > dtype_int_max(t) || s.i < dtype_int_min(t));
    seen["scalar-double-rounding-16bit"] +=
        (t == DType::Float16 || t == DType::BFloat16) && s.kind == Scalar::Kind::Float && double_rounds(s.f);
    seen["scalar-into-" + std::string(dtype_name(t))] += 1;
    seen["scalar-fractional-into-bool"] += t == DType::Bool && std::isfinite(v) && v != std::trunc(v);
    if ((t == DType::Float16 || t == DType::BFloat16) && s.kind == Scalar::Kind::Float && std::isfinite(v) && v != 0) {
      const double smallest_normal = t == DType::Float16 ? 0x1p-14 : 0x1p-126;
      const double smallest_subnormal = t == DType::Float16 ? 0x1p-24 : 0x1p-133;
      seen["scalar-16bit-subnormal-result"] += std::fabs(v) < smallest_normal && std::fabs(v) >= smallest_subnormal;
      seen["scalar-16bit-ties-to-zero"] += std::fabs(v) == smallest_subnormal / 2;
      seen["scalar-16bit-over-max"] += std::fabs(v) > dtype_max(t) && std::fabs(v) < 2 * dtype_max(t);
      // An exact tie between two neighbours of t (through float32, as c10 converts).
      const double f = static_cast<double>(static_cast<float>(v));
      const uint64_t b = t == DType::Float16 ? double_to_half_bits(f) : double_to_bf16_bits(f);
      const double r = value_from_bits(t, b).f;
      const double next = value_from_bits(t, f > r ? b + 1 : b - 1).f;
      seen["scalar-16bit-tie"] += f != r && std::fabs(f - r) == std::fabs(next - f);
    }
  }
}

// The classes of issue 14's item 2, counted over kCases generated calls.
std::map<std::string, int> count_classes() {
  std::map<std::string, int> seen;
  const std::vector<const OpSpec*> forward = forward_ops();
  for (int i = 0; i < kCases; ++i) {
    Choices c(7000 + static_cast<uint64_t>(i));
    const OpCall call = generate_call(c, forward);
    const OpSpec& op = op_spec(call.op);
    const Tensor* data = operand(call, data_of(op));
    const Tensor* index = operand(call, with_role(op, OperandRole::Index));
    const Tensor* source = operand(call, source_of(op));
    int64_t largest = 0;
    for (const auto& [name, t] : call.tensors) {
      largest = std::max(largest, t.numel());
      seen["rank>=10"] += t.rank() >= 10;
      seen["rank16"] += t.rank() == kMaxGeneratedRank;
      // Dims stored in an order that is neither row-major nor the last two swapped.
      if (t.rank() >= 3 && t.numel() > 0 &&
          std::all_of(t.strides().begin(), t.strides().end(), [](int64_t s) { return s > 0; })) {
        std::vector<size_t> order(static_cast<size_t>(t.rank()));
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return t.strides()[a] > t.strides()[b]; });
        const bool sorted = std::is_sorted(order.begin(), order.end());
        std::swap(order[order.size() - 2], order[order.size() - 1]);
        const bool last_two = std::is_sorted(order.begin(), order.end());
        const bool all_sizes_over_1 = std::all_of(t.shape().begin(), t.shape().end(), [](int64_t d) { return d > 1; });
        seen["permuted"] += all_sizes_over_1 && !sorted && !last_two;
      }
      if (is_floating(t.dtype()) && t.numel() > 0) {
        bool subnormal = false, not_float32 = false;
        for (uint64_t b : t.to_bits()) {
          subnormal |= is_subnormal(t.dtype(), b);
          const double v = value_from_bits(t.dtype(), b).f;
          not_float32 |=
              t.dtype() == DType::Float64 && std::isfinite(v) && static_cast<double>(static_cast<float>(v)) != v;
        }
        seen["subnormal"] += subnormal;
        seen["float64-not-float32"] += not_float32;
      }
    }
    seen["large>parallel"] += largest > cpu::kMinParallelWork;
    seen["large>chunk"] += largest > (int64_t{1} << 16);
    if (index && index->numel() > 0) {
      // Strides 1 and 0 only, at least two stride-1 dims and one stride-0
      // dim of size > 1 ([1, 1, 0]; an expanded contiguous view has one).
      int64_t ones = 0, zeros = 0;
      bool only01 = true;
      for (int64_t d = 0; d < index->rank(); ++d) {
        const int64_t stride = index->strides()[static_cast<size_t>(d)];
        if (index->size(d) <= 1) continue;
        ones += stride == 1;
        zeros += stride == 0;
        only01 &= stride <= 1;
      }
      seen["index-strides-1-and-0"] += only01 && ones >= 2 && zeros >= 1;
      Shape pos(index->shape().size(), 0);
      do {
        const int64_t v = index_value(*index, pos);
        const int64_t a = v == std::numeric_limits<int64_t>::min() ? v : std::abs(v);
        seen["index+-2^31"] += a >= (int64_t{1} << 31) - 1 && a <= (int64_t{1} << 31) + 1;
        seen["index+-2^32"] += a >= (int64_t{1} << 32) && a < (int64_t{1} << 32) + 100;
        seen["index-int64-extreme"] +=
            v == std::numeric_limits<int64_t>::max() || v == std::numeric_limits<int64_t>::min();
      } while (next_index(pos, index->shape()));
    }
    if (data) count_scalar_classes(call, data->dtype(), seen);
    const bool reduction = call.op.find("scatter_add") != std::string::npos ||
                           call.op.find("index_add") != std::string::npos ||
                           call.op.find("scatter_reduce") != std::string::npos;
    seen["bool-reduction"] += reduction && data && data->dtype() == DType::Bool && data->numel() > 0;
    if (index && index->numel() == 0) {
      bool other = is_floating(index->dtype()) || (source && data && source->dtype() != data->dtype());
      if (const auto dim = call.int_arg("dim"); dim && data) {
        const int64_t r = std::max<int64_t>(data->rank(), 1);
        other |= *dim < -r || *dim >= r;
      }
      if (data && (op.family == ShapeFamily::ScatterElements || op.family == ShapeFamily::Gather))
        other |= index->rank() != data->rank();
      seen["empty-index-and-another-rule"] += other;
    }
  }
  return seen;
}

TEST(FuzzGenEdges, EveryHardClassIsReached) {
  const std::map<std::string, int> seen = count_classes();
  for (const auto& [k, n] : seen) std::printf("%-40s %d\n", k.c_str(), n);
  for (const char* k : {"large>parallel",
                        "large>chunk",
                        "rank>=10",
                        "rank16",
                        "permuted",
                        "index-strides-1-and-0",
                        "index+-2^31",
                        "index+-2^32",
                        "index-int64-extreme",
                        "scalar-fractional-into-integer",
                        "scalar-negative-into-unsigned-or-bool",
                        "scalar-out-of-range-of-integer",
                        "scalar-double-rounding-16bit",
                        "subnormal",
                        "float64-not-float32",
                        "bool-reduction",
                        "empty-index-and-another-rule",
                        "scalar-fractional-into-bool",
                        "scalar-16bit-subnormal-result",
                        "scalar-16bit-ties-to-zero",
                        "scalar-16bit-over-max",
                        "scalar-16bit-tie"}) {
    const auto it = seen.find(k);
    EXPECT_TRUE(it != seen.end() && it->second > 0) << k << " never generated in " << kCases << " cases";
  }
  // A scalar (value, alpha) reaches every dtype the ops that take one document for their data.
  std::set<DType> documented;
  for (const OpSpec* op : forward_ops()) {
    const bool takes_scalar =
        std::any_of(op->args.begin(), op->args.end(), [](const ArgSpec& a) { return a.type == Arg::Type::Scalar; });
    if (const OperandSpec* data = data_of(*op); takes_scalar && data)
      for (DType t : kAllDTypes)
        if (data->dtypes.contains(t)) documented.insert(t);
  }
  EXPECT_GE(documented.size(), 10u);
  for (DType t : documented) {
    const auto it = seen.find("scalar-into-" + std::string(dtype_name(t)));
    EXPECT_TRUE(it != seen.end() && it->second > 0) << "no scalar converted into " << dtype_name(t);
  }
}

// The large tier's row-shaped draws (fuzz/families.cc), which reach the cpu
// backend's row reduction, sorted, private-accumulator and target-range
// paths (docs/fuzzing.md, "Coverage of our kernels"): an index expanded
// along rows past the parallel threshold (the scatter-elements family); a
// row scatter past it into more than twice as many rows as it writes; an
// index along dim 0 of rows of 16 or more, past it.
TEST(FuzzGenEdges, LargeRowShapedDrawsAreReached) {
  std::map<std::string, int> seen;
  for (const OpSpec& op : op_table()) {
    const bool row_family = op.family == ShapeFamily::ScatterElements || op.family == ShapeFamily::RowScatter ||
                            op.family == ShapeFamily::IndexAlongDim;
    if (!op.backward_of.empty() || !row_family) continue;
    for (int i = 0; i < 4000; ++i) {
      Choices c(31000 + static_cast<uint64_t>(i));
      const OpCall call = generate_call_for(c, op);
      const Tensor* data = operand(call, data_of(op));
      const Tensor* index = operand(call, with_role(op, OperandRole::Index));
      const Tensor* source = operand(call, source_of(op));
      if (!data || !index) continue;
      seen["index-along-dim-wide-rows"] += op.family == ShapeFamily::IndexAlongDim && data->rank() == 2 &&
                                           data->size(1) >= 16 && call.int_arg("dim") == 0 &&
                                           index->numel() * data->size(1) > cpu::kMinParallelWork;
      if (!source) continue;
      seen["expanded-along-rows"] += op.family == ShapeFamily::ScatterElements &&
                                     index->numel() > cpu::kMinParallelWork && index->rank() == 2 &&
                                     index->size(1) > 1 && index->strides() == Shape{1, 0};
      seen["row-scatter-into-many-rows"] += op.family == ShapeFamily::RowScatter &&
                                            source->numel() > cpu::kMinParallelWork && data->rank() >= 1 &&
                                            data->size(0) > 2 * index->numel();
    }
  }
  for (const char* k : {"expanded-along-rows", "row-scatter-into-many-rows", "index-along-dim-wide-rows"}) {
    std::printf("%-30s %d\n", k, seen[k]);
    EXPECT_GT(seen[k], 0) << k << " never generated";
  }
}

// Generation stays cheap (what keeps in-process fuzzing above 20k cases per
// second): the large tier is rare and bounded, every other call small.
TEST(FuzzGenEdges, ElementCountsStayBounded) {
  const std::vector<const OpSpec*> forward = forward_ops();
  int64_t total = 0;
  int large = 0;
  for (int i = 0; i < kCases; ++i) {
    Choices c(900000 + static_cast<uint64_t>(i));
    const OpCall call = generate_call(c, forward);
    int64_t elements = 0, largest = 0;
    for (const auto& [name, t] : call.tensors) {
      elements += t.numel();
      largest = std::max(largest, t.numel());
      EXPECT_LE(t.rank(), kMaxGeneratedRank + 1) << call.describe();
    }
    EXPECT_LE(largest, 2 * kMaxLargeElements) << call.describe();
    EXPECT_LE(elements, 8 * kMaxLargeElements) << call.describe();
    large += largest > 4 * kMaxGeneratedElements;
    total += elements;
  }
  // Large calls are rare (at most 1 in 200, whatever kLargeTierOneIn says),
  // and on average a call stays in the hundreds of elements.
  std::printf("large calls: %d of %d; mean elements per call: %lld\n", large, kCases,
              static_cast<long long>(total / kCases));
  EXPECT_GT(large, 0);
  EXPECT_LE(large, kCases / 200);
  EXPECT_LE(total / kCases, 512);
}

int64_t output_numel(const OpCall& call) {
  const OpSpec& op = op_spec(call.op);
  if (op.in_place || !op.backward_of.empty()) return 0;
  const std::optional<Shape> shape = output_shape_of(op, call);
  if (!shape) return 0;
  int64_t n = 1;
  for (int64_t d : *shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
  return n;
}

// Any choice sequence, not only the generator's own random draws, gives a
// call whose output is bounded: libFuzzer hands the generator arbitrary
// bytes (fuzz/targets/*.cc). The literal sequence drew index_select of a
// 4-long index over an empty int64[5, ..., 5, 0] (twelve 5s): an output of
// 5^12 * 4 elements, 7.8 GB, allocated by the reference and the plugin host
// (found by fuzz_plugin_guided).
TEST(FuzzGenEdges, OutputsStayBoundedForAnyChoiceSequence) {
  std::vector<const OpSpec*> plugin_ops;
  for (const OpSpec& op : op_table())
    if (op.id == "torch.gather" || op.id == "torch.index_select" || op.id == "torch.scatter_")
      plugin_ops.push_back(&op);
  const std::vector<uint32_t> found = {
      0xdcdcdddc, 0xdc5c,     0xdc000000, 0xdc,       0xdc31dc87, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
      0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
      0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
      0xffffffff, 0xdcdccedc, 0xdcdcdcdc, 0xcdcdcddc, 0xcdcdcdcd, 0xffdbdcdc, 0xff,       0x0,        0xcdcdcdcd,
      0xcdcd27cd, 0xdcdccdcd, 0xffffffff, 0x2ffffff,  0xffdccedc, 0xffffffff, 0xdc03ffff, 0xdcdc0063, 0x0,
      0x2100,     0xdc0000b5, 0xdcdcdcdc, 0x900000dc, 0x0,        0xdcdcdcdc, 0xdcdc,     0xff06dcdc, 0xffffffff,
      0xffffffff, 0xdc0004ab, 0xdc,       0x0};
  Choices replayed = Choices::replay(found);
  EXPECT_LE(output_numel(generate_call(replayed, plugin_ops)), kMaxGeneratedOutput);
  // Byte soup as libFuzzer mutates it: runs of 0, 0xff.., small and random words.
  std::mt19937_64 rng(5);
  int64_t largest = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint32_t> seq(16 + rng() % 200);
    for (uint32_t& v : seq) {
      const uint64_t kind = rng() % 4;
      v = kind == 0   ? 0u
          : kind == 1 ? 0xffffffffu
          : kind == 2 ? static_cast<uint32_t>(rng() % 16)
                      : static_cast<uint32_t>(rng());
    }
    Choices c = Choices::replay(seq);
    const OpCall call = i % 2 ? generate_call(c, plugin_ops) : generate_call(c);
    largest = std::max(largest, output_numel(call));
    ASSERT_LE(output_numel(call), kMaxGeneratedOutput) << call.describe();
  }
  std::printf("largest output over 20000 byte-soup sequences: %lld elements\n", static_cast<long long>(largest));
}

// Each mutant of the hard-input classes (backends/mutant/ops/edge_classes.cc)
// is killed by the fuzzer within a bounded number of cases: a case where it
// disagrees with the reference and the unmutated cpu backend does not.
TEST(FuzzGenEdges, EdgeClassMutantsAreKilledByFuzzing) {
  auto baseline = make_backend("cpu", BackendOptions{1, false}, nullptr);
  ASSERT_TRUE(baseline);
  for (const char* name :
       {"large-tail-dropped", "expanded-index-fast-path", "index-truncated-to-int32", "scalar-rounded-directly",
        "index-sorted-in-place", "partial-write-before-error", "float-sum-drops-last-term", "scalar-over-max-rounded",
        "scalar-subnormal-flushed", "scalar-fraction-into-bool-truncated"}) {
    auto backend = make_backend(std::string("mutant:") + name, BackendOptions{1, false}, nullptr);
    ASSERT_TRUE(backend) << name;
    FuzzLimits limits;
    limits.seed = 1;
    limits.max_cases =
        60000;  // scalar-rounded-directly needs ~1 000-21 000 (seeds 1-4) since the jax ops joined the table
    limits.duration = std::chrono::milliseconds(60000);
    const FuzzResult r = fuzz_backend(*backend, limits, {}, baseline.get());
    EXPECT_TRUE(r.finding) << name << " survived " << r.stats.cases << " cases";
    if (r.finding) std::printf("%-28s killed after %llu cases\n", name, static_cast<unsigned long long>(r.stats.cases));
  }
}

}  // namespace
}  // namespace sp::fuzz
