// op_kernels.h — a backend's kernels by op id, filled by its op files.
//
// A backend with op files (sp_op_files in cmake/sp_helpers.cmake) keeps one
// OpKernels: each backends/<name>/ops/<stem>.cc defines
// `void register_<stem>(OpKernels<Kernel>&)` and adds a kernel per op id it
// implements; the ids added are exactly what the backend's implements()
// answers, so the harness answers every other op "unsupported".
//
// Thread-safety: filled once (a function-local static), then read-only.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace sp {

template <class Kernel>
class OpKernels {
 public:
  void add(std::string op, Kernel kernel) { kernels_.insert_or_assign(std::move(op), kernel); }
  // nullptr when the backend does not implement `op`.
  const Kernel* find(std::string_view op) const {
    const auto it = kernels_.find(op);
    return it == kernels_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, Kernel, std::less<>> kernels_;
};

}  // namespace sp
