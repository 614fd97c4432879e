/* scatterproof/plugin.h — the C ABI a vendor implements to run its own
 * gather/scatter kernels under scatterproof. ABI 2.0.
 *
 * What it is
 *   A plugin is a shared library exporting one function, sp_plugin_entry,
 *   that returns a static description (sp_plugin) of the library: its ABI
 *   version, name, version string, which op x dtype pairs it supports, and a
 *   `run` function that executes one call on caller-provided tensors.
 *
 *     scatterproof run --backend plugin:/path/libvendor.so specs/torch
 *
 *   The harness never loads a plugin into its own process. It starts
 *   `scatterproof-plugin-host /path/libvendor.so`, which dlopen()s the
 *   library and talks to the harness over a pipe. A plugin that crashes,
 *   aborts or hangs costs the case it was running (CRASH / TIMEOUT); the host
 *   is restarted and the run goes on. A plugin may print to stdout or stderr
 *   freely: the host moves its protocol channel off fd 1 before loading the
 *   library, and both streams end up in the harness's log of the host.
 *
 * The ops
 *   Op ids, operand names, argument names and types, defaults, which operand
 *   is written and the output's shape and dtype all come from the harness's
 *   op table (reference/op_table.cc); `scatterproof ops` prints it. This
 *   header lists none of them, so a new op or a new argument is no ABI
 *   change. The rules every op follows:
 *   - Operands carry the framework's own parameter names (input, self,
 *     index, src, x, updates, ...).
 *   - An in-place op (torch.scatter_, ...) writes its in-place operand,
 *     `self`, which arrives with writable != 0 in the layout the case gives
 *     it (strided, offset, ...).
 *   - For an out-of-place op (torch.gather, torch.scatter, paddle.scatter,
 *     ...) the host adds an operand named "out": contiguous, zero-filled,
 *     writable, with the shape and dtype the op table declares (shown by
 *     `scatterproof ops`; torch.gather's out has index's shape and input's
 *     dtype). On success the plugin writes every element of it.
 *     Where the case passes PyTorch's out= itself (an optional operand of
 *     torch.gather, torch.scatter, torch.index_select, torch.take_along_dim)
 *     the plugin gets that "out" instead: writable, in the case's layout,
 *     possibly of another dtype than the result's, possibly sharing memory
 *     with an input (then its data pointer lies inside that input's storage:
 *     the plugin decides about overlap from the pointers, as a framework
 *     would). A mis-shaped one is "resized" by the host first: the plugin
 *     gets a fresh zeroed out of the result's shape and out's dtype.
 *     reference/SEMANTICS.md (T-OUT*) says what each case must give.
 *   - Scalar arguments (dim, reduce, value, overwrite, ...) arrive as named,
 *     typed sp_arg entries; see "Arguments" below.
 *
 * Calls the host makes, in order
 *   1. dlopen(path, RTLD_NOW | RTLD_LOCAL)  (runs the library's constructors)
 *   2. sp_plugin_entry()                    once; the returned pointer must stay
 *                                           valid until the library is unloaded
 *   3. checks struct_size >= SP_PLUGIN_MIN_SIZE and abi_major ==
 *      SP_PLUGIN_ABI_MAJOR; on a mismatch the host refuses the plugin (the
 *      backend is reported unavailable, naming both versions; a plugin built
 *      for ABI 1.x is pointed at the migration note, docs/plugin-abi.md "Migrating
 *      a plugin from ABI 1.x to 2.0") and never calls anything else
 *   4. supports(op, dtype) for every op in the op table and every dtype (to
 *      advertise capabilities), then before each case for the dtype of the
 *      op's data operand (input, self or x: `scatterproof ops` names it);
 *      0 means the case is reported unsupported and run() is not called
 *   5. run(call, result) once per case whose supports() answered non-zero,
 *      one call at a time, always from the same thread
 *   6. release() once, if not NULL, when the harness is done (it is not
 *      called when the host is killed after a crash or a timeout)
 *
 * Arguments
 *   sp_call.args holds exactly the arguments the case passes, each once, in
 *   no promised order; an argument the case leaves out is absent and means
 *   the op's default (`scatterproof ops` lists it; e.g. paddle.scatter's
 *   overwrite defaults to true). Read them by name with sp_call_arg().
 *   A new argument (say `include_self` of a future op, or `alpha`) arrives
 *   as one more entry with a new name and one of the existing types: no
 *   struct changes, no ABI bump, and an existing plugin keeps loading.
 *   Because of that, a plugin must not ignore an argument it does not know:
 *   computing the op without it would be a different op. Decline such a
 *   call (SP_STATUS_UNSUPPORTED); sp_call_unknown_arg() finds it.
 *
 * Memory ownership
 *   - Everything reachable from the sp_plugin returned by sp_plugin_entry
 *     (the struct, name, version) is owned by the plugin and must stay valid
 *     until release() returns (static storage is the usual choice).
 *   - Everything reachable from an sp_call is owned by the host and valid
 *     only during that run() call: the op string, tensor descriptors,
 *     shape/stride arrays, data buffers, the args array, every argument's
 *     name and string value (sp_arg.name, sp_arg.s) and doc_version. Do not
 *     keep pointers to any of it; copy what must outlive the call.
 *   - Tensor data: the host allocates every buffer. The plugin writes only to
 *     tensors whose `writable` is non-zero: `self` for in-place ops, `out`
 *     for out-of-place ops. Inputs are read-only. The host hands every
 *     buffer, read-only ones included, back to the harness after each call,
 *     errors included: a write into an input is reported ("input
 *     modified"), and so is a write into self or out before an error the
 *     op checks before writing (reference/SEMANTICS.md "Side effects").
 *   - sp_result.message is owned by the plugin; it must stay valid until the
 *     next call into the plugin (a static or thread-local buffer is fine).
 *
 * Thread-safety
 *   The host calls into the plugin from a single thread, one call at a time.
 *   A plugin may use threads of its own inside run(), but they must have
 *   finished touching the call's buffers when run() returns.
 *
 * ABI evolution
 *   SP_PLUGIN_ABI_MAJOR changes only for incompatible changes (a field
 *   removed, retyped or reordered, a meaning changed); a host refuses any
 *   other major. SP_PLUGIN_ABI_MINOR grows when fields are appended to the
 *   end of sp_plugin, sp_call or sp_result. Every such struct starts with
 *   its own size, so each side reads an appended field only after checking
 *   that struct_size covers it (SP_PLUGIN_HAS_FIELD). Enum values are never
 *   renumbered; new ones are appended. New ops and new arguments are data
 *   (op ids, sp_arg entries), not ABI changes.
 *
 *   2.0 (from 1.x): sp_call's fixed has_dim/dim, reduce, has_value/value and
 *   has_overwrite/overwrite fields were replaced by `args`/`num_args`
 *   (sp_arg, sp_call_arg); sp_plugin and sp_result are unchanged. The
 *   migration, with a before/after snippet, is in docs/plugin-abi.md.
 *   2.1: no field changed; a plugin that reports abi_minor >= 1 may be given
 *   the caller's out= (see "The ops" above: any dtype, any layout, possibly
 *   sharing memory with an input). A 2.0 plugin never is: the host answers
 *   such a call "unsupported" for it.
 *   2.2: sp_plugin.backward appended (optional; see "Backward").
 *   2.3: sp_dtype values SP_DTYPE_UINT16/UINT32/UINT64 appended. A plugin
 *   that reports abi_minor >= 3 is asked supports() about them and may be
 *   given such tensors; an older plugin never is (its cases with such an
 *   operand are answered "unsupported" by the host).
 *
 * Backward
 *   Ops with a documented backward have a backward op in the table,
 *   "<op>.backward" (`scatterproof ops`: torch.gather.backward,
 *   torch.scatter_.backward, paddle.scatter.backward, ...). The host offers
 *   those ops only when sp_plugin.backward is present and non-NULL and
 *   supports("<op>.backward", dtype) answers non-zero; otherwise each such
 *   case is reported unsupported ("no backward entry point"). The call
 *   holds the forward's operands under their forward names (all read-only,
 *   the in-place self too), "grad_output" (the upstream gradient, shaped
 *   like the forward's output; read-only, any layout) and, writable, one
 *   zero-filled contiguous tensor per gradient, "grad_<operand>" for each
 *   differentiable operand the call passes (grad_input; grad_self and
 *   grad_src; grad_x and grad_updates), with that operand's shape and dtype.
 *   The args are the forward's. Errors are reported as for run().
 */
