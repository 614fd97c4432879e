// spec_loader.cc — specs/FORMAT.md made executable: pre-scan, parse, schema,
// semantics; and the exact writer of the same format.
#include "harness/spec_loader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#ifdef SP_HAVE_EMBEDDED_SCHEMA
// Generated at build time by harness/embedded_schema.cmake.
extern const char kSpEmbeddedSpecSchema[];
#endif

namespace sp {

namespace {

std::string describe_spec_error(const std::string& file, const std::string& case_id, const std::string& field,
                                const std::string& message) {
  std::string s = file.empty() ? "<spec>" : file;
  if (!case_id.empty()) s += ": case " + case_id;
  if (!field.empty()) s += ": field " + field;
  return s + ": " + message;
}

}  // namespace

SpecError::SpecError(std::string file, std::string case_id, std::string field, std::string message)
    : std::runtime_error(describe_spec_error(file, case_id, field, message)),
      file_(std::move(file)),
      case_id_(std::move(case_id)),
      field_(std::move(field)),
      message_(std::move(message)) {}

namespace {

using json = nlohmann::json;

// A problem inside the case being loaded; `field` is the full path from the
// file root. Turned into a SpecError once the case id is known.
struct CaseProblem {
  std::string field;
  std::string message;
};

[[noreturn]] void fail(std::string field, std::string message) {
  throw CaseProblem{std::move(field), std::move(message)};
}

std::string join_path(const std::string& base, std::string_view member) {
  return base.empty() ? std::string(member) : base + "." + std::string(member);
}

std::string indexed(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

// ---------------------------------------------------------------------------
// Stage 1: raw text limits and parsing.

// Depth is checked on the raw text, before nlohmann builds (and later
// destroys) a deeply nested DOM.
void check_nesting_depth(std::string_view text, const std::string& file) {
  int depth = 0;
  bool in_string = false, escaped = false;
  size_t line = 1, column = 0;
  for (char c : text) {
    ++column;
    if (c == '\n') line += 1, column = 0;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw SpecError(file, "", "",
                        "JSON nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels at line " +
                            std::to_string(line) + ", column " + std::to_string(column));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// nlohmann keeps the last of repeated keys; in a spec file a repeated key
// (two "data" of one tensor) is a mistake, so the parser callback refuses it,
// tracking the path of the node being parsed for the message.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(std::string file) : file_(std::move(file)) {}

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        enter_value();
        frames_->push_back(Frame{event == json::parse_event_t::object_start, {}, {}, 0});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end: frames_->pop_back(); break;
      case json::parse_event_t::key: {
        Frame& object = frames_->back();
        object.key = parsed.get<std::string>();
        if (!object.keys.insert(object.key).second) throw SpecError(file_, "", path(), "duplicate key \"" + object.key + "\"");
        break;
      }
      case json::parse_event_t::value: enter_value(); break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;
    std::string key;      // object: the member being parsed
    size_t next_index;    // array: one past the element being parsed
  };

  void enter_value() {
    if (!frames_->empty() && !frames_->back().is_object) ++frames_->back().next_index;
  }

  std::string path() const {
    std::string p;
    for (const Frame& f : *frames_) p = f.is_object ? join_path(p, f.key) : indexed(p, f.next_index - 1);
    return p;
  }

  std::string file_;
  // Shared: nlohmann copies the callback.
  std::shared_ptr<std::vector<Frame>> frames_ = std::make_shared<std::vector<Frame>>();
};

json parse_json(std::string_view text, const std::string& file) {
  if (text.size() > kMaxSpecFileBytes)
    throw SpecError(file, "", "",
                    "file is " + std::to_string(text.size()) + " bytes; the limit is " +
                        std::to_string(kMaxSpecFileBytes));
  check_nesting_depth(text, file);
  try {
    return json::parse(text, DuplicateKeyCheck(file));
  } catch (const json::exception& e) {
    // parse_error, or out_of_range for a number beyond double/int64 (found by
    // the spec_loader fuzz target). nlohmann's message already says where;
    // drop its "[json.exception.KIND.N] " prefix.
    std::string message = e.what();
    if (const size_t close = message.find("] "); message.starts_with("[json.exception") && close != std::string::npos)
      message.erase(0, close + 2);
    throw SpecError(file, "", "", "invalid JSON: " + message);
  }
}

// Long strings are refused before the schema runs: valijson checks
// `pattern` with std::regex, whose matcher recurses once per character.
void check_string_lengths(const json& node, std::string& path, const std::string& file) {
  if (node.is_string()) {
    if (node.get_ref<const std::string&>().size() > kMaxJsonStringChars)
      throw SpecError(file, "", path,
                      "string of " + std::to_string(node.get_ref<const std::string&>().size()) +
                          " bytes; the limit is " + std::to_string(kMaxJsonStringChars));
    return;
  }
  if (!node.is_structured()) return;
  const size_t length = path.size();
  if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) {
      path += "[" + std::to_string(i) + "]";
      check_string_lengths(node[i], path, file);
      path.resize(length);
    }
    return;
  }
  for (const auto& [key, value] : node.items()) {
    if (key.size() > kMaxJsonStringChars) throw SpecError(file, "", path, "object key longer than the limit");
    path = join_path(path, key);
    check_string_lengths(value, path, file);
    path.resize(length);
  }
}

// ---------------------------------------------------------------------------
// Stage 2: the JSON Schema.

std::string read_schema_text() {
#ifdef SP_HAVE_EMBEDDED_SCHEMA
  return kSpEmbeddedSpecSchema;
#else
  const std::string path = std::string(SP_SOURCE_DIR) + "/specs/schema/spec.schema.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the spec schema " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
#endif
}

const valijson::Schema& compiled_schema() {
  static const std::unique_ptr<valijson::Schema> schema = [] {
    const json document = json::parse(spec_schema_text());
    auto compiled = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser;
    parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(document), *compiled);
    return compiled;
  }();
  return *schema;
}

