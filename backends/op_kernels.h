// op_kernels.h — a backend's kernels by op id, filled by its op files.
//
// A backend with op files (sp_op_files in cmake/sp_helpers.cmake) keeps one
// OpKernels: each backends/<name>/ops/<stem>.cc defines
// `void register_<stem>(OpKernels<Kernel>&)` and adds a kernel per op id it
// implements; the ids added are exactly what the backend's implements()
// answers, so the harness answers every other op "unsupported". An
// in-place / out-of-place pair (torch.scatter_ / torch.scatter) and the
// backward ops of a forward op are added by the in-place op's id
// (add_twins, add_backward): the other ids come from the op table.
//
// Thread-safety: filled once (a function-local static), then read-only.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "reference/op_table.h"

namespace sp {

template <class Kernel>
class OpKernels {
 public:
  void add(std::string op, Kernel kernel) { kernels_.insert_or_assign(std::move(op), kernel); }
  // `in_place` and its out-of-place twin (OpSpec::twin): one kernel for
  // both (it reads OpSpec::in_place), or one each.
  void add_twins(std::string_view in_place, Kernel kernel) { add_twins(in_place, kernel, kernel); }
  void add_twins(std::string_view in_place, Kernel in_place_kernel, Kernel out_of_place_kernel) {
    const OpSpec& op = known(in_place);
    if (!op.in_place || op.twin.empty()) throw std::logic_error(op.id + " is no in-place op with a twin");
    add(op.id, in_place_kernel);
    add(op.twin, out_of_place_kernel);
  }
  // The backward op of `forward` (`<id>.backward`) and, when `forward` has a
  // twin, the twin's.
  void add_backward(std::string_view forward, Kernel kernel) {
    const OpSpec& op = known(forward);
    for (const std::string& id : {op.id, op.twin}) {
      if (id.empty()) continue;
      const OpSpec* backward = backward_op(known(id));
      if (!backward) throw std::logic_error(id + " has no backward op in the op table");
      add(backward->id, kernel);
    }
  }
  // nullptr when the backend does not implement `op`.
  const Kernel* find(std::string_view op) const {
    const auto it = kernels_.find(op);
    return it == kernels_.end() ? nullptr : &it->second;
  }

 private:
  static const OpSpec& known(std::string_view id) {
    const OpSpec* op = find_op(id);  // an op id is the input here: a registration
    if (!op) throw std::logic_error("no op " + std::string(id) + " in the op table");
    return *op;
  }
  std::map<std::string, Kernel, std::less<>> kernels_;
};

}  // namespace sp
