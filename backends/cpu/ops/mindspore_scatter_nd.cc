// mindspore_scatter_nd.cc — cpu kernel for MindSpore's ops.scatter_nd.
//
// Validate (MS-SND2..MS-SND6, the reference's order), then the shared ND
// walk (nd_slices.h): every index tuple (any integer dtype) resolved to an
// element offset into a zero-filled out of `shape` and updates' dtype, each
// value in [0, s) (what the page leaves undefined, MS-SND8, fails cleanly
// here), and the updates' slices added in row-major order of
// indices.shape[:-1] (one correctly rounded add in the dtype; integers wrap,
// bool or).
#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/nd_slices.h"
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
  const int64_t k = indices.shape().back(), q = indices.rank();
  if (k > std::ssize(shape)) return fail(ErrorCategory::ShapeMismatch, "indices.shape[-1] must be at most len(shape)");
  ref::RuleLog log(nullptr);
  if (!ref::mindspore_nd_rules::updates_shape(log, "MS-SND6", shape, indices, updates))
    return fail(ErrorCategory::ShapeMismatch, log.violations().front().message);
  Tensor out = Tensor::zeros(updates.dtype(), shape);
  const NdTuples t = resolve_nd_tuples(out, indices, 0, false);
  if (t.error) return *t.error;
  scatter_nd_slices(out, updates, t, q, k, Reduce::Sum);
  return Outcome::of_outputs({out});
}

}  // namespace

void register_mindspore_scatter_nd(CpuOps& ops) { ops.add("mindspore.scatter_nd", scatter_nd); }

}  // namespace sp::cpu
