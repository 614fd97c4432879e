// reduce_ops.cc — see reduce_ops.h.
#include "backends/cuda/reduce_ops.h"

#include <limits>
#include <optional>
#include <string>

#include "backends/common/arg_rules.h"
#include "reference/op_table.h"

namespace sp::cuda {

using call_support::fail;
using call_support::meta_or_refuse;
using call_support::OpContext;
using call_support::operand;

namespace {

// A reduce name of scatter_reduce / index_reduce: its write mode and
// whether it is a mean (an add, then the division).
struct Reduction {
  WriteMode mode;
  bool mean;
};

std::optional<Reduction> parse_reduction(const std::string& s) {
  if (s == "sum") return Reduction{WriteMode::Add, false};
  if (s == "prod") return Reduction{WriteMode::Multiply, false};
  if (s == "mean") return Reduction{WriteMode::Add, true};
  if (s == "amax") return Reduction{WriteMode::Max, false};
  if (s == "amin") return Reduction{WriteMode::Min, false};
  return std::nullopt;
}

template <class I>
uint64_t int_identity(WriteMode mode) {
  const I v = mode == WriteMode::Multiply ? I{1}
              : mode == WriteMode::Max    ? std::numeric_limits<I>::lowest()
              : mode == WriteMode::Min    ? std::numeric_limits<I>::max()
                                          : I{0};
  return static_cast<uint64_t>(static_cast<std::make_unsigned_t<I>>(v));
}

// The reduce's settings on `job`: mode, mean, and include_self=False's
// identity fill (a mean's identity is add's, 0).
void set_reduction(ScatterJob& job, const Reduction& r, bool include_self) {
  job.mode = r.mode;
  job.mean = r.mean;
  job.mean_counts_self = include_self;
  job.fill_targets_first = !include_self;
  job.fill_bits = identity_bits(job.dtype, r.mode);
}

}  // namespace

uint64_t identity_bits(DType t, WriteMode mode) {
  // Bits of 1, -inf and +inf per floating kind.
  struct FloatBits {
    uint64_t one, minus_inf, plus_inf;
  };
  const auto floating = [mode](FloatBits b) {
    return mode == WriteMode::Multiply ? b.one
           : mode == WriteMode::Max    ? b.minus_inf
           : mode == WriteMode::Min    ? b.plus_inf
                                       : uint64_t{0};
  };
  switch (t) {
    case DType::Bool:
      return mode == WriteMode::Multiply || mode == WriteMode::Min ? 1 : 0;
    case DType::UInt8:
      return int_identity<uint8_t>(mode);
    case DType::Int8:
      return int_identity<int8_t>(mode);
    case DType::Int16:
      return int_identity<int16_t>(mode);
    case DType::Int32:
      return int_identity<int32_t>(mode);
    case DType::Int64:
      return int_identity<int64_t>(mode);
    case DType::Float16:
      return floating({0x3c00, 0xfc00, 0x7c00});
    case DType::BFloat16:
      return floating({0x3f80, 0xff80, 0x7f80});
    case DType::Float32:
      return floating({0x3f800000, 0xff800000, 0x7f800000});
    case DType::Float64:
      return floating({0x3ff0000000000000, 0xfff0000000000000, 0x7ff0000000000000});
    case DType::UInt16:
      return int_identity<uint16_t>(mode);
    case DType::UInt32:
      return int_identity<uint32_t>(mode);
    case DType::UInt64:
      return int_identity<uint64_t>(mode);
  }
  return 0;
}

// self[.., index[p], ..] = reduce(self's value if include_self, src[p] for
// every position p pointing at it); untouched elements keep self's bits.
// Checks: PyTorch's scatter operand rules (arg_rules.h), then the reduce
// name, then bool's missing mean (LibTorch 1.13: unsupported_dtype, as
// cpu); index values by the validation pass, before any write.
Outcome torch_scatter_reduce(const OpContext& cx, const OpCall& call) {
  if (auto v = backend_rules::check_torch_scatter_operands(call)) fail(v->category, v->message);
  const std::string reduce = *call.string_arg("reduce");
  const std::optional<Reduction> r = parse_reduction(reduce);
  if (!r)
    fail(ErrorCategory::InvalidReduce, "reduce argument must be either sum, prod, mean, amax or amin, got " + reduce);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  const Tensor& src = *call.tensor("src");
  if (r->mean && self.dtype() == DType::Bool)
    fail(ErrorCategory::UnsupportedDtype, "scatter_reduce: reduce 'mean' is not implemented for bool");
  // T-E1: an empty index reads and writes nothing.
  if (index.numel() == 0) return Outcome::of_outputs({is_inplace_op(call) ? self : self.contiguous()});

  const TensorMeta s = meta_or_refuse(self, true), idx = meta_or_refuse(index, true);
  const int64_t dim = *call.int_arg("dim");
  ScatterJob job;
  job.dtype = self.dtype();
  job.index_is_int64 = index.dtype() == DType::Int64;  // else int32 (T-I2, torch >= 2.8)
  job.index = operand(index, idx);
  job.index_for_validation = idx;
  job.has_src = true;
  job.src = operand(src, meta_or_refuse(src, true));
  job.dim = static_cast<int>(dim < 0 ? dim + s.rank : dim);
  job.rule = IndexRule::ZeroBased;
  set_reduction(job, *r, op_spec(call).arg_or_default(call, "include_self")->b);
  return call_support::scatter_into(cx, call, self, job, index, true);
}

// self[.., index[i], ..] = reduce(self's row if include_self, source[.., i, ..]
// for every i naming it): the index_* family's walk (call_support::
// index_family_job) with a reduction. Checks: check_torch_index_reduce
// (T-IR3, then the index_add operand rules), then bool, which LibTorch 1.13
// refuses (T-IR4 leaves non-floating selfs unspecified; integers are
// computed, as cpu does); index values by the validation pass (T-IA10).
Outcome torch_index_reduce(const OpContext& cx, const OpCall& call) {
  if (auto v = backend_rules::check_torch_index_reduce(call)) fail(v->category, v->message);
  const Tensor& self = *call.tensor("self");
  const Tensor& index = *call.tensor("index");
  if (self.dtype() == DType::Bool)
    fail(ErrorCategory::UnsupportedDtype, "index_reduce: only floating point tensors are supported (got bool)");
  if (index.numel() == 0) return Outcome::of_outputs({is_inplace_op(call) ? self : self.contiguous()});
  const Tensor& source = *call.tensor("source");
  const TensorMeta src = meta_or_refuse(source, true), s = meta_or_refuse(self, true);
  const int64_t dim = *call.int_arg("dim");
  ScatterJob job = call_support::index_family_job(call, src, static_cast<int>(dim < 0 ? dim + s.rank : dim));
  job.has_src = true;
  job.src = operand(source, src);
  set_reduction(job, *parse_reduction(*call.string_arg("reduce")),  // checked: prod, mean, amax or amin
                op_spec(call).arg_or_default(call, "include_self")->b);
  return call_support::scatter_into(cx, call, self, job, index, true);
}

}  // namespace sp::cuda