// valijson names a node by a context such as {"<root>", "[cases]", "[3]",
// "[inputs]"}; we write it as `cases[3].inputs`.
std::string field_path(const std::vector<std::string>& context) {
  std::string path;
  for (const std::string& part : context) {
    if (part.size() < 2 || part.front() != '[' || part.back() != ']') continue;  // "<root>"
    const std::string name = part.substr(1, part.size() - 2);
    const bool is_index = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
    path = is_index ? path + part : join_path(path, name);
  }
  return path;
}

struct SchemaProblem {
  std::string field;
  std::string message;
};

// The most specific of a case's (or the file's) schema errors: the first of
// the deepest ones, with the other reasons valijson gives for the same node.
// Generic "Failed to validate ..." summaries (oneOf/anyOf/items) are dropped
// when a concrete reason sits at that node.
SchemaProblem most_specific(const std::vector<const valijson::ValidationResults::Error*>& errors) {
  const valijson::ValidationResults::Error* deepest = errors.front();
  for (const auto* e : errors)
    if (e->context.size() > deepest->context.size()) deepest = e;
  std::vector<std::string> reasons, summaries;
  for (const auto* e : errors) {
    if (e->context != deepest->context) continue;
    // valijson's oneOf summary when more than one alternative matched.
    const bool several_alternatives = e->description == "Failed to validate against exactly one child schema.";
    const std::string description =
        several_alternatives ? "gives more than one of fields that exclude each other (a tensor takes one of data, "
                               "values, fill, storage; expect one of output, one_of, error, unspecified)"
                             : e->description;
    auto& list = !several_alternatives && description.starts_with("Failed to validate") ? summaries : reasons;
    if (std::find(list.begin(), list.end(), description) == list.end()) list.push_back(description);
  }
  if (reasons.empty()) reasons = summaries;
  std::string message = "schema: ";
  for (size_t i = 0; i < reasons.size(); ++i) message += (i ? " / " : "") + reasons[i];
  return {field_path(deepest->context), message};
}

struct SchemaVerdict {
  std::optional<SchemaProblem> file_problem;
  std::map<size_t, SchemaProblem> case_problems;  // by index into `cases`
};

