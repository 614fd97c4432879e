// families_nd.cc — the builders of ONNX's ND families (GatherND,
// ScatterND): index tuples in the index's last dim.
#include <algorithm>

#include "fuzz/gen_detail.h"

namespace sp::fuzz::gen {

namespace {

// An ND index (ONNX GatherND / ScatterND) of `shape` whose last dim holds
// tuples into `data` from dim `first` on: component j bounded by
// data[first + j] (1 past data's rank). Values mostly in [0, s), sometimes
// negative within [-s, 0) (they wrap), rarely s or -s - 1 (out of range);
// one mode repeats a single tuple (every position meets one target) and one
// draws from two values per component (heavy duplicates).
Tensor nd_index_tensor(Choices& c, const Shape& shape, const Shape& data, int64_t first) {
  Tensor out = Tensor::zeros(DType::Int64, shape);
  if (out.numel() == 0) return out;
  const uint32_t mode = c.below(10);
  const int64_t k = shape.back();
  std::vector<int64_t> repeated(static_cast<size_t>(std::max<int64_t>(k, 0)));
  const auto bound = [&](int64_t j) {
    const int64_t d = first + j;
    return d >= 0 && d < static_cast<int64_t>(data.size()) ? data[static_cast<size_t>(d)] : 1;
  };
  for (int64_t j = 0; j < k; ++j) repeated[static_cast<size_t>(j)] = bound(j) == 0 ? 0 : c.between(0, bound(j) - 1);
  Shape idx(shape.size(), 0);
  do {
    const int64_t j = idx.back(), s = bound(j);
    int64_t v = 0;
    if (mode <= 3) {
      v = s == 0 ? 0 : c.between(0, s - 1);
    } else if (mode == 4) {
      v = repeated[static_cast<size_t>(j)];
    } else if (mode == 5) {
      v = c.below(2) ? std::max<int64_t>(s - 1, 0) : (c.below(2) ? 0 : -1);
    } else if (mode <= 7) {
      v = s == 0 ? 0 : c.between(-s, s - 1);
    } else {
      switch (c.below(20)) {
        case 16:
          v = -s;
          break;
        case 17:
          v = s - 1;
          break;
        case 18:
          v = s;
          break;
        case 19:
          v = -s - 1;
          break;
        default:
          v = s == 0 ? 0 : c.between(0, s - 1);
      }
    }
    out.set_bits_at(idx, bits_from_value(DType::Int64, Value::of_int(v)));
  } while (next_index(idx, shape));
  return out;
}

// The drawn values in an index dtype drawn for the operand: int64 as they
// are; int32 converted where the operand documents int32 (MindSpore's and
// Paddle's ND ops); any other dtype (an index dtype error) zeros.
Tensor nd_index_of_dtype(Choices& c, const OperandSpec& index, Tensor values) {
  const DType t = pick_dtype_for(c, index);
  if (t == DType::Int64) return values;
  Tensor out = Tensor::zeros(t, values.shape());
  if (t != DType::Int32 || !index.dtypes.contains(DType::Int32) || values.numel() == 0) return out;
  Shape idx(values.shape().size(), 0);
  do out.set_bits_at(idx, bits_from_value(t, values.value_at(idx)));
  while (next_index(idx, values.shape()));
  return out;
}

// A few leading index dims (0 to 2 of them, sizes 0..3), kept small.
Shape nd_lead_dims(Choices& c) {
  Shape lead(c.below(3));
  for (auto& d : lead) d = c.chance(8) ? 0 : c.between(1, 3);
  return lead;
}

}  // namespace

// ONNX GatherND(data, indices, batch_dims): indices.shape = data[:b] ++
// lead ++ [k], k in [1, r - b]; sometimes batch_dims outside [0, min(q, r)),
// a batch dim that differs, k of 0 or r - b + 1, or an index dtype other
// than int64 (errors). batch_dims absent half the time it is 0.
void gather_nd_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  int64_t rank = pick_rank(c);
  if (rank == 0 && !c.chance(30)) rank = 1;  // rank 0 is an error: keep it rarer
  if (rank > 4 && !c.chance(30)) rank = 3;
  Shape data_shape = data_shape_of_rank(c, rank);
  int64_t b = 0;
  const bool has_batch_dims = g.op.arg("batch_dims") != nullptr;  // MindSpore's and Paddle's gather_nd have none
  if (has_batch_dims && rank >= 2 && c.chance(35)) b = c.between(1, rank - 1);
  if (has_batch_dims && c.chance(4)) b = c.below(2) ? -1 : rank;  // outside [0, min(q, r)): an error
  const int64_t room = std::max<int64_t>(rank - std::max<int64_t>(b, 0), 0);
  int64_t k = room == 0 ? 1 : c.between(1, room);
  if (c.chance(4)) k = c.below(2) ? 0 : room + 1;  // an error
  Shape index_shape;
  for (int64_t d = 0; d < b && d < rank; ++d) index_shape.push_back(data_shape[static_cast<size_t>(d)]);
  if (b > 0 && c.chance(5)) index_shape[c.below(static_cast<uint32_t>(index_shape.size()))] += 1;  // batch mismatch
  for (int64_t d : nd_lead_dims(c)) index_shape.push_back(d);
  // Many batch dims and lead dims could pass the generator's rank bound.
  while (std::ssize(index_shape) > kMaxGeneratedRank) index_shape.pop_back();
  index_shape.push_back(k);
  clamp_numel(index_shape);
  if (has_batch_dims && (b != 0 || c.chance(50))) g.call.set_arg("batch_dims", Arg::of_int(b));
  g.put(*g.roles.data, data_tensor(c, t, data_shape));
  Tensor indices = nd_index_tensor(c, index_shape, data_shape, std::max<int64_t>(b, 0));
  g.put(*g.roles.index, nd_index_of_dtype(c, *g.roles.index, std::move(indices)));
}

