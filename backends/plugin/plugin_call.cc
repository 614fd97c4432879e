// plugin_call.cc — a vendor plugin (include/scatterproof/plugin.h) loaded
// and called in this process: the ABI checks at load, the ops it offers,
// and one request run through it as the line protocol answers it
// (plugin_call.h). scatterproof-plugin-host serves it out of the harness's
// process; the coverage-guided fuzz target (fuzz/targets/plugin_guided.cc)
// calls it in process.
#include "backends/plugin/plugin_call.h"

#include <dlfcn.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/errors.h"
#include "reference/op_table.h"

namespace sp::plugin {
namespace {

// The ABI's enums mirror the harness's by value; these keep them in step.
static_assert(static_cast<int>(DType::Bool) == SP_DTYPE_BOOL && static_cast<int>(DType::Float64) == SP_DTYPE_FLOAT64 &&
              static_cast<int>(DType::BFloat16) == SP_DTYPE_BFLOAT16 &&
              static_cast<int>(DType::UInt16) == SP_DTYPE_UINT16 &&
              static_cast<int>(DType::UInt64) == SP_DTYPE_UINT64 && kNumDTypes == 13);
static_assert(std::size(kAllErrorCategories) == SP_ERROR_INVALID_ARGUMENT);
static_assert(kAllErrorCategories[SP_ERROR_INDEX_OUT_OF_BOUNDS - 1] == ErrorCategory::IndexOutOfBounds &&
              kAllErrorCategories[SP_ERROR_VALUE_OUT_OF_RANGE - 1] == ErrorCategory::ValueOutOfRange &&
              kAllErrorCategories[SP_ERROR_INVALID_ARGUMENT - 1] == ErrorCategory::InvalidArgument);

// Why a plugin of another ABI major is refused: both versions, and what to
// do about it. A 1.x plugin is the case vendors will meet (2.0 replaced
// sp_call's fixed argument fields), so it is sent to the migration note.
std::string abi_refusal(const std::string& path, const sp_plugin& plugin) {
  const std::string theirs = std::to_string(plugin.abi_major) + "." + std::to_string(plugin.abi_minor);
  const std::string ours = std::to_string(SP_PLUGIN_ABI_MAJOR) + "." + std::to_string(SP_PLUGIN_ABI_MINOR);
  std::string why =
      "plugin " + path + " was built for plugin ABI " + theirs + " but this scatterproof speaks ABI " + ours + " (";
  if (plugin.abi_major == 1)
    why +=
        "ABI 2.0 passes scalar arguments as named values in sp_call.args instead of sp_call's dim, reduce, "
        "value and overwrite fields; port it as docs/plugin-abi.md, \"Migrating a plugin from ABI 1.x to 2.0\" shows, "
        "and rebuild it against this version's <scatterproof/plugin.h>)";
  else if (plugin.abi_major > SP_PLUGIN_ABI_MAJOR)
    why += "a newer ABI than this scatterproof knows: run it with the scatterproof whose SDK it was built against)";
  else
    why +=
        "rebuild the plugin against this version's <scatterproof/plugin.h>; docs/plugin-abi.md lists what "
        "changed)";
  return why;
}

}  // namespace

LoadedPlugin load_plugin(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) return {nullptr, std::string("cannot load plugin: ") + dlerror()};
  auto entry = reinterpret_cast<sp_plugin_entry_fn>(dlsym(library, SP_PLUGIN_ENTRY_SYMBOL));
  if (!entry) return {nullptr, "plugin " + path + " does not export " SP_PLUGIN_ENTRY_SYMBOL "()"};
  const sp_plugin* plugin = entry();
  if (!plugin) return {nullptr, "plugin " + path + ": " SP_PLUGIN_ENTRY_SYMBOL "() returned NULL"};
  // struct_size first: reading abi_major of a struct too small to hold it
  // would read past the plugin's object.
  if (plugin->struct_size < SP_PLUGIN_MIN_SIZE)
    return {nullptr, "plugin " + path + ": sp_plugin.struct_size " + std::to_string(plugin->struct_size) +
                         " is smaller than the ABI 1.0 minimum " + std::to_string(SP_PLUGIN_MIN_SIZE)};
  if (plugin->abi_major != SP_PLUGIN_ABI_MAJOR) return {nullptr, abi_refusal(path, *plugin)};
  if (!plugin->supports || !plugin->run)
    return {nullptr, "plugin " + path + ": sp_plugin.supports and sp_plugin.run must not be NULL"};
  return {plugin, {}};
}

