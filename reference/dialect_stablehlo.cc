// dialect_stablehlo.cc — the StableHLO dimension-number rules (see the header).
#include "reference/dialect_stablehlo.h"

#include <algorithm>
#include <set>

#include "reference/op_table.h"

namespace sp::ref::stablehlo {

namespace {

using E = ErrorCategory;

std::string text(const Dims& d) {
  std::string s = "[";
  for (size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + std::to_string(d[k]);
  return s + "]";
}
bool unique(const Dims& d) { return std::set<int64_t>(d.begin(), d.end()).size() == d.size(); }
bool sorted(const Dims& d) { return std::is_sorted(d.begin(), d.end()); }
bool in_range(const Dims& d, int64_t hi) {
  return std::all_of(d.begin(), d.end(), [&](int64_t v) { return v >= 0 && v < hi; });
}
Dims concat(const Dims& a, const Dims& b) {
  Dims c = a;
  c.insert(c.end(), b.begin(), b.end());
  return c;
}
bool contains(const Dims& d, int64_t v) { return std::find(d.begin(), d.end(), v) != d.end(); }
// The size of the index vector: dim(indices, index_vector_dim), or 1 when it is rank(indices).
int64_t index_vector_size(const Tensor& indices, int64_t ivd) {
  return ivd < indices.rank() ? indices.shape()[static_cast<size_t>(ivd)] : 1;
}
int64_t batch_rank(const Tensor& indices, int64_t ivd) { return indices.rank() - (ivd < indices.rank() ? 1 : 0); }

// The rules gather and scatter share, with the names and clause ids of the op.
struct Names {
  std::string window, collapsed, batching, index_batching, index_map, indices;
};

// is_unique / is_sorted / range of one list; returns whether it is in range.
bool list_rules(RuleLog& log, const std::string& name, const Dims& d, int64_t hi, const std::string& unique_clause,
                const std::string& sorted_clause, const std::string& range_clause, const std::string& hi_text) {
  if (!unique_clause.empty())
    log.check(unique(d), unique_clause, name + " " + text(d) + " unique", E::InvalidArgument,
              name + " " + text(d) + " has a repeated dimension");
  if (!sorted_clause.empty())
    log.check(sorted(d), sorted_clause, name + " " + text(d) + " sorted", E::InvalidArgument,
              name + " " + text(d) + " is not sorted");
  return log.check(in_range(d, hi), range_clause, "0 <= " + name + " < " + hi_text, E::DimOutOfRange,
                   name + " " + text(d) + " has a dimension outside [0, " + std::to_string(hi) + ") (" + hi_text + ")");
}

// The batching rules (gather C13-C17, scatter C14-C18): `c0` is the clause
// number of "is_unique(index_batching)".
void batching_rules(RuleLog& log, const std::string& prefix, int c0, const Names& n, const Tensor& operand,
                    const Tensor& indices, const DimNumbers& d, bool batching_ok) {
  auto cl = [&](int k) { return prefix + std::to_string(c0 + k); };
  const bool ib_ok =
      list_rules(log, n.index_batching, d.index_batching, indices.rank(), cl(0), "", cl(1), "rank(" + n.indices + ")");
  log.check(!contains(d.index_batching, d.index_vector_dim), cl(2), "index_vector_dim not in " + n.index_batching,
            E::InvalidArgument,
            "index_vector_dim " + std::to_string(d.index_vector_dim) + " is in " + n.index_batching);
  const bool sizes_ok = log.check(d.batching.size() == d.index_batching.size(), cl(3),
                                  "size(" + n.batching + ") == size(" + n.index_batching + ")", E::InvalidArgument,
                                  n.batching + " and " + n.index_batching + " differ in length");
  if (!batching_ok || !ib_ok || !sizes_ok) return;
  for (size_t k = 0; k < d.batching.size(); ++k) {
    const int64_t a = operand.shape()[static_cast<size_t>(d.batching[k])];
    const int64_t b = indices.shape()[static_cast<size_t>(d.index_batching[k])];
    log.check(a == b, cl(4), "batching dims' sizes equal", E::ShapeMismatch,
              "batching dimension " + std::to_string(k) + ": size " + std::to_string(a) + " of the operand against " +
                  std::to_string(b) + " of " + n.indices);
  }
}

bool indices_integral(RuleLog& log, const std::string& clause_id, const std::string& name, const Tensor& t) {
  return log.check(is_integral(t.dtype()) && t.dtype() != DType::Bool, clause_id, name + " of an integer type",
                   E::IndexDtype,
                   name + " must be a tensor of integer type, not " + std::string(dtype_name(t.dtype())));
}

}  // namespace

std::string clause(Op op, int n) {
  if (op == Op::Scatter) return "SH-S-C" + std::to_string(n);
  if (op == Op::Gather || (n >= 10 && n <= 17)) return "SH-G-C" + std::to_string(n);
  // dynamic_gather's numbering of the same constraints (it has no batching dims).
  static const int kDynamic[24] = {0, 1, 2, 3, 4, 5, 6, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0, 9, 10, 11, 12, 13, 14};
  return "SH-DG-C" + std::to_string(kDynamic[n]);
}

DimNumbers read_dims(const OpCall& call, Op op) {
  const OpSpec& spec = op_spec(call);
  auto ints = [&](const char* name) { return spec.arg_or_default(call, name)->ints; };
  DimNumbers d;
  d.index_vector_dim = spec.arg_or_default(call, "index_vector_dim")->i;
  if (op == Op::Scatter) {
    d.window_dims = ints("update_window_dims"), d.collapsed = ints("inserted_window_dims");
    d.batching = ints("input_batching_dims"), d.index_batching = ints("scatter_indices_batching_dims");
    d.index_map = ints("scatter_dims_to_operand_dims");
    return d;
  }
  d.window_dims = ints("offset_dims"), d.collapsed = ints("collapsed_slice_dims");
  d.index_map = ints("start_index_map");
  if (op == Op::Gather) {
    d.batching = ints("operand_batching_dims"), d.index_batching = ints("start_indices_batching_dims");
    d.slice_sizes = ints("slice_sizes");
  }
  return d;
}

bool check_gather(RuleLog& log, Op op, const Tensor& operand, const Tensor& si, const DimNumbers& d) {
  auto c = [&](int n) { return clause(op, n); };
  const Names n{"offset_dims",     "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
                "start_index_map", "start_indices"};
  const int64_t r = operand.rank(), q = si.rank();
  indices_integral(log, op == Op::Gather ? "SH-G-I2" : "SH-DG-I2", "start_indices", si);
  log.check(static_cast<size_t>(r) == d.window_dims.size() + d.collapsed.size() + d.batching.size(), c(1),
            "rank(operand) = size(offset_dims) + size(collapsed_slice_dims) + size(operand_batching_dims)",
            E::InvalidArgument,
            "rank(operand) " + std::to_string(r) + " is not the number of offset, collapsed and batching dims");
  const bool ivd_ok =
      log.check(d.index_vector_dim >= 0 && d.index_vector_dim <= q, c(2),
                "0 <= index_vector_dim <= rank(start_indices)", E::DimOutOfRange,
                "index_vector_dim " + std::to_string(d.index_vector_dim) + " outside [0, " + std::to_string(q) + "]");
  if (ivd_ok)
    log.check(static_cast<int64_t>(d.index_map.size()) == index_vector_size(si, d.index_vector_dim), c(3),
              "size(start_index_map) = the index vector's size", E::ShapeMismatch,
              "start_index_map " + text(d.index_map) + " does not have one entry per element of the index vector (" +
                  std::to_string(index_vector_size(si, d.index_vector_dim)) + ")");
  const int64_t result_rank =
      (ivd_ok ? batch_rank(si, d.index_vector_dim) : q) + static_cast<int64_t>(d.window_dims.size());
  list_rules(log, n.window, d.window_dims, result_rank, c(4), c(4), c(5), "rank(result)");
  log.check(unique(concat(d.collapsed, d.batching)), c(6), "collapsed_slice_dims and operand_batching_dims unique",
            E::InvalidArgument, "collapsed_slice_dims and operand_batching_dims share or repeat a dimension");
  const bool collapsed_ok = list_rules(log, n.collapsed, d.collapsed, r, "", c(7), c(8), "rank(operand)");
  const bool sizes_ok = log.check(
      static_cast<int64_t>(d.slice_sizes.size()) == r, c(20), "size(slice_sizes) = rank(operand)", E::ShapeMismatch,
      "slice_sizes " + text(d.slice_sizes) + " has not rank(operand) = " + std::to_string(r) + " entries");
  const bool batching_ok = list_rules(log, n.batching, d.batching, r, "", c(10), c(11), "rank(operand)");
  auto at_most_one = [&](const Dims& dims, int number, const std::string& what) {
    for (int64_t a : dims)
      log.check(d.slice_sizes[static_cast<size_t>(a)] <= 1, c(number), "slice_sizes[" + what + "] <= 1",
                E::InvalidArgument, "slice_sizes[" + std::to_string(a) + "] of a " + what + " dimension exceeds 1");
  };
  if (sizes_ok && collapsed_ok) at_most_one(d.collapsed, 9, "collapsed_slice_dims");
  if (sizes_ok && batching_ok) at_most_one(d.batching, 12, "operand_batching_dims");
  batching_rules(log, op == Op::Gather ? "SH-G-C" : "SH-DG-C", 13, n, operand, si, d, batching_ok);
  log.check(unique(concat(d.index_map, d.batching)), c(18), "start_index_map and operand_batching_dims unique",
            E::InvalidArgument, "start_index_map " + text(d.index_map) + " repeats or shares a batching dimension");
  list_rules(log, n.index_map, d.index_map, r, "", "", c(19), "rank(operand)");
  if (sizes_ok)
    for (int64_t a = 0; a < r; ++a) {
      const int64_t s = d.slice_sizes[static_cast<size_t>(a)], dim = operand.shape()[static_cast<size_t>(a)];
      log.check(s >= 0 && s <= dim, c(21), "0 <= slice_sizes <= shape(operand)", E::ShapeMismatch,
                "slice_sizes[" + std::to_string(a) + "] = " + std::to_string(s) + " outside [0, " +
                    std::to_string(dim) + "]");
    }
  return log.passed();
}

bool check_scatter(RuleLog& log, const Tensor& input, const Tensor& si, const Tensor& updates, const DimNumbers& d) {
  auto c = [](int n) { return clause(Op::Scatter, n); };
  const Names n{"update_window_dims",           "inserted_window_dims",
                "input_batching_dims",          "scatter_indices_batching_dims",
                "scatter_dims_to_operand_dims", "scatter_indices"};
  const int64_t r = input.rank(), q = si.rank(), u = updates.rank();
  indices_integral(log, "SH-S-I2", "scatter_indices", si);
  const bool rank_ok =
      log.check(static_cast<size_t>(r) == d.window_dims.size() + d.collapsed.size() + d.batching.size(), c(2),
                "rank(inputs[0]) = size(update_window_dims) + size(inserted_window_dims) + size(input_batching_dims)",
                E::InvalidArgument,
                "rank(inputs) " + std::to_string(r) + " is not the number of window, inserted and batching dims");
  log.check(
      input.dtype() == updates.dtype(), c(6), "element_type(updates) = element_type(inputs)", E::DtypeMismatch,
      "updates is " + std::string(dtype_name(updates.dtype())) + ", inputs " + std::string(dtype_name(input.dtype())));
  const bool window_ok = list_rules(log, n.window, d.window_dims, u, c(7), c(7), c(8), "rank(updates)");
  log.check(unique(concat(d.collapsed, d.batching)), c(9), "inserted_window_dims and input_batching_dims unique",
            E::InvalidArgument, "inserted_window_dims and input_batching_dims share or repeat a dimension");
  const bool inserted_ok = list_rules(log, n.collapsed, d.collapsed, r, "", c(10), c(11), "rank(inputs[0])");
  const bool batching_ok = list_rules(log, n.batching, d.batching, r, "", c(12), c(13), "rank(inputs[0])");
  batching_rules(log, "SH-S-C", 14, n, input, si, d, batching_ok);
  const bool ivd_ok =
      log.check(d.index_vector_dim >= 0 && d.index_vector_dim <= q, c(22),
                "0 <= index_vector_dim <= rank(scatter_indices)", E::DimOutOfRange,
                "index_vector_dim " + std::to_string(d.index_vector_dim) + " outside [0, " + std::to_string(q) + "]");
  if (ivd_ok)
    log.check(static_cast<int64_t>(d.index_map.size()) == index_vector_size(si, d.index_vector_dim), c(19),
              "size(scatter_dims_to_operand_dims) = the index vector's size", E::ShapeMismatch,
              "scatter_dims_to_operand_dims " + text(d.index_map) +
                  " does not have one entry per element of the index vector");
  log.check(unique(concat(d.index_map, d.batching)), c(20),
            "scatter_dims_to_operand_dims and input_batching_dims unique", E::InvalidArgument,
            "scatter_dims_to_operand_dims " + text(d.index_map) + " repeats or shares a batching dimension");
  list_rules(log, n.index_map, d.index_map, r, "", "", c(21), "rank(inputs[0])");
  if (!(rank_ok && ivd_ok && window_ok && inserted_ok && batching_ok)) return log.passed();
  // C4: updates' shape = combine(update_scatter_dim_sizes, update_window_dim_sizes).
  const int64_t nb = batch_rank(si, d.index_vector_dim);
  if (!log.check(u == nb + static_cast<int64_t>(d.window_dims.size()), c(4),
                 "rank(updates) = scatter dims + window dims", E::ShapeMismatch,
                 "updates has rank " + std::to_string(u) + ", not " + std::to_string(nb) + " + " +
                     std::to_string(d.window_dims.size())))
    return log.passed();
  const Dims scatter_dims = other_axes(u, d.window_dims), waxes = window_axes(r, d);
  for (size_t k = 0; k < scatter_dims.size(); ++k) {
    const int64_t want = si.shape()[k < static_cast<size_t>(d.index_vector_dim) ? k : k + 1];
    const int64_t got = updates.shape()[static_cast<size_t>(scatter_dims[k])];
    log.check(got == want, c(4), "update_scatter_dim_sizes = shape(scatter_indices) without index_vector_dim",
              E::ShapeMismatch,
              "updates dim " + std::to_string(scatter_dims[k]) + " has size " + std::to_string(got) +
                  ", scatter_indices gives " + std::to_string(want));
  }
  for (size_t k = 0; k < d.window_dims.size() && k < waxes.size(); ++k) {
    const int64_t got = updates.shape()[static_cast<size_t>(d.window_dims[k])];
    const int64_t bound = input.shape()[static_cast<size_t>(waxes[k])];
    log.check(got <= bound, c(4), "update_window_dim_sizes <= shape(inputs[0]) (window axes)", E::ShapeMismatch,
              "updates window dim " + std::to_string(d.window_dims[k]) + " has size " + std::to_string(got) + " > " +
                  std::to_string(bound) + " of inputs dim " + std::to_string(waxes[k]));
  }
  return log.passed();
}

Dims other_axes(int64_t rank, const Dims& dims) {
  Dims out;
  for (int64_t a = 0; a < rank; ++a)
    if (!contains(dims, a)) out.push_back(a);
  return out;
}

Dims window_axes(int64_t operand_rank, const DimNumbers& d) {
  return other_axes(operand_rank, concat(d.collapsed, d.batching));
}

Shape gather_result_shape(const Tensor& si, const DimNumbers& d) {
  Shape batch;
  for (int64_t a = 0; a < si.rank(); ++a)
    if (a != d.index_vector_dim) batch.push_back(si.shape()[static_cast<size_t>(a)]);
  Shape offsets;
  for (int64_t a : window_axes(static_cast<int64_t>(d.slice_sizes.size()), d))
    offsets.push_back(d.slice_sizes[static_cast<size_t>(a)]);
  const int64_t rank = static_cast<int64_t>(batch.size() + offsets.size());
  Shape result(static_cast<size_t>(rank));
  size_t b = 0, o = 0;
  for (int64_t a = 0; a < rank; ++a)
    result[static_cast<size_t>(a)] = contains(d.window_dims, a) ? offsets[o++] : batch[b++];
  return result;
}

StartIndex start_index(const Tensor& indices, const DimNumbers& d, const Shape& batch_index, int64_t operand_rank) {
  StartIndex s{Shape(static_cast<size_t>(operand_rank), 0), Shape(static_cast<size_t>(operand_rank), 0), {}};
  const int64_t ivd = d.index_vector_dim;
  Shape pos = batch_index;
  if (ivd < indices.rank()) pos.insert(pos.begin() + ivd, 0);
  s.index_pos = pos;
  for (size_t k = 0; k < d.index_map.size(); ++k) {
    if (ivd < indices.rank()) pos[static_cast<size_t>(ivd)] = static_cast<int64_t>(k);
    s.full_start[static_cast<size_t>(d.index_map[k])] = read_index(indices, pos);
  }
  for (size_t k = 0; k < d.batching.size(); ++k) {
    const int64_t d_start = d.index_batching[k];
    s.full_batching[static_cast<size_t>(d.batching[k])] =
        batch_index[static_cast<size_t>(d_start - (d_start < ivd ? 0 : 1))];
  }
  return s;
}

void for_each_position(const Shape& shape, const std::function<void(const Shape&)>& visit) {
  for (int64_t n : shape)
    if (n == 0) return;
  Shape pos(shape.size(), 0);
  while (true) {
    visit(pos);
    size_t k = shape.size();
    while (k > 0 && ++pos[k - 1] == shape[k - 1]) pos[--k] = 0;
    if (k == 0) return;
  }
}

bool starts_sorted(const Tensor& indices, const DimNumbers& d, const Tensor& operand, bool clamp) {
  Shape batch_shape;
  for (int64_t a = 0; a < indices.rank(); ++a)
    if (a != d.index_vector_dim) batch_shape.push_back(indices.shape()[static_cast<size_t>(a)]);
  std::optional<Shape> previous;
  bool sorted_so_far = true;
  for_each_position(batch_shape, [&](const Shape& batch_index) {
    Shape start = start_index(indices, d, batch_index, operand.rank()).full_start;
    for (size_t k = 0; clamp && k < start.size(); ++k)
      start[k] = std::clamp<int64_t>(start[k], 0, std::max<int64_t>(operand.shape()[k] - d.slice_sizes[k], 0));
    if (previous && start < *previous) sorted_so_far = false;
    previous = std::move(start);
  });
  return sorted_so_far;
}

}  // namespace sp::ref::stablehlo
