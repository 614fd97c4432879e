// op_text.h — the op table (reference/op_table.h) as text, for
// `scatterproof ops` (the whole table: what a plugin author implements) and
// `explain` (the case's op, before the reference's trace).
#pragma once

#include <string>
#include <vector>

#include "reference/op_call.h"
#include "reference/op_table.h"

namespace sp {

// The op's header line ("torch.scatter_ [torch, in place]: summary") and one
// indented line each for its source, operands, arguments and output. With
// `call`, each argument line also says what the call passes (or that the
// default applies).
std::vector<std::string> describe_op(const OpSpec& op, const OpCall* call = nullptr);

}  // namespace sp