#ifndef SCATTERPROOF_PLUGIN_H_
#define SCATTERPROOF_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_PLUGIN_ABI_MAJOR 2
#define SP_PLUGIN_ABI_MINOR 3

/* The symbol the host looks up. */
#define SP_PLUGIN_ENTRY_SYMBOL "sp_plugin_entry"

#if defined(_WIN32)
#define SP_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SP_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* True when a struct that starts with `size_t struct_size` is large enough
 * to hold `field` (use before reading a field appended in a later minor). */
#define SP_PLUGIN_HAS_FIELD(ptr, type, field) ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

/* Element types. Values are fixed by the ABI. float16 is IEEE binary16,
 * bfloat16 the upper half of a binary32; bool is one byte, 0 or 1. All data
 * is in the host's native (little-endian) byte order. */
typedef enum sp_dtype {
  SP_DTYPE_BOOL = 0,
  SP_DTYPE_UINT8 = 1,
  SP_DTYPE_INT8 = 2,
  SP_DTYPE_INT16 = 3,
  SP_DTYPE_INT32 = 4,
  SP_DTYPE_INT64 = 5,
  SP_DTYPE_FLOAT16 = 6,
  SP_DTYPE_BFLOAT16 = 7,
  SP_DTYPE_FLOAT32 = 8,
  SP_DTYPE_FLOAT64 = 9,
  SP_DTYPE_UINT16 = 10, /* ABI 2.3 */
  SP_DTYPE_UINT32 = 11, /* ABI 2.3 */
  SP_DTYPE_UINT64 = 12  /* ABI 2.3 */
} sp_dtype;

