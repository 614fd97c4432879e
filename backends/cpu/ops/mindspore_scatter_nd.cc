// mindspore_scatter_nd.cc — cpu kernel for MindSpore's ops.scatter_nd.
//
// Validate (MS-SND2..MS-SND6, the reference's order), resolve every index
// tuple (any integer dtype) to an element offset into a zero-filled out of
// `shape` and updates' dtype, each value in [0, s) (what the page leaves
// undefined, MS-SND8, fails cleanly here), then add the updates' slices in
// row-major order of indices.shape[:-1] (one correctly rounded add in the
// dtype; integers wrap, bool or).
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/dialect_mindspore_nd.h"

namespace sp::cpu {
namespace {

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

Outcome scatter_nd(CpuContext&, const OpCall& call) {
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  const std::vector<int64_t> shape_arg = *call.ints_arg("shape");
  const Shape shape(shape_arg.begin(), shape_arg.end());
  const DType it = indices.dtype();
  if (!is_integral(it) || it == DType::Bool)
    return fail(ErrorCategory::IndexDtype, "indices must be an integer tensor");
  if (indices.rank() < 2) return fail(ErrorCategory::InvalidArgument, "indices must have rank >= 2");
  bool shape_ok = !shape.empty();
  for (const int64_t s : shape) shape_ok = shape_ok && s >= 1;
  if (!shape_ok) return fail(ErrorCategory::InvalidArgument, "shape must be non-empty with every element >= 1");
  const int64_t k = indices.shape().back(), p = std::ssize(shape), q = indices.rank();
  if (k > p) return fail(ErrorCategory::ShapeMismatch, "indices.shape[-1] must be at most len(shape)");
  ref::RuleLog log(nullptr);
  if (!ref::mindspore_nd_rules::updates_shape(log, "MS-SND6", shape, indices, updates))
    return fail(ErrorCategory::ShapeMismatch, log.violations().front().message);
  Tensor out = Tensor::zeros(updates.dtype(), shape);
  const Shape lead(indices.shape().begin(), indices.shape().end() - 1);
  if (checked_numel(lead) == 0) return Outcome::of_outputs({out});
  std::vector<int64_t> offsets;
  Shape pos(lead.size(), 0);
  do {
    int64_t off = 0;
    Shape at = pos;
    at.push_back(0);
    for (int64_t j = 0; j < k; ++j) {
      at.back() = j;
      const Value v = indices.value_at(at);
      const int64_t s = shape[static_cast<size_t>(j)];
      if ((v.is_unsigned && v.i < 0) || v.i < 0 || v.i >= s)
        return fail(ErrorCategory::IndexOutOfBounds,
                    "indices" + format_index(at) + " is outside [0, " + std::to_string(s) + ")");
      off += v.i * out.stride(j);
    }
    offsets.push_back(off);
  } while (next_index(pos, lead));
  if (updates.numel() == 0) return Outcome::of_outputs({out});
  const std::vector<int64_t> slice_t =
      dim_range_offsets(out.shape(), out.strides(), static_cast<size_t>(k), static_cast<size_t>(p));
  const std::vector<int64_t> slice_u =
      dim_range_offsets(updates.shape(), updates.strides(), static_cast<size_t>(q - 1), updates.shape().size());
  const std::vector<int64_t> rows_u =
      dim_range_offsets(updates.shape(), updates.strides(), 0, static_cast<size_t>(q - 1));
  dispatch_dtype(out.dtype(), [&](auto elem) {
    using E = decltype(elem);
    auto* a = reinterpret_cast<S<E>*>(data(out));
    const auto* u = reinterpret_cast<const S<E>*>(data(updates));
    for (size_t n = 0; n < offsets.size(); ++n)
      for (size_t j = 0; j < slice_t.size(); ++j) {
        S<E>& dst = a[offsets[n] + slice_t[j]];
        dst = E::add_once(dst, u[rows_u[n] + slice_u[j]]);
      }
  });
  return Outcome::of_outputs({out});
}

}  // namespace

void register_mindspore_scatter_nd(CpuOps& ops) { ops.add("mindspore.scatter_nd", scatter_nd); }

}  // namespace sp::cpu
