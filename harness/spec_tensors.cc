// spec_tensors.cc — stage 3 of the spec loader (spec_loader_internal.h):
// element values (specs/FORMAT.md "Element values") and tensors (data,
// values, fill or storage, with strides and offset), every count and extent
// computed overflow-checked before anything is allocated.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "harness/spec_loader.h"
#include "harness/spec_loader_internal.h"

namespace sp::spec_internal {

int64_t json_int64(const json& v, const std::string& field) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    fail(field, "integer " + excerpt(v) + " does not fit int64");
  if (!v.is_number_integer()) fail(field, "expected an integer, got " + excerpt(v));
  return v.get<int64_t>();
}

namespace {

// --- elements ---

std::string range_text(DType t) {
  const std::string max = is_unsigned_int(t) ? std::to_string(dtype_uint_max(t)) : std::to_string(dtype_int_max(t));
  return std::string(dtype_name(t)) + " [" + std::to_string(dtype_int_min(t)) + ", " + max + "]";
}

uint64_t integral_bits(int64_t i, DType t, const std::string& field) {
  const bool in_range =
      i >= dtype_int_min(t) && (t == DType::UInt64 || i <= dtype_int_max(t));  // uint64 holds every i >= 0
  if (!in_range) fail(field, std::to_string(i) + " is out of range of " + range_text(t));
  return bits_from_value(t, Value::of_int(i));
}

// A non-negative integer above int64's range: uint64 holds it exactly.
uint64_t wide_unsigned_bits(uint64_t u, DType t, const std::string& field) {
  if (t != DType::UInt64) fail(field, std::to_string(u) + " is out of range of " + range_text(t));
  return u;
}

uint64_t float_bits(double d, DType t, const std::string& field) {
  const uint64_t bits = bits_from_value(t, Value::of_float(d));
  if (std::isfinite(d) && std::isinf(value_from_bits(t, bits).f))
    fail(field, "value " + excerpt(json(d)) + " is out of range of " + std::string(dtype_name(t)) +
                    " (rounds to infinity; write \"inf\" if that is meant)");
  return bits;
}

uint64_t hex_bits(const std::string& s, DType t, const std::string& field) {
  uint64_t bits = 0;
  const char* first = s.data() + 2;
  const char* last = s.data() + s.size();
  const auto [end, ec] = std::from_chars(first, last, bits, 16);
  if (first == last || end != last || ec != std::errc())
    fail(field, "\"" + excerpt(s) + "\" is not a 64-bit hex pattern");
  const size_t width = 8 * dtype_size(t);
  if (width < 64 && (bits >> width) != 0)
    fail(field, "bit pattern " + excerpt(s) + " is wider than " + std::string(dtype_name(t)) + " (" +
                    std::to_string(width) + " bits)");
  return bits;
}

// The bits of one JSON element as dtype `t` (specs/FORMAT.md "Element values").
uint64_t element_bits(const json& v, DType t, const std::string& field) {
  const std::string type_name(dtype_name(t));
  if (v.is_boolean()) {
    if (t != DType::Bool) fail(field, "true/false is an element of dtype bool only, not " + type_name);
    return v.get<bool>() ? 1 : 0;
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.starts_with("0x")) return hex_bits(s, t, field);
    if (s == "nan" || s == "inf" || s == "-inf" || s == "-0.0") {
      if (!is_floating(t)) fail(field, "\"" + s + "\" is not a value of integral dtype " + type_name);  // s is short
      const double special = s == "nan"    ? std::numeric_limits<double>::quiet_NaN()
                             : s == "inf"  ? std::numeric_limits<double>::infinity()
                             : s == "-inf" ? -std::numeric_limits<double>::infinity()
                                           : -0.0;
      return bits_from_value(t, Value::of_float(special));
    }
    if (is_floating(t)) {
      char* end = nullptr;
      const double d = std::strtod(s.c_str(), &end);  // correctly rounded decimal -> double
      if (s.empty() || *end != '\0') fail(field, "\"" + excerpt(s) + "\" is not a number");
      return float_bits(d, t, field);
    }
    int64_t i = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc::result_out_of_range && !s.starts_with("-")) {  // above int64: uint64's upper half?
      uint64_t u = 0;
      const auto [uend, uec] = std::from_chars(s.data(), s.data() + s.size(), u);
      if (uec == std::errc() && uend == s.data() + s.size()) return wide_unsigned_bits(u, t, field);
    }
    if (ec == std::errc::result_out_of_range) fail(field, "\"" + excerpt(s) + "\" is out of range of " + type_name);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
      fail(field, "\"" + excerpt(s) + "\" is not a decimal integer, \"nan\", \"inf\", \"-inf\", \"-0.0\" or 0x bits");
    return integral_bits(i, t, field);
  }
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (is_floating(t)) return float_bits(static_cast<double>(u), t, field);
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return wide_unsigned_bits(u, t, field);
    return integral_bits(static_cast<int64_t>(u), t, field);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();  // `-0` arrives as the string "-0" (parse_json keeps its sign)
    return is_floating(t) ? float_bits(static_cast<double>(i), t, field) : integral_bits(i, t, field);
  }
  if (v.is_number_float()) {
    if (is_floating(t)) return float_bits(v.get<double>(), t, field);
    // A literal with a fraction or an exponent has been rounded to a double
    // by the parser: 1e-400 reads as 0 and 1.00000000000000000001 as 1, so
    // whether it was an integer cannot be told any more. Integral dtypes
    // take integer literals only (2, not 2.0).
    fail(field, "the number here (read as " + excerpt(v) +
                    ") is not an integer literal: it has a fraction, an exponent or more digits than 64 bits hold; "
                    "integral dtype " +
                    type_name + " takes integer literals only (2, not 2.0 or 2e0)");
  }
  fail(field, "expected an element (number, true/false or string), got " + excerpt(v));
}