/* A strided view, DLPack-like. Element (i0, ..., i{n-1}) lives at
 *   (char*)data + byte_offset + (i0*strides[0] + ... ) * element_size
 * Strides are in elements and may be 0 (broadcast views) or describe any
 * non-contiguous layout; ndim may be 0 (one element) and sizes may be 0 (no
 * elements). The host has checked that every element lies inside the buffer. */
typedef struct sp_tensor {
  sp_dtype dtype;
  int32_t ndim;
  const int64_t* shape;   /* ndim entries; NULL when ndim == 0 */
  const int64_t* strides; /* ndim entries, in elements; NULL when ndim == 0 */
  int64_t byte_offset;    /* from data to element (0, ..., 0) */
  void* data;
  int32_t writable; /* non-zero: the plugin's output (self or out) */
} sp_tensor;

/* An operand and its name: the framework's own parameter name, as the op
 * table declares it ("The ops" above; `scatterproof ops`), or "out", the
 * output the host adds for an out-of-place op. */
typedef struct sp_named_tensor {
  const char* name;
  sp_tensor tensor;
} sp_named_tensor;

typedef enum sp_scalar_kind { SP_SCALAR_BOOL = 0, SP_SCALAR_INT = 1, SP_SCALAR_FLOAT = 2 } sp_scalar_kind;

/* A scalar with the type the user passed in Python (converting it to self's
 * dtype is part of the semantics under test). */
typedef struct sp_scalar {
  sp_scalar_kind kind;
  int64_t i; /* SP_SCALAR_BOOL (0 or 1) and SP_SCALAR_INT */
  double f;  /* SP_SCALAR_FLOAT (may be NaN or infinite) */
} sp_scalar;

