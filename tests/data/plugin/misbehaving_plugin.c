/* misbehaving_plugin.c — test plugins for tests/plugin_isolation_test.cc.
 *
 * One correct torch.gather for float32 (any strided layout; the tests send
 * only valid calls), built once per SP_TEST_MODE into its own library. Each
 * mode misbehaves on calls with dim == 1 only, so a test can check that the
 * other calls of the same run still get correct results:
 *   crash  segfaults (a write through a null pointer)
 *   hang   never returns
 *   slow   sleeps 300 ms, then answers correctly
 *   lie    claims success but writes 42 into every output element
 *   print  answers correctly but writes to stdout on every call (printf and
 *          write(1, ...)), and from a constructor at load time
 *   abi    correct, but declares ABI major SP_PLUGIN_ABI_MAJOR + 1
 *   status returns 7, which is not an sp_status
 *   abi20  correct, but declares ABI 2.0 (before a caller's out= existed)
 */
#include <scatterproof/plugin.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MODE_CRASH 1
#define MODE_HANG 2
#define MODE_SLOW 3
#define MODE_LIE 4
#define MODE_PRINT 5
#define MODE_ABI 6
#define MODE_STATUS 7
#define MODE_ABI20 8
#ifndef SP_TEST_MODE
#error "define SP_TEST_MODE"
#endif

/* It also claims gather's backward, but has no backward entry point (an ABI
 * 2.1-style struct): the host must never offer it, let alone pass such a
 * call to run() (which would misbehave on it). */
static int supports(const char* op, sp_dtype dtype) {
  return (strcmp(op, "torch.gather") == 0 || strcmp(op, "torch.gather.backward") == 0) && dtype == SP_DTYPE_FLOAT32;
}

static char* element(const sp_tensor* t, const int64_t* pos) {
  int64_t offset = 0;
  for (int32_t d = 0; d < t->ndim; ++d) offset += pos[d] * t->strides[d];
  return (char*)t->data + t->byte_offset + offset * (int64_t)sp_dtype_size(t->dtype);
}

static int next_position(int64_t* pos, const sp_tensor* t) {
  for (int32_t d = t->ndim - 1; d >= 0; --d) {
    if (++pos[d] < t->shape[d]) return 1;
    pos[d] = 0;
  }
  return 0;
}

static int run(const sp_call* call, sp_result* result) {
  const sp_tensor* input = sp_call_tensor(call, "input");
  const sp_tensor* index = sp_call_tensor(call, "index");
  const sp_tensor* out = sp_call_tensor(call, "out");
  const sp_arg* dim_arg = sp_call_arg(call, "dim");
  const int64_t dim = dim_arg ? dim_arg->i : 0;
  const int misbehave = dim == 1;
  (void)result;
  if (SP_TEST_MODE == MODE_PRINT) {
    printf("{\"type\":\"result\",\"id\":999} garbage from printf\n");
    fflush(stdout);
    if (write(1, "garbage from write(1)\n", 22) < 0) return SP_STATUS_UNSUPPORTED;
  }
  if (misbehave && SP_TEST_MODE == MODE_CRASH) *(volatile int*)0 = 1;
  if (misbehave && SP_TEST_MODE == MODE_HANG)
    for (;;) pause();
  if (misbehave && SP_TEST_MODE == MODE_SLOW) usleep(300 * 1000);
  if (misbehave && SP_TEST_MODE == MODE_STATUS) return 7;

  int64_t pos[64] = {0}, from[64];
  if (input->ndim == 0 || index->ndim == 0) return SP_STATUS_UNSUPPORTED;
  do {
    float value;
    memcpy(from, pos, sizeof pos);
    memcpy(&from[dim], element(index, pos), sizeof(int64_t));
    memcpy(&value, element(input, from), sizeof value);
    if (misbehave && SP_TEST_MODE == MODE_LIE) value = 42.0f;
    memcpy(element(out, pos), &value, sizeof value);
  } while (next_position(pos, index));
  return SP_STATUS_OK;
}

#if SP_TEST_MODE == MODE_PRINT
__attribute__((constructor)) static void print_at_load(void) { printf("garbage from a constructor\n"); }
#endif

static const sp_plugin plugin = {
    sizeof(sp_plugin),
    SP_TEST_MODE == MODE_ABI ? SP_PLUGIN_ABI_MAJOR + 1 : SP_PLUGIN_ABI_MAJOR,
    SP_TEST_MODE == MODE_ABI20 ? 0 : SP_PLUGIN_ABI_MINOR,
    "misbehaving",
    "0",
    supports,
    run,
    NULL,
};

SP_PLUGIN_EXPORT const sp_plugin* sp_plugin_entry(void) { return &plugin; }
