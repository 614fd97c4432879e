/* vendor_scatter.c — an example scatterproof plugin: torch.gather,
 * torch.index_select and torch.scatter_ (src form, no reduce) for float32
 * and int64 data, on any strided layout. gather and index_select honour a
 * caller's out= (ABI 2.1): its dtype must be the result's and it must not
 * share memory with an input (reference/SEMANTICS.md, T-OUT*).
 *
 * Everything else is declined: supports() answers 0 for other ops and
 * dtypes, and run() returns SP_STATUS_UNSUPPORTED for the `value` and
 * `reduce` forms of scatter_ and for any argument it does not know (a newer
 * harness may pass arguments this file has never heard of: plugin.h,
 * "Arguments"). Argument errors are reported with the
 * category LibTorch documents, checked in LibTorch's order (a call breaking
 * several rules may report any of them; the bounds check runs last).
 *
 * Whether out= shares memory with an input is decided element by element
 * (shares_memory), so an out interleaving with its input is run.
 *
 * It also implements the backward of torch.gather for float32 (ABI 2.2's
 * optional backward entry point, plugin.h "Backward").
 *
 * Build it against an installed scatterproof (see CMakeLists.txt) and run
 *   scatterproof run --backend plugin:$PWD/build/libvendor_scatter.so specs/torch
 */
#include <scatterproof/plugin.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sp_result.message points here: valid until the next call (plugin.h). */
static char message[512];

static int fail(sp_result* result, sp_error_category category, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  result->category = category;
  result->message = message;
  return SP_STATUS_ERROR;
}

static int decline(sp_result* result, const char* why) {
  result->message = why;
  return SP_STATUS_UNSUPPORTED;
}

/* The arguments each kernel understands (value and reduce only to decline
 * those forms by name); a call with any other is declined, never run as if
 * the argument were not there. */
static const char* const kGatherArgs[] = {"dim"}; /* index_select's too */
static const char* const kScatterArgs[] = {"dim", "value", "reduce"};

static int decline_unknown_args(const sp_call* call, const char* const* known, size_t num_known, sp_result* result) {
  const char* unknown = sp_call_unknown_arg(call, known, num_known);
  if (!unknown) return SP_STATUS_OK;
  snprintf(message, sizeof message, "vendor_scatter does not implement argument '%s' of %s", unknown, call->op);
  return decline(result, message);
}

/* PyTorch treats a rank-0 tensor as rank 1 of size 1 for dim purposes. */
static int64_t logical_rank(const sp_tensor* t) { return t->ndim == 0 ? 1 : t->ndim; }
static int64_t logical_size(const sp_tensor* t, int64_t d) { return t->ndim == 0 ? 1 : t->shape[d]; }
static int64_t logical_stride(const sp_tensor* t, int64_t d) { return t->ndim == 0 ? 0 : t->strides[d]; }