SchemaVerdict check_schema(const json& document) {
  valijson::Validator validator;
  valijson::ValidationResults results;
  SchemaVerdict verdict;
  if (validator.validate(compiled_schema(), valijson::adapters::NlohmannJsonAdapter(document), &results)) return verdict;
  std::vector<const valijson::ValidationResults::Error*> file_errors;
  std::map<size_t, std::vector<const valijson::ValidationResults::Error*>> case_errors;
  for (const auto& e : results) {
    size_t case_index = 0;
    const bool in_case = e.context.size() >= 3 && e.context[1] == "[cases]" &&
                         std::from_chars(e.context[2].data() + 1, e.context[2].data() + e.context[2].size() - 1,
                                         case_index)
                                 .ec == std::errc();
    (in_case ? case_errors[case_index] : file_errors).push_back(&e);
  }
  // valijson repeats each case failure as "Failed to validate item #N" on
  // `cases` and again on the root; those are not problems of their own.
  if (!case_errors.empty())
    std::erase_if(file_errors, [](const auto* e) {
      return e->context.size() <= 2 && e->description.starts_with("Failed to validate");
    });
  if (!file_errors.empty()) verdict.file_problem = most_specific(file_errors);
  for (const auto& [index, errors] : case_errors) verdict.case_problems.emplace(index, most_specific(errors));
  return verdict;
}

// ---------------------------------------------------------------------------
// Stage 3: semantics. Elements.

int64_t json_int64(const json& v, const std::string& field) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    fail(field, "integer " + v.dump() + " does not fit int64");
  if (!v.is_number_integer()) fail(field, "expected an integer, got " + v.dump());
  return v.get<int64_t>();
}

uint64_t integral_bits(int64_t i, DType t, const std::string& field) {
  if (i < dtype_int_min(t) || i > dtype_int_max(t))
    fail(field, std::to_string(i) + " is out of range of " + std::string(dtype_name(t)) + " [" +
                    std::to_string(dtype_int_min(t)) + ", " + std::to_string(dtype_int_max(t)) + "]");
  return bits_from_value(t, Value::of_int(i));
}

uint64_t float_bits(double d, DType t, const std::string& field) {
  const uint64_t bits = bits_from_value(t, Value::of_float(d));
  if (std::isfinite(d) && std::isinf(value_from_bits(t, bits).f))
    fail(field, "value " + json(d).dump() + " is out of range of " + std::string(dtype_name(t)) +
                    " (rounds to infinity; write \"inf\" if that is meant)");
  return bits;
}

uint64_t hex_bits(const std::string& s, DType t, const std::string& field) {
  uint64_t bits = 0;
  const char* first = s.data() + 2;
  const char* last = s.data() + s.size();
  const auto [end, ec] = std::from_chars(first, last, bits, 16);
  if (first == last || end != last || ec != std::errc()) fail(field, "\"" + s + "\" is not a 64-bit hex pattern");
  const size_t width = 8 * dtype_size(t);
  if (width < 64 && (bits >> width) != 0)
    fail(field, "bit pattern " + s + " is wider than " + std::string(dtype_name(t)) + " (" + std::to_string(width) + " bits)");
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
      if (!is_floating(t)) fail(field, "\"" + s + "\" is not a value of integral dtype " + type_name);
      const double special = s == "nan"    ? std::numeric_limits<double>::quiet_NaN()
                             : s == "inf"  ? std::numeric_limits<double>::infinity()
                             : s == "-inf" ? -std::numeric_limits<double>::infinity()
                                           : -0.0;
      return bits_from_value(t, Value::of_float(special));
    }
    if (is_floating(t)) {
      char* end = nullptr;
      const double d = std::strtod(s.c_str(), &end);  // correctly rounded decimal -> double
      if (s.empty() || *end != '\0') fail(field, "\"" + s + "\" is not a number");
      return float_bits(d, t, field);
    }
    int64_t i = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc::result_out_of_range) fail(field, "\"" + s + "\" is out of range of " + type_name);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
      fail(field, "\"" + s + "\" is not a decimal integer, \"nan\", \"inf\", \"-inf\", \"-0.0\" or 0x bits");
    return integral_bits(i, t, field);
  }
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (is_floating(t)) return float_bits(static_cast<double>(u), t, field);
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(field, std::to_string(u) + " is out of range of " + type_name);
    return integral_bits(static_cast<int64_t>(u), t, field);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    return is_floating(t) ? float_bits(static_cast<double>(i), t, field) : integral_bits(i, t, field);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (is_floating(t)) return float_bits(d, t, field);
    if (!std::isfinite(d) || std::trunc(d) != d)
      fail(field, v.dump() + " is not an integer, as integral dtype " + type_name + " needs");
    if (std::fabs(d) > 9007199254740992.0)  // 2^53: beyond it a JSON float may already have been rounded
      fail(field, v.dump() + " is beyond 2^53; write the integer as a decimal string");
    return integral_bits(static_cast<int64_t>(d), t, field);
  }
  fail(field, "expected an element (number, true/false or string), got " + v.dump());
}

