// case.h — a spec case as loaded from JSON: the call, its provenance, what
// the documents say should happen, and any document erratum about it.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/errors.h"
#include "reference/op_call.h"
#include "reference/program.h"

namespace sp {

struct Provenance {
  std::string document;     // seed file name or other document
  std::string example;      // which example / sentence
  std::string doc_version;  // documentation version where meaning changed
  std::string kind;         // example | edge | erratum | regression | fuzz
};

// What the case's documents say happens (checked against the reference).
struct CaseExpect {
  enum class Kind { Output, OneOf, Error, Unspecified };
  Kind kind = Kind::Output;
  std::vector<Tensor> outputs;  // Output: one tensor (a backward: one per gradient); OneOf: the alternatives
  double atol = 0.0;            // Output/OneOf: the document printed rounded values
  std::optional<ErrorCategory> error;
  std::string text;  // Error: the document's message; Unspecified: the reason
  // A backward case's Output: the gradients' names, in output order
  // ("grad_self", "grad_src"); a program's: its compared tensors' names
  // (program.expect); empty otherwise.
  std::vector<std::string> output_names;
};

struct Erratum {
  std::string document;
  std::string claim;
  std::optional<Tensor> claimed_output;
};

// The op id a program case's `call` carries (no op table entry has it): its
// tensors are the program's inputs, and Case::program says what runs.
inline constexpr std::string_view kProgramOp = "program";

struct Case {
  std::string id;
  std::string file;  // path the case was loaded from ("<fuzz>" for generated ones)
  OpCall call;
  // A program case (reference/program.h): `call.op` is kProgramOp, and
  // expect.outputs are the compared tensors, named by expect.output_names.
  std::shared_ptr<const Program> program;
  bool is_program() const { return program != nullptr; }
  Provenance source;
  CaseExpect expect;
  std::optional<Erratum> erratum;
  std::vector<std::string> tags;
  // The versions of the op's framework the case applies to ("versions",
  // FORMAT.md: ">=2.8", "<2.10", ">=1.13,<2.0"); empty: every version. A
  // backend answering for a version outside it gets not_applicable.
  std::string versions;
  // Why nothing of the case runs in this process (a case tagged `huge`
  // loaded without --allow-huge: its tensors are not built); empty: it runs.
  // The runner answers not_applicable with it, for the reference and each
  // backend.
  std::string not_run;
};

// A problem with spec input. what() is "FILE: case ID: field FIELD: message".
class SpecError : public std::runtime_error {
 public:
  SpecError(std::string file, std::string case_id, std::string field, std::string message);
  const std::string& file() const { return file_; }
  const std::string& case_id() const { return case_id_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, case_id_, field_, message_;
};

}  // namespace sp
