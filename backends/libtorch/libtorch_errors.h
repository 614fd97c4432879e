// libtorch_errors.h — maps the text of a LibTorch 1.13 exception onto the
// error taxonomy (reference/errors.h).
//
// LibTorch reports every argument error as c10::Error (or, for a scalar that
// does not fit the tensor's dtype, std::runtime_error) with a message and no
// machine-readable kind, so the backend classifies by message pattern. The
// patterns are the texts LibTorch 1.13.1 actually prints (each one is
// triggered by a real call in tests/libtorch_backend_test.cc). A message no
// pattern matches is not a documented error: the backend reports it as a
// harness error so it is looked at, never counted as a pass.
//
// Torch-free on purpose, so the table is testable without Torch headers.
// Thread-safety: pure.
#pragma once

#include <optional>
#include <string_view>

#include "reference/errors.h"

namespace sp {

std::optional<ErrorCategory> classify_libtorch_error(std::string_view message);

}  // namespace sp
