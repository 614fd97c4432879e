/* abi1_plugin.c — a plugin as a vendor built it for plugin ABI 1.0, for
 * tests/plugin_isolation_test.cc: the host must refuse it, naming both ABI
 * versions and pointing at the migration note in docs/plugin-abi.md.
 *
 * It is compiled against the frozen ABI 1.0 header in abi1/scatterproof/
 * (not the current SDK), and reads its arguments through the 1.x fields
 * (sp_call.has_dim / dim) that 2.0 replaced by sp_call.args. Its run()
 * aborts on any call with a dim: a host that called it at all would be
 * handing a 2.0 sp_call to 1.0 code, and the test must see that as a crash.
 */
#include <scatterproof/plugin.h>
#include <stdlib.h>
#include <string.h>

#if SP_PLUGIN_ABI_MAJOR != 1
#error "abi1_plugin.c must be built against tests/data/plugin/abi1/scatterproof/plugin.h"
#endif

static int supports(const char* op, sp_dtype dtype) {
  return strcmp(op, "torch.gather") == 0 && dtype == SP_DTYPE_FLOAT32;
}

static int run(const sp_call* call, sp_result* result) {
  if (!call->has_dim) {
    result->message = "torch.gather needs dim";
    return SP_STATUS_UNSUPPORTED;
  }
  abort();
}

static const sp_plugin plugin = {
    sizeof(sp_plugin), SP_PLUGIN_ABI_MAJOR, SP_PLUGIN_ABI_MINOR, "abi1-vendor", "1.0.0", supports, run, NULL,
};

SP_PLUGIN_EXPORT const sp_plugin* sp_plugin_entry(void) { return &plugin; }