namespace {

std::string plugin_name(const sp_plugin& plugin) { return plugin.name ? plugin.name : "(unnamed)"; }

// The ABI 2.2 backward entry point, or nullptr (absent from an older
// plugin's struct, or NULL).
int (*backward_entry(const sp_plugin& plugin))(const sp_call*, sp_result*) {
  return SP_PLUGIN_HAS_FIELD(&plugin, sp_plugin, backward) ? plugin.backward : nullptr;
}

// Does `plugin` know dtype t's sp_dtype value? uint16/32/64 came with ABI 2.3.
bool knows_dtype(const sp_plugin& plugin, DType t) {
  return plugin.abi_minor >= 3 || (t != DType::UInt16 && t != DType::UInt32 && t != DType::UInt64);
}

bool supports_any_dtype(const sp_plugin& plugin, const std::string& op) {
  for (DType t : kAllDTypes)
    if (knows_dtype(plugin, t) && plugin.supports(op.c_str(), static_cast<sp_dtype>(t))) return true;
  return false;
}

}  // namespace

// The ops offered to the harness: every op of the table the plugin supports
// for some dtype (plugin.h, call 4).
protocol::Hello hello_reply(const sp_plugin& plugin) {
  protocol::Hello hello;
  for (const OpSpec& op : op_table())
    if ((op.backward_of.empty() || backward_entry(plugin)) && supports_any_dtype(plugin, op.id))
      hello.ops.push_back(op.id);
  hello.name = plugin_name(plugin);
  hello.version = plugin.version ? plugin.version : "";
  hello.abi = std::to_string(plugin.abi_major) + "." + std::to_string(plugin.abi_minor);
  hello.shared_storage = true;
  return hello;
}

