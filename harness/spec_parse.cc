// spec_parse.cc — stage 1 of the spec loader (spec_loader_internal.h): the
// limits that must hold before a parser touches the raw text (file size,
// nesting depth, string length), JSON parsing with duplicate keys refused,
// and SpecError itself.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
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

std::string excerpt(std::string_view text) {
  if (text.size() <= kMaxQuotedChars) return std::string(text);
  size_t cut = kMaxQuotedChars;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return std::string(text.substr(0, cut)) + "\u2026(" + std::to_string(text.size()) + " chars)";
}

std::string excerpt(const json& v) {
  // An array or object may be most of a 64 MiB file: named by its size, never dumped.
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " entries";
  if (v.is_object()) return "an object of " + std::to_string(v.size()) + " members";
  if (v.is_string()) return "\"" + excerpt(v.get_ref<const std::string&>()) + "\"";
  return excerpt(v.dump());
}

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
//
// It also keeps the sign of a tensor element written `-0`: nlohmann reads it
// as the signed integer 0, which is 0 once stored (or packed), so an element
// `-0` (under "data", "values", "storage" or "fill") becomes the decimal
// string "-0", which the element rules read as negative zero for a float
// dtype and as 0 for an integral one (specs/FORMAT.md "Element values").
// Elsewhere (`"dim": -0`, a scalar `"value": -0`, a Python int) it stays 0.
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
          throw SpecError(file_, "", path(), "duplicate key \"" + excerpt(object.key) + "\"");
        break;
      }
      case json::parse_event_t::value:
        enter_value();
        if (parsed.is_number_integer() && !parsed.is_number_unsigned() && parsed.get<int64_t>() == 0 && in_element())
          parsed = "-0";
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

  // Whether the value being parsed is a tensor element: the innermost
  // object's member is data/values/storage/fill (arrays may lie between).
  bool in_element() const {
    for (auto f = frames_->rbegin(); f != frames_->rend(); ++f)
      if (f->is_object) return f->key == "data" || f->key == "values" || f->key == "storage" || f->key == "fill";
    return false;
  }

  std::string path() const {
    std::string p;
    for (const Frame& f : *frames_) p = f.is_object ? join_path(p, excerpt(f.key)) : indexed(p, f.next_index - 1);
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
    path = join_path(path, excerpt(key));  // keys are quoted short too
    check_lengths_under(value, path, file);
    path.resize(length);
  }
}

// nlohmann quotes the token it stopped at ("last read: '...'", "number
// overflow parsing '...'"): an 8-million-digit number is cut to an excerpt.
std::string shorten_quotes(const std::string& message) {
  const size_t open = message.find('\'');
  const size_t close = message.rfind('\'');
  if (open == std::string::npos || close <= open + 1) return message;
  return message.substr(0, open + 1) + excerpt(std::string_view(message).substr(open + 1, close - open - 1)) +
         message.substr(close);
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// Why `path`, which is not a readable regular file, cannot be a spec file.
[[noreturn]] void refuse_path(const std::string& path, const std::string& why) {
  throw SpecError(path, "", "", why + "; a spec file must be a readable regular file");
}

[[noreturn]] void refuse_non_regular(const std::string& path, mode_t mode) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (S_ISDIR(mode) && fs::is_symlink(fs::symlink_status(path, ec))) {
    // A symlink to its own directory or an ancestor (find_spec_files lists
    // it instead of following it): a loop.
    const fs::path target = fs::canonical(path, ec);
    const fs::path here = fs::weakly_canonical(fs::absolute(path, ec).parent_path(), ec);
    if (!ec && std::mismatch(target.begin(), target.end(), here.begin(), here.end()).first == target.end())
      refuse_path(path, "symlink loop: it leads back to " + excerpt(target.string()) + ", a directory it lies in");
  }
  if (S_ISDIR(mode)) {  // find_spec_files lists a directory it cannot list
    fs::directory_iterator listing(path, ec);
    if (ec) throw SpecError(path, "", "", "directory cannot be listed: " + ec.message());
  }
  refuse_path(path, "is " + kind_of(mode));
}

[[noreturn]] void refuse_unopenable(const std::string& path, int error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (error == ELOOP) refuse_path(path, "symlink loop (too many levels of symbolic links)");
  if (error == ENOENT && fs::is_symlink(fs::symlink_status(path, ec))) {
    const fs::path target = fs::read_symlink(path, ec);
    refuse_path(path, "dangling symlink to " + excerpt(target.string()));
  }
  refuse_path(path, std::string("cannot open: ") + std::strerror(error));
}

}  // namespace

json parse_json(std::string_view text, const std::string& file, const ParseHook& hook) {
  if (text.size() > kMaxSpecFileBytes)
    throw SpecError(
        file, "", "",
        "file is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxSpecFileBytes));
  check_nesting_depth(text, file);
  try {
    DuplicateKeyCheck duplicates(file);
    return json::parse(text, [&duplicates, &hook](int depth, json::parse_event_t event, json& parsed) {
      duplicates(depth, event, parsed);
      return hook ? hook(depth, event, parsed) : true;
    });
  } catch (const json::exception& e) {
    // parse_error, or out_of_range for a number beyond double/int64 (found by
    // the spec_loader fuzz target). nlohmann's message already says where;
    // drop its "[json.exception.KIND.N] " prefix.
    std::string message = e.what();
    if (const size_t close = message.find("] "); message.starts_with("[json.exception") && close != std::string::npos)
      message.erase(0, close + 2);
    throw SpecError(file, "", "", "invalid JSON: " + shorten_quotes(message));
  }
}

std::string read_file(const std::string& path) {
  // Whatever a path is, nothing here blocks: a non-regular file (a FIFO named
  // *.json, a directory, a device) is refused from stat() before any open,
  // and the open is non-blocking in case the path changed in between.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) refuse_unopenable(path, errno);
  if (!S_ISREG(st.st_mode)) refuse_non_regular(path, st.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) refuse_unopenable(path, errno);
  const std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* f) {
    ::close(*f);
    delete f;
  });
  if (::fstat(fd, &st) != 0) refuse_path(path, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse_non_regular(path, st.st_mode);
  const auto size_error = [&](uint64_t size) {
    return SpecError(path, "", "",
                     "file is " + std::to_string(size) + " bytes; the limit is " + std::to_string(kMaxSpecFileBytes));
  };
  if (static_cast<uint64_t>(st.st_size) > kMaxSpecFileBytes) throw size_error(static_cast<uint64_t>(st.st_size));
  // Read to the end, not to st_size: a file that grows meanwhile is still
  // held to the limit.
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t have = 0;
  for (;;) {
    if (have == text.size()) {
      if (text.size() > kMaxSpecFileBytes) throw size_error(text.size());
      text.resize(std::min<size_t>(std::max<size_t>(2 * text.size(), 4096), kMaxSpecFileBytes + 1));
    }
    const ssize_t n = ::read(fd, text.data() + have, text.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse_path(path, std::string("read failed: ") + std::strerror(errno));
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  text.resize(have);
  return text;
}

void check_string_lengths(const json& document, const std::string& file) {
  std::string path;
  check_lengths_under(document, path, file);
}

}  // namespace spec_internal
}  // namespace sp