// --- tensors ---

// Checks nested `data` against `shape` (rejecting ragged arrays) and collects
// its elements in row-major order.
void flatten_nested(const json& node, const Shape& shape, size_t level, std::string& path,
                    std::vector<const json*>& out) {
  if (level == shape.size()) {
    if (node.is_array()) fail(path, "is an array, but shape " + format_shape(shape) + " puts an element here");
    out.push_back(&node);
    return;
  }
  const auto expected = static_cast<size_t>(shape[level]);
  if (!node.is_array())
    fail(path, "is an element, but shape " + format_shape(shape) + " needs an array of " + std::to_string(expected) +
                   " here (ragged or too shallow)");
  if (node.size() != expected)
    fail(path, "has " + std::to_string(node.size()) + " entries, but shape " + format_shape(shape) + " needs " +
                   std::to_string(expected) + " (ragged array?)");
  const size_t length = path.size();
  for (size_t i = 0; i < expected; ++i) {
    path += "[" + std::to_string(i) + "]";
    flatten_nested(node[i], shape, level + 1, path, out);
    path.resize(length);
  }
}

// The shape nested `data` implies: the sizes along its first elements.
Shape infer_shape(const json& data, const std::string& field) {
  Shape shape;
  for (const json* node = &data; node->is_array(); node = &(*node)[0]) {
    if (shape.size() == static_cast<size_t>(kMaxRank))
      fail(field, "nested deeper than the rank limit " + std::to_string(kMaxRank));
    shape.push_back(static_cast<int64_t>(node->size()));
    if (node->empty()) break;
  }
  return shape;
}

int64_t checked_element_count(const Shape& shape, const std::string& field, const CaseLimits& limits) {
  const int64_t n = checked_numel(shape);
  if (n < 0) fail(field, "shape " + format_shape(shape) + " has more elements than int64 can count");
  if (n > limits.tensor_elements)
    fail(field,
         "shape " + format_shape(shape) + " has " + std::to_string(n) + " elements; the limit is " +
             std::to_string(limits.tensor_elements) +
             (limits.tensor_elements == kMaxTensorElements ? " (a case tagged huge may exceed it under --allow-huge)"
                                                           : ""));
  return n;
}

