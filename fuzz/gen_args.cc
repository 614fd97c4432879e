// gen_args.cc — the generator's scalar, dtype and argument draws, the
// dialect knobs and the operand roles (gen_detail.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "fuzz/gen_detail.h"
#include "reference/dialect_mindspore.h"
#include "reference/versions.h"

namespace sp::fuzz::gen {

// Ints and floats near 0 (fractional, negative), edge values (out of the
// range of narrow dtypes, NaN, ±inf), bools, and (1 in 4) the hard ones:
// halfway cases of float16 / bfloat16 (exact ties, and ties plus 2^-40,
// which round up directly but to even through float32), integers float32
// or float64 cannot hold, fractions at .5, subnormals (and values whose
// 16-bit result is subnormal or ties to zero), float16's max and overflow
// threshold, values past int64.
Scalar pick_value(Choices& c) {
  switch (c.below(4)) {
    case 0: {
      if (!c.chance(20)) return Scalar::of_int(zigzag(c.below(9)));
      static constexpr std::array<int64_t, 7> kBig = {128,
                                                      256,
                                                      -129,
                                                      40000,
                                                      int64_t{1} << 31,
                                                      std::numeric_limits<int64_t>::max(),
                                                      std::numeric_limits<int64_t>::min()};
      return Scalar::of_int(kBig[c.below(kBig.size())]);
    }
    case 1: {
      if (!c.chance(25)) return Scalar::of_float(static_cast<double>(zigzag(c.below(9))) * 0.75);
      static constexpr std::array<double, 8> kOdd = {std::numeric_limits<double>::quiet_NaN(),
                                                     std::numeric_limits<double>::infinity(),
                                                     -std::numeric_limits<double>::infinity(),
                                                     -0.0,
                                                     1e40,
                                                     65504.0,
                                                     70000.0,
                                                     3.4e38};
      return Scalar::of_float(kOdd[c.below(kOdd.size())]);
    }
    case 2:
      return Scalar::of_bool(c.below(2) == 1);
    default: {
      if (c.chance(25)) {
        static constexpr std::array<int64_t, 5> kInexact = {2049, -2049, (int64_t{1} << 24) + 1, (int64_t{1} << 53) + 1,
                                                            -(int64_t{1} << 32)};
        return Scalar::of_int(kInexact[c.below(kInexact.size())]);
      }
      static constexpr std::array<double, 22> kHard = {
          1.0 + 0x1p-11 + 0x1p-40,  // float16: up directly, even via float32
          -(1.0 + 0x1p-11 + 0x1p-40),
          1.0 + 0x1p-8 + 0x1p-40,  // bfloat16: the same
          -(1.0 + 0x1p-8 + 0x1p-40),
          1.0 + 0x1p-11,  // exact ties
          1.0 + 3 * 0x1p-11,
          1.0 + 0x1p-8,
          2.5,
          -0.5,
          -1.5,
          255.5,
          -3e9,
          1e19,
          0x1p-24,  // float16's smallest subnormal
          0x1p-149,
          0x1p-1074,
          0x1p-25,      // float16: half the smallest subnormal, ties to 0
          3 * 0x1p-26,  // float16: rounds up to the smallest subnormal
          0x1p-134,     // bfloat16: half its smallest subnormal
          3 * 0x1p-135,
          65504.5,   // just over float16's max (c10 refuses; rounding would give 65504)
          65520.0};  // float16's overflow threshold
      return Scalar::of_float(kHard[c.below(kHard.size())]);
    }
  }
}

// Sizes of an index bounded by `limit` per dim (or free along `free_dim`),
// with a small chance of one dim one over its limit.
Shape index_shape_within(Choices& c, const Shape& limit, int64_t free_dim) {
  Shape s(limit.size());
  for (size_t d = 0; d < limit.size(); ++d)
    s[d] = static_cast<int64_t>(d) == free_dim ? c.between(1, 4) : size_upto(c, limit[d]);
  clamp_numel(s);
  if (!s.empty() && c.chance(4)) {
    const size_t d = c.below(static_cast<uint32_t>(s.size()));
    s[d] = limit[d] + 1;
  }
  return s;
}

// Mostly one of the dtypes the document allows for the operand (in
// kDTypeOrder, so choice 0 is its simplest), sometimes one it does not
// allow: the documented dtype error. `also`: one more dtype the call's
// framework version allows beyond the op table's (which describes the
// baseline).
DType pick_dtype_for(Choices& c, const OperandSpec& operand, std::optional<DType> also) {
  const auto allows = [&](DType t) { return operand.dtypes.contains(t) || t == also; };
  const bool any_dtype = std::all_of(kDTypeOrder.begin(), kDTypeOrder.end(), allows);
  if (any_dtype) return kDTypeOrder[c.below(kNumDTypes)];
  // uint16/32/64 are drawn only for an operand whose document lists one
  // (StableHLO's, ONNX's T; SEMANTICS.md C-7), not even as an undocumented
  // dtype elsewhere: the torch, MindSpore and PaddlePaddle calls stay those
  // drawn before the harness had them (an operand documented for every
  // other dtype draws no invalid one, as when it was "every dtype").
  const bool draws_wide =
      std::any_of(kDTypeOrder.begin(), kDTypeOrder.end(), [&](DType t) { return is_wide_unsigned(t) && allows(t); });
  std::vector<DType> allowed, others;
  for (DType t : kDTypeOrder)
    if (draws_wide || !is_wide_unsigned(t)) (allows(t) ? allowed : others).push_back(t);
  if (others.empty()) return allowed[c.below(static_cast<uint32_t>(allowed.size()))];
  const bool documented = c.below(40) < 36;
  const std::vector<DType>& from = documented || others.empty() ? allowed : others;
  return from[c.below(static_cast<uint32_t>(from.size()))];
}

DType any_dtype_for(Choices& c, const OpSpec& op) {
  const bool documents_wide = std::any_of(op.operands.begin(), op.operands.end(), [](const OperandSpec& o) {
    return o.dtypes.contains(DType::UInt16) || o.dtypes.contains(DType::UInt32) || o.dtypes.contains(DType::UInt64);
  });
  return kAllDTypes[c.below(documents_wide ? kNumDTypes : kDTypesBeforeWideUnsigned)];
}

namespace {

// Strings an ArgSpec does not allow but a user might write: near misses of
// the allowed ones (case, a trailing space), the empty string, and the
// names other frameworks use for such arguments.
std::vector<std::string> invalid_strings(const ArgSpec& arg) {
  static const std::array<const char*, 8> kOtherNames = {"sum", "mean",     "prod", "replace",
                                                         "add", "multiply", "max",  "none"};
  std::vector<std::string> out = {""};
  const auto add = [&](std::string s) {
    if (std::find(arg.allowed.begin(), arg.allowed.end(), s) == arg.allowed.end() &&
        std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(std::move(s));
  };
  for (const std::string& a : arg.allowed) {
    std::string capitalized = a, upper = a;
    if (!capitalized.empty()) capitalized[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(a[0])));
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    add(capitalized);
    add(upper);
    add(a + " ");
  }
  for (const char* name : kOtherNames) add(name);
  return out;
}

}  // namespace

// An argument the family builders do not draw themselves, by its declared
// type. Choice 0 is the simplest: absent when optional (the documented
// default), else the first allowed value.
void draw_arg(Choices& c, const ArgSpec& arg, OpCall& call) {
  switch (arg.type) {
    case Arg::Type::Int:
      if (!arg.required && !c.chance(50)) return;
      call.set_arg(arg.name, Arg::of_int(zigzag(c.below(9))));
      return;
    case Arg::Type::Bool: {
      const uint32_t mode = arg.required ? 1 + c.below(2) : c.below(3);
      if (mode > 0) call.set_arg(arg.name, Arg::of_bool(mode == 1));
      return;
    }
    case Arg::Type::String: {
      // Mostly absent when optional, mostly allowed when given; 1 in 10 invalid.
      const uint32_t r = c.below(20);
      if (!arg.required && r < 11) return;
      if (r < 18 && !arg.allowed.empty()) {
        call.set_arg(arg.name, Arg::of_string(arg.allowed[c.below(static_cast<uint32_t>(arg.allowed.size()))]));
        return;
      }
      const std::vector<std::string> invalid = invalid_strings(arg);
      call.set_arg(arg.name, Arg::of_string(invalid[c.below(static_cast<uint32_t>(invalid.size()))]));
      return;
    }
    case Arg::Type::Scalar:
      if (!arg.required && !c.chance(50)) return;
      call.set_arg(arg.name, Arg::of_scalar(pick_value(c)));
      return;
    case Arg::Type::IntList:
      return;  // dimension numbers: drawn with the shapes by the family's builder (families_stablehlo.cc)
  }
}

const DialectKnobs& knobs_for(std::string_view dialect) {
  // torch: T-IA14 from 2.3, T-I2 from 2.8 ("" is 1.13).
  static const DialectKnobs kTorch{
      .framework_versions = {"", "2.2", "2.3", "2.7", "2.8", "2.15"},
      .rank0_as_one = true,
      .int32_index_valid = [](const std::string& version) { return ref::rule_holds("T-I2", version); }};
  static const DialectKnobs kMindspore{.framework_versions = {"", "2.3", "2.10"},
                                       .index_bounded_along_dim = true,
                                       .negatives_in_range = [](const std::string& version) {
                                         return !ref::mindspore_rules::follows_r2_10_or_later(version);
                                       }};
  // paddle: PD-B3 from 3.0 ("" precedes every release).
  static const DialectKnobs kPaddle{
      .framework_versions = {"", "2.6", "3.0", "3.3"},
      .negatives_in_range = [](const std::string& version) { return ref::rule_holds("PD-B3", version); }};
  // onnx: negative index values wrap in every version of the ops drawn
  // (the opset is an argument, drawn by draw_onnx_args).
  static const DialectKnobs kOnnx{.framework_versions = {},
                                  .negatives_in_range = [](const std::string&) { return true; },
                                  .source_shape_is_index = true,
                                  .opset_argument = true};
  static const DialectKnobs kDefault{};
  if (dialect == "onnx") return kOnnx;
  if (dialect == "torch") return kTorch;
  if (dialect == "mindspore") return kMindspore;
  if (dialect == "paddle") return kPaddle;
  return kDefault;
}

Roles roles_of(const OpSpec& op) {
  Roles r;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::InPlace && !r.data) r.data = &o;
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Read && !r.data) r.data = &o;
  for (const OperandSpec& o : op.operands) {
    if (o.role == OperandRole::Index && !r.index) r.index = &o;
    if (!o.or_arg.empty() && !r.source) r.source = &o;
  }
  for (const OperandSpec& o : op.operands)
    if (o.role == OperandRole::Read && &o != r.data && !r.source) r.source = &o;
  // An ND scatter into a fresh tensor of a `shape` argument (mindspore.scatter_nd)
  // has no data operand: its updates are both.
  if (!r.source && op.family == ShapeFamily::ScatterND && op.arg("shape")) r.source = r.data;
  const bool needs_source = family_gen(op).source == FamilyGen::Source::Required;
  if (!r.data || !r.index || (needs_source && !r.source))
    throw std::logic_error("op table entry " + op.id + " lacks the operands its shape family needs");
  return r;
}

