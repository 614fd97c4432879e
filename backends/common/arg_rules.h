// arg_rules.h — the argument checks our own kernels (cpu, cuda) run before
// any write: one definition shared by both backends, written apart from the
// reference on purpose (so a differential run can catch either one) but in
// the reference's check order: the first violated rule is reported, and the
// reference lists every violated rule, so the categories agree.
// Three pieces of mechanics are shared with the reference rather than
// restated: c10's scalar conversion rules, MindSpore doc_version parsing and
// the table of versioned rules (reference/versions.h: which rule holds for
// the call's OpCall::framework_version, empty = the framework's baseline).
// So are the words: every message comes from the dialect's message table
// (reference/messages_torch.h, messages_mindspore.h, messages_paddle.h), the
// one the reference's checks word their violations from.
// Only checks both backends run live here; index_reduce_'s T-IR3, which only
// the cpu backend runs, sits beside its kernel
// (backends/cpu/ops/torch_index_reduce.cc).
// Index *values* are checked by the backend with a parallel scan
// (kernels.h: find_bad_index) once these shape-level rules pass.
#pragma once

#include <optional>
#include <string>

#include "reference/errors.h"
#include "reference/op_call.h"

namespace sp::backend_rules {

struct Violation {
  ErrorCategory category;
  std::string message;
};

// The versioned rules our kernels follow, asked of ref::rule_holds with the
// call's framework version (std::invalid_argument for an unreadable one).
// T-I2: torch >= 2.8 takes an int32 index for gather, scatter_, scatter,
// scatter_add_, scatter_add, scatter_reduce_ and scatter_reduce (T-I1 before).
bool torch_accepts_int32_index(const OpCall& call);
// T-IA14: torch >= 2.3 compares source's physical shape with self's apart
// from dim (index_add_ / index_reduce_), also for an empty index.
bool torch_index_add_physical_shape(const OpCall& call);
// PD-B3: Paddle >= 3.0 addresses row v + S for an index value v in [-S, 0).
bool paddle_negatives_wrap(const OpCall& call);

// PyTorch's out= (T-OUT1..T-OUT5), checked once the op (run without out)
// gave `result`: nullopt when `result` may be written into call's "out"
// (or, mis-shaped, out is resized: T-OUT6, nothing to check). Overlap is
// memory overlap: any byte of out's elements shared with an operand's,
// except out being the very same view as the operand the op starts from
// (torch.scatter's self) or as one it reads only at out's positions (index
// of gather / index_select / take_along_dim) — our kernels compute into a
// fresh result and then copy, so both are safe.
std::optional<Violation> check_torch_out(const OpCall& call, const Tensor& result);
// torch.gather: T-D1, T-E1, T-I1 (T-I2 from torch 2.8), T-G3, T-G4 (bounds
// T-B1 separately).
std::optional<Violation> check_torch_gather(const OpCall& call);
// The operand rules every PyTorch scatter shares (PyTorch's
// scatter_meta_impl, before its reduce check): T-D1, T-E1, T-I1 (T-I2 from
// torch 2.8), T-K1, T-S2, T-S3, T-S4, T-O1 (in place).
std::optional<Violation> check_torch_scatter_operands(const OpCall& call);
// torch.scatter_/scatter/scatter_add_/scatter_add: the operand rules, then
// T-R1 and T-V1 (bounds T-B1 separately).
std::optional<Violation> check_torch_scatter(const OpCall& call);
// mindspore.scatter_: MS-D1, MS-L1, MS-I1, MS-K1, MS-R1, MS-N2, MS-E1,
// MS-S1, MS-S2, MS-S3, MS-V1. What 003 leaves undefined (overlap, index
// values outside [-s, s), negative values under r2.10+) is reported as an
// error by the backend: the reference allows any outcome there.
std::optional<Violation> check_mindspore_scatter(const OpCall& call);
// paddle.scatter: PD-X1, PD-I1, PD-I2, PD-K1, PD-S1 (bounds PD-B1 and the
// negative values separately: undescribed before Paddle 3.0, PD-B2; wrapped
// from 3.0, PD-B3: paddle_negatives_wrap). Undocumented x dtypes (PD-T1)
// are computed, which the reference allows.
std::optional<Violation> check_paddle_scatter(const OpCall& call);

// torch.index_add_ / torch.index_add: T-D1, T-IA2..T-IA6, T-O1 (in place),
// T-IA7 (empty index), T-IA8, T-IA9 (bounds T-IA10 separately); from torch
// 2.3 T-IA14 right after T-IA6 instead of T-IA8 (empty index too). On success
// *alpha_bits holds alpha converted to self's dtype (unset when an empty
// index skips the conversion).
std::optional<Violation> check_torch_index_add(const OpCall& call, std::optional<uint64_t>* alpha_bits);
// torch.index_copy_ / torch.index_copy: T-D1, T-O1 (in place), T-IC2..T-IC5
// (bounds T-IC7 separately).
std::optional<Violation> check_torch_index_copy(const OpCall& call);
// torch.index_fill_ / torch.index_fill: T-IF2, T-D1, T-IF3, T-IF4 (bounds
// T-IF5 separately). On success *value_bits holds value converted to self's
// dtype.
std::optional<Violation> check_torch_index_fill(const OpCall& call, uint64_t* value_bits);
// T-D1..T-IA8 of index_add_ alone (no alpha): see check_torch_index_add;
// check_torch_index_reduce runs it after T-IR3;
// `shape_when_empty`: an empty index into a rank <= 1 self still checks T-IA8
// (from torch 2.3 T-IA14 replaces both: checked for every index).
std::optional<Violation> check_torch_index_operands(const OpCall& call, bool shape_when_empty);
// torch.index_reduce_ / torch.index_reduce (the cpu and cuda backends): T-IR3
// (reduce, first), then check_torch_index_operands(call, true) (T-IR8: a rank
// <= 1 self checks T-IA8 on an empty index too). Bounds (T-IA10) and the self
// dtype (T-IR4, unspecified for non-floating) are left to the kernels.
std::optional<Violation> check_torch_index_reduce(const OpCall& call);
// torch.index_select: T-D1, T-IS3, T-IS4 in LibTorch 1.13's order; a 0-d
// input with other than one index value, which the reference leaves
// unspecified (T-IS7), is refused as PyTorch 2.x refuses it (bounds T-IS5
// separately, for every index value: T-IS6).
std::optional<Violation> check_torch_index_select(const OpCall& call);
// torch.take_along_dim, in LibTorch 1.13's order: with dim T-TA3 (rank),
// T-TA4 (dtype), T-D1 (dim), T-TA5 (broadcast); without dim T-TA4 (bounds
// T-TA7 separately, only for values read: T-TA6).
std::optional<Violation> check_torch_take_along_dim(const OpCall& call);

// The backward ops (`<forward>.backward`), after the forward's rules and
// its index bounds: every differentiable operand the call passes is
// floating (T-GR2 / PD-GR2), then grad_output has the forward output's
// shape, then its dtype.
std::optional<Violation> check_backward_grads(const OpCall& call, const Shape& output_shape, DType output_dtype);
// The gradient of an operand the forward reads positionally along the index
// (src) needs src.shape == index.shape (002: "backward pass is implemented
// only for src.shape == index.shape"; MindSpore's Note says the same).
std::optional<Violation> check_backward_src_like_index(const Tensor& src, const Tensor& index);
}  // namespace sp::backend_rules