// The number of storage elements a view needs (one past the last element it
// reaches; its offset when it has no element), or a problem at `field`. Every
// step is overflow-checked: an offset or stride near 2^63 is a spec error.
int64_t required_storage(const Shape& shape, const Shape& strides, int64_t offset, int64_t numel,
                         const std::string& field) {
  if (offset < 0) fail(field, "offset " + std::to_string(offset) + " is negative");
  int64_t last = offset;
  if (numel > 0) {
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t span = 0;
      if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) || __builtin_add_overflow(last, span, &last))
        fail(field, "the view's last element lies beyond int64 (offset + sum of (size - 1) * stride overflows)");
    }
    if (last == std::numeric_limits<int64_t>::max())
      fail(field, "the view's last element lies at " + std::to_string(last) + ", beyond what storage can hold");
    ++last;
  }
  return last;
}

class TensorBuilder {
 public:
  TensorBuilder(const json& j, std::string path, DType dtype, int64_t& case_budget, const CaseLimits& limits)
      : j_(j), path_(std::move(path)), dtype_(dtype), case_budget_(case_budget), limits_(limits) {}

  Tensor build() {
    if (j_.contains("storage")) return build_from_storage();
    std::vector<const json*> elements;
    std::string form;
    if (j_.contains("data")) {
      form = "data";
      const std::string data_path = join_path(path_, "data");
      shape_ =
          j_.contains("shape") ? json_dims(j_["shape"], join_path(path_, "shape")) : infer_shape(j_["data"], data_path);
      count_elements(data_path);
      std::string walk_path = data_path;
      flatten_nested(j_["data"], shape_, 0, walk_path, elements);
    } else if (j_.contains("values")) {
      form = "values";
      shape_ = json_dims(j_.at("shape"), join_path(path_, "shape"));
      count_elements(join_path(path_, "shape"));
      const json& values = j_["values"];
      if (static_cast<int64_t>(values.size()) != numel_)
        fail(join_path(path_, "values"), "has " + std::to_string(values.size()) + " values, but shape " +
                                             format_shape(shape_) + " needs " + std::to_string(numel_));
      for (const json& v : values) elements.push_back(&v);
    } else if (j_.contains("fill")) {
      form = "fill";
      shape_ = json_dims(j_.at("shape"), join_path(path_, "shape"));
      count_elements(join_path(path_, "shape"));
      elements.push_back(&j_["fill"]);
    } else {
      fail(path_, "gives no elements: needs one of data, values, fill, storage");
    }
    return place(form, elements);
  }

 private:
  void count_elements(const std::string& field) {
    numel_ = checked_element_count(shape_, field, limits_);
    if (numel_ > case_budget_)
      fail(field, "the case's tensors hold more than " + std::to_string(limits_.case_elements) + " elements in all");
    case_budget_ -= numel_;
  }

  Shape strides_or_contiguous() {
    if (!j_.contains("strides")) return contiguous_strides(shape_);
    Shape strides = json_dims(j_["strides"], join_path(path_, "strides"));
    if (strides.size() != shape_.size())
      fail(join_path(path_, "strides"),
           "has " + std::to_string(strides.size()) + " entries for rank " + std::to_string(shape_.size()));
    return strides;
  }

  int64_t offset() const { return j_.contains("offset") ? json_int64(j_["offset"], join_path(path_, "offset")) : 0; }

  std::shared_ptr<std::vector<std::byte>> allocate(int64_t storage_elements, const std::string& field) const {
    const auto size = static_cast<int64_t>(dtype_size(dtype_));
    if (storage_elements < 0 || storage_elements > limits_.storage_bytes / size)
      fail(field, "the view needs " + std::to_string(storage_elements) + " storage elements of " +
                      std::to_string(size) + " bytes; the limit is " + std::to_string(limits_.storage_bytes) +
                      " bytes per tensor");
    return std::make_shared<std::vector<std::byte>>(static_cast<size_t>(storage_elements) * dtype_size(dtype_),
                                                    kGapSentinel);
  }

