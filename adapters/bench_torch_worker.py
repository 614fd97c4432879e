"""PyTorch's kernels as a contender of `scatterproof bench --gpu`
(bench/gpu_torch.h): the bench writes each workload's operands to files,
this worker loads them onto its device, runs the op with torch, times it and
writes the output back for the bench to checksum with its own code. Not an
adapter of the conformance suite (adapters/manifest.json does not list it).

    python bench_torch_worker.py --device cuda|cpu

Protocol, one JSON object per line:
  worker -> bench, first:  {"hello": 1, "torch": "2.11.0+cu130", "device": "cuda:0",
                            "device_name": "...", "cuda": "13.0"}
                       or  {"hello": 1, "unavailable": "why"} (then it exits 0)
  bench -> worker:         {"op": "torch.gather", "args": {"dim": 1, ...},
                            "tensors": {NAME: {"file", "dtype", "storage_elements",
                                               "shape", "strides", "offset"}},
                            "out_file": PATH, "warmups": W, "repeats": R}
  worker -> bench:         {"kernel_s": [R times], "to_device_s", "to_device_bytes",
                            "to_host_s", "to_host_bytes", "dtype", "shape", "clock"}
                       or  {"failure": "the op's error"}
  An empty line or end of input ends the worker.

Timing (the bench's GPU rule, docs/speed.md): operands are copied to the
device once per workload (to_device_s, CUDA events around each copy); then
W warm-up calls, the first one's output copied back (to_host_s) and written
to out_file as contiguous bytes; then R timed calls, each between two
torch.cuda.Event records with the device synchronised before the first, an
in-place op's self restored from a device copy before each call, outside
the timing. On the CPU (a check of this protocol without a GPU) the clock
is time.perf_counter and no transfer is timed.
"""
import ctypes
import json
import os
import sys
import time

import torch

# dtype name (reference/dtype.h) -> torch dtype; files hold the raw bytes
# (no numpy needed: bfloat16 has no numpy dtype, and a GPU host's torch may
# come without numpy).
DTYPES = {
    "bool": torch.bool,
    "uint8": torch.uint8,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
}
NAMES = {torch_dtype: name for name, torch_dtype in DTYPES.items()}


def call_op(op, t, a):
    """The op on the loaded tensors `t` with the scalar args `a`."""
    if op == "torch.gather":
        return torch.gather(t["input"], a["dim"], t["index"])
    if op == "torch.index_select":
        return torch.index_select(t["input"], a["dim"], t["index"])
    if op == "torch.scatter_":
        return t["self"].scatter_(a["dim"], t["index"], t["src"])
    if op == "torch.scatter_add_":
        return t["self"].scatter_add_(a["dim"], t["index"], t["src"])
    if op == "torch.scatter_reduce_":
        return t["self"].scatter_reduce_(a["dim"], t["index"], t["src"], a["reduce"],
                                         include_self=a.get("include_self", True))
    if op == "torch.index_add_":
        return t["self"].index_add_(a["dim"], t["index"], t["source"])
    raise NotImplementedError("op %s is not in bench_torch_worker.py's table" % op)


class Clock:
    """CUDA events on a GPU, time.perf_counter on the CPU."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"
        self.name = "torch.cuda.Event" if self.cuda else "time.perf_counter (CPU, not a GPU number)"

    def time(self, fn):
        """(fn's result, the seconds it took on the device)."""
        if not self.cuda:
            t0 = time.perf_counter()
            result = fn()
            return result, time.perf_counter() - t0
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        result = fn()
        end.record()
        end.synchronize()
        return result, start.elapsed_time(end) / 1e3


def load(spec, device, clock):
    """A tensor of the bench's layout on `device`, and its upload's seconds."""
    torch_dtype = DTYPES[spec["dtype"]]
    count = spec["storage_elements"]
    size = count * torch.empty(0, dtype=torch_dtype).element_size()
    if os.path.getsize(spec["file"]) != size:
        raise ValueError("%s holds %d bytes, not %d" % (spec["file"], os.path.getsize(spec["file"]), size))
    host = torch.from_file(spec["file"], shared=False, size=count, dtype=torch_dtype) if count else \
        torch.empty(0, dtype=torch_dtype)
    if clock.cuda:
        # From pageable memory, as the cuda backend's jobs copy the host tensors' own storage.
        storage, seconds = clock.time(lambda: host.to(device))
    else:
        storage, seconds = host, 0.0
    return storage.as_strided(spec["shape"], spec["strides"], spec["offset"]), seconds, host.numel() * host.element_size()


def run_request(req, device, clock):
    tensors, to_device_s, to_device_bytes = {}, 0.0, 0
    for name, spec in req["tensors"].items():
        tensors[name], seconds, size = load(spec, device, clock)
        to_device_s += seconds
        to_device_bytes += size if clock.cuda else 0
    op, args = req["op"], req.get("args", {})
    in_place = op.endswith("_")
    pristine = tensors["self"].clone() if in_place else None

    def restore():
        if in_place:
            tensors["self"].copy_(pristine)

    restore()
    out = call_op(op, tensors, args)
    if clock.cuda:
        host_out, to_host_s = clock.time(lambda: out.cpu())
    else:
        host_out, to_host_s = out.clone(), 0.0
    host_out = host_out.contiguous()
    nbytes = host_out.numel() * host_out.element_size()
    with open(req["out_file"], "wb") as f:
        if nbytes:  # the tensor's own bytes, through the buffer protocol: no copy
            f.write(memoryview((ctypes.c_char * nbytes).from_address(host_out.data_ptr())))
    for _ in range(max(0, req.get("warmups", 1) - 1)):
        restore()
        call_op(op, tensors, args)
    times = []
    for _ in range(req["repeats"]):
        restore()
        _, seconds = clock.time(lambda: call_op(op, tensors, args))
        times.append(seconds)
    return {"kernel_s": times, "to_device_s": to_device_s, "to_device_bytes": to_device_bytes,
            "to_host_s": to_host_s, "to_host_bytes": host_out.numel() * host_out.element_size() if clock.cuda else 0,
            "dtype": NAMES[host_out.dtype], "shape": list(host_out.shape), "clock": clock.name}


def hello(device_text):
    """The first line, and the device (None when unavailable)."""
    info = {"hello": 1, "torch": torch.__version__}
    if device_text == "cuda" and not torch.cuda.is_available():
        info["unavailable"] = "torch %s sees no CUDA device (torch.cuda.is_available() is False; CUDA build: %s)" % (
            torch.__version__, torch.version.cuda)
        return info, None
    if device_text not in ("cuda", "cpu"):
        info["unavailable"] = "unknown device %r (cuda or cpu)" % device_text
        return info, None
    device = torch.device("cuda:0" if device_text == "cuda" else "cpu")
    info["device"] = str(device)
    if device.type == "cuda":
        info["device_name"] = torch.cuda.get_device_name(0)
        info["cuda"] = torch.version.cuda
    else:
        info["device_name"] = "CPU (%d threads)" % torch.get_num_threads()
    return info, device


def main(argv):
    device_text = argv[argv.index("--device") + 1] if "--device" in argv else "cuda"
    info, device = hello(device_text)
    print(json.dumps(info), flush=True)
    if device is None:
        return 0
    clock = Clock(device)
    for line in sys.stdin:
        if not line.strip():
            break
        req = json.loads(line)
        try:
            reply = run_request(req, device, clock)
        except Exception as e:  # the op's own error: the bench reports it as the row's failure
            reply = {"failure": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")}
        if device.type == "cuda":
            torch.cuda.empty_cache()
        print(json.dumps(reply), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
