// op_table.h — the one table of documented ops. Everything that needs to
// know an op reads it here: the spec loader and the JSON Schema (the op ids,
// operand names and argument types), the case writer, `list` and `explain`,
// the fuzz case generator, the runner's signature check, the plugin host and
// the process protocol (arguments travel as named, typed values), and every
// backend (which declares the op ids it implements; every other op is
// unsupported for it).
//
// Adding an op: one entry in op_table_entries.cc (PyTorch ops:
// op_table_torch.cc), written with designated initializers and naming its
// reference function (declared beside the entries); one reference file, its
// specs, and one kernel file per backend that implements it. Per-op facts
// live in the entry: the output shape rule (OpSpec::output_shape, the
// families' rules in output_shapes.h), ONNX schema versions
// (OpSpec::opsets), an in-place op's out-of-place twin (torch_pair sets
// OpSpec::twin; backends register both with OpKernels::add_twins) and the
// backward op (`differentiable` marks the operands; `<id>.backward` is
// derived, and backends register it with OpKernels::add_backward).
//
// Thread-safety: the table is built once (thread-safe static) and immutable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/dtype.h"
#include "reference/expectation.h"
#include "reference/op_call.h"

namespace sp {

// A set of dtypes (bit i: the DType with underlying value i).
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> types) {
    for (DType t : types) bits_ |= 1u << static_cast<unsigned>(t);
  }
  static constexpr DTypeSet all() {
    DTypeSet s;
    s.bits_ = (1u << kNumDTypes) - 1;
    return s;
  }
  constexpr bool contains(DType t) const { return (bits_ >> static_cast<unsigned>(t)) & 1u; }
  std::vector<DType> members() const;
  std::string describe() const;  // "int32, int64" / "every dtype"

 private:
  uint32_t bits_ = 0;
};

enum class OperandRole {
  Read,     // read only (input, src, updates, x)
  Index,    // read only, holds indices
  InPlace,  // read, then written in place (self of an in-place op)
  // PyTorch's `out=`: optional; when the case passes it, the result is
  // written into it (resized first when its shape is not the result's).
  // Its rules (dtype, overlap with the operands) are reference/torch_out.cc's.
  Out,
};
std::string_view operand_role_name(OperandRole r);  // "read", "index", "in place", "out"

struct OperandSpec {
  std::string name;  // the framework's own parameter name
  OperandRole role = OperandRole::Read;
  // The dtypes the document allows (other dtypes are still representable:
  // the reference answers them, usually with an error).
  DTypeSet dtypes = DTypeSet::all();
  // Non-empty: the case passes either this tensor or the scalar argument of
  // this name, exactly one (scatter_'s src / value).
  std::string or_arg;
  // Role Out: operands the out tensor may be the very same view of (same
  // storage, offset, shape and strides) because the op reads them only at
  // out's own positions (gather's index); see T-OUT5.
  std::vector<std::string> out_may_be;
  // Whether the op's output has a documented gradient with respect to this
  // operand: the op's backward (`<id>.backward`) answers grad_<name> for it.
  bool differentiable = false;
};

struct ArgSpec {
  std::string name;  // the framework's own parameter name
  Arg::Type type = Arg::Type::Int;
  bool required = false;
  // What the op uses when the argument is not passed (nullopt: absent means
  // "not given", e.g. scatter_'s reduce=None).
  std::optional<Arg> default_value;
  // String arguments: the documented values. Other strings are valid case
  // input (the reference rejects them as the document says).
  std::vector<std::string> allowed;
};

// How the operands' shapes relate, for the fuzz generator, which builds
// cases family by family with the table's operand and argument names.
enum class ShapeFamily {
  Gather,           // out[...] = input[... index ... ]: index like input, free along dim
  ScatterElements,  // self[... index ...] = src[...]: index <= src, index <= self apart from dim
  RowScatter,       // x[index[i], ...] = updates[i, ...]: a 1-D index of rows (paddle.scatter)
  // self.index_*_(dim, index, source): a 1-D (or 0-d) index of positions
  // along dim; source (when the op has one) is self's shape with dim
  // replaced by len(index). index_select reads input the same way.
  IndexAlongDim,
  // torch.take_along_dim(input, indices, dim=None): indices has input's rank
  // and broadcasts against input in every dim but dim (size-1 dims on either
  // side); without dim both are read flattened, any shapes.
  TakeAlongDim,
  // ONNX GatherND(data, indices, batch_dims): indices' last dim holds
  // index tuples into data's dims after the batch dims; out is
  // indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:].
  GatherND,
  // ONNX ScatterND(data, indices, updates): updates' shape is
  // indices.shape[:-1] + data.shape[indices.shape[-1]:] (paddle.scatter_nd:
  // data's shape is its `shape` argument).
  ScatterND,
  // StableHLO gather / dynamic_gather(operand, start_indices[, slice_sizes])
  // with dimension numbers (int-list arguments): windows of operand at start
  // index vectors held along index_vector_dim.
  StableHloGather,
  // StableHLO scatter(inputs, scatter_indices, updates): updates' windows
  // written into inputs at start index vectors.
  StableHloScatter,
  // jax.at.*(x, indices[, updates]): indices' last dim k indexes x's leading
  // k dims; get's out and the updates are indices.shape[:-1] + x.shape[k:].
  JaxAt,
};

struct OpSpec;

