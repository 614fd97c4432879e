// The LibTorch error classifier's table (backends/libtorch/libtorch_errors.h):
// every row is hit by its sample message, at the measured releases and at
// releases nobody measured (no row is version-gated: issue 33), and the
// range machinery selects a ranged row only inside its range, reading
// versions leniently ("2.15.0+cu132"). Torch-free, but built only with the
// backend.
#ifdef SP_HAVE_LIBTORCH

#include "backends/libtorch/libtorch_errors.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

namespace sp {
namespace {

// The versions the table was measured on, and versions around them.
constexpr std::string_view kMeasured[] = {"1.13.1", "2.15.0"};

// A version inside the row's range: since itself, or a measured version.
std::string version_in(const LibTorchErrorRow& row) {
  if (!row.since.empty()) return std::string(row.since);
  for (std::string_view v : kMeasured)
    if (libtorch_error_row_applies(row, v)) return std::string(v);
  return "0.1";
}

TEST(LibTorchErrorTable, EveryRowIsHitByItsSampleWithinItsRange) {
  for (const LibTorchErrorRow& row : libtorch_error_rows()) {
    SCOPED_TRACE(std::string(row.first) + " [" + std::string(row.since) + ", " + std::string(row.until) + ")");
    ASSERT_FALSE(row.sample.empty());
    const std::string version = version_in(row);
    ASSERT_TRUE(libtorch_error_row_applies(row, version)) << version;
    // Its own row, not an earlier, more general one.
    EXPECT_EQ(match_libtorch_error(row.sample, version, row.op), &row) << row.sample;
    EXPECT_EQ(classify_libtorch_error(row.sample, version, row.op), row.category);
  }
}

TEST(LibTorchErrorTable, EveryRowAppliesToAMeasuredVersion) {
  for (const LibTorchErrorRow& row : libtorch_error_rows()) {
    bool any = false;
    for (std::string_view v : kMeasured) any = any || libtorch_error_row_applies(row, v);
    EXPECT_TRUE(any) << row.first << " applies to no measured LibTorch version";
  }
}

// Releases the table was not measured on, between and around the measured
// ones: a known text must keep its category there (issue 33).
constexpr std::string_view kUnmeasured[] = {"0.1",    "1.12.0",       "2.0.0",  "2.3.0", "2.4.1",     "2.8.0",
                                            "2.11.0", "2.11.0+cu130", "2.16.0", "99.0",  "unreadable"};

// A row carries a range only where the same text means different things in
// different releases (the header's rule); the table has none such.
TEST(LibTorchErrorTable, NoRowIsVersionGated) {
  for (const LibTorchErrorRow& row : libtorch_error_rows()) {
    EXPECT_TRUE(row.since.empty() && row.until.empty())
        << row.first << " [" << row.since << ", " << row.until << "): a range needs a text whose meaning changed";
  }
}

TEST(LibTorchErrorTable, EveryKnownTextKeepsItsCategoryOnAnUnmeasuredRelease) {
  for (const LibTorchErrorRow& row : libtorch_error_rows()) {
    for (std::string_view v : kUnmeasured) {
      SCOPED_TRACE(std::string(row.first) + " at " + std::string(v));
      EXPECT_EQ(match_libtorch_error(row.sample, v, row.op), &row);
      EXPECT_EQ(classify_libtorch_error(row.sample, v, row.op), row.category);
    }
  }
}

// The range machinery itself, on rows made here: [since, until), since
// inclusive, until exclusive, versions read as frameworks print them, an
// unreadable version outside every ranged row.
TEST(LibTorchErrorTable, RangesSelectRowsByVersion) {
  const LibTorchErrorRow both{"x", "", ErrorCategory::InvalidArgument, "2.3", "2.15", "", "x"};
  const LibTorchErrorRow from{"x", "", ErrorCategory::InvalidArgument, "2.3", "", "", "x"};
  const LibTorchErrorRow until{"x", "", ErrorCategory::InvalidArgument, "", "2.3", "", "x"};
  for (auto [version, in_both, in_from, in_until] :
       {std::tuple{"2.2.9", false, false, true}, std::tuple{"2.3", true, true, false},
        std::tuple{"2.3.0+cu121", true, true, false}, std::tuple{"2.3.0rc1", true, true, false},
        std::tuple{"2.14.1", true, true, false}, std::tuple{"2.15.0", false, true, false},
        std::tuple{"unreadable", false, false, false}}) {
    SCOPED_TRACE(version);
    EXPECT_EQ(libtorch_error_row_applies(both, version), in_both);
    EXPECT_EQ(libtorch_error_row_applies(from, version), in_from);
    EXPECT_EQ(libtorch_error_row_applies(until, version), in_until);
  }
}

// Two wordings of scatter's shape check (1.13: "to be smaller than self",
// 2.11 and 2.15: "to be no larger than self") and take_along_dim's
// ZeroDivisionError (2.11, 2.15): each is classified at every release.
TEST(LibTorchErrorTable, BothWordingsOfTheScatterShapeCheckAtEveryRelease) {
  const std::string_view old_text =
      "Expected index [1, 5] to be smaller than self [3, 4] apart from dimension 0 and to be smaller size than src "
      "[1, 5]";
  const std::string_view new_text =
      "Expected index [1, 5] to be no larger than self [3, 4] apart from dimension 0 and to be no larger size than "
      "src [1, 5]";
  for (std::string_view v : {"1.13.0", "2.0.0", "2.11.0", "2.15.0"}) {
    SCOPED_TRACE(v);
    EXPECT_EQ(classify_libtorch_error(old_text, v), ErrorCategory::ShapeMismatch);
    EXPECT_EQ(classify_libtorch_error(new_text, v), ErrorCategory::ShapeMismatch);
    EXPECT_EQ(classify_libtorch_error("ZeroDivisionError", v, "torch.take_along_dim"), ErrorCategory::IndexOutOfBounds);
  }
}

TEST(LibTorchErrorTable, AnOpScopedRowHoldsForItsOpOnly) {
  size_t scoped = 0;
  for (const LibTorchErrorRow& row : libtorch_error_rows()) {
    if (row.op.empty()) continue;
    ++scoped;
    const std::string version = version_in(row);
    EXPECT_EQ(match_libtorch_error(row.sample, version, row.op), &row);
    EXPECT_NE(match_libtorch_error(row.sample, version, "torch.gather"), &row) << row.sample;
    EXPECT_NE(match_libtorch_error(row.sample, version), &row) << row.sample;
  }
  EXPECT_GT(scoped, 0u);
}

TEST(LibTorchErrorTable, DefaultVersionIsTheBaseline) {
  for (const LibTorchErrorRow& row : libtorch_error_rows())
    EXPECT_EQ(classify_libtorch_error(row.sample), classify_libtorch_error(row.sample, kLibTorchBaselineVersion))
        << row.sample;
}

TEST(LibTorchErrorTable, UnknownTextIsUnclassifiedAtEveryVersion) {
  for (std::string_view v : kMeasured)
    EXPECT_EQ(classify_libtorch_error("some new LibTorch complaint about view sizes", v), std::nullopt);
}

}  // namespace
}  // namespace sp

#endif  // SP_HAVE_LIBTORCH
