/* planted_plugin.c — the example vendor plugin (examples/plugin/vendor_scatter.c)
 * plus torch.scatter_'s reduce form (add / multiply), with at most one bug
 * planted behind a branch, for measuring coverage-guided against blind
 * fuzzing (docs/fuzzing.md, "Coverage-guided fuzzing of a plugin"):
 *
 *   SP_PLANTED=0  no bug: every spec and fuzz case agrees with the reference
 *   SP_PLANTED=1  "transposed-64-rows": torch.scatter_ with a transposed 2-D
 *                 src (stride of dim 0 below that of dim 1) of at least 64 rows
 *                 takes a "fast path" that leaves the first index row unwritten
 *   SP_PLANTED=2  "over-2^16": torch.gather with more than 2^16 output elements
 *                 takes a "chunked path" whose last element is written as zero
 *   SP_PLANTED=3  "dtype-reduce": torch.scatter_ with reduce='multiply' on
 *                 int64 adds instead of multiplying
 *
 * Each bug is reached only through its branch: a fuzzer that does not draw
 * the layout, the size or the dtype/reduce pair never sees it. */
#define sp_plugin_entry vendor_scatter_entry
#include "../../../examples/plugin/vendor_scatter.c"
#undef sp_plugin_entry

#ifndef SP_PLANTED
#define SP_PLANTED 0
#endif

SP_PLUGIN_EXPORT const sp_plugin* sp_plugin_entry(void);

/* self[pos with pos[dim] = index[pos]] op= src[pos], op add or multiply
 * (torch.scatter_'s reduce form: T-R1, checks as scatter_inplace's). */
