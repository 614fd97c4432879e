// backward_common.h — mechanics shared by the backward references
// (reference/*_backward.cc); the rules themselves (clauses T-GR*, PD-GR* of
// reference/SEMANTICS.md, "## Gradients") are cited where they are applied.
//
// A backward call (op_table.h, OpSpec::backward_of) carries the forward's
// operands and arguments plus `grad_output`. Every backward reference:
//   1. start_backward: evaluates the forward's own rules through the op
//      table (an error or unspecified forward answer carries over), then the
//      rules every backward shares (differentiable operands floating,
//      grad_output shaped and typed like the forward's output) and the op's
//      own checks (`own_checks`, e.g. src.shape == index.shape);
//   2. builds each gradient element by element with a GradientBuilder, which
//      records every contribution as a trace Write and resolves each element
//      to what is allowed (exact bits, {+0, -0} for a masked zero, a float
//      interval for two or more accumulated terms, a set for a quotient).
//
// Thread-safety: pure functions; a GradientBuilder is used by one evaluation.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/expectation.h"
#include "reference/op_call.h"
#include "reference/semantics_common.h"
#include "reference/tensor.h"

namespace sp::ref {

// The clause ids of one dialect's shared backward rules.
struct BackwardClauses {
  std::string forward;           // the forward's rules carry over (T-GR1 / PD-GR1)
  std::string floating;          // differentiable operands are floating (T-GR2 / PD-GR2)
  std::string grad_output;       // grad_output's shape and dtype (T-GR3 / PD-GR3)
  std::string floating_message;  // the framework's words for a non-floating operand
};
extern const BackwardClauses kTorchBackwardClauses;
extern const BackwardClauses kPaddleBackwardClauses;
extern const BackwardClauses kMindsporeBackwardClauses;

struct BackwardStart {
  // Set: the whole answer (the forward's error or unspecified answer, or a
  // backward rule violated). Unset: compute the gradients.
  std::optional<Expectation> answer;
  // The forward's answer for the call (its outputs; a forward answer that
  // allows an error besides its outputs, e.g. PD-T1, keeps that error in
  // `errors`, which the backward's answer keeps too).
  Expectation forward;
};

// Step 1 above. `own_checks` runs after the shared rules when the forward
// succeeds (it may be empty).
BackwardStart start_backward(const OpCall& call, const BackwardClauses& clauses, Trace* trace,
                             const std::function<void(RuleLog&)>& own_checks = {});

// The shared src.shape == index.shape rule (T-GR4) as an own check.
bool src_shape_equals_index_shape(RuleLog& log, const Tensor& src, const Tensor& index);

// The result: the gradients plus the forward's notes and allowed errors.
Expectation gradients_expectation(const BackwardStart& start, std::vector<ExpectedTensor> grads,
                                  std::vector<Note> notes);

// " because index[0][1]=2" for index position p (empty when not tracing).
std::string because_index(const IndexPosition& p, const Trace* trace);

// The gradient of a gather along dim with respect to its input (T-GR6, and
// every gather-like op that reads it backward, e.g. MS-GEG4): zeros of
// input's shape, then grad_input[.., along(index[p]), ..] += grad_output[p]
// for every index position p, row-major (one term exact, two or more a
// float interval: GradientBuilder::add). `along` maps an index value to the
// position along dim it read (a wrap for a negative value).
ExpectedTensor gather_input_gradient(const Tensor& input, const Tensor& index, const Tensor& grad_output, int64_t dim,
                                     const std::function<int64_t(int64_t)>& along, Trace* trace);

// The gradients of an element-wise scatter along dim (out = input, then
// out[.., along(index[p]), ..] = src[p], or += with `add`), as MS-GR5 reads
// them from the forward's formula (MS-TSEG5, MS-TSEG6, MS-MSG*):
//   grad_input = grad_output, with every element an index position writes
//                set to 0 (either sign; T-GR5) unless `add`;
//   grad_src[p] = grad_output[.., along(index[p]), ..] (exact bits); with a
//                duplicate target and no `add`, that or 0 (either sign).
// `along` maps an index value to the position along dim it writes, nullopt
// where the forward drops the update (nothing reaches that grad_src element:
// +0.0). src null: a scalar src, grad_input only. Outputs are named
// `input_grad` and `src_grad`; `clause` is cited on every masked element.
struct ElementScatter {
  const Tensor* input = nullptr;
  const Tensor* index = nullptr;
  const Tensor* src = nullptr;
  const Tensor* grad_output = nullptr;
  int64_t dim = 0;
  bool add = false;
  std::function<std::optional<int64_t>(int64_t)> along;
  std::string input_grad, src_grad, clause;
};
std::vector<ExpectedTensor> element_scatter_gradients(const ElementScatter& s, Trace* trace);

// One gradient tensor. Its elements start as `initial`: grad_output where
// the gradient passes an element through unchanged (`pass_reason` says why,
// e.g. "(no index position writes self there; T-GR7)", and the trace shows
// every element left so as a contribution of grad_output), else fresh zeros,
// exact +0.0 (`pass_reason` empty). Every call below replaces or adds to one
// element; `from_name` names the tensor read ("grad_output"), `p` the index
// position that routed it (or null), `why` the reason the trace shows
// ("because index[0][0]=1"); texts are only read when tracing.
class GradientBuilder {
 public:
  GradientBuilder(std::string name, const Tensor& initial, std::string pass_reason, Trace* trace);

  // element = from[at], its exact bits (a gather of grad_output).
  void copy(const Shape& target, const Tensor& from, const Shape& at, const std::string& from_name,
            const IndexPosition* p, const std::string& why);
  // element = 0: a gradient the rules mask out; +0.0 or -0.0 (T-GR5).
  void mask(const Shape& target, const std::string& clause, const IndexPosition* p, const std::string& why);
  // element = from[at] (exact bits) or 0 of either sign: a duplicate
  // writer's gradient where the document leaves open which writer's value
  // survived and says nothing of the gradient (MS-GR5).
  void copy_or_mask(const Shape& target, const Tensor& from, const Shape& at, const std::string& from_name,
                    const std::string& clause, const IndexPosition* p, const std::string& why);
  // element += from[at], starting from +0.0 (gather's scatter_add; T-GR6).
  void add(const Shape& target, const Tensor& from, const Shape& at, const std::string& from_name,
           const IndexPosition* p, const std::string& why);
  // element = from[at] / n, computed in the element's dtype (T-GR11).
  void divide(const Shape& target, const Tensor& from, const Shape& at, int64_t n, const std::string& from_name,
              const IndexPosition* p, const std::string& why);
  // element may be anything (a rule the documents leave open).
  void unspecified(const Shape& target, const std::string& why);

  ExpectedTensor finish();

 private:
  enum class Kind { Copy, CopyOrMask, Mask, Sum, Quotient, Unspecified };
  struct Slot {
    Kind kind = Kind::Copy;
    uint64_t bits = 0;          // Copy, CopyOrMask
    std::vector<double> terms;  // Sum
    double dividend = 0.0;      // Quotient
    int64_t divisor = 1;        // Quotient
    std::string why;            // Mask, CopyOrMask (its clause), Unspecified
  };
  Slot& slot(const Shape& target);
  void record(const Shape& target, const IndexPosition* p, const std::string& source, const std::string& effect);
  std::string element_name(const Shape& target) const;

  std::string name_;
  Tensor initial_;  // contiguous
  std::string pass_reason_;
  Trace* trace_;
  std::map<int64_t, Slot> slots_;
};

}  // namespace sp::ref
