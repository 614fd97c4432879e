// result_record.cc — the repro command of a result (result_record.h).
#include "harness/result_record.h"

#include <fmt/format.h>

namespace sp {

std::string shell_quote(const std::string& s) {
  const bool plain =
      !s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:+=-,@") ==
                        std::string::npos;
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string repro_command(const std::string& backend, const std::string& case_id, const std::string& file) {
  // The id is always quoted so a reader sees it is a glob argument.
  std::string quoted_id = shell_quote(case_id);
  if (quoted_id.front() != '\'') quoted_id = "'" + quoted_id + "'";
  return fmt::format("scatterproof run --backend {} --filter {} {}", shell_quote(backend), quoted_id,
                     shell_quote(file));
}

}  // namespace sp
