// libtorch_errors.h — maps the text of a LibTorch exception onto the error
// taxonomy (reference/errors.h), per LibTorch version.
//
// LibTorch reports every argument error as c10::Error (or, for a scalar that
// does not fit the tensor's dtype, std::runtime_error) with a message and no
// machine-readable kind, so the backend classifies by message pattern. Its
// texts change between releases, so the table is one list of rows, each
// with the half-open range of LibTorch versions [since, until) that print
// it; the backend asks with the version it was built against (TORCH_VERSION:
// Debian's 1.13.1 for `libtorch`, the wheel's 2.15.0 for `libtorch-current`).
// Every row carries a sample message, a text LibTorch printed (most are
// triggered by real calls in tests/libtorch_backend_test.cc); the unit test
// checks that each sample selects its own row within its range and not
// outside it. A message no row matches is not a documented error: the
// backend reports it with no category (an "unclassified" verdict), never a
// pass.
//
// Torch-free on purpose, so the table is testable without Torch headers.
// Thread-safety: pure.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "reference/errors.h"

namespace sp {

struct LibTorchErrorRow {
  // A message matches when it contains `first`, and `then` after it (an
  // empty `then`: only `first` is needed).
  std::string_view first;
  std::string_view then;
  ErrorCategory category;
  std::string_view since;   // first LibTorch version that prints it; "" = every earlier one
  std::string_view until;   // first version that no longer does (exclusive); "" = still printed
  std::string_view op;      // "" = any op; else only a call of this op id (a text too generic elsewhere)
  std::string_view sample;  // a message this row classifies, as LibTorch printed it
};

// Every row, from the most specific text to the most general: the first row
// that matches and applies to the version decides.
std::span<const LibTorchErrorRow> libtorch_error_rows();

// Whether `row` applies to LibTorch `version` ("2.15.0", "1.13.0a0+git..."
// read leniently, as reference/versions.h reads versions). An unreadable
// version gets only the rows that hold for every version.
bool libtorch_error_row_applies(const LibTorchErrorRow& row, std::string_view version);

// The first row matching `message` that applies to `version` (and to `op`,
// for a row scoped to one op); nullptr if none.
const LibTorchErrorRow* match_libtorch_error(std::string_view message, std::string_view version,
                                             std::string_view op = {});

// The LibTorch version the seed measurements describe (Debian 12's).
inline constexpr std::string_view kLibTorchBaselineVersion = "1.13.1";

std::optional<ErrorCategory> classify_libtorch_error(std::string_view message,
                                                     std::string_view version = kLibTorchBaselineVersion,
                                                     std::string_view op = {});

}  // namespace sp