// ---------------------------------------------------------------------------
// Stage 3: tensors.

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

int64_t checked_element_count(const Shape& shape, const std::string& field) {
  const int64_t n = checked_numel(shape);
  if (n < 0) fail(field, "shape " + format_shape(shape) + " has more elements than int64 can count");
  if (n > kMaxTensorElements)
    fail(field, "shape " + format_shape(shape) + " has " + std::to_string(n) + " elements; the limit is " +
                    std::to_string(kMaxTensorElements));
  return n;
}

// The number of storage elements a view needs, or a problem at `field`.
int64_t required_storage(const Shape& shape, const Shape& strides, int64_t offset, int64_t numel,
                         const std::string& field) {
  int64_t last = offset;
  if (numel > 0) {
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t span = 0;
      if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) || __builtin_add_overflow(last, span, &last))
        fail(field, "strides reach beyond int64");
    }
    ++last;
  }
  return last;
}

class TensorBuilder {
 public:
  TensorBuilder(const json& j, std::string path, DType dtype, int64_t& case_budget)
      : j_(j), path_(std::move(path)), dtype_(dtype), case_budget_(case_budget) {}

  Tensor build() {
    if (j_.contains("storage")) return build_from_storage();
    std::vector<const json*> elements;
    std::string form;
    if (j_.contains("data")) {
      form = "data";
      const std::string data_path = join_path(path_, "data");
      shape_ = j_.contains("shape") ? json_dims(j_["shape"], join_path(path_, "shape")) : infer_shape(j_["data"], data_path);
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
    numel_ = checked_element_count(shape_, field);
    if (numel_ > case_budget_)
      fail(field, "the case's tensors hold more than " + std::to_string(kMaxCaseElements) + " elements in all");
    case_budget_ -= numel_;
  }

  Shape strides_or_contiguous() {
    if (!j_.contains("strides")) return contiguous_strides(shape_);
    Shape strides = json_dims(j_["strides"], join_path(path_, "strides"));
    if (strides.size() != shape_.size())
      fail(join_path(path_, "strides"), "has " + std::to_string(strides.size()) + " entries for rank " +
                                            std::to_string(shape_.size()));
    return strides;
  }

  int64_t offset() const { return j_.contains("offset") ? json_int64(j_["offset"], join_path(path_, "offset")) : 0; }

  std::shared_ptr<std::vector<std::byte>> allocate(int64_t storage_elements, const std::string& field) const {
    if (storage_elements > kMaxStorageBytes / static_cast<int64_t>(dtype_size(dtype_)))
      fail(field, "the view needs " + std::to_string(storage_elements) + " storage elements; the limit is " +
                      std::to_string(kMaxStorageBytes) + " bytes");
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
    const std::string strides_field = join_path(path_, j_.contains("strides") ? "strides" : "offset");
    auto storage = allocate(required_storage(shape_, strides, start, numel_, strides_field), strides_field);
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
        fail(element_field(form, i), "shares storage element " + std::to_string(at) +
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
    const std::string field = join_path(path_, start > available ? "offset" : j_.contains("strides") ? "strides" : "shape");
    try {
      return Tensor::view(dtype_, shape_, strides, start, std::move(storage));
    } catch (const std::invalid_argument& e) {
      fail(field, std::string("view outside its storage: ") + e.what());
    }
  }

  const json& j_;
  const std::string path_;
  const DType dtype_;
  int64_t& case_budget_;
  Shape shape_;
  int64_t numel_ = 0;
};

// ---------------------------------------------------------------------------
// Stage 3: cases.

struct OpSignature {
  std::string_view op;
  std::vector<std::string> operands;  // all required, except `src` where `value` may replace it
  std::string_view data_operand;      // whose dtype the output has by default
  bool takes_dim, takes_reduce, takes_value, takes_overwrite;
};

const std::vector<OpSignature>& op_signatures() {
  static const std::vector<OpSignature> table = {
      {"torch.gather", {"input", "index"}, "input", true, false, false, false},
      {"torch.scatter_", {"self", "index", "src"}, "self", true, true, true, false},
      {"torch.scatter", {"self", "index", "src"}, "self", true, true, true, false},
      {"torch.scatter_add_", {"self", "index", "src"}, "self", true, false, false, false},
      {"torch.scatter_add", {"self", "index", "src"}, "self", true, false, false, false},
      {"mindspore.scatter_", {"self", "index", "src"}, "self", true, true, true, false},
      {"paddle.scatter", {"x", "index", "updates"}, "x", false, false, false, true},
  };
  return table;
}

Scalar scalar_from_json(const json& v, const std::string& field) {
  if (v.is_boolean()) return Scalar::of_bool(v.get<bool>());
  if (v.is_number_integer()) return Scalar::of_int(json_int64(v, field));
  if (v.is_number_float()) return Scalar::of_float(v.get<double>());
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "nan") return Scalar::of_float(std::numeric_limits<double>::quiet_NaN());
    if (s == "inf") return Scalar::of_float(std::numeric_limits<double>::infinity());
    if (s == "-inf") return Scalar::of_float(-std::numeric_limits<double>::infinity());
    if (s == "-0.0") return Scalar::of_float(-0.0);
  }
  fail(field, "expected true/false, a number, \"nan\", \"inf\", \"-inf\" or \"-0.0\", got " + v.dump());
}

