// jax_at.cc — x.at[idx].get / set / add / multiply / min / max (ops
// jax.at.get, jax.at.set, jax.at.add, jax.at.multiply, jax.at.min,
// jax.at.max) with idx integer advanced indexing over x's leading k dims:
// idx = tuple(indices[..., j] for j in range(k)), so
//   get:     out[b..., t...] = x[indices[b..., 0], ..., indices[b..., k-1], t...]
//   updates: x[indices[b..., :], t...] (op)= updates[b..., t...]
// with B = indices.shape[:-1] and the result / update shape
// B + x.shape[k:]. Built on the jax.lax references (reference/jax_lax.cc):
// the call is the lax call JAX makes for it — start_index_map and the
// collapsed / inserted dims 0..k-1, the window x.shape[k:] whole — after
// the negative indices are wrapped.
//
// Checks, in the order they run:
//   JAX-AT1  indices of an integer type (`index_dtype`; a bool array would
//            be a mask, another op), rank >= 1, 1 <= k <= rank(x), or k = 0
//            without a batch (indices of shape [0]: x.at[()], the whole x)
//            (`invalid_argument`: "Too many indices")
//   JAX-AT2  updates broadcast to B + x.shape[k:] (NumPy's rules,
//            `shape_mismatch`); updates of x's dtype (another dtype goes
//            through jnp's promotion with a warning: not modelled,
//            unspecified)
//   then the lax op's (JAX-M1, JAX-F1, JAX-U1, JAX-U2, SH-*).
// Formula: JAX-AT3 wrap_negative_indices (default true): i < 0 becomes
// i + dim once (still negative: out of range); JAX-AT4 mode absent: get
// clips, the updates drop; mode given: lax's (promise_in_bounds out of
// range unspecified, JAX-M5); JAX-AT5 scalar indices into an axis of size 0
// are noted on every answer, JAX-AT6 a signed index dtype whose maximum is
// below an indexed axis's size (wrapping negatives), JAX-AT7 an index value
// outside int32's range. Duplicates: StableHLO's (set: one of the
// writers; add / multiply of floats an interval; min / max exact).
// Source: jax 0.10.2, the jax.numpy.ndarray.at docstring
// (_IndexUpdateHelper) and _IndexUpdateRef's methods.
#include <algorithm>
#include <cstdint>

#include "reference/jax_lax.h"
#include "reference/op_table.h"

