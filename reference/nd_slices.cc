#include "reference/nd_slices.h"

#include <cstdint>

#include "reference/semantics_common.h"

namespace sp::ref::nd {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

std::optional<std::string> first_out_of_bounds(const Shape& dims, const Tensor& indices, int64_t first_dim,
                                               Negatives negatives) {
  if (indices.numel() == 0) return std::nullopt;
  Shape idx(static_cast<size_t>(indices.rank()), 0);
  do {
    const int64_t j = idx.back(), s = dims[static_cast<size_t>(first_dim + j)];
    const int64_t v = read_index(indices, idx);
    const int64_t lo = negatives == Negatives::Wrap ? -s : negatives == Negatives::Refused ? 0 : INT64_MIN;
    if (v < lo || v > s - 1)
      return "index " + str(v) + " (" + element_text("indices", indices, idx) + ") is out of bounds [" +
             (lo == INT64_MIN ? std::string("..") : str(lo)) + ", " + str(s - 1) + "] for data dimension " +
             str(first_dim + j) + " with size " + str(s);
  } while (next_index(idx, indices.shape()));
  return std::nullopt;
}

void for_each_position(const Shape& shape, const std::function<void(const Shape&)>& visit) {
  for (int64_t s : shape)
    if (s == 0) return;
  Shape idx(shape.size(), 0);
  do visit(idx);
  while (next_index(idx, shape));
}

std::vector<IndexTuple> index_tuples(const Shape& dims, const Tensor& indices, int64_t first_dim) {
  const int64_t k = indices.shape().back();
  const Shape outer(indices.shape().begin(), indices.shape().end() - 1);
  std::vector<IndexTuple> out;
  for_each_position(outer, [&](const Shape& pos) {
    IndexTuple t{pos, {}, 0};
    Shape at = pos;
    at.push_back(0);
    for (int64_t j = 0; j < k; ++j) {
      at.back() = j;
      const int64_t v = read_index(indices, at);
      if (j == 0) t.first_value = v;
      t.tuple.push_back(v < 0 ? v + dims[static_cast<size_t>(first_dim + j)] : v);
    }
    out.push_back(std::move(t));
  });
  return out;
}

Shape slices_shape(const Shape& dims, const Shape& indices, int64_t b) {
  Shape out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), dims.begin() + b + indices.back(), dims.end());
  return out;
}

void gather_slices(OutputBuilder& out, std::string_view name, const Tensor& data, const std::vector<IndexTuple>& tuples,
                   int64_t b) {
  for (const IndexTuple& it : tuples) {
    const int64_t first = b + static_cast<int64_t>(it.tuple.size());
    const Shape slice(data.shape().begin() + first, data.shape().end());
    Shape from(it.pos.begin(), it.pos.begin() + b);
    from.insert(from.end(), it.tuple.begin(), it.tuple.end());
    for_each_position(slice, [&](const Shape& t) {
      Shape at = from, target = it.pos;
      at.insert(at.end(), t.begin(), t.end());
      target.insert(target.end(), t.begin(), t.end());
      out.overwrite(target, data.bits_at(at), WriteOrigin{name, &data, &at, &it.pos, it.first_value});
    });
  }
}

void scatter_slices(OutputBuilder& out, ReduceMode mode, const Tensor& updates, const std::vector<IndexTuple>& tuples,
                    const Shape& dims, int64_t k) {
  const Shape slice(dims.begin() + k, dims.end());
  for (const IndexTuple& it : tuples) {
    for_each_position(slice, [&](const Shape& t) {
      Shape target(it.tuple.begin(), it.tuple.end()), at = it.pos;
      target.insert(target.end(), t.begin(), t.end());
      at.insert(at.end(), t.begin(), t.end());
      const WriteOrigin from{"updates", &updates, &at, &it.pos, it.first_value};
      if (mode == ReduceMode::None)
        out.overwrite(target, updates.bits_at(at), from);
      else
        out.reduce(target, mode, updates.value_at(at), from);
    });
  }
}

}  // namespace sp::ref::nd