// The axis of a Gather / ScatterElements op: its first Int argument (dim).
const ArgSpec* axis_arg(const OpSpec& op) {
  for (const ArgSpec& a : op.args)
    if (a.type == Arg::Type::Int) return &a;
  return nullptr;
}

// ONNX's opset and reduction: the opset absent (the table's default, the
// latest) half the time, else one of the op's versions, or (1 in 20)
// one below the first (an error); reduction absent or none 3 times in 5,
// else add / mul / max / min whatever the opset (invalid below 16 / 18),
// or (1 in 20) a string ONNX does not define.
void draw_onnx_args(Choices& c, const OpSpec& op, OpCall& call) {
  const std::vector<int64_t>& opsets = op.opsets;  // the schema versions (op_table.h)
  if (const ArgSpec* opset = op.arg("opset"); opset && !opsets.empty() && c.chance(50)) {
    int64_t v = opsets[c.below(static_cast<uint32_t>(opsets.size()))];
    if (c.chance(5)) v = c.below(2) ? opsets.front() - 1 : 1;
    call.set_arg(opset->name, Arg::of_int(v));
  }
  if (const ArgSpec* reduction = op.arg("reduction")) {
    const uint32_t r = c.below(20);
    if (r < 8) return;
    if (r < 12) {
      call.set_arg(reduction->name, Arg::of_string("none"));
    } else if (r < 19) {
      static constexpr std::array<const char*, 4> kReductions = {"add", "mul", "max", "min"};
      call.set_arg(reduction->name, Arg::of_string(kReductions[c.below(kReductions.size())]));
    } else {
      const std::vector<std::string> invalid = invalid_strings(*reduction);
      call.set_arg(reduction->name, Arg::of_string(invalid[c.below(static_cast<uint32_t>(invalid.size()))]));
    }
  }
}

}  // namespace sp::fuzz::gen