namespace sp {

Expectation jax_lax_gather(const OpCall& call, Trace* trace);   // jax_lax.cc
Expectation jax_lax_scatter(const OpCall& call, Trace* trace);  // jax_lax.cc

namespace sh = ref::stablehlo;

namespace {

std::vector<int64_t> iota(int64_t from, int64_t to) {
  std::vector<int64_t> v;
  for (int64_t a = from; a < to; ++a) v.push_back(a);
  return v;
}

// JAX-AT3: the indices as int64, negatives wrapped by their dim when asked.
Tensor normalized(const Tensor& indices, const Tensor& x, bool wrap) {
  Tensor out = Tensor::zeros(DType::Int64, indices.shape());
  sh::for_each_position(indices.shape(), [&](const Shape& at) {
    int64_t v = ref::read_index(indices, at);
    if (wrap && v < 0) v += x.shape()[static_cast<size_t>(at.back())];
    out.set_bits_at(at, bits_from_value(DType::Int64, Value::of_int(v)));
  });
  return out;
}

// updates broadcast to `shape` (NumPy's rules), or nullopt.
std::optional<Tensor> broadcast(const Tensor& u, const Shape& shape) {
  const size_t r = shape.size(), q = static_cast<size_t>(u.rank());
  if (q > r) return std::nullopt;
  for (size_t d = 0; d < q; ++d) {
    const int64_t n = u.shape()[d], m = shape[r - q + d];
    if (n != m && n != 1) return std::nullopt;
  }
  Tensor out = Tensor::zeros(u.dtype(), shape);
  sh::for_each_position(shape, [&](const Shape& at) {
    Shape from(q);
    for (size_t d = 0; d < q; ++d) from[d] = u.shape()[d] == 1 ? 0 : at[r - q + d];
    out.set_bits_at(at, u.bits_at(from));
  });
  return out;
}

bool flag(const OpCall& call, const char* name, bool absent) {
  const auto it = call.args.find(name);
  return it == call.args.end() ? absent : it->second.b;
}

// Whether some axis the indices address (x's first k dims, k =
// indices.shape[-1]) has a size for which `pred` holds.
template <typename Pred>
bool some_indexed_axis(const Tensor& x, const Tensor& indices, Pred pred) {
  if (indices.rank() < 1) return false;
  const int64_t k = std::min(indices.shape().back(), x.rank());
  for (int64_t d = 0; d < k; ++d)
    if (pred(x.shape()[static_cast<size_t>(d)])) return true;
  return false;
}

// JAX-AT5: scalar indices (one tuple, indices of rank 1) into an axis of
// size 0, where every value is out of range.
bool scalar_index_into_an_empty_axis(const Tensor& x, const Tensor& indices) {
  return indices.rank() == 1 && some_indexed_axis(x, indices, [](int64_t n) { return n == 0; });
}

// JAX-AT6: negative indices wrapped (the default) with a signed index dtype
// whose maximum is below the size of an axis it indexes.
bool index_dtype_below_an_axis(const OpCall& call, const Tensor& x, const Tensor& indices) {
  const DType t = indices.dtype();
  return flag(call, "wrap_negative_indices", true) && is_integral(t) && t != DType::Bool && !is_unsigned_int(t) &&
         some_indexed_axis(x, indices, [&](int64_t n) { return n > dtype_int_max(t); });
}

// JAX-AT7: an index value outside int32's range once negatives are wrapped
// (JAX-AT3, normalized()) — jnp converts x.at[]'s indices to int32. A uint64
// past 2^63 reads as its (negative) bit pattern: outside too.
bool index_beyond_int32(const OpCall& call, const Tensor& x, const Tensor& indices) {
  const DType t = indices.dtype();
  if (!is_integral(t) || t == DType::Bool || dtype_size(t) < 4 || t == DType::Int32 || indices.rank() < 1 ||
      indices.shape().back() > x.rank() || indices.numel() == 0)
    return false;
  const Tensor wrapped = normalized(indices, x, flag(call, "wrap_negative_indices", true));
  bool found = false;
  sh::for_each_position(indices.shape(), [&](const Shape& at) {
    const int64_t v = ref::read_index(wrapped, at);
    found = found || (t == DType::UInt64 && ref::read_index(indices, at) < 0) || v < INT32_MIN || v > INT32_MAX;
  });
  return found;
}

Expectation jax_at_answer(const OpCall& call, Trace* trace) {
  const bool get = call.op == "jax.at.get";
  const Tensor& x = *call.tensor("x");
  const Tensor& indices = *call.tensor("indices");
  ref::RuleLog log(trace);
  const bool integral = is_integral(indices.dtype()) && indices.dtype() != DType::Bool;
  log.check(integral, "JAX-AT1", "indices of an integer type", ErrorCategory::IndexDtype,
            "Indexer must have integer type, got " + std::string(dtype_name(indices.dtype())));
  const int64_t k = indices.rank() >= 1 ? indices.shape().back() : 0;
  // k = 0 is x.at[()] (the whole x) only without a batch: indices of shape [0].
  const bool whole = k == 0 && indices.rank() == 1;
  log.check(indices.rank() >= 1 && (k >= 1 || whole) && k <= x.rank(), "JAX-AT1",
            "1 <= indices.shape[-1] <= rank(x), or indices of shape [0] (x.at[()])", ErrorCategory::InvalidArgument,
            "Too many indices: array is " + std::to_string(x.rank()) + "-dimensional, but " + std::to_string(k) +
                " were indexed (indices of shape " + format_index(indices.shape()) + ")");
  if (!log.passed()) return log.error_expectation();
  const int64_t b = indices.rank() - 1, tail = x.rank() - k;
  Shape result(indices.shape().begin(), indices.shape().end() - 1);
  result.insert(result.end(), x.shape().begin() + k, x.shape().end());

  OpCall lax;
  lax.framework_version = call.framework_version;
  for (const char* name : {"mode", "indices_are_sorted", "unique_indices", "fill_value"})
    if (const auto it = call.args.find(name); it != call.args.end()) lax.args.emplace(name, it->second);
  if (!lax.args.count("mode")) lax.set_arg("mode", Arg::of_string(get ? "clip" : "drop"));  // JAX-AT4
  lax.tensors.emplace("operand", x);
  const Tensor starts = normalized(indices, x, flag(call, "wrap_negative_indices", true));
  const Arg indexed = Arg::of_ints(iota(0, k)), window = Arg::of_ints(iota(b, b + tail));
  lax.set_arg(get ? "start_index_map" : "scatter_dims_to_operand_dims", indexed);
  lax.set_arg(get ? "collapsed_slice_dims" : "inserted_window_dims", indexed);
  lax.set_arg(get ? "offset_dims" : "update_window_dims", window);
  Expectation e;
  if (get) {
    std::vector<int64_t> sizes(static_cast<size_t>(k), 1);
    sizes.insert(sizes.end(), x.shape().begin() + k, x.shape().end());
    lax.op = "jax.lax.gather";
    lax.set_arg("slice_sizes", Arg::of_ints(sizes));
    lax.tensors.emplace("start_indices", starts);
    e = jax_lax_gather(lax, trace);
  } else {
    const Tensor& u = *call.tensor("updates");
    const std::optional<Tensor> full = broadcast(u, result);
    log.check(full.has_value(), "JAX-AT2", "updates broadcast to indices.shape[:-1] + x.shape[k:]",
              ErrorCategory::ShapeMismatch,
              "Incompatible types for broadcasting: updates of shape " + format_index(u.shape()) + " to " +
                  format_index(result));
    if (!log.passed()) return log.error_expectation();
    if (u.dtype() != x.dtype())
      return ref::unspecified_expectation("JAX-AT2: updates of " + std::string(dtype_name(u.dtype())) + " into " +
                                              std::string(dtype_name(x.dtype())) +
                                              ": jnp's dtype promotion (with a warning), not modelled",
                                          trace);
    static const std::pair<const char*, const char*> kKinds[] = {{"jax.at.set", "replace"},
                                                                 {"jax.at.add", "add"},
                                                                 {"jax.at.multiply", "multiply"},
                                                                 {"jax.at.min", "minimum"},
                                                                 {"jax.at.max", "maximum"}};
    for (const auto& [id, kind] : kKinds)
      if (call.op == id) lax.set_arg("update_computation", Arg::of_string(kind));
    lax.op = "jax.lax.scatter";
    lax.tensors.emplace("scatter_indices", starts);
    lax.tensors.emplace("updates", *full);
    e = jax_lax_scatter(lax, trace);
  }
  if (!call.args.count("mode") && e.outputs)
    e.notes.push_back({"JAX-AT4", get ? "mode absent: get clips" : "mode absent: the updates drop"});
  return e;
}

}  // namespace

Expectation jax_at(const OpCall& call, Trace* trace) {
  Expectation e = jax_at_answer(call, trace);
  if (scalar_index_into_an_empty_axis(*call.tensor("x"), *call.tensor("indices")))
    e.notes.push_back({"JAX-AT5", "a scalar index into an axis of size 0: out of range, the mode decides"});
  if (index_dtype_below_an_axis(call, *call.tensor("x"), *call.tensor("indices")))
    e.notes.push_back({"JAX-AT6", "an indexed axis longer than the index dtype's maximum: indexed as any other"});
  if (index_beyond_int32(call, *call.tensor("x"), *call.tensor("indices")))
    e.notes.push_back({"JAX-AT7", "an index value outside int32's range: indexed as given"});
  return e;
}

}  // namespace sp
