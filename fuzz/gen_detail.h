// gen_detail.h — the case generator's parts (fuzz/case_gen.h), shared by
// its files: the value and tensor draws (gen_values.cc), argument draws,
// dialect knobs and operand roles (gen_args.cc), the shape family builders
// (families.cc, families_nd.cc) and generate_call itself (case_gen.cc).
// Internal to fuzz/: nothing outside the generator includes it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/case_gen.h"
#include "reference/op_table.h"

namespace sp::fuzz::gen {

// Dtypes in order of simplicity: choice 0 is int64. The unsigned 16/32/64
// kinds come last, so the first ten keep the choices they had before.
constexpr std::array<DType, kNumDTypes> kDTypeOrder = {
    DType::Int64, DType::Float32, DType::Float64, DType::Int32,  DType::Float16, DType::BFloat16, DType::Int16,
    DType::Int8,  DType::UInt8,   DType::Bool,    DType::UInt16, DType::UInt32,  DType::UInt64};
static_assert(kDTypeOrder[kNumDTypes - 1] == DType::UInt64 && kDTypeOrder[9] == DType::Bool);
// The ten dtypes before uint16/32/64 (kAllDTypes' first ten as well): what
// an op that documents none of those draws as "any dtype".
inline constexpr int kDTypesBeforeWideUnsigned = 10;
static_assert(kAllDTypes[kDTypesBeforeWideUnsigned] == DType::UInt16);
constexpr bool is_wide_unsigned(DType t) { return t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64; }
// Any dtype for an operand of `op` (an out= of another dtype, a gradient's
// dtype): uint16/32/64 only where one of op's operands documents them.
DType any_dtype_for(Choices& c, const OpSpec& op);

// The element limit of the call being generated: kMaxGeneratedElements, or
// kMaxLargeElements in the large tier (set by generate_call_for).
extern thread_local int64_t t_max_elements;
extern thread_local bool t_large;
// The tier's value reserved for the row-shaped large draws (kRowShapedTier):
// the families that have one (families.cc: row_shaped) make the call large.
extern thread_local bool t_row_shaped;
// Whether the call being built is a row-shaped large draw: t_row_shaped, or
// `percent` of the large tier's calls. Makes the call large.
bool row_shaped(Choices& c, uint32_t percent);

// Values, shapes and tensors (gen_values.cc).
int64_t pick_rank(Choices& c);
int64_t pick_size(Choices& c);
Shape pick_shape(Choices& c, int64_t rank);
void clamp_numel(Shape& s);
Shape data_shape_of_rank(Choices& c, int64_t rank);
int64_t size_upto(Choices& c, int64_t limit);
int64_t zigzag(uint32_t v);  // 0, 1, -1, 2, -2, ...
Tensor data_tensor(Choices& c, DType t, const Shape& shape);
Tensor index_tensor(Choices& c, DType t, const Shape& shape, int64_t s, bool negatives_valid);
Tensor with_layout(Choices& c, Tensor t, bool read_only = true);
Shape change_rank(Choices& c, Shape s);
int64_t pick_dim(Choices& c, int64_t rank);

// Scalars, index shapes, dtypes and arguments (gen_args.cc).
Scalar pick_value(Choices& c);
Shape index_shape_within(Choices& c, const Shape& limit, int64_t free_dim);
DType pick_dtype_for(Choices& c, const OperandSpec& operand, std::optional<DType> also = std::nullopt);
void draw_arg(Choices& c, const ArgSpec& arg, OpCall& call);
void draw_onnx_args(Choices& c, const OpSpec& op, OpCall& call);

// What a dialect changes in how cases are drawn, keyed by OpSpec::dialect;
// an unknown dialect gets the defaults.
struct DialectKnobs {
  // Drawn into OpCall::framework_version (choice 0, the baseline, first);
  // empty: none is set. Each versioned rule of the dialect
  // (reference/versions.h) has versions drawn on both sides of its bound.
  std::vector<std::string> framework_versions;
  // PyTorch addresses a 0-d tensor as shape [1]: dim 0 and index [] valid.
  bool rank0_as_one = false;
  // MindSpore's MS-S3 bounds index.size(d) by self.size(d) for every d,
  // dim included; PyTorch lets the index run longer along dim.
  bool index_bounded_along_dim = false;
  // Whether index values in [-s, 0) are in range, for a framework version.
  bool (*negatives_in_range)(const std::string& framework_version) = nullptr;
  // Whether the gather and scatter families take an int32 index beyond the
  // op table's dtypes, for a framework version: then int32 is drawn as often
  // as a documented dtype.
  bool (*int32_index_valid)(const std::string& framework_version) = nullptr;
  // ONNX ScatterElements: updates has exactly indices' shape (PyTorch's src
  // may be larger in every dim); one dim is sometimes one off (an error).
  bool source_shape_is_index = false;
  // ONNX: the op's opset is an argument (`opset`), drawn across the op's
  // versions (OpSpec::opsets), and `reduction` is drawn against it.
  bool opset_argument = false;
};
const DialectKnobs& knobs_for(std::string_view dialect);

// The operands a family builds, by role in the op table: the data operand
// (written in place, else the first read one), the index, and the source of
// the values (the operand with an or_arg alternative, else the other read
// operand; null for gathers).
struct Roles {
  const OperandSpec* data = nullptr;
  const OperandSpec* index = nullptr;
  const OperandSpec* source = nullptr;
};
Roles roles_of(const OpSpec& op);
// The axis of a Gather / ScatterElements op: its first Int argument (dim).
const ArgSpec* axis_arg(const OpSpec& op);

struct Draw;
// How the generator builds the cases of one shape family (OpSpec::family):
// its builder and what the generator needs to know around it. One entry per
// family in family_gen() (fuzz/families.cc): an op of a new family adds
// its builder and its entry there, and nothing in generate_call_for.
struct FamilyGen {
  void (*build)(Draw& g) = nullptr;
  // Whether the family needs a source of values (the operand with an or_arg
  // alternative, else the other read operand): Optional for a family whose
  // ops may have none (index_fill_'s value is an argument, index_select
  // reads only).
  enum class Source { None, Optional, Required } source = Source::Required;
  // Whether the builder draws the op's first Int argument as the axis (dim)
  // with the shapes.
  bool axis = true;
  // Another argument the builder draws itself ("" none).
  std::string_view own_arg;
};
const FamilyGen& family_gen(const OpSpec& op);

// What the family builders share: the op, its roles, the dialect's knobs,
// and the call being built.
struct Draw {
  Choices& c;
  const OpSpec& op;
  const Roles roles;
  const DialectKnobs& knobs;
  bool negatives_valid;
  OpCall& call;

