"""stablehlo_mlir.py — the small MLIR reader behind scripts/import-stablehlo-tests.

It reads exactly the subset StableHLO's gather/scatter test programs use (no
general MLIR parser exists on PyPI without a compiler toolchain; jaxlib's
bindings would tie the importer to one jaxlib):

- `dense<...>` constants: nested lists, splats, and `dense<"0x...">` raw
  little-endian buffers; element literals as decimals, `true`/`false` and
  `0x...` bit patterns (MLIR's NaN / infinity spelling);
- `tensor<AxBxT>` types;
- `#stablehlo.gather<...>` / `#stablehlo.scatter<...>` dimension numbers,
  `slice_sizes = array<i64: ...>`, `indices_are_sorted`, `unique_indices`;
- the scatter region's kind (add / multiply / minimum / maximum / the update
  returned: replace).

Everything else raises Unsupported with the reason, which the importer lists.
tests/stablehlo_mlir_check.py tests it.
"""
import re

# MLIR element type -> (spec dtype, bytes per element in a hex buffer, kind)
DTYPES = {
    "i1": ("bool", 1, "bool"), "ui8": ("uint8", 1, "uint"), "i8": ("int8", 1, "int"), "i16": ("int16", 2, "int"),
    "i32": ("int32", 4, "int"), "i64": ("int64", 8, "int"), "f16": ("float16", 2, "float"),
    "bf16": ("bfloat16", 2, "float"), "f32": ("float32", 4, "float"), "f64": ("float64", 8, "float"),
    "ui16": ("uint16", 2, "uint"), "ui32": ("uint32", 4, "uint"), "ui64": ("uint64", 8, "uint"),
}
REGION_KINDS = {"stablehlo.add": "add", "stablehlo.multiply": "multiply", "stablehlo.minimum": "minimum",
                "stablehlo.maximum": "maximum"}
GATHER_LISTS = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
                "start_index_map")
SCATTER_LISTS = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                 "scatter_indices_batching_dims", "scatter_dims_to_operand_dims")


class Unsupported(Exception):
    """The file uses something the project cannot express; the message says what."""


def parse_type(text):
    """'tensor<2x3xf32>' -> ([2, 3], 'f32'); raises Unsupported for dynamic dims and unknown element types."""
    m = re.fullmatch(r"tensor<([^>]*)>", text.strip())
    if not m:
        raise Unsupported("not a tensor type: %s" % text)
    parts = m.group(1).split("x")
    elem = parts[-1]
    if any(p == "?" for p in parts[:-1]):
        raise Unsupported("dynamic shape %s" % text)
    if elem not in DTYPES:
        raise Unsupported("element type %s" % elem)
    return [int(p) for p in parts[:-1]], elem


def _bits_text(bits, nbytes):
    return "0x%0*x" % (2 * nbytes, bits)


def _literal(tok, elem):
    """One element literal -> a JSON value of the spec format."""
    dtype, nbytes, kind = DTYPES[elem]
    tok = tok.strip()
    if kind == "bool":
        if tok in ("true", "false"):
            return tok == "true"
        return int(tok, 0) != 0
    if tok.lower().startswith("0x"):
        return _bits_text(int(tok, 16), nbytes) if kind == "float" else _hex_int(int(tok, 16), nbytes, kind)
    if kind == "float":
        value = float(tok)
        if value == 0.0 and tok.startswith("-"):
            return "-0.0"
        return value
    return int(tok)


def _hex_int(bits, nbytes, kind):
    if kind == "int" and bits >= 1 << (8 * nbytes - 1):
        bits -= 1 << (8 * nbytes)
    return bits


def _decode_buffer(hexdigits, shape, elem):
    dtype, nbytes, kind = DTYPES[elem]
    raw = bytes.fromhex(hexdigits)
    count = 1
    for d in shape:
        count *= d
    if len(raw) == nbytes and count != 1:  # a splat written as one element's bytes
        raw = raw * count
    if len(raw) != nbytes * count:
        raise Unsupported("hex buffer of %d bytes for %d elements of %s" % (len(raw), count, elem))
    values = []
    for k in range(count):
        chunk = raw[k * nbytes:(k + 1) * nbytes]
        bits = int.from_bytes(chunk, "little")
        if kind == "bool":
            values.append(bits != 0)
        elif kind == "float":
            values.append(_bits_text(bits, nbytes))
        else:
            values.append(_hex_int(bits, nbytes, kind))
    return values


