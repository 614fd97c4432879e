// mindspore_gather_nd.cc — cpu kernel for MindSpore's ops.gather_nd.
//
// Validate (MS-GND2..MS-GND4, the reference's order), resolve every index
// tuple (indices' last dim, any integer dtype) to an element offset into
// input_x, each value in [0, s) (what the page leaves undefined, MS-GND5,
// fails cleanly here), then copy the slices (input_x's dims after k) into a
// contiguous out of shape indices.shape[:-1] ++ input_x.shape[k:].
#include <cstring>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

Outcome gather_nd(CpuContext& cpu, const OpCall& call) {
  const Tensor& input = *call.tensor("input_x");
  const Tensor& indices = *call.tensor("indices");
  const DType it = indices.dtype();
  if (!is_integral(it) || it == DType::Bool)
    return fail(ErrorCategory::IndexDtype, "indices must be an integer tensor");
  if (indices.rank() < 1) return fail(ErrorCategory::InvalidArgument, "indices must have rank >= 1");
  const int64_t k = indices.shape().back(), r = input.rank();
  if (k > r) return fail(ErrorCategory::ShapeMismatch, "indices.shape[-1] must be at most the rank of input_x");
  const Shape lead(indices.shape().begin(), indices.shape().end() - 1);
  Shape out_shape = lead;
  out_shape.insert(out_shape.end(), input.shape().begin() + k, input.shape().end());
  std::vector<int64_t> offsets;
  if (checked_numel(lead) > 0) {
    Shape pos(lead.size(), 0);
    do {
      int64_t off = 0;
      Shape at = pos;
      at.push_back(0);
      for (int64_t j = 0; j < k; ++j) {
        at.back() = j;
        const Value v = indices.value_at(at);
        const int64_t s = input.size(j);
        if ((v.is_unsigned && v.i < 0) || v.i < 0 || v.i >= s)
          return fail(ErrorCategory::IndexOutOfBounds,
                      "indices" + format_index(at) + " is outside [0, " + std::to_string(s) + ")");
        off += v.i * input.stride(j);
      }
      offsets.push_back(off);
    } while (next_index(pos, lead));
  }
  Tensor out = cpu.uninitialized(input.dtype(), out_shape);
  if (checked_numel(out_shape) == 0) return Outcome::of_outputs({out});
  const std::vector<int64_t> slice =
      dim_range_offsets(input.shape(), input.strides(), static_cast<size_t>(k), static_cast<size_t>(r));
  const size_t es = dtype_size(input.dtype());
  const std::byte* src = data(input);
  std::byte* dst = data(out);
  for (size_t n = 0; n < offsets.size(); ++n)
    for (size_t j = 0; j < slice.size(); ++j)
      std::memcpy(dst + (n * slice.size() + j) * es, src + static_cast<size_t>(offsets[n] + slice[j]) * es, es);
  return Outcome::of_outputs({out});
}

}  // namespace

void register_mindspore_gather_nd(CpuOps& ops) { ops.add("mindspore.gather_nd", gather_nd); }

}  // namespace sp::cpu