/* A scalar argument, named and typed as the harness's op table declares it
 * (`scatterproof ops` lists every op's arguments with their types): the host
 * sends an argument only with its declared type. New arguments need no ABI
 * change: they arrive as further entries (see "Arguments" above). */
typedef enum sp_arg_type {
  SP_ARG_INT = 0,    /* `i`: dim, ... */
  SP_ARG_BOOL = 1,   /* `i` is 0 or 1: overwrite, include_self, ... */
  SP_ARG_STRING = 2, /* `s`, NUL-terminated, as the user passed it: reduce, ... */
  SP_ARG_SCALAR = 3  /* `scalar`, a Python number with its kind: value, alpha, ... */
} sp_arg_type;

typedef struct sp_arg {
  const char* name; /* host-owned, valid during run() only */
  sp_arg_type type;
  int64_t i;        /* SP_ARG_INT; SP_ARG_BOOL (0 or 1) */
  const char* s;    /* SP_ARG_STRING (host-owned, valid during run() only); NULL otherwise */
  sp_scalar scalar; /* SP_ARG_SCALAR */
} sp_arg;

/* One call of one op. `args` holds exactly the arguments the case passes,
 * num_args of them (an argument the case leaves out is absent; its default
 * is the op's). */
typedef struct sp_call {
  size_t struct_size; /* sizeof(sp_call) of the host's header */
  const char* op;     /* "torch.scatter_", ... */
  const sp_named_tensor* tensors;
  size_t num_tensors;
  const sp_arg* args;
  size_t num_args;
  const char* doc_version; /* the framework version whose rules the call follows ("Versioned rules" in
                              reference/SEMANTICS.md): "2.8", "r2.10"; "" = the framework's baseline */
} sp_call;

/* What run() returns. */
typedef enum sp_status {
  SP_STATUS_OK = 0,         /* outputs written (self or out) */
  SP_STATUS_ERROR = 1,      /* the op rejected the call: result->category and ->message */
  SP_STATUS_UNSUPPORTED = 2 /* the plugin cannot run this call: result->message says why */
} sp_status;

/* The documented failure categories (mirror of the harness's taxonomy). */
typedef enum sp_error_category {
  SP_ERROR_NONE = 0,
  SP_ERROR_INDEX_OUT_OF_BOUNDS = 1, /* an index value outside the documented range */
  SP_ERROR_DIM_OUT_OF_RANGE = 2,    /* dim outside [-r, r) */
  SP_ERROR_RANK_MISMATCH = 3,       /* operands do not share the documented rank */
  SP_ERROR_SHAPE_MISMATCH = 4,      /* a size rule between operands is violated */
  SP_ERROR_DTYPE_MISMATCH = 5,      /* self and src (or updates) dtypes differ */
  SP_ERROR_INDEX_DTYPE = 6,         /* index is not of a documented integer dtype */
  SP_ERROR_INVALID_REDUCE = 7,      /* reduce is not one of the documented strings */
  SP_ERROR_RANK_LIMIT = 8,          /* rank above the documented maximum */
  SP_ERROR_UNSUPPORTED_DTYPE = 9,   /* a documented dtype restriction */
  SP_ERROR_OVERLAPPING_OUTPUT = 10, /* in-place write into a tensor whose elements alias */
  SP_ERROR_VALUE_OUT_OF_RANGE = 11, /* a scalar value not representable in self's dtype */
  SP_ERROR_INVALID_ARGUMENT = 12    /* any other documented argument rule */
} sp_error_category;

/* Filled by run(). The host zero-fills it and sets struct_size first. */
typedef struct sp_result {
  size_t struct_size;
  sp_error_category category; /* SP_STATUS_ERROR only */
  const char* message;        /* SP_STATUS_ERROR / SP_STATUS_UNSUPPORTED; plugin-owned,
                                 valid until the next call into the plugin; may be NULL */
} sp_result;