def _nest(flat, shape):
    if not shape:
        return flat[0]
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]


def _split_list(text):
    """'[[1, 2], [3, 4]]' -> nested Python lists of token strings."""
    tokens = re.findall(r"\[|\]|[^\s,\[\]]+", text)
    stack = [[]]
    for t in tokens:
        if t == "[":
            stack.append([])
        elif t == "]":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(t)
    if len(stack) != 1 or len(stack[0]) != 1:
        raise Unsupported("unbalanced dense literal")
    return stack[0][0]


def _flatten(x):
    return [y for e in x for y in _flatten(e)] if isinstance(x, list) else [x]


def parse_dense(body, type_text):
    """The inside of dense<...> and its tensor type -> a spec tensor {dtype, data[, shape]}."""
    shape, elem = parse_type(type_text)
    dtype = DTYPES[elem][0]
    body = body.strip()
    count = 1
    for d in shape:
        count *= d
    if body.startswith('"'):
        flat = _decode_buffer(body.strip('"')[2:], shape, elem)
    elif body.startswith("["):
        flat = [_literal(t, elem) for t in _flatten(_split_list(body))]
        if len(flat) != count:
            raise Unsupported("dense literal of %d elements for shape %s" % (len(flat), shape))
    else:
        flat = [_literal(body, elem)] * count
    tensor = {"dtype": dtype, "data": _nest(flat, shape) if count else []}
    if count == 0:
        tensor["shape"] = shape
    return tensor


def parse_dims_attr(text, names):
    """'offset_dims = [1], index_vector_dim = 1' -> {name: list, 'index_vector_dim': int} (only those present)."""
    out = {}
    for name in names:
        m = re.search(r"\b%s = \[([^\]]*)\]" % name, text)
        if m:
            out[name] = [int(v) for v in m.group(1).split(",") if v.strip()]
    m = re.search(r"\bindex_vector_dim = (-?\d+)", text)
    if m:
        out["index_vector_dim"] = int(m.group(1))
    return out


def parse_op_attrs(op, text):
    """The attribute text of a gather / scatter op -> its args, as the op table names them."""
    kind = "scatter" if op == "stablehlo.scatter" else "gather"
    m = re.search(r"#stablehlo\.%s<([^>]*)>" % kind, text)
    if not m:
        raise Unsupported("no #stablehlo.%s<...> attribute" % kind)
    args = parse_dims_attr(m.group(1), SCATTER_LISTS if kind == "scatter" else GATHER_LISTS)
    m = re.search(r"slice_sizes = array<i64(?::([^>]*))?>", text)
    if m:
        args["slice_sizes"] = [int(v) for v in (m.group(1) or "").split(",") if v.strip()]
    for flag in ("indices_are_sorted", "unique_indices"):
        m = re.search(r"\b%s = (true|false)" % flag, text)
        if m:
            args[flag] = m.group(1) == "true"
    return args


def region_kind(region):
    """The update computation of a scatter region: add / multiply / minimum / maximum / replace."""
    args = re.findall(r"\^bb0\((%\w+): [^,]*, (%\w+): ", region)
    if not args:
        raise Unsupported("a region without two block arguments (variadic scatter)")
    first, second = args[0]
    ret = re.search(r"stablehlo\.return (%\w+)", region)
    if not ret:
        raise Unsupported("a region without stablehlo.return")
    if ret.group(1) == second:
        return "replace"
    ops = re.findall(r"(%\w+) = \"?(stablehlo\.\w+)\"?\(?\s*(%\w+), (%\w+)", region)
    if len(ops) != 1 or ops[0][0] != ret.group(1) or ops[0][1] not in REGION_KINDS:
        raise Unsupported("update computation not one of add, multiply, minimum, maximum, replace")
    if {ops[0][2], ops[0][3]} != {first, second}:
        raise Unsupported("update computation does not combine the two block arguments")
    return REGION_KINDS[ops[0][1]]