  // Draws dim for a tensor of `rank` (as the dialect counts it), sets the
  // axis argument, and returns it normalized (possibly still out of range).
  int64_t draw_dim(int64_t rank) {
    const int64_t d = pick_dim(c, rank);
    if (const ArgSpec* axis = axis_arg(op)) call.set_arg(axis->name, Arg::of_int(d));
    return d < 0 ? d + rank : d;
  }
  void put(const OperandSpec& operand, Tensor t) {
    call.tensors[operand.name] =
        with_layout(c, std::move(t), operand.role == OperandRole::Read || operand.role == OperandRole::Index);
  }
  // The gather and scatter families' index dtype: int32 counts as documented
  // where the call's version takes it (torch >= 2.8, T-I2).
  DType element_index_dtype() {
    const bool int32 = knobs.int32_index_valid && knobs.int32_index_valid(call.framework_version);
    return pick_dtype_for(c, *roles.index, int32 ? std::optional<DType>(DType::Int32) : std::nullopt);
  }
};

// The shape family builders (families.cc, families_nd.cc).
void gather_case(Draw& g);
void scatter_elements_case(Draw& g);
void row_scatter_case(Draw& g);
void index_along_dim_case(Draw& g);
void take_along_dim_case(Draw& g);
void gather_nd_case(Draw& g);
void scatter_nd_case(Draw& g);
void stablehlo_gather_case(Draw& g);   // families_stablehlo.cc
void stablehlo_scatter_case(Draw& g);  // families_stablehlo.cc
void jax_at_case(Draw& g);             // families_jax.cc

}  // namespace sp::fuzz::gen
