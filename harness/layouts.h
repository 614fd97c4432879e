// layouts.h — re-lay a call's operands out in memory without changing their
// logical values, so every case also runs on views real kernels break on.
//
//   transposed  the last two dims are stored swapped (column-major tiles)
//   gapped      every dim's stride is doubled: a slice with gaps, the gaps
//               filled with the sentinel byte 0x5a
//   offset      the view starts kLayoutOffset elements into its storage
//   expanded    an operand that is only read and whose values are constant
//               along a dim of size > 1 gets stride 0 there (never the
//               written operand: that would be a different, overlapping call)
// Operands whose elements alias keep their layout. A layout that changes nothing for a call (rank < 2 for transposed,
// no constant dim for expanded) is "not applicable" and yields no variant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reference/op_call.h"

namespace sp {

inline constexpr std::byte kLayoutSentinel{0x5a};
inline constexpr int64_t kLayoutOffset = 7;

const std::vector<std::string>& layout_names();  // transposed, gapped, offset, expanded
bool is_layout_name(const std::string& name);
// The call with its operands re-laid out, or nullopt when not applicable.
std::optional<OpCall> relayout(const OpCall& call, const std::string& layout);
// A copy of `t` with the given strides (per dim) and offset over a fresh
// storage whose unused bytes hold the sentinel.
Tensor place_with_layout(const Tensor& t, const Shape& strides, int64_t offset);

}  // namespace sp