std::string string_or_empty(const json& object, const char* key) {
  return object.is_object() && object.contains(key) ? object[key].get<std::string>() : std::string();
}

class CaseBuilder {
 public:
  CaseBuilder(const json& j, std::string path, const json& file_source, const std::string& file)
      : j_(j), path_(std::move(path)), file_source_(file_source), file_(file) {}

  Case build() {
    Case c;
    c.id = j_.at("id").get<std::string>();
    c.file = file_;
    c.call.op = j_.at("op").get<std::string>();
    const OpSignature& sig = signature(c.call.op);
    c.source = provenance();
    c.call.doc_version = c.source.doc_version;
    read_args(sig, c.call);
    read_inputs(sig, c.call);
    const Tensor* data_operand = c.call.tensor(std::string(sig.data_operand));
    const std::optional<DType> output_dtype = data_operand ? std::optional(data_operand->dtype()) : std::nullopt;
    c.expect = read_expect(output_dtype);
    if (j_.contains("erratum")) {
      const json& e = j_["erratum"];
      Erratum erratum{e.at("document").get<std::string>(), e.at("claim").get<std::string>(), std::nullopt};
      if (e.contains("claimed_output"))
        erratum.claimed_output = tensor(e["claimed_output"], join_path(path_, "erratum.claimed_output"), output_dtype);
      c.erratum = std::move(erratum);
    }
    if (j_.contains("tags")) c.tags = j_["tags"].get<std::vector<std::string>>();
    return c;
  }

 private:
  std::string field(std::string_view member) const { return join_path(path_, member); }

  const OpSignature& signature(const std::string& op) const {
    for (const OpSignature& sig : op_signatures())
      if (sig.op == op) return sig;
    fail(field("op"), "unknown op \"" + op + "\"");
  }

  // The case's source over the file's default source, field by field.
  Provenance provenance() const {
    const json none = json::object();
    const json& own = j_.contains("source") ? j_["source"] : none;
    auto pick = [&](const char* key) {
      std::string value = string_or_empty(own, key);
      return value.empty() ? string_or_empty(file_source_, key) : value;
    };
    Provenance p{pick("document"), pick("example"), pick("doc_version"), pick("kind")};
    if (p.document.empty())
      fail(field("source.document"), "missing: every case names its document (in the case or the file's source)");
    return p;
  }

  void read_args(const OpSignature& sig, OpCall& call) const {
    const json none = json::object();
    const json& args = j_.contains("args") ? j_["args"] : none;
    auto refuse = [&](const char* key, bool takes) {
      if (!takes && args.contains(key))
        fail(field(std::string("args.") + key), std::string(sig.op) + " takes no argument " + key);
    };
    refuse("dim", sig.takes_dim);
    refuse("reduce", sig.takes_reduce);
    refuse("value", sig.takes_value);
    refuse("overwrite", sig.takes_overwrite);
    if (sig.takes_dim && !args.contains("dim")) fail(field("args.dim"), std::string(sig.op) + " needs args.dim");
    if (args.contains("dim")) call.set_arg("dim", Arg::of_int(json_int64(args["dim"], field("args.dim"))));
    if (args.contains("reduce")) call.set_arg("reduce", Arg::of_string(args["reduce"].get<std::string>()));
    if (args.contains("value")) call.set_arg("value", Arg::of_scalar(scalar_from_json(args["value"], field("args.value"))));
    if (args.contains("overwrite")) call.set_arg("overwrite", Arg::of_bool(args["overwrite"].get<bool>()));
  }

