#include "reference/versions.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace sp::ref {
namespace {

// The one table of framework baselines (reference/SEMANTICS.md, "Versioned
// rules"): what a call without a framework version follows.
constexpr FrameworkBaseline kBaselines[] = {
    {"torch", "1.13",
     "seeds 000 and 002 with LibTorch 1.13.1 (Debian) measured where they are silent: the reference's PyTorch rules "
     "were written from them"},
    {"mindspore", "2.3", "seed 003, the MindSpore r2.3 documentation of Tensor.scatter_"},
    {"onnx", "0",
     "ONNX operator documentation: an ONNX call names its opset as an argument (`opset`); no framework version "
     "applies to the op's rules"},
    {"paddle", "0",
     "seed 004, the paddle.scatter page, undated: no versioned rule applies to it (version 0 precedes every "
     "release)"},
};

// The one table of versioned rules. Each clause is also a row of
// reference/SEMANTICS.md (tests/versions_test.cc checks both ways).
constexpr VersionedRule kRules[] = {
    {"T-I2", "torch", "2.8", "",
     "gather, scatter_, scatter, scatter_add_, scatter_add, scatter_reduce_ and scatter_reduce take an int32 index "
     "as well as int64 (T-I1 holds before 2.8)",
     "pytorch/pytorch#151822 (int32 index kernels for gather/scatter, 2025-04); pytorch/pytorch#162711 (fails on "
     "2.7.1, works on 2.8); pytorch/pytorch#173886 (the docs: \"Since PyTorch 2.8, int32 is also supported for the "
     "index tensor\"); scripts/version-matrix measured 2.0.1 and 2.4.1 refusing int32, 2.8.0, 2.11.0 and 2.15.0 taking "
     "it"},
    {"T-IA14", "torch", "2.3", "",
     "index_add_ / index_add / index_reduce_ / index_reduce: source's physical shape with dim removed equals self's "
     "(without removing dim when either is 0-d), else shape_mismatch, checked before any value and also for an empty "
     "index; replaces T-IA8's logical shapes and T-IA7's empty-index exemption",
     "pytorch/pytorch#114929 (index_add meta function: \"source tensor shape must match self tensor shape, excluding "
     "the specified dimension\"), fixing #92576 and #122117 (2.2.1 crashed, main errors); first released in 2.3; "
     "scripts/version-matrix measured 2.0.1 on the old rules, 2.4.1, 2.8.0, 2.11.0 and 2.15.0 on this one"},
    {"MS-N1", "mindspore", "2.10", "", "a negative index value is unspecified",
     "SEMANTICS-NOTES: later MindSpore docs \"say negative indices are undefined\""},
    {"MS-N2", "mindspore", "2.10", "",
     "the value overloads are removed: invalid_argument \"value overload removed after 2.9\"",
     "SEMANTICS-NOTES: later MindSpore docs \"drop the value overloads after 2.9\""},
    {"MS-TSE14", "mindspore", "2.10", "",
     "ops.tensor_scatter_elements: a negative index value makes the call unspecified; before, v in [-s, 0) is v + s "
     "and v < -s is dropped like v >= s (MS-TSE10)",
     "mindspore 2.10.0's docstring: \"Negative `indices` are illegal input and will lead to undefined behavior\"; "
     "2.7.2's: \"If some values of the `indices` exceed the upper or lower bounds ... the corresponding `updates` "
     "will not be updated\" (the r2.3-r2.5 pages: indices in [-s, s)); 2.8 and 2.9 not read"},
    {"MS-MS11", "mindspore", "2.10", "",
     "mint.scatter: a negative index value makes the call unspecified; before, it is index_out_of_bounds",
     "mindspore 2.10.0's docstring: \"Negative or out-of-range `index` values are illegal input and will lead to "
     "undefined behavior\"; 2.7.2's: \"RuntimeError: If `index` has negative elements\"; 2.8 and 2.9 not read"},
    {"PD-B3", "paddle", "3.0", "",
     "a negative index value v in [-S, 0) addresses row v + S (S = x.shape[0]); PD-B2 (unspecified) holds before",
     "PaddlePaddle/Paddle PR #68780 (merged 2024-10-21, \"Support negative indices for all operators in the "
     "scatter/gather series\"), first released in 3.0; PaddlePaddle 3.3.1 measured"},
    {"PD-PA10", "paddle", "3.0", "",
     "put_along_axis: a negative index value v in [-S, 0) is v + S (S = arr.shape[axis]); unspecified before",
     "PaddlePaddle/Paddle PR #68780 (negative indices for the scatter/gather series), first released in 3.0; "
     "PaddlePaddle 3.3.1 measured"},
    {"PD-PA11", "paddle", "3.0", "",
     "put_along_axis: arr dtypes int32, int64, uint8 documented besides float32, float64",
     "PaddlePaddle docs 3.0 / 3.x put_along_axis page (2.6: \"Supported data types are float32 and float64\")"},
    {"PD-PA14", "paddle", "3.0", "",
     "put_along_axis: arr dtypes bfloat16 and float16 documented besides float32, float64",
     "PaddlePaddle docs 3.0 / 3.x put_along_axis page (2.6: \"Supported data types are float32 and float64\")"},
    {"PD-PA12", "paddle", "3.0", "",
     "Tensor.put_along_axis_ takes the broadcast argument (2.6: put_along_axis_(arr, indices, values, axis, "
     "reduce, include_self), always broadcasting)",
     "PaddlePaddle docs 2.6 and 3.0, Tensor.put_along_axis_ pages; PaddlePaddle 2.6.2 measured (TypeError)"},
    {"PD-TA7", "paddle", "3.0", "",
     "take_along_axis: a negative index value v in [-S, 0) is v + S (S = arr.shape[axis]); unspecified before",
     "PaddlePaddle/Paddle PR #68780 (negative indices for the scatter/gather series), first released in 3.0; "
     "PaddlePaddle 3.3.1 measured"},
    {"PD-TA8", "paddle", "3.0", "",
     "take_along_axis: arr dtypes bfloat16, float16, int32, int64, uint8 documented besides float32, float64",
     "PaddlePaddle docs 3.0 / 3.x take_along_axis page (2.6: \"Supported data types are float32 and float64\")"},
    {"PD-IA8", "paddle", "3.0", "",
     "index_add: a negative index value v in [-S, 0) is v + S (S = x.shape[axis]); unspecified before",
     "PaddlePaddle/Paddle PR #68780 (negative indices for the scatter/gather series), first released in 3.0; "
     "PaddlePaddle 2.6.2 refuses -1 ('expected >= 0 and < 3'), 3.0.0 and 3.3.1 wrap it"},
    {"PD-IA10", "paddle", "3.3", "", "index_add / index_add_ take alpha (the value is scaled by it before the kernel)",
     "PaddlePaddle 3.3.1's docstring ('alpha (Number, optional): Scaling factor for value'); 2.6.2 and 3.0.0 "
     "measured: TypeError 'unexpected keyword argument alpha'; 3.1 and 3.2 not measured"},
    {"PD-IS5", "paddle", "3.0", "",
     "index_select: a negative index value v in [-S, 0) is v + S (S = x.shape[axis]); unspecified before",
     "PaddlePaddle/Paddle PR #68780 (negative indices for the scatter/gather series), first released in 3.0; "
     "PaddlePaddle 2.6.2 refuses -1 ('expected >= 0 and < 3'), 3.0.0 and 3.3.1 wrap it"},
    {"PD-GA5", "paddle", "3.0", "",
     "gather: a negative index value v in [-S, 0) is v + S (S = x.shape[axis]); unspecified before",
     "PaddlePaddle/Paddle PR #68780 (negative indices for the scatter/gather series), first released in 3.0; "
     "PaddlePaddle 2.6.2 refuses -1 ('must be greater than or equal to 0'), 3.3.1 wraps it"},
    {"PD-GN5", "paddle", "3.0", "",
     "gather_nd: a negative index value v in [-s, 0) is v + s (s = x.shape[j]); unspecified before",
     "PaddlePaddle/Paddle PR #68780 (negative indices for the scatter/gather series), first released in 3.0; "
     "PaddlePaddle 2.6.2 refuses -1 ('Expected index_value >= 0'), 3.0.0 and 3.3.1 wrap it"},
    {"PD-SNA7", "paddle", "3.0", "",
     "scatter_nd_add: a negative index value v in [-s, 0) is v + s (s = x.shape[j]); unspecified before",
     "PaddlePaddle/Paddle PR #68780 (negative indices for the scatter/gather series), first released in 3.0; "
     "PaddlePaddle 2.6.2 refuses -1 ('greater or equal to 0'), 3.0.0 and 3.3.1 wrap it"},
    {"PD-SN7", "paddle", "3.0", "",
     "scatter_nd: a negative index value v in [-s, 0) is v + s (s = shape[j]); unspecified before",
     "PaddlePaddle/Paddle PR #68780 (negative indices for the scatter/gather series), first released in 3.0; "
     "PaddlePaddle 2.6.2 refuses -1 ('greater or equal to 0'), 3.0.0 and 3.3.1 wrap it"},
};

int64_t read_number(std::string_view s, size_t& i) {
  int64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (v > 1'000'000'000) throw std::invalid_argument("version number too large");
    v = v * 10 + (s[i++] - '0');
  }
  return v;
}

}  // namespace

