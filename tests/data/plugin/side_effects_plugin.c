/* side_effects_plugin.c — test plugins for tests/side_effects_test.cc: a
 * torch.scatter_ (src, no reduce) on 1-D float32 self, built once per
 * SP_SIDE_EFFECTS_MODE into its own library:
 *   correct      every rule checked before the first write (C-1)
 *   write_input  correct, then also writes into src (an operand it only reads)
 *   partial      writes while it checks the index values (as LibTorch does),
 *                and checks src's dtype and the sizes only after writing: a
 *                call breaking one of those rules is reported with self
 *                already written
 * Supports only 1-D operands with an int64 index and a float32 or float64
 * src (anything else: unsupported); the tests send nothing else.
 */
#include <scatterproof/plugin.h>
#include <string.h>

#define MODE_CORRECT 0
#define MODE_WRITE_INPUT 1
#define MODE_PARTIAL 2
#ifndef SP_SIDE_EFFECTS_MODE
#error "define SP_SIDE_EFFECTS_MODE"
#endif

static int supports(const char* op, sp_dtype dtype) {
  return strcmp(op, "torch.scatter_") == 0 && dtype == SP_DTYPE_FLOAT32;
}

static char* element(const sp_tensor* t, int64_t i) {
  return (char*)t->data + t->byte_offset + i * t->strides[0] * (int64_t)sp_dtype_size(t->dtype);
}

static double read_src(const sp_tensor* src, int64_t i) {
  if (src->dtype == SP_DTYPE_FLOAT64) {
    double d;
    memcpy(&d, element(src, i), sizeof d);
    return d;
  }
  float f;
  memcpy(&f, element(src, i), sizeof f);
  return f;
}

static int fail(sp_result* result, sp_error_category category, const char* message) {
  result->category = category;
  result->message = message;
  return SP_STATUS_ERROR;
}

/* Writes self[index[i]] = src[i] for every i, checking each index value as
 * it goes: stops at the first one out of range, the ones before written. */
static int write_all(const sp_tensor* self, const sp_tensor* index, const sp_tensor* src, sp_result* result) {
  for (int64_t i = 0; i < index->shape[0]; ++i) {
    int64_t target;
    memcpy(&target, element(index, i), sizeof target);
    if (target < 0 || target >= self->shape[0])
      return fail(result, SP_ERROR_INDEX_OUT_OF_BOUNDS, "index out of bounds");
    const float value = (float)read_src(src, i);
    memcpy(element(self, target), &value, sizeof value);
  }
  return SP_STATUS_OK;
}

static int run(const sp_call* call, sp_result* result) {
  const sp_tensor* self = sp_call_tensor(call, "self");
  const sp_tensor* index = sp_call_tensor(call, "index");
  const sp_tensor* src = sp_call_tensor(call, "src");
  const sp_arg* dim = sp_call_arg(call, "dim");
  if (!self || !index || !src || !dim || dim->i != 0 || sp_call_arg(call, "reduce") || self->ndim != 1 ||
      index->ndim != 1 || src->ndim != 1 || index->dtype != SP_DTYPE_INT64 ||
      (src->dtype != SP_DTYPE_FLOAT32 && src->dtype != SP_DTYPE_FLOAT64)) {
    result->message = "side_effects plugin: only 1-D scatter_ with an int64 index and a float src";
    return SP_STATUS_UNSUPPORTED;
  }
  const int dtype_ok = src->dtype == self->dtype;
  const int sizes_ok = index->shape[0] <= src->shape[0];
  if (SP_SIDE_EFFECTS_MODE == MODE_PARTIAL) {
    const int status = write_all(self, index, src, result);
    if (status != SP_STATUS_OK) return status;
    if (!dtype_ok) return fail(result, SP_ERROR_DTYPE_MISMATCH, "src dtype differs from self");
    if (!sizes_ok) return fail(result, SP_ERROR_SHAPE_MISMATCH, "index is longer than src");
    return SP_STATUS_OK;
  }
  if (!dtype_ok) return fail(result, SP_ERROR_DTYPE_MISMATCH, "src dtype differs from self");
  if (!sizes_ok) return fail(result, SP_ERROR_SHAPE_MISMATCH, "index is longer than src");
  for (int64_t i = 0; i < index->shape[0]; ++i) {
    int64_t target;
    memcpy(&target, element(index, i), sizeof target);
    if (target < 0 || target >= self->shape[0])
      return fail(result, SP_ERROR_INDEX_OUT_OF_BOUNDS, "index out of bounds");
  }
  const int status = write_all(self, index, src, result);
  if (status == SP_STATUS_OK && SP_SIDE_EFFECTS_MODE == MODE_WRITE_INPUT && src->shape[0] > 0) {
    const float bumped = (float)read_src(src, 0) + 1.0f; /* a float32 src: the tests send one */
    memcpy(element(src, 0), &bumped, sizeof bumped);
  }
  return status;
}

static const sp_plugin plugin = {
    sizeof(sp_plugin), SP_PLUGIN_ABI_MAJOR, SP_PLUGIN_ABI_MINOR, "side-effects", "0", supports, run, NULL, NULL,
};

SP_PLUGIN_EXPORT const sp_plugin* sp_plugin_entry(void) { return &plugin; }