namespace {

// An argument as the ABI passes it; its strings point into `arg`.
sp_arg describe(const std::string& name, const Arg& arg) {
  sp_arg a{};
  a.name = name.c_str();
  switch (arg.type) {
    case Arg::Type::Int:
      a.type = SP_ARG_INT, a.i = arg.i;
      break;
    case Arg::Type::Bool:
      a.type = SP_ARG_BOOL, a.i = arg.b ? 1 : 0;
      break;
    case Arg::Type::String:
      a.type = SP_ARG_STRING, a.s = arg.s.c_str();
      break;
    case Arg::Type::Scalar:
      a.type = SP_ARG_SCALAR;
      a.scalar.kind = arg.scalar.kind == Scalar::Kind::Bool  ? SP_SCALAR_BOOL
                      : arg.scalar.kind == Scalar::Kind::Int ? SP_SCALAR_INT
                                                             : SP_SCALAR_FLOAT;
      a.scalar.i = arg.scalar.kind == Scalar::Kind::Bool ? (arg.scalar.b ? 1 : 0) : arg.scalar.i;
      a.scalar.f = arg.scalar.f;
      break;
    case Arg::Type::IntList:  // run_case declines such ops first
      throw std::logic_error("the plugin ABI has no int-list argument (" + name + ")");
  }
  return a;
}

// The preallocated output of an out-of-place op (plugin.h, "The ops"): the
// shape and dtype the op table names. Empty when the call lacks the operand
// they come from (the plugin then sees no "out" and declines).
std::optional<Tensor> allocate_out(const OpSpec& spec, const OpCall& call) {
  const std::optional<Shape> shape = output_shape_of(spec, call);
  const Tensor* dtype_of = call.tensor(spec.output_dtype_of);
  if (!shape || !dtype_of) return std::nullopt;
  return Tensor::zeros(dtype_of->dtype(), *shape);
}

sp_tensor describe(const Tensor& t, bool writable) {
  sp_tensor d{};
  d.dtype = static_cast<sp_dtype>(t.dtype());
  d.ndim = static_cast<int32_t>(t.rank());
  d.shape = t.rank() ? t.shape().data() : nullptr;
  d.strides = t.rank() ? t.strides().data() : nullptr;
  d.byte_offset = t.offset() * static_cast<int64_t>(dtype_size(t.dtype()));
  d.data = t.storage() ? t.storage()->data() : nullptr;
  d.writable = writable ? 1 : 0;
  return d;
}

std::string message_of(const sp_result& result) { return result.message ? result.message : ""; }

// Describes `call` as an sp_call (the tensors named in `writable` writable,
// every other one read-only) and calls `entry` (run or backward) with it.
int invoke(int (*entry)(const sp_call*, sp_result*), const OpCall& call, const std::vector<std::string>& writable,
           sp_result& result) {
  std::vector<sp_named_tensor> operands;
  for (const auto& [name, t] : call.tensors)
    operands.push_back(
        {name.c_str(), describe(t, std::find(writable.begin(), writable.end(), name) != writable.end())});
  sp_call c{};
  c.struct_size = sizeof(sp_call);
  c.op = call.op.c_str();
  c.tensors = operands.data();
  c.num_tensors = operands.size();
  std::vector<sp_arg> args;
  for (const auto& [name, arg] : call.args) args.push_back(describe(name, arg));
  c.args = args.data();
  c.num_args = args.size();
  c.doc_version = call.framework_version.c_str();
  result = sp_result{};
  result.struct_size = sizeof(sp_result);
  return entry(&c, &result);
}

// A backward op through sp_plugin.backward (plugin.h, "Backward"): the
// gradients are host-allocated, zeroed and writable, and come back in the
// table's order.
nlohmann::json run_backward(const protocol::Channel& ch, const sp_plugin& plugin, uint64_t id, OpCall& call,
                            const OpSpec& spec) {
  const auto entry = backward_entry(plugin);
  if (!entry)
    return protocol::encode_outcome(id,
                                    Outcome::unsupported("plugin " + plugin_name(plugin) +
                                                         " has no backward entry point (sp_plugin.backward, ABI 2.2)"));
  std::vector<std::string> grads;
  for (const std::string& operand : grad_operands(spec, call)) {
    grads.push_back(grad_name(operand));
    const Tensor& of = call.tensors.at(operand);
    call.tensors[grads.back()] = Tensor::zeros(of.dtype(), of.shape());
  }
  sp_result result{};
  const int status = invoke(entry, call, grads, result);
  if (status == SP_STATUS_OK) {
    std::vector<Tensor> outputs;
    for (const std::string& g : grads) outputs.push_back(call.tensors.at(g));
    return protocol::encode_outcome(id, Outcome::of_outputs(std::move(outputs)));
  }
  if (status == SP_STATUS_UNSUPPORTED) return protocol::encode_outcome(id, Outcome::unsupported(message_of(result)));
  if (status == SP_STATUS_ERROR && result.category >= SP_ERROR_INDEX_OUT_OF_BOUNDS &&
      result.category <= SP_ERROR_INVALID_ARGUMENT)
    return protocol::encode_outcome(id,
                                    Outcome::of_error(kAllErrorCategories[result.category - 1], message_of(result)));
  return protocol::broken_contract(
      ch, id,
      status == SP_STATUS_ERROR
          ? "plugin returned SP_STATUS_ERROR with category " + std::to_string(result.category) +
                " from backward(), which is not an sp_error_category"
          : "plugin returned " + std::to_string(status) + " from backward(), which is not an sp_status",
      message_of(result));
}

}  // namespace