std::string Version::to_string() const {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? "." : "") + std::to_string(parts[i]);
  return s;
}

std::optional<Version> parse_version(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == 'r' || text[i] == 'v')) ++i;
  if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
  Version v;
  try {
    v.parts.push_back(read_number(text, i));
    while (i + 1 < text.size() && text[i] == '.' && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      ++i;
      v.parts.push_back(read_number(text, i));
    }
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  // What follows the release is a pre-release or local tag ("a0", "rc1",
  // "+cu132", ".dev2024"): ignored.
  return v;
}

int compare_versions(const Version& a, const Version& b) {
  const size_t n = std::max(a.parts.size(), b.parts.size());
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < a.parts.size() ? a.parts[i] : 0;
    const int64_t y = i < b.parts.size() ? b.parts[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool VersionRange::contains(const Version& v) const {
  if (since && compare_versions(v, *since) < 0) return false;
  if (until && compare_versions(v, *until) >= 0) return false;
  return true;
}

std::optional<VersionRange> parse_version_range(std::string_view text, std::string* why) {
  VersionRange r;
  r.text = std::string(text);
  const auto fail = [&](const std::string& what) -> std::optional<VersionRange> {
    if (why) *why = "version range '" + std::string(text) + "': " + what;
    return std::nullopt;
  };
  size_t start = 0;
  bool any = false;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string_view part = text.substr(start, comma - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    std::string_view op;
    for (std::string_view candidate : {">=", "<", "=="})
      if (part.substr(0, candidate.size()) == candidate) {
        op = candidate;
        break;
      }
    if (op.empty()) return fail("each bound is >=V, <V or ==V (got '" + std::string(part) + "')");
    std::string_view number = part.substr(op.size());
    while (!number.empty() && number.front() == ' ') number.remove_prefix(1);
    const std::optional<Version> v = parse_version(number);
    if (!v || v->to_string() != number) return fail("'" + std::string(number) + "' is not a version like 2.8");
    if (op == ">=") {
      if (r.since) return fail("two lower bounds");
      r.since = v;
    } else if (op == "<") {
      if (r.until) return fail("two upper bounds");
      r.until = v;
    } else {
      if (r.since || r.until) return fail("== cannot be combined with another bound");
      r.since = v;
      Version next = *v;
      if (next.parts.size() == 1) next.parts.push_back(0);
      if (next.parts.size() == 2) {
        ++next.parts[1];  // the release series: ==2.3 is >=2.3,<2.4
      } else {
        next.parts.push_back(1);  // exact: ==2.3.1 is >=2.3.1,<2.3.1.1
      }
      r.until = next;
    }
    any = true;
    start = comma + 1;
  }
  if (!any) return fail("empty");
  if (r.since && r.until && compare_versions(*r.since, *r.until) >= 0) return fail("holds for no version");
  return r;
}

std::span<const FrameworkBaseline> framework_baselines() { return kBaselines; }
std::span<const VersionedRule> versioned_rules() { return kRules; }

Version effective_version(std::string_view framework, const std::string& version) {
  if (version.empty()) {
    for (const FrameworkBaseline& b : kBaselines)
      if (framework == b.framework) return *parse_version(b.version);
    throw std::invalid_argument("framework '" + std::string(framework) + "' has no baseline version");
  }
  std::optional<Version> v = parse_version(version);
  if (!v)
    throw std::invalid_argument(std::string(framework) + " version '" + version +
                                "' is not a version (like 2.15.0, r2.10 or 1.13.0a0+gitunknown)");
  return *v;
}

bool rule_holds(std::string_view clause, const std::string& version) {
  for (const VersionedRule& r : kRules) {
    if (clause != r.clause) continue;
    const Version v = effective_version(r.framework, version);
    if (*r.since && compare_versions(v, *parse_version(r.since)) < 0) return false;
    if (*r.until && compare_versions(v, *parse_version(r.until)) >= 0) return false;
    return true;
  }
  throw std::logic_error("no versioned rule " + std::string(clause));
}

}  // namespace sp::ref
