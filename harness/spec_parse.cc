// spec_parse.cc — stage 1 of the spec loader (spec_loader_internal.h): the
// limits that must hold before a parser touches the raw text (file size,
// nesting depth, string length), JSON parsing with duplicate keys refused,
// and SpecError itself.
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "harness/spec_loader.h"
#include "harness/spec_loader_internal.h"

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

namespace spec_internal {

void fail(std::string field, std::string message) { throw CaseProblem{std::move(field), std::move(message)}; }

std::string join_path(const std::string& base, std::string_view member) {
  return base.empty() ? std::string(member) : base + "." + std::string(member);
}

std::string indexed(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

namespace {

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
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
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
      case json::parse_event_t::array_end:
        frames_->pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& object = frames_->back();
        object.key = parsed.get<std::string>();
        if (!object.keys.insert(object.key).second)
          throw SpecError(file_, "", path(), "duplicate key \"" + object.key + "\"");
        break;
      }
      case json::parse_event_t::value:
        enter_value();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;
    std::string key;    // object: the member being parsed
    size_t next_index;  // array: one past the element being parsed
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

// Long strings are refused before the schema runs: valijson checks
// `pattern` with std::regex, whose matcher recurses once per character.
void check_lengths_under(const json& node, std::string& path, const std::string& file) {
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
      check_lengths_under(node[i], path, file);
      path.resize(length);
    }
    return;
  }
  for (const auto& [key, value] : node.items()) {
    if (key.size() > kMaxJsonStringChars) throw SpecError(file, "", path, "object key longer than the limit");
    path = join_path(path, key);
    check_lengths_under(value, path, file);
    path.resize(length);
  }
}

}  // namespace

json parse_json(std::string_view text, const std::string& file) {
  if (text.size() > kMaxSpecFileBytes)
    throw SpecError(
        file, "", "",
        "file is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxSpecFileBytes));
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

std::string read_file(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw SpecError(path, "", "", "cannot read: " + ec.message());
  if (size > kMaxSpecFileBytes)
    throw SpecError(path, "", "",
                    "file is " + std::to_string(size) + " bytes; the limit is " + std::to_string(kMaxSpecFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path, "", "", "cannot open for reading");
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (static_cast<uint64_t>(in.gcount()) != size) throw SpecError(path, "", "", "read failed");
  return text;
}

void check_string_lengths(const json& document, const std::string& file) {
  std::string path;
  check_lengths_under(document, path, file);
}

}  // namespace spec_internal
}  // namespace sp