nlohmann::json run_case(const protocol::Channel& ch, const sp_plugin& plugin, uint64_t id, OpCall& call) {
  const OpSpec* spec = find_op(call);
  if (!spec) return protocol::encode_outcome(id, Outcome::unsupported("op " + call.op + " is not in the op table"));
  for (const ArgSpec& a : spec->args)
    if (a.type == Arg::Type::IntList)
      return protocol::encode_outcome(id, Outcome::unsupported("the plugin ABI passes no int-list argument, and " +
                                                               call.op + "'s " + a.name + " is one"));
  const Tensor* data = call.tensor(spec->data_operand);
  if (!data)
    return protocol::encode_outcome(id, Outcome::unsupported("the call has no " + spec->data_operand + " operand"));
  for (const auto& [name, t] : call.tensors)
    if (!knows_dtype(plugin, t.dtype()))
      return protocol::encode_outcome(
          id, Outcome::unsupported("plugin " + plugin_name(plugin) + " was built against ABI " +
                                   std::to_string(plugin.abi_major) + "." + std::to_string(plugin.abi_minor) +
                                   ", which has no " + std::string(dtype_name(t.dtype())) + " (operand " + name +
                                   "; ABI 2.3 added it)"));
  if (!plugin.supports(call.op.c_str(), static_cast<sp_dtype>(data->dtype())))
    return protocol::encode_outcome(
        id, Outcome::unsupported("plugin " + plugin_name(plugin) + " does not support " + call.op + " on " +
                                 std::string(dtype_name(data->dtype()))));
  if (!spec->backward_of.empty()) return run_backward(ch, plugin, id, call, *spec);
  const std::string& written = spec->output;
  // The caller's out= is written in place when it has the result's shape;
  // a mis-shaped one is resized first (T-OUT6): the plugin gets a fresh out
  // of the right shape, unless it shares storage with an input (then the
  // plugin sees it as given and must reject the overlap).
  const Tensor* given_out = spec->in_place ? nullptr : call.tensor(written);
  if (given_out && plugin.abi_minor < 1)
    return protocol::encode_outcome(
        id, Outcome::unsupported("plugin " + plugin_name(plugin) + " was built against ABI " +
                                 std::to_string(plugin.abi_major) + "." + std::to_string(plugin.abi_minor) +
                                 ", which is never given a caller's out= (ABI 2.1 added it)"));
  if (!spec->in_place) {
    std::optional<Tensor> out = allocate_out(*spec, call);
    const bool keep_given = given_out && (!out || out->shape() == given_out->shape() ||
                                          std::any_of(call.tensors.begin(), call.tensors.end(), [&](const auto& t) {
                                            return t.first != written && t.second.storage() == given_out->storage();
                                          }));
    if (out && given_out && !keep_given) out = Tensor::zeros(given_out->dtype(), out->shape());  // resize keeps dtype
    if (out && !keep_given) call.tensors[written] = std::move(*out);
  }

  sp_result result{};
  const int status = invoke(plugin.run, call, {written}, result);
  switch (status) {
    case SP_STATUS_OK:
      if (const Tensor* output = call.tensor(written))
        return protocol::encode_outcome(id, Outcome::of_outputs({*output}));
      break;
    case SP_STATUS_UNSUPPORTED:
      return protocol::encode_outcome(id, Outcome::unsupported(message_of(result)));
    case SP_STATUS_ERROR:
      if (result.category >= SP_ERROR_INDEX_OUT_OF_BOUNDS && result.category <= SP_ERROR_INVALID_ARGUMENT)
        return protocol::encode_outcome(
            id, Outcome::of_error(kAllErrorCategories[result.category - 1], message_of(result)));
      break;
    default:
      break;
  }
  // A broken contract is the plugin's fault, not a finding about the op: the
  // category below is deliberately not a known one, so the harness rejects
  // the answer as garbage (verdict error) and its message says why.
  const std::string why = status == SP_STATUS_OK
                              ? "plugin returned SP_STATUS_OK but the call has no " + written + " operand to return"
                          : status == SP_STATUS_ERROR
                              ? "plugin returned SP_STATUS_ERROR with category " + std::to_string(result.category) +
                                    ", which is not an sp_error_category"
                              : "plugin returned " + std::to_string(status) + " from run(), which is not an sp_status";
  return protocol::broken_contract(ch, id, why, message_of(result));
}

}  // namespace sp::plugin
