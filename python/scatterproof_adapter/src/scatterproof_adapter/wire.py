"""Wire tensors and arguments (backends/process/PROTOCOL.md): a request's operands as
NumPy views and back, its arguments as Python values."""
import base64
import math

import numpy as np

from .errors import Unsupported

NUMPY_DTYPES = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
}


# bfloat16 has no NumPy dtype: its elements travel as raw uint16 bits and
# adapters that can build a framework bfloat16 tensor from bits may do so.
WIRE_DTYPES = dict(NUMPY_DTYPES, bfloat16=np.uint16)


class WireTensor:
    """A tensor as the harness sent it: dtype, shape, element strides, offset, storage."""

    def __init__(self, wire, owner=None):
        """`owner`: the WireTensor whose storage this one views ("storage_of")."""
        self.dtype = wire["dtype"]
        if self.dtype not in WIRE_DTYPES:
            raise ValueError("unknown dtype " + self.dtype)
        self.shape = tuple(int(s) for s in wire["shape"])
        self.strides = tuple(int(s) for s in wire["strides"])
        self.offset = int(wire["offset"])
        if owner is not None:
            if owner.dtype != self.dtype:
                raise ValueError("a storage_of view must have its owner's dtype")
            self.storage = owner.storage  # the same array: writes through one are seen by the other
        else:
            self.storage = np.frombuffer(bytearray(base64.b64decode(wire["storage"])), dtype=WIRE_DTYPES[self.dtype])

    def view(self):
        """The elements as a NumPy view of the storage (bfloat16: uint16 bits)."""
        itemsize = self.storage.itemsize
        if 0 in self.shape:
            return np.zeros(self.shape, dtype=self.storage.dtype)
        return np.lib.stride_tricks.as_strided(
            self.storage[self.offset:], shape=self.shape, strides=tuple(s * itemsize for s in self.strides)
        )

    def array(self):
        """A contiguous copy of the elements (what a framework tensor is built from)."""
        if self.dtype == "bfloat16":
            raise Unsupported("bfloat16 has no NumPy dtype to build a framework tensor from")
        return np.array(self.view(), copy=True, order="C")

    def has_internal_overlap(self):
        return any(st == 0 and n > 1 for n, st in zip(self.shape, self.strides)) or (
            self.view().size > 1 and len(set(_element_offsets(self))) < self.view().size
        )

    def with_values(self, values):
        """Self's whole storage, with its view's elements replaced by `values`
        (an in-place op's answer keeps layout and untouched storage)."""
        values = np.asarray(values)
        if values.shape != self.shape:
            raise RuntimeError("in-place result has shape %s, self has %s" % (values.shape, self.shape))
        out = WireTensor.__new__(WireTensor)
        out.dtype, out.shape, out.strides, out.offset = self.dtype, self.shape, self.strides, self.offset
        out.storage = self.storage.copy()
        if values.size:
            out.view()[...] = values.astype(out.storage.dtype, copy=False)
        return out

    def to_wire(self):
        return {
            "dtype": self.dtype,
            "shape": list(self.shape),
            "strides": list(self.strides),
            "offset": self.offset,
            "storage": base64.b64encode(self.storage.tobytes()).decode("ascii"),
        }


def _element_offsets(t):
    grids = np.meshgrid(*[np.arange(n) * st for n, st in zip(t.shape, t.strides)], indexing="ij")
    return (sum(grids) + t.offset).ravel().tolist() if grids else [t.offset]


def dtype_name_of(array):
    for name, dt in NUMPY_DTYPES.items():
        if array.dtype == np.dtype(dt):
            return name
    raise RuntimeError("framework returned an unsupported dtype " + str(array.dtype))


def encode_array(array):
    """A framework's output as a contiguous wire tensor (little-endian), its shape kept: a 0-d
    output stays 0-d (np.ascontiguousarray alone returns at least 1-d)."""
    array = np.asarray(array)
    array = np.ascontiguousarray(array).reshape(array.shape)
    name = dtype_name_of(array)
    strides, step = [], 1
    for n in reversed(array.shape):
        strides.insert(0, step)
        step *= max(n, 1)
    return {
        "dtype": name,
        "shape": list(array.shape),
        "strides": strides,
        "offset": 0,
        "storage": base64.b64encode(array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()).decode("ascii"),
    }


def scalar_value(wire):
    """The Python value of a wire scalar {"kind", "value"}, keeping its kind (bool/int/float)."""
    kind, v = wire["kind"], wire["value"]
    if kind == "bool":
        return bool(v)
    if kind == "int":
        return int(v)
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return float(v)


def python_args(wire_args):
    """The request's args as Python values: a JSON object is a scalar argument
    ({"kind", "value"}); every other JSON value (int, bool, string) is already
    the argument's value."""
    return {name: scalar_value(v) if isinstance(v, dict) else v for name, v in wire_args.items()}


def decode_tensors(wire_tensors):
    """The request's operands; those sent with "storage_of" share their owner's storage array."""
    tensors = {k: WireTensor(v) for k, v in wire_tensors.items() if "storage_of" not in v}
    for k, v in wire_tensors.items():
        if "storage_of" in v:
            if v["storage_of"] not in tensors:
                raise ValueError("operand %s has storage_of %r, which carries no storage" % (k, v["storage_of"]))
            tensors[k] = WireTensor(v, owner=tensors[v["storage_of"]])
    return tensors
