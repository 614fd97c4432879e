// runner_specs.cc — the case side of runner.h: the case filter, and the
// spec files streamed (or loaded) case by case with duplicate ids reported.
#include <fmt/format.h>
#include <fnmatch.h>

#include <functional>
#include <unordered_map>

#include "harness/runner.h"
#include "harness/spec_loader.h"

namespace sp {

bool case_matches(const Case& c, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  constexpr std::string_view kTagPrefix = "tag:";
  for (const std::string& f : filters) {
    if (f.starts_with(kTagPrefix)) {
      const std::string tag_glob = f.substr(kTagPrefix.size());
      for (const std::string& tag : c.tags)
        if (fnmatch(tag_glob.c_str(), tag.c_str(), 0) == 0) return true;
    } else if (fnmatch(f.c_str(), c.id.c_str(), 0) == 0) {
      return true;
    }
  }
  return false;
}

void stream_specs(const std::vector<std::string>& paths, const CaseFn& on_case, const ErrorFn& on_error) {
  std::vector<std::string> files;
  try {
    files = find_spec_files(paths);
  } catch (const SpecError& e) {
    on_error(SpecError(e));
    return;
  }
  // Ids seen so far, by a 64-bit hash with the index of the file that used
  // it: memory per case stays a few bytes however many cases stream by. A
  // hash collision of two different ids (about 1e-8 across a million ids)
  // would be reported as a duplicate naming both files.
  std::unordered_map<uint64_t, uint32_t> first_file_of_id;
  for (uint32_t f = 0; f < files.size(); ++f) {
    stream_spec_file(
        files[f],
        [&](Case&& c) {
          const auto [it, fresh] = first_file_of_id.emplace(std::hash<std::string>{}(c.id), f);
          if (!fresh) {
            on_error(SpecError(c.file, c.id, "id",
                               fmt::format("duplicate case id; first defined in {}", files[it->second])));
            return;
          }
          on_case(std::move(c));
        },
        on_error);
  }
}

LoadedSpecs load_specs(const std::vector<std::string>& paths) {
  LoadedSpecs out;
  stream_specs(
      paths, [&](Case&& c) { out.cases.push_back(std::move(c)); },
      [&](SpecError&& e) { out.errors.push_back(std::move(e)); });
  return out;
}

}  // namespace sp
