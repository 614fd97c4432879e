// program_gen.h — programs of 2 to 4 steps drawn from the choice stream
// (issue 32 item 3; reference/program.h), for `scatterproof fuzz --programs`.
//
// A program is a write of PyTorch's scatter / index_* family (in place or
// out of place: generate_call_for draws it as for a single call, so its
// sizes, dtypes, layouts, duplicates and invalid arguments are the single
// call generator's), then, at choice > 0, a view of the written buffer
// (transpose or narrow), then a read of the buffer (gather, index_select or
// take_along_dim, its index drawn against the buffer's shape, edges
// included), then, at choice > 0, an in-place write back into the buffer
// that reads the read's result (scatter_add_ with the gather's index,
// index_add_ with the index_select's). Choice 0 means "no view" and "no
// third step", so the shrinker (fuzz/shrink.h), moving choices towards 0,
// removes steps as well as elements. Sizes are drawn per program, so a
// compiled backend's graphs meet varying sizes (dynamic shapes).
#pragma once

#include "fuzz/case_gen.h"
#include "reference/program.h"

namespace sp::fuzz {

// REQUIRES: the op table has PyTorch's write and read ops.
Program generate_program(Choices& choices);

}  // namespace sp::fuzz