namespace {

// MindSpore scatter_nd(indices, updates, shape): no data tensor; shape (P
// dims, mostly >= 1) drawn as the int-list argument, indices.shape = lead ++
// [k] with lead mostly non-empty, k in [1, P]; updates.shape = lead ++
// shape[k:]. Sometimes an empty shape or a 0 in it, k of 0 or P + 1, a
// 1-D indices or updates one off (errors, or k = 0 the whole tensor).
void shape_scatter_nd_case(Draw& g) {
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  int64_t rank = pick_rank(c);
  if (rank == 0 && !c.chance(30)) rank = 1;  // an empty shape is an error: keep it rarer
  if (rank > 4 && !c.chance(30)) rank = 3;
  Shape shape = data_shape_of_rank(c, rank);
  for (auto& d : shape)
    if (d == 0 && !c.chance(10)) d = 1;  // a 0 in shape is an error
  int64_t k = rank == 0 ? 1 : c.between(1, rank);
  if (c.chance(6)) k = c.below(2) && rank <= 4 ? 0 : rank + 1;  // k = 0 keeps updates' rank bounded
  Shape lead = nd_lead_dims(c);
  if (lead.empty() && !c.chance(10)) lead.push_back(c.between(1, 3));  // a 1-D indices is an error
  Shape index_shape = lead;
  index_shape.push_back(k);
  clamp_numel(index_shape);
  Shape updates_shape(index_shape.begin(), index_shape.end() - 1);
  for (int64_t d = std::min(k, rank); d < rank; ++d) updates_shape.push_back(shape[static_cast<size_t>(d)]);
  clamp_numel(updates_shape);
  if (!updates_shape.empty() && c.chance(5)) {
    const size_t d = c.below(static_cast<uint32_t>(updates_shape.size()));
    updates_shape[d] = std::max<int64_t>(0, updates_shape[d] + (c.below(2) ? 1 : -1));
  }
  g.call.set_arg("shape", Arg::of_ints(std::vector<int64_t>(shape.begin(), shape.end())));
  g.put(*g.roles.index, nd_index_of_dtype(c, *g.roles.index, nd_index_tensor(c, index_shape, shape, 0)));
  g.put(*g.roles.data, data_tensor(c, t, updates_shape));
}

}  // namespace

// ONNX ScatterND(data, indices, updates): indices.shape = lead ++ [k], k in
// [1, r]; updates.shape = lead ++ data[k:], its dtype data's; sometimes k of
// r + 1, updates one off in a dim or of another rank or dtype (errors).
// paddle.scatter_nd_add(x, index, updates) the same, and sometimes k = 0;
// paddle.scatter_nd(index, updates, shape) too, data's shape as `shape`
// (sometimes with a -1: an error).
void scatter_nd_case(Draw& g) {
  // mindspore.scatter_nd draws its shape argument first; paddle.scatter_nd
  // takes ScatterND's draw below with data's shape as its argument.
  if (g.op.arg("shape") && g.op.dialect == "mindspore") return shape_scatter_nd_case(g);
  Choices& c = g.c;
  const DType t = pick_dtype_for(c, *g.roles.data);
  int64_t rank = pick_rank(c);
  if (rank == 0 && !c.chance(30)) rank = 1;
  if (rank > 4 && !c.chance(30)) rank = 3;
  Shape data_shape = data_shape_of_rank(c, rank);
  int64_t k = rank == 0 ? 1 : c.between(1, rank);
  if (c.chance(4)) k = rank + 1;                 // an error
  if (!g.op.arg("opset") && c.chance(8)) k = 0;  // paddle: each tuple addresses the whole of x
  const Shape lead = nd_lead_dims(c);
  Shape index_shape = lead;
  index_shape.push_back(k);
  clamp_numel(index_shape);
  Shape updates_shape(index_shape.begin(), index_shape.end() - 1);
  for (int64_t d = std::min(k, rank); d < rank; ++d) updates_shape.push_back(data_shape[static_cast<size_t>(d)]);
  clamp_numel(updates_shape);
  if (!updates_shape.empty() && c.chance(5)) {
    const size_t d = c.below(static_cast<uint32_t>(updates_shape.size()));
    updates_shape[d] = std::max<int64_t>(0, updates_shape[d] + (c.below(2) ? 1 : -1));
  }
  if (c.chance(3)) updates_shape = change_rank(c, updates_shape);
  if (g.op.arg("shape")) {  // paddle.scatter_nd: no data operand, data's shape is the `shape` argument
    std::vector<int64_t> shape(data_shape.begin(), data_shape.end());
    if (!shape.empty() && c.chance(20)) shape[c.below(static_cast<uint32_t>(shape.size()))] = -1;  // an error
    g.call.set_arg("shape", Arg::of_ints(shape));
    g.put(*g.roles.index, nd_index_of_dtype(c, *g.roles.index, nd_index_tensor(c, index_shape, data_shape, 0)));
    g.put(*g.roles.data, data_tensor(c, t, updates_shape));  // the data role is updates
    return;
  }
  g.put(*g.roles.data, data_tensor(c, t, data_shape));
  Tensor indices = nd_index_tensor(c, index_shape, data_shape, 0);
  g.put(*g.roles.index, nd_index_of_dtype(c, *g.roles.index, std::move(indices)));
  const DType u_t = c.chance(3) ? pick_dtype_for(c, *g.roles.source) : t;
  g.put(*g.roles.source, data_tensor(c, u_t, updates_shape));
}

}  // namespace sp::fuzz::gen