  void read_inputs(const OpSignature& sig, OpCall& call) {
    const json& inputs = j_.at("inputs");
    for (const auto& [name, value] : inputs.items()) {
      if (std::find(sig.operands.begin(), sig.operands.end(), name) == sig.operands.end()) {
        std::string names;
        for (const std::string& operand : sig.operands) names += (names.empty() ? "" : ", ") + operand;
        fail(field("inputs." + name), std::string(sig.op) + " has no operand " + name + " (its operands: " + names + ")");
      }
      call.tensors.emplace(name, tensor(value, field("inputs." + name), std::nullopt));
    }
    for (const std::string& operand : sig.operands) {
      const bool given = call.tensors.count(operand) > 0;
      if (operand == "src" && sig.takes_value) {
        if (given && call.scalar_arg("value")) fail(field("args.value"), "give either inputs.src or args.value, not both");
        if (!given && !call.scalar_arg("value")) fail(field("inputs.src"), "missing: " + std::string(sig.op) + " needs inputs.src or args.value");
      } else if (!given) {
        fail(field("inputs." + operand), "missing: " + std::string(sig.op) + " needs operand " + operand);
      }
    }
  }

  CaseExpect read_expect(std::optional<DType> output_dtype) {
    const json& e = j_.at("expect");
    CaseExpect expect;
    if (e.contains("output")) {
      expect.kind = CaseExpect::Kind::Output;
      expect.outputs.push_back(tensor(e["output"], field("expect.output"), output_dtype));
    } else if (e.contains("one_of")) {
      expect.kind = CaseExpect::Kind::OneOf;
      for (size_t i = 0; i < e["one_of"].size(); ++i)
        expect.outputs.push_back(tensor(e["one_of"][i], indexed(field("expect.one_of"), i), output_dtype));
    } else if (e.contains("error")) {
      expect.kind = CaseExpect::Kind::Error;
      const std::string name = e["error"].get<std::string>();
      expect.error = error_from_name(name);
      if (!expect.error) fail(field("expect.error"), "unknown error category \"" + name + "\"");
      expect.text = string_or_empty(e, "message");
    } else if (e.contains("unspecified")) {
      expect.kind = CaseExpect::Kind::Unspecified;
      expect.text = e["unspecified"].get<std::string>();
    } else {
      fail(field("expect"), "needs one of output, one_of, error, unspecified");
    }
    if (e.contains("atol")) expect.atol = e["atol"].get<double>();
    return expect;
  }

  Tensor tensor(const json& t, const std::string& path, std::optional<DType> default_dtype) {
    std::optional<DType> dtype = default_dtype;
    if (t.contains("dtype")) {
      const std::string name = t["dtype"].get<std::string>();
      dtype = dtype_from_name(name);
      if (!dtype) fail(join_path(path, "dtype"), "unknown dtype \"" + name + "\"");
    }
    if (!dtype) fail(join_path(path, "dtype"), "missing, and there is no operand to take it from");
    return TensorBuilder(t, path, *dtype, element_budget_).build();
  }

  const json& j_;
  const std::string path_;
  const json& file_source_;
  const std::string& file_;
  int64_t element_budget_ = kMaxCaseElements;
};

std::string read_file(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw SpecError(path, "", "", "cannot read: " + ec.message());
  if (size > kMaxSpecFileBytes)
    throw SpecError(path, "", "", "file is " + std::to_string(size) + " bytes; the limit is " + std::to_string(kMaxSpecFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path, "", "", "cannot open for reading");
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (static_cast<uint64_t>(in.gcount()) != size) throw SpecError(path, "", "", "read failed");
  return text;
}

}  // namespace

std::string_view spec_schema_text() {
  static const std::string text = read_schema_text();
  return text;
}