static int64_t numel(const sp_tensor* t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

static char* element(const sp_tensor* t, const int64_t* pos) {
  int64_t offset = 0;
  for (int64_t d = 0; d < logical_rank(t); ++d) offset += pos[d] * logical_stride(t, d);
  return (char*)t->data + t->byte_offset + offset * (int64_t)sp_dtype_size(t->dtype);
}

/* Advances a row-major multi-index over t's logical shape; 0 after the last. */
static int next_position(int64_t* pos, const sp_tensor* t) {
  for (int64_t d = logical_rank(t) - 1; d >= 0; --d) {
    if (++pos[d] < logical_size(t, d)) return 1;
    pos[d] = 0;
  }
  return 0;
}

/* The call's torch version (sp_call.doc_version: "" is the baseline, 1.13)
 * takes an int32 index for gather and scatter from 2.8 on
 * (reference/SEMANTICS.md, versioned rule T-I2). */
static int accepts_int32_index(const sp_call* call) {
  int major = 1, minor = 13;
  if (call->doc_version && call->doc_version[0]) {
    const char* v =
        call->doc_version[0] == 'r' || call->doc_version[0] == 'v' ? call->doc_version + 1 : call->doc_version;
    if (sscanf(v, "%d.%d", &major, &minor) < 1) return 0;
  }
  return major > 2 || (major == 2 && minor >= 8);
}

static int index_dtype_ok(const sp_call* call, const sp_tensor* index) {
  return index->dtype == SP_DTYPE_INT64 || (index->dtype == SP_DTYPE_INT32 && accepts_int32_index(call));
}

static int64_t index_at(const sp_tensor* index, const int64_t* pos) {
  if (index->dtype == SP_DTYPE_INT32) {
    int32_t v;
    memcpy(&v, element(index, pos), sizeof v);
    return v;
  }
  int64_t v;
  memcpy(&v, element(index, pos), sizeof v);
  return v;
}

static int check_dim(const sp_call* call, const sp_tensor* t, int64_t* dim, sp_result* result) {
  const int64_t rank = logical_rank(t);
  const sp_arg* given = sp_call_arg(call, "dim");
  const int64_t value = given ? given->i : 0;
  if (!given || value < -rank || value >= rank)
    return fail(result, SP_ERROR_DIM_OUT_OF_RANGE,
                "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)", (long long)-rank,
                (long long)(rank - 1), (long long)value);
  *dim = value < 0 ? value + rank : value;
  return SP_STATUS_OK;
}

/* Every index value lies in [0, size). */
static int check_bounds(const sp_tensor* index, int64_t dim, int64_t size, sp_result* result) {
  int64_t pos[64] = {0};
  do {
    const int64_t v = index_at(index, pos);
    if (v < 0 || v >= size)
      return fail(result, SP_ERROR_INDEX_OUT_OF_BOUNDS, "index %lld is out of bounds for dimension %lld with size %lld",
                  (long long)v, (long long)dim, (long long)size);
  } while (next_position(pos, index));
  return SP_STATUS_OK;
}

/* Can two multi-indices of t address one element? (sorted-stride test) */
static int has_internal_overlap(const sp_tensor* t) {
  int64_t strides[64], sizes[64];
  int n = 0;
  if (numel(t) <= 1) return 0;
  for (int32_t d = 0; d < t->ndim; ++d) {
    if (t->shape[d] <= 1) continue;
    int k = n++;
    for (; k > 0 && strides[k - 1] > t->strides[d]; --k) {
      strides[k] = strides[k - 1];
      sizes[k] = sizes[k - 1];
    }
    strides[k] = t->strides[d];
    sizes[k] = t->shape[d];
  }
  int64_t span = 1;
  for (int k = 0; k < n; ++k) {
    if (strides[k] < span) return 1;
    span += strides[k] * (sizes[k] - 1);
  }
  return 0;
}

/* The bytes [lo, hi) a tensor's elements span (lo == hi when it has none). */
static void byte_span(const sp_tensor* t, const char** lo, const char** hi) {
  const char* base = (const char*)t->data + t->byte_offset;
  int64_t first = 0, last = 0;
  *lo = *hi = base;
  if (numel(t) == 0) return;
  for (int32_t d = 0; d < t->ndim; ++d) {
    const int64_t reach = t->strides[d] * (t->shape[d] - 1);
    if (reach < 0)
      first += reach;
    else
      last += reach;
  }
  *lo = base + first * (int64_t)sp_dtype_size(t->dtype);
  *hi = base + (last + 1) * (int64_t)sp_dtype_size(t->dtype);
}

static int spans_overlap(const sp_tensor* a, const sp_tensor* b) {
  const char *a_lo, *a_hi, *b_lo, *b_hi;
  byte_span(a, &a_lo, &a_hi);
  byte_span(b, &b_lo, &b_hi);
  return a_lo < a_hi && b_lo < b_hi && a_lo < b_hi && b_lo < a_hi;
}

static int compare_addresses(const void* x, const void* y) {
  const uintptr_t a = *(const uintptr_t*)x, b = *(const uintptr_t*)y;
  return (a > b) - (a < b);
}

/* The start addresses of t's `count` elements, sorted (NULL: out of memory). */
static uintptr_t* sorted_addresses(const sp_tensor* t, int64_t count) {
  uintptr_t* addresses = malloc((size_t)count * sizeof *addresses);
  int64_t pos[64] = {0}, n = 0;
  if (!addresses) return NULL;
  do addresses[n++] = (uintptr_t)element(t, pos);
  while (next_position(pos, t));
  qsort(addresses, (size_t)count, sizeof *addresses, compare_addresses);
  return addresses;
}

/* Does one of the elements starting at sorted[0..count), `width` bytes
 * each, share a byte with [lo, hi)? Binary search for the first element
 * that ends after lo; it shares a byte when it starts before hi. */
static int any_element_in(const uintptr_t* sorted, int64_t count, size_t width, uintptr_t lo, uintptr_t hi) {
  int64_t first = 0, last = count;
  while (first < last) {
    const int64_t mid = first + (last - first) / 2;
    if (sorted[mid] + width <= lo)
      first = mid + 1;
    else
      last = mid;
  }
  return first < count && sorted[first] < hi;
}

/* Do a and b share a memory location (a byte of some element of each)?
 * That, not overlapping address ranges, is PyTorch's rule (T-OUT3): two
 * views of one storage may interleave without sharing an element, e.g.
 * out = s[0::2] and input = s[1::2], and such an out is allowed. Exact for
 * any strided layout: the smaller view's element addresses are sorted and
 * each element of the other is looked up among them, so memory and time are
 * bounded by the two tensors' sizes. 1: shared, 0: not, -1: out of memory. */
static int shares_memory(const sp_tensor* a, const sp_tensor* b) {
  if (!spans_overlap(a, b)) return 0; /* disjoint byte ranges (or an empty view): nothing to enumerate */
  const sp_tensor* listed = numel(a) <= numel(b) ? a : b; /* the smaller view */
  const sp_tensor* other = listed == a ? b : a;
  const int64_t count = numel(listed);
  uintptr_t* starts = sorted_addresses(listed, count);
  if (!starts) return -1;
  const size_t listed_width = sp_dtype_size(listed->dtype), other_width = sp_dtype_size(other->dtype);
  int64_t pos[64] = {0};
  int shared = 0;
  do {
    const uintptr_t lo = (uintptr_t)element(other, pos);
    shared = any_element_in(starts, count, listed_width, lo, lo + other_width);
  } while (!shared && next_position(pos, other));
  free(starts);
  return shared;
}

/* The out a gather-like op writes: the host's (contiguous, the result's
 * dtype) or, from ABI 2.1, the caller's out= — then its dtype, its own
 * overlap and whether it shares an element with an input are checked as
 * PyTorch does. */
static int check_out(const sp_tensor* out, const sp_tensor* input, const sp_tensor* index, sp_result* result) {
  if (out->dtype != input->dtype)
    return fail(result, SP_ERROR_DTYPE_MISMATCH, "Expected out tensor to have dtype %d, but got %d instead",
                (int)input->dtype, (int)out->dtype);
  if (has_internal_overlap(out))
    return fail(
        result, SP_ERROR_OVERLAPPING_OUTPUT,
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location");
  const int with_input = shares_memory(out, input);
  const int with_index = with_input == 1 ? 0 : shares_memory(out, index);
  if (with_input < 0 || with_index < 0) return decline(result, "vendor_scatter: out of memory checking out='s overlap");
  if (with_input || with_index)
    return fail(result, SP_ERROR_OVERLAPPING_OUTPUT,
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location");
  return SP_STATUS_OK;
}

/* out[pos] = input[pos with pos[dim] = index[pos]] */
static int gather(const sp_call* call, sp_result* result) {
  const sp_tensor* input = sp_call_tensor(call, "input");
  const sp_tensor* index = sp_call_tensor(call, "index");
  const sp_tensor* out = sp_call_tensor(call, "out");
  int64_t dim = 0;
  if (!input || !index || !out) return decline(result, "torch.gather needs input, index and out");
  if (decline_unknown_args(call, kGatherArgs, 1, result) != SP_STATUS_OK) return SP_STATUS_UNSUPPORTED;
  if (check_dim(call, input, &dim, result) != SP_STATUS_OK) return SP_STATUS_ERROR;
  if (numel(index) == 0) return check_out(out, input, index, result);
  if (!index_dtype_ok(call, index))
    return fail(result, SP_ERROR_INDEX_DTYPE, "gather(): Expected dtype int64 for index");
  if (logical_rank(index) != logical_rank(input))
    return fail(result, SP_ERROR_RANK_MISMATCH, "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < logical_rank(index); ++d)
    if (d != dim && logical_size(index, d) > logical_size(input, d))
      return fail(result, SP_ERROR_SHAPE_MISMATCH, "Size does not match at dimension %lld", (long long)d);
  if (check_bounds(index, dim, logical_size(input, dim), result) != SP_STATUS_OK) return SP_STATUS_ERROR;
  if (check_out(out, input, index, result) != SP_STATUS_OK) return SP_STATUS_ERROR;

  const size_t width = sp_dtype_size(input->dtype);
  int64_t pos[64] = {0}, from[64];
  do {
    memcpy(from, pos, sizeof pos);
    from[dim] = index_at(index, pos);
    memcpy(element(out, pos), element(input, from), width);
  } while (next_position(pos, index));
  return SP_STATUS_OK;
}

/* self[pos with pos[dim] = index[pos]] = src[pos] */
static int scatter_inplace(const sp_call* call, sp_result* result) {
  const sp_tensor* self = sp_call_tensor(call, "self");
  const sp_tensor* index = sp_call_tensor(call, "index");
  const sp_tensor* src = sp_call_tensor(call, "src");
  int64_t dim = 0;
  if (decline_unknown_args(call, kScatterArgs, 3, result) != SP_STATUS_OK) return SP_STATUS_UNSUPPORTED;
  if (!src) return decline(result, "vendor_scatter implements only the src form of scatter_");
  if (sp_call_arg(call, "reduce")) return decline(result, "vendor_scatter implements scatter_ without reduce only");
  if (!self || !index) return decline(result, "torch.scatter_ needs self, index and src");
  if (check_dim(call, self, &dim, result) != SP_STATUS_OK) return SP_STATUS_ERROR;
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
                    "Expected index to be smaller than self apart from dimension %lld "
                    "and to be smaller size than src",
                    (long long)dim);
  }
  if (has_internal_overlap(self))
    return fail(
        result, SP_ERROR_OVERLAPPING_OUTPUT,
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location");
  if (empty) return SP_STATUS_OK;
  if (check_bounds(index, dim, logical_size(self, dim), result) != SP_STATUS_OK) return SP_STATUS_ERROR;

  const size_t width = sp_dtype_size(self->dtype);
  int64_t pos[64] = {0}, to[64];
  do {
    memcpy(to, pos, sizeof pos);
    to[dim] = index_at(index, pos);
    memcpy(element(self, to), element(src, pos), width);
  } while (next_position(pos, index));
  return SP_STATUS_OK;
}

/* out[..., i, ...] = input[..., index[i], ...] along dim; index is 1-D or 0-d,
 * int32 or int64, its values in [0, input.size(dim)). */
static int index_select(const sp_call* call, sp_result* result) {
  const sp_tensor* input = sp_call_tensor(call, "input");
  const sp_tensor* index = sp_call_tensor(call, "index");
  const sp_tensor* out = sp_call_tensor(call, "out");
  int64_t dim = 0;
  if (!input || !index || !out) return decline(result, "torch.index_select needs input, index and out");
  if (decline_unknown_args(call, kGatherArgs, 1, result) != SP_STATUS_OK) return SP_STATUS_UNSUPPORTED;
  if (check_dim(call, input, &dim, result) != SP_STATUS_OK) return SP_STATUS_ERROR;
  if (index->ndim > 1)
    return fail(result, SP_ERROR_INVALID_ARGUMENT, "index_select(): Index is supposed to be a vector");
  if (index->dtype != SP_DTYPE_INT32 && index->dtype != SP_DTYPE_INT64)
    return fail(result, SP_ERROR_INDEX_DTYPE, "index_select(): Expected dtype int32 or int64 for index");
  if (input->ndim == 0 && numel(index) != 1)
    return decline(result, "a 0-d input with an index of other than one value is undefined (T-IS7)");
  if (numel(index) > 0 && check_bounds(index, dim, logical_size(input, dim), result) != SP_STATUS_OK)
    return SP_STATUS_ERROR;
  if (check_out(out, input, index, result) != SP_STATUS_OK) return SP_STATUS_ERROR;
  if (numel(out) == 0) return SP_STATUS_OK;

  const size_t width = sp_dtype_size(input->dtype);
  int64_t pos[64] = {0}, from[64], at[1];
  do {
    memcpy(from, pos, sizeof pos);
    at[0] = pos[dim];
    from[dim] = index_at(index, at);
    memcpy(element(out, pos), element(input, from), width);
  } while (next_position(pos, out));
  return SP_STATUS_OK;
}

/* The backward of gather (ABI 2.2, plugin.h "Backward"): grad_input, which
 * the host hands over zeroed, gets grad_output added at index along dim
 * (duplicates accumulate). The forward's rules first, then grad_output's
 * shape and dtype. float32 only (the only floating dtype supported). */
static int gather_backward(const sp_call* call, sp_result* result) {
  const sp_tensor* input = sp_call_tensor(call, "input");
  const sp_tensor* index = sp_call_tensor(call, "index");
  const sp_tensor* grad_output = sp_call_tensor(call, "grad_output");
  const sp_tensor* grad_input = sp_call_tensor(call, "grad_input");
  int64_t dim = 0;
  if (!input || !index || !grad_output || !grad_input)
    return decline(result, "torch.gather.backward needs input, index, grad_output and grad_input");
  if (decline_unknown_args(call, kGatherArgs, 1, result) != SP_STATUS_OK) return SP_STATUS_UNSUPPORTED;
  if (check_dim(call, input, &dim, result) != SP_STATUS_OK) return SP_STATUS_ERROR;
  if (numel(index) > 0) {
    if (!index_dtype_ok(call, index))
      return fail(result, SP_ERROR_INDEX_DTYPE, "gather(): Expected dtype int64 for index");
    if (logical_rank(index) != logical_rank(input))
      return fail(result, SP_ERROR_RANK_MISMATCH,
                  "Index tensor must have the same number of dimensions as input tensor");
    for (int64_t d = 0; d < logical_rank(index); ++d)
      if (d != dim && logical_size(index, d) > logical_size(input, d))
        return fail(result, SP_ERROR_SHAPE_MISMATCH, "Size does not match at dimension %lld", (long long)d);
    if (check_bounds(index, dim, logical_size(input, dim), result) != SP_STATUS_OK) return SP_STATUS_ERROR;
  }
  if (grad_output->ndim != index->ndim)
    return fail(result, SP_ERROR_SHAPE_MISMATCH, "grad_output must have the shape of gather's output (index's)");
  for (int64_t d = 0; d < index->ndim; ++d)
    if (grad_output->shape[d] != index->shape[d])
      return fail(result, SP_ERROR_SHAPE_MISMATCH, "grad_output must have the shape of gather's output (index's)");
  if (grad_output->dtype != input->dtype)
    return fail(result, SP_ERROR_DTYPE_MISMATCH, "grad_output must have the dtype of gather's output (input's)");
  if (input->dtype != SP_DTYPE_FLOAT32)
    return fail(result, SP_ERROR_UNSUPPORTED_DTYPE, "only Tensors of floating point dtype can require gradients");
  if (numel(index) == 0) return SP_STATUS_OK;
  int64_t pos[64] = {0}, to[64];
  do {
    memcpy(to, pos, sizeof pos);
    to[dim] = index_at(index, pos);
    *(float*)element(grad_input, to) += *(const float*)element(grad_output, pos);
  } while (next_position(pos, index));
  return SP_STATUS_OK;
}

static int supports(const char* op, sp_dtype dtype) {
  if (strcmp(op, "torch.gather.backward") == 0) return dtype == SP_DTYPE_FLOAT32;
  const int op_ok =
      strcmp(op, "torch.gather") == 0 || strcmp(op, "torch.index_select") == 0 || strcmp(op, "torch.scatter_") == 0;
  return op_ok && (dtype == SP_DTYPE_FLOAT32 || dtype == SP_DTYPE_INT64);
}

static int backward(const sp_call* call, sp_result* result) {
  if (strcmp(call->op, "torch.gather.backward") == 0) return gather_backward(call, result);
  return decline(result, "vendor_scatter implements no other backward");
}

static int run(const sp_call* call, sp_result* result) {
  if (strcmp(call->op, "torch.gather") == 0) return gather(call, result);
  if (strcmp(call->op, "torch.index_select") == 0) return index_select(call, result);
  if (strcmp(call->op, "torch.scatter_") == 0) return scatter_inplace(call, result);
  return decline(result, "vendor_scatter does not implement this op");
}

static const sp_plugin plugin = {
    sizeof(sp_plugin), SP_PLUGIN_ABI_MAJOR, SP_PLUGIN_ABI_MINOR, "vendor_scatter", "1.0.0", supports, run, NULL,
    backward,
};

SP_PLUGIN_EXPORT const sp_plugin* sp_plugin_entry(void) { return &plugin; }
