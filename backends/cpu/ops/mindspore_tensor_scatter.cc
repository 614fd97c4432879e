// mindspore_tensor_scatter.cc — cpu kernel for MindSpore's seven
// ops.tensor_scatter_* (one kernel; the combiner is the op id's last word,
// tensor_scatter_combiner in reference/dialect_mindspore_nd.h).
//
// Validate with the reference's own rule checks (MS-TS2..MS-TS6,
// reference/dialect_mindspore_nd.h, in its order), resolve every index
// tuple (indices' last dim) to an element offset into out, each value in
// [0, s) (MS-TS8: else index_out_of_bounds; mul drops the tuple, MS-TS9),
// then combine whole slices (input_x's dims after k) in row-major order of
// indices.shape[:-1]: update overwrites (the last writer wins), add / sub /
// mul / div / max / min one correctly rounded op in the element's dtype
// (integers wrap; division truncates; max / min keep a NaN). What the
// pages leave undefined fails cleanly: a bool input_x under a reduction
// (MS-TS7), a 0 divisor or the dtype's minimum divided by -1 (MS-TS12).
#include <cmath>
#include <type_traits>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/element.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/nd_slices.h"
#include "backends/cpu/reduce_ops.h"
#include "reference/dialect_mindspore_nd.h"
#include "reference/op_table.h"

namespace sp::cpu {
namespace {

namespace rules = ref::mindspore_nd_rules;

Outcome fail(ErrorCategory c, const std::string& message) { return Outcome::of_error(c, message); }

std::optional<Outcome> check(const std::string& f, const Tensor& input, const Tensor& indices, const Tensor& updates) {
  ref::RuleLog log(nullptr);
  const bool dtype_ok = rules::indices_int32_or_64(log, "MS-TS2", indices);
  const bool rank_ok = rules::indices_rank_at_least_two(log, "MS-TS3", indices);
  rules::updates_dtype_matches(log, "MS-TS5", input, updates);
  if (rank_ok && rules::tuple_length_within(log, "MS-TS4", indices.shape().back(), input.rank()))
    rules::updates_shape(log, "MS-TS6", input.shape(), indices, updates);
  if (!log.passed()) return fail(log.violations().front().category, log.violations().front().message);
  (void)dtype_ok;
  if (f != "update" && input.dtype() == DType::Bool)
    return fail(ErrorCategory::UnsupportedDtype, "tensor_scatter_" + f + " takes no bool input_x");
  return std::nullopt;
}

// One step of f on the element a with the update b; nullopt for a division
// the kernel refuses (an integer 0 divisor, or the minimum by -1).
template <class E>
std::optional<S<E>> step(const std::string& f, S<E> a, S<E> b) {
  using Storage = S<E>;
  if (f == "update") return b;
  if (f == "add") return E::add_once(a, b);
  if (f == "mul") return E::mul_once(a, b);
  if (f == "max") return combine<E>(Reduce::Amax, a, b);
  if (f == "min") return combine<E>(Reduce::Amin, a, b);
  if constexpr (E::kFloat16Like) {
    const double x = E::load(a), y = E::load(b);
    const double r = f == "sub" ? x - y : x / y;
    if constexpr (std::is_same_v<E, HalfElem>)
      return double_to_half_bits(r);
    else
      return double_to_bf16_bits(r);
  } else if constexpr (std::is_floating_point_v<Storage>) {
    return f == "sub" ? static_cast<Storage>(a - b) : static_cast<Storage>(a / b);
  } else {
    if (f == "sub") {  // a + (-b), -b wrapping: the minimum negates to itself (in the unsigned type, no overflow)
      if constexpr (std::is_same_v<Storage, bool>) {
        return E::add_once(a, b);
      } else {
        using U = std::make_unsigned_t<Storage>;
        return E::add_once(a, static_cast<Storage>(static_cast<U>(U{0} - static_cast<U>(b))));
      }
    }
    if (b == 0) return std::nullopt;
    if constexpr (std::is_signed_v<Storage>)
      if (a == std::numeric_limits<Storage>::min() && b == Storage(-1)) return std::nullopt;
    return static_cast<Storage>(a / b);
  }
}

Outcome tensor_scatter(CpuContext& cpu, const OpCall& call) {
  const std::string f = rules::tensor_scatter_combiner(call.op);
  const Tensor& input = *call.tensor("input_x");
  const Tensor& indices = *call.tensor("indices");
  const Tensor& updates = *call.tensor("updates");
  if (auto e = check(f, input, indices, updates)) return *e;
  Tensor out = cpu.fresh_copy(input);
  const int64_t q = indices.rank(), k = indices.shape().back(), r = input.rank();
  // Every tuple's element offset into out, or -1 for a dropped tuple (mul).
  const NdTuples t = resolve_nd_tuples(out, indices, 0, false, f == "mul");
  if (t.error) return *t.error;
  const std::vector<int64_t>& offsets = t.offsets;
  if (updates.numel() == 0) return Outcome::of_outputs({out});
  const std::vector<int64_t> slice_t =
      dim_range_offsets(out.shape(), out.strides(), static_cast<size_t>(k), static_cast<size_t>(r));
  const std::vector<int64_t> slice_u =
      dim_range_offsets(updates.shape(), updates.strides(), static_cast<size_t>(q - 1), updates.shape().size());
  const std::vector<int64_t> rows_u =
      dim_range_offsets(updates.shape(), updates.strides(), 0, static_cast<size_t>(q - 1));
  bool refused = false;
  dispatch_dtype(out.dtype(), [&](auto elem) {
    using E = decltype(elem);
    auto* a = reinterpret_cast<S<E>*>(data(out));
    const auto* p = reinterpret_cast<const S<E>*>(data(updates));
    for (size_t n = 0; n < offsets.size() && !refused; ++n) {
      if (offsets[n] < 0) continue;  // MS-TS9: dropped
      for (size_t j = 0; j < slice_t.size(); ++j) {
        S<E>& dst = a[offsets[n] + slice_t[j]];
        const std::optional<S<E>> v = step<E>(f, dst, p[rows_u[n] + slice_u[j]]);
        if (!v) {
          refused = true;
          break;
        }
        dst = *v;
      }
    }
  });
  if (refused) return fail(ErrorCategory::InvalidArgument, "integer division by 0 (or the minimum by -1) in updates");
  return Outcome::of_outputs({out});
}

}  // namespace

void register_mindspore_tensor_scatter(CpuOps& ops) {
  for (const char* f : {"update", "add", "sub", "mul", "div", "max", "min"})
    ops.add(std::string("mindspore.tensor_scatter_") + f, tensor_scatter);
}

}  // namespace sp::cpu