LoadReport load_spec_text_lenient(std::string_view text, const std::string& file_name) {
  LoadReport report;
  json document;
  SchemaVerdict verdict;
  try {
    document = parse_json(text, file_name);
    std::string path;
    check_string_lengths(document, path, file_name);
    verdict = check_schema(document);
  } catch (const SpecError& e) {
    report.errors.push_back(e);
    return report;
  }
  if (verdict.file_problem) {
    report.errors.emplace_back(file_name, "", verdict.file_problem->field, verdict.file_problem->message);
    return report;
  }
  const json& cases = document["cases"];
  const json no_source = json::object();
  const json& file_source = document.contains("source") ? document["source"] : no_source;
  std::map<std::string, size_t> first_with_id;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = indexed("cases", i);
    const json& jc = cases[i];
    const bool has_id = jc.is_object() && jc.contains("id") && jc["id"].is_string() && !jc["id"].get_ref<const std::string&>().empty();
    const std::string label = has_id ? jc["id"].get<std::string>() : path;
    if (has_id) {
      const auto [it, fresh] = first_with_id.emplace(label, i);
      if (!fresh) {
        report.errors.emplace_back(file_name, label, join_path(path, "id"),
                                   "duplicate case id; first used by " + indexed("cases", it->second));
        continue;
      }
    }
    if (const auto problem = verdict.case_problems.find(i); problem != verdict.case_problems.end()) {
      report.errors.emplace_back(file_name, label, problem->second.field, problem->second.message);
      continue;
    }
    try {
      report.cases.push_back(CaseBuilder(jc, path, file_source, file_name).build());
    } catch (const CaseProblem& p) {
      report.errors.emplace_back(file_name, label, p.field, p.message);
    } catch (const json::exception& e) {  // a shape the schema should have refused
      report.errors.emplace_back(file_name, label, path, std::string("malformed case: ") + e.what());
    }
  }
  return report;
}

std::vector<Case> load_spec_text(std::string_view text, const std::string& file_name) {
  LoadReport report = load_spec_text_lenient(text, file_name);
  if (!report.errors.empty()) throw report.errors.front();
  return std::move(report.cases);
}

LoadReport load_spec_file_lenient(const std::string& path) {
  try {
    return load_spec_text_lenient(read_file(path), path);
  } catch (const SpecError& e) {
    return LoadReport{{}, {e}};
  }
}

std::vector<Case> load_spec_file(const std::string& path) { return load_spec_text(read_file(path), path); }

std::vector<std::string> find_spec_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        // schema/ holds the JSON Schema, expectations/ the CI gate's
        // expectation files: neither is a spec file.
        if (it->is_directory() && (it->path().filename() == "schema" || it->path().filename() == "expectations"))
          it.disable_recursion_pending();
        else if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path().string());
      }
      if (ec) throw SpecError(path, "", "", "cannot list directory: " + ec.message());
    } else if (fs::exists(path, ec)) {
      files.push_back(path);
    } else {
      throw SpecError(path, "", "", "no such file or directory");
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// ---------------------------------------------------------------------------
// Writing.

namespace {

// The shortest decimal that loads back to exactly `bits` (the loader parses
// decimals to double and rounds once to the dtype).
json float_element(DType t, uint64_t bits) {
  const double v = value_from_bits(t, bits).f;
  if (std::isnan(v)) {
    const uint64_t canonical = bits_from_value(t, Value::of_float(std::numeric_limits<double>::quiet_NaN()));
    return bits == canonical ? json("nan") : json(format_bits(t, bits));
  }
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0.0 && std::signbit(v)) return "-0.0";
  for (int precision = 1; precision <= 17; ++precision) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, v);
    const double candidate = std::strtod(buffer, nullptr);
    if (bits_from_value(t, Value::of_float(candidate)) == bits) return candidate;
  }
  return v;  // 17 significant digits always round-trip a double; not reached
}

json element_to_json(DType t, uint64_t bits) {
  if (is_floating(t)) return float_element(t, bits);
  if (t == DType::Bool) return bits <= 1 ? json(bits == 1) : json(format_bits(t, bits));  // e.g. a sentinel gap
  const int64_t i = value_from_bits(t, bits).i;
  constexpr int64_t kExactInDouble = int64_t{1} << 53;
  if (i > kExactInDouble || i < -kExactInDouble) return std::to_string(i);
  return i;
}