  std::string element_field(const std::string& form, size_t linear) const {
    if (form == "fill") return join_path(path_, "fill");
    if (form == "values") return indexed(join_path(path_, "values"), linear);
    Shape idx(shape_.size());
    for (size_t d = shape_.size(); d-- > 0;) {
      idx[d] = static_cast<int64_t>(linear) % shape_[d];
      linear /= static_cast<size_t>(shape_[d]);
    }
    return join_path(path_, "data") + format_index(idx);
  }

  // Places the logical elements of a data/values/fill tensor into a storage
  // sized for the view; gaps keep the sentinel.
  Tensor place(const std::string& form, const std::vector<const json*>& elements) {
    const Shape strides = strides_or_contiguous();
    const int64_t start = offset();
    // The field to blame: the offset when it alone is past the limit, else the strides.
    const bool offset_too_far = start > limits_.storage_bytes / static_cast<int64_t>(dtype_size(dtype_));
    const std::string strides_field =
        join_path(path_, j_.contains("offset") && (offset_too_far || !j_.contains("strides")) ? "offset"
                         : j_.contains("strides")                                             ? "strides"
                                                                                              : "shape");
    auto storage = allocate(required_storage(shape_, strides, start, numel_, strides_field), strides_field);
    if (form == "fill") {
      fill_view(*storage, strides, start, element_bits(*elements[0], dtype_, element_field(form, 0)));
      Tensor t = make_view(strides, start, std::move(storage));
      if (j_.contains("set")) apply_set(t);
      return t;
    }
    std::vector<bool> written(storage->size() / dtype_size(dtype_), false);
    const uint64_t fill_bits = form == "fill" ? element_bits(*elements[0], dtype_, element_field(form, 0)) : 0;
    Shape idx(shape_.size(), 0);
    for (int64_t linear = 0; linear < numel_; ++linear, next_index(idx, shape_)) {
      const auto i = static_cast<size_t>(linear);
      const uint64_t bits = form == "fill" ? fill_bits : element_bits(*elements[i], dtype_, element_field(form, i));
      int64_t at = start;
      for (size_t d = 0; d < idx.size(); ++d) at += idx[d] * strides[d];
      std::byte* p = storage->data() + static_cast<size_t>(at) * dtype_size(dtype_);
      if (written[static_cast<size_t>(at)] && load_bits(dtype_, p) != bits)
        fail(element_field(form, i),
             "shares storage element " + std::to_string(at) +
                 " with an earlier element (stride 0 or overlapping strides) but differs from it");
      written[static_cast<size_t>(at)] = true;
      store_bits(dtype_, p, bits);
    }
    return make_view(strides, start, std::move(storage));
  }

  Tensor build_from_storage() {
    shape_ = json_dims(j_.at("shape"), join_path(path_, "shape"));
    count_elements(join_path(path_, "shape"));
    const Shape strides = strides_or_contiguous();
    const json& elements = j_["storage"];
    const std::string storage_field = join_path(path_, "storage");
    auto storage = allocate(static_cast<int64_t>(elements.size()), storage_field);
    for (size_t i = 0; i < elements.size(); ++i)
      store_bits(dtype_, storage->data() + i * dtype_size(dtype_),
                 element_bits(elements[i], dtype_, indexed(storage_field, i)));
    return make_view(strides, offset(), std::move(storage));
  }

  Tensor make_view(const Shape& strides, int64_t start, std::shared_ptr<std::vector<std::byte>> storage) const {
    const auto available = static_cast<int64_t>(storage->size() / dtype_size(dtype_));
    const std::string field = join_path(path_, start > available        ? "offset"
                                               : j_.contains("strides") ? "strides"
                                                                        : "shape");
    try {
      return Tensor::view(dtype_, shape_, strides, start, std::move(storage));
    } catch (const std::invalid_argument& e) {
      fail(field, std::string("view outside its storage: ") + e.what());
    }
  }

