// jax_lax_dialect.cc — JAX's modes over the StableHLO dialect (see
// reference/jax_lax.h).
#include <algorithm>

#include "reference/jax_lax.h"
#include "reference/op_table.h"

namespace sp::ref::jax {

namespace sh = ref::stablehlo;

std::optional<Mode> read_mode(RuleLog& log, const OpCall& call, bool scatter) {
  const auto it = call.args.find("mode");
  if (it == call.args.end()) return scatter ? Mode::FillOrDrop : Mode::PromiseInBounds;
  const std::string& m = it->second.s;
  if (m == "clip") return Mode::Clip;
  if (m == "fill" || m == "drop") return Mode::FillOrDrop;
  if (m == "promise_in_bounds") return Mode::PromiseInBounds;
  log.check(false, "JAX-M1", "mode one of clip, fill, drop, promise_in_bounds", ErrorCategory::InvalidArgument,
            "Unknown gather mode \"" + m + "\"");
  return std::nullopt;
}

OpCall to_stablehlo(const OpCall& call, bool scatter) {
  OpCall s;
  s.op = scatter ? "stablehlo.scatter" : "stablehlo.gather";
  s.framework_version = call.framework_version;
  // lax's name -> the spec's name, for the tensors and the arguments passed on.
  static const std::pair<const char*, const char*> kGather[] = {
      {"operand", "operand"},
      {"start_indices", "start_indices"},
      {"offset_dims", "offset_dims"},
      {"collapsed_slice_dims", "collapsed_slice_dims"},
      {"operand_batching_dims", "operand_batching_dims"},
      {"start_indices_batching_dims", "start_indices_batching_dims"},
      {"start_index_map", "start_index_map"},
      {"slice_sizes", "slice_sizes"},
      {"indices_are_sorted", "indices_are_sorted"}};
  static const std::pair<const char*, const char*> kScatter[] = {
      {"operand", "inputs"},
      {"scatter_indices", "scatter_indices"},
      {"updates", "updates"},
      {"update_window_dims", "update_window_dims"},
      {"inserted_window_dims", "inserted_window_dims"},
      {"operand_batching_dims", "input_batching_dims"},
      {"scatter_indices_batching_dims", "scatter_indices_batching_dims"},
      {"scatter_dims_to_operand_dims", "scatter_dims_to_operand_dims"},
      {"indices_are_sorted", "indices_are_sorted"},
      {"unique_indices", "unique_indices"},
      {"update_computation", "update_computation"}};
  auto copy = [&](const auto& names) {
    for (const auto& [from, to] : names) {
      if (const Tensor* t = call.tensor(from)) s.tensors.emplace(to, *t);
      if (const auto it = call.args.find(from); it != call.args.end()) s.args.emplace(to, it->second);
    }
  };
  if (scatter)
    copy(kScatter);
  else
    copy(kGather);
  if (scatter && !s.args.count("update_computation")) s.set_arg("update_computation", Arg::of_string("replace"));
  const Tensor& indices = *s.tensor(scatter ? "scatter_indices" : "start_indices");
  s.set_arg("index_vector_dim", Arg::of_int(indices.rank() - 1));
  return s;
}

namespace {

// The window's size along each operand axis: gather's slice_sizes; scatter's
// updates window dims at the window axes, 1 elsewhere.
Shape window_sizes(const OpCall& sh_call, bool scatter, const sh::DimNumbers& d, int64_t rank) {
  if (!scatter) return d.slice_sizes;
  Shape sizes(static_cast<size_t>(rank), 1);
  const sh::Dims axes = sh::window_axes(rank, d);
  const Tensor& updates = *sh_call.tensor("updates");
  for (size_t w = 0; w < axes.size(); ++w)
    sizes[static_cast<size_t>(axes[w])] = updates.shape()[static_cast<size_t>(d.window_dims[w])];
  return sizes;
}

// The index tensor's batch shape (its shape without the last dim).
Shape batch_shape(const Tensor& indices) { return Shape(indices.shape().begin(), indices.shape().end() - 1); }

}  // namespace

std::vector<bool> windows_in_range(const OpCall& sh_call, bool scatter) {
  const sh::Op op = scatter ? sh::Op::Scatter : sh::Op::Gather;
  const sh::DimNumbers d = sh::read_dims(sh_call, op);
  const Tensor& data = *sh_call.tensor(scatter ? "inputs" : "operand");
  const Tensor& indices = *sh_call.tensor(scatter ? "scatter_indices" : "start_indices");
  const Shape sizes = window_sizes(sh_call, scatter, d, data.rank());
  std::vector<bool> in_range;
  sh::for_each_position(batch_shape(indices), [&](const Shape& b) {
    const sh::StartIndex s = sh::start_index(indices, d, b, data.rank());
    bool ok = true;
    for (int64_t a : d.index_map) {
      const size_t k = static_cast<size_t>(a);
      ok = ok && s.full_start[k] >= 0 && s.full_start[k] <= data.shape()[k] - sizes[k];
    }
    in_range.push_back(ok);
  });
  return in_range;
}

void transform_indices(OpCall& sh_call, bool scatter, Mode mode) {
  const std::string name = scatter ? "scatter_indices" : "start_indices";
  const Tensor& indices = *sh_call.tensor(name);
  if (mode == Mode::PromiseInBounds || (mode == Mode::FillOrDrop && !scatter)) return;
  const sh::Op op = scatter ? sh::Op::Scatter : sh::Op::Gather;
  const sh::DimNumbers d = sh::read_dims(sh_call, op);
  const Tensor& data = *sh_call.tensor(scatter ? "inputs" : "operand");
  const Shape sizes = window_sizes(sh_call, scatter, d, data.rank());
  const std::vector<bool> in_range = windows_in_range(sh_call, scatter);
  Tensor out = Tensor::zeros(DType::Int64, indices.shape());
  size_t n = 0;
  sh::for_each_position(batch_shape(indices), [&](const Shape& b) {
    Shape at = b;
    at.push_back(0);
    for (size_t k = 0; k < d.index_map.size(); ++k) {
      at.back() = static_cast<int64_t>(k);
      const size_t axis = static_cast<size_t>(d.index_map[k]);
      int64_t v = read_index(indices, at);
      if (mode == Mode::Clip) v = std::clamp<int64_t>(v, 0, std::max<int64_t>(data.shape()[axis] - sizes[axis], 0));
      if (mode == Mode::FillOrDrop && !in_range[n]) v = data.shape()[axis];
      out.set_bits_at(at, bits_from_value(DType::Int64, Value::of_int(v)));
    }
    ++n;
  });
  sh_call.tensors.insert_or_assign(name, out);
}

}  // namespace sp::ref::jax