json nested_data(const Tensor& t, Shape& idx, size_t level) {
  if (level == idx.size()) return element_to_json(t.dtype(), t.bits_at(idx));
  json array = json::array();
  for (idx[level] = 0; idx[level] < t.size(static_cast<int64_t>(level)); ++idx[level])
    array.push_back(nested_data(t, idx, level + 1));
  return array;
}

json scalar_to_json(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Bool: return s.b;
    case Scalar::Kind::Int: return s.i;
    case Scalar::Kind::Float:
      if (std::isnan(s.f)) return "nan";
      if (std::isinf(s.f)) return s.f > 0 ? "inf" : "-inf";
      if (s.f == 0.0 && std::signbit(s.f)) return "-0.0";
      return s.f;
  }
  return nullptr;
}

}  // namespace

json tensor_to_json(const Tensor& t) {
  json j = {{"dtype", std::string(dtype_name(t.dtype()))}};
  const int64_t numel = t.numel();
  const bool plain = t.offset() == 0 && t.strides() == contiguous_strides(t.shape()) &&
                     static_cast<int64_t>(t.storage_elements()) == numel;
  if (plain) {
    if (numel == 0) j["shape"] = t.shape();
    Shape idx(t.shape().size(), 0);
    j["data"] = nested_data(t, idx, 0);
    return j;
  }
  j["shape"] = t.shape();
  j["strides"] = t.strides();
  j["offset"] = t.offset();
  json storage = json::array();
  for (size_t i = 0; i < t.storage_elements(); ++i)
    storage.push_back(element_to_json(t.dtype(), load_bits(t.dtype(), t.storage()->data() + i * dtype_size(t.dtype()))));
  j["storage"] = std::move(storage);
  return j;
}

json case_to_json(const Case& c) {
  json j = {{"id", c.id}, {"op", c.call.op}};
  json source = json::object();
  for (const auto& [key, value] : {std::pair{"document", &c.source.document}, std::pair{"example", &c.source.example},
                                   std::pair{"doc_version", &c.source.doc_version}, std::pair{"kind", &c.source.kind}})
    if (!value->empty()) source[key] = *value;
  j["source"] = source;
  json args = json::object();
  if (c.call.int_arg("dim")) args["dim"] = *c.call.int_arg("dim");
  if (c.call.string_arg("reduce")) args["reduce"] = *c.call.string_arg("reduce");
  if (c.call.scalar_arg("value")) args["value"] = scalar_to_json(*c.call.scalar_arg("value"));
  if (c.call.bool_arg("overwrite")) args["overwrite"] = *c.call.bool_arg("overwrite");
  if (!args.empty()) j["args"] = args;
  json inputs = json::object();
  for (const auto& [name, tensor] : c.call.tensors) inputs[name] = tensor_to_json(tensor);
  j["inputs"] = inputs;
  json expect = json::object();
  switch (c.expect.kind) {
    case CaseExpect::Kind::Output: expect["output"] = tensor_to_json(c.expect.outputs.at(0)); break;
    case CaseExpect::Kind::OneOf:
      expect["one_of"] = json::array();
      for (const Tensor& t : c.expect.outputs) expect["one_of"].push_back(tensor_to_json(t));
      break;
    case CaseExpect::Kind::Error:
      expect["error"] = std::string(error_name(*c.expect.error));
      if (!c.expect.text.empty()) expect["message"] = c.expect.text;
      break;
    case CaseExpect::Kind::Unspecified: expect["unspecified"] = c.expect.text; break;
  }
  const bool has_outputs = c.expect.kind == CaseExpect::Kind::Output || c.expect.kind == CaseExpect::Kind::OneOf;
  if (has_outputs && c.expect.atol != 0.0) expect["atol"] = c.expect.atol;
  j["expect"] = expect;
  if (c.erratum) {
    json e = {{"document", c.erratum->document}, {"claim", c.erratum->claim}};
    if (c.erratum->claimed_output) e["claimed_output"] = tensor_to_json(*c.erratum->claimed_output);
    j["erratum"] = e;
  }
  if (!c.tags.empty()) j["tags"] = c.tags;
  return j;
}

json spec_file_json(const std::vector<Case>& cases, const std::string& description) {
  json j = {{"format", std::string(kSpecFormat)}, {"description", description}, {"cases", json::array()}};
  for (const Case& c : cases) j["cases"].push_back(case_to_json(c));
  return j;
}

}  // namespace sp