typedef struct sp_plugin {
  size_t struct_size;  /* sizeof(sp_plugin) of the plugin's header */
  uint32_t abi_major;  /* SP_PLUGIN_ABI_MAJOR */
  uint32_t abi_minor;  /* SP_PLUGIN_ABI_MINOR */
  const char* name;    /* short, e.g. "acme-scatter" */
  const char* version; /* the vendor's own version string */
  /* Non-zero when the plugin implements `op` for a data operand (input,
   * self or x) of `dtype`. Must be cheap and have no side effects. */
  int (*supports)(const char* op, sp_dtype dtype);
  /* Executes one call. Returns an sp_status; any other value is reported as
   * a harness error naming the plugin. REQUIRES: supports(call->op, dtype of
   * the data operand) returned non-zero. */
  int (*run)(const sp_call* call, sp_result* result);
  /* Optional (may be NULL): called once after the last run(). */
  void (*release)(void);
  /* ABI 2.2, optional (may be NULL, or absent from an older plugin's
   * struct): the backward of an op (see "Backward" above). Called instead
   * of run() for an op id ending in ".backward"; the same contract. */
  int (*backward)(const sp_call* call, sp_result* result);
} sp_plugin;

/* The size of an ABI 1.0 sp_plugin: the smallest a host accepts. */
#define SP_PLUGIN_MIN_SIZE (offsetof(sp_plugin, release) + sizeof(void (*)(void)))

/* The one symbol a plugin exports. */
SP_PLUGIN_EXPORT const sp_plugin* sp_plugin_entry(void);
typedef const sp_plugin* (*sp_plugin_entry_fn)(void);

/* Convenience: the operand called `name`, or NULL. */
static inline const sp_tensor* sp_call_tensor(const sp_call* call, const char* name) {
  size_t i;
  for (i = 0; i < call->num_tensors; ++i)
    if (strcmp(call->tensors[i].name, name) == 0) return &call->tensors[i].tensor;
  return NULL;
}

/* Convenience: the argument called `name`, or NULL when the case does not
 * pass it. */
static inline const sp_arg* sp_call_arg(const sp_call* call, const char* name) {
  size_t i;
  for (i = 0; i < call->num_args; ++i)
    if (strcmp(call->args[i].name, name) == 0) return &call->args[i];
  return NULL;
}

/* Convenience: the name of the first argument of `call` that is not among
 * the `num_known` names in `known`, or NULL when the plugin knows them all.
 * A plugin declines a call carrying an argument it does not implement
 * rather than compute a different op (see "Arguments" above):
 *   static const char* const kKnown[] = {"dim", "reduce"};
 *   const char* unknown = sp_call_unknown_arg(call, kKnown, 2);
 *   if (unknown) return decline(result, "argument %s is not implemented", unknown); */
static inline const char* sp_call_unknown_arg(const sp_call* call, const char* const* known, size_t num_known) {
  size_t i, k;
  for (i = 0; i < call->num_args; ++i) {
    for (k = 0; k < num_known; ++k)
      if (strcmp(call->args[i].name, known[k]) == 0) break;
    if (k == num_known) return call->args[i].name;
  }
  return NULL;
}

/* Convenience: bytes per element of `dtype` (0 for an unknown value). */
static inline size_t sp_dtype_size(sp_dtype dtype) {
  switch (dtype) {
    case SP_DTYPE_BOOL:
    case SP_DTYPE_UINT8:
    case SP_DTYPE_INT8:
      return 1;
    case SP_DTYPE_INT16:
    case SP_DTYPE_UINT16:
    case SP_DTYPE_FLOAT16:
    case SP_DTYPE_BFLOAT16:
      return 2;
    case SP_DTYPE_INT32:
    case SP_DTYPE_UINT32:
    case SP_DTYPE_FLOAT32:
      return 4;
    case SP_DTYPE_INT64:
    case SP_DTYPE_UINT64:
    case SP_DTYPE_FLOAT64:
      return 8;
  }
  return 0;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCATTERPROOF_PLUGIN_H_ */