  // Every storage element the view reaches gets `bits`: one pass over the
  // distinct positions (a stride-0 dim is walked once), a contiguous run by
  // doubling copies (a huge case's 2 GiB fill in well under a second).
  void fill_view(std::vector<std::byte>& storage, const Shape& strides, int64_t start, uint64_t bits) const {
    if (numel_ == 0) return;
    const size_t size = dtype_size(dtype_);
    Shape shape = shape_;
    for (size_t d = 0; d < shape.size(); ++d)
      if (strides[d] == 0) shape[d] = 1;
    // The innermost run of unit stride (after dropping size-1 dims): its length.
    int64_t run = 1;
    size_t outer = shape.size();
    while (outer > 0 && (shape[outer - 1] == 1 || strides[outer - 1] == run)) run *= shape[--outer];
    shape.resize(outer);
    Shape idx(outer, 0);
    do {
      int64_t at = start;
      for (size_t d = 0; d < outer; ++d) at += idx[d] * strides[d];
      std::byte* p = storage.data() + static_cast<size_t>(at) * size;
      store_bits(dtype_, p, bits);
      for (size_t done = size, total = static_cast<size_t>(run) * size; done < total; done *= 2)
        std::memcpy(p + done, p, std::min(done, total - done));
    } while (next_index(idx, shape));
  }

  // "set": [{"at": [i, j, ...], "value": v}, ...] over a filled tensor (a
  // huge case's few distinct elements). Each position inside the shape, at
  // most once, and not on a view whose elements share storage.
  void apply_set(const Tensor& t) const {
    const std::string path = join_path(path_, "set");
    const json& set = j_["set"];
    if (!set.empty() && t.has_internal_overlap())
      fail(path, "sets elements of a view whose elements share storage (stride 0 or overlapping strides)");
    std::vector<int64_t> done;
    for (size_t k = 0; k < set.size(); ++k) {
      const std::string at_path = join_path(indexed(path, k), "at");
      const Shape at = json_dims(set[k]["at"], at_path);
      if (at.size() != shape_.size())
        fail(at_path, "has " + std::to_string(at.size()) + " entries for rank " + std::to_string(shape_.size()));
      for (size_t d = 0; d < at.size(); ++d)
        if (at[d] >= shape_[d])
          fail(indexed(at_path, d), std::to_string(at[d]) + " is outside the shape " + format_shape(shape_));
      const int64_t offset = t.element_offset(at);
      if (std::find(done.begin(), done.end(), offset) != done.end())
        fail(at_path, "sets element " + format_index(at) + " a second time");
      done.push_back(offset);
      store_bits(dtype_, t.element_ptr(offset),
                 element_bits(set[k]["value"], dtype_, join_path(indexed(path, k), "value")));
    }
  }

  const json& j_;
  const std::string path_;
  const DType dtype_;
  int64_t& case_budget_;
  const CaseLimits& limits_;
  Shape shape_;
  int64_t numel_ = 0;
};

}  // namespace

Shape json_dims(const json& a, const std::string& field) {
  if (!a.is_array()) fail(field, "expected an array of sizes");
  if (a.size() > static_cast<size_t>(kMaxRank))
    fail(field, std::to_string(a.size()) + " dims; the rank limit is " + std::to_string(kMaxRank));
  Shape dims;
  for (size_t i = 0; i < a.size(); ++i) {
    dims.push_back(json_int64(a[i], indexed(field, i)));
    if (dims.back() < 0) fail(indexed(field, i), "must be >= 0");
  }
  return dims;
}

Tensor build_tensor(const json& j, const std::string& path, DType dtype, int64_t& case_budget,
                    const CaseLimits& limits) {
  return TensorBuilder(j, path, dtype, case_budget, limits).build();
}

}  // namespace sp::spec_internal
