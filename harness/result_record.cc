// result_record.cc — the repro command of a result (result_record.h).
#include "harness/result_record.h"

#include <fmt/format.h>

#include <exception>

#include "reference/reference.h"

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

std::string not_implemented_detail(const std::string& backend) {
  return "backend " + backend + " does not implement this op; nothing was run";
}

std::string repro_command(const std::string& backend, const std::string& case_id, const std::string& file) {
  // The id is always quoted so a reader sees it is a glob argument.
  std::string quoted_id = shell_quote(case_id);
  if (quoted_id.front() != '\'') quoted_id = "'" + quoted_id + "'";
  return fmt::format("scatterproof run --backend {} --filter {} {}", shell_quote(backend), quoted_id,
                     shell_quote(file));
}

std::vector<std::string> explanation_lines(const OpCall& call, const std::string& explain_command) {
  int64_t elements = 0;
  for (const auto& [name, t] : call.tensors) elements += t.numel();
  if (elements > kMaxExplainedElements)
    return {fmt::format("(a call of {} elements is not traced in the reports: `{}` prints every check and write)",
                        elements, explain_command)};
  std::vector<std::string> all;
  try {
    Trace trace;
    const Expectation e = evaluate(call, &trace);
    all = explain_lines(call, e, trace);
  } catch (const std::exception& ex) {
    return {fmt::format("(the reference could not explain this call: {})", ex.what())};
  }
  return bounded_explanation(std::move(all), explain_command);
}

std::vector<std::string> bounded_explanation(std::vector<std::string> all, const std::string& explain_command) {
  std::vector<std::string> out;
  for (size_t i = 0; i < all.size() && i < kMaxExplanationLines; ++i)
    out.push_back(all[i].size() <= kMaxExplanationLineChars ? all[i]
                                                            : all[i].substr(0, kMaxExplanationLineChars) + "...");
  if (all.size() > kMaxExplanationLines)
    out.push_back(
        fmt::format("... {} more lines: `{}` prints them all", all.size() - kMaxExplanationLines, explain_command));
  return out;
}

}  // namespace sp
