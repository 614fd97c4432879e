// paddle_scatter.cc — mutants of paddle.scatter.
#include <set>

#include "backends/mutant/mutant.h"
#include "backends/mutant/mutant_util.h"

namespace sp::mutant {
namespace {

bool is_paddle_scatter(const OpSpec& op) { return op.id == "paddle.scatter"; }

// overwrite=False zeroes each indexed row before adding the updates; the
// bug adds to the old row. Modelled on the unmodified kernel: every
// distinct indexed row of x is appended once more to index and updates,
// so the zeroed row receives the old row as one more term.
Outcome accumulate_keeps_old_row(Backend& cpu, OpCall& c) {
  if (c.bool_arg("overwrite") != false || dry_run(cpu, c).kind != Outcome::Kind::Outputs) return cpu.run(c);
  const Tensor x = *c.tensor("x");
  const Tensor index = *c.tensor("index");
  const Tensor updates = *c.tensor("updates");
  // The call ran: every value addresses a row, a negative one (Paddle >= 3.0,
  // PD-B3) row v + S.
  std::set<int64_t> rows;
  for (int64_t i = 0; i < index.size(0); ++i) {
    const int64_t v = read_int(index, Shape{i});
    rows.insert(v < 0 ? v + x.size(0) : v);
  }
  if (rows.empty()) return cpu.run(c);
  const std::vector<int64_t> extra(rows.begin(), rows.end());
  const int64_t m = index.size(0);
  c.tensors["index"] = remap(index.dtype(), Shape{m + static_cast<int64_t>(extra.size())}, [&](const Shape& pos) {
    return pos[0] < m ? index.bits_at(pos) : bits_from_value(index.dtype(), Value::of_int(extra[pos[0] - m]));
  });
  Shape grown = updates.shape();  // its first m rows are the ones read (PD-S1)
  grown[0] = m + static_cast<int64_t>(extra.size());
  c.tensors["updates"] = remap(updates.dtype(), grown, [&](const Shape& pos) {
    if (pos[0] < m) return updates.bits_at(pos);
    Shape row = pos;
    row[0] = extra[static_cast<size_t>(pos[0] - m)];
    return x.bits_at(row);
  });
  return cpu.run(c);
}

}  // namespace

void register_paddle_scatter(MutantRegistry& r) {
  r.add({"paddle-accumulate-keeps-old-row", "paddle overwrite=False adds to the old row instead of a zeroed one"},
        is_paddle_scatter, accumulate_keeps_old_row);
}

}  // namespace sp::mutant
