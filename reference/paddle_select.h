// paddle_select.h — what paddle.gather and paddle.index_select share: both
// read out[..., i, ...] = x[..., index[i], ...] along axis, after the same
// four checks in the same order (axis in [-r, r); the index's rank; its
// dtype int32 or int64; every value < S = x.shape[axis] and, from Paddle
// 3.0, >= -S, a negative value wrapping to v + S, before 3.0 making the call
// unspecified), and with the same answer to an x dtype the page does not
// list (the result and unsupported_dtype are both allowed). Each op cites its
// own clause ids and quotes its own Paddle messages; paddle.gather alone
// takes a 0-d index (out then drops axis).
// Defined in reference/paddle_index_select.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/expectation.h"
#include "reference/op_call.h"

namespace sp::ref::paddle_select {

// One op's clause ids (PD-GA* / PD-IS*) and Paddle's messages, in check order.
struct SelectClauses {
  struct Ids {
    const char* axis;         // axis in [-r, r) (dim_out_of_range)
    const char* index_rank;   // index.ndim: 0 or 1 with zero_d_index, else 1 (invalid_argument)
    const char* index_dtype;  // int32 / int64 (index_dtype)
    const char* bounds;       // the versioned rule for negatives (index_out_of_bounds)
    const char* dtype;        // the documented x dtypes (the result or unsupported_dtype)
  } clause;
  struct Messages {
    const char *axis, *index_rank, *index_dtype;
    std::string (*bounds)(int64_t value, int64_t size, bool wraps);
    const char* dtype;  // what the error says of an x dtype the page does not list
  } message;
};

// Runs the shared checks, then, when every one passed, the result: out (the
// shape the op's table entry gives) with every x slice read at its index.
// `zero_d_index` (paddle.gather): index.ndim may be 0 or 1 (else 1 only), a
// 0-d index is one value and out drops axis. `documented`: x's dtype is one
// the page lists. `notes`: the op's own, kept on every answer but the
// unspecified one.
Expectation select_along_axis(const OpCall& call, const SelectClauses& c, bool zero_d_index, bool documented,
                              std::vector<Note> notes, Trace* trace);

}  // namespace sp::ref::paddle_select
