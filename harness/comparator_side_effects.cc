// comparator_side_effects.cc — the side-effect checks of the comparator
// (comparator.h): which bytes of the operands' storages a call may change,
// and the finding for the first one it changed that it may not.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "harness/comparator.h"
#include "reference/op_table.h"
#include "reference/reference.h"

namespace sp {

namespace {

// Marks every byte of every element a view reaches (a stride-0 dim walked
// once; no list of offsets: a huge case's view reaches 2^31 of them).
void mark_reached(const Tensor& t, std::vector<bool>& bytes) {
  if (t.numel() <= 0) return;
  const size_t size = dtype_size(t.dtype());
  if (t.is_contiguous()) {
    const auto from = static_cast<std::ptrdiff_t>(static_cast<size_t>(t.offset()) * size);
    std::fill_n(bytes.begin() + from, static_cast<size_t>(t.numel()) * size, true);
    return;
  }
  Shape shape = t.shape();
  for (size_t d = 0; d < shape.size(); ++d)
    if (t.stride(static_cast<int64_t>(d)) == 0) shape[d] = 1;
  Shape idx(shape.size(), 0);
  do {
    const auto at = static_cast<std::ptrdiff_t>(static_cast<size_t>(t.element_offset(idx)) * size);
    std::fill_n(bytes.begin() + at, size, true);
  } while (next_index(idx, shape));
}

// The multi-index of `t` whose element covers storage byte `byte`, if any.
std::optional<Shape> element_covering(const Tensor& t, size_t byte) {
  if (t.numel() <= 0) return std::nullopt;
  const size_t size = dtype_size(t.dtype());
  Shape idx(t.shape().size(), 0);
  do {
    const size_t start = static_cast<size_t>(t.element_offset(idx)) * size;
    if (byte >= start && byte < start + size) return idx;
  } while (next_index(idx, t.shape()));
  return std::nullopt;
}

}  // namespace

bool promises_no_write_on_error(const Expectation& exp) {
  if (exp.unspecified || exp.errors.empty()) return false;
  // SE-2: every rule but an index value's is checked before the first
  // write; index values are checked while writing (LibTorch, measured).
  return std::any_of(exp.errors.begin(), exp.errors.end(),
                     [](ErrorCategory c) { return c != ErrorCategory::IndexOutOfBounds; });
}

std::optional<SideEffect> side_effect_violation(const OpCall& before, const OpCall& after, bool no_write) {
  const std::string written = written_operand(after);
  // A mis-shaped out= is resized before it is written (T-OUT6): then any byte
  // of its storage may change.
  bool written_resized = false;
  if (const Tensor* w = written.empty() || is_inplace_op(after) ? nullptr : before.tensor(written))
    if (const OpSpec* spec = find_op(after)) {
      OpCall without = before;
      without.tensors.erase(written);
      const std::optional<Shape> shape = output_shape_of(*spec, without);
      written_resized = !shape || *shape != w->shape();
    }
  const auto changed_element = [](const std::string& view_name, const Tensor& view, const Shape& idx,
                                  const std::vector<std::byte>& was) {
    const DType t = view.dtype();
    const int64_t off = view.element_offset(idx);
    const uint64_t old_bits = load_bits(t, was.data() + static_cast<size_t>(off) * dtype_size(t));
    const uint64_t new_bits = view.bits_at(idx);
    return fmt::format(
        "operand {} was modified: element {} (storage element offset {}) changed from {} ({}) to {} ({})", view_name,
        format_index(idx), off, format_value(t, old_bits), format_bits(t, old_bits), format_value(t, new_bits),
        format_bits(t, new_bits));
  };
  std::set<const std::vector<std::byte>*> seen;
  for (const auto& [name, tensor] : after.tensors) {
    const std::vector<std::byte>* storage = tensor.storage().get();
    if (!storage || !seen.insert(storage).second) continue;
    const Tensor* original = before.tensor(name);
    if (!original || !original->storage())
      return SideEffect{Verdict::Failure::Other, fmt::format("operand {} is missing from the pre-run copy", name)};
    const std::vector<std::byte>& was = *original->storage();
    if (was.size() != storage->size())
      return SideEffect{Verdict::Failure::Other, fmt::format("operand {}: storage size changed from {} to {} bytes",
                                                             name, was.size(), storage->size())};
    if (was == *storage) continue;

    // The operands viewing this storage; bytes of the written view may change
    // (unless an error was reported where the dialect checks before writing).
    std::vector<std::pair<std::string, const Tensor*>> views;
    std::vector<bool> writable(storage->size(), false);
    const Tensor* written_view = nullptr;
    for (const auto& [other_name, other] : after.tensors) {
      if (other.storage().get() != storage) continue;
      if (other_name == written) {
        written_view = &other;
        if (no_write) continue;
        if (written_resized) std::fill(writable.begin(), writable.end(), true);
        mark_reached(other, writable);
      } else {
        views.emplace_back(other_name, &other);
      }
    }
    for (size_t byte = 0; byte < storage->size(); ++byte) {
      if (writable[byte] || was[byte] == (*storage)[byte]) continue;
      // An operand the op only reads comes first: that is the finding even
      // where the written operand overlaps it.
      for (const auto& [view_name, view] : views)
        if (std::optional<Shape> idx = element_covering(*view, byte))
          return SideEffect{Verdict::Failure::InputModified,
                            "input modified: " + changed_element(view_name, *view, *idx, was)};
      if (written_view && no_write)
        if (std::optional<Shape> idx = element_covering(*written_view, byte))
          return SideEffect{
              Verdict::Failure::SelfModifiedOnError,
              "self modified although an error was reported: " + changed_element(written, *written_view, *idx, was) +
                  " (the rules this call breaks are checked before any write: reference/SEMANTICS.md "
                  "SE-2)"};
      const Tensor& owner = written_view ? *written_view : tensor;
      const std::string owner_name = written_view ? written : name;
      return SideEffect{
          Verdict::Failure::Other,
          fmt::format("storage of {} was written outside its view: byte {} (element offset {} of {}) changed from "
                      "0x{:02x} to 0x{:02x}",
                      owner_name, byte, byte / dtype_size(owner.dtype()), dtype_name(owner.dtype()),
                      static_cast<unsigned>(was[byte]), static_cast<unsigned>((*storage)[byte]))};
    }
  }
  return std::nullopt;
}

std::optional<std::string> storage_guard_violation(const OpCall& before, const OpCall& after) {
  if (std::optional<SideEffect> bad = side_effect_violation(before, after, /*no_write=*/false)) return bad->detail;
  return std::nullopt;
}

}  // namespace sp