static int scatter_reduce_inplace(const sp_call* call, sp_result* result) {
  const sp_tensor* self = sp_call_tensor(call, "self");
  const sp_tensor* index = sp_call_tensor(call, "index");
  const sp_tensor* src = sp_call_tensor(call, "src");
  const sp_arg* reduce = sp_call_arg(call, "reduce");
  int64_t dim = 0;
  if (decline_unknown_args(call, kScatterArgs, 3, result) != SP_STATUS_OK) return SP_STATUS_UNSUPPORTED;
  if (!src || !self || !index || reduce->type != SP_ARG_STRING)
    return decline(result, "planted_plugin implements the src form of scatter_'s reduce only");
  if (check_dim(call, self, &dim, result) != SP_STATUS_OK) return SP_STATUS_ERROR;
  const int multiply = strcmp(reduce->s, "multiply") == 0;
  if (!multiply && strcmp(reduce->s, "add") != 0)
    return fail(result, SP_ERROR_INVALID_REDUCE, "reduce argument must be either add or multiply.");
  const int empty = numel(index) == 0;
  if (!empty && !index_dtype_ok(call, index))
    return fail(result, SP_ERROR_INDEX_DTYPE, "scatter(): Expected dtype int64 for index");
  if (src->dtype != self->dtype)
    return fail(result, SP_ERROR_DTYPE_MISMATCH, "scatter(): Expected self.dtype to be equal to src.dtype");
  if (!empty) {
    if (logical_rank(index) != logical_rank(self) || logical_rank(index) != logical_rank(src))
      return fail(result, SP_ERROR_RANK_MISMATCH,
                  "Index tensor must have the same number of dimensions as self tensor");
    for (int64_t d = 0; d < logical_rank(index); ++d)
      if (logical_size(index, d) > logical_size(src, d) || (d != dim && logical_size(index, d) > logical_size(self, d)))
        return fail(result, SP_ERROR_SHAPE_MISMATCH,
                    "Expected index to be smaller than self apart from dimension %lld and to be smaller size than src",
                    (long long)dim);
  }
  if (has_internal_overlap(self))
    return fail(
        result, SP_ERROR_OVERLAPPING_OUTPUT,
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location");
  if (empty) return SP_STATUS_OK;
  if (check_bounds(index, dim, logical_size(self, dim), result) != SP_STATUS_OK) return SP_STATUS_ERROR;
  const int planted_add = SP_PLANTED == 3 && multiply && self->dtype == SP_DTYPE_INT64;
  int64_t pos[64] = {0}, to[64];
  do {
    memcpy(to, pos, sizeof pos);
    to[dim] = index_at(index, pos);
    char* at = element(self, to);
    const char* from = element(src, pos);
    if (self->dtype == SP_DTYPE_FLOAT32) {
      float a, b;
      memcpy(&a, at, sizeof a);
      memcpy(&b, from, sizeof b);
      a = multiply ? a * b : a + b;
      memcpy(at, &a, sizeof a);
    } else {
      uint64_t a, b; /* int64 wraps: two's complement in unsigned arithmetic */
      memcpy(&a, at, sizeof a);
      memcpy(&b, from, sizeof b);
      a = multiply && !planted_add ? a * b : a + b;
      memcpy(at, &a, sizeof a);
    }
  } while (next_position(pos, index));
  return SP_STATUS_OK;
}

/* Bug 1's branch: a transposed 2-D src of at least 64 rows. After the
 * correct scatter, the "fast path" restores the first index row's targets
 * from `saved` (their values before the call): that row is left unwritten. */
static int transposed_tall(const sp_call* call) {
  const sp_tensor* src = sp_call_tensor(call, "src");
  const sp_tensor* index = sp_call_tensor(call, "index");
  if (!src || !index || src->ndim != 2 || index->ndim != 2 || sp_call_arg(call, "reduce")) return 0;
  if (!(src->strides[0] < src->strides[1])) return 0;
  return src->shape[0] >= 64 && index->shape[0] > 0 && index->shape[1] > 0;
}

static int scatter_planted_1(const sp_call* call, sp_result* result) {
  const sp_tensor* self = sp_call_tensor(call, "self");
  const sp_tensor* index = sp_call_tensor(call, "index");
  const sp_arg* d = sp_call_arg(call, "dim");
  if (!self || self->ndim != 2 || !d || d->i < -2 || d->i > 1 || self->dtype == SP_DTYPE_INT32)
    return scatter_inplace(call, result);
  const int64_t dim = d->i < 0 ? d->i + 2 : d->i;
  const size_t width = sp_dtype_size(self->dtype);
  const int64_t cols = index->shape[1];
  char* saved = malloc((size_t)cols * width + 1);
  if (!saved) return decline(result, "out of memory");
  int64_t pos[2] = {0, 0}, to[2];
  int valid = 1;
  for (pos[1] = 0; pos[1] < cols; ++pos[1]) {
    const int64_t v = index_dtype_ok(call, index) ? index_at(index, pos) : -1;
    if (v < 0 || v >= self->shape[dim] || pos[1] >= self->shape[1 - dim]) valid = 0;
    if (!valid) break;
    to[0] = pos[0], to[1] = pos[1];
    to[dim] = v;
    memcpy(saved + pos[1] * (int64_t)width, element(self, to), width);
  }
  const int status = scatter_inplace(call, result);
  if (status == SP_STATUS_OK && valid) {
    for (pos[1] = 0; pos[1] < cols; ++pos[1]) {
      to[0] = pos[0], to[1] = pos[1];
      to[dim] = index_at(index, pos);
      memcpy(element(self, to), saved + pos[1] * (int64_t)width, width);
    }
  }
  free(saved);
  return status;
}

/* Bug 2's branch: more than 2^16 output elements. */
static int gather_planted_2(const sp_call* call, sp_result* result) {
  const int status = gather(call, result);
  const sp_tensor* out = sp_call_tensor(call, "out");
  if (status != SP_STATUS_OK || !out || numel(out) <= (int64_t)1 << 16) return status;
  int64_t pos[64] = {0};
  for (int32_t d = 0; d < out->ndim; ++d) pos[d] = out->shape[d] - 1;
  memset(element(out, pos), 0, sp_dtype_size(out->dtype));
  return status;
}

static int planted_run(const sp_call* call, sp_result* result) {
  const int is_scatter = strcmp(call->op, "torch.scatter_") == 0;
  if (is_scatter && sp_call_arg(call, "reduce") && sp_call_tensor(call, "src"))
    return scatter_reduce_inplace(call, result);
  if (SP_PLANTED == 1 && is_scatter && transposed_tall(call)) return scatter_planted_1(call, result);
  if (SP_PLANTED == 2 && strcmp(call->op, "torch.gather") == 0) return gather_planted_2(call, result);
  return run(call, result);
}

static const sp_plugin planted = {
    sizeof(sp_plugin), SP_PLUGIN_ABI_MAJOR, SP_PLUGIN_ABI_MINOR, "planted_plugin", "1.0.0", supports, planted_run, NULL,
    backward,
};

SP_PLUGIN_EXPORT const sp_plugin* sp_plugin_entry(void) { return &planted; }
