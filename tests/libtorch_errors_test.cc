// The LibTorch error classifier's table (backends/libtorch/libtorch_errors.h):
// every row is hit by its sample message within its version range, a row
// with a range is not selected outside it, and version ranges are read
// leniently ("2.15.0+cu132"). Torch-free, but built only with the backend.
#ifdef SP_HAVE_LIBTORCH

#include "backends/libtorch/libtorch_errors.h"

#include <gtest/gtest.h>

#include <string>

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

TEST(LibTorchErrorTable, RangesSelectRowsByVersion) {
  size_t ranged = 0;
  for (const LibTorchErrorRow& row : libtorch_error_rows()) {
    SCOPED_TRACE(std::string(row.first));
    if (!row.since.empty()) {
      ++ranged;
      EXPECT_TRUE(libtorch_error_row_applies(row, row.since));
      // Just before `since` (a patch-less 0.x is before anything measured).
      EXPECT_FALSE(libtorch_error_row_applies(row, "0.1"));
      EXPECT_NE(match_libtorch_error(row.sample, "0.1", row.op), &row);
    }
    if (!row.until.empty()) {
      ++ranged;
      EXPECT_FALSE(libtorch_error_row_applies(row, row.until));  // exclusive
      EXPECT_FALSE(libtorch_error_row_applies(row, std::string(row.until) + ".1"));
      EXPECT_FALSE(libtorch_error_row_applies(row, "99.0"));
      EXPECT_NE(match_libtorch_error(row.sample, row.until, row.op), &row);
    }
    if (row.since.empty() && row.until.empty()) {
      for (std::string_view v : {"0.1", "1.13.1", "2.15.0", "99.0", "unreadable"})
        EXPECT_TRUE(libtorch_error_row_applies(row, v)) << v;
    }
  }
  EXPECT_GT(ranged, 0u) << "the table has no versioned row";
}

TEST(LibTorchErrorTable, VersionsAreReadAsFrameworksPrintThem) {
  for (const LibTorchErrorRow& row : libtorch_error_rows()) {
    if (row.since.empty()) continue;
    const std::string local = std::string(row.since) + "+cu132";  // a wheel's local version
    EXPECT_TRUE(libtorch_error_row_applies(row, local)) << local;
    EXPECT_FALSE(libtorch_error_row_applies(row, "unreadable")) << row.first;
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

TEST(LibTorchErrorTable, TheTwoMeasuredVersionsGetTheirOwnScatterShapeText) {
  const std::string_view old_text =
      "Expected index [1, 5] to be smaller than self [3, 4] apart from dimension 0 and to be smaller size than src "
      "[1, 5]";
  const std::string_view new_text =
      "Expected index [1, 5] to be no larger than self [3, 4] apart from dimension 0 and to be no larger size than "
      "src [1, 5]";
  EXPECT_EQ(classify_libtorch_error(old_text, "1.13.0"), ErrorCategory::ShapeMismatch);
  EXPECT_EQ(classify_libtorch_error(new_text, "2.15.0"), ErrorCategory::ShapeMismatch);
  // Each text is its version's: the other version's row does not take it.
  EXPECT_EQ(classify_libtorch_error(old_text, "2.15.0"), std::nullopt);
  EXPECT_EQ(classify_libtorch_error(new_text, "1.13.0"), std::nullopt);
  EXPECT_EQ(classify_libtorch_error("ZeroDivisionError", "2.15.0", "torch.take_along_dim"),
            ErrorCategory::IndexOutOfBounds);
  EXPECT_EQ(classify_libtorch_error("ZeroDivisionError", "1.13.0", "torch.take_along_dim"), std::nullopt);
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