// How an out-of-place op's output shape follows from its operands: the
// shape of operand `output_shape_of` (`of`) as the rule transforms it, and
// the words `explain` adds after "the shape of <output_shape_of>". The
// rules of the shape families live in reference/output_shapes.h; a rule
// answers nullopt when the operands it needs are missing or the dim is out
// of range.
struct OutputShapeRule {
  // nullptr: `of`'s own shape.
  std::optional<Shape> (*shape)(const OpSpec& op, const OpCall& call, const Tensor& of) = nullptr;
  std::string_view explain;  // "" for `of`'s own shape
};

struct OpSpec {
  std::string id;       // "torch.scatter_reduce_"
  std::string dialect;  // "torch", "mindspore", "paddle", "onnx", "stablehlo", "jax"
  std::string summary;  // one line for `list` / `explain`
  std::string source;   // the document it follows (name, version)
  std::vector<OperandSpec> operands;
  std::vector<ArgSpec> args;
  // ONNX: the versions of the op's schema (the opsets at which its
  // documentation changed, ascending; the first is where the op begins).
  // The `opset` argument (default: the latest) selects the one in force;
  // the fuzz generator draws across them.
  std::vector<int64_t> opsets;
  bool in_place = false;
  // The output: "self" for in-place ops (written into the caller's self),
  // "out" otherwise, a fresh tensor with the shape of operand
  // `output_shape_of` and the dtype of operand `output_dtype_of`.
  std::string output;
  std::string output_shape_of;
  std::string output_dtype_of;
  // The operand whose dtype a backend's supports(op, dtype) is asked about.
  std::string data_operand;
  ShapeFamily family = ShapeFamily::ScatterElements;
  Expectation (*reference)(const OpCall&, Trace*) = nullptr;
  // How `out`'s shape follows from `output_shape_of` (default: its shape).
  OutputShapeRule output_shape;
  // A forward op with a documented backward: its reference (the gradients
  // from the documented rules, reference/*_backward.cc). The table then
  // also holds the backward op `<id>.backward`, derived from this entry.
  Expectation (*backward)(const OpCall&, Trace*) = nullptr;
  // A backward op (`torch.gather.backward`): the forward op it
  // differentiates. Its operands are the forward's (none written; out=
  // left out) plus `grad_output` (the upstream gradient, shaped and typed
  // like the forward's output); its arguments are the forward's; its
  // outputs are the gradients `grad_<operand>`, one per differentiable
  // operand the call passes, in the forward's operand order, each shaped
  // and typed like its operand. A spec case asks for it with a `backward`
  // block (specs/FORMAT.md), never by this id.
  std::string backward_of;
  // A PyTorch op with an in-place and an out-of-place variant: the other
  // one's id (torch.scatter_ <-> torch.scatter); empty otherwise. Backends
  // register the pair from it (OpKernels::add_twins).
  std::string twin;

  const OperandSpec* operand(std::string_view name) const;
  const ArgSpec* arg(std::string_view name) const;
  // The argument as passed, else its default, else nullopt.
  std::optional<Arg> arg_or_default(const OpCall& call, std::string_view name) const;
};

const std::vector<OpSpec>& op_table();
// nullptr for an unknown op id.
const OpSpec* find_op(std::string_view id);
// REQUIRES: a known op id (std::invalid_argument otherwise).
const OpSpec& op_spec(std::string_view id);
// The entry `call` carries (OpCall::spec), else (a call built by hand, or
// one whose op was changed since: a spec whose id is not `call.op` is not
// used) the one its op id names; nullptr / std::invalid_argument for an
// unknown op as above.
const OpSpec* find_op(const OpCall& call);
const OpSpec& op_spec(const OpCall& call);

// The output shape the op table's rule gives for `call` (what a plugin host
// preallocates as "out"); nullopt when the operands it needs are missing or
// the dim is out of range.
std::optional<Shape> output_shape_of(const OpSpec& op, const OpCall& call);

// The backward op of `forward` ("<id>.backward"), or nullptr when the
// forward op has no documented backward.
const OpSpec* backward_op(const OpSpec& forward);
inline constexpr std::string_view kGradOutput = "grad_output";
// The gradients a backward call produces, in output order: the names of the
// differentiable operands the call passes ("src", not "grad_src").
// REQUIRES: a backward op.
std::vector<std::string> grad_operands(const OpSpec& backward, const OpCall& call);
inline std::string grad_name(std::string_view operand) { return "grad_" + std::string(operand); }

// Conveniences over the table.
std::vector<std::string> known_ops();
bool is_known_op(std::string_view op);
bool is_inplace_op(std::string_view op);
bool is_inplace_op(const OpCall& call);
std::string output_name(std::string_view op);  // "self" / "out"
std::string output_name(const OpCall& call);
// The operand `call` writes into: "self" for an in-place op, "out" when an
// out-of-place op is given an out= tensor, else "" (the op returns a fresh
// tensor).
std::string written_operand(const OpCall& call);
// The op's out= operand, or nullptr when it takes none.
const OperandSpec* out_operand(const OpSpec& op);

// Whether `call` fits its op's signature: known op, every required operand
// and argument present, no unknown ones, each argument of its declared type,
// exactly one of an operand and its `or_arg`. Returns the first problem as
// (field, message) — field like "inputs.src" or "args.dim" — or nullopt.
struct SignatureProblem {
  std::string field;
  std::string message;
};
std::optional<SignatureProblem> check_signature(const OpCall& call);
// Where a call enters the system (the spec loader, the fuzz generator, the
// process protocol's decoder): checks its signature once and, when it fits,
// binds the call to its entry (OpCall::spec); otherwise returns the
// problem and leaves the call unbound.
std::optional<SignatureProblem> bind_call(OpCall& call);
// Whether `call`'s signature still needs checking before it runs: it is not
// bound to its op's entry (bind_call).
bool needs_signature_check(const OpCall& call);

}  // namespace sp
