// paddle_gather.cc — paddle.gather(x, index, axis=None) -> out (the
// original paddle.gather; 3.3.1's PyTorch-compatible overload
// gather(input, dim, index), a take_along_axis, is not modelled).
//
// Formula ("Output is obtained by gathering entries of axis of x indexed by
// index and concatenate them together"; PD-GA1), axis 0:
//   1-D index: out[i, ...] = x[index[i], ...]   (x's shape, axis of len(index))
//   0-d index: out[...] = x[index, ...]         ("the output will reduce the
//                                                dimension where the axis pointing")
//
// Checks, in the order they run (all run; every violation is collected):
//   PD-GA2  axis (None: 0) in [-r, r), r = x.ndim ("rank>=1": a 0-d x has
//           none)                                           (dim_out_of_range)
//   PD-GA3  index has rank 0 or 1                           (invalid_argument)
//   PD-GA4  index dtype int32 or int64                      (index_dtype)
//   PD-GA5  every index value < S = x.shape[axis] and, from Paddle 3.0,
//           >= -S (index_out_of_bounds); from 3.0 v < 0 is v + S, before a
//           negative value makes the call unspecified
//   PD-GA6  x dtype documented on CPU (int32, int64, float32, float64,
//           uint8; float16 is GPU only, complex not modelled); another
//           allows both the result and unsupported_dtype
// Notes (campaign expectation entries key by them): an x or index with no
// element (PD-GA7: every rule still applies), an x of rank above 8 (PD-GA8).
// Source: https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/gather_en.html
// (docs 3.x, PaddlePaddle 3.3.1's docstring: its text example and code
// example); where silent, PaddlePaddle 3.3.1 CPU measured (SEMANTICS.md PD-GA*).
#include "reference/op_table.h"
#include "reference/paddle_select.h"

namespace sp {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool dtype_documented(DType t) {
  return t == DType::Int32 || t == DType::Int64 || t == DType::Float32 || t == DType::Float64 || t == DType::UInt8;
}

std::string bounds_message(int64_t v, int64_t, bool) {
  return "The element of Index must be in range, but received " + str(v);
}

constexpr ref::paddle_select::SelectClauses kClauses{
    .clause = {"PD-GA2", "PD-GA3", "PD-GA4", "PD-GA5", "PD-GA6"},
    .message = {"Attr(axis) is out of range", "The index input tensor with rank=0 or rank=1",
                "The data type of Input(Index) of gather must be int32 or int64", bounds_message,
                "is not documented on CPU"}};

}  // namespace

// The checks, the visit and the undocumented dtype's answer are
// paddle.index_select's (reference/paddle_select.h) with PD-GA* clauses.
Expectation paddle_gather(const OpCall& call, Trace* trace) {
  const Tensor &x = *call.tensor("x"), &index = *call.tensor("index");
  std::vector<Note> notes;
  if (x.numel() == 0 || index.numel() == 0)
    notes.push_back({"PD-GA7", "an operand without elements: every rule still applies"});
  if (x.rank() > 8) notes.push_back({"PD-GA8", "an x of rank " + str(x.rank()) + ": the page states no limit"});
  return ref::paddle_select::select_along_axis(call, kClauses, /*zero_d_index=*/true, dtype_documented(x.dtype()),
                                               std::move(notes), trace);
}

}  // namespace sp
